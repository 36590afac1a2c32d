//! `ptxsim-report`: what each cache hint did, for a person and for a program.
//!
//! ```text
//! Program + memsys Stats + RunSummary ──model::variant_report──► VariantReport
//!   one or more variants (the original first) ──Report::new──► Report
//!       ├─ text::render_run / text::render_compare   (terminal)
//!       ├─ Report::to_json                            (docs/report.schema.json, versioned)
//!       └─ html::render                               (one self-contained file, inline SVG)
//! rewrite::apply(source, "loads=evict_first") ──► the module with its hints changed, same lines
//! ```
//!
//! Metric names follow Nsight Compute where it has one ([`metrics`]). The CLI (`ptxsim run
//! --report`, `ptxsim compare`) runs the launches; this crate never prints.

pub mod advise;
pub mod html;
pub mod metrics;
pub mod model;
pub mod ncu;
pub mod rewrite;
pub mod sweep;
pub mod text;
pub mod timing;

pub use metrics::{MetricInfo, MetricValue, MetricValues};
pub use model::{
    diff_buffer, variant_report, BufferDiff, GpuInfo, LaunchInfo, OutputCheck, Report, StepReport,
    VariantReport, FORMAT, SCHEMA_VERSION,
};
pub use rewrite::{Rewrite, RewriteError, Rewritten};
pub use timing::{KernelWork, Resource, TimeEstimate};

/// The JSON Schema every JSON report validates against (docs/report.schema.json).
pub const JSON_SCHEMA: &str = include_str!("../../../docs/report.schema.json");
