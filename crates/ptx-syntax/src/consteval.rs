//! ptxas's constant expressions: what an address offset (`[%rd1+4*4]`, `[%rd1+(1<<2)]`,
//! `[%rd1+(n?8:16)]`) or an immediate operand (`cp.async …, 2*8;`) evaluates to, and what
//! ptxas reports about it (docs/ptxas-rules.md §7.8).
//!
//! The arithmetic is C's on 64-bit values (unsigned if either operand is, wrapping), with
//! floats beside the integers. ptxas evaluates every part of an expression (both arms of
//! `?:` included) and reports:
//! * `Constant expression type mismatch` for an operator whose operands are one integer and
//!   one float (the result then has the left operand's kind and the value zero);
//! * `Integer constant expression expected` when an address offset ends up a float;
//! * `Constant expression has division by zero` (fatal) for `/` or `%` by zero.

use crate::ast::{BinaryOp, Expr, UnaryOp};
use crate::span::Span;

/// A constant's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ConstValue {
    Int { value: i64, unsigned: bool },
    Float(f64),
}

impl ConstValue {
    pub fn is_float(self) -> bool {
        matches!(self, ConstValue::Float(_))
    }

    fn is_zero(self) -> bool {
        match self {
            ConstValue::Int { value, .. } => value == 0,
            ConstValue::Float(f) => f == 0.0,
        }
    }

    fn truth(self) -> bool {
        !self.is_zero()
    }

    fn zero_like(self) -> ConstValue {
        match self {
            ConstValue::Int { unsigned, .. } => ConstValue::Int { value: 0, unsigned },
            ConstValue::Float(_) => ConstValue::Float(0.0),
        }
    }
}

/// A problem ptxas reports in a constant expression (an error; checking goes on).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConstIssue {
    /// `Constant expression type mismatch`.
    TypeMismatch(Span),
    /// `Integer constant expression expected`.
    NotInteger(Span),
}

impl ConstIssue {
    /// ptxas's wording.
    pub fn ptxas(self) -> &'static str {
        match self {
            ConstIssue::TypeMismatch(_) => "Constant expression type mismatch",
            ConstIssue::NotInteger(_) => "Integer constant expression expected",
        }
    }

    pub fn span(self) -> Span {
        match self {
            ConstIssue::TypeMismatch(s) | ConstIssue::NotInteger(s) => s,
        }
    }
}

/// Division (or remainder) by zero: a fatal error in ptxas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DivisionByZero(pub Span);

fn int(value: i64, unsigned: bool) -> ConstValue {
    ConstValue::Int { value, unsigned }
}

fn flag(b: bool) -> ConstValue {
    int(b as i64, false)
}

/// `a op b`.
pub fn binary(
    op: BinaryOp,
    a: ConstValue,
    b: ConstValue,
    span: Span,
    issues: &mut Vec<ConstIssue>,
) -> Result<ConstValue, DivisionByZero> {
    use BinaryOp::*;
    let mixed = a.is_float() != b.is_float();
    if mixed {
        issues.push(ConstIssue::TypeMismatch(span));
    }
    if matches!(op, Div | Rem) && b.is_zero() {
        return Err(DivisionByZero(span));
    }
    if mixed {
        // A comparison still gives an integer; arithmetic keeps the left operand's kind.
        return Ok(match op {
            And | Or | Lt | Gt | Le | Ge | Eq | Ne => flag(false),
            _ => a.zero_like(),
        });
    }
    Ok(match (a, b) {
        (
            ConstValue::Int {
                value: x,
                unsigned: ux,
            },
            ConstValue::Int {
                value: y,
                unsigned: uy,
            },
        ) => {
            let u = ux || uy;
            let (xu, yu) = (x as u64, y as u64);
            match op {
                Mul => int(x.wrapping_mul(y), u),
                Div if u => int((xu / yu) as i64, u),
                Div => int(x.wrapping_div(y), u),
                Rem if u => int((xu % yu) as i64, u),
                Rem => int(x.wrapping_rem(y), u),
                Add => int(x.wrapping_add(y), u),
                Sub => int(x.wrapping_sub(y), u),
                Shl => int(x.wrapping_shl((y & 63) as u32), u),
                Shr if u => int((xu >> (y & 63)) as i64, u),
                Shr => int(x.wrapping_shr((y & 63) as u32), u),
                BitAnd => int(x & y, u),
                BitXor => int(x ^ y, u),
                BitOr => int(x | y, u),
                And => flag(x != 0 && y != 0),
                Or => flag(x != 0 || y != 0),
                Lt if u => flag(xu < yu),
                Gt if u => flag(xu > yu),
                Le if u => flag(xu <= yu),
                Ge if u => flag(xu >= yu),
                Lt => flag(x < y),
                Gt => flag(x > y),
                Le => flag(x <= y),
                Ge => flag(x >= y),
                Eq => flag(x == y),
                Ne => flag(x != y),
            }
        }
        (ConstValue::Float(x), ConstValue::Float(y)) => match op {
            Mul => ConstValue::Float(x * y),
            Div => ConstValue::Float(x / y),
            Add => ConstValue::Float(x + y),
            Sub => ConstValue::Float(x - y),
            And => flag(x != 0.0 && y != 0.0),
            Or => flag(x != 0.0 || y != 0.0),
            Lt => flag(x < y),
            Gt => flag(x > y),
            Le => flag(x <= y),
            Ge => flag(x >= y),
            Eq => flag(x == y),
            Ne => flag(x != y),
            Rem | Shl | Shr | BitAnd | BitXor | BitOr => ConstValue::Float(0.0),
        },
        _ => unreachable!("mixed kinds returned above"),
    })
}

/// `op a`.
pub fn unary(op: UnaryOp, a: ConstValue) -> ConstValue {
    match (op, a) {
        (UnaryOp::Plus, v) => v,
        (UnaryOp::Neg, ConstValue::Int { value, unsigned }) => int(value.wrapping_neg(), unsigned),
        (UnaryOp::Neg, ConstValue::Float(f)) => ConstValue::Float(-f),
        (UnaryOp::Not, ConstValue::Float(f)) => ConstValue::Float((f == 0.0) as i64 as f64),
        (UnaryOp::Not, v) => flag(!v.truth()),
        (UnaryOp::BitNot, ConstValue::Int { value, unsigned }) => int(!value, unsigned),
        (UnaryOp::BitNot, ConstValue::Float(f)) => ConstValue::Float(f),
    }
}

/// `c ? a : b` (both arms were evaluated).
pub fn conditional(c: ConstValue, a: ConstValue, b: ConstValue) -> ConstValue {
    if c.truth() {
        a
    } else {
        b
    }
}

/// Evaluates an expression tree; `Ok(None)` if it names a symbol or register (not a
/// constant).
pub fn eval(e: &Expr, issues: &mut Vec<ConstIssue>) -> Result<Option<ConstValue>, DivisionByZero> {
    Ok(Some(match e {
        Expr::Int(i) => int(i.value.value as i64, i.value.unsigned),
        Expr::Float(f) => ConstValue::Float(f.value.to_f64()),
        Expr::Name(_) | Expr::Call(..) => return Ok(None),
        Expr::Paren(inner, _) => return eval(inner, issues),
        Expr::Unary(op, inner, _) => match eval(inner, issues)? {
            Some(v) => unary(*op, v),
            None => return Ok(None),
        },
        Expr::Binary(op, a, b, span) => {
            let Some(x) = eval(a, issues)? else {
                return Ok(None);
            };
            let Some(y) = eval(b, issues)? else {
                return Ok(None);
            };
            binary(*op, x, y, *span, issues)?
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i(v: i64) -> ConstValue {
        int(v, false)
    }

    #[test]
    fn c_arithmetic() {
        let s = Span::new(0, 0);
        let mut is = Vec::new();
        assert_eq!(binary(BinaryOp::Shl, i(1), i(2), s, &mut is), Ok(i(4)));
        assert_eq!(binary(BinaryOp::Sub, i(4), i(8), s, &mut is), Ok(i(-4)));
        assert_eq!(
            binary(BinaryOp::Add, i(i64::MAX), i(1), s, &mut is),
            Ok(i(i64::MIN))
        );
        assert!(is.is_empty());
        assert_eq!(
            binary(BinaryOp::Mul, ConstValue::Float(1.5), i(2), s, &mut is),
            Ok(ConstValue::Float(0.0))
        );
        assert_eq!(is, vec![ConstIssue::TypeMismatch(s)]);
        assert_eq!(
            binary(BinaryOp::Div, i(1), i(0), s, &mut is),
            Err(DivisionByZero(s))
        );
    }
}
