//! `ptxsim advise`: runs a launch, applies the rules of `ptxsim_report::advise` to what the
//! model saw, and runs every suggested hint rewrite as a `compare` variant to report what it
//! changed (estimated time, DRAM bytes, hit rates, outputs). The experiment itself is
//! `ptxsim::advise` (shared with the Python package).

use crate::cmd::run::{
    emit_report, fail, resolve, run_launch, LaunchArgs, ReportFormat, REPORT_TIMELINE_INTERVAL,
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

pub fn run(args: Args) -> ExitCode {
    if let Some(path) = &args.launch.launch {
        if let Ok((file, _)) = ptxsim::launch::LaunchFile::read(path) {
            if file.is_multi_step() {
                return fail(format!(
                    "{} is a multi-step launch file: advise takes a one-kernel launch (run a \
                     step's kernel alone)",
                    path.display()
                ));
            }
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
        runner: &run_with_progress,
    };
    let report = match launch.advise(r.launch_info_shared(0)) {
        Ok(rep) => rep,
        Err(e) => {
            eprintln!("error: {}", e.message);
            return ExitCode::from(if e.usage { 2 } else { 1 });
        }
    };
    let rendered = match args.report {
        ReportFormat::Text => advise::render_text(&report),
        ReportFormat::Json => report.to_json(),
        ReportFormat::Html => ptxsim_report::html::render(&report),
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
