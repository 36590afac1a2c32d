//! Asynchronous copies and mbarriers: `cp.async` (read at issue, landed in shared memory at
//! the covering `wait_group`/`wait_all` or mbarrier wait), `cp.async.mbarrier.arrive`, and the
//! `mbarrier` instructions. Bulk copies and TMA are in `bulk.rs`.

use super::addressing::{Accesses, Places};
use super::operands::or_imm;
use super::{bulk, lanes, AsyncArrive, CopyTrace, Cta, Machine, Mbarrier, PendingCopy};
use crate::error::ExecError;
use crate::memory::classify_generic;
use crate::program::*;
use memsys::{AccessKind, LaneAccess};
use smallvec::SmallVec;
use std::collections::VecDeque;

impl Machine<'_> {
    /// `cp.async` and its groups, `cp.async.mbarrier.arrive`, and `mbarrier`.
    pub(super) fn exec_async(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        inst: &Inst,
        exec: u32,
    ) -> Result<(), ExecError> {
        match &inst.op {
            Op::CpAsync(cp) => self.exec_cp_async(cta, wi, inst.id, cp, exec)?,
            // Counters-only mode, no shared value needed: no copy was recorded, so the groups
            // have nothing to land.
            Op::CpAsyncCommit | Op::CpAsyncWait { .. } | Op::CpAsyncWaitAll
                if self.shared_values_unused() => {}
            Op::CpAsyncCommit => {
                for l in lanes(exec) {
                    let la = &mut cta.warps[wi].asyncs[l];
                    let g = std::mem::take(&mut la.uncommitted);
                    la.groups.push_back(g);
                }
            }
            Op::CpAsyncWait { n } => {
                for l in lanes(exec) {
                    // Oldest group first: the ids rise from group to group, so this is the
                    // issue order `land_copies` keeps.
                    while cta.warps[wi].asyncs[l].groups.len() > *n as usize {
                        let Some(mut g) = cta.warps[wi].asyncs[l].groups.pop_front() else {
                            break;
                        };
                        self.land_copies(cta, &g, None);
                        // The group's buffer serves the thread's next uncommitted copies.
                        let la = &mut cta.warps[wi].asyncs[l];
                        if la.uncommitted.capacity() == 0 {
                            g.clear();
                            la.uncommitted = g;
                        }
                    }
                }
                self.complete_async_arrives(cta, None);
            }
            Op::CpAsyncWaitAll => {
                for l in lanes(exec) {
                    let la = &mut cta.warps[wi].asyncs[l];
                    let mut to_land: Vec<u32> = la.groups.drain(..).flatten().collect();
                    to_land.append(&mut la.uncommitted);
                    self.land_copies(cta, &to_land, None);
                }
                self.complete_async_arrives(cta, None);
            }
            Op::CpAsyncMbarrierArrive {
                addr,
                generic,
                noinc,
            } => {
                read_addrs!(self, cta, wi; a = *addr);
                for l in lanes(exec) {
                    let mbar = self.shared_offset(cta, wi, inst.id, l as u32, a[l], *generic, 8)?;
                    let la = &cta.warps[wi].asyncs[l];
                    let copies: Vec<u32> = la
                        .uncommitted
                        .iter()
                        .chain(la.groups.iter().flatten())
                        .copied()
                        .filter(|&id| !cta.copies.get(id).landed)
                        .collect();
                    if !*noinc {
                        cta.mbarriers.entry(mbar).or_default().pending += 1;
                    }
                    cta.async_arrives.push(AsyncArrive { mbar, copies });
                }
            }
            Op::Mbarrier {
                op,
                d,
                dp,
                addr,
                generic,
                b: x,
            } => self.exec_mbarrier(cta, wi, inst.id, *op, *d, *dp, *addr, *generic, *x, exec)?,
            _ => unreachable!("`execute` routes only cp.async and mbarrier ops here"),
        }
        Ok(())
    }

    pub(super) fn exec_cp_async(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        cp: &CpAsyncInst,
        exec: u32,
    ) -> Result<(), ExecError> {
        read_addrs!(self, cta, wi; d = cp.dst, s = cp.src);
        read_srcs!(self, cta, wi; sz = or_imm(cp.src_size, cp.cp_size as u64));
        let ignore = match cp.ignore_src {
            Some(p) => Self::pred_mask(cta.warps[wi].frames.last().expect("frame"), p),
            None => 0,
        };
        let policy = self.policy_value(cta, wi, cp.policy, exec);
        // Counters-only mode, no shared value needed: the global read is what the counters
        // see; its bytes would land where nothing the slice needs reads them.
        let unused = self.shared_values_unused();
        let mut accesses: Accesses = SmallVec::new();
        let mut places: Places = SmallVec::new();
        let mut dsts: SmallVec<[(usize, u32, u32, u64); 32]> = SmallVec::new();
        let mut bytes = 0usize;
        // Every lane's destination checked at once when they all pass.
        let dsts_ok =
            !cp.dst_generic && exec == u32::MAX && Self::shared_offsets_ok(cta, &d, cp.cp_size);
        // Counters-only mode, a full warp copying whole chunks from aligned global addresses
        // (the common case): its accesses in one pass, nothing to fault.
        let whole = unused
            && dsts_ok
            && ignore == 0
            && sz.iter().all(|&v| v as u32 >= cp.cp_size)
            && !cp.src_generic
            && cp.cp_size.is_power_of_two()
            && s.iter().fold(0, |m, &a| m | a) & (u64::from(cp.cp_size) - 1) == 0;
        if whole {
            let n = cp.cp_size;
            accesses = SmallVec::from_buf(std::array::from_fn(|l| LaneAccess::new(s[l], n)));
            places = SmallVec::from_buf(std::array::from_fn(|l| (l, 0, n as usize)));
            bytes = 32 * n as usize;
        }
        for l in lanes(if whole { 0 } else { exec }) {
            let dst = if dsts_ok {
                (d[l] & 0xFFFF_FFFF) as u32
            } else {
                self.shared_offset(cta, wi, id, l as u32, d[l], cp.dst_generic, cp.cp_size)?
            };
            let src = if cp.src_generic {
                classify_generic(s[l]).1
            } else {
                s[l]
            };
            let n = if ignore & (1 << l) != 0 {
                0
            } else {
                (sz[l] as u32).min(cp.cp_size)
            };
            // The source is read with the copy's size, so it must be aligned to it.
            if n > 0 && !super::addressing::is_aligned(src, cp.cp_size as u64) {
                return Err(self.misaligned_global(cta, wi, l as u32, id, src, cp.cp_size));
            }
            if !unused {
                dsts.push((l, dst, n, src));
            }
            if n > 0 {
                accesses.push(LaneAccess::new(src, n));
                places.push((l, 0, n as usize));
                bytes += n as usize;
            }
        }
        // The bytes read, unless counters-only mode needs none (`unused`).
        let mut buf: Option<SmallVec<[u8; 512]>> =
            (!unused).then(|| smallvec::smallvec![0u8; bytes]);
        if !accesses.is_empty() {
            let req = self.request(cta, AccessKind::AsyncCopy, &cp.hints, policy, id);
            self.read_global(cta, wi, id, &req, &accesses, &places, buf.as_deref_mut())?;
            self.summary.cp_async_bytes += bytes as u64;
        }
        let Some(buf) = buf else {
            return Ok(());
        };
        let mut data = [[0u8; 16]; 32];
        let mut off = 0;
        for &(l, _, n) in &places {
            data[l][..n].copy_from_slice(&buf[off..off + n]);
            off += n;
        }
        for (l, dst, n, src) in dsts {
            let access = self.access(cta, wi, id, l);
            if self.tracker.is_some() {
                // Overwriting the destination of a copy still in flight is a race too.
                self.check_shared(cta, wi, l, access, dst as u64, cp.cp_size);
                self.check_shared_write(cta, access, dst as u64, cp.cp_size);
            }
            if cta.copies.wants_compaction() {
                compact_copies(cta);
            }
            let copy = PendingCopy {
                dst,
                len: cp.cp_size as u8,
                landed: false,
                data: data[l],
            };
            let trace = self.tracker.is_some().then(|| CopyTrace {
                access,
                issuer: cta.warps[wi].index * 32 + l as u32,
                src,
                src_len: n,
                landed_gen: 0,
                via_mbar: None,
            });
            let copy_id = cta.copies.push(copy, trace);
            cta.warps[wi].asyncs[l].uncommitted.push(copy_id);
            if let Some(t) = &mut self.tracker {
                t.copy_issued(access, src, n);
                bulk::claim_words(&mut cta.copy_words, dst, cp.cp_size, copy_id);
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn exec_mbarrier(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        op: MbarrierOp,
        d: Option<Dst>,
        dp: Option<PredIdx>,
        addr: Addr,
        generic: bool,
        b: Option<Src>,
        exec: u32,
    ) -> Result<(), ExecError> {
        read_addrs!(self, cta, wi; a = addr);
        read_srcs!(self, cta, wi; bv = or_imm(b, 0));
        let mut out = [0u64; 32];
        let mut pv = 0u32;
        let mut land = Vec::new();
        for l in lanes(exec) {
            let off = self.shared_offset(cta, wi, id, l as u32, a[l], generic, 8)?;
            match op {
                MbarrierOp::Init => {
                    let count = bv[l] as u32;
                    cta.mbarriers.insert(
                        off,
                        Mbarrier {
                            expected: count,
                            pending: count,
                            phase: 0,
                            tx: 0,
                        },
                    );
                    cta.shared[off as usize..off as usize + 8]
                        .copy_from_slice(&(count as u64).to_le_bytes());
                }
                MbarrierOp::Inval => {
                    cta.mbarriers.remove(&off);
                }
                MbarrierOp::Arrive | MbarrierOp::ArriveDrop | MbarrierOp::ArriveExpectTx => {
                    let mb = cta.mbarriers.entry(off).or_default();
                    out[l] = mb.phase as u64;
                    if op == MbarrierOp::ArriveExpectTx {
                        mb.tx += (bv[l] & 0xFFFF_FFFF) as i64;
                    }
                    let count = if op == MbarrierOp::ArriveExpectTx {
                        1
                    } else if b.is_some() {
                        bv[l] as u32
                    } else {
                        1
                    };
                    if op == MbarrierOp::ArriveDrop {
                        mb.expected = mb.expected.saturating_sub(1);
                    }
                    mbarrier_arrive(mb, count);
                }
                MbarrierOp::ExpectTx => {
                    let mb = cta.mbarriers.entry(off).or_default();
                    mb.tx += (bv[l] & 0xFFFF_FFFF) as i64;
                    bulk::mbarrier_check(mb);
                }
                MbarrierOp::CompleteTx => {
                    let mb = cta.mbarriers.entry(off).or_default();
                    mb.tx -= (bv[l] & 0xFFFF_FFFF) as i64;
                    bulk::mbarrier_check(mb);
                }
                MbarrierOp::TestWait
                | MbarrierOp::TryWait
                | MbarrierOp::TestWaitParity
                | MbarrierOp::TryWaitParity => {
                    // Copies bound to this mbarrier land now: the latest moment a waiter can
                    // observe them. Bulk copies land after this instruction's test (below): a
                    // waiter sees their completion at its next test, so a wait whose `false` is
                    // ignored (no retry loop) reads before the copy completed, as hardware may.
                    self.complete_async_arrives(cta, Some(off));
                    if !land.contains(&off) {
                        land.push(off);
                    }
                    let mb = cta.mbarriers.entry(off).or_default();
                    let done = match op {
                        MbarrierOp::TestWaitParity | MbarrierOp::TryWaitParity => {
                            (mb.phase & 1) as u64 != (bv[l] & 1)
                        }
                        _ => mb.phase as u64 != bv[l],
                    };
                    if done {
                        pv |= 1 << l;
                        if self.tracker.is_some() {
                            let thread = cta.warps[wi].index * 32 + l as u32;
                            cta.mbar_seen.insert((off, thread), cta.bulk.land_seq);
                            bulk::observe_bulk(cta, off);
                        }
                    }
                }
                MbarrierOp::PendingCount => {
                    out[l] = cta.mbarriers.get(&off).map_or(0, |m| m.pending) as u64;
                }
            }
        }
        for off in land {
            self.land_bulk(cta, off);
        }
        if let Some(d) = d {
            Self::write_dst(cta, wi, self.program, d, &out, exec);
        }
        if let Some(dp) = dp {
            Self::write_pred(
                cta.warps[wi].frames.last_mut().expect("frame"),
                dp,
                pv,
                exec,
            );
        }
        Ok(())
    }

    /// Writes copies into shared memory (once each, in issue order). `via_mbar`: the mbarrier
    /// whose wait lands them.
    pub(super) fn land_copies(&mut self, cta: &mut Cta, ids: &[u32], via_mbar: Option<u32>) {
        if !ids.windows(2).all(|w| w[0] <= w[1]) {
            let mut sorted = ids.to_vec();
            sorted.sort_unstable();
            return self.land_copies(cta, &sorted, via_mbar);
        }
        for &id in ids {
            let c = cta.copies.get_mut(id);
            if c.landed {
                continue;
            }
            c.landed = true;
            let (dst, len) = (c.dst as usize, c.len as usize);
            cta.shared[dst..dst + len].copy_from_slice(&c.data[..len]);
            if let Some(t) = &mut self.tracker {
                let trace = cta.copies.trace_mut(id);
                trace.landed_gen = cta.barrier_gen;
                trace.via_mbar = via_mbar;
                t.copy_completed(trace.src, trace.src_len);
            }
        }
    }

    /// Performs the arrive-on of `cp.async.mbarrier.arrive` bindings whose copies have landed
    /// — or, for `mbar`, lands them first.
    pub(super) fn complete_async_arrives(&mut self, cta: &mut Cta, mbar: Option<u32>) {
        let arrives = std::mem::take(&mut cta.async_arrives);
        let mut keep = Vec::new();
        for a in arrives {
            if Some(a.mbar) == mbar {
                self.land_copies(cta, &a.copies, mbar);
            }
            if a.copies.iter().all(|&c| cta.copies.get(c).landed) {
                mbarrier_arrive(cta.mbarriers.entry(a.mbar).or_default(), 1);
            } else {
                keep.push(a);
            }
        }
        cta.async_arrives = keep;
    }
}

pub(super) fn mbarrier_arrive(mb: &mut Mbarrier, count: u32) {
    mb.pending = mb.pending.saturating_sub(count);
    bulk::mbarrier_check(mb);
}

/// A CTA's `cp.async` copies by id (ids count up from 0 in issue order). Copies that have
/// landed and that nothing refers to any more are dropped from the front now and then, so the
/// list holds about the copies in flight rather than every copy the CTA ever issued (16 K at
/// K = 1024 in Triton's matmul, which made its growth a fifth of the run time).
pub(super) struct CopyList {
    /// The id of `items[0]`.
    base: u32,
    items: VecDeque<PendingCopy>,
    /// The hazard detector's facts of each copy in `items` (empty when it does not run).
    traces: VecDeque<CopyTrace>,
    /// `push` asks for a compaction once `items` holds this many.
    compact_at: usize,
}

impl Default for CopyList {
    fn default() -> Self {
        CopyList {
            base: 0,
            items: VecDeque::new(),
            traces: VecDeque::new(),
            compact_at: Self::MIN_COMPACT,
        }
    }
}

impl CopyList {
    /// No compaction below this many copies (a short kernel never compacts).
    const MIN_COMPACT: usize = 1024;

    /// Appends a copy (with its trace when the hazard detector runs: for every copy of the
    /// launch or none); returns its id.
    pub(super) fn push(&mut self, c: PendingCopy, trace: Option<CopyTrace>) -> u32 {
        self.items.push_back(c);
        self.traces.extend(trace);
        self.base + (self.items.len() - 1) as u32
    }

    /// The copy with id `id` (one still referred to, so still held).
    pub(super) fn get(&self, id: u32) -> &PendingCopy {
        &self.items[(id - self.base) as usize]
    }

    pub(super) fn get_mut(&mut self, id: u32) -> &mut PendingCopy {
        &mut self.items[(id - self.base) as usize]
    }

    /// The hazard detector's facts of copy `id` (only while it runs).
    pub(super) fn trace(&self, id: u32) -> &CopyTrace {
        &self.traces[(id - self.base) as usize]
    }

    fn trace_mut(&mut self, id: u32) -> &mut CopyTrace {
        &mut self.traces[(id - self.base) as usize]
    }

    pub(super) fn wants_compaction(&self) -> bool {
        self.items.len() >= self.compact_at
    }

    /// Drops the copies with ids below `keep_from` (all landed and unreferenced), and sets
    /// the next compaction at twice what is left (amortized O(1) per copy).
    fn drop_before(&mut self, keep_from: u32) {
        let n = (keep_from.saturating_sub(self.base) as usize).min(self.items.len());
        self.items.drain(..n);
        self.traces.drain(..n.min(self.traces.len()));
        self.base += n as u32;
        self.compact_at = (2 * self.items.len()).max(Self::MIN_COMPACT);
    }
}

/// Drops the copies that no longer matter: those below the lowest id that is unlanded or
/// still referred to (by a thread's uncommitted list or groups, a `cp.async.mbarrier.arrive`
/// binding, or the hazard tracker's shared-word map).
fn compact_copies(cta: &mut Cta) {
    let c = &cta.copies;
    let first_unlanded = c
        .items
        .iter()
        .position(|p| !p.landed)
        .map_or(c.base + c.items.len() as u32, |i| c.base + i as u32);
    let lanes = cta.warps.iter().flat_map(|w| &w.asyncs);
    let referenced = lanes
        .flat_map(|la| la.uncommitted.iter().chain(la.groups.iter().flatten()))
        .chain(cta.async_arrives.iter().flat_map(|a| &a.copies))
        .chain(cta.copy_words.values())
        .copied()
        .min()
        .unwrap_or(u32::MAX);
    cta.copies.drop_before(first_unlanded.min(referenced));
}
