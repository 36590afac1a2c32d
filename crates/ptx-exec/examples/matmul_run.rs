//! Runs the `matmul_fp16_1024` bench workload once, for profiling and for checking that a
//! speed change leaves every output and counter as it was:
//! `cargo run --release -p ptx-exec --example matmul_run -- [N]` (N a multiple of 64,
//! default 1024). Triton's fp16 matmul (examples/matmul_fp16.sm80.ptx) on the H100 preset
//! with the cache model on, inputs as in benches/interp.rs. Prints the launch's CPU time and
//! FNV-1a digests of the output matrix and of the memory system's counters (compare them
//! between builds: equal digests, same results). `COUNTERS_ONLY=1` runs it in counters-only
//! mode (the counters digest must be the full run's; the output digest is not); `THREADS=N`
//! sets the host threads.
mod measure;

use measure::*;
use ptx_exec::{KernelArg, LaunchConfig, Session};
use ptx_isa::ScalarType;

const MATMUL_PTX: &str = include_str!("../../../examples/matmul_fp16.sm80.ptx");

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .map_or(1024, |x| x.parse().expect("N"));
    assert!(n > 0 && n.is_multiple_of(64), "N must be a multiple of 64");
    let module = ptx_syntax::parse(MATMUL_PTX).expect("matmul parses");
    let mut s =
        Session::new(&module, MATMUL_PTX, memsys::GpuConfig::h100()).expect("matmul lowers");
    // Integers in [-2, 2] as f16 bit patterns, from the bench's xorshift sequence.
    const F16: [u16; 5] = [0xc000, 0xbc00, 0x0000, 0x3c00, 0x4000];
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut values = |count: usize| -> Vec<u8> {
        (0..count)
            .flat_map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                F16[(state % 5) as usize].to_le_bytes()
            })
            .collect()
    };
    let (av, bv) = (values(n * n), values(n * n));
    let a = s.alloc_buffer(&av).unwrap();
    let b = s.alloc_buffer(&bv).unwrap();
    let c = s.alloc_buffer(&vec![0u8; n * n * 2]).unwrap();
    let dim = KernelArg::Scalar {
        ty: ScalarType::S32,
        bits: n as u64,
    };
    let mut args = vec![
        KernelArg::Pointer(a),
        KernelArg::Pointer(b),
        KernelArg::Pointer(c),
    ];
    args.extend(std::iter::repeat_n(dim, 6));
    args.extend([KernelArg::Pointer(0), KernelArg::Pointer(0)]);
    let cfg = LaunchConfig {
        grid: [((n / 64) * (n / 64)) as u32, 1, 1],
        block: [128, 1, 1],
        dynamic_shared: 16384,
        cache_model: true,
        threads: threads_from_env(),
        counters_only: std::env::var("COUNTERS_ONLY").is_ok_and(|v| v == "1"),
        ..LaunchConfig::default()
    };
    let t = std::time::Instant::now();
    let process_cpu = process_cpu_seconds();
    let cpu = thread_cpu_seconds();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = (cfg.threads > 1).then(|| sample_thread_cpu(stop.clone()));
    let r = s.launch("matmul_kernel", &args, cfg).unwrap();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    if let Some(h) = sampler {
        for (name, cpu) in h.join().unwrap_or_default() {
            if name.starts_with("ptxsim-cta") {
                eprintln!("  worker thread {name}: {cpu:.2} s CPU");
            }
        }
    }
    let cpu = thread_cpu_seconds().zip(cpu).map(|(b, a)| b - a);
    report_phases(&r, t.elapsed().as_secs_f64(), process_cpu);
    if let Some(c) = &r.counters_only {
        eprintln!("  {}", c.describe());
    }
    let out = s.read_buffer(c, n * n * 2).unwrap();
    let stats = format!("{:?}", s.mem.stats());
    eprintln!(
        "matmul {n}^3: {} thread-instructions; output digest {:016x}; counters digest {:016x}",
        r.thread_instructions,
        fnv1a(out.iter().copied()),
        fnv1a(stats.bytes())
    );
    if let Some(t) = cpu {
        eprintln!(
            "  launch CPU time {t:.3} s: {:.1} M thread-instructions per CPU-second",
            r.thread_instructions as f64 / t / 1e6
        );
    }
}
