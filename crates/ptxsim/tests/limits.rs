//! Resource limits through the CLI: buffers past the GPU preset's device memory, shared or
//! local memory past a block's limits, grids past a GPU's, a GPU model too large to build,
//! and the wall-clock `--timeout`. Each is a clear error naming what was asked and the limit
//! (exit 2), or a kernel fault like the step limit (exit 1 for the timeout); nothing aborts.

mod common;
use common::{ptxsim, root, stderr_of, temp_dir, TestDir};

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn vadd() -> PathBuf {
    root().join("tests/corpus/triton/vadd_evict_last.sm80.ptx")
}

const SPIN: &str = ".version 8.0
.target sm_80
.address_size 64
.visible .entry spin()
{
$L_spin:
\tbra.uni $L_spin;
}
";

/// `SPIN` written to a fresh directory for `test` (removed when the test drops it).
fn spin_file(test: &str) -> (TestDir, PathBuf) {
    let dir = temp_dir(test);
    let ptx = dir.join("spin.ptx");
    std::fs::write(&ptx, SPIN).unwrap();
    (dir, ptx)
}

/// `ptxsim run` of the `spin` kernel in `ptx` on `grid` blocks of one warp.
fn run_spin(ptx: &Path, grid: &str) -> Command {
    let mut cmd = ptxsim();
    cmd.args([
        "run",
        ptx.to_str().unwrap(),
        "--kernel",
        "spin",
        "--grid",
        grid,
    ])
    .args(["--block", "32"]);
    cmd
}

/// `vadd_evict_last(x, y, out, n, scratch, scratch)` with `first` as argument 0.
fn vadd_args(first: &str) -> Vec<String> {
    let mut a = vec![
        vadd().display().to_string(),
        "--kernel".into(),
        "vadd_evict_last".into(),
        "--grid".into(),
        "4".into(),
        "--block".into(),
        "128".into(),
    ];
    for arg in [
        first,
        "zeros:f32:512",
        "zeros:f32:512",
        "s32:512",
        "null",
        "null",
    ] {
        a.push("--arg".into());
        a.push(arg.into());
    }
    a
}

#[test]
fn zeros_past_the_gpu_memory_is_an_error_naming_argument_and_sizes() {
    // The reproduction: 4 TB of zeros aborted the process (exit 134) before.
    let out = ptxsim()
        .arg("run")
        .args(vadd_args("zeros:f32:1000000000000"))
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("argument 0: `zeros:f32:1000000000000` needs 4000000000000 bytes"),
        "{err}"
    );
    // H100 80GB: 81,559 MiB as the device reports it.
    assert!(err.contains(&format!("{} bytes", 81_559u64 << 20)), "{err}");
    assert!(err.contains("h100"), "{err}");
    // A count whose byte size overflows 64 bits is the same error, not a wrap-around.
    let out = ptxsim()
        .arg("run")
        .args(vadd_args("zeros:f64:4611686018427387904"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("more than 2^64 bytes"));
}

#[test]
fn the_cap_is_the_selected_gpu_memory() {
    // 48 GiB of zeros fits no A100 40GB but is under an H100's 81,559 MiB: on the A100 the
    // error names its 40,960 MiB before any host memory is taken.
    let out = ptxsim()
        .arg("run")
        .args(vadd_args("zeros:f32:12884901888"))
        .args(["--gpu", "a100"])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("the GPU has {} bytes", 40_960u64 << 20)),
        "{err}"
    );
}

#[test]
fn memory_bytes_in_a_gpu_file_caps_the_buffers_together() {
    let dir = temp_dir("memory_bytes");
    let gpu = dir.join("small.toml");
    std::fs::write(&gpu, "preset = \"h100\"\nmemory_bytes = 1048576\n").unwrap();
    // Each buffer fits alone, the two together do not: the second allocation fails.
    let mut args = vadd_args("zeros:f32:200000");
    args[10] = "zeros:f32:200000".into();
    let out = ptxsim()
        .arg("run")
        .args(args)
        .args(["--gpu", gpu.to_str().unwrap()])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("argument 1: memory: out of device memory: cannot allocate 800000 bytes")
            && err.contains("800000 of the GPU's 1048576 bytes"),
        "{err}"
    );
}

#[test]
fn shared_memory_past_the_block_limit_is_an_error() {
    let (_dir, ptx) = spin_file("shared");
    for (gpu, limit) in [("h100", 227 * 1024), ("a100", 163 * 1024)] {
        let out = run_spin(&ptx, "1")
            .args(["--shared"])
            .arg((limit + 1).to_string())
            .args(["--gpu", gpu])
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!("allows at most {limit} per block")),
            "{err}"
        );
    }
}

#[test]
fn grids_past_a_gpu_are_an_error() {
    let (_dir, ptx) = spin_file("grid");
    let out = run_spin(&ptx, "1,65536").output().unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("y and z at most 65535"), "{err}");
}

#[test]
fn timeout_is_a_kernel_fault_like_the_step_limit() {
    let (_dir, ptx) = spin_file("timeout");
    let started = std::time::Instant::now();
    let out = run_spin(&ptx, "1")
        .args(["--timeout", "0.3"])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("ran longer than 0.3 s of wall-clock time"),
        "{err}"
    );
    assert!(err.contains("PTX line 7"), "{err}");
    assert!(started.elapsed().as_secs() < 60);
    // The same limit from a launch file.
    let launch = ptx.with_file_name("spin.toml");
    std::fs::write(
        &launch,
        "ptx = \"spin.ptx\"\nkernel = \"spin\"\ngrid = [1]\nblock = [32]\ntimeout = 0.3\n",
    )
    .unwrap();
    let out = ptxsim()
        .args(["run", "--launch", launch.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("ran longer than 0.3 s"));
    for bad in ["0", "-1", "nan", "soon"] {
        let out = run_spin(&ptx, "1")
            .arg(format!("--timeout={bad}"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "--timeout={bad}");
    }
}

#[test]
fn a_gpu_file_with_caches_too_large_to_model_is_an_error() {
    let dir = temp_dir("gpu-l2");
    let gpu = dir.join("huge.toml");
    std::fs::write(
        &gpu,
        "preset = \"h100\"\n[l2]\nsize_bytes = 1099511627776\n",
    )
    .unwrap();
    let out = ptxsim()
        .arg("run")
        .args(vadd_args("zeros:f32:512"))
        .args(["--gpu", gpu.to_str().unwrap()])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("too large to model"), "{err}");
}
