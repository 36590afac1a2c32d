//! MUFU.SQRT, RSQ and RSQ64H; `sqrt.approx`, `rsqrt.approx` (f32) and `rsqrt.approx{.ftz}.f64`.

use super::table::{table, LazyTable};
use super::{abs_geu, fmul, rescale, split, INF, MIN_NORMAL, NAN, TWO_POW_24};
use crate::float;
use crate::round::Rnd;

/// MUFU.SQRT of every input in `[1, 4)`: index `j·2^23 + m` for `x = (1 + m/2^23)·2^j`.
static SQRT_1_4: LazyTable = table!("sqrt_1_4");
/// MUFU.RSQ of every input in `[1, 4)`, indexed as [`SQRT_1_4`].
static RSQRT_1_4: LazyTable = table!("rsqrt_1_4");
/// MUFU.RSQ64H of every high word in `[1, 4)`: index `j·2^20 + m20`.
static RSQ64H_1_4: LazyTable = table!("rsq64h_1_4");

/// `2^-12` and `2^12` (f32 bits): ptxas's output scales for subnormal inputs.
const TWO_POW_M12: u32 = 0x3980_0000;
const TWO_POW_12: u32 = 0x4580_0000;

/// Table index and the halved exponent `floor(e/2)` of a normal `x = m·2^e`.
#[inline]
fn index_and_half_exp(exp: i32, man: u32) -> (usize, i32) {
    let e = exp - 127;
    let j = e.rem_euclid(2);
    (((j as u32) << 23 | man) as usize, (e - j) / 2)
}

/// MUFU.SQRT: `sqrt(m·2^e)` is `sqrt_1_4[(e mod 2)·2^23 + m]` with the exponent raised by
/// `floor(e/2)` (H100: every input, 0 of 2,130,706,432 differ). `±0` and subnormals → `±0`,
/// other negatives → NaN, `+∞` → `+∞`.
pub fn mufu_sqrt(x: u32) -> u32 {
    let (sign, exp, man) = split(x);
    if exp == 0 {
        return sign;
    }
    if sign != 0 || (exp == 0xff && man != 0) {
        return NAN;
    }
    if exp == 0xff {
        return INF;
    }
    let (i, half) = index_and_half_exp(exp, man);
    rescale(SQRT_1_4.at(i), half, 0)
}

/// MUFU.RSQ: `rsqrt_1_4` with the exponent lowered by `floor(e/2)` (0 of 2,130,706,432 differ).
/// `±0` and subnormals → `±∞`, other negatives → NaN, `+∞` → `+0`.
pub fn mufu_rsq(x: u32) -> u32 {
    let (sign, exp, man) = split(x);
    if exp == 0 {
        return sign | INF;
    }
    if sign != 0 || (exp == 0xff && man != 0) {
        return NAN;
    }
    if exp == 0xff {
        return 0;
    }
    let (i, half) = index_and_half_exp(exp, man);
    rescale(RSQRT_1_4.at(i), -half, 0)
}

/// `sqrt.approx.ftz.f32` is MUFU.SQRT; `sqrt.approx.f32` scales `|x| < 2^-126` by `2^24` first
/// and the root by `2^-12` after.
pub fn sqrt_approx_f32(x: u32, ftz: bool) -> u32 {
    scaled(x, ftz, mufu_sqrt, TWO_POW_M12)
}

/// `rsqrt.approx.ftz.f32` is MUFU.RSQ; `rsqrt.approx.f32` scales `|x| < 2^-126` by `2^24` first
/// and the result by `2^12` after.
pub fn rsqrt_approx_f32(x: u32, ftz: bool) -> u32 {
    scaled(x, ftz, mufu_rsq, TWO_POW_12)
}

fn scaled(x: u32, ftz: bool, op: fn(u32) -> u32, out_scale: u32) -> u32 {
    if ftz || abs_geu(x, MIN_NORMAL) {
        op(x)
    } else {
        fmul(op(fmul(x, TWO_POW_24)), out_scale)
    }
}

/// MUFU.RSQ64H on the high word of a double: `rsq64h_1_4` with the exponent lowered by
/// `floor(e/2)` (H100: 0 of 2,145,386,496 high words with a normal input and result differ).
/// Not measured, by analogy with MUFU.RSQ: exponent field 0 → `±∞`, negatives and NaN →
/// `0x7fffffff`, `+∞` → `+0`.
pub fn mufu_rsq64h(hi: u32) -> u32 {
    let sign = hi & 0x8000_0000;
    let exp = ((hi >> 20) & 0x7ff) as i32;
    let man = hi & 0xf_ffff;
    if exp == 0 {
        return sign | 0x7ff0_0000;
    }
    if sign != 0 || (exp == 0x7ff && man != 0) {
        return NAN;
    }
    if exp == 0x7ff {
        return 0;
    }
    let e = exp - 1023;
    let j = e.rem_euclid(2);
    let t = RSQ64H_1_4.at(((j as u32) << 20 | man) as usize);
    let r = ((t >> 20) & 0x7ff) as i32 - (e - j) / 2;
    (r as u32) << 20 | (t & 0xf_ffff)
}

/// `rsqrt.approx.ftz.f64` is MUFU.RSQ64H on the high word (low word 0). `rsqrt.approx.f64`
/// refines it (SASS): `y = RSQ64H(x)`, `e = fma(x, -(y·y), 1)`, `y + fma(e, 3/8, 1/2)·(y·e)`;
/// inputs outside the normal positive range take ptxas's slow path: `±0` → `±∞`, NaN → NaN,
/// negative → `0xfff8000000000000`, `+∞` → `+0`, positive subnormals scaled by `2^54` and the
/// result by `2^27`.
pub fn rsqrt_approx_f64(a: u64, ftz: bool) -> u64 {
    let hi = (a >> 32) as u32;
    if ftz {
        return (mufu_rsq64h(hi) as u64) << 32;
    }
    if hi.wrapping_sub(0x0010_0000) < 0x7fe0_0000 {
        return rsqrt_newton(a);
    }
    let sign = a & 0x8000_0000_0000_0000;
    if a << 1 == 0 {
        sign | 0x7ff0_0000_0000_0000
    } else if a & 0x7fff_ffff_ffff_ffff > 0x7ff0_0000_0000_0000 {
        float::add_f64(a, a, Rnd::Rn)
    } else if sign != 0 {
        0xfff8_0000_0000_0000
    } else if a == 0x7ff0_0000_0000_0000 {
        0
    } else {
        let scaled = float::mul_f64(a, 1.801_439_850_948_198_4e16f64.to_bits(), Rnd::Rn);
        float::mul_f64(rsqrt_newton(scaled), 134_217_728f64.to_bits(), Rnd::Rn)
    }
}

/// The DMUL/DFMA step of `rsqrt.approx.f64` around MUFU.RSQ64H (all round-to-nearest).
fn rsqrt_newton(x: u64) -> u64 {
    let y = f64::from_bits((mufu_rsq64h((x >> 32) as u32) as u64) << 32);
    let x = f64::from_bits(x);
    let yy = y * y;
    let e = x.mul_add(-yy, 1.0);
    let c = e.mul_add(0.375, 0.5);
    let ye = y * e;
    c.mul_add(ye, y).to_bits()
}
