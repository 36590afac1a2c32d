//! Parses a file and reports the item count (for profiling the parser alone).
//! `cargo run --release -p ptx-syntax --example parse_file -- FILE`
fn main() {
    let path = std::env::args().nth(1).expect("a file");
    let text = std::fs::read_to_string(&path).expect("readable UTF-8 file");
    let t = std::time::Instant::now();
    let module = ptx_syntax::parse(&text).expect("parses");
    let dt = t.elapsed();
    eprintln!(
        "{} items, {} bytes in {:.3} s ({:.1} MB/s)",
        module.items.len(),
        text.len(),
        dt.as_secs_f64(),
        text.len() as f64 / dt.as_secs_f64() / 1e6
    );
}
