//! One sectored, set-associative cache level kept in flat arrays: tags, per-way metadata
//! (valid and dirty sector masks, eviction class) and LRU stamps, plus an optional copy of the
//! data (L1 keeps one; L2 is the point of coherence and reads the global image).
//!
//! Victim choice: an invalid way if there is one, else the least-recently-used line of the
//! lowest class (evict-first < normal < evict-last).

use serde::{Deserialize, Serialize};

use crate::config::{CacheConfig, SetHash};

/// Eviction class of a resident line; ordered so the lowest is evicted first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvictionClass {
    EvictFirst = 0,
    Normal = 1,
    EvictLast = 2,
}

impl EvictionClass {
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

/// One way: its tag and state, 16 bytes, so a 16-way set is four adjacent host cache lines.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(16))]
struct Way {
    tag: u64,
    valid: u8,
    dirty: u8,
    class: u8,
    _pad: u8,
    /// Last-use time on the cache's 32-bit clock; when the clock wraps, every set's stamps are
    /// renumbered in order, so LRU order stays exact however long the run.
    stamp: u32,
}

const INVALID: u64 = u64::MAX;

impl Way {
    const EMPTY: Way = Way {
        tag: INVALID,
        valid: 0,
        dirty: 0,
        class: 1,
        _pad: 0,
        stamp: 0,
    };
}

/// Maps a line number to its set.
#[derive(Debug, Clone, Copy)]
struct SetIndexer {
    hash: SetHash,
    sets: u64,
    /// `sets - 1` when `sets` is a power of two.
    mask: Option<u64>,
    /// Lemire's fastmod constant for `sets` (used on 32-bit folded values).
    fastmod: u64,
}

impl SetIndexer {
    fn new(hash: SetHash, sets: u64) -> Self {
        let mask = sets.is_power_of_two().then(|| sets - 1);
        let fastmod = if sets > 1 {
            (u64::MAX / sets).wrapping_add(1)
        } else {
            0
        };
        Self {
            hash,
            sets,
            mask,
            fastmod,
        }
    }

    #[inline(always)]
    fn set_of(&self, line: u64) -> u64 {
        match self.hash {
            SetHash::Modulo => match self.mask {
                Some(m) => line & m,
                None => line % self.sets,
            },
            SetHash::XorFold => {
                let h = (line ^ (line >> 16) ^ (line >> 32) ^ (line >> 48)) & 0xFFFF_FFFF;
                match self.mask {
                    Some(m) => h & m,
                    None => {
                        // Lemire, Kaser, Kurz: "Faster remainder by direct computation" (2019).
                        let low = self.fastmod.wrapping_mul(h);
                        ((u128::from(low) * u128::from(self.sets)) >> 64) as u64
                    }
                }
            }
        }
    }
}

pub(crate) struct SectorCache {
    ways: usize,
    indexer: SetIndexer,
    line_bytes: usize,
    slots: Vec<Way>,
    clock: u32,
    /// Most evict-last lines one set may hold.
    last_cap: u32,
    /// Valid lines per class.
    occupancy: [u64; 3],
    /// `sets * ways * line_bytes` bytes when the level keeps data, else empty.
    data: Vec<u8>,
}

impl SectorCache {
    pub fn new(cfg: &CacheConfig, last_cap: u32, keep_data: bool) -> Self {
        let sets = cfg.sets().max(1);
        let ways = cfg.ways as usize;
        let line_bytes = cfg.line_bytes as usize;
        let mut slots = Vec::with_capacity(sets as usize * ways);
        slots.resize(sets as usize * ways, Way::EMPTY);
        let n = slots.len();
        Self {
            ways,
            indexer: SetIndexer::new(cfg.set_hash, sets),
            line_bytes,
            slots,
            clock: 0,
            last_cap,
            occupancy: [0; 3],
            data: if keep_data {
                vec![0; n * line_bytes]
            } else {
                Vec::new()
            },
        }
    }

    /// A cache with no storage, standing in for an SM's L1 until the SM first uses it.
    pub fn empty() -> Self {
        Self {
            ways: 1,
            indexer: SetIndexer::new(SetHash::Modulo, 1),
            line_bytes: 0,
            slots: vec![Way::EMPTY],
            clock: 0,
            last_cap: 0,
            occupancy: [0; 3],
            data: Vec::new(),
        }
    }

    /// First slot of the line's set, and the slot holding the line if it is resident.
    #[inline(always)]
    pub fn lookup(&self, line: u64) -> (usize, Option<usize>) {
        let base = self.indexer.set_of(line) as usize * self.ways;
        let set = &self.slots[base..base + self.ways];
        for (w, way) in set.iter().enumerate() {
            if way.tag == line {
                return (base, Some(base + w));
            }
        }
        (base, None)
    }

    #[inline(always)]
    pub fn valid(&self, slot: usize) -> u8 {
        self.slots[slot].valid
    }

    #[inline(always)]
    pub fn dirty(&self, slot: usize) -> u8 {
        self.slots[slot].dirty
    }

    #[inline(always)]
    pub fn class(&self, slot: usize) -> EvictionClass {
        EvictionClass::from_u8(self.slots[slot].class)
    }

    #[inline(always)]
    pub fn line_of(&self, slot: usize) -> u64 {
        self.slots[slot].tag
    }

    /// Makes `slot` the most recently used way of its set.
    #[inline(always)]
    fn promote(&mut self, slot: usize) {
        if self.clock == u32::MAX {
            self.renumber();
        }
        self.clock += 1;
        self.slots[slot].stamp = self.clock;
    }

    /// Renumbers every set's stamps `1..=ways` in LRU order and restarts the clock after them.
    #[cold]
    fn renumber(&mut self) {
        let ways = self.ways;
        let mut order: Vec<usize> = Vec::with_capacity(ways);
        for set in self.slots.chunks_mut(ways) {
            order.clear();
            order.extend(0..ways);
            order.sort_by_key(|&w| set[w].stamp);
            for (rank, &w) in order.iter().enumerate() {
                set[w].stamp = rank as u32 + 1;
            }
        }
        self.clock = ways as u32;
    }

    /// Marks the slot most recently used and applies the hint. Returns true when an
    /// evict-last request was turned into normal because the set's carve-out is full.
    #[inline(always)]
    pub fn touch(&mut self, slot: usize, hint: Hint) -> bool {
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
                class = EvictionClass::Normal;
                capped = true;
            }
        }
        if class as u8 != old {
            self.occupancy[old as usize] -= 1;
            self.occupancy[class as usize] += 1;
            self.slots[slot].class = class as u8;
        }
        capped
    }

    fn last_lines_in_set(&self, base: usize) -> u32 {
        if self.last_cap as usize >= self.ways {
            return 0; // no cap (L1): the count is never needed
        }
        self.slots[base..base + self.ways]
            .iter()
            .filter(|w| w.tag != INVALID && w.class == EvictionClass::EvictLast as u8)
            .count() as u32
    }

    /// Installs `line` in its set (whose first slot is `base`), choosing a victim. The new line
    /// has no valid sectors. Returns the slot, the evicted line if any, and whether an
    /// evict-last request was capped to normal.
    #[inline]
    pub fn allocate(
        &mut self,
        base: usize,
        line: u64,
        hint: Hint,
    ) -> (usize, Option<Evicted>, bool) {
        let mut victim = base;
        let mut best = u64::MAX;
        for (w, way) in self.slots[base..base + self.ways].iter().enumerate() {
            // Invalid ways first, then the lowest class, then the least recently used.
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
                class: EvictionClass::from_u8(old.class),
            })
        } else {
            None
        };
        let mut class = hint.on_allocate();
        let mut capped = false;
        if class == EvictionClass::EvictLast && self.last_lines_in_set(base) >= self.last_cap {
            class = EvictionClass::Normal;
            capped = true;
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

    #[inline(always)]
    pub fn add_valid(&mut self, slot: usize, mask: u8) {
        self.slots[slot].valid |= mask;
    }

    #[inline(always)]
    pub fn set_dirty(&mut self, slot: usize, dirty: u8) {
        self.slots[slot].dirty = dirty;
    }

    /// Drops sectors; frees the way when none is left. Returns the sectors that were valid
    /// and the dirty ones among them.
    pub fn drop_sectors(&mut self, slot: usize, mask: u8) -> (u8, u8) {
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

    /// The slots holding a line.
    pub fn resident_slots(&self) -> impl Iterator<Item = usize> + '_ {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, w)| w.tag != INVALID)
            .map(|(s, _)| s)
    }

    /// Valid lines per class: `[evict_first, normal, evict_last]`.
    pub fn occupancy(&self) -> [u64; 3] {
        self.occupancy
    }

    /// Most evict-last lines of any one set.
    pub fn max_last_lines_per_set(&self) -> u32 {
        (0..self.slots.len() / self.ways)
            .map(|set| {
                self.slots[set * self.ways..(set + 1) * self.ways]
                    .iter()
                    .filter(|w| w.tag != INVALID && w.class == EvictionClass::EvictLast as u8)
                    .count() as u32
            })
            .max()
            .unwrap_or(0)
    }

    /// The data copy of one line (empty slice when the level keeps no data).
    #[inline]
    pub fn line_data(&self, slot: usize) -> &[u8] {
        if self.data.is_empty() {
            &[]
        } else {
            &self.data[slot * self.line_bytes..(slot + 1) * self.line_bytes]
        }
    }

    #[inline]
    pub fn line_data_mut(&mut self, slot: usize) -> &mut [u8] {
        if self.data.is_empty() {
            &mut []
        } else {
            &mut self.data[slot * self.line_bytes..(slot + 1) * self.line_bytes]
        }
    }

    pub fn keeps_data(&self) -> bool {
        !self.data.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
