//! Device `printf` and `assert` in a real nvcc kernel (tests/data/device_printf, made by its
//! gen.sh): `ptxsim run` prints exactly what the host C library prints for the same calls
//! (expected_stdout.txt), and a failed `assert` stops the kernel with the runtime's message,
//! naming the thread, after printing what came before it.

use assert_cmd::Command;
use std::path::PathBuf;

fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/device_printf")
}

fn run(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("ptxsim")
        .unwrap()
        .current_dir(data())
        .args(["run", "printf_assert.sm80.ptx"])
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn printf_prints_what_the_c_library_prints() {
    let out = run(&[
        "--kernel",
        "print_values",
        "--grid",
        "1",
        "--block",
        "4",
        "--arg",
        "x.npy",
        "--arg",
        "n.npy",
        "--arg",
        "s64:1000000000000",
        "--arg",
        "s32:3",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let want = std::fs::read_to_string(data().join("expected_stdout.txt")).unwrap();
    assert!(
        stdout.starts_with(&want),
        "device printf output differs from the C library's:\n--- ptxsim\n{stdout}\n--- libc\n{want}"
    );
    assert!(
        stdout[want.len()..].starts_with("ran `print_values`"),
        "{stdout}"
    );
}

#[test]
fn failed_assert_faults_after_the_output_before_it() {
    let out = run(&[
        "--kernel",
        "check_positive",
        "--grid",
        "1",
        "--block",
        "32",
        "--arg",
        "v.npy",
        "--arg",
        "s32:4",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout, "checking 3\nchecking 1\nchecking 0\nchecking 5\n");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(
            "device assert failed: printf_assert.cu:15: void check_positive(const int *, int): \
             Assertion `v[t] > 0` failed"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("thread (2,0,0)"), "{stderr}");
}
