//! Counters-only mode's one-value registers (`machine/uniform.rs`): integer arithmetic,
//! `setp` and `selp` whose operands hold one value in every live lane compute one lane. The
//! kernel below makes an address out of each way a register stops holding one value — a
//! guarded write, a write on one side of a divergent branch, a `selp` whose predicate differs
//! by lane, a `setp` under a guard, a loaded value, a value carried around a loop that one
//! iteration makes per-lane — and out of values that do hold one (after some lanes exited, a
//! 64-bit chain): a register wrongly taken as one value moves an access, so every counter of
//! the counters-only run must equal the full run's.

mod common;

use ptx_exec::Session;

const PTX: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry uniform(.param .u64 uniform_buf, .param .u32 uniform_n)
{
    .reg .pred %p<10>;
    .reg .b32 %r<40>;
    .reg .b64 %rd<40>;

    ld.param.u64 %rd1, [uniform_buf];
    cvta.to.global.u64 %rd1, %rd1;
    ld.param.u32 %r30, [uniform_n];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mul.lo.u32 %r3, %r2, 5;
    add.u32 %r4, %r3, 7;
    // 1. A guarded write of a one value in a quarter of the lanes.
    and.b32 %r5, %r1, 3;
    setp.eq.u32 %p1, %r5, 0;
    @%p1 add.u32 %r4, %r3, 40;
    and.b32 %r6, %r4, 63;
    mul.wide.u32 %rd2, %r6, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.cg.u32 %r7, [%rd3];
    // 2. One side of a divergent branch writes a one value.
    mov.u32 %r8, 3;
    setp.lt.u32 %p2, %r1, 20;
    @%p2 bra SKIP;
    add.u32 %r8, %r2, 30;
SKIP:
    mul.wide.u32 %rd4, %r8, 4;
    add.s64 %rd5, %rd1, %rd4;
    ld.global.cg.u32 %r9, [%rd5+256];
    // 3. selp of two immediates by a predicate that differs by lane.
    setp.gt.u32 %p3, %r1, 9;
    selp.b32 %r10, 16, 48, %p3;
    mul.wide.u32 %rd6, %r10, 4;
    add.s64 %rd7, %rd1, %rd6;
    ld.global.cg.u32 %r11, [%rd7];
    // 4. setp of one-value operands under a guard: the other lanes keep %p4 false.
    setp.ne.u32 %p4, %r2, %r2;
    @%p1 setp.eq.u32 %p4, %r2, %r2;
    selp.b32 %r12, 4, 60, %p4;
    mul.wide.u32 %rd8, %r12, 4;
    add.s64 %rd9, %rd1, %rd8;
    ld.global.cg.u32 %r13, [%rd9+4];
    // 5. A loaded value, different in each lane, in arithmetic with a one value.
    mul.wide.u32 %rd10, %r1, 4;
    add.s64 %rd11, %rd1, %rd10;
    ld.global.u32 %r14, [%rd11];
    add.u32 %r15, %r14, %r2;
    and.b32 %r16, %r15, 63;
    mul.wide.u32 %rd12, %r16, 4;
    add.s64 %rd13, %rd1, %rd12;
    ld.global.cg.u32 %r17, [%rd13+512];
    // 6. A value carried around a loop that becomes per-lane on its second trip.
    mov.u32 %r18, 0;
    mov.u32 %r19, 0;
LOOP:
    add.u32 %r18, %r18, 1;
    setp.eq.u32 %p6, %r18, 2;
    @%p6 add.u32 %r19, %r19, %r1;
    add.u32 %r19, %r19, 4;
    and.b32 %r20, %r19, 63;
    mul.wide.u32 %rd14, %r20, 4;
    add.s64 %rd15, %rd1, %rd14;
    ld.global.cg.u32 %r21, [%rd15+128];
    setp.lt.u32 %p7, %r18, %r30;
    @%p7 bra LOOP;
    // 7. After the upper lanes exit, one values again (a 64-bit chain among them).
    setp.ge.u32 %p5, %r1, 48;
    @%p5 exit;
    add.u32 %r22, %r2, 11;
    mul.wide.u32 %rd16, %r22, 8;
    add.s64 %rd17, %rd16, %rd1;
    shl.b64 %rd18, %rd16, 1;
    and.b64 %rd19, %rd18, 127;
    add.s64 %rd20, %rd17, %rd19;
    ld.global.cg.u32 %r23, [%rd20];
    // Everything loaded, stored where a per-lane address puts it.
    add.u32 %r24, %r7, %r9;
    add.u32 %r24, %r24, %r11;
    add.u32 %r24, %r24, %r13;
    add.u32 %r24, %r24, %r17;
    add.u32 %r24, %r24, %r21;
    add.u32 %r24, %r24, %r23;
    st.global.u32 [%rd11+768], %r24;
    ret;
}
"#;

fn session() -> Session {
    let module = ptx_syntax::parse(PTX).expect("it parses");
    Session::new(&module, PTX, memsys::GpuConfig::a100()).expect("it lowers")
}

fn counters(counters_only: bool, threads: u32) -> String {
    // Different bytes in every word: loaded values differ from lane to lane.
    let init: Vec<u8> = (0..1024u32).map(|i| (i * 37 + 11) as u8).collect();
    common::launch_counters(PTX, "uniform", &init, 4, 4, counters_only, threads)
}

#[test]
fn one_value_registers_keep_every_address() {
    let full = counters(false, 1);
    for threads in [1, 2] {
        assert_eq!(counters(true, threads), full, "{threads} threads");
    }
}

#[test]
fn the_slice_tracks_one_value_registers() {
    let s = session();
    let f = s.program.kernel("uniform").expect("the kernel");
    let slice = f.slice.as_ref().expect("it is sliced");
    assert!(slice.registers.entries <= 64);
    assert_eq!(slice.clobbers.len(), f.code.len(), "tracking is on");
}
