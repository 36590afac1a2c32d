//! `ptxsim run --report` and `ptxsim compare` as a user runs them: every JSON report validates
//! against docs/report.schema.json, the counters add up, the text and HTML show what they
//! claim, a rewrite that changes a kernel's result is an error, and the progress display
//! appears on a terminal only.

mod common;
use common::{demo, ptxsim, root, run_exits, run_ok, temp_dir};

use serde_json::Value;
use std::path::Path;

fn corpus(name: &str) -> String {
    root()
        .join("tests/corpus/run")
        .join(name)
        .display()
        .to_string()
}

fn data(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
        .display()
        .to_string()
}

fn schema() -> jsonschema::Validator {
    let text = std::fs::read_to_string(root().join("docs/report.schema.json")).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::draft202012::new(&schema).expect("the schema is a valid 2020-12 schema")
}

fn validate(v: &Value) {
    let validator = schema();
    let errors: Vec<String> = validator
        .iter_errors(v)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(errors.is_empty(), "schema errors: {errors:#?}");
}

fn run_json(launch: &str) -> Value {
    let out = run_ok(&["run", "--launch", launch, "--report", "json"]);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("ran `"),
        "status lines go to stderr: {stderr}"
    );
    serde_json::from_slice(&out.stdout).expect("stdout is the JSON report alone")
}

fn count(v: &Value, metric: &str) -> u64 {
    v[metric]
        .as_u64()
        .unwrap_or_else(|| panic!("{metric}: {v}"))
}

/// Totals equal the sum of the per-line counters (every request is attributed to an
/// instruction) and the raw level counters.
fn check_sums(variant: &Value) {
    let totals = &variant["totals"];
    let lines = variant["lines"].as_array().unwrap();
    for (metric, raw) in [
        (
            "dram__bytes_read.sum",
            &variant["levels"]["dram"]["bytes_read"],
        ),
        (
            "dram__bytes_write.sum",
            &variant["levels"]["dram"]["bytes_written"],
        ),
        ("lts__t_requests.sum", &variant["levels"]["l2"]["requests"]),
        (
            "l1tex__t_requests.sum",
            &variant["levels"]["l1"]["requests"],
        ),
    ] {
        let sum: u64 = lines.iter().map(|l| count(&l["metrics"], metric)).sum();
        assert_eq!(sum, count(totals, metric), "{metric}: lines vs total");
        assert_eq!(raw.as_u64(), Some(sum), "{metric}: levels vs lines");
    }
    let hits = count(totals, "lts__t_sectors_lookup_hit.sum") as f64;
    let misses = count(totals, "lts__t_sectors_lookup_miss.sum") as f64;
    if hits + misses > 0.0 {
        let pct = totals["lts__t_sector_hit_rate.pct"].as_f64().unwrap();
        assert!((pct - 100.0 * hits / (hits + misses)).abs() < 1e-9);
    }
    // Top lines are sorted by DRAM traffic and are rows of `lines`.
    let dram = |line: u64| {
        let row = lines
            .iter()
            .find(|l| l["ptx_line"].as_u64() == Some(line))
            .expect("a top line is a row");
        count(&row["metrics"], "dram__bytes_read.sum")
            + count(&row["metrics"], "dram__bytes_write.sum")
    };
    let top: Vec<u64> = variant["top_dram_lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    assert!(top.windows(2).all(|w| dram(w[0]) >= dram(w[1])));
}

#[test]
fn run_json_reports_validate_and_add_up() {
    for launch in [
        corpus("triton.vadd_evict_last.sm80.toml"),
        corpus("triton.softmax.sm80.toml"),
        corpus("triton.matmul_fp16.sm80.toml"),
        corpus("nvcc.stencil2d.lineinfo.sm80.stencil2d_5pt.toml"),
        corpus("nvcc.cp_async_gemm.sm80.sgemm_cp_async.toml"),
        corpus("nvcc.cache_intrinsics.sm80.mix_ldcg_ldcv_stcg.toml"),
        data("stale_flag.sm80.toml"),
    ] {
        let report = run_json(&launch);
        validate(&report);
        assert_eq!(report["command"], "run");
        let variants = report["variants"].as_array().unwrap();
        assert_eq!(variants.len(), 1, "{launch}");
        assert_eq!(variants[0]["outputs"]["status"], "baseline");
        check_sums(&variants[0]);
        assert!(
            count(&variants[0]["totals"], "smsp__inst_executed.sum") > 0,
            "{launch}"
        );
    }
}

#[test]
fn line_information_maps_rows_to_source_lines() {
    let report = run_json(&corpus("nvcc.stencil2d.lineinfo.sm80.stencil2d_5pt.toml"));
    let v = &report["variants"][0];
    let sources = v["source_lines"].as_array().unwrap();
    assert!(!sources.is_empty());
    // The __ldg loads are inlined from sm_32_intrinsics.hpp: source rows are the call sites
    // in the user's stencil2d.cu, the rows keep the header's line as `source`.
    assert!(
        sources
            .iter()
            .all(|s| s["file"].as_str().unwrap().ends_with("stencil2d.cu")),
        "{sources:#?}"
    );
    let nc_rows: Vec<&Value> = v["lines"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["text"].as_str().unwrap().starts_with("ld.global.nc"))
        .collect();
    assert!(!nc_rows.is_empty());
    for row in nc_rows {
        assert!(row["source"]["file"]
            .as_str()
            .unwrap()
            .ends_with("sm_32_intrinsics.hpp"));
        assert!(row["inlined_at"]["file"]
            .as_str()
            .unwrap()
            .ends_with("stencil2d.cu"));
    }
    // Each source row sums the PTX lines it lists.
    for s in sources {
        let listed: Vec<u64> = s["ptx_lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        let sum: u64 = v["lines"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|l| listed.contains(&l["ptx_line"].as_u64().unwrap()))
            .map(|l| count(&l["metrics"], "lts__t_sectors.sum"))
            .sum();
        assert_eq!(sum, count(&s["metrics"], "lts__t_sectors.sum"));
    }
    // Without .loc there are no source rows.
    let report = run_json(&corpus("nvcc.cp_async_gemm.sm80.sgemm_cp_async.toml"));
    assert_eq!(report["variants"][0]["source_lines"], Value::Array(vec![]));
}

#[test]
fn the_schema_rejects_malformed_reports() {
    let good = run_json(&corpus("triton.vadd_evict_last.sm80.toml"));
    validate(&good);
    let validator = schema();
    let mut missing = good.clone();
    missing["variants"][0]
        .as_object_mut()
        .unwrap()
        .remove("levels");
    let mut bad_rate = good.clone();
    bad_rate["variants"][0]["totals"]["lts__t_sector_hit_rate.pct"] = 150.0.into();
    let mut unknown = good.clone();
    unknown["variants"][0]["lines"][0]["extra"] = 1.into();
    let mut version = good.clone();
    version["version"] = 3.into();
    let mut bad_name = good.clone();
    bad_name["variants"][0]["totals"]["L2 hit rate"] = 1.into();
    for (what, v) in [
        ("missing levels", missing),
        ("rate over 100", bad_rate),
        ("unknown field", unknown),
        ("other version", version),
        ("metric name", bad_name),
    ] {
        assert!(!validator.is_valid(&v), "{what} should be rejected");
    }
}

#[test]
fn text_report_names_metrics_lines_and_sources() {
    let out = run_ok(&[
        "run",
        "--launch",
        &corpus("triton.vadd_evict_last.sm80.toml"),
        "--report",
        "text",
    ])
    .stdout;
    let text = String::from_utf8(out).unwrap();
    for needle in [
        "l1tex__t_sector_hit_rate.pct",
        "lts__t_sector_hit_rate.pct",
        "dram__bytes_read.sum",
        "dram__bytes_write.sum",
        "Evictions by priority class",
        "Top lines by DRAM traffic",
        "Per source line (.loc)",
        // The first hinted load of the Triton kernel, its text and its .loc line.
        "ld.global.L1::evict_last.L2::cache_hint.v4.b32",
        "kernels.py:20",
    ] {
        assert!(text.contains(needle), "missing `{needle}`:\n{text}");
    }
    let ptx = std::fs::read_to_string(root().join("tests/corpus/triton/vadd_evict_last.sm80.ptx"))
        .unwrap();
    let first_load = ptx
        .lines()
        .position(|l| l.contains("ld.global.L1::evict_last"))
        .unwrap()
        + 1;
    assert!(
        text.lines()
            .any(|l| l.trim_start().starts_with(&format!("{first_load} "))),
        "row for PTX line {first_load}:\n{text}"
    );
}

#[test]
fn html_report_is_self_contained_with_its_charts() {
    let dir = temp_dir("html");
    let path = dir.join("r.html");
    let out = run_ok(&[
        "run",
        "--launch",
        &demo(),
        "--report",
        "html",
        "--report-out",
        path.to_str().unwrap(),
    ]);
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains("ran `matmul_kernel`"));
    let html = std::fs::read_to_string(&path).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(!html.contains("<script"), "no scripts");
    assert!(!html.contains("<link"), "no external stylesheets");
    let without_ns = html.replace("http://www.w3.org/2000/svg", "");
    assert!(
        !without_ns.contains("http://") && !without_ns.contains("https://"),
        "no network references"
    );
    for needle in [
        "Sector hit rate per level",
        "DRAM bytes per source line",
        "L2 occupancy by eviction priority class",
        "Top lines by DRAM traffic",
        "kernels.py:154",
        "<path d=\"M",
    ] {
        assert!(html.contains(needle), "missing `{needle}`");
    }
    assert!(html.matches("<svg").count() >= 4);
}

#[test]
fn compare_demo_prints_the_table_and_all_outputs_match() {
    let dir = temp_dir("demo");
    let json = dir.join("demo.json");
    let out = run_ok(&[
        "compare",
        "--launch",
        &demo(),
        "--variant",
        "l1=cp.async=ca",
        "--variant",
        "persist=cp.async=policy:fraction:1.0:evict_last",
        "--variant",
        "prefetch=cp.async=.L2::256B",
        "--report",
        "json",
        "--report-out",
        json.to_str().unwrap(),
    ]);
    let table = String::from_utf8(out.stdout).unwrap();
    for needle in [
        "original",
        "l1",
        "persist",
        "prefetch",
        "identical",
        "L2 hit rate",
    ] {
        assert!(table.contains(needle), "missing `{needle}`:\n{table}");
    }
    assert!(!table.contains("DIFFERENT"));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("expect: argument 2 matches"), "{stderr}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    validate(&report);
    assert_eq!(report["command"], "compare");
    let v = report["variants"].as_array().unwrap();
    assert_eq!(v.len(), 4);
    assert_eq!(v[0]["name"], "original");
    let ptx = std::fs::read_to_string(root().join("examples/matmul_fp16.sm80.ptx")).unwrap();
    let cp_async_lines = ptx.lines().filter(|l| l.contains("cp.async.cg")).count();
    for variant in &v[1..] {
        assert_eq!(variant["outputs"]["status"], "identical");
        assert_eq!(
            variant["changes"].as_array().unwrap().len(),
            cp_async_lines,
            "every cp.async line is rewritten"
        );
        check_sums(variant);
    }
    // cp.async.ca routes the tiles through L1; .cg bypasses it (its sectors pass L1's tag
    // stage as misses, but no line is allocated).
    let l1_allocations = |x: &Value| x["levels"]["l1"]["allocations"].as_u64().unwrap();
    assert!(l1_allocations(&v[1]) > l1_allocations(&v[0]));
    // The evict-last policy leaves evict-last lines in L2; the original has none.
    assert_eq!(v[0]["l2_timeline"]["end"]["evict_last"], 0);
    assert!(v[2]["l2_timeline"]["end"]["evict_last"].as_u64().unwrap() > 0);
    // The prefetch-size hint fills extra sectors.
    assert!(count(&v[3]["totals"], "ptxsim__lts_prefetch_fills.sum") > 0);
    assert_eq!(count(&v[0]["totals"], "ptxsim__lts_prefetch_fills.sum"), 0);
}

#[test]
fn a_rewrite_that_changes_the_result_is_an_error() {
    // stale_flag reads a flag-protected value with weak .ca loads: the second read hits SM 0's
    // stale L1 copy. Routing loads around L1 (.cg) reads the new value: the output changes.
    let dir = temp_dir("stale");
    let json = dir.join("stale.json");
    let out = run_exits(
        1,
        &[
            "compare",
            "--launch",
            &data("stale_flag.sm80.toml"),
            "--variant",
            "cg=loads=cg",
            "--variant",
            "ef=loads=evict_first",
            "--report",
            "json",
            "--report-out",
            json.to_str().unwrap(),
        ],
    );
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(
        table.contains(
            "error: variant `cg` changed the result: argument 1 differs from the baseline in 1 of 2 u32 elements; first at [0]: 42 (baseline 0)"
        ),
        "{table}"
    );
    assert!(table.contains("DIFFERENT"));
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    validate(&report);
    let v = report["variants"].as_array().unwrap();
    assert_eq!(count(&v[0]["totals"], "ptxsim__l1_stale_reads.sum"), 1);
    assert_eq!(v[1]["outputs"]["status"], "different");
    assert_eq!(v[1]["outputs"]["differences"][0]["arg"], 1);
    // evict_first keeps the L1 path: the same stale value, the same result.
    assert_eq!(v[2]["outputs"]["status"], "identical");

    // The same variant alone, text only: exit 1 as well.
    ptxsim()
        .args([
            "compare",
            "--launch",
            &data("stale_flag.sm80.toml"),
            "--variant",
            "cg=loads=cg",
        ])
        .assert()
        .code(1);
}

#[test]
fn bad_variants_are_explained_with_exit_2() {
    for (variant, message) in [
        ("nameonly", "write NAME=REWRITE"),
        ("x=loads=wt", "store operator"),
        ("original=strip-hints", "unique"),
        (
            "x=line:5=.L2::evict_last",
            "no ld, st, cp.async or prefetch instruction on line 5",
        ),
    ] {
        let out = run_exits(
            2,
            &[
                "compare",
                "--launch",
                &corpus("triton.vadd_evict_last.sm80.toml"),
                "--variant",
                variant,
            ],
        )
        .stderr;
        let err = String::from_utf8(out).unwrap();
        assert!(err.contains(message), "{variant}: {err}");
    }
}

const SPIN: [&str; 10] = [
    "run",
    "PTX",
    "--kernel",
    "spin",
    "--grid",
    "1",
    "--block",
    "1",
    "--arg",
    "zeros:u32:1",
];

#[test]
fn no_progress_display_without_a_terminal() {
    let ptx = data("spin.sm80.ptx");
    let mut args: Vec<String> = SPIN.iter().map(|s| s.to_string()).collect();
    args[1] = ptx;
    args.extend(["--arg".into(), "s32:8000000".into()]);
    // No delay: the display would show at once on a terminal, whatever the machine's speed.
    let out = ptxsim()
        .env("PTXSIM_PROGRESS_DELAY_MS", "0")
        .args(&args)
        .assert()
        .success()
        .get_output()
        .clone();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.is_empty(),
        "nothing on a non-terminal stderr: {stderr:?}"
    );
}

#[test]
fn progress_display_on_a_terminal() {
    // `script` (util-linux) gives the command a pseudo-terminal.
    let bin = assert_cmd::cargo::cargo_bin("ptxsim");
    let cmd = format!(
        "{} run {} --kernel spin --grid 1 --block 1 --arg zeros:u32:1 --arg s32:8000000",
        bin.display(),
        data("spin.sm80.ptx")
    );
    // No delay, so the display shows however fast the machine runs the kernel.
    let out = std::process::Command::new("script")
        .env("PTXSIM_PROGRESS_DELAY_MS", "0")
        .args(["-qec", &cmd, "/dev/null"])
        .output()
        .expect("script (util-linux) runs");
    assert!(out.status.success());
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(
        screen.contains("spin: ")
            && screen.contains("warp-instructions, ")
            && screen.contains("M/s"),
        "{screen}"
    );
    assert!(screen.contains("ran `spin`"));
}

#[test]
fn the_readme_first_command_runs_the_demo() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let first = readme
        .lines()
        .find(|l| l.starts_with("cargo run"))
        .expect("the README starts with a cargo run command");
    let command = first.split('#').next().unwrap();
    let args: Vec<&str> = command
        .split_once(" -- ")
        .expect("cargo run ... -- ARGS")
        .1
        .split_whitespace()
        .collect();
    assert_eq!(args[0], "compare", "{first}");
    let out = ptxsim()
        .current_dir(root())
        .args(&args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let table = String::from_utf8(out).unwrap();
    assert!(table.contains("lts__t_sector_hit_rate.pct"), "{table}");
    let outputs = table
        .lines()
        .find(|l| l.trim_start().starts_with("outputs"))
        .unwrap();
    assert_eq!(
        outputs.matches("identical").count(),
        args.iter().filter(|a| **a == "--variant").count()
    );
}

/// A multi-step launch file (CUB's radix sort: several kernels over shared buffers) gives one
/// run report per kernel step: each validates against the schema, names its step's kernel and
/// grid in order, and counts that step alone — the steps' counters add up to those of the
/// whole sequence run in one go through the library (with `--cache-control none` the caches
/// keep their contents between steps; only the counters restart).
#[test]
fn multi_step_launch_reports_one_run_per_kernel_step() {
    use ptxsim::launch::{load_session, prepare_steps, LaunchFile, PreparedStep};
    let file = corpus("nvcc.cub_radix_sort.sm80.sort_pairs_f32.toml");
    let out = ptxsim()
        .args(["run", "--launch", &file, "--report", "json"])
        .args(["--cache-control", "none"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reports: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();

    // The same sequence through the library, counters never reset.
    let (lf, base) = LaunchFile::read(Path::new(&file)).unwrap();
    let gpu = memsys::GpuConfig::preset(lf.gpu.as_deref().unwrap_or("h100")).unwrap();
    let session = load_session(&base.join(&lf.ptx), gpu).unwrap();
    let mut p = prepare_steps(session, &lf, &base).unwrap();
    let config = ptx_exec::LaunchConfig {
        seed: lf.seed,
        ..Default::default()
    };
    let mut kernels = Vec::new();
    let mut thread_instructions = Vec::new();
    for i in 0..p.steps.len() {
        if let Some(s) = p.run_step(i, &config).unwrap() {
            let PreparedStep::Launch { kernel, grid, .. } = &p.steps[i] else {
                panic!("step {i} ran a kernel but is not a launch");
            };
            kernels.push((kernel.clone(), *grid));
            thread_instructions.push(s.thread_instructions);
        }
    }
    assert!(kernels.len() >= 3, "{} kernel steps", kernels.len());
    assert_eq!(reports.len(), kernels.len());
    let whole = p.session.mem.stats().total();
    let mut sums = [0u64; 5];
    for (r, ((kernel, grid), ti)) in reports.iter().zip(kernels.iter().zip(&thread_instructions)) {
        validate(r);
        assert_eq!(r["launch"]["kernel"], kernel.as_str());
        assert_eq!(r["launch"]["grid"], serde_json::json!(grid));
        let v = &r["variants"][0];
        assert_eq!(v["run"]["thread_instructions"], *ti);
        let t = &v["totals"];
        for (s, k) in sums.iter_mut().zip([
            "l1tex__t_sectors.sum",
            "lts__t_sectors.sum",
            "lts__t_sectors_lookup_hit.sum",
            "dram__bytes_read.sum",
            "dram__bytes_write.sum",
        ]) {
            *s += t[k].as_u64().unwrap_or_else(|| panic!("{k} in {t}"));
        }
    }
    assert_eq!(
        sums,
        [
            whole.l1.read_sectors + whole.l1.write_sectors,
            whole.l2.read_sectors + whole.l2.write_sectors,
            whole.l2.all_lookup_hits(),
            whole.dram.bytes_read,
            whole.dram.bytes_written,
        ],
        "per-step counters must add up to the whole sequence's"
    );
    assert!(sums[1] > 0 && sums[3] > 0, "{sums:?}");

    // Text: one section per kernel step; HTML is refused with a reason.
    let out = ptxsim()
        .args(["run", "--launch", &file, "--report", "text"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.matches("\n== step ").count() + usize::from(text.starts_with("== step ")),
        kernels.len()
    );
    let out = ptxsim()
        .args(["run", "--launch", &file, "--report", "html"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--report text or --report json"));
}

/// By default (`--cache-control all`, as Nsight Compute) every kernel step starts with an
/// empty L2: a step that reads what the previous one wrote misses in L2, as on the H100
/// (`cub_radix_sort.sort_keys_u32#2`: 128 read sectors, 128 misses); with `none` L2 holds
/// them: each is found in the reader's near partition or, over the fabric, at its home.
#[test]
fn cache_control_all_starts_each_kernel_step_with_a_cold_l2() {
    let file = corpus("nvcc.cub_radix_sort.sm80.sort_keys_u32.toml");
    let reads = |mode: &str| -> Vec<(u64, u64)> {
        let out = ptxsim()
            .args([
                "run",
                "--launch",
                &file,
                "--report",
                "json",
                "--cache-control",
                mode,
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let reports: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
        reports
            .iter()
            .map(|r| {
                let l2 = &r["variants"][0]["levels"]["l2"];
                let n = |k: &str| l2[k].as_u64().unwrap();
                // (sectors found in L2, sectors read).
                (n("read_hits") + n("fabric_read_hits"), n("read_sectors"))
            })
            .collect()
    };
    let cold = reads("all");
    let warm = reads("none");
    assert_eq!(cold.len(), warm.len());
    // Step 2 reads the 128 sectors step 1 wrote.
    assert_eq!(cold[2], (0, 128));
    assert_eq!(warm[2], (128, 128));
    assert!(cold.iter().map(|c| c.0).sum::<u64>() < warm.iter().map(|w| w.0).sum::<u64>());
}

/// `compare` on a multi-step launch file (CUB's sum: two kernel steps): every variant runs the
/// whole launch; one JSON report with each step's counters per variant; a table per step.
#[test]
fn compare_runs_every_step_of_a_multi_step_launch_per_variant() {
    let file = corpus("nvcc.cub_reduce.sm90.sum_i32.toml");
    let args = [
        "compare",
        "--launch",
        &file,
        "--variant",
        "ef=loads=evict_first",
    ];
    let out = run_ok(&[&args[..], &["--report", "json"]].concat());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    common::validate_report(&v);
    assert_eq!(v["command"], "compare");
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    for s in steps {
        let names: Vec<&str> = s["variants"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["original", "ef"], "step {}", s["step"]);
        assert_eq!(s["variants"][1]["outputs"]["status"], "identical");
    }
    // The second kernel reads the first one's partials: its loads ran under the rewrite too.
    let ef = &steps[1]["variants"][1];
    assert!(
        !ef["changes"].as_array().unwrap().is_empty(),
        "the second kernel's loads were rewritten: {ef}"
    );
    let text = String::from_utf8(run_ok(&args).stdout).unwrap();
    assert!(text.contains("== step 0: launch `"), "{text}");
    assert!(text.contains("== step 1: launch `"), "{text}");
}
