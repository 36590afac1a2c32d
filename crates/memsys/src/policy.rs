//! The 64-bit cache-eviction-policy value that `createpolicy` returns and `.L2::cache_hint`
//! accesses carry.
//!
//! Layout (CCCL `cuda/__annotated_ptr/access_property_encoding.h`, see `REFERENCE.md`):
//!
//! | bits  | fraction mode (2)   | range mode (3)                      |
//! |-------|---------------------|-------------------------------------|
//! | 37-43 | -                   | block_count (7 bits)                |
//! | 44-50 | -                   | block_start (7 bits)                |
//! | 52-55 | fraction code       | block size code (block = 4 KiB << code) |
//! | 56    | secondary priority (0 evict_unchanged, 1 evict_first)     ||
//! | 57-58 | primary priority (0 unchanged, 1 first, 2 last, 3 normal) ||
//! | 59-60 | mode: 0 implicit, 2 fraction, 3 range                     ||
//! | 61    | L1 invalidate / don't allocate                            ||
//! | 62    | L2 sector promote to 256 B                                ||
//!
//! The values `createpolicy` produces follow ptxas's lowering and the H100, not CCCL's host
//! encoder, where the two differ: [`fraction_code`], [`CachePolicy::range`] (and the data in
//! `tests/data/h100-policy/` that fixes them).

use serde::{Deserialize, Serialize};

use crate::error::MemError;
use crate::types::L2EvictionPriority;

/// How the policy picks a priority for an access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PolicyMode {
    /// Mode 0: no policy; the access's own qualifiers apply.
    Implicit,
    /// Mode 2 ("interleaved"): primary priority for a fraction of accesses.
    Fraction,
    /// Mode 3 ("block type"): primary priority inside an address range.
    Range,
    /// Mode 1: not produced by `createpolicy`; treated like `Implicit`.
    Reserved,
}

/// A decoded cache-policy value. `decode` and `encode` round-trip every field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CachePolicy {
    pub mode: PolicyMode,
    /// Primary priority: `Unchanged`, `First`, `Last` or `Normal` (CCCL's "normal demote").
    pub primary: L2EvictionPriority,
    /// Secondary priority: `Unchanged` or `First`.
    pub secondary: L2EvictionPriority,
    /// Fraction mode: the fraction is `(code + 1) / 16`.
    pub fraction_code: u8,
    /// Range mode: block size is `4 KiB << block_size_code`.
    pub block_size_code: u8,
    pub block_start: u8,
    pub block_count: u8,
    /// Bit 61: the access should not allocate in (and invalidate) L1.
    pub l1_no_allocate: bool,
    /// Bit 62: promote L2 fills to 256 B.
    pub l2_promote_256b: bool,
}

const fn primary_bits(p: L2EvictionPriority) -> u64 {
    match p {
        L2EvictionPriority::Unchanged => 0,
        L2EvictionPriority::First => 1,
        L2EvictionPriority::Last => 2,
        L2EvictionPriority::Normal => 3,
    }
}

const fn primary_from_bits(b: u64) -> L2EvictionPriority {
    match b & 3 {
        0 => L2EvictionPriority::Unchanged,
        1 => L2EvictionPriority::First,
        2 => L2EvictionPriority::Last,
        _ => L2EvictionPriority::Normal,
    }
}

fn secondary_bit(p: L2EvictionPriority) -> Result<u64, MemError> {
    match p {
        L2EvictionPriority::Unchanged => Ok(0),
        L2EvictionPriority::First => Ok(1),
        other => Err(MemError::Policy(format!(
            "secondary priority must be evict_first or evict_unchanged, not {other:?}"
        ))),
    }
}

/// ptxas lowers `createpolicy.fractional` (register or literal fraction) to
/// `FMUL R, fraction, 15.989999771118164062; F2I.U32.TRUNC.NTZ` and keeps the low four bits
/// as the fraction code (SASS of `createpolicy_sweep.sm80.ptx` for sm_90, ptxas 13.5; literal
/// fractions are folded with the same product). The H100 returned exactly this code for all
/// 13,440 register fractions of `createpolicy_sweep.npz` and the 256 of
/// `createpolicy_probe.npz` (CCCL's `(fraction - FLT_EPSILON) * 16` differs on 718 of them:
/// just above each k/16 the 15.99 scale keeps the code at k - 1 up to a relative excess of
/// 1/1600).
pub const FRACTION_SCALE: f32 = 15.99;

/// The fraction code `createpolicy.fractional` stores: `trunc_u32(fraction * 15.99f) & 0xF`.
/// `F2I.U32.TRUNC` saturates (NaN and negative give 0, too large gives `u32::MAX`), as Rust's
/// `as u32` does; out-of-range register fractions therefore encode without a fault, as on the
/// GPU (literal ones are rejected by ptxas before).
pub fn fraction_code(fraction: f32) -> u8 {
    ((fraction * FRACTION_SCALE) as u32 & 0xF) as u8
}

/// How `ceil(log2(total_size))` of `createpolicy.range` is computed: ptxas emits
/// `I2FP.F32.U32; MUFU.LG2; F2I.U32.CEIL` for a register total size, and folds the logarithm
/// on the host for a literal one (`F2I.U32.CEIL.NTZ R0, 28.000001907348632812` for total
/// 268,435,764), so the two can differ just above a power of two.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TotalSizeOperand {
    /// A register: the special-function unit's LG2 (rounded toward zero).
    Register,
    /// A literal: ptxas's compile-time `log2f`, rounded to nearest.
    Literal,
}

/// For `x = 2^e * (1 + m * 2^-23)` with `m > 0`, `MUFU.LG2` returns `e + L(m)` rounded toward
/// zero to f32 (`../shared/hw/h100/README.md` section 2, LG2), so `ceil` exceeds `e` exactly
/// when `L(m)` reaches one ulp of `e`: 2^-23 for e in [1, 2), 2^-22 in [2, 4), 2^-21 in [4, 8),
/// 2^-20 in [8, 16), 2^-19 in [16, 32), 2^-18 at 32. The H100's LG2 tables (`lg2_e0`, which
/// bounds `L` from below, and `lg2_e-1`, from above) put the smallest such `m` at 1, 1, 3, 5,
/// 11 and 22 respectively, with no mantissa left undecided
/// (`crates/memsys/tests/data/h100-policy/gen_policy_data.py` derives these).
const LG2_CEIL_MIN_MANTISSA: [(i32, u32); 6] = [(1, 1), (2, 1), (4, 3), (8, 5), (16, 11), (32, 22)];

/// `F2I.U32.CEIL(MUFU.LG2(I2FP.F32.U32(total)))` on the H100, for `total >= 1`.
fn ceil_log2_unit(total: u32) -> u32 {
    let bits = (total as f32).to_bits();
    let e = (bits >> 23) as i32 - 127;
    let m = bits & 0x7F_FFFF;
    if e <= 0 || m == 0 {
        return e.max(0) as u32;
    }
    let min_m = LG2_CEIL_MIN_MANTISSA
        .iter()
        .rev()
        .find(|(from, _)| e >= *from)
        .map_or(1, |(_, min_m)| *min_m);
    e as u32 + u32::from(m >= min_m)
}

/// `ceil` of ptxas's folded `log2f(total)` (rounded to nearest f32), for `total >= 1`.
fn ceil_log2_folded(total: u32) -> u32 {
    let log2 = f64::from(total as f32).log2() as f32;
    log2.ceil() as u32
}

impl CachePolicy {
    /// Decodes a 64-bit policy value. Every value decodes (reserved bits are ignored).
    pub const fn decode(v: u64) -> Self {
        let mode = match (v >> 59) & 3 {
            0 => PolicyMode::Implicit,
            2 => PolicyMode::Fraction,
            3 => PolicyMode::Range,
            _ => PolicyMode::Reserved,
        };
        Self {
            mode,
            primary: primary_from_bits(v >> 57),
            secondary: if (v >> 56) & 1 == 1 {
                L2EvictionPriority::First
            } else {
                L2EvictionPriority::Unchanged
            },
            fraction_code: ((v >> 52) & 0xF) as u8,
            block_size_code: ((v >> 52) & 0xF) as u8,
            block_start: ((v >> 44) & 0x7F) as u8,
            block_count: ((v >> 37) & 0x7F) as u8,
            l1_no_allocate: (v >> 61) & 1 == 1,
            l2_promote_256b: (v >> 62) & 1 == 1,
        }
    }

    /// Encodes the fields back into the 64-bit value.
    pub fn encode(&self) -> u64 {
        let mode: u64 = match self.mode {
            PolicyMode::Implicit => 0,
            PolicyMode::Reserved => 1,
            PolicyMode::Fraction => 2,
            PolicyMode::Range => 3,
        };
        let secondary = u64::from(self.secondary == L2EvictionPriority::First);
        let mut v = (mode << 59)
            | (primary_bits(self.primary) << 57)
            | (secondary << 56)
            | (u64::from(self.l1_no_allocate) << 61)
            | (u64::from(self.l2_promote_256b) << 62);
        match self.mode {
            PolicyMode::Range => {
                v |= (u64::from(self.block_size_code & 0xF) << 52)
                    | (u64::from(self.block_start & 0x7F) << 44)
                    | (u64::from(self.block_count & 0x7F) << 37);
            }
            _ => v |= u64::from(self.fraction_code & 0xF) << 52,
        }
        v
    }

    /// The value `createpolicy.fractional.L2::<primary>{.L2::<secondary>}.b64 p, fraction`
    /// returns: mode 2, the priorities, and [`fraction_code`] (what ptxas's lowering computes
    /// and the H100 returned, for register and literal fractions alike).
    pub fn fractional(
        primary: L2EvictionPriority,
        secondary: L2EvictionPriority,
        fraction: f32,
    ) -> Result<u64, MemError> {
        Ok((u64::from(fraction_code(fraction)) << 52)
            | (secondary_bit(secondary)? << 56)
            | (primary_bits(primary) << 57)
            | (2u64 << 59))
    }

    /// The value `createpolicy.range{.global}.L2::<primary>{.L2::<secondary>}.b64 p, [a],
    /// primary_size, total_size` returns, as ptxas's lowering computes it on the GPU (sm_90
    /// SASS of `createpolicy_sweep.sm80.ptx`, ptxas 13.5; the H100 returned exactly this for
    /// all 13,440 cases of `createpolicy_sweep.npz` and the 4,096 range cases of
    /// `createpolicy_probe.npz`, `.global` and generic alike):
    ///
    /// - `total_size == 0`: the constant `0x1800_0000_0000_0000` (mode 3, block code 0, start
    ///   0, count 0, and both priorities evict_unchanged), the branch ptxas emits for it.
    /// - block size `B = 2^lb` with `lb = max(ceil(log2(total_size)) - 7, 12)` (so 128 blocks
    ///   cover the total size; the logarithm as [`TotalSizeOperand`] says); code `lb - 12`.
    /// - `block_start = (a >> lb) & 0x7F`.
    /// - `block_count = min(127, ((a + ((B + primary_size - 1) mod 2^32)) >> lb) - (a >> lb))`:
    ///   the round-up to whole blocks is a 32-bit add (`IADD3 R, size, -1, B`), so a primary
    ///   size within a block of 4 GiB wraps (count 0 or 1), and the count saturates at 127
    ///   (a primary size above the total size gives 127). Primary size 0 is legal: count 0 for
    ///   a block-aligned `a`, else 1 (spec: "primary-size ... less than or equal to
    ///   total-size"; ptxas accepts 0 and the GPU computes it).
    pub fn range(
        base: u64,
        primary_size: u32,
        total_size: u32,
        total_operand: TotalSizeOperand,
        primary: L2EvictionPriority,
        secondary: L2EvictionPriority,
    ) -> Result<u64, MemError> {
        let priorities = (secondary_bit(secondary)? << 56) | (primary_bits(primary) << 57);
        if total_size == 0 {
            return Ok(3u64 << 59);
        }
        let ceil_log2 = match total_operand {
            TotalSizeOperand::Register => ceil_log2_unit(total_size),
            TotalSizeOperand::Literal => ceil_log2_folded(total_size),
        };
        let log2_block = ceil_log2.saturating_sub(7).max(12);
        let block = 1u64 << log2_block;
        let rounded_size = (block + u64::from(primary_size) - 1) & u64::from(u32::MAX);
        let start = base >> log2_block;
        let end = base.wrapping_add(rounded_size) >> log2_block;
        let count = end.wrapping_sub(start).min(127);
        Ok((count << 37)
            | ((start & 0x7F) << 44)
            | ((u64::from(log2_block - 12) & 0xF) << 52)
            | priorities
            | (3u64 << 59))
    }

    /// Fraction mode: the probability of the primary priority.
    pub fn fraction(&self) -> f32 {
        f32::from(self.fraction_code + 1) / 16.0
    }

    /// Range mode: bytes per block.
    pub fn block_bytes(&self) -> u64 {
        4096u64 << self.block_size_code
    }

    /// Range mode, decoded value only: whether `addr` falls in the primary blocks. The value
    /// keeps only the low 7 bits of the block index, so the 128-block window (which covers
    /// the total size) repeats through the address space; addresses whose block index (mod
    /// 128) lies in `[block_start, block_start + block_count)` are primary.
    pub fn in_primary_blocks(&self, addr: u64) -> bool {
        let log2_block = 12 + u32::from(self.block_size_code);
        let idx = (addr >> log2_block) & 0x7F;
        let off = idx.wrapping_sub(u64::from(self.block_start)) & 0x7F;
        off < u64::from(self.block_count)
    }
}

/// The exact ranges of a `createpolicy.range` made through
/// [`crate::MemSystem::create_range_policy`], kept because the 64-bit value only holds the
/// low 7 bits of the start block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RangePolicy {
    pub value: u64,
    pub base: u64,
    pub primary_size: u32,
    pub total_size: u32,
}

/// Which range of a range policy an address falls in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeHit {
    Primary,
    Secondary,
    Outside,
}

impl RangePolicy {
    /// Spec: "`[a .. a + (primary-size - 1)]` referred to as primary range.
    /// `[a + primary-size .. a + (total-size - 1)]` referred to as trailing secondary range.
    /// `[a - (total-size - primary-size) .. (a - 1)]` referred to as preceding secondary range."
    pub fn classify(&self, addr: u64) -> RangeHit {
        // The GPU encodes a primary size above the total size (or ranges past the top of the
        // address space) without complaint, so neither may overflow here: such a policy has no
        // preceding secondary range.
        let primary_end = self.base.saturating_add(u64::from(self.primary_size));
        let trailing_end = self.base.saturating_add(u64::from(self.total_size));
        let preceding_start = self
            .base
            .saturating_sub(u64::from(self.total_size.saturating_sub(self.primary_size)));
        if addr >= self.base && addr < primary_end {
            RangeHit::Primary
        } else if (addr >= primary_end && addr < trailing_end)
            || (addr >= preceding_start && addr < self.base)
        {
            RangeHit::Secondary
        } else {
            RangeHit::Outside
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use L2EvictionPriority::*;

    #[test]
    fn cutlass_and_cccl_constants_decode() {
        // CCCL names these; REFERENCE.md lists their meaning.
        let first = CachePolicy::decode(0x12F0_0000_0000_0000);
        assert_eq!(
            (first.mode, first.primary, first.fraction_code),
            (PolicyMode::Fraction, First, 15)
        );
        let last = CachePolicy::decode(0x14F0_0000_0000_0000);
        assert_eq!(
            (last.mode, last.primary, last.fraction()),
            (PolicyMode::Fraction, Last, 1.0)
        );
        let normal = CachePolicy::decode(0x10F0_0000_0000_0000);
        assert_eq!(normal.primary, Unchanged);
        let demote = CachePolicy::decode(0x16F0_0000_0000_0000);
        assert_eq!(demote.primary, Normal);
        let zero = CachePolicy::decode(0x1000_0000_0000_0000);
        assert_eq!((zero.fraction_code, zero.primary), (0, Unchanged));
    }

    #[test]
    fn fractional_matches_cccl_constants() {
        assert_eq!(
            CachePolicy::fractional(First, Unchanged, 1.0).unwrap(),
            0x12F0_0000_0000_0000
        );
        assert_eq!(
            CachePolicy::fractional(Last, Unchanged, 1.0).unwrap(),
            0x14F0_0000_0000_0000
        );
        assert_eq!(
            CachePolicy::fractional(Unchanged, Unchanged, 1.0).unwrap(),
            0x10F0_0000_0000_0000
        );
        assert_eq!(
            CachePolicy::fractional(Normal, Unchanged, 1.0).unwrap(),
            0x16F0_0000_0000_0000
        );
        // 0.5 * 15.99 = 7.995 -> 7; 1/16 -> 0; secondary evict_first sets bit 56.
        assert_eq!(
            CachePolicy::fractional(Last, First, 0.5).unwrap(),
            0x1570_0000_0000_0000
        );
        assert_eq!(
            CachePolicy::fractional(Last, Unchanged, 0.0625).unwrap(),
            0x1400_0000_0000_0000
        );
        assert!(CachePolicy::fractional(Last, Last, 0.5).is_err());
    }

    #[test]
    fn fraction_code_is_ptxas_lowering() {
        // Just above 2/16: CCCL's (f - eps) * 16 gives 2, the GPU (and ptxas) 1.
        assert_eq!(fraction_code(0.12505), 1);
        assert_eq!(fraction_code(0.1251), 2);
        // F2I.U32.TRUNC saturates: out-of-range register values still encode.
        assert_eq!(fraction_code(0.0), 0);
        assert_eq!(fraction_code(-1.0), 0);
        assert_eq!(fraction_code(f32::NAN), 0);
        assert_eq!(fraction_code(2.0), 31 & 0xF);
        assert_eq!(fraction_code(f32::INFINITY), 0xF);
    }

    #[test]
    fn range_follows_the_gpu_arithmetic() {
        use TotalSizeOperand::*;
        // total 2 MiB: ceil_log2 = 21 -> 16 KiB blocks (code 2). base 0x10_0000 -> start 64;
        // primary 1 MiB -> (0x10_0000 + 0x10_0000 + 0x3FFF) >> 14 = 128 -> count 64.
        let v = CachePolicy::range(0x10_0000, 0x10_0000, 0x20_0000, Register, Last, First).unwrap();
        let expect = (64u64 << 37) | (64 << 44) | (2 << 52) | (1 << 56) | (2 << 57) | (3 << 59);
        assert_eq!(v, expect);
        let p = CachePolicy::decode(v);
        assert_eq!(
            (p.block_bytes(), p.block_start, p.block_count),
            (16384, 64, 64)
        );
        assert!(p.in_primary_blocks(0x10_0000));
        assert!(p.in_primary_blocks(0x1F_FFFF));
        assert!(!p.in_primary_blocks(0x20_0000));
        // CCCL's test pointer (nullptr + 1 int = 4), total 1 byte: code 0, start 0, count 1.
        let small = CachePolicy::range(4, 1, 1, Register, Last, Unchanged).unwrap();
        assert_eq!(small, (1u64 << 37) | (2 << 57) | (3 << 59));
        // Primary size 0: count 0 when aligned, 1 when not; above the total: saturated.
        let zero =
            CachePolicy::decode(CachePolicy::range(0, 0, 16, Register, Last, Unchanged).unwrap());
        assert_eq!(zero.block_count, 0);
        let zero =
            CachePolicy::decode(CachePolicy::range(8, 0, 16, Register, Last, Unchanged).unwrap());
        assert_eq!(zero.block_count, 1);
        let big = CachePolicy::decode(
            CachePolicy::range(0, 1 << 24, 16, Register, Last, Unchanged).unwrap(),
        );
        assert_eq!(big.block_count, 127);
        // Total 0: ptxas's constant.
        assert_eq!(
            CachePolicy::range(0x1234, 5, 0, Register, Last, First).unwrap(),
            0x1800_0000_0000_0000
        );
        // The round-up is a 32-bit add: 2^32 - 1 bytes from an aligned base wrap to count 0.
        let wrap = CachePolicy::decode(
            CachePolicy::range(0x7F3A_0000_0000, u32::MAX, u32::MAX, Register, Last, First)
                .unwrap(),
        );
        assert_eq!((wrap.block_size_code, wrap.block_count), (13, 0));
    }

    #[test]
    fn register_and_literal_total_sizes_round_differently() {
        // 2^28 + 308: float 2^28 + 320 (m = 10). MUFU.LG2 rounds toward zero to 28, ptxas's
        // folded log2f rounds to nearest, 28.0000019 (README: the H100 gave code 9 for the
        // register form; ptxas 13.5's SASS for the literal form holds 28.000001907348632812).
        assert_eq!(ceil_log2_unit(268_435_764), 28);
        assert_eq!(ceil_log2_folded(268_435_764), 29);
        // 2^27 + 166 gives code 8 on the H100, 2^27 + 968 code 9 (README section 3).
        assert_eq!(ceil_log2_unit((1 << 27) + 166), 27);
        assert_eq!(ceil_log2_unit((1 << 27) + 968), 28);
        for e in 0..32 {
            assert_eq!(ceil_log2_unit(1 << e), e);
            assert_eq!(ceil_log2_folded(1 << e), e);
        }
        assert_eq!(ceil_log2_unit(3), 2);
        assert_eq!(ceil_log2_unit(u32::MAX), 32);
    }

    #[test]
    fn decode_encode_round_trip() {
        for v in [
            0x12F0_0000_0000_0000u64,
            0x7FF7_FFE0_0000_0000,
            0x1570_0000_0000_0000,
            0,
        ] {
            assert_eq!(CachePolicy::decode(v).encode(), v, "{v:#x}");
        }
    }

    #[test]
    fn range_classifies_all_three_ranges() {
        let r = RangePolicy {
            value: 0,
            base: 0x1000,
            primary_size: 0x100,
            total_size: 0x300,
        };
        assert_eq!(r.classify(0x1000), RangeHit::Primary);
        assert_eq!(r.classify(0x10FF), RangeHit::Primary);
        assert_eq!(r.classify(0x1100), RangeHit::Secondary);
        assert_eq!(r.classify(0x12FF), RangeHit::Secondary);
        assert_eq!(r.classify(0x1300), RangeHit::Outside);
        assert_eq!(r.classify(0x0E00), RangeHit::Secondary);
        assert_eq!(r.classify(0x0DFF), RangeHit::Outside);
        // Primary size above the total size (legal to encode, createpolicy_probe.npz has such
        // cases): the primary range, no preceding secondary range, no overflow.
        let big = RangePolicy {
            value: 0,
            base: 0x1000,
            primary_size: 0x300,
            total_size: 0x100,
        };
        assert_eq!(big.classify(0x12FF), RangeHit::Primary);
        assert_eq!(big.classify(0x0FFF), RangeHit::Outside);
        let top = RangePolicy {
            value: 0,
            base: u64::MAX - 0x10,
            primary_size: 0x100,
            total_size: 0x200,
        };
        assert_eq!(top.classify(u64::MAX - 1), RangeHit::Primary);
    }
}
