//! One instruction for a warp: `step` applies the guard, counts it, passes warp-synchronous
//! instructions through their gate, runs the instruction and advances (and reconverges) the
//! lanes; `execute` dispatches each instruction family to its handler:
//!
//! | family | handler | file |
//! |---|---|---|
//! | moves, conversions, integer, float, compare | `exec_move`, `exec_convert`, `exec_int`, `exec_int_multi`, `exec_float`, `exec_compare` | `alu_ops.rs` |
//! | `ld`, `st`, `prefetch`, `atom`/`red`, `createpolicy` | `exec_load`, `exec_store`, `exec_memory_other` | `mem_ops.rs` |
//! | `cp.async`, `mbarrier` | `exec_async` | `async_copy.rs` |
//! | bulk copies, TMA, tensor maps | `exec_bulk_family` | `bulk.rs` |
//! | `bar.*` | `exec_bar` | `barrier.rs` |
//! | `shfl`, `vote`, `elect`, `activemask`, `redux`, `match` | `exec_shuffle_vote`, `exec_reduce_match` | `warp_sync.rs` |
//! | `ldmatrix`, `stmatrix`, `mma`, `wmma`, `wgmma` | `exec_matrix` | `matrix.rs` |
//! | `bra`, `call`, `ret`, `exit`, `trap`, `brkpt` | `exec_control` | `control.rs` |
//!
//! The dispatcher is generated from the operation table (`program/ops.rs`): a new instruction
//! gets a row there and a handler in its family's file.

use super::{Cta, Machine};
use crate::error::ExecError;
use crate::program::*;

/// One handler call of the dispatcher: the table's handler column (`program/ops.rs`) names a
/// `Machine` method that takes `(cta, wi, inst, exec)`, or one of the forms below.
macro_rules! run_handler {
    (nothing; $m:ident, $cta:ident, $wi:ident, $inst:ident, $exec:ident, $active:ident, $pc:ident) => {{}};
    (fence; $m:ident, $cta:ident, $wi:ident, $inst:ident, $exec:ident, $active:ident, $pc:ident) => {
        $m.exec_fence($cta, $inst)?
    };
    (load; $m:ident, $cta:ident, $wi:ident, $inst:ident, $exec:ident, $active:ident, $pc:ident) => {{
        let Op::Ld(ld) = &$inst.op else {
            unreachable!()
        };
        $m.exec_load($cta, $wi, $inst.id, ld, $exec)?
    }};
    (store; $m:ident, $cta:ident, $wi:ident, $inst:ident, $exec:ident, $active:ident, $pc:ident) => {{
        let Op::St(st) = &$inst.op else {
            unreachable!()
        };
        $m.exec_store($cta, $wi, $inst.id, st, $exec)?
    }};
    (shuffle_vote; $m:ident, $cta:ident, $wi:ident, $inst:ident, $exec:ident, $active:ident, $pc:ident) => {
        $m.exec_shuffle_vote($cta, $wi, $inst, $exec, $active)?
    };
    // Control flow sets the lanes' PCs itself.
    (control; $m:ident, $cta:ident, $wi:ident, $inst:ident, $exec:ident, $active:ident, $pc:ident) => {
        return $m.exec_control($cta, $wi, $inst, $exec, $active, $pc)
    };
    ($h:ident; $m:ident, $cta:ident, $wi:ident, $inst:ident, $exec:ident, $active:ident, $pc:ident) => {
        $m.$h($cta, $wi, $inst, $exec)?
    };
}

macro_rules! gen_execute {
    ($( $v:ident => $h:ident, $r:ident $(($rf:ident))?, $p:ident $(($pf:ident))?, $regs:tt, $s:ident, $sl:ident $(($slf:ident))?; )*) => {
        impl Machine<'_> {
            /// Executes `inst` for `exec` lanes (of `active` at `pc`): the handler column of the
            /// operation table (`program/ops.rs`). Returns the PC all active lanes continue at,
            /// or `None` when the instruction set PCs itself.
            pub(super) fn execute(
                &mut self,
                cta: &mut Cta,
                wi: usize,
                inst: &Inst,
                exec: u32,
                active: u32,
                pc: Pc,
            ) -> Result<Option<Pc>, ExecError> {
                match &inst.op {
                    $( Op::$v { .. } => run_handler!($h; self, cta, wi, inst, exec, active, pc), )*
                }
                Ok(Some(pc + 1))
            }
        }
    };
}
crate::program::ops::for_each_op!(gen_execute);

impl Machine<'_> {
    pub(super) fn step(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        pc: Pc,
        active: u32,
    ) -> Result<(), ExecError> {
        let program = self.program;
        let func = cta.warps[wi].frames.last().expect("frame").func;
        let inst = &program.functions[func as usize].code[pc as usize];
        let exec = self.count(cta.warps[wi].frames.last().expect("frame"), inst, active);
        let mut next_pc = Some(pc + 1);
        let (mut exec, mut active) = (exec, active);
        // Counters-only mode: an instruction outside the slice is counted, not run.
        let skipped = self.slice.is_some_and(|s| s.skip[pc as usize]);
        if exec != 0 && !skipped {
            if let Some(mask) = inst.op.warp_sync_mask() {
                match self.warp_sync_gate(cta, wi, inst.id, pc, mask, exec)? {
                    Some(group) => {
                        // Lanes parked here earlier join the ones arriving now.
                        let frame = cta.warps[wi].frames.last_mut().expect("frame");
                        frame.sync_wait &= !group;
                        exec = group;
                        active |= group;
                    }
                    None => {
                        // Park the executing lanes; the others (guard false) go on.
                        let frame = cta.warps[wi].frames.last_mut().expect("frame");
                        frame.sync_wait |= exec;
                        Self::set_pc(frame, active & !exec, pc + 1);
                        frame.uniform = None;
                        return Ok(());
                    }
                }
            }
            next_pc = self.execute(cta, wi, inst, exec, active, pc)?;
            if let Some(&c) = self.slice.and_then(|s| s.clobbers.get(pc as usize)) {
                if c != 0 {
                    Self::recheck_uniform(cta, wi, c);
                }
            }
        }
        if let Some(np) = next_pc {
            let warp = &mut cta.warps[wi];
            if let Some(frame) = warp.frames.last_mut() {
                // The frame may have changed (call): only advance the lanes of this frame.
                if frame.func == func && frame.pc[active.trailing_zeros() as usize] == pc {
                    Self::set_pc(frame, active, np);
                    if frame.uniform.is_some() {
                        frame.uniform = Some(np);
                    } else {
                        let alive = frame.mask & !frame.done & !warp.exited;
                        Self::reconverge(frame, alive);
                    }
                }
            }
        }
        Ok(())
    }

    /// Counts `inst` for the lanes of `active` its guard lets run (by `frame`'s predicates),
    /// which it returns: how `step` and a skipped run (`pass_skipped_run`) count an
    /// instruction, so counters-only mode counts as the full run does.
    #[inline(always)]
    pub(super) fn count(&mut self, frame: &super::Frame, inst: &Inst, active: u32) -> u32 {
        let exec = match inst.guard {
            Some(g) => active & Self::pred_mask(frame, g),
            None => active,
        };
        self.summary.per_instruction[inst.id as usize] += exec.count_ones() as u64;
        self.summary.thread_instructions += exec.count_ones() as u64;
        exec
    }

    /// A fence that ptxas follows with CCTL.IVALL invalidates the SM's L1, so loads ordered
    /// after it read other SMs' writes (docs/fences.md); other fences have no effect in this
    /// model.
    fn exec_fence(&mut self, cta: &Cta, inst: &Inst) -> Result<(), ExecError> {
        if let Op::Fence {
            invalidate_l1: true,
        } = inst.op
        {
            if self.cfg.cache_model {
                self.mem.invalidate_l1(cta.sm)?;
            }
        }
        Ok(())
    }
}
