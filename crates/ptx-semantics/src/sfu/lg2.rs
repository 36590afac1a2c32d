//! MUFU.LG2; `lg2.approx{.ftz}.f32`.

use super::table::{table, LazyTable};
use super::{abs_geu, is_nan, split, INF, MIN_NORMAL, NAN, TWO_POW_24};
use crate::float;
use crate::round::Rnd;

/// MUFU.LG2 of every input in `[1, 2)` (index: trailing significand).
static LG2_E0: LazyTable = table!("lg2_e0");
/// MUFU.LG2 of every input in `[1/2, 1)`.
static LG2_EM1: LazyTable = table!("lg2_e-1");

/// `-24.0` (f32 bits): `lg2.approx.f32` adds it back after scaling a subnormal input by `2^24`.
const MINUS_24: u32 = 0xc1c0_0000;

/// MUFU.LG2 of `x = m·2^e`: `e = 0` and `e = -1` read `lg2_e0[m]` / `lg2_e-1[m]`; every other `e`
/// gives `e + L[m]` rounded toward zero to f32, where the unit's internal `log2(m)` lies
/// strictly between `lg2_e0[m]` and `1 + lg2_e-1[m]` (the two tables bound it from both sides)
/// and their midpoint (in f64, as `lg2_rule.py` checked it) stands for it (H100: every positive
/// normal input, 0 of 2,130,706,432 differ). `±0` and subnormals → `-∞`, negatives → NaN,
/// `+∞` → `+∞`, NaN → `0x7fffffff`.
pub fn mufu_lg2(x: u32) -> u32 {
    let (sign, exp, man) = split(x);
    if is_nan(x) {
        return NAN;
    }
    if exp == 0 {
        return 0x8000_0000 | INF;
    }
    if sign != 0 {
        return NAN;
    }
    if exp == 0xff {
        return INF;
    }
    let m = man as usize;
    match exp - 127 {
        0 => LG2_E0.at(m),
        -1 => LG2_EM1.at(m),
        e => {
            let t0 = f32::from_bits(LG2_E0.at(m)) as f64;
            let tm1 = f32::from_bits(LG2_EM1.at(m)) as f64;
            let l = (t0 + 1.0 + tm1) / 2.0;
            round_toward_zero(e as f64 + l)
        }
    }
}

/// `v` (f64, non-zero, finite, within f32 range) rounded toward zero to f32 bits.
fn round_toward_zero(v: f64) -> u32 {
    let f = v as f32;
    if (f as f64).abs() > v.abs() {
        f.to_bits() - 1
    } else {
        f.to_bits()
    }
}

/// `lg2.approx.ftz.f32` is MUFU.LG2; `lg2.approx.f32` scales `|x| < 2^-126` by `2^24` (`FMUL`)
/// and adds `-24` to the result (`FADD`).
pub fn lg2_approx_f32(x: u32, ftz: bool) -> u32 {
    if ftz || abs_geu(x, MIN_NORMAL) {
        return mufu_lg2(x);
    }
    let scaled = float::mul_f32(x, TWO_POW_24, Rnd::Rn, false, false);
    float::add_f32(mufu_lg2(scaled), MINUS_24, Rnd::Rn, false, false)
}
