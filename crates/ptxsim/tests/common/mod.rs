//! Helpers shared by the tests that run the `ptxsim` binary: the binary itself, the
//! repository root, and per-test scratch directories and files; and, for the tests that run
//! small kernels through the library, [`run_one_cta`].

// Each test binary compiles this module and uses its own subset of it.
#![allow(dead_code)]

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The `ptxsim` binary under test.
pub fn ptxsim() -> Command {
    Command::cargo_bin("ptxsim").unwrap()
}

/// The repository root (corpus, examples, docs).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A directory for one test's files, named after the test binary, this process and `test`
/// (so that tests running at the same time never share one).
pub fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "ptxsim-{}-{}-{test}",
        env!("CARGO_CRATE_NAME"),
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `text` to `dir/name`; returns the path as a command-line argument.
pub fn write(dir: &Path, name: &str, text: impl AsRef<[u8]>) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// A finished command's standard error as text.
pub fn stderr_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The README's demo launch: Triton's fp16 matmul.
pub fn demo() -> String {
    root()
        .join("examples/matmul_fp16.sm80.toml")
        .display()
        .to_string()
}

/// Asserts that a JSON report validates against docs/report.schema.json.
pub fn validate_report(v: &serde_json::Value) {
    let text = std::fs::read_to_string(root().join("docs/report.schema.json")).unwrap();
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(v)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(errors.is_empty(), "schema errors: {errors:#?}");
}

/// Runs `ptxsim` with `args` and asserts that it succeeds; returns what it printed.
pub fn run_ok(args: &[&str]) -> Output {
    ptxsim().args(args).assert().success().get_output().clone()
}

/// Runs `ptxsim` with `args` and asserts that it exits with `code`; returns what it printed.
pub fn run_exits(code: i32, args: &[&str]) -> Output {
    ptxsim().args(args).assert().code(code).get_output().clone()
}

/// Runs kernel `k` of a complete module (one `.u64 out` parameter) with `threads` threads in one
/// CTA on the A100 preset; the first `words` 32-bit words of `out`, or the error's text (a
/// parse, lowering or launch error, the fault included).
pub fn run_one_cta(ptx: &str, threads: u32, words: usize) -> Result<Vec<u32>, String> {
    use ptx_exec::{KernelArg, LaunchConfig, Session};
    let module = ptx_syntax::parse(ptx).map_err(|e| format!("{e:?}"))?;
    let mut s = Session::new(&module, ptx, memsys::GpuConfig::a100()).map_err(|e| e.to_string())?;
    let out = s.alloc_buffer(&vec![0u8; 4 * words]).unwrap();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [threads, 1, 1],
        ..LaunchConfig::default()
    };
    s.launch("k", &[KernelArg::Pointer(out)], cfg)
        .map_err(|e| e.to_string())?;
    Ok(s.read_buffer(out, 4 * words)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect())
}
