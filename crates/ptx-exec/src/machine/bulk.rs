//! The bulk asynchronous copy engine: `cp{.reduce}.async.bulk{.prefetch}{.tensor}`,
//! `cp.async.bulk.commit_group/wait_group{.read}`, mbarrier transaction counts,
//! `tensormap.replace` and `tensormap.cp_fenceproxy`.
//!
//! - **Into shared memory** (global → shared, shared → shared, reductions into shared): the
//!   source is read when the instruction issues (global reads go through memsys as
//!   `cp.async`-kind requests at L2), and the bytes land in shared memory — with the complete-tx
//!   of their byte count on the copy's mbarrier — when a thread tests or waits on that mbarrier
//!   (`mbarrier.test_wait`/`try_wait`), the latest moment a program can observe them. A kernel
//!   that reads the destination without waiting reads the old contents, deterministically.
//! - **Out of shared memory** (shared → global copies and reductions, bulk async-group
//!   completion): the shared source is read at the `cp.async.bulk.wait_group.read` that covers
//!   the operation (or at the full wait), and global memory is written at the
//!   `cp.async.bulk.wait_group` that covers it, or when the CTA finishes. Global addresses are
//!   checked when the instruction issues, so a bad copy faults at its own line.
//!
//! Every executing thread issues its own copy (the ISA's per-thread semantics; kernels
//! predicate these instructions to one thread).

use super::operands::{or_imm, or_zero};
use super::{lanes, Cta, Machine, Mbarrier};
use crate::alu;
use crate::error::{ExecError, FaultKind};
use crate::hazards::Access;
use crate::memory::{classify_generic, space_name, to_generic};
use crate::program::*;
use crate::tensormap::{Field, TensorMap, Tile, TENSOR_MAP_BYTES};
use memsys::{AccessKind, LaneAccess};
use ptx_isa::ScalarType;
use std::collections::HashMap;

mod tensor;

/// The most bytes of one bulk or tensor prefetch the cache model is given (prefetches are hints).
const PREFETCH_LIMIT: u64 = 16 << 20;

/// A copy into shared memory waiting to land.
pub(super) struct BulkLoad {
    /// (shared offset, offset in `data`, bytes).
    pieces: Vec<(u32, u32, u32)>,
    data: Vec<u8>,
    /// A reduction into shared memory instead of a copy.
    reduce: Option<(AtomOp, ScalarType)>,
    pub(super) mbar: u32,
    /// The complete-tx count (bytes).
    tx: u64,
    pub(super) landed: bool,
    pub(super) landed_seq: u64,
    /// The CTA's barrier generation when a thread first observed the completion (a successful
    /// wait on the mbarrier after the landing): a later barrier makes it visible to every thread.
    pub(super) observed_gen: Option<u64>,
    pub(super) access: Access,
    /// Global source runs, for the hazard tracker.
    sources: Vec<(u64, u32)>,
}

/// A copy or reduction out of shared memory into global memory, in a bulk async-group.
pub(super) struct BulkStore {
    /// (shared offset, offset in the data, bytes) to read.
    reads: Vec<(u32, u32, u32)>,
    len: u32,
    /// The shared source, once read.
    data: Option<Vec<u8>>,
    /// (global address, offset in the data, bytes): line-bounded pieces of at most 128 bytes.
    writes: Vec<(u64, u32, u32)>,
    reduce: Option<(AtomOp, ScalarType)>,
    hints: MemHints,
    policy: Option<u64>,
    instr: u32,
    warp: usize,
    lane: usize,
    done: bool,
    pub(super) access: Access,
}

/// The bulk-copy state of a CTA.
#[derive(Default)]
pub(super) struct BulkState {
    pub(super) loads: Vec<BulkLoad>,
    pub(super) stores: Vec<BulkStore>,
    /// Hazard tracking: shared words written by loads not yet visible to every thread.
    pub(super) load_words: HashMap<u32, u32>,
    /// Hazard tracking: shared words pending stores have not read yet.
    pub(super) store_words: HashMap<u32, u32>,
    /// Loads not landed yet, by mbarrier, in issue order.
    pending_loads: HashMap<u32, Vec<u32>>,
    /// Landings so far (orders landings against successful mbarrier waits).
    pub(super) land_seq: u64,
}

/// Hazard tracking: records the pending copy `id` as the owner of every 4-byte shared word
/// that `[off, off + len)` touches.
pub(super) fn claim_words(words: &mut HashMap<u32, u32>, off: u32, len: u32, id: u32) {
    for w in (off / 4)..(off + len).div_ceil(4) {
        words.insert(w, id);
    }
}

/// Splits `[addr, addr + len)` into pieces that stay inside one 128-byte line (nothing when the
/// range wraps around the address space).
fn line_pieces(addr: u64, len: u64, mut f: impl FnMut(u64, u32, u32)) {
    if addr.checked_add(len).is_none() {
        return;
    }
    let mut done = 0u64;
    while done < len {
        let a = addr + done;
        let n = (128 - (a % 128)).min(len - done);
        f(a, done as u32, n as u32);
        done += n;
    }
}

/// The new value of one element of a bulk reduction (`cp.reduce.async.bulk{.tensor}`): the
/// operations of `red`, except that `.add.f32` flushes subnormal inputs and results to
/// sign-preserving zero ("The current implementation of cp.reduce.async.bulk.add.f32 flushes
/// subnormal inputs and results") and `.add.noftz.f16/.bf16` keep them.
fn reduce_elem(op: AtomOp, ty: ScalarType, old: u64, src: u64) -> u64 {
    match (op, ty) {
        (AtomOp::Add, ScalarType::F32) => u64::from(ptx_semantics::atom::atom_add_f32(
            old as u32, src as u32, true,
        )),
        _ => alu::atom_combine(op, ty, old, src, 0),
    }
}

/// Combines `src` into `dst` element by element.
fn reduce_bytes(op: AtomOp, ty: ScalarType, dst: &mut [u8], src: &[u8]) {
    let n = ty.bytes() as usize;
    for (d, s) in dst.chunks_exact_mut(n).zip(src.chunks_exact(n)) {
        let mut a = [0u8; 8];
        let mut b = [0u8; 8];
        a[..n].copy_from_slice(d);
        b[..n].copy_from_slice(s);
        let r = reduce_elem(op, ty, u64::from_le_bytes(a), u64::from_le_bytes(b));
        d.copy_from_slice(&r.to_le_bytes()[..n]);
    }
}

/// Whether `op` on `ty` is a valid reduction into `global` (or `.shared::cluster`) memory
/// (the ISA's tables for cp.reduce.async.bulk).
fn reduce_allowed(op: AtomOp, ty: ScalarType, global: bool) -> bool {
    use ScalarType as T;
    match op {
        AtomOp::Add if global => matches!(
            ty,
            T::U32 | T::S32 | T::U64 | T::F32 | T::F64 | T::F16 | T::Bf16
        ),
        AtomOp::Add => matches!(ty, T::U32 | T::S32 | T::U64),
        AtomOp::Min | AtomOp::Max if global => {
            matches!(ty, T::U32 | T::S32 | T::U64 | T::S64 | T::F16 | T::Bf16)
        }
        AtomOp::Min | AtomOp::Max => matches!(ty, T::U32 | T::S32),
        AtomOp::Inc | AtomOp::Dec => ty == T::U32,
        AtomOp::And | AtomOp::Or | AtomOp::Xor if global => {
            matches!(ty, T::B32 | T::B64 | T::U32 | T::S32 | T::U64 | T::S64)
        }
        AtomOp::And | AtomOp::Or | AtomOp::Xor => matches!(ty, T::B32 | T::U32 | T::S32),
        _ => false,
    }
}

impl Machine<'_> {
    /// Bulk copies and TMA: `cp.async.bulk{.tensor}`, `cp.reduce.async.bulk`, their prefetches
    /// and groups, and `tensormap.replace`/`cp_fenceproxy`.
    pub(super) fn exec_bulk_family(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        inst: &Inst,
        exec: u32,
    ) -> Result<(), ExecError> {
        match &inst.op {
            Op::BulkCopy(b) => self.exec_bulk_copy(cta, wi, inst.id, b, exec)?,
            Op::TensorCopy(t) => self.exec_tensor_copy(cta, wi, inst.id, t, exec)?,
            Op::BulkPrefetch { addr, size, policy } => {
                self.exec_bulk_prefetch(cta, wi, inst.id, *addr, *size, *policy, exec)?
            }
            Op::BulkCommit => Self::exec_bulk_commit(cta, wi, exec),
            Op::BulkWait { n, read } => self.exec_bulk_wait(cta, wi, exec, *n, *read)?,
            Op::TensormapReplace {
                field,
                ord,
                addr,
                space,
                value,
            } => self.exec_tensormap_replace(
                cta, wi, inst.id, *field, *ord, *addr, *space, *value, exec,
            )?,
            Op::TensormapCopy { dst, src, size } => {
                self.exec_tensormap_copy(cta, wi, inst.id, *dst, *src, *size, exec)?
            }
            _ => unreachable!("`execute` routes only bulk and tensor-map ops here"),
        }
        Ok(())
    }

    fn other(&self, cta: &Cta, wi: usize, lane: usize, id: u32, msg: String) -> ExecError {
        self.fault(cta, wi as u32, lane as u32, id, FaultKind::Other(msg))
    }

    /// A shared range `[addr, addr + len)` of the executing CTA, aligned to `align`.
    #[allow(clippy::too_many_arguments)]
    fn shared_range(
        &self,
        cta: &Cta,
        wi: usize,
        lane: usize,
        id: u32,
        addr: u64,
        len: u64,
        align: u32,
    ) -> Result<u32, ExecError> {
        let off = addr & 0xFFFF_FFFF;
        if !off.is_multiple_of(align as u64) {
            return Err(self.fault(
                cta,
                wi as u32,
                lane as u32,
                id,
                FaultKind::Misaligned {
                    space: "shared",
                    address: off,
                    bytes: align,
                },
            ));
        }
        if off + len > cta.shared.len() as u64 {
            return Err(self.fault(
                cta,
                wi as u32,
                lane as u32,
                id,
                FaultKind::OutOfBounds {
                    space: "shared",
                    address: off,
                    bytes: len.min(u32::MAX as u64) as u32,
                },
            ));
        }
        Ok(off as u32)
    }

    /// Checks that the global range is 16-byte aligned and inside one allocation.
    #[allow(clippy::too_many_arguments)]
    fn global_range(
        &self,
        cta: &Cta,
        wi: usize,
        lane: usize,
        id: u32,
        addr: u64,
        len: u64,
        align: u32,
    ) -> Result<(), ExecError> {
        if !addr.is_multiple_of(align as u64) {
            return Err(self.misaligned_global(cta, wi, lane as u32, id, addr, align));
        }
        if len > 0 && !self.mem.is_mapped(addr, len) {
            return Err(self.fault(
                cta,
                wi as u32,
                lane as u32,
                id,
                FaultKind::OutOfBounds {
                    space: "global",
                    address: addr,
                    bytes: len.min(u32::MAX as u64) as u32,
                },
            ));
        }
        Ok(())
    }

    /// The multicast ctaMask: whether this CTA (rank 0 of its one-CTA cluster) receives.
    fn multicast_to_self(
        &self,
        cta: &Cta,
        wi: usize,
        lane: usize,
        id: u32,
        mask: Option<u64>,
    ) -> Result<bool, ExecError> {
        match mask {
            None => Ok(true),
            Some(m) if m & 0xFFFE == 0 => Ok(m & 1 != 0),
            Some(m) => Err(self.other(
                cta,
                wi,
                lane,
                id,
                format!(
                    "multicast ctaMask 0x{m:04x} names CTA ranks other than 0; ptxsim models \
                     clusters of one CTA"
                ),
            )),
        }
    }

    /// Reads global memory for a copy into shared memory: `runs` of (global address, offset in
    /// `data`, bytes), through memsys as asynchronous-copy requests.
    #[allow(clippy::too_many_arguments)]
    fn bulk_global_read(
        &mut self,
        cta: &Cta,
        wi: usize,
        lane: usize,
        id: u32,
        hints: &MemHints,
        policy: Option<u64>,
        runs: &[(u64, u32, u32)],
        data: &mut [u8],
    ) -> Result<(), ExecError> {
        let mut acc = Vec::new();
        let mut places = Vec::new();
        for &(g, off, len) in runs {
            line_pieces(g, len as u64, |a, d, n| {
                acc.push(LaneAccess::new(a, n));
                places.push((lane, (off + d) as usize, n as usize));
            });
        }
        if acc.is_empty() {
            return Ok(());
        }
        let req = self.request(cta, AccessKind::AsyncCopy, hints, policy, id);
        let mut buf = vec![0u8; places.iter().map(|p| p.2).sum()];
        self.read_global(cta, wi, id, &req, &acc, &places, Some(&mut buf))?;
        let mut o = 0;
        for &(_, at, n) in &places {
            data[at..at + n].copy_from_slice(&buf[o..o + n]);
            o += n;
        }
        self.summary.cp_async_bytes += buf.len() as u64;
        Ok(())
    }

    /// Queues a copy into shared memory.
    #[allow(clippy::too_many_arguments)]
    fn push_load(
        &mut self,
        cta: &mut Cta,
        access: Access,
        pieces: Vec<(u32, u32, u32)>,
        data: Vec<u8>,
        reduce: Option<(AtomOp, ScalarType)>,
        mbar: u32,
        tx: u64,
        sources: Vec<(u64, u32)>,
    ) {
        let lid = cta.bulk.loads.len() as u32;
        if let Some(t) = &mut self.tracker {
            for &(g, n) in &sources {
                t.copy_issued(access, g, n);
            }
            for &(off, _, n) in &pieces {
                claim_words(&mut cta.bulk.load_words, off, n, lid);
            }
        }
        cta.bulk.loads.push(BulkLoad {
            pieces,
            data,
            reduce,
            mbar,
            tx,
            landed: false,
            landed_seq: 0,
            observed_gen: None,
            access,
            sources,
        });
        cta.bulk.pending_loads.entry(mbar).or_default().push(lid);
    }

    /// Lands every copy bound to the mbarrier at shared offset `mbar` (in issue order) and
    /// performs their complete-tx.
    pub(super) fn land_bulk(&mut self, cta: &mut Cta, mbar: u32) {
        if cta.bulk.pending_loads.is_empty() {
            return;
        }
        let Some(ids) = cta.bulk.pending_loads.remove(&mbar) else {
            return;
        };
        for i in ids {
            let i = i as usize;
            cta.bulk.land_seq += 1;
            let seq = cta.bulk.land_seq;
            let l = &mut cta.bulk.loads[i];
            l.landed = true;
            l.landed_seq = seq;
            let data = std::mem::take(&mut l.data);
            for &(off, at, n) in &l.pieces {
                let dst = &mut cta.shared[off as usize..(off + n) as usize];
                let src = &data[at as usize..(at + n) as usize];
                match l.reduce {
                    Some((op, ty)) => reduce_bytes(op, ty, dst, src),
                    None => dst.copy_from_slice(src),
                }
            }
            let tx = l.tx;
            if let Some(t) = &mut self.tracker {
                for &(g, n) in &l.sources {
                    t.copy_completed(g, n);
                }
            }
            let mb = cta.mbarriers.entry(mbar).or_default();
            mb.tx -= tx as i64;
            mbarrier_check(mb);
        }
    }

    /// `cp{.reduce}.async.bulk` (not `.tensor`).
    pub(super) fn exec_bulk_copy(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        inst: &BulkCopyInst,
        exec: u32,
    ) -> Result<(), ExecError> {
        read_addrs!(self, cta, wi; d = inst.dst, s = inst.src, mb = or_zero(inst.mbar));
        let (ignore_left, ignore_right) = inst.ignore_oob.unzip();
        read_srcs!(self, cta, wi;
            size = inst.size,
            left = or_imm(ignore_left, 0),
            right = or_imm(ignore_right, 0),
            mask = or_imm(inst.cta_mask, 0),
        );
        let policy = self.policy_value(cta, wi, inst.policy, exec);
        for l in lanes(exec) {
            let n = size[l] & 0xFFFF_FFFF;
            if n % 16 != 0 {
                return Err(self.other(
                    cta,
                    wi,
                    l,
                    id,
                    format!("bulk copy size {n} is not a multiple of 16"),
                ));
            }
            let access = self.access(cta, wi, id, l);
            if let Some((op, ty)) = inst.reduce {
                let global = inst.dir == BulkDirection::SharedToGlobal;
                if !reduce_allowed(op, ty, global) {
                    return Err(self.other(
                        cta,
                        wi,
                        l,
                        id,
                        format!("cp.reduce.async.bulk does not reduce {ty} with {op:?}"),
                    ));
                }
            }
            match inst.dir {
                BulkDirection::GlobalToShared | BulkDirection::SharedToShared => {
                    let mbar = self.shared_range(cta, wi, l, id, mb[l], 8, 8)?;
                    let dst = self.shared_range(cta, wi, l, id, d[l], n, 16)?;
                    let mut data = vec![0u8; n as usize];
                    let mut sources = Vec::new();
                    if inst.dir == BulkDirection::GlobalToShared {
                        let (lo, hi) = (left[l] & 15, right[l] & 15);
                        let src = s[l];
                        if !src.is_multiple_of(16) {
                            return Err(self.misaligned_global(cta, wi, l as u32, id, src, 16));
                        }
                        if n > lo + hi {
                            self.global_range(cta, wi, l, id, src + lo, n - lo - hi, 1)?;
                            let run = [(src + lo, lo as u32, (n - lo - hi) as u32)];
                            self.bulk_global_read(
                                cta,
                                wi,
                                l,
                                id,
                                &inst.hints,
                                policy,
                                &run,
                                &mut data,
                            )?;
                            sources.push((src + lo, (n - lo - hi) as u32));
                        }
                    } else {
                        let src = self.shared_range(cta, wi, l, id, s[l], n, 16)?;
                        data.copy_from_slice(&cta.shared[src as usize..(src as u64 + n) as usize]);
                    }
                    let to_self = self.multicast_to_self(
                        cta,
                        wi,
                        l,
                        id,
                        inst.cta_mask.map(|_| mask[l] & 0xFFFF),
                    )?;
                    if to_self {
                        self.push_load(
                            cta,
                            access,
                            vec![(dst, 0, n as u32)],
                            data,
                            inst.reduce,
                            mbar,
                            n,
                            sources,
                        );
                    }
                }
                BulkDirection::SharedToGlobal => {
                    let src = self.shared_range(cta, wi, l, id, s[l], n, 16)?;
                    let dst = d[l];
                    self.global_range(cta, wi, l, id, dst, n, 16)?;
                    let mut writes = Vec::new();
                    line_pieces(dst, n, |a, off, len| writes.push((a, off, len)));
                    self.push_store(
                        cta,
                        wi,
                        l,
                        id,
                        access,
                        vec![(src, 0, n as u32)],
                        n as u32,
                        writes,
                        inst.reduce,
                        inst.hints,
                        policy,
                    );
                }
            }
        }
        Ok(())
    }

    /// Queues a shared → global operation in the lane's uncommitted bulk async-group.
    #[allow(clippy::too_many_arguments)]
    fn push_store(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        lane: usize,
        id: u32,
        access: Access,
        reads: Vec<(u32, u32, u32)>,
        len: u32,
        writes: Vec<(u64, u32, u32)>,
        reduce: Option<(AtomOp, ScalarType)>,
        hints: MemHints,
        policy: Option<u64>,
    ) {
        let sid = cta.bulk.stores.len() as u32;
        if self.tracker.is_some() {
            for &(off, _, n) in &reads {
                claim_words(&mut cta.bulk.store_words, off, n, sid);
            }
        }
        cta.bulk.stores.push(BulkStore {
            reads,
            len,
            data: None,
            writes,
            reduce,
            hints,
            policy,
            instr: id,
            warp: wi,
            lane,
            done: false,
            access,
        });
        cta.warps[wi].asyncs[lane].bulk_uncommitted.push(sid);
    }

    /// The shared-source read of a pending store (once).
    fn read_store_source(cta: &mut Cta, sid: u32) {
        let st = &mut cta.bulk.stores[sid as usize];
        if st.data.is_some() {
            return;
        }
        let mut data = vec![0u8; st.len as usize];
        for &(off, at, n) in &st.reads {
            data[at as usize..(at + n) as usize]
                .copy_from_slice(&cta.shared[off as usize..(off + n) as usize]);
        }
        st.data = Some(data);
        if !cta.bulk.store_words.is_empty() {
            cta.bulk.store_words.retain(|_, s| *s != sid);
        }
    }

    /// Completes a pending store: reads its source if not read yet and writes global memory.
    fn complete_store(&mut self, cta: &mut Cta, sid: u32) -> Result<(), ExecError> {
        Self::read_store_source(cta, sid);
        let st = &mut cta.bulk.stores[sid as usize];
        if st.done {
            return Ok(());
        }
        st.done = true;
        let data = st.data.take().unwrap_or_default();
        let writes = std::mem::take(&mut st.writes);
        let (reduce, hints, policy, id, wi, lane) =
            (st.reduce, st.hints, st.policy, st.instr, st.warp, st.lane);
        if writes.is_empty() {
            return Ok(());
        }
        let acc: Vec<LaneAccess> = writes
            .iter()
            .map(|&(a, _, n)| LaneAccess::new(a, n))
            .collect();
        let places: Vec<(usize, usize, usize)> = writes
            .iter()
            .map(|&(_, at, n)| (lane, at as usize, n as usize))
            .collect();
        match reduce {
            None => {
                let req = self.request(cta, AccessKind::Store, &hints, policy, id);
                let mut buf = Vec::with_capacity(data.len());
                for &(_, at, n) in &places {
                    buf.extend_from_slice(&data[at..at + n]);
                }
                self.write_global(cta, wi, id, &req, &acc, &places, &buf)
            }
            Some((op, ty)) => {
                let req = self.request(cta, AccessKind::Atomic, &hints, policy, id);
                for (a, pl) in acc
                    .chunks(memsys::MAX_LANES)
                    .zip(places.chunks(memsys::MAX_LANES))
                {
                    if self.cfg.cache_model {
                        let mut update = |k: usize, bytes: &mut [u8]| {
                            let (_, at, n) = pl[k];
                            reduce_bytes(op, ty, bytes, &data[at..at + n]);
                        };
                        self.mem
                            .atomic(&req, a, &mut update)
                            .map_err(|e| self.mem_fault(cta, wi, id, a, pl, e))?;
                    } else {
                        for (k, x) in a.iter().enumerate() {
                            let (_, at, n) = pl[k];
                            let mut bytes = vec![0u8; n];
                            self.mem.read(x.addr, &mut bytes).map_err(|e| {
                                self.mem_fault(cta, wi, id, &a[k..=k], &pl[k..=k], e)
                            })?;
                            reduce_bytes(op, ty, &mut bytes, &data[at..at + n]);
                            self.mem.write(x.addr, &bytes).map_err(|e| {
                                self.mem_fault(cta, wi, id, &a[k..=k], &pl[k..=k], e)
                            })?;
                        }
                    }
                    self.track_stores(cta, wi, id, a, pl);
                }
                Ok(())
            }
        }
    }

    /// `cp.async.bulk.commit_group`.
    pub(super) fn exec_bulk_commit(cta: &mut Cta, wi: usize, exec: u32) {
        for l in lanes(exec) {
            let la = &mut cta.warps[wi].asyncs[l];
            let g = std::mem::take(&mut la.bulk_uncommitted);
            la.bulk_groups.push_back(g);
        }
    }

    /// `cp.async.bulk.wait_group{.read} n`.
    pub(super) fn exec_bulk_wait(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        exec: u32,
        n: u32,
        read: bool,
    ) -> Result<(), ExecError> {
        for l in lanes(exec) {
            let la = &mut cta.warps[wi].asyncs[l];
            let older = la.bulk_groups.len().saturating_sub(n as usize);
            if read {
                // The reads of the older groups complete; their writes stay pending.
                let ids: Vec<u32> = la
                    .bulk_groups
                    .iter()
                    .take(older)
                    .flatten()
                    .copied()
                    .collect();
                for sid in ids {
                    Self::read_store_source(cta, sid);
                }
            } else {
                let ids: Vec<u32> = la.bulk_groups.drain(..older).flatten().collect();
                for sid in ids {
                    self.complete_store(cta, sid)?;
                }
            }
        }
        Ok(())
    }

    /// Completes every pending store of a finishing CTA, in issue order.
    pub(super) fn retire_bulk(&mut self, cta: &mut Cta) -> Result<(), ExecError> {
        for sid in 0..cta.bulk.stores.len() as u32 {
            self.complete_store(cta, sid)?;
        }
        Ok(())
    }

    /// `cp.async.bulk.prefetch.L2.global [addr], size`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn exec_bulk_prefetch(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        addr: Addr,
        size: Src,
        policy: Option<Src>,
        exec: u32,
    ) -> Result<(), ExecError> {
        if !self.cfg.cache_model {
            return Ok(());
        }
        read_addrs!(self, cta, wi; a = addr);
        read_srcs!(self, cta, wi; n = size);
        let policy = self.policy_value(cta, wi, policy, exec);
        let mut acc = Vec::new();
        for l in lanes(exec) {
            // A hint: at most PREFETCH_LIMIT bytes of it are modelled.
            line_pieces(
                a[l],
                (n[l] & 0xFFFF_FFFF).min(PREFETCH_LIMIT),
                |g, _, len| acc.push(LaneAccess::new(g, len)),
            );
        }
        self.prefetch_l2(cta, id, policy, &acc);
        Ok(())
    }

    /// L2 prefetches of `acc` (a prefetch outside every allocation is dropped, as on hardware).
    fn prefetch_l2(&mut self, cta: &Cta, id: u32, policy: Option<u64>, acc: &[LaneAccess]) {
        let hints = MemHints {
            operator: Some(memsys::CacheOperator::Cg),
            ..MemHints::default()
        };
        let req = self.request(cta, AccessKind::Prefetch, &hints, policy, id);
        for chunk in acc.chunks(memsys::MAX_LANES) {
            let _ = self.mem.load(&req, chunk, &mut []);
        }
    }
}

/// A thread observed the completion of the mbarrier at `mbar` (hazard tracking): the loads it
/// tracked that have landed become visible to every thread at the next barrier.
pub(super) fn observe_bulk(cta: &mut Cta, mbar: u32) {
    if cta.bulk.load_words.is_empty() {
        return;
    }
    let gen = cta.barrier_gen;
    for l in cta.bulk.loads.iter_mut() {
        if l.mbar == mbar && l.landed && l.observed_gen.is_none() {
            l.observed_gen = Some(gen);
        }
    }
}

/// Completes the mbarrier's current phase when both its pending arrivals and its transaction
/// count are zero (PTX ISA "Phase Completion of the mbarrier object").
pub(super) fn mbarrier_check(mb: &mut Mbarrier) {
    if mb.pending == 0 && mb.tx == 0 {
        mb.phase = mb.phase.wrapping_add(1);
        mb.pending = mb.expected;
    }
}
