// The fuzz targets, shared by the AFL++ binaries (fuzz/src/bin) and the regression replay
// test (crates/ptxsim/tests/fuzz_regressions.rs, which includes this file by path). Each takes
// raw input bytes and returns normally on any input; a panic is a finding.

use std::path::Path;
use std::time::Duration;

/// A target: takes the raw input bytes.
pub type Target = fn(&[u8]);

/// Every target, by the name `scripts/fuzz` and `fuzz/regressions/<name>/` use.
pub const TARGETS: &[(&str, Target)] = &[
    ("parse_print", parse_print),
    ("check", check),
    ("interp", interp),
    ("trace", trace),
    ("launch_file", launch_file),
];

/// Parser and printer round trip: a module that parses prints to text that parses again,
/// and printing is a fixed point after the first print (`print(parse(print(m))) ==
/// print(m)`), so `ptxsim fmt` is idempotent and never loses what it read.
pub fn parse_print(data: &[u8]) {
    let Ok(text) = ptx_syntax::decode_source(data) else {
        return;
    };
    let Ok(module) = ptx_syntax::parse(text) else {
        return;
    };
    let printed = ptx_syntax::print(&module);
    let reparsed = match ptx_syntax::parse(&printed) {
        Ok(m) => m,
        Err(e) => panic!(
            "printed module does not parse: {}\n--- printed ---\n{printed}",
            e[0]
        ),
    };
    let again = ptx_syntax::print(&reparsed);
    assert!(
        again == printed,
        "printing is not a fixed point\n--- first ---\n{printed}\n--- second ---\n{again}"
    );
}

/// The validator over any bytes (not UTF-8, syntax errors, any target and version), with
/// every renderer the CLI offers.
pub fn check(data: &[u8]) {
    let report = ptx_check::check_source("fuzz.ptx", data, &ptx_check::CheckOptions::default());
    let _ = ptx_check::render::rich(&report.file, &report.diagnostics, false);
    let _ = ptx_check::render::ptxas(&report.file, &report.diagnostics);
    let _ = serde_json::to_string(&ptx_check::render::json(std::slice::from_ref(&report)));
}

/// Memory, step and time limits of an interpreter run: small enough that one input runs in
/// well under a second.
const INTERP_MEMORY_BYTES: u64 = 64 << 20;
const INTERP_MAX_STEPS: u64 = 20_000;
const INTERP_TIMEOUT: Duration = Duration::from_secs(2);
/// Elements of each buffer argument (8 bytes each).
const INTERP_BUFFER_ELEMS: usize = 2048;

/// The interpreter on a PTX module (corpus kernels, mutated): every kernel of the module runs
/// over zeroed buffers and small scalar arguments with step, time and memory limits on. Any
/// outcome but a panic is fine: lowering errors, faults, limits.
pub fn interp(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut gpu = memsys::GpuConfig::a100();
    gpu.sm_count = 4;
    // A 1 MiB L2 (the same code as 40 MiB, 1/40 of the tags to build per input): building
    // the A100's 327,680 L2 lines took most of each execution.
    gpu.l2.size_bytes = 1 << 20;
    gpu.persisting_l2_max_bytes = 3 << 18;
    gpu.memory_bytes = INTERP_MEMORY_BYTES;
    let Ok(mut session) = ptxsim::launch::session_from_source(Path::new("fuzz.ptx"), text, gpu)
    else {
        return;
    };
    let kernels: Vec<String> = session
        .program
        .kernel_names()
        .iter()
        .map(|k| k.to_string())
        .take(4)
        .collect();
    for kernel in kernels {
        if ptxsim::launch::check_runnable(&session, &kernel, Path::new("fuzz.ptx")).is_err() {
            continue;
        }
        let Ok(params) = session.kernel_params(&kernel) else {
            continue;
        };
        let mut args = Vec::new();
        for (_, ty) in params {
            let arg = if ty.bytes() == 8 && ty.kind() != ptx_isa::TypeKind::Float {
                match session.alloc_buffer(&vec![0u8; INTERP_BUFFER_ELEMS * 8]) {
                    Ok(addr) => ptx_exec::KernelArg::Pointer(addr),
                    Err(_) => return,
                }
            } else {
                ptx_exec::KernelArg::Scalar {
                    ty,
                    bits: if ty.kind() == ptx_isa::TypeKind::Float {
                        1.0f64.to_bits()
                    } else {
                        64
                    },
                }
            };
            args.push(arg);
        }
        let config = ptx_exec::LaunchConfig {
            grid: [2, 1, 1],
            block: [64, 1, 1],
            max_steps: INTERP_MAX_STEPS,
            timeout: Some(INTERP_TIMEOUT),
            hazards: true,
            ..ptx_exec::LaunchConfig::default()
        };
        let _ = session.launch(&kernel, &args, config);
    }
}

/// The trace parser and replay (what `ptxsim replay` reads), on a small GPU so replays are
/// fast; addresses anywhere in the 64-bit space.
pub fn trace(data: &[u8]) {
    let mut gpu = memsys::GpuConfig::a100();
    gpu.sm_count = 4;
    // A 1 MiB L2 (the same code as 40 MiB, 1/40 of the tags to build per input): building
    // the A100's 327,680 L2 lines took most of each execution.
    gpu.l2.size_bytes = 1 << 20;
    gpu.persisting_l2_max_bytes = 3 << 18;
    let _ = ptx_trace::replay_reader(gpu, data);
}

/// Launch files (TOML): parsing, validation, the argument specs (`zeros:`, scalars, tensor
/// maps; file paths resolve inside an empty directory), the dimensions and the GPU override.
pub fn launch_file(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(file) = toml::from_str::<ptxsim::launch::LaunchFile>(text) else {
        return;
    };
    if file.validate().is_err() {
        return;
    }
    let base = Path::new("/nonexistent-ptxsim-fuzz");
    let _ = ptxsim::launch::dims(&file.grid, "grid");
    let _ = ptxsim::launch::dims(&file.block, "block");
    for spec in file.args.iter().chain(file.buffer.iter().map(|b| &b.init)) {
        let _ = ptxsim::launch::parse_arg_within(spec, base, INTERP_MEMORY_BYTES);
    }
    if let Some(gpu) = &file.gpu {
        if !gpu.ends_with(".toml") {
            let _ = memsys::GpuConfig::preset(gpu);
        }
    }
    // A GPU override given inline, as `--gpu FILE.toml` would read it.
    let _ = memsys::GpuConfig::from_toml(text);
}
