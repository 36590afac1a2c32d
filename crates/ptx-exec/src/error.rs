//! Errors of lowering and execution. Every fault names the kernel, CTA, thread, PTX line
//! (and `.loc` source line when present) and, for memory faults, the address.

use core::fmt;

/// Where in the grid and the code a fault happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultSite {
    pub kernel: String,
    pub cta: [u32; 3],
    pub thread: [u32; 3],
    pub ptx_line: u32,
    /// `file:line` from `.loc`/`.file`, when the module has them.
    pub source: Option<String>,
    pub instruction: String,
}

impl fmt::Display for FaultSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "kernel `{}`, CTA ({},{},{}), thread ({},{},{}), PTX line {}",
            self.kernel,
            self.cta[0],
            self.cta[1],
            self.cta[2],
            self.thread[0],
            self.thread[1],
            self.thread[2],
            self.ptx_line
        )?;
        if let Some(s) = &self.source {
            write!(f, " (source {s})")?;
        }
        write!(f, ": `{}`", self.instruction)
    }
}

/// What went wrong at a fault site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaultKind {
    /// An access outside every allocation of its space.
    OutOfBounds {
        space: &'static str,
        address: u64,
        bytes: u32,
    },
    /// An address not aligned to the access size.
    Misaligned {
        space: &'static str,
        address: u64,
        bytes: u32,
    },
    /// A generic address outside every window.
    BadGeneric { address: u64 },
    /// A `trap` instruction.
    Trap,
    /// A `brkpt` instruction (with no debugger attached, the kernel stops with an exception).
    Breakpoint,
    /// More warp-instructions than `--max-steps`; `warps` says where the CTA's warps were.
    StepLimit { steps: u64, warps: String },
    /// The launch ran longer than `--timeout` (wall clock); `steps` warp-instructions had run.
    TimeLimit {
        millis: u64,
        steps: u64,
        warps: String,
    },
    /// Threads wait at a barrier that other threads of the CTA never reach.
    BarrierDeadlock {
        waiting: u32,
        expected: u32,
        missing: String,
    },
    /// A failed device `assert` (`__assertfail`), with the runtime's message.
    Assert(String),
    /// Anything else the kernel did that the model cannot honour.
    Other(String),
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FaultKind::OutOfBounds { space, address, bytes } => write!(
                f,
                "out-of-bounds {space} access of {bytes} bytes at address 0x{address:x}"
            ),
            FaultKind::Misaligned { space, address, bytes } => write!(
                f,
                "misaligned {space} access: address 0x{address:x} is not a multiple of {bytes}"
            ),
            FaultKind::BadGeneric { address } => write!(
                f,
                "generic address 0x{address:x} is outside every window (global, shared, local, param, const)"
            ),
            FaultKind::Trap => write!(f, "trap instruction executed"),
            FaultKind::Breakpoint => write!(
                f,
                "brkpt instruction executed (with no debugger attached the kernel stops here)"
            ),
            FaultKind::StepLimit { steps, warps } => write!(
                f,
                "more than {steps} warp-instructions executed (raise --max-steps if the kernel is meant to run this long); this CTA's {warps}"
            ),
            FaultKind::TimeLimit { millis, steps, warps } => write!(
                f,
                "the launch ran longer than {} s of wall-clock time ({steps} warp-instructions; raise --timeout if the kernel is meant to run this long); this CTA's {warps}",
                *millis as f64 / 1000.0
            ),
            FaultKind::BarrierDeadlock { waiting, expected, missing } => write!(
                f,
                "barrier never completes: {waiting} of {expected} threads arrived; {missing}"
            ),
            FaultKind::Assert(m) => write!(f, "device assert failed: {m}"),
            FaultKind::Other(m) => f.write_str(m),
        }
    }
}

/// An error of lowering or running a kernel.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExecError {
    /// The module uses something the interpreter cannot run (found while lowering).
    #[error("line {line}:{column}: {message}")]
    Unsupported {
        line: u32,
        column: u32,
        message: String,
    },
    /// The kernel faulted.
    #[error("{kind} in {site}")]
    Fault {
        site: Box<FaultSite>,
        kind: FaultKind,
    },
    /// The launch itself is wrong (unknown kernel, bad arguments, sizes).
    #[error("{0}")]
    Launch(String),
    /// The launch needs more of a resource than the GPU (or the host running the model) has:
    /// shared or local memory, host memory for the model's state.
    #[error("{0}")]
    Resource(String),
    /// The memory model refused a request outside any kernel instruction (setup, readback).
    #[error("memory: {0}")]
    Memory(#[from] memsys::MemError),
}

impl ExecError {
    /// True when the launch failed for want of a resource (device memory past the GPU's,
    /// shared or local memory past its limits, host memory) rather than for a wrong input.
    pub fn is_resource_limit(&self) -> bool {
        match self {
            ExecError::Resource(_) => true,
            ExecError::Memory(e) => e.is_resource_limit(),
            _ => false,
        }
    }
}
