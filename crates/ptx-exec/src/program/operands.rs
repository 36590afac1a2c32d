//! Operand forms of lowered instructions: register slots, predicates, special registers,
//! sources and destinations, state spaces and addresses.

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
