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

/// `ceil(log2(x))` for `x >= 1`, as CCCL's `ceil_ilog2`.
fn ceil_log2(x: u32) -> u32 {
    if x <= 1 {
        0
    } else {
        32 - (x - 1).leading_zeros()
    }
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
    /// returns. Follows CCCL's `__l2_interleave` bit for bit:
    /// `code = (u32)((fraction - FLT_EPSILON) * 16.0f)` (1.0 -> 15, 0.5 -> 7, 1/16 -> 0).
    ///
    /// Spec: "The valid range of values for the operand `fraction` is `(0.0,.., 1.0]`."
    pub fn fractional(
        primary: L2EvictionPriority,
        secondary: L2EvictionPriority,
        fraction: f32,
    ) -> Result<u64, MemError> {
        if !(fraction > 0.0 && fraction <= 1.0) {
            return Err(MemError::Policy(format!(
                "fraction {fraction} is outside (0, 1]"
            )));
        }
        let code = ((fraction - f32::EPSILON) * 16.0f32) as u32;
        Ok((u64::from(code) << 52)
            | (secondary_bit(secondary)? << 56)
            | (primary_bits(primary) << 57)
            | (2u64 << 59))
    }

    /// The value `createpolicy.range.global.L2::<primary>{.L2::<secondary>}.b64 p, [base],
    /// primary_size, total_size` returns. Follows CCCL's `__block_encoding_host`:
    /// block size code = `max(0, ceil_log2(total_size) - 19)` (so 128 blocks cover the total
    /// size), `block_start = base >> log2(block)`, `block_count = clamp(ceil((base +
    /// primary_size) / block) - block_start, 1, 127)`.
    ///
    /// `block_start` is stored in its 7-bit field (bits 44-50), as CCCL's `__block_desc_t`
    /// bit-field declares; CCCL's current host path shifts the unmasked 32-bit value, which
    /// for `block_start >= 128` would spill into bits 51-63 and corrupt the mode bits.
    ///
    /// Spec: "The value of `primary-size` must be less than or equal to the value of
    /// `total-size`. Maximum allowed value of `total-size` is 4GB."
    pub fn range(
        base: u64,
        primary_size: u32,
        total_size: u32,
        primary: L2EvictionPriority,
        secondary: L2EvictionPriority,
    ) -> Result<u64, MemError> {
        if primary_size == 0 || primary_size > total_size {
            return Err(MemError::Policy(format!(
                "range primary size {primary_size} must be in 1..=total size {total_size}"
            )));
        }
        let block_size_code = ceil_log2(total_size).saturating_sub(19);
        let log2_block = 12 + block_size_code;
        let block = 1u64 << log2_block;
        let start = base >> log2_block;
        let end = (base + u64::from(primary_size) + block - 1) >> log2_block;
        let count = (end - start).clamp(1, 127);
        Ok((count << 37)
            | ((start & 0x7F) << 44)
            | (u64::from(block_size_code) << 52)
            | (secondary_bit(secondary)? << 56)
            | (primary_bits(primary) << 57)
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
        let primary_end = self.base + u64::from(self.primary_size);
        let trailing_end = self.base + u64::from(self.total_size);
        let preceding_start = self
            .base
            .saturating_sub(u64::from(self.total_size - self.primary_size));
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
        // (0.5 - eps) * 16 = 7.99.. -> 7; 1/16 -> 0; secondary evict_first sets bit 56.
        assert_eq!(
            CachePolicy::fractional(Last, First, 0.5).unwrap(),
            0x1570_0000_0000_0000
        );
        assert_eq!(
            CachePolicy::fractional(Last, Unchanged, 0.0625).unwrap(),
            0x1400_0000_0000_0000
        );
        assert!(CachePolicy::fractional(Last, Unchanged, 0.0).is_err());
        assert!(CachePolicy::fractional(Last, Unchanged, 1.5).is_err());
        assert!(CachePolicy::fractional(Last, Last, 0.5).is_err());
    }

    #[test]
    fn range_follows_cccl_arithmetic() {
        // total 2 MiB: ceil_log2 = 21 -> code 2 -> 16 KiB blocks. base 0x10_0000 -> start 64;
        // primary 1 MiB -> end = (0x10_0000 + 0x10_0000 + 0x3FFF) >> 14 = 128 -> count 64.
        let v = CachePolicy::range(0x10_0000, 0x10_0000, 0x20_0000, Last, First).unwrap();
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
        let small = CachePolicy::range(4, 1, 1, Last, Unchanged).unwrap();
        assert_eq!(small, (1u64 << 37) | (2 << 57) | (3 << 59));
        assert!(CachePolicy::range(0, 0, 16, Last, Unchanged).is_err());
        assert!(CachePolicy::range(0, 32, 16, Last, Unchanged).is_err());
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
    }
}
