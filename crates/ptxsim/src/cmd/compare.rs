//! `ptxsim compare`: the same launch under hint rewrites, side by side, with a check that no
//! rewrite changed any output buffer.

use crate::cmd::run::{
    check_expects, emit_report, fail, resolve, run_launch, LaunchArgs, ReportFormat,
    REPORT_TIMELINE_INTERVAL,
};
use clap::Args as ClapArgs;
use ptxsim::point;
use ptxsim_report::{GpuInfo, Report};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(ClapArgs)]
pub struct Args {
    #[command(flatten)]
    launch: LaunchArgs,
    /// A variant: NAME=REWRITE, e.g. `no-hints=strip-hints`, `ef=loads=evict_first`,
    /// `l42=line:42=.L2::evict_last`, `half=policy=fraction:0.5:evict_last`, `cg=cp.async=cg`;
    /// join rewrites with `+`. The original always runs first as the baseline.
    #[arg(long = "variant", required = true)]
    variants: Vec<String>,
    /// Report format: the comparison table (text), JSON (docs/report.schema.json) or HTML.
    #[arg(long, value_enum, default_value = "text")]
    report: ReportFormat,
    /// Write the report to this file (the table still goes to stdout).
    #[arg(long)]
    report_out: Option<PathBuf>,
    /// Also write each variant's rewritten PTX to DIR/NAME.ptx (same lines as the original).
    #[arg(long, value_name = "DIR")]
    emit_ptx: Option<PathBuf>,
    #[command(flatten)]
    ncu: super::ncu::NcuArgs,
    #[command(flatten)]
    steps: StepArgs,
}

/// Options of multi-step launch files.
#[derive(ClapArgs)]
pub struct StepArgs {
    /// Multi-step launch files: `all` (the default) writes back and empties L2 before each
    /// kernel step, as Nsight Compute does; `none` keeps L2 from step to step (as on `run`).
    /// Overrides the launch file's `cache_control`.
    #[arg(long, value_enum)]
    cache_control: Option<super::run::CacheControl>,
}

/// `compare` of a multi-step launch file: every variant runs the whole launch; one report
/// with each kernel step's counters (text: a table per step).
fn compare_steps(
    args: &Args,
    file: &ptxsim::launch::LaunchFile,
    base: &std::path::Path,
) -> ExitCode {
    if args.ncu.ncu_csv.is_some() || args.emit_ptx.is_some() {
        return fail(
            "--ncu-csv and --emit-ptx take a one-kernel launch, not a multi-step launch file",
        );
    }
    let flush = super::run::CacheControl::resolve(args.steps.cache_control, file)
        == super::run::CacheControl::All;
    let specs = args.variants.clone();
    let report =
        match super::advise::on_steps(&args.launch, file, base, flush, &|s| s.compare(&specs)) {
            Ok(r) => r,
            Err((message, code)) => {
                eprintln!("error: {message}");
                return code;
            }
        };
    let mut table = String::new();
    for st in report.steps.iter().flatten() {
        table.push_str(&format!("== step {}: {}\n", st.step, st.what));
        table.push_str(&ptxsim_report::text::render_compare(&st.as_report(&report)));
        table.push('\n');
    }
    deliver(&report, &table, args)
}

pub fn run(args: Args) -> ExitCode {
    if let Some(path) = &args.launch.launch {
        match ptxsim::launch::LaunchFile::read(path) {
            Ok((file, base)) if file.is_multi_step() => return compare_steps(&args, &file, &base),
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
    let ncu = match args.ncu.load(&r.kernel) {
        Ok(n) => n,
        Err(e) => return fail(e),
    };
    let source = match std::fs::read_to_string(&r.ptx) {
        Ok(s) => s,
        Err(e) => return fail(format!("cannot read {}: {e}", r.ptx.display())),
    };
    // Parse and apply every rewrite before running anything.
    let variants = match point::variants(&args.variants, &source, &r.ptx) {
        Ok(v) => v,
        Err(e) => return fail(e),
    };

    if let Some(dir) = &args.emit_ptx {
        let written = std::fs::create_dir_all(dir).and_then(|_| {
            variants.iter().skip(1).try_for_each(|v| {
                ptxsim::output::write_atomic(
                    &dir.join(format!("{}.ptx", v.name)),
                    v.rewritten.text.as_bytes(),
                )
            })
        });
        if let Err(e) = written {
            eprintln!("error: cannot write to {}: {e}", dir.display());
            return ExitCode::from(1);
        }
    }
    if r.counters_only {
        eprintln!(
            "counters-only: the variants' outputs are not computed, so the check that no \
             rewrite changed them and the launch file's expectations are skipped"
        );
    }
    let mut reports = Vec::new();
    let mut window_text = None;
    let mut baseline_buffers = Vec::new();
    let mut static_shared = 0;
    for (k, variant) in variants.iter().enumerate() {
        let name = &variant.name;
        let mut prepared = match point::prepare_launch(
            &r.ptx,
            &variant.rewritten.text,
            (r.gpu.clone(), r.fmad),
            &r.kernel,
            r.specs.clone(),
            r.config(true),
        )
        .and_then(|mut p| p.apply_window(r.window.as_ref()).map(|()| p))
        {
            Ok(p) => p,
            Err(e) => return fail(format!("variant `{name}`: {e}")),
        };
        window_text = prepared
            .config
            .access_policy_window
            .map(|w| ptxsim_report::LaunchInfo::window_text(&w));
        let (summary, elapsed) = match run_launch(&mut prepared, name) {
            Ok(x) => x,
            Err((msg, code)) => {
                eprintln!("error: variant `{name}`: {msg}");
                return code;
            }
        };
        eprintln!(
            "ran `{}` as `{name}`: {} warp-instructions in {:.3} s{}",
            r.kernel,
            summary.warp_instructions,
            elapsed.as_secs_f64(),
            super::run::threads_text(&summary)
        );
        if let Some(line) = super::run::counters_only_line(r.counters_only, false, &summary) {
            eprintln!("variant `{name}`: {line}");
        }
        if k == 0 && !r.expects.is_empty() && !r.counters_only {
            match check_expects(&prepared, &r.expects, &r.base, &|l| eprintln!("{l}")) {
                Ok(true) => {}
                Ok(false) => {
                    eprintln!("warning: the original does not match the launch file's expectations")
                }
                Err(e) => return fail(e),
            }
        }
        let buffers = match point::launch_buffers(&prepared) {
            Ok(b) => b,
            Err(e) => return fail(e),
        };
        let mut v = variant.report(&prepared.session, &summary, r.gpu.timeline_interval);
        v.keep_launched_lines(&point::launched_lines(&prepared.session.program, &r.kernel));
        static_shared = prepared.session.program.static_shared_bytes;
        if k == 0 {
            baseline_buffers = buffers;
        } else if r.counters_only {
            v.outputs = ptxsim_report::OutputCheck::not_computed();
        } else {
            v.outputs = point::output_check(&baseline_buffers, &buffers);
        }
        reports.push(v);
    }
    let mut info = r.launch_info_shared(static_shared);
    info.access_policy_window = window_text;
    let mut report = Report::new("compare", info, GpuInfo::from_config(&r.gpu), reports);
    super::ncu::attach(&mut report, ncu.as_ref());
    let table = ptxsim_report::text::render_compare(&report);
    deliver(&report, &table, &args)
}

/// Prints the table and writes the report where `--report`/`--report-out` say; exit 1 when a
/// variant changed the outputs.
fn deliver(report: &Report, table: &str, args: &Args) -> ExitCode {
    let rendered = match args.report {
        ReportFormat::Text => table.to_string(),
        ReportFormat::Json => report.to_json(),
        ReportFormat::Html => ptxsim_report::html::render(report),
    };
    if args.report_out.is_some() || args.report == ReportFormat::Text {
        print!("{table}");
    }
    if args.report != ReportFormat::Text || args.report_out.is_some() {
        if args.report_out.is_none() && args.report != ReportFormat::Text {
            // JSON/HTML to stdout; the table went nowhere, so show the verdict on stderr.
            if report.has_differences() {
                eprint!("{table}");
            }
        }
        if let Err(e) = emit_report(&rendered, args.report_out.as_deref()) {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
        if let Some(p) = &args.report_out {
            eprintln!("wrote the report to {}", p.display());
        }
    }
    if report.has_differences() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
