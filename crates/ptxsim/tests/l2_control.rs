//! The L2 control surface through the CLI (issue 31): `discard.global.L2` and
//! `applypriority.global.L2::evict_normal` in nvcc-built kernels (`tests/l2ctl/l2_control.cu`,
//! PTX from `gen.sh`), access policy windows (`--access-policy-window`,
//! `[access_policy_window]`, a sweep axis) and `reset_persisting_l2` steps, with the checks
//! the CUDA runtime makes.

mod common;
use common::{launch, ptxsim, root, run_exits, stderr_of, temp_dir, validate_report, write};

use serde_json::Value;

fn l2ctl(name: &str) -> String {
    root().join("tests/l2ctl").join(name).display().to_string()
}

fn ptx() -> String {
    l2ctl("l2_control.sm80.ptx")
}

/// The JSON report(s) of a successful run (an array for a multi-step launch file).
fn reports(args: &[&str]) -> Vec<Value> {
    let out = ptxsim()
        .args(args)
        .args(["--report", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    match serde_json::from_slice(&out.stdout).expect("a JSON report") {
        Value::Array(v) => v,
        v => vec![v],
    }
}

fn total(r: &Value, metric: &str) -> u64 {
    r["variants"][0]["totals"][metric]
        .as_u64()
        .unwrap_or_else(|| panic!("{metric} in {}", r["variants"][0]["totals"]))
}

#[test]
fn discarding_a_dirty_scratch_saves_its_write_back() {
    // The issue's example: a 64 KiB scratch written, then a stream that pushes it out of L2.
    let keep = reports(&["run", "--launch", &l2ctl("scratch_keep.toml")]);
    let gone = reports(&["run", "--launch", &l2ctl("scratch_discard.toml")]);
    assert_eq!(total(&keep[1], "dram__bytes_write.sum"), 65_536);
    assert_eq!(total(&gone[1], "dram__bytes_write.sum"), 0);
    // 512 lines of 4 dirty sectors each, counted on the discarding kernel.
    assert_eq!(total(&gone[0], "ptxsim__lts_discards.sum"), 512);
    assert_eq!(
        total(&gone[0], "ptxsim__lts_discard_writebacks_saved.sum"),
        2048
    );
    assert_eq!(total(&keep[0], "ptxsim__lts_discards.sum"), 0);
    for r in gone.iter().chain(&keep) {
        validate_report(r);
    }
    // The per-line table names the discard line and what it did.
    let out = ptxsim()
        .args([
            "run",
            "--launch",
            &l2ctl("scratch_discard.toml"),
            "--report",
            "text",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let row = text
        .lines()
        .find(|l| l.contains("discard.global.L2 [%rd"))
        .expect("a per-line row for the discard");
    assert!(
        row.contains("discarded 512 (2,048 dirty sectors saved)"),
        "{row}"
    );
}

#[test]
fn discarded_data_reads_back_as_before_the_kernel_and_is_a_hazard() {
    let dir = temp_dir("discard_data");
    let out = dir.join("out.npy").display().to_string();
    // The kernel's last argument: whether it discards the lines it wrote before reading them.
    let run = |discard: &str| {
        let p = ptx();
        let args = ["zeros:f32:128", "zeros:f32:128", "s32:1", discard];
        launch("run", &p, "write_discard_read", "2", "64", &args)
            .with(&["--out", &format!("1={out}"), "--hazards"])
            .ok()
    };
    let o = run("s32:1");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("Hazard read-after-discard (128 occurrences)"),
        "{stdout}"
    );
    assert!(stdout.contains("conflicts with PTX line"), "{stdout}");
    assert!(stdout.contains("discard.global.L2 [%rd"), "{stdout}");
    // The values written before the discard never reached memory: zeros, as before the kernel.
    let bytes = std::fs::read(&out).unwrap();
    assert!(bytes[bytes.len() - 512..].iter().all(|&b| b == 0));
    // Without the discard: the written values, and no hazard.
    let o = run("s32:0");
    assert!(String::from_utf8_lossy(&o.stdout).contains("HAZARD SUMMARY: 0 reports"));
    let bytes = std::fs::read(&out).unwrap();
    let last = f32::from_le_bytes(bytes[bytes.len() - 4..].try_into().unwrap());
    assert_eq!(last, 127.0);
}

#[test]
fn reading_scratch_an_earlier_step_discarded_is_a_hazard_naming_that_step() {
    let dir = temp_dir("discard_steps");
    let file = write(
        &dir,
        "steps.toml",
        format!(
            r#"ptx = "{}"
[[buffer]]
name = "scratch"
init = "zeros:f32:256"
[[buffer]]
name = "out"
init = "zeros:f32:256"
[[step]]
kernel = "write_discard_read"
grid = [2]
block = [128]
args = ["buf:scratch", "buf:out", "s32:0", "s32:1"]
[[step]]
memset = "scratch"
offset = 512
bytes = 512
[[step]]
kernel = "copy_out"
grid = [2]
block = [128]
args = ["buf:scratch", "buf:out"]
"#,
            ptx().replace('\\', "/")
        ),
    );
    let o = ptxsim()
        .args(["run", "--launch", &file, "--hazards"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr_of(&o));
    let s = String::from_utf8_lossy(&o.stdout);
    // The memset wrote the upper half again: only the lower 128 floats are still undefined.
    assert!(
        s.contains("Hazard read-after-discard (128 occurrences)"),
        "{s}"
    );
    assert!(s.contains("in kernel `copy_out`"), "{s}");
    assert!(s.contains("in step 0 by thread"), "{s}");
}

#[test]
fn a_misaligned_or_non_global_line_is_a_kernel_fault_naming_the_line() {
    // `inline_l2_control(buf, line_bytes, offset, op)`: thread i's line at
    // `buf + i * line_bytes + offset`; op 0 discards it, 1 applies evict_normal.
    let fault = |block: &str, offset: &str, op: &str| {
        let p = ptx();
        let args = ["zeros:u8:4096", "s32:128", offset, op];
        stderr_of(&launch("run", &p, "inline_l2_control", "1", block, &args).exits(1))
    };
    let e = fault("32", "s32:4", "s32:0");
    assert!(e.contains("discard.global.L2: address 0x"), "{e}");
    assert!(e.contains("is not aligned to the 128-byte line"), "{e}");
    assert!(e.contains("PTX line"), "{e}");
    assert!(
        fault("32", "s32:4", "s32:1").contains("applypriority.global.L2::evict_normal: address")
    );
    // Past the buffer: out of bounds.
    assert!(fault("64", "s32:0", "s32:0").contains("out-of-bounds global access of 128 bytes"));
}

#[test]
fn applypriority_takes_window_lines_out_of_the_set_aside() {
    let dir = temp_dir("applypriority");
    let file = write(
        &dir,
        "apply.toml",
        format!(
            r#"ptx = "{}"
persisting_l2 = "4MiB"
cache_control = "none"
[[buffer]]
name = "table"
init = "zeros:f32:8192"
[[buffer]]
name = "sink"
init = "zeros:f32:64"
[access_policy_window]
arg = "table"
bytes = 32768
hit_ratio = 1.0
hit_prop = "persisting"
miss_prop = "normal"
[[step]]
kernel = "stream_read"
grid = [64]
block = [128]
args = ["buf:table", "s32:8192", "buf:sink"]
[[step]]
kernel = "inline_l2_control"
grid = [2]
block = [128]
args = ["buf:table", "s32:128", "s32:0", "s32:1"]
"#,
            ptx().replace('\\', "/")
        ),
    );
    let r = reports(&["run", "--launch", &file]);
    assert_eq!(total(&r[0], "ptxsim__lts_window_hit_prop.sum"), 256);
    // 256 lines, each at home and (read by far SMs) as a normal copy: every one resident.
    assert_eq!(total(&r[1], "ptxsim__lts_priority_applied.sum"), 256);
    assert_eq!(total(&r[1], "ptxsim__lts_priority_demoted.sum"), 256);
    assert!(r[0]["launch"]["access_policy_window"]
        .as_str()
        .unwrap()
        .contains("32768 B, hit ratio 1 (16/16 of lines) persisting, miss normal"));
}

#[test]
fn a_reset_step_lets_the_stream_evict_the_persisting_table() {
    let with = reports(&["run", "--launch", &l2ctl("persist_reset.toml")]);
    assert_eq!(with.len(), 3);
    assert_eq!(with[1]["launch"]["persisting_reset_lines"], 256);
    assert_eq!(total(&with[2], "dram__bytes_read.sum"), 32_768);
    // Without the reset the table survives the stream in the set-aside.
    let text = std::fs::read_to_string(l2ctl("persist_reset.toml"))
        .unwrap()
        .replace("[[step]]\nreset_persisting_l2 = true\n\n", "")
        .replace("\"l2_control.sm80.ptx\"", &format!("{:?}", ptx()))
        .replace(
            "\"../../examples/",
            &format!("\"{}/", root().join("examples").display()),
        );
    let dir = temp_dir("no_reset");
    let file = write(&dir, "no_reset.toml", text);
    let without = reports(&["run", "--launch", &file]);
    assert_eq!(without.len(), 3);
    assert_eq!(total(&without[2], "dram__bytes_read.sum"), 0);
    // With the default --cache-control all, L2 is emptied between kernels: nothing persists.
    let flushed = reports(&["run", "--launch", &file, "--cache-control", "all"]);
    assert_eq!(total(&flushed[2], "dram__bytes_read.sum"), 32_768);
    let out = ptxsim()
        .args(["run", "--launch", &l2ctl("persist_reset.toml")])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains(
        "reset persisting L2 lines to normal (cudaCtxResetPersistingL2Cache): 256 lines"
    ));
}

#[test]
fn the_window_flag_and_file_table_show_in_reports_and_the_flag_wins() {
    let r = reports(&["run", "--launch", &l2ctl("window_stream.toml")]);
    validate_report(&r[0]);
    let w = r[0]["launch"]["access_policy_window"].as_str().unwrap();
    assert!(
        w.contains("+ 32768 B, hit ratio 0.5 (8/16 of lines) persisting, miss streaming"),
        "{w}"
    );
    let (hit, miss) = (
        total(&r[0], "ptxsim__lts_window_hit_prop.sum"),
        total(&r[0], "ptxsim__lts_window_miss_prop.sum"),
    );
    assert!(hit > 0 && miss > 0, "{hit}/{miss}");
    let r = reports(&[
        "run",
        "--launch",
        &l2ctl("window_stream.toml"),
        "--access-policy-window",
        "0+1024:64KiB:1.0:streaming:normal",
    ]);
    let w = r[0]["launch"]["access_policy_window"].as_str().unwrap();
    assert!(
        w.contains("65536 B, hit ratio 1 (16/16 of lines) streaming, miss normal"),
        "{w}"
    );
    assert_eq!(total(&r[0], "ptxsim__lts_window_miss_prop.sum"), 0);
    // The text report's header line.
    let out = ptxsim()
        .args([
            "run",
            "--launch",
            &l2ctl("window_stream.toml"),
            "--report",
            "text",
        ])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("access policy window: 0x"));
    // compare takes it too and shows it once for every variant.
    let out = ptxsim()
        .args(["compare", "--launch", &l2ctl("window_stream.toml")])
        .args(["--variant", "cg=loads=cg", "--report", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["launch"]["access_policy_window"].is_string());
}

#[test]
fn windows_the_runtime_refuses_are_usage_errors() {
    let base = [
        "run",
        &ptx(),
        "--kernel",
        "stream_read",
        "--grid",
        "1",
        "--block",
        "32",
        "--arg",
        "zeros:f32:1024",
        "--arg",
        "s32:1024",
        "--arg",
        "zeros:f32:8",
        "--access-policy-window",
    ];
    for (w, want) in [
        ("0:0:0.5:persisting:streaming", "num_bytes is 0"),
        (
            "0:200MiB:0.5:persisting:streaming",
            "cudaDevAttrMaxAccessPolicyWindowSize",
        ),
        (
            "0:4KiB:1.5:persisting:streaming",
            "hit ratio 1.5 is outside [0, 1]",
        ),
        (
            "0:4KiB:0.5:persisting:persisting",
            "missProp must be normal or streaming",
        ),
        ("1:4KiB:0.5:persisting:normal", "argument 1 is not a buffer"),
        ("9:4KiB:0.5:persisting:normal", "the launch has 3 arguments"),
        (
            "0:4KiB:0.5:sticky:normal",
            "give normal, streaming or persisting",
        ),
        (
            "0:4KiB:0.5",
            "ARG[+OFFSET]:BYTES:HIT_RATIO:HIT_PROP:MISS_PROP",
        ),
        (
            "table:4KiB:0.5:persisting:normal",
            "only multi-step launch files have",
        ),
    ] {
        let mut args: Vec<&str> = base.to_vec();
        args.push(w);
        let o = run_exits(2, &args);
        let e = stderr_of(&o);
        assert!(e.contains(want), "{w}: {e}");
    }
    // A launch file's table is checked the same way, naming the file.
    let dir = temp_dir("bad_window_file");
    let file = write(
        &dir,
        "bad.toml",
        format!(
            r#"ptx = "{}"
kernel = "stream_read"
grid = [1]
block = [32]
args = ["zeros:f32:1024", "s32:1024", "zeros:f32:8"]
[access_policy_window]
arg = 0
bytes = 4096
hit_ratio = 0.5
hit_prop = "persisting"
miss_prop = "sometimes"
"#,
            ptx().replace('\\', "/")
        ),
    );
    let e = stderr_of(&run_exits(2, &["run", "--launch", &file]));
    assert!(
        e.contains("bad.toml") && e.contains("miss_prop `sometimes`"),
        "{e}"
    );
}

#[test]
fn a_sweep_has_an_access_policy_window_axis() {
    let dir = temp_dir("sweep_window");
    let spec = write(
        &dir,
        "spec.toml",
        format!(
            r#"launch = "{}"
[axes]
access_policy_window = ["none", "0:32KiB:1.0:persisting:normal"]
"#,
            l2ctl("window_stream.toml").replace('\\', "/")
        ),
    );
    let out = dir.join("out");
    let o = ptxsim()
        .args([
            "sweep",
            &spec,
            "--out",
            &out.display().to_string(),
            "--jobs",
            "1",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr_of(&o));
    let rows: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["access_policy_window"], "none");
    assert_eq!(
        rows[1]["access_policy_window"],
        "0:32768:1:persisting:normal"
    );
    assert_eq!(rows[0]["ptxsim__lts_window_hit_prop.sum"], 0);
    assert_eq!(rows[1]["ptxsim__lts_window_miss_prop.sum"], 0);
    assert!(rows[1]["ptxsim__lts_window_hit_prop.sum"].as_u64().unwrap() > 0);
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert!(csv
        .lines()
        .next()
        .unwrap()
        .contains("seed,access_policy_window,step"));
    // A window the runtime refuses fails the spec before anything runs.
    let bad = write(
        &dir,
        "bad.toml",
        format!(
            r#"launch = "{}"
[axes]
access_policy_window = ["0:32KiB:0.5:persisting"]
"#,
            l2ctl("window_stream.toml").replace('\\', "/")
        ),
    );
    let o = run_exits(
        2,
        &[
            "sweep",
            &bad,
            "--out",
            &dir.join("bad").display().to_string(),
        ],
    );
    assert!(stderr_of(&o).contains("access_policy_window"));
}
