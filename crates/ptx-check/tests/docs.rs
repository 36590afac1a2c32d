//! The committed reference pages are what the code generates: docs/features.md from the
//! feature table, docs/diagnostics.md from the code table. `UPDATE_DOCS=1` rewrites them.

use std::path::PathBuf;

fn check(name: &str, generated: String) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs")
        .join(name);
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/{name} is out of date: run `UPDATE_DOCS=1 cargo test -p ptx-check --test docs`"
    );
}

#[test]
fn features_page_is_up_to_date() {
    check("features.md", ptx_check::docs::features_markdown());
}

#[test]
fn diagnostics_page_is_up_to_date() {
    check("diagnostics.md", ptx_check::docs::diagnostics_markdown());
}
