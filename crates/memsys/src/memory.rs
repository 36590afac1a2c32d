//! Global memory: the coherent image of every allocation. The L2 is the point of coherence, so
//! the bytes here are what any coherent access (L2 hit or miss alike) reads.

use crate::error::MemError;

/// Where device allocations start (a realistic 47-bit device address).
pub const GLOBAL_BASE: u64 = 0x7f00_0000_0000;
/// Allocations are padded and aligned to this, so every line and 256 B prefetch block a valid
/// access touches lies inside the allocation's storage.
const GRANULE: u64 = 256;
/// Unmapped gap between allocations, so running off the end of a buffer faults.
const GUARD: u64 = 64 * 1024;

struct Allocation {
    base: u64,
    /// Bytes requested: accesses beyond this fault.
    size: u64,
    /// `size` rounded up to the granule.
    data: Vec<u8>,
}

pub(crate) struct GlobalMemory {
    allocs: Vec<Allocation>,
    next: u64,
}

fn align_up(v: u64, a: u64) -> Option<u64> {
    v.checked_add(a - 1).map(|x| x & !(a - 1))
}

impl GlobalMemory {
    pub fn new() -> Self {
        Self {
            allocs: Vec::new(),
            next: GLOBAL_BASE,
        }
    }

    pub fn alloc(&mut self, bytes: u64, align: u64) -> Result<u64, MemError> {
        let err = |why| MemError::Alloc { bytes, align, why };
        if bytes == 0 {
            return Err(err("size must be > 0"));
        }
        if !align.is_power_of_two() {
            return Err(err("alignment must be a power of two"));
        }
        if bytes > (1 << 36) {
            return Err(err("larger than 64 GiB"));
        }
        let base = align_up(self.next, align.max(GRANULE)).ok_or(err("address space exhausted"))?;
        let padded = align_up(bytes, GRANULE).ok_or(err("size overflows"))?;
        self.next = base + padded + GUARD;
        self.allocs.push(Allocation {
            base,
            size: bytes,
            data: vec![0; padded as usize],
        });
        Ok(base)
    }

    pub fn free(&mut self, base: u64) -> Result<(), MemError> {
        match self.allocs.binary_search_by_key(&base, |a| a.base) {
            Ok(i) => {
                self.allocs.remove(i);
                Ok(())
            }
            Err(_) => Err(MemError::HostUnmapped {
                addr: base,
                bytes: 0,
            }),
        }
    }

    /// Index of the allocation holding all of `[addr, addr + len)` within its requested size.
    #[inline]
    pub fn find(&self, addr: u64, len: u64) -> Option<usize> {
        let i = match self.allocs.binary_search_by_key(&addr, |a| a.base) {
            Ok(i) => i,
            Err(0) => return None,
            Err(i) => i - 1,
        };
        let a = &self.allocs[i];
        let end = addr.checked_add(len)?;
        (addr >= a.base && end <= a.base + a.size).then_some(i)
    }

    /// Bytes at `addr` (anywhere in the padded storage of the allocation holding it).
    #[inline]
    pub fn bytes(&self, addr: u64, len: usize) -> Option<&[u8]> {
        let i = match self.allocs.binary_search_by_key(&addr, |a| a.base) {
            Ok(i) => i,
            Err(0) => return None,
            Err(i) => i - 1,
        };
        let a = &self.allocs[i];
        let off = usize::try_from(addr - a.base).ok()?;
        a.data.get(off..off.checked_add(len)?)
    }

    #[inline]
    pub fn bytes_mut(&mut self, addr: u64, len: usize) -> Option<&mut [u8]> {
        let i = match self.allocs.binary_search_by_key(&addr, |a| a.base) {
            Ok(i) => i,
            Err(0) => return None,
            Err(i) => i - 1,
        };
        let a = &mut self.allocs[i];
        let off = usize::try_from(addr - a.base).ok()?;
        a.data.get_mut(off..off.checked_add(len)?)
    }

    pub fn host_write(&mut self, addr: u64, src: &[u8]) -> Result<(), MemError> {
        let len = src.len() as u64;
        self.find(addr, len)
            .ok_or(MemError::HostUnmapped { addr, bytes: len })?;
        self.bytes_mut(addr, src.len())
            .ok_or(MemError::HostUnmapped { addr, bytes: len })?
            .copy_from_slice(src);
        Ok(())
    }

    pub fn host_read(&self, addr: u64, dst: &mut [u8]) -> Result<(), MemError> {
        let len = dst.len() as u64;
        self.find(addr, len)
            .ok_or(MemError::HostUnmapped { addr, bytes: len })?;
        dst.copy_from_slice(
            self.bytes(addr, dst.len())
                .ok_or(MemError::HostUnmapped { addr, bytes: len })?,
        );
        Ok(())
    }
}
