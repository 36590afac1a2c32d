//! Replay rate on a text trace file, the replay alone timed:
//! `cargo run --release -p ptx-trace --example replay_file_rate -- TRACE [a100|h100|b200] [ROUNDS]`
//!
//! Reads TRACE (docs/trace-format.md) into its compiled form, then replays it ROUNDS times
//! (default 3), each on a fresh tags-only memory system of the GPU (default A100), on one
//! thread, and prints each round's rate over wall time and over the CPU time the thread was
//! given (`/proc/self/schedstat`), then the L1/L2 sector hit rates. Reading and parsing are
//! not timed (`ptxsim replay` end to end times those too).

use std::time::Instant;

use memsys::{GpuConfig, MemSystem};

/// Nanoseconds this thread has run on a CPU, if the kernel says.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: replay_file_rate TRACE [a100|h100|b200] [ROUNDS]");
        std::process::exit(2);
    };
    let gpu = match args.get(1).map(String::as_str) {
        None | Some("a100") => GpuConfig::a100(),
        Some("h100") => GpuConfig::h100(),
        Some("b200") => GpuConfig::b200(),
        Some(other) => return Err(format!("unknown GPU {other}").into()),
    };
    let rounds: usize = args.get(2).map(|r| r.parse()).transpose()?.unwrap_or(3);
    let t = Instant::now();
    let file = std::io::BufReader::new(std::fs::File::open(path)?);
    let parsed = ptx_trace::read_trace(file);
    if let Some(e) = &parsed.error {
        return Err(format!("{path}:{e}").into());
    }
    let n = parsed.trace.len();
    println!(
        "{path}: {n} accesses, {} request shapes, read in {:.2} s",
        parsed.trace.shapes(),
        t.elapsed().as_secs_f64()
    );
    let mut last = None;
    for round in 1..=rounds {
        let mut mem = MemSystem::tags_only(gpu.clone())?;
        let (t, c) = (Instant::now(), cpu_ns());
        parsed.replay(&mut mem).map_err(|e| format!("{path}:{e}"))?;
        let dt = t.elapsed().as_secs_f64();
        let cpu = match (c, cpu_ns()) {
            (Some(a), Some(b)) => format!(
                ", {:.1} M/s over {:.3} s of CPU time",
                n as f64 / ((b - a) as f64 * 1e-9) / 1e6,
                (b - a) as f64 * 1e-9
            ),
            _ => String::new(),
        };
        println!(
            "round {round}: {:.3} s, {:.1} M accesses/s{cpu}",
            dt,
            n as f64 / dt / 1e6
        );
        last = Some(mem.stats());
    }
    if let Some(s) = last {
        let pct = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{:.2}%", r * 100.0));
        println!(
            "L1 sector hit rate {}, L2 sector hit rate {}",
            pct(s.total().l1.hit_rate()),
            pct(s.total().l2.hit_rate())
        );
    }
    Ok(())
}
