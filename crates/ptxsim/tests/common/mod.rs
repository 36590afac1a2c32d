//! Helpers shared by the tests that run the `ptxsim` binary: the binary itself, the
//! repository root, and per-test scratch directories and files. (The tests that run small
//! kernels through the library are ptx-exec's, in `crates/ptx-exec/tests`.)

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

/// A directory for one test's files, named after the test binary and `test` (tests running at
/// the same time never share one), removed when the test drops it.
pub fn temp_dir(test: &str) -> TestDir {
    TestDir(
        tempfile::Builder::new()
            .prefix(&format!("ptxsim-{}-{test}-", env!("CARGO_CRATE_NAME")))
            .tempdir()
            .unwrap(),
    )
}

/// [`temp_dir`]'s directory: a path while the test holds it.
pub struct TestDir(tempfile::TempDir);

impl std::ops::Deref for TestDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for TestDir {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
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

/// A one-kernel launch on the command line, `CMD PTX --kernel K --grid G --block B --arg A…`,
/// which a test completes with the options it is about ([`Launch::with`]).
#[derive(Debug, Clone)]
pub struct Launch(Vec<String>);

/// `cmd` (`run`, `compare`, `advise`) of `kernel` in `ptx` over `grid` × `block` with the
/// `--arg` specs `args`.
pub fn launch(
    cmd: &str,
    ptx: &str,
    kernel: &str,
    grid: &str,
    block: &str,
    args: &[&str],
) -> Launch {
    let mut v: Vec<String> = [
        cmd, ptx, "--kernel", kernel, "--grid", grid, "--block", block,
    ]
    .map(String::from)
    .to_vec();
    for a in args {
        v.extend(["--arg".to_string(), a.to_string()]);
    }
    Launch(v)
}

/// Any command line (a `--launch FILE` one) as a [`Launch`].
pub fn cli(args: &[&str]) -> Launch {
    Launch(args.iter().map(|s| s.to_string()).collect())
}

impl Launch {
    /// The launch with more options after it.
    pub fn with(&self, more: &[&str]) -> Launch {
        let mut v = self.0.clone();
        v.extend(more.iter().map(|s| s.to_string()));
        Launch(v)
    }

    /// The whole command line.
    pub fn args(&self) -> Vec<&str> {
        self.0.iter().map(String::as_str).collect()
    }

    /// Runs it; asserts success.
    pub fn ok(&self) -> Output {
        run_ok(&self.args())
    }

    /// Runs it; asserts exit status `code`.
    pub fn exits(&self, code: i32) -> Output {
        run_exits(code, &self.args())
    }
}

/// Where two multi-line texts first differ: the line number and both lines (their first 400
/// characters), for an assertion message.
pub fn first_difference(a: &str, b: &str) -> String {
    let line = a
        .lines()
        .zip(b.lines())
        .position(|(x, y)| x != y)
        .unwrap_or(0);
    let at = |t: &str| -> String {
        t.lines()
            .nth(line)
            .unwrap_or("")
            .chars()
            .take(400)
            .collect()
    };
    format!("line {line}:\n{}\nvs\n{}", at(a), at(b))
}
