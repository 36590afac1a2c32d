//! A long `cp.async` pipeline: more copies per CTA than the copy list keeps before it drops
//! landed ones (`CopyList` in machine/async_copy.rs), with one group always in flight, so
//! copies are dropped while later ones are still referred to by their groups. The sums are
//! checked against the host's, with the hazard tracker on (its shared-word map refers to
//! copies too; a correct pipeline reports nothing) and off, and with a seed that permutes
//! the warps' turns.

use ptx_exec::{KernelArg, LaunchConfig, Session};
use ptx_isa::ScalarType;

/// Each of 64 threads sums its neighbour's (`tid ^ 1`) element of every 64-element row of
/// `src`, rows brought into a two-slot shared ring by `cp.async` one row ahead of use
/// (`wait_group 1`), with `bar.sync` before reading a slot and before refilling it.
const PTX: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry copy_ring(
    .param .u64 copy_ring_src,
    .param .u64 copy_ring_out,
    .param .u32 copy_ring_rows
)
{
    .reg .pred %p<3>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<8>;
    .shared .align 16 .b32 ring[128];

    ld.param.u64 %rd1, [copy_ring_src];
    ld.param.u64 %rd2, [copy_ring_out];
    ld.param.u32 %r1, [copy_ring_rows];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r2, %tid.x;
    mov.u32 %r10, ring;
    mov.u32 %r4, 0;
    // Row 0 into slot 0.
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd4, %rd1, %rd3;
    shl.b32 %r8, %r2, 2;
    add.u32 %r9, %r10, %r8;
    cp.async.ca.shared.global [%r9], [%rd4], 4;
    cp.async.commit_group;
    mov.u32 %r3, 0;
$LOOP:
    add.u32 %r5, %r3, 1;
    setp.lt.u32 %p1, %r5, %r1;
    @!%p1 bra $LAST;
    // Row r5 into slot r5 & 1.
    mad.lo.s32 %r6, %r5, 64, %r2;
    mul.wide.u32 %rd3, %r6, 4;
    add.s64 %rd4, %rd1, %rd3;
    and.b32 %r7, %r5, 1;
    mad.lo.s32 %r8, %r7, 64, %r2;
    shl.b32 %r8, %r8, 2;
    add.u32 %r9, %r10, %r8;
    cp.async.ca.shared.global [%r9], [%rd4], 4;
    cp.async.commit_group;
    cp.async.wait_group 1;
    bra.uni $SYNC;
$LAST:
    cp.async.wait_all;
$SYNC:
    bar.sync 0;
    and.b32 %r7, %r3, 1;
    xor.b32 %r11, %r2, 1;
    mad.lo.s32 %r8, %r7, 64, %r11;
    shl.b32 %r8, %r8, 2;
    add.u32 %r9, %r10, %r8;
    ld.shared.u32 %r12, [%r9];
    add.u32 %r4, %r4, %r12;
    bar.sync 0;
    add.u32 %r3, %r3, 1;
    setp.lt.u32 %p2, %r3, %r1;
    @%p2 bra $LOOP;
    mul.wide.u32 %rd5, %r2, 4;
    add.s64 %rd6, %rd2, %rd5;
    st.global.u32 [%rd6], %r4;
    ret;
}
"#;

const THREADS: usize = 64;

fn run(rows: usize, hazards: bool, seed: u64) -> (Vec<u32>, Vec<u32>, usize) {
    let module = ptx_syntax::parse(PTX).expect("the kernel parses");
    let mut s = Session::new(&module, PTX, memsys::GpuConfig::a100()).expect("it lowers");
    // Distinct values (a multiplicative hash of the index), so a wrong row or slot shows.
    let src: Vec<u32> = (0..rows * THREADS)
        .map(|i| (i as u32).wrapping_mul(0x9E37_79B9) >> 8)
        .collect();
    let bytes: Vec<u8> = src.iter().flat_map(|v| v.to_le_bytes()).collect();
    let src_buf = s.alloc_buffer(&bytes).unwrap();
    let out_buf = s.alloc_buffer(&[0u8; THREADS * 4]).unwrap();
    let args = [
        KernelArg::Pointer(src_buf),
        KernelArg::Pointer(out_buf),
        KernelArg::Scalar {
            ty: ScalarType::U32,
            bits: rows as u64,
        },
    ];
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [THREADS as u32, 1, 1],
        hazards,
        seed,
        ..LaunchConfig::default()
    };
    let summary = s.launch("copy_ring", &args, cfg).unwrap();
    let out: Vec<u32> = s
        .read_buffer(out_buf, THREADS * 4)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    (src, out, summary.hazards.len())
}

fn expected(src: &[u32], rows: usize) -> Vec<u32> {
    (0..THREADS)
        .map(|t| {
            (0..rows)
                .map(|r| src[r * THREADS + (t ^ 1)])
                .fold(0u32, u32::wrapping_add)
        })
        .collect()
}

#[test]
fn a_pipeline_of_thousands_of_copies_sums_every_row() {
    // 50 rows × 64 threads = 3,200 copies: the list is compacted more than once.
    let rows = 50;
    for (hazards, seed) in [(false, 0), (true, 0), (true, 7)] {
        let (src, out, reported) = run(rows, hazards, seed);
        assert_eq!(out, expected(&src, rows), "hazards {hazards}, seed {seed}");
        assert_eq!(reported, 0, "a correct pipeline reports no hazard");
    }
}
