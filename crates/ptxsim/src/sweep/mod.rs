//! `ptxsim sweep`: a launch run over every combination of hint variants, GPU models,
//! persisting set-aside sizes and seeds (docs/sweep.md).
//!
//! ```text
//! Spec (TOML / JSON) ──Plan::new──► points, each with a cache key (SHA-256 of its inputs)
//!   ├─ exec::run_local        rayon pool, progress bar, cache/KEY.json per finished point
//!   └─ exec::run_point        one point (a Ray task runs this through the Python package)
//! outcomes ──store::write_outputs──► results.csv/json, timings.csv, failures.json, report.html
//! ```

pub mod exec;
pub mod plan;
pub mod spec;
pub mod store;

pub use exec::{run_local, run_point, run_point_timed, LocalOptions};
pub use plan::{check_threads, Plan, Point};
pub use spec::Spec;
pub use store::{write_outputs, Outcome, PointResult, Rows};

/// Default `--jobs`: one point per core.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
