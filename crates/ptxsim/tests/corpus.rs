//! The committed corpus of real nvcc and Triton output (tests/corpus, see docs/corpus.md):
//! every file parses, prints back to an equal tree, and prints exactly the text that real
//! ptxas accepted for the file's target (recorded by scripts/verify-printed-ptx.sh).

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus")
}

/// (file, ptxas verdict) for every manifest entry.
fn manifest_files() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(corpus_dir().join("manifest.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["file"].as_str().unwrap().to_string(),
                e["ptxas"]["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn corpus_has_at_least_forty_compiler_files() {
    let files = manifest_files();
    assert!(files.len() >= 40, "{} files", files.len());
    for (f, _) in &files {
        assert!(corpus_dir().join(f).exists(), "{f} listed but missing");
    }
}

#[test]
fn every_corpus_file_parses_and_round_trips() {
    for (file, _) in manifest_files() {
        let text = std::fs::read_to_string(corpus_dir().join(&file)).unwrap();
        let module = ptx_syntax::parse(&text).unwrap_or_else(|e| panic!("{file}: {:?}", e.first()));
        let printed = ptx_syntax::print(&module);
        let again = ptx_syntax::parse(&printed)
            .unwrap_or_else(|e| panic!("{file}: printed text fails: {:?}", e.first()));
        assert!(
            again == module,
            "{file}: parse(print(parse(f))) != parse(f)"
        );
    }
}

#[test]
fn printed_corpus_is_what_ptxas_accepted() {
    let text = std::fs::read_to_string(corpus_dir().join("printed.json")).unwrap();
    let golden: serde_json::Value = serde_json::from_str(&text).unwrap();
    let golden: BTreeMap<String, serde_json::Value> =
        serde_json::from_value(golden["files"].clone()).unwrap();
    let mut checked = 0;
    for (file, verdict) in manifest_files() {
        if verdict != "accepted" {
            continue;
        }
        let g = golden.get(&file).unwrap_or_else(|| {
            panic!("{file}: no ptxas verdict recorded; run scripts/verify-printed-ptx.sh")
        });
        assert_eq!(
            g["ptxas_exit"], 0,
            "{file}: ptxas rejected the printout: {}",
            g["ptxas_output"]
        );
        let src = std::fs::read_to_string(corpus_dir().join(&file)).unwrap();
        let printed = ptx_syntax::print(&ptx_syntax::parse(&src).unwrap());
        let hash = format!("{:x}", Sha256::digest(printed.as_bytes()));
        assert_eq!(
            g["sha256"].as_str().unwrap(),
            hash,
            "{file}: the printer's output changed since ptxas checked it; \
             run scripts/verify-printed-ptx.sh"
        );
        checked += 1;
    }
    assert!(checked >= 40);
}
