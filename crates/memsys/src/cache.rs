//! One sectored, set-associative cache level, laid out for trace replay speed.
//!
//! Up to 16 ways (every preset), a set's state other than its tags is one 64-byte, cache-line
//! aligned [`Meta`] record of four 16-byte arrays, one byte per way: the key (eviction class
//! and recency position), the valid-sector mask, the dirty-sector mask and a one-byte tag
//! fingerprint. The tags (line numbers) are in a separate dense array, `ways` per set. A
//! lookup compares all 16 fingerprints at once (one SSE2 byte compare and move-mask, SSE2
//! being part of the x86_64 baseline; a plain loop elsewhere) and reads the full tag of
//! candidates only: a miss reads no tag, a hit one. A way is free exactly when its valid mask
//! is zero (a resident line always holds a sector; the same compare finds the lowest free
//! way); its tag is then [`INVALID`].
//!
//! A way's key byte is `(evict_last - class) << 4 | rank`, where the ranks of a set's ways are
//! always a permutation of `0..ways` (0 = most recently used). Victim choice is then one
//! byte-wise maximum: a free way if there is one (the lowest), else the way with the largest
//! key, i.e. the least-recently-used line of the lowest class (evict-first < normal <
//! evict-last). Promotion to most recent adds one to every rank below the promoted way's
//! (a byte-parallel compare and subtract) and sets its key. The order is exact LRU: the order
//! a per-access stamp would give. Free ways are class normal, so the carve-out's evict-last
//! count is a count of keys with a zero class field.
//!
//! Caches of more than 16 ways ([`Wide`]) keep plain per-way arrays and linear-time order
//! operations with the same semantics.
//!
//! Files: this one holds the shared types ([`Hint`], [`Access`], [`Slot`]...) and
//! [`SectorCache`], the level's front end (data copies, read-only sectors); `cache/packed.rs`
//! the packed sets, `cache/wide.rs` the wide ones, `cache/index.rs` set indexing.
//!
//! L1 keeps an optional copy of the data (`ways * sets * line_bytes` bytes); L2 is the point of
//! coherence and reads the global image.

use serde::{Deserialize, Serialize};

use crate::config::{CacheConfig, SetHash};

mod index;
mod packed;
mod wide;

pub(crate) use index::SetIndexer;
pub(crate) use packed::Packed;
use packed::*;
use wide::*;

/// Eviction class of a resident line; ordered so the lowest is evicted first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvictionClass {
    EvictFirst = 0,
    Normal = 1,
    EvictLast = 2,
}

impl EvictionClass {
    #[inline(always)]
    const fn from_u8(v: u8) -> Self {
        match v {
            0 => Self::EvictFirst,
            2 => Self::EvictLast,
            _ => Self::Normal,
        }
    }
}

/// What an access asks for the line's class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hint {
    /// Keep a resident line's class; normal on allocation.
    Unchanged,
    Set(EvictionClass),
}

impl Hint {
    #[inline(always)]
    fn on_allocate(self) -> EvictionClass {
        match self {
            Hint::Unchanged => EvictionClass::Normal,
            Hint::Set(c) => c,
        }
    }
}

/// A line pushed out of the cache.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Evicted {
    pub dirty: u8,
    pub class: EvictionClass,
}

/// What [`SectorCache::access`] does to the line's sectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fill {
    /// Look up and touch only (no allocation, no sector change).
    None,
    /// Allocate the line if absent; the sectors of the mask become valid.
    Valid,
    /// As `Valid`, and the sectors become dirty (a write-back store).
    Dirty,
    /// As `Valid`, and the sectors become clean (a write-through store).
    Clean,
}

/// What [`SectorCache::access`] found and did: a few scalars, so that it lives in registers
/// on the replay path.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Access {
    set: usize,
    /// The line's way, when `resident`.
    way: u8,
    /// The line is resident after the access (it was, or it was installed).
    resident: bool,
    /// The sectors of the mask the line held before.
    pub held: u8,
    /// The line was installed (it was absent).
    pub installed: bool,
    /// An evict-last request found the set's evict-last ways full (its least recently used
    /// evict-last line was made normal for it: `packed::demote_lru_last`).
    pub capped: bool,
    /// The class of the line it replaced ([`EvictionClass`] as a number), [`NO_VICTIM`] if
    /// none: a counter array indexed by it has a spare fourth entry, so victims are counted
    /// without a branch.
    pub victim_class: u8,
    /// The dirty sectors of the line it replaced (none if there was no victim).
    pub victim_dirty: u8,
}

/// [`Access::victim_class`] when no line was replaced.
pub(crate) const NO_VICTIM: u8 = 3;

impl Access {
    /// An access that found nothing and installed nothing.
    const ABSENT: Access = Access {
        set: 0,
        way: 0,
        resident: false,
        held: 0,
        installed: false,
        capped: false,
        victim_class: NO_VICTIM,
        victim_dirty: 0,
    };

    /// The line's slot (none when absent and not allocated).
    #[inline(always)]
    pub fn slot(&self) -> Option<Slot> {
        self.resident.then_some(Slot {
            set: self.set,
            way: usize::from(self.way),
        })
    }

    /// The line it replaced, if any.
    #[inline(always)]
    pub fn evicted(&self) -> Option<Evicted> {
        (self.victim_class != NO_VICTIM).then_some(Evicted {
            dirty: self.victim_dirty,
            class: EvictionClass::from_u8(self.victim_class),
        })
    }
}

/// Where a line lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Slot {
    set: usize,
    way: usize,
}

impl Slot {
    /// Stands for "no line" where an access that fills always has one (never used to index).
    pub const NONE: Slot = Slot { set: 0, way: 0 };

    pub(crate) fn new(set: usize, way: usize) -> Self {
        Slot { set, way }
    }

    /// The slot's set and way.
    pub(crate) fn parts(self) -> (usize, usize) {
        (self.set, self.way)
    }
}

/// Tag of a free way. Line numbers are addresses shifted right by at least 2 bits, so they
/// never reach `u64::MAX`.
const INVALID: u64 = u64::MAX;

#[derive(Clone)]
enum Sets {
    Packed(Packed),
    Wide(Wide),
}

#[derive(Clone)]
pub(crate) struct SectorCache {
    sets: Sets,
    indexer: SetIndexer,
    ways: usize,
    line_bytes: usize,
    /// `sets * ways * line_bytes` bytes once the level keeps data and a line's copy was first
    /// written (`line_data_mut`), else empty: an SM whose accesses all bypass its L1
    /// (`cp.async.cg`, `.cg` loads) never zeroes the megabytes of an L1's copies.
    data: Vec<u8>,
    /// Whether the level keeps a copy of each line's bytes.
    keep_data: bool,
    /// The size of `data` once allocated: `sets * ways * line_bytes`.
    data_bytes: usize,
    /// One line of zeros: the copy of every line before `data` is allocated.
    zero_line: Vec<u8>,
    /// Per way (when the level keeps data): the sectors whose copy was filled through the
    /// read-only path (`ld.global.nc`), which the SM's own stores do not update.
    read_only: Vec<u8>,
}

impl SectorCache {
    pub fn new(cfg: &CacheConfig, last_cap: u32, keep_data: bool) -> Self {
        let sets = cfg.sets().max(1) as usize;
        let ways = (cfg.ways as usize).max(1);
        Self::build(
            SetIndexer::new(cfg.set_hash, sets as u64),
            sets,
            ways,
            cfg.line_bytes as usize,
            last_cap,
            keep_data,
        )
    }

    /// One of `2^partition_bits` equal partitions of the level `cfg` describes: a cache of
    /// `1 / 2^partition_bits` of its sets, indexed by the line number without its partition
    /// bits (`system/partitions.rs`).
    pub fn partition(cfg: &CacheConfig, partition_bits: u32, last_cap: u32) -> Self {
        let sets = (cfg.sets() >> partition_bits).max(1) as usize;
        let ways = (cfg.ways as usize).max(1);
        Self::build(
            SetIndexer::new(cfg.set_hash, sets as u64).partitioned(partition_bits),
            sets,
            ways,
            cfg.line_bytes as usize,
            last_cap,
            false,
        )
    }

    /// A cache with no storage, standing in for an SM's L1 until the SM first uses it.
    pub fn empty() -> Self {
        Self::build(SetIndexer::new(SetHash::Modulo, 1), 1, 1, 0, 0, false)
    }

    fn build(
        indexer: SetIndexer,
        sets: usize,
        ways: usize,
        line_bytes: usize,
        last_cap: u32,
        keep_data: bool,
    ) -> Self {
        Self {
            sets: if ways <= PACKED_WAYS {
                Sets::Packed(Packed::new(sets, ways, last_cap))
            } else {
                Sets::Wide(Wide::new(sets, ways, last_cap))
            },
            indexer,
            ways,
            line_bytes,
            data: Vec::new(),
            keep_data,
            data_bytes: sets * ways * line_bytes,
            zero_line: if keep_data {
                vec![0; line_bytes]
            } else {
                Vec::new()
            },
            read_only: if keep_data {
                vec![0; sets * ways]
            } else {
                Vec::new()
            },
        }
    }

    /// Changes the most evict-last lines one set may hold (resident lines keep their class).
    pub fn set_last_cap(&mut self, last_cap: u32) {
        match &mut self.sets {
            Sets::Packed(p) => p.last_cap = last_cap,
            Sets::Wide(w) => w.last_cap = last_cap,
        }
    }

    /// The sets of up to 16 ways, for the replay loop (`None` for wider caches).
    #[inline(always)]
    pub(crate) fn packed_mut(&mut self) -> Option<&mut Packed> {
        match &mut self.sets {
            Sets::Packed(p) => Some(p),
            Sets::Wide(_) => None,
        }
    }

    /// Whether the sets are [`Packed`].
    pub(crate) fn is_packed(&self) -> bool {
        matches!(self.sets, Sets::Packed(_))
    }

    /// Number of sets.
    pub(crate) fn sets(&self) -> usize {
        self.indexer.sets as usize
    }

    /// The cache's line-to-set map.
    #[inline(always)]
    pub(crate) fn indexer(&self) -> SetIndexer {
        self.indexer
    }

    /// The set of `line`.
    #[inline(always)]
    pub fn set_of(&self, line: u64) -> usize {
        self.indexer.set_of(line) as usize
    }

    /// Asks the host to bring `set`'s state into its caches (a hint; never faults).
    #[inline(always)]
    pub fn prefetch_set(&self, set: usize) {
        if let Sets::Packed(p) = &self.sets {
            p.prefetch(set);
        }
    }

    /// The line's set, and its slot if it is resident.
    #[inline(always)]
    pub fn lookup(&self, line: u64) -> (usize, Option<Slot>) {
        self.lookup_in(self.set_of(line), line)
    }

    /// [`SectorCache::lookup`] with the line's set already known.
    #[inline(always)]
    pub fn lookup_in(&self, set: usize, line: u64) -> (usize, Option<Slot>) {
        let way = match &self.sets {
            Sets::Packed(p) => p.find(set, line),
            Sets::Wide(w) => w.find(set, line),
        };
        (set, way.map(|way| Slot { set, way }))
    }

    #[inline(always)]
    pub fn valid(&self, s: Slot) -> u8 {
        match &self.sets {
            Sets::Packed(p) => p.valid(s),
            Sets::Wide(w) => w.valid[s.set * w.ways + s.way],
        }
    }

    #[inline(always)]
    pub fn dirty(&self, s: Slot) -> u8 {
        match &self.sets {
            Sets::Packed(p) => p.meta[s.set].dirty[s.way % PACKED_WAYS],
            Sets::Wide(w) => w.dirty[s.set * w.ways + s.way],
        }
    }

    #[inline(always)]
    pub fn add_valid(&mut self, s: Slot, mask: u8) {
        match &mut self.sets {
            Sets::Packed(p) => p.add_valid(s, mask),
            Sets::Wide(w) => w.valid[s.set * w.ways + s.way] |= mask,
        }
    }

    #[inline(always)]
    pub fn set_dirty(&mut self, s: Slot, dirty: u8) {
        match &mut self.sets {
            Sets::Packed(p) => p.meta[s.set].dirty[s.way % PACKED_WAYS] = dirty,
            Sets::Wide(w) => w.dirty[s.set * w.ways + s.way] = dirty,
        }
    }

    pub fn line_of(&self, s: Slot) -> u64 {
        match &self.sets {
            Sets::Packed(p) => p.tag(s.set, s.way),
            Sets::Wide(w) => w.tags[s.set * w.ways + s.way],
        }
    }

    pub fn class(&self, s: Slot) -> EvictionClass {
        EvictionClass::from_u8(match &self.sets {
            Sets::Packed(p) => p.class(s),
            Sets::Wide(w) => w.class(s),
        })
    }

    /// Looks `line` up in `set`. If resident: marks it most recently used and applies the
    /// hint. If absent and `fill` is not [`Fill::None`]: installs it (choosing a victim) with
    /// the hint's class on allocation. Then applies `fill` to the sectors of `mask`.
    #[inline(always)]
    pub fn access(&mut self, set: usize, line: u64, mask: u8, hint: Hint, fill: Fill) -> Access {
        match &mut self.sets {
            Sets::Packed(p) => p.access(set, line, mask, hint, fill),
            Sets::Wide(_) => self.access_composed(set, line, mask, hint, fill),
        }
    }

    /// [`SectorCache::access`] from the separate operations (caches of more than 16 ways).
    #[cold]
    fn access_composed(
        &mut self,
        set: usize,
        line: u64,
        mask: u8,
        hint: Hint,
        fill: Fill,
    ) -> Access {
        let (_, found) = self.lookup_in(set, line);
        let mut out = Access::ABSENT;
        let s = match found {
            Some(s) => {
                (out.held, out.capped) = self.hit(s, mask, hint);
                s
            }
            None if fill == Fill::None => return out,
            None => {
                let (s, evicted, capped) = self.allocate(set, line, hint);
                (out.capped, out.installed) = (capped, true);
                if let Some(ev) = evicted {
                    (out.victim_class, out.victim_dirty) = (ev.class as u8, ev.dirty);
                }
                s
            }
        };
        (out.set, out.way, out.resident) = (s.set, s.way as u8, true);
        match fill {
            Fill::None => {}
            Fill::Valid => self.add_valid(s, mask),
            Fill::Dirty => {
                self.add_valid(s, mask);
                let d = self.dirty(s);
                self.set_dirty(s, d | mask);
            }
            Fill::Clean => {
                self.add_valid(s, mask);
                let d = self.dirty(s);
                self.set_dirty(s, d & !mask);
            }
        }
        out
    }

    /// The sectors of `mask` the slot holds; then marks the slot most recently used and
    /// applies the hint. The flag is true when an evict-last request found the set's carve-out
    /// full (see [`Access::capped`]).
    #[inline(always)]
    pub fn hit(&mut self, s: Slot, mask: u8, hint: Hint) -> (u8, bool) {
        match &mut self.sets {
            Sets::Packed(p) => p.hit(s, mask, hint),
            Sets::Wide(w) => w.hit(s, mask, hint),
        }
    }

    /// Installs `line` in `set`, choosing a victim. The new line has no valid sectors (the
    /// caller adds some before anything else looks at the set). Returns the slot, the evicted
    /// line if any, and whether an evict-last request was capped to normal.
    #[inline(always)]
    pub fn allocate(&mut self, set: usize, line: u64, hint: Hint) -> (Slot, Option<Evicted>, bool) {
        let (way, evicted, capped) = match &mut self.sets {
            Sets::Packed(p) => p.allocate(set, line, hint),
            Sets::Wide(w) => w.allocate(set, line, hint),
        };
        (Slot { set, way }, evicted, capped)
    }

    /// Sets a resident line's eviction class without touching its recency (applypriority,
    /// the persisting reset: `system/l2_control.rs`).
    pub fn set_class(&mut self, s: Slot, class: EvictionClass) {
        match &mut self.sets {
            Sets::Packed(p) => p.set_class(s, class),
            Sets::Wide(w) => w.set_class(s, class),
        }
    }

    /// Drops sectors; frees the way when none is left. Returns the sectors that were valid
    /// and the dirty ones among them.
    pub fn drop_sectors(&mut self, s: Slot, mask: u8) -> (u8, u8) {
        match &mut self.sets {
            Sets::Packed(p) => p.drop_sectors(s, mask),
            Sets::Wide(w) => w.drop_sectors(s, mask),
        }
    }

    /// The slots holding a line, set by set.
    pub fn resident_slots(&self) -> Vec<Slot> {
        let mut v = Vec::new();
        for set in 0..self.indexer.sets as usize {
            for way in 0..self.ways {
                let s = Slot { set, way };
                if self.valid(s) != 0 {
                    v.push(s);
                }
            }
        }
        v
    }

    /// Valid lines per class: `[evict_first, normal, evict_last]`.
    pub fn occupancy(&self) -> [u64; 3] {
        let o = match &self.sets {
            Sets::Packed(p) => p.occupancy,
            Sets::Wide(w) => w.occupancy,
        };
        [o[0], o[1], o[2]]
    }

    /// Most evict-last lines of any one set.
    pub fn max_last_lines_per_set(&self) -> u32 {
        (0..self.indexer.sets as usize)
            .map(|set| match &self.sets {
                Sets::Packed(p) => evict_last_ways(&p.meta[set].keys),
                Sets::Wide(w) => {
                    let c = &w.class[set * w.ways..(set + 1) * w.ways];
                    c.iter().filter(|&&x| x == LAST).count() as u32
                }
            })
            .max()
            .unwrap_or(0)
    }

    #[inline]
    fn data_range(&self, s: Slot) -> std::ops::Range<usize> {
        let i = (s.set * self.ways + s.way) * self.line_bytes;
        i..i + self.line_bytes
    }

    /// The data copy of one line (empty slice when the level keeps no data).
    #[inline]
    pub fn line_data(&self, s: Slot) -> &[u8] {
        if self.data.is_empty() {
            &self.zero_line
        } else {
            &self.data[self.data_range(s)]
        }
    }

    #[inline]
    pub fn line_data_mut(&mut self, s: Slot) -> &mut [u8] {
        if !self.keep_data {
            return &mut [];
        }
        if self.data.is_empty() {
            self.data = vec![0; self.data_bytes];
        }
        let r = self.data_range(s);
        &mut self.data[r]
    }

    pub fn keeps_data(&self) -> bool {
        self.keep_data
    }

    /// Records how the sectors `filled` of a line's copy were filled: through the read-only
    /// path (`read_only`) or not. Every fill of a sector sets its mark anew, so a mark never
    /// outlives the copy it describes.
    #[inline]
    pub fn mark_read_only(&mut self, s: Slot, filled: u8, read_only: bool) {
        if let Some(m) = self.read_only.get_mut(s.set * self.ways + s.way) {
            *m = if read_only { *m | filled } else { *m & !filled };
        }
    }

    /// The sectors of a line's copy that were filled through the read-only path.
    #[inline]
    pub fn read_only_sectors(&self, s: Slot) -> u8 {
        self.read_only
            .get(s.set * self.ways + s.way)
            .copied()
            .unwrap_or(0)
    }
}

/// Software prefetch of the host cache line holding `p` into all cache levels.
#[inline(always)]
fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` is a hint: it never faults and never changes memory or registers,
    // whatever the address, and SSE is part of the x86_64 baseline, so the intrinsic's target
    // feature is always present.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A level that keeps data allocates its copies at the first line written: until then
    /// every line reads as zeros, as a freshly zeroed array would, and the level still says
    /// it keeps data; a level without data has none to read.
    #[test]
    fn line_copies_are_allocated_when_first_written() {
        let cfg = crate::GpuConfig::h100().l1;
        let mut c = SectorCache::new(&cfg, cfg.ways, true);
        assert!(c.keeps_data() && c.data.is_empty());
        let (set, _) = c.lookup(7);
        let (slot, _, _) = c.allocate(set, 7, Hint::Unchanged);
        assert_eq!(c.line_data(slot), vec![0u8; cfg.line_bytes as usize]);
        c.line_data_mut(slot)[3] = 9;
        assert_eq!(
            c.data.len(),
            (cfg.sets() * u64::from(cfg.ways * cfg.line_bytes)) as usize
        );
        assert_eq!(c.line_data(slot)[3], 9);
        let (set2, _) = c.lookup(8);
        let (other, _, _) = c.allocate(set2, 8, Hint::Unchanged);
        assert!(c.line_data(other).iter().all(|&b| b == 0));
        let mut bare = SectorCache::new(&cfg, cfg.ways, false);
        let (set, _) = bare.lookup(7);
        let (slot, _, _) = bare.allocate(set, 7, Hint::Unchanged);
        assert!(!bare.keeps_data() && bare.line_data_mut(slot).is_empty());
    }

    #[test]
    fn fastmod_equals_remainder() {
        for sets in [3u64, 5, 384, 20480, 25600, 64512, 1_000_003] {
            let ix = SetIndexer::new(SetHash::XorFold, sets);
            for h in [0u64, 1, 2, 12345, 0xFFFF_FFFF, 0x8000_0000, 0xDEAD_BEEF] {
                let folded = h; // values below 2^16 fold to themselves; larger ones checked below
                let direct =
                    (folded ^ (folded >> 16) ^ (folded >> 32) ^ (folded >> 48)) & 0xFFFF_FFFF;
                assert_eq!(ix.set_of(h), direct % sets, "sets {sets} h {h}");
            }
        }
    }

    #[test]
    fn wide_fastmod_equals_remainder() {
        let mut rng = crate::rng::SplitMix64::new(7);
        for sets in [
            3u64,
            5,
            6,
            384,
            768,
            20480,
            25600,
            1_000_003,
            u64::from(u32::MAX),
        ] {
            let ix = SetIndexer::new(SetHash::Modulo, sets);
            let fixed = [
                0u64,
                1,
                sets - 1,
                sets,
                sets + 1,
                u64::MAX,
                u64::MAX - 1,
                1 << 57,
            ];
            let random = (0..2000).map(|_| rng.next_u64() >> (rng.next_u64() % 64));
            for line in fixed.into_iter().chain(random) {
                assert_eq!(ix.set_of(line), line % sets, "sets {sets} line {line}");
            }
        }
    }

    #[test]
    fn byte_matches_finds_every_byte() {
        let b: [u8; 16] = std::array::from_fn(|i| (i % 5) as u8);
        assert_eq!(byte_matches(&b, 0), 0b0000_1000_0100_0010_0001 & 0xFFFF);
        assert_eq!(byte_matches(&b, 4), 0b0100_0010_0001_0000);
        assert_eq!(byte_matches(&[7; 16], 7), 0xFFFF);
        assert_eq!(byte_matches(&[7; 16], 8), 0);
    }

    fn cfg(ways: u32, sets: u64) -> CacheConfig {
        CacheConfig {
            size_bytes: sets * u64::from(ways) * 128,
            ways,
            line_bytes: 128,
            sector_bytes: 32,
            set_hash: SetHash::Modulo,
            latency_cycles: 1,
        }
    }

    /// The victim is the least recently used line of the lowest class, in packed and wide
    /// layouts alike, checked against a stamp model.
    #[test]
    fn victims_follow_class_then_lru() {
        for ways in [1u32, 2, 3, 4, 5, 8, 12, 16, 17, 32, 64] {
            let mut c = SectorCache::new(&cfg(ways, 2), ways, false);
            let mut model: Vec<(u64, u8, u64)> = Vec::new(); // (line, class, stamp)
            let mut clock = 0u64;
            let mut rng = crate::rng::SplitMix64::new(u64::from(ways));
            for step in 0..4000u64 {
                let line = (rng.next_u64() % (3 * u64::from(ways))) * 2; // set 0
                let class = (rng.next_u64() % 3) as u8;
                let hint = Hint::Set(EvictionClass::from_u8(class));
                clock += 1;
                let (set, slot) = c.lookup(line);
                assert_eq!(set, 0);
                match slot {
                    Some(s) => {
                        c.hit(s, 0, hint);
                        let e = model.iter_mut().find(|e| e.0 == line).unwrap();
                        *e = (line, class, clock);
                    }
                    None => {
                        let (s, ev, _) = c.allocate(set, line, hint);
                        c.add_valid(s, 1);
                        if model.len() == ways as usize {
                            let v = model
                                .iter()
                                .enumerate()
                                .min_by_key(|(_, e)| (e.1, e.2))
                                .map(|(i, _)| i)
                                .unwrap();
                            let gone = model.remove(v);
                            assert_eq!(ev.map(|e| e.class as u8), Some(gone.1), "step {step}");
                        } else {
                            assert!(ev.is_none());
                        }
                        model.push((line, class, clock));
                    }
                }
                if step % 97 == 0 && !model.is_empty() {
                    // Drop one line entirely.
                    let i = (rng.next_u64() % model.len() as u64) as usize;
                    let (line, _, _) = model.remove(i);
                    let (_, s) = c.lookup(line);
                    c.drop_sectors(s.unwrap(), 0xFF);
                    assert_eq!(c.lookup(line).1, None);
                }
                let mut occ = [0u64; 3];
                for e in &model {
                    occ[e.1 as usize] += 1;
                }
                assert_eq!(c.occupancy(), occ, "ways {ways} step {step}");
            }
        }
    }
}
