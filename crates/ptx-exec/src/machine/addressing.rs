//! Addresses and the bytes behind them: generic-to-space resolution, shared and local
//! (and param/const) offsets with their bounds checks, global reads and writes through the
//! cache model (`read_global`, `write_global`), cache-policy operands, and memory faults.

use super::{sectors, Cta, Machine, StaleRead};
use crate::error::{ExecError, FaultKind};
use crate::memory::{self, classify_generic, space_name};
use crate::program::*;
use memsys::{AccessKind, LaneAccess, Request};
use smallvec::SmallVec;

impl Machine<'_> {
    /// Resolves a shared-space (or generic pointing to shared) address to an offset into the
    /// CTA's shared memory, checking bounds and alignment. (Inlined: a warp's `ldmatrix`,
    /// `cp.async` and shared loads call it once per lane; the faults are built out of line.)
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn shared_offset(
        &self,
        cta: &Cta,
        wi: usize,
        id: u32,
        lane: u32,
        addr: u64,
        generic: bool,
        bytes: u32,
    ) -> Result<u32, ExecError> {
        let off = match generic {
            true => match classify_generic(addr) {
                (Space::Shared, off) => off,
                _ => u64::MAX,
            },
            false => addr & 0xFFFF_FFFF,
        };
        if off != u64::MAX
            && is_aligned(off, bytes.max(1) as u64)
            && off + bytes as u64 <= cta.shared.len() as u64
        {
            return Ok(off as u32);
        }
        Err(self.shared_fault(cta, wi, id, lane, addr, off, bytes))
    }

    /// Whether `shared_offset` accepts every address of `addrs` (non-generic, `bytes` each,
    /// `bytes` a power of two): one branch-free pass, where a refused address then goes
    /// through `shared_offset` lane by lane for its fault.
    #[inline(always)]
    pub(super) fn shared_offsets_ok(cta: &Cta, addrs: &[u64], bytes: u32) -> bool {
        let (align, len) = (u64::from(bytes.max(1)) - 1, cta.shared.len() as u64);
        let bad = addrs.iter().fold(0u64, |bad, &a| {
            let off = a & 0xFFFF_FFFF;
            bad | (off & align) | u64::from(off + u64::from(bytes) > len)
        });
        bytes.is_power_of_two() && bad == 0
    }

    /// The fault of an address `shared_offset` refuses (`off`: its offset, `u64::MAX` for a
    /// generic address outside shared memory): not shared, misaligned, or out of bounds, in
    /// that order.
    #[cold]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn shared_fault(
        &self,
        cta: &Cta,
        wi: usize,
        id: u32,
        lane: u32,
        addr: u64,
        off: u64,
        bytes: u32,
    ) -> ExecError {
        let kind = if off == u64::MAX {
            FaultKind::BadGeneric { address: addr }
        } else if !is_aligned(off, bytes.max(1) as u64) {
            FaultKind::Misaligned {
                space: "shared",
                address: off,
                bytes,
            }
        } else {
            FaultKind::OutOfBounds {
                space: "shared",
                address: off,
                bytes,
            }
        };
        self.fault(cta, wi as u32, lane, id, kind)
    }

    /// Reads or writes `len` bytes of a non-global space for one lane.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn local_bytes<'c>(
        &'c self,
        cta: &'c mut Cta,
        wi: usize,
        id: u32,
        lane: usize,
        space: Space,
        addr: u64,
        len: u32,
        align: u32,
        write: bool,
    ) -> Result<LocalRef<'c>, ExecError> {
        let bad = |this: &Self, c: &Cta, kind| this.fault(c, wi as u32, lane as u32, id, kind);
        if !is_aligned(addr, align.max(1) as u64) {
            return Err(bad(
                self,
                cta,
                FaultKind::Misaligned {
                    space: space_name(space),
                    address: addr,
                    bytes: align,
                },
            ));
        }
        let oob = FaultKind::OutOfBounds {
            space: space_name(space),
            address: addr,
            bytes: len,
        };
        let Some(end) = addr.checked_add(len as u64) else {
            return Err(bad(self, cta, oob));
        };
        match space {
            Space::Shared => {
                if end > cta.shared.len() as u64 {
                    return Err(bad(self, cta, oob));
                }
                Ok(LocalRef::Mut(&mut cta.shared[addr as usize..end as usize]))
            }
            Space::Local => {
                if end > cta.warps[wi].local_bytes as u64 {
                    return Err(bad(self, cta, oob));
                }
                let warp = &mut cta.warps[wi];
                let base = lane * warp.local_bytes as usize;
                Ok(LocalRef::Mut(
                    &mut warp.local[base + addr as usize..base + end as usize],
                ))
            }
            Space::Param => {
                if end > cta.warps[wi].frames.last().expect("frame").param_bytes as u64 {
                    return Err(bad(self, cta, oob));
                }
                let frame = cta.warps[wi].frames.last_mut().expect("frame");
                let base = lane * frame.param_bytes as usize;
                Ok(LocalRef::Mut(
                    &mut frame.params[base + addr as usize..base + end as usize],
                ))
            }
            Space::KernelParam => {
                if write || end > self.kernel_params.len() as u64 {
                    return Err(bad(self, cta, oob));
                }
                Ok(LocalRef::Ref(
                    &self.kernel_params[addr as usize..end as usize],
                ))
            }
            Space::Const => {
                if write || end > self.program.const_bytes.len() as u64 {
                    return Err(bad(self, cta, oob));
                }
                Ok(LocalRef::Ref(
                    &self.program.const_bytes[addr as usize..end as usize],
                ))
            }
            Space::Global | Space::Generic => unreachable!("global accesses go through memsys"),
        }
    }

    /// Per-lane resolved (space, address) of an access.
    pub(super) fn resolve(&self, space: Space, addr: u64) -> (Space, u64) {
        match space {
            Space::Generic => classify_generic(addr),
            Space::Param => {
                // ld.param of a kernel's own parameters.
                if addr >= memory::KERNEL_PARAM_WINDOW {
                    classify_generic(addr)
                } else {
                    (Space::Param, addr)
                }
            }
            // Shared and local addresses are 32-bit: address arithmetic wraps there.
            Space::Shared | Space::Local => (space, addr & 0xFFFF_FFFF),
            s => (s, addr),
        }
    }

    pub(super) fn request(
        &self,
        cta: &Cta,
        kind: AccessKind,
        hints: &MemHints,
        policy: Option<u64>,
        id: u32,
    ) -> Request {
        Request {
            sm: memsys::SmId(cta.sm),
            kind,
            space: memsys::Space::Global,
            operator: hints.operator,
            semantics: hints.semantics,
            scope: hints.scope,
            non_coherent: hints.non_coherent,
            l1_priority: hints.l1_priority,
            l2_priority: hints.l2_priority,
            policy,
            prefetch: hints.prefetch,
            instr: memsys::InstrId(id),
            warp: 0,
        }
    }

    pub(super) fn policy_value(
        &self,
        cta: &Cta,
        wi: usize,
        policy: Option<Src>,
        exec: u32,
    ) -> Option<u64> {
        policy.map(|p| self.first_lane_value(cta, wi, p, exec))
    }

    /// Reads global memory for `lanes` (lane, address): through the cache model (one warp
    /// request, split where `_` elements leave holes), or straight from memory.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn global_read(
        &mut self,
        cta: &Cta,
        wi: usize,
        id: u32,
        req: &Request,
        lanes_addr: &[(usize, u64)],
        sinks: &[bool],
        eb: usize,
        data: &mut [u8],
    ) -> Result<(), ExecError> {
        let total = eb * sinks.len();
        // Runs of non-sink elements: (first element, count).
        let runs = element_runs(sinks);
        let mut accesses: Accesses = SmallVec::with_capacity(lanes_addr.len() * runs.len());
        let mut places: Places = SmallVec::with_capacity(accesses.capacity());
        for &(l, addr) in lanes_addr {
            for &(first, count) in &runs {
                accesses.push(LaneAccess::new(
                    addr + (first * eb) as u64,
                    (count * eb) as u32,
                ));
                places.push((l, l * total + first * eb, count * eb));
            }
        }
        // Lanes 0..n with every element: the packed order is the lane-major layout itself.
        let packed_is_lane_major = runs.len() == 1
            && runs[0] == (0, sinks.len())
            && lanes_addr.iter().enumerate().all(|(i, &(l, _))| i == l);
        if packed_is_lane_major {
            let len = lanes_addr.len() * total;
            return self.read_global(cta, wi, id, req, &accesses, &places, Some(&mut data[..len]));
        }
        let mut buf: SmallVec<[u8; 1024]> =
            smallvec::smallvec![0u8; places.iter().map(|p| p.2).sum()];
        self.read_global(cta, wi, id, req, &accesses, &places, Some(&mut buf))?;
        let mut off = 0;
        for &(_, at, len) in &places {
            data[at..at + len].copy_from_slice(&buf[off..off + len]);
            off += len;
        }
        Ok(())
    }

    /// Reads global memory for `acc` into `buf` (packed in access order): through the cache
    /// model as warp requests of at most `MAX_LANES` accesses, or straight from memory.
    /// `places[k].0` is the lane of access `k`. Feeds the hazard tracker.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn read_global(
        &mut self,
        cta: &Cta,
        wi: usize,
        id: u32,
        req: &Request,
        acc: &[LaneAccess],
        places: &[(usize, usize, usize)],
        mut buf: Option<&mut [u8]>,
    ) -> Result<(), ExecError> {
        // The lanes' byte runs, walked by the tally and the line notes.
        let mut runs = sectors::ByteRuns::new();
        let (tally, ordered) = sectors::tally_in(acc, &mut runs);
        self.summary.add_sectors(id, tally);
        self.note_global_reads(acc, ordered.then_some(&runs[..]));
        let mut off = 0;
        for (a, pl) in acc
            .chunks(memsys::MAX_LANES)
            .zip(places.chunks(memsys::MAX_LANES))
        {
            let need: usize = a.iter().map(|x| x.bytes as usize).sum();
            let stale = match buf.as_deref_mut() {
                Some(buf) if self.cfg.cache_model => {
                    self.mem
                        .load(req, a, &mut buf[off..off + need])
                        .map_err(|e| self.mem_fault(cta, wi, id, a, pl, e))?
                        .stale_lanes
                }
                None if self.cfg.cache_model => {
                    self.mem
                        .load_unread(req, a)
                        .map_err(|e| self.mem_fault(cta, wi, id, a, pl, e))?
                        .stale_lanes
                }
                buf => {
                    // Without the cache model a read is a copy, and its checks.
                    let mut scratch = Vec::new();
                    let out: &mut [u8] = match buf {
                        Some(b) => &mut b[off..off + need],
                        None => {
                            scratch.resize(need, 0);
                            &mut scratch
                        }
                    };
                    let mut o = 0;
                    for (k, x) in a.iter().enumerate() {
                        let len = x.bytes as usize;
                        self.mem
                            .read_as(cta.sm, x.addr, &mut out[o..o + len])
                            .map_err(|e| self.mem_fault(cta, wi, id, &a[k..=k], &pl[k..=k], e))?;
                        o += len;
                    }
                    0
                }
            };
            if stale != 0 {
                for (k, p) in pl.iter().enumerate() {
                    if stale & (1 << k) != 0 {
                        self.summary.stale_reads.push(StaleRead {
                            instr: id,
                            cta: cta.id,
                            thread: self.thread_of(cta, wi as u32, p.0 as u32),
                            address: a[k].addr,
                        });
                    }
                }
            }
            if req.kind == AccessKind::Load {
                self.track_loads(cta, wi, id, req, a, pl, stale);
            }
            off += need;
        }
        Ok(())
    }

    /// Writes `buf` (packed in access order) to global memory for `acc`, like
    /// [`Machine::read_global`] reads. Feeds the hazard tracker.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn write_global(
        &mut self,
        cta: &Cta,
        wi: usize,
        id: u32,
        req: &Request,
        acc: &[LaneAccess],
        places: &[(usize, usize, usize)],
        buf: &[u8],
    ) -> Result<(), ExecError> {
        self.summary.add_sectors(id, sectors::tally(acc));
        let mut off = 0;
        for (a, pl) in acc
            .chunks(memsys::MAX_LANES)
            .zip(places.chunks(memsys::MAX_LANES))
        {
            let need: usize = a.iter().map(|x| x.bytes as usize).sum();
            let data = &buf[off..off + need];
            if self.cfg.cache_model {
                self.mem
                    .store(req, a, data)
                    .map_err(|e| self.mem_fault(cta, wi, id, a, pl, e))?;
            } else {
                let mut o = 0;
                for (k, x) in a.iter().enumerate() {
                    let len = x.bytes as usize;
                    self.mem
                        .write_as(cta.sm, x.addr, &data[o..o + len])
                        .map_err(|e| self.mem_fault(cta, wi, id, &a[k..=k], &pl[k..=k], e))?;
                    o += len;
                }
            }
            self.track_stores(cta, wi, id, a, pl);
            off += need;
        }
        Ok(())
    }

    /// Passes a warp's local-memory accesses, `(lane, offset, bytes)` in the thread's local
    /// memory, to the cache model as local requests at the device addresses of the hardware's
    /// layout ([`memory::local_device_addr`]); the bytes stay in the warp's own storage. A
    /// lane's access is split at 32-bit words (each word of a lane lies 128 bytes from the
    /// next), and the pieces go in address order, so a request holds whole lines.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn local_traffic(
        &mut self,
        cta: &Cta,
        wi: usize,
        id: u32,
        kind: AccessKind,
        hints: &MemHints,
        lanes_at: &[(usize, u64, u32)],
    ) -> Result<(), ExecError> {
        if !self.cfg.cache_model || lanes_at.is_empty() {
            return Ok(());
        }
        let warp = &cta.warps[wi];
        let (req, warp_linear) = self.local_request(cta, wi, id, kind, hints);
        let mut pieces: SmallVec<[(LaneAccess, usize); 64]> = SmallVec::new();
        for &(lane, offset, bytes) in lanes_at {
            let end = offset + u64::from(bytes);
            let mut at = offset;
            while at < end {
                let piece_end = end.min((at / 4 + 1) * 4);
                let addr =
                    memory::local_device_addr(warp_linear, warp.local_bytes, lane as u32, at);
                pieces.push((LaneAccess::new(addr, (piece_end - at) as u32), lane));
                at = piece_end;
            }
        }
        pieces.sort_unstable_by_key(|p| p.0.addr);
        let mut chunk: SmallVec<[LaneAccess; 64]> = SmallVec::new();
        for group in pieces.chunks(memsys::MAX_LANES) {
            chunk.clear();
            chunk.extend(group.iter().map(|p| p.0));
            self.send_local(cta, wi, id, &req, &chunk, group[0].1 as u32)?;
        }
        Ok(())
    }

    /// A debug build's call-frame saves (`kind` Store, at a call's entry) or reloads (Load, at
    /// its return) for the `exec` lanes of warp `wi`: `words` words per lane at call depth
    /// `depth` ([`memory::frame_save_addr`]), one 128-byte line per word, through the cache
    /// model as local requests (ptxas's `STL`/`LDL` at `-O0`; crates/memsys/README.md, row
    /// "`-G` builds' local memory").
    #[allow(clippy::too_many_arguments)]
    pub(super) fn frame_traffic(
        &mut self,
        cta: &Cta,
        wi: usize,
        id: u32,
        kind: AccessKind,
        exec: u32,
        words: u32,
        depth: u64,
    ) -> Result<(), ExecError> {
        if !self.cfg.cache_model || words == 0 || exec == 0 {
            return Ok(());
        }
        let (req, warp_linear) = self.local_request(cta, wi, id, kind, &MemHints::default());
        let mut chunk: SmallVec<[LaneAccess; 64]> = SmallVec::new();
        for word in 0..words {
            chunk.clear();
            chunk.extend(super::lanes(exec).map(|l| {
                LaneAccess::new(
                    memory::frame_save_addr(warp_linear, depth, word, l as u32),
                    4,
                )
            }));
            self.send_local(cta, wi, id, &req, &chunk, exec.trailing_zeros())?;
        }
        Ok(())
    }

    /// The local request of warp `wi`'s instruction `id`, and the warp's index in the grid
    /// (the local layout's warp number: [`memory::local_device_addr`]).
    fn local_request(
        &self,
        cta: &Cta,
        wi: usize,
        id: u32,
        kind: AccessKind,
        hints: &MemHints,
    ) -> (Request, u64) {
        let warp = &cta.warps[wi];
        let req = Request {
            space: memsys::Space::Local,
            warp: warp.index,
            ..self.request(cta, kind, hints, None, id)
        };
        (
            req,
            cta.linear * cta.warps.len() as u64 + u64::from(warp.index),
        )
    }

    /// One local request of at most [`memsys::MAX_LANES`] accesses; a refusal is a fault of
    /// `lane`.
    fn send_local(
        &mut self,
        cta: &Cta,
        wi: usize,
        id: u32,
        req: &Request,
        lanes: &[LaneAccess],
        lane: u32,
    ) -> Result<(), ExecError> {
        self.mem.local(req, lanes).map(drop).map_err(|e| {
            self.fault(
                cta,
                wi as u32,
                lane,
                id,
                FaultKind::Other(format!("memory model: {e}")),
            )
        })
    }

    /// The fault of a global access whose address is not a multiple of its size.
    pub(super) fn misaligned_global(
        &self,
        cta: &Cta,
        wi: usize,
        lane: u32,
        id: u32,
        address: u64,
        bytes: u32,
    ) -> ExecError {
        self.fault(
            cta,
            wi as u32,
            lane,
            id,
            FaultKind::Misaligned {
                space: "global",
                address,
                bytes,
            },
        )
    }

    pub(super) fn mem_fault(
        &self,
        cta: &Cta,
        wi: usize,
        id: u32,
        acc: &[LaneAccess],
        places: &[(usize, usize, usize)],
        e: memsys::MemError,
    ) -> ExecError {
        // Name the first lane whose access is outside every allocation.
        for (k, a) in acc.iter().enumerate() {
            if !self.mem.is_mapped(a.addr, u64::from(a.bytes)) {
                return self.fault(
                    cta,
                    wi as u32,
                    places[k].0 as u32,
                    id,
                    FaultKind::OutOfBounds {
                        space: "global",
                        address: a.addr,
                        bytes: a.bytes,
                    },
                );
            }
        }
        self.fault(
            cta,
            wi as u32,
            places.first().map_or(0, |p| p.0 as u32),
            id,
            FaultKind::Other(format!("memory model: {e}")),
        )
    }
}

/// A view of bytes in a space the machine holds directly.
pub(super) enum LocalRef<'a> {
    Mut(&'a mut [u8]),
    Ref(&'a [u8]),
}

impl LocalRef<'_> {
    pub(super) fn get(&self) -> &[u8] {
        match self {
            LocalRef::Mut(m) => m,
            LocalRef::Ref(r) => r,
        }
    }
}

/// A warp's lane accesses (a lane per access unless `_` elements split a vector).
pub(super) type Accesses = SmallVec<[LaneAccess; 32]>;
/// For each access: (lane, offset in the lane-major data, bytes).
pub(super) type Places = SmallVec<[(usize, usize, usize); 32]>;

/// The runs of consecutive elements not marked as sinks: (first, count).
pub(super) fn element_runs(sinks: &[bool]) -> SmallVec<[(usize, usize); 4]> {
    let mut runs = SmallVec::new();
    let mut k = 0;
    while k < sinks.len() {
        if sinks[k] {
            k += 1;
            continue;
        }
        let start = k;
        while k < sinks.len() && !sinks[k] {
            k += 1;
        }
        runs.push((start, k - start));
    }
    runs
}

/// Whether `addr` is a multiple of `align`, as `u64::is_multiple_of`: a mask for the powers of
/// two that alignments are (a division costs tens of cycles, once per lane of every access).
#[inline(always)]
pub(super) fn is_aligned(addr: u64, align: u64) -> bool {
    if align.is_power_of_two() {
        addr & (align - 1) == 0
    } else {
        addr.is_multiple_of(align)
    }
}
