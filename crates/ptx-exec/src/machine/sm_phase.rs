//! The SM-parallel phase of a round: the warps that stopped before an instruction that
//! reaches outside their CTA run their weak global loads, stores and `cp.async` reads, in
//! parallel over SMs.
//!
//! SMs are partitioned over the host threads (`sm % threads`; any partition gives the same
//! results). Each thread's worker holds a memory-system port ([`memsys::SmPort`]) lent its
//! SMs' L1s and write-combining windows for the phase. In it, each SM's parked warps take
//! the rest of their turns in the round's turn order restricted to the SM: weak `ld`/`st`
//! (including generic ones that resolve to global memory) and `cp.async`'s global reads run
//! on the port, against the SM's L1 and a view of global memory that is the image at the
//! phase's start plus the SM's own stores of the phase (without the cache model, against
//! that view alone: [`memsys::SmPort::read`], [`memsys::SmPort::write`]); the CTA-local
//! instructions between them run too, under the serial phase's rule (`GLOBAL_RUN_GAP`). A
//! warp stops before anything whose result may depend on other SMs in the same round
//! ([`Machine::needs_serial_phase`]): atomics and reductions, strong (volatile, relaxed,
//! acquire, release, mmio) accesses, fences that invalidate L1, prefetches and range
//! policies, bulk copies and TMA, `printf` and `assert`. The rest of its turn runs in the
//! serial phase as before.
//!
//! After every SM is done (before anything else uses the memory system, possibly while the
//! next round's CTA-local phase runs: `rounds.rs`), [`memsys::MemSystem::settle`] applies
//! the phase's stores to the image and replays the L2 work the ports logged, in the round's
//! turn order (the position of each warp's turn, then program order), so the L2, its
//! random draws and every counter come out as one machine running the turns in that order
//! would leave them. Another SM's store of the same phase becomes visible at that point: a weak load racing with a weak
//! store of another CTA (no synchronization between them) may return either value in the
//! PTX memory model, and flags that CTAs spin on are strong accesses, which stay serial.
//!
//! Steps: each SM counts its own from the count after the CTA-local phase (so `%clock` and
//! the step limit read the same numbers for every partition); faults: each SM stops at its
//! first, and the one reported is the first in turn order. Stale reads are reported in
//! turn order.

use super::rounds::lock;
use super::schedule::Phase;
use super::{Cta, Machine, MemAccess, StaleRead, WarpState};
use crate::error::ExecError;
use crate::program::*;

/// What one thread's SMs did in an SM-parallel phase.
struct SmRound {
    steps: u64,
    progress: bool,
    /// (position in the turn order, quantum left) of each warp that stopped before an
    /// instruction that needs the serial phase.
    parked: Vec<(u32, u32)>,
    /// The first fault of each SM that faulted, with its warp's position.
    faults: Vec<(u32, ExecError)>,
    /// Stale reads, with the position of the warp that made them.
    stale: Vec<(u32, StaleRead)>,
}

impl<'p> Machine<'p> {
    /// Whether `inst`, an instruction that reaches outside its CTA, must run in the serial
    /// phase: all but weak global loads and stores and `cp.async` (the operation table's
    /// phase column, `program/ops.rs`).
    #[inline(always)]
    pub(super) fn needs_serial_phase(&self, inst: &Inst) -> bool {
        inst.op.needs_serial_phase()
    }

    /// The SM-parallel phase of a round (see the module docs). `left[pos]` is the quantum
    /// left to the warp at position `pos` of `order` when the CTA-local phase parked it; on
    /// return, what is left to it for the serial phase. Returns whether a warp progressed.
    pub(super) fn run_sm_phase(
        &mut self,
        workers: &super::rounds::Workers<'p>,
        resident: &mut [Cta],
        order: &[(usize, usize)],
        left: &mut [u32],
    ) -> Result<bool, ExecError> {
        if left.iter().all(|&l| l == 0) {
            return Ok(false);
        }
        // The previous phase's ports are settled before they are lent again.
        self.settle_ports(workers);
        let threads = workers.machines.len();
        let base = self.steps;
        // Each thread's CTAs and its turns: (position, index among its CTAs, warp, left).
        let mut plans: Vec<Vec<(u32, usize, usize, u32)>> = vec![Vec::new(); threads];
        let mut slot = vec![(0usize, 0usize); resident.len()];
        let mut counts = vec![0usize; threads];
        let mut sms: Vec<Vec<u32>> = vec![Vec::new(); threads];
        for (ci, cta) in resident.iter().enumerate() {
            let t = cta.sm as usize % threads;
            slot[ci] = (t, counts[t]);
            counts[t] += 1;
            if !sms[t].contains(&cta.sm) {
                sms[t].push(cta.sm);
            }
        }
        for (pos, &(ci, wi)) in order.iter().enumerate() {
            if left[pos] > 0 {
                let (t, i) = slot[ci];
                plans[t].push((pos as u32, i, wi, left[pos]));
                left[pos] = 0;
            }
        }
        let mut ctas: Vec<Vec<&mut Cta>> = (0..threads).map(|_| Vec::new()).collect();
        for (ci, cta) in resident.iter_mut().enumerate() {
            ctas[slot[ci].0].push(cta);
        }
        let tracker = self.tracker.take();
        let mut lent = Ok(());
        for (t, m) in workers.machines.iter().enumerate() {
            let mut w = lock(m);
            if let MemAccess::Port(port) = &mut w.mem {
                if lent.is_ok() {
                    lent = self.mem.lend(port, &sms[t]);
                }
            }
        }
        let rounds: Vec<SmRound> = if lent.is_err() {
            Vec::new()
        } else {
            match &workers.pool {
                None => {
                    let mut w = lock(&workers.machines[0]);
                    w.tracker = tracker;
                    let r = ctas
                        .into_iter()
                        .zip(&plans)
                        .map(|(mut c, plan)| w.run_sm_turns(&mut c, plan, base))
                        .collect();
                    self.tracker = w.tracker.take();
                    r
                }
                Some(pool) => {
                    use rayon::prelude::*;
                    debug_assert!(tracker.is_none());
                    pool.install(|| {
                        ctas.into_par_iter()
                            .zip(&plans)
                            .enumerate()
                            .map(|(t, (mut c, plan))| {
                                lock(&workers.machines[t]).run_sm_turns(&mut c, plan, base)
                            })
                            .collect()
                    })
                }
            }
        };
        // The phase is settled later (`settle_ports`): at the latest before the next use of
        // the memory system, and overlapping the next round's CTA-local phase when nothing
        // needs it sooner (`rounds.rs`). A failed lend or a fault settles at once.
        self.unsettled = true;
        if lent.is_err() || rounds.iter().any(|r| !r.faults.is_empty()) {
            self.settle_ports(workers);
        }
        lent.map_err(|e| ExecError::Resource(format!("SM-parallel phase: {e}")))?;
        let mut progress = false;
        let mut first_fault: Option<(u32, ExecError)> = None;
        let mut stale = Vec::new();
        let mut steps = 0;
        for r in rounds {
            steps += r.steps;
            progress |= r.progress;
            for (pos, l) in r.parked {
                left[pos as usize] = l;
            }
            for (pos, e) in r.faults {
                if first_fault.as_ref().is_none_or(|(p, _)| pos < *p) {
                    first_fault = Some((pos, e));
                }
            }
            stale.extend(r.stale);
        }
        self.steps += steps;
        self.summary.sm_phase_warp_instructions += steps;
        // Positions are distinct per warp and each warp's reads are in program order.
        stale.sort_by_key(|&(pos, _)| pos);
        self.summary
            .stale_reads
            .extend(stale.into_iter().map(|(_, s)| s));
        if let Some((_, e)) = first_fault {
            return Err(e);
        }
        Ok(progress)
    }

    /// Settles the SM-parallel phase the workers' ports hold, if one is pending: gives the
    /// lent SMs back, applies the stores and replays the L2 work in turn order
    /// ([`memsys::MemSystem::settle`]).
    pub(super) fn settle_ports(&mut self, workers: &super::rounds::Workers<'p>) {
        if !self.unsettled {
            return;
        }
        self.unsettled = false;
        let mut guards: Vec<_> = workers.machines.iter().map(lock).collect();
        let mut ports: Vec<&mut memsys::SmPort> = guards
            .iter_mut()
            .filter_map(|g| match &mut g.mem {
                MemAccess::Port(p) => Some(&mut **p),
                _ => None,
            })
            .collect();
        self.mem.settle(&mut ports);
    }

    /// One thread's turns of the SM-parallel phase: `plan` in turn order over `ctas` (the
    /// thread's CTAs), each SM counting its own steps from `base`.
    fn run_sm_turns(
        &mut self,
        ctas: &mut [&mut Cta],
        plan: &[(u32, usize, usize, u32)],
        base: u64,
    ) -> SmRound {
        let mut round = SmRound {
            steps: 0,
            progress: false,
            parked: Vec::new(),
            faults: Vec::new(),
            stale: Vec::new(),
        };
        // (SM, its steps so far, whether it faulted), for the SMs met so far.
        let mut sm_steps: Vec<(u32, u64, bool)> = Vec::new();
        for &(pos, ci, wi, budget) in plan {
            let cta = &mut *ctas[ci];
            let k = match sm_steps.iter().position(|s| s.0 == cta.sm) {
                Some(k) => k,
                None => {
                    sm_steps.push((cta.sm, 0, false));
                    sm_steps.len() - 1
                }
            };
            if sm_steps[k].2 {
                continue;
            }
            self.steps = base + sm_steps[k].1;
            if let MemAccess::Port(port) = &mut self.mem {
                port.begin_turn(pos);
            }
            let stale_before = self.summary.stale_reads.len();
            let result = self.run_warp(cta, wi, Phase::SmGlobal, budget);
            round.stale.extend(
                self.summary
                    .stale_reads
                    .drain(stale_before..)
                    .map(|s| (pos, s)),
            );
            let done = self.steps - base - sm_steps[k].1;
            sm_steps[k].1 += done;
            round.steps += done;
            match result {
                Ok((state, l)) => {
                    round.progress |= state == WarpState::Progress;
                    if l > 0 {
                        round.parked.push((pos, l));
                    }
                }
                Err(e) => {
                    sm_steps[k].2 = true;
                    round.faults.push((pos, e));
                }
            }
        }
        round
    }
}
