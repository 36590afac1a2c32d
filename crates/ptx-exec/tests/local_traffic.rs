//! Local memory in the cache model, by kernel: a warp's `st.local` of one word per lane is one
//! 128-byte line written through to L2 (4 sectors; H100 `st_forms.st_shared_local_forms`: 2
//! `STL`s of a word, 8 L2 write sectors), its reload hits L1 and counts in the local L1
//! counters, not the global ones; and in a `.target ..., debug` module a function that calls
//! another saves its return address and the registers it keeps across the call per lane at
//! entry (`STL`, written through) and reloads them before returning (`LDL`, L1 hits), as
//! ptxas's `-O0` SASS does (`ptx_exec::program::frame_save_words`; H100
//! `reduce.debug.reduce_max_count`: 4,320 L2 write sectors, all of them these saves); a `-G`
//! build's stores are not write-combined (`MemSystem::set_write_combining`).

use ptx_exec::{KernelArg, LaunchConfig, Session};

/// The counters of one launch of `k(p)` on an H100, `warps` full warps in one CTA.
fn run(src: &str, warps: u32) -> memsys::Counters {
    let module = ptx_syntax::parse(src).expect("parses");
    let mut s = Session::new(&module, src, memsys::GpuConfig::h100()).expect("lowers");
    let p = s.alloc_buffer(&[0u8; 4096]).unwrap();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [32 * warps, 1, 1],
        ..LaunchConfig::default()
    };
    s.launch("k", &[KernelArg::Pointer(p)], cfg).unwrap();
    let out = s.read_buffer(p, 4).unwrap();
    assert_eq!(
        u32::from_le_bytes(out[..4].try_into().unwrap()),
        7,
        "result"
    );
    s.mem.stats().total()
}

const LOCAL: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
  .local .align 4 .b8 scratch[8];
  .reg .b32 %r<4>; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, 7;
  st.local.u32 [scratch], %r1;
  st.volatile.local.u32 [scratch+4], %r1;
  ld.local.u32 %r2, [scratch];
  ld.volatile.local.u32 %r3, [scratch+4];
  st.global.u32 [%rd1], %r2;
  ret;
}
"#;

#[test]
fn a_warps_local_word_is_one_line_written_through_and_reloaded_from_l1() {
    let c = run(LOCAL, 2);
    // Per warp: 2 local lines (4 sectors each), plus the global store's one sector.
    assert_eq!(c.l2.write_sectors, 2 * (2 * 4 + 1));
    assert_eq!(c.l2.read_sectors, 0, "the reloads hit L1");
    assert_eq!(
        (c.l1_local.read_sectors, c.l1_local.read_hits),
        (2 * 2 * 4, 2 * 2 * 4)
    );
    assert_eq!(c.l1_local.write_sectors, 2 * 2 * 4);
    assert_eq!(c.l1.read_sectors, 0, "no global loads");
}

/// `leaf` makes no call; `caller(u32, u64)` calls it with a `mov` copy of its first
/// parameter, as nvcc `-G` writes it: the return address and that parameter, 2 + 1 = 3 saved
/// words (the pattern of `min(u32,u32)` in the corpus's `reduce.debug`, 4 words in ptxas's SASS).
const CALLS: &str = r#"
.version 8.0
.target sm_90, debug
.address_size 64
.func (.param .b32 r) leaf(.param .b32 a)
{
  .reg .b32 %r<2>;
  ld.param.u32 %r1, [a];
  st.param.b32 [r], %r1;
  ret;
}
.func (.param .b32 r) caller(.param .b32 a, .param .b64 b)
{
  .reg .b32 %r<4>;
  ld.param.u32 %r1, [a];
  mov.b32 %r3, %r1;
  {
  .param .b32 pa; .param .b32 pr;
  st.param.b32 [pa], %r3;
  call (pr), leaf, (pa);
  ld.param.b32 %r2, [pr];
  }
  st.param.b32 [r], %r2;
  ret;
}
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<3>; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, 7;
  {
  .param .b32 pa; .param .b64 pb; .param .b32 pr;
  st.param.b32 [pa], %r1;
  st.param.b64 [pb], %rd1;
  call (pr), CALLEE, (pa, pb);
  ld.param.b32 %r2, [pr];
  }
  st.global.u32 [%rd1], %r2;
  ret;
}
"#;

#[test]
fn a_debug_builds_non_leaf_function_saves_its_frame_and_a_leaf_saves_nothing() {
    // `caller` (non-leaf): 3 words per lane = 3 lines of 4 sectors per warp.
    let c = run(&CALLS.replace("CALLEE", "caller"), 1);
    assert_eq!(c.l2.write_sectors, 3 * 4 + 1);
    assert_eq!(c.l2.read_sectors, 0, "the reloads hit L1");
    assert_eq!((c.l1_local.read_sectors, c.l1_local.read_hits), (12, 12));
    // `leaf` (no call in its body) called directly: nothing saved.
    let src = CALLS
        .replace("CALLEE, (pa, pb)", "leaf, (pa)")
        .replace("CALLEE", "leaf");
    let c = run(&src, 1);
    assert_eq!(c.l2.write_sectors, 1);
    assert_eq!(c.l1_local, memsys::LevelCounters::default());
    // Without `debug` in `.target`, calls save nothing (the optimized build inlines them).
    let c = run(
        &CALLS
            .replace("sm_90, debug", "sm_90")
            .replace("CALLEE", "caller"),
        1,
    );
    assert_eq!(c.l2.write_sectors, 1);
}

/// Each lane stores 4 words of its own 16 bytes, one `st` per word: a warp's 4 stores cover
/// the same 4 lines (16 sectors).
const FOUR_STORES: &str = r#"
.version 8.0
.target sm_90, debug
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<3>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 16;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r2, 7;
  st.global.u32 [%rd3], %r2;
  st.global.u32 [%rd3+4], %r2;
  st.global.u32 [%rd3+8], %r2;
  st.global.u32 [%rd3+12], %r2;
  ret;
}
"#;

#[test]
fn a_debug_builds_stores_reach_l2_unmerged() {
    // `-G`: every store's 16 sectors reach L2, as on the H100 (`vote_out_of_line` debug: 128
    // L2 write sectors for 2 warps x 4 such stores; its optimized build 32).
    let c = run(FOUR_STORES, 1);
    assert_eq!(c.l2.write_sectors, 4 * 16);
    // An optimized build's stores merge in the write-combining window: 16 sectors.
    let c = run(&FOUR_STORES.replace("sm_90, debug", "sm_90"), 1);
    assert_eq!(c.l2.write_sectors, 16);
}
