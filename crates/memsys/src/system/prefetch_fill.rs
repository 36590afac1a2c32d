//! The prefetch-size fill (`.L2::64B/128B/256B`, and the L2 fetch granularity's block): after
//! an L2 miss, the rest of the aligned block around each missed sector is filled too. Shared by
//! [`super::Work`] (the interpreter's requests) and the compiled trace-replay loop
//! (`engine.rs`), each with its own [`FillTarget`] and [`FillEvents`].

use super::*;

/// What a prefetch-size fill does besides changing L2: events for the counters of whoever
/// performs it ([`Work`], or the compiled replay loop).
pub(super) trait FillEvents {
    /// A line was pushed out to make room for a prefetched one.
    fn l2_evicted(&mut self, ev: Evicted);
    /// A line was installed for a prefetch block; `capped` when its evict-last request found
    /// the carve-out full.
    fn l2_allocated(&mut self, capped: bool);
    /// `sectors` sectors of other lines were fetched from DRAM by the prefetch.
    fn l2_prefetch_filled(&mut self, sectors: u64);
    /// `sectors` sectors of the missed line itself were fetched beyond the missed ones.
    fn l2_fetch_filled(&mut self, sectors: u64);
}

/// A prefetch-size fill after an L2 miss: the missed line (resident at `slot`), the sectors
/// that missed, the access's L2 hint and the block size.
#[derive(Debug, Clone, Copy)]
pub(super) struct PrefetchFill {
    pub(super) line: u64,
    pub(super) slot: Slot,
    pub(super) miss: u8,
    pub(super) hint: Hint,
    pub(super) block_bytes: u32,
}

/// The L2 operations a prefetch-size fill needs: a [`SectorCache`], or the replay loop's
/// view of packed sets.
pub(super) trait FillTarget {
    fn valid(&self, s: Slot) -> u8;
    fn add_valid(&mut self, s: Slot, mask: u8);
    /// The slot of `line`, installing it with `hint` when absent: the slot, and for an
    /// installed line whether it was installed, its victim and whether its evict-last hint
    /// was capped.
    fn find_or_allocate(&mut self, line: u64, hint: Hint) -> (Slot, Option<Installed>);
}

/// What installing a line did: its victim, and whether an evict-last hint was capped.
pub(super) struct Installed {
    pub(super) evicted: Option<Evicted>,
    pub(super) capped: bool,
}

impl FillTarget for SectorCache {
    #[inline]
    fn valid(&self, s: Slot) -> u8 {
        SectorCache::valid(self, s)
    }

    #[inline]
    fn add_valid(&mut self, s: Slot, mask: u8) {
        SectorCache::add_valid(self, s, mask);
    }

    #[inline]
    fn find_or_allocate(&mut self, line: u64, hint: Hint) -> (Slot, Option<Installed>) {
        match self.lookup(line) {
            (_, Some(s)) => (s, None),
            (set, None) => {
                let (slot, evicted, capped) = self.allocate(set, line, hint);
                (slot, Some(Installed { evicted, capped }))
            }
        }
    }
}

/// Spec (`.level::prefetch_size`): "a hint to fetch additional data of the specified size
/// into the respective cache level": on an L2 miss, the rest of the aligned 64/128/256 B
/// block around each missed sector is filled too (256 B blocks span two lines; the other
/// line is allocated with the access's hint if absent).
#[inline]
pub(super) fn prefetch_fill(
    l2: &mut impl FillTarget,
    geo: &Geometry,
    f: PrefetchFill,
    events: &mut impl FillEvents,
) {
    let sb = geo.sector_bytes;
    let line_bytes = 1u64 << geo.line_shift;
    let block = u64::from(f.block_bytes);
    let full = geo.full_mask;
    let fill = |l2: &mut _, slot: Slot, want: u8, own: bool, events: &mut _| {
        let extra = want & !FillTarget::valid(l2, slot);
        if extra != 0 {
            FillTarget::add_valid(l2, slot, extra);
            if own {
                FillEvents::l2_fetch_filled(events, pop(extra));
            } else {
                FillEvents::l2_prefetch_filled(events, pop(extra));
            }
        }
    };
    if block <= line_bytes {
        fill(
            l2,
            f.slot,
            block_sectors(f.miss, block, sb) & full,
            true,
            events,
        );
    } else {
        let lines = block / line_bytes;
        let first = f.line & !(lines - 1);
        for other in first..first + lines {
            if other == f.line {
                fill(l2, f.slot, full, true, events);
                continue;
            }
            let (s, installed) = l2.find_or_allocate(other, f.hint);
            if let Some(i) = installed {
                if let Some(ev) = i.evicted {
                    events.l2_evicted(ev);
                }
                events.l2_allocated(i.capped);
            }
            fill(l2, s, full, false, events);
        }
    }
}

/// The sectors of the aligned blocks of `block` bytes (at most a line) that hold a sector of
/// `miss`: what a prefetch-size fill asks for within the missed line.
#[inline(always)]
pub(super) fn block_sectors(miss: u8, block: u64, sector_bytes: u64) -> u8 {
    let per_block = (block / sector_bytes) as u32;
    let group = ((1u16 << per_block) - 1) as u8;
    let mut want = 0u8;
    let mut s = 0;
    while s < 8 {
        if miss & (group << s) != 0 {
            want |= group << s;
        }
        s += per_block;
    }
    want
}

/// [`FillEvents`] of a [`Work`]: its counters and tally.
pub(super) struct WorkEvents<'a, T: Tally, S: Sink> {
    pub(super) counters: &'a mut S,
    pub(super) tally: &'a mut T,
    pub(super) sector_bytes: u64,
}

impl<T: Tally, S: Sink> FillEvents for WorkEvents<'_, T, S> {
    #[inline]
    fn l2_evicted(&mut self, ev: Evicted) {
        let nd = pop(ev.dirty);
        let sb = self.sector_bytes;
        self.counters.apply(|c| {
            c.l2.evictions.add(ev.class);
            c.l2.writebacks += nd;
            c.dram.bytes_written += nd * sb;
        });
        self.tally.dram(0, nd);
    }

    #[inline]
    fn l2_allocated(&mut self, capped: bool) {
        self.counters.apply(|c| {
            c.l2.allocations += 1;
            c.l2.evict_last_capped += u64::from(capped);
        });
    }

    #[inline]
    fn l2_prefetch_filled(&mut self, n: u64) {
        let sb = self.sector_bytes;
        self.counters.apply(|c| {
            c.l2.prefetch_fills += n;
            c.dram.bytes_read += n * sb;
        });
        self.tally.dram(n, 0);
    }

    #[inline]
    fn l2_fetch_filled(&mut self, n: u64) {
        let sb = self.sector_bytes;
        self.counters.apply(|c| {
            c.l2.fetch_fills += n;
            c.dram.bytes_read += n * sb;
        });
        self.tally.dram(n, 0);
    }
}
