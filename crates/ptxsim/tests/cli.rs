//! The `ptxsim` binary as a user runs it: exit codes, file:line:col diagnostics, formats.

mod common;
use common::{ptxsim, run_exits, run_ok, temp_dir, write};

use std::path::Path;

const HEAD: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

#[test]
fn help_lists_the_subcommands() {
    let out = ptxsim()
        .arg("--help")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    for sub in ["check", "fmt"] {
        assert!(text.contains(sub), "{text}");
    }
}

#[test]
fn syntax_error_reports_file_line_col_excerpt_and_exits_2() {
    let dir = temp_dir("syntax");
    let f = write(
        &dir,
        "bad.ptx",
        format!("{HEAD}.entry k() {{\n\tmov.u32 %r1, 0x;\n}}\n").as_bytes(),
    );
    let out = run_exits(2, &["check", &f]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains(&format!("{f}:5:15")), "{err}");
    assert!(err.contains("mov.u32 %r1, 0x;"), "source line shown: {err}");
    assert!(err.contains("invalid number `0x`"), "{err}");

    let out = run_exits(2, &["check", "--format", "ptxas", &f]);
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!(
            "ptxas {f}, line 5; fatal   : Parsing error near '0x': syntax error\n\
             ptxas fatal   : Ptx assembly aborted due to errors\n"
        )
    );

    let out = run_exits(2, &["check", "--format", "json", &f]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], "ptxsim-check/1");
    assert_eq!(v["files"][0]["diagnostics"][0]["line"], 5);
    assert_eq!(v["files"][0]["diagnostics"][0]["column"], 15);
}

#[test]
fn clean_file_exits_0_and_fmt_prints_it() {
    let dir = temp_dir("clean");
    let f = write(
        &dir,
        "ok.ptx",
        format!("{HEAD}.visible .entry k()\n{{\n\tret;\n}}\n").as_bytes(),
    );
    // A clean check says so on stdout, one line (rich format); ptxas's format stays silent
    // as ptxas does, and JSON is unchanged (the document alone).
    let out = run_ok(&["check", &f]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("ok: {f}: no errors\n")
    );
    assert!(out.stderr.is_empty());
    let two = run_ok(&["check", &f, &f]);
    assert_eq!(
        String::from_utf8(two.stdout).unwrap(),
        "ok: 2 files: no errors\n"
    );
    let ptxas = run_ok(&["check", "--format", "ptxas", &f]);
    assert!(ptxas.stdout.is_empty() && ptxas.stderr.is_empty());
    let json = run_ok(&["check", "--format", "json", &f]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["schema"], "ptxsim-check/1");
    let out = run_ok(&["fmt", &f]).stdout;
    assert!(String::from_utf8(out)
        .unwrap()
        .contains(".visible .entry k"));
}

/// `fmt -o` onto its own input rewrites it in place through a temporary file: the result is
/// what `fmt` prints, the file keeps its permissions, nothing is left beside it; an unwritable
/// destination is an error that leaves the input as it was.
#[test]
fn fmt_in_place_replaces_the_file_safely() {
    let dir = temp_dir("fmt-in-place");
    let src = format!("{HEAD}.visible .entry k()\n{{\n  ret;   }}\n");
    let f = write(&dir, "k.ptx", src.as_bytes());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o640)).unwrap();
    }
    let printed = run_ok(&["fmt", &f]).stdout;
    ptxsim().args(["fmt", &f, "-o", &f]).assert().success();
    assert_eq!(std::fs::read(&f).unwrap(), printed);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&f).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
    }
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["k.ptx"]);
    let missing = dir.join("no/such/dir/k.ptx").display().to_string();
    let out = run_exits(1, &["fmt", &f, "-o", &missing]);
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("cannot write"));
    assert_eq!(std::fs::read(&f).unwrap(), printed);
}

#[test]
fn non_utf8_and_missing_files_fail_cleanly() {
    let dir = temp_dir("binary");
    let f = write(&dir, "bin.ptx", b".version 8.0\n\xff\xfe\x00\x01");
    let out = run_exits(2, &["check", &f]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("not UTF-8") && err.contains(&format!("{f}:2:1")),
        "{err}"
    );
    let out = run_exits(2, &["check", "/nonexistent/x.ptx"]);
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("cannot read /nonexistent/x.ptx"));
    ptxsim().args(["fmt", &f]).assert().code(2);
}

#[test]
fn hazards_print_like_compute_sanitizer_and_fail_on_hazard_exits_3() {
    let dir = temp_dir("hazards");
    let ptx =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/hazards/hazard_kernels.sm80.ptx");
    let json = dir.join("h.json");
    let run = |kernel: &str, extra: &[&str]| {
        let mut cmd = ptxsim();
        cmd.arg("run")
            .arg(&ptx)
            .args(["--kernel", kernel, "--grid", "1", "--block", "64"])
            .args([
                "--arg",
                "zeros:f32:64",
                "--arg",
                "zeros:f32:64",
                "--arg",
                "s32:64",
            ])
            .args(extra);
        cmd.assert()
    };
    let out = run(
        "nc_after_write_bug",
        &[
            "--hazards",
            "--fail-on-hazard",
            "--hazards-json",
            json.to_str().unwrap(),
        ],
    )
    .code(3)
    .get_output()
    .clone();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("========= Hazard nc-after-write"), "{text}");
    assert!(
        text.contains("tests/hazards/hazard_kernels.cu:"),
        "source lines named: {text}"
    );
    assert!(text.contains("conflicts with PTX line"), "{text}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["schema"], "ptxsim-hazards/1");
    assert_eq!(v["hazards"][0]["class"], "nc-after-write");
    // Without --fail-on-hazard the run succeeds; the fixed kernel reports nothing.
    run("nc_after_write_bug", &["--hazards"]).success();
    let out = run("nc_after_write_fixed", &["--hazards", "--fail-on-hazard"])
        .success()
        .get_output()
        .clone();
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains("HAZARD SUMMARY: 0 reports"));
}
