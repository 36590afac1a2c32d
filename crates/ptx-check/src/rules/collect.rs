//! The order in which ptxas prints an instruction's messages, as data, and the collector that
//! applies it.
//!
//! ptxas checks an instruction in stages (docs/ptxas-rules.md §4): the guard, a left-to-right
//! scan of the modifiers (whose messages keep text order), then checks in a fixed order that
//! does not depend on the text. Each check is a [`Key`]; each instruction family has its
//! order list ([`LD_ORDER`], [`ST_ORDER`], …, from §12 and `tests/parity/rules_model.py`).
//! A rule adds its message under its key in any order; [`Msgs::finish`] sorts them into ptxas's.

use crate::Diagnostic;

/// One check of ptxas's, as far as the order of its messages goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key {
    // ld / st
    IllegalExpression,
    UnableToInfer,
    IncompatibleElements,
    IllegalVectorSize,
    NotAName,
    AddrB128,
    ArrayIndexing,
    Wide256Ver,
    Wide256Tgt,
    GlobalExpected256,
    SsiInstruction,
    UnexpectedTypes,
    SpaceCount,
    ClusterVer,
    ClusterTgt,
    CtaVer,
    EntryVer,
    FuncVer,
    IllegalSubspace,
    PfTgt,
    PfVer,
    IllegalSpaceForAddr,
    Pf256Tgt,
    Pf256Ver,
    CombinePfMmio,
    SsiFeature,
    DuplicateEvict,
    EvictVer,
    EvictTgt,
    EvictSpace,
    CombineEvictCop,
    CombineEvictMmio,
    CombineEvictVolatile,
    EvictSyntax,
    EvictIncorrect,
    L2EvictNeedsVec,
    IllegalL2Evict,
    ResultDiscard,
    SpecialReg,
    AddrF32,
    AddrF64,
    AddrPred,
    AddrUnexpected,
    IllegalOperandType,
    ImmediateAddr,
    OutOfBound,
    WriteInputParam,
    ReadReturnParam,
    SpaceMismatch,
    IllegalUnified,
    ResultRegister,
    ResultVector,
    CombineWeakNc,
    CombineVolatileCop,
    CombineVolatileNc,
    LocalVolatileVer,
    VolatileSpace,
    VectorTooLarge,
    SinkSource,
    CombineOrderCop,
    CombineOrderNc,
    WeakTgtAgain,
    AcquireTgt,
    RelaxedTgt,
    ReleaseTgt,
    OrderSpace,
    IllegalOrder,
    NeedScopeAcquire,
    NeedScopeRelaxed,
    NeedScopeRelease,
    MmioSpace,
    CombineMmioVec,
    AcquireVer,
    ReleaseVer,
    ClusterScopeTgt,
    ClusterScopeVer,
    MmioNeedsOrder,
    CombineMmioScope,
    CombineVolatileScope,
    CombineWeakScope,
    NeedOrder,
    NeedScopeMmio,
    B128Ver,
    B128Tgt,
    B128SysVer,
    NcNeedsGlobal,
    LdNcTgt,
    IllegalCacheOpNc,
    VecMismatchNoVn,
    HintRequired,
    ArgsMismatch,
    IllegalNc,
    IllegalPf,
    IllegalPredicate,
    IllegalCop,
    HintTgt,
    HintVer,
    CombineHintVolatile,
    MustBeRegister,
    CombineHintMmio,
    HintSpace,
    LdLevel,
    LdAligned,
    LdAsync,
    // cp.async
    CpaVer,
    CpaTgt,
    ArgValue,
    ArgRange,
    IgnoreSrcVer,
    IllegalEvictLevel,
    IllegalEvict,
    VectorNotAllowed,
    CopRequired,
    CpaLevel,
    CpaMbarrier,
    CpaAligned,
    CpaNoinc,
    CpaScope1,
    CpaSem,
    CpaMmio,
    CpaScope2,
    CpaNc,
    CpaAsync,
    CpaRead,
    // createpolicy
    PolKindTgt,
    PolKindVer,
    PolArgCompare,
    PolSpace,
    PolLevelRequired,
    PolArgRange,
    PolNoSpace,
    PolPrimary,
    PolSecondary,
    PolIllegalLevel,
    PolNeedL2,
    PolPriorityGate,
    PolLevelWithPriority,
    PolSyntax,
    PolCvtL1,
    PolCvtEvict,
    PolAddr,
    PolVector,
    PolResultReg,
    PolForeign,
    // prefetch
    PfUnified,
    PfTmSpace,
    PfTmTgt,
    PfTmVer,
    PfSpaceCount,
    PfSsi,
    PfIllegalLevel,
    PfSize,
    PfSizeSpace,
    PfMultiEvict,
    PfEvictVer,
    PfEvictTgt,
    PfEvictIllegal,
    PfLevelWithEvict,
    PfEvictL1,
    PfEvictSpace,
    PfVector,
    PfAddr,
    PfCop,
    PfLevelRequired,
    PfForeign,
    // applypriority / discard
    ApFeatTgt,
    ApFeatVer,
    ApEvictRequired,
    ApL2Required,
    ApTmTgt,
    ApTmVer,
    ApTmIllegal,
    ApArg2,
    ApIllegalLevel,
    ApIllegalLevelled,
    ApSpaceCount,
    ApSubspace,
    ApSubspaceVer,
    ApSubspaceTgt,
    ApSsi,
    ApEvictIllegal,
    ApMultiEvict,
    ApEvictVer,
    ApEvictTgt,
    ApResultDiscard,
    ApUnsupported,
    ApLevelWithEvict,
    ApEvictL1,
    ApEvictSyntax,
    ApEvictSpace,
    ApVector,
    ApUnified,
    ApAddr,
    ApCop,
    ApForeign,
    // cp.async.mbarrier.arrive
    MbFeature,
    MbCta,
    MbReduction,
    MbIllegalSem,
    MbSubspace,
    MbCluster,
    MbSpaceCount,
    MbSsi,
    MbAddr,
}

use Key::*;

/// `ld` and `ld.global.nc` (docs/ptxas-rules.md §12.1).
#[rustfmt::skip]
pub(crate) const LD_ORDER: &[Key] = &[
    IllegalExpression, UnableToInfer, IncompatibleElements, IllegalVectorSize, NotAName,
    AddrB128, ArrayIndexing, Wide256Ver, Wide256Tgt, GlobalExpected256, SsiInstruction,
    UnexpectedTypes, LdLevel, SpaceCount, ClusterVer, ClusterTgt, CtaVer, EntryVer, FuncVer,
    IllegalSubspace, PfTgt, PfVer, IllegalSpaceForAddr, Pf256Tgt, Pf256Ver, CombinePfMmio,
    SsiFeature, DuplicateEvict, EvictVer, EvictTgt, EvictSpace, CombineEvictCop,
    CombineEvictMmio, CombineEvictVolatile, EvictSyntax, EvictIncorrect, L2EvictNeedsVec,
    IllegalL2Evict, LdAligned, SpecialReg, ResultDiscard, AddrF32, AddrF64, AddrPred,
    AddrUnexpected, IllegalOperandType, ImmediateAddr, OutOfBound, WriteInputParam, ReadReturnParam,
    SpaceMismatch, IllegalUnified, ResultRegister, ResultVector, CombineWeakNc,
    CombineVolatileCop, CombineVolatileNc, LocalVolatileVer, VolatileSpace, VectorTooLarge,
    SinkSource, CombineOrderCop, CombineOrderNc, WeakTgtAgain, AcquireTgt, RelaxedTgt,
    ReleaseTgt, OrderSpace, IllegalOrder, NeedScopeAcquire, NeedScopeRelaxed, NeedScopeRelease,
    MmioSpace, CombineMmioVec, AcquireVer, ReleaseVer, ClusterScopeTgt, ClusterScopeVer,
    MmioNeedsOrder, CombineMmioScope, CombineVolatileScope, CombineWeakScope, NeedOrder,
    NeedScopeMmio, NcNeedsGlobal, LdNcTgt, IllegalCacheOpNc, VecMismatchNoVn, HintRequired,
    ArgsMismatch, IllegalNc, IllegalPf, IllegalPredicate, B128Ver, B128Tgt, B128SysVer,
    IllegalCop, HintTgt, HintVer, CombineHintVolatile, MustBeRegister, CombineHintMmio,
    HintSpace, LdAsync,
];

/// `st` (§12.2).
#[rustfmt::skip]
pub(crate) const ST_ORDER: &[Key] = &[
    AddrB128, ArrayIndexing, IllegalExpression, UnableToInfer, IncompatibleElements,
    IllegalVectorSize, NotAName, Wide256Ver, Wide256Tgt, UnexpectedTypes, GlobalExpected256,
    LdLevel, SpaceCount, SsiInstruction, ClusterVer, ClusterTgt, CtaVer, EntryVer, FuncVer,
    IllegalSubspace, PfTgt, PfVer, IllegalSpaceForAddr, Pf256Tgt, Pf256Ver, CombinePfMmio,
    SsiFeature, DuplicateEvict, EvictVer, EvictTgt, EvictSpace, CombineEvictCop,
    CombineEvictMmio, CombineEvictVolatile, OutOfBound, EvictSyntax, EvictIncorrect,
    L2EvictNeedsVec, IllegalL2Evict, LdAligned, AddrF32, AddrF64, AddrPred, AddrUnexpected,
    IllegalOperandType, ImmediateAddr, SpecialReg, ResultDiscard, WriteInputParam, ReadReturnParam,
    SpaceMismatch, IllegalUnified, ResultRegister, ResultVector, SinkSource, CombineWeakNc,
    CombineVolatileCop, CombineVolatileNc, LocalVolatileVer, VolatileSpace, VectorTooLarge,
    CombineOrderCop, CombineOrderNc, WeakTgtAgain, AcquireTgt, RelaxedTgt, ReleaseTgt,
    OrderSpace, IllegalOrder, NeedScopeAcquire, NeedScopeRelaxed, NeedScopeRelease, MmioSpace,
    CombineMmioVec, AcquireVer, ReleaseVer, ClusterScopeTgt, ClusterScopeVer, MmioNeedsOrder,
    CombineMmioScope, CombineVolatileScope, CombineWeakScope, NeedOrder, NeedScopeMmio,
    NcNeedsGlobal, LdNcTgt, IllegalCacheOpNc, IllegalNc, HintRequired, ArgsMismatch, IllegalPf,
    IllegalPredicate, B128Ver, B128Tgt, B128SysVer, IllegalCop, HintTgt, HintVer, CombineHintVolatile,
    CombineHintMmio, HintSpace, MustBeRegister, LdAsync,
];

/// `cp.async` (§12.3).
#[rustfmt::skip]
pub(crate) const CPA_ORDER: &[Key] = &[
    CpaVer, CpaTgt, HintRequired, ArgValue, ArgRange, ArgsMismatch, IgnoreSrcVer, AddrF64,
    CpaLevel, IllegalEvictLevel, IllegalSubspace, SsiInstruction, SpaceCount, PfTgt, PfVer,
    Pf256Tgt, Pf256Ver, CombinePfMmio, IllegalEvict, CpaMbarrier, CpaAligned, CpaNoinc, VectorNotAllowed,
    AddrF32, ImmediateAddr, SpaceMismatch, CpaScope1, CpaSem, CpaMmio, CpaScope2, CpaNc,
    CopRequired, IllegalCop, HintTgt, HintVer, CombineHintMmio, HintSpace, CpaAsync, CpaRead,
];

/// `createpolicy` (§12.4).
#[rustfmt::skip]
pub(crate) const POLICY_ORDER: &[Key] = &[
    PolKindTgt, PolKindVer, PolArgCompare, PolSpace, PolLevelRequired, PolArgRange, PolNoSpace,
    PolPrimary, PolSecondary, PolIllegalLevel, PolNeedL2, PolPriorityGate, PolSyntax,
    PolLevelWithPriority, PolCvtL1, PolCvtEvict,
    PolAddr, PolVector, PolResultReg, PolForeign,
];

/// `prefetch`, `prefetchu` (§12.5).
#[rustfmt::skip]
pub(crate) const PREFETCH_ORDER: &[Key] = &[
    PfUnified, PfTmSpace, PfTmTgt, PfTmVer, PfSpaceCount, PfSsi, PfIllegalLevel, PfSize,
    PfSizeSpace, PfMultiEvict, PfEvictVer, PfEvictTgt, PfEvictIllegal, PfLevelWithEvict,
    PfEvictL1, PfEvictSpace, PfVector, PfAddr, PfCop, PfLevelRequired, PfForeign,
];

/// `applypriority` and `discard` (§20.2).
#[rustfmt::skip]
pub(crate) const PRIORITY_ORDER: &[Key] = &[
    ApFeatTgt, ApFeatVer, ApEvictRequired, ApL2Required, ApTmTgt, ApTmVer, ApTmIllegal, ApArg2,
    ApIllegalLevel, ApIllegalLevelled, ApSpaceCount, ApSubspace, ApSubspaceVer, ApSubspaceTgt,
    ApSsi, ApEvictIllegal, ApMultiEvict, ApEvictVer, ApEvictTgt, ApResultDiscard,
    ApUnsupported, ApLevelWithEvict,
    ApEvictL1, ApEvictSyntax, ApEvictSpace, ApVector, ApUnified, ApAddr, ApCop, ApForeign,
];

/// `cp.async.mbarrier.arrive` (§12.6).
#[rustfmt::skip]
pub(crate) const MBARRIER_ORDER: &[Key] = &[
    MbFeature, MbCta, MbReduction, MbIllegalSem, MbSubspace, MbCluster, MbSpaceCount, MbSsi,
    MbAddr,
];

/// An instruction's messages with their ordering keys: `(rank, sub-order, sequence)`.
pub(crate) struct Msgs {
    order: &'static [Key],
    items: Vec<(i32, i32, u32, Diagnostic)>,
    seq: u32,
}

impl Msgs {
    pub fn new(order: &'static [Key]) -> Self {
        Msgs {
            order,
            items: Vec::new(),
            seq: 0,
        }
    }

    fn push(&mut self, rank: i32, sub: i32, d: Diagnostic) {
        self.items.push((rank, sub, self.seq, d));
        self.seq += 1;
    }

    /// The first message of the instruction (`Predicate expression expected`).
    pub fn first(&mut self, d: Diagnostic) {
        self.push(-2, 0, d);
    }

    /// A scan-stage message: ordered by `pos` (ten times the modifier's index, so a message
    /// can sit just before or after the messages of a modifier).
    pub fn scan(&mut self, pos: i32, d: Diagnostic) {
        self.push(-1, pos, d);
    }

    /// A message of the operand reading (constant expressions): after the scan-stage ones.
    pub fn operand_parse(&mut self, d: Diagnostic) {
        self.push(-1, i32::MAX, d);
    }

    fn rank(&self, key: Key) -> i32 {
        match self.order.iter().position(|&k| k == key) {
            Some(r) => r as i32,
            // A key outside the family's list: ptxas never combines it with the listed ones.
            None => self.order.len() as i32,
        }
    }

    /// A message of the check `key`.
    pub fn add(&mut self, key: Key, d: Diagnostic) {
        self.add_sub(key, 0, d);
    }

    /// A message of the check `key`, ordered among that check's messages by `sub`.
    pub fn add_sub(&mut self, key: Key, sub: i32, d: Diagnostic) {
        let r = self.rank(key);
        self.push(r, sub, d);
    }

    /// The messages in ptxas's order, cut after the first fatal one.
    pub fn finish(mut self) -> (Vec<Diagnostic>, bool) {
        self.items.sort_by_key(|a| (a.0, a.1, a.2));
        let mut out = Vec::with_capacity(self.items.len());
        for (_, _, _, d) in self.items {
            let fatal = d.severity == crate::Severity::Fatal;
            out.push(d);
            if fatal {
                return (out, true);
            }
        }
        (out, false)
    }
}
