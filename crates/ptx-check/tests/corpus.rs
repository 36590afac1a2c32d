//! The committed corpus of real nvcc and Triton output (tests/corpus, docs/corpus.md), checked
//! against the verdicts real ptxas 13.5 gave each file for its target: the accepted files have
//! no error, and the rejected ones get exactly ptxas's lines.

use ptx_check::{check_file, render, CheckOptions, Severity};
use std::path::PathBuf;

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus")
}

fn manifest() -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(corpus_dir().join("manifest.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["files"].as_array().unwrap().clone()
}

#[test]
fn accepted_corpus_files_check_clean() {
    let mut checked = 0;
    for e in manifest() {
        if e["ptxas"]["verdict"] != "accepted" {
            continue;
        }
        let file = e["file"].as_str().unwrap();
        let bytes = std::fs::read(corpus_dir().join(file)).unwrap();
        let report = check_file(file, bytes, &CheckOptions::default());
        let errors: Vec<_> = report
            .diagnostics
            .iter()
            .filter(|d| d.severity >= Severity::Error)
            .collect();
        assert!(
            errors.is_empty(),
            "{file}: ptxas accepts it, we report:\n{}",
            render::ptxas(&report.file, &report.diagnostics)
        );
        checked += 1;
    }
    assert!(checked >= 70, "{checked} files");
}

#[test]
fn rejected_corpus_files_get_ptxas_messages() {
    let mut checked = 0;
    for e in manifest() {
        if e["ptxas"]["verdict"] != "rejected" {
            continue;
        }
        let file = e["file"].as_str().unwrap();
        let bytes = std::fs::read(corpus_dir().join(file)).unwrap();
        // ptxas ran in the file's directory: its messages name the file without a path.
        let name = file.rsplit('/').next().unwrap();
        let report = check_file(name, bytes, &CheckOptions::default());
        assert!(report.has_errors(), "{file}: ptxas rejects it");
        let expected: String = e["ptxas"]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| format!("{}\n", m.as_str().unwrap()))
            .collect();
        assert_eq!(
            render::ptxas(&report.file, &report.diagnostics),
            expected,
            "{file}"
        );
        checked += 1;
    }
    assert_eq!(checked, 2);
}
