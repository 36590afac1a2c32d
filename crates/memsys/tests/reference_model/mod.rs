//! The reference model: memsys's original tags-only replay path (commit 6ccb8bf, before the
//! replay-speed work), kept verbatim in behaviour so the optimised implementation can be checked
//! against it forever (`tests/reference_model.rs`). It is deliberately the simple version: one
//! 16-byte record per way, a 32-bit LRU stamp per way renumbered when the clock wraps, a linear
//! victim scan, the carve-out counted by scanning the set, and every request routed from
//! scratch. Only the parts trace replay reaches are kept: no data, no warp coalescing.
#![allow(dead_code)]

use memsys::*;

// ------------------------------------------------------------------ generator

#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn chance_in_16(&mut self, sixteenths: u32) -> bool {
        ((self.next_u64() >> 60) as u32) < sixteenths
    }
}

// ------------------------------------------------------------------ one cache level

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hint {
    Unchanged,
    Set(EvictionClass),
}

impl Hint {
    fn on_allocate(self) -> EvictionClass {
        match self {
            Hint::Unchanged => EvictionClass::Normal,
            Hint::Set(c) => c,
        }
    }
}

fn class_from_u8(v: u8) -> EvictionClass {
    match v {
        0 => EvictionClass::EvictFirst,
        2 => EvictionClass::EvictLast,
        _ => EvictionClass::Normal,
    }
}

#[derive(Debug, Clone, Copy)]
struct Evicted {
    dirty: u8,
    class: EvictionClass,
}

#[derive(Debug, Clone, Copy)]
struct Way {
    tag: u64,
    valid: u8,
    dirty: u8,
    class: u8,
    stamp: u32,
}

const INVALID: u64 = u64::MAX;

impl Way {
    const EMPTY: Way = Way {
        tag: INVALID,
        valid: 0,
        dirty: 0,
        class: 1,
        stamp: 0,
    };
}

fn set_of(hash: SetHash, sets: u64, line: u64) -> u64 {
    match hash {
        SetHash::Modulo => line % sets,
        SetHash::XorFold => {
            ((line ^ (line >> 16) ^ (line >> 32) ^ (line >> 48)) & 0xFFFF_FFFF) % sets
        }
    }
}

struct Cache {
    ways: usize,
    sets: u64,
    hash: SetHash,
    slots: Vec<Way>,
    clock: u32,
    last_cap: u32,
    occupancy: [u64; 3],
}

impl Cache {
    fn new(cfg: &CacheConfig, last_cap: u32) -> Self {
        let sets = cfg.sets().max(1);
        Self {
            ways: cfg.ways as usize,
            sets,
            hash: cfg.set_hash,
            slots: vec![Way::EMPTY; sets as usize * cfg.ways as usize],
            clock: 0,
            last_cap,
            occupancy: [0; 3],
        }
    }

    fn empty() -> Self {
        Self {
            ways: 1,
            sets: 1,
            hash: SetHash::Modulo,
            slots: vec![Way::EMPTY],
            clock: 0,
            last_cap: 0,
            occupancy: [0; 3],
        }
    }

    fn lookup(&self, line: u64) -> (usize, Option<usize>) {
        let base = set_of(self.hash, self.sets, line) as usize * self.ways;
        for w in 0..self.ways {
            if self.slots[base + w].tag == line {
                return (base, Some(base + w));
            }
        }
        (base, None)
    }

    fn promote(&mut self, slot: usize) {
        if self.clock == u32::MAX {
            self.renumber();
        }
        self.clock += 1;
        self.slots[slot].stamp = self.clock;
    }

    fn renumber(&mut self) {
        let ways = self.ways;
        for set in self.slots.chunks_mut(ways) {
            let mut order: Vec<usize> = (0..ways).collect();
            order.sort_by_key(|&w| set[w].stamp);
            for (rank, &w) in order.iter().enumerate() {
                set[w].stamp = rank as u32 + 1;
            }
        }
        self.clock = ways as u32;
    }

    fn touch(&mut self, slot: usize, hint: Hint) -> bool {
        self.promote(slot);
        match hint {
            Hint::Unchanged => false,
            Hint::Set(c) => self.set_class(slot, c),
        }
    }

    fn set_class(&mut self, slot: usize, want: EvictionClass) -> bool {
        let old = self.slots[slot].class;
        let mut class = want;
        let mut capped = false;
        if want == EvictionClass::EvictLast && old != EvictionClass::EvictLast as u8 {
            let base = slot - slot % self.ways;
            if self.last_lines_in_set(base) >= self.last_cap {
                capped = true;
                if !self.demote_lru_last(base) {
                    class = EvictionClass::Normal;
                }
            }
        }
        if class as u8 != old {
            self.occupancy[old as usize] -= 1;
            self.occupancy[class as usize] += 1;
            self.slots[slot].class = class as u8;
        }
        capped
    }

    /// The set-aside is full: the least recently used evict-last line of the set becomes
    /// normal (CUDA Programming Guide: the set-aside keeps the most recently used persisting
    /// lines). Whether there was one.
    fn demote_lru_last(&mut self, base: usize) -> bool {
        let last = EvictionClass::EvictLast as u8;
        let lru = (base..base + self.ways)
            .filter(|&i| self.slots[i].tag != INVALID && self.slots[i].class == last)
            .min_by_key(|&i| self.slots[i].stamp);
        let Some(i) = lru else { return false };
        self.slots[i].class = EvictionClass::Normal as u8;
        self.occupancy[last as usize] -= 1;
        self.occupancy[EvictionClass::Normal as usize] += 1;
        true
    }

    fn last_lines_in_set(&self, base: usize) -> u32 {
        if self.last_cap as usize >= self.ways {
            return 0;
        }
        self.slots[base..base + self.ways]
            .iter()
            .filter(|w| w.tag != INVALID && w.class == EvictionClass::EvictLast as u8)
            .count() as u32
    }

    fn allocate(&mut self, base: usize, line: u64, hint: Hint) -> (usize, Option<Evicted>, bool) {
        let mut victim = base;
        let mut best = u64::MAX;
        for w in 0..self.ways {
            let way = self.slots[base + w];
            let key = if way.tag == INVALID {
                0
            } else {
                (u64::from(way.class) + 1) << 32 | u64::from(way.stamp)
            };
            if key < best {
                best = key;
                victim = base + w;
            }
        }
        let old = self.slots[victim];
        let evicted = if old.tag != INVALID {
            self.occupancy[old.class as usize] -= 1;
            Some(Evicted {
                dirty: old.dirty,
                class: class_from_u8(old.class),
            })
        } else {
            None
        };
        let mut class = hint.on_allocate();
        let mut capped = false;
        if class == EvictionClass::EvictLast && self.last_lines_in_set(base) >= self.last_cap {
            capped = true;
            if !self.demote_lru_last(base) {
                class = EvictionClass::Normal;
            }
        }
        let w = &mut self.slots[victim];
        w.tag = line;
        w.valid = 0;
        w.dirty = 0;
        w.class = class as u8;
        self.occupancy[class as usize] += 1;
        self.promote(victim);
        (victim, evicted, capped)
    }

    fn drop_sectors(&mut self, slot: usize, mask: u8) -> (u8, u8) {
        let w = &mut self.slots[slot];
        let dropped = w.valid & mask;
        let dirty = w.dirty & mask;
        w.valid &= !mask;
        w.dirty &= !mask;
        if w.valid == 0 && w.tag != INVALID {
            let class = w.class as usize;
            w.tag = INVALID;
            w.dirty = 0;
            w.class = 1;
            self.occupancy[class] -= 1;
        }
        (dropped, dirty)
    }

    fn resident_slots(&self) -> Vec<usize> {
        (0..self.slots.len())
            .filter(|&s| self.slots[s].tag != INVALID)
            .collect()
    }

    fn max_last_lines_per_set(&self) -> u32 {
        self.slots
            .chunks(self.ways)
            .map(|set| {
                set.iter()
                    .filter(|w| w.tag != INVALID && w.class == EvictionClass::EvictLast as u8)
                    .count() as u32
            })
            .max()
            .unwrap_or(0)
    }
}

// ------------------------------------------------------------------ routing

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum L1Path {
    Bypass,
    Cached { allocate: bool, hint: Hint },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum L2Path {
    Cached,
    Refetch,
    Uncached,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OwnL1 {
    Update(Hint),
    Invalidate,
    /// A local store installs its sectors in L1.
    Allocate(Hint),
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
    l2_hint: Hint,
    policy: Option<CachePolicy>,
    policy_value: u64,
    prefetch_bytes: u32,
    invalidate_l1_after: bool,
    /// A load that bypasses L1 still counts its sectors as L1 lookups that miss.
    l1_bypass_lookup: bool,
    /// A local access: its L1 events are counted in `l1_local`; its stores are not combined.
    local: bool,
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

fn pop(m: u8) -> u64 {
    u64::from(m.count_ones())
}

fn add_eviction(e: &mut EvictionCounts, class: EvictionClass) {
    match class {
        EvictionClass::EvictFirst => e.evict_first += 1,
        EvictionClass::Normal => e.normal += 1,
        EvictionClass::EvictLast => e.evict_last += 1,
    }
}

#[derive(Debug, Clone, Copy)]
struct Attr {
    sm: usize,
    instr: usize,
    /// The issuing warp: its SM sub-partition's write-combining window merges its stores.
    warp: u32,
}

// ------------------------------------------------------------------ the memory system

/// The original tags-only `MemSystem`.
pub struct RefSystem {
    cfg: GpuConfig,
    sector_shift: u32,
    sectors_per_line_shift: u32,
    sector_bytes: u64,
    line_shift: u32,
    full_mask: u8,
    l1: Vec<Cache>,
    l1_ready: Vec<bool>,
    l1_enabled: bool,
    l2: Cache,
    stats: Stats,
    rng: SplitMix64,
    range_policies: Vec<RangePolicy>,
    /// Per SM, the lines of its pending stores (oldest first) and their sectors.
    pending_stores: Vec<Vec<(u64, u8)>>,
}

impl RefSystem {
    pub fn tags_only(cfg: GpuConfig) -> Result<Self, MemError> {
        cfg.validate()?;
        let sm_count = cfg.sm_count as usize;
        let spl = cfg.l2.sectors_per_line();
        Ok(Self {
            sector_shift: cfg.l2.sector_bytes.trailing_zeros(),
            sectors_per_line_shift: spl.trailing_zeros(),
            sector_bytes: u64::from(cfg.l2.sector_bytes),
            line_shift: cfg.l2.line_bytes.trailing_zeros(),
            full_mask: ((1u16 << spl) - 1) as u8,
            l1: (0..sm_count).map(|_| Cache::empty()).collect(),
            l1_ready: vec![false; sm_count],
            l1_enabled: cfg.l1.size_bytes > 0,
            l2: Cache::new(&cfg.l2, cfg.evict_last_ways()),
            stats: Stats {
                gpu: cfg.name.clone(),
                per_sm: vec![Counters::default(); sm_count],
                ..Stats::default()
            },
            rng: SplitMix64::new(cfg.seed),
            range_policies: Vec::new(),
            pending_stores: vec![Vec::new(); sm_count * cfg.sm_sub_partitions as usize],
            cfg,
        })
    }

    fn bump(&mut self, at: Attr, f: impl Fn(&mut Counters)) {
        f(&mut self.stats.per_sm[at.sm]);
        f(&mut self.stats.per_instr[at.instr]);
    }

    /// Applies `f` to the L1 counters of `route`'s accesses: `l1_local` for local ones.
    fn bump_l1(&mut self, at: Attr, route: &Route, f: impl Fn(&mut LevelCounters)) {
        let local = route.local;
        self.bump(at, |c| f(if local { &mut c.l1_local } else { &mut c.l1 }));
    }

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

    pub fn access(&mut self, req: &Request, addr: u64, bytes: u32) -> Result<Outcome, MemError> {
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
        let route = self.resolve(req)?;
        self.ensure_l1(at.sm);
        let mut out = Outcome::default();
        let mut level = 0u8;
        self.stats.requests += 1;
        if matches!(route.l1, L1Path::Cached { .. })
            || route.l1_bypass_lookup
            || (self.l1_enabled
                && matches!(route.own_l1, OwnL1::Update(_) | OwnL1::Allocate(_))
                && route.op != Op::Read)
        {
            self.bump_l1(at, &route, |c| c.requests += 1);
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
                    reached_l2 |= self.read_group(at, &route, line, mask, &mut out, &mut level)
                }
                Op::Write { through } => {
                    reached_l2 |=
                        self.write_group(at, &route, line, mask, through, &mut out, &mut level);
                }
                Op::Atomic => {
                    self.own_l1_invalidate(at, line, mask);
                    self.l2_read(at, &route, line, mask, &mut out, &mut level);
                    if route.l2 == L2Path::Cached {
                        let (_, slot) = self.l2.lookup(line);
                        if let Some(sl) = slot {
                            let d = self.l2.slots[sl].dirty | mask;
                            self.l2.slots[sl].dirty = d;
                        }
                        reached_l2 = true;
                    }
                }
            }
            s = line_last + 1;
        }
        if reached_l2 {
            self.bump(at, |c| c.l2.requests += 1);
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
        Ok(out)
    }

    pub fn invalidate_l1(&mut self, sm: u32) -> Result<(), MemError> {
        let at = self.attr(sm, 0)?;
        self.invalidate_l1_at(at);
        Ok(())
    }

    pub fn invalidate_all_l1(&mut self) {
        for p in &mut self.pending_stores {
            p.clear();
        }
        for sm in 0..self.l1.len() {
            if self.l1_ready[sm] {
                for s in self.l1[sm].resident_slots() {
                    let (dropped, _) = self.l1[sm].drop_sectors(s, 0xFF);
                    self.stats.host.l1.invalidations += pop(dropped);
                }
            }
        }
    }

    pub fn flush_l2(&mut self) {
        for s in self.l2.resident_slots() {
            let d = self.l2.slots[s].dirty;
            if d != 0 {
                self.l2.slots[s].dirty = 0;
                self.stats.host.l2.writebacks += pop(d);
                self.stats.host.dram.bytes_written += pop(d) * self.sector_bytes;
            }
        }
    }

    pub fn stats(&self) -> Stats {
        let mut s = self.stats.clone();
        s.l2_occupancy = self.occupancy_sample();
        s
    }

    pub fn l2_max_evict_last_per_set(&self) -> u32 {
        self.l2.max_last_lines_per_set()
    }

    fn occupancy_sample(&self) -> OccupancySample {
        let [f, n, l] = self.l2.occupancy;
        OccupancySample {
            request: self.stats.requests,
            evict_first: f,
            normal: n,
            evict_last: l,
        }
    }

    fn resolve(&self, req: &Request) -> Result<Route, MemError> {
        match req.space {
            Space::Shared => {
                return Err(MemError::Unsupported {
                    what: "shared memory (it lives outside the caches)",
                })
            }
            Space::Local if !matches!(req.kind, AccessKind::Load | AccessKind::Store) => {
                return Err(MemError::Unsupported {
                    what: "a local-memory access other than a load or a store",
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
        // Local memory is the thread's own: its strong accesses are served as weak ones.
        let local = req.space == Space::Local;
        let req = &Request {
            semantics: if local {
                Semantics::Weak
            } else {
                req.semantics
            },
            ..*req
        };
        let policy = req.policy.map(CachePolicy::decode).filter(|p| {
            matches!(p.mode, PolicyMode::Fraction | PolicyMode::Range)
                || p.l1_no_allocate
                || p.l2_promote_256b
        });
        let mut prefetch = req.prefetch;
        if policy.is_some_and(|p| p.l2_promote_256b) {
            prefetch = Some(PrefetchSize::B256);
        }
        // The fetch granularity: a read miss fetches at least its aligned block.
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
            l1: L1Path::Bypass,
            own_l1: OwnL1::Invalidate,
            l2: L2Path::Cached,
            l2_hint: qualifier_l2.unwrap_or(Hint::Unchanged),
            policy,
            policy_value: req.policy.unwrap_or(0),
            prefetch_bytes,
            invalidate_l1_after: false,
            l1_bypass_lookup: false,
            local,
        };
        match req.kind {
            AccessKind::Load | AccessKind::AsyncCopy | AccessKind::Prefetch => {
                // `ld.global.cg.nc` is `ld.global.nc` (ptxas emits the same LDG.E.CONSTANT).
                let op = match req.operator.unwrap_or(CacheOperator::Ca) {
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
                // `atom.acquire`/`.acq_rel` above .cta: ptxas emits CCTL.IVALL after it
                // (docs/fences.md), as after an acquiring load.
                route.invalidate_l1_after = !cta_scoped && req.semantics == Semantics::Acquire;
            }
        }
        // Prefetches never leave the line in L1 (H100, `ld_forms.prefetch_forms`).
        if !self.l1_enabled || req.kind == AccessKind::Prefetch {
            route.l1 = L1Path::Bypass;
        }
        // Local stores install their sectors in L1 (they still write through to L2).
        if let (true, OwnL1::Update(hint)) = (local, route.own_l1) {
            route.own_l1 = OwnL1::Allocate(hint);
        }
        route.l1_bypass_lookup = self.l1_enabled
            && route.op == Op::Read
            && matches!(route.l1, L1Path::Bypass)
            && matches!(req.kind, AccessKind::Load | AccessKind::AsyncCopy);
        Ok(route)
    }

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
                let hit = match exact.map(|r| r.classify(addr)) {
                    Some(RangeHit::Outside) => RangeHit::Outside,
                    _ if p.in_primary_blocks(addr) => RangeHit::Primary,
                    _ => RangeHit::Secondary,
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
        let instr = instr as usize;
        if instr >= self.stats.per_instr.len() {
            self.stats.per_instr.resize(instr + 1, Counters::default());
        }
        Ok(Attr {
            sm: sm as usize,
            instr,
            warp: 0,
        })
    }

    fn ensure_l1(&mut self, sm: usize) {
        if self.l1_enabled && !self.l1_ready[sm] {
            self.l1[sm] = Cache::new(&self.cfg.l1, self.cfg.l1.ways);
            self.l1_ready[sm] = true;
        }
    }

    /// One line of a read; returns whether L2 was reached.
    fn read_group(
        &mut self,
        at: Attr,
        route: &Route,
        line: u64,
        mask: u8,
        out: &mut Outcome,
        level: &mut u8,
    ) -> bool {
        let L1Path::Cached { allocate, hint } = route.l1 else {
            if route.l1_bypass_lookup {
                let n = pop(mask);
                self.bump_l1(at, route, |c| {
                    c.read_sectors += n;
                    c.read_misses += n;
                });
            }
            self.l2_read(at, route, line, mask, out, level);
            return true;
        };
        let l1 = &mut self.l1[at.sm];
        let (base, slot) = l1.lookup(line);
        let hit = match slot {
            Some(s) => {
                let h = l1.slots[s].valid & mask;
                l1.touch(s, hint);
                h
            }
            None => 0,
        };
        let miss = mask & !hit;
        let (nh, nm) = (pop(hit), pop(miss));
        self.bump_l1(at, route, |c| {
            c.read_sectors += nh + nm;
            c.read_hits += nh;
            c.read_misses += nm;
        });
        out.l1_hits += nh as u32;
        out.l1_misses += nm as u32;
        *level = (*level).max(1);
        if miss == 0 {
            return false;
        }
        self.l2_read(at, route, line, miss, out, level);
        if allocate {
            let l1 = &mut self.l1[at.sm];
            let slot = match slot {
                Some(s) => s,
                None => {
                    let (s, evicted, _) = l1.allocate(base, line, hint);
                    if let Some(ev) = evicted {
                        self.bump_l1(at, route, |c| add_eviction(&mut c.evictions, ev.class));
                    }
                    self.bump_l1(at, route, |c| c.allocations += 1);
                    s
                }
            };
            self.l1[at.sm].slots[slot].valid |= miss;
            self.bump_l1(at, route, |c| c.sector_fills += nm);
        }
        true
    }

    fn l2_allocate(
        &mut self,
        at: Attr,
        base: usize,
        line: u64,
        hint: Hint,
        out: &mut Outcome,
    ) -> usize {
        let (slot, evicted, capped) = self.l2.allocate(base, line, hint);
        let sb = self.sector_bytes;
        if let Some(ev) = evicted {
            let nd = pop(ev.dirty);
            self.bump(at, |c| {
                add_eviction(&mut c.l2.evictions, ev.class);
                c.l2.writebacks += nd;
                c.dram.bytes_written += nd * sb;
            });
            out.dram_sectors_written += nd as u32;
        }
        self.bump(at, |c| {
            c.l2.allocations += 1;
            c.l2.evict_last_capped += u64::from(capped);
        });
        slot
    }

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
                self.bump(at, |c| c.dram.bytes_read += n * sb);
                out.dram_sectors_read += n as u32;
                *level = 3;
            }
            L2Path::Refetch => {
                let (_, slot) = self.l2.lookup(line);
                if let Some(s) = slot {
                    let (dropped, dirty) = self.l2.drop_sectors(s, self.full_mask);
                    let nd = pop(dirty);
                    self.bump(at, |c| {
                        c.l2.invalidations += pop(dropped);
                        c.l2.writebacks += nd;
                        c.dram.bytes_written += nd * sb;
                    });
                    out.dram_sectors_written += nd as u32;
                }
                self.bump(at, |c| {
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
                        let h = self.l2.slots[s].valid & mask;
                        if self.l2.touch(s, hint) {
                            self.bump(at, |c| c.l2.evict_last_capped += 1);
                        }
                        (s, h)
                    }
                    None => (self.l2_allocate(at, base, line, hint, out), 0),
                };
                let miss = mask & !hit;
                let (nh, nm) = (pop(hit), pop(miss));
                self.bump(at, |c| {
                    c.l2.read_sectors += n;
                    c.l2.read_hits += nh;
                    c.l2.read_misses += nm;
                });
                out.l2_hits += nh as u32;
                out.l2_misses += nm as u32;
                *level = (*level).max(2);
                if miss != 0 {
                    self.l2.slots[slot].valid |= miss;
                    self.bump(at, |c| {
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

    #[allow(clippy::too_many_arguments)]
    fn prefetch_fill(
        &mut self,
        at: Attr,
        line: u64,
        slot: usize,
        miss: u8,
        hint: Hint,
        block_bytes: u32,
        out: &mut Outcome,
    ) {
        let sb = self.sector_bytes;
        let line_bytes = 1u64 << self.line_shift;
        let block = u64::from(block_bytes);
        // Sectors of the missed line itself are granule (fetch) fills; of other lines,
        // prefetch fills.
        let fill = |this: &mut Self, slot: usize, want: u8, own: bool, out: &mut Outcome| {
            let extra = want & !this.l2.slots[slot].valid;
            if extra != 0 {
                this.l2.slots[slot].valid |= extra;
                let n = pop(extra);
                this.bump(at, |c| {
                    if own {
                        c.l2.fetch_fills += n;
                    } else {
                        c.l2.prefetch_fills += n;
                    }
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
            fill(self, slot, want & self.full_mask, true, out);
        } else {
            let lines = block / line_bytes;
            let first = line & !(lines - 1);
            for other in first..first + lines {
                if other == line {
                    fill(self, slot, self.full_mask, true, out);
                    continue;
                }
                let (base, s) = self.l2.lookup(other);
                let s = match s {
                    Some(s) => s,
                    None => self.l2_allocate(at, base, other, hint, out),
                };
                fill(self, s, self.full_mask, false, out);
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
            self.bump(at, |c| c.l1.invalidations += pop(dropped));
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn write_group(
        &mut self,
        at: Attr,
        route: &Route,
        line: u64,
        mask: u8,
        through: bool,
        out: &mut Outcome,
        level: &mut u8,
    ) -> bool {
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
                        l1.slots[s].valid & mask
                    }
                    None => 0,
                };
                let nh = pop(resident);
                self.bump_l1(at, route, |c| {
                    c.write_sectors += n;
                    c.write_hits += nh;
                    c.write_misses += n - nh;
                });
                *level = (*level).max(1);
            }
            OwnL1::Allocate(hint) if self.l1_enabled => {
                let l1 = &mut self.l1[at.sm];
                let (base, slot) = l1.lookup(line);
                let (slot, resident) = match slot {
                    Some(s) => {
                        l1.touch(s, hint);
                        (s, l1.slots[s].valid & mask)
                    }
                    None => {
                        let (s, evicted, _) = l1.allocate(base, line, hint);
                        if let Some(ev) = evicted {
                            self.bump_l1(at, route, |c| add_eviction(&mut c.evictions, ev.class));
                        }
                        self.bump_l1(at, route, |c| c.allocations += 1);
                        (s, 0)
                    }
                };
                self.l1[at.sm].slots[slot].valid |= mask;
                let nh = pop(resident);
                self.bump_l1(at, route, |c| {
                    c.write_sectors += n;
                    c.write_hits += nh;
                    c.write_misses += n - nh;
                });
                *level = (*level).max(1);
            }
            OwnL1::Update(_) | OwnL1::Allocate(_) => {}
        }
        match route.l2 {
            L2Path::Uncached => {
                // `.mmio` writes pass L2 uncombined and uncached: counted as L2 writes
                // (every written sector a lookup hit) on their way to memory.
                self.bump(at, |c| {
                    c.l2.write_sectors += n;
                    c.l2.write_hits += n;
                    c.dram.bytes_written += n * sb;
                });
                out.l2_hits += n as u32;
                out.dram_sectors_written += n as u32;
                *level = 3;
                true
            }
            L2Path::Cached | L2Path::Refetch => {
                // Write combining: sectors pending in the window of the last lines stored
                // by the warp's SM sub-partition are not written again.
                // Local stores take no part in it.
                let window = if route.local {
                    0
                } else {
                    self.cfg.l2_write_combine_lines as usize
                };
                let parts = self.cfg.sm_sub_partitions as usize;
                let pending = &mut self.pending_stores[at.sm * parts + at.warp as usize % parts];
                let mask = match pending.iter_mut().find(|(l, _)| *l == line) {
                    Some((_, m)) if window > 0 => {
                        let new = mask & !*m;
                        *m |= mask;
                        new
                    }
                    _ => {
                        if window > 0 {
                            if pending.len() == window {
                                pending.remove(0);
                            }
                            pending.push((line, mask));
                        }
                        mask
                    }
                };
                if mask == 0 {
                    return false;
                }
                let n = pop(mask);
                let first_sector = mask.trailing_zeros() as u64;
                let hint = self.l2_hint_for(route, (line << self.line_shift) + first_sector * sb);
                let (base, slot) = self.l2.lookup(line);
                let (slot, hit) = match slot {
                    Some(s) => {
                        let h = self.l2.slots[s].valid & mask;
                        if self.l2.touch(s, hint) {
                            self.bump(at, |c| c.l2.evict_last_capped += 1);
                        }
                        (s, h)
                    }
                    None => (self.l2_allocate(at, base, line, hint, out), 0),
                };
                let nh = pop(hit);
                self.bump(at, |c| {
                    c.l2.write_sectors += n;
                    c.l2.write_hits += nh;
                    c.l2.write_misses += n - nh;
                });
                out.l2_hits += nh as u32;
                out.l2_misses += (n - nh) as u32;
                self.l2.slots[slot].valid |= mask;
                let dirty = self.l2.slots[slot].dirty;
                if through {
                    self.l2.slots[slot].dirty = dirty & !mask;
                    self.bump(at, |c| c.dram.bytes_written += n * sb);
                    out.dram_sectors_written += n as u32;
                    *level = 3;
                } else {
                    self.l2.slots[slot].dirty = dirty | mask;
                    *level = (*level).max(2);
                }
                true
            }
        }
    }

    fn invalidate_l1_at(&mut self, at: Attr) {
        if !self.l1_ready[at.sm] {
            return;
        }
        let mut n = 0;
        for s in self.l1[at.sm].resident_slots() {
            let (dropped, _) = self.l1[at.sm].drop_sectors(s, 0xFF);
            n += pop(dropped);
        }
        self.bump(at, |c| c.l1.invalidations += n);
    }
}
