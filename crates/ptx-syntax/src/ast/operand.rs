//! Instruction operands: names, immediates, addresses, vectors and lists.

use super::{Expr, FloatLit, IntLit};
use crate::span::{Span, Spanned};
use smol_str::SmolStr;

/// A register, symbol or label reference, with an optional `.x/.y/.z/.w` component
/// (`%tid.x`, `%ctaid.y`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    pub name: SmolStr,
    pub component: Option<SmolStr>,
    pub span: Span,
}

/// An instruction operand.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// A register, variable, label or special register (`%r1`, `buf`, `$L__BB0_1`, `%tid.x`).
    Name(Name),
    /// An integer immediate, sign folded (`-8` is one literal).
    Int(Spanned<IntLit>),
    Float(Spanned<FloatLit>),
    /// A compound constant expression (`sym+4`, `(1<<3)`).
    Expr(Expr),
    /// `{%r1, _, %r3}`.
    Vector(Vec<Operand>, Span),
    /// `_`: no read or no write.
    Sink(Span),
    /// `[base+offset]` in any of its forms (boxed, as the rare large forms are: an operand is
    /// moved and stored for every operand parsed, and the common ones are small).
    Address(Box<Address>),
    /// A bracketed operand that is not a plain address (`[tex, {%f1, %f2}]`).
    Bracket(Vec<Operand>, Span),
    /// `!%p`: a negated predicate.
    Not(Box<Operand>, Span),
    /// `%p|%q`: the two destinations of `setp`.
    PredPair(Box<Name>, Box<Name>, Span),
    /// `(a, b)`: the argument lists of `call`.
    List(Vec<Operand>, Span),
    /// `buf[8]`: a name followed by a bracketed operand, ptxas's array-element address (also
    /// what a missing comma such as `%r1 [%rd1]` reads as). The bracket is an
    /// [`Operand::Address`] (with its `.unified`) or an [`Operand::Bracket`].
    Indexed(Name, Box<Operand>, Span),
}

impl Operand {
    pub fn span(&self) -> Span {
        match self {
            Operand::Name(n) => n.span,
            Operand::Int(i) => i.span,
            Operand::Float(f) => f.span,
            Operand::Expr(e) => e.span(),
            Operand::Address(a) => a.span,
            Operand::Vector(_, s)
            | Operand::Sink(s)
            | Operand::Bracket(_, s)
            | Operand::Not(_, s)
            | Operand::PredPair(_, _, s)
            | Operand::List(_, s)
            | Operand::Indexed(_, _, s) => *s,
        }
    }

    /// The register or symbol name, if this operand is one.
    pub fn as_name(&self) -> Option<&Name> {
        match self {
            Operand::Name(n) => Some(n),
            _ => None,
        }
    }
}

/// `[%rd1]`, `[%rd1+8]`, `[%rd1+-8]`, `[buf+4]`, `[100]`, optionally followed by `.unified`.
#[derive(Debug, Clone, PartialEq)]
pub struct Address {
    /// The register or variable; `None` for an immediate address.
    pub base: Option<Name>,
    pub offset: i64,
    /// What ptxas reports about the offset's constant expression (a float offset, an integer
    /// combined with a float); empty for a plain integer.
    pub offset_issues: Vec<crate::consteval::ConstIssue>,
    /// `ld ... [a].unified`.
    pub unified: bool,
    pub span: Span,
}
