//! `applypriority` and `discard` (docs/ptxas-rules.md §20.2).
//!
//! ```text
//! applypriority{.global}.L2::evict_normal  [a], 128
//! discard{.global}.L2                      [a], 128
//! ```
//!
//! ptxas processes them like prefetch: the guard, a scan of the modifiers (unknown words, a
//! second level word, a third eviction priority, the vector warning), then stops (`.sync`,
//! `.L2::cache_hint`, a prefetch size, a type, the operand shape, a `_` address), then every
//! other check in the fixed order of `PRIORITY_ORDER`.

use super::collect::{Key, Msgs, PRIORITY_ORDER};
use super::const_issues;
use super::cpasync::space_ok_for_var;
use super::ldst::{bad_address_symbol, immediate_address, space_mismatch};
use super::prefetch_scan::{scan, Evictions, PrefetchScan};
use super::symbols::{Scopes, Sym, VarKind};
use super::words::is;
use super::words::{after_colons, Level, Prio};
use super::{
    address, check_guard, finish, gate, vector_warning, width, Base, Cx, Insn, Outcome, Unknowns,
};
use super::{operand_unknowns, stop, unusable_address};
use crate::codes;
use crate::Diagnostic;
use ptx_isa::{CacheLevel, Feature, Flag, Modifier, Opcode, ScalarType, StateSpace};
use ptx_syntax::ast::Operand;
use ptx_syntax::Span;

/// The scan messages of a statement cut short by a syntax error.
pub(crate) fn scan_messages(cx: &Cx, insn: &Insn) -> Vec<Diagnostic> {
    let mut m = Msgs::new(PRIORITY_ORDER);
    scan(cx, insn, &mut m, Evictions::Any);
    m.finish().0
}

/// The size operand: an integer constant (its value), or `None` (anything else).
fn size_value(op: &Operand) -> Option<i128> {
    match op {
        Operand::Int(i) => Some(i.value.value),
        _ => None,
    }
}

pub(crate) fn check(cx: &Cx, insn: &Insn, scopes: &Scopes) -> Outcome {
    let op = insn.opcode;
    let apply = insn.known == Some(Opcode::Applypriority);
    let mut m = Msgs::new(PRIORITY_ORDER);
    let mut unknown = Unknowns::default();
    check_guard(insn, scopes, &mut m, Some(&mut unknown));
    const_issues(insn, &mut m);
    let s = scan(cx, insn, &mut m, Evictions::Any);
    operand_unknowns(scopes, insn.ops, &mut unknown);
    if let Some(Operand::Name(n)) = insn.ops.get(1) {
        if scopes.lookup(&n.name).is_none() {
            unknown.add(&n.name, n.span);
        }
    }
    let tail = s.vec_tail.map(|sp| vector_warning(insn, sp));
    let head = insn.head();
    let illegal = |t: &str, span: Span, why: String| {
        insn.err(
            codes::ILLEGAL_MODIFIER,
            span,
            format!("Illegal modifier '{t}' for instruction '{op}'"),
            why,
        )
    };
    // Operand forms ptxas's grammar has no place for here: a nested bracket, a `_` size.
    for o in insn.ops {
        let near = match o {
            Operand::Bracket(..) => Some(("[", o.span())),
            Operand::Sink(sp) if !std::ptr::eq(o, &insn.ops[0]) => Some(("_", *sp)),
            _ => None,
        };
        if let Some((tok, sp)) = near {
            let d = Diagnostic::new(
                crate::Severity::Fatal,
                codes::SYNTAX,
                sp,
                format!("`{op}` takes an address and an integer size here"),
                format!("Parsing error near '{tok}': syntax error"),
            )
            .at_line_of(insn.start);
            return stop(m, d, tail, unknown);
        }
    }
    if let Some(sp) = s.foreign.sync {
        let d = illegal(
            Modifier::Sync.name(),
            sp,
            format!("`{op}` takes no `.sync`"),
        );
        return stop(m, d, tail, unknown);
    }
    if let Some(h) = s.hint {
        let d = illegal(
            Flag::CacheHint.token(),
            h,
            format!("`{op}` takes no cache policy"),
        );
        return stop(m, d, tail, unknown);
    }
    if let Some(&(p, span)) = s.pfs.first() {
        let d = illegal(p, span, format!("`{p}` is a prefetch size of loads"));
        return stop(m, d, tail, unknown);
    }
    if let Some(&span) = s.types.first() {
        let d = insn.err(
            codes::BAD_TYPE,
            span,
            format!("Unexpected instruction types specified for '{op}'"),
            format!("`{op}` takes no type"),
        );
        return stop(m, d, tail, unknown);
    }
    // `_` as the address: ptxas goes on to the gates, then stops with a fatal error.
    let sink = match insn.ops {
        [Operand::Sink(sp), size] if size_value(size).is_some() => Some(*sp),
        _ => None,
    };
    let shape = match insn.ops {
        [a @ Operand::Address(_), size] => size_value(size).map(|v| (a, v)),
        _ => None,
    };
    let addr = shape.and_then(|(a, _)| address(scopes, a));
    if addr.is_none() && sink.is_none() {
        let d = insn
            .err(
                codes::OPERANDS,
                insn.ops.first().map_or(head, |o| o.span()),
                format!("Arguments mismatch for instruction '{op}'"),
                format!("`{op}` takes an address and the size 128"),
            )
            .with_help(if apply {
                "applypriority.global.L2::evict_normal [address], 128"
            } else {
                "discard.global.L2 [address], 128"
            });
        return stop(m, d, tail, unknown);
    }
    if let Some(sp) = sink {
        m.add(
            Key::ApResultDiscard,
            Diagnostic::new(
                crate::Severity::Fatal,
                codes::OPERANDS,
                sp,
                format!("`{op}` needs an address, not `_`"),
                format!("Result discard mode is not allowed for instruction '{op}'"),
            )
            .at_line_of(insn.start),
        );
    }
    let size = shape.map_or(128, |x| x.1);
    gate(
        &mut m,
        cx,
        insn,
        if apply {
            Feature::ApplyPriority
        } else {
            Feature::Discard
        },
        Key::ApFeatTgt,
        Key::ApFeatVer,
        "",
        op,
        head,
    );
    let space = s.spaces.first();
    let space_v = space.map(|x| x.0);
    let sp_span = space.map_or(head, |x| x.2);
    let level = s.levels.last().copied();
    let levelled = s.evs.iter().any(|e| e.0.is_some());
    priority_level(cx, insn, apply, level, levelled, s.evs.is_empty(), &mut m);
    if size != 128 {
        let written = insn.ops.get(1).map_or(head, |o| o.span());
        m.add(
            Key::ApArg2,
            insn.err(
                codes::OPERANDS,
                written,
                format!(
                    "Argument 2 of instruction '{op}': unexpected value '{size}', expected to be 128"
                ),
                format!("`{op}` works on 128-byte blocks; the size must be 128"),
            ),
        );
    }
    priority_space(cx, insn, &s, apply, levelled, sp_span, &mut m);
    priority_eviction(cx, insn, &s, apply, level, space_v, &mut m);
    if let Some(v) = s.vec {
        m.add(
            Key::ApVector,
            insn.err(
                codes::BAD_TYPE,
                v,
                format!("Vector qualifier is not allowed for instruction '{op}'"),
                format!("`{op}` takes no vector modifier"),
            ),
        );
    }
    let Some(addr) = addr else {
        return finish(m, unknown, tail);
    };
    if addr.unified {
        m.add(
            Key::ApUnified,
            insn.err(
                codes::BAD_ADDRESS,
                addr.span,
                format!("Illegal use of attribute '.unified' for instruction '{op}'"),
                format!("`.unified` is not an attribute `{op}` takes"),
            ),
        );
    }
    let narrow = priority_address(insn, scopes, &addr, space_v, &mut m);
    if let Some(&(c, span)) = s.cops.first() {
        let d = illegal(c, span, format!("`{op}` takes no cache operator"));
        m.add(Key::ApCop, d.clone());
        m.add(Key::ApCop, d);
    }
    s.foreign.report(insn, op, &mut m, Key::ApForeign);
    let mut out = finish(m, unknown, tail);
    out.narrow_address = narrow;
    out
}

/// The level stage: applypriority's required priority, the required `.L2` (a levelled
/// priority names it), and the level words it takes none of (`.tensormap`, `.L1`).
fn priority_level(
    cx: &Cx,
    insn: &Insn,
    apply: bool,
    level: Option<(&str, Span)>,
    levelled: bool,
    no_evictions: bool,
    m: &mut Msgs,
) {
    let op = insn.opcode;
    let head = insn.head();
    let illegal = |t: &str, span: Span, why: String| {
        insn.err(
            codes::ILLEGAL_MODIFIER,
            span,
            format!("Illegal modifier '{t}' for instruction '{op}'"),
            why,
        )
    };
    if apply && no_evictions {
        m.add(
            Key::ApEvictRequired,
            insn.err(
                codes::MISSING_MODIFIER,
                head,
                "cache eviction priority modifier required for instruction 'applypriority'".into(),
                "applypriority needs the priority to apply".into(),
            )
            .with_help("write .L2::evict_normal"),
        );
    }
    if level.is_none() && !(apply && levelled) {
        m.add(
            Key::ApL2Required,
            insn.err(
                codes::MISSING_MODIFIER,
                head,
                format!(".L2 modifier required for instruction '{op}'"),
                format!("`{op}` works on the L2 cache; write the level"),
            ),
        );
    }
    if let Some((lw, lspan)) = level {
        if is(lw, Flag::Tensormap) {
            gate(
                m,
                cx,
                insn,
                Feature::Tensormap,
                Key::ApTmTgt,
                Key::ApTmVer,
                "",
                op,
                lspan,
            );
            m.add(
                Key::ApTmIllegal,
                illegal(lw, lspan, format!("`{op}` takes no `.tensormap`")),
            );
        } else if is(lw, CacheLevel::L1) {
            m.add(
                Key::ApIllegalLevel,
                illegal(lw, lspan, format!("`{op}` works on the L2 cache only")),
            );
        }
    }
}

/// The state-space stage (at most one space, `.global` or none, no sub-space) and `discard`'s
/// eviction words (it takes none).
fn priority_space(
    cx: &Cx,
    insn: &Insn,
    s: &PrefetchScan,
    apply: bool,
    levelled: bool,
    sp_span: Span,
    m: &mut Msgs,
) {
    let op = insn.opcode;
    let head = insn.head();
    let space = s.spaces.first();
    let illegal = |t: &str, span: Span, why: String| {
        insn.err(
            codes::ILLEGAL_MODIFIER,
            span,
            format!("Illegal modifier '{t}' for instruction '{op}'"),
            why,
        )
    };
    if s.spaces.len() > 1 {
        m.add(
            Key::ApSpaceCount,
            insn.err(
                codes::BAD_SPACE,
                s.spaces[1].2,
                format!("Unexpected number of state spaces specified in instruction '{op}'"),
                "write at most one state space".into(),
            ),
        );
    }
    if let Some(&(sp, name, span)) = space {
        let sub = match sp {
            StateSpace::SharedCta => Some(("::cta", Feature::SharedCta)),
            StateSpace::SharedCluster => Some(("::cluster", Feature::SharedCluster)),
            _ => None,
        };
        if let Some((w, f)) = sub {
            m.add(
                Key::ApSubspace,
                illegal(w, span, format!("`{op}` takes no sub-space")),
            );
            gate(
                m,
                cx,
                insn,
                f,
                Key::ApSubspaceTgt,
                Key::ApSubspaceVer,
                "",
                op,
                span,
            );
        }
        if sp != StateSpace::Global {
            m.add(
                Key::ApSsi,
                insn.err(
                    codes::BAD_SPACE,
                    sp_span,
                    format!("State space incorrect for instruction '{op}'"),
                    format!("`{op}` works on .global or generic addresses, not `{name}`"),
                ),
            );
        }
    }
    if !apply {
        if levelled {
            let span = s.evs.iter().find(|e| e.0.is_some()).map_or(head, |e| e.3);
            m.add(
                Key::ApIllegalLevelled,
                illegal(
                    ".level::eviction_priority",
                    span,
                    "discard takes no eviction priority".into(),
                ),
            );
        }
        for &(_, _, t, span) in &s.evs {
            let p = after_colons(t);
            m.add(
                Key::ApEvictIllegal,
                illegal(
                    &format!(".{p}"),
                    span,
                    "discard takes no eviction priority".into(),
                ),
            );
        }
    }
}

/// The eviction-priority stage: one priority; `applypriority`'s is `.L2::evict_normal`,
/// written with its level, on a global or generic address, gated by target and version.
fn priority_eviction(
    cx: &Cx,
    insn: &Insn,
    s: &PrefetchScan,
    apply: bool,
    level: Option<(&str, Span)>,
    space_v: Option<StateSpace>,
    m: &mut Msgs,
) {
    let op = insn.opcode;
    if s.evs.len() >= 2 {
        m.add(
            Key::ApMultiEvict,
            insn.err(
                codes::REPEATED_MODIFIER,
                s.evs[1].3,
                "Multiple cache eviction priority modifiers specified".into(),
                format!("`{op}` takes one eviction priority"),
            ),
        );
    } else if let (true, Some(&(lvl, prio, t, span))) = (apply, s.evs.first()) {
        let p = after_colons(t);
        gate(
            m,
            cx,
            insn,
            Feature::ApplyPriorityEviction,
            Key::ApEvictTgt,
            Key::ApEvictVer,
            p,
            op,
            span,
        );
        if prio != Prio::EvictNormal {
            m.add(
                Key::ApUnsupported,
                insn.err(
                    codes::ILLEGAL_MODIFIER,
                    span,
                    format!("Unsupported modifier '.{p}' for instruction 'applypriority'"),
                    "applypriority applies .L2::evict_normal only".into(),
                ),
            );
        }
        if let Some((lw, lspan)) = level {
            m.add(
            Key::ApLevelWithEvict,
            insn.err(
                codes::ILLEGAL_MODIFIER,
                lspan,
                format!("Illegal modifier '{lw}' for instruction 'applypriority' with '.level::eviction_priority'"),
                "an eviction priority names its level; drop the level word".into(),
            ),
        );
        }
        if lvl != Some(Level::L2) {
            m.add(
                Key::ApEvictL1,
                insn.err(
                    codes::MISSING_MODIFIER,
                    span,
                    format!(
                        "Modifier '.{p}' requires cache level L2 with 'applypriority' instruction"
                    ),
                    "applypriority priorities are L2 priorities".into(),
                )
                .with_help("write .L2::evict_normal"),
            );
        }
        if lvl.is_none() {
            m.add(
                Key::ApEvictSyntax,
                insn.err(
                    codes::MISSING_MODIFIER,
                    span,
                    "'.level::eviction_priority' syntax expected for instruction 'applypriority'"
                        .into(),
                    "write the level with the priority: .L2::evict_normal".into(),
                ),
            );
        }
        if !matches!(space_v, None | Some(StateSpace::Global)) {
            m.add(
                Key::ApEvictSpace,
                insn.err(
                    codes::BAD_SPACE,
                    span,
                    "State space incorrect for feature 'cache eviction priority'".into(),
                    "eviction priorities apply to .global or generic addresses".into(),
                ),
            );
        }
    }
}

/// The address stage: a usable base in a space its variable allows; returns the narrow
/// (32-bit register) address width ptxas warns about later.
fn priority_address(
    insn: &Insn,
    scopes: &Scopes,
    addr: &super::operands::Addr,
    space_v: Option<StateSpace>,
    m: &mut Msgs,
) -> Option<u32> {
    let op = insn.opcode;
    let mut narrow = None;
    let unusable = unusable_address(insn, op, scopes, addr.base);
    let resolved = unusable.is_empty();
    for d in unusable {
        m.add(Key::ApAddr, d);
    }
    match addr.base {
        _ if !resolved => {}
        Base::Reg(r, rspan) => match scopes.reg(r) {
            Some(rt @ (ScalarType::F32 | ScalarType::F64 | ScalarType::Pred)) => {
                m.add(Key::ApAddr, bad_address_symbol(insn, r, rspan, rt.token()));
            }
            Some(rt) if width(rt) == 32 && matches!(space_v, None | Some(StateSpace::Global)) => {
                narrow = Some(32);
            }
            _ => {}
        },
        Base::Imm => {
            if space_v != Some(StateSpace::Local) {
                m.add(Key::ApAddr, immediate_address(insn, addr.span));
            }
        }
        Base::Var(name, nspan) => {
            let kind = match scopes.lookup(name) {
                Some(Sym::Var(v)) => Some(v.kind),
                _ => None,
            };
            let _: Option<VarKind> = kind;
            if !space_ok_for_var(space_v, kind) {
                m.add(Key::ApAddr, space_mismatch(insn, op, nspan, name, space_v));
            }
        }
    }
    narrow
}
