//! The crate's one error type.

use thiserror::Error;

/// Everything that can go wrong in memsys: access faults (reported with the address, so the
/// interpreter can name the thread and instruction), bad requests and bad configurations.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MemError {
    /// An access touches bytes outside every allocation.
    #[error("address 0x{addr:x} ({bytes} bytes) is outside every global allocation")]
    Unmapped { addr: u64, bytes: u32 },
    /// An access of zero bytes or wider than 128 bytes.
    #[error("access at 0x{addr:x} has unsupported size {bytes} (1..=128 bytes)")]
    BadSize { addr: u64, bytes: u32 },
    /// The request names an SM the configuration does not have.
    #[error("SM {sm} does not exist (the configuration has {sm_count} SMs)")]
    NoSuchSm { sm: u32, sm_count: u32 },
    /// memsys models global (and local/const/param) memory; shared memory is outside the caches.
    #[error("{what} is not handled by the memory hierarchy model")]
    Unsupported { what: &'static str },
    /// A warp request with more lane accesses than one request can carry.
    #[error("a request carries {lanes} lane accesses, at most {max} are supported")]
    TooManyLanes { lanes: usize, max: usize },
    /// The data buffer does not match the lanes' total size.
    #[error("data buffer holds {got} bytes but the lanes need {need}")]
    BufferSize { got: usize, need: usize },
    /// An allocation request that cannot be honoured.
    #[error("cannot allocate {bytes} bytes aligned to {align}: {why}")]
    Alloc {
        bytes: u64,
        align: u64,
        why: &'static str,
    },
    /// An allocation past the GPU's device memory (`GpuConfig::memory_bytes`).
    #[error(
        "out of device memory: cannot allocate {bytes} bytes ({}); {in_use} of the GPU's {capacity} bytes ({}) are in use",
        crate::error::human_bytes(*.bytes),
        crate::error::human_bytes(*.capacity)
    )]
    OutOfMemory {
        bytes: u64,
        in_use: u64,
        capacity: u64,
    },
    /// The host could not provide the memory behind an allocation within the GPU's capacity.
    #[error("the host cannot provide {bytes} bytes ({}) for a device allocation", crate::error::human_bytes(*.bytes))]
    HostOutOfMemory { bytes: u64 },
    /// A host read or write outside every allocation.
    #[error("host access 0x{addr:x}..+{bytes} is outside every global allocation")]
    HostUnmapped { addr: u64, bytes: u64 },
    /// A configuration that cannot describe a cache (or a TOML file that does not parse).
    #[error("invalid GPU configuration: {0}")]
    Config(String),
    /// A trace access that failed, with its position in the trace (0-based).
    #[error("trace access {index}: {source}")]
    Replay { index: u64, source: Box<MemError> },
    /// A cache-policy value or policy parameters that cannot be encoded.
    /// An access policy window the CUDA runtime would refuse (`system/l2_control.rs`).
    #[error("invalid access policy window: {0}")]
    Window(String),
    /// A `discard`/`applypriority` address that is not a mapped, line-aligned global line.
    #[error("{op} at 0x{addr:x}: {why}")]
    L2Control {
        op: &'static str,
        addr: u64,
        why: &'static str,
    },
    #[error("invalid cache policy: {0}")]
    Policy(String),
}

impl MemError {
    /// True for errors of running out of a resource (device memory past the GPU's capacity,
    /// or host memory) rather than of a wrong request.
    pub fn is_resource_limit(&self) -> bool {
        matches!(
            self,
            MemError::OutOfMemory { .. } | MemError::HostOutOfMemory { .. }
        )
    }
}

/// `bytes` in binary units for messages: "3.7 TiB", "81559 MiB", "512 B".
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 || value.fract() == 0.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}
