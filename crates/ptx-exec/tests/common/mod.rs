//! Helpers shared by ptx-exec's behaviour tests (each test file uses some of them).
#![allow(dead_code)]

/// Runs kernel `k` of a complete module (one `.u64 out` parameter) with `threads` threads in one
/// CTA on the A100 preset; the first `words` 32-bit words of `out`, or the error's text (a
/// parse, lowering or launch error, the fault included).
pub fn run_one_cta(ptx: &str, threads: u32, words: usize) -> Result<Vec<u32>, String> {
    use ptx_exec::{KernelArg, LaunchConfig, Session};
    let module = ptx_syntax::parse(ptx).map_err(|e| format!("{e:?}"))?;
    let mut s = Session::new(&module, ptx, memsys::GpuConfig::a100()).map_err(|e| e.to_string())?;
    let out = s.alloc_buffer(&vec![0u8; 4 * words]).unwrap();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [threads, 1, 1],
        ..LaunchConfig::default()
    };
    s.launch("k", &[KernelArg::Pointer(out)], cfg)
        .map_err(|e| e.to_string())?;
    Ok(s.read_buffer(out, 4 * words)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect())
}

/// Every counter of a launch of `kernel` (parameters: a `.u64` buffer holding `buffer`, then
/// a `.u32` of `n`) over `grid` CTAs of 64 threads on the A100 preset, in full or counters-only
/// mode on `threads` host threads: thread-instructions, per-instruction executions and
/// sectors, stale reads and the memory system's statistics, as one string to compare. A
/// counters-only launch must have run the slice to the end (no restart in full mode).
pub fn launch_counters(
    ptx: &str,
    kernel: &str,
    buffer: &[u8],
    n: u32,
    grid: u32,
    counters_only: bool,
    threads: u32,
) -> String {
    use ptx_exec::{KernelArg, LaunchConfig, Session};
    let module = ptx_syntax::parse(ptx).expect("it parses");
    let mut s = Session::new(&module, ptx, memsys::GpuConfig::a100()).expect("it lowers");
    let buf = s.alloc_buffer(buffer).unwrap();
    let cfg = LaunchConfig {
        grid: [grid, 1, 1],
        block: [64, 1, 1],
        counters_only,
        threads,
        ..LaunchConfig::default()
    };
    let args = [
        KernelArg::Pointer(buf),
        KernelArg::Scalar {
            ty: ptx_isa::ScalarType::U32,
            bits: u64::from(n),
        },
    ];
    let summary = s.launch(kernel, &args, cfg).unwrap();
    if counters_only {
        let co = summary.counters_only.as_ref().expect("counters-only ran");
        assert!(co.sliced && co.restarted.is_none(), "{co:?}");
    }
    format!(
        "{} {:?} {:?} {:?}\n{:?}",
        summary.thread_instructions,
        summary.per_instruction,
        summary.per_instruction_sectors,
        summary.stale_reads,
        s.mem.stats()
    )
}
