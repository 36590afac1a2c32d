//! Writes a large benchmark module: one corpus file's kernels repeated under new names
//! (`synth::repeat_functions`) until the text is at least MIN_MB MiB.
//!
//! `cargo run --release -p ptx-syntax --example big_module -- OUT.ptx [MIN_MB] [SOURCE.ptx] [--no-loc]`
//!
//! SOURCE defaults to the largest corpus file (Triton's sm_90 fp32 matmul, the module of
//! `scripts/bench-parse.sh`); `--no-loc` drops every `.loc` line as well (the module of
//! `scripts/bench-check.sh`). MIN_MB may be fractional (`7.3`).
fn main() {
    let mut positional = Vec::new();
    let mut no_loc = false;
    for a in std::env::args().skip(1) {
        if a == "--no-loc" {
            no_loc = true;
        } else {
            positional.push(a);
        }
    }
    let mut positional = positional.into_iter();
    let out = positional.next().expect("an output path");
    let mb: f64 = positional
        .next()
        .map_or(10.0, |s| s.parse().expect("a number of MB"));
    let path = positional.next().unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/corpus/triton/matmul_fp32_ieee.sm90.ptx"
        )
        .to_string()
    });
    let text = std::fs::read_to_string(&path).expect("corpus file");
    let mut module = ptx_syntax::parse(&text).expect("corpus file parses");
    if no_loc {
        ptx_syntax::synth::drop_loc_lines(&mut module);
    }
    let min_bytes = (mb * (1u64 << 20) as f64) as usize;
    let big = ptx_syntax::print(&ptx_syntax::synth::repeat_functions(&module, min_bytes));
    std::fs::write(&out, &big).expect("writable output");
    eprintln!("wrote {} bytes to {out}", big.len());
}
