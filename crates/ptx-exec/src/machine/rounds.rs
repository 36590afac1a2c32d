//! The phases of a scheduling round, and the host threads that run them.
//!
//! A round (`schedule.rs`, `run_grid`) gives every resident warp one turn of up to a quantum of
//! instructions, in a turn order the seed permutes. It runs in three phases:
//!
//! 1. **CTA-local phase, in parallel over CTAs.** Each CTA's warps take their turns in the
//!    round's order restricted to that CTA, on one host thread (so shared memory, barriers and
//!    mbarriers see one fixed order). A warp stops *before* an instruction that reaches state
//!    outside its CTA ([`Machine::reaches_outside_cta`]): the memory system (global and generic
//!    accesses that resolve to global memory, atomics and reductions on global memory,
//!    `cp.async`, bulk copies and TMA, L1-invalidating fences, prefetches, range cache
//!    policies, which the memory system encodes) and the launch's ordered outputs (`printf`,
//!    `assert`). Everything a CTA does in this phase depends only on
//!    the CTA and the state at the start of the round, so which thread runs it, and when,
//!    changes nothing. Each thread counts its own steps and per-instruction executions;
//!    integer sums do not depend on the order they are added in.
//! 2. **SM-parallel phase, in parallel over SMs** (`sm_phase.rs`).
//!    The warps that stopped go on, each SM's in the round's turn order restricted to the
//!    SM, through weak global loads and stores and `cp.async` reads — served by a
//!    [`memsys::SmPort`] from the SM's own L1 and a view of global memory that holds the
//!    image at the phase's start plus the SM's own stores (without the cache model, from
//!    that view alone) — and the CTA-local instructions
//!    between them, under the rule of the serial phase below. A warp stops before anything
//!    whose result may depend on other SMs in the round (atomics, strong accesses, fences,
//!    bulk copies, `printf`, ...: [`Machine::needs_serial_phase`]). Then the memory system
//!    applies the phase's stores and replays the L2 work the SMs logged, in turn order
//!    ([`memsys::MemSystem::settle`]), so the L2 and every counter come out as if one
//!    machine had run the turns in that order. A load does not see another SM's store of
//!    the same phase (it does at the next phase): a legal outcome for weak accesses, which
//!    are not ordered across CTAs without synchronization, and the same for every thread
//!    count.
//!
//!    **When the settle runs.** It reads and writes only the memory system and the ports,
//!    and the next round's CTA-local phase touches neither (it stops every warp before an
//!    instruction that reaches outside its CTA), so the settle waits for the first thing
//!    that does need the memory system: this round's serial phase, when a warp is left for
//!    it; a retiring CTA's pending bulk stores; the next SM-parallel phase (which lends the
//!    SMs again); the end of the launch, whatever ended it. When nothing needs it sooner it
//!    runs on one of the pool's threads *while* the other threads run the next round's
//!    CTA-local phase (`run_local_phase`, `rayon::join`), instead of on the launch thread
//!    with the pool idle: on the triad bench this took the launch thread's share of a
//!    two-thread launch from about 11 % to 3 %. Either way the settle happens between the
//!    same two uses of the memory system, so the results are those of settling at once (on
//!    one thread it simply runs before the next CTA-local phase). A failed lend or a fault
//!    in the phase settles at once.
//! 3. **Global phase, serial, in the round's turn order.** Each warp that stopped at such an
//!    instruction runs it on the launch's own machine, then goes on, within what is left of
//!    its quantum, through the instructions that reach outside the CTA and the CTA-local ones
//!    between them: it stops before a CTA-local instruction after which none follows within
//!    [`GLOBAL_RUN_GAP`] instructions along the fall-through and branch paths (a static look
//!    at the code, so the same for every thread count). The rest of its turn waits for the
//!    next round's first phase. Two simpler rules were measured and rejected: running only
//!    the instructions that reach outside the CTA splits a CAS loop's `atom.cas` from the
//!    `setp`/`bra` around it, so other warps' CASes land in between and contended loops fail
//!    far more often (12x the warp-instructions on the corpus's `atomic_cas_loops`, whose
//!    benign stale first read the hazard tracker then reports), and the counters of the
//!    hardware-agreement corpus move away from the H100's (L2 sectors within 10 % on 80.3 %
//!    of the launches instead of 82.3 %); running the whole rest of the turn serially keeps
//!    the old interleaving but leaves 29 % of the 1024³ fp16 matmul's warp-instructions in the
//!    serial phase. A turn that holds no such instruction runs wholly in parallel.
//!
//! **The round as a clock for memsys.** Between the first phase and the second, the launch
//! marks the round on the memory system ([`memsys::MemSystem::begin_round`]; the previous
//! round's settle is done by then): L2 read misses of one round are the fills in flight that
//! other SMs' reads of the same round join (memsys's L2 request coalescer). The mark comes at
//! the same point of the schedule for every thread count.
//!
//! One thread runs the same three phases, so a launch gives the same outputs, counters, hazards
//! and faults for every thread count by construction. `%clock`, `%clock64` and `%globaltimer`
//! read the launch's step count: in the first phase that is the count at the start of the
//! round plus the CTA's own steps in it (deterministic, and never behind what the warp read
//! before); in the second, the exact count. The step limit is checked against the same
//! counts, so it trips at most one round late and on the same warp for every thread count.
//! When several CTAs fault in the first phase, the fault reported is the one whose warp comes
//! first in the turn order.
//!
//! Hazard tracking records accesses in one order into one tracker, so with
//! [`LaunchConfig::hazards`] on a launch runs on one thread (the schedule is the same).

use super::{Cta, Machine, MemAccess, RunSummary, WarpState};
use crate::error::ExecError;
use crate::program::*;
use std::sync::Mutex;

/// Where a warp's turn in a round's first phase ended.
pub(super) struct LocalTurn {
    pub state: WarpState,
    /// Quantum left when the warp stopped before an instruction that reaches outside its
    /// CTA (0: it did not).
    pub left: u32,
}

/// What one CTA did in a round's first phase.
pub(super) struct CtaRound {
    /// Warp-instructions it executed.
    pub steps: u64,
    pub progress: bool,
    /// (position in the round's turn order, quantum left) of each warp that stopped before
    /// an instruction that reaches outside the CTA.
    pub parked: Vec<(u32, u32)>,
    /// The first fault, with the position of its warp in the turn order; the CTA's later
    /// turns in the round do not run.
    pub fault: Option<(u32, ExecError)>,
}

/// The host threads of a launch: a machine per thread without the memory system, and the
/// pool they run on (none for one thread).
pub(super) struct Workers<'p> {
    pub(super) machines: Vec<Mutex<Machine<'p>>>,
    pub(super) pool: Option<rayon::ThreadPool>,
}

impl<'p> Machine<'p> {
    /// A machine for one host thread of the first phase: the launch's program, configuration
    /// and limits, its own counters, no memory system.
    fn worker(&self) -> Machine<'p> {
        Machine {
            program: self.program,
            kernel: self.kernel,
            cfg: self.cfg.clone(),
            mem: MemAccess::Detached,
            kernel_params: self.kernel_params.clone(),
            sm_count: self.sm_count,
            summary: RunSummary {
                per_instruction: vec![0; self.program.instrs.len()],
                ..RunSummary::default()
            },
            steps: 0,
            clock: self.clock,
            rng: 0,
            tracker: None,
            carried_discards: None,
            sm_phase: false,
            unsettled: false,
            cta_memory: self.cta_memory,
            max_resident: self.max_resident,
            reg_pool: Vec::new(),
            deadline: self.deadline.clone(),
            ahead: self.ahead.clone(),
            slice: self.slice,
        }
    }

    /// The host threads for this launch (`threads` of them, at least one), and the note for
    /// the run summary when the configuration asked for more than can be used.
    pub(super) fn workers(&mut self, resident: u64) -> Result<Workers<'p>, ExecError> {
        let asked = self.cfg.threads.max(1);
        let mut threads = u64::from(asked).min(resident.max(1)) as u32;
        if self.tracker.is_some() && threads > 1 {
            threads = 1;
            self.summary.threads_note =
                Some("ran on 1 thread: hazard tracking records every access in one order".into());
        }
        self.summary.threads = threads;
        let pool = if threads > 1 {
            Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads as usize)
                    .thread_name(|i| format!("ptxsim-cta-{i}"))
                    .build()
                    .map_err(|e| {
                        ExecError::Resource(format!("cannot start {threads} host threads: {e}"))
                    })?,
            )
        } else {
            None
        };
        // The SM-parallel phase needs a memory system that can lend SMs (one that keeps
        // data and records no trace); the same for every thread count.
        self.sm_phase = self.mem.sm_port().is_some();
        let mut machines = Vec::with_capacity(threads as usize);
        for _ in 0..threads {
            let mut w = self.worker();
            if self.sm_phase {
                if let Some(port) = self.mem.sm_port() {
                    w.mem = MemAccess::Port(Box::new(port));
                }
            }
            machines.push(Mutex::new(w));
        }
        Ok(Workers { machines, pool })
    }

    /// The first phase of a round: every CTA's turns (`plans[ci]`: (position in the turn
    /// order, warp) in turn order), on the workers. `self.steps` is the count at the round's
    /// start.
    pub(super) fn run_local_phase(
        &mut self,
        workers: &Workers<'p>,
        resident: &mut [Cta],
        plans: &[Vec<(u32, usize)>],
    ) -> Vec<CtaRound> {
        let base = self.steps;
        // Hazard tracking runs on one thread (see `workers`): its tracker goes with it.
        let tracker = self.tracker.take();
        match &workers.pool {
            Some(pool) if self.unsettled => {
                // The previous SM-parallel phase is settled while the CTAs run: the settle
                // touches only the memory system and the ports, this phase neither (it
                // stops before any instruction that reaches outside the CTA), so the
                // results are those of settling first.
                debug_assert!(tracker.is_none());
                self.unsettled = false;
                let mut ports: Vec<(usize, Box<memsys::SmPort>)> = Vec::new();
                for (i, m) in workers.machines.iter().enumerate() {
                    let mut w = lock(m);
                    if let MemAccess::Port(p) = std::mem::replace(&mut w.mem, MemAccess::Detached) {
                        ports.push((i, p));
                    }
                }
                let mem: &mut memsys::MemSystem = &mut self.mem;
                let rounds = pool.install(|| {
                    rayon::join(
                        || {
                            let mut lent: Vec<&mut memsys::SmPort> =
                                ports.iter_mut().map(|(_, p)| &mut **p).collect();
                            mem.settle(&mut lent);
                        },
                        || run_ctas_parallel(workers, resident, plans, base),
                    )
                    .1
                });
                for (i, p) in ports {
                    lock(&workers.machines[i]).mem = MemAccess::Port(p);
                }
                rounds
            }
            None => {
                // One thread: the pending settle first (the same results, see above).
                self.settle_ports(workers);
                let mut w = lock(&workers.machines[0]);
                w.tracker = tracker;
                let rounds = resident
                    .iter_mut()
                    .zip(plans)
                    .map(|(cta, plan)| w.run_cta_local(cta, plan, base))
                    .collect();
                self.tracker = w.tracker.take();
                rounds
            }
            Some(pool) => {
                debug_assert!(tracker.is_none());
                pool.install(|| run_ctas_parallel(workers, resident, plans, base))
            }
        }
    }

    /// One CTA's turns of the first phase.
    fn run_cta_local(&mut self, cta: &mut Cta, plan: &[(u32, usize)], base: u64) -> CtaRound {
        self.steps = base;
        let mut round = CtaRound {
            steps: 0,
            progress: false,
            parked: Vec::new(),
            fault: None,
        };
        for &(pos, wi) in plan {
            match self.run_warp_local(cta, wi) {
                Ok(turn) => {
                    round.progress |= turn.state == WarpState::Progress;
                    if turn.left > 0 {
                        round.parked.push((pos, turn.left));
                    }
                }
                Err(e) => {
                    round.fault = Some((pos, e));
                    break;
                }
            }
        }
        round.steps = self.steps - base;
        round
    }

    /// Adds the counters of the workers' machines into the launch's summary.
    pub(super) fn merge_counters(&mut self, workers: Workers<'p>) {
        for m in workers.machines {
            let w = m.into_inner().unwrap_or_else(|e| e.into_inner());
            for (total, n) in self
                .summary
                .per_instruction
                .iter_mut()
                .zip(&w.summary.per_instruction)
            {
                *total += n;
            }
            self.summary
                .merge_sectors(&w.summary.per_instruction_sectors);
            self.summary.thread_instructions += w.summary.thread_instructions;
            // The first phase runs no global access, copy or printf (`reaches_outside_cta`).
            debug_assert!(w.summary.printf.is_empty() && w.summary.stale_reads.is_empty());
            self.summary.cp_async_bytes += w.summary.cp_async_bytes;
            self.summary.unknowns.merge(w.summary.unknowns);
        }
    }

    /// Whether `inst`, executed by the `active` lanes of warp `wi`, may reach state outside
    /// the warp's CTA: the memory system or the launch's ordered outputs. Conservative: a
    /// `true` only moves the instruction to the serial phase. Lanes whose guard is false do
    /// nothing, so an instruction no lane executes stays local.
    pub(super) fn reaches_outside_cta(
        &self,
        cta: &Cta,
        wi: usize,
        inst: &Inst,
        active: u32,
    ) -> bool {
        match reach(self.program, inst) {
            Reach::Cta => false,
            Reach::Outside => self.executes(cta, wi, inst, active),
            // Generic addresses, and `ld.param` of a kernel parameter's generic address: by
            // where the executing lanes' addresses point.
            Reach::ByAddress(space, addr) => {
                let exec = self.executing(cta, wi, inst, active);
                if exec == 0 {
                    return false;
                }
                read_addrs!(self, cta, wi; a = addr);
                super::lanes(exec)
                    .any(|l| matches!(self.resolve(space, a[l]).0, Space::Global | Space::Local))
            }
        }
    }

    /// Whether an instruction that may reach outside the CTA (by its opcode and space alone)
    /// follows the one at `pc` in function `func` within [`GLOBAL_RUN_GAP`] instructions, along
    /// the fall-through and branch paths. A static property of the code, so it is worked out
    /// once per function and launch ([`outside_ahead_table`]), the first time it is asked.
    pub(super) fn outside_ahead(&self, func: u32, pc: Pc) -> bool {
        self.ahead[func as usize]
            .get_or_init(|| outside_ahead_table(self.program, func))
            .get(pc as usize)
            .copied()
            .unwrap_or(false)
    }
    /// The lanes of `active` whose guard lets them execute `inst`.
    fn executing(&self, cta: &Cta, wi: usize, inst: &Inst, active: u32) -> u32 {
        match inst.guard {
            Some(g) => active & Self::pred_mask(cta.warps[wi].frames.last().expect("frame"), g),
            None => active,
        }
    }

    fn executes(&self, cta: &Cta, wi: usize, inst: &Inst, active: u32) -> bool {
        self.executing(cta, wi, inst, active) != 0
    }
}

/// How far the serial phase looks ahead: a warp there goes on through CTA-local instructions
/// while one of the next this many (along fall-through and branch paths) may reach outside
/// the CTA, so that a short sequence such as a CAS loop (`atom.cas; setp; @p bra` back to it)
/// or a run of loads with address arithmetic between them stays together, as it did when a
/// warp's whole turn ran at once.
pub(super) const GLOBAL_RUN_GAP: usize = 8;

/// [`Machine::outside_ahead`] for every instruction of function `func`: `within[k][pc]`
/// (whether an instruction that may reach outside the CTA is among the `k` instructions from
/// `pc` on, along every path) by levels, `k` up to [`GLOBAL_RUN_GAP`], then each
/// instruction's successors looked up. Linear in the code's length (a walk of every path per
/// instruction, as this was, revisits the same instructions many times).
pub(super) fn outside_ahead_table(program: &Program, func: u32) -> Box<[bool]> {
    let code = &program.functions[func as usize].code;
    let n = code.len();
    let outside: Vec<bool> = code
        .iter()
        .map(|inst| !matches!(reach(program, inst), Reach::Cta))
        .collect();
    // Index `n` (and any target past the code) stands for "no instruction": false.
    let at =
        |w: &[bool], pc: Option<Pc>| pc.is_some_and(|p| w.get(p as usize).copied() == Some(true));
    let mut within = vec![false; n];
    for _ in 0..GLOBAL_RUN_GAP {
        within = (0..n)
            .map(|pc| {
                outside[pc]
                    || successors(&code[pc], pc as Pc)
                        .into_iter()
                        .any(|next| at(&within, next))
            })
            .collect();
    }
    (0..n)
        .map(|pc| {
            successors(&code[pc], pc as Pc)
                .into_iter()
                .any(|next| at(&within, next))
        })
        .collect()
}

/// Where an instruction's effects may go, by its opcode and operands: the operation table's
/// reach column (`program/ops.rs`).
#[inline(always)]
fn reach(program: &Program, inst: &Inst) -> Reach {
    inst.op.reach(program)
}

/// The first phase's CTAs on the pool's threads, each on the machine of the thread it runs on.
fn run_ctas_parallel(
    workers: &Workers<'_>,
    resident: &mut [Cta],
    plans: &[Vec<(u32, usize)>],
    base: u64,
) -> Vec<CtaRound> {
    use rayon::prelude::*;
    resident
        .par_iter_mut()
        .zip(plans)
        .map(|(cta, plan)| {
            let i = rayon::current_thread_index().unwrap_or(0);
            let mut w = lock(&workers.machines[i % workers.machines.len()]);
            w.run_cta_local(cta, plan, base)
        })
        .collect()
}

/// A worker's machine; a worker that panicked has already failed the launch.
pub(super) fn lock<'a, 'p>(m: &'a Mutex<Machine<'p>>) -> std::sync::MutexGuard<'a, Machine<'p>> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition `outside_ahead_table` computes by levels: a walk of every path.
    fn walk(program: &Program, code: &[Inst], pc: Pc, left: usize) -> bool {
        let Some(inst) = code.get(pc as usize) else {
            return false;
        };
        left > 0
            && (!matches!(reach(program, inst), Reach::Cta)
                || successors(inst, pc)
                    .into_iter()
                    .flatten()
                    .any(|next| walk(program, code, next, left - 1)))
    }

    #[test]
    fn the_outside_ahead_table_matches_a_walk_of_every_path() {
        let sources = [
            include_str!("../../benches/kernels/bench_kernels.sm80.ptx"),
            include_str!("../../../../examples/matmul_fp16.sm80.ptx"),
            include_str!("../../../../tests/corpus/nvcc/atomics.lineinfo.sm80.ptx"),
        ];
        let mut checked = 0;
        let mut ahead = 0;
        for src in sources {
            let module = ptx_syntax::parse(src).expect("parses");
            let s = crate::Session::new(&module, src, memsys::GpuConfig::a100()).expect("lowers");
            for (fi, f) in s.program.functions.iter().enumerate() {
                let table = outside_ahead_table(&s.program, fi as u32);
                assert_eq!(table.len(), f.code.len());
                for (pc, &got) in table.iter().enumerate() {
                    let want = successors(&f.code[pc], pc as Pc)
                        .into_iter()
                        .flatten()
                        .any(|next| walk(&s.program, &f.code, next, GLOBAL_RUN_GAP));
                    assert_eq!(got, want, "{} pc {pc}", f.name);
                    checked += 1;
                    ahead += usize::from(got);
                }
            }
        }
        // Both answers occur, in loops and straight-line code alike.
        assert!(
            checked > 500 && ahead > 100 && checked - ahead > 100,
            "{checked} {ahead}"
        );
    }
}
