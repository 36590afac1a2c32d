//! Each warp's issue clock: when, in SM cycles, its instructions issue. Nothing in a
//! kernel's results depends on it; memsys's write combiner reads a store's cycle to decide
//! whether it merges with a pending store to the same line (memsys `src/system/combine.rs`).
//!
//! - **Issue.** Every instruction a warp executes advances its clock by the SM's issue
//!   interval: the GPU's `warp_cycles_per_instruction` (dependent issue of one warp), or,
//!   when more warps share the SM than its schedulers issue for in that time, the warps on
//!   the SM divided by `issue_per_clk` (the schedulers are the limit). Set per round from
//!   the resident CTAs ([`Machine::set_issue_intervals`]).
//! - **Scoreboard.** A register written by a global load is ready at the load's issue cycle
//!   plus the latency of the level that served it (the GPU's `l1`/`l2` `latency_cycles`,
//!   `dram_latency_cycles`); an instruction that reads it earlier waits (its warp's clock
//!   moves to the ready cycle). An SM port (the SM-parallel phase) knows only L1's part: a
//!   load that misses L1 there is taken to come from DRAM, as most first reads of a kernel
//!   with flushed caches do.
//! - **Barriers.** A completed `bar.sync` releases its warps at the latest arrival's cycle.
//! - **CTAs.** A CTA starts at the cycle its SM's last finished CTA ended.
//!
//! The clocks follow the schedule, which does not depend on the thread count, so neither
//! do they.

use super::{Cta, Machine};
use memsys::Outcome;

/// The GPU figures the clocks use (copied from the memory system's configuration at launch:
/// workers of the parallel phases have no memory system to ask).
#[derive(Debug, Clone, Copy)]
pub(super) struct IssueTiming {
    /// Cycles between two instructions of one warp when nothing else limits it.
    pub cycles_per_instruction: u64,
    /// Warp instructions each SM issues per cycle.
    pub issue_per_clk: f64,
    pub l1_latency: u64,
    pub dram_latency: u64,
}

impl IssueTiming {
    pub(super) fn of(cfg: &memsys::GpuConfig) -> Self {
        Self {
            cycles_per_instruction: cfg.timing.warp_cycles_per_instruction.round().max(1.0) as u64,
            issue_per_clk: cfg.timing.issue_per_clk.max(1.0),
            l1_latency: u64::from(cfg.l1.latency_cycles),
            dram_latency: u64::from(cfg.dram_latency_cycles),
        }
    }

    /// Cycles between two instructions of a warp on an SM with `warps` resident warps.
    pub(super) fn interval(&self, warps: u64) -> u64 {
        let shared = (warps as f64 / self.issue_per_clk).ceil() as u64;
        self.cycles_per_instruction.max(shared)
    }

    /// Cycles until a load's data is ready: the serving level's latency when the memory
    /// system says it (`latency_cycles`), else (an SM port) L1's for an all-hit load and
    /// DRAM's for one that missed.
    pub(super) fn load_latency(&self, out: &Outcome) -> u64 {
        if out.latency_cycles > 0 {
            u64::from(out.latency_cycles)
        } else if out.l1_misses == 0 && out.l1_hits > 0 {
            self.l1_latency
        } else {
            self.dram_latency
        }
    }
}

impl Machine<'_> {
    /// Sets each resident CTA's issue interval from the warps resident on its SM.
    pub(super) fn set_issue_intervals(&mut self, resident: &mut [Cta]) {
        let mut warps = vec![0u64; self.sm_count as usize];
        for c in resident.iter() {
            warps[c.sm as usize] += c.warps.len() as u64;
        }
        for c in resident.iter_mut() {
            c.issue_interval = self.issue.interval(warps[c.sm as usize]);
        }
    }

    /// Notes the end cycle of a finished CTA on its SM (the next CTA there starts at it).
    pub(super) fn cta_finished(&mut self, cta: &Cta) {
        let end = cta.warps.iter().map(|w| w.clock.get()).max().unwrap_or(0);
        let sm = &mut self.sm_clock[cta.sm as usize];
        *sm = (*sm).max(end);
    }
}
