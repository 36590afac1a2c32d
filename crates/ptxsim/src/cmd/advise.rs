//! `ptxsim advise`: runs a launch, applies the rules of `ptxsim_report::advise` to what the
//! model saw, and runs every suggested hint rewrite as a `compare` variant to report what it
//! changed (estimated time, DRAM bytes, hit rates, outputs). The experiment itself is
//! `ptxsim::advise` (shared with the Python package).

use crate::cmd::run::{
    apply_persisting_l2, emit_report, fail, gpu_config, registers_of, resolve, run_launch,
    run_launch_steps, threads_or_default, CacheControl, LaunchArgs, ReportFormat,
    REPORT_TIMELINE_INTERVAL,
};
use clap::Args as ClapArgs;
use ptx_exec::RunSummary;
use ptxsim::launch::PreparedLaunch;
use ptxsim_report::advise;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(ClapArgs)]
pub struct Args {
    #[command(flatten)]
    launch: LaunchArgs,
    /// Report format: text (the run report, then the suggestions), JSON
    /// (docs/report.schema.json, `command: "advise"`, a top-level `suggestions` array) or HTML.
    #[arg(long, value_enum, default_value = "text")]
    report: ReportFormat,
    /// Write the report to this file instead of stdout.
    #[arg(long)]
    report_out: Option<PathBuf>,
    /// Multi-step launch files: `all` (the default) writes back and empties L2 before each
    /// kernel step, as Nsight Compute does; `none` keeps L2 from step to step (as on `run`).
    /// Overrides the launch file's `cache_control`.
    #[arg(long, value_enum)]
    cache_control: Option<CacheControl>,
}

/// Runs a variant with the progress display and a status line on stderr.
fn run_with_progress(p: &mut PreparedLaunch, name: &str) -> Result<RunSummary, String> {
    let (summary, elapsed) = run_launch(p, name).map_err(|(msg, _)| msg)?;
    eprintln!(
        "ran `{}` as `{name}`: {} warp-instructions in {:.3} s",
        p.kernel,
        summary.warp_instructions,
        elapsed.as_secs_f64()
    );
    Ok(summary)
}

/// Runs step `i` of a variant with the progress display and a status line on stderr.
fn run_step_with_progress(
    p: &mut ptxsim::launch::PreparedSteps,
    i: usize,
    config: &ptx_exec::LaunchConfig,
    name: &str,
) -> Result<Option<RunSummary>, String> {
    let what = p.steps[i].describe();
    let ran = run_launch_steps(p, i, config, &format!("{name}: step {i}")).map_err(|e| e.0)?;
    Ok(ran.map(|(summary, elapsed)| {
        eprintln!(
            "ran step {i} ({what}) as `{name}`: {} warp-instructions in {:.3} s",
            summary.warp_instructions,
            elapsed.as_secs_f64()
        );
        summary
    }))
}

/// `f` (`advise` or `compare`) on a multi-step launch file (`[[buffer]]`, `[[step]]`) with the
/// launch options resolved as `run` resolves them; an error is its message and exit code.
pub(crate) fn on_steps(
    launch: &LaunchArgs,
    file: &ptxsim::launch::LaunchFile,
    base: &std::path::Path,
    flush_l2: bool,
    f: &dyn Fn(
        &ptxsim::advise::steps::StepsLaunch<'_>,
    ) -> Result<ptxsim_report::Report, ptxsim::advise::RunError>,
) -> Result<ptxsim_report::Report, (String, ExitCode)> {
    let usage = |e: String| (e, ExitCode::from(2));
    let gpu = match &file.gpu {
        Some(g) if g.ends_with(".toml") => base.join(g).display().to_string(),
        Some(g) => g.clone(),
        None => launch.gpu.clone(),
    };
    let mut gpu = gpu_config(&gpu).map_err(usage)?;
    apply_persisting_l2(&mut gpu, launch.persisting_l2, file.persisting_l2).map_err(usage)?;
    if gpu.timeline_interval == 0 {
        gpu.timeline_interval = REPORT_TIMELINE_INTERVAL;
    }
    let ptx = base.join(&file.ptx);
    let source = std::fs::read_to_string(&ptx)
        .map_err(|e| usage(format!("cannot read {}: {e}", ptx.display())))?;
    let mut config = ptx_exec::LaunchConfig {
        seed: launch.seed.unwrap_or(file.seed),
        cache_model: true,
        threads: threads_or_default(launch.threads),
        registers: registers_of(launch.registers_per_thread, None),
        ..Default::default()
    };
    if let Some(m) = launch.max_steps.or(file.max_steps) {
        config.max_steps = m;
    }
    config.timeout = match launch.timeout {
        Some(t) => Some(t),
        None => file.timeout().map_err(usage)?,
    };
    let steps = ptxsim::advise::steps::StepsLaunch {
        ptx: &ptx,
        source: &source,
        gpu,
        file,
        base,
        config,
        fmad: launch.fmad.or(file.fmad).unwrap_or(true),
        flush_l2,
        runner: &run_step_with_progress,
    };
    f(&steps).map_err(|e| (e.message, ExitCode::from(if e.usage { 2 } else { 1 })))
}

pub fn run(args: Args) -> ExitCode {
    if let Some(path) = &args.launch.launch {
        match ptxsim::launch::LaunchFile::read(path) {
            Ok((file, base)) if file.is_multi_step() => {
                let flush = CacheControl::resolve(args.cache_control, &file) == CacheControl::All;
                return match on_steps(&args.launch, &file, &base, flush, &|s| s.advise()) {
                    Ok(report) => deliver(&report, &args),
                    Err((message, code)) => {
                        eprintln!("error: {message}");
                        code
                    }
                };
            }
            Ok(_) => {}
            Err(e) => return fail(e),
        }
    }
    let mut r = match resolve(&args.launch) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    if r.gpu.timeline_interval == 0 {
        r.gpu.timeline_interval = REPORT_TIMELINE_INTERVAL;
    }
    let source = match std::fs::read_to_string(&r.ptx) {
        Ok(s) => s,
        Err(e) => return fail(format!("cannot read {}: {e}", r.ptx.display())),
    };
    if r.window.is_some() {
        return fail(
            "advise runs its rewrites without an access policy window: drop \
             --access-policy-window (or the launch file's [access_policy_window]), or compare \
             the variants with `ptxsim compare`, which takes it",
        );
    }
    let launch = ptxsim::advise::Launch {
        ptx: &r.ptx,
        source: &source,
        gpu: r.gpu.clone(),
        kernel: &r.kernel,
        specs: r.specs.clone(),
        config: r.config(true),
        fmad: r.fmad,
        runner: &run_with_progress,
    };
    let report = match launch.advise(r.launch_info_shared(0)) {
        Ok(rep) => rep,
        Err(e) => {
            eprintln!("error: {}", e.message);
            return ExitCode::from(if e.usage { 2 } else { 1 });
        }
    };
    deliver(&report, &args)
}

/// Renders the report in the asked format to `--report-out` or stdout.
fn deliver(report: &ptxsim_report::Report, args: &Args) -> ExitCode {
    let rendered = match args.report {
        ReportFormat::Text => advise::render_text(report),
        ReportFormat::Json => report.to_json(),
        ReportFormat::Html => ptxsim_report::html::render(report),
    };
    if let Err(e) = emit_report(&rendered, args.report_out.as_deref()) {
        eprintln!("error: {e}");
        return ExitCode::from(1);
    }
    if let Some(p) = &args.report_out {
        eprintln!("wrote the report to {}", p.display());
    }
    ExitCode::SUCCESS
}
