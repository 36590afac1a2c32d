//! The compiled replay loop behind [`crate::replay::run_trace`].
//!
//! A trace repeats a few request shapes, so what an access of each shape does is decided
//! once per replay (its [`Plan`]), and the loop performs each access along its plan on the
//! issuing SM's L1 and the L2 directly: no per-access routing, checks, attribution or
//! counter fan-out. Each (shape, SM) pair counts into one compact [`Cell`] whose totals
//! become that SM's and that instruction's [`Counters`] when the replay ends; the counters
//! that follow from others (sectors looked up, demand fills, DRAM bytes, L1 requests) are
//! derived there instead of being counted per access.
//!
//! Plans cover what traces are made of: loads, `cp.async` and prefetches through L1 and/or
//! L2 and stores, each within one line, with qualifier or fraction-policy L2 priorities, on
//! an L2 of one or two partitions (`PackedL2`: a far read is looked up near, then at home,
//! and copied near; a store at home drops the other partition's copy, as `partitions.rs`
//! rules).
//! Everything else (atomics, `.cv`, `.mmio`, acquire loads that invalidate L1, local
//! accesses, range policies, accesses that span lines, accesses memsys rejects, memory systems that hold
//! data) takes the checked path, [`MemSystem::access_prepared`], access by access and in
//! trace order. Both paths change the caches and count exactly as [`MemSystem::access`]
//! does; `tests/differential.rs` holds both to the reference model (one partition) and the
//! loop to the checked path (two partitions).

use super::partitions::{copy_hint, home_slot, split_home_slot, PartitionMap};
use super::*;
use crate::cache::{Packed, SetIndexer};
use crate::replay::{Trace, CHECKED, PAIR, WHOLE};

/// How many accesses ahead of the one being performed the loop prefetches L2 sets. Random
/// accesses to an L2 tag array of several MiB wait on host memory; prefetching this far
/// ahead keeps that many lookups in flight.
pub(crate) const LOOKAHEAD: usize = 16;

/// What a store does to the issuing SM's own L1 copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OwnCopy {
    /// Nothing (no L1, or a route that leaves it alone).
    Keep,
    /// Touch the line with the plan's L1 hint if resident (the bytes are not modelled).
    Update,
    /// Drop the written sectors.
    Drop,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Path {
    /// A read through L1 (filled on a miss when `allocate`), then L2 for what L1 lacked.
    ReadL1 { allocate: bool },
    /// A read at L2 only.
    ReadL2,
    /// A store: the own L1 copy, then L2 (write-back, or write-through when `through`).
    Write { own: OwnCopy, through: bool },
    /// [`MemSystem::access_prepared`], access by access.
    Checked,
}

/// What the accesses of one request shape do, decided once per replay.
#[derive(Debug, Clone, Copy)]
struct Plan {
    path: Path,
    l1_hint: Hint,
    /// The L2 priority: a fraction policy's draw, or the qualifiers' hint as a fraction of
    /// 16/16 (no draw).
    l2: Fraction,
    /// The block a read miss fetches (fetch granularity or prefetch size) in bytes when it
    /// is larger than a sector (0 otherwise).
    prefetch_bytes: u32,
    /// The accesses count as L1 requests.
    touches_l1: bool,
    /// A read that bypasses L1 counts its sectors as L1 lookups that miss.
    l1_bypass_lookup: bool,
    /// The path works on the issuing SM's L1.
    uses_l1: bool,
    instr: usize,
    /// The issuing warp (its sub-partition's write-combining window).
    warp: u32,
}

impl Plan {
    fn new(p: &Prepared, geo: &Geometry, keep_data: bool) -> Self {
        let instr = MemSystem::prepared_instr(p);
        let checked = Plan {
            path: Path::Checked,
            l1_hint: Hint::Unchanged,
            l2: NO_FRACTION,
            prefetch_bytes: 0,
            touches_l1: false,
            l1_bypass_lookup: false,
            uses_l1: false,
            instr,
            warp: p.req.warp,
        };
        let Ok(r) = &p.route else { return checked };
        // Local accesses count their L1 events apart (`Counters::l1_local`) and allocate L1 on
        // stores: the checked path does both.
        if keep_data || r.invalidate_l1_after || r.local {
            return checked;
        }
        let l2 = match r.l2_choice {
            L2Choice::Qualifiers => Fraction {
                sixteenths: 16,
                primary: r.l2_hint,
                secondary: r.l2_hint,
            },
            L2Choice::Fraction => r.fraction,
            L2Choice::Range { .. } => return checked,
        };
        let path = match (r.op, r.l2, r.l1) {
            (Op::Read, L2Path::Cached, L1Path::Cached { allocate }) => Path::ReadL1 { allocate },
            (Op::Read, L2Path::Cached, L1Path::Bypass) => Path::ReadL2,
            (Op::Write { through }, L2Path::Cached | L2Path::Refetch, _) => Path::Write {
                own: match (geo.l1_enabled, r.own_l1) {
                    (false, _) => OwnCopy::Keep,
                    (true, OwnL1::Update) => OwnCopy::Update,
                    (true, OwnL1::Invalidate) => OwnCopy::Drop,
                    (true, OwnL1::Allocate) => return checked,
                },
                through,
            },
            _ => return checked,
        };
        Plan {
            path,
            l1_hint: r.l1_hint,
            l2,
            prefetch_bytes: if u64::from(r.prefetch_bytes) > geo.sector_bytes {
                r.prefetch_bytes
            } else {
                0
            },
            touches_l1: r.touches_l1,
            l1_bypass_lookup: r.l1_bypass_lookup,
            uses_l1: match path {
                Path::ReadL1 { .. } => true,
                Path::Write { own, .. } => own != OwnCopy::Keep,
                Path::ReadL2 | Path::Checked => false,
            },
            instr,
            warp: p.req.warp,
        }
    }
}

/// What the loop counts for one (request shape, SM) pair. Indices 0/1 of the pairs are
/// hits/misses; eviction arrays are indexed by [`EvictionClass`], their fourth entry counts
/// accesses that replaced nothing and is not reported.
#[derive(Debug, Clone, Copy, Default)]
struct Cell {
    accesses: u64,
    l1_read: [u64; 2],
    l1_write: [u64; 2],
    l1_allocations: u64,
    l1_evictions: [u64; 4],
    l1_invalidations: u64,
    l2_requests: u64,
    l2_read: [u64; 2],
    l2_write: [u64; 2],
    l2_allocations: u64,
    l2_evictions: [u64; 4],
    l2_writebacks: u64,
    l2_capped: u64,
    l2_prefetch_fills: u64,
    l2_fetch_fills: u64,
    /// Sectors a store or atomic dropped from other partitions' copies.
    l2_invalidations: u64,
    /// Of `l2_read[1]`, the near-partition misses of far reads (answered over the fabric,
    /// not by DRAM).
    far_misses: u64,
    /// Far reads' home lookups over the fabric: hits, misses (fetched from DRAM).
    fabric_read: [u64; 2],
    /// Of the fabric misses, the sectors the read itself missed (the rest are its block's).
    far_sector_fills: u64,
    fabric_write: u64,
    copy_allocations: u64,
    copy_fills: u64,
}

impl Cell {
    /// The [`Counters`] these events make for accesses of `plan` (what the checked path
    /// would have counted for them).
    fn counters(&self, plan: &Plan, sector_bytes: u64) -> Counters {
        let evictions = |e: &[u64; 4]| EvictionCounts {
            evict_first: e[EvictionClass::EvictFirst as usize],
            normal: e[EvictionClass::Normal as usize],
            evict_last: e[EvictionClass::EvictLast as usize],
        };
        let through = matches!(plan.path, Path::Write { through: true, .. });
        let l1_fills = matches!(plan.path, Path::ReadL1 { allocate: true });
        let l2_written = self.l2_write[0] + self.l2_write[1];
        // Near-partition misses answered by DRAM (a far read's are answered over the fabric).
        let l2_fills = self.l2_read[1] - self.far_misses + self.far_sector_fills;
        Counters {
            l1: LevelCounters {
                requests: if plan.touches_l1 { self.accesses } else { 0 },
                read_sectors: self.l1_read[0] + self.l1_read[1],
                read_hits: self.l1_read[0],
                read_misses: self.l1_read[1],
                write_sectors: self.l1_write[0] + self.l1_write[1],
                write_hits: self.l1_write[0],
                write_misses: self.l1_write[1],
                allocations: self.l1_allocations,
                sector_fills: if l1_fills { self.l1_read[1] } else { 0 },
                fetch_fills: 0,
                prefetch_fills: 0,
                evictions: evictions(&self.l1_evictions),
                writebacks: 0,
                invalidations: self.l1_invalidations,
                evict_last_capped: 0,
                ..LevelCounters::default()
            },
            l2: LevelCounters {
                requests: self.l2_requests,
                read_sectors: self.l2_read[0] + self.l2_read[1],
                read_hits: self.l2_read[0],
                read_misses: self.l2_read[1],
                write_sectors: l2_written,
                write_hits: self.l2_write[0],
                write_misses: self.l2_write[1],
                allocations: self.l2_allocations,
                sector_fills: l2_fills,
                fetch_fills: self.l2_fetch_fills,
                prefetch_fills: self.l2_prefetch_fills,
                evictions: evictions(&self.l2_evictions),
                writebacks: self.l2_writebacks,
                invalidations: self.l2_invalidations,
                evict_last_capped: self.l2_capped,
                fabric_read_hits: self.fabric_read[0],
                fabric_read_misses: self.fabric_read[1],
                fabric_write_sectors: self.fabric_write,
                copy_fills: self.copy_fills,
                copy_allocations: self.copy_allocations,
                // L2 control (discard, applypriority, the reset) never takes this loop.
                ..LevelCounters::default()
            },
            dram: DramCounters {
                bytes_read: (self.l2_read[1] - self.far_misses
                    + self.fabric_read[1]
                    + self.l2_fetch_fills
                    + self.l2_prefetch_fills)
                    * sector_bytes,
                bytes_written: (self.l2_writebacks + if through { l2_written } else { 0 })
                    * sector_bytes,
            },
            l1_local: LevelCounters::default(),
            stale_reads: 0,
        }
    }

    /// An L2 access's allocation, victim and carve-out cap (without branches: the victim
    /// class of an access that replaced nothing indexes the spare fourth entry).
    #[inline(always)]
    fn l2_installed(&mut self, a: &Access) {
        self.l2_capped += u64::from(a.capped);
        self.l2_allocations += u64::from(a.installed);
        self.l2_evictions[usize::from(a.victim_class & 3)] += 1;
        self.l2_writebacks += u64::from(a.victim_dirty.count_ones());
    }

    /// An L1 access's allocation and victim (see [`Cell::l2_installed`]).
    #[inline(always)]
    fn l1_installed(&mut self, a: &Access) {
        self.l1_allocations += u64::from(a.installed);
        self.l1_evictions[usize::from(a.victim_class & 3)] += 1;
    }
}

impl FillEvents for Cell {
    #[inline(always)]
    fn l2_evicted(&mut self, ev: Evicted) {
        self.l2_evictions[ev.class as usize & 3] += 1;
        self.l2_writebacks += pop(ev.dirty);
    }

    #[inline(always)]
    fn l2_allocated(&mut self, capped: bool) {
        self.l2_allocations += 1;
        self.l2_capped += u64::from(capped);
    }

    #[inline(always)]
    fn l2_prefetch_filled(&mut self, sectors: u64) {
        self.l2_prefetch_fills += sectors;
    }

    #[inline(always)]
    fn l2_fetch_filled(&mut self, sectors: u64) {
        self.l2_fetch_fills += sectors;
    }
}

/// The cells of a replay: a block of one cell per SM for each request shape used, made on
/// the shape's first access.
struct Cells {
    sm_count: usize,
    /// Per shape, the index of its block's first cell (`u32::MAX` before its first access).
    base: Vec<u32>,
    /// The shape of each block.
    shapes: Vec<u32>,
    cells: Vec<Cell>,
}

impl Cells {
    /// Most cells (about 200 bytes each); a trace with more shapes than that allows takes
    /// the checked path throughout.
    const MAX_CELLS: usize = 1 << 18;

    fn new(shapes: usize, sm_count: usize) -> Option<Self> {
        (shapes.checked_mul(sm_count)? <= Self::MAX_CELLS && sm_count > 0).then(|| Self {
            sm_count,
            base: vec![u32::MAX; shapes],
            shapes: Vec::new(),
            cells: Vec::new(),
        })
    }

    /// The cell of (`shape`, `sm`), `sm` below the SM count and `shape` below the number of
    /// shapes.
    #[inline(always)]
    fn get(&mut self, shape: u32, sm: usize) -> &mut Cell {
        let base = &mut self.base[shape as usize];
        if *base == u32::MAX {
            *base = self.cells.len() as u32;
            self.shapes.push(shape);
            self.cells
                .resize(self.cells.len() + self.sm_count, Cell::default());
        }
        &mut self.cells[*base as usize + sm]
    }

    /// Every (shape, SM, cell) with accesses.
    fn used(&self) -> impl Iterator<Item = (u32, usize, &Cell)> {
        self.shapes
            .iter()
            .enumerate()
            .flat_map(move |(block, &shape)| {
                let cells = &self.cells[block * self.sm_count..(block + 1) * self.sm_count];
                cells
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.accesses > 0)
                    .map(move |(sm, c)| (shape, sm, c))
            })
    }
}

/// The L2 priority of one access: the primary with probability `sixteenths / 16` (drawn
/// from the seeded generator; no draw at 16/16), else the secondary.
#[inline(always)]
fn draw(rng: &mut SplitMix64, f: &Fraction) -> Hint {
    if f.sixteenths == 16 || rng.chance_in_16(f.sixteenths) {
        f.primary
    } else {
        f.secondary
    }
}

impl MemSystem {
    /// Replays a compiled trace (see the module docs); returns how many accesses ran, or
    /// [`MemError::Replay`] naming the first access that failed. The counters of every
    /// access performed, also those before a failure, are in the statistics.
    pub(crate) fn replay_compiled(&mut self, trace: &Trace) -> Result<u64, MemError> {
        let prepared: Vec<Prepared> = trace.shapes.iter().map(|r| self.prepare(r)).collect();
        let plans: Vec<Plan> = prepared
            .iter()
            .map(|p| Plan::new(p, &self.geo, self.keep_data))
            .collect();
        let mut cells = Cells::new(plans.len(), self.cfg.sm_count as usize);
        let result = self.replay_dispatch(trace, &prepared, &plans, cells.as_mut());
        if let Some(cells) = cells {
            for (shape, sm, cell) in cells.used() {
                let plan = &plans[shape as usize];
                let c = cell.counters(plan, self.geo.sector_bytes);
                self.add_cell(sm, plan.instr, &c);
            }
        }
        result
    }

    /// [`MemSystem::replay_loop`] compiled for x86-64-v3 (AVX2, BMI1/2, LZCNT, POPCNT:
    /// variable shifts, bit scans and population counts in one instruction each) when the
    /// host has those, else for the baseline. Both compile the same code, so the results
    /// are the same.
    fn replay_dispatch(
        &mut self,
        trace: &Trace,
        prepared: &[Prepared],
        plans: &[Plan],
        cells: Option<&mut Cells>,
    ) -> Result<u64, MemError> {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2")
                && std::is_x86_feature_detected!("bmi1")
                && std::is_x86_feature_detected!("bmi2")
                && std::is_x86_feature_detected!("lzcnt")
                && std::is_x86_feature_detected!("popcnt")
            {
                // SAFETY: the function only enables the target features just detected on
                // the running CPU; it is otherwise an ordinary safe function.
                return unsafe { self.replay_loop_v3(trace, prepared, plans, cells) };
            }
        }
        self.replay_loop(trace, prepared, plans, cells)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    unsafe fn replay_loop_v3(
        &mut self,
        trace: &Trace,
        prepared: &[Prepared],
        plans: &[Plan],
        cells: Option<&mut Cells>,
    ) -> Result<u64, MemError> {
        self.replay_loop(trace, prepared, plans, cells)
    }

    #[inline(always)]
    fn replay_loop(
        &mut self,
        trace: &Trace,
        prepared: &[Prepared],
        plans: &[Plan],
        mut cells: Option<&mut Cells>,
    ) -> Result<u64, MemError> {
        let entries = &trace.entries;
        // The line and L2 set of each access, computed when its set is prefetched.
        let mut ahead = [SetHint::NONE; LOOKAHEAD];
        for (h, e) in ahead.iter_mut().zip(entries) {
            *h = self.prefetch_line(e.addr, e.flags & PAIR != 0, usize::from(e.sm));
        }
        // The loop works on one or two L2 partitions; more take the checked path.
        let fast = cells.is_some()
            && self.l2.count() <= 2
            && self.l2.is_packed()
            && self.l1.iter().all(|c| c.is_packed());
        if fast && self.geo.l1_enabled {
            // Every L1 now, so that all share one geometry (an L1 nobody uses stays empty).
            for sm in 0..self.l1.len() {
                self.ensure_l1(sm);
            }
        }
        let mut i = 0;
        while i < entries.len() {
            if let (true, Some(cells)) = (fast, cells.as_deref_mut()) {
                i = self.fast_run(trace, plans, cells, &mut ahead, i);
                if i == entries.len() {
                    break;
                }
            }
            // The access at `i` takes the checked path.
            let e = &entries[i];
            let hint = ahead[i % LOOKAHEAD];
            if let Some(next) = entries.get(i + LOOKAHEAD) {
                ahead[i % LOOKAHEAD] =
                    self.prefetch_line(next.addr, next.flags & PAIR != 0, usize::from(next.sm));
            }
            let done = match (e.flags & WHOLE != 0, prepared.get(e.shape as usize)) {
                (false, Some(p)) => {
                    self.access_prepared(p, u32::from(e.sm), e.addr, u32::from(e.bytes), hint, None)
                }
                _ => self.access_whole(trace, i),
            };
            done.map_err(|err| MemError::Replay {
                index: i as u64,
                source: Box::new(err),
            })?;
            i += 1;
        }
        Ok(entries.len() as u64)
    }

    /// Performs the accesses of `trace` from position `start` on along their plans, as long
    /// as they can take them; returns the position of the first that cannot (it takes the
    /// checked path) or the trace's length. `ahead` holds the L2 set of each of the next
    /// [`LOOKAHEAD`] accesses (ring-indexed by position).
    #[inline(always)]
    fn fast_run(
        &mut self,
        trace: &Trace,
        plans: &[Plan],
        cells: &mut Cells,
        ahead: &mut [SetHint; LOOKAHEAD],
        start: usize,
    ) -> usize {
        let entries = &trace.entries;
        let MemSystem {
            l1,
            l2,
            rng,
            stats,
            cfg,
            geo,
            combine,
            ..
        } = self;
        let geo = *geo;
        let sm_count = (cfg.sm_count as usize).min(l1.len());
        let interval = cfg.timeline_interval;
        let spl_mask = (1u64 << geo.sectors_per_line_shift) - 1;
        let Some(mut l2) = PackedL2::new(l2) else {
            return start;
        };
        let l2_index = l2.index;
        let l1_index = l1.first().map(|c| c.indexer()).unwrap_or(l2_index);
        // Requests performed here, added to the statistics when the run ends (and before an
        // occupancy sample, which records the count).
        let mut requests = 0u64;
        let mut stop = entries.len();
        for (i, e) in entries.iter().enumerate().skip(start) {
            let sm = usize::from(e.sm);
            let end = e.addr.wrapping_add(u64::from(e.bytes)).wrapping_sub(1);
            let Some(plan) = plans.get(e.shape as usize) else {
                stop = i;
                break;
            };
            let needs_l1 = plan.uses_l1;
            let l1 = if needs_l1 {
                l1[sm.min(sm_count.saturating_sub(1))].packed_mut()
            } else {
                None
            };
            let unplanned = (e.flags & (WHOLE | CHECKED) != 0)
                | (sm >= sm_count)
                | (plan.path == Path::Checked)
                | ((e.addr ^ end) >> geo.line_shift != 0)
                | (needs_l1 & l1.is_none());
            if unplanned {
                stop = i;
                break;
            }
            // From here on the access is performed along its plan.
            let hint = ahead[i % LOOKAHEAD];
            if let Some(next) = entries.get(i + LOOKAHEAD) {
                let line = next.addr >> geo.line_shift;
                let set = l2_index.set_of(line) as usize;
                l2.prefetch(set);
                if next.flags & PAIR != 0 {
                    l2.prefetch(l2_index.set_of(line ^ 1) as usize);
                }
                ahead[i % LOOKAHEAD] = SetHint { line, set };
            }
            let cell = cells.get(e.shape, sm);
            let line = e.addr >> geo.line_shift;
            let first = (e.addr >> geo.sector_shift) & spl_mask;
            let last = (end >> geo.sector_shift) & spl_mask;
            let mask = (((2u32 << (last - first)) - 1) << first) as u8;
            cell.accesses += 1;
            match (plan.path, l1) {
                (Path::ReadL1 { allocate }, Some(l1)) => {
                    let fill = if allocate { Fill::Valid } else { Fill::None };
                    let set = l1_index.set_of(line) as usize;
                    let a = l1.access(set, line, mask, plan.l1_hint, fill);
                    let miss = mask & !a.held;
                    cell.l1_read[0] += u64::from(a.held.count_ones());
                    cell.l1_read[1] += u64::from(miss.count_ones());
                    cell.l1_installed(&a);
                    if miss != 0 {
                        l2_read(&mut l2, rng, &geo, cell, plan, sm, line, hint.set, miss);
                    }
                }
                (Path::ReadL2, _) => {
                    cell.l1_read[1] +=
                        u64::from(plan.l1_bypass_lookup) * u64::from(mask.count_ones());
                    l2_read(&mut l2, rng, &geo, cell, plan, sm, line, hint.set, mask);
                }
                (Path::Write { own, through }, l1) => {
                    let n = u64::from(mask.count_ones());
                    if let Some(l1) = l1 {
                        let set = l1_index.set_of(line) as usize;
                        if own == OwnCopy::Update {
                            let a = l1.access(set, line, mask, plan.l1_hint, Fill::None);
                            let nh = u64::from(a.held.count_ones());
                            cell.l1_write[0] += nh;
                            cell.l1_write[1] += n - nh;
                        } else if let Some(way) = l1.find(set, line) {
                            let (dropped, _) = l1.drop_sectors(Slot::new(set, way), mask);
                            cell.l1_invalidations += u64::from(dropped.count_ones());
                        }
                    }
                    // Sectors already pending in the warp's sub-partition window merge.
                    let mask = combine.merge(sm, plan.warp, line, mask);
                    if mask != 0 {
                        let n = u64::from(mask.count_ones());
                        let h = draw(rng, &plan.l2);
                        let fill = if through { Fill::Clean } else { Fill::Dirty };
                        let home = l2.map.home(line);
                        let a = l2.part(home).access(hint.set, line, mask, h, fill);
                        cell.l2_requests += 1;
                        cell.l2_installed(&a);
                        let nh = u64::from(a.held.count_ones());
                        cell.l2_write[0] += nh;
                        cell.l2_write[1] += n - nh;
                        if l2.map.near_copies() {
                            write_coherence(&mut l2, cell, sm, home, line, hint.set, mask);
                        }
                    }
                }
                // Excluded above (`unplanned`).
                (Path::ReadL1 { .. }, None) | (Path::Checked, _) => {}
            }
            requests += 1;
            if interval > 0 && (stats.requests + requests) % interval == 0 {
                stats.requests += requests;
                requests = 0;
                push_timeline_sample(stats, l2.occupancy());
            }
        }
        stats.requests += requests;
        stop
    }

    /// An access of `trace` kept whole (out of the replay loop).
    #[cold]
    #[inline(never)]
    fn access_whole(&mut self, trace: &Trace, i: usize) -> Result<(), MemError> {
        match trace.get(i) {
            Some(a) => self.access(&a.request, a.addr, a.bytes).map(drop),
            None => Ok(()),
        }
    }
}

/// The L2's packed partitions as the loop works on them (one, or two with near copies:
/// `partitions.rs`), with the line-to-set map they share.
struct PackedL2<'a> {
    first: &'a mut Packed,
    second: Option<&'a mut Packed>,
    map: PartitionMap,
    index: SetIndexer,
    /// Sets per partition (a prefetch fill's slots carry their partition, as `HomeFill`'s).
    sets: usize,
}

impl<'a> PackedL2<'a> {
    /// The packed sets of `l2`'s partitions; `None` when a partition is not packed or there
    /// are more than two.
    fn new(l2: &'a mut PartitionedL2) -> Option<Self> {
        let map = l2.map();
        let (first, rest) = l2.parts_mut().split_first_mut()?;
        let (index, sets) = (first.indexer(), first.sets());
        let second = match rest {
            [] => None,
            [p] => Some(p.packed_mut()?),
            _ => return None,
        };
        Some(PackedL2 {
            first: first.packed_mut()?,
            second,
            map,
            index,
            sets,
        })
    }

    /// Partition `p` (below the partition count).
    #[inline(always)]
    fn part(&mut self, p: usize) -> &mut Packed {
        if p != 0 {
            if let Some(s) = self.second.as_deref_mut() {
                return s;
            }
        }
        self.first
    }

    /// Asks the host to bring `set` of every partition into its caches (a read may look up
    /// a near copy before its home).
    #[inline(always)]
    fn prefetch(&self, set: usize) {
        self.first.prefetch(set);
        if let Some(s) = self.second.as_deref() {
            s.prefetch(set);
        }
    }

    fn occupancy(&self) -> [u64; 3] {
        let mut o = self.first.occupancy();
        if let Some(s) = self.second.as_deref() {
            for (a, b) in o.iter_mut().zip(s.occupancy()) {
                *a += b;
            }
        }
        o
    }

    /// Splits a prefetch fill's slot into its partition and the slot within it.
    #[inline]
    fn split(&self, s: Slot) -> (usize, Slot) {
        split_home_slot(self.sets, s)
    }
}

/// What a prefetch fill works on in the loop: each line of the block in its own home
/// partition (`partitions.rs`, `HomeFill`, whose slot numbering this shares).
impl FillTarget for PackedL2<'_> {
    #[inline]
    fn valid(&self, s: Slot) -> u8 {
        let (p, s) = self.split(s);
        match (p, self.second.as_deref()) {
            (0, _) | (_, None) => self.first.valid(s),
            (_, Some(c)) => c.valid(s),
        }
    }

    #[inline]
    fn add_valid(&mut self, s: Slot, mask: u8) {
        let (p, s) = self.split(s);
        self.part(p).add_valid(s, mask);
    }

    #[inline]
    fn find_or_allocate(&mut self, line: u64, hint: Hint) -> (Slot, Option<Installed>) {
        let set = self.index.set_of(line) as usize;
        let home = self.map.home(line);
        let sets = self.sets;
        let part = self.part(home);
        match part.find(set, line) {
            Some(way) => (home_slot(home, sets, Slot::new(set, way)), None),
            None => {
                let (way, evicted, capped) = part.allocate(set, line, hint);
                (
                    home_slot(home, sets, Slot::new(set, way)),
                    Some(Installed { evicted, capped }),
                )
            }
        }
    }
}

/// The L2 part of a read of `mask` sectors of `line` (in L2 set `set`) by SM `sm`: at the
/// line's home, or a far read (`partitions.rs`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn l2_read(
    l2: &mut PackedL2,
    rng: &mut SplitMix64,
    geo: &Geometry,
    cell: &mut Cell,
    plan: &Plan,
    sm: usize,
    line: u64,
    set: usize,
    mask: u8,
) {
    let hint = draw(rng, &plan.l2);
    let home = l2.map.home(line);
    if let Some(near) = l2.map.far_near(sm, line) {
        far_read(l2, geo, cell, plan, [near, home], line, set, mask, hint);
        return;
    }
    let part = l2.part(home);
    let a = part.access(set, line, mask, hint, Fill::Valid);
    cell.l2_requests += 1;
    cell.l2_installed(&a);
    let miss = mask & !a.held;
    cell.l2_read[0] += u64::from(a.held.count_ones());
    cell.l2_read[1] += u64::from(miss.count_ones());
    if miss != 0 && plan.prefetch_bytes != 0 {
        let slot = a.slot().unwrap_or(Slot::NONE);
        if plan.prefetch_bytes <= 1 << geo.line_shift {
            // The rest of the line's blocks (the common 64 B / 128 B case, kept inline).
            let want = block_sectors(miss, u64::from(plan.prefetch_bytes), geo.sector_bytes);
            let extra = want & geo.full_mask & !part.valid(slot);
            part.add_valid(slot, extra);
            cell.l2_fetch_fills += u64::from(extra.count_ones());
        } else {
            let slot = home_slot(home, l2.sets, slot);
            prefetch_blocks(l2, geo, cell, plan, line, slot, miss, hint);
        }
    }
}

/// A far read (`Work::far_read`, which this performs on the packed partitions and counts
/// into the cell): looked up in the near partition (`parts[0]`), what it misses at home
/// (`parts[1]`) over the fabric, and copied near with its block.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn far_read(
    l2: &mut PackedL2,
    geo: &Geometry,
    cell: &mut Cell,
    plan: &Plan,
    [near, home]: [usize; 2],
    line: u64,
    set: usize,
    mask: u8,
    hint: Hint,
) {
    let sb = geo.sector_bytes;
    let a = l2
        .part(near)
        .access(set, line, mask, copy_hint(hint), Fill::Valid);
    cell.l2_requests += 1;
    cell.l2_installed(&a);
    cell.copy_allocations += u64::from(a.installed);
    let miss = mask & !a.held;
    let nm = u64::from(miss.count_ones());
    cell.l2_read[0] += u64::from(a.held.count_ones());
    cell.l2_read[1] += nm;
    cell.far_misses += nm;
    if miss == 0 {
        return;
    }
    let line_bytes = 1u64 << geo.line_shift;
    let block = u64::from(plan.prefetch_bytes).min(line_bytes);
    let want = if block > sb {
        block_sectors(miss, block, sb) & geo.full_mask
    } else {
        miss
    };
    if let Some(slot) = a.slot() {
        let part = l2.part(near);
        let extra = want & !part.valid(slot);
        part.add_valid(slot, extra);
        cell.copy_fills += u64::from(extra.count_ones());
    }
    let h = l2.part(home).access(set, line, want, hint, Fill::Valid);
    cell.l2_installed(&h);
    let fetched = want & !h.held;
    let nf = u64::from(fetched.count_ones());
    cell.fabric_read[0] += u64::from(want.count_ones()) - nf;
    cell.fabric_read[1] += nf;
    cell.far_sector_fills += u64::from((fetched & miss).count_ones());
    if nf != 0 && u64::from(plan.prefetch_bytes) > line_bytes {
        // A block beyond the line (`.L2::256B`): the neighbour line, filled in its own home.
        let slot = home_slot(home, l2.sets, h.slot().unwrap_or(Slot::NONE));
        prefetch_blocks(l2, geo, cell, plan, line, slot, fetched, hint);
    }
}

/// A store's coherence (`Work::write_coherence`) with two partitions: a far store is counted
/// as a fabric write; a near one drops the other partition's copy of the written sectors.
#[inline(always)]
fn write_coherence(
    l2: &mut PackedL2,
    cell: &mut Cell,
    sm: usize,
    home: usize,
    line: u64,
    set: usize,
    mask: u8,
) {
    let n = u64::from(mask.count_ones());
    if l2.map.near(sm) != home {
        cell.fabric_write += n;
        return;
    }
    let other = l2.part(home ^ 1);
    if let Some(way) = other.find(set, line) {
        let (dropped, _) = other.drop_sectors(Slot::new(set, way), mask);
        cell.l2_invalidations += u64::from(dropped.count_ones());
    }
}

/// A prefetch block larger than a line (`.L2::256B`): see [`prefetch_fill`]. `slot` is the
/// missed line's, numbered with its partition.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn prefetch_blocks(
    l2: &mut PackedL2,
    geo: &Geometry,
    cell: &mut Cell,
    plan: &Plan,
    line: u64,
    slot: Slot,
    miss: u8,
    hint: Hint,
) {
    let fill = PrefetchFill {
        line,
        slot,
        miss,
        hint,
        block_bytes: plan.prefetch_bytes,
    };
    prefetch_fill(l2, geo, fill, cell);
}
