//! `ptxsim sweep` as a user runs it: one row per point and kernel step with the report's
//! metrics (the same values `ptxsim compare` reports for that setting), outputs checked against
//! the original's, results independent of `--jobs`, finished points cached by a hash of their
//! inputs, failing points reported while the rest run.

mod common;
use common::{ptxsim, root};

use serde_json::Value;
use std::path::{Path, PathBuf};

/// The small-L2 GPU of vadd.toml, as its `gpu` axis names it.
const SMALL_L2: &str = "a100-l2-64k.toml";

fn spec(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/sweep")
        .join(name)
}

/// A fresh, empty directory for one test (removed when the test drops it).
fn scratch(test: &str) -> common::TestDir {
    common::temp_dir(test)
}

fn sweep(spec: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    ptxsim()
        .arg("sweep")
        .arg(spec)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

fn rows(out: &Path) -> Vec<serde_json::Map<String, Value>> {
    let text = std::fs::read_to_string(out.join("results.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_object().unwrap().clone())
        .collect()
}

fn timings_status(out: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(out.join("timings.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = header.iter().position(|c| *c == "status").unwrap();
    lines
        .map(|l| l.split(',').nth(col).unwrap().to_string())
        .collect()
}

#[test]
fn every_point_is_a_row_with_the_metrics_compare_reports() {
    let out = scratch("rows");
    let o = sweep(&spec("vadd.toml"), &out, &["--jobs", "2"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = rows(&out);
    // 3 variants x 2 GPUs x 2 set-asides, variants innermost.
    assert_eq!(rows.len(), 12);
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["variant"].as_str().unwrap())
        .collect();
    assert_eq!(&names[..3], ["original", "ef", "plain"]);
    let columns: Vec<&String> = rows[0].keys().collect();
    for m in ptxsim_report::metrics::metric_infos() {
        assert!(columns.contains(&&m.name), "no column {}", m.name);
    }
    assert!(rows.iter().all(|r| r["outputs_equal"] == Value::Bool(true)));

    // Each row holds what `ptxsim compare` reports for the same variant, GPU and set-aside.
    let compare = ptxsim()
        .args(["compare", "--launch"])
        .arg(root().join("tests/corpus/run/triton.vadd_evict_last.sm80.toml"))
        .arg("--gpu")
        .arg(spec(SMALL_L2))
        .args(["--persisting-l2", "16KiB"])
        .args([
            "--variant",
            "ef=loads=evict_first",
            "--variant",
            "plain=strip-hints",
        ])
        .args(["--report", "json"])
        .output()
        .unwrap();
    assert!(compare.status.success());
    let report: Value = serde_json::from_slice(&compare.stdout).unwrap();
    for variant in report["variants"].as_array().unwrap() {
        let name = variant["name"].as_str().unwrap();
        let row = rows
            .iter()
            .find(|r| r["variant"] == name && r["gpu"] == SMALL_L2 && r["persisting_l2"] == 16384)
            .unwrap();
        let totals = variant["totals"].as_object().unwrap();
        assert!(!totals.is_empty());
        for (metric, value) in totals {
            assert_eq!(&row[metric], value, "{name}: {metric}");
        }
    }
    // The vadd's 96 evict-last lines over the small L2's 32 sets: with no set-aside, the sets
    // hold fewer evict-last lines than they get (none, or one way's worth) and cap the rest
    // to normal; 16 KiB gives 4 ways of each set, enough for all; evict-first loads have
    // nothing to cap.
    let capped = |v: &str, pl2: u64| {
        rows.iter()
            .find(|r| r["variant"] == v && r["gpu"] == SMALL_L2 && r["persisting_l2"] == pl2)
            .unwrap()["ptxsim__lts_evict_last_capped.sum"]
            .as_u64()
            .unwrap()
    };
    assert!(capped("original", 0) > 0);
    assert_eq!(capped("original", 16384), 0);
    assert_eq!(capped("ef", 0), 0);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn rows_do_not_depend_on_jobs_or_threads_and_a_rerun_comes_from_the_cache() {
    let one = scratch("jobs1");
    let three = scratch("jobs3");
    assert!(sweep(&spec("vadd.toml"), &one, &["--jobs", "1"])
        .status
        .success());
    // Three points at once, each on two interpreter threads.
    assert!(sweep(
        &spec("vadd.toml"),
        &three,
        &["--jobs", "3", "--threads", "2"]
    )
    .status
    .success());
    for file in ["results.csv", "results.json"] {
        assert_eq!(
            std::fs::read(one.join(file)).unwrap(),
            std::fs::read(three.join(file)).unwrap(),
            "{file}"
        );
    }
    assert!(timings_status(&one).iter().all(|s| s == "ran"));
    let csv = std::fs::read(one.join("results.csv")).unwrap();
    let again = sweep(&spec("vadd.toml"), &one, &["--jobs", "2"]);
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("12 from the cache"));
    assert!(timings_status(&one).iter().all(|s| s == "cached"));
    assert_eq!(std::fs::read(one.join("results.csv")).unwrap(), csv);
    let _ = std::fs::remove_dir_all(&one);
    let _ = std::fs::remove_dir_all(&three);
}

#[test]
fn a_changed_input_runs_its_points_again() {
    let dir = scratch("inputs");
    // A copy of the launch whose input this test changes.
    let corpus = root().join("tests/corpus");
    let x = corpus.join("run/data/triton/vadd_evict_last/x.npy");
    std::fs::copy(&x, dir.join("x.npy")).unwrap();
    let launch = std::fs::read_to_string(spec("vadd_step_limit.toml"))
        .unwrap()
        .replace("max_steps = 10\n", "")
        .replace(
            "../../../../../tests/corpus/run/data/triton/vadd_evict_last/x.npy",
            "x.npy",
        )
        .replace("../../../../../tests/corpus", &corpus.display().to_string());
    std::fs::write(dir.join("launch.toml"), launch).unwrap();
    std::fs::write(
        dir.join("spec.toml"),
        "launch = \"launch.toml\"\n[axes]\nvariant = [\"ef=loads=evict_first\"]\n",
    )
    .unwrap();
    let out = dir.join("out");
    assert!(sweep(&dir.join("spec.toml"), &out, &[]).status.success());
    assert_eq!(timings_status(&out), ["ran", "ran"]);
    assert!(sweep(&dir.join("spec.toml"), &out, &[]).status.success());
    assert_eq!(timings_status(&out), ["cached", "cached"]);
    // Same size, other values: the key changes, so both points run again.
    let mut bytes = std::fs::read(dir.join("x.npy")).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    std::fs::write(dir.join("x.npy"), bytes).unwrap();
    assert!(sweep(&dir.join("spec.toml"), &out, &[]).status.success());
    assert_eq!(timings_status(&out), ["ran", "ran"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn failing_points_are_reported_and_the_rest_run() {
    let out = scratch("failing");
    let o = sweep(&spec("failing.toml"), &out, &["--jobs", "2"]);
    assert_eq!(o.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("2 point(s) failed"), "{stderr}");
    assert!(
        stderr.contains("vadd_step_limit.toml")
            && stderr.contains("more than 10 warp-instructions"),
        "{stderr}"
    );
    let rows = rows(&out);
    assert_eq!(rows.len(), 2, "the good launch's two variants");
    assert!(rows.iter().all(|r| r["launch"]
        .as_str()
        .unwrap()
        .ends_with("triton.vadd_evict_last.sm80.toml")));
    let failures: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("failures.json")).unwrap()).unwrap();
    assert_eq!(failures.as_array().unwrap().len(), 2);
    assert_eq!(
        timings_status(&out),
        ["ran", "ran", "failed", "failed"],
        "failures are not cached"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("Failed points") && html.contains("more than 10 warp-instructions"));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn outputs_equal_is_false_where_a_variant_changes_the_result() {
    let out = scratch("stale");
    assert!(sweep(&spec("stale.toml"), &out, &[]).status.success());
    let rows = rows(&out);
    assert_eq!(
        rows.len(),
        4,
        "the original is run as the baseline though unlisted"
    );
    for r in &rows {
        let equal = r["variant"] == "original";
        assert_eq!(r["outputs_equal"], Value::Bool(equal), "{r:?}");
    }
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("2 rows whose outputs differ"));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn multi_step_launches_have_a_row_per_kernel_step() {
    let out = scratch("steps");
    assert!(sweep(&spec("cub.toml"), &out, &[]).status.success());
    let rows = rows(&out);
    // 2 variants x 2 seeds x 2 kernel steps.
    assert_eq!(rows.len(), 8);
    let steps: Vec<u64> = rows.iter().map(|r| r["step"].as_u64().unwrap()).collect();
    assert_eq!(steps, [0, 1, 0, 1, 0, 1, 0, 1]);
    assert!(rows[0]["kernel"]
        .as_str()
        .unwrap()
        .contains("DeviceReduceKernel"));
    assert!(rows[1]["kernel"]
        .as_str()
        .unwrap()
        .contains("DeviceReduceSingleTileKernel"));
    // The first kernel reads the whole input; the single-tile kernel only the partials.
    assert!(
        rows[0]["lts__t_sectors_op_read.sum"].as_u64()
            > rows[1]["lts__t_sectors_op_read.sum"].as_u64()
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("variant \\ seed"), "the spec's heatmap axes");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn bad_specs_and_options_are_explained_with_exit_2() {
    let dir = scratch("bad");
    let launch = root().join("tests/corpus/run/triton.vadd_evict_last.sm80.toml");
    let cases = [
        (
            "[axes]\nvariant = [\"original\"]\n",
            "`launch = \"PATH.toml\"` is required",
        ),
        (
            "launch = \"L\"\n[axes]\ncolour = [1]\n",
            "unknown field `colour`",
        ),
        (
            "launch = \"L\"\n[axes]\nvariant = [\"x=loads=wt\"]\n",
            "store operator",
        ),
        (
            "launch = \"L\"\n[axes]\nvariant = [\"a=strip-hints\", \"a=loads=cg\"]\n",
            "given twice",
        ),
        (
            "launch = \"L\"\n[axes]\ngpu = [\"v100\"]\n",
            "unknown GPU preset",
        ),
        (
            "launch = \"L\"\n[axes]\npersisting_l2 = [\"8 MB\"]\n",
            "is not a byte count",
        ),
        (
            "launch = \"L\"\n[axes]\npersisting_l2 = [\"1GiB\"]\n",
            "exceeds the maximum of GPU 'h100'",
        ),
        ("launch = \"L\"\n[report]\nx = \"colour\"\n", "not an axis"),
    ];
    for (i, (text, message)) in cases.iter().enumerate() {
        let path = dir.join(format!("bad{i}.toml"));
        let text = text.replace("\"L\"", &format!("{:?}", launch.display().to_string()));
        std::fs::write(&path, &text).unwrap();
        let o = sweep(&path, &dir.join(format!("out{i}")), &[]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        if *message == "not an axis" {
            // A bad heatmap axis is shown in the report, not an error of the sweep.
            assert!(o.status.success(), "{stderr}");
            let html = std::fs::read_to_string(dir.join(format!("out{i}/report.html"))).unwrap();
            assert!(
                html.contains("report axis `colour` is not an axis"),
                "{html}"
            );
            continue;
        }
        assert_eq!(o.status.code(), Some(2), "{text}: {stderr}");
        assert!(stderr.contains(message), "{text}: {stderr}");
    }
    for bad in ["0", "2000"] {
        let o = sweep(&spec("vadd.toml"), &dir.join("t"), &["--threads", bad]);
        assert_eq!(o.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(
            stderr.contains(&format!("--threads {bad}: give 1 to 1024")),
            "{stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
