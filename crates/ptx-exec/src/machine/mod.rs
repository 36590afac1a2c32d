//! The SIMT machine: CTAs of warps of 32 lanes executing lowered code.
//!
//! - **Lanes and reconvergence.** Each frame keeps a PC per lane. A step picks the runnable
//!   lanes whose instruction has the lowest scheduling rank (a topological order of the control
//!   flow graph, lowest PC first among ready instructions: see [`schedule_ranks`]) and executes
//!   that instruction for every lane at it, so divergent paths run one after the other and lanes
//!   reconverge where the paths join, also when the compiler placed one path after the join. A
//!   warp whose lanes share one PC takes a fast path that skips the search.
//! - **Warp-synchronous instructions.** `vote.sync`, `redux.sync`, `match.sync`, `shfl.sync` and
//!   `bar.warp.sync` make each executing lane wait until every non-exited lane of its membermask
//!   has executed the instruction (PTX ISA, sm_70 and later): lanes that arrive first are parked
//!   at it until the others of the mask arrive or exit. Lanes of the mask that wait at a
//!   different instruction, or outside the current call, are a fault naming both places.
//! - **Calls.** `call` pushes a frame with its own registers and param area for the calling
//!   lanes; the other lanes of the warp wait until it returns.
//! - **Barriers.** `bar.sync` parks lanes until the CTA's expected thread count has arrived;
//!   a CTA whose remaining threads all wait at barriers that cannot complete is a deadlock fault.
//! - **Asynchronous copies.** `cp.async` reads global memory when issued and lands in shared
//!   memory only when a `cp.async.wait_group`/`wait_all` of the issuing thread covers it, or
//!   when an mbarrier it is bound to (`cp.async.mbarrier.arrive`) is waited on — so a kernel
//!   that forgets the wait reads the old shared contents, deterministically.
//! - **Bulk copies and TMA** (`cp{.reduce}.async.bulk{.tensor}`, see [`bulk`]): copies into
//!   shared memory land, with the complete-tx of their bytes, when their mbarrier is tested after
//!   the test that finds them pending; copies out of shared memory read it at the covering
//!   `cp.async.bulk.wait_group.read` and write global memory at the covering `wait_group` (or when
//!   the CTA ends). An mbarrier phase completes when both its pending arrivals and its
//!   transaction count reach zero.
//! - **Scheduling.** CTAs are assigned to SMs round-robin and run concurrently; warps take
//!   turns of a fixed number of instructions in a fixed order (a seed permutes the order).
//!   Each round runs in three phases (`rounds.rs`): every CTA's CTA-local work in parallel over
//!   the launch's host threads, each warp stopping before its first instruction that reaches
//!   the memory system or printf; then, in parallel over SMs, those warps' weak global loads,
//!   stores and `cp.async` reads on per-SM memory-system ports, settled in turn order
//!   (`sm_phase.rs`); then, serially in turn order, the rest (atomics, strong accesses,
//!   fences, bulk copies, printf) and the CTA-local instructions close between them.
//!   The schedule does not depend on the thread count, so neither do outputs and counters.
//!
//! The crate overview (`lib.rs`) draws this module's files and what each holds: `schedule.rs`
//! runs the grid, `step.rs` runs one instruction and dispatches it to the handler of its
//! family, one file per family.

/// The innermost frame of warp `$wi` of `$cta`.
macro_rules! frame {
    ($cta:ident, $wi:ident) => {
        $cta.warps[$wi].frames.last_mut().expect("frame")
    };
}

/// Reads source operands for the whole warp of `$wi`, each into a new `[u64; 32]` named
/// `$name` (`read_srcs!(self, cta, wi; a = *x, b = *y)`): the gathering every
/// register-to-register handler starts with. A macro, not a function returning the vectors:
/// a returned 256-byte vector is moved with a `memcpy` call, which the interpreter's profile
/// (`alu_run triad`) showed costing 3-5% of the ALU path.
macro_rules! read_srcs {
    ($m:expr, $cta:expr, $wi:expr; $($name:ident = $src:expr),+ $(,)?) => {
        $(
            let mut $name = [0u64; 32];
            $m.read_src($cta, $wi, $src, &mut $name);
        )+
    };
}

/// `read_srcs!` for address operands: each `$name` a new `[u64; 32]` of base + offset.
macro_rules! read_addrs {
    ($m:expr, $cta:expr, $wi:expr; $($name:ident = $addr:expr),+ $(,)?) => {
        $(
            let mut $name = [0u64; 32];
            $m.addr_values($cta, $wi, $addr, &mut $name);
        )+
    };
}

mod addressing;
mod alu_ops;
mod async_copy;
mod barrier;
mod bulk;
mod control;
mod counters_only;
mod hazard;
mod matrix;
mod mem_ops;
mod operands;
mod rounds;
mod schedule;
pub mod sectors;
mod sm_phase;
mod step;
mod uniform;
mod warp_sync;

use crate::error::ExecError;
use crate::hazards::{Access, Hazard, Tracker};
use crate::program::*;
pub use counters_only::{CountersOnly, LineBits, Unknowns};
use memsys::MemSystem;
use rustc_hash::FxHashMap;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

/// Everything that fixes a launch besides the arguments.
#[derive(Debug, Clone)]
pub struct LaunchConfig {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared: u32,
    /// Seed of the warp interleaving (0: the fixed default order).
    pub seed: u64,
    /// Fault after this many warp-instructions.
    pub max_steps: u64,
    /// Fault once the launch has run this long (wall clock; `None`: no limit).
    pub timeout: Option<std::time::Duration>,
    /// Route global accesses through the cache model (false: straight to memory).
    pub cache_model: bool,
    /// Warp-instructions a warp runs before the next warp's turn.
    pub quantum: u32,
    /// Updated with the number of warp-instructions executed so far, for progress displays
    /// that poll it from another thread.
    pub progress: Option<Arc<AtomicU64>>,
    /// Track cache-semantics hazards (stale L1 reads, nc loads of written data, unfinished
    /// cp.async copies, weak spins); see [`crate::hazards`].
    pub hazards: bool,
    /// Host threads that run the CTA-local phase of each round (1 to [`MAX_THREADS`]). The
    /// schedule does not depend on it: outputs and counters are the same for every value
    /// (see `schedule.rs`).
    pub threads: u32,
    /// Registers per thread (what `ptxas -v` prints) and where the figure came from; `None`:
    /// estimated from the PTX ([`crate::register_estimate`]). With the block and shared
    /// memory it decides the CTAs each SM holds ([`crate::residency`]).
    pub registers: Option<crate::Registers>,
    /// The launch's access policy window (`cudaStreamAttrValue::accessPolicyWindow`, memsys
    /// `system/l2_control.rs`): set on the memory system for this launch (`None` clears the
    /// one an earlier launch set).
    pub access_policy_window: Option<memsys::AccessPolicyWindow>,
    /// Counters-only mode: run only the kernel's slice, what addresses, branches, predicates,
    /// barriers and memory operations depend on (`counters_only.rs`); counters, per-line
    /// tables and the time estimate are those of the full run, memory contents are not.
    /// Off with [`LaunchConfig::hazards`] (the hazard tracker compares values).
    pub counters_only: bool,
    /// With [`LaunchConfig::counters_only`]: also compute every value the launch stores, so
    /// its outputs are exact (a launch of a sequence whose outputs a later counters-only
    /// launch reads: `ptxsim run` of a multi-step launch file sets it).
    pub exact_stores: bool,
}

/// Host memory the resident CTAs' registers, local and shared memory may take at most: past
/// it fewer CTAs are resident than the GPU would hold (`RunSummary::resident_ctas` says how
/// many). 2 GiB holds a full H100 of 64 warps per SM with 100 live 64-bit slots per thread.
pub const RESIDENT_HOST_BYTES: u64 = 2 << 30;

/// The most host threads a launch may use.
pub const MAX_THREADS: u32 = 1024;

impl Default for LaunchConfig {
    fn default() -> Self {
        LaunchConfig {
            grid: [1, 1, 1],
            block: [32, 1, 1],
            dynamic_shared: 0,
            seed: 0,
            max_steps: 1_000_000_000,
            timeout: None,
            cache_model: true,
            quantum: 64,
            progress: None,
            hazards: false,
            threads: 1,
            registers: None,
            access_policy_window: None,
            counters_only: false,
            exact_stores: false,
        }
    }
}

/// What a finished launch reports besides memory contents.
#[derive(Debug, Clone, Default)]
pub struct RunSummary {
    pub warp_instructions: u64,
    pub thread_instructions: u64,
    /// Executions of each instruction (by instruction id), in thread-instructions.
    pub per_instruction: Vec<u64>,
    /// Requested and ideal sectors of each global `ld`/`st` (by instruction id; shorter than
    /// the program when its last instructions made none): see [`sectors`].
    pub per_instruction_sectors: Vec<sectors::SectorTally>,
    pub cp_async_bytes: u64,
    /// Observations for the hazard detector: L1 reads that returned stale bytes.
    pub stale_reads: Vec<StaleRead>,
    /// Hazards found (when [`LaunchConfig::hazards`] is on), deduplicated.
    pub hazards: Vec<Hazard>,
    /// With hazards on: the words discarded (`discard.global.L2`) and not written again by
    /// the end of the launch, for the next kernel step ([`Machine::carry_discards`]).
    pub discarded: crate::hazards::DiscardedWords,
    /// What device `printf` printed, one entry per call and thread, in execution order (a
    /// warp's lanes in lane order); the CUDA runtime prints it when the kernel completes.
    pub printf: Vec<String>,
    /// Warp-instructions that ran in the serial phase of their round (the others ran in the
    /// parallel phase; see `rounds.rs`): the part more threads cannot speed up. The same for
    /// every thread count.
    pub serial_warp_instructions: u64,
    /// Warp-instructions that ran in the SM-parallel phase of their round (weak global
    /// loads and stores and the CTA-local work between them; see `rounds.rs`). The same for
    /// every thread count.
    pub sm_phase_warp_instructions: u64,
    /// Host threads the launch ran on.
    pub threads: u32,
    /// Why it ran on fewer threads than [`LaunchConfig::threads`] asked for, when a reason
    /// other than the grid's size made it so.
    pub threads_note: Option<String>,
    /// CTAs per SM the launch ran with, the registers behind it and the binding limit.
    pub residency: Option<crate::Residency>,
    /// CTAs resident at once over the whole GPU: CTAs per SM x SMs, fewer when the host
    /// memory of that many ([`RESIDENT_HOST_BYTES`]) or the grid is smaller.
    pub resident_ctas: u64,
    /// What counters-only mode did ([`LaunchConfig::counters_only`]); `None` in a full run.
    pub counters_only: Option<CountersOnly>,
    /// Counters-only mode's tracking of unknown bytes (`counters_only.rs`).
    pub unknowns: Unknowns,
}

/// A load served from an SM's L1 with bytes that differ from the coherent value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleRead {
    pub instr: u32,
    pub cta: [u32; 3],
    pub thread: [u32; 3],
    pub address: u64,
}

const FULL: u32 = u32::MAX;

/// The most bytes one lane accesses in one instruction (`.v8.b32`, `.v4.b64`).
const MAX_LANE_BYTES: usize = 32;

/// One call frame of a warp.
struct Frame {
    func: u32,
    /// 32 values per register-file entry, entry-major: entry `s` holds slot `s`, or in
    /// counters-only mode the entry `map` gives it (`Slice::registers`).
    regs: Vec<u64>,
    /// Counters-only mode: each slot's entry in `regs`.
    map: Option<std::sync::Arc<[u32]>>,
    preds: Vec<u32>,
    pc: [Pc; 32],
    /// Some(pc) when every runnable lane of the frame is at `pc`.
    uniform: Option<Pc>,
    /// Counters-only mode: a bit per register-file entry whose live lanes all hold one value
    /// (`uniform.rs`).
    same: u64,
    /// Lanes taking part in this frame.
    mask: u32,
    /// Lanes that returned from it.
    done: u32,
    /// Lanes parked at a warp-synchronous instruction (at their PC) until the other lanes of
    /// its membermask arrive there.
    sync_wait: u32,
    /// Per-lane param area (`param_bytes` per lane).
    params: Vec<u8>,
    param_bytes: u32,
    /// Where results go in the caller when this frame returns.
    rets: Vec<CallArg>,
}

impl Frame {
    /// Where slot `s`'s 32 lanes start in `regs`.
    #[inline(always)]
    fn base(&self, s: Slot) -> usize {
        match &self.map {
            None => s as usize * 32,
            Some(m) => m[s as usize] as usize * 32,
        }
    }

    fn new(f: &Function, mask: u32) -> Frame {
        Self::new_with(f, mask, None, None)
    }

    /// A frame whose register file is `regs` (one of `f`'s size) when given.
    fn new_with(
        f: &Function,
        mask: u32,
        regs: Option<Vec<u64>>,
        map: Option<&RegisterMap>,
    ) -> Frame {
        let size = map.map_or(f.slots, |m| m.entries) as usize * 32;
        Frame {
            func: 0,
            regs: regs
                .filter(|r| r.len() == size)
                .unwrap_or_else(|| vec![0; size]),
            map: map.map(|m| m.entry.clone()),
            preds: vec![0; f.preds as usize],
            pc: [0; 32],
            uniform: Some(0),
            // Zeroed entries hold one value each (not the scratch entry, whose values no
            // instruction of the slice reads: `uniform.rs`).
            same: !(1 << crate::program::SCRATCH),
            mask,
            done: 0,
            sync_wait: 0,
            params: vec![0; f.param_bytes as usize * 32],
            param_bytes: f.param_bytes,
            rets: Vec::new(),
        }
    }
}

/// The asynchronous-copy state of one thread.
#[derive(Default, Clone)]
struct LaneAsync {
    uncommitted: Vec<u32>,
    groups: VecDeque<Vec<u32>>,
    /// Bulk operations (shared → global) not committed to a bulk async-group yet.
    bulk_uncommitted: Vec<u32>,
    /// Committed bulk async-groups, oldest first.
    bulk_groups: VecDeque<Vec<u32>>,
}

/// A copy issued by `cp.async`, waiting to land in shared memory: what landing it needs (24
/// bytes: a Triton matmul issues 16 K of them per CTA, so their size is memory traffic).
struct PendingCopy {
    dst: u32,
    /// Bytes written when it lands (the copy's size, at most 16).
    len: u8,
    landed: bool,
    data: [u8; 16],
}

/// What the hazard detector knows of a `cp.async` copy (kept only when it runs).
struct CopyTrace {
    /// The cp.async and the thread that issued it.
    access: Access,
    /// Linear index of the issuing thread in its CTA.
    issuer: u32,
    /// The global bytes it reads.
    src: u64,
    src_len: u32,
    /// The CTA's barrier generation when it landed.
    landed_gen: u64,
    /// The mbarrier whose wait landed it, if any.
    via_mbar: Option<u32>,
}

/// `cp.async.mbarrier.arrive`: an arrive-on the mbarrier once these copies land.
struct AsyncArrive {
    mbar: u32,
    copies: Vec<u32>,
}

#[derive(Default, Clone, Copy)]
struct Mbarrier {
    expected: u32,
    pending: u32,
    phase: u32,
    tx: i64,
}

#[derive(Default)]
struct Barrier {
    arrived: u32,
    expected: u32,
    /// Warps with lanes waiting (warp index → lane mask).
    waiting: FxHashMap<u32, u32>,
    /// `bar.red`: how many arriving threads had a true predicate, and how many a false one.
    red_true: u32,
    red_false: u32,
    /// `bar.red`: the waiting lanes and where each warp's result goes, written when the
    /// barrier completes (every participating thread's predicate is known only then).
    red_waiters: Vec<RedWaiter>,
}

/// Lanes of one warp waiting at a `bar.red` for the reduction's result.
struct RedWaiter {
    warp: u32,
    lanes: u32,
    op: BarRedOp,
    d: Dst,
    dp: Option<PredIdx>,
}

struct Warp {
    index: u32,
    exited: u32,
    /// Lanes parked at a barrier.
    waiting: u32,
    frames: Vec<Frame>,
    local: Vec<u8>,
    local_bytes: u32,
    asyncs: Vec<LaneAsync>,
    /// `CC.CF` of each lane (bit per lane), written by `.cc` instructions.
    carry: u32,
    /// The register file of the warp's finished kernel frame, zeroed, which `run_rounds`
    /// hands to a CTA that starts later (`Machine::reg_pool`).
    spare_regs: Vec<u64>,
}

struct Cta {
    id: [u32; 3],
    sm: u32,
    shared: Vec<u8>,
    warps: Vec<Warp>,
    /// Named barriers and mbarriers by id and address (Fx hashing: a `bar.sync` per warp
    /// and loop iteration looks one up; and one order for every run).
    barriers: FxHashMap<u32, Barrier>,
    mbarriers: FxHashMap<u32, Mbarrier>,
    copies: async_copy::CopyList,
    async_arrives: Vec<AsyncArrive>,
    threads: u32,
    exited_threads: u32,
    linear: u64,
    /// Completed barriers so far (a copy landed before the latest one is visible to all).
    barrier_gen: u64,
    /// Hazard tracking: shared words written by copies not yet visible to every thread.
    copy_words: HashMap<u32, u32>,
    /// Hazard tracking: (mbarrier, thread) pairs whose wait succeeded, with the bulk landing
    /// count at the latest such wait.
    mbar_seen: HashMap<(u32, u32), u64>,
    /// Bulk asynchronous copies in flight.
    bulk: bulk::BulkState,
    /// Counters-only mode: the shared bytes an unknown store wrote last (empty until one).
    shared_unknown: Vec<bool>,
    /// Counters-only mode: whether the CTA stored unknown data in local or param memory.
    private_unknown: bool,
}

/// The memory system as a machine sees it: the launch's own machine holds it; the workers
/// that run the CTA-local phase of a round in parallel (`rounds.rs`) do not, and they never
/// reach it, because that phase stops every warp before an instruction that may
/// (`Machine::reaches_outside_cta`).
pub enum MemAccess<'p> {
    Attached(&'p mut MemSystem),
    Detached,
    /// A worker's port for the SM-parallel phase (`rounds.rs`): weak global loads and stores
    /// of the SMs lent to it, through [`MemAccess::load`] and [`MemAccess::store`]; nothing
    /// else reaches the memory system there.
    Port(Box<memsys::SmPort>),
}

impl MemAccess<'_> {
    /// A warp-level load: on the memory system, or on the worker's SM port.
    pub fn load(
        &mut self,
        req: &memsys::Request,
        lanes: &[memsys::LaneAccess],
        out: &mut [u8],
    ) -> Result<memsys::Outcome, memsys::MemError> {
        match self {
            MemAccess::Port(p) => p.load(req, lanes, out),
            m => (**m).load(req, lanes, out),
        }
    }

    /// A warp-level read whose bytes the caller does not use (`MemSystem::load_unread`): on
    /// the memory system, or on the worker's SM port.
    pub fn load_unread(
        &mut self,
        req: &memsys::Request,
        lanes: &[memsys::LaneAccess],
    ) -> Result<memsys::Outcome, memsys::MemError> {
        match self {
            MemAccess::Port(p) => p.load_unread(req, lanes),
            m => (**m).load_unread(req, lanes),
        }
    }

    /// A warp-level store: on the memory system, or on the worker's SM port.
    pub fn store(
        &mut self,
        req: &memsys::Request,
        lanes: &[memsys::LaneAccess],
        data: &[u8],
    ) -> Result<memsys::Outcome, memsys::MemError> {
        match self {
            MemAccess::Port(p) => p.store(req, lanes, data),
            m => (**m).store(req, lanes, data),
        }
    }

    /// A warp-level local-memory load or store (tags and counters only): on the memory
    /// system, or on the worker's SM port.
    pub fn local(
        &mut self,
        req: &memsys::Request,
        lanes: &[memsys::LaneAccess],
    ) -> Result<memsys::Outcome, memsys::MemError> {
        match self {
            MemAccess::Port(p) => p.local(req, lanes),
            m => (**m).local(req, lanes),
        }
    }

    /// A read without the cache model, as SM `sm` sees global memory.
    pub fn read_as(&self, sm: u32, addr: u64, dst: &mut [u8]) -> Result<(), memsys::MemError> {
        match self {
            MemAccess::Port(p) => p.read(sm, addr, dst),
            m => (**m).read(addr, dst),
        }
    }

    /// A write without the cache model by SM `sm`.
    pub fn write_as(&mut self, sm: u32, addr: u64, src: &[u8]) -> Result<(), memsys::MemError> {
        match self {
            MemAccess::Port(p) => p.write(sm, addr, src),
            m => (**m).write(addr, src),
        }
    }

    /// Whether `[addr, addr + len)` lies inside one allocation.
    pub fn is_mapped(&self, addr: u64, len: u64) -> bool {
        match self {
            MemAccess::Port(p) => p.is_mapped(addr, len),
            m => (**m).is_mapped(addr, len),
        }
    }
}

impl std::ops::Deref for MemAccess<'_> {
    type Target = MemSystem;
    fn deref(&self) -> &MemSystem {
        match self {
            MemAccess::Attached(m) => m,
            MemAccess::Detached | MemAccess::Port(_) => unreachable!("{DETACHED}"),
        }
    }
}

impl std::ops::DerefMut for MemAccess<'_> {
    fn deref_mut(&mut self) -> &mut MemSystem {
        match self {
            MemAccess::Attached(m) => m,
            MemAccess::Detached | MemAccess::Port(_) => unreachable!("{DETACHED}"),
        }
    }
}

const DETACHED: &str = "a parallel phase ran an instruction that reaches the memory system \
                        (Machine::reaches_outside_cta and Machine::needs_serial_phase must stop \
                        the warp before it)";

/// Runs one kernel launch over `mem`.
pub struct Machine<'p> {
    program: &'p Program,
    kernel: u32,
    cfg: LaunchConfig,
    pub mem: MemAccess<'p>,
    kernel_params: Vec<u8>,
    sm_count: u32,
    summary: RunSummary,
    steps: u64,
    clock: u64,
    rng: u64,
    tracker: Option<Tracker>,
    /// Discards of earlier kernel steps, for the hazard tracker ([`Machine::carry_discards`]).
    carried_discards: Option<(u32, crate::hazards::DiscardedWords)>,
    /// Whether rounds have an SM-parallel phase (`sm_phase.rs`): decided when the workers
    /// start, from the configuration alone.
    sm_phase: bool,
    /// Whether the workers' ports hold an SM-parallel phase that [`MemSystem::settle`] has
    /// not yet applied (`rounds.rs`: the settle overlaps the next round's CTA-local phase).
    unsettled: bool,
    /// Shared and local memory of each CTA, checked against the GPU's limits.
    cta_memory: crate::limits::CtaMemory,
    /// CTAs kept resident at once ([`Machine::resident_ctas`]).
    max_resident: u64,
    /// Register files of finished warps, zeroed, for new CTAs' warps: a fresh file costs the
    /// host a page fault per 4 KiB (a Triton matmul warp's is ~100 KB; at 2048^3 the faults
    /// were an eighth of a launch's CPU time, in the kernel).
    reg_pool: Vec<Vec<u64>>,
    deadline: crate::limits::Deadline,
    /// Per function, [`Machine::outside_ahead`] of each instruction, worked out when first
    /// needed (shared with the workers).
    ahead: std::sync::Arc<[std::sync::OnceLock<Box<[bool]>>]>,
    /// Counters-only mode: the kernel's slice (`None`: full mode, or a kernel that cannot
    /// be sliced).
    slice: Option<&'p Slice>,
}

/// The result of running one warp for a while.
#[derive(PartialEq, Eq)]
enum WarpState {
    Progress,
    Blocked,
    Done,
}

impl<'p> Machine<'p> {
    /// Prepares a launch of `kernel` with its parameter buffer already filled.
    pub fn new(
        program: &'p Program,
        kernel: &str,
        kernel_params: Vec<u8>,
        cfg: LaunchConfig,
        mem: &'p mut MemSystem,
    ) -> Result<Self, ExecError> {
        let Some(&k) = program.by_name.get(kernel) else {
            return Err(ExecError::Launch(format!(
                "no kernel named `{kernel}` (the module has: {})",
                program.kernel_names().join(", ")
            )));
        };
        if !program.functions[k as usize].is_kernel {
            return Err(ExecError::Launch(format!(
                "`{kernel}` is a .func, not an .entry kernel"
            )));
        }
        program.check_runnable(k)?;
        if cfg.threads == 0 || cfg.threads > MAX_THREADS {
            return Err(ExecError::Launch(format!(
                "threads = {}: a launch runs on 1 to {MAX_THREADS} host threads",
                cfg.threads
            )));
        }
        let threads = cfg.block.iter().map(|&x| x as u64).product::<u64>();
        if threads == 0 || threads > 1024 {
            return Err(ExecError::Launch(format!(
                "block {:?} has {threads} threads; a block has 1 to 1024",
                cfg.block
            )));
        }
        if cfg.grid.contains(&0) {
            return Err(ExecError::Launch(format!(
                "grid {:?} has a zero dimension",
                cfg.grid
            )));
        }
        let sm_count = mem.config().sm_count.max(1);
        let residency = Self::residency(program, k, &cfg, mem.config())?;
        let max_resident = Self::resident_ctas(program, k, &cfg, &residency, sm_count);
        let cta_memory = crate::limits::check_launch(program, &cfg, mem, max_resident)?;
        if residency.ctas_per_sm == 0 {
            let threads = cfg.block.iter().product::<u32>();
            return Err(Self::does_not_fit(&residency, threads, mem.config()));
        }
        let grid_ctas = cfg.grid.iter().map(|&d| u64::from(d)).product::<u64>();
        mem.set_access_policy_window(cfg.access_policy_window)
            .map_err(|e| ExecError::Launch(e.to_string()))?;
        if cfg.cache_model && program.has_discard() {
            mem.snapshot_for_discard();
        }
        let deadline = crate::limits::Deadline::start(cfg.timeout);
        let f = &program.functions[k as usize];
        let kernel_slice = match cfg.exact_stores {
            true => f.slice_exact_stores.as_ref(),
            false => f.slice.as_ref(),
        };
        let slice = kernel_slice.filter(|_| cfg.counters_only && !cfg.hazards);
        let counters_only = (cfg.counters_only && !cfg.hazards)
            .then(|| CountersOnly::of(slice, program.functions[k as usize].code.len() as u32));
        Ok(Machine {
            program,
            kernel: k,
            rng: cfg.seed ^ 0x9E37_79B9_7F4A_7C15,
            cfg,
            mem: MemAccess::Attached(mem),
            kernel_params,
            sm_count,
            summary: RunSummary {
                per_instruction: vec![0; program.instrs.len()],
                residency: Some(residency),
                resident_ctas: max_resident.min(grid_ctas),
                counters_only,
                ..RunSummary::default()
            },
            steps: 0,
            clock: 0,
            tracker: None,
            carried_discards: None,
            sm_phase: false,
            unsettled: false,
            cta_memory,
            max_resident,
            reg_pool: Vec::new(),
            deadline,
            ahead: program
                .functions
                .iter()
                .map(|_| std::sync::OnceLock::new())
                .collect(),
            slice,
        })
    }

    /// The CTAs per SM of this launch ([`crate::residency`]): the given registers per thread
    /// (checked against the GPU's per-thread maximum), else the PTX estimate capped to what
    /// fits the block. A CTA that fits no SM is the error the driver gives such a launch.
    fn residency(
        program: &Program,
        kernel: u32,
        cfg: &LaunchConfig,
        gpu: &memsys::GpuConfig,
    ) -> Result<crate::Residency, ExecError> {
        let occ = &gpu.occupancy;
        let threads = cfg.block.iter().product::<u32>();
        let registers = match cfg.registers {
            Some(r) if r.per_thread == 0 || r.per_thread > occ.max_registers_per_thread => {
                return Err(ExecError::Launch(format!(
                    "registers per thread {} ({}): a thread has 1 to {} registers on the {}",
                    r.per_thread,
                    r.source.label(),
                    occ.max_registers_per_thread,
                    gpu.name
                )));
            }
            Some(r) => r,
            None => crate::Registers {
                per_thread: crate::register_estimate::estimate_registers(program, kernel)
                    .min(crate::residency::max_fitting_registers(occ, threads)),
                source: crate::RegisterSource::Estimate,
            },
        };
        // The kernel's own static shared memory (the interpreter allocates the module's).
        let name = &program.functions[kernel as usize].name;
        let own = program
            .kernel_static_shared
            .get(name)
            .copied()
            .unwrap_or(program.static_shared_bytes);
        let shared = u64::from(own) + u64::from(cfg.dynamic_shared);
        let mut r = crate::residency::ctas_per_sm(
            occ,
            gpu.shared_bytes_per_block,
            crate::residency::CtaNeeds {
                threads,
                registers_per_thread: registers.per_thread,
                shared_bytes: shared,
            },
        );
        r.registers_source = Some(registers.source);
        Ok(r)
    }

    /// The error of a launch whose CTA fits no SM (`residency.ctas_per_sm == 0`): what the
    /// driver reports as "too many resources requested for launch".
    fn does_not_fit(r: &crate::Residency, threads: u32, gpu: &memsys::GpuConfig) -> ExecError {
        let occ = &gpu.occupancy;
        let registers = r.registers_per_thread;
        let source = r.registers_source.map_or("", |s| s.label());
        let shared = r.shared_bytes_allocated;
        ExecError::Resource(format!(
            "too many resources requested for launch: a CTA of {threads} threads with \
             {registers} registers per thread ({source}; {} allocated per CTA) and {shared} bytes \
             of shared memory (with the driver's reservation) fits no SM of the {} (registers \
             per CTA at most {}, shared memory per CTA at most {})",
            r.registers_per_cta, gpu.name, occ.registers_per_cta, gpu.shared_bytes_per_block
        ))
    }

    /// CTAs kept resident at once: every SM's CTAs per SM (SM `i % sm_count` runs CTA `i`,
    /// `schedule.rs`), fewer when their registers, local and shared memory would take more
    /// than [`RESIDENT_HOST_BYTES`] of host memory, and at least one.
    fn resident_ctas(
        program: &Program,
        kernel: u32,
        cfg: &LaunchConfig,
        residency: &crate::Residency,
        sm_count: u32,
    ) -> u64 {
        let f = &program.functions[kernel as usize];
        let warps = u64::from(cfg.block.iter().product::<u32>().div_ceil(32));
        let local: u64 = program
            .functions
            .iter()
            .map(|f| u64::from(f.local_bytes))
            .sum();
        let per_warp = 32 * (8 * u64::from(f.slots) + local + 64);
        let per_cta = (warps * per_warp + residency.shared_bytes_allocated).max(1);
        let hardware = u64::from(residency.ctas_per_sm) * u64::from(sm_count);
        hardware.min(RESIDENT_HOST_BYTES / per_cta).max(1)
    }

    /// This launch is kernel step `step` (0-based) of a multi-step launch, after steps that
    /// left `words` discarded and not written again (their [`RunSummary::discarded`]): reads
    /// of them are `read-after-discard` hazards naming the earlier step's discard.
    pub fn carry_discards(&mut self, step: u32, words: crate::hazards::DiscardedWords) {
        self.carried_discards = Some((step, words));
    }

    /// Runs the whole grid.
    pub fn run(self) -> Result<RunSummary, ExecError> {
        self.run_with_hazards().0
    }

    /// Runs the whole grid; also returns the hazards found, even when the run faulted.
    pub fn run_with_hazards(self) -> (Result<RunSummary, ExecError>, Vec<Hazard>) {
        let (result, hazards, _) = self.run_with_output();
        (result, hazards)
    }

    /// [`Self::run_with_hazards`], plus what device `printf` printed, even when the run
    /// faulted (a kernel often prints just before it asserts); also in the summary on success.
    pub fn run_with_output(mut self) -> (Result<RunSummary, ExecError>, Vec<Hazard>, Vec<String>) {
        if self.cfg.hazards {
            let mut t = Tracker::default();
            if let Some((step, words)) = self.carried_discards.take() {
                t.carry_discards(step, words);
            }
            self.tracker = Some(t);
        }
        let result = self.run_grid();
        if let Some(t) = self.tracker.as_mut() {
            self.summary.discarded = t.take_discards();
        }
        let hazards = self
            .tracker
            .take()
            .map(Tracker::into_reports)
            .unwrap_or_default();
        let printf = self.summary.printf.clone();
        match result {
            Ok(()) => {
                self.summary.warp_instructions = self.steps;
                self.summary.hazards = hazards.clone();
                (Ok(self.summary), hazards, printf)
            }
            Err(e) => (Err(e), hazards, printf),
        }
    }
}

fn bool_op(op: BoolOp, a: u32, b: u32) -> u32 {
    match op {
        BoolOp::And => a & b,
        BoolOp::Or => a | b,
        BoolOp::Xor => a ^ b,
    }
}

#[inline]
/// The lanes of `mask` whose PC in `frame` is `pc`.
fn lanes_at(frame: &Frame, mask: u32, pc: Pc) -> u32 {
    lanes_where(mask, |l| frame.pc[l] == pc)
}

/// The lanes of `exec` for which `test(lane)` holds, as a predicate value.
#[inline(always)]
fn lanes_where(exec: u32, mut test: impl FnMut(usize) -> bool) -> u32 {
    lanes(exec)
        .filter(|&l| test(l))
        .fold(0, |acc, l| acc | 1 << l)
}

/// Iterates the set lanes of a mask.
fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    let mut bits = mask;
    core::iter::from_fn(move || {
        if bits == 0 {
            None
        } else {
            let l = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            Some(l)
        }
    })
}

/// Tests' random numbers below `n` (`crate::xorshift`).
#[cfg(test)]
fn below(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut next = crate::xorshift(seed);
    move |n| next() % n
}
