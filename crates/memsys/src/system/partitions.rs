//! The L2 as the H100 builds it: partitions, each holding its home lines and copies of far
//! lines read by the SMs near it.
//!
//! The rules, each with what justifies it (the measurements are in
//! `tests/hw/h100/l2/`, copied from `../shared/hw/h100/l2/`, and in the README's real-size
//! table):
//! - **Two partitions** (`GpuConfig::l2_partitions`). A100 and H100 whitepapers: "The L2
//!   cache is divided into two partitions to enable higher bandwidth and lower latency memory
//!   access. Each L2 partition localizes and caches data for memory accesses from SMs in the
//!   GPCs directly connected to the partition. Hardware cache-coherence maintains the CUDA
//!   programming model". Each partition has half the sets, the same ways and lines.
//! - **A line's home** is one partition, chosen by its address: the low bit of the line number
//!   XOR a fold of the higher bits ([`PartitionedL2::home`]), so any two neighbouring lines are
//!   homed apart and strided accesses spread too. The home partition is the point of
//!   coherence: stores, atomics, dirty data and DRAM traffic are its.
//! - **SM `s` is near partition `s % partitions`**: the same halves the L2 request coalescer
//!   works in (`read_coalescer.rs`: reads of CTAs an even number apart merge, of adjacent
//!   CTAs never, with CTAs dealt to SMs in order).
//! - **A far read** (the SM's near partition is not the line's home) is looked up in the near
//!   partition first (the Nsight `srcunit_tex` lookup); what it misses is looked up in the home
//!   partition over the L2 fabric (Nsight's `lts__t_sectors_srcunit_ltcfabric`), fetched from
//!   DRAM there on a miss, and **copied into the near partition**, where the copy takes
//!   capacity like any line. Evidence: (1) a working set read by every SM behaves as if the L2
//!   were half its size (the real-size table kernel of the issue: a 24 MiB table under a
//!   256 MiB stream gets no L2 hits on the H100, with or without evict_first on the stream,
//!   which a 25 MiB single-copy L2 reproduces exactly and a 50 MiB one does not); (2) an
//!   evict-last working set that survived a normal stream in the set-aside re-reads at no more
//!   than ~70 % L2 hit rate however large the set-aside (`persisting.csv`): the near copies
//!   were normal lines the stream pushed out, so the far half of the re-reads misses near and
//!   hits home, two lookups for one hit.
//! - **A copy is never evict-last**: the persisting set-aside holds home lines only (the ~70 %
//!   cap above); evict-first and normal requests make copies of their own class.
//! - **Writes and atomics go to the home partition**; a far store also counts a fabric write.
//!   A store or atomic drops the copies other partitions hold (coherence: the whitepaper's
//!   "hardware cache-coherence"), except the writing SM's near copy, which the write passes
//!   through and updates.
//! - **A miss's fetch-granularity block** (64 B) is fetched at home and copied whole: the
//!   near partition counts the block's unrequested sectors as lookup misses as a near-homed
//!   miss does (`fetch_granularity.csv`: every pattern counts two `srcunit_tex` misses per
//!   missed sector whichever SM asked).
//!
//! With `l2_near_copies = false` every access goes to the home partition alone (one copy of
//! each line, no fabric lookups): the single-copy L2 the model was before, kept for
//! comparison.

use super::*;

/// Which partition homes a line and which one an SM is near: the addressing half of
/// [`PartitionedL2`], copied into the compiled replay loop (`engine.rs`), which holds the
/// partitions' sets apart.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PartitionMap {
    /// log2 of the partition count.
    bits: u32,
    /// Far reads leave copies in the reader's near partition (`GpuConfig::l2_near_copies`).
    near_copies: bool,
}

impl PartitionMap {
    /// The partition that homes `line`: the line number's low partition bits XOR a fold of
    /// its higher bits (neighbouring lines are homed apart; strides of whole pairs spread).
    #[inline(always)]
    pub(crate) fn home(&self, line: u64) -> usize {
        if self.bits == 0 {
            return 0;
        }
        let hi = line >> self.bits;
        let fold = hi ^ (hi >> 5) ^ (hi >> 11) ^ (hi >> 17) ^ (hi >> 23) ^ (hi >> 29);
        ((line ^ fold) & ((1 << self.bits) - 1)) as usize
    }

    /// The partition SM `sm` is near.
    #[inline(always)]
    pub(crate) fn near(&self, sm: usize) -> usize {
        sm & ((1 << self.bits) - 1)
    }

    /// The partition a read of `line` by `sm` is first looked up in, when it is not the
    /// line's home (a far read that leaves a copy): `None` for a near read, or without copies.
    #[inline(always)]
    pub(crate) fn far_near(&self, sm: usize, line: u64) -> Option<usize> {
        if !self.near_copies {
            return None;
        }
        let near = self.near(sm);
        (near != self.home(line)).then_some(near)
    }

    /// Whether far reads leave copies (and so fabric lookups are made).
    #[inline(always)]
    pub(crate) fn near_copies(&self) -> bool {
        self.near_copies
    }
}

/// The L2's partitions (a power of two, one or more).
#[derive(Clone)]
pub(crate) struct PartitionedL2 {
    parts: Vec<SectorCache>,
    map: PartitionMap,
}

impl PartitionedL2 {
    pub(crate) fn new(cfg: &GpuConfig) -> Self {
        let bits = cfg.l2_partitions.max(1).trailing_zeros();
        PartitionedL2 {
            parts: (0..1usize << bits)
                .map(|_| SectorCache::partition(&cfg.l2, bits, cfg.evict_last_ways()))
                .collect(),
            map: PartitionMap {
                bits,
                near_copies: cfg.l2_near_copies && bits > 0,
            },
        }
    }

    /// An L2 with no storage, for the SM ports (`port.rs`), whose L2 work is logged.
    pub(crate) fn empty() -> Self {
        PartitionedL2 {
            parts: vec![SectorCache::empty()],
            map: PartitionMap {
                bits: 0,
                near_copies: false,
            },
        }
    }

    /// Number of partitions.
    #[inline(always)]
    pub(crate) fn count(&self) -> usize {
        self.parts.len()
    }

    /// Which partition homes a line and which one an SM is near.
    #[inline(always)]
    pub(crate) fn map(&self) -> PartitionMap {
        self.map
    }

    /// The partition that homes `line` ([`PartitionMap::home`]).
    #[inline(always)]
    pub(crate) fn home(&self, line: u64) -> usize {
        self.map.home(line)
    }

    /// The partition SM `sm` is near.
    #[inline(always)]
    pub(crate) fn near(&self, sm: usize) -> usize {
        self.map.near(sm)
    }

    /// See [`PartitionMap::far_near`].
    #[inline(always)]
    pub(crate) fn far_near(&self, sm: usize, line: u64) -> Option<usize> {
        self.map.far_near(sm, line)
    }

    /// Whether far reads leave copies (and so fabric lookups are made).
    #[inline(always)]
    pub(crate) fn near_copies(&self) -> bool {
        self.map.near_copies()
    }

    #[inline(always)]
    pub(crate) fn part(&self, p: usize) -> &SectorCache {
        &self.parts[p]
    }

    #[inline(always)]
    pub(crate) fn part_mut(&mut self, p: usize) -> &mut SectorCache {
        &mut self.parts[p]
    }

    /// The partition that homes `line`.
    #[inline(always)]
    pub(crate) fn home_part(&self, line: u64) -> &SectorCache {
        &self.parts[self.home(line)]
    }

    /// The partition that homes `line`, for changing.
    #[inline(always)]
    pub(crate) fn home_part_mut(&mut self, line: u64) -> &mut SectorCache {
        let h = self.home(line);
        &mut self.parts[h]
    }

    /// The set of `line` (the same index in every partition).
    #[inline(always)]
    pub(crate) fn set_of(&self, line: u64) -> usize {
        self.parts[0].set_of(line)
    }

    /// Asks the host to bring the state of `line`'s set in its home partition into its caches.
    #[inline(always)]
    pub(crate) fn prefetch_line(&self, line: u64) {
        self.home_part(line).prefetch_set(self.set_of(line));
    }

    pub(crate) fn set_last_cap(&mut self, cap: u32) {
        for p in &mut self.parts {
            p.set_last_cap(cap);
        }
    }

    /// Whether every partition's sets are packed (what the compiled replay loop needs).
    pub(crate) fn is_packed(&self) -> bool {
        self.parts.iter().all(SectorCache::is_packed)
    }

    /// Lines resident by class (evict-first, normal, evict-last), copies included.
    pub(crate) fn occupancy(&self) -> [u64; 3] {
        self.parts.iter().fold([0; 3], |mut acc, p| {
            for (a, n) in acc.iter_mut().zip(p.occupancy()) {
                *a += n;
            }
            acc
        })
    }

    /// The most evict-last lines any set of any partition holds.
    pub(crate) fn max_last_lines_per_set(&self) -> u32 {
        self.parts
            .iter()
            .map(SectorCache::max_last_lines_per_set)
            .max()
            .unwrap_or(0)
    }

    /// Drops `mask` sectors of `line` from every partition but `keep` (the partitions whose
    /// copy a write updates); returns how many sectors were dropped in all, and the dirty
    /// ones among them (only a home line is ever dirty).
    pub(crate) fn drop_copies(&mut self, line: u64, mask: u8, keep: [usize; 2]) -> (u64, u8) {
        let (mut dropped, mut dirty) = (0u64, 0u8);
        for (i, p) in self.parts.iter_mut().enumerate() {
            if keep.contains(&i) {
                continue;
            }
            if let (_, Some(s)) = p.lookup(line) {
                let (d, y) = p.drop_sectors(s, mask);
                dropped += pop(d);
                dirty |= y;
            }
        }
        (dropped, dirty)
    }

    /// Every partition, for walking all resident lines.
    pub(crate) fn parts_mut(&mut self) -> &mut [SectorCache] {
        &mut self.parts
    }
}

/// What a prefetch-size fill works on in a partitioned L2 (`prefetch_fill.rs`): the missed
/// line in its home partition, and a block's other lines each in **its own** home (neighbouring
/// lines are homed apart, so a 256 B block spans both partitions). Slots handed out carry their
/// partition in the set number (`partition * sets + set`).
pub(crate) struct HomeFill<'a> {
    pub(crate) l2: &'a mut PartitionedL2,
    pub(crate) sets: usize,
}

impl HomeFill<'_> {
    /// `slot` of `line`'s home partition as this target hands slots out.
    pub(crate) fn slot_of(&self, line: u64, slot: Slot) -> Slot {
        home_slot(self.l2.home(line), self.sets, slot)
    }

    fn split(&self, s: Slot) -> (usize, Slot) {
        split_home_slot(self.sets, s)
    }
}

impl FillTarget for HomeFill<'_> {
    fn valid(&self, s: Slot) -> u8 {
        let (p, s) = self.split(s);
        self.l2.part(p).valid(s)
    }

    fn add_valid(&mut self, s: Slot, mask: u8) {
        let (p, s) = self.split(s);
        self.l2.part_mut(p).add_valid(s, mask);
    }

    fn find_or_allocate(&mut self, line: u64, hint: Hint) -> (Slot, Option<Installed>) {
        let home = self.l2.home(line);
        let (s, installed) = self.l2.part_mut(home).find_or_allocate(line, hint);
        let (set, way) = s.parts();
        (Slot::new(home * self.sets + set, way), installed)
    }
}

/// `slot` of partition `home` numbered as a prefetch fill's targets number slots across
/// partitions (`partition * sets + set`).
#[inline(always)]
pub(crate) fn home_slot(home: usize, sets: usize, slot: Slot) -> Slot {
    let (set, way) = slot.parts();
    Slot::new(home * sets + set, way)
}

/// The inverse of [`home_slot`]: a prefetch fill's slot as its partition and the slot there.
#[inline(always)]
pub(crate) fn split_home_slot(sets: usize, slot: Slot) -> (usize, Slot) {
    let (set, way) = slot.parts();
    (set / sets, Slot::new(set % sets, way))
}

/// The class a near copy of a far line is made with: never evict-last (the set-aside holds
/// home lines; module docs).
#[inline(always)]
pub(crate) fn copy_hint(hint: Hint) -> Hint {
    match hint {
        Hint::Set(EvictionClass::EvictLast) => Hint::Set(EvictionClass::Normal),
        h => h,
    }
}

impl<T: Tally, S: Sink> Work<'_, T, S> {
    /// A read of `mask` sectors of `line` by an SM near partition `near`, which is not the
    /// line's home (module docs): looked up in `near` (the copy), what it misses looked up
    /// at home over the fabric (and fetched from DRAM there on a miss), and copied into
    /// `near` with its fetch-granularity block. Returns the sectors that went to DRAM (what
    /// the L2 request coalescer sees pending: a near miss the home partition answers is an L2
    /// hit's latency away, not a fill to join; `triton.rotary` on the H100: the CTAs of the
    /// half that found the line at home never merge).
    #[inline(never)]
    pub(super) fn far_read(&mut self, route: &Route, near: usize, line: u64, mask: u8) -> u8 {
        let sb = self.geo.sector_bytes;
        let first_sector = u64::from(mask.trailing_zeros());
        let hint = self.l2_hint_for(route, (line << self.geo.line_shift) + first_sector * sb);
        let set = self.l2_set(line);
        // 1. The near partition: the copy.
        let a = self
            .l2
            .part_mut(near)
            .access(set, line, mask, copy_hint(hint), Fill::Valid);
        if a.installed {
            if let Some(ev) = a.evicted() {
                self.count_l2_eviction(ev);
            }
            self.bump(|c| {
                c.l2.allocations += 1;
                c.l2.copy_allocations += 1;
            });
        }
        let hit = a.held & mask;
        let miss = mask & !hit;
        let (nh, nm) = (pop(hit), pop(miss));
        self.bump(|c| {
            c.l2.read_sectors += nh + nm;
            c.l2.read_hits += nh;
            c.l2.read_misses += nm;
        });
        self.tally.l2(nh, nm);
        self.tally.reached(2);
        if miss == 0 {
            return 0;
        }
        // The block the miss asks the home partition for: the fetch granularity's (or the
        // prefetch size's, up to a line) aligned block around each missed sector.
        let line_bytes = 1u64 << self.geo.line_shift;
        let block = u64::from(route.prefetch_bytes).min(line_bytes);
        let want = if block > sb {
            block_sectors(miss, block, sb) & self.geo.full_mask
        } else {
            miss
        };
        if let Some(slot) = a.slot() {
            let part = self.l2.part_mut(near);
            let extra = want & !part.valid(slot);
            part.add_valid(slot, extra);
            self.bump(|c| c.l2.copy_fills += pop(extra));
        }
        // 2. The home partition, over the fabric.
        let h = self.l2_home_access(line, want, hint, Fill::Valid);
        let fetched = want & !h.held;
        let nf = pop(fetched);
        self.bump(|c| {
            c.l2.fabric_read_hits += pop(want) - nf;
            c.l2.fabric_read_misses += nf;
            c.l2.sector_fills += pop(fetched & miss);
            c.dram.bytes_read += nf * sb;
        });
        if nf != 0 {
            self.tally.dram(nf, 0);
            self.tally.reached(3);
            if u64::from(route.prefetch_bytes) > line_bytes {
                // A block beyond the line (`.L2::256B`): the neighbour line, filled at home.
                let slot = h.slot().unwrap_or(Slot::NONE);
                self.prefetch_fill(line, slot, fetched, hint, route.prefetch_bytes);
            }
        }
        miss & fetched
    }

    /// A store's or atomic's `mask` sectors of `line`, done at the home partition: the fabric
    /// write of a far SM is counted, and the copies other partitions hold are dropped (the
    /// writer's near copy, which the write passed through, stays).
    #[inline(always)]
    pub(super) fn write_coherence(&mut self, line: u64, mask: u8) {
        if !self.l2.near_copies() {
            return;
        }
        let (home, near) = (self.l2.home(line), self.l2.near(self.sm));
        if home != near {
            self.bump(|c| c.l2.fabric_write_sectors += pop(mask));
        }
        let (dropped, _) = self.l2.drop_copies(line, mask, [home, near]);
        if dropped != 0 {
            self.bump(|c| c.l2.invalidations += dropped);
        }
    }
}
