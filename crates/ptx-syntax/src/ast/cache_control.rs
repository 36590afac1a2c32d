//! The typed cache-control instructions (`ld`/`st`, `cp.async` and its group forms,
//! `createpolicy`, `prefetch`) and the qualifier list they classify.

use super::Operand;
use crate::span::{Span, Spanned};
use ptx_isa::{
    CacheLevel, CacheOperator, L1EvictionPriority, L2EvictionPriority, MemorySemantics, PolicyKind,
    PrefetchSize, Qualifier, ScalarType, Scope, StateSpace, VectorWidth,
};
use smol_str::SmolStr;

/// The qualifiers of a typed instruction in written order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct QualifierList {
    /// Every modifier after the opcode, in order; unknown ones as [`WrittenQualifier::Unknown`].
    pub written: Vec<Spanned<WrittenQualifier>>,
}

/// One written modifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WrittenQualifier {
    Known(Qualifier),
    Unknown(SmolStr),
}

impl WrittenQualifier {
    pub fn text(&self) -> &str {
        match self {
            WrittenQualifier::Known(q) => q.token(),
            WrittenQualifier::Unknown(s) => s,
        }
    }
}

/// `ld` and `st` (including `ld.global.nc` and the `.mmio` forms).
#[derive(Debug, Clone, PartialEq)]
pub struct LoadStore {
    pub qualifiers: QualifierList,
    pub semantics: Option<Spanned<MemorySemantics>>,
    pub mmio: Option<Span>,
    pub scope: Option<Spanned<Scope>>,
    pub space: Option<Spanned<StateSpace>>,
    pub cache_op: Option<Spanned<CacheOperator>>,
    /// `.nc` (only meaningful on `ld.global`).
    pub nc: Option<Span>,
    pub l1_priority: Option<Spanned<L1EvictionPriority>>,
    pub l2_priority: Option<Spanned<L2EvictionPriority>>,
    pub cache_hint: Option<Span>,
    pub prefetch_size: Option<Spanned<PrefetchSize>>,
    pub vector: Option<Spanned<VectorWidth>>,
    pub ty: Option<Spanned<ScalarType>>,
    /// As written: `d, [a]{, policy}` for ld, `[a], b{, policy}` for st.
    pub operands: Vec<Operand>,
}

impl LoadStore {
    /// The effective memory semantics (`.weak` when none is written).
    pub fn effective_semantics(&self) -> MemorySemantics {
        self.semantics.map_or(MemorySemantics::Weak, |s| s.value)
    }
}

/// `cp.async.{ca,cg}.shared{::cta}.global{.L2::cache_hint}{.L2::NB} [dst], [src], size{, src-size | ignore-src}{, policy}`.
#[derive(Debug, Clone, PartialEq)]
pub struct CpAsync {
    pub qualifiers: QualifierList,
    pub cache_op: Option<Spanned<CacheOperator>>,
    /// The first state space written (the destination).
    pub dst_space: Option<Spanned<StateSpace>>,
    /// The second state space written (the source).
    pub src_space: Option<Spanned<StateSpace>>,
    pub cache_hint: Option<Span>,
    pub prefetch_size: Option<Spanned<PrefetchSize>>,
    pub operands: Vec<Operand>,
}

/// `cp.async.commit_group`, `cp.async.wait_group N`, `cp.async.wait_all`.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupOp {
    pub qualifiers: QualifierList,
    pub operands: Vec<Operand>,
}

/// `cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr]`.
#[derive(Debug, Clone, PartialEq)]
pub struct MbarrierArrive {
    pub qualifiers: QualifierList,
    pub noinc: Option<Span>,
    pub space: Option<Spanned<StateSpace>>,
    pub ty: Option<Spanned<ScalarType>>,
    pub operands: Vec<Operand>,
}

/// `createpolicy.range/.fractional/.cvt`.
#[derive(Debug, Clone, PartialEq)]
pub struct CreatePolicy {
    pub qualifiers: QualifierList,
    pub kind: Option<Spanned<PolicyKind>>,
    /// `.global` of `createpolicy.range.global`.
    pub space: Option<Spanned<StateSpace>>,
    pub primary: Option<Spanned<L2EvictionPriority>>,
    pub secondary: Option<Spanned<L2EvictionPriority>>,
    /// `.L2` of `createpolicy.cvt.L2`.
    pub level: Option<Spanned<CacheLevel>>,
    pub ty: Option<Spanned<ScalarType>>,
    pub operands: Vec<Operand>,
}

/// `prefetch{.space}.level [a]`, `prefetch.global.L2::evict_*`, `prefetchu.L1`,
/// `prefetch{.space}.tensormap`.
#[derive(Debug, Clone, PartialEq)]
pub struct Prefetch {
    pub qualifiers: QualifierList,
    /// `prefetchu`.
    pub uniform: bool,
    pub space: Option<Spanned<StateSpace>>,
    pub level: Option<Spanned<CacheLevel>>,
    pub l2_priority: Option<Spanned<L2EvictionPriority>>,
    pub tensormap: Option<Span>,
    pub operands: Vec<Operand>,
}
