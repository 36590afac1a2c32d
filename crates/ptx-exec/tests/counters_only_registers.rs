//! Counters-only mode's register file (`program/reg_alloc.rs`): the slice's registers folded
//! onto few entries. Each kernel here makes an address out of registers whose live ranges a
//! wrong fold would break — a value read before anything writes it (0), a value a guarded
//! write changes in some lanes only, values carried around a loop and across divergent
//! paths, a 128-bit register, a value `shfl` reads from lanes that took another path — so
//! that any register clobbered by another in its entry moves
//! an access: every counter of the counters-only run must equal the full run's, and the
//! fold must have shared entries (fewer than the needed registers).

mod common;

use ptx_exec::Session;

const PTX: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry folds(.param .u64 folds_buf, .param .u32 folds_n)
{
    .reg .pred %p<6>;
    .reg .b32 %r<40>;
    .reg .b64 %rd<20>;
    .reg .b128 %q<2>;

    ld.param.u64 %rd1, [folds_buf];
    cvta.to.global.u64 %rd1, %rd1;
    ld.param.u32 %r1, [folds_n];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ctaid.x;
    // Read before any write: 0 in every lane, whatever the temporaries below compute.
    add.u32 %r4, %r30, %r2;
    mul.lo.u32 %r5, %r3, 7;
    add.u32 %r6, %r5, 3;
    xor.b32 %r7, %r6, %r2;
    and.b32 %r8, %r7, 15;
    // A guarded write: odd lanes only; the even lanes keep %r9 = 5.
    mov.u32 %r9, 5;
    and.b32 %r10, %r2, 1;
    setp.ne.u32 %p1, %r10, 0;
    @%p1 add.u32 %r9, %r8, 11;
    // Divergent paths write different temporaries, then the lanes meet again.
    setp.lt.u32 %p2, %r2, 13;
    @%p2 bra LOW;
    shl.b32 %r11, %r2, 3;
    add.u32 %r12, %r11, %r9;
    bra.uni JOIN;
LOW:
    mul.lo.u32 %r13, %r2, 5;
    add.u32 %r12, %r13, %r4;
JOIN:
    // A 128-bit register made of two 64-bit halves, taken apart again.
    cvt.u64.u32 %rd2, %r12;
    cvt.u64.u32 %rd3, %r9;
    mov.b128 %q1, {%rd2, %rd3};
    mov.b128 {%rd4, %rd5}, %q1;
    add.s64 %rd6, %rd4, %rd5;
    // A loop whose trip count, index and stride are carried around it.
    mov.u32 %r20, 0;
    mov.u32 %r21, %r8;
LOOP:
    add.u32 %r22, %r21, %r20;
    rem.u32 %r23, %r22, 64;
    mul.wide.u32 %rd7, %r23, 4;
    add.s64 %rd8, %rd1, %rd7;
    ld.global.ca.u32 %r24, [%rd8];
    add.u32 %r25, %r24, %r2;
    shl.b64 %rd9, %rd6, 2;
    and.b64 %rd10, %rd9, 252;
    add.s64 %rd11, %rd1, %rd10;
    st.global.u32 [%rd11+256], %r25;
    mul.lo.u32 %r26, %r20, 3;
    add.u32 %r21, %r21, %r26;
    add.u32 %r20, %r20, 1;
    setp.lt.u32 %p3, %r20, %r1;
    @%p3 bra LOOP;
    // `shfl` from lanes outside its membermask, which took the other path: the full run
    // reads their last value of %r36.
    mov.u32 %r35, %laneid;
    mul.lo.u32 %r36, %r35, 9;
    add.u32 %r36, %r36, %r3;
    setp.ge.u32 %p4, %r35, 16;
    @%p4 bra AFTER_SHFL;
    add.u32 %r38, %r35, 16;
    shfl.sync.idx.b32 %r37, %r36, %r38, 0x1f, 0xffff;
    and.b32 %r39, %r37, 63;
    mul.wide.u32 %rd14, %r39, 4;
    add.s64 %rd15, %rd1, %rd14;
    ld.global.u32 %r27, [%rd15];
AFTER_SHFL:
    // The first-read value, the guarded value and the loop's carried one, as an address.
    add.u32 %r31, %r4, %r9;
    add.u32 %r32, %r31, %r21;
    and.b32 %r33, %r32, 63;
    mul.wide.u32 %rd12, %r33, 4;
    add.s64 %rd13, %rd1, %rd12;
    ld.global.cg.u32 %r34, [%rd13+512];
    st.global.u32 [%rd13+768], %r34;
    ret;
}
"#;

fn counters(counters_only: bool, threads: u32) -> String {
    common::launch_counters(PTX, "folds", &[0u8; 1024], 9, 6, counters_only, threads)
}

#[test]
fn folded_registers_keep_every_address() {
    let full = counters(false, 1);
    for threads in [1, 2] {
        assert_eq!(counters(true, threads), full, "{threads} threads");
    }
}

#[test]
fn the_slice_folds_its_registers_onto_fewer_entries() {
    let module = ptx_syntax::parse(PTX).expect("it parses");
    let s = Session::new(&module, PTX, memsys::GpuConfig::a100()).expect("it lowers");
    let f = s.program.kernel("folds").expect("the kernel");
    let slice = f.slice.as_ref().expect("it is sliced");
    let needed = slice.needed.iter().filter(|&&n| n).count() as u32;
    assert!(
        slice.registers.entries < needed,
        "{} entries for {needed} needed registers",
        slice.registers.entries
    );
}
