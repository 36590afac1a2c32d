//! Writes a documented memsys workload as a text trace (docs/trace-format.md), e.g. to time
//! `ptxsim replay` on the benchmark workload:
//! `cargo run --release -p ptx-trace --example synthetic_trace -- 10000000 > bench.trace`
//! (`[N] [synthetic|streaming]`, default 10 M accesses of `memsys::replay::synthetic(1)`).

use std::io::{BufWriter, Write};

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args
        .get(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000_000);
    let accesses: Box<dyn Iterator<Item = _>> = match args.get(2).map(String::as_str) {
        Some("streaming") => Box::new(memsys::replay::streaming().take(n)),
        _ => Box::new(memsys::replay::synthetic(1).take(n)),
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    writeln!(out, "# sm op address bytes [policy]")?;
    for a in accesses {
        writeln!(out, "{}", ptx_trace::format_access(&a))?;
    }
    out.flush()
}
