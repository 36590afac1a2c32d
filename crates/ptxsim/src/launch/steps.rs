//! Multi-step launch files: named buffers, steps (kernel launches and host copies), and
//! step arguments that name buffers.

use super::*;

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
        /// Registers per thread from the launch file (the step's, else the file's).
        registers: Option<u32>,
        /// The access policy window from the launch file (the step's, else the file's).
        window: Option<memsys::AccessPolicyWindow>,
    },
    /// `cudaCtxResetPersistingL2Cache()`: every persisting L2 line becomes normal.
    ResetPersisting,
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
            PreparedStep::ResetPersisting => {
                "reset persisting L2 lines to normal (cudaCtxResetPersistingL2Cache)".to_string()
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
    /// Lines the last `reset_persisting_l2` step made normal.
    pub last_reset_lines: Option<u64>,
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
                registers: st.registers_per_thread.or(file.registers_per_thread),
                window: st
                    .access_policy_window
                    .as_ref()
                    .or(file.access_policy_window.as_ref())
                    .map(|w| w.resolve_named(&buffers, session.mem.config()))
                    .transpose()
                    .map_err(at)?,
            });
        } else if st.reset_persisting_l2 {
            steps.push(PreparedStep::ResetPersisting);
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
        last_reset_lines: None,
    })
}

pub(super) fn find_buffer<'a>(
    buffers: &'a [NamedBuffer],
    name: &str,
) -> Result<&'a NamedBuffer, LaunchError> {
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
pub(super) fn buffer_address(buffers: &[NamedBuffer], text: &str) -> Result<u64, LaunchError> {
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
pub(super) fn buffer_range(
    buffers: &[NamedBuffer],
    text: &str,
    len: u64,
) -> Result<u64, LaunchError> {
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

    /// Runs step `i` with `base`'s options (seed, step limit, cache model, hazards,
    /// `--registers-per-thread`) and the step's grid, block, shared memory and registers;
    /// `None` for a memset or a copy.
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
                registers,
                window,
            } => {
                let from_file = registers.map(|per_thread| ptx_exec::Registers {
                    per_thread,
                    source: ptx_exec::RegisterSource::LaunchFile,
                });
                let config = LaunchConfig {
                    grid: *grid,
                    block: *block,
                    dynamic_shared: *shared,
                    registers: base.registers.or(from_file),
                    access_policy_window: base.access_policy_window.or(*window),
                    // Counters-only: a later step may read what this one stores.
                    exact_stores: base.exact_stores || base.counters_only,
                    ..base.clone()
                };
                self.session.next_step = Some(i as u32);
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
                self.session.discarded.written(*dst_addr, *len as u64);
                self.session.last_hazards.clear();
                Ok(None)
            }
            PreparedStep::ResetPersisting => {
                self.last_reset_lines = Some(self.session.mem.reset_persisting_l2());
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
