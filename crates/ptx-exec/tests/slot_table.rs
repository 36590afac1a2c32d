//! `SlotTable`: the register slots each lowered instruction names, which the interpreter
//! prefetches a few instructions ahead (`machine/schedule.rs`). A slot missing from the
//! table costs only speed, so this checks the table against the PTX operands directly: for
//! the instruction forms a matmul's inner loop runs, the table holds exactly the distinct
//! registers the instruction names.

use ptx_exec::Session;

const PTX: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry k(.param .u64 k_p)
{
    .reg .pred %p<2>;
    .reg .b32 %r<20>;
    .reg .f32 %f<5>;
    .reg .b64 %rd<4>;

    ld.param.u64 %rd1, [k_p];
    add.s32 %r3, %r1, %r2;
    mad.lo.s32 %r4, %r3, %r3, %r1;
    setp.lt.s32 %p1, %r4, 7;
    selp.b32 %r5, %r4, 3, %p1;
    ld.global.v4.u32 {%r6, %r7, %r8, %r9}, [%rd1+16];
    st.global.v2.u32 [%rd1], {%r6, %r6};
    ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r10, %r11, %r12, %r13}, [%r5];
    mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%f1, %f2, %f3, %f4};
    cvt.rn.f16x2.f32 %r16, %f1, %f2;
    mov.u32 %r17, %tid.x;
    ret;
}
"#;

#[test]
fn the_slot_table_lists_each_instructions_distinct_registers() {
    let module = ptx_syntax::parse(PTX).expect("parses");
    let s = Session::new(&module, PTX, memsys::GpuConfig::a100()).expect("lowers");
    let f = &s.program.functions[s.program.by_name["k"] as usize];
    let counts: Vec<usize> = (0..f.code.len() as u32)
        .map(|pc| f.slot_table.of(pc).len())
        .collect();
    // ld.param (a kernel parameter, no base register), add, mad, setp, selp, ld.v4 (4 + the
    // address base), st.v2 (one source twice + base), ldmatrix (4 + base), mma (d = c: 4,
    // a: 4, b: 2), cvt (d, a, b), mov from %tid, ret, and the `ret` lowering appends.
    assert_eq!(counts, [1, 3, 3, 1, 2, 5, 2, 5, 10, 3, 1, 0, 0]);
    for pc in 0..f.code.len() as u32 {
        let slots = f.slot_table.of(pc);
        assert!(slots.iter().all(|&s| s < f.slots), "pc {pc}: {slots:?}");
        let mut sorted = slots.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(
            sorted.len(),
            slots.len(),
            "pc {pc}: repeated slots {slots:?}"
        );
    }
    // The mma names the ldmatrix's four destinations as its A operand.
    let ldm = f.slot_table.of(7);
    assert!(ldm[..4].iter().all(|r| f.slot_table.of(8).contains(r)));
    assert!(f.slot_table.of(f.code.len() as u32).is_empty());
}
