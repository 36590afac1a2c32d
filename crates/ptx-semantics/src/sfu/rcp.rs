//! MUFU.RCP and RCP64H; `rcp.approx`, `div.full`, `div.approx` (f32) and `rcp.approx.ftz.f64`.

use super::table::{table, LazyTable};
use super::{abs_geu, abs_gt, fmul, fmul_ftz, rescale, split, INF, MIN_NORMAL, NAN, TWO_POW_24};

/// MUFU.RCP of every input in `[1, 2)` (index: the 23-bit trailing significand).
static RCP_1_2: LazyTable = table!("rcp_1_2");
/// MUFU.RCP64H of every high word in `[1, 2)` (index: the 20 significand bits of the high word).
static RCP64H_1_2: LazyTable = table!("rcp64h_1_2");

/// `2^126` (f32 bits): above it ptxas scales the operand by 1/4 first.
const TWO_POW_126: u32 = 0x7e80_0000;
const QUARTER: u32 = 0x3e80_0000;
const ONE: u32 = super::ONE;

/// MUFU.RCP: `1/x` of `x = m·2^e` is `rcp_1_2[m]` with its exponent lowered by `e` (H100: every
/// normal input with a normal result, 0 of 2,113,929,217 differ). Subnormal inputs count as
/// zero (→ `±∞`), results below `2^-126` flush to `±0`, `±∞` → `±0`, NaN → `0x7fffffff`.
pub fn mufu_rcp(x: u32) -> u32 {
    let (sign, exp, man) = split(x);
    match exp {
        0xff if man != 0 => NAN,
        0xff => sign,
        0 => sign | INF,
        _ => rescale(RCP_1_2.at(man as usize), 127 - exp, sign),
    }
}

/// `rcp.approx.ftz.f32` is MUFU.RCP alone; `rcp.approx.f32` scales `|x| < 2^-126` by `2^24` and
/// `|x| > 2^126` by `1/4` (`FMUL`), takes MUFU.RCP and multiplies the result by the same scale.
pub fn rcp_approx_f32(x: u32, ftz: bool) -> u32 {
    if ftz {
        return mufu_rcp(x);
    }
    let small = if abs_geu(x, MIN_NORMAL) {
        ONE
    } else {
        TWO_POW_24
    };
    let scale = if abs_gt(x, TWO_POW_126) {
        QUARTER
    } else {
        small
    };
    fmul(scale, mufu_rcp(fmul(x, scale)))
}

/// `div.full.f32 a, b`: `|b| > 2^126` scales both operands by 1/4, `|b| < 2^-126` by `2^24`,
/// then `a · MUFU.RCP(b)` (`FMUL`). `.ftz`: only the 1/4 scaling, with `FMUL.FTZ`.
pub fn div_full_f32(a: u32, b: u32, ftz: bool) -> u32 {
    let (r, a) = div_full_f32_factors(a, b, ftz);
    if ftz {
        fmul_ftz(r, a)
    } else {
        fmul(r, a)
    }
}

/// The two factors of `div.full.f32 a, b`'s last multiply: (MUFU.RCP of the scaled `b`, the
/// scaled `a`). ptxas contracts that multiply with a following `add`/`sub` like a `mul`'s
/// (one FFMA of these factors; tests/sass/fma_probe.sm_*.tsv).
pub fn div_full_f32_factors(a: u32, b: u32, ftz: bool) -> (u32, u32) {
    let (mut a, mut b) = (a, b);
    if ftz {
        if abs_gt(b, TWO_POW_126) {
            b = fmul_ftz(b, QUARTER);
            a = fmul_ftz(a, QUARTER);
        }
        return (mufu_rcp(b), a);
    }
    if abs_gt(b, TWO_POW_126) {
        b = fmul(b, QUARTER);
        a = fmul(a, QUARTER);
    }
    if !abs_geu(b, MIN_NORMAL) {
        b = fmul(b, TWO_POW_24);
        a = fmul(a, TWO_POW_24);
    }
    (mufu_rcp(b), a)
}

/// `div.approx.f32 a, b`: `|b| < 2^-126` scales both by `2^24`, then `a · MUFU.RCP(b)`; so
/// `2^126 < |b|` gives 0 (NaN for infinite `a`), as the ISA says. `.ftz`: `FMUL.FTZ(a, RCP(b))`.
pub fn div_approx_f32(a: u32, b: u32, ftz: bool) -> u32 {
    let (r, a) = div_approx_f32_factors(a, b, ftz);
    if ftz {
        fmul_ftz(a, r)
    } else {
        fmul(r, a)
    }
}

/// The two factors of `div.approx.f32 a, b`'s multiply (MUFU.RCP of the scaled `b`, the scaled
/// `a`), which ptxas contracts with a following `add`/`sub` as [`div_full_f32_factors`].
pub fn div_approx_f32_factors(a: u32, b: u32, ftz: bool) -> (u32, u32) {
    if ftz {
        return (mufu_rcp(b), a);
    }
    let (mut a, mut b) = (a, b);
    if !abs_geu(b, MIN_NORMAL) {
        b = fmul(b, TWO_POW_24);
        a = fmul(a, TWO_POW_24);
    }
    (mufu_rcp(b), a)
}

/// MUFU.RCP64H on the high word of a double: `rcp64h_1_2[20-bit significand]` with the exponent
/// lowered by `e` (H100: 0 of 2,143,289,345 high words with a normal input and result differ).
/// Not measured, by analogy with MUFU.RCP: exponent field 0 → `±∞`, `±∞` → `±0`, results below
/// the normal range → `±0`, NaN (a NaN visible in the high word) → `0x7fffffff`.
pub fn mufu_rcp64h(hi: u32) -> u32 {
    let sign = hi & 0x8000_0000;
    let exp = ((hi >> 20) & 0x7ff) as i32;
    let man = hi & 0xf_ffff;
    match exp {
        0x7ff if man != 0 => NAN,
        0x7ff => sign,
        0 => sign | 0x7ff0_0000,
        _ => {
            let t = RCP64H_1_2.at(man as usize);
            let e = ((t >> 20) & 0x7ff) as i32 + 1023 - exp;
            if e <= 0 {
                sign
            } else {
                sign | (e as u32) << 20 | (t & 0xf_ffff)
            }
        }
    }
}

/// `rcp.approx.ftz.f64`: MUFU.RCP64H of the input's high word; the low word of the result is 0
/// (the SASS writes the high word only and zeroes the low one).
pub fn rcp_approx_ftz_f64(a: u64) -> u64 {
    (mufu_rcp64h((a >> 32) as u32) as u64) << 32
}
