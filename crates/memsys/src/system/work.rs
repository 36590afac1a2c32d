//! [`Work`]: one request's work on the issuing SM's L1, the L2 and the counters, borrowed
//! apart from the rest of the system so the hot path indexes nothing twice; with the
//! [`Tally`] of what a request reports back. The prefetch-size fill it shares with the
//! compiled replay loop is in `prefetch_fill.rs`.

use super::*;

/// What a request reports back: [`Outcome`] and the level that served it ([`Track`]), or
/// nothing (`()`, trace replay, where only the statistics matter).
pub(super) trait Tally {
    fn l1(&mut self, hits: u64, misses: u64);
    fn l2(&mut self, hits: u64, misses: u64);
    fn dram(&mut self, read: u64, written: u64);
    /// The request was served at `level` (1 = L1, 2 = L2, 3 = DRAM) or deeper.
    fn reached(&mut self, level: u8);
}

/// An [`Outcome`] being filled in.
#[derive(Default)]
pub(super) struct Track {
    pub(super) out: Outcome,
    pub(super) level: u8,
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

/// Drops every line of one L1; returns the sectors dropped.
pub(super) fn invalidate_whole(l1: &mut SectorCache) -> u64 {
    let mut n = 0;
    for s in l1.resident_slots() {
        let (dropped, _) = l1.drop_sectors(s, 0xFF);
        n += pop(dropped);
    }
    n
}

/// Where a request's counters go.
pub(super) trait Sink {
    fn apply(&mut self, f: impl Fn(&mut Counters));
}

/// The issuing SM's and the instruction's counters.
pub(super) struct SmAndInstr<'a> {
    pub(super) sm: &'a mut Counters,
    pub(super) instr: &'a mut Counters,
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
pub(super) struct Work<'a, T: Tally, S: Sink> {
    pub(super) l1: &'a mut SectorCache,
    /// The L2's partitions (`partitions.rs`).
    pub(super) l2: &'a mut PartitionedL2,
    /// The store write-combining windows, and the issuing SM.
    pub(super) combine: &'a mut WriteCombiner,
    /// The round's pending L2 read misses (`read_coalescer.rs`).
    pub(super) reads: &'a mut ReadCoalescer,
    pub(super) sm: usize,
    /// The issuing warp ([`crate::Request::warp`]): its sub-partition's window merges.
    pub(super) warp: u32,
    /// The counters the request's events go to.
    pub(super) counters: S,
    pub(super) rng: &'a mut SplitMix64,
    pub(super) ranges: &'a [RangePolicy],
    /// The access policy window in effect (`l2_control.rs`).
    pub(super) window: Option<WindowRule>,
    pub(super) mem: &'a GlobalMemory,
    pub(super) geo: Geometry,
    /// What the request reports back (nothing in trace replay).
    pub(super) tally: T,
    /// The L2 set of one line, if already known.
    pub(super) l2_hint: SetHint,
    /// On an SM port (`system/port.rs`): where the request's L2 work is logged instead of
    /// done, to be replayed on the L2 in turn order when the phase is settled. The L2 only
    /// counts (its data is the image), so nothing the SM side returns depends on it.
    pub(super) deferred: Option<Deferred<'a>>,
    /// On an SM port: the SM's own stores of the phase, which the image does not hold yet
    /// (an L1 fill takes them, as it takes the image's bytes).
    pub(super) overlay: Option<OverlayView<'a>>,
}

/// The L1 counters an access of `route` counts in: local accesses apart from the rest.
#[inline(always)]
pub(super) fn l1_of<'c>(c: &'c mut Counters, route: &Route) -> &'c mut LevelCounters {
    if route.local {
        &mut c.l1_local
    } else {
        &mut c.l1
    }
}

impl<T: Tally, S: Sink> Work<'_, T, S> {
    /// Applies `f` to the request's counters.
    #[inline(always)]
    pub(super) fn bump(&mut self, f: impl Fn(&mut Counters)) {
        self.counters.apply(f);
    }

    /// One tags-only access of `addr..end` along `route`, split into its lines.
    #[inline(always)]
    pub(super) fn perform(&mut self, route: &Route, addr: u64, end: u64) {
        let reached_l2;
        if route.touches_l1 {
            self.bump(|c| l1_of(c, route).requests += 1);
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
    pub(super) fn lines(&mut self, route: &Route, mut s: u64, last: u64) -> bool {
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
    pub(super) fn finish(&mut self, route: &Route, reached_l2: bool) {
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
    pub(super) fn invalidate_own_l1(&mut self) {
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
    pub(super) fn l2_hint_for(&mut self, route: &Route, addr: u64) -> Hint {
        match route.l2_choice {
            // An access policy window gives its property to accesses whose own hints leave the
            // L2 priority open (no `.L2::evict_*` other than evict_unchanged, no `.cs`/`.lu`,
            // no policy): `l2_control.rs`.
            L2Choice::Qualifiers => match self.window {
                Some(w) if route.l2_hint == Hint::Unchanged && !route.local => {
                    self.window_hint(w, route, addr)
                }
                _ => route.l2_hint,
            },
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
    pub(super) fn range_hint(
        &self,
        route: &Route,
        policy: CachePolicy,
        value: u64,
        addr: u64,
    ) -> Hint {
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
    pub(super) fn read_group(&mut self, route: &Route, line: u64, mask: u8) -> (u8, bool) {
        let L1Path::Cached { allocate } = route.l1 else {
            if route.l1_bypass_lookup {
                let n = pop(mask);
                self.bump(|c| {
                    let l1 = l1_of(c, route);
                    l1.read_sectors += n;
                    l1.read_misses += n;
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
            let l1 = l1_of(c, route);
            l1.read_sectors += nh + nm;
            l1.read_hits += nh;
            l1.read_misses += nm;
        });
        self.tally.l1(nh, nm);
        self.tally.reached(1);
        if miss == 0 {
            return (hit, false);
        }
        if allocate {
            if a.installed {
                if let Some(ev) = a.evicted() {
                    self.bump(|c| l1_of(c, route).evictions.add(ev.class));
                }
                self.bump(|c| l1_of(c, route).allocations += 1);
            }
            self.bump(|c| l1_of(c, route).sector_fills += nm);
            // A local line's bytes are the caller's: its L1 copy holds no data.
            if let (true, false, Some(slot)) = (self.l1.keeps_data(), route.local, a.slot()) {
                self.fill_l1_data(slot, line, miss);
                self.l1.mark_read_only(slot, miss, route.read_only_fill);
            }
        }
        self.l2_read(route, line, miss);
        (hit, true)
    }

    /// Copies the filled sectors of `line` from the coherent image into this SM's L1 copy.
    #[cold]
    pub(super) fn fill_l1_data(&mut self, slot: Slot, line: u64, miss: u8) {
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
        if let Some(overlay) = self.overlay {
            overlay.patch_line(line, miss, self.geo, dst);
        }
    }

    /// An L2 eviction: its class, and the write-back of its dirty sectors.
    #[inline(always)]
    pub(super) fn count_l2_eviction(&mut self, ev: Evicted) {
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
    pub(super) fn l2_line(
        &mut self,
        route: &Route,
        line: u64,
        mask: u8,
        fill: Fill,
    ) -> (Slot, u8, Hint) {
        let first_sector = u64::from(mask.trailing_zeros());
        let hint = self.l2_hint_for(
            route,
            (line << self.geo.line_shift) + first_sector * self.geo.sector_bytes,
        );
        let a = self.l2_home_access(line, mask, hint, fill);
        let slot = a.slot().unwrap_or(Slot::NONE);
        (slot, a.held, hint)
    }

    /// `mask` of `line` in its home partition with `hint` and `fill`, counting what an
    /// installation evicted and an evict-last request the set-aside capped.
    #[inline(always)]
    pub(super) fn l2_home_access(&mut self, line: u64, mask: u8, hint: Hint, fill: Fill) -> Access {
        let set = self.l2_set(line);
        let a = self
            .l2
            .home_part_mut(line)
            .access(set, line, mask, hint, fill);
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
        a
    }

    /// The L2 set of `line` (the same in every partition).
    #[inline(always)]
    pub(super) fn l2_set(&self, line: u64) -> usize {
        if line == self.l2_hint.line {
            self.l2_hint.set
        } else {
            self.l2.set_of(line)
        }
    }

    /// The L2 part of a read of `mask` sectors of `line`.
    #[inline(always)]
    pub(super) fn l2_read(&mut self, route: &Route, line: u64, mask: u8) {
        if let Some(d) = self.deferred.as_mut() {
            d.log.push(L2Op {
                line,
                word: d.route,
                mask,
                kind: L2OpKind::Read,
            });
            return;
        }
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
                // Sectors another SM's pending fill answers never reach the L2 tag stage.
                let shared = route.op == Op::Read && !route.local;
                let mask = if shared {
                    mask & !self.reads.joined(self.sm, line, mask)
                } else {
                    mask
                };
                if shared && mask == 0 {
                    return;
                }
                if route.op == Op::Read {
                    if let Some(near) = self.l2.far_near(self.sm, line) {
                        let miss = self.far_read(route, near, line, mask);
                        if shared {
                            self.reads.missed(self.sm, line, miss);
                        }
                        return;
                    }
                }
                let (slot, hit, hint) = self.l2_line(route, line, mask, Fill::Valid);
                let miss = mask & !hit;
                if shared {
                    self.reads.missed(self.sm, line, miss);
                }
                let (nh, nm) = (pop(hit), pop(miss));
                self.bump(|c| {
                    c.l2.read_sectors += nh + nm;
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
    pub(super) fn l2_refetch(&mut self, line: u64, n: u64) {
        let sb = self.geo.sector_bytes;
        // Every partition's copy goes (only the home one can be dirty).
        let (dropped, dirty) = self
            .l2
            .drop_copies(line, self.geo.full_mask, [usize::MAX; 2]);
        if dropped != 0 {
            let nd = pop(dirty);
            self.bump(|c| {
                c.l2.invalidations += dropped;
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
    pub(super) fn prefetch_fill(
        &mut self,
        line: u64,
        slot: Slot,
        miss: u8,
        hint: Hint,
        block_bytes: u32,
    ) {
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
        if self.l2.count() == 1 {
            prefetch_fill(self.l2.part_mut(0), &self.geo, fill, &mut events);
        } else {
            // A block's other lines are filled in their own home partitions.
            let sets = self.l2.part(0).sets();
            let mut target = HomeFill {
                l2: &mut *self.l2,
                sets,
            };
            let fill = PrefetchFill {
                slot: target.slot_of(line, slot),
                ..fill
            };
            prefetch_fill(&mut target, &self.geo, fill, &mut events);
        }
    }

    /// A local store's L1 part ([`OwnL1::Allocate`]): the written sectors are installed in
    /// this SM's L1 (no bytes: a local line's bytes are the caller's), so the thread's later
    /// loads of them hit.
    #[inline(never)]
    pub(super) fn l1_write_allocate(&mut self, route: &Route, line: u64, mask: u8) {
        let n = pop(mask);
        let set = self.l1.set_of(line);
        let a = self.l1.access(set, line, mask, route.l1_hint, Fill::Valid);
        let nh = pop(a.held);
        self.bump(|c| {
            let l1 = l1_of(c, route);
            l1.write_sectors += n;
            l1.write_hits += nh;
            l1.write_misses += n - nh;
        });
        if a.installed {
            if let Some(ev) = a.evicted() {
                self.bump(|c| l1_of(c, route).evictions.add(ev.class));
            }
            self.bump(|c| l1_of(c, route).allocations += 1);
        }
        self.tally.reached(1);
    }

    /// Drops this SM's L1 copy of `mask` sectors of `line` (if L1 is in use).
    #[inline(never)]
    pub(super) fn own_l1_invalidate(&mut self, line: u64, mask: u8) {
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
    pub(super) fn atomic_group(&mut self, route: &Route, line: u64, mask: u8) -> bool {
        self.own_l1_invalidate(line, mask);
        self.l2_read(route, line, mask);
        if route.l2 == L2Path::Cached {
            let home = self.l2.home_part_mut(line);
            let (_, slot) = home.lookup(line);
            if let Some(s) = slot {
                let d = home.dirty(s) | mask;
                home.set_dirty(s, d);
            }
            // Performed at the home partition (the point of coherence).
            self.write_coherence(line, mask);
            return true;
        }
        false
    }

    /// One line of a store. Returns whether L2 was reached (not when every sector merged
    /// with a pending write of the SM, `system/combine.rs`).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn write_group(
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
            OwnL1::Allocate if self.geo.l1_enabled => self.l1_write_allocate(route, line, mask),
            OwnL1::Update if self.geo.l1_enabled => {
                let set = self.l1.set_of(line);
                let a = self.l1.access(set, line, mask, route.l1_hint, Fill::None);
                let (slot, resident) = (a.slot(), a.held);
                let nh = pop(resident);
                self.bump(|c| {
                    let l1 = l1_of(c, route);
                    l1.write_sectors += n;
                    l1.write_hits += nh;
                    l1.write_misses += n - nh;
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
            OwnL1::Update | OwnL1::Allocate => {}
        }
        match route.l2 {
            L2Path::Uncached => {
                // An `.mmio` write passes L2 on its way to memory without being combined or
                // cached there (PTX ISA 8.4.1, "Writes are always performed and are never
                // combined within the scope specified"): Nsight counts its sectors as L2
                // writes (H100, `st_forms.st_global_forms`: 282 L2 write sectors, of which
                // the 25 other forms make 200), and every written sector as a lookup hit.
                self.bump(|c| {
                    c.l2.write_sectors += n;
                    c.l2.write_hits += n;
                    c.dram.bytes_written += n * sb;
                });
                self.tally.l2(n, 0);
                self.tally.dram(0, n);
                self.tally.reached(3);
                true
            }
            L2Path::Cached | L2Path::Refetch => {
                // Local stores pass the write-combining windows by: on an H100
                // `st_forms.st_shared_local_forms` (one warp; 12 lines of global stores,
                // then two `STL` lines, then global stores to the 12 lines again) counts
                // 56 L2 write sectors, the 48 the global stores make when they merge in a
                // 12-line window plus 2 x 4 for the `STL`s: the local lines took no entry.
                let mask = if route.local {
                    mask
                } else {
                    self.combine.merge(self.sm, self.warp, line, mask)
                };
                if mask == 0 {
                    return false;
                }
                if let Some(d) = self.deferred.as_mut() {
                    d.log.push(L2Op {
                        line,
                        word: d.route,
                        mask,
                        kind: L2OpKind::Write { through },
                    });
                    return true;
                }
                self.l2_write(route, line, mask, through);
                true
            }
        }
    }

    /// The L2 part of a store of `mask` sectors of `line` (after write combining).
    #[inline(always)]
    pub(super) fn l2_write(&mut self, route: &Route, line: u64, mask: u8, through: bool) {
        let sb = self.geo.sector_bytes;
        let n = pop(mask);
        let fill = if through { Fill::Clean } else { Fill::Dirty };
        let (_, hit, _) = self.l2_line(route, line, mask, fill);
        self.write_coherence(line, mask);
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
    }

    /// Writes the stored bytes that fall in `resident` sectors into this SM's L1 copy.
    pub(super) fn update_l1_copy(
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
