//! Writes the ≥10 MB benchmark module (see benches/parse.rs) to the path given.
//! `cargo run --release -p ptx-syntax --example big_module -- OUT.ptx [MIN_MB]`
fn main() {
    let mut args = std::env::args().skip(1);
    let out = args.next().expect("an output path");
    let mb: usize = args
        .next()
        .map_or(10, |s| s.parse().expect("a number of MB"));
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/corpus/triton/matmul_fp32_ieee.sm90.ptx"
    );
    let text = std::fs::read_to_string(path).expect("corpus file");
    let module = ptx_syntax::parse(&text).expect("corpus file parses");
    let big = ptx_syntax::print(&ptx_syntax::synth::repeat_functions(&module, mb << 20));
    std::fs::write(&out, &big).expect("writable output");
    eprintln!("wrote {} bytes to {out}", big.len());
}
