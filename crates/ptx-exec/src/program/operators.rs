//! Operator kinds of ALU, warp-level and `mbarrier` instructions (the modifiers lowering
//! decodes into enums).

use super::*;

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
    /// `cvt.pack.sat.{u8,s8,u16,s16}.s32{.b32} d, a, b{, c}`: `a` and `b` saturated to the
    /// `bits`-bit type, `a` above `b`; the 8-bit forms put `c` above them.
    CvtPackSat {
        bits: u32,
        signed: bool,
    },
}

/// Extended-precision arithmetic through the carry flag `CC.CF`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CarryOp {
    /// `add.cc`, `addc{.cc}`: `a + b + CF`.
    Add,
    /// `sub.cc`, `subc{.cc}`: `a + ~b + CF` (CF set when nothing is borrowed, as the
    /// hardware's IADD3 carry; `sub.cc` has CF = 1 in).
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
