//! `ptxsim run --trace-out`: the trace recorded from a real launch, replayed through a fresh
//! tags-only memory system of the same GPU, counts exactly what the run counted, sector for
//! sector (L1 and L2 reads/writes, hits, misses, allocations, fills, prefetch fills, evictions
//! by class, write-backs, invalidations, evict-last capped, DRAM bytes).
//!
//! Request counts differ by design: the run counts one request per warp instruction (per 32
//! lanes), the trace holds one access per contiguous sector run of each line the warp touched,
//! and replay counts each access as a request. Stale reads are not compared either: a
//! tags-only replay moves no data.
//!
//! An acquiring load above `.cta` scope invalidates the SM's L1 once per warp request in the
//! run and once per access in the replay; such loads bypass L1, so the invalidated sector
//! counts still agree. Counters can legitimately differ only for requests whose touched
//! sectors of one line are not contiguous (several accesses to the line: a fractional policy
//! below 1.0 draws once per access, a 128/256 B prefetch of the first run can fill what a later
//! run then hits) and for `createpolicy.range` policies (the replay decodes the 64-bit value by
//! its 128-block window; the run knew the exact range), and where a fence invalidated an SM's L1
//! (no access records it). The launches below are real kernels; the last test runs every
//! corpus launch, and all agree but the fenced message-passing seeds. A `-G` build's run has
//! no store write combining (`MemSystem::set_write_combining`); a trace does not say so, and
//! its replay here turns combining off as the run did (`ptxsim replay` keeps it on).

mod common;
use common::root;

use memsys::replay::{self, Trace, TraceAccess};
use memsys::{Counters, GpuConfig, MemSystem, Request, Stats};
use ptxsim::launch::{dims, load_session, parse_arg, prepare, LaunchFile};
use std::path::{Path, PathBuf};

/// The launch file's GPU (a preset name or a TOML file next to it), else the A100.
fn gpu_of(file: &LaunchFile, base: &Path) -> GpuConfig {
    match &file.gpu {
        Some(g) if g.ends_with(".toml") => {
            GpuConfig::from_toml(&std::fs::read_to_string(base.join(g)).unwrap()).unwrap()
        }
        Some(g) => GpuConfig::preset(g).unwrap(),
        None => GpuConfig::a100(),
    }
}

/// Runs a launch file with recording on: the run's statistics, the recorded accesses, the GPU
/// and whether the module is a `-G` build (`.target ..., debug`: its stores are not
/// write-combined, `MemSystem::set_write_combining`, which a trace does not record).
fn capture(launch: &Path) -> (Stats, Vec<TraceAccess>, GpuConfig, bool) {
    let (file, base) = LaunchFile::read(launch).unwrap();
    let gpu = gpu_of(&file, &base);
    let debug = std::fs::read_to_string(base.join(&file.ptx))
        .unwrap()
        .lines()
        .any(|l| l.trim_start().starts_with(".target") && l.contains("debug"));
    let session = load_session(&base.join(&file.ptx), gpu.clone()).unwrap();
    let specs = file
        .args
        .iter()
        .map(|a| parse_arg(a, &base).unwrap())
        .collect();
    let config = ptx_exec::LaunchConfig {
        grid: dims(&file.grid, "grid").unwrap(),
        block: dims(&file.block, "block").unwrap(),
        dynamic_shared: file.shared,
        seed: file.seed,
        ..Default::default()
    };
    let mut p = prepare(session, &file.kernel, specs, config).unwrap();
    p.session.mem.record_trace(true);
    p.run().unwrap();
    let accesses = p.session.mem.take_recorded();
    (p.session.mem.stats(), accesses, gpu, debug)
}

/// The counters that must agree: everything but request counts and stale reads.
fn sectors(c: &Counters) -> Counters {
    let mut c = *c;
    c.l1.requests = 0;
    c.l1_local.requests = 0;
    c.l2.requests = 0;
    c.stale_reads = 0;
    c
}

fn replay_trace(gpu: &GpuConfig, accesses: &[TraceAccess], debug: bool) -> Stats {
    let mut mem = MemSystem::tags_only(gpu.clone()).unwrap();
    mem.set_write_combining(!debug);
    let trace: Trace = accesses.iter().copied().collect();
    replay::run_trace(&mut mem, &trace).unwrap();
    mem.stats()
}

/// Every recorded access prints as a trace line that parses back as the same request (but
/// the instruction id, which the parser assigns per op spelling).
fn assert_round_trips(accesses: &[TraceAccess]) {
    let mut parser = ptx_trace::TraceParser::new();
    for a in accesses {
        let line = ptx_trace::format_access(a);
        let b = parser.parse_line(&line, 1).unwrap().unwrap();
        let b = TraceAccess {
            request: Request {
                instr: a.request.instr,
                ..b.request
            },
            ..b
        };
        assert_eq!(&b, a, "{line}");
    }
}

/// Real corpus launches: Triton's vector add with evict-last loads (`.L2::cache_hint`
/// policy), evict-first, `.cg`/`.cs`, `.cv`/`.wb`/`.cg`, fp16 with hints; softmax; layer norm;
/// nvcc's cp.async sgemm, cache-intrinsic forms, prefetches, a shared-memory stencil, a block
/// reduction; and the README demo (Triton's fp16 matmul with cp.async on an A100 with a small
/// L2, so that it evicts).
const LAUNCHES: &[&str] = &[
    "tests/corpus/run/triton.vadd_evict_last.sm80.toml",
    "tests/corpus/run/triton.vadd_evict_first.sm80.toml",
    "tests/corpus/run/triton.vadd_cg_cs.sm80.toml",
    "tests/corpus/run/triton.vadd_cv_wb_cg.sm80.toml",
    "tests/corpus/run/triton.vadd_f16_evict.sm90.toml",
    "tests/corpus/run/triton.softmax.sm80.toml",
    "tests/corpus/run/triton.layer_norm.sm80.toml",
    "tests/corpus/run/nvcc.cp_async_gemm.sm80.sgemm_cp_async.toml",
    "tests/corpus/run/nvcc.cache_intrinsics.sm80.vector_cache_ops.toml",
    "tests/corpus/run/nvcc.cache_intrinsics.sm80.stencil3_ldca_stwb.toml",
    "tests/corpus/run/nvcc.ld_forms.sm80.prefetch_forms.toml",
    "tests/corpus/run/nvcc.reduce.sm80.block_reduce_sum_256.toml",
    "examples/matmul_fp16.sm80.toml",
];

#[test]
fn recorded_traces_replay_to_the_same_sector_counters() {
    let mut failures = Vec::new();
    for l in LAUNCHES {
        let (run, accesses, gpu, debug) = capture(&root().join(l));
        assert!(!accesses.is_empty(), "{l}: nothing recorded");
        assert_round_trips(&accesses);
        let replayed = replay_trace(&gpu, &accesses, debug);
        let (a, b) = (sectors(&run.total()), sectors(&replayed.total()));
        if a != b {
            failures.push(format!("{l}:\n  run    {a:?}\n  replay {b:?}"));
        }
        // Each access is one request of the replay; the run has at most as many.
        assert_eq!(replayed.requests, accesses.len() as u64, "{l}");
        assert!(run.requests <= replayed.requests, "{l}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Through the text path as a user takes it: `ptxsim run --trace-out`, then the file parsed by
/// `ptx-trace` and replayed: the same sector counters as the run's.
#[test]
fn the_cli_writes_a_trace_that_replays_to_the_same_counters() {
    let scratch = tempfile::Builder::new()
        .prefix("ptxsim-trace-out-")
        .tempdir()
        .unwrap();
    let dir = scratch.path();
    for (i, l) in [
        "tests/corpus/run/triton.vadd_evict_last.sm80.toml",
        "examples/matmul_fp16.sm80.toml",
    ]
    .iter()
    .enumerate()
    {
        let launch = root().join(l);
        let out = dir.join(format!("{i}.trace"));
        assert_cmd::Command::cargo_bin("ptxsim")
            .unwrap()
            .args(["run", "--gpu", "a100", "--launch"])
            .arg(&launch)
            .arg("--trace-out")
            .arg(&out)
            .assert()
            .success();
        let text = std::fs::read_to_string(&out).unwrap();
        let first = text.lines().next().unwrap();
        assert!(
            first.starts_with("# ptxsim run --trace-out: kernel `"),
            "{first}"
        );
        let (run, accesses, gpu, _) = capture(&launch);
        assert!(first.ends_with(&format!("gpu {}", gpu.name)), "{first}");
        let (replayed, _ops) = ptx_trace::replay_text(gpu, &text).unwrap();
        assert_eq!(replayed.requests, accesses.len() as u64, "{l}");
        assert_eq!(sectors(&run.total()), sectors(&replayed.total()), "{l}");
    }
    // A file that cannot be created: a clear message, exit 1, before the launch runs.
    let bad = dir.join("no/such/dir/t.trace");
    let out = assert_cmd::Command::cargo_bin("ptxsim")
        .unwrap()
        .args(["run", "--launch"])
        .arg(root().join(LAUNCHES[0]))
        .arg("--trace-out")
        .arg(&bad)
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("cannot write the trace to"), "{err}");
    assert!(!String::from_utf8(out.stdout).unwrap().contains("ran `"));
}

/// Every corpus launch (tests/corpus/run/*.toml, on its launch file's GPU or the A100): its
/// recorded trace prints and parses back, and replays to the run's sector counters. A launch
/// that legitimately differs (see the top of this file) belongs in `ALLOWED_TO_DIFFER` with the
/// reason.
#[test]
fn every_corpus_launch_replays_to_the_same_counters() {
    // A fence's L1 invalidation (`CCTL.IVALL` after `fence.sc.gpu`, docs/fences.md) is not an
    // access: a trace has no record of it, so the replay keeps lines the run dropped. The
    // message-passing seeds fence on the writer (both) and on the reader (`mp_fence_reader`).
    const ALLOWED_TO_DIFFER: &[&str] = &[
        "nvcc.seed_coherence.sm80.mp_fence_reader.toml",
        "nvcc.seed_coherence.sm80.mp_no_fence_reader.toml",
        "nvcc.seed_coherence.sm90.mp_fence_reader.toml",
        "nvcc.seed_coherence.sm90.mp_no_fence_reader.toml",
    ];
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("tests/corpus/run"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 100, "{} launch files", files.len());
    let mut failures = Vec::new();
    let mut accesses_total = 0;
    let mut multi_step = 0;
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        // Multi-step launches (several grids over one memory, every L1 invalidated between
        // them) have no one-grid trace: `--trace-out` takes one-kernel launch files.
        if LaunchFile::read(f).unwrap().0.is_multi_step() {
            multi_step += 1;
            continue;
        }
        let (run, accesses, gpu, debug) = capture(f);
        assert_round_trips(&accesses);
        accesses_total += accesses.len();
        let replayed = replay_trace(&gpu, &accesses, debug);
        let (a, b) = (sectors(&run.total()), sectors(&replayed.total()));
        if a != b && !ALLOWED_TO_DIFFER.contains(&name.as_str()) {
            failures.push(format!("{name}:\n  run    {a:?}\n  replay {b:?}"));
        }
    }
    assert!(accesses_total > 50_000, "{accesses_total} accesses");
    assert!(
        files.len() - multi_step >= 100,
        "{multi_step} of {} are multi-step",
        files.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
