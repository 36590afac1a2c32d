//! Comparison and selection: `setp`, `set`, `selp`, `slct` (PTX ISA §"Comparison and Selection
//! Instructions", "Comparison operators" table).

use crate::int::IntTy;
use crate::round::{self, Format};

/// A comparison operator (`.cmpOp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `.eq`
    Eq,
    /// `.ne`
    Ne,
    /// `.lt`
    Lt,
    /// `.le`
    Le,
    /// `.gt`
    Gt,
    /// `.ge`
    Ge,
    /// `.lo` (unsigned `<`)
    Lo,
    /// `.ls` (unsigned `<=`)
    Ls,
    /// `.hi` (unsigned `>`)
    Hi,
    /// `.hs` (unsigned `>=`)
    Hs,
    /// `.equ`: equal or unordered
    Equ,
    /// `.neu`: not equal or unordered
    Neu,
    /// `.ltu`
    Ltu,
    /// `.leu`
    Leu,
    /// `.gtu`
    Gtu,
    /// `.geu`
    Geu,
    /// `.num`: both operands are numbers
    Num,
    /// `.nan`: either operand is NaN
    Nan,
}

impl CmpOp {
    /// Parses the PTX spelling without the dot (`"lt"`, `"geu"`, …).
    pub fn from_name(s: &str) -> Option<CmpOp> {
        Some(match s {
            "eq" => CmpOp::Eq,
            "ne" => CmpOp::Ne,
            "lt" => CmpOp::Lt,
            "le" => CmpOp::Le,
            "gt" => CmpOp::Gt,
            "ge" => CmpOp::Ge,
            "lo" => CmpOp::Lo,
            "ls" => CmpOp::Ls,
            "hi" => CmpOp::Hi,
            "hs" => CmpOp::Hs,
            "equ" => CmpOp::Equ,
            "neu" => CmpOp::Neu,
            "ltu" => CmpOp::Ltu,
            "leu" => CmpOp::Leu,
            "gtu" => CmpOp::Gtu,
            "geu" => CmpOp::Geu,
            "num" => CmpOp::Num,
            "nan" => CmpOp::Nan,
            _ => return None,
        })
    }
}

/// Integer comparison. `.lo .ls .hi .hs` compare as unsigned whatever the type; the other
/// operators follow the type's signedness. The unordered float operators behave like their
/// ordered forms on integers (`.num` is true, `.nan` false).
#[inline]
pub fn cmp_int(op: CmpOp, t: IntTy, a: u64, b: u64) -> bool {
    let (x, y) = (t.value(a), t.value(b));
    let (ux, uy) = (t.trunc(a), t.trunc(b));
    match op {
        CmpOp::Eq | CmpOp::Equ => ux == uy,
        CmpOp::Ne | CmpOp::Neu => ux != uy,
        CmpOp::Lt | CmpOp::Ltu => x < y,
        CmpOp::Le | CmpOp::Leu => x <= y,
        CmpOp::Gt | CmpOp::Gtu => x > y,
        CmpOp::Ge | CmpOp::Geu => x >= y,
        CmpOp::Lo => ux < uy,
        CmpOp::Ls => ux <= uy,
        CmpOp::Hi => ux > uy,
        CmpOp::Hs => ux >= uy,
        CmpOp::Num => true,
        CmpOp::Nan => false,
    }
}

/// Float comparison on decoded values: ordered operators are false when either operand is NaN,
/// the `…u` operators true; `+0 == -0`.
#[inline]
fn cmp_ordered(op: CmpOp, ord: Option<core::cmp::Ordering>) -> bool {
    use core::cmp::Ordering::*;
    match (op, ord) {
        (CmpOp::Num, o) => o.is_some(),
        (CmpOp::Nan, o) => o.is_none(),
        (CmpOp::Equ | CmpOp::Neu | CmpOp::Ltu | CmpOp::Leu | CmpOp::Gtu | CmpOp::Geu, None) => true,
        (_, None) => false,
        (CmpOp::Eq | CmpOp::Equ, Some(o)) => o == Equal,
        (CmpOp::Ne | CmpOp::Neu, Some(o)) => o != Equal,
        (CmpOp::Lt | CmpOp::Ltu | CmpOp::Lo, Some(o)) => o == Less,
        (CmpOp::Le | CmpOp::Leu | CmpOp::Ls, Some(o)) => o != Greater,
        (CmpOp::Gt | CmpOp::Gtu | CmpOp::Hi, Some(o)) => o == Greater,
        (CmpOp::Ge | CmpOp::Geu | CmpOp::Hs, Some(o)) => o != Less,
    }
}

/// `setp.op{.ftz}.f32` comparison.
#[inline]
pub fn cmp_f32(op: CmpOp, a: u32, b: u32, ftz: bool) -> bool {
    let (a, b) = if ftz {
        (crate::float::flush_f32(a), crate::float::flush_f32(b))
    } else {
        (a, b)
    };
    cmp_ordered(op, f32::from_bits(a).partial_cmp(&f32::from_bits(b)))
}

/// `setp.op.f64` comparison.
#[inline]
pub fn cmp_f64(op: CmpOp, a: u64, b: u64) -> bool {
    cmp_ordered(op, f64::from_bits(a).partial_cmp(&f64::from_bits(b)))
}

/// Comparison of two values of a small float format (`.f16`, `.bf16`), exact via `f64`.
#[inline]
pub fn cmp_small(fmt: Format, op: CmpOp, a: u64, b: u64, ftz: bool) -> bool {
    let (a, b) = if ftz {
        (fmt.flush(a), fmt.flush(b))
    } else {
        (a, b)
    };
    cmp_ordered(
        op,
        crate::half::to_f64(fmt, a).partial_cmp(&crate::half::to_f64(fmt, b)),
    )
}

/// `setp.op{.ftz}.f16` comparison.
#[inline]
pub fn cmp_f16(op: CmpOp, a: u16, b: u16, ftz: bool) -> bool {
    cmp_small(round::F16, op, a as u64, b as u64, ftz)
}

/// `setp.op.bf16` comparison.
#[inline]
pub fn cmp_bf16(op: CmpOp, a: u16, b: u16) -> bool {
    cmp_small(round::BF16, op, a as u64, b as u64, false)
}

/// `setp.op{.ftz}.f16x2` / `.bf16x2 p|q, a, b`: returns `(p, q)` with `p` comparing the lower
/// halves (`a[15:0]`, `b[15:0]`) and `q` the upper halves, as the ISA's pseudocode.
#[inline]
pub fn cmp_x2(fmt: Format, op: CmpOp, a: u32, b: u32, ftz: bool) -> (bool, bool) {
    let lo = cmp_small(fmt, op, (a & 0xffff) as u64, (b & 0xffff) as u64, ftz);
    let hi = cmp_small(fmt, op, (a >> 16) as u64, (b >> 16) as u64, ftz);
    (lo, hi)
}

/// The boolean combiner of `setp`/`set` (`.and .or .xor` with a source predicate `c`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoolOp {
    /// `.and`
    And,
    /// `.or`
    Or,
    /// `.xor`
    Xor,
}

/// `setp.CmpOp.BoolOp`: `p = r BoolOp c`; the optional second destination is
/// `q = !r BoolOp c` (use [`setp_pair`]).
#[inline]
pub fn combine(op: BoolOp, r: bool, c: bool) -> bool {
    match op {
        BoolOp::And => r && c,
        BoolOp::Or => r || c,
        BoolOp::Xor => r ^ c,
    }
}

/// `setp.CmpOp{.BoolOp} p|q, a, b{, c}`: `(p, q)` from the comparison result `r`; without a
/// combiner pass `None` (then `p = r`, `q = !r`).
#[inline]
pub fn setp_pair(r: bool, bop: Option<(BoolOp, bool)>) -> (bool, bool) {
    match bop {
        None => (r, !r),
        Some((op, c)) => (combine(op, r, c), combine(op, !r, c)),
    }
}

/// The destination value of `set.CmpOp{.BoolOp}.dtype` for a boolean outcome: all ones for
/// `.u32 .s32 .b32`, `1.0f` for `.f32`, 0 for false (PTX ISA §"set").
#[inline]
pub fn set_value(dtype_is_f32: bool, v: bool) -> u32 {
    match (v, dtype_is_f32) {
        (false, _) => 0,
        (true, false) => 0xffff_ffff,
        (true, true) => 0x3f80_0000,
    }
}

/// `set.op.f16x2`/`.bf16x2`-style packed results: each half is `1.0` of `fmt` or `0`
/// (the ISA writes `1.0` in the destination type for `.f16x2`/`.bf16x2`, all-ones halves for
/// `.u32`/`.s32`).
#[inline]
pub fn set_value_x2(one: u16, lo: bool, hi: bool) -> u32 {
    ((if hi { one } else { 0 } as u32) << 16) | (if lo { one } else { 0 }) as u32
}

/// `selp.type d, a, b, c`: `c ? a : b`.
#[inline]
pub fn selp(a: u64, b: u64, c: bool) -> u64 {
    if c {
        a
    } else {
        b
    }
}

/// `slct.dtype.s32 d, a, b, c`: `c >= 0 ? a : b`.
#[inline]
pub fn slct_s32(a: u64, b: u64, c: u32) -> u64 {
    if (c as i32) >= 0 {
        a
    } else {
        b
    }
}

/// `slct{.ftz}.dtype.f32 d, a, b, c`: `c >= 0.0 ? a : b` (`-0.0 >= 0` holds; NaN selects `b`).
#[inline]
pub fn slct_f32(a: u64, b: u64, c: u32, ftz: bool) -> u64 {
    let c = if ftz { crate::float::flush_f32(c) } else { c };
    if f32::from_bits(c) >= 0.0 {
        a
    } else {
        b
    }
}
