//! `ptx_exec::program::frame_save_words` against ptxas: the words each device function of the
//! corpus's `-G` modules saves in its prologue in ptxas 13.5's `-O0` sm_90 SASS
//! (tests/sass/call_frames.sm_90.tsv), and which instructions ptxas turns into calls of its
//! own subroutines (tests/sass/call_frame_probe.sm_90.tsv). Both tables come from
//! tests/sass/gen_call_frames.py.

use std::collections::HashMap;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Rows of a generated table: its tab-separated fields, comments left out.
fn rows(path: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(root().join(path)).expect("the table is committed");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// `frame_save_words` of every function of a PTX file, by name.
fn predicted(path: &str) -> HashMap<String, u32> {
    let src = std::fs::read_to_string(root().join(path)).expect("the module is committed");
    let module = ptx_syntax::parse(&src).expect("the module parses");
    module
        .functions()
        .map(|f| {
            (
                f.name.value.to_string(),
                ptx_exec::program::frame_save_words(f),
            )
        })
        .collect()
}

/// Functions where the rule and ptxas differ, with the reason: ptxas `-O0` gives a 64-bit
/// call result passed straight on as the next call's first argument its own callee-saved pair
/// here (`__longlong_as_double(__shfl_xor_sync(...))`) but not in `atomic_max_double`.
const KNOWN: &[(&str, u32)] = &[(
    "_ZN45_INTERNAL_0ab5f362_14_warp_reduce_cu_62dbea0d15__shfl_xor_syncEjdii",
    9,
)];

#[test]
fn corpus_debug_functions_save_what_ptxas_saves() {
    let table = rows("tests/sass/call_frames.sm_90.tsv");
    assert!(
        table.len() > 100,
        "the table lists the -G modules' functions"
    );
    let mut cache: HashMap<String, HashMap<String, u32>> = HashMap::new();
    let (mut exact, mut nonzero) = (0, 0);
    let mut wrong = Vec::new();
    for row in &table {
        let (module, function) = (&row[0], &row[1]);
        let words: u32 = row[2].parse().expect("a word count");
        let rule = cache
            .entry(module.clone())
            .or_insert_with(|| predicted(module));
        let Some(&got) = rule.get(function.as_str()) else {
            // ptxas's own subroutines (the slow paths of IEEE division and square root).
            assert!(function.starts_with("__cuda_"), "{function} is in {module}");
            continue;
        };
        nonzero += usize::from(words > 0);
        let expected = KNOWN
            .iter()
            .find(|(f, _)| f == function)
            .map_or(words, |&(_, w)| w);
        if got == expected {
            exact += 1;
        } else {
            wrong.push(format!("{module} {function}: ptxas {words}, rule {got}"));
        }
    }
    assert!(nonzero >= 30, "the table has the saving functions");
    assert!(
        wrong.is_empty(),
        "{exact} exact; differ:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn instructions_ptxas_calls_out_for_make_a_frame() {
    let rule = predicted("tests/sass/call_frame_probe.ptx");
    let table = rows("tests/sass/call_frame_probe.sm_90.tsv");
    assert!(table.len() >= 30);
    for row in &table {
        let (candidate, function) = (&row[0], &row[1]);
        let words: u32 = row[3].parse().expect("a word count");
        assert_eq!(rule[function.as_str()], words, "{candidate} ({function})");
    }
}
