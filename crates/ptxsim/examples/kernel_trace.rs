//! A replay benchmark workload made of real kernels' memory traffic:
//!
//! ```sh
//! cargo run --release -p ptxsim --example kernel_trace -- [--accesses N] [--write FILE]
//! ```
//!
//! Runs the launches of [`KERNELS`] (nvcc and Triton PTX from `tests/corpus/run/` and
//! `examples/`, most with a bigger grid and zero-filled inputs) on the A100 model (`GpuConfig::a100()`, whatever GPU a launch file names),
//! records the global-memory requests each one hands to the cache model
//! (`MemSystem::record_trace`, as `ptxsim run --trace-out` does), and concatenates the kernels'
//! traces repeatedly into one [`Trace`] of at least N accesses (default 10,000,000).
//!
//! Addresses: repetition `k` adds `k << 40` to every address and kernel `j` of a repetition
//! adds `j << 34` (every launch allocates from the same base), so no line is shared between
//! two kernels or two repetitions: only the reuse inside one kernel's launch hits in the
//! caches, as if each launch ran on fresh data. SMs are as recorded.
//!
//! Then replays the workload with `memsys::replay::run_trace` on a fresh tags-only A100, on
//! one thread, as `crates/memsys/examples/replay_rate.rs` does, and prints the rate over wall
//! time and over the CPU time the thread was given (`/proc/self/schedstat`), the L1/L2 sector
//! hit rates and the mix (kinds, sizes, request shapes). `--write FILE` also writes the
//! workload as a text trace (docs/trace-format.md; about 40 bytes a line) for timing
//! `ptxsim replay FILE` end to end.

use std::path::{Path, PathBuf};
use std::time::Instant;

use memsys::replay::{self, Trace, TraceAccess};
use memsys::{AccessKind, GpuConfig, MemSystem};
use ptxsim::launch::{dims, load_session, parse_arg, prepare, LaunchFile};

/// One launch of the workload: a launch file (relative to the repository root) for the PTX,
/// kernel, block and shared memory, optionally with another grid and other arguments (inputs
/// as zeros: these kernels' addresses do not depend on the data) to make it bigger.
struct Kernel {
    launch: &'static str,
    what: &'static str,
    /// Empty: the launch file's.
    grid: &'static [u32],
    /// Empty: the launch file's.
    args: &'static [&'static str],
}

const F32_1M: &str = "zeros:f32:1048576";

/// The launches, as `tests/corpus/run/*.toml` and `examples/` have them or scaled up.
const KERNELS: &[Kernel] = &[
    Kernel {
        launch: "examples/matmul_fp16.sm80.toml",
        what: "Triton fp16 matmul 512^3, cp.async.cg tiles, 3 stages",
        grid: &[64],
        args: &[
            "zeros:f16:262144",
            "zeros:f16:262144",
            "zeros:f16:262144",
            "s32:512",
            "s32:512",
            "s32:512",
            "s32:512",
            "s32:512",
            "s32:512",
            "null",
            "null",
        ],
    },
    Kernel {
        launch: "tests/corpus/run/nvcc.cp_async_gemm.sm80.sgemm_cp_async.toml",
        what: "nvcc sgemm 256^3, cp.async tiles",
        grid: &[8, 8],
        args: &[
            "zeros:f32:65536",
            "zeros:f32:65536",
            "zeros:f32:65536",
            "s32:256",
            "s32:256",
            "s32:256",
        ],
    },
    Kernel {
        launch: "tests/corpus/run/triton.persistent_matmul_fp16.sm80.toml",
        what: "Triton persistent fp16 matmul (corpus size)",
        grid: &[],
        args: &[],
    },
    Kernel {
        launch: "tests/corpus/run/triton.int8_matmul.sm80.toml",
        what: "Triton int8 matmul (corpus size)",
        grid: &[],
        args: &[],
    },
    Kernel {
        launch: "tests/corpus/run/triton.flash_attn.sm80.toml",
        what: "Triton flash attention forward (corpus size)",
        grid: &[],
        args: &[],
    },
    Kernel {
        launch: "tests/corpus/run/triton.softmax.sm80.toml",
        what: "Triton row softmax, 4096 rows x 100",
        grid: &[4096],
        args: &[
            "zeros:f32:409600",
            "zeros:f32:409600",
            "s32:100",
            "s32:100",
            "s32:100",
            "null",
            "null",
        ],
    },
    Kernel {
        launch: "tests/corpus/run/triton.layer_norm.sm80.toml",
        what: "Triton layer norm forward, 2048 rows x 256",
        grid: &[2048],
        args: &[
            "zeros:f32:524288",
            "zeros:f32:524288",
            "zeros:f32:256",
            "zeros:f32:256",
            "zeros:f32:2048",
            "zeros:f32:2048",
            "s32:256",
            "s32:256",
            "f32:1e-5",
            "null",
            "null",
        ],
    },
    Kernel {
        launch: "tests/corpus/run/triton.layer_norm_bwd.sm80.toml",
        what: "Triton layer norm backward (corpus size)",
        grid: &[],
        args: &[],
    },
    Kernel {
        launch: "tests/corpus/run/triton.vadd_evict_last.sm80.toml",
        what: "Triton vector add 1M f32, L1::evict_last + L2::cache_hint evict_last loads",
        grid: &[1024],
        args: &[F32_1M, F32_1M, F32_1M, "s32:1048576", "null", "null"],
    },
    Kernel {
        launch: "tests/corpus/run/triton.vadd_cg_cs.sm80.toml",
        what: "Triton vector add 1M f32, .cg loads, .cs stores",
        grid: &[1024],
        args: &[F32_1M, F32_1M, F32_1M, "s32:1048576", "null", "null"],
    },
    Kernel {
        launch: "tests/corpus/run/triton.vadd_f16_evict.sm80.toml",
        what: "Triton vector add 1M f16, eviction hints",
        grid: &[1024],
        args: &[
            "zeros:f16:1048576",
            "zeros:f16:1048576",
            "zeros:f16:1048576",
            "s32:1048576",
            "null",
            "null",
        ],
    },
    Kernel {
        launch: "tests/corpus/run/nvcc.cache_intrinsics.sm80.saxpy_ldg_stcs.toml",
        what: "nvcc saxpy 1M, __ldg (ld.global.nc) + __stcs",
        grid: &[1024],
        args: &[F32_1M, F32_1M, F32_1M, "f32:2.5", "s32:1048576"],
    },
    Kernel {
        launch: "tests/corpus/run/nvcc.reduce.sm80.block_reduce_sum_256.toml",
        what: "nvcc block reduction 1M s32 (shared-memory tree)",
        grid: &[1024],
        args: &["zeros:s32:1048576", "zeros:s32:1024", "s32:1048576"],
    },
    Kernel {
        launch: "tests/corpus/run/nvcc.reduce.sm80.reduce_sum_atomic_f32.toml",
        what: "nvcc reduction 1M f32 with atomicAdd",
        grid: &[1024],
        args: &[F32_1M, "zeros:f32:1", "s32:1048576"],
    },
    Kernel {
        launch: "tests/corpus/run/nvcc.stencil2d.sm80.stencil2d_5pt.toml",
        what: "nvcc 2-D 5-point stencil 1024x1024",
        grid: &[64, 64],
        args: &[F32_1M, F32_1M, "s32:1024", "s32:1024"],
    },
    Kernel {
        launch: "tests/corpus/run/nvcc.transpose.lineinfo.sm80.transpose_padded.toml",
        what: "nvcc tiled transpose 1024x1024 (padded shared tile)",
        grid: &[32, 32],
        args: &[F32_1M, F32_1M, "s32:1024", "s32:1024"],
    },
    Kernel {
        launch: "tests/corpus/run/nvcc.annotated_ptr.sm80.annotated_axpy.toml",
        what: "nvcc axpy through cuda::annotated_ptr (cache policies; corpus size)",
        grid: &[],
        args: &[],
    },
];

/// Nanoseconds this thread has run on a CPU, if the kernel says.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs one launch on `gpu` with recording on; returns the recorded accesses.
fn capture(k: &Kernel, gpu: &GpuConfig) -> Result<Vec<TraceAccess>, String> {
    let (file, base) = LaunchFile::read(&root().join(k.launch)).map_err(|e| e.to_string())?;
    let session = load_session(&base.join(&file.ptx), gpu.clone()).map_err(|e| e.to_string())?;
    let args: Vec<String> = if k.args.is_empty() {
        file.args.clone()
    } else {
        k.args.iter().map(|a| a.to_string()).collect()
    };
    let specs = args
        .iter()
        .map(|a| parse_arg(a, &base))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let grid = if k.grid.is_empty() {
        &file.grid
    } else {
        k.grid
    };
    let config = ptx_exec::LaunchConfig {
        grid: dims(grid, "grid").map_err(|e| e.to_string())?,
        block: dims(&file.block, "block").map_err(|e| e.to_string())?,
        dynamic_shared: file.shared,
        seed: file.seed,
        ..Default::default()
    };
    let mut p = prepare(session, &file.kernel, specs, config).map_err(|e| e.to_string())?;
    p.session.mem.record_trace(true);
    p.run().map_err(|e| e.to_string())?;
    Ok(p.session.mem.take_recorded())
}

fn pct(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut target: usize = 10_000_000;
    let mut write: Option<PathBuf> = None;
    let mut i = 0;
    while i < args.len() {
        match (args[i].as_str(), args.get(i + 1)) {
            ("--accesses", Some(n)) => target = n.parse()?,
            ("--write", Some(f)) => write = Some(PathBuf::from(f)),
            _ => {
                eprintln!("usage: kernel_trace [--accesses N] [--write FILE]");
                std::process::exit(2);
            }
        }
        i += 2;
    }
    // The A100 preset with its whole 30 MiB persisting set-aside (memsys/BENCHMARKS.md).
    let mut gpu = GpuConfig::a100();
    gpu.set_persisting_l2(gpu.persisting_l2_max_bytes)
        .map_err(|e| e.to_string())?;

    // Capture.
    let started = Instant::now();
    let mut kernels: Vec<(&str, Vec<TraceAccess>)> = Vec::new();
    println!("kernels (A100 model), accesses recorded per launch:");
    for k in KERNELS {
        let t = Instant::now();
        let accesses = capture(k, &gpu).map_err(|e| format!("{}: {e}", k.launch))?;
        let grid: Vec<String> = k.grid.iter().map(u32::to_string).collect();
        let grid = if grid.is_empty() {
            String::new()
        } else {
            format!(" --grid {}", grid.join(","))
        };
        println!(
            "  {:>9}  {}{grid}: {} ({:.2} s)",
            accesses.len(),
            k.launch.rsplit('/').next().unwrap_or(k.launch),
            k.what,
            t.elapsed().as_secs_f64()
        );
        kernels.push((k.launch, accesses));
    }
    let per_rep: usize = kernels.iter().map(|k| k.1.len()).sum();
    println!(
        "  {per_rep:>9}  in all, captured in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert!(
        kernels.len() <= 64,
        "kernel offsets are 1 << 34 apart, below 1 << 40"
    );

    // The workload: repetitions of every kernel's trace, each kernel and repetition on its
    // own addresses.
    let reps = target.div_ceil(per_rep.max(1));
    let mut trace = Trace::new();
    for k in 0..reps as u64 {
        for (j, (_, accesses)) in kernels.iter().enumerate() {
            let shift = (k << 40) + ((j as u64) << 34);
            trace.extend(accesses.iter().map(|a| TraceAccess {
                addr: a.addr + shift,
                ..*a
            }));
        }
    }
    let n = trace.len() as u64;
    println!(
        "workload: {reps} repetitions x {per_rep} = {n} accesses, {} request shapes",
        trace.shapes()
    );

    // The mix, over one repetition (every repetition is the same).
    let one: Vec<&TraceAccess> = kernels.iter().flat_map(|k| k.1.iter()).collect();
    let total = one.len() as u64;
    let count = |f: &dyn Fn(&TraceAccess) -> bool| one.iter().filter(|a| f(a)).count() as u64;
    let kinds = [
        ("loads", AccessKind::Load),
        ("stores", AccessKind::Store),
        ("cp.async", AccessKind::AsyncCopy),
        ("prefetches", AccessKind::Prefetch),
        ("atomics", AccessKind::Atomic),
    ];
    let kind_mix: Vec<String> = kinds
        .iter()
        .map(|(name, k)| {
            format!(
                "{name} {:.1}%",
                pct(count(&|a| a.request.kind == *k), total)
            )
        })
        .collect();
    println!("mix: {}", kind_mix.join(", "));
    let sizes: Vec<String> = [32u32, 64, 96, 128]
        .iter()
        .map(|&b| format!("{b} B {:.1}%", pct(count(&|a| a.bytes == b), total)))
        .collect();
    println!("sizes: {}", sizes.join(", "));
    println!(
        "hints: cache policy {:.1}%, L1 priority {:.1}%, L2 priority {:.1}%, cache operator written {:.1}%, ld.global.nc {:.1}%",
        pct(count(&|a| a.request.policy.is_some()), total),
        pct(count(&|a| a.request.l1_priority.is_some()), total),
        pct(count(&|a| a.request.l2_priority.is_some()), total),
        pct(count(&|a| a.request.operator.is_some()), total),
        pct(count(&|a| a.request.non_coherent), total),
    );

    if let Some(path) = &write {
        let t = Instant::now();
        let file = std::fs::File::create(path)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        let header = format!(
            "# ptxsim kernel_trace workload: {reps} repetitions of {} A100 kernel traces",
            kernels.len()
        );
        let w = std::io::BufWriter::with_capacity(1 << 20, file);
        ptxsim::trace_out::write_trace(w, &header, trace.iter())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!(
            "wrote {} in {:.1} s",
            path.display(),
            t.elapsed().as_secs_f64()
        );
    }

    // The replay, one thread.
    let mut mem = MemSystem::tags_only(gpu)?;
    let (t, c) = (Instant::now(), cpu_ns());
    let ran = replay::run_trace(&mut mem, &trace)?;
    let dt = t.elapsed().as_secs_f64();
    let cpu = match (c, cpu_ns()) {
        (Some(a), Some(b)) => format!(
            ", {:.1} M/s over {:.3} s of CPU time",
            n as f64 / ((b - a) as f64 * 1e-9) / 1e6,
            (b - a) as f64 * 1e-9
        ),
        _ => String::new(),
    };
    assert_eq!(ran, n);
    println!(
        "replay (run_trace, A100): {n} accesses in {dt:.3} s: {:.1} M accesses/s{cpu}",
        n as f64 / dt / 1e6
    );
    let s = mem.stats().total();
    let rate = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{:.2}%", 100.0 * r));
    println!(
        "L1 sector hit rate {}, L2 sector hit rate {}, DRAM read {:.1} MiB, written {:.1} MiB",
        rate(s.l1.hit_rate()),
        rate(s.l2.hit_rate()),
        s.dram.bytes_read as f64 / (1 << 20) as f64,
        s.dram.bytes_written as f64 / (1 << 20) as f64
    );
    Ok(())
}
