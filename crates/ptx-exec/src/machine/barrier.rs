//! CTA barriers: `bar.sync`/`bar.arrive`/`bar.red` arrivals, completion (with the `bar.red`
//! result), and re-checking barriers when threads exit.

use super::{Cta, Machine, RedWaiter, FULL};
use crate::error::ExecError;
use crate::program::*;

impl Machine<'_> {
    /// `bar.sync`, `bar.arrive` and `bar.red`.
    pub(super) fn exec_bar(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        inst: &Inst,
        exec: u32,
    ) -> Result<(), ExecError> {
        match &inst.op {
            Op::BarSync {
                id,
                count,
                arrive_only,
            } => {
                let bid = self.first_lane_value(cta, wi, *id, exec) as u32;
                let count_v = count.map(|cnt| self.first_lane_value(cta, wi, cnt, exec) as u32);
                self.barrier(cta, wi, bid, count_v, exec, *arrive_only);
            }
            Op::BarRed {
                id,
                count,
                op,
                d,
                dp,
                p,
            } => {
                // Arrive like bar.sync with the lanes' predicates counted; the result is
                // written to every participating thread when the barrier completes (PTX ISA,
                // `bar.red`: the reduction over all threads of the barrier).
                let bid = self.first_lane_value(cta, wi, *id, exec) as u32;
                let count_v = count.map(|cnt| self.first_lane_value(cta, wi, cnt, exec) as u32);
                let pm = Self::pred_mask(frame!(cta, wi), *p) & exec;
                let bar = cta.barriers.entry(bid).or_default();
                bar.red_true += pm.count_ones();
                bar.red_false += (exec & !pm).count_ones();
                bar.red_waiters.push(RedWaiter {
                    warp: wi as u32,
                    lanes: exec,
                    op: *op,
                    d: *d,
                    dp: *dp,
                });
                self.barrier(cta, wi, bid, count_v, exec, false);
            }
            _ => unreachable!("`execute` routes only barriers here"),
        }
        Ok(())
    }

    pub(super) fn barrier(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        count: Option<u32>,
        exec: u32,
        arrive_only: bool,
    ) {
        let live = cta.threads - cta.exited_threads;
        let b = cta.barriers.entry(id).or_default();
        b.expected = count.unwrap_or(cta.threads);
        b.arrived += exec.count_ones();
        if !arrive_only {
            *b.waiting.entry(wi as u32).or_default() |= exec;
            cta.warps[wi].waiting |= exec;
        }
        if b.arrived >= b.expected.min(live) {
            Self::complete_barrier(cta, id, self.program);
        }
    }

    /// Releases barriers whose expected count is met now that fewer threads remain.
    pub(super) fn release_barriers(cta: &mut Cta, program: &Program) {
        let live = cta.threads - cta.exited_threads;
        let ids: Vec<u32> = cta.barriers.keys().copied().collect();
        for id in ids {
            let b = cta.barriers.get_mut(&id).expect("barrier");
            if b.arrived > 0 && b.arrived >= b.expected.min(live) {
                Self::complete_barrier(cta, id, program);
            }
        }
    }

    /// Completes barrier `id`: its waiting lanes go on, `bar.red` lanes get the reduction.
    pub(super) fn complete_barrier(cta: &mut Cta, id: u32, program: &Program) {
        let b = cta.barriers.get_mut(&id).expect("barrier");
        let waiters = std::mem::take(&mut b.red_waiters);
        let (t, f) = (b.red_true, b.red_false);
        b.arrived = 0;
        b.red_true = 0;
        b.red_false = 0;
        // Drained, not taken: the map keeps its room for the barrier's next use.
        for (w, m) in b.waiting.drain() {
            cta.warps[w as usize].waiting &= !m;
        }
        for rw in waiters {
            let wi = rw.warp as usize;
            match rw.op {
                BarRedOp::Popc => {
                    Self::write_dst(cta, wi, program, rw.d, &[t as u64; 32], rw.lanes);
                    // Written after the instruction's step (`uniform.rs`): the entry no
                    // longer holds one value.
                    Self::clear_uniform(cta, wi, rw.d);
                }
                BarRedOp::And | BarRedOp::Or => {
                    let v = if rw.op == BarRedOp::And {
                        f == 0
                    } else {
                        t > 0
                    };
                    if let Some(dp) = rw.dp {
                        let frame = cta.warps[wi].frames.last_mut().expect("frame");
                        Self::write_pred(frame, dp, if v { FULL } else { 0 }, rw.lanes);
                    }
                }
            }
        }
        barrier_completed(cta);
    }
}

/// A barrier completed: copies landed before it are now visible to every thread of the CTA.
pub(super) fn barrier_completed(cta: &mut Cta) {
    cta.barrier_gen += 1;
    if !cta.copy_words.is_empty() {
        let copies = &cta.copies;
        cta.copy_words.retain(|_, c| !copies.get(*c).landed);
    }
    if !cta.bulk.load_words.is_empty() {
        let loads = &cta.bulk.loads;
        let gen = cta.barrier_gen;
        cta.bulk
            .load_words
            .retain(|_, c| loads[*c as usize].observed_gen.is_none_or(|g| gen <= g));
    }
}
