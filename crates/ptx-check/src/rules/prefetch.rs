//! `prefetch` and `prefetchu` (docs/ptxas-rules.md §11, `check_prefetch` of the rules model).

use super::collect::{Key, Msgs, PREFETCH_ORDER};
use super::const_issues;
use super::cpasync::space_ok_for_var;
use super::ldst::{bad_address_symbol, immediate_address, space_mismatch};
use super::prefetch_scan::{scan, Evictions, PrefetchScan};
use super::symbols::{Scopes, Sym, VarKind};
use super::words::is;
use super::words::{after_colons, Level};
use super::{
    address, check_guard, finish, gate_target, gate_version, vector_warning, width, Base, Cx, Insn,
    Outcome, Unknowns,
};
use super::{operand_unknowns, stop, unusable_address};
use crate::codes;
use crate::Diagnostic;
use ptx_isa::{CacheLevel, Feature, Flag, Opcode, ScalarType, StateSpace};
use ptx_syntax::ast::Operand;
use ptx_syntax::Span;

/// The scan messages of a statement cut short by a syntax error.
pub(crate) fn scan_messages(cx: &Cx, insn: &Insn) -> Vec<Diagnostic> {
    let mut m = Msgs::new(PREFETCH_ORDER);
    scan(cx, insn, &mut m, Evictions::Levelled);
    m.finish().0
}

pub(crate) fn check(cx: &Cx, insn: &Insn, scopes: &Scopes) -> Outcome {
    let op = insn.opcode;
    let uniform = insn.known == Some(Opcode::Prefetchu);
    let mut m = Msgs::new(PREFETCH_ORDER);
    let mut unknown = Unknowns::default();
    check_guard(insn, scopes, &mut m, Some(&mut unknown));
    const_issues(insn, &mut m);
    let s = scan(cx, insn, &mut m, Evictions::Levelled);
    operand_unknowns(scopes, insn.ops, &mut unknown);
    let tail = s.vec_tail.map(|sp| vector_warning(insn, sp));
    let head = insn.head();
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
            format!("`{op}` takes no cache policy"),
        );
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
    if let [Operand::Sink(sp)] = insn.ops {
        let d = Diagnostic::new(
            crate::Severity::Fatal,
            codes::OPERANDS,
            *sp,
            format!("`{op}` needs an address, not `_`"),
            format!("Result discard mode is not allowed for instruction '{op}'"),
        )
        .at_line_of(insn.start);
        if s.spaces.len() > 1 {
            m.add(
                Key::PfSpaceCount,
                insn.err(
                    codes::BAD_SPACE,
                    s.spaces[1].2,
                    format!("Unexpected number of state spaces specified in instruction '{op}'"),
                    "write at most one state space".into(),
                ),
            );
        }
        // After the state-space count, before everything else (measured).
        m.add(Key::PfSsi, d);
        let (diags, _) = m.finish();
        return Outcome {
            diags,
            fatal: true,
            ..Outcome::default()
        };
    }
    let addr = match insn.ops {
        [o @ Operand::Address(_)] => address(scopes, o),
        _ => None,
    };
    let Some(addr) = addr else {
        let d = insn
            .err(
                codes::OPERANDS,
                insn.ops.first().map_or(head, |o| o.span()),
                format!("Arguments mismatch for instruction '{op}'"),
                format!("`{op}` takes one address operand"),
            )
            .with_help(format!("{op}.L1 [address]"));
        return stop(m, d, tail, unknown);
    };
    let space = s.spaces.first();
    let space_v = space.map(|x| x.0);
    let sp_name = space.map_or("", |x| x.1);
    let sp_span = space.map_or(head, |x| x.2);
    let level = s.levels.last();
    if addr.unified {
        m.add(
            Key::PfUnified,
            insn.err(
                codes::BAD_ADDRESS,
                addr.span,
                format!("Illegal use of attribute '.unified' for instruction '{op}'"),
                format!("`.unified` is not an attribute `{op}` takes"),
            ),
        );
    }
    let tensormap = level.is_some_and(|l| is(l.0, Flag::Tensormap));
    if !uniform && tensormap {
        let tspan = level.map_or(head, |l| l.1);
        if !matches!(space_v, None | Some(StateSpace::Const | StateSpace::Param)) {
            m.add(
                Key::PfTmSpace,
                insn.err(
                    codes::BAD_SPACE,
                    sp_span,
                    format!("Modifier '.tensormap' cannot be applied to '{sp_name}' space for instruction 'prefetch'"),
                    format!("a tensor map lives in .const, .param or generic memory, not `{sp_name}`"),
                ),
            );
        }
        if let Some(d) = gate_target(cx, insn.start, Feature::Tensormap, "", op, tspan) {
            m.add(Key::PfTmTgt, d);
        }
        if let Some(d) = gate_version(cx, insn.start, Feature::Tensormap, "", op, tspan) {
            m.add(Key::PfTmVer, d);
        }
    }
    prefetch_space(
        insn, &s, uniform, tensormap, space_v, sp_span, sp_name, &mut m,
    );
    if let Some(&(p, span)) = s.pfs.first() {
        m.add(
            Key::PfSize,
            insn.err(
                codes::ILLEGAL_MODIFIER,
                span,
                format!("Illegal modifier '{p}' for instruction '{op}'"),
                format!("`{p}` is a prefetch size of loads, not of `{op}`"),
            ),
        );
        if !matches!(space_v, None | Some(StateSpace::Global)) {
            m.add(
                Key::PfSizeSpace,
                insn.err(
                    codes::BAD_SPACE,
                    span,
                    format!("State space incorrect for feature '{p}'"),
                    format!("`{p}` applies to .global or generic addresses"),
                ),
            );
        }
    }
    prefetch_eviction(cx, insn, &s, uniform, level, space_v, &mut m);
    if let Some(v) = s.vec {
        m.add(
            Key::PfVector,
            insn.err(
                codes::BAD_TYPE,
                v,
                format!("Vector qualifier is not allowed for instruction '{op}'"),
                format!("`{op}` takes no vector modifier"),
            ),
        );
    }
    let narrow = prefetch_address(insn, scopes, &addr, uniform, space_v, &mut m);
    if let Some(&(c, span)) = s.cops.first() {
        let d = insn.err(
            codes::ILLEGAL_MODIFIER,
            span,
            format!("Illegal modifier '{c}' for instruction '{op}'"),
            format!("`{op}` takes no cache operator"),
        );
        m.add(Key::PfCop, d.clone());
        m.add(Key::PfCop, d);
    }
    if s.levels.is_empty() && s.evs.is_empty() && s.pfs.is_empty() {
        m.add(
            Key::PfLevelRequired,
            insn.err(
                codes::MISSING_MODIFIER,
                head,
                format!("Cache level modifier required for instruction '{op}'"),
                format!("`{op}` needs the cache level to fill"),
            )
            .with_help(if uniform {
                "write prefetchu.L1"
            } else {
                "write prefetch.L1 or prefetch.L2 (or .L2::evict_last / .L2::evict_normal)"
            }),
        );
    }
    s.foreign.report(insn, op, &mut m, Key::PfForeign);
    let mut out = finish(m, unknown, tail);
    out.narrow_address = narrow;
    out
}

/// The state-space stage: at most one space, one the opcode takes; `prefetchu` fills L1 only.
#[allow(clippy::too_many_arguments)]
fn prefetch_space(
    insn: &Insn,
    s: &PrefetchScan,
    uniform: bool,
    tensormap: bool,
    space_v: Option<StateSpace>,
    sp_span: Span,
    sp_name: &str,
    m: &mut Msgs,
) {
    let op = insn.opcode;
    if s.spaces.len() > 1 {
        m.add(
            Key::PfSpaceCount,
            insn.err(
                codes::BAD_SPACE,
                s.spaces[1].2,
                format!("Unexpected number of state spaces specified in instruction '{op}'"),
                "write at most one state space".into(),
            ),
        );
    }
    if let Some(sp) = space_v {
        let bad = if uniform {
            true
        } else {
            !(matches!(sp, StateSpace::Global | StateSpace::Local)
                || (tensormap && matches!(sp, StateSpace::Const | StateSpace::Param)))
        };
        if bad {
            m.add(
            Key::PfSsi,
            insn.err(
                codes::BAD_SPACE,
                sp_span,
                format!("State space incorrect for instruction '{op}'"),
                if uniform {
                    "prefetchu takes a generic address and no state space".to_string()
                } else {
                    format!("prefetch works on .global, .local or generic addresses, not `{sp_name}`")
                },
            ),
        );
        }
    }
    if uniform {
        for &(lv, span) in &s.levels {
            if !is(lv, CacheLevel::L1) {
                m.add(
                    Key::PfIllegalLevel,
                    insn.err(
                        codes::ILLEGAL_MODIFIER,
                        span,
                        format!("Illegal modifier '{lv}' for instruction 'prefetchu'"),
                        "prefetchu fills the L1 only".into(),
                    )
                    .with_help("write prefetchu.L1"),
                );
            }
        }
    }
}

/// The eviction-priority stage: one priority, legal for the opcode, at L2, on a global or
/// generic address, gated by target and version.
fn prefetch_eviction(
    cx: &Cx,
    insn: &Insn,
    s: &PrefetchScan,
    uniform: bool,
    level: Option<&(&str, Span)>,
    space_v: Option<StateSpace>,
    m: &mut Msgs,
) {
    let op = insn.opcode;
    if s.evs.len() >= 2 {
        m.add(
            Key::PfMultiEvict,
            insn.err(
                codes::REPEATED_MODIFIER,
                s.evs[1].3,
                "Multiple cache eviction priority modifiers specified".into(),
                "prefetch takes one eviction priority".into(),
            ),
        );
    } else if let Some(&(Some(lv), _, t, span)) = s.evs.first() {
        let p = after_colons(t);
        let illegal =
            |ptxas: String, msg: String| insn.err(codes::ILLEGAL_MODIFIER, span, ptxas, msg);
        if uniform {
            m.add(
                Key::PfEvictIllegal,
                illegal(
                    "Illegal modifier '.level::eviction_priority' for instruction 'prefetchu'"
                        .into(),
                    "prefetchu takes no eviction priority".into(),
                ),
            );
            m.add(
                Key::PfEvictIllegal,
                illegal(
                    format!("Illegal modifier '.{p}' for instruction 'prefetchu'"),
                    format!("`.{p}` is not a prefetchu modifier"),
                ),
            );
        } else {
            if let Some(d) = gate_version(cx, insn.start, Feature::PrefetchEviction, "", op, span) {
                m.add(Key::PfEvictVer, d);
            }
            if let Some(d) = gate_target(cx, insn.start, Feature::PrefetchEviction, "", op, span) {
                m.add(Key::PfEvictTgt, d);
            }
            if !matches!(p, "evict_last" | "evict_normal") {
                m.add(
                    Key::PfEvictIllegal,
                    illegal(
                        format!("Illegal modifier '.{p}' for instruction 'prefetch'"),
                        format!("prefetch takes .L2::evict_last or .L2::evict_normal, not `.{p}`"),
                    ),
                );
            }
            if let Some(&(lw, lspan)) = level {
                m.add(
                Key::PfLevelWithEvict,
                insn.err(
                    codes::ILLEGAL_MODIFIER,
                    lspan,
                    format!("Illegal modifier '{lw}' for instruction 'prefetch' with '.level::eviction_priority'"),
                    "an eviction priority names its level; drop the level word".into(),
                ),
            );
            }
            if lv == Level::L1 {
                m.add(
                    Key::PfEvictL1,
                    insn.err(
                        codes::MISSING_MODIFIER,
                        span,
                        format!(
                            "Modifier '.{p}' requires cache level L2 with 'prefetch' instruction"
                        ),
                        "prefetch eviction priorities are L2 priorities".into(),
                    )
                    .with_help("write .L2::evict_last or .L2::evict_normal"),
                );
            }
            if !matches!(space_v, None | Some(StateSpace::Global)) {
                m.add(
                    Key::PfEvictSpace,
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
}

/// The address stage: a usable base in a space its variable allows; returns the narrow
/// (32-bit register) address width ptxas warns about later.
fn prefetch_address(
    insn: &Insn,
    scopes: &Scopes,
    addr: &super::operands::Addr,
    uniform: bool,
    space_v: Option<StateSpace>,
    m: &mut Msgs,
) -> Option<u32> {
    let op = insn.opcode;
    let mut narrow = None;
    let unusable = unusable_address(insn, op, scopes, addr.base);
    let resolved = unusable.is_empty();
    for d in unusable {
        m.add(Key::PfAddr, d);
    }
    match addr.base {
        _ if !resolved => {}
        Base::Reg(r, rspan) => match scopes.reg(r) {
            Some(rt @ (ScalarType::F32 | ScalarType::F64 | ScalarType::Pred)) => {
                m.add(Key::PfAddr, bad_address_symbol(insn, r, rspan, rt.token()));
            }
            Some(rt) if width(rt) == 32 && matches!(space_v, None | Some(StateSpace::Global)) => {
                narrow = Some(32);
            }
            _ => {}
        },
        Base::Imm => {
            if space_v != Some(StateSpace::Local) {
                m.add(Key::PfAddr, immediate_address(insn, addr.span));
            }
        }
        Base::Var(name, nspan) => {
            let kind = match scopes.lookup(name) {
                Some(Sym::Var(v)) => Some(v.kind),
                _ => None,
            };
            if !space_ok_for_var(space_v, kind) {
                m.add(Key::PfAddr, space_mismatch(insn, op, nspan, name, space_v));
            }
            if uniform && kind != Some(VarKind::Global) {
                m.add(
                    Key::PfAddr,
                    insn.err(
                        codes::BAD_ADDRESS,
                        nspan,
                        "Non-generic address is not supported as operand for prefetchu instruction"
                            .into(),
                        format!(
                            "prefetchu needs a generic address; `{name}` is not a .global variable"
                        ),
                    ),
                );
            }
        }
    }
    narrow
}
