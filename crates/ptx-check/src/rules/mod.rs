//! Validation rules for the cache-control instructions, ported from the executable rule
//! catalog (`tests/parity/rules_model.py`, `docs/ptxas-rules.md`).
//!
//! [`check_module`] walks the module in source order, keeping a symbol table of every
//! function's scopes (`symbols`), and hands each `ld`/`st`/`cp.async…`/`createpolicy`/
//! `prefetch` instruction to its family's rules. Each family emits its messages under the
//! ordering keys of `collect`, so the result comes out in ptxas's order; the module-level
//! findings (`.version`/`.target`, deferred `Unknown symbol`s at the end of each function, the
//! driver's address-width messages) are placed where ptxas prints them.

mod collect;
mod cpasync;
mod gates;
mod group;
mod ldst;
mod opcodes;
mod policy;
mod prefetch;
mod priority;
mod streaming;
mod symbols;
mod words;

use crate::codes;
use crate::{CheckOptions, Diagnostic, Severity};
use collect::{Key, Msgs};
use ptx_isa::{
    Feature, GateOrder, PtxVersion, ScalarType, SmTarget, StateSpace, TypeKind, VarType,
};
use ptx_syntax::ast::{
    FloatLit, Function, FunctionKind, Guard, Instruction, Item, Module, Op, Operand, Statement,
    VarDecl,
};
use ptx_syntax::{ParseError, Span};
use smallvec::SmallVec;
pub use streaming::check_streaming;
use symbols::{ModuleScope, Scopes, Sym, VarKind};

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
    pub opcode: &'a str,
    pub opcode_span: Span,
    /// On the stack for up to 8 modifiers (an instruction's usual count).
    pub mods: SmallVec<[(&'a str, Span); 8]>,
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
    let (mut diags, fatal) = m.finish();
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

// ------------------------------------------------------------------------------------------
// Feature gates (the rows of ptx_isa::features)

/// `Feature 'x'` / `Modifier 'x' on 'op'` → `` `x` `` / `` `x` on `op` `` for our wording.
fn plain_subject(subject: &str) -> String {
    subject
        .trim_start_matches("Feature ")
        .trim_start_matches("Modifier ")
        .trim_start_matches("Instruction ")
        .replace('\'', "`")
}

/// The target message of a gate, if the target is too low.
pub(crate) fn gate_target(
    cx: &Cx,
    insn_start: u32,
    f: Feature,
    m: &str,
    op: &str,
    span: Span,
) -> Option<Diagnostic> {
    let row = f.requirement();
    let min = row.min_sm?;
    if cx.sm >= min {
        return None;
    }
    let ptxas = row.target_message(m, op)?;
    let subject = plain_subject(&ptx_isa::features::fill(row.target_subject, m, op));
    Some(
        Diagnostic::error(
            codes::TARGET_TOO_OLD,
            span,
            format!(
                "{subject} needs sm_{min} or newer; the module targets sm_{}",
                cx.sm
            ),
            ptxas,
        )
        .with_help(format!(
            "use `.target sm_{min}` or a later target ({})",
            row.summary
        ))
        .at_line_of(insn_start),
    )
}

/// The version message of a gate, if the PTX version is too low.
pub(crate) fn gate_version(
    cx: &Cx,
    insn_start: u32,
    f: Feature,
    m: &str,
    op: &str,
    span: Span,
) -> Option<Diagnostic> {
    let row = f.requirement();
    let min = row.min_ptx?;
    if cx.version >= min {
        return None;
    }
    let ptxas = row.version_message(m, op)?;
    let subject = plain_subject(&ptx_isa::features::fill(row.version_subject, m, op));
    Some(
        Diagnostic::error(
            codes::VERSION_TOO_OLD,
            span,
            format!(
                "{subject} needs PTX ISA {min} or later; the module is PTX {}",
                cx.version
            ),
            ptxas,
        )
        .with_help(format!("use `.version {min}` or later ({})", row.summary))
        .at_line_of(insn_start),
    )
}

/// Both messages of a gate, in the row's order, under their keys.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gate(
    msgs: &mut Msgs,
    cx: &Cx,
    insn: &Insn,
    f: Feature,
    tgt_key: Key,
    ver_key: Key,
    m: &str,
    op: &str,
    span: Span,
) {
    let t = gate_target(cx, insn.start, f, m, op, span);
    let v = gate_version(cx, insn.start, f, m, op, span);
    match f.requirement().order {
        GateOrder::TargetFirst => {
            if let Some(d) = t {
                msgs.add(tgt_key, d);
            }
            if let Some(d) = v {
                msgs.add(ver_key, d);
            }
        }
        GateOrder::VersionFirst => {
            if let Some(d) = v {
                msgs.add(ver_key, d);
            }
            if let Some(d) = t {
                msgs.add(tgt_key, d);
            }
        }
    }
}

/// Both messages of a gate as a list, in the row's order.
pub(crate) fn gate_list(
    cx: &Cx,
    insn_start: u32,
    f: Feature,
    m: &str,
    op: &str,
    span: Span,
) -> Vec<Diagnostic> {
    let t = gate_target(cx, insn_start, f, m, op, span);
    let v = gate_version(cx, insn_start, f, m, op, span);
    match f.requirement().order {
        GateOrder::TargetFirst => t.into_iter().chain(v).collect(),
        GateOrder::VersionFirst => v.into_iter().chain(t).collect(),
    }
}

// ------------------------------------------------------------------------------------------
// Operands

/// The kind of an immediate, as ptxas's operand matching sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Imm {
    Int,
    /// `0f…`
    F32,
    /// `0d…` or a decimal float.
    F64,
}

pub(crate) fn imm_kind(op: &Operand) -> Option<Imm> {
    match op {
        Operand::Int(_) => Some(Imm::Int),
        Operand::Float(f) => Some(match f.value {
            FloatLit::F32Bits(_) => Imm::F32,
            _ => Imm::F64,
        }),
        _ => None,
    }
}

/// Register width as the operand rules count it (a predicate has none).
pub(crate) fn width(t: ScalarType) -> u32 {
    if t == ScalarType::Pred {
        0
    } else {
        t.bits()
    }
}

/// docs/ptxas-rules.md §7.1: may a register of type `r` be the data operand of type `t`?
pub(crate) fn reg_ok_for_type(t: ScalarType, r: ScalarType) -> bool {
    let (tk, rk) = (t.kind(), r.kind());
    if rk == TypeKind::Predicate {
        return false;
    }
    let (tb, rb) = (width(t), width(r));
    match tk {
        TypeKind::Bits => rb >= tb,
        TypeKind::Unsigned | TypeKind::Signed => {
            matches!(rk, TypeKind::Bits | TypeKind::Unsigned | TypeKind::Signed) && rb >= tb
        }
        _ => (rk == TypeKind::Float && rb == tb) || (rk == TypeKind::Bits && rb >= tb),
    }
}

/// §7.2: may an immediate of kind `k` stand for a value of type `t`?
pub(crate) fn imm_ok_for_type(t: ScalarType, k: Imm) -> bool {
    match k {
        Imm::Int => matches!(
            t.kind(),
            TypeKind::Bits | TypeKind::Unsigned | TypeKind::Signed
        ),
        _ if t.kind() == TypeKind::Float => true,
        Imm::F32 => t.kind() == TypeKind::Bits && t.bits() == 32,
        Imm::F64 => t.kind() == TypeKind::Bits && t.bits() == 64,
    }
}

/// The integer value of an integer-literal operand.
pub(crate) fn int_value(op: &Operand) -> Option<i128> {
    match op {
        Operand::Int(i) => Some(i.value.value),
        _ => None,
    }
}

/// What an address operand's base is.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Base<'a> {
    /// `[%rd1]`, `[%rd1+8]` — a name that is a register or looks like one (`%…`).
    Reg(&'a str, Span),
    /// `[gbuf]`, `[gbuf+8]`, or the `gbuf` of `gbuf[8]`.
    Var(&'a str, Span),
    /// `[64]`.
    Imm,
}

/// A bracketed address (or `var[imm]`), classified.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Addr<'a> {
    pub base: Base<'a>,
    pub unified: bool,
    /// `var[imm]` (ptxas's array form).
    pub array: bool,
    pub span: Span,
}

pub(crate) fn address<'a>(scopes: &Scopes, op: &'a Operand) -> Option<Addr<'a>> {
    match op {
        Operand::Address(a) => {
            let base = match &a.base {
                None => Base::Imm,
                Some(n) => {
                    if matches!(scopes.lookup(&n.name), Some(Sym::Reg(_)))
                        || (n.name.starts_with('%') && scopes.lookup(&n.name).is_none())
                    {
                        Base::Reg(&n.name, n.span)
                    } else {
                        Base::Var(&n.name, n.span)
                    }
                }
            };
            Some(Addr {
                base,
                unified: a.unified,
                array: false,
                span: a.span,
            })
        }
        Operand::Indexed(n, index, span) if !n.name.starts_with('%') => match &**index {
            Operand::Address(a) if a.base.is_none() => Some(Addr {
                base: Base::Var(&n.name, n.span),
                unified: a.unified,
                array: true,
                span: *span,
            }),
            _ => None,
        },
        _ => None,
    }
}

// ------------------------------------------------------------------------------------------
// The module walk

struct Checker<'a> {
    text: &'a str,
    options: &'a CheckOptions,
    diags: Vec<Diagnostic>,
    /// A fatal message with a line stopped the walk.
    line_fatal: bool,
    /// `.version`/`.target` mismatch, printed after every statement message.
    mismatch: Option<Diagnostic>,
    call_sequence: Option<Diagnostic>,
    /// (bits, instruction start) of each narrow address.
    narrow: Vec<(u32, u32)>,
    sm: u32,
    /// The full target (`sm_90a`), for the architecture-specific gates.
    target: SmTarget,
    version: PtxVersion,
    /// The `.address_size` value (None: not written).
    address_size: Option<u32>,
    /// `.target …, debug`.
    debug: bool,
    /// The names of the module's `.section .debug_*` sections.
    debug_sections: Vec<String>,
    /// End of the last statement seen before a syntax error.
    last_end: u32,
    /// Where a syntax error stops the walk.
    stop: Option<u32>,
    /// The gate rows of each opcode met so far that fail on this target and version (made
    /// at the first instruction that needs them, once `directives` has set both).
    gates: Option<gates::GateIndex>,
    /// The statement of the syntax error has been scanned.
    partial_done: bool,
}

impl<'a> Checker<'a> {
    fn new(text: &'a str, options: &'a CheckOptions) -> Self {
        Checker {
            text,
            options,
            diags: Vec::new(),
            line_fatal: false,
            mismatch: None,
            call_sequence: None,
            narrow: Vec::new(),
            sm: 0,
            target: SmTarget::new(0),
            version: PtxVersion::new(0, 0),
            address_size: None,
            debug: false,
            debug_sections: Vec::new(),
            last_end: 0,
            stop: None,
            partial_done: false,
            gates: None,
        }
    }

    fn fatal(&mut self, d: Diagnostic) {
        self.diags.push(d);
        self.line_fatal = true;
    }

    /// `.version` and `.target`: the values to check against, or a fatal finding
    /// (docs/ptxas-rules.md §2, §2.5). ptxas wants `.version` first, then `.target` (one or
    /// more directives; the last architecture named counts), then optionally
    /// `.address_size`; a header directive anywhere later is a syntax error (see
    /// [`misplaced_directive`]).
    fn directives(&mut self, items: &[Item]) -> bool {
        let missing = |what: &str, span: Span| {
            let mut d = Diagnostic::new(
                Severity::Fatal,
                codes::MISSING_DIRECTIVE,
                span,
                format!("the module does not start with `{what}`"),
                format!("Missing {what} directive at start of file '«file»'"),
            )
            .with_help("start the file with `.version X.Y`, then `.target sm_XX`");
            if items.is_empty() {
                d.ptxas_line = crate::PtxasLine::None;
            }
            d
        };
        let end_span = Span::new(self.text.len() as u32, self.text.len() as u32);
        // `.version` first
        let version_item = match items.first() {
            Some(Item::Version(v)) => Some(*v),
            other if self.options.ptx_version.is_none() => {
                // ptxas notices the missing `.version` after a leading `.target` only at the
                // next statement (it reads on for more target names).
                let at = match other {
                    Some(Item::Target(_)) => items.get(1),
                    o => o,
                };
                let span = at.map(item_span).unwrap_or(end_span);
                self.fatal(missing(".version", span));
                return false;
            }
            _ => None,
        };
        let version = match (self.options.ptx_version, version_item) {
            (Some(v), _) => (v, v.to_string(), version_item.map(|v| v.span)),
            (None, Some(v)) => (
                v.value.normalized(),
                self.src(v.span)
                    .trim_start_matches(".version")
                    .trim()
                    .to_string(),
                Some(v.span),
            ),
            (None, None) => unreachable!("checked above"),
        };
        if !version.0.is_supported() {
            let span = version.2.unwrap_or_default();
            let line = if version.2.is_some() {
                crate::PtxasLine::Span
            } else {
                crate::PtxasLine::None
            };
            let mut d = Diagnostic::new(
                Severity::Fatal,
                codes::UNSUPPORTED_VERSION,
                span,
                format!(
                    "PTX ISA {} does not exist or is newer than ptxas 13.5 knows",
                    version.1
                ),
                format!(
                    "Unsupported .version {}; current version is '{}'",
                    version.1,
                    PtxVersion::NEWEST
                ),
            )
            .with_help("ptxas 13.5 accepts 6.0–6.5, 7.0–7.8, 8.0–8.8 and 9.0–9.5");
            d.ptxas_line = line;
            self.fatal(d);
            return false;
        }
        // then one or more `.target` directives
        let first_target = usize::from(version_item.is_some());
        let targets: Vec<&ptx_syntax::ast::TargetDirective> = items
            [first_target.min(items.len())..]
            .iter()
            .map_while(|it| match it {
                Item::Target(t) => Some(t),
                _ => None,
            })
            .collect();
        let header_end = first_target + targets.len();
        if targets.is_empty() && self.options.target.is_none() {
            let span = items.get(first_target).map(item_span).unwrap_or(end_span);
            self.fatal(missing(".target", span));
            return false;
        }
        // the entries: architectures (the last one counts) and options
        let mut arch: Option<(SmTarget, String, Span)> = None;
        // The newest `.version` any named architecture needs (ptxas checks all of them and
        // names the last one).
        let mut needs_version: Option<PtxVersion> = None;
        // The first entry must name the architecture.
        let arch_first = targets
            .first()
            .and_then(|t| t.entries.first())
            .is_none_or(|e| {
                !matches!(
                    e.value.as_str(),
                    "texmode_unified" | "texmode_independent" | "debug" | "map_f64_to_f32"
                )
            });
        for t in targets.iter().filter(|_| arch_first) {
            for e in &t.entries {
                let text = e.value.as_str();
                match text {
                    "texmode_unified" | "texmode_independent" => {}
                    "debug" => self.debug = true,
                    "map_f64_to_f32" => self.diags.push(
                        Diagnostic::error(
                            codes::UNKNOWN_TARGET,
                            e.span,
                            "`map_f64_to_f32` is for targets below sm_13",
                            "Directive map_f64_to_f32 is not supported with SM 1.3 or higher",
                        )
                        .with_help("remove `map_f64_to_f32` from `.target`")
                        .at_line_of(t.span.start),
                    ),
                    _ => match SmTarget::parse(text) {
                        Ok(a) if a.min_version().is_some() => {
                            arch = Some((a, text.to_string(), t.span));
                            needs_version = needs_version.max(a.min_version());
                        }
                        _ => {
                            self.fatal(
                                Diagnostic::new(
                                    Severity::Fatal,
                                    codes::UNKNOWN_TARGET,
                                    e.span,
                                    format!("`{text}` is not a target ptxas 13.5 knows"),
                                    format!("Unsupported .target '{text}'"),
                                )
                                .with_help("targets run from sm_50 to sm_121f; the options are texmode_unified, texmode_independent, debug and map_f64_to_f32 (see docs/features.md)")
                                .at_line_of(t.span.start),
                            );
                            return false;
                        }
                    },
                }
            }
        }
        let (target, target_text, target_span) = match (self.options.target, arch) {
            (Some(t), written) => (t, t.to_string(), written.map(|w| w.2)),
            (None, Some((a, text, span))) => (a, text, Some(span)),
            (None, None) => {
                let span = targets.last().map_or(end_span, |t| t.span);
                self.fatal(
                    Diagnostic::new(
                        Severity::Fatal,
                        codes::MISSING_DIRECTIVE,
                        span,
                        "`.target` names no architecture",
                        "Target architecture not defined at start of file '«file»'",
                    )
                    .with_help("name the target first: `.target sm_80, texmode_independent`"),
                );
                return false;
            }
        };
        let Some(min_version) = target.min_version() else {
            let mut d = Diagnostic::new(
                Severity::Fatal,
                codes::UNKNOWN_TARGET,
                target_span.unwrap_or_default(),
                format!("`{target_text}` is not a target ptxas 13.5 knows"),
                format!("Unsupported .target '{target_text}'"),
            )
            .with_help("targets run from sm_50 to sm_121f; see docs/features.md");
            if target_span.is_none() {
                d.ptxas_line = crate::PtxasLine::None;
            }
            self.fatal(d);
            return false;
        };
        self.sm = target.number;
        self.target = target;
        self.version = version.0;
        let min_version = if self.options.target.is_some() {
            min_version
        } else {
            needs_version.map_or(min_version, |v| v.max(min_version))
        };
        if version.0 < min_version {
            let span = target_span.unwrap_or_default();
            let mut d = Diagnostic::error(
                codes::VERSION_TARGET,
                span,
                format!(
                    "{target_text} needs PTX ISA {min_version} or later; the module is PTX {}",
                    version.1
                ),
                format!(
                    "PTX .version {} does not support .target {target_text}",
                    version.1
                ),
            )
            .with_help(format!(
                "use `.version {min_version}` or later, or an older target"
            ));
            if target_span.is_none() {
                d.ptxas_line = crate::PtxasLine::None;
            }
            self.mismatch = Some(d);
        }
        // then optionally `.address_size` (32 or 64, as any integer literal)
        if let Some(Item::AddressSize(a)) = items.get(header_end) {
            let text = self
                .src(a.span)
                .trim_start_matches(".address_size")
                .trim()
                .to_string();
            match int_literal_value(&text) {
                Some(32) => self.address_size = Some(32),
                Some(64) => self.address_size = Some(64),
                _ => {
                    self.address_size = Some(64);
                    self.diags.push(
                        Diagnostic::error(
                            codes::BAD_ADDRESS_SIZE,
                            a.span,
                            format!("`.address_size {text}`: the address size is 32 or 64"),
                            "Illegal value for .address_size directive (must be 32 or 64)",
                        )
                        .with_help("write `.address_size 64`"),
                    );
                }
            }
        }
        true
    }

    /// Records a `.section .debug_*` (ptxas looks for them once the whole module is read).
    fn note_debug_section(&mut self, item: &Item) {
        if let Item::Section(sec) = item {
            if sec.name.value.starts_with(".debug_") {
                self.debug_sections.push(sec.name.value.to_string());
            }
        }
    }

    fn src(&self, span: Span) -> &str {
        self.text.get(span.range()).unwrap_or("")
    }

    /// Walks the module, up to the syntax error at `self.stop` if there is one. Returns
    /// false if a fatal finding stopped it first.
    fn run(&mut self, module: &Module) -> bool {
        if !self.directives(&module.items) {
            return false;
        }
        for item in &module.items {
            self.note_debug_section(item);
        }
        let stop = self.stop;
        let mut names = ModuleScope::new();
        for item in &module.items {
            let span = item_span(item);
            if stop.is_some_and(|s| span.start >= s) {
                return true;
            }
            if !self.item(item, &mut names) {
                return !self.line_fatal;
            }
            if stop.is_some_and(|s| span.end <= s) {
                self.last_end = self.last_end.max(span.end);
            }
        }
        true
    }

    /// Declares a top-level item and checks it if it is a function with a body; false if the
    /// walk must stop.
    fn item(&mut self, item: &Item, names: &mut ModuleScope) -> bool {
        names.declare_item(item);
        if let Item::Function(f) = item {
            if let Some(body) = &f.body {
                let mut scopes = Scopes::new(names);
                return self.function(f, body, &mut scopes);
            }
        }
        true
    }

    /// Checks one function body; false if the walk must stop.
    fn function<'f>(
        &mut self,
        f: &'f Function,
        body: &'f ptx_syntax::ast::Block,
        scopes: &mut Scopes<'f>,
    ) -> bool {
        scopes.enter_function(
            f.returns.as_deref(),
            f.params.as_deref(),
            f.kind.value == FunctionKind::Entry,
        );
        let mut state = FnState {
            kernel: f.kind.value == FunctionKind::Entry,
            returned: Vec::new(),
            unknown: Vec::new(),
        };
        let ok = self.block(&body.statements, body.span, scopes, &mut state);
        if ok {
            self.diags.append(&mut state.unknown);
        }
        ok
    }

    fn block<'f>(
        &mut self,
        stmts: &'f [Statement],
        block_span: Span,
        scopes: &mut Scopes<'f>,
        state: &mut FnState,
    ) -> bool {
        let stop = self.stop;
        for s in stmts {
            let span = statement_span(s);
            if stop.is_some_and(|st| span.start >= st) {
                self.partial_statement(Some(scopes));
                return false;
            }
            match s {
                Statement::Var(v) => {
                    scopes.declare(v);
                    state.returned.resize(scopes.local_params as usize, false);
                    self.declaration(v);
                }
                Statement::Block(b) => {
                    scopes.push();
                    let ok = self.block(&b.statements, b.span, scopes, state);
                    scopes.pop();
                    if !ok {
                        return false;
                    }
                }
                Statement::Instruction(i) if !self.instruction(i, scopes, state) => {
                    return false;
                }
                Statement::Pragma(p)
                    if p.strings.iter().any(|x| x.starts_with("used_bytes_mask"))
                        && ptx_isa::insn_gates::gate_version(self.version)
                            < PtxVersion::new(8, 3) =>
                {
                    // measured: `.pragma "used_bytes_mask …"` (Triton) needs PTX 8.3
                    self.diags.push(
                        Diagnostic::error(
                            codes::VERSION_TOO_OLD,
                            p.span,
                            format!("`used_bytes_mask` needs PTX ISA 8.3 or later; the module is PTX {}", self.version),
                            "Feature 'used_bytes_mask' requires PTX ISA .version 8.3 or later",
                        )
                        .with_help("use `.version 8.3` or later, or drop the pragma"),
                    );
                }
                Statement::Loc(l) if l.inlined_at.is_some() => {
                    let cx = self.cx(&[], true);
                    let list = gate_list(&cx, l.span.start, Feature::LocInlinedAt, "", "", l.span);
                    self.diags.extend(list);
                }
                _ => {}
            }
            if stop.is_some_and(|st| span.end <= st) {
                self.last_end = self.last_end.max(span.end);
            }
        }
        if stop.is_some_and(|st| st < block_span.end) {
            // The syntax error is in this block, after its last statement.
            self.partial_statement(Some(scopes));
            return false;
        }
        true
    }

    /// `.reg .b128` and `.reg .f16x2` declarations.
    fn declaration(&mut self, v: &VarDecl) {
        if v.space.value != StateSpace::Reg {
            return;
        }
        let f = match v.ty.value {
            VarType::Scalar(ScalarType::B128) => Feature::RegB128,
            VarType::Scalar(ScalarType::F16x2) => Feature::RegF16x2,
            _ => return,
        };
        let cx = self.cx(&[], true);
        let list = gate_list(&cx, v.span.start, f, "", "", v.ty.span);
        self.diags.extend(list);
    }

    fn cx<'b>(&'b self, returned: &'b [bool], kernel: bool) -> Cx<'b> {
        Cx {
            text: self.text,
            sm: self.sm,
            version: self.version,
            in_kernel: kernel,
            returned,
        }
    }

    /// Checks one instruction; false if a fatal finding stops the walk.
    fn instruction<'f>(
        &mut self,
        i: &'f Instruction,
        scopes: &Scopes<'f>,
        state: &mut FnState,
    ) -> bool {
        if let Op::Generic(g) = &i.op {
            // Known instructions other than the cache-control ones: only their target and
            // version gates are checked.
            let op = g.opcode.value.as_str();
            if op == "call" {
                call(&g.operands, scopes, state);
                return true;
            }
            let known = if op != "cp" && !is_priority(op) {
                self.gate_index().known(op)
            } else {
                None
            };
            if known.is_some() {
                self.insn_gates(i, op, known, &g.modifiers, scopes);
                if let Some(Operand::Sink(span)) = g.operands.first() {
                    let mods: gates::Words = g.modifiers.iter().map(|m| m.value.as_str()).collect();
                    if !sink_result_allowed(op, &mods) {
                        let name = discard_name(op, &mods);
                        self.fatal(
                            Diagnostic::new(
                                Severity::Fatal,
                                codes::OPERANDS,
                                *span,
                                format!("`{name}` must write its result somewhere"),
                                format!(
                                    "Result discard mode is not allowed for instruction '{name}'"
                                ),
                            )
                            .with_help("write a register; only setp, lop3, atom and mbarrier.arrive take `_` as the result")
                            .at_line_of(i.opcode_span.start.min(i.span.start)),
                        );
                        return false;
                    }
                }
                return true;
            }
        }
        let (opcode, mods): (&str, SmallVec<[(&str, Span); 8]>) = match &i.op {
            Op::Generic(g) => (
                &g.opcode.value,
                g.modifiers
                    .iter()
                    .map(|m| (m.value.as_str(), m.span))
                    .collect(),
            ),
            op => {
                let q = op.qualifiers().expect("typed instructions have qualifiers");
                let opcode = match op {
                    Op::Ld(_) => "ld",
                    Op::St(_) => "st",
                    Op::CreatePolicy(_) => "createpolicy",
                    Op::Prefetch(p) if p.uniform => "prefetchu",
                    Op::Prefetch(_) => "prefetch",
                    _ => "cp",
                };
                (
                    opcode,
                    q.written.iter().map(|m| (m.value.text(), m.span)).collect(),
                )
            }
        };
        let opcode_end = i.opcode_span.start + opcode.len() as u32;
        let joined = joined_count(opcode_end, &mods);
        if gate_only(opcode, &mods) {
            let known = self.gate_index().known(opcode);
            self.insn_gates(i, opcode, known, &mods, scopes);
            return true;
        }
        let family = family(opcode, &mods, joined);
        let Some(family) = family else {
            return true;
        };
        let opcode_span = Span::new(
            i.opcode_span.start,
            i.opcode_span.start + opcode.len() as u32,
        );
        let insn = Insn {
            guard: i.guard.as_ref(),
            opcode,
            opcode_span: i.opcode_span,
            mods,
            ops: i.op.operands(),
            const_issues: &i.const_issues,
            joined,
            start: opcode_span.start.min(i.span.start),
        };
        let cx = self.cx(&state.returned, state.kernel);
        let out = match family {
            Family::LdSt => ldst::check(&cx, &insn, scopes),
            Family::CpAsync => cpasync::check(&cx, &insn, scopes),
            Family::Group => group::check_group(&cx, &insn, scopes),
            Family::Mbarrier => group::check_mbarrier(&cx, &insn, scopes),
            Family::Policy => policy::check(&cx, &insn, scopes),
            Family::Prefetch => prefetch::check(&cx, &insn, scopes),
            Family::Priority => priority::check(&cx, &insn, scopes),
        };
        self.diags.extend(out.diags);
        if out.fatal {
            self.line_fatal = true;
            return false;
        }
        state.unknown.extend(out.unknown);
        if let Some(bits) = out.narrow_address {
            self.narrow.push((bits, insn.start));
        }
        if self.call_sequence.is_none() {
            self.call_sequence = out.call_sequence;
        }
        true
    }

    /// The statement a syntax error sits in: ptxas has already scanned its modifiers (and
    /// read its guard) when it stops.
    fn partial_statement(&mut self, scopes: Option<&Scopes>) {
        if self.partial_done {
            return;
        }
        self.partial_done = true;
        let Some(error_at) = self.stop else {
            return;
        };
        let start = self.last_end as usize;
        let end = (error_at as usize).min(self.text.len());
        if start >= end || !self.text.is_char_boundary(start) || !self.text.is_char_boundary(end) {
            return;
        }
        let region = &self.text[start..end];
        let tokens = ptx_syntax::lexer::lex(region);
        // The statement begins after the last `;` (or block brace, or label) before the error;
        // braces inside the statement are vector operands.
        use ptx_syntax::lexer::Tok as T;
        let mut begin = 0;
        for (i, t) in tokens.iter().enumerate() {
            match t.kind {
                T::Semi => begin = i + 1,
                T::LBrace | T::RBrace if i == begin => begin = i + 1,
                T::Colon if i == begin + 1 && tokens[begin].kind == T::Ident => begin = i + 1,
                // A label's span ends before its `:`.
                T::Colon if i == begin => begin = i + 1,
                _ => {}
            }
        }
        let toks = &tokens[begin..];
        let at = |k: usize| toks.get(k);
        use ptx_syntax::lexer::Tok;
        let mut k = 0;
        let mut guard_name = None;
        if at(k).is_some_and(|t| t.kind == Tok::At) {
            k += 1;
            if at(k).is_some_and(|t| t.kind == Tok::Bang) {
                k += 1;
            }
            match at(k) {
                Some(t) if t.kind == Tok::Ident => {
                    guard_name = Some((t.text, t.span()));
                    k += 1;
                }
                _ => return,
            }
        }
        let Some(op) = at(k).filter(|t| t.kind == Tok::Ident) else {
            return;
        };
        k += 1;
        let shift = |s: Span| Span::new(s.start + start as u32, s.end + start as u32);
        let mut mods = SmallVec::new();
        while let Some(t) = at(k).filter(|t| t.kind == Tok::Dot) {
            mods.push((t.text, shift(t.span())));
            k += 1;
        }
        // The error is at an empty modifier (`ld.global.b32. …`, `a..b`) if a lone `.` is next.
        let empty_modifier = self.text[end..].starts_with('.') && at(k).is_none();
        let joined = joined_count(shift(op.span()).end, &mods);
        let Some(family) = family(op.text, &mods, joined) else {
            return;
        };
        let insn = Insn {
            guard: None,
            opcode: op.text,
            opcode_span: shift(op.span()),
            mods,
            ops: &[],
            const_issues: &[],
            joined,
            start: shift(op.span()).start,
        };
        if let Some((g, span)) = guard_name {
            if scopes.and_then(|s| s.reg(g)) != Some(ScalarType::Pred) {
                self.diags.push(predicate_expected(&insn, shift(span)));
            }
        }
        let cx = self.cx(&[], true);
        let scan = match family {
            Family::LdSt => ldst::scan_messages(&cx, &insn, empty_modifier),
            Family::CpAsync | Family::Policy | Family::Prefetch | Family::Priority
                if empty_modifier =>
            {
                unknown_modifiers(&insn)
            }
            Family::CpAsync => cpasync::scan_messages(&cx, &insn),
            Family::Policy => policy::scan_messages(&cx, &insn),
            Family::Prefetch => prefetch::scan_messages(&cx, &insn),
            Family::Priority => priority::scan_messages(&cx, &insn),
            Family::Group | Family::Mbarrier => Vec::new(),
        };
        self.diags.extend(scan);
    }

    fn finish(mut self) -> Vec<Diagnostic> {
        if !self.line_fatal && self.debug && self.debug_sections.is_empty() {
            self.diags.push(
                Diagnostic::error(
                    codes::MISSING_DIRECTIVE,
                    Span::default(),
                    "`.target …, debug` needs the DWARF sections (`.section .debug_info` …) nvcc -G writes",
                    "Debug information not found in presence of .target debug",
                )
                .with_help("remove `debug` from `.target`, or compile with -G to get the debug sections")
                .without_line(),
            );
        }
        if let Some(m) = self.mismatch.take() {
            self.diags.push(m);
        }
        if self.line_fatal || self.diags.iter().any(|d| d.severity.is_error()) {
            return self.diags;
        }
        let driver_warning = |text: String| {
            Diagnostic::warning(
                codes::NARROW_ADDRESS,
                Span::default(),
                "the module's addresses do not match 64-bit compilation",
                text,
            )
            .with_help("write `.address_size 64` and use 64-bit registers for generic and .global addresses")
            .without_line()
        };
        if self.debug && self.address_size == Some(32) {
            self.diags.push(
                Diagnostic::new(
                    Severity::Fatal,
                    codes::ADDRESS_32BIT,
                    Span::default(),
                    "debug compilation needs 32-bit host addressing for `.address_size 32`",
                    " 64 Bit host architecture (--machine) being used must match with .address_size of 32 bits for -g compilation",
                )
                .with_help("write `.address_size 64`")
                .without_line(),
            );
            return self.diags;
        }
        if self.debug {
            let has = |n: &str| self.debug_sections.iter().any(|s| s == n);
            let (abbrev, info) = (has(".debug_abbrev"), has(".debug_info"));
            let mut extra = Vec::new();
            if !abbrev {
                extra.push(driver_warning(" .debug_abbrev section not found".into()));
            }
            if !info {
                extra.push(driver_warning(" .debug_info section not found".into()));
            } else if !abbrev {
                let mut d = driver_warning(
                    "skipping .debug_info section due to missing .debug_abbrev section".into(),
                );
                d.severity = Severity::Info;
                extra.push(d);
            }
            self.diags.extend(extra);
        }
        // Built only when a narrow-address warning needs a line number (a pass over the whole
        // text, ~1.5 % of checking a large module).
        let index = std::cell::OnceCell::new();
        let fatal32 = |sm: u32| {
            let ptxas = if sm >= 90 {
                " 32-Bit ABI (--machine 32 or 32-Bit addressing) is not supported on sm_90 or higher architectures."
            } else {
                " 32-Bit compilation is no longer supported"
            };
            Diagnostic::new(
                Severity::Fatal,
                codes::ADDRESS_32BIT,
                Span::default(),
                "a 32-bit generic or .global address makes ptxas compile for 32-bit addressing, which it no longer supports",
                ptxas,
            )
            .with_help("use 64-bit registers for generic and .global addresses")
            .without_line()
        };
        let narrow_warning = |bits: u32, at: u32, size: u32| {
            let line = index
                .get_or_init(|| ptx_syntax::LineIndex::new(self.text))
                .line(at);
            Diagnostic::warning(
                codes::NARROW_ADDRESS,
                Span::new(at, at),
                format!("this address is a {bits}-bit register but the module uses {size}-bit addresses"),
                format!("Program uses {bits}-bit address on line '{line}' which is conflicting with .address_size {size}"),
            )
            .with_help("use a 64-bit register for generic and .global addresses (cvt.u64 first)")
            .without_line()
        };
        match self.address_size {
            Some(32) => {
                for &(bits, at) in &self.narrow {
                    if bits == 16 {
                        self.diags.push(narrow_warning(bits, at, 32));
                    }
                }
                self.diags.push(driver_warning(
                    " 64 Bit host architecture (--machine) being used mismatches with .address_size of 32 bits".into(),
                ));
                self.diags.push(fatal32(self.sm));
                return self.diags;
            }
            Some(_) => {
                for &(bits, at) in &self.narrow {
                    self.diags.push(narrow_warning(bits, at, 64));
                }
                let has32 = self.narrow.iter().any(|&(b, _)| b == 32);
                let has16 = self.narrow.iter().any(|&(b, _)| b == 16);
                if has32 && !has16 {
                    let at = self
                        .narrow
                        .iter()
                        .find(|&&(b, _)| b == 32)
                        .map_or(0, |&(_, a)| a);
                    let mut d = fatal32(self.sm);
                    d.span = Span::new(at, at);
                    self.diags.push(d);
                    return self.diags;
                }
            }
            None => {
                // No `.address_size`: the narrowest address register sets it.
                if let Some(bits) = self.narrow.iter().map(|&(b, _)| b).min() {
                    self.diags.push(driver_warning(format!(
                        " 64 Bit host architecture (--machine) being used mismatches with .address_size of {bits} bits"
                    )));
                    if bits == 32 {
                        self.diags.push(fatal32(self.sm));
                        return self.diags;
                    }
                }
            }
        }
        // The call-sequence check runs after the address-width one.
        if let Some(d) = self.call_sequence.take() {
            self.diags.push(d);
        }
        self.diags
    }
}

/// The value of an integer literal as ptxas reads directive arguments (C syntax: `0x…`,
/// `0b…`, a leading `0` for octal, an optional `U`).
fn int_literal_value(text: &str) -> Option<u64> {
    let t = text.strip_suffix('U').unwrap_or(text);
    let (digits, radix) = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        (h, 16)
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        (b, 2)
    } else if t.len() > 1 && t.starts_with('0') {
        (&t[1..], 8)
    } else {
        (t, 10)
    };
    u64::from_str_radix(digits, radix).ok()
}

/// A `.version`, `.target` or `.address_size` directive after the header (`.version`,
/// `.target`…, `.address_size`): ptxas's grammar has no place for it, so it is a syntax error
/// there (`Parsing error near '.version 7.0'`, `near '.target'`).
pub fn misplaced_directive(module: &Module) -> Option<ptx_syntax::ParseError> {
    let items = &module.items;
    let mut k = 0;
    if matches!(items.first(), Some(Item::Version(_))) {
        k = 1;
    }
    while matches!(items.get(k), Some(Item::Target(_))) {
        k += 1;
    }
    if matches!(items.get(k), Some(Item::AddressSize(_))) {
        k += 1;
    }
    items[k.min(items.len())..].iter().find_map(|it| {
        let (span, what) = match it {
            Item::Version(v) => (v.span, ".version"),
            Item::Target(t) => (Span::new(t.span.start, t.span.start + 7), ".target"),
            Item::AddressSize(a) => (Span::new(a.span.start, a.span.start + 13), ".address_size"),
            _ => return None,
        };
        Some(ptx_syntax::ParseError {
            span,
            message: format!("`{what}` belongs at the start of the module (`.version`, `.target`, `.address_size`)"),
            help: Some("write each header directive once, before everything else".into()),
            ptxas: None,
        })
    })
}

/// Per-function state of the walk.
struct FnState {
    kernel: bool,
    /// Per body `.param`: returned by a `call` already?
    returned: Vec<bool>,
    /// Deferred `Unknown symbol` messages.
    unknown: Vec<Diagnostic>,
}

/// `call (ret), f, (args)`: marks the returned body parameters.
fn call(ops: &[Operand], scopes: &Scopes, state: &mut FnState) {
    if let Some(Operand::List(rets, _)) = ops.first() {
        for r in rets {
            if let Operand::Name(n) = r {
                if let Some(Sym::Var(v)) = scopes.lookup(&n.name) {
                    if let VarKind::LocalParam(id) = v.kind {
                        if let Some(slot) = state.returned.get_mut(id as usize) {
                            *slot = true;
                        }
                    }
                }
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    LdSt,
    CpAsync,
    Group,
    Mbarrier,
    Policy,
    Prefetch,
    /// `applypriority`, `discard`.
    Priority,
}

/// Instructions that take `_` as their result (§20.5, measured): `setp`, `lop3`, `atom` and
/// the `mbarrier.arrive` forms; any other instruction with a result stops with `Result discard
/// mode is not allowed`.
fn sink_result_allowed(op: &str, mods: &[&str]) -> bool {
    match op {
        "setp" | "lop3" | "atom" => true,
        "mbarrier" => matches!(mods.first(), Some(&(".arrive" | ".arrive_drop"))),
        _ => false,
    }
}

/// The instruction name ptxas gives in `Result discard mode` (§20.5): the opcode, with the
/// modifier that names the operation where ptxas treats it as part of the name.
fn discard_name(op: &str, mods: &[&str]) -> String {
    let first = mods.first().copied().unwrap_or("");
    match op {
        "mul" | "mad" => match mods.iter().find(|m| matches!(**m, ".wide" | ".lo" | ".hi")) {
            Some(m) => format!("{op}{m}"),
            None => op.to_string(),
        },
        "cvta" if mods.contains(&".to") => "cvta.to".to_string(),
        "bar" | "barrier" if mods.contains(&".red") => format!("{op}.red"),
        "mbarrier" if mods.get(1) == Some(&".parity") => format!("{op}{first}.parity"),
        "mbarrier" | "multimem" | "tcgen05" | "tensormap" | "clusterlaunchcontrol" => {
            format!("{op}{first}")
        }
        _ => op.to_string(),
    }
}

/// `applypriority` and `discard`: validated like prefetch (§20.2), not only gated.
fn is_priority(op: &str) -> bool {
    matches!(op, "applypriority" | "discard")
}

/// Which rules an opcode goes to; `None` for known instructions that are not validated.
/// How many of `mods` follow `opcode_end` and each other without a gap.
fn joined_count(opcode_end: u32, mods: &[(&str, Span)]) -> usize {
    let mut end = opcode_end;
    mods.iter()
        .take_while(|m| {
            let ok = m.1.start == end;
            end = m.1.end;
            ok
        })
        .count()
}

/// Instructions that share an opcode with a cache-control family but are checked only for
/// their target and version gates: `cp.async.bulk…` copies (not the bulk group
/// instructions), `cp.reduce.async.bulk…`, `st.async`, `st.bulk`.
fn gate_only(opcode: &str, mods: &[(&str, Span)]) -> bool {
    let word = |k: usize| mods.get(k).map(|m| m.0);
    match opcode {
        "cp" => {
            word(0) == Some(".reduce")
                || (word(0) == Some(".async")
                    && word(1) == Some(".bulk")
                    && !matches!(word(2), Some(".commit_group" | ".wait_group")))
        }
        "st" => mods.iter().any(|m| matches!(m.0, ".async" | ".bulk")),
        _ => false,
    }
}

fn family(opcode: &str, mods: &[(&str, Span)], joined: usize) -> Option<Family> {
    Some(match opcode {
        "ld" | "st" => Family::LdSt,
        "cp" => {
            if mods.first().is_some_and(|m| m.0 == ".async") && joined >= 1 {
                match mods
                    .get(1)
                    .map(|m| m.0)
                    .filter(|w| joined >= 2 || *w == ".mbarrier")
                {
                    Some(
                        ".commit_group" | ".commit_groups" | ".wait_group" | ".wait_all" | ".bulk"
                        | ".wait" | ".commit",
                    ) => Family::Group,
                    // `cp.async.mbarrier` is the arrive instruction only with `.arrive`
                    // right after it (or the malformed `.wait`); otherwise ptxas reads a
                    // cp.async copy with a `.mbarrier` modifier (§20.6).
                    Some(".mbarrier")
                        if (mods.get(2).is_some_and(|m| m.0 == ".arrive") && joined >= 3)
                            || mods.get(2).is_some_and(|m| m.0 == ".wait") =>
                    {
                        Family::Mbarrier
                    }
                    Some(".mbarrier") => Family::CpAsync,
                    _ => Family::CpAsync,
                }
            } else {
                Family::CpAsync
            }
        }
        "createpolicy" => Family::Policy,
        "prefetch" | "prefetchu" => Family::Prefetch,
        "applypriority" | "discard" => Family::Priority,
        _ if opcodes::is_known(opcode) => return None,
        // Unknown opcodes: ptxas scans their modifiers like ld/st's, then names them unknown.
        _ => Family::LdSt,
    })
}

use ptx_syntax::stream::item_span;

fn statement_span(s: &Statement) -> Span {
    match s {
        Statement::Var(v) => v.span,
        Statement::Label(l) => l.span,
        Statement::Instruction(i) => i.span,
        Statement::Block(b) => b.span,
        Statement::Loc(l) => l.span,
        Statement::Pragma(p) => p.span,
        Statement::CallPrototype { span, .. } => *span,
    }
}

/// `Predicate expression expected` for a guard that is not a predicate register.
pub(crate) fn predicate_expected(insn: &Insn, span: Span) -> Diagnostic {
    insn.err(
        codes::PREDICATE_EXPECTED,
        span,
        "Predicate expression expected".into(),
        "the guard is not a `.pred` register".into(),
    )
    .with_help("guard with a predicate: `@%p1` or `@!%p1` (set it with setp)")
}

/// Every undeclared name among the operands, in operand order (ptxas reports them even when
/// the instruction stops early): `%`-names, address bases, names inside vectors.
pub(crate) fn operand_unknowns(scopes: &Scopes, ops: &[Operand], unknown: &mut Unknowns) {
    for o in ops {
        match o {
            Operand::Name(n) if n.name.starts_with('%') && scopes.lookup(&n.name).is_none() => {
                unknown.add(&n.name, n.span);
            }
            Operand::Not(inner, _) => {
                operand_unknowns(scopes, std::slice::from_ref(&**inner), unknown)
            }
            Operand::Address(a) => {
                if let Some(b) = &a.base {
                    if scopes.lookup(&b.name).is_none() {
                        unknown.add(&b.name, b.span);
                    }
                }
            }
            _ => {}
        }
    }
}

/// An address base that names nothing usable (cp.async, createpolicy, prefetch, mbarrier):
/// `Illegal operand type to instruction '«op»'`, after `Illegal to use symbol '«f»' of type
/// unexpected …` for a function. Empty if the base is a declared register or variable.
pub(crate) fn unusable_address(
    insn: &Insn,
    op: &str,
    scopes: &Scopes,
    base: Base,
) -> Vec<Diagnostic> {
    match base {
        Base::Reg(r, span) if scopes.reg(r).is_none() => {
            vec![ldst::illegal_operand_type(insn, op, span)]
        }
        Base::Var(n, span) => match scopes.lookup(n) {
            None => vec![ldst::illegal_operand_type(insn, op, span)],
            Some(Sym::Func) => vec![
                ldst::bad_address_symbol(insn, n, span, "unexpected"),
                ldst::illegal_operand_type(insn, op, span),
            ],
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// `Integer constant expression expected` / `Constant expression type mismatch`: ptxas
/// reports them while reading the operands, after the modifier scan and before every other
/// check of the instruction.
pub(crate) fn const_issues(insn: &Insn, m: &mut Msgs) {
    for issue in insn.const_issues {
        m.operand_parse(insn.err(
            codes::CONST_EXPR,
            issue.span(),
            issue.ptxas().to_string(),
            match issue {
                ptx_syntax::consteval::ConstIssue::NotInteger(_) => {
                    "an address offset must be an integer constant expression".to_string()
                }
                ptx_syntax::consteval::ConstIssue::TypeMismatch(_) => {
                    "this operator combines an integer and a floating-point constant".to_string()
                }
            },
        ));
    }
}

/// Checks a guard: `Predicate expression expected` first if it is not a predicate.
pub(crate) fn check_guard(
    insn: &Insn,
    scopes: &Scopes,
    m: &mut Msgs,
    unknown: Option<&mut Unknowns>,
) {
    if let Some(g) = insn.guard {
        let ty = scopes.reg(&g.predicate.name);
        if ty != Some(ScalarType::Pred) {
            m.first(predicate_expected(insn, g.predicate.span));
            if ty.is_none() {
                if let Some(u) = unknown {
                    u.add(&g.predicate.name, g.predicate.span);
                }
            }
        }
    }
}

/// Modifiers of other instructions that ptxas knows and reports as illegal on prefetch and
/// createpolicy (docs/ptxas-rules.md §10, §11): memory semantics, scopes, `.mmio`, `.nc`,
/// `.aligned`, `.noinc`, `.async` (with its own gate in the scan) and `.sync` (which stops the
/// instruction).
#[derive(Default)]
pub(crate) struct Foreign<'a> {
    words: Vec<(&'a str, Span)>,
    pub sync: Option<Span>,
}

impl<'a> Foreign<'a> {
    /// Takes `t` if it is one of these modifiers (adding the scan-stage gate of `.async`).
    pub fn take(
        &mut self,
        cx: &Cx,
        insn: &Insn,
        m: &mut Msgs,
        pos: i32,
        t: &'a str,
        span: Span,
    ) -> bool {
        match (t, words::classify(t)) {
            (".sync", _) => self.sync = Some(span),
            (".async", _) => {
                for d in gate_list(
                    cx,
                    insn.start,
                    Feature::AsyncModifier,
                    "",
                    insn.opcode,
                    span,
                ) {
                    m.scan(pos, d);
                }
                self.words.push((t, span));
            }
            (".aligned" | ".noinc", _)
            | (
                _,
                words::Word::Sem(_) | words::Word::Scope(_) | words::Word::Mmio | words::Word::Nc,
            ) => self.words.push((t, span)),
            _ => return false,
        }
        true
    }

    /// The `Illegal modifier` messages, in ptxas's order (a scope is reported before and
    /// after the memory semantics, `.async` twice).
    pub fn report(&self, insn: &Insn, name: &str, m: &mut Msgs, key: collect::Key) {
        let illegal = |t: &str, span: Span| {
            insn.err(
                codes::ILLEGAL_MODIFIER,
                span,
                format!("Illegal modifier '{t}' for instruction '{name}'"),
                format!("`{name}` takes no `{t}`"),
            )
        };
        let rank = |t: &str| match (t, words::classify(t)) {
            (".aligned", _) => 0,
            (".noinc", _) => 1,
            (_, words::Word::Scope(_)) => 2,
            (_, words::Word::Sem(_)) => 3,
            (_, words::Word::Mmio) => 4,
            (_, words::Word::Nc) => 6,
            _ => 7,
        };
        for &(t, span) in &self.words {
            let r = rank(t);
            m.add_sub(key, r, illegal(t, span));
            if r == 2 {
                m.add_sub(key, 5, illegal(t, span));
            }
            if t == ".async" {
                m.add_sub(key, 7, illegal(t, span));
            }
        }
    }
}

/// `Unknown modifier` for each modifier no family knows (a scan cut short by a syntax error).
fn unknown_modifiers(insn: &Insn) -> Vec<Diagnostic> {
    insn.mods
        .iter()
        .filter(|(t, _)| {
            matches!(words::classify(t), words::Word::Unknown)
                && !matches!(
                    *t,
                    ".async" | ".sync" | ".noinc" | ".fractional" | ".range" | ".cvt"
                )
        })
        .map(|&(t, span)| unknown_modifier(insn, t, span))
        .collect()
}

pub(crate) fn unknown_modifier(insn: &Insn, t: &str, span: Span) -> Diagnostic {
    insn.err(
        codes::UNKNOWN_MODIFIER,
        span,
        format!("Unknown modifier '{t}'"),
        format!("`{t}` is not a modifier of `{}`", insn.opcode),
    )
}

/// The vector-type warning (`.v4` not followed by the type).
/// Where a `.v2`/`.v4` stands among `mods` (the modifier words a scan walks): a vector word not
/// followed by a type or another vector word gets [`vector_warning`] (at scan position
/// `(index + 1) * 10 + 5`); a vector word that ends the list is returned, for the caller to
/// report where its order puts that case.
pub(crate) fn scan_vector_placement(
    insn: &Insn,
    mods: &[(&str, Span)],
    m: &mut collect::Msgs,
) -> Option<Span> {
    let mut tail = None;
    for (i, &(t, span)) in mods.iter().enumerate() {
        if !matches!(words::classify(t), words::Word::Vec(2 | 4)) {
            continue;
        }
        match mods.get(i + 1) {
            None => tail = Some(span),
            Some(&(next, _)) => {
                if !matches!(
                    words::classify(next),
                    words::Word::Type(_) | words::Word::Vec(2 | 4)
                ) {
                    m.scan((i as i32 + 1) * 10 + 5, vector_warning(insn, span));
                }
            }
        }
    }
    tail
}

pub(crate) fn vector_warning(insn: &Insn, span: Span) -> Diagnostic {
    Diagnostic::warning(
        codes::VECTOR_TYPE_ORDER,
        span,
        "the vector modifier is not followed by the element type",
        "Vector Type not specified properly",
    )
    .with_help("write the type right after the vector width, e.g. `.v4.b32`")
    .at_line_of(insn.start)
}
