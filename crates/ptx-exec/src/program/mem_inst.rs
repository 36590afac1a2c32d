//! Memory instruction payloads: cache-control hints, `ld`/`st`, `cp.async`, bulk and tensor
//! (TMA) copies.

use super::*;

/// Cache-control qualifiers of a memory instruction, as the memory model takes them.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MemHints {
    pub operator: Option<memsys::CacheOperator>,
    pub semantics: memsys::Semantics,
    pub scope: memsys::Scope,
    pub non_coherent: bool,
    pub l1_priority: Option<memsys::L1EvictionPriority>,
    pub l2_priority: Option<memsys::L2EvictionPriority>,
    pub prefetch: Option<memsys::PrefetchSize>,
}

/// `ld` (all forms).
#[derive(Debug, Clone, PartialEq)]
pub struct LoadInst {
    pub space: Space,
    /// Bytes per element (1, 2, 4, 8 or 16).
    pub elem_bytes: u32,
    pub extend: Extend,
    /// One destination per vector element; `Sink` for `_`.
    pub dsts: Vec<Dst>,
    /// Width in bits of each destination register (for sign/zero extension).
    pub dst_bits: Vec<u32>,
    pub addr: Addr,
    pub hints: MemHints,
    pub policy: Option<Src>,
}

/// `st` (all forms).
#[derive(Debug, Clone, PartialEq)]
pub struct StoreInst {
    pub space: Space,
    pub elem_bytes: u32,
    /// One source per vector element; `None` for `_` (that element is not written).
    pub srcs: Vec<Option<Src>>,
    pub addr: Addr,
    pub hints: MemHints,
    pub policy: Option<Src>,
}

/// `cp.async.{ca,cg}.shared.global`.
#[derive(Debug, Clone, PartialEq)]
pub struct CpAsyncInst {
    pub dst: Addr,
    pub dst_generic: bool,
    pub src: Addr,
    pub src_generic: bool,
    pub cp_size: u32,
    /// `src-size`: bytes read from the source; the rest is zero-filled.
    pub src_size: Option<Src>,
    /// `ignore-src`: when true, the destination is filled with zeros.
    pub ignore_src: Option<PredSrc>,
    pub hints: MemHints,
    pub policy: Option<Src>,
}

/// The direction (and completion mechanism) of a non-tensor `cp{.reduce}.async.bulk`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BulkDirection {
    /// `.shared::cta`/`.shared::cluster` ← `.global`, completed through an mbarrier.
    GlobalToShared,
    /// `.shared::cluster` ← `.shared::cta`, completed through an mbarrier.
    SharedToShared,
    /// `.global` ← `.shared::cta`, completed through bulk async-groups.
    SharedToGlobal,
}

/// `cp.async.bulk` and `cp.reduce.async.bulk` (not `.tensor`).
#[derive(Debug, Clone, PartialEq)]
pub struct BulkCopyInst {
    pub dir: BulkDirection,
    pub dst: Addr,
    pub src: Addr,
    /// Bytes (a multiple of 16).
    pub size: Src,
    /// The mbarrier of the mbarrier-completed directions.
    pub mbar: Option<Addr>,
    /// `cp.reduce.async.bulk`: the operation and element type.
    pub reduce: Option<(AtomOp, ScalarType)>,
    /// Cache hints of the global side (L2 only; `.L2::cache_hint` with `policy`).
    pub hints: MemHints,
    pub policy: Option<Src>,
    /// `.multicast::cluster`'s ctaMask.
    pub cta_mask: Option<Src>,
    /// `.ignore_oob`'s ignoreBytesLeft, ignoreBytesRight.
    pub ignore_oob: Option<(Src, Src)>,
}

/// What a `.tensor` bulk instruction does with its box.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TensorOpKind {
    /// `cp.async.bulk.tensor` global → shared (mbarrier complete-tx).
    Load,
    /// `cp.async.bulk.tensor` shared → global (bulk async-group).
    Store,
    /// `cp.reduce.async.bulk.tensor` shared → global (bulk async-group).
    Reduce(AtomOp),
    /// `cp.async.bulk.prefetch.tensor` global → L2.
    Prefetch,
}

/// `cp{.reduce}.async.bulk{.prefetch}.tensor` in tile mode.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorCopyInst {
    pub kind: TensorOpKind,
    /// `.1d` … `.5d`.
    pub dim: u32,
    /// The shared-memory box (destination of a load, source of a store or reduction).
    pub smem: Addr,
    /// The tensor map's address and the space the operand resolved to (a register holds a
    /// generic address; a `.param`/`.const`/`.global` symbol names its own space).
    pub tmap: Addr,
    pub tmap_space: Space,
    pub coords: Vec<Src>,
    pub mbar: Option<Addr>,
    pub policy: Option<Src>,
    pub cta_mask: Option<Src>,
}
