//! A module with an instruction the interpreter does not run: only the kernels that reach it
//! (directly or through calls) fail, naming FILE:LINE:COL of that instruction; the module's
//! other kernels run.

use assert_cmd::Command;

// `vshl` with a byte selector (`%r1.b0`) is legal PTX for sm_80 that the interpreter does not
// implement (whole-word video shifts it runs).
const MODULE: &str = r#".version 8.0
.target sm_80
.address_size 64

.func (.param .b32 r) uses_vshl(.param .b32 a)
{
	.reg .b32 %r<4>;
	ld.param.b32 %r1, [a];
	vshl.u32.u32.u32.clamp %r2, %r1.b0, %r1;
	st.param.b32 [r], %r2;
	ret;
}

.visible .entry fine(.param .u64 p)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r1;
	ret;
}

.visible .entry direct(.param .u64 p)
{
	.reg .b32 %r<3>;
	mov.u32 %r1, %tid.x;
	vshl.u32.u32.u32.clamp %r2, %r1.b0, %r1;
	ret;
}

.visible .entry through_call(.param .u64 p)
{
	.reg .b32 %r<3>;
	mov.u32 %r1, %tid.x;
	{
	.param .b32 a;
	.param .b32 r;
	st.param.b32 [a], %r1;
	call.uni (r), uses_vshl, (a);
	ld.param.b32 %r2, [r];
	}
	ret;
}
"#;

fn run(kernel: &str) -> (i32, String, String, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("ptxsim-unsupported-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ptx = dir.join(format!("mixed-{kernel}.ptx"));
    std::fs::write(&ptx, MODULE).unwrap();
    let out = Command::cargo_bin("ptxsim")
        .unwrap()
        .arg("run")
        .arg(&ptx)
        .args(["--kernel", kernel, "--grid", "1", "--block", "32"])
        .args(["--arg", "zeros:u32:32"])
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        ptx,
    )
}

#[test]
fn other_kernels_of_the_module_still_run() {
    let (code, out, err, _) = run("fine");
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn a_kernel_with_the_instruction_names_its_position() {
    let (code, _, err, ptx) = run("direct");
    assert_eq!(code, 2, "{err}");
    let want = format!("{}:30:", ptx.display());
    assert!(err.contains(&want), "{err}");
    assert!(err.contains("vshl"), "{err}");
}

#[test]
fn a_kernel_calling_a_function_with_the_instruction_names_its_position() {
    let (code, _, err, ptx) = run("through_call");
    assert_eq!(code, 2, "{err}");
    let want = format!("{}:9:", ptx.display());
    assert!(err.contains(&want), "{err}");
}
