//! Checks of the instructions otherwise checked only for their target and version gates
//! (`gates`): their guard, and the `cp.async.bulk` group words written after another
//! modifier (docs/ptxas-rules.md §22). Measured with ptxas 13.5 (tests/parity/gen_gaps.py,
//! family `bulk`).

use super::words::{classify, is, Word};
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
const BULK_WORDS: &[Modifier] = &[
    Modifier::Read,
    Modifier::Qualifier(Qualifier::Flag(Flag::Async)),
    Modifier::BulkGroup,
    Modifier::MbarrierCompleteTxBytes,
    Modifier::MulticastCluster,
    Modifier::CpMask,
    Modifier::Prefetch,
    Modifier::Tensor,
    Modifier::Dim1,
    Modifier::Dim2,
    Modifier::Dim3,
    Modifier::Dim4,
    Modifier::Dim5,
    Modifier::Tile,
    Modifier::Im2col,
    Modifier::Im2colW,
    Modifier::Im2colW128,
    Modifier::Im2colNoOffs,
    Modifier::TileGather4,
    Modifier::TileScatter4,
    Modifier::IgnoreOob,
    Modifier::Noftz,
];

/// Whether `w` is one of [`BULK_WORDS`].
fn bulk_word(w: &str) -> bool {
    BULK_WORDS.iter().any(|&m| is(w, m))
}

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
    let is_group = |w: &str| is(w, Flag::CommitGroup) || is(w, Flag::WaitGroup);
    if !is(mods.first()?.0, Flag::Async)
        || !is(mods.get(1)?.0, Flag::Bulk)
        || !words.iter().any(|m| is_group(m.0))
    {
        return None;
    }
    let mut out = Vec::new();
    let mut read = false;
    for &(w, span) in words {
        let known = !is_group(w) && (bulk_word(w) || !matches!(classify(w), Word::Unknown));
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
        if is(w, Modifier::Read) {
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

/// The (destination, source) state spaces of the bulk copies (PTX ISA §9.7.9.25.4.1
/// `cp.async.bulk`: `.dst = { .shared::cta, .shared::cluster }` from `.global`,
/// `.shared::cluster` from `.shared::cta`, `.global` from `.shared::cta`; §9.7.9.25.5.2
/// `cp.async.bulk.tensor`: the same but shared-to-shared).
const COPY_PAIRS: &[(StateSpace, StateSpace)] = &[
    (StateSpace::SharedCluster, StateSpace::Global),
    (StateSpace::SharedCta, StateSpace::Global),
    (StateSpace::SharedCluster, StateSpace::SharedCta),
    (StateSpace::Global, StateSpace::SharedCta),
];

/// The `cp.async.bulk` copies and prefetches (`cp.async.bulk{.prefetch}{.tensor}…`), which
/// are otherwise checked only for their gates: prefetch sizes, vector and type words, the
/// state spaces and the operand shapes, with ptxas's messages (measured, gen_gaps.py family
/// `bulk`). Empty if `mods` is not such an instruction.
pub(super) fn check_bulk_copy(
    mods: &[(&str, Span)],
    ops: &[Operand],
    start: u32,
    head: Span,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if mods.len() < 2 || !is(mods[0].0, Flag::Async) || !is(mods[1].0, Flag::Bulk) {
        return out;
    }
    let rest = &mods[2..];
    let prefetch = rest.first().is_some_and(|m| is(m.0, Modifier::Prefetch));
    let tensor = rest
        .get(usize::from(prefetch))
        .is_some_and(|m| is(m.0, Modifier::Tensor));
    let word = |on: bool, m: Modifier| if on { m.name() } else { "" };
    let (p, t) = (
        word(prefetch, Modifier::Prefetch),
        word(tensor, Modifier::Tensor),
    );
    let name = format!("cp.async.bulk{p}{t}");
    let err = |code: &'static str, span: Span, ptxas: String| {
        Diagnostic::error(code, span, format!("not allowed on `{name}`"), ptxas).at_line_of(start)
    };
    let mut spaces: Vec<StateSpace> = Vec::new();
    let (mut dims, mut gather, mut mbarrier, mut typed) = (None, false, false, false);
    let mut vector = None;
    let mut vector_last = false;
    let mut unknown: Vec<Diagnostic> = Vec::new();
    for &(w, span) in rest {
        vector_last = false;
        match Modifier::parse(w) {
            Some(Modifier::Qualifier(Qualifier::Prefetch(_))) => out.push(err(
                codes::ILLEGAL_MODIFIER,
                span,
                format!("Illegal modifier '{w}' for instruction '{name}'"),
            )),
            Some(d) if d.tensor_dims().is_some() => dims = d.tensor_dims().map(|n| n as usize),
            Some(Modifier::TileGather4 | Modifier::TileScatter4) => gather = true,
            Some(Modifier::MbarrierCompleteTxBytes) => mbarrier = true,
            _ => match classify(w) {
                Word::Space(s) => spaces.push(s),
                Word::Vec(_) => {
                    vector = Some(span);
                    vector_last = true;
                }
                Word::Type(_) => typed = true,
                // A word ptxas does not know: measured for `.shared::gpu`. Other `a::b`
                // words (`.cta_group::2`, …) are left to the gates.
                Word::Unknown
                    if !bulk_word(w)
                        && (!w.contains("::")
                            || w.starts_with(".shared::")
                            || w.starts_with(".global::")) =>
                {
                    unknown.push(
                        Diagnostic::error(
                            codes::UNKNOWN_MODIFIER,
                            span,
                            format!("`{w}` is not a modifier of `{name}`"),
                            format!("Unknown modifier '{w}'"),
                        )
                        .at_line_of(start),
                    );
                }
                _ => {}
            },
        }
    }
    // The scan's unknown modifiers come first; the other checks go on.
    if tensor && dims.is_none() {
        unknown.push(err(
            codes::MISSING_MODIFIER,
            head,
            format!(".dim modifier required for instruction '{name}'"),
        ));
    }
    unknown.append(&mut out);
    let mut out = unknown;
    if let Some(span) = vector {
        out.push(err(
            codes::BAD_TYPE,
            span,
            format!("Vector qualifier is not allowed for instruction '{name}'"),
        ));
        if tensor {
            out.push(err(
                codes::VECTOR_EXPRESSION,
                span,
                format!("Argument vector size mismatch for instruction '{name}'"),
            ));
        }
    }
    if typed {
        out.push(err(
            codes::BAD_TYPE,
            head,
            format!("Unexpected instruction types specified for '{name}'"),
        ));
    }
    let want = if prefetch { 1 } else { 2 };
    let mut spaces_ok = true;
    // No space at all (`cp.async.bulk;`, `cp.async.bulk.b32;`): only the operands or the
    // types are reported (measured).
    if !spaces.is_empty() {
        let right = if prefetch {
            spaces == [StateSpace::Global]
        } else {
            spaces.len() == 2
                && COPY_PAIRS.contains(&(spaces[0], spaces[1]))
                && !(tensor && spaces[1] == StateSpace::SharedCta && spaces[0].is_shared())
        };
        if !right {
            spaces_ok = false;
            out.push(err(
                codes::BAD_SPACE,
                head,
                format!("State space incorrect for instruction '{name}'"),
            ));
            if spaces.len() != want {
                out.push(err(
                    codes::BAD_SPACE,
                    head,
                    format!("Unexpected number of state spaces specified in instruction '{name}'"),
                ));
            }
        }
    }
    // Measured: wrong types or state spaces stop ptxas before the operands.
    if !typed && spaces_ok {
        if let Some(d) = operand_shape(
            &name, ops, tensor, prefetch, mbarrier, dims, gather, &spaces,
        ) {
            out.push(err(codes::OPERANDS, head, d));
        }
    }
    // The vector-type warning only for a vector word that ends the modifiers (measured:
    // `.v8.shared::cta` has none).
    if let Some(span) = vector.filter(|_| vector_last) {
        out.push(
            Diagnostic::warning(
                codes::VECTOR_TYPE_ORDER,
                span,
                "the vector modifier is not followed by the element type",
                "Vector Type not specified properly",
            )
            .at_line_of(start),
        );
    }
    out
}

/// ptxas's message about the operands of a bulk copy or prefetch, if they do not fit: too
/// few, or no `[tensorMap, {coordinates}]` where the tensor forms take it (its vector one
/// coordinate per dimension, `.tile::gather4` aside).
#[allow(clippy::too_many_arguments)]
fn operand_shape(
    name: &str,
    ops: &[Operand],
    tensor: bool,
    prefetch: bool,
    mbarrier: bool,
    dims: Option<usize>,
    gather: bool,
    spaces: &[StateSpace],
) -> Option<String> {
    let mismatch = || Some(format!("Arguments mismatch for instruction '{name}'"));
    if !tensor {
        let min = if prefetch {
            2
        } else if mbarrier {
            4
        } else {
            3
        };
        return (ops.len() < min).then(mismatch).flatten();
    }
    // The tensor operand: first for a prefetch or a store to `.global`, else second.
    let store = spaces.first() == Some(&StateSpace::Global);
    let at = usize::from(!(prefetch || store));
    let min = if prefetch {
        1
    } else if store {
        2
    } else {
        3
    };
    if ops.len() < min {
        return mismatch();
    }
    let Operand::Bracket(parts, _) = &ops[at] else {
        return mismatch();
    };
    let Some(Operand::Vector(coords, _)) = parts.get(1) else {
        return mismatch();
    };
    // Without `.Nd` ptxas expects no coordinates (measured).
    (!gather && coords.len() != dims.unwrap_or(0)).then(|| {
        format!(
            "Argument {} of instruction '{name}': Argument vector size mismatch",
            at + 1
        )
    })
}
