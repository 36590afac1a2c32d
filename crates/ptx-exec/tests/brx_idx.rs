//! `brx.idx` (a multi-way branch through a `.branchtargets` list) run by the interpreter:
//! lanes of one warp with different indices go to different labels and reconverge after them
//! (a full-mask `vote.sync` at the join sees every lane), inside a loop too; an index past
//! the list (undefined behaviour in the PTX ISA) is a kernel fault that names the thread, the
//! instruction and the index. Expected values are computed here from the rule
//! (`target = list[index]`), not by ptxsim.

mod common;
use common::run_one_cta as launch;

fn kernel(body: &str) -> String {
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         .reg .pred %p<4>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<8>;\n\
         ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd1, %rd1;\n\
         mov.u32 %r1, %tid.x;\n{body}\nret;\n}}\n"
    )
}

#[test]
fn divergent_indices_branch_to_their_labels_and_reconverge() {
    // index = tid % 3: A stores tid*10, B tid+1000, C 7; then a full-mask ballot at the join.
    let ptx = kernel(
        "rem.u32 %r2, %r1, 3;\n\
         ts: .branchtargets A, B, C;\n\
         brx.idx %r2, ts;\n\
         A: mul.lo.u32 %r3, %r1, 10;\n bra J;\n\
         B: add.u32 %r3, %r1, 1000;\n bra J;\n\
         C: mov.u32 %r3, 7;\n\
         J: vote.sync.ballot.b32 %r4, 1, 0xffffffff;\n\
         mul.wide.u32 %rd2, %r1, 8;\nadd.s64 %rd3, %rd1, %rd2;\n\
         st.global.v2.u32 [%rd3], {%r3, %r4};",
    );
    let out = launch(&ptx, 64, 128).expect("runs");
    for t in 0..64u32 {
        let want = match t % 3 {
            0 => t * 10,
            1 => t + 1000,
            _ => 7,
        };
        assert_eq!(out[2 * t as usize], want, "value of thread {t}");
        assert_eq!(out[2 * t as usize + 1], u32::MAX, "ballot of thread {t}");
    }
}

#[test]
fn brx_in_a_loop_with_a_guard_and_uni() {
    // Four rounds i = 0..3: lanes whose (tid + i) & 1 is 0 add 1, the others add 100; lanes
    // with tid < 8 skip the branch in round 0 (guard) and add 10000 instead. The last
    // round's `brx.idx.uni` has one index for the whole warp (1): every lane adds 100.
    let ptx = kernel(
        "mov.u32 %r5, 0;\nmov.u32 %r6, 0;\n\
         ts: .branchtargets ONE, HUNDRED;\n\
         us: .branchtargets ONE, HUNDRED;\n\
         LOOP: add.u32 %r7, %r1, %r6;\nand.b32 %r7, %r7, 1;\n\
         setp.lt.u32 %p1, %r1, 8;\nsetp.eq.u32 %p2, %r6, 0;\nand.pred %p3, %p1, %p2;\n\
         setp.eq.u32 %p2, %r6, 3;\n\
         @%p2 brx.idx.uni 1, us;\n\
         @!%p3 brx.idx %r7, ts;\n\
         add.u32 %r5, %r5, 10000;\nbra NEXT;\n\
         ONE: add.u32 %r5, %r5, 1;\nbra NEXT;\n\
         HUNDRED: add.u32 %r5, %r5, 100;\n\
         NEXT: add.u32 %r6, %r6, 1;\nsetp.lt.u32 %p1, %r6, 4;\n@%p1 bra LOOP;\n\
         mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r5;",
    );
    let out = launch(&ptx, 32, 32).expect("runs");
    for t in 0..32u32 {
        let mut sum = 0;
        for i in 0..4 {
            sum += if i == 3 {
                100
            } else if t < 8 && i == 0 {
                10000
            } else if (t + i) & 1 == 0 {
                1
            } else {
                100
            };
        }
        assert_eq!(out[t as usize], sum, "thread {t}");
    }
}

#[test]
fn index_past_the_list_is_a_fault_not_a_panic() {
    // Lanes 0..3 are in range; lane 4 is the first whose index (4) is past the 4 labels.
    let ptx = kernel(
        "ts: .branchtargets A, A, A, A;\n\
         brx.idx %r1, ts;\n\
         A: ret;",
    );
    let err = launch(&ptx, 32, 1).expect_err("faults");
    assert!(err.contains("brx.idx index 4"), "{err}");
    assert!(err.contains("brx.idx %r1, ts"), "{err}");
    assert!(err.contains("thread (4,0,0)"), "{err}");
}
