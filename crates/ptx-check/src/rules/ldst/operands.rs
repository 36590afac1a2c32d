//! How the `ld`/`st` operand rules see a data operand or vector element, and small
//! accessors of the scan the operand and semantic checks share.

use super::*;

/// A type's width in bits (`ty` is always an ld/st type here).
pub(super) fn bits(t: ScalarType) -> u32 {
    width(t)
}

pub(super) fn space_name(sp: Option<Tok<'_>>) -> &str {
    sp.map_or("", |s| s.0)
}

/// A data operand or vector element as ptxas's operand matching sees it.
pub(super) enum Elem<'a> {
    Sink,
    Reg(ScalarType),
    Imm(Imm),
    /// Neither a register, an immediate nor `_` (an undeclared name, an expression …).
    Other(&'a Operand),
}

pub(super) fn elem<'a>(scopes: &Scopes, op: &'a Operand) -> Elem<'a> {
    if matches!(op, Operand::Sink(_)) {
        return Elem::Sink;
    }
    if let Operand::Name(n) = op {
        if let Some(t) = scopes.reg(&n.name) {
            return Elem::Reg(t);
        }
    }
    match imm_kind(op) {
        Some(k) => Elem::Imm(k),
        None => Elem::Other(op),
    }
}

pub(super) fn vec_span_text<'a>(s: &Scan<'a>) -> &'a str {
    s.vec.map_or("", |v| v.1 .0)
}

/// A vector expression (§4.1 step 3): its elements' widths and kinds, and its length;
/// nothing for any other operand.
// Called once per instruction, from `check` only: inlined like the other stages.
#[inline(always)]
pub(super) fn vector_expression(
    cx: &Cx,
    insn: &Insn,
    scopes: &Scopes,
    m: &mut Msgs,
    unknown: &mut Unknowns,
    lds: bool,
    vector: &Operand,
) {
    let Operand::Vector(elems, vspan) = vector else {
        return;
    };
    let vspan = *vspan;
    let mut widths: Vec<u32> = Vec::new();
    let mut regs = 0;
    let mut imms = 0;
    for e in elems {
        match elem(scopes, e) {
            Elem::Sink => {}
            Elem::Reg(t) => {
                regs += 1;
                if t != ScalarType::Pred && !widths.contains(&width(t)) {
                    widths.push(width(t));
                }
            }
            Elem::Imm(_) => imms += 1,
            Elem::Other(o) => {
                let text = cx.src(o.span());
                m.add(
                    Key::IllegalExpression,
                    insn.err(
                        codes::VECTOR_EXPRESSION,
                        o.span(),
                        format!("Illegal expression '{text}'"),
                        format!("`{text}` is not a register or an immediate"),
                    ),
                );
                // A declared variable or function is illegal here but known.
                if scopes.lookup(text).is_none() {
                    unknown.add(text, o.span());
                }
            }
        }
    }
    let all_sinks = elems.iter().all(|e| matches!(e, Operand::Sink(_)));
    if all_sinks || (regs == 0 && imms == 0) {
        m.add(
            Key::UnableToInfer,
            insn.err(
                codes::VECTOR_EXPRESSION,
                vspan,
                "Unable to infer type of vector elements (assuming .b8)".into(),
                "the vector has no register or immediate to take its element type from".into(),
            )
            .with_help("at least one element must be a register"),
        );
    }
    if widths.len() > 1 {
        m.add(
            Key::IncompatibleElements,
            insn.err(
                codes::VECTOR_EXPRESSION,
                vspan,
                "Incompatible elements of vector expression".into(),
                "the vector's registers have different widths".into(),
            )
            .with_help("use registers of one width in a vector"),
        );
    }
    let legal: &[usize] = if lds { &[1, 2, 4, 8] } else { &[1, 2, 4] };
    if !legal.contains(&elems.len()) {
        m.add(
            Key::IllegalVectorSize,
            insn.err(
                codes::VECTOR_EXPRESSION,
                vspan,
                format!("Illegal vector size: {}", elems.len()),
                format!(
                    "a vector of {} elements; vectors have 2, 4 or 8",
                    elems.len()
                ),
            ),
        );
    }
}
