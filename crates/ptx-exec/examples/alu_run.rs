//! Runs the benchmark's ALU-heavy kernel once (for profiling): `cargo run --release -p ptx-exec
//! --example alu_run -- [ITERS] [CTAS]`.
use ptx_exec::{KernelArg, LaunchConfig, Session};
use ptx_isa::ScalarType;

fn main() {
    let mut args = std::env::args().skip(1);
    let iters: u64 = args.next().map_or(64, |s| s.parse().expect("iterations"));
    let ctas: u32 = args.next().map_or(8, |s| s.parse().expect("CTA count"));
    let ptx = include_str!("../benches/kernels/bench_kernels.sm80.ptx");
    let module = ptx_syntax::parse(ptx).expect("parses");
    let mut s = Session::new(&module, ptx, memsys::GpuConfig::a100()).expect("lowers");
    let out = s.alloc_buffer(&vec![0u8; ctas as usize * 256 * 4]).unwrap();
    let args = [
        KernelArg::Pointer(out),
        KernelArg::Scalar {
            ty: ScalarType::S32,
            bits: iters,
        },
    ];
    let cfg = LaunchConfig {
        grid: [ctas, 1, 1],
        block: [256, 1, 1],
        cache_model: false,
        ..LaunchConfig::default()
    };
    let t = std::time::Instant::now();
    let r = s.launch("alu_heavy", &args, cfg).unwrap();
    let dt = t.elapsed().as_secs_f64();
    eprintln!(
        "{} thread-instructions in {dt:.3} s: {:.1} M/s",
        r.thread_instructions,
        r.thread_instructions as f64 / dt / 1e6
    );
}
