//! `ptxsim run --launch FILE` for multi-step launch files (`[[buffer]]`, `[[step]]`): the
//! kernels a library's host code launches one after the other over shared buffers, with
//! memsets in between (docs/launch-format.md).

use super::run::{
    apply_persisting_l2, deliver_report, fail, gpu_config, print_device_output, run_launch_steps,
    status_line, Args, CacheControl, LaunchArgs, ReportFormat, REPORT_TIMELINE_INTERVAL,
};
use ptxsim::launch::{load_session_with, prepare_steps, read_npy, write_npy, LaunchFile};
use ptxsim::launch::{PreparedStep, PreparedSteps};
use ptxsim_report::{model, GpuInfo, LaunchInfo, Report};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub fn run(launch: &LaunchArgs, args: &Args, file: LaunchFile, base: &Path) -> ExitCode {
    if args.trace_out.is_some() || args.hazards_json.is_some() {
        return fail(
            "--trace-out and --hazards-json take one-kernel launches, not a multi-step \
             launch file",
        );
    }
    if args.report == Some(ReportFormat::Html) {
        return fail(
            "--report html takes a one-kernel launch; for a multi-step launch file use \
             --report text or --report json (one report per kernel step)",
        );
    }
    let quiet_stdout = args.report_on_stdout();
    if quiet_stdout && args.hazards {
        return fail("--hazards prints to stdout: give --report-out PATH for a JSON report");
    }
    let say = |line: String| status_line(quiet_stdout, line);
    if let Err(e) = super::run::counters_only_conflicts(args) {
        return fail(e);
    }
    let gpu = match &file.gpu {
        Some(g) if g.ends_with(".toml") => base.join(g).display().to_string(),
        Some(g) => g.clone(),
        None => launch.gpu.clone(),
    };
    let mut gpu = match gpu_config(&gpu) {
        Ok(g) => g,
        Err(e) => return fail(e),
    };
    if let Err(e) = apply_persisting_l2(&mut gpu, launch.persisting_l2, file.persisting_l2) {
        return fail(e);
    }
    if args.report.is_some() && gpu.timeline_interval == 0 {
        gpu.timeline_interval = REPORT_TIMELINE_INTERVAL;
    }
    let ptx = base.join(&file.ptx);
    let fmad = launch.fmad.or(file.fmad).unwrap_or(true);
    let mut prepared = match load_session_with(&ptx, gpu.clone(), fmad)
        .and_then(|s| prepare_steps(s, &file, base))
        .and_then(|p| p.check_runnable(&ptx).map(|()| p))
    {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let mut outputs = Vec::new();
    for o in file
        .out
        .iter()
        .map(|(i, p)| format!("{i}={}", base.join(p).display()))
        .chain(args.out.iter().cloned())
        .filter(|_| !launch.counters_only)
    {
        let Some((name, path)) = o.split_once('=') else {
            return fail(format!(
                "--out `{o}`: write NAME=PATH (a buffer of the file)"
            ));
        };
        outputs.push((name.to_string(), PathBuf::from(path)));
    }
    let mut config = ptx_exec::LaunchConfig {
        seed: launch.seed.unwrap_or(file.seed),
        cache_model: !args.no_cache_model,
        hazards: args.hazards,
        threads: crate::cmd::run::threads_or_default(launch.threads),
        registers: crate::cmd::run::registers_of(launch.registers_per_thread, None),
        counters_only: launch.counters_only,
        ..Default::default()
    };
    if launch.counters_only && !(file.out.is_empty() && file.expect.is_empty()) {
        say(
            "counters-only: the launch file's outputs and expectations are not written or \
             checked (the mode does not compute output values)"
                .into(),
        );
    }
    if let Some(m) = launch.max_steps.or(file.max_steps) {
        config.max_steps = m;
    }
    config.timeout = match launch.timeout {
        Some(t) => Some(t),
        None => match file.timeout() {
            Ok(t) => t,
            Err(e) => return fail(e),
        },
    };
    let cache_control = CacheControl::resolve(args.cache_control, &file);
    // `--access-policy-window` applies to every kernel step (a buffer name of the file).
    if let Some(w) = &launch.access_policy_window {
        match w.resolve_named(&prepared.buffers, prepared.session.mem.config()) {
            Ok(w) => config.access_policy_window = Some(w),
            Err(e) => return fail(e),
        }
    }
    let mut hazards_found = 0;
    // With --report: one run report per kernel step, each with the counters of that step
    // alone. With --cache-control all (the default) L2 is written back and emptied before
    // each kernel step, as Nsight Compute does; with none it keeps its contents.
    let source = (args.report.is_some() || args.hazards)
        .then(|| std::fs::read_to_string(&ptx).ok())
        .flatten();
    let mut reports: Vec<(String, Report)> = Vec::new();
    // Lines reset by `reset_persisting_l2` steps since the last kernel step (its report says).
    let mut resets: Option<u64> = None;
    for i in 0..prepared.steps.len() {
        let what = prepared.steps[i].describe();
        let label = format!("step {i}");
        let is_kernel = matches!(prepared.steps[i], PreparedStep::Launch { .. });
        if is_kernel && cache_control == CacheControl::All {
            prepared.session.mem.invalidate_l2();
        }
        if args.report.is_some() {
            prepared.session.mem.reset_stats();
        }
        let result = run_launch_steps(&mut prepared, i, &config, &label);
        if matches!(prepared.steps[i], PreparedStep::Launch { .. }) {
            print_device_output(&prepared.session, quiet_stdout);
        }
        if args.hazards {
            if let PreparedStep::Launch { kernel, .. } = &prepared.steps[i] {
                println!("step {i}: {what}");
                match super::hazards::report(&prepared.session, source.as_deref(), kernel, None) {
                    Ok(n) => hazards_found += n,
                    Err(e) => return fail(e),
                }
            }
        }
        match result {
            Ok(Some((s, elapsed))) => {
                say(format!(
                    "step {i}: {what}: {} warp-instructions, {} thread-instructions in {:.3} s{}",
                    s.warp_instructions,
                    s.thread_instructions,
                    elapsed.as_secs_f64(),
                    super::run::threads_text(&s)
                ));
                if let Some(line) =
                    super::run::counters_only_line(launch.counters_only, args.hazards, &s)
                {
                    say(format!("step {i}: {line}"));
                }
                if args.report.is_some() {
                    if let Some(mut report) =
                        step_report(&prepared, i, &ptx, source.as_deref(), &gpu, &config, &s)
                    {
                        report.launch.persisting_reset_lines = resets.take();
                        reports.push((format!("step {i}: {what}"), report));
                    }
                }
            }
            Ok(None) => match (&prepared.steps[i], prepared.last_reset_lines) {
                (PreparedStep::ResetPersisting, Some(n)) => {
                    *resets.get_or_insert(0) += n;
                    say(format!("step {i}: {what}: {n} lines"));
                }
                _ => say(format!("step {i}: {what}")),
            },
            Err((msg, code)) => {
                eprintln!("error: step {i} ({what}): {msg}");
                return code;
            }
        }
    }
    if let Err(code) = write_outputs(&prepared, &outputs, quiet_stdout) {
        return code;
    }
    let matched = launch.counters_only
        || match check_expectations(&prepared, &file, base, quiet_stdout) {
            Ok(m) => m,
            Err(code) => return code,
        };
    if let Some(format) = args.report {
        let text = render_step_reports(&reports, format);
        if let Err(code) = deliver_report(&text, format, args) {
            return code;
        }
    }
    if !matched {
        ExitCode::from(1)
    } else if args.fail_on_hazard && hazards_found > 0 {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    }
}

/// Writes each `--out` buffer (`.bin` raw, otherwise `.npy`).
fn write_outputs(
    prepared: &PreparedSteps,
    outputs: &[(String, PathBuf)],
    quiet_stdout: bool,
) -> Result<(), ExitCode> {
    let say = |line: String| status_line(quiet_stdout, line);
    for (name, path) in outputs {
        let out = match prepared.buffer(name) {
            Ok(a) => a,
            Err(e) => return Err(fail(format!("--out {name}: {e}"))),
        };
        let written = if path.extension().is_some_and(|e| e == "bin") {
            ptxsim::output::write_atomic(path, &out.bytes).map_err(|e| e.to_string())
        } else {
            write_npy(path, &out).map_err(|e| e.to_string())
        };
        if let Err(e) = written {
            eprintln!("error: cannot write {}: {e}", path.display());
            return Err(ExitCode::from(1));
        }
        say(format!("wrote buffer `{name}` to {}", path.display()));
    }
    Ok(())
}

/// Checks each `[[expect]]` buffer against its `.npy` within its ULP bound: `Ok(false)` when
/// one differs.
fn check_expectations(
    prepared: &PreparedSteps,
    file: &LaunchFile,
    base: &Path,
    quiet_stdout: bool,
) -> Result<bool, ExitCode> {
    let say = |line: String| status_line(quiet_stdout, line);
    let mut matched = true;
    for ex in &file.expect {
        let name = ex.buffer.as_deref().unwrap_or_default();
        let want = match read_npy(&base.join(&ex.npy)) {
            Ok(w) => w,
            Err(e) => return Err(fail(e)),
        };
        let got = match prepared.buffer(name) {
            Ok(g) => g,
            Err(e) => return Err(fail(e)),
        };
        match ptxsim::launch::compare(&got, &want, ex.max_ulp) {
            Ok(c) if c.mismatches == 0 => say(format!(
                "expect: {} matches {} ({} elements, max {} ulp, bound {})",
                ex.what(),
                ex.npy.display(),
                c.elements,
                c.max_ulp_seen,
                ex.max_ulp
            )),
            Ok(c) => {
                matched = false;
                let (i, got, want) = c.first_mismatch.unwrap_or_default();
                let shape = ptxsim::launch::npy_shape(&base.join(&ex.npy)).unwrap_or_default();
                let at = ptxsim::launch::index_text(i, &shape);
                say(format!(
                    "expect: {} differs from {} in {} of {} elements; first at {at}: got {got}, expected {want}",
                    ex.what(),
                    ex.npy.display(),
                    c.mismatches,
                    c.elements
                ));
            }
            Err(e) => return Err(fail(e)),
        }
    }
    Ok(matched)
}

/// The reports of every kernel step: a JSON array, or the text reports one after another.
fn render_step_reports(reports: &[(String, Report)], format: ReportFormat) -> String {
    match format {
        ReportFormat::Json => {
            // A JSON array of run reports (docs/report.schema.json), one per kernel step.
            let docs: Vec<String> = reports.iter().map(|(_, r)| r.to_json()).collect();
            format!("[\n{}\n]\n", docs.join(",\n").trim_end())
        }
        _ => {
            let mut text = String::new();
            for (title, r) in reports {
                text.push_str(&format!("== {title}\n"));
                text.push_str(&ptxsim_report::text::render_run(r));
                text.push('\n');
            }
            text
        }
    }
}

/// The run report of kernel step `i`, just run: its launch, and the counters since the stats
/// were reset before it (`None` if step `i` is not a kernel launch).
fn step_report(
    prepared: &PreparedSteps,
    i: usize,
    ptx: &Path,
    source: Option<&str>,
    gpu: &memsys::GpuConfig,
    config: &ptx_exec::LaunchConfig,
    summary: &ptx_exec::RunSummary,
) -> Option<Report> {
    let PreparedStep::Launch {
        kernel,
        grid,
        block,
        shared,
        window,
        ..
    } = &prepared.steps[i]
    else {
        return None;
    };
    let stats = prepared.session.mem.stats();
    let variant = model::variant_report(
        "original",
        None,
        source,
        &prepared.session.program,
        &stats,
        summary,
        gpu.timeline_interval,
    );
    let launch = LaunchInfo {
        ptx: ptx.display().to_string(),
        kernel: kernel.clone(),
        grid: *grid,
        block: *block,
        shared_bytes: *shared,
        static_shared_bytes: prepared.session.program.static_shared_bytes,
        seed: config.seed,
        access_policy_window: config
            .access_policy_window
            .or(*window)
            .map(|w| LaunchInfo::window_text(&w)),
        persisting_reset_lines: None,
    };
    Some(Report::new(
        "run",
        launch,
        GpuInfo::from_config(gpu),
        vec![variant],
    ))
}
