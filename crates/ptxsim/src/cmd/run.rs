//! `ptxsim run`: launch a kernel from the command line or a launch file.

use clap::Args as ClapArgs;
use ptx_exec::LaunchConfig;
use ptxsim::launch::{
    self, compare, dims, load_session, parse_arg, prepare, read_npy, write_npy, LaunchFile,
};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(ClapArgs)]
pub struct Args {
    /// The PTX file (omit with --launch).
    ptx: Option<PathBuf>,
    /// A TOML launch file (docs/launch-format.md) instead of the options below.
    #[arg(long, conflicts_with_all = ["ptx", "kernel", "grid", "block", "arg"])]
    launch: Option<PathBuf>,
    /// The kernel (.entry) to run.
    #[arg(long)]
    kernel: Option<String>,
    /// Grid dimensions: X[,Y[,Z]].
    #[arg(long, value_delimiter = ',')]
    grid: Vec<u32>,
    /// Block dimensions: X[,Y[,Z]].
    #[arg(long, value_delimiter = ',')]
    block: Vec<u32>,
    /// Dynamic shared memory in bytes.
    #[arg(long, default_value_t = 0)]
    shared: u32,
    /// Kernel arguments in parameter order: PATH.npy, PATH.bin, zeros:TYPE:COUNT, null or TYPE:VALUE.
    #[arg(long = "arg")]
    arg: Vec<String>,
    /// Write argument I's buffer after the run: I=PATH.npy or I=PATH.bin.
    #[arg(long = "out")]
    out: Vec<String>,
    /// Seed of the warp interleaving (0: the default order).
    #[arg(long)]
    seed: Option<u64>,
    /// Fault after this many warp-instructions.
    #[arg(long)]
    max_steps: Option<u64>,
    /// GPU model: a100, h100, b200, or a TOML file overriding a preset.
    #[arg(long, default_value = "h100")]
    gpu: String,
    /// Run without the cache model (global memory accessed directly; no cache statistics).
    #[arg(long)]
    no_cache_model: bool,
    /// Report cache-semantics hazards: stale L1 reads, ld.global.nc of data written in the
    /// launch, accesses to unfinished cp.async copies, weak spins on flags other CTAs write.
    #[arg(long)]
    hazards: bool,
    /// With --hazards: exit 3 if any hazard is found.
    #[arg(long, requires = "hazards")]
    fail_on_hazard: bool,
    /// With --hazards: also write the reports as JSON to this file.
    #[arg(long, requires = "hazards")]
    hazards_json: Option<PathBuf>,
}

fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
}

/// Resolves `--gpu`: a preset name or a TOML file.
pub fn gpu_config(spec: &str) -> Result<memsys::GpuConfig, String> {
    if Path::new(spec).extension().is_some_and(|e| e == "toml") {
        let text = std::fs::read_to_string(spec).map_err(|e| format!("cannot read {spec}: {e}"))?;
        memsys::GpuConfig::from_toml(&text).map_err(|e| format!("{spec}: {e}"))
    } else {
        memsys::GpuConfig::preset(spec).map_err(|e| e.to_string())
    }
}

pub fn run(args: Args) -> ExitCode {
    // Gather the launch from the file or the options.
    let (ptx, kernel, grid, block, shared, specs, outs, expects, seed, max_steps, gpu, base) =
        if let Some(path) = &args.launch {
            let (file, base) = match LaunchFile::read(path) {
                Ok(x) => x,
                Err(e) => return fail(e),
            };
            let outs: Vec<String> = file
                .out
                .iter()
                .map(|(i, p)| format!("{i}={}", base.join(p).display()))
                .collect();
            (
                base.join(&file.ptx),
                file.kernel,
                file.grid,
                file.block,
                file.shared,
                file.args,
                outs.into_iter()
                    .chain(args.out.iter().cloned())
                    .collect::<Vec<_>>(),
                file.expect,
                args.seed.unwrap_or(file.seed),
                args.max_steps.or(file.max_steps),
                file.gpu.unwrap_or(args.gpu.clone()),
                base,
            )
        } else {
            let Some(ptx) = args.ptx.clone() else {
                return fail("give a PTX file (or --launch FILE)");
            };
            let Some(kernel) = args.kernel.clone() else {
                return fail("--kernel is required");
            };
            (
                ptx,
                kernel,
                args.grid.clone(),
                args.block.clone(),
                args.shared,
                args.arg.clone(),
                args.out.clone(),
                Vec::new(),
                args.seed.unwrap_or(0),
                args.max_steps,
                args.gpu.clone(),
                PathBuf::from("."),
            )
        };
    let gpu = match gpu_config(&gpu) {
        Ok(g) => g,
        Err(e) => return fail(e),
    };
    let (grid, block) = match (dims(&grid, "--grid"), dims(&block, "--block")) {
        (Ok(g), Ok(b)) => (g, b),
        (Err(e), _) | (_, Err(e)) => return fail(e),
    };
    let specs: Result<Vec<_>, _> = specs.iter().map(|s| parse_arg(s, &base)).collect();
    let specs = match specs {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let mut outputs = Vec::new();
    for o in &outs {
        let Some((i, path)) = o.split_once('=') else {
            return fail(format!("--out `{o}`: write I=PATH"));
        };
        let Ok(i) = i.parse::<usize>() else {
            return fail(format!("--out `{o}`: `{i}` is not an argument index"));
        };
        outputs.push((i, PathBuf::from(path)));
    }
    let session = match load_session(&ptx, gpu) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let mut config = LaunchConfig {
        grid,
        block,
        dynamic_shared: shared,
        seed,
        cache_model: !args.no_cache_model,
        hazards: args.hazards,
        ..LaunchConfig::default()
    };
    if let Some(m) = max_steps {
        config.max_steps = m;
    }
    let mut prepared = match prepare(session, &kernel, specs, config) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let started = std::time::Instant::now();
    let result = prepared.run();
    let hazards_found = if args.hazards {
        match super::hazards::report(&prepared.session, &kernel, args.hazards_json.as_deref()) {
            Ok(n) => n,
            Err(e) => return fail(e),
        }
    } else {
        0
    };
    let summary = match result {
        Ok(s) => s,
        Err(ptx_exec::ExecError::Launch(msg)) => return fail(msg),
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let elapsed = started.elapsed();
    println!(
        "ran `{kernel}` grid ({},{},{}) block ({},{},{}): {} warp-instructions, {} thread-instructions in {:.3} s",
        grid[0],
        grid[1],
        grid[2],
        block[0],
        block[1],
        block[2],
        summary.warp_instructions,
        summary.thread_instructions,
        elapsed.as_secs_f64()
    );
    for (i, path) in &outputs {
        let out = match prepared.output(*i) {
            Ok(a) => a,
            Err(e) => return fail(format!("--out {i}: {e}")),
        };
        let written = if path.extension().is_some_and(|e| e == "bin") {
            std::fs::write(path, &out.bytes)
                .map_err(|e| launch::LaunchError(format!("cannot write {}: {e}", path.display())))
        } else {
            write_npy(path, &out)
        };
        if let Err(e) = written {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
        println!("wrote argument {i} to {}", path.display());
    }
    let mut mismatched = false;
    for ex in &expects {
        let want = match read_npy(&base.join(&ex.npy)) {
            Ok(w) => w,
            Err(e) => return fail(e),
        };
        let got = match prepared.output(ex.arg) {
            Ok(g) => g,
            Err(e) => return fail(e),
        };
        match compare(&got, &want, ex.max_ulp) {
            Ok(c) if c.mismatches == 0 => println!(
                "expect: argument {} matches {} ({} elements, max {} ulp, bound {})",
                ex.arg,
                ex.npy.display(),
                c.elements,
                c.max_ulp_seen,
                ex.max_ulp
            ),
            Ok(c) => {
                mismatched = true;
                let (i, got, want) = c.first_mismatch.unwrap_or_default();
                println!(
                    "expect: argument {} differs from {} in {} of {} elements; first at [{i}]: got {got}, expected {want}",
                    ex.arg,
                    ex.npy.display(),
                    c.mismatches,
                    c.elements
                );
            }
            Err(e) => return fail(e),
        }
    }
    if mismatched {
        ExitCode::from(1)
    } else if args.fail_on_hazard && hazards_found > 0 {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    }
}
