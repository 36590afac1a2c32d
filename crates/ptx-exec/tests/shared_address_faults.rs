//! Shared-memory addresses that `cp.async` and `ldmatrix` refuse — misaligned, out of bounds —
//! fault the same way in full and counters-only mode: the same kind, thread, instruction and
//! address, whichever lane is the bad one (counters-only mode checks a warp's addresses at
//! once and finds the fault lane by lane only when one fails: `shared_offsets_ok`).

use ptx_exec::{ExecError, FaultKind, KernelArg, LaunchConfig, Session};

/// A kernel whose `cp.async` (`COPY`) or `ldmatrix` (`LOAD`) goes to `base + lane * 16`,
/// except lane `BAD`, which adds `SHIFT`.
fn kernel(op: &str, bad: u32, shift: u32) -> String {
    let access = match op {
        "copy" => "cp.async.ca.shared.global [%r4], [%rd3], 16;\n    cp.async.wait_all;",
        _ => {
            "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r10, %r11, %r12, %r13}, [%r4];\n    \
              add.u32 %r14, %r10, %r13;\n    st.global.u32 [%rd3], %r14;"
        }
    };
    format!(
        r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry faults(.param .u64 faults_buf)
{{
    .reg .pred %p<2>;
    .reg .b32 %r<20>;
    .reg .b64 %rd<8>;
    .shared .align 16 .b8 tile[1024];

    ld.param.u64 %rd1, [faults_buf];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 4;
    mov.u32 %r3, tile;
    add.u32 %r4, %r3, %r2;
    setp.eq.u32 %p1, %r1, {bad};
    @%p1 add.u32 %r4, %r4, {shift};
    mul.wide.u32 %rd2, %r1, 16;
    add.s64 %rd3, %rd1, %rd2;
    {access}
    ret;
}}
"#
    )
}

fn run(ptx: &str, counters_only: bool) -> Result<(), ExecError> {
    let module = ptx_syntax::parse(ptx).expect("it parses");
    let mut s = Session::new(&module, ptx, memsys::GpuConfig::a100()).expect("it lowers");
    let buf = s.alloc_buffer(&[0u8; 4096]).unwrap();
    let cfg = LaunchConfig {
        grid: [2, 1, 1],
        block: [32, 1, 1],
        counters_only,
        ..LaunchConfig::default()
    };
    s.launch("faults", &[KernelArg::Pointer(buf)], cfg)
        .map(|_| ())
}

#[test]
fn refused_shared_addresses_fault_alike_in_both_modes() {
    for op in ["copy", "load"] {
        // In bounds and aligned: no fault in either mode.
        let ok = kernel(op, 0, 0);
        assert!(run(&ok, false).is_ok() && run(&ok, true).is_ok(), "{op}");
        for (bad, shift, misaligned) in [(5, 8, true), (0, 4, true), (31, 2048, false)] {
            let ptx = kernel(op, bad, shift);
            let full = run(&ptx, false).expect_err("full mode faults");
            let co = run(&ptx, true).expect_err("counters-only mode faults");
            assert_eq!(full.to_string(), co.to_string(), "{op} lane {bad} +{shift}");
            let ExecError::Fault { kind, .. } = &co else {
                panic!("{op}: {co}")
            };
            match kind {
                FaultKind::Misaligned { .. } => assert!(misaligned, "{op}: {co}"),
                FaultKind::OutOfBounds { .. } => assert!(!misaligned, "{op}: {co}"),
                _ => panic!("{op}: {co}"),
            }
            assert!(co.to_string().contains("shared"), "{co}");
        }
    }
}
