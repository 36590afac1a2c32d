//! Warp-synchronous instructions: the membermask gate that parks early lanes until the rest
//! of the mask arrives (`warp_sync_gate`, `release_sync_waits`), and `shfl`, `vote`, `elect`,
//! `activemask`, `redux` and `match`.

use super::{lanes, lanes_at, lanes_where, Cta, Machine};
use crate::alu;
use crate::error::{ExecError, FaultKind};
use crate::program::*;

impl Machine<'_> {
    /// A warp-synchronous instruction at `pc` executed by `exec`: the lanes that can complete
    /// it now (`exec` and the lanes parked at `pc` earlier), or `None` when lanes of the
    /// membermask that have not exited are still elsewhere in this frame (the arriving lanes
    /// then wait for them, as the PTX ISA specifies for `vote.sync`, `shfl.sync`, `redux.sync`,
    /// `match.sync` and `bar.warp.sync` on sm_70 and later).
    pub(super) fn warp_sync_gate(
        &self,
        cta: &Cta,
        wi: usize,
        id: u32,
        pc: Pc,
        mask: Src,
        exec: u32,
    ) -> Result<Option<u32>, ExecError> {
        let warp = &cta.warps[wi];
        let frame = warp.frames.last().expect("frame");
        let parked = lanes_at(frame, frame.sync_wait, pc);
        let group = exec | parked;
        read_srcs!(self, cta, wi; m = mask);
        let members = lanes(group).fold(0u32, |acc, l| acc | m[l] as u32);
        // Lanes that exist and have not exited.
        let live = warp.frames[0].mask & !warp.exited;
        let (alive, outside) = if warp.frames.len() == 1 {
            (frame.mask & !frame.done & !warp.exited, 0)
        } else {
            let alive = frame.mask & !frame.done & !warp.exited;
            (alive, live & !alive)
        };
        if members & outside != 0 {
            let lane = exec.trailing_zeros();
            return Err(self.fault(
                cta,
                wi as u32,
                lane,
                id,
                FaultKind::Other(format!(
                    "the membermask 0x{members:08x} names lanes 0x{:08x} that are not executing \
                     this call of `{}` (they diverged before the call); ptxsim runs a call's lanes \
                     until it returns, so it cannot make them meet here",
                    members & outside,
                    self.program.functions[frame.func as usize].name
                )),
            ));
        }
        let missing = members & alive & !group;
        Ok((missing == 0).then_some(group))
    }

    /// Completes the warp-synchronous instructions whose parked lanes no longer wait for
    /// anyone (the lanes they waited for exited). Returns whether one was executed.
    pub(super) fn release_sync_waits(
        &mut self,
        cta: &mut Cta,
        wi: usize,
    ) -> Result<bool, ExecError> {
        let program = self.program;
        let (func, parked) = {
            let f = cta.warps[wi].frames.last().expect("frame");
            (f.func, f.sync_wait)
        };
        let function = &program.functions[func as usize];
        let mut pcs: Vec<Pc> = {
            let f = cta.warps[wi].frames.last().expect("frame");
            lanes(parked).map(|l| f.pc[l]).collect()
        };
        pcs.sort_by_key(|&p| function.rank.get(p as usize).copied().unwrap_or(u32::MAX));
        pcs.dedup();
        for pc in pcs {
            let inst = &function.code[pc as usize];
            let Some(mask) = inst.op.warp_sync_mask() else {
                continue;
            };
            let group = lanes_at(cta.warps[wi].frames.last().expect("frame"), parked, pc);
            if let Some(group) = self.warp_sync_gate(cta, wi, inst.id, pc, mask, group)? {
                let frame = cta.warps[wi].frames.last_mut().expect("frame");
                frame.sync_wait &= !group;
                self.execute(cta, wi, inst, group, group, pc)?;
                let warp = &mut cta.warps[wi];
                let frame = warp.frames.last_mut().expect("frame");
                Self::set_pc(frame, group, pc + 1);
                let alive = frame.mask & !frame.done & !warp.exited;
                Self::reconverge(frame, alive);
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// `shfl`, `vote`, `elect` and `activemask`.
    pub(super) fn exec_shuffle_vote(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        inst: &Inst,
        exec: u32,
        active: u32,
    ) -> Result<(), ExecError> {
        let program = self.program;
        match &inst.op {
            Op::Shfl {
                mode,
                d,
                dp,
                a: x,
                b: y,
                c: z,
                mask: _,
            } => {
                read_srcs!(self, cta, wi; a = *x, b = *y, c = *z);
                let mut pv = 0u32;
                Self::write_lanes(cta, wi, program, *d, exec, |l| {
                    let (src, ok) = alu::shfl_source(*mode, l as u32, b[l] as u32, c[l] as u32);
                    if ok && exec & (1 << src) != 0 {
                        pv |= 1 << l;
                    }
                    if ok {
                        a[src as usize]
                    } else {
                        a[l]
                    }
                });
                if let Some(dp) = dp {
                    Self::write_pred(frame!(cta, wi), *dp, pv, exec);
                }
            }
            Op::Vote {
                mode,
                d,
                dp,
                a: p,
                mask,
            } => {
                // Each lane votes over the lanes of its own membermask (a thread outside the
                // mask contributes nothing): tiled groups pass per-tile masks, so the lanes of
                // one warp-wide instruction can form several independent groups.
                let pm = Self::pred_mask(frame!(cta, wi), *p) & exec;
                read_srcs!(self, cta, wi; b = *mask);
                match mode {
                    VoteMode::Ballot => {
                        if let Some(d) = d {
                            Self::write_lanes(cta, wi, program, *d, exec, |l| {
                                (pm & b[l] as u32) as u64
                            });
                        }
                    }
                    _ => {
                        let pv = lanes_where(exec, |l| {
                            let group = exec & b[l] as u32;
                            let mine = pm & group;
                            match mode {
                                VoteMode::All => mine == group,
                                VoteMode::Any => mine != 0,
                                _ => mine == group || mine == 0,
                            }
                        });
                        if let Some(dp) = dp {
                            Self::write_pred(frame!(cta, wi), *dp, pv, exec);
                        }
                    }
                }
            }
            Op::Elect { d, p, mask } => {
                read_srcs!(self, cta, wi; b = *mask);
                let leader = |l: usize| (exec & b[l] as u32).trailing_zeros();
                Self::write_lanes(cta, wi, program, *d, exec, |l| leader(l) as u64);
                let pv = lanes_where(exec, |l| leader(l) as usize == l);
                if let Some(p) = p {
                    Self::write_pred(frame!(cta, wi), *p, pv, exec);
                }
            }
            Op::Activemask { d } => {
                Self::write_dst(cta, wi, program, *d, &[active as u64; 32], exec);
            }
            _ => unreachable!("`execute` routes only shuffles and votes here"),
        }
        Ok(())
    }

    /// `redux` and `match`: each lane reduces or matches over its own membermask.
    pub(super) fn exec_reduce_match(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        inst: &Inst,
        exec: u32,
    ) -> Result<(), ExecError> {
        let program = self.program;
        match &inst.op {
            Op::Redux {
                op,
                ty,
                d,
                a: x,
                mask,
            } => {
                // The reduction runs over the lanes of each lane's membermask (tiled groups
                // pass one mask per tile, so one instruction can reduce several groups).
                read_srcs!(self, cta, wi; a = *x, b = *mask);
                Self::write_lanes(cta, wi, program, *d, exec, |l| {
                    let group = exec & b[l] as u32;
                    lanes(group)
                        .map(|j| a[j])
                        .reduce(|v, x| alu::atom_combine(*op, *ty, v, x, 0))
                        .unwrap_or(0)
                });
            }
            Op::Match {
                all,
                d,
                dp,
                a: x,
                mask,
            } => {
                // Each lane matches over the lanes of its own membermask that execute.
                read_srcs!(self, cta, wi; a = *x, b = *mask);
                let mut out = [0u64; 32];
                let mut pv = 0u32;
                for l in lanes(exec) {
                    let group = exec & b[l] as u32;
                    if *all {
                        let (m, ok) = ptx_semantics::warp::match_all(&a, group);
                        out[l] = m as u64;
                        if ok {
                            pv |= 1 << l;
                        }
                    } else {
                        out[l] = ptx_semantics::warp::match_any(&a, group, l as u32) as u64;
                    }
                }
                if let Some(d) = d {
                    Self::write_dst(cta, wi, program, *d, &out, exec);
                }
                if let Some(dp) = dp {
                    Self::write_pred(frame!(cta, wi), *dp, pv, exec);
                }
            }
            _ => unreachable!("`execute` routes only redux and match here"),
        }
        Ok(())
    }
}
