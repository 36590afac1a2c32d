//! Counters: per level, per SM and per instruction, plus an optional L2 occupancy timeline.
//! Sector counts are in the sector size of the configuration (32 B on the presets); DRAM
//! traffic is counted in bytes at sector granularity, as Nsight Compute's `dram__bytes` are.

use std::fmt::Write as _;
use std::ops::AddAssign;

use serde::{Deserialize, Serialize};

use crate::cache::EvictionClass;

/// Evictions by the class of the evicted line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvictionCounts {
    pub evict_first: u64,
    pub normal: u64,
    pub evict_last: u64,
}

impl EvictionCounts {
    pub fn total(&self) -> u64 {
        self.evict_first + self.normal + self.evict_last
    }

    /// Counts one eviction of a `class` line (without a branch on the class: victims of
    /// mixed-priority traces alternate classes unpredictably).
    #[inline(always)]
    pub(crate) fn add(&mut self, class: EvictionClass) {
        self.evict_first += u64::from(class == EvictionClass::EvictFirst);
        self.normal += u64::from(class == EvictionClass::Normal);
        self.evict_last += u64::from(class == EvictionClass::EvictLast);
    }
}

/// What happened at one cache level.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LevelCounters {
    /// Warp-level requests that reached this level.
    pub requests: u64,
    /// Sectors looked up by reads (loads, copies, prefetches, atomics), and how they resolved.
    pub read_sectors: u64,
    pub read_hits: u64,
    pub read_misses: u64,
    /// Sectors written by stores, and whether the line held them already.
    pub write_sectors: u64,
    pub write_hits: u64,
    pub write_misses: u64,
    /// Lines installed.
    pub allocations: u64,
    /// Sectors filled on demand.
    pub sector_fills: u64,
    /// Sectors of the accessed line a read miss fetched beyond the ones it missed: the rest
    /// of the aligned block of the L2 fetch granularity
    /// ([`crate::GpuConfig::l2_fetch_granularity_bytes`]) or of a prefetch-size hint. Nsight
    /// Compute counts each as a lookup miss ([`LevelCounters::lookup_misses`]).
    #[serde(default)]
    pub fetch_fills: u64,
    /// Sectors of other lines filled by a prefetch-size hint that spans lines (`.L2::256B`).
    pub prefetch_fills: u64,
    /// Lines evicted, by the class they had.
    pub evictions: EvictionCounts,
    /// Dirty sectors written back to the next level.
    pub writebacks: u64,
    /// Valid sectors discarded by `.cv`, bypassing stores, atomics or L1 invalidation.
    pub invalidations: u64,
    /// Evict-last requests made to a set whose evict-last ways (the persisting set-aside,
    /// [`crate::GpuConfig::evict_last_ways`]) were full: each turned the set's least recently
    /// used evict-last line normal to take its place (or, with no evict-last way at all, was
    /// itself made normal).
    pub evict_last_capped: u64,
    /// Sectors a far read (its SM is near another L2 partition than the line's home,
    /// `src/system/partitions.rs`) looked up in the home partition after its near partition
    /// missed them: Nsight Compute's `lts__t_sectors_srcunit_ltcfabric` reads, which hit or
    /// missed there (a miss is fetched from DRAM).
    #[serde(default)]
    pub fabric_read_hits: u64,
    #[serde(default)]
    pub fabric_read_misses: u64,
    /// Sectors far stores and atomics forwarded to the home partition over the fabric (each a
    /// lookup hit there, as every written sector is).
    #[serde(default)]
    pub fabric_write_sectors: u64,
    /// Sectors of a far line's fetch-granularity block copied into the near partition beyond
    /// the ones the read missed: lookup misses there, as [`LevelCounters::fetch_fills`] are
    /// for a near line (the DRAM read is the home partition's).
    #[serde(default)]
    pub copy_fills: u64,
    /// Near copies of far lines installed (included in `allocations`).
    #[serde(default)]
    pub copy_allocations: u64,
    /// Lines `discard.global.L2` found resident (in any partition; a line held at home and
    /// as a near copy counts once) and dropped without a write-back
    /// (`system/l2_control.rs`).
    #[serde(default)]
    pub discards: u64,
    /// Dirty sectors those discards dropped: write-backs to DRAM they saved.
    #[serde(default)]
    pub discard_writebacks_saved: u64,
    /// Resident lines `applypriority.global.L2::evict_normal` made normal (counted whether
    /// or not they were evict-last before).
    #[serde(default)]
    pub priority_applied: u64,
    /// Evict-last lines `applypriority` took out of the persisting set-aside (a subset of
    /// `priority_applied`).
    #[serde(default)]
    pub priority_demoted: u64,
    /// Evict-last lines made normal by a persisting reset (`cudaCtxResetPersistingL2Cache`;
    /// host counters only).
    #[serde(default)]
    pub persisting_reset_lines: u64,
    /// Accesses inside an access policy window that got its `hitProp` and its `missProp`
    /// (line-sector groups; `system/l2_control.rs`).
    #[serde(default)]
    pub window_hit_prop: u64,
    #[serde(default)]
    pub window_miss_prop: u64,
}

impl LevelCounters {
    pub fn hits(&self) -> u64 {
        self.read_hits + self.write_hits
    }

    pub fn misses(&self) -> u64 {
        self.read_misses + self.write_misses
    }

    /// Sector hit rate of reads and writes together, `None` when nothing was looked up.
    pub fn hit_rate(&self) -> Option<f64> {
        let n = self.hits() + self.misses();
        (n > 0).then(|| self.hits() as f64 / n as f64)
    }

    /// L2 lookup hits as Nsight Compute counts them (`lts__t_sectors_lookup_hit`): read
    /// hits, and every written sector. The L2 keeps byte masks and a write never fetches, so
    /// the H100 counts a store to a line it does not hold as a hit (corpus kernels, caches
    /// flushed first: `lookup_hit >= op_write` on every store-only kernel,
    /// `../shared/hw/h100/counters/corpus_counters.csv`).
    pub fn lookup_hits(&self) -> u64 {
        self.read_hits + self.write_sectors
    }

    /// L2 lookup misses as Nsight Compute counts them (`lts__t_sectors_lookup_miss`): every
    /// sector a read miss fetched from DRAM, the granule's unrequested sectors included (a
    /// one-sector miss at 64 B granularity counts two; `l2/fetch_granularity.csv`).
    pub fn lookup_misses(&self) -> u64 {
        self.read_misses + self.fetch_fills + self.copy_fills
    }

    /// Lookups in the home partition that came over the L2 fabric (far reads that missed in
    /// their near partition, far writes): Nsight's `lts__t_sectors_srcunit_ltcfabric`.
    pub fn fabric_sectors(&self) -> u64 {
        self.fabric_read_hits + self.fabric_read_misses + self.fabric_write_sectors
    }

    /// Lookup hits of every source unit (L1/TEX and the fabric): what
    /// `lts__t_sector_hit_rate.pct` divides.
    pub fn all_lookup_hits(&self) -> u64 {
        self.lookup_hits() + self.fabric_read_hits + self.fabric_write_sectors
    }

    /// Lookup misses of every source unit (L1/TEX and the fabric).
    pub fn all_lookup_misses(&self) -> u64 {
        self.lookup_misses() + self.fabric_read_misses
    }

    /// Nsight Compute's `lts__t_sector_hit_rate.pct` as a fraction: hits over lookups of every
    /// source unit the model has (the L1/TEX units and the L2 fabric; instruction and
    /// constant fetches are not modelled), `None` when nothing was looked up.
    pub fn all_lookup_hit_rate(&self) -> Option<f64> {
        let n = self.all_lookup_hits() + self.all_lookup_misses();
        (n > 0).then(|| self.all_lookup_hits() as f64 / n as f64)
    }

    /// [`LevelCounters::lookup_hits`] / (hits + [`LevelCounters::lookup_misses`]), `None`
    /// when nothing was looked up.
    pub fn lookup_hit_rate(&self) -> Option<f64> {
        let n = self.lookup_hits() + self.lookup_misses();
        (n > 0).then(|| self.lookup_hits() as f64 / n as f64)
    }
}

/// DRAM traffic.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DramCounters {
    pub bytes_read: u64,
    pub bytes_written: u64,
}

/// One set of counters (for an SM, an instruction, or the total).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    /// L1 events of global (and const/param) accesses: what Nsight's `l1tex__t_*_mem_global_*`
    /// counters see.
    pub l1: LevelCounters,
    /// L1 events of local-memory accesses ([`crate::Space::Local`]), kept apart: Nsight counts
    /// them as `l1tex__t_sectors_pipe_lsu_mem_local_op_ld`/`_st`, not in the global-load
    /// counters. (An L1 line a local fill evicts is counted here too.)
    #[serde(default)]
    pub l1_local: LevelCounters,
    pub l2: LevelCounters,
    pub dram: DramCounters,
    /// Lane accesses that read bytes from L1 differing from the coherent value.
    pub stale_reads: u64,
}

impl AddAssign<&LevelCounters> for LevelCounters {
    fn add_assign(&mut self, o: &LevelCounters) {
        self.requests += o.requests;
        self.read_sectors += o.read_sectors;
        self.read_hits += o.read_hits;
        self.read_misses += o.read_misses;
        self.write_sectors += o.write_sectors;
        self.write_hits += o.write_hits;
        self.write_misses += o.write_misses;
        self.allocations += o.allocations;
        self.sector_fills += o.sector_fills;
        self.fetch_fills += o.fetch_fills;
        self.prefetch_fills += o.prefetch_fills;
        self.evictions.evict_first += o.evictions.evict_first;
        self.evictions.normal += o.evictions.normal;
        self.evictions.evict_last += o.evictions.evict_last;
        self.writebacks += o.writebacks;
        self.invalidations += o.invalidations;
        self.evict_last_capped += o.evict_last_capped;
        self.fabric_read_hits += o.fabric_read_hits;
        self.fabric_read_misses += o.fabric_read_misses;
        self.fabric_write_sectors += o.fabric_write_sectors;
        self.copy_fills += o.copy_fills;
        self.copy_allocations += o.copy_allocations;
        self.discards += o.discards;
        self.discard_writebacks_saved += o.discard_writebacks_saved;
        self.priority_applied += o.priority_applied;
        self.priority_demoted += o.priority_demoted;
        self.persisting_reset_lines += o.persisting_reset_lines;
        self.window_hit_prop += o.window_hit_prop;
        self.window_miss_prop += o.window_miss_prop;
    }
}

impl AddAssign<&Counters> for Counters {
    fn add_assign(&mut self, o: &Counters) {
        self.l1 += &o.l1;
        self.l1_local += &o.l1_local;
        self.l2 += &o.l2;
        self.dram.bytes_read += o.dram.bytes_read;
        self.dram.bytes_written += o.dram.bytes_written;
        self.stale_reads += o.stale_reads;
    }
}

/// L2 lines by class at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OccupancySample {
    /// Requests processed so far.
    pub request: u64,
    pub evict_first: u64,
    pub normal: u64,
    pub evict_last: u64,
}

/// Everything counted since the memory system was built (or last reset).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// The configuration's name.
    pub gpu: String,
    /// Requests processed.
    pub requests: u64,
    /// Counters attributed to the SM that issued each request.
    pub per_sm: Vec<Counters>,
    /// Counters attributed to each instruction id (index = `InstrId.0`).
    pub per_instr: Vec<Counters>,
    /// Traffic no request caused (e.g. [`crate::MemSystem::flush_l2`]).
    pub host: Counters,
    /// L2 occupancy samples (when the configuration asks for a timeline).
    pub timeline: Vec<OccupancySample>,
    /// L2 lines by class when the snapshot was taken.
    pub l2_occupancy: OccupancySample,
}

/// Which counter sets an event is attributed to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Attr {
    pub sm: usize,
    pub instr: usize,
    /// The issuing warp ([`crate::Request::warp`]).
    pub warp: u32,
}

impl Stats {
    pub(crate) fn new(gpu: &str, sm_count: usize) -> Self {
        Self {
            gpu: gpu.to_string(),
            per_sm: vec![Counters::default(); sm_count],
            ..Self::default()
        }
    }

    #[inline(always)]
    pub(crate) fn ensure_instr(&mut self, instr: usize) {
        if instr >= self.per_instr.len() {
            self.per_instr.resize(instr + 1, Counters::default());
        }
    }

    /// Sum over all SMs plus host-side traffic.
    pub fn total(&self) -> Counters {
        let mut t = self.host;
        for c in &self.per_sm {
            t += c;
        }
        t
    }

    /// Serialises the statistics (with a computed `total`) as pretty JSON.
    pub fn to_json(&self) -> String {
        #[derive(Serialize)]
        struct WithTotal<'a> {
            total: Counters,
            #[serde(flatten)]
            stats: &'a Stats,
        }
        serde_json::to_string_pretty(&WithTotal {
            total: self.total(),
            stats: self,
        })
        .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// A human-readable summary of the totals.
    pub fn render_text(&self) -> String {
        let t = self.total();
        let mut s = String::new();
        let rate = |l: &LevelCounters| match l.hit_rate() {
            Some(r) => format!("{:.2}%", r * 100.0),
            None => "-".into(),
        };
        let _ = writeln!(s, "gpu: {}   requests: {}", self.gpu, self.requests);
        for (name, l) in [("L1", &t.l1), ("L2", &t.l2)] {
            let _ = writeln!(
                s,
                "{name}: requests {}  sectors read {} (hit {} / miss {})  written {} (hit {} / miss {})  hit rate {}",
                l.requests,
                l.read_sectors,
                l.read_hits,
                l.read_misses,
                l.write_sectors,
                l.write_hits,
                l.write_misses,
                rate(l)
            );
            let _ = writeln!(
                s,
                "{name}: allocations {}  fills {}  granule fills {}  prefetch fills {}  evictions first/normal/last {}/{}/{}  write-backs {}  invalidations {}  evict-last capped {}",
                l.allocations,
                l.sector_fills,
                l.fetch_fills,
                l.prefetch_fills,
                l.evictions.evict_first,
                l.evictions.normal,
                l.evictions.evict_last,
                l.writebacks,
                l.invalidations,
                l.evict_last_capped
            );
        }
        let _ = writeln!(
            s,
            "DRAM: bytes read {}  bytes written {}",
            t.dram.bytes_read, t.dram.bytes_written
        );
        let _ = writeln!(
            s,
            "L2 lines now: evict-first {}  normal {}  evict-last {}",
            self.l2_occupancy.evict_first, self.l2_occupancy.normal, self.l2_occupancy.evict_last
        );
        if t.stale_reads > 0 {
            let _ = writeln!(s, "stale L1 reads: {}", t.stale_reads);
        }
        s
    }
}
