//! What a sweep keeps in its output directory: the per-point cache (`cache/KEY.json`), and
//! the tables made from every point's outcome (`results.csv`, `results.json`, `timings.csv`,
//! `failures.json`, `report.html`).

use super::plan::Plan;
use ptxsim_report::metrics::metric_infos;
use ptxsim_report::sweep::SweepTable;
use ptxsim_report::MetricValues;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One kernel step of a point's run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepResult {
    /// The step's index in the launch file (0 for a one-kernel launch).
    pub step: usize,
    pub kernel: String,
    /// SHA-256 of every buffer after the step.
    pub outputs_digest: String,
    /// The report's totals, by metric name.
    pub metrics: MetricValues,
}

/// A point's result: its cache key and every kernel step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointResult {
    pub key: String,
    pub steps: Vec<StepResult>,
}

/// How a point ended. `wall_s` is the time it ran (for a cached point, when it ran).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum Outcome {
    Ran { result: PointResult, wall_s: f64 },
    Cached { result: PointResult, wall_s: f64 },
    Failed { error: String, wall_s: f64 },
}

impl Outcome {
    pub fn result(&self) -> Option<&PointResult> {
        match self {
            Outcome::Ran { result, .. } | Outcome::Cached { result, .. } => Some(result),
            Outcome::Failed { .. } => None,
        }
    }

    fn status(&self) -> &'static str {
        match self {
            Outcome::Ran { .. } => "ran",
            Outcome::Cached { .. } => "cached",
            Outcome::Failed { .. } => "failed",
        }
    }

    fn wall_s(&self) -> f64 {
        match self {
            Outcome::Ran { wall_s, .. }
            | Outcome::Cached { wall_s, .. }
            | Outcome::Failed { wall_s, .. } => *wall_s,
        }
    }
}

fn cache_path(out: &Path, key: &str) -> PathBuf {
    out.join("cache").join(format!("{key}.json"))
}

/// Creates `out` and its cache directory.
pub fn prepare_dir(out: &Path) -> Result<(), String> {
    std::fs::create_dir_all(out.join("cache"))
        .map_err(|e| format!("cannot create {}: {e}", out.join("cache").display()))
}

/// The cached outcome of the point with `key`, if a run finished it before (an unreadable or
/// foreign entry counts as absent: the point runs again and replaces it).
pub fn load(out: &Path, key: &str) -> Option<Outcome> {
    let text = std::fs::read_to_string(cache_path(out, key)).ok()?;
    match serde_json::from_str(&text).ok()? {
        Outcome::Ran { result, wall_s } if result.key == key => {
            Some(Outcome::Cached { result, wall_s })
        }
        _ => None,
    }
}

/// Caches a point that ran (written to a temporary file, then renamed: an interrupted sweep
/// leaves no half-written entry).
pub fn save(out: &Path, outcome: &Outcome) -> Result<(), String> {
    let Outcome::Ran { result, .. } = outcome else {
        return Ok(());
    };
    let path = cache_path(out, &result.key);
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let text = serde_json::to_string(outcome).map_err(|e| e.to_string())?;
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, &path))
        .map_err(|e| format!("cannot cache a point in {}: {e}", path.display()))
}

/// The sweep's table: one row per point and kernel step.
#[derive(Debug, Clone)]
pub struct Rows {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
    /// (point, error) of every failed point.
    pub failures: Vec<(String, String)>,
}

impl Rows {
    /// The rows as a JSON array of objects, keys in column order.
    pub fn to_json(&self) -> String {
        let mut s = String::from("[");
        for (r, row) in self.rows.iter().enumerate() {
            s.push_str(if r == 0 { "\n  {" } else { ",\n  {" });
            for (c, (name, v)) in self.columns.iter().zip(row).enumerate() {
                if c > 0 {
                    s.push_str(", ");
                }
                s.push_str(&Value::from(name.as_str()).to_string());
                s.push_str(": ");
                s.push_str(&v.to_string());
            }
            s.push('}');
        }
        s.push_str(if self.rows.is_empty() { "]\n" } else { "\n]\n" });
        s
    }
}

/// The columns every sweep row has before the metrics, after the launches' own axes.
pub const POINT_COLUMNS: [&str; 7] = [
    "variant",
    "gpu",
    "persisting_l2",
    "seed",
    "step",
    "kernel",
    "outputs_equal",
];

fn point_labels(plan: &Plan, i: usize) -> Vec<Value> {
    let p = &plan.points[i];
    let launch = &plan.launches[p.launch];
    let mut v: Vec<Value> = launch.labels.iter().map(|l| l.to_json()).collect();
    v.push(launch.variants[p.variant].name.clone().into());
    v.push(p.gpu_label.clone().into());
    v.push(p.persisting_l2.into());
    v.push(p.seed.into());
    if plan.window_axis {
        v.push(
            p.window
                .as_ref()
                .map_or("none".to_string(), |w| w.text())
                .into(),
        );
    }
    v
}

/// The point columns of `plan`'s rows: [`POINT_COLUMNS`], with `access_policy_window` after
/// `seed` when the spec has that axis.
fn point_columns(plan: &Plan) -> Vec<String> {
    let mut c: Vec<String> = POINT_COLUMNS.iter().map(|c| c.to_string()).collect();
    if plan.window_axis {
        c.insert(4, "access_policy_window".to_string());
    }
    c
}

/// Builds the table from every point's outcome (in point order). `outputs_equal` compares a
/// step's buffers with the original's after the same step, under the same launch, GPU,
/// set-aside and seed (empty when the original failed).
pub fn rows(plan: &Plan, outcomes: &[Outcome]) -> Rows {
    let metrics = metric_infos();
    let mut columns: Vec<String> = plan.launch_axes.clone();
    columns.extend(point_columns(plan));
    columns.extend(metrics.iter().map(|m| m.name.clone()));
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for (i, outcome) in outcomes.iter().enumerate() {
        let Some(result) = outcome.result() else {
            if let Outcome::Failed { error, .. } = outcome {
                failures.push((super::exec::describe(plan, i), error.clone()));
            }
            continue;
        };
        let baseline = outcomes[plan.baseline_of(i)].result();
        for st in &result.steps {
            let mut row = point_labels(plan, i);
            row.push(st.step.into());
            row.push(st.kernel.clone().into());
            let equal = baseline
                .and_then(|b| b.steps.iter().find(|b| b.step == st.step))
                .map(|b| b.outputs_digest == st.outputs_digest);
            row.push(equal.map_or(Value::Null, Value::from));
            for m in &metrics {
                row.push(match st.metrics.get(&m.name).copied().flatten() {
                    Some(ptxsim_report::MetricValue::Count(c)) => c.into(),
                    Some(ptxsim_report::MetricValue::Percent(p)) => p.into(),
                    None => Value::Null,
                });
            }
            rows.push(row);
        }
    }
    Rows {
        columns,
        rows,
        failures,
    }
}

fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn write_csv(path: &Path, columns: &[String], rows: &[Vec<Value>]) -> Result<(), String> {
    let err = |e: csv::Error| format!("cannot write {}: {e}", path.display());
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(columns).map_err(err)?;
    for row in rows {
        w.write_record(row.iter().map(cell)).map_err(err)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    crate::output::write_atomic(path, &bytes)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    crate::output::write_atomic(path, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Writes `results.csv`, `results.json` (deterministic: the same rows from any run and
/// backend), `timings.csv` (wall time and whether each point ran, came from the cache or
/// failed), `failures.json` and `report.html` into `out`.
pub fn write_outputs(
    plan: &Plan,
    out: &Path,
    outcomes: &[Outcome],
    title: &str,
) -> Result<Rows, String> {
    prepare_dir(out)?;
    let table = rows(plan, outcomes);
    write_csv(&out.join("results.csv"), &table.columns, &table.rows)?;
    write(&out.join("results.json"), &table.to_json())?;
    let mut tcols: Vec<String> = plan.launch_axes.clone();
    tcols.extend(
        ["variant", "gpu", "persisting_l2", "seed"]
            .iter()
            .map(|c| c.to_string()),
    );
    if plan.window_axis {
        tcols.push("access_policy_window".to_string());
    }
    tcols.extend(
        ["key", "status", "wall_s", "error"]
            .iter()
            .map(|c| c.to_string()),
    );
    let timings: Vec<Vec<Value>> = outcomes
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let mut row = point_labels(plan, i);
            row.push(plan.points[i].key.clone().into());
            row.push(o.status().into());
            row.push(format!("{:.3}", o.wall_s()).into());
            row.push(match o {
                Outcome::Failed { error, .. } => error.clone().into(),
                _ => Value::Null,
            });
            row
        })
        .collect();
    write_csv(&out.join("timings.csv"), &tcols, &timings)?;
    let failures: Vec<Value> = table
        .failures
        .iter()
        .map(|(p, e)| serde_json::json!({"point": p, "error": e}))
        .collect();
    let failures_text = serde_json::to_string_pretty(&failures).map_err(|e| e.to_string())?;
    write(&out.join("failures.json"), &(failures_text + "\n"))?;
    let html = ptxsim_report::sweep::render_html(&SweepTable {
        title: title.to_string(),
        columns: &table.columns,
        axis_columns: plan.launch_axes.len() + point_columns(plan).len() - 1,
        rows: &table.rows,
        metrics: &metric_infos(),
        failures: &table.failures,
        x: plan.report_x.as_deref(),
        y: plan.report_y.as_deref(),
    });
    write(&out.join("report.html"), &html)?;
    Ok(table)
}
