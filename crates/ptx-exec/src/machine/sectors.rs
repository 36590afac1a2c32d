//! Requested versus ideal sectors of each global-memory instruction (Nsight Compute's
//! "ideal sectors"): how many 32-byte sectors the active lanes' accesses touch, and the fewest
//! that could hold the bytes they access. Their ratio is the coalescing a report judges: a
//! warp reading 4 bytes per lane at a 128-byte stride touches 32 sectors where 4 would do.

use super::RunSummary;
use memsys::LaneAccess;
use smallvec::SmallVec;

/// Sector size the tallies count in (every modelled GPU's L1 and L2 sector).
pub const SECTOR_BYTES: u64 = 32;

/// One instruction's sectors over a launch, summed over its warp executions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SectorTally {
    /// Distinct 32-byte sectors the lanes' accesses touch, per execution.
    pub requested: u64,
    /// The fewest sectors the distinct bytes accessed need (`ceil(bytes / 32)`), per execution.
    pub ideal: u64,
}

/// The byte ranges of a warp access merged into maximal runs `[start, end)` in address
/// order, when each lane (of at least one byte) starts at or after the start of the run
/// before it (lanes that touch or overlap that run extend it): a coalesced access is a few
/// runs, which the sector tally and counters-only mode's line notes walk instead of 32
/// lanes.
pub type ByteRuns = SmallVec<[(u64, u64); 32]>;

/// Fills `runs` with the [`ByteRuns`] of `acc` and returns true, or returns false when a
/// lane starts before the run it would join or has no bytes (the lane-by-lane paths then
/// apply).
#[inline]
pub fn byte_runs(acc: &[LaneAccess], runs: &mut ByteRuns) -> bool {
    runs.clear();
    let Some(first) = acc.first() else {
        return true;
    };
    let (mut start, mut end) = (first.addr, first.addr);
    for a in acc {
        if a.bytes == 0 || a.addr < start {
            return false;
        }
        let e = a.addr + u64::from(a.bytes);
        if a.addr > end {
            runs.push((start, end));
            start = a.addr;
        }
        // Lanes at or after `start` (in order), so only the end moves.
        end = end.max(e);
    }
    runs.push((start, end));
    true
}

/// The tally of one warp access of `acc` (one execution of the instruction).
pub fn tally(acc: &[LaneAccess]) -> SectorTally {
    tally_in(acc, &mut ByteRuns::new()).0
}

/// [`tally`], leaving the access's [`ByteRuns`] in `runs` for the caller's other walks of it
/// when it has them (the `bool`).
#[inline]
pub fn tally_in(acc: &[LaneAccess], runs: &mut ByteRuns) -> (SectorTally, bool) {
    match byte_runs(acc, runs) {
        true => (tally_runs(runs), true),
        false => (tally_lanes(acc), false),
    }
}

/// The tally of an access's [`ByteRuns`] (or of any byte ranges in order of their starts).
#[inline]
fn tally_runs(runs: &[(u64, u64)]) -> SectorTally {
    let mut m = Merge::default();
    runs.iter().for_each(|&(a, b)| m.push(a, b));
    m.tally()
}

/// The tally lane by lane: byte ranges in address order (sorted: the lanes are not), merged.
/// Ranges that start together merge the same in either order.
fn tally_lanes(acc: &[LaneAccess]) -> SectorTally {
    let mut sorted: SmallVec<[(u64, u64); 64]> = acc
        .iter()
        .filter(|a| a.bytes > 0)
        .map(|a| (a.addr, a.addr + u64::from(a.bytes)))
        .collect();
    sorted.sort_unstable();
    tally_runs(&sorted)
}

/// The tally of byte ranges `[a, b)` pushed in order of `a`.
#[derive(Default)]
struct Merge {
    bytes: u64,
    sectors: u64,
    /// End of the merged bytes so far.
    end: u64,
    /// One past the last sector counted (0: none yet).
    next_sector: u64,
}

impl Merge {
    #[inline(always)]
    fn push(&mut self, a: u64, b: u64) {
        let from = a.max(self.end);
        if b > from {
            self.bytes += b - from;
            self.end = b;
        }
        let (s0, s1) = (a / SECTOR_BYTES, (b - 1) / SECTOR_BYTES);
        let first_new = s0.max(self.next_sector);
        if s1 >= first_new {
            self.sectors += s1 - first_new + 1;
            self.next_sector = s1 + 1;
        }
    }

    fn tally(&self) -> SectorTally {
        SectorTally {
            requested: self.sectors,
            ideal: self.bytes.div_ceil(SECTOR_BYTES),
        }
    }
}

impl RunSummary {
    /// Adds one execution's tally to instruction `id`.
    pub(super) fn add_sectors(&mut self, id: u32, t: SectorTally) {
        let id = id as usize;
        if self.per_instruction_sectors.len() <= id {
            self.per_instruction_sectors
                .resize(id + 1, SectorTally::default());
        }
        let e = &mut self.per_instruction_sectors[id];
        e.requested += t.requested;
        e.ideal += t.ideal;
    }

    /// Adds another machine's tallies (a worker of the parallel phase).
    pub(super) fn merge_sectors(&mut self, other: &[SectorTally]) {
        for (id, t) in other.iter().enumerate() {
            if *t != SectorTally::default() {
                self.add_sectors(id as u32, *t);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lanes(addrs: impl Iterator<Item = u64>, bytes: u32) -> Vec<LaneAccess> {
        addrs.map(|a| LaneAccess::new(a, bytes)).collect()
    }

    #[test]
    fn coalesced_strided_and_broadcast_warps() {
        // 32 lanes x 4 B contiguous: 4 sectors, all needed.
        let t = tally(&lanes((0..32).map(|i| 4096 + 4 * i), 4));
        assert_eq!((t.requested, t.ideal), (4, 4));
        // A 128-byte stride: a sector per lane, 4 would hold the 128 bytes.
        let t = tally(&lanes((0..32).map(|i| 4096 + 128 * i), 4));
        assert_eq!((t.requested, t.ideal), (32, 4));
        // Every lane the same word: one sector, one needed.
        let t = tally(&lanes(vec![4100u64; 32].into_iter(), 4));
        assert_eq!((t.requested, t.ideal), (1, 1));
        // One contiguous run (16 B per lane from a misaligned start): the span's sectors.
        let t = tally(&lanes((0..32).map(|i| 4104 + 16 * i), 16));
        assert_eq!((t.requested, t.ideal), (17, 16));
        // Contiguous but for one lane of zero bytes: the general path, the same answer.
        let mut acc = lanes((0..32).map(|i| 4104 + 16 * i), 16);
        acc.insert(5, LaneAccess::new(4104 + 16 * 5, 0));
        let t = tally(&acc);
        assert_eq!((t.requested, t.ideal), (17, 16));
        // Unordered lanes and a misaligned 16-byte access across a sector boundary.
        let t = tally(&lanes([64u64, 0, 24].into_iter(), 16));
        assert_eq!(
            (t.requested, t.ideal),
            (3, 2),
            "0..16, 24..40, 64..80: 48 B"
        );
    }

    /// Every way lanes come (in order, out of order, overlapping, zero-byte, across sectors)
    /// against counting the distinct sectors and bytes one by one.
    #[test]
    fn tally_is_the_count_of_distinct_sectors_and_bytes() {
        let mut next = super::super::below(0x9E37_79B9_7F4A_7C15);
        for case in 0..2000 {
            let lanes = 1 + next(32) as usize;
            let base = 4096 + next(4) * 8;
            let sizes = [0u32, 1, 2, 4, 8, 16];
            let acc: Vec<LaneAccess> = (0..lanes as u64)
                .map(|l| {
                    let bytes = sizes[next(6) as usize];
                    let addr = match case % 3 {
                        0 => base + l * 16 + next(2) * 4,
                        1 => base + next(512),
                        _ => base + (lanes as u64 - l) * 24,
                    };
                    LaneAccess::new(addr, bytes)
                })
                .collect();
            let mut bytes = std::collections::BTreeSet::new();
            for a in &acc {
                bytes.extend(a.addr..a.addr + u64::from(a.bytes));
            }
            let sectors: std::collections::BTreeSet<u64> =
                bytes.iter().map(|b| b / SECTOR_BYTES).collect();
            let t = tally(&acc);
            assert_eq!(
                (t.requested, t.ideal),
                (
                    sectors.len() as u64,
                    (bytes.len() as u64).div_ceil(SECTOR_BYTES)
                ),
                "{acc:?}"
            );
        }
    }
}
