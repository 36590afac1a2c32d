//! MUFU.EX2 (f32, f16, bf16); `ex2.approx{.ftz}.f32`, `ex2.approx.f16{x2}`,
//! `ex2.approx.ftz.bf16{x2}`.

use super::table::{table, LazyTable};
use super::{fmul, is_nan, rescale, split, INF, NAN, ONE};

/// MUFU.EX2 on the fixed-point grid `x = i·2^-23`, `i` in `[0, 2^23)`.
static EX2_GRID23: LazyTable = table!("ex2_grid23");
/// MUFU.EX2.F16 (`ex2.approx.f16`) of every f16 pattern.
static EX2_F16_ALL: LazyTable = table!("ex2_f16_all");
/// MUFU.EX2.BF16 (`ex2.approx.ftz.bf16`) of every bf16 pattern.
static EX2_BF16_ALL: LazyTable = table!("ex2_bf16_all");

/// `-126.0` (f32 bits): below it `ex2.approx.f32` halves the input and squares the result.
const MINUS_126: u32 = 0xc2fc_0000;
const HALF: u32 = 0x3f00_0000;

/// MUFU.EX2: the unit reads `x` as fixed point with 23 fraction bits: `x >= 0` gives
/// `q = floor(x·2^23)`; `x < 0` gives `k = floor(|x|·2^23)` and `q = -k` when `k mod 2^23 = 0`,
/// else `-k-1` (one's complement). The result is `ex2_grid23[q mod 2^23]·2^floor(q/2^23)`
/// (H100: all 2^32 inputs, 0 of 2,247,884,800 normal results differ); results below `2^-126`
/// flush to `+0`, above the range give `+∞`. Subnormal inputs count as zero (→ 1.0),
/// `-∞` → `+0`, `+∞` → `+∞`, NaN → `0x7fffffff`.
pub fn mufu_ex2(x: u32) -> u32 {
    let (sign, exp, man) = split(x);
    if is_nan(x) {
        return NAN;
    }
    if exp == 0 {
        return ONE;
    }
    // |x| >= 256 (and ±∞): far outside the range of normal results.
    if exp >= 127 + 8 {
        return if sign != 0 { 0 } else { INF };
    }
    let m = (man | 0x80_0000) as u64;
    // k = floor(|x|·2^23) = floor(m·2^(exp-127)); exp-127 is in [-126, 7].
    let k = if exp >= 127 {
        m << (exp - 127)
    } else {
        m.checked_shr((127 - exp) as u32).unwrap_or(0)
    } as i64;
    let q = if sign == 0 {
        k
    } else if k & 0x7f_ffff == 0 {
        -k
    } else {
        -k - 1
    };
    rescale(EX2_GRID23.at((q & 0x7f_ffff) as usize), (q >> 23) as i32, 0)
}

/// `ex2.approx.ftz.f32` is MUFU.EX2; `ex2.approx.f32` halves inputs below `-126` (`FMUL`),
/// takes MUFU.EX2 and squares the result (`FMUL`), which reaches the subnormal results.
pub fn ex2_approx_f32(x: u32, ftz: bool) -> u32 {
    // FSETP.GEU x, -126: false only for ordered x < -126.
    let below = x & 0x8000_0000 != 0 && !is_nan(x) && x & 0x7fff_ffff > MINUS_126 & 0x7fff_ffff;
    if ftz || !below {
        return mufu_ex2(x);
    }
    let r = mufu_ex2(fmul(x, HALF));
    fmul(r, r)
}

/// MUFU.EX2.F16: `ex2.approx.f16` (ptxas emits the unit alone; `.f16x2` once per half).
pub fn ex2_f16(x: u16) -> u16 {
    EX2_F16_ALL.at(x as usize) as u16
}

/// MUFU.EX2.BF16: `ex2.approx.ftz.bf16` (alone; `.bf16x2` once per half).
pub fn ex2_bf16(x: u16) -> u16 {
    EX2_BF16_ALL.at(x as usize) as u16
}
