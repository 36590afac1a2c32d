//! `ptx-check`: validates a PTX module the way ptxas 13.5 does and explains what it finds.
//!
//! [`check_source`] decodes and parses a file and runs the validation rules of [`rules`] over
//! the cache-control instructions (`ld`, `ld.global.nc`, `st`, `cp.async` and its group, wait
//! and mbarrier forms, `createpolicy`, `prefetch`/`prefetchu`) for the module's `.target` and
//! `.version` (or the overrides in [`CheckOptions`]); every other instruction is checked against
//! its measured target and version gates (`ptx_isa::insn_gates`). The rules are a port of the measured rule
//! catalog (`docs/ptxas-rules.md`, executable as `tests/parity/rules_model.py`): the feature
//! gates come from `ptx_isa::features`, the check order of each instruction family is a table
//! of ordering keys, and every finding of the file is reported, in ptxas's order.
//! `rules/mod.rs` lists where each concern lives: the module walk (`rules/checker.rs`,
//! `directives.rs`, `dispatch.rs`), one folder or file per instruction family (`rules/ldst/`,
//! `cpasync.rs`, …) and the helpers they share.
//!
//! [`check_file`] finds the same diagnostics while reading the module a few top-level items at
//! a time (`rules::check_streaming`), so a large module is checked in memory about twice its
//! size; `BENCHMARKS.md` has its speed and memory against ptxas.
//!
//! [`check_file_on`] (what `ptxsim check` runs, `--threads N`) spreads the reading over
//! threads. Threading design: lexing, cutting and parsing are about two thirds of the work and
//! the rules are sequential (module scope, duplicate names, ptxas's order), so the rules stay
//! on the calling thread and only the reading is parallel. `ptx_syntax::chunks` cuts the text
//! into stretches of ~16 KiB at function ends (a guess that each stretch's reader verifies
//! against the lexer; a wrong guess makes the rest of the file be read on one thread), worker
//! threads parse the stretches at most four ahead of the checker, and the checker takes them
//! in file order, reading one itself whenever the next is not ready. Each checked tree goes
//! back to the thread that built it to be freed. The items the checker sees, and so every
//! diagnostic and output format, are those of the one-thread path for every thread count
//! (`tests/threads.rs`); files under 256 KiB ([`Threading::min_bytes`]) are read on one thread.
//!
//! Each [`Diagnostic`] carries a stable code ([`codes`]), our own wording with a help line,
//! and ptxas's exact wording, so [`render::ptxas`] prints the lines ptxas would
//! (`tests/parity.rs` compares them with real ptxas output on ~36,000 modules);
//! [`render::rich`] and [`render::json`] are the other two formats. [`docs`] generates
//! `docs/features.md` and `docs/diagnostics.md`.

pub mod codes;
pub mod diagnostic;
pub mod docs;
pub mod render;
pub mod rules;

pub use diagnostic::{Diagnostic, PtxasLine, Severity};

use ptx_isa::{PtxVersion, SmTarget};
use ptx_syntax::{LineIndex, Module};
use std::sync::OnceLock;

/// What to check against when the module's own directives should be overridden.
#[derive(Debug, Clone, Copy, Default)]
pub struct CheckOptions {
    /// `--target sm_XX`: validate for this target instead of the module's `.target`.
    pub target: Option<SmTarget>,
    /// `--ptx-version X.Y`: validate as this PTX version instead of the module's `.version`.
    pub ptx_version: Option<PtxVersion>,
}

/// How [`check_file_on`] spreads reading the module over threads (see `rules::streaming`
/// and `ptx_syntax::chunks`). The diagnostics are the same for every setting.
#[derive(Debug, Clone, Copy)]
pub struct Threading {
    /// Threads that read the module, the checking one included (1: today's one-thread path).
    pub threads: usize,
    /// The size of the stretches the threads read in turn. A stretch ends at the first
    /// function end past this size, so ~16 KiB is about one Triton kernel: small enough that
    /// the trees read ahead stay a few MB (peak RSS), large enough that handing a stretch over
    /// costs little next to reading it.
    pub stretch_bytes: usize,
    /// Texts shorter than this are read on one thread: starting a second thread and its
    /// allocator heap costs more than it saves on them.
    pub min_bytes: usize,
}

impl Threading {
    /// One thread: what [`check_file`] does.
    pub fn one() -> Self {
        Self::threads(1)
    }

    /// `threads` threads with the default stretch size and minimum file size.
    pub fn threads(threads: usize) -> Self {
        Threading {
            threads: threads.max(1),
            stretch_bytes: 16 * 1024,
            min_bytes: 256 * 1024,
        }
    }
}

/// A source file with its line index, for rendering.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    /// Built on the first [`SourceFile::lines`] call: a file with no diagnostics never needs
    /// it, and building it scans the whole text (~2 % of checking a clean module).
    lines: OnceLock<LineIndex>,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        SourceFile {
            name: name.into(),
            text: text.into(),
            lines: OnceLock::new(),
        }
    }

    /// The text's line index (built on first use).
    pub fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(&self.text))
    }
}

/// The outcome of checking one file.
#[derive(Debug)]
pub struct CheckReport {
    pub file: SourceFile,
    /// `None` when the file is not text, and always from [`check_file`].
    pub module: Option<Module>,
    pub diagnostics: Vec<Diagnostic>,
}

impl CheckReport {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.severity.is_error())
    }
}

/// Checks a file read whole, as `ptxsim check` does: [`check_source`]'s diagnostics, found
/// while the module is read a few top-level items at a time ([`rules::check_streaming`]), so
/// memory holds the text and one function's syntax tree (the report's `module` is `None`). A
/// file with a syntax error, a misplaced header directive or a fatal finding is checked by
/// [`check_source`] instead, whose whole-module walk reports those as ptxas does.
pub fn check_file(name: &str, bytes: Vec<u8>, options: &CheckOptions) -> CheckReport {
    check_file_on(name, bytes, options, &Threading::one())
}

/// [`check_file`] with the module read on several threads (the caller's included) while the
/// caller checks what they read, in file order ([`rules::check_streaming_on`]). The report is
/// the same for every [`Threading`].
pub fn check_file_on(
    name: &str,
    bytes: Vec<u8>,
    options: &CheckOptions,
    threading: &Threading,
) -> CheckReport {
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => return check_source(name, e.as_bytes(), options),
    };
    let diagnostics = match rules::check_streaming_on(&text, options, threading) {
        Some(d) => d,
        None => check_source(name, text.as_bytes(), options).diagnostics,
    };
    CheckReport {
        file: SourceFile::new(name, text),
        module: None,
        diagnostics,
    }
}

/// Decodes, parses and validates one file's contents. The diagnostics come in ptxas's order
/// (the order `--format ptxas` prints them in).
pub fn check_source(name: &str, bytes: &[u8], options: &CheckOptions) -> CheckReport {
    let text = match ptx_syntax::decode_source(bytes) {
        Ok(t) => t,
        Err(e) => {
            let valid = String::from_utf8_lossy(bytes).into_owned();
            return CheckReport {
                file: SourceFile::new(name, valid),
                module: None,
                diagnostics: vec![Diagnostic::from_parse_error(&e, None)],
            };
        }
    };
    let (mut module, parse_errors) = ptx_syntax::parse_recovering(text);
    // Vector registers are checked as the scalar registers they hold.
    ptx_syntax::scalarize_vector_registers(&mut module);
    let file = SourceFile::new(name, text);
    // Like ptxas, stop at the first syntax error: the statements before it are checked. A
    // header directive after the header is one too.
    let misplaced = rules::misplaced_directive(&module);
    let first_error = match (parse_errors.first(), misplaced.as_ref()) {
        (Some(p), Some(m)) if m.span.start < p.span.start => Some(m),
        (Some(p), _) => Some(p),
        (None, m) => m,
    };
    let diagnostics = match first_error {
        Some(e) => {
            let error = Diagnostic::from_parse_error(e, Some(&file));
            rules::check_module_until(&module, text, options, error)
        }
        None => rules::check_module(&module, text, options),
    };
    CheckReport {
        file,
        module: Some(module),
        diagnostics,
    }
}
