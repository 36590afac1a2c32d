//! Control flow and reconvergence: per-lane PCs (`set_pc`), min-rank reconvergence
//! (`reconverge`), branches (`bra`, and `brx.idx`: each lane to its own label of a
//! `.branchtargets` list, an index past the list a kernel fault), `ret`/`exit`/`trap`, calls
//! with their frames and parameter copies (`exec_call`, `pop_frame`), and the builtin calls
//! (`vprintf`, `__assertfail`).

use super::{lanes, Cta, Frame, Machine};
use crate::error::{ExecError, FaultKind};
use crate::program::*;

impl Machine<'_> {
    /// Sets the PC of `lanes` and keeps the uniform fast path honest.
    pub(super) fn set_pc(frame: &mut Frame, lanes: u32, pc: Pc) {
        if lanes == u32::MAX {
            frame.pc = [pc; 32];
            return;
        }
        // Branch-free over the 32 lanes (the compiler makes it a few vector blends): this
        // runs once per warp-instruction.
        for (l, p) in frame.pc.iter_mut().enumerate() {
            *p = if lanes >> l & 1 != 0 { pc } else { *p };
        }
    }

    pub(super) fn reconverge(frame: &mut Frame, alive: u32) {
        let first = alive.trailing_zeros();
        if first >= 32 {
            return;
        }
        let pc = frame.pc[first as usize];
        let mut bits = alive;
        while bits != 0 {
            let l = bits.trailing_zeros();
            bits &= bits - 1;
            if frame.pc[l as usize] != pc {
                frame.uniform = None;
                return;
            }
        }
        frame.uniform = Some(pc);
    }

    pub(super) fn pop_frame(&mut self, cta: &mut Cta, wi: usize) {
        let warp = &mut cta.warps[wi];
        let frame = warp.frames.pop().expect("a frame to pop");
        if let Some(caller) = warp.frames.last_mut() {
            // Copy return values back to the caller's return variables or registers.
            let f = &self.program.functions[frame.func as usize];
            for (r, dst) in f.returns.iter().zip(&frame.rets) {
                for lane in 0..32usize {
                    if frame.mask & (1 << lane) == 0 {
                        continue;
                    }
                    let reg_bytes;
                    let src: &[u8] = match r.reg {
                        Some(slot) => {
                            reg_bytes = frame.regs[frame.base(slot) + lane].to_le_bytes();
                            &reg_bytes[..(r.size as usize).min(8)]
                        }
                        None => {
                            &frame.params[lane * frame.param_bytes as usize + r.offset as usize..]
                                [..r.size as usize]
                        }
                    };
                    match *dst {
                        CallArg::Param { offset, .. } => {
                            let base = lane * caller.param_bytes as usize + offset as usize;
                            if let Some(d) = caller.params.get_mut(base..base + r.size as usize) {
                                d.copy_from_slice(src);
                            }
                        }
                        CallArg::Reg(slot) => {
                            let mut v = [0u8; 8];
                            v[..src.len().min(8)].copy_from_slice(&src[..src.len().min(8)]);
                            let b = caller.base(slot);
                            caller.regs[b + lane] = u64::from_le_bytes(v);
                        }
                        CallArg::Imm(_) => {}
                    }
                }
            }
            let alive = caller.mask & !caller.done & !warp.exited;
            Self::reconverge(caller, alive);
        } else {
            // The kernel frame: its lanes are finished.
            let n = (frame.mask & !warp.exited).count_ones();
            warp.exited |= frame.mask;
            cta.exited_threads += n;
            // The register file serves a later CTA (`new_cta`), zeroed here, on the worker
            // that ran the warp and while it is in its caches.
            let mut regs = frame.regs;
            self.zero_for_reuse(&mut regs);
            warp.spare_regs = regs;
            Self::release_barriers(cta, self.program);
        }
    }

    /// Branches, calls, returns, `exit`, `trap` and `brkpt`: the instructions that set PCs
    /// themselves. Returns `None` (the PCs are set) or a fault.
    pub(super) fn exec_control(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        inst: &Inst,
        exec: u32,
        active: u32,
        pc: Pc,
    ) -> Result<Option<Pc>, ExecError> {
        let program = self.program;
        match &inst.op {
            Op::Bra { target, .. } => {
                let frame = frame!(cta, wi);
                Self::set_pc(frame, exec, *target);
                Self::set_pc(frame, active & !exec, pc + 1);
                let alive = frame.mask & !frame.done & !cta.warps[wi].exited;
                let frame = cta.warps[wi].frames.last_mut().expect("frame");
                if exec == active && frame.uniform.is_some() {
                    frame.uniform = Some(*target);
                } else {
                    Self::reconverge(frame, alive);
                }
            }
            Op::BrxIdx { index, targets } => {
                read_srcs!(self, cta, wi; idx = *index);
                // Out of range is undefined behaviour (PTX ISA, brx.idx): a fault naming the
                // first such lane, before any lane moves.
                if let Some(l) = lanes(exec).find(|&l| idx[l] as u32 as usize >= targets.len()) {
                    return Err(self.fault(
                        cta,
                        wi as u32,
                        l as u32,
                        inst.id,
                        FaultKind::Other(format!(
                            "brx.idx index {} is outside its .branchtargets list of {} labels",
                            idx[l] as u32,
                            targets.len()
                        )),
                    ));
                }
                // A multi-way branch: every lane goes to its own target; the warp runs
                // divergent until the lanes' PCs meet again, as after a two-way `bra`.
                let frame = frame!(cta, wi);
                for l in lanes(exec) {
                    frame.pc[l] = targets[idx[l] as u32 as usize];
                }
                Self::set_pc(frame, active & !exec, pc + 1);
                let alive = frame.mask & !frame.done & !cta.warps[wi].exited;
                let frame = cta.warps[wi].frames.last_mut().expect("frame");
                Self::reconverge(frame, alive);
            }
            Op::Call { func, args, rets } => {
                self.exec_call(cta, wi, inst.id, *func, args, rets, exec, active, pc)?;
            }
            Op::Ret => {
                let depth = cta.warps[wi].frames.len() as u64 - 1;
                let func = cta.warps[wi].frames.last().expect("frame").func;
                let words = program.functions[func as usize].frame_save_words;
                if depth > 0 {
                    self.frame_traffic(
                        cta,
                        wi,
                        inst.id,
                        memsys::AccessKind::Load,
                        exec,
                        words,
                        depth,
                    )?;
                }
                let warp = &mut cta.warps[wi];
                let frame = warp.frames.last_mut().expect("frame");
                frame.done |= exec;
                Self::set_pc(frame, active & !exec, pc + 1);
                let alive = frame.mask & !frame.done & !warp.exited;
                Self::reconverge(frame, alive);
                if warp.frames.len() == 1 {
                    let n = exec.count_ones();
                    warp.exited |= exec;
                    cta.exited_threads += n;
                    Self::release_barriers(cta, program);
                }
            }
            Op::Exit => {
                let warp = &mut cta.warps[wi];
                let n = (exec & !warp.exited).count_ones();
                warp.exited |= exec;
                cta.exited_threads += n;
                let frame = warp.frames.last_mut().expect("frame");
                Self::set_pc(frame, active & !exec, pc + 1);
                let alive = frame.mask & !frame.done & !warp.exited;
                Self::reconverge(frame, alive);
                Self::release_barriers(cta, program);
            }
            Op::Trap | Op::Brkpt => {
                let kind = if matches!(inst.op, Op::Trap) {
                    FaultKind::Trap
                } else {
                    FaultKind::Breakpoint
                };
                return Err(self.fault(cta, wi as u32, exec.trailing_zeros(), inst.id, kind));
            }
            _ => unreachable!("`execute` routes only control flow here"),
        }
        Ok(None)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn exec_call(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        func: u32,
        args: &[CallArg],
        rets: &[CallArg],
        exec: u32,
        active: u32,
        pc: Pc,
    ) -> Result<(), ExecError> {
        let program = self.program;
        let callee = &program.functions[func as usize];
        let warp = &mut cta.warps[wi];
        let caller = warp.frames.last_mut().expect("frame");
        // The caller's lanes continue after the call once it returns.
        Self::set_pc(caller, active, pc + 1);
        let alive = caller.mask & !caller.done & !warp.exited;
        Self::reconverge(caller, alive);
        if callee.code.is_empty() {
            // A declared-only function: the CUDA runtime's `vprintf` and `__assertfail` are
            // run here; any other has no body to run and its results read as 0.
            let name = callee.name.as_str();
            if matches!(name, "vprintf" | "__assertfail") {
                let values: Vec<(usize, Vec<u64>)> = lanes(exec)
                    .map(|lane| {
                        let v = args
                            .iter()
                            .zip(&callee.params)
                            .map(|(a, p)| Self::call_arg_value(caller, a, lane, p.size))
                            .collect();
                        (lane, v)
                    })
                    .collect();
                for (lane, v) in values {
                    self.builtin_call(cta, wi, id, lane, name, &v)?;
                }
            }
            return Ok(());
        }
        let mut frame = Frame::new(callee, exec);
        frame.func = func;
        frame.rets = rets.to_vec();
        for (p, arg) in callee.params.iter().zip(args) {
            for lane in lanes(exec) {
                let bytes = Self::call_arg_bytes(caller, arg, lane, p.size);
                match p.reg {
                    Some(slot) => {
                        let mut v = [0u8; 8];
                        v[..bytes.len().min(8)].copy_from_slice(&bytes[..bytes.len().min(8)]);
                        let b = frame.base(slot);
                        frame.regs[b + lane] = u64::from_le_bytes(v);
                    }
                    None => {
                        let base = lane * frame.param_bytes as usize + p.offset as usize;
                        frame.params[base..base + bytes.len()].copy_from_slice(&bytes);
                    }
                }
            }
        }
        warp.frames.push(frame);
        let depth = warp.frames.len() as u64 - 1;
        self.frame_traffic(
            cta,
            wi,
            id,
            memsys::AccessKind::Store,
            exec,
            callee.frame_save_words,
            depth,
        )
    }

    /// The bytes a call passes for a parameter of `size` bytes in `lane`: a `.param` variable
    /// of the caller (zeros where it has none), or a register or immediate (at most 8 bytes).
    pub(super) fn call_arg_bytes(caller: &Frame, arg: &CallArg, lane: usize, size: u32) -> Vec<u8> {
        match *arg {
            CallArg::Param { offset, .. } => {
                let base = lane * caller.param_bytes as usize + offset as usize;
                caller
                    .params
                    .get(base..base + size as usize)
                    .map(<[u8]>::to_vec)
                    .unwrap_or_else(|| vec![0; size as usize])
            }
            CallArg::Reg(slot) => {
                caller.regs[caller.base(slot) + lane].to_le_bytes()[..size.min(8) as usize].to_vec()
            }
            CallArg::Imm(v) => v.to_le_bytes()[..size.min(8) as usize].to_vec(),
        }
    }

    /// [`Self::call_arg_bytes`] as a little-endian value (its first 8 bytes).
    pub(super) fn call_arg_value(caller: &Frame, arg: &CallArg, lane: usize, size: u32) -> u64 {
        let bytes = Self::call_arg_bytes(caller, arg, lane, size);
        let mut v = [0u8; 8];
        let n = bytes.len().min(8);
        v[..n].copy_from_slice(&bytes[..n]);
        u64::from_le_bytes(v)
    }

    /// `vprintf(format, args)` (device `printf`: the text is kept, in execution order, for
    /// the caller to print) and `__assertfail(message, file, line, function, charSize)`
    /// (a failed device `assert`: the kernel stops with the runtime's message), for one lane.
    pub(super) fn builtin_call(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        lane: usize,
        name: &str,
        args: &[u64],
    ) -> Result<(), ExecError> {
        let arg = |i: usize| args.get(i).copied().unwrap_or(0);
        let mut mem = LaneMemory {
            machine: self,
            cta,
            wi,
            id,
            lane,
        };
        if name == "vprintf" {
            let text = crate::printf::vprintf(&mut mem, arg(0), arg(1));
            let text =
                text.map_err(|m| self.fault(cta, wi as u32, lane as u32, id, FaultKind::Other(m)))?;
            self.summary.printf.push(text);
            Ok(())
        } else {
            let message =
                crate::printf::assert_message(&mut mem, arg(0), arg(1), arg(2) as u32, arg(3));
            Err(self.fault(cta, wi as u32, lane as u32, id, FaultKind::Assert(message)))
        }
    }
}

/// A lane's view of memory for `printf`'s format and arguments: global memory as it is
/// coherently (the runtime reads the buffer after the kernel, not through an SM's L1), other
/// spaces as that lane sees them.
struct LaneMemory<'m, 'p> {
    machine: &'m Machine<'p>,
    cta: &'m mut Cta,
    wi: usize,
    id: u32,
    lane: usize,
}

impl crate::printf::DeviceMemory for LaneMemory<'_, '_> {
    fn read(&mut self, address: u64, len: usize) -> Result<Vec<u8>, String> {
        let (space, a) = self.machine.resolve(Space::Generic, address);
        if space == Space::Global {
            let mut out = vec![0u8; len];
            self.machine
                .mem
                .read(a, &mut out)
                .map_err(|e| format!("{e}"))?;
            return Ok(out);
        }
        self.machine
            .local_bytes(
                self.cta, self.wi, self.id, self.lane, space, a, len as u32, 1, false,
            )
            .map(|r| r.get().to_vec())
            .map_err(|e| e.to_string())
    }
}
