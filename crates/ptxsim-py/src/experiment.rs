//! `ptxsim.compare` and `ptxsim.advise`: the same launch under hint rewrites (or under the
//! rewrites `advise` suggests), each in a fresh memory system, as `ptxsim compare` and
//! `ptxsim advise` run them; the result is the report, with `_repr_html_` for notebooks.

use crate::setup::LaunchArgs;
use crate::LaunchError;
use ptx_exec::LaunchConfig;
use pyo3::prelude::*;
use std::path::Path;

/// What `ptxsim.compare` and `ptxsim.advise` return: the report of every variant (the
/// original first), and for `advise` the suggestions.
#[pyclass(name = "Report", module = "ptxsim", frozen)]
pub struct PyReport {
    report: ptxsim_report::Report,
}

#[pymethods]
impl PyReport {
    /// `compare` or `advise`.
    #[getter]
    fn command(&self) -> String {
        self.report.command.clone()
    }

    /// The variant names, the original first.
    #[getter]
    fn variants(&self) -> Vec<String> {
        self.report
            .variants
            .iter()
            .map(|v| v.name.clone())
            .collect()
    }

    /// `advise`: the suggestions as dicts (rule, ptx_line, source, evidence, advice, rewrite,
    /// measured); empty for `compare`.
    #[getter]
    fn suggestions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let v = serde_json::to_value(self.report.suggestions.clone().unwrap_or_default())
            .unwrap_or_default();
        crate::report::to_py(py, &v)
    }

    /// The report as JSON (docs/report.schema.json).
    fn to_json(&self) -> String {
        self.report.to_json()
    }

    /// The text report (`compare`'s table, or `advise`'s run report and suggestions).
    fn summary(&self) -> String {
        if self.report.command == "advise" {
            ptxsim_report::advise::render_text(&self.report)
        } else {
            ptxsim_report::text::render_compare(&self.report)
        }
    }

    /// The self-contained HTML report (inline SVG, no scripts), shown by Jupyter.
    fn _repr_html_(&self) -> String {
        ptxsim_report::html::render(&self.report)
    }

    fn __repr__(&self) -> String {
        format!(
            "<ptxsim.Report {} of `{}`: {}>",
            self.report.command,
            self.report.launch.kernel,
            self.variants().join(", ")
        )
    }
}

/// Everything a variant run needs, prepared from the Python arguments.
struct Prepared {
    text: String,
    gpu: memsys::GpuConfig,
    specs: Vec<ptxsim::launch::ArgSpec>,
    config: LaunchConfig,
    fmad: bool,
    info: ptxsim_report::LaunchInfo,
}

/// The keyword arguments `compare` and `advise` share.
struct RunOptions<'a> {
    shared: u32,
    gpu: &'a str,
    seed: u64,
    persisting_l2: u64,
    registers_per_thread: Option<u32>,
    /// ptxas `--fmad` for the module and every variant.
    fmad: bool,
    /// Counters-only mode (`compare` only): the outputs are not computed, so the check that
    /// no rewrite changed them is skipped (`outputs` says `not computed`).
    counters_only: bool,
    threads: Option<u32>,
}

/// The launch `compare` and `advise` run, through the shared preparation path
/// ([`crate::setup`]); the run keeps a timeline (every 64 steps unless the GPU file says).
#[allow(clippy::too_many_arguments)]
fn prepare(
    py: Python<'_>,
    name: &str,
    source: &[u8],
    kernel: &str,
    grid: Vec<u32>,
    block: Vec<u32>,
    args: Vec<Bound<'_, PyAny>>,
    o: &RunOptions<'_>,
) -> PyResult<Prepared> {
    let registers = crate::registers(o.registers_per_thread, "flag")?;
    let threads = crate::host_threads(o.threads)?;
    let setup = LaunchArgs {
        name,
        source,
        kernel,
        grid,
        block,
        args,
        gpu: o.gpu,
        persisting_l2: o.persisting_l2,
        fmad: o.fmad,
    }
    .setup(py)?;
    let mut gpu = setup.gpu;
    if gpu.timeline_interval == 0 {
        gpu.timeline_interval = 64;
    }
    Ok(Prepared {
        text: setup.report.file.text.clone(),
        gpu,
        specs: setup.specs,
        config: LaunchConfig {
            grid: setup.grid,
            block: setup.block,
            dynamic_shared: o.shared,
            seed: o.seed,
            registers,
            threads,
            counters_only: o.counters_only,
            ..LaunchConfig::default()
        },
        fmad: o.fmad,
        info: ptxsim_report::LaunchInfo {
            ptx: name.to_string(),
            kernel: kernel.to_string(),
            grid: setup.grid,
            block: setup.block,
            shared_bytes: o.shared,
            static_shared_bytes: setup.session.program.static_shared_bytes,
            seed: o.seed,
            access_policy_window: None,
            persisting_reset_lines: None,
        },
    })
}

impl Prepared {
    /// Calls `f` with the launch these arguments describe (the PTX `name`, its `kernel`), the
    /// report's launch information and the GPU: what `compare` and `advise` both run.
    fn with_launch<R>(
        self,
        name: &str,
        kernel: &str,
        f: impl FnOnce(&ptxsim::advise::Launch<'_>, ptxsim_report::LaunchInfo, &memsys::GpuConfig) -> R,
    ) -> R {
        let Prepared {
            text,
            gpu,
            specs,
            config,
            fmad,
            info,
        } = self;
        let launch = ptxsim::advise::Launch {
            ptx: Path::new(name),
            source: &text,
            gpu: gpu.clone(),
            kernel,
            specs,
            config,
            fmad,
            runner: &ptxsim::advise::plain_run,
        };
        f(&launch, info, &gpu)
    }
}

fn run_error(e: ptxsim::advise::RunError) -> PyErr {
    LaunchError::new_err(e.message)
}

/// Runs `kernel` as written and under each `NAME=REWRITE` of `variants`; see `ptxsim.compare`.
#[pyfunction]
#[pyo3(signature = (name, source, kernel, grid, block, args, variants, shared=0, gpu="h100", seed=0, persisting_l2=0, registers_per_thread=None, fmad=true, counters_only=false, threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn compare(
    py: Python<'_>,
    name: &str,
    source: &[u8],
    kernel: &str,
    grid: Vec<u32>,
    block: Vec<u32>,
    args: Vec<Bound<'_, PyAny>>,
    variants: Vec<String>,
    shared: u32,
    gpu: &str,
    seed: u64,
    persisting_l2: u64,
    registers_per_thread: Option<u32>,
    fmad: bool,
    counters_only: bool,
    threads: Option<u32>,
) -> PyResult<PyReport> {
    let o = RunOptions {
        shared,
        gpu,
        seed,
        persisting_l2,
        registers_per_thread,
        fmad,
        counters_only,
        threads,
    };
    let p = prepare(py, name, source, kernel, grid, block, args, &o)?;
    p.with_launch(name, kernel, |launch, info, gpu| {
        let (reports, _) = py.detach(|| launch.compare(&variants)).map_err(run_error)?;
        let gpu = ptxsim_report::GpuInfo::from_config(gpu);
        let report = ptxsim_report::Report::new("compare", info, gpu, reports);
        Ok(PyReport { report })
    })
}

/// Runs `kernel`, applies `ptxsim advise`'s rules and runs every rewrite they suggest.
#[pyfunction]
#[pyo3(signature = (name, source, kernel, grid, block, args, shared=0, gpu="h100", seed=0, persisting_l2=0, registers_per_thread=None, fmad=true, threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn advise(
    py: Python<'_>,
    name: &str,
    source: &[u8],
    kernel: &str,
    grid: Vec<u32>,
    block: Vec<u32>,
    args: Vec<Bound<'_, PyAny>>,
    shared: u32,
    gpu: &str,
    seed: u64,
    persisting_l2: u64,
    registers_per_thread: Option<u32>,
    fmad: bool,
    threads: Option<u32>,
) -> PyResult<PyReport> {
    let o = RunOptions {
        shared,
        gpu,
        seed,
        persisting_l2,
        registers_per_thread,
        fmad,
        counters_only: false,
        threads,
    };
    let p = prepare(py, name, source, kernel, grid, block, args, &o)?;
    p.with_launch(name, kernel, |launch, info, _| {
        let report = py.detach(|| launch.advise(info)).map_err(run_error)?;
        Ok(PyReport { report })
    })
}
