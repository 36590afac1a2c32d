//! `advise` and `compare` on a multi-step launch file: the whole launch (every step, memsets and copies
//! included) runs for the original and for every rewrite the rules suggest, each in a fresh
//! memory system; the rules read each kernel step's counters, and a rewrite's figures are
//! those of the whole launch (time and DRAM bytes summed over the kernel steps, the buffers
//! compared after the last step), as `compare` compares one-kernel launches.

use super::{read_only_lines, RunError};
use crate::launch::{prepare_steps, session_from_source_with, LaunchFile, PreparedStep};
use crate::point::{self, OutputBuffer, Variant};
use ptx_exec::{LaunchConfig, RunSummary};
use ptxsim_report::advise::{self as rules, Measured, Suggestion};
use ptxsim_report::{GpuInfo, LaunchInfo, Report, StepReport, VariantReport};
use std::collections::BTreeMap;
use std::path::Path;

/// Runs step `i` of prepared steps (the CLI's shows progress): `None` for a memset or copy.
pub type StepRunner<'a> = &'a (dyn Fn(
    &mut crate::launch::PreparedSteps,
    usize,
    &LaunchConfig,
    &str,
) -> Result<Option<RunSummary>, String>
         + Sync);

/// The plain run of one step.
pub fn plain_step(
    p: &mut crate::launch::PreparedSteps,
    i: usize,
    config: &LaunchConfig,
    _: &str,
) -> Result<Option<RunSummary>, String> {
    p.run_step(i, config).map_err(|e| e.to_string())
}

/// A multi-step launch to run under variants of its module.
pub struct StepsLaunch<'a> {
    /// The module's path (named in messages).
    pub ptx: &'a Path,
    /// The module's text.
    pub source: &'a str,
    pub gpu: memsys::GpuConfig,
    pub file: &'a LaunchFile,
    /// The directory the file's paths are relative to.
    pub base: &'a Path,
    /// Seed, step and time limits, threads, registers (each step sets its grid and block).
    pub config: LaunchConfig,
    /// ptxas `--fmad`.
    pub fmad: bool,
    /// Write back and empty L2 before each kernel step (Nsight Compute's `--cache-control
    /// all`, `run`'s default); false keeps L2 from step to step.
    pub flush_l2: bool,
    pub runner: StepRunner<'a>,
}

/// One kernel step of a finished run.
struct RanStep {
    step: usize,
    what: String,
    kernel: String,
    launch: LaunchInfo,
    report: VariantReport,
    read_only: BTreeMap<u32, bool>,
}

/// A rewrite's run: its report of each kernel step, and its outputs against the original's
/// (`identical` or `different`).
type RewriteRun = (Vec<VariantReport>, String);

/// A finished run of the whole launch.
struct RanSteps {
    steps: Vec<RanStep>,
    /// Every buffer after the last step.
    buffers: Vec<OutputBuffer>,
}

impl StepsLaunch<'_> {
    /// Runs every step of `variant`; `record` records each kernel step's requests to find
    /// its read-only load lines.
    fn run(&self, variant: &Variant, record: bool) -> Result<RanSteps, RunError> {
        let named = |m: String| format!("variant `{}`: {m}", variant.name);
        let mut prepared = session_from_source_with(
            self.ptx,
            &variant.rewritten.text,
            self.gpu.clone(),
            self.fmad,
        )
        .and_then(|s| prepare_steps(s, self.file, self.base))
        .and_then(|p| p.check_runnable(self.ptx).map(|()| p))
        .map_err(|e| RunError {
            message: named(e.to_string()),
            usage: true,
        })?;
        let mut config = self.config.clone();
        config.cache_model = true;
        let gpu_info = GpuInfo::from_config(&self.gpu);
        let mut steps = Vec::new();
        for i in 0..prepared.steps.len() {
            let what = prepared.steps[i].describe();
            let kernel_step = match &prepared.steps[i] {
                PreparedStep::Launch {
                    kernel,
                    grid,
                    block,
                    shared,
                    window,
                    ..
                } => Some((kernel.clone(), *grid, *block, *shared, *window)),
                _ => None,
            };
            if kernel_step.is_some() && self.flush_l2 {
                prepared.session.mem.invalidate_l2();
            }
            prepared.session.mem.reset_stats();
            prepared.session.mem.record_trace(record);
            let summary =
                (self.runner)(&mut prepared, i, &config, &variant.name).map_err(|m| RunError {
                    message: named(format!("step {i} ({what}): {m}")),
                    usage: false,
                })?;
            let trace = prepared.session.mem.take_recorded();
            prepared.session.mem.record_trace(false);
            let (Some(summary), Some((kernel, grid, block, shared, window))) =
                (summary, kernel_step)
            else {
                continue;
            };
            let program = &prepared.session.program;
            let launch = LaunchInfo {
                ptx: self.ptx.display().to_string(),
                kernel: kernel.clone(),
                grid,
                block,
                shared_bytes: shared,
                static_shared_bytes: program.static_shared_bytes,
                seed: config.seed,
                access_policy_window: config
                    .access_policy_window
                    .or(window)
                    .map(|w| LaunchInfo::window_text(&w)),
                persisting_reset_lines: None,
            };
            let mut report =
                variant.report(&prepared.session, &summary, self.gpu.timeline_interval);
            report.keep_launched_lines(&point::launched_lines(program, &kernel));
            report.estimate_time(&launch, &gpu_info);
            steps.push(RanStep {
                step: i,
                what,
                kernel,
                launch,
                report,
                read_only: read_only_lines(program, &trace),
            });
        }
        if steps.is_empty() {
            return Err(RunError {
                message: "the launch file has no kernel step (only memsets and copies)".into(),
                usage: true,
            });
        }
        let buffers = point::step_buffers(&prepared)?;
        Ok(RanSteps { steps, buffers })
    }

    /// `advise` over the whole launch: the rules on each kernel step of the original's run,
    /// then a run of every rewrite they suggest. The report (`command: "advise"`) has every
    /// kernel step in `steps` (its `launch` and `variants` repeat the first) and the
    /// suggestions, each naming its step and kernel.
    pub fn advise(&self) -> Result<Report, RunError> {
        let base = self.run(&Variant::original(self.source), true)?;
        let mut suggestions: Vec<Suggestion> = Vec::new();
        for st in &base.steps {
            for mut g in rules::advise(&st.report, &st.read_only) {
                g.step = Some(st.step);
                g.kernel = Some(st.kernel.clone());
                suggestions.push(g);
            }
        }
        // Each rewrite's run: its name, and its step reports (or why it could not run).
        let mut runs: Vec<(String, Result<RewriteRun, String>)> = Vec::new();
        for g in &suggestions {
            let Some(spec) = g.rewrite.clone() else {
                continue;
            };
            let name = spec.split_once('=').map_or("", |s| s.0).to_string();
            if runs.iter().any(|(n, _)| *n == name) {
                continue; // A rewrite two suggestions share runs once.
            }
            let ran = Variant::parse(&spec, self.source, self.ptx)
                .map_err(|message| RunError {
                    message,
                    usage: true,
                })
                .and_then(|v| self.run(&v, false));
            runs.push((
                name,
                ran.map(|r| rewrite_run(&base, r)).map_err(|e| e.message),
            ));
        }
        let steps = step_reports(&base, &runs);
        for g in &mut suggestions {
            let Some(name) = g
                .rewrite
                .as_deref()
                .and_then(|s| s.split_once('='))
                .map(|s| s.0)
            else {
                continue;
            };
            g.measured = match runs.iter().find(|(n, _)| n == name) {
                Some((_, Ok((reports, status)))) => {
                    let pairs: Vec<(&VariantReport, &VariantReport)> =
                        steps.iter().map(|s| &s.variants[0]).zip(reports).collect();
                    Measured::over_steps(&pairs, status)
                }
                Some((_, Err(e))) => Measured {
                    error: Some(e.clone()),
                    ..Measured::default()
                },
                None => Measured::default(),
            };
        }
        let mut report = self.report("advise", steps);
        report.suggestions = Some(suggestions);
        Ok(report)
    }

    /// `compare` over the whole launch: the original then every variant of `specs`
    /// (`NAME=REWRITE`), each running every step; each kernel step's counters per variant in
    /// `steps`, the outputs (every buffer after the last step) against the original's.
    pub fn compare(&self, specs: &[String]) -> Result<Report, RunError> {
        let variants =
            point::variants(specs, self.source, self.ptx).map_err(|message| RunError {
                message,
                usage: true,
            })?;
        let base = self.run(&variants[0], false)?;
        let mut runs = Vec::new();
        for v in &variants[1..] {
            runs.push((v.name.clone(), Ok(rewrite_run(&base, self.run(v, false)?))));
        }
        Ok(self.report("compare", step_reports(&base, &runs)))
    }

    /// The report of `steps`: `launch` and `variants` those of the first kernel step.
    fn report(&self, command: &str, steps: Vec<StepReport>) -> Report {
        let first = &steps[0];
        let mut report = Report::new(
            command,
            first.launch.clone(),
            GpuInfo::from_config(&self.gpu),
            first.variants.clone(),
        );
        report.steps = Some(steps);
        report
    }
}

/// A rewrite's finished run: its step reports, each with the launch's outputs against the
/// original's.
fn rewrite_run(base: &RanSteps, ran: RanSteps) -> RewriteRun {
    let outputs = point::output_check(&base.buffers, &ran.buffers);
    let status = outputs.status.clone();
    let reports = ran
        .steps
        .into_iter()
        .map(|mut s| {
            s.report.outputs = outputs.clone();
            s.report
        })
        .collect();
    (reports, status)
}

/// Each kernel step with the original's report and every rewrite's that ran.
fn step_reports(base: &RanSteps, runs: &[(String, Result<RewriteRun, String>)]) -> Vec<StepReport> {
    let mut steps: Vec<StepReport> = base
        .steps
        .iter()
        .map(|s| StepReport {
            step: s.step,
            what: s.what.clone(),
            launch: s.launch.clone(),
            variants: vec![s.report.clone()],
        })
        .collect();
    for (reports, _) in runs.iter().filter_map(|(_, r)| r.as_ref().ok()) {
        for (st, v) in steps.iter_mut().zip(reports) {
            st.variants.push(v.clone());
        }
    }
    steps
}
