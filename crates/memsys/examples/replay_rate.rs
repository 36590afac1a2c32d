//! Quick replay-rate check outside criterion:
//! `cargo run --release -p memsys --example replay_rate -- [N] [WORKLOAD]`, WORKLOAD one of
//! `synthetic` (the documented mix, generated on the fly), `pregenerated` (the same accesses
//! generated and compiled into a [`replay::Trace`] before the clock starts, replayed with
//! `run_trace`), `streaming`, `l1hit`, `l2hit` (on the fly), `streaming-pregenerated`,
//! `l1hit-pregenerated`, `l2hit-pregenerated`, `generate` (the synthetic generator alone).
//!
//! Prints the wall-clock rate and, on Linux, the rate over the CPU time the process was
//! actually given (`/proc/self/schedstat`), which is the fairer figure on a shared machine.

use std::time::Instant;

use memsys::replay::TraceAccess;
use memsys::{replay, CacheOperator, GpuConfig, MemSystem, Request};

/// Nanoseconds this thread has run on a CPU, if the kernel says.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn main() -> Result<(), memsys::MemError> {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args
        .get(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000_000);
    let mode = args.get(2).map(String::as_str).unwrap_or("synthetic");
    // The A100 preset with its whole 30 MiB persisting set-aside (BENCHMARKS.md).
    let mut cfg = GpuConfig::a100();
    cfg.set_persisting_l2(cfg.persisting_l2_max_bytes)?;
    let mut m = MemSystem::tags_only(cfg)?;
    let l2hit = (0..n as u64).map(|i| TraceAccess {
        request: Request::load((i % 16) as u32).with_operator(CacheOperator::Cg),
        addr: 0x7f00_0000_0000 + (i.wrapping_mul(0x9E37_79B9) % (1 << 14)) * 32,
        bytes: 4,
    });
    let pregenerated: replay::Trace = match mode {
        "pregenerated" => replay::synthetic(1).take(n).collect(),
        "l2hit-pregenerated" => (0..n as u64)
            .map(|i| TraceAccess {
                request: Request::load((i % 16) as u32).with_operator(CacheOperator::Cg),
                addr: 0x7f00_0000_0000 + (i.wrapping_mul(0x9E37_79B9) % (1 << 14)) * 32,
                bytes: 4,
            })
            .collect(),
        "streaming-pregenerated" => replay::streaming().take(n).collect(),
        "l1hit-pregenerated" => replay::l1_hits().take(n).collect(),
        _ => replay::Trace::new(),
    };
    let (t, c) = (Instant::now(), cpu_ns());
    match mode {
        "l1hit" => replay::run(&mut m, replay::l1_hits().take(n))?,
        "l2hit" => replay::run(&mut m, l2hit)?,
        "streaming" => replay::run(&mut m, replay::streaming().take(n))?,
        "pregenerated" | "l2hit-pregenerated" | "streaming-pregenerated" | "l1hit-pregenerated" => {
            replay::run_trace(&mut m, &pregenerated)?
        }
        "generate" => {
            std::hint::black_box(replay::synthetic(1).take(n).fold(0, |a, t| a ^ t.addr));
            n as u64
        }
        "synthetic" => replay::run(&mut m, replay::synthetic(1).take(n))?,
        other => {
            eprintln!("unknown workload {other}");
            std::process::exit(2);
        }
    };
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
        "{mode}: {n} accesses in {dt:.3} s: {:.1} M accesses/s{cpu}",
        n as f64 / dt / 1e6
    );
    Ok(())
}
