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

/// The tally of one warp access of `acc` (one execution of the instruction).
pub fn tally(acc: &[LaneAccess]) -> SectorTally {
    // One run of bytes (each lane starting where the one before it ended: a coalesced
    // vector access): its sectors, and all of them needed.
    if let Some((start, end)) = contiguous_span(acc) {
        return SectorTally {
            requested: (end - 1) / SECTOR_BYTES - start / SECTOR_BYTES + 1,
            ideal: (end - start).div_ceil(SECTOR_BYTES),
        };
    }
    // Byte ranges in address order (a coalesced access already is: then they are merged
    // as they come), merged. Ranges that start together merge the same in either order.
    let ranges = acc
        .iter()
        .filter(|a| a.bytes > 0)
        .map(|a| (a.addr, a.addr + u64::from(a.bytes)));
    if acc.windows(2).all(|w| w[0].addr <= w[1].addr) {
        return merged(ranges);
    }
    let mut sorted: SmallVec<[(u64, u64); 64]> = ranges.collect();
    sorted.sort_unstable();
    merged(sorted.into_iter())
}

/// `[start, end)` when the lanes of `acc` access one run of bytes, each lane (of at least one
/// byte) starting where the one before it ended.
#[inline]
pub(super) fn contiguous_span(acc: &[LaneAccess]) -> Option<(u64, u64)> {
    let first = acc.first()?;
    let mut end = first.addr;
    for a in acc {
        if a.addr != end || a.bytes == 0 {
            return None;
        }
        end += u64::from(a.bytes);
    }
    Some((first.addr, end))
}

/// The tally of byte ranges `[a, b)` in order of `a`.
#[inline(always)]
fn merged(ranges: impl Iterator<Item = (u64, u64)>) -> SectorTally {
    let (mut bytes, mut sectors) = (0u64, 0u64);
    let mut end = 0u64; // end of the merged bytes so far
    let mut last_sector = None::<u64>; // last sector counted
    for (a, b) in ranges {
        let from = a.max(end);
        if b > from {
            bytes += b - from;
            end = b;
        }
        let (s0, s1) = (a / SECTOR_BYTES, (b - 1) / SECTOR_BYTES);
        let first_new = match last_sector {
            Some(l) if l >= s0 => l + 1,
            _ => s0,
        };
        if s1 >= first_new {
            sectors += s1 - first_new + 1;
            last_sector = Some(s1);
        }
    }
    SectorTally {
        requested: sectors,
        ideal: bytes.div_ceil(SECTOR_BYTES),
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
}
