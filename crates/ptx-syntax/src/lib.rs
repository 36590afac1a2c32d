//! `ptx-syntax`: reads whole PTX modules — nvcc and Triton output included — into a typed AST
//! with a source span on every node, and prints them back.
//!
//! ```text
//! bytes ──decode_source──► &str ──lexer::lex (logos)──► tokens ──parser (winnow)──► ast::Module
//!                                                                     printer::print ◄──┘
//! ```
//!
//! [`stream::ItemReader`] reads the same module a few top-level items at a time (memory bounded
//! by the largest function rather than the file), for `ptxsim check` on large modules;
//! [`chunks::with_runs`] reads those runs on several threads and hands them over in file order.
//!
//! The parser lives in `parser/`, one file per grammar layer: `tokens` (the cursor and
//! errors), `literals`, `expressions`, `operands`, `instructions`, `declarations`,
//! `statements` (with error recovery) and `items` (module items and functions).
//! The tree it builds, [`ast`], is laid out the same way in `ast/`: `module` (items and
//! module directives), `function`, `statement`, `variable`, `expr` (constant expressions and
//! literals), `operand`, `instruction` (guard, opcode, generic form) and `cache_control` (the
//! typed cache-control instructions and their qualifier list); every type is re-exported as
//! `ast::X`.
//!
//! The cache-control instructions (`ld`, `ld.global.nc`, `st`, `cp.async` and its group, wait
//! and mbarrier forms, `createpolicy`, `prefetch`/`prefetchu`) are parsed into typed structs
//! whose qualifiers are `ptx-isa` enums; every other instruction keeps its opcode, modifiers
//! and operands in a generic form. Validation (what is legal for a target and PTX version) is
//! `ptx-check`'s job: this crate accepts any qualifier combination and records what it saw.

pub mod ast;
pub mod chunks;
pub mod consteval;
pub mod lexer;
mod parser;
pub mod printer;
pub mod span;
pub mod stream;
pub mod synth;
mod vector_regs;
pub use vector_regs::{scalarize_vector_item, scalarize_vector_registers, scalarized};

pub use ast::Module;
pub use printer::print;
pub use span::{LineCol, LineIndex, Span, Spanned};

use core::fmt;

/// A syntax error: where, what, and optionally how to fix it.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    pub span: Span,
    pub message: String,
    pub help: Option<String>,
    /// ptxas's own wording when it is not `Parsing error near '…': syntax error`
    /// (`Constant expression has division by zero`).
    pub ptxas: Option<String>,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}

/// Parses a module, or returns every syntax error found.
pub fn parse(text: &str) -> Result<Module, Vec<ParseError>> {
    let (module, errors) = parse_recovering(text);
    if errors.is_empty() {
        Ok(module)
    } else {
        Err(errors)
    }
}

/// Parses as much as possible: the module holds every item that parsed, and the list every
/// syntax error (recovery skips to the next `;` or `}`).
pub fn parse_recovering(text: &str) -> (Module, Vec<ParseError>) {
    if text.len() >= u32::MAX as usize {
        let err = ParseError {
            span: Span::new(0, 0),
            message: format!(
                "the file is {} bytes; ptxsim reads PTX files up to 4 GiB",
                text.len()
            ),
            help: None,
            ptxas: None,
        };
        return (
            Module {
                items: Vec::new(),
                span: Span::default(),
            },
            vec![err],
        );
    }
    let tokens = lexer::lex(text);
    parser::module(&tokens)
}

/// Checks that file contents are UTF-8 text, naming the first offending byte otherwise.
pub fn decode_source(bytes: &[u8]) -> Result<&str, ParseError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to() as u32;
        ParseError {
            span: Span::new(at, at + 1),
            message: format!(
                "the file is not UTF-8 text: byte 0x{:02X} at offset {at} is invalid",
                bytes[at as usize]
            ),
            help: Some("PTX is ASCII text; is this a binary (cubin/fatbin) file?".into()),
            ptxas: None,
        }
    })
}
