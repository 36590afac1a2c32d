//! Measuring helpers shared by the `alu_run` and `matmul_run` examples: the thread count from
//! `THREADS`, CPU times from `/proc`, and where a launch's warp-instructions ran.

/// FNV-1a, 64-bit: the digests the examples print to check a speed change left every bit as it was.
pub fn fnv1a(bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes.into_iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// `THREADS` (default 1): the launch's host threads.
pub fn threads_from_env() -> u32 {
    std::env::var("THREADS").map_or(1, |t| t.parse().expect("THREADS: a number"))
}

/// Prints where the launch's warp-instructions ran (`rounds.rs`, `sm_phase.rs`) and, with
/// several threads, the whole process's CPU time and the wall time.
pub fn report_phases(r: &ptx_exec::RunSummary, wall: f64, process_cpu_before: Option<f64>) {
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
pub fn sample_thread_cpu(
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
pub fn process_cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = s.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// This thread's CPU time so far, from `/proc/thread-self/schedstat` (nanoseconds on CPU).
pub fn thread_cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}
