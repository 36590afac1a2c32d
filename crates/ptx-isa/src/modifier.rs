//! The modifiers of PTX instructions (the dotted words after the opcode), as one enum:
//! [`Modifier`].
//!
//! The parser classifies every modifier of a generic instruction once ([`Modifier::parse`]);
//! the validator and the interpreter's lowering test and match [`Modifier`] values, never
//! spellings. A spelling that one of the qualifier tables of the cache-control instructions
//! already owns (state spaces, types, scopes, memory semantics, vector widths, cache
//! operators, eviction priorities, prefetch sizes, levels, policy kinds and flags such as
//! `.async` or `.L2::cache_hint`) is not repeated here: it classifies as
//! [`Modifier::Qualifier`] with its typed value, and `Modifier::from(StateSpace::Global)`
//! names it. Every other spelling ptxsim tests is one row of the `modifiers!` table below
//! (`Sat = ".sat"`); a spelling in neither table stays unclassified (`None`), written as it
//! was, so that diagnostics quote it unchanged.
//!
//! Adding a modifier: its row here (the spelling must not be in a qualifier table: the test
//! `spellings_are_unique` checks), then match on the new variant where it matters.

use crate::qualifiers::*;
use crate::types::ScalarType;
use rustc_hash::FxHashMap;
use std::sync::OnceLock;

macro_rules! modifiers {
    ($($(#[$vmeta:meta])* $variant:ident = $name:literal,)+) => {
        /// A modifier of an instruction: a word of the table, or a qualifier of a
        /// qualifier table.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Modifier {
            $($(#[$vmeta])* $variant,)+
            /// A spelling of one of the qualifier tables ([`Qualifier::from_token`]).
            Qualifier(Qualifier),
        }

        impl Modifier {
            /// Every word of the table (not the qualifiers), in the table's order.
            pub const ALL: &'static [Modifier] = &[$(Modifier::$variant),+];

            /// The PTX spelling, with its dot (`.sat`, `.shared::cta`, …).
            #[inline]
            pub fn name(self) -> &'static str {
                match self {
                    $(Modifier::$variant => $name,)+
                    Modifier::Qualifier(q) => q.token(),
                }
            }

            /// The modifier spelled `word` (with its dot, case-sensitive), if either table
            /// has it. The parser classifies every modifier of every generic instruction, so
            /// this is one table lookup of the word packed into a `u64` (see [`Index`]), not a
            /// `match` over the ~270 spellings: callgrind, `ptxsim check` of the 7.6 MB bench
            /// module (scripts/bench-check.sh), 843.8 M instructions before the modifiers were
            /// classified, 898.0 M with a `match` here, 867.8 M with the table.
            #[inline]
            pub fn parse(word: &str) -> Option<Modifier> {
                static INDEX: OnceLock<Index> = OnceLock::new();
                INDEX.get_or_init(Index::new_cold).get(word)
            }
        }
    };
}

#[rustfmt::skip]
modifiers! {
    /// `.1d` … `.5d`: tensor dimensions of the bulk tensor copies.
    Dim1 = ".1d", Dim2 = ".2d", Dim3 = ".3d", Dim4 = ".4d", Dim5 = ".5d",
    /// `wmma.load.a` (and `.b`, `.c`, `.d`: the matrix a `wmma` access names).
    A = ".a", B = ".b", C = ".c", D = ".d",
    AcqRel = ".acq_rel", Aligned = ".aligned", Approx = ".approx", Full = ".full",
    /// Reduction and atomic operations (`red.add`, `atom.cas`, `bar.red.popc`, `lop3.or`, …).
    Add = ".add", Min = ".min", Max = ".max", Inc = ".inc", Dec = ".dec", And = ".and",
    Or = ".or", Xor = ".xor", Exch = ".exch", Cas = ".cas", Popc = ".popc",
    /// `vote` modes.
    All = ".all", Any = ".any", Uni = ".uni",
    /// `mbarrier` operations.
    Init = ".init", ArriveDrop = ".arrive_drop", ExpectTx = ".expect_tx",
    CompleteTx = ".complete_tx", TestWait = ".test_wait", TryWait = ".try_wait",
    Inval = ".inval", PendingCount = ".pending_count", Parity = ".parity",
    /// `prmt` modes.
    F4e = ".f4e", B4e = ".b4e", Rc8 = ".rc8", Ecl = ".ecl", Ecr = ".ecr", Rc16 = ".rc16",
    /// Types ptxas knows beyond [`ScalarType`].
    E2m1 = ".e2m1", E2m3 = ".e2m3", E3m2 = ".e3m2", Ue8m0 = ".ue8m0", S2 = ".s2", U2 = ".u2",
    B2 = ".b2", B4x16 = ".b4x16", B4x16P64 = ".b4x16_p64", B6x16P32 = ".b6x16_p32",
    /// Packed 16-bit integer pairs (`add.u16x2`, `min.s16x2`).
    S16x2 = ".s16x2", U16x2 = ".u16x2",
    /// `tensormap.replace` fields.
    GlobalAddress = ".global_address", Rank = ".rank", BoxDim = ".box_dim",
    GlobalDim = ".global_dim", GlobalStride = ".global_stride",
    ElementStride = ".element_stride", Elemtype = ".elemtype",
    InterleaveLayout = ".interleave_layout", SwizzleMode = ".swizzle_mode",
    SwizzleAtomicity = ".swizzle_atomicity", FillMode = ".fill_mode",
    /// Bulk and tensor copies (`cp.async.bulk.tensor.2d.global.shared::cta.tile`, …).
    BulkGroup = ".bulk_group", Commit = ".commit", CommitGroups = ".commit_groups",
    CpFenceproxy = ".cp_fenceproxy", CpMask = ".cp_mask", CtaGroup1 = ".cta_group::1",
    CtaGroup2 = ".cta_group::2", IgnoreOob = ".ignore_oob", Im2col = ".im2col",
    Im2colW = ".im2col::w", Im2colW128 = ".im2col::w::128", Im2colNoOffs = ".im2col_no_offs",
    MbarrierCompleteTxBytes = ".mbarrier::complete_tx::bytes",
    MulticastCluster = ".multicast::cluster", Noftz = ".noftz", Prefetch = ".prefetch",
    Read = ".read", Reduce = ".reduce", Replace = ".replace", Tensor = ".tensor", Tile = ".tile",
    TileGather4 = ".tile::gather4", TileScatter4 = ".tile::scatter4", Wait = ".wait",
    /// Carry (`add.cc`) and the halves of a product (`mul.hi`, `mul.wide`, `mul.lo`).
    Cc = ".cc", Hi = ".hi", Lo = ".lo", Wide = ".wide",
    Clamp = ".clamp", Wrap = ".wrap", L = ".l", R = ".r", Shiftamt = ".shiftamt",
    /// Comparisons (`setp.lt`, …); `.hi` and `.lo` are above.
    Eq = ".eq", Ne = ".ne", Lt = ".lt", Le = ".le", Gt = ".gt", Ge = ".ge", Ls = ".ls",
    Hs = ".hs", Equ = ".equ", Neu = ".neu", Ltu = ".ltu", Leu = ".leu", Gtu = ".gtu",
    Geu = ".geu", Num = ".num", Nan = ".nan",
    /// `min.NaN`/`max.NaN` (not `setp`'s `.nan`).
    NaN = ".NaN", Xorsign = ".xorsign",
    /// Rounding, float modes.
    Rn = ".rn", Rz = ".rz", Rm = ".rm", Rp = ".rp", Rna = ".rna", Rni = ".rni", Rzi = ".rzi",
    Rmi = ".rmi", Rpi = ".rpi", Ftz = ".ftz", Sat = ".sat", Satfinite = ".satfinite",
    Relu = ".relu",
    /// `testp` classes.
    Finite = ".finite", Infinite = ".infinite", Number = ".number",
    Notanumber = ".notanumber", Normal = ".normal",
    /// Shapes and layouts of the matrix instructions.
    M8n8 = ".m8n8", M16n8k8 = ".m16n8k8", M16n8k16 = ".m16n8k16", M16n8k32 = ".m16n8k32",
    Row = ".row", Col = ".col", X1 = ".x1", X2 = ".x2", X4 = ".x4", Trans = ".trans",
    Load = ".load", Store = ".store", Mma = ".mma", Fence = ".fence",
    /// Fences and barriers.
    Gl = ".gl", Proxy = ".proxy", Alias = ".alias", MbarrierInit = ".mbarrier_init",
    OpRestrict = ".op_restrict", Red = ".red", Sync = ".sync", Warp = ".warp",
    /// Moves, conversions, shuffles, branches.
    Pack = ".pack", To = ".to", Up = ".up", Down = ".down", Bfly = ".bfly", Idx = ".idx",
}

impl Modifier {
    /// The qualifier-table value, for a spelling a qualifier table owns.
    pub const fn qualifier(self) -> Option<Qualifier> {
        match self {
            Modifier::Qualifier(q) => Some(q),
            _ => None,
        }
    }

    /// The dimension count of the tensor copies' `.1d` … `.5d`.
    pub const fn tensor_dims(self) -> Option<u32> {
        match self {
            Modifier::Dim1 => Some(1),
            Modifier::Dim2 => Some(2),
            Modifier::Dim3 => Some(3),
            Modifier::Dim4 => Some(4),
            Modifier::Dim5 => Some(5),
            _ => None,
        }
    }

    /// The state space, for `.global`, `.shared::cta`, ….
    pub const fn space(self) -> Option<StateSpace> {
        match self {
            Modifier::Qualifier(Qualifier::Space(s)) => Some(s),
            _ => None,
        }
    }

    /// The type, for `.f32`, `.b16x2`, ….
    pub const fn scalar_type(self) -> Option<ScalarType> {
        match self {
            Modifier::Qualifier(Qualifier::Type(t)) => Some(t),
            _ => None,
        }
    }
}

/// [`Modifier::parse`]'s table: the spellings of up to 7 bytes after the dot (most, and
/// all the frequent ones: types, rounding, comparisons) keyed by their bytes as one `u64` in
/// an open-addressed table (a multiply, a shift and, nearly always, one probe), the longer
/// ones (`.shared::cluster`, `.L2::cache_hint`, …) by their text.
struct Index {
    /// `(key, modifier)`; key 0 marks an empty slot ([`pack`] never gives 0).
    short: [(u64, Option<Modifier>); SLOTS],
    long: FxHashMap<&'static str, Modifier>,
}

/// Slots of [`Index::short`] (a power of two, about four times the spellings it holds).
const SLOTS: usize = 1024;

#[inline]
fn slot(key: u64) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SLOTS.trailing_zeros())) as usize
}

impl Index {
    #[cold]
    fn new_cold() -> Index {
        let mut index = Index {
            short: [(0, None); SLOTS],
            long: FxHashMap::default(),
        };
        let words = Modifier::ALL.iter().copied();
        for m in words.chain(Qualifier::all().map(Modifier::Qualifier)) {
            let Some(key) = pack(m.name()) else {
                index.long.insert(m.name(), m);
                continue;
            };
            let mut i = slot(key);
            while index.short[i].0 != 0 {
                i = (i + 1) % SLOTS;
            }
            index.short[i] = (key, Some(m));
        }
        index
    }

    #[inline]
    fn get(&self, word: &str) -> Option<Modifier> {
        let Some(key) = pack(word) else {
            return self.long.get(word).copied();
        };
        let mut i = slot(key);
        loop {
            match self.short[i] {
                (k, m) if k == key => return m,
                (0, _) => return None,
                _ => i = (i + 1) % SLOTS,
            }
        }
    }
}

/// The bytes after the leading dot as one little-endian `u64` with the length in the top
/// byte, for a dotted word of 2 to 8 bytes.
#[inline]
fn pack(word: &str) -> Option<u64> {
    let b = word.as_bytes();
    if b.len() < 2 || b.len() > 8 || b[0] != b'.' {
        return None;
    }
    let mut key = (b.len() as u64) << 56;
    let mut i = 1;
    while i < b.len() {
        key |= u64::from(b[i]) << (8 * (i - 1));
        i += 1;
    }
    Some(key)
}

impl core::fmt::Display for Modifier {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

impl From<Qualifier> for Modifier {
    #[inline]
    fn from(q: Qualifier) -> Modifier {
        Modifier::Qualifier(q)
    }
}

macro_rules! from_qualifier {
    ($($ty:ident => $ctor:ident,)+) => {$(
        impl From<$ty> for Modifier {
            #[inline]
            fn from(q: $ty) -> Modifier {
                Modifier::Qualifier(Qualifier::$ctor(q))
            }
        }
    )+};
}

from_qualifier! {
    StateSpace => Space, MemorySemantics => Semantics, Scope => Scope,
    CacheOperator => CacheOp, L1EvictionPriority => L1, L2EvictionPriority => L2,
    PrefetchSize => Prefetch, VectorWidth => Vector, ScalarType => Type, CacheLevel => Level,
    PolicyKind => Policy, Flag => Flag,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for &m in Modifier::ALL {
            assert!(seen.insert(m.name()), "{m} twice in the table");
            assert_eq!(
                Qualifier::from_token(m.name()),
                None,
                "{m} is a qualifier-table spelling"
            );
            assert_eq!(Modifier::parse(m.name()), Some(m));
        }
        for q in Qualifier::all() {
            assert_eq!(Modifier::parse(q.token()), Some(Modifier::Qualifier(q)));
        }
    }

    #[test]
    fn qualifiers_classify_as_typed_values() {
        assert_eq!(
            Modifier::parse(".shared::cta"),
            Some(Modifier::from(StateSpace::SharedCta))
        );
        assert_eq!(
            Modifier::parse(".f32").and_then(Modifier::scalar_type),
            Some(ScalarType::F32)
        );
        assert_eq!(Modifier::parse(".async"), Some(Modifier::from(Flag::Async)));
        assert_eq!(Modifier::parse(".rn"), Some(Modifier::Rn));
        assert_eq!(Modifier::parse(".RN"), None);
        assert_eq!(Modifier::parse("."), None);
        assert_eq!(Modifier::parse(".rn\0"), None);
        assert_eq!(Modifier::parse("rn"), None);
        assert_eq!(
            Modifier::parse(".shared::cluster"),
            Some(StateSpace::SharedCluster.into())
        );
        assert_eq!(Modifier::parse(".m64n128k16"), None);
        assert_eq!(Modifier::from(Scope::Sys).to_string(), ".sys");
        assert_eq!(
            Modifier::parse(".3d").and_then(Modifier::tensor_dims),
            Some(3)
        );
    }
}
