//! Bad input gives a diagnostic at the right line and column, never a panic.

use ptx_syntax::{decode_source, parse, LineIndex};

/// Parses and returns (line, col, message) of every error.
fn errors(text: &str) -> Vec<(u32, u32, String)> {
    let idx = LineIndex::new(text);
    match parse(text) {
        Ok(_) => vec![],
        Err(errs) => errs
            .into_iter()
            .map(|e| {
                let lc = idx.line_col(e.span.start, text);
                let help = e.help.map(|h| format!(" (help: {h})")).unwrap_or_default();
                (lc.line, lc.col, format!("{}{help}", e.message))
            })
            .collect(),
    }
}

const HEAD: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

#[test]
fn truncated_file() {
    let text = format!(
        "{HEAD}.visible .entry k(\n.param .u64 p\n)\n{{\n.reg .b32 %r<2>;\nmov.u32 %r1, 1;\n"
    );
    let e = errors(&text);
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!((e[0].0, e[0].1), (10, 1));
    assert!(
        e[0].2.contains("end of file") && e[0].2.contains("not closed"),
        "{e:?}"
    );

    let text = format!("{HEAD}.visible .entry k(.param .u64 p");
    let e = errors(&text);
    assert_eq!(e.len(), 1);
    assert!(e[0].2.contains("expected `,` or `)`"), "{e:?}");

    let e = errors(&format!(
        "{HEAD}.visible .entry k() {{ ld.global.u32 %r1, [%rd1"
    ));
    assert!(e[0].2.contains("`]`"), "{e:?}");
}

#[test]
fn unknown_directives() {
    let e = errors(&format!("{HEAD}.frobnicate 3;\n"));
    assert_eq!((e[0].0, e[0].1), (4, 1));
    assert!(
        e[0].2.starts_with("unknown directive `.frobnicate`"),
        "{e:?}"
    );
    let e = errors(&format!("{HEAD}.entry k() {{\n  .regg .b32 %r;\n}}\n"));
    assert_eq!((e[0].0, e[0].1), (5, 3));
    assert!(e[0].2.starts_with("unknown directive `.regg`"), "{e:?}");
    let e = errors(&format!("{HEAD}.entry k() .maxthreads 4 {{ }}\n"));
    assert!(e[0]
        .2
        .contains("unknown directive `.maxthreads` in the function header"));
}

#[test]
fn unbalanced_braces() {
    let e = errors(&format!("{HEAD}.entry k() {{ ret; }}\n}}\n"));
    assert_eq!(e.len(), 1);
    assert_eq!((e[0].0, e[0].1), (5, 1));
    assert!(e[0].2.contains("expected a directive, found `}`"));
    let e = errors(&format!("{HEAD}.entry k() {{ {{ ret; }}\n"));
    assert_eq!(e.len(), 1, "one error per unclosed brace position: {e:?}");
}

#[test]
fn invalid_numbers() {
    for (lit, want) in [
        ("08", "octal"),
        ("0x", "invalid number `0x`"),
        ("0xG1", "invalid number"),
        ("0f3F80", "invalid single-precision literal"),
        ("0d3FF0", "invalid double-precision literal"),
        ("99999999999999999999", "does not fit in 64 bits"),
        ("12abc", "invalid number `12abc`"),
    ] {
        let text = format!("{HEAD}.entry k() {{\n\tmov.u32 %r1, {lit};\n}}\n");
        let e = errors(&text);
        assert_eq!(e.len(), 1, "{lit}: {e:?}");
        assert_eq!((e[0].0, e[0].1), (5, 15), "{lit}");
        assert!(e[0].2.contains(want), "{lit}: {e:?}");
    }
}

#[test]
fn every_error_is_reported_not_only_the_first() {
    let text = format!(
        "{HEAD}.entry k() {{\n\tmov.u32 %r1, 08;\n\tadd.s32 %r1 %r2;\n\tret;\n\tmov.u32 %r1, ];\n}}\n"
    );
    let e = errors(&text);
    let lines: Vec<u32> = e.iter().map(|x| x.0).collect();
    assert_eq!(lines, vec![5, 6, 8], "{e:?}");
}

#[test]
fn invalid_characters_and_unterminated_tokens() {
    let e = errors(&format!("{HEAD}.entry k() {{\n\tmov.u32 %r1, #;\n}}\n"));
    assert!(e[0].2.contains("character `#`"), "{e:?}");
    let e = errors(&format!("{HEAD}/* never closed\n.entry k() {{ }}\n"));
    assert_eq!((e[0].0, e[0].1), (4, 1));
    assert!(e[0].2.contains("unterminated comment"), "{e:?}");
    let e = errors(&format!("{HEAD}.file 1 \"no end\n"));
    assert!(e[0].2.contains("unterminated string"), "{e:?}");
}

#[test]
fn non_utf8_bytes() {
    let mut bytes = HEAD.as_bytes().to_vec();
    bytes.extend_from_slice(b".entry k() { \xff\xfe }");
    let e = decode_source(&bytes).unwrap_err();
    assert_eq!(e.span.start as usize, HEAD.len() + 13);
    assert!(e.message.contains("0xFF"));
}

#[test]
fn hundred_megabyte_line() {
    // One 100 MB line of data inside a debug section, then a broken instruction.
    let mut text = String::with_capacity(100 * 1024 * 1024 + 200);
    text.push_str(HEAD);
    text.push_str(".section .debug_str {\n.b8 1");
    while text.len() < 100 * 1024 * 1024 {
        text.push_str(",255");
    }
    text.push_str("\n}\n.entry k() {\n\tret\n}\n");
    let e = errors(&text);
    assert_eq!(
        e.len(),
        1,
        "{:?}",
        e.iter().map(|x| &x.2).collect::<Vec<_>>()
    );
    assert_eq!(e[0].0, 9);
    assert!(e[0].2.contains("expected `;`"));

    // A 100 MB token is described by its first characters, not echoed whole.
    let mut text = String::from(HEAD);
    text.push_str(&"x".repeat(100 * 1024 * 1024));
    let e = errors(&text);
    assert_eq!(e.len(), 1);
    assert!(e[0].2.len() < 200, "message length {}", e[0].2.len());
}
