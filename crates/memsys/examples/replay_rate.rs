//! Quick replay-rate check outside criterion:
//! `cargo run --release --example replay_rate [N] [synthetic|l1hit|l2hit]`.

use std::time::Instant;

use memsys::replay::TraceAccess;
use memsys::{replay, CacheOperator, GpuConfig, MemSystem, Request};

fn main() -> Result<(), memsys::MemError> {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args
        .get(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000_000);
    let mode = args.get(2).map(String::as_str).unwrap_or("synthetic");
    let mut m = MemSystem::tags_only(GpuConfig::a100())?;
    let small = |op: CacheOperator, span: u64| {
        (0..n as u64).map(move |i| TraceAccess {
            request: Request::load((i % 16) as u32).with_operator(op),
            addr: 0x7f00_0000_0000 + (i.wrapping_mul(0x9E37_79B9) % span) * 32,
            bytes: 4,
        })
    };
    let t = Instant::now();
    match mode {
        "l1hit" => replay::run(&mut m, small(CacheOperator::Ca, 512))?,
        "l2hit" => replay::run(&mut m, small(CacheOperator::Cg, 1 << 14))?,
        _ => replay::run(&mut m, replay::synthetic(1).take(n))?,
    };
    let dt = t.elapsed().as_secs_f64();
    println!(
        "{mode}: {n} accesses in {dt:.3} s: {:.1} M accesses/s",
        n as f64 / dt / 1e6
    );
    Ok(())
}
