//! The per-SM limits that decide how many CTAs an SM holds at once (`[occupancy]` of a GPU
//! TOML file). memsys only carries them; `ptx_exec::residency` applies them (the formula of
//! NVIDIA's occupancy calculator, `cuda_occupancy.h`), and both the interpreter's resident
//! CTAs and the time estimate use that one function.
//!
//! Sources, for compute capability 8.0 (A100) and 9.0 (H100; 10.0, B200, has the same
//! figures in the table):
//! - CUDA C++ Programming Guide, "Technical Specifications per Compute Capability": maximum
//!   resident blocks per SM 32 (8.0, 9.0, 10.0); maximum resident warps per SM 64 and threads
//!   per SM 2048; 64K 32-bit registers per SM and per block; maximum 255 registers per
//!   thread; maximum shared memory per SM 164 KB (8.0) and 228 KB (9.0, 10.0); maximum
//!   shared memory per block 163 KB (8.0) and 227 KB (9.0, 10.0).
//! - `cuda_occupancy.h` (the CUDA occupancy calculator, shipped with the toolkit):
//!   `cudaOccRegAllocationGranularity` 256 registers (per warp), `cudaOccSMemAllocationGranularity`
//!   128 bytes from compute capability 8, `cudaOccSubPartitionsPerMultiprocessor` 4, and
//!   `reservedSharedMemPerBlock` (`cudaDevAttrReservedSharedMemoryPerBlock`) 1 KiB per CTA
//!   ("Starting Ampere, CUDA driver reserves additional shared memory per block").

use serde::{Deserialize, Serialize};

use crate::error::MemError;

/// Per-SM residency limits of one GPU (see the module documentation for each figure's source).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OccupancyConfig {
    /// Threads resident on an SM at most (2048).
    pub max_threads_per_sm: u32,
    /// Warps resident on an SM at most (64).
    pub max_warps_per_sm: u32,
    /// CTAs resident on an SM at most (32 on 8.0 and 9.0).
    pub max_ctas_per_sm: u32,
    /// 32-bit registers of an SM's register file (65,536).
    pub registers_per_sm: u32,
    /// Registers one CTA may use at most (65,536; `regsPerBlock`).
    pub registers_per_cta: u32,
    /// Registers one thread may use at most (255).
    pub max_registers_per_thread: u32,
    /// A warp's registers are allocated in units of this many (256).
    pub register_allocation_unit: u32,
    /// Processing blocks per SM: each holds a quarter of the register file, and a warp's
    /// registers come from one of them (4; `cudaOccSubPartitionsPerMultiprocessor`).
    pub register_file_partitions: u32,
    /// Shared memory of an SM that CTAs may use at most (228 KiB on 9.0, 164 KiB on 8.0), the
    /// default carve-out `cuda_occupancy.h` assumes.
    pub shared_bytes_per_sm: u64,
    /// Shared memory is allocated to a CTA in units of this many bytes (128).
    pub shared_allocation_unit: u64,
    /// Shared memory the driver reserves for each CTA (1 KiB from 8.0 on).
    pub shared_reserved_per_cta: u64,
}

impl Default for OccupancyConfig {
    fn default() -> Self {
        Self::h100()
    }
}

impl OccupancyConfig {
    /// Compute capability 9.0 (H100).
    pub fn h100() -> Self {
        Self {
            max_threads_per_sm: 2048,
            max_warps_per_sm: 64,
            max_ctas_per_sm: 32,
            registers_per_sm: 65_536,
            registers_per_cta: 65_536,
            max_registers_per_thread: 255,
            register_allocation_unit: 256,
            register_file_partitions: 4,
            shared_bytes_per_sm: 228 * 1024,
            shared_allocation_unit: 128,
            shared_reserved_per_cta: 1024,
        }
    }

    /// Compute capability 8.0 (A100): the H100's figures but 164 KiB of shared memory per SM.
    pub fn a100() -> Self {
        Self {
            shared_bytes_per_sm: 164 * 1024,
            ..Self::h100()
        }
    }

    /// Compute capability 10.0 (B200): the same figures as 9.0 in the programming guide.
    pub fn b200() -> Self {
        Self::h100()
    }

    pub(crate) fn validate(&self) -> Result<(), MemError> {
        let positive = [
            ("max_threads_per_sm", self.max_threads_per_sm),
            ("max_warps_per_sm", self.max_warps_per_sm),
            ("max_ctas_per_sm", self.max_ctas_per_sm),
            ("registers_per_sm", self.registers_per_sm),
            ("registers_per_cta", self.registers_per_cta),
            ("max_registers_per_thread", self.max_registers_per_thread),
            ("register_allocation_unit", self.register_allocation_unit),
            ("register_file_partitions", self.register_file_partitions),
        ];
        for (name, v) in positive {
            if v == 0 {
                return Err(MemError::Config(format!("occupancy.{name} must be > 0")));
            }
        }
        if self.shared_allocation_unit == 0 {
            return Err(MemError::Config(
                "occupancy.shared_allocation_unit must be > 0".into(),
            ));
        }
        if self.max_ctas_per_sm > 1024 || self.max_warps_per_sm > 1024 {
            return Err(MemError::Config(format!(
                "occupancy: max_ctas_per_sm {} and max_warps_per_sm {} must be at most 1024",
                self.max_ctas_per_sm, self.max_warps_per_sm
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::GpuConfig;

    #[test]
    fn gpu_toml_files_override_the_limits() {
        let g =
            GpuConfig::from_toml("preset = \"h100\"\n[occupancy]\nmax_ctas_per_sm = 16\n").unwrap();
        assert_eq!(g.occupancy.max_ctas_per_sm, 16);
        assert_eq!(
            g.occupancy.shared_bytes_per_sm,
            228 * 1024,
            "the rest is the preset's"
        );
        assert_eq!(GpuConfig::a100().occupancy.shared_bytes_per_sm, 164 * 1024);
        let e = GpuConfig::from_toml("preset = \"h100\"\n[occupancy]\nmax_ctas_per_sm = 0\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("occupancy.max_ctas_per_sm must be > 0"), "{e}");
        let e = GpuConfig::from_toml("[occupancy]\nmax_blocks = 3\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("max_blocks"), "{e}");
    }
}
