//! Integer arithmetic, logic and bit-manipulation instructions (PTX ISA §"Integer Arithmetic
//! Instructions", §"Logic and Shift Instructions").
//!
//! Values travel as `u64` holding the operand zero-extended from its width; every function
//! returns its result in the same form (masked to the destination width). [`IntTy`] names the
//! width and signedness (`.u8 … .s64`, `.b*` behave as unsigned).

use ptx_isa::{ScalarType, TypeKind};

/// Width and signedness of an integer operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IntTy {
    /// 8, 16, 32 or 64.
    pub bits: u32,
    /// `.sN` (otherwise `.uN`/`.bN`).
    pub signed: bool,
}

impl IntTy {
    /// `.u8`
    pub const U8: IntTy = IntTy {
        bits: 8,
        signed: false,
    };
    /// `.u16`
    pub const U16: IntTy = IntTy {
        bits: 16,
        signed: false,
    };
    /// `.u32`
    pub const U32: IntTy = IntTy {
        bits: 32,
        signed: false,
    };
    /// `.u64`
    pub const U64: IntTy = IntTy {
        bits: 64,
        signed: false,
    };
    /// `.s8`
    pub const S8: IntTy = IntTy {
        bits: 8,
        signed: true,
    };
    /// `.s16`
    pub const S16: IntTy = IntTy {
        bits: 16,
        signed: true,
    };
    /// `.s32`
    pub const S32: IntTy = IntTy {
        bits: 32,
        signed: true,
    };
    /// `.s64`
    pub const S64: IntTy = IntTy {
        bits: 64,
        signed: true,
    };

    /// The integer view of a PTX scalar type (`.bN` as unsigned); `None` for float, predicate,
    /// `.b128` and sub-byte types.
    pub fn from_scalar(t: ScalarType) -> Option<IntTy> {
        let bits = t.bits();
        if !matches!(bits, 8 | 16 | 32 | 64) {
            return None;
        }
        match t.kind() {
            TypeKind::Bits | TypeKind::Unsigned => Some(IntTy {
                bits,
                signed: false,
            }),
            TypeKind::Signed => Some(IntTy { bits, signed: true }),
            _ => None,
        }
    }

    /// All-ones mask of the width.
    #[inline]
    pub const fn mask(self) -> u64 {
        if self.bits >= 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        }
    }

    /// Truncates `v` to the width (zero-extended form).
    #[inline]
    pub const fn trunc(self, v: u64) -> u64 {
        v & self.mask()
    }

    /// Sign- or zero-extends the low `bits` of `v` to `i128` according to signedness.
    #[inline]
    pub const fn value(self, v: u64) -> i128 {
        if self.signed {
            sext(v, self.bits) as i128
        } else {
            (v & self.mask()) as i128
        }
    }

    /// Smallest representable value.
    #[inline]
    pub const fn min_value(self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits - 1))
        } else {
            0
        }
    }

    /// Largest representable value.
    #[inline]
    pub const fn max_value(self) -> i128 {
        if self.signed {
            (1i128 << (self.bits - 1)) - 1
        } else {
            (1i128 << self.bits) - 1
        }
    }

    /// Clamps `v` into the type's range and returns it in register form.
    #[inline]
    pub const fn saturate(self, v: i128) -> u64 {
        let c = if v < self.min_value() {
            self.min_value()
        } else if v > self.max_value() {
            self.max_value()
        } else {
            v
        };
        self.trunc(c as u64)
    }
}

/// Sign-extends the low `bits` of `v` to `i64`.
#[inline]
pub const fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        let s = 64 - bits;
        ((v << s) as i64) >> s
    }
}

// ---------------------------------------------------------------- add, sub, carry

/// `add.type` (wrapping).
#[inline]
pub fn add(t: IntTy, a: u64, b: u64) -> u64 {
    t.trunc(a.wrapping_add(b))
}

/// `sub.type` (wrapping).
#[inline]
pub fn sub(t: IntTy, a: u64, b: u64) -> u64 {
    t.trunc(a.wrapping_sub(b))
}

/// `add.sat.s32`: clamps to `[INT_MIN, INT_MAX]` (only `.s32` has `.sat`).
#[inline]
pub fn add_sat_s32(a: u32, b: u32) -> u32 {
    (a as i32).saturating_add(b as i32) as u32
}

/// `sub.sat.s32`.
#[inline]
pub fn sub_sat_s32(a: u32, b: u32) -> u32 {
    (a as i32).saturating_sub(b as i32) as u32
}

/// `add.cc` / `addc{.cc}` (`.u32 .s32 .u64 .s64`): `a + b + carry_in`, returning the result and
/// the carry-out written to `CC.CF` (PTX ISA §"Extended-Precision Integer Arithmetic").
#[inline]
pub fn add_carry(t: IntTy, a: u64, b: u64, carry_in: bool) -> (u64, bool) {
    let wide = (t.trunc(a) as u128) + (t.trunc(b) as u128) + carry_in as u128;
    (t.trunc(wide as u64), (wide >> t.bits) & 1 == 1)
}

/// `sub.cc` / `subc{.cc}`: `a - (b + borrow_in)`, returning the result and the borrow-out
/// (`CC.CF` set when the subtraction borrows, as the ISA's `a + ~b + 1 - borrow` formulation).
#[inline]
pub fn sub_borrow(t: IntTy, a: u64, b: u64, borrow_in: bool) -> (u64, bool) {
    let a = t.trunc(a) as u128;
    let sub = t.trunc(b) as u128 + borrow_in as u128;
    (t.trunc(a.wrapping_sub(sub) as u64), a < sub)
}

// ---------------------------------------------------------------- mul, mad

/// `mul.lo.type`: low half of the product.
#[inline]
pub fn mul_lo(t: IntTy, a: u64, b: u64) -> u64 {
    t.trunc(a.wrapping_mul(b))
}

/// `mul.hi.type`: high half of the full `2n`-bit product (signed or unsigned).
#[inline]
pub fn mul_hi(t: IntTy, a: u64, b: u64) -> u64 {
    let p = t.value(a).wrapping_mul(t.value(b));
    t.trunc((p >> t.bits) as u64)
}

/// `mul.wide.type` (`.u16 .s16 .u32 .s32`): the full product in a register of twice the width.
#[inline]
pub fn mul_wide(t: IntTy, a: u64, b: u64) -> u64 {
    let p = t.value(a).wrapping_mul(t.value(b));
    let w = IntTy {
        bits: (t.bits * 2).min(64),
        signed: t.signed,
    };
    w.trunc(p as u64)
}

/// `mad.lo.type`: `(a * b).lo + c`.
#[inline]
pub fn mad_lo(t: IntTy, a: u64, b: u64, c: u64) -> u64 {
    t.trunc(a.wrapping_mul(b).wrapping_add(c))
}

/// `mad.hi.type`: `(a * b).hi + c`.
#[inline]
pub fn mad_hi(t: IntTy, a: u64, b: u64, c: u64) -> u64 {
    t.trunc(mul_hi(t, a, b).wrapping_add(c))
}

/// `mad.hi.sat.s32`: `(a * b).hi + c` clamped to `[INT_MIN, INT_MAX]` (`.sat` exists only for
/// `.hi` mode on `.s32`).
#[inline]
pub fn mad_hi_sat_s32(a: u32, b: u32, c: u32) -> u32 {
    let hi = ((a as i32 as i64 * b as i32 as i64) >> 32) as i32;
    hi.saturating_add(c as i32) as u32
}

/// `mad.wide.type` (`.u16 .s16 .u32 .s32`): `a * b` (double width) `+ c` (double width).
#[inline]
pub fn mad_wide(t: IntTy, a: u64, b: u64, c: u64) -> u64 {
    let w = IntTy {
        bits: (t.bits * 2).min(64),
        signed: t.signed,
    };
    w.trunc(mul_wide(t, a, b).wrapping_add(c))
}

/// `mul24.lo/.hi.{u32,s32}`: product of the low 24 bits (sign-extended for `.s32`), low or high
/// 32 bits of the 48-bit product.
#[inline]
pub fn mul24(signed: bool, hi: bool, a: u32, b: u32) -> u32 {
    let (x, y) = if signed {
        (
            sext(a as u64 & 0xff_ffff, 24),
            sext(b as u64 & 0xff_ffff, 24),
        )
    } else {
        ((a & 0xff_ffff) as i64, (b & 0xff_ffff) as i64)
    };
    let p = x * y;
    // PTX: .hi gives bits 47..16 of the 48-bit product
    if hi {
        (p >> 16) as u32
    } else {
        p as u32
    }
}

// ---------------------------------------------------------------- div, rem

/// `div.type`. Division by zero has no ISA-defined value ("unspecified, machine-specific"); we
/// return what the SASS division sequence nvcc emits returns: all ones for unsigned types, and
/// for signed types `-1` when `a ≥ 0` and `1` when `a < 0` (the unsigned all-ones quotient with
/// the sign rule applied). `INT_MIN / -1` wraps to `INT_MIN`.
#[inline]
pub fn div(t: IntTy, a: u64, b: u64) -> u64 {
    let (x, y) = (t.value(a), t.value(b));
    if y == 0 {
        return if t.signed && x < 0 { 1 } else { t.mask() };
    }
    t.trunc((x / y) as u64)
}

/// `rem.type` (sign of the result follows the dividend, as C). `rem` by zero returns `a`
/// (consistent with `a - (a / 0) * 0`); `INT_MIN rem -1` is 0.
#[inline]
pub fn rem(t: IntTy, a: u64, b: u64) -> u64 {
    let (x, y) = (t.value(a), t.value(b));
    if y == 0 {
        return t.trunc(a);
    }
    t.trunc((x % y) as u64)
}

// ---------------------------------------------------------------- abs, neg, min, max

/// `abs.type` (signed; `abs(INT_MIN) = INT_MIN`).
#[inline]
pub fn abs(t: IntTy, a: u64) -> u64 {
    let v = sext(a, t.bits);
    t.trunc(v.wrapping_abs() as u64)
}

/// `neg.type` (two's complement, wrapping).
#[inline]
pub fn neg(t: IntTy, a: u64) -> u64 {
    t.trunc(a.wrapping_neg())
}

/// `min.type`.
#[inline]
pub fn min(t: IntTy, a: u64, b: u64) -> u64 {
    if t.value(a) <= t.value(b) {
        t.trunc(a)
    } else {
        t.trunc(b)
    }
}

/// `max.type`.
#[inline]
pub fn max(t: IntTy, a: u64, b: u64) -> u64 {
    if t.value(a) >= t.value(b) {
        t.trunc(a)
    } else {
        t.trunc(b)
    }
}

/// `min.relu.s32` / `max.relu.s32`: the result clamped below at 0.
#[inline]
pub fn relu(t: IntTy, v: u64) -> u64 {
    if t.value(v) < 0 {
        0
    } else {
        t.trunc(v)
    }
}

/// Applies a 16-bit lane-wise op to both halves of `.u16x2`/`.s16x2` operands (`min`, `max`,
/// `add`, `sub` on packed half words).
#[inline]
pub fn x2(signed: bool, a: u32, b: u32, op: impl Fn(IntTy, u64, u64) -> u64) -> u32 {
    let t = IntTy { bits: 16, signed };
    let lo = op(t, (a & 0xffff) as u64, (b & 0xffff) as u64) as u32;
    let hi = op(t, (a >> 16) as u64, (b >> 16) as u64) as u32;
    (hi << 16) | (lo & 0xffff)
}

// ---------------------------------------------------------------- logic

/// `and.type`
#[inline]
pub fn and(a: u64, b: u64) -> u64 {
    a & b
}
/// `or.type`
#[inline]
pub fn or(a: u64, b: u64) -> u64 {
    a | b
}
/// `xor.type`
#[inline]
pub fn xor(a: u64, b: u64) -> u64 {
    a ^ b
}
/// `not.type` (masked to the width).
#[inline]
pub fn not(t: IntTy, a: u64) -> u64 {
    t.trunc(!a)
}
/// `cnot.type`: 1 if `a == 0`, else 0.
#[inline]
pub fn cnot(t: IntTy, a: u64) -> u64 {
    (t.trunc(a) == 0) as u64
}

/// `fns.b32 d, mask, base, offset` (PTX ISA §"fns"): the position of the `|offset|`-th set bit
/// of `mask` counting from bit `base` upwards (`offset > 0`) or downwards (`offset < 0`),
/// `base` itself when `offset == 0` and bit `base` is set; `0xffffffff` when there is none.
/// `base > 31` is undefined in the ISA; here no bit is found.
#[inline]
pub fn fns(mask: u32, base: u32, offset: i32) -> u32 {
    if base > 31 {
        return u32::MAX;
    }
    if offset == 0 {
        return if mask >> base & 1 == 1 {
            base
        } else {
            u32::MAX
        };
    }
    let mut count = offset.unsigned_abs() - 1;
    let mut pos = base as i32;
    let inc = if offset > 0 { 1 } else { -1 };
    while (0..32).contains(&pos) {
        if mask >> pos & 1 == 1 {
            if count == 0 {
                return pos as u32;
            }
            count -= 1;
        }
        pos += inc;
    }
    u32::MAX
}

/// The operation of the SIMD video instructions `vadd2/4`, `vsub2/4`, `vavrg2/4`,
/// `vabsdiff2/4`, `vmin2/4`, `vmax2/4`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VideoOp {
    /// `vadd2`, `vadd4`
    Add,
    /// `vsub2`, `vsub4`
    Sub,
    /// `vavrg2`, `vavrg4`: `(a + b + 1) >> 1` when `a + b >= 0`, else `(a + b) >> 1`
    Avrg,
    /// `vabsdiff2`, `vabsdiff4`
    AbsDiff,
    /// `vmin2`, `vmin4`
    Min,
    /// `vmax2`, `vmax4`
    Max,
}

/// The SIMD video instructions with the default selectors (`a`'s and `b`'s own halfwords or
/// bytes; PTX ISA §"SIMD Video Instructions"): `lanes` (2 or 4) elements of `32 / lanes` bits,
/// sign- or zero-extended per operand type; `.sat` clamps each result to the destination
/// type's element range; with `add` (`.add`) `d = c + Σ mask[i] ? t[i] : 0`, otherwise each
/// element of `d` is `t[i]` where `mask` has its bit, else the element of `c`.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn video_simd(
    op: VideoOp,
    lanes: u32,
    d_signed: bool,
    a_signed: bool,
    b_signed: bool,
    sat: bool,
    add: bool,
    mask: u32,
    a: u32,
    b: u32,
    c: u32,
) -> u32 {
    let w = 32 / lanes;
    let emask = (1u64 << w) - 1;
    let elem = |v: u32, i: u32, signed: bool| -> i64 {
        let e = ((v as u64) >> (w * i)) & emask;
        if signed && e >> (w - 1) & 1 == 1 {
            e as i64 - (1i64 << w)
        } else {
            e as i64
        }
    };
    let mut d: u32 = if add { c } else { 0 };
    for i in 0..lanes {
        let (va, vb) = (elem(a, i, a_signed), elem(b, i, b_signed));
        let mut t = match op {
            VideoOp::Add => va + vb,
            VideoOp::Sub => va - vb,
            VideoOp::Avrg => {
                if va + vb >= 0 {
                    (va + vb + 1) >> 1
                } else {
                    (va + vb) >> 1
                }
            }
            VideoOp::AbsDiff => (va - vb).abs(),
            VideoOp::Min => va.min(vb),
            VideoOp::Max => va.max(vb),
        };
        if sat {
            let (lo, hi) = if d_signed {
                (-(1i64 << (w - 1)), (1i64 << (w - 1)) - 1)
            } else {
                (0, (1i64 << w) - 1)
            };
            t = t.clamp(lo, hi);
        }
        let on = mask >> i & 1 == 1;
        if add {
            if on {
                d = d.wrapping_add(t as u32);
            }
        } else {
            let e = if on {
                t as u64 & emask
            } else {
                ((c as u64) >> (w * i)) & emask
            };
            d |= (e << (w * i)) as u32;
        }
    }
    d
}

/// `lop3.b32 d, a, b, c, immLut`: each result bit is `immLut[(a<<2)|(b<<1)|c]`
/// (PTX ISA §"lop3": `F(a,b,c)` with `ta = 0xF0, tb = 0xCC, tc = 0xAA`).
#[inline]
pub fn lop3(a: u32, b: u32, c: u32, lut: u8) -> u32 {
    let mut d = 0u32;
    for i in 0..8u32 {
        if lut >> i & 1 == 1 {
            let ma = if i & 4 != 0 { a } else { !a };
            let mb = if i & 2 != 0 { b } else { !b };
            let mc = if i & 1 != 0 { c } else { !c };
            d |= ma & mb & mc;
        }
    }
    d
}

// ---------------------------------------------------------------- shifts

/// `shl.bN`: shift amounts `≥ N` are clamped to `N` (result 0). `b` is the `.u32` amount.
#[inline]
pub fn shl(t: IntTy, a: u64, b: u32) -> u64 {
    if b >= t.bits {
        0
    } else {
        t.trunc(a << b)
    }
}

/// `shr.{bN,uN,sN}`: logical for `.b`/`.u`, arithmetic for `.s`; amounts `≥ N` clamp to `N`
/// (0 or all sign bits).
#[inline]
pub fn shr(t: IntTy, a: u64, b: u32) -> u64 {
    let s = b.min(t.bits);
    if t.signed {
        let v = sext(a, t.bits);
        t.trunc((v >> s.min(63)) as u64)
    } else if s >= t.bits {
        0
    } else {
        t.trunc(a) >> s
    }
}

/// `shf.{l,r}.{clamp,wrap}.b32 d, a, b, c`: funnel shift of the 64-bit `{b, a}`; `.wrap` uses
/// `c & 31`, `.clamp` uses `min(c, 32)`. `.l` returns the upper 32 bits of `{b,a} << n`, `.r`
/// the lower 32 bits of `{b,a} >> n`.
#[inline]
pub fn shf(left: bool, wrap: bool, a: u32, b: u32, c: u32) -> u32 {
    let n = if wrap { c & 31 } else { c.min(32) };
    let v = ((b as u64) << 32) | a as u64;
    if left {
        ((v << n) >> 32) as u32
    } else {
        (v >> n) as u32
    }
}

// ---------------------------------------------------------------- bit fields

/// `bfe.type d, a, b, c` (`.u32 .u64 .s32 .s64`): extract `len = c & 0xff` bits at
/// `pos = b & 0xff`; bits past the operand's msb (and all bits above `len`) are filled with the
/// sign bit `a[min(pos+len-1, msb)]` for signed types (0 when `len == 0`) and with 0 for
/// unsigned types (PTX ISA §"bfe" pseudocode).
#[inline]
pub fn bfe(t: IntTy, a: u64, b: u32, c: u32) -> u64 {
    let msb = t.bits - 1;
    let pos = b & 0xff;
    let len = c & 0xff;
    let a = t.trunc(a);
    let sbit = if t.signed && len != 0 {
        let i = (pos + len - 1).min(msb);
        (a >> i) & 1
    } else {
        0
    };
    // bits i < len with pos+i <= msb come from a, everything else is sbit
    let avail = if pos > msb {
        0
    } else {
        (msb - pos + 1).min(len)
    };
    let field = if avail == 0 {
        0
    } else {
        let m = if avail >= 64 {
            u64::MAX
        } else {
            (1u64 << avail) - 1
        };
        (a >> pos) & m
    };
    let fill = if sbit == 1 {
        let m = if avail >= 64 { 0 } else { u64::MAX << avail };
        m & t.mask()
    } else {
        0
    };
    t.trunc(field | fill)
}

/// `bfi.bN d, a, b, c, d`: insert the low `len = d & 0xff` bits of `a` into `b` at
/// `pos = c & 0xff` (bits that would land past the msb are dropped).
#[inline]
pub fn bfi(t: IntTy, a: u64, b: u64, pos: u32, len: u32) -> u64 {
    let pos = pos & 0xff;
    let len = len & 0xff;
    if pos >= t.bits || len == 0 {
        return t.trunc(b);
    }
    let n = len.min(t.bits - pos);
    let m = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    t.trunc((b & !(m << pos)) | ((a & m) << pos))
}

/// `bmsk.{clamp,wrap}.b32 d, a, b`: a mask of `b` ones starting at bit `a`; `.wrap` takes both
/// modulo 32, `.clamp` limits them to 32.
#[inline]
pub fn bmsk(wrap: bool, a: u32, b: u32) -> u32 {
    let (pos, len) = if wrap {
        (a & 31, b & 31)
    } else {
        (a.min(32), b.min(32))
    };
    if pos >= 32 {
        return 0;
    }
    let ones = if len >= 32 {
        u64::MAX
    } else {
        (1u64 << len) - 1
    };
    ((ones << pos) & 0xffff_ffff) as u32
}

/// `szext.{clamp,wrap}.{u32,s32} d, a, b`: sign- or zero-extend the low `b` bits of `a`
/// (`.wrap`: `b mod 32`, `.clamp`: `min(b, 32)`).
#[inline]
pub fn szext(signed: bool, wrap: bool, a: u32, b: u32) -> u32 {
    let n = if wrap { b & 31 } else { b.min(32) };
    if n >= 32 {
        return a;
    }
    if n == 0 {
        return 0;
    }
    if signed {
        sext(a as u64, n) as u32
    } else {
        a & ((1u32 << n) - 1)
    }
}

/// Which bytes `prmt` picks in one of its named modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PrmtMode {
    /// Generic form: four 4-bit selectors in `c[15:0]` (bit 3 of each replicates the sign).
    Generic,
    /// `.f4e` forward 4 extract.
    F4e,
    /// `.b4e` backward 4 extract.
    B4e,
    /// `.rc8` replicate 8.
    Rc8,
    /// `.ecl` edge clamp left.
    Ecl,
    /// `.ecr` edge clamp right.
    Ecr,
    /// `.rc16` replicate 16.
    Rc16,
}

/// `prmt.b32{.mode} d, a, b, c` (PTX ISA §"prmt"). The source bytes are `{b, a}` =
/// `b7..b4, b3..b0`; for the named modes `c[1:0]` indexes the ISA's table of byte selections
/// (listed here as `[d.b0, d.b1, d.b2, d.b3]`).
#[inline]
pub fn prmt(mode: PrmtMode, a: u32, b: u32, c: u32) -> u32 {
    let src = ((b as u64) << 32) | a as u64;
    let byte = |i: u32| ((src >> ((i & 7) * 8)) & 0xff) as u32;
    let pick = |sel: [u32; 4]| {
        sel.iter()
            .enumerate()
            .fold(0u32, |d, (k, &i)| d | byte(i) << (8 * k))
    };
    let s = c & 3;
    match mode {
        PrmtMode::Generic => {
            let mut d = 0u32;
            for k in 0..4 {
                let sel = (c >> (4 * k)) & 0xf;
                let v = byte(sel & 7);
                let v = if sel & 8 != 0 {
                    if v & 0x80 != 0 {
                        0xff
                    } else {
                        0
                    }
                } else {
                    v
                };
                d |= v << (8 * k);
            }
            d
        }
        PrmtMode::F4e => pick([s, s + 1, s + 2, s + 3]),
        PrmtMode::B4e => pick([s, (s + 7) & 7, (s + 6) & 7, (s + 5) & 7]),
        PrmtMode::Rc8 => pick([s, s, s, s]),
        PrmtMode::Ecl => pick([s, s.max(1), s.max(2), 3]),
        PrmtMode::Ecr => pick([0, s.min(1), s.min(2), s]),
        PrmtMode::Rc16 => {
            let lo = (s & 1) * 2;
            pick([lo, lo + 1, lo, lo + 1])
        }
    }
}

// ---------------------------------------------------------------- counting

/// `popc.b32/.b64` (result `.u32`).
#[inline]
pub fn popc(t: IntTy, a: u64) -> u32 {
    t.trunc(a).count_ones()
}

/// `clz.b32/.b64` (result `.u32`; `clz(0)` is the width).
#[inline]
pub fn clz(t: IntTy, a: u64) -> u32 {
    let v = t.trunc(a);
    v.leading_zeros() - (64 - t.bits)
}

/// `brev.b32/.b64`: bit reversal.
#[inline]
pub fn brev(t: IntTy, a: u64) -> u64 {
    a.reverse_bits() >> (64 - t.bits)
}

/// `bfind{.shiftamt}.type` (`.u32 .u64 .s32 .s64`): position of the most significant non-sign
/// bit (`~a` for negative signed inputs), or `0xffffffff` when there is none; `.shiftamt`
/// returns `msb - position` instead.
#[inline]
pub fn bfind(t: IntTy, shiftamt: bool, a: u64) -> u32 {
    let msb = t.bits - 1;
    let mut v = t.trunc(a);
    if t.signed && (v >> msb) & 1 == 1 {
        v = t.trunc(!v);
    }
    if v == 0 {
        return 0xffff_ffff;
    }
    let pos = 63 - v.leading_zeros();
    if shiftamt {
        msb - pos
    } else {
        pos
    }
}

// ---------------------------------------------------------------- dot products, sad

/// `dp4a.atype.btype d, a, b, c`: four-way byte dot product accumulated into the 32-bit `c`
/// (each of `a`, `b` signed or unsigned bytes).
#[inline]
pub fn dp4a(a_signed: bool, b_signed: bool, a: u32, b: u32, c: u32) -> u32 {
    let mut acc = c as i64;
    for k in 0..4 {
        let x = (a >> (8 * k)) as u8;
        let y = (b >> (8 * k)) as u8;
        let x = if a_signed { x as i8 as i64 } else { x as i64 };
        let y = if b_signed { y as i8 as i64 } else { y as i64 };
        acc += x * y;
    }
    acc as u32
}

/// `dp2a.{lo,hi}.atype.btype d, a, b, c`: `a`'s two 16-bit halves times two bytes of `b` (the
/// low pair for `.lo`, the high pair for `.hi`), accumulated into `c`.
#[inline]
pub fn dp2a(hi: bool, a_signed: bool, b_signed: bool, a: u32, b: u32, c: u32) -> u32 {
    let mut acc = c as i64;
    let base = if hi { 2 } else { 0 };
    for k in 0..2 {
        let x = (a >> (16 * k)) as u16;
        let y = (b >> (8 * (base + k))) as u8;
        let x = if a_signed { x as i16 as i64 } else { x as i64 };
        let y = if b_signed { y as i8 as i64 } else { y as i64 };
        acc += x * y;
    }
    acc as u32
}

/// `sad.type d, a, b, c`: `c + |a - b|`.
#[inline]
pub fn sad(t: IntTy, a: u64, b: u64, c: u64) -> u64 {
    let d = (t.value(a) - t.value(b)).unsigned_abs() as u64;
    t.trunc(c.wrapping_add(d))
}

/// `cvt` between integer types: truncation or sign/zero extension by the source type, and with
/// `.sat` a clamp of the source value into the destination range (PTX ISA §"cvt", "Integer
/// Conversions").
#[inline]
pub fn cvt_int(dst: IntTy, src: IntTy, a: u64, sat: bool) -> u64 {
    let v = src.value(a);
    if sat {
        dst.saturate(v)
    } else {
        dst.trunc(v as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prmt_named_modes_follow_the_isa_table() {
        // bytes of {b,a}: 0x77665544_33221100
        let (a, b) = (0x3322_1100, 0x7766_5544);
        assert_eq!(prmt(PrmtMode::F4e, a, b, 1), 0x4433_2211);
        assert_eq!(prmt(PrmtMode::B4e, a, b, 0), 0x5566_7700);
        assert_eq!(prmt(PrmtMode::B4e, a, b, 3), 0x0011_2233);
        assert_eq!(prmt(PrmtMode::Rc8, a, b, 2), 0x2222_2222);
        assert_eq!(prmt(PrmtMode::Ecl, a, b, 1), 0x3322_1111);
        assert_eq!(prmt(PrmtMode::Ecr, a, b, 2), 0x2222_1100);
        assert_eq!(prmt(PrmtMode::Rc16, a, b, 1), 0x3322_3322);
        assert_eq!(prmt(PrmtMode::Generic, a, b, 0x3210), a);
        assert_eq!(prmt(PrmtMode::Generic, 0x80, 0, 0x4448), 0xff);
    }
}

/// The operation of the scalar video instructions `vadd`, `vsub`, `vabsdiff`, `vmin`, `vmax`,
/// `vshl`, `vshr`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VideoScalarOp {
    /// `vadd`: `ta + tb`.
    Add,
    /// `vsub`: `ta - tb`.
    Sub,
    /// `vabsdiff`: `|ta - tb|`.
    AbsDiff,
    /// `vmin`.
    Min,
    /// `vmax`.
    Max,
    /// `vshl`: `ta << tb`.
    Shl,
    /// `vshr`: `ta >> tb` (arithmetic for a signed `atype`).
    Shr,
}

/// The secondary operation of a scalar video instruction (`.add`, `.min`, `.max` with `c`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VideoOp2 {
    /// `.add`: `tmp + c`.
    Add,
    /// `.min`: `min(tmp, c)`.
    Min,
    /// `.max`: `max(tmp, c)`.
    Max,
}

/// A scalar video instruction on whole words (no byte/half selectors), as the PTX ISA's
/// pseudo-code computes it: `ta`, `tb` sign- or zero-extended by their types; shifts take `tb`
/// unsigned, `.clamp`ed to 32 or `.wrap`ped to its low 5 bits; `tmp = ta op tb` exactly;
/// `.sat` clamps `tmp` to the destination type's range; then the secondary operation with `c`
/// (of the destination's signedness), the result's low 32 bits.
#[allow(clippy::too_many_arguments)]
pub fn video_scalar(
    op: VideoScalarOp,
    d_signed: bool,
    a_signed: bool,
    b_signed: bool,
    sat: bool,
    clamp: bool,
    op2: Option<VideoOp2>,
    a: u32,
    b: u32,
    c: u32,
) -> u32 {
    let ext = |v: u32, signed: bool| -> i128 {
        if signed {
            v as i32 as i128
        } else {
            v as i128
        }
    };
    let ta = ext(a, a_signed);
    let shift = |b: u32| -> u32 {
        if clamp {
            b.min(32)
        } else {
            b & 0x1f
        }
    };
    let tb = ext(b, b_signed);
    let mut t = match op {
        VideoScalarOp::Add => ta + tb,
        VideoScalarOp::Sub => ta - tb,
        VideoScalarOp::AbsDiff => (ta - tb).abs(),
        VideoScalarOp::Min => ta.min(tb),
        VideoScalarOp::Max => ta.max(tb),
        VideoScalarOp::Shl => ta << shift(b),
        VideoScalarOp::Shr => ta >> shift(b),
    };
    if sat {
        let (lo, hi) = if d_signed {
            (i32::MIN as i128, i32::MAX as i128)
        } else {
            (0, u32::MAX as i128)
        };
        t = t.clamp(lo, hi);
    }
    let tc = ext(c, d_signed);
    let t32 = ext(t as u32, d_signed);
    let r = match op2 {
        None => t,
        Some(VideoOp2::Add) => t + tc,
        Some(VideoOp2::Min) => t32.min(tc),
        Some(VideoOp2::Max) => t32.max(tc),
    };
    r as u32
}
