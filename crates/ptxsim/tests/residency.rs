//! CTA residency as the hardware decides it: `--registers-per-thread` and
//! `registers_per_thread` (launch files) with their errors, the registers estimate when
//! neither is given, the CTAs the interpreter keeps resident (the report's `run.residency`
//! and `run.resident_ctas`, the time estimate's `resident_ctas_per_sm`), and the same outputs
//! and counters for every host thread count under each residency.
//!
//! Expected CTAs per SM come from cuda_occupancy.h's formula on the H100 (compute capability
//! 9.0: 64 warps, 32 CTAs, 65,536 registers in 4 partitions allocated 256 a warp, 228 KiB
//! shared memory per SM, 1 KiB reserved per CTA), worked by hand in each test.

mod common;
use common::{launch, ptxsim, run_exits, run_ok, stderr_of, temp_dir, write, Launch, TestDir};
use serde_json::Value;

/// Each thread stores its thread index at its global index: enough CTAs (2000 of 256 threads)
/// that no residency holds them all at once on 132 SMs.
const KERNEL: &str = ".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<5>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.u32 %r4, %r1, %r2, %r3;
    mul.wide.u32 %rd2, %r4, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}
";

/// The kernel written to a fresh directory for `test` (removed when the test drops it).
fn kernel_file(test: &str) -> (TestDir, String) {
    let dir = temp_dir(test);
    let file = write(&dir, "k.sm90.ptx", KERNEL);
    (dir, file)
}

/// `ptxsim run` of the kernel (2000 CTAs of `block` threads) with `extra` options; the JSON
/// report.
fn run_json(ptx: &str, block: &str, extra: &[&str]) -> Value {
    let out = h100("run", ptx, block)
        .with(&["--report", "json"])
        .with(extra)
        .ok();
    serde_json::from_slice(&out.stdout).expect("the JSON report")
}

/// `cmd` of the kernel over 2000 CTAs of `block` threads on the h100 preset.
fn h100(cmd: &str, ptx: &str, block: &str) -> Launch {
    launch(cmd, ptx, "k", "2000", block, &["zeros:u32:512000"]).with(&["--gpu", "h100"])
}

/// `run` of the kernel in one CTA of `block` threads (one word each) with
/// `--registers-per-thread registers`.
fn one_cta(ptx: &str, block: &str, registers: &str) -> Launch {
    let words = format!("zeros:u32:{block}");
    launch("run", ptx, "k", "1", block, &[&words]).with(&["--registers-per-thread", registers])
}

fn residency(report: &Value) -> (&Value, u64) {
    let run = &report["variants"][0]["run"];
    (&run["residency"], run["resident_ctas"].as_u64().unwrap())
}

#[test]
fn registers_decide_the_resident_ctas() {
    let (_dir, ptx) = kernel_file("registers");
    // 256 threads = 8 warps. 64 registers: 2048 a warp, 16384 / 2048 = 8 warps per partition,
    // 32 per SM: 4 CTAs (warps allow 8, CTA slots 32), 4 x 132 SMs = 528 resident.
    let r = run_json(&ptx, "256", &["--registers-per-thread", "64"]);
    let (res, resident) = residency(&r);
    assert_eq!(res["ctas_per_sm"], 4, "{res}");
    assert_eq!(res["limited_by"], serde_json::json!(["registers"]), "{res}");
    assert_eq!(res["registers_per_thread"], 64);
    assert_eq!(res["registers_source"], "flag");
    assert_eq!(
        (res["by_warps"].as_u64(), res["by_ctas"].as_u64()),
        (Some(8), Some(32))
    );
    assert_eq!(resident, 528);
    let time = &r["variants"][0]["time"];
    assert_eq!(
        time["resident_ctas_per_sm"], 4,
        "the estimate uses the same function"
    );
    assert_eq!(time["limited_by"], serde_json::json!(["registers"]));
    // 40 registers: 1280 a warp, 16384 / 1280 = 12 warps per partition, 48 per SM: 6 CTAs.
    let r = run_json(&ptx, "256", &["--registers-per-thread", "40"]);
    let (res, resident) = residency(&r);
    assert_eq!((res["ctas_per_sm"].as_u64(), resident), (Some(6), 6 * 132));
    // 24 registers: 768 a warp, 21 warps per partition, 84 per SM: 10 CTAs; warps allow 8.
    let r = run_json(&ptx, "256", &["--registers-per-thread", "24"]);
    let (res, resident) = residency(&r);
    assert_eq!(res["ctas_per_sm"], 8);
    assert_eq!(res["limited_by"], serde_json::json!(["warps"]));
    assert_eq!(resident, 8 * 132);
}

#[test]
fn without_a_figure_the_registers_are_estimated_and_said_so() {
    let (_dir, ptx) = kernel_file("estimate");
    let r = run_json(&ptx, "256", &[]);
    let (res, _) = residency(&r);
    assert_eq!(res["registers_source"], "estimate");
    // A handful of live values: the estimate's floor of 16 registers.
    assert_eq!(res["registers_per_thread"], 16);
    assert_eq!(res["ctas_per_sm"], 8);
}

#[test]
fn the_text_reports_say_registers_source_and_binding_limit() {
    let (_dir, ptx) = kernel_file("text");
    let out = h100("run", &ptx, "256")
        .with(&["--registers-per-thread", "64", "--report", "text"])
        .ok();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("residency: 64 registers/thread (flag), 4 CTAs/SM limited by registers"),
        "{text}"
    );
    assert!(text.contains("528 CTAs resident at once"), "{text}");
}

#[test]
fn registers_out_of_range_are_usage_errors() {
    let (_dir, ptx) = kernel_file("range");
    for bad in ["0", "256", "many"] {
        let out = one_cta(&ptx, "32", bad).exits(2);
        let err = stderr_of(&out);
        assert!(
            err.contains("--registers-per-thread") && err.contains("1 to 255"),
            "{err}"
        );
    }
}

#[test]
fn a_cta_that_fits_no_sm_is_refused_as_the_driver_does() {
    let (_dir, ptx) = kernel_file("nofit");
    // 1024 threads x 72 registers: 32 warps x 2304 = 73,728 registers > 65,536 per CTA.
    let out = one_cta(&ptx, "1024", "72").exits(2);
    let err = stderr_of(&out);
    assert!(
        err.contains("too many resources requested for launch"),
        "{err}"
    );
    // 64 registers fill the register file exactly: the launch runs.
    one_cta(&ptx, "1024", "64").ok();
}

#[test]
fn launch_files_give_registers_and_the_flag_overrides_them() {
    let dir = temp_dir("launch_file");
    write(&dir, "k.sm90.ptx", KERNEL);
    let launch = |regs: &str| {
        format!(
            "ptx = \"k.sm90.ptx\"\nkernel = \"k\"\ngrid = [2000]\nblock = [256]\ngpu = \
             \"h100\"\n{regs}args = [\"zeros:u32:512000\"]\n"
        )
    };
    let file = write(&dir, "l.toml", launch("registers_per_thread = 64\n"));
    let out = run_ok(&["run", "--launch", &file, "--report", "json"]);
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let (res, resident) = residency(&r);
    assert_eq!(res["registers_source"], "launch file");
    assert_eq!((res["ctas_per_sm"].as_u64(), resident), (Some(4), 528));
    let out = run_ok(&[
        "run",
        "--launch",
        &file,
        "--report",
        "json",
        "--registers-per-thread",
        "40",
    ]);
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let (res, _) = residency(&r);
    assert_eq!(res["registers_source"], "flag");
    assert_eq!(res["ctas_per_sm"], 6);
    let bad = write(&dir, "bad.toml", launch("registers_per_thread = 300\n"));
    let err = stderr_of(&run_exits(2, &["run", "--launch", &bad]));
    assert!(
        err.contains("registers_per_thread = 300") && err.contains("1 to 255"),
        "{err}"
    );
}

#[test]
fn multi_step_files_take_registers_per_step() {
    let dir = temp_dir("steps");
    write(&dir, "k.sm90.ptx", KERNEL);
    let file = write(
        &dir,
        "s.toml",
        "ptx = \"k.sm90.ptx\"\ngpu = \"h100\"\nregisters_per_thread = 64\n\
         [[buffer]]\nname = \"out\"\ninit = \"zeros:u32:512000\"\n\
         [[step]]\nkernel = \"k\"\ngrid = [2000]\nblock = [256]\nargs = [\"buf:out\"]\n\
         [[step]]\nkernel = \"k\"\ngrid = [2000]\nblock = [256]\nargs = [\"buf:out\"]\n\
         registers_per_thread = 40\n",
    );
    let steps = temp_dir("steps");
    let report = steps.join("r.json");
    run_ok(&[
        "run",
        "--launch",
        &file,
        "--report",
        "json",
        "--report-out",
        &report.display().to_string(),
    ]);
    let text = std::fs::read_to_string(&report).unwrap();
    let reports: Vec<Value> = serde_json::from_str(&text).unwrap();
    let per_step: Vec<u64> = reports
        .iter()
        .map(|r| residency(r).0["ctas_per_sm"].as_u64().unwrap())
        .collect();
    // Step 0: the file's 64 registers (4 CTAs/SM); step 1: its own 40 (6).
    assert_eq!(per_step, vec![4, 6], "{text}");
    let bad = write(
        &dir,
        "bad.toml",
        "ptx = \"k.sm90.ptx\"\n[[buffer]]\nname = \"out\"\ninit = \"zeros:u32:4\"\n\
         [[step]]\nmemset = \"out\"\nbytes = 4\nregisters_per_thread = 32\n",
    );
    let err = stderr_of(&run_exits(2, &["run", "--launch", &bad]));
    assert!(
        err.contains("registers_per_thread belongs to kernel steps"),
        "{err}"
    );
}

#[test]
fn outputs_and_counters_do_not_depend_on_the_thread_count_under_any_residency() {
    let (_dir, ptx) = kernel_file("threads");
    for regs in ["64", "24"] {
        let runs: Vec<Value> = ["1", "2", "3"]
            .iter()
            .map(|t| {
                let r = run_json(
                    &ptx,
                    "256",
                    &["--registers-per-thread", regs, "--threads", t],
                );
                r["variants"].clone()
            })
            .collect();
        assert_eq!(runs[0], runs[1], "registers {regs}: 1 and 2 threads");
        assert_eq!(runs[0], runs[2], "registers {regs}: 1 and 3 threads");
    }
}

#[test]
fn compare_shows_the_residency_of_each_variant() {
    let (_dir, ptx) = kernel_file("compare");
    let compare = h100("compare", &ptx, "256").with(&[
        "--registers-per-thread",
        "64",
        "--variant",
        "cs=stores=cs",
    ]);
    let out = ptxsim().args(compare.args()).output().unwrap();
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(
        text.contains("residency: 64 registers/thread (flag), 4 CTAs/SM limited by registers"),
        "{text}{}",
        stderr_of(&out)
    );
    assert!(text.contains("4 (registers, 64 regs flag)"), "{text}");
}

#[test]
fn each_kernel_counts_its_own_static_shared_memory() {
    // Three kernels of 40 KiB of static shared memory each, one a .func's: the module has 120
    // KiB, each kernel 40 KiB (a and b their own module-scope arrays, c through the function it
    // calls). 40960 + 1024 reserved = 41984 (a multiple of 128): 233472 / 41984 = 5 CTAs/SM;
    // with the module's 120 KiB it would be 1.
    let ptx = ".version 8.0
.target sm_90
.address_size 64
.shared .align 4 .b8 sa[40960];
.shared .align 4 .b8 sb[40960];
.shared .align 4 .b8 sc[40960];
.func f()
{
    .reg .b32 %r<2>;
    mov.u32 %r1, sc;
    st.shared.u32 [%r1], 1;
    ret;
}
.visible .entry a(.param .u64 out)
{
    .reg .b32 %r<2>;
    mov.u32 %r1, sa;
    st.shared.u32 [%r1], 1;
    ret;
}
.visible .entry b(.param .u64 out)
{
    .reg .b32 %r<2>;
    mov.u32 %r1, sb;
    st.shared.u32 [%r1], 1;
    ret;
}
.visible .entry c(.param .u64 out)
{
    call f;
    ret;
}
";
    let dir = temp_dir("kernel_shared");
    let file = write(&dir, "s.sm90.ptx", ptx);
    for k in ["a", "b", "c"] {
        let out = launch("run", &file, k, "1", "32", &["null"])
            .with(&["--gpu", "h100", "--registers-per-thread", "16"])
            .with(&["--report", "json"])
            .ok();
        let r: Value = serde_json::from_slice(&out.stdout).unwrap();
        let (res, _) = residency(&r);
        assert_eq!(res["shared_bytes_per_cta"], 40960, "kernel {k}: {res}");
        assert_eq!(res["shared_bytes_allocated"], 41984, "kernel {k}");
        assert_eq!(res["by_shared_memory"], 5, "kernel {k}");
        assert_eq!(
            res["limited_by"],
            serde_json::json!(["shared_memory"]),
            "kernel {k}"
        );
    }
}
