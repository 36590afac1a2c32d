//! What `launch`, `compare` and `advise` share before a run: the Python arguments checked, the
//! module parsed and validated as ptxas would, a session, and the kernel's arguments typed by
//! its `.param` declarations. One path, so the three raise the same exceptions for the same
//! mistakes.

use crate::{
    arg_specs, dims, error_lines, exec_error, gpu_config, to_py_diagnostics, LaunchError,
    PtxSyntaxError, PtxValidationError,
};
use memsys::GpuConfig;
use ptx_check::{check_source, CheckOptions, CheckReport, Diagnostic as CheckDiagnostic, Severity};
use ptx_exec::Session;
use ptxsim::launch::ArgSpec;
use pyo3::buffer::PyBuffer;
use pyo3::prelude::*;
use pyo3::types::PyList;

/// The arguments every launch takes, as Python gave them.
pub(crate) struct LaunchArgs<'a, 'py> {
    /// The PTX's name in messages.
    pub name: &'a str,
    pub source: &'a [u8],
    pub kernel: &'a str,
    pub grid: Vec<u32>,
    pub block: Vec<u32>,
    /// In parameter order (see `launch`).
    pub args: Vec<Bound<'py, PyAny>>,
    /// A preset name or a TOML file.
    pub gpu: &'a str,
    pub persisting_l2: u64,
    /// ptxas `--fmad`.
    pub fmad: bool,
}

/// A launch ready to configure and run.
pub(crate) struct Setup {
    /// The check's report: the module's file (name and text) and its diagnostics.
    pub report: CheckReport,
    /// The GPU model, with the persisting-L2 set-aside applied.
    pub gpu: GpuConfig,
    pub session: Session,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub specs: Vec<ArgSpec>,
    /// The buffers to write back after the run, by argument index.
    pub buffers: Vec<(usize, PyBuffer<u8>)>,
}

impl LaunchArgs<'_, '_> {
    /// Dimensions and GPU, then the module (validated), the session and the arguments.
    pub(crate) fn setup(self, py: Python<'_>) -> PyResult<Setup> {
        let name = self.name;
        let grid = dims(&self.grid, "grid")?;
        let block = dims(&self.block, "block")?;
        let mut gpu = gpu_config(self.gpu)?;
        gpu.set_persisting_l2(self.persisting_l2)
            .map_err(|e| LaunchError::new_err(format!("persisting_l2: {e}")))?;
        let report = validated(py, name, self.source)?;
        let Some(module) = &report.module else {
            return Err(PtxSyntaxError::new_err(format!(
                "{name}: the file is not text"
            )));
        };
        let options = ptx_exec::lower::LowerOptions { fmad: self.fmad };
        let session = Session::new_with(module, &report.file.text, gpu.clone(), options)
            .map_err(|e| exec_error(py, name, e))?;
        let (specs, buffers) = typed_args(py, name, self.kernel, &session, &self.args)?;
        Ok(Setup {
            report,
            gpu,
            session,
            grid,
            block,
            specs,
            buffers,
        })
    }
}

/// Parses and validates `source` as ptxas would: a module it rejects does not load on a GPU
/// either. The errors raise `PtxSyntaxError` (one is fatal) or `PtxValidationError`, with the
/// CLI's `file:line:col: message` lines and the error diagnostics in `.diagnostics`.
fn validated(py: Python<'_>, name: &str, source: &[u8]) -> PyResult<CheckReport> {
    let report = check_source(name, source, &CheckOptions::default());
    let errors: Vec<&CheckDiagnostic> = report
        .diagnostics
        .iter()
        .filter(|d| d.severity.is_error())
        .collect();
    if errors.is_empty() {
        return Ok(report);
    }
    let message = error_lines(&report, &errors);
    let err = if errors.iter().any(|d| d.severity == Severity::Fatal) {
        PtxSyntaxError::new_err(message)
    } else {
        PtxValidationError::new_err(message)
    };
    let diagnostics = to_py_diagnostics(&report)
        .into_iter()
        .filter(|d| d.is_error())
        .map(|d| Py::new(py, d))
        .collect::<PyResult<Vec<_>>>()?;
    err.value(py)
        .setattr("diagnostics", PyList::new(py, diagnostics)?)?;
    Err(err)
}

/// The arguments typed by `kernel`'s `.param` declarations (one per parameter), and the
/// buffers to write back.
#[allow(clippy::type_complexity)]
fn typed_args(
    py: Python<'_>,
    name: &str,
    kernel: &str,
    session: &Session,
    args: &[Bound<'_, PyAny>],
) -> PyResult<(Vec<ArgSpec>, Vec<(usize, PyBuffer<u8>)>)> {
    let params = session
        .kernel_params(kernel)
        .map_err(|e| exec_error(py, name, e))?;
    if params.len() != args.len() {
        return Err(LaunchError::new_err(format!(
            "kernel `{kernel}` takes {} arguments, {} given (parameters: {})",
            params.len(),
            args.len(),
            params
                .iter()
                .map(|(n, t)| format!("{t} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    arg_specs(py, args, &params)
}
