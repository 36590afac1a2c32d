//! Micro-benchmarks of the per-lane functions the interpreter calls most (one call = one lane).
//! Workload: 1024 pseudo-random operand sets per iteration, fixed seed.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use ptx_semantics::cvt::{self, CvtMods};
use ptx_semantics::float as fl;
use ptx_semantics::int::{self, IntTy};
use ptx_semantics::round::{F16, F32};
use ptx_semantics::Rnd;

fn inputs() -> Vec<(u32, u32, u32)> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..1024)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = x as u32 & 0x3fff_ffff; // mostly finite, moderate floats
            (v, (x >> 32) as u32 & 0x3fff_ffff, (x >> 16) as u32)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let v = inputs();
    let mut g = c.benchmark_group("per_lane");
    g.throughput(Throughput::Elements(v.len() as u64));
    g.bench_function("fma.rn.f32", |b| {
        b.iter(|| {
            v.iter().fold(0u32, |acc, &(x, y, z)| {
                acc ^ fl::fma_f32(x, y, z, Rnd::Rn, false, false)
            })
        })
    });
    g.bench_function("add.rz.f32", |b| {
        b.iter(|| {
            v.iter().fold(0u32, |acc, &(x, y, _)| {
                acc ^ fl::add_f32(x, y, Rnd::Rz, false, false)
            })
        })
    });
    g.bench_function("mad.lo.s32", |b| {
        b.iter(|| {
            v.iter().fold(0u64, |acc, &(x, y, z)| {
                acc ^ int::mad_lo(IntTy::S32, x as u64, y as u64, z as u64)
            })
        })
    });
    g.bench_function("setp.lt.s32", |b| {
        b.iter(|| {
            v.iter().fold(0u32, |acc, &(x, y, _)| {
                acc + ptx_semantics::cmp::cmp_int(
                    ptx_semantics::cmp::CmpOp::Lt,
                    IntTy::S32,
                    x as u64,
                    y as u64,
                ) as u32
            })
        })
    });
    g.bench_function("cvt.rn.f16.f32", |b| {
        b.iter(|| {
            v.iter().fold(0u64, |acc, &(x, _, _)| {
                acc ^ cvt::f2f(F16, F32, x as u64, Rnd::Rn, CvtMods::default())
            })
        })
    });
    g.bench_function("ex2.approx.f32", |b| {
        b.iter(|| {
            v.iter().fold(0u32, |acc, &(x, _, _)| {
                acc ^ fl::ex2_approx_f32(black_box(x) >> 4, false)
            })
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
