//! `createpolicy.fractional/.range/.cvt` (docs/ptxas-rules.md §10, `check_createpolicy` of the
//! rules model).

use super::collect::{Key, Msgs, POLICY_ORDER};
use super::cpasync::space_ok_for_var;
use super::ldst::immediate_address;
use super::symbols::{Scopes, Sym};
use super::words::is;
use super::words::{classify, Word};
use super::{
    address, check_guard, finish, gate_target, gate_version, imm_kind, int_value, unknown_modifier,
    vector_warning, Base, Cx, Imm, Insn, Outcome, Unknowns,
};
use super::{const_issues, scan_vector_placement, Foreign};
use super::{operand_unknowns, stop, unusable_address};
use crate::codes;
use crate::{Diagnostic, Severity};
use ptx_isa::{CacheLevel, Feature, PolicyKind, ScalarType, StateSpace};
use ptx_syntax::ast::{FloatLit, Operand};
use ptx_syntax::Span;

#[derive(Default)]
struct Scan<'a> {
    types: Vec<(Option<ScalarType>, Span)>,
    spaces: Vec<(StateSpace, &'a str, Span)>,
    /// Levels of the levelled priorities (`L1`/`L2`), in order.
    levels: Vec<&'static str>,
    /// Priorities (`evict_last` …), in order.
    prios: Vec<(&'a str, Span)>,
    /// `.L1`/`.L2` words.
    level_words: Vec<(&'a str, Span)>,
    hint: Option<Span>,
    vec: Option<Span>,
    /// Cache operators and prefetch sizes.
    others: Vec<(&'a str, Span)>,
    vec_tail: Option<Span>,
    foreign: Foreign<'a>,
}

fn kind_of(insn: &Insn) -> Option<PolicyKind> {
    // The kind is part of ptxas's instruction token only when written right after the opcode.
    insn.mods
        .first()
        .filter(|_| insn.joined >= 1)
        .and_then(|m| match classify(m.0) {
            Word::Kind(k) => Some(k),
            _ => None,
        })
}

fn scan<'a>(cx: &Cx, insn: &Insn<'a>, m: &mut Msgs) -> Scan<'a> {
    let mut s = Scan::default();
    let rest = if kind_of(insn).is_some() {
        &insn.mods[1..]
    } else {
        insn.mods
    };
    for (i, &(t, span)) in rest.iter().enumerate() {
        let pos = i as i32 * 10;
        let count = |what: &str| {
            insn.err(
                codes::REPEATED_MODIFIER,
                span,
                format!("Unexpected number of '{what}' modifiers specified"),
                "more than two eviction priorities; createpolicy takes a primary and a secondary one".into(),
            )
        };
        match classify(t) {
            Word::Type(ty) => s.types.push((ty, span)),
            Word::Space(sp) => s.spaces.push((sp, t, span)),
            Word::Evict(lvl, _) => {
                if let Some(l) = lvl {
                    s.levels.push(l.name());
                    if s.levels.len() > 2 {
                        m.scan(pos, count(".level::eviction_priority"));
                    }
                }
                s.prios.push((super::words::after_colons(t), span));
                if s.prios.len() > 2 {
                    m.scan(pos, count("cache eviction priority"));
                }
            }
            Word::Level(_) | Word::Tensormap => {
                if !s.level_words.is_empty() {
                    m.scan(pos, insn.second_level(t, span));
                }
                s.level_words.push((t, span));
            }
            Word::Hint => s.hint = Some(span),
            Word::Vec(_) => s.vec = Some(span),
            Word::Cop(_) | Word::Pf(_) => s.others.push((t, span)),
            _ if s.foreign.take(cx, insn, m, pos, t, span) => {}
            _ => m.scan(pos, unknown_modifier(insn, t, span)),
        }
    }
    s.vec_tail = scan_vector_placement(insn, rest, m);
    s
}

/// The scan messages of a statement cut short by a syntax error.
pub(crate) fn scan_messages(cx: &Cx, insn: &Insn) -> Vec<Diagnostic> {
    let mut m = Msgs::new(POLICY_ORDER);
    scan(cx, insn, &mut m);
    m.finish().0
}

/// A float literal rounded to f32, as ptxas range-checks the fraction.
fn f32_value(op: &Operand) -> Option<f32> {
    match op {
        Operand::Float(f) => Some(match &f.value {
            FloatLit::F32Bits(b) => f32::from_bits(*b),
            FloatLit::F64Bits(b) => f64::from_bits(*b) as f32,
            FloatLit::Decimal(t) => t.parse::<f64>().map_or(f32::NAN, |v| v as f32),
        }),
        _ => None,
    }
}

/// `%f` formatting of C (`0.500000`, `-0.000000`, `inf`).
fn c_float(v: f32) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    format!("{:.6}", v as f64)
}

pub(crate) fn check(cx: &Cx, insn: &Insn, scopes: &Scopes) -> Outcome {
    let mut m = Msgs::new(POLICY_ORDER);
    let mut unknown = Unknowns::default();
    check_guard(insn, scopes, &mut m, Some(&mut unknown));
    const_issues(insn, &mut m);
    let s = scan(cx, insn, &mut m);
    operand_unknowns(scopes, insn.ops, &mut unknown);
    let tail = s.vec_tail.map(|sp| vector_warning(insn, sp));
    let head = insn.head();
    let Some(kind) = kind_of(insn) else {
        // A stop with no trailer at all.
        let (mut diags, _) = m.finish();
        diags.push(
            insn.err(
                codes::UNKNOWN_INSTRUCTION,
                Span::new(
                    insn.opcode_span.start,
                    insn.opcode_span.start + insn.opcode.len() as u32,
                ),
                format!("Not a name of any known instruction: '{}'", insn.opcode),
                "createpolicy needs its kind right after the opcode".into(),
            )
            .with_help("write createpolicy.fractional, createpolicy.range or createpolicy.cvt"),
        );
        return Outcome {
            diags,
            ..Outcome::default()
        };
    };
    let op = format!("createpolicy{}", kind.token());
    if let Some(sp) = s.foreign.sync {
        let d = insn.err(
            codes::ILLEGAL_MODIFIER,
            sp,
            format!("Illegal modifier '.sync' for instruction '{op}'"),
            format!("`{op}` takes no `.sync`"),
        );
        return stop(m, d, tail, unknown);
    }
    if let Some(h) = s.hint {
        let d = insn.err(
            codes::ILLEGAL_MODIFIER,
            h,
            format!("Illegal modifier '.L2::cache_hint' for instruction '{op}'"),
            "createpolicy makes a policy; it takes no `.L2::cache_hint`".into(),
        );
        return stop(m, d, tail, unknown);
    }
    if let Some(&(t, span)) = s.others.first() {
        let d = insn.err(
            codes::ILLEGAL_MODIFIER,
            span,
            format!("Illegal modifier '{t}' for instruction '{op}'"),
            format!("`{t}` is not a createpolicy modifier"),
        );
        return stop(m, d, tail, unknown);
    }
    if !(s.types.len() == 1 && s.types[0].0 == Some(ScalarType::B64)) {
        let d = insn
            .err(
                codes::BAD_TYPE,
                s.types.first().map_or(head, |t| t.1),
                format!("Unexpected instruction types specified for '{op}'"),
                "createpolicy makes a 64-bit policy: its type is `.b64`".into(),
            )
            .with_help("write exactly one `.b64`");
        return stop(m, d, tail, unknown);
    }
    let ops = insn.ops;
    if let Some(Operand::Sink(span)) = ops.first() {
        let d = Diagnostic::new(
            Severity::Fatal,
            codes::OPERANDS,
            *span,
            "createpolicy needs a destination register",
            format!("Result discard mode is not allowed for instruction '{op}'"),
        )
        .at_line_of(insn.start);
        return stop(m, d, None, unknown);
    }
    let reg = |o: &Operand| match o {
        Operand::Name(n) => scopes.reg(&n.name),
        _ => None,
    };
    let r64 = |o: &Operand| {
        matches!(
            reg(o),
            Some(ScalarType::B64 | ScalarType::U64 | ScalarType::S64)
        )
    };
    let r32 = |o: &Operand| {
        matches!(
            reg(o),
            Some(ScalarType::B32 | ScalarType::U32 | ScalarType::S32)
        )
    };
    let int_lit = |o: &Operand| imm_kind(o) == Some(Imm::Int);
    let float_lit = |o: &Operand| matches!(imm_kind(o), Some(Imm::F32 | Imm::F64));
    let d_ok = ops.first().is_some_and(|o| r64(o) || int_lit(o));
    let a = if ops.is_empty() { &[][..] } else { &ops[1..] };
    let sig = match kind {
        PolicyKind::Fractional => {
            a.is_empty()
                || (a.len() == 1
                    && (float_lit(&a[0])
                        || matches!(reg(&a[0]), Some(ScalarType::F32 | ScalarType::B32))))
        }
        PolicyKind::Range => {
            a.len() == 3
                && policy_addr(scopes, &a[0]).is_some()
                && a[1..].iter().all(|x| r32(x) || int_lit(x))
        }
        PolicyKind::Cvt => a.len() == 1 && (r64(&a[0]) || int_lit(&a[0])),
    };
    if !(d_ok && sig) {
        let span = ops.first().map_or(head, |o| {
            o.span().to(ops.last().map_or(o.span(), |l| l.span()))
        });
        let d = insn
            .err(
                codes::OPERANDS,
                span,
                format!("Arguments mismatch for instruction '{op}'"),
                format!("the operands do not fit `{op}`"),
            )
            .with_help(match kind {
                PolicyKind::Fractional => "createpolicy.fractional: 64-bit destination{, fraction as an .f32/.b32 register or a float literal}",
                PolicyKind::Range => "createpolicy.range: 64-bit destination, [address], primary size, total size (32-bit registers or integers)",
                PolicyKind::Cvt => "createpolicy.cvt: 64-bit destination, 64-bit access property",
            });
        return stop(m, d, tail, unknown);
    }
    let kind_feature = match kind {
        PolicyKind::Fractional => Feature::PolicyFractional,
        PolicyKind::Range => Feature::PolicyRange,
        PolicyKind::Cvt => Feature::PolicyCvt,
    };
    if let Some(d) = gate_target(cx, insn.start, kind_feature, "", &op, head) {
        m.add(Key::PolKindTgt, d);
    }
    if let Some(d) = gate_version(cx, insn.start, kind_feature, "", &op, head) {
        m.add(Key::PolKindVer, d);
    }
    policy_sizes_and_space(insn, &s, kind, &op, a, &mut m);
    policy_priorities(cx, insn, &s, kind, &op, a, &mut m);
    policy_range_address(insn, scopes, &s, kind, &op, a, &mut m);
    if let Some(v) = s.vec {
        m.add(
            Key::PolVector,
            insn.err(
                codes::BAD_TYPE,
                v,
                format!("Vector qualifier is not allowed for instruction '{op}'"),
                "createpolicy takes no vector modifier".into(),
            ),
        );
    }
    if int_lit(&ops[0]) {
        m.add(
            Key::PolResultReg,
            insn.err(
                codes::OPERANDS,
                ops[0].span(),
                format!("Result register required for instruction '{op}'"),
                "the destination must be a 64-bit register".into(),
            ),
        );
    }
    s.foreign.report(insn, &op, &mut m, Key::PolForeign);
    finish(m, unknown, tail)
}

/// The range sizes (the primary part at most the total) and the state space: `.global` alone
/// for `createpolicy.range`, none for the others.
fn policy_sizes_and_space(
    insn: &Insn,
    s: &Scan,
    kind: PolicyKind,
    op: &str,
    a: &[Operand],
    m: &mut Msgs,
) {
    if kind == PolicyKind::Range {
        if let (Some(p), Some(t)) = (int_value(&a[1]), int_value(&a[2])) {
            let (p32, t32) = (
                (p as u64 & 0xFFFF_FFFF) as u32,
                (t as u64 & 0xFFFF_FFFF) as u32,
            );
            if p32 > t32 {
                m.add(
                    Key::PolArgCompare,
                    insn.err(
                        codes::OUT_OF_RANGE,
                        a[1].span(),
                        format!(
                            "Argument 3 of instruction '{op}': value '{}' must be less than or equal to the value '{}' of argument 4",
                            p32 as i32, t32 as i32
                        ),
                        format!("the primary size {} is larger than the total size {}", p32, t32),
                    )
                    .with_help("the primary size is a part of the total size"),
                );
            }
        }
        if s.spaces.len() > 1 {
            m.add(
                Key::PolSpace,
                insn.err(
                    codes::BAD_SPACE,
                    s.spaces[1].2,
                    format!("Unexpected number of state spaces specified in instruction '{op}'"),
                    "write at most one state space (.global)".into(),
                ),
            );
        } else if let Some(&(sp, t, span)) = s.spaces.first() {
            if sp != StateSpace::Global {
                m.add(
                    Key::PolSpace,
                    insn.err(
                        codes::BAD_SPACE,
                        span,
                        format!("State space incorrect for instruction '{op}'"),
                        format!(
                            "createpolicy.range covers .global (or generic) addresses, not `{t}`"
                        ),
                    ),
                );
            }
        }
    } else if let Some(&(_, t, span)) = s.spaces.first() {
        m.add(
            Key::PolNoSpace,
            insn.err(
                codes::BAD_SPACE,
                span,
                format!("No state space qualifier expected for instruction '{op}'"),
                format!("`{op}` takes no state space (`{t}`)"),
            ),
        );
    }
}

/// The eviction-priority stage: `createpolicy.cvt` takes none and needs `.L2`; the others
/// need a primary priority with its level, and take a secondary one only where the kind does.
fn policy_priorities(
    cx: &Cx,
    insn: &Insn,
    s: &Scan,
    kind: PolicyKind,
    op: &str,
    a: &[Operand],
    m: &mut Msgs,
) {
    let head = insn.head();
    let evict_span = s.prios.first().map_or(head, |p| p.1);
    if kind == PolicyKind::Cvt {
        if let Some(&(_, span)) = s.level_words.iter().find(|w| is(w.0, CacheLevel::L1)) {
            m.add(
                Key::PolCvtL1,
                insn.err(
                    codes::ILLEGAL_MODIFIER,
                    span,
                    "Illegal modifier '.L1' for instruction 'createpolicy.cvt'".into(),
                    "createpolicy.cvt converts L2 access properties".into(),
                )
                .with_help("write createpolicy.cvt.L2.b64"),
            );
        } else if s.level_words.is_empty() && s.levels.is_empty() {
            m.add(
                Key::PolLevelRequired,
                insn.err(
                    codes::MISSING_MODIFIER,
                    head,
                    ".L2 modifier required for instruction 'createpolicy.cvt'".into(),
                    "createpolicy.cvt needs `.L2`".into(),
                )
                .with_help("write createpolicy.cvt.L2.b64"),
            );
        }
        if let Some(&(p, span)) = s.prios.first() {
            m.add(
                Key::PolCvtEvict,
                insn.err(
                    codes::ILLEGAL_MODIFIER,
                    span,
                    "Illegal modifier '.level::eviction_priority' for instruction 'createpolicy.cvt'".into(),
                    "createpolicy.cvt takes no eviction priority".into(),
                ),
            );
            m.add(
                Key::PolCvtEvict,
                insn.err(
                    codes::ILLEGAL_MODIFIER,
                    span,
                    format!("Illegal modifier '.{p}' for instruction 'createpolicy.cvt'"),
                    format!("`.{p}` is not a createpolicy.cvt modifier"),
                ),
            );
        }
    } else {
        if s.prios.is_empty() {
            m.add(
                Key::PolLevelRequired,
                insn.err(
                    codes::MISSING_MODIFIER,
                    head,
                    format!("cache eviction priority modifier required for instruction '{op}'"),
                    "a policy needs a primary eviction priority".into(),
                )
                .with_help("add e.g. .L2::evict_last"),
            );
        }
        if s.levels.is_empty() && s.level_words.is_empty() {
            m.add(
                Key::PolLevelRequired,
                insn.err(
                    codes::MISSING_MODIFIER,
                    head,
                    format!(".L2 modifier required for instruction '{op}'"),
                    "the eviction priorities must be written with `.L2::`".into(),
                )
                .with_help("write .L2::evict_last (not .evict_last)"),
            );
        }
        if kind == PolicyKind::Fractional {
            if let Some(v) = a.first().and_then(f32_value) {
                if !(v > 0.0 && v <= 1.0) {
                    m.add(
                        Key::PolArgRange,
                        insn.err(
                            codes::OUT_OF_RANGE,
                            a[0].span(),
                            format!(
                                "Argument 2 of instruction '{op}': value '{}' out of range, expected to be in range (0.000000 .. 1.000000]",
                                c_float(v)
                            ),
                            format!("the fraction {} is not in (0, 1]", c_float(v)),
                        ),
                    );
                }
            }
        }
        if let Some(&("no_allocate", span)) = s.prios.first() {
            m.add(
                Key::PolPrimary,
                insn.err(
                    codes::BAD_PRIORITY,
                    span,
                    format!("Unsupported modifier '.no_allocate' as primary_priority for instruction '{op}'"),
                    "`.no_allocate` cannot be the primary priority".into(),
                )
                .with_help("primary: .L2::evict_last, .L2::evict_normal, .L2::evict_first or .L2::evict_unchanged"),
            );
        }
        if let Some(&(p, span)) = s.prios.get(1) {
            if !matches!(p, "evict_first" | "evict_unchanged") {
                m.add(
                    Key::PolSecondary,
                    insn.err(
                        codes::BAD_PRIORITY,
                        span,
                        format!("Unsupported modifier '.{p}' as secondary_priority for instruction '{op}'"),
                        format!("`.{p}` cannot be the secondary priority"),
                    )
                    .with_help("secondary: .L2::evict_first or .L2::evict_unchanged"),
                );
            }
        }
        let n = s.prios.len().min(2);
        // A level word (`.L2`, `.L1`, `.tensormap`) stands in for the level of priorities
        // written without one (docs/ptxas-rules.md §10).
        let word_level = s.level_words.last().map(|w| w.0.trim_start_matches('.'));
        let level_at = |i: usize| s.levels.get(i).copied().or(word_level);
        if let Some(&(w, span)) = s.level_words.last().filter(|w| !is(w.0, CacheLevel::L2)) {
            m.add(
                Key::PolIllegalLevel,
                insn.err(
                    codes::ILLEGAL_MODIFIER,
                    span,
                    format!("Illegal modifier '{w}' for instruction '{op}'"),
                    format!("`{w}` is not a level of {op}"),
                ),
            );
        }
        if (0..n).any(|i| level_at(i) != Some("L2")) {
            m.add(
                Key::PolNeedL2,
                insn.err(
                    codes::MISSING_MODIFIER,
                    evict_span,
                    format!("Modifier 'cache eviction priority' requires cache level L2 with '{op}' instruction"),
                    "createpolicy's priorities are L2 priorities".into(),
                )
                .with_help("write them as .L2::evict_…"),
            );
        }
        for &(p, span) in s.prios.iter().take(2) {
            if let Some(d) = gate_version(cx, insn.start, Feature::PolicyPriority, p, op, span) {
                m.add(Key::PolPriorityGate, d);
            }
            if let Some(d) = gate_target(cx, insn.start, Feature::PolicyPriority, p, op, span) {
                m.add(Key::PolPriorityGate, d);
            }
        }
        if let Some(&(w, span)) = s.level_words.last().filter(|_| !s.levels.is_empty()) {
            m.add(
                Key::PolLevelWithPriority,
                insn.err(
                    codes::ILLEGAL_MODIFIER,
                    span,
                    format!("Illegal modifier '{w}' for instruction '{op}' with '.level::eviction_priority'"),
                    format!("`{w}` next to `.L2::…` priorities: the level is part of each priority"),
                )
                .with_help("drop the separate level word"),
            );
        }
        if s.levels.len().min(2) != n {
            m.add(
                Key::PolSyntax,
                insn.err(
                    codes::EVICTION_SYNTAX,
                    evict_span,
                    format!("'.level::eviction_priority' syntax expected for instruction '{op}'"),
                    "an eviction priority without its cache level".into(),
                )
                .with_help("write .L2::evict_…"),
            );
        }
    }
}

/// `createpolicy.range`'s address: usable, in a space its variable allows, not an immediate,
/// not a float or predicate register.
fn policy_range_address(
    insn: &Insn,
    scopes: &Scopes,
    s: &Scan,
    kind: PolicyKind,
    op: &str,
    a: &[Operand],
    m: &mut Msgs,
) {
    if kind == PolicyKind::Range {
        if let Some(addr) = policy_addr(scopes, &a[0]) {
            let unusable = unusable_address(insn, op, scopes, addr.base);
            let resolved = unusable.is_empty();
            for d in unusable {
                m.add(Key::PolAddr, d);
            }
            match addr.base {
                _ if !resolved => {}
                Base::Imm => m.add(Key::PolAddr, immediate_address(insn, addr.span)),
                Base::Var(name, nspan) => {
                    let vk = match scopes.lookup(name) {
                        Some(Sym::Var(v)) => Some(v.kind),
                        _ => None,
                    };
                    let sp = s.spaces.first().map(|x| x.0);
                    if !space_ok_for_var(sp, vk) {
                        m.add(
                            Key::PolAddr,
                            super::ldst::space_mismatch(insn, op, nspan, name, sp),
                        );
                    }
                }
                Base::Reg(r, rspan) => {
                    if let Some(rt @ (ScalarType::F32 | ScalarType::F64 | ScalarType::Pred)) =
                        scopes.reg(r)
                    {
                        m.add(
                            Key::PolAddr,
                            super::ldst::bad_address_symbol(insn, r, rspan, rt.token()),
                        );
                    }
                }
            }
        }
    }
}

/// An address operand without `.unified`.
fn policy_addr<'o>(scopes: &Scopes, o: &'o Operand) -> Option<super::Addr<'o>> {
    match o {
        Operand::Address(a) if !a.unified => address(scopes, o),
        _ => None,
    }
}
