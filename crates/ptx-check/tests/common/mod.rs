//! What the ptxas-parity set tests (mutations, gates, adversarial, gaps, survey) share: loading a
//! `tests/parity/*.jsonl.gz` set, rebuilding a corpus module from its line edits, and the
//! tally that checks each module, compares our verdict and `--format ptxas` output with
//! ptxas's, prints the rates per group and asserts them; and `family_parity`, the whole test of
//! a family set.

// Each test binary uses its own part of this module.
#![allow(dead_code)]

use ptx_check::{check_file, render, CheckOptions};
use serde::de::DeserializeOwned;
use std::collections::BTreeMap;
use std::io::{BufWriter, Read, Write};
use std::path::PathBuf;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every line of `rel` (a gzipped JSON-lines file under the repository root), parsed.
pub fn load_jsonl_gz<T: DeserializeOwned>(rel: &str) -> Vec<T> {
    let path = repo().join(rel);
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

/// One case of a family set (`adversarial`, `gaps`, `survey`): a module with real ptxas's exit
/// code and complete output, and what it probes.
#[derive(serde::Deserialize)]
pub struct FamilyCase {
    pub id: String,
    pub family: String,
    /// What the case probes within its family (the adversarial set has none).
    pub note: Option<String>,
    pub ptx: String,
    pub exit: i64,
    pub raw: String,
}

/// Checks every case of the family set `rel` (more than `min_cases` of them) against ptxas's
/// answer, grouped by family, and asserts the verdicts but `known` and the exact-output
/// share `exact_target` ([`Tally`]; `dump_var` names the disagreement dump).
pub fn family_parity(
    rel: &str,
    name: &'static str,
    dump_var: &str,
    min_cases: usize,
    group_width: usize,
    known: &'static [(&'static str, &'static str)],
    exact_target: f64,
) {
    let cases: Vec<FamilyCase> = load_jsonl_gz(rel);
    assert!(cases.len() > min_cases, "{} cases", cases.len());
    let mut tally = Tally::new(name, dump_var, "family", group_width, known);
    for c in &cases {
        let label = match &c.note {
            Some(note) => format!("{}: {note}", c.family),
            None => c.family.clone(),
        };
        tally.check(
            &c.ptx,
            Expected {
                id: &c.id,
                group: &c.family,
                label,
                exit: c.exit,
                raw: &c.raw,
            },
        );
    }
    tally.finish(None, exact_target);
}

/// A line edit of a corpus file: `[line index, lines removed, new lines]`.
pub type Edit = (usize, usize, Vec<String>);

/// The corpus file `base` (tests/corpus/…) with `edits` applied from the bottom up; `cache`
/// keeps each file's lines.
pub fn edited_corpus_file(
    base: &str,
    edits: &[Edit],
    cache: &mut BTreeMap<String, Vec<String>>,
) -> String {
    let lines = cache.entry(base.to_string()).or_insert_with(|| {
        let path = repo().join("tests/corpus").join(base);
        std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .split('\n')
            .map(str::to_string)
            .collect()
    });
    let mut out = lines.clone();
    let mut edits = edits.to_vec();
    edits.sort_by_key(|e| std::cmp::Reverse((e.0, e.1)));
    for (start, count, new) in edits {
        out.splice(start..start + count, new);
    }
    out.join("\n")
}

/// One ptxas answer to compare with.
pub struct Expected<'a> {
    pub id: &'a str,
    /// The case's group (kind or family), for the per-group rates and the dump.
    pub group: &'a str,
    /// What a failure message says about the case besides id and ptxas's answer.
    pub label: String,
    pub exit: i64,
    pub raw: &'a str,
}

/// Checks modules one by one against ptxas's answers and keeps the score.
pub struct Tally {
    name: &'static str,
    group_key: &'static str,
    group_width: usize,
    known: &'static [(&'static str, &'static str)],
    dump: Option<BufWriter<std::fs::File>>,
    total: usize,
    verdict: usize,
    exact: usize,
    per_group: BTreeMap<String, (usize, usize, usize)>,
    verdict_misses: Vec<String>,
    message_misses: Vec<String>,
}

impl Tally {
    /// `dump_var`: the environment variable naming a file to write every disagreement to (as
    /// JSON lines); `group_key`: the dump's name for the group; `known`: verdict deviations
    /// (id, reason) that do not fail the test.
    pub fn new(
        name: &'static str,
        dump_var: &str,
        group_key: &'static str,
        group_width: usize,
        known: &'static [(&'static str, &'static str)],
    ) -> Tally {
        Tally {
            name,
            group_key,
            group_width,
            known,
            dump: std::env::var_os(dump_var)
                .map(|p| BufWriter::new(std::fs::File::create(p).unwrap())),
            total: 0,
            verdict: 0,
            exact: 0,
            per_group: BTreeMap::new(),
            verdict_misses: Vec::new(),
            message_misses: Vec::new(),
        }
    }

    /// Checks `text` and scores our answer against `want`.
    pub fn check(&mut self, text: &str, want: Expected) {
        let report = check_file(
            "case.ptx",
            text.as_bytes().to_vec(),
            &CheckOptions::default(),
        );
        let ours = render::ptxas(&report.file, &report.diagnostics);
        let v = report.has_errors() == (want.exit != 0);
        let e = ours == want.raw;
        self.total += 1;
        self.verdict += v as usize;
        self.exact += e as usize;
        let k = self.per_group.entry(want.group.to_string()).or_default();
        k.0 += 1;
        k.1 += v as usize;
        k.2 += e as usize;
        if e {
            return;
        }
        let line = format!(
            "{} ({}):\n  ptxas (exit {}):\n{}  ours:\n{}",
            want.id, want.label, want.exit, want.raw, ours
        );
        if !v && !self.known.iter().any(|(id, _)| *id == want.id) {
            self.verdict_misses.push(line.clone());
        }
        self.message_misses.push(line);
        if let Some(w) = self.dump.as_mut() {
            let rec = serde_json::json!({
                "id": want.id, self.group_key: want.group, "verdict_ok": v, "exit": want.exit,
                "ptxas": want.raw, "ours": ours, "module": text,
            });
            writeln!(w, "{rec}").unwrap();
        }
    }

    /// Prints the rates (`excluded` says what was left out, if anything) and asserts: every
    /// verdict agrees but the known deviations, and the exact output on at least
    /// `exact_target` of the modules.
    pub fn finish(self, excluded: Option<String>, exact_target: f64) {
        let (total, verdict, exact) = (self.total, self.verdict, self.exact);
        println!(
            "{}: {total} modules{}: verdict {verdict}/{total} = {:.2}%, exact ptxas output {exact}/{total} = {:.2}%",
            self.name,
            excluded.map(|x| format!(" ({x})")).unwrap_or_default(),
            100.0 * verdict as f64 / total as f64,
            100.0 * exact as f64 / total as f64
        );
        for (group, (n, v, e)) in &self.per_group {
            println!(
                "  {group:w$} {n:6}  verdict {:7.2}%  messages {:7.2}%",
                100.0 * *v as f64 / *n as f64,
                100.0 * *e as f64 / *n as f64,
                w = self.group_width
            );
        }
        let misses = &self.verdict_misses;
        assert!(
            misses.is_empty(),
            "{} verdict disagreements:\n{}",
            misses.len(),
            misses[..misses.len().min(15)].join("\n")
        );
        let rate = exact as f64 / total as f64;
        let misses = &self.message_misses;
        assert!(
            rate >= exact_target,
            "exact ptxas output on {:.2}% of the modules (target {:.0}%); first misses:\n{}",
            100.0 * rate,
            100.0 * exact_target,
            misses[..misses.len().min(15)].join("\n")
        );
    }
}
