//! Interpreter throughput in thread-instructions per second on one core, for an ALU-heavy
//! kernel and a memory-heavy kernel (benches/kernels/bench_kernels.cu, compiled by nvcc),
//! with the cache model off and on. `cargo bench -p ptx-exec --bench interp`.
//!
//! Workloads: `alu_heavy` — 64 CTAs × 256 threads, 256 iterations of a dependent chain of
//! xorshift/mad/cvt/fma/setp/selp (≈ 58 M thread-instructions); `triad` — c = a + s·b over
//! 4 M floats (48 MB of arrays, larger than the A100's 40 MB L2), 1024 CTAs × 256 threads.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ptx_exec::{KernelArg, LaunchConfig, Session};
use ptx_isa::ScalarType;

const PTX: &str = include_str!("kernels/bench_kernels.sm80.ptx");

fn session() -> Session {
    let module = ptx_syntax::parse(PTX).expect("bench kernels parse");
    Session::new(&module, PTX, memsys::GpuConfig::a100()).expect("bench kernels lower")
}

fn alu(c: &mut Criterion) {
    let mut g = c.benchmark_group("alu_heavy");
    g.sample_size(10);
    for model in [false, true] {
        let mut s = session();
        let threads = 64 * 256;
        let out = s.alloc_buffer(&vec![0u8; threads * 4]).unwrap();
        let args = [
            KernelArg::Pointer(out),
            KernelArg::Scalar {
                ty: ScalarType::S32,
                bits: 256,
            },
        ];
        let cfg = LaunchConfig {
            grid: [64, 1, 1],
            block: [256, 1, 1],
            cache_model: model,
            ..LaunchConfig::default()
        };
        let n = s
            .launch("alu_heavy", &args, cfg.clone())
            .unwrap()
            .thread_instructions;
        g.throughput(Throughput::Elements(n));
        g.bench_function(
            if model {
                "cache model on"
            } else {
                "cache model off"
            },
            |b| b.iter(|| s.launch("alu_heavy", &args, cfg.clone()).unwrap()),
        );
    }
    g.finish();
}

fn triad(c: &mut Criterion) {
    let mut g = c.benchmark_group("triad");
    g.sample_size(10);
    let n: usize = 4 << 20;
    for model in [false, true] {
        let mut s = session();
        let a = s.alloc_buffer(&vec![0u8; n * 4]).unwrap();
        let b = s.alloc_buffer(&vec![0u8; n * 4]).unwrap();
        let cbuf = s.alloc_buffer(&vec![0u8; n * 4]).unwrap();
        let args = [
            KernelArg::Pointer(a),
            KernelArg::Pointer(b),
            KernelArg::Pointer(cbuf),
            KernelArg::Scalar {
                ty: ScalarType::F32,
                bits: 2.0f32.to_bits() as u64,
            },
            KernelArg::Scalar {
                ty: ScalarType::S32,
                bits: n as u64,
            },
        ];
        let cfg = LaunchConfig {
            grid: [1024, 1, 1],
            block: [256, 1, 1],
            cache_model: model,
            ..LaunchConfig::default()
        };
        let count = s
            .launch("triad", &args, cfg.clone())
            .unwrap()
            .thread_instructions;
        g.throughput(Throughput::Elements(count));
        g.bench_function(
            if model {
                "cache model on"
            } else {
                "cache model off"
            },
            |bch| bch.iter(|| s.launch("triad", &args, cfg.clone()).unwrap()),
        );
    }
    g.finish();
}

criterion_group!(benches, alu, triad);
criterion_main!(benches);
