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
    #[error("invalid cache policy: {0}")]
    Policy(String),
}
