//! `check_file_on` gives the same report for every thread count: the corpus, and large modules
//! with findings in many functions, a syntax error, names defined twice across functions and
//! text that fools the stretch cutter (`ptx_syntax::chunks`), in every output format.
//!
//! The mutated modules of `tests/parity/mutations.jsonl.gz` (every 8th, about 1,500: real
//! ptxas rejects most of them) add syntax errors, misplaced directives and fatal findings.
//!
//! The threaded runs use tiny stretches (every function its own) and no minimum file size,
//! so the hand-over between threads happens at every function end.

mod common;

use common::{edited_corpus_file, load_jsonl_gz, Edit};
use ptx_check::{check_file_on, render, CheckOptions, Threading};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The three renderings of a file's report, and whether it has errors.
fn outputs(name: &str, text: &str, threading: &Threading) -> (String, String, String, bool) {
    let report = check_file_on(
        name,
        text.as_bytes().to_vec(),
        &CheckOptions::default(),
        threading,
    );
    let ptxas = render::ptxas(&report.file, &report.diagnostics);
    let rich = render::rich(&report.file, &report.diagnostics, false);
    let errors = report.has_errors();
    let json = serde_json::to_string_pretty(&render::json(&[report])).unwrap();
    (ptxas, rich, json, errors)
}

fn threaded(threads: usize, stretch_bytes: usize) -> Threading {
    Threading {
        threads,
        stretch_bytes,
        min_bytes: 0,
    }
}

/// Asserts that 2 and 3 threads, at two stretch sizes, give the one-thread outputs; returns
/// the one-thread ptxas-format output.
fn same_for_every_thread_count(name: &str, text: &str) -> String {
    let one = outputs(name, text, &Threading::one());
    let one_streamed = streamed(text, &Threading::one());
    for (threads, stretch) in [(2, 1), (3, 1), (2, 4096)] {
        let many = outputs(name, text, &threaded(threads, stretch));
        assert!(
            many == one,
            "{name}: {threads} threads, {stretch}-byte stretches:\n{}\nagainst one thread:\n{}",
            many.0,
            one.0
        );
        let threading = threaded(threads, stretch);
        assert!(
            streamed(text, &threading) == one_streamed,
            "{name}: {threads} threads"
        );
    }
    one.0
}

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
fn corpus_reports_are_the_same_on_every_thread_count() {
    let mut with_findings = 0;
    let files = corpus_files();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("corpus file");
        // The large debug builds add time, not cases.
        if text.len() > 256 * 1024 {
            continue;
        }
        let out = same_for_every_thread_count(&f.display().to_string(), &text);
        with_findings += usize::from(!out.is_empty());
    }
    assert!(files.len() > 200, "{} corpus files", files.len());
    // The corpus is real compiler output: nearly all of it checks clean.
    assert!(
        with_findings >= 2,
        "only {with_findings} corpus files with findings"
    );
}

#[derive(serde::Deserialize)]
struct Mutation {
    base: Option<String>,
    edits: Option<Vec<Edit>>,
    ptx: Option<String>,
    exit: i64,
}

#[test]
fn mutated_modules_report_the_same_on_every_thread_count() {
    let cases: Vec<Mutation> = load_jsonl_gz("tests/parity/mutations.jsonl.gz");
    let mut cache = BTreeMap::new();
    let (mut checked, mut rejected) = (0, 0);
    for (i, case) in cases.iter().enumerate().step_by(8) {
        let text = match (&case.ptx, &case.base) {
            (Some(p), _) => p.clone(),
            (None, Some(base)) => {
                edited_corpus_file(base, case.edits.as_deref().unwrap_or_default(), &mut cache)
            }
            (None, None) => panic!("case {i} has no text"),
        };
        let one = outputs("case.ptx", &text, &Threading::one());
        for (threads, stretch) in [(2, 1), (3, 1)] {
            let many = outputs("case.ptx", &text, &threaded(threads, stretch));
            assert!(
                many == one,
                "case {i}, {threads} threads:\n{}\nagainst:\n{}",
                many.0,
                one.0
            );
        }
        checked += 1;
        rejected += usize::from(case.exit != 0 && one.3);
    }
    assert!(checked > 1000, "{checked} cases");
    assert!(rejected > 500, "only {rejected} rejected cases");
}

/// `copies` copies of the corpus's Triton sm_80 fp32 matmul kernel, renamed `k_1`, `k_2`, …,
/// after its header; `edit` changes copy `i`'s text.
fn module(copies: usize, edit: impl Fn(usize, String) -> String) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus/triton/matmul_fp32_tf32.sm80.ptx");
    let text = std::fs::read_to_string(path).unwrap();
    let entry = text.find(".visible .entry").unwrap();
    let end = text[entry..].find("\n}\n").unwrap() + entry + 3;
    let (header, kernel) = (&text[..entry], &text[entry..end]);
    assert!(kernel.starts_with(".visible .entry matmul_kernel("));
    let mut out = header.to_string();
    for i in 1..=copies {
        out.push_str(&edit(i, kernel.replace("matmul_kernel", &format!("k_{i}"))));
    }
    out
}

#[test]
fn clean_large_module() {
    let text = module(12, |_, k| k);
    let out = same_for_every_thread_count("clean.ptx", &text);
    assert!(out.is_empty(), "{out}");
}

#[test]
fn findings_in_many_functions() {
    // sm_75 has no cp.async: every copy of the kernel gets its gate errors, in order.
    let sm75 = |copies| module(copies, |_, k| k).replace(".target sm_80", ".target sm_75");
    let one = same_for_every_thread_count("gates.ptx", &sm75(1));
    let out = same_for_every_thread_count("gates.ptx", &sm75(8));
    assert!(one.lines().count() >= 10, "{one}");
    // Each copy's lines, then the one closing line (ptxas's `fatal` summary).
    assert_eq!(out.lines().last(), one.lines().last());
    assert_eq!(
        out.lines().count(),
        8 * (one.lines().count() - 1) + 1,
        "{one}"
    );
}

#[test]
fn a_syntax_error_in_one_function() {
    // Recovery across items: the whole-module path reports it, for every thread count.
    let text = module(8, |i, k| {
        if i == 5 {
            k.replacen("mov.u32", "mov.u32 @", 1)
        } else {
            k
        }
    });
    let out = same_for_every_thread_count("syntax.ptx", &text);
    assert!(out.contains("syntax error"), "{out}");
}

#[test]
fn names_defined_twice_across_functions() {
    // Copy 6 is named as copy 2: the module scope carries across the stretches.
    let text = module(8, |i, k| if i == 6 { k.replace("k_6", "k_2") } else { k });
    let out = same_for_every_thread_count("twice.ptx", &text);
    assert!(out.contains("k_2"), "{out}");
}

/// The streaming check's own result (`None`: left to the whole-module path, which would hide
/// a wrong read behind its own correct one).
fn streamed(text: &str, threading: &Threading) -> String {
    let found = ptx_check::rules::check_streaming_on(text, &CheckOptions::default(), threading);
    format!("{found:?}")
}

#[test]
fn text_that_fools_the_cutter() {
    // A nested block closed at a line start, a `}` at a line start inside a comment, and a
    // `};` initializer: cuts guessed there are wrong (the first two) or right, the wrong ones
    // found so, and the text read on from the last good cut. One trick per module: after a
    // wrong cut the rest is read on one thread.
    let tricks: [fn(String) -> String; 3] = [
        |k| k.replacen("\n\tret;", "\n{\n\tret;\n}\n\tret;", 1),
        |k| format!("/* a comment\n}}\n;\n*/\n{k}"),
        |k| format!(".global .b32 table[2] = {{1, 2\n}};\n{k}"),
    ];
    for trick in tricks {
        let text = module(8, |i, k| if i == 4 { trick(k) } else { k });
        let out = same_for_every_thread_count("cutter.ptx", &text);
        assert!(!out.contains("error"), "{out}");
        let one = streamed(&text, &Threading::one());
        assert!(one.starts_with("Some("), "{one}");
        for threads in 2..=3 {
            assert_eq!(streamed(&text, &threaded(threads, 1)), one);
        }
    }
}
