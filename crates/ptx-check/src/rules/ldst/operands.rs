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
