//! Replay throughput: the documented synthetic workload ([`memsys::replay::synthetic`], 10 M
//! accesses, mixed cache operators, priorities, a policy, prefetch sizes, stores and
//! cp.async, 16 SMs) through the A100 preset's L1s and L2, tags only, on one core. The trace
//! is generated on the fly, so the rate includes generating it.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use memsys::{replay, GpuConfig, MemSystem};

const ACCESSES: u64 = 10_000_000;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("replay");
    g.sample_size(10);
    g.throughput(Throughput::Elements(ACCESSES));
    g.bench_function("synthetic_10M_a100", |b| {
        b.iter_batched(
            || MemSystem::tags_only(GpuConfig::a100()).expect("preset"),
            |mut m| {
                let n = replay::run(&mut m, replay::synthetic(1).take(ACCESSES as usize))
                    .expect("replay");
                assert_eq!(n, ACCESSES);
                m
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("generate_only_10M", |b| {
        b.iter(|| {
            replay::synthetic(1)
                .take(ACCESSES as usize)
                .fold(0u64, |a, t| a ^ t.addr)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
