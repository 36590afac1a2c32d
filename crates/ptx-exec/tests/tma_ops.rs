//! Bulk asynchronous copies and the Tensor Memory Accelerator on small hand-written sm_90a
//! kernels: swizzle placement, out-of-bounds fill, transaction-count completion of mbarriers,
//! bulk async-group waits, bulk reductions, and the faults of bad tensor maps. Expected values
//! follow the PTX ISA text quoted at each test and are computed here in plain Rust.

use ptx_exec::{ExecError, HazardClass, KernelArg, LaunchConfig, Session};

/// A `.version 8.3` / `sm_90a` kernel `k(.param .u64 out, .param .u64 in)`: `%rd1` = out, `%rd2`
/// = in (global addresses), `%r1` = `%tid.x`; `shared` declares the shared variables.
fn module(shared: &str, body: &str) -> String {
    format!(
        ".version 8.3\n.target sm_90a\n.address_size 64\n\n\
         .visible .entry k(.param .u64 out, .param .u64 in)\n{{\n\
         .reg .pred %p<16>;\n.reg .b32 %r<64>;\n.reg .b64 %rd<32>;\n{shared}\n\
         ld.param.u64 %rd1, [out];\n\
         ld.param.u64 %rd2, [in];\n\
         mov.u32 %r1, %tid.x;\n\
         {body}\n\
         ret;\n}}\n"
    )
}

struct Run {
    session: Session,
    out: u64,
    words: usize,
    result: Result<(), ExecError>,
}

/// Runs `k` with `threads` threads over an input of `input` words and an output of `words`
/// words (both global buffers; a scratch buffer of 256 bytes follows the output for tensor maps).
fn launch(ptx: &str, threads: u32, input: &[u32], words: usize, hazards: bool) -> Run {
    let module = ptx_syntax::parse(ptx).expect("test kernel parses");
    let mut session =
        Session::new(&module, ptx, memsys::GpuConfig::h100()).expect("test kernel lowers");
    let out = session.alloc_buffer(&vec![0u8; 4 * words + 256]).unwrap();
    let bytes: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
    let inp = session.alloc_buffer(&bytes).unwrap();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [threads, 1, 1],
        hazards,
        ..LaunchConfig::default()
    };
    let result = session
        .launch(
            "k",
            &[KernelArg::Pointer(out), KernelArg::Pointer(inp)],
            cfg,
        )
        .map(|_| ());
    Run {
        session,
        out,
        words,
        result,
    }
}

impl Run {
    fn words(&self) -> Vec<u32> {
        self.result.clone().expect("kernel runs");
        self.session
            .read_buffer(self.out, 4 * self.words)
            .unwrap()
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }
}

/// PTX that builds a 2-D tensor map in the global scratch after the output (`%rd3`) with
/// `tensormap.replace.tile.*.global`: u32 elements, `cols` x `rows` (dimension 0 first), row
/// stride `cols * 4`, a `box0` x `box1` box, and the given swizzle and fill modes.
fn build_map(
    cols: u32,
    rows: u32,
    box0: u32,
    box1: u32,
    swizzle: u32,
    fill: u32,
    words: usize,
) -> String {
    let stride = cols * 4;
    format!(
        "add.s64 %rd3, %rd1, {off};\n\
         tensormap.replace.tile.global_address.global.b1024.b64 [%rd3], %rd2;\n\
         tensormap.replace.tile.rank.global.b1024.b32 [%rd3], 1;\n\
         tensormap.replace.tile.box_dim.global.b1024.b32 [%rd3], 0, {box0};\n\
         tensormap.replace.tile.box_dim.global.b1024.b32 [%rd3], 1, {box1};\n\
         tensormap.replace.tile.global_dim.global.b1024.b32 [%rd3], 0, {cols};\n\
         tensormap.replace.tile.global_dim.global.b1024.b32 [%rd3], 1, {rows};\n\
         mov.b64 %rd4, {stride};\n\
         tensormap.replace.tile.global_stride.global.b1024.b64 [%rd3], 0, %rd4;\n\
         tensormap.replace.tile.element_stride.global.b1024.b32 [%rd3], 0, 1;\n\
         tensormap.replace.tile.element_stride.global.b1024.b32 [%rd3], 1, 1;\n\
         tensormap.replace.tile.elemtype.global.b1024.b32 [%rd3], 2;\n\
         tensormap.replace.tile.swizzle_mode.global.b1024.b32 [%rd3], {swizzle};\n\
         tensormap.replace.tile.fill_mode.global.b1024.b32 [%rd3], {fill};\n\
         fence.proxy.tensormap::generic.release.gpu;\n\
         fence.proxy.tensormap::generic.acquire.gpu [%rd3], 128;\n",
        off = 4 * words
    )
}

/// Thread 0 loads a box at (`x`, `y`) through the map at `%rd3` into `box` (completing on `bar`
/// with `bytes`), every thread waits, and `n` words of the box are copied to `out`.
fn load_and_dump(x: i32, y: i32, bytes: u32, n: u32) -> String {
    format!(
        "mov.u32 %r2, box;\nmov.u32 %r3, bar;\n\
         setp.eq.u32 %p1, %r1, 0;\n\
         @%p1 mbarrier.init.shared::cta.b64 [%r3], 1;\n\
         bar.sync 0;\n\
         @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], {bytes};\n\
         mov.u32 %r4, {x};\nmov.u32 %r5, {y};\n\
         @%p1 cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [%r2], [%rd3, {{%r4, %r5}}], [%r3];\n\
         WAIT:\n\
         mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r3], 0;\n\
         @!%p2 bra WAIT;\n\
         mov.u32 %r6, %r1;\n\
         COPY:\n\
         setp.ge.u32 %p3, %r6, {n};\n\
         @%p3 bra DONE;\n\
         shl.b32 %r7, %r6, 2;\nadd.u32 %r8, %r2, %r7;\nld.shared.u32 %r9, [%r8];\n\
         mul.wide.u32 %rd5, %r6, 4;\nadd.s64 %rd6, %rd1, %rd5;\nst.global.u32 [%rd6], %r9;\n\
         add.u32 %r6, %r6, 32;\nbra COPY;\n\
         DONE:\n"
    )
}

const SHARED: &str = ".shared .align 1024 .b8 box[4096];\n.shared .align 8 .b64 bar;";

/// The ISA's swizzle of a byte offset from a 1024-byte aligned base: "Swizzle 16B chunks within
/// 128B span" (128-byte mode): bits [4, 7) XOR bits [7, 10).
fn swizzle128(off: u32) -> u32 {
    off ^ (((off >> 7) & 7) << 4)
}

#[test]
fn tensor_load_places_16_byte_chunks_with_the_128_byte_swizzle() {
    // A 32x8 box of u32 (128-byte rows) of a 40x12 tensor at (4, 2), 128-byte swizzle: element
    // (i, j) of the box is at byte i*128 + j*4 before swizzling.
    let (cols, rows) = (40u32, 12u32);
    let input: Vec<u32> = (0..cols * rows).map(|v| v * 3 + 1).collect();
    let body = build_map(cols, rows, 32, 8, 3, 0, 256) + &load_and_dump(4, 2, 1024, 256);
    let out = launch(&module(SHARED, &body), 32, &input, 256, false).words();
    for i in 0..8u32 {
        for j in 0..32u32 {
            let at = swizzle128(i * 128 + j * 4) / 4;
            assert_eq!(
                out[at as usize],
                input[((2 + i) * cols + 4 + j) as usize],
                "box element ({i}, {j})"
            );
        }
    }
}

#[test]
fn out_of_bounds_elements_fill_with_zeros_or_the_h100_nan_pattern() {
    // "OOB-NaN fill" (Table 33, .fill_mode 1): box elements outside [0, dim) read nothing and are
    // filled; zero fill otherwise. An 8x4 box of f32 (elemtype 7) at (-2, 3) of an 8x5 tensor.
    let (cols, rows) = (8u32, 5u32);
    let input: Vec<u32> = (0..cols * rows).map(|v| v + 100).collect();
    for fill in [0u32, 1] {
        let body = build_map(cols, rows, 8, 4, 0, fill, 32).replace(
            "elemtype.global.b1024.b32 [%rd3], 2;",
            "elemtype.global.b1024.b32 [%rd3], 7;",
        ) + &load_and_dump(-2, 3, 128, 32);
        let out = launch(&module(SHARED, &body), 32, &input, 32, false).words();
        for i in 0..4i32 {
            for j in 0..8i32 {
                let (gy, gx) = (3 + i, -2 + j);
                let inside = (0..rows as i32).contains(&gy) && (0..cols as i32).contains(&gx);
                let want = if inside {
                    input[(gy as u32 * cols + gx as u32) as usize]
                } else if fill == 1 {
                    // What an H100 writes for an f32 map (../shared/hw/h100/README.md §1).
                    0x7FF7_7FF7
                } else {
                    0
                };
                assert_eq!(out[(i * 8 + j) as usize], want, "fill {fill}, ({i}, {j})");
            }
        }
    }
}

#[test]
fn mbarrier_phase_completes_when_arrivals_and_transactions_are_both_done() {
    // "The phase completes when the pending arrival count reaches zero and the tx-count reaches
    // zero." Init 1; expect_tx 48; arrive (pending 0, tx 48): not complete; complete_tx 16
    // (tx 32): not complete; a 32-byte bulk copy (its complete-tx of 32 bytes) completes phase 0,
    // observed by a test_wait loop.
    let body = "mov.u32 %r3, bar;\nmov.u32 %r2, box;\n\
         mbarrier.init.shared::cta.b64 [%r3], 1;\n\
         mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r3], 48;\n\
         mbarrier.arrive.shared::cta.b64 _, [%r3];\n\
         mbarrier.test_wait.parity.shared::cta.b64 %p1, [%r3], 0;\n\
         mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r3], 16;\n\
         mbarrier.test_wait.parity.shared::cta.b64 %p2, [%r3], 0;\n\
         cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%r2], [%rd2], 32, [%r3];\n\
         W:\n\
         mbarrier.test_wait.parity.shared::cta.b64 %p3, [%r3], 0;\n\
         @!%p3 bra W;\n\
         mbarrier.test_wait.parity.shared::cta.b64 %p4, [%r3], 1;\n\
         ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r2+16];\n\
         selp.u32 %r20, 1, 0, %p1;\nselp.u32 %r21, 1, 0, %p2;\n\
         selp.u32 %r22, 1, 0, %p3;\nselp.u32 %r23, 1, 0, %p4;\n\
         st.global.v4.u32 [%rd1], {%r20, %r21, %r22, %r23};\n\
         st.global.v4.u32 [%rd1+16], {%r10, %r11, %r12, %r13};\n";
    let input: Vec<u32> = (0..8).map(|v| 0xA0 + v).collect();
    let out = launch(&module(SHARED, body), 1, &input, 8, false).words();
    // Phase 0 incomplete twice, then complete; phase 1 (parity 1) not complete.
    assert_eq!(&out[..4], &[0, 0, 1, 0]);
    assert_eq!(&out[4..8], &input[4..8]);
}

#[test]
fn bulk_store_reads_its_source_by_wait_group_read() {
    // cp.async.bulk.wait_group.read: "waiting has to be done until all the bulk async operations
    // in the specified bulk async-group have completed reading from their source locations", so
    // overwriting the shared source afterwards cannot change what the store writes; wait_group 0
    // makes the writes visible to the executing thread.
    let body = "mov.u32 %r2, box;\n\
         mov.u32 %r3, 11;\nmov.u32 %r4, 22;\nmov.u32 %r5, 33;\nmov.u32 %r6, 44;\n\
         st.shared.v4.u32 [%r2], {%r3, %r4, %r5, %r6};\n\
         st.shared.v4.u32 [%r2+16], {%r6, %r5, %r4, %r3};\n\
         fence.proxy.async.shared::cta;\n\
         cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r2], 32;\n\
         cp.async.bulk.commit_group;\n\
         cp.async.bulk.wait_group.read 0;\n\
         mov.u32 %r7, 99;\n\
         st.shared.v4.u32 [%r2], {%r7, %r7, %r7, %r7};\n\
         cp.async.bulk.wait_group 0;\n\
         ld.global.v4.u32 {%r10, %r11, %r12, %r13}, [%rd1];\n\
         st.global.v4.u32 [%rd1+32], {%r10, %r11, %r12, %r13};\n";
    let out = launch(&module(SHARED, body), 1, &[0; 4], 12, false).words();
    assert_eq!(&out[..8], &[11, 22, 33, 44, 44, 33, 22, 11]);
    assert_eq!(
        &out[8..12],
        &[11, 22, 33, 44],
        "the thread sees its completed store"
    );
}

#[test]
fn bulk_reductions_follow_the_isa_operations() {
    // cp.reduce.async.bulk: ".inc and .dec return a result in the range [0..x] where x is the
    // value at the source"; "cp.reduce.async.bulk.add.f32 flushes subnormal inputs and results to
    // sign-preserving zero"; min.s32 is signed. Global starts as `input`, shared as `src`.
    let old: [u32; 16] = [
        0,
        3,
        7,
        9, // inc with sources 5, 5, 5, 9
        0,
        3,
        7,
        2, // dec with sources 5, 5, 5, 1
        0x0000_0001,
        0x8000_0005,
        0x0100_0000,
        0x0080_0000, // add.f32
        (-5i32) as u32,
        7,
        (-1i32) as u32,
        0, // min.s32
    ];
    let src: [u32; 16] = [
        5,
        5,
        5,
        9,
        5,
        5,
        5,
        1,
        0x3F80_0000,
        0x0000_0003,
        0x80C0_0000,
        0x8000_0001,
        3,
        (-8i32) as u32,
        0,
        0x8000_0000,
    ];
    let mut body = String::from("mov.u32 %r2, box;\n");
    for (k, v) in src.iter().enumerate() {
        body += &format!("mov.u32 %r3, {v};\nst.shared.u32 [%r2+{}], %r3;\n", 4 * k);
    }
    body += "fence.proxy.async.shared::cta;\n\
         cp.reduce.async.bulk.global.shared::cta.bulk_group.inc.u32 [%rd2], [%r2], 16;\n\
         add.s64 %rd4, %rd2, 16;\nadd.u32 %r4, %r2, 16;\n\
         cp.reduce.async.bulk.global.shared::cta.bulk_group.dec.u32 [%rd4], [%r4], 16;\n\
         add.s64 %rd4, %rd2, 32;\nadd.u32 %r4, %r2, 32;\n\
         cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd4], [%r4], 16;\n\
         add.s64 %rd4, %rd2, 48;\nadd.u32 %r4, %r2, 48;\n\
         cp.reduce.async.bulk.global.shared::cta.bulk_group.min.s32 [%rd4], [%r4], 16;\n\
         cp.async.bulk.commit_group;\n\
         cp.async.bulk.wait_group 0;\n";
    for k in 0..16 {
        body += &format!(
            "ld.global.u32 %r5, [%rd2+{o}];\nst.global.u32 [%rd1+{o}], %r5;\n",
            o = 4 * k
        );
    }
    let out = launch(&module(SHARED, &body), 1, &old, 16, false).words();
    let inc = |o: u32, s: u32| if o >= s { 0 } else { o + 1 };
    let dec = |o: u32, s: u32| if o == 0 || o > s { s } else { o - 1 };
    for k in 0..4 {
        assert_eq!(out[k], inc(old[k], src[k]), "inc {k}");
        assert_eq!(out[4 + k], dec(old[4 + k], src[4 + k]), "dec {k}");
    }
    // f32: 2^-149 + 1.0 = 1.0; -5*2^-149 + 3*2^-149: both inputs flushed, -0 + +0 = +0;
    // 2^-125 - 1.5*2^-126 = 2^-127 is subnormal: flushed to +0; 2^-126 + (-2^-149): the subnormal
    // input is flushed, so the normal 2^-126 stays (unflushed, 2^-126 - 2^-149 would be subnormal).
    assert_eq!(out[8], 0x3F80_0000);
    assert_eq!(out[9], 0x0000_0000, "subnormal inputs flushed");
    assert_eq!(out[10], 0x0000_0000, "subnormal result flushed");
    assert_eq!(out[11], 0x0080_0000, "subnormal input flushed");
    for k in 0..4 {
        let want = (old[12 + k] as i32).min(src[12 + k] as i32) as u32;
        assert_eq!(out[12 + k], want, "min.s32 {k}");
    }
}

#[test]
fn a_map_not_built_by_tensormap_replace_is_a_fault() {
    // A zeroed 128-byte object: no field was ever set, so the copy faults naming the instruction.
    let body = "add.s64 %rd3, %rd1, 1024;\n".to_string() + &load_and_dump(0, 0, 128, 32);
    let run = launch(&module(SHARED, &body), 32, &[0; 64], 256, false);
    let err = run.result.unwrap_err().to_string();
    assert!(
        err.contains("not a tensor map built by tensormap.replace"),
        "{err}"
    );
    assert!(err.contains("cp.async.bulk.tensor.2d"), "{err}");
}

#[test]
fn a_box_wider_than_its_swizzle_span_is_a_fault() {
    // 16 u32 (64 bytes) per row with the 32-byte swizzle: the inner box dimension must not
    // exceed the swizzle span.
    let body = build_map(40, 12, 16, 4, 1, 0, 256) + &load_and_dump(0, 0, 256, 64);
    let run = launch(&module(SHARED, &body), 32, &vec![0; 480], 256, false);
    let err = run.result.unwrap_err().to_string();
    assert!(err.contains("wider than the 32-byte swizzle span"), "{err}");
}

#[test]
fn reading_a_tensor_load_destination_before_the_wait_is_a_hazard() {
    // The copy's bytes are only visible once the mbarrier phase that tracks it completes for the
    // reading thread ("A thread must explicitly wait for the completion of an asynchronous copy
    // operation in order to access the result").
    let body = build_map(40, 12, 32, 8, 3, 0, 256)
        + "mov.u32 %r2, box;\nmov.u32 %r3, bar;\n\
           setp.eq.u32 %p1, %r1, 0;\n\
           @%p1 mbarrier.init.shared::cta.b64 [%r3], 1;\n\
           bar.sync 0;\n\
           @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 1024;\n\
           mov.u32 %r4, 0;\n\
           @%p1 cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [%r2], [%rd3, {%r4, %r4}], [%r3];\n\
           ld.shared.u32 %r9, [%r2];\n\
           st.global.u32 [%rd1], %r9;\n";
    let run = launch(&module(SHARED, &body), 32, &vec![5; 480], 256, true);
    run.result.clone().expect("kernel runs");
    let h = &run.session.last_hazards;
    assert!(
        h.iter()
            .any(|h| h.class == HazardClass::CpAsyncIncomplete && h.space == "shared"),
        "{h:?}"
    );
    // The kernel read the old (zero) shared contents: the copy had not landed.
    assert_eq!(run.words()[0], 0);
}

#[test]
fn wgmma_reading_a_tma_tile_that_was_not_waited_for_is_a_hazard() {
    // Triton's descriptor matmul for sm_90 with its mbarrier waits replaced by `complete = true`:
    // wgmma reads the shared tiles before the TMA loads that fill them have completed.
    const PTX: &str = include_str!("../../../tests/corpus/triton/tma_matmul.sm90.ptx");
    let broken: String = PTX
        .lines()
        .map(|l| {
            if l.contains("mbarrier.try_wait.parity") {
                "\tsetp.eq.u32 complete, 0, 0;".to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(broken, PTX);
    let module = ptx_syntax::parse(&broken).expect("parses");
    let mut s = Session::new(&module, &broken, memsys::GpuConfig::h100()).expect("lowers");
    let (m, n, k) = (96u32, 80u32, 72u32);
    let a = s.alloc_buffer(&vec![0x3cu8; (m * k * 2) as usize]).unwrap();
    let b = s.alloc_buffer(&vec![0x3cu8; (k * n * 2) as usize]).unwrap();
    let c = s.alloc_buffer(&vec![0u8; (m * n * 2) as usize]).unwrap();
    let scratch = s.alloc_buffer(&[0u8; 4 * 384]).unwrap();
    let int = |v: u32| KernelArg::Scalar {
        ty: ptx_isa::ScalarType::S32,
        bits: v as u64,
    };
    let args = [
        KernelArg::Pointer(a),
        KernelArg::Pointer(b),
        KernelArg::Pointer(c),
        int(m),
        int(n),
        int(k),
        KernelArg::Pointer(scratch),
        KernelArg::Pointer(0),
    ];
    let cfg = LaunchConfig {
        grid: [2, 2, 1],
        block: [128, 1, 1],
        dynamic_shared: 24600,
        hazards: true,
        ..LaunchConfig::default()
    };
    s.launch("tma_matmul", &args, cfg).expect("runs");
    let h = s
        .last_hazards
        .iter()
        .find(|h| h.class == HazardClass::CpAsyncIncomplete)
        .expect("a cp-async-incomplete hazard");
    let instr = |id: u32| s.program.instrs[id as usize].text.clone();
    assert!(
        instr(h.access.instr).starts_with("wgmma.mma_async"),
        "{}",
        instr(h.access.instr)
    );
    let copy = h.conflict.expect("the copy");
    assert!(instr(copy.instr).contains("cp.async.bulk.tensor.2d.shared::cta.global"));
}
