//! `ptxsim.sweep`'s native half: plans, single points (what a Ray task runs), the cache and
//! the output files, all from `ptxsim::sweep` (the CLI's `ptxsim sweep` runs the same code).
//!
//! A spec crosses as JSON text plus the directory its paths are relative to; each call plans
//! it again from those (cheap next to a point's run, and kept per process in [`plan_for`]), so
//! a Ray task needs nothing but the two strings and a point index.

use crate::PtxsimError;
use ptxsim::sweep::{self, exec, store, LocalOptions, Outcome, Plan, Spec};
use pyo3::prelude::*;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Plans of this process, by (spec, directory): a worker running many points of one sweep reads
/// its launch, inputs and GPU files once. Holds the last few.
static PLANS: Mutex<Vec<(String, String, Arc<Plan>)>> = Mutex::new(Vec::new());
const PLANS_KEPT: usize = 4;

fn plan_for(spec: &str, dir: &str) -> PyResult<Arc<Plan>> {
    let mut plans = PLANS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, _, p)) = plans.iter().find(|(s, d, _)| s == spec && d == dir) {
        return Ok(p.clone());
    }
    let plan = Spec::from_json(spec, Path::new(dir))
        .and_then(|s| Plan::new(&s))
        .map(Arc::new)
        .map_err(PtxsimError::new_err)?;
    if plans.len() >= PLANS_KEPT {
        plans.remove(0);
    }
    plans.push((spec.to_string(), dir.to_string(), plan.clone()));
    Ok(plan)
}

fn err(e: String) -> PyErr {
    PtxsimError::new_err(e)
}

/// A TOML spec file as JSON text (the shape `ptxsim.sweep` takes as a dict).
#[pyfunction]
pub fn sweep_read_spec(path: &str) -> PyResult<String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| err(format!("cannot read {path}: {e}")))?;
    let value: serde_json::Value =
        toml::from_str(&text).map_err(|e| err(format!("{path}: {e}")))?;
    Ok(value.to_string())
}

/// (points in all, indices of the points `out`'s cache does not hold yet).
#[pyfunction]
pub fn sweep_plan(
    spec: &str,
    dir: &str,
    out: &str,
    threads: usize,
) -> PyResult<(usize, Vec<usize>)> {
    sweep::check_threads(threads).map_err(err)?;
    let plan = plan_for(spec, dir)?;
    let pending = (0..plan.points.len())
        .filter(|&i| store::load(Path::new(out), &plan.points[i].key).is_none())
        .collect();
    Ok((plan.points.len(), pending))
}

/// `variant=... gpu=...` naming point `index`, for messages.
#[pyfunction]
pub fn sweep_describe(spec: &str, dir: &str, index: usize) -> PyResult<String> {
    let plan = plan_for(spec, dir)?;
    check_index(&plan, index)?;
    Ok(exec::describe(&plan, index))
}

fn check_index(plan: &Plan, index: usize) -> PyResult<()> {
    if index < plan.points.len() {
        Ok(())
    } else {
        Err(err(format!(
            "point {index}: the sweep has {} points",
            plan.points.len()
        )))
    }
}

/// Runs point `index` (the GIL released) and returns its outcome as JSON: what a Ray task
/// does. Nothing is written; the driver caches it with `sweep_store`.
#[pyfunction]
pub fn sweep_point(py: Python<'_>, spec: &str, dir: &str, index: usize) -> PyResult<String> {
    let plan = plan_for(spec, dir)?;
    check_index(&plan, index)?;
    let outcome = py.detach(|| exec::run_point_timed(&plan, index));
    serde_json::to_string(&outcome).map_err(|e| err(e.to_string()))
}

/// Caches an outcome from `sweep_point` in `out` (a failure is not cached: it runs again).
#[pyfunction]
pub fn sweep_store(out: &str, outcome: &str) -> PyResult<()> {
    let outcome: Outcome = serde_json::from_str(outcome).map_err(|e| err(e.to_string()))?;
    store::prepare_dir(Path::new(out)).map_err(err)?;
    store::save(Path::new(out), &outcome).map_err(err)
}

/// Writes the output files from every point's outcome (`None`: read from the cache) and
/// returns (rows as JSON, [(point, error)] of the failed points).
#[pyfunction]
pub fn sweep_finish(
    spec: &str,
    dir: &str,
    out: &str,
    outcomes: Vec<Option<String>>,
    title: &str,
) -> PyResult<(String, Vec<(String, String)>)> {
    let plan = plan_for(spec, dir)?;
    if outcomes.len() != plan.points.len() {
        return Err(err(format!(
            "{} outcomes for {} points",
            outcomes.len(),
            plan.points.len()
        )));
    }
    let out = Path::new(out);
    let mut all = Vec::with_capacity(outcomes.len());
    for (i, o) in outcomes.iter().enumerate() {
        let outcome = match o {
            Some(text) => serde_json::from_str(text).map_err(|e| err(e.to_string()))?,
            None => store::load(out, &plan.points[i].key).ok_or_else(|| {
                err(format!(
                    "point {} is neither given nor in {}'s cache",
                    exec::describe(&plan, i),
                    out.display()
                ))
            })?,
        };
        all.push(outcome);
    }
    let rows = store::write_outputs(&plan, out, &all, title).map_err(err)?;
    Ok((rows.to_json(), rows.failures))
}

/// The whole sweep on local threads (`jobs` at once, 0: one per core), the GIL released; the
/// same as `ptxsim sweep`. Returns what `sweep_finish` does.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn sweep_local(
    py: Python<'_>,
    spec: &str,
    dir: &str,
    out: &str,
    jobs: usize,
    threads: usize,
    title: &str,
    progress: bool,
) -> PyResult<(String, Vec<(String, String)>)> {
    sweep::check_threads(threads).map_err(err)?;
    let plan = plan_for(spec, dir)?;
    let jobs = if jobs == 0 {
        sweep::default_jobs()
    } else {
        jobs
    };
    let out = Path::new(out);
    let rows = py
        .detach(|| {
            let outcomes = sweep::run_local(&plan, out, LocalOptions { jobs, progress })?;
            store::write_outputs(&plan, out, &outcomes, title)
        })
        .map_err(err)?;
    Ok((rows.to_json(), rows.failures))
}
