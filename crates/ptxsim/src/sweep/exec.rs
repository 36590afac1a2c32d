//! Running sweep points: one point on its own (what a local worker or a Ray task does), and
//! every point of a plan on a local thread pool with a progress bar.

use super::plan::{Plan, Point};
use super::store::{self, Outcome, PointResult, StepResult};
use crate::launch::PreparedStep;
use crate::point::{self, OutputBuffer};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ptx_exec::LaunchConfig;
use ptxsim_report::model::{GpuInfo, LaunchInfo};
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::path::Path;
use std::time::Instant;

/// SHA-256 (hex) of every buffer: equal digests, equal outputs.
fn buffers_digest(buffers: &[OutputBuffer]) -> String {
    let mut h = Sha256::new();
    for (i, ty, bytes) in buffers {
        h.update((*i as u64).to_le_bytes());
        h.update(ty.token().as_bytes());
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Runs point `i` of `plan`: every kernel step's report totals and a digest of the buffers
/// after it. Errors (a fault, a bad argument) are messages naming the point.
pub fn run_point(plan: &Plan, i: usize) -> Result<PointResult, String> {
    let p: &Point = &plan.points[i];
    let launch = &plan.launches[p.launch];
    let variant = &launch.variants[p.variant];
    let file = &launch.file;
    let mut config = LaunchConfig {
        seed: p.seed,
        cache_model: true,
        threads: plan.threads,
        counters_only: plan.counters_only,
        ..LaunchConfig::default()
    };
    let digest = |buffers: &[OutputBuffer]| match plan.counters_only {
        true => super::plan::NOT_COMPUTED.to_string(),
        false => buffers_digest(buffers),
    };
    if let Some(m) = file.max_steps {
        config.max_steps = m;
    }
    let text = &variant.rewritten.text;
    let interval = p.gpu.timeline_interval;
    let mut steps = Vec::new();
    if file.is_multi_step() {
        let mut prepared =
            point::prepare_launch_steps(&launch.ptx, text, p.gpu.clone(), file, &launch.base)
                .map_err(|e| e.to_string())?;
        // An axis window applies to every kernel step (the file's own are in its steps).
        if plan.window_axis {
            config.access_policy_window = p
                .window
                .as_ref()
                .map(|w| w.resolve_named(&prepared.buffers, prepared.session.mem.config()))
                .transpose()
                .map_err(|e| e.to_string())?;
        }
        for s in 0..prepared.steps.len() {
            prepared.session.mem.reset_stats();
            let summary = prepared
                .run_step(s, &config)
                .map_err(|e| format!("step {s} ({}): {e}", prepared.steps[s].describe()))?;
            let (
                Some(summary),
                PreparedStep::Launch {
                    kernel,
                    grid,
                    block,
                    shared,
                    ..
                },
            ) = (summary, &prepared.steps[s])
            else {
                continue;
            };
            let mut report = variant.report(&prepared.session, &summary, interval);
            let mut shape = launch_info(kernel, *grid, *block, *shared, config.seed);
            shape.static_shared_bytes = prepared.session.program.static_shared_bytes;
            report.estimate_time(&shape, &GpuInfo::from_config(&p.gpu));
            let buffers = point::step_buffers(&prepared).map_err(|e| e.to_string())?;
            steps.push(StepResult {
                step: s,
                kernel: kernel.clone(),
                outputs_digest: digest(&buffers),
                metrics: report.totals,
            });
        }
    } else {
        config.grid = crate::launch::dims(&file.grid, "grid").map_err(|e| e.to_string())?;
        config.block = crate::launch::dims(&file.block, "block").map_err(|e| e.to_string())?;
        config.dynamic_shared = file.shared;
        config.registers = file
            .registers_per_thread
            .map(|per_thread| ptx_exec::Registers {
                per_thread,
                source: ptx_exec::RegisterSource::LaunchFile,
            });
        let mut shape = launch_info(
            &file.kernel,
            config.grid,
            config.block,
            config.dynamic_shared,
            config.seed,
        );
        let mut prepared = point::prepare_launch(
            &launch.ptx,
            text,
            (p.gpu.clone(), file.fmad.unwrap_or(true)),
            &file.kernel,
            launch.specs.clone(),
            config,
        )
        .and_then(|mut pr| pr.apply_window(p.window.as_ref()).map(|()| pr))
        .map_err(|e| e.to_string())?;
        shape.static_shared_bytes = prepared.session.program.static_shared_bytes;
        let summary = prepared.run().map_err(|e| e.to_string())?;
        let mut report = variant.report(&prepared.session, &summary, interval);
        report.estimate_time(&shape, &GpuInfo::from_config(&p.gpu));
        let buffers = point::launch_buffers(&prepared).map_err(|e| e.to_string())?;
        steps.push(StepResult {
            step: 0,
            kernel: file.kernel.clone(),
            outputs_digest: digest(&buffers),
            metrics: report.totals,
        });
    }
    Ok(PointResult {
        key: p.key.clone(),
        steps,
    })
}

/// Runs point `i` and times it.
pub fn run_point_timed(plan: &Plan, i: usize) -> Outcome {
    let started = Instant::now();
    let result = run_point(plan, i);
    let wall_s = started.elapsed().as_secs_f64();
    match result {
        Ok(result) => Outcome::Ran { result, wall_s },
        Err(error) => Outcome::Failed { error, wall_s },
    }
}

/// Options of a local run.
#[derive(Debug, Clone, Copy)]
pub struct LocalOptions {
    /// Points run at once (0: one per core).
    pub jobs: usize,
    /// Show a progress bar on stderr (drawn only when stderr is a terminal).
    pub progress: bool,
}

/// Runs every point of `plan` not already in `out`'s cache on a pool of `jobs` threads,
/// caching each result as it finishes and reporting each failure on stderr as it happens.
/// Returns every point's outcome, in point order.
pub fn run_local(plan: &Plan, out: &Path, opts: LocalOptions) -> Result<Vec<Outcome>, String> {
    store::prepare_dir(out)?;
    let cached: Vec<Option<Outcome>> = (0..plan.points.len())
        .map(|i| store::load(out, &plan.points[i].key))
        .collect();
    let pending: Vec<usize> = (0..plan.points.len())
        .filter(|i| cached[*i].is_none())
        .collect();
    let bar = progress_bar(plan.points.len() as u64, opts.progress);
    bar.set_position((plan.points.len() - pending.len()) as u64);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs)
        .thread_name(|i| format!("sweep-{i}"))
        .build()
        .map_err(|e| format!("cannot start {} worker threads: {e}", opts.jobs))?;
    let ran: Vec<(usize, Outcome)> = pool.install(|| {
        pending
            .par_iter()
            .map(|&i| {
                let outcome = run_point_timed(plan, i);
                finished(plan, out, i, &outcome, &bar);
                (i, outcome)
            })
            .collect()
    });
    bar.finish_and_clear();
    let mut all = cached;
    for (i, o) in ran {
        all[i] = Some(o);
    }
    Ok(all
        .into_iter()
        .map(|o| o.expect("every point ran or was cached"))
        .collect())
}

/// What a finished point does: cached if it succeeded, reported if it failed, counted.
pub fn finished(plan: &Plan, out: &Path, i: usize, outcome: &Outcome, bar: &ProgressBar) {
    match outcome {
        Outcome::Failed { error, .. } => {
            bar.suspend(|| eprintln!("error: point {}: {error}", describe(plan, i)));
        }
        _ => {
            if let Err(e) = store::save(out, outcome) {
                bar.suspend(|| eprintln!("warning: {e}"));
            }
        }
    }
    bar.inc(1);
}

/// A progress bar of points done (hidden unless `show` and stderr is a terminal).
pub fn progress_bar(len: u64, show: bool) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "sweep {bar:30} {pos}/{len} points [{elapsed_precise}, {eta} left]",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// `variant=... gpu=... persisting_l2=... seed=...` (and the launch's own axes) for messages.
pub fn describe(plan: &Plan, i: usize) -> String {
    let p = &plan.points[i];
    let launch = &plan.launches[p.launch];
    let mut parts: Vec<String> = plan
        .launch_axes
        .iter()
        .zip(&launch.labels)
        .map(|(n, v)| format!("{n}={}", v.to_json()))
        .collect();
    parts.push(format!("variant={}", launch.variants[p.variant].name));
    parts.push(format!("gpu={}", p.gpu_label));
    parts.push(format!("persisting_l2={}", p.persisting_l2));
    parts.push(format!("seed={}", p.seed));
    if plan.window_axis {
        parts.push(format!(
            "access_policy_window={}",
            p.window.as_ref().map_or("none".to_string(), |w| w.text())
        ));
    }
    parts.join(" ")
}

/// What the time estimate needs of a kernel launch (the same figures `compare` reports).
fn launch_info(
    kernel: &str,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    seed: u64,
) -> LaunchInfo {
    LaunchInfo {
        ptx: String::new(),
        kernel: kernel.to_string(),
        grid,
        block,
        shared_bytes: shared,
        static_shared_bytes: 0,
        seed,
        access_policy_window: None,
        persisting_reset_lines: None,
    }
}
