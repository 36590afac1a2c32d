//! Kernel launches described by argument specs or TOML launch files (docs/launch-format.md):
//! reading inputs (`.npy`, `.bin`, `zeros:`, scalars, `null`), writing outputs, and checking
//! expected outputs by ULP distance.
//!
//! This file: [`LaunchError`], [`Array`], [`prepare`] and the session helpers. Beside it in
//! `launch/`: `args.rs` (`--arg` specs), `npy.rs`, `file.rs` (TOML launch files), `steps.rs`
//! (multi-step launches), `compare.rs` (ULP checks), `window.rs` (access policy windows).

use memsys::GpuConfig;
use ptx_exec::{KernelArg, LaunchConfig, RunSummary, Session};
use ptx_isa::ScalarType;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod args;
mod compare;
mod file;
mod npy;
mod steps;
mod window;

pub use args::*;
pub use compare::*;
pub use file::*;
pub use npy::*;
pub use steps::*;
pub use window::*;

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

/// A launch ready to run.
pub struct PreparedLaunch {
    pub session: Session,
    pub kernel: String,
    pub args: Vec<KernelArg>,
    /// (argument index, address, array) of every buffer argument.
    pub buffers: Vec<(usize, u64, Array)>,
    pub config: LaunchConfig,
}

impl PreparedLaunch {
    /// Sets the launch's access policy window (`None`: none), resolved against its buffers
    /// and checked as the CUDA runtime checks it.
    pub fn apply_window(&mut self, spec: Option<&WindowSpec>) -> Result<(), LaunchError> {
        self.config.access_policy_window = spec
            .map(|w| w.resolve(&self.buffers, self.args.len(), self.session.mem.config()))
            .transpose()?;
        Ok(())
    }
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
    load_session_with(ptx, gpu, true)
}

/// [`load_session`] for code assembled with ptxas `--fmad=FMAD` (false: no `mul` + `add`
/// contraction).
pub fn load_session_with(ptx: &Path, gpu: GpuConfig, fmad: bool) -> Result<Session, LaunchError> {
    let text = std::fs::read_to_string(ptx)
        .map_err(|e| LaunchError::new(format!("cannot read {}: {e}", ptx.display())))?;
    session_from_source_with(ptx, &text, gpu, fmad)
}

/// Parses and lowers PTX text (named `ptx` in messages) into a session.
pub fn session_from_source(ptx: &Path, text: &str, gpu: GpuConfig) -> Result<Session, LaunchError> {
    session_from_source_with(ptx, text, gpu, true)
}

/// [`session_from_source`] with ptxas's `--fmad` setting.
pub fn session_from_source_with(
    ptx: &Path,
    text: &str,
    gpu: GpuConfig,
    fmad: bool,
) -> Result<Session, LaunchError> {
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
    let options = ptx_exec::lower::LowerOptions { fmad };
    Session::new_with(&module, text, gpu, options).map_err(|e| match e {
        ptx_exec::ExecError::Unsupported {
            line,
            column,
            message,
        } => LaunchError::new(format!("{}:{line}:{column}: {message}", ptx.display())),
        other => LaunchError::from_exec("", &other),
    })
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
