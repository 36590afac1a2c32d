//! Prints the register estimate (`ptx_exec::register_estimate`) of every kernel of the PTX
//! files given: `cargo run -p ptx-exec --example register_estimate -- FILE.ptx...`. Beside
//! `ptxas -v` it shows how far the heuristic is from ptxas (docs/timing.md has the table).
use ptx_exec::{register_estimate::estimate_registers, Session};

fn main() {
    for path in std::env::args().skip(1) {
        let Ok(text) = std::fs::read_to_string(&path) else {
            eprintln!("{path}: cannot read");
            continue;
        };
        let Ok(module) = ptx_syntax::parse(&text) else {
            eprintln!("{path}: does not parse");
            continue;
        };
        let Ok(s) = Session::new(&module, &text, memsys::GpuConfig::h100()) else {
            eprintln!("{path}: does not lower");
            continue;
        };
        for (i, f) in s.program.functions.iter().enumerate() {
            if f.is_kernel {
                println!(
                    "{path}\t{}\t{}",
                    f.name,
                    estimate_registers(&s.program, i as u32)
                );
            }
        }
    }
}
