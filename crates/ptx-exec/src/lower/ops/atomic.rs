//! Atomics and reductions: `atom`, `red` (scalar and vector).

use super::*;

pub(super) fn lower_atom(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
    is_red: bool,
) -> Result<Op, ExecError> {
    let ty = one_type(cx, m, g, span)?;
    let op = REDUCE_OPS
        .iter()
        .chain(&[(Modifier::Exch, AtomOp::Exch), (Modifier::Cas, AtomOp::Cas)])
        .find(|&&(t, _)| m.has(t))
        .map(|(_, o)| *o)
        .ok_or_else(|| cx.error(span, format!("`{}` needs an operation", g.opcode.value)))?;
    let space = match m.space().map(StateSpace::base) {
        Some(StateSpace::Global) => Space::Global,
        Some(StateSpace::Shared) => Space::Shared,
        _ => Space::Generic,
    };
    let ops = &g.operands;
    let hints = MemHints {
        semantics: if m.has(MemorySemantics::Relaxed) {
            memsys::Semantics::Relaxed
        } else if m.has(MemorySemantics::Acquire) || m.has(Modifier::AcqRel) {
            memsys::Semantics::Acquire
        } else if m.has(MemorySemantics::Release) {
            memsys::Semantics::Release
        } else {
            memsys::Semantics::Relaxed
        },
        // An acquiring atomic above .cta scope invalidates the SM's L1 afterwards (ptxas
        // emits CCTL.IVALL after it, docs/fences.md); at .cta it does not.
        scope: m.pick(
            &[
                (Scope::Cta.into(), memsys::Scope::Cta),
                (Scope::Cluster.into(), memsys::Scope::Cluster),
                (Scope::Sys.into(), memsys::Scope::Sys),
            ],
            memsys::Scope::Gpu,
        ),
        ..MemHints::default()
    };
    let width = [
        (VectorWidth::V2, 2usize),
        (VectorWidth::V4, 4),
        (VectorWidth::V8, 8),
    ]
    .iter()
    .find(|&&(t, _)| m.has(t))
    .map(|(_, n)| *n);
    if let Some(n) = width {
        // `atom.vN d_vec, [a], b_vec{, policy}` / `red.vN [a], b_vec{, policy}`.
        let ops = &g.operands;
        let (dv, rest) = if is_red {
            (None, &ops[..])
        } else {
            match ops.split_first() {
                Some((Operand::Vector(v, _), rest)) => (Some(v), rest),
                _ => return Err(cx.error(span, "a vector atom needs a vector destination".into())),
            }
        };
        let (a, bv) = match rest {
            [a, Operand::Vector(b, _), ..] => (a, b),
            _ => return Err(cx.error(span, "a vector atom needs a vector operand".into())),
        };
        if bv.len() != n || dv.is_some_and(|d| d.len() != n) {
            return Err(cx.error(span, format!("`.v{n}` needs {n} elements")));
        }
        let (addr, space) = cx.addr(a, space)?;
        let mut elems = Vec::with_capacity(n);
        for (k, b) in bv.iter().enumerate() {
            let d = match dv {
                Some(d) => Some(cx.dst(&d[k])?),
                None => None,
            };
            elems.push((d, cx.src(b, ty)?));
        }
        return Ok(Op::AtomVec {
            op,
            ty,
            space,
            elems,
            addr,
            hints,
        });
    }
    let (d, rest) = if is_red {
        (None, &ops[..])
    } else {
        let Some((d, rest)) = ops.split_first() else {
            return Err(cx.error(span, "atom needs operands".into()));
        };
        (Some(cx.dst(d)?), rest)
    };
    // Drop a trailing cache policy.
    let rest = if m.has(Flag::CacheHint) && !rest.is_empty() {
        &rest[..rest.len() - 1]
    } else {
        rest
    };
    let (a, b, c) = match (op, rest) {
        (AtomOp::Cas, [a, b, c]) => (a, b, Some(c)),
        (_, [a, b]) => (a, b, None),
        _ => {
            return Err(cx.error(
                span,
                format!("unexpected operands for `{}`", g.opcode.value),
            ))
        }
    };
    let (addr, space) = cx.addr(a, space)?;
    Ok(Op::Atom {
        op,
        ty,
        space,
        d,
        addr,
        b: cx.src(b, ty)?,
        c: c.map(|c| cx.src(c, ty)).transpose()?,
        hints,
        result_unread: d.is_none(),
    })
}
