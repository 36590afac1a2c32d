//! MUFU.SIN and MUFU.COS after ptxas's argument scaling; `sin.approx{.ftz}.f32`,
//! `cos.approx{.ftz}.f32`.

use super::table::{table, LazyTable};
use super::{is_nan, split, NAN, ONE};
use crate::float;
use crate::round::Rnd;

/// MUFU.SIN / MUFU.COS at the 23-bit fractions `q·2^-23` of a revolution.
static SIN_TABLE23: LazyTable = table!("sin_table23");
static COS_TABLE23: LazyTable = table!("cos_table23");

/// Outputs of every positive `x` in binade `2^e`, `e` in `-24..=2` (index `e + 24`), by x.
macro_rules! by_x {
    ($f:literal) => {
        [
            table!(concat!($f, "_x-24")),
            table!(concat!($f, "_x-23")),
            table!(concat!($f, "_x-22")),
            table!(concat!($f, "_x-21")),
            table!(concat!($f, "_x-20")),
            table!(concat!($f, "_x-19")),
            table!(concat!($f, "_x-18")),
            table!(concat!($f, "_x-17")),
            table!(concat!($f, "_x-16")),
            table!(concat!($f, "_x-15")),
            table!(concat!($f, "_x-14")),
            table!(concat!($f, "_x-13")),
            table!(concat!($f, "_x-12")),
            table!(concat!($f, "_x-11")),
            table!(concat!($f, "_x-10")),
            table!(concat!($f, "_x-9")),
            table!(concat!($f, "_x-8")),
            table!(concat!($f, "_x-7")),
            table!(concat!($f, "_x-6")),
            table!(concat!($f, "_x-5")),
            table!(concat!($f, "_x-4")),
            table!(concat!($f, "_x-3")),
            table!(concat!($f, "_x-2")),
            table!(concat!($f, "_x-1")),
            table!(concat!($f, "_x0")),
            table!(concat!($f, "_x1")),
            table!(concat!($f, "_x2")),
        ]
    };
}
static SIN_BY_X: [LazyTable; 27] = by_x!("sin");
static COS_BY_X: [LazyTable; 27] = by_x!("cos");

/// `0.15915494f` (1/2π rounded to f32): ptxas's `FMUL.RZ` turns radians into revolutions.
pub const INV_2PI: u32 = 0x3e22_f983;

/// Which function.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Func {
    Sin,
    Cos,
}

/// `sin.approx{.ftz}.f32` (both compile to `FMUL.RZ x, 1/2π` and MUFU.SIN).
pub fn sin_approx_f32(x: u32) -> u32 {
    eval(x, Func::Sin)
}

/// `cos.approx{.ftz}.f32` (`FMUL.RZ x, 1/2π` and MUFU.COS).
pub fn cos_approx_f32(x: u32) -> u32 {
    eval(x, Func::Cos)
}

/// The H100's description (README §2): `|x| >= 8`: `t = FMUL.RZ(x, 1/2π)`, `q` the 23-bit
/// fraction of `|t|`, `sin = sign(t)·sin_table23[q]`, `cos = cos_table23[q]` (every finite input,
/// 0 of 2,550,136,832 differ); `2^-24 <= |x| < 8`: the unit keeps more fraction bits there and
/// its outputs come from the by-x tables (sin odd, cos even); `|x| < 2^-24`: `sin = ±0` with x's
/// sign, `cos = 1.0`; `±∞` and NaN → `0x7fffffff`.
fn eval(x: u32, f: Func) -> u32 {
    let (sign, exp, man) = split(x);
    if exp == 0xff || is_nan(x) {
        return NAN;
    }
    let e = exp - 127;
    if e < -24 {
        return if f == Func::Sin { sign } else { ONE };
    }
    if e < 3 {
        let i = (e + 24) as usize;
        return match f {
            Func::Sin => sign ^ SIN_BY_X[i].at(man as usize),
            Func::Cos => COS_BY_X[i].at(man as usize),
        };
    }
    let t = float::mul_f32(x, INV_2PI, Rnd::Rz, false, false);
    let (tsign, texp, tman) = split(t);
    // |t| >= 8/2π > 1, so texp >= 127; q = floor(|t|·2^23) mod 2^23.
    let shift = (texp - 127) as u32;
    let q = if shift >= 23 {
        0
    } else {
        ((tman | 0x80_0000) << shift) & 0x7f_ffff
    } as usize;
    match f {
        Func::Sin => tsign ^ SIN_TABLE23.at(q),
        Func::Cos => COS_TABLE23.at(q),
    }
}
