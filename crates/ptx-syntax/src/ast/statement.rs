//! The statements of a function body: blocks, `.loc`, target lists.

use super::{Expr, Instruction, Param, Pragma, VarDecl};
use crate::span::{Span, Spanned};
use smol_str::SmolStr;

/// A `{ ... }` scope.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub statements: Vec<Statement>,
    pub span: Span,
}

/// A statement of a function body.
///
/// Kept at 128 bytes (a test asserts it): every statement is moved a few times while it is
/// parsed and stored, and a move of up to 128 bytes is a few vector stores where a larger one
/// is a `memcpy` call (at 192 bytes, three per statement: 1.5 % of the instructions of
/// checking a large module). Declarations and guards, the large rare parts, are boxed.
#[derive(Debug, Clone, PartialEq)]
pub enum Statement {
    Var(Box<VarDecl>),
    Label(Spanned<SmolStr>),
    Instruction(Instruction),
    Block(Block),
    Loc(Loc),
    Pragma(Pragma),
    /// `proto : .callprototype (.param .b32 _) _ (.param .b64 _);`
    CallPrototype {
        label: Spanned<SmolStr>,
        returns: Option<Vec<Param>>,
        params: Vec<Param>,
        noreturn: bool,
        span: Span,
    },
    /// `ts: .branchtargets L0, L1;` (the labels `brx.idx` chooses among) or
    /// `ft: .calltargets f, g;` (the functions an indirect `call` may reach).
    TargetList(Box<TargetList>),
}

/// A labelled target list of a function body (PTX ISA: `.branchtargets`, `.calltargets`).
#[derive(Debug, Clone, PartialEq)]
pub struct TargetList {
    pub kind: TargetListKind,
    pub label: Spanned<SmolStr>,
    /// The names as written, in order (repeats allowed: ptxas accepts `L0, L1, L0`).
    pub targets: Vec<Spanned<SmolStr>>,
    pub span: Span,
}

/// Which directive a [`TargetList`] was written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetListKind {
    /// `.branchtargets`: labels of the function, the operand of `brx.idx`.
    Branch,
    /// `.calltargets`: functions, the last operand of an indirect `call`.
    Call,
}

impl TargetListKind {
    pub fn token(self) -> &'static str {
        match self {
            TargetListKind::Branch => ".branchtargets",
            TargetListKind::Call => ".calltargets",
        }
    }
}

/// `.loc file line column[, function_name label[+off], inlined_at file line column]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Loc {
    pub file: u32,
    pub line: u32,
    pub column: u32,
    pub function_name: Option<Expr>,
    pub inlined_at: Option<(u32, u32, u32)>,
    pub span: Span,
}
