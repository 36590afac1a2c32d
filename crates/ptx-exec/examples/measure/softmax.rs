//! The softmax workload the `alu_run` example (`-- softmax`) and the `interp` bench's
//! `softmax` group run: Triton's fused row softmax (tests/corpus/triton/softmax.sm80.ptx), 100
//! floats per row, one 128-thread CTA per row, inputs from a fixed sequence. (Both include
//! this file by path.)

use ptx_exec::{KernelArg, LaunchConfig, Session};
use ptx_isa::ScalarType;

pub const PTX: &str = include_str!("../../../../tests/corpus/triton/softmax.sm80.ptx");
pub const KERNEL: &str = "softmax_kernel";
const COLS: u64 = 100;

/// The arguments of a launch over `rows` rows, with the input and output buffers allocated in
/// `s` (a session of [`PTX`]), and its configuration.
pub fn launch(s: &mut Session, rows: u64) -> (Vec<KernelArg>, LaunchConfig) {
    let input: Vec<u8> = (0..rows * COLS)
        .flat_map(|i| (((i * 37) % 101) as f32 / 16.0 - 3.0).to_le_bytes())
        .collect();
    let out = s.alloc_buffer(&vec![0u8; input.len()]).unwrap();
    let inp = s.alloc_buffer(&input).unwrap();
    let n = KernelArg::Scalar {
        ty: ScalarType::S32,
        bits: COLS,
    };
    let args = vec![
        KernelArg::Pointer(out),
        KernelArg::Pointer(inp),
        n.clone(),
        n.clone(),
        n,
        KernelArg::Pointer(0),
        KernelArg::Pointer(0),
    ];
    let cfg = LaunchConfig {
        grid: [rows as u32, 1, 1],
        block: [128, 1, 1],
        // Triton's metadata: 16 bytes of dynamic shared memory for the cross-warp reductions.
        dynamic_shared: 16,
        ..LaunchConfig::default()
    };
    (args, cfg)
}
