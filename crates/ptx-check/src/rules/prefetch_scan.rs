//! The modifier scan that `prefetch`/`prefetchu` and `applypriority`/`discard` share: ptxas
//! reads the modifiers of both the same way (docs/ptxas-rules.md §11, §20.2): it reports
//! unknown words, a second level word and a third eviction priority as it reads them, and
//! notes the rest (spaces, levels, priorities, types, cache operators, prefetch sizes, a cache
//! hint, a vector word, modifiers of other instructions) for the checks that follow.

use super::collect::Msgs;
use super::words::{classify, Level, Prio, Word};
use super::{scan_vector_placement, unknown_modifier, Cx, Foreign, Insn};
use crate::codes;
use ptx_isa::StateSpace;
use ptx_syntax::Span;

/// Which eviction-priority words are the instruction's own.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Evictions {
    /// Only levelled ones (`.L1::evict_last`, `.L2::evict_normal`): prefetch. An unlevelled
    /// `.evict_last` is read as a modifier of another instruction, or an unknown one.
    Levelled,
    /// Levelled or not: applypriority and discard, whose checks judge the level themselves.
    Any,
}

/// What the scan noted, in written order, for the checks that follow it.
#[derive(Default)]
pub(crate) struct PrefetchScan<'a> {
    pub spaces: Vec<(StateSpace, &'a str, Span)>,
    /// `.L1`, `.L2`, `.tensormap` (the last one counts).
    pub levels: Vec<(&'a str, Span)>,
    /// Eviction priorities, with the level they name (if any; always one on prefetch, see
    /// [`Evictions`]).
    pub evs: Vec<(Option<Level>, Prio, &'a str, Span)>,
    pub types: Vec<Span>,
    pub cops: Vec<(&'a str, Span)>,
    pub pfs: Vec<(&'a str, Span)>,
    pub hint: Option<Span>,
    pub vec: Option<Span>,
    pub vec_tail: Option<Span>,
    pub foreign: Foreign<'a>,
}

/// Scans the modifiers of `insn`, reporting into `m` (at each word's position) what ptxas
/// reports while it reads them.
pub(crate) fn scan<'a>(
    cx: &Cx,
    insn: &Insn<'a>,
    m: &mut Msgs,
    evictions: Evictions,
) -> PrefetchScan<'a> {
    let mut s = PrefetchScan::default();
    for (i, &(t, span)) in insn.mods.iter().enumerate() {
        let pos = i as i32 * 10;
        match classify(t) {
            Word::Space(sp) => s.spaces.push((sp, t, span)),
            Word::Level(_) | Word::Tensormap => {
                if !s.levels.is_empty() {
                    m.scan(pos, insn.second_level(t, span));
                }
                s.levels.push((t, span));
            }
            Word::Evict(lvl, p) if lvl.is_some() || evictions == Evictions::Any => {
                s.evs.push((lvl, p, t, span));
                if s.evs.len() >= 3 {
                    let e = |what: &str| {
                        insn.err(
                            codes::REPEATED_MODIFIER,
                            span,
                            format!("Unexpected number of '{what}' modifiers specified"),
                            "more than two eviction priorities".into(),
                        )
                    };
                    m.scan(pos, e(".level::eviction_priority"));
                    m.scan(pos, e("cache eviction priority"));
                }
            }
            Word::Type(_) => s.types.push(span),
            Word::Cop(_) => s.cops.push((t, span)),
            Word::Pf(_) => s.pfs.push((t, span)),
            Word::Hint => s.hint = Some(span),
            Word::Vec(_) => s.vec = Some(span),
            _ if s.foreign.take(cx, insn, m, pos, t, span) => {}
            _ => m.scan(pos, unknown_modifier(insn, t, span)),
        }
    }
    s.vec_tail = scan_vector_placement(insn, insn.mods, m);
    s
}
