//! Sets of more than 16 ways ([`Wide`]): plain per-way arrays and linear-time order
//! operations with the packed sets' semantics.

use super::*;

/// Sets of more than 16 ways: plain arrays, linear-time order operations.
#[derive(Clone)]
pub(super) struct Wide {
    pub(super) ways: usize,
    pub(super) tags: Vec<u64>,
    pub(super) valid: Vec<u8>,
    pub(super) dirty: Vec<u8>,
    /// Per set, the way at each recency position (0 = most recent) and that way's class.
    pub(super) order: Vec<u8>,
    pub(super) class: Vec<u8>,
    pub(super) last_cap: u32,
    pub(super) occupancy: [u64; 4],
}

impl Wide {
    pub(super) fn new(sets: usize, ways: usize, last_cap: u32) -> Self {
        Self {
            ways,
            tags: vec![INVALID; sets * ways],
            valid: vec![0; sets * ways],
            dirty: vec![0; sets * ways],
            order: (0..sets * ways).map(|i| (i % ways) as u8).collect(),
            class: vec![NORMAL; sets * ways],
            last_cap,
            occupancy: [0; 4],
        }
    }

    pub(super) fn find(&self, set: usize, line: u64) -> Option<usize> {
        let base = set * self.ways;
        (0..self.ways).find(|&w| self.tags[base + w] == line)
    }

    pub(super) fn position(&self, s: Slot) -> usize {
        let base = s.set * self.ways;
        (0..self.ways)
            .find(|&p| self.order[base + p] as usize == s.way)
            .unwrap_or(0)
    }

    pub(super) fn over_cap(&self, set: usize) -> bool {
        let base = set * self.ways;
        let last = (0..self.ways)
            .filter(|&p| self.class[base + p] == LAST)
            .count();
        (self.last_cap as usize) < self.ways && last as u32 >= self.last_cap
    }

    /// [`super::packed::demote_lru_last`] on these arrays: the least recently used evict-last
    /// line of `set` becomes normal; whether there was one.
    pub(super) fn demote_lru_last(&mut self, set: usize) -> bool {
        let base = set * self.ways;
        let Some(p) = (0..self.ways).rev().find(|&p| self.class[base + p] == LAST) else {
            return false;
        };
        self.class[base + p] = NORMAL;
        self.occupancy[LAST as usize] -= 1;
        self.occupancy[NORMAL as usize] += 1;
        true
    }

    pub(super) fn move_to_front(&mut self, set: usize, p: usize, way: usize, class: u8) {
        let r = set * self.ways..(set + 1) * self.ways;
        let (o, c) = (&mut self.order[r.clone()], &mut self.class[r]);
        o.copy_within(0..p, 1);
        c.copy_within(0..p, 1);
        o[0] = way as u8;
        c[0] = class;
    }

    /// Sets the slot's class, keeping its place in the set's recency order.
    pub(super) fn set_class(&mut self, s: Slot, class: EvictionClass) {
        let p = self.position(s);
        let i = s.set * self.ways + p;
        let (old, new) = (self.class[i], class as u8);
        if old != new {
            self.class[i] = new;
            self.occupancy[old as usize & 3] -= 1;
            self.occupancy[new as usize & 3] += 1;
        }
    }

    pub(super) fn hit(&mut self, s: Slot, mask: u8, hint: Hint) -> (u8, bool) {
        let h = self.valid[s.set * self.ways + s.way] & mask;
        let p = self.position(s);
        let old = self.class[s.set * self.ways + p];
        let mut capped = false;
        let class = match hint {
            Hint::Unchanged => old,
            Hint::Set(EvictionClass::EvictLast) if old != LAST && self.over_cap(s.set) => {
                capped = true;
                if self.demote_lru_last(s.set) {
                    LAST
                } else {
                    NORMAL
                }
            }
            Hint::Set(c) => c as u8,
        };
        if class != old {
            self.occupancy[old as usize & 3] -= 1;
            self.occupancy[class as usize & 3] += 1;
        }
        self.move_to_front(s.set, p, s.way, class);
        (h, capped)
    }

    pub(super) fn allocate(
        &mut self,
        set: usize,
        line: u64,
        hint: Hint,
    ) -> (usize, Option<Evicted>, bool) {
        let base = set * self.ways;
        let (way, evicted) = match (0..self.ways).find(|&w| self.valid[base + w] == 0) {
            Some(way) => (way, None),
            None => {
                let c = &self.class[base..base + self.ways];
                let lowest = c.iter().copied().min().unwrap_or(NORMAL);
                let p = c.iter().rposition(|&x| x == lowest).unwrap_or(0);
                let way = self.order[base + p] as usize;
                let class = EvictionClass::from_u8(lowest);
                self.occupancy[class as usize & 3] -= 1;
                let dirty = self.dirty[base + way];
                (way, Some(Evicted { dirty, class }))
            }
        };
        let mut class = hint.on_allocate();
        let mut capped = false;
        if class == EvictionClass::EvictLast && self.over_cap(set) {
            capped = true;
            if !self.demote_lru_last(set) {
                class = EvictionClass::Normal;
            }
        }
        self.tags[base + way] = line;
        self.valid[base + way] = 0;
        self.dirty[base + way] = 0;
        let p = self.position(Slot { set, way });
        self.move_to_front(set, p, way, class as u8);
        self.occupancy[class as usize & 3] += 1;
        (way, evicted, capped)
    }

    pub(super) fn drop_sectors(&mut self, s: Slot, mask: u8) -> (u8, u8) {
        let i = s.set * self.ways + s.way;
        let (valid, dirty) = (self.valid[i], self.dirty[i]);
        if valid == 0 {
            return (0, 0);
        }
        let left = valid & !mask;
        self.valid[i] = left;
        self.dirty[i] = if left == 0 { 0 } else { dirty & !mask };
        if left == 0 {
            let p = self.position(s);
            let old = std::mem::replace(&mut self.class[s.set * self.ways + p], NORMAL);
            self.occupancy[old as usize & 3] -= 1;
            self.tags[i] = INVALID;
        }
        (valid & mask, dirty & mask)
    }

    pub(super) fn class(&self, s: Slot) -> u8 {
        self.class[s.set * self.ways + self.position(s)]
    }
}
