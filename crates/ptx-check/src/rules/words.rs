//! What ptxas makes of each dotted word after an opcode. The validator classifies the written
//! modifiers itself (not through the parser's typed fields) because ptxas's view differs in
//! ways that matter for its messages: a bare `.evict_last` is an eviction priority without a
//! level, every PTX type is a type word even where the instruction takes none, and the last of
//! two values wins.

use ptx_isa::{
    CacheLevel, CacheOperator, Flag, MemorySemantics, Modifier, OpaqueType, PolicyKind,
    PrefetchSize, ScalarType, Scope, StateSpace, VectorWidth,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    L1,
    L2,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::L1 => "L1",
            Level::L2 => "L2",
        }
    }
}

/// An eviction priority, without its level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Prio {
    EvictNormal,
    EvictUnchanged,
    EvictFirst,
    EvictLast,
    NoAllocate,
}

impl Prio {
    pub fn name(self) -> &'static str {
        match self {
            Prio::EvictNormal => "evict_normal",
            Prio::EvictUnchanged => "evict_unchanged",
            Prio::EvictFirst => "evict_first",
            Prio::EvictLast => "evict_last",
            Prio::NoAllocate => "no_allocate",
        }
    }

    fn parse(s: &str) -> Option<Prio> {
        Some(match s {
            "evict_normal" => Prio::EvictNormal,
            "evict_unchanged" => Prio::EvictUnchanged,
            "evict_first" => Prio::EvictFirst,
            "evict_last" => Prio::EvictLast,
            "no_allocate" => Prio::NoAllocate,
            _ => return None,
        })
    }
}

/// A dotted word, classified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Word {
    Sem(MemorySemantics),
    Mmio,
    Scope(Scope),
    Space(StateSpace),
    Cop(CacheOperator),
    Nc,
    /// `.L1::evict_last` (level given) or `.evict_last` (bare).
    Evict(Option<Level>, Prio),
    Hint,
    Pf(PrefetchSize),
    /// `.v2`, `.v4`, `.v8`.
    Vec(u32),
    /// A type word; `None` for types the ScalarType table lacks (`.ue8m0`, `.e2m1` …).
    Type(Option<ScalarType>),
    /// `.L1` / `.L2` of prefetch and createpolicy.cvt.
    Level(Level),
    Tensormap,
    Kind(PolicyKind),
    Unknown,
}

/// Whether `t` is a type ptxas knows beyond [`ScalarType`]: the narrow float and integer
/// words of ptx-isa's [`Modifier`] table (`.e2m1`, `.ue8m0`, `.s2`, …) and the opaque types.
fn extra_type(t: &str) -> bool {
    use Modifier::{E2m1, E2m3, E3m2, Ue8m0, B2, S2, U2};
    matches!(
        Modifier::parse(t),
        Some(Ue8m0 | E2m1 | E2m3 | E3m2 | S2 | U2 | B2)
    ) || OpaqueType::from_token(t).is_some()
}

/// Whether the written word `t` is the modifier `m` (compared by ptx-isa's spelling of it:
/// the validator's word lists keep the words as written, for its messages).
#[inline]
pub(crate) fn is(t: &str, m: impl Into<Modifier>) -> bool {
    t == m.into().name()
}

/// Whether the written word `t` is one of `ms`.
#[inline]
pub(crate) fn is_any(t: &str, ms: &[Modifier]) -> bool {
    ms.iter().any(|&m| is(t, m))
}

/// Classifies a modifier as written (with its dot).
pub(crate) fn classify(t: &str) -> Word {
    use Word::*;
    // Every spelling is ptx-isa's (its qualifier tables); only the classes differ.
    if let Some(s) = MemorySemantics::from_token(t) {
        return Sem(s);
    }
    if let Some(s) = ptx_isa::Scope::from_token(t) {
        return Scope(s);
    }
    if let Some(v) = VectorWidth::from_token(t) {
        return Vec(v.lanes());
    }
    match Flag::from_token(t) {
        Some(Flag::Mmio) => return Mmio,
        Some(Flag::Nc) => return Nc,
        Some(Flag::CacheHint) => return Hint,
        Some(Flag::Tensormap) => return Tensormap,
        _ => {}
    }
    match CacheLevel::from_token(t) {
        Some(CacheLevel::L1) => return Level(self::Level::L1),
        Some(CacheLevel::L2) => return Level(self::Level::L2),
        None => {}
    }
    if let Some(s) = StateSpace::from_token(t) {
        return if matches!(s, StateSpace::Reg | StateSpace::Sreg) {
            Unknown
        } else {
            Space(s)
        };
    }
    if let Some(c) = CacheOperator::from_token(t) {
        return Cop(c);
    }
    if let Some(p) = PrefetchSize::from_token(t) {
        return Pf(p);
    }
    if let Some(k) = PolicyKind::from_token(t) {
        return Kind(k);
    }
    if let Some(ty) = ScalarType::from_token(t) {
        return Type(Some(ty));
    }
    if extra_type(t) {
        return Type(None);
    }
    let body = &t[1.min(t.len())..];
    if let Some(p) = body.strip_prefix("L1::").and_then(Prio::parse) {
        return Evict(Some(self::Level::L1), p);
    }
    if let Some(p) = body.strip_prefix("L2::").and_then(Prio::parse) {
        return Evict(Some(self::Level::L2), p);
    }
    if let Some(p) = Prio::parse(body) {
        return Evict(None, p);
    }
    Unknown
}

/// The types `ld` and `st` take.
pub(crate) fn is_ldst_type(t: Option<ScalarType>) -> bool {
    use ScalarType::*;
    matches!(
        t,
        Some(B8 | B16 | B32 | B64 | B128 | U8 | U16 | U32 | U64 | S8 | S16 | S32 | S64 | F32 | F64)
    )
}

/// `.bf16`, `.bf16x2`, `.tf32`: next to one ld/st type, ptxas checks the operands first
/// (docs/ptxas-rules.md §5.1).
pub(crate) fn is_alt_type(t: Option<ScalarType>) -> bool {
    matches!(
        t,
        Some(ScalarType::Bf16 | ScalarType::Bf16x2 | ScalarType::Tf32)
    )
}

/// The text after the dot and level: `.L1::evict_last` → `evict_last`.
pub(crate) fn after_colons(t: &str) -> &str {
    match t.rfind("::") {
        Some(i) => &t[i + 2..],
        None => t.trim_start_matches('.'),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_ptxas_words() {
        assert_eq!(classify(".evict_last"), Word::Evict(None, Prio::EvictLast));
        assert_eq!(
            classify(".L2::no_allocate"),
            Word::Evict(Some(Level::L2), Prio::NoAllocate)
        );
        assert_eq!(classify(".L2::256B"), Word::Pf(PrefetchSize::B256));
        assert_eq!(classify(".shared::cta"), Word::Space(StateSpace::SharedCta));
        assert_eq!(classify(".L3::evict_last"), Word::Unknown);
        assert_eq!(classify(".e2m1"), Word::Type(None));
        assert_eq!(classify(".reg"), Word::Unknown);
        assert_eq!(classify(".weak"), Word::Sem(MemorySemantics::Weak));
        assert_eq!(classify(".cta"), Word::Scope(Scope::Cta));
        assert_eq!(classify(".v8"), Word::Vec(8));
        assert_eq!(classify(".nc"), Word::Nc);
        assert_eq!(classify(".L2"), Word::Level(Level::L2));
        assert_eq!(classify(".async"), Word::Unknown);
        assert_eq!(after_colons(".L1::evict_last"), "evict_last");
        assert_eq!(after_colons(".evict_last"), "evict_last");
    }
}
