//! [`MemSystem`]: per-SM L1s, the shared L2, DRAM and the global memory image, driven by
//! typed warp-level requests.
//!
//! Every request is first routed ([`MemSystem::resolve`]: where it goes, with which hints);
//! routes depend only on the request's shape, so trace replay keeps them in a small
//! direct-mapped cache. The work itself is done by [`Work`], which borrows the issuing SM's
//! L1, the L2 and the SM's and instruction's counters apart from the rest of the system, so
//! the hot path indexes nothing twice.
//!
//! This file holds construction, allocation, host access and the public request API; the
//! rest lives by concern in `system/`:
//! - `route.rs`: routing rules ([`MemSystem::resolve`], each arm a PTX ISA sentence) and the
//!   route cache;
//! - `execute.rs`: the checked request engine ([`MemSystem::execute`]): coalescing into line
//!   groups, attribution, atomics' L2 passes;
//! - `work.rs`: [`Work`], one request's work on L1/L2/DRAM (hit/miss, fills, write-back,
//!   write-through, eviction priorities from hints and policies); `prefetch_fill.rs`: the
//!   prefetch-size (and fetch-granularity) fill after an L2 miss, shared with `engine.rs`;
//! - `data.rs`: lane data copies out of L1 copies or the global image (stale reads);
//! - `record.rs`: trace recording; `inspect.rs`: statistics, line state, occupancy timeline;
//! - `engine.rs`: the compiled trace-replay loop; `combine.rs`: the write combiner (a window per SM sub-partition);
//!   `read_coalescer.rs`: the L2 request coalescer (reads joining another SM's pending fill);
//! - `port.rs`: [`SmPort`], SMs lent to host threads and settled in turn order.

use std::sync::Arc;

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
mod data;
mod engine;
mod execute;
mod inspect;
mod l2_control;
mod partitions;
mod port;
mod prefetch_fill;
mod read_coalescer;
mod record;
mod route;
mod work;

use combine::WriteCombiner;
use data::copy_small;
use execute::*;
use inspect::push_timeline_sample;
use l2_control::WindowRule;
pub use l2_control::{AccessPolicyWindow, AccessProperty, DiscardOutcome};
use partitions::{HomeFill, PartitionedL2};

pub use port::SmPort;
use port::{Deferred, L2Op, L2OpKind, OverlayView};
use prefetch_fill::*;
use read_coalescer::ReadCoalescer;
use record::record_groups_into;
use route::*;
use work::*;

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
    /// A read whose bytes the caller does not use ([`MemSystem::load_unread`]): the same
    /// work and counters as `Out`, and the stale lanes, without copying the bytes out.
    Unread,
    In(&'a [u8]),
    Atomic(&'a mut dyn FnMut(usize, &mut [u8])),
}

impl Data<'_> {
    /// The buffer a read copies its bytes into: the caller's (`Out`), or for an `Unread` one,
    /// whose bytes are still compared where they hit in L1 (stale lanes), `scratch` sized to
    /// the request's `total` bytes. `None` for requests that read nothing.
    fn read_buffer<'b>(
        &'b mut self,
        total: usize,
        scratch: &'b mut Vec<u8>,
    ) -> Option<&'b mut [u8]> {
        match self {
            Data::Out(buf) => Some(buf),
            Data::Unread => {
                scratch.resize(total, 0);
                Some(scratch)
            }
            _ => None,
        }
    }
}

/// Checks that a request passed to [`MemSystem::local`] (or an SM port's) is a local load or
/// store.
fn check_local(req: &Request) -> Result<(), MemError> {
    if req.space != Space::Local || !matches!(req.kind, AccessKind::Load | AccessKind::Store) {
        return Err(MemError::Unsupported {
            what: "a request passed to local that is not a local load or store",
        });
    }
    Ok(())
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
#[derive(Clone)]
pub struct MemSystem {
    cfg: GpuConfig,
    geo: Geometry,
    l1: Vec<SectorCache>,
    l1_ready: Vec<bool>,
    /// Whether any `l1_ready` entry is set, so host writes skip the per-SM walk when none is.
    any_l1_ready: bool,
    /// The L2's partitions (`system/partitions.rs`).
    l2: PartitionedL2,
    /// The global image, shared read-only with the SM ports of an SM-parallel phase
    /// (`system/port.rs`); no port outlives its phase, so between phases this is the only
    /// reference and [`MemSystem::image_mut`] gets it.
    mem: Arc<GlobalMemory>,
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
    /// Pending store lines per SM sub-partition (`system/combine.rs`).
    combine: WriteCombiner,
    /// The round's pending L2 read misses, which other SMs' reads join
    /// (`system/read_coalescer.rs`).
    reads: ReadCoalescer,
    /// The access policy window in effect (`system/l2_control.rs`).
    window: Option<WindowRule>,
    /// Memory as it was when the running kernel (one that discards) started: what discarded
    /// dirty sectors get back (`system/l2_control.rs`).
    discard_snapshot: Option<Vec<(u64, Vec<u8>)>>,
}

impl MemSystem {
    /// A copy of this memory system (caches, counters, the global image and every other
    /// state) that later accesses to either leave the other unchanged: what a launch that may
    /// run again goes back to (ptx-exec's counters-only mode).
    pub fn snapshot(&self) -> MemSystem {
        let mut copy = self.clone();
        copy.mem = Arc::new((*self.mem).clone());
        copy
    }

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
        let l2 = PartitionedL2::new(&cfg);
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
                local: false,
                invalidate_l1_after: false,
                touches_l1: false,
                l1_bypass_lookup: false,
                read_only_fill: false,
                per_lane: false,
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
            mem: Arc::new(GlobalMemory::new(cfg.memory_bytes)),
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
            combine: WriteCombiner::new(
                sm_count,
                cfg.sm_sub_partitions as usize,
                cfg.l2_write_combine_lines as usize,
            ),
            reads: ReadCoalescer::new(cfg.l2_read_coalescing_domains, cfg.l2_read_coalescer_lines),
            window: None,
            discard_snapshot: None,
            cfg,
        })
    }

    /// The global image for writing. Every SM port's reference to it is dropped when its
    /// phase is settled ([`MemSystem::settle`]), which takes `&mut self` like this does, so
    /// the image is never shared here.
    fn image_mut(&mut self) -> &mut GlobalMemory {
        Arc::get_mut(&mut self.mem)
            .expect("an SM port outlived its phase (MemSystem::settle drops them)")
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
        self.image_mut().alloc(bytes, align)
    }

    /// Bytes of device memory the live allocations take (each padded to 256 bytes); at most
    /// [`GpuConfig::memory_bytes`].
    pub fn memory_in_use(&self) -> u64 {
        self.mem.in_use()
    }

    /// Frees the allocation that starts at `base`.
    pub fn free(&mut self, base: u64) -> Result<(), MemError> {
        self.image_mut().free(base)
    }

    /// Host write (e.g. `cudaMemcpy`): updates the coherent image and, like the driver,
    /// discards any L1 copy of the bytes.
    pub fn write(&mut self, addr: u64, src: &[u8]) -> Result<(), MemError> {
        self.image_mut().host_write(addr, src)?;
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
        if req.kind == AccessKind::Prefetch && out.is_empty() {
            return self.load_data(req, lanes, Data::None);
        }
        self.load_data(req, lanes, Data::Out(out))
    }

    /// [`MemSystem::load`] for a caller that does not use the bytes (counters-only mode's
    /// `cp.async`, whose copy lands where nothing it computes reads): the same cache work,
    /// counters and [`Outcome`] (its stale lanes too, which compare the L1's bytes with
    /// memory's), without copying each lane's bytes out.
    pub fn load_unread(
        &mut self,
        req: &Request,
        lanes: &[LaneAccess],
    ) -> Result<Outcome, MemError> {
        self.load_data(req, lanes, Data::Unread)
    }

    /// `load` and `load_unread`: any request but a store or an atomic.
    fn load_data(
        &mut self,
        req: &Request,
        lanes: &[LaneAccess],
        data: Data<'_>,
    ) -> Result<Outcome, MemError> {
        if matches!(req.kind, AccessKind::Store | AccessKind::Atomic) {
            return Err(MemError::Unsupported {
                what: "a store or atomic request passed to load",
            });
        }
        self.execute(req, lanes, data)
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

    /// A warp-level local-memory load or store (`req.space` [`Space::Local`]), tags and
    /// counters only: the caller keeps the bytes (local memory is the thread's own, so no other
    /// access can observe them through the caches). `lanes` are device addresses of the
    /// caller's local layout, which must not overlap the allocations.
    pub fn local(&mut self, req: &Request, lanes: &[LaneAccess]) -> Result<Outcome, MemError> {
        check_local(req)?;
        self.execute(req, lanes, Data::None)
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
        let at = Attr {
            warp: req.warp,
            ..self.attr(req.sm.0, req.instr.0)?
        };
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
        let at = Attr {
            warp: p.req.warp,
            ..self.attr(sm, p.req.instr.0)?
        };
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
        self.l2.prefetch_line(line);
        let _ = sm;
        if pair {
            self.l2.prefetch_line(line ^ 1);
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
        self.l2.prefetch_line(line);
        if req.prefetch == Some(PrefetchSize::B256) || req.policy.is_some_and(|p| p & 1 << 62 != 0)
        {
            // A 256 B prefetch block spans this line and its neighbour.
            self.l2.prefetch_line(line ^ 1);
        }
    }

    /// A scheduling round of the caller begins: the L2 read misses of the previous one have
    /// been filled, and reads of this round join only this round's misses (the L2 request
    /// coalescer, `system/read_coalescer.rs`). Until a launch's first call nothing merges.
    pub fn begin_round(&mut self) {
        self.reads.begin_round();
    }

    /// Discards every L1 line of one SM (`fence`/`membar` at gpu scope, kernel boundaries).
    pub fn invalidate_l1(&mut self, sm: u32) -> Result<(), MemError> {
        let at = self.attr(sm, 0)?;
        self.invalidate_l1_at(at);
        Ok(())
    }

    /// Turns the stores' write combining (`system/combine.rs`) on or off for the kernels
    /// that follow. Off for a `-G` build's kernel: on an H100 every corpus `-G` kernel writes
    /// to L2 the sectors of each of its stores, none merged (`warp_diverge.debug`
    /// `vote_out_of_line` 128 L2 write sectors: 2 warps x 4 `ST.E` of 16 sectors, where its
    /// optimized build merges them into 32; `vote_after_divergence` 304; `seed_extend.debug`
    /// `sign_extend_loads` 528 = 448 global + 80 local), while no `-G` kernel changes by it
    /// (`argmax_argmin_rows`, `reduce_max_count`, `splitk_sgemm`, `reduce_sum_atomic_f32`,
    /// `atomics64`). ptxas `-O0` puts a dozen address instructions between two stores where
    /// optimized code issues them back to back.
    pub fn set_write_combining(&mut self, on: bool) {
        self.combine.set_enabled(on);
    }

    /// Discards every SM's L1: spec (Table 30, `.ca`): "The driver must invalidate global L1
    /// cache lines between dependent grids of parallel threads."
    /// The stores' write-combining windows drain too (`system/combine.rs`), and no read joins
    /// a fill of before (`system/read_coalescer.rs`) until the next [`MemSystem::begin_round`].
    pub fn invalidate_all_l1(&mut self) {
        self.combine.clear();
        self.reads.reset();
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
        for part in self.l2.parts_mut() {
            for s in part.resident_slots() {
                let d = part.dirty(s);
                if d != 0 {
                    part.set_dirty(s, 0);
                    self.stats.host.l2.writebacks += pop(d);
                    self.stats.host.dram.bytes_written += pop(d) * self.geo.sector_bytes;
                }
            }
        }
    }

    /// Writes every dirty L2 sector back (host traffic) and discards every L2 line, so the
    /// next kernel starts with a cold L2: what Nsight Compute's default `--cache-control all`
    /// does before each profiled kernel (the H100 corpus counters were taken that way).
    pub fn invalidate_l2(&mut self) {
        self.flush_l2();
        for part in self.l2.parts_mut() {
            for s in part.resident_slots() {
                let (dropped, _) = part.drop_sectors(s, 0xFF);
                self.stats.host.l2.invalidations += pop(dropped);
            }
        }
    }
}
