//! Prints a parsed file back as PTX. `cargo run --example fmt -- FILE`
fn main() {
    let path = std::env::args().nth(1).expect("a file");
    let text = std::fs::read_to_string(&path).expect("readable UTF-8 file");
    let module = ptx_syntax::parse(&text).expect("parses");
    print!("{}", ptx_syntax::print(&module));
}
