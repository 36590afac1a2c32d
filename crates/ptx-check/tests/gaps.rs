//! ptxas parity on the gaps a fresh mutation sample found: tests/parity/gaps.jsonl.gz holds
//! small modules and real corpus modules with one edit (tests/parity/gen_gaps.py) with real
//! ptxas 13.5's exit code and complete output:
//! - `dup-fixed`, `dup-random`, `dup-corpus`: names defined twice (registers, register
//!   ranges, variables of every state space and linkage, parameters, labels, functions and
//!   their prototypes; docs/ptxas-rules.md §21);
//! - `target`: `.target` sm_88 … sm_121f at `.version`s written `8.10` … `8.15`, `7.18`, …
//!   (ptxas compares the version as written with the target's minimum);
//! - `bulk`: `cp.async.bulk` group instructions with a modifier before the group word, and
//!   guards naming undeclared predicates;
//! - `labels`: `bra` targets in nested, enclosing and sibling blocks, other functions, and
//!   operands that are not labels (docs/ptxas-rules.md §23).
//!
//! Asserted: the verdict agrees on every case, and the exact output on at least
//! `EXACT_TARGET`. `GAPS_DUMP=FILE` writes every disagreement as JSON lines.

mod common;

use common::family_parity;

/// Share of cases whose complete ptxas output we reproduce byte for byte.
const EXACT_TARGET: f64 = 0.97;

#[test]
fn gaps_parity() {
    family_parity(
        "tests/parity/gaps.jsonl.gz",
        "gaps",
        "GAPS_DUMP",
        700,
        12,
        &[],
        EXACT_TARGET,
    );
}
