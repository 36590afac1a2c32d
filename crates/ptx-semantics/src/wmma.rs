//! `wmma` (PTX ISA §"Warp Level Matrix Multiply-Accumulate Instructions"): fragment layout and
//! arithmetic of `wmma.load`, `wmma.mma` and `wmma.store`.
//!
//! The ISA leaves the distribution of a fragment's elements over the warp's lanes unspecified
//! ("the layout of the fragments is implementation dependent"); a program may only move
//! fragments between `wmma.load`, `wmma.mma` and `wmma.store` of matching shape and layout and
//! apply element-wise operations to them. ptxsim's layout: a fragment of an `R x C` matrix with
//! `E` elements per lane is held by `U = R·C / E` distinct lanes, lane `l` holding elements
//! `(l mod U)·E … (l mod U)·E + E - 1` of the matrix in row-major order (so when `U < 32` the
//! lanes `l` and `l + U` hold copies, as the `.f16` A/B fragments of `m16n16k16`, 16 elements per
//! lane for 256, do on hardware too). The fragment holds the logical matrix whatever memory
//! layout (`.row`/`.col`) it was loaded with. Elements are packed into `.b32` registers from bit 0
//! up (two 16-bit, four 8-bit or one 32-bit element per register).
//!
//! Arithmetic as [`crate::mma`]: exact products, `f64` accumulation in increasing `k` starting
//! from C, one rounding to nearest-even into D; integer shapes accumulate exactly and wrap, or
//! clamp with `.satfinite`. `.tf32` operands use the upper 19 bits of their registers.

use crate::half::to_f64;
use crate::mma::Elem;
use crate::round::{self, Overflow, Rnd, BF16, F16, F32, F64};

/// Element types of `wmma` fragments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WmmaType {
    /// `.f16`
    F16,
    /// `.bf16`
    Bf16,
    /// `.tf32` (`.b32` registers, upper 19 bits used)
    Tf32,
    /// `.f32`
    F32,
    /// `.s8`
    S8,
    /// `.u8`
    U8,
    /// `.s32`
    S32,
}

impl WmmaType {
    /// Bits per element.
    pub const fn bits(self) -> u32 {
        match self {
            WmmaType::F16 | WmmaType::Bf16 => 16,
            WmmaType::S8 | WmmaType::U8 => 8,
            _ => 32,
        }
    }

    /// Elements per `.b32` register.
    pub const fn per_reg(self) -> u32 {
        32 / self.bits()
    }

    /// Whether the type is an integer type.
    pub const fn integer(self) -> bool {
        matches!(self, WmmaType::S8 | WmmaType::U8 | WmmaType::S32)
    }
}

/// Which matrix a fragment holds and its dimensions for shape `m n k`: A is `m x k`, B `k x n`,
/// C and D `m x n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WmmaMatrix {
    /// The `m x k` multiplicand.
    A,
    /// The `k x n` multiplicand.
    B,
    /// The `m x n` accumulator (C, and D for `wmma.store.d`).
    C,
}

impl WmmaMatrix {
    /// (rows, columns) of the matrix for shape `m n k`.
    pub const fn dims(self, m: u32, n: u32, k: u32) -> (u32, u32) {
        match self {
            WmmaMatrix::A => (m, k),
            WmmaMatrix::B => (k, n),
            WmmaMatrix::C => (m, n),
        }
    }
}

/// Whether a fragment of `regs` registers of `ty` can hold an `rows x cols` matrix in the layout
/// above: its elements per lane must divide the matrix into 1 to 32 distinct lanes evenly.
pub fn wmma_fits(rows: u32, cols: u32, ty: WmmaType, regs: u32) -> bool {
    let per_lane = regs * ty.per_reg();
    let size = rows * cols;
    size as usize <= WMMA_MAX_ELEMS
        && regs as usize <= WMMA_MAX_REGS
        && per_lane > 0
        && size.is_multiple_of(per_lane)
        && (1..=32).contains(&(size / per_lane))
        && 32u32.is_multiple_of(size / per_lane)
}

/// Position of element `e` (register `e / per_reg`, slot `e % per_reg`) of `lane`'s fragment of
/// an `rows x cols` matrix with `per_lane` elements per lane.
pub fn wmma_elem(rows: u32, cols: u32, per_lane: u32, lane: u32, e: u32) -> Elem {
    let unique = (rows * cols / per_lane.max(1)).max(1);
    let idx = (lane % unique) * per_lane + e;
    debug_assert!(idx < rows * cols);
    Elem {
        row: idx / cols,
        col: idx % cols,
    }
}

/// The bits of element `e` of a fragment given as registers (`regs[r][lane]`).
pub fn wmma_get(regs: &[[u64; 32]], ty: WmmaType, lane: usize, e: u32) -> u32 {
    let p = ty.per_reg();
    let r = regs[(e / p) as usize][lane] as u32;
    if p == 1 {
        r
    } else {
        (r >> (ty.bits() * (e % p))) & ((1u32 << ty.bits()) - 1)
    }
}

/// Sets element `e` of a fragment given as registers.
pub fn wmma_set(regs: &mut [[u64; 32]], ty: WmmaType, lane: usize, e: u32, bits: u32) {
    let p = ty.per_reg();
    let reg = &mut regs[(e / p) as usize][lane];
    if p == 1 {
        *reg = bits as u64;
    } else {
        let sh = ty.bits() * (e % p);
        let m = ((1u64 << ty.bits()) - 1) << sh;
        *reg = (*reg & !m) | (((bits as u64) << sh) & m);
    }
}

/// The most elements of a `wmma` matrix (32 x 16).
pub const WMMA_MAX_ELEMS: usize = 512;

/// The most registers of a `wmma` fragment.
pub const WMMA_MAX_REGS: usize = 8;

/// The matrix a fragment holds (`rows x cols`, row-major, in the first `rows·cols` entries),
/// each element read from the lowest lane holding it.
pub fn wmma_gather(
    regs: &[[u64; 32]],
    ty: WmmaType,
    rows: u32,
    cols: u32,
) -> [u32; WMMA_MAX_ELEMS] {
    let per_lane = regs.len() as u32 * ty.per_reg();
    let unique = rows * cols / per_lane.max(1);
    let mut out = [0u32; WMMA_MAX_ELEMS];
    for lane in 0..unique {
        for e in 0..per_lane {
            let p = wmma_elem(rows, cols, per_lane, lane, e);
            out[(p.row * cols + p.col) as usize] = wmma_get(regs, ty, lane as usize, e);
        }
    }
    out
}

/// The fragment registers (the first `nregs` entries) holding a `rows x cols` matrix
/// (row-major).
pub fn wmma_scatter(
    m: &[u32],
    ty: WmmaType,
    rows: u32,
    cols: u32,
    nregs: usize,
) -> [[u64; 32]; WMMA_MAX_REGS] {
    let per_lane = nregs as u32 * ty.per_reg();
    let mut regs = [[0u64; 32]; WMMA_MAX_REGS];
    for lane in 0..32u32 {
        for e in 0..per_lane {
            let p = wmma_elem(rows, cols, per_lane, lane, e);
            wmma_set(
                &mut regs,
                ty,
                lane as usize,
                e,
                m[(p.row * cols + p.col) as usize],
            );
        }
    }
    regs
}

fn float_value(ty: WmmaType, bits: u32) -> f64 {
    match ty {
        WmmaType::F16 => to_f64(F16, bits as u64),
        WmmaType::Bf16 => to_f64(BF16, bits as u64),
        WmmaType::Tf32 => f32::from_bits(bits & 0xffff_e000) as f64,
        _ => f32::from_bits(bits) as f64,
    }
}

fn int_value(ty: WmmaType, bits: u32) -> i64 {
    match ty {
        WmmaType::S8 => bits as u8 as i8 as i64,
        WmmaType::U8 => bits as u8 as i64,
        _ => bits as i32 as i64,
    }
}

/// The operands and result types of one `wmma.mma`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WmmaMma {
    /// Rows of A, C and D.
    pub m: u32,
    /// Columns of B, C and D.
    pub n: u32,
    /// Columns of A, rows of B.
    pub k: u32,
    /// Element type of A.
    pub a: WmmaType,
    /// Element type of B.
    pub b: WmmaType,
    /// Element type of C.
    pub c: WmmaType,
    /// Element type of D.
    pub d: WmmaType,
    /// `.satfinite`: clamp instead of overflowing.
    pub satfinite: bool,
}

/// `wmma.mma.sync.aligned`: D = A·B + C for a whole warp; fragments as registers
/// (`regs[r][lane]`), D in the first `d_regs` registers of the result.
pub fn wmma_mma(
    op: WmmaMma,
    a: &[[u64; 32]],
    b: &[[u64; 32]],
    c: &[[u64; 32]],
    d_regs: usize,
) -> [[u64; 32]; WMMA_MAX_REGS] {
    let (m, n, k) = (op.m, op.n, op.k);
    let am = wmma_gather(a, op.a, m, k);
    let bm = wmma_gather(b, op.b, k, n);
    let cm = wmma_gather(c, op.c, m, n);
    let mut dm = [0u32; WMMA_MAX_ELEMS];
    for i in 0..m {
        for j in 0..n {
            let at = (i * n + j) as usize;
            dm[at] = if op.a.integer() {
                let mut acc = int_value(op.c, cm[at]);
                for kk in 0..k {
                    acc += int_value(op.a, am[(i * k + kk) as usize])
                        * int_value(op.b, bm[(kk * n + j) as usize]);
                }
                if op.satfinite {
                    acc.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32
                } else {
                    acc as u32
                }
            } else {
                let mut acc = float_value(op.c, cm[at]);
                for kk in 0..k {
                    acc += float_value(op.a, am[(i * k + kk) as usize])
                        * float_value(op.b, bm[(kk * n + j) as usize]);
                }
                let f = if op.d == WmmaType::F16 { F16 } else { F32 };
                if acc.is_nan() {
                    f.canonical_nan as u32
                } else {
                    let ovf = if op.satfinite {
                        Overflow::SatFinite
                    } else {
                        Overflow::Ieee
                    };
                    round::convert(F64, f, acc.to_bits(), Rnd::Rn, ovf) as u32
                }
            };
        }
    }
    wmma_scatter(&dm, op.d, m, n, d_regs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_a_bijection_or_an_even_copy() {
        for (rows, cols, ty, regs) in [
            (16, 16, WmmaType::F16, 8),
            (16, 16, WmmaType::Bf16, 4),
            (16, 16, WmmaType::F32, 8),
            (16, 16, WmmaType::F16, 4),
            (32, 16, WmmaType::F16, 8),
            (8, 16, WmmaType::F16, 8),
            (16, 8, WmmaType::Tf32, 4),
            (16, 16, WmmaType::S8, 2),
        ] {
            assert!(
                wmma_fits(rows, cols, ty, regs),
                "{rows}x{cols} {ty:?} {regs}"
            );
            let m: Vec<u32> = (0..rows * cols)
                .map(|v| v & ((1u64 << ty.bits()) - 1) as u32)
                .collect();
            let regs_v = wmma_scatter(&m, ty, rows, cols, regs as usize);
            let back = wmma_gather(&regs_v[..regs as usize], ty, rows, cols);
            assert_eq!(&back[..m.len()], &m[..]);
        }
        assert!(!wmma_fits(16, 16, WmmaType::F32, 3));
    }

    #[test]
    fn mma_matches_a_plain_product() {
        let (m, n, k) = (16u32, 16u32, 16u32);
        let h = |v: f64| round::convert(F64, F16, v.to_bits(), Rnd::Rn, Overflow::Ieee) as u32;
        let am: Vec<u32> = (0..m * k).map(|i| h(((i * 7) % 9) as f64 - 4.0)).collect();
        let bm: Vec<u32> = (0..k * n).map(|i| h(((i * 5) % 7) as f64 - 3.0)).collect();
        let cm: Vec<u32> = (0..m * n).map(|i| (i as f32 * 0.25).to_bits()).collect();
        let a = wmma_scatter(&am, WmmaType::F16, m, k, 8);
        let b = wmma_scatter(&bm, WmmaType::F16, k, n, 8);
        let c = wmma_scatter(&cm, WmmaType::F32, m, n, 8);
        let op = WmmaMma {
            m,
            n,
            k,
            a: WmmaType::F16,
            b: WmmaType::F16,
            c: WmmaType::F32,
            d: WmmaType::F32,
            satfinite: false,
        };
        let d = wmma_gather(&wmma_mma(op, &a, &b, &c, 8), WmmaType::F32, m, n);
        assert!(d[(m * n) as usize..].iter().all(|&x| x == 0));
        for i in 0..m {
            for j in 0..n {
                let mut want = i as f64 * 0.0 + ((i * n + j) as f64) * 0.25;
                for kk in 0..k {
                    want += (((i * k + kk) * 7 % 9) as f64 - 4.0)
                        * (((kk * n + j) * 5 % 7) as f64 - 3.0);
                }
                assert_eq!(f32::from_bits(d[(i * n + j) as usize]) as f64, want);
            }
        }
    }
}
