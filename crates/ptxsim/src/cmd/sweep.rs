//! `ptxsim sweep SPEC.toml --out DIR`: a launch over every combination of the spec's axes
//! (variants, GPUs, persisting set-aside sizes, seeds), points in parallel, each cached.

use clap::Args as ClapArgs;
use ptxsim::sweep::{self, LocalOptions, Plan, Spec};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(ClapArgs)]
pub struct Args {
    /// The sweep spec: `launch = "PATH.toml"` and `[axes]` with `variant`, `gpu`,
    /// `persisting_l2` and `seed` lists (docs/sweep.md).
    spec: PathBuf,
    /// The output directory: results.csv, results.json, timings.csv, failures.json,
    /// report.html, and cache/ (finished points, skipped when the sweep runs again).
    #[arg(long)]
    out: PathBuf,
    /// Points run at once (default: one per core).
    #[arg(long)]
    jobs: Option<usize>,
    /// Interpreter threads per point (default 1: points run in parallel, --jobs at once).
    /// Results do not depend on it.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Run each point in counters-only mode (`ptxsim run --counters-only`): the same counters
    /// and time estimates, the arithmetic they do not depend on skipped; the outputs digest
    /// reads "not computed".
    #[arg(long)]
    counters_only: bool,
}

pub fn run(args: Args) -> ExitCode {
    let fail = |e: String| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    };
    let threads = match sweep::check_threads(args.threads) {
        Ok(n) => n,
        Err(e) => return fail(e),
    };
    let jobs = args.jobs.unwrap_or_else(sweep::default_jobs);
    if jobs == 0 {
        return fail("--jobs must be at least 1".into());
    }
    let plan = match Spec::read(&args.spec).and_then(|s| Plan::new(&s)) {
        Ok(p) => Plan {
            threads,
            counters_only: args.counters_only,
            ..p
        },
        Err(e) => return fail(e),
    };
    let distinct = |f: &dyn Fn(&sweep::Point) -> String| {
        let mut v: Vec<String> = plan.points.iter().map(f).collect();
        v.sort();
        v.dedup();
        v.len()
    };
    eprintln!(
        "sweep: {} points: {} launch(es) x {} variant(s) x {} GPU(s) x {} set-aside(s) x {} seed(s), {jobs} at once",
        plan.points.len(),
        plan.launches.len(),
        plan.variant_names.len(),
        distinct(&|p| p.gpu_label.clone()),
        distinct(&|p| p.persisting_l2.to_string()),
        distinct(&|p| p.seed.to_string()),
    );
    let opts = LocalOptions {
        jobs,
        progress: true,
    };
    let outcomes = match sweep::run_local(&plan, &args.out, opts) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let title = format!("ptxsim sweep {}", args.spec.display());
    let table = match sweep::write_outputs(&plan, &args.out, &outcomes, &title) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let cached = outcomes
        .iter()
        .filter(|o| matches!(o, sweep::Outcome::Cached { .. }))
        .count();
    eprintln!(
        "sweep: {} points ({} from the cache, {} failed), {} rows: wrote {}",
        outcomes.len(),
        cached,
        table.failures.len(),
        table.rows.len(),
        args.out.join("results.csv").display()
    );
    if table.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "error: {} point(s) failed (see failures.json)",
            table.failures.len()
        );
        ExitCode::from(1)
    }
}
