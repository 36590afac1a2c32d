//! `--ncu-csv` on `run` and `compare`: a user's `ncu --csv --page raw` export beside ptxsim's
//! counters. The exports here are written in the raw page's layout (header row, units row,
//! one quoted row per launch, thousands separators, `==PROF==` lines, scaled units, several
//! kernels and launches); they are hand-made. A real export (tests/data/ncu/README.md, from a
//! public repository) is read too.

mod common;
use common::{launch, temp_dir, validate_report, write, Launch};

use serde_json::Value;
use std::path::Path;

const MODULE: &str = r#".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	ld.global.u32 %r2, [%rd3];
	add.u32 %r2, %r2, 1;
	st.global.u32 [%rd3], %r2;
	ret;
}
"#;

const EXPORT: &str = r#"==PROF== Connected to process 4242 (/home/u/app)
==PROF== Profiling "k": 0%....50%....100% - 9 passes
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","dram__bytes_read.sum","gpu__time_duration.sum","lts__t_sectors.sum","sm__throughput.avg.pct_of_peak_sustained_elapsed"
"","","","","","","","","","","","Kbyte","usecond","sector","%"
"0","4242","app","host","other(float *)","1","7","(256, 1, 1)","(1, 1, 1)","0","9.0","9.99","9.00","9","1.00"
"1","4242","app","host","k","1","7","(32, 1, 1)","(1, 1, 1)","0","9.0","1.15","2.94","1,024","0.52"
"2","4242","app","host","k","1","7","(32, 1, 1)","(1, 1, 1)","0","9.0","0.13","2.50","8","0.50"
==PROF== Disconnected from process 4242
"#;

fn files(dir: &Path) -> (String, String) {
    (write(dir, "k.ptx", MODULE), write(dir, "k.csv", EXPORT))
}

/// `cmd` of `k` (one warp over 32 words) with the export `csv`.
fn k(cmd: &str, ptx: &str, csv: &str) -> Launch {
    launch(cmd, ptx, "k", "1", "32", &["zeros:u32:32"]).with(&["--ncu-csv", csv])
}

fn rows(v: &Value) -> std::collections::BTreeMap<String, Value> {
    v["ncu"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["metric"].as_str().unwrap().to_string(), r.clone()))
        .collect()
}

#[test]
fn run_sets_the_first_launch_of_the_kernel_beside_its_metrics() {
    let dir = temp_dir("run");
    let (ptx, csv) = files(&dir);
    let v: Value =
        serde_json::from_slice(&k("run", &ptx, &csv).with(&["--report", "json"]).ok().stdout)
            .unwrap();
    validate_report(&v);
    assert_eq!(v["ncu"]["launch_id"], "1");
    let r = rows(&v);
    // Kbyte -> bytes, usecond -> ns, thousands separators.
    assert_eq!(r["dram__bytes_read.sum"]["measured"], 1150.0);
    assert_eq!(r["gpu__time_duration.sum"]["measured"], 2940.0);
    assert_eq!(r["lts__t_sectors.sum"]["measured"], 1024.0);
    let ours = r["lts__t_sectors.sum"]["ptxsim"].as_f64().unwrap();
    assert_eq!(
        r["lts__t_sectors.sum"]["difference"].as_f64().unwrap(),
        ours - 1024.0
    );
    assert_eq!(
        v["ncu"]["unmatched"], 1,
        "sm__throughput has no counterpart"
    );
    // --ncu-launch 1: the kernel's second launch; text implied without --report.
    let out = k("run", &ptx, &csv).with(&["--ncu-launch", "1"]).ok();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("launch ID 2"), "{text}");
    assert!(text.contains("lts__t_sectors.sum"), "{text}");
}

#[test]
fn compare_sets_it_beside_the_original() {
    let dir = temp_dir("compare");
    let (ptx, csv) = files(&dir);
    let out = k("compare", &ptx, &csv)
        .with(&["--variant", "cg=loads=cg", "--report", "json"])
        .ok();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    validate_report(&v);
    let r = rows(&v);
    let original = &v["variants"][0]["totals"]["lts__t_sectors.sum"];
    assert_eq!(
        r["lts__t_sectors.sum"]["ptxsim"],
        original.as_f64().unwrap()
    );
}

#[test]
fn bad_exports_fail_before_the_run() {
    let dir = temp_dir("bad");
    let (ptx, csv) = files(&dir);
    let details = write(
        &dir,
        "details.csv",
        "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n",
    );
    for (file, nth, want) in [
        (details.as_str(), "0", "--page raw"),
        (csv.as_str(), "5", "has 2 launch(es)"),
    ] {
        let out = k("run", &ptx, file).with(&["--ncu-launch", nth]).exits(2);
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(want), "{err}");
        assert!(!err.contains("ran `"), "before the run: {err}");
    }
    let other = write(&dir, "other.csv", EXPORT.replace("\"k\"", "\"kk\""));
    let out = k("run", &ptx, &other).exits(2);
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("no launch of `k`"));
}

/// A real export (tests/data/ncu/README.md: romnn/microgpusim, ncu on a GTX 1080, three
/// launches of `vecAdd`), read as it was printed: the program's output and `==PROF==` lines
/// first, the units row, thousands separators, list cells.
const REAL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/ncu/microgpusim_vectoradd_gtx1080.txt"
);

#[test]
fn a_real_export_is_read_launch_by_launch() {
    use ptxsim_report::ncu::NcuCsv;
    let text = std::fs::read_to_string(REAL).unwrap();
    let csv = NcuCsv::parse(&text).unwrap();
    // Figures read off the file with Python's csv module, not with this parser.
    let ids: Vec<&str> = csv.launches.iter().map(|l| l.id.as_str()).collect();
    assert_eq!(ids, ["0", "1", "2"]);
    let value = |l: &ptxsim_report::ncu::NcuLaunch, name: &str| {
        l.metrics
            .iter()
            .find(|m| m.0 == name)
            .map(|m| (m.1, m.2.clone()))
    };
    for (nth, dram_read) in [(0, 7552.0), (1, 3264.0), (2, 2176.0)] {
        let l = csv.launch_of("vecAdd", nth).unwrap();
        assert_eq!(l.id, nth.to_string());
        assert_eq!(l.kernel, "vecAdd");
        // 384 numeric metric cells per launch; `Kernel Time`, the device's name and the list
        // cells (`"32.00; 32.00; …"`) are not numbers.
        assert_eq!(l.metrics.len(), 384, "launch {nth}");
        assert_eq!(
            value(l, "dram__read_bytes"),
            Some((dram_read, "byte".into()))
        );
        assert_eq!(value(l, "gpu__time_duration"), Some((2720.0, "ns".into())));
        // `"1,759,000.00"` under an empty unit.
        assert_eq!(
            value(l, "device__attribute_clock_rate"),
            Some((1_759_000.0, String::new()))
        );
        assert_eq!(value(l, "inst_executed"), None, "a list cell");
        assert_eq!(value(l, "Kernel Time"), None);
    }
    let err = csv.launch_of("vecAdd", 3).unwrap_err().to_string();
    assert!(err.contains("has 3 launch(es)"), "{err}");
    let err = csv.launch_of("saxpy", 0).unwrap_err().to_string();
    assert!(err.contains("its kernels: vecAdd"), "{err}");
}

#[test]
fn run_reads_a_real_export_for_a_kernel_of_that_name() {
    let dir = temp_dir("real");
    let ptx = write(&dir, "v.ptx", MODULE.replace(".entry k(", ".entry vecAdd("));
    let out = launch("run", &ptx, "vecAdd", "1", "32", &["zeros:u32:32"])
        .with(&["--ncu-csv", REAL, "--ncu-launch", "2", "--report", "json"])
        .ok();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    validate_report(&v);
    assert_eq!(v["ncu"]["launch_id"], "2");
    assert_eq!(v["ncu"]["kernel"], "vecAdd");
    // Pascal's metric names are not the ones ptxsim reports: nothing to set beside them.
    assert_eq!(v["ncu"]["rows"].as_array().unwrap().len(), 0);
    assert_eq!(v["ncu"]["unmatched"], 384);
}
