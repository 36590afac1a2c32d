//! Reports name the user's line for code inlined from libcu++ (issue 32): every per-line entry
//! carries `call_site`, the outermost frame of its `.loc … inlined_at` chain, in JSON, text,
//! HTML and hazards; per-source-line tables group by it. The kernel is real nvcc output
//! (tests/data/libcu_attribution: the .cu, its generator and the PTX): two
//! `cuda::annotated_ptr` loads, the four `cuda::memcpy_async` of a tiled matmul, and a
//! `memcpy_async` whose tile is read before the pipeline wait.

mod common;
use common::{run_ok, temp_dir};

use serde_json::Value;
use std::path::Path;

fn ptx() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/libcu_attribution/libcu_tiled.lineinfo.sm90.ptx")
        .display()
        .to_string()
}

const MATMUL: &[&str] = &[
    "--kernel",
    "tiled_matmul",
    "--grid",
    "2,2",
    "--block",
    "16,16",
    "--arg",
    "zeros:f32:1024",
    "--arg",
    "zeros:f32:1024",
    "--arg",
    "zeros:f32:1024",
    "--arg",
    "u32:32",
];
const AXPY: &[&str] = &[
    "--kernel",
    "annotated_axpy",
    "--grid",
    "1",
    "--block",
    "256",
    "--arg",
    "zeros:f32:256",
    "--arg",
    "zeros:f32:256",
    "--arg",
    "zeros:f32:256",
    "--arg",
    "f32:2",
    "--arg",
    "u32:256",
];

fn report(launch: &[&str], format: &str) -> Vec<u8> {
    let p = ptx();
    let mut args = vec!["run", p.as_str()];
    args.extend_from_slice(launch);
    args.extend_from_slice(&["--report", format]);
    run_ok(&args).stdout
}

/// (PTX line, call-site line, inner file's base name) of every line of `text`'s instruction.
fn sites(v: &Value, needle: &str) -> Vec<(u64, u64, String)> {
    v["variants"][0]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["text"].as_str().unwrap().contains(needle))
        .map(|l| {
            let site = &l["call_site"];
            assert!(
                site["file"].as_str().unwrap().ends_with("libcu_tiled.cu"),
                "{l}"
            );
            let inner = l["source"]["file"].as_str().unwrap();
            let base = inner.rsplit('/').next().unwrap().to_string();
            (
                l["ptx_line"].as_u64().unwrap(),
                site["line"].as_u64().unwrap(),
                base,
            )
        })
        .collect()
}

#[test]
fn memcpy_async_lines_name_the_users_calls() {
    let v: Value = serde_json::from_slice(&report(MATMUL, "json")).unwrap();
    let cp = sites(&v, "cp.async.ca");
    // A and B tiles, before the loop and in it: four user lines, not one header line.
    let lines: Vec<(u64, u64)> = cp.iter().map(|c| (c.0, c.1)).collect();
    assert_eq!(
        lines,
        [(191, 38), (214, 39), (261, 45), (281, 46)],
        "{cp:?}"
    );
    assert!(
        cp.iter().all(|c| c.2 == "cp_async_shared_global.h"),
        "{cp:?}"
    );
    // Per source line: grouped by the call site.
    let rows: Vec<u64> = v["variants"][0]["source_lines"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["file"].as_str().unwrap().ends_with("libcu_tiled.cu"))
        .map(|r| r["line"].as_u64().unwrap())
        .collect();
    for line in [38, 39, 45, 46] {
        assert!(rows.contains(&line), "{rows:?}");
    }
    assert!(
        v["variants"][0]["source_lines"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| !r["file"].as_str().unwrap().ends_with(".h")),
        "no header rows"
    );
    let text = String::from_utf8(report(MATMUL, "text")).unwrap();
    assert!(
        text.contains("libcu_tiled.cu:38 (in cp_async_shared_global.h:"),
        "{text}"
    );
    let html = String::from_utf8(report(MATMUL, "html")).unwrap();
    assert!(
        html.contains("libcu_tiled.cu:46 (in cp_async_shared_global.h:"),
        "html"
    );
}

#[test]
fn annotated_loads_name_the_users_lines() {
    let v: Value = serde_json::from_slice(&report(AXPY, "json")).unwrap();
    let loads = sites(&v, "ld.global.L2::cache_hint");
    let lines: Vec<(u64, u64)> = loads.iter().map(|c| (c.0, c.1)).collect();
    assert_eq!(lines, [(93, 19), (113, 20)], "{loads:?}");
    // A line that is not inlined has its `.loc` as the call site.
    let st = v["variants"][0]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["text"].as_str().unwrap().starts_with("st.global"))
        .unwrap()
        .clone();
    assert_eq!(st["call_site"], st["source"]);
    assert_eq!(st["inlined_at"], Value::Null);
}

#[test]
fn hazards_name_the_users_lines() {
    let dir = temp_dir("racy");
    let json = dir.join("hazards.json");
    let p = ptx();
    let out = run_ok(&[
        "run",
        &p,
        "--kernel",
        "racy_tile",
        "--grid",
        "1",
        "--block",
        "128",
        "--arg",
        "zeros:f32:128",
        "--arg",
        "zeros:f32:128",
        "--hazards",
        "--hazards-json",
        json.to_str().unwrap(),
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("libcu_tiled.cu:66, in cp_async_shared_global.h"),
        "the conflicting memcpy_async at the user's line: {text}"
    );
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let h = &v["hazards"][0];
    assert!(
        h["conflict"]["call_site"]
            .as_str()
            .unwrap()
            .ends_with("libcu_tiled.cu:66"),
        "{h}"
    );
    assert!(h["access"]["call_site"]
        .as_str()
        .unwrap()
        .ends_with("libcu_tiled.cu:68"));
}
