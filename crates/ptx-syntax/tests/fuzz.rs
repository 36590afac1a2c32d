//! Property tests: random and mutated PTX never panics the parser, and whatever parses prints
//! back to text that parses to the same tree.

use proptest::prelude::*;
use std::path::PathBuf;

/// Seeds: every PTX file of the committed corpus (real nvcc and Triton output), plus inline
/// samples so the test has material on its own.
fn seeds() -> Vec<String> {
    let mut seeds = vec![
        include_str!("data/sample_nvcc.ptx").to_string(),
        include_str!("data/sample_triton.ptx").to_string(),
    ];
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut stack = vec![root];
    let mut files = Vec::new();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "ptx") {
                files.push(p);
            }
        }
    }
    files.sort();
    // Large debug builds make each case slow; a bounded sample of small files is enough
    // material for mutation.
    for f in files {
        if let Ok(text) = std::fs::read_to_string(&f) {
            if text.len() < 64 * 1024 {
                seeds.push(text);
            }
        }
    }
    seeds
}

fn check_no_panic_and_round_trip(text: &str) {
    let (module, errors) = ptx_syntax::parse_recovering(text);
    check_streamed_items_agree(text, &module, &errors);
    if errors.is_empty() {
        let printed = ptx_syntax::print(&module);
        let again = ptx_syntax::parse(&printed)
            .unwrap_or_else(|e| panic!("printed text does not parse: {:?}\n{printed}", e[0]));
        // A constant expression ptxas rejects (`1.0 - 1`: "Constant expression type mismatch")
        // is folded to a value and the error recorded on the instruction for ptx-check; the
        // printed value parses without it, so the trees compare equal only without issues.
        if !has_const_issues(&module) {
            assert_eq!(again, module, "round trip differs");
        }
    }
}

/// `stream::ItemReader` never reads a file the whole-file parse rejects as clean, and when every
/// run parses, its items are the whole-file parse's, spans included.
fn check_streamed_items_agree(
    text: &str,
    module: &ptx_syntax::Module,
    errors: &[ptx_syntax::ParseError],
) {
    check_threaded_runs_agree(text);
    let mut reader = ptx_syntax::stream::ItemReader::new(text);
    let mut items = Vec::new();
    while let Some(run) = reader.next_items() {
        match run {
            Ok(mut run) => items.append(&mut run),
            Err(_) => return,
        }
    }
    assert!(
        errors.is_empty(),
        "every run parsed but the whole file has errors: {errors:?}"
    );
    assert_eq!(format!("{items:?}"), format!("{:?}", module.items));
}

/// `chunks::with_runs` gives the one-thread reader's runs (errors included) on several threads,
/// with every function end a cut (1-byte stretches) and with a few.
fn check_threaded_runs_agree(text: &str) {
    let runs = |threads, size| {
        ptx_syntax::chunks::with_runs(text, threads, size, |runs| {
            runs.map(|r| format!("{r:?}")).collect::<Vec<_>>()
        })
    };
    let one = runs(1, 1);
    assert_eq!(runs(2, 1), one, "2 threads");
    assert_eq!(runs(3, 64), one, "3 threads");
}

fn has_const_issues(module: &ptx_syntax::ast::Module) -> bool {
    use ptx_syntax::ast::{Block, Item, Statement};
    fn block(b: &Block) -> bool {
        b.statements.iter().any(|s| match s {
            Statement::Instruction(i) => !i.const_issues.is_empty(),
            Statement::Block(b) => block(b),
            _ => false,
        })
    }
    module.items.iter().any(|item| match item {
        Item::Function(f) => f.body.as_ref().is_some_and(block),
        _ => false,
    })
}

#[derive(Debug, Clone)]
enum Mutation {
    Delete { at: usize, len: usize },
    Insert { at: usize, text: &'static str },
    Duplicate { at: usize, len: usize },
    Truncate { at: usize },
}

const FRAGMENTS: &[&str] = &[
    "{",
    "}",
    ";",
    ",",
    "[",
    "]",
    "(",
    ")",
    ".",
    "::",
    "@",
    "!",
    "_",
    "<",
    ">",
    "+",
    "-",
    "0x",
    "08",
    "0f3F80",
    "1.0",
    "\"",
    "/*",
    "//",
    "\n",
    " ",
    ".global",
    ".b32",
    ".v8",
    ".L2::cache_hint",
    "%r1",
    "ld",
    "st",
    "cp.async",
    ".entry",
    ".reg",
    "\u{00e9}",
    "\t",
];

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1usize..64).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (any::<usize>(), proptest::sample::select(FRAGMENTS))
            .prop_map(|(at, text)| Mutation::Insert { at, text }),
        (any::<usize>(), 1usize..64).prop_map(|(at, len)| Mutation::Duplicate { at, len }),
        any::<usize>().prop_map(|at| Mutation::Truncate { at }),
    ]
}

fn floor_char(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(mut text: String, m: &Mutation) -> String {
    if text.is_empty() {
        return text;
    }
    match *m {
        Mutation::Delete { at, len } => {
            let a = floor_char(&text, at % text.len());
            let b = floor_char(&text, a + len);
            text.replace_range(a..b, "");
        }
        Mutation::Insert { at, text: t } => {
            let a = floor_char(&text, at % text.len());
            text.insert_str(a, t);
        }
        Mutation::Duplicate { at, len } => {
            let a = floor_char(&text, at % text.len());
            let b = floor_char(&text, a + len);
            let piece = text[a..b].to_string();
            text.insert_str(b, &piece);
        }
        Mutation::Truncate { at } => {
            let a = floor_char(&text, at % text.len());
            text.truncate(a);
        }
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        if let Ok(text) = ptx_syntax::decode_source(&bytes) {
            check_no_panic_and_round_trip(text);
        }
    }

    #[test]
    fn random_token_soup_never_panics(parts in proptest::collection::vec(proptest::sample::select(FRAGMENTS), 0..200)) {
        check_no_panic_and_round_trip(&parts.join(""));
    }

    #[test]
    fn mutated_real_ptx_never_panics(seed in any::<proptest::sample::Index>(),
                                     muts in proptest::collection::vec(mutation(), 1..8)) {
        let seeds = seeds();
        let mut text = seeds[seed.index(seeds.len())].clone();
        for m in &muts {
            text = apply(text, m);
        }
        check_no_panic_and_round_trip(&text);
    }
}
