//! Scheduling: resident CTAs and their warps, the turn order (a seed permutes it), a warp's
//! turn of instructions (`run_warp`, with the step limit), and the reports of where every
//! warp stands when a launch deadlocks or faults (`deadlock`, `site`, `fault`).
//!
//! This is the seam for scheduling changes: `run_grid` decides which CTA runs when,
//! `run_round` splits a round into its phases (`rounds.rs`: CTA-local work in parallel over
//! CTAs, weak global accesses in parallel over SMs (`sm_phase.rs`), the rest serially), `run_warp` decides how long a warp runs; none of them knows any
//! instruction beyond asking `reaches_outside_cta` whether one leaves the CTA.

use super::{lanes, lanes_at, Cta, Frame, LaneAsync, Machine, Warp, WarpState, FULL};
use crate::error::{ExecError, FaultKind, FaultSite};
use std::collections::HashMap;
use std::sync::atomic::Ordering;

/// The phase of a round a warp's turn runs in (see `rounds.rs`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    /// In parallel over CTAs: up to the first instruction that reaches outside the CTA.
    CtaLocal,
    /// In parallel over SMs (`sm_phase.rs`): weak global loads and stores on the SM's
    /// port, and the CTA-local instructions between them (`GLOBAL_RUN_GAP`), up to the
    /// first instruction that needs the serial phase.
    SmGlobal,
    /// Serial, in turn order: the instructions that reach outside the CTA, and the CTA-local
    /// ones between them (`GLOBAL_RUN_GAP`).
    Global,
}

impl<'p> Machine<'p> {
    pub(super) fn run_grid(&mut self) -> Result<(), ExecError> {
        let [gx, gy, gz] = self.cfg.grid;
        let total = gx as u64 * gy as u64 * gz as u64;
        let threads = self.cfg.block.iter().product::<u32>();
        let warps_per_cta = threads.div_ceil(32);
        let max_resident = self.max_resident;
        let workers = self.workers(max_resident.min(total))?;
        // On several threads the rounds run on one of the pool's threads: each phase's
        // parallel work then starts and ends there, not by handing off from the launch thread
        // to the pool and back (two thread wake-ups per phase).
        let result = match &workers.pool {
            Some(pool) => pool
                .install(|| self.run_rounds(&workers, total, threads, warps_per_cta, max_resident)),
            None => self.run_rounds(&workers, total, threads, warps_per_cta, max_resident),
        };
        // Whatever ended the launch, its last SM-parallel phase reaches the memory system.
        self.settle_ports(&workers);
        result?;
        if let Some(p) = &self.cfg.progress {
            p.store(self.steps, Ordering::Relaxed);
        }
        self.merge_counters(workers);
        Ok(())
    }

    /// The rounds of a launch, until every CTA has finished (`run_grid`).
    fn run_rounds(
        &mut self,
        workers: &super::rounds::Workers<'p>,
        total: u64,
        threads: u32,
        warps_per_cta: u32,
        max_resident: u64,
    ) -> Result<(), ExecError> {
        let [gx, gy, _] = self.cfg.grid;
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
            let order = self.turn_order(&resident);
            let any_progress = self.run_round(workers, &mut resident, &order)?;
            // Finished CTAs leave; their pending copies land (harmlessly) with them, and their
            // pending bulk stores write global memory (after the round's SM-parallel phase).
            for c in resident.iter_mut() {
                if c.warps.iter().all(|w| w.frames.is_empty()) {
                    if !c.bulk.stores.is_empty() {
                        self.settle_ports(workers);
                    }
                    self.retire_bulk(c)?;
                }
            }
            let before = resident.len();
            for c in resident.iter_mut() {
                if c.warps.iter().all(|w| w.frames.is_empty()) {
                    let spare = c
                        .warps
                        .iter_mut()
                        .map(|w| std::mem::take(&mut w.spare_regs));
                    self.reg_pool.extend(spare.filter(|r| !r.is_empty()));
                }
            }
            resident.retain(|c| !c.warps.iter().all(|w| w.frames.is_empty()));
            if !any_progress && resident.len() == before {
                let cta = &resident[0];
                return Err(self.deadlock(cta));
            }
        }
        Ok(())
    }

    /// One round: every resident warp's turn in `order`, in the phases of `rounds.rs`.
    /// Returns whether any warp made progress.
    fn run_round(
        &mut self,
        workers: &super::rounds::Workers<'p>,
        resident: &mut [Cta],
        order: &[(usize, usize)],
    ) -> Result<bool, ExecError> {
        let mut plans: Vec<Vec<(u32, usize)>> = vec![Vec::new(); resident.len()];
        for (pos, &(ci, wi)) in order.iter().enumerate() {
            plans[ci].push((pos as u32, wi));
        }
        let ctas = self.run_local_phase(workers, resident, &plans);
        // The round's L2 work starts here (the previous round's settle is done, or is now):
        // reads of this round join only this round's pending misses (memsys's L2 request
        // coalescer, `MemSystem::begin_round`).
        self.settle_ports(workers);
        self.mem.begin_round();
        let mut any_progress = false;
        let mut first_fault: Option<(u32, ExecError)> = None;
        let mut left = vec![0u32; order.len()];
        for cta in ctas {
            self.steps += cta.steps;
            any_progress |= cta.progress;
            for (pos, l) in cta.parked {
                left[pos as usize] = l;
            }
            if let Some((pos, e)) = cta.fault {
                if first_fault.as_ref().is_none_or(|(p, _)| pos < *p) {
                    first_fault = Some((pos, e));
                }
            }
        }
        if let Some((_, e)) = first_fault {
            return Err(e);
        }
        if self.sm_phase {
            any_progress |= self.run_sm_phase(workers, resident, order, &mut left)?;
        }
        let parallel_end = self.steps;
        if left.iter().any(|&l| l > 0) {
            // The serial phase runs on the memory system: the SM-parallel phase first.
            self.settle_ports(workers);
        }
        for (pos, &(ci, wi)) in order.iter().enumerate() {
            if left[pos] > 0 {
                let (state, _) = self.run_warp(&mut resident[ci], wi, Phase::Global, left[pos])?;
                any_progress |= state == WarpState::Progress;
            }
        }
        self.summary.serial_warp_instructions += self.steps - parallel_end;
        Ok(any_progress)
    }

    pub(super) fn turn_order(&mut self, ctas: &[Cta]) -> Vec<(usize, usize)> {
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

    pub(super) fn next_random(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(super) fn new_cta(
        &mut self,
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
            let map = self.slice.map(|s| &s.registers);
            let mut frame = Frame::new_with(k, valid, self.recycled_regs(), map);
            frame.func = self.kernel;
            let local_bytes = self.cta_memory.local_bytes_per_thread as u32;
            ws.push(Warp {
                index: w,
                exited: 0,
                waiting: 0,
                frames: vec![frame],
                local: crate::limits::zeroed(u64::from(local_bytes) * 32, "local memory")?,
                local_bytes,
                // Built, not cloned: cloning a LaneAsync clones its four empty collections.
                asyncs: std::iter::repeat_with(LaneAsync::default)
                    .take(32)
                    .collect(),
                carry: 0,
                spare_regs: Vec::new(),
            });
        }
        Ok(Cta {
            id,
            sm: (linear % self.sm_count as u64) as u32,
            shared: crate::limits::zeroed(self.cta_memory.shared_bytes, "shared memory")?,
            warps: ws,
            barriers: Default::default(),
            mbarriers: Default::default(),
            copies: Default::default(),
            async_arrives: Vec::new(),
            threads,
            exited_threads: 0,
            linear,
            barrier_gen: 0,
            copy_words: HashMap::new(),
            mbar_seen: Default::default(),
            bulk: Default::default(),
            shared_unknown: Vec::new(),
            private_unknown: false,
        })
    }

    /// A finished warp's register file for a new warp (`zero_for_reuse` zeroed it).
    fn recycled_regs(&mut self) -> Option<Vec<u64>> {
        self.reg_pool.pop()
    }

    /// Zeroes a finished warp's register file as a fresh one is, for [`Self::recycled_regs`]
    /// (in counters-only mode it holds only the slice's entries, `Slice::registers`).
    pub(super) fn zero_for_reuse(&self, regs: &mut [u64]) {
        regs.fill(0);
    }

    /// Runs warp `wi` of `cta` for its turn in the first phase of a round (`rounds.rs`): up
    /// to a quantum, stopping before an instruction that reaches outside the CTA.
    pub(super) fn run_warp_local(
        &mut self,
        cta: &mut Cta,
        wi: usize,
    ) -> Result<super::rounds::LocalTurn, ExecError> {
        let (state, left) = self.run_warp(cta, wi, Phase::CtaLocal, self.cfg.quantum)?;
        Ok(super::rounds::LocalTurn { state, left })
    }

    /// Runs warp `wi` of `cta` for up to `budget` iterations in `phase`. Returns how the turn
    /// ended and, in the first phase, the budget left when the warp stopped before an
    /// instruction that reaches outside its CTA (0 otherwise). In the global phase the warp
    /// runs such instructions, and CTA-local ones while another such instruction follows
    /// within `GLOBAL_RUN_GAP`; it stops before any other work.
    pub(super) fn run_warp(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        phase: Phase,
        budget: u32,
    ) -> Result<(WarpState, u32), ExecError> {
        let mut progressed = false;
        let ended = |progressed: bool, otherwise: WarpState| {
            if progressed {
                WarpState::Progress
            } else {
                otherwise
            }
        };
        let mut used = 0;
        // The last instruction whose registers were prefetched.
        let mut prefetched: crate::program::Pc = 0;
        while used < budget {
            let warp = &mut cta.warps[wi];
            let Some(frame) = warp.frames.last_mut() else {
                return Ok((ended(progressed, WarpState::Done), 0));
            };
            let alive = frame.mask & !frame.done & !warp.exited;
            let runnable = alive & !warp.waiting & !frame.sync_wait;
            if phase != Phase::CtaLocal && runnable == 0 {
                // Returning from a call and releasing parked lanes are CTA-local work.
                return Ok((ended(progressed, WarpState::Blocked), 0));
            }
            if alive == 0 {
                self.pop_frame(cta, wi);
                progressed = true;
                continue;
            }
            if runnable == 0 {
                if frame.sync_wait != 0 && self.release_sync_waits(cta, wi)? {
                    progressed = true;
                    continue;
                }
                return Ok((ended(progressed, WarpState::Blocked), 0));
            }
            if phase == Phase::CtaLocal && self.slicing() {
                if let Some(pc) = frame.uniform {
                    if warp.waiting == 0 && frame.sync_wait == 0 {
                        if let Some(n) = self.pass_skipped_run(cta, wi, pc, runnable, budget - used)
                        {
                            used += n;
                            progressed = true;
                            continue;
                        }
                    }
                }
            }
            let warp = &mut cta.warps[wi];
            let frame = warp.frames.last_mut().expect("checked above");
            let (pc, active) = match frame.uniform {
                Some(pc) if warp.waiting == 0 && frame.sync_wait == 0 => (pc, runnable),
                _ => self.lowest_rank_lanes(frame, runnable),
            };
            let func = frame.func;
            let program = self.program;
            let function = &program.functions[func as usize];
            // The registers of the instructions `PREFETCH_AHEAD` ahead (at a turn's start, or
            // after a jump past what was prefetched, of every one up to there): a warp's
            // registers are rarely still in the host's caches when its next turn comes.
            let end = pc
                + if self.slicing() {
                    PREFETCH_AHEAD_SLICED
                } else {
                    PREFETCH_AHEAD
                };
            let first = if used == 0 || pc > prefetched + 1 {
                pc
            } else {
                (prefetched + 1).min(end)
            };
            prefetched = end;
            // Counters-only mode: the instructions that run (skipped ones read no register).
            let slot_table = match self.slice {
                Some(s) => &s.slot_table,
                None => &function.slot_table,
            };
            for ahead in first..=end {
                prefetch_slots(&frame.regs, slot_table.of(ahead));
            }
            let inst = &function.code[pc as usize];
            let outside = self.reaches_outside_cta(cta, wi, inst, active);
            match phase {
                Phase::CtaLocal if outside => {
                    return Ok((ended(progressed, WarpState::Blocked), budget - used));
                }
                Phase::SmGlobal if outside && self.needs_serial_phase(inst) => {
                    return Ok((ended(progressed, WarpState::Blocked), budget - used));
                }
                Phase::Global | Phase::SmGlobal if !outside && !self.outside_ahead(func, pc) => {
                    return Ok((ended(progressed, WarpState::Blocked), 0));
                }
                _ => {}
            }
            self.steps += 1;
            if self.deadline.passed(self.steps) {
                let id = inst.id;
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
                let id = inst.id;
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
            used += 1;
        }
        Ok((ended(progressed, WarpState::Blocked), 0))
    }

    /// The PC of the `runnable` lanes of `frame` at the lowest scheduling rank (see
    /// `schedule_ranks`), and those of them at it: who runs next when the lanes diverged.
    fn lowest_rank_lanes(&self, frame: &Frame, runnable: u32) -> (crate::program::Pc, u32) {
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

    /// Counters-only mode: passes the run of instructions the slice skips that starts at
    /// `pc`, where every `active` lane of the warp's frame is (at most `budget` of them, and
    /// only more than one: a single one takes `step`'s path). Each is counted as `step`
    /// counts it, and the lanes move past the run; no instruction in it runs, branches,
    /// waits or leaves the CTA (they are pure), so this is `step` over each in turn. Returns
    /// how many it passed, or `None` when there is no such run (or the step limit falls in
    /// it, which `step`'s path reports at its instruction).
    fn pass_skipped_run(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        pc: crate::program::Pc,
        active: u32,
        budget: u32,
    ) -> Option<u32> {
        let slice = self.slice?;
        let n = slice.skip_run.get(pc as usize).copied()?.min(budget);
        if n < 2 || self.steps + u64::from(n) > self.cfg.max_steps {
            return None;
        }
        let frame = cta.warps[wi].frames.last_mut()?;
        let program = self.program;
        for inst in &program.functions[frame.func as usize].code[pc as usize..(pc + n) as usize] {
            self.count(frame, inst, active);
        }
        Self::set_pc(frame, active, pc + n);
        frame.uniform = Some(pc + n);
        // The time limit is checked at the next instruction `step`'s path runs.
        self.steps += u64::from(n);
        Some(n)
    }

    pub(super) fn thread_of(&self, _cta: &Cta, warp: u32, lane: u32) -> [u32; 3] {
        let t = warp * 32 + lane;
        let [bx, by, _] = self.cfg.block;
        [t % bx, (t / bx) % by, t / (bx * by)]
    }

    pub(super) fn site(&self, cta: &Cta, warp: u32, lane: u32, id: u32) -> Box<FaultSite> {
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

    pub(super) fn fault(
        &self,
        cta: &Cta,
        warp: u32,
        lane: u32,
        id: u32,
        kind: FaultKind,
    ) -> ExecError {
        ExecError::Fault {
            site: self.site(cta, warp, lane, id),
            kind,
        }
    }

    /// Where the CTA's warps are (for a step-limit fault, which is usually a spin loop that
    /// never ends): "warps 0-7 at PTX line 5214, warp 8 exited, ...".
    pub(super) fn warp_positions(&self, cta: &Cta) -> String {
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

    pub(super) fn deadlock(&self, cta: &Cta) -> ExecError {
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
}

/// How many instructions ahead (along the fall-through path) a warp prefetches registers.
const PREFETCH_AHEAD: u32 = 8;
/// The same in counters-only mode, where the skipped instructions read no register: the
/// instructions that run are fewer per turn and come faster, so the look-ahead is longer.
const PREFETCH_AHEAD_SLICED: u32 = 16;

/// Asks the host to bring the registers `slots` of a frame (`regs`: 32 values per slot)
/// into its caches.
#[inline(always)]
fn prefetch_slots(regs: &[u64], slots: &[crate::program::Slot]) {
    for &s in slots {
        let at = s as usize * 32;
        if let Some(slot) = regs.get(at..at + 32) {
            for lane in [0, 8, 16, 24, 31] {
                prefetch(&slot[lane]);
            }
        }
    }
}

/// Software prefetch of the host cache line holding `p`.
#[inline(always)]
fn prefetch(p: &u64) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` is a hint: it never faults and never changes memory or registers
    // (and `p` is a valid reference anyway), and SSE is part of the x86_64 baseline, so the
    // intrinsic's target feature is always present.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            (p as *const u64).cast::<i8>(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
