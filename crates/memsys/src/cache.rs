//! One sectored, set-associative cache level, laid out for trace replay speed.
//!
//! Each set is one contiguous, 64-byte-aligned block of 64-bit words, so a lookup touches one
//! to three host cache lines (4 ways: one; 16 ways: three) and the next access's set can be
//! prefetched ([`SectorCache::prefetch_set`]):
//!
//! | words | what |
//! |---|---|
//! | `ways` rounded up to 4 | tags (line numbers); [`INVALID`] for a free way, [`PAD`] past the last way |
//! | 1 | recency order (up to 16 ways): nibble `i` is the way at recency position `i`, 0 = most recent |
//! | 1 | bits 0..32: the class of the way at each recency position (2 bits each, 3 past the last way); bits 32..48: which ways hold a line |
//! | `ways / 8` rounded up | valid-sector masks, one byte per way |
//! | `ways / 8` rounded up | dirty-sector masks, one byte per way |
//!
//! Keeping classes in recency order makes victim choice O(1) bit arithmetic: an invalid way if
//! there is one (the lowest), else the least-recently-used line of the lowest class
//! (evict-first < normal < evict-last) is the highest recency position whose class field
//! equals the lowest class present. Promotion moves one nibble and one class field to the
//! front. The order is exact LRU: it is the order a per-access stamp would give.
//!
//! Caches of more than 16 ways keep the order and the classes as byte arrays beside the blocks
//! (the same semantics, linear-time operations).
//!
//! L1 keeps an optional copy of the data (`ways * sets * line_bytes` bytes); L2 is the point of
//! coherence and reads the global image.

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

/// Where a line lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Slot {
    pub set: usize,
    pub way: usize,
}

/// Tag of a free way. Line numbers are addresses shifted right by at least 2 bits, so they
/// never reach `u64::MAX - 1`.
const INVALID: u64 = u64::MAX;
/// Tag of the padding ways that round a set up to a multiple of four tags; never matches.
const PAD: u64 = u64::MAX - 1;

/// Largest associativity kept in the packed (nibble) recency order.
const PACKED_WAYS: usize = 16;
const NIBBLES: u64 = 0x1111_1111_1111_1111;
const FIELDS: u32 = 0x5555_5555;

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

/// Bit `w` set for each tag of `tags` equal to `line` (`N` a multiple of 4; written so the
/// compiler turns it into vector compares).
#[inline(always)]
fn match_mask<const N: usize>(tags: &[u64; N], line: u64) -> u64 {
    let mut m = 0u64;
    for (w, &t) in tags.iter().enumerate() {
        m |= u64::from(t == line) << w;
    }
    m
}

/// Position (0 = most recent) of `way` in a packed order whose unused nibbles are 0xF.
#[inline(always)]
fn packed_position(order: u64, way: usize) -> usize {
    let x = order ^ (way as u64).wrapping_mul(NIBBLES);
    let t = x | (x >> 1);
    let t = t | (t >> 2);
    ((!t & NIBBLES).trailing_zeros() / 4) as usize
}

/// Bit `2p` set for each recency position `p` whose class field equals `class`.
#[inline(always)]
fn class_fields(classes: u32, class: u32) -> u32 {
    let x = classes ^ class.wrapping_mul(FIELDS);
    !(x | (x >> 1)) & FIELDS
}

pub(crate) struct SectorCache {
    ways: usize,
    /// `ways` rounded up to a multiple of 4 (tags per block).
    tag_words: usize,
    /// Words per set block (a multiple of 8, so blocks are 64-byte aligned).
    stride: usize,
    /// First word of set 0 in `words` (aligns the blocks to 64 bytes).
    start: usize,
    /// Word offsets inside a block.
    order_at: usize,
    meta_at: usize,
    valid_at: usize,
    dirty_at: usize,
    indexer: SetIndexer,
    line_bytes: usize,
    words: Vec<u64>,
    /// More than 16 ways: recency order (way per position) and class per position, `ways`
    /// bytes per set.
    wide_order: Vec<u8>,
    wide_class: Vec<u8>,
    /// Most evict-last lines one set may hold; the count is only needed when it is below
    /// `ways`.
    last_cap: u32,
    /// Valid lines per class.
    occupancy: [u64; 3],
    /// `sets * ways * line_bytes` bytes when the level keeps data, else empty.
    data: Vec<u8>,
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
        let packed = ways <= PACKED_WAYS;
        let tag_words = ways.div_ceil(4) * 4;
        let byte_words = tag_words.div_ceil(8);
        let order_at = tag_words;
        let meta_at = order_at + 1;
        let valid_at = meta_at + 1;
        let dirty_at = valid_at + byte_words;
        let stride = (dirty_at + byte_words).div_ceil(8) * 8;
        let mut words = vec![0u64; sets * stride + 8];
        // Align set 0 (and so every block) to 64 bytes.
        let start = (words.as_ptr() as usize).wrapping_neg() / 8 % 8;
        // Packed: identity order, class normal, 0xF / 3 past the last way. Wide: the order word
        // is the occupied-ways mask (the order and classes live in `wide_*`).
        let mut order = if packed { u64::MAX } else { 0 };
        let mut classes = u32::MAX;
        if packed {
            for p in 0..ways {
                order &= !(0xF << (4 * p));
                order |= (p as u64) << (4 * p);
                classes &= !(3 << (2 * p));
                classes |= (EvictionClass::Normal as u32) << (2 * p);
            }
        }
        for set in 0..sets {
            let b = start + set * stride;
            for w in 0..tag_words {
                words[b + w] = if w < ways { INVALID } else { PAD };
            }
            words[b + order_at] = order;
            words[b + meta_at] = u64::from(classes);
        }
        let (wide_order, wide_class) = if packed {
            (Vec::new(), Vec::new())
        } else {
            (
                (0..sets * ways).map(|i| (i % ways) as u8).collect(),
                vec![EvictionClass::Normal as u8; sets * ways],
            )
        };
        Self {
            ways,
            tag_words,
            stride,
            start,
            order_at,
            meta_at,
            valid_at,
            dirty_at,
            indexer,
            line_bytes,
            words,
            wide_order,
            wide_class,
            last_cap,
            occupancy: [0; 3],
            data: if keep_data {
                vec![0; sets * ways * line_bytes]
            } else {
                Vec::new()
            },
        }
    }

    #[inline(always)]
    fn packed(&self) -> bool {
        self.ways <= PACKED_WAYS
    }

    #[inline(always)]
    fn block(&self, set: usize) -> usize {
        self.start + set * self.stride
    }

    /// The set of `line`.
    #[inline(always)]
    pub fn set_of(&self, line: u64) -> usize {
        self.indexer.set_of(line) as usize
    }

    /// Asks the host to bring `set`'s block into its caches (a hint; never faults).
    #[inline(always)]
    pub fn prefetch_set(&self, set: usize) {
        let first = self.words.as_ptr().wrapping_add(self.block(set));
        let mut off = 0;
        while off < self.stride {
            prefetch(first.wrapping_add(off));
            off += 8;
        }
    }

    /// The line's set, and its slot if it is resident.
    #[inline(always)]
    pub fn lookup(&self, line: u64) -> (usize, Option<Slot>) {
        let set = self.set_of(line);
        (set, self.find(set, line).map(|way| Slot { set, way }))
    }

    /// The way of `set` holding `line`, if any.
    #[inline(always)]
    pub fn find(&self, set: usize, line: u64) -> Option<usize> {
        let b = self.block(set);
        let tags = &self.words[b..b + self.tag_words];
        let m = match self.tag_words {
            4 => match_mask::<4>(tags.try_into().unwrap_or(&[PAD; 4]), line),
            8 => match_mask::<8>(tags.try_into().unwrap_or(&[PAD; 8]), line),
            16 => match_mask::<16>(tags.try_into().unwrap_or(&[PAD; 16]), line),
            _ => {
                let mut m = 0u64;
                for (c, chunk) in tags.chunks_exact(4).enumerate() {
                    let chunk: &[u64; 4] = chunk.try_into().unwrap_or(&[PAD; 4]);
                    m |= match_mask::<4>(chunk, line) << (4 * c);
                }
                m
            }
        };
        (m != 0).then(|| m.trailing_zeros() as usize)
    }

    #[inline(always)]
    fn byte(&self, set: usize, at: usize, way: usize) -> u8 {
        (self.words[self.block(set) + at + way / 8] >> (8 * (way % 8))) as u8
    }

    #[inline(always)]
    fn set_byte(&mut self, set: usize, at: usize, way: usize, v: u8) {
        let i = self.block(set) + at + way / 8;
        let sh = 8 * (way % 8);
        self.words[i] = (self.words[i] & !(0xFF << sh)) | (u64::from(v) << sh);
    }

    #[inline(always)]
    pub fn valid(&self, s: Slot) -> u8 {
        self.byte(s.set, self.valid_at, s.way)
    }

    #[inline(always)]
    pub fn dirty(&self, s: Slot) -> u8 {
        self.byte(s.set, self.dirty_at, s.way)
    }

    #[inline(always)]
    pub fn add_valid(&mut self, s: Slot, mask: u8) {
        let i = self.block(s.set) + self.valid_at + s.way / 8;
        self.words[i] |= u64::from(mask) << (8 * (s.way % 8));
    }

    #[inline(always)]
    pub fn set_dirty(&mut self, s: Slot, dirty: u8) {
        self.set_byte(s.set, self.dirty_at, s.way, dirty);
    }

    #[inline(always)]
    pub fn line_of(&self, s: Slot) -> u64 {
        self.words[self.block(s.set) + s.way]
    }

    pub fn class(&self, s: Slot) -> EvictionClass {
        let p = self.position(s);
        EvictionClass::from_u8(self.class_at(s.set, p))
    }

    /// Recency position of the slot's way.
    #[inline(always)]
    fn position(&self, s: Slot) -> usize {
        if self.packed() {
            packed_position(self.words[self.block(s.set) + self.order_at], s.way)
        } else {
            let o = &self.wide_order[s.set * self.ways..(s.set + 1) * self.ways];
            o.iter().position(|&w| w as usize == s.way).unwrap_or(0)
        }
    }

    #[inline(always)]
    fn class_at(&self, set: usize, p: usize) -> u8 {
        if self.packed() {
            ((self.words[self.block(set) + self.meta_at] >> (2 * p)) & 3) as u8
        } else {
            self.wide_class[set * self.ways + p]
        }
    }

    /// Moves the way at recency position `p` to the front, with class `class`.
    #[inline(always)]
    fn move_to_front(&mut self, set: usize, p: usize, way: usize, class: EvictionClass) {
        if self.packed() {
            let b = self.block(set);
            let order = self.words[b + self.order_at];
            let low = (1u64 << (4 * p)) - 1;
            self.words[b + self.order_at] =
                (order & !(low | (0xF << (4 * p)))) | ((order & low) << 4) | way as u64;
            let meta = self.words[b + self.meta_at];
            let classes = meta as u32;
            let low = (1u32 << (2 * p)) - 1;
            let classes =
                (classes & !(low | (3 << (2 * p)))) | ((classes & low) << 2) | class as u32;
            self.words[b + self.meta_at] = (meta & !0xFFFF_FFFF) | u64::from(classes);
        } else {
            let r = set * self.ways..(set + 1) * self.ways;
            let (o, c) = (&mut self.wide_order[r.clone()], &mut self.wide_class[r]);
            o.copy_within(0..p, 1);
            c.copy_within(0..p, 1);
            o[0] = way as u8;
            c[0] = class as u8;
        }
    }

    /// Valid evict-last lines in `set` (free ways are always class normal).
    #[inline]
    fn last_lines(&self, set: usize) -> u32 {
        if self.packed() {
            let classes = self.words[self.block(set) + self.meta_at] as u32;
            class_fields(classes, EvictionClass::EvictLast as u32).count_ones()
        } else {
            let c = &self.wide_class[set * self.ways..(set + 1) * self.ways];
            c.iter()
                .filter(|&&c| c == EvictionClass::EvictLast as u8)
                .count() as u32
        }
    }

    /// Whether an evict-last request for a line of `set` (not evict-last already) is over the
    /// carve-out and becomes normal.
    #[inline(always)]
    fn over_cap(&self, set: usize) -> bool {
        (self.last_cap as usize) < self.ways && self.last_lines(set) >= self.last_cap
    }

    #[inline(always)]
    fn occupied(&self, set: usize) -> u64 {
        if self.packed() {
            self.words[self.block(set) + self.meta_at] >> 32
        } else {
            let b = self.block(set);
            self.words[b + self.order_at]
        }
    }

    #[inline(always)]
    fn set_occupied(&mut self, set: usize, occ: u64) {
        let b = self.block(set);
        if self.packed() {
            let meta = self.words[b + self.meta_at];
            self.words[b + self.meta_at] = (meta & 0xFFFF_FFFF) | (occ << 32);
        } else {
            self.words[b + self.order_at] = occ;
        }
    }

    /// Marks the slot most recently used and applies the hint. Returns true when an
    /// evict-last request was turned into normal because the set's carve-out is full.
    #[inline(always)]
    pub fn touch(&mut self, s: Slot, hint: Hint) -> bool {
        let p = self.position(s);
        let old = self.class_at(s.set, p);
        let mut capped = false;
        let class = match hint {
            Hint::Unchanged => EvictionClass::from_u8(old),
            Hint::Set(EvictionClass::EvictLast)
                if old != EvictionClass::EvictLast as u8 && self.over_cap(s.set) =>
            {
                capped = true;
                EvictionClass::Normal
            }
            Hint::Set(c) => c,
        };
        if class as u8 != old {
            self.occupancy[old as usize] -= 1;
            self.occupancy[class as usize] += 1;
        }
        self.move_to_front(s.set, p, s.way, class);
        capped
    }

    /// Installs `line` in `set`, choosing a victim. The new line has no valid sectors.
    /// Returns the slot, the evicted line if any, and whether an evict-last request was
    /// capped to normal.
    #[inline]
    pub fn allocate(&mut self, set: usize, line: u64, hint: Hint) -> (Slot, Option<Evicted>, bool) {
        let all = if self.ways == 64 {
            u64::MAX
        } else {
            (1u64 << self.ways) - 1
        };
        let occ = self.occupied(set);
        let free = !occ & all;
        let (way, p) = if free != 0 {
            let way = free.trailing_zeros() as usize;
            (way, self.position(Slot { set, way }))
        } else {
            self.lru_of_lowest_class(set)
        };
        let s = Slot { set, way };
        let evicted = if free == 0 {
            let class = EvictionClass::from_u8(self.class_at(set, p));
            self.occupancy[class as usize] -= 1;
            Some(Evicted {
                dirty: self.dirty(s),
                class,
            })
        } else {
            None
        };
        let mut class = hint.on_allocate();
        let mut capped = false;
        if class == EvictionClass::EvictLast && self.over_cap(set) {
            class = EvictionClass::Normal;
            capped = true;
        }
        let b = self.block(set);
        self.words[b + way] = line;
        self.set_byte(set, self.valid_at, way, 0);
        self.set_byte(set, self.dirty_at, way, 0);
        self.set_occupied(set, occ | 1 << way);
        self.occupancy[class as usize] += 1;
        self.move_to_front(set, p, way, class);
        (s, evicted, capped)
    }

    /// The victim of a full set: the least-recently-used way of the lowest class present,
    /// with its recency position.
    #[inline(always)]
    fn lru_of_lowest_class(&self, set: usize) -> (usize, usize) {
        if self.packed() {
            let b = self.block(set);
            let classes = self.words[b + self.meta_at] as u32;
            let mut f = class_fields(classes, 0);
            if f == 0 {
                f = class_fields(classes, 1);
                if f == 0 {
                    f = class_fields(classes, 2);
                }
            }
            let p = ((31 - f.leading_zeros()) / 2) as usize;
            let way = ((self.words[b + self.order_at] >> (4 * p)) & 0xF) as usize;
            (way, p)
        } else {
            let r = set * self.ways..(set + 1) * self.ways;
            let c = &self.wide_class[r.clone()];
            let lowest = c.iter().copied().min().unwrap_or(1);
            let p = c.iter().rposition(|&x| x == lowest).unwrap_or(0);
            (self.wide_order[r][p] as usize, p)
        }
    }

    /// Drops sectors; frees the way when none is left. Returns the sectors that were valid
    /// and the dirty ones among them.
    pub fn drop_sectors(&mut self, s: Slot, mask: u8) -> (u8, u8) {
        let valid = self.valid(s);
        let dirty = self.dirty(s);
        let dropped = valid & mask;
        let dropped_dirty = dirty & mask;
        let valid = valid & !mask;
        self.set_byte(s.set, self.valid_at, s.way, valid);
        self.set_byte(s.set, self.dirty_at, s.way, dirty & !mask);
        let occ = self.occupied(s.set);
        if valid == 0 && occ & (1 << s.way) != 0 {
            let p = self.position(s);
            let class = self.class_at(s.set, p);
            let b = self.block(s.set);
            self.words[b + s.way] = INVALID;
            self.set_byte(s.set, self.dirty_at, s.way, 0);
            self.set_occupied(s.set, occ & !(1 << s.way));
            self.occupancy[class as usize] -= 1;
            // A free way is class normal (the evict-last count relies on it); its recency
            // position does not matter, as a free way is always chosen first.
            if self.packed() {
                let m = self.words[b + self.meta_at];
                let m = (m & !(3 << (2 * p))) | ((EvictionClass::Normal as u64) << (2 * p));
                self.words[b + self.meta_at] = m;
            } else {
                self.wide_class[s.set * self.ways + p] = EvictionClass::Normal as u8;
            }
        }
        (dropped, dropped_dirty)
    }

    /// The slots holding a line, set by set.
    pub fn resident_slots(&self) -> Vec<Slot> {
        let sets = self.indexer.sets as usize;
        let mut v = Vec::new();
        for set in 0..sets {
            let occ = self.occupied(set);
            for way in 0..self.ways {
                if occ & (1 << way) != 0 {
                    v.push(Slot { set, way });
                }
            }
        }
        v
    }

    /// Valid lines per class: `[evict_first, normal, evict_last]`.
    pub fn occupancy(&self) -> [u64; 3] {
        self.occupancy
    }

    /// Most evict-last lines of any one set.
    pub fn max_last_lines_per_set(&self) -> u32 {
        (0..self.indexer.sets as usize)
            .map(|set| self.last_lines(set))
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
            &[]
        } else {
            &self.data[self.data_range(s)]
        }
    }

    #[inline]
    pub fn line_data_mut(&mut self, s: Slot) -> &mut [u8] {
        if self.data.is_empty() {
            &mut []
        } else {
            let r = self.data_range(s);
            &mut self.data[r]
        }
    }

    pub fn keeps_data(&self) -> bool {
        !self.data.is_empty()
    }
}

/// Software prefetch of the host cache line holding `p` into all cache levels.
#[inline(always)]
fn prefetch(p: *const u64) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` is a hint: it never faults and never changes memory or registers,
    // whatever the address (here always inside or just past `words`), and SSE is part of the
    // x86_64 baseline, so the intrinsic's target feature is always present.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
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

    #[test]
    fn packed_position_finds_every_way() {
        // Order 3,0,2,1 in the first four nibbles, 0xF beyond.
        let order = 0xFFFF_FFFF_FFFF_1203u64;
        assert_eq!(
            [0, 1, 2, 3].map(|w| packed_position(order, w)),
            [1, 3, 2, 0]
        );
        let full = 0x0123_4567_89AB_CDEFu64;
        for w in 0..16 {
            assert_eq!(packed_position(full, w), 15 - w);
        }
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
                        c.touch(s, hint);
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
