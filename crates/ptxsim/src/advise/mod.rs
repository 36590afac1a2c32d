//! Running the variants of one launch and the `advise` experiment, for the CLI (`ptxsim
//! compare`, `ptxsim advise`) and the Python package (`ptxsim.compare`, `ptxsim.advise`):
//! each variant in a fresh memory system with the same inputs, its report, its buffers
//! compared with the original's; for `advise`, the rules of [`ptxsim_report::advise`] on the
//! original's run and a run of every rewrite they suggest. Multi-step launch files:
//! [`steps`].

pub mod steps;

use crate::launch::{ArgSpec, LaunchError};
use crate::point::{self, OutputBuffer, Variant};
use ptx_exec::{LaunchConfig, RunSummary};
use ptxsim_report::advise::{self as rules, Measured, Suggestion};
use ptxsim_report::{GpuInfo, LaunchInfo, Report, VariantReport};
use std::collections::BTreeMap;
use std::path::Path;

/// A one-kernel launch to run under variants of its module.
pub struct Launch<'a> {
    /// The module's path (named in messages).
    pub ptx: &'a Path,
    /// The module's text.
    pub source: &'a str,
    pub gpu: memsys::GpuConfig,
    pub kernel: &'a str,
    pub specs: Vec<ArgSpec>,
    pub config: LaunchConfig,
    /// ptxas `--fmad` the module was assembled with (false: no `mul` + `add` contraction).
    pub fmad: bool,
    /// Runs a prepared launch (the CLI's shows progress); the plain run by default.
    pub runner:
        &'a (dyn Fn(&mut crate::launch::PreparedLaunch, &str) -> Result<RunSummary, String> + Sync),
}

/// One finished run of a variant.
pub struct Ran {
    pub report: VariantReport,
    pub buffers: Vec<OutputBuffer>,
    /// Load lines → whether no store or atomic of the launch wrote a sector they read (only
    /// when the run recorded its requests).
    pub read_only: BTreeMap<u32, bool>,
    /// The module's static shared memory.
    pub static_shared: u32,
}

/// A failed run: the message, and whether the launch itself is wrong (exit 2) rather than a
/// kernel fault (exit 1).
#[derive(Debug, Clone)]
pub struct RunError {
    pub message: String,
    pub usage: bool,
}

impl From<LaunchError> for RunError {
    fn from(e: LaunchError) -> Self {
        RunError {
            message: e.message,
            usage: true,
        }
    }
}

/// Load lines → whether every sector they read is one no store or atomic of the launch
/// wrote (`ld.global.nc` requires the data to be read-only for the kernel's whole run: a
/// write after the read counts too, which the hazard checker, seeing reads after writes,
/// would miss). From the recorded requests, at sector granularity.
pub(crate) fn read_only_lines(
    program: &ptx_exec::Program,
    trace: &[memsys::replay::TraceAccess],
) -> BTreeMap<u32, bool> {
    use memsys::{AccessKind, Space};
    const SECTOR: u64 = 32;
    let sectors = |a: &memsys::replay::TraceAccess| {
        let last = (a.addr + u64::from(a.bytes.max(1)) - 1) / SECTOR;
        a.addr / SECTOR..=last
    };
    let global = |a: &&memsys::replay::TraceAccess| a.request.space == Space::Global;
    let written: std::collections::HashSet<u64> = trace
        .iter()
        .filter(global)
        .filter(|a| matches!(a.request.kind, AccessKind::Store | AccessKind::Atomic))
        .flat_map(sectors)
        .collect();
    let mut out = BTreeMap::new();
    for a in trace.iter().filter(global) {
        if a.request.kind != AccessKind::Load {
            continue;
        }
        let Some(info) = program.instrs.get(a.request.instr.0 as usize) else {
            continue;
        };
        let clean = !sectors(a).any(|s| written.contains(&s));
        *out.entry(info.ptx_line).or_insert(true) &= clean;
    }
    out
}

/// The plain run of a prepared launch.
pub fn plain_run(p: &mut crate::launch::PreparedLaunch, _: &str) -> Result<RunSummary, String> {
    p.run().map_err(|e| e.to_string())
}

impl Launch<'_> {
    /// Runs `variant`; `record` records its requests to find the read-only load lines.
    pub fn run(&self, variant: &Variant, record: bool) -> Result<Ran, RunError> {
        let mut config = self.config.clone();
        config.cache_model = true;
        let mut prepared = point::prepare_launch(
            self.ptx,
            &variant.rewritten.text,
            (self.gpu.clone(), self.fmad),
            self.kernel,
            self.specs.clone(),
            config,
        )
        .map_err(|e| RunError {
            message: format!("variant `{}`: {e}", variant.name),
            usage: true,
        })?;
        if record {
            prepared.session.mem.record_trace(true);
        }
        let summary = (self.runner)(&mut prepared, &variant.name).map_err(|m| RunError {
            message: format!("variant `{}`: {m}", variant.name),
            usage: false,
        })?;
        let buffers = point::launch_buffers(&prepared)?;
        let mut report = variant.report(&prepared.session, &summary, self.gpu.timeline_interval);
        report.keep_launched_lines(&point::launched_lines(
            &prepared.session.program,
            self.kernel,
        ));
        let trace = prepared.session.mem.take_recorded();
        prepared.session.mem.record_trace(false);
        let program = &prepared.session.program;
        Ok(Ran {
            report,
            buffers,
            read_only: read_only_lines(program, &trace),
            static_shared: program.static_shared_bytes,
        })
    }

    /// Runs the original then every variant of `specs` (`NAME=REWRITE`); each variant's
    /// `outputs` against the original's. Returns the reports, the original first, and the
    /// module's static shared memory.
    pub fn compare(&self, specs: &[String]) -> Result<(Vec<VariantReport>, u32), RunError> {
        let variants =
            point::variants(specs, self.source, self.ptx).map_err(|message| RunError {
                message,
                usage: true,
            })?;
        let mut reports = Vec::new();
        let mut baseline = Vec::new();
        let mut static_shared = 0;
        for (k, v) in variants.iter().enumerate() {
            let mut ran = self.run(v, false)?;
            if k == 0 {
                baseline = ran.buffers;
                static_shared = ran.static_shared;
            } else if self.config.counters_only {
                ran.report.outputs = ptxsim_report::OutputCheck::not_computed();
            } else {
                ran.report.outputs = point::output_check(&baseline, &ran.buffers);
            }
            reports.push(ran.report);
        }
        Ok((reports, static_shared))
    }

    /// `advise`: the original's run, the rules' suggestions, and a run of every rewrite they
    /// suggest; the report (`command: "advise"`) of `launch` on `gpu` with the original and
    /// each rewrite as variants and the suggestions with what each rewrite measured.
    pub fn advise(&self, launch: LaunchInfo) -> Result<Report, RunError> {
        let base = self.run(&Variant::original(self.source), true)?;
        let mut suggestions: Vec<Suggestion> = rules::advise(&base.report, &base.read_only);
        let mut variants = vec![base.report.clone()];
        for g in &mut suggestions {
            let Some(spec) = g.rewrite.clone() else {
                continue;
            };
            // A rewrite two rules share runs once.
            let name = spec.split_once('=').map_or("", |s| s.0).to_string();
            if variants.iter().any(|v| v.name == name) {
                continue;
            }
            let ran = Variant::parse(&spec, self.source, self.ptx)
                .map_err(|message| RunError {
                    message,
                    usage: true,
                })
                .and_then(|v| self.run(&v, false));
            match ran {
                Ok(mut ran) => {
                    ran.report.outputs = point::output_check(&base.buffers, &ran.buffers);
                    variants.push(ran.report);
                }
                Err(e) => {
                    g.measured = Measured {
                        error: Some(e.message),
                        ..Measured::default()
                    }
                }
            }
        }
        let mut launch = launch;
        launch.static_shared_bytes = base.static_shared;
        let mut report = Report::new("advise", launch, GpuInfo::from_config(&self.gpu), variants);
        // Measured once every variant's time is estimated (Report::new).
        for g in &mut suggestions {
            let Some(name) = g
                .rewrite
                .as_deref()
                .and_then(|s| s.split_once('='))
                .map(|s| s.0)
            else {
                continue;
            };
            if let Some(v) = report.variants.iter().find(|v| v.name == name) {
                g.measured = Measured::of(&report.variants[0], v);
            }
        }
        report.suggestions = Some(suggestions);
        Ok(report)
    }
}
