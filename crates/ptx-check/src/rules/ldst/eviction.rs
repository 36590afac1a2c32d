//! Eviction priorities of `ld`/`st` (docs/ptxas-rules.md §5.5): the `.L1::`/`.L2::`
//! priorities, their gates, spaces and combinations, and the malformed-priority messages.

use super::*;

/// The eviction-priority messages of one `ld`/`st` (`space` is the first written state
/// space, `space_name` as written; `v256`: a 256-bit vector form).
pub(super) fn eviction_priorities(
    m: &mut Msgs,
    cx: &Cx,
    insn: &Insn,
    s: &Scan,
    space_v: Option<StateSpace>,
    sp_name: &str,
    v256: bool,
) {
    let op = insn.opcode;
    let head = insn.head();
    let lev: Vec<_> = s.evs.iter().filter(|e| e.0.is_some()).collect();
    let bare: Vec<_> = s.evs.iter().filter(|e| e.0.is_none()).collect();
    let first2 = &s.evs[..s.evs.len().min(2)];
    let lvl_of_bare = first2.iter().find_map(|e| e.0).unwrap_or(Level::L1);
    let mut l1_slot: Option<(Prio, Span)> = None;
    let mut l2_slot: Option<(Prio, Span)> = None;
    for e in first2
        .iter()
        .filter(|e| e.0.is_some())
        .chain(first2.iter().filter(|e| e.0.is_none()))
    {
        match e.0.unwrap_or(lvl_of_bare) {
            Level::L1 => l1_slot = Some((e.1, e.2 .1)),
            Level::L2 => l2_slot = Some((e.1, e.2 .1)),
        }
    }
    let same_level = lev.len() >= 2 && lev[0].0 == lev[1].0;
    if same_level {
        let lv = lev[0].0.map_or("L1", |l| l.name());
        m.add(
            Key::DuplicateEvict,
            insn.err(
                codes::REPEATED_MODIFIER,
                lev[1].2 .1,
                format!("Duplicate '.{lv}::eviction_priority' modifier specified for instruction '{op}'"),
                format!("two {lv} eviction priorities"),
            )
            .with_help("write at most one priority per cache level"),
        );
    }
    if let Some((p, span)) = l1_slot {
        let pn = p.name();
        gate(
            m,
            cx,
            insn,
            Feature::L1EvictionPriority,
            Key::EvictTgt,
            Key::EvictVer,
            pn,
            op,
            span,
        );
        if !matches!(space_v, None | Some(StateSpace::Global)) {
            m.add(
                Key::EvictSpace,
                insn.err(
                    codes::BAD_SPACE,
                    span,
                    format!("Modifier '.{pn}' cannot be applied to '{sp_name}' space for instruction '{op}'"),
                    format!("L1 eviction priorities apply to .global or generic accesses, not `{sp_name}`"),
                ),
            );
        }
        if let Some((_, (ct, _))) = s.cop {
            m.add(
                Key::CombineEvictCop,
                combine(
                    insn,
                    span,
                    &format!(".{pn}"),
                    ct,
                    "an L1 eviction priority replaces the cache operator: keep one of them",
                ),
            );
        }
        if s.mmio.is_some() {
            m.add(
                Key::CombineEvictMmio,
                combine(
                    insn,
                    span,
                    &format!(".{pn}"),
                    Flag::Mmio.token(),
                    "mmio accesses are never cached",
                ),
            );
        }
        if matches!(s.sem, Some((MemorySemantics::Volatile, _))) {
            m.add(
                Key::CombineEvictVolatile,
                combine(
                    insn,
                    span,
                    &format!(".{pn}"),
                    MemorySemantics::Volatile.token(),
                    "volatile accesses take no cache hints",
                ),
            );
        }
    }
    let syn = || {
        insn.err(
            codes::EVICTION_SYNTAX,
            bare.first().map_or(head, |b| b.2 .1),
            format!("'.level::eviction_priority' syntax expected for instruction '{op}'"),
            "an eviction priority without its cache level".into(),
        )
        .with_help("write `.L1::evict_last` (or `.L2::…`), not `.evict_last`")
    };
    let inc = || {
        insn.err(
            codes::EVICTION_SYNTAX,
            s.evs.first().map_or(head, |b| b.2 .1),
            format!(
                "Incorrect '.level::eviction_priority' modifier specified for instruction '{op}'"
            ),
            "the eviction priorities are malformed".into(),
        )
        .with_help("write at most one `.L1::…` and one `.L2::…` priority")
    };
    if lev.len() >= 2 {
        if same_level {
            m.add(Key::EvictIncorrect, inc());
        }
    } else if lev.len() == 1 && !bare.is_empty() {
        m.add(Key::EvictSyntax, syn());
        m.add(Key::EvictSyntax, syn());
    } else if lev.is_empty() && !bare.is_empty() {
        m.add(Key::EvictSyntax, syn());
        m.add(Key::EvictIncorrect, inc());
        if bare.len() >= 2 {
            m.add_sub(Key::EvictIncorrect, 1, syn());
        }
    }
    if let Some((p, span)) = l2_slot {
        let l2t = format!(".L2::{}", p.name());
        if !v256 {
            m.add(
                Key::L2EvictNeedsVec,
                insn.err(
                    codes::BAD_TYPE,
                    span,
                    format!("Instruction '{op}' requires '.v8.b32/.v4.b64' type with '{l2t}' modifier."),
                    format!("`{l2t}` works only with the 256-bit forms `.v8` (32-bit type) and `.v4` (64-bit type)"),
                )
                .with_help("use .v8.b32 / .v4.b64 (sm_100, PTX 8.8), or drop the L2 priority"),
            );
        }
        if matches!(p, Prio::EvictUnchanged | Prio::NoAllocate) {
            m.add(
                Key::IllegalL2Evict,
                insn.err(
                    codes::ILLEGAL_MODIFIER,
                    span,
                    format!("Illegal modifier '{l2t}' for instruction '{op}'"),
                    format!("`{l2t}` is not an L2 priority of `{op}`"),
                )
                .with_help(
                    "L2 priorities of ld/st: .L2::evict_normal, .L2::evict_first, .L2::evict_last",
                ),
            );
        }
    }
}
