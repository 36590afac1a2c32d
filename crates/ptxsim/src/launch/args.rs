//! `--arg` specs: buffers (`.npy`, `.bin`, `zeros:`), scalars, `null`, tensor maps; the
//! scalar type names and value syntax, and the size checks on input-sized buffers.

use super::*;

/// One `--arg` spec, parsed.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgSpec {
    /// A buffer from a file or of zeros.
    Buffer(Array),
    Null,
    Scalar {
        ty: ScalarType,
        bits: u64,
    },
    /// `tensormap[...]:BUFFER`: a tensor map describing a buffer (passed by value to a
    /// 128-byte parameter, or as a pointer to a global copy of the map to a pointer parameter).
    TensorMap {
        buffer: Array,
        /// The map, its global address not set yet.
        map: ptx_exec::tensormap::TensorMap,
    },
}

/// `AxBxC` → numbers.
pub(super) fn parse_list(spec: &str, key: &str, v: &str) -> Result<Vec<u64>, LaunchError> {
    v.split('x')
        .map(|x| {
            x.trim().parse::<u64>().map_err(|_| {
                LaunchError::new(format!(
                    "`{spec}`: `{key}={v}` is not a list of numbers such as 64x32"
                ))
            })
        })
        .collect()
}

/// Parses `tensormap[dims=...,box=...,...]:BUFFER` (docs/launch-format.md).
pub(super) fn parse_tensor_map(
    spec: &str,
    base: &Path,
    max_bytes: u64,
) -> Result<ArgSpec, LaunchError> {
    let rest = &spec["tensormap[".len()..];
    let Some((keys, buffer)) = rest.split_once("]:") else {
        return err(format!(
            "`{spec}`: write tensormap[dims=D0xD1,box=B0xB1,...]:BUFFER"
        ));
    };
    let ArgSpec::Buffer(buffer) = parse_arg_within(buffer, base, max_bytes)? else {
        return err(format!(
            "`{spec}`: the tensor map's memory must be a buffer (PATH.npy, PATH.bin or zeros:TYPE:COUNT)"
        ));
    };
    tensor_map_spec(spec, keys, buffer)
}

/// A tensor-map argument over `buffer` from the comma-separated `KEY=VALUE` list of a
/// `tensormap[...]` spec (`spec` names it in messages).
pub fn tensor_map_spec(spec: &str, keys: &str, buffer: Array) -> Result<ArgSpec, LaunchError> {
    use ptx_exec::tensormap::{ElemType, TensorMap};
    let mut map = TensorMap::default();
    let (mut dims, mut boxes, mut strides, mut estrides) = (None, None, None, None);
    let mut elem = None;
    for kv in keys.split(',').filter(|k| !k.trim().is_empty()) {
        let Some((k, v)) = kv.split_once('=') else {
            return err(format!("`{spec}`: `{kv}` is not KEY=VALUE"));
        };
        let (k, v) = (k.trim(), v.trim());
        match k {
            "dims" => dims = Some(parse_list(spec, k, v)?),
            "box" => boxes = Some(parse_list(spec, k, v)?),
            "strides" => strides = Some(parse_list(spec, k, v)?),
            "estrides" => estrides = Some(parse_list(spec, k, v)?),
            "type" => {
                elem = Some(ElemType::from_name(v).ok_or_else(|| {
                    LaunchError::new(format!(
                        "`{spec}`: unknown element type `{v}` (u8 u16 u32 s32 u64 s64 f16 f32 \
                         f32.ftz f64 bf16 tf32 tf32.ftz)"
                    ))
                })?)
            }
            "swizzle" => {
                map.swizzle = match v {
                    "none" | "0" => 0,
                    "32B" | "32" => 1,
                    "64B" | "64" => 2,
                    "128B" | "128" => 3,
                    _ => return err(format!("`{spec}`: swizzle is none, 32B, 64B or 128B")),
                }
            }
            "interleave" => {
                map.interleave = match v {
                    "none" | "0" => 0,
                    "16B" | "16" => 1,
                    "32B" | "32" => 2,
                    _ => return err(format!("`{spec}`: interleave is none, 16B or 32B")),
                }
            }
            "fill" => {
                map.fill_mode = match v {
                    "zero" => 0,
                    "nan" => 1,
                    _ => return err(format!("`{spec}`: fill is zero or nan")),
                }
            }
            _ => {
                return err(format!(
                    "`{spec}`: unknown key `{k}` (dims, box, strides, estrides, type, swizzle, \
                     interleave, fill)"
                ))
            }
        }
    }
    let elem = match elem {
        Some(e) => e,
        None => ElemType::from_name(&buffer.ty.to_string()).ok_or_else(|| {
            LaunchError::new(format!(
                "`{spec}`: give the element type (type=...): a {} buffer has no tensor-map type",
                buffer.ty
            ))
        })?,
    };
    let (Some(dims), Some(boxes)) = (dims, boxes) else {
        return err(format!("`{spec}`: dims=... and box=... are required"));
    };
    let rank = dims.len();
    if !(1..=5).contains(&rank) || boxes.len() != rank {
        return err(format!(
            "`{spec}`: dims and box need the same number (1 to 5) of dimensions"
        ));
    }
    let eb = elem.bytes().unwrap_or(1) as u64;
    let strides = match strides {
        Some(s) if s.len() + 1 == rank => s,
        Some(_) => {
            return err(format!(
                "`{spec}`: strides gives the byte stride of dimensions 1 to {} ({} numbers)",
                rank - 1,
                rank - 1
            ))
        }
        None => {
            // Packed rows: each stride is the bytes of the dimensions below it.
            let mut s = Vec::new();
            let mut acc = eb;
            for d in &dims[..rank - 1] {
                let Some(next) = acc.checked_mul(*d) else {
                    return err(format!(
                        "`{spec}`: dims {} give a tensor larger than 2^64 bytes",
                        dims.iter()
                            .map(u64::to_string)
                            .collect::<Vec<_>>()
                            .join("x")
                    ));
                };
                acc = next;
                s.push(acc);
            }
            s
        }
    };
    let estrides = estrides.unwrap_or_else(|| vec![1; rank]);
    if estrides.len() != rank {
        return err(format!("`{spec}`: estrides needs {rank} numbers"));
    }
    map.rank = rank as u32;
    map.elem_type = elem;
    for i in 0..rank {
        let fits = |v: u64, what: &str| -> Result<u32, LaunchError> {
            u32::try_from(v)
                .map_err(|_| LaunchError::new(format!("`{spec}`: {what} {v} is too large")))
        };
        map.global_dim[i] = fits(dims[i], "dimension")?;
        map.box_dim[i] = fits(boxes[i], "box dimension")?;
        map.element_stride[i] = fits(estrides[i], "element stride")?;
    }
    map.global_stride[..rank - 1].copy_from_slice(&strides);
    Ok(ArgSpec::TensorMap { buffer, map })
}

/// The element types a spec may name.
pub fn parse_type(name: &str) -> Option<ScalarType> {
    Some(match name {
        "u8" => ScalarType::U8,
        "u16" => ScalarType::U16,
        "u32" => ScalarType::U32,
        "u64" => ScalarType::U64,
        "s8" | "i8" => ScalarType::S8,
        "s16" | "i16" => ScalarType::S16,
        "s32" | "i32" => ScalarType::S32,
        "s64" | "i64" => ScalarType::S64,
        "f16" => ScalarType::F16,
        "bf16" => ScalarType::Bf16,
        "f32" => ScalarType::F32,
        "f64" => ScalarType::F64,
        _ => return None,
    })
}

/// Parses a scalar value of `ty` ("1.5", "-3", "0x10").
pub fn parse_scalar(ty: ScalarType, text: &str) -> Result<u64, LaunchError> {
    let bad = || LaunchError::new(format!("`{text}` is not a valid {ty} value"));
    let int = |t: &str| -> Option<i128> {
        let (neg, t) = t.strip_prefix('-').map_or((false, t), |r| (true, r));
        let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            i128::from_str_radix(h, 16).ok()?
        } else {
            t.parse::<i128>().ok()?
        };
        Some(if neg { -v } else { v })
    };
    Ok(match ty {
        ScalarType::F32 => text.parse::<f32>().map_err(|_| bad())?.to_bits() as u64,
        ScalarType::F64 => text.parse::<f64>().map_err(|_| bad())?.to_bits(),
        ScalarType::F16 => {
            half::f16::from_f64(text.parse::<f64>().map_err(|_| bad())?).to_bits() as u64
        }
        ScalarType::Bf16 => {
            half::bf16::from_f64(text.parse::<f64>().map_err(|_| bad())?).to_bits() as u64
        }
        _ => {
            let v = int(text).ok_or_else(bad)?;
            let bits = ty.bits();
            let (lo, hi) = if ty.kind() == ptx_isa::TypeKind::Signed {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            } else {
                (0, (1i128 << bits) - 1)
            };
            if v < lo || v > hi {
                return err(format!("{text} does not fit in {ty}"));
            }
            (v as u64)
                & if bits >= 64 {
                    u64::MAX
                } else {
                    (1u64 << bits) - 1
                }
        }
    })
}

/// Parses `PATH.npy`, `PATH.bin`, `zeros:TYPE:COUNT`, `null`, `TYPE:VALUE` or
/// `tensormap[KEY=VALUE,...]:BUFFER`; relative paths are taken from `base`. A buffer may be
/// as large as the largest preset GPU's memory; [`parse_arg_within`] takes the GPU's.
pub fn parse_arg(spec: &str, base: &Path) -> Result<ArgSpec, LaunchError> {
    parse_arg_within(spec, base, GpuConfig::b200().memory_bytes)
}

/// The bytes of a buffer argument `spec` needs, checked against `max_bytes` (the GPU's
/// device memory) before any host memory is taken for it.
pub(super) fn check_buffer_size(
    spec: &str,
    bytes: Option<u64>,
    max_bytes: u64,
) -> Result<u64, LaunchError> {
    match bytes {
        Some(n) if n <= max_bytes => Ok(n),
        _ => Err(LaunchError::resource(format!(
            "`{spec}` needs {} of device memory; the GPU has {max_bytes} bytes ({})",
            bytes.map_or("more than 2^64 bytes".to_string(), |n| format!(
                "{n} bytes ({})",
                memsys::human_bytes(n)
            )),
            memsys::human_bytes(max_bytes)
        ))),
    }
}

/// [`parse_arg`] for a GPU with `max_bytes` of device memory: a buffer larger than that is a
/// resource error naming the argument and both sizes, and so is one the host cannot hold.
pub fn parse_arg_within(spec: &str, base: &Path, max_bytes: u64) -> Result<ArgSpec, LaunchError> {
    if spec == "null" {
        return Ok(ArgSpec::Null);
    }
    if spec.starts_with("tensormap[") {
        return parse_tensor_map(spec, base, max_bytes);
    }
    if let Some(rest) = spec.strip_prefix("zeros:") {
        let Some((ty, count)) = rest.split_once(':') else {
            return err(format!("`{spec}`: write zeros:TYPE:COUNT"));
        };
        let ty = parse_type(ty)
            .ok_or_else(|| LaunchError::new(format!("`{spec}`: unknown type `{ty}`")))?;
        let count: u64 = count
            .parse()
            .map_err(|_| LaunchError::new(format!("`{spec}`: `{count}` is not a count")))?;
        let len = check_buffer_size(spec, count.checked_mul(ty.bytes() as u64), max_bytes)?;
        let bytes = usize::try_from(len)
            .ok()
            .and_then(memsys::try_zeroed_bytes)
            .ok_or_else(|| {
                LaunchError::resource(format!(
                    "`{spec}`: the host cannot provide {len} bytes ({})",
                    memsys::human_bytes(len)
                ))
            })?;
        return Ok(ArgSpec::Buffer(Array { ty, bytes }));
    }
    if spec.ends_with(".npy") || spec.ends_with(".bin") {
        let path = base.join(spec);
        // The file's size bounds what reading it takes: check it before reading.
        if let Ok(meta) = std::fs::metadata(&path) {
            check_buffer_size(spec, Some(meta.len()), max_bytes)?;
        }
    }
    if spec.ends_with(".npy") {
        return Ok(ArgSpec::Buffer(read_npy(&base.join(spec))?));
    }
    if spec.ends_with(".bin") {
        let path = base.join(spec);
        let bytes = std::fs::read(&path)
            .map_err(|e| LaunchError::new(format!("cannot read {}: {e}", path.display())))?;
        return Ok(ArgSpec::Buffer(Array {
            ty: ScalarType::U8,
            bytes,
        }));
    }
    if let Some((ty, value)) = spec.split_once(':') {
        if let Some(t) = parse_type(ty) {
            return Ok(ArgSpec::Scalar {
                ty: t,
                bits: parse_scalar(t, value)?,
            });
        }
    }
    err(format!(
        "`{spec}` is not an argument: use PATH.npy, PATH.bin, zeros:TYPE:COUNT, null, TYPE:VALUE \
         or tensormap[...]:BUFFER"
    ))
}
