//! `cvt`: conversions between every integer and floating-point type (PTX ISA §"cvt", "Integer
//! Rounding Modifiers", "Floating-Point Rounding Modifiers", "Saturation Modifiers").
//!
//! * float → float: one exact rounding ([`crate::round`]); NaN → canonical NaN of the destination;
//!   `.ftz` flushes `.f32` subnormal inputs and `.f32` results; `.sat` clamps to `[0, 1]` (NaN →
//!   0); `.relu` clamps negative results to `+0` (NaN → canonical NaN); `.satfinite` clamps
//!   `±∞`/overflow to `±MAX_NORM` (NaN stays NaN).
//! * float → integer (`.rni .rzi .rmi .rpi`): rounds to an integer, then saturates to the
//!   destination range ("float-to-int conversions saturate by default"); NaN → 0.
//! * integer → float (`.rn .rz .rm .rp`): one exact rounding of the integer value.
//! * integer → integer: see [`crate::int::cvt_int`].

use crate::int::IntTy;
use crate::round::{self, Format, Overflow, Rnd, Unpacked, BF16, E4M3, E5M2, F16, F32, F64, TF32};
use ptx_isa::ScalarType;

/// The [`Format`] of a PTX float type (`.f16 .bf16 .tf32 .f32 .f64 .e4m3 .e5m2`).
pub fn float_format(t: ScalarType) -> Option<Format> {
    Some(match t {
        ScalarType::F16 => F16,
        ScalarType::Bf16 => BF16,
        ScalarType::Tf32 => TF32,
        ScalarType::F32 => F32,
        ScalarType::F64 => F64,
        ScalarType::E4m3 => E4M3,
        ScalarType::E5m2 => E5M2,
        _ => return None,
    })
}

/// Modifiers of a float-producing `cvt`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CvtMods {
    /// `.ftz` (affects `.f32` sources and results).
    pub ftz: bool,
    /// `.sat`: clamp to `[0.0, 1.0]`.
    pub sat: bool,
    /// `.relu`: negative results → `+0`.
    pub relu: bool,
    /// `.satfinite`: no infinities, `±MAX_NORM` instead.
    pub satfinite: bool,
}

/// Register bits of a value of `fmt` → bits of the format proper (`.tf32` lives in the upper 19
/// bits of a `.b32` register; its low 13 bits are ignored).
#[inline]
fn from_reg(fmt: Format, a: u64) -> u64 {
    if fmt == TF32 {
        (a >> 13) & 0x7ffff
    } else {
        a & mask(fmt)
    }
}

#[inline]
fn to_reg(fmt: Format, v: u64) -> u64 {
    if fmt == TF32 {
        v << 13
    } else {
        v
    }
}

#[inline]
fn mask(fmt: Format) -> u64 {
    if fmt.width() >= 64 {
        u64::MAX
    } else {
        (1u64 << fmt.width()) - 1
    }
}

/// Post-processing shared by float results: NaN canonical, `.ftz` on `.f32`, `.relu`, `.sat`.
#[inline]
fn finish(dst: Format, r: u64, m: CvtMods) -> u64 {
    if dst.is_nan(r) {
        return if m.sat { 0 } else { dst.canonical_nan };
    }
    let r = if m.ftz && dst == F32 { dst.flush(r) } else { r };
    let r = if m.relu && r & dst.sign_mask() != 0 {
        0
    } else {
        r
    };
    if m.sat {
        let one = round::convert(F64, dst, 1f64.to_bits(), Rnd::Rn, Overflow::Ieee);
        if r & dst.sign_mask() != 0 {
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

/// `cvt{.frnd}{.ftz}{.sat}{.relu}{.satfinite}.dtype.atype` between float types. `a` and the
/// result are register bits (`.tf32` in the upper bits of a `.b32`). `rnd` is ignored by exact
/// (widening) conversions.
#[inline]
pub fn f2f(dst: Format, src: Format, a: u64, rnd: Rnd, m: CvtMods) -> u64 {
    let mut v = from_reg(src, a);
    if m.ftz && src == F32 {
        v = F32.flush(v);
    }
    let ov = if m.satfinite {
        Overflow::SatFinite
    } else {
        Overflow::Ieee
    };
    let r = round::convert(src, dst, v, rnd, ov);
    to_reg(dst, finish(dst, r, m))
}

/// `cvt.{rni,rzi,rmi,rpi}{.ftz}{.sat}.ftype.ftype`: round to an integral value in the same float
/// format (sign of zero preserved, `±∞` unchanged, NaN canonical).
#[inline]
pub fn f2f_integral(fmt: Format, a: u64, irnd: Rnd, m: CvtMods) -> u64 {
    let mut v = from_reg(fmt, a);
    if m.ftz && fmt == F32 {
        v = F32.flush(v);
    }
    let r = match round::unpack(fmt, v) {
        Unpacked::Nan => fmt.canonical_nan,
        Unpacked::Inf(_) | Unpacked::Zero(_) => v,
        Unpacked::Finite { sign, m: mant, e } => {
            if e >= 0 {
                v
            } else {
                // magnitude < 2^p, so the rounded integer converts back exactly
                let i = round::round_to_integer(sign, mant, e, irnd).unwrap_or(0);
                round::round_exact(fmt, sign, i, 0, false, Rnd::Rn, Overflow::Ieee)
            }
        }
    };
    to_reg(fmt, finish(fmt, r, m))
}

/// `cvt.irnd{.ftz}{.sat}.itype.ftype`: float → integer with rounding `irnd`, saturating to the
/// destination range, NaN → 0 (`.sat` is implied for float → integer).
#[inline]
pub fn f2i(dst: IntTy, src: Format, a: u64, irnd: Rnd, ftz: bool) -> u64 {
    let mut v = from_reg(src, a);
    if ftz && src == F32 {
        v = F32.flush(v);
    }
    match round::unpack(src, v) {
        Unpacked::Nan | Unpacked::Zero(_) => 0,
        Unpacked::Inf(neg) => dst.saturate(if neg { i128::MIN } else { i128::MAX }),
        Unpacked::Finite { sign, m, e } => {
            let mag = round::round_to_integer(sign, m, e, irnd).unwrap_or(u128::MAX >> 1);
            let mag = mag.min(1u128 << 100) as i128;
            dst.saturate(if sign { -mag } else { mag })
        }
    }
}

/// `cvt.frnd{.sat}.ftype.itype`: integer → float with rounding `rnd` (`.sat` clamps the float
/// result to `[0, 1]`).
#[inline]
pub fn i2f(dst: Format, src: IntTy, a: u64, rnd: Rnd, m: CvtMods) -> u64 {
    let v = src.value(a);
    // Fast path: the host's integer → float conversion rounds to nearest-even, as `.rn` does.
    // (Through i64/u64, which hold every value of a PTX integer type exactly.)
    let r = if rnd == Rnd::Rn && dst == F32 {
        if src.signed {
            (v as i64 as f32).to_bits() as u64
        } else {
            (v as u64 as f32).to_bits() as u64
        }
    } else if rnd == Rnd::Rn && dst == F64 {
        if src.signed {
            (v as i64 as f64).to_bits()
        } else {
            (v as u64 as f64).to_bits()
        }
    } else {
        round::round_exact(dst, v < 0, v.unsigned_abs(), 0, false, rnd, Overflow::Ieee)
    };
    to_reg(dst, finish(dst, r, m))
}

/// `cvt.frnd2{.relu}{.satfinite}.f16x2.f32 d, a, b`: `d[31:16] = cvt(a)`, `d[15:0] = cvt(b)`.
#[inline]
pub fn pack_f16x2_f32(a: u32, b: u32, rnd: Rnd, m: CvtMods) -> u32 {
    let hi = f2f(F16, F32, a as u64, rnd, m) as u32;
    let lo = f2f(F16, F32, b as u64, rnd, m) as u32;
    (hi << 16) | lo
}

/// `cvt.frnd2{.relu}{.satfinite}.bf16x2.f32 d, a, b`.
#[inline]
pub fn pack_bf16x2_f32(a: u32, b: u32, rnd: Rnd, m: CvtMods) -> u32 {
    let hi = f2f(BF16, F32, a as u64, rnd, m) as u32;
    let lo = f2f(BF16, F32, b as u64, rnd, m) as u32;
    (hi << 16) | lo
}

/// `cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, a, b`: `d[15:8] = cvt(a)`, `d[7:0] = cvt(b)`
/// (round to nearest even, always `.satfinite`).
#[inline]
pub fn pack_f8x2_f32(dst: Format, a: u32, b: u32, relu: bool) -> u16 {
    let m = CvtMods {
        relu,
        satfinite: true,
        ..CvtMods::default()
    };
    let hi = f2f(dst, F32, a as u64, Rnd::Rn, m) as u16;
    let lo = f2f(dst, F32, b as u64, Rnd::Rn, m) as u16;
    (hi << 8) | (lo & 0xff)
}

/// `cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 d, a`: each `.f16` half converted, the upper
/// half into `d[15:8]`.
#[inline]
pub fn pack_f8x2_f16x2(dst: Format, a: u32, relu: bool) -> u16 {
    let m = CvtMods {
        relu,
        satfinite: true,
        ..CvtMods::default()
    };
    let hi = f2f(dst, F16, (a >> 16) as u64, Rnd::Rn, m) as u16;
    let lo = f2f(dst, F16, (a & 0xffff) as u64, Rnd::Rn, m) as u16;
    (hi << 8) | (lo & 0xff)
}

/// `cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, a`: each byte (exact in `.f16`) into a half, the upper
/// byte into `d[31:16]`.
#[inline]
pub fn unpack_f8x2_to_f16x2(src: Format, a: u16, relu: bool) -> u32 {
    let m = CvtMods {
        relu,
        ..CvtMods::default()
    };
    let hi = f2f(F16, src, (a >> 8) as u64, Rnd::Rn, m) as u32;
    let lo = f2f(F16, src, (a & 0xff) as u64, Rnd::Rn, m) as u32;
    (hi << 16) | lo
}

/// `cvt.rna{.satfinite}.tf32.f32` and `cvt.{rn,rz}{.satfinite}{.relu}.tf32.f32`: the `.tf32`
/// result in the upper 19 bits of a `.b32` (low 13 bits zero).
#[inline]
pub fn tf32_from_f32(a: u32, rnd: Rnd, m: CvtMods) -> u32 {
    f2f(TF32, F32, a as u64, rnd, m) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f2i_saturates_and_maps_nan_to_zero() {
        let s32 = IntTy::S32;
        assert_eq!(f2i(s32, F32, f32::NAN.to_bits() as u64, Rnd::Rz, false), 0);
        assert_eq!(
            f2i(s32, F32, 3e9f32.to_bits() as u64, Rnd::Rz, false),
            0x7fff_ffff
        );
        assert_eq!(
            f2i(s32, F32, (-3e9f32).to_bits() as u64, Rnd::Rz, false),
            0x8000_0000
        );
        assert_eq!(
            f2i(IntTy::U32, F32, (-1.5f32).to_bits() as u64, Rnd::Rz, false),
            0
        );
        assert_eq!(
            f2i(s32, F32, (-1.5f32).to_bits() as u64, Rnd::Rn, false),
            (-2i32) as u32 as u64
        );
        assert_eq!(f2i(s32, F32, 1e-40f32.to_bits() as u64, Rnd::Rp, false), 1);
        assert_eq!(f2i(s32, F32, 1e-40f32.to_bits() as u64, Rnd::Rp, true), 0);
    }
}
