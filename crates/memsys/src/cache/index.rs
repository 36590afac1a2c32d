//! Set indexing ([`SetIndexer`]): line number → set, by modulo (a fast-mod reciprocal) or
//! by the configured hash.

use super::*;

/// How many sets each run of `sets` lines of a partition is rotated by, times the run's
/// number (a prime, so that the rotations of successive runs do not repeat a short pattern).
const ROW_ROTATION: u64 = 7919;

/// Maps a line number to its set.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SetIndexer {
    pub(super) hash: SetHash,
    pub(super) sets: u64,
    /// `sets - 1` when `sets` is a power of two.
    pub(super) mask: Option<u64>,
    /// Lemire's fastmod constant for `sets` on 32-bit values (the folded hash).
    pub(super) fastmod: u64,
    /// The same for 64-bit values (whole line numbers, [`SetHash::Modulo`]).
    pub(super) fastmod_wide: u128,
    /// Low line-number bits that choose the L2 partition (`system/partitions.rs`) and so do
    /// not index the sets of one partition: the set is taken from `line >> partition_bits`.
    pub(super) partition_bits: u32,
}

impl SetIndexer {
    pub(super) fn new(hash: SetHash, sets: u64) -> Self {
        let mask = sets.is_power_of_two().then(|| sets - 1);
        let fastmod = if sets > 1 {
            (u64::MAX / sets).wrapping_add(1)
        } else {
            0
        };
        let fastmod_wide = if sets > 1 {
            (u128::MAX / u128::from(sets)).wrapping_add(1)
        } else {
            0
        };
        Self {
            hash,
            sets,
            mask,
            fastmod,
            fastmod_wide,
            partition_bits: 0,
        }
    }

    /// A line's number within its partition (`system/partitions.rs`): without the partition
    /// bits, and each run of `sets` consecutive lines rotated by a different number of sets,
    /// so that lines a whole partition apart do not share a set (a hashed L2 XORs higher
    /// address bits into the set index; a plain modulo would line every such run up, and with
    /// it any structure a kernel's data has at that period).
    #[inline(always)]
    fn partition_key(&self, line: u64) -> u64 {
        let key = line >> self.partition_bits;
        let row = key / self.sets.max(1);
        key.wrapping_add(row.wrapping_mul(ROW_ROTATION))
    }

    /// The indexer of one of `2^bits` partitions of a level (`system/partitions.rs`).
    pub(super) fn partitioned(mut self, bits: u32) -> Self {
        self.partition_bits = bits;
        self
    }

    #[inline(always)]
    pub(crate) fn set_of(&self, line: u64) -> u64 {
        let line = if self.partition_bits == 0 {
            line
        } else {
            self.partition_key(line)
        };
        match self.hash {
            SetHash::Modulo => match self.mask {
                Some(m) => line & m,
                None if self.sets > 1 => {
                    // `line % sets` without a 64-bit division (H100/B200 L1s have 384 sets):
                    // Lemire, Kaser, Kurz, "Faster remainder by direct computation" (2019),
                    // with a 128-bit constant for 64-bit numerators.
                    let low = self.fastmod_wide.wrapping_mul(u128::from(line));
                    let d = u128::from(self.sets);
                    (((low >> 64) * d + (((low as u64) as u128 * d) >> 64)) >> 64) as u64
                }
                None => 0,
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
