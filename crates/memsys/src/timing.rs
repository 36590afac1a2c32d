//! The hardware figures the kernel-time estimate is computed from (`ptxsim_report::timing`):
//! clock, per-SM issue, shared-memory and tensor-core rates, L2 and DRAM bandwidth, launch
//! overhead and the persisting set-aside's cost on DRAM writes. memsys only
//! carries them (as `[timing]` of a GPU TOML file); it does not use them.
//!
//! Every figure says where it comes from: a datasheet/whitepaper/programming-guide number, or a
//! measurement on the H100 (`tests/timing/data/`, copied from the project's shared hardware
//! data with its source). How the estimate uses them is docs/timing.md.

use serde::{Deserialize, Serialize};

use crate::error::MemError;

/// Timing parameters of one GPU. All rates are peaks of the whole unit named; the estimate
/// divides the work a run did by them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimingConfig {
    /// SM clock (MHz) the per-clock rates below run at.
    pub sm_clock_mhz: f64,
    /// Fixed cost of a launch (ns): from the launch to the first CTA running, plus the
    /// kernel's drain, as `gpu__time_duration` counts it for a kernel that does nothing.
    pub launch_overhead_ns: f64,
    /// Warp instructions each SM issues per clock (one per scheduler).
    pub issue_per_clk: f64,
    /// Cycles between two instructions of one warp when nothing else limits it (dependent
    /// issue, short scoreboard waits): the latency term of a kernel with too few warps to
    /// hide it.
    pub warp_cycles_per_instruction: f64,
    /// Bytes per clock the unified L1/shared-memory data array of one SM moves (shared
    /// loads and stores, `ldmatrix`, `cp.async` destination writes, L1 hits read and L1 fills).
    pub l1_bytes_per_clk: f64,
    /// Dense FP16 tensor-core FLOP per clock per SM for warp-level `mma`/`wmma`.
    pub mma_flops_per_clk: f64,
    /// Dense FP16 tensor-core FLOP per clock per SM for warpgroup `wgmma`.
    pub wgmma_flops_per_clk: f64,
    /// L2 bytes per clock, whole chip (sectors looked up by reads and writes).
    pub l2_bytes_per_clk: f64,
    /// DRAM peak bandwidth (GB/s = bytes per ns).
    pub dram_peak_gb_s: f64,
    /// Fraction of the DRAM peak a streaming read reaches.
    pub dram_read_efficiency: f64,
    /// Fraction of the DRAM peak a streaming write (write-backs) reaches with no set-aside.
    pub dram_write_efficiency: f64,
    /// How much longer DRAM writes take under a persisting set-aside: points
    /// `[set-aside / L2 size, time factor]`, linear between points, flat beyond the ends.
    pub setaside_write_slowdown: Vec<[f64; 2]>,
}

/// The H100's measured curve (`l2/bandwidth_setaside.csv`, 256 MiB write pass, launch
/// overhead removed): 0-8 MiB of 50 MiB -> 1.0; 16 and 24 MiB -> 1.31; 31.25 MiB (the
/// maximum) -> 2.51.
fn h100_setaside_curve() -> Vec<[f64; 2]> {
    vec![
        [0.0, 1.0],
        [0.16, 1.0],
        [0.32, 1.31],
        [0.48, 1.31],
        [0.625, 2.51],
    ]
}

impl TimingConfig {
    /// NVIDIA H100 SXM5 80 GB HBM3.
    ///
    /// - 1830 MHz: the clock the whitepaper's peaks are quoted at (989.4 dense FP16 TFLOPS =
    ///   132 SMs x 4096 FLOP/clk x 1.83 GHz), NVIDIA H100 Tensor Core GPU Architecture (2022).
    /// - 4 warp instructions/clk/SM: four schedulers, one dispatch each (whitepaper).
    /// - 128 B/clk/SM L1/shared: 32 banks x 4 bytes (CUDA C++ Programming Guide, shared memory).
    /// - wgmma 4096 FLOP/clk/SM: whitepaper (above); warp-level mma 2048 FLOP/clk/SM: the
    ///   A100's per-SM rate (1024 FMA/clk, A100 whitepaper), which Hopper keeps for mma.sync.
    /// - L2 5120 B/clk: the A100 whitepaper's L2 read bandwidth; no H100 figure is published
    ///   and the H100 matmul (`matmul_timing.csv`, 2048^3: 447 MB of L2 sectors in 68.8 us =
    ///   6.5 TB/s) is consistent with it (9.4 TB/s at 1830 MHz).
    /// - 3350 GB/s HBM3: datasheet. Write efficiency 0.93: the 256 MiB write pass of
    ///   `bandwidth_setaside.csv` (set-aside 0: 88.3 us less the launch overhead for 256 MiB);
    ///   read efficiency 0.90: its read pass (99.6 us) less the write-backs of the memset's
    ///   dirty lines it also pays for, rounded to split the read/copy residuals (docs/timing.md).
    /// - Launch overhead 2200 ns: `corpus_counters.csv`, whose fastest of 385 kernels take
    ///   2208 ns; the median kernel under 5 us implies 2272 ns.
    /// - 4 cycles per warp instruction: one warp's issue interval without memory waits (the
    ///   FMA latency of 4 cycles); the corpus kernels of 5-20 us fit best at 4 (of 2, 4, 6, 8;
    ///   docs/timing.md).
    /// - Occupancy limits are not here: [`crate::OccupancyConfig`] (`[occupancy]`).
    pub fn h100() -> Self {
        Self {
            sm_clock_mhz: 1830.0,
            launch_overhead_ns: 2200.0,
            issue_per_clk: 4.0,
            warp_cycles_per_instruction: 4.0,
            l1_bytes_per_clk: 128.0,
            mma_flops_per_clk: 2048.0,
            wgmma_flops_per_clk: 4096.0,
            l2_bytes_per_clk: 5120.0,
            dram_peak_gb_s: 3350.0,
            dram_read_efficiency: 0.90,
            dram_write_efficiency: 0.93,
            setaside_write_slowdown: h100_setaside_curve(),
        }
    }

    /// NVIDIA A100 SXM4 40 GB: 1410 MHz boost, 1555 GB/s HBM2, L2
    /// 5120 B/clk, mma 2048 FLOP/clk/SM (A100 whitepaper; programming guide for 8.0). No
    /// wgmma (its rate is the mma rate). DRAM efficiencies, launch overhead, warp CPI and the
    /// set-aside curve are the H100's (no A100 measurement).
    pub fn a100() -> Self {
        Self {
            sm_clock_mhz: 1410.0,
            dram_peak_gb_s: 1555.0,
            wgmma_flops_per_clk: 2048.0,
            ..Self::h100()
        }
    }

    /// NVIDIA B200: 8000 GB/s HBM3e (datasheet); per-SM rates and everything not measured
    /// are the H100's (wgmma stands in for tcgen05, which ptxsim does not run).
    pub fn b200() -> Self {
        Self {
            dram_peak_gb_s: 8000.0,
            ..Self::h100()
        }
    }

    /// Time factor of DRAM writes under a set-aside of `fraction` of L2.
    pub fn setaside_write_factor(&self, fraction: f64) -> f64 {
        let pts = &self.setaside_write_slowdown;
        let Some(first) = pts.first() else {
            return 1.0;
        };
        if fraction <= first[0] {
            return first[1];
        }
        for w in pts.windows(2) {
            let ([x0, y0], [x1, y1]) = (w[0], w[1]);
            if fraction <= x1 {
                let t = if x1 > x0 {
                    (fraction - x0) / (x1 - x0)
                } else {
                    1.0
                };
                return y0 + t * (y1 - y0);
            }
        }
        pts[pts.len() - 1][1]
    }

    pub(crate) fn validate(&self) -> Result<(), MemError> {
        let positive = [
            ("sm_clock_mhz", self.sm_clock_mhz),
            ("issue_per_clk", self.issue_per_clk),
            ("l1_bytes_per_clk", self.l1_bytes_per_clk),
            ("mma_flops_per_clk", self.mma_flops_per_clk),
            ("wgmma_flops_per_clk", self.wgmma_flops_per_clk),
            ("l2_bytes_per_clk", self.l2_bytes_per_clk),
            ("dram_peak_gb_s", self.dram_peak_gb_s),
            ("dram_read_efficiency", self.dram_read_efficiency),
            ("dram_write_efficiency", self.dram_write_efficiency),
        ];
        for (name, v) in positive {
            if !(v.is_finite() && v > 0.0) {
                return Err(MemError::Config(format!(
                    "timing.{name} must be a positive number, not {v}"
                )));
            }
        }
        for (name, v) in [
            ("launch_overhead_ns", self.launch_overhead_ns),
            (
                "warp_cycles_per_instruction",
                self.warp_cycles_per_instruction,
            ),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(MemError::Config(format!(
                    "timing.{name} must be a number >= 0, not {v}"
                )));
            }
        }
        for (name, v) in [
            ("dram_read_efficiency", self.dram_read_efficiency),
            ("dram_write_efficiency", self.dram_write_efficiency),
        ] {
            if v > 1.0 {
                return Err(MemError::Config(format!(
                    "timing.{name} = {v} must be at most 1 (a fraction of the DRAM peak)"
                )));
            }
        }
        let mut last = f64::NEG_INFINITY;
        for [x, y] in &self.setaside_write_slowdown {
            if !(x.is_finite() && y.is_finite() && *y >= 1.0 && *x > last) {
                return Err(MemError::Config(format!(
                    "timing.setaside_write_slowdown: points must have increasing fractions and \
                     factors >= 1, not [{x}, {y}]"
                )));
            }
            last = *x;
        }
        Ok(())
    }
}

impl Default for TimingConfig {
    fn default() -> Self {
        Self::a100()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setaside_curve_interpolates_and_clamps() {
        let t = TimingConfig::h100();
        assert_eq!(t.setaside_write_factor(0.0), 1.0);
        assert_eq!(t.setaside_write_factor(0.1), 1.0);
        assert!((t.setaside_write_factor(0.24) - 1.155).abs() < 1e-9);
        assert_eq!(t.setaside_write_factor(0.4), 1.31);
        assert_eq!(t.setaside_write_factor(0.9), 2.51);
        assert!(t.validate().is_ok());
        let mut bad = t.clone();
        bad.setaside_write_slowdown = vec![[0.5, 1.0], [0.2, 2.0]];
        assert!(bad.validate().is_err());
        bad = t;
        bad.dram_read_efficiency = 1.5;
        assert!(bad.validate().is_err());
    }
}
