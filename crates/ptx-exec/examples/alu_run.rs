//! Runs one benchmark kernel once, for profiling (see benches/interp.rs for the workloads):
//! `cargo run --release -p ptx-exec --example alu_run -- alu [ITERS] [CTAS]` or
//! `-- triad [N] [CTAS]` (the bench's triad is `triad 4194304 1024`: a grid-stride loop of 16
//! iterations per thread), or `-- softmax [ROWS]` (Triton's fused row softmax,
//! tests/corpus/triton/softmax.sm80.ptx, 100 columns per row, one 128-thread CTA per row,
//! inputs from a fixed sequence). Set `CACHE_MODEL=1` for the cache model (A100 preset),
//! `COUNTERS_ONLY=1` for counters-only mode, `THREADS=N` for host threads.
mod measure;
#[path = "measure/softmax.rs"]
mod softmax;

use measure::*;
use ptx_exec::{KernelArg, LaunchConfig, Session};
use ptx_isa::ScalarType;

fn main() {
    let mut args = std::env::args().skip(1);
    let which = args.next().unwrap_or_else(|| "alu".into());
    let ptx = match which.as_str() {
        "softmax" => softmax::PTX,
        _ => include_str!("../benches/kernels/bench_kernels.sm80.ptx"),
    };
    let module = ptx_syntax::parse(ptx).expect("parses");
    let mut s = Session::new(&module, ptx, memsys::GpuConfig::a100()).expect("lowers");
    let model = std::env::var_os("CACHE_MODEL").is_some();
    let mut cfg = LaunchConfig {
        block: [256, 1, 1],
        ..LaunchConfig::default()
    };
    let (kernel, kargs, grid) = if which == "softmax" {
        let rows: u64 = args.next().map_or(4096, |x| x.parse().expect("ROWS"));
        let (kargs, softmax_cfg) = softmax::launch(&mut s, rows);
        cfg = softmax_cfg;
        (softmax::KERNEL, kargs, rows as u32)
    } else if which == "triad" {
        let n: u64 = args.next().map_or(1 << 16, |x| x.parse().expect("N"));
        let a = s.alloc_buffer(&vec![0u8; n as usize * 4]).unwrap();
        let b = s.alloc_buffer(&vec![0u8; n as usize * 4]).unwrap();
        let c = s.alloc_buffer(&vec![0u8; n as usize * 4]).unwrap();
        let kargs = vec![
            KernelArg::Pointer(a),
            KernelArg::Pointer(b),
            KernelArg::Pointer(c),
            KernelArg::Scalar {
                ty: ScalarType::F32,
                bits: 2.0f32.to_bits() as u64,
            },
            KernelArg::Scalar {
                ty: ScalarType::S32,
                bits: n,
            },
        ];
        let ctas: u32 = args
            .next()
            .map_or((n / 256).max(1) as u32, |x| x.parse().expect("CTA count"));
        ("triad", kargs, ctas)
    } else {
        let iters: u64 = args.next().map_or(64, |x| x.parse().expect("iterations"));
        let ctas: u32 = args.next().map_or(8, |x| x.parse().expect("CTA count"));
        let out = s.alloc_buffer(&vec![0u8; ctas as usize * 256 * 4]).unwrap();
        let kargs = vec![
            KernelArg::Pointer(out),
            KernelArg::Scalar {
                ty: ScalarType::S32,
                bits: iters,
            },
        ];
        ("alu_heavy", kargs, ctas)
    };
    let cfg = LaunchConfig {
        grid: [grid, 1, 1],
        cache_model: model,
        threads: threads_from_env(),
        counters_only: std::env::var("COUNTERS_ONLY").is_ok_and(|v| v == "1"),
        ..cfg
    };
    let t = std::time::Instant::now();
    let process_cpu = process_cpu_seconds();
    let cpu = thread_cpu_seconds();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = (cfg.threads > 1).then(|| sample_thread_cpu(stop.clone()));
    let r = s.launch(kernel, &kargs, cfg).unwrap();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    if let Some(h) = sampler {
        for (name, cpu) in h.join().unwrap_or_default() {
            if name.starts_with("ptxsim-cta") {
                eprintln!("  worker thread {name}: {cpu:.2} s CPU");
            }
        }
    }
    let dt = t.elapsed().as_secs_f64();
    eprintln!(
        "{kernel}: {} thread-instructions in {dt:.3} s: {:.1} M/s",
        r.thread_instructions,
        r.thread_instructions as f64 / dt / 1e6
    );
    report_phases(&r, dt, process_cpu);
    if let Some(c) = &r.counters_only {
        eprintln!("  {}", c.describe());
    }
    let stats = format!("{:?}", s.mem.stats());
    let digest = fnv1a(stats.bytes());
    eprintln!("  counters digest {digest:016x} (FNV-1a of the memory system's counters)");
    // On a shared machine wall time says little: the launch's CPU time (Linux only).
    if let (Some(a), Some(b)) = (cpu, thread_cpu_seconds()) {
        eprintln!(
            "  launch CPU time {:.3} s: {:.1} M thread-instructions per CPU-second",
            b - a,
            r.thread_instructions as f64 / (b - a) / 1e6
        );
    }
}
