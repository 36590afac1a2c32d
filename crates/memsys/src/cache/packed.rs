//! Sets of up to 16 ways ([`Packed`]): one 64-byte [`Meta`] record per set (keys, valid and
//! dirty masks, tag fingerprints) beside a dense tag array; SSE2 fingerprint compare, the
//! key byte that makes victim choice one byte-wise maximum, and the evict-last cap.

use super::*;

/// Largest associativity kept in a [`Meta`] record.
pub(super) const PACKED_WAYS: usize = 16;
pub(super) const NORMAL: u8 = EvictionClass::Normal as u8;
pub(super) const LAST: u8 = EvictionClass::EvictLast as u8;

/// One-byte fingerprint of a line number (the top byte of a multiplicative hash, so lines of
/// one set, which share their low bits, still spread over all 256 values).
#[inline(always)]
pub(super) fn fingerprint(line: u64) -> u8 {
    (line.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u8
}

/// Bit `i` set for each of the 16 bytes `b[i]` equal to `v`.
#[inline(always)]
pub(super) fn byte_matches(b: &[u8; 16], v: u8) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of the x86_64 baseline (every x86_64 target enables it), so
        // the `#[target_feature(enable = "sse2")]` function is always callable.
        unsafe { byte_matches_sse2(b, v) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut m = 0;
        for (i, &x) in b.iter().enumerate() {
            m |= u32::from(x == v) << i;
        }
        m
    }
}

/// [`byte_matches`] with one SSE2 compare and move-mask.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
pub(super) fn byte_matches_sse2(b: &[u8; 16], v: u8) -> u32 {
    use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_movemask_epi8, _mm_set1_epi8, _mm_set_epi64x};
    let x = u128::from_le_bytes(*b);
    let bytes = _mm_set_epi64x((x >> 64) as i64, x as i64);
    _mm_movemask_epi8(_mm_cmpeq_epi8(bytes, _mm_set1_epi8(v as i8))) as u32
}

/// The key byte of a way of a packed set: `(EvictLast - class) << 4 | rank`, `rank` being
/// the way's recency position (0 = most recent). The ranks of a set's ways are always a
/// permutation of `0..ways` (free ways keep theirs), so among full ways the largest key is
/// the victim: the lowest class first, then the least recently used.
#[inline(always)]
pub(super) const fn key(class: u8, rank: u8) -> u8 {
    ((LAST - class) << 4) | rank
}

/// The class in a key byte.
#[inline(always)]
pub(super) const fn key_class(k: u8) -> u8 {
    LAST - (k >> 4)
}

/// The recency position in a key byte.
#[inline(always)]
pub(super) const fn key_rank(k: u8) -> u8 {
    k & 0x0F
}

/// Every way more recent than position `r` moves one position back (the way at `r` is
/// about to take position 0). Byte-parallel: compiles to a few vector instructions.
#[inline(always)]
pub(super) fn age_below(keys: &mut [u8; 16], r: u8) {
    for k in keys.iter_mut() {
        *k += u8::from(key_rank(*k) < r);
    }
}

/// The way of `way_bits` with the largest key (ways outside `way_bits` are masked off by
/// `way_mask`, 0xFF for real ways).
#[inline(always)]
pub(super) fn max_key_way(keys: &[u8; 16], way_mask: &[u8; 16], way_bits: u32) -> usize {
    let mut masked = [0u8; 16];
    for i in 0..16 {
        masked[i] = keys[i] & way_mask[i];
    }
    let top = masked.iter().fold(0u8, |a, &b| a.max(b));
    (byte_matches(&masked, top) & way_bits).trailing_zeros() as usize
}

/// Evict-last ways of a packed set (padding ways are class normal, so they never count).
#[inline(always)]
pub(super) fn evict_last_ways(keys: &[u8; 16]) -> u32 {
    let mut high = [0u8; 16];
    for i in 0..16 {
        high[i] = keys[i] & 0xF0;
    }
    byte_matches(&high, 0).count_ones()
}

/// A set whose evict-last ways are full takes an evict-last request: the set's least recently
/// used evict-last line becomes normal (keeping its recency position), so that the request's
/// line can be evict-last. Returns whether a line was demoted (none with a cap of 0).
///
/// CUDA C++ Programming Guide, "L2 Access Management" (hitRatio example with a set-aside
/// smaller than the window): "Since the set-aside area is smaller than the window, cache lines
/// will be evicted to keep the most recently used 16KB of the 32KB data in the set-aside
/// portion of the L2 cache." The most recently used persisting lines are the ones kept; the
/// older ones leave the set-aside but stay resident as normal lines. Leaving the cache at once
/// would contradict `stream_protection.csv` (W = L2/2 read evict-last at set-aside 0, then a
/// `.cs` stream: the re-read still hits 89.6 %, so W's demoted lines stayed as normal lines).
#[inline(never)]
pub(super) fn demote_lru_last(keys: &mut [u8; 16], occupancy: &mut [u64; 4]) -> bool {
    // Evict-last keys are the ones below 16 (class nibble 0); the largest is the least recent.
    let mut lru: Option<(usize, u8)> = None;
    for (w, &k) in keys.iter().enumerate() {
        if k < 16 && lru.is_none_or(|(_, b)| k > b) {
            lru = Some((w, k));
        }
    }
    let Some((w, k)) = lru else { return false };
    keys[w] = key(NORMAL, key_rank(k));
    occupancy[LAST as usize] -= 1;
    occupancy[NORMAL as usize] += 1;
    true
}

/// Everything about one set of up to 16 ways except the tags: one host cache line.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
pub(super) struct Meta {
    /// Per way, its class and recency position ([`key`]); padding ways (past the last way)
    /// are class normal at position 15, which no real way of a padded set holds.
    pub(super) keys: [u8; 16],
    pub(super) valid: [u8; 16],
    pub(super) dirty: [u8; 16],
    pub(super) fingerprint: [u8; 16],
}

/// Tags per host cache line.
pub(super) const TAGS_PER_HOST_LINE: usize = 8;

/// Sets of up to 16 ways.
#[derive(Clone)]
pub(crate) struct Packed {
    pub(super) ways: usize,
    pub(super) meta: Vec<Meta>,
    /// `ways` tags per set, set after set, from `tags[tag_base]`, which is 64-byte aligned
    /// (so a set of 8 or 16 ways spans exactly one or two host cache lines).
    pub(super) tags: Vec<u64>,
    pub(super) tag_base: usize,
    /// Bit `w` set for each real way `w`.
    pub(super) way_bits: u32,
    /// 0xFF for each real way.
    pub(super) way_mask: [u8; 16],
    /// Most evict-last lines one set may hold (checked only when below `ways`).
    pub(super) last_cap: u32,
    pub(super) occupancy: [u64; 4],
}

impl Packed {
    pub(super) fn new(sets: usize, ways: usize, last_cap: u32) -> Self {
        let keys = std::array::from_fn(|w| {
            if w < ways {
                key(NORMAL, w as u8)
            } else {
                key(NORMAL, 15)
            }
        });
        let meta = Meta {
            keys,
            valid: [0; 16],
            dirty: [0; 16],
            fingerprint: [0; 16],
        };
        let tags = vec![INVALID; sets * ways + TAGS_PER_HOST_LINE - 1];
        // The first 64-byte boundary in the allocation (the offset is a hint for speed only).
        let misalign = (tags.as_ptr() as usize / 8) % TAGS_PER_HOST_LINE;
        let tag_base = (TAGS_PER_HOST_LINE - misalign) % TAGS_PER_HOST_LINE;
        Self {
            ways,
            meta: vec![meta; sets],
            tags,
            tag_base,
            way_bits: ((1u64 << ways) - 1) as u32,
            way_mask: std::array::from_fn(|w| if w < ways { 0xFF } else { 0 }),
            last_cap,
            occupancy: [0; 4],
        }
    }

    #[inline(always)]
    pub(super) fn tag(&self, set: usize, way: usize) -> u64 {
        self.tags[self.tag_base + set * self.ways + way]
    }

    #[inline(always)]
    pub(super) fn set_tag(&mut self, set: usize, way: usize, line: u64) {
        self.tags[self.tag_base + set * self.ways + way] = line;
    }

    /// Whether an evict-last request in a set with `keys` is over the carve-out.
    #[inline(always)]
    pub(super) fn over_cap(&self, keys: &[u8; 16]) -> bool {
        (self.last_cap as usize) < self.ways && evict_last_ways(keys) >= self.last_cap
    }

    /// The valid sectors of a slot.
    #[inline(always)]
    pub(crate) fn valid(&self, s: Slot) -> u8 {
        self.meta[s.set].valid[s.way % PACKED_WAYS]
    }

    /// Valid lines per class: `[evict_first, normal, evict_last]`.
    pub(crate) fn occupancy(&self) -> [u64; 3] {
        let o = self.occupancy;
        [o[0], o[1], o[2]]
    }

    /// Makes the sectors of `mask` of a slot valid.
    #[inline(always)]
    pub(crate) fn add_valid(&mut self, s: Slot, mask: u8) {
        self.meta[s.set].valid[s.way % PACKED_WAYS] |= mask;
    }

    /// Asks the host to bring `set`'s record and tags into its caches (a hint; never faults).
    #[inline(always)]
    pub(crate) fn prefetch(&self, set: usize) {
        prefetch(self.meta.as_ptr().wrapping_add(set).cast());
        let tags = self
            .tags
            .as_ptr()
            .wrapping_add(self.tag_base + set * self.ways);
        prefetch(tags.cast());
        prefetch(tags.wrapping_add(self.ways - 1).cast());
    }

    /// The way of `set` holding `line`, if any.
    #[inline(always)]
    pub(crate) fn find(&self, set: usize, line: u64) -> Option<usize> {
        let base = self.tag_base + set * self.ways;
        let mut z = byte_matches(&self.meta[set].fingerprint, fingerprint(line)) & self.way_bits;
        while z != 0 {
            let way = z.trailing_zeros() as usize;
            if self.tags[base + way] == line {
                return Some(way);
            }
            z &= z - 1;
        }
        None
    }

    /// Lookup, touch or allocate, and sector update in one pass over the set's record (see
    /// [`SectorCache::access`]).
    #[inline(always)]
    pub(crate) fn access(
        &mut self,
        set: usize,
        line: u64,
        mask: u8,
        hint: Hint,
        fill: Fill,
    ) -> Access {
        let Packed {
            meta,
            tags,
            tag_base,
            ways,
            way_bits,
            way_mask,
            last_cap,
            occupancy,
        } = self;
        let ways = *ways;
        let base = *tag_base + set * ways;
        let m = &mut meta[set];
        let fp = fingerprint(line);
        let mut cand = byte_matches(&m.fingerprint, fp) & *way_bits;
        let mut found = None;
        while cand != 0 {
            let way = cand.trailing_zeros() as usize;
            if tags[base + way] == line {
                found = Some(way % PACKED_WAYS);
                break;
            }
            cand &= cand - 1;
        }
        let over_cap =
            |keys: &[u8; 16]| (*last_cap as usize) < ways && evict_last_ways(keys) >= *last_cap;
        let (way, held, installed, victim, capped) = match found {
            Some(w) => {
                let held = m.valid[w] & mask;
                let k = m.keys[w];
                let old = key_class(k);
                let (class, capped) = match hint {
                    Hint::Unchanged => (old, false),
                    Hint::Set(EvictionClass::EvictLast) if old != LAST && over_cap(&m.keys) => {
                        let demoted = demote_lru_last(&mut m.keys, occupancy);
                        (if demoted { LAST } else { NORMAL }, true)
                    }
                    Hint::Set(c) => (c as u8, false),
                };
                let promoted = key(class, 0);
                if k != promoted {
                    age_below(&mut m.keys, key_rank(k));
                    m.keys[w] = promoted;
                    if class != old {
                        occupancy[old as usize & 3] -= 1;
                        occupancy[class as usize & 3] += 1;
                    }
                }
                (w, held, false, (NO_VICTIM, 0), capped)
            }
            None if fill == Fill::None => return Access::ABSENT,
            None => {
                let free = byte_matches(&m.valid, 0) & *way_bits;
                let (w, victim) = if free != 0 {
                    (free.trailing_zeros() as usize % PACKED_WAYS, (NO_VICTIM, 0))
                } else {
                    // The least recently used way of the lowest class present.
                    let w = max_key_way(&m.keys, way_mask, *way_bits) % PACKED_WAYS;
                    let class = key_class(m.keys[w]);
                    occupancy[class as usize & 3] -= 1;
                    (w, (class, m.dirty[w]))
                };
                // The carve-out counts the set as it was (a victim included).
                let mut class = hint.on_allocate();
                let mut capped = false;
                if class == EvictionClass::EvictLast && over_cap(&m.keys) {
                    capped = true;
                    if !demote_lru_last(&mut m.keys, occupancy) {
                        class = EvictionClass::Normal;
                    }
                }
                tags[base + w] = line;
                m.fingerprint[w] = fp;
                m.valid[w] = 0;
                m.dirty[w] = 0;
                let r = key_rank(m.keys[w]);
                age_below(&mut m.keys, r);
                m.keys[w] = key(class as u8, 0);
                occupancy[class as usize & 3] += 1;
                (w, 0, true, victim, capped)
            }
        };
        match fill {
            Fill::None => {}
            Fill::Valid => m.valid[way] |= mask,
            Fill::Dirty => {
                m.valid[way] |= mask;
                m.dirty[way] |= mask;
            }
            Fill::Clean => {
                m.valid[way] |= mask;
                m.dirty[way] &= !mask;
            }
        }
        Access {
            set,
            way: way as u8,
            resident: true,
            held,
            installed,
            capped,
            victim_class: victim.0,
            victim_dirty: victim.1,
        }
    }

    /// Sets the slot's class, keeping its recency rank (`system/l2_control.rs`).
    pub(super) fn set_class(&mut self, s: Slot, class: EvictionClass) {
        let way = s.way % PACKED_WAYS;
        let k = self.meta[s.set].keys[way];
        let (old, new) = (key_class(k), class as u8);
        if old != new {
            self.meta[s.set].keys[way] = key(new, key_rank(k));
            self.occupancy[old as usize & 3] -= 1;
            self.occupancy[new as usize & 3] += 1;
        }
    }

    #[inline(always)]
    pub(super) fn hit(&mut self, s: Slot, mask: u8, hint: Hint) -> (u8, bool) {
        let way = s.way % PACKED_WAYS;
        let keys = self.meta[s.set].keys;
        let h = self.meta[s.set].valid[way] & mask;
        let k = keys[way];
        let old = key_class(k);
        let mut capped = false;
        let class = match hint {
            Hint::Unchanged => old,
            Hint::Set(EvictionClass::EvictLast) if old != LAST && self.over_cap(&keys) => {
                capped = true;
                let m = &mut self.meta[s.set];
                if demote_lru_last(&mut m.keys, &mut self.occupancy) {
                    LAST
                } else {
                    NORMAL
                }
            }
            Hint::Set(c) => c as u8,
        };
        if key_rank(k) != 0 || class != old {
            let m = &mut self.meta[s.set];
            age_below(&mut m.keys, key_rank(k));
            m.keys[way] = key(class, 0);
        }
        if class != old {
            self.occupancy[old as usize & 3] -= 1;
            self.occupancy[class as usize & 3] += 1;
        }
        (h, capped)
    }

    #[inline(always)]
    pub(crate) fn allocate(
        &mut self,
        set: usize,
        line: u64,
        hint: Hint,
    ) -> (usize, Option<Evicted>, bool) {
        let m = &self.meta[set];
        let keys = m.keys;
        // The lowest free way (valid mask zero), if any.
        let free = byte_matches(&m.valid, 0) & self.way_bits;
        let (way, evicted) = if free != 0 {
            (free.trailing_zeros() as usize, None)
        } else {
            // The least recently used way of the lowest class present.
            let way = max_key_way(&keys, &self.way_mask, self.way_bits);
            let class = EvictionClass::from_u8(key_class(keys[way]));
            self.occupancy[class as usize & 3] -= 1;
            let dirty = m.dirty[way % PACKED_WAYS];
            (way, Some(Evicted { dirty, class }))
        };
        let mut class = hint.on_allocate();
        let mut capped = false;
        if class == EvictionClass::EvictLast && self.over_cap(&keys) {
            capped = true;
            if !demote_lru_last(&mut self.meta[set].keys, &mut self.occupancy) {
                class = EvictionClass::Normal;
            }
        }
        self.set_tag(set, way, line);
        let m = &mut self.meta[set];
        let w = way % PACKED_WAYS;
        m.fingerprint[w] = fingerprint(line);
        m.valid[w] = 0;
        m.dirty[w] = 0;
        let r = key_rank(m.keys[w]);
        age_below(&mut m.keys, r);
        m.keys[w] = key(class as u8, 0);
        self.occupancy[class as usize & 3] += 1;
        (way, evicted, capped)
    }

    pub(crate) fn drop_sectors(&mut self, s: Slot, mask: u8) -> (u8, u8) {
        let m = &mut self.meta[s.set];
        let w = s.way % PACKED_WAYS;
        let (valid, dirty) = (m.valid[w], m.dirty[w]);
        if valid == 0 {
            return (0, 0);
        }
        let left = valid & !mask;
        m.valid[w] = left;
        m.dirty[w] = if left == 0 { 0 } else { dirty & !mask };
        if left == 0 {
            // A free way is class normal (the evict-last count relies on it); it keeps its
            // recency position, which does not matter, as a free way is always chosen first.
            let k = m.keys[w];
            m.keys[w] = key(NORMAL, key_rank(k));
            self.occupancy[key_class(k) as usize & 3] -= 1;
            self.set_tag(s.set, s.way, INVALID);
        }
        (valid & mask, dirty & mask)
    }

    pub(super) fn class(&self, s: Slot) -> u8 {
        key_class(self.meta[s.set].keys[s.way % PACKED_WAYS])
    }
}
