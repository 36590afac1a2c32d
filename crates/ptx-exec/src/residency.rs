//! CTA residency: how many CTAs of a launch one SM holds at once, and which resource binds.
//! The interpreter keeps that many CTAs per SM resident ([`crate::machine::Machine`]) and the time
//! estimate (`ptxsim_report::timing`) counts its waves with the same function.
//!
//! The formula is NVIDIA's occupancy calculator (`cuda_occupancy.h`,
//! `cudaOccMaxActiveBlocksPerMultiprocessor`, default carve-out, partitioned global caching
//! off as on every GPU from 7.0): the fewest CTAs of four limits,
//! - warps: `max_warps_per_sm / ceil(threads / 32)` (`cudaOccMaxBlocksPerSMWarpsLimit`),
//! - CTAs: `max_ctas_per_sm` (`cudaOccMaxBlocksPerMultiprocessor`),
//! - registers (`cudaOccMaxBlocksPerSMRegsLimit`): a warp gets `registers x 32` rounded up to
//!   the 256-register allocation unit, from one of the 4 register-file partitions of
//!   `registers_per_sm / 4`; a CTA fits none when `registers x 32` per warp times its warps
//!   (also times its warps rounded up to a multiple of 4, the hardware's check) exceeds
//!   `registers_per_cta`, or when a thread has more than 255 registers,
//! - shared memory (`cudaOccMaxBlocksPerSMSmemLimit`): static + dynamic + the 1 KiB the
//!   driver reserves per CTA, rounded up to 128 bytes; none fits when that exceeds the
//!   per-CTA maximum plus the reservation (`cudaOccSMemPerBlock`).
//!
//! The limits themselves are the GPU preset's `[occupancy]` ([`memsys::OccupancyConfig`],
//! each figure with its source).

use memsys::OccupancyConfig;
use serde::{Deserialize, Serialize};

/// Where a launch's registers-per-thread figure came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RegisterSource {
    /// `registers_per_thread` in a launch file.
    #[serde(rename = "launch file")]
    LaunchFile,
    /// `--registers-per-thread` on the command line (or the Python `registers_per_thread`).
    #[serde(rename = "flag")]
    Flag,
    /// The `n_regs` of Triton's compiled kernel.
    #[serde(rename = "triton")]
    Triton,
    /// Estimated from the PTX ([`crate::register_estimate`]).
    #[serde(rename = "estimate")]
    Estimate,
}

impl RegisterSource {
    /// The name reports print: `launch file`, `flag`, `triton`, `estimate`.
    pub fn label(self) -> &'static str {
        match self {
            RegisterSource::LaunchFile => "launch file",
            RegisterSource::Flag => "flag",
            RegisterSource::Triton => "triton",
            RegisterSource::Estimate => "estimate",
        }
    }
}

/// Registers per thread given for a launch (what `ptxas -v` prints), and by whom.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Registers {
    pub per_thread: u32,
    pub source: RegisterSource,
}

/// A per-SM resource that limits how many CTAs an SM holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    Warps,
    Registers,
    SharedMemory,
    Ctas,
}

impl Limit {
    pub fn label(self) -> &'static str {
        match self {
            Limit::Warps => "warps",
            Limit::Registers => "registers",
            Limit::SharedMemory => "shared memory",
            Limit::Ctas => "CTA slots",
        }
    }
}

/// What one CTA of a launch needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CtaNeeds {
    pub threads: u32,
    /// Registers per thread; 0: unknown (no register limit).
    pub registers_per_thread: u32,
    /// Static plus dynamic shared memory, bytes (without the driver's reservation).
    pub shared_bytes: u64,
}

/// CTAs per SM and the limits behind it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Residency {
    /// CTAs one SM holds at once (0: a CTA does not fit; the launch fails on hardware).
    pub ctas_per_sm: u32,
    /// Every limit that equals `ctas_per_sm` (the binding ones), in the order warps,
    /// registers, shared memory, CTA slots.
    pub limited_by: Vec<Limit>,
    /// CTAs per SM each resource allows (`None`: that resource sets no limit).
    pub by_warps: u32,
    pub by_registers: Option<u32>,
    pub by_shared_memory: u32,
    pub by_ctas: u32,
    pub registers_per_thread: u32,
    /// Where `registers_per_thread` came from (`None` where the caller gave none).
    pub registers_source: Option<RegisterSource>,
    /// Registers allocated to one CTA (warps x the rounded registers of a warp).
    pub registers_per_cta: u32,
    /// Static plus dynamic shared memory one CTA asks for.
    pub shared_bytes_per_cta: u64,
    /// Shared memory allocated to one CTA: that plus the driver's reservation, rounded up.
    pub shared_bytes_allocated: u64,
}

impl Residency {
    /// "4 CTAs/SM limited by registers".
    pub fn describe(&self) -> String {
        let by: Vec<&str> = self.limited_by.iter().map(|l| l.label()).collect();
        format!(
            "{} CTA{}/SM limited by {}",
            self.ctas_per_sm,
            if self.ctas_per_sm == 1 { "" } else { "s" },
            by.join(" and ")
        )
    }
}

/// CTAs of shape `cta` one SM holds at once under `occ`, where one CTA may use at most
/// `max_shared_per_cta` bytes of shared memory (the GPU's `shared_bytes_per_block`).
pub fn ctas_per_sm(occ: &OccupancyConfig, max_shared_per_cta: u64, cta: CtaNeeds) -> Residency {
    let warps = cta.threads.max(1).div_ceil(32);
    let max_warps = occ.max_warps_per_sm.min(occ.max_threads_per_sm / 32);
    let by_warps = max_warps / warps;
    let by_ctas = occ.max_ctas_per_sm;
    // Registers (cudaOccMaxBlocksPerSMRegsLimit).
    let unit = occ.register_allocation_unit.max(1);
    let parts = occ.register_file_partitions.max(1);
    let per_warp = (u64::from(cta.registers_per_thread) * 32).next_multiple_of(u64::from(unit));
    let per_cta = per_warp * u64::from(warps);
    let assumed = per_warp * u64::from(warps.next_multiple_of(parts));
    let by_registers = if cta.registers_per_thread == 0 {
        None
    } else if cta.registers_per_thread > occ.max_registers_per_thread
        || per_cta > u64::from(occ.registers_per_cta)
        || assumed > u64::from(occ.registers_per_cta)
    {
        Some(0)
    } else {
        let warps_per_part = u64::from(occ.registers_per_sm / parts) / per_warp;
        Some((warps_per_part * u64::from(parts) / u64::from(warps)) as u32)
    };
    // Shared memory (cudaOccMaxBlocksPerSMSmemLimit, cudaOccSMemPerBlock).
    let shared = (cta.shared_bytes + occ.shared_reserved_per_cta)
        .next_multiple_of(occ.shared_allocation_unit.max(1));
    let by_shared = if shared > max_shared_per_cta + occ.shared_reserved_per_cta {
        0
    } else {
        (occ.shared_bytes_per_sm / shared.max(1)).min(u64::from(u32::MAX)) as u32
    };
    let n = by_warps
        .min(by_ctas)
        .min(by_shared)
        .min(by_registers.unwrap_or(u32::MAX));
    let mut limited_by = Vec::new();
    for (limit, v) in [
        (Limit::Warps, Some(by_warps)),
        (Limit::Registers, by_registers),
        (Limit::SharedMemory, Some(by_shared)),
        (Limit::Ctas, Some(by_ctas)),
    ] {
        if v == Some(n) {
            limited_by.push(limit);
        }
    }
    Residency {
        ctas_per_sm: n,
        limited_by,
        by_warps,
        by_registers,
        by_shared_memory: by_shared,
        by_ctas,
        registers_per_thread: cta.registers_per_thread,
        registers_source: None,
        registers_per_cta: per_cta.min(u64::from(u32::MAX)) as u32,
        shared_bytes_per_cta: cta.shared_bytes,
        shared_bytes_allocated: shared,
    }
}

/// The most registers per thread (the per-thread maximum, else a multiple of ptxas's unit
/// of 8) with which a CTA of `threads` threads still fits the register file: what ptxas
/// holds a kernel to when it knows the block size (`.maxntid`, `__launch_bounds__`). Caps
/// an estimate, never a figure the user gave.
pub fn max_fitting_registers(occ: &OccupancyConfig, threads: u32) -> u32 {
    let fits = |r: u32| {
        ctas_per_sm(
            occ,
            u64::MAX / 4,
            CtaNeeds {
                threads,
                registers_per_thread: r,
                shared_bytes: 0,
            },
        )
        .by_registers
        .is_none_or(|n| n > 0)
    };
    let max = occ.max_registers_per_thread;
    if fits(max) {
        return max;
    }
    let mut r = max / 8 * 8;
    while r > 8 && !fits(r) {
        r -= 8;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h100(threads: u32, regs: u32, shared: u64) -> Residency {
        ctas_per_sm(
            &OccupancyConfig::h100(),
            227 * 1024,
            CtaNeeds {
                threads,
                registers_per_thread: regs,
                shared_bytes: shared,
            },
        )
    }

    #[test]
    fn registers_bind_256_threads_64_registers_on_sm_90() {
        // cuda_occupancy.h on 9.0: 8 warps per CTA; a warp gets 64 x 32 = 2048 registers (a
        // multiple of 256); a partition has 65536 / 4 = 16384, so 8 warps, 32 per SM: 32 / 8 =
        // 4 CTAs. Warps: 64 / 8 = 8; CTA slots 32; shared: (0 + 1024) rounded to 128 = 1024,
        // 233472 / 1024 = 228.
        let r = h100(256, 64, 0);
        assert_eq!(r.ctas_per_sm, 4);
        assert_eq!(r.limited_by, vec![Limit::Registers]);
        assert_eq!(
            (r.by_warps, r.by_registers, r.by_shared_memory, r.by_ctas),
            (8, Some(4), 228, 32)
        );
        assert_eq!(r.registers_per_cta, 8 * 2048);
    }

    #[test]
    fn warps_bind_small_register_counts() {
        // 128 threads, 32 registers: 4 warps; 1024 registers a warp, 16 warps per partition,
        // 64 per SM: 16 CTAs; warps 64 / 4 = 16 as well: both bind.
        let r = h100(128, 32, 0);
        assert_eq!(r.ctas_per_sm, 16);
        assert_eq!(r.limited_by, vec![Limit::Warps, Limit::Registers]);
    }

    #[test]
    fn cta_slots_bind_tiny_ctas() {
        // 32 threads, 16 registers: warps 64, registers 512 a warp -> 32 per partition, 128
        // per SM, 128 CTAs; slots 32.
        let r = h100(32, 16, 0);
        assert_eq!(r.ctas_per_sm, 32);
        assert_eq!(r.limited_by, vec![Limit::Ctas]);
        assert_eq!(r.by_registers, Some(128));
    }

    #[test]
    fn shared_memory_binds_with_the_reservation_and_rounding() {
        // 128 threads, 40 registers, 48 KiB + 100 B: (49152 + 100 + 1024) = 50276, rounded to
        // 128: 50304; 233472 / 50304 = 4. Registers: 40 x 32 = 1280 a warp (a multiple of
        // 256), 16384 / 1280 = 12 warps per partition, 48 per SM, 12 CTAs.
        let r = h100(128, 40, 49_152 + 100);
        assert_eq!(r.shared_bytes_allocated, 50_304);
        assert_eq!(r.ctas_per_sm, 4);
        assert_eq!(r.limited_by, vec![Limit::SharedMemory]);
        assert_eq!(r.by_registers, Some(12));
        // 112 KiB + the 1 KiB reservation = 115712 (a multiple of 128); 233472 / 115712 = 2.
        assert_eq!(h100(128, 0, 112 * 1024).ctas_per_sm, 2);
        // On the A100 (164 KiB per SM): 167936 / 115712 = 1.
        let a = ctas_per_sm(
            &OccupancyConfig::a100(),
            163 * 1024,
            CtaNeeds {
                threads: 128,
                registers_per_thread: 0,
                shared_bytes: 112 * 1024,
            },
        );
        assert_eq!(a.ctas_per_sm, 1);
    }

    #[test]
    fn registers_round_to_the_allocation_unit_per_warp() {
        // 255 registers: 8160 a warp, rounded to 8192; 16384 / 8192 = 2 warps per partition,
        // 8 per SM. 256 threads (8 warps): 1 CTA.
        let r = h100(256, 255, 0);
        assert_eq!(r.by_registers, Some(1));
        assert_eq!(r.registers_per_cta, 8 * 8192);
        // 1024 threads x 64 registers: 32 warps x 2048 = 65536 registers, exactly a CTA's
        // maximum: fits once. 1024 x 72 = 32 x 2304 = 73728: does not fit.
        assert_eq!(h100(1024, 64, 0).ctas_per_sm, 1);
        assert_eq!(h100(1024, 72, 0).ctas_per_sm, 0);
        // The hardware check rounds warps up to the 4 partitions: 5 warps (160 threads) of 255
        // registers allocate 5 x 8192 = 40960 but are checked as 8 x 8192 = 65536: fits.
        assert_eq!(h100(160, 255, 0).by_registers, Some(1));
        // 256 registers exceed the per-thread maximum.
        assert_eq!(h100(32, 256, 0).ctas_per_sm, 0);
    }

    #[test]
    fn shared_memory_over_the_block_maximum_fits_none() {
        assert_eq!(h100(32, 0, 227 * 1024).ctas_per_sm, 1);
        assert_eq!(h100(32, 0, 227 * 1024 + 1).ctas_per_sm, 0);
    }

    #[test]
    fn register_caps_for_estimates() {
        let occ = OccupancyConfig::h100();
        // 1024 threads: 64 registers fill the register file exactly (above).
        assert_eq!(max_fitting_registers(&occ, 1024), 64);
        // 256 threads of 255 registers: 8 warps x 8192 = 65536, fits.
        assert_eq!(max_fitting_registers(&occ, 256), 255);
        // 288 threads (9 warps, checked as 12): 12 x 8192 > 65536; 168 registers: 5376 a
        // warp, 12 x 5376 = 64512 fits; 176: 5632, 12 x 5632 = 67584 does not.
        assert_eq!(max_fitting_registers(&occ, 288), 168);
    }
}
