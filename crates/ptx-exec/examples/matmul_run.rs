//! Runs the `matmul_fp16_1024` bench workload once, for profiling and for checking that a
//! speed change leaves every output and counter as it was:
//! `cargo run --release -p ptx-exec --example matmul_run -- [N]` (N a multiple of 64,
//! default 1024). Triton's fp16 matmul (examples/matmul_fp16.sm80.ptx) on the H100 preset
//! with the cache model on, inputs as in benches/interp.rs. Prints the launch's CPU time and
//! FNV-1a digests of the output matrix and of the memory system's counters (compare them
//! between builds: equal digests, same results).
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
    let out = s.read_buffer(c, n * n * 2).unwrap();
    let stats = format!("{:?}", s.mem.stats());
    eprintln!(
        "matmul {n}^3: {} thread-instructions; output digest {:016x}; counters digest {:016x}",
        r.thread_instructions,
        fnv1a(&out),
        fnv1a(stats.as_bytes())
    );
    if let Some(t) = cpu {
        eprintln!(
            "  launch CPU time {t:.3} s: {:.1} M thread-instructions per CPU-second",
            r.thread_instructions as f64 / t / 1e6
        );
    }
}

/// FNV-1a, 64-bit.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// `THREADS` (default 1): the launch's host threads.
fn threads_from_env() -> u32 {
    std::env::var("THREADS").map_or(1, |t| t.parse().expect("THREADS: a number"))
}

/// Prints where the launch's warp-instructions ran (`rounds.rs`, `sm_phase.rs`) and, with
/// several threads, the whole process's CPU time and the wall time.
fn report_phases(r: &ptx_exec::RunSummary, wall: f64, process_cpu_before: Option<f64>) {
    let w = r.warp_instructions.max(1) as f64;
    eprintln!(
        "  {} thread(s); warp-instructions {}: SM-parallel phase {} ({:.1} %), serial phase {} ({:.1} %)",
        r.threads,
        r.warp_instructions,
        r.sm_phase_warp_instructions,
        100.0 * r.sm_phase_warp_instructions as f64 / w,
        r.serial_warp_instructions,
        100.0 * r.serial_warp_instructions as f64 / w
    );
    if let (Some(a), Some(b)) = (process_cpu_before, process_cpu_seconds()) {
        eprintln!("  wall {wall:.3} s, process CPU {:.3} s", b - a);
    }
}

/// Samples the CPU time of every thread of the process (`/proc/self/task/*/stat`) every
/// 10 ms until `stop` is set, keeping the last value seen per thread: the launch's worker
/// threads end with the launch, so they are read while they live. Returns (thread name,
/// CPU seconds) per thread, the busiest first.
fn sample_thread_cpu(
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<Vec<(String, f64)>> {
    std::thread::spawn(move || {
        let me = std::fs::read_link("/proc/thread-self")
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));
        let mut seen: std::collections::BTreeMap<String, (String, f64)> = Default::default();
        loop {
            let done = stop.load(std::sync::atomic::Ordering::Relaxed);
            if let Ok(dir) = std::fs::read_dir("/proc/self/task") {
                for e in dir.flatten() {
                    let tid = e.file_name().to_string_lossy().into_owned();
                    if Some(&tid) == me.as_ref() {
                        continue;
                    }
                    let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
                        continue;
                    };
                    let Some((name, rest)) =
                        stat.split_once(" (").and_then(|(_, r)| r.rsplit_once(") "))
                    else {
                        continue;
                    };
                    let f: Vec<&str> = rest.split_whitespace().collect();
                    let ticks = f.get(11).and_then(|u| u.parse::<f64>().ok()).unwrap_or(0.0)
                        + f.get(12).and_then(|s| s.parse::<f64>().ok()).unwrap_or(0.0);
                    seen.insert(tid, (name.to_string(), ticks / 100.0));
                }
            }
            if done {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let mut v: Vec<(String, f64)> = seen.into_values().collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1));
        v
    })
}

/// The process's CPU time so far (all threads), from `/proc/self/stat` (utime + stime, in
/// clock ticks of 10 ms).
fn process_cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = s.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// This thread's CPU time so far, from `/proc/thread-self/schedstat` (nanoseconds on CPU).
fn thread_cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}
