//! Validation rules for the cache-control instructions, ported from the executable rule
//! catalog (`tests/parity/rules_model.py`, `docs/ptxas-rules.md`).
//!
//! [`check_module`] walks the module in source order, keeping a symbol table of every
//! function's scopes (`symbols`), and hands each `ld`/`st`/`cp.async…`/`createpolicy`/
//! `prefetch` instruction to its family's rules. Each family emits its messages under the
//! ordering keys of `collect`, so the result comes out in ptxas's order; the module-level
//! findings (`.version`/`.target`, deferred `Unknown symbol`s at the end of each function, the
//! driver's address-width messages) are placed where ptxas prints them.
//!
//! Where things live:
//! - the walk: `checker` (the `Checker` over items, blocks and statements), `duplicates`
//!   (names defined twice), `bulk` (guards and misplaced bulk group words of the
//!   instructions otherwise checked only for their gates), `directives`
//!   (`.version`/`.target`/`.address_size`, §2), `dispatch` (which family an opcode goes to,
//!   result-discard and `call` facts);
//! - the families: `ldst` (`ld`/`st` and unknown opcodes), `cpasync`, `group` (bulk groups,
//!   `mbarrier`), `policy` (`createpolicy`), `prefetch`, `priority` (`applypriority`,
//!   `discard`), `streaming` (the streaming checker);
//! - what they share: `feature_gates` (the cache-control feature rows), `gates` (the other
//!   instructions' target/version gates), `operands` (immediates, register widths, addresses),
//!   `shared` (guards, undeclared operands, unknown modifiers, the vector warning),
//!   `prefetch_scan` (the modifier scan of `prefetch` and `priority`), `collect` (ordering
//!   keys), `words` (modifier classification), `symbols` (scopes); opcodes are ptx-isa's
//!   `Opcode`, classified by the parser;
//! - this file: the entry points, the per-instruction types (`Cx`, `Insn`, `Outcome`) and
//!   how an instruction ends (`finish`, or `stop` at a stopping error).

mod bulk;
mod checker;
mod collect;
mod cpasync;
mod directives;
mod dispatch;
mod duplicates;
mod feature_gates;
mod function_directives;
mod gates;
mod group;
mod initializers;
mod labels;
mod ldst;
mod operands;
mod policy;
mod prefetch;
mod prefetch_scan;
mod priority;
mod shared;
mod streaming;
mod symbols;
mod words;

use crate::codes;
use crate::{CheckOptions, Diagnostic, Severity};
use checker::*;
use collect::{Key, Msgs};
pub use directives::misplaced_directive;
use dispatch::*;
use feature_gates::*;
use operands::*;
use ptx_isa::{
    Feature, Flag, GateOrder, Modifier, Opcode, PolicyKind, PtxVersion, Qualifier, ScalarType,
    SmTarget, StateSpace, TypeKind, VarType,
};
use ptx_syntax::ast::{
    FloatLit, Function, FunctionKind, Guard, Instruction, Item, Module, Op, Operand, Statement,
    VarDecl,
};
use ptx_syntax::stream::item_span;
use ptx_syntax::{ParseError, Span};
use shared::*;
use smallvec::SmallVec;
pub use streaming::{check_streaming, check_streaming_on};
use symbols::{ModuleScope, Scopes, Sym, VarKind};
use words::{is, is_any};

/// Every finding of the rules for `module` (whose source is `text`), in ptxas's order.
pub fn check_module(module: &Module, text: &str, options: &CheckOptions) -> Vec<Diagnostic> {
    let mut c = Checker::new(text, options);
    c.run(module);
    c.finish()
}

/// The findings for a module with a syntax error: ptxas checks every statement before it,
/// reports the scan-stage messages of the statement it stops in, then the syntax error.
pub fn check_module_until(
    module: &Module,
    text: &str,
    options: &CheckOptions,
    error: Diagnostic,
) -> Vec<Diagnostic> {
    let mut c = Checker::new(text, options);
    c.stop = Some(error.span.start);
    if c.run(module) {
        if !c.partial_done {
            c.partial_statement(None);
        }
        c.diags.push(error);
        c.line_fatal = true;
    }
    c.finish()
}

/// A syntax error as a [`Diagnostic`] (for [`check_module_until`]).
pub fn syntax_error(e: &ParseError, text: &str) -> Diagnostic {
    let file = crate::SourceFile::new("", text);
    Diagnostic::from_parse_error(e, Some(&file))
}

/// The module-level facts every instruction check needs.
pub(crate) struct Cx<'a> {
    pub text: &'a str,
    /// The `.target` number (`sm_90a` → 90).
    pub sm: u32,
    pub version: PtxVersion,
    /// True while checking a kernel (`.entry`), false in a device function.
    pub in_kernel: bool,
    /// Per body `.param` of the function: has a `call` returned it yet?
    pub returned: &'a [bool],
}

impl Cx<'_> {
    /// The source text of a span.
    pub fn src(&self, span: Span) -> &str {
        self.text.get(span.range()).unwrap_or("")
    }
}

/// One instruction as ptxas sees it: guard, opcode, modifiers as written, operands.
pub(crate) struct Insn<'a> {
    pub guard: Option<&'a Guard>,
    /// The opcode as written (for messages).
    pub opcode: &'a str,
    /// The opcode as ptx-isa classifies it; `None` for a name ptxas does not know.
    pub known: Option<Opcode>,
    pub opcode_span: Span,
    /// Borrowed from the caller's list (on its stack for up to 8 modifiers): moved into
    /// `Insn`, the list was a `memcpy` call per instruction.
    pub mods: &'a [(&'a str, Span)],
    pub ops: &'a [Operand],
    /// What ptxas reports about the operands' constant expressions (parse stage).
    pub const_issues: &'a [ptx_syntax::consteval::ConstIssue],
    /// How many leading modifiers are written right after the opcode, with no space or
    /// comment between: ptxas reads `cp.async.commit_group` as one token only then.
    pub joined: usize,
    /// Where the instruction starts (ptxas reports its messages at this line).
    pub start: u32,
}

impl Insn<'_> {
    /// An error of this instruction, underlining `span`.
    pub fn err(
        &self,
        code: &'static str,
        span: Span,
        ptxas: String,
        message: String,
    ) -> Diagnostic {
        Diagnostic::error(code, span, message, ptxas).at_line_of(self.start)
    }

    /// A second cache-level word (`.L1`, `.L2`, `.tensormap`) among the modifiers, `word` at
    /// `span` (prefetch, applypriority/discard, createpolicy, ld/st: §20.4).
    pub fn second_level(&self, word: &str, span: Span) -> Diagnostic {
        self.err(
            codes::REPEATED_MODIFIER,
            span,
            "Multiple cache operation modifiers specified".into(),
            format!("a second cache level `{word}`"),
        )
    }

    /// The span of the whole opcode with its modifiers.
    pub fn head(&self) -> Span {
        self.opcode_span
    }
}

/// What checking one instruction produced.
#[derive(Default)]
pub(crate) struct Outcome {
    /// The instruction's messages in ptxas's order (a fatal one last).
    pub diags: Vec<Diagnostic>,
    pub fatal: bool,
    /// `Unknown symbol` messages, printed at the end of the function.
    pub unknown: Vec<Diagnostic>,
    /// A generic/`.global` address in a 16- or 32-bit register.
    pub narrow_address: Option<u32>,
    /// `Function call sequence invalid` (printed only if the file has no error).
    pub call_sequence: Option<Diagnostic>,
}

/// Collects undeclared names of one instruction, each once, in order.
#[derive(Default)]
pub(crate) struct Unknowns(Vec<(String, Span)>);

impl Unknowns {
    pub fn add(&mut self, name: &str, span: Span) {
        if !self.0.iter().any(|(n, _)| n == name) {
            self.0.push((name.to_string(), span));
        }
    }

    pub fn into_diags(self) -> Vec<Diagnostic> {
        self.0
            .into_iter()
            .map(|(name, span)| {
                Diagnostic::error(
                    codes::UNKNOWN_SYMBOL,
                    span,
                    format!("`{name}` is not declared in this scope"),
                    format!("Unknown symbol '{name}'"),
                )
                .with_help("declare it (`.reg`, or a variable in the right state space) before use")
            })
            .collect()
    }
}

/// Ends an instruction: its messages in order, then (unless a fatal one stopped it) the
/// trailing vector warning; the unknown symbols go to the end of the function.
pub(crate) fn finish(m: Msgs, unknown: Unknowns, tail: Option<Diagnostic>) -> Outcome {
    let (diags, fatal) = m.finish();
    outcome(diags, fatal, tail, unknown)
}

/// Ends an instruction that stopped at `d`, ptxas's stopping error (a `.sync`, a type where
/// none is taken, an operand shape it cannot read …): the messages so far, then `d`, then as
/// [`finish`] does (a fatal `d` ends it there).
pub(crate) fn stop(m: Msgs, d: Diagnostic, tail: Option<Diagnostic>, unknown: Unknowns) -> Outcome {
    let (mut diags, _) = m.finish();
    let fatal = d.severity == Severity::Fatal;
    diags.push(d);
    outcome(diags, fatal, tail, unknown)
}

/// An instruction's outcome from its messages: after a fatal one nothing follows (neither
/// the trailing vector warning nor the unknown symbols); otherwise both do.
fn outcome(
    mut diags: Vec<Diagnostic>,
    fatal: bool,
    tail: Option<Diagnostic>,
    unknown: Unknowns,
) -> Outcome {
    if fatal {
        return Outcome {
            diags,
            fatal,
            ..Outcome::default()
        };
    }
    diags.extend(tail);
    Outcome {
        diags,
        fatal: false,
        unknown: unknown.into_diags(),
        ..Outcome::default()
    }
}
