//! `mul` + `add`/`sub` contraction as ptxas does it (docs/fma-contraction.md).
//!
//! The probes of tests/sass/gen_fma_probe.py (fma_probe.ptx, fma_probe_bf16.ptx) run on inputs
//! where the fused and the twice-rounded results differ; the expected words
//! (fma_probe.cases.tsv) are the rule's outputs computed exactly with fractions, and the
//! generator checks the rule against ptxas 13.5's SASS for sm_80 and sm_90 (the number of
//! FFMA/DFMA/HFMA2 in each probe). `--fmad=false` and debug modules give the twice-rounded
//! words. The corpus: rms_norm's reciprocal norm of row 5 is the H100's word (issue 33).

use ptx_exec::lower::LowerOptions;
use ptx_exec::{KernelArg, LaunchConfig, Session};
use std::path::PathBuf;

mod common;

fn sass_dir() -> PathBuf {
    common::root().join("tests/sass")
}

struct Case {
    kernel: String,
    ty: String,
    inputs: Vec<u64>,
    fused: Vec<u64>,
    unfused: Vec<u64>,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(sass_dir().join("fma_probe.cases.tsv")).unwrap();
    let words = |s: &str| -> Vec<u64> {
        s.split(',')
            .map(|w| u64::from_str_radix(w, 16).unwrap())
            .collect()
    };
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Case {
                kernel: f[0].into(),
                ty: f[1].into(),
                inputs: words(f[2]),
                fused: words(f[3]),
                unfused: words(f[4]),
            }
        })
        .collect()
}

fn size_of(ty: &str) -> usize {
    match ty {
        "f64" => 8,
        "f16" | "bf16" => 2,
        _ => 4,
    }
}

/// Runs `case.kernel` of `ptx` (one thread) on its inputs; the output words.
fn run(ptx: &str, case: &Case, fmad: bool) -> Vec<u64> {
    let module = ptx_syntax::parse(ptx).expect("probe parses");
    let mut s = Session::new_with(
        &module,
        ptx,
        memsys::GpuConfig::h100(),
        LowerOptions { fmad },
    )
    .expect("probe lowers");
    let n = size_of(&case.ty);
    let bytes: Vec<u8> = case
        .inputs
        .iter()
        .flat_map(|w| w.to_le_bytes()[..n].to_vec())
        .collect();
    let inp = s.alloc_buffer(&bytes).unwrap();
    let out = s.alloc_buffer(&[0u8; 64]).unwrap();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [1, 1, 1],
        ..LaunchConfig::default()
    };
    s.launch(
        &case.kernel,
        &[KernelArg::Pointer(inp), KernelArg::Pointer(out)],
        cfg,
    )
    .unwrap_or_else(|e| panic!("{}: {e}", case.kernel));
    s.read_buffer(out, n * case.fused.len())
        .unwrap()
        .chunks_exact(n)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..n].copy_from_slice(c);
            u64::from_le_bytes(w)
        })
        .collect()
}

fn module_of(case: &Case) -> String {
    let file = if case.ty.starts_with("bf16") {
        "fma_probe_bf16.ptx"
    } else {
        "fma_probe.ptx"
    };
    std::fs::read_to_string(sass_dir().join(file)).unwrap()
}

#[test]
fn probes_contract_as_ptxas_does() {
    let cases = cases();
    assert!(cases.len() >= 80, "{} cases", cases.len());
    let mut bad = Vec::new();
    let mut differing = 0;
    for c in &cases {
        let got = run(&module_of(c), c, true);
        if got != c.fused {
            bad.push(format!(
                "{}: got {got:x?}, rule {:x?} (twice rounded {:x?})",
                c.kernel, c.fused, c.unfused
            ));
        }
        differing += usize::from(c.fused != c.unfused);
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // The inputs tell fused from unfused wherever the rule fuses (so the test can fail).
    assert!(
        differing >= 40,
        "{differing} cases tell fused from twice-rounded"
    );
}

#[test]
fn fmad_false_and_debug_modules_round_twice() {
    for c in cases() {
        let ptx = module_of(&c);
        assert_eq!(run(&ptx, &c, false), c.unfused, "{} --fmad=false", c.kernel);
        let debug = ptx
            .replacen(".target sm_80", ".target sm_80, debug", 1)
            .replacen(".target sm_90", ".target sm_90, debug", 1);
        assert_eq!(run(&debug, &c, true), c.unfused, "{} debug", c.kernel);
    }
}

#[test]
fn rms_norm_reciprocal_norm_is_the_h100_word() {
    // div.full.f32 + add.f32 contract: the division's last multiply (MUFU.RCP of the scaled
    // divisor times the scaled dividend) becomes an FFMA with the add. The H100 wrote
    // 0x3e4b47f5 for row 5 (issue 33); two roundings give 0x3e4b47f3.
    let dir = common::temp_dir("fma_rms_norm");
    for (sm, fmad, want) in [
        ("sm80", "true", 0x3e4b_47f5u32),
        ("sm90", "true", 0x3e4b_47f5),
        ("sm80", "false", 0x3e4b_47f3),
    ] {
        let launch = common::root().join(format!("tests/corpus/run/triton.rms_norm.{sm}.toml"));
        let out = dir.join(format!("rstd.{sm}.{fmad}.bin"));
        common::run_ok(&[
            "run",
            "--launch",
            launch.to_str().unwrap(),
            &format!("--fmad={fmad}"),
            "--out",
            &format!("3={}", out.display()),
        ]);
        let bytes = std::fs::read(&out).unwrap();
        let w = u32::from_le_bytes(bytes[20..24].try_into().unwrap());
        assert_eq!(w, want, "{sm} --fmad={fmad}: {w:#010x}");
    }
}

#[test]
fn rotary_output_differs_in_59_elements_without_contraction() {
    // The H100 differed from the twice-rounded result in 59 of 512 elements by 1 ulp (issue
    // 33); contraction changes exactly those many, and none of the -G build's.
    let dir = common::temp_dir("fma_rotary");
    let words = |name: &str, fmad: &str| -> Vec<u32> {
        let launch = common::root().join(format!("tests/corpus/run/{name}.toml"));
        let out = dir.join(format!("{name}.{fmad}.bin"));
        common::run_ok(&[
            "run",
            "--launch",
            launch.to_str().unwrap(),
            &format!("--fmad={fmad}"),
            "--out",
            &format!("3={}", out.display()),
        ]);
        std::fs::read(&out)
            .unwrap()
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    for (name, want) in [
        ("nvcc.nn_ops.lineinfo.sm80.rotary_f32", 59),
        ("nvcc.nn_ops.lineinfo.sm90.rotary_f32", 59),
        ("nvcc.nn_ops.debug.sm80.rotary_f32", 0),
    ] {
        let (a, b) = (words(name, "true"), words(name, "false"));
        let diff: Vec<i64> = a
            .iter()
            .zip(&b)
            .filter(|(x, y)| x != y)
            .map(|(x, y)| *x as i64 - *y as i64)
            .collect();
        assert_eq!(diff.len(), want, "{name}");
        assert!(diff.iter().all(|d| d.abs() == 1), "{name}: {diff:?}");
    }
}

#[test]
fn fmad_flag_takes_a_boolean() {
    let launch = common::root().join("tests/corpus/run/triton.rms_norm.sm80.toml");
    let out = common::run_exits(
        2,
        &["run", "--launch", launch.to_str().unwrap(), "--fmad=maybe"],
    );
    let err = common::stderr_of(&out);
    assert!(err.contains("--fmad"), "{err}");
}

/// A `.npy` file of little-endian u32 words (format 1.0, the header padded to 64 bytes).
fn write_u32_npy(path: &std::path::Path, words: &[u32]) {
    let mut header = format!(
        "{{'descr': '<u4', 'fortran_order': False, 'shape': ({},), }}",
        words.len()
    );
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    for w in words {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    std::fs::write(path, bytes).unwrap();
}

/// `compare` runs its variants as ptxas `--fmad` assembled the module (it once always
/// contracted): the probe's output is the fused word by default and the twice-rounded one
/// with `--fmad=false`, which the launch file's exact `[[expect]]` of the fused word tells.
#[test]
fn compare_runs_the_variants_with_the_fmad_setting() {
    let case = cases()
        .into_iter()
        .find(|c| c.ty == "f32" && c.fused.len() == 1 && c.fused != c.unfused)
        .expect("an f32 probe whose fused and twice-rounded words differ");
    let dir = common::temp_dir("fma_compare");
    let input: Vec<u8> = case
        .inputs
        .iter()
        .flat_map(|w| (*w as u32).to_le_bytes())
        .collect();
    std::fs::write(dir.join("in.bin"), input).unwrap();
    write_u32_npy(&dir.join("fused.npy"), &[case.fused[0] as u32]);
    let launch = dir.join("probe.toml");
    std::fs::write(
        &launch,
        format!(
            "ptx = {:?}\nkernel = {:?}\ngrid = [1]\nblock = [1]\nargs = [\"in.bin\", \"zeros:u32:1\"]\n\n[[expect]]\narg = 1\nnpy = \"fused.npy\"\nmax_ulp = 0\n",
            sass_dir().join("fma_probe.ptx").display().to_string(),
            case.kernel
        ),
    )
    .unwrap();
    let warned = |fmad: &str| {
        let out = common::run_ok(&[
            "compare",
            "--launch",
            launch.to_str().unwrap(),
            &format!("--fmad={fmad}"),
            "--variant",
            "cg=loads=cg",
        ]);
        common::stderr_of(&out).contains("does not match the launch file's expectations")
    };
    assert!(
        !warned("true"),
        "{}: the fused word is expected",
        case.kernel
    );
    assert!(
        warned("false"),
        "{}: --fmad=false rounds twice",
        case.kernel
    );
}
