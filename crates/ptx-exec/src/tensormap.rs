//! Tensor-map objects (the 1024-bit `CUtensorMap` of the PTX ISA's "Tensor-map" section) and the
//! tile traversal of `cp{.reduce}.async.bulk{.prefetch}.tensor`.
//!
//! **Storage.** A tensor map is a 128-byte object in memory that `tensormap.replace` edits field
//! by field and `cp.async.bulk.tensor` reads through its generic address (param, const or global
//! space). The ISA documents its fields but not their bit layout ("opaque"), and the layout the
//! CUDA driver's `cuTensorMapEncodeTiled` writes is not public. ptxsim therefore keeps the fields
//! at positions of its own, listed below, so that a map built with `tensormap.replace` (or
//! described in a launch, see `docs/launch-format.md`) survives every way a kernel moves the
//! 128 bytes (`tensormap.cp_fenceproxy`, `ld`/`st`, a `__grid_constant__` parameter). Bytes
//! written by the real driver are *not* decoded: a map without ptxsim's marker is a kernel fault.
//!
//! | bytes | field (value as `tensormap.replace` writes it) |
//! |---|---|
//! | 0..8 | `.global_address` |
//! | 8..12 | marker `"PXTM"`, set by every `tensormap.replace` |
//! | 12 | `.rank` (rank − 1) |
//! | 13 | `.elemtype` (Table 33: 0 `.u8` … 12 `.tf32.ftz`) |
//! | 14 | `.interleave_layout` (0 none, 1 16B, 2 32B) |
//! | 15 | `.swizzle_mode` (0 none, 1 32B, 2 64B, 3 128B) |
//! | 16 | `.swizzle_atomicity` |
//! | 17 | `.fill_mode` (0 zero, 1 OOB-NaN) |
//! | 20..40 | `.global_dim[0..5]` (u32, elements) |
//! | 40..72 | `.global_stride[0..4]` (u64, bytes: the stride of dimension `ord + 1`) |
//! | 72..92 | `.box_dim[0..5]` (u32, elements) |
//! | 92..112 | `.element_stride[0..5]` (u32) |
//!
//! **Tile mode** (the ISA's "Tensor-map" and "Bounding Box" rules, as `cuTensorMapEncodeTiled`
//! documents their limits): along dimension `i` the box covers `n_i = ceil(box_dim[i] /
//! element_stride[i])` elements at coordinates `c_i + k·element_stride[i]`, `k < n_i`
//! (`element_stride[0]` is ignored, i.e. 1, without interleave). The element with box indices
//! `(k_0, …, k_{r-1})` is at global address `global_address + x_0·elem + Σ_{i≥1} x_i·stride[i-1]`
//! and at shared offset `((k_{r-1}·n_{r-2} + …)·n_0 + k_0)·elem` from the destination, dimension 0
//! innermost and densely packed; the swizzle mode then XORs bits `[4, 4+B)` of each shared byte
//! address with bits `[7, 7+B)` (`B` = 1, 2, 3 for 32, 64, 128 bytes: 16-byte chunks permuted
//! within a 32/64/128-byte row, the same pattern the wgmma descriptors' swizzle modes read).
//! Elements outside `[0, global_dim[i])` in any dimension are not read: a load fills them with
//! zeros, or in OOB-NaN fill mode with the NaN pattern the H100 writes (`nan_bits`: 0x7FF77FF7 for
//! `.f32`, measured; the canonical NaN for the unmeasured types); a store or a
//! reduction skips them.

use ptx_isa::{Modifier, ScalarType};

/// Size of a tensor-map object in bytes.
pub const TENSOR_MAP_BYTES: usize = 128;

/// ptxsim's marker in bytes 8..12 ("PXTM").
const MARKER: [u8; 4] = *b"PXTM";

const OFF_ADDRESS: usize = 0;
const OFF_MARKER: usize = 8;
const OFF_RANK: usize = 12;
const OFF_ELEMTYPE: usize = 13;
const OFF_INTERLEAVE: usize = 14;
const OFF_SWIZZLE: usize = 15;
const OFF_ATOMICITY: usize = 16;
const OFF_FILL: usize = 17;
const OFF_GLOBAL_DIM: usize = 20;
const OFF_GLOBAL_STRIDE: usize = 40;
const OFF_BOX_DIM: usize = 72;
const OFF_ELEMENT_STRIDE: usize = 92;

/// A field `tensormap.replace` can write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    GlobalAddress,
    Rank,
    BoxDim,
    GlobalDim,
    GlobalStride,
    ElementStride,
    ElemType,
    InterleaveLayout,
    SwizzleMode,
    SwizzleAtomicity,
    FillMode,
}

impl Field {
    /// The field of a `tensormap.replace` modifier (`.box_dim` …).
    pub fn from_modifier(m: Modifier) -> Option<Field> {
        Some(match m {
            Modifier::GlobalAddress => Field::GlobalAddress,
            Modifier::Rank => Field::Rank,
            Modifier::BoxDim => Field::BoxDim,
            Modifier::GlobalDim => Field::GlobalDim,
            Modifier::GlobalStride => Field::GlobalStride,
            Modifier::ElementStride => Field::ElementStride,
            Modifier::Elemtype => Field::ElemType,
            Modifier::InterleaveLayout => Field::InterleaveLayout,
            Modifier::SwizzleMode => Field::SwizzleMode,
            Modifier::SwizzleAtomicity => Field::SwizzleAtomicity,
            Modifier::FillMode => Field::FillMode,
            _ => return None,
        })
    }

    /// Whether the field takes an ordinal (`[addr], ord, new_val`).
    pub fn has_ordinal(self) -> bool {
        matches!(
            self,
            Field::BoxDim | Field::GlobalDim | Field::GlobalStride | Field::ElementStride
        )
    }

    /// How many ordinals the field has (5 dimensions; 4 strides, of dimensions 1 to 4).
    pub fn ordinals(self) -> u32 {
        match self {
            Field::GlobalStride => 4,
            f if f.has_ordinal() => 5,
            _ => 1,
        }
    }
}

/// The element types of `.elemtype` (PTX ISA Table 33; not the driver's `CUtensorMapDataType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ElemType(pub u8);

impl ElemType {
    /// The ISA's name of the type.
    pub fn name(self) -> &'static str {
        match self.0 {
            0 => ScalarType::U8.token(),
            1 => ScalarType::U16.token(),
            2 => ScalarType::U32.token(),
            3 => ScalarType::S32.token(),
            4 => ScalarType::U64.token(),
            5 => ScalarType::S64.token(),
            6 => ScalarType::F16.token(),
            7 => ScalarType::F32.token(),
            8 => ".f32.ftz",
            9 => ScalarType::F64.token(),
            10 => ScalarType::Bf16.token(),
            11 => ScalarType::Tf32.token(),
            12 => ".tf32.ftz",
            13 => Modifier::B4x16.name(),
            14 => Modifier::B4x16P64.name(),
            15 => Modifier::B6x16P32.name(),
            _ => "(invalid)",
        }
    }

    /// Bytes per element, for the byte-sized types (0 to 12).
    pub fn bytes(self) -> Option<u32> {
        Some(match self.0 {
            0 => 1,
            1 | 6 | 10 => 2,
            2 | 3 | 7 | 8 | 11 | 12 => 4,
            4 | 5 | 9 => 8,
            _ => return None,
        })
    }

    /// Whether the type is a floating-point type (OOB-NaN fill applies).
    pub fn is_float(self) -> bool {
        matches!(self.0, 6..=12)
    }

    /// The OOB-NaN fill pattern of the type, little-endian in the low bytes.
    ///
    /// `.f32` (7): 0x7FF77FF7, what an H100 wrote for every out-of-bounds element of an f32
    /// map in NaN fill mode (`../shared/hw/h100/README.md` §1, launch
    /// `tma_bulk.sm90a.tensor_map_device`). The other floating-point types were not measured
    /// on hardware; they keep the canonical NaN of the type (0x7FFF, 0x7FFFFFFF,
    /// 0x7FFF_FFFF_FFFF_FFFF) until they are.
    pub fn nan_bits(self) -> u64 {
        match self.0 {
            7 => 0x7FF7_7FF7,
            6 | 10 => 0x7FFF,
            9 => 0x7FFF_FFFF_FFFF_FFFF,
            _ => 0x7FFF_FFFF,
        }
    }

    /// The type a reduction (`cp.reduce.async.bulk.tensor`) computes in.
    pub fn scalar(self) -> Option<ScalarType> {
        Some(match self.0 {
            0 => ScalarType::U8,
            1 => ScalarType::U16,
            2 => ScalarType::U32,
            3 => ScalarType::S32,
            4 => ScalarType::U64,
            5 => ScalarType::S64,
            6 => ScalarType::F16,
            7 | 8 | 11 | 12 => ScalarType::F32,
            9 => ScalarType::F64,
            10 => ScalarType::Bf16,
            _ => return None,
        })
    }

    /// The `.elemtype` value of a launch-file type name.
    pub fn from_name(name: &str) -> Option<ElemType> {
        let n = name.trim_start_matches('.');
        Some(ElemType(match n {
            "u8" => 0,
            "u16" => 1,
            "u32" => 2,
            "s32" | "i32" => 3,
            "u64" => 4,
            "s64" | "i64" => 5,
            "f16" => 6,
            "f32" => 7,
            "f32.ftz" => 8,
            "f64" => 9,
            "bf16" => 10,
            "tf32" => 11,
            "tf32.ftz" => 12,
            _ => return None,
        }))
    }
}

/// A decoded tensor map: every field as `tensormap.replace` wrote it, except `rank`, which is
/// the rank itself (the `.rank` field plus one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorMap {
    pub global_address: u64,
    pub rank: u32,
    pub elem_type: ElemType,
    pub interleave: u8,
    pub swizzle: u8,
    pub swizzle_atomicity: u8,
    pub fill_mode: u8,
    pub global_dim: [u32; 5],
    pub global_stride: [u64; 4],
    pub box_dim: [u32; 5],
    pub element_stride: [u32; 5],
}

impl Default for TensorMap {
    fn default() -> Self {
        TensorMap {
            global_address: 0,
            rank: 1,
            elem_type: ElemType(0),
            interleave: 0,
            swizzle: 0,
            swizzle_atomicity: 0,
            fill_mode: 0,
            global_dim: [0; 5],
            global_stride: [0; 4],
            box_dim: [0; 5],
            element_stride: [0; 5],
        }
    }
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
}

fn u64_at(b: &[u8], off: usize) -> u64 {
    let mut v = [0u8; 8];
    v.copy_from_slice(&b[off..off + 8]);
    u64::from_le_bytes(v)
}

impl TensorMap {
    /// Decodes ptxsim's layout; `None` when the marker is missing (a map no `tensormap.replace`
    /// or launch description built).
    pub fn decode(b: &[u8; TENSOR_MAP_BYTES]) -> Option<TensorMap> {
        if b[OFF_MARKER..OFF_MARKER + 4] != MARKER {
            return None;
        }
        let mut m = TensorMap {
            global_address: u64_at(b, OFF_ADDRESS),
            rank: u32::from(b[OFF_RANK]) + 1,
            elem_type: ElemType(b[OFF_ELEMTYPE]),
            interleave: b[OFF_INTERLEAVE],
            swizzle: b[OFF_SWIZZLE],
            swizzle_atomicity: b[OFF_ATOMICITY],
            fill_mode: b[OFF_FILL],
            ..TensorMap::default()
        };
        for i in 0..5 {
            m.global_dim[i] = u32_at(b, OFF_GLOBAL_DIM + 4 * i);
            m.box_dim[i] = u32_at(b, OFF_BOX_DIM + 4 * i);
            m.element_stride[i] = u32_at(b, OFF_ELEMENT_STRIDE + 4 * i);
        }
        for i in 0..4 {
            m.global_stride[i] = u64_at(b, OFF_GLOBAL_STRIDE + 8 * i);
        }
        Some(m)
    }

    /// Encodes the map in ptxsim's layout (with the marker).
    pub fn encode(&self) -> [u8; TENSOR_MAP_BYTES] {
        let mut b = [0u8; TENSOR_MAP_BYTES];
        b[OFF_ADDRESS..OFF_ADDRESS + 8].copy_from_slice(&self.global_address.to_le_bytes());
        b[OFF_MARKER..OFF_MARKER + 4].copy_from_slice(&MARKER);
        b[OFF_RANK] = self.rank.saturating_sub(1).min(255) as u8;
        b[OFF_ELEMTYPE] = self.elem_type.0;
        b[OFF_INTERLEAVE] = self.interleave;
        b[OFF_SWIZZLE] = self.swizzle;
        b[OFF_ATOMICITY] = self.swizzle_atomicity;
        b[OFF_FILL] = self.fill_mode;
        for i in 0..5 {
            b[OFF_GLOBAL_DIM + 4 * i..][..4].copy_from_slice(&self.global_dim[i].to_le_bytes());
            b[OFF_BOX_DIM + 4 * i..][..4].copy_from_slice(&self.box_dim[i].to_le_bytes());
            b[OFF_ELEMENT_STRIDE + 4 * i..][..4]
                .copy_from_slice(&self.element_stride[i].to_le_bytes());
        }
        for i in 0..4 {
            b[OFF_GLOBAL_STRIDE + 8 * i..][..8]
                .copy_from_slice(&self.global_stride[i].to_le_bytes());
        }
        b
    }

    /// `tensormap.replace`: writes `value` into `field` (ordinal `ord`) of the object in `b`
    /// and marks it as a ptxsim tensor map. Errors name what is out of range.
    pub fn replace(
        b: &mut [u8; TENSOR_MAP_BYTES],
        field: Field,
        ord: u32,
        value: u64,
    ) -> Result<(), String> {
        if ord >= field.ordinals() {
            return Err(format!(
                "ordinal {ord} is out of range for this field (0 to {})",
                field.ordinals() - 1
            ));
        }
        let ord = ord as usize;
        let byte = |max: u64, what: Modifier| -> Result<u8, String> {
            if value > max {
                Err(format!("{what} value {value} is not valid (0 to {max})"))
            } else {
                Ok(value as u8)
            }
        };
        match field {
            Field::GlobalAddress => {
                b[OFF_ADDRESS..OFF_ADDRESS + 8].copy_from_slice(&value.to_le_bytes())
            }
            Field::Rank => b[OFF_RANK] = byte(4, Modifier::Rank)?,
            Field::ElemType => b[OFF_ELEMTYPE] = byte(15, Modifier::Elemtype)?,
            Field::InterleaveLayout => b[OFF_INTERLEAVE] = byte(2, Modifier::InterleaveLayout)?,
            Field::SwizzleMode => b[OFF_SWIZZLE] = byte(4, Modifier::SwizzleMode)?,
            Field::SwizzleAtomicity => b[OFF_ATOMICITY] = byte(3, Modifier::SwizzleAtomicity)?,
            Field::FillMode => b[OFF_FILL] = byte(1, Modifier::FillMode)?,
            Field::GlobalDim => {
                b[OFF_GLOBAL_DIM + 4 * ord..][..4].copy_from_slice(&(value as u32).to_le_bytes())
            }
            Field::BoxDim => {
                b[OFF_BOX_DIM + 4 * ord..][..4].copy_from_slice(&(value as u32).to_le_bytes())
            }
            Field::ElementStride => b[OFF_ELEMENT_STRIDE + 4 * ord..][..4]
                .copy_from_slice(&(value as u32).to_le_bytes()),
            Field::GlobalStride => {
                b[OFF_GLOBAL_STRIDE + 8 * ord..][..8].copy_from_slice(&value.to_le_bytes())
            }
        }
        b[OFF_MARKER..OFF_MARKER + 4].copy_from_slice(&MARKER);
        Ok(())
    }

    /// Checks the map for a tile-mode copy of rank `dim` and returns its geometry. The limits
    /// are those `cuTensorMapEncodeTiled` documents for a valid map; a map outside them would
    /// make the hardware copy undefined, so ptxsim reports it.
    pub fn tile(&self, dim: u32) -> Result<Tile, String> {
        if self.rank != dim {
            return Err(format!(
                "the tensor map has rank {} but the instruction is .{dim}d",
                self.rank
            ));
        }
        let et = self.elem_type;
        let Some(elem) = et.bytes() else {
            return Err(format!(
                "tensor-map element type {} ({}) is a packed sub-byte type, which ptxsim does not \
                 model (sm_100 and later)",
                et.0,
                et.name()
            ));
        };
        if self.interleave > 2 {
            return Err(format!("invalid .interleave_layout {}", self.interleave));
        }
        if self.swizzle > 3 {
            return Err(format!(
                "swizzle mode {} is not modelled (0 to 3: none, 32B, 64B, 128B)",
                self.swizzle
            ));
        }
        if self.swizzle_atomicity != 0 {
            return Err(format!(
                ".swizzle_atomicity {} is not modelled (sm_100 and later; 0 = 16B)",
                self.swizzle_atomicity
            ));
        }
        if self.fill_mode == 1 && !et.is_float() {
            return Err(format!(
                "OOB-NaN fill needs a floating-point element type, the map has {}",
                et.name()
            ));
        }
        if self.fill_mode > 1 {
            return Err(format!("invalid .fill_mode {}", self.fill_mode));
        }
        let align = if self.interleave == 2 { 32 } else { 16 };
        if !self.global_address.is_multiple_of(align) {
            return Err(format!(
                "global address 0x{:x} is not {align}-byte aligned",
                self.global_address
            ));
        }
        let r = dim as usize;
        let mut counts = [1u32; 5];
        let mut estride = [1u32; 5];
        for i in 0..r {
            let gd = self.global_dim[i];
            if gd == 0 {
                return Err(format!("global dimension {i} is 0"));
            }
            let bd = self.box_dim[i];
            if bd == 0 || bd > 256 {
                return Err(format!("box dimension {i} is {bd} (1 to 256)"));
            }
            let es = self.element_stride[i];
            if es == 0 || es > 8 {
                return Err(format!("element stride {i} is {es} (1 to 8)"));
            }
            // Without interleave, TMA has no stride along dimension 0.
            let es = if i == 0 && self.interleave == 0 {
                1
            } else {
                es
            };
            estride[i] = es;
            counts[i] = bd.div_ceil(es);
        }
        for i in 1..r {
            let s = self.global_stride[i - 1];
            if !s.is_multiple_of(align) || s >= 1 << 40 {
                return Err(format!(
                    "global stride of dimension {i} is {s} bytes (a multiple of {align} below 2^40)"
                ));
            }
        }
        let row_bytes = counts[0] as u64 * elem as u64;
        if self.interleave == 0 {
            if !row_bytes.is_multiple_of(16) {
                return Err(format!(
                    "the box's inner dimension is {row_bytes} bytes; it must be a multiple of 16"
                ));
            }
            let span = match self.swizzle {
                1 => 32,
                2 => 64,
                3 => 128,
                _ => u64::MAX,
            };
            if row_bytes > span {
                return Err(format!(
                    "the box's inner dimension is {row_bytes} bytes, wider than the {span}-byte \
                     swizzle span"
                ));
            }
        } else if self.interleave == 2 && self.swizzle != 1 {
            return Err("32-byte interleave requires the 32-byte swizzle mode".to_string());
        }
        Ok(Tile {
            rank: r,
            elem,
            counts,
            estride,
            base: self.global_address,
            dims: self.global_dim,
            strides: self.global_stride,
            swizzle: self.swizzle,
            fill: if self.fill_mode == 1 {
                Some(et.nan_bits())
            } else {
                None
            },
        })
    }
}

/// The geometry of one tile-mode box of a checked tensor map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tile {
    pub rank: usize,
    /// Bytes per element.
    pub elem: u32,
    /// Elements per box dimension (`ceil(box_dim / element_stride)`), 1 beyond the rank.
    pub counts: [u32; 5],
    /// Traversal stride per dimension.
    pub estride: [u32; 5],
    pub base: u64,
    pub dims: [u32; 5],
    pub strides: [u64; 4],
    /// 0 none, 1 32B, 2 64B, 3 128B.
    pub swizzle: u8,
    /// The OOB fill pattern (NaN fill mode), or `None` for zeros.
    pub fill: Option<u64>,
}

/// A contiguous run of in-bounds elements of one box row: `bytes` bytes at global address
/// `global`, at byte `offset` of the box's (unswizzled) shared image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    pub global: u64,
    pub offset: u32,
    pub bytes: u32,
}

impl Tile {
    /// Bytes of the box in shared memory (also the complete-tx count of a load).
    pub fn bytes(&self) -> u64 {
        self.counts.iter().map(|&c| c as u64).product::<u64>() * self.elem as u64
    }

    /// The in-bounds runs of the box whose first element is at `coords`, in shared-image
    /// order. Elements out of bounds in any dimension are left out.
    pub fn runs(&self, coords: &[i32]) -> Vec<Run> {
        let r = self.rank;
        let elem = self.elem as u64;
        let row_elems = self.counts[0];
        let rows: u64 = self.counts[1..r].iter().map(|&c| c as u64).product();
        let mut out = Vec::new();
        let mut k = [0u32; 5];
        for row in 0..rows {
            // Box indices of this row, dimension 1 fastest.
            let mut rem = row;
            for (ki, &count) in k.iter_mut().zip(&self.counts).take(r).skip(1) {
                *ki = (rem % count as u64) as u32;
                rem /= count as u64;
            }
            let mut row_addr = self.base as i128;
            let mut inside = true;
            for i in 1..r {
                let x = coords[i] as i64 + k[i] as i64 * self.estride[i] as i64;
                if x < 0 || x >= self.dims[i] as i64 {
                    inside = false;
                    break;
                }
                row_addr += x as i128 * self.strides[i - 1] as i128;
            }
            if !inside {
                continue;
            }
            let row_offset = row * row_elems as u64 * elem;
            let es = self.estride[0] as i64;
            let mut k0 = 0u32;
            while k0 < row_elems {
                let x0 = coords[0] as i64 + k0 as i64 * es;
                if x0 < 0 || x0 >= self.dims[0] as i64 {
                    k0 += 1;
                    continue;
                }
                // Extend the run while elements stay in bounds and contiguous in global memory.
                let start = k0;
                let mut end = k0 + 1;
                if es == 1 {
                    while end < row_elems && x0 + ((end - start) as i64) < self.dims[0] as i64 {
                        end += 1;
                    }
                }
                let g = row_addr + x0 as i128 * elem as i128;
                out.push(Run {
                    global: g as u64,
                    offset: (row_offset + start as u64 * elem) as u32,
                    bytes: ((end - start) as u64 * elem) as u32,
                });
                k0 = end;
            }
        }
        out
    }

    /// The shared-memory address of the 16-byte chunk at byte `offset` of the box image placed
    /// at `dst`, after swizzling.
    pub fn chunk_address(&self, dst: u32, offset: u32) -> u32 {
        swizzle(self.swizzle, dst.wrapping_add(offset))
    }
}

/// The swizzle pattern of `mode` (0 none, 1 32B, 2 64B, 3 128B) applied to a shared-memory
/// byte address: bits `[4, 4+B)` XOR bits `[7, 7+B)`.
pub fn swizzle(mode: u8, addr: u32) -> u32 {
    use ptx_semantics::wgmma::Swizzle;
    let s = match mode {
        1 => Swizzle::B32,
        2 => Swizzle::B64,
        3 => Swizzle::B128,
        _ => Swizzle::None,
    };
    s.apply(addr)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map2d() -> TensorMap {
        TensorMap {
            global_address: 0x1000,
            rank: 2,
            elem_type: ElemType(7),
            global_dim: [10, 5, 0, 0, 0],
            global_stride: [64, 0, 0, 0],
            box_dim: [8, 4, 0, 0, 0],
            element_stride: [1, 1, 1, 1, 1],
            ..TensorMap::default()
        }
    }

    #[test]
    fn encode_decode_round_trip() {
        let m = map2d();
        assert_eq!(TensorMap::decode(&m.encode()), Some(m));
        assert_eq!(TensorMap::decode(&[0; TENSOR_MAP_BYTES]), None);
    }

    #[test]
    fn replace_marks_and_writes() {
        let mut b = [0u8; TENSOR_MAP_BYTES];
        TensorMap::replace(&mut b, Field::Rank, 0, 1).unwrap();
        TensorMap::replace(&mut b, Field::BoxDim, 1, 32).unwrap();
        TensorMap::replace(&mut b, Field::GlobalStride, 0, 256).unwrap();
        let m = TensorMap::decode(&b).unwrap();
        assert_eq!(m.rank, 2);
        assert_eq!(m.box_dim[1], 32);
        assert_eq!(m.global_stride[0], 256);
        assert!(TensorMap::replace(&mut b, Field::GlobalStride, 4, 1).is_err());
        assert!(TensorMap::replace(&mut b, Field::SwizzleMode, 0, 9).is_err());
    }

    #[test]
    fn runs_clip_out_of_bounds() {
        let t = map2d().tile(2).unwrap();
        assert_eq!(t.bytes(), 8 * 4 * 4);
        // Box at (6, 3): columns 6..10 of rows 3..5 are inside; rows 5 and 6 are not.
        let runs = t.runs(&[6, 3]);
        assert_eq!(
            runs,
            vec![
                Run {
                    global: 0x1000 + 3 * 64 + 6 * 4,
                    offset: 0,
                    bytes: 16
                },
                Run {
                    global: 0x1000 + 4 * 64 + 6 * 4,
                    offset: 32,
                    bytes: 16
                },
            ]
        );
        // Negative coordinates: the first two columns are outside.
        let runs = t.runs(&[-2, 0]);
        assert_eq!(runs[0].offset, 8);
        assert_eq!(runs[0].global, 0x1000);
        assert_eq!(runs[0].bytes, 24);
    }

    #[test]
    fn swizzle_128b_permutes_chunks_within_rows() {
        // Row 1 (bits 7..10 = 1): chunk 0 goes to chunk 1.
        assert_eq!(swizzle(3, 128), 128 + 16);
        assert_eq!(swizzle(3, 7 * 128 + 16 * 2), 7 * 128 + 16 * (2 ^ 7));
        assert_eq!(swizzle(1, 128 + 5), 128 + 16 + 5);
        assert_eq!(swizzle(0, 1234), 1234);
    }
}
