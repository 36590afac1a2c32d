//! The check of `ptxsim check`: the module read and checked a few top-level items at a time
//! (`ptx_syntax::stream`), so memory holds one function's tree at a time, not the module's.

use super::symbols::ModuleScope;
use super::{misplaced_directive, Checker};
use crate::{CheckOptions, Diagnostic, Threading};
use ptx_syntax::ast::{Item, Module};
use ptx_syntax::chunks::Runs;
use ptx_syntax::Span;

/// Every finding of the rules for the module `text`, read and checked a few top-level items at
/// a time (`ptx_syntax::stream`), so that memory holds one function's tree, not the module's.
///
/// `None` when the file needs the whole-module walk to be reported as ptxas does: a syntax
/// error or a misplaced header directive (the walk stops there, and the whole-file parse
/// recovers across items), or a fatal finding (which a later syntax error would reorder).
/// Otherwise the result is [`check_module`](super::check_module)'s for the parsed module: the same walk, fed
/// item by item.
pub fn check_streaming(text: &str, options: &CheckOptions) -> Option<Vec<Diagnostic>> {
    check_streaming_on(text, options, &Threading::one())
}

/// [`check_streaming`] with the module read (lexed, cut and parsed) on `threading.threads`
/// threads while this one checks the runs in file order (`ptx_syntax::chunks::with_runs`).
/// The runs, and so the result, are the same for every thread count.
pub fn check_streaming_on(
    text: &str,
    options: &CheckOptions,
    threading: &Threading,
) -> Option<Vec<Diagnostic>> {
    let threads = if text.len() < threading.min_bytes {
        1
    } else {
        threading.threads
    };
    ptx_syntax::chunks::with_runs(text, threads, threading.stretch_bytes, |runs| {
        check_runs(text, options, runs)
    })
}

/// Checks the module whose runs of items (from `ptx_syntax::stream::ItemReader`) `runs` yields
/// in file order.
fn check_runs(text: &str, options: &CheckOptions, runs: &mut Runs) -> Option<Vec<Diagnostic>> {
    let mut c = Checker::new(text, options);
    // The header directives, and the first item after them (what `directives` looks at).
    let mut head = Vec::new();
    while !head.iter().any(|i| !is_header(i)) {
        match runs.next() {
            None => break,
            Some(Err(_)) => return None,
            Some(Ok(mut items)) => {
                items.iter_mut().for_each(ptx_syntax::scalarize_vector_item);
                head.append(&mut items)
            }
        }
    }
    let head = Module {
        items: head,
        span: Span::default(),
    };
    if misplaced_directive(&head).is_some() || !c.directives(&head.items) {
        return None;
    }
    let mut names = ModuleScope::new();
    let mut check = |c: &mut Checker, item: &Item| {
        c.note_debug_section(item);
        c.item(item, &mut names)
    };
    for item in &head.items {
        if !check(&mut c, item) {
            return None;
        }
    }
    while let Some(run) = runs.next() {
        let mut items = run.ok()?;
        items.iter_mut().for_each(ptx_syntax::scalarize_vector_item);
        for item in &items {
            if is_header(item) || !check(&mut c, item) {
                return None;
            }
        }
        runs.done_with(items);
    }
    Some(c.finish())
}

/// `.version`, `.target` and `.address_size`.
fn is_header(item: &Item) -> bool {
    matches!(
        item,
        Item::Version(_) | Item::Target(_) | Item::AddressSize(_)
    )
}
