//! Kernel arguments from Python objects: which kind each is, and a scalar's bits for the type
//! of the `.param` it fills (a launch is typed by the kernel's declarations, as a real driver
//! copies arguments into the parameter buffer by the declared sizes).

use ptx_isa::{ScalarType, TypeKind};
use pyo3::buffer::PyUntypedBuffer;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyTuple};

/// A Python scalar's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    Int(i128),
    Float(f64),
}

impl std::fmt::Display for Scalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scalar::Int(v) => write!(f, "{v}"),
            Scalar::Float(v) => write!(f, "{v:?}"),
        }
    }
}

/// What one argument is.
pub enum ArgKind {
    /// `None`: a null pointer.
    Null,
    Scalar(Scalar),
    /// An object with the buffer protocol (passed as a device pointer).
    Buffer,
    /// `("tensormap", keys, buffer)`: a tensor map over a buffer (`ptxsim.TensorMap`).
    TensorMap,
}

/// Sorts an argument into null, scalar or buffer; anything else is a type error.
pub fn classify(arg: &Bound<'_, PyAny>) -> Result<ArgKind, String> {
    if arg.is_none() {
        return Ok(ArgKind::Null);
    }
    if let Ok(t) = arg.cast::<PyTuple>() {
        if t.len() == 3
            && t.get_item(0)
                .and_then(|x| x.extract::<String>())
                .is_ok_and(|x| x == "tensormap")
        {
            return Ok(ArgKind::TensorMap);
        }
    }
    if let Ok(b) = arg.cast::<PyBool>() {
        return Ok(ArgKind::Scalar(Scalar::Int(i128::from(b.is_true()))));
    }
    if arg.is_instance_of::<PyInt>() {
        let v: i128 = arg
            .extract()
            .map_err(|_| format!("the integer {arg} does not fit in 128 bits"))?;
        return Ok(ArgKind::Scalar(Scalar::Int(v)));
    }
    if let Ok(f) = arg.cast::<PyFloat>() {
        return Ok(ArgKind::Scalar(Scalar::Float(f.value())));
    }
    if PyUntypedBuffer::get(arg).is_ok() {
        return Ok(ArgKind::Buffer);
    }
    let ty = arg
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into());
    Err(format!(
        "expected a numpy array, None, or a bool/int/float scalar, got {ty}"
    ))
}

/// The bits of `value` as a parameter of type `ty`: integers range-checked (an unsigned or
/// untyped parameter also takes a negative value in two's complement, as Triton passes `i32`
/// arguments to `.u32` parameters), floats rounded to the parameter's format.
pub fn scalar_bits(value: &Scalar, ty: ScalarType) -> Result<u64, String> {
    let bits = ty.bits();
    if bits > 64 {
        return Err(format!("a {ty} parameter cannot be passed a Python scalar"));
    }
    match (ty, *value) {
        (ScalarType::F32, Scalar::Float(v)) => Ok(u64::from((v as f32).to_bits())),
        (ScalarType::F64, Scalar::Float(v)) => Ok(v.to_bits()),
        (ScalarType::F16, Scalar::Float(v)) => Ok(u64::from(half::f16::from_f64(v).to_bits())),
        (ScalarType::Bf16, Scalar::Float(v)) => {
            Ok(u64::from(half::bf16::from_f64(v).to_bits()))
        }
        // An integer for a float parameter is its value (eps=1 means 1.0).
        (ScalarType::F32 | ScalarType::F64 | ScalarType::F16 | ScalarType::Bf16, Scalar::Int(v)) => {
            scalar_bits(&Scalar::Float(v as f64), ty)
        }
        (_, Scalar::Float(v)) => Err(format!(
            "a float ({v:?}) cannot be passed to a {ty} parameter; pass an int (the bits of a float are np.float32(x).view(np.uint32))"
        )),
        (_, Scalar::Int(v)) => {
            if ty.kind() == TypeKind::Predicate {
                return Err(format!("a {ty} parameter cannot be passed from Python"));
            }
            let half = 1i128 << (bits - 1);
            let (lo, hi) = if ty.kind() == TypeKind::Signed {
                (-half, half - 1)
            } else {
                (-half, (1i128 << bits) - 1)
            };
            if v < lo || v > hi {
                return Err(format!(
                    "{v} does not fit in a {ty} parameter ({lo} to {hi})"
                ));
            }
            let mask = if bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            Ok((v as u64) & mask)
        }
    }
}
