//! `stream::ItemReader` on every corpus file: the items it reads run by run are the items of
//! the whole-file parse, spans included (mutated inputs: `fuzz.rs`).

use std::path::PathBuf;

fn corpus_files() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut stack = vec![root];
    let mut files = Vec::new();
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("corpus dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "ptx") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn streamed_items_are_the_whole_file_items() {
    let mut checked = 0;
    for f in corpus_files() {
        let text = std::fs::read_to_string(&f).expect("corpus file");
        // The large debug builds add time, not cases.
        if text.len() > 256 * 1024 {
            continue;
        }
        let (module, errors) = ptx_syntax::parse_recovering(&text);
        let mut reader = ptx_syntax::stream::ItemReader::new(&text);
        let mut items = Vec::new();
        let mut runs = 0;
        while let Some(run) = reader.next_items() {
            match run {
                Ok(mut run) => items.append(&mut run),
                Err(e) => {
                    assert!(!errors.is_empty(), "{}: a run fails: {e:?}", f.display());
                    items.clear();
                    break;
                }
            }
            runs += 1;
        }
        if errors.is_empty() {
            assert_eq!(
                format!("{items:?}"),
                format!("{:?}", module.items),
                "{}",
                f.display()
            );
            assert!(runs > 1 || module.items.len() <= 4, "{}", f.display());
            checked += 1;
        }
    }
    assert!(checked > 150, "only {checked} corpus files checked");
}
