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

mod common;

use common::{edited_corpus_file, load_jsonl_gz, Edit, Expected, Tally};
use serde::Deserialize;
use std::collections::BTreeMap;

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
    edits: Option<Vec<Edit>>,
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
    edited_corpus_file(base, c.edits.as_deref().unwrap_or_default(), cache)
}

#[test]
fn instruction_gates_parity() {
    let cases: Vec<Case> = load_jsonl_gz("tests/parity/gates.jsonl.gz");
    assert!(cases.len() > 30_000, "{} cases", cases.len());
    let mut cache = BTreeMap::new();
    let mut tally = Tally::new("gates", "GATES_DUMP", "kind", 10, KNOWN_DEVIATIONS);
    let mut excluded = 0usize;
    for c in &cases {
        if c.crash {
            excluded += 1;
            continue;
        }
        let text = module_text(c, &mut cache);
        tally.check(
            &text,
            Expected {
                id: &c.id,
                group: &c.kind,
                label: format!("{} {} {}", c.kind, c.target, c.version),
                exit: c.exit,
                raw: &c.raw,
            },
        );
    }
    tally.finish(Some(format!("{excluded} crashes excluded")), EXACT_TARGET);
}
