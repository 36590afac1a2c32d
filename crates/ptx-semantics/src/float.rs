//! `.f32` and `.f64` floating-point instructions (PTX ISA §"Floating-Point Instructions").
//!
//! Operands and results are raw register bits (`u32` for `.f32`, `u64` for `.f64`).
//!
//! * `.rn` arithmetic uses the host's IEEE-754 operations (Rust's `+ - * /`, `sqrt`, `mul_add`
//!   are correctly rounded to nearest-even); `.rz .rm .rp` use [`rustc_apfloat`] (LLVM's
//!   APFloat), and directed-rounding square roots use an exact integer square root
//!   ([`crate::round`]). Every mode is therefore exact.
//! * NaN results are the canonical NaN (`0x7fffffff`, and `0x7fffffffffffffff` for `.f64`): the
//!   ISA leaves payloads unspecified and NVIDIA's FP32 units return the canonical NaN.
//! * `.ftz` flushes subnormal inputs and results (after rounding) to a zero of the same sign.
//! * `.sat` clamps the result to `[+0.0, 1.0]`; NaN (and `-0.0`) become `+0.0`.
//! * `.approx` functions (and `div.full`) are the H100's special-function unit, bit for bit:
//!   [`crate::sfu`] holds the measured tables and rules and the SASS sequence of each form. The
//!   ISA's stated error bound for each is quoted on the function and asserted by the tests.

use crate::round::{self, Rnd};
use crate::sfu;
use rustc_apfloat::ieee::{Double, Single};
use rustc_apfloat::{Float as _, Round, StatusAnd};

/// Canonical `.f32` NaN.
pub const NAN_F32: u32 = 0x7fff_ffff;
/// Canonical `.f64` NaN.
pub const NAN_F64: u64 = 0x7fff_ffff_ffff_ffff;
const ONE_F32: u32 = 0x3f80_0000;

#[inline]
pub(crate) fn ap_round(r: Rnd) -> Round {
    match r {
        Rnd::Rn => Round::NearestTiesToEven,
        Rnd::Rna => Round::NearestTiesToAway,
        Rnd::Rz => Round::TowardZero,
        Rnd::Rm => Round::TowardNegative,
        Rnd::Rp => Round::TowardPositive,
    }
}

#[inline]
fn ap32(x: u32) -> Single {
    Single::from_bits(x as u128)
}
#[inline]
fn ap64(x: u64) -> Double {
    Double::from_bits(x as u128)
}
#[inline]
fn bits32(r: StatusAnd<Single>) -> u32 {
    r.value.to_bits() as u32
}
#[inline]
fn bits64(r: StatusAnd<Double>) -> u64 {
    r.value.to_bits() as u64
}

/// `.f32` `.ftz` input/output flush: subnormal → zero of the same sign.
#[inline]
pub fn flush_f32(x: u32) -> u32 {
    if x & 0x7f80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

/// `.f64` subnormal flush (used by the `.ftz` forms of `rcp.approx`/`rsqrt.approx` on `.f64`).
#[inline]
pub fn flush_f64(x: u64) -> u64 {
    if x & 0x7ff0_0000_0000_0000 == 0 {
        x & 0x8000_0000_0000_0000
    } else {
        x
    }
}

#[inline]
fn is_nan32(x: u32) -> bool {
    x & 0x7fff_ffff > 0x7f80_0000
}
#[inline]
fn is_nan64(x: u64) -> bool {
    x & 0x7fff_ffff_ffff_ffff > 0x7ff0_0000_0000_0000
}

#[inline]
fn ftz_in(x: u32, ftz: bool) -> u32 {
    if ftz {
        flush_f32(x)
    } else {
        x
    }
}

/// `.sat` on an `.f32` result: clamp to `[0, 1]`, NaN → `+0`.
#[inline]
pub fn saturate_f32(x: u32) -> u32 {
    if is_nan32(x) || x & 0x8000_0000 != 0 {
        0
    } else if x > ONE_F32 {
        ONE_F32
    } else {
        x
    }
}

/// Canonicalises NaN, then applies `.ftz` and `.sat` to an `.f32` result.
#[inline]
fn finish32(r: u32, ftz: bool, sat: bool) -> u32 {
    let r = if is_nan32(r) { NAN_F32 } else { r };
    let r = if ftz { flush_f32(r) } else { r };
    if sat {
        saturate_f32(r)
    } else {
        r
    }
}

#[inline]
fn finish64(r: u64) -> u64 {
    if is_nan64(r) {
        NAN_F64
    } else {
        r
    }
}

// ------------------------------------------------------------------------------------- f32

/// `add{.rnd}{.ftz}{.sat}.f32` (PTX ISA §"add (floating point)").
#[inline]
pub fn add_f32(a: u32, b: u32, rnd: Rnd, ftz: bool, sat: bool) -> u32 {
    let (a, b) = (ftz_in(a, ftz), ftz_in(b, ftz));
    let r = if rnd == Rnd::Rn {
        (f32::from_bits(a) + f32::from_bits(b)).to_bits()
    } else {
        bits32(ap32(a).add_r(ap32(b), ap_round(rnd)))
    };
    finish32(r, ftz, sat)
}

/// `sub{.rnd}{.ftz}{.sat}.f32`.
#[inline]
pub fn sub_f32(a: u32, b: u32, rnd: Rnd, ftz: bool, sat: bool) -> u32 {
    let (a, b) = (ftz_in(a, ftz), ftz_in(b, ftz));
    let r = if rnd == Rnd::Rn {
        (f32::from_bits(a) - f32::from_bits(b)).to_bits()
    } else {
        bits32(ap32(a).sub_r(ap32(b), ap_round(rnd)))
    };
    finish32(r, ftz, sat)
}

/// `mul{.rnd}{.ftz}{.sat}.f32`.
#[inline]
pub fn mul_f32(a: u32, b: u32, rnd: Rnd, ftz: bool, sat: bool) -> u32 {
    let (a, b) = (ftz_in(a, ftz), ftz_in(b, ftz));
    let r = if rnd == Rnd::Rn {
        (f32::from_bits(a) * f32::from_bits(b)).to_bits()
    } else {
        bits32(ap32(a).mul_r(ap32(b), ap_round(rnd)))
    };
    finish32(r, ftz, sat)
}

/// `fma.rnd{.ftz}{.sat}.f32` and `mad.rnd{.ftz}{.sat}.f32`: `a * b + c` with a single rounding
/// (PTX ISA §"fma"; `mad.f32` with a rounding modifier is the same operation on sm_20+).
#[inline]
pub fn fma_f32(a: u32, b: u32, c: u32, rnd: Rnd, ftz: bool, sat: bool) -> u32 {
    let (a, b, c) = (ftz_in(a, ftz), ftz_in(b, ftz), ftz_in(c, ftz));
    let r = if rnd == Rnd::Rn {
        f32::from_bits(a)
            .mul_add(f32::from_bits(b), f32::from_bits(c))
            .to_bits()
    } else {
        bits32(ap32(a).mul_add_r(ap32(b), ap32(c), ap_round(rnd)))
    };
    finish32(r, ftz, sat)
}

/// `div.rnd{.ftz}.f32`: IEEE-754 division (PTX ISA §"div (floating point)").
#[inline]
pub fn div_f32(a: u32, b: u32, rnd: Rnd, ftz: bool) -> u32 {
    let (a, b) = (ftz_in(a, ftz), ftz_in(b, ftz));
    let r = if rnd == Rnd::Rn {
        (f32::from_bits(a) / f32::from_bits(b)).to_bits()
    } else {
        bits32(ap32(a).div_r(ap32(b), ap_round(rnd)))
    };
    finish32(r, ftz, false)
}

/// `div.full{.ftz}.f32`: the H100's sequence (operands scaled into range, `a · MUFU.RCP(b)`),
/// see [`sfu::rcp::div_full_f32`]. ISA bound: 2 ulp.
#[inline]
pub fn div_full_f32(a: u32, b: u32, ftz: bool) -> u32 {
    sfu::rcp::div_full_f32(a, b, ftz)
}

/// Maximum ulp error the ISA allows for `div.full.f32`.
pub const DIV_FULL_F32_MAX_ULP: f64 = 2.0;

/// `div.approx{.ftz}.f32`: the H100's sequence (`a · MUFU.RCP(b)`, subnormal `b` scaled by
/// `2^24`), see [`sfu::rcp::div_approx_f32`]. ISA bound: 2 ulp for `|b|` in `[2^-126, 2^126]`;
/// `2^126 < |b| < 2^128` gives 0 (NaN for infinite `a`).
#[inline]
pub fn div_approx_f32(a: u32, b: u32, ftz: bool) -> u32 {
    sfu::rcp::div_approx_f32(a, b, ftz)
}

/// Maximum ulp error the ISA allows for `div.approx.f32` (for `|b|` in `[2^-126, 2^126]`).
pub const DIV_APPROX_F32_MAX_ULP: f64 = 2.0;

/// `rcp.rnd{.ftz}.f32`: IEEE `1/a`.
#[inline]
pub fn rcp_f32(a: u32, rnd: Rnd, ftz: bool) -> u32 {
    div_f32(ONE_F32, a, rnd, ftz)
}

/// `rcp.approx{.ftz}.f32`: MUFU.RCP as the H100 computes it, see [`sfu::rcp::rcp_approx_f32`].
/// ISA bound: "maximum ulp error is 1 across the full range".
#[inline]
pub fn rcp_approx_f32(a: u32, ftz: bool) -> u32 {
    sfu::rcp::rcp_approx_f32(a, ftz)
}

/// Maximum ulp error the ISA allows for `rcp.approx.f32`.
pub const RCP_APPROX_F32_MAX_ULP: f64 = 1.0;

/// `sqrt.rnd{.ftz}.f32`: IEEE square root (`sqrt(-0) = -0`, negative → NaN).
#[inline]
pub fn sqrt_f32(a: u32, rnd: Rnd, ftz: bool) -> u32 {
    let a = ftz_in(a, ftz);
    let r = if rnd == Rnd::Rn {
        f32::from_bits(a).sqrt().to_bits()
    } else {
        sqrt_directed(round::F32, a as u64, rnd) as u32
    };
    finish32(r, ftz, false)
}

/// `sqrt.approx{.ftz}.f32`: MUFU.SQRT as the H100 computes it, see
/// [`sfu::sqrt::sqrt_approx_f32`]. ISA bound: "maximum relative error 2^-23 over the full range".
#[inline]
pub fn sqrt_approx_f32(a: u32, ftz: bool) -> u32 {
    sfu::sqrt::sqrt_approx_f32(a, ftz)
}

/// Maximum relative error the ISA allows for `sqrt.approx.f32`.
pub const SQRT_APPROX_F32_MAX_REL: f64 = 1.0 / (1u64 << 23) as f64;

/// `rsqrt.approx{.ftz}.f32`: MUFU.RSQ as the H100 computes it, see
/// [`sfu::sqrt::rsqrt_approx_f32`] (`rsqrt(±0) = ±∞`, negative → NaN, `+∞` → `+0`). ISA bound:
/// "maximum relative error 2^-22.9 over the full range".
#[inline]
pub fn rsqrt_approx_f32(a: u32, ftz: bool) -> u32 {
    sfu::sqrt::rsqrt_approx_f32(a, ftz)
}

/// Maximum relative error the ISA allows for `rsqrt.approx.f32` (2^-22.9).
pub const RSQRT_APPROX_F32_MAX_REL: f64 = 1.277653530283325e-7; // 2^-22.9

/// `ex2.approx{.ftz}.f32`: MUFU.EX2 as the H100 computes it, see [`sfu::ex2::ex2_approx_f32`]
/// (`ex2(-∞) = +0`, `ex2(+∞) = +∞`). ISA bound: "maximum relative error 2^-22 (ulp error 2)".
#[inline]
pub fn ex2_approx_f32(a: u32, ftz: bool) -> u32 {
    sfu::ex2::ex2_approx_f32(a, ftz)
}

/// Maximum relative error we allow for `ex2.approx.f32` (the ISA's 2 ulp, i.e. 2^-22).
pub const EX2_APPROX_F32_MAX_REL: f64 = 1.0 / (1u64 << 22) as f64;

/// `lg2.approx{.ftz}.f32`: MUFU.LG2 as the H100 computes it, see [`sfu::lg2::lg2_approx_f32`]
/// (`lg2(±0) = -∞`, negative → NaN). ISA bound: "maximum absolute error 2^-22 for arguments in
/// `[0.5, 2]`, relative error 2^-22 elsewhere".
#[inline]
pub fn lg2_approx_f32(a: u32, ftz: bool) -> u32 {
    sfu::lg2::lg2_approx_f32(a, ftz)
}

/// Error bound we assert for `lg2.approx.f32` (absolute in `[0.5, 2]`, relative elsewhere).
pub const LG2_APPROX_F32_MAX_ERR: f64 = 1.0 / (1u64 << 22) as f64;

/// `sin.approx{.ftz}.f32`: `FMUL.RZ` by 1/2π and MUFU.SIN as the H100 computes them, see
/// [`sfu::sincos`] (`.ftz` compiles to the same code). ISA bound: "maximum absolute error
/// 2^-20.5 in the range `[-100π, 100π]`".
#[inline]
pub fn sin_approx_f32(a: u32, _ftz: bool) -> u32 {
    sfu::sincos::sin_approx_f32(a)
}

/// `cos.approx{.ftz}.f32`: as [`sin_approx_f32`] with MUFU.COS.
#[inline]
pub fn cos_approx_f32(a: u32, _ftz: bool) -> u32 {
    sfu::sincos::cos_approx_f32(a)
}

/// Absolute error bound of `sin.approx.f32`/`cos.approx.f32` in `[-100π, 100π]` (2^-20.5).
pub const SINCOS_APPROX_F32_MAX_ABS: f64 = 6.743495761743046e-7; // 2^-20.5

/// `tanh.approx.f32` (sm_75+): MUFU.TANH as the H100 computes it, see [`sfu::tanh::mufu_tanh`].
/// ISA bound: "maximum relative error 2^-11 over the full range".
#[inline]
pub fn tanh_approx_f32(a: u32) -> u32 {
    sfu::tanh::mufu_tanh(a)
}

/// Relative error bound of `tanh.approx.f32` (2^-11).
pub const TANH_APPROX_F32_MAX_REL: f64 = 1.0 / 2048.0;

/// `min{.ftz}{.NaN}.f32` (PTX ISA §"min (floating point)"): one NaN operand → the other
/// operand; both NaN (or any NaN with `.NaN`) → canonical NaN; `-0.0 < +0.0`.
#[inline]
pub fn min_f32(a: u32, b: u32, ftz: bool, propagate_nan: bool) -> u32 {
    minmax32(a, b, ftz, propagate_nan, true)
}

/// `max{.ftz}{.NaN}.f32`; see [`min_f32`].
#[inline]
pub fn max_f32(a: u32, b: u32, ftz: bool, propagate_nan: bool) -> u32 {
    minmax32(a, b, ftz, propagate_nan, false)
}

#[inline]
fn minmax32(a: u32, b: u32, ftz: bool, propagate_nan: bool, is_min: bool) -> u32 {
    let (a, b) = (ftz_in(a, ftz), ftz_in(b, ftz));
    match (is_nan32(a), is_nan32(b)) {
        (true, true) => return NAN_F32,
        (true, false) | (false, true) if propagate_nan => return NAN_F32,
        (true, false) => return b,
        (false, true) => return a,
        _ => {}
    }
    // total order on non-NaN values with -0 < +0: map to a monotone signed key
    let key = |x: u32| {
        if x & 0x8000_0000 != 0 {
            -((x & 0x7fff_ffff) as i64) - 1
        } else {
            x as i64
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

/// `abs{.ftz}.f32`: clears the sign bit (NaN stays a NaN; the ISA leaves its payload
/// unspecified, we keep it).
#[inline]
pub fn abs_f32(a: u32, ftz: bool) -> u32 {
    ftz_in(a, ftz) & 0x7fff_ffff
}

/// `neg{.ftz}.f32`: flips the sign bit.
#[inline]
pub fn neg_f32(a: u32, ftz: bool) -> u32 {
    ftz_in(a, ftz) ^ 0x8000_0000
}

/// `copysign.f32 d, a, b`: `b` with the sign of `a` (PTX ISA §"copysign").
#[inline]
pub fn copysign_f32(a: u32, b: u32) -> u32 {
    (b & 0x7fff_ffff) | (a & 0x8000_0000)
}

/// `cvt{.ftz}{.sat}.f32.f32` without integer rounding: `.ftz` flush, `.sat` clamp, NaN canonical.
#[inline]
pub fn mov_f32(a: u32, ftz: bool, sat: bool) -> u32 {
    finish32(a, ftz, sat)
}

/// The class tests of `testp` (PTX ISA §"testp").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TestpOp {
    /// `.finite`: not infinite and not NaN.
    Finite,
    /// `.infinite`: `±∞`.
    Infinite,
    /// `.number`: not NaN.
    Number,
    /// `.notanumber`: NaN.
    NotANumber,
    /// `.normal`: finite, non-zero, not subnormal.
    Normal,
    /// `.subnormal`: non-zero with a zero exponent field.
    Subnormal,
}

/// `testp.op.f32`.
#[inline]
pub fn testp_f32(op: TestpOp, a: u32) -> bool {
    testp(op, a as u64, round::F32)
}

/// `testp.op.f64`.
#[inline]
pub fn testp_f64(op: TestpOp, a: u64) -> bool {
    testp(op, a, round::F64)
}

#[inline]
fn testp(op: TestpOp, a: u64, f: round::Format) -> bool {
    let nan = f.is_nan(a);
    let inf = f.is_inf(a);
    let mag = a & (f.sign_mask() - 1);
    match op {
        TestpOp::Finite => !nan && !inf,
        TestpOp::Infinite => inf,
        TestpOp::Number => !nan,
        TestpOp::NotANumber => nan,
        TestpOp::Normal => !nan && !inf && mag >= (1u64 << f.man_bits),
        TestpOp::Subnormal => f.is_subnormal(a),
    }
}

// ------------------------------------------------------------------------------------- f64

/// `add{.rnd}.f64`.
#[inline]
pub fn add_f64(a: u64, b: u64, rnd: Rnd) -> u64 {
    finish64(if rnd == Rnd::Rn {
        (f64::from_bits(a) + f64::from_bits(b)).to_bits()
    } else {
        bits64(ap64(a).add_r(ap64(b), ap_round(rnd)))
    })
}

/// `sub{.rnd}.f64`.
#[inline]
pub fn sub_f64(a: u64, b: u64, rnd: Rnd) -> u64 {
    finish64(if rnd == Rnd::Rn {
        (f64::from_bits(a) - f64::from_bits(b)).to_bits()
    } else {
        bits64(ap64(a).sub_r(ap64(b), ap_round(rnd)))
    })
}

/// `mul{.rnd}.f64`.
#[inline]
pub fn mul_f64(a: u64, b: u64, rnd: Rnd) -> u64 {
    finish64(if rnd == Rnd::Rn {
        (f64::from_bits(a) * f64::from_bits(b)).to_bits()
    } else {
        bits64(ap64(a).mul_r(ap64(b), ap_round(rnd)))
    })
}

/// `fma.rnd.f64` / `mad.rnd.f64`.
#[inline]
pub fn fma_f64(a: u64, b: u64, c: u64, rnd: Rnd) -> u64 {
    finish64(if rnd == Rnd::Rn {
        f64::from_bits(a)
            .mul_add(f64::from_bits(b), f64::from_bits(c))
            .to_bits()
    } else {
        bits64(ap64(a).mul_add_r(ap64(b), ap64(c), ap_round(rnd)))
    })
}

/// `div.rnd.f64`.
#[inline]
pub fn div_f64(a: u64, b: u64, rnd: Rnd) -> u64 {
    finish64(if rnd == Rnd::Rn {
        (f64::from_bits(a) / f64::from_bits(b)).to_bits()
    } else {
        bits64(ap64(a).div_r(ap64(b), ap_round(rnd)))
    })
}

/// `rcp.rnd.f64`.
#[inline]
pub fn rcp_f64(a: u64, rnd: Rnd) -> u64 {
    div_f64(1f64.to_bits(), a, rnd)
}

/// `rcp.approx.ftz.f64`: MUFU.RCP64H on the high word, low word 0, as the H100 computes it
/// (see [`sfu::rcp::rcp_approx_ftz_f64`]). The ISA states no bound beyond "fast approximation".
#[inline]
pub fn rcp_approx_ftz_f64(a: u64) -> u64 {
    sfu::rcp::rcp_approx_ftz_f64(a)
}

/// `sqrt.rnd.f64`.
#[inline]
pub fn sqrt_f64(a: u64, rnd: Rnd) -> u64 {
    finish64(if rnd == Rnd::Rn {
        f64::from_bits(a).sqrt().to_bits()
    } else {
        sqrt_directed(round::F64, a, rnd)
    })
}

/// `rsqrt.approx{.ftz}.f64`: MUFU.RSQ64H (`.ftz`: alone; otherwise refined by ptxas's DFMA
/// step), see [`sfu::sqrt::rsqrt_approx_f64`].
#[inline]
pub fn rsqrt_approx_f64(a: u64, ftz: bool) -> u64 {
    sfu::sqrt::rsqrt_approx_f64(a, ftz)
}

/// `min{.NaN}.f64`.
#[inline]
pub fn min_f64(a: u64, b: u64, propagate_nan: bool) -> u64 {
    minmax64(a, b, propagate_nan, true)
}

/// `max{.NaN}.f64`.
#[inline]
pub fn max_f64(a: u64, b: u64, propagate_nan: bool) -> u64 {
    minmax64(a, b, propagate_nan, false)
}

#[inline]
fn minmax64(a: u64, b: u64, propagate_nan: bool, is_min: bool) -> u64 {
    match (is_nan64(a), is_nan64(b)) {
        (true, true) => return NAN_F64,
        (true, false) | (false, true) if propagate_nan => return NAN_F64,
        (true, false) => return b,
        (false, true) => return a,
        _ => {}
    }
    let key = |x: u64| {
        if x >> 63 != 0 {
            -((x & 0x7fff_ffff_ffff_ffff) as i128) - 1
        } else {
            x as i128
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

/// `abs.f64`.
#[inline]
pub fn abs_f64(a: u64) -> u64 {
    a & 0x7fff_ffff_ffff_ffff
}

/// `neg.f64`.
#[inline]
pub fn neg_f64(a: u64) -> u64 {
    a ^ 0x8000_0000_0000_0000
}

/// `copysign.f64 d, a, b`: `b` with the sign of `a`.
#[inline]
pub fn copysign_f64(a: u64, b: u64) -> u64 {
    (b & 0x7fff_ffff_ffff_ffff) | (a & 0x8000_0000_0000_0000)
}

// ------------------------------------------------------------------------ exact square root

/// Integer square root of a `u128` (floor), bit by bit.
#[inline]
fn isqrt_u128(n: u128) -> u128 {
    if n < 2 {
        return n;
    }
    // initial guess from f64, then correct (the f64 guess is within a few units of the root for
    // n < 2^128, and the correction loops are bounded by that).
    let mut x = (n as f64).sqrt() as u128;
    loop {
        match x.checked_mul(x) {
            Some(sq) if sq <= n => break,
            _ => x -= 1,
        }
    }
    loop {
        match (x + 1).checked_mul(x + 1) {
            Some(sq) if sq <= n => x += 1,
            _ => break,
        }
    }
    x
}

/// Square root of a binary32/binary64 value in a directed rounding mode, exactly: the operand's
/// significand is scaled to 2·(p+2) bits, its integer square root gives p+2 bits of the result
/// and the remainder gives the sticky bit.
pub(crate) fn sqrt_directed(fmt: round::Format, a: u64, rnd: Rnd) -> u64 {
    match round::unpack(fmt, a) {
        round::Unpacked::Nan => fmt.canonical_nan,
        round::Unpacked::Zero(_) => a,
        round::Unpacked::Inf(neg) => {
            if neg {
                fmt.canonical_nan
            } else {
                a
            }
        }
        round::Unpacked::Finite { sign: true, .. } => fmt.canonical_nan,
        round::Unpacked::Finite { sign: false, m, e } => {
            let mut m = m as u128;
            let mut e = e;
            // normalise m to 2(p+2) (+1 for parity) bits, e even
            let want = 2 * (fmt.man_bits + 3) + 2;
            let nbits = 128 - m.leading_zeros();
            if nbits < want {
                let s = want - nbits;
                m <<= s;
                e -= s as i32;
            }
            if e & 1 != 0 {
                m <<= 1;
                e -= 1;
            }
            let r = isqrt_u128(m);
            let sticky = r * r != m;
            round::round_exact(fmt, false, r, e / 2, sticky, rnd, round::Overflow::Ieee)
        }
    }
}
