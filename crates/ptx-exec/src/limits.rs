//! Resource limits of a launch, checked before any CTA runs so that sizes taken from the input
//! (the grid, `--shared`, `.shared`/`.local` declarations) become a clear error instead of a
//! host allocation the machine cannot make.
//!
//! - Grid: at most 2^31 - 1 CTAs in x and 65,535 in y and z (CUDA C++ Programming Guide,
//!   "Technical Specifications per Compute Capability": maximum x-dimension of a grid of
//!   thread blocks 2^31 - 1, maximum y- or z-dimension 65535; every compute capability).
//! - Dynamic shared memory of one CTA: at most the GPU's [`GpuConfig::shared_bytes_per_block`]
//!   (same table: 163 KB on 8.0, 227 KB on 9.0 and 10.0). The static part is not added: the
//!   interpreter lays out the `.shared` variables of every kernel of the module in one area
//!   (a module of several kernels has more static shared memory than any one kernel uses),
//!   and ptxas itself rejects a kernel whose static shared memory exceeds 48 KB.
//! - Local memory: at most 512 KiB per thread (same table: "maximum amount of local memory
//!   per thread 512 KB"), and the local memory of every thread the model keeps resident must
//!   fit in the device memory left free, as the driver reserves it in device memory for the
//!   resident threads when it launches a grid.

use std::time::{Duration, Instant};

use crate::error::ExecError;
use crate::machine::LaunchConfig;
use crate::program::Program;
use memsys::{human_bytes, GpuConfig, MemSystem};

/// Largest x-dimension of a grid.
pub const MAX_GRID_X: u32 = (1 << 31) - 1;
/// Largest y- and z-dimension of a grid.
pub const MAX_GRID_YZ: u32 = 65_535;
/// Largest local memory of one thread.
pub const MAX_LOCAL_BYTES_PER_THREAD: u64 = 512 * 1024;
/// Warp-instructions between two looks at the clock for `LaunchConfig::timeout`: often enough
/// that a timeout is seen within milliseconds, rare enough that the clock costs nothing.
pub const CLOCK_CHECK_STEPS: u64 = 4096;

/// The memory one CTA needs, as checked against the limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CtaMemory {
    /// Static (aligned, every kernel's of the module) plus dynamic shared memory.
    pub shared_bytes: u64,
    /// Local memory of each thread.
    pub local_bytes_per_thread: u64,
}

/// Checks the grid and the memory a launch needs against the GPU's limits.
pub fn check_launch(
    program: &Program,
    cfg: &LaunchConfig,
    mem: &MemSystem,
    resident_ctas: u64,
) -> Result<CtaMemory, ExecError> {
    let [gx, gy, gz] = cfg.grid;
    if gx > MAX_GRID_X || gy > MAX_GRID_YZ || gz > MAX_GRID_YZ {
        return Err(ExecError::Launch(format!(
            "grid {:?} is larger than a GPU launches: x at most {MAX_GRID_X}, y and z at most {MAX_GRID_YZ}",
            cfg.grid
        )));
    }
    let gpu: &GpuConfig = mem.config();
    let shared_bytes = u64::from(program.static_shared_bytes)
        .next_multiple_of(u64::from(program.dynamic_shared_align.max(1)))
        + u64::from(cfg.dynamic_shared);
    if u64::from(cfg.dynamic_shared) > gpu.shared_bytes_per_block {
        return Err(ExecError::Resource(format!(
            "the launch asks for {} bytes of dynamic shared memory per CTA; the {} allows at most \
             {} per block",
            cfg.dynamic_shared, gpu.name, gpu.shared_bytes_per_block
        )));
    }
    // Local memory per thread: the sum of every function's, rounded to 16 bytes (the
    // interpreter's layout of each thread's local area).
    let local: u64 = program
        .functions
        .iter()
        .map(|f| u64::from(f.local_bytes))
        .sum::<u64>()
        .next_multiple_of(16);
    if local > MAX_LOCAL_BYTES_PER_THREAD {
        return Err(ExecError::Resource(format!(
            "the kernel's functions declare {local} bytes of local memory per thread; a thread has \
             at most {MAX_LOCAL_BYTES_PER_THREAD} ({})",
            human_bytes(MAX_LOCAL_BYTES_PER_THREAD)
        )));
    }
    let threads: u64 = cfg.block.iter().map(|&x| u64::from(x)).product();
    let total_ctas = u64::from(gx) * u64::from(gy) * u64::from(gz);
    let resident_threads = threads.next_multiple_of(32) * resident_ctas.min(total_ctas);
    let local_total = local * resident_threads;
    let free = gpu.memory_bytes.saturating_sub(mem.memory_in_use());
    if local_total > free {
        return Err(ExecError::Resource(format!(
            "local memory of {local} bytes per thread for {resident_threads} resident threads needs \
             {local_total} bytes ({}); {free} bytes ({}) of the {}'s device memory are free",
            human_bytes(local_total),
            human_bytes(free),
            gpu.name
        )));
    }
    Ok(CtaMemory {
        shared_bytes,
        local_bytes_per_thread: local,
    })
}

/// `len` zeroed bytes of CTA or warp storage, or a resource error naming `what`.
pub fn zeroed(len: u64, what: &str) -> Result<Vec<u8>, ExecError> {
    usize::try_from(len)
        .ok()
        .and_then(memsys::try_zeroed_bytes)
        .ok_or_else(|| {
            ExecError::Resource(format!(
                "the host cannot provide {len} bytes ({}) of {what}",
                human_bytes(len)
            ))
        })
}

/// The wall-clock deadline of a launch: looked at every [`CLOCK_CHECK_STEPS`] steps.
#[derive(Debug, Clone)]
pub struct Deadline {
    at: Option<Instant>,
    limit: Duration,
    next_check: u64,
}

impl Deadline {
    /// A deadline `timeout` from now (`None`: never).
    pub fn start(timeout: Option<Duration>) -> Self {
        Deadline {
            at: timeout.and_then(|t| Instant::now().checked_add(t)),
            limit: timeout.unwrap_or_default(),
            next_check: CLOCK_CHECK_STEPS,
        }
    }

    /// The limit, for messages.
    pub fn limit(&self) -> Duration {
        self.limit
    }

    /// True once the deadline has passed; reads the clock only every [`CLOCK_CHECK_STEPS`]
    /// steps (`steps` is the launch's warp-instruction count so far).
    #[inline]
    pub fn passed(&mut self, steps: u64) -> bool {
        let Some(at) = self.at else {
            return false;
        };
        if steps < self.next_check {
            return false;
        }
        self.next_check = steps + CLOCK_CHECK_STEPS;
        Instant::now() >= at
    }
}
