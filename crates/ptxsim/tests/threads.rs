//! `--threads N` / `LaunchConfig::threads`: a launch gives the same outputs and the same
//! counters (every memory-system counter, per SM and per instruction, the L2 timeline, the
//! run summary, printf) for every thread count, with the default order and with a seed; and
//! the CLI refuses a thread count it cannot use.

mod common;

use common::first_difference;
use ptxsim::launch::{dims, load_session, parse_arg, prepare, LaunchFile};
use std::path::{Path, PathBuf};
use std::process::Command;

fn run_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/run")
}

/// Everything a launch produced that must not depend on the thread count, as text.
fn run(launch: &str, seed: u64, threads: u32, cache_model: bool) -> (String, u32, u64) {
    let path = run_dir().join(launch);
    let (file, base) = LaunchFile::read(&path).unwrap();
    let gpu = if launch.contains(".sm90") {
        memsys::GpuConfig::h100()
    } else {
        memsys::GpuConfig::a100()
    };
    let session = load_session(&base.join(&file.ptx), gpu).unwrap();
    let specs: Vec<_> = file
        .args
        .iter()
        .map(|a| parse_arg(a, &base).unwrap())
        .collect();
    let config = ptx_exec::LaunchConfig {
        grid: dims(&file.grid, "grid").unwrap(),
        block: dims(&file.block, "block").unwrap(),
        dynamic_shared: file.shared,
        seed,
        threads,
        cache_model,
        ..Default::default()
    };
    let mut prepared = prepare(session, &file.kernel, specs, config).unwrap();
    let s = prepared
        .run()
        .unwrap_or_else(|e| panic!("{launch} seed {seed} threads {threads}: {e}"));
    let mut out = format!(
        "warp {} (SM phase {}, serial {}) thread {} cp.async {} stale {:?} hazards {:?} printf {:?}\nper instruction {:?}\n",
        s.warp_instructions,
        s.sm_phase_warp_instructions,
        s.serial_warp_instructions,
        s.thread_instructions,
        s.cp_async_bytes,
        s.stale_reads,
        s.hazards,
        s.printf,
        s.per_instruction
    );
    out += &format!("stats {:?}\n", prepared.session.mem.stats());
    for i in 0..file.args.len() {
        if let Ok(a) = prepared.output(i) {
            out += &format!("arg {i}: {:?}\n", a.bytes);
        }
    }
    (out, s.threads, s.sm_phase_warp_instructions)
}

/// An mma matmul with a cp.async pipeline (Triton), global and shared atomics, contended
/// atom.cas loops, a cp.async gemm and a CUB block reduction through shared memory; then
/// kernels whose weak global loads and stores run in the SM-parallel phase (`sm_phase.rs`):
/// a stencil over `.ca` loads and write-back stores, a strided transpose, `ld.global.nc` with
/// streaming stores, and cross-CTA message passing with a fence; then L2 fraction policies
/// (the L2's random draws, replayed when an SM-parallel phase is settled) and TMA bulk copies
/// (bulk stores that write global memory when their CTA retires, after the round's
/// SM-parallel phase is settled: `schedule.rs`).
const LAUNCHES: [&str; 12] = [
    "triton.matmul_fp16.sm80.toml",
    "nvcc.atomics.lineinfo.sm80.histogram_shared.toml",
    "nvcc.atomics.lineinfo.sm80.atomic_cas_loops.toml",
    "nvcc.cp_async_gemm.sm80.sgemm_cp_async.toml",
    "nvcc.cub_block.sm80.cub_block_reduce.toml",
    "triton.fp8_matmul_e4m3.sm90.toml",
    "nvcc.cache_intrinsics.sm80.stencil3_ldca_stwb.toml",
    "nvcc.cp_async_gemm.sm80.transpose_cp_async.toml",
    "nvcc.cache_intrinsics.sm80.saxpy_ldg_stcs.toml",
    "nvcc.seed_coherence.sm80.mp_fence_reader.toml",
    "nvcc.annotated_ptr.sm100.annotated_fraction.toml",
    "nvcc.tma_bulk.sm90a.bulk_copy_pipeline.toml",
];

#[test]
fn outputs_and_counters_do_not_depend_on_the_thread_count() {
    let mut sm_phase = 0;
    for launch in LAUNCHES {
        // Seed 0 and 7 with the cache model; seed 3 without it (data only).
        for (seed, model) in [(0, true), (7, true), (3, false)] {
            let (one, used, in_sm_phase) = run(launch, seed, 1, model);
            assert_eq!(used, 1);
            sm_phase += u64::from(in_sm_phase > 0);
            for threads in [2, 3, 4] {
                let (many, used, _) = run(launch, seed, threads, model);
                assert!(used > 1, "{launch}: ran on {used} threads");
                assert!(
                    many == one,
                    "{launch} seed {seed} (cache model {model}): {threads} threads differ from 1 in {}",
                    first_difference(&one, &many)
                );
            }
        }
    }
    // Most of these launches run weak global accesses in the SM-parallel phase.
    assert!(
        sm_phase >= 10,
        "{sm_phase} of 36 runs used the SM-parallel phase"
    );
}

#[test]
fn hazard_tracking_runs_on_one_thread_and_says_so() {
    let path = run_dir().join("nvcc.atomics.lineinfo.sm80.histogram_shared.toml");
    let out = Command::new(env!("CARGO_BIN_EXE_ptxsim"))
        .args(["run", "--launch"])
        .arg(&path)
        .args(["--threads", "2", "--hazards"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("(ran on 1 thread: hazard tracking records every access in one order)"),
        "{stdout}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_ptxsim"))
        .args(["run", "--launch"])
        .arg(&path)
        .args(["--threads", "2"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(" on 2 threads\n"), "{stdout}");
}

#[test]
fn a_thread_count_out_of_range_or_not_a_number_is_an_error() {
    let path = run_dir().join("nvcc.atomics.lineinfo.sm80.histogram_shared.toml");
    for (command, bad) in [
        ("run", "0"),
        ("run", "lots"),
        ("compare", "1.5"),
        ("run", "1025"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_ptxsim"))
            .args([command, "--launch"])
            .arg(&path)
            .args(["--threads", bad])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command} {bad}: {stderr}");
        assert!(
            stderr.contains("give a number of threads from 1 to 1024"),
            "{command} {bad}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}
