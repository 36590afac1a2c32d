//! Checking and rendering never panic, whatever the bytes: random bytes, and real corpus files
//! with random byte-level damage (invalid UTF-8, multi-byte characters, truncation). The
//! streaming check of `ptxsim check` (`check_file`) finds what the whole-module one
//! (`check_source`) finds, spans included.

use proptest::prelude::*;
use ptx_check::{check_file, check_source, render, CheckOptions};

const SEED: &str = include_str!("../../ptx-syntax/tests/data/sample_triton.ptx");

fn check_and_render_all(bytes: &[u8]) {
    let report = check_source("fuzz.ptx", bytes, &CheckOptions::default());
    let streamed = check_file("fuzz.ptx", bytes.to_vec(), &CheckOptions::default());
    assert_eq!(
        format!("{:?}", streamed.diagnostics),
        format!("{:?}", report.diagnostics)
    );
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

/// Words and fragments the mutation corpus (tests/parity/gen_mutations.py) splices into real
/// modules: modifiers of every kind, odd directives, constant expressions, vectors.
const FRAGMENTS: &[&str] = &[
    ".nc",
    ".L1",
    ".L2",
    ".tensormap",
    ".async",
    ".sync",
    ".aligned",
    ".noinc",
    ".relaxed.gpu",
    ".mmio",
    ".L2::cache_hint",
    ".L2::256B",
    ".L1::evict_last",
    ".v8",
    ".b128",
    ".shared::cluster",
    ".param::entry",
    ".unified",
    ".reg",
    // instruction gates (tests/parity/gen_gates.py)
    "elect.sync _|%p1, -1;",
    "_|",
    "_|%p1",
    "mov.u32 %r1, %cluster_ctarank;",
    "%clusterid.x",
    ".bf16x2",
    ".e4m3x2",
    "wgmma.fence.sync.aligned;",
    "cp.async.bulk.tensor.2d",
    "cp.reduce.async.bulk",
    "st.async",
    "shfl.idx.b32 %r1, %r2, 1, 31;",
    ".pragma \"used_bytes_mask 0xff\";",
    "[%rd1+(1?2:3)]",
    "[%rd1+1/0]",
    "[%rd1+1.5*2]",
    "[1.5]",
    "{}",
    "{%p1, %r1}",
    "!0",
    "1<<4",
    ".version 7.10",
    ".target sm_30, debug",
    ".address_size 16",
    ".target sm_80, sm_75",
    "cp .async",
    "createpolicy .range",
    "@%p1",
    "$L__x:",
    "/* c */",
    ";",
    ",",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "+",
    "-",
    "?",
    ":",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn mutated_real_ptx(edits in proptest::collection::vec(
        (any::<proptest::sample::Index>(), any::<proptest::sample::Index>()), 1..8)) {
        let mut text = SEED.to_string();
        for (at, what) in edits {
            let mut i = at.index(text.len() + 1);
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            text.insert_str(i, FRAGMENTS[what.index(FRAGMENTS.len())]);
        }
        check_and_render_all(text.as_bytes());
    }
}
