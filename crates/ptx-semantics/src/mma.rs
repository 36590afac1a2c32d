//! Warp-level matrix instructions: `mma.sync` fragment layouts and arithmetic, and `ldmatrix`
//! (PTX ISA §"Matrix Fragments for mma.m16n8k16 with floating point type", §"… mma.m16n8k8",
//! §"ldmatrix").
//!
//! Fragments are given per lane as register bits: `a[lane][r]`, `b[lane][r]`, `c[lane][r]`
//! (unused trailing registers are ignored). Within a `.f16x2`/`.bf16x2` register the element with
//! the lower index sits in bits `[15:0]`.
//!
//! Arithmetic (the ISA fixes the layouts, not the order or width of the accumulation; hardware
//! tensor cores are not IEEE-sequential): every product `a·b` is exact in `f64` (at most 22
//! significant bits); `d = c + Σ_k a[m][k]·b[k][n]` is accumulated in `f64` in increasing `k`
//! starting from `c`, then rounded once to nearest-even into the destination type. Inputs whose
//! products are exactly representable and whose sums stay within 53 bits (the corpus' integer
//! and quarter-valued data) give the exact result, as on hardware. `.tf32` operands use the upper
//! 19 bits of their `.b32` registers (the low 13 bits are ignored). NaN results are canonical.

use crate::half::table_16;
use crate::round::{self, Format, Overflow, Rnd, BF16, F16, F32, F64};
use std::sync::OnceLock;

/// The `mma.sync.aligned` shapes and types implemented.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MmaKind {
    /// `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`
    M16n8k16F32F16,
    /// `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`
    M16n8k16F32Bf16,
    /// `mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16`
    M16n8k16F16F16,
    /// `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32`
    M16n8k8F32Tf32,
    /// `mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32`
    M16n8k8F32F16,
    /// `mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32`
    M16n8k8F32Bf16,
    /// `mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16`
    M16n8k8F16F16,
    /// `mma.sync.aligned.m16n8k32.row.col{.satfinite}.s32.{s8,u8}.{s8,u8}.s32`: A and B hold
    /// four 8-bit integers per `.b32` register (signed or unsigned per operand), C/D `.s32`.
    M16n8k32S32I8 {
        /// A is `.s8` (else `.u8`).
        a_signed: bool,
        /// B is `.s8` (else `.u8`).
        b_signed: bool,
        /// `.satfinite`: clamp to the `.s32` range instead of wrapping.
        satfinite: bool,
    },
    /// `mma.sync.aligned.m16n8k16.row.col{.satfinite}.s32.{s8,u8}.{s8,u8}.s32`.
    M16n8k16S32I8 {
        /// A is `.s8` (else `.u8`).
        a_signed: bool,
        /// B is `.s8` (else `.u8`).
        b_signed: bool,
        /// `.satfinite`: clamp to the `.s32` range instead of wrapping.
        satfinite: bool,
    },
}

/// Where one fragment element lives in its matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Elem {
    /// Row in the matrix (A: `m`, B: `k`, C/D: `m`).
    pub row: u32,
    /// Column in the matrix (A: `k`, B: `n`, C/D: `n`).
    pub col: u32,
}

impl MmaKind {
    /// `K` of the shape (`M = 16`, `N = 8` for all kinds here).
    pub const fn k(self) -> u32 {
        match self {
            MmaKind::M16n8k16F32F16
            | MmaKind::M16n8k16F32Bf16
            | MmaKind::M16n8k16F16F16
            | MmaKind::M16n8k16S32I8 { .. } => 16,
            MmaKind::M16n8k32S32I8 { .. } => 32,
            _ => 8,
        }
    }
    /// Element format of A and B.
    pub const fn ab_format(self) -> Format {
        match self {
            MmaKind::M16n8k16F32Bf16 | MmaKind::M16n8k8F32Bf16 => BF16,
            MmaKind::M16n8k8F32Tf32 => F32,
            _ => F16,
        }
    }
    /// Whether C/D are `.f16` (packed `.f16x2`, 2 registers) rather than `.f32` (4 registers).
    pub const fn f16_accumulator(self) -> bool {
        matches!(self, MmaKind::M16n8k16F16F16 | MmaKind::M16n8k8F16F16)
    }
    /// Whether A and B are 8-bit integers (C/D `.s32`).
    pub const fn integer(self) -> bool {
        matches!(
            self,
            MmaKind::M16n8k32S32I8 { .. } | MmaKind::M16n8k16S32I8 { .. }
        )
    }
    const fn per_reg(self) -> u32 {
        match self {
            MmaKind::M16n8k8F32Tf32 => 1,
            MmaKind::M16n8k32S32I8 { .. } | MmaKind::M16n8k16S32I8 { .. } => 4,
            _ => 2,
        }
    }
    /// A elements per lane (`M·K/32`).
    pub const fn a_elems(self) -> u32 {
        16 * self.k() / 32
    }
    /// B elements per lane (`K·N/32`).
    pub const fn b_elems(self) -> u32 {
        self.k() * 8 / 32
    }
    /// Registers per lane holding A, B and C/D.
    pub const fn regs(self) -> (u32, u32, u32) {
        let p = self.per_reg();
        (
            self.a_elems() / p,
            self.b_elems() / p,
            if self.f16_accumulator() { 2 } else { 4 },
        )
    }

    /// Position of A element `i` (register `i / per_reg`, half `i % per_reg`) of `lane`.
    pub fn a_elem(self, lane: u32, i: u32) -> Elem {
        let (g, t) = (lane / 4 % 8, lane % 4);
        if self.integer() {
            // PTX ISA §"Matrix Fragments for mma.m16n8k32" / "mma.m16n8k16" (.s8/.u8): register
            // r holds rows g (r even) or g+8 (r odd), four consecutive columns from 4t (+16 for
            // the second pair of registers of k32).
            return Elem {
                row: g + if (i / 4) % 2 == 1 { 8 } else { 0 },
                col: t * 4 + (i & 3) + if i >= 8 { 16 } else { 0 },
            };
        }
        match self.k() {
            16 => Elem {
                row: g + if matches!(i, 2 | 3 | 6 | 7) { 8 } else { 0 },
                col: t * 2 + (i & 1) + if i >= 4 { 8 } else { 0 },
            },
            _ if self == MmaKind::M16n8k8F32Tf32 => Elem {
                row: g + if i == 1 || i == 3 { 8 } else { 0 },
                col: t + if i >= 2 { 4 } else { 0 },
            },
            _ => Elem {
                row: g + if i >= 2 { 8 } else { 0 },
                col: t * 2 + (i & 1),
            },
        }
    }

    /// Position (`row = k`, `col = n`) of B element `i` of `lane`.
    pub fn b_elem(self, lane: u32, i: u32) -> Elem {
        let (g, t) = (lane / 4 % 8, lane % 4);
        if self.integer() {
            return Elem {
                row: t * 4 + (i & 3) + if i >= 4 { 16 } else { 0 },
                col: g,
            };
        }
        match self.k() {
            16 => Elem {
                row: t * 2 + (i & 1) + if i >= 2 { 8 } else { 0 },
                col: g,
            },
            _ if self == MmaKind::M16n8k8F32Tf32 => Elem {
                row: t + if i == 1 { 4 } else { 0 },
                col: g,
            },
            _ => Elem {
                row: t * 2 + i,
                col: g,
            },
        }
    }

    /// Position of C/D element `i` (0..4) of `lane` (for `.f16` accumulators element `i` is in
    /// register `i / 2`, half `i % 2`; for `.f32` in register `i`).
    pub fn c_elem(self, lane: u32, i: u32) -> Elem {
        let (g, t) = (lane / 4 % 8, lane % 4);
        Elem {
            row: g + if i >= 2 { 8 } else { 0 },
            col: t * 2 + (i & 1),
        }
    }
}

#[inline]
fn elem_bits(regs: &[u32], per_reg: u32, i: u32) -> u32 {
    let r = regs[(i / per_reg) as usize];
    match per_reg {
        1 => r,
        4 => (r >> (8 * (i % 4))) & 0xff,
        _ => (r >> (16 * (i % 2))) & 0xffff,
    }
}

/// The integer shapes of [`mma_sync`]: exact 64-bit accumulation of `c + Σ a·b`, then wrapped to
/// 32 bits, or with `.satfinite` clamped to the `.s32` range.
fn mma_sync_int(
    kind: MmaKind,
    a: &[[u32; 4]; 32],
    b: &[[u32; 2]; 32],
    c: &[[u32; 4]; 32],
) -> [[u32; 4]; 32] {
    let (a_signed, b_signed, satfinite) = match kind {
        MmaKind::M16n8k32S32I8 {
            a_signed,
            b_signed,
            satfinite,
        }
        | MmaKind::M16n8k16S32I8 {
            a_signed,
            b_signed,
            satfinite,
        } => (a_signed, b_signed, satfinite),
        _ => unreachable!("integer mma kind"),
    };
    let val = |bits: u32, signed: bool| -> i64 {
        if signed {
            bits as u8 as i8 as i64
        } else {
            bits as u8 as i64
        }
    };
    let k = kind.k() as usize;
    let mut am = [[0i64; 32]; 16];
    let mut bm = [[0i64; 8]; 32];
    for lane in 0..32u32 {
        let l = lane as usize;
        for i in 0..kind.a_elems() {
            let e = kind.a_elem(lane, i);
            am[e.row as usize][e.col as usize] = val(elem_bits(&a[l], 4, i), a_signed);
        }
        for i in 0..kind.b_elems() {
            let e = kind.b_elem(lane, i);
            bm[e.row as usize][e.col as usize] = val(elem_bits(&b[l], 4, i), b_signed);
        }
    }
    let mut d = [[0u32; 4]; 32];
    for lane in 0..32u32 {
        let l = lane as usize;
        for i in 0..4 {
            let e = kind.c_elem(lane, i);
            let (r, n) = (e.row as usize, e.col as usize);
            let mut acc = c[l][i as usize] as i32 as i64;
            for kk in 0..k {
                acc += am[r][kk] * bm[kk][n];
            }
            d[l][i as usize] = if satfinite {
                acc.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32
            } else {
                acc as u32
            };
        }
    }
    d
}

/// Executes `mma.sync.aligned` for a whole warp: `a`, `b`, `c` are each lane's fragment registers
/// (see [`MmaKind::regs`] for how many are used), the result is each lane's D registers.
pub fn mma_sync(
    kind: MmaKind,
    a: &[[u32; 4]; 32],
    b: &[[u32; 2]; 32],
    c: &[[u32; 4]; 32],
) -> [[u32; 4]; 32] {
    mma_sync_body(kind, a, b, c)
}

/// [`mma_sync`] compiled for AVX2 (the eight sums of a row in two 256-bit registers): the
/// same operations in the same order, so the same bits (Rust never fuses a multiply and an
/// add into an FMA on its own).
///
/// # Safety
///
/// Call it only where the CPU has AVX2 (`is_x86_feature_detected!("avx2")`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub fn mma_sync_avx2(
    kind: MmaKind,
    a: &[[u32; 4]; 32],
    b: &[[u32; 2]; 32],
    c: &[[u32; 4]; 32],
) -> [[u32; 4]; 32] {
    mma_sync_body(kind, a, b, c)
}

/// [`mma_sync`] compiled for AVX-512 (a row's eight sums in one register); same bits.
///
/// # Safety
///
/// Call it only where the CPU has AVX-512F (`is_x86_feature_detected!("avx512f")`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
pub fn mma_sync_avx512(
    kind: MmaKind,
    a: &[[u32; 4]; 32],
    b: &[[u32; 2]; 32],
    c: &[[u32; 4]; 32],
) -> [[u32; 4]; 32] {
    mma_sync_body(kind, a, b, c)
}

#[inline(always)]
fn mma_sync_body(
    kind: MmaKind,
    a: &[[u32; 4]; 32],
    b: &[[u32; 2]; 32],
    c: &[[u32; 4]; 32],
) -> [[u32; 4]; 32] {
    if kind.integer() {
        return mma_sync_int(kind, a, b, c);
    }
    let k = kind.k() as usize;
    let f = kind.ab_format();
    let p = kind.per_reg();
    let lay = FloatLayout::of(kind);
    let (na, nb) = (kind.a_elems() as usize, kind.b_elems() as usize);
    let mut am = [[0f64; 16]; 16];
    let mut bm = [[0f64; 8]; 16];
    let mut cm = [[0f64; 8]; 16];
    let f16_table = table_16(F16);
    if kind == MmaKind::M16n8k8F32Tf32 {
        // `.tf32`: one element per register, its upper 19 bits.
        let val = |bits: u32| f32::from_bits(bits & 0xffff_e000) as f64;
        for l in 0..32 {
            for (i, &(row, col)) in lay.a[l][..na].iter().enumerate() {
                am[row as usize][col as usize] = val(elem_bits(&a[l], p, i as u32));
            }
            for (i, &(row, col)) in lay.b[l][..nb].iter().enumerate() {
                bm[row as usize][col as usize] = val(elem_bits(&b[l], p, i as u32));
            }
        }
    } else {
        // Exact element values by table (`half::table_16` = `to_f64` of every pattern); two
        // 16-bit elements per register, the lower index in bits [15:0].
        let t = table_16(f);
        let half = |regs: &[u32], i: usize| (regs[i / 2] >> (16 * (i % 2))) as u16 as usize;
        for l in 0..32 {
            for (i, &(row, col)) in lay.a[l][..na].iter().enumerate() {
                am[row as usize][col as usize] = t[half(&a[l], i)];
            }
            for (i, &(row, col)) in lay.b[l][..nb].iter().enumerate() {
                bm[row as usize][col as usize] = t[half(&b[l], i)];
            }
        }
    }
    for l in 0..32 {
        for (i, &(row, col)) in lay.c[l].iter().enumerate() {
            cm[row as usize][col as usize] = if kind.f16_accumulator() {
                f16_table[elem_bits(&c[l], 2, i as u32) as usize]
            } else {
                f32::from_bits(c[l][i]) as f64
            };
        }
    }
    // The eight sums of a row run side by side (independent chains the CPU overlaps); each
    // one still adds its products to `c` in increasing `k`, so the bits are unchanged.
    let mut dm = cm;
    for (out, a_row) in dm.iter_mut().zip(&am) {
        // A local copy keeps the eight sums in registers across the `k` loop.
        let mut acc = *out;
        for (&a, b_row) in a_row.iter().zip(&bm).take(k) {
            for (x, &b) in acc.iter_mut().zip(b_row) {
                *x += a * b;
            }
        }
        *out = acc;
    }
    let mut d = [[0u32; 4]; 32];
    for (l, d_lane) in d.iter_mut().enumerate() {
        for (i, &(row, col)) in lay.c[l].iter().enumerate() {
            let acc = dm[row as usize][col as usize];
            if kind.f16_accumulator() {
                let h = round_acc(F16, acc);
                d_lane[i / 2] |= h << (16 * (i % 2));
            } else {
                d_lane[i] = round_acc(F32, acc);
            }
        }
    }
    d
}

/// Where each lane's fragment elements sit in A, B and C/D (`(row, col)` as [`MmaKind::a_elem`],
/// [`MmaKind::b_elem`] and [`MmaKind::c_elem`] give them) for the floating-point kinds, computed
/// once per layout: placing 512 elements per warp instruction through those functions was half
/// of `mma_sync`'s time.
struct FloatLayout {
    a: [[(u8, u8); 8]; 32],
    b: [[(u8, u8); 4]; 32],
    c: [[(u8, u8); 4]; 32],
}

impl FloatLayout {
    /// The layout of a floating-point `kind` (three exist: `k16`, `k8` and `k8.tf32`).
    fn of(kind: MmaKind) -> &'static FloatLayout {
        static LAYOUTS: OnceLock<[FloatLayout; 3]> = OnceLock::new();
        let all = LAYOUTS.get_or_init(|| {
            [
                MmaKind::M16n8k16F32F16,
                MmaKind::M16n8k8F32F16,
                MmaKind::M16n8k8F32Tf32,
            ]
            .map(FloatLayout::build)
        });
        match (kind.k(), kind) {
            (16, _) => &all[0],
            (_, MmaKind::M16n8k8F32Tf32) => &all[2],
            _ => &all[1],
        }
    }

    fn build(kind: MmaKind) -> FloatLayout {
        let at = |e: Elem| (e.row as u8, e.col as u8);
        let mut lay = FloatLayout {
            a: [[(0, 0); 8]; 32],
            b: [[(0, 0); 4]; 32],
            c: [[(0, 0); 4]; 32],
        };
        for lane in 0..32u32 {
            let l = lane as usize;
            for i in 0..kind.a_elems() {
                lay.a[l][i as usize] = at(kind.a_elem(lane, i));
            }
            for i in 0..kind.b_elems() {
                lay.b[l][i as usize] = at(kind.b_elem(lane, i));
            }
            for i in 0..4 {
                lay.c[l][i as usize] = at(kind.c_elem(lane, i));
            }
        }
        lay
    }
}

#[inline]
fn round_acc(f: Format, acc: f64) -> u32 {
    if acc.is_nan() {
        f.canonical_nan as u32
    } else if f == F32 {
        // `as f32` rounds to nearest-even with IEEE overflow to ±∞: the same bits as
        // `round::convert(F64, F32, …, Rn, Ieee)` (property `f64_to_f32_conversion_equals_native`
        // in tests/props.rs), without the generic unpack/round.
        (acc as f32).to_bits()
    } else {
        round::convert(F64, f, acc.to_bits(), Rnd::Rn, Overflow::Ieee) as u32
    }
}

/// `ldmatrix.sync.aligned.m8n8{.x1,.x2,.x4}{.trans}.shared.b16`: for destination register `reg`
/// (matrix `reg`) and half `half` (0 = bits `[15:0]`) of `lane`, returns `(row_lane, col)`: the
/// element is the 16-bit value at `row_addr[row_lane] + 2·col`. Lanes `8·m … 8·m+7` supply the
/// eight row addresses of matrix `m`. Without `.trans` lane `l` receives row `l/4`, columns
/// `2·(l%4)` and `+1`; with `.trans` it receives column `l/4`, rows `2·(l%4)` and `+1`.
#[inline]
pub fn ldmatrix_source(trans: bool, lane: u32, reg: u32, half: u32) -> (u32, u32) {
    let lane = lane & 31;
    let m = reg & 3;
    if trans {
        (8 * m + 2 * (lane % 4) + (half & 1), lane / 4)
    } else {
        (8 * m + lane / 4, 2 * (lane % 4) + (half & 1))
    }
}

/// Executes `ldmatrix` for a warp with `num` (1, 2 or 4) matrices: `row_addr[l]` is lane `l`'s
/// address operand, `read_b16` reads shared memory (its error — e.g. an out-of-bounds address —
/// is passed through). Registers past `num` are left 0.
pub fn ldmatrix<E>(
    num: u32,
    trans: bool,
    row_addr: &[u64; 32],
    mut read_b16: impl FnMut(u64) -> Result<u16, E>,
) -> Result<[[u32; 4]; 32], E> {
    let mut d = [[0u32; 4]; 32];
    for lane in 0..32u32 {
        for reg in 0..num.min(4) {
            let mut v = 0u32;
            for half in 0..2 {
                let (src, col) = ldmatrix_source(trans, lane, reg, half);
                let x = read_b16(row_addr[src as usize].wrapping_add(2 * col as u64))?;
                v |= (x as u32) << (16 * half);
            }
            d[lane as usize][reg as usize] = v;
        }
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fragments of `mma.m16n8k32` with `.s8/.u8` built from the ISA's layout tables
    /// (§"Matrix Fragments for mma.m16n8k32"), independently of `a_elem`/`b_elem`: A register
    /// `r` holds row `g + 8 (r % 2)`, columns `4t + 16 (r / 2) .. +3` (byte `j` = column `+j`); B
    /// register `r` holds rows `4t + 16 r .. +3` of column `g`; D element `i` is row
    /// `g + 8 (i / 2)`, column `2t + i % 2`.
    fn run_k32(
        a: &[[i64; 32]; 16],
        b: &[[i64; 8]; 32],
        c: i32,
        signed: bool,
        sat: bool,
    ) -> Vec<i64> {
        let mut fa = [[0u32; 4]; 32];
        let mut fb = [[0u32; 2]; 32];
        let fc = [[c as u32; 4]; 32];
        for lane in 0..32usize {
            let (g, t) = (lane / 4, lane % 4);
            for r in 0..4 {
                for j in 0..4 {
                    let v = a[g + 8 * (r % 2)][4 * t + 16 * (r / 2) + j] as u8 as u32;
                    fa[lane][r] |= v << (8 * j);
                }
            }
            for r in 0..2 {
                for j in 0..4 {
                    let v = b[4 * t + 16 * r + j][g] as u8 as u32;
                    fb[lane][r] |= v << (8 * j);
                }
            }
        }
        let kind = MmaKind::M16n8k32S32I8 {
            a_signed: signed,
            b_signed: signed,
            satfinite: sat,
        };
        let d = mma_sync(kind, &fa, &fb, &fc);
        let mut out = vec![0i64; 16 * 8];
        for (lane, regs) in d.iter().enumerate() {
            let (g, t) = (lane / 4, lane % 4);
            for (i, &v) in regs.iter().enumerate() {
                out[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = v as i32 as i64;
            }
        }
        out
    }

    #[test]
    fn integer_m16n8k32_matches_a_plain_matmul() {
        let mut a = [[0i64; 32]; 16];
        let mut b = [[0i64; 8]; 32];
        for (m, row) in a.iter_mut().enumerate() {
            for (k, x) in row.iter_mut().enumerate() {
                *x = ((m * 37 + k * 11) % 256) as i64 - 128;
            }
        }
        for (k, row) in b.iter_mut().enumerate() {
            for (n, x) in row.iter_mut().enumerate() {
                *x = ((k * 53 + n * 29 + 7) % 256) as i64 - 128;
            }
        }
        let got = run_k32(&a, &b, -1000, true, false);
        for m in 0..16 {
            for n in 0..8 {
                let want: i64 = -1000 + (0..32).map(|k| a[m][k] * b[k][n]).sum::<i64>();
                assert_eq!(got[m * 8 + n], want, "s8 D[{m}][{n}]");
            }
        }
        // The same bytes as .u8: each value + 256 when negative.
        let u = |x: i64| if x < 0 { x + 256 } else { x };
        let got = run_k32(&a, &b, 5, false, false);
        for m in 0..16 {
            for n in 0..8 {
                let want: i64 = 5 + (0..32).map(|k| u(a[m][k]) * u(b[k][n])).sum::<i64>();
                assert_eq!(got[m * 8 + n], want, "u8 D[{m}][{n}]");
            }
        }
    }

    #[test]
    fn integer_mma_satfinite_clamps_and_plain_wraps() {
        let a = [[127i64; 32]; 16];
        let b = [[127i64; 8]; 32];
        let sum = 32 * 127 * 127;
        let c = i32::MAX - 10;
        let sat = run_k32(&a, &b, c, true, true);
        assert!(sat.iter().all(|&v| v == i32::MAX as i64));
        let wrap = run_k32(&a, &b, c, true, false);
        let want = (c as i64 + sum) as i32 as i64;
        assert!(wrap.iter().all(|&v| v == want));
    }
}
