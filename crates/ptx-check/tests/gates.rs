//! ptxas parity on the target and version gates of every instruction: tests/parity/gates.jsonl.gz
//! holds (a) `probe` cases — one instruction form of the real corpus or of the PTX ISA's common
//! forms in a minimal module, at every target (PTX 9.5) and at the versions around each of its
//! gates — and (b) `retarget` cases — the real nvcc/Triton modules of tests/corpus/ retargeted to
//! the targets and versions just below and at the gates of their instructions, plus random ones —
//! with real ptxas 13.5's exit code and complete output (tests/parity/gen_gates.py). This test
//! rebuilds each module, checks it and compares our verdict and `--format ptxas` output.
//!
//! Asserted: the verdict agrees on every case except the listed deviations (each with its
//! reason), and the exact output on at least `EXACT_TARGET` of the cases.
//! `GATES_DUMP=FILE` writes every disagreement as JSON lines.

use ptx_check::{check_source, render, CheckOptions};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::PathBuf;

#[derive(Deserialize)]
struct Case {
    id: String,
    kind: String,
    // probe cases
    insn: Option<String>,
    #[serde(rename = "mod")]
    module_decls: Option<Vec<String>>,
    #[serde(rename = "fn")]
    fn_decls: Option<Vec<String>>,
    // retarget cases
    base: Option<String>,
    edits: Option<Vec<(usize, usize, Vec<String>)>>,
    target: String,
    version: String,
    exit: i64,
    raw: String,
    crash: bool,
}

/// Verdict deviations we know of, with the reason.
const KNOWN_DEVIATIONS: &[(&str, &str)] = &[];

/// Share of cases whose complete ptxas output we reproduce byte for byte.
const EXACT_TARGET: f64 = 0.99;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn version_at_least(v: &str, major: u32, minor: u32) -> bool {
    let (a, b) = v.split_once('.').unwrap();
    (a.parse::<u32>().unwrap(), b.parse::<u32>().unwrap()) >= (major, minor)
}

/// gen_gates.py's `probe_module`.
fn probe_module(c: &Case) -> String {
    let mut lines = vec![
        format!(".version {}", c.version),
        format!(".target {}", c.target),
        if version_at_least(&c.version, 2, 3) {
            ".address_size 64".to_string()
        } else {
            String::new()
        },
    ];
    lines.extend(c.module_decls.clone().unwrap_or_default());
    lines.push(".visible .entry probe()".into());
    lines.push("{".into());
    for d in c.fn_decls.clone().unwrap_or_default() {
        lines.push(format!("\t{d}"));
    }
    lines.push(format!("\t{};", c.insn.as_deref().unwrap()));
    lines.push("\tret;".into());
    lines.push("}".into());
    lines.push(String::new());
    lines.join("\n")
}

fn module_text(c: &Case, cache: &mut BTreeMap<String, Vec<String>>) -> String {
    if c.kind == "probe" {
        return probe_module(c);
    }
    let base = c.base.as_ref().expect("a retarget case has a base file");
    let lines = cache.entry(base.clone()).or_insert_with(|| {
        let path = repo().join("tests/corpus").join(base);
        std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .split('\n')
            .map(str::to_string)
            .collect()
    });
    let mut out = lines.clone();
    let mut edits = c.edits.clone().unwrap_or_default();
    edits.sort_by_key(|e| std::cmp::Reverse((e.0, e.1)));
    for (start, count, new) in edits {
        out.splice(start..start + count, new);
    }
    out.join("\n")
}

fn load() -> Vec<Case> {
    let path = repo().join("tests/parity/gates.jsonl.gz");
    let mut text = String::new();
    flate2::read::GzDecoder::new(
        std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
    .read_to_string(&mut text)
    .unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn instruction_gates_parity() {
    let cases = load();
    assert!(cases.len() > 30_000, "{} cases", cases.len());
    let mut cache = BTreeMap::new();
    let mut dump = std::env::var_os("GATES_DUMP")
        .map(|p| std::io::BufWriter::new(std::fs::File::create(p).unwrap()));
    let (mut total, mut verdict, mut exact, mut excluded) = (0usize, 0usize, 0usize, 0usize);
    let mut per_kind: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    let mut verdict_misses = Vec::new();
    let mut message_misses = Vec::new();
    for c in &cases {
        if c.crash {
            excluded += 1;
            continue;
        }
        let text = module_text(c, &mut cache);
        let report = check_source("case.ptx", text.as_bytes(), &CheckOptions::default());
        let ours = render::ptxas(&report.file, &report.diagnostics);
        let v = report.has_errors() == (c.exit != 0);
        let e = ours == c.raw;
        total += 1;
        verdict += v as usize;
        exact += e as usize;
        let k = per_kind.entry(c.kind.clone()).or_default();
        k.0 += 1;
        k.1 += v as usize;
        k.2 += e as usize;
        if !e {
            let line = format!(
                "{} ({} {} {}):\n  ptxas (exit {}):\n{}  ours:\n{}",
                c.id, c.kind, c.target, c.version, c.exit, c.raw, ours
            );
            if !v && !KNOWN_DEVIATIONS.iter().any(|(id, _)| *id == c.id) {
                verdict_misses.push(line.clone());
            }
            message_misses.push(line);
            if let Some(w) = dump.as_mut() {
                let rec = serde_json::json!({
                    "id": c.id, "kind": c.kind, "verdict_ok": v, "exit": c.exit,
                    "ptxas": c.raw, "ours": ours, "module": text,
                });
                writeln!(w, "{rec}").unwrap();
            }
        }
    }
    println!(
        "gates: {total} modules ({excluded} crashes excluded): verdict {verdict}/{total} = {:.2}%, exact ptxas output {exact}/{total} = {:.2}%",
        100.0 * verdict as f64 / total as f64,
        100.0 * exact as f64 / total as f64
    );
    for (kind, (n, v, e)) in &per_kind {
        println!(
            "  {kind:10} {n:6}  verdict {:7.2}%  messages {:7.2}%",
            100.0 * *v as f64 / *n as f64,
            100.0 * *e as f64 / *n as f64
        );
    }
    assert!(
        verdict_misses.is_empty(),
        "{} verdict disagreements:\n{}",
        verdict_misses.len(),
        verdict_misses[..verdict_misses.len().min(15)].join("\n")
    );
    let rate = exact as f64 / total as f64;
    assert!(
        rate >= EXACT_TARGET,
        "exact ptxas output on {:.2}% of the modules (target {:.0}%); first misses:\n{}",
        100.0 * rate,
        100.0 * EXACT_TARGET,
        message_misses[..message_misses.len().min(15)].join("\n")
    );
}
