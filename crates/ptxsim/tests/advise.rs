//! `ptxsim advise` as a user runs it: the rules fire on what the model saw, every suggested
//! rewrite is run and its effect reported, the JSON validates against docs/report.schema.json,
//! and `--ncu-csv` sets an Nsight Compute export beside a run.

mod common;
use common::{cli, launch, root, run_ok, temp_dir, validate_report as validate, write, Launch};

use serde_json::Value;
use std::path::Path;

/// A strided load (a 128-byte stride: one sector per lane where 4 would hold the warp's
/// bytes) of a buffer the kernel never writes, filled into L1 and never re-read.
const STRIDED: &str = r#".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 src, .param .u64 dst)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [src];
	ld.param.u64 %rd2, [dst];
	cvta.to.global.u64 %rd1, %rd1;
	cvta.to.global.u64 %rd2, %rd2;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 128;
	add.u64 %rd4, %rd1, %rd3;
	ld.global.u32 %r2, [%rd4];
	mul.wide.u32 %rd5, %r1, 4;
	add.u64 %rd6, %rd2, %rd5;
	st.global.u32 [%rd6], %r2;
	ret;
}
"#;
const LOAD_LINE: u64 = 15;

/// `advise` of [`STRIDED`] (or a variant of it) in `f`, its destination `dst`.
fn strided(f: &str, dst: &str) -> Launch {
    launch("advise", f, "k", "1", "32", &["zeros:u32:1024", dst])
}

/// [`STRIDED`] written to `dir`, advised.
fn strided_in(dir: &Path) -> Launch {
    strided(&write(dir, "k.ptx", STRIDED), "zeros:u32:32")
}

/// Runs `l` with `--report json`; the report, validated.
fn advise_json(l: &Launch) -> Value {
    let v: Value = serde_json::from_slice(&l.with(&["--report", "json"]).ok().stdout).unwrap();
    validate(&v);
    v
}

fn rule<'a>(v: &'a Value, id: &str) -> &'a Value {
    v["suggestions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["rule"] == id)
        .unwrap_or_else(|| panic!("no {id}: {:#}", v["suggestions"]))
}

#[test]
fn strided_read_only_load_gets_three_suggestions_each_measured() {
    let dir = temp_dir("strided");
    let v = advise_json(&strided_in(&dir));
    assert_eq!(v["command"], "advise");
    let u = rule(&v, "uncoalesced");
    assert_eq!(u["ptx_line"], LOAD_LINE);
    assert!(
        u["evidence"]
            .as_str()
            .unwrap()
            .contains("32 sectors touched where 4"),
        "{u}"
    );
    assert_eq!(u["rewrite"], Value::Null);
    assert_eq!(u["measured"], serde_json::json!({}));
    let fill = rule(&v, "l1-fill-unused");
    assert_eq!(
        fill["rewrite"],
        format!("l1-cg-{LOAD_LINE}=line:{LOAD_LINE}=cg")
    );
    let m = &fill["measured"];
    assert_eq!(m["outputs"], "identical");
    // .cg still looks L1 up (and misses): the L1 hit rate stays 0; DRAM bytes are the same.
    assert_eq!(m["l1_hit_rate_pct"]["rewritten"], 0.0);
    assert_eq!(m["dram_bytes"]["original"], m["dram_bytes"]["rewritten"]);
    assert!(m["time_ns"]["original"].as_f64().unwrap() > 0.0);
    let nc = rule(&v, "read-only-nc");
    assert_eq!(nc["rewrite"], format!("nc-{LOAD_LINE}=line:{LOAD_LINE}=nc"));
    assert_eq!(nc["measured"]["outputs"], "identical");
    // Every rewrite ran as a variant after the original.
    let names: Vec<&str> = v["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    assert_eq!(names[0], "original");
    assert!(
        names.contains(&format!("nc-{LOAD_LINE}").as_str()),
        "{names:?}"
    );
    let nc_variant = v["variants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == format!("nc-{LOAD_LINE}"))
        .unwrap();
    assert!(nc_variant["changes"][0]["after"]
        .as_str()
        .unwrap()
        .starts_with("ld.global.nc.u32"));
}

/// A load of a buffer the kernel writes is not suggested for `.nc` (the hazard checker sees
/// the nc-after-write when every load is made `.nc`).
#[test]
fn a_buffer_the_kernel_writes_is_not_read_only() {
    let dir = temp_dir("written");
    // dst = src: read and write the same buffer.
    let f = write(
        &dir,
        "inplace.ptx",
        STRIDED.replace("ld.param.u64 %rd2, [dst];", "ld.param.u64 %rd2, [src];"),
    );
    let v = advise_json(&strided(&f, "zeros:u32:1024"));
    assert!(
        !v["suggestions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["rule"] == "read-only-nc"),
        "{:#}",
        v["suggestions"]
    );
}

#[test]
fn text_and_html_list_the_suggestions() {
    let dir = temp_dir("text");
    let advise = strided_in(&dir);
    let text = String::from_utf8(advise.ok().stdout).unwrap();
    assert!(text.contains("Suggestions"), "{text}");
    assert!(text.contains("[uncoalesced] PTX line 15"), "{text}");
    assert!(text.contains("ran:  --variant nc-15=line:15=nc"), "{text}");
    assert!(text.contains("outputs identical"), "{text}");
    let html = String::from_utf8(advise.with(&["--report", "html"]).ok().stdout).unwrap();
    assert!(html.contains("<h2>Suggestions</h2>"));
    assert!(!html.contains("<script"));
}

/// Triton's `eviction_policy="evict_last"` loads on an L2 of 32 sets with no set-aside: their
/// evict-last requests are capped to normal, and the suggestion names the Python line.
#[test]
fn evict_last_without_set_aside_is_capped() {
    let gpu = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/sweep/a100-l2-64k.toml")
        .display()
        .to_string();
    let launch = root()
        .join("tests/corpus/run/triton.vadd_evict_last.sm80.toml")
        .display()
        .to_string();
    let v = advise_json(&cli(&["advise", "--launch", &launch, "--gpu", &gpu]));
    let c = rule(&v, "evict-last-capped");
    assert!(c["evidence"]
        .as_str()
        .unwrap()
        .contains("evict-last L2 requests were made normal"));
    assert!(c["source"].as_str().unwrap().contains(".py:"), "{c}");
    assert_eq!(c["rewrite"], Value::Null);
}

/// A multi-step launch file (CUB's argmax: a per-CTA reduction, then a single-tile reduction
/// of the partials) is advised as a whole: one JSON object, the suggestions naming their step
/// and kernel, every kernel step's counters per variant, a rewrite measured over the whole
/// launch.
#[test]
fn a_multi_step_launch_is_advised_step_by_step() {
    let file = root().join("tests/corpus/run/nvcc.cub_reduce.sm90.argmax_f32.toml");
    let file = file.to_str().unwrap();
    let v = advise_json(&cli(&["advise", "--launch", file]));
    assert_eq!(v["command"], "advise");
    let steps = v["steps"].as_array().unwrap();
    let kernels: Vec<(u64, &str)> = steps
        .iter()
        .map(|s| {
            (
                s["step"].as_u64().unwrap(),
                s["launch"]["kernel"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(kernels.len(), 2, "{kernels:?}");
    assert!(kernels[0].1.contains("DeviceReduceKernel"), "{kernels:?}");
    assert!(
        kernels[1].1.contains("DeviceReduceSingleTileKernel"),
        "{kernels:?}"
    );
    assert_eq!(
        v["launch"], steps[0]["launch"],
        "the top level repeats the first step"
    );
    let suggestions = v["suggestions"].as_array().unwrap();
    for g in suggestions {
        let at = kernels
            .iter()
            .find(|k| k.0 == g["step"].as_u64().unwrap())
            .unwrap_or_else(|| panic!("no kernel step {g}"));
        assert_eq!(g["kernel"], at.1);
    }
    // Both kernels' runs were read: each step has suggestions.
    for k in &kernels {
        assert!(
            suggestions.iter().any(|g| g["step"] == k.0),
            "no suggestion for step {}",
            k.0
        );
    }
    // A rewrite ran over the whole launch: every step has its variant, and `measured` sums
    // the steps' estimated times.
    let g = rule(&v, "read-only-nc");
    let name = g["rewrite"].as_str().unwrap().split('=').next().unwrap();
    let time = |variant: &str| -> f64 {
        steps
            .iter()
            .map(|s| {
                let v = s["variants"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|x| x["name"] == variant)
                    .unwrap_or_else(|| panic!("step {} has no variant {variant}", s["step"]));
                v["time"]["ns"].as_f64().unwrap()
            })
            .sum()
    };
    let m = &g["measured"];
    assert!((m["time_ns"]["original"].as_f64().unwrap() - time("original")).abs() < 1e-6);
    assert!((m["time_ns"]["rewritten"].as_f64().unwrap() - time(name)).abs() < 1e-6);
    assert_eq!(m["outputs"], "identical", "{g}");
    // Text: each kernel step's report, then the suggestions naming their step.
    let out = run_ok(&["advise", "--launch", file]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("== step 0: launch `"), "{text}");
    assert!(text.contains("== step 1: launch `"), "{text}");
    assert!(text.contains("] step 1 (kernel "), "{text}");
}

#[test]
fn a_single_kernel_step_file_renders_as_html() {
    let file = root().join("tests/corpus/run/nvcc.thrust_algos.sm90.transform_saxpy.toml");
    let out = run_ok(&[
        "advise",
        "--launch",
        file.to_str().unwrap(),
        "--report",
        "html",
    ]);
    let html = String::from_utf8(out.stdout).unwrap();
    assert!(html.contains("<h2>Step 0: launch `"), "{html}");
    assert!(html.contains("<h2>Suggestions</h2>"));
    assert!(html.trim_end().ends_with("</html>"));
    assert!(!html.contains("<script"));
}

/// A streamed buffer (never re-read) evicting a reused table on a 64 KiB L2: the rule names
/// both lines and runs evict_first on the stream with evict_last on the table.
#[test]
fn a_stream_evicting_a_reused_table_is_found_and_run() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let ptx = data
        .join("advise/stream_reuse.sm80.ptx")
        .display()
        .to_string();
    let gpu = data.join("sweep/a100-l2-64k.toml").display().to_string();
    let table = launch(
        "advise",
        &ptx,
        "k",
        "1",
        "32",
        &["zeros:u32:65536", "zeros:u32:8192", "zeros:u32:32"],
    );
    let v = advise_json(&table.with(&["--gpu", &gpu]));
    let s = rule(&v, "stream-evicts-reused");
    // Three comment lines precede the module: the stream is line 23, the table line 29.
    assert_eq!(s["ptx_line"], 23);
    assert_eq!(
        s["rewrite"],
        "stream-23=line:23=evict_first+line:29=evict_last"
    );
    assert!(
        s["evidence"].as_str().unwrap().contains("line 29 re-reads"),
        "{s}"
    );
    assert_eq!(s["measured"]["outputs"], "identical");
    assert!(s["measured"]["time_ns"]["rewritten"].as_f64().is_some());
}

/// `prefetch.global.L1` before the load of its line: the H100 keeps nothing in L1 for the
/// load, and the rule says so.
#[test]
fn an_l1_prefetch_is_a_hint_the_target_ignores() {
    let dir = temp_dir("prefetch");
    let f = write(
        &dir,
        "p.ptx",
        STRIDED.replace(
            "\tld.global.u32 %r2, [%rd4];",
            "\tprefetch.global.L1 [%rd4];\n\tld.global.u32 %r2, [%rd4];",
        ),
    );
    let v = advise_json(&strided(&f, "zeros:u32:32"));
    let h = rule(&v, "hint-ignored");
    assert_eq!(h["ptx_line"], LOAD_LINE);
    assert!(
        h["evidence"]
            .as_str()
            .unwrap()
            .contains("prefetch.global.L1"),
        "{h}"
    );
    assert_eq!(h["rewrite"], Value::Null);
}

/// nvcc's PTX of a gather whose load asks L2 for 256-byte blocks (`ld.global.L2::256B`, inline
/// PTX in tests/data/advise/prefetch_size.cu; gen_prefetch_size.sh).
fn prefetch_launch(stride: &str, block: &str, src_elems: &str) -> Launch {
    let ptx =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/advise/prefetch_size.sm90.ptx");
    let (src, dst) = (
        format!("zeros:f32:{src_elems}"),
        format!("zeros:f32:{block}"),
    );
    let stride = format!("s32:{stride}");
    launch(
        "advise",
        ptx.to_str().unwrap(),
        "gather_256b",
        "1",
        block,
        &[&src, &dst, &stride],
    )
}
/// The `ld.global.L2::256B` line of prefetch_size.sm90.ptx.
const PREFETCH_LINE: u64 = 42;

/// A stride of 1 KiB: every load's 256-byte block fills the neighbouring line, which no load
/// reads. The rule fires on the load and its rewrite (the size dropped) reads less from DRAM.
#[test]
fn a_256_byte_prefetch_whose_neighbour_is_never_read_is_found_and_run() {
    let v = advise_json(&prefetch_launch("256", "32", "8192"));
    let p = rule(&v, "prefetch-unused");
    assert_eq!(p["ptx_line"], PREFETCH_LINE);
    assert_eq!(p["source"], "prefetch_size.cu:10");
    assert_eq!(
        p["rewrite"],
        format!("no-prefetch-{PREFETCH_LINE}=line:{PREFETCH_LINE}=none")
    );
    let m = &p["measured"];
    assert_eq!(m["outputs"], "identical");
    let dram = &m["dram_bytes"];
    assert!(
        dram["rewritten"].as_f64().unwrap() < dram["original"].as_f64().unwrap(),
        "dropping the prefetch size reads less: {dram}"
    );
}

/// Stride 1: eight warps read 1 KiB in order, so the neighbour a block brings in is the next
/// warp's line. No suggestion.
#[test]
fn a_256_byte_prefetch_whose_neighbour_is_read_is_not_flagged() {
    let v = advise_json(&prefetch_launch("1", "256", "256"));
    let rules: Vec<&str> = v["suggestions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["rule"].as_str().unwrap())
        .collect();
    assert!(!rules.contains(&"prefetch-unused"), "{rules:?}");
    // The prefetch did fill neighbouring lines: the rule saw them used.
    let line = v["variants"][0]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["ptx_line"] == PREFETCH_LINE)
        .unwrap();
    assert!(
        line["metrics"]["ptxsim__lts_prefetch_fills.sum"]
            .as_u64()
            .unwrap()
            > 0,
        "{line}"
    );
}
