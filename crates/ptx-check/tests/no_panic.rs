//! Checking and rendering never panic, whatever the bytes: random bytes, and real corpus files
//! with random byte-level damage (invalid UTF-8, multi-byte characters, truncation).

use proptest::prelude::*;
use ptx_check::{check_source, render, CheckOptions};

const SEED: &str = include_str!("../../ptx-syntax/tests/data/sample_triton.ptx");

fn check_and_render_all(bytes: &[u8]) {
    let report = check_source("fuzz.ptx", bytes, &CheckOptions::default());
    let _ = render::rich(&report.file, &report.diagnostics, false);
    let _ = render::rich(&report.file, &report.diagnostics, true);
    let _ = render::ptxas(&report.file, &report.diagnostics);
    let reports = [report];
    let _ = serde_json::to_string(&render::json(&reports)).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..1024)) {
        check_and_render_all(&bytes);
    }

    #[test]
    fn damaged_real_ptx(edits in proptest::collection::vec((any::<proptest::sample::Index>(), any::<u8>()), 1..6),
                        cut in any::<proptest::sample::Index>()) {
        let mut bytes = SEED.as_bytes().to_vec();
        for (at, b) in edits {
            let i = at.index(bytes.len());
            bytes[i] = b;
        }
        let keep = cut.index(bytes.len() + 1);
        bytes.truncate(keep.max(bytes.len() / 2));
        check_and_render_all(&bytes);
    }
}
