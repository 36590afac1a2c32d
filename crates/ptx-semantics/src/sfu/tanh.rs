//! MUFU.TANH (f32, f16, bf16); `tanh.approx.{f32,f16,f16x2,bf16,bf16x2}`.

use super::table::{table, LazyTable};
use super::{is_nan, split, NAN, ONE};

/// Per binade `2^p` (`p` in `-8..=4`), the outputs for the significands `i·2^k`: the low `k`
/// input bits never change the output there (H100, checked per binade).
static TANH_BINADES: [(i32, u32, LazyTable); 13] = [
    (-8, 6, table!("tanh_p-8_step6")),
    (-7, 6, table!("tanh_p-7_step6")),
    (-6, 6, table!("tanh_p-6_step6")),
    (-5, 5, table!("tanh_p-5_step5")),
    (-4, 5, table!("tanh_p-4_step5")),
    (-3, 4, table!("tanh_p-3_step4")),
    (-2, 4, table!("tanh_p-2_step4")),
    (-1, 4, table!("tanh_p-1_step4")),
    (0, 3, table!("tanh_p0_step3")),
    (1, 2, table!("tanh_p1_step2")),
    (2, 3, table!("tanh_p2_step3")),
    (3, 11, table!("tanh_p3_step11")),
    (4, 11, table!("tanh_p4_step11")),
];
/// MUFU.TANH.F16 (`tanh.approx.f16`) of every f16 pattern.
static TANH_F16_ALL: LazyTable = table!("tanh_f16_all");
/// MUFU.TANH.BF16 (`tanh.approx.bf16`) of every bf16 pattern.
static TANH_BF16_ALL: LazyTable = table!("tanh_bf16_all");

/// MUFU.TANH (`tanh.approx.f32`, the unit alone): odd; `|x| < 2^-8` (zeros and subnormals
/// included) returns `x`; binades `2^-8 … 2^4` read their table at `significand >> k`; `|x| >=
/// 2^5` and `±∞` give `±1.0`; NaN → `0x7fffffff`.
pub fn mufu_tanh(x: u32) -> u32 {
    if is_nan(x) {
        return NAN;
    }
    let (sign, exp, man) = split(x);
    let p = exp - 127;
    if p < -8 {
        return x;
    }
    match TANH_BINADES.get((p + 8) as usize) {
        Some((_, k, t)) => sign | t.at((man >> k) as usize),
        None => sign | ONE,
    }
}

/// MUFU.TANH.F16: `tanh.approx.f16` (alone; `.f16x2` once per half).
pub fn tanh_f16(x: u16) -> u16 {
    TANH_F16_ALL.at(x as usize) as u16
}

/// MUFU.TANH.BF16: `tanh.approx.bf16` (alone; `.bf16x2` once per half).
pub fn tanh_bf16(x: u16) -> u16 {
    TANH_BF16_ALL.at(x as usize) as u16
}
