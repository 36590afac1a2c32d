//! Operand classification shared by the families: immediates and their kinds, register
//! widths and the §7 type-compatibility tables, bracketed addresses.

use super::*;

/// The kind of an immediate, as ptxas's operand matching sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Imm {
    Int,
    /// `0f…`
    F32,
    /// `0d…` or a decimal float.
    F64,
}

pub(crate) fn imm_kind(op: &Operand) -> Option<Imm> {
    match op {
        Operand::Int(_) => Some(Imm::Int),
        Operand::Float(f) => Some(match f.value {
            FloatLit::F32Bits(_) => Imm::F32,
            _ => Imm::F64,
        }),
        _ => None,
    }
}

/// Register width as the operand rules count it (a predicate has none).
pub(crate) fn width(t: ScalarType) -> u32 {
    if t == ScalarType::Pred {
        0
    } else {
        t.bits()
    }
}

/// docs/ptxas-rules.md §7.1: may a register of type `r` be the data operand of type `t`?
pub(crate) fn reg_ok_for_type(t: ScalarType, r: ScalarType) -> bool {
    let (tk, rk) = (t.kind(), r.kind());
    if rk == TypeKind::Predicate {
        return false;
    }
    let (tb, rb) = (width(t), width(r));
    match tk {
        TypeKind::Bits => rb >= tb,
        TypeKind::Unsigned | TypeKind::Signed => {
            matches!(rk, TypeKind::Bits | TypeKind::Unsigned | TypeKind::Signed) && rb >= tb
        }
        _ => (rk == TypeKind::Float && rb == tb) || (rk == TypeKind::Bits && rb >= tb),
    }
}

/// §7.2: may an immediate of kind `k` stand for a value of type `t`?
pub(crate) fn imm_ok_for_type(t: ScalarType, k: Imm) -> bool {
    match k {
        Imm::Int => matches!(
            t.kind(),
            TypeKind::Bits | TypeKind::Unsigned | TypeKind::Signed
        ),
        _ if t.kind() == TypeKind::Float => true,
        Imm::F32 => t.kind() == TypeKind::Bits && t.bits() == 32,
        Imm::F64 => t.kind() == TypeKind::Bits && t.bits() == 64,
    }
}

/// The integer value of an integer-literal operand.
pub(crate) fn int_value(op: &Operand) -> Option<i128> {
    match op {
        Operand::Int(i) => Some(i.value.value),
        _ => None,
    }
}

/// What an address operand's base is.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Base<'a> {
    /// `[%rd1]`, `[%rd1+8]` — a name that is a register or looks like one (`%…`).
    Reg(&'a str, Span),
    /// `[gbuf]`, `[gbuf+8]`, or the `gbuf` of `gbuf[8]`.
    Var(&'a str, Span),
    /// `[64]`.
    Imm,
}

/// A bracketed address (or `var[imm]`), classified.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Addr<'a> {
    pub base: Base<'a>,
    pub unified: bool,
    /// `var[imm]` (ptxas's array form).
    pub array: bool,
    pub span: Span,
}

pub(crate) fn address<'a>(scopes: &Scopes, op: &'a Operand) -> Option<Addr<'a>> {
    match op {
        Operand::Address(a) => {
            let base = match &a.base {
                None => Base::Imm,
                Some(n) => {
                    if matches!(scopes.lookup(&n.name), Some(Sym::Reg(_)))
                        || (n.name.starts_with('%') && scopes.lookup(&n.name).is_none())
                    {
                        Base::Reg(&n.name, n.span)
                    } else {
                        Base::Var(&n.name, n.span)
                    }
                }
            };
            Some(Addr {
                base,
                unified: a.unified,
                array: false,
                span: a.span,
            })
        }
        Operand::Indexed(n, index, span) if !n.name.starts_with('%') => match &**index {
            Operand::Address(a) if a.base.is_none() => Some(Addr {
                base: Base::Var(&n.name, n.span),
                unified: a.unified,
                array: true,
                span: *span,
            }),
            _ => None,
        },
        _ => None,
    }
}
