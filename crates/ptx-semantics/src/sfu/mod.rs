//! The H100's special-function unit (MUFU) and the PTX `.approx` forms ptxas builds on it,
//! bit for bit.
//!
//! Each MUFU operation is described by the rule the H100 measurements established
//! (`../shared/hw/h100/README.md` §2, copied with its tables into `data/h100-sfu/`): a table of
//! the unit's outputs over one or two binades (or a fixed-point grid) plus how the exponent moves
//! with the input's. Each PTX form is the exact instruction sequence `ptxas -arch=sm_90` emits
//! for it (`data/sass/sfu_probe.sm_90.sass`, made by `data/sass/gen_sass.py`): IEEE `FMUL`/`FADD`
//! scaling around one MUFU operation, emulated with [`crate::float`]'s exact IEEE arithmetic.
//!
//! | module | MUFU operations | PTX forms |
//! |---|---|---|
//! | [`rcp`] | RCP, RCP64H | `rcp.approx{.ftz}.f32`, `div.full{.ftz}.f32`, `div.approx{.ftz}.f32`, `rcp.approx.ftz.f64` |
//! | [`sqrt`] | SQRT, RSQ, RSQ64H | `sqrt.approx{.ftz}.f32`, `rsqrt.approx{.ftz}.f32`, `rsqrt.approx{.ftz}.f64` |
//! | [`ex2`] | EX2, EX2.F16, EX2.BF16 | `ex2.approx{.ftz}.f32`, `ex2.approx.f16{x2}`, `ex2.approx.ftz.bf16{x2}` |
//! | [`lg2`] | LG2 | `lg2.approx{.ftz}.f32` |
//! | [`tanh`] | TANH, TANH.F16, TANH.BF16 | `tanh.approx.{f32,f16,f16x2,bf16,bf16x2}` |
//! | [`sincos`] | SIN, COS (after `FMUL.RZ` by 1/2π) | `sin.approx{.ftz}.f32`, `cos.approx{.ftz}.f32` |
//!
//! NaN results are `0x7fffffff` (measured for every f32 form). The tables are the H100's
//! (H100 80GB HBM3, driver 580.159.04); the A100 and B200 presets use them too until those
//! units are measured. Tables are decoded on first use, 65,536 values at a time
//! ([`table::LazyTable`]), so a kernel decodes (and holds) only the chunks its inputs reach.

pub mod ex2;
pub mod lg2;
pub mod rcp;
pub mod sincos;
pub mod sqrt;
pub mod table;
pub mod tanh;

/// What every f32 MUFU operation returns for a NaN result.
pub const NAN: u32 = 0x7fff_ffff;
/// `+∞` (f32 bits).
const INF: u32 = 0x7f80_0000;
/// `1.0` (f32 bits).
const ONE: u32 = 0x3f80_0000;
/// `2^-126`, the smallest normal f32: ptxas's subnormal-scaling threshold.
const MIN_NORMAL: u32 = 0x0080_0000;
/// `2^24` (f32 bits): the scale ptxas applies to subnormal inputs.
const TWO_POW_24: u32 = 0x4b80_0000;

/// Sign, biased exponent and trailing significand of an f32 pattern.
#[inline]
fn split(x: u32) -> (u32, i32, u32) {
    (x & 0x8000_0000, ((x >> 23) & 0xff) as i32, x & 0x7f_ffff)
}

#[inline]
fn is_nan(x: u32) -> bool {
    x & 0x7fff_ffff > INF
}

/// `FSETP.GEU |x|, lim`: true when `|x| >= lim` or `x` is NaN (`lim` a positive finite pattern).
#[inline]
fn abs_geu(x: u32, lim: u32) -> bool {
    x & 0x7fff_ffff >= lim
}

/// `FSETP.GT |x|, lim`: true when `|x| > lim` and `x` is not NaN.
#[inline]
fn abs_gt(x: u32, lim: u32) -> bool {
    let a = x & 0x7fff_ffff;
    a > lim && a <= INF
}

/// `FMUL` (round to nearest, no flush) as the SASS sequences use it.
#[inline]
fn fmul(a: u32, b: u32) -> u32 {
    crate::float::mul_f32(a, b, crate::round::Rnd::Rn, false, false)
}

/// `FMUL.FTZ`.
#[inline]
fn fmul_ftz(a: u32, b: u32) -> u32 {
    crate::float::mul_f32(a, b, crate::round::Rnd::Rn, true, false)
}

/// Result of a table entry `t` (a positive normal pattern) with its exponent field moved by
/// `shift`, and the sign `sign`: exponent fields at or below 0 flush to `±0` (the unit has no
/// subnormal outputs), at or above 255 give `±∞`.
#[inline]
fn rescale(t: u32, shift: i32, sign: u32) -> u32 {
    let e = ((t >> 23) & 0xff) as i32 + shift;
    if e <= 0 {
        sign
    } else if e >= 255 {
        sign | INF
    } else {
        sign | (e as u32) << 23 | (t & 0x7f_ffff)
    }
}
