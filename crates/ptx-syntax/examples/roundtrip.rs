//! Parses each file given, prints it, re-parses the printout and reports whether the two
//! ASTs are equal. `cargo run --example roundtrip -- FILE...`
fn main() {
    let mut failed = false;
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path).expect("readable file");
        let text = match ptx_syntax::decode_source(&bytes) {
            Ok(t) => t,
            Err(e) => {
                println!("{path}: {}", e.message);
                failed = true;
                continue;
            }
        };
        let index = ptx_syntax::LineIndex::new(text);
        match ptx_syntax::parse(text) {
            Err(errors) => {
                failed = true;
                for e in errors.iter().take(5) {
                    let lc = index.line_col(e.span.start, text);
                    println!("{path}:{}:{}: {}", lc.line, lc.col, e.message);
                }
            }
            Ok(m) => {
                let printed = ptx_syntax::print(&m);
                match ptx_syntax::parse(&printed) {
                    Ok(m2) if m2 == m => println!("{path}: ok ({} items)", m.items.len()),
                    Ok(_) => {
                        failed = true;
                        println!("{path}: round trip differs");
                    }
                    Err(e) => {
                        failed = true;
                        let idx = ptx_syntax::LineIndex::new(&printed);
                        let lc = idx.line_col(e[0].span.start, &printed);
                        println!(
                            "{path}: printed text fails at {}:{}: {}",
                            lc.line, lc.col, e[0].message
                        );
                    }
                }
            }
        }
    }
    std::process::exit(failed as i32);
}
