//! `wgmma.mma_async` with both operands in shared memory, addressed through 64-bit matrix
//! descriptors (PTX ISA §"Asynchronous Warpgroup Level Matrix Shared Memory Layout", "Matrix
//! Descriptor Format", "Register Fragments and Shared Memory Matrix Layouts" for
//! `wgmma.m64nNk16` / `m64nNk8`).
//!
//! **Descriptor** (64 bits): start address `[13:0]`, leading-dimension byte offset `[29:16]`,
//! stride-dimension byte offset `[45:32]` (each `>> 4`, i.e. in 16-byte units), matrix base
//! offset `[51:49]`, swizzle mode `[63:62]` (0 none, 1 128-byte, 2 64-byte, 3 32-byte).
//!
//! **Layouts**, with `W` the swizzle width (16 bytes for "none"), `e` the element size and all
//! offsets in bytes before swizzling (the canonical layouts of the ISA's "Shared Memory Matrix
//! Layout" figures, written as CuTe shapes/strides in 16-byte units in CUTLASS' `make_gmma_desc`):
//!
//! * K-major (no transpose), core matrices of 8 rows: row `mn` at `(mn%8)·W + (mn/8)·SBO`; the
//!   K bytes `kb = k·e` are contiguous inside a `W`-byte row for the swizzled modes, and for
//!   no swizzle in 16-byte chunks `kb%16 + (kb/16)·LBO`.
//! * MN-major (`imm-trans = 1`): K row `k` at `(k%8)·W + (k/8)·SBO` (swizzled) or
//!   `(k%8)·16 + (k/8)·LBO` (none); the MN bytes `mb = mn·e` are contiguous within `W` bytes and
//!   the next `W`-byte group is `LBO` away (swizzled) or `SBO` away per 16 bytes (none).
//! * Swizzling XORs address bits `[4, 4+B)` with bits `[7, 7+B)` of the shared-memory address
//!   (`B = 1, 2, 3` for 32/64/128 bytes); buffers are aligned to the pattern's repeat (256, 512,
//!   1024 bytes). A non-zero base offset (for unaligned patterns) is rejected with an error.
//!
//! **Accumulator** D (`.f32`): thread `t` of the warpgroup (warp `w = t/32`, `g = lane/4`,
//! `q = lane%4`) holds `N/2` registers; register `i` is row `16w + g + 8·((i%4)/2)`, column
//! `8·(i/4) + 2q + (i%2)` — the `mma.m16n8` C layout repeated over `N/8` column blocks.
//! Arithmetic as [`crate::mma`]: exact products, `f64` accumulation in increasing `k` starting
//! from D (or 0 when `scale-d` is false), one rounding to `.f32`. `imm-scale-a/b = -1` negates A/B.

use crate::half::to_f64;
use crate::round::{self, Overflow, Rnd, BF16, E4M3, E5M2, F16, F32, F64};

/// Swizzle mode of a matrix descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Swizzle {
    /// No swizzling ("interleave": 8×16-byte core matrices).
    None,
    /// 32-byte swizzle.
    B32,
    /// 64-byte swizzle.
    B64,
    /// 128-byte swizzle.
    B128,
}

impl Swizzle {
    /// Row width `W` of the pattern in bytes (16 for no swizzle).
    pub const fn width(self) -> u32 {
        match self {
            Swizzle::None => 16,
            Swizzle::B32 => 32,
            Swizzle::B64 => 64,
            Swizzle::B128 => 128,
        }
    }
    /// Applies the XOR pattern to a shared-memory byte address.
    #[inline]
    pub const fn apply(self, addr: u32) -> u32 {
        let b = match self {
            Swizzle::None => return addr,
            Swizzle::B32 => 1,
            Swizzle::B64 => 2,
            Swizzle::B128 => 3,
        };
        addr ^ (((addr >> 7) & ((1 << b) - 1)) << 4)
    }
}

/// A decoded wgmma shared-memory matrix descriptor (byte quantities).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MatrixDescriptor {
    /// Start address in shared memory (bytes).
    pub start: u32,
    /// Leading-dimension byte offset.
    pub lbo: u32,
    /// Stride-dimension byte offset.
    pub sbo: u32,
    /// Matrix base offset (bits `[51:49]`).
    pub base_offset: u8,
    /// Swizzle mode.
    pub swizzle: Swizzle,
}

impl MatrixDescriptor {
    /// Decodes the 64-bit descriptor.
    pub const fn decode(d: u64) -> MatrixDescriptor {
        MatrixDescriptor {
            start: ((d & 0x3fff) << 4) as u32,
            lbo: (((d >> 16) & 0x3fff) << 4) as u32,
            sbo: (((d >> 32) & 0x3fff) << 4) as u32,
            base_offset: ((d >> 49) & 7) as u8,
            swizzle: match d >> 62 {
                0 => Swizzle::None,
                1 => Swizzle::B128,
                2 => Swizzle::B64,
                _ => Swizzle::B32,
            },
        }
    }

    /// Shared-memory byte address of element (`mn`, `k`) of an operand with `elem_bytes`-byte
    /// elements, K-major (`mn_major == false`) or MN-major (transposed).
    #[inline]
    pub fn element_address(&self, mn_major: bool, elem_bytes: u32, mn: u32, k: u32) -> u32 {
        let w = self.swizzle.width();
        let off = if !mn_major {
            let kb = k * elem_bytes;
            let row = (mn % 8) * w + (mn / 8) * self.sbo;
            if self.swizzle == Swizzle::None {
                row + kb % 16 + (kb / 16) * self.lbo
            } else {
                row + kb
            }
        } else {
            let mb = mn * elem_bytes;
            if self.swizzle == Swizzle::None {
                (k % 8) * 16 + (k / 8) * self.lbo + mb % 16 + (mb / 16) * self.sbo
            } else {
                (k % 8) * w + (k / 8) * self.sbo + mb % w + (mb / w) * self.lbo
            }
        };
        self.swizzle.apply(self.start.wrapping_add(off))
    }
}

/// The A/B element type of a `wgmma.mma_async` (`.f32` accumulators for the float types,
/// `.s32` for the integer ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WgmmaType {
    /// `m64nNk16.f32.f16.f16`
    F16,
    /// `m64nNk16.f32.bf16.bf16`
    Bf16,
    /// `m64nNk8.f32.tf32.tf32` (K-major only)
    Tf32,
    /// `m64nNk32.f32.e4m3.{e4m3,e5m2}` (K-major only)
    E4m3,
    /// `m64nNk32.f32.e5m2.{e4m3,e5m2}` (K-major only)
    E5m2,
    /// `m64nNk32.s32.s8.{s8,u8}` (K-major only)
    S8,
    /// `m64nNk32.s32.u8.{s8,u8}` (K-major only)
    U8,
}

impl WgmmaType {
    /// `K` of the shape.
    pub const fn k(self) -> u32 {
        match self {
            WgmmaType::Tf32 => 8,
            WgmmaType::F16 | WgmmaType::Bf16 => 16,
            _ => 32,
        }
    }
    /// Element size in bytes.
    pub const fn elem_bytes(self) -> u32 {
        match self {
            WgmmaType::Tf32 => 4,
            WgmmaType::F16 | WgmmaType::Bf16 => 2,
            _ => 1,
        }
    }
    /// Whether the operand is an 8-bit integer (`.s32` accumulators).
    pub const fn integer(self) -> bool {
        matches!(self, WgmmaType::S8 | WgmmaType::U8)
    }
    fn value(self, bits: u32) -> f64 {
        match self {
            WgmmaType::F16 => to_f64(F16, bits as u64 & 0xffff),
            WgmmaType::Bf16 => to_f64(BF16, bits as u64 & 0xffff),
            WgmmaType::Tf32 => f32::from_bits(bits & 0xffff_e000) as f64,
            WgmmaType::E4m3 => to_f64(E4M3, bits as u64 & 0xff),
            WgmmaType::E5m2 => to_f64(E5M2, bits as u64 & 0xff),
            WgmmaType::S8 => bits as u8 as i8 as f64,
            WgmmaType::U8 => (bits & 0xff) as f64,
        }
    }
}

/// Operands of one `wgmma.mma_async` besides the descriptors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WgmmaOperands {
    /// `N` of `m64nNk*` (multiple of 8, 8..=256).
    pub n: u32,
    /// The `scale-d` predicate: `false` ignores the incoming D.
    pub scale_d: bool,
    /// `imm-scale-a` is `-1`.
    pub negate_a: bool,
    /// `imm-scale-b` is `-1`.
    pub negate_b: bool,
    /// `imm-trans-a` is 1 (A is MN-major); only for 16-bit types.
    pub trans_a: bool,
    /// `imm-trans-b` is 1 (B is MN-major); only for 16-bit types.
    pub trans_b: bool,
    /// `.f16` accumulators (`m64nNk16.f16.f16.f16`): `N/4` registers per thread, register `j`
    /// holding elements `2j` (bits `[15:0]`) and `2j+1` of the `.f32` layout.
    pub f16_accumulator: bool,
}

/// Why a `wgmma.mma_async` could not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WgmmaError<E> {
    /// `N` is not a multiple of 8 in `8..=256`.
    BadShape(u32),
    /// Transpose requested for `.tf32` or an 8-bit type (the ISA allows only K-major there).
    TransposeTf32,
    /// A and B are not both float or both integer types, or differ in size.
    MixedTypes,
    /// A descriptor has a non-zero matrix base offset (unaligned swizzle pattern); not modelled.
    BaseOffset(u8),
    /// The shared-memory read callback failed at this address.
    Read(E),
}

/// Shared-memory addresses the A operand of `wgmma` reads, in row-major (`m`, `k`) order; the
/// interpreter can use it for hazard tracking.
pub fn operand_address(desc: u64, ty: WgmmaType, mn_major: bool, mn: u32, k: u32) -> u32 {
    MatrixDescriptor::decode(desc).element_address(mn_major, ty.elem_bytes(), mn, k)
}

/// Position (row, column) of accumulator register `i` of warpgroup thread `tid` (0..128).
#[inline]
pub const fn d_elem(tid: u32, i: u32) -> (u32, u32) {
    let (w, lane) = (tid / 32 % 4, tid % 32);
    let (g, q) = (lane / 4, lane % 4);
    (
        16 * w + g + 8 * ((i % 4) / 2),
        8 * (i / 4) + 2 * q + (i % 2),
    )
}

/// Executes `wgmma.mma_async.sync.aligned.m64nNk{16,8}.f32.{f16,bf16,tf32}` for a warpgroup:
/// `d[tid][i]` are the 128 threads' accumulator registers (the first `N/2` of each row are used
/// and updated in place); `read_shared(addr, bytes)` reads 2 or 4 bytes of shared memory.
pub fn mma_async<E>(
    ty: WgmmaType,
    a_desc: u64,
    b_desc: u64,
    ops: WgmmaOperands,
    d: &mut [[u32; 128]; 128],
    read_shared: impl FnMut(u32, u32) -> Result<u32, E>,
) -> Result<(), WgmmaError<E>> {
    mma_async_mixed(ty, ty, false, a_desc, b_desc, ops, d, read_shared)
}

/// [`mma_async`] with A and B of possibly different types (`.e4m3`/`.e5m2`, `.s8`/`.u8`), and
/// the integer shapes `m64nNk32.s32.{s8,u8}.{s8,u8}{.satfinite}`: exact accumulation into the
/// `.s32` registers, wrapping, or clamped to the `.s32` range with `satfinite`.
#[allow(clippy::too_many_arguments)]
pub fn mma_async_mixed<E>(
    a_ty: WgmmaType,
    b_ty: WgmmaType,
    satfinite: bool,
    a_desc: u64,
    b_desc: u64,
    ops: WgmmaOperands,
    d: &mut [[u32; 128]; 128],
    read_shared: impl FnMut(u32, u32) -> Result<u32, E>,
) -> Result<(), WgmmaError<E>> {
    mma_async_any(
        a_ty,
        b_ty,
        satfinite,
        AOperand::Shared(a_desc),
        b_desc,
        ops,
        d,
        read_shared,
    )
}

/// Where the A operand of a `wgmma.mma_async` comes from.
#[derive(Debug, Clone, Copy)]
pub enum AOperand<'r> {
    /// A shared-memory matrix descriptor.
    Shared(u64),
    /// Registers of one warp of the warpgroup (`rank` 0..4, rows `16·rank …`): `regs[lane][r]`,
    /// in the layout of the `mma.sync` A fragment of the same element type (m16n8k16 for
    /// `.f16`/`.bf16`, m16n8k8 for `.tf32`, m16n8k32 for 8-bit types), as the ISA's wgmma
    /// register fragment figures show.
    Registers {
        /// The warp's index in its warpgroup.
        rank: u32,
        /// `regs[lane][r]`: register `r` of each lane.
        regs: &'r [[u32; 4]; 32],
    },
}

/// [`mma_async_mixed`] with A from shared memory or from registers. With register A only the
/// rows of that warp are meaningful in `d` (the caller writes back that warp's registers).
#[allow(clippy::too_many_arguments)]
pub fn mma_async_any<E>(
    a_ty: WgmmaType,
    b_ty: WgmmaType,
    satfinite: bool,
    a_src: AOperand<'_>,
    b_desc: u64,
    ops: WgmmaOperands,
    d: &mut [[u32; 128]; 128],
    mut read_shared: impl FnMut(u32, u32) -> Result<u32, E>,
) -> Result<(), WgmmaError<E>> {
    let ty = a_ty;
    let a_desc = match a_src {
        AOperand::Shared(desc) => desc,
        AOperand::Registers { .. } => 0,
    };
    let n = ops.n;
    if n == 0 || n > 256 || n & 7 != 0 {
        return Err(WgmmaError::BadShape(n));
    }
    if a_ty.integer() != b_ty.integer() || a_ty.elem_bytes() != b_ty.elem_bytes() {
        return Err(WgmmaError::MixedTypes);
    }
    if ty.elem_bytes() != 2 && (ops.trans_a || ops.trans_b) {
        return Err(WgmmaError::TransposeTf32);
    }
    let (ad, bd) = (
        MatrixDescriptor::decode(a_desc),
        MatrixDescriptor::decode(b_desc),
    );
    let descs: &[MatrixDescriptor] = match a_src {
        AOperand::Shared(_) => &[ad, bd],
        AOperand::Registers { .. } => &[bd],
    };
    for &desc in descs {
        if desc.base_offset != 0 && desc.swizzle != Swizzle::None {
            return Err(WgmmaError::BaseOffset(desc.base_offset));
        }
    }
    let k = ty.k();
    let e = ty.elem_bytes();
    // Every A/B value is exact in f64 (8-bit integers included).
    let mut a = [[0f64; 32]; 64];
    match a_src {
        AOperand::Shared(_) => {
            for m in 0..64 {
                for kk in 0..k {
                    let addr = ad.element_address(ops.trans_a, e, m, kk);
                    let x = a_ty.value(read_shared(addr, e).map_err(WgmmaError::Read)?);
                    a[m as usize][kk as usize] = if ops.negate_a { -x } else { x };
                }
            }
        }
        AOperand::Registers { rank, regs } => {
            use crate::mma::MmaKind;
            let kind = match a_ty {
                WgmmaType::Tf32 => MmaKind::M16n8k8F32Tf32,
                WgmmaType::F16 | WgmmaType::Bf16 => MmaKind::M16n8k16F32F16,
                _ => MmaKind::M16n8k32S32I8 {
                    a_signed: true,
                    b_signed: true,
                    satfinite: false,
                },
            };
            let per_reg = 4 / e;
            for lane in 0..32u32 {
                for i in 0..kind.a_elems() {
                    let el = kind.a_elem(lane, i);
                    let reg = regs[lane as usize][(i / per_reg) as usize];
                    let bits = if per_reg == 1 {
                        reg
                    } else {
                        (reg >> (8 * e * (i % per_reg))) & ((1u32 << (8 * e)) - 1)
                    };
                    let x = a_ty.value(bits);
                    a[(16 * (rank % 4) + el.row) as usize][el.col as usize] =
                        if ops.negate_a { -x } else { x };
                }
            }
        }
    }
    let mut b = [[0f64; 256]; 32];
    for nn in 0..n {
        for kk in 0..k {
            let addr = bd.element_address(ops.trans_b, e, nn, kk);
            let x = b_ty.value(read_shared(addr, e).map_err(WgmmaError::Read)?);
            b[kk as usize][nn as usize] = if ops.negate_b { -x } else { x };
        }
    }
    if ops.f16_accumulator {
        for (tid, regs) in d.iter_mut().enumerate() {
            for i in 0..(n / 2) as usize {
                let (r, c) = d_elem(tid as u32, i as u32);
                let (reg, sh) = (&mut regs[i / 2], 16 * (i % 2));
                let mut acc = if ops.scale_d {
                    to_f64(F16, ((*reg >> sh) & 0xffff) as u64)
                } else {
                    0.0
                };
                for kk in 0..k as usize {
                    acc += a[r as usize][kk] * b[kk][c as usize];
                }
                let h = if acc.is_nan() {
                    F16.canonical_nan as u32
                } else {
                    round::convert(F64, F16, acc.to_bits(), Rnd::Rn, Overflow::Ieee) as u32
                };
                *reg = (*reg & !(0xffff << sh)) | (h << sh);
            }
        }
        return Ok(());
    }
    for (tid, regs) in d.iter_mut().enumerate() {
        for (i, reg) in regs.iter_mut().take((n / 2) as usize).enumerate() {
            let (r, c) = d_elem(tid as u32, i as u32);
            if ty.integer() {
                // |a·b| < 2^16, 32 terms: exact in i64.
                let mut acc: i64 = if ops.scale_d { *reg as i32 as i64 } else { 0 };
                for kk in 0..k as usize {
                    acc += (a[r as usize][kk] * b[kk][c as usize]) as i64;
                }
                *reg = if satfinite {
                    acc.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32
                } else {
                    acc as u32
                };
                continue;
            }
            let mut acc = if ops.scale_d {
                f32::from_bits(*reg) as f64
            } else {
                0.0
            };
            for kk in 0..k as usize {
                acc += a[r as usize][kk] * b[kk][c as usize];
            }
            *reg = if acc.is_nan() {
                F32.canonical_nan as u32
            } else {
                round::convert(F64, F32, acc.to_bits(), Rnd::Rn, Overflow::Ieee) as u32
            };
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A K-major, unswizzled 8-bit operand of `rows` rows and K = 32: 16-byte core-matrix rows,
    /// LBO = 128 between the two K halves, SBO = 256 between 8-row groups.
    fn desc(start: u32) -> u64 {
        (start as u64 >> 4) | ((128u64 >> 4) << 16) | ((256u64 >> 4) << 32)
    }

    fn run(
        a_ty: WgmmaType,
        b_ty: WgmmaType,
        a: &[[u8; 32]],
        b: &[[u8; 32]],
        satfinite: bool,
    ) -> [[u32; 128]; 128] {
        let mut smem = vec![0u8; 8192];
        let (ad, bd) = (
            MatrixDescriptor::decode(desc(0)),
            MatrixDescriptor::decode(desc(4096)),
        );
        for (m, row) in a.iter().enumerate() {
            for (k, &v) in row.iter().enumerate() {
                smem[ad.element_address(false, 1, m as u32, k as u32) as usize] = v;
            }
        }
        for (n, row) in b.iter().enumerate() {
            for (k, &v) in row.iter().enumerate() {
                smem[bd.element_address(false, 1, n as u32, k as u32) as usize] = v;
            }
        }
        let ops = WgmmaOperands {
            n: 8,
            scale_d: true,
            negate_a: false,
            negate_b: false,
            trans_a: false,
            trans_b: false,
            f16_accumulator: false,
        };
        let mut d = [[7u32; 128]; 128];
        mma_async_mixed(
            a_ty,
            b_ty,
            satfinite,
            desc(0),
            desc(4096),
            ops,
            &mut d,
            |addr, _| smem.get(addr as usize).map(|&v| v as u32).ok_or(addr),
        )
        .unwrap();
        d
    }

    #[test]
    fn int8_and_fp8_operands() {
        // A: 64 x 32, B (given as N x K): 8 x 32.
        let a: Vec<[u8; 32]> = (0..64)
            .map(|m| std::array::from_fn(|k| ((m * 7 + k * 13) % 256) as u8))
            .collect();
        let b: Vec<[u8; 32]> = (0..8)
            .map(|n| std::array::from_fn(|k| ((n * 29 + k * 3 + 100) % 256) as u8))
            .collect();
        let d = run(WgmmaType::S8, WgmmaType::U8, &a, &b, false);
        for tid in 0..128u32 {
            for i in 0..4 {
                let (r, c) = d_elem(tid, i);
                let want: i64 = 7
                    + (0..32)
                        .map(|k| a[r as usize][k] as i8 as i64 * b[c as usize][k] as i64)
                        .sum::<i64>();
                assert_eq!(
                    d[tid as usize][i as usize] as i32 as i64, want,
                    "s8 x u8 ({r}, {c})"
                );
            }
        }
        // e4m3 x e5m2 with small exact values: e4m3 0x38 = 1.0, 0x40 = 2.0, 0xB8 = -1.0;
        // e5m2 0x3C = 1.0, 0x40 = 2.0, 0x38 = 0.5. The accumulator starts at bits 7 (a tiny
        // subnormal), which the exact sum keeps only through rounding.
        let fa: Vec<[u8; 32]> = (0..64)
            .map(|m| std::array::from_fn(|k| [0x38, 0x40, 0xB8][(m + k) % 3]))
            .collect();
        let fb: Vec<[u8; 32]> = (0..8)
            .map(|n| std::array::from_fn(|k| [0x3C, 0x40, 0x38][(n + 2 * k) % 3]))
            .collect();
        let d = run(WgmmaType::E4m3, WgmmaType::E5m2, &fa, &fb, false);
        let va = [1.0, 2.0, -1.0];
        let vb = [1.0, 2.0, 0.5];
        for tid in 0..128u32 {
            for i in 0..4 {
                let (r, c) = d_elem(tid, i);
                let sum: f64 = (0..32usize)
                    .map(|k| va[(r as usize + k) % 3] * vb[(c as usize + 2 * k) % 3])
                    .sum();
                let want = (f32::from_bits(7) as f64 + sum) as f32;
                assert_eq!(
                    d[tid as usize][i as usize],
                    want.to_bits(),
                    "e4m3 x e5m2 ({r}, {c})"
                );
            }
        }
        // .satfinite clamps the s32 accumulator.
        let big = vec![[127u8; 32]; 64];
        let mut d = run(WgmmaType::S8, WgmmaType::S8, &big, &big[..8], true);
        assert_eq!(d[0][0], 7 + 32 * 127 * 127);
        d = [[0x7fff_fff0; 128]; 128];
        let ops = WgmmaOperands {
            n: 8,
            scale_d: true,
            negate_a: false,
            negate_b: false,
            trans_a: false,
            trans_b: false,
            f16_accumulator: false,
        };
        mma_async_mixed(
            WgmmaType::S8,
            WgmmaType::S8,
            true,
            desc(0),
            desc(0),
            ops,
            &mut d,
            |_, _| Ok::<u32, u32>(127),
        )
        .unwrap();
        assert_eq!(d[0][0], i32::MAX as u32);
    }
}
