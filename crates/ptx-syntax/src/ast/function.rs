//! Kernels and device functions: signature, parameters and header directives.

use super::{Block, Linkage, Pragma};
use crate::span::{Span, Spanned};
use ptx_isa::{ScalarType, StateSpace};
use smol_str::SmolStr;

/// `.entry` (kernel) or `.func` (device function).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunctionKind {
    Entry,
    Func,
}

/// A kernel or device function, declared or defined.
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    pub linkage: Vec<Spanned<Linkage>>,
    pub kind: Spanned<FunctionKind>,
    /// `.func (.param .b32 ret) f(...)`: the return parameters.
    pub returns: Option<Vec<Param>>,
    pub name: Spanned<SmolStr>,
    /// `None` when the name is not followed by a parameter list.
    pub params: Option<Vec<Param>>,
    /// `.maxntid`, `.reqntid`, `.noreturn`, `.pragma`, … between the signature and the body.
    pub directives: Vec<FunctionDirective>,
    /// `None` for a declaration (`;` instead of a body).
    pub body: Option<Block>,
    pub span: Span,
}

/// A performance-tuning or attribute directive of a function.
#[derive(Debug, Clone, PartialEq)]
pub enum FunctionDirective {
    /// `.maxntid 128, 1, 1`, `.reqntid 256`, `.minnctapersm 2`, `.maxnreg 64`,
    /// `.maxclusterrank 8`, `.reqnctapercluster 2, 1, 1`, `.explicitcluster`, `.noreturn`,
    /// `.blocksareclusters`.
    Tuning {
        name: Spanned<SmolStr>,
        values: Vec<u64>,
        span: Span,
    },
    Pragma(Pragma),
}

/// The directives a function header may carry, with how many values each takes.
pub const FUNCTION_DIRECTIVES: &[(&str, usize, usize)] = &[
    (".maxntid", 1, 3),
    (".reqntid", 1, 3),
    (".minnctapersm", 1, 1),
    (".maxnctapersm", 1, 1),
    (".maxnreg", 1, 1),
    (".maxclusterrank", 1, 1),
    (".reqnctapercluster", 1, 3),
    (".explicitcluster", 0, 0),
    (".noreturn", 0, 0),
    (".blocksareclusters", 0, 0),
    (".abi_preserve", 1, 1),
    (".abi_preserve_control", 1, 1),
];

/// A parameter of a kernel or function.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// `.param` or `.reg`.
    pub space: Spanned<StateSpace>,
    pub align: Option<u32>,
    pub ty: Spanned<ScalarType>,
    /// `.ptr .global .align 16` (kernel pointer parameters).
    pub ptr: Option<PtrAttribute>,
    pub name: Spanned<SmolStr>,
    /// Array dimensions: `name[16]` gives `[Some(16)]`, `name[]` gives `[None]`.
    pub dims: Vec<Option<u64>>,
    pub span: Span,
}

/// The `.ptr` attribute of a kernel parameter: the space and alignment of what it points to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PtrAttribute {
    pub space: Option<StateSpace>,
    pub align: Option<u32>,
}
