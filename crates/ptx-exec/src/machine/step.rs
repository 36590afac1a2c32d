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
//! A new instruction gets an arm here and a handler in its family's file.

use super::{Cta, Machine};
use crate::error::ExecError;
use crate::program::*;

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
        let exec = match inst.guard {
            Some(g) => active & Self::pred_mask(cta.warps[wi].frames.last().expect("frame"), g),
            None => active,
        };
        self.summary.per_instruction[inst.id as usize] += exec.count_ones() as u64;
        self.summary.thread_instructions += exec.count_ones() as u64;
        let mut next_pc = Some(pc + 1);
        let (mut exec, mut active) = (exec, active);
        if exec != 0 {
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

    /// Executes `inst` for `exec` lanes (of `active` at `pc`). Returns the PC all active
    /// lanes continue at, or `None` when the instruction set PCs itself.
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
            // A fence that ptxas follows with CCTL.IVALL invalidates the SM's L1, so loads
            // ordered after it read other SMs' writes (docs/fences.md).
            Op::Fence {
                invalidate_l1: true,
            } => {
                if self.cfg.cache_model {
                    self.mem.invalidate_l1(cta.sm)?;
                }
            }
            // No effect in this model.
            Op::Nop
            | Op::Fence { .. }
            | Op::WgmmaFence
            | Op::WgmmaCommit
            | Op::WgmmaWait { .. }
            | Op::WarpSync { .. } => {}
            Op::Mov { .. }
            | Op::Pack { .. }
            | Op::Unpack { .. }
            | Op::MovPred { .. }
            | Op::MovVec { .. } => self.exec_move(cta, wi, inst, exec)?,
            Op::Cvt { .. }
            | Op::CvtPack { .. }
            | Op::Cvta { .. }
            | Op::Mapa { .. }
            | Op::IsSpace { .. } => self.exec_convert(cta, wi, inst, exec)?,
            Op::Int1 { .. }
            | Op::Int2 { .. }
            | Op::Int3 { .. }
            | Op::Bfe { .. }
            | Op::Bfi { .. }
            | Op::Prmt { .. }
            | Op::Shf { .. } => self.exec_int(cta, wi, inst, exec)?,
            Op::Carry { .. } | Op::Video { .. } | Op::VideoScalar { .. } | Op::Lop3Pred { .. } => {
                self.exec_int_multi(cta, wi, inst, exec)?
            }
            Op::Float1 { .. }
            | Op::Float2 { .. }
            | Op::Fma { .. }
            | Op::FmaContract { .. }
            | Op::Testp { .. } => self.exec_float(cta, wi, inst, exec)?,
            Op::Setp { .. }
            | Op::Set { .. }
            | Op::Selp { .. }
            | Op::Slct { .. }
            | Op::PredLogic { .. }
            | Op::PredNot { .. } => self.exec_compare(cta, wi, inst, exec)?,
            Op::Ld(ld) => self.exec_load(cta, wi, inst.id, ld, exec)?,
            Op::St(st) => self.exec_store(cta, wi, inst.id, st, exec)?,
            Op::Prefetch { .. }
            | Op::Atom { .. }
            | Op::AtomVec { .. }
            | Op::CreatePolicyFractional { .. }
            | Op::CreatePolicyRange { .. }
            | Op::CreatePolicyCvt { .. } => self.exec_memory_other(cta, wi, inst, exec)?,
            Op::CpAsync(_)
            | Op::CpAsyncCommit
            | Op::CpAsyncWait { .. }
            | Op::CpAsyncWaitAll
            | Op::CpAsyncMbarrierArrive { .. }
            | Op::Mbarrier { .. } => self.exec_async(cta, wi, inst, exec)?,
            Op::BulkCopy(_)
            | Op::TensorCopy(_)
            | Op::BulkPrefetch { .. }
            | Op::BulkCommit
            | Op::BulkWait { .. }
            | Op::TensormapReplace { .. }
            | Op::TensormapCopy { .. } => self.exec_bulk_family(cta, wi, inst, exec)?,
            Op::BarSync { .. } | Op::BarRed { .. } => self.exec_bar(cta, wi, inst, exec)?,
            Op::Shfl { .. } | Op::Vote { .. } | Op::Elect { .. } | Op::Activemask { .. } => {
                self.exec_shuffle_vote(cta, wi, inst, exec, active)?
            }
            Op::Redux { .. } | Op::Match { .. } => self.exec_reduce_match(cta, wi, inst, exec)?,
            Op::Ldmatrix { .. }
            | Op::Stmatrix { .. }
            | Op::Mma { .. }
            | Op::WmmaLoad(_)
            | Op::WmmaStore(_)
            | Op::WmmaMma { .. }
            | Op::Wgmma { .. } => self.exec_matrix(cta, wi, inst, exec)?,
            Op::Bra { .. }
            | Op::BrxIdx { .. }
            | Op::Call { .. }
            | Op::Ret
            | Op::Exit
            | Op::Trap
            | Op::Brkpt => return self.exec_control(cta, wi, inst, exec, active, pc),
        }
        Ok(Some(pc + 1))
    }
}
