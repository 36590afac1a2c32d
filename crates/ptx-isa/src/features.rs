//! Minimum `.target` and `.version` of every feature of the cache-control instructions.
//!
//! One row per feature: the validator checks a module against these rows and the docs table
//! (`ptxsim isa --markdown`) is printed from them. Where ptxas 13.5 enforces something other
//! than the ISA text, the row holds ptxas's numbers and `isa` records what the text says.

use crate::target::PtxVersion;

/// The name ptxas uses in its messages, and the form of that message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PtxasName {
    /// `Modifier '<name>' requires ...`
    Modifier(&'static str),
    /// `Feature '<name>' requires ...`
    Feature(&'static str),
    /// `Instruction '<name>' requires ...`
    Instruction(&'static str),
}

impl PtxasName {
    /// `Modifier '.L2::cache_hint'` — the subject of ptxas's "requires" messages.
    pub fn subject(self) -> String {
        match self {
            PtxasName::Modifier(n) => format!("Modifier '{n}'"),
            PtxasName::Feature(n) => format!("Feature '{n}'"),
            PtxasName::Instruction(n) => format!("Instruction '{n}'"),
        }
    }
}

/// Where the ISA text states a different minimum than ptxas enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IsaText {
    pub min_sm: u32,
    pub min_ptx: PtxVersion,
}

/// One row of the feature table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeatureRequirement {
    pub feature: Feature,
    pub ptxas_name: PtxasName,
    /// Minimum `sm_XX` number.
    pub min_sm: u32,
    pub min_ptx: PtxVersion,
    /// The ISA text's numbers, when they differ from ptxas's.
    pub isa: Option<IsaText>,
    /// What the feature is, for the docs.
    pub summary: &'static str,
}

macro_rules! feature_table {
    ($($variant:ident: $name:expr, sm $sm:literal, ptx ($maj:literal, $min:literal),
       $(isa sm $isa_sm:literal ptx ($isa_maj:literal, $isa_min:literal),)? $summary:literal;)+) => {
        /// A feature with a minimum target or PTX version.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Feature { $($variant),+ }

        /// The table, one row per [`Feature`], in declaration order.
        pub const FEATURES: &[FeatureRequirement] = &[$(FeatureRequirement {
            feature: Feature::$variant,
            ptxas_name: $name,
            min_sm: $sm,
            min_ptx: PtxVersion::new($maj, $min),
            isa: feature_table!(@isa $($isa_sm $isa_maj $isa_min)?),
            summary: $summary,
        }),+];
    };
    (@isa) => { None };
    (@isa $sm:literal $maj:literal $min:literal) => {
        Some(IsaText { min_sm: $sm, min_ptx: PtxVersion::new($maj, $min) })
    };
}

use PtxasName::{Feature as F, Instruction as I, Modifier as M};

feature_table! {
    LdGlobalNc: I("ld.global.nc"), sm 32, ptx (3, 1), "ld.global.nc: loads through the non-coherent read-only cache";
    CacheOperators: F("cache operators"), sm 20, ptx (2, 0), "cache operators .ca .cg .cs .lu .cv .wb .wt";
    MemorySemantics: F(".relaxed/.acquire/.release/.weak"), sm 70, ptx (6, 0), "memory-consistency qualifiers and scopes";
    ClusterScope: M(".cluster"), sm 90, ptx (7, 8), ".cluster scope";
    SharedCta: M(".shared::cta"), sm 30, ptx (7, 8), ".shared::cta sub-qualifier";
    SharedCluster: M(".shared::cluster"), sm 90, ptx (7, 8), ".shared::cluster sub-qualifier";
    ParamFunc: M(".param::func"), sm 20, ptx (8, 3), ".param::func / ::entry sub-qualifiers";
    Mmio: M(".mmio"), sm 70, ptx (8, 2), "st/ld .mmio.relaxed.sys";
    B128: F(".b128"), sm 70, ptx (8, 3), "128-bit .b128 loads and stores";
    B128Sys: F(".b128 with .sys scope"), sm 70, ptx (8, 4), ".sys scope with .b128";
    L1EvictionPriority: M(".L1::evict_*"), sm 70, ptx (7, 4), ".L1:: eviction priorities";
    L2EvictionPriority: M(".L2::evict_*"), sm 100, ptx (8, 8), ".L2:: eviction priorities on ld/st (.v8.b32 / .v4.b64 only)";
    Vector256: F(".v8.b32/.v4.b64"), sm 100, ptx (8, 8), "256-bit vector loads and stores";
    L2CacheHint: M(".L2::cache_hint"), sm 80, ptx (7, 4), ".L2::cache_hint with a cache-policy operand";
    PrefetchSize: M(".L2::prefetch_size"), sm 80, ptx (7, 4), isa sm 75 ptx (7, 4), ".L2::64B/128B/256B prefetch size";
    VolatileLocal: F(".volatile with .local"), sm 20, ptx (9, 1), "st.volatile.local";
    CpAsync: I("cp.async"), sm 80, ptx (7, 0), "cp.async and its group/wait forms";
    CpAsyncCacheHint: M(".L2::cache_hint on cp.async"), sm 80, ptx (7, 4), "cp.async .L2::cache_hint and prefetch size";
    CpAsyncIgnoreSrc: F("cp.async ignore-src"), sm 80, ptx (7, 5), "cp.async ignore-src predicate";
    CpAsyncMbarrierArrive: I("cp.async.mbarrier.arrive"), sm 80, ptx (7, 0), "cp.async.mbarrier.arrive{.noinc}";
    CreatePolicy: I("createpolicy"), sm 80, ptx (7, 4), "createpolicy range/fractional/cvt";
    PrefetchEvictionPriority: M("prefetch .L2::evict_*"), sm 80, ptx (7, 4), "prefetch.global.L2::evict_last/normal";
}

impl Feature {
    /// This feature's row.
    pub fn requirement(self) -> &'static FeatureRequirement {
        &FEATURES[self as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_in_variant_order() {
        for (i, row) in FEATURES.iter().enumerate() {
            assert_eq!(row.feature as usize, i);
            assert_eq!(row.feature.requirement(), row);
        }
    }
}
