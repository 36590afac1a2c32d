//! Register files of finished warps serve the warps of CTAs that start later (`reg_pool` in
//! machine/mod.rs, zeroed when a warp finishes): a later CTA must see the registers a fresh
//! one would. The kernel reads a register before any instruction writes it (PTX leaves its
//! value undefined; ptxsim's is 0), then writes it: on a one-SM GPU most of the 96 CTAs
//! start on the register file of one that finished, written with a non-zero value.

use ptx_exec::{KernelArg, LaunchConfig, Session};

const PTX: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry first_read(.param .u64 first_read_out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;

    ld.param.u64 %rd1, [first_read_out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %ctaid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    // %r2 is read before anything writes it, then written.
    add.u32 %r3, %r2, %r1;
    st.global.u32 [%rd3], %r3;
    mov.u32 %r2, 0x7777;
    ret;
}
"#;

const CTAS: usize = 96;

fn run(counters_only: bool, threads: u32) -> Vec<u32> {
    let module = ptx_syntax::parse(PTX).expect("it parses");
    let mut gpu = memsys::GpuConfig::a100();
    gpu.sm_count = 1;
    let mut s = Session::new(&module, PTX, gpu).expect("it lowers");
    let out = s.alloc_buffer(&[0u8; CTAS * 4]).unwrap();
    let cfg = LaunchConfig {
        grid: [CTAS as u32, 1, 1],
        block: [32, 1, 1],
        counters_only,
        threads,
        ..LaunchConfig::default()
    };
    let summary = s
        .launch("first_read", &[KernelArg::Pointer(out)], cfg)
        .unwrap();
    assert!(
        (summary.resident_ctas as usize) < CTAS,
        "all {CTAS} CTAs resident at once: nothing is recycled"
    );
    s.read_buffer(out, CTAS * 4)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn later_ctas_start_with_zeroed_registers() {
    // Each CTA stores its index plus what its first read of %r2 saw: 0.
    let expected: Vec<u32> = (0..CTAS as u32).collect();
    for threads in [1, 2] {
        assert_eq!(run(false, threads), expected, "{threads} threads");
    }
}
