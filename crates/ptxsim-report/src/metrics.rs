//! The metrics a report shows: names (Nsight Compute's where one exists), units, descriptions,
//! and how each is computed from memsys counters.
//!
//! Nsight Compute names are `unit__counter.rollup` (`lts__t_sector_hit_rate.pct`,
//! `dram__bytes_read.sum`); `l1tex` is the L1/texture unit, `lts` the L2 slices, `smsp` the SM
//! sub-partitions. What Nsight has no counter for (evictions by priority class, the persisting
//! carve-out, stale L1 reads) is named `ptxsim__…` in the same style.

use memsys::{Counters, LevelCounters};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A metric's value: a count, or a percentage (`None` in a map when undefined, e.g. a hit rate
/// with no lookups).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum MetricValue {
    Count(u64),
    Percent(f64),
}

impl MetricValue {
    pub fn as_f64(self) -> f64 {
        match self {
            MetricValue::Count(c) => c as f64,
            MetricValue::Percent(p) => p,
        }
    }
}

/// Metric name → value (`null` where undefined).
pub type MetricValues = BTreeMap<String, Option<MetricValue>>;

/// A metric's definition, as listed in every report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetricInfo {
    pub name: String,
    pub unit: String,
    pub description: String,
    /// Whether Nsight Compute has a metric of this name (false: a ptxsim metric).
    pub nsight: bool,
    /// Whether the metric is given per PTX line and source line too (false: totals only).
    pub per_line: bool,
}

/// What the totals add to the counters: figures of the run rather than of memsys.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunFigures {
    pub warp_instructions: u64,
    pub thread_instructions: u64,
    pub cp_async_bytes: u64,
}

/// Sectors global memory instructions touched (Nsight Compute's Source Counters name).
pub const SECTORS_METRIC: &str = "smsp__sass_sectors_mem_global.sum";
/// The fewest sectors those accesses needed (Nsight's "ideal sectors").
pub const IDEAL_SECTORS_METRIC: &str = "smsp__sass_sectors_mem_global_ideal.sum";

/// Sets the requested and ideal sectors of a line or a run (the interpreter counts them, the
/// cache model does not).
pub fn with_sectors(values: &mut MetricValues, requested: u64, ideal: u64) {
    values.insert(SECTORS_METRIC.into(), count(requested));
    values.insert(IDEAL_SECTORS_METRIC.into(), count(ideal));
}

type Compute = fn(&Counters, Option<&RunFigures>, u64) -> Option<MetricValue>;

struct Def {
    name: &'static str,
    unit: &'static str,
    description: &'static str,
    nsight: bool,
    per_line: bool,
    compute: Compute,
}

fn pct(l: &LevelCounters) -> Option<MetricValue> {
    l.hit_rate().map(|r| MetricValue::Percent(r * 100.0))
}

fn count(v: u64) -> Option<MetricValue> {
    Some(MetricValue::Count(v))
}

/// The estimated kernel time ([`crate::timing`]); its value is set once the launch is known.
pub const TIME_METRIC: &str = "gpu__time_duration.sum";

const DEFS: &[Def] = &[
    Def {
        name: TIME_METRIC,
        unit: "ns",
        description: "kernel duration: an ESTIMATE from the run's work and the GPU's rates (docs/timing.md), not a measurement",
        nsight: true,
        per_line: false,
        compute: |_, _, _| None,
    },
    Def {
        name: "l1tex__t_sector_hit_rate.pct",
        unit: "%",
        description: "L1 sector hit rate: sectors found in L1 / sectors looked up in L1 (reads and writes)",
        nsight: true,
        per_line: true,
        compute: |c, _, _| pct(&c.l1),
    },
    Def {
        name: "l1tex__t_requests.sum",
        unit: "requests",
        description: "warp-level requests that passed L1's tag stage: cached loads and stores, and also .cg/.cv/volatile/.mmio loads and cp.async.cg, which bypass L1's data but are looked up there and miss, as on an H100 (their sectors count as L1 lookup misses); prefetches do not",
        nsight: true,
        per_line: true,
        compute: |c, _, _| count(c.l1.requests),
    },
    Def {
        name: "l1tex__t_sectors.sum",
        unit: "sectors",
        description: "32-byte sectors looked up in L1 by reads and writes (L1-bypassing loads included: they miss)",
        nsight: true,
        per_line: true,
        compute: |c, _, _| count(c.l1.read_sectors + c.l1.write_sectors),
    },
    Def {
        name: "l1tex__t_sectors_lookup_hit.sum",
        unit: "sectors",
        description: "L1 sector lookups that hit",
        nsight: true,
        per_line: true,
        compute: |c, _, _| count(c.l1.hits()),
    },
    Def {
        name: "l1tex__t_sectors_lookup_miss.sum",
        unit: "sectors",
        description: "L1 sector lookups that missed (reads fetched from L2; writes to lines L1 did not hold)",
        nsight: true,
        per_line: true,
        compute: |c, _, _| count(c.l1.misses()),
    },
    Def {
        name: "lts__t_sector_hit_rate.pct",
        unit: "%",
        description: "L2 sector hit rate as Nsight Compute counts it: lookup hits / (lookup hits + lookup misses) over every lookup of both L2 partitions, those of the SMs (srcunit_tex) and those a far access makes in the line's home partition after missing in its near one (srcunit_ltcfabric); written sectors count as hits, and every sector a read miss fetched (the whole 64 B granule on an H100) as a miss. Not modelled, so not counted: the launch's own L2 traffic (instruction fetches, constant banks: about 43,700 sectors per launch on an H100, 99.7 % hits), which lifts Nsight's figure for small kernels; reads of a line still being filled, which Nsight counts as misses, are hits here (no fill latency)",
        nsight: true,
        per_line: true,
        compute: |c, _, _| c.l2.all_lookup_hit_rate().map(|r| MetricValue::Percent(r * 100.0)),
    },
    Def {
        name: "lts__t_sectors_srcunit_tex_lookup_hit.sum",
        unit: "sectors",
        description: "L2 sector lookups from the SMs (L1/TEX) that hit in the SM's near partition: read hits, and every written sector",
        nsight: true,
        per_line: true,
        compute: |c, _, _| count(c.l2.lookup_hits()),
    },
    Def {
        name: "lts__t_sectors_srcunit_tex_lookup_miss.sum",
        unit: "sectors",
        description: "L2 sector lookups from the SMs (L1/TEX) that missed in the SM's near partition, the fetch granule's unrequested sectors included",
        nsight: true,
        per_line: true,
        compute: |c, _, _| count(c.l2.lookup_misses()),
    },
    Def {
        name: "lts__t_sectors_srcunit_ltcfabric.sum",
        unit: "sectors",
        description: "L2 sectors looked up in a line's home partition over the fabric between the two partitions: far reads that missed in the SM's near partition, and far writes",
        nsight: true,
        per_line: true,
        compute: |c, _, _| count(c.l2.fabric_sectors()),
    },
    Def {
        name: "lts__t_requests.sum",
        unit: "requests",
        description: "warp-level requests that reached L2",
        nsight: true,
        per_line: true,
        compute: |c, _, _| count(c.l2.requests),
    },
    Def {
        name: "lts__t_sectors.sum",
        unit: "sectors",
        description: "32-byte sectors the SMs' global and local traffic looked up in L2 (after stores to sectors still pending from the same SM combine): Nsight's lts__t_sectors_srcunit_tex. On a GPU, Nsight's lts__t_sectors also counts instruction fetches and constant-bank loads, which ptxsim does not model, and the lookups between the two partitions (lts__t_sectors_srcunit_ltcfabric.sum, apart)",
        nsight: true,
        per_line: true,
        compute: |c, _, _| count(c.l2.read_sectors + c.l2.write_sectors),
    },
    Def {
        name: "lts__t_sectors_op_read.sum",
        unit: "sectors",
        description: "L2 sectors looked up by reads (loads, cp.async, prefetches: the whole line, atomics: once per pass, a pass per lane on the same address unless ptxas aggregates the warp's operation)",
        nsight: true,
        per_line: true,
        compute: |c, _, _| count(c.l2.read_sectors),
    },
    Def {
        name: "lts__t_sectors_op_write.sum",
        unit: "sectors",
        description: "L2 sectors written by stores",
        nsight: true,
        per_line: true,
        compute: |c, _, _| count(c.l2.write_sectors),
    },
    Def {
        name: "lts__t_sectors_lookup_hit.sum",
        unit: "sectors",
        description: "L2 sector lookups that hit, in both partitions (SM and fabric lookups): read hits, and every written sector (a write never fetches)",
        nsight: true,
        per_line: true,
        compute: |c, _, _| count(c.l2.all_lookup_hits()),
    },
    Def {
        name: "lts__t_sectors_lookup_miss.sum",
        unit: "sectors",
        description: "L2 sector lookups that missed, in both partitions (SM and fabric lookups): the sectors read misses fetched, the unrequested sectors of the fetch granule (or prefetch-size block) within the line included",
        nsight: true,
        per_line: true,
        compute: |c, _, _| count(c.l2.all_lookup_misses()),
    },
    Def {
        name: "dram__bytes_read.sum",
        unit: "bytes",
        description: "bytes read from DRAM (L2 fills with their fetch granule, prefetch fills, .cv re-fetches), at sector granularity; code and constant-bank fetches, which dominate small kernels on a GPU, are not modelled",
        nsight: true,
        per_line: true,
        compute: |c, _, _| count(c.dram.bytes_read),
    },
    Def {
        name: "dram__bytes_write.sum",
        unit: "bytes",
        description: "bytes written to DRAM during the run (write-backs of evicted dirty lines, .wt stores); dirty lines still in L2 at the end are not counted",
        nsight: true,
        per_line: true,
        compute: |c, _, _| count(c.dram.bytes_written),
    },
    Def {
        name: "ptxsim__l1_evictions_evict_first.sum",
        unit: "lines",
        description: "L1 lines evicted that had the evict-first class (.cs, .L1::evict_first)",
        nsight: false,
        per_line: true,
        compute: |c, _, _| count(c.l1.evictions.evict_first),
    },
    Def {
        name: "ptxsim__l1_evictions_normal.sum",
        unit: "lines",
        description: "L1 lines evicted that had the normal class",
        nsight: false,
        per_line: true,
        compute: |c, _, _| count(c.l1.evictions.normal),
    },
    Def {
        name: "ptxsim__l1_evictions_evict_last.sum",
        unit: "lines",
        description: "L1 lines evicted that had the evict-last class (.L1::evict_last)",
        nsight: false,
        per_line: true,
        compute: |c, _, _| count(c.l1.evictions.evict_last),
    },
    Def {
        name: "ptxsim__lts_evictions_evict_first.sum",
        unit: "lines",
        description: "L2 lines evicted that had the evict-first class (.cs, .L2::evict_first, policies)",
        nsight: false,
        per_line: true,
        compute: |c, _, _| count(c.l2.evictions.evict_first),
    },
    Def {
        name: "ptxsim__lts_evictions_normal.sum",
        unit: "lines",
        description: "L2 lines evicted that had the normal class",
        nsight: false,
        per_line: true,
        compute: |c, _, _| count(c.l2.evictions.normal),
    },
    Def {
        name: "ptxsim__lts_evictions_evict_last.sum",
        unit: "lines",
        description: "L2 lines evicted that had the evict-last (persisting) class",
        nsight: false,
        per_line: true,
        compute: |c, _, _| count(c.l2.evictions.evict_last),
    },
    Def {
        name: "ptxsim__evictions.sum",
        unit: "lines",
        description: "lines evicted from L1 and L2 together, all classes",
        nsight: false,
        per_line: true,
        compute: |c, _, _| count(c.l1.evictions.total() + c.l2.evictions.total()),
    },
    Def {
        name: "ptxsim__lts_evict_last_capped.sum",
        unit: "requests",
        description: "evict-last requests served as normal because the set's evict-last ways (the persisting set-aside) were full",
        nsight: false,
        per_line: true,
        compute: |c, _, _| count(c.l2.evict_last_capped),
    },
    Def {
        name: "ptxsim__lts_discards.sum",
        unit: "lines",
        description: "L2 lines discard.global.L2 dropped without a write-back (every partition's copy; a line counted once)",
        nsight: false,
        per_line: true,
        compute: |c, _, _| count(c.l2.discards),
    },
    Def {
        name: "ptxsim__lts_discard_writebacks_saved.sum",
        unit: "sectors",
        description: "dirty L2 sectors discard.global.L2 dropped: write-backs to DRAM it saved",
        nsight: false,
        per_line: true,
        compute: |c, _, _| count(c.l2.discard_writebacks_saved),
    },
    Def {
        name: "ptxsim__lts_priority_applied.sum",
        unit: "lines",
        description: "resident L2 lines applypriority.global.L2::evict_normal made normal",
        nsight: false,
        per_line: true,
        compute: |c, _, _| count(c.l2.priority_applied),
    },
    Def {
        name: "ptxsim__lts_priority_demoted.sum",
        unit: "lines",
        description: "evict-last (persisting) L2 lines applypriority took out of the persisting set-aside",
        nsight: false,
        per_line: true,
        compute: |c, _, _| count(c.l2.priority_demoted),
    },
    Def {
        name: "ptxsim__lts_persisting_reset_lines.sum",
        unit: "lines",
        description: "evict-last L2 lines a persisting reset (cudaCtxResetPersistingL2Cache) made normal",
        nsight: false,
        per_line: false,
        compute: |c, _, _| count(c.l2.persisting_reset_lines),
    },
    Def {
        name: "ptxsim__lts_window_hit_prop.sum",
        unit: "requests",
        description: "L2 line accesses inside the access policy window that got its hitProp (a hitRatio share of the window's lines)",
        nsight: false,
        per_line: true,
        compute: |c, _, _| count(c.l2.window_hit_prop),
    },
    Def {
        name: "ptxsim__lts_window_miss_prop.sum",
        unit: "requests",
        description: "L2 line accesses inside the access policy window that got its missProp",
        nsight: false,
        per_line: true,
        compute: |c, _, _| count(c.l2.window_miss_prop),
    },
    Def {
        name: "ptxsim__lts_prefetch_fills.sum",
        unit: "sectors",
        description: "L2 sectors of other lines filled by a prefetch size that spans lines (.L2::256B); the missed line's own extra sectors (fetch granule, .L2::64B/128B) count as lookup misses",
        nsight: false,
        per_line: true,
        compute: |c, _, _| count(c.l2.prefetch_fills),
    },
    Def {
        name: SECTORS_METRIC,
        unit: "sectors",
        description: "32-byte sectors the active lanes of global ld/st, cp.async and bulk copies touched, per execution, summed (as the coalescer issues them to L1 or, when it is bypassed, L2)",
        nsight: true,
        per_line: true,
        // From the interpreter's tallies ([`with_sectors`]), not from the cache counters.
        compute: |_, _, _| None,
    },
    Def {
        name: IDEAL_SECTORS_METRIC,
        unit: "sectors",
        description: "the fewest 32-byte sectors that could hold the bytes those lanes accessed (ceil(distinct bytes / 32) per execution), summed: sectors beyond it are uncoalesced traffic",
        nsight: true,
        per_line: true,
        compute: |_, _, _| None,
    },
    Def {
        name: "ptxsim__l1_stale_reads.sum",
        unit: "lanes",
        description: "lane reads served by an SM's L1 with bytes that differ from the coherent value (a cache-coherence bug)",
        nsight: false,
        per_line: true,
        compute: |c, _, _| count(c.stale_reads),
    },
    Def {
        name: "ptxsim__cp_async_bytes.sum",
        unit: "bytes",
        description: "bytes copied from global to shared memory by cp.async and by bulk/tensor (TMA) copies",
        nsight: false,
        per_line: false,
        compute: |_, r, _| r.and_then(|r| count(r.cp_async_bytes)),
    },
    Def {
        name: "smsp__inst_executed.sum",
        unit: "warp-instructions",
        description: "warp-level instructions executed",
        nsight: true,
        per_line: false,
        compute: |_, r, _| r.and_then(|r| count(r.warp_instructions)),
    },
    Def {
        name: "smsp__thread_inst_executed.sum",
        unit: "thread-instructions",
        description: "instructions executed, counted once per active thread",
        nsight: true,
        per_line: true,
        compute: |_, r, execs| match r {
            Some(r) => count(r.thread_instructions),
            None => count(execs),
        },
    },
];

/// Every metric a report may contain, in display order.
pub fn metric_infos() -> Vec<MetricInfo> {
    DEFS.iter()
        .map(|d| MetricInfo {
            name: d.name.into(),
            unit: d.unit.into(),
            description: d.description.into(),
            nsight: d.nsight,
            per_line: d.per_line,
        })
        .collect()
}

/// The totals of a run: every metric.
pub fn totals(c: &Counters, run: &RunFigures) -> MetricValues {
    DEFS.iter()
        .map(|d| (d.name.to_string(), (d.compute)(c, Some(run), 0)))
        .collect()
}

/// The metrics of one PTX or source line: the per-line ones, `executions` thread-instructions.
pub fn per_line(c: &Counters, executions: u64) -> MetricValues {
    DEFS.iter()
        .filter(|d| d.per_line)
        .map(|d| (d.name.to_string(), (d.compute)(c, None, executions)))
        .collect()
}

/// Metric names used by the compare table, with short labels.
pub const KEY_METRICS: &[(&str, &str)] = &[
    (TIME_METRIC, "est. time"),
    ("l1tex__t_sector_hit_rate.pct", "L1 hit rate"),
    ("lts__t_sector_hit_rate.pct", "L2 hit rate"),
    ("l1tex__t_sectors.sum", "L1 sectors"),
    (SECTORS_METRIC, "sectors (global)"),
    (IDEAL_SECTORS_METRIC, "ideal sectors"),
    ("lts__t_sectors.sum", "L2 sectors"),
    ("dram__bytes_read.sum", "DRAM read"),
    ("dram__bytes_write.sum", "DRAM written"),
    (
        "ptxsim__lts_evictions_evict_first.sum",
        "L2 evictions, evict-first",
    ),
    ("ptxsim__lts_evictions_normal.sum", "L2 evictions, normal"),
    (
        "ptxsim__lts_evictions_evict_last.sum",
        "L2 evictions, evict-last",
    ),
    (
        "ptxsim__l1_evictions_evict_first.sum",
        "L1 evictions, evict-first",
    ),
    ("ptxsim__l1_evictions_normal.sum", "L1 evictions, normal"),
    (
        "ptxsim__l1_evictions_evict_last.sum",
        "L1 evictions, evict-last",
    ),
    ("ptxsim__lts_evict_last_capped.sum", "evict-last capped"),
    ("ptxsim__lts_prefetch_fills.sum", "L2 prefetch fills"),
    ("ptxsim__cp_async_bytes.sum", "cp.async"),
    ("ptxsim__l1_stale_reads.sum", "stale L1 reads"),
];

/// Looks a metric up (`None` when absent or undefined).
pub fn get(values: &MetricValues, name: &str) -> Option<MetricValue> {
    values.get(name).copied().flatten()
}

/// The unit of a metric.
pub fn unit(name: &str) -> &'static str {
    DEFS.iter().find(|d| d.name == name).map_or("", |d| d.unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_follow_the_nsight_pattern() {
        let infos = metric_infos();
        let mut names: Vec<&str> = infos.iter().map(|m| m.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), infos.len());
        for m in &infos {
            let (base, rollup) = m.name.split_once('.').expect("unit__counter.rollup");
            assert!(base.contains("__"), "{}", m.name);
            assert!(matches!(rollup, "sum" | "pct"), "{}", m.name);
            assert_eq!(m.nsight, !m.name.starts_with("ptxsim__"), "{}", m.name);
            assert!(!m.description.is_empty());
        }
    }

    #[test]
    fn hit_rates_are_percent_and_undefined_without_lookups() {
        let mut c = Counters::default();
        let t = totals(&c, &RunFigures::default());
        assert_eq!(get(&t, "lts__t_sector_hit_rate.pct"), None);
        c.l2.read_sectors = 4;
        c.l2.read_hits = 3;
        c.l2.read_misses = 1;
        c.dram.bytes_read = 32;
        let t = totals(&c, &RunFigures::default());
        assert_eq!(
            get(&t, "lts__t_sector_hit_rate.pct"),
            Some(MetricValue::Percent(75.0))
        );
        assert_eq!(
            get(&t, "dram__bytes_read.sum"),
            Some(MetricValue::Count(32))
        );
        assert_eq!(
            get(&t, "lts__t_sectors_lookup_miss.sum"),
            Some(MetricValue::Count(1))
        );
        let l = per_line(&c, 7);
        assert_eq!(
            get(&l, "smsp__thread_inst_executed.sum"),
            Some(MetricValue::Count(7))
        );
        assert!(!l.contains_key("ptxsim__cp_async_bytes.sum"));
    }
}
