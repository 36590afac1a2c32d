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

#[derive(Clone)]
struct Allocation {
    base: u64,
    /// Bytes requested: accesses beyond this fault.
    size: u64,
    /// `size` rounded up to the granule.
    data: Vec<u8>,
}

#[derive(Clone)]
pub(crate) struct GlobalMemory {
    allocs: Vec<Allocation>,
    next: u64,
    /// Device memory of the GPU: allocations (padded to the granule) may not sum past it.
    capacity: u64,
    /// Padded bytes of the live allocations.
    in_use: u64,
}

/// `len` zeroed bytes, or `None` when the host cannot provide them. The pages come from the
/// allocator's zeroed path (`calloc`, fresh `mmap` pages for large sizes), so a large
/// allocation takes host memory only as it is touched, as device memory a kernel never
/// writes should.
pub fn try_zeroed_bytes(len: usize) -> Option<Vec<u8>> {
    if len == 0 {
        return Some(Vec::new());
    }
    let layout = std::alloc::Layout::array::<u8>(len).ok()?;
    // SAFETY: `layout` has a non-zero size (len > 0), as `alloc_zeroed` requires. A non-null
    // result is a block of `len` bytes with alignment 1 from the global allocator, all
    // zero, which is a valid `u8` each; `Vec::from_raw_parts` with length = capacity = `len`
    // takes it over with exactly the layout it was allocated with (that of `[u8; len]`), so
    // the Vec frees it correctly.
    unsafe {
        let ptr = std::alloc::alloc_zeroed(layout);
        if ptr.is_null() {
            return None;
        }
        Some(Vec::from_raw_parts(ptr, len, len))
    }
}

fn align_up(v: u64, a: u64) -> Option<u64> {
    v.checked_add(a - 1).map(|x| x & !(a - 1))
}

impl GlobalMemory {
    pub fn new(capacity: u64) -> Self {
        Self {
            allocs: Vec::new(),
            next: GLOBAL_BASE,
            capacity,
            in_use: 0,
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
        let padded = align_up(bytes, GRANULE).ok_or(err("size overflows"))?;
        if padded > self.capacity - self.in_use {
            return Err(MemError::OutOfMemory {
                bytes,
                in_use: self.in_use,
                capacity: self.capacity,
            });
        }
        let base = align_up(self.next, align.max(GRANULE)).ok_or(err("address space exhausted"))?;
        let next = base
            .checked_add(padded + GUARD)
            .ok_or(err("address space exhausted"))?;
        let data = usize::try_from(padded)
            .ok()
            .and_then(try_zeroed_bytes)
            .ok_or(MemError::HostOutOfMemory { bytes })?;
        self.next = next;
        self.in_use += padded;
        self.allocs.push(Allocation {
            base,
            size: bytes,
            data,
        });
        Ok(base)
    }

    /// Padded bytes of the live allocations.
    pub fn in_use(&self) -> u64 {
        self.in_use
    }

    pub fn free(&mut self, base: u64) -> Result<(), MemError> {
        match self.allocs.binary_search_by_key(&base, |a| a.base) {
            Ok(i) => {
                let freed = self.allocs.remove(i);
                self.in_use -= freed.data.len() as u64;
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

    /// [`Self::find`], trying allocation `hint` first: a warp's lanes almost always fall in
    /// the allocation of the lane before them. Allocations do not overlap, so a hit on `hint`
    /// is the allocation `find` would return.
    #[inline]
    pub fn find_near(&self, hint: usize, addr: u64, len: u64) -> Option<usize> {
        if let Some(a) = self.allocs.get(hint) {
            if addr >= a.base
                && addr
                    .checked_add(len)
                    .is_some_and(|end| end <= a.base + a.size)
            {
                return Some(hint);
            }
        }
        self.find(addr, len)
    }

    /// The `len` bytes at `addr` in allocation `i`, which [`Self::find`] returned for them.
    #[inline]
    pub fn bytes_in(&self, i: usize, addr: u64, len: usize) -> &[u8] {
        let a = &self.allocs[i];
        let off = (addr - a.base) as usize;
        &a.data[off..off + len]
    }

    /// [`Self::bytes_in`], writable.
    #[inline]
    pub fn bytes_in_mut(&mut self, i: usize, addr: u64, len: usize) -> &mut [u8] {
        let a = &mut self.allocs[i];
        let off = (addr - a.base) as usize;
        &mut a.data[off..off + len]
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

    /// A copy of every allocation's bytes, by base (`system/l2_control.rs`: what memory held
    /// before a kernel's writes, for `discard`).
    pub fn snapshot(&self) -> Vec<(u64, Vec<u8>)> {
        self.allocs
            .iter()
            .map(|a| (a.base, a.data.clone()))
            .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_capped_by_the_capacity_and_freeing_returns_it() {
        let mut m = GlobalMemory::new(4096);
        let a = m.alloc(3000, 256).unwrap(); // padded to 3072
        let e = m.alloc(1200, 256).unwrap_err();
        assert_eq!(
            e,
            MemError::OutOfMemory {
                bytes: 1200,
                in_use: 3072,
                capacity: 4096
            }
        );
        assert!(e.is_resource_limit());
        m.alloc(1024, 256).unwrap();
        m.free(a).unwrap();
        assert_eq!(m.in_use(), 1024);
        m.alloc(3072, 256).unwrap();
        // A size whose padding overflows is a wrong request, not a resource limit.
        let e = GlobalMemory::new(u64::MAX)
            .alloc(u64::MAX, 256)
            .unwrap_err();
        assert!(!e.is_resource_limit(), "{e}");
    }

    #[test]
    fn zeroed_bytes_are_zero_and_empty_is_fine() {
        assert_eq!(try_zeroed_bytes(0), Some(Vec::new()));
        let v = try_zeroed_bytes(10_000).unwrap();
        assert!(v.len() == 10_000 && v.iter().all(|&b| b == 0));
        // No host has 2^62 bytes: the allocation fails instead of aborting.
        assert_eq!(try_zeroed_bytes(1 << 62), None);
    }
}
