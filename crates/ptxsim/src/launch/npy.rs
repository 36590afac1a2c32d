//! `.npy` reading and writing (C-order arrays of the scalar types).

use super::*;

/// Reads a 1-D (or any C-order) `.npy` file as a typed array.
pub fn read_npy(path: &Path) -> Result<Array, LaunchError> {
    let bytes = std::fs::read(path)
        .map_err(|e| LaunchError::new(format!("cannot read {}: {e}", path.display())))?;
    let bad = |e: std::io::Error| {
        LaunchError::new(format!("{}: not a readable .npy file: {e}", path.display()))
    };
    let npy = npyz::NpyFile::new(&bytes[..]).map_err(bad)?;
    // The header's shape sizes what reading takes: it must match the data the file holds.
    let claimed = npy
        .shape()
        .iter()
        .try_fold(1u64, |n, &d| n.checked_mul(d))
        .and_then(|n| n.checked_mul(npy.dtype().num_bytes().unwrap_or(1) as u64));
    if claimed.is_none_or(|n| n > bytes.len() as u64) {
        return err(format!(
            "{}: the header's shape {:?} describes more data than the file's {} bytes",
            path.display(),
            npy.shape(),
            bytes.len()
        ));
    }
    let npyz::DType::Plain(ts) = npy.dtype() else {
        return err(format!(
            "{}: structured .npy arrays are not supported",
            path.display()
        ));
    };
    if npy.order() != npyz::Order::C {
        return err(format!(
            "{}: Fortran-order arrays are not supported; save with np.ascontiguousarray",
            path.display()
        ));
    }
    use npyz::TypeChar as T;
    macro_rules! read {
        ($t:ty, $ty:expr) => {{
            let v: Vec<$t> = npy.into_vec().map_err(bad)?;
            Array {
                ty: $ty,
                bytes: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            }
        }};
    }
    Ok(match (ts.type_char(), ts.size_field()) {
        (T::Float, 2) => read!(half::f16, ScalarType::F16),
        (T::Float, 4) => read!(f32, ScalarType::F32),
        (T::Float, 8) => read!(f64, ScalarType::F64),
        (T::Int, 1) => read!(i8, ScalarType::S8),
        (T::Int, 2) => read!(i16, ScalarType::S16),
        (T::Int, 4) => read!(i32, ScalarType::S32),
        (T::Int, 8) => read!(i64, ScalarType::S64),
        (T::Uint, 1) => read!(u8, ScalarType::U8),
        (T::Uint, 2) => read!(u16, ScalarType::U16),
        (T::Uint, 4) => read!(u32, ScalarType::U32),
        (T::Uint, 8) => read!(u64, ScalarType::U64),
        (T::Bool, 1) => {
            let v: Vec<bool> = npy.into_vec().map_err(bad)?;
            Array {
                ty: ScalarType::U8,
                bytes: v.iter().map(|&b| b as u8).collect(),
            }
        }
        _ => {
            return err(format!(
                "{}: element type {ts} is not supported",
                path.display()
            ))
        }
    })
}

/// Writes a typed array as a 1-D `.npy` file.
pub fn write_npy(path: &Path, a: &Array) -> Result<(), LaunchError> {
    let io = |e: std::io::Error| LaunchError::new(format!("cannot write {}: {e}", path.display()));
    let n = a.ty.bytes() as usize;
    macro_rules! write {
        ($t:ty) => {{
            let v: Vec<$t> = a
                .bytes
                .chunks_exact(n)
                .map(|c| <$t>::from_le_bytes(c.try_into().expect("element size")))
                .collect();
            crate::output::write_atomic_with(path, |tmp| npyz::to_file_1d(tmp, v)).map_err(io)
        }};
    }
    match a.ty {
        ScalarType::F16 => write!(half::f16),
        ScalarType::F32 => write!(f32),
        ScalarType::F64 => write!(f64),
        ScalarType::S8 => write!(i8),
        ScalarType::S16 => write!(i16),
        ScalarType::S32 => write!(i32),
        ScalarType::S64 => write!(i64),
        ScalarType::U16 | ScalarType::Bf16 => write!(u16),
        ScalarType::U32 => write!(u32),
        ScalarType::U64 => write!(u64),
        _ => write!(u8),
    }
}

/// The shape in a `.npy` file's header (`None` when it cannot be read): an expectation's
/// mismatch is named by its index in that shape.
pub fn npy_shape(path: &Path) -> Option<Vec<u64>> {
    let bytes = std::fs::read(path).ok()?;
    let npy = npyz::NpyFile::new(&bytes[..]).ok()?;
    Some(npy.shape().to_vec())
}

/// Flat C-order index `i` as an index into `shape`: `[5][7]` for 647 of a 128 x 128 array,
/// `[647]` for a 1-D (or shapeless, or mismatched) one.
pub fn index_text(i: usize, shape: &[u64]) -> String {
    let total = shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d));
    if shape.len() < 2 || total.is_none_or(|n| i as u64 >= n) || shape.contains(&0) {
        return format!("[{i}]");
    }
    let mut rest = i as u64;
    let mut parts = vec![0u64; shape.len()];
    for (k, &d) in shape.iter().enumerate().rev() {
        parts[k] = rest % d;
        rest /= d;
    }
    parts.iter().map(|p| format!("[{p}]")).collect()
}

#[cfg(test)]
mod index_tests {
    use super::index_text;

    #[test]
    fn flat_indices_become_c_order_indices() {
        assert_eq!(index_text(647, &[128, 128]), "[5][7]");
        assert_eq!(index_text(647, &[647 + 1]), "[647]");
        assert_eq!(index_text(647, &[]), "[647]");
        assert_eq!(index_text(23, &[2, 3, 4]), "[1][2][3]");
        // An index past the shape (a header that disagrees with the data) stays flat.
        assert_eq!(index_text(24, &[2, 3, 4]), "[24]");
    }
}
