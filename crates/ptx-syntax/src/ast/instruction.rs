//! One instruction: its guard, its [`Op`] (typed or generic) and the generic form.

use super::{
    CpAsync, CreatePolicy, GroupOp, LoadStore, MbarrierArrive, Name, Operand, Prefetch,
    QualifierList,
};
use crate::span::{Span, Spanned};
use ptx_isa::{Modifier, Opcode};
use smol_str::SmolStr;

/// `@%p` or `@!%p`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guard {
    pub negated: bool,
    pub predicate: Name,
    pub span: Span,
}

/// One instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct Instruction {
    /// Boxed, as most instructions have none (see [`Statement`](super::Statement) on its size).
    pub guard: Option<Box<Guard>>,
    pub op: Op,
    /// The opcode with its modifiers (`ld.global.nc.b32`).
    pub opcode_span: Span,
    /// From the guard (or opcode) to the `;`.
    pub span: Span,
    /// What ptxas reports about the constant expressions among the operands (address offsets,
    /// immediates such as `1.5*2`), in operand order; the expressions themselves are folded
    /// into literals. Nearly always empty (which allocates nothing).
    pub const_issues: Box<[crate::consteval::ConstIssue]>,
}

/// The instruction proper: typed for the cache-control instructions, generic otherwise.
///
/// The typed forms are boxed: their qualifier fields take up to 216 bytes, against 80 for a
/// generic instruction, and every statement of a body would otherwise be as large as an `ld`
/// (and be copied at that size while it is parsed and stored).
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Ld(Box<LoadStore>),
    St(Box<LoadStore>),
    CpAsync(Box<CpAsync>),
    CpAsyncCommitGroup(Box<GroupOp>),
    CpAsyncWaitGroup(Box<GroupOp>),
    CpAsyncWaitAll(Box<GroupOp>),
    CpAsyncMbarrierArrive(Box<MbarrierArrive>),
    CreatePolicy(Box<CreatePolicy>),
    Prefetch(Box<Prefetch>),
    Generic(GenericInstruction),
}

impl Op {
    /// The opcode as ptxas names it in messages (`ld`, `cp.async`, `createpolicy`, …).
    pub fn mnemonic(&self) -> &str {
        match self {
            Op::Ld(_) => "ld",
            Op::St(_) => "st",
            Op::CpAsync(_) => "cp.async",
            Op::CpAsyncCommitGroup(_) => "cp.async.commit_group",
            Op::CpAsyncWaitGroup(_) => "cp.async.wait_group",
            Op::CpAsyncWaitAll(_) => "cp.async.wait_all",
            Op::CpAsyncMbarrierArrive(_) => "cp.async.mbarrier.arrive",
            Op::CreatePolicy(_) => "createpolicy",
            Op::Prefetch(p) => {
                if p.uniform {
                    "prefetchu"
                } else {
                    "prefetch"
                }
            }
            Op::Generic(g) => &g.opcode.value,
        }
    }

    /// The opcode as ptx-isa classifies it: fixed for the typed forms, the parser's
    /// classification for a generic instruction (`None`: a name ptxas does not know).
    pub fn opcode(&self) -> Option<Opcode> {
        match self {
            Op::Ld(_) => Some(Opcode::Ld),
            Op::St(_) => Some(Opcode::St),
            Op::CpAsync(_)
            | Op::CpAsyncCommitGroup(_)
            | Op::CpAsyncWaitGroup(_)
            | Op::CpAsyncWaitAll(_)
            | Op::CpAsyncMbarrierArrive(_) => Some(Opcode::Cp),
            Op::CreatePolicy(_) => Some(Opcode::Createpolicy),
            Op::Prefetch(p) if p.uniform => Some(Opcode::Prefetchu),
            Op::Prefetch(_) => Some(Opcode::Prefetch),
            Op::Generic(g) => g.known,
        }
    }

    /// The opcode's word as written, without modifiers (`cp` of `cp.async.wait_all`).
    pub fn opcode_word(&self) -> &str {
        match (self, self.opcode()) {
            (Op::Generic(g), _) => &g.opcode.value,
            (_, Some(op)) => op.name(),
            (_, None) => unreachable!("a typed instruction has a known opcode"),
        }
    }

    /// The operands as written.
    pub fn operands(&self) -> &[Operand] {
        match self {
            Op::Ld(x) | Op::St(x) => &x.operands,
            Op::CpAsync(x) => &x.operands,
            Op::CpAsyncCommitGroup(x) | Op::CpAsyncWaitGroup(x) | Op::CpAsyncWaitAll(x) => {
                &x.operands
            }
            Op::CpAsyncMbarrierArrive(x) => &x.operands,
            Op::CreatePolicy(x) => &x.operands,
            Op::Prefetch(x) => &x.operands,
            Op::Generic(x) => &x.operands,
        }
    }

    /// [`Op::operands`], to rewrite them.
    pub fn operands_mut(&mut self) -> &mut Vec<Operand> {
        match self {
            Op::Ld(x) | Op::St(x) => &mut x.operands,
            Op::CpAsync(x) => &mut x.operands,
            Op::CpAsyncCommitGroup(x) | Op::CpAsyncWaitGroup(x) | Op::CpAsyncWaitAll(x) => {
                &mut x.operands
            }
            Op::CpAsyncMbarrierArrive(x) => &mut x.operands,
            Op::CreatePolicy(x) => &mut x.operands,
            Op::Prefetch(x) => &mut x.operands,
            Op::Generic(x) => &mut x.operands,
        }
    }

    /// The qualifier list of a typed instruction.
    pub fn qualifiers(&self) -> Option<&QualifierList> {
        Some(match self {
            Op::Ld(x) | Op::St(x) => &x.qualifiers,
            Op::CpAsync(x) => &x.qualifiers,
            Op::CpAsyncCommitGroup(x) | Op::CpAsyncWaitGroup(x) | Op::CpAsyncWaitAll(x) => {
                &x.qualifiers
            }
            Op::CpAsyncMbarrierArrive(x) => &x.qualifiers,
            Op::CreatePolicy(x) => &x.qualifiers,
            Op::Prefetch(x) => &x.qualifiers,
            Op::Generic(_) => return None,
        })
    }
}

/// Any other instruction: opcode, modifiers and operands as written.
#[derive(Debug, Clone, PartialEq)]
pub struct GenericInstruction {
    /// The opcode as written.
    pub opcode: Spanned<SmolStr>,
    /// The opcode as ptx-isa classifies it (the parser's [`Opcode::parse`] of `opcode`);
    /// `None` for a name ptxas does not know.
    pub known: Option<Opcode>,
    pub modifiers: Vec<ModifierWord>,
    pub operands: Vec<Operand>,
}

impl GenericInstruction {
    /// True if `modifier` is among the modifiers (`g.has(Modifier::Cc)`,
    /// `g.has(StateSpace::Global)`).
    pub fn has(&self, modifier: impl Into<Modifier>) -> bool {
        let modifier = Some(modifier.into());
        self.modifiers.iter().any(|m| m.known == modifier)
    }

    /// The classified modifiers, in order (the unclassified ones left out).
    pub fn known_modifiers(&self) -> impl Iterator<Item = Modifier> + '_ {
        self.modifiers.iter().filter_map(|m| m.known)
    }
}

/// One modifier of a generic instruction: as written (diagnostics quote it so) and as
/// ptx-isa classifies it (the parser's [`Modifier::parse`] of `value`; `None` for a spelling
/// neither ptx-isa table has).
#[derive(Debug, Clone, PartialEq)]
pub struct ModifierWord {
    pub value: SmolStr,
    pub span: Span,
    pub known: Option<Modifier>,
}
