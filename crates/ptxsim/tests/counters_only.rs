//! Counters-only mode (`--counters-only`, `LaunchConfig::counters_only`): every corpus launch
//! (tests/corpus/run/*.toml) runs in full mode and in counters-only mode, and every counter
//! is the same: the run summary's instruction counts (total, per instruction, per phase), the
//! sectors per instruction, stale L1 reads, cp.async bytes, the residency, and every
//! memory-system counter (per SM, per instruction, the L2 timeline: `MemSystem::stats`), from
//! which the per-line tables and the time estimate are computed.

mod common;

use common::first_difference;
use ptxsim::launch::{dims, load_session, parse_arg, prepare, prepare_steps, LaunchFile};
use std::path::{Path, PathBuf};

fn run_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/run")
}

fn gpu_for(name: &str) -> memsys::GpuConfig {
    if name.contains(".sm90") {
        memsys::GpuConfig::h100()
    } else if name.contains(".sm100") {
        memsys::GpuConfig::b200()
    } else {
        memsys::GpuConfig::a100()
    }
}

/// The counters of a launch as text (nothing that depends on the values the slice skips).
fn counters(s: &ptx_exec::RunSummary, mem: &memsys::MemSystem) -> String {
    format!(
        "warp {} (SM phase {}, serial {}) thread {} cp.async {} stale {:?} residency {:?} \
         resident {}\nper instruction {:?}\nsectors {:?}\nstats {:?}\n",
        s.warp_instructions,
        s.sm_phase_warp_instructions,
        s.serial_warp_instructions,
        s.thread_instructions,
        s.cp_async_bytes,
        s.stale_reads,
        s.residency,
        s.resident_ctas,
        s.per_instruction,
        s.per_instruction_sectors,
        mem.stats()
    )
}

/// What counters-only mode did in a launch: sliced (and skipped instructions) or not, and
/// whether it restarted.
#[derive(Default, Debug)]
struct Tally {
    launches: u32,
    sliced: u32,
    restarted: u32,
    skipped_instructions: u64,
    errors: u32,
}

/// Runs `path` in full and in counters-only mode on `threads` threads; returns the
/// launches' counters, one text per launch, for each mode.
fn run_both(path: &Path, threads: u32, tally: &mut Tally) -> Result<(String, String), String> {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    run_both_on(path, gpu_for(&name), threads, tally)
}

/// [`run_both`] on `gpu`.
fn run_both_on(
    path: &Path,
    gpu: memsys::GpuConfig,
    threads: u32,
    tally: &mut Tally,
) -> Result<(String, String), String> {
    let (file, base) = LaunchFile::read(path).map_err(|e| e.to_string())?;
    let mut texts = Vec::new();
    for counters_only in [false, true] {
        let session =
            load_session(&base.join(&file.ptx), gpu.clone()).map_err(|e| e.to_string())?;
        let mut text = String::new();
        if file.is_multi_step() {
            let mut p = prepare_steps(session, &file, &base).map_err(|e| e.to_string())?;
            let config = ptx_exec::LaunchConfig {
                seed: file.seed,
                threads,
                counters_only,
                ..Default::default()
            };
            for i in 0..p.steps.len() {
                match p.run_step(i, &config) {
                    Ok(Some(s)) => {
                        note(&s, counters_only, tally);
                        text += &counters(&s, &p.session.mem);
                    }
                    Ok(None) => {}
                    Err(e) => {
                        text += &format!("step {i}: {e}\n");
                        tally.errors += u32::from(counters_only);
                        break;
                    }
                }
            }
        } else {
            let specs: Result<Vec<_>, _> = file.args.iter().map(|a| parse_arg(a, &base)).collect();
            let config = ptx_exec::LaunchConfig {
                grid: dims(&file.grid, "grid").map_err(|e| e.to_string())?,
                block: dims(&file.block, "block").map_err(|e| e.to_string())?,
                dynamic_shared: file.shared,
                seed: file.seed,
                threads,
                counters_only,
                ..Default::default()
            };
            let mut launch = prepare(
                session,
                &file.kernel,
                specs.map_err(|e| e.to_string())?,
                config,
            )
            .map_err(|e| e.to_string())?;
            match launch.run() {
                Ok(s) => {
                    note(&s, counters_only, tally);
                    text += &counters(&s, &launch.session.mem);
                }
                Err(e) => {
                    text += &format!("{e}\n");
                    tally.errors += u32::from(counters_only);
                }
            }
        }
        texts.push(text);
    }
    let counters_only = texts.pop().unwrap();
    Ok((texts.pop().unwrap(), counters_only))
}

fn note(s: &ptx_exec::RunSummary, counters_only: bool, tally: &mut Tally) {
    if !counters_only {
        assert!(s.counters_only.is_none());
        return;
    }
    let c = s
        .counters_only
        .as_ref()
        .expect("counters-only says what it did");
    tally.launches += 1;
    tally.sliced += u32::from(c.sliced);
    tally.restarted += u32::from(c.restarted.is_some());
    if c.restarted.is_none() {
        tally.skipped_instructions += u64::from(c.skipped);
    }
}

#[test]
fn every_corpus_launch_counts_the_same_in_counters_only_mode() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(run_dir())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 100, "{} launch files", files.len());
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    for (i, f) in files.iter().enumerate() {
        // Every fifth file on two host threads (the SM-parallel phase's workers track the
        // unknown lines too).
        let threads = if i % 5 == 0 { 2 } else { 1 };
        match run_both(f, threads, &mut tally) {
            Ok((full, co)) if full != co => failures.push(format!(
                "{}: counters-only differs from full, {}",
                f.display(),
                first_difference(&full, &co)
            )),
            Ok(_) => {}
            Err(e) => failures.push(format!("{}: {e}", f.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} launch files differ:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    eprintln!("counters-only over the corpus: {tally:?}");
    // The mode must do something: most kernels slice, and most sliced ones stand.
    assert!(
        tally.sliced * 2 > tally.launches,
        "only {} of {} launches sliced",
        tally.sliced,
        tally.launches
    );
    assert!(
        tally.restarted * 4 < tally.sliced,
        "{} of {} sliced launches restarted",
        tally.restarted,
        tally.sliced
    );
    assert!(tally.skipped_instructions > 1000, "{tally:?}");
}

#[test]
fn the_cli_says_what_counters_only_did_and_refuses_out() {
    let path = run_dir().join("triton.matmul_fp16.sm80.toml");
    let run = |extra: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_ptxsim"))
            .args(["run", "--launch"])
            .arg(&path)
            .args(extra)
            .output()
            .unwrap()
    };
    let out = run(&["--counters-only", "--threads", "2"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("counters-only: ") && stdout.contains("instructions skipped"),
        "{stdout}"
    );
    let dir = tempfile::tempdir().unwrap();
    let npy = dir.path().join("c.npy");
    let out = run(&["--counters-only", "--out", &format!("2={}", npy.display())]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--out") && stderr.contains("--counters-only does not compute"),
        "{stderr}"
    );
    assert!(!npy.exists());
    // compare: the same table as in full mode but for the outputs row.
    let compare = |extra: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ptxsim"))
            .args(["compare", "--launch"])
            .arg(&path)
            .args(["--variant", "cg=cp.async=cg"])
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let (full, sliced) = (compare(&[]), compare(&["--counters-only"]));
    let outputs_row = |t: &str| {
        t.lines()
            .find(|l| l.trim_start().starts_with("outputs"))
            .map(str::to_string)
    };
    assert!(
        outputs_row(&full).is_some_and(|l| l.contains("identical")),
        "{full}"
    );
    assert!(
        outputs_row(&sliced).is_some_and(|l| l.contains("not computed")),
        "{sliced}"
    );
    let rest = |t: &str| {
        t.lines()
            .filter(|l| !l.trim_start().starts_with("outputs"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(rest(&full), rest(&sliced));
}

/// CTAs admitted over many rounds: the README matmul's 16 CTAs on a one-SM GPU (a few
/// resident at a time), so later CTAs' warps start on register files of finished ones
/// (zeroed when a warp finishes; counters-only mode zeroes only the slots the slice needs), and a warp passes the runs of
/// skipped instructions (the `mma`s and their operand moves) in one go. Counters as in full.
#[test]
fn ctas_admitted_over_many_rounds_count_the_same() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/matmul_fp16.sm80.toml");
    let mut gpu = memsys::GpuConfig::a100();
    gpu.sm_count = 1;
    for threads in [1, 2] {
        let mut tally = Tally::default();
        let (full, sliced) = run_both_on(&path, gpu.clone(), threads, &mut tally).unwrap();
        assert_eq!(
            (tally.launches, tally.sliced, tally.restarted, tally.errors),
            (1, 1, 0, 0),
            "{tally:?}"
        );
        assert!(tally.skipped_instructions > 100, "{tally:?}");
        let resident: u32 = full
            .split("resident ")
            .nth(1)
            .and_then(|t| t.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .expect("the residency in the counters");
        assert!(resident < 16, "all 16 CTAs resident at once: {resident}");
        assert!(
            full == sliced,
            "{threads} threads: {}",
            first_difference(&full, &sliced)
        );
    }
}
