//! Per-lane semantics of computational instructions, on raw register bits.
//!
//! Values arrive zero-extended in a `u64` holding the operand type's width; results are
//! returned the same way. This module is the interpreter's one entry point for arithmetic.

use crate::program::*;
use ptx_isa::{ScalarType, TypeKind};

#[inline]
fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Sign-extends the low `bits` of `v`.
#[inline]
fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        let sh = 64 - bits;
        ((v << sh) as i64) >> sh
    }
}

#[inline]
fn signed(ty: ScalarType) -> bool {
    ty.kind() == TypeKind::Signed
}

/// Two-operand integer and bitwise instructions.
pub fn int2(op: IntOp2, ty: ScalarType, a: u64, b: u64) -> u64 {
    let bits = ty.bits().max(8);
    let m = mask(bits);
    let s = signed(ty);
    let (sa, sb) = (sext(a, bits), sext(b, bits));
    let (ua, ub) = (a & m, b & m);
    match op {
        IntOp2::Add => ua.wrapping_add(ub) & m,
        IntOp2::Sub => ua.wrapping_sub(ub) & m,
        IntOp2::AddSat => {
            (sa as i128 + sb as i128).clamp(i32::MIN as i128, i32::MAX as i128) as u64 & m
        }
        IntOp2::SubSat => {
            (sa as i128 - sb as i128).clamp(i32::MIN as i128, i32::MAX as i128) as u64 & m
        }
        IntOp2::MulLo => ua.wrapping_mul(ub) & m,
        IntOp2::MulHi => {
            let p = if s {
                sa as i128 * sb as i128
            } else {
                (ua as i128) * (ub as i128)
            };
            ((p >> bits) as u64) & m
        }
        IntOp2::MulWide => {
            let p = if s {
                sa as i128 * sb as i128
            } else {
                (ua as i128) * (ub as i128)
            };
            (p as u64) & mask(2 * bits)
        }
        IntOp2::Div => {
            if ub == 0 {
                // Division by zero gives all ones (unsigned) or ±1-based patterns on hardware;
                // PTX leaves it unspecified: all ones.
                m
            } else if s {
                (sa.wrapping_div(sb) as u64) & m
            } else {
                ua / ub
            }
        }
        IntOp2::Rem => {
            if ub == 0 {
                ua
            } else if s {
                (sa.wrapping_rem(sb) as u64) & m
            } else {
                ua % ub
            }
        }
        IntOp2::Min => {
            if s {
                (sa.min(sb) as u64) & m
            } else {
                ua.min(ub)
            }
        }
        IntOp2::Max => {
            if s {
                (sa.max(sb) as u64) & m
            } else {
                ua.max(ub)
            }
        }
        IntOp2::And => ua & ub,
        IntOp2::Or => ua | ub,
        IntOp2::Xor => ua ^ ub,
        IntOp2::Shl => {
            let sh = (b & 0xFFFF_FFFF) as u32;
            if sh >= bits {
                0
            } else {
                (ua << sh) & m
            }
        }
        IntOp2::Shr => {
            let sh = ((b & 0xFFFF_FFFF) as u32).min(bits);
            if s {
                if sh >= bits {
                    if sa < 0 {
                        m
                    } else {
                        0
                    }
                } else {
                    ((sa >> sh) as u64) & m
                }
            } else if sh >= bits {
                0
            } else {
                ua >> sh
            }
        }
    }
}

/// `mad.lo/.hi/.wide`.
pub fn int3(op: IntOp3, ty: ScalarType, a: u64, b: u64, c: u64) -> u64 {
    let bits = ty.bits().max(8);
    match op {
        IntOp3::MadLo => int2(IntOp2::Add, ty, int2(IntOp2::MulLo, ty, a, b), c),
        IntOp3::MadLoSat => {
            let p = sext(a, bits) as i128 * sext(b, bits) as i128 + sext(c, bits) as i128;
            p.clamp(i32::MIN as i128, i32::MAX as i128) as u64 & mask(bits)
        }
        IntOp3::MadHi => int2(IntOp2::Add, ty, int2(IntOp2::MulHi, ty, a, b), c),
        IntOp3::MadWide => {
            let p = int2(IntOp2::MulWide, ty, a, b);
            p.wrapping_add(c) & mask(2 * bits)
        }
    }
}

/// One-operand integer instructions.
pub fn int1(op: IntOp1, ty: ScalarType, a: u64) -> u64 {
    let bits = ty.bits().max(8);
    let m = mask(bits);
    let ua = a & m;
    match op {
        IntOp1::Not => !ua & m,
        IntOp1::Cnot => (ua == 0) as u64,
        IntOp1::Neg => ua.wrapping_neg() & m,
        IntOp1::Abs => (sext(a, bits).wrapping_abs() as u64) & m,
        IntOp1::Popc => ua.count_ones() as u64,
        IntOp1::Clz => (ua.leading_zeros() - (64 - bits)) as u64,
        IntOp1::Brev => ua.reverse_bits() >> (64 - bits),
        IntOp1::Bfind | IntOp1::BfindShiftAmt => {
            let v = if signed(ty) && sext(a, bits) < 0 {
                !ua & m
            } else {
                ua
            };
            if v == 0 {
                0xFFFF_FFFF
            } else {
                let pos = 63 - v.leading_zeros();
                if op == IntOp1::BfindShiftAmt {
                    (bits - 1 - pos) as u64
                } else {
                    pos as u64
                }
            }
        }
    }
}

/// `bfe`: extract `len` bits at `pos`, sign-extending for signed types.
pub fn bfe(ty: ScalarType, a: u64, pos: u64, len: u64) -> u64 {
    let bits = ty.bits();
    let m = mask(bits);
    let pos = (pos & 0xFF) as u32;
    let len = (len & 0xFF) as u32;
    let msb = if signed(ty) {
        if len == 0 {
            false
        } else if pos + len > bits {
            (a >> (bits - 1)) & 1 == 1
        } else {
            (a >> (pos + len - 1)) & 1 == 1
        }
    } else {
        false
    };
    let mut d = 0u64;
    for i in 0..bits {
        let bit = if i < len && pos + i < bits {
            (a >> (pos + i)) & 1
        } else {
            msb as u64
        };
        d |= bit << i;
    }
    d & m
}

/// `bfi`: insert the low `len` bits of `a` into `b` at `pos`.
pub fn bfi(ty: ScalarType, a: u64, b: u64, pos: u64, len: u64) -> u64 {
    let bits = ty.bits();
    let pos = (pos & 0xFF) as u32;
    let len = (len & 0xFF) as u32;
    let mut f = b & mask(bits);
    for i in 0..len {
        if pos + i >= bits {
            break;
        }
        f = (f & !(1 << (pos + i))) | (((a >> i) & 1) << (pos + i));
    }
    f
}

/// `prmt`: byte permute (mode 0 is the default generic form).
pub fn prmt(mode: u8, a: u32, b: u32, c: u32) -> u32 {
    let bytes = ((b as u64) << 32) | a as u64;
    let byte = |i: u32| ((bytes >> (8 * (i & 7))) & 0xFF) as u32;
    match mode {
        0 => {
            let mut d = 0u32;
            for k in 0..4 {
                let sel = (c >> (4 * k)) & 0xF;
                let mut v = byte(sel & 7);
                if sel & 8 != 0 {
                    v = if v & 0x80 != 0 { 0xFF } else { 0 };
                }
                d |= v << (8 * k);
            }
            d
        }
        _ => {
            let s = c & 3;
            let sel: [u32; 4] = match mode {
                1 => [s, (s + 1) & 7, (s + 2) & 7, (s + 3) & 7],
                2 => [s, (s + 7) & 7, (s + 6) & 7, (s + 5) & 7],
                3 => [s, s, s, s],
                4 => [s, s.max(1), s.max(2), 3],
                5 => [0, s.min(1), s.min(2), s],
                _ => [2 * (c & 1), 2 * (c & 1) + 1, 2 * (c & 1), 2 * (c & 1) + 1],
            };
            sel.iter()
                .enumerate()
                .fold(0, |d, (k, &i)| d | (byte(i) << (8 * k)))
        }
    }
}

/// `shf.l/.r`: funnel shift of `b:a`.
pub fn shf(left: bool, clamp: bool, a: u32, b: u32, c: u32) -> u32 {
    let n = if clamp { c.min(32) } else { c & 31 };
    let v = ((b as u64) << 32) | a as u64;
    if left {
        ((v << n) >> 32) as u32
    } else {
        (v >> n) as u32
    }
}

#[inline]
fn f32v(x: u64) -> f32 {
    f32::from_bits(x as u32)
}

#[inline]
fn ftz32(x: f32, ftz: bool) -> f32 {
    if ftz && x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

fn finish32(mut r: f32, mode: FloatMode) -> u64 {
    r = ftz32(r, mode.ftz);
    if mode.sat {
        r = if r.is_nan() { 0.0 } else { r.clamp(0.0, 1.0) };
    }
    if mode.relu && (r < 0.0 || r.is_nan()) {
        r = 0.0;
    }
    r.to_bits() as u64
}

fn finish64(mut r: f64, mode: FloatMode) -> u64 {
    if mode.sat {
        r = if r.is_nan() { 0.0 } else { r.clamp(0.0, 1.0) };
    }
    r.to_bits()
}

/// Canonical NaN that NVIDIA GPUs produce for f32 operations.
const NAN32: u32 = 0x7FFF_FFFF;

/// Two-operand float instructions.
pub fn float2(op: FloatOp2, ty: ScalarType, mode: FloatMode, a: u64, b: u64) -> u64 {
    match ty {
        ScalarType::F32 => {
            let (x, y) = (ftz32(f32v(a), mode.ftz), ftz32(f32v(b), mode.ftz));
            let r = match op {
                FloatOp2::Add => x + y,
                FloatOp2::Sub => x - y,
                FloatOp2::Mul => x * y,
                FloatOp2::Div | FloatOp2::DivFull | FloatOp2::DivApprox => x / y,
                FloatOp2::Min | FloatOp2::Max => {
                    if x.is_nan() && y.is_nan() {
                        return NAN32 as u64;
                    }
                    let r = if op == FloatOp2::Min {
                        x.min(y)
                    } else {
                        x.max(y)
                    };
                    // -0 < +0 for min/max.
                    if x == 0.0 && y == 0.0 {
                        let neg = if op == FloatOp2::Min {
                            x.is_sign_negative() || y.is_sign_negative()
                        } else {
                            x.is_sign_negative() && y.is_sign_negative()
                        };
                        return if neg { 0x8000_0000 } else { 0 };
                    }
                    r
                }
                FloatOp2::MinNaN | FloatOp2::MaxNaN => {
                    if x.is_nan() || y.is_nan() {
                        return NAN32 as u64;
                    }
                    if op == FloatOp2::MinNaN {
                        x.min(y)
                    } else {
                        x.max(y)
                    }
                }
                FloatOp2::Copysign => y.copysign(x),
            };
            if r.is_nan() && !matches!(op, FloatOp2::Copysign) {
                return NAN32 as u64;
            }
            finish32(r, mode)
        }
        ScalarType::F64 => {
            let (x, y) = (f64::from_bits(a), f64::from_bits(b));
            let r = match op {
                FloatOp2::Add => x + y,
                FloatOp2::Sub => x - y,
                FloatOp2::Mul => x * y,
                FloatOp2::Div | FloatOp2::DivFull | FloatOp2::DivApprox => x / y,
                FloatOp2::Min | FloatOp2::MinNaN => x.min(y),
                FloatOp2::Max | FloatOp2::MaxNaN => x.max(y),
                FloatOp2::Copysign => y.copysign(x),
            };
            finish64(r, mode)
        }
        ScalarType::F16 | ScalarType::Bf16 => half_op(ty, a, b, |x, y| match op {
            FloatOp2::Add => x + y,
            FloatOp2::Sub => x - y,
            FloatOp2::Mul => x * y,
            FloatOp2::Min | FloatOp2::MinNaN => x.min(y),
            FloatOp2::Max | FloatOp2::MaxNaN => x.max(y),
            _ => x / y,
        }),
        ScalarType::F16x2 | ScalarType::Bf16x2 => {
            let scalar = if ty == ScalarType::F16x2 {
                ScalarType::F16
            } else {
                ScalarType::Bf16
            };
            let lo = float2(op, scalar, mode, a & 0xFFFF, b & 0xFFFF);
            let hi = float2(op, scalar, mode, (a >> 16) & 0xFFFF, (b >> 16) & 0xFFFF);
            lo | (hi << 16)
        }
        _ => 0,
    }
}

fn half_to_f32(ty: ScalarType, v: u64) -> f32 {
    if ty == ScalarType::Bf16 {
        half::bf16::from_bits(v as u16).to_f32()
    } else {
        half::f16::from_bits(v as u16).to_f32()
    }
}

fn f32_to_half(ty: ScalarType, x: f32) -> u64 {
    if ty == ScalarType::Bf16 {
        half::bf16::from_f32(x).to_bits() as u64
    } else {
        half::f16::from_f32(x).to_bits() as u64
    }
}

fn half_op(ty: ScalarType, a: u64, b: u64, f: impl Fn(f32, f32) -> f32) -> u64 {
    // A single f32 operation on two halves rounds once to f32 and again to half; for add,
    // sub and mul of halves the f32 result is exact, so the second rounding is the only one.
    f32_to_half(ty, f(half_to_f32(ty, a), half_to_f32(ty, b)))
}

/// `fma`/`mad` on floats.
pub fn fma(ty: ScalarType, mode: FloatMode, a: u64, b: u64, c: u64) -> u64 {
    match ty {
        ScalarType::F32 => {
            let r = ftz32(f32v(a), mode.ftz)
                .mul_add(ftz32(f32v(b), mode.ftz), ftz32(f32v(c), mode.ftz));
            if r.is_nan() {
                return NAN32 as u64;
            }
            finish32(r, mode)
        }
        ScalarType::F64 => finish64(
            f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c)),
            mode,
        ),
        ScalarType::F16 | ScalarType::Bf16 => {
            let r = (half_to_f32(ty, a) as f64) * (half_to_f32(ty, b) as f64)
                + half_to_f32(ty, c) as f64;
            f32_to_half(ty, r as f32)
        }
        ScalarType::F16x2 | ScalarType::Bf16x2 => {
            let s = if ty == ScalarType::F16x2 {
                ScalarType::F16
            } else {
                ScalarType::Bf16
            };
            fma(s, mode, a & 0xFFFF, b & 0xFFFF, c & 0xFFFF)
                | (fma(
                    s,
                    mode,
                    (a >> 16) & 0xFFFF,
                    (b >> 16) & 0xFFFF,
                    (c >> 16) & 0xFFFF,
                ) << 16)
        }
        _ => 0,
    }
}

/// One-operand float instructions. `.approx` functions are computed in double precision and
/// rounded, which is within the ISA's stated error bounds.
pub fn float1(op: FloatOp1, ty: ScalarType, mode: FloatMode, a: u64) -> u64 {
    match ty {
        ScalarType::F32 => {
            let x = ftz32(f32v(a), mode.ftz);
            let xd = x as f64;
            let r = match op {
                FloatOp1::Neg => return (a ^ 0x8000_0000) & 0xFFFF_FFFF,
                FloatOp1::Abs => return a & 0x7FFF_FFFF,
                FloatOp1::Sqrt | FloatOp1::SqrtApprox => x.sqrt(),
                FloatOp1::Rcp | FloatOp1::RcpApprox | FloatOp1::RcpApproxF64 => 1.0 / x,
                FloatOp1::Rsqrt => (1.0 / xd.sqrt()) as f32,
                FloatOp1::Ex2 => xd.exp2() as f32,
                FloatOp1::Lg2 => xd.log2() as f32,
                FloatOp1::Sin => xd.sin() as f32,
                FloatOp1::Cos => xd.cos() as f32,
                FloatOp1::Tanh => xd.tanh() as f32,
            };
            if r.is_nan() {
                return NAN32 as u64;
            }
            finish32(r, mode)
        }
        ScalarType::F64 => {
            let x = f64::from_bits(a);
            let r = match op {
                FloatOp1::Neg => -x,
                FloatOp1::Abs => x.abs(),
                FloatOp1::Sqrt | FloatOp1::SqrtApprox => x.sqrt(),
                FloatOp1::Rcp | FloatOp1::RcpApprox | FloatOp1::RcpApproxF64 => 1.0 / x,
                FloatOp1::Rsqrt => 1.0 / x.sqrt(),
                FloatOp1::Ex2 => x.exp2(),
                FloatOp1::Lg2 => x.log2(),
                FloatOp1::Sin => x.sin(),
                FloatOp1::Cos => x.cos(),
                FloatOp1::Tanh => x.tanh(),
            };
            finish64(r, mode)
        }
        ScalarType::F16 | ScalarType::Bf16 => match op {
            FloatOp1::Neg => a ^ 0x8000,
            FloatOp1::Abs => a & 0x7FFF,
            _ => {
                let x = half_to_f32(ty, a) as f64;
                let r = match op {
                    FloatOp1::Ex2 => x.exp2(),
                    FloatOp1::Tanh => x.tanh(),
                    FloatOp1::Sqrt | FloatOp1::SqrtApprox => x.sqrt(),
                    FloatOp1::Rcp | FloatOp1::RcpApprox | FloatOp1::RcpApproxF64 => 1.0 / x,
                    FloatOp1::Rsqrt => 1.0 / x.sqrt(),
                    FloatOp1::Lg2 => x.log2(),
                    FloatOp1::Sin => x.sin(),
                    FloatOp1::Cos => x.cos(),
                    _ => x,
                };
                f32_to_half(ty, r as f32)
            }
        },
        ScalarType::F16x2 | ScalarType::Bf16x2 => {
            let s = if ty == ScalarType::F16x2 {
                ScalarType::F16
            } else {
                ScalarType::Bf16
            };
            float1(op, s, mode, a & 0xFFFF) | (float1(op, s, mode, (a >> 16) & 0xFFFF) << 16)
        }
        _ => 0,
    }
}

/// `testp`.
pub fn testp(kind: u8, ty: ScalarType, a: u64) -> bool {
    let x = if ty == ScalarType::F64 {
        f64::from_bits(a)
    } else {
        f32v(a) as f64
    };
    match kind {
        0 => x.is_finite(),
        1 => x.is_infinite(),
        2 => !x.is_nan(),
        3 => x.is_nan(),
        4 => x.is_normal(),
        _ => x.is_subnormal() || (ty == ScalarType::F32 && f32v(a).is_subnormal()),
    }
}

/// `setp`/`set` comparisons.
pub fn compare(cmp: Cmp, ty: ScalarType, ftz: bool, a: u64, b: u64) -> bool {
    let bits = ty.bits().max(8);
    match ty.kind() {
        TypeKind::Float => {
            let (x, y) = match ty {
                ScalarType::F64 => (f64::from_bits(a), f64::from_bits(b)),
                ScalarType::F32 => (ftz32(f32v(a), ftz) as f64, ftz32(f32v(b), ftz) as f64),
                _ => (half_to_f32(ty, a) as f64, half_to_f32(ty, b) as f64),
            };
            let unordered = x.is_nan() || y.is_nan();
            match cmp {
                Cmp::Eq => !unordered && x == y,
                Cmp::Ne => !unordered && x != y,
                Cmp::Lt => !unordered && x < y,
                Cmp::Le => !unordered && x <= y,
                Cmp::Gt => !unordered && x > y,
                Cmp::Ge => !unordered && x >= y,
                Cmp::Equ => unordered || x == y,
                Cmp::Neu => unordered || x != y,
                Cmp::Ltu => unordered || x < y,
                Cmp::Leu => unordered || x <= y,
                Cmp::Gtu => unordered || x > y,
                Cmp::Geu => unordered || x >= y,
                Cmp::Num => !unordered,
                Cmp::Nan => unordered,
                Cmp::Lo => !unordered && x < y,
                Cmp::Ls => !unordered && x <= y,
                Cmp::Hi => !unordered && x > y,
                Cmp::Hs => !unordered && x >= y,
            }
        }
        _ => {
            let (sa, sb) = (sext(a, bits), sext(b, bits));
            let (ua, ub) = (a & mask(bits), b & mask(bits));
            let s = signed(ty);
            match cmp {
                Cmp::Eq | Cmp::Equ => ua == ub,
                Cmp::Ne | Cmp::Neu => ua != ub,
                Cmp::Lt | Cmp::Ltu => {
                    if s {
                        sa < sb
                    } else {
                        ua < ub
                    }
                }
                Cmp::Le | Cmp::Leu => {
                    if s {
                        sa <= sb
                    } else {
                        ua <= ub
                    }
                }
                Cmp::Gt | Cmp::Gtu => {
                    if s {
                        sa > sb
                    } else {
                        ua > ub
                    }
                }
                Cmp::Ge | Cmp::Geu => {
                    if s {
                        sa >= sb
                    } else {
                        ua >= ub
                    }
                }
                Cmp::Lo => ua < ub,
                Cmp::Ls => ua <= ub,
                Cmp::Hi => ua > ub,
                Cmp::Hs => ua >= ub,
                Cmp::Num => true,
                Cmp::Nan => false,
            }
        }
    }
}

/// `slct`: true when `c >= 0` (as `.s32` or `.f32`).
pub fn slct_takes_a(cty: ScalarType, c: u64) -> bool {
    if cty == ScalarType::F32 {
        f32v(c) >= 0.0
    } else {
        sext(c, 32) >= 0
    }
}

/// Float → integer with `.rni/.rzi/.rmi/.rpi` (saturating, NaN → 0, as PTX defines).
fn float_to_int(x: f64, rnd: Rounding, dty: ScalarType) -> u64 {
    let r = match rnd {
        Rounding::Nearest | Rounding::NearestAway => {
            let f = x.floor();
            let diff = x - f;
            if diff > 0.5 || (diff == 0.5 && f % 2.0 != 0.0) {
                f + 1.0
            } else {
                f
            }
        }
        Rounding::Zero => x.trunc(),
        Rounding::Down => x.floor(),
        Rounding::Up => x.ceil(),
    };
    if r.is_nan() {
        return 0;
    }
    let bits = dty.bits();
    if signed(dty) {
        let (lo, hi) = (
            -(2f64.powi(bits as i32 - 1)),
            2f64.powi(bits as i32 - 1) - 1.0,
        );
        (r.clamp(lo, hi) as i64 as u64) & mask(bits)
    } else {
        r.clamp(0.0, 2f64.powi(bits as i32) - 1.0) as u64
    }
}

/// `cvt` between any two types.
pub fn cvt(
    dty: ScalarType,
    aty: ScalarType,
    mode: FloatMode,
    int_rounding: Option<Rounding>,
    d_bits: u32,
    a: u64,
) -> u64 {
    let (dk, ak) = (dty.kind(), aty.kind());
    let abits = aty.bits().max(8);
    let float_in = |v: u64| -> f64 {
        match aty {
            ScalarType::F64 => f64::from_bits(v),
            ScalarType::F32 => ftz32(f32v(v), mode.ftz) as f64,
            _ => half_to_f32(aty, v) as f64,
        }
    };
    match (dk == TypeKind::Float, ak == TypeKind::Float) {
        (false, false) => {
            // Integer → integer: truncate or extend per the source type, then to the
            // destination type's width; `.sat` clamps to the destination range.
            let v = if signed(aty) {
                sext(a, abits) as i128
            } else {
                (a & mask(abits)) as i128
            };
            let dbits = dty.bits().max(8);
            let v = if mode.sat {
                let (lo, hi) = if signed(dty) {
                    (-(1i128 << (dbits - 1)), (1i128 << (dbits - 1)) - 1)
                } else {
                    (0, (1i128 << dbits) - 1)
                };
                v.clamp(lo, hi)
            } else {
                v
            };
            // Widen the destination type's value to the register per the destination's sign.
            let narrow = (v as u64) & mask(dbits);
            if signed(dty) && d_bits > dbits {
                (sext(narrow, dbits) as u64) & mask(d_bits)
            } else {
                narrow
            }
        }
        (false, true) => {
            let x = float_in(a);
            float_to_int(x, int_rounding.unwrap_or(Rounding::Zero), dty)
        }
        (true, false) => {
            let v = if signed(aty) {
                sext(a, abits) as f64
            } else {
                (a & mask(abits)) as f64
            };
            let v = if abits == 64 {
                // i64/u64 → f64 above 2^53 must round once: do it from the integer.
                if signed(aty) {
                    sext(a, 64) as f64
                } else {
                    a as f64
                }
            } else {
                v
            };
            match dty {
                ScalarType::F64 => v.to_bits(),
                ScalarType::F32 => finish32(
                    if abits == 64 {
                        if signed(aty) {
                            sext(a, 64) as f32
                        } else {
                            a as f32
                        }
                    } else {
                        v as f32
                    },
                    mode,
                ),
                _ => f32_to_half(dty, v as f32),
            }
        }
        (true, true) => {
            let x = float_in(a);
            if let Some(r) = int_rounding {
                // cvt.rni.f32.f32: round to an integral value in the same format.
                let y = match r {
                    Rounding::Nearest | Rounding::NearestAway => x.round_ties_even(),
                    Rounding::Zero => x.trunc(),
                    Rounding::Down => x.floor(),
                    Rounding::Up => x.ceil(),
                };
                return match dty {
                    ScalarType::F64 => y.to_bits(),
                    ScalarType::F32 => finish32(y as f32, mode),
                    _ => f32_to_half(dty, y as f32),
                };
            }
            match dty {
                ScalarType::F64 => finish64(x, mode),
                ScalarType::F32 => finish32(x as f32, mode),
                ScalarType::Tf32 => {
                    // Round to 10 explicit mantissa bits (nearest, ties away), keep f32 layout.
                    let b = (x as f32).to_bits();
                    (((b as u64) + 0x1000) & 0xFFFF_E000) & 0xFFFF_FFFF
                }
                _ => {
                    let mut r = f32_to_half(dty, x as f32);
                    if mode.relu && (r & 0x8000 != 0) {
                        r = 0;
                    }
                    r
                }
            }
        }
    }
}

/// `cvt.rn.f16x2.f32 d, a, b`: `a` in the upper half, `b` in the lower.
pub fn cvt_pack(dty: ScalarType, mode: FloatMode, a: u64, b: u64) -> u64 {
    let scalar = match dty {
        ScalarType::Bf16x2 => ScalarType::Bf16,
        _ => ScalarType::F16,
    };
    let hi = cvt(scalar, ScalarType::F32, mode, None, 16, a);
    let lo = cvt(scalar, ScalarType::F32, mode, None, 16, b);
    (hi << 16) | lo
}

/// `shfl.sync`: the source lane of `lane` and whether it is in range.
pub fn shfl_source(mode: ShflMode, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let clamp = c & 0x1F;
    let seg_mask = (c >> 8) & 0x1F;
    let max_lane = (lane & seg_mask) | (clamp & !seg_mask);
    let min_lane = lane & seg_mask;
    let (j, ok) = match mode {
        ShflMode::Up => {
            let j = lane as i32 - b as i32;
            (j, j >= max_lane as i32)
        }
        ShflMode::Down => {
            let j = lane + b;
            (j as i32, j <= max_lane)
        }
        ShflMode::Bfly => {
            let j = lane ^ b;
            (j as i32, j <= max_lane)
        }
        ShflMode::Idx => {
            let j = min_lane | (b & !seg_mask);
            (j as i32, j <= max_lane)
        }
    };
    if ok && (0..32).contains(&j) {
        (j as u32, true)
    } else {
        (lane, false)
    }
}

/// The new value of an atomic location.
pub fn atom_combine(op: AtomOp, ty: ScalarType, old: u64, b: u64, c: u64) -> u64 {
    let bits = ty.bits();
    let m = mask(bits);
    match op {
        AtomOp::Add if ty.kind() == TypeKind::Float => {
            float2(FloatOp2::Add, ty, FloatMode::default(), old, b)
        }
        AtomOp::Add => old.wrapping_add(b) & m,
        AtomOp::Min if ty.kind() == TypeKind::Float => {
            float2(FloatOp2::Min, ty, FloatMode::default(), old, b)
        }
        AtomOp::Max if ty.kind() == TypeKind::Float => {
            float2(FloatOp2::Max, ty, FloatMode::default(), old, b)
        }
        AtomOp::Min => int2(IntOp2::Min, ty, old, b),
        AtomOp::Max => int2(IntOp2::Max, ty, old, b),
        AtomOp::Inc => {
            if (old & m) >= (b & m) {
                0
            } else {
                (old + 1) & m
            }
        }
        AtomOp::Dec => {
            if (old & m) == 0 || (old & m) > (b & m) {
                b & m
            } else {
                (old - 1) & m
            }
        }
        AtomOp::And => old & b & m,
        AtomOp::Or => (old | b) & m,
        AtomOp::Xor => (old ^ b) & m,
        AtomOp::Exch => b & m,
        AtomOp::Cas => {
            if (old & m) == (b & m) {
                c & m
            } else {
                old & m
            }
        }
    }
}

fn tf32_value(bits: u64) -> f64 {
    // tf32 operands are .b32 registers holding f32 bits; the low 13 mantissa bits are ignored.
    f32::from_bits((bits as u32) & 0xFFFF_E000) as f64
}

/// `mma.sync.aligned` for the supported shapes: A, B, C as per-register lane arrays in the
/// ISA's fragment layouts; returns D the same way. Products are exact in f64 and the sum is
/// accumulated in f64 then rounded once to f32.
pub fn mma(shape: MmaShape, a: &[[u64; 32]], b: &[[u64; 32]], c: &[[u64; 32]]) -> Vec<[u64; 32]> {
    let (k_dim, elem): (usize, fn(u64, usize) -> f64) = match shape {
        MmaShape::M16n8k16F32F16 | MmaShape::M16n8k16F16F16 => (16, |r, h| {
            half::f16::from_bits((r >> (16 * h)) as u16).to_f64()
        }),
        MmaShape::M16n8k16F32Bf16 => (16, |r, h| {
            half::bf16::from_bits((r >> (16 * h)) as u16).to_f64()
        }),
        MmaShape::M16n8k8F32F16 => (8, |r, h| {
            half::f16::from_bits((r >> (16 * h)) as u16).to_f64()
        }),
        MmaShape::M16n8k8F32Tf32 => (8, |r, _| tf32_value(r)),
    };
    let packed = !matches!(shape, MmaShape::M16n8k8F32Tf32);
    // A: 16 x K (row), B: K x 8 (col), C/D: 16 x 8.
    let mut am = vec![[0f64; 16]; 16];
    let mut bm = vec![[0f64; 8]; 16];
    for lane in 0..32usize {
        let group = lane / 4;
        let tid = lane % 4;
        if packed {
            // f16/bf16: A has 4 (k16) or 2 (k8) regs of 2 halves; B has 2 (k16) or 1 (k8).
            for (ri, reg) in a.iter().enumerate() {
                for h in 0..2 {
                    let row = group + 8 * (ri % 2);
                    let col = tid * 2 + h + 8 * (ri / 2);
                    if col < k_dim {
                        am[row][col] = elem(reg[lane], h);
                    }
                }
            }
            for (ri, reg) in b.iter().enumerate() {
                for h in 0..2 {
                    let row = tid * 2 + h + 8 * ri;
                    if row < k_dim {
                        bm[row][group] = elem(reg[lane], h);
                    }
                }
            }
        } else {
            // tf32 m16n8k8: A regs a0..a3: (g, t), (g+8, t), (g, t+4), (g+8, t+4); B: (t, g), (t+4, g).
            for (ri, reg) in a.iter().enumerate() {
                let row = group + 8 * (ri % 2);
                let col = tid + 4 * (ri / 2);
                am[row][col] = elem(reg[lane], 0);
            }
            for (ri, reg) in b.iter().enumerate() {
                bm[tid + 4 * ri][group] = elem(reg[lane], 0);
            }
        }
    }
    let f16_acc = matches!(shape, MmaShape::M16n8k16F16F16);
    let mut d = if f16_acc {
        vec![[0u64; 32]; 2]
    } else {
        vec![[0u64; 32]; 4]
    };
    for lane in 0..32usize {
        let group = lane / 4;
        let tid = lane % 4;
        for ci in 0..4 {
            let row = group + 8 * (ci / 2);
            let col = tid * 2 + (ci % 2);
            let cval = if f16_acc {
                half::f16::from_bits((c[ci / 2][lane] >> (16 * (ci % 2))) as u16).to_f64()
            } else {
                f32::from_bits(c[ci][lane] as u32) as f64
            };
            let mut acc = cval;
            for k in 0..k_dim {
                acc += am[row][k] * bm[k][col];
            }
            if f16_acc {
                d[ci / 2][lane] |= (half::f16::from_f64(acc).to_bits() as u64) << (16 * (ci % 2));
            } else {
                d[ci][lane] = (acc as f32).to_bits() as u64;
            }
        }
    }
    d
}
