//! Interpreter throughput in thread-instructions per second, for an ALU-heavy
//! kernel and a memory-heavy kernel (benches/kernels/bench_kernels.cu, compiled by nvcc),
//! with the cache model off and on, on one host thread and (`, 2 threads`) on two.
//! `cargo bench -p ptx-exec --bench interp`.
//!
//! Workloads: `alu_heavy` — 64 CTAs × 256 threads, 256 iterations of a dependent chain of
//! xorshift/mad/cvt/fma/setp/selp (≈ 58 M thread-instructions); `triad` — c = a + s·b over
//! 4 M floats (48 MB of arrays, larger than the A100's 40 MB L2), 1024 CTAs × 256 threads;
//! `matmul_fp16_1024` — Triton's fp16 matmul (examples/) at 1024³ on the H100 preset;
//! `softmax` — Triton's fused row softmax (tests/corpus/triton/softmax.sm80.ptx) over 16,384
//! rows of 100 floats, one 128-thread CTA per row, A100 preset. Each with the cache model on
//! also runs in counters-only mode (`, counters-only`), whose counters must be the full run's.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ptx_exec::{KernelArg, LaunchConfig, Session};
use ptx_isa::ScalarType;

const PTX: &str = include_str!("kernels/bench_kernels.sm80.ptx");

#[path = "../examples/measure/softmax.rs"]
mod softmax_workload;

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
        let first = s.launch("triad", &args, cfg.clone()).unwrap();
        let count = first.thread_instructions;
        serial_share("triad", &first);
        g.throughput(Throughput::Elements(count));
        g.bench_function(
            if model {
                "cache model on"
            } else {
                "cache model off"
            },
            |bch| bch.iter(|| s.launch("triad", &args, cfg.clone()).unwrap()),
        );
        if model {
            let cfg = LaunchConfig { threads: 2, ..cfg };
            g.bench_function("cache model on, 2 threads", |bch| {
                bch.iter(|| s.launch("triad", &args, cfg.clone()).unwrap())
            });
            // Counters-only: the same counts (the triad is almost all address work).
            let cfg = LaunchConfig {
                threads: 1,
                counters_only: true,
                ..cfg
            };
            let co = s.launch("triad", &args, cfg.clone()).unwrap();
            assert_eq!(co.thread_instructions, count);
            assert!(co
                .counters_only
                .as_ref()
                .is_some_and(|c| c.restarted.is_none()));
            g.bench_function("cache model on, counters-only", |bch| {
                bch.iter(|| s.launch("triad", &args, cfg.clone()).unwrap())
            });
        }
    }
    g.finish();
}

/// Triton's fp16 matmul (examples/matmul_fp16.sm80.ptx: 64×64×32 tiles, 4 warps, 3-stage
/// `cp.async` pipeline, `ldmatrix` + `mma.sync.m16n8k16` with f32 accumulation) at
/// M = N = K = 1024: 256 CTAs × 128 threads, 16 KiB dynamic shared memory, the H100 preset with
/// the cache model on (≈ 130 M thread-instructions). The inputs are integers in [-2, 2] from a
/// fixed xorshift sequence (exact in f16, as in examples/gen_matmul_data.py); the first
/// launch's output is checked against a host reference before timing.
fn matmul_fp16(c: &mut Criterion) {
    const MATMUL_PTX: &str = include_str!("../../../examples/matmul_fp16.sm80.ptx");
    const N: usize = 1024;
    let mut g = c.benchmark_group("matmul_fp16_1024");
    g.sample_size(10);
    let module = ptx_syntax::parse(MATMUL_PTX).expect("matmul parses");
    let mut s =
        Session::new(&module, MATMUL_PTX, memsys::GpuConfig::h100()).expect("matmul lowers");
    // Integers in [-2, 2] as f16 bit patterns.
    const F16: [u16; 5] = [0xc000, 0xbc00, 0x0000, 0x3c00, 0x4000];
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut values = |count: usize| -> Vec<i64> {
        (0..count)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state % 5) as i64 - 2
            })
            .collect()
    };
    let (av, bv) = (values(N * N), values(N * N));
    let bytes = |v: &[i64]| -> Vec<u8> {
        v.iter()
            .flat_map(|&x| F16[(x + 2) as usize].to_le_bytes())
            .collect()
    };
    let a = s.alloc_buffer(&bytes(&av)).unwrap();
    let b = s.alloc_buffer(&bytes(&bv)).unwrap();
    let cbuf = s.alloc_buffer(&vec![0u8; N * N * 2]).unwrap();
    let dim = KernelArg::Scalar {
        ty: ScalarType::S32,
        bits: N as u64,
    };
    let mut args = vec![
        KernelArg::Pointer(a),
        KernelArg::Pointer(b),
        KernelArg::Pointer(cbuf),
    ];
    args.extend(std::iter::repeat_n(dim, 6));
    args.extend([KernelArg::Pointer(0), KernelArg::Pointer(0)]);
    let cfg = LaunchConfig {
        grid: [((N / 64) * (N / 64)) as u32, 1, 1],
        block: [128, 1, 1],
        dynamic_shared: 16384,
        cache_model: true,
        ..LaunchConfig::default()
    };
    let first = s.launch("matmul_kernel", &args, cfg.clone()).unwrap();
    let count = first.thread_instructions;
    serial_share("matmul_fp16_1024", &first);
    // Integers up to 2048 are exact in f16: spot-check rows against the host product.
    let out = s.read_buffer(cbuf, N * N * 2).unwrap();
    for i in (0..N).step_by(97) {
        for j in 0..N {
            let want: i64 = (0..N).map(|k| av[i * N + k] * bv[k * N + j]).sum();
            let got = u16::from_le_bytes([out[2 * (i * N + j)], out[2 * (i * N + j) + 1]]);
            let got = half_to_f32(got);
            assert!(
                want.abs() <= 2048,
                "c[{i}][{j}] = {want} is not exact in f16"
            );
            assert_eq!(got, want as f32, "c[{i}][{j}]");
        }
    }
    g.throughput(Throughput::Elements(count));
    g.bench_function("h100 cache model on", |bch| {
        bch.iter(|| s.launch("matmul_kernel", &args, cfg.clone()).unwrap())
    });
    // Two threads: the same output bytes (the schedule does not depend on the thread count).
    let cfg = LaunchConfig { threads: 2, ..cfg };
    s.fill_buffer(cbuf, 0, N * N * 2).unwrap();
    let two = s.launch("matmul_kernel", &args, cfg.clone()).unwrap();
    assert_eq!(two.thread_instructions, count);
    assert_eq!(two.threads, 2);
    assert_eq!(s.read_buffer(cbuf, N * N * 2).unwrap(), out);
    g.bench_function("h100 cache model on, 2 threads", |bch| {
        bch.iter(|| s.launch("matmul_kernel", &args, cfg.clone()).unwrap())
    });
    // Counters-only (the mma, conversions and epilogue skipped): the same instruction counts.
    for threads in [1, 2] {
        let cfg = LaunchConfig {
            threads,
            counters_only: true,
            ..cfg.clone()
        };
        let co = s.launch("matmul_kernel", &args, cfg.clone()).unwrap();
        assert_eq!(co.thread_instructions, count);
        assert!(co
            .counters_only
            .as_ref()
            .is_some_and(|c| c.restarted.is_none()));
        let name = format!("h100 cache model on, counters-only, {threads} thread(s)");
        g.bench_function(name.as_str(), |bch| {
            bch.iter(|| s.launch("matmul_kernel", &args, cfg.clone()).unwrap())
        });
    }
    g.finish();
}

/// Prints the share of the warp-instructions that ran in the SM-parallel and in the serial
/// phase of their rounds (the rest ran in the CTA-local phase): the serial part is what a
/// second thread cannot speed up.
fn serial_share(what: &str, s: &ptx_exec::RunSummary) {
    let pct = |n: u64| 100.0 * n as f64 / s.warp_instructions.max(1) as f64;
    println!(
        "{what}: of {} warp-instructions, {} ({:.1} %) ran in the SM-parallel phase and {} ({:.1} %) in the serial phase",
        s.warp_instructions,
        s.sm_phase_warp_instructions,
        pct(s.sm_phase_warp_instructions),
        s.serial_warp_instructions,
        pct(s.serial_warp_instructions)
    );
}

/// An f16 bit pattern's value (normal numbers and zero: the matmul's integer outputs).
fn half_to_f32(h: u16) -> f32 {
    if h & 0x7fff == 0 {
        return 0.0;
    }
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32 - 15;
    let man = 1.0 + (h & 0x3ff) as f32 / 1024.0;
    sign * man * 2f32.powi(exp)
}

/// Triton's fused row softmax (the corpus's `softmax.sm80.ptx`: max, exp, sum and divide
/// over a row held in registers) on 16,384 rows of 100 floats, one 128-thread CTA per row,
/// A100 preset with the cache model on (≈ 140 M thread-instructions), in full and in
/// counters-only mode (which skips the exponentials and the arithmetic the stores carry). The
/// inputs are a fixed sequence; the two modes' instruction counts are compared first (every
/// counter of every corpus launch is compared in `crates/ptxsim/tests/counters_only.rs`).
fn softmax(c: &mut Criterion) {
    let mut g = c.benchmark_group("softmax");
    g.sample_size(10);
    let module = ptx_syntax::parse(softmax_workload::PTX).expect("softmax parses");
    let mut s =
        Session::new(&module, softmax_workload::PTX, memsys::GpuConfig::a100()).expect("it lowers");
    let (args, cfg) = softmax_workload::launch(&mut s, 16_384);
    let full = s
        .launch(softmax_workload::KERNEL, &args, cfg.clone())
        .unwrap();
    let co_cfg = LaunchConfig {
        counters_only: true,
        ..cfg.clone()
    };
    let co = s
        .launch(softmax_workload::KERNEL, &args, co_cfg.clone())
        .unwrap();
    assert_eq!(co.per_instruction, full.per_instruction);
    assert!(co
        .counters_only
        .as_ref()
        .is_some_and(|c| c.sliced && c.restarted.is_none()));
    g.throughput(Throughput::Elements(full.thread_instructions));
    g.bench_function("cache model on", |bch| {
        bch.iter(|| {
            s.launch(softmax_workload::KERNEL, &args, cfg.clone())
                .unwrap()
        })
    });
    g.bench_function("cache model on, counters-only", |bch| {
        bch.iter(|| {
            s.launch(softmax_workload::KERNEL, &args, co_cfg.clone())
                .unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, alu, triad, matmul_fp16, softmax);
criterion_main!(benches);
