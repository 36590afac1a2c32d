//! Constant expressions and literals.

use crate::span::{Span, Spanned};
use smol_str::SmolStr;

/// A constant expression (initializers, debug data, operands such as `sym+4`).
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Int(Spanned<IntLit>),
    Float(Spanned<FloatLit>),
    Name(Spanned<SmolStr>),
    Unary(UnaryOp, Box<Expr>, Span),
    Binary(BinaryOp, Box<Expr>, Box<Expr>, Span),
    /// `generic(sym)` and `generic(sym)+4` in initializers, as a call of one argument.
    Call(Spanned<SmolStr>, Box<Expr>, Span),
    Paren(Box<Expr>, Span),
}

impl Expr {
    pub fn span(&self) -> Span {
        match self {
            Expr::Int(i) => i.span,
            Expr::Float(f) => f.span,
            Expr::Name(n) => n.span,
            Expr::Unary(_, _, s)
            | Expr::Binary(_, _, _, s)
            | Expr::Call(_, _, s)
            | Expr::Paren(_, s) => *s,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Not,
    BitNot,
    Plus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    BitAnd,
    BitXor,
    BitOr,
    And,
    Or,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
}

impl BinaryOp {
    pub fn token(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Mul => "*",
            Div => "/",
            Rem => "%",
            Add => "+",
            Sub => "-",
            Shl => "<<",
            Shr => ">>",
            BitAnd => "&",
            BitXor => "^",
            BitOr => "|",
            And => "&&",
            Or => "||",
            Lt => "<",
            Gt => ">",
            Le => "<=",
            Ge => ">=",
            Eq => "==",
            Ne => "!=",
        }
    }

    /// Binding strength (higher binds tighter), as in C.
    pub fn precedence(self) -> u8 {
        use BinaryOp::*;
        match self {
            Mul | Div | Rem => 10,
            Add | Sub => 9,
            Shl | Shr => 8,
            Lt | Gt | Le | Ge => 7,
            Eq | Ne => 6,
            BitAnd => 5,
            BitXor => 4,
            BitOr => 3,
            And => 2,
            Or => 1,
        }
    }
}

/// An integer literal: its value (negative only through a unary minus, folded by the parser
/// into operands) and whether it had the `U` suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntLit {
    pub value: i128,
    pub unsigned: bool,
}

/// A floating-point literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FloatLit {
    /// `0f3F800000`: the exact bits of an `.f32`.
    F32Bits(u32),
    /// `0d3FF0000000000000`: the exact bits of an `.f64`.
    F64Bits(u64),
    /// `1.0`, `0.25`, `1e-3`: decimal, kept as written.
    Decimal(SmolStr),
}

impl FloatLit {
    /// The value as an `f64` (exact for `F32Bits`/`F64Bits`).
    pub fn to_f64(&self) -> f64 {
        match self {
            FloatLit::F32Bits(b) => f32::from_bits(*b) as f64,
            FloatLit::F64Bits(b) => f64::from_bits(*b),
            FloatLit::Decimal(s) => s.parse().unwrap_or(f64::NAN),
        }
    }
}
