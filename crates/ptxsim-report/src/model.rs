//! The report: what a run (or each variant of a comparison) did, in the shape of the versioned
//! JSON schema `docs/report.schema.json`.

use crate::metrics::{self, MetricInfo, MetricValue, MetricValues, RunFigures};
use crate::timing::{self, KernelWork, TimeEstimate};
use memsys::{
    Counters, DramCounters, GpuConfig, LevelCounters, OccupancyConfig, OccupancySample, Stats,
    TimingConfig,
};
use ptx_exec::{Program, RunSummary};
use ptx_isa::ScalarType;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The value of `format` in every report.
pub const FORMAT: &str = "ptxsim-report";
/// The schema version; bumped on any incompatible change (docs/report.schema.json).
pub const SCHEMA_VERSION: u32 = 2;
/// Most timeline samples kept in a report (longer timelines are thinned evenly).
pub const MAX_TIMELINE_SAMPLES: usize = 400;
/// Lines listed in `top_dram_lines`.
pub const TOP_LINES: usize = 10;

/// A whole report: one launch, one or more variants (the first is the baseline).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub format: String,
    pub version: u32,
    /// `run` (one variant) or `compare`.
    pub command: String,
    /// `ptxsim X.Y.Z`.
    pub tool: String,
    pub launch: LaunchInfo,
    pub gpu: GpuInfo,
    /// Every metric name that appears in the report, with its unit and description.
    pub metrics: Vec<MetricInfo>,
    pub variants: Vec<VariantReport>,
    /// The user's Nsight Compute measurements of the launch beside the first variant's
    /// metrics (`--ncu-csv`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ncu: Option<crate::ncu::NcuComparison>,
    /// `advise`: what the rules found and what each rewrite measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestions: Option<Vec<crate::advise::Suggestion>>,
    /// `advise` on a multi-step launch file: every kernel step with its launch and the
    /// variants' counters of that step (`launch` and `variants` above repeat the first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<Vec<StepReport>>,
}

/// One kernel step of a multi-step launch: its launch and each variant's counters of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepReport {
    /// The step's index in the launch file (memsets and copies count).
    pub step: usize,
    /// `kernel K grid (…) block (…)`, as the run's status lines describe it.
    pub what: String,
    pub launch: LaunchInfo,
    /// The original first, then each rewrite run (`outputs`: the launch's buffers after its
    /// last step, against the original's).
    pub variants: Vec<VariantReport>,
}

impl StepReport {
    /// The step as a report of its own (what the text and HTML reports show per step).
    pub fn as_report(&self, parent: &Report) -> Report {
        Report {
            format: parent.format.clone(),
            version: parent.version,
            command: parent.command.clone(),
            tool: parent.tool.clone(),
            launch: self.launch.clone(),
            gpu: parent.gpu.clone(),
            metrics: parent.metrics.clone(),
            variants: self.variants.clone(),
            ncu: None,
            suggestions: None,
            steps: None,
        }
    }
}

/// What was launched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LaunchInfo {
    pub ptx: String,
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Dynamic shared memory (the launch's `sharedMem`).
    pub shared_bytes: u32,
    /// Static shared memory of the module (its `.shared` variables): with the dynamic bytes,
    /// what one CTA holds.
    #[serde(default)]
    pub static_shared_bytes: u32,
    pub seed: u64,
    /// The launch's access policy window (`cudaStreamAttrValue::accessPolicyWindow`), as
    /// [`LaunchInfo::window_text`] writes it; absent when the launch has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_policy_window: Option<String>,
    /// Multi-step launches: persisting L2 lines a `reset_persisting_l2` step made normal since
    /// the previous kernel step (`cudaCtxResetPersistingL2Cache`); absent when none ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persisting_reset_lines: Option<u64>,
}

impl LaunchInfo {
    /// `0x7f0000000000 + 65536 B, hit ratio 0.5 (8/16 of lines) persisting, miss streaming`:
    /// a window as the reports show it.
    pub fn window_text(w: &memsys::AccessPolicyWindow) -> String {
        format!(
            "0x{:x} + {} B, hit ratio {} ({}/16 of lines) {}, miss {}",
            w.base,
            w.bytes,
            w.hit_ratio,
            w.sixteenths(),
            w.hit_prop.name(),
            w.miss_prop.name()
        )
    }

    /// The report lines of the window and the reset (empty when neither).
    pub fn l2_control_lines(&self) -> Vec<String> {
        let mut v = Vec::new();
        if let Some(w) = &self.access_policy_window {
            v.push(format!("access policy window: {w}"));
        }
        if let Some(n) = self.persisting_reset_lines {
            v.push(format!(
                "persisting L2 reset before this kernel (cudaCtxResetPersistingL2Cache): {n} \
                 lines made normal"
            ));
        }
        v
    }

    /// Shared memory one CTA holds: static plus dynamic.
    pub fn cta_shared_bytes(&self) -> u64 {
        u64::from(self.static_shared_bytes) + u64::from(self.shared_bytes)
    }

    /// `shared 16 KiB (16384 B static + 0 B dynamic)`, or `shared 0 B`.
    pub fn shared_text(&self) -> String {
        match (self.static_shared_bytes, self.shared_bytes) {
            (0, d) => format!("shared {d} B dynamic"),
            (s, d) => format!(
                "shared {} B ({s} B static + {d} B dynamic)",
                self.cta_shared_bytes()
            ),
        }
    }
}

/// The modelled GPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuInfo {
    pub name: String,
    pub sm_count: u32,
    pub l1_bytes: u64,
    pub l1_ways: u32,
    pub l2_bytes: u64,
    pub l2_ways: u32,
    pub line_bytes: u32,
    pub sector_bytes: u32,
    /// The persisting-L2 set-aside in effect (`--persisting-l2`, `persisting_l2`; 0 as in a
    /// fresh CUDA context).
    pub persisting_l2_bytes: u64,
    /// The GPU's largest set-aside (`persisting_l2_max_bytes`).
    #[serde(default)]
    pub persisting_l2_max_bytes: u64,
    /// Load-to-use latencies of an L1 hit, an L2 hit and a DRAM access, SM cycles (the time
    /// estimate's latency term).
    pub l1_latency_cycles: u32,
    pub l2_latency_cycles: u32,
    pub dram_latency_cycles: u32,
    /// The rates the time estimate used.
    pub timing: TimingConfig,
    /// The per-SM residency limits (`[occupancy]`) and the most shared memory of one CTA.
    #[serde(default)]
    pub occupancy: OccupancyConfig,
    #[serde(default)]
    pub shared_bytes_per_block: u64,
}

impl GpuInfo {
    pub fn from_config(c: &GpuConfig) -> Self {
        GpuInfo {
            name: c.name.clone(),
            sm_count: c.sm_count,
            l1_bytes: c.l1.size_bytes,
            l1_ways: c.l1.ways,
            l2_bytes: c.l2.size_bytes,
            l2_ways: c.l2.ways,
            line_bytes: c.l2.line_bytes,
            sector_bytes: c.l2.sector_bytes,
            persisting_l2_bytes: c.persisting_l2_bytes,
            persisting_l2_max_bytes: c.persisting_l2_limit(),
            l1_latency_cycles: c.l1.latency_cycles,
            l2_latency_cycles: c.l2.latency_cycles,
            dram_latency_cycles: c.dram_latency_cycles,
            timing: c.timing.clone(),
            occupancy: c.occupancy.clone(),
            shared_bytes_per_block: c.shared_bytes_per_block,
        }
    }
}

/// One run of the launch: the original or a rewritten module.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VariantReport {
    pub name: String,
    /// The rewrite (`None` for the original).
    pub rewrite: Option<String>,
    pub baseline: bool,
    /// Lines the rewrite changed.
    pub changes: Vec<LineChange>,
    /// Instructions the rewrite selected but could not change, and why.
    pub skipped: Vec<SkippedLine>,
    /// Lines the rewrite changed in functions the launch does not run (other kernels of the
    /// module): left out of `changes`, which lists what the launch executes.
    #[serde(default)]
    pub changes_not_launched: u32,
    pub outputs: OutputCheck,
    pub run: RunInfo,
    /// Every metric over the whole run.
    pub totals: MetricValues,
    /// The raw memsys counters, summed over SMs.
    pub levels: Levels,
    /// Per PTX line with memory activity, in line order.
    pub lines: Vec<LineRow>,
    /// Per source line (`.loc`), when the module has line information.
    pub source_lines: Vec<SourceRow>,
    /// PTX lines with the most DRAM traffic (read + written), most first.
    pub top_dram_lines: Vec<u32>,
    pub l2_timeline: Timeline,
    /// The estimated kernel time and what bounds it (docs/timing.md); computed by
    /// [`Report::new`] from the variant's work and the launch.
    pub time: Option<TimeEstimate>,
    /// The run's instruction mix and memory traffic as the estimate reads them (launch shape
    /// filled in by [`Report::new`]; in JSON as `time.work`).
    #[serde(skip)]
    pub work: KernelWork,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineChange {
    pub line: u32,
    pub before: String,
    pub after: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedLine {
    pub line: u32,
    pub instruction: String,
    pub reason: String,
}

/// How a variant's output buffers compare with the baseline's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputCheck {
    /// `baseline`, `identical` or `different`.
    pub status: String,
    pub differences: Vec<BufferDiff>,
}

impl OutputCheck {
    pub fn baseline() -> Self {
        OutputCheck {
            status: "baseline".into(),
            differences: Vec::new(),
        }
    }

    /// A variant run in counters-only mode: its outputs were not computed, so not compared.
    pub fn not_computed() -> Self {
        OutputCheck {
            status: "not computed".into(),
            differences: Vec::new(),
        }
    }

    pub fn from_diffs(differences: Vec<BufferDiff>) -> Self {
        OutputCheck {
            status: if differences.is_empty() {
                "identical"
            } else {
                "different"
            }
            .into(),
            differences,
        }
    }

    pub fn is_different(&self) -> bool {
        !self.differences.is_empty()
    }
}

/// A buffer argument whose bytes differ from the baseline's after the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BufferDiff {
    /// Zero-based kernel argument index.
    pub arg: usize,
    /// The element type the buffer was given with.
    pub element_type: String,
    pub elements: usize,
    pub elements_differing: usize,
    pub first_index: usize,
    pub baseline_value: String,
    pub variant_value: String,
}

/// Figures of the run itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunInfo {
    pub warp_instructions: u64,
    pub thread_instructions: u64,
    pub cp_async_bytes: u64,
    /// Stale L1 reads the interpreter observed (lanes).
    pub stale_reads: u64,
    /// CTAs per SM the interpreter kept resident: registers per thread and their source, the
    /// limit per resource and the binding one (`ptx_exec::residency`).
    #[serde(default)]
    pub residency: Option<ptx_exec::Residency>,
    /// CTAs resident at once over the whole GPU.
    #[serde(default)]
    pub resident_ctas: u64,
}

/// The memsys counters of each level (names as in memsys `LevelCounters`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Levels {
    pub l1: LevelCounters,
    pub l2: LevelCounters,
    pub dram: DramCounters,
}

/// Where a `.loc` points.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceLoc {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

impl LineRow {
    /// The source line a person wrote: the outermost call site of inlined code, else the
    /// `.loc`.
    pub fn user_source(&self) -> Option<&SourceLoc> {
        self.call_site
            .as_ref()
            .or(self.inlined_at.as_ref())
            .or(self.source.as_ref())
    }

    /// `k.cu:26`, or `k.cu:26 (in annotated_ptr.h:64)` for inlined library code; `-` without
    /// line information.
    pub fn where_text(&self) -> String {
        where_text(self.user_source(), self.source.as_ref())
    }
}

/// `site (in inner)` when the two differ (inlined code), else `site`; `-` without either.
pub fn where_text(site: Option<&SourceLoc>, inner: Option<&SourceLoc>) -> String {
    match (site, inner) {
        (Some(s), Some(i)) if (&s.file, s.line) != (&i.file, i.line) => {
            format!("{} (in {})", s.short(), i.short())
        }
        (Some(s), _) | (None, Some(s)) => s.short(),
        (None, None) => "-".into(),
    }
}

impl SourceLoc {
    /// `file.py:147` with the file's base name.
    pub fn short(&self) -> String {
        let base = self.file.rsplit(['/', '\\']).next().unwrap_or(&self.file);
        format!("{base}:{}", self.line)
    }
}

/// One PTX line's counters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LineRow {
    pub ptx_line: u32,
    pub function: String,
    /// The instruction(s) on the line, as the module has them.
    pub text: String,
    /// The `.loc` in force (for inlined code, the inlined function's line).
    pub source: Option<SourceLoc>,
    /// The call site of inlined code (`.loc …, inlined_at FILE LINE COL`): the user's line
    /// when `source` is in a header or library (`__ldg`, `tl.sum`).
    pub inlined_at: Option<SourceLoc>,
    /// The outermost frame of the `inlined_at` chain (an `inlined_at` names an earlier `.loc`
    /// that may itself be inlined): the line in the user's code for library code inlined
    /// through several headers (`cuda::memcpy_async`). Equal to `source` when the line is not
    /// inlined; `None` only without a `.loc`.
    #[serde(default)]
    pub call_site: Option<SourceLoc>,
    /// Thread-instructions executed.
    pub executions: u64,
    pub metrics: MetricValues,
}

/// One source line's counters, summed over the PTX lines whose `.loc` names it (or, for
/// inlined code, whose outermost call site is this line).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceRow {
    pub file: String,
    pub line: u32,
    pub ptx_lines: Vec<u32>,
    pub metrics: MetricValues,
}

/// L2 lines by eviction class over the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    /// Memory requests between recorded samples (0: no timeline was recorded).
    pub interval_requests: u64,
    pub samples: Vec<OccupancySample>,
    /// L2 lines by class at the end of the run.
    pub end: OccupancySample,
}

/// The counters of one SM-summed set plus DRAM: `true` when anything happened.
fn active(c: &Counters) -> bool {
    *c != Counters::default()
}

/// One source line's sums while a report is built: counters, thread-instructions, its PTX
/// lines and their instruction ids (for the sector tallies).
type SourceSums = (Counters, u64, Vec<u32>, Vec<usize>);

/// Builds a variant's report from its run. `stats` are the memory system's statistics after
/// the launch (one launch per session), `summary` what the launch returned.
pub fn variant_report(
    name: &str,
    rewrite: Option<&str>,
    source_text: Option<&str>,
    program: &Program,
    stats: &Stats,
    summary: &RunSummary,
    timeline_interval: u64,
) -> VariantReport {
    let total = stats.total();
    let work = timing::work_of(program, summary, &total);
    let run = RunFigures {
        warp_instructions: summary.warp_instructions,
        thread_instructions: summary.thread_instructions,
        cp_async_bytes: summary.cp_async_bytes,
    };
    // Per PTX line: sum the instructions of the line (usually one).
    let mut by_line: BTreeMap<u32, (Counters, u64, Vec<usize>)> = BTreeMap::new();
    for (id, info) in program.instrs.iter().enumerate() {
        let c = stats.per_instr.get(id).copied().unwrap_or_default();
        if !active(&c) {
            continue;
        }
        let execs = summary.per_instruction.get(id).copied().unwrap_or(0);
        let e = by_line.entry(info.ptx_line).or_default();
        e.0 += &c;
        e.1 += execs;
        e.2.push(id);
    }
    let locations = source_text.map(line_locations).unwrap_or_default();
    let loc = |(file, line, column): LocTriple| SourceLoc {
        file: program
            .files
            .get(&file)
            .cloned()
            .unwrap_or_else(|| format!("file {file}")),
        line,
        column,
    };
    let sectors = |ids: &[usize]| {
        ids.iter()
            .filter_map(|&i| summary.per_instruction_sectors.get(i))
            .fold((0, 0), |(r, i), t| (r + t.requested, i + t.ideal))
    };
    let mut lines = Vec::new();
    let mut by_source: BTreeMap<(String, u32), SourceSums> = BTreeMap::new();
    for (ptx_line, (c, execs, ids)) in &by_line {
        let info = &program.instrs[ids[0]];
        // The `.loc` chain from the text when given, else the lowering's one `.loc` (which is
        // already the call site of inlined code).
        let (source, inlined_at, call_site) = match locations.get(ptx_line) {
            Some(l) => (
                Some(loc(l.loc)),
                l.inlined_at.map(loc),
                Some(loc(l.call_site)),
            ),
            None => {
                let s = info.loc.map(loc);
                (s.clone(), None, s)
            }
        };
        if let Some(s) = &call_site {
            let e = by_source.entry((s.file.clone(), s.line)).or_default();
            e.0 += c;
            e.1 += execs;
            e.2.push(*ptx_line);
            e.3.extend(ids);
        }
        let mut metrics = metrics::per_line(c, *execs);
        let (requested, ideal) = sectors(ids);
        metrics::with_sectors(&mut metrics, requested, ideal);
        lines.push(LineRow {
            ptx_line: *ptx_line,
            function: info.function.clone(),
            text: ids
                .iter()
                .map(|&i| program.instrs[i].text.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            source,
            inlined_at,
            call_site,
            executions: *execs,
            metrics,
        });
    }
    let source_lines = by_source
        .into_iter()
        .map(|((file, line), (c, execs, ptx_lines, ids))| {
            let mut metrics = metrics::per_line(&c, execs);
            let (requested, ideal) = sectors(&ids);
            metrics::with_sectors(&mut metrics, requested, ideal);
            SourceRow {
                file,
                line,
                ptx_lines,
                metrics,
            }
        })
        .collect();
    let mut totals = metrics::totals(&total, &run);
    let (requested, ideal) = summary
        .per_instruction_sectors
        .iter()
        .fold((0, 0), |(r, i), t| (r + t.requested, i + t.ideal));
    metrics::with_sectors(&mut totals, requested, ideal);
    let mut ranked: Vec<(u64, u32)> = by_line
        .iter()
        .map(|(l, (c, _, _))| (c.dram.bytes_read + c.dram.bytes_written, *l))
        .filter(|(b, _)| *b > 0)
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let top_dram_lines = ranked.iter().take(TOP_LINES).map(|(_, l)| *l).collect();
    VariantReport {
        name: name.to_string(),
        rewrite: rewrite.map(str::to_string),
        baseline: rewrite.is_none(),
        changes: Vec::new(),
        skipped: Vec::new(),
        changes_not_launched: 0,
        outputs: OutputCheck::baseline(),
        run: RunInfo {
            warp_instructions: summary.warp_instructions,
            thread_instructions: summary.thread_instructions,
            cp_async_bytes: summary.cp_async_bytes,
            stale_reads: summary.stale_reads.len() as u64,
            residency: summary.residency.clone(),
            resident_ctas: summary.resident_ctas,
        },
        totals,
        levels: Levels {
            l1: total.l1,
            l2: total.l2,
            dram: total.dram,
        },
        lines,
        source_lines,
        top_dram_lines,
        l2_timeline: Timeline {
            interval_requests: timeline_interval,
            samples: thin(&stats.timeline, MAX_TIMELINE_SAMPLES),
            end: stats.l2_occupancy,
        },
        time: None,
        work,
    }
}

/// A `.loc` position: (file index, line, column).
pub type LocTriple = (u32, u32, u32);

/// Where an instruction line is in the source: the `.loc` in force, its `inlined_at` and the
/// outermost frame of the `inlined_at` chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineLocation {
    pub loc: LocTriple,
    pub inlined_at: Option<LocTriple>,
    /// `loc` when not inlined.
    pub call_site: LocTriple,
}

/// PTX line → where it is in the source, for every instruction line under a `.loc` (tracked as
/// the lowering does: in statement order, reset per function).
///
/// nvcc writes one `.loc` per inlined frame, innermost last, each naming its caller's position
/// (`.loc 2 1620 1, …, inlined_at 2 1649 1` after `.loc 2 1649 1, …, inlined_at 1 16 5`), so
/// the call site of a position is that of the latest earlier `.loc` at it (ptxas requires one:
/// "Source location … used in inlined_at directive must be used in a preceding .loc").
pub fn line_locations(source: &str) -> BTreeMap<u32, LineLocation> {
    use ptx_syntax::ast::{Block, Statement};
    struct Walk<'a> {
        lines: &'a ptx_syntax::LineIndex,
        cur: Option<LineLocation>,
        /// Position → the call site of the latest `.loc` there.
        sites: BTreeMap<LocTriple, LocTriple>,
        out: BTreeMap<u32, LineLocation>,
    }
    impl Walk<'_> {
        fn block(&mut self, b: &Block) {
            for s in &b.statements {
                match s {
                    Statement::Loc(l) => {
                        let loc = (l.file, l.line, l.column);
                        // The caller's own call site, or the caller when it is not inlined
                        // (or its `.loc` is missing).
                        let call_site = l
                            .inlined_at
                            .map_or(loc, |at| self.sites.get(&at).copied().unwrap_or(at));
                        self.sites.insert(loc, call_site);
                        self.cur = Some(LineLocation {
                            loc,
                            inlined_at: l.inlined_at,
                            call_site,
                        });
                    }
                    Statement::Block(inner) => self.block(inner),
                    Statement::Instruction(i) => {
                        if let Some(at) = self.cur {
                            self.out.insert(self.lines.line(i.span.start), at);
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    let (module, _) = ptx_syntax::parse_recovering(source);
    let lines = ptx_syntax::LineIndex::new(source);
    let mut w = Walk {
        lines: &lines,
        cur: None,
        sites: BTreeMap::new(),
        out: BTreeMap::new(),
    };
    for f in module.functions() {
        if let Some(body) = &f.body {
            w.cur = None;
            w.sites.clear();
            w.block(body);
        }
    }
    w.out
}

/// Keeps at most `max` samples, evenly spaced, always keeping the last.
fn thin(samples: &[OccupancySample], max: usize) -> Vec<OccupancySample> {
    if samples.len() <= max || max < 2 {
        return samples.to_vec();
    }
    let n = samples.len();
    (0..max).map(|k| samples[k * (n - 1) / (max - 1)]).collect()
}

impl VariantReport {
    /// Keeps the changed and skipped lines among `launched` (the PTX lines of the launched
    /// kernel and the functions it calls), counting the changes dropped: a rewrite of a
    /// module applies to every kernel in it, and a comparison is of the one launched.
    pub fn keep_launched_lines(&mut self, launched: &std::collections::BTreeSet<u32>) {
        let before = self.changes.len();
        self.changes.retain(|c| launched.contains(&c.line));
        self.changes_not_launched += (before - self.changes.len()) as u32;
        self.skipped.retain(|s| launched.contains(&s.line));
    }

    /// Completes the variant's work with the launch shape and the set-aside, estimates its
    /// time and adds `gpu__time_duration.sum` to its totals.
    pub fn estimate_time(&mut self, launch: &LaunchInfo, gpu: &GpuInfo) {
        let w = &mut self.work;
        w.ctas = launch.grid.iter().map(|&d| u64::from(d.max(1))).product();
        w.threads_per_cta = launch.block.iter().map(|&d| d.max(1)).product();
        match &self.run.residency {
            Some(r) => {
                w.shared_bytes_per_cta = r.shared_bytes_per_cta;
                w.registers_per_thread = r.registers_per_thread;
            }
            None => w.shared_bytes_per_cta = launch.cta_shared_bytes(),
        }
        w.setaside_bytes = gpu.persisting_l2_bytes;
        w.l2_size_bytes = gpu.l2_bytes;
        w.sector_bytes = u64::from(gpu.sector_bytes);
        let t = timing::estimate(
            w,
            timing::Gpu {
                timing: &gpu.timing,
                occupancy: &gpu.occupancy,
                shared_bytes_per_block: gpu.shared_bytes_per_block,
                sm_count: gpu.sm_count,
                latencies: timing::Latencies {
                    l1: gpu.l1_latency_cycles,
                    l2: gpu.l2_latency_cycles,
                    dram: gpu.dram_latency_cycles,
                },
            },
        );
        self.totals.insert(
            metrics::TIME_METRIC.into(),
            Some(MetricValue::Count(t.ns.round() as u64)),
        );
        self.time = Some(t);
    }
}

impl Report {
    /// A report of `variants` (the first is the baseline) of one launch.
    pub fn new(
        command: &str,
        launch: LaunchInfo,
        gpu: GpuInfo,
        mut variants: Vec<VariantReport>,
    ) -> Report {
        for v in &mut variants {
            v.estimate_time(&launch, &gpu);
        }
        Report {
            format: FORMAT.into(),
            version: SCHEMA_VERSION,
            command: command.into(),
            tool: format!("ptxsim {}", env!("CARGO_PKG_VERSION")),
            launch,
            gpu,
            metrics: metrics::metric_infos(),
            variants,
            ncu: None,
            suggestions: None,
            steps: None,
        }
    }

    /// Pretty JSON (the schema in docs/report.schema.json).
    pub fn to_json(&self) -> String {
        // Serialising plain data with string keys cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// The variants with a time estimate, fastest first (ties keep the report's order).
    pub fn ranked_by_time(&self) -> Vec<&VariantReport> {
        let mut v: Vec<&VariantReport> =
            self.variants.iter().filter(|v| v.time.is_some()).collect();
        v.sort_by(|a, b| {
            let t = |x: &VariantReport| x.time.as_ref().map_or(0.0, |t| t.ns);
            t(a).total_cmp(&t(b))
        });
        v
    }

    /// Whether any variant's outputs differ from the baseline's.
    pub fn has_differences(&self) -> bool {
        self.variants.iter().any(|v| v.outputs.is_different())
    }
}

/// Compares a variant's buffer with the baseline's byte for byte (so `-0.0` differs from `0.0`
/// and NaN payloads count); returns the difference, if any, by element of `ty`.
pub fn diff_buffer(
    arg: usize,
    ty: ScalarType,
    baseline: &[u8],
    variant: &[u8],
) -> Option<BufferDiff> {
    if baseline == variant {
        return None;
    }
    let n = (ty.bytes() as usize).max(1);
    let elements = baseline.len().max(variant.len()).div_ceil(n);
    let mut differing = 0;
    let mut first = None;
    for i in 0..elements {
        let a = baseline.get(i * n..((i + 1) * n).min(baseline.len()));
        let b = variant.get(i * n..((i + 1) * n).min(variant.len()));
        if a != b {
            differing += 1;
            first.get_or_insert((i, a, b));
        }
    }
    let (first_index, a, b) = first?;
    Some(BufferDiff {
        arg,
        element_type: ty.token().trim_start_matches('.').to_string(),
        elements,
        elements_differing: differing,
        first_index,
        baseline_value: a.map_or("(missing)".into(), |a| format_element(ty, a)),
        variant_value: b.map_or("(missing)".into(), |b| format_element(ty, b)),
    })
}

/// One element as a number of its type (raw hex for other widths).
pub fn format_element(ty: ScalarType, bytes: &[u8]) -> String {
    let mut raw = [0u8; 8];
    let k = bytes.len().min(8);
    raw[..k].copy_from_slice(&bytes[..k]);
    let v = u64::from_le_bytes(raw);
    let exact = bytes.len() == ty.bytes() as usize;
    match ty {
        ScalarType::F32 if exact => format!("{:?}", f32::from_bits(v as u32)),
        ScalarType::F64 if exact => format!("{:?}", f64::from_bits(v)),
        ScalarType::F16 if exact => format!("{}", half::f16::from_bits(v as u16)),
        ScalarType::Bf16 if exact => format!("{}", half::bf16::from_bits(v as u16)),
        ScalarType::S8 if exact => format!("{}", v as u8 as i8),
        ScalarType::S16 if exact => format!("{}", v as u16 as i16),
        ScalarType::S32 if exact => format!("{}", v as u32 as i32),
        ScalarType::S64 if exact => format!("{}", v as i64),
        ScalarType::U8 | ScalarType::U16 | ScalarType::U32 | ScalarType::U64 if exact => {
            format!("{v}")
        }
        _ => format!("{v:#x}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_differ_bitwise() {
        let a = 0.0f32.to_le_bytes().repeat(4);
        assert_eq!(diff_buffer(0, ScalarType::F32, &a, &a), None);
        let mut b = a.clone();
        b[8..12].copy_from_slice(&(-0.0f32).to_le_bytes());
        let d = diff_buffer(2, ScalarType::F32, &a, &b).unwrap();
        assert_eq!(d.arg, 2);
        assert_eq!(d.elements, 4);
        assert_eq!(d.elements_differing, 1);
        assert_eq!(d.first_index, 2);
        assert_eq!(d.baseline_value, "0.0");
        assert_eq!(d.variant_value, "-0.0");
        assert_eq!(d.element_type, "f32");
    }

    /// nvcc's two-level inlining (`__hmax` → `__internal_…` in cuda_fp16.hpp) in the corpus:
    /// line 103's `max.f16` is at cuda_fp16.hpp:1620, inlined at 1649, itself inlined at the
    /// user's half_math.cu:16.
    #[test]
    fn call_sites_follow_the_inlined_at_chain() {
        let text = include_str!("../../../tests/corpus/nvcc/half_math.lineinfo.sm90.ptx");
        let at = line_locations(text);
        let l = at[&103];
        assert_eq!(l.loc, (2, 1620, 1));
        assert_eq!(l.inlined_at, Some((2, 1649, 1)));
        assert_eq!(l.call_site, (1, 16, 5));
        // One level (line 94's fma at cuda_fp16.hpp:2701, inlined at half_math.cu:15).
        let l = at[&94];
        assert_eq!((l.inlined_at, l.call_site), (Some((1, 15, 5)), (1, 15, 5)));
        // Not inlined: the call site is the `.loc`.
        let l = at[&98];
        assert_eq!(
            (l.loc, l.inlined_at, l.call_site),
            ((1, 15, 5), None, (1, 15, 5))
        );
    }

    #[test]
    fn where_text_names_the_call_site_and_the_library_line() {
        let at = |file: &str, line| SourceLoc {
            file: file.into(),
            line,
            column: 1,
        };
        let user = at("/src/k.cu", 26);
        let lib = at("/usr/include/cuda/annotated_ptr.h", 64);
        assert_eq!(
            where_text(Some(&user), Some(&lib)),
            "k.cu:26 (in annotated_ptr.h:64)"
        );
        assert_eq!(where_text(Some(&user), Some(&user)), "k.cu:26");
        assert_eq!(where_text(None, None), "-");
    }

    #[test]
    fn thinning_keeps_ends_and_bound() {
        let s: Vec<OccupancySample> = (0..1000)
            .map(|i| OccupancySample {
                request: i,
                ..Default::default()
            })
            .collect();
        let t = thin(&s, 400);
        assert_eq!(t.len(), 400);
        assert_eq!(t[0].request, 0);
        assert_eq!(t[399].request, 999);
        assert!(t.windows(2).all(|w| w[0].request < w[1].request));
    }
}
