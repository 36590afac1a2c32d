//! [`MemSystem`]: per-SM L1s, the shared L2, DRAM and the global memory image, driven by
//! typed warp-level requests.
//!
//! Every request is first routed ([`MemSystem::resolve`]: where it goes, with which hints);
//! routes depend only on the request's shape, so trace replay keeps them in a small
//! direct-mapped cache. The work itself is done by [`Work`], which borrows the issuing SM's
//! L1, the L2 and the SM's and instruction's counters apart from the rest of the system, so
//! the hot path indexes nothing twice.

use serde::{Deserialize, Serialize};

use crate::cache::{Access, Evicted, EvictionClass, Fill, Hint, SectorCache, Slot};
use crate::config::GpuConfig;
use crate::error::MemError;
use crate::memory::GlobalMemory;
use crate::policy::{CachePolicy, PolicyMode, RangeHit, RangePolicy, TotalSizeOperand};
use crate::replay::TraceAccess;
use crate::rng::SplitMix64;
use crate::stats::{
    Attr, Counters, DramCounters, EvictionCounts, LevelCounters, OccupancySample, Stats,
};
use crate::types::{
    AccessKind, CacheOperator, L1EvictionPriority, L2EvictionPriority, LaneAccess, Outcome,
    PrefetchSize, Request, Scope, Semantics, Space,
};

mod combine;
mod engine;

use combine::WriteCombiner;

pub(crate) use engine::LOOKAHEAD;

/// Entries of the route cache (direct-mapped on the request shape).
const ROUTE_SLOTS: usize = 64;

/// Most lane accesses one request may carry (a warp's 32 lanes, twice over for split vectors).
pub const MAX_LANES: usize = 64;
/// Largest single lane access in bytes (`.v8.b32` / `.v4.b64` is 32; 128 leaves room).
pub const MAX_LANE_BYTES: u32 = 128;

/// The state of one resident line, for inspection and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineState {
    /// Bit `i`: sector `i` of the line is valid.
    pub valid_sectors: u8,
    /// Bit `i`: sector `i` is dirty (L2 only; L1 is write-through).
    pub dirty_sectors: u8,
    pub class: EvictionClass,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum L1Path {
    /// The access neither looks up nor fills L1.
    Bypass,
    /// The access may hit in L1 and, when `allocate`, fills it on a miss, with the route's
    /// `l1_hint`.
    Cached { allocate: bool },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum L2Path {
    Cached,
    /// `.cv`: discard the L2 line and fetch again.
    Refetch,
    /// `.mmio`: straight to memory.
    Uncached,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OwnL1 {
    /// Write the new bytes into this SM's L1 copy if the sectors are resident (touching it
    /// with the route's `l1_hint`).
    Update,
    /// Drop this SM's L1 copy of the sectors.
    Invalidate,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Read,
    Write { through: bool },
    Atomic,
}

/// Where an access's L2 priority comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum L2Choice {
    /// The route's `l2_hint` (no policy, or a policy in implicit mode).
    Qualifiers,
    /// A fraction policy (the route's `fraction`).
    Fraction,
    /// A range policy: primary by the value's 128-block window; outside both ranges (when
    /// `create_range_policy` made the value and kept them) the access's own priority.
    Range { policy: CachePolicy, value: u64 },
}

/// A fraction policy's draw: the primary priority with probability `sixteenths / 16`, drawn
/// from the seeded generator (no draw when it is 16/16).
#[derive(Debug, Clone, Copy)]
struct Fraction {
    sixteenths: u32,
    primary: Hint,
    secondary: Hint,
}

#[derive(Debug, Clone, Copy)]
struct Route {
    op: Op,
    /// L1 hint of a cached read or of an own-copy update.
    l1_hint: Hint,
    fraction: Fraction,
    l1: L1Path,
    own_l1: OwnL1,
    l2: L2Path,
    /// L2 hint from qualifiers and operator (a policy, if any, overrides it per line).
    l2_hint: Hint,
    l2_choice: L2Choice,
    /// The block a read miss fetches: the larger of the fetch granularity and the
    /// prefetch-size hint.
    prefetch_bytes: u32,
    /// Invalidate this SM's L1 after the access (acquire at gpu/sys scope).
    invalidate_l1_after: bool,
    /// The request counts as an L1 request (it looks L1 up, or updates this SM's copy).
    touches_l1: bool,
    /// A load that bypasses L1 (`.cg`, `.cv`, coherent, `cp.async.cg`) still passes the
    /// L1TEX tag stage: Nsight counts its sectors as L1 global-load lookups that miss
    /// (H100: `triton.vadd_cv_wb_cg` 1,504 L1 sectors = 752 `.cv` + 752 `.ca`, hit rate 37.5 %;
    /// `pipeline_mbarrier`'s `cp.async.cg` 64 sectors, 0 hits).
    l1_bypass_lookup: bool,
    /// `ld.global.nc`: the L1 sectors this read fills belong to the read-only path, whose
    /// copy the SM's own later stores do not update (H100, `fetch_probe.cu` `same_sm`).
    read_only_fill: bool,
}

/// A route cache entry: the packed request shape, its policy value and its route.
#[derive(Debug, Clone, Copy)]
struct RouteSlot {
    shape: u64,
    policy: u64,
    route: Route,
}

/// Request shape (every field but the SM, the instruction and the policy value) in one word.
#[inline(always)]
fn shape_of(r: &Request) -> u64 {
    #[inline(always)]
    fn opt(v: Option<u64>) -> u64 {
        v.map_or(0, |v| v + 1)
    }
    (r.kind as u64)
        | (r.space as u64) << 4
        | opt(r.operator.map(|o| o as u64)) << 8
        | (r.semantics as u64) << 12
        | (r.scope as u64) << 16
        | u64::from(r.non_coherent) << 20
        | opt(r.l1_priority.map(|p| p as u64)) << 24
        | opt(r.l2_priority.map(|p| p as u64)) << 28
        | opt(r.prefetch.map(|p| p as u64)) << 32
        | u64::from(r.policy.is_some()) << 36
}

/// The `fraction` of routes without a fraction policy.
const NO_FRACTION: Fraction = Fraction {
    sixteenths: 16,
    primary: Hint::Unchanged,
    secondary: Hint::Unchanged,
};

/// A shape no request has (marks empty route cache entries).
const NO_SHAPE: u64 = u64::MAX;

/// Whether two requests have the same shape (every field but the SM and the instruction),
/// compared without branches.
#[inline(always)]
fn same_shape(a: &Request, b: &Request) -> bool {
    (a.kind == b.kind)
        & (a.space == b.space)
        & (a.operator == b.operator)
        & (a.semantics == b.semantics)
        & (a.scope == b.scope)
        & (a.non_coherent == b.non_coherent)
        & (a.l1_priority == b.l1_priority)
        & (a.l2_priority == b.l2_priority)
        & (a.prefetch == b.prefetch)
        & (a.policy == b.policy)
}

/// The last request shape an instruction id was seen with, and its route: the first place
/// [`MemSystem::access`] looks (an instruction, or a trace's op spelling, nearly always keeps
/// its shape).
#[derive(Debug, Clone, Copy)]
struct Memo {
    valid: bool,
    req: Request,
    route: Route,
}

#[derive(Debug, Clone, Copy)]
struct Group {
    line: u64,
    mask: u8,
    l1_hit: u8,
    /// How many times L2 performs an atomic on the line's sectors ([`atomic_passes`]); 1
    /// for every other access.
    passes: u8,
}

/// The passes L2 makes over one line of a warp's atomic: lanes that target the same address
/// are serialized, one operation per address per pass, so the passes are the most active
/// lanes on one address, and Nsight counts the sectors of every pass. Measured on an H100
/// (`tests/hw/h100/counters/corpus_counters.csv`, `lts__t_sectors_srcunit_tex_op_red`):
/// `atomics64` (16 warps, eight 64-bit `RED`s per lane on one address each) 4,096 red sectors =
/// 16 x 8 x 32; `atomic_add_fp` (31 full warps and one of 8 lanes: `RED.INC` on one address,
/// `RED.ADD.F32` on 8 addresses of one sector, `RED.ADD.F64` on 4, five leader-only `RED`s
/// that ptxas aggregated) 1,535 = 31 x (32 + 4 + 8 + 5) + (8 + 1 + 2 + 5). The passes after
/// the first find the line in L2 (lookup hits: 1,534 of the 1,535).
fn atomic_passes(lanes: &[LaneAccess], line: u64, line_shift: u32) -> u8 {
    let mut addrs = [0u64; MAX_LANES];
    let mut n = 0;
    for l in lanes {
        if l.addr >> line_shift == line {
            addrs[n] = l.addr;
            n += 1;
        }
    }
    let addrs = &mut addrs[..n];
    addrs.sort_unstable();
    let mut most = 1;
    let mut run = 0;
    for i in 0..n {
        run = if i > 0 && addrs[i] == addrs[i - 1] {
            run + 1
        } else {
            1
        };
        most = most.max(run);
    }
    most as u8
}

/// What a request reports back: [`Outcome`] and the level that served it ([`Track`]), or
/// nothing (`()`, trace replay, where only the statistics matter).
trait Tally {
    fn l1(&mut self, hits: u64, misses: u64);
    fn l2(&mut self, hits: u64, misses: u64);
    fn dram(&mut self, read: u64, written: u64);
    /// The request was served at `level` (1 = L1, 2 = L2, 3 = DRAM) or deeper.
    fn reached(&mut self, level: u8);
}

/// An [`Outcome`] being filled in.
#[derive(Default)]
struct Track {
    out: Outcome,
    level: u8,
}

impl Tally for Track {
    #[inline(always)]
    fn l1(&mut self, hits: u64, misses: u64) {
        self.out.l1_hits += hits as u32;
        self.out.l1_misses += misses as u32;
    }

    #[inline(always)]
    fn l2(&mut self, hits: u64, misses: u64) {
        self.out.l2_hits += hits as u32;
        self.out.l2_misses += misses as u32;
    }

    #[inline(always)]
    fn dram(&mut self, read: u64, written: u64) {
        self.out.dram_sectors_read += read as u32;
        self.out.dram_sectors_written += written as u32;
    }

    #[inline(always)]
    fn reached(&mut self, level: u8) {
        self.level = self.level.max(level);
    }
}

impl Tally for () {
    #[inline(always)]
    fn l1(&mut self, _: u64, _: u64) {}
    #[inline(always)]
    fn l2(&mut self, _: u64, _: u64) {}
    #[inline(always)]
    fn dram(&mut self, _: u64, _: u64) {}
    #[inline(always)]
    fn reached(&mut self, _: u8) {}
}

/// A line and its L2 set, computed ahead (when replay prefetched the set).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SetHint {
    line: u64,
    set: usize,
}

impl SetHint {
    /// No line (line numbers never reach `u64::MAX`).
    pub const NONE: SetHint = SetHint {
        line: u64::MAX,
        set: 0,
    };
}

/// A request shape with its route resolved, for [`crate::replay::run_trace`].
pub(crate) struct Prepared {
    req: Request,
    route: Result<Route, MemError>,
}

/// Data that travels with a request.
enum Data<'a> {
    None,
    Out(&'a mut [u8]),
    In(&'a [u8]),
    Atomic(&'a mut dyn FnMut(usize, &mut [u8])),
}

/// Line and sector geometry (L1 and L2 share it).
#[derive(Debug, Clone, Copy)]
struct Geometry {
    sector_shift: u32,
    sectors_per_line_shift: u32,
    sector_bytes: u64,
    line_shift: u32,
    full_mask: u8,
    l1_enabled: bool,
}

fn l1_hint(p: L1EvictionPriority) -> Hint {
    match p {
        L1EvictionPriority::Normal => Hint::Set(EvictionClass::Normal),
        L1EvictionPriority::First => Hint::Set(EvictionClass::EvictFirst),
        L1EvictionPriority::Last => Hint::Set(EvictionClass::EvictLast),
        L1EvictionPriority::Unchanged | L1EvictionPriority::NoAllocate => Hint::Unchanged,
    }
}

fn l2_hint(p: L2EvictionPriority) -> Hint {
    match p {
        L2EvictionPriority::Normal => Hint::Set(EvictionClass::Normal),
        L2EvictionPriority::First => Hint::Set(EvictionClass::EvictFirst),
        L2EvictionPriority::Last => Hint::Set(EvictionClass::EvictLast),
        L2EvictionPriority::Unchanged => Hint::Unchanged,
    }
}

/// Set bits of every byte value (a table: `count_ones` without a popcnt target feature is a
/// dozen instructions on the hot path).
const POPCOUNT: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = (i as u8).count_ones() as u8;
        i += 1;
    }
    t
};

#[inline(always)]
fn pop(m: u8) -> u64 {
    u64::from(POPCOUNT[m as usize])
}

/// The memory hierarchy: one L1 per SM (holding its own copy of the data, not coherent with
/// the others), one L2 (the point of coherence, tags only: its data is the global image),
/// DRAM traffic counters, and the global memory image.
pub struct MemSystem {
    cfg: GpuConfig,
    geo: Geometry,
    l1: Vec<SectorCache>,
    l1_ready: Vec<bool>,
    /// Whether any `l1_ready` entry is set, so host writes skip the per-SM walk when none is.
    any_l1_ready: bool,
    l2: SectorCache,
    mem: GlobalMemory,
    keep_data: bool,
    stats: Stats,
    rng: SplitMix64,
    range_policies: Vec<RangePolicy>,
    groups: Vec<Group>,
    /// The atomic being executed was aggregated by the compiler into one operation per warp
    /// ([`MemSystem::atomic_warp_aggregated`]): one L2 pass per line.
    aggregated: bool,
    hit_data: Vec<u8>,
    /// Routes by request shape (traces repeat a few shapes, so this skips most routing work).
    routes: Box<[RouteSlot; ROUTE_SLOTS]>,
    /// The last route of each instruction id.
    memo: Vec<Memo>,
    /// The coalesced accesses of every warp request, while recording ([`MemSystem::record_trace`]).
    recorded: Option<Vec<TraceAccess>>,
    /// Pending store lines per SM (`system/combine.rs`).
    combine: WriteCombiner,
}

impl MemSystem {
    /// A memory system that holds data: accesses must fall inside allocations made with
    /// [`MemSystem::alloc`], loads return bytes and stale L1 copies are real.
    pub fn new(cfg: GpuConfig) -> Result<Self, MemError> {
        Self::build(cfg, true)
    }

    /// A memory system that keeps tags only (trace replay): any address is accepted, no data
    /// moves, and every counter behaves as in [`MemSystem::new`].
    pub fn tags_only(cfg: GpuConfig) -> Result<Self, MemError> {
        Self::build(cfg, false)
    }

    fn build(cfg: GpuConfig, keep_data: bool) -> Result<Self, MemError> {
        cfg.validate()?;
        let sm_count = cfg.sm_count as usize;
        let spl = cfg.l2.sectors_per_line();
        let l2 = SectorCache::new(&cfg.l2, cfg.evict_last_ways(), false);
        let empty = RouteSlot {
            shape: NO_SHAPE,
            policy: 0,
            route: Route {
                op: Op::Read,
                l1_hint: Hint::Unchanged,
                fraction: NO_FRACTION,
                l1: L1Path::Bypass,
                own_l1: OwnL1::Invalidate,
                l2: L2Path::Cached,
                l2_hint: Hint::Unchanged,
                l2_choice: L2Choice::Qualifiers,
                prefetch_bytes: 0,
                invalidate_l1_after: false,
                touches_l1: false,
                l1_bypass_lookup: false,
                read_only_fill: false,
            },
        };
        Ok(Self {
            geo: Geometry {
                sector_shift: cfg.l2.sector_bytes.trailing_zeros(),
                sectors_per_line_shift: spl.trailing_zeros(),
                sector_bytes: u64::from(cfg.l2.sector_bytes),
                line_shift: cfg.l2.line_bytes.trailing_zeros(),
                full_mask: ((1u16 << spl) - 1) as u8,
                l1_enabled: cfg.l1.size_bytes > 0,
            },
            l1: (0..sm_count).map(|_| SectorCache::empty()).collect(),
            l1_ready: vec![false; sm_count],
            any_l1_ready: false,
            l2,
            mem: GlobalMemory::new(cfg.memory_bytes),
            keep_data,
            stats: Stats::new(&cfg.name, sm_count),
            rng: SplitMix64::new(cfg.seed),
            range_policies: Vec::new(),
            groups: Vec::with_capacity(2 * MAX_LANES),
            aggregated: false,
            hit_data: Vec::new(),
            routes: Box::new([empty; ROUTE_SLOTS]),
            memo: Vec::new(),
            recorded: None,
            combine: WriteCombiner::new(sm_count, cfg.l2_write_combine_lines as usize),
            cfg,
        })
    }

    pub fn config(&self) -> &GpuConfig {
        &self.cfg
    }

    /// Changes the persisting-L2 set-aside between kernels, as
    /// `cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, bytes)` does: later evict-last
    /// requests are capped by the new size; resident lines keep their class. More than the
    /// GPU's maximum is an error and changes nothing.
    pub fn set_persisting_l2(&mut self, bytes: u64) -> Result<(), MemError> {
        self.cfg.set_persisting_l2(bytes)?;
        self.l2.set_last_cap(self.cfg.evict_last_ways());
        Ok(())
    }

    // ---------------------------------------------------------------- host side

    /// Allocates `bytes` of zeroed global memory aligned to `align` (at least 256) and returns
    /// its device address. Allocations are separated by an unmapped guard gap.
    pub fn alloc(&mut self, bytes: u64, align: u64) -> Result<u64, MemError> {
        self.mem.alloc(bytes, align)
    }

    /// Bytes of device memory the live allocations take (each padded to 256 bytes); at most
    /// [`GpuConfig::memory_bytes`].
    pub fn memory_in_use(&self) -> u64 {
        self.mem.in_use()
    }

    /// Frees the allocation that starts at `base`.
    pub fn free(&mut self, base: u64) -> Result<(), MemError> {
        self.mem.free(base)
    }

    /// Host write (e.g. `cudaMemcpy`): updates the coherent image and, like the driver,
    /// discards any L1 copy of the bytes.
    pub fn write(&mut self, addr: u64, src: &[u8]) -> Result<(), MemError> {
        self.mem.host_write(addr, src)?;
        // No SM has an L1 yet (data-only runs, or before the first cached access): nothing
        // to discard, and this is the interpreter's store path when the cache model is off.
        if !src.is_empty() && self.any_l1_ready {
            let first = addr >> self.geo.sector_shift;
            let last = (addr + src.len() as u64 - 1) >> self.geo.sector_shift;
            for sm in 0..self.l1.len() {
                if self.l1_ready[sm] {
                    self.drop_l1_sectors(sm, first, last);
                }
            }
        }
        Ok(())
    }

    /// Whether `[addr, addr + len)` lies inside one allocation.
    pub fn is_mapped(&self, addr: u64, len: u64) -> bool {
        self.mem.find(addr, len).is_some()
    }

    /// Host read of the coherent value.
    pub fn read(&self, addr: u64, dst: &mut [u8]) -> Result<(), MemError> {
        self.mem.host_read(addr, dst)
    }

    fn drop_l1_sectors(&mut self, sm: usize, first_sector: u64, last_sector: u64) {
        let l1 = &mut self.l1[sm];
        let spl = self.geo.sectors_per_line_shift;
        let (first_line, last_line) = (first_sector >> spl, last_sector >> spl);
        // A short write looks its few lines up; a long one walks the resident lines once.
        if last_line - first_line < 64 {
            for line in first_line..=last_line {
                if let (_, Some(slot)) = l1.lookup(line) {
                    let line_first = line << spl;
                    let line_last = line_first + (1 << spl) - 1;
                    let mut mask = 0u8;
                    for s in first_sector.max(line_first)..=last_sector.min(line_last) {
                        mask |= 1 << (s - line_first);
                    }
                    l1.drop_sectors(slot, mask);
                }
            }
            return;
        }
        let slots = l1.resident_slots();
        for slot in slots {
            let line_first = l1.line_of(slot) << self.geo.sectors_per_line_shift;
            let line_last = line_first + (1 << self.geo.sectors_per_line_shift) - 1;
            if line_last < first_sector || line_first > last_sector {
                continue;
            }
            let mut mask = 0u8;
            for s in first_sector.max(line_first)..=last_sector.min(line_last) {
                mask |= 1 << (s - line_first);
            }
            l1.drop_sectors(slot, mask);
        }
    }

    // ---------------------------------------------------------------- policies

    /// `createpolicy.range`: encodes the value as the GPU does ([`CachePolicy::range`]) and
    /// remembers the exact ranges: the 64-bit value says which blocks are primary (and so
    /// decides primary against secondary), but not where the secondary ranges end, which the
    /// spec's "outside the ranges the priority is unchanged" needs.
    pub fn create_range_policy(
        &mut self,
        base: u64,
        primary_size: u32,
        total_size: u32,
        total_operand: TotalSizeOperand,
        primary: L2EvictionPriority,
        secondary: L2EvictionPriority,
    ) -> Result<u64, MemError> {
        let value = CachePolicy::range(
            base,
            primary_size,
            total_size,
            total_operand,
            primary,
            secondary,
        )?;
        self.range_policies.retain(|r| r.value != value);
        self.range_policies.push(RangePolicy {
            value,
            base,
            primary_size,
            total_size,
        });
        Ok(value)
    }

    /// `createpolicy.fractional`: the GPU's encoding ([`CachePolicy::fractional`]).
    pub fn create_fractional_policy(
        primary: L2EvictionPriority,
        secondary: L2EvictionPriority,
        fraction: f32,
    ) -> Result<u64, MemError> {
        CachePolicy::fractional(primary, secondary, fraction)
    }

    // ---------------------------------------------------------------- requests

    /// A warp-level read (`ld`, `ld.global.nc`, `cp.async`'s global read, `prefetch`):
    /// lane `i`'s bytes land in `out` after lanes `0..i`'s (so `out.len()` is the sum of the
    /// lane sizes; a prefetch may pass an empty `out`).
    pub fn load(
        &mut self,
        req: &Request,
        lanes: &[LaneAccess],
        out: &mut [u8],
    ) -> Result<Outcome, MemError> {
        if matches!(req.kind, AccessKind::Store | AccessKind::Atomic) {
            return Err(MemError::Unsupported {
                what: "a store or atomic request passed to load",
            });
        }
        if req.kind == AccessKind::Prefetch && out.is_empty() {
            return self.execute(req, lanes, Data::None);
        }
        self.execute(req, lanes, Data::Out(out))
    }

    /// A warp-level store: lane `i`'s bytes are taken from `data` after lanes `0..i`'s.
    pub fn store(
        &mut self,
        req: &Request,
        lanes: &[LaneAccess],
        data: &[u8],
    ) -> Result<Outcome, MemError> {
        if req.kind != AccessKind::Store {
            return Err(MemError::Unsupported {
                what: "a non-store request passed to store",
            });
        }
        self.execute(req, lanes, Data::In(data))
    }

    /// A warp-level atomic (`atom`/`red`), performed at L2 on the coherent value:
    /// `update(i, bytes)` is called once per lane, in lane order, with lane `i`'s bytes, and
    /// computes the new value in place (returning the old one is the caller's business).
    pub fn atomic(
        &mut self,
        req: &Request,
        lanes: &[LaneAccess],
        update: &mut dyn FnMut(usize, &mut [u8]),
    ) -> Result<Outcome, MemError> {
        if req.kind != AccessKind::Atomic {
            return Err(MemError::Unsupported {
                what: "a non-atomic request passed to atomic",
            });
        }
        self.execute(req, lanes, Data::Atomic(update))
    }

    /// [`MemSystem::atomic`] for an atomic the compiler performs once per warp: every lane's
    /// update is applied, but L2 makes one pass over each line, as for one lane. ptxas 13.5
    /// (sm_75, sm_80, sm_90) turns a warp's 32-bit integer `add` on one address (result used or
    /// not: a leader `ATOMG` plus a shuffle scan) and `and`/`or`/`xor`/`min`/`max` whose result
    /// is unused (`REDUX` + one leader `RED`) into a single operation; `inc`, `dec`, `exch`,
    /// `cas`, floating-point and 64-bit operations with varying operands stay per lane. On an
    /// H100 `apply_property_sum`'s `atomicAdd(out, x[i])` over 10 warps counts 10 red sectors.
    /// The caller decides (memsys knows no instructions).
    pub fn atomic_warp_aggregated(
        &mut self,
        req: &Request,
        lanes: &[LaneAccess],
        update: &mut dyn FnMut(usize, &mut [u8]),
    ) -> Result<Outcome, MemError> {
        self.aggregated = true;
        let r = self.atomic(req, lanes, update);
        self.aggregated = false;
        r
    }

    /// One access without data (trace replay): `bytes` at `addr` with the request's hints.
    /// Counts exactly what a one-lane [`MemSystem::load`]/[`MemSystem::store`] would; in a
    /// memory system that holds data it is routed through them (atomics add nothing).
    #[inline(always)]
    pub fn access(&mut self, req: &Request, addr: u64, bytes: u32) -> Result<Outcome, MemError> {
        if self.keep_data {
            return self.execute(req, &[LaneAccess { addr, bytes }], Data::None);
        }
        // The checks in the original order: SM (which also registers the instruction id),
        // size, address overflow, route.
        let at = self.attr(req.sm.0, req.instr.0)?;
        if bytes == 0 || bytes > MAX_LANE_BYTES {
            return Err(MemError::BadSize { addr, bytes });
        }
        let Some(end) = addr.checked_add(u64::from(bytes)) else {
            return Err(MemError::Unmapped { addr, bytes });
        };
        if at.instr >= self.memo.len() {
            self.grow_memo(at.instr);
        }
        let m = &self.memo[at.instr];
        let route = if m.valid & same_shape(&m.req, req) {
            m.route
        } else {
            let route = self.route(req)?;
            self.memo[at.instr] = Memo {
                valid: true,
                req: *req,
                route,
            };
            route
        };
        let t = self.perform_routed(at, &route, addr, end, SetHint::NONE, Track::default());
        Ok(Outcome {
            latency_cycles: self.latency(t.level),
            ..t.out
        })
    }

    /// Resolves a request shape once for [`crate::replay::run_trace`] (errors are kept and
    /// reported when an access of that shape is performed, in trace order).
    pub(crate) fn prepare(&mut self, req: &Request) -> Prepared {
        let route = self.route(req);
        Prepared { req: *req, route }
    }

    /// [`MemSystem::access`] of `p`'s request from SM `sm`, with its route already resolved:
    /// the same checks in the same order, the same effects.
    /// The request's counters go to `cell` when given (see [`MemSystem::add_cell`]).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn access_prepared(
        &mut self,
        p: &Prepared,
        sm: u32,
        addr: u64,
        bytes: u32,
        hint: SetHint,
        cell: Option<&mut Counters>,
    ) -> Result<(), MemError> {
        if self.keep_data {
            return self.access_prepared_with_data(p, sm, addr, bytes);
        }
        let at = self.attr(sm, p.req.instr.0)?;
        if bytes == 0 || bytes > MAX_LANE_BYTES {
            return Err(MemError::BadSize { addr, bytes });
        }
        let Some(end) = addr.checked_add(u64::from(bytes)) else {
            return Err(MemError::Unmapped { addr, bytes });
        };
        match (&p.route, cell) {
            (Ok(route), Some(cell)) => {
                self.perform_in_cell(at, route, addr, end, hint, cell);
                Ok(())
            }
            (Ok(route), None) => {
                self.perform_routed(at, route, addr, end, hint, ());
                Ok(())
            }
            (Err(e), _) => Err(e.clone()),
        }
    }

    /// Adds a replay cell (the counters of one request shape's accesses from one SM) to the
    /// SM's and the instruction's counters.
    pub(crate) fn add_cell(&mut self, sm: usize, instr: usize, cell: &Counters) {
        self.stats.ensure_instr(instr);
        self.stats.per_sm[sm] += cell;
        self.stats.per_instr[instr] += cell;
    }

    /// The instruction id of a prepared request shape.
    pub(crate) fn prepared_instr(p: &Prepared) -> usize {
        p.req.instr.0 as usize
    }

    /// [`MemSystem::access_prepared`] on a memory system that holds data (kept out of the
    /// replay loop).
    #[cold]
    #[inline(never)]
    fn access_prepared_with_data(
        &mut self,
        p: &Prepared,
        sm: u32,
        addr: u64,
        bytes: u32,
    ) -> Result<(), MemError> {
        let req = Request {
            sm: crate::types::SmId(sm),
            ..p.req
        };
        self.access(&req, addr, bytes).map(drop)
    }

    /// Prefetches the L2 set of `addr`'s line (and of its neighbour when `pair`, for 256 B
    /// prefetch blocks) into the host's caches (see [`MemSystem::prefetch_for`]); returns the
    /// line and its set, which the access can use instead of hashing the line again.
    #[inline(always)]
    pub(crate) fn prefetch_line(&self, addr: u64, pair: bool, sm: usize) -> SetHint {
        let line = addr >> self.geo.line_shift;
        let set = self.l2.set_of(line);
        self.l2.prefetch_set(set);
        let _ = sm;
        if pair {
            self.l2.prefetch_set(self.l2.set_of(line ^ 1));
        }
        SetHint { line, set }
    }

    /// Asks the host to bring the L2 set(s) an access will use into its caches, so that when
    /// [`crate::replay::run`] performs it a few accesses later the lookup does not wait on
    /// host memory. A hint only: changes nothing observable.
    #[inline(always)]
    pub(crate) fn prefetch_for(&self, req: &Request, addr: u64) {
        if self.keep_data {
            return;
        }
        let line = addr >> self.geo.line_shift;
        self.l2.prefetch_set(self.l2.set_of(line));
        if req.prefetch == Some(PrefetchSize::B256) || req.policy.is_some_and(|p| p & 1 << 62 != 0)
        {
            // A 256 B prefetch block spans this line and its neighbour.
            self.l2.prefetch_set(self.l2.set_of(line ^ 1));
        }
    }

    /// The route cache entry holding `req`'s route, resolving it on a miss.
    #[inline(always)]
    fn route_slot(&mut self, req: &Request) -> Result<usize, MemError> {
        let shape = shape_of(req);
        let policy = req.policy.unwrap_or(0);
        let i = ((shape ^ policy.rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58)
            as usize
            % ROUTE_SLOTS;
        let e = &self.routes[i];
        if e.shape == shape && e.policy == policy {
            return Ok(i);
        }
        self.route_slow(req, shape, policy, i)
    }

    /// The route of `req` (from the cache).
    fn route(&mut self, req: &Request) -> Result<Route, MemError> {
        let i = self.route_slot(req)?;
        Ok(self.routes[i].route)
    }

    #[cold]
    #[inline(never)]
    fn route_slow(
        &mut self,
        req: &Request,
        shape: u64,
        policy: u64,
        i: usize,
    ) -> Result<usize, MemError> {
        let route = self.resolve(req)?;
        self.routes[i] = RouteSlot {
            shape,
            policy,
            route,
        };
        Ok(i)
    }

    /// One tags-only access, checked and routed, split into its (at most two) lines;
    /// `tally` collects what it reports back (an [`Outcome`], or nothing).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn perform_routed<T: Tally>(
        &mut self,
        at: Attr,
        route: &Route,
        addr: u64,
        end: u64,
        hint: SetHint,
        tally: T,
    ) -> T {
        self.ensure_l1(at.sm);
        self.stats.requests += 1;
        let mut w = Work {
            l1: &mut self.l1[at.sm],
            l2: &mut self.l2,
            combine: &mut self.combine,
            sm: at.sm,
            counters: SmAndInstr {
                sm: &mut self.stats.per_sm[at.sm],
                instr: &mut self.stats.per_instr[at.instr],
            },
            rng: &mut self.rng,
            ranges: &self.range_policies,
            mem: &self.mem,
            geo: self.geo,
            tally,
            l2_hint: hint,
        };
        w.perform(route, addr, end);
        let tally = w.tally;
        self.sample_timeline();
        tally
    }

    /// [`MemSystem::perform_routed`] (no tally) with the request's counters in `cell` (trace
    /// replay: one counter set per request shape and SM, added to the SM's and the
    /// instruction's counters when the replay ends).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn perform_in_cell(
        &mut self,
        at: Attr,
        route: &Route,
        addr: u64,
        end: u64,
        hint: SetHint,
        cell: &mut Counters,
    ) {
        self.ensure_l1(at.sm);
        self.stats.requests += 1;
        let mut w = Work {
            l1: &mut self.l1[at.sm],
            l2: &mut self.l2,
            combine: &mut self.combine,
            sm: at.sm,
            counters: cell,
            rng: &mut self.rng,
            ranges: &self.range_policies,
            mem: &self.mem,
            geo: self.geo,
            tally: (),
            l2_hint: hint,
        };
        w.perform(route, addr, end);
        self.sample_timeline();
    }

    /// The latency of the level that served a request.
    #[inline(always)]
    fn latency(&self, level: u8) -> u32 {
        match level {
            0 | 1 => self.cfg.l1.latency_cycles,
            2 => self.cfg.l2.latency_cycles,
            _ => self.cfg.dram_latency_cycles,
        }
    }

    /// The end of every request: an occupancy sample if the timeline is due.
    #[inline(always)]
    fn sample_timeline(&mut self) {
        let interval = self.cfg.timeline_interval;
        if interval > 0 && self.stats.requests % interval == 0 {
            self.push_timeline_sample();
        }
    }

    fn push_timeline_sample(&mut self) {
        push_timeline_sample(&mut self.stats, self.l2.occupancy());
    }

    /// Discards every L1 line of one SM (`fence`/`membar` at gpu scope, kernel boundaries).
    pub fn invalidate_l1(&mut self, sm: u32) -> Result<(), MemError> {
        let at = self.attr(sm, 0)?;
        self.invalidate_l1_at(at);
        Ok(())
    }

    /// Discards every SM's L1: spec (Table 30, `.ca`): "The driver must invalidate global L1
    /// cache lines between dependent grids of parallel threads."
    /// The stores' write-combining windows drain too (`system/combine.rs`).
    pub fn invalidate_all_l1(&mut self) {
        self.combine.clear();
        for sm in 0..self.l1.len() {
            if self.l1_ready[sm] {
                let slots = self.l1[sm].resident_slots();
                for s in slots {
                    let (dropped, _) = self.l1[sm].drop_sectors(s, 0xFF);
                    self.stats.host.l1.invalidations += pop(dropped);
                }
            }
        }
    }

    /// Writes every dirty L2 sector back to DRAM (counted as host traffic), e.g. at the end
    /// of a run so DRAM bytes written include data still held in L2.
    pub fn flush_l2(&mut self) {
        let slots = self.l2.resident_slots();
        for s in slots {
            let d = self.l2.dirty(s);
            if d != 0 {
                self.l2.set_dirty(s, 0);
                self.stats.host.l2.writebacks += pop(d);
                self.stats.host.dram.bytes_written += pop(d) * self.geo.sector_bytes;
            }
        }
    }

    /// Writes every dirty L2 sector back (host traffic) and discards every L2 line, so the
    /// next kernel starts with a cold L2: what Nsight Compute's default `--cache-control all`
    /// does before each profiled kernel (the H100 corpus counters were taken that way).
    pub fn invalidate_l2(&mut self) {
        self.flush_l2();
        for s in self.l2.resident_slots() {
            let (dropped, _) = self.l2.drop_sectors(s, 0xFF);
            self.stats.host.l2.invalidations += pop(dropped);
        }
    }

    // ---------------------------------------------------------------- inspection

    /// A snapshot of the statistics.
    pub fn stats(&self) -> Stats {
        let mut s = self.stats.clone();
        s.l2_occupancy = self.occupancy_sample();
        s
    }

    /// Clears every counter and the timeline (cache contents stay).
    pub fn reset_stats(&mut self) {
        self.stats = Stats::new(&self.cfg.name, self.cfg.sm_count as usize);
    }

    /// The L2 state of the line holding `addr`, if resident.
    pub fn l2_line(&self, addr: u64) -> Option<LineState> {
        let (_, slot) = self.l2.lookup(addr >> self.geo.line_shift);
        slot.map(|s| LineState {
            valid_sectors: self.l2.valid(s),
            dirty_sectors: self.l2.dirty(s),
            class: self.l2.class(s),
        })
    }

    /// SM `sm`'s L1 state of the line holding `addr`, if resident.
    pub fn l1_line(&self, sm: u32, addr: u64) -> Option<LineState> {
        let sm = sm as usize;
        if sm >= self.l1.len() || !self.l1_ready[sm] {
            return None;
        }
        let (_, slot) = self.l1[sm].lookup(addr >> self.geo.line_shift);
        slot.map(|s| LineState {
            valid_sectors: self.l1[sm].valid(s),
            dirty_sectors: 0,
            class: self.l1[sm].class(s),
        })
    }

    /// L2 lines per class `[evict_first, normal, evict_last]`.
    pub fn l2_occupancy(&self) -> [u64; 3] {
        self.l2.occupancy()
    }

    /// Most evict-last lines held by any one L2 set.
    pub fn l2_max_evict_last_per_set(&self) -> u32 {
        self.l2.max_last_lines_per_set()
    }

    fn occupancy_sample(&self) -> OccupancySample {
        let [f, n, l] = self.l2.occupancy();
        OccupancySample {
            request: self.stats.requests,
            evict_first: f,
            normal: n,
            evict_last: l,
        }
    }

    // ---------------------------------------------------------------- routing

    /// Decides where a request goes. Each arm implements a sentence of the PTX ISA:
    ///
    /// - `.ca`: "allocates cache lines in all levels (L1 and L2) with normal eviction policy";
    ///   L1s "are not coherent for global data".
    /// - `.cg`: "cache only in the L2 cache", bypassing L1 (loads and stores).
    /// - `.cs`: "allocates global lines with evict-first policy in L1 and L2".
    /// - `.lu`: "performs a load cached streaming operation (`ld.cs`) on global addresses".
    /// - `.cv`: "invalidates (discards) a matching L2 line and re-fetches the line on each new
    ///   load" — and never hits in L1; the re-fetched line is not kept ("don't cache").
    /// - `.wb`: "writes back cache lines of coherent cache levels with normal eviction
    ///   policy": the L2 line is written and marked dirty; this SM's own L1 copy (if resident)
    ///   is updated, other SMs' copies are not ("may get a hit on stale L1 cache data").
    /// - `.wt`: "writes through the L2 cache": the L2 line is updated and the bytes go to DRAM.
    /// - volatile / relaxed / acquire / release (scope above `.cta`): served at the point of
    ///   coherence, L2; at `.cta` scope the SM's L1 is coherent for the CTA and is used.
    /// - `.mmio`: never cached.
    /// - acquire at gpu/sys scope also invalidates the SM's L1 afterwards, as sm_70+ SASS does
    ///   (`CCTL.IVALL` after the acquiring load), so later weak loads see released data.
    /// - atomics are performed at L2 and drop this SM's L1 copy.
    /// - `ld.global.nc` takes the read-only path, which on sm_70+ is the unified L1: it is
    ///   routed like the cache operator it carries (default `.ca`).
    fn resolve(&self, req: &Request) -> Result<Route, MemError> {
        match req.space {
            Space::Shared => {
                return Err(MemError::Unsupported {
                    what: "shared memory (it lives outside the caches)",
                })
            }
            Space::Const | Space::Param if !req.kind.is_read() => {
                return Err(MemError::Unsupported {
                    what:
                        "a write to the const or param space (stores to const memory are illegal)",
                })
            }
            _ => {}
        }
        let policy = req.policy.map(CachePolicy::decode).filter(|p| {
            matches!(p.mode, PolicyMode::Fraction | PolicyMode::Range)
                || p.l1_no_allocate
                || p.l2_promote_256b
        });
        let mut prefetch = req.prefetch;
        if policy.is_some_and(|p| p.l2_promote_256b) {
            prefetch = Some(PrefetchSize::B256);
        }
        // A read miss fetches at least the aligned block of the fetch granularity (CUDA's
        // cudaLimitMaxL2FetchGranularity; measured on an H100: a one-sector miss reads 64 B).
        let prefetch_bytes = prefetch
            .map_or(0, PrefetchSize::bytes)
            .max(self.cfg.l2_fetch_granularity_bytes);
        let cta_scoped = req.scope == Scope::Cta
            && matches!(
                req.semantics,
                Semantics::Relaxed | Semantics::Acquire | Semantics::Release
            );
        let coherent = !cta_scoped
            && matches!(
                req.semantics,
                Semantics::Volatile | Semantics::Relaxed | Semantics::Acquire | Semantics::Release
            );
        let mmio = req.semantics == Semantics::Mmio;
        let qualifier_l2 = req.l2_priority.map(l2_hint);
        let qualifier_l1 = req.l1_priority.map(l1_hint);
        let l1_no_alloc = req.l1_priority == Some(L1EvictionPriority::NoAllocate)
            || policy.is_some_and(|p| p.l1_no_allocate);
        let first = Hint::Set(EvictionClass::EvictFirst);
        let mut route = Route {
            op: Op::Read,
            l1_hint: qualifier_l1.unwrap_or(Hint::Unchanged),
            fraction: match policy {
                Some(p) if p.mode == PolicyMode::Fraction => Fraction {
                    sixteenths: u32::from(p.fraction_code) + 1,
                    primary: l2_hint(p.primary),
                    secondary: l2_hint(p.secondary),
                },
                _ => NO_FRACTION,
            },
            l1: L1Path::Bypass,
            own_l1: OwnL1::Invalidate,
            l2: L2Path::Cached,
            l2_hint: qualifier_l2.unwrap_or(Hint::Unchanged),
            l2_choice: match policy {
                Some(p) if p.mode == PolicyMode::Fraction => L2Choice::Fraction,
                Some(p) if p.mode == PolicyMode::Range => L2Choice::Range {
                    policy: p,
                    value: req.policy.unwrap_or(0),
                },
                _ => L2Choice::Qualifiers,
            },
            prefetch_bytes,
            invalidate_l1_after: false,
            touches_l1: false,
            l1_bypass_lookup: false,
            read_only_fill: false,
        };
        match req.kind {
            AccessKind::Load | AccessKind::AsyncCopy | AccessKind::Prefetch => {
                let op = match req.operator.unwrap_or(CacheOperator::Ca) {
                    // ptxas drops `.cg` from `ld.global.cg.nc`: on sm_75, sm_80 and sm_90 it
                    // is the same `LDG.E.CONSTANT` as `ld.global.nc` (docs/fences.md's probe
                    // method; `ld_forms.ld_global_nc_forms`' 16 nc loads: all `.CONSTANT`, none
                    // bypassing L1), and the H100 hits L1 on them (144 of 156 sectors).
                    CacheOperator::Cg if req.non_coherent => CacheOperator::Ca,
                    op => op,
                };
                if mmio {
                    route.l2 = L2Path::Uncached;
                } else if coherent {
                    route.invalidate_l1_after = req.semantics == Semantics::Acquire;
                } else {
                    match op {
                        CacheOperator::Ca => {
                            route.l1 = L1Path::Cached {
                                allocate: !l1_no_alloc,
                            }
                        }
                        CacheOperator::Cg => {}
                        CacheOperator::Cs | CacheOperator::Lu => {
                            route.l1 = L1Path::Cached {
                                allocate: !l1_no_alloc,
                            };
                            route.l1_hint = qualifier_l1.unwrap_or(first);
                            route.l2_hint = qualifier_l2.unwrap_or(first);
                        }
                        CacheOperator::Cv => route.l2 = L2Path::Refetch,
                        CacheOperator::Wb | CacheOperator::Wt => {
                            return Err(MemError::Unsupported {
                                what: "a store cache operator (.wb/.wt) on a read",
                            })
                        }
                    }
                }
            }
            AccessKind::Store => {
                let op = req.operator.unwrap_or(CacheOperator::Wb);
                route.op = Op::Write { through: false };
                if mmio {
                    route.l2 = L2Path::Uncached;
                } else if !coherent {
                    match op {
                        CacheOperator::Wb => route.own_l1 = OwnL1::Update,
                        CacheOperator::Cg => {}
                        CacheOperator::Cs => {
                            route.own_l1 = OwnL1::Update;
                            route.l1_hint = qualifier_l1.unwrap_or(first);
                            route.l2_hint = qualifier_l2.unwrap_or(first);
                        }
                        CacheOperator::Wt => {
                            route.op = Op::Write { through: true };
                            route.own_l1 = OwnL1::Update;
                        }
                        CacheOperator::Ca | CacheOperator::Lu | CacheOperator::Cv => {
                            return Err(MemError::Unsupported {
                                what: "a load cache operator (.ca/.lu/.cv) on a store",
                            })
                        }
                    }
                }
            }
            AccessKind::Atomic => {
                route.op = Op::Atomic;
                if mmio {
                    route.l2 = L2Path::Uncached;
                }
                // `atom.acquire`/`.acq_rel` above .cta: ptxas emits CCTL.IVALL after it
                // (docs/fences.md), as after an acquiring load.
                route.invalidate_l1_after = !cta_scoped && req.semantics == Semantics::Acquire;
            }
        }
        // A prefetch to L1 does not leave the line in L1 for the loads after it: on an H100
        // (`ld_forms.prefetch_forms`, sm_75/80/90 builds, caches flushed) the `ld.global` that
        // follows `prefetch.global.L1`, `prefetch.L1` and `prefetchu.L1` (SASS `CCTL.E.PF1`) of
        // its own address hits 0 of its 13 L1 sectors, and the prefetches are no L1
        // global-load lookups (13 sectors: the load's). Every form reaches L2.
        if !self.geo.l1_enabled || req.kind == AccessKind::Prefetch {
            route.l1 = L1Path::Bypass;
        }
        route.l1_bypass_lookup = self.geo.l1_enabled
            && route.op == Op::Read
            && route.l1 == L1Path::Bypass
            && route.l2 != L2Path::Uncached
            && matches!(req.kind, AccessKind::Load | AccessKind::AsyncCopy);
        route.read_only_fill = req.non_coherent
            && route.op == Op::Read
            && matches!(route.l1, L1Path::Cached { allocate: true });
        route.touches_l1 = matches!(route.l1, L1Path::Cached { .. })
            || route.l1_bypass_lookup
            || (self.geo.l1_enabled && route.own_l1 == OwnL1::Update && route.op != Op::Read);
        Ok(route)
    }

    /// Checks the SM and makes room for the instruction's counters.
    #[inline(always)]
    fn attr(&mut self, sm: u32, instr: u32) -> Result<Attr, MemError> {
        if sm >= self.cfg.sm_count {
            return Err(MemError::NoSuchSm {
                sm,
                sm_count: self.cfg.sm_count,
            });
        }
        self.stats.ensure_instr(instr as usize);
        Ok(Attr {
            sm: sm as usize,
            instr: instr as usize,
        })
    }

    #[cold]
    fn grow_memo(&mut self, instr: usize) {
        let empty = Memo {
            valid: false,
            req: Request::default(),
            route: self.routes[0].route,
        };
        self.memo.resize(instr + 1, empty);
    }

    #[inline(always)]
    fn ensure_l1(&mut self, sm: usize) {
        if self.geo.l1_enabled && !self.l1_ready[sm] {
            self.l1[sm] = SectorCache::new(&self.cfg.l1, self.cfg.l1.ways, self.keep_data);
            self.l1_ready[sm] = true;
            self.any_l1_ready = true;
        }
    }

    fn invalidate_l1_at(&mut self, at: Attr) {
        if !self.l1_ready[at.sm] {
            return;
        }
        let n = invalidate_whole(&mut self.l1[at.sm]);
        let c = &mut self.stats;
        c.per_sm[at.sm].l1.invalidations += n;
        c.per_instr[at.instr].l1.invalidations += n;
    }

    // ---------------------------------------------------------------- execution

    #[inline(never)]
    fn execute(
        &mut self,
        req: &Request,
        lanes: &[LaneAccess],
        mut data: Data<'_>,
    ) -> Result<Outcome, MemError> {
        let at = self.attr(req.sm.0, req.instr.0)?;
        if lanes.len() > MAX_LANES {
            return Err(MemError::TooManyLanes {
                lanes: lanes.len(),
                max: MAX_LANES,
            });
        }
        // The first and last lanes' lines are usually every line of the request: bring their
        // L1 and L2 sets into the host's caches while the lanes are checked and coalesced
        // (a large L2's sets are far apart in host memory). A hint: nothing observable.
        if let (Some(first), Some(last)) = (lanes.first(), lanes.last()) {
            for addr in [first.addr, last.addr] {
                let line = addr >> self.geo.line_shift;
                self.l2.prefetch_set(self.l2.set_of(line));
                if self.l1_ready[at.sm] {
                    let l1 = &self.l1[at.sm];
                    l1.prefetch_set(l1.set_of(line));
                }
            }
        }
        let mut total = 0usize;
        // The allocation holding each lane's bytes (when data is kept), for the data moves.
        let mut alloc_of = [0u32; MAX_LANES];
        let mut near = 0usize;
        for (i, l) in lanes.iter().enumerate() {
            if l.bytes == 0 || l.bytes > MAX_LANE_BYTES {
                return Err(MemError::BadSize {
                    addr: l.addr,
                    bytes: l.bytes,
                });
            }
            if l.addr.checked_add(u64::from(l.bytes)).is_none() {
                return Err(MemError::Unmapped {
                    addr: l.addr,
                    bytes: l.bytes,
                });
            }
            if self.keep_data {
                // A prefetch asks for the whole line of its address: only where the line
                // starts must be mapped (allocations are aligned and padded to 256 B, so the
                // rest of the line is inside the allocation's storage). On an H100 the
                // prefetches of a 400-byte buffer's last, partly used line are counted like
                // the others (`ld_forms.prefetch_forms`: 112 = 4 warps x 7 forms x 4 sectors).
                let checked = if req.kind == AccessKind::Prefetch {
                    1
                } else {
                    u64::from(l.bytes)
                };
                match self.mem.find_near(near, l.addr, checked) {
                    Some(a) => {
                        near = a;
                        alloc_of[i] = a as u32;
                    }
                    None => {
                        return Err(MemError::Unmapped {
                            addr: l.addr,
                            bytes: l.bytes,
                        })
                    }
                }
            }
            total += l.bytes as usize;
        }
        match &data {
            Data::Out(b) if b.len() != total => {
                return Err(MemError::BufferSize {
                    got: b.len(),
                    need: total,
                })
            }
            Data::In(b) if b.len() != total => {
                return Err(MemError::BufferSize {
                    got: b.len(),
                    need: total,
                })
            }
            _ => {}
        }
        let route = self.route(req)?;
        self.ensure_l1(at.sm);
        let geo = self.geo;

        // Coalesce the lanes into (line, sector mask) groups.
        let mut groups = std::mem::take(&mut self.groups);
        groups.clear();
        for l in lanes {
            let first = l.addr >> geo.sector_shift;
            let last = (l.addr + u64::from(l.bytes) - 1) >> geo.sector_shift;
            for s in first..=last {
                let line = s >> geo.sectors_per_line_shift;
                let bit = 1u8 << (s & ((1 << geo.sectors_per_line_shift) - 1));
                match groups.iter_mut().rev().find(|g| g.line == line) {
                    Some(g) => g.mask |= bit,
                    None => groups.push(Group {
                        line,
                        mask: bit,
                        l1_hit: 0,
                        passes: 1,
                    }),
                }
            }
        }
        if route.op == Op::Atomic && !self.aggregated {
            for g in groups.iter_mut() {
                g.passes = atomic_passes(lanes, g.line, geo.line_shift);
            }
        }
        if self.recorded.is_some() {
            self.record_groups(req, &groups);
        }
        let line_bytes = 1usize << geo.line_shift;
        let capture = self.keep_data && matches!(data, Data::Out(_));
        if capture {
            self.hit_data.resize(groups.len() * line_bytes, 0);
        }

        self.stats.requests += 1;
        let input = match &data {
            Data::In(b) => Some(*b),
            _ => None,
        };
        let t = {
            let mut w = Work {
                l1: &mut self.l1[at.sm],
                l2: &mut self.l2,
                combine: &mut self.combine,
                sm: at.sm,
                counters: SmAndInstr {
                    sm: &mut self.stats.per_sm[at.sm],
                    instr: &mut self.stats.per_instr[at.instr],
                },
                rng: &mut self.rng,
                ranges: &self.range_policies,
                mem: &self.mem,
                geo,
                tally: Track::default(),
                l2_hint: SetHint::NONE,
            };
            if route.touches_l1 {
                w.bump(|c| c.l1.requests += 1);
            }
            let mut reached_l2 = false;
            for (gi, g) in groups.iter_mut().enumerate() {
                match route.op {
                    Op::Read => {
                        let (hit, l2) = w.read_group(&route, g.line, g.mask);
                        g.l1_hit = hit;
                        reached_l2 |= l2;
                        if capture && hit != 0 {
                            if let (_, Some(s)) = w.l1.lookup(g.line) {
                                self.hit_data[gi * line_bytes..(gi + 1) * line_bytes]
                                    .copy_from_slice(w.l1.line_data(s));
                            }
                        }
                    }
                    Op::Write { through } => {
                        reached_l2 |= w.write_group(&route, g.line, g.mask, through, lanes, input);
                    }
                    Op::Atomic => {
                        for _ in 0..g.passes {
                            reached_l2 |= w.atomic_group(&route, g.line, g.mask);
                        }
                    }
                }
            }
            w.finish(&route, reached_l2);
            w.tally
        };
        let mut out = Outcome {
            latency_cycles: self.latency(t.level),
            ..t.out
        };
        // Move the data.
        if self.keep_data {
            match &mut data {
                Data::Out(buf) => {
                    let stale = self.read_data(lanes, &alloc_of, &groups, buf);
                    if stale != 0 {
                        out.stale_lanes = stale;
                        let n = u64::from(stale.count_ones());
                        self.stats.per_sm[at.sm].stale_reads += n;
                        self.stats.per_instr[at.instr].stale_reads += n;
                    }
                }
                Data::In(buf) => {
                    let mut off = 0usize;
                    for (l, &a) in lanes.iter().zip(&alloc_of) {
                        let n = l.bytes as usize;
                        copy_small(
                            self.mem.bytes_in_mut(a as usize, l.addr, n),
                            &buf[off..off + n],
                        );
                        off += n;
                    }
                }
                Data::Atomic(f) => {
                    for (i, (l, &a)) in lanes.iter().zip(&alloc_of).enumerate() {
                        f(
                            i,
                            self.mem.bytes_in_mut(a as usize, l.addr, l.bytes as usize),
                        );
                    }
                }
                Data::None => {}
            }
        }
        self.groups = groups;
        self.sample_timeline();
        Ok(out)
    }

    // ---------------------------------------------------------------- trace recording

    /// Starts (`true`) or stops (`false`) recording the warp requests performed by
    /// [`MemSystem::load`], [`MemSystem::store`] and [`MemSystem::atomic`] as trace accesses
    /// ([`MemSystem::take_recorded`]). Starting keeps what was recorded so far; stopping
    /// discards it. Single accesses of a tags-only system ([`MemSystem::access`], trace
    /// replay) are not recorded; the same call on a system that holds data is a one-lane
    /// request and is.
    pub fn record_trace(&mut self, on: bool) {
        match (on, self.recorded.is_some()) {
            (true, false) => self.recorded = Some(Vec::new()),
            (false, true) => self.recorded = None,
            _ => {}
        }
    }

    /// Whether requests are being recorded.
    pub fn is_recording(&self) -> bool {
        self.recorded.is_some()
    }

    /// The accesses recorded since recording started or since the last call (recording goes
    /// on). Each warp request becomes, for each line it touches in the order memsys performs
    /// them (order of first appearance over the lanes), one access per contiguous run of
    /// touched sectors: the run's first byte, `sectors * sector_bytes` bytes (runs longer than
    /// [`MAX_LANE_BYTES`] are split), with the request's SM, kind, hints, policy value and
    /// instruction id. Only requests that passed their checks are recorded.
    pub fn take_recorded(&mut self) -> Vec<TraceAccess> {
        match &mut self.recorded {
            Some(v) => std::mem::take(v),
            None => Vec::new(),
        }
    }

    /// Appends the accesses of one coalesced request to the recording.
    #[cold]
    #[inline(never)]
    fn record_groups(&mut self, req: &Request, groups: &[Group]) {
        let Some(out) = self.recorded.as_mut() else {
            return;
        };
        let geo = self.geo;
        let sb = geo.sector_bytes;
        let max = u64::from(MAX_LANE_BYTES);
        // The longest piece of a run: whole sectors up to MAX_LANE_BYTES.
        let chunk = if sb <= max { max / sb * sb } else { max };
        // An atomic's passes (`atomic_passes`) are recorded as that many accesses.
        for g in groups
            .iter()
            .flat_map(|g| std::iter::repeat(g).take(usize::from(g.passes)))
        {
            let line_addr = g.line << geo.line_shift;
            let mut m = u32::from(g.mask);
            while m != 0 {
                let first = m.trailing_zeros();
                let run = (!(m >> first)).trailing_zeros();
                m &= !(((1u32 << run) - 1) << first);
                let mut addr = line_addr + u64::from(first) * sb;
                let mut left = u64::from(run) * sb;
                while left > 0 {
                    let bytes = left.min(chunk);
                    out.push(TraceAccess {
                        request: *req,
                        addr,
                        bytes: bytes as u32,
                    });
                    addr += bytes;
                    left -= bytes;
                }
            }
        }
    }

    /// Copies each lane's bytes into `buf`: from this SM's L1 copy for sectors that hit in L1
    /// (noting lanes whose bytes differ from the coherent value), else from the image.
    /// `alloc_of[i]` is the allocation holding lane `i`'s bytes.
    #[inline(always)]
    fn read_data(
        &self,
        lanes: &[LaneAccess],
        alloc_of: &[u32],
        groups: &[Group],
        buf: &mut [u8],
    ) -> u64 {
        if groups.iter().all(|g| g.l1_hit == 0) {
            // No L1 copy is read: every byte comes from the coherent image.
            let mut off = 0usize;
            for (l, &a) in lanes.iter().zip(alloc_of) {
                let n = l.bytes as usize;
                copy_small(
                    &mut buf[off..off + n],
                    self.mem.bytes_in(a as usize, l.addr, n),
                );
                off += n;
            }
            return 0;
        }
        self.read_data_with_hits(lanes, groups, buf)
    }

    /// [`MemSystem::read_data`] when some sectors hit in L1, piece by sector.
    fn read_data_with_hits(&self, lanes: &[LaneAccess], groups: &[Group], buf: &mut [u8]) -> u64 {
        let line_bytes = 1u64 << self.geo.line_shift;
        let mut stale = 0u64;
        let mut off = 0usize;
        for (i, l) in lanes.iter().enumerate() {
            let mut addr = l.addr;
            let end = l.addr + u64::from(l.bytes);
            while addr < end {
                let piece_end =
                    end.min(((addr >> self.geo.sector_shift) + 1) << self.geo.sector_shift);
                let n = (piece_end - addr) as usize;
                let line = addr >> self.geo.line_shift;
                let sector =
                    (addr >> self.geo.sector_shift) & ((1 << self.geo.sectors_per_line_shift) - 1);
                let dst = &mut buf[off..off + n];
                let coherent = self.mem.bytes(addr, n).unwrap_or(&[]);
                let gi = groups.iter().position(|g| g.line == line);
                match gi {
                    Some(gi) if groups[gi].l1_hit & (1 << sector) != 0 => {
                        let start = gi * line_bytes as usize + (addr & (line_bytes - 1)) as usize;
                        dst.copy_from_slice(&self.hit_data[start..start + n]);
                        if dst != coherent {
                            stale |= 1 << i;
                        }
                    }
                    _ => dst.copy_from_slice(coherent),
                }
                off += n;
                addr = piece_end;
            }
        }
        stale
    }
}

/// `dst.copy_from_slice(src)` with the common lane sizes as fixed-size moves (a `memcpy`
/// call costs more than the copy itself for 4 or 8 bytes).
#[inline(always)]
fn copy_small(dst: &mut [u8], src: &[u8]) {
    fn fixed<const N: usize>(dst: &mut [u8], src: &[u8]) -> bool {
        match (<&mut [u8; N]>::try_from(dst), <&[u8; N]>::try_from(src)) {
            (Ok(d), Ok(s)) => {
                *d = *s;
                true
            }
            _ => false,
        }
    }
    if !(fixed::<4>(dst, src) || fixed::<8>(dst, src) || fixed::<16>(dst, src)) {
        dst.copy_from_slice(src);
    }
}

/// Appends an L2 occupancy sample (`[evict_first, normal, evict_last]` lines) to the timeline.
#[cold]
#[inline(never)]
fn push_timeline_sample(stats: &mut Stats, occupancy: [u64; 3]) {
    let [f, n, l] = occupancy;
    stats.timeline.push(OccupancySample {
        request: stats.requests,
        evict_first: f,
        normal: n,
        evict_last: l,
    });
}

/// What a prefetch-size fill does besides changing L2: events for the counters of whoever
/// performs it ([`Work`], or the compiled replay loop).
trait FillEvents {
    /// A line was pushed out to make room for a prefetched one.
    fn l2_evicted(&mut self, ev: Evicted);
    /// A line was installed for a prefetch block; `capped` when its evict-last hint was
    /// turned into normal by the carve-out.
    fn l2_allocated(&mut self, capped: bool);
    /// `sectors` sectors of other lines were fetched from DRAM by the prefetch.
    fn l2_prefetch_filled(&mut self, sectors: u64);
    /// `sectors` sectors of the missed line itself were fetched beyond the missed ones.
    fn l2_fetch_filled(&mut self, sectors: u64);
}

/// A prefetch-size fill after an L2 miss: the missed line (resident at `slot`), the sectors
/// that missed, the access's L2 hint and the block size.
#[derive(Debug, Clone, Copy)]
struct PrefetchFill {
    line: u64,
    slot: Slot,
    miss: u8,
    hint: Hint,
    block_bytes: u32,
}

/// The L2 operations a prefetch-size fill needs: a [`SectorCache`], or the replay loop's
/// view of packed sets.
trait FillTarget {
    fn valid(&self, s: Slot) -> u8;
    fn add_valid(&mut self, s: Slot, mask: u8);
    /// The slot of `line`, installing it with `hint` when absent: the slot, and for an
    /// installed line whether it was installed, its victim and whether its evict-last hint
    /// was capped.
    fn find_or_allocate(&mut self, line: u64, hint: Hint) -> (Slot, Option<Installed>);
}

/// What installing a line did: its victim, and whether an evict-last hint was capped.
struct Installed {
    evicted: Option<Evicted>,
    capped: bool,
}

impl FillTarget for SectorCache {
    #[inline]
    fn valid(&self, s: Slot) -> u8 {
        SectorCache::valid(self, s)
    }

    #[inline]
    fn add_valid(&mut self, s: Slot, mask: u8) {
        SectorCache::add_valid(self, s, mask);
    }

    #[inline]
    fn find_or_allocate(&mut self, line: u64, hint: Hint) -> (Slot, Option<Installed>) {
        match self.lookup(line) {
            (_, Some(s)) => (s, None),
            (set, None) => {
                let (slot, evicted, capped) = self.allocate(set, line, hint);
                (slot, Some(Installed { evicted, capped }))
            }
        }
    }
}

/// Spec (`.level::prefetch_size`): "a hint to fetch additional data of the specified size
/// into the respective cache level": on an L2 miss, the rest of the aligned 64/128/256 B
/// block around each missed sector is filled too (256 B blocks span two lines; the other
/// line is allocated with the access's hint if absent).
#[inline]
fn prefetch_fill(
    l2: &mut impl FillTarget,
    geo: &Geometry,
    f: PrefetchFill,
    events: &mut impl FillEvents,
) {
    let sb = geo.sector_bytes;
    let line_bytes = 1u64 << geo.line_shift;
    let block = u64::from(f.block_bytes);
    let full = geo.full_mask;
    let fill = |l2: &mut _, slot: Slot, want: u8, own: bool, events: &mut _| {
        let extra = want & !FillTarget::valid(l2, slot);
        if extra != 0 {
            FillTarget::add_valid(l2, slot, extra);
            if own {
                FillEvents::l2_fetch_filled(events, pop(extra));
            } else {
                FillEvents::l2_prefetch_filled(events, pop(extra));
            }
        }
    };
    if block <= line_bytes {
        fill(
            l2,
            f.slot,
            block_sectors(f.miss, block, sb) & full,
            true,
            events,
        );
    } else {
        let lines = block / line_bytes;
        let first = f.line & !(lines - 1);
        for other in first..first + lines {
            if other == f.line {
                fill(l2, f.slot, full, true, events);
                continue;
            }
            let (s, installed) = l2.find_or_allocate(other, f.hint);
            if let Some(i) = installed {
                if let Some(ev) = i.evicted {
                    events.l2_evicted(ev);
                }
                events.l2_allocated(i.capped);
            }
            fill(l2, s, full, false, events);
        }
    }
}

/// The sectors of the aligned blocks of `block` bytes (at most a line) that hold a sector of
/// `miss`: what a prefetch-size fill asks for within the missed line.
#[inline(always)]
fn block_sectors(miss: u8, block: u64, sector_bytes: u64) -> u8 {
    let per_block = (block / sector_bytes) as u32;
    let group = ((1u16 << per_block) - 1) as u8;
    let mut want = 0u8;
    let mut s = 0;
    while s < 8 {
        if miss & (group << s) != 0 {
            want |= group << s;
        }
        s += per_block;
    }
    want
}

/// [`FillEvents`] of a [`Work`]: its counters and tally.
struct WorkEvents<'a, T: Tally, S: Sink> {
    counters: &'a mut S,
    tally: &'a mut T,
    sector_bytes: u64,
}

impl<T: Tally, S: Sink> FillEvents for WorkEvents<'_, T, S> {
    #[inline]
    fn l2_evicted(&mut self, ev: Evicted) {
        let nd = pop(ev.dirty);
        let sb = self.sector_bytes;
        self.counters.apply(|c| {
            c.l2.evictions.add(ev.class);
            c.l2.writebacks += nd;
            c.dram.bytes_written += nd * sb;
        });
        self.tally.dram(0, nd);
    }

    #[inline]
    fn l2_allocated(&mut self, capped: bool) {
        self.counters.apply(|c| {
            c.l2.allocations += 1;
            c.l2.evict_last_capped += u64::from(capped);
        });
    }

    #[inline]
    fn l2_prefetch_filled(&mut self, n: u64) {
        let sb = self.sector_bytes;
        self.counters.apply(|c| {
            c.l2.prefetch_fills += n;
            c.dram.bytes_read += n * sb;
        });
        self.tally.dram(n, 0);
    }

    #[inline]
    fn l2_fetch_filled(&mut self, n: u64) {
        let sb = self.sector_bytes;
        self.counters.apply(|c| {
            c.l2.fetch_fills += n;
            c.dram.bytes_read += n * sb;
        });
        self.tally.dram(n, 0);
    }
}

/// Drops every line of one L1; returns the sectors dropped.
fn invalidate_whole(l1: &mut SectorCache) -> u64 {
    let mut n = 0;
    for s in l1.resident_slots() {
        let (dropped, _) = l1.drop_sectors(s, 0xFF);
        n += pop(dropped);
    }
    n
}

/// Where a request's counters go.
trait Sink {
    fn apply(&mut self, f: impl Fn(&mut Counters));
}

/// The issuing SM's and the instruction's counters.
struct SmAndInstr<'a> {
    sm: &'a mut Counters,
    instr: &'a mut Counters,
}

impl Sink for SmAndInstr<'_> {
    #[inline(always)]
    fn apply(&mut self, f: impl Fn(&mut Counters)) {
        f(self.sm);
        f(self.instr);
    }
}

/// One counter set for a (request shape, SM) pair, which trace replay adds to the SM's and
/// the instruction's counters when it ends: half the counter updates.
impl Sink for &mut Counters {
    #[inline(always)]
    fn apply(&mut self, f: impl Fn(&mut Counters)) {
        f(self);
    }
}

/// What one request works on: the issuing SM's L1, the L2, and the counters, borrowed apart
/// from the rest of the memory system.
struct Work<'a, T: Tally, S: Sink> {
    l1: &'a mut SectorCache,
    l2: &'a mut SectorCache,
    /// The store write-combining windows, and the issuing SM.
    combine: &'a mut WriteCombiner,
    sm: usize,
    /// The counters the request's events go to.
    counters: S,
    rng: &'a mut SplitMix64,
    ranges: &'a [RangePolicy],
    mem: &'a GlobalMemory,
    geo: Geometry,
    /// What the request reports back (nothing in trace replay).
    tally: T,
    /// The L2 set of one line, if already known.
    l2_hint: SetHint,
}

impl<T: Tally, S: Sink> Work<'_, T, S> {
    /// Applies `f` to the request's counters.
    #[inline(always)]
    fn bump(&mut self, f: impl Fn(&mut Counters)) {
        self.counters.apply(f);
    }

    /// One tags-only access of `addr..end` along `route`, split into its lines.
    #[inline(always)]
    fn perform(&mut self, route: &Route, addr: u64, end: u64) {
        let reached_l2;
        if route.touches_l1 {
            self.bump(|c| c.l1.requests += 1);
        }
        let spl_shift = self.geo.sectors_per_line_shift;
        let spl_mask = (1u64 << spl_shift) - 1;
        let last = (end - 1) >> self.geo.sector_shift;
        let s = addr >> self.geo.sector_shift;
        if s >> spl_shift == last >> spl_shift {
            // One line (nearly every access).
            let line = s >> spl_shift;
            let mask = (((2u32 << (last - s)) - 1) << (s & spl_mask)) as u8;
            match route.op {
                Op::Read => reached_l2 = self.read_group(route, line, mask).1,
                Op::Write { through } => {
                    reached_l2 = self.write_group(route, line, mask, through, &[], None);
                }
                Op::Atomic => reached_l2 = self.atomic_group(route, line, mask),
            }
        } else {
            reached_l2 = self.lines(route, s, last);
        }
        self.finish(route, reached_l2);
    }

    /// An access that spans several lines, sectors `s..=last`, line by line. Returns whether
    /// L2 was reached.
    #[inline(never)]
    fn lines(&mut self, route: &Route, mut s: u64, last: u64) -> bool {
        let spl_shift = self.geo.sectors_per_line_shift;
        let spl_mask = (1u64 << spl_shift) - 1;
        let mut reached_l2 = false;
        while s <= last {
            let line = s >> spl_shift;
            let line_last = last.min(line << spl_shift | spl_mask);
            let mask = (((2u32 << (line_last - s)) - 1) << (s & spl_mask)) as u8;
            match route.op {
                Op::Read => reached_l2 |= self.read_group(route, line, mask).1,
                Op::Write { through } => {
                    reached_l2 |= self.write_group(route, line, mask, through, &[], None);
                }
                Op::Atomic => reached_l2 |= self.atomic_group(route, line, mask),
            }
            s = line_last + 1;
        }
        reached_l2
    }

    /// The end of a request's cache work: its L2 request count and the acquire invalidation.
    #[inline(always)]
    fn finish(&mut self, route: &Route, reached_l2: bool) {
        if reached_l2 {
            self.bump(|c| c.l2.requests += 1);
        }
        if route.invalidate_l1_after && self.geo.l1_enabled {
            self.invalidate_own_l1();
        }
    }

    /// Acquire above `.cta`: the whole L1 of the SM is invalidated after the access.
    #[cold]
    #[inline(never)]
    fn invalidate_own_l1(&mut self) {
        let n = invalidate_whole(self.l1);
        self.bump(|c| c.l1.invalidations += n);
    }

    /// The L2 priority a policy (if any) gives the access at `addr`. Spec (createpolicy):
    /// range: "If the memory address falls in the primary range, the eviction priority
    /// specified by `.L2::primary_priority` is applied. If the memory address falls in any of
    /// the secondary ranges, the eviction priority specified by `.L2::secondary_priority` is
    /// applied." Fraction: "the memory access has a probability specified by the operand
    /// `fraction` of getting the cache eviction priority specified by
    /// `.L2::primary_priority`" — drawn from the seeded generator.
    #[inline(always)]
    fn l2_hint_for(&mut self, route: &Route, addr: u64) -> Hint {
        match route.l2_choice {
            L2Choice::Qualifiers => route.l2_hint,
            L2Choice::Fraction => {
                let f = route.fraction;
                if f.sixteenths == 16 || self.rng.chance_in_16(f.sixteenths) {
                    f.primary
                } else {
                    f.secondary
                }
            }
            L2Choice::Range { policy, value } => self.range_hint(route, policy, value, addr),
        }
    }

    /// The L2 priority a range policy gives the access at `addr`.
    #[cold]
    #[inline(never)]
    fn range_hint(&self, route: &Route, policy: CachePolicy, value: u64, addr: u64) -> Hint {
        // Inside the ranges, primary or not is what the value's blocks say (the GPU has
        // nothing else: a primary size of 0, or one past 127 blocks, leaves bytes secondary);
        // the exact record, when `create_range_policy` made the value, adds "outside both
        // ranges", which the value cannot express.
        let outside = self
            .ranges
            .iter()
            .rev()
            .find(|r| r.value == value)
            .is_some_and(|r| r.classify(addr) == RangeHit::Outside);
        let hit = if outside {
            RangeHit::Outside
        } else if policy.in_primary_blocks(addr) {
            RangeHit::Primary
        } else {
            RangeHit::Secondary
        };
        match hit {
            RangeHit::Primary => l2_hint(policy.primary),
            RangeHit::Secondary => l2_hint(policy.secondary),
            RangeHit::Outside => route.l2_hint,
        }
    }

    /// One line of a read: L1 lookup (and fill), L2 for the sectors L1 did not have.
    /// Returns the sectors that hit in L1 and whether L2 was reached.
    #[inline(always)]
    fn read_group(&mut self, route: &Route, line: u64, mask: u8) -> (u8, bool) {
        let L1Path::Cached { allocate } = route.l1 else {
            if route.l1_bypass_lookup {
                let n = pop(mask);
                self.bump(|c| {
                    c.l1.read_sectors += n;
                    c.l1.read_misses += n;
                });
            }
            self.l2_read(route, line, mask);
            return (0, true);
        };
        let hint = route.l1_hint;
        let set = self.l1.set_of(line);
        let fill = if allocate { Fill::Valid } else { Fill::None };
        // Allocating before the L2 part is the same as after it: neither sees the other.
        let a = self.l1.access(set, line, mask, hint, fill);
        let hit = a.held;
        let miss = mask & !hit;
        let (nh, nm) = (pop(hit), pop(miss));
        self.bump(|c| {
            c.l1.read_sectors += nh + nm;
            c.l1.read_hits += nh;
            c.l1.read_misses += nm;
        });
        self.tally.l1(nh, nm);
        self.tally.reached(1);
        if miss == 0 {
            return (hit, false);
        }
        if allocate {
            if a.installed {
                if let Some(ev) = a.evicted() {
                    self.bump(|c| c.l1.evictions.add(ev.class));
                }
                self.bump(|c| c.l1.allocations += 1);
            }
            self.bump(|c| c.l1.sector_fills += nm);
            if let (true, Some(slot)) = (self.l1.keeps_data(), a.slot()) {
                self.fill_l1_data(slot, line, miss);
                self.l1.mark_read_only(slot, miss, route.read_only_fill);
            }
        }
        self.l2_read(route, line, miss);
        (hit, true)
    }

    /// Copies the filled sectors of `line` from the coherent image into this SM's L1 copy.
    #[cold]
    fn fill_l1_data(&mut self, slot: Slot, line: u64, miss: u8) {
        let line_addr = line << self.geo.line_shift;
        let sb = self.geo.sector_bytes as usize;
        let dst = self.l1.line_data_mut(slot);
        for s in 0..8usize {
            if miss & (1 << s) != 0 {
                let a = line_addr + (s * sb) as u64;
                if let Some(src) = self.mem.bytes(a, sb) {
                    dst[s * sb..(s + 1) * sb].copy_from_slice(src);
                }
            }
        }
    }

    /// An L2 eviction: its class, and the write-back of its dirty sectors.
    #[inline(always)]
    fn count_l2_eviction(&mut self, ev: Evicted) {
        let nd = pop(ev.dirty);
        let sb = self.geo.sector_bytes;
        self.bump(|c| {
            c.l2.evictions.add(ev.class);
            c.l2.writebacks += nd;
            c.dram.bytes_written += nd * sb;
        });
        self.tally.dram(0, nd);
    }

    /// The L2 line for an access that reaches L2: touched with the hint if resident,
    /// allocated otherwise. Returns the slot and the sectors of `mask` it held.
    #[inline(always)]
    fn l2_line(&mut self, route: &Route, line: u64, mask: u8, fill: Fill) -> (Slot, u8, Hint) {
        let first_sector = u64::from(mask.trailing_zeros());
        let hint = self.l2_hint_for(
            route,
            (line << self.geo.line_shift) + first_sector * self.geo.sector_bytes,
        );
        let set = if line == self.l2_hint.line {
            self.l2_hint.set
        } else {
            self.l2.set_of(line)
        };
        let a = self.l2.access(set, line, mask, hint, fill);
        if a.installed {
            if let Some(ev) = a.evicted() {
                self.count_l2_eviction(ev);
            }
            let capped = u64::from(a.capped);
            self.bump(|c| {
                c.l2.allocations += 1;
                c.l2.evict_last_capped += capped;
            });
        } else if a.capped {
            self.bump(|c| c.l2.evict_last_capped += 1);
        }
        let slot = a.slot().unwrap_or(Slot::NONE);
        (slot, a.held, hint)
    }

    /// The L2 part of a read of `mask` sectors of `line`.
    #[inline(always)]
    fn l2_read(&mut self, route: &Route, line: u64, mask: u8) {
        let n = pop(mask);
        let sb = self.geo.sector_bytes;
        match route.l2 {
            L2Path::Uncached => {
                self.bump(|c| c.dram.bytes_read += n * sb);
                self.tally.dram(n, 0);
                self.tally.reached(3);
            }
            L2Path::Refetch => self.l2_refetch(line, n),
            L2Path::Cached => {
                let (slot, hit, hint) = self.l2_line(route, line, mask, Fill::Valid);
                let miss = mask & !hit;
                let (nh, nm) = (pop(hit), pop(miss));
                self.bump(|c| {
                    c.l2.read_sectors += n;
                    c.l2.read_hits += nh;
                    c.l2.read_misses += nm;
                });
                self.tally.l2(nh, nm);
                self.tally.reached(2);
                if miss != 0 {
                    self.bump(|c| {
                        c.l2.sector_fills += nm;
                        c.dram.bytes_read += nm * sb;
                    });
                    self.tally.dram(nm, 0);
                    self.tally.reached(3);
                    if u64::from(route.prefetch_bytes) > sb {
                        self.prefetch_fill(line, slot, miss, hint, route.prefetch_bytes);
                    }
                }
            }
        }
    }

    /// `.cv`: write back and discard the L2 line, read the `n` sectors from DRAM.
    #[cold]
    #[inline(never)]
    fn l2_refetch(&mut self, line: u64, n: u64) {
        let sb = self.geo.sector_bytes;
        let (_, slot) = self.l2.lookup(line);
        if let Some(s) = slot {
            let (dropped, dirty) = self.l2.drop_sectors(s, self.geo.full_mask);
            let nd = pop(dirty);
            self.bump(|c| {
                c.l2.invalidations += pop(dropped);
                c.l2.writebacks += nd;
                c.dram.bytes_written += nd * sb;
            });
            self.tally.dram(0, nd);
        }
        self.bump(|c| {
            c.l2.read_sectors += n;
            c.l2.read_misses += n;
            c.dram.bytes_read += n * sb;
        });
        self.tally.l2(0, n);
        self.tally.dram(n, 0);
        self.tally.reached(3);
    }

    /// Spec (`.level::prefetch_size`): "a hint to fetch additional data of the specified size
    /// into the respective cache level" (see [`prefetch_fill`]).
    #[inline]
    fn prefetch_fill(&mut self, line: u64, slot: Slot, miss: u8, hint: Hint, block_bytes: u32) {
        let mut events = WorkEvents {
            counters: &mut self.counters,
            tally: &mut self.tally,
            sector_bytes: self.geo.sector_bytes,
        };
        let fill = PrefetchFill {
            line,
            slot,
            miss,
            hint,
            block_bytes,
        };
        prefetch_fill(self.l2, &self.geo, fill, &mut events);
    }

    /// Drops this SM's L1 copy of `mask` sectors of `line` (if L1 is in use).
    #[inline(never)]
    fn own_l1_invalidate(&mut self, line: u64, mask: u8) {
        if !self.geo.l1_enabled {
            return;
        }
        let (_, slot) = self.l1.lookup(line);
        if let Some(s) = slot {
            let (dropped, _) = self.l1.drop_sectors(s, mask);
            self.bump(|c| c.l1.invalidations += pop(dropped));
        }
    }

    /// One line of an atomic: drop this SM's copy, read at L2, mark the sectors dirty.
    /// Returns whether L2 was reached (no for `.mmio`).
    #[cold]
    #[inline(never)]
    fn atomic_group(&mut self, route: &Route, line: u64, mask: u8) -> bool {
        self.own_l1_invalidate(line, mask);
        self.l2_read(route, line, mask);
        if route.l2 == L2Path::Cached {
            let (_, slot) = self.l2.lookup(line);
            if let Some(s) = slot {
                let d = self.l2.dirty(s) | mask;
                self.l2.set_dirty(s, d);
            }
            return true;
        }
        false
    }

    /// One line of a store. Returns whether L2 was reached (not for `.mmio`, nor when every
    /// sector merged with a pending write of the SM, `system/combine.rs`).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn write_group(
        &mut self,
        route: &Route,
        line: u64,
        mask: u8,
        through: bool,
        lanes: &[LaneAccess],
        input: Option<&[u8]>,
    ) -> bool {
        let n = pop(mask);
        let sb = self.geo.sector_bytes;
        match route.own_l1 {
            OwnL1::Invalidate => self.own_l1_invalidate(line, mask),
            OwnL1::Update if self.geo.l1_enabled => {
                let set = self.l1.set_of(line);
                let a = self.l1.access(set, line, mask, route.l1_hint, Fill::None);
                let (slot, resident) = (a.slot(), a.held);
                let nh = pop(resident);
                self.bump(|c| {
                    c.l1.write_sectors += n;
                    c.l1.write_hits += nh;
                    c.l1.write_misses += n - nh;
                });
                self.tally.reached(1);
                // The read-only path's copy is not updated by the SM's own store: on an H100,
                // `ld.global.nc y; st y; ld.global.nc y` (one thread) returns the old value,
                // while `ld.ca x; st x; ld.ca x` returns the new one (hw README section 6,
                // `fetch_probe.cu` `same_sm`). The sector stays resident with the old bytes.
                let updated = match slot {
                    Some(s) => resident & !self.l1.read_only_sectors(s),
                    None => 0,
                };
                if let (Some(s), Some(input), true) = (slot, input, updated != 0) {
                    self.update_l1_copy(s, line, updated, lanes, input);
                }
            }
            OwnL1::Update => {}
        }
        match route.l2 {
            L2Path::Uncached => {
                self.bump(|c| c.dram.bytes_written += n * sb);
                self.tally.dram(0, n);
                self.tally.reached(3);
                false
            }
            L2Path::Cached | L2Path::Refetch => {
                let mask = self.combine.merge(self.sm, line, mask);
                if mask == 0 {
                    return false;
                }
                let n = pop(mask);
                let fill = if through { Fill::Clean } else { Fill::Dirty };
                let (_, hit, _) = self.l2_line(route, line, mask, fill);
                let nh = pop(hit);
                self.bump(|c| {
                    c.l2.write_sectors += n;
                    c.l2.write_hits += nh;
                    c.l2.write_misses += n - nh;
                });
                self.tally.l2(nh, n - nh);
                if through {
                    self.bump(|c| c.dram.bytes_written += n * sb);
                    self.tally.dram(0, n);
                    self.tally.reached(3);
                } else {
                    self.tally.reached(2);
                }
                true
            }
        }
    }

    /// Writes the stored bytes that fall in `resident` sectors into this SM's L1 copy.
    fn update_l1_copy(
        &mut self,
        slot: Slot,
        line: u64,
        resident: u8,
        lanes: &[LaneAccess],
        input: &[u8],
    ) {
        let line_addr = line << self.geo.line_shift;
        let line_bytes = 1u64 << self.geo.line_shift;
        let sector_shift = self.geo.sector_shift;
        let dst = self.l1.line_data_mut(slot);
        if dst.is_empty() {
            return;
        }
        let mut off = 0usize;
        for l in lanes {
            let end = l.addr + u64::from(l.bytes);
            let lo = l.addr.max(line_addr);
            let hi = end.min(line_addr + line_bytes);
            for a in lo..hi {
                let sector = ((a - line_addr) >> sector_shift) as u8;
                if resident & (1 << sector) != 0 {
                    dst[(a - line_addr) as usize] = input[off + (a - l.addr) as usize];
                }
            }
            off += l.bytes as usize;
        }
    }
}
