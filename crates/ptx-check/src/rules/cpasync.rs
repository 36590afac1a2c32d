//! `cp.async.ca/.cg` copies (docs/ptxas-rules.md §8, `check_cpasync` of the rules model).

use super::collect::{Key, Msgs, CPA_ORDER};
use super::const_issues;
use super::ldst::{bad_address_symbol, immediate_address, space_mismatch};
use super::symbols::{Scopes, Sym, VarKind};
use super::words::{classify, Word};
use super::words::{is, is_any};
use super::{
    address, check_guard, finish, gate, gate_list, gate_target, imm_kind, int_value,
    unknown_modifier, vector_warning, Base, Cx, Insn, Outcome, Unknowns,
};
use super::{operand_unknowns, unusable_address};
use crate::codes;
use crate::Diagnostic;
use ptx_isa::{
    CacheOperator, Feature, Flag, Modifier, PrefetchSize, Qualifier, ScalarType, StateSpace,
};
use ptx_syntax::ast::Operand;
use ptx_syntax::Span;

const OP: &str = "cp.async";

#[derive(Default)]
struct Scan<'a> {
    spaces: Vec<(StateSpace, &'a str, Span)>,
    cop: Option<(CacheOperator, &'a str, Span)>,
    types: usize,
    hint: Option<Span>,
    pf: Option<(&'a str, Span)>,
    vec: Option<Span>,
    evs: Vec<(&'a str, Span)>,
    sync: Option<Span>,
    /// Known modifiers cp.async does not take (§8.1): memory semantics, scopes, `.mmio`,
    /// `.nc`, `.noinc`, `.aligned`, `.async`, `.read`, cache levels.
    sem: Option<(&'a str, Span)>,
    scope: Option<(&'a str, Span)>,
    mmio: Option<Span>,
    flags: Vec<(&'a str, Span)>,
    level: Option<(&'a str, Span)>,
    vec_tail: Option<Span>,
    /// `.mbarrier` not followed by `.arrive` (§20.6): a known word, silently taken.
    mbarrier: Option<Span>,
}

fn scan<'a>(cx: &Cx, insn: &Insn<'a>, m: &mut Msgs, is_async: bool) -> Scan<'a> {
    let mut s = Scan::default();
    let rest = if is_async { &insn.mods[1..] } else { insn.mods };
    let mut last_vec = None;
    for (i, &(t, span)) in rest.iter().enumerate() {
        let pos = i as i32 * 10;
        let repeated = |what: &str| {
            insn.err(
                codes::REPEATED_MODIFIER,
                span,
                format!("Multiple {what} modifiers specified"),
                format!("`{t}` repeats a modifier cp.async takes once"),
            )
        };
        match classify(t) {
            Word::Space(sp) => s.spaces.push((sp, t, span)),
            Word::Cop(c) => {
                if s.cop.is_some() {
                    m.scan(pos, repeated("cache operation"));
                }
                s.cop = Some((c, t, span));
            }
            Word::Hint => {
                if s.hint.is_some() {
                    m.scan(pos, repeated(Flag::CacheHint.token()));
                }
                s.hint = Some(span);
            }
            Word::Pf(_) => {
                if s.pf.is_some() {
                    m.scan(pos, repeated("cache prefetching"));
                }
                s.pf = Some((t, span));
            }
            Word::Vec(_) => {
                if s.vec.is_some() {
                    m.scan(pos, repeated("vector"));
                }
                s.vec = Some(span);
                last_vec = Some(i);
            }
            Word::Type(_) => s.types += 1,
            Word::Evict(..) => s.evs.push((t, span)),
            Word::Sem(sem) => {
                if s.sem.is_some() {
                    m.scan(
                        pos,
                        insn.err(
                            codes::REPEATED_MODIFIER,
                            span,
                            format!("Duplicate {t} modifier"),
                            format!("`{t}` is a second memory-semantics modifier"),
                        ),
                    );
                }
                if sem == ptx_isa::MemorySemantics::Weak {
                    if let Some(d) = gate_target(cx, insn.start, Feature::Weak, "", OP, span) {
                        m.scan(pos - 1, d);
                    }
                }
                s.sem = Some((t, span));
            }
            Word::Scope(_) => {
                if s.scope.is_some() {
                    m.scan(pos, repeated("scope"));
                }
                s.scope = Some((t, span));
            }
            Word::Mmio => {
                for d in gate_list(cx, insn.start, Feature::Mmio, "", OP, span) {
                    m.scan(pos, d);
                }
                s.mmio = Some(span);
            }
            Word::Nc => s.flags.push((t, span)),
            Word::Level(_) | Word::Tensormap => s.level = Some((t, span)),
            _ if is(t, Flag::Mbarrier) => {
                if s.mbarrier.is_some() {
                    m.scan(pos, repeated(Flag::Mbarrier.token()));
                }
                s.mbarrier.get_or_insert(span);
            }
            _ if is(t, Modifier::Sync) => s.sync = Some(span),
            _ if is_any(t, &[Flag::NoInc.into(), Modifier::Aligned]) => s.flags.push((t, span)),
            _ if is(t, Flag::Async) => {
                for d in gate_list(cx, insn.start, Feature::AsyncModifier, "", OP, span) {
                    m.scan(pos, d);
                }
                s.flags.push((t, span));
            }
            _ if is(t, Modifier::Read) => {
                for d in gate_list(cx, insn.start, Feature::BulkRead, "", OP, span) {
                    m.scan(pos, d);
                }
                s.flags.push((t, span));
            }
            _ => m.scan(pos, unknown_modifier(insn, t, span)),
        }
    }
    if let Some(i) = last_vec {
        match rest.get(i + 1) {
            None => s.vec_tail = Some(rest[i].1),
            Some(&(next, _)) => {
                if !matches!(classify(next), Word::Type(_)) {
                    m.scan((i as i32 + 1) * 10 + 5, vector_warning(insn, rest[i].1));
                }
            }
        }
    }
    s
}

/// The scan messages of a statement cut short by a syntax error.
pub(crate) fn scan_messages(cx: &Cx, insn: &Insn) -> Vec<Diagnostic> {
    let mut m = Msgs::new(CPA_ORDER);
    let is_async = insn.mods.first().is_some_and(|m| is(m.0, Flag::Async)) && insn.joined >= 1;
    scan(cx, insn, &mut m, is_async);
    m.finish().0
}

/// Operand classes of §8: A address, I integer literal, P predicate, R32/R64 integer
/// registers, F other register or float literal, X anything else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    A,
    I,
    P,
    R32,
    R64,
    F,
    X,
}

fn class(scopes: &Scopes, op: &Operand) -> Class {
    match op {
        // `[a].unified` is not an address form of cp.async.
        Operand::Address(a) if !a.unified => Class::A,
        Operand::Int(_) => Class::I,
        Operand::Not(inner, _) => match &**inner {
            Operand::Name(n) if scopes.reg(&n.name) == Some(ScalarType::Pred) => Class::P,
            _ => Class::X,
        },
        Operand::Name(n) => match scopes.reg(&n.name) {
            Some(ScalarType::Pred) => Class::P,
            Some(t) => {
                use ScalarType::*;
                match t {
                    B32 | U32 | S32 => Class::R32,
                    B64 | U64 | S64 => Class::R64,
                    _ => Class::F,
                }
            }
            None => Class::X,
        },
        _ if imm_kind(op).is_some() => Class::F,
        _ => Class::X,
    }
}

pub(crate) fn check(cx: &Cx, insn: &Insn, scopes: &Scopes) -> Outcome {
    let mut m = Msgs::new(CPA_ORDER);
    let mut unknown = Unknowns::default();
    check_guard(insn, scopes, &mut m, Some(&mut unknown));
    const_issues(insn, &mut m);
    let is_async = insn.mods.first().is_some_and(|m| is(m.0, Flag::Async)) && insn.joined >= 1;
    let s = scan(cx, insn, &mut m, is_async);
    if is_async {
        operand_unknowns(scopes, insn.ops, &mut unknown);
    }
    let vec_tail = s.vec_tail.map(|sp| vector_warning(insn, sp));
    let head = insn.head();
    if !is_async {
        m.add(
            Key::NotAName,
            insn.err(
                codes::UNKNOWN_INSTRUCTION,
                Span::new(
                    insn.opcode_span.start,
                    insn.opcode_span.start + insn.opcode.len() as u32,
                ),
                format!("Not a name of any known instruction: '{}'", insn.opcode),
                format!("`{}` is not a PTX instruction", insn.opcode),
            )
            .with_help("asynchronous copies are `cp.async.ca`/`cp.async.cg`"),
        );
        return finish(m, unknown, None);
    }
    if let Some(sp) = s.sync {
        m.add(
            Key::IllegalEvictLevel,
            insn.err(
                codes::ILLEGAL_MODIFIER,
                sp,
                "Illegal modifier '.sync' for instruction 'cp.async'".into(),
                "cp.async is asynchronous; it takes no `.sync`".into(),
            ),
        );
        return finish(m, unknown, vec_tail);
    }
    if s.types > 0 {
        m.add(
            Key::NotAName,
            insn.err(
                codes::BAD_TYPE,
                head,
                "Unexpected instruction types specified for 'cp.async'".into(),
                "cp.async takes no type: it copies bytes".into(),
            )
            .with_help("remove the type; the size operand gives the bytes to copy"),
        );
        return finish(m, unknown, vec_tail);
    }
    let cop = s.cop.map(|c| c.0);
    let cacg = matches!(cop, Some(CacheOperator::Ca | CacheOperator::Cg));
    let ops = insn.ops;
    let cls: Vec<Class> = ops.iter().map(|o| class(scopes, o)).collect();
    let head_ok = cls.len() >= 3 && cls[0] == Class::A && cls[1] == Class::A && cls[2] == Class::I;
    let tail = if cls.len() >= 3 { &cls[3..] } else { &[][..] };
    let src = |c: Class| matches!(c, Class::R32 | Class::I | Class::P);
    let pol = |c: Class| matches!(c, Class::R64 | Class::I);
    let (mut matched, mut late_mismatch, mut need_hint5) = (false, false, false);
    if head_ok {
        if s.hint.is_some() {
            matched = (tail.len() == 1 && pol(tail[0]))
                || (tail.len() == 2 && src(tail[0]) && pol(tail[1]));
        } else if tail.is_empty() || (tail.len() == 1 && src(tail[0])) {
            matched = true;
        } else if tail.len() == 1 && tail[0] == Class::R64 {
            matched = true;
            late_mismatch = cacg;
        } else if tail.len() == 2 && src(tail[0]) && pol(tail[1]) {
            matched = true;
            need_hint5 = true;
        }
    }
    let mismatch = |span: Span, why: String| {
        insn.err(
            codes::OPERANDS,
            span,
            "Arguments mismatch for instruction 'cp.async'".into(),
            format!("the operands do not fit cp.async: {why}"),
        )
        .with_help("cp.async: [dst], [src], cp-size{, src-size | ignore-src-predicate}{, policy with .L2::cache_hint}")
    };
    let all_ops = ops.first().map_or(head, |o| {
        o.span().to(ops.last().map_or(o.span(), |l| l.span()))
    });
    if !matched {
        m.add(
            Key::ArgsMismatch,
            mismatch(all_ops, "no operand form matches".into()),
        );
        return finish(m, unknown, vec_tail);
    }
    gate(
        &mut m,
        cx,
        insn,
        Feature::CpAsync,
        Key::CpaTgt,
        Key::CpaVer,
        "",
        OP,
        head,
    );
    if need_hint5 {
        m.add(
            Key::HintRequired,
            insn.err(
                codes::MISSING_MODIFIER,
                ops[4].span(),
                ".L2::cache_hint modifier required for instruction 'cp.async' with 5 arguments"
                    .into(),
                "a cache-policy operand needs `.L2::cache_hint`".into(),
            ),
        );
        m.add(
            Key::ArgsMismatch,
            mismatch(
                ops[4].span(),
                "a policy operand without `.L2::cache_hint`".into(),
            ),
        );
    }
    let size = int_value(&ops[2]).unwrap_or(0);
    if cacg && !need_hint5 {
        let allowed: &[i128] = if cop == Some(CacheOperator::Ca) {
            &[4, 8, 16]
        } else {
            &[16]
        };
        if !allowed.contains(&size) {
            let list = allowed
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(" or ");
            m.add(
                Key::ArgValue,
                insn.err(
                    codes::OUT_OF_RANGE,
                    ops[2].span(),
                    format!("Argument 2 of instruction 'cp.async': unexpected value '{size}', expected to be {list}"),
                    format!("cp-size {size} is not one of {list}"),
                )
                .with_help("cp.async.ca copies 4, 8 or 16 bytes; cp.async.cg copies 16"),
            );
        }
        if tail.first() == Some(&Class::I) && !(s.hint.is_some() && tail.len() == 1) {
            let sv = int_value(&ops[3]).unwrap_or(0);
            if !(0..=size).contains(&sv) {
                m.add(
                    Key::ArgRange,
                    insn.err(
                        codes::OUT_OF_RANGE,
                        ops[3].span(),
                        format!("Argument 3 of instruction 'cp.async': value '{sv}' out of range, expected to be in range [0..{size}]"),
                        format!("src-size {sv} is outside 0..={size} (the cp-size)"),
                    ),
                );
            }
        }
    }
    if late_mismatch {
        m.add(
            Key::ArgsMismatch,
            mismatch(
                ops[3].span(),
                "a 64-bit fourth operand without `.L2::cache_hint`".into(),
            ),
        );
    }
    if cacg && !need_hint5 && tail.first() == Some(&Class::P) {
        if let Some(d) = super::gate_version(
            cx,
            insn.start,
            Feature::CpAsyncIgnoreSrc,
            "",
            OP,
            ops[3].span(),
        ) {
            m.add(Key::IgnoreSrcVer, d);
        }
    }
    cp_async_eviction(insn, &s, &mut m);
    // State spaces: the first is the destination, the second the source.
    let dst = s.spaces.first();
    let srcsp = s.spaces.get(1).or(s.spaces.first());
    cp_async_spaces(insn, &s, dst, &mut m);
    cp_async_prefetch_size_and_vector(cx, insn, &s, &mut m);
    cp_async_operand_addresses(insn, scopes, &s, ops, dst, srcsp, &mut m);
    cp_async_cache_operator_and_hint(cx, insn, &s, cacg, &mut m);
    cp_async_illegal_modifiers(cx, insn, &s, &mut m);
    finish(m, unknown, vec_tail)
}

/// An eviction priority: cp.async takes none (its L2 policy comes from `.L2::cache_hint`).
fn cp_async_eviction(insn: &Insn, s: &Scan, m: &mut Msgs) {
    if let Some(&(t, span)) = s.evs.first() {
        m.add(
            Key::IllegalEvictLevel,
            insn.err(
                codes::ILLEGAL_MODIFIER,
                span,
                "Illegal modifier '.level::eviction_priority' for instruction 'cp.async'".into(),
                "cp.async takes no eviction priority; use `.L2::cache_hint` with a policy".into(),
            ),
        );
        m.add(
            Key::IllegalEvict,
            insn.err(
                codes::ILLEGAL_MODIFIER,
                span,
                format!(
                    "Illegal modifier '.{}' for instruction 'cp.async'",
                    super::words::after_colons(t)
                ),
                format!("`{t}` is not a cp.async modifier"),
            ),
        );
    }
}

/// The state spaces: the destination `.shared` (`::cluster` is illegal), the source `.global`.
fn cp_async_spaces(insn: &Insn, s: &Scan, dst: Option<&(StateSpace, &str, Span)>, m: &mut Msgs) {
    let head = insn.head();
    if let Some(&(StateSpace::SharedCluster, _, span)) = dst {
        m.add(
            Key::IllegalSubspace,
            insn.err(
                codes::ILLEGAL_MODIFIER,
                span,
                "Illegal modifier '::cluster' for instruction 'cp.async'".into(),
                "cp.async copies into the CTA's own shared memory".into(),
            )
            .with_help("use .shared or .shared::cta"),
        );
    }
    if s.spaces.len() == 2 {
        let ssi = |span: Span, what: &str| {
            insn.err(
                codes::BAD_SPACE,
                span,
                "State space incorrect for instruction 'cp.async'".into(),
                what.to_string(),
            )
            .with_help("write cp.async.ca.shared.global (or .shared::cta.global)")
        };
        if !s.spaces[0].0.is_shared() {
            m.add(
                Key::SsiInstruction,
                ssi(s.spaces[0].2, "the destination space must be .shared"),
            );
        }
        if s.spaces[1].0 != StateSpace::Global {
            m.add(
                Key::SsiInstruction,
                ssi(s.spaces[1].2, "the source space must be .global"),
            );
        }
    } else {
        m.add(
            Key::SpaceCount,
            insn.err(
                codes::BAD_SPACE,
                s.spaces.get(2).map_or(head, |x| x.2),
                "Unexpected number of state spaces specified in instruction 'cp.async'".into(),
                format!(
                    "{} state spaces written; cp.async needs a destination and a source space",
                    s.spaces.len()
                ),
            )
            .with_help("write cp.async.ca.shared.global"),
        );
    }
}

/// The prefetch size (gated) and the vector word cp.async does not take.
fn cp_async_prefetch_size_and_vector(cx: &Cx, insn: &Insn, s: &Scan, m: &mut Msgs) {
    if let Some((t, span)) = s.pf {
        gate(
            m,
            cx,
            insn,
            Feature::CachePrefetching,
            Key::PfTgt,
            Key::PfVer,
            "",
            OP,
            span,
        );
        if is(t, PrefetchSize::B256) {
            gate(
                m,
                cx,
                insn,
                Feature::Prefetch256B,
                Key::Pf256Tgt,
                Key::Pf256Ver,
                "",
                OP,
                span,
            );
        }
    }
    if let Some(span) = s.vec {
        m.add(
            Key::VectorNotAllowed,
            insn.err(
                codes::BAD_TYPE,
                span,
                "Vector qualifier is not allowed for instruction 'cp.async'".into(),
                "cp.async takes no vector modifier".into(),
            ),
        );
    }
}

/// The two addresses: usable, each in a space its variable allows, not an immediate, not a
/// float or predicate register.
fn cp_async_operand_addresses(
    insn: &Insn,
    scopes: &Scopes,
    s: &Scan,
    ops: &[Operand],
    dst: Option<&(StateSpace, &str, Span)>,
    srcsp: Option<&(StateSpace, &str, Span)>,
    m: &mut Msgs,
) {
    for (k, (o, sp)) in [(&ops[0], dst), (&ops[1], srcsp)].into_iter().enumerate() {
        let Some(a) = address(scopes, o) else {
            continue;
        };
        let unusable = unusable_address(insn, OP, scopes, a.base);
        if !unusable.is_empty() {
            for d in unusable {
                m.add_sub(Key::AddrF32, k as i32, d);
            }
            continue;
        }
        match a.base {
            Base::Reg(r, rspan) => {
                if let Some(rt @ (ScalarType::F32 | ScalarType::F64 | ScalarType::Pred)) =
                    scopes.reg(r)
                {
                    m.add_sub(
                        Key::AddrF32,
                        k as i32,
                        bad_address_symbol(insn, r, rspan, rt.token()),
                    );
                }
            }
            Base::Imm => {
                if sp.map(|x| x.0) != Some(StateSpace::Local) {
                    m.add_sub(Key::AddrF32, k as i32, immediate_address(insn, a.span));
                }
            }
            Base::Var(name, nspan) => {
                let kind = match scopes.lookup(name) {
                    Some(Sym::Var(v)) => Some(v.kind),
                    _ => None,
                };
                if !s.spaces.is_empty() && !space_ok_for_var(sp.map(|x| x.0), kind) {
                    m.add_sub(
                        Key::AddrF32,
                        k as i32,
                        space_mismatch(insn, OP, nspan, name, sp.map(|x| x.0)),
                    );
                }
            }
        }
    }
}

/// The cache operator (required: `.ca` or `.cg`) and the `.L2::cache_hint` gates.
fn cp_async_cache_operator_and_hint(cx: &Cx, insn: &Insn, s: &Scan, cacg: bool, m: &mut Msgs) {
    let head = insn.head();
    match s.cop {
        None => m.add(
            Key::CopRequired,
            insn.err(
                codes::MISSING_MODIFIER,
                head,
                "'.ca or .cg' modifier required for instruction 'cp.async'".into(),
                "cp.async needs a cache operator".into(),
            )
            .with_help("write cp.async.ca (cache in L1 and L2) or cp.async.cg (L2 only, 16 bytes)"),
        ),
        Some((_, t, span)) if !cacg => m.add(
            Key::IllegalCop,
            insn.err(
                codes::ILLEGAL_MODIFIER,
                span,
                format!("Illegal modifier '{t}' for instruction 'cp.async'"),
                format!("`{t}` is not a cp.async cache operator"),
            )
            .with_help("cp.async takes .ca or .cg"),
        ),
        _ => {}
    }
    if let Some(h) = s.hint {
        gate(
            m,
            cx,
            insn,
            Feature::CacheHint,
            Key::HintTgt,
            Key::HintVer,
            "",
            OP,
            h,
        );
        let ok =
            s.spaces.len() >= 2 && s.spaces[1].0 == StateSpace::Global && s.spaces[0].0.is_shared();
        if !s.spaces.is_empty() && !ok {
            let first = s.spaces[0].1;
            m.add(
                Key::HintSpace,
                insn.err(
                    codes::BAD_SPACE,
                    h,
                    format!("Modifier '.L2::cache_hint' cannot be applied to '{first}' space for instruction 'cp.async'"),
                    "`.L2::cache_hint` needs a .shared destination and a .global source".into(),
                ),
            );
        }
    }
}

/// Known modifiers cp.async does not take (§8.1), each at its place in the order.
fn cp_async_illegal_modifiers(cx: &Cx, insn: &Insn, s: &Scan, m: &mut Msgs) {
    // Known modifiers cp.async does not take (§8.1), each at its place in the order.
    let illegal = |t: &str, span: Span| {
        insn.err(
            codes::ILLEGAL_MODIFIER,
            span,
            format!("Illegal modifier '{t}' for instruction 'cp.async'"),
            format!("cp.async takes no `{t}`"),
        )
    };
    if let Some((t, span)) = s.level {
        m.add(Key::CpaLevel, illegal(t, span));
        m.add(Key::CpaLevel, illegal(t, span));
    }
    for &(t, span) in &s.flags {
        let key = match Modifier::parse(t) {
            Some(Modifier::Aligned) => Key::CpaAligned,
            Some(Modifier::Qualifier(Qualifier::Flag(Flag::NoInc))) => Key::CpaNoinc,
            Some(Modifier::Qualifier(Qualifier::Flag(Flag::Nc))) => Key::CpaNc,
            Some(Modifier::Qualifier(Qualifier::Flag(Flag::Async))) => Key::CpaAsync,
            _ => Key::CpaRead,
        };
        m.add(key, illegal(t, span));
        if is(t, Flag::Async) {
            m.add(key, illegal(t, span));
        }
    }
    if let Some(span) = s.mbarrier {
        // Known as a word, yet reported both ways (measured).
        m.add(Key::CpaMbarrier, illegal(Flag::Mbarrier.token(), span));
        if let Some(d) = gate_target(cx, insn.start, Feature::MbarrierModifier, "", OP, span) {
            m.add(Key::CpaMbarrier, d);
        }
        m.add(
            Key::CpaMbarrier,
            unknown_modifier(insn, Flag::Mbarrier.token(), span),
        );
    }
    if let Some((t, span)) = s.scope {
        m.add(Key::CpaScope1, illegal(t, span));
        m.add(Key::CpaScope2, illegal(t, span));
    }
    if let Some((t, span)) = s.sem {
        m.add(Key::CpaSem, illegal(t, span));
    }
    if let Some(span) = s.mmio {
        let first = s.spaces.first().map_or("", |x| x.1);
        if !is(first, StateSpace::Global) {
            m.add(
                Key::CpaMmio,
                insn.err(
                    codes::BAD_SPACE,
                    span,
                    format!("Modifier '.mmio' cannot be applied to '{first}' space"),
                    "`.mmio` applies to .global loads and stores".into(),
                ),
            );
        }
        m.add(Key::CpaMmio, illegal(Flag::Mmio.token(), span));
        let combine = |what: &str, at: Span| {
            insn.err(
                codes::CONFLICTING_MODIFIERS,
                at,
                format!("Modifier '{what}' cannot be combined with modifier '.mmio'"),
                format!("`{what}` cannot be combined with `.mmio`"),
            )
        };
        if let Some((t, pspan)) = s.pf {
            m.add(Key::CombinePfMmio, combine(t, pspan));
        }
        if let Some(h) = s.hint {
            m.add(Key::CombineHintMmio, combine(Flag::CacheHint.token(), h));
        }
    }
}

/// May a variable of `kind` be addressed in `space` (generic: global, shared, local)?
pub(crate) fn space_ok_for_var(space: Option<StateSpace>, kind: Option<VarKind>) -> bool {
    let Some(kind) = kind else { return false };
    match space {
        None => matches!(kind, VarKind::Global | VarKind::Shared | VarKind::Local),
        Some(sp) if sp.is_param() => kind.is_param(),
        Some(sp) if sp.is_shared() => kind == VarKind::Shared,
        Some(StateSpace::Global) => kind == VarKind::Global,
        Some(StateSpace::Local) => kind == VarKind::Local,
        Some(StateSpace::Const) => kind == VarKind::Const,
        Some(StateSpace::Tex) => kind == VarKind::Tex,
        _ => false,
    }
}
