//! Runs one benchmark kernel once, for profiling (see benches/interp.rs for the workloads):
//! `cargo run --release -p ptx-exec --example alu_run -- alu [ITERS] [CTAS]` or
//! `-- triad [N] [CTAS]` (the bench's triad is `triad 4194304 1024`: a grid-stride loop of 16
//! iterations per thread). Set `CACHE_MODEL=1` for the cache model (A100 preset).
use ptx_exec::{KernelArg, LaunchConfig, Session};
use ptx_isa::ScalarType;

fn main() {
    let mut args = std::env::args().skip(1);
    let which = args.next().unwrap_or_else(|| "alu".into());
    let ptx = include_str!("../benches/kernels/bench_kernels.sm80.ptx");
    let module = ptx_syntax::parse(ptx).expect("parses");
    let mut s = Session::new(&module, ptx, memsys::GpuConfig::a100()).expect("lowers");
    let model = std::env::var_os("CACHE_MODEL").is_some();
    let (kernel, kargs, grid) = if which == "triad" {
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
        block: [256, 1, 1],
        cache_model: model,
        threads: threads_from_env(),
        ..LaunchConfig::default()
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
    let stats = format!("{:?}", s.mem.stats());
    let digest = stats.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
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
