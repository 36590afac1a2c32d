//! The lowered, executable form of a PTX module.
//!
//! [`crate::lower`] turns each function body into a flat array of [`Inst`] once: registers are
//! resolved to slots, labels to instruction indices, symbols to addresses or offsets, and every
//! modifier to an enum. The interpreter then executes one `Inst` for a warp's active lanes at
//! a time and never looks at PTX text again. [`InstrInfo`] maps each instruction back to its
//! PTX line and (when the module has `.loc`) its source line, for faults and reports.
//!
//! This file: [`Op`], [`Inst`], [`Function`], [`Program`]. Beside it in `program/`:
//! `operands.rs` (slots, sources, destinations, spaces, addresses), `mem_inst.rs` (memory
//! instruction payloads and hints), `operators.rs` (operator enums), `ops.rs` (the operation table: each
//! [`Op`]'s handler, reach, register roles and warp-sync mask), `schedule.rs`
//! ([`schedule_ranks`], [`successors`]), `slots.rs` (register roles), `slice.rs` (the
//! counters-only [`Slice`]), `reg_alloc.rs` (its [`RegisterMap`]).

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

mod call_frame;
mod mem_inst;
mod operands;
mod operators;
pub(crate) mod ops;
mod reg_alloc;
mod schedule;
mod slice;
mod slots;

pub use call_frame::{frame_save_words, MAX_FRAME_SAVE_WORDS};
pub use mem_inst::*;
pub use operands::*;
pub use operators::*;
pub use ops::Reach;
pub use reg_alloc::{RegisterMap, SCRATCH};
pub use schedule::{schedule_ranks, successors};
pub use slice::{slice_roles, Slice, SliceKind};
pub use slots::{register_roles, register_slots, Role, SlotTable};

/// What the product of an [`Op::FmaContract`] was in PTX.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Product {
    /// `mul a, b`.
    Mul,
    /// `div.full.f32 a, b`.
    DivFull,
    /// `div.approx.f32 a, b`.
    DivApprox,
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
    /// `mov.vN.T {d0, d1, ...}, {a0, a1, ...}`: element-wise, every source read before any
    /// destination is written (vector registers become such lists: `ptx_syntax`).
    MovVec {
        ds: Vec<Dst>,
        srcs: Vec<Src>,
    },
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
    /// The scalar video instructions `vadd vsub vabsdiff vmin vmax vshl vshr` on whole words,
    /// with `.sat`, `.clamp`/`.wrap` and an optional secondary `.add/.min/.max` with `c`.
    VideoScalar {
        op: ptx_semantics::int::VideoScalarOp,
        d_signed: bool,
        a_signed: bool,
        b_signed: bool,
        sat: bool,
        clamp: bool,
        op2: Option<ptx_semantics::int::VideoOp2>,
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
    /// A `mul` and an `add`/`sub` without rounding modifiers that ptxas contracts into one
    /// fused multiply-add (`lower/contract.rs`): `d = (±a) * b + (±c)` rounded once, the
    /// sign of `a` (the product) and of `c` (the addend) flipped where `neg_ab`/`neg_c` say.
    /// With `product` a division (`div.full`/`div.approx.f32 a, b`), the factors are those of
    /// its last multiply: MUFU.RCP of the scaled `b` and the scaled `a`.
    FmaContract {
        ty: ScalarType,
        mode: FloatMode,
        product: Product,
        neg_ab: bool,
        neg_c: bool,
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
    /// `discard.global.L2 [a], 128` and `applypriority.global.L2::evict_normal [a], 128`
    /// (memsys `system/l2_control.rs`); `space` is `Global` or `Generic`.
    L2Control {
        kind: L2ControlKind,
        space: Space,
        addr: Addr,
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
    /// `brx.idx{.uni} index, tlist`: each lane jumps to `targets[index]` (an index past the
    /// list is undefined in the PTX ISA; ptxsim faults).
    BrxIdx {
        index: Src,
        targets: Box<[Pc]>,
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
    /// The register slots each instruction names (the interpreter prefetches them).
    pub slot_table: SlotTable,
    /// A kernel's counters-only slice (`slice.rs`); `None` for functions that are not
    /// kernels and for kernels that cannot be sliced (they run in full).
    pub slice: Option<Slice>,
    /// [`Slice::with_exact_stores`] of a kernel.
    pub slice_exact_stores: Option<Slice>,
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
    /// In a `.target ..., debug` module ([`Program::debug`]): the 32-bit words per thread
    /// ptxas saves to local memory at the function's entry (`STL`) and reloads before its
    /// `RET` (`LDL`); 0 elsewhere. See [`frame_save_words`] (the rule, read off ptxas's SASS).
    pub frame_save_words: u32,
    /// Bytes of static `.shared` variables the function declares (kernels include every
    /// function's, laid out by the module).
    pub uses_dynamic_shared: bool,
    /// Why the body could not be lowered (an instruction the interpreter does not run). The
    /// rest of the module still runs: only launches that reach this function fail, with this
    /// error.
    pub unsupported: Option<ExecError>,
}

/// What an [`Op::L2Control`] does to its line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum L2ControlKind {
    /// `discard.global.L2`: the line leaves L2 without a write-back.
    Discard,
    /// `applypriority.global.L2::evict_normal`: the line becomes normal.
    ApplyPriorityNormal,
}

impl L2ControlKind {
    pub fn mnemonic(self) -> &'static str {
        match self {
            L2ControlKind::Discard => "discard.global.L2",
            L2ControlKind::ApplyPriorityNormal => "applypriority.global.L2::evict_normal",
        }
    }
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
    /// Static shared memory each kernel uses (by name): its share of `static_shared_bytes`
    /// (`lower/kernel_shared.rs`), what decides its residency.
    pub kernel_static_shared: HashMap<String, u32>,
    /// The alignment dynamic (`.extern .shared`) memory starts at.
    pub dynamic_shared_align: u32,
    /// `.const` bank contents.
    pub const_bytes: Vec<u8>,
    /// Module `.global` variables: (name, address, size).
    pub globals: Vec<(String, u64, u64)>,
    /// `.target ..., debug`: ptxas compiles the module at `-O0`, with real calls and call
    /// frames in local memory ([`Function::frame_save_words`]).
    pub debug: bool,
}

impl Program {
    /// Whether any function of the module has a `discard` (memsys then keeps a copy of
    /// memory when a kernel starts, `MemSystem::snapshot_for_discard`).
    pub fn has_discard(&self) -> bool {
        self.functions.iter().any(|f| {
            f.code.iter().any(|i| {
                matches!(
                    i.op,
                    Op::L2Control {
                        kind: L2ControlKind::Discard,
                        ..
                    }
                )
            })
        })
    }

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

/// What the lowering needs besides the AST.
pub struct LowerInput<'m> {
    pub module: &'m Module,
    pub source: &'m str,
}
