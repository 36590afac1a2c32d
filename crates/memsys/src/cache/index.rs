//! Set indexing ([`SetIndexer`]): line number → set, by modulo (a fast-mod reciprocal) or
//! by the configured hash.

use super::*;

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
        }
    }

    #[inline(always)]
    pub(crate) fn set_of(&self, line: u64) -> u64 {
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
