//! The lowered, executable form of a PTX module.
//!
//! [`crate::lower`] turns each function body into a flat array of [`Inst`] once: registers are
//! resolved to slots, labels to instruction indices, symbols to addresses or offsets, and every
//! modifier to an enum. The interpreter then executes one `Inst` for a warp's active lanes at
//! a time and never looks at PTX text again. [`InstrInfo`] maps each instruction back to its
//! PTX line and (when the module has `.loc`) its source line, for faults and reports.

use crate::error::ExecError;
use ptx_isa::ScalarType;
pub use ptx_semantics::atom::AtomOp;
pub use ptx_semantics::cmp::{BoolOp, CmpOp as Cmp};
pub use ptx_semantics::int::PrmtMode;
pub use ptx_semantics::mma::MmaKind as MmaShape;
pub use ptx_semantics::warp::ShflMode;
pub use ptx_semantics::wmma::{WmmaMatrix, WmmaMma, WmmaType};
pub use ptx_semantics::Rnd as Rounding;
use ptx_syntax::ast::Module;
use std::collections::HashMap;

/// A register slot of the current frame. Value registers hold one `u64` per lane (a `.b128`
/// register takes two consecutive slots, low half first); predicate registers are separate.
pub type Slot = u32;

/// A predicate register index of the current frame (one 32-bit lane mask per warp).
pub type PredIdx = u32;

/// Index of an instruction in its function's code.
pub type Pc = u32;

/// A special register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    Tid(u8),
    Ntid(u8),
    Ctaid(u8),
    Nctaid(u8),
    LaneId,
    WarpId,
    NWarpId,
    SmId,
    NSmId,
    GridId,
    Clock,
    Clock64,
    GlobalTimer,
    LaneMaskEq,
    LaneMaskLt,
    LaneMaskLe,
    LaneMaskGt,
    LaneMaskGe,
    DynamicSmemSize,
    TotalSmemSize,
    /// `%clusterid`, `%nclusterid`, `%cluster_ctaid`, `%cluster_nctaid` (clusters of one CTA).
    ClusterId(u8),
    NClusterId(u8),
    ClusterCtaId(u8),
    ClusterNCtaId(u8),
    ClusterCtaRank,
    ClusterNCtaRank,
    /// `%envreg<N>`, `%pm<N>` and other registers that read as zero here.
    Zero,
}

/// A source operand.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Src {
    Reg(Slot),
    /// An immediate, already converted to the instruction's type (floats as their bits).
    Imm(u64),
    Special(Special),
}

/// A destination: a register, or `_` (discarded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dst {
    Reg(Slot),
    Sink,
}

/// A predicate operand, possibly negated (`!%p`), or a constant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PredSrc {
    Reg { idx: PredIdx, negated: bool },
    Const(bool),
}

/// The state space an address refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    Global,
    Shared,
    Local,
    Param,
    /// Kernel parameters (`.param` of an `.entry`).
    KernelParam,
    Const,
    /// No space written: the address is generic.
    Generic,
}

/// An address operand: `[base + offset]`, where base is a register or nothing (the offset
/// then holds the symbol's resolved address).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Addr {
    pub base: Option<Slot>,
    pub offset: i64,
}

/// How a loaded value is widened into its destination register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extend {
    Zero,
    Sign,
}

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

/// Integer and bitwise operations of two operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntOp2 {
    Add,
    AddSat,
    Sub,
    SubSat,
    MulLo,
    MulHi,
    MulWide,
    Div,
    Rem,
    Min,
    Max,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    /// `min/max{.relu}.s32`: the result clamped below at 0.
    MinMaxRelu {
        max: bool,
    },
    /// Packed `.u16x2`/`.s16x2` `add`, `sub`, `min{.relu}`, `max{.relu}` (sm_90): each half word
    /// separately.
    X2 {
        op: X2Op,
        signed: bool,
        relu: bool,
    },
    /// `mul24.{lo,hi}.{u32,s32}`.
    Mul24 {
        signed: bool,
        hi: bool,
    },
    /// `bmsk.{clamp,wrap}.b32`.
    Bmsk {
        wrap: bool,
    },
    /// `szext.{clamp,wrap}.{u32,s32}`.
    Szext {
        signed: bool,
        wrap: bool,
    },
}

/// The half-word operations of [`IntOp2::X2`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum X2Op {
    Add,
    Sub,
    Min,
    Max,
}

/// Integer operations of three operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntOp3 {
    MadLo,
    MadHi,
    MadWide,
    /// `mad.hi.sat.s32`.
    MadHiSat,
    /// `sad`: `c + |a - b|`.
    Sad,
    /// `mad24.{lo,hi}.{u32,s32}` (without `.sat`).
    Mad24 {
        signed: bool,
        hi: bool,
    },
    /// `dp4a.atype.btype`.
    Dp4a {
        a_signed: bool,
        b_signed: bool,
    },
    /// `dp2a.{lo,hi}.atype.btype`.
    Dp2a {
        hi: bool,
        a_signed: bool,
        b_signed: bool,
    },
    /// `lop3.b32 d, a, b, c, immLut`.
    Lop3(u8),
    /// `fns.b32 d, mask, base, offset`.
    Fns,
}

/// Extended-precision arithmetic through the carry flag `CC.CF`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CarryOp {
    /// `add.cc`, `addc{.cc}`: `a + b + CF`.
    Add,
    /// `sub.cc`, `subc{.cc}`: `a - (b + CF)` (CF is the borrow).
    Sub,
    /// `mad.lo.cc`, `madc.lo{.cc}`: `lo(a*b) + c + CF`.
    MadLo,
    /// `mad.hi.cc`, `madc.hi{.cc}`: `hi(a*b) + c + CF`.
    MadHi,
}

/// Integer operations of one operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntOp1 {
    Not,
    Cnot,
    Neg,
    Abs,
    Popc,
    Clz,
    Brev,
    Bfind,
    BfindShiftAmt,
}

/// Float operations of two operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatOp2 {
    Add,
    Sub,
    Mul,
    Div,
    DivApprox,
    DivFull,
    Min,
    Max,
    MinNaN,
    MaxNaN,
    Copysign,
    /// `min/max{.NaN}.xorsign.abs`: `min/max(|a|, |b|)` with the sign `sign(a) ^ sign(b)`.
    XorsignAbs {
        max: bool,
        nan: bool,
    },
}

/// Float operations of one operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatOp1 {
    Neg,
    Abs,
    Sqrt,
    SqrtApprox,
    Rcp,
    RcpApprox,
    RcpApproxF64,
    Rsqrt,
    Ex2,
    Lg2,
    Sin,
    Cos,
    Tanh,
}

/// Modifiers of float arithmetic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FloatMode {
    pub rounding: Rounding,
    pub ftz: bool,
    pub sat: bool,
    pub relu: bool,
}

impl Default for FloatMode {
    fn default() -> Self {
        FloatMode {
            rounding: Rounding::Rn,
            ftz: false,
            sat: false,
            relu: false,
        }
    }
}

/// `vote.sync` modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}

/// `mbarrier` operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MbarrierOp {
    Init,
    Arrive,
    ArriveDrop,
    ExpectTx,
    ArriveExpectTx,
    TestWait,
    TestWaitParity,
    TryWait,
    TryWaitParity,
    Inval,
    PendingCount,
    /// `mbarrier.complete_tx`: decrements the transaction count.
    CompleteTx,
}

/// One lowered instruction.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Nop,
    /// `mov`/`cvt` between same-width bit patterns: copy and truncate to `bits`.
    Mov {
        d: Dst,
        a: Src,
        bits: u32,
    },
    /// `mov.b64 d, {a, b}`: concatenate parts (low first) of `part_bits` each.
    Pack {
        d: Slot,
        parts: Vec<Option<Src>>,
        part_bits: u32,
        d_bits: u32,
    },
    /// `mov.b64 {a, b}, s`: split into parts (low first).
    Unpack {
        ds: Vec<Dst>,
        a: Src,
        part_bits: u32,
    },
    /// `mov.pred`.
    MovPred {
        d: PredIdx,
        a: PredSrc,
    },
    /// Convert between types.
    Cvt {
        d: Dst,
        a: Src,
        dty: ScalarType,
        aty: ScalarType,
        mode: FloatMode,
        /// Integer rounding (`.rni` …) for float → integer or float → float-as-integer.
        int_rounding: Option<Rounding>,
        d_bits: u32,
    },
    /// `cvt.rn.f16x2.f32 d, a, b` and friends: two floats into one packed register.
    CvtPack {
        d: Dst,
        a: Src,
        b: Src,
        dty: ScalarType,
        mode: FloatMode,
    },
    /// `cvta` / `cvta.to`: between a space's addresses and generic addresses.
    Cvta {
        d: Dst,
        a: Src,
        space: Space,
        to_generic: bool,
        bits: u32,
    },
    /// `isspacep.space p, a`.
    IsSpace {
        d: PredIdx,
        a: Src,
        space: Space,
    },
    Int2 {
        op: IntOp2,
        ty: ScalarType,
        d: Dst,
        a: Src,
        b: Src,
    },
    Int3 {
        op: IntOp3,
        ty: ScalarType,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    Int1 {
        op: IntOp1,
        ty: ScalarType,
        d: Dst,
        a: Src,
    },
    /// The SIMD video instructions `vadd2/4 vsub2/4 vavrg2/4 vabsdiff2/4 vmin2/4 vmax2/4`
    /// with default selectors.
    Video {
        op: ptx_semantics::int::VideoOp,
        lanes: u32,
        d_signed: bool,
        a_signed: bool,
        b_signed: bool,
        sat: bool,
        add: bool,
        mask: u32,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    /// `lop3.{and,or}.b32 d|p, a, b, c, immLut, q`: `d` as `lop3`, `p = (d != 0) BoolOp q`.
    Lop3Pred {
        lut: u8,
        op: BoolOp,
        d: Dst,
        p: Option<PredIdx>,
        a: Src,
        b: Src,
        c: Src,
        q: PredSrc,
    },
    Bfe {
        ty: ScalarType,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    Bfi {
        ty: ScalarType,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
        e: Src,
    },
    Prmt {
        mode: PrmtMode,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    Shf {
        left: bool,
        clamp: bool,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    Float2 {
        op: FloatOp2,
        ty: ScalarType,
        mode: FloatMode,
        d: Dst,
        a: Src,
        b: Src,
    },
    /// `fma`/`mad` on floats.
    Fma {
        ty: ScalarType,
        mode: FloatMode,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    Float1 {
        op: FloatOp1,
        ty: ScalarType,
        mode: FloatMode,
        d: Dst,
        a: Src,
    },
    /// `testp.op.type p, a`.
    Testp {
        kind: ptx_semantics::float::TestpOp,
        ty: ScalarType,
        d: PredIdx,
        a: Src,
    },
    Setp {
        cmp: Cmp,
        ty: ScalarType,
        ftz: bool,
        d: Option<PredIdx>,
        d_not: Option<PredIdx>,
        a: Src,
        b: Src,
        combine: Option<(BoolOp, PredSrc)>,
    },
    /// `set.cmp.dtype.stype d, a, b`: 0xFFFFFFFF / 1.0f or 0.
    Set {
        cmp: Cmp,
        dty: ScalarType,
        ty: ScalarType,
        d: Dst,
        a: Src,
        b: Src,
        combine: Option<(BoolOp, PredSrc)>,
    },
    Selp {
        bits: u32,
        d: Dst,
        a: Src,
        b: Src,
        p: PredSrc,
    },
    Slct {
        ty: ScalarType,
        cty: ScalarType,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    PredLogic {
        op: BoolOp,
        d: PredIdx,
        a: PredSrc,
        b: PredSrc,
    },
    PredNot {
        d: PredIdx,
        a: PredSrc,
    },
    Ld(Box<LoadInst>),
    St(Box<StoreInst>),
    CpAsync(Box<CpAsyncInst>),
    CpAsyncCommit,
    CpAsyncWait {
        n: u32,
    },
    CpAsyncWaitAll,
    CpAsyncMbarrierArrive {
        addr: Addr,
        generic: bool,
        noinc: bool,
    },
    CreatePolicyFractional {
        d: Dst,
        primary: memsys::L2EvictionPriority,
        secondary: memsys::L2EvictionPriority,
        fraction: Src,
    },
    CreatePolicyRange {
        d: Dst,
        primary: memsys::L2EvictionPriority,
        secondary: memsys::L2EvictionPriority,
        addr: Addr,
        generic: bool,
        primary_size: Src,
        total_size: Src,
    },
    CreatePolicyCvt {
        d: Dst,
        a: Src,
    },
    Prefetch {
        space: Space,
        addr: Addr,
        level2: bool,
        l2_priority: Option<memsys::L2EvictionPriority>,
    },
    Atom {
        op: AtomOp,
        ty: ScalarType,
        space: Space,
        d: Option<Dst>,
        addr: Addr,
        b: Src,
        c: Option<Src>,
        hints: MemHints,
        /// No instruction of the function reads the old value (`red`, or an `atom` whose
        /// destination register is never an operand elsewhere): ptxas then emits a `RED`,
        /// which it may aggregate per warp (memsys `atomic_warp_aggregated`).
        result_unread: bool,
    },
    /// `atom`/`red` `.v2/.v4/.v8` (sm_90): one atomic operation per element at consecutive
    /// addresses (each element is atomic, the vector as a whole is not).
    AtomVec {
        op: AtomOp,
        ty: ScalarType,
        space: Space,
        /// Per element: the destination of its old value (`None` for `red`) and the operand.
        elems: Vec<(Option<Dst>, Src)>,
        addr: Addr,
        hints: MemHints,
    },
    Bra {
        target: Pc,
        uniform: bool,
    },
    Call {
        func: u32,
        args: Vec<CallArg>,
        rets: Vec<CallArg>,
    },
    Ret,
    Exit,
    Trap,
    /// `mapa`: a shared address mapped to cluster CTA `rank`. ptxsim runs every CTA as a
    /// cluster of one (`%cluster_nctarank` is 1), so rank 0 maps to the address itself.
    Mapa {
        d: Dst,
        a: Src,
        rank: Src,
    },
    /// `brkpt`: a breakpoint, which stops the kernel like `trap` when no debugger is attached.
    Brkpt,
    BarSync {
        id: Src,
        count: Option<Src>,
        arrive_only: bool,
    },
    /// `bar.red.popc/and/or`.
    BarRed {
        id: Src,
        count: Option<Src>,
        op: BarRedOp,
        d: Dst,
        dp: Option<PredIdx>,
        p: PredSrc,
    },
    /// `membar`/`fence`: orders memory (the interpreter is sequentially consistent per warp).
    /// `invalidate_l1`: ptxas follows this fence with `CCTL.IVALL` on sm_75..sm_90, which
    /// invalidates the SM's L1 (docs/fences.md), so later weak loads see other SMs' writes.
    Fence {
        invalidate_l1: bool,
    },
    Shfl {
        mode: ShflMode,
        d: Dst,
        dp: Option<PredIdx>,
        a: Src,
        b: Src,
        c: Src,
        mask: Src,
    },
    Vote {
        mode: VoteMode,
        d: Option<Dst>,
        dp: Option<PredIdx>,
        a: PredSrc,
        mask: Src,
    },
    Activemask {
        d: Dst,
    },
    /// `bar.warp.sync membermask`: waits for the other non-exited lanes of the mask.
    WarpSync {
        mask: Src,
    },
    /// `elect.sync d|p, membermask`: one leader among the executing lanes of the mask (ptxsim:
    /// the lowest); `d` is its lane id in every lane, `p` is true in the leader only.
    Elect {
        d: Dst,
        p: Option<PredIdx>,
        mask: Src,
    },
    Redux {
        op: AtomOp,
        ty: ScalarType,
        d: Dst,
        a: Src,
        mask: Src,
    },
    Mbarrier {
        op: MbarrierOp,
        d: Option<Dst>,
        dp: Option<PredIdx>,
        addr: Addr,
        generic: bool,
        b: Option<Src>,
    },
    Ldmatrix {
        num: u8,
        trans: bool,
        ds: Vec<Slot>,
        addr: Addr,
        generic: bool,
    },
    /// `add.cc/addc/sub.cc/subc/mad.cc/madc`: `cin` reads the lane's carry flag, `cout` writes it.
    Carry {
        op: CarryOp,
        cin: bool,
        cout: bool,
        ty: ScalarType,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    /// `match.{any,all}.sync.b32/.b64 d{|p}, a, membermask`.
    Match {
        all: bool,
        d: Option<Dst>,
        dp: Option<PredIdx>,
        a: Src,
        mask: Src,
    },
    /// `stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16 [addr], {r...}`.
    Stmatrix {
        num: u8,
        trans: bool,
        srcs: Vec<Src>,
        addr: Addr,
        generic: bool,
    },
    Mma {
        shape: MmaShape,
        ds: Vec<Slot>,
        a: Vec<Src>,
        b: Vec<Src>,
        c: Vec<Src>,
    },
    /// `wmma.load.{a,b,c}.sync.aligned`.
    WmmaLoad(Box<WmmaMemInst>),
    /// `wmma.store.d.sync.aligned`.
    WmmaStore(Box<WmmaMemInst>),
    /// `wmma.mma.sync.aligned`.
    WmmaMma {
        op: WmmaMma,
        ds: Vec<Slot>,
        a: Vec<Src>,
        b: Vec<Src>,
        c: Vec<Src>,
    },
    Wgmma {
        shape: WgmmaShape,
        ds: Vec<Slot>,
        a_desc: Src,
        /// The A operand in this warp's registers (`{a0, a1, a2, a3}`) instead of `a_desc`.
        a_regs: Option<Vec<Src>>,
        b_desc: Src,
        scale_d: Option<PredSrc>,
        imm: [i8; 4],
    },
    WgmmaFence,
    WgmmaCommit,
    WgmmaWait {
        n: u32,
    },
    /// `cp{.reduce}.async.bulk` (global/shared, not `.tensor`).
    BulkCopy(Box<BulkCopyInst>),
    /// `cp{.reduce}.async.bulk{.prefetch}.tensor`.
    TensorCopy(Box<TensorCopyInst>),
    /// `cp.async.bulk.prefetch.L2.global [addr], size{, policy}`.
    BulkPrefetch {
        addr: Addr,
        size: Src,
        policy: Option<Src>,
    },
    /// `cp.async.bulk.commit_group`.
    BulkCommit,
    /// `cp.async.bulk.wait_group{.read} n`.
    BulkWait {
        n: u32,
        read: bool,
    },
    /// `tensormap.replace.tile.field{.space}.b1024.type [addr], {ord,} value`.
    TensormapReplace {
        field: crate::tensormap::Field,
        ord: u32,
        addr: Addr,
        /// Global, Shared, or Generic (no space written).
        space: Space,
        value: Src,
    },
    /// `tensormap.cp_fenceproxy.global.shared::cta...  [dst], [src], size`: copies the
    /// tensor map from shared to global memory.
    TensormapCopy {
        dst: Addr,
        src: Addr,
        size: u32,
    },
}

impl Op {
    /// The membermask of a warp-synchronous instruction (`vote.sync`, `redux.sync`,
    /// `match.sync`, `shfl.sync`, `bar.warp.sync`): each executing thread waits until every
    /// non-exited thread of the mask has executed the instruction.
    pub fn warp_sync_mask(&self) -> Option<Src> {
        match self {
            Op::Vote { mask, .. }
            | Op::Redux { mask, .. }
            | Op::Match { mask, .. }
            | Op::Shfl { mask, .. }
            | Op::Elect { mask, .. }
            | Op::WarpSync { mask } => Some(*mask),
            _ => None,
        }
    }
}

/// A `wmma.load` or `wmma.store`: the `rows x cols` matrix (`.row` or `.col` in memory, `stride`
/// elements between rows or columns) at `addr` to or from the fragment registers `regs`.
#[derive(Debug, Clone, PartialEq)]
pub struct WmmaMemInst {
    pub matrix: WmmaMatrix,
    pub rows: u32,
    pub cols: u32,
    pub row_major: bool,
    pub ty: WmmaType,
    pub regs: Vec<Slot>,
    pub addr: Addr,
    pub space: Space,
    /// The leading dimension in elements (default: the matrix's columns, or rows for `.col`).
    pub stride: Option<Src>,
}

/// `bar.red` reductions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarRedOp {
    Popc,
    And,
    Or,
}

/// `wgmma.mma_async` shapes: m64 nN kK with f32 (float inputs) or s32 (8-bit integer inputs)
/// accumulators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WgmmaShape {
    pub n: u32,
    /// 16 for f16/bf16 inputs, 8 for tf32, 32 for 8-bit types.
    pub k: u32,
    /// The A type.
    pub input: ScalarType,
    /// The B type (differs from A only for `.e4m3`/`.e5m2` and `.s8`/`.u8`).
    pub input_b: ScalarType,
    /// `.satfinite` (integer accumulators).
    pub satfinite: bool,
    /// `.f16` accumulators (`.f16.f16.f16`).
    pub f16_accumulator: bool,
}

/// An argument of `call`: a `.param` symbol of the caller (passed by value) or a register.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CallArg {
    /// Offset and size of a `.param` variable in the caller's per-thread param area.
    Param {
        offset: u32,
        size: u32,
    },
    Reg(Slot),
    Imm(u64),
}

/// One instruction with its guard.
#[derive(Debug, Clone, PartialEq)]
pub struct Inst {
    pub guard: Option<PredSrc>,
    pub op: Op,
    /// Index into [`Program::instrs`] (the id the statistics use).
    pub id: u32,
}

/// Where an instruction came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstrInfo {
    pub function: String,
    /// 1-based PTX line.
    pub ptx_line: u32,
    /// The instruction as PTX text.
    pub text: String,
    /// The `.loc` in force: (file index, line, column).
    pub loc: Option<(u32, u32, u32)>,
}

/// A parameter of a function, as laid out in its param area.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamSlot {
    pub name: String,
    pub ty: ScalarType,
    pub offset: u32,
    pub size: u32,
    /// `.reg` parameters of device functions are registers, not param memory.
    pub reg: Option<Slot>,
}

/// A lowered function or kernel.
#[derive(Debug, Clone)]
pub struct Function {
    pub name: String,
    pub is_kernel: bool,
    pub code: Vec<Inst>,
    /// Scheduling rank of each instruction (see [`schedule_ranks`]): among a warp's divergent
    /// lanes, those at the lowest rank run first.
    pub rank: Vec<u32>,
    /// Value register slots (a `.b128` register counts two).
    pub slots: u32,
    /// Bit width of each slot's register (for loads' extension and `mov` truncation).
    pub slot_bits: Vec<u32>,
    pub preds: u32,
    pub params: Vec<ParamSlot>,
    pub returns: Vec<ParamSlot>,
    /// Bytes of the per-thread param area (parameters, return values and `.param` variables
    /// declared in the body for calls).
    pub param_bytes: u32,
    /// Bytes of `.local` variables per thread.
    pub local_bytes: u32,
    /// Bytes of static `.shared` variables the function declares (kernels include every
    /// function's, laid out by the module).
    pub uses_dynamic_shared: bool,
    /// Why the body could not be lowered (an instruction the interpreter does not run). The
    /// rest of the module still runs: only launches that reach this function fail, with this
    /// error.
    pub unsupported: Option<ExecError>,
}

/// A whole lowered module.
#[derive(Debug, Clone)]
pub struct Program {
    pub functions: Vec<Function>,
    pub by_name: HashMap<String, u32>,
    /// One entry per instruction of every function (indexed by [`Inst::id`]).
    pub instrs: Vec<InstrInfo>,
    /// `.file` index → path.
    pub files: HashMap<u32, String>,
    /// Static shared memory of the module (every `.shared` variable, laid out once).
    pub static_shared_bytes: u32,
    /// The alignment dynamic (`.extern .shared`) memory starts at.
    pub dynamic_shared_align: u32,
    /// `.const` bank contents.
    pub const_bytes: Vec<u8>,
    /// Module `.global` variables: (name, address, size).
    pub globals: Vec<(String, u64, u64)>,
}

impl Program {
    /// The kernel named `name`.
    pub fn kernel(&self, name: &str) -> Option<&Function> {
        self.by_name
            .get(name)
            .map(|&i| &self.functions[i as usize])
            .filter(|f| f.is_kernel)
    }

    /// The `.loc` source position of an instruction as `file:line`, when the module has one.
    pub fn source_line(&self, instr: u32) -> Option<String> {
        let (f, line, _) = self.instrs.get(instr as usize)?.loc?;
        let file = self
            .files
            .get(&f)
            .cloned()
            .unwrap_or_else(|| format!("file {f}"));
        Some(format!("{file}:{line}"))
    }

    /// The lowering error of the first function `func` can reach through calls (itself
    /// included) that the interpreter cannot run, if any.
    pub fn check_runnable(&self, func: u32) -> Result<(), ExecError> {
        let mut seen = vec![false; self.functions.len()];
        let mut stack = vec![func];
        while let Some(f) = stack.pop() {
            if std::mem::replace(&mut seen[f as usize], true) {
                continue;
            }
            let function = &self.functions[f as usize];
            if let Some(e) = &function.unsupported {
                return Err(e.clone());
            }
            for inst in &function.code {
                if let Op::Call { func: callee, .. } = inst.op {
                    stack.push(callee);
                }
            }
        }
        Ok(())
    }

    /// Names of every kernel, in module order.
    pub fn kernel_names(&self) -> Vec<&str> {
        self.functions
            .iter()
            .filter(|f| f.is_kernel)
            .map(|f| f.name.as_str())
            .collect()
    }
}

/// Scheduling ranks: a topological order of the instruction graph (edges to the next
/// instruction and to branch targets, back edges of a depth-first search from the entry left
/// out), taking the lowest PC among the instructions whose predecessors are all ranked.
///
/// The interpreter runs a divergent warp's lanes with the lowest rank first. On structured
/// code laid out in order this is the lowest PC (the min-PC rule), but compilers also place cold
/// blocks after the code they return to (nvcc's `if (__builtin_expect(c, 0))`, LLVM's block
/// placement): by address the lanes at the join would run ahead of the lanes still in the
/// out-of-line block, and meet `vote.sync`, `shfl.sync` or a barrier without them. In
/// topological order an instruction comes after every instruction that reaches it without
/// going around a loop, so the lanes reconverge at the join first. Ties go to the lower PC,
/// which keeps a loop's body ahead of its exit whatever the layout. Unreachable instructions
/// come last, in PC order.
pub fn schedule_ranks(code: &[Inst]) -> Vec<u32> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let n = code.len();
    let succs = |pc: usize| -> [Option<usize>; 2] {
        let next = Some(pc + 1).filter(|&x| x < n);
        match &code[pc].op {
            Op::Bra { target, .. } => {
                let t = Some(*target as usize).filter(|&t| t < n);
                if code[pc].guard.is_none() {
                    [t, None]
                } else {
                    [t, next]
                }
            }
            Op::Ret | Op::Exit | Op::Trap | Op::Brkpt if code[pc].guard.is_none() => [None, None],
            _ => [next, None],
        }
    };
    // Depth-first search (iterative) to find back edges: edges to an instruction on the stack.
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; n];
    let mut back = vec![[false; 2]; n];
    if n > 0 {
        let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
        state[0] = OPEN;
        while let Some(top) = stack.last_mut() {
            let (pc, k) = *top;
            if k < 2 {
                top.1 += 1;
                if let Some(t) = succs(pc)[k] {
                    match state[t] {
                        NEW => {
                            state[t] = OPEN;
                            stack.push((t, 0));
                        }
                        OPEN => back[pc][k] = true,
                        _ => {}
                    }
                }
            } else {
                state[pc] = DONE;
                stack.pop();
            }
        }
    }
    // Kahn's algorithm over the forward edges of the reachable instructions, lowest PC first.
    let mut preds = vec![0u32; n];
    for pc in 0..n {
        if state[pc] != DONE {
            continue;
        }
        for (k, t) in succs(pc).into_iter().enumerate() {
            if let Some(t) = t {
                if !back[pc][k] {
                    preds[t] += 1;
                }
            }
        }
    }
    let mut rank = vec![u32::MAX; n];
    let mut ready = BinaryHeap::new();
    if n > 0 {
        ready.push(Reverse(0usize));
    }
    let mut next_rank = 0u32;
    while let Some(Reverse(pc)) = ready.pop() {
        rank[pc] = next_rank;
        next_rank += 1;
        for (k, t) in succs(pc).into_iter().enumerate() {
            if let Some(t) = t {
                if !back[pc][k] {
                    preds[t] -= 1;
                    if preds[t] == 0 {
                        ready.push(Reverse(t));
                    }
                }
            }
        }
    }
    for r in rank.iter_mut() {
        if *r == u32::MAX {
            *r = next_rank;
            next_rank += 1;
        }
    }
    rank
}

/// What the lowering needs besides the AST.
pub struct LowerInput<'m> {
    pub module: &'m Module,
    pub source: &'m str,
}
