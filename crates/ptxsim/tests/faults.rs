//! Kernel faults through the CLI: each names the kernel, CTA, thread, PTX line (and source line
//! from `.loc`), the address where there is one, and exits 1; nothing panics. Bad launches
//! (argument count or type) exit 2. Also: `--seed` picks another legal interleaving,
//! deterministically.

use assert_cmd::Command;
use std::path::PathBuf;

const KERNELS: &str = r#".version 8.0
.target sm_80
.address_size 64
.file 1 "faults.cu"

.visible .entry oob(.param .u64 p)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	.loc 1 7 3
	st.global.u32 [%rd3], %r1;
	ret;
}

.visible .entry misaligned(.param .u64 p)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [p];
	add.s64 %rd2, %rd1, 2;
	ld.global.u32 %r1, [%rd2];
	ret;
}

.visible .entry bad_generic(.param .u64 p)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	mov.u64 %rd1, 4096;
	ld.u32 %r1, [%rd1];
	ret;
}

.visible .entry deadlock()
{
	.reg .b32 %r<2>;
	.reg .pred %p<2>;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 32;
	@%p1 bra $L__other;
	bar.sync 0;
	ret;
$L__other:
	bar.sync 1;
	ret;
}

.visible .entry forever()
{
$L__top:
	bra.uni $L__top;
}

.visible .entry shared_oob()
{
	.reg .b32 %r<4>;
	.shared .align 4 .b8 buf[64];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r3, buf;
	add.u32 %r2, %r2, %r3;
	st.shared.u32 [%r2], %r1;
	ret;
}

.visible .entry racy_sum(.param .u64 p)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	atom.global.add.u32 %r2, [%rd1], %r1;
	st.global.u32 [%rd1+4], %r2;
	ret;
}
"#;

/// The kernels, written once per test process (tests run in parallel).
fn ptx_file() -> PathBuf {
    static FILE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    FILE.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("ptxsim-faults-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("faults.ptx");
        std::fs::write(&p, KERNELS).unwrap();
        p
    })
    .clone()
}

fn run(
    kernel: &str,
    grid: &str,
    block: &str,
    args: &[&str],
    extra: &[&str],
) -> (i32, String, String) {
    let mut cmd = Command::cargo_bin("ptxsim").unwrap();
    cmd.arg("run")
        .arg(ptx_file())
        .args(["--kernel", kernel, "--grid", grid, "--block", block]);
    for a in args {
        cmd.args(["--arg", a]);
    }
    cmd.args(extra);
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn out_of_bounds_global_store() {
    let (code, _, err) = run("oob", "1", "64", &["zeros:u32:32"], &[]);
    assert_eq!(code, 1, "{err}");
    // Lanes 0-31 fit in the 32-element buffer; thread 32 is the first out of bounds.
    assert!(
        err.contains("out-of-bounds global access of 4 bytes"),
        "{err}"
    );
    assert!(
        err.contains(
            "kernel `oob`, CTA (0,0,0), thread (32,0,0), PTX line 15 (source faults.cu:7)"
        ),
        "{err}"
    );
    assert!(err.contains("st.global.u32 [%rd3], %r1;"), "{err}");
    assert!(err.contains("at address 0x"), "{err}");
}

#[test]
fn misaligned_access() {
    let (code, _, err) = run("misaligned", "1", "32", &["zeros:u32:8"], &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains("misaligned global access") && err.contains("not a multiple of 4"),
        "{err}"
    );
    assert!(err.contains("thread (0,0,0), PTX line 25"), "{err}");
}

#[test]
fn generic_address_outside_every_window() {
    let (code, _, err) = run("bad_generic", "1", "32", &["null"], &[]);
    assert_eq!(code, 1);
    assert!(err.contains("0x1000") && err.contains("global"), "{err}");
    assert!(err.contains("kernel `bad_generic`"), "{err}");
}

#[test]
fn shared_out_of_bounds() {
    let (code, _, err) = run("shared_oob", "1", "32", &[], &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains("out-of-bounds shared access of 4 bytes at address 0x40"),
        "{err}"
    );
    assert!(err.contains("thread (16,0,0)"), "{err}");
}

#[test]
fn barrier_some_threads_never_reach() {
    let (code, _, err) = run("deadlock", "1", "64", &[], &[]);
    assert_eq!(code, 1);
    // Threads 0-31 wait at barrier 1, threads 32-63 at barrier 0: neither completes.
    // (Threads that exit count as arrived, as on hardware, so early returns are no deadlock.)
    assert!(
        err.contains("barrier never completes: 32 of 64 threads arrived"),
        "{err}"
    );
    assert!(
        err.contains("kernel `deadlock`, CTA (0,0,0), thread ("),
        "{err}"
    );
    assert!(err.contains("bar.sync"), "{err}");
}

#[test]
fn step_limit() {
    let (code, _, err) = run("forever", "1", "32", &[], &["--max-steps", "1000"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("more than 1000 warp-instructions executed"),
        "{err}"
    );
    assert!(err.contains("bra.uni $L__top;"), "{err}");
}

#[test]
fn wrong_argument_count_and_type() {
    let (code, _, err) = run("oob", "1", "32", &[], &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("kernel `oob` takes 1 arguments, 0 given"),
        "{err}"
    );
    let (code, _, err) = run("oob", "1", "32", &["f32:1.5"], &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("argument 0 is .f32, but parameter `p` is .u64"),
        "{err}"
    );
    let (code, _, err) = run("oob", "1", "32", &["bogus"], &[]);
    assert_eq!(code, 2);
    assert!(err.contains("`bogus` is not an argument"), "{err}");
}

#[test]
fn seeds_pick_other_interleavings_deterministically() {
    // racy_sum: each thread adds its id atomically and stores the old value it saw; the last
    // store wins, so word 1 depends on the interleaving while word 0 (the sum) does not.
    let scratch = tempfile::Builder::new()
        .prefix("ptxsim-seeds-")
        .tempdir()
        .unwrap();
    let dir = scratch.path();
    let out_of = |seed: u64, tag: &str| -> Vec<u8> {
        let path = dir.join(format!("out-{seed}-{tag}.bin"));
        let (code, _, err) = run(
            "racy_sum",
            "4",
            "64",
            &["zeros:u32:2"],
            &[
                "--seed",
                &seed.to_string(),
                "--out",
                &format!("0={}", path.display()),
            ],
        );
        assert_eq!(code, 0, "{err}");
        std::fs::read(&path).unwrap()
    };
    let sum = |b: &[u8]| u32::from_le_bytes(b[0..4].try_into().unwrap());
    let a = out_of(0, "a");
    assert_eq!(a, out_of(0, "b"), "the same seed gives the same result");
    // The sum of thread ids 0..63 over 4 CTAs, whatever the order.
    let want = 4 * (0..64u32).sum::<u32>();
    let mut seen = std::collections::BTreeSet::new();
    for seed in [0u64, 1, 2, 3, 7, 11] {
        let r = out_of(seed, "c");
        assert_eq!(sum(&r), want);
        assert_eq!(r, out_of(seed, "d"));
        seen.insert(r[4..8].to_vec());
    }
    assert!(
        seen.len() > 1,
        "different seeds give different legal interleavings"
    );
}
