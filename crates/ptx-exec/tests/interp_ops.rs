//! Instructions that real nvcc/Triton kernels use and the interpreter once lacked or got wrong,
//! each run on a small hand-written kernel whose expected values follow the PTX ISA (computed
//! here in plain Rust, independently of ptx-semantics).

mod common;
use common::run_one_cta;

/// Runs `kernel` of a `.target sm_90` module whose body is `body` with one `.u64 out` parameter
/// (`%rd1` = the output buffer, `%r1` = `%tid.x` already loaded), one CTA of `threads`, and
/// returns the first `words` 32-bit words of the output.
fn run(body: &str, regs: &str, threads: u32, words: usize) -> Vec<u32> {
    let ptx = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         .reg .pred %p<8>;\n.reg .b32 %r<64>;\n.reg .b64 %rd<32>;\n{regs}\n\
         ld.param.u64 %rd1, [out];\n\
         cvta.to.global.u64 %rd1, %rd1;\n\
         mov.u32 %r1, %tid.x;\n\
         {body}\n\
         ret;\n}}\n"
    );
    run_one_cta(&ptx, threads, words).unwrap_or_else(|e| panic!("{e}"))
}

/// Stores the `k`-th of `regs` of every thread at `out[tid * regs.len() + k]`.
fn stores(regs: &[u32]) -> String {
    let stride = regs.len() as u32;
    (0..stride)
        .map(|k| store(regs[k as usize], stride, k))
        .collect()
}

/// Stores `%r{reg}` of every thread at `out[tid * stride + slot]`.
fn store(reg: u32, stride: u32, slot: u32) -> String {
    format!(
        "mad.lo.u32 %r60, %r1, {stride}, {slot};\n\
         mul.wide.u32 %rd30, %r60, 4;\n\
         add.s64 %rd31, %rd1, %rd30;\n\
         st.global.u32 [%rd31], %r{reg};\n"
    )
}

#[test]
fn sad_all_widths() {
    // sad.s32: c + |a - b| with a = tid - 20, b = 3 * tid - 50, c = 7.
    let body = "add.s32 %r2, %r1, -20;\nmul.lo.s32 %r3, %r1, 3;\nadd.s32 %r3, %r3, -50;\n\
                sad.s32 %r4, %r2, %r3, 7;\nsad.u32 %r5, %r2, %r3, 7;\n\
                cvt.s64.s32 %rd2, %r2;\ncvt.s64.s32 %rd3, %r3;\nsad.s64 %rd4, %rd2, %rd3, 7;\n\
                cvt.u32.u64 %r6, %rd4;\n"
        .to_string()
        + &stores(&[4, 5, 6]);
    let out = run(&body, "", 32, 96);
    for t in 0..32i64 {
        let (a, b) = (t - 20, 3 * t - 50);
        let s = 7 + (a - b).abs();
        assert_eq!(out[3 * t as usize] as i64, s, "sad.s32 tid {t}");
        let (ua, ub) = (a as u32 as i64, b as u32 as i64);
        assert_eq!(
            out[3 * t as usize + 1],
            (7 + (ua - ub).abs()) as u32,
            "sad.u32"
        );
        assert_eq!(out[3 * t as usize + 2] as i64, s, "sad.s64");
    }
}

#[test]
fn redux_and_vote_use_each_lanes_membermask() {
    // Two 16-lane tiles in one warp, as cooperative_groups::tiled_partition<16> emits them:
    // membermask = 0xffff << (16 * (lane / 16)).
    let body = "shr.u32 %r2, %r1, 4;\nshl.b32 %r2, %r2, 4;\nmov.u32 %r3, 65535;\n\
                shl.b32 %r3, %r3, %r2;\n\
                redux.sync.add.s32 %r4, %r1, %r3;\n\
                redux.sync.max.u32 %r5, %r1, %r3;\n\
                and.b32 %r6, %r1, 1;\nsetp.ne.s32 %p1, %r6, 0;\n\
                vote.sync.ballot.b32 %r7, %p1, %r3;\n\
                setp.lt.u32 %p2, %r1, 16;\n\
                vote.sync.all.pred %p3, %p2, %r3;\nselp.u32 %r8, 1, 0, %p3;\n\
                vote.sync.any.pred %p4, %p1, %r3;\nselp.u32 %r9, 1, 0, %p4;\n"
        .to_string()
        + &stores(&[4, 5, 7, 8, 9]);
    let out = run(&body, "", 32, 160);
    for t in 0..32u32 {
        let tile = t / 16;
        let lanes = 16 * tile..16 * tile + 16;
        let o = &out[5 * t as usize..5 * t as usize + 5];
        assert_eq!(o[0], lanes.clone().sum::<u32>(), "redux.add lane {t}");
        assert_eq!(o[1], lanes.end - 1, "redux.max lane {t}");
        assert_eq!(o[2], 0xAAAA << (16 * tile), "ballot lane {t}");
        assert_eq!(o[3], (tile == 0) as u32, "vote.all lane {t}");
        assert_eq!(o[4], 1, "vote.any lane {t}");
    }
}

#[test]
fn match_any_and_all() {
    // match.any over the whole warp on tid % 4; match.all per group of 8 lanes (membermask
    // 0xff << 8g) on the group index, except group 1 which matches on tid & 1 (and fails).
    let body = "and.b32 %r2, %r1, 3;\nmatch.any.sync.b32 %r3, %r2, -1;\n\
                shr.u32 %r4, %r1, 3;\nshl.b32 %r8, %r4, 3;\nmov.u32 %r9, 255;\n\
                shl.b32 %r9, %r9, %r8;\nsetp.eq.u32 %p2, %r4, 1;\nand.b32 %r10, %r1, 1;\n\
                selp.u32 %r11, %r10, %r4, %p2;\n\
                match.all.sync.b32 %r5|%p1, %r11, %r9;\nselp.u32 %r6, 1, 0, %p1;\n"
        .to_string()
        + &stores(&[3, 6, 5]);
    let out = run(&body, "", 32, 96);
    for t in 0..32u32 {
        let want: u32 = (0..32).filter(|j| j % 4 == t % 4).map(|j| 1u32 << j).sum();
        let o = &out[3 * t as usize..3 * t as usize + 3];
        assert_eq!(o[0], want, "match.any lane {t}");
        let g = t / 8;
        assert_eq!(o[1], (g != 1) as u32, "match.all predicate lane {t}");
        assert_eq!(
            o[2],
            if g == 1 { 0 } else { 0xff << (8 * g) },
            "match.all mask lane {t}"
        );
    }
}

#[test]
fn carry_chains_add_sub_mad() {
    // 128-bit x = (hi = tid, lo = 2^64 - 1 - tid), y = (hi = 5, lo = 3 * tid + 1):
    // x + y and x - y through add.cc/addc and sub.cc/subc on .u64; 64x64->128 product
    // of lo(x) and 0x1_0000_0001 through mad.lo.cc / madc.hi on .u32 limbs.
    let body = "cvt.u64.u32 %rd2, %r1;\nnot.b64 %rd3, %rd2;\n\
                mul.lo.u64 %rd4, %rd2, 3;\nadd.u64 %rd4, %rd4, 1;\n\
                add.cc.u64 %rd5, %rd3, %rd4;\naddc.u64 %rd6, %rd2, 5;\n\
                sub.cc.u64 %rd7, %rd3, %rd4;\nsubc.u64 %rd8, %rd2, 5;\n\
                mov.u32 %r10, -7;\nmov.u32 %r11, 3;\nmov.u32 %r12, 100;\n\
                mad.lo.cc.u32 %r13, %r10, %r11, %r12;\nmadc.hi.u32 %r14, %r10, %r11, 0;\n\
                add.cc.u32 %r15, %r1, -1;\naddc.cc.u32 %r16, 0, 0;\naddc.u32 %r17, 0, 0;\n\
                cvt.u32.u64 %r20, %rd5;\nshr.u64 %rd9, %rd5, 32;\ncvt.u32.u64 %r21, %rd9;\n\
                cvt.u32.u64 %r22, %rd6;\ncvt.u32.u64 %r23, %rd7;\ncvt.u32.u64 %r24, %rd8;\n\
                shr.u64 %rd9, %rd8, 32;\ncvt.u32.u64 %r25, %rd9;\n"
        .to_string()
        + &stores(&[20, 21, 22, 23, 24, 25, 13, 14, 16, 17]);
    let out = run(&body, "", 32, 320);
    for t in 0..32u128 {
        let x = (t << 64) | (u64::MAX as u128 - t);
        let y = (5u128 << 64) | (3 * t + 1);
        let s = x.wrapping_add(y);
        let d = x.wrapping_sub(y);
        let o = &out[10 * t as usize..10 * t as usize + 10];
        assert_eq!(o[0], s as u32, "add lo tid {t}");
        assert_eq!(o[1], (s >> 32) as u32, "add lo high word tid {t}");
        assert_eq!(o[2], (s >> 64) as u32, "addc tid {t}");
        assert_eq!(o[3], d as u32, "sub lo tid {t}");
        assert_eq!(o[4], (d >> 64) as u32, "subc tid {t}");
        assert_eq!(o[5], (d >> 96) as u32, "subc high word tid {t}");
        // (2^32 - 7) * 3 + 100: low word with carry into the high word (hi = 2 + carry).
        let p = (u32::MAX as u64 - 6) * 3;
        let lo = (p as u32 as u64) + 100;
        assert_eq!(o[6], lo as u32);
        assert_eq!(o[7], (p >> 32) as u32 + (lo >> 32) as u32);
        // tid + 0xffffffff carries out for every tid >= 1; the second addc.cc clears CF.
        assert_eq!(o[8], (t >= 1) as u32, "addc.cc carry tid {t}");
        assert_eq!(o[9], 0, "carry consumed tid {t}");
    }
}

fn sext(v: u32, bits: u32) -> i64 {
    ((v as i64) << (64 - bits)) >> (64 - bits)
}

#[test]
fn dot_products_mul24_lop3_bmsk_szext() {
    // a = tid * 0x01fd_7f83 (bytes with both signs), b = ~a * 3.
    let body = "mul.lo.u32 %r2, %r1, 33390467;\nnot.b32 %r3, %r2;\nmul.lo.u32 %r3, %r3, 3;\n\
                dp4a.s32.s32 %r4, %r2, %r3, 11;\ndp4a.u32.s32 %r5, %r2, %r3, 11;\n\
                dp2a.lo.s32.u32 %r6, %r2, %r3, -4;\ndp2a.hi.u32.u32 %r7, %r2, %r3, 4;\n\
                mul24.lo.s32 %r8, %r2, %r3;\nmul24.hi.u32 %r9, %r2, %r3;\n\
                mad24.lo.s32 %r10, %r2, %r3, %r1;\n\
                lop3.b32 %r11, %r1, %r2, %r3, 0xe8;\n\
                bmsk.clamp.b32 %r12, %r1, 5;\nszext.wrap.s32 %r13, %r2, %r1;\n"
        .to_string()
        + &stores(&[4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    let out = run(&body, "", 32, 320);
    for t in 0..32u32 {
        let a = t.wrapping_mul(33390467);
        let b = (!a).wrapping_mul(3);
        let byte = |v: u32, k: u32, s: bool| {
            let x = (v >> (8 * k)) & 0xff;
            if s {
                sext(x, 8)
            } else {
                x as i64
            }
        };
        let half = |v: u32, k: u32, s: bool| {
            let x = (v >> (16 * k)) & 0xffff;
            if s {
                sext(x, 16)
            } else {
                x as i64
            }
        };
        let dp4 = |sa, sb| (0..4).map(|k| byte(a, k, sa) * byte(b, k, sb)).sum::<i64>() + 11;
        let dp2 = |hi: u32, sa, sb, c: i64| {
            (0..2)
                .map(|k| half(a, k, sa) * byte(b, 2 * hi + k, sb))
                .sum::<i64>()
                + c
        };
        let o = &out[10 * t as usize..10 * t as usize + 10];
        assert_eq!(o[0], dp4(true, true) as u32, "dp4a.s32.s32 tid {t}");
        assert_eq!(o[1], dp4(false, true) as u32, "dp4a.u32.s32 tid {t}");
        assert_eq!(o[2], dp2(0, true, false, -4) as u32, "dp2a.lo tid {t}");
        assert_eq!(o[3], dp2(1, false, false, 4) as u32, "dp2a.hi tid {t}");
        let p24 = sext(a & 0xff_ffff, 24) * sext(b & 0xff_ffff, 24);
        assert_eq!(o[4], p24 as u32, "mul24.lo.s32 tid {t}");
        let u24 = (a as u64 & 0xff_ffff) * (b as u64 & 0xff_ffff);
        assert_eq!(o[5], (u24 >> 16) as u32, "mul24.hi.u32 tid {t}");
        assert_eq!(o[6], (p24 as u32).wrapping_add(t), "mad24.lo.s32 tid {t}");
        // 0xe8 = majority(a, b, c).
        assert_eq!(o[7], (t & a) | (t & b) | (a & b), "lop3 tid {t}");
        let width = 5u32.min(32 - t.min(32));
        let mask = if width == 0 {
            0
        } else {
            ((1u64 << width) - 1) as u32
        } << t.min(31);
        assert_eq!(o[8], if t >= 32 { 0 } else { mask }, "bmsk.clamp tid {t}");
        let n = t & 31;
        let want = if n == 0 {
            0
        } else {
            sext(a & ((1u64 << n) - 1) as u32, n) as u32
        };
        assert_eq!(o[9], want, "szext.wrap.s32 tid {t}");
    }
}

#[test]
fn stmatrix_stores_the_ldmatrix_layout() {
    // Lane l's register i holds elements (row l/4, cols 2(l%4), +1) of matrix i; value = its
    // row-major index within the matrix plus 64 * i. Lanes 8i..8i+7 give the row addresses of
    // matrix i (16 bytes per row, matrices one after another).
    let regs = ".shared .align 16 .b8 tile[512];";
    let body = "shl.b32 %r2, %r1, 1;\n\
                add.u32 %r3, %r2, 1;\nshl.b32 %r3, %r3, 16;\nor.b32 %r4, %r2, %r3;\n\
                add.u32 %r5, %r4, 4194368;\nadd.u32 %r6, %r4, 8388736;\nadd.u32 %r7, %r4, 12583104;\n\
                mov.u32 %r8, tile;\nshl.b32 %r9, %r1, 4;\nadd.u32 %r10, %r8, %r9;\n\
                stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r10], {%r4, %r5, %r6, %r7};\n\
                bar.sync 0;\n\
                shl.b32 %r11, %r1, 2;\nadd.u32 %r12, %r8, %r11;\nld.shared.u32 %r13, [%r12];\n\
                add.u32 %r14, %r8, 256;\n\
                stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%r14+0], {%r4};\n"
        .to_string()
        + &store(13, 1, 0)
        + "bar.sync 0;\nadd.u32 %r15, %r12, 256;\nld.shared.u32 %r16, [%r15];\n"
        + &store(16, 1, 32);
    // The .trans store uses lanes 0..7's addresses (x1): rows at tile+256+16*lane.
    let body = body.replace("[%r14+0]", "[%r17]").replace(
        "add.u32 %r14, %r8, 256;\n",
        "add.u32 %r14, %r8, 256;\nadd.u32 %r17, %r14, %r9;\n",
    );
    let out = run(&body, regs, 32, 64);
    // Plain: shared is the matrices in row-major order, element e of matrix i = e + 64 i.
    for w in 0..32u32 {
        let (e0, e1) = (2 * w, 2 * w + 1);
        let v = |e: u32| (e % 64) + 64 * (e / 64);
        assert_eq!(out[w as usize], v(e0) | (v(e1) << 16), "stmatrix word {w}");
    }
    // .trans: memory row r, col c holds element (row c, col r) = 8c + r.
    for w in 0..32u32 {
        let (r, c) = (2 * w / 8, 2 * w % 8);
        let want = (8 * c + r) | ((8 * (c + 1) + r) << 16);
        assert_eq!(out[32 + w as usize], want, "stmatrix.trans word {w}");
    }
}

#[test]
fn fp8_pack_and_unpack() {
    // cvt.rn.satfinite.e4m3x2.f32 then cvt.rn.f16x2.e4m3x2 (Triton's fp8 round trip on sm_90):
    // -20.64 -> e4m3 0xDA (-20), 2.0 -> 0x40; 0xDA -> f16 -20 (0xCD00), 0x40 -> f16 2.0 (0x4000);
    // e5m2x2 0x3C_C1: 1.0 (0x3C00) and -2.5 (0xC100) in f16.
    let regs = ".reg .b16 %rs<8>;";
    let body = "mov.b32 %r2, 0fC1A51EB8;\nmov.b32 %r3, 0f40000000;\n\
                cvt.rn.satfinite.e4m3x2.f32 %rs1, %r3, %r2;\ncvt.u32.u16 %r4, %rs1;\n\
                cvt.rn.f16x2.e4m3x2 %r5, %rs1;\n\
                mov.b16 %rs2, 0x3CC1;\ncvt.rn.f16x2.e5m2x2 %r6, %rs2;\n\
                cvt.rn.satfinite.e5m2x2.f16x2 %rs3, %r6;\ncvt.u32.u16 %r7, %rs3;\n"
        .to_string()
        + &stores(&[4, 5, 6, 7]);
    let out = run(&body, regs, 1, 4);
    assert_eq!(out[0], 0x40DA, "e4m3x2 pack");
    assert_eq!(out[1], 0x4000_CD00, "f16x2 from e4m3x2");
    assert_eq!(out[2], 0x3C00_C100, "f16x2 from e5m2x2");
    assert_eq!(out[3], 0x3CC1, "e5m2x2 from f16x2");
}

#[test]
fn min_max_xorsign_abs() {
    // Triton's tl.clamp(x, -1, 1) on sm_90: min.xorsign.abs.f32 x, 1.0.
    let body =
        "cvt.rn.f32.s32 %r2, %r1;\nadd.f32 %r2, %r2, 0fC1800000;\nmul.f32 %r2, %r2, 0f3E800000;\n\
                min.xorsign.abs.f32 %r3, %r2, 0f3F800000;\n\
                max.xorsign.abs.f32 %r4, %r2, 0fBF000000;\n"
            .to_string()
            + &stores(&[3, 4]);
    let out = run(&body, "", 32, 64);
    for t in 0..32 {
        let x = (t as f32 - 16.0) * 0.25;
        let min = f32::from_bits(out[2 * t]);
        let max = f32::from_bits(out[2 * t + 1]);
        assert_eq!(
            min.to_bits(),
            x.abs().min(1.0).copysign(x).to_bits(),
            "min tid {t}"
        );
        assert_eq!(
            max.to_bits(),
            x.abs().max(0.5).copysign(-x).to_bits(),
            "max tid {t}"
        );
    }
}

/// A `.version 8.2` / `sm_90` module: `funcs` before the kernel, whose body is `body` (as `run`).
fn module(funcs: &str, regs: &str, body: &str) -> String {
    format!(
        ".version 8.2\n.target sm_90\n.address_size 64\n\n{funcs}\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         .reg .pred %p<8>;\n.reg .b32 %r<64>;\n.reg .b64 %rd<32>;\n{regs}\n\
         ld.param.u64 %rd1, [out];\n\
         cvta.to.global.u64 %rd1, %rd1;\n\
         mov.u32 %r1, %tid.x;\n\
         {body}\n\
         ret;\n}}\n"
    )
}

#[test]
fn lop3_with_a_predicate_result() {
    // PTX ISA 8.2: lop3.BoolOp.b32 d|p, a, b, c, immLut, q computes d as lop3 and
    // p = (d != 0) BoolOp q; `_` may replace d. a = tid * 0x9E3779B1, b = ~tid << 3, c = tid & 5
    // (zero for some lanes), q = tid odd.
    let body = "mul.lo.u32 %r2, %r1, -1640531535;\nnot.b32 %r3, %r1;\nshl.b32 %r3, %r3, 3;\n\
                and.b32 %r4, %r1, 5;\nand.b32 %r5, %r1, 1;\nsetp.ne.u32 %p1, %r5, 0;\n\
                lop3.and.b32 %r6|%p2, %r4, %r2, %r4, 0xC0, %p1;\nselp.u32 %r7, 1, 0, %p2;\n\
                lop3.or.b32 _|%p3, %r4, %r3, %r4, 0x88, %p1;\nselp.u32 %r8, 1, 0, %p3;\n\
                lop3.or.b32 %r9|%p4, %r2, %r3, %r4, 0x96, %p1;\nselp.u32 %r10, 1, 0, %p4;\n"
        .to_string()
        + &stores(&[6, 7, 8, 9, 10]);
    let out = run_one_cta(&module("", "", &body), 32, 160).unwrap();
    for t in 0..32u32 {
        let (a, b, c, q) = (t.wrapping_mul(0x9E37_79B1), !t << 3, t & 5, t & 1 == 1);
        let o = &out[5 * t as usize..5 * t as usize + 5];
        let d1 = c & a; // 0xC0: ta & tb with (a, b) = (c, a)
        assert_eq!(o[0], d1, "lop3.and d tid {t}");
        assert_eq!(o[1], (d1 != 0 && q) as u32, "lop3.and p tid {t}");
        let d2 = c & b; // 0x88: tb & tc with (b, c) = (b, c)
        assert_eq!(o[2], (d2 != 0 || q) as u32, "lop3.or p (d sunk) tid {t}");
        let d3 = a ^ b ^ c;
        assert_eq!(o[3], d3, "lop3.or d tid {t}");
        assert_eq!(o[4], (d3 != 0 || q) as u32, "lop3.or p tid {t}");
    }
}

#[test]
fn bar_warp_sync_waits_only_for_its_warp() {
    // Only warp 0 executes bar.warp.sync; then the whole CTA meets at bar.sync 0. Treating
    // bar.warp.sync as a CTA barrier deadlocks (warp 1 never reaches it).
    let body = "setp.ge.u32 %p1, %r1, 32;\n@%p1 bra SKIP;\nbar.warp.sync -1;\nSKIP:\nbar.sync 0;\n\
                add.u32 %r2, %r1, 7;\n"
        .to_string()
        + &stores(&[2]);
    let out = run_one_cta(&module("", "", &body), 64, 64).unwrap();
    assert_eq!(out, (7..71).collect::<Vec<u32>>());
}

/// Lanes with tid % 3 == 0 branch to a block placed after the join (as nvcc places an
/// unlikely branch) and jump back; then `sync` runs for the whole warp.
fn out_of_line(sync: &str) -> String {
    format!(
        "rem.u32 %r2, %r1, 3;\nsetp.eq.u32 %p1, %r2, 0;\nmov.u32 %r3, %r1;\n@%p1 bra COLD;\n\
         JOIN:\n{sync}\nbra.uni DONE;\nCOLD:\nmul.lo.u32 %r3, %r1, 1000;\nbra.uni JOIN;\nDONE:\n"
    )
}

#[test]
fn warp_sync_instructions_after_an_out_of_line_block() {
    // Every lane must take part in the ballot, the redux and the shuffle: the lanes of the cold
    // block arrive after the others passed the join by address order.
    let sync = "and.b32 %r4, %r3, 1;\nsetp.ne.u32 %p2, %r4, 0;\n\
                vote.sync.ballot.b32 %r5, %p2, -1;\n\
                redux.sync.max.u32 %r6, %r3, -1;\n\
                shfl.sync.bfly.b32 %r7, %r3, 1, 31, -1;\n\
                match.any.sync.b32 %r8, %r4, -1;";
    let body = out_of_line(sync) + &stores(&[5, 6, 7, 8]);
    let out = run_one_cta(&module("", "", &body), 32, 128).unwrap();
    let v: Vec<u32> = (0..32)
        .map(|t| if t % 3 == 0 { t * 1000 } else { t })
        .collect();
    let ballot: u32 = (0..32).filter(|&l| v[l] & 1 == 1).map(|l| 1 << l).sum();
    for t in 0..32usize {
        let o = &out[4 * t..4 * t + 4];
        assert_eq!(o[0], ballot, "ballot lane {t}");
        assert_eq!(o[1], *v.iter().max().unwrap(), "redux.max lane {t}");
        assert_eq!(o[2], v[t ^ 1], "shfl.bfly lane {t}");
        let same: u32 = (0..32)
            .filter(|&l| v[l] & 1 == v[t] & 1)
            .map(|l| 1 << l)
            .sum();
        assert_eq!(o[3], same, "match.any lane {t}");
    }
}

#[test]
fn vote_waits_for_the_lanes_of_its_mask_until_they_exit() {
    // Lanes >= 16 skip the ballot (guard false) and exit: the ballot of lanes < 16 waits for them
    // (they are in the membermask), then completes over the lanes that did not exit.
    let body = "setp.lt.u32 %p1, %r1, 16;\nand.b32 %r2, %r1, 3;\nsetp.eq.u32 %p2, %r2, 1;\n\
                @%p1 vote.sync.ballot.b32 %r3, %p2, -1;\n@!%p1 bra END;\n"
        .to_string()
        + &stores(&[3])
        + "END:\n";
    let out = run_one_cta(&module("", "", &body), 32, 32).unwrap();
    for (t, &o) in out.iter().enumerate() {
        assert_eq!(o, if t < 16 { 0x2222 } else { 0 }, "lane {t}");
    }
}

#[test]
fn warp_sync_at_two_different_instructions_is_a_clear_fault() {
    // if (lane < 16) shfl A else shfl B, both with the full mask: the ISA lets them meet, the
    // interpreter does not model that and must say so rather than return partial results.
    let body = "setp.lt.u32 %p1, %r1, 16;\n@%p1 bra LOW;\n\
                shfl.sync.idx.b32 %r2, %r1, 0, 31, -1;\nbra.uni JOIN;\n\
                LOW:\nshfl.sync.idx.b32 %r2, %r1, 31, 31, -1;\nJOIN:\n"
        .to_string()
        + &stores(&[2]);
    let err = run_one_cta(&module("", "", &body), 32, 32).unwrap_err();
    assert!(
        err.contains("warp-synchronous instruction never completes"),
        "{err}"
    );
}

#[test]
fn warp_sync_in_a_call_made_by_part_of_the_mask_is_a_clear_fault() {
    // As -G builds call __ballot_sync's wrapper: lanes < 16 call it first, lanes >= 16 later
    // from another call site; the full-mask vote inside cannot gather them in this model.
    let funcs = ".func (.reg .b32 r) ballot(.reg .b32 p)\n{\n.reg .pred q;\n\
                 setp.ne.u32 q, p, 0;\nvote.sync.ballot.b32 r, q, -1;\nret;\n}\n";
    let body = "and.b32 %r2, %r1, 1;\nsetp.lt.u32 %p1, %r1, 16;\n@!%p1 bra HIGH;\n\
                call.uni (%r3), ballot, (%r2);\nbra.uni JOIN;\n\
                HIGH:\ncall.uni (%r3), ballot, (%r2);\nJOIN:\n"
        .to_string()
        + &stores(&[3]);
    let err = run_one_cta(&module(funcs, "", &body), 32, 32).unwrap_err();
    assert!(err.contains("not executing this call"), "{err}");
}

#[test]
fn vector_atomics_add_each_element() {
    // sm_90 atom.global.v4.f32.add and red.global.v2.f32.add: element i of every lane adds to
    // out[i]; each element is atomic, so the sums are exact for these integers.
    let regs = ".reg .f32 %f<16>;";
    let body = "cvt.rn.f32.u32 %f1, %r1;\nadd.f32 %f2, %f1, %f1;\nmov.f32 %f3, 0f3F800000;\n\
                mul.f32 %f4, %f1, 0f40400000;\n\
                atom.global.v4.f32.add {%f5, %f6, %f7, %f8}, [%rd1], {%f1, %f2, %f3, %f4};\n\
                red.global.add.v2.f32 [%rd1+16], {%f3, %f1};\n";
    let out = run_one_cta(&module("", regs, body), 64, 6).unwrap();
    let s: f32 = (0..64).map(|t| t as f32).sum();
    let want = [s, 2.0 * s, 64.0, 3.0 * s, 64.0, s];
    for (i, w) in want.iter().enumerate() {
        assert_eq!(f32::from_bits(out[i]), *w, "element {i}");
    }
}

#[test]
fn wmma_load_mma_store_through_shared_memory() {
    // A (16x16 f16, row-major) and B (16x16 f16, stored column-major with leading dimension 24)
    // written to shared memory by the warp; C = 1 in every element from wmma.load.c of a
    // constant shared tile; D = A B + C stored row-major with stride 20 floats to global.
    // A[i][k] = (3i + k) % 7 - 3, B[k][j] = (k + 5j) % 5 - 2.
    let regs = ".reg .b16 %h<4>;\n.reg .f32 %f<40>;\n.reg .b32 %a<8>;\n.reg .b32 %b<8>;\n\
                .shared .align 32 .b8 sa[512];\n.shared .align 32 .b8 sb[768];\n\
                .shared .align 32 .b8 sc[1024];";
    let body = "mov.u32 %r2, %r1;\n\
         LOOP:\n\
         shr.u32 %r3, %r2, 4;\nand.b32 %r4, %r2, 15;\n\
         mad.lo.u32 %r5, %r3, 3, %r4;\nrem.u32 %r5, %r5, 7;\nadd.s32 %r5, %r5, -3;\n\
         cvt.rn.f16.s32 %h1, %r5;\nmov.u32 %r6, sa;\nmad.lo.u32 %r7, %r2, 2, %r6;\nst.shared.b16 [%r7], %h1;\n\
         mad.lo.u32 %r5, %r4, 5, %r3;\nrem.u32 %r5, %r5, 5;\nadd.s32 %r5, %r5, -2;\n\
         cvt.rn.f16.s32 %h2, %r5;\nmov.u32 %r6, sb;\nmad.lo.u32 %r8, %r4, 24, %r3;\n\
         mad.lo.u32 %r8, %r8, 2, %r6;\nst.shared.b16 [%r8], %h2;\n\
         mov.u32 %r6, sc;\nmad.lo.u32 %r9, %r2, 4, %r6;\nst.shared.u32 [%r9], 0f3F800000;\n\
         add.u32 %r2, %r2, 32;\nsetp.lt.u32 %p1, %r2, 256;\n@%p1 bra LOOP;\n\
         bar.warp.sync -1;\n\
         mov.u32 %r10, sa;\nmov.u32 %r11, sb;\nmov.u32 %r12, sc;\n\
         wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [%r10];\n\
         wmma.load.b.sync.aligned.col.m16n16k16.shared.f16 {%b0, %b1, %b2, %b3, %b4, %b5, %b6, %b7}, [%r11], 24;\n\
         wmma.load.c.sync.aligned.row.m16n16k16.shared.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, [%r12];\n\
         wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f10, %f11, %f12, %f13, %f14, %f15, %f16, %f17}, \
         {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, {%b0, %b1, %b2, %b3, %b4, %b5, %b6, %b7}, \
         {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};\n\
         wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], \
         {%f10, %f11, %f12, %f13, %f14, %f15, %f16, %f17}, 20;\n";
    let out = run_one_cta(&module("", regs, body), 32, 16 * 20).unwrap();
    for i in 0..16i32 {
        for j in 0..16i32 {
            let d: i32 = 1
                + (0..16)
                    .map(|k| ((3 * i + k) % 7 - 3) * ((k + 5 * j) % 5 - 2))
                    .sum::<i32>();
            assert_eq!(
                f32::from_bits(out[(i * 20 + j) as usize]),
                d as f32,
                "D[{i}][{j}]"
            );
        }
        for j in 16..20 {
            assert_eq!(
                out[(i * 20 + j) as usize],
                0,
                "padding [{i}][{j}] untouched"
            );
        }
    }
}

#[test]
fn wmma_needs_the_whole_warp() {
    let regs = ".reg .b32 %a<8>;\n.shared .align 32 .b8 sa[512];";
    let body = "mov.u32 %r10, sa;\n\
                wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [%r10];\n";
    let err = run_one_cta(&module("", regs, body), 16, 1).unwrap_err();
    assert!(err.contains("all 32 threads of the warp"), "{err}");
}

#[test]
fn reg_return_values_reach_the_caller() {
    // `.func (.reg .b32 r) f(.reg .b32 a, .reg .b32 b)`: the return value is a register of the
    // callee, copied to the caller's destination register on return.
    let funcs = ".func (.reg .b32 r) madd(.reg .b32 a, .reg .b32 b)\n{\n\
                 mad.lo.u32 r, a, b, 11;\nret;\n}\n";
    let body =
        "add.u32 %r2, %r1, 3;\ncall.uni (%r3), madd, (%r1, %r2);\n".to_string() + &store(3, 1, 0);
    let out = run_one_cta(&module(funcs, "", &body), 32, 32).unwrap();
    for t in 0..32u32 {
        assert_eq!(out[t as usize], t * (t + 3) + 11, "lane {t}");
    }
}

#[test]
fn fns_video_simd_and_packed_min_max() {
    // a = tid * 0x9E3779B1, b = ~a rotated; fns over offsets -3..=3 from base tid; vabsdiff4
    // (merge into c under mask .b20 with .sat), vabsdiff2.add, vmax4.s32 (signed bytes),
    // max.relu.s32, min.relu.s16x2, add.u16x2.
    let body =
        "mul.lo.u32 %r2, %r1, -1640531535;\nnot.b32 %r3, %r2;\nshf.l.wrap.b32 %r3, %r3, %r3, 7;\n\
                rem.u32 %r4, %r1, 7;\nadd.s32 %r4, %r4, -3;\n\
                fns.b32 %r5, %r2, %r1, %r4;\n\
                vabsdiff4.u32.u32.u32.sat %r6.b20, %r2, %r3, %r1;\n\
                vabsdiff2.u32.u32.u32.add %r7, %r2, %r3, %r1;\n\
                vmax4.s32.s32.s32 %r8, %r2, %r3, %r1;\n\
                max.relu.s32 %r9, %r2, %r3;\n\
                min.relu.s16x2 %r10, %r2, %r3;\n\
                add.u16x2 %r11, %r2, %r3;\n"
            .to_string()
            + &stores(&[5, 6, 7, 8, 9, 10, 11]);
    let out = run_one_cta(&module("", "", &body), 32, 224).unwrap();
    let bytes = |v: u32| -> [i64; 4] { std::array::from_fn(|k| (v >> (8 * k) & 0xff) as i64) };
    let halves = |v: u32| -> [i64; 2] { std::array::from_fn(|k| (v >> (16 * k) & 0xffff) as i64) };
    for t in 0..32u32 {
        let a = t.wrapping_mul(0x9E37_79B1);
        let b = (!a).rotate_left(7);
        let off = (t % 7) as i32 - 3;
        let o = &out[7 * t as usize..7 * t as usize + 7];
        // fns: the |off|-th set bit from bit t upwards (off > 0) or downwards (off < 0).
        let want_fns = if off == 0 {
            if a >> t & 1 == 1 {
                t
            } else {
                u32::MAX
            }
        } else {
            let mut found = u32::MAX;
            let mut left = off.unsigned_abs();
            let mut pos = t as i32;
            while (0..32).contains(&pos) {
                if a >> pos & 1 == 1 {
                    left -= 1;
                    if left == 0 {
                        found = pos as u32;
                        break;
                    }
                }
                pos += off.signum();
            }
            found
        };
        assert_eq!(o[0], want_fns, "fns tid {t} offset {off}");
        let (ab, bb, cb) = (bytes(a), bytes(b), bytes(t));
        let merged: u32 = (0..4)
            .map(|k| {
                let e = if k == 0 || k == 2 {
                    (ab[k] - bb[k]).abs().min(255)
                } else {
                    cb[k]
                };
                (e as u32) << (8 * k)
            })
            .sum();
        assert_eq!(o[1], merged, "vabsdiff4.sat.b20 tid {t}");
        let (ah, bh) = (halves(a), halves(b));
        let sad = t as i64 + (0..2).map(|k| (ah[k] - bh[k]).abs()).sum::<i64>();
        assert_eq!(o[2], sad as u32, "vabsdiff2.add tid {t}");
        let sb = |v: i64| if v >= 128 { v - 256 } else { v };
        let vmax: u32 = (0..4)
            .map(|k| ((sb(ab[k]).max(sb(bb[k])) as u32) & 0xff) << (8 * k))
            .sum();
        assert_eq!(o[3], vmax, "vmax4.s32 tid {t}");
        assert_eq!(
            o[4],
            (a as i32).max(b as i32).max(0) as u32,
            "max.relu.s32 tid {t}"
        );
        let sh = |v: i64| if v >= 32768 { v - 65536 } else { v };
        let mn: u32 = (0..2)
            .map(|k| ((sh(ah[k]).min(sh(bh[k])).max(0) as u32) & 0xffff) << (16 * k))
            .sum();
        assert_eq!(o[5], mn, "min.relu.s16x2 tid {t}");
        let add: u32 = (0..2)
            .map(|k| (((ah[k] + bh[k]) as u32) & 0xffff) << (16 * k))
            .sum();
        assert_eq!(o[6], add, "add.u16x2 tid {t}");
    }
}

#[test]
fn elect_sync_picks_one_leader_per_mask() {
    // Lanes 3..=31 run elect.sync with the mask of lanes >= 3 (lanes 0-2 exit first): every lane
    // gets the leader's lane id (3) and only the leader's predicate is true; griddepcontrol is a
    // no-op for a single launch.
    let body = "setp.lt.u32 %p1, %r1, 3;\n@%p1 bra END;\ngriddepcontrol.wait;\n\
                elect.sync %r2|%p2, 0xfffffff8;\nselp.u32 %r3, 1, 0, %p2;\n\
                elect.sync _|%p3, 0xfffffff8;\nselp.u32 %r4, 1, 0, %p3;\n\
                griddepcontrol.launch_dependents;\n"
        .to_string()
        + &stores(&[2, 3, 4])
        + "END:\n";
    let out = run_one_cta(&module("", "", &body), 32, 96).unwrap();
    for t in 0..32usize {
        let o = &out[3 * t..3 * t + 3];
        if t < 3 {
            assert_eq!(o, [0, 0, 0], "lane {t} exited");
        } else {
            assert_eq!(o, [3, (t == 3) as u32, (t == 3) as u32], "lane {t}");
        }
    }
}

#[test]
fn labels_are_local_to_their_block() {
    // A label declared inside `{ }` is local to that block: Triton's inline-asm mbarrier waits
    // each declare `waitLoop` in their own block, and each branch must reach its own block's
    // label (resolving every `waitLoop` to the last one sends the first loop into the second).
    let body = "mov.u32 %r2, 0;\n\
                {\n.reg .pred q;\nL:\nadd.u32 %r2, %r2, 1;\nsetp.lt.u32 q, %r2, 3;\n@q bra L;\n}\n\
                mov.u32 %r3, 0;\n\
                {\n.reg .pred q;\nL:\nadd.u32 %r3, %r3, 10;\nsetp.lt.u32 q, %r3, 50;\n@q bra L;\n}\n\
                bra L;\nmov.u32 %r3, 7;\nL:\n"
        .to_string()
        + &stores(&[2, 3]);
    let out = run(&body, "", 1, 2);
    assert_eq!(out, vec![3, 50]);
}

#[test]
fn cluster_barriers_of_a_one_cta_cluster_synchronize_the_cta() {
    // barrier.cluster.arrive + barrier.cluster.wait ("wait until all threads in the cluster have
    // arrived") around a bar.sync 0: the cluster barrier is not barrier 0, so a warp's arrive
    // must not count towards another warp's bar.sync. Thread t writes shared[t] after the
    // arrive (warp 1 after a delay), then every thread passes bar.sync 0 and the wait, and reads
    // its neighbour's value (another warp's for threads 31 and 63).
    let body = "mov.u32 %r2, sh;\nshl.b32 %r3, %r1, 2;\nadd.u32 %r4, %r2, %r3;\n\
                barrier.cluster.arrive.release.aligned;\n\
                setp.lt.u32 %p5, %r1, 32;\n@%p5 bra STORE;\nmov.u32 %r9, 0;\n\
                DELAY:\nadd.u32 %r9, %r9, 1;\nsetp.lt.u32 %p6, %r9, 200;\n@%p6 bra DELAY;\n\
                STORE:\nadd.u32 %r5, %r1, 100;\nst.shared.u32 [%r4], %r5;\n\
                bar.sync 0;\nbarrier.cluster.wait.acquire.aligned;\n\
                add.u32 %r6, %r1, 1;\nand.b32 %r6, %r6, 63;\nshl.b32 %r6, %r6, 2;\n\
                add.u32 %r6, %r2, %r6;\nld.shared.u32 %r7, [%r6];\n"
        .to_string()
        + &stores(&[7]);
    let out = run(&body, ".shared .align 4 .b8 sh[256];", 64, 64);
    let want: Vec<u32> = (0..64).map(|t| (t + 1) % 64 + 100).collect();
    assert_eq!(out, want);
}

#[test]
fn bar_red_reduces_over_every_thread_of_the_cta() {
    // CUB's onesweep radix sort ends a tile with `bar.red.or.pred`; the result covers all
    // threads of the CTA (four warps here), not only the executing warp, and every thread
    // receives it once the barrier completes.
    // p1 = (tid == 77): one thread in warp 2. p2 = (tid < 128): true everywhere.
    // p3 = (tid % 3 == 0).
    let body = "setp.eq.u32 %p1, %r1, 77;\n\
                setp.lt.u32 %p2, %r1, 128;\n\
                rem.u32 %r9, %r1, 3;\nsetp.eq.u32 %p3, %r9, 0;\n\
                bar.red.or.pred %p4, 0, %p1;\n\
                bar.red.and.pred %p5, 1, %p2;\n\
                bar.red.and.pred %p6, 2, %p1;\n\
                bar.red.popc.u32 %r2, 3, %p3;\n\
                bar.red.popc.u32 %r3, 0, 128, !%p1;\n\
                barrier.red.or.pred %p7, 4, !%p2;\n\
                selp.u32 %r4, 1, 0, %p4;\nselp.u32 %r5, 1, 0, %p5;\n\
                selp.u32 %r6, 1, 0, %p6;\nselp.u32 %r7, 1, 0, %p7;\n"
        .to_string()
        + &stores(&[4, 5, 6, 2, 3, 7]);
    let out = run(&body, "", 128, 6 * 128);
    let thirds = (0..128).filter(|t| t % 3 == 0).count() as u32;
    for t in 0..128 {
        let o = &out[6 * t..6 * t + 6];
        assert_eq!(o, [1, 1, 0, thirds, 127, 0], "thread {t}");
    }
}

#[test]
fn labels_are_scoped_to_their_block() {
    // Inline asm (CUTLASS's mbarrier waits, CCCL helpers) declares the same labels in many
    // `{ }` blocks of one kernel; a branch goes to the label of its own (innermost enclosing)
    // block. Here each block counts a loop of its own length: 3, then 5, then 2 iterations; a
    // branch bound to another block's label would give other counts.
    let block = |n: u32, reg: u32| {
        format!(
            "mov.u32 %r{reg}, 0;\n\
             {{\n.reg .pred P1;\nLOOP:\nadd.u32 %r{reg}, %r{reg}, 1;\n\
             setp.lt.u32 P1, %r{reg}, {n};\n@P1 bra LOOP;\nbra DONE;\n\
             add.u32 %r{reg}, %r{reg}, 100;\nDONE:\n}}\n"
        )
    };
    let body = block(3, 2) + &block(5, 3) + &block(2, 4);
    let body = body
        + "LOOP:\nadd.u32 %r5, %r5, 1;\nsetp.lt.u32 %p1, %r5, 7;\n@%p1 bra LOOP;\n"
        + &stores(&[2, 3, 4, 5]);
    let out = run_one_cta(&module("", "", &body), 32, 4 * 32).unwrap();
    for t in 0..32 {
        assert_eq!(&out[4 * t..4 * t + 4], [3, 5, 2, 7], "thread {t}");
    }
}

#[test]
fn mapa_maps_rank_zero_and_faults_for_other_ranks() {
    // Every CTA runs as a cluster of one (%cluster_nctarank = 1): mapa to rank 0 is the
    // address itself, as CUTLASS's pipelines use it to arrive on their own mbarriers.
    let body = "{\n.shared .align 8 .b64 bar;\n.reg .b32 a, m;\n\
                mov.u32 a, bar;\nmapa.shared::cluster.u32 m, a, 0;\n\
                sub.u32 %r2, m, a;\n}\n"
        .to_string()
        + &stores(&[2]);
    let out = run_one_cta(&module("", "", &body), 32, 32).unwrap();
    assert!(out.iter().all(|&v| v == 0), "{out:?}");
    let body = "{\n.shared .align 8 .b64 bar;\n.reg .b32 a, m;\n\
                mov.u32 a, bar;\nmapa.shared::cluster.u32 m, a, 1;\n}\n";
    let err = run_one_cta(&module("", "", body), 32, 32).unwrap_err();
    assert!(err.contains("mapa to cluster CTA rank 1"), "{err}");
}

#[test]
fn brkpt_stops_the_kernel_with_a_fault() {
    // brkpt is reached only on CUTLASS's error paths; with no debugger attached the kernel
    // stops there. The fault names the instruction.
    let body = "setp.eq.u32 %p1, %r1, 5;\n@!%p1 bra SKIP;\nbrkpt;\nSKIP:\n";
    let err = run_one_cta(&module("", "", body), 32, 32).unwrap_err();
    assert!(err.contains("brkpt instruction executed"), "{err}");
    assert!(err.contains("thread (5,0,0)"), "{err}");
}

#[test]
fn createpolicy_range_literal_and_register_total_sizes() {
    // Total size 2^28 + 308, 4 KiB primary at address 0 (out's buffer is not used as the
    // range). A register total goes through the special-function unit's LG2, which rounds
    // toward zero: ceil(log2) = 28, 2 MiB blocks, code 9 (the H100 returned code 9 for
    // 2^28 + 308 in createpolicy_probe.npz). A literal total is folded by ptxas with a
    // round-to-nearest log2f: 28.0000019, ceil 29, code 10 (ptxas 13.5's SASS,
    // crates/memsys/tests/data/h100-policy/createpolicy_lowering.sm90.sass).
    let body = "mov.u64 %rd2, 0;\nmov.u32 %r2, 268435764;\n\
                createpolicy.range.global.L2::evict_last.b64 %rd3, [%rd2], 4096, %r2;\n\
                createpolicy.range.global.L2::evict_last.b64 %rd4, [%rd2], 4096, 268435764;\n\
                createpolicy.fractional.L2::evict_last.b64 %rd5, 0.12505;\n\
                mov.b64 {%r3, %r4}, %rd3;\nmov.b64 {%r5, %r6}, %rd4;\nmov.b64 {%r7, %r8}, %rd5;\n"
        .to_string()
        + &stores(&[4, 6, 8]);
    let out = run(&body, "", 1, 3);
    let code = |hi: u32| (hi >> 20) & 0xF;
    assert_eq!(code(out[0]), 9, "register total: {:#x}", out[0]);
    assert_eq!(code(out[1]), 10, "literal total: {:#x}", out[1]);
    // One 2 MiB (4 MiB) block holds the 4 KiB primary range from address 0.
    assert_eq!((out[0] >> 5) & 0x7F, 1);
    // 0.12505 * 15.99 = 1.9996: fraction code 1 (SASS: UMOV UR4, 0x10), evict_last, mode 2.
    assert_eq!(out[2], 0x1410_0000);
}
