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

#[derive(Debug, Clone, Copy, Default)]
struct Meta {
    valid: u8,
    dirty: u8,
    class: u8,
}

const INVALID: u64 = u64::MAX;

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
        let fastmod = if sets > 1 { (u64::MAX / sets).wrapping_add(1) } else { 0 };
        Self { hash, sets, mask, fastmod }
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
    tags: Vec<u64>,
    meta: Vec<Meta>,
    stamp: Vec<u64>,
    clock: u64,
    /// Most evict-last lines one set may hold.
    last_cap: u32,
    /// Valid lines per class.
    occupancy: [u64; 3],
    /// `sets * ways * line_bytes` bytes when the level keeps data, else empty.
    data: Vec<u8>,
}

impl SectorCache {
    pub fn new(cfg: &CacheConfig, last_cap: u32, keep_data: bool) -> Self {
        let sets = cfg.sets();
        let slots = (sets * u64::from(cfg.ways)) as usize;
        let line_bytes = cfg.line_bytes as usize;
        Self {
            ways: cfg.ways as usize,
            indexer: SetIndexer::new(cfg.set_hash, sets.max(1)),
            line_bytes,
            tags: vec![INVALID; slots],
            meta: vec![Meta::default(); slots],
            stamp: vec![0; slots],
            clock: 0,
            last_cap,
            occupancy: [0; 3],
            data: if keep_data { vec![0; slots * line_bytes] } else { Vec::new() },
        }
    }

    /// A cache with no storage, standing in for an SM's L1 until the SM first uses it.
    pub fn empty() -> Self {
        Self {
            ways: 1,
            indexer: SetIndexer::new(SetHash::Modulo, 1),
            line_bytes: 0,
            tags: vec![INVALID],
            meta: vec![Meta::default()],
            stamp: vec![0],
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
        let tags = &self.tags[base..base + self.ways];
        for (w, &t) in tags.iter().enumerate() {
            if t == line {
                return (base, Some(base + w));
            }
        }
        (base, None)
    }

    #[inline(always)]
    pub fn valid(&self, slot: usize) -> u8 {
        self.meta[slot].valid
    }

    #[inline(always)]
    pub fn dirty(&self, slot: usize) -> u8 {
        self.meta[slot].dirty
    }

    #[inline(always)]
    pub fn class(&self, slot: usize) -> EvictionClass {
        EvictionClass::from_u8(self.meta[slot].class)
    }

    #[inline(always)]
    pub fn line_of(&self, slot: usize) -> u64 {
        self.tags[slot]
    }

    /// Marks the slot most recently used and applies the hint. Returns true when an
    /// evict-last request was turned into normal because the set's carve-out is full.
    #[inline(always)]
    pub fn touch(&mut self, slot: usize, hint: Hint) -> bool {
        self.clock += 1;
        self.stamp[slot] = self.clock;
        match hint {
            Hint::Unchanged => false,
            Hint::Set(c) => self.set_class(slot, c),
        }
    }

    fn set_class(&mut self, slot: usize, want: EvictionClass) -> bool {
        let old = self.meta[slot].class;
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
            self.meta[slot].class = class as u8;
        }
        capped
    }

    fn last_lines_in_set(&self, base: usize) -> u32 {
        (base..base + self.ways)
            .filter(|&s| {
                self.tags[s] != INVALID && self.meta[s].class == EvictionClass::EvictLast as u8
            })
            .count() as u32
    }

    /// Installs `line` in its set (whose first slot is `base`), choosing a victim. The new line
    /// has no valid sectors. Returns the slot, the evicted line if any, and whether an
    /// evict-last request was capped to normal.
    #[inline]
    pub fn allocate(&mut self, base: usize, line: u64, hint: Hint) -> (usize, Option<Evicted>, bool) {
        let mut victim = base;
        let mut best = u128::MAX;
        for s in base..base + self.ways {
            if self.tags[s] == INVALID {
                victim = s;
                break;
            }
            let key = (u128::from(self.meta[s].class) << 64) | u128::from(self.stamp[s]);
            if key < best {
                best = key;
                victim = s;
            }
        }
        let evicted = if self.tags[victim] != INVALID {
            let m = self.meta[victim];
            self.occupancy[m.class as usize] -= 1;
            Some(Evicted {
                dirty: m.dirty,
                class: EvictionClass::from_u8(m.class),
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
        self.tags[victim] = line;
        self.meta[victim] = Meta { valid: 0, dirty: 0, class: class as u8 };
        self.occupancy[class as usize] += 1;
        self.clock += 1;
        self.stamp[victim] = self.clock;
        (victim, evicted, capped)
    }

    #[inline(always)]
    pub fn add_valid(&mut self, slot: usize, mask: u8) {
        self.meta[slot].valid |= mask;
    }

    #[inline(always)]
    pub fn set_dirty(&mut self, slot: usize, dirty: u8) {
        self.meta[slot].dirty = dirty;
    }

    /// Drops sectors; frees the way when none is left. Returns the sectors that were valid
    /// and the dirty ones among them.
    pub fn drop_sectors(&mut self, slot: usize, mask: u8) -> (u8, u8) {
        let m = &mut self.meta[slot];
        let dropped = m.valid & mask;
        let dirty = m.dirty & mask;
        m.valid &= !mask;
        m.dirty &= !mask;
        if m.valid == 0 {
            let class = m.class as usize;
            self.tags[slot] = INVALID;
            self.meta[slot] = Meta::default();
            self.occupancy[class] -= 1;
        }
        (dropped, dirty)
    }

    /// The slots holding a line.
    pub fn resident_slots(&self) -> impl Iterator<Item = usize> + '_ {
        self.tags.iter().enumerate().filter(|(_, &t)| t != INVALID).map(|(s, _)| s)
    }

    /// Valid lines per class: `[evict_first, normal, evict_last]`.
    pub fn occupancy(&self) -> [u64; 3] {
        self.occupancy
    }

    /// Most evict-last lines of any one set.
    pub fn max_last_lines_per_set(&self) -> u32 {
        (0..self.tags.len() / self.ways)
            .map(|set| self.last_lines_in_set(set * self.ways))
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
                let direct = (folded ^ (folded >> 16) ^ (folded >> 32) ^ (folded >> 48)) & 0xFFFF_FFFF;
                assert_eq!(ix.set_of(h), direct % sets, "sets {sets} h {h}");
            }
        }
    }
}
