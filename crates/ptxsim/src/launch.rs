//! Kernel launches described by argument specs or TOML launch files (docs/launch-format.md):
//! reading inputs (`.npy`, `.bin`, `zeros:`, scalars, `null`), writing outputs, and checking
//! expected outputs by ULP distance.

use memsys::GpuConfig;
use ptx_exec::{KernelArg, LaunchConfig, RunSummary, Session};
use ptx_isa::ScalarType;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// An error of preparing or checking a launch (the run itself reports [`ptx_exec::ExecError`]).
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchError {
    pub message: String,
    /// The launch asks for more memory than the GPU has (or the host can provide), rather
    /// than being malformed: `ptxsim.ResourceError` in Python.
    pub resource: bool,
}

impl LaunchError {
    /// A malformed launch: bad argument, missing file, wrong sizes.
    pub fn new(message: impl Into<String>) -> Self {
        LaunchError {
            message: message.into(),
            resource: false,
        }
    }

    /// A launch that needs more memory than the GPU (or the host) has.
    pub fn resource(message: impl Into<String>) -> Self {
        LaunchError {
            message: message.into(),
            resource: true,
        }
    }

    /// An interpreter error met while preparing a launch, prefixed with `context`; keeps
    /// whether it was a resource limit.
    pub fn from_exec(context: &str, e: &ptx_exec::ExecError) -> Self {
        LaunchError {
            message: format!("{context}{e}"),
            resource: e.is_resource_limit(),
        }
    }
}

impl std::fmt::Display for LaunchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LaunchError {}

fn err<T>(msg: impl Into<String>) -> Result<T, LaunchError> {
    Err(LaunchError::new(msg))
}

/// A typed array: element type and little-endian bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Array {
    pub ty: ScalarType,
    pub bytes: Vec<u8>,
}

impl Array {
    pub fn len(&self) -> usize {
        self.bytes.len() / self.ty.bytes().max(1) as usize
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

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
fn parse_list(spec: &str, key: &str, v: &str) -> Result<Vec<u64>, LaunchError> {
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
fn parse_tensor_map(spec: &str, base: &Path, max_bytes: u64) -> Result<ArgSpec, LaunchError> {
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
fn check_buffer_size(spec: &str, bytes: Option<u64>, max_bytes: u64) -> Result<u64, LaunchError> {
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

/// A TOML launch file: one kernel (`kernel`, `grid`, `block`, `args`), or a sequence of
/// steps over named buffers (`[[buffer]]`, `[[step]]`) as a library's host code launches
/// several kernels with shared temporary storage (docs/launch-format.md).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchFile {
    pub ptx: PathBuf,
    /// The kernel of a one-kernel launch file (empty in a multi-step file).
    #[serde(default)]
    pub kernel: String,
    #[serde(default)]
    pub grid: Vec<u32>,
    #[serde(default)]
    pub block: Vec<u32>,
    #[serde(default)]
    pub shared: u32,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub seed: u64,
    #[serde(default)]
    pub max_steps: Option<u64>,
    /// Wall-clock limit of each launch in seconds (`--timeout`).
    #[serde(default)]
    pub timeout: Option<f64>,
    #[serde(default)]
    pub gpu: Option<String>,
    /// The persisting-L2 set-aside in bytes (an integer, or a string with a KiB/MiB/GiB
    /// suffix); `--persisting-l2` overrides it. Absent: 0, as in a fresh CUDA context.
    #[serde(default, deserialize_with = "de_byte_count")]
    pub persisting_l2: Option<u64>,
    /// Argument index → output file.
    #[serde(default)]
    pub out: BTreeMap<String, PathBuf>,
    #[serde(default)]
    pub expect: Vec<Expect>,
    /// Multi-step files: the device buffers, allocated in this order.
    #[serde(default)]
    pub buffer: Vec<BufferDecl>,
    /// Multi-step files: kernel launches and memsets, run in order.
    #[serde(default)]
    pub step: Vec<Step>,
}

/// `persisting_l2 = 4194304` or `persisting_l2 = "4MiB"`.
fn de_byte_count<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    use serde::de::Error;
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Count {
        Int(i64),
        Text(String),
    }
    match Count::deserialize(d)? {
        Count::Int(n) => u64::try_from(n)
            .map(Some)
            .map_err(|_| D::Error::custom(format!("persisting_l2 {n} is negative"))),
        Count::Text(t) => GpuConfig::parse_bytes(&t)
            .map(Some)
            .map_err(|e| D::Error::custom(format!("persisting_l2: {e}"))),
    }
}

/// An expected output buffer: argument `arg` of a one-kernel file, or buffer `buffer` of a
/// multi-step file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    #[serde(default)]
    pub arg: Option<usize>,
    #[serde(default)]
    pub buffer: Option<String>,
    pub npy: PathBuf,
    #[serde(default)]
    pub max_ulp: u64,
}

impl Expect {
    /// What the expectation checks, for messages: "argument 2" or "buffer `out`".
    pub fn what(&self) -> String {
        match (&self.buffer, self.arg) {
            (Some(b), _) => format!("buffer `{b}`"),
            (None, Some(i)) => format!("argument {i}"),
            (None, None) => "(nothing)".to_string(),
        }
    }
}

/// A device buffer of a multi-step launch file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BufferDecl {
    pub name: String,
    /// Its initial contents: `PATH.npy`, `PATH.bin` or `zeros:TYPE:COUNT`.
    pub init: String,
}

/// One step of a multi-step launch file: a kernel launch (`kernel`, `grid`, `block`,
/// `shared`, `args`), a memset (`memset`, `offset`, `bytes`, `value`) or a device-to-device
/// copy (`copy` = destination `NAME[+OFFSET]`, `from` = source `NAME[+OFFSET]`, `bytes`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    #[serde(default)]
    pub kernel: Option<String>,
    #[serde(default)]
    pub grid: Vec<u32>,
    #[serde(default)]
    pub block: Vec<u32>,
    #[serde(default)]
    pub shared: u32,
    #[serde(default)]
    pub args: Vec<String>,
    /// The buffer a memset step fills.
    #[serde(default)]
    pub memset: Option<String>,
    #[serde(default)]
    pub offset: u64,
    #[serde(default)]
    pub bytes: Option<u64>,
    #[serde(default)]
    pub value: u8,
    /// The destination of a copy step: `NAME[+OFFSET]`.
    #[serde(default)]
    pub copy: Option<String>,
    /// The source of a copy step: `NAME[+OFFSET]`.
    #[serde(default)]
    pub from: Option<String>,
}

impl LaunchFile {
    /// Reads a launch file; paths inside are relative to it.
    pub fn read(path: &Path) -> Result<(LaunchFile, PathBuf), LaunchError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| LaunchError::new(format!("cannot read {}: {e}", path.display())))?;
        let file: LaunchFile = toml::from_str(&text)
            .map_err(|e| LaunchError::new(format!("{}: {e}", path.display())))?;
        file.validate()
            .map_err(|e| LaunchError::new(format!("{}: {e}", path.display())))?;
        let base = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        Ok((file, base))
    }

    /// The `timeout` key as a duration (checked as `--timeout` is).
    pub fn timeout(&self) -> Result<Option<std::time::Duration>, String> {
        self.timeout
            .map(|t| seconds(t).map_err(|e| format!("launch file: timeout: {e}")))
            .transpose()
    }

    /// True for a multi-step file (`[[buffer]]`/`[[step]]`).
    pub fn is_multi_step(&self) -> bool {
        !self.step.is_empty() || !self.buffer.is_empty()
    }

    /// Checks that the file is one of the two forms and that expectations name what exists.
    pub fn validate(&self) -> Result<(), LaunchError> {
        if self.is_multi_step() {
            if !self.kernel.is_empty()
                || !self.grid.is_empty()
                || !self.block.is_empty()
                || !self.args.is_empty()
                || self.shared != 0
                || !self.out.is_empty()
            {
                return err(
                    "a multi-step launch file ([[buffer]], [[step]]) takes no top-level \
                            kernel, grid, block, shared, args or out: each [[step]] has its own",
                );
            }
            if self.step.is_empty() {
                return err("a multi-step launch file needs at least one [[step]]");
            }
            let mut names = std::collections::HashSet::new();
            for b in &self.buffer {
                if !names.insert(b.name.as_str()) {
                    return err(format!("buffer `{}` is declared twice", b.name));
                }
            }
            for (i, st) in self.step.iter().enumerate() {
                let launch_fields =
                    !st.grid.is_empty() || !st.block.is_empty() || !st.args.is_empty();
                match (&st.kernel, &st.memset, &st.copy) {
                    (Some(_), None, None) => {
                        if st.bytes.is_some()
                            || st.offset != 0
                            || st.value != 0
                            || st.from.is_some()
                        {
                            return err(format!(
                                "step {i}: offset/bytes/value/from belong to memset and copy steps"
                            ));
                        }
                    }
                    (None, None, Some(_)) => {
                        if st.from.is_none() || st.bytes.is_none() {
                            return err(format!("step {i}: a copy step needs `from` and `bytes`"));
                        }
                        if launch_fields || st.offset != 0 || st.value != 0 {
                            return err(format!(
                                "step {i}: a copy step takes `copy`, `from` and `bytes` only"
                            ));
                        }
                    }
                    (None, Some(b), None) => {
                        if !names.contains(b.as_str()) {
                            return err(format!("step {i}: memset of undeclared buffer `{b}`"));
                        }
                        if st.bytes.is_none() {
                            return err(format!("step {i}: a memset step needs `bytes`"));
                        }
                        if launch_fields || st.from.is_some() {
                            return err(format!(
                                "step {i}: grid/block/args/from belong to kernel and copy steps"
                            ));
                        }
                    }
                    _ => {
                        return err(format!(
                            "step {i}: give one of `kernel` (a launch), `memset` (a buffer) or \
                             `copy` (a destination)"
                        ))
                    }
                }
            }
            for e in &self.expect {
                match (&e.buffer, e.arg) {
                    (Some(b), None) if names.contains(b.as_str()) => {}
                    (Some(b), None) => {
                        return err(format!("[[expect]] names undeclared buffer `{b}`"))
                    }
                    _ => {
                        return err("[[expect]] in a multi-step file names a `buffer` (not `arg`)")
                    }
                }
            }
        } else {
            if self.kernel.is_empty() {
                return err("a launch file needs `kernel` (or [[step]]s)");
            }
            for e in &self.expect {
                if e.arg.is_none() || e.buffer.is_some() {
                    return err("[[expect]] in a one-kernel file names an argument with `arg`");
                }
            }
        }
        Ok(())
    }
}

/// A wall-clock limit in seconds: positive and finite.
pub fn seconds(t: f64) -> Result<std::time::Duration, String> {
    if t.is_finite() && t > 0.0 {
        std::time::Duration::try_from_secs_f64(t).map_err(|e| format!("{t}: {e}"))
    } else {
        Err(format!("{t} is not a positive number of seconds"))
    }
}

/// Parses `--timeout SECONDS`.
pub fn parse_timeout(text: &str) -> Result<std::time::Duration, String> {
    let t: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    seconds(t)
}

/// `X[,Y[,Z]]` or a list of 1 to 3 numbers → three dimensions.
pub fn dims(v: &[u32], what: &str) -> Result<[u32; 3], LaunchError> {
    match v {
        [x] => Ok([*x, 1, 1]),
        [x, y] => Ok([*x, *y, 1]),
        [x, y, z] => Ok([*x, *y, *z]),
        _ => err(format!("{what} takes 1 to 3 dimensions, {} given", v.len())),
    }
}

/// A launch ready to run.
pub struct PreparedLaunch {
    pub session: Session,
    pub kernel: String,
    pub args: Vec<KernelArg>,
    /// (argument index, address, array) of every buffer argument.
    pub buffers: Vec<(usize, u64, Array)>,
    pub config: LaunchConfig,
}

/// Allocates the buffers and builds the kernel arguments.
pub fn prepare(
    mut session: Session,
    kernel: &str,
    specs: Vec<ArgSpec>,
    config: LaunchConfig,
) -> Result<PreparedLaunch, LaunchError> {
    let mut args = Vec::new();
    let mut buffers = Vec::new();
    let params = session.kernel_params(kernel).ok();
    for (i, spec) in specs.into_iter().enumerate() {
        match spec {
            ArgSpec::TensorMap { buffer, mut map } => {
                let addr = session
                    .alloc_buffer(&buffer.bytes)
                    .map_err(|e| LaunchError::from_exec(&format!("argument {i}: "), &e))?;
                map.global_address = addr;
                let bytes = map.encode().to_vec();
                // A pointer parameter gets a global copy of the map; an array parameter the map.
                let by_pointer = params
                    .as_ref()
                    .and_then(|p| p.get(i))
                    .is_some_and(|(_, ty)| ty.bytes() == 8);
                if by_pointer {
                    let at = session
                        .alloc_buffer(&bytes)
                        .map_err(|e| LaunchError::from_exec(&format!("argument {i}: "), &e))?;
                    args.push(KernelArg::Pointer(at));
                } else {
                    args.push(KernelArg::Bytes(bytes));
                }
                buffers.push((i, addr, buffer));
            }
            ArgSpec::Null => args.push(KernelArg::Pointer(0)),
            ArgSpec::Scalar { ty, bits } => args.push(KernelArg::Scalar { ty, bits }),
            ArgSpec::Buffer(a) => {
                let addr = session
                    .alloc_buffer(&a.bytes)
                    .map_err(|e| LaunchError::from_exec(&format!("argument {i}: "), &e))?;
                args.push(KernelArg::Pointer(addr));
                buffers.push((i, addr, a));
            }
        }
    }
    Ok(PreparedLaunch {
        session,
        kernel: kernel.to_string(),
        args,
        buffers,
        config,
    })
}

impl PreparedLaunch {
    /// Runs the kernel.
    pub fn run(&mut self) -> Result<RunSummary, ptx_exec::ExecError> {
        self.session
            .launch(&self.kernel, &self.args, self.config.clone())
    }

    /// Argument `i`'s buffer after the run.
    pub fn output(&self, i: usize) -> Result<Array, LaunchError> {
        let Some((_, addr, a)) = self.buffers.iter().find(|b| b.0 == i) else {
            return err(format!("argument {i} is not a buffer"));
        };
        let bytes = self
            .session
            .read_buffer(*addr, a.bytes.len())
            .map_err(|e| LaunchError::new(e.to_string()))?;
        Ok(Array { ty: a.ty, bytes })
    }
}

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
fn ulp_distance(a: u64, b: u64, bits: u32) -> u64 {
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

fn format_elem(ty: ScalarType, raw: u64) -> String {
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

/// Checks that `kernel` and every function it calls could be lowered: an instruction the
/// interpreter does not run is reported as `FILE:LINE:COL` when a launch reaches it (other
/// kernels of the module still run).
pub fn check_runnable(session: &Session, kernel: &str, ptx: &Path) -> Result<(), LaunchError> {
    let Some(&k) = session.program.by_name.get(kernel) else {
        return Ok(()); // the launch reports an unknown kernel with the module's kernel names
    };
    session.program.check_runnable(k).map_err(|e| match e {
        ptx_exec::ExecError::Unsupported {
            line,
            column,
            message,
        } => LaunchError::new(format!("{}:{line}:{column}: {message}", ptx.display())),
        other => LaunchError::from_exec("", &other),
    })
}

/// Loads a PTX file into a session.
pub fn load_session(ptx: &Path, gpu: GpuConfig) -> Result<Session, LaunchError> {
    let text = std::fs::read_to_string(ptx)
        .map_err(|e| LaunchError::new(format!("cannot read {}: {e}", ptx.display())))?;
    session_from_source(ptx, &text, gpu)
}

/// Parses and lowers PTX text (named `ptx` in messages) into a session.
pub fn session_from_source(ptx: &Path, text: &str, gpu: GpuConfig) -> Result<Session, LaunchError> {
    let module = ptx_syntax::parse(text).map_err(|errors| {
        let idx = ptx_syntax::LineIndex::new(text);
        let e = &errors[0];
        let lc = idx.line_col(e.span.start, text);
        LaunchError::new(format!(
            "{}:{}:{}: {}",
            ptx.display(),
            lc.line,
            lc.col,
            e.message
        ))
    })?;
    Session::new(&module, text, gpu).map_err(|e| match e {
        ptx_exec::ExecError::Unsupported {
            line,
            column,
            message,
        } => LaunchError::new(format!("{}:{line}:{column}: {message}", ptx.display())),
        other => LaunchError::from_exec("", &other),
    })
}

/// A buffer of a multi-step launch: its name, device address and initial contents.
#[derive(Debug, Clone)]
pub struct NamedBuffer {
    pub name: String,
    pub addr: u64,
    pub init: Array,
}

/// One prepared step of a multi-step launch.
#[derive(Debug, Clone)]
pub enum PreparedStep {
    Launch {
        kernel: String,
        args: Vec<KernelArg>,
        grid: [u32; 3],
        block: [u32; 3],
        shared: u32,
    },
    Memset {
        buffer: String,
        addr: u64,
        value: u8,
        len: usize,
    },
    Copy {
        dst: String,
        src: String,
        dst_addr: u64,
        src_addr: u64,
        len: usize,
    },
}

impl PreparedStep {
    /// One line describing the step (for progress and messages).
    pub fn describe(&self) -> String {
        match self {
            PreparedStep::Launch {
                kernel,
                grid,
                block,
                shared,
                ..
            } => format!(
                "launch `{kernel}` grid ({},{},{}) block ({},{},{}) shared {shared}",
                grid[0], grid[1], grid[2], block[0], block[1], block[2]
            ),
            PreparedStep::Memset {
                buffer, value, len, ..
            } => format!("memset {len} bytes of `{buffer}` to {value:#04x}"),
            PreparedStep::Copy { dst, src, len, .. } => {
                format!("copy {len} bytes from `{src}` to `{dst}`")
            }
        }
    }
}

/// A multi-step launch (`[[buffer]]`, `[[step]]`) ready to run: kernels launched one after
/// the other over the same device memory, every L1 invalidated at each launch (as the driver
/// does between grids), host memsets in between.
pub struct PreparedSteps {
    pub session: Session,
    pub buffers: Vec<NamedBuffer>,
    pub steps: Vec<PreparedStep>,
}

/// Allocates a multi-step file's buffers (in declaration order) and resolves every step's
/// arguments.
pub fn prepare_steps(
    mut session: Session,
    file: &LaunchFile,
    base: &Path,
) -> Result<PreparedSteps, LaunchError> {
    let mut buffers = Vec::new();
    let max_bytes = session.mem.config().memory_bytes;
    for b in &file.buffer {
        let at = |e: LaunchError| LaunchError {
            message: format!("buffer `{}`: {}", b.name, e.message),
            ..e
        };
        let a = match parse_arg_within(&b.init, base, max_bytes).map_err(at)? {
            ArgSpec::Buffer(a) => a,
            _ => {
                return err(format!(
                "buffer `{}`: `{}` is not a buffer (use PATH.npy, PATH.bin or zeros:TYPE:COUNT)",
                b.name, b.init
            ))
            }
        };
        let addr = session
            .alloc_buffer(&a.bytes)
            .map_err(|e| LaunchError::from_exec(&format!("buffer `{}`: ", b.name), &e))?;
        buffers.push(NamedBuffer {
            name: b.name.clone(),
            addr,
            init: a,
        });
    }
    let mut steps = Vec::new();
    for (i, st) in file.step.iter().enumerate() {
        let at = |e: LaunchError| LaunchError {
            message: format!("step {i}: {}", e.message),
            ..e
        };
        if let Some(kernel) = &st.kernel {
            let args = st
                .args
                .iter()
                .map(|a| parse_step_arg(a, &buffers))
                .collect::<Result<Vec<_>, _>>()
                .map_err(at)?;
            steps.push(PreparedStep::Launch {
                kernel: kernel.clone(),
                args,
                grid: dims(&st.grid, "grid").map_err(at)?,
                block: dims(&st.block, "block").map_err(at)?,
                shared: st.shared,
            });
        } else if let Some(name) = &st.memset {
            let b = find_buffer(&buffers, name).map_err(at)?;
            let len = st.bytes.unwrap_or(0);
            if st.offset + len > b.init.bytes.len() as u64 {
                return Err(at(LaunchError::new(format!(
                    "memset of bytes {}..{} of `{name}`, which has {} bytes",
                    st.offset,
                    st.offset + len,
                    b.init.bytes.len()
                ))));
            }
            steps.push(PreparedStep::Memset {
                buffer: name.clone(),
                addr: b.addr + st.offset,
                value: st.value,
                len: len as usize,
            });
        } else if let (Some(dst), Some(src)) = (&st.copy, &st.from) {
            let len = st.bytes.unwrap_or(0);
            let dst_addr = buffer_range(&buffers, dst, len).map_err(at)?;
            let src_addr = buffer_range(&buffers, src, len).map_err(at)?;
            steps.push(PreparedStep::Copy {
                dst: dst.clone(),
                src: src.clone(),
                dst_addr,
                src_addr,
                len: len as usize,
            });
        }
    }
    Ok(PreparedSteps {
        session,
        buffers,
        steps,
    })
}

fn find_buffer<'a>(buffers: &'a [NamedBuffer], name: &str) -> Result<&'a NamedBuffer, LaunchError> {
    buffers.iter().find(|b| b.name == name).ok_or_else(|| {
        LaunchError::new(format!(
            "no buffer named `{name}` (declared: {})",
            buffers
                .iter()
                .map(|b| b.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}

/// `NAME` or `NAME+OFFSET` → the address inside a declared buffer (its end included, as a
/// one-past-the-end pointer may be passed).
fn buffer_address(buffers: &[NamedBuffer], text: &str) -> Result<u64, LaunchError> {
    let (name, off) = match text.split_once('+') {
        Some((n, o)) => (
            n,
            o.parse::<u64>()
                .map_err(|_| LaunchError::new(format!("`{text}`: `{o}` is not a byte offset")))?,
        ),
        None => (text, 0),
    };
    let b = find_buffer(buffers, name)?;
    if off > b.init.bytes.len() as u64 {
        return err(format!(
            "`{text}`: offset {off} is past the end of `{name}` ({} bytes)",
            b.init.bytes.len()
        ));
    }
    Ok(b.addr + off)
}

/// `NAME[+OFFSET]` → the address of `len` bytes that must lie inside the buffer.
fn buffer_range(buffers: &[NamedBuffer], text: &str, len: u64) -> Result<u64, LaunchError> {
    let addr = buffer_address(buffers, text)?;
    let name = text.split_once('+').map_or(text, |(n, _)| n);
    let b = find_buffer(buffers, name)?;
    if addr + len > b.addr + b.init.bytes.len() as u64 {
        return err(format!(
            "`{text}`: {len} bytes run past the end of `{name}` ({} bytes)",
            b.init.bytes.len()
        ));
    }
    Ok(addr)
}

/// An argument of a step: `buf:NAME[+OFFSET]` (a pointer into a buffer), `bytes:HEX` (an
/// aggregate passed by value, where `{NAME+OFFSET}` stands for the 8-byte address), `null`
/// or a scalar `TYPE:VALUE`.
pub fn parse_step_arg(spec: &str, buffers: &[NamedBuffer]) -> Result<KernelArg, LaunchError> {
    if spec == "null" {
        return Ok(KernelArg::Pointer(0));
    }
    if let Some(rest) = spec.strip_prefix("buf:") {
        return Ok(KernelArg::Pointer(buffer_address(buffers, rest)?));
    }
    if let Some(mut rest) = spec.strip_prefix("bytes:") {
        let mut bytes = Vec::new();
        while !rest.is_empty() {
            if let Some(r) = rest.strip_prefix('{') {
                let Some((inner, after)) = r.split_once('}') else {
                    return err(format!("`{spec}`: `{{` without `}}`"));
                };
                bytes.extend_from_slice(&buffer_address(buffers, inner)?.to_le_bytes());
                rest = after;
            } else {
                let hex = rest
                    .get(..2)
                    .filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()));
                let Some(hex) = hex else {
                    return err(format!(
                        "`{spec}`: write bytes as pairs of hex digits, pointers as {{NAME+OFFSET}}"
                    ));
                };
                bytes.push(u8::from_str_radix(hex, 16).expect("hex digits"));
                rest = &rest[2..];
            }
        }
        return Ok(KernelArg::Bytes(bytes));
    }
    if let Some((ty, value)) = spec.split_once(':') {
        if let Some(t) = parse_type(ty) {
            return Ok(KernelArg::Scalar {
                ty: t,
                bits: parse_scalar(t, value)?,
            });
        }
    }
    err(format!(
        "`{spec}` is not a step argument: use buf:NAME[+OFFSET], bytes:HEX (pointers as \
         {{NAME+OFFSET}}), null or TYPE:VALUE; buffers are declared in [[buffer]]"
    ))
}

impl PreparedSteps {
    /// Checks that every kernel the steps launch can be lowered (see [`check_runnable`]).
    pub fn check_runnable(&self, ptx: &Path) -> Result<(), LaunchError> {
        for st in &self.steps {
            if let PreparedStep::Launch { kernel, .. } = st {
                check_runnable(&self.session, kernel, ptx)?;
            }
        }
        Ok(())
    }

    /// Runs step `i` with `base`'s options (seed, step limit, cache model, hazards) and the
    /// step's grid, block and shared memory; `None` for a memset or a copy.
    pub fn run_step(
        &mut self,
        i: usize,
        base: &LaunchConfig,
    ) -> Result<Option<RunSummary>, ptx_exec::ExecError> {
        match &self.steps[i] {
            PreparedStep::Launch {
                kernel,
                args,
                grid,
                block,
                shared,
            } => {
                let config = LaunchConfig {
                    grid: *grid,
                    block: *block,
                    dynamic_shared: *shared,
                    ..base.clone()
                };
                self.session.launch(kernel, args, config).map(Some)
            }
            PreparedStep::Memset {
                addr, value, len, ..
            } => {
                self.session.fill_buffer(*addr, *value, *len)?;
                self.session.last_hazards.clear();
                Ok(None)
            }
            PreparedStep::Copy {
                dst_addr,
                src_addr,
                len,
                ..
            } => {
                let bytes = self.session.read_buffer(*src_addr, *len)?;
                self.session.mem.write(*dst_addr, &bytes)?;
                self.session.last_hazards.clear();
                Ok(None)
            }
        }
    }

    /// Buffer `name`'s contents now, typed as it was declared.
    pub fn buffer(&self, name: &str) -> Result<Array, LaunchError> {
        let b = find_buffer(&self.buffers, name)?;
        let bytes = self
            .session
            .read_buffer(b.addr, b.init.bytes.len())
            .map_err(|e| LaunchError::new(e.to_string()))?;
        Ok(Array {
            ty: b.init.ty,
            bytes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(spec: &str) -> Result<ptx_exec::tensormap::TensorMap, LaunchError> {
        match parse_arg(spec, Path::new("."))? {
            ArgSpec::TensorMap { map, .. } => Ok(map),
            _ => panic!("not a tensor map"),
        }
    }

    #[test]
    fn tensor_map_specs_fill_every_field() {
        let m = map("tensormap[dims=96x64x3,box=32x16x1,swizzle=128B,fill=nan,estrides=1x2x1]:zeros:f32:18432")
            .unwrap();
        assert_eq!(m.rank, 3);
        assert_eq!(m.elem_type.0, 7, "f32 from the buffer");
        assert_eq!(&m.global_dim[..3], &[96, 64, 3]);
        assert_eq!(&m.box_dim[..3], &[32, 16, 1]);
        assert_eq!(
            &m.global_stride[..2],
            &[96 * 4, 96 * 64 * 4],
            "dense strides"
        );
        assert_eq!(&m.element_stride[..3], &[1, 2, 1]);
        assert_eq!((m.swizzle, m.fill_mode), (3, 1));
        let m = map("tensormap[dims=8x4,box=8x4,type=bf16,strides=32]:zeros:u16:64").unwrap();
        assert_eq!((m.elem_type.0, m.global_stride[0]), (10, 32));
    }

    #[test]
    fn bad_tensor_map_specs_say_what_is_wrong() {
        let e = |s: &str| map(s).unwrap_err().message;
        assert!(e("tensormap[dims=8,box=8]").contains("write tensormap["));
        assert!(e("tensormap[dims=8x2,box=8]:zeros:f32:16").contains("same number"));
        assert!(e("tensormap[dims=8,box=8,swizzle=16B]:zeros:f32:8").contains("swizzle is"));
        assert!(e("tensormap[box=8]:zeros:f32:8").contains("required"));
        assert!(e("tensormap[dims=8,box=8,what=1]:zeros:f32:8").contains("unknown key"));
        assert!(e("tensormap[dims=8,box=8]:zeros:s8:8").contains("give the element type"));
        assert!(e("tensormap[dims=8,box=8]:null").contains("must be a buffer"));
        // Found by the launch_file fuzz target: the packed strides of huge dims overflowed.
        let big = "tensormap[dims=4294967295x4294967295x4294967295,box=8x8x8]:zeros:f32:4";
        assert!(e(big).contains("larger than 2^64 bytes"), "{}", e(big));
    }
}
