//! The modifier scan of `ld`/`st` (docs/ptxas-rules.md §4.1 step 2): each modifier word is
//! classified and collected into a [`Scan`] in text order, with the duplicate/order messages
//! ptxas gives while scanning.

use super::*;

pub(super) type Tok<'a> = (&'a str, Span);

/// What the modifier scan collected (last value wins for one-value slots).
#[derive(Default)]
pub(super) struct Scan<'a> {
    pub(super) sem: Option<(MemorySemantics, Tok<'a>)>,
    pub(super) mmio: Option<Span>,
    pub(super) scope: Option<(Scope, Tok<'a>)>,
    pub(super) spaces: SmallVec<[(StateSpace, Tok<'a>); 2]>,
    pub(super) cop: Option<(CacheOperator, Tok<'a>)>,
    pub(super) nc: Option<Span>,
    pub(super) evs: SmallVec<[(Option<Level>, Prio, Tok<'a>); 2]>,
    pub(super) hint: Option<Span>,
    pub(super) pf: Option<Tok<'a>>,
    pub(super) vec: Option<(u32, Tok<'a>)>,
    pub(super) types: SmallVec<[(Option<ScalarType>, Tok<'a>); 2]>,
    /// A vector modifier is the last modifier: the warning comes at the very end.
    pub(super) vec_warn_last: Option<Span>,
    /// Known modifiers of other instructions (§5.12): cache levels (`.L1`, `.L2`,
    /// `.tensormap`), `.aligned`/`.noinc`, `.async`, `.sync`.
    pub(super) levels: SmallVec<[Tok<'a>; 2]>,
    pub(super) flags: SmallVec<[Tok<'a>; 2]>,
    pub(super) async_: Option<Span>,
    pub(super) sync: Option<Span>,
}

/// `ld` or `st` (not an unknown opcode scanned like them).
pub(super) fn lds(op: Option<Opcode>) -> bool {
    matches!(op, Some(Opcode::Ld | Opcode::St))
}

pub(super) fn is_ld(insn: &Insn) -> bool {
    insn.known == Some(Opcode::Ld)
}

pub(super) fn order(insn: &Insn) -> &'static [Key] {
    if insn.opcode.eq_ignore_ascii_case("ld") {
        LD_ORDER
    } else {
        ST_ORDER
    }
}

/// The scan stage (§4.1 step 2): messages in text order as modifiers are met.
pub(super) fn scan<'a>(cx: &Cx, insn: &Insn<'a>, m: &mut Msgs, vector_check: bool) -> Scan<'a> {
    let mut s = Scan::default();
    let (mut n_ev, mut n_lev) = (0, 0);
    let op = insn.opcode;
    for (i, &(t, span)) in insn.mods.iter().enumerate() {
        let pos = i as i32 * 10;
        let e = |ptxas: String, message: String| {
            insn.err(codes::REPEATED_MODIFIER, span, ptxas, message)
        };
        match classify(t) {
            Word::Sem(sem) => {
                if s.sem.is_some() {
                    m.scan(
                        pos,
                        e(
                            format!("Duplicate {t} modifier"),
                            format!("a second memory-semantics modifier `{t}`; `{op}` takes one of .weak/.volatile/.relaxed/.acquire/.release"),
                        ),
                    );
                }
                s.sem = Some((sem, (t, span)));
                if sem == MemorySemantics::Weak {
                    if let Some(d) = gate_version(cx, insn.start, Feature::Weak, "", op, span) {
                        m.scan(pos - 1, d);
                    }
                    if let Some(d) = gate_target(cx, insn.start, Feature::Weak, "", op, span) {
                        m.scan(pos - 1, d);
                    }
                }
            }
            Word::Mmio => {
                s.mmio = Some(span);
                if let Some(d) = gate_version(cx, insn.start, Feature::Mmio, "", op, span) {
                    m.scan(pos, d);
                }
                if let Some(d) = gate_target(cx, insn.start, Feature::Mmio, "", op, span) {
                    m.scan(pos, d);
                }
            }
            Word::Scope(sc) => {
                if s.scope.is_some() {
                    m.scan(
                        pos,
                        e(
                            "Multiple scope modifiers specified".into(),
                            format!("a second scope `{t}`; write one of .cta/.cluster/.gpu/.sys"),
                        ),
                    );
                }
                s.scope = Some((sc, (t, span)));
            }
            Word::Space(sp) => s.spaces.push((sp, (t, span))),
            Word::Cop(c) => {
                if s.cop.is_some() {
                    m.scan(
                        pos,
                        e(
                            "Multiple cache operation modifiers specified".into(),
                            format!("a second cache operator `{t}`; write at most one"),
                        ),
                    );
                }
                s.cop = Some((c, (t, span)));
            }
            Word::Nc => {
                if s.nc.is_some() {
                    m.scan(
                        pos,
                        e(
                            "Duplicate .nc modifier".into(),
                            "`.nc` is written twice".into(),
                        ),
                    );
                }
                s.nc = Some(span);
            }
            Word::Evict(lvl, p) => {
                s.evs.push((lvl, p, (t, span)));
                n_ev += 1;
                if lvl.is_some() {
                    n_lev += 1;
                }
                if n_ev >= 3 {
                    if n_lev > 2 {
                        m.scan(
                            pos,
                            e(
                                "Unexpected number of '.level::eviction_priority' modifiers specified".into(),
                                "more than two eviction priorities; write at most one per cache level".into(),
                            ),
                        );
                    }
                    m.scan(
                        pos,
                        e(
                            "Unexpected number of 'cache eviction priority' modifiers specified"
                                .into(),
                            "more than two eviction priorities; write at most one per cache level"
                                .into(),
                        ),
                    );
                }
            }
            Word::Hint => {
                if s.hint.is_some() {
                    m.scan(
                        pos,
                        e(
                            "Multiple .L2::cache_hint modifiers specified".into(),
                            "`.L2::cache_hint` is written twice".into(),
                        ),
                    );
                }
                s.hint.get_or_insert(span);
            }
            Word::Pf(_) => {
                if s.pf.is_some() {
                    m.scan(
                        pos,
                        e(
                            "Multiple cache prefetching modifiers specified".into(),
                            format!("a second prefetch size `{t}`; write one of .L2::64B/.L2::128B/.L2::256B"),
                        ),
                    );
                }
                s.pf = Some((t, span));
            }
            Word::Vec(n) => {
                if s.vec.is_some() {
                    m.scan(
                        pos,
                        e(
                            "Multiple vector modifiers specified".into(),
                            format!("a second vector width `{t}`"),
                        ),
                    );
                }
                s.vec = Some((n, (t, span)));
            }
            Word::Type(ty) => {
                s.types.push((ty, (t, span)));
                if ty == Some(ScalarType::Bf16) {
                    if let Some(d) = gate_target(cx, insn.start, Feature::Bf16, "", op, span) {
                        m.scan(pos, d);
                    }
                    if let Some(d) = gate_version(cx, insn.start, Feature::Bf16, "", op, span) {
                        m.scan(pos, d);
                    }
                }
            }
            Word::Level(_) | Word::Tensormap if lds(insn.known) => {
                // A second level word (`.L1`, `.L2`, `.tensormap`), as on prefetch (§20.4).
                if !s.levels.is_empty() {
                    m.scan(pos, insn.second_level(t, span));
                }
                s.levels.push((t, span))
            }
            Word::Unknown
                if lds(insn.known) && is_any(t, &[Modifier::Aligned, Flag::NoInc.into()]) =>
            {
                s.flags.push((t, span))
            }
            Word::Unknown if lds(insn.known) && is(t, Flag::Async) => {
                for d in gate_list(cx, insn.start, Feature::AsyncModifier, "", op, span) {
                    m.scan(pos, d);
                }
                s.async_ = Some(span);
            }
            Word::Unknown if lds(insn.known) && is(t, Modifier::Sync) => s.sync = Some(span),
            Word::Level(_) | Word::Tensormap | Word::Kind(_) | Word::Unknown => {
                m.scan(pos, unknown_modifier(insn, t, span));
            }
        }
    }
    if vector_check {
        // §7.3: a vector modifier other than .v8 must be followed by a type (or another
        // non-.v8 vector modifier).
        for (i, &(t, span)) in insn.mods.iter().enumerate() {
            if !matches!(classify(t), Word::Vec(2 | 4)) {
                continue;
            }
            match insn.mods.get(i + 1) {
                None => s.vec_warn_last = Some(span),
                Some(&(next, _)) => {
                    let ok = matches!(classify(next), Word::Type(_) | Word::Vec(2 | 4));
                    if !ok {
                        m.scan((i as i32 + 1) * 10 + 5, vector_warning(insn, span));
                    }
                }
            }
        }
    }
    s
}

/// The guard and scan messages of a statement cut short by a syntax error.
pub(crate) fn scan_messages(cx: &Cx, insn: &Insn, empty_modifier: bool) -> Vec<Diagnostic> {
    let mut m = Msgs::new(order(insn));
    scan(cx, insn, &mut m, !empty_modifier);
    m.finish().0
}
