//! Editing one instruction: reading its written hints, applying a step's hint set, checking
//! the result fits the instruction (`ld`/`st`, `cp.async` and its cp-size, `prefetch`), and
//! rebuilding its qualifier list.

use super::*;

/// What one step did to one instruction.
pub(super) enum Outcome {
    Changed,
    NotSelected,
    Skipped(String),
}

pub(super) fn known(q: Qualifier) -> Spanned<WrittenQualifier> {
    Spanned::new(WrittenQualifier::Known(q), Span::default())
}

pub(super) fn quals(written: &[Spanned<WrittenQualifier>]) -> impl Iterator<Item = Qualifier> + '_ {
    written.iter().filter_map(|m| match m.value {
        WrittenQualifier::Known(q) => Some(q),
        WrittenQualifier::Unknown(_) => None,
    })
}

/// Hint state read from a qualifier list.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Hints {
    pub(super) cache_op: Option<CacheOperator>,
    pub(super) l1: Option<L1EvictionPriority>,
    pub(super) l2: Option<L2EvictionPriority>,
    pub(super) cache_hint: bool,
    pub(super) prefetch: Option<PrefetchSize>,
}

impl Hints {
    pub(super) fn read(written: &[Spanned<WrittenQualifier>]) -> Hints {
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
    pub(super) fn with(mut self, e: &HintSet) -> Hints {
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

pub(super) fn is_hint(q: Qualifier) -> bool {
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
pub(super) fn rebuild(
    written: &[Spanned<WrittenQualifier>],
    h: &Hints,
) -> Vec<Spanned<WrittenQualifier>> {
    let mut out: Vec<Spanned<WrittenQualifier>> = written
        .iter()
        .filter(|m| !matches!(m.value, WrittenQualifier::Known(q) if is_hint(q)))
        .cloned()
        .collect();
    let position = |out: &[Spanned<WrittenQualifier>], stop: &dyn Fn(Qualifier) -> bool| {
        out.iter()
            .position(|m| matches!(m.value, WrittenQualifier::Known(q) if stop(q)))
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
pub(super) fn weak_global(ls: &LoadStore) -> Result<(), String> {
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

pub(super) fn edit(
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

pub(super) fn edit_load_store(
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
    let add_nc = matches!(step, Step::Set { hints, .. } if hints.nc) && !has_nc(ls);
    if new == cur && policy.is_none() && !add_nc {
        return Ok(Outcome::NotSelected);
    }
    let mut probe = ls.clone();
    if add_nc {
        if let Err(why) = nc_fits(ls, is_load) {
            return match step {
                Step::Set {
                    selector: Selector::Line(_),
                    ..
                } => Err(why),
                _ => Ok(Outcome::Skipped(why)),
            };
        }
        insert_nc(&mut probe.qualifiers.written);
    }
    if let Err(why) = fits_load_store(&probe, is_load, &new) {
        return match step {
            Step::Set {
                selector: Selector::Line(_),
                ..
            } => Err(why),
            _ => Ok(Outcome::Skipped(why)),
        };
    }
    ls.qualifiers.written = rebuild(&probe.qualifiers.written, &new);
    // The policy operand follows the address (ld) or the value (st).
    let old_policy = ls.operands.get(2).cloned();
    ls.operands.truncate(2);
    if new.cache_hint {
        ls.operands.extend(policy.or(old_policy));
    }
    Ok(Outcome::Changed)
}

fn has_nc(ls: &LoadStore) -> bool {
    quals(&ls.qualifiers.written).any(|q| q == Qualifier::Flag(Flag::Nc))
}

/// `.nc` exists only as `ld.global.nc` (the state space written: a generic `ld` has no
/// non-coherent form), weak.
fn nc_fits(ls: &LoadStore, is_load: bool) -> Result<(), String> {
    let global = quals(&ls.qualifiers.written).any(|q| q == Qualifier::Space(StateSpace::Global));
    if !is_load || !global {
        return Err(".nc exists only on ld.global (ld.global.nc)".into());
    }
    Ok(())
}

/// Inserts `.nc` where the ISA puts it: after `.global` and any cache operator.
fn insert_nc(written: &mut Vec<Spanned<WrittenQualifier>>) {
    let at = written
        .iter()
        .position(|m| {
            matches!(
                m.value,
                WrittenQualifier::Known(
                    Qualifier::L1(_)
                        | Qualifier::L2(_)
                        | Qualifier::Flag(Flag::CacheHint)
                        | Qualifier::Prefetch(_)
                        | Qualifier::Vector(_)
                        | Qualifier::Type(_)
                )
            )
        })
        .unwrap_or(written.len());
    written.insert(at, known(Qualifier::Flag(Flag::Nc)));
}

/// The ISA's restrictions on hints an `ld`/`st` may take (ptxas rejects the rest):
/// `.level2::eviction_priority` "is supported if `.vec` is `.v8` and `.type` is `.b32` … OR
/// `.vec` is `.v4` and `.type` is `.b64` …" (`ld.global.nc`, `st`); `ld.global{.cop}.nc` takes
/// `.cop = { .ca, .cg, .cs }`.
pub(super) fn fits_load_store(ls: &LoadStore, is_load: bool, h: &Hints) -> Result<(), String> {
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

pub(super) fn edit_cp_async(
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
pub(super) fn rebuild_cp_async(
    written: &[Spanned<WrittenQualifier>],
    h: &Hints,
) -> Vec<Spanned<WrittenQualifier>> {
    let mut out: Vec<Spanned<WrittenQualifier>> = Vec::new();
    for m in written {
        match m.value {
            WrittenQualifier::Known(q) if is_hint(q) => {}
            _ => out.push(m.clone()),
        }
        if matches!(
            &m.value,
            WrittenQualifier::Known(Qualifier::Flag(Flag::Async))
        ) {
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

pub(super) fn edit_prefetch(p: &mut Prefetch, step: &Step, line: u32) -> Result<Outcome, String> {
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
        if let WrittenQualifier::Known(Qualifier::L2(_)) = m.value {
            m.value = WrittenQualifier::Known(Qualifier::Level(ptx_isa::CacheLevel::L2));
        }
    }
    Ok(Outcome::Changed)
}
