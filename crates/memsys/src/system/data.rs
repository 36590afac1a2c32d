//! Data movement: copying lane bytes out of this SM's L1 copy or the global image
//! ([`MemSystem::read_data`]), noting stale L1 copies.

use super::*;

/// `dst.copy_from_slice(src)` with the common lane sizes as fixed-size moves (a `memcpy`
/// call costs more than the copy itself for 4 or 8 bytes).
#[inline(always)]
pub(super) fn copy_small(dst: &mut [u8], src: &[u8]) {
    fn fixed<const N: usize>(dst: &mut [u8], src: &[u8]) -> bool {
        match (<&mut [u8; N]>::try_from(dst), <&[u8; N]>::try_from(src)) {
            (Ok(d), Ok(s)) => {
                *d = *s;
                true
            }
            _ => false,
        }
    }
    if !(fixed::<4>(dst, src) || fixed::<8>(dst, src) || fixed::<16>(dst, src)) {
        dst.copy_from_slice(src);
    }
}

impl MemSystem {
    /// Copies each lane's bytes into `buf`: from this SM's L1 copy for sectors that hit in L1
    /// (noting lanes whose bytes differ from the coherent value), else from the image.
    /// `alloc_of[i]` is the allocation holding lane `i`'s bytes.
    #[inline(always)]
    pub(super) fn read_data(
        &self,
        lanes: &[LaneAccess],
        alloc_of: &[u32],
        groups: &[Group],
        buf: &mut [u8],
    ) -> u64 {
        if groups.iter().all(|g| g.l1_hit == 0) {
            // No L1 copy is read: every byte comes from the coherent image.
            let mut off = 0usize;
            for (l, &a) in lanes.iter().zip(alloc_of) {
                let n = l.bytes as usize;
                copy_small(
                    &mut buf[off..off + n],
                    self.mem.bytes_in(a as usize, l.addr, n),
                );
                off += n;
            }
            return 0;
        }
        self.read_data_with_hits(lanes, groups, buf)
    }

    /// [`MemSystem::read_data`] when some sectors hit in L1, piece by sector.
    pub(super) fn read_data_with_hits(
        &self,
        lanes: &[LaneAccess],
        groups: &[Group],
        buf: &mut [u8],
    ) -> u64 {
        let line_bytes = 1u64 << self.geo.line_shift;
        let mut stale = 0u64;
        let mut off = 0usize;
        for (i, l) in lanes.iter().enumerate() {
            let mut addr = l.addr;
            let end = l.addr + u64::from(l.bytes);
            while addr < end {
                let piece_end =
                    end.min(((addr >> self.geo.sector_shift) + 1) << self.geo.sector_shift);
                let n = (piece_end - addr) as usize;
                let line = addr >> self.geo.line_shift;
                let sector =
                    (addr >> self.geo.sector_shift) & ((1 << self.geo.sectors_per_line_shift) - 1);
                let dst = &mut buf[off..off + n];
                let coherent = self.mem.bytes(addr, n).unwrap_or(&[]);
                let gi = groups.iter().position(|g| g.line == line);
                match gi {
                    Some(gi) if groups[gi].l1_hit & (1 << sector) != 0 => {
                        let start = gi * line_bytes as usize + (addr & (line_bytes - 1)) as usize;
                        dst.copy_from_slice(&self.hit_data[start..start + n]);
                        if dst != coherent {
                            stale |= 1 << i;
                        }
                    }
                    _ => dst.copy_from_slice(coherent),
                }
                off += n;
                addr = piece_end;
            }
        }
        stale
    }
}
