//! `ptxsim-py`: the Python extension module `ptxsim._native` (PyO3), a thin layer over the
//! workspace's crates.
//!
//! ```text
//! ptxsim.launch (Python: ptx file/text → bytes, numpy arrays → uint8 views)
//!   └─► _native.launch: ptx-check (syntax + validation) → ptx-exec Session → arguments typed
//!       by the kernel's .param declarations → run with the GIL released → buffers written
//!       back in place → Result (cache statistics, per-line table, hazards, summary text)
//! ```
//!
//! Every error becomes a Python exception whose message is the CLI's (`file:line:col: …` for
//! syntax and validation errors, the fault naming kernel, CTA, thread, PTX line and address for
//! kernel faults); nothing here panics on user input. The report is built in [`report`], the one
//! place that changes when `ptxsim-report`'s JSON schema and the hazard detector land.

mod args;
mod experiment;
mod report;
mod setup;
mod sweep;

use args::{scalar_bits, ArgKind};
use memsys::GpuConfig;
use ptx_check::{check_source, render, CheckOptions, Diagnostic as CheckDiagnostic, Severity};
use ptx_exec::{ExecError, LaunchConfig, Session};
use ptx_isa::{PtxVersion, SmTarget};
use ptxsim::launch::{prepare, tensor_map_spec, ArgSpec, Array};
use pyo3::buffer::PyBuffer;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use std::path::Path;
use std::time::Instant;

create_exception!(
    ptxsim,
    PtxsimError,
    PyException,
    "Base class of every error ptxsim raises."
);
create_exception!(
    ptxsim,
    PtxSyntaxError,
    PtxsimError,
    "The PTX does not parse (`file:line:col: message`, as `ptxsim run` prints it)."
);
create_exception!(
    ptxsim,
    PtxValidationError,
    PtxsimError,
    "ptxas would reject the PTX for its .target/.version (see `.diagnostics`)."
);
create_exception!(
    ptxsim,
    UnsupportedError,
    PtxsimError,
    "The PTX is valid but uses something the interpreter cannot run yet."
);
create_exception!(
    ptxsim,
    LaunchError,
    PtxsimError,
    "The launch is wrong: unknown kernel, argument count or types, dimensions, GPU model."
);
create_exception!(
    ptxsim,
    ResourceError,
    PtxsimError,
    "The launch needs more than the GPU model has (device memory, shared or local memory per \
     block) or than the host can provide; the message names the argument and the sizes."
);
create_exception!(
    ptxsim,
    KernelFault,
    PtxsimError,
    "The kernel faulted; the message and attributes name kernel, CTA, thread, PTX line and address."
);

/// One finding of `ptxsim.check`: where, what (ours and ptxas's wording), how to fix it.
#[pyclass(name = "Diagnostic", module = "ptxsim", frozen, get_all)]
struct Diagnostic {
    /// The file name given (or `<ptx>` for PTX text).
    file: String,
    /// `"warning"`, `"error"` or `"fatal"` (a syntax error).
    severity: String,
    /// Stable code, e.g. `E0001` for syntax errors.
    code: String,
    line: u32,
    column: u32,
    end_line: u32,
    end_column: u32,
    message: String,
    /// ptxas's wording of the same finding.
    ptxas: String,
    help: Option<String>,
    /// The CLI's rich rendering: source excerpt with the span underlined and the help line.
    rendered: String,
}

#[pymethods]
impl Diagnostic {
    fn is_error(&self) -> bool {
        self.severity != "warning"
    }

    fn __str__(&self) -> String {
        self.rendered.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "Diagnostic({} {} at {}:{}:{}: {})",
            self.severity, self.code, self.file, self.line, self.column, self.message
        )
    }
}

fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Info => "info",
        Severity::Warning => "warning",
        Severity::Error => "error",
        Severity::Fatal => "fatal",
    }
}

fn to_py_diagnostics(report: &ptx_check::CheckReport) -> Vec<Diagnostic> {
    let f = &report.file;
    let clamp = |o: u32| o.min(f.text.len() as u32);
    report
        .diagnostics
        .iter()
        .map(|d| {
            let s = f.lines().line_col(clamp(d.span.start), &f.text);
            let e = f.lines().line_col(clamp(d.span.end), &f.text);
            Diagnostic {
                file: f.name.clone(),
                severity: severity_name(d.severity).to_string(),
                code: d.code.to_string(),
                line: s.line,
                column: s.col,
                end_line: e.line,
                end_column: e.col,
                message: d.message.clone(),
                ptxas: d.ptxas.clone(),
                help: d.help.clone(),
                rendered: render::rich(f, std::slice::from_ref(d), false),
            }
        })
        .collect()
}

/// `file:line:col: message` for each error, the form `ptxsim run` prints.
fn error_lines(report: &ptx_check::CheckReport, errors: &[&CheckDiagnostic]) -> String {
    let f = &report.file;
    errors
        .iter()
        .map(|d| {
            let lc = f
                .lines()
                .line_col(d.span.start.min(f.text.len() as u32), &f.text);
            format!("{}:{}:{}: {}", f.name, lc.line, lc.col, d.message)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Parses and validates `source` as ptxas would (`ptxsim check`).
#[pyfunction]
#[pyo3(signature = (name, source, target=None, ptx_version=None))]
fn check(
    name: &str,
    source: &[u8],
    target: Option<&str>,
    ptx_version: Option<&str>,
) -> PyResult<Vec<Diagnostic>> {
    let options = check_options(target, ptx_version)?;
    let report = check_source(name, source, &options);
    Ok(to_py_diagnostics(&report))
}

fn check_options(target: Option<&str>, ptx_version: Option<&str>) -> PyResult<CheckOptions> {
    let target = target
        .map(|t| SmTarget::parse(t).map_err(|e| PyValueError::new_err(e.to_string())))
        .transpose()?;
    let ptx_version = ptx_version
        .map(|v| {
            PtxVersion::parse(v).ok_or_else(|| {
                PyValueError::new_err(format!("`{v}` is not a PTX version of the form X.Y"))
            })
        })
        .transpose()?;
    Ok(CheckOptions {
        target,
        ptx_version,
    })
}

/// A GPU preset name (a100, h100, b200) or a TOML file overriding one, as `ptxsim run --gpu`.
fn gpu_config(spec: &str) -> PyResult<GpuConfig> {
    let config = if Path::new(spec).extension().is_some_and(|e| e == "toml") {
        let text = std::fs::read_to_string(spec)
            .map_err(|e| LaunchError::new_err(format!("cannot read {spec}: {e}")))?;
        GpuConfig::from_toml(&text).map_err(|e| format!("{spec}: {e}"))
    } else {
        GpuConfig::preset(spec).map_err(|e| e.to_string())
    };
    config.map_err(LaunchError::new_err)
}

/// `[x]`, `[x, y]` or `[x, y, z]` → three dimensions, each at least 1.
fn dims(v: &[u32], what: &str) -> PyResult<[u32; 3]> {
    let d = ptxsim::launch::dims(v, what).map_err(launch_error)?;
    if d.contains(&0) {
        return Err(LaunchError::new_err(format!(
            "{what} ({},{},{}) has a zero dimension",
            d[0], d[1], d[2]
        )));
    }
    Ok(d)
}

/// A launch-preparation error: `ResourceError` when the launch needs more memory than the
/// GPU or the host has, `LaunchError` otherwise.
fn launch_error(e: ptxsim::launch::LaunchError) -> PyErr {
    if e.resource {
        ResourceError::new_err(e.message)
    } else {
        LaunchError::new_err(e.message)
    }
}

/// Turns an interpreter error into the matching exception, with the CLI's message.
fn exec_error(py: Python<'_>, name: &str, e: ExecError) -> PyErr {
    match e {
        ExecError::Unsupported {
            line,
            column,
            message,
        } => UnsupportedError::new_err(format!("{name}:{line}:{column}: {message}")),
        ExecError::Launch(m) => LaunchError::new_err(m),
        ExecError::Resource(m) => ResourceError::new_err(m),
        ExecError::Memory(m) if m.is_resource_limit() => {
            ResourceError::new_err(format!("memory: {m}"))
        }
        ExecError::Fault { ref site, ref kind } => {
            let err = KernelFault::new_err(e.to_string());
            let value = err.value(py);
            let address = match kind {
                ptx_exec::FaultKind::OutOfBounds { address, .. }
                | ptx_exec::FaultKind::Misaligned { address, .. }
                | ptx_exec::FaultKind::BadGeneric { address } => Some(*address),
                _ => None,
            };
            // Setting attributes on a fresh exception object cannot fail short of memory
            // exhaustion; the message already carries everything, so ignore such a failure.
            let _ = (|| -> PyResult<()> {
                value.setattr("kernel", &site.kernel)?;
                value.setattr("cta", PyTuple::new(py, site.cta)?)?;
                value.setattr("thread", PyTuple::new(py, site.thread)?)?;
                value.setattr("ptx_line", site.ptx_line)?;
                value.setattr("source", site.source.clone())?;
                value.setattr("instruction", &site.instruction)?;
                value.setattr("reason", kind.to_string())?;
                value.setattr("address", address)?;
                Ok(())
            })();
            err
        }
        ExecError::Memory(m) => PtxsimError::new_err(format!("memory: {m}")),
    }
}

/// What `ptxsim.launch` returns: what the run did, and what the caches saw.
#[pyclass(name = "Result", module = "ptxsim", frozen)]
struct LaunchResult {
    /// The kernel that ran.
    #[pyo3(get)]
    kernel: String,
    #[pyo3(get)]
    grid: (u32, u32, u32),
    #[pyo3(get)]
    block: (u32, u32, u32),
    /// Dynamic shared memory in bytes.
    #[pyo3(get)]
    shared: u32,
    /// The GPU model's name.
    #[pyo3(get)]
    gpu: String,
    /// The persisting-L2 set-aside the run had, in bytes.
    #[pyo3(get)]
    persisting_l2: u64,
    #[pyo3(get)]
    seed: u64,
    #[pyo3(get)]
    warp_instructions: u64,
    #[pyo3(get)]
    thread_instructions: u64,
    /// Bytes copied by `cp.async`.
    #[pyo3(get)]
    cp_async_bytes: u64,
    /// Host threads the run used (see `threads_note` when fewer than asked for).
    #[pyo3(get)]
    threads: u32,
    /// Why the run used one thread although more were asked for (hazard tracking), or None.
    #[pyo3(get)]
    threads_note: Option<String>,
    /// With `counters_only=True`: what the mode did (the instructions it skipped, or why it
    /// ran in full mode); None otherwise. The arrays passed in are left untouched.
    #[pyo3(get)]
    counters_only: Option<String>,
    /// Wall-clock seconds the run took (not deterministic; everything else is).
    #[pyo3(get)]
    elapsed: f64,
    /// Cache statistics (see `report::stats_json`).
    #[pyo3(get)]
    stats: Py<PyAny>,
    /// Per PTX line: instruction text, source line, executions, L1/L2/DRAM counters.
    #[pyo3(get)]
    lines: Py<PyAny>,
    /// Hazard reports; empty unless `hazards=True`.
    #[pyo3(get)]
    hazards: Py<PyAny>,
    /// What device `printf` printed: one string per call and thread, in execution order.
    #[pyo3(get)]
    printf: Vec<String>,
    /// Registers per thread the residency was computed with, and where they came from
    /// (`"flag"`: the `registers_per_thread` argument, `"triton"`: the compiled kernel's
    /// `n_regs`, `"estimate"`: estimated from the PTX).
    #[pyo3(get)]
    registers_per_thread: u32,
    #[pyo3(get)]
    registers_source: String,
    /// CTAs each SM held at once, and the limits that bound it (`"warps"`, `"registers"`,
    /// `"shared_memory"`, `"ctas"`).
    #[pyo3(get)]
    ctas_per_sm: u32,
    #[pyo3(get)]
    limited_by: Vec<String>,
    summary_text: String,
    json: String,
    /// The cache report (`ptxsim run --report`'s), for `_repr_html_` and `compare_ncu`.
    cache_report: ptxsim_report::Report,
}

#[pymethods]
impl LaunchResult {
    /// A human-readable summary: the run, hit rates per level, DRAM traffic, evictions by
    /// priority class, the top lines by DRAM traffic and, with `hazards=True`, the hazards.
    fn summary(&self) -> String {
        self.summary_text.clone()
    }

    /// The whole result (run, stats, lines, hazards) as one JSON document.
    fn to_json(&self) -> String {
        self.json.clone()
    }

    /// The self-contained HTML cache report (`ptxsim run --report html`), which Jupyter shows
    /// for a `Result` at the end of a cell (inline SVG, no scripts).
    fn _repr_html_(&self) -> String {
        ptxsim_report::html::render(&self.cache_report)
    }

    /// The cache report as `ptxsim run --report json` writes it (docs/report.schema.json).
    fn report_json(&self) -> String {
        self.cache_report.to_json()
    }

    /// Compares this run with your own Nsight Compute measurement of the kernel: `path` is an
    /// `ncu --csv --page raw` export; `launch` picks the kernel's launch in it (0: the first).
    /// Returns a dict (`rows`: metric, unit, ptxsim, measured, difference, relative_pct) as
    /// `ptxsim run --ncu-csv` reports it.
    #[pyo3(signature = (path, launch=0))]
    fn compare_ncu<'py>(
        &self,
        py: Python<'py>,
        path: std::path::PathBuf,
        launch: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| LaunchError::new_err(format!("cannot read {}: {e}", path.display())))?;
        let csv = ptxsim_report::ncu::NcuCsv::parse(&text)
            .map_err(|e| LaunchError::new_err(format!("{}: {e}", path.display())))?;
        let row = csv
            .launch_of(&self.kernel, launch)
            .map_err(|e| LaunchError::new_err(format!("{}: {e}", path.display())))?;
        let totals = self
            .cache_report
            .variants
            .first()
            .map(|v| v.totals.clone())
            .unwrap_or_default();
        let cmp = ptxsim_report::ncu::compare(&path.display().to_string(), row, launch, &totals);
        report::to_py(py, &serde_json::to_value(&cmp).unwrap_or_default())
    }

    fn __repr__(&self) -> String {
        format!(
            "<ptxsim.Result kernel={:?} grid={:?} block={:?} gpu={} warp_instructions={}>",
            self.kernel, self.grid, self.block, self.gpu, self.warp_instructions
        )
    }
}

/// The `registers_per_thread` and `registers_source` arguments of `launch`: 1 to 255
/// registers, from `"flag"` (the caller) or `"triton"` (the compiled kernel's `n_regs`).
fn registers(n: Option<u32>, source: &str) -> PyResult<Option<ptx_exec::Registers>> {
    use ptx_exec::RegisterSource;
    let Some(per_thread) = n else {
        return Ok(None);
    };
    let max = ptxsim::launch::MAX_REGISTERS_PER_THREAD;
    if !(1..=max).contains(&per_thread) {
        return Err(LaunchError::new_err(format!(
            "registers_per_thread = {per_thread}: give the registers per thread ptxas reports, \
             1 to {max}"
        )));
    }
    let source = match source {
        "flag" => RegisterSource::Flag,
        "triton" => RegisterSource::Triton,
        "launch file" => RegisterSource::LaunchFile,
        other => {
            return Err(PyValueError::new_err(format!(
                "registers_source = {other:?}: give \"flag\" or \"triton\""
            )))
        }
    };
    Ok(Some(ptx_exec::Registers { per_thread, source }))
}

/// Runs `kernel` of the PTX module `source` (named `name` in messages) on the CPU.
///
/// `args` are in parameter order: `None` (null pointer), an object exposing a writable
/// C-contiguous byte buffer (the Python layer passes numpy arrays as uint8 views; the bytes
/// are copied in before and back after the run), or a bool/int/float typed by the parameter's
/// `.param` declaration.
#[pyfunction]
#[pyo3(signature = (name, source, kernel, grid, block, args, shared=0, gpu="h100", hazards=false, seed=0, max_steps=None, persisting_l2=0, timeout=None, threads=None, registers_per_thread=None, registers_source="flag", fmad=true, access_policy_window=None, counters_only=false))]
#[allow(clippy::too_many_arguments)]
fn launch(
    py: Python<'_>,
    name: &str,
    source: &[u8],
    kernel: &str,
    grid: Vec<u32>,
    block: Vec<u32>,
    args: Vec<Bound<'_, PyAny>>,
    shared: u32,
    gpu: &str,
    hazards: bool,
    seed: u64,
    max_steps: Option<u64>,
    persisting_l2: u64,
    timeout: Option<f64>,
    threads: Option<u32>,
    registers_per_thread: Option<u32>,
    registers_source: &str,
    fmad: bool,
    access_policy_window: Option<String>,
    counters_only: bool,
) -> PyResult<LaunchResult> {
    let registers = registers(registers_per_thread, registers_source)?;
    let threads = host_threads(threads)?;
    let timeout = timeout
        .map(|t| {
            ptxsim::launch::seconds(t).map_err(|e| PyValueError::new_err(format!("timeout: {e}")))
        })
        .transpose()?;
    let setup = setup::LaunchArgs {
        name,
        source,
        kernel,
        grid,
        block,
        args,
        gpu,
        persisting_l2,
        fmad,
    }
    .setup(py)?;
    let mut config = LaunchConfig {
        grid: setup.grid,
        block: setup.block,
        dynamic_shared: shared,
        seed,
        hazards,
        threads,
        registers,
        counters_only,
        ..LaunchConfig::default()
    };
    if let Some(m) = max_steps {
        config.max_steps = m;
    }
    config.timeout = timeout;
    let gpu_name = setup.gpu.name.clone();
    let launch = report::Launch {
        kernel,
        grid: setup.grid,
        block: setup.block,
        shared,
        gpu: &gpu_name,
        persisting_l2,
        seed,
        hazards,
    };
    // `ARG[+OFFSET]:BYTES:HIT_RATIO:HIT_PROP:MISS_PROP`, as the Python side writes it.
    let window = access_policy_window
        .map(|t| ptxsim::launch::WindowSpec::parse(&t))
        .transpose()
        .map_err(|e| LaunchError::new_err(format!("access_policy_window: {e}")))?;
    run_launch(py, name, &launch, setup, config, window)
}

/// `threads=`: 1 to `MAX_THREADS` host threads, or as many as the host has (at most that).
pub(crate) fn host_threads(threads: Option<u32>) -> PyResult<u32> {
    let max = ptx_exec::machine::MAX_THREADS;
    match threads {
        None => Ok(
            std::thread::available_parallelism().map_or(1, |n| n.get().min(max as usize) as u32)
        ),
        Some(n) if (1..=max).contains(&n) => Ok(n),
        Some(n) => Err(LaunchError::new_err(format!(
            "threads = {n}: give 1 to {max} host threads"
        ))),
    }
}

/// Runs the prepared launch with the GIL released, writes the buffers back in place and
/// builds the `Result`.
fn run_launch(
    py: Python<'_>,
    name: &str,
    launch: &report::Launch<'_>,
    setup: setup::Setup,
    config: LaunchConfig,
    window: Option<ptxsim::launch::WindowSpec>,
) -> PyResult<LaunchResult> {
    let setup::Setup {
        report: checked,
        gpu,
        session,
        specs,
        buffers,
        ..
    } = setup;
    let gpu_info = ptxsim_report::GpuInfo::from_config(&gpu);
    // Counters-only mode leaves the arrays as they were: the values were not computed.
    let counters_only = config.counters_only;
    let mut prepared = prepare(session, launch.kernel, specs, config).map_err(launch_error)?;
    prepared
        .apply_window(window.as_ref())
        .map_err(launch_error)?;

    // The run itself touches no Python object: let other Python threads go on meanwhile.
    let started = Instant::now();
    let run = py.detach(|| prepared.run());
    let elapsed = started.elapsed().as_secs_f64();
    // What device printf printed, kept on the exception too when the kernel faulted.
    let printed = prepared.session.last_printf.clone();
    let run = match run {
        Ok(r) => r,
        Err(e) => {
            let err = exec_error(py, name, e);
            err.value(py)
                .setattr("printf", PyList::new(py, &printed)?)?;
            return Err(err);
        }
    };
    if !counters_only {
        write_back(py, &buffers, &prepared)?;
    }

    let doc = report::build(launch, &prepared.session, &run);
    let cache_report = report::cache_report(
        name,
        &checked.file.text,
        launch,
        gpu_info,
        &prepared.session,
        &run,
    );
    let residency = run.residency.as_ref();
    Ok(LaunchResult {
        kernel: launch.kernel.to_string(),
        grid: launch.grid.into(),
        block: launch.block.into(),
        shared: launch.shared,
        gpu: launch.gpu.to_string(),
        persisting_l2: launch.persisting_l2,
        seed: launch.seed,
        warp_instructions: run.warp_instructions,
        thread_instructions: run.thread_instructions,
        cp_async_bytes: run.cp_async_bytes,
        threads: run.threads,
        threads_note: run.threads_note.clone(),
        counters_only: run.counters_only.as_ref().map(|c| c.describe()),
        elapsed,
        stats: report::to_py(py, &doc.stats)?.unbind(),
        lines: report::to_py(py, &doc.lines)?.unbind(),
        hazards: report::to_py(py, &doc.hazards)?.unbind(),
        printf: printed,
        registers_per_thread: residency.map_or(0, |r| r.registers_per_thread),
        registers_source: residency
            .and_then(|r| r.registers_source)
            .map_or("-", |s| s.label())
            .to_string(),
        ctas_per_sm: residency.map_or(0, |r| r.ctas_per_sm),
        limited_by: residency.map(limit_names).unwrap_or_default(),
        summary_text: doc.summary,
        json: doc.json,
        cache_report,
    })
}

/// The limits that bound the residency, by their JSON names (`"warps"`, `"registers"`, ...).
fn limit_names(r: &ptx_exec::Residency) -> Vec<String> {
    r.limited_by
        .iter()
        .map(|l| {
            serde_json::to_value(l)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        })
        .collect()
}

/// Writes the buffers back in place, like a copy to the host after a real launch; a
/// read-only buffer the kernel changed is an error.
fn write_back(
    py: Python<'_>,
    buffers: &[(usize, PyBuffer<u8>)],
    prepared: &ptxsim::launch::PreparedLaunch,
) -> PyResult<()> {
    for (i, buf) in buffers {
        let out = prepared
            .output(*i)
            .map_err(|e| PtxsimError::new_err(format!("argument {i}: {e}")))?;
        if buf.readonly() {
            if buf.to_vec(py)? != out.bytes {
                return Err(LaunchError::new_err(format!(
                    "argument {i} is read-only, but the kernel wrote to it; pass a writable array"
                )));
            }
            continue;
        }
        buf.copy_from_slice(py, &out.bytes)?;
    }
    Ok(())
}

/// The launch's argument specs from the Python arguments (typed by the kernel's `.param`
/// declarations), and the buffers to write back after the run.
#[allow(clippy::type_complexity)]
fn arg_specs(
    py: Python<'_>,
    args: &[Bound<'_, PyAny>],
    params: &[(String, ptx_isa::ScalarType)],
) -> PyResult<(Vec<ArgSpec>, Vec<(usize, PyBuffer<u8>)>)> {
    let mut specs = Vec::with_capacity(args.len());
    let mut buffers: Vec<(usize, PyBuffer<u8>)> = Vec::new();
    for (i, (arg, (pname, pty))) in args.iter().zip(params.iter()).enumerate() {
        match args::classify(arg).map_err(|m| PyTypeError::new_err(format!("argument {i}: {m}")))? {
            ArgKind::Null => specs.push(ArgSpec::Null),
            ArgKind::Scalar(value) => {
                let bits = scalar_bits(&value, *pty).map_err(|m| {
                    LaunchError::new_err(format!("argument {i} (parameter `{pname}`): {m}"))
                })?;
                specs.push(ArgSpec::Scalar { ty: *pty, bits });
            }
            ArgKind::TensorMap => {
                let keys: String = arg.get_item(1)?.extract()?;
                let obj = arg.get_item(2)?;
                let buf = PyBuffer::<u8>::get(&obj).map_err(|e| {
                    PyTypeError::new_err(format!(
                        "argument {i}: the tensor map's array is not a byte buffer ({e})"
                    ))
                })?;
                if !buf.is_c_contiguous() {
                    return Err(LaunchError::new_err(format!(
                        "argument {i}: the tensor map's array is not C-contiguous"
                    )));
                }
                let bytes = buf.to_vec(py)?;
                let spec = tensor_map_spec(
                    &format!("argument {i} (tensor map {keys})"),
                    &keys,
                    Array {
                        ty: ptx_isa::ScalarType::U8,
                        bytes,
                    },
                )
                .map_err(launch_error)?;
                specs.push(spec);
                buffers.push((i, buf));
            }
            ArgKind::Buffer => {
                let buf = PyBuffer::<u8>::get(arg).map_err(|e| {
                    PyTypeError::new_err(format!(
                        "argument {i}: not a byte buffer ({e}); pass a numpy array"
                    ))
                })?;
                if !buf.is_c_contiguous() {
                    return Err(LaunchError::new_err(format!(
                        "argument {i}: the buffer is not C-contiguous (a device buffer is one contiguous range); pass np.ascontiguousarray(a) and read the result from it"
                    )));
                }
                let bytes = buf.to_vec(py)?;
                specs.push(ArgSpec::Buffer(Array {
                    ty: ptx_isa::ScalarType::U8,
                    bytes,
                }));
                buffers.push((i, buf));
            }
        }
    }
    Ok((specs, buffers))
}

/// The parameters of `kernel` in the PTX `source`: (name, type without the dot), e.g.
/// `("n", "u32")`; what a launch file's `TYPE:VALUE` scalars name.
#[pyfunction]
fn kernel_params(
    py: Python<'_>,
    name: &str,
    source: &[u8],
    kernel: &str,
) -> PyResult<Vec<(String, String)>> {
    let report = check_source(name, source, &CheckOptions::default());
    let Some(module) = &report.module else {
        return Err(PtxSyntaxError::new_err(format!(
            "{name}: the module does not parse"
        )));
    };
    let session = Session::new(module, &report.file.text, GpuConfig::default())
        .map_err(|e| exec_error(py, name, e))?;
    let params = session
        .kernel_params(kernel)
        .map_err(|e| exec_error(py, name, e))?;
    Ok(params
        .into_iter()
        .map(|(n, t)| (n, t.token().trim_start_matches('.').to_string()))
        .collect())
}

/// The names of the GPU presets `gpu=` takes (besides a TOML file).
#[pyfunction]
fn gpu_presets() -> Vec<&'static str> {
    vec!["a100", "h100", "b200"]
}

#[pymodule]
#[pyo3(name = "_native")]
fn native_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(launch, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(gpu_presets, m)?)?;
    m.add_function(wrap_pyfunction!(kernel_params, m)?)?;
    m.add_function(wrap_pyfunction!(experiment::compare, m)?)?;
    m.add_function(wrap_pyfunction!(experiment::advise, m)?)?;
    m.add_class::<experiment::PyReport>()?;
    m.add_function(wrap_pyfunction!(sweep::sweep_read_spec, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::sweep_plan, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::sweep_describe, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::sweep_point, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::sweep_store, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::sweep_finish, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::sweep_local, m)?)?;
    m.add_class::<LaunchResult>()?;
    m.add_class::<Diagnostic>()?;
    m.add("PtxsimError", py.get_type::<PtxsimError>())?;
    m.add("PtxSyntaxError", py.get_type::<PtxSyntaxError>())?;
    m.add("PtxValidationError", py.get_type::<PtxValidationError>())?;
    m.add("UnsupportedError", py.get_type::<UnsupportedError>())?;
    m.add("LaunchError", py.get_type::<LaunchError>())?;
    m.add("ResourceError", py.get_type::<ResourceError>())?;
    m.add("KernelFault", py.get_type::<KernelFault>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
