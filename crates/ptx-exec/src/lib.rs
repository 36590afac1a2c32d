//! `ptx-exec`: runs PTX kernels on a CPU, bit-exact, over the `memsys` memory model.
//!
//! ```text
//! ast::Module ──lower (once)──► Program (flat Inst arrays, resolved slots/labels/symbols)
//!                                  │
//! Session::launch ──► Machine: CTAs → warps of 32 lanes, one Inst per step for the active
//!                     lanes (min-PC reconvergence) ──► memsys (global; local: tags and
//!                     counters, bytes kept per warp) / shared / param
//! ```
//!
//! Where each rule lives:
//!
//! ```text
//! lib.rs             Session: buffers, parameter packing, launch
//! lower.rs           ast → Program: lower_module, scopes, labels, declarations, dispatch
//!   lower/layout.rs  module variables' placement, size limits, initializers
//!   lower/operands.rs registers, predicates, specials, immediates, addresses; OperandCx
//!   lower/memory.rs  ld, st, cp.async, createpolicy; AST → memsys qualifier maps
//!   lower/ops/       generic instructions by family (mod.rs: Mods, lower_generic dispatch):
//!                    moves, int_forms, arith, bits, compare, control, atomic, sync, warp,
//!                    matrix
//!   lower/bulk.rs    cp.async.bulk*, cp.reduce.async.bulk*, tensormap lowering
//! program.rs         the lowered form: Function, Inst, Op; program/: operands.rs,
//!                    mem_inst.rs (memory payloads, hints), operators.rs, ops.rs (the
//!                    operation table, for_each_op!: each Op's handler, reach, phase,
//!                    register roles and warp-sync mask, from which dispatch, Op::reach,
//!                    Op::needs_serial_phase, the register slots and Op::warp_sync_mask are
//!                    generated), schedule.rs (ranks, successors), slots.rs (each
//!                    instruction's register slots, for the prefetch), slice.rs (the
//!                    counters-only slice), reg_alloc.rs (the slice's registers folded onto
//!                    few register-file entries)
//! alu.rs, printf.rs, tensormap.rs, memory.rs   pure helpers (arithmetic, printf, TMA maps,
//!                    generic address windows)
//! hazards.rs         the hazard tracker (races, stale reads) fed by the machine
//! residency.rs       CTAs per SM (cuda_occupancy.h's formula) and the limit that binds
//! register_estimate.rs  registers per thread from the PTX when the launch gives none
//! machine/           one launch:
//!   mod.rs           LaunchConfig, RunSummary, Machine, Cta, Warp, Frame; new, run*
//!   schedule.rs      run_grid (resident CTAs, turn order, rounds), run_warp (a warp's turn,
//!                    step limit, progress counter, register prefetch), fault sites, the
//!                    deadlock report
//!   rounds.rs        a round's phases: CTA-local work in parallel over CTAs on the
//!                    launch's host threads, then the global accesses (and the CTA-local
//!                    instructions close between them); what stops a turn:
//!                    `reaches_outside_cta`; the serial phase, in turn order
//!   sm_phase.rs      the SM-parallel phase between them: weak ld/st and cp.async reads on
//!                    memsys SM ports, SMs partitioned over the threads, settled in turn
//!                    order (overlapping the next CTA-local phase); what must stay serial:
//!                    `needs_serial_phase`
//!   step.rs          step (guard, counters, warp-sync gate, advance) and execute: the
//!                    dispatcher from instruction family to handler, generated from the
//!                    operation table
//!   operands.rs      registers, immediates, special registers, predicates, addresses
//!   alu_ops.rs       moves, conversions, integer, float, compare/select/predicate logic
//!   control.rs       per-lane PCs, reconvergence, bra/brx.idx/call/ret/exit/trap, vprintf/assert
//!   warp_sync.rs     the membermask gate; shfl, vote, elect, activemask, redux, match
//!   mem_ops.rs       ld, st, prefetch, atom/red, createpolicy
//!   addressing.rs    generic → space, shared/local/param bytes and bounds, global reads
//!                    and writes through memsys (L1/L2), local traffic (lane-interleaved
//!                    addresses, `-G` call-frame saves), memory faults
//!   async_copy.rs    cp.async and its groups, mbarrier, landing copies
//!   barrier.rs       bar.sync/arrive/red, barrier completion
//!   bulk.rs          cp.async.bulk, cp.reduce.async.bulk, bulk groups
//!     bulk/tensor.rs cp.async.bulk.tensor (TMA), tensormap.replace/cp_fenceproxy
//!   matrix.rs        ldmatrix, stmatrix, mma, wmma, wgmma
//!   hazard.rs        the machine's hooks into hazards.rs
//!   counters_only.rs counters-only mode: unknown bytes, the conflicts that restart a launch
//!   uniform.rs       counters-only mode's one-value registers: integer arithmetic, setp and
//!                    selp on operands equal in every live lane compute one lane
//! ```
//!
//! **Threads.** [`LaunchConfig::threads`] host threads run a launch. Each scheduling round first
//! runs every CTA's warps in parallel (one CTA on one thread) up to the first instruction that
//! reaches outside the CTA (global memory, the caches, printf), then runs those instructions
//! (and the CTA-local ones close between them) warp after warp in the round's turn order
//! (`machine/rounds.rs`). The schedule is
//! the same for every thread count, so outputs and counters are too.
//!
//! [`Session`] owns a lowered module and its device memory: allocate buffers, launch kernels
//! with typed arguments, read buffers back. Faults name the kernel, CTA, thread, PTX line,
//! `.loc` source line and address ([`ExecError::Fault`]).

pub mod alu;
mod error;
pub mod hazards;
pub mod limits;
pub mod lower;
pub mod machine;
pub mod memory;
pub mod printf;
pub mod program;
pub mod register_estimate;
pub mod residency;
pub mod tensormap;

pub use error::{ExecError, FaultKind, FaultSite};
pub use hazards::{Hazard, HazardClass};
pub use machine::{CountersOnly, LaunchConfig, RunSummary, StaleRead};
pub use program::Program;
pub use residency::{Limit, RegisterSource, Registers, Residency};

use memsys::{GpuConfig, MemSystem};
use ptx_isa::{ScalarType, TypeKind};
use ptx_syntax::ast::Module;

/// A kernel argument, in parameter order.
#[derive(Debug, Clone, PartialEq)]
pub enum KernelArg {
    /// A device pointer (a buffer's address, or 0 for null).
    Pointer(u64),
    /// A scalar: its type and value bits (floats as their IEEE bits).
    Scalar { ty: ScalarType, bits: u64 },
    /// The bytes of an aggregate parameter passed by value (`.param .align 8 .b8 p[16]`: a
    /// struct, an iterator, a functor), exactly as the host passes them; any device pointers
    /// in it already hold their buffers' addresses.
    Bytes(Vec<u8>),
}

/// A lowered module with its device memory.
pub struct Session {
    pub mem: MemSystem,
    pub program: Program,
    /// The hazards of the last launch (when it ran with hazards on), kept even when the launch
    /// faulted, so a fault report can show them.
    pub last_hazards: Vec<Hazard>,
    /// What device `printf` printed in the last launch (kept when it faulted), one entry per
    /// call and thread in execution order.
    pub last_printf: Vec<String>,
    /// Words discarded (`discard.global.L2`) by earlier launches with hazards on and not
    /// written since: the next launch's `read-after-discard` checks see them.
    pub discarded: hazards::DiscardedWords,
    /// The step index the next launch reports itself as in cross-launch hazards (a multi-step
    /// launch sets it); `None`: the number of launches so far.
    pub next_step: Option<u32>,
    launches: u32,
    /// Global lines earlier counters-only launches wrote with values they did not compute
    /// (`machine/counters_only.rs`).
    unknown_lines: machine::LineBits,
}

impl Session {
    /// Lowers `module` (parsed from `source`) over a fresh memory system for `gpu`.
    pub fn new(module: &Module, source: &str, gpu: GpuConfig) -> Result<Self, ExecError> {
        Self::new_with(module, source, gpu, lower::LowerOptions::default())
    }

    /// [`Session::new`] with lowering options (`fmad: false` for code assembled with ptxas
    /// `--fmad=false`: no `mul` + `add` contraction).
    pub fn new_with(
        module: &Module,
        source: &str,
        gpu: GpuConfig,
        options: lower::LowerOptions,
    ) -> Result<Self, ExecError> {
        // Vector registers run as the scalar registers they hold.
        let scalar = ptx_syntax::scalarized(module);
        let module = scalar.as_ref().unwrap_or(module);
        let mut mem = MemSystem::new(gpu)?;
        let mut inits = Vec::new();
        let program = {
            let mut alloc = |size: u64, align: u64| mem.alloc(size, align).map_err(ExecError::from);
            lower::lower_module_with(module, source, &mut alloc, &mut inits, options)?
        };
        for (addr, bytes) in inits {
            mem.write(addr, &bytes)?;
        }
        Ok(Session {
            mem,
            program,
            last_hazards: Vec::new(),
            last_printf: Vec::new(),
            discarded: Default::default(),
            next_step: None,
            launches: 0,
            unknown_lines: Default::default(),
        })
    }

    /// Allocates a device buffer holding `bytes` (256-byte aligned, like cudaMalloc).
    ///
    /// Fresh device memory is zero and takes host memory only where it is written, so only
    /// the pages of `bytes` that hold something other than zeros are copied: a large
    /// `zeros:` buffer costs no host memory until the kernel touches it.
    pub fn alloc_buffer(&mut self, bytes: &[u8]) -> Result<u64, ExecError> {
        const PAGE: usize = 4096;
        let addr = self.mem.alloc(bytes.len().max(1) as u64, 256)?;
        for (i, page) in bytes.chunks(PAGE).enumerate() {
            if page.iter().any(|&b| b != 0) {
                self.mem.write(addr + (i * PAGE) as u64, page)?;
            }
        }
        Ok(addr)
    }

    /// Reads a buffer back (the coherent contents, as a host copy after the kernel sees).
    pub fn read_buffer(&self, addr: u64, len: usize) -> Result<Vec<u8>, ExecError> {
        let mut out = vec![0u8; len];
        if len > 0 {
            self.mem.read(addr, &mut out)?;
        }
        Ok(out)
    }

    /// Sets `len` bytes at `addr` to `value`, as `cudaMemset` does between launches.
    pub fn fill_buffer(&mut self, addr: u64, value: u8, len: usize) -> Result<(), ExecError> {
        if len > 0 {
            self.mem.write(addr, &vec![value; len])?;
            self.discarded.written(addr, len as u64);
        }
        Ok(())
    }

    /// Launches `kernel` with `args`; returns what the run did.
    pub fn launch(
        &mut self,
        kernel: &str,
        args: &[KernelArg],
        cfg: LaunchConfig,
    ) -> Result<RunSummary, ExecError> {
        let params = self.param_buffer(kernel, args)?;
        // A new launch starts with every L1 invalidated (the driver does so between grids).
        self.mem.invalidate_all_l1();
        // A `-G` build's stores reach L2 unmerged (`MemSystem::set_write_combining`).
        self.mem.set_write_combining(!self.program.debug);
        // Counters-only mode with a sliced kernel: keep the memory system as it is now, to
        // run the launch again in full mode if the slice meets a value it did not compute.
        let exact_stores = cfg.exact_stores;
        fn kernel_slice(f: &program::Function, exact_stores: bool) -> Option<&program::Slice> {
            match exact_stores {
                true => f.slice_exact_stores.as_ref(),
                false => f.slice.as_ref(),
            }
        }
        let sliced = cfg.counters_only
            && !cfg.hazards
            && self
                .program
                .kernel(kernel)
                .is_some_and(|f| kernel_slice(f, exact_stores).is_some());
        let before = sliced.then(|| self.mem.snapshot());
        let full_cfg = LaunchConfig {
            counters_only: false,
            ..cfg.clone()
        };
        let hazards_on = cfg.hazards;
        let mut machine =
            machine::Machine::new(&self.program, kernel, params.clone(), cfg, &mut self.mem)?;
        let step = self.next_step.take().unwrap_or(self.launches);
        self.launches += 1;
        if hazards_on {
            machine.carry_discards(step, std::mem::take(&mut self.discarded));
        }
        let (result, hazards, printf) = machine.run_with_output();
        if let Ok(s) = &result {
            self.discarded = s.discarded.clone();
        }
        let Some(before) = before else {
            self.last_hazards = hazards;
            self.last_printf = printf;
            return result;
        };
        if let Some(addr) = result
            .as_ref()
            .ok()
            .and_then(|s| s.unknowns.reads_earlier_unknown(&self.unknown_lines))
        {
            self.mem = before;
            return Err(ExecError::Launch(format!(
                "counters-only: kernel `{kernel}` reads global memory at {addr:#x}, which an \
                 earlier counters-only launch wrote with values it did not compute; run the \
                 launches in full mode (without --counters-only)"
            )));
        }
        let why = match &result {
            Ok(s) => s.unknowns.restart_reason(),
            Err(e) => Some(format!("the counters-only run stopped ({e})")),
        };
        let Some(why) = why else {
            let mut s = result?;
            self.unknown_lines.union(&s.unknowns.unknown_lines);
            s.unknowns = Default::default();
            self.last_hazards = hazards;
            self.last_printf = printf;
            return Ok(s);
        };
        self.mem = before;
        let counters_only = result.ok().and_then(|s| s.counters_only);
        let (result, hazards, printf) =
            machine::Machine::new(&self.program, kernel, params, full_cfg, &mut self.mem)?
                .run_with_output();
        self.last_hazards = hazards;
        self.last_printf = printf;
        let mut s = result?;
        let f = self.program.kernel(kernel).expect("launched");
        s.counters_only = Some(machine::CountersOnly {
            restarted: Some(why),
            // (Only a sliced kernel's launch gets here: `before` is its snapshot.)
            ..counters_only.unwrap_or_else(|| {
                machine::CountersOnly::of(kernel_slice(f, exact_stores), f.code.len() as u32)
            })
        });
        Ok(s)
    }

    /// The kernel's parameters as (name, type) in order.
    pub fn kernel_params(&self, kernel: &str) -> Result<Vec<(String, ScalarType)>, ExecError> {
        let f = self
            .program
            .kernel(kernel)
            .ok_or_else(|| self.no_kernel(kernel))?;
        Ok(f.params.iter().map(|p| (p.name.clone(), p.ty)).collect())
    }

    fn no_kernel(&self, kernel: &str) -> ExecError {
        ExecError::Launch(format!(
            "no kernel named `{kernel}` (the module has: {})",
            self.program.kernel_names().join(", ")
        ))
    }

    /// Lays the arguments out as the kernel's `.param` buffer, checking count and types.
    fn param_buffer(&self, kernel: &str, args: &[KernelArg]) -> Result<Vec<u8>, ExecError> {
        let f = self
            .program
            .kernel(kernel)
            .ok_or_else(|| self.no_kernel(kernel))?;
        if f.params.len() != args.len() {
            return Err(ExecError::Launch(format!(
                "kernel `{kernel}` takes {} arguments, {} given (parameters: {})",
                f.params.len(),
                args.len(),
                f.params
                    .iter()
                    .map(|p| format!("{} {}", p.ty, p.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        let size = f
            .params
            .iter()
            .map(|p| p.offset + p.size)
            .max()
            .unwrap_or(0);
        let mut buf = crate::limits::zeroed(u64::from(size), "the kernel's parameters")?;
        for (i, (p, a)) in f.params.iter().zip(args).enumerate() {
            let bytes: Vec<u8> = match a {
                KernelArg::Pointer(addr) => {
                    if p.size != 8 || p.ty.kind() == TypeKind::Float {
                        return Err(ExecError::Launch(format!(
                            "argument {i} is a buffer, but parameter `{}` is {} (a pointer parameter is .u64/.b64/.s64)",
                            p.name, p.ty
                        )));
                    }
                    addr.to_le_bytes().to_vec()
                }
                KernelArg::Scalar { ty, bits } => {
                    let compatible = ty.bytes() == p.size
                        && (ty.kind() == TypeKind::Float) == (p.ty.kind() == TypeKind::Float);
                    if !compatible {
                        return Err(ExecError::Launch(format!(
                            "argument {i} is {ty}, but parameter `{}` is {}",
                            p.name, p.ty
                        )));
                    }
                    bits.to_le_bytes()[..p.size as usize].to_vec()
                }
                KernelArg::Bytes(bytes) => {
                    if bytes.len() != p.size as usize {
                        return Err(ExecError::Launch(format!(
                            "argument {i} has {} bytes, but parameter `{}` has {}",
                            bytes.len(),
                            p.name,
                            p.size
                        )));
                    }
                    bytes.clone()
                }
            };
            buf[p.offset as usize..p.offset as usize + bytes.len()].copy_from_slice(&bytes);
        }
        Ok(buf)
    }
}

/// Tests' random numbers: a xorshift generator from `seed`.
#[cfg(test)]
fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}
