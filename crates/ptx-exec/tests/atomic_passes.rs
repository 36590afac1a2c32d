//! How many L2 sectors a warp's atomic costs, by the SASS ptxas 13.5 emits for it (sm_75,
//! sm_80 and sm_90; `tests/sass/table.md` from `tests/sass/gen_mem_probe.py`): a 32-bit integer `add` on one
//! address is aggregated into one leader operation (`REDUX.SUM` + `@P0 RED` when unused,
//! leader `ATOMG` + shuffle scan when used); `and`/`or`/`xor`/`min`/`max` only when the old
//! value is unread (`REDUX` + `@P0 RED`; a used `atom.or` stays a per-lane `ATOMG.E.OR`);
//! `inc` and `f32` adds stay per lane, and the L2 serializes lanes on one address, one pass per
//! lane (memsys `atomic_passes`; H100: `atomics64` 4,096 red sectors = 16 warps x 8 x 32).

use ptx_exec::{KernelArg, LaunchConfig, Session};

const PTX: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p, .param .u64 q)
{
  .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .f32 %f<2>;
  ld.param.u64 %rd1, [p]; ld.param.u64 %rd2, [q];
  cvta.to.global.u64 %rd1, %rd1; cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd2, %rd3;
  ATOM
  ret;
}
"#;

/// L2 sectors (reads + writes) of one 32-thread warp running `atom` (one instruction on the
/// first word of `p`, the old value optionally stored to `q[tid]`).
fn sectors(atom: &str) -> u64 {
    let src = PTX.replace("ATOM", atom);
    let module = ptx_syntax::parse(&src).expect("parses");
    let mut s = Session::new(&module, &src, memsys::GpuConfig::h100()).expect("lowers");
    let p = s.alloc_buffer(&[0u8; 128]).unwrap();
    let q = s.alloc_buffer(&[0u8; 128]).unwrap();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        ..LaunchConfig::default()
    };
    s.launch("k", &[KernelArg::Pointer(p), KernelArg::Pointer(q)], cfg)
        .unwrap();
    let l2 = s.mem.stats().total().l2;
    l2.read_sectors
}

#[test]
fn atomics_count_the_passes_ptxas_leaves() {
    // Aggregated: one pass.
    assert_eq!(sectors("red.global.add.u32 [%rd1], %r1;"), 1);
    assert_eq!(sectors("red.global.xor.b32 [%rd1], %r1;"), 1);
    assert_eq!(
        sectors("atom.global.max.s32 %r2, [%rd1], %r1;"),
        1,
        "old value unread"
    );
    assert_eq!(
        sectors("atom.global.add.u32 %r2, [%rd1], %r1; st.global.u32 [%rd4], %r2;"),
        1,
        "add is aggregated with a scan even when the old value is used"
    );
    // Per lane: 32 passes over the one sector.
    assert_eq!(
        sectors("atom.global.or.b32 %r2, [%rd1], %r1; st.global.u32 [%rd4], %r2;"),
        32,
        "a used atom.or stays per lane"
    );
    assert_eq!(sectors("red.global.inc.u32 [%rd1], 100;"), 32);
    assert_eq!(
        sectors("mov.f32 %f1, 0f3F800000; red.global.add.f32 [%rd1], %f1;"),
        32
    );
    assert_eq!(sectors("red.global.add.u64 [%rd1], %rd3;"), 32);
}

/// A vector atomic (`atom.add.v4.f32`, sm_90) is one request of the whole vector per lane, as
/// on an H100: the `.v4` build of `triton.splitk_matmul` (sm_90) counts the 720 L2 atom
/// sectors its sm_80 build's scalar atomics count (`tests/hw/h100/counters`); issued element
/// by element it counted 2,880. Each lane's four elements still get their own add and old value.
#[test]
fn a_vector_atomic_is_one_request_per_lane() {
    let src = r#"
.version 8.1
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p, .param .u64 q)
{
  .reg .b32 %r<12>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [p]; ld.param.u64 %rd2, [q];
  cvta.to.global.u64 %rd1, %rd1; cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 16; add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;
  mov.b32 %r2, 0f3F800000; mov.b32 %r3, 0f40000000; mov.b32 %r4, 0f40400000; mov.b32 %r5, 0f40800000;
  atom.global.add.v4.f32 {%r6, %r7, %r8, %r9}, [%rd4], {%r2, %r3, %r4, %r5};
  st.global.v4.b32 [%rd5], {%r6, %r7, %r8, %r9};
  ret;
}
"#;
    let module = ptx_syntax::parse(src).expect("parses");
    let mut s = Session::new(&module, src, memsys::GpuConfig::h100()).expect("lowers");
    // p[4 * lane + k] = 10 * lane + k.
    let init: Vec<u8> = (0..128)
        .flat_map(|i| ((i / 4 * 10 + i % 4) as f32).to_le_bytes())
        .collect();
    let p = s.alloc_buffer(&init).unwrap();
    let q = s.alloc_buffer(&[0u8; 512]).unwrap();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        ..LaunchConfig::default()
    };
    s.launch("k", &[KernelArg::Pointer(p), KernelArg::Pointer(q)], cfg)
        .unwrap();
    let f32s = |b: Vec<u8>| -> Vec<f32> {
        b.chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let new = f32s(s.read_buffer(p, 512).unwrap());
    let old = f32s(s.read_buffer(q, 512).unwrap());
    for i in 0..128 {
        let before = (i / 4 * 10 + i % 4) as f32;
        assert_eq!(old[i], before, "old value of element {i}");
        assert_eq!(new[i], before + (i % 4 + 1) as f32, "element {i}");
    }
    // 32 lanes x 16 bytes = 512 bytes = 16 sectors, one pass each (no two lanes share an
    // address); element by element it would be 4 x 16.
    let l2 = s.mem.stats().total().l2;
    assert_eq!(l2.read_sectors, 16);
}
