//! Every corpus launch (tests/corpus/run/*.toml, made by tests/corpus/gen/make_launches.py
//! with numpy references) runs and matches its expected outputs.

use ptxsim::launch::{
    compare, dims, load_session, parse_arg, prepare, prepare_steps, Array, LaunchFile,
};
use std::path::{Path, PathBuf};

fn run_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/run")
}

/// Runs one launch file; returns a description of every failure.
fn run_one(path: &Path, cache_model: bool) -> Vec<String> {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let (file, base) = match LaunchFile::read(path) {
        Ok(x) => x,
        Err(e) => return vec![format!("{name}: {e}")],
    };
    // The GPU of the kernel's generation (as ptxsim.triton picks it): an sm_90a CUTLASS
    // kernel asks for more dynamic shared memory than an A100 block may have.
    let gpu = if name.contains(".sm90") {
        memsys::GpuConfig::h100()
    } else if name.contains(".sm100") {
        memsys::GpuConfig::b200()
    } else {
        memsys::GpuConfig::a100()
    };
    let session = match load_session(&base.join(&file.ptx), gpu) {
        Ok(s) => s,
        Err(e) => return vec![format!("{name}: {e}")],
    };
    if file.is_multi_step() {
        return run_steps(&name, &file, &base, session, cache_model);
    }
    let specs: Result<Vec<_>, _> = file.args.iter().map(|a| parse_arg(a, &base)).collect();
    let specs = match specs {
        Ok(s) => s,
        Err(e) => return vec![format!("{name}: {e}")],
    };
    let config = ptx_exec::LaunchConfig {
        grid: dims(&file.grid, "grid").unwrap(),
        block: dims(&file.block, "block").unwrap(),
        dynamic_shared: file.shared,
        seed: file.seed,
        cache_model,
        ..Default::default()
    };
    let mut launch = match prepare(session, &file.kernel, specs, config) {
        Ok(l) => l,
        Err(e) => return vec![format!("{name}: {e}")],
    };
    if let Err(e) = launch.run() {
        return vec![format!("{name}: {e}")];
    }
    let mut failures = Vec::new();
    for ex in &file.expect {
        let want = match ptxsim::launch::read_npy(&base.join(&ex.npy)) {
            Ok(w) => w,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let got = launch.output(ex.arg.unwrap()).unwrap();
        check(&name, ex, &got, &want, &mut failures);
    }
    failures
}

fn check(
    name: &str,
    ex: &ptxsim::launch::Expect,
    got: &Array,
    want: &Array,
    failures: &mut Vec<String>,
) {
    match compare(got, want, ex.max_ulp) {
        Ok(c) if c.mismatches == 0 => {}
        Ok(c) => failures.push(format!(
            "{name}: {} has {} of {} elements off (max_ulp {}): first at {:?}",
            ex.what(),
            c.mismatches,
            c.elements,
            ex.max_ulp,
            c.first_mismatch
        )),
        Err(e) => failures.push(format!("{name}: {}: {e}", ex.what())),
    }
}

/// Runs a multi-step launch file (library host code's kernel sequence) step by step.
fn run_steps(
    name: &str,
    file: &LaunchFile,
    base: &Path,
    session: ptx_exec::Session,
    cache_model: bool,
) -> Vec<String> {
    let mut p = match prepare_steps(session, file, base) {
        Ok(p) => p,
        Err(e) => return vec![format!("{name}: {e}")],
    };
    let config = ptx_exec::LaunchConfig {
        seed: file.seed,
        cache_model,
        ..Default::default()
    };
    for i in 0..p.steps.len() {
        if let Err(e) = p.run_step(i, &config) {
            return vec![format!("{name}: step {i} ({}): {e}", p.steps[i].describe())];
        }
    }
    let mut failures = Vec::new();
    for ex in &file.expect {
        let want = match ptxsim::launch::read_npy(&base.join(&ex.npy)) {
            Ok(w) => w,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let got = p.buffer(ex.buffer.as_deref().unwrap()).unwrap();
        check(name, ex, &got, &want, &mut failures);
    }
    failures
}

fn launch_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(run_dir())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_corpus_launch_matches_numpy() {
    let files = launch_files();
    assert!(files.len() >= 100, "{} launch files", files.len());
    let mut failures = Vec::new();
    for f in &files {
        failures.extend(run_one(f, true));
    }
    assert!(
        failures.is_empty(),
        "{} of {} launches failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
