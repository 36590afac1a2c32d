//! `ptxsim check` on the cache-control rules: all findings of a file, ptxas's exact lines with
//! `--format ptxas`, the `--target`/`--ptx-version` overrides, JSON codes, exit codes.

mod common;
use common::{ptxsim, run_exits};

use std::path::PathBuf;

/// `text` written to `k.ptx` in a fresh directory for `test` (removed when the test drops it).
fn write(test: &str, text: &str) -> (common::TestDir, String) {
    let dir = common::temp_dir(test);
    let p: PathBuf = dir.join("k.ptx");
    std::fs::write(&p, text).unwrap();
    let path = p.display().to_string();
    (dir, path)
}

fn module(target: &str, version: &str, body: &str) -> String {
    format!(
        ".version {version}\n.target {target}\n.address_size 64\n\
         .visible .entry k(.param .u64 p)\n{{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n{body}\tret;\n}}\n"
    )
}

fn stderr(args: &[&str], code: i32) -> String {
    let out = ptxsim().args(args).assert().code(code).get_output().clone();
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn every_error_in_the_file_in_ptxas_format() {
    let (_dir, f) = write(
        "all",
        &module(
            "sm_80",
            "8.0",
            "\tld.global.cg.L1::evict_first.b32 %r1, [%rd1];\n\
             \tst.global.ca.b32 [%rd1], %r1;\n\
             \tcp.async.cg.shared.global [%rd2], [%rd1], 8;\n",
        ),
    );
    let err = stderr(&["check", "--format", "ptxas", &f], 2);
    assert_eq!(
        err,
        format!(
            "ptxas {f}, line 8; error   : Modifier '.evict_first' cannot be combined with modifier '.cg'\n\
             ptxas {f}, line 9; error   : Illegal modifier '.ca' for instruction 'st'\n\
             ptxas {f}, line 10; error   : Argument 2 of instruction 'cp.async': unexpected value '8', expected to be 16\n\
             ptxas fatal   : Ptx assembly aborted due to errors\n"
        )
    );
    // Rich output: our wording, the code and a help line for each.
    let rich = stderr(&["check", &f], 2);
    for needle in ["E0204", "E0203", "E0403", "Help:", "k.ptx:8:"] {
        assert!(rich.contains(needle), "{needle} missing:\n{rich}");
    }
}

#[test]
fn overrides_replace_target_and_version() {
    let (_dir, f) = write(
        "override",
        &module(
            "sm_80",
            "8.0",
            "\tld.global.L2::cache_hint.b32 %r1, [%rd1], %rd2;\n",
        ),
    );
    ptxsim().args(["check", &f]).assert().success();
    let err = stderr(&["check", "--format", "ptxas", "--target", "sm_75", &f], 2);
    assert!(
        err.contains(
            "line 8; error   : Modifier '.L2::cache_hint' requires .target sm_80 or higher"
        ),
        "{err}"
    );
    let err = stderr(
        &["check", "--format", "ptxas", "--ptx-version", "7.3", &f],
        2,
    );
    assert!(
        err.contains(
            "line 8; error   : Modifier '.L2::cache_hint' requires PTX ISA .version 7.4 or later"
        ),
        "{err}"
    );
    // The overrides are checked against each other like the directives.
    let err = stderr(
        &[
            "check",
            "--format",
            "ptxas",
            "--target",
            "sm_90",
            "--ptx-version",
            "7.4",
            &f,
        ],
        2,
    );
    assert!(
        err.contains("line 2; error   : PTX .version 7.4 does not support .target sm_90"),
        "{err}"
    );
}

#[test]
fn json_carries_codes_and_help() {
    let (_dir, f) = write(
        "json",
        &module("sm_70", "7.0", "\tld.global.nc.lu.b32 %r1, [%rd1];\n"),
    );
    let out = run_exits(2, &["check", "--format", "json", &f]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &v["files"][0]["diagnostics"][0];
    assert_eq!(d["code"], "E0203");
    assert_eq!(
        d["ptxas"],
        "Illegal cache operation for instruction 'ld.nc'"
    );
    assert_eq!(d["line"], 8);
    assert!(d["help"].is_string() || d["help"].is_null());
}

#[test]
fn warnings_alone_exit_0() {
    let (_dir, f) = write(
        "warn",
        &module("sm_80", "8.0", "\tld.global.b32.v2 {%r1, %r2}, [%rd1];\n"),
    );
    let err = stderr(&["check", "--format", "ptxas", &f], 0);
    assert_eq!(
        err,
        format!("ptxas {f}, line 8; warning : Vector Type not specified properly\n")
    );
}

/// A module past `check`'s one-thread size (256 KiB): copies of the corpus's Triton matmul
/// under new names for an sm_75 target (cp.async and tf32 errors in every copy), one copy named
/// as another, and optionally a syntax error in one copy.
fn large_module(syntax_error: bool) -> String {
    let text = std::fs::read_to_string(
        common::root().join("tests/corpus/triton/matmul_fp32_tf32.sm80.ptx"),
    )
    .unwrap();
    let entry = text.find(".visible .entry").unwrap();
    let end = text[entry..].find("\n}\n").unwrap() + entry + 3;
    let mut out = text[..entry].replace(".target sm_80", ".target sm_75");
    let mut i = 0;
    while out.len() < 300 * 1024 {
        i += 1;
        let name = if i == 7 {
            "k_3".to_string()
        } else {
            format!("k_{i}")
        };
        let mut kernel = text[entry..end].replace("matmul_kernel", &name);
        if syntax_error && i == 9 {
            kernel = kernel.replacen("mov.u32", "mov.u32 @", 1);
        }
        out.push_str(&kernel);
    }
    out
}

#[test]
fn threads_give_the_same_output_in_every_format() {
    for syntax_error in [false, true] {
        let (_dir, f) = write(
            &format!("threads-{syntax_error}"),
            &large_module(syntax_error),
        );
        for format in ["rich", "ptxas", "json"] {
            let run = |threads: &str| {
                let out = ptxsim()
                    .args(["check", "--format", format, "--threads", threads, &f])
                    .assert()
                    .code(2)
                    .get_output()
                    .clone();
                (out.stdout, out.stderr)
            };
            let one = run("1");
            assert!(
                !one.0.is_empty() || !one.1.is_empty(),
                "{format}: no output"
            );
            for threads in ["2", "3"] {
                assert!(
                    run(threads) == one,
                    "{format}, {threads} threads, {syntax_error}"
                );
            }
        }
    }
    let zero = stderr(&["check", "--threads", "0", "k.ptx"], 2);
    assert!(zero.contains("give a number of threads from 1"), "{zero}");
}
