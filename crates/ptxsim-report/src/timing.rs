//! The kernel-time estimate (`gpu__time_duration.sum`): what the run did — its launch shape,
//! instruction mix and memory counters ([`KernelWork`]) — divided by the GPU's rates
//! ([`memsys::TimingConfig`]), resource by resource, then combined. docs/timing.md describes
//! the model, its parameters' sources and its accuracy on the H100.
//!
//! The estimate is a function of [`KernelWork`] alone, so it can be checked on work measured
//! elsewhere (the H100's own counters) as well as on what the interpreter counted.

use memsys::{Counters, OccupancyConfig, TimingConfig};
use ptx_exec::residency::{self, CtaNeeds};
use ptx_exec::{Limit, Program, RunSummary};
use serde::{Deserialize, Serialize};

/// Everything the estimate reads about one launch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct KernelWork {
    /// CTAs in the grid.
    pub ctas: u64,
    pub threads_per_cta: u32,
    /// Static plus dynamic shared memory of one CTA.
    pub shared_bytes_per_cta: u64,
    /// Registers per thread of the launch (0: unknown, no register limit); with the two
    /// above it decides the CTAs resident per SM (`ptx_exec::residency`, as the interpreter).
    #[serde(default)]
    pub registers_per_thread: u32,
    pub warp_instructions: u64,
    /// Dense tensor-core work in FP16-equivalent FLOP (TF32 counts twice, FP64 sixteen times,
    /// 8-bit types half) of warp-level `mma`/`wmma`...
    pub mma_flops: u64,
    /// ...and of warpgroup `wgmma`.
    pub wgmma_flops: u64,
    /// Bytes shared-memory instructions moved: loads, stores, atomics, `ldmatrix`/`stmatrix`,
    /// and the shared-memory writes of `cp.async` and bulk copies.
    pub shared_bytes: u64,
    /// L1 data-array sectors of global accesses L1 caches: sectors looked up in L1 and
    /// sectors filled into L1 (an L1-bypassing `.cg` access moves none).
    pub l1_sectors: u64,
    /// L2 sectors looked up by reads and writes (prefetch-size fills are DRAM traffic).
    pub l2_sectors: u64,
    /// L2 sectors stores wrote to lines L2 did not hold (each allocates a line): the store
    /// stream a persisting set-aside slows.
    pub l2_write_miss_sectors: u64,
    pub sector_bytes: u64,
    pub dram_read_bytes: u64,
    pub dram_write_bytes: u64,
    /// The persisting L2 set-aside in force (the launch's `--persisting-l2`), bytes.
    pub setaside_bytes: u64,
    pub l2_size_bytes: u64,
    /// Warp executions of loads whose data a warp waits for: `ld` and `atom` of global, local
    /// or generic memory (stores, `red`, `cp.async` and prefetches do not stall the warp).
    pub load_warp_instructions: u64,
    /// Fractions of read sectors that hit in L1 and in L2 (the loads' average latency).
    pub l1_read_hit_fraction: f64,
    pub l2_read_hit_fraction: f64,
}

/// Load-to-use latencies of the levels, SM cycles (memsys `GpuConfig`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Latencies {
    pub l1: u32,
    pub l2: u32,
    pub dram: u32,
}

impl Latencies {
    pub fn of(c: &memsys::GpuConfig) -> Self {
        Latencies {
            l1: c.l1.latency_cycles,
            l2: c.l2.latency_cycles,
            dram: c.dram_latency_cycles,
        }
    }
}

/// A resource the estimate bounds the time by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resource {
    DramReads,
    DramWrites,
    L2,
    L1Shared,
    Issue,
    TensorCores,
    Latency,
}

impl Resource {
    pub fn label(self) -> &'static str {
        match self {
            Resource::DramReads => "DRAM reads",
            Resource::DramWrites => "DRAM writes",
            Resource::L2 => "L2",
            Resource::L1Shared => "L1/shared memory",
            Resource::Issue => "instruction issue",
            Resource::TensorCores => "tensor cores",
            Resource::Latency => "latency/occupancy",
        }
    }
}

/// One resource's time: how long the run's work on it takes at its peak rate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Term {
    pub resource: Resource,
    pub ns: f64,
}

/// The estimate and what it is made of.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimeEstimate {
    /// Estimated `gpu__time_duration.sum`, ns.
    pub ns: f64,
    pub launch_overhead_ns: f64,
    /// The resource with the longest time.
    pub bound: Resource,
    /// `bound`'s time over the next resource's (how clearly it bounds the kernel).
    pub margin: f64,
    /// Every resource's time, longest first. DRAM reads and writes share the bus: their
    /// terms add up to the DRAM time the estimate uses.
    pub terms: Vec<Term>,
    /// CTAs the busiest SM runs, CTAs resident at once per SM (`ptx_exec::residency`, the
    /// function the interpreter keeps CTAs resident by), the limits that bind it, and the
    /// waves that makes.
    pub ctas_per_sm: u64,
    pub resident_ctas_per_sm: u64,
    #[serde(default)]
    pub limited_by: Vec<Limit>,
    pub waves: u64,
    pub work: KernelWork,
}

/// How many resources overlap: the estimate combines the terms as their `p`-norm, so the
/// bounding resource dominates and a near-bounding one adds a little (4: docs/timing.md).
pub const OVERLAP_NORM: f64 = 4.0;

/// The GPU a time estimate is for: its rates, residency limits, SMs and load latencies.
#[derive(Debug, Clone, Copy)]
pub struct Gpu<'a> {
    pub timing: &'a TimingConfig,
    pub occupancy: &'a OccupancyConfig,
    /// Shared memory one CTA may use at most (`GpuConfig::shared_bytes_per_block`).
    pub shared_bytes_per_block: u64,
    pub sm_count: u32,
    pub latencies: Latencies,
}

impl<'a> Gpu<'a> {
    pub fn of(c: &'a memsys::GpuConfig) -> Self {
        Gpu {
            timing: &c.timing,
            occupancy: &c.occupancy,
            shared_bytes_per_block: c.shared_bytes_per_block,
            sm_count: c.sm_count,
            latencies: Latencies::of(c),
        }
    }
}

/// The time estimate of `work` on `gpu`.
pub fn estimate(work: &KernelWork, gpu: Gpu<'_>) -> TimeEstimate {
    let (t, sm_count, lat) = (gpu.timing, gpu.sm_count, gpu.latencies);
    let clk_per_ns = t.sm_clock_mhz / 1000.0;
    let sms = u64::from(sm_count.max(1));
    let ctas = work.ctas.max(1);
    let warps_per_cta = u64::from(work.threads_per_cta.max(1).div_ceil(32));
    // CTAs resident per SM: the interpreter's function (registers counted when known).
    let occupancy = residency::ctas_per_sm(
        gpu.occupancy,
        gpu.shared_bytes_per_block,
        CtaNeeds {
            threads: work.threads_per_cta.max(1),
            registers_per_thread: work.registers_per_thread,
            shared_bytes: work.shared_bytes_per_cta,
        },
    );
    let resident = u64::from(occupancy.ctas_per_sm.max(1));
    let ctas_per_sm = ctas.div_ceil(sms);
    let waves = ctas_per_sm.div_ceil(resident);
    // The busiest SM's share of per-SM work.
    let share = ctas_per_sm as f64 / ctas as f64;
    let active_sms = ctas.min(sms) as f64;
    let per_sm = |amount: u64, per_clk: f64| amount as f64 * share / per_clk / clk_per_ns;

    let issue = per_sm(work.warp_instructions, t.issue_per_clk);
    let l1 = per_sm(
        work.shared_bytes + work.l1_sectors * work.sector_bytes,
        t.l1_bytes_per_clk,
    );
    let tensor = per_sm(work.mma_flops, t.mma_flops_per_clk)
        + per_sm(work.wgmma_flops, t.wgmma_flops_per_clk);
    // L2 slices serve the SMs that run: each SM's port carries its share of the bandwidth.
    let l2_rate = t.l2_bytes_per_clk * clk_per_ns * active_sms / sms as f64;
    let l2 = (work.l2_sectors * work.sector_bytes) as f64 / l2_rate;
    // DRAM: reads and writes share the bus. A persisting set-aside slows store streams that
    // allocate in L2 (the write passes of bandwidth_setaside.csv), and the reads interleaved
    // with them (at most as many bytes) by the same factor; write-backs of lines dirtied
    // before the kernel, under a pure read stream, are not slowed (its read passes).
    let write_bw = t.dram_peak_gb_s * t.dram_write_efficiency;
    let read = work.dram_read_bytes as f64 / (t.dram_peak_gb_s * t.dram_read_efficiency);
    let write0 = work.dram_write_bytes as f64 / write_bw;
    let fraction = if work.l2_size_bytes > 0 {
        work.setaside_bytes as f64 / work.l2_size_bytes as f64
    } else {
        0.0
    };
    let factor = t.setaside_write_factor(fraction);
    let stores = (work.l2_write_miss_sectors * work.sector_bytes) as f64 / write_bw;
    let write = write0 + (factor - 1.0) * (stores + read.min(stores));
    // One warp's instructions back to back, each load waiting for its data (at the average
    // latency of where the kernel's reads were served), per wave of CTAs.
    let total_warps = (ctas * warps_per_cta) as f64;
    let per_warp = work.warp_instructions as f64 / total_warps;
    let loads_per_warp = work.load_warp_instructions as f64 / total_warps;
    let (h1, h2) = (
        work.l1_read_hit_fraction.clamp(0.0, 1.0),
        work.l2_read_hit_fraction.clamp(0.0, 1.0),
    );
    let load_latency = h1 * f64::from(lat.l1)
        + (1.0 - h1) * (h2 * f64::from(lat.l2) + (1.0 - h2) * f64::from(lat.dram));
    let chain_cycles = per_warp * t.warp_cycles_per_instruction + loads_per_warp * load_latency;
    let latency = waves as f64 * chain_cycles / clk_per_ns;

    let mut terms = vec![
        Term {
            resource: Resource::DramReads,
            ns: read,
        },
        Term {
            resource: Resource::DramWrites,
            ns: write,
        },
        Term {
            resource: Resource::L2,
            ns: l2,
        },
        Term {
            resource: Resource::L1Shared,
            ns: l1,
        },
        Term {
            resource: Resource::Issue,
            ns: issue,
        },
        Term {
            resource: Resource::TensorCores,
            ns: tensor,
        },
        Term {
            resource: Resource::Latency,
            ns: latency,
        },
    ];
    // Combine: DRAM reads and writes as one bus.
    let dram = read + write;
    let combined = [dram, l2, l1, issue, tensor, latency];
    let body = combined
        .iter()
        .map(|x| x.powf(OVERLAP_NORM))
        .sum::<f64>()
        .powf(1.0 / OVERLAP_NORM);
    let mut ranked: Vec<(Resource, f64)> = vec![
        (
            if write > read {
                Resource::DramWrites
            } else {
                Resource::DramReads
            },
            dram,
        ),
        (Resource::L2, l2),
        (Resource::L1Shared, l1),
        (Resource::Issue, issue),
        (Resource::TensorCores, tensor),
        (Resource::Latency, latency),
    ];
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    let margin = if ranked[1].1 > 0.0 {
        ranked[0].1 / ranked[1].1
    } else {
        f64::INFINITY
    };
    terms.sort_by(|a, b| b.ns.total_cmp(&a.ns));
    TimeEstimate {
        ns: t.launch_overhead_ns + if body.is_finite() { body } else { 0.0 },
        launch_overhead_ns: t.launch_overhead_ns,
        bound: ranked[0].0,
        margin: if margin.is_finite() { margin } else { 0.0 },
        terms,
        ctas_per_sm,
        resident_ctas_per_sm: resident,
        limited_by: occupancy.limited_by,
        waves,
        work: *work,
    }
}

/// What an instruction moves, read from its PTX text.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct InstrCost {
    /// FP16-equivalent FLOP per warp execution (mma/wmma) or per warpgroup (wgmma).
    mma_flops: u64,
    wgmma_flops: u64,
    /// A load the warp waits for (ld/atom of global, local or generic memory).
    waits: bool,
    /// Shared-memory bytes per thread execution (ld/st/atom/red .shared).
    shared_per_thread: u64,
    /// Shared-memory bytes per warp execution (ldmatrix/stmatrix).
    shared_per_warp: u64,
}

/// Bytes of a PTX scalar type suffix (`b16` → 2).
fn type_bytes(tok: &str) -> Option<u64> {
    let bits: u64 = match tok {
        "pred" => return None,
        _ if tok.len() >= 2 && matches!(&tok[..1], "b" | "s" | "u" | "f") => {
            tok[1..].parse().ok()?
        }
        _ if tok.starts_with("bf16") || tok.starts_with("e4m3") || tok.starts_with("e5m2") => {
            return Some(if tok.starts_with("bf16x2") {
                4
            } else if tok.starts_with("bf16") {
                2
            } else {
                1
            })
        }
        _ => return None,
    };
    Some(bits / 8)
}

/// `mXnYkZ` of an MMA shape.
fn mma_shape(tok: &str) -> Option<(u64, u64, u64)> {
    let rest = tok.strip_prefix('m')?;
    let (m, rest) = rest.split_once('n')?;
    let (n, k) = rest.split_once('k')?;
    Some((m.parse().ok()?, n.parse().ok()?, k.parse().ok()?))
}

/// Cost weight of an MMA's input type relative to FP16 (the per-clock rates are FP16's).
fn mma_weight(words: &[&str]) -> f64 {
    if words.contains(&"f64") {
        16.0
    } else if words.contains(&"tf32") {
        2.0
    } else if words
        .iter()
        .any(|w| matches!(*w, "s8" | "u8" | "e4m3" | "e5m2" | "s4" | "u4" | "b1"))
    {
        0.5
    } else {
        1.0
    }
}

fn instr_cost(text: &str) -> InstrCost {
    let text = text.trim_start();
    // Skip a guard predicate (`@%p1 ld...`).
    let text = match text.strip_prefix('@') {
        Some(rest) => rest
            .split_once(char::is_whitespace)
            .map_or("", |x| x.1)
            .trim_start(),
        None => text,
    };
    let opcode = text.split_whitespace().next().unwrap_or("");
    let words: Vec<&str> = opcode.split('.').collect();
    let op = words[0];
    let mut cost = InstrCost::default();
    match op {
        "mma" | "wmma" if words.contains(&"mma") || op == "mma" => {
            if let Some((m, n, k)) = words.iter().find_map(|w| mma_shape(w)) {
                cost.mma_flops = (2.0 * (m * n * k) as f64 * mma_weight(&words)) as u64;
            }
        }
        "wgmma" if words.contains(&"mma_async") => {
            if let Some((m, n, k)) = words.iter().find_map(|w| mma_shape(w)) {
                cost.wgmma_flops = (2.0 * (m * n * k) as f64 * mma_weight(&words)) as u64;
            }
        }
        "ldmatrix" | "stmatrix" => {
            let x = words
                .iter()
                .find_map(|w| w.strip_prefix('x').and_then(|n| n.parse::<u64>().ok()))
                .unwrap_or(1);
            // Each 8x8 matrix of 16-bit elements is 128 bytes.
            cost.shared_per_warp = 128 * x;
        }
        "ld" | "atom"
            if !words
                .iter()
                .any(|w| matches!(*w, "shared" | "param" | "const")) =>
        {
            cost.waits = true;
        }
        "ld" | "st" | "atom" | "red" if words.contains(&"shared") => {
            let vec = words
                .iter()
                .find_map(|w| w.strip_prefix('v').and_then(|n| n.parse::<u64>().ok()))
                .unwrap_or(1);
            let elem = words.iter().rev().find_map(|w| type_bytes(w)).unwrap_or(4);
            cost.shared_per_thread = vec * elem;
        }
        _ => {}
    }
    cost
}

/// The work of a run: its instruction mix from `program` and `summary`, its memory traffic
/// from `counters` (summed over SMs). The launch shape, sector size and set-aside come from
/// the caller ([`crate::VariantReport::estimate_time`]).
pub fn work_of(program: &Program, summary: &RunSummary, counters: &Counters) -> KernelWork {
    let mut w = KernelWork {
        warp_instructions: summary.warp_instructions,
        shared_bytes: summary.cp_async_bytes,
        ..KernelWork::default()
    };
    for (id, info) in program.instrs.iter().enumerate() {
        let threads = summary.per_instruction.get(id).copied().unwrap_or(0);
        if threads == 0 {
            continue;
        }
        let c = instr_cost(&info.text);
        let warps = threads.div_ceil(32);
        w.mma_flops += c.mma_flops * warps;
        w.wgmma_flops += c.wgmma_flops * threads.div_ceil(128);
        w.shared_bytes += c.shared_per_thread * threads + c.shared_per_warp * warps;
        if c.waits {
            w.load_warp_instructions += warps;
        }
    }
    let l1 = &counters.l1;
    w.l1_sectors = l1.read_sectors + l1.write_sectors + l1.sector_fills;
    let l2 = &counters.l2;
    w.l2_sectors = l2.read_sectors + l2.write_sectors;
    w.l2_write_miss_sectors = l2.write_misses;
    w.dram_read_bytes = counters.dram.bytes_read;
    w.dram_write_bytes = counters.dram.bytes_written;
    let fraction = |hits: u64, n: u64| if n > 0 { hits as f64 / n as f64 } else { 0.0 };
    w.l1_read_hit_fraction = fraction(l1.read_hits, l1.read_sectors);
    w.l2_read_hit_fraction = fraction(l2.read_hits, l2.read_sectors);
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instruction_costs_from_text() {
        let c = instr_cost(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1}, {%r1}, {%r2}, {%f2};",
        );
        assert_eq!(c.mma_flops, 2 * 16 * 8 * 16);
        let c = instr_cost("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f1};");
        assert_eq!(c.mma_flops, 2 * 2 * 16 * 8 * 8);
        let c = instr_cost("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {..};");
        assert_eq!(c.wgmma_flops, 2 * 64 * 128 * 16);
        let c = instr_cost("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r1}, [%r2];");
        assert_eq!(c.shared_per_warp, 512);
        let c = instr_cost("@%p3 ld.shared.v2.b32 {%r1, %r2}, [%r3];");
        assert_eq!(c.shared_per_thread, 8);
        let c = instr_cost("st.shared.v4.b16 [%r1], {%rs1, %rs2, %rs3, %rs4};");
        assert_eq!(c.shared_per_thread, 8);
        let c = instr_cost("ld.global.v4.b32 {%r1}, [%rd1];");
        assert!(c.waits && c.shared_per_thread == 0);
        assert!(!instr_cost("st.global.b32 [%rd1], %r1;").waits);
        assert!(!instr_cost("ld.param.u64 %rd1, [p];").waits);
        assert!(instr_cost("atom.global.add.u32 %r1, [%rd1], 1;").waits);
        assert_eq!(instr_cost("add.s32 %r1, %r2, %r3;"), InstrCost::default());
    }
}
