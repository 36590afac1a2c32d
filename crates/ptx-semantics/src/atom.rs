//! The combine functions of `atom` and `red`: given the old memory value and the operands,
//! the value written back (`atom` also returns the old value to `d`) (PTX ISA §"atom", §"red").

use crate::float::{self, flush_f32};
use crate::half::{self, HalfMods, HalfOp};
use crate::int::IntTy;
use crate::round::{BF16, F16};
use crate::Rnd;

/// An `atom`/`red` operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtomOp {
    /// `.and`
    And,
    /// `.or`
    Or,
    /// `.xor`
    Xor,
    /// `.exch`
    Exch,
    /// `.add`
    Add,
    /// `.inc`: `(old >= b) ? 0 : old + 1` (unsigned)
    Inc,
    /// `.dec`: `(old == 0 || old > b) ? b : old - 1` (unsigned)
    Dec,
    /// `.min`
    Min,
    /// `.max`
    Max,
    /// `.cas`: `(old == b) ? c : old`
    Cas,
}

/// New memory value of an integer/bit-size `atom`/`red` (`.b16` `.cas`, `.b32 .b64 .u32 .u64
/// .s32 .s64`). `c` is only used by `.cas`.
#[inline]
pub fn atom_int(op: AtomOp, t: IntTy, old: u64, b: u64, c: u64) -> u64 {
    let (old, b) = (t.trunc(old), t.trunc(b));
    match op {
        AtomOp::And => old & b,
        AtomOp::Or => old | b,
        AtomOp::Xor => old ^ b,
        AtomOp::Exch => b,
        AtomOp::Add => t.trunc(old.wrapping_add(b)),
        AtomOp::Inc => {
            if old >= b {
                0
            } else {
                old + 1
            }
        }
        AtomOp::Dec => {
            if old == 0 || old > b {
                b
            } else {
                old - 1
            }
        }
        AtomOp::Min => crate::int::min(t, old, b),
        AtomOp::Max => crate::int::max(t, old, b),
        AtomOp::Cas => {
            if old == b {
                t.trunc(c)
            } else {
                old
            }
        }
    }
}

/// `atom.add.f32` / `red.add.f32`: round to nearest even. The ISA: "atom.add.f32 on global
/// memory flushes subnormal inputs and results to sign-preserving zero; on shared memory it
/// supports subnormals" — pass `ftz = true` for global.
#[inline]
pub fn atom_add_f32(old: u32, b: u32, ftz: bool) -> u32 {
    let r = float::add_f32(old, b, Rnd::Rn, ftz, false);
    if ftz {
        flush_f32(r)
    } else {
        r
    }
}

/// `atom.add.f64` (round to nearest even, subnormals kept).
#[inline]
pub fn atom_add_f64(old: u64, b: u64) -> u64 {
    float::add_f64(old, b, Rnd::Rn)
}

/// `atom.add.noftz.f16` (round to nearest even, subnormals kept).
#[inline]
pub fn atom_add_f16(old: u16, b: u16) -> u16 {
    half::arith(F16, HalfOp::Add, old, b, 0, Rnd::Rn, HalfMods::default())
}

/// `atom.add.noftz.bf16`.
#[inline]
pub fn atom_add_bf16(old: u16, b: u16) -> u16 {
    half::arith(BF16, HalfOp::Add, old, b, 0, Rnd::Rn, HalfMods::default())
}

/// `atom.add.noftz.f16x2` (each half independently).
#[inline]
pub fn atom_add_f16x2(old: u32, b: u32) -> u32 {
    half::x2(old, b, atom_add_f16)
}

/// `atom.add.noftz.bf16x2`.
#[inline]
pub fn atom_add_bf16x2(old: u32, b: u32) -> u32 {
    half::x2(old, b, atom_add_bf16)
}

/// `atom.{min,max}.noftz.{f16,bf16}` (vector forms): NaN handling as `min`/`max`.
#[inline]
pub fn atom_minmax_half(is_bf16: bool, is_min: bool, old: u16, b: u16) -> u16 {
    let f = if is_bf16 { BF16 } else { F16 };
    if is_min {
        half::min(f, old, b, false, false)
    } else {
        half::max(f, old, b, false, false)
    }
}
