//! Checks of the instructions otherwise checked only for their target and version gates
//! (`gates`): their guard, and the `cp.async.bulk` group words written after another
//! modifier (docs/ptxas-rules.md §22). Measured with ptxas 13.5 (tests/parity/gen_gaps.py,
//! family `bulk`).

use super::words::{classify, Word};
use super::*;

/// The guard of an instruction of any family: ptxas reads `@p` as a predicate expression and
/// reports `Predicate expression expected` first when `p` is not a declared `.pred`
/// register, and an undeclared `p` among the function's unknown symbols.
pub(super) fn guard_messages(
    guard: Option<&Guard>,
    scopes: &Scopes,
    start: u32,
) -> (Option<Diagnostic>, Option<Diagnostic>) {
    let Some(g) = guard else {
        return (None, None);
    };
    let ty = scopes.reg(&g.predicate.name);
    if ty == Some(ScalarType::Pred) {
        return (None, None);
    }
    let expected = Diagnostic::error(
        codes::PREDICATE_EXPECTED,
        g.predicate.span,
        "the guard is not a `.pred` register",
        "Predicate expression expected",
    )
    .with_help("guard with a predicate: `@%p1` or `@!%p1` (set it with setp)")
    .at_line_of(start);
    let unknown = ty.is_none().then(|| {
        let mut u = Unknowns::default();
        u.add(&g.predicate.name, g.predicate.span);
        u.into_diags().remove(0)
    });
    (Some(expected), unknown)
}

/// Modifiers of the `cp.async.bulk` copies that ptxas knows besides the ones [`classify`]
/// knows (spaces, levels, types, scopes): measured, `.read` and `.async` are not reported as
/// unknown on `cp.async.bulk.….commit_group` either.
const BULK_WORDS: &[&str] = &[
    ".read",
    ".async",
    ".bulk_group",
    ".mbarrier::complete_tx::bytes",
    ".multicast::cluster",
    ".cp_mask",
    ".prefetch",
    ".tensor",
    ".1d",
    ".2d",
    ".3d",
    ".4d",
    ".5d",
    ".tile",
    ".im2col",
    ".im2col::w",
    ".im2col::w::128",
    ".im2col_no_offs",
    ".tile::gather4",
    ".tile::scatter4",
];

/// `cp.async.bulk.X.commit_group` / `cp.async.bulk.X.wait_group{.read} N`: with a modifier
/// between `.bulk` and the group word ptxas reads a `cp.async.bulk` copy, for which the group
/// word is an unknown modifier (as is any other word it does not know), a repeated `.read`
/// is `Multiple .read modifiers specified`, and the group instruction's 0 or 1 operands are
/// an `Arguments mismatch`. None if `mods` is not such an instruction.
pub(super) fn misplaced_group_word(
    mods: &[(&str, Span)],
    start: u32,
    head: Span,
) -> Option<Vec<Diagnostic>> {
    let words = mods.get(2..)?;
    let is_group = |w: &str| matches!(w, ".commit_group" | ".wait_group");
    if mods.first()?.0 != ".async"
        || mods.get(1)?.0 != ".bulk"
        || !words.iter().any(|m| is_group(m.0))
    {
        return None;
    }
    let mut out = Vec::new();
    let mut read = false;
    for &(w, span) in words {
        let known =
            !is_group(w) && (BULK_WORDS.contains(&w) || !matches!(classify(w), Word::Unknown));
        if !known {
            out.push(
                Diagnostic::error(
                    codes::UNKNOWN_MODIFIER,
                    span,
                    format!("`{w}` is not a modifier of `cp.async.bulk`"),
                    format!("Unknown modifier '{w}'"),
                )
                .with_help("the bulk group instructions are `cp.async.bulk.commit_group` and `cp.async.bulk.wait_group{.read} N`, with nothing between `.bulk` and the group word")
                .at_line_of(start),
            );
        }
        if w == ".read" {
            if read {
                out.push(
                    Diagnostic::error(
                        codes::REPEATED_MODIFIER,
                        span,
                        "`.read` is given twice",
                        "Multiple .read modifiers specified",
                    )
                    .at_line_of(start),
                );
            }
            read = true;
        }
    }
    out.push(
        Diagnostic::error(
            codes::OPERANDS,
            head,
            "read as a `cp.async.bulk` copy, which takes a destination, a source and a size",
            "Arguments mismatch for instruction 'cp.async.bulk'",
        )
        .at_line_of(start),
    );
    Some(out)
}
