//! Every `compare` rewrite of every sm_80+ corpus module was checked by real ptxas
//! (tests/corpus/rewrites.json, made by scripts/verify-rewrites-ptxas.sh): the rewriter must
//! produce exactly the texts ptxas accepted. CI has no ptxas; after changing the rewriter, run
//! the script (with ptxas) and commit the new JSON.

use ptxsim_report::rewrite::{self, Rewrite};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::Path;

#[test]
fn rewrites_are_the_texts_ptxas_accepted() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(corpus.join("rewrites.json")).unwrap())
            .unwrap();
    let files = record["files"].as_object().unwrap();
    let mut checked = 0;
    let mut changed = 0;
    for (file, entry) in files {
        let text = std::fs::read_to_string(corpus.join(file)).unwrap();
        for (spec, rec) in entry["rewrites"].as_object().unwrap() {
            let r: Rewrite = spec.parse().unwrap();
            let out = rewrite::apply(&text, &r).unwrap_or_else(|e| panic!("{file} {spec}: {e}"));
            let sha = format!("{:x}", Sha256::digest(out.text.as_bytes()));
            assert_eq!(
                sha,
                rec["sha256"].as_str().unwrap(),
                "{file} `{spec}`: the rewritten text is not the one ptxas checked; rerun scripts/verify-rewrites-ptxas.sh"
            );
            assert_eq!(
                rec["ptxas_exit"], 0,
                "{file} `{spec}`: ptxas rejected the rewrite: {}",
                rec["ptxas_output"]
            );
            if !out.changes.is_empty() {
                changed += 1;
            }
            checked += 1;
        }
    }
    assert!(files.len() >= 20, "{} files", files.len());
    assert!(
        changed >= checked / 2,
        "most rewrites change something ({changed} of {checked})"
    );
}
