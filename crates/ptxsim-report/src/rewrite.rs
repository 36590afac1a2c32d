//! Hint rewrites for `ptxsim compare`: the same module with its cache hints changed.
//!
//! A rewrite edits the qualifier lists (and the cache-policy operands) of the selected `ld`,
//! `st`, `cp.async` and `prefetch` instructions in the AST, prints each changed instruction back
//! with the `ptx-syntax` printer, and splices it over the original instruction's text, keeping
//! every line where it was (a `line:42` rewrite and the per-line report refer to the original's
//! lines). The result is parsed again, so the typed fields of the new module are the parser's
//! classification of the new text, consistent with it by construction, and validated with
//! `ptx-check`: a rewrite that makes a line illegal for the module's target is an error.
//!
//! Grammar (parts joined with `+`, applied left to right):
//!
//! ```text
//! strip-hints                      every cache operator, L1/L2 eviction priority, prefetch size,
//!                                  .L2::cache_hint and its policy operand removed from ld/st
//!                                  (cp.async keeps its mandatory .ca/.cg); prefetch.L2::evict_*
//!                                  becomes prefetch.L2
//! loads=HINTS | stores=HINTS       weak ld/st of global (or generic) addresses
//! cp.async=ca|cg|none|.L2::NB|POL  every cp.async (.cg only where cp-size is 16, as the ISA says)
//! line:N=HINTS                     the instructions on PTX line N
//! policy=fraction:F:P[:S] | none   every weak global ld/st and cp.async: as `…=policy:…` below
//!
//! HINTS: none | evict_first | evict_last | evict_normal (.L1::X plus policy:fraction:1.0:X, as
//!        Triton's eviction_policy= emits) | evict_unchanged | no_allocate (.L1:: only) |
//!        ca cg cs lu cv (loads) | wb cg cs wt
//!        (stores) | qualifiers as written: .L2::evict_last, .L1::evict_first.L2::evict_first,
//!        .cg, .L2::128B | POL
//! POL:   policy:fraction:F:P[:S]   .L2::cache_hint with the policy that
//!                                  `createpolicy.fractional.L2::P.L2::S.b64 _, F` makes (created
//!                                  once at the top of each function; replaces .L2:: priorities)
//!        policy:none               .L2::cache_hint and the policy operand removed
//! ```

use ptx_isa::{
    CacheOperator, Flag, L1EvictionPriority, L2EvictionPriority, MemorySemantics, PrefetchSize,
    Qualifier, StateSpace,
};
use ptx_syntax::ast::{
    Block, CpAsync, Instruction, LoadStore, Name, Op, Operand, Prefetch, Statement,
    WrittenQualifier,
};
use ptx_syntax::{LineIndex, Span, Spanned};
use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

mod edit;
mod spec;
use edit::*;

/// Why a rewrite could not be parsed or applied.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RewriteError {
    /// The rewrite text itself is malformed.
    #[error("rewrite `{spec}`: {message}")]
    Spec { spec: String, message: String },
    /// The module does not parse (before or after rewriting).
    #[error("{line}:{column}: {message}")]
    Parse {
        line: u32,
        column: u32,
        message: String,
    },
    /// The rewrite cannot apply to an instruction it names, or made a line invalid.
    #[error("line {line}: {message}")]
    Invalid { line: u32, message: String },
}

/// Which instructions a hint edit applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selector {
    /// Weak `ld` of global or generic addresses (including `ld.global.nc`).
    Loads,
    /// Weak `st` of global or generic addresses.
    Stores,
    /// Every `cp.async` copy.
    CpAsync,
    /// The `ld`/`st`/`cp.async`/`prefetch` instructions on this 1-based PTX line.
    Line(u32),
    /// Weak global `ld` and `st`, and `cp.async` (the `policy=` shorthand).
    All,
}

/// The hints an edit sets. `none` clears all of them; a cache operator and eviction priorities
/// exclude each other (the two forms of `ld`/`st` in the PTX ISA).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct HintSet {
    pub none: bool,
    /// `nc`: make an `ld.global` a non-coherent (read-only path) load, `ld.global.nc`.
    pub nc: bool,
    pub cache_op: Option<CacheOperator>,
    pub l1: Option<L1EvictionPriority>,
    pub l2: Option<L2EvictionPriority>,
    pub prefetch: Option<PrefetchSize>,
    pub policy: Option<PolicyEdit>,
}

/// A cache-policy edit: use a fractional policy, or drop the policy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PolicyEdit {
    Use(FractionPolicy),
    Remove,
}

/// `createpolicy.fractional.L2::primary{.L2::secondary}.b64 policy, fraction`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FractionPolicy {
    pub fraction: f32,
    pub primary: L2EvictionPriority,
    pub secondary: Option<L2EvictionPriority>,
}

/// One part of a rewrite.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    StripHints,
    Set { selector: Selector, hints: HintSet },
}

/// A parsed rewrite: its text and its steps.
#[derive(Debug, Clone, PartialEq)]
pub struct Rewrite {
    pub spec: String,
    pub steps: Vec<Step>,
}

impl fmt::Display for Rewrite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.spec)
    }
}

/// The registers policy rewrites declare (`%ptxsim_policy0`, `%ptxsim_policy1`, …, one per
/// distinct policy) in each function they change.
pub const POLICY_REGISTER: &str = "%ptxsim_policy";

impl FractionPolicy {
    /// The `createpolicy` instruction that makes this policy in `register`.
    pub fn instruction(&self, register: &str) -> String {
        let secondary = self
            .secondary
            .map_or(String::new(), |s| s.token().to_string());
        format!(
            "createpolicy.fractional{}{secondary}.b64 {register}, 0f{:08X};",
            self.primary.token(),
            self.fraction.to_bits()
        )
    }
}

/// One changed line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub line: u32,
    pub before: String,
    pub after: String,
}

/// A selected instruction the rewrite left alone, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub line: u32,
    pub instruction: String,
    pub reason: String,
}

/// The rewritten module text and what changed.
#[derive(Debug, Clone)]
pub struct Rewritten {
    /// The new PTX: the original with changed instructions re-printed in place (same lines).
    pub text: String,
    pub changes: Vec<Change>,
    pub skipped: Vec<Skipped>,
}

/// Applies `rewrite` to the module `source`.
pub fn apply(source: &str, rewrite: &Rewrite) -> Result<Rewritten, RewriteError> {
    let lines = LineIndex::new(source);
    let module = ptx_syntax::parse(source).map_err(|errors| {
        let e = &errors[0];
        let lc = lines.line_col(e.span.start, source);
        RewriteError::Parse {
            line: lc.line,
            column: lc.col,
            message: e.message.clone(),
        }
    })?;
    let mut edits: Vec<(Span, String)> = Vec::new();
    let mut changes = Vec::new();
    let mut skipped = Vec::new();
    let mut lines_seen: BTreeSet<u32> = BTreeSet::new();
    let mut policies = Policies::default();
    // Lines where policy registers were declared and created (the bodies' `{` lines).
    let mut policy_lines: BTreeSet<u32> = BTreeSet::new();
    for f in module.functions() {
        let Some(body) = &f.body else { continue };
        let mut ctx = Walk {
            source,
            lines: &lines,
            rewrite,
            edits: &mut edits,
            changes: &mut changes,
            skipped: &mut skipped,
            lines_seen: &mut lines_seen,
            policies: &mut policies,
        };
        ctx.block(body)?;
        // Declare and create the function's policies right after the body's `{`, on the
        // same line (so no line moves).
        let used = std::mem::take(&mut policies.used);
        if !used.is_empty() {
            let mut text = String::new();
            for k in used {
                let reg = format!("{POLICY_REGISTER}{k}");
                text.push_str(&format!(
                    " .reg .b64 {reg}; {}",
                    policies.list[k].instruction(&reg)
                ));
            }
            let at = body.span.start + 1;
            policy_lines.insert(lines.line(body.span.start));
            edits.push((Span::new(at, at), text));
        }
    }
    for step in &rewrite.steps {
        if let Step::Set {
            selector: Selector::Line(n),
            ..
        } = step
        {
            if !lines_seen.contains(n) {
                return Err(RewriteError::Invalid {
                    line: *n,
                    message: format!(
                        "rewrite `{}`: no ld, st, cp.async or prefetch instruction on line {n}",
                        rewrite.spec
                    ),
                });
            }
        }
    }
    edits.sort_by_key(|(s, _)| s.start);
    let mut text = String::with_capacity(source.len() + 64 * edits.len());
    let mut pos = 0usize;
    for (span, new) in &edits {
        text.push_str(&source[pos..span.start as usize]);
        text.push_str(new);
        pos = span.end as usize;
    }
    text.push_str(&source[pos..]);
    validate(&text, &changes, &policy_lines)?;
    Ok(Rewritten {
        text,
        changes,
        skipped,
    })
}

/// Parses and checks the rewritten text; errors on changed lines are the rewrite's fault.
fn validate(text: &str, changes: &[Change], inserted: &BTreeSet<u32>) -> Result<(), RewriteError> {
    let lines = LineIndex::new(text);
    let module = ptx_syntax::parse(text).map_err(|errors| {
        let e = &errors[0];
        let lc = lines.line_col(e.span.start, text);
        RewriteError::Parse {
            line: lc.line,
            column: lc.col,
            message: format!("the rewritten module does not parse: {}", e.message),
        }
    })?;
    let changed: BTreeSet<u32> = changes
        .iter()
        .map(|c| c.line)
        .chain(inserted.iter().copied())
        .collect();
    for d in ptx_check::rules::check_module(&module, text, &ptx_check::CheckOptions::default()) {
        let line = lines.line(d.span.start);
        if d.severity.is_error() && changed.contains(&line) {
            return Err(RewriteError::Invalid {
                line,
                message: format!(
                    "the rewritten instruction is not valid for this module: {}",
                    d.message
                ),
            });
        }
    }
    Ok(())
}

struct Walk<'a> {
    source: &'a str,
    lines: &'a LineIndex,
    rewrite: &'a Rewrite,
    edits: &'a mut Vec<(Span, String)>,
    changes: &'a mut Vec<Change>,
    skipped: &'a mut Vec<Skipped>,
    lines_seen: &'a mut BTreeSet<u32>,
    policies: &'a mut Policies,
}

/// The distinct policies a rewrite uses (module-wide numbering) and those the current
/// function uses.
#[derive(Default)]
struct Policies {
    list: Vec<FractionPolicy>,
    used: BTreeSet<usize>,
}

impl Policies {
    /// The register operand holding `p` in the current function.
    fn operand(&mut self, p: FractionPolicy) -> Operand {
        let k = match self.list.iter().position(|q| *q == p) {
            Some(k) => k,
            None => {
                self.list.push(p);
                self.list.len() - 1
            }
        };
        self.used.insert(k);
        Operand::Name(Name {
            name: format!("{POLICY_REGISTER}{k}").into(),
            component: None,
            span: Span::default(),
        })
    }
}

impl Walk<'_> {
    fn block(&mut self, b: &Block) -> Result<(), RewriteError> {
        for s in &b.statements {
            match s {
                Statement::Block(inner) => self.block(inner)?,
                Statement::Instruction(i) => self.instruction(i)?,
                _ => {}
            }
        }
        Ok(())
    }

    fn instruction(&mut self, original: &Instruction) -> Result<(), RewriteError> {
        if !matches!(
            original.op,
            Op::Ld(_) | Op::St(_) | Op::CpAsync(_) | Op::Prefetch(_)
        ) {
            return Ok(());
        }
        let line = self.lines.line(original.span.start);
        self.lines_seen.insert(line);
        let mut cur = original.clone();
        for step in &self.rewrite.steps {
            match edit(&mut cur, step, line, self.policies) {
                Ok(Outcome::Changed) | Ok(Outcome::NotSelected) => {}
                Ok(Outcome::Skipped(reason)) => self.skipped.push(Skipped {
                    line,
                    instruction: original.to_string(),
                    reason,
                }),
                Err(message) => return Err(RewriteError::Invalid { line, message }),
            }
        }
        let (before, after) = (original.to_string(), cur.to_string());
        if before != after {
            let slice = &self.source[original.span.range()];
            // Keep the line count: the printed instruction is one line.
            let newlines = slice.matches('\n').count();
            self.edits
                .push((original.span, format!("{after}{}", "\n".repeat(newlines))));
            self.changes.push(Change {
                line,
                before: slice.split_whitespace().collect::<Vec<_>>().join(" "),
                after,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
