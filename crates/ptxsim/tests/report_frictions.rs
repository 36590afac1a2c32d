//! What a new user meets first (issue 32's list): `check`'s success line, static shared memory
//! in the run header, `--out` of a scalar refused before the run, a multi-dimensional index in
//! an `[[expect]]` mismatch, `compare`'s "lines changed" counting the launched kernel only,
//! and `l1tex__t_requests.sum`'s description agreeing with its counts on `ld.global.cv`.

mod common;
use common::{launch, run_exits, run_ok, temp_dir, write, Launch};

use serde_json::Value;
use std::path::Path;

/// Kernel `k` (an `ld.global.cv` of `out[tid]`, 16 KiB of static shared memory, `out[tid] =
/// tid`) and kernel `other`, which a launch of `k` never runs.
const MODULE: &str = r#".version 8.0
.target sm_90
.address_size 64
.shared .align 4 .b8 tile[16384];

.visible .entry k(.param .u64 out, .param .u32 n)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	ld.global.cv.u32 %r2, [%rd3];
	mov.u32 %r3, tile;
	add.u32 %r4, %r3, %r2;
	st.shared.u32 [%r4], %r1;
	st.global.u32 [%rd3], %r1;
	ret;
}

.visible .entry other(.param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	ld.global.u32 %r1, [%rd1];
	ld.global.u32 %r2, [%rd1+4];
	st.global.u32 [%rd1+8], %r2;
	ret;
}
"#;

/// `cmd` of `k` in [`module`]'s file `f`: one warp over a 32-word buffer and its length.
fn k(cmd: &str, f: &str) -> Launch {
    launch(cmd, f, "k", "1", "32", &["zeros:u32:32", "u32:32"])
}

fn module(dir: &Path) -> String {
    write(dir, "k.ptx", MODULE)
}

/// A C-order `.npy` file of little-endian u32s with `shape`.
fn npy_u32(dir: &Path, name: &str, shape: &[usize], values: &[u32]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let mut header = format!(
        "{{'descr': '<u4', 'fortran_order': False, 'shape': ({},), }}",
        dims.join(", ")
    );
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend((header.len() as u16).to_le_bytes());
    bytes.extend(header.as_bytes());
    for v in values {
        bytes.extend(v.to_le_bytes());
    }
    write(dir, name, bytes)
}

#[test]
fn check_says_ok_on_success() {
    let dir = temp_dir("check-ok");
    let f = module(&dir);
    let out = run_ok(&["check", &f]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("ok: {f}: no errors\n")
    );
}

#[test]
fn run_header_counts_static_shared_memory() {
    let dir = temp_dir("shared");
    let f = module(&dir);
    let run = k("run", &f);
    let text = String::from_utf8(run.with(&["--report", "text"]).ok().stdout).unwrap();
    assert!(
        text.contains("shared 16384 B (16384 B static + 0 B dynamic)"),
        "{text}"
    );
    let json: Value = serde_json::from_slice(&run.with(&["--report", "json"]).ok().stdout).unwrap();
    assert_eq!(json["launch"]["static_shared_bytes"], 16384);
    assert_eq!(json["launch"]["shared_bytes"], 0);
    assert_eq!(
        json["variants"][0]["time"]["work"]["shared_bytes_per_cta"],
        16384
    );
}

#[test]
fn out_of_a_scalar_fails_before_the_run() {
    let dir = temp_dir("out-scalar");
    let f = module(&dir);
    let dest = dir.join("n.npy").display().to_string();
    let out = k("run", &f).with(&["--out", &format!("1={dest}")]).exits(2);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("--out 1: argument 1 is a scalar (.u32)"),
        "{err}"
    );
    assert!(!err.contains("ran `"), "refused before the run: {err}");
    assert!(
        String::from_utf8(out.stdout).unwrap().is_empty(),
        "nothing ran"
    );
    let out = k("run", &f).with(&["--out", &format!("5={dest}")]).exits(2);
    assert!(stderr(&out).contains("the launch has 2 arguments"));
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn expect_mismatch_names_the_index_in_the_arrays_shape() {
    let dir = temp_dir("expect-shape");
    module(&dir);
    let mut want: Vec<u32> = (0..32).collect();
    want[13] = 99;
    npy_u32(&dir, "want.npy", &[4, 8], &want);
    let launch = write(
        &dir,
        "k.toml",
        "ptx = \"k.ptx\"\nkernel = \"k\"\ngrid = [1]\nblock = [32]\n\
         args = [\"zeros:u32:32\", \"u32:32\"]\n\
         [[expect]]\narg = 0\nnpy = \"want.npy\"\n",
    );
    let out = run_exits(1, &["run", "--launch", &launch]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("first at [1][5]: got 0xd, expected 0x63"),
        "{text}"
    );
}

#[test]
fn compare_counts_the_launched_kernels_lines_only() {
    let dir = temp_dir("compare-lines");
    let f = module(&dir);
    let compare = k("compare", &f).with(&["--variant", "ef=loads=evict_first"]);
    let out = compare.with(&["--report", "json"]).ok();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ef = &v["variants"][1];
    // `k`'s one load; `other`'s two loads are counted apart.
    let lines: Vec<u64> = ef["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [15], "{ef}");
    assert_eq!(ef["changes_not_launched"], 2);
    let text = String::from_utf8(compare.ok().stdout).unwrap();
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("lines changed"))
        .unwrap();
    assert_eq!(row.split_whitespace().last(), Some("1"), "{text}");
    assert!(
        text.contains("also changed 2 line(s) of kernels not launched"),
        "{text}"
    );
}

/// `ld.global.cv` is looked up in L1 (and misses): the counts say so, and so must the
/// description of `l1tex__t_requests.sum`.
#[test]
fn l1_request_description_matches_cv_counts() {
    let dir = temp_dir("cv-desc");
    let f = module(&dir);
    let out = k("run", &f).with(&["--report", "json"]).ok();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cv = v["variants"][0]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["text"].as_str().unwrap().contains("ld.global.cv"))
        .unwrap()
        .clone();
    assert_eq!(cv["metrics"]["l1tex__t_requests.sum"], 1);
    assert_eq!(cv["metrics"]["l1tex__t_sectors_lookup_miss.sum"], 4);
    let desc = v["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "l1tex__t_requests.sum")
        .unwrap()["description"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(desc.contains(".cv"), "{desc}");
    assert!(
        !desc.contains("do not)"),
        "no longer says .cv does not reach L1: {desc}"
    );
}
