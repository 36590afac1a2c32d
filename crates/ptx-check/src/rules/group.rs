//! `cp.async.commit_group`, `cp.async.wait_group N`, `cp.async.wait_all`, the
//! `cp.async.bulk` group forms, and `cp.async.mbarrier.arrive{.noinc}` (docs/ptxas-rules.md §9,
//! `check_group` / `check_mbarrier` of the rules model).

use super::collect::{Key, Msgs, MBARRIER_ORDER};
use super::const_issues;
use super::cpasync::space_ok_for_var;
use super::ldst::{immediate_address, space_mismatch};
use super::symbols::{Scopes, Sym};
use super::words::is;
use super::words::{after_colons, classify, Word};
use super::{
    address, check_guard, finish, gate_list, gate_target, gate_version, predicate_expected,
    unknown_modifier, vector_warning, Base, Cx, Insn, Outcome, Unknowns,
};
use super::{operand_unknowns, stop, unusable_address};
use crate::codes;
use crate::Diagnostic;
use ptx_isa::{Feature, Flag, Modifier, Qualifier, ScalarType, StateSpace};
use ptx_syntax::ast::Operand;
use ptx_syntax::Span;

/// Where a message of ptxas's modifier check of the group instructions goes, measured by
/// pairwise experiments (docs/ptxas-rules.md §9.1): these instructions take no modifier, and
/// each known one is reported in this order, after the instruction's feature pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Slot {
    Cluster,
    Level,
    EvictLevel,
    NoSpace,
    EvictName,
    Aligned,
    Noinc,
    Vector,
    ScopeFirst,
    Sem,
    Mmio,
    ScopeAgain,
    Nc,
    Cop,
    Async,
    Read,
}

pub(crate) fn check_group(cx: &Cx, insn: &Insn, scopes: &Scopes) -> Outcome {
    let mut out: Vec<Diagnostic> = Vec::new();
    let mut unknown = Unknowns::default();
    if let Some(g) = insn.guard {
        let ty = scopes.reg(&g.predicate.name);
        if ty != Some(ScalarType::Pred) {
            out.push(predicate_expected(insn, g.predicate.span));
            if ty.is_none() {
                unknown.add(&g.predicate.name, g.predicate.span);
            }
        }
    }
    let head = insn.head();
    let mut toks = &insn.mods[1..]; // after `.async`
    let bulk = toks.first().is_some_and(|t| is(t.0, Flag::Bulk));
    if bulk {
        toks = &toks[1..];
    }
    let word = toks.first().copied();
    let rest = if toks.is_empty() { toks } else { &toks[1..] };
    let mut feats: Vec<Diagnostic> = Vec::new();
    let (name, want): (String, Option<usize>) =
        match word.map(|(w, span)| (w, span, Modifier::parse(w))) {
            Some((_, span, Some(Modifier::CommitGroups))) => {
                // ptxas reads the trailing `s` as an operand.
                unknown.add("s", span);
                ("cp.async.commit_group".into(), None)
            }
            Some((
                w,
                _,
                Some(Modifier::Qualifier(Qualifier::Flag(
                    Flag::CommitGroup | Flag::WaitGroup | Flag::WaitAll,
                ))),
            )) => (
                format!("cp.async{}{w}", if bulk { Flag::Bulk.token() } else { "" }),
                Some(usize::from(is(w, Flag::WaitGroup))),
            ),
            Some((_, span, Some(Modifier::Wait))) => {
                feats.extend(gate_list(
                    cx,
                    insn.start,
                    Feature::Wait,
                    "",
                    "cp.async",
                    span,
                ));
                ("cp.async".into(), None)
            }
            Some((w, span, _)) => {
                out.push(unknown_modifier(insn, w, span));
                ("cp.async".into(), None)
            }
            None => ("cp.async".into(), None),
        };
    let known = name != "cp.async";
    operand_unknowns(scopes, insn.ops, &mut unknown);
    let bulk_wait = name == "cp.async.bulk.wait_group";
    // The scan: unknown modifiers, repeated one-value modifiers and the scan-stage gates, in
    // text order; the vector-type warning.
    let mut w = scan_group_words(cx, insn, rest, known, bulk_wait, &name);
    out.append(&mut w.scan);
    let finish_out = |mut out: Vec<Diagnostic>, tail: Option<Diagnostic>, unknown: Unknowns| {
        out.extend(tail);
        Outcome {
            diags: out,
            unknown: unknown.into_diags(),
            ..Outcome::default()
        }
    };
    if let Some(&(_, t, span)) = w.stops.iter().min_by_key(|s| s.0) {
        out.push(insn.err(
            codes::ILLEGAL_MODIFIER,
            span,
            format!("Illegal modifier '{t}' for instruction '{name}'"),
            format!("`{name}` takes no `{t}`"),
        ));
        return finish_out(out, w.trailing_warning, unknown);
    }
    if name.starts_with("cp.async.bulk") {
        let read = rest.iter().find(|t| is(t.0, Modifier::Read));
        if let Some(&(_, span)) = read {
            feats.extend(gate_list(
                cx,
                insn.start,
                Feature::BulkRead,
                "",
                &name,
                span,
            ));
        }
        let f = if name.ends_with("commit_group") {
            Feature::BulkCommitGroup
        } else {
            Feature::BulkWaitGroup
        };
        feats.extend(gate_list(cx, insn.start, f, "", &name, head));
    } else if known {
        let f = match name.as_str() {
            "cp.async.commit_group" => Feature::CommitGroup,
            "cp.async.wait_group" => Feature::WaitGroup,
            _ => Feature::WaitAll,
        };
        feats.extend(gate_list(cx, insn.start, f, "", &name, head));
    }
    let ok = want.is_some_and(|n| {
        insn.ops.len() == n && insn.ops.iter().all(|o| matches!(o, Operand::Int(_)))
    });
    if let Some(&span) = w.types.first() {
        out.push(insn.err(
            codes::BAD_TYPE,
            span,
            format!("Unexpected instruction types specified for '{name}'"),
            format!("`{name}` takes no type"),
        ));
        return finish_out(out, w.trailing_warning, Unknowns::default());
    }
    if !ok {
        if word.is_some_and(|w| is(w.0, Modifier::Wait)) {
            out.append(&mut feats);
        }
        out.push(
            insn.err(
                codes::OPERANDS,
                insn.ops.first().map_or(head, |o| o.span()),
                format!("Arguments mismatch for instruction '{name}'"),
                match want {
                    Some(0) => format!("`{name}` takes no operand"),
                    Some(_) => {
                        format!("`{name}` takes one integer literal (the number of pending groups)")
                    }
                    None => format!("`{name}` is not a complete instruction name"),
                },
            )
            .with_help("cp.async.commit_group; cp.async.wait_group N; cp.async.wait_all"),
        );
        return finish_out(out, w.trailing_warning, unknown);
    }
    out.append(&mut feats);
    out.extend(group_illegal_modifiers(insn, &name, bulk, &w));
    finish_out(out, w.trailing_warning, unknown)
}

/// The modifier check of a group instruction: every known modifier is illegal here, each
/// message in its slot's order.
fn group_illegal_modifiers(insn: &Insn, name: &str, bulk: bool, w: &GroupWords) -> Vec<Diagnostic> {
    let mut block: Vec<(Slot, Diagnostic)> = Vec::new();
    let illegal = |t: &str, span: Span| {
        insn.err(
            codes::ILLEGAL_MODIFIER,
            span,
            format!("Illegal modifier '{t}' for instruction '{name}'"),
            format!("`{name}` takes no `{t}`"),
        )
    };
    if let Some(&(_, _, span)) = w.spaces.iter().find(|s| s.0 == StateSpace::SharedCluster) {
        if !bulk {
            block.push((Slot::Cluster, illegal("::cluster", span)));
        }
    }
    if let Some(&(_, span)) = w.spaces.first().map(|s| (s.1, s.2)).as_ref() {
        block.push((
            Slot::NoSpace,
            insn.err(
                codes::BAD_SPACE,
                span,
                format!("No state space qualifier expected for instruction '{name}'"),
                format!("`{name}` takes no state space"),
            ),
        ));
    }
    if let Some((t, span, level)) = w.cop {
        let slot = if level { Slot::Level } else { Slot::Cop };
        block.push((slot, illegal(t, span)));
        block.push((slot, illegal(t, span)));
    }
    if let Some(&(t, span)) = w.evicts.first() {
        block.push((Slot::EvictLevel, illegal(".level::eviction_priority", span)));
        block.push((
            Slot::EvictName,
            illegal(&format!(".{}", after_colons(t)), span),
        ));
    }
    for &(slot, t, span) in &w.flags {
        block.push((slot, illegal(t, span)));
        if slot == Slot::Async {
            block.push((slot, illegal(t, span)));
        }
    }
    if let Some(span) = w.vec {
        block.push((
            Slot::Vector,
            insn.err(
                codes::ILLEGAL_MODIFIER,
                span,
                format!("Vector qualifier is not allowed for instruction '{name}'"),
                format!("`{name}` takes no vector width"),
            ),
        ));
    }
    if let Some((t, span)) = w.scope {
        block.push((Slot::ScopeFirst, illegal(t, span)));
        block.push((Slot::ScopeAgain, illegal(t, span)));
    }
    if let Some((t, span)) = w.sem {
        block.push((Slot::Sem, illegal(t, span)));
    }
    if let Some(span) = w.mmio {
        let ss = w.spaces.first().map_or("", |s| s.1);
        if !is(ss, StateSpace::Global) {
            block.push((
                Slot::Mmio,
                insn.err(
                    codes::BAD_SPACE,
                    span,
                    format!("Modifier '.mmio' cannot be applied to '{ss}' space"),
                    "`.mmio` applies to .global loads and stores".into(),
                ),
            ));
        }
        block.push((Slot::Mmio, illegal(Flag::Mmio.token(), span)));
    }
    block.sort_by_key(|b| b.0);
    block.into_iter().map(|b| b.1).collect()
}

/// What the scan of a group instruction's modifiers found: its messages (unknown and repeated
/// modifiers, the scan-stage gates, in text order), the vector-type warning, and the words
/// the later stages judge.
struct GroupWords<'a> {
    scan: Vec<Diagnostic>,
    trailing_warning: Option<Diagnostic>,
    sem: Option<(&'a str, Span)>,
    scope: Option<(&'a str, Span)>,
    cop: Option<(&'a str, Span, bool)>,
    vec: Option<Span>,
    spaces: Vec<(StateSpace, &'a str, Span)>,
    evicts: Vec<(&'a str, Span)>,
    flags: Vec<(Slot, &'a str, Span)>,
    stops: Vec<(u8, &'a str, Span)>,
    mmio: Option<Span>,
    types: Vec<Span>,
}

/// The scan of a group instruction's modifiers after its name ([`GroupWords`]).
fn scan_group_words<'a>(
    cx: &Cx,
    insn: &Insn,
    rest: &[(&'a str, Span)],
    known: bool,
    bulk_wait: bool,
    name: &str,
) -> GroupWords<'a> {
    let mut scan: Vec<Diagnostic> = Vec::new();
    let mut trailing_warning = None;
    let (mut sem, mut scope, mut cop, mut vec) = (None, None, None, None);
    let mut spaces: Vec<(StateSpace, &str, Span)> = Vec::new();
    let mut evicts: Vec<(&str, Span)> = Vec::new();
    let mut flags: Vec<(Slot, &str, Span)> = Vec::new();
    let mut stops: Vec<(u8, &str, Span)> = Vec::new();
    let mut mmio = None;
    let mut types = Vec::new();
    for (i, &(t, span)) in rest.iter().enumerate() {
        let dup = |what: String| {
            insn.err(
                codes::REPEATED_MODIFIER,
                span,
                what,
                format!("`{t}` repeats a modifier"),
            )
        };
        if known {
            match Modifier::parse(t) {
                Some(Modifier::Sync) => stops.push((0, t, span)),
                Some(Modifier::Aligned) => flags.push((Slot::Aligned, t, span)),
                Some(Modifier::Qualifier(Qualifier::Flag(Flag::NoInc))) => {
                    flags.push((Slot::Noinc, t, span))
                }
                Some(Modifier::Qualifier(Qualifier::Flag(Flag::Async))) => {
                    scan.extend(gate_list(
                        cx,
                        insn.start,
                        Feature::AsyncModifier,
                        "",
                        name,
                        span,
                    ));
                    flags.push((Slot::Async, t, span));
                }
                Some(Modifier::Read) if bulk_wait => {}
                Some(Modifier::Read) => {
                    scan.extend(gate_list(cx, insn.start, Feature::BulkRead, "", name, span));
                    flags.push((Slot::Read, t, span));
                }
                _ => match classify(t) {
                    Word::Sem(s) => {
                        if sem.is_some() {
                            scan.push(dup(format!("Duplicate {t} modifier")));
                        }
                        if s == ptx_isa::MemorySemantics::Weak {
                            scan.extend(gate_target(cx, insn.start, Feature::Weak, "", name, span));
                        }
                        sem = Some((t, span));
                    }
                    Word::Mmio => {
                        scan.extend(gate_list(cx, insn.start, Feature::Mmio, "", name, span));
                        mmio = Some(span);
                    }
                    Word::Scope(_) => {
                        if scope.is_some() {
                            scan.push(dup("Multiple scope modifiers specified".into()));
                        }
                        scope = Some((t, span));
                    }
                    Word::Cop(_) | Word::Level(_) | Word::Tensormap => {
                        let level = !matches!(classify(t), Word::Cop(_));
                        if cop.is_some_and(|(_, _, l)| l == level) {
                            scan.push(dup("Multiple cache operation modifiers specified".into()));
                        }
                        cop = Some((t, span, level));
                    }
                    Word::Vec(_) => {
                        if vec.is_some() {
                            scan.push(dup("Multiple vector modifiers specified".into()));
                        }
                        vec = Some(span);
                    }
                    Word::Space(sp) => spaces.push((sp, t, span)),
                    Word::Evict(..) => evicts.push((t, span)),
                    Word::Nc => flags.push((Slot::Nc, t, span)),
                    Word::Pf(_) => stops.push((1, t, span)),
                    Word::Hint => stops.push((2, t, span)),
                    Word::Type(_) => types.push(span),
                    Word::Kind(_) | Word::Unknown => scan.push(unknown_modifier(insn, t, span)),
                },
            }
        } else if matches!(classify(t), Word::Type(_)) {
            types.push(span);
        }
        // §7.3: a vector modifier other than .v8 wants a type right after it.
        if matches!(classify(t), Word::Vec(2 | 4)) {
            match rest.get(i + 1) {
                None => trailing_warning = Some(vector_warning(insn, span)),
                Some(&(next, _)) if !matches!(classify(next), Word::Type(_) | Word::Vec(2 | 4)) => {
                    // printed after the next modifier's scan messages
                    trailing_warning = None;
                    scan.push(vector_warning(insn, span));
                }
                _ => {}
            }
        }
    }
    GroupWords {
        scan,
        trailing_warning,
        sem,
        scope,
        cop,
        vec,
        spaces,
        evicts,
        flags,
        stops,
        mmio,
        types,
    }
}

pub(crate) fn check_mbarrier(cx: &Cx, insn: &Insn, scopes: &Scopes) -> Outcome {
    const OP: &str = "cp.async.mbarrier.arrive";
    let mut m = Msgs::new(MBARRIER_ORDER);
    let mut unknown = Unknowns::default();
    check_guard(insn, scopes, &mut m, Some(&mut unknown));
    const_issues(insn, &mut m);
    operand_unknowns(scopes, insn.ops, &mut unknown);
    let head = insn.head();
    let toks = &insn.mods[2..]; // after `.async.mbarrier`
                                // `.arrive` belongs to ptxas's instruction token only when written right after
                                // `cp.async.mbarrier`; otherwise it is an unknown modifier.
    let detached = toks.first().is_some_and(|t| is(t.0, Flag::Arrive)) && insn.joined < 3;
    if detached {
        m.scan(0, unknown_modifier(insn, toks[0].0, toks[0].1));
    }
    if toks.first().is_none_or(|t| !is(t.0, Flag::Arrive)) || detached {
        let (mut diags, _) = m.finish();
        if let Some(&(_, span)) = toks.first().filter(|t| is(t.0, Modifier::Wait)) {
            if let Some(d) = gate_target(cx, insn.start, Feature::Wait, "", "cp.async", span) {
                diags.push(d);
            }
            if let Some(d) = gate_version(cx, insn.start, Feature::Wait, "", "cp.async", span) {
                diags.push(d);
            }
        }
        diags.push(insn.err(
            codes::BAD_TYPE,
            toks.first().map_or(head, |t| t.1),
            "Unexpected instruction types specified for 'cp.async'".into(),
            "`cp.async.mbarrier` must be followed by `.arrive`".into(),
        ));
        return Outcome {
            diags,
            ..Outcome::default()
        };
    }
    let rest = &toks[1..];
    let mut spaces = Vec::new();
    let mut types = Vec::new();
    let mut sems = Vec::new();
    let mut scope_words = Vec::new();
    let mut noinc = 0;
    let mut inc = None;
    for (i, &(t, span)) in rest.iter().enumerate() {
        let pos = i as i32 * 10;
        match (Modifier::parse(t), classify(t)) {
            (Some(Modifier::Qualifier(Qualifier::Flag(Flag::NoInc))), _) => {
                if noinc > 0 {
                    m.scan(
                        pos,
                        insn.err(
                            codes::REPEATED_MODIFIER,
                            span,
                            "Multiple .noinc modifiers specified".into(),
                            "`.noinc` is written twice".into(),
                        ),
                    );
                }
                noinc += 1;
            }
            (Some(Modifier::Inc), _) => inc = Some(span),
            (_, Word::Space(sp)) => spaces.push((sp, t, span)),
            (_, Word::Type(ty)) => types.push((ty, span)),
            (_, Word::Sem(_) | Word::Mmio) => sems.push((t, span)),
            (_, Word::Scope(_)) => scope_words.push((t, span)),
            _ => m.scan(pos, unknown_modifier(insn, t, span)),
        }
    }
    if !(types.len() == 1 && types[0].0 == Some(ScalarType::B64)) {
        let d = insn
            .err(
                codes::BAD_TYPE,
                types.first().map_or(head, |t| t.1),
                format!("Unexpected instruction types specified for '{OP}'"),
                "cp.async.mbarrier.arrive takes exactly `.b64`".into(),
            )
            .with_help("cp.async.mbarrier.arrive{.noinc}.shared.b64 [mbar]");
        return stop(m, d, None, unknown);
    }
    let addr = match insn.ops {
        [o @ Operand::Address(a)] if !a.unified => address(scopes, o),
        _ => None,
    };
    let Some(addr) = addr else {
        let d = insn
            .err(
                codes::OPERANDS,
                insn.ops.first().map_or(head, |o| o.span()),
                format!("Arguments mismatch for instruction '{OP}'"),
                "cp.async.mbarrier.arrive takes the mbarrier's address".into(),
            )
            .with_help("cp.async.mbarrier.arrive.shared.b64 [mbar]");
        return stop(m, d, None, unknown);
    };
    if let Some(d) = gate_version(cx, insn.start, Feature::MbarrierArrive, "", OP, head) {
        m.add(Key::MbFeature, d);
    }
    if let Some(d) = gate_target(cx, insn.start, Feature::MbarrierArrive, "", OP, head) {
        m.add(Key::MbFeature, d);
    }
    let space = spaces.first();
    let space_v = space.map(|x: &(StateSpace, &str, _)| x.0);
    if spaces.len() > 1 {
        m.add(
            Key::MbSpaceCount,
            insn.err(
                codes::BAD_SPACE,
                spaces[1].2,
                format!("Unexpected number of state spaces specified in instruction '{OP}'"),
                "write one state space".into(),
            ),
        );
    }
    if space_v == Some(StateSpace::SharedCta) {
        if let Some(d) = gate_version(cx, insn.start, Feature::SharedCta, "", OP, space.unwrap().2)
        {
            m.add(Key::MbCta, d);
        }
    }
    if let Some(span) = inc {
        m.add(
            Key::MbReduction,
            insn.err(
                codes::ILLEGAL_MODIFIER,
                span,
                "Illegal reduction operation for instruction 'cp.async.mbarrier.arrive.b64'".into(),
                "the arrive always increments the pending count (or not, with `.noinc`)".into(),
            )
            .with_help("remove `.inc`; write `.noinc` to skip the increment"),
        );
    }
    let illegal = |t: &str, span| {
        insn.err(
            codes::ILLEGAL_MODIFIER,
            span,
            format!("Illegal modifier '{t}' for instruction '{OP}'"),
            format!("`{t}` is not a modifier of {OP}"),
        )
    };
    for &(t, span) in &scope_words {
        m.add(Key::MbIllegalSem, illegal(t, span));
    }
    for &(t, span) in &sems {
        m.add(Key::MbIllegalSem, illegal(t, span));
    }
    for &(t, span) in &scope_words {
        m.add(Key::MbIllegalSem, illegal(t, span));
    }
    if let Some(&(StateSpace::SharedCluster, _, span)) = space {
        m.add(
            Key::MbSubspace,
            insn.err(
                codes::ILLEGAL_MODIFIER,
                span,
                format!("Illegal modifier '::cluster' for instruction '{OP}'"),
                "the mbarrier is in the CTA's own shared memory".into(),
            )
            .with_help("use .shared or .shared::cta"),
        );
        if let Some(d) = gate_version(cx, insn.start, Feature::SharedCluster, "", OP, span) {
            m.add(Key::MbCluster, d);
        }
        if let Some(d) = gate_target(cx, insn.start, Feature::SharedCluster, "", OP, span) {
            m.add(Key::MbCluster, d);
        }
    }
    if let Some(&(sp, t, span)) = space {
        if !sp.is_shared() {
            m.add(
                Key::MbSsi,
                insn.err(
                    codes::BAD_SPACE,
                    span,
                    format!("State space incorrect for instruction '{OP}'"),
                    format!("the mbarrier is in shared memory, not `{t}`"),
                ),
            );
        }
    }
    mbarrier_address(insn, scopes, &addr, space_v, &mut m);
    finish(m, unknown, None)
}

/// The mbarrier's address: usable, in a space the variable allows, not an immediate, not a
/// float or predicate register.
fn mbarrier_address(
    insn: &Insn,
    scopes: &Scopes,
    addr: &super::operands::Addr,
    space_v: Option<StateSpace>,
    m: &mut Msgs,
) {
    const OP: &str = "cp.async.mbarrier.arrive";
    let unusable = unusable_address(insn, OP, scopes, addr.base);
    let resolved = unusable.is_empty();
    for d in unusable {
        m.add(Key::MbAddr, d);
    }
    match addr.base {
        _ if !resolved => {}
        Base::Var(name, nspan) => {
            let kind = match scopes.lookup(name) {
                Some(Sym::Var(v)) => Some(v.kind),
                _ => None,
            };
            if !space_ok_for_var(space_v, kind) {
                m.add(Key::MbAddr, space_mismatch(insn, OP, nspan, name, space_v));
            }
        }
        Base::Imm => m.add(Key::MbAddr, immediate_address(insn, addr.span)),
        Base::Reg(r, rspan) => {
            if let Some(rt @ (ScalarType::F32 | ScalarType::F64 | ScalarType::Pred)) = scopes.reg(r)
            {
                m.add(
                    Key::MbAddr,
                    super::ldst::bad_address_symbol(insn, r, rspan, rt.token()),
                );
            }
        }
    }
}
