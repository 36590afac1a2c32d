//! Half-precision arithmetic: `.f16`, `.f16x2`, `.bf16`, `.bf16x2` (PTX ISA §"Half Precision
//! Floating-Point Instructions").
//!
//! Values are raw 16-bit patterns (`u16`); packed `x2` forms are `u32` with element 0 in bits
//! `[15:0]` and element 1 in bits `[31:16]`, processed independently.
//!
//! Exactness: `.f16` add/sub/mul and `.bf16` mul are exact in `f64` (at most 51 significant
//! bits), so they are rounded once by [`crate::round`]; `.bf16` add/sub and every `fma` go
//! through [`rustc_apfloat`] (`Half`/`BFloat`), which rounds the exact result once. NaN results
//! are the canonical `0x7fff`; `.ftz` (`.f16` only) flushes subnormal inputs and results; `.sat`
//! clamps to `[0, 1]` with NaN → `+0`; `.relu` turns negative results (sign bit set, not NaN)
//! into `+0` and NaN into the canonical NaN.

use crate::float::ap_round;
use crate::round::{self, Format, Overflow, Rnd, Unpacked, BF16, F16, F64};
use rustc_apfloat::ieee::{BFloat, Half};
use rustc_apfloat::Float as _;

const ONE_F16: u64 = 0x3c00;

/// Exact value of a small-format float as `f64` (every `.f16`/`.bf16`/`.e4m3`/`.e5m2`/`.tf32`
/// value is representable).
#[inline]
pub fn to_f64(fmt: Format, bits: u64) -> f64 {
    if fmt == F64 {
        return f64::from_bits(bits);
    }
    match round::unpack(fmt, bits) {
        Unpacked::Nan => f64::NAN,
        Unpacked::Inf(s) => {
            if s {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }
        }
        Unpacked::Zero(s) => {
            if s {
                -0.0
            } else {
                0.0
            }
        }
        Unpacked::Finite { sign, m, e } => {
            let v = m as f64 * pow2(e);
            if sign {
                -v
            } else {
                v
            }
        }
    }
}

/// `2^e` as `f64` for `e` in the range small formats need (exact).
#[inline]
fn pow2(e: i32) -> f64 {
    if e < -1000 {
        f64::from_bits(1u64 << (e + 1074).max(0))
    } else {
        f64::from_bits(((e + 1023) as u64) << 52)
    }
}

/// Rounds an `f64` into `fmt` (single rounding).
#[inline]
pub fn from_f64(fmt: Format, x: f64, rnd: Rnd) -> u64 {
    round::convert(F64, fmt, x.to_bits(), rnd, Overflow::Ieee)
}

/// The arithmetic operation of [`arith`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HalfOp {
    /// `add`
    Add,
    /// `sub`
    Sub,
    /// `mul`
    Mul,
    /// `fma` (three operands)
    Fma,
}

/// Modifiers of a half-precision arithmetic instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct HalfMods {
    /// `.ftz` (`.f16` only).
    pub ftz: bool,
    /// `.sat` (`.f16` only).
    pub sat: bool,
    /// `.relu` (`fma`).
    pub relu: bool,
}

/// One element of `add/sub/mul/fma{.rnd}{.ftz}{.sat}{.relu}.{f16,bf16}`; `c` is ignored except
/// for `Fma`. `rnd` is `.rn` in current PTX for these types; every mode is supported exactly.
#[inline]
pub fn arith(fmt: Format, op: HalfOp, a: u16, b: u16, c: u16, rnd: Rnd, m: HalfMods) -> u16 {
    let fl = |x: u16| if m.ftz { fmt.flush(x as u64) as u16 } else { x };
    let (a, b, c) = (fl(a), fl(b), fl(c));
    let exact_in_f64 = fmt == F16 && op != HalfOp::Fma || fmt == BF16 && op == HalfOp::Mul;
    let r = if exact_in_f64 {
        let (x, y) = (to_f64(fmt, a as u64), to_f64(fmt, b as u64));
        let v = match op {
            HalfOp::Add => x + y,
            HalfOp::Sub => x - y,
            _ => x * y,
        };
        if v.is_nan() {
            fmt.canonical_nan
        } else {
            from_f64(fmt, v, rnd)
        }
    } else if fmt == F16 {
        let (x, y, z) = (
            Half::from_bits(a as u128),
            Half::from_bits(b as u128),
            Half::from_bits(c as u128),
        );
        let r = ap_round(rnd);
        (match op {
            HalfOp::Add => x.add_r(y, r),
            HalfOp::Sub => x.sub_r(y, r),
            HalfOp::Mul => x.mul_r(y, r),
            HalfOp::Fma => x.mul_add_r(y, z, r),
        })
        .value
        .to_bits() as u64
    } else {
        let (x, y, z) = (
            BFloat::from_bits(a as u128),
            BFloat::from_bits(b as u128),
            BFloat::from_bits(c as u128),
        );
        let r = ap_round(rnd);
        (match op {
            HalfOp::Add => x.add_r(y, r),
            HalfOp::Sub => x.sub_r(y, r),
            HalfOp::Mul => x.mul_r(y, r),
            HalfOp::Fma => x.mul_add_r(y, z, r),
        })
        .value
        .to_bits() as u64
    };
    finish(fmt, r, m) as u16
}

/// Canonical NaN, `.ftz`, `.sat`, `.relu` on a result.
#[inline]
fn finish(fmt: Format, r: u64, m: HalfMods) -> u64 {
    if fmt.is_nan(r) {
        return if m.sat { 0 } else { fmt.canonical_nan };
    }
    let r = if m.ftz { fmt.flush(r) } else { r };
    let r = if m.relu && r & fmt.sign_mask() != 0 {
        0
    } else {
        r
    };
    if m.sat {
        let one = if fmt == F16 { ONE_F16 } else { 0x3f80 };
        if r & fmt.sign_mask() != 0 {
            0
        } else if r > one {
            one
        } else {
            r
        }
    } else {
        r
    }
}

/// Applies a binary element function to both halves of packed `x2` operands.
#[inline]
pub fn x2(a: u32, b: u32, f: impl Fn(u16, u16) -> u16) -> u32 {
    let lo = f(a as u16, b as u16) as u32;
    let hi = f((a >> 16) as u16, (b >> 16) as u16) as u32;
    (hi << 16) | lo
}

/// Applies a ternary element function (fma) to both halves of packed `x2` operands.
#[inline]
pub fn x2_3(a: u32, b: u32, c: u32, f: impl Fn(u16, u16, u16) -> u16) -> u32 {
    let lo = f(a as u16, b as u16, c as u16) as u32;
    let hi = f((a >> 16) as u16, (b >> 16) as u16, (c >> 16) as u16) as u32;
    (hi << 16) | lo
}

/// `add{.rn}{.ftz}{.sat}.f16`.
#[inline]
pub fn add_f16(a: u16, b: u16, ftz: bool, sat: bool) -> u16 {
    arith(
        F16,
        HalfOp::Add,
        a,
        b,
        0,
        Rnd::Rn,
        HalfMods {
            ftz,
            sat,
            relu: false,
        },
    )
}
/// `sub{.rn}{.ftz}{.sat}.f16`.
#[inline]
pub fn sub_f16(a: u16, b: u16, ftz: bool, sat: bool) -> u16 {
    arith(
        F16,
        HalfOp::Sub,
        a,
        b,
        0,
        Rnd::Rn,
        HalfMods {
            ftz,
            sat,
            relu: false,
        },
    )
}
/// `mul{.rn}{.ftz}{.sat}.f16`.
#[inline]
pub fn mul_f16(a: u16, b: u16, ftz: bool, sat: bool) -> u16 {
    arith(
        F16,
        HalfOp::Mul,
        a,
        b,
        0,
        Rnd::Rn,
        HalfMods {
            ftz,
            sat,
            relu: false,
        },
    )
}
/// `fma.rn{.ftz}{.sat|.relu}.f16`.
#[inline]
pub fn fma_f16(a: u16, b: u16, c: u16, m: HalfMods) -> u16 {
    arith(F16, HalfOp::Fma, a, b, c, Rnd::Rn, m)
}
/// `add{.rn}.bf16`.
#[inline]
pub fn add_bf16(a: u16, b: u16) -> u16 {
    arith(BF16, HalfOp::Add, a, b, 0, Rnd::Rn, HalfMods::default())
}
/// `sub{.rn}.bf16`.
#[inline]
pub fn sub_bf16(a: u16, b: u16) -> u16 {
    arith(BF16, HalfOp::Sub, a, b, 0, Rnd::Rn, HalfMods::default())
}
/// `mul{.rn}.bf16`.
#[inline]
pub fn mul_bf16(a: u16, b: u16) -> u16 {
    arith(BF16, HalfOp::Mul, a, b, 0, Rnd::Rn, HalfMods::default())
}
/// `fma.rn{.relu}.bf16`.
#[inline]
pub fn fma_bf16(a: u16, b: u16, c: u16, relu: bool) -> u16 {
    arith(
        BF16,
        HalfOp::Fma,
        a,
        b,
        c,
        Rnd::Rn,
        HalfMods {
            ftz: false,
            sat: false,
            relu,
        },
    )
}

/// `min{.ftz}{.NaN}.{f16,bf16}` (one NaN → the other operand, both NaN or any NaN with `.NaN`
/// → canonical NaN, `-0 < +0`).
#[inline]
pub fn min(fmt: Format, a: u16, b: u16, ftz: bool, propagate_nan: bool) -> u16 {
    minmax(fmt, a, b, ftz, propagate_nan, true)
}

/// `max{.ftz}{.NaN}.{f16,bf16}`.
#[inline]
pub fn max(fmt: Format, a: u16, b: u16, ftz: bool, propagate_nan: bool) -> u16 {
    minmax(fmt, a, b, ftz, propagate_nan, false)
}

#[inline]
fn minmax(fmt: Format, a: u16, b: u16, ftz: bool, propagate_nan: bool, is_min: bool) -> u16 {
    let (a, b) = if ftz {
        (fmt.flush(a as u64) as u16, fmt.flush(b as u64) as u16)
    } else {
        (a, b)
    };
    let (na, nb) = (fmt.is_nan(a as u64), fmt.is_nan(b as u64));
    if (na && nb) || (propagate_nan && (na || nb)) {
        return fmt.canonical_nan as u16;
    }
    if na {
        return b;
    }
    if nb {
        return a;
    }
    let key = |x: u16| {
        if x & 0x8000 != 0 {
            -((x & 0x7fff) as i32) - 1
        } else {
            x as i32
        }
    };
    let a_first = if is_min {
        key(a) <= key(b)
    } else {
        key(a) >= key(b)
    };
    if a_first {
        a
    } else {
        b
    }
}

/// `neg{.ftz}.f16` / `neg.bf16`: sign flip.
#[inline]
pub fn neg(fmt: Format, a: u16, ftz: bool) -> u16 {
    (if ftz { fmt.flush(a as u64) as u16 } else { a }) ^ 0x8000
}

/// `abs{.ftz}.f16` / `abs.bf16`: clears the sign.
#[inline]
pub fn abs(fmt: Format, a: u16, ftz: bool) -> u16 {
    (if ftz { fmt.flush(a as u64) as u16 } else { a }) & 0x7fff
}

/// `ex2.approx.f16` / `ex2.approx.ftz.bf16`: MUFU.EX2.F16 / .BF16 as the H100 computes them
/// (ptxas emits the unit alone; measured over all 65,536 inputs), see [`crate::sfu::ex2`]. ISA
/// bounds: relative error 2^-9.9 for `.f16`, 2^-7 for `.bf16`.
#[inline]
pub fn ex2_approx(fmt: Format, a: u16, _ftz: bool) -> u16 {
    if fmt == crate::round::BF16 {
        crate::sfu::ex2::ex2_bf16(a)
    } else {
        crate::sfu::ex2::ex2_f16(a)
    }
}

/// Relative error bound of `ex2.approx.f16` (2^-9.9).
pub const EX2_APPROX_F16_MAX_REL: f64 = 1.0466537720080985e-3; // 2^-9.9

/// `tanh.approx.{f16,bf16}`: MUFU.TANH.F16 / .BF16 as the H100 computes them (measured over all
/// 65,536 inputs), see [`crate::sfu::tanh`]. ISA bounds: relative error 2^-10.7 for `.f16`, 2^-8
/// for `.bf16`.
#[inline]
pub fn tanh_approx(fmt: Format, a: u16) -> u16 {
    if fmt == crate::round::BF16 {
        crate::sfu::tanh::tanh_bf16(a)
    } else {
        crate::sfu::tanh::tanh_f16(a)
    }
}
