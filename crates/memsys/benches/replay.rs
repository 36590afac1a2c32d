//! Replay throughput on one core, tags only, through the A100 preset's L1s and L2 (see
//! BENCHMARKS.md for the workloads and results):
//!
//! - `synthetic_10M_a100`: the documented mixed-hint workload ([`memsys::replay::synthetic`],
//!   10 M accesses), generated on the fly, so the rate includes generating it;
//! - `synthetic_10M_a100_pregenerated`: the same 10 M accesses generated and compiled into a
//!   [`memsys::replay::Trace`] before the clock starts (a trace already in memory, as
//!   `ptxsim replay` holds a parsed file), replayed with `run_trace`: the replay alone;
//! - `streaming_10M_a100`: a streaming copy kernel ([`memsys::replay::streaming`]);
//! - `l1hit_10M_a100`: every access an L1 hit ([`memsys::replay::l1_hits`]);
//! - `generate_only_10M`: the synthetic generator alone.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use memsys::replay::TraceAccess;
use memsys::{replay, GpuConfig, MemSystem};

const ACCESSES: u64 = 10_000_000;

fn replay_all(trace: impl Iterator<Item = TraceAccess>) -> impl FnMut(MemSystem) -> MemSystem {
    let mut trace = Some(trace);
    move |mut m| {
        let n = replay::run(&mut m, trace.take().expect("one run per trace")).expect("replay");
        assert_eq!(n, ACCESSES);
        m
    }
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("replay");
    g.sample_size(10);
    g.throughput(Throughput::Elements(ACCESSES));
    // The A100 preset with its whole 30 MiB persisting set-aside (the workload BENCHMARKS.md
    // describes; the default set-aside is 0).
    let mut cfg = GpuConfig::a100();
    cfg.set_persisting_l2(cfg.persisting_l2_max_bytes)
        .expect("the maximum");
    let fresh = || MemSystem::tags_only(cfg.clone()).expect("preset");
    let n = ACCESSES as usize;
    g.bench_function("synthetic_10M_a100", |b| {
        b.iter_batched(
            fresh,
            |m| replay_all(replay::synthetic(1).take(n))(m),
            BatchSize::PerIteration,
        )
    });
    let trace: replay::Trace = replay::synthetic(1).take(n).collect();
    g.bench_function("synthetic_10M_a100_pregenerated", |b| {
        b.iter_batched(
            fresh,
            |mut m| {
                let n = replay::run_trace(&mut m, &trace).expect("replay");
                assert_eq!(n, ACCESSES);
                m
            },
            BatchSize::PerIteration,
        )
    });
    drop(trace);
    g.bench_function("streaming_10M_a100", |b| {
        b.iter_batched(
            fresh,
            |m| replay_all(replay::streaming().take(n))(m),
            BatchSize::PerIteration,
        )
    });
    g.bench_function("l1hit_10M_a100", |b| {
        b.iter_batched(
            fresh,
            |m| replay_all(replay::l1_hits().take(n))(m),
            BatchSize::PerIteration,
        )
    });
    g.bench_function("generate_only_10M", |b| {
        b.iter(|| replay::synthetic(1).take(n).fold(0u64, |a, t| a ^ t.addr))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
