//! The machine's hooks into the hazard tracker (`crate::hazards`): global loads and stores,
//! shared-memory reads and writes (with stale reads of copies that have not landed), each
//! tagged with the thread and instruction that made it.

use super::{Cta, Machine};
use crate::hazards::Access;
use memsys::{LaneAccess, Request};

impl Machine<'_> {
    /// Feeds global loads to the hazard tracker.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn track_loads(
        &mut self,
        cta: &Cta,
        wi: usize,
        id: u32,
        req: &Request,
        acc: &[LaneAccess],
        places: &[(usize, usize, usize)],
        stale_lanes: u64,
    ) {
        if self.tracker.is_none() {
            return;
        }
        let weak_cached = req.semantics == memsys::Semantics::Weak
            && !matches!(
                req.operator,
                Some(memsys::CacheOperator::Cg | memsys::CacheOperator::Cv)
            );
        let threads = cta.threads as u64;
        for (k, (a, p)) in acc.iter().zip(places).enumerate() {
            let access = self.access(cta, wi, id, p.0);
            let thread_global =
                cta.linear * threads + (cta.warps[wi].index * 32) as u64 + p.0 as u64;
            let stale = stale_lanes & (1 << k) != 0;
            if let Some(t) = &mut self.tracker {
                t.global_load(
                    access,
                    cta.linear,
                    thread_global,
                    a.addr,
                    a.bytes,
                    req.non_coherent,
                    weak_cached,
                    stale,
                );
            }
        }
    }

    /// Feeds global stores (and atomics) to the hazard tracker.
    pub(super) fn track_stores(
        &mut self,
        cta: &Cta,
        wi: usize,
        id: u32,
        acc: &[LaneAccess],
        places: &[(usize, usize, usize)],
    ) {
        if self.tracker.is_none() {
            return;
        }
        for (a, p) in acc.iter().zip(places) {
            let access = self.access(cta, wi, id, p.0);
            if let Some(t) = &mut self.tracker {
                t.global_store(access, cta.linear, a.addr, a.bytes);
            }
        }
    }

    /// Who is executing: instruction, CTA and thread of `lane`.
    pub(super) fn access(&self, cta: &Cta, wi: usize, id: u32, lane: usize) -> Access {
        Access {
            instr: id,
            cta: cta.id,
            thread: self.thread_of(cta, wi as u32, lane as u32),
        }
    }

    /// Hazard check of a shared-memory access by one lane: does it touch the destination of a
    /// copy that has not completed for this thread?
    pub(super) fn check_shared(
        &mut self,
        cta: &Cta,
        wi: usize,
        lane: usize,
        access: Access,
        offset: u64,
        bytes: u32,
    ) {
        let Some(tracker) = &mut self.tracker else {
            return;
        };
        let thread = cta.warps[wi].index * 32 + lane as u32;
        let first = (offset / 4) as u32;
        let last = ((offset + bytes.max(1) as u64 - 1) / 4) as u32;
        if !cta.bulk.load_words.is_empty() {
            for w in first..=last {
                let Some(&lid) = cta.bulk.load_words.get(&w) else {
                    continue;
                };
                let l = &cta.bulk.loads[lid as usize];
                let visible = l.landed
                    && (l.observed_gen.is_some_and(|g| cta.barrier_gen > g)
                        || cta
                            .mbar_seen
                            .get(&(l.mbar, thread))
                            .is_some_and(|&seq| seq >= l.landed_seq));
                if !visible {
                    tracker.shared_conflict(access, offset, bytes, l.access);
                    return;
                }
            }
        }
        if cta.copy_words.is_empty() {
            return;
        }
        for w in first..=last {
            let Some(&cid) = cta.copy_words.get(&w) else {
                continue;
            };
            let landed = cta.copies.get(cid).landed;
            let c = cta.copies.trace(cid);
            let visible = landed
                && (c.issuer == thread
                    || cta.barrier_gen > c.landed_gen
                    || c.via_mbar
                        .is_some_and(|m| cta.mbar_seen.contains_key(&(m, thread))));
            if !visible {
                tracker.shared_conflict(access, offset, bytes, c.access);
                return;
            }
        }
    }

    /// Hazard check of a shared-memory write by one lane: does it overwrite the source of a
    /// bulk store (`cp{.reduce}.async.bulk{.tensor}` to global) not read yet
    /// (`cp.async.bulk.wait_group.read`)?
    pub(super) fn check_shared_write(
        &mut self,
        cta: &Cta,
        access: Access,
        offset: u64,
        bytes: u32,
    ) {
        let Some(tracker) = &mut self.tracker else {
            return;
        };
        if cta.bulk.store_words.is_empty() {
            return;
        }
        let first = (offset / 4) as u32;
        let last = ((offset + bytes.max(1) as u64 - 1) / 4) as u32;
        for w in first..=last {
            if let Some(&sid) = cta.bulk.store_words.get(&w) {
                tracker.shared_conflict(
                    access,
                    offset,
                    bytes,
                    cta.bulk.stores[sid as usize].access,
                );
                return;
            }
        }
    }
}
