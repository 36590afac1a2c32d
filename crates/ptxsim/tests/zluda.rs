//! ZLUDA's PTX conformance kernels (vosen/ZLUDA `ptx/src/test/spirv_run` at 8a7931be, vendored
//! with their expected outputs and ZLUDA's licence in tests/zluda by tests/zluda/gen_zluda.py),
//! run as ZLUDA's harness runs them on CUDA (`run_cuda`): kernel NAME of NAME.ptx, one CTA of 1
//! thread (`test_ptx_warp!`: 64), 1024 bytes of dynamic shared memory, parameters (input
//! buffer, output buffer) (no input: the output buffer twice), the output zeroed first; the
//! output bytes must equal ZLUDA's expected array. Each case is checked (ptx-check) and run.
//!
//! The cases that do not pass are listed in [`KNOWN`] with their reason; the test fails when a
//! listed case starts passing (remove it) or an unlisted one fails.

use ptx_exec::{KernelArg, LaunchConfig, Session};
use std::panic::{catch_unwind, AssertUnwindSafe};

mod common;

/// Cases that do not give ZLUDA's expected output, and why.
const KNOWN: &[(&str, &str)] = &[
    (
        "reg_local",
        "`st.u64 [local_x], temp + 1`: a register plus an immediate as a stored value; ptxas \
         assembles it, ptx-check and the interpreter take registers and immediates only",
    ),
    (
        "multiple_return",
        "a `.func` returning a predicate register (`.func (.reg .u32 a, .reg .pred b)`): the \
         interpreter passes value registers and `.param` variables in calls, not predicates",
    ),
    (
        "vote_ballot_nosync",
        "ZLUDA's expectation is not CUDA's: ptxas 13.5 rejects `vote` without `.sync` on \
         sm_70 and later from PTX 6.4 (this module: .target sm_70, .version 6.4 or later), and \
         ptxsim refuses it as ptxas does",
    ),
    (
        "ldmatrix",
        "ZLUDA's harness runs it with 64 threads, but the kernel is written for one warp: \
         threads 32-63 read past the end of `values_g[64]` (`[values_g_addr+128]`) and write \
         past the end of the 40-byte output buffer; a GPU returns and takes whatever memory \
         lies there, ptxsim reports the out-of-bounds access",
    ),
    (
        "mma_m16n8k16_f32_bf16_bf16_f32_2x",
        "as ldmatrix: 64 threads on a one-warp kernel; thread 32 stores past the end of the \
         output buffer (`st.f32 [out_addr], d0` at +0x400), which ptxsim reports",
    ),
];

struct Case {
    name: String,
    threads: u32,
    input: Option<Vec<u8>>,
    output: Vec<u8>,
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

fn cases() -> Vec<Case> {
    let dir = common::root().join("tests/zluda");
    std::fs::read_to_string(dir.join("cases.tsv"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Case {
                name: f[0].into(),
                threads: f[1].parse().unwrap(),
                input: (f[3] != "-").then(|| hex(f[3])),
                output: hex(f[5]),
            }
        })
        .collect()
}

/// Checks and runs one case; `Err` says why it does not give the expected bytes.
fn run(case: &Case) -> Result<(), String> {
    let path = common::root().join(format!("tests/zluda/spirv_run/{}.ptx", case.name));
    let text = std::fs::read(&path).map_err(|e| e.to_string())?;
    let report = ptx_check::check_source(&case.name, &text, &ptx_check::CheckOptions::default());
    if let Some(d) = report.diagnostics.iter().find(|d| d.severity.is_error()) {
        return Err(format!("check: {} {}", d.code, d.message));
    }
    let module = report.module.as_ref().ok_or("not text")?;
    let source = &report.file.text;
    let mut s = Session::new(module, source, memsys::GpuConfig::h100())
        .map_err(|e| format!("lower: {e}"))?;
    let out = s
        .alloc_buffer(&vec![0u8; case.output.len()])
        .map_err(|e| e.to_string())?;
    let inp = match &case.input {
        Some(bytes) => s.alloc_buffer(bytes).map_err(|e| e.to_string())?,
        None => out,
    };
    // cuLaunchKernel passes the two buffer addresses as the first two parameters, whatever
    // their declared type (a 32-bit parameter takes the address's low word).
    let params = s.kernel_params(&case.name).map_err(|e| e.to_string())?;
    let args: Vec<KernelArg> = params
        .iter()
        .zip([inp, out])
        .map(|((_, ty), addr)| {
            if ty.bits() == 64 {
                KernelArg::Pointer(addr)
            } else {
                KernelArg::Scalar {
                    ty: *ty,
                    bits: addr & 0xffff_ffff,
                }
            }
        })
        .collect();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [case.threads, 1, 1],
        dynamic_shared: 1024,
        max_steps: 10_000_000,
        threads: 1,
        ..LaunchConfig::default()
    };
    s.launch(&case.name, &args, cfg)
        .map_err(|e| format!("launch: {e}"))?;
    let got = s
        .read_buffer(out, case.output.len())
        .map_err(|e| e.to_string())?;
    if got != case.output {
        return Err(format!(
            "output {} (expected {})",
            got.iter().map(|b| format!("{b:02x}")).collect::<String>(),
            case.output
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        ));
    }
    Ok(())
}

#[test]
fn zluda_conformance_kernels_give_zluda_outputs() {
    let cases = cases();
    assert_eq!(cases.len(), 182, "ZLUDA 8a7931be has 182 cases that run");
    let mut passed = 0;
    let mut unexpected = Vec::new();
    for c in &cases {
        let result = catch_unwind(AssertUnwindSafe(|| run(c)))
            .unwrap_or_else(|_| Err("panic in ptxsim".to_string()));
        let known = KNOWN.iter().find(|k| k.0 == c.name);
        match (&result, known) {
            (Ok(()), None) => passed += 1,
            (Ok(()), Some(_)) => {
                unexpected.push(format!("{}: passes now; drop it from KNOWN", c.name))
            }
            (Err(e), None) => unexpected.push(format!("{}: {e}", c.name)),
            (Err(e), Some(_)) => eprintln!("known: {}: {e}", c.name),
        }
    }
    eprintln!("ZLUDA conformance: {passed} of {} pass", cases.len());
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
    assert_eq!(passed + KNOWN.len(), cases.len());
}
