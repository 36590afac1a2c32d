//! Variable declarations in any state space, with their declarators and initializers.

use super::{Expr, Linkage};
use crate::span::{Span, Spanned};
use ptx_isa::{StateSpace, VarType, VectorWidth};
use smol_str::SmolStr;

/// A variable declaration in any state space.
#[derive(Debug, Clone, PartialEq)]
pub struct VarDecl {
    pub linkage: Vec<Spanned<Linkage>>,
    pub space: Spanned<StateSpace>,
    /// `.attribute(.managed)` and similar, as written inside the parentheses.
    pub attributes: Vec<Spanned<SmolStr>>,
    pub align: Option<Spanned<u64>>,
    pub vector: Option<Spanned<VectorWidth>>,
    pub ty: Spanned<VarType>,
    /// `.ptr` marker seen in some `.param` declarations inside bodies.
    pub declarators: Vec<Declarator>,
    pub span: Span,
}

/// One declared name: `%r<10>`, `buf[16][4]`, `x = 5`.
#[derive(Debug, Clone, PartialEq)]
pub struct Declarator {
    pub name: Spanned<SmolStr>,
    /// `%r<10>` declares `%r0` … `%r9`.
    pub range: Option<u32>,
    pub dims: Vec<Option<u64>>,
    pub init: Option<Initializer>,
    pub span: Span,
}

/// A variable initializer.
#[derive(Debug, Clone, PartialEq)]
pub enum Initializer {
    Expr(Expr),
    List(Vec<Initializer>, Span),
}
