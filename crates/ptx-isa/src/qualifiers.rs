//! Qualifier tables of the cache-control instructions.
//!
//! One enum per qualifier class, each variant with its PTX spelling; [`Qualifier`] unites them
//! so a dotted token can be classified in one lookup ([`Qualifier::from_token`]).

use crate::token_enum;
use crate::types::ScalarType;

token_enum! {
    /// A state space, with the sub-qualified forms PTX 7.8+/8.3+ allow.
    pub enum StateSpace {
        Reg = ".reg", Sreg = ".sreg", Const = ".const", Global = ".global", Local = ".local",
        Param = ".param", ParamEntry = ".param::entry", ParamFunc = ".param::func",
        Shared = ".shared", SharedCta = ".shared::cta", SharedCluster = ".shared::cluster",
        Tex = ".tex",
    }
}

impl StateSpace {
    /// The space without its sub-qualifier (`.shared::cta` → `.shared`).
    pub const fn base(self) -> StateSpace {
        match self {
            StateSpace::ParamEntry | StateSpace::ParamFunc => StateSpace::Param,
            StateSpace::SharedCta | StateSpace::SharedCluster => StateSpace::Shared,
            other => other,
        }
    }

    /// True for `.shared`, `.shared::cta` and `.shared::cluster`.
    pub const fn is_shared(self) -> bool {
        matches!(self.base(), StateSpace::Shared)
    }

    /// True for `.param`, `.param::entry` and `.param::func`.
    pub const fn is_param(self) -> bool {
        matches!(self.base(), StateSpace::Param)
    }
}

token_enum! {
    /// Cache operators of loads (`.ca .cg .cs .lu .cv`) and stores (`.wb .cg .cs .wt`).
    /// Spec: "Cache Operators", Tables 30 and 31.
    pub enum CacheOperator {
        Ca = ".ca", Cg = ".cg", Cs = ".cs", Lu = ".lu", Cv = ".cv", Wb = ".wb", Wt = ".wt",
    }
}

impl CacheOperator {
    /// Operators Table 30 defines for loads.
    pub const fn is_load_operator(self) -> bool {
        matches!(self, Self::Ca | Self::Cg | Self::Cs | Self::Lu | Self::Cv)
    }

    /// Operators Table 31 defines for stores.
    pub const fn is_store_operator(self) -> bool {
        matches!(self, Self::Wb | Self::Cg | Self::Cs | Self::Wt)
    }
}

token_enum! {
    /// Memory-consistency qualifiers of `ld`/`st` (mutually exclusive; `.weak` is the default).
    pub enum MemorySemantics {
        Weak = ".weak", Volatile = ".volatile", Relaxed = ".relaxed", Acquire = ".acquire",
        Release = ".release",
    }
}

token_enum! {
    /// Thread scopes of relaxed/acquire/release (and mmio) accesses.
    pub enum Scope { Cta = ".cta", Cluster = ".cluster", Gpu = ".gpu", Sys = ".sys" }
}

token_enum! {
    /// `.level1::eviction_priority`: the L1 eviction priority of an access.
    pub enum L1EvictionPriority {
        EvictNormal = ".L1::evict_normal", EvictUnchanged = ".L1::evict_unchanged",
        EvictFirst = ".L1::evict_first", EvictLast = ".L1::evict_last",
        NoAllocate = ".L1::no_allocate",
    }
}

token_enum! {
    /// `.level2::eviction_priority` of `ld`/`st` (`evict_normal/first/last`), and the primary and
    /// secondary priorities of `createpolicy` (which add `evict_unchanged`).
    pub enum L2EvictionPriority {
        EvictNormal = ".L2::evict_normal", EvictFirst = ".L2::evict_first",
        EvictLast = ".L2::evict_last", EvictUnchanged = ".L2::evict_unchanged",
    }
}

token_enum! {
    /// `.level::prefetch_size`: extra data fetched into L2 on a miss.
    pub enum PrefetchSize { B64 = ".L2::64B", B128 = ".L2::128B", B256 = ".L2::256B" }
}

impl PrefetchSize {
    pub const fn bytes(self) -> u32 {
        match self {
            PrefetchSize::B64 => 64,
            PrefetchSize::B128 => 128,
            PrefetchSize::B256 => 256,
        }
    }
}

token_enum! {
    /// Vector width of a load or store.
    pub enum VectorWidth { V2 = ".v2", V4 = ".v4", V8 = ".v8" }
}

impl VectorWidth {
    pub const fn lanes(self) -> u32 {
        match self {
            VectorWidth::V2 => 2,
            VectorWidth::V4 => 4,
            VectorWidth::V8 => 8,
        }
    }
}

token_enum! {
    /// Cache level named by `prefetch`, `prefetchu` and `createpolicy.cvt`.
    pub enum CacheLevel { L1 = ".L1", L2 = ".L2" }
}

token_enum! {
    /// How `createpolicy` builds its policy.
    pub enum PolicyKind { Range = ".range", Fractional = ".fractional", Cvt = ".cvt" }
}

token_enum! {
    /// Qualifiers that are present or absent.
    pub enum Flag {
        /// `ld.global.nc`: the non-coherent read-only path.
        Nc = ".nc",
        /// `.mmio`: memory-mapped I/O (never cached).
        Mmio = ".mmio",
        /// `.L2::cache_hint`: a cache-policy operand follows.
        CacheHint = ".L2::cache_hint",
        /// `cp.async.mbarrier.arrive.noinc`.
        NoInc = ".noinc",
        /// `prefetch.tensormap`.
        Tensormap = ".tensormap",
        /// `.async` of `cp.async`.
        Async = ".async",
        CommitGroup = ".commit_group",
        WaitGroup = ".wait_group",
        WaitAll = ".wait_all",
        Mbarrier = ".mbarrier",
        Arrive = ".arrive",
        Bulk = ".bulk",
    }
}

/// Any qualifier of the cache-control instructions, classified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Qualifier {
    Space(StateSpace),
    Semantics(MemorySemantics),
    Scope(Scope),
    CacheOp(CacheOperator),
    L1(L1EvictionPriority),
    L2(L2EvictionPriority),
    Prefetch(PrefetchSize),
    Vector(VectorWidth),
    Type(ScalarType),
    Level(CacheLevel),
    Policy(PolicyKind),
    Flag(Flag),
}

impl Qualifier {
    /// Classifies a dotted token such as `.L2::evict_last` or `.shared::cta`.
    pub fn from_token(token: &str) -> Option<Qualifier> {
        StateSpace::from_token(token)
            .map(Qualifier::Space)
            .or_else(|| ScalarType::from_token(token).map(Qualifier::Type))
            .or_else(|| CacheOperator::from_token(token).map(Qualifier::CacheOp))
            .or_else(|| MemorySemantics::from_token(token).map(Qualifier::Semantics))
            .or_else(|| Scope::from_token(token).map(Qualifier::Scope))
            .or_else(|| L1EvictionPriority::from_token(token).map(Qualifier::L1))
            .or_else(|| L2EvictionPriority::from_token(token).map(Qualifier::L2))
            .or_else(|| PrefetchSize::from_token(token).map(Qualifier::Prefetch))
            .or_else(|| VectorWidth::from_token(token).map(Qualifier::Vector))
            .or_else(|| CacheLevel::from_token(token).map(Qualifier::Level))
            .or_else(|| PolicyKind::from_token(token).map(Qualifier::Policy))
            .or_else(|| Flag::from_token(token).map(Qualifier::Flag))
    }

    /// Every qualifier of every table, in [`Qualifier::from_token`]'s order of the tables.
    pub fn all() -> impl Iterator<Item = Qualifier> {
        (StateSpace::ALL.iter().map(|&x| Qualifier::Space(x)))
            .chain(ScalarType::ALL.iter().map(|&x| Qualifier::Type(x)))
            .chain(CacheOperator::ALL.iter().map(|&x| Qualifier::CacheOp(x)))
            .chain(
                MemorySemantics::ALL
                    .iter()
                    .map(|&x| Qualifier::Semantics(x)),
            )
            .chain(Scope::ALL.iter().map(|&x| Qualifier::Scope(x)))
            .chain(L1EvictionPriority::ALL.iter().map(|&x| Qualifier::L1(x)))
            .chain(L2EvictionPriority::ALL.iter().map(|&x| Qualifier::L2(x)))
            .chain(PrefetchSize::ALL.iter().map(|&x| Qualifier::Prefetch(x)))
            .chain(VectorWidth::ALL.iter().map(|&x| Qualifier::Vector(x)))
            .chain(CacheLevel::ALL.iter().map(|&x| Qualifier::Level(x)))
            .chain(PolicyKind::ALL.iter().map(|&x| Qualifier::Policy(x)))
            .chain(Flag::ALL.iter().map(|&x| Qualifier::Flag(x)))
    }

    /// The PTX spelling.
    #[inline]
    pub fn token(self) -> &'static str {
        match self {
            Qualifier::Space(q) => q.token(),
            Qualifier::Semantics(q) => q.token(),
            Qualifier::Scope(q) => q.token(),
            Qualifier::CacheOp(q) => q.token(),
            Qualifier::L1(q) => q.token(),
            Qualifier::L2(q) => q.token(),
            Qualifier::Prefetch(q) => q.token(),
            Qualifier::Vector(q) => q.token(),
            Qualifier::Type(q) => q.token(),
            Qualifier::Level(q) => q.token(),
            Qualifier::Policy(q) => q.token(),
            Qualifier::Flag(q) => q.token(),
        }
    }
}

impl core::fmt::Display for Qualifier {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.token())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_are_unique_across_tables() {
        let mut all: Vec<&str> = Vec::new();
        all.extend(StateSpace::ALL.iter().map(|q| q.token()));
        all.extend(ScalarType::ALL.iter().map(|q| q.token()));
        all.extend(CacheOperator::ALL.iter().map(|q| q.token()));
        all.extend(MemorySemantics::ALL.iter().map(|q| q.token()));
        all.extend(Scope::ALL.iter().map(|q| q.token()));
        all.extend(L1EvictionPriority::ALL.iter().map(|q| q.token()));
        all.extend(L2EvictionPriority::ALL.iter().map(|q| q.token()));
        all.extend(PrefetchSize::ALL.iter().map(|q| q.token()));
        all.extend(VectorWidth::ALL.iter().map(|q| q.token()));
        all.extend(CacheLevel::ALL.iter().map(|q| q.token()));
        all.extend(PolicyKind::ALL.iter().map(|q| q.token()));
        all.extend(Flag::ALL.iter().map(|q| q.token()));
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n, "a spelling appears in two qualifier tables");
        for token in all {
            let q = Qualifier::from_token(token).expect("every spelling classifies");
            assert_eq!(q.token(), token);
        }
        assert_eq!(
            Qualifier::all().count(),
            n,
            "Qualifier::all lists every table"
        );
    }

    #[test]
    fn classifies_sub_qualified_tokens() {
        assert_eq!(
            Qualifier::from_token(".shared::cta"),
            Some(Qualifier::Space(StateSpace::SharedCta))
        );
        assert_eq!(
            Qualifier::from_token(".L2::256B"),
            Some(Qualifier::Prefetch(PrefetchSize::B256))
        );
        assert_eq!(Qualifier::from_token(".L2::evict_middle"), None);
        assert_eq!(StateSpace::SharedCluster.base(), StateSpace::Shared);
    }
}
