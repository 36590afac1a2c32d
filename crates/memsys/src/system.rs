//! [`MemSystem`]: per-SM L1s, the shared L2, DRAM and the global memory image, driven by
//! typed warp-level requests.

use serde::{Deserialize, Serialize};

use crate::cache::{EvictionClass, Hint, SectorCache, Slot};
use crate::config::GpuConfig;
use crate::error::MemError;
use crate::memory::GlobalMemory;
use crate::policy::{CachePolicy, PolicyMode, RangeHit, RangePolicy};
use crate::rng::SplitMix64;
use crate::stats::{Attr, OccupancySample, Stats};
use crate::types::{
    AccessKind, CacheOperator, InstrId, L1EvictionPriority, L2EvictionPriority, LaneAccess,
    Outcome, PrefetchSize, Request, Scope, Semantics, SmId, Space,
};

/// Request shapes whose routes [`MemSystem::access`] remembers.
const ROUTE_CACHE: usize = 8;

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
    /// The access may hit in L1 and, when `allocate`, fills it on a miss.
    Cached { allocate: bool, hint: Hint },
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
    /// Write the new bytes into this SM's L1 copy if the sectors are resident.
    Update(Hint),
    /// Drop this SM's L1 copy of the sectors.
    Invalidate,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Read,
    Write { through: bool },
    Atomic,
}

#[derive(Debug, Clone, Copy)]
struct Route {
    op: Op,
    l1: L1Path,
    own_l1: OwnL1,
    l2: L2Path,
    /// L2 hint from qualifiers and operator (a policy, if any, overrides it per line).
    l2_hint: Hint,
    policy: Option<CachePolicy>,
    policy_value: u64,
    prefetch_bytes: u32,
    /// Invalidate this SM's L1 after the access (acquire at gpu/sys scope).
    invalidate_l1_after: bool,
}

#[derive(Debug, Clone, Copy)]
struct Group {
    line: u64,
    mask: u8,
    l1_hit: u8,
}

/// Data that travels with a request.
enum Data<'a> {
    None,
    Out(&'a mut [u8]),
    In(&'a [u8]),
    Atomic(&'a mut dyn FnMut(usize, &mut [u8])),
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
    sector_shift: u32,
    sectors_per_line_shift: u32,
    sector_bytes: u64,
    line_shift: u32,
    full_mask: u8,
    l1: Vec<SectorCache>,
    l1_ready: Vec<bool>,
    l1_enabled: bool,
    l2: SectorCache,
    mem: GlobalMemory,
    keep_data: bool,
    stats: Stats,
    rng: SplitMix64,
    range_policies: Vec<RangePolicy>,
    groups: Vec<Group>,
    hit_data: Vec<u8>,
    /// The last request resolved by [`MemSystem::access`] and its route (traces repeat a few
    /// request shapes, so this skips most routing work).
    routes: [(Request, Option<Route>); ROUTE_CACHE],
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
        Ok(Self {
            sector_shift: cfg.l2.sector_bytes.trailing_zeros(),
            sectors_per_line_shift: spl.trailing_zeros(),
            sector_bytes: u64::from(cfg.l2.sector_bytes),
            line_shift: cfg.l2.line_bytes.trailing_zeros(),
            full_mask: ((1u16 << spl) - 1) as u8,
            l1: (0..sm_count).map(|_| SectorCache::empty()).collect(),
            l1_ready: vec![false; sm_count],
            l1_enabled: cfg.l1.size_bytes > 0,
            l2,
            mem: GlobalMemory::new(),
            keep_data,
            stats: Stats::new(&cfg.name, sm_count),
            rng: SplitMix64::new(cfg.seed),
            range_policies: Vec::new(),
            groups: Vec::with_capacity(2 * MAX_LANES),
            hit_data: Vec::new(),
            routes: [(Request::default(), None); ROUTE_CACHE],
            cfg,
        })
    }

    pub fn config(&self) -> &GpuConfig {
        &self.cfg
    }

    // ---------------------------------------------------------------- host side

    /// Allocates `bytes` of zeroed global memory aligned to `align` (at least 256) and returns
    /// its device address. Allocations are separated by an unmapped guard gap.
    pub fn alloc(&mut self, bytes: u64, align: u64) -> Result<u64, MemError> {
        self.mem.alloc(bytes, align)
    }

    /// Frees the allocation that starts at `base`.
    pub fn free(&mut self, base: u64) -> Result<(), MemError> {
        self.mem.free(base)
    }

    /// Host write (e.g. `cudaMemcpy`): updates the coherent image and, like the driver,
    /// discards any L1 copy of the bytes.
    pub fn write(&mut self, addr: u64, src: &[u8]) -> Result<(), MemError> {
        self.mem.host_write(addr, src)?;
        if !src.is_empty() {
            let first = addr >> self.sector_shift;
            let last = (addr + src.len() as u64 - 1) >> self.sector_shift;
            for sm in 0..self.l1.len() {
                if self.l1_ready[sm] {
                    self.drop_l1_sectors(sm, first, last);
                }
            }
        }
        Ok(())
    }

    /// Host read of the coherent value.
    pub fn read(&self, addr: u64, dst: &mut [u8]) -> Result<(), MemError> {
        self.mem.host_read(addr, dst)
    }

    fn drop_l1_sectors(&mut self, sm: usize, first_sector: u64, last_sector: u64) {
        let l1 = &mut self.l1[sm];
        let slots = l1.resident_slots();
        for slot in slots {
            let line_first = l1.line_of(slot) << self.sectors_per_line_shift;
            let line_last = line_first + (1 << self.sectors_per_line_shift) - 1;
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

    /// `createpolicy.range`: encodes the value exactly as CCCL does ([`CachePolicy::range`])
    /// and remembers the exact ranges, which the 64-bit value keeps only modulo 128 blocks, so
    /// accesses outside both ranges keep their priority ("unchanged outside").
    pub fn create_range_policy(
        &mut self,
        base: u64,
        primary_size: u32,
        total_size: u32,
        primary: L2EvictionPriority,
        secondary: L2EvictionPriority,
    ) -> Result<u64, MemError> {
        let value = CachePolicy::range(base, primary_size, total_size, primary, secondary)?;
        self.range_policies.retain(|r| r.value != value);
        self.range_policies.push(RangePolicy {
            value,
            base,
            primary_size,
            total_size,
        });
        Ok(value)
    }

    /// `createpolicy.fractional`: the CCCL encoding ([`CachePolicy::fractional`]).
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

    /// One access without data (trace replay): `bytes` at `addr` with the request's hints.
    /// Counts exactly what a one-lane [`MemSystem::load`]/[`MemSystem::store`] would; in a
    /// memory system that holds data it is routed through them (atomics add nothing).
    #[inline]
    pub fn access(&mut self, req: &Request, addr: u64, bytes: u32) -> Result<Outcome, MemError> {
        if self.keep_data {
            return self.execute(req, &[LaneAccess { addr, bytes }], Data::None);
        }
        let at = self.attr(req.sm.0, req.instr.0)?;
        if bytes == 0 || bytes > MAX_LANE_BYTES {
            return Err(MemError::BadSize { addr, bytes });
        }
        let Some(end) = addr.checked_add(u64::from(bytes)) else {
            return Err(MemError::Unmapped { addr, bytes });
        };
        // The route does not depend on the SM or the instruction id.
        let shape = Request {
            sm: SmId(0),
            instr: InstrId(0),
            ..*req
        };
        let hit = self
            .routes
            .iter()
            .position(|(r, rt)| rt.is_some() && *r == shape);
        let route = match hit.and_then(|i| self.routes[i].1.map(|rt| (i, rt))) {
            Some((i, rt)) => {
                // Move to the front, so the commonest shapes are compared first.
                self.routes[..=i].rotate_right(1);
                rt
            }
            None => {
                let rt = self.resolve(req)?;
                self.routes.rotate_right(1);
                self.routes[0] = (shape, Some(rt));
                rt
            }
        };
        self.ensure_l1(at.sm);
        let mut out = Outcome::default();
        let mut level = 0u8;
        self.stats.requests += 1;
        if matches!(route.l1, L1Path::Cached { .. })
            || (self.l1_enabled && matches!(route.own_l1, OwnL1::Update(_)) && route.op != Op::Read)
        {
            self.stats.bump(at, |c| c.l1.requests += 1);
        }
        let spl_mask = (1u64 << self.sectors_per_line_shift) - 1;
        let first = addr >> self.sector_shift;
        let last = (end - 1) >> self.sector_shift;
        let mut reached_l2 = false;
        let mut s = first;
        while s <= last {
            let line = s >> self.sectors_per_line_shift;
            let line_last = last.min(line << self.sectors_per_line_shift | spl_mask);
            let mut mask = 0u8;
            for x in s..=line_last {
                mask |= 1 << (x & spl_mask);
            }
            match route.op {
                Op::Read => {
                    reached_l2 |= self
                        .read_group(at, &route, line, mask, &mut out, &mut level)
                        .1
                }
                Op::Write { through } => {
                    self.write_group(
                        at,
                        &route,
                        line,
                        mask,
                        through,
                        &[],
                        None,
                        &mut out,
                        &mut level,
                    );
                    reached_l2 |= route.l2 != L2Path::Uncached;
                }
                Op::Atomic => {
                    self.own_l1_invalidate(at, line, mask);
                    self.l2_read(at, &route, line, mask, &mut out, &mut level);
                    if route.l2 == L2Path::Cached {
                        let (_, slot) = self.l2.lookup(line);
                        if let Some(sl) = slot {
                            let d = self.l2.dirty(sl) | mask;
                            self.l2.set_dirty(sl, d);
                        }
                        reached_l2 = true;
                    }
                }
            }
            s = line_last + 1;
        }
        self.finish(at, &route, reached_l2, level, &mut out);
        Ok(out)
    }

    /// The end of every request: L2 request count, acquire invalidation, latency, timeline.
    #[inline]
    fn finish(&mut self, at: Attr, route: &Route, reached_l2: bool, level: u8, out: &mut Outcome) {
        if reached_l2 {
            self.stats.bump(at, |c| c.l2.requests += 1);
        }
        if route.invalidate_l1_after {
            self.invalidate_l1_at(at);
        }
        out.latency_cycles = match level {
            0 | 1 => self.cfg.l1.latency_cycles,
            2 => self.cfg.l2.latency_cycles,
            _ => self.cfg.dram_latency_cycles,
        };
        let interval = self.cfg.timeline_interval;
        if interval > 0 && self.stats.requests % interval == 0 {
            let sample = self.occupancy_sample();
            self.stats.timeline.push(sample);
        }
    }

    /// Discards every L1 line of one SM (`fence`/`membar` at gpu scope, kernel boundaries).
    pub fn invalidate_l1(&mut self, sm: u32) -> Result<(), MemError> {
        let at = self.attr(sm, 0)?;
        self.invalidate_l1_at(at);
        Ok(())
    }

    /// Discards every SM's L1: spec (Table 30, `.ca`): "The driver must invalidate global L1
    /// cache lines between dependent grids of parallel threads."
    pub fn invalidate_all_l1(&mut self) {
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
                self.stats.host.dram.bytes_written += pop(d) * self.sector_bytes;
            }
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
        let (_, slot) = self.l2.lookup(addr >> self.line_shift);
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
        let (_, slot) = self.l1[sm].lookup(addr >> self.line_shift);
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
        let prefetch_bytes = prefetch.map_or(0, PrefetchSize::bytes);
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
            l1: L1Path::Bypass,
            own_l1: OwnL1::Invalidate,
            l2: L2Path::Cached,
            l2_hint: qualifier_l2.unwrap_or(Hint::Unchanged),
            policy,
            policy_value: req.policy.unwrap_or(0),
            prefetch_bytes,
            invalidate_l1_after: false,
        };
        match req.kind {
            AccessKind::Load | AccessKind::AsyncCopy | AccessKind::Prefetch => {
                let op = req.operator.unwrap_or(CacheOperator::Ca);
                if mmio {
                    route.l2 = L2Path::Uncached;
                } else if coherent {
                    route.invalidate_l1_after = req.semantics == Semantics::Acquire;
                } else {
                    match op {
                        CacheOperator::Ca => {
                            route.l1 = L1Path::Cached {
                                allocate: !l1_no_alloc,
                                hint: qualifier_l1.unwrap_or(Hint::Unchanged),
                            }
                        }
                        CacheOperator::Cg => {}
                        CacheOperator::Cs | CacheOperator::Lu => {
                            route.l1 = L1Path::Cached {
                                allocate: !l1_no_alloc,
                                hint: qualifier_l1.unwrap_or(first),
                            };
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
                        CacheOperator::Wb => {
                            route.own_l1 = OwnL1::Update(qualifier_l1.unwrap_or(Hint::Unchanged))
                        }
                        CacheOperator::Cg => {}
                        CacheOperator::Cs => {
                            route.own_l1 = OwnL1::Update(qualifier_l1.unwrap_or(first));
                            route.l2_hint = qualifier_l2.unwrap_or(first);
                        }
                        CacheOperator::Wt => {
                            route.op = Op::Write { through: true };
                            route.own_l1 = OwnL1::Update(qualifier_l1.unwrap_or(Hint::Unchanged));
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
            }
        }
        if !self.l1_enabled {
            route.l1 = L1Path::Bypass;
        }
        Ok(route)
    }

    /// The L2 priority a policy (if any) gives the access at `addr`. Spec (createpolicy):
    /// range: "If the memory address falls in the primary range, the eviction priority
    /// specified by `.L2::primary_priority` is applied. If the memory address falls in any of
    /// the secondary ranges, the eviction priority specified by `.L2::secondary_priority` is
    /// applied." Fraction: "the memory access has a probability specified by the operand
    /// `fraction` of getting the cache eviction priority specified by
    /// `.L2::primary_priority`" — drawn from the seeded generator.
    #[inline]
    fn l2_hint_for(&mut self, route: &Route, addr: u64) -> Hint {
        let Some(p) = route.policy else {
            return route.l2_hint;
        };
        match p.mode {
            PolicyMode::Fraction => {
                let primary =
                    p.fraction_code == 15 || self.rng.chance_in_16(u32::from(p.fraction_code) + 1);
                l2_hint(if primary { p.primary } else { p.secondary })
            }
            PolicyMode::Range => {
                let exact = self
                    .range_policies
                    .iter()
                    .rev()
                    .find(|r| r.value == route.policy_value);
                let hit = match exact {
                    Some(r) => r.classify(addr),
                    None if p.in_primary_blocks(addr) => RangeHit::Primary,
                    None => RangeHit::Secondary,
                };
                match hit {
                    RangeHit::Primary => l2_hint(p.primary),
                    RangeHit::Secondary => l2_hint(p.secondary),
                    RangeHit::Outside => route.l2_hint,
                }
            }
            PolicyMode::Implicit | PolicyMode::Reserved => route.l2_hint,
        }
    }

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

    fn ensure_l1(&mut self, sm: usize) {
        if self.l1_enabled && !self.l1_ready[sm] {
            self.l1[sm] = SectorCache::new(&self.cfg.l1, self.cfg.l1.ways, self.keep_data);
            self.l1_ready[sm] = true;
        }
    }

    // ---------------------------------------------------------------- execution

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
        let mut total = 0usize;
        for l in lanes {
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
            if self.keep_data && self.mem.find(l.addr, u64::from(l.bytes)).is_none() {
                return Err(MemError::Unmapped {
                    addr: l.addr,
                    bytes: l.bytes,
                });
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
        let route = self.resolve(req)?;
        self.ensure_l1(at.sm);

        // Coalesce the lanes into (line, sector mask) groups.
        let mut groups = std::mem::take(&mut self.groups);
        groups.clear();
        for l in lanes {
            let first = l.addr >> self.sector_shift;
            let last = (l.addr + u64::from(l.bytes) - 1) >> self.sector_shift;
            for s in first..=last {
                let line = s >> self.sectors_per_line_shift;
                let bit = 1u8 << (s & ((1 << self.sectors_per_line_shift) - 1));
                match groups.iter_mut().rev().find(|g| g.line == line) {
                    Some(g) => g.mask |= bit,
                    None => groups.push(Group {
                        line,
                        mask: bit,
                        l1_hit: 0,
                    }),
                }
            }
        }
        let line_bytes = 1usize << self.line_shift;
        let capture = self.keep_data && matches!(data, Data::Out(_));
        if capture {
            self.hit_data.resize(groups.len() * line_bytes, 0);
        }

        let mut out = Outcome::default();
        let mut level = 0u8; // 1 = L1, 2 = L2, 3 = DRAM
        self.stats.requests += 1;
        let touches_l1 = matches!(route.l1, L1Path::Cached { .. })
            || (self.l1_enabled
                && matches!(route.own_l1, OwnL1::Update(_))
                && route.op != Op::Read);
        if touches_l1 {
            self.stats.bump(at, |c| c.l1.requests += 1);
        }
        let mut reached_l2 = false;
        let input = match &data {
            Data::In(b) => Some(*b),
            _ => None,
        };
        for (gi, g) in groups.iter_mut().enumerate() {
            match route.op {
                Op::Read => {
                    let (hit, l2) =
                        self.read_group(at, &route, g.line, g.mask, &mut out, &mut level);
                    g.l1_hit = hit;
                    reached_l2 |= l2;
                    if capture && hit != 0 {
                        let (_, slot) = self.l1[at.sm].lookup(g.line);
                        if let Some(s) = slot {
                            self.hit_data[gi * line_bytes..(gi + 1) * line_bytes]
                                .copy_from_slice(self.l1[at.sm].line_data(s));
                        }
                    }
                }
                Op::Write { through } => {
                    self.write_group(
                        at, &route, g.line, g.mask, through, lanes, input, &mut out, &mut level,
                    );
                    reached_l2 |= route.l2 != L2Path::Uncached;
                }
                Op::Atomic => {
                    self.own_l1_invalidate(at, g.line, g.mask);
                    self.l2_read(at, &route, g.line, g.mask, &mut out, &mut level);
                    if route.l2 == L2Path::Cached {
                        let (_, slot) = self.l2.lookup(g.line);
                        if let Some(s) = slot {
                            let d = self.l2.dirty(s) | g.mask;
                            self.l2.set_dirty(s, d);
                        }
                        reached_l2 = true;
                    }
                }
            }
        }
        // Move the data.
        if self.keep_data {
            match &mut data {
                Data::Out(buf) => {
                    let stale = self.read_data(lanes, &groups, buf);
                    if stale != 0 {
                        out.stale_lanes = stale;
                        let n = u64::from(stale.count_ones());
                        self.stats.bump(at, |c| c.stale_reads += n);
                    }
                }
                Data::In(buf) => {
                    let mut off = 0usize;
                    for l in lanes {
                        let n = l.bytes as usize;
                        if let Some(dst) = self.mem.bytes_mut(l.addr, n) {
                            dst.copy_from_slice(&buf[off..off + n]);
                        }
                        off += n;
                    }
                }
                Data::Atomic(f) => {
                    for (i, l) in lanes.iter().enumerate() {
                        if let Some(bytes) = self.mem.bytes_mut(l.addr, l.bytes as usize) {
                            f(i, bytes);
                        }
                    }
                }
                Data::None => {}
            }
        }
        self.groups = groups;
        self.finish(at, &route, reached_l2, level, &mut out);
        Ok(out)
    }

    /// Copies each lane's bytes into `buf`: from this SM's L1 copy for sectors that hit in L1
    /// (noting lanes whose bytes differ from the coherent value), else from the image.
    fn read_data(&self, lanes: &[LaneAccess], groups: &[Group], buf: &mut [u8]) -> u64 {
        let line_bytes = 1u64 << self.line_shift;
        let mut stale = 0u64;
        let mut off = 0usize;
        for (i, l) in lanes.iter().enumerate() {
            let mut addr = l.addr;
            let end = l.addr + u64::from(l.bytes);
            while addr < end {
                let piece_end = end.min(((addr >> self.sector_shift) + 1) << self.sector_shift);
                let n = (piece_end - addr) as usize;
                let line = addr >> self.line_shift;
                let sector = (addr >> self.sector_shift) & ((1 << self.sectors_per_line_shift) - 1);
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

    /// One line of a read: L1 lookup (and fill), L2 for the sectors L1 did not have.
    /// Returns the sectors that hit in L1 and whether L2 was reached.
    #[inline]
    fn read_group(
        &mut self,
        at: Attr,
        route: &Route,
        line: u64,
        mask: u8,
        out: &mut Outcome,
        level: &mut u8,
    ) -> (u8, bool) {
        let L1Path::Cached { allocate, hint } = route.l1 else {
            self.l2_read(at, route, line, mask, out, level);
            return (0, true);
        };
        let l1 = &mut self.l1[at.sm];
        let (base, slot) = l1.lookup(line);
        let hit = match slot {
            Some(s) => {
                let h = l1.valid(s) & mask;
                l1.touch(s, hint);
                h
            }
            None => 0,
        };
        let miss = mask & !hit;
        let (nh, nm) = (pop(hit), pop(miss));
        self.stats.bump(at, |c| {
            c.l1.read_sectors += nh + nm;
            c.l1.read_hits += nh;
            c.l1.read_misses += nm;
        });
        out.l1_hits += nh as u32;
        out.l1_misses += nm as u32;
        *level = (*level).max(1);
        if miss == 0 {
            return (hit, false);
        }
        self.l2_read(at, route, line, miss, out, level);
        if allocate {
            let l1 = &mut self.l1[at.sm];
            let slot = match slot {
                Some(s) => s,
                None => {
                    let (s, evicted, _) = l1.allocate(base, line, hint);
                    if let Some(ev) = evicted {
                        self.stats.bump(at, |c| c.l1.evictions.add(ev.class));
                    }
                    self.stats.bump(at, |c| c.l1.allocations += 1);
                    s
                }
            };
            let l1 = &mut self.l1[at.sm];
            l1.add_valid(slot, miss);
            self.stats.bump(at, |c| c.l1.sector_fills += nm);
            if l1.keeps_data() {
                let line_addr = line << self.line_shift;
                let sb = self.sector_bytes as usize;
                let dst = l1.line_data_mut(slot);
                for s in 0..8usize {
                    if miss & (1 << s) != 0 {
                        let a = line_addr + (s * sb) as u64;
                        if let Some(src) = self.mem.bytes(a, sb) {
                            dst[s * sb..(s + 1) * sb].copy_from_slice(src);
                        }
                    }
                }
            }
        }
        (hit, true)
    }

    /// Installs a line in L2, writing back the victim's dirty sectors.
    #[inline]
    fn l2_allocate(
        &mut self,
        at: Attr,
        set: usize,
        line: u64,
        hint: Hint,
        out: &mut Outcome,
    ) -> Slot {
        let (slot, evicted, capped) = self.l2.allocate(set, line, hint);
        let sb = self.sector_bytes;
        if let Some(ev) = evicted {
            let nd = pop(ev.dirty);
            self.stats.bump(at, |c| {
                c.l2.evictions.add(ev.class);
                c.l2.writebacks += nd;
                c.dram.bytes_written += nd * sb;
            });
            out.dram_sectors_written += nd as u32;
        }
        self.stats.bump(at, |c| {
            c.l2.allocations += 1;
            c.l2.evict_last_capped += u64::from(capped);
        });
        slot
    }

    /// The L2 part of a read of `mask` sectors of `line`.
    #[inline]
    fn l2_read(
        &mut self,
        at: Attr,
        route: &Route,
        line: u64,
        mask: u8,
        out: &mut Outcome,
        level: &mut u8,
    ) {
        let n = pop(mask);
        let sb = self.sector_bytes;
        match route.l2 {
            L2Path::Uncached => {
                self.stats.bump(at, |c| c.dram.bytes_read += n * sb);
                out.dram_sectors_read += n as u32;
                *level = 3;
            }
            L2Path::Refetch => {
                let (_, slot) = self.l2.lookup(line);
                if let Some(s) = slot {
                    let (dropped, dirty) = self.l2.drop_sectors(s, self.full_mask);
                    let nd = pop(dirty);
                    self.stats.bump(at, |c| {
                        c.l2.invalidations += pop(dropped);
                        c.l2.writebacks += nd;
                        c.dram.bytes_written += nd * sb;
                    });
                    out.dram_sectors_written += nd as u32;
                }
                self.stats.bump(at, |c| {
                    c.l2.read_sectors += n;
                    c.l2.read_misses += n;
                    c.dram.bytes_read += n * sb;
                });
                out.l2_misses += n as u32;
                out.dram_sectors_read += n as u32;
                *level = 3;
            }
            L2Path::Cached => {
                let first_sector = mask.trailing_zeros() as u64;
                let hint = self.l2_hint_for(route, (line << self.line_shift) + first_sector * sb);
                let (base, slot) = self.l2.lookup(line);
                let (slot, hit) = match slot {
                    Some(s) => {
                        let h = self.l2.valid(s) & mask;
                        if self.l2.touch(s, hint) {
                            self.stats.bump(at, |c| c.l2.evict_last_capped += 1);
                        }
                        (s, h)
                    }
                    None => (self.l2_allocate(at, base, line, hint, out), 0),
                };
                let miss = mask & !hit;
                let (nh, nm) = (pop(hit), pop(miss));
                self.stats.bump(at, |c| {
                    c.l2.read_sectors += n;
                    c.l2.read_hits += nh;
                    c.l2.read_misses += nm;
                });
                out.l2_hits += nh as u32;
                out.l2_misses += nm as u32;
                *level = (*level).max(2);
                if miss != 0 {
                    self.l2.add_valid(slot, miss);
                    self.stats.bump(at, |c| {
                        c.l2.sector_fills += nm;
                        c.dram.bytes_read += nm * sb;
                    });
                    out.dram_sectors_read += nm as u32;
                    *level = 3;
                    if route.prefetch_bytes as u64 > sb {
                        self.prefetch_fill(at, line, slot, miss, hint, route.prefetch_bytes, out);
                    }
                }
            }
        }
    }

    /// Spec (`.level::prefetch_size`): "a hint to fetch additional data of the specified size
    /// into the respective cache level": on an L2 miss, the rest of the aligned 64/128/256 B
    /// block around each missed sector is filled too (256 B blocks span two lines).
    #[allow(clippy::too_many_arguments)]
    fn prefetch_fill(
        &mut self,
        at: Attr,
        line: u64,
        slot: Slot,
        miss: u8,
        hint: Hint,
        block_bytes: u32,
        out: &mut Outcome,
    ) {
        let sb = self.sector_bytes;
        let line_bytes = 1u64 << self.line_shift;
        let block = u64::from(block_bytes);
        let fill = |this: &mut Self, slot: Slot, want: u8, out: &mut Outcome| {
            let extra = want & !this.l2.valid(slot);
            if extra != 0 {
                this.l2.add_valid(slot, extra);
                let n = pop(extra);
                this.stats.bump(at, |c| {
                    c.l2.prefetch_fills += n;
                    c.dram.bytes_read += n * sb;
                });
                out.dram_sectors_read += n as u32;
            }
        };
        if block <= line_bytes {
            let per_block = (block / sb) as u32;
            let group = ((1u16 << per_block) - 1) as u8;
            let mut want = 0u8;
            let mut s = 0;
            while s < 8 {
                if miss & (group << s) != 0 {
                    want |= group << s;
                }
                s += per_block;
            }
            fill(self, slot, want & self.full_mask, out);
        } else {
            let lines = block / line_bytes;
            let first = line & !(lines - 1);
            for other in first..first + lines {
                if other == line {
                    fill(self, slot, self.full_mask, out);
                    continue;
                }
                let (base, s) = self.l2.lookup(other);
                let s = match s {
                    Some(s) => s,
                    None => self.l2_allocate(at, base, other, hint, out),
                };
                fill(self, s, self.full_mask, out);
            }
        }
    }

    fn own_l1_invalidate(&mut self, at: Attr, line: u64, mask: u8) {
        if !self.l1_ready[at.sm] {
            return;
        }
        let l1 = &mut self.l1[at.sm];
        let (_, slot) = l1.lookup(line);
        if let Some(s) = slot {
            let (dropped, _) = l1.drop_sectors(s, mask);
            self.stats.bump(at, |c| c.l1.invalidations += pop(dropped));
        }
    }

    /// One line of a store.
    #[allow(clippy::too_many_arguments)]
    fn write_group(
        &mut self,
        at: Attr,
        route: &Route,
        line: u64,
        mask: u8,
        through: bool,
        lanes: &[LaneAccess],
        input: Option<&[u8]>,
        out: &mut Outcome,
        level: &mut u8,
    ) {
        let n = pop(mask);
        let sb = self.sector_bytes;
        match route.own_l1 {
            OwnL1::Invalidate => self.own_l1_invalidate(at, line, mask),
            OwnL1::Update(hint) if self.l1_enabled => {
                let l1 = &mut self.l1[at.sm];
                let (_, slot) = l1.lookup(line);
                let resident = match slot {
                    Some(s) => {
                        l1.touch(s, hint);
                        l1.valid(s) & mask
                    }
                    None => 0,
                };
                let nh = pop(resident);
                self.stats.bump(at, |c| {
                    c.l1.write_sectors += n;
                    c.l1.write_hits += nh;
                    c.l1.write_misses += n - nh;
                });
                *level = (*level).max(1);
                if let (Some(s), Some(input), true) = (slot, input, resident != 0) {
                    self.update_l1_copy(at.sm, s, line, resident, lanes, input);
                }
            }
            OwnL1::Update(_) => {}
        }
        match route.l2 {
            L2Path::Uncached => {
                self.stats.bump(at, |c| c.dram.bytes_written += n * sb);
                out.dram_sectors_written += n as u32;
                *level = 3;
            }
            L2Path::Cached | L2Path::Refetch => {
                let first_sector = mask.trailing_zeros() as u64;
                let hint = self.l2_hint_for(route, (line << self.line_shift) + first_sector * sb);
                let (base, slot) = self.l2.lookup(line);
                let (slot, hit) = match slot {
                    Some(s) => {
                        let h = self.l2.valid(s) & mask;
                        if self.l2.touch(s, hint) {
                            self.stats.bump(at, |c| c.l2.evict_last_capped += 1);
                        }
                        (s, h)
                    }
                    None => (self.l2_allocate(at, base, line, hint, out), 0),
                };
                let nh = pop(hit);
                self.stats.bump(at, |c| {
                    c.l2.write_sectors += n;
                    c.l2.write_hits += nh;
                    c.l2.write_misses += n - nh;
                });
                out.l2_hits += nh as u32;
                out.l2_misses += (n - nh) as u32;
                self.l2.add_valid(slot, mask);
                let dirty = self.l2.dirty(slot);
                if through {
                    self.l2.set_dirty(slot, dirty & !mask);
                    self.stats.bump(at, |c| c.dram.bytes_written += n * sb);
                    out.dram_sectors_written += n as u32;
                    *level = 3;
                } else {
                    self.l2.set_dirty(slot, dirty | mask);
                    *level = (*level).max(2);
                }
            }
        }
    }

    /// Writes the stored bytes that fall in `resident` sectors into this SM's L1 copy.
    fn update_l1_copy(
        &mut self,
        sm: usize,
        slot: Slot,
        line: u64,
        resident: u8,
        lanes: &[LaneAccess],
        input: &[u8],
    ) {
        let line_addr = line << self.line_shift;
        let line_bytes = 1u64 << self.line_shift;
        let sector_shift = self.sector_shift;
        let dst = self.l1[sm].line_data_mut(slot);
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

    fn invalidate_l1_at(&mut self, at: Attr) {
        if !self.l1_ready[at.sm] {
            return;
        }
        let slots = self.l1[at.sm].resident_slots();
        let mut n = 0;
        for s in slots {
            let (dropped, _) = self.l1[at.sm].drop_sectors(s, 0xFF);
            n += pop(dropped);
        }
        self.stats.bump(at, |c| c.l1.invalidations += n);
    }
}
