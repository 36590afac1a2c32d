//! Exact rounding of a binary value `m · 2^e` (plus a sticky bit) into any of PTX's binary
//! floating-point formats, in every PTX rounding mode.
//!
//! PTX ISA §"Rounding Modifiers" (floating-point rounding `.rn .rna .rz .rm .rp`, integer
//! rounding `.rni .rzi .rmi .rpi`). This module is the single place where rounding happens for
//! conversions (`cvt`), reduced-precision arithmetic and the directed-rounding `sqrt`; it works on
//! integers only (`u128` significands), so it is exact by construction: the kept bits are
//! `m >> shift`, the dropped bits are compared with one half of the last kept place, and the
//! sticky bit records any non-zero bits below `m`.

/// A floating-point rounding mode (PTX `.rn .rna .rz .rm .rp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rnd {
    /// Round to nearest, ties to even (`.rn`, also the integer-rounding `.rni`).
    Rn,
    /// Round to nearest, ties away from zero (`.rna`, `cvt.rna.tf32.f32`).
    Rna,
    /// Round toward zero (`.rz`, `.rzi`).
    Rz,
    /// Round toward negative infinity (`.rm`, `.rmi`).
    Rm,
    /// Round toward positive infinity (`.rp`, `.rpi`).
    Rp,
}

/// A binary floating-point format with an implicit leading significand bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Format {
    /// Exponent field width.
    pub exp_bits: u32,
    /// Stored (trailing) significand field width.
    pub man_bits: u32,
    /// `false` for formats whose all-ones exponent still holds finite values and which have no
    /// infinity (`.e4m3`: only `S.1111.111` is NaN).
    pub has_inf: bool,
    /// The NaN PTX produces in this format (positive sign).
    pub canonical_nan: u64,
}

/// IEEE binary16 (`.f16`).
pub const F16: Format = Format {
    exp_bits: 5,
    man_bits: 10,
    has_inf: true,
    canonical_nan: 0x7fff,
};
/// bfloat16 (`.bf16`).
pub const BF16: Format = Format {
    exp_bits: 8,
    man_bits: 7,
    has_inf: true,
    canonical_nan: 0x7fff,
};
/// IEEE binary32 (`.f32`).
pub const F32: Format = Format {
    exp_bits: 8,
    man_bits: 23,
    has_inf: true,
    canonical_nan: 0x7fff_ffff,
};
/// IEEE binary64 (`.f64`).
pub const F64: Format = Format {
    exp_bits: 11,
    man_bits: 52,
    has_inf: true,
    canonical_nan: 0x7fff_ffff_ffff_ffff,
};
/// TensorFloat-32 (`.tf32`) as a 19-bit format; [`to_tf32_bits`](crate::cvt) places it in the
/// upper bits of a 32-bit register.
pub const TF32: Format = Format {
    exp_bits: 8,
    man_bits: 10,
    has_inf: true,
    canonical_nan: 0x3ffff,
};
/// FP8 `.e4m3` (OCP "E4M3FN": no infinities, NaN is `S.1111.111`, max 448).
pub const E4M3: Format = Format {
    exp_bits: 4,
    man_bits: 3,
    has_inf: false,
    canonical_nan: 0x7f,
};
/// FP8 `.e5m2` (IEEE-like, max 57344).
pub const E5M2: Format = Format {
    exp_bits: 5,
    man_bits: 2,
    has_inf: true,
    canonical_nan: 0x7f,
};

impl Format {
    /// Total width in bits.
    #[inline]
    pub const fn width(self) -> u32 {
        1 + self.exp_bits + self.man_bits
    }
    /// Exponent bias.
    #[inline]
    pub const fn bias(self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }
    /// Sign-bit mask.
    #[inline]
    pub const fn sign_mask(self) -> u64 {
        1 << (self.exp_bits + self.man_bits)
    }
    /// Positive infinity (only meaningful when `has_inf`).
    #[inline]
    pub const fn inf(self) -> u64 {
        ((1u64 << self.exp_bits) - 1) << self.man_bits
    }
    /// Largest finite magnitude (`MAX_NORM`).
    #[inline]
    pub const fn max_finite(self) -> u64 {
        if self.has_inf {
            self.inf() - 1
        } else {
            // all-ones exponent with mantissa 1..10 (the all-ones mantissa is NaN)
            (((1u64 << self.exp_bits) - 1) << self.man_bits) | ((1u64 << self.man_bits) - 2)
        }
    }
    /// Whether `bits` (in the low `width` bits) is a NaN.
    #[inline]
    pub const fn is_nan(self, bits: u64) -> bool {
        let mag = bits & (self.sign_mask() - 1);
        if self.has_inf {
            mag > self.inf()
        } else {
            mag == self.max_finite() + 1
        }
    }
    /// Whether `bits` is an infinity.
    #[inline]
    pub const fn is_inf(self, bits: u64) -> bool {
        self.has_inf && (bits & (self.sign_mask() - 1)) == self.inf()
    }
    /// Whether `bits` is a subnormal (non-zero with a zero exponent field).
    #[inline]
    pub const fn is_subnormal(self, bits: u64) -> bool {
        let mag = bits & (self.sign_mask() - 1);
        mag != 0 && mag < (1u64 << self.man_bits)
    }
    /// Flushes a subnormal to a zero of the same sign (PTX `.ftz`).
    #[inline]
    pub const fn flush(self, bits: u64) -> u64 {
        if self.is_subnormal(bits) {
            bits & self.sign_mask()
        } else {
            bits
        }
    }
}

/// A decoded floating-point value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unpacked {
    /// NaN (payload dropped: PTX produces canonical NaNs).
    Nan,
    /// `±∞`; `true` is negative.
    Inf(bool),
    /// `±0`.
    Zero(bool),
    /// A non-zero finite value `(-1)^sign · m · 2^e` with `m > 0`.
    Finite {
        /// Negative.
        sign: bool,
        /// Integer significand (non-zero).
        m: u64,
        /// Exponent of the significand's last place.
        e: i32,
    },
}

/// Decodes `bits` of `fmt` exactly.
#[inline]
pub fn unpack(fmt: Format, bits: u64) -> Unpacked {
    let sign = bits & fmt.sign_mask() != 0;
    if fmt.is_nan(bits) {
        return Unpacked::Nan;
    }
    if fmt.is_inf(bits) {
        return Unpacked::Inf(sign);
    }
    let exp = ((bits >> fmt.man_bits) & ((1 << fmt.exp_bits) - 1)) as i32;
    let frac = bits & ((1 << fmt.man_bits) - 1);
    let min_e = 1 - fmt.bias() - fmt.man_bits as i32;
    if exp == 0 {
        if frac == 0 {
            Unpacked::Zero(sign)
        } else {
            Unpacked::Finite {
                sign,
                m: frac,
                e: min_e,
            }
        }
    } else {
        Unpacked::Finite {
            sign,
            m: frac | (1 << fmt.man_bits),
            e: min_e + exp - 1,
        }
    }
}

/// What to do with a finite result that is too large for the format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overflow {
    /// IEEE 754: round to `±∞` or `±MAX_NORM` according to the rounding direction (formats
    /// without infinity produce NaN).
    Ieee,
    /// PTX `.satfinite`: `±MAX_NORM`.
    SatFinite,
}

/// Rounds `(-1)^sign · (m · 2^e + δ)` into `fmt`, where `0 < δ < 2^e` exactly when `sticky`.
///
/// Returns the encoded bits (sign included). `m == 0 && !sticky` gives a signed zero. Never
/// panics: shifts are range-checked and the result saturates per `overflow`.
#[inline]
pub fn round_exact(
    fmt: Format,
    sign: bool,
    mut m: u128,
    mut e: i32,
    sticky: bool,
    rnd: Rnd,
    overflow: Overflow,
) -> u64 {
    let sign_bits = if sign { fmt.sign_mask() } else { 0 };
    if m == 0 {
        if !sticky {
            return sign_bits;
        }
        // A value strictly between 0 and 2^e: represent it as 1·2^(e-200) + sticky, far below any
        // format's precision.
        m = 1;
        e = e.saturating_sub(200);
    }
    if sticky {
        // Give the significand enough bits that the sticky part lies strictly below the guard bit.
        let lz = m.leading_zeros();
        if lz > 1 {
            m <<= lz - 1;
            e = e.saturating_sub((lz - 1) as i32);
        }
    }
    let nbits = 128 - m.leading_zeros() as i32;
    let msb_exp = e.saturating_add(nbits - 1);
    let man = fmt.man_bits as i32;
    let emin = 1 - fmt.bias();
    // exponent of the last kept place
    let q = msb_exp.max(emin) - man;
    let shift = q as i64 - e as i64;
    let (kept, round_up) = if shift <= 0 {
        // exact: no bits dropped (sticky is impossible here after normalisation unless the
        // format is wider than 125 bits, which none is)
        let s = (-shift) as u32;
        if s >= 64 || (m << s) >> 64 != 0 {
            // magnitude far beyond any format: overflow
            return overflow_result(fmt, sign, rnd, overflow);
        }
        (m << s, false)
    } else {
        let shift = shift as u64;
        let (kept, below_half, is_half, above_zero) = if shift > 128 {
            (0u128, true, false, true)
        } else if shift == 128 {
            let half = 1u128 << 127;
            (0u128, m < half, m == half && !sticky, true)
        } else {
            let s = shift as u32;
            let kept = m >> s;
            let rest = m & ((1u128 << s) - 1);
            let half = 1u128 << (s - 1);
            (
                kept,
                rest < half,
                rest == half && !sticky,
                rest != 0 || sticky,
            )
        };
        let up = match rnd {
            Rnd::Rz => false,
            Rnd::Rn => !below_half && (!is_half || kept & 1 == 1),
            Rnd::Rna => !below_half,
            Rnd::Rp => !sign && above_zero,
            Rnd::Rm => sign && above_zero,
        };
        (kept, up)
    };
    let r = kept + round_up as u128;
    // bits = ((q + man + bias - 1) << man) + r covers subnormals, normals and the carry into the
    // next binade alike.
    let biased = q as i64 + man as i64 + fmt.bias() as i64 - 1;
    debug_assert!(biased >= 0);
    let enc = ((biased.max(0) as u128) << man) + r;
    let limit = if fmt.has_inf {
        fmt.inf() as u128
    } else {
        fmt.max_finite() as u128 + 1
    };
    if enc >= limit {
        return overflow_result(fmt, sign, rnd, overflow);
    }
    sign_bits | enc as u64
}

#[inline]
fn overflow_result(fmt: Format, sign: bool, rnd: Rnd, overflow: Overflow) -> u64 {
    let sign_bits = if sign { fmt.sign_mask() } else { 0 };
    let to_inf = match rnd {
        Rnd::Rn | Rnd::Rna => true,
        Rnd::Rz => false,
        Rnd::Rp => !sign,
        Rnd::Rm => sign,
    };
    if overflow == Overflow::SatFinite || !to_inf {
        sign_bits | fmt.max_finite()
    } else if fmt.has_inf {
        sign_bits | fmt.inf()
    } else {
        sign_bits | fmt.canonical_nan
    }
}

/// Converts `bits` of format `from` into format `to` with rounding `rnd` (NaN becomes the
/// canonical NaN of `to`; `±∞` stays infinite unless `.satfinite`).
#[inline]
pub fn convert(from: Format, to: Format, bits: u64, rnd: Rnd, overflow: Overflow) -> u64 {
    match unpack(from, bits) {
        Unpacked::Nan => to.canonical_nan,
        Unpacked::Inf(s) => {
            if overflow == Overflow::SatFinite || !to.has_inf {
                (if s { to.sign_mask() } else { 0 }) | to.max_finite()
            } else {
                (if s { to.sign_mask() } else { 0 }) | to.inf()
            }
        }
        Unpacked::Zero(s) => {
            if s {
                to.sign_mask()
            } else {
                0
            }
        }
        Unpacked::Finite { sign, m, e } => {
            round_exact(to, sign, m as u128, e, false, rnd, overflow)
        }
    }
}

/// Rounds a finite value `(-1)^sign · m · 2^e` to an integer magnitude with integer rounding
/// `rnd` (`.rni .rzi .rmi .rpi`). Returns `None` when the magnitude is `≥ 2^127` (callers
/// saturate).
#[inline]
pub fn round_to_integer(sign: bool, m: u64, e: i32, rnd: Rnd) -> Option<u128> {
    if e >= 0 {
        if e >= 64 {
            return None;
        }
        return Some((m as u128) << e);
    }
    let s = (-e) as u32;
    let (kept, rest_nonzero, below_half, is_half) = if s >= 66 {
        (0u128, m != 0, true, false)
    } else {
        let m = m as u128;
        let kept = m >> s;
        let rest = m & ((1u128 << s) - 1);
        let half = 1u128 << (s - 1);
        (kept, rest != 0, rest < half, rest == half)
    };
    let up = match rnd {
        Rnd::Rz => false,
        Rnd::Rn => !below_half && (!is_half || kept & 1 == 1),
        Rnd::Rna => !below_half,
        Rnd::Rp => !sign && rest_nonzero,
        Rnd::Rm => sign && rest_nonzero,
    };
    Some(kept + up as u128)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f64_to_f32_matches_native_rn() {
        for &x in &[
            1.0f64,
            0.1,
            1e-40,
            -1e-45,
            3.4028235677973366e38,
            1e39,
            -0.0,
            5e-324,
        ] {
            let got = convert(F64, F32, x.to_bits(), Rnd::Rn, Overflow::Ieee) as u32;
            assert_eq!(got, (x as f32).to_bits(), "{x}");
        }
    }

    #[test]
    fn e4m3_limits() {
        assert_eq!(E4M3.max_finite(), 0x7e);
        assert_eq!(E5M2.max_finite(), 0x7b);
        assert_eq!(F16.max_finite(), 0x7bff);
        // 448 exact, 464 rounds to even (448), 480 overflows to NaN without satfinite
        let r = |x: f64, o| convert(F64, E4M3, x.to_bits(), Rnd::Rn, o);
        assert_eq!(r(448.0, Overflow::SatFinite), 0x7e);
        assert_eq!(r(464.0, Overflow::SatFinite), 0x7e);
        assert_eq!(r(1e9, Overflow::SatFinite), 0x7e);
        assert_eq!(r(-1e9, Overflow::SatFinite), 0xfe);
        assert_eq!(r(480.0, Overflow::Ieee), 0x7f);
    }
}
