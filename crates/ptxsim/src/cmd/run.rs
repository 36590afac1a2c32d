//! `ptxsim run`: launch a kernel from the command line or a launch file, optionally with a
//! cache report (`--report text|json|html`).

use crate::cmd::progress::Progress;
use clap::{Args as ClapArgs, ValueEnum};
use memsys::GpuConfig;
use ptx_exec::{LaunchConfig, RunSummary};
use ptxsim::launch::{
    self, check_runnable, compare, dims, load_session_with, parse_arg_within, prepare, read_npy,
    write_npy, ArgSpec, Expect, LaunchFile, PreparedLaunch,
};
use ptxsim_report::{model, GpuInfo, LaunchInfo, Report};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

/// The launch: a PTX file with options, or a launch file (shared by `run` and `compare`).
#[derive(ClapArgs, Clone)]
pub struct LaunchArgs {
    /// The PTX file (omit with --launch).
    pub ptx: Option<PathBuf>,
    /// A TOML launch file (docs/launch-format.md) instead of the options below.
    #[arg(long, conflicts_with_all = ["ptx", "kernel", "grid", "block", "arg"])]
    pub launch: Option<PathBuf>,
    /// The kernel (.entry) to run.
    #[arg(long)]
    pub kernel: Option<String>,
    /// Grid dimensions: X[,Y[,Z]].
    #[arg(long, value_delimiter = ',')]
    pub grid: Vec<u32>,
    /// Block dimensions: X[,Y[,Z]].
    #[arg(long, value_delimiter = ',')]
    pub block: Vec<u32>,
    /// Dynamic shared memory in bytes.
    #[arg(long, default_value_t = 0)]
    pub shared: u32,
    /// Kernel arguments in parameter order: PATH.npy, PATH.bin, zeros:TYPE:COUNT, null, TYPE:VALUE
    /// or tensormap[KEY=VALUE,...]:BUFFER.
    #[arg(long = "arg")]
    pub arg: Vec<String>,
    /// Seed of the warp interleaving (0: the default order).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Fault after this many warp-instructions.
    #[arg(long)]
    pub max_steps: Option<u64>,
    /// Fault once a launch has run this many seconds of wall-clock time (a fraction is fine).
    #[arg(long, value_name = "SECONDS", value_parser = launch::parse_timeout)]
    pub timeout: Option<std::time::Duration>,
    /// GPU model: a100, h100, b200, or a TOML file overriding a preset.
    #[arg(long, default_value = "h100")]
    pub gpu: String,
    /// The persisting-L2 set-aside in bytes (cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize,
    /// N)): an integer, or with a KiB/MiB/GiB suffix. Overrides the launch file's
    /// `persisting_l2`; default 0, as in a fresh CUDA context.
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes_arg)]
    pub persisting_l2: Option<u64>,
    /// Host threads that run the launch (default: the available cores). Outputs and counters
    /// are the same for every count: CTAs run their CTA-local work in parallel, and every
    /// access to global memory in a fixed order.
    #[arg(long, value_name = "N", value_parser = parse_threads)]
    pub threads: Option<u32>,
    /// Registers per thread of the kernel, as `ptxas -v` or `nvcc --resource-usage` print
    /// them (1 to 255): with the block and shared memory they decide the CTAs each SM holds.
    /// Overrides the launch file's `registers_per_thread`; default: estimated from the PTX.
    #[arg(long, value_name = "N", value_parser = parse_registers)]
    pub registers_per_thread: Option<u32>,
    /// ptxas's `--fmad` the code was assembled with: `--fmad=false` runs `mul` + `add`/`sub`
    /// without rounding modifiers as two roundings; default true (contracted into fused
    /// multiply-adds where ptxas contracts them), or the launch file's `fmad`.
    #[arg(long, value_name = "BOOL", num_args = 1, require_equals = false)]
    pub fmad: Option<bool>,
    /// The launch's access policy window (cudaStreamAttrValue.accessPolicyWindow):
    /// ARG[+OFFSET]:BYTES:HIT_RATIO:HIT_PROP:MISS_PROP, ARG an argument index (a buffer
    /// name in a multi-step launch file, where it applies to every kernel step), BYTES an
    /// integer or with a KiB/MiB/GiB suffix, the properties normal, streaming or persisting
    /// (e.g. `2:1MiB:0.6:persisting:streaming`). Overrides the launch file's
    /// `[access_policy_window]`.
    #[arg(long, value_name = "WINDOW", value_parser = launch::parse_window_arg)]
    pub access_policy_window: Option<launch::WindowSpec>,
    /// Compute only what the counters depend on (addresses, branches, predicates, barriers,
    /// memory operations) and skip the rest of the arithmetic: the counters, per-line tables
    /// and time estimate are those of the full run, the output buffers are not (no --out;
    /// expectations are not checked). A launch whose addresses or branches would come from a
    /// value it skipped runs again in full mode, and says so. --hazards runs in full mode.
    #[arg(long)]
    pub counters_only: bool,
}

/// clap's parser for `--registers-per-thread`: 1 to 255 (the most registers a thread has,
/// CUDA C++ Programming Guide, compute capability table).
pub fn parse_registers(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(n) if (1..=launch::MAX_REGISTERS_PER_THREAD).contains(&n) => Ok(n),
        _ => Err(format!(
            "`{text}`: give the registers per thread ptxas reports, 1 to {}",
            launch::MAX_REGISTERS_PER_THREAD
        )),
    }
}

/// The registers of a launch: the command line's if given, else the launch file's (a step's
/// before the file's), else none (the interpreter estimates them).
pub fn registers_of(cli: Option<u32>, file: Option<u32>) -> Option<ptx_exec::Registers> {
    use ptx_exec::RegisterSource;
    match (cli, file) {
        (Some(n), _) => Some((n, RegisterSource::Flag)),
        (None, Some(n)) => Some((n, RegisterSource::LaunchFile)),
        (None, None) => None,
    }
    .map(|(per_thread, source)| ptx_exec::Registers { per_thread, source })
}

/// clap's parser for `--threads`: 1 to [`ptx_exec::machine::MAX_THREADS`].
pub fn parse_threads(text: &str) -> Result<u32, String> {
    let max = ptx_exec::machine::MAX_THREADS;
    match text.trim().parse::<u32>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!(
            "`{text}`: give a number of threads from 1 to {max}"
        )),
    }
}

/// How many host threads a launch ran on, for its status line: " on 2 threads", or why it ran
/// on one.
pub fn threads_text(summary: &RunSummary) -> String {
    match (&summary.threads_note, summary.threads) {
        (Some(note), _) => format!(" ({note})"),
        (None, 1) => " on 1 thread".to_string(),
        (None, n) => format!(" on {n} threads"),
    }
}

/// The thread count a launch runs on: `--threads`, or the cores available to this process.
pub fn threads_or_default(threads: Option<u32>) -> u32 {
    threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(1024) as u32)
    })
}

/// clap's parser for byte counts (`4194304`, `4MiB`).
pub fn parse_bytes_arg(text: &str) -> Result<u64, String> {
    GpuConfig::parse_bytes(text).map_err(|e| e.to_string())
}

/// Applies the set-aside: the command line's if given, else the launch file's, else 0.
pub fn apply_persisting_l2(
    gpu: &mut GpuConfig,
    cli: Option<u64>,
    file: Option<u64>,
) -> Result<(), String> {
    let (bytes, from) = match (cli, file) {
        (Some(b), _) => (b, "--persisting-l2"),
        (None, Some(b)) => (b, "persisting_l2 (launch file)"),
        (None, None) => return Ok(()),
    };
    gpu.set_persisting_l2(bytes)
        .map_err(|e| format!("{from}: {e}"))
}

/// What happens to L2 between the kernel steps of a launch file (Nsight Compute's
/// `--cache-control`).
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CacheControl {
    All,
    None,
}

impl CacheControl {
    /// The flag if given, else the launch file's `cache_control` key, else `all` (as Nsight
    /// Compute's default).
    pub(crate) fn resolve(flag: Option<CacheControl>, file: &ptxsim::launch::LaunchFile) -> Self {
        flag.unwrap_or(match file.cache_control.as_deref() {
            Some("none") => CacheControl::None,
            _ => CacheControl::All,
        })
    }
}

/// Report formats.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    Text,
    Json,
    Html,
}

#[derive(ClapArgs)]
pub struct Args {
    #[command(flatten)]
    pub(crate) launch: LaunchArgs,
    /// Write argument I's buffer after the run: I=PATH.npy or I=PATH.bin.
    #[arg(long = "out")]
    pub(crate) out: Vec<String>,
    /// Run without the cache model (global memory accessed directly; no cache statistics).
    #[arg(long, conflicts_with = "report")]
    pub(crate) no_cache_model: bool,
    /// Multi-step launch files: `all` (default) writes back and discards L2 before each
    /// kernel step, as Nsight Compute's default `--cache-control all` does, so each step's
    /// counters are those of a cold start; `none` keeps L2 from step to step, as back-to-back
    /// launches on a GPU do (persisting lines, access policy windows and
    /// `reset_persisting_l2` steps show across kernels only with `none`). L1 is invalidated
    /// at every launch either way. Overrides the launch file's `cache_control`.
    #[arg(long, value_enum)]
    pub(crate) cache_control: Option<CacheControl>,
    /// Print a cache report: per-level summary, per-line counters, top lines by DRAM traffic
    /// (text), the same as JSON (docs/report.schema.json), or a self-contained HTML page.
    /// A multi-step launch file gets one report per kernel step (text, or a JSON array).
    #[arg(long, value_enum)]
    pub(crate) report: Option<ReportFormat>,
    /// Write the report to this file instead of stdout.
    #[arg(long, requires = "report")]
    pub(crate) report_out: Option<PathBuf>,
    /// Report cache-semantics hazards: stale L1 reads, ld.global.nc of data written in the
    /// launch, accesses to unfinished cp.async copies, weak spins on flags other CTAs write.
    #[arg(long)]
    pub(crate) hazards: bool,
    /// With --hazards: exit 3 if any hazard is found.
    #[arg(long, requires = "hazards")]
    pub(crate) fail_on_hazard: bool,
    /// With --hazards: also write the reports as JSON to this file.
    #[arg(long, requires = "hazards")]
    pub(crate) hazards_json: Option<PathBuf>,
    /// Write every global-memory request the launch handed to the cache model, coalesced into
    /// sector runs per line, as a text trace for `ptxsim replay` (docs/trace-format.md).
    #[arg(long, value_name = "FILE", conflicts_with = "no_cache_model")]
    pub(crate) trace_out: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) ncu: super::ncu::NcuArgs,
}

pub fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
}

/// Resolves `--gpu`: a preset name or a TOML file.
pub fn gpu_config(spec: &str) -> Result<GpuConfig, String> {
    if Path::new(spec).extension().is_some_and(|e| e == "toml") {
        let text = std::fs::read_to_string(spec).map_err(|e| format!("cannot read {spec}: {e}"))?;
        GpuConfig::from_toml(&text).map_err(|e| format!("{spec}: {e}"))
    } else {
        GpuConfig::preset(spec).map_err(|e| e.to_string())
    }
}

/// A launch with every option resolved.
pub struct Resolved {
    pub ptx: PathBuf,
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared: u32,
    pub specs: Vec<ArgSpec>,
    /// `--out` entries of the launch file (`I=PATH`, paths resolved).
    pub file_outs: Vec<String>,
    pub expects: Vec<Expect>,
    pub seed: u64,
    pub max_steps: Option<u64>,
    pub timeout: Option<std::time::Duration>,
    /// Host threads (`--threads`, default the available cores).
    pub threads: u32,
    /// Registers per thread (`--registers-per-thread`, `registers_per_thread`); `None`:
    /// estimated.
    pub registers: Option<ptx_exec::Registers>,
    /// ptxas `--fmad` (`--fmad`, the launch file's `fmad`, default true).
    pub fmad: bool,
    /// The access policy window (`--access-policy-window`, else the launch file's).
    pub window: Option<launch::WindowSpec>,
    /// `--counters-only`.
    pub counters_only: bool,
    pub gpu: GpuConfig,
    /// The directory launch-file paths are relative to.
    pub base: PathBuf,
}

impl Resolved {
    pub fn config(&self, cache_model: bool) -> LaunchConfig {
        let mut config = LaunchConfig {
            grid: self.grid,
            block: self.block,
            dynamic_shared: self.shared,
            seed: self.seed,
            cache_model,
            threads: self.threads,
            registers: self.registers,
            counters_only: self.counters_only,
            ..LaunchConfig::default()
        };
        if let Some(m) = self.max_steps {
            config.max_steps = m;
        }
        config.timeout = self.timeout;
        config
    }

    /// The report's launch; `program` gives the module's static shared memory.
    pub fn launch_info(&self, program: &ptx_exec::Program) -> LaunchInfo {
        self.launch_info_shared(program.static_shared_bytes)
    }

    /// The report's launch with `static_shared` bytes of static shared memory.
    pub fn launch_info_shared(&self, static_shared: u32) -> LaunchInfo {
        LaunchInfo {
            ptx: self.ptx.display().to_string(),
            kernel: self.kernel.clone(),
            grid: self.grid,
            block: self.block,
            shared_bytes: self.shared,
            static_shared_bytes: static_shared,
            seed: self.seed,
            access_policy_window: None,
            persisting_reset_lines: None,
        }
    }
}

/// Gathers the launch from the launch file or the options.
pub fn resolve(args: &LaunchArgs) -> Result<Resolved, String> {
    let mut file_persisting = None;
    let mut file_registers = None;
    let mut file_fmad = None;
    let mut file_window = None;
    let mut timeout = args.timeout;
    let (ptx, kernel, grid, block, shared, specs, file_outs, expects, seed, max_steps, gpu, base) =
        if let Some(path) = &args.launch {
            let (file, base) = LaunchFile::read(path).map_err(|e| e.to_string())?;
            if file.is_multi_step() {
                return Err(format!(
                    "{} is a multi-step launch file: `ptxsim run --launch` runs it (with \
                     --hazards, --out NAME=PATH, --seed, --gpu, --report text|json: one report per \
                     kernel step), and so do `compare` and `advise`; --trace-out and \
                     --ncu-csv take one-kernel launches",
                    path.display()
                ));
            }
            if timeout.is_none() {
                timeout = file.timeout()?;
            }
            let outs: Vec<String> = file
                .out
                .iter()
                .map(|(i, p)| format!("{i}={}", base.join(p).display()))
                .collect();
            // A GPU TOML named by the launch file is relative to it, like its other paths.
            let gpu = match file.gpu {
                Some(g) if g.ends_with(".toml") => base.join(g).display().to_string(),
                Some(g) => g,
                None => args.gpu.clone(),
            };
            file_persisting = file.persisting_l2;
            file_registers = file.registers_per_thread;
            file_fmad = file.fmad;
            file_window = file.access_policy_window.clone();
            (
                base.join(&file.ptx),
                file.kernel,
                file.grid,
                file.block,
                file.shared,
                file.args,
                outs,
                file.expect,
                args.seed.unwrap_or(file.seed),
                args.max_steps.or(file.max_steps),
                gpu,
                base,
            )
        } else {
            let ptx = args
                .ptx
                .clone()
                .ok_or("give a PTX file (or --launch FILE)")?;
            let kernel = args.kernel.clone().ok_or("--kernel is required")?;
            (
                ptx,
                kernel,
                args.grid.clone(),
                args.block.clone(),
                args.shared,
                args.arg.clone(),
                Vec::new(),
                Vec::new(),
                args.seed.unwrap_or(0),
                args.max_steps,
                args.gpu.clone(),
                PathBuf::from("."),
            )
        };
    let mut gpu = gpu_config(&gpu)?;
    apply_persisting_l2(&mut gpu, args.persisting_l2, file_persisting)?;
    let grid = dims(&grid, "--grid").map_err(|e| e.to_string())?;
    let block = dims(&block, "--block").map_err(|e| e.to_string())?;
    let specs = specs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            parse_arg_within(s, &base, gpu.memory_bytes)
                .map_err(|e| format!("argument {i}: {e} (the {} model)", gpu.name))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Resolved {
        ptx,
        kernel,
        grid,
        block,
        shared,
        specs,
        file_outs,
        expects,
        seed,
        max_steps,
        timeout,
        threads: threads_or_default(args.threads),
        registers: registers_of(args.registers_per_thread, file_registers),
        fmad: args.fmad.or(file_fmad).unwrap_or(true),
        window: args.access_policy_window.clone().or(file_window),
        counters_only: args.counters_only,
        gpu,
        base,
    })
}

/// Samples of the L2 occupancy timeline a report asks for when the GPU model sets none.
pub const REPORT_TIMELINE_INTERVAL: u64 = 64;

/// Runs a prepared launch with a progress display; a fault is an error message and exit code.
pub fn run_launch(
    prepared: &mut PreparedLaunch,
    label: &str,
) -> Result<(RunSummary, std::time::Duration), (String, ExitCode)> {
    let counter = Arc::new(AtomicU64::new(0));
    prepared.config.progress = Some(counter.clone());
    let progress = Progress::start(label, counter);
    let started = std::time::Instant::now();
    let result = prepared.run();
    progress.finish();
    match result {
        Ok(s) => Ok((s, started.elapsed())),
        Err(e) => Err(exec_failure(e)),
    }
}

/// The message and exit code of a failed launch: 2 for a wrong launch or one past the GPU's
/// (or the host's) resources, 1 for a kernel fault (including the step and time limits).
pub fn exec_failure(e: ptx_exec::ExecError) -> (String, ExitCode) {
    match e {
        ptx_exec::ExecError::Launch(msg) | ptx_exec::ExecError::Resource(msg) => {
            (msg, ExitCode::from(2))
        }
        e if e.is_resource_limit() => (e.to_string(), ExitCode::from(2)),
        e => (e.to_string(), ExitCode::from(1)),
    }
}

/// Runs step `i` of a multi-step launch with a progress display; `None` for a memset.
pub fn run_launch_steps(
    prepared: &mut launch::PreparedSteps,
    i: usize,
    config: &LaunchConfig,
    label: &str,
) -> Result<Option<(RunSummary, std::time::Duration)>, (String, ExitCode)> {
    let counter = Arc::new(AtomicU64::new(0));
    let config = LaunchConfig {
        progress: Some(counter.clone()),
        ..config.clone()
    };
    let progress = Progress::start(label, counter);
    let started = std::time::Instant::now();
    let result = prepared.run_step(i, &config);
    progress.finish();
    match result {
        Ok(s) => Ok(s.map(|s| (s, started.elapsed()))),
        Err(e) => Err(exec_failure(e)),
    }
}

/// Checks the launch file's expectations; prints one line each; true if all match.
pub fn check_expects(
    prepared: &PreparedLaunch,
    expects: &[Expect],
    base: &Path,
    say: &dyn Fn(String),
) -> Result<bool, String> {
    let mut ok = true;
    for ex in expects {
        let want = read_npy(&base.join(&ex.npy)).map_err(|e| e.to_string())?;
        let arg = ex.arg.ok_or("[[expect]] without `arg`")?;
        let got = prepared.output(arg).map_err(|e| e.to_string())?;
        match compare(&got, &want, ex.max_ulp).map_err(|e| e.to_string())? {
            c if c.mismatches == 0 => say(format!(
                "expect: {} matches {} ({} elements, max {} ulp, bound {})",
                ex.what(),
                ex.npy.display(),
                c.elements,
                c.max_ulp_seen,
                ex.max_ulp
            )),
            c => {
                ok = false;
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
        }
    }
    Ok(ok)
}

/// Prints what the last launch's device `printf` calls printed (to stderr when stdout carries
/// a JSON or HTML report).
pub fn print_device_output(session: &ptx_exec::Session, to_stderr: bool) {
    use std::io::Write;
    let text: String = session.last_printf.concat();
    if text.is_empty() {
        return;
    }
    if to_stderr {
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    } else {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(text.as_bytes()).and_then(|_| out.flush());
    }
}

impl Args {
    /// Whether a JSON or HTML report goes to stdout, keeping it for itself (the status lines
    /// then go to stderr).
    pub(crate) fn report_on_stdout(&self) -> bool {
        matches!(self.report, Some(ReportFormat::Json | ReportFormat::Html))
            && self.report_out.is_none()
    }
}

/// Prints a status line: to stdout, or to stderr when stdout carries a report.
pub fn status_line(to_stderr: bool, line: String) {
    if to_stderr {
        eprintln!("{line}");
    } else {
        println!("{line}");
    }
}

/// Writes a rendered `run` report where `--report-out` says (or to stdout, a text report
/// after a blank line), and says where it went.
pub fn deliver_report(text: &str, format: ReportFormat, args: &Args) -> Result<(), ExitCode> {
    if format == ReportFormat::Text && args.report_out.is_none() {
        println!();
    }
    if let Err(e) = emit_report(text, args.report_out.as_deref()) {
        eprintln!("error: {e}");
        return Err(ExitCode::from(1));
    }
    if let Some(p) = &args.report_out {
        eprintln!("wrote the report to {}", p.display());
    }
    Ok(())
}

/// Writes a rendered report to `out` or stdout.
pub fn emit_report(text: &str, out: Option<&Path>) -> Result<(), String> {
    match out {
        Some(path) => ptxsim::output::write_atomic(path, text.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display())),
        None => {
            use std::io::Write;
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(text.as_bytes())
                .and_then(|_| stdout.flush())
                .map_err(|e| format!("cannot write the report: {e}"))
        }
    }
}

/// What `--counters-only` did, for the status lines (`None` without it).
pub fn counters_only_line(asked: bool, hazards: bool, summary: &RunSummary) -> Option<String> {
    match &summary.counters_only {
        Some(c) => Some(c.describe()),
        None if asked && hazards => {
            Some("counters-only: --hazards compares values, so the launch ran in full mode".into())
        }
        None => None,
    }
}

/// `--counters-only` with an option that needs the values it skips: a usage error.
pub(crate) fn counters_only_conflicts(args: &Args) -> Result<(), String> {
    if args.launch.counters_only && !args.out.is_empty() {
        return Err(
            "--out writes output buffers, which --counters-only does not compute (it \
             skips the arithmetic the counters do not depend on): drop one of them"
                .into(),
        );
    }
    Ok(())
}

pub fn run(args: Args) -> ExitCode {
    if let Some(path) = &args.launch.launch {
        match LaunchFile::read(path) {
            Ok((file, _)) if file.is_multi_step() && args.ncu.ncu_csv.is_some() => {
                return fail("--ncu-csv takes a one-kernel launch (run a step's kernel alone)")
            }
            Ok((file, base)) if file.is_multi_step() => {
                return super::steps::run(&args.launch, &args, file, &base)
            }
            Ok(_) => {}
            Err(e) => return fail(e),
        }
    }
    let mut r = match resolve(&args.launch) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    // The export is read (and its launch picked) before the run; it implies a text report.
    let ncu = match args.ncu.load(&r.kernel) {
        Ok(n) => n,
        Err(e) => return fail(e),
    };
    if ncu.is_some() && args.no_cache_model {
        return fail("--ncu-csv compares the cache model's counters: drop --no-cache-model");
    }
    let report_format = args.report.or(ncu.as_ref().map(|_| ReportFormat::Text));
    let quiet_stdout = args.report_on_stdout();
    if quiet_stdout && args.hazards {
        return fail(
            "--hazards prints to stdout: give --report-out PATH for a JSON or HTML report",
        );
    }
    let say = |line: String| status_line(quiet_stdout, line);
    if let Err(e) = counters_only_conflicts(&args) {
        return fail(e);
    }
    if r.counters_only {
        // The launch file's outputs and expectations need the values the mode skips.
        for (what, n) in [
            ("outputs", r.file_outs.len()),
            ("expectations", r.expects.len()),
        ] {
            if n > 0 {
                say(format!(
                    "counters-only: the launch file's {n} {what} are not written or checked \
                     (the mode does not compute output values)"
                ));
            }
        }
        r.file_outs.clear();
        r.expects.clear();
    }
    let outputs = match output_requests(&r.file_outs, &args.out) {
        Ok(o) => o,
        Err(e) => return fail(e),
    };
    if report_format.is_some() && r.gpu.timeline_interval == 0 {
        r.gpu.timeline_interval = REPORT_TIMELINE_INTERVAL;
    }
    let session = match load_session_with(&r.ptx, r.gpu.clone(), r.fmad)
        .and_then(|s| check_runnable(&s, &r.kernel, &r.ptx).map(|()| s))
    {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let mut config = r.config(!args.no_cache_model);
    config.hazards = args.hazards;
    let mut prepared = match prepare(session, &r.kernel, r.specs.clone(), config)
        .and_then(|mut p| p.apply_window(r.window.as_ref()).map(|()| p))
    {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    // `--out I=PATH` of an argument that is no buffer fails now, not after a long run.
    if let Err(e) = check_output_args(&prepared, &outputs) {
        return fail(e);
    }
    // The trace's file is created (beside its destination) before the launch, so a bad path
    // fails before a long run; it replaces the destination once written.
    let trace_file = match &args.trace_out {
        Some(path) => match ptxsim::output::pending(path) {
            Ok(f) => {
                prepared.session.mem.record_trace(true);
                Some((path.as_path(), f))
            }
            Err(e) => {
                eprintln!("error: cannot write the trace to {}: {e}", path.display());
                return ExitCode::from(1);
            }
        },
        None => None,
    };
    let result = run_launch(&mut prepared, &r.kernel);
    // Device printf output, as the runtime prints it when the kernel ends (also after a fault).
    print_device_output(&prepared.session, quiet_stdout);
    // The trace is written even when the launch faulted: the requests up to the fault.
    let mut trace_line = None;
    if let Some((path, file)) = trace_file {
        let line = match write_trace(&mut prepared, &r, path, file, result.is_err()) {
            Ok(line) => line,
            Err(code) => return code,
        };
        if result.is_ok() {
            trace_line = Some(line);
        } else {
            eprintln!("{line}");
        }
    }
    // Hazards found before a fault are reported too.
    let hazards_found = if args.hazards {
        let source = std::fs::read_to_string(&r.ptx).ok();
        match super::hazards::report(
            &prepared.session,
            source.as_deref(),
            &r.kernel,
            args.hazards_json.as_deref(),
        ) {
            Ok(n) => n,
            Err(e) => return fail(e),
        }
    } else {
        0
    };
    let (summary, elapsed) = match result {
        Ok(x) => x,
        Err((msg, code)) => {
            eprintln!("error: {msg}");
            return code;
        }
    };
    say(ran_line(&r, &summary, elapsed));
    if let Some(line) = counters_only_line(r.counters_only, args.hazards, &summary) {
        say(line);
    }
    if let Some(line) = trace_line {
        say(line);
    }
    if let Err(code) = write_outputs(&prepared, &outputs, &say) {
        return code;
    }
    let matched = match check_expects(&prepared, &r.expects, &r.base, &say) {
        Ok(m) => m,
        Err(e) => return fail(e),
    };
    if let Some(format) = report_format {
        let text = render_report(&prepared, &r, &summary, format, ncu.as_ref());
        if let Err(code) = deliver_report(&text, format, &args) {
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

/// The `--out I=PATH` requests of the launch file and the command line, in that order.
fn output_requests(
    file_outs: &[String],
    cli_outs: &[String],
) -> Result<Vec<(usize, PathBuf)>, String> {
    let mut outputs = Vec::new();
    for o in file_outs.iter().chain(cli_outs) {
        let Some((i, path)) = o.split_once('=') else {
            return Err(format!("--out `{o}`: write I=PATH"));
        };
        let Ok(i) = i.parse::<usize>() else {
            return Err(format!("--out `{o}`: `{i}` is not an argument index"));
        };
        outputs.push((i, PathBuf::from(path)));
    }
    Ok(outputs)
}

/// Every `--out I=PATH` names a buffer argument of the launch.
fn check_output_args(
    prepared: &PreparedLaunch,
    outputs: &[(usize, PathBuf)],
) -> Result<(), String> {
    for (i, _) in outputs {
        if prepared.buffers.iter().any(|b| b.0 == *i) {
            continue;
        }
        let what = match prepared.args.get(*i) {
            None => format!("the launch has {} arguments", prepared.args.len()),
            Some(ptx_exec::KernelArg::Scalar { ty, .. }) => {
                format!("argument {i} is a scalar ({})", ty.token())
            }
            Some(ptx_exec::KernelArg::Pointer(0)) => format!("argument {i} is null"),
            Some(_) => format!("argument {i} is not a buffer"),
        };
        return Err(format!("--out {i}: {what}; --out writes a buffer argument"));
    }
    Ok(())
}

/// Writes the requests the launch recorded to `--trace-out`'s pending file and puts it in
/// place; returns the status line, or the exit code of a failed write.
fn write_trace(
    prepared: &mut PreparedLaunch,
    r: &Resolved,
    path: &Path,
    file: tempfile::NamedTempFile,
    faulted: bool,
) -> Result<String, ExitCode> {
    let accesses = prepared.session.mem.take_recorded();
    prepared.session.mem.record_trace(false);
    let mut header = ptxsim::trace_out::header(&r.kernel, r.grid, r.block, &r.gpu.name);
    if faulted {
        header.push_str(" (the launch faulted: the requests before the fault)");
    }
    let w = std::io::BufWriter::with_capacity(1 << 16, file.as_file());
    let written = ptxsim::trace_out::write_trace(w, &header, &accesses)
        .and_then(|()| file.persist(path).map(drop).map_err(|e| e.error));
    if let Err(e) = written {
        eprintln!("error: cannot write the trace to {}: {e}", path.display());
        return Err(ExitCode::from(1));
    }
    Ok(format!(
        "wrote {} accesses to {}",
        accesses.len(),
        path.display()
    ))
}

/// The status line of a finished launch: its shape, how much it executed, how long it took
/// and on how many threads.
fn ran_line(r: &Resolved, summary: &RunSummary, elapsed: std::time::Duration) -> String {
    let (grid, block) = (r.grid, r.block);
    format!(
        "ran `{}` grid ({},{},{}) block ({},{},{}): {} warp-instructions, {} thread-instructions in {:.3} s{}",
        r.kernel,
        grid[0],
        grid[1],
        grid[2],
        block[0],
        block[1],
        block[2],
        summary.warp_instructions,
        summary.thread_instructions,
        elapsed.as_secs_f64(),
        threads_text(summary)
    )
}

/// Writes each requested argument (`.bin`: raw bytes, otherwise `.npy`) atomically.
fn write_outputs(
    prepared: &PreparedLaunch,
    outputs: &[(usize, PathBuf)],
    say: &dyn Fn(String),
) -> Result<(), ExitCode> {
    for (i, path) in outputs {
        let out = match prepared.output(*i) {
            Ok(a) => a,
            Err(e) => return Err(fail(format!("--out {i}: {e}"))),
        };
        let written = if path.extension().is_some_and(|e| e == "bin") {
            ptxsim::output::write_atomic(path, &out.bytes).map_err(|e| {
                launch::LaunchError::new(format!("cannot write {}: {e}", path.display()))
            })
        } else {
            write_npy(path, &out)
        };
        if let Err(e) = written {
            eprintln!("error: {e}");
            return Err(ExitCode::from(1));
        }
        say(format!("wrote argument {i} to {}", path.display()));
    }
    Ok(())
}

/// The cache report of the launch in the requested format.
fn render_report(
    prepared: &PreparedLaunch,
    r: &Resolved,
    summary: &RunSummary,
    format: ReportFormat,
    ncu: Option<&super::ncu::Loaded>,
) -> String {
    let stats = prepared.session.mem.stats();
    // For each line's .loc and the call site of inlined code.
    let source = std::fs::read_to_string(&r.ptx).ok();
    let variant = model::variant_report(
        "original",
        None,
        source.as_deref(),
        &prepared.session.program,
        &stats,
        summary,
        r.gpu.timeline_interval,
    );
    let mut info = r.launch_info(&prepared.session.program);
    info.access_policy_window = prepared
        .config
        .access_policy_window
        .map(|w| LaunchInfo::window_text(&w));
    let mut report = Report::new("run", info, GpuInfo::from_config(&r.gpu), vec![variant]);
    super::ncu::attach(&mut report, ncu);
    match format {
        ReportFormat::Text => ptxsim_report::text::render_run(&report),
        ReportFormat::Json => report.to_json(),
        ReportFormat::Html => ptxsim_report::html::render(&report),
    }
}
