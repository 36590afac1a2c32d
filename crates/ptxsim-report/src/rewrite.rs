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
    Block, CpAsync, Instruction, LoadStore, Modifier, Name, Op, Operand, Prefetch, Statement,
};
use ptx_syntax::{LineIndex, Span, Spanned};
use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

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

fn spec_err<T>(spec: &str, message: impl Into<String>) -> Result<T, RewriteError> {
    Err(RewriteError::Spec {
        spec: spec.to_string(),
        message: message.into(),
    })
}

impl FromStr for Rewrite {
    type Err = RewriteError;

    fn from_str(spec: &str) -> Result<Self, RewriteError> {
        let spec = spec.trim();
        if spec.is_empty() {
            return spec_err(spec, "empty rewrite");
        }
        let mut steps = Vec::new();
        for part in spec.split('+') {
            steps.push(parse_step(spec, part.trim())?);
        }
        Ok(Rewrite {
            spec: spec.to_string(),
            steps,
        })
    }
}

fn parse_step(spec: &str, part: &str) -> Result<Step, RewriteError> {
    if part == "strip-hints" {
        return Ok(Step::StripHints);
    }
    let Some((target, value)) = part.split_once('=') else {
        return spec_err(
            spec,
            format!(
                "`{part}`: expected strip-hints, loads=, stores=, cp.async=, line:N= or policy="
            ),
        );
    };
    let value = value.trim();
    let selector = match target.trim() {
        "loads" => Selector::Loads,
        "stores" => Selector::Stores,
        "cp.async" => Selector::CpAsync,
        "policy" => {
            return Ok(Step::Set {
                selector: Selector::All,
                hints: HintSet {
                    policy: Some(parse_policy(spec, value)?),
                    ..HintSet::default()
                },
            })
        }
        t => match t.strip_prefix("line:").map(str::parse::<u32>) {
            Some(Ok(n)) if n > 0 => Selector::Line(n),
            Some(_) => return spec_err(spec, format!("`{t}`: write line:N with N >= 1")),
            None => {
                return spec_err(
                    spec,
                    format!("unknown target `{t}`: use loads, stores, cp.async, line:N or policy"),
                )
            }
        },
    };
    let hints = parse_hints(spec, value)?;
    // Hints the selected instructions can never take.
    match selector {
        Selector::Loads => {
            if let Some(op) = hints.cache_op.filter(|c| !c.is_load_operator()) {
                return spec_err(
                    spec,
                    format!("`{op}` is a store operator; loads take .ca .cg .cs .lu .cv"),
                );
            }
        }
        Selector::Stores => {
            if let Some(op) = hints.cache_op.filter(|c| !c.is_store_operator()) {
                return spec_err(
                    spec,
                    format!("`{op}` is a load operator; stores take .wb .cg .cs .wt"),
                );
            }
            if hints.prefetch.is_some() {
                return spec_err(spec, "st has no prefetch-size qualifier");
            }
        }
        Selector::CpAsync => {
            if hints.l1.is_some() || hints.l2.is_some() {
                return spec_err(
                    spec,
                    "cp.async has no eviction-priority qualifiers (use policy= for an L2 policy)",
                );
            }
            if let Some(op) = hints
                .cache_op
                .filter(|c| !matches!(c, CacheOperator::Ca | CacheOperator::Cg))
            {
                return spec_err(spec, format!("cp.async takes .ca or .cg, not `{op}`"));
            }
        }
        Selector::Line(_) | Selector::All => {}
    }
    Ok(Step::Set { selector, hints })
}

fn parse_hints(spec: &str, value: &str) -> Result<HintSet, RewriteError> {
    let mut h = HintSet::default();
    // What Triton emits for `eviction_policy=`: the L1 priority, and the L2 priority through a
    // cache policy (`.L2::evict_*` qualifiers exist only for 256-bit ld/st).
    let both = |p: L1EvictionPriority, q: L2EvictionPriority| HintSet {
        l1: Some(p),
        policy: Some(PolicyEdit::Use(FractionPolicy {
            fraction: 1.0,
            primary: q,
            secondary: None,
        })),
        ..HintSet::default()
    };
    match value {
        "none" => {
            h.none = true;
            return Ok(h);
        }
        "evict_first" => {
            return Ok(both(
                L1EvictionPriority::EvictFirst,
                L2EvictionPriority::EvictFirst,
            ))
        }
        "evict_last" => {
            return Ok(both(
                L1EvictionPriority::EvictLast,
                L2EvictionPriority::EvictLast,
            ))
        }
        "evict_normal" => {
            return Ok(both(
                L1EvictionPriority::EvictNormal,
                L2EvictionPriority::EvictNormal,
            ))
        }
        "evict_unchanged" => {
            h.l1 = Some(L1EvictionPriority::EvictUnchanged);
            return Ok(h);
        }
        "no_allocate" => {
            h.l1 = Some(L1EvictionPriority::NoAllocate);
            return Ok(h);
        }
        _ => {}
    }
    if let Some(p) = value.strip_prefix("policy:") {
        h.policy = Some(parse_policy(spec, p)?);
        return Ok(h);
    }
    if !value.starts_with('.') {
        if let Some(op) = CacheOperator::from_token(&format!(".{value}")) {
            h.cache_op = Some(op);
            return Ok(h);
        }
        return spec_err(
            spec,
            format!(
                "`{value}`: use none, evict_first, evict_last, evict_normal, evict_unchanged, \
                 no_allocate, a cache operator (ca cg cs lu cv wb wt) or qualifiers such as \
                 .L2::evict_last"
            ),
        );
    }
    for token in value.split('.').skip(1) {
        let token = format!(".{token}");
        match Qualifier::from_token(&token) {
            Some(Qualifier::CacheOp(op)) => set_once(spec, &mut h.cache_op, op, &token)?,
            Some(Qualifier::L1(p)) => set_once(spec, &mut h.l1, p, &token)?,
            Some(Qualifier::L2(L2EvictionPriority::EvictUnchanged)) => {
                return spec_err(
                    spec,
                    ".L2::evict_unchanged exists only for createpolicy; ld/st take \
                     .L2::evict_first, .L2::evict_last or .L2::evict_normal",
                )
            }
            Some(Qualifier::L2(p)) => set_once(spec, &mut h.l2, p, &token)?,
            Some(Qualifier::Prefetch(p)) => set_once(spec, &mut h.prefetch, p, &token)?,
            _ => {
                return spec_err(
                    spec,
                    format!(
                        "`{token}` is not a cache hint (cache operators, .L1::/.L2:: eviction \
                         priorities and .L2::64B/128B/256B are)"
                    ),
                )
            }
        }
    }
    if h.cache_op.is_some() && (h.l1.is_some() || h.l2.is_some()) {
        return spec_err(
            spec,
            "a cache operator and eviction priorities cannot be combined (the PTX ISA gives ld \
             and st one form with .cop and another with eviction priorities)",
        );
    }
    Ok(h)
}

fn set_once<T>(spec: &str, slot: &mut Option<T>, v: T, token: &str) -> Result<(), RewriteError> {
    if slot.is_some() {
        return spec_err(spec, format!("`{token}`: two qualifiers of the same kind"));
    }
    *slot = Some(v);
    Ok(())
}

fn parse_priority(spec: &str, word: &str) -> Result<L2EvictionPriority, RewriteError> {
    let word = word.strip_prefix(".L2::").unwrap_or(word);
    match L2EvictionPriority::from_token(&format!(".L2::{word}")) {
        Some(p) => Ok(p),
        None => spec_err(
            spec,
            format!("`{word}`: use evict_first, evict_last, evict_normal or evict_unchanged"),
        ),
    }
}

fn parse_policy(spec: &str, value: &str) -> Result<PolicyEdit, RewriteError> {
    if value == "none" {
        return Ok(PolicyEdit::Remove);
    }
    let parts: Vec<&str> = value.split(':').collect();
    let ("fraction", 3 | 4) = (parts[0], parts.len()) else {
        return spec_err(
            spec,
            "write policy=fraction:F:PRIMARY[:SECONDARY] (e.g. fraction:0.5:evict_last) or policy=none",
        );
    };
    let fraction: f32 = match parts[1].parse() {
        Ok(f) if f > 0.0 && f <= 1.0 => f,
        _ => {
            return spec_err(
                spec,
                format!("fraction `{}` must be a number in (0, 1]", parts[1]),
            )
        }
    };
    let primary = parse_priority(spec, parts[2])?;
    let secondary = match parts.get(3) {
        Some(w) => {
            let p = parse_priority(spec, w)?;
            if !matches!(
                p,
                L2EvictionPriority::EvictFirst | L2EvictionPriority::EvictUnchanged
            ) {
                return spec_err(
                    spec,
                    "createpolicy's secondary priority is evict_first or evict_unchanged",
                );
            }
            Some(p)
        }
        None => None,
    };
    Ok(PolicyEdit::Use(FractionPolicy {
        fraction,
        primary,
        secondary,
    }))
}

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

/// What one step did to one instruction.
enum Outcome {
    Changed,
    NotSelected,
    Skipped(String),
}

fn known(q: Qualifier) -> Spanned<Modifier> {
    Spanned::new(Modifier::Known(q), Span::default())
}

fn quals(written: &[Spanned<Modifier>]) -> impl Iterator<Item = Qualifier> + '_ {
    written.iter().filter_map(|m| match m.value {
        Modifier::Known(q) => Some(q),
        Modifier::Unknown(_) => None,
    })
}

/// Hint state read from a qualifier list.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Hints {
    cache_op: Option<CacheOperator>,
    l1: Option<L1EvictionPriority>,
    l2: Option<L2EvictionPriority>,
    cache_hint: bool,
    prefetch: Option<PrefetchSize>,
}

impl Hints {
    fn read(written: &[Spanned<Modifier>]) -> Hints {
        let mut h = Hints::default();
        for q in quals(written) {
            match q {
                Qualifier::CacheOp(c) => h.cache_op = Some(c),
                Qualifier::L1(p) => h.l1 = Some(p),
                Qualifier::L2(p) => h.l2 = Some(p),
                Qualifier::Flag(Flag::CacheHint) => h.cache_hint = true,
                Qualifier::Prefetch(p) => h.prefetch = Some(p),
                _ => {}
            }
        }
        h
    }

    /// Applies an edit (a `none` clears everything, then the set hints are laid over).
    fn with(mut self, e: &HintSet) -> Hints {
        if e.none {
            return Hints::default();
        }
        if let Some(c) = e.cache_op {
            self.cache_op = Some(c);
            self.l1 = None;
            self.l2 = None;
        }
        if e.l1.is_some() || e.l2.is_some() {
            self.cache_op = None;
        }
        if let Some(p) = e.l1 {
            self.l1 = Some(p);
        }
        if let Some(p) = e.l2 {
            // An explicit L2 priority replaces the policy (which would decide L2 otherwise).
            self.l2 = Some(p);
            self.cache_hint = false;
        }
        if let Some(p) = e.prefetch {
            self.prefetch = Some(p);
        }
        match e.policy {
            Some(PolicyEdit::Use(_)) => {
                // The policy decides the L2 priority.
                self.cache_hint = true;
                self.l2 = None;
            }
            Some(PolicyEdit::Remove) => self.cache_hint = false,
            None => {}
        }
        self
    }
}

fn is_hint(q: Qualifier) -> bool {
    matches!(
        q,
        Qualifier::CacheOp(_)
            | Qualifier::L1(_)
            | Qualifier::L2(_)
            | Qualifier::Prefetch(_)
            | Qualifier::Flag(Flag::CacheHint)
    )
}

/// Rebuilds a qualifier list with `h` in the ISA's order:
/// `ld{.sem}{.scope}{.ss}{.cop}{.nc}{.L1::}{.L2::}{.L2::cache_hint}{.L2::NB}{.vec}.type`.
fn rebuild(written: &[Spanned<Modifier>], h: &Hints) -> Vec<Spanned<Modifier>> {
    let mut out: Vec<Spanned<Modifier>> = written
        .iter()
        .filter(|m| !matches!(m.value, Modifier::Known(q) if is_hint(q)))
        .cloned()
        .collect();
    let position = |out: &[Spanned<Modifier>], stop: &dyn Fn(Qualifier) -> bool| {
        out.iter()
            .position(|m| matches!(m.value, Modifier::Known(q) if stop(q)))
            .unwrap_or(out.len())
    };
    if let Some(c) = h.cache_op {
        let at = position(&out, &|q| {
            matches!(
                q,
                Qualifier::Flag(Flag::Nc) | Qualifier::Vector(_) | Qualifier::Type(_)
            )
        });
        out.insert(at, known(Qualifier::CacheOp(c)));
    }
    let mut tail = Vec::new();
    if let Some(p) = h.l1 {
        tail.push(known(Qualifier::L1(p)));
    }
    if let Some(p) = h.l2 {
        tail.push(known(Qualifier::L2(p)));
    }
    if h.cache_hint {
        tail.push(known(Qualifier::Flag(Flag::CacheHint)));
    }
    if let Some(p) = h.prefetch {
        tail.push(known(Qualifier::Prefetch(p)));
    }
    let at = position(&out, &|q| {
        matches!(q, Qualifier::Vector(_) | Qualifier::Type(_))
    });
    out.splice(at..at, tail);
    out
}

/// Whether an `ld`/`st` is a weak access of global or generic memory (the ones cache
/// operators and priorities are for), or why not.
fn weak_global(ls: &LoadStore) -> Result<(), String> {
    let mut space = None;
    let mut semantics = None;
    let mut mmio = false;
    for q in quals(&ls.qualifiers.written) {
        match q {
            Qualifier::Space(s) => space = Some(s),
            Qualifier::Semantics(s) => semantics = Some(s),
            Qualifier::Flag(Flag::Mmio) => mmio = true,
            _ => {}
        }
    }
    if !matches!(space, None | Some(StateSpace::Global)) {
        return Err(String::new());
    }
    if mmio {
        return Err(".mmio accesses are never cached".into());
    }
    match semantics {
        None | Some(MemorySemantics::Weak) => Ok(()),
        Some(s) => Err(format!(
            "{s} accesses keep their memory-ordering semantics; cache operators do not apply"
        )),
    }
}

fn edit(
    i: &mut Instruction,
    step: &Step,
    line: u32,
    policies: &mut Policies,
) -> Result<Outcome, String> {
    match &mut i.op {
        Op::Ld(ls) => edit_load_store(ls, true, step, line, policies),
        Op::St(ls) => edit_load_store(ls, false, step, line, policies),
        Op::CpAsync(c) => edit_cp_async(c, step, line, policies),
        Op::Prefetch(p) => edit_prefetch(p, step, line),
        _ => Ok(Outcome::NotSelected),
    }
}

fn edit_load_store(
    ls: &mut LoadStore,
    is_load: bool,
    step: &Step,
    line: u32,
    policies: &mut Policies,
) -> Result<Outcome, String> {
    let name = if is_load { "ld" } else { "st" };
    let cur = Hints::read(&ls.qualifiers.written);
    let (new, policy) = match step {
        Step::StripHints => {
            if weak_global(ls).is_err() && cur == Hints::default() {
                return Ok(Outcome::NotSelected);
            }
            (Hints::default(), None)
        }
        Step::Set { selector, hints } => {
            let selected = match selector {
                Selector::Loads => is_load,
                Selector::Stores => !is_load,
                Selector::CpAsync => false,
                Selector::Line(n) => *n == line,
                Selector::All => weak_global(ls).is_ok(),
            };
            if !selected {
                return Ok(Outcome::NotSelected);
            }
            match weak_global(ls) {
                Ok(()) => {}
                Err(why) if matches!(selector, Selector::Line(_)) => {
                    return Err(if why.is_empty() {
                        format!("{name} of a non-global state space takes no cache hints")
                    } else {
                        why
                    })
                }
                Err(why) if why.is_empty() => return Ok(Outcome::NotSelected),
                Err(why) => return Ok(Outcome::Skipped(why)),
            }
            if let Some(op) = hints.cache_op {
                let fits = if is_load {
                    op.is_load_operator()
                } else {
                    op.is_store_operator()
                };
                if !fits {
                    return Err(format!("{name} does not take the cache operator {op}"));
                }
            }
            if !is_load && hints.prefetch.is_some() {
                return Err("st has no prefetch-size qualifier".into());
            }
            let policy = match hints.policy {
                Some(PolicyEdit::Use(p)) => Some(policies.operand(p)),
                _ => None,
            };
            (cur.with(hints), policy)
        }
    };
    if new == cur && policy.is_none() {
        return Ok(Outcome::NotSelected);
    }
    if let Err(why) = fits_load_store(ls, is_load, &new) {
        return match step {
            Step::Set {
                selector: Selector::Line(_),
                ..
            } => Err(why),
            _ => Ok(Outcome::Skipped(why)),
        };
    }
    ls.qualifiers.written = rebuild(&ls.qualifiers.written, &new);
    // The policy operand follows the address (ld) or the value (st).
    let old_policy = ls.operands.get(2).cloned();
    ls.operands.truncate(2);
    if new.cache_hint {
        ls.operands.extend(policy.or(old_policy));
    }
    Ok(Outcome::Changed)
}

/// The ISA's restrictions on hints an `ld`/`st` may take (ptxas rejects the rest):
/// `.level2::eviction_priority` "is supported if `.vec` is `.v8` and `.type` is `.b32` … OR
/// `.vec` is `.v4` and `.type` is `.b64` …" (`ld.global.nc`, `st`); `ld.global{.cop}.nc` takes
/// `.cop = { .ca, .cg, .cs }`.
fn fits_load_store(ls: &LoadStore, is_load: bool, h: &Hints) -> Result<(), String> {
    let mut vec = None;
    let mut ty = None;
    let mut nc = false;
    for q in quals(&ls.qualifiers.written) {
        match q {
            Qualifier::Vector(v) => vec = Some(v),
            Qualifier::Type(t) => ty = Some(t),
            Qualifier::Flag(Flag::Nc) => nc = true,
            _ => {}
        }
    }
    if let Some(p) = h.l2 {
        let bits = ty.map_or(0, |t| t.bits());
        let wide = matches!(
            (vec, bits),
            (Some(ptx_isa::VectorWidth::V8), 32) | (Some(ptx_isa::VectorWidth::V4), 64)
        );
        if !wide {
            let name = if is_load { "ld" } else { "st" };
            return Err(format!(
                "{p} needs a 256-bit {name} (.v8 of 32-bit or .v4 of 64-bit elements, sm_100); \
                 use policy:fraction:1.0:{} for others",
                p.token().trim_start_matches(".L2::")
            ));
        }
    }
    if nc {
        if let Some(op) = h
            .cache_op
            .filter(|c| !matches!(c, CacheOperator::Ca | CacheOperator::Cg | CacheOperator::Cs))
        {
            return Err(format!("ld.global.nc takes .ca, .cg or .cs, not {op}"));
        }
    }
    Ok(())
}

fn edit_cp_async(
    c: &mut CpAsync,
    step: &Step,
    line: u32,
    policies: &mut Policies,
) -> Result<Outcome, String> {
    let cur = Hints::read(&c.qualifiers.written);
    let cp_size = match c.operands.get(2) {
        Some(Operand::Int(v)) => Some(v.value.value),
        _ => None,
    };
    // [dst], [src], cp-size, {src-size | ignore-src}, {policy}
    let has_policy_operand = cur.cache_hint && c.operands.len() > 3;
    let (new, policy) = match step {
        Step::StripHints => (
            Hints {
                cache_op: cur.cache_op,
                ..Hints::default()
            },
            None,
        ),
        Step::Set { selector, hints } => {
            let selected = match selector {
                Selector::CpAsync | Selector::All => true,
                Selector::Line(n) => *n == line,
                Selector::Loads | Selector::Stores => false,
            };
            if !selected {
                return Ok(Outcome::NotSelected);
            }
            if hints.l1.is_some() || hints.l2.is_some() {
                return Err("cp.async has no eviction-priority qualifiers".into());
            }
            if let Some(op) = hints.cache_op {
                if !matches!(op, CacheOperator::Ca | CacheOperator::Cg) {
                    return Err(format!("cp.async takes .ca or .cg, not {op}"));
                }
                if op == CacheOperator::Cg && cp_size != Some(16) {
                    let why = format!(
                        "cp.async.cg copies 16 bytes only; this one copies {}",
                        cp_size.map_or("a non-constant size".into(), |s| format!("{s} bytes"))
                    );
                    return if matches!(selector, Selector::Line(_)) {
                        Err(why)
                    } else {
                        Ok(Outcome::Skipped(why))
                    };
                }
            }
            let mut h = cur;
            if hints.none {
                h = Hints {
                    cache_op: cur.cache_op,
                    ..Hints::default()
                };
            }
            if let Some(op) = hints.cache_op {
                h.cache_op = Some(op);
            }
            if let Some(p) = hints.prefetch {
                h.prefetch = Some(p);
            }
            let policy = match hints.policy {
                Some(PolicyEdit::Use(p)) => {
                    h.cache_hint = true;
                    Some(policies.operand(p))
                }
                Some(PolicyEdit::Remove) => {
                    h.cache_hint = false;
                    None
                }
                None => None,
            };
            (h, policy)
        }
    };
    if new == cur && policy.is_none() {
        return Ok(Outcome::NotSelected);
    }
    c.qualifiers.written = rebuild_cp_async(&c.qualifiers.written, &new);
    let old_policy = if has_policy_operand {
        c.operands.pop()
    } else {
        None
    };
    if new.cache_hint {
        c.operands.extend(policy.or(old_policy));
    }
    Ok(Outcome::Changed)
}

/// `cp.async.{ca,cg}.shared{::cta}.global{.L2::cache_hint}{.L2::NB}`: the operator goes right
/// after `cp.async`, the hint and prefetch size at the end.
fn rebuild_cp_async(written: &[Spanned<Modifier>], h: &Hints) -> Vec<Spanned<Modifier>> {
    let mut out: Vec<Spanned<Modifier>> = Vec::new();
    for m in written {
        match m.value {
            Modifier::Known(q) if is_hint(q) => {}
            _ => out.push(m.clone()),
        }
        if matches!(&m.value, Modifier::Known(Qualifier::Flag(Flag::Async))) {
            if let Some(c) = h.cache_op {
                out.push(known(Qualifier::CacheOp(c)));
            }
        }
    }
    if h.cache_hint {
        out.push(known(Qualifier::Flag(Flag::CacheHint)));
    }
    if let Some(p) = h.prefetch {
        out.push(known(Qualifier::Prefetch(p)));
    }
    out
}

fn edit_prefetch(p: &mut Prefetch, step: &Step, line: u32) -> Result<Outcome, String> {
    let has_priority = quals(&p.qualifiers.written).any(|q| matches!(q, Qualifier::L2(_)));
    let strip = match step {
        Step::StripHints => true,
        Step::Set {
            selector: Selector::Line(n),
            hints,
        } if *n == line => {
            if !hints.none {
                return Err("prefetch takes only `none` here (it removes .L2::evict_*)".into());
            }
            true
        }
        _ => false,
    };
    if !strip || !has_priority {
        return Ok(Outcome::NotSelected);
    }
    // prefetch.global.L2::evict_last → prefetch.global.L2
    for m in &mut p.qualifiers.written {
        if let Modifier::Known(Qualifier::L2(_)) = m.value {
            m.value = Modifier::Known(Qualifier::Level(ptx_isa::CacheLevel::L2));
        }
    }
    Ok(Outcome::Changed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptx_syntax::ast::Function;

    /// A Triton-style kernel (the loads are copied from the corpus's Triton `vadd_evict_last`):
    /// a createpolicy, two hinted loads, an nc load, a volatile load, a store and cp.async forms.
    const K: &str = ".version 8.8
.target sm_100
.address_size 64
.visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1)
{
	.reg .pred %p<3>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<12>;
	.shared .align 16 .b8 sh[64];
	ld.param.u64 %rd1, [k_param_0];
	ld.param.u64 %rd6, [k_param_1];
	setp.ne.s64 %p1, %rd1, 0;
	createpolicy.fractional.L2::evict_last.b64 %rd2, 1.0;
	@%p1 ld.global.L1::evict_last.L2::cache_hint.v4.b32 { %r1, %r2, %r3, %r4 }, [ %rd1 + 0 ], %rd2;
	ld.global.nc.f32 %r5, [%rd1+16];
	ld.volatile.global.u32 %r6, [%rd1+20];
	ld.global.cs.u32 %r7, [%rd1+24];
	ld.global.v4.b64 {%rd7, %rd8, %rd9, %rd10}, [%rd1+64];
	@%p1 st.global.v4.b32 [ %rd6 + 0 ], { %r1, %r2, %r3, %r4 };
	mov.u32 %r8, sh;
	cp.async.ca.shared.global [%r8], [%rd1], 4;
	cp.async.ca.shared.global [%r8+16], [%rd1+16], 16;
	cp.async.cg.shared.global.L2::cache_hint [%r8+32], [%rd1+32], 16, %rd2;
	cp.async.wait_all;
	prefetch.global.L2::evict_last [%rd1];
	ld.shared.u32 %r9, [%r8];
	ret;
}
";

    fn apply_ok(spec: &str) -> Rewritten {
        let r: Rewrite = spec.parse().unwrap();
        apply(K, &r).unwrap_or_else(|e| panic!("{spec}: {e}"))
    }

    fn body(text: &str) -> Vec<(u32, Instruction)> {
        let m = ptx_syntax::parse(text).unwrap();
        let lines = LineIndex::new(text);
        let f: &Function = m.function("k").unwrap();
        f.body
            .as_ref()
            .unwrap()
            .statements
            .iter()
            .filter_map(|s| match s {
                Statement::Instruction(i) => Some((lines.line(i.span.start), i.clone())),
                _ => None,
            })
            .collect()
    }

    fn ls_at(text: &str, line: u32) -> LoadStore {
        body(text)
            .into_iter()
            .find_map(|(l, i)| match i.op {
                Op::Ld(x) | Op::St(x) if l == line => Some(*x),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no ld/st on line {line}"))
    }

    fn cp_at(text: &str, line: u32) -> CpAsync {
        body(text)
            .into_iter()
            .find_map(|(l, i)| match i.op {
                Op::CpAsync(x) if l == line => Some(*x),
                _ => None,
            })
            .unwrap()
    }

    fn line_of(needle: &str) -> u32 {
        K.lines().position(|l| l.contains(needle)).unwrap() as u32 + 1
    }

    /// The typed fields the parser derives agree with what was written, and every line but the
    /// changed ones is byte-identical.
    fn check_shape(out: &Rewritten) {
        assert_eq!(out.text.lines().count(), K.lines().count());
        let changed: BTreeSet<u32> = out.changes.iter().map(|c| c.line).collect();
        for (n, (a, b)) in K.lines().zip(out.text.lines()).enumerate() {
            let n = n as u32 + 1;
            if !changed.contains(&n) && !b.contains(POLICY_REGISTER) {
                assert_eq!(a, b, "line {n} changed but was not reported");
            }
        }
        // Printing the re-parsed module gives the same text as printing the rewritten one:
        // the typed fields and the written list agree.
        let m = ptx_syntax::parse(&out.text).unwrap();
        let again = ptx_syntax::parse(&ptx_syntax::print(&m)).unwrap();
        assert_eq!(m, again);
    }

    #[test]
    fn strip_hints_removes_operators_priorities_and_the_policy_operand() {
        let out = apply_ok("strip-hints");
        check_shape(&out);
        let ld = ls_at(&out.text, line_of("L1::evict_last.L2::cache_hint"));
        assert_eq!(ld.l1_priority, None);
        assert_eq!(ld.cache_hint, None);
        assert_eq!(ld.operands.len(), 2, "policy operand dropped");
        assert!(ld.vector.is_some() && ld.ty.is_some());
        let cs = ls_at(&out.text, line_of("ld.global.cs"));
        assert_eq!(cs.cache_op, None);
        // nc and volatile are not hints.
        assert!(ls_at(&out.text, line_of("ld.global.nc")).nc.is_some());
        assert!(ls_at(&out.text, line_of("ld.volatile")).semantics.is_some());
        // cp.async keeps its mandatory operator, loses the hint and its operand.
        let cp = cp_at(&out.text, line_of("cp.async.cg"));
        assert_eq!(cp.cache_op.map(|c| c.value), Some(CacheOperator::Cg));
        assert_eq!(cp.cache_hint, None);
        assert_eq!(cp.operands.len(), 3);
        assert!(
            out.text.contains("prefetch.global.L2 [%rd1];"),
            "{}",
            out.text
        );
        // Changed: the hinted ld, ld.cs, the hinted cp.async, the prefetch.
        assert_eq!(out.changes.len(), 4, "{:?}", out.changes);
    }

    #[test]
    fn loads_evict_first_is_tritons_l1_priority_plus_l2_policy() {
        let out = apply_ok("loads=evict_first");
        check_shape(&out);
        for needle in [
            "L1::evict_last.L2::cache_hint",
            "ld.global.nc",
            "ld.global.cs",
        ] {
            let ld = ls_at(&out.text, line_of(needle));
            assert_eq!(
                ld.l1_priority.map(|p| p.value),
                Some(L1EvictionPriority::EvictFirst),
                "{needle}"
            );
            assert_eq!(ld.l2_priority, None, ".L2::evict_* needs a 256-bit access");
            assert_eq!(
                ld.cache_op, None,
                "operator and priorities exclude each other"
            );
            assert!(ld.cache_hint.is_some());
            assert_eq!(
                ld.operands[2].as_name().map(|n| n.name.as_str()),
                Some("%ptxsim_policy0")
            );
        }
        assert!(out
            .text
            .contains("createpolicy.fractional.L2::evict_first.b64 %ptxsim_policy0, 0f3F800000;"));
        let nc = ls_at(&out.text, line_of("ld.global.nc"));
        assert!(nc.nc.is_some());
        assert!(out.text.contains(
            "ld.global.nc.L1::evict_first.L2::cache_hint.f32 %r5, [%rd1+16], %ptxsim_policy0;"
        ));
        assert!(ls_at(&out.text, line_of("ld.volatile"))
            .l1_priority
            .is_none());
        assert!(out.skipped.iter().any(|s| s.line == line_of("ld.volatile")));
        assert_eq!(ls_at(&out.text, line_of("st.global")).l1_priority, None);
        assert_eq!(
            ls_at(&out.text, line_of("ld.param.u64 %rd1")).l1_priority,
            None
        );
        assert_eq!(ls_at(&out.text, line_of("ld.shared")).l1_priority, None);
    }

    #[test]
    fn an_l1_priority_keeps_the_policy() {
        let out = apply_ok("loads=.L1::no_allocate");
        let ld = ls_at(&out.text, line_of("L1::evict_last.L2::cache_hint"));
        assert_eq!(
            ld.l1_priority.map(|p| p.value),
            Some(L1EvictionPriority::NoAllocate)
        );
        assert!(ld.cache_hint.is_some());
        assert_eq!(ld.operands.len(), 3);
    }

    #[test]
    fn stores_and_cache_operators() {
        let out = apply_ok("stores=cs+loads=cg");
        check_shape(&out);
        let st = ls_at(&out.text, line_of("st.global"));
        assert_eq!(st.cache_op.map(|c| c.value), Some(CacheOperator::Cs));
        let ld = ls_at(&out.text, line_of("L1::evict_last.L2::cache_hint"));
        assert_eq!(ld.cache_op.map(|c| c.value), Some(CacheOperator::Cg));
        assert_eq!(ld.l1_priority, None);
        assert!(ld.cache_hint.is_some(), "a cache operator keeps the policy");
        // The operator goes before .nc, as the ISA writes ld.global.cg.nc.
        assert!(out.text.contains("ld.global.cg.nc.f32"), "{}", out.text);
    }

    #[test]
    fn one_line() {
        let n = line_of("ld.global.cs");
        let out = apply_ok(&format!("line:{n}=.L1::evict_last"));
        assert_eq!(out.changes.len(), 1);
        assert_eq!(out.changes[0].line, n);
        assert_eq!(out.changes[0].before, "ld.global.cs.u32 %r7, [%rd1+24];");
        let ld = ls_at(&out.text, n);
        assert_eq!(
            ld.l1_priority.map(|p| p.value),
            Some(L1EvictionPriority::EvictLast)
        );
        assert_eq!(ld.cache_op, None);
        // .L2::evict_* only on 256-bit accesses (PTX ISA, ld.global.nc and st).
        let r: Rewrite = format!("line:{n}=.L2::evict_last").parse().unwrap();
        let e = apply(K, &r).unwrap_err().to_string();
        assert!(e.contains("256-bit"), "{e}");
        let wide = line_of("ld.global.v4.b64");
        let out = apply_ok(&format!("line:{wide}=.L2::evict_last"));
        assert_eq!(
            ls_at(&out.text, wide).l2_priority.map(|p| p.value),
            Some(L2EvictionPriority::EvictLast)
        );
        let out = apply_ok("loads=.L2::evict_first");
        assert_eq!(
            out.changes.len(),
            1,
            "only the 256-bit load: {:?}",
            out.changes
        );
        assert!(out.skipped.iter().any(|k| k.reason.contains("256-bit")));
        // ld.global.nc takes .ca, .cg or .cs only.
        let out = apply_ok("loads=cv");
        assert!(ls_at(&out.text, line_of("ld.global.nc")).cache_op.is_none());
        assert!(out
            .skipped
            .iter()
            .any(|k| k.line == line_of("ld.global.nc") && k.reason.contains("ld.global.nc takes")));
        let r: Rewrite = "line:3=cg".parse().unwrap();
        assert!(matches!(
            apply(K, &r),
            Err(RewriteError::Invalid { line: 3, .. })
        ));
        let r: Rewrite = format!("line:{}=.cg", line_of("ld.shared"))
            .parse()
            .unwrap();
        assert!(apply(K, &r).is_err(), "shared loads take no hints");
        let r: Rewrite = format!("line:{}=wt", line_of("ld.global.cs"))
            .parse()
            .unwrap();
        assert!(apply(K, &r).is_err(), ".wt is not a load operator");
    }

    #[test]
    fn cp_async_operator_respects_cp_size() {
        let out = apply_ok("cp.async=cg");
        check_shape(&out);
        let four = cp_at(&out.text, line_of("[%r8], [%rd1], 4"));
        assert_eq!(four.cache_op.map(|c| c.value), Some(CacheOperator::Ca));
        assert!(out
            .skipped
            .iter()
            .any(|s| s.line == line_of("[%r8], [%rd1], 4") && s.reason.contains("16 bytes")));
        let sixteen = cp_at(&out.text, line_of("[%r8+16]"));
        assert_eq!(sixteen.cache_op.map(|c| c.value), Some(CacheOperator::Cg));
        let out = apply_ok("cp.async=ca");
        let hinted = cp_at(&out.text, line_of("cp.async.cg"));
        assert_eq!(hinted.cache_op.map(|c| c.value), Some(CacheOperator::Ca));
        assert!(hinted.cache_hint.is_some());
        assert_eq!(hinted.operands.len(), 4, "policy operand kept");
        let out = apply_ok("cp.async=.L2::128B");
        assert_eq!(
            cp_at(&out.text, line_of("[%r8+16]"))
                .prefetch_size
                .map(|p| p.value),
            Some(PrefetchSize::B128)
        );
    }

    #[test]
    fn fraction_policy_is_created_per_function_and_used_by_every_access() {
        let out = apply_ok("policy=fraction:0.5:evict_last");
        check_shape(&out);
        let open = K.lines().position(|l| l == "{").unwrap();
        let line = out.text.lines().nth(open).unwrap();
        assert_eq!(
            line,
            "{ .reg .b64 %ptxsim_policy0; createpolicy.fractional.L2::evict_last.b64 %ptxsim_policy0, 0f3F000000;"
        );
        for needle in ["L1::evict_last.L2::cache_hint", "ld.global.cs", "st.global"] {
            let x = ls_at(&out.text, line_of(needle));
            assert!(x.cache_hint.is_some(), "{needle}");
            assert_eq!(
                x.operands[2].as_name().map(|n| n.name.as_str()),
                Some("%ptxsim_policy0")
            );
        }
        let kept = ls_at(&out.text, line_of("L1::evict_last.L2::cache_hint"));
        assert!(kept.l1_priority.is_some(), "L1 priority kept");
        let cp = cp_at(&out.text, line_of("[%r8+16]"));
        assert!(cp.cache_hint.is_some());
        assert_eq!(cp.operands.len(), 4);
        let cp = cp_at(&out.text, line_of("cp.async.cg"));
        assert_eq!(cp.operands.len(), 4, "the old policy operand is replaced");
        assert!(ls_at(&out.text, line_of("ld.volatile"))
            .cache_hint
            .is_none());
        // The module still lowers.
        let m = ptx_syntax::parse(&out.text).unwrap();
        ptx_exec::Session::new(&m, &out.text, memsys::GpuConfig::a100()).unwrap();

        let out = apply_ok("policy=none");
        assert!(ls_at(&out.text, line_of("L1::evict_last.L2::cache_hint"))
            .cache_hint
            .is_none());
        assert_eq!(out.changes.len(), 2);
    }

    #[test]
    fn policies_per_selector_get_their_own_registers() {
        let out = apply_ok(
            "cp.async=policy:fraction:1.0:evict_last+stores=policy:fraction:0.5:evict_first:evict_unchanged",
        );
        check_shape(&out);
        let open = K.lines().position(|l| l == "{").unwrap();
        assert_eq!(
            out.text.lines().nth(open).unwrap(),
            "{ .reg .b64 %ptxsim_policy0; createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %ptxsim_policy0, 0f3F000000; \
             .reg .b64 %ptxsim_policy1; createpolicy.fractional.L2::evict_last.b64 %ptxsim_policy1, 0f3F800000;",
            "numbered in the order of first use: the st comes first"
        );
        let cp = cp_at(&out.text, line_of("[%r8], [%rd1], 4"));
        assert_eq!(
            cp.operands
                .last()
                .and_then(|o| o.as_name())
                .map(|n| n.name.as_str()),
            Some("%ptxsim_policy1")
        );
        assert!(cp.cache_hint.is_some());
        let st = ls_at(&out.text, line_of("st.global"));
        assert_eq!(
            st.operands[2].as_name().map(|n| n.name.as_str()),
            Some("%ptxsim_policy0")
        );
        // Loads are untouched: the original policy operand stays.
        let ld = ls_at(&out.text, line_of("L1::evict_last.L2::cache_hint"));
        assert_eq!(
            ld.operands[2].as_name().map(|n| n.name.as_str()),
            Some("%rd2")
        );
        let m = ptx_syntax::parse(&out.text).unwrap();
        ptx_exec::Session::new(&m, &out.text, memsys::GpuConfig::a100()).unwrap();
        // A line-scoped policy removal.
        let n = line_of("L1::evict_last.L2::cache_hint");
        let out = apply_ok(&format!("line:{n}=policy:none"));
        assert_eq!(out.changes.len(), 1);
        assert!(ls_at(&out.text, n).cache_hint.is_none());
        assert_eq!(ls_at(&out.text, n).operands.len(), 2);
    }

    #[test]
    fn every_rewrite_of_the_kernel_lowers() {
        for spec in [
            "strip-hints",
            "loads=evict_last",
            "loads=evict_normal",
            "loads=evict_unchanged",
            "loads=no_allocate",
            "loads=ca",
            "loads=cv",
            "loads=lu",
            "loads=none",
            "stores=wt",
            "stores=wb",
            "stores=evict_first",
            "stores=.L1::no_allocate.L2::evict_last",
            "cp.async=ca",
            "cp.async=none",
            "loads=.L2::256B",
            "policy=fraction:1.0:evict_first:evict_unchanged",
            "strip-hints+policy=fraction:0.25:evict_last:evict_first",
            "loads=policy:fraction:0.75:evict_normal",
        ] {
            let out = apply_ok(spec);
            check_shape(&out);
            let m = ptx_syntax::parse(&out.text).unwrap();
            ptx_exec::Session::new(&m, &out.text, memsys::GpuConfig::a100())
                .unwrap_or_else(|e| panic!("{spec}: {e}"));
        }
    }

    #[test]
    fn a_rewrite_invalid_for_the_target_is_an_error() {
        // createpolicy and .L2::cache_hint need sm_80: on an sm_75 module the checker rejects
        // the inserted policy and the hinted loads.
        let old = K.replace(".target sm_100", ".target sm_75");
        let r: Rewrite = "stores=policy:fraction:0.5:evict_last".parse().unwrap();
        let e = apply(&old, &r).unwrap_err();
        assert!(matches!(e, RewriteError::Invalid { .. }), "{e}");
        assert!(e.to_string().contains("not valid for this module"), "{e}");
        // A rewrite that only touches legal lines still applies.
        apply(&old, &"stores=cs".parse().unwrap()).unwrap();
    }

    #[test]
    fn malformed_specs_are_explained() {
        for (spec, words) in [
            ("", "empty"),
            ("loads", "expected strip-hints"),
            ("loads=wt", "store operator"),
            ("stores=lu", "load operator"),
            ("stores=.L2::128B", "prefetch"),
            ("cp.async=evict_last", "eviction-priority"),
            ("cp.async=cs", ".ca or .cg"),
            ("line:0=cg", "line:N"),
            ("lines=cg", "unknown target"),
            ("loads=.cg.L1::evict_first", "cannot be combined"),
            ("loads=.v4", "not a cache hint"),
            ("loads=.L2::evict_unchanged", "createpolicy"),
            ("loads=fast", "use none"),
            ("policy=fraction:2:evict_last", "(0, 1]"),
            ("policy=fraction:0.5:evict_sometimes", "evict_first"),
            ("policy=fraction:0.5:evict_last:evict_last", "secondary"),
            ("policy=range:1", "fraction:F"),
            ("loads=policy:fraction:0:evict_last", "(0, 1]"),
        ] {
            let e = spec.parse::<Rewrite>().unwrap_err().to_string();
            assert!(e.contains(words), "{spec}: {e}");
        }
    }
}
