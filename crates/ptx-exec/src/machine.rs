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

mod bulk;

use crate::alu;
use crate::error::{ExecError, FaultKind, FaultSite};
use crate::hazards::{Access, Hazard, Tracker};
use crate::memory::{self, classify_generic, space_name};
use crate::program::*;
use memsys::{AccessKind, LaneAccess, MemSystem, Request};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
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
}

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
    pub cp_async_bytes: u64,
    /// Observations for the hazard detector: L1 reads that returned stale bytes.
    pub stale_reads: Vec<StaleRead>,
    /// Hazards found (when [`LaunchConfig::hazards`] is on), deduplicated.
    pub hazards: Vec<Hazard>,
    /// What device `printf` printed, one entry per call and thread, in execution order (a
    /// warp's lanes in lane order); the CUDA runtime prints it when the kernel completes.
    pub printf: Vec<String>,
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
    /// `slots × 32` values, slot-major.
    regs: Vec<u64>,
    preds: Vec<u32>,
    pc: [Pc; 32],
    /// Some(pc) when every runnable lane of the frame is at `pc`.
    uniform: Option<Pc>,
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
    fn new(f: &Function, mask: u32) -> Frame {
        Frame {
            func: 0,
            regs: vec![0; f.slots as usize * 32],
            preds: vec![0; f.preds as usize],
            pc: [0; 32],
            uniform: Some(0),
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

/// A copy issued by `cp.async`, waiting to land in shared memory.
struct PendingCopy {
    dst: u32,
    data: [u8; 16],
    len: u32,
    landed: bool,
    /// The cp.async and the thread that issued it.
    access: Access,
    /// Linear index of the issuing thread in its CTA.
    issuer: u32,
    /// The global bytes it reads (for the hazard detector).
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
    waiting: HashMap<u32, u32>,
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
}

struct Cta {
    id: [u32; 3],
    sm: u32,
    shared: Vec<u8>,
    warps: Vec<Warp>,
    barriers: HashMap<u32, Barrier>,
    mbarriers: HashMap<u32, Mbarrier>,
    copies: Vec<PendingCopy>,
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
}

/// Runs one kernel launch over `mem`.
pub struct Machine<'p> {
    program: &'p Program,
    kernel: u32,
    cfg: LaunchConfig,
    pub mem: &'p mut MemSystem,
    kernel_params: Vec<u8>,
    sm_count: u32,
    summary: RunSummary,
    steps: u64,
    clock: u64,
    rng: u64,
    tracker: Option<Tracker>,
    /// Shared and local memory of each CTA, checked against the GPU's limits.
    cta_memory: crate::limits::CtaMemory,
    deadline: crate::limits::Deadline,
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
        let cta_memory =
            crate::limits::check_launch(program, &cfg, mem, Self::max_resident(sm_count))?;
        let deadline = crate::limits::Deadline::start(cfg.timeout);
        Ok(Machine {
            program,
            kernel: k,
            rng: cfg.seed ^ 0x9E37_79B9_7F4A_7C15,
            cfg,
            mem,
            kernel_params,
            sm_count,
            summary: RunSummary {
                per_instruction: vec![0; program.instrs.len()],
                ..RunSummary::default()
            },
            steps: 0,
            clock: 0,
            tracker: None,
            cta_memory,
            deadline,
        })
    }

    /// CTAs kept resident at once: enough for every SM to hold a few.
    fn max_resident(sm_count: u32) -> u64 {
        (u64::from(sm_count) * 2).clamp(1, 4096)
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
            self.tracker = Some(Tracker::default());
        }
        let result = self.run_grid();
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

    fn run_grid(&mut self) -> Result<(), ExecError> {
        let [gx, gy, gz] = self.cfg.grid;
        let total = gx as u64 * gy as u64 * gz as u64;
        let threads = self.cfg.block.iter().product::<u32>();
        let warps_per_cta = threads.div_ceil(32);
        let max_resident = Self::max_resident(self.sm_count);
        let mut next: u64 = 0;
        let mut resident: Vec<Cta> = Vec::new();
        loop {
            while (resident.len() as u64) < max_resident && next < total {
                let id = [
                    (next % gx as u64) as u32,
                    ((next / gx as u64) % gy as u64) as u32,
                    (next / (gx as u64 * gy as u64)) as u32,
                ];
                resident.push(self.new_cta(id, next, threads, warps_per_cta)?);
                next += 1;
            }
            if resident.is_empty() {
                break;
            }
            if let Some(p) = &self.cfg.progress {
                p.store(self.steps, Ordering::Relaxed);
            }
            let mut any_progress = false;
            let order = self.turn_order(&resident);
            for (ci, wi) in order {
                let state = self.run_warp(&mut resident[ci], wi)?;
                any_progress |= state == WarpState::Progress;
            }
            // Finished CTAs leave; their pending copies land (harmlessly) with them, and their
            // pending bulk stores write global memory.
            for c in resident.iter_mut() {
                if c.warps.iter().all(|w| w.frames.is_empty()) {
                    self.retire_bulk(c)?;
                }
            }
            let before = resident.len();
            resident.retain(|c| !c.warps.iter().all(|w| w.frames.is_empty()));
            if !any_progress && resident.len() == before {
                let cta = &resident[0];
                return Err(self.deadlock(cta));
            }
        }
        Ok(())
    }

    fn turn_order(&mut self, ctas: &[Cta]) -> Vec<(usize, usize)> {
        let mut order: Vec<(usize, usize)> = ctas
            .iter()
            .enumerate()
            .flat_map(|(ci, c)| (0..c.warps.len()).map(move |wi| (ci, wi)))
            .collect();
        if self.cfg.seed != 0 {
            // Fisher–Yates with SplitMix64: another legal interleaving per seed.
            for i in (1..order.len()).rev() {
                let j = (self.next_random() % (i as u64 + 1)) as usize;
                order.swap(i, j);
            }
        }
        order
    }

    fn next_random(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn new_cta(
        &self,
        id: [u32; 3],
        linear: u64,
        threads: u32,
        warps: u32,
    ) -> Result<Cta, ExecError> {
        let k = &self.program.functions[self.kernel as usize];
        let mut ws = Vec::with_capacity(warps as usize);
        for w in 0..warps {
            let first = w * 32;
            let n = (threads - first).min(32);
            let valid = if n == 32 { FULL } else { (1u32 << n) - 1 };
            let mut frame = Frame::new(k, valid);
            frame.func = self.kernel;
            let local_bytes = self.cta_memory.local_bytes_per_thread as u32;
            ws.push(Warp {
                index: w,
                exited: 0,
                waiting: 0,
                frames: vec![frame],
                local: crate::limits::zeroed(u64::from(local_bytes) * 32, "local memory")?,
                local_bytes,
                asyncs: vec![LaneAsync::default(); 32],
                carry: 0,
            });
        }
        Ok(Cta {
            id,
            sm: (linear % self.sm_count as u64) as u32,
            shared: crate::limits::zeroed(self.cta_memory.shared_bytes, "shared memory")?,
            warps: ws,
            barriers: HashMap::new(),
            mbarriers: HashMap::new(),
            copies: Vec::new(),
            async_arrives: Vec::new(),
            threads,
            exited_threads: 0,
            linear,
            barrier_gen: 0,
            copy_words: HashMap::new(),
            mbar_seen: Default::default(),
            bulk: Default::default(),
        })
    }

    fn thread_of(&self, _cta: &Cta, warp: u32, lane: u32) -> [u32; 3] {
        let t = warp * 32 + lane;
        let [bx, by, _] = self.cfg.block;
        [t % bx, (t / bx) % by, t / (bx * by)]
    }

    fn site(&self, cta: &Cta, warp: u32, lane: u32, id: u32) -> Box<FaultSite> {
        let info = &self.program.instrs[id as usize];
        let source = self.program.source_line(id);
        Box::new(FaultSite {
            kernel: self.program.functions[self.kernel as usize].name.clone(),
            cta: cta.id,
            thread: self.thread_of(cta, warp, lane),
            ptx_line: info.ptx_line,
            source,
            instruction: info.text.clone(),
        })
    }

    fn fault(&self, cta: &Cta, warp: u32, lane: u32, id: u32, kind: FaultKind) -> ExecError {
        ExecError::Fault {
            site: self.site(cta, warp, lane, id),
            kind,
        }
    }

    /// Where the CTA's warps are (for a step-limit fault, which is usually a spin loop that
    /// never ends): "warps 0-7 at PTX line 5214, warp 8 exited, ...".
    fn warp_positions(&self, cta: &Cta) -> String {
        let place = |w: &Warp| -> String {
            let Some(f) = w.frames.last() else {
                return "exited".to_string();
            };
            let live = f.mask & !f.done & !w.exited;
            let Some(l) = lanes(live).next() else {
                return "exited".to_string();
            };
            let code = &self.program.functions[f.func as usize].code;
            let line = code
                .get(f.pc[l] as usize)
                .map_or(0, |i| self.program.instrs[i.id as usize].ptx_line);
            let parked = if w.waiting & (1 << l) != 0 {
                " (at a barrier)"
            } else {
                ""
            };
            format!("at PTX line {line}{parked}")
        };
        let mut groups: Vec<(u32, u32, String)> = Vec::new();
        for w in &cta.warps {
            let p = place(w);
            match groups.last_mut() {
                Some((_, last, q)) if *q == p && *last + 1 == w.index => *last = w.index,
                _ => groups.push((w.index, w.index, p)),
            }
        }
        groups
            .iter()
            .map(|(a, b, p)| {
                if a == b {
                    format!("warp {a} {p}")
                } else {
                    format!("warps {a}-{b} {p}")
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn deadlock(&self, cta: &Cta) -> ExecError {
        // Lanes parked at a warp-synchronous instruction whose other lanes never come.
        for w in &cta.warps {
            let Some(f) = w.frames.last() else { continue };
            if f.sync_wait == 0 {
                continue;
            }
            let lane = f.sync_wait.trailing_zeros();
            let code = &self.program.functions[f.func as usize].code;
            let id = code[f.pc[lane as usize] as usize].id;
            let others = f.mask & !f.done & !w.exited & !f.sync_wait;
            let elsewhere = match lanes(
                others | (f.sync_wait & !lanes_at(f, f.sync_wait, f.pc[lane as usize])),
            )
            .next()
            {
                Some(l) => {
                    let at = code.get(f.pc[l] as usize).map_or(0, |i| i.id);
                    format!(
                        "lane {l} is at PTX line {}{}",
                        self.program.instrs[at as usize].ptx_line,
                        if w.waiting & (1 << l) != 0 {
                            " (a barrier)"
                        } else {
                            ""
                        }
                    )
                }
                None => "the other lanes cannot run".to_string(),
            };
            return self.fault(
                cta,
                w.index,
                lane,
                id,
                FaultKind::Other(format!(
                    "warp-synchronous instruction never completes: lanes 0x{:08x} wait for the \
                     rest of its membermask, which never executes it ({elsewhere})",
                    lanes_at(f, f.sync_wait, f.pc[lane as usize])
                )),
            );
        }
        // Name a waiting thread and what it waits for, and a thread that never arrives.
        let mut waiting_at = None;
        let mut missing = None;
        for w in &cta.warps {
            let Some(f) = w.frames.last() else { continue };
            let runnable = f.mask & !f.done & !w.exited;
            for lane in 0..32 {
                if runnable & (1 << lane) == 0 {
                    continue;
                }
                let pc = f.pc[lane as usize];
                let code = &self.program.functions[f.func as usize].code;
                let id = code.get(pc.saturating_sub(1) as usize).map_or(0, |i| i.id);
                if w.waiting & (1 << lane) != 0 {
                    waiting_at.get_or_insert((w.index, lane, id));
                } else {
                    let id = code.get(pc as usize).map_or(0, |i| i.id);
                    missing.get_or_insert((w.index, lane, id));
                }
            }
        }
        let (arrived, expected) = cta
            .barriers
            .values()
            .find(|b| b.arrived > 0)
            .map_or((0, cta.threads), |b| (b.arrived, b.expected));
        let missing_text = match missing {
            Some((w, l, id)) => {
                let t = self.thread_of(cta, w, l);
                format!(
                    "thread ({},{},{}) is elsewhere, at PTX line {}",
                    t[0], t[1], t[2], self.program.instrs[id as usize].ptx_line
                )
            }
            None => "the other threads exited or wait at a different barrier".to_string(),
        };
        let (w, l, id) = waiting_at.unwrap_or((0, 0, 0));
        self.fault(
            cta,
            w,
            l,
            id,
            FaultKind::BarrierDeadlock {
                waiting: arrived,
                expected,
                missing: missing_text,
            },
        )
    }

    /// Runs warp `wi` of `cta` for up to one quantum.
    fn run_warp(&mut self, cta: &mut Cta, wi: usize) -> Result<WarpState, ExecError> {
        let mut progressed = false;
        for _ in 0..self.cfg.quantum {
            let warp = &mut cta.warps[wi];
            let Some(frame) = warp.frames.last_mut() else {
                return Ok(if progressed {
                    WarpState::Progress
                } else {
                    WarpState::Done
                });
            };
            let alive = frame.mask & !frame.done & !warp.exited;
            if alive == 0 {
                self.pop_frame(cta, wi);
                progressed = true;
                continue;
            }
            let runnable = alive & !warp.waiting & !frame.sync_wait;
            if runnable == 0 {
                if frame.sync_wait != 0 && self.release_sync_waits(cta, wi)? {
                    progressed = true;
                    continue;
                }
                return Ok(if progressed {
                    WarpState::Progress
                } else {
                    WarpState::Blocked
                });
            }
            let (pc, active) = match frame.uniform {
                Some(pc) if warp.waiting == 0 && frame.sync_wait == 0 => (pc, runnable),
                _ => {
                    // The lanes at the lowest scheduling rank (see `schedule_ranks`).
                    let rank = &self.program.functions[frame.func as usize].rank;
                    let mut min = u32::MAX;
                    let mut min_pc = 0;
                    let mut m = 0u32;
                    let mut bits = runnable;
                    while bits != 0 {
                        let l = bits.trailing_zeros();
                        bits &= bits - 1;
                        let p = frame.pc[l as usize];
                        let r = rank.get(p as usize).copied().unwrap_or(u32::MAX);
                        if r < min || m == 0 {
                            min = r;
                            min_pc = p;
                            m = 1 << l;
                        } else if p == min_pc {
                            m |= 1 << l;
                        }
                    }
                    (min_pc, m)
                }
            };
            self.steps += 1;
            if self.deadline.passed(self.steps) {
                let func = frame.func;
                let id = self.program.functions[func as usize].code[pc as usize].id;
                return Err(self.fault(
                    cta,
                    wi as u32,
                    active.trailing_zeros(),
                    id,
                    FaultKind::TimeLimit {
                        millis: self.deadline.limit().as_millis() as u64,
                        steps: self.steps,
                        warps: self.warp_positions(cta),
                    },
                ));
            }
            if self.steps > self.cfg.max_steps {
                let func = frame.func;
                let id = self.program.functions[func as usize].code[pc as usize].id;
                return Err(self.fault(
                    cta,
                    wi as u32,
                    active.trailing_zeros(),
                    id,
                    FaultKind::StepLimit {
                        steps: self.cfg.max_steps,
                        warps: self.warp_positions(cta),
                    },
                ));
            }
            self.step(cta, wi, pc, active)?;
            progressed = true;
        }
        Ok(WarpState::Progress)
    }

    /// Sets the PC of `lanes` and keeps the uniform fast path honest.
    fn set_pc(frame: &mut Frame, lanes: u32, pc: Pc) {
        let mut bits = lanes;
        while bits != 0 {
            let l = bits.trailing_zeros();
            bits &= bits - 1;
            frame.pc[l as usize] = pc;
        }
    }

    fn reconverge(frame: &mut Frame, alive: u32) {
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

    fn pop_frame(&mut self, cta: &mut Cta, wi: usize) {
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
                            reg_bytes = frame.regs[slot as usize * 32 + lane].to_le_bytes();
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
                            caller.regs[slot as usize * 32 + lane] = u64::from_le_bytes(v);
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
            Self::release_barriers(cta, self.program);
        }
    }

    /// Releases barriers whose expected count is met now that fewer threads remain.
    fn release_barriers(cta: &mut Cta, program: &Program) {
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
    fn complete_barrier(cta: &mut Cta, id: u32, program: &Program) {
        let b = cta.barriers.get_mut(&id).expect("barrier");
        let waiting = std::mem::take(&mut b.waiting);
        let waiters = std::mem::take(&mut b.red_waiters);
        let (t, f) = (b.red_true, b.red_false);
        b.arrived = 0;
        b.red_true = 0;
        b.red_false = 0;
        for (w, m) in waiting {
            cta.warps[w as usize].waiting &= !m;
        }
        for rw in waiters {
            let wi = rw.warp as usize;
            match rw.op {
                BarRedOp::Popc => {
                    Self::write_dst(cta, wi, program, rw.d, &[t as u64; 32], rw.lanes);
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

    // ------------------------------------------------------------------ operands

    #[inline]
    fn read_src(&self, cta: &Cta, wi: usize, src: Src, out: &mut [u64; 32]) {
        let warp = &cta.warps[wi];
        let frame = warp.frames.last().expect("a frame");
        match src {
            Src::Reg(s) => out.copy_from_slice(&frame.regs[s as usize * 32..s as usize * 32 + 32]),
            Src::Imm(v) => *out = [v; 32],
            Src::Special(sp) => {
                for (lane, o) in out.iter_mut().enumerate() {
                    *o = self.special(cta, warp, lane as u32, sp);
                }
            }
        }
    }

    fn special(&self, cta: &Cta, warp: &Warp, lane: u32, sp: Special) -> u64 {
        let t = self.thread_of(cta, warp.index, lane);
        let c = |v: [u32; 3], i: u8| v.get(i as usize).copied().unwrap_or(0) as u64;
        match sp {
            Special::Tid(i) => c(t, i),
            Special::Ntid(i) => c(self.cfg.block, i),
            Special::Ctaid(i) => c(cta.id, i),
            Special::Nctaid(i) => c(self.cfg.grid, i),
            Special::LaneId => lane as u64,
            Special::WarpId => warp.index as u64,
            Special::NWarpId => cta.warps.len() as u64,
            Special::SmId => cta.sm as u64,
            Special::NSmId => self.sm_count as u64,
            Special::GridId => 1,
            Special::Clock => (self.clock + self.steps) & 0xFFFF_FFFF,
            Special::Clock64 => self.clock + self.steps,
            // A deterministic "time": 1 ns per warp-instruction executed so far.
            Special::GlobalTimer => self.steps,
            Special::LaneMaskEq => 1u64 << lane,
            Special::LaneMaskLt => (1u64 << lane) - 1,
            Special::LaneMaskLe => (1u64 << (lane + 1)) - 1,
            Special::LaneMaskGt => (!((1u64 << (lane + 1)) - 1)) & 0xFFFF_FFFF,
            Special::LaneMaskGe => (!((1u64 << lane) - 1)) & 0xFFFF_FFFF,
            Special::DynamicSmemSize => self.cfg.dynamic_shared as u64,
            Special::TotalSmemSize => cta.shared.len() as u64,
            Special::ClusterId(i) => c(cta.id, i),
            Special::NClusterId(i) => c(self.cfg.grid, i),
            Special::ClusterCtaId(_) => 0,
            Special::ClusterNCtaId(_) => 1,
            Special::ClusterCtaRank => 0,
            Special::ClusterNCtaRank => 1,
            Special::Zero => 0,
        }
    }

    #[inline]
    fn write_dst(cta: &mut Cta, wi: usize, program: &Program, d: Dst, vals: &[u64; 32], mask: u32) {
        let Dst::Reg(s) = d else { return };
        let frame = cta.warps[wi].frames.last_mut().expect("a frame");
        let bits = program.functions[frame.func as usize].slot_bits[s as usize];
        let m = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let regs = &mut frame.regs[s as usize * 32..s as usize * 32 + 32];
        if mask == FULL {
            for (r, v) in regs.iter_mut().zip(vals) {
                *r = v & m;
            }
        } else {
            let mut bits = mask;
            while bits != 0 {
                let l = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                regs[l] = vals[l] & m;
            }
        }
    }

    fn pred_mask(frame: &Frame, p: PredSrc) -> u32 {
        match p {
            PredSrc::Reg { idx, negated } => {
                let v = frame.preds[idx as usize];
                if negated {
                    !v
                } else {
                    v
                }
            }
            PredSrc::Const(true) => FULL,
            PredSrc::Const(false) => 0,
        }
    }

    fn write_pred(frame: &mut Frame, idx: PredIdx, value: u32, mask: u32) {
        let p = &mut frame.preds[idx as usize];
        *p = (*p & !mask) | (value & mask);
    }

    // ------------------------------------------------------------------ execution

    fn step(&mut self, cta: &mut Cta, wi: usize, pc: Pc, active: u32) -> Result<(), ExecError> {
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
    fn execute(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        inst: &Inst,
        exec: u32,
        active: u32,
        pc: Pc,
    ) -> Result<Option<Pc>, ExecError> {
        let program = self.program;
        let mut a = [0u64; 32];
        let mut b = [0u64; 32];
        let mut c = [0u64; 32];
        let mut out = [0u64; 32];
        // Read the sources, compute each active lane (`lanewise`) or the whole warp
        // (`warpwise`, through an `alu::*_lanes` function), write the destination.
        macro_rules! lanewise {
            ($d:ident; $($src:ident => $buf:ident),+; $f:expr) => {{
                $(self.read_src(cta, wi, *$src, &mut $buf);)+
                let f = $f;
                for l in lanes(exec) {
                    out[l] = f(l);
                }
                Self::write_dst(cta, wi, program, *$d, &out, exec);
            }};
        }
        macro_rules! warpwise {
            ($d:ident; $($src:ident => $buf:ident),+; $call:expr) => {{
                $(self.read_src(cta, wi, *$src, &mut $buf);)+
                $call;
                Self::write_dst(cta, wi, program, *$d, &out, exec);
            }};
        }
        macro_rules! frame {
            () => {
                cta.warps[wi].frames.last_mut().expect("frame")
            };
        }
        match &inst.op {
            Op::Nop
            | Op::Fence
            | Op::WgmmaFence
            | Op::WgmmaCommit
            | Op::WgmmaWait { .. }
            | Op::WarpSync { .. } => {}
            Op::Mov { d, a: s, bits } => {
                self.read_src(cta, wi, *s, &mut a);
                let m = if *bits >= 64 {
                    u64::MAX
                } else {
                    (1u64 << bits) - 1
                };
                for l in 0..32 {
                    out[l] = a[l] & m;
                }
                Self::write_dst(cta, wi, program, *d, &out, exec);
            }
            Op::Pack {
                d,
                parts,
                part_bits,
                d_bits,
            } => {
                let pm = if *part_bits >= 64 {
                    u64::MAX
                } else {
                    (1u64 << part_bits) - 1
                };
                if *d_bits > 64 {
                    // .b128 from two .b64 (or four .b32) parts: low slot then high slot.
                    let per_slot = 64 / part_bits;
                    let mut lo = [0u64; 32];
                    let mut hi = [0u64; 32];
                    for (k, p) in parts.iter().enumerate() {
                        let Some(p) = p else { continue };
                        self.read_src(cta, wi, *p, &mut a);
                        let (dst, shift) = if (k as u32) < per_slot {
                            (&mut lo, k as u32 * part_bits)
                        } else {
                            (&mut hi, (k as u32 - per_slot) * part_bits)
                        };
                        for l in 0..32 {
                            dst[l] |= (a[l] & pm) << shift;
                        }
                    }
                    Self::write_dst(cta, wi, program, Dst::Reg(*d), &lo, exec);
                    Self::write_dst(cta, wi, program, Dst::Reg(*d + 1), &hi, exec);
                } else {
                    for (k, p) in parts.iter().enumerate() {
                        let Some(p) = p else { continue };
                        self.read_src(cta, wi, *p, &mut a);
                        for l in 0..32 {
                            out[l] |= (a[l] & pm) << (k as u32 * part_bits);
                        }
                    }
                    Self::write_dst(cta, wi, program, Dst::Reg(*d), &out, exec);
                }
            }
            Op::Unpack {
                ds,
                a: s,
                part_bits,
            } => {
                let pm = if *part_bits >= 64 {
                    u64::MAX
                } else {
                    (1u64 << part_bits) - 1
                };
                let wide = match s {
                    Src::Reg(slot) => {
                        let f = &program.functions
                            [cta.warps[wi].frames.last().expect("frame").func as usize];
                        f.slot_bits.get(*slot as usize + 1).is_some()
                            && ds.len() as u32 * part_bits > 64
                    }
                    _ => false,
                };
                self.read_src(cta, wi, *s, &mut a);
                if wide {
                    if let Src::Reg(slot) = s {
                        self.read_src(cta, wi, Src::Reg(slot + 1), &mut b);
                    }
                }
                let per_slot = (64 / part_bits).max(1);
                for (k, d) in ds.iter().enumerate() {
                    let (src, shift) = if wide && k as u32 >= per_slot {
                        (&b, (k as u32 - per_slot) * part_bits)
                    } else {
                        (&a, k as u32 * part_bits)
                    };
                    for l in 0..32 {
                        out[l] = (src[l] >> shift) & pm;
                    }
                    Self::write_dst(cta, wi, program, *d, &out, exec);
                }
            }
            Op::MovPred { d, a: p } => {
                let f = frame!();
                let v = Self::pred_mask(f, *p);
                Self::write_pred(f, *d, v, exec);
            }
            Op::Cvt {
                d,
                a: s,
                dty,
                aty,
                mode,
                int_rounding,
                d_bits,
            } => {
                warpwise!(d; s => a; alu::cvt_lanes( *dty, *aty, *mode, *int_rounding, *d_bits, &a, &mut out, exec, ))
            }
            Op::CvtPack {
                d,
                a: x,
                b: y,
                dty,
                mode,
            } => lanewise!(d; x => a, y => b; |l: usize| alu::cvt_pack(*dty, *mode, a[l], b[l])),
            Op::Cvta {
                d,
                a: s,
                space,
                to_generic,
                bits,
            } => {
                self.read_src(cta, wi, *s, &mut a);
                let m = if *bits >= 64 {
                    u64::MAX
                } else {
                    (1u64 << bits) - 1
                };
                for l in lanes(exec) {
                    out[l] = if *to_generic {
                        memory::to_generic(*space, a[l])
                    } else {
                        match classify_generic(a[l]) {
                            (sp, off) if sp == *space || *space == Space::Global => off,
                            (_, off) => off,
                        }
                    } & m;
                }
                Self::write_dst(cta, wi, program, *d, &out, exec);
            }
            Op::Mapa { d, a: s, rank } => {
                self.read_src(cta, wi, *s, &mut a);
                self.read_src(cta, wi, *rank, &mut b);
                if let Some(l) = lanes(exec).find(|&l| b[l] as u32 != 0) {
                    return Err(self.fault(
                        cta,
                        wi as u32,
                        l as u32,
                        inst.id,
                        FaultKind::Other(format!(
                            "mapa to cluster CTA rank {}: launches run every CTA as a cluster of \
                             one (%cluster_nctarank = 1), so the only rank is 0",
                            b[l] as u32
                        )),
                    ));
                }
                Self::write_dst(cta, wi, program, *d, &a, exec);
            }
            Op::IsSpace { d, a: s, space } => {
                self.read_src(cta, wi, *s, &mut a);
                let mut v = 0u32;
                for l in lanes(exec) {
                    let (sp, _) = classify_generic(a[l]);
                    let is = match space {
                        Space::Param => sp == Space::KernelParam,
                        other => sp == *other,
                    };
                    if is {
                        v |= 1 << l;
                    }
                }
                Self::write_pred(frame!(), *d, v, exec);
            }
            Op::Int2 {
                op,
                ty,
                d,
                a: x,
                b: y,
            } => warpwise!(d; x => a, y => b; alu::int2_lanes(*op, *ty, &a, &b, &mut out, exec)),
            Op::Int3 {
                op,
                ty,
                d,
                a: x,
                b: y,
                c: z,
            } => {
                warpwise!(d; x => a, y => b, z => c; alu::int3_lanes(*op, *ty, &a, &b, &c, &mut out, exec))
            }
            Op::Int1 { op, ty, d, a: x } => {
                lanewise!(d; x => a; |l: usize| alu::int1(*op, *ty, a[l]))
            }
            Op::Bfe {
                ty,
                d,
                a: x,
                b: y,
                c: z,
            } => lanewise!(d; x => a, y => b, z => c; |l: usize| alu::bfe(*ty, a[l], b[l], c[l])),
            Op::Bfi {
                ty,
                d,
                a: f,
                b: x,
                c: p,
                e: n,
            } => {
                let mut e = [0u64; 32];
                self.read_src(cta, wi, *f, &mut a);
                self.read_src(cta, wi, *x, &mut b);
                self.read_src(cta, wi, *p, &mut c);
                self.read_src(cta, wi, *n, &mut e);
                for l in lanes(exec) {
                    out[l] = alu::bfi(*ty, a[l], b[l], c[l], e[l]);
                }
                Self::write_dst(cta, wi, program, *d, &out, exec);
            }
            Op::Prmt {
                mode,
                d,
                a: x,
                b: y,
                c: z,
            } => {
                lanewise!(d; x => a, y => b, z => c; |l: usize| alu::prmt(*mode, a[l] as u32, b[l] as u32, c[l] as u32) as u64)
            }
            Op::Shf {
                left,
                clamp,
                d,
                a: x,
                b: y,
                c: z,
            } => {
                lanewise!(d; x => a, y => b, z => c; |l: usize| alu::shf(*left, *clamp, a[l] as u32, b[l] as u32, c[l] as u32) as u64)
            }
            Op::Float2 {
                op,
                ty,
                mode,
                d,
                a: x,
                b: y,
            } => {
                warpwise!(d; x => a, y => b; alu::float2_lanes(*op, *ty, *mode, &a, &b, &mut out, exec))
            }
            Op::Fma {
                ty,
                mode,
                d,
                a: x,
                b: y,
                c: z,
            } => {
                warpwise!(d; x => a, y => b, z => c; alu::fma_lanes(*ty, *mode, &a, &b, &c, &mut out, exec))
            }
            Op::Float1 {
                op,
                ty,
                mode,
                d,
                a: x,
            } => lanewise!(d; x => a; |l: usize| alu::float1(*op, *ty, *mode, a[l])),
            Op::Testp { kind, ty, d, a: x } => {
                self.read_src(cta, wi, *x, &mut a);
                let mut v = 0u32;
                for l in lanes(exec) {
                    if alu::testp(*kind, *ty, a[l]) {
                        v |= 1 << l;
                    }
                }
                Self::write_pred(frame!(), *d, v, exec);
            }
            Op::Setp {
                cmp,
                ty,
                ftz,
                d,
                d_not,
                a: x,
                b: y,
                combine,
            } => {
                self.read_src(cta, wi, *x, &mut a);
                self.read_src(cta, wi, *y, &mut b);
                let v = alu::compare_lanes(*cmp, *ty, *ftz, &a, &b, exec);
                let f = frame!();
                let (mut t, mut nt) = (v, !v);
                if let Some((op, p)) = combine {
                    let pm = Self::pred_mask(f, *p);
                    t = bool_op(*op, v, pm);
                    nt = bool_op(*op, !v, pm);
                }
                if let Some(d) = d {
                    Self::write_pred(f, *d, t, exec);
                }
                if let Some(d) = d_not {
                    Self::write_pred(f, *d, nt, exec);
                }
            }
            Op::Set {
                cmp,
                dty,
                ty,
                d,
                a: x,
                b: y,
                combine,
            } => {
                self.read_src(cta, wi, *x, &mut a);
                self.read_src(cta, wi, *y, &mut b);
                let pm = combine.map(|(op, p)| (op, Self::pred_mask(frame!(), p)));
                for l in lanes(exec) {
                    let mut t = alu::compare(*cmp, *ty, false, a[l], b[l]);
                    if let Some((op, m)) = pm {
                        t = bool_op(op, t as u32, (m >> l) & 1) & 1 != 0;
                    }
                    out[l] = alu::set_value(*dty, t);
                }
                Self::write_dst(cta, wi, program, *d, &out, exec);
            }
            Op::Selp {
                bits,
                d,
                a: x,
                b: y,
                p,
            } => {
                self.read_src(cta, wi, *x, &mut a);
                self.read_src(cta, wi, *y, &mut b);
                let pm = Self::pred_mask(frame!(), *p);
                let m = if *bits >= 64 {
                    u64::MAX
                } else {
                    (1u64 << bits) - 1
                };
                for l in lanes(exec) {
                    out[l] = if pm & (1 << l) != 0 { a[l] } else { b[l] } & m;
                }
                Self::write_dst(cta, wi, program, *d, &out, exec);
            }
            Op::Slct {
                ty,
                cty,
                d,
                a: x,
                b: y,
                c: z,
            } => {
                self.read_src(cta, wi, *x, &mut a);
                self.read_src(cta, wi, *y, &mut b);
                self.read_src(cta, wi, *z, &mut c);
                let _ = ty;
                for l in lanes(exec) {
                    out[l] = alu::slct(*cty, false, a[l], b[l], c[l]);
                }
                Self::write_dst(cta, wi, program, *d, &out, exec);
            }
            Op::PredLogic { op, d, a: x, b: y } => {
                let f = frame!();
                let v = bool_op(*op, Self::pred_mask(f, *x), Self::pred_mask(f, *y));
                Self::write_pred(f, *d, v, exec);
            }
            Op::PredNot { d, a: x } => {
                let f = frame!();
                let v = !Self::pred_mask(f, *x);
                Self::write_pred(f, *d, v, exec);
            }
            Op::Ld(ld) => self.exec_load(cta, wi, inst.id, ld, exec)?,
            Op::St(st) => self.exec_store(cta, wi, inst.id, st, exec)?,
            Op::CpAsync(cp) => self.exec_cp_async(cta, wi, inst.id, cp, exec)?,
            Op::CpAsyncCommit => {
                for l in lanes(exec) {
                    let la = &mut cta.warps[wi].asyncs[l];
                    let g = std::mem::take(&mut la.uncommitted);
                    la.groups.push_back(g);
                }
            }
            Op::CpAsyncWait { n } => {
                for l in lanes(exec) {
                    let mut to_land = Vec::new();
                    let la = &mut cta.warps[wi].asyncs[l];
                    while la.groups.len() > *n as usize {
                        to_land.extend(la.groups.pop_front().expect("a group"));
                    }
                    self.land_copies(cta, &to_land, None);
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
                self.addr_values(cta, wi, *addr, &mut a);
                for l in lanes(exec) {
                    let mbar = self.shared_offset(cta, wi, inst.id, l as u32, a[l], *generic, 8)?;
                    let la = &cta.warps[wi].asyncs[l];
                    let copies: Vec<u32> = la
                        .uncommitted
                        .iter()
                        .chain(la.groups.iter().flatten())
                        .copied()
                        .filter(|&id| !cta.copies[id as usize].landed)
                        .collect();
                    if !*noinc {
                        cta.mbarriers.entry(mbar).or_default().pending += 1;
                    }
                    cta.async_arrives.push(AsyncArrive { mbar, copies });
                }
            }
            Op::CreatePolicyFractional {
                d,
                primary,
                secondary,
                fraction,
            } => {
                self.read_src(cta, wi, *fraction, &mut a);
                for l in lanes(exec) {
                    let f = f32::from_bits(a[l] as u32);
                    out[l] = MemSystem::create_fractional_policy(*primary, *secondary, f).map_err(
                        |e| {
                            self.fault(
                                cta,
                                wi as u32,
                                l as u32,
                                inst.id,
                                FaultKind::Other(format!("createpolicy: {e}")),
                            )
                        },
                    )?;
                }
                Self::write_dst(cta, wi, program, *d, &out, exec);
            }
            Op::CreatePolicyRange {
                d,
                primary,
                secondary,
                addr,
                generic,
                primary_size,
                total_size,
            } => {
                self.addr_values(cta, wi, *addr, &mut a);
                self.read_src(cta, wi, *primary_size, &mut b);
                self.read_src(cta, wi, *total_size, &mut c);
                for l in lanes(exec) {
                    let base = if *generic {
                        classify_generic(a[l]).1
                    } else {
                        a[l]
                    };
                    out[l] = self
                        .mem
                        .create_range_policy(base, b[l] as u32, c[l] as u32, *primary, *secondary)
                        .map_err(|e| {
                            self.fault(
                                cta,
                                wi as u32,
                                l as u32,
                                inst.id,
                                FaultKind::Other(format!("createpolicy: {e}")),
                            )
                        })?;
                }
                Self::write_dst(cta, wi, program, *d, &out, exec);
            }
            Op::CreatePolicyCvt { d, a: s } => {
                // cudaAccessProperty values are already in the policy encoding (REFERENCE.md).
                self.read_src(cta, wi, *s, &mut a);
                Self::write_dst(cta, wi, program, *d, &a, exec);
            }
            Op::Prefetch {
                space,
                addr,
                level2,
                l2_priority,
            } => {
                self.exec_prefetch(cta, wi, inst.id, *space, *addr, *level2, *l2_priority, exec)?
            }
            Op::Atom {
                op,
                ty,
                space,
                d,
                addr,
                b: x,
                c: y,
                hints,
            } => self.exec_atom(
                cta, wi, inst.id, *op, *ty, *space, *d, *addr, *x, *y, *hints, exec,
            )?,
            Op::Video {
                op,
                lanes: n,
                d_signed,
                a_signed,
                b_signed,
                sat,
                add,
                mask,
                d,
                a: x,
                b: y,
                c: z,
            } => {
                self.read_src(cta, wi, *x, &mut a);
                self.read_src(cta, wi, *y, &mut b);
                self.read_src(cta, wi, *z, &mut c);
                for l in lanes(exec) {
                    out[l] = ptx_semantics::int::video_simd(
                        *op,
                        *n,
                        *d_signed,
                        *a_signed,
                        *b_signed,
                        *sat,
                        *add,
                        *mask,
                        a[l] as u32,
                        b[l] as u32,
                        c[l] as u32,
                    ) as u64;
                }
                Self::write_dst(cta, wi, program, *d, &out, exec);
            }
            Op::Lop3Pred {
                lut,
                op,
                d,
                p,
                a: x,
                b: y,
                c: z,
                q,
            } => {
                self.read_src(cta, wi, *x, &mut a);
                self.read_src(cta, wi, *y, &mut b);
                self.read_src(cta, wi, *z, &mut c);
                let mut nonzero = 0u32;
                for l in lanes(exec) {
                    out[l] = ptx_semantics::int::lop3(a[l] as u32, b[l] as u32, c[l] as u32, *lut)
                        as u64;
                    if out[l] != 0 {
                        nonzero |= 1 << l;
                    }
                }
                Self::write_dst(cta, wi, program, *d, &out, exec);
                if let Some(p) = p {
                    let qm = Self::pred_mask(frame!(), *q);
                    let pv = bool_op(*op, nonzero, qm);
                    Self::write_pred(frame!(), *p, pv, exec);
                }
            }
            Op::AtomVec {
                op,
                ty,
                space,
                elems,
                addr,
                hints,
            } => {
                for (k, (d, b)) in elems.iter().enumerate() {
                    let at = Addr {
                        base: addr.base,
                        offset: addr.offset + (k as u64 * ty.bytes() as u64) as i64,
                    };
                    self.exec_atom(
                        cta, wi, inst.id, *op, *ty, *space, *d, at, *b, None, *hints, exec,
                    )?;
                }
            }
            Op::Bra { target, .. } => {
                let frame = frame!();
                Self::set_pc(frame, exec, *target);
                Self::set_pc(frame, active & !exec, pc + 1);
                let alive = frame.mask & !frame.done & !cta.warps[wi].exited;
                let frame = cta.warps[wi].frames.last_mut().expect("frame");
                if exec == active && frame.uniform.is_some() {
                    frame.uniform = Some(*target);
                } else {
                    Self::reconverge(frame, alive);
                }
                return Ok(None);
            }
            Op::Call { func, args, rets } => {
                self.exec_call(cta, wi, inst.id, *func, args, rets, exec, active, pc)?;
                return Ok(None);
            }
            Op::Ret => {
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
                return Ok(None);
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
                return Ok(None);
            }
            Op::Trap | Op::Brkpt => {
                let kind = if matches!(inst.op, Op::Trap) {
                    FaultKind::Trap
                } else {
                    FaultKind::Breakpoint
                };
                return Err(self.fault(cta, wi as u32, exec.trailing_zeros(), inst.id, kind));
            }
            Op::BarSync {
                id,
                count,
                arrive_only,
            } => {
                self.read_src(cta, wi, *id, &mut a);
                let count_v = match count {
                    Some(cnt) => {
                        self.read_src(cta, wi, *cnt, &mut b);
                        Some(b[exec.trailing_zeros() as usize] as u32)
                    }
                    None => None,
                };
                let bid = a[exec.trailing_zeros() as usize] as u32;
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
                self.read_src(cta, wi, *id, &mut a);
                let count_v = count.map(|cnt| {
                    self.read_src(cta, wi, cnt, &mut b);
                    b[exec.trailing_zeros() as usize] as u32
                });
                let pm = Self::pred_mask(frame!(), *p) & exec;
                let bid = a[exec.trailing_zeros() as usize] as u32;
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
            Op::Shfl {
                mode,
                d,
                dp,
                a: x,
                b: y,
                c: z,
                mask: _,
            } => {
                self.read_src(cta, wi, *x, &mut a);
                self.read_src(cta, wi, *y, &mut b);
                self.read_src(cta, wi, *z, &mut c);
                let mut pv = 0u32;
                for l in lanes(exec) {
                    let (src, ok) = alu::shfl_source(*mode, l as u32, b[l] as u32, c[l] as u32);
                    let src_ok = ok && exec & (1 << src) != 0;
                    out[l] = if ok { a[src as usize] } else { a[l] };
                    if src_ok {
                        pv |= 1 << l;
                    }
                }
                Self::write_dst(cta, wi, program, *d, &out, exec);
                if let Some(dp) = dp {
                    Self::write_pred(frame!(), *dp, pv, exec);
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
                let pm = Self::pred_mask(frame!(), *p) & exec;
                self.read_src(cta, wi, *mask, &mut b);
                match mode {
                    VoteMode::Ballot => {
                        if let Some(d) = d {
                            for l in lanes(exec) {
                                out[l] = (pm & b[l] as u32) as u64;
                            }
                            Self::write_dst(cta, wi, program, *d, &out, exec);
                        }
                    }
                    _ => {
                        let mut pv = 0u32;
                        for l in lanes(exec) {
                            let group = exec & b[l] as u32;
                            let mine = pm & group;
                            let v = match mode {
                                VoteMode::All => mine == group,
                                VoteMode::Any => mine != 0,
                                _ => mine == group || mine == 0,
                            };
                            if v {
                                pv |= 1 << l;
                            }
                        }
                        if let Some(dp) = dp {
                            Self::write_pred(frame!(), *dp, pv, exec);
                        }
                    }
                }
            }
            Op::Elect { d, p, mask } => {
                self.read_src(cta, wi, *mask, &mut b);
                let mut pv = 0u32;
                for l in lanes(exec) {
                    let group = exec & b[l] as u32;
                    let leader = group.trailing_zeros();
                    out[l] = leader as u64;
                    if leader as usize == l {
                        pv |= 1 << l;
                    }
                }
                Self::write_dst(cta, wi, program, *d, &out, exec);
                if let Some(p) = p {
                    Self::write_pred(frame!(), *p, pv, exec);
                }
            }
            Op::Activemask { d } => {
                out = [active as u64; 32];
                Self::write_dst(cta, wi, program, *d, &out, exec);
            }
            Op::Redux {
                op,
                ty,
                d,
                a: x,
                mask,
            } => {
                // The reduction runs over the lanes of each lane's membermask (tiled groups
                // pass one mask per tile, so one instruction can reduce several groups).
                self.read_src(cta, wi, *x, &mut a);
                self.read_src(cta, wi, *mask, &mut b);
                for l in lanes(exec) {
                    let group = exec & b[l] as u32;
                    let mut acc: Option<u64> = None;
                    for j in lanes(group) {
                        acc = Some(match acc {
                            None => a[j],
                            Some(v) => alu::atom_combine(*op, *ty, v, a[j], 0),
                        });
                    }
                    out[l] = acc.unwrap_or(0);
                }
                Self::write_dst(cta, wi, program, *d, &out, exec);
            }
            Op::Mbarrier {
                op,
                d,
                dp,
                addr,
                generic,
                b: x,
            } => self.exec_mbarrier(cta, wi, inst.id, *op, *d, *dp, *addr, *generic, *x, exec)?,
            Op::Ldmatrix {
                num,
                trans,
                ds,
                addr,
                generic,
            } => self.exec_ldmatrix(cta, wi, inst.id, *num, *trans, ds, *addr, *generic, exec)?,
            Op::Carry {
                op,
                cin,
                cout,
                ty,
                d,
                a: x,
                b: y,
                c: z,
            } => {
                self.read_src(cta, wi, *x, &mut a);
                self.read_src(cta, wi, *y, &mut b);
                self.read_src(cta, wi, *z, &mut c);
                let flags = cta.warps[wi].carry;
                let mut new_flags = flags & !exec;
                for l in lanes(exec) {
                    let cf = *cin && flags >> l & 1 == 1;
                    let (v, co) = alu::carry(*op, *ty, a[l], b[l], c[l], cf);
                    out[l] = v;
                    if co {
                        new_flags |= 1 << l;
                    }
                }
                if *cout {
                    cta.warps[wi].carry = new_flags;
                }
                Self::write_dst(cta, wi, program, *d, &out, exec);
            }
            Op::Match {
                all,
                d,
                dp,
                a: x,
                mask,
            } => {
                // Each lane matches over the lanes of its own membermask that execute.
                self.read_src(cta, wi, *x, &mut a);
                self.read_src(cta, wi, *mask, &mut b);
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
                    Self::write_pred(frame!(), *dp, pv, exec);
                }
            }
            Op::Stmatrix {
                num,
                trans,
                srcs,
                addr,
                generic,
            } => self.exec_stmatrix(cta, wi, inst.id, *num, *trans, srcs, *addr, *generic)?,
            Op::Mma {
                shape,
                ds,
                a: xa,
                b: xb,
                c: xc,
            } => self.exec_mma(cta, wi, *shape, ds, xa, xb, xc, exec),
            Op::WmmaLoad(w) => self.exec_wmma_mem(cta, wi, inst.id, w, exec, true)?,
            Op::WmmaStore(w) => self.exec_wmma_mem(cta, wi, inst.id, w, exec, false)?,
            Op::WmmaMma {
                op,
                ds,
                a: xa,
                b: xb,
                c: xc,
            } => {
                self.wmma_whole_warp(cta, wi, inst.id, exec)?;
                let read = |this: &Self, srcs: &[Src]| -> Vec<[u64; 32]> {
                    srcs.iter()
                        .map(|s| {
                            let mut v = [0u64; 32];
                            this.read_src(cta, wi, *s, &mut v);
                            v
                        })
                        .collect()
                };
                let (ra, rb, rc) = (read(self, xa), read(self, xb), read(self, xc));
                let d = ptx_semantics::wmma::wmma_mma(*op, &ra, &rb, &rc, ds.len());
                for (k, &slot) in ds.iter().enumerate() {
                    Self::write_dst(cta, wi, program, Dst::Reg(slot), &d[k], exec);
                }
            }
            Op::Wgmma {
                shape,
                ds,
                a_desc,
                a_regs,
                b_desc,
                scale_d,
                imm,
            } => self.exec_wgmma(
                cta,
                wi,
                inst.id,
                *shape,
                ds,
                *a_desc,
                a_regs.as_deref(),
                *b_desc,
                *scale_d,
                *imm,
                exec,
            )?,
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
        }
        Ok(Some(pc + 1))
    }

    /// A warp-synchronous instruction at `pc` executed by `exec`: the lanes that can complete
    /// it now (`exec` and the lanes parked at `pc` earlier), or `None` when lanes of the
    /// membermask that have not exited are still elsewhere in this frame (the arriving lanes
    /// then wait for them, as the PTX ISA specifies for `vote.sync`, `shfl.sync`, `redux.sync`,
    /// `match.sync` and `bar.warp.sync` on sm_70 and later).
    fn warp_sync_gate(
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
        let mut m = [0u64; 32];
        self.read_src(cta, wi, mask, &mut m);
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
    fn release_sync_waits(&mut self, cta: &mut Cta, wi: usize) -> Result<bool, ExecError> {
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

    fn barrier(
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

    #[allow(clippy::too_many_arguments)]
    fn exec_call(
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
                        frame.regs[slot as usize * 32 + lane] = u64::from_le_bytes(v);
                    }
                    None => {
                        let base = lane * frame.param_bytes as usize + p.offset as usize;
                        frame.params[base..base + bytes.len()].copy_from_slice(&bytes);
                    }
                }
            }
        }
        warp.frames.push(frame);
        Ok(())
    }

    /// The bytes a call passes for a parameter of `size` bytes in `lane`: a `.param` variable
    /// of the caller (zeros where it has none), or a register or immediate (at most 8 bytes).
    fn call_arg_bytes(caller: &Frame, arg: &CallArg, lane: usize, size: u32) -> Vec<u8> {
        match *arg {
            CallArg::Param { offset, .. } => {
                let base = lane * caller.param_bytes as usize + offset as usize;
                caller
                    .params
                    .get(base..base + size as usize)
                    .map(<[u8]>::to_vec)
                    .unwrap_or_else(|| vec![0; size as usize])
            }
            CallArg::Reg(slot) => caller.regs[slot as usize * 32 + lane].to_le_bytes()
                [..size.min(8) as usize]
                .to_vec(),
            CallArg::Imm(v) => v.to_le_bytes()[..size.min(8) as usize].to_vec(),
        }
    }

    /// [`Self::call_arg_bytes`] as a little-endian value (its first 8 bytes).
    fn call_arg_value(caller: &Frame, arg: &CallArg, lane: usize, size: u32) -> u64 {
        let bytes = Self::call_arg_bytes(caller, arg, lane, size);
        let mut v = [0u8; 8];
        let n = bytes.len().min(8);
        v[..n].copy_from_slice(&bytes[..n]);
        u64::from_le_bytes(v)
    }

    /// `vprintf(format, args)` (device `printf`: the text is kept, in execution order, for
    /// the caller to print) and `__assertfail(message, file, line, function, charSize)`
    /// (a failed device `assert`: the kernel stops with the runtime's message), for one lane.
    fn builtin_call(
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

    // ------------------------------------------------------------------ memory

    /// Base + offset for every lane.
    fn addr_values(&self, cta: &Cta, wi: usize, addr: Addr, out: &mut [u64; 32]) {
        match addr.base {
            Some(slot) => {
                self.read_src(cta, wi, Src::Reg(slot), out);
                for v in out.iter_mut() {
                    *v = v.wrapping_add(addr.offset as u64);
                }
            }
            None => *out = [addr.offset as u64; 32],
        }
    }

    /// Resolves a shared-space (or generic pointing to shared) address to an offset into the
    /// CTA's shared memory, checking bounds and alignment.
    #[allow(clippy::too_many_arguments)]
    fn shared_offset(
        &self,
        cta: &Cta,
        wi: usize,
        id: u32,
        lane: u32,
        addr: u64,
        generic: bool,
        bytes: u32,
    ) -> Result<u32, ExecError> {
        let off = if generic {
            match classify_generic(addr) {
                (Space::Shared, off) => off,
                _ => {
                    return Err(self.fault(
                        cta,
                        wi as u32,
                        lane,
                        id,
                        FaultKind::BadGeneric { address: addr },
                    ));
                }
            }
        } else {
            addr & 0xFFFF_FFFF
        };
        if off % bytes.max(1) as u64 != 0 {
            return Err(self.fault(
                cta,
                wi as u32,
                lane,
                id,
                FaultKind::Misaligned {
                    space: "shared",
                    address: off,
                    bytes,
                },
            ));
        }
        if off + bytes as u64 > cta.shared.len() as u64 {
            return Err(self.fault(
                cta,
                wi as u32,
                lane,
                id,
                FaultKind::OutOfBounds {
                    space: "shared",
                    address: off,
                    bytes,
                },
            ));
        }
        Ok(off as u32)
    }

    /// Reads or writes `len` bytes of a non-global space for one lane.
    #[allow(clippy::too_many_arguments)]
    fn local_bytes<'c>(
        &'c self,
        cta: &'c mut Cta,
        wi: usize,
        id: u32,
        lane: usize,
        space: Space,
        addr: u64,
        len: u32,
        align: u32,
        write: bool,
    ) -> Result<LocalRef<'c>, ExecError> {
        let bad = |this: &Self, c: &Cta, kind| this.fault(c, wi as u32, lane as u32, id, kind);
        if !addr.is_multiple_of(align.max(1) as u64) {
            return Err(bad(
                self,
                cta,
                FaultKind::Misaligned {
                    space: space_name(space),
                    address: addr,
                    bytes: align,
                },
            ));
        }
        let oob = FaultKind::OutOfBounds {
            space: space_name(space),
            address: addr,
            bytes: len,
        };
        let Some(end) = addr.checked_add(len as u64) else {
            return Err(bad(self, cta, oob));
        };
        match space {
            Space::Shared => {
                if end > cta.shared.len() as u64 {
                    return Err(bad(self, cta, oob));
                }
                Ok(LocalRef::Mut(&mut cta.shared[addr as usize..end as usize]))
            }
            Space::Local => {
                if end > cta.warps[wi].local_bytes as u64 {
                    return Err(bad(self, cta, oob));
                }
                let warp = &mut cta.warps[wi];
                let base = lane * warp.local_bytes as usize;
                Ok(LocalRef::Mut(
                    &mut warp.local[base + addr as usize..base + end as usize],
                ))
            }
            Space::Param => {
                if end > cta.warps[wi].frames.last().expect("frame").param_bytes as u64 {
                    return Err(bad(self, cta, oob));
                }
                let frame = cta.warps[wi].frames.last_mut().expect("frame");
                let base = lane * frame.param_bytes as usize;
                Ok(LocalRef::Mut(
                    &mut frame.params[base + addr as usize..base + end as usize],
                ))
            }
            Space::KernelParam => {
                if write || end > self.kernel_params.len() as u64 {
                    return Err(bad(self, cta, oob));
                }
                Ok(LocalRef::Ref(
                    &self.kernel_params[addr as usize..end as usize],
                ))
            }
            Space::Const => {
                if write || end > self.program.const_bytes.len() as u64 {
                    return Err(bad(self, cta, oob));
                }
                Ok(LocalRef::Ref(
                    &self.program.const_bytes[addr as usize..end as usize],
                ))
            }
            Space::Global | Space::Generic => unreachable!("global accesses go through memsys"),
        }
    }

    fn request(
        &self,
        cta: &Cta,
        kind: AccessKind,
        hints: &MemHints,
        policy: Option<u64>,
        id: u32,
    ) -> Request {
        Request {
            sm: memsys::SmId(cta.sm),
            kind,
            space: memsys::Space::Global,
            operator: hints.operator,
            semantics: hints.semantics,
            scope: hints.scope,
            non_coherent: hints.non_coherent,
            l1_priority: hints.l1_priority,
            l2_priority: hints.l2_priority,
            policy,
            prefetch: hints.prefetch,
            instr: memsys::InstrId(id),
        }
    }

    /// Per-lane resolved (space, address) of an access.
    fn resolve(&self, space: Space, addr: u64) -> (Space, u64) {
        match space {
            Space::Generic => classify_generic(addr),
            Space::Param => {
                // ld.param of a kernel's own parameters.
                if addr >= memory::KERNEL_PARAM_WINDOW {
                    classify_generic(addr)
                } else {
                    (Space::Param, addr)
                }
            }
            // Shared and local addresses are 32-bit: address arithmetic wraps there.
            Space::Shared | Space::Local => (space, addr & 0xFFFF_FFFF),
            s => (s, addr),
        }
    }

    fn exec_load(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        ld: &LoadInst,
        exec: u32,
    ) -> Result<(), ExecError> {
        let mut a = [0u64; 32];
        self.addr_values(cta, wi, ld.addr, &mut a);
        let n = ld.dsts.len();
        let eb = ld.elem_bytes as usize;
        let total = (eb * n) as u32;
        let policy = self.policy_value(cta, wi, ld.policy, exec);
        // Bytes per lane, lane-major.
        // Bytes per lane, lane-major; the widest access is 32 bytes per lane (.v8.b32, .v4.b64).
        let mut storage = [0u8; 32 * MAX_LANE_BYTES];
        let data = &mut storage[..32 * total as usize];
        let mut global_lanes: Vec<(usize, u64)> = Vec::new();
        for l in lanes(exec) {
            let (sp, addr) = self.resolve(ld.space, a[l]);
            if sp == Space::Global {
                if !addr.is_multiple_of(total as u64) {
                    return Err(self.misaligned_global(cta, wi, l as u32, id, addr, total));
                }
                global_lanes.push((l, addr));
            } else {
                if sp == Space::Shared && self.tracker.is_some() {
                    let access = self.access(cta, wi, id, l);
                    self.check_shared(cta, wi, l, access, addr, total);
                }
                let r = self.local_bytes(cta, wi, id, l, sp, addr, total, total, false)?;
                data[l * total as usize..(l + 1) * total as usize].copy_from_slice(r.get());
            }
        }
        if !global_lanes.is_empty() {
            let req = self.request(cta, AccessKind::Load, &ld.hints, policy, id);
            self.global_read(
                cta,
                wi,
                id,
                &req,
                &global_lanes,
                &ld.dsts.iter().map(|d| *d == Dst::Sink).collect::<Vec<_>>(),
                eb,
                data,
            )?;
        }
        // Distribute into registers with sign or zero extension.
        let program = self.program;
        let frame = cta.warps[wi].frames.last_mut().expect("frame");
        let func = &program.functions[frame.func as usize];
        for (k, d) in ld.dsts.iter().enumerate() {
            let Dst::Reg(slot) = d else { continue };
            let dbits = ld.dst_bits[k];
            for l in lanes(exec) {
                let bytes = &data[l * total as usize + k * eb..][..eb];
                if eb == 16 {
                    let lo = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
                    let hi = u64::from_le_bytes(bytes[8..].try_into().expect("8 bytes"));
                    frame.regs[*slot as usize * 32 + l] = lo;
                    if func.slot_bits.len() > *slot as usize + 1 {
                        frame.regs[(*slot as usize + 1) * 32 + l] = hi;
                    }
                    continue;
                }
                let mut v = [0u8; 8];
                v[..eb].copy_from_slice(bytes);
                let raw = u64::from_le_bytes(v);
                let ext = match ld.extend {
                    Extend::Sign if eb < 8 => {
                        let sh = 64 - 8 * eb as u32;
                        (((raw << sh) as i64) >> sh) as u64
                    }
                    _ => raw,
                };
                let m = if dbits >= 64 {
                    u64::MAX
                } else {
                    (1u64 << dbits) - 1
                };
                frame.regs[*slot as usize * 32 + l] = ext & m;
            }
        }
        Ok(())
    }

    fn policy_value(&self, cta: &Cta, wi: usize, policy: Option<Src>, exec: u32) -> Option<u64> {
        policy.map(|p| {
            let mut v = [0u64; 32];
            self.read_src(cta, wi, p, &mut v);
            v[exec.trailing_zeros() as usize]
        })
    }

    /// Reads global memory for `lanes` (lane, address): through the cache model (one warp
    /// request, split where `_` elements leave holes), or straight from memory.
    #[allow(clippy::too_many_arguments)]
    fn global_read(
        &mut self,
        cta: &Cta,
        wi: usize,
        id: u32,
        req: &Request,
        lanes_addr: &[(usize, u64)],
        sinks: &[bool],
        eb: usize,
        data: &mut [u8],
    ) -> Result<(), ExecError> {
        let total = eb * sinks.len();
        // Runs of non-sink elements: (first element, count).
        let runs = element_runs(sinks);
        let mut accesses = Vec::with_capacity(lanes_addr.len() * runs.len());
        let mut places = Vec::with_capacity(accesses.capacity());
        for &(l, addr) in lanes_addr {
            for &(first, count) in &runs {
                accesses.push(LaneAccess::new(
                    addr + (first * eb) as u64,
                    (count * eb) as u32,
                ));
                places.push((l, l * total + first * eb, count * eb));
            }
        }
        let mut buf = vec![0u8; places.iter().map(|p| p.2).sum()];
        self.read_global(cta, wi, id, req, &accesses, &places, &mut buf)?;
        let mut off = 0;
        for &(_, at, len) in &places {
            data[at..at + len].copy_from_slice(&buf[off..off + len]);
            off += len;
        }
        Ok(())
    }

    fn mem_fault(
        &self,
        cta: &Cta,
        wi: usize,
        id: u32,
        acc: &[LaneAccess],
        places: &[(usize, usize, usize)],
        e: memsys::MemError,
    ) -> ExecError {
        // Name the first lane whose access is outside every allocation.
        for (k, a) in acc.iter().enumerate() {
            let mut probe = vec![0u8; a.bytes as usize];
            if self.mem.read(a.addr, &mut probe).is_err() {
                return self.fault(
                    cta,
                    wi as u32,
                    places[k].0 as u32,
                    id,
                    FaultKind::OutOfBounds {
                        space: "global",
                        address: a.addr,
                        bytes: a.bytes,
                    },
                );
            }
        }
        self.fault(
            cta,
            wi as u32,
            places.first().map_or(0, |p| p.0 as u32),
            id,
            FaultKind::Other(format!("memory model: {e}")),
        )
    }

    fn exec_store(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        st: &StoreInst,
        exec: u32,
    ) -> Result<(), ExecError> {
        let mut a = [0u64; 32];
        self.addr_values(cta, wi, st.addr, &mut a);
        let eb = st.elem_bytes as usize;
        let n = st.srcs.len();
        let total = eb * n;
        let mut storage = [0u8; 32 * MAX_LANE_BYTES];
        let data = &mut storage[..32 * total];
        let mut v = [0u64; 32];
        let mut v_hi = [0u64; 32];
        for (k, s) in st.srcs.iter().enumerate() {
            let Some(s) = s else { continue };
            self.read_src(cta, wi, *s, &mut v);
            if eb == 16 {
                if let Src::Reg(slot) = s {
                    self.read_src(cta, wi, Src::Reg(slot + 1), &mut v_hi);
                }
            }
            for l in lanes(exec) {
                let dst = &mut data[l * total + k * eb..][..eb];
                if eb == 16 {
                    dst[..8].copy_from_slice(&v[l].to_le_bytes());
                    dst[8..].copy_from_slice(&v_hi[l].to_le_bytes());
                } else {
                    dst.copy_from_slice(&v[l].to_le_bytes()[..eb]);
                }
            }
        }
        let sinks: Vec<bool> = st.srcs.iter().map(Option::is_none).collect();
        let runs = element_runs(&sinks);
        let policy = self.policy_value(cta, wi, st.policy, exec);
        let mut accesses = Vec::new();
        let mut places = Vec::new();
        for l in lanes(exec) {
            let (sp, addr) = self.resolve(st.space, a[l]);
            if sp == Space::Global {
                if !addr.is_multiple_of(total as u64) {
                    return Err(self.misaligned_global(cta, wi, l as u32, id, addr, total as u32));
                }
                for &(first, count) in &runs {
                    accesses.push(LaneAccess::new(
                        addr + (first * eb) as u64,
                        (count * eb) as u32,
                    ));
                    places.push((l, l * total + first * eb, count * eb));
                }
            } else {
                if sp == Space::Shared && self.tracker.is_some() {
                    let access = self.access(cta, wi, id, l);
                    self.check_shared(cta, wi, l, access, addr, total as u32);
                    self.check_shared_write(cta, access, addr, total as u32);
                }
                for &(first, count) in &runs {
                    let bytes = data[l * total + first * eb..][..count * eb].to_vec();
                    let r = self.local_bytes(
                        cta,
                        wi,
                        id,
                        l,
                        sp,
                        addr + (first * eb) as u64,
                        (count * eb) as u32,
                        if first == 0 { total as u32 } else { eb as u32 },
                        true,
                    )?;
                    match r {
                        LocalRef::Mut(m) => m.copy_from_slice(&bytes),
                        LocalRef::Ref(_) => unreachable!("writes resolve to mutable spaces"),
                    }
                }
            }
        }
        if accesses.is_empty() {
            return Ok(());
        }
        let req = self.request(cta, AccessKind::Store, &st.hints, policy, id);
        let mut buf = Vec::with_capacity(places.iter().map(|p| p.2).sum());
        for &(_, at, len) in &places {
            buf.extend_from_slice(&data[at..at + len]);
        }
        self.write_global(cta, wi, id, &req, &accesses, &places, &buf)?;
        Ok(())
    }

    fn exec_cp_async(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        cp: &CpAsyncInst,
        exec: u32,
    ) -> Result<(), ExecError> {
        let mut d = [0u64; 32];
        let mut s = [0u64; 32];
        let mut sz = [cp.cp_size as u64; 32];
        self.addr_values(cta, wi, cp.dst, &mut d);
        self.addr_values(cta, wi, cp.src, &mut s);
        if let Some(src_size) = cp.src_size {
            self.read_src(cta, wi, src_size, &mut sz);
        }
        let ignore = match cp.ignore_src {
            Some(p) => Self::pred_mask(cta.warps[wi].frames.last().expect("frame"), p),
            None => 0,
        };
        let policy = self.policy_value(cta, wi, cp.policy, exec);
        let mut reads = Vec::new();
        let mut dsts = Vec::new();
        for l in lanes(exec) {
            let dst =
                self.shared_offset(cta, wi, id, l as u32, d[l], cp.dst_generic, cp.cp_size)?;
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
            if n > 0 && !src.is_multiple_of(cp.cp_size as u64) {
                return Err(self.misaligned_global(cta, wi, l as u32, id, src, cp.cp_size));
            }
            dsts.push((l, dst, n, src));
            if n > 0 {
                reads.push((l, src, n));
            }
        }
        let mut data = vec![[0u8; 16]; 32];
        if !reads.is_empty() {
            let req = self.request(cta, AccessKind::AsyncCopy, &cp.hints, policy, id);
            let accesses: Vec<LaneAccess> = reads
                .iter()
                .map(|&(_, a, n)| LaneAccess::new(a, n))
                .collect();
            let places: Vec<(usize, usize, usize)> =
                reads.iter().map(|&(l, _, n)| (l, 0, n as usize)).collect();
            let mut buf = vec![0u8; reads.iter().map(|r| r.2 as usize).sum()];
            self.read_global(cta, wi, id, &req, &accesses, &places, &mut buf)?;
            let mut off = 0;
            for &(l, _, n) in &reads {
                data[l][..n as usize].copy_from_slice(&buf[off..off + n as usize]);
                off += n as usize;
            }
            self.summary.cp_async_bytes += buf.len() as u64;
        }
        for (l, dst, n, src) in dsts {
            let access = self.access(cta, wi, id, l);
            if self.tracker.is_some() {
                // Overwriting the destination of a copy still in flight is a race too.
                self.check_shared(cta, wi, l, access, dst as u64, cp.cp_size);
                self.check_shared_write(cta, access, dst as u64, cp.cp_size);
            }
            let copy_id = cta.copies.len() as u32;
            cta.copies.push(PendingCopy {
                dst,
                data: data[l],
                len: cp.cp_size,
                landed: false,
                access,
                issuer: cta.warps[wi].index * 32 + l as u32,
                src,
                src_len: n,
                landed_gen: 0,
                via_mbar: None,
            });
            cta.warps[wi].asyncs[l].uncommitted.push(copy_id);
            if let Some(t) = &mut self.tracker {
                t.copy_issued(access, src, n);
                for w in (dst / 4)..(dst + cp.cp_size).div_ceil(4) {
                    cta.copy_words.insert(w, copy_id);
                }
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn exec_prefetch(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        space: Space,
        addr: Addr,
        level2: bool,
        l2: Option<memsys::L2EvictionPriority>,
        exec: u32,
    ) -> Result<(), ExecError> {
        if !self.cfg.cache_model {
            return Ok(());
        }
        let mut a = [0u64; 32];
        self.addr_values(cta, wi, addr, &mut a);
        let mut acc = Vec::new();
        for l in lanes(exec) {
            let (sp, ad) = self.resolve(space, a[l]);
            if sp == Space::Global {
                acc.push(LaneAccess::new(ad & !31, 32));
            }
        }
        if acc.is_empty() {
            return Ok(());
        }
        let hints = MemHints {
            operator: Some(if level2 {
                memsys::CacheOperator::Cg
            } else {
                memsys::CacheOperator::Ca
            }),
            l2_priority: l2,
            ..MemHints::default()
        };
        let req = self.request(cta, AccessKind::Prefetch, &hints, None, id);
        // A prefetch of an address outside every allocation is dropped, as on hardware.
        let _ = self.mem.load(&req, &acc, &mut []);
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn exec_atom(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        op: AtomOp,
        ty: ptx_isa::ScalarType,
        space: Space,
        d: Option<Dst>,
        addr: Addr,
        b: Src,
        c: Option<Src>,
        hints: MemHints,
        exec: u32,
    ) -> Result<(), ExecError> {
        let mut a = [0u64; 32];
        let mut bv = [0u64; 32];
        let mut cv = [0u64; 32];
        self.addr_values(cta, wi, addr, &mut a);
        self.read_src(cta, wi, b, &mut bv);
        if let Some(c) = c {
            self.read_src(cta, wi, c, &mut cv);
        }
        let eb = ty.bytes() as usize;
        let mut old = [0u64; 32];
        let mut global = Vec::new();
        for l in lanes(exec) {
            let (sp, ad) = self.resolve(space, a[l]);
            if sp == Space::Global {
                if ad % eb as u64 != 0 {
                    return Err(self.misaligned_global(cta, wi, l as u32, id, ad, eb as u32));
                }
                global.push((l, ad));
            } else {
                if sp == Space::Shared && self.tracker.is_some() {
                    let access = self.access(cta, wi, id, l);
                    self.check_shared(cta, wi, l, access, ad, eb as u32);
                    self.check_shared_write(cta, access, ad, eb as u32);
                }
                let r = self.local_bytes(cta, wi, id, l, sp, ad, eb as u32, eb as u32, true)?;
                let LocalRef::Mut(m) = r else { unreachable!() };
                let mut v = [0u8; 8];
                v[..eb].copy_from_slice(m);
                let prev = u64::from_le_bytes(v);
                old[l] = prev;
                let new = alu::atom_combine(op, ty, prev, bv[l], cv[l]);
                m.copy_from_slice(&new.to_le_bytes()[..eb]);
            }
        }
        if !global.is_empty() {
            let req = self.request(cta, AccessKind::Atomic, &hints, None, id);
            let acc: Vec<LaneAccess> = global
                .iter()
                .map(|&(_, ad)| LaneAccess::new(ad, eb as u32))
                .collect();
            let places: Vec<(usize, usize, usize)> =
                global.iter().map(|&(l, _)| (l, 0, eb)).collect();
            if self.cfg.cache_model {
                let mut olds = vec![0u64; global.len()];
                let gl = &global;
                let mut update = |k: usize, bytes: &mut [u8]| {
                    let l = gl[k].0;
                    let mut v = [0u8; 8];
                    v[..eb].copy_from_slice(bytes);
                    let prev = u64::from_le_bytes(v);
                    olds[k] = prev;
                    let new = alu::atom_combine(op, ty, prev, bv[l], cv[l]);
                    bytes.copy_from_slice(&new.to_le_bytes()[..eb]);
                };
                self.mem
                    .atomic(&req, &acc, &mut update)
                    .map_err(|e| self.mem_fault(cta, wi, id, &acc, &places, e))?;
                for (k, &(l, _)) in global.iter().enumerate() {
                    old[l] = olds[k];
                }
            } else {
                for (k, &(l, ad)) in global.iter().enumerate() {
                    let mut bytes = vec![0u8; eb];
                    self.mem
                        .read(ad, &mut bytes)
                        .map_err(|e| self.mem_fault(cta, wi, id, &acc[k..=k], &places[k..=k], e))?;
                    let mut v = [0u8; 8];
                    v[..eb].copy_from_slice(&bytes);
                    let prev = u64::from_le_bytes(v);
                    old[l] = prev;
                    let new = alu::atom_combine(op, ty, prev, bv[l], cv[l]);
                    self.mem
                        .write(ad, &new.to_le_bytes()[..eb])
                        .map_err(|e| self.mem_fault(cta, wi, id, &acc[k..=k], &places[k..=k], e))?;
                }
            }
            self.track_stores(cta, wi, id, &acc, &places);
        }
        if let Some(d) = d {
            Self::write_dst(cta, wi, self.program, d, &old, exec);
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn exec_mbarrier(
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
        let mut a = [0u64; 32];
        let mut bv = [0u64; 32];
        self.addr_values(cta, wi, addr, &mut a);
        if let Some(b) = b {
            self.read_src(cta, wi, b, &mut bv);
        }
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

    #[allow(clippy::too_many_arguments)]
    fn exec_ldmatrix(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        num: u8,
        trans: bool,
        ds: &[Slot],
        addr: Addr,
        generic: bool,
        exec: u32,
    ) -> Result<(), ExecError> {
        // Lanes 8i..8i+7 give the row addresses of matrix i; each row is 8 b16 elements.
        let mut a = [0u64; 32];
        self.addr_values(cta, wi, addr, &mut a);
        let mut rows = [[0u16; 8]; 32];
        for (r, row) in rows.iter_mut().enumerate().take(8 * num as usize) {
            let off = self.shared_offset(cta, wi, id, r as u32, a[r], generic, 16)? as usize;
            if self.tracker.is_some() {
                let access = self.access(cta, wi, id, r);
                self.check_shared(cta, wi, r, access, off as u64, 16);
            }
            for (k, e) in row.iter_mut().enumerate() {
                *e = u16::from_le_bytes([cta.shared[off + 2 * k], cta.shared[off + 2 * k + 1]]);
            }
        }
        let mut out = [0u64; 32];
        for (m, &slot) in ds.iter().enumerate() {
            for (l, o) in out.iter_mut().enumerate() {
                // Fragment: lane l holds row l/4, elements 2*(l%4) and 2*(l%4)+1.
                let (r, c0) = (l / 4, 2 * (l % 4));
                let get = |row: usize, col: usize| -> u16 {
                    if trans {
                        rows[8 * m + col][row]
                    } else {
                        rows[8 * m + row][col]
                    }
                };
                *o = get(r, c0) as u64 | ((get(r, c0 + 1) as u64) << 16);
            }
            Self::write_dst(cta, wi, self.program, Dst::Reg(slot), &out, exec);
        }
        Ok(())
    }

    /// `stmatrix`: the inverse of `ldmatrix`. Lanes `8i..8i+7` give the row addresses of matrix
    /// `i`; register `i` of lane `l` holds row `l/4`, elements `2(l%4)` and `+1` of matrix `i`
    /// (with `.trans`, column `l/4`, rows `2(l%4)` and `+1`).
    #[allow(clippy::too_many_arguments)]
    fn exec_stmatrix(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        num: u8,
        trans: bool,
        srcs: &[Src],
        addr: Addr,
        generic: bool,
    ) -> Result<(), ExecError> {
        let mut a = [0u64; 32];
        self.addr_values(cta, wi, addr, &mut a);
        let mut regs = vec![[0u64; 32]; srcs.len()];
        for (v, s) in regs.iter_mut().zip(srcs) {
            self.read_src(cta, wi, *s, v);
        }
        let mut rows = [[0u16; 8]; 32];
        for (m, reg) in regs.iter().enumerate() {
            for (l, &v) in reg.iter().enumerate() {
                let (r, c0) = (l / 4, 2 * (l % 4));
                for h in 0..2 {
                    let e = (v >> (16 * h)) as u16;
                    if trans {
                        rows[8 * m + c0 + h][r] = e;
                    } else {
                        rows[8 * m + r][c0 + h] = e;
                    }
                }
            }
        }
        for (r, row) in rows.iter().enumerate().take(8 * num as usize) {
            let off = self.shared_offset(cta, wi, id, r as u32, a[r], generic, 16)? as usize;
            if self.tracker.is_some() {
                let access = self.access(cta, wi, id, r);
                self.check_shared(cta, wi, r, access, off as u64, 16);
                self.check_shared_write(cta, access, off as u64, 16);
            }
            for (k, e) in row.iter().enumerate() {
                cta.shared[off + 2 * k..off + 2 * k + 2].copy_from_slice(&e.to_le_bytes());
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn exec_mma(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        shape: MmaShape,
        ds: &[Slot],
        xa: &[Src],
        xb: &[Src],
        xc: &[Src],
        exec: u32,
    ) {
        let read = |this: &Self, srcs: &[Src]| -> Vec<[u64; 32]> {
            srcs.iter()
                .map(|s| {
                    let mut v = [0u64; 32];
                    this.read_src(cta, wi, *s, &mut v);
                    v
                })
                .collect()
        };
        let (ra, rb, rc) = (read(self, xa), read(self, xb), read(self, xc));
        let result = alu::mma(shape, &ra, &rb, &rc);
        for (k, &slot) in ds.iter().enumerate() {
            Self::write_dst(cta, wi, self.program, Dst::Reg(slot), &result[k], exec);
        }
    }
}

impl Machine<'_> {
    /// `wmma` instructions are `.sync.aligned`: every thread of the warp executes them together.
    fn wmma_whole_warp(&self, cta: &Cta, wi: usize, id: u32, exec: u32) -> Result<(), ExecError> {
        let warp = &cta.warps[wi];
        if exec != FULL || warp.frames[0].mask != FULL {
            return Err(self.fault(
                cta,
                wi as u32,
                exec.trailing_zeros(),
                id,
                FaultKind::Other(format!(
                    "wmma is .sync.aligned: all 32 threads of the warp must execute it together, \
                     but only lanes 0x{exec:08x} do"
                )),
            ));
        }
        Ok(())
    }

    /// `wmma.load` (`load`) or `wmma.store`: the whole matrix is read or written as one warp
    /// request of one access per row (`.row`) or column (`.col`); the fragment registers follow
    /// the layout of [`ptx_semantics::wmma`].
    fn exec_wmma_mem(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        w: &WmmaMemInst,
        exec: u32,
        load: bool,
    ) -> Result<(), ExecError> {
        use ptx_semantics::wmma::{wmma_gather, wmma_scatter};
        self.wmma_whole_warp(cta, wi, id, exec)?;
        let mut a = [0u64; 32];
        self.addr_values(cta, wi, w.addr, &mut a);
        let mut st = [0u64; 32];
        let default_ld = if w.row_major { w.cols } else { w.rows } as u64;
        match w.stride {
            Some(s) => self.read_src(cta, wi, s, &mut st),
            None => st = [default_ld; 32],
        }
        if let Some(l) = (1..32).find(|&l| a[l] != a[0] || st[l] as u32 != st[0] as u32) {
            return Err(self.fault(
                cta,
                wi as u32,
                l as u32,
                id,
                FaultKind::Other(format!(
                    "wmma address and stride must be the same in every thread: lane 0 has \
                     0x{:x} (stride {}), lane {l} 0x{:x} (stride {})",
                    a[0], st[0] as u32, a[l], st[l] as u32
                )),
            ));
        }
        let eb = (w.ty.bits() / 8) as u64;
        let ld = st[0] as u32 as u64;
        let (runs, run_len) = if w.row_major {
            (w.rows, w.cols)
        } else {
            (w.cols, w.rows)
        };
        let bytes = (run_len as u64 * eb) as u32;
        let starts: Vec<u64> = (0..runs as u64)
            .map(|r| a[0].wrapping_add(r * ld * eb))
            .collect();
        let index = |run: u32, i: u32| -> usize {
            if w.row_major {
                (run * w.cols + i) as usize
            } else {
                (i * w.cols + run) as usize
            }
        };
        let get = |buf: &[u8], at: usize| -> u32 {
            let mut v = [0u8; 4];
            v[..eb as usize].copy_from_slice(&buf[at..at + eb as usize]);
            u32::from_le_bytes(v)
        };
        let size = (w.rows * w.cols) as usize;
        if load {
            let buf = self.wmma_runs(cta, wi, id, w.space, &starts, bytes, eb as u32, None)?;
            let mut m = vec![0u32; size];
            for run in 0..runs {
                for i in 0..run_len {
                    let at = (run * bytes + i * eb as u32) as usize;
                    m[index(run, i)] = get(&buf, at);
                }
            }
            let regs = wmma_scatter(&m, w.ty, w.rows, w.cols, w.regs.len());
            for (k, &slot) in w.regs.iter().enumerate() {
                Self::write_dst(cta, wi, self.program, Dst::Reg(slot), &regs[k], exec);
            }
        } else {
            let regs: Vec<[u64; 32]> = w
                .regs
                .iter()
                .map(|&slot| {
                    let mut v = [0u64; 32];
                    self.read_src(cta, wi, Src::Reg(slot), &mut v);
                    v
                })
                .collect();
            let m = wmma_gather(&regs, w.ty, w.rows, w.cols);
            let mut buf = vec![0u8; (runs * bytes) as usize];
            for run in 0..runs {
                for i in 0..run_len {
                    let at = (run * bytes + i * eb as u32) as usize;
                    buf[at..at + eb as usize]
                        .copy_from_slice(&m[index(run, i)].to_le_bytes()[..eb as usize]);
                }
            }
            self.wmma_runs(cta, wi, id, w.space, &starts, bytes, eb as u32, Some(&buf))?;
        }
        Ok(())
    }

    /// Reads (`data` = None; returns the bytes, run after run) or writes `bytes` bytes at each
    /// of `starts` in `space` (generic addresses resolved per run), as one warp request.
    #[allow(clippy::too_many_arguments)]
    fn wmma_runs(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        space: Space,
        starts: &[u64],
        bytes: u32,
        align: u32,
        data: Option<&[u8]>,
    ) -> Result<Vec<u8>, ExecError> {
        let mut out = vec![0u8; starts.len() * bytes as usize];
        let mut acc = Vec::new();
        let mut places = Vec::new();
        for (k, &start) in starts.iter().enumerate() {
            let lane = k % 32;
            let at = k * bytes as usize;
            let (sp, addr) = self.resolve(space, start);
            if sp == Space::Global {
                if !addr.is_multiple_of(align as u64) {
                    return Err(self.misaligned_global(cta, wi, lane as u32, id, addr, align));
                }
                acc.push(LaneAccess::new(addr, bytes));
                places.push((lane, at, bytes as usize));
                continue;
            }
            if sp == Space::Shared && self.tracker.is_some() {
                let access = self.access(cta, wi, id, lane);
                self.check_shared(cta, wi, lane, access, addr, bytes);
                if data.is_some() {
                    self.check_shared_write(cta, access, addr, bytes);
                }
            }
            let r = self.local_bytes(cta, wi, id, lane, sp, addr, bytes, align, data.is_some())?;
            match (data, r) {
                (Some(d), LocalRef::Mut(m)) => m.copy_from_slice(&d[at..at + bytes as usize]),
                (Some(_), LocalRef::Ref(_)) => unreachable!("writes resolve to mutable spaces"),
                (None, r) => out[at..at + bytes as usize].copy_from_slice(r.get()),
            }
        }
        if !acc.is_empty() {
            let kind = if data.is_some() {
                AccessKind::Store
            } else {
                AccessKind::Load
            };
            let req = self.request(cta, kind, &MemHints::default(), None, id);
            match data {
                Some(d) => {
                    let mut buf = Vec::with_capacity(acc.len() * bytes as usize);
                    for &(_, at, len) in &places {
                        buf.extend_from_slice(&d[at..at + len]);
                    }
                    self.write_global(cta, wi, id, &req, &acc, &places, &buf)?;
                }
                None => {
                    let mut buf = vec![0u8; acc.len() * bytes as usize];
                    self.read_global(cta, wi, id, &req, &acc, &places, &mut buf)?;
                    for (k, &(_, at, len)) in places.iter().enumerate() {
                        out[at..at + len].copy_from_slice(&buf[k * len..(k + 1) * len]);
                    }
                }
            }
        }
        Ok(out)
    }

    /// `wgmma.mma_async`: each warp of the warpgroup (4 consecutive warps) updates its own
    /// accumulator rows; A and B are read from shared memory through their descriptors when
    /// the instruction issues (the kernel may not touch them before `wgmma.wait_group`).
    #[allow(clippy::too_many_arguments)]
    fn exec_wgmma(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        shape: WgmmaShape,
        ds: &[Slot],
        a_desc: Src,
        a_regs: Option<&[Src]>,
        b_desc: Src,
        scale_d: Option<PredSrc>,
        imm: [i8; 4],
        exec: u32,
    ) -> Result<(), ExecError> {
        use ptx_semantics::wgmma::{mma_async_any, AOperand, WgmmaError, WgmmaOperands, WgmmaType};
        let first = exec.trailing_zeros() as usize;
        let mut v = [0u64; 32];
        self.read_src(cta, wi, a_desc, &mut v);
        let a = v[first];
        self.read_src(cta, wi, b_desc, &mut v);
        let b = v[first];
        let scale = match scale_d {
            Some(p) => {
                Self::pred_mask(cta.warps[wi].frames.last().expect("frame"), p) & (1 << first) != 0
            }
            None => true,
        };
        let wty = |t: ptx_isa::ScalarType| match t {
            ptx_isa::ScalarType::Bf16 => WgmmaType::Bf16,
            ptx_isa::ScalarType::Tf32 => WgmmaType::Tf32,
            ptx_isa::ScalarType::E4m3 => WgmmaType::E4m3,
            ptx_isa::ScalarType::E5m2 => WgmmaType::E5m2,
            ptx_isa::ScalarType::S8 => WgmmaType::S8,
            ptx_isa::ScalarType::U8 => WgmmaType::U8,
            _ => WgmmaType::F16,
        };
        let (ty, ty_b) = (wty(shape.input), wty(shape.input_b));
        let ops = WgmmaOperands {
            n: shape.n,
            scale_d: scale,
            negate_a: imm[0] == -1,
            negate_b: imm[1] == -1,
            trans_a: imm[2] == 1,
            trans_b: imm[3] == 1,
            f16_accumulator: shape.f16_accumulator,
        };
        let rank = (cta.warps[wi].index % 4) as usize;
        let mut d = Box::new([[0u32; 128]; 128]);
        {
            let frame = cta.warps[wi].frames.last().expect("frame");
            for lane in 0..32 {
                for (i, &slot) in ds.iter().enumerate().take(128) {
                    d[rank * 32 + lane][i] = frame.regs[slot as usize * 32 + lane] as u32;
                }
            }
        }
        let shared = &cta.shared;
        // Hazard tracking: the shared addresses the operands are read from (async copies that
        // have not completed for this thread, such as a TMA load not waited for, are hazards).
        let track = self.tracker.is_some()
            && (!cta.copy_words.is_empty() || !cta.bulk.load_words.is_empty());
        let touched = std::cell::RefCell::new(Vec::new());
        let read = |addr: u32, bytes: u32| -> Result<u32, u32> {
            if track {
                touched.borrow_mut().push(addr);
            }
            let at = addr as usize;
            let slice = shared.get(at..at + bytes as usize).ok_or(addr)?;
            let mut w = [0u8; 4];
            w[..slice.len()].copy_from_slice(slice);
            Ok(u32::from_le_bytes(w))
        };
        let mut a_frag = [[0u32; 4]; 32];
        if let Some(regs) = a_regs {
            for (r, src) in regs.iter().enumerate().take(4) {
                self.read_src(cta, wi, *src, &mut v);
                for (lane, frag) in a_frag.iter_mut().enumerate() {
                    frag[r] = v[lane] as u32;
                }
            }
        }
        let a_src = match a_regs {
            Some(_) => AOperand::Registers {
                rank: rank as u32,
                regs: &a_frag,
            },
            None => AOperand::Shared(a),
        };
        if let Err(e) = mma_async_any(ty, ty_b, shape.satfinite, a_src, b, ops, &mut d, read) {
            let kind = match e {
                WgmmaError::Read(addr) => FaultKind::OutOfBounds {
                    space: "shared",
                    address: addr as u64,
                    bytes: ty.elem_bytes(),
                },
                other => FaultKind::Other(format!("wgmma.mma_async: {other:?}")),
            };
            return Err(self.fault(cta, wi as u32, first as u32, id, kind));
        }
        if track {
            let mut words: Vec<u32> = touched.into_inner().iter().map(|a| a / 4).collect();
            words.sort_unstable();
            words.dedup();
            let access = self.access(cta, wi, id, first);
            for w in words {
                self.check_shared(cta, wi, first, access, w as u64 * 4, 4);
            }
        }
        let frame = cta.warps[wi].frames.last_mut().expect("frame");
        for lane in lanes(exec) {
            for (i, &slot) in ds.iter().enumerate().take(128) {
                frame.regs[slot as usize * 32 + lane] = d[rank * 32 + lane][i] as u64;
            }
        }
        Ok(())
    }
}

impl Machine<'_> {
    /// Reads global memory for `acc` into `buf` (packed in access order): through the cache
    /// model as warp requests of at most `MAX_LANES` accesses, or straight from memory.
    /// `places[k].0` is the lane of access `k`. Feeds the hazard tracker.
    #[allow(clippy::too_many_arguments)]
    fn read_global(
        &mut self,
        cta: &Cta,
        wi: usize,
        id: u32,
        req: &Request,
        acc: &[LaneAccess],
        places: &[(usize, usize, usize)],
        buf: &mut [u8],
    ) -> Result<(), ExecError> {
        let mut off = 0;
        for (a, pl) in acc
            .chunks(memsys::MAX_LANES)
            .zip(places.chunks(memsys::MAX_LANES))
        {
            let need: usize = a.iter().map(|x| x.bytes as usize).sum();
            let out = &mut buf[off..off + need];
            let stale = if self.cfg.cache_model {
                let outcome = self
                    .mem
                    .load(req, a, out)
                    .map_err(|e| self.mem_fault(cta, wi, id, a, pl, e))?;
                outcome.stale_lanes
            } else {
                let mut o = 0;
                for (k, x) in a.iter().enumerate() {
                    let len = x.bytes as usize;
                    self.mem
                        .read(x.addr, &mut out[o..o + len])
                        .map_err(|e| self.mem_fault(cta, wi, id, &a[k..=k], &pl[k..=k], e))?;
                    o += len;
                }
                0
            };
            if stale != 0 {
                for (k, p) in pl.iter().enumerate() {
                    if stale & (1 << k) != 0 {
                        self.summary.stale_reads.push(StaleRead {
                            instr: id,
                            cta: cta.id,
                            thread: self.thread_of(cta, wi as u32, p.0 as u32),
                            address: a[k].addr,
                        });
                    }
                }
            }
            if req.kind == AccessKind::Load {
                self.track_loads(cta, wi, id, req, a, pl, stale);
            }
            off += need;
        }
        Ok(())
    }

    /// Writes `buf` (packed in access order) to global memory for `acc`, like
    /// [`Machine::read_global`] reads. Feeds the hazard tracker.
    #[allow(clippy::too_many_arguments)]
    fn write_global(
        &mut self,
        cta: &Cta,
        wi: usize,
        id: u32,
        req: &Request,
        acc: &[LaneAccess],
        places: &[(usize, usize, usize)],
        buf: &[u8],
    ) -> Result<(), ExecError> {
        let mut off = 0;
        for (a, pl) in acc
            .chunks(memsys::MAX_LANES)
            .zip(places.chunks(memsys::MAX_LANES))
        {
            let need: usize = a.iter().map(|x| x.bytes as usize).sum();
            let data = &buf[off..off + need];
            if self.cfg.cache_model {
                self.mem
                    .store(req, a, data)
                    .map_err(|e| self.mem_fault(cta, wi, id, a, pl, e))?;
            } else {
                let mut o = 0;
                for (k, x) in a.iter().enumerate() {
                    let len = x.bytes as usize;
                    self.mem
                        .write(x.addr, &data[o..o + len])
                        .map_err(|e| self.mem_fault(cta, wi, id, &a[k..=k], &pl[k..=k], e))?;
                    o += len;
                }
            }
            self.track_stores(cta, wi, id, a, pl);
            off += need;
        }
        Ok(())
    }

    /// Feeds global loads to the hazard tracker.
    #[allow(clippy::too_many_arguments)]
    fn track_loads(
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
    fn track_stores(
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

    /// The fault of a global access whose address is not a multiple of its size.
    fn misaligned_global(
        &self,
        cta: &Cta,
        wi: usize,
        lane: u32,
        id: u32,
        address: u64,
        bytes: u32,
    ) -> ExecError {
        self.fault(
            cta,
            wi as u32,
            lane,
            id,
            FaultKind::Misaligned {
                space: "global",
                address,
                bytes,
            },
        )
    }

    /// Who is executing: instruction, CTA and thread of `lane`.
    fn access(&self, cta: &Cta, wi: usize, id: u32, lane: usize) -> Access {
        Access {
            instr: id,
            cta: cta.id,
            thread: self.thread_of(cta, wi as u32, lane as u32),
        }
    }

    /// Hazard check of a shared-memory access by one lane: does it touch the destination of a
    /// copy that has not completed for this thread?
    fn check_shared(
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
            let c = &cta.copies[cid as usize];
            let visible = c.landed
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
    fn check_shared_write(&mut self, cta: &Cta, access: Access, offset: u64, bytes: u32) {
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

    /// Writes copies into shared memory (once each, in issue order). `via_mbar`: the mbarrier
    /// whose wait lands them.
    fn land_copies(&mut self, cta: &mut Cta, ids: &[u32], via_mbar: Option<u32>) {
        let mut sorted = ids.to_vec();
        sorted.sort_unstable();
        for id in sorted {
            let gen = cta.barrier_gen;
            let c = &mut cta.copies[id as usize];
            if c.landed {
                continue;
            }
            c.landed = true;
            c.landed_gen = gen;
            c.via_mbar = via_mbar;
            let (dst, len) = (c.dst as usize, c.len as usize);
            let data = c.data;
            let (src, src_len) = (c.src, c.src_len);
            cta.shared[dst..dst + len].copy_from_slice(&data[..len]);
            if let Some(t) = &mut self.tracker {
                t.copy_completed(src, src_len);
            }
        }
    }

    /// Performs the arrive-on of `cp.async.mbarrier.arrive` bindings whose copies have landed
    /// — or, for `mbar`, lands them first.
    fn complete_async_arrives(&mut self, cta: &mut Cta, mbar: Option<u32>) {
        let arrives = std::mem::take(&mut cta.async_arrives);
        let mut keep = Vec::new();
        for a in arrives {
            if Some(a.mbar) == mbar {
                self.land_copies(cta, &a.copies, mbar);
            }
            if a.copies.iter().all(|&c| cta.copies[c as usize].landed) {
                mbarrier_arrive(cta.mbarriers.entry(a.mbar).or_default(), 1);
            } else {
                keep.push(a);
            }
        }
        cta.async_arrives = keep;
    }
}

/// A view of bytes in a space the machine holds directly.
enum LocalRef<'a> {
    Mut(&'a mut [u8]),
    Ref(&'a [u8]),
}

impl LocalRef<'_> {
    fn get(&self) -> &[u8] {
        match self {
            LocalRef::Mut(m) => m,
            LocalRef::Ref(r) => r,
        }
    }
}

fn mbarrier_arrive(mb: &mut Mbarrier, count: u32) {
    mb.pending = mb.pending.saturating_sub(count);
    bulk::mbarrier_check(mb);
}

/// A barrier completed: copies landed before it are now visible to every thread of the CTA.
fn barrier_completed(cta: &mut Cta) {
    cta.barrier_gen += 1;
    if !cta.copy_words.is_empty() {
        let copies = &cta.copies;
        cta.copy_words.retain(|_, c| !copies[*c as usize].landed);
    }
    if !cta.bulk.load_words.is_empty() {
        let loads = &cta.bulk.loads;
        let gen = cta.barrier_gen;
        cta.bulk
            .load_words
            .retain(|_, c| loads[*c as usize].observed_gen.is_none_or(|g| gen <= g));
    }
}

fn element_runs(sinks: &[bool]) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut k = 0;
    while k < sinks.len() {
        if sinks[k] {
            k += 1;
            continue;
        }
        let start = k;
        while k < sinks.len() && !sinks[k] {
            k += 1;
        }
        runs.push((start, k - start));
    }
    runs
}

fn bool_op(op: BoolOp, a: u32, b: u32) -> u32 {
    match op {
        BoolOp::And => a & b,
        BoolOp::Or => a | b,
        BoolOp::Xor => a ^ b,
    }
}

/// Iterates the set lanes of a mask.
#[inline]
/// The lanes of `mask` whose PC in `frame` is `pc`.
fn lanes_at(frame: &Frame, mask: u32, pc: Pc) -> u32 {
    lanes(mask)
        .filter(|&l| frame.pc[l] == pc)
        .fold(0, |acc, l| acc | 1 << l)
}

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
