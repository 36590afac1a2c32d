//! The persisting-L2 set-aside as a launch setting (`cudaLimitPersistingL2CacheSize`):
//! `--persisting-l2` on `run`, `compare` and `replay`, `persisting_l2` in one-kernel and
//! multi-step launch files (the command line wins), shown in every report, bounded by the GPU's
//! `persisting_l2_max_bytes`.

mod common;
use common::{demo, ptxsim, root, temp_dir};

use serde_json::Value;

fn json_report(args: &[&str]) -> Value {
    let out = ptxsim().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is the JSON report")
}

fn stderr_of(args: &[&str]) -> (i32, String) {
    let out = ptxsim().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn launch_file_sets_it_and_the_command_line_wins() {
    // examples/matmul_fp16.sm80.toml: persisting_l2 = 65536, GPU maximum 98304.
    let r = json_report(&["run", "--launch", &demo(), "--report", "json"]);
    assert_eq!(r["gpu"]["persisting_l2_bytes"], 65536);
    assert_eq!(r["gpu"]["persisting_l2_max_bytes"], 98304);
    let r = json_report(&[
        "run",
        "--launch",
        &demo(),
        "--persisting-l2",
        "32KiB",
        "--report",
        "json",
    ]);
    assert_eq!(r["gpu"]["persisting_l2_bytes"], 32768);
    let out = ptxsim()
        .args(["run", "--launch", &demo(), "--persisting-l2", "0"])
        .args(["--report", "text"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("persisting set-aside 0 B of max 96.0 KiB"),
        "{text}"
    );
}

#[test]
fn more_than_the_maximum_is_an_error_naming_it() {
    let (code, err) = stderr_of(&["run", "--launch", &demo(), "--persisting-l2", "1MiB"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--persisting-l2")
            && err.contains("1048576 B exceeds the maximum")
            && err.contains("98304 B (persisting_l2_max_bytes)"),
        "{err}"
    );
    let (code, err) = stderr_of(&["run", "--launch", &demo(), "--persisting-l2", "4 lines"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a byte count"), "{err}");
    // compare takes the same option.
    let (code, err) = stderr_of(&[
        "compare",
        "--launch",
        &demo(),
        "--variant",
        "l1=cp.async=ca",
        "--persisting-l2",
        "99000",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("exceeds the maximum"), "{err}");
}

#[test]
fn replay_takes_the_setting_and_prints_it() {
    let dir = temp_dir("replay");
    let trace = dir.join("t.trace");
    std::fs::write(
        &trace,
        "0 ld.global.L2::evict_last.v4.f32 0x7f0000000000 16\n",
    )
    .unwrap();
    let trace = trace.display().to_string();
    let out = ptxsim()
        .args([
            "replay",
            &trace,
            "--gpu",
            "h100",
            "--persisting-l2",
            "32768000",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("persisting L2 set-aside: 32768000 B"));
    let r = json_report(&[
        "replay",
        &trace,
        "--gpu",
        "h100",
        "--json",
        "--persisting-l2",
        "2M",
    ]);
    assert_eq!(r["persisting_l2_bytes"], 2 << 20);
    let (code, err) = stderr_of(&[
        "replay",
        &trace,
        "--gpu",
        "h100",
        "--persisting-l2",
        "32768001",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("exceeds the maximum of GPU 'h100': 32768000 B"),
        "{err}"
    );
}

#[test]
fn multi_step_files_take_it_too() {
    let run = root().join("tests/corpus/run");
    let text = std::fs::read_to_string(run.join("nvcc.cub_reduce.sm75.segmented_sum_i32.toml"))
        .unwrap()
        .replace("\"../nvcc/", &format!("\"{}/../nvcc/", run.display()))
        .replace("\"data/", &format!("\"{}/data/", run.display()))
        .replacen("ptx = ", "persisting_l2 = \"4MiB\"\nptx = ", 1);
    let dir = temp_dir("steps");
    let file = dir.join("steps.toml");
    std::fs::write(&file, text).unwrap();
    let file = file.display().to_string();
    let reports = json_report(&["run", "--launch", &file, "--report", "json"]);
    let reports = reports.as_array().expect("one report per kernel step");
    assert!(!reports.is_empty());
    for r in reports {
        assert_eq!(r["gpu"]["persisting_l2_bytes"], 4 << 20);
    }
    let reports = json_report(&[
        "run",
        "--launch",
        &file,
        "--persisting-l2",
        "1024",
        "--report",
        "json",
    ]);
    assert_eq!(reports[0]["gpu"]["persisting_l2_bytes"], 1024);
}

#[test]
fn the_old_gpu_key_is_explained() {
    let dir = temp_dir("oldkey");
    let gpu = dir.join("old.toml");
    std::fs::write(&gpu, "preset = \"h100\"\npersisting_l2_bytes = 4096\n").unwrap();
    let trace = dir.join("t.trace");
    std::fs::write(&trace, "0 ld.global.f32 0x7f0000000000 4\n").unwrap();
    let (code, err) = stderr_of(&[
        "replay",
        &trace.display().to_string(),
        "--gpu",
        &gpu.display().to_string(),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("persisting_l2_max_bytes") && err.contains("--persisting-l2"),
        "{err}"
    );
}
