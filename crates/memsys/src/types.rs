//! The typed access the interpreter (or a trace) hands to the memory system, and what comes back.

use serde::{Deserialize, Serialize};

/// What an access does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum AccessKind {
    /// `ld`, `ld.global.nc`.
    #[default]
    Load,
    /// `st`.
    Store,
    /// The global-memory read of `cp.async` (the shared-memory write is the interpreter's).
    AsyncCopy,
    /// `prefetch` / `prefetchu`: fills caches, returns no data.
    Prefetch,
    /// `atom` / `red`: a read-modify-write performed at L2.
    Atomic,
}

impl AccessKind {
    /// Whether the access reads memory into the SM (loads, copies, prefetches).
    pub const fn is_read(self) -> bool {
        matches!(self, Self::Load | Self::AsyncCopy | Self::Prefetch)
    }
}

/// The state space the address belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Space {
    #[default]
    Global,
    /// Shared memory lives outside the caches; requests for it are rejected.
    Shared,
    /// Thread-private memory, backed by device memory and cached like global.
    Local,
    /// Constant banks, read through the read-only path.
    Const,
    /// Kernel parameters, read through the read-only path.
    Param,
}

/// Cache operator of `ld`/`st`/`cp.async` (Table 30 and Table 31 of the PTX ISA).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum CacheOperator {
    /// Load default: cache at all levels.
    #[default]
    Ca,
    /// Cache at global level (L2), not L1.
    Cg,
    /// Cache streaming: evict-first.
    Cs,
    /// Last use: `.cs` on global addresses.
    Lu,
    /// Don't cache, fetch again.
    Cv,
    /// Store default: write back at coherent levels.
    Wb,
    /// Write through to memory.
    Wt,
}

/// Memory-ordering qualifier of the access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Semantics {
    /// `.weak` (the default): cache operators apply.
    #[default]
    Weak,
    Volatile,
    Relaxed,
    Acquire,
    Release,
    /// `.mmio.relaxed.sys`: never cached.
    Mmio,
}

/// Scope of a `.relaxed`/`.acquire`/`.release` access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// The CTA runs on one SM, so its L1 is coherent for it.
    Cta,
    Cluster,
    #[default]
    Gpu,
    Sys,
}

/// `.L1::` eviction priority qualifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum L1EvictionPriority {
    Normal,
    Unchanged,
    First,
    Last,
    NoAllocate,
}

/// `.L2::` eviction priority qualifier (and what a cache policy resolves to).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum L2EvictionPriority {
    Normal,
    First,
    Last,
    Unchanged,
}

/// `.L2::64B` / `.L2::128B` / `.L2::256B` prefetch-size hint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrefetchSize {
    B64,
    B128,
    B256,
}

impl PrefetchSize {
    /// The block size in bytes.
    pub const fn bytes(self) -> u32 {
        match self {
            Self::B64 => 64,
            Self::B128 => 128,
            Self::B256 => 256,
        }
    }
}

/// Index of an instruction in the interpreter's lowered code (or a trace's op table); the
/// statistics keep one counter set per id.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
)]
pub struct InstrId(pub u32);

/// Index of a streaming multiprocessor.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
)]
pub struct SmId(pub u32);

/// Everything about a warp-level memory instruction except its lanes' addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct Request {
    pub sm: SmId,
    pub kind: AccessKind,
    pub space: Space,
    /// `None`: no cache operator written (`.ca` for reads, `.wb` for stores).
    pub operator: Option<CacheOperator>,
    pub semantics: Semantics,
    pub scope: Scope,
    /// `ld.global.nc`: the non-coherent read-only path.
    pub non_coherent: bool,
    pub l1_priority: Option<L1EvictionPriority>,
    pub l2_priority: Option<L2EvictionPriority>,
    /// The 64-bit `createpolicy` value of a `.L2::cache_hint` access.
    pub policy: Option<u64>,
    pub prefetch: Option<PrefetchSize>,
    pub instr: InstrId,
    /// The issuing warp's index in its CTA (0 where the caller has none, e.g. a trace
    /// without it). A store's write combining happens per SM sub-partition, and a warp runs
    /// on sub-partition `warp % sm_sub_partitions` (`system/combine.rs`).
    pub warp: u32,
}

impl Request {
    /// A plain weak global load from `sm` (`ld.global`), for building requests field by field.
    pub fn load(sm: u32) -> Self {
        Self {
            sm: SmId(sm),
            ..Self::default()
        }
    }

    /// A plain weak global store from `sm` (`st.global`).
    pub fn store(sm: u32) -> Self {
        Self {
            sm: SmId(sm),
            kind: AccessKind::Store,
            ..Self::default()
        }
    }

    /// Sets the cache operator.
    pub fn with_operator(mut self, op: CacheOperator) -> Self {
        self.operator = Some(op);
        self
    }

    /// Sets the instruction id the statistics attribute this request to.
    pub fn with_instr(mut self, id: u32) -> Self {
        self.instr = InstrId(id);
        self
    }
}

/// One active lane's part of a warp request: `bytes` bytes at device address `addr`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaneAccess {
    pub addr: u64,
    pub bytes: u32,
}

impl LaneAccess {
    pub const fn new(addr: u64, bytes: u32) -> Self {
        Self { addr, bytes }
    }
}

/// What one request did, for the interpreter and the hazard detector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Outcome {
    /// Sectors looked up in L1 that hit / missed (requests that bypass L1 count none).
    pub l1_hits: u32,
    pub l1_misses: u32,
    /// Sectors looked up in L2 that hit / missed.
    pub l2_hits: u32,
    pub l2_misses: u32,
    /// Sectors moved from / to DRAM by this request (fills, prefetches, write-backs, write-through).
    pub dram_sectors_read: u32,
    pub dram_sectors_written: u32,
    /// Bit `i` set: lane access `i` returned bytes from this SM's L1 that differ from the
    /// coherent value (the documented stale read of `.ca` across SMs).
    pub stale_lanes: u64,
    /// Latency of the slowest level that served the request, in cycles (from the config).
    pub latency_cycles: u32,
}

impl Outcome {
    /// Whether any lane read stale L1 data.
    pub fn any_stale(&self) -> bool {
        self.stale_lanes != 0
    }
}
