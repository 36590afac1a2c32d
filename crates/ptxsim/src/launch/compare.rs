//! Checking outputs against expectations by ULP distance.

use super::*;

/// The outcome of comparing an output with its expectation.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub elements: usize,
    pub max_ulp_seen: u64,
    /// (index, got, expected) of the first element over the bound.
    pub first_mismatch: Option<(usize, String, String)>,
    pub mismatches: usize,
}

/// ULP distance between two floats' bit patterns (NaN equals NaN).
pub(super) fn ulp_distance(a: u64, b: u64, bits: u32) -> u64 {
    // Map sign-magnitude bit patterns to a monotonic integer line.
    let key = |v: u64| -> i128 {
        let sign = 1u64 << (bits - 1);
        let magnitude = (v & (sign - 1)) as i128;
        if v & sign != 0 {
            -magnitude
        } else {
            magnitude
        }
    };
    u64::try_from(key(a).abs_diff(key(b))).unwrap_or(u64::MAX)
}

pub(super) fn format_elem(ty: ScalarType, raw: u64) -> String {
    match ty {
        ScalarType::F32 => format!("{}", f32::from_bits(raw as u32)),
        ScalarType::F64 => format!("{}", f64::from_bits(raw)),
        ScalarType::F16 => format!("{}", half::f16::from_bits(raw as u16)),
        _ => format!("{raw:#x}"),
    }
}

/// Compares `got` with `want` element by element: integers exactly, floats within `max_ulp`.
pub fn compare(got: &Array, want: &Array, max_ulp: u64) -> Result<Comparison, LaunchError> {
    if got.bytes.len() != want.bytes.len() {
        return err(format!(
            "output has {} bytes, the expectation {} bytes",
            got.bytes.len(),
            want.bytes.len()
        ));
    }
    let n = want.ty.bytes() as usize;
    let float = want.ty.kind() == ptx_isa::TypeKind::Float;
    let mut cmp = Comparison {
        elements: want.len(),
        max_ulp_seen: 0,
        first_mismatch: None,
        mismatches: 0,
    };
    for (i, (g, w)) in got
        .bytes
        .chunks_exact(n)
        .zip(want.bytes.chunks_exact(n))
        .enumerate()
    {
        let mut gb = [0u8; 8];
        let mut wb = [0u8; 8];
        gb[..n].copy_from_slice(g);
        wb[..n].copy_from_slice(w);
        let (gv, wv) = (u64::from_le_bytes(gb), u64::from_le_bytes(wb));
        let bits = 8 * n as u32;
        let is_nan = |v: u64| {
            let exp_mask = match n {
                2 => 0x7C00u64,
                4 => 0x7F80_0000,
                _ => 0x7FF0_0000_0000_0000,
            };
            let man_mask = match n {
                2 => 0x3FFu64,
                4 => 0x7F_FFFF,
                _ => 0xF_FFFF_FFFF_FFFF,
            };
            v & exp_mask == exp_mask && v & man_mask != 0
        };
        let d = if float {
            if is_nan(gv) && is_nan(wv) {
                0
            } else if is_nan(gv) || is_nan(wv) {
                u64::MAX
            } else {
                ulp_distance(gv, wv, bits)
            }
        } else if gv == wv {
            0
        } else {
            u64::MAX
        };
        if d != u64::MAX {
            cmp.max_ulp_seen = cmp.max_ulp_seen.max(d);
        }
        if d > if float { max_ulp } else { 0 } {
            cmp.mismatches += 1;
            if cmp.first_mismatch.is_none() {
                cmp.first_mismatch = Some((i, format_elem(want.ty, gv), format_elem(want.ty, wv)));
            }
        }
    }
    Ok(cmp)
}
