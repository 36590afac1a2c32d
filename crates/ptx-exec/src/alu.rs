//! The interpreter's arithmetic: lowered operations → `ptx-semantics` functions.
//!
//! Values arrive zero-extended in a `u64` holding the operand type's width and are returned the
//! same way. Every rule (rounding, `.ftz`, `.sat`, NaNs, division by zero, approximation
//! bounds) lives in `ptx-semantics`, which is tested bit-for-bit against independent references.

use crate::program::*;
use ptx_isa::{ScalarType, TypeKind};
use ptx_semantics::cvt::{self, CvtMods};
use ptx_semantics::half::{HalfMods, HalfOp};
use ptx_semantics::int::{self, IntTy};
use ptx_semantics::round::{self as fmt, Format};
use ptx_semantics::{atom, cmp, float, half, mma as mma_sem, warp};

/// Runs `f` for every lane of `exec` (all 32 in order on the full-mask fast path).
#[inline(always)]
fn each(exec: u32, mut f: impl FnMut(usize)) {
    if exec == u32::MAX {
        for l in 0..32 {
            f(l);
        }
    } else {
        let mut bits = exec;
        while bits != 0 {
            let l = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            f(l);
        }
    }
}

/// Lane arrays of one warp-instruction.
pub type Lanes = [u64; 32];

/// [`int2`] for the lanes of `exec`, dispatching on the operation once.
pub fn int2_lanes(op: IntOp2, ty: ScalarType, a: &Lanes, b: &Lanes, out: &mut Lanes, exec: u32) {
    let t = int_ty(ty);
    let m = width_mask(t.bits);
    macro_rules! map {
        ($f:expr) => {
            each(exec, |l| out[l] = $f(a[l], b[l]))
        };
    }
    match op {
        IntOp2::Add => map!(|x, y| int::add(t, x, y)),
        IntOp2::Sub => map!(|x, y| int::sub(t, x, y)),
        IntOp2::MulLo => map!(|x, y| int::mul_lo(t, x, y)),
        IntOp2::MulWide => map!(|x, y| int::mul_wide(t, x, y)),
        IntOp2::And => map!(|x: u64, y: u64| x & y & m),
        IntOp2::Or => map!(|x: u64, y: u64| (x | y) & m),
        IntOp2::Xor => map!(|x: u64, y: u64| (x ^ y) & m),
        IntOp2::Shl => map!(|x, y: u64| int::shl(t, x, y as u32)),
        IntOp2::Shr => map!(|x, y: u64| int::shr(t, x, y as u32)),
        _ => map!(|x, y| int2(op, ty, x, y)),
    }
}

/// [`int3`] for the lanes of `exec`.
pub fn int3_lanes(
    op: IntOp3,
    ty: ScalarType,
    a: &Lanes,
    b: &Lanes,
    c: &Lanes,
    out: &mut Lanes,
    exec: u32,
) {
    let t = int_ty(ty);
    match op {
        IntOp3::MadLo => each(exec, |l| out[l] = int::mad_lo(t, a[l], b[l], c[l])),
        IntOp3::MadWide => each(exec, |l| out[l] = int::mad_wide(t, a[l], b[l], c[l])),
        _ => each(exec, |l| out[l] = int3(op, ty, a[l], b[l], c[l])),
    }
}

/// [`float2`] for the lanes of `exec`.
pub fn float2_lanes(
    op: FloatOp2,
    ty: ScalarType,
    mode: FloatMode,
    a: &Lanes,
    b: &Lanes,
    out: &mut Lanes,
    exec: u32,
) {
    let (r, ftz, sat) = (mode.rounding, mode.ftz, mode.sat);
    match (ty, op) {
        (ScalarType::F32, FloatOp2::Add) => each(exec, |l| {
            out[l] = float::add_f32(a[l] as u32, b[l] as u32, r, ftz, sat) as u64
        }),
        (ScalarType::F32, FloatOp2::Sub) => each(exec, |l| {
            out[l] = float::sub_f32(a[l] as u32, b[l] as u32, r, ftz, sat) as u64
        }),
        (ScalarType::F32, FloatOp2::Mul) => each(exec, |l| {
            out[l] = float::mul_f32(a[l] as u32, b[l] as u32, r, ftz, sat) as u64
        }),
        _ => each(exec, |l| out[l] = float2(op, ty, mode, a[l], b[l])),
    }
}

/// [`fma`] for the lanes of `exec`.
pub fn fma_lanes(
    ty: ScalarType,
    mode: FloatMode,
    a: &Lanes,
    b: &Lanes,
    c: &Lanes,
    out: &mut Lanes,
    exec: u32,
) {
    let (r, ftz, sat) = (mode.rounding, mode.ftz, mode.sat);
    if ty == ScalarType::F32 {
        each(exec, |l| {
            out[l] = float::fma_f32(a[l] as u32, b[l] as u32, c[l] as u32, r, ftz, sat) as u64
        })
    } else {
        each(exec, |l| out[l] = fma(ty, mode, a[l], b[l], c[l]))
    }
}

/// The sign bit(s) of a float type's register value (both halves of a packed pair).
fn sign_mask(ty: ScalarType) -> u64 {
    match ty {
        ScalarType::F64 => 1 << 63,
        ScalarType::F32 => 1 << 31,
        ScalarType::F16 | ScalarType::Bf16 => 0x8000,
        ScalarType::F16x2 | ScalarType::Bf16x2 => 0x8000_8000,
        _ => 0,
    }
}

/// A contracted `mul` + `add`/`sub` (`Op::FmaContract`) for the lanes of `exec`: [`fma`] of
/// `(±a, b, ±c)`, where `neg = [negate a, negate c]` flips sign bits (exact, as the FFMA's
/// operand negation is).
pub fn fma_contract_lanes(
    ty: ScalarType,
    mode: FloatMode,
    product: Product,
    neg: [bool; 2],
    [a, b, c]: [&Lanes; 3],
    out: &mut Lanes,
    exec: u32,
) {
    use ptx_semantics::sfu::rcp;
    let m = sign_mask(ty);
    let (sa, sc) = (if neg[0] { m } else { 0 }, if neg[1] { m } else { 0 });
    let factors = |x: u64, y: u64| -> (u64, u64) {
        let (x32, y32, ftz) = (x as u32, y as u32, mode.ftz);
        let (r, s) = match product {
            Product::Mul => return (x, y),
            Product::DivFull => rcp::div_full_f32_factors(x32, y32, ftz),
            Product::DivApprox => rcp::div_approx_f32_factors(x32, y32, ftz),
        };
        (r as u64, s as u64)
    };
    each(exec, |l| {
        let (x, y) = factors(a[l], b[l]);
        out[l] = fma(ty, mode, x ^ sa, y, c[l] ^ sc)
    })
}

/// [`compare`] for the lanes of `exec`: the mask of lanes where it holds.
pub fn compare_lanes(c: Cmp, ty: ScalarType, ftz: bool, a: &Lanes, b: &Lanes, exec: u32) -> u32 {
    let mut v = 0u32;
    match ty {
        ScalarType::F32 => each(exec, |l| {
            v |= (cmp::cmp_f32(c, a[l] as u32, b[l] as u32, ftz) as u32) << l
        }),
        _ if ty.kind() != TypeKind::Float => return compare_int_lanes(c, int_ty(ty), a, b, exec),
        _ => each(exec, |l| v |= (compare(c, ty, ftz, a[l], b[l]) as u32) << l),
    }
    v
}

/// [`compare_lanes`] of integers: `cmp::cmp_int` for every lane, with each lane's operands
/// mapped once to 64-bit keys whose order is the type's (its value, sign- or zero-extended;
/// an unsigned one with the top bit flipped, so that signed order is unsigned order) and to
/// their truncated bits (equality, and `lo`/`ls`/`hi`/`hs`, which compare unsigned). Every
/// lane is compared, the operator chosen once: the loops vectorize.
fn compare_int_lanes(c: Cmp, t: IntTy, a: &Lanes, b: &Lanes, exec: u32) -> u32 {
    // The type is looked at once, outside the lane loops.
    let mask = width_mask(t.bits);
    let shift = 64 - t.bits.min(64);
    let keys = |x: &Lanes| -> [i64; 32] {
        let mut k = [0i64; 32];
        if t.signed {
            for (k, &v) in k.iter_mut().zip(x) {
                *k = ((v << shift) as i64) >> shift;
            }
        } else {
            for (k, &v) in k.iter_mut().zip(x) {
                *k = ((v & mask) ^ (1 << 63)) as i64;
            }
        }
        k
    };
    let truncated = |x: &Lanes| -> Lanes {
        let mut u = [0u64; 32];
        for (u, &v) in u.iter_mut().zip(x) {
            *u = v & mask;
        }
        u
    };
    macro_rules! keyed {
        ($op:tt) => {{
            let (ka, kb) = (keys(a), keys(b));
            lane_bits(|l| ka[l] $op kb[l])
        }};
    }
    macro_rules! unsigned {
        ($op:tt) => {{
            let (ua, ub) = (truncated(a), truncated(b));
            lane_bits(|l| ua[l] $op ub[l])
        }};
    }
    let v = match c {
        Cmp::Eq | Cmp::Equ => unsigned!(==),
        Cmp::Ne | Cmp::Neu => unsigned!(!=),
        Cmp::Lt | Cmp::Ltu => keyed!(<),
        Cmp::Le | Cmp::Leu => keyed!(<=),
        Cmp::Gt | Cmp::Gtu => keyed!(>),
        Cmp::Ge | Cmp::Geu => keyed!(>=),
        Cmp::Lo => unsigned!(<),
        Cmp::Ls => unsigned!(<=),
        Cmp::Hi => unsigned!(>),
        Cmp::Hs => unsigned!(>=),
        Cmp::Num => u32::MAX,
        Cmp::Nan => 0,
    };
    v & exec
}

/// Bit `l` set where `f(l)`, for the 32 lanes.
#[inline(always)]
fn lane_bits(f: impl Fn(usize) -> bool) -> u32 {
    let mut v = 0u32;
    for l in 0..32 {
        v |= (f(l) as u32) << l;
    }
    v
}

/// [`cvt`] for the lanes of `exec`.
#[allow(clippy::too_many_arguments)]
pub fn cvt_lanes(
    dty: ScalarType,
    aty: ScalarType,
    mode: FloatMode,
    int_rounding: Option<Rounding>,
    d_bits: u32,
    a: &Lanes,
    out: &mut Lanes,
    exec: u32,
) {
    each(exec, |l| {
        out[l] = cvt(dty, aty, mode, int_rounding, d_bits, a[l])
    })
}

#[inline]
fn int_ty(ty: ScalarType) -> IntTy {
    IntTy::from_scalar(ty).unwrap_or(IntTy {
        bits: ty.bits().clamp(8, 64),
        signed: false,
    })
}

#[inline]
fn half_format(ty: ScalarType) -> Format {
    match ty {
        ScalarType::Bf16 | ScalarType::Bf16x2 => fmt::BF16,
        _ => fmt::F16,
    }
}

/// Two-operand integer and bitwise instructions.
pub fn int2(op: IntOp2, ty: ScalarType, a: u64, b: u64) -> u64 {
    let t = int_ty(ty);
    match op {
        IntOp2::Add => int::add(t, a, b),
        IntOp2::Sub => int::sub(t, a, b),
        IntOp2::AddSat => int::add_sat_s32(a as u32, b as u32) as u64,
        IntOp2::SubSat => int::sub_sat_s32(a as u32, b as u32) as u64,
        IntOp2::MulLo => int::mul_lo(t, a, b),
        IntOp2::MulHi => int::mul_hi(t, a, b),
        IntOp2::MulWide => int::mul_wide(t, a, b),
        IntOp2::Div => int::div(t, a, b),
        IntOp2::Rem => int::rem(t, a, b),
        IntOp2::MinMaxRelu { max } => {
            let v = if max {
                int::max(t, a, b)
            } else {
                int::min(t, a, b)
            };
            int::relu(t, v)
        }
        IntOp2::X2 { op, signed, relu } => {
            let f = |t: IntTy, x: u64, y: u64| -> u64 {
                let v = match op {
                    X2Op::Add => int::add(t, x, y),
                    X2Op::Sub => int::sub(t, x, y),
                    X2Op::Min => int::min(t, x, y),
                    X2Op::Max => int::max(t, x, y),
                };
                if relu {
                    int::relu(t, v)
                } else {
                    v
                }
            };
            int::x2(signed, a as u32, b as u32, f) as u64
        }
        IntOp2::Min => int::min(t, a, b),
        IntOp2::Max => int::max(t, a, b),
        IntOp2::And => int::and(a, b) & width_mask(t.bits),
        IntOp2::Or => int::or(a, b) & width_mask(t.bits),
        IntOp2::Xor => int::xor(a, b) & width_mask(t.bits),
        IntOp2::Shl => int::shl(t, a, b as u32),
        IntOp2::Shr => int::shr(t, a, b as u32),
        IntOp2::Mul24 { signed, hi } => int::mul24(signed, hi, a as u32, b as u32) as u64,
        IntOp2::Bmsk { wrap } => int::bmsk(wrap, a as u32, b as u32) as u64,
        IntOp2::Szext { signed, wrap } => int::szext(signed, wrap, a as u32, b as u32) as u64,
    }
}

/// The low `bits` bits set: the value mask of a `bits`-wide register or type (all 64 for
/// 64 and wider).
#[inline]
pub(crate) fn width_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// `mad.lo/.hi/.wide` and `mad.hi.sat.s32`.
pub fn int3(op: IntOp3, ty: ScalarType, a: u64, b: u64, c: u64) -> u64 {
    let t = int_ty(ty);
    match op {
        IntOp3::MadLo => int::mad_lo(t, a, b, c),
        IntOp3::MadHi => int::mad_hi(t, a, b, c),
        IntOp3::MadHiSat => int::mad_hi_sat_s32(a as u32, b as u32, c as u32) as u64,
        IntOp3::MadWide => int::mad_wide(t, a, b, c),
        IntOp3::Sad => int::sad(t, a, b, c),
        IntOp3::Mad24 { signed, hi } => {
            (int::mul24(signed, hi, a as u32, b as u32).wrapping_add(c as u32)) as u64
        }
        IntOp3::Dp4a { a_signed, b_signed } => {
            int::dp4a(a_signed, b_signed, a as u32, b as u32, c as u32) as u64
        }
        IntOp3::Dp2a {
            hi,
            a_signed,
            b_signed,
        } => int::dp2a(hi, a_signed, b_signed, a as u32, b as u32, c as u32) as u64,
        IntOp3::Lop3(lut) => int::lop3(a as u32, b as u32, c as u32, lut) as u64,
        IntOp3::Fns => int::fns(a as u32, b as u32, c as u32 as i32) as u64,
        IntOp3::CvtPackSat { bits, signed } => {
            let (lo, hi) = if signed {
                (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
            } else {
                (0, (1i64 << bits) - 1)
            };
            let sat = |v: u64| ((v as u32 as i32 as i64).clamp(lo, hi) as u64) & ((1 << bits) - 1);
            let td = sat(a) << bits | sat(b);
            if bits == 8 {
                (td | (c & 0xffff) << 16) & 0xffff_ffff
            } else {
                td
            }
        }
    }
}

/// `add.cc`-family: the result and the carry (borrow for `Sub`) out.
pub fn carry(op: CarryOp, ty: ScalarType, a: u64, b: u64, c: u64, cf: bool) -> (u64, bool) {
    let t = int_ty(ty);
    match op {
        CarryOp::Add => int::add_carry(t, a, b, cf),
        // The hardware's CC.CF after a subtraction is the carry out of `a + ~b + CF` (IADD3
        // with a carry predicate; ptxas 13.5 SASS of ZLUDA's subc_cc_s32): set when nothing
        // is borrowed, so `addc` after `sub.cc` adds 1 exactly when `a >= b`.
        CarryOp::Sub => {
            let (v, borrow) = int::sub_borrow(t, a, b, !cf);
            (v, !borrow)
        }
        CarryOp::MadLo => int::add_carry(t, int::mul_lo(t, a, b), c, cf),
        CarryOp::MadHi => int::add_carry(t, int::mul_hi(t, a, b), c, cf),
    }
}

/// One-operand integer instructions.
pub fn int1(op: IntOp1, ty: ScalarType, a: u64) -> u64 {
    let t = int_ty(ty);
    match op {
        IntOp1::Not => int::not(t, a),
        IntOp1::Cnot => int::cnot(t, a),
        IntOp1::Neg => int::neg(t, a),
        IntOp1::Abs => int::abs(t, a),
        IntOp1::Popc => int::popc(t, a) as u64,
        IntOp1::Clz => int::clz(t, a) as u64,
        IntOp1::Brev => int::brev(t, a),
        IntOp1::Bfind => int::bfind(t, false, a) as u64,
        IntOp1::BfindShiftAmt => int::bfind(t, true, a) as u64,
    }
}

/// `bfe.type d, a, pos, len`.
pub fn bfe(ty: ScalarType, a: u64, pos: u64, len: u64) -> u64 {
    int::bfe(int_ty(ty), a, pos as u32, len as u32)
}

/// `bfi.type f, a, b, pos, len`.
pub fn bfi(ty: ScalarType, a: u64, b: u64, pos: u64, len: u64) -> u64 {
    int::bfi(int_ty(ty), a, b, pos as u32, len as u32)
}

/// `prmt.b32{.mode}`.
pub fn prmt(mode: PrmtMode, a: u32, b: u32, c: u32) -> u32 {
    int::prmt(mode, a, b, c)
}

/// `shf.{l,r}.{clamp,wrap}.b32`.
pub fn shf(left: bool, clamp: bool, a: u32, b: u32, c: u32) -> u32 {
    int::shf(left, !clamp, a, b, c)
}

fn half_mods(mode: FloatMode) -> HalfMods {
    HalfMods {
        ftz: mode.ftz,
        sat: mode.sat,
        relu: mode.relu,
    }
}

fn half_binary(op: FloatOp2) -> Option<HalfOp> {
    Some(match op {
        FloatOp2::Add => HalfOp::Add,
        FloatOp2::Sub => HalfOp::Sub,
        FloatOp2::Mul => HalfOp::Mul,
        _ => return None,
    })
}

/// `min/max{.NaN}.xorsign.abs.{f32,f16,f16x2,bf16,bf16x2}` (PTX ISA §"min", §"max"): the min
/// (max) of the absolute values, NaN rules as without `.xorsign.abs`, and, unless the result is
/// NaN, the sign bit set to the XOR of the operands' sign bits.
fn xorsign_abs(max: bool, nan: bool, ty: ScalarType, mode: FloatMode, a: u64, b: u64) -> u64 {
    let base = match (max, nan) {
        (false, false) => FloatOp2::Min,
        (false, true) => FloatOp2::MinNaN,
        (true, false) => FloatOp2::Max,
        (true, true) => FloatOp2::MaxNaN,
    };
    let one = |t: ScalarType, bits: u32, x: u64, y: u64| -> u64 {
        let sign = 1u64 << (bits - 1);
        let r = float2(base, t, mode, x & (sign - 1), y & (sign - 1));
        let is_nan = match t {
            ScalarType::F32 => f32::from_bits(r as u32).is_nan(),
            _ => half::to_f64(half_format(t), r).is_nan(),
        };
        if is_nan {
            r
        } else {
            r | ((x ^ y) & sign)
        }
    };
    match ty {
        ScalarType::F32 => one(ty, 32, a, b),
        ScalarType::F16 | ScalarType::Bf16 => one(ty, 16, a & 0xffff, b & 0xffff),
        ScalarType::F16x2 | ScalarType::Bf16x2 => {
            let t = if ty == ScalarType::F16x2 {
                ScalarType::F16
            } else {
                ScalarType::Bf16
            };
            let lo = one(t, 16, a & 0xffff, b & 0xffff);
            let hi = one(t, 16, (a >> 16) & 0xffff, (b >> 16) & 0xffff);
            (hi << 16) | lo
        }
        _ => 0,
    }
}

/// Two-operand float instructions.
pub fn float2(op: FloatOp2, ty: ScalarType, mode: FloatMode, a: u64, b: u64) -> u64 {
    if let FloatOp2::XorsignAbs { max, nan } = op {
        return xorsign_abs(max, nan, ty, mode, a, b);
    }
    let (r, ftz, sat) = (mode.rounding, mode.ftz, mode.sat);
    match ty {
        ScalarType::F32 => {
            let (x, y) = (a as u32, b as u32);
            (match op {
                FloatOp2::Add => float::add_f32(x, y, r, ftz, sat),
                FloatOp2::Sub => float::sub_f32(x, y, r, ftz, sat),
                FloatOp2::Mul => float::mul_f32(x, y, r, ftz, sat),
                FloatOp2::Div => float::div_f32(x, y, r, ftz),
                FloatOp2::DivFull => float::div_full_f32(x, y, ftz),
                FloatOp2::DivApprox => float::div_approx_f32(x, y, ftz),
                FloatOp2::Min => float::min_f32(x, y, ftz, false),
                FloatOp2::Max => float::max_f32(x, y, ftz, false),
                FloatOp2::MinNaN => float::min_f32(x, y, ftz, true),
                FloatOp2::MaxNaN => float::max_f32(x, y, ftz, true),
                FloatOp2::Copysign => float::copysign_f32(x, y),
                FloatOp2::XorsignAbs { .. } => unreachable!("handled above"),
            }) as u64
        }
        ScalarType::F64 => match op {
            FloatOp2::Add => float::add_f64(a, b, r),
            FloatOp2::Sub => float::sub_f64(a, b, r),
            FloatOp2::Mul => float::mul_f64(a, b, r),
            FloatOp2::Div | FloatOp2::DivFull | FloatOp2::DivApprox => float::div_f64(a, b, r),
            FloatOp2::Min => float::min_f64(a, b, false),
            FloatOp2::Max => float::max_f64(a, b, false),
            FloatOp2::MinNaN => float::min_f64(a, b, true),
            FloatOp2::MaxNaN => float::max_f64(a, b, true),
            FloatOp2::Copysign => float::copysign_f64(a, b),
            FloatOp2::XorsignAbs { .. } => unreachable!("handled above"),
        },
        ScalarType::F16 | ScalarType::Bf16 => {
            half_binary_op(op, ty, mode, a as u16, b as u16) as u64
        }
        ScalarType::F16x2 | ScalarType::Bf16x2 => half::x2(a as u32, b as u32, |x, y| {
            half_binary_op(op, ty, mode, x, y)
        }) as u64,
        _ => 0,
    }
}

fn half_binary_op(op: FloatOp2, ty: ScalarType, mode: FloatMode, x: u16, y: u16) -> u16 {
    let fmt = half_format(ty);
    match op {
        FloatOp2::Min | FloatOp2::MinNaN => half::min(fmt, x, y, mode.ftz, op == FloatOp2::MinNaN),
        FloatOp2::Max | FloatOp2::MaxNaN => half::max(fmt, x, y, mode.ftz, op == FloatOp2::MaxNaN),
        _ => match half_binary(op) {
            Some(h) => half::arith(fmt, h, x, y, 0, mode.rounding, half_mods(mode)),
            None => {
                // Division and copysign of halves (no PTX form; computed through f64).
                let v = match op {
                    FloatOp2::Copysign => {
                        half::to_f64(fmt, y as u64).copysign(half::to_f64(fmt, x as u64))
                    }
                    _ => half::to_f64(fmt, x as u64) / half::to_f64(fmt, y as u64),
                };
                half::from_f64(fmt, v, mode.rounding) as u16
            }
        },
    }
}

/// `fma`/`mad` on floats.
pub fn fma(ty: ScalarType, mode: FloatMode, a: u64, b: u64, c: u64) -> u64 {
    let (r, ftz, sat) = (mode.rounding, mode.ftz, mode.sat);
    match ty {
        ScalarType::F32 => float::fma_f32(a as u32, b as u32, c as u32, r, ftz, sat) as u64,
        ScalarType::F64 => float::fma_f64(a, b, c, r),
        ScalarType::F16 | ScalarType::Bf16 => half::arith(
            half_format(ty),
            HalfOp::Fma,
            a as u16,
            b as u16,
            c as u16,
            r,
            half_mods(mode),
        ) as u64,
        ScalarType::F16x2 | ScalarType::Bf16x2 => {
            let hf = half_format(ty);
            half::x2_3(a as u32, b as u32, c as u32, |x, y, z| {
                half::arith(hf, HalfOp::Fma, x, y, z, r, half_mods(mode))
            }) as u64
        }
        _ => 0,
    }
}

/// One-operand float instructions.
pub fn float1(op: FloatOp1, ty: ScalarType, mode: FloatMode, a: u64) -> u64 {
    let (r, ftz) = (mode.rounding, mode.ftz);
    match ty {
        ScalarType::F32 => {
            let x = a as u32;
            (match op {
                FloatOp1::Neg => float::neg_f32(x, ftz),
                FloatOp1::Abs => float::abs_f32(x, ftz),
                FloatOp1::Sqrt => float::sqrt_f32(x, r, ftz),
                FloatOp1::SqrtApprox => float::sqrt_approx_f32(x, ftz),
                FloatOp1::Rcp => float::rcp_f32(x, r, ftz),
                FloatOp1::RcpApprox | FloatOp1::RcpApproxF64 => float::rcp_approx_f32(x, ftz),
                FloatOp1::Rsqrt => float::rsqrt_approx_f32(x, ftz),
                FloatOp1::Ex2 => float::ex2_approx_f32(x, ftz),
                FloatOp1::Lg2 => float::lg2_approx_f32(x, ftz),
                FloatOp1::Sin => float::sin_approx_f32(x, ftz),
                FloatOp1::Cos => float::cos_approx_f32(x, ftz),
                FloatOp1::Tanh => float::tanh_approx_f32(x),
            }) as u64
        }
        ScalarType::F64 => match op {
            FloatOp1::Neg => float::neg_f64(a),
            FloatOp1::Abs => float::abs_f64(a),
            FloatOp1::Sqrt | FloatOp1::SqrtApprox => float::sqrt_f64(a, r),
            FloatOp1::Rcp | FloatOp1::RcpApprox => float::rcp_f64(a, r),
            FloatOp1::RcpApproxF64 => float::rcp_approx_ftz_f64(a),
            FloatOp1::Rsqrt => float::rsqrt_approx_f64(a, ftz),
            // PTX has no .f64 forms of these; computed through f32 like the .f32 instruction.
            FloatOp1::Ex2 | FloatOp1::Lg2 | FloatOp1::Sin | FloatOp1::Cos | FloatOp1::Tanh => {
                let x = (f64::from_bits(a) as f32).to_bits() as u64;
                (f32::from_bits(float1(op, ScalarType::F32, mode, x) as u32) as f64).to_bits()
            }
        },
        ScalarType::F16 | ScalarType::Bf16 => half_unary(op, ty, mode, a as u16) as u64,
        ScalarType::F16x2 | ScalarType::Bf16x2 => {
            let lo = half_unary(op, ty, mode, a as u16) as u64;
            let hi = half_unary(op, ty, mode, (a >> 16) as u16) as u64;
            lo | (hi << 16)
        }
        _ => 0,
    }
}

fn half_unary(op: FloatOp1, ty: ScalarType, mode: FloatMode, x: u16) -> u16 {
    let fmt = half_format(ty);
    match op {
        FloatOp1::Neg => half::neg(fmt, x, mode.ftz),
        FloatOp1::Abs => half::abs(fmt, x, mode.ftz),
        FloatOp1::Ex2 => half::ex2_approx(fmt, x, mode.ftz),
        FloatOp1::Tanh => half::tanh_approx(fmt, x),
        _ => {
            // Other functions have no half form in PTX; evaluate as .f32 and round.
            let f = half::to_f64(fmt, x as u64) as f32;
            let r = f32::from_bits(float1(op, ScalarType::F32, mode, f.to_bits() as u64) as u32);
            half::from_f64(fmt, r as f64, ptx_semantics::Rnd::Rn) as u16
        }
    }
}

/// `testp.op.type`.
pub fn testp(kind: ptx_semantics::float::TestpOp, ty: ScalarType, a: u64) -> bool {
    if ty == ScalarType::F64 {
        float::testp_f64(kind, a)
    } else {
        float::testp_f32(kind, a as u32)
    }
}

/// `setp`/`set` comparison of one lane.
pub fn compare(c: Cmp, ty: ScalarType, ftz: bool, a: u64, b: u64) -> bool {
    match ty {
        ScalarType::F32 => cmp::cmp_f32(c, a as u32, b as u32, ftz),
        ScalarType::F64 => cmp::cmp_f64(c, a, b),
        ScalarType::F16 => cmp::cmp_f16(c, a as u16, b as u16, ftz),
        ScalarType::Bf16 => cmp::cmp_bf16(c, a as u16, b as u16),
        ScalarType::F16x2 | ScalarType::Bf16x2 => {
            cmp::cmp_x2(half_format(ty), c, a as u32, b as u32, ftz).0
        }
        _ if ty.kind() == TypeKind::Float => cmp::cmp_f32(c, a as u32, b as u32, ftz),
        _ => cmp::cmp_int(c, int_ty(ty), a, b),
    }
}

/// `set` result value.
pub fn set_value(dty: ScalarType, v: bool) -> u64 {
    match dty {
        // 1.0 in the half format, or 0.
        ScalarType::F16 | ScalarType::F16x2 => 0x3c00 * v as u64,
        ScalarType::Bf16 | ScalarType::Bf16x2 => 0x3f80 * v as u64,
        _ => cmp::set_value(dty == ScalarType::F32, v) as u64,
    }
}

/// `set.cmp.dtype.stype d, a, b{, p}`: `combine` applies the optional predicate to a test
/// result. Packed sources (`.f16x2`, `.bf16x2`) compare each half on its own: each half of `d`
/// is 1.0 or 0.0 of a packed `dtype`, or `0xFFFF`/0 of a `.u32`/`.s32` one.
pub fn set(
    c: Cmp,
    dty: ScalarType,
    ty: ScalarType,
    a: u64,
    b: u64,
    combine: impl Fn(bool) -> bool,
) -> u64 {
    if !matches!(ty, ScalarType::F16x2 | ScalarType::Bf16x2) {
        return set_value(dty, combine(compare(c, ty, false, a, b)));
    }
    let half = if ty == ScalarType::F16x2 {
        ScalarType::F16
    } else {
        ScalarType::Bf16
    };
    let mut d = 0;
    for k in 0..2 {
        let (x, y) = ((a >> (16 * k)) & 0xffff, (b >> (16 * k)) & 0xffff);
        let t = combine(compare(c, half, false, x, y));
        let v = match dty {
            ScalarType::F16x2 | ScalarType::Bf16x2 => set_value(dty, t),
            _ => 0xffff * t as u64,
        };
        d |= v << (16 * k);
    }
    d
}

/// `slct.dtype.{s32,f32} d, a, b, c`.
pub fn slct(cty: ScalarType, ftz: bool, a: u64, b: u64, c: u64) -> u64 {
    if cty == ScalarType::F32 {
        cmp::slct_f32(a, b, c as u32, ftz)
    } else {
        cmp::slct_s32(a, b, c as u32)
    }
}

fn cvt_mods(mode: FloatMode) -> CvtMods {
    CvtMods {
        ftz: mode.ftz,
        sat: mode.sat,
        relu: mode.relu,
        satfinite: false,
    }
}

/// `cvt` between any two types; `d_bits` is the destination register's width (a signed
/// destination type narrower than its register is sign-extended into it).
pub fn cvt(
    dty: ScalarType,
    aty: ScalarType,
    mode: FloatMode,
    int_rounding: Option<Rounding>,
    d_bits: u32,
    a: u64,
) -> u64 {
    let m = cvt_mods(mode);
    // The packed forms first: `float_format` knows only scalar types, so these would otherwise
    // fall into the integer path and be copied unconverted.
    let f8 = |t: ScalarType| match t {
        ScalarType::E5m2x2 => fmt::E5M2,
        _ => fmt::E4M3,
    };
    match (dty, aty) {
        (ScalarType::E4m3x2 | ScalarType::E5m2x2, ScalarType::F16x2) => {
            return cvt::pack_f8x2_f16x2(f8(dty), a as u32, mode.relu) as u64;
        }
        (ScalarType::F16x2, ScalarType::E4m3x2 | ScalarType::E5m2x2) => {
            return cvt::unpack_f8x2_to_f16x2(f8(aty), a as u16, mode.relu) as u64;
        }
        _ => {}
    }
    let (dfmt, afmt) = (cvt::float_format(dty), cvt::float_format(aty));
    match (dfmt, afmt) {
        (None, None) => {
            let (dt, at) = (int_ty(dty), int_ty(aty));
            let v = int::cvt_int(dt, at, a, mode.sat);
            if dt.signed && d_bits > dt.bits {
                (int::sext(v, dt.bits) as u64) & width_mask(d_bits)
            } else {
                v
            }
        }
        (None, Some(src)) => {
            let dt = int_ty(dty);
            let v = cvt::f2i(dt, src, a, int_rounding.unwrap_or(Rounding::Rz), mode.ftz);
            if dt.signed && d_bits > dt.bits {
                (int::sext(v, dt.bits) as u64) & width_mask(d_bits)
            } else {
                v
            }
        }
        (Some(dst), None) => cvt::i2f(dst, int_ty(aty), a, mode.rounding, m),
        (Some(dst), Some(src)) => {
            if dty == ScalarType::Tf32 {
                return cvt::tf32_from_f32(a as u32, mode.rounding, m) as u64;
            }
            match int_rounding {
                Some(ir) if dst == src => cvt::f2f_integral(dst, a, ir, m),
                _ => cvt::f2f(dst, src, a, mode.rounding, m),
            }
        }
    }
}

/// `cvt.rn.{f16x2,bf16x2,e4m3x2,e5m2x2}.f32 d, a, b`: `a` in the upper half, `b` in the lower.
pub fn cvt_pack(dty: ScalarType, mode: FloatMode, a: u64, b: u64) -> u64 {
    let m = cvt_mods(mode);
    match dty {
        ScalarType::Bf16x2 => cvt::pack_bf16x2_f32(a as u32, b as u32, mode.rounding, m) as u64,
        ScalarType::E4m3x2 => cvt::pack_f8x2_f32(fmt::E4M3, a as u32, b as u32, mode.relu) as u64,
        ScalarType::E5m2x2 => cvt::pack_f8x2_f32(fmt::E5M2, a as u32, b as u32, mode.relu) as u64,
        _ => cvt::pack_f16x2_f32(a as u32, b as u32, mode.rounding, m) as u64,
    }
}

/// `shfl.sync`: the source lane of `lane` and whether it is in range.
pub fn shfl_source(mode: ShflMode, lane: u32, b: u32, c: u32) -> (u32, bool) {
    warp::shfl_source(mode, lane, b, c)
}

/// The new value of an atomic location (or of a `redux.sync` accumulation).
pub fn atom_combine(op: AtomOp, ty: ScalarType, old: u64, b: u64, c: u64) -> u64 {
    match (op, ty) {
        (AtomOp::Add, ScalarType::F32) => atom::atom_add_f32(old as u32, b as u32, false) as u64,
        (AtomOp::Add, ScalarType::F64) => atom::atom_add_f64(old, b),
        (AtomOp::Add, ScalarType::F16) => atom::atom_add_f16(old as u16, b as u16) as u64,
        (AtomOp::Add, ScalarType::Bf16) => atom::atom_add_bf16(old as u16, b as u16) as u64,
        (AtomOp::Add, ScalarType::F16x2) => atom::atom_add_f16x2(old as u32, b as u32) as u64,
        (AtomOp::Add, ScalarType::Bf16x2) => atom::atom_add_bf16x2(old as u32, b as u32) as u64,
        (AtomOp::Min | AtomOp::Max, ScalarType::F16 | ScalarType::Bf16) => atom::atom_minmax_half(
            ty == ScalarType::Bf16,
            op == AtomOp::Min,
            old as u16,
            b as u16,
        ) as u64,
        (AtomOp::Min, ScalarType::F32) => float::min_f32(old as u32, b as u32, false, false) as u64,
        (AtomOp::Max, ScalarType::F32) => float::max_f32(old as u32, b as u32, false, false) as u64,
        (AtomOp::Min, ScalarType::F64) => float::min_f64(old, b, false),
        (AtomOp::Max, ScalarType::F64) => float::max_f64(old, b, false),
        _ => atom::atom_int(op, int_ty(ty), old, b, c),
    }
}

/// `mma.sync.aligned` for a warp: each lane's A, B and C fragment registers in (the low 32
/// bits of each register, as `mma_sync` takes them), D register lane arrays out.
/// The D registers come back in a fixed array (no allocation per warp instruction); the first
/// `shape.regs().2` are meaningful.
pub fn mma(
    shape: MmaShape,
    fa: &[[u32; 4]; 32],
    fb: &[[u32; 2]; 32],
    fc: &[[u32; 4]; 32],
) -> [[u64; 32]; 4] {
    let d = mma_dispatch(shape, fa, fb, fc);
    let mut out = [[0u64; 32]; 4];
    for (r, v) in out.iter_mut().enumerate().take(shape.regs().2 as usize) {
        for (lane, x) in v.iter_mut().enumerate() {
            *x = d[lane][r] as u64;
        }
    }
    out
}

/// `mma_sync` in the widest vector form the CPU runs (same bits in every form: the forms
/// differ only in the instruction set the compiler may use for the same operations).
#[inline]
fn mma_dispatch(
    shape: MmaShape,
    fa: &[[u32; 4]; 32],
    fb: &[[u32; 2]; 32],
    fc: &[[u32; 4]; 32],
) -> [[u32; 4]; 32] {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx512f") {
            // SAFETY: `mma_sync_avx512` requires AVX-512F only, and the CPU has it (checked
            // just above); its arguments are plain references.
            return unsafe { mma_sem::mma_sync_avx512(shape, fa, fb, fc) };
        }
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: `mma_sync_avx2` requires AVX2 only, and the CPU has it (checked just
            // above).
            return unsafe { mma_sem::mma_sync_avx2(shape, fa, fb, fc) };
        }
    }
    mma_sem::mma_sync(shape, fa, fb, fc)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The integer path of `compare_lanes` (keys compared for all lanes) is `cmp::cmp_int`
    /// lane by lane, for every operator, integer type and a mix of edge and random values.
    #[test]
    fn integer_compare_lanes_is_cmp_int_per_lane() {
        let mut next = crate::xorshift(0x9E37_79B9_7F4A_7C15);
        let edges = [
            0u64,
            1,
            0x7F,
            0x80,
            0xFF,
            0x7FFF,
            0x8000,
            0xFFFF,
            0x7FFF_FFFF,
            0x8000_0000,
            0xFFFF_FFFF,
            0x1_0000_0000,
            i64::MAX as u64,
            i64::MIN as u64,
            u64::MAX,
        ];
        let types = [
            ScalarType::S8,
            ScalarType::U8,
            ScalarType::S16,
            ScalarType::U16,
            ScalarType::B16,
            ScalarType::S32,
            ScalarType::U32,
            ScalarType::B32,
            ScalarType::S64,
            ScalarType::U64,
            ScalarType::B64,
        ];
        let ops = [
            Cmp::Eq,
            Cmp::Ne,
            Cmp::Lt,
            Cmp::Le,
            Cmp::Gt,
            Cmp::Ge,
            Cmp::Lo,
            Cmp::Ls,
            Cmp::Hi,
            Cmp::Hs,
            Cmp::Equ,
            Cmp::Neu,
            Cmp::Ltu,
            Cmp::Leu,
            Cmp::Gtu,
            Cmp::Geu,
            Cmp::Num,
            Cmp::Nan,
        ];
        for round in 0..200 {
            let mut a = [0u64; 32];
            let mut b = [0u64; 32];
            for l in 0..32 {
                a[l] = if l % 3 == 0 {
                    edges[(next() % 15) as usize]
                } else {
                    next()
                };
                b[l] = if l % 4 == 0 {
                    a[l]
                } else if l % 5 == 0 {
                    edges[(next() % 15) as usize]
                } else {
                    next()
                };
            }
            let exec = if round % 2 == 0 {
                u32::MAX
            } else {
                next() as u32
            };
            for ty in types {
                for c in ops {
                    let t = int_ty(ty);
                    let mut want = 0u32;
                    for l in 0..32 {
                        if exec & (1 << l) != 0 && cmp::cmp_int(c, t, a[l], b[l]) {
                            want |= 1 << l;
                        }
                    }
                    let got = compare_lanes(c, ty, false, &a, &b, exec);
                    assert_eq!(got, want, "{c:?} {ty:?} exec {exec:#x}");
                }
            }
        }
    }
}
