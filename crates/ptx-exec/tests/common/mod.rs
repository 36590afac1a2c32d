//! Helpers shared by ptx-exec's behaviour tests.

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
