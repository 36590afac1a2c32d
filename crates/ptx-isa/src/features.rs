//! Minimum `.target` and `.version` of every feature of the cache-control instructions, as
//! ptxas 13.5 enforces them (measured: `docs/ptxas-rules.md` §3, `tests/parity/`).
//!
//! One row per gate ptxas checks: the subject of its messages (`Feature 'cp.async'`,
//! `Modifier '.L2::cache_hint'`, …), the minimum target and version, which of the two messages
//! ptxas prints first, and — where they differ — what the ISA text says. `ptx-check` emits its
//! "requires" diagnostics from these rows and the feature table of `docs/features.md` is
//! generated from them, so the validator and the docs cannot disagree.

use crate::target::PtxVersion;

/// Which of the two messages ptxas prints first when both the target and the version are too
/// low.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GateOrder {
    TargetFirst,
    VersionFirst,
}

/// What the ISA text says where it differs from ptxas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IsaText {
    /// The ISA states the same minimums ptxas enforces.
    Same,
    /// The ISA states other minimums (`None`: no minimum of that kind stated).
    Differs {
        min_sm: Option<u32>,
        min_ptx: Option<PtxVersion>,
        note: &'static str,
    },
    /// The form is not in the ISA text at all (ptxas accepts or gates it anyway).
    NotInIsa(&'static str),
}

/// One row of the feature table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeatureRequirement {
    pub feature: Feature,
    /// Subject of ptxas's target message, e.g. `Feature 'cp.async'` or
    /// `Modifier '.{m}' on '{op}'` (`{m}` and `{op}` are filled in by the checker).
    pub target_subject: &'static str,
    /// Subject of ptxas's version message (usually the same as `target_subject`).
    pub version_subject: &'static str,
    /// Minimum `sm_XX` number (`None`: ptxas does not check the target).
    pub min_sm: Option<u32>,
    /// Minimum PTX ISA version (`None`: ptxas does not check the version).
    pub min_ptx: Option<PtxVersion>,
    /// The version ptxas's message names, where it differs from the one it checks
    /// (`.weak`: checked below 5.1, reported as "requires PTX ISA .version 6.0").
    pub ptx_shown: Option<PtxVersion>,
    pub order: GateOrder,
    pub isa: IsaText,
    /// The instructions the row applies to, for the docs.
    pub instructions: &'static str,
    /// When the gate applies, for the docs and help lines.
    pub summary: &'static str,
}

impl FeatureRequirement {
    /// ptxas's message when the target is below [`Self::min_sm`].
    pub fn target_message(&self, m: &str, op: &str) -> Option<String> {
        let sm = self.min_sm?;
        Some(format!(
            "{} requires .target sm_{sm} or higher",
            fill(self.target_subject, m, op)
        ))
    }

    /// ptxas's message when the version is below [`Self::min_ptx`].
    pub fn version_message(&self, m: &str, op: &str) -> Option<String> {
        let v = self.ptx_shown.or(self.min_ptx)?;
        Some(format!(
            "{} requires PTX ISA .version {v} or later",
            fill(self.version_subject, m, op)
        ))
    }
}

/// Fills the `{m}` and `{op}` placeholders of a subject template.
pub fn fill(template: &str, m: &str, op: &str) -> String {
    template.replace("{m}", m).replace("{op}", op)
}

const fn v(major: u32, minor: u32) -> Option<PtxVersion> {
    Some(PtxVersion::new(major, minor))
}

macro_rules! feature_table {
    ($($variant:ident {
        subject: $tsub:literal $(/ $vsub:literal)?,
        sm: $sm:expr, ptx: $ptx:expr, $(shown: $shown:expr,)? order: $order:ident,
        isa: $isa:expr, on: $on:literal, $summary:literal $(,)?
    })+) => {
        /// A gate ptxas checks: something with a minimum target and/or PTX version.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Feature { $($variant),+ }

        /// The table, one row per [`Feature`], in declaration order.
        pub const FEATURES: &[FeatureRequirement] = &[$(FeatureRequirement {
            feature: Feature::$variant,
            target_subject: $tsub,
            version_subject: feature_table!(@vsub $tsub $(, $vsub)?),
            min_sm: $sm,
            min_ptx: $ptx,
            ptx_shown: feature_table!(@shown $($shown)?),
            order: GateOrder::$order,
            isa: $isa,
            instructions: $on,
            summary: $summary,
        }),+];
    };
    (@vsub $t:literal) => { $t };
    (@shown) => { None };
    (@shown $s:expr) => { $s };
    (@vsub $t:literal, $v:literal) => { $v };
}

use IsaText::{Differs, NotInIsa, Same};

const fn isa(min_sm: Option<u32>, min_ptx: Option<PtxVersion>, note: &'static str) -> IsaText {
    Differs {
        min_sm,
        min_ptx,
        note,
    }
}

feature_table! {
    Weak {
        subject: "Feature '.weak'", sm: Some(70), ptx: v(5, 1), shown: v(6, 0), order: VersionFirst,
        isa: isa(Some(70), v(6, 0), "ptxas checks the version below 5.1 only, naming 6.0 (and reports the pair twice)"),
        on: "ld, st", "`.weak` written (the message is printed once per `.weak` and once more for the final semantics)",
    }
    Relaxed {
        subject: "Feature '.relaxed'", sm: Some(70), ptx: v(5, 1), shown: v(6, 0), order: VersionFirst,
        isa: isa(Some(70), v(6, 0), "ptxas checks the version below 5.1 only, naming 6.0"),
        on: "ld, st", "memory order `.relaxed` (also `.mmio.relaxed`)",
    }
    Acquire {
        subject: "Feature '.acquire'", sm: Some(70), ptx: v(5, 1), shown: v(6, 0), order: VersionFirst,
        isa: isa(Some(70), v(6, 0), "ptxas checks the version below 5.1 only, naming 6.0"),
        on: "ld", "memory order `.acquire`",
    }
    Release {
        subject: "Feature '.release'", sm: Some(70), ptx: v(5, 1), shown: v(6, 0), order: VersionFirst,
        isa: isa(Some(70), v(6, 0), "ptxas checks the version below 5.1 only, naming 6.0"),
        on: "st", "memory order `.release`",
    }
    MmioAcquire {
        subject: "Feature '.acquire'", sm: None, ptx: v(9, 3), order: TargetFirst,
        isa: NotInIsa("the ISA allows `.mmio` only with `.relaxed`"),
        on: "ld", "`.mmio.acquire` (the target check is the `.acquire` row)",
    }
    MmioRelease {
        subject: "Feature '.release'", sm: None, ptx: v(9, 3), order: TargetFirst,
        isa: NotInIsa("the ISA allows `.mmio` only with `.relaxed`"),
        on: "st", "`.mmio.release` (the target check is the `.release` row)",
    }
    Mmio {
        subject: "Feature '.mmio'", sm: Some(70), ptx: v(8, 2), order: VersionFirst,
        isa: Same, on: "ld, st", "`.mmio` written",
    }
    ClusterScope {
        subject: "Feature '.cluster scope'", sm: Some(90), ptx: v(7, 8), order: TargetFirst,
        isa: Same, on: "ld, st", "scope `.cluster`",
    }
    SharedCta {
        subject: "Feature '::cta'", sm: None, ptx: v(7, 8), order: VersionFirst,
        isa: isa(Some(30), v(7, 8), "ptxas checks no target"),
        on: "ld, st, cp.async.mbarrier.arrive", "state space `.shared::cta` (not checked at all on cp.async)",
    }
    SharedCluster {
        subject: "Feature '::cluster'", sm: Some(90), ptx: v(7, 8), order: VersionFirst,
        isa: Same, on: "ld, st, cp.async.mbarrier.arrive", "state space `.shared::cluster`",
    }
    ParamEntry {
        subject: "Feature '::entry'", sm: None, ptx: v(8, 3), order: VersionFirst,
        isa: Same, on: "ld, st", "state space `.param::entry`",
    }
    ParamFunc {
        subject: "Feature '::func'", sm: None, ptx: v(8, 3), order: VersionFirst,
        isa: Same, on: "ld, st", "state space `.param::func`",
    }
    L1EvictionPriority {
        subject: "Modifier '.{m}' on '{op}'", sm: Some(70), ptx: v(7, 4), order: VersionFirst,
        isa: Same, on: "ld, st", "an L1 eviction priority `.L1::evict_*`/`.L1::no_allocate` (also a bare `.evict_*`)",
    }
    Wide256 {
        subject: "Feature '256 bit wide load/store'", sm: Some(100), ptx: v(8, 8), order: VersionFirst,
        isa: Same, on: "ld, st", "`.v8` with a 32-bit type or `.v4` with a 64-bit type (also required by `.L2::evict_*` on ld/st)",
    }
    CachePrefetching {
        subject: "Feature 'cache prefetching'", sm: Some(75), ptx: v(7, 4), order: TargetFirst,
        isa: Same, on: "ld, cp.async", "a prefetch size `.L2::64B`/`.L2::128B`/`.L2::256B`",
    }
    Prefetch256B {
        subject: "Modifier '.L2::256B'" / "Feature '256B cache prefetching'",
        sm: Some(80), ptx: v(7, 4), order: TargetFirst,
        isa: isa(Some(75), v(7, 4), "the ISA gives sm_75 for every prefetch size on ld.global.nc and cp.async (only the ld text adds sm_80 for .L2::256B)"),
        on: "ld, cp.async", "prefetch size `.L2::256B` (in addition to `cache prefetching`)",
    }
    CacheHint {
        subject: "Modifier '.L2::cache_hint'", sm: Some(80), ptx: v(7, 4), order: TargetFirst,
        isa: Same, on: "ld, st, cp.async", "`.L2::cache_hint` with a cache-policy operand",
    }
    B128 {
        subject: "Feature 'Instruction type .b128 for instruction {op}'", sm: Some(70), ptx: v(8, 3),
        order: VersionFirst, isa: Same, on: "ld, st", "instruction type `.b128`",
    }
    B128Sys {
        subject: "Feature '.b128 with .sys'", sm: None, ptx: v(8, 4), order: VersionFirst,
        isa: Same, on: "ld, st", "type `.b128` with scope `.sys`",
    }
    LocalVolatile {
        subject: "Feature 'ld/st with .local.volatile'", sm: None, ptx: v(9, 1), order: VersionFirst,
        isa: Same, on: "ld, st", "`.volatile` on `.local`",
    }
    Bf16 {
        subject: "Feature '.bf16'", sm: Some(80), ptx: v(7, 0), order: TargetFirst,
        isa: NotInIsa("`.bf16` is not an ld/st type; ptxas gates it, then rejects the type"),
        on: "ld, st", "type word `.bf16`",
    }
    Unified {
        subject: "Feature '.unified'", sm: None, ptx: None, order: TargetFirst,
        isa: isa(Some(90), v(8, 0), "ptxas does not gate `.unified`"),
        on: "ld", "`[a].unified`",
    }
    CpAsync {
        subject: "Feature 'cp.async'", sm: Some(80), ptx: v(7, 0), order: VersionFirst,
        isa: Same, on: "cp.async", "every `cp.async.ca`/`.cg` copy",
    }
    CpAsyncIgnoreSrc {
        subject: "Feature 'igonre-src on cp.async'", sm: None, ptx: v(7, 5), order: VersionFirst,
        isa: Same, on: "cp.async", "a predicate (ignore-src) operand; ptxas misspells the name",
    }
    CpAsyncSharedCta {
        subject: "Feature '::cta'", sm: None, ptx: None, order: VersionFirst,
        isa: isa(None, v(7, 8), "ptxas does not gate `.shared::cta` on cp.async"),
        on: "cp.async", "destination `.shared::cta`",
    }
    CommitGroup {
        subject: "Feature 'cp.async.commit_group'", sm: Some(80), ptx: v(7, 0), order: VersionFirst,
        isa: Same, on: "cp.async.commit_group", "`cp.async.commit_group`",
    }
    WaitGroup {
        subject: "Feature 'cp.async.wait_group'", sm: Some(80), ptx: v(7, 0), order: VersionFirst,
        isa: Same, on: "cp.async.wait_group", "`cp.async.wait_group`",
    }
    WaitAll {
        subject: "Feature 'cp.async.wait_all'", sm: Some(80), ptx: v(7, 0), order: VersionFirst,
        isa: Same, on: "cp.async.wait_all", "`cp.async.wait_all`",
    }
    MbarrierArrive {
        subject: "Feature 'cp.async.mbarrier.arrive'", sm: Some(80), ptx: v(7, 0), order: VersionFirst,
        isa: Same, on: "cp.async.mbarrier.arrive", "`cp.async.mbarrier.arrive{.noinc}`",
    }
    BulkCommitGroup {
        subject: "Feature 'cp.async.bulk.commit_group'", sm: Some(90), ptx: v(8, 0), order: TargetFirst,
        isa: Same, on: "cp.async.bulk.commit_group", "`cp.async.bulk.commit_group`",
    }
    BulkWaitGroup {
        subject: "Feature 'cp.async.bulk.wait_group'", sm: Some(90), ptx: v(8, 0), order: TargetFirst,
        isa: Same, on: "cp.async.bulk.wait_group", "`cp.async.bulk.wait_group`",
    }
    BulkRead {
        subject: "Modifier '.read'", sm: Some(90), ptx: v(8, 0), order: TargetFirst,
        isa: Same, on: "cp.async.bulk.wait_group", "`.read` (printed before the instruction's own pair)",
    }
    LocInlinedAt {
        subject: "Feature 'Line information of inline functions'", sm: None, ptx: v(7, 0), order: TargetFirst,
        isa: Same, on: ".loc", "`.loc … inlined_at` (reported at each such `.loc`)",
    }
    AsyncModifier {
        subject: "Modifier '.async'", sm: Some(90), ptx: v(8, 0), order: TargetFirst,
        isa: NotInIsa("`.async` written again after an instruction name that has it"),
        on: "cp.async group instructions", "a second `.async` modifier (scan stage)",
    }
    Wait {
        subject: "Modifier '.wait'", sm: Some(90), ptx: v(7, 8), order: TargetFirst,
        isa: NotInIsa("malformed `cp.async.wait` / `cp.async.mbarrier.wait`"),
        on: "cp.async", "the word `.wait` after `cp.async`",
    }
    PolicyFractional {
        subject: "Feature 'createpolicy.fractional'", sm: Some(80), ptx: v(7, 4), order: TargetFirst,
        isa: Same, on: "createpolicy", "`createpolicy.fractional`",
    }
    PolicyRange {
        subject: "Feature 'createpolicy.range'", sm: Some(80), ptx: v(7, 4), order: TargetFirst,
        isa: Same, on: "createpolicy", "`createpolicy.range`",
    }
    PolicyCvt {
        subject: "Feature 'createpolicy.cvt'", sm: Some(80), ptx: v(7, 4), order: TargetFirst,
        isa: Same, on: "createpolicy", "`createpolicy.cvt`",
    }
    PolicyPriority {
        subject: "Modifier '.L2::{m}' on '{op}'", sm: Some(80), ptx: v(7, 4), order: VersionFirst,
        isa: NotInIsa("the ISA has no separate gate; ptxas checks each of the first two priorities"),
        on: "createpolicy", "each of the first two eviction priorities of `.fractional`/`.range`",
    }
    PrefetchEviction {
        subject: "Modifier 'cache eviction priority' on 'prefetch'", sm: Some(80), ptx: v(7, 4),
        order: VersionFirst,
        isa: Same, on: "prefetch", "`.L2::evict_last`/`.L2::evict_normal` (ptxas also accepts them without `.global`)",
    }
    Tensormap {
        subject: "Modifier '.tensormap'", sm: Some(90), ptx: v(8, 0), order: TargetFirst,
        isa: Same, on: "prefetch", "`prefetch.tensormap`",
    }
    RegB128 {
        subject: "Feature 'Type .b128'", sm: Some(70), ptx: v(8, 3), order: VersionFirst,
        isa: Same, on: ".reg declarations", "a `.reg .b128` declaration (the registers are declared anyway)",
    }
    RegF16x2 {
        subject: "Feature '.f16x2 packed data-type'", sm: Some(53), ptx: None, order: TargetFirst,
        isa: Same, on: ".reg declarations", "a `.reg .f16x2` declaration",
    }
    LdNc {
        subject: "Instruction 'ld.nc'", sm: Some(32), ptx: None, order: TargetFirst,
        isa: Same, on: "ld.global.nc", "`.nc` (targets below sm_32 only: sm_20, sm_30)",
    }
    MbarrierModifier {
        subject: "Feature '.mbarrier'", sm: Some(90), ptx: None, order: TargetFirst,
        isa: NotInIsa("a `.mbarrier` not followed by `.arrive` makes a cp.async copy; ptxas gates the word, then calls it illegal and unknown"),
        on: "cp.async", "`.mbarrier` on a cp.async copy",
    }
    ApplyPriority {
        subject: "Feature 'applypriority'", sm: Some(80), ptx: v(7, 4), order: TargetFirst,
        isa: Same, on: "applypriority", "`applypriority`",
    }
    Discard {
        subject: "Feature 'discard'", sm: Some(80), ptx: v(7, 4), order: TargetFirst,
        isa: Same, on: "discard", "`discard`",
    }
    ApplyPriorityEviction {
        subject: "Modifier '.{m}' on 'applypriority'", sm: Some(80), ptx: v(7, 4), order: VersionFirst,
        isa: NotInIsa("the ISA has no separate gate; ptxas checks the priority written, whatever it is"),
        on: "applypriority", "the eviction priority (`.L2::evict_normal`, also a wrong one)",
    }
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

    #[test]
    fn messages_are_ptxas_wording() {
        let r = Feature::CpAsync.requirement();
        assert_eq!(
            r.target_message("", "").unwrap(),
            "Feature 'cp.async' requires .target sm_80 or higher"
        );
        assert_eq!(
            r.version_message("", "").unwrap(),
            "Feature 'cp.async' requires PTX ISA .version 7.0 or later"
        );
        let l1 = Feature::L1EvictionPriority.requirement();
        assert_eq!(
            l1.version_message("evict_last", "ld").unwrap(),
            "Modifier '.evict_last' on 'ld' requires PTX ISA .version 7.4 or later"
        );
        let b = Feature::Prefetch256B.requirement();
        assert_eq!(
            b.version_message("", "").unwrap(),
            "Feature '256B cache prefetching' requires PTX ISA .version 7.4 or later"
        );
        assert!(Feature::SharedCta.requirement().min_sm.is_none());
    }
}
