//! GPU configurations: cache geometry, persisting carve-out, latencies, presets, TOML overrides.

use serde::{Deserialize, Serialize};

use crate::error::MemError;
use crate::occupancy::OccupancyConfig;
use crate::timing::TimingConfig;

const KIB: u64 = 1024;
const MIB: u64 = 1024 * 1024;
/// The largest cache a configuration may describe (each L2, and all SMs' L1s together): far
/// above any GPU (the B200's L2 is 126 MB), low enough that a configuration file cannot make
/// the model reserve more host memory than a workstation has.
pub const MAX_CACHE_BYTES: u64 = 4 << 30;

/// How a line address picks its set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SetHash {
    /// `set = line % sets`: the textbook index (what pycachesim uses).
    Modulo,
    /// The line number's 16-bit chunks are XORed together before `% sets`, so power-of-two
    /// strides spread over sets the way hashed GPU L2 slices do. Sequential lines still map to
    /// consecutive sets.
    XorFold,
}

/// One cache level's geometry and hit latency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheConfig {
    /// Capacity in bytes; `0` disables the level (only allowed for L1).
    pub size_bytes: u64,
    pub ways: u32,
    /// Line (tag) size: 128 B on every NVIDIA GPU since Fermi.
    pub line_bytes: u32,
    /// Sector (fill) size: 32 B; a miss fetches only the missing sectors.
    pub sector_bytes: u32,
    pub set_hash: SetHash,
    /// Load-to-use latency of a hit at this level, in SM cycles.
    pub latency_cycles: u32,
}

impl CacheConfig {
    /// Number of sets (`size / (line * ways)`).
    pub fn sets(&self) -> u64 {
        if self.size_bytes == 0 {
            0
        } else {
            self.size_bytes / (u64::from(self.line_bytes) * u64::from(self.ways))
        }
    }

    /// Sectors per line.
    pub fn sectors_per_line(&self) -> u32 {
        self.line_bytes / self.sector_bytes
    }

    fn validate(&self, level: &str, may_be_empty: bool) -> Result<(), MemError> {
        let err = |m: String| Err(MemError::Config(format!("{level}: {m}")));
        if self.size_bytes == 0 {
            return if may_be_empty {
                Ok(())
            } else {
                err("size_bytes must be > 0".into())
            };
        }
        if !self.sector_bytes.is_power_of_two() || self.sector_bytes < 4 {
            return err(format!(
                "sector_bytes {} must be a power of two >= 4",
                self.sector_bytes
            ));
        }
        if !self.line_bytes.is_power_of_two() || self.line_bytes < self.sector_bytes {
            return err(format!(
                "line_bytes {} must be a power of two >= sector_bytes",
                self.line_bytes
            ));
        }
        if self.line_bytes / self.sector_bytes > 8 {
            return err("at most 8 sectors per line are supported".into());
        }
        if self.ways == 0 || self.ways > 64 {
            return err(format!("ways {} must be in 1..=64", self.ways));
        }
        let set_bytes = u64::from(self.line_bytes) * u64::from(self.ways);
        if self.size_bytes % set_bytes != 0 {
            return err(format!(
                "size_bytes {} is not a multiple of line_bytes * ways = {set_bytes}",
                self.size_bytes
            ));
        }
        if self.sets() > u64::from(u32::MAX) {
            return err("too many sets".into());
        }
        Ok(())
    }
}

/// `cudaDevAttrMaxAccessPolicyWindowSize` of the A100 and the H100 (see
/// [`GpuConfig::max_access_policy_window_bytes`]).
pub const MAX_ACCESS_POLICY_WINDOW_BYTES: u64 = 134_213_632;

fn default_max_window() -> u64 {
    MAX_ACCESS_POLICY_WINDOW_BYTES
}

/// The whole memory hierarchy's configuration. Every field can be overridden from TOML
/// ([`GpuConfig::from_toml`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuConfig {
    pub name: String,
    pub sm_count: u32,
    /// Per-SM L1 data cache (the part of the unified L1/shared array not given to shared memory).
    pub l1: CacheConfig,
    /// The shared L2, the point of coherence.
    pub l2: CacheConfig,
    /// The largest persisting-L2 set-aside the device allows (the hardware maximum
    /// `cudaDeviceProp::persistingL2CacheMaxSize`): [`GpuConfig::set_persisting_l2`] refuses
    /// more. A GPU property, read from the TOML key `persisting_l2_max_bytes`.
    pub persisting_l2_max_bytes: u64,
    /// The largest access policy window (`cudaAccessPolicyWindow::num_bytes`) the device
    /// takes: `cudaDevAttrMaxAccessPolicyWindowSize` (`accessPolicyMaxWindowSize` of
    /// `cudaDeviceProp`), which the CUDA runtime reports as 134,213,632 B (128 MiB - 4 KiB) on
    /// the A100 and the H100; the B200 preset keeps the same value (not measured). A larger
    /// window is refused as `cudaStreamSetAttribute` refuses it (`system/l2_control.rs`). TOML
    /// key `max_access_policy_window_bytes`.
    #[serde(default = "default_max_window")]
    pub max_access_policy_window_bytes: u64,
    /// The persisting-L2 set-aside in effect, in bytes: the setting
    /// `cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, N)` makes. Not a GPU property (no
    /// TOML key): 0, as in a fresh CUDA context, until [`GpuConfig::set_persisting_l2`]
    /// changes it (`--persisting-l2`, `persisting_l2` in launch files). Evict-last occupancy
    /// of each L2 set is capped by it ([`GpuConfig::evict_last_ways`]).
    #[serde(skip)]
    pub persisting_l2_bytes: u64,
    /// Device memory in bytes: the most that buffers, `.global` variables and the model's
    /// own allocations may take together (what `cudaMemGetInfo` reports as total).
    pub memory_bytes: u64,
    /// Most shared memory (static + dynamic) one CTA may use: CUDA C++ Programming Guide,
    /// "Technical Specifications per Compute Capability" (163 KB on 8.0, 227 KB on 9.0 and
    /// 10.0).
    pub shared_bytes_per_block: u64,
    pub dram_latency_cycles: u32,
    /// Bytes an L2 read miss fetches from DRAM at least: the missed sectors' aligned block of
    /// this size (a power of two from `l2.sector_bytes` to `l2.line_bytes`). CUDA's
    /// `cudaLimitMaxL2FetchGranularity`; 64 B on an H100 by default (measured: a one-sector
    /// miss reads 64 bytes of DRAM, `../shared/hw/h100/l2/fetch_granularity.csv`).
    pub l2_fetch_granularity_bytes: u32,
    /// Lines per SM sub-partition whose pending stores later stores merge with before
    /// reaching L2 (0: none); see `src/system/combine.rs` for the H100 measurements behind
    /// the preset value 12.
    pub l2_write_combine_lines: u32,
    /// Processing blocks (sub-partitions) per SM, each with its own warp scheduler and its
    /// own store write-combining window of `l2_write_combine_lines` lines; warp `w` of a CTA
    /// runs on sub-partition `w % sm_sub_partitions`. Four on every preset (the A100, H100
    /// and B200 whitepapers: "four processing blocks" per SM).
    pub sm_sub_partitions: u32,
    /// Groups of SMs whose L2 read misses in flight other SMs' reads of the same sectors join
    /// before L2 (the L2 request coalescer, `src/system/read_coalescer.rs`): SM `s` is in
    /// group `s % l2_read_coalescing_domains`; 0: no such unit. 2 on the H100 (fitted to its
    /// counters: reads of CTAs an even number apart merge, of adjacent CTAs never).
    pub l2_read_coalescing_domains: u32,
    /// Lines the L2 request coalescer of each group holds at once (0: no limit): a read joins
    /// a pending miss only while fewer than this many other lines have missed in its group
    /// since (`src/system/read_coalescer.rs`).
    #[serde(default)]
    pub l2_read_coalescer_lines: u32,
    /// Partitions the L2 is built of (a power of two; 1: one L2 holding each line once). Each
    /// holds `l2.size_bytes / l2_partitions` with the L2's ways and lines; a line is homed in
    /// one partition (by its address) and SM `s` is near partition `s % l2_partitions`. The
    /// A100 and H100 whitepapers: "The L2 cache is divided into two partitions ... Each L2
    /// partition localizes and caches data for memory accesses from SMs in the GPCs directly
    /// connected to the partition" (`src/system/partitions.rs` has the rules and the H100
    /// measurements behind them).
    #[serde(default = "one")]
    pub l2_partitions: u32,
    /// Whether a read by an SM far from a line's home partition leaves a copy of the line in
    /// the SM's near partition (taking capacity there), as the whitepapers' "localizes and
    /// caches data for memory accesses from SMs ... directly connected" says. Only with
    /// `l2_partitions` > 1.
    #[serde(default = "yes")]
    pub l2_near_copies: bool,
    /// Seed of the generator that draws fraction-policy priorities.
    pub seed: u64,
    /// Record L2 occupancy by priority class every this many requests (0: no timeline).
    pub timeline_interval: u64,
    /// Figures of the kernel-time estimate (`[timing]` in TOML); memsys does not use them.
    #[serde(default)]
    pub timing: TimingConfig,
    /// Per-SM residency limits (`[occupancy]` in TOML): how many CTAs an SM holds at once
    /// (`ptx_exec::residency`); see `src/occupancy.rs` for each figure's source.
    #[serde(default)]
    pub occupancy: OccupancyConfig,
}

impl GpuConfig {
    /// NVIDIA A100 (SXM4 40 GB, sm_80).
    ///
    /// - 108 SMs, 192 KB unified L1/shared per SM, 40 MB L2 of 128 B lines with 32 B sectors:
    ///   NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020).
    /// - L1 here = 192 KB - 64 KB shared = 128 KB; 4 ways is a modelling choice (not published).
    /// - 16 L2 ways: CCCL's `_CUDA_Ampere_Max_L2_Ways = 16` (the fraction code's 1/16 step).
    /// - Persisting set-aside maximum 30 MiB: the CUDA C++ Programming Guide ("L2 cache
    ///   set-aside for persisting accesses": "A100 ... 30 MB").
    /// - L2 fetch granularity 64 B: CUDA's default `cudaLimitMaxL2FetchGranularity`, as
    ///   measured on an H100 (not measured on an A100).
    /// - Latencies: no A100 pointer-chase figure was gathered; the V100 figures 36/221/460
    ///   cycles (Jia et al., "Dissecting the NVIDIA Volta GPU Architecture via
    ///   Microbenchmarking", 2018, as listed in REFERENCE.md) stand in.
    /// - Memory 40,960 MiB: what `nvidia-smi` reports as total for an A100-SXM4-40GB (driver
    ///   580; e.g. the nvidia-smi output in bottlerocket-os/bottlerocket-core-kit PR #834).
    /// - No L2 request coalescer: Nsight Compute lists its `lrc` unit from GH100 on.
    pub fn a100() -> Self {
        Self {
            name: "a100".into(),
            sm_count: 108,
            l1: CacheConfig {
                size_bytes: 128 * KIB,
                ways: 4,
                line_bytes: 128,
                sector_bytes: 32,
                set_hash: SetHash::Modulo,
                latency_cycles: 36,
            },
            l2: CacheConfig {
                size_bytes: 40 * MIB,
                ways: 16,
                line_bytes: 128,
                sector_bytes: 32,
                set_hash: SetHash::XorFold,
                latency_cycles: 221,
            },
            persisting_l2_max_bytes: 30 * MIB,
            max_access_policy_window_bytes: default_max_window(),
            persisting_l2_bytes: 0,
            memory_bytes: 40_960 * MIB,
            shared_bytes_per_block: 163 * KIB,
            dram_latency_cycles: 460,
            l2_fetch_granularity_bytes: 64,
            l2_write_combine_lines: 12,
            sm_sub_partitions: 4,
            l2_read_coalescing_domains: 0,
            l2_read_coalescer_lines: 0,
            l2_partitions: 2,
            l2_near_copies: true,
            seed: 0x5eed,
            timeline_interval: 0,
            timing: TimingConfig::a100(),
            occupancy: OccupancyConfig::a100(),
        }
    }

    /// NVIDIA H100 SXM5 (sm_90).
    ///
    /// - 132 SMs, 256 KB unified L1/shared per SM, 50 MB L2: NVIDIA H100 Tensor Core GPU
    ///   Architecture whitepaper (2022).
    /// - L1 here = 256 KB - 64 KB shared = 192 KB, 4 ways (modelling choice).
    /// - Persisting set-aside maximum 32,768,000 B: what an H100 80GB HBM3 reports as
    ///   `persistingL2CacheMaxSize` (`../shared/hw/h100/README.md`).
    /// - L2 fetch granularity 64 B: measured (a one-sector miss reads 64 B of DRAM and counts
    ///   two lookup misses; `../shared/hw/h100/l2/fetch_granularity.csv`).
    /// - Latencies 40/281/690 cycles: GH200 pointer chase (REFERENCE.md; same GH100 die).
    /// - Memory 81,559 MiB: what `nvidia-smi` reports as total for an H100 80GB HBM3 (e.g. the
    ///   totals listed in modal-labs/modal-client PR #2797); 80 GB of HBM3 less what the
    ///   driver reserves.
    /// - L2 request coalescer with 2 SM groups: Nsight Compute's `lrc` unit (GH100 and
    ///   later); the grouping is fitted to the H100's corpus counters
    ///   (`src/system/read_coalescer.rs`).
    pub fn h100() -> Self {
        Self {
            name: "h100".into(),
            sm_count: 132,
            l1: CacheConfig {
                size_bytes: 192 * KIB,
                latency_cycles: 40,
                ..Self::a100().l1
            },
            l2: CacheConfig {
                size_bytes: 50 * MIB,
                latency_cycles: 281,
                ..Self::a100().l2
            },
            persisting_l2_max_bytes: 32_768_000,
            memory_bytes: 81_559 * MIB,
            shared_bytes_per_block: 227 * KIB,
            dram_latency_cycles: 690,
            l2_read_coalescing_domains: 2,
            l2_read_coalescer_lines: 64,
            timing: TimingConfig::h100(),
            occupancy: OccupancyConfig::h100(),
            ..Self::a100()
        }
    }

    /// NVIDIA B200 (sm_100).
    ///
    /// - 148 SMs (74 per die), 256 KB unified L1/shared per SM, 126 MB L2: Chips and Cheese,
    ///   "Nvidia's B200: Keeping the CUDA Juggernaut Rolling" (2025).
    /// - L1 here = 256 KB - 64 KB shared = 192 KB, 4 ways (modelling choice).
    /// - Persisting set-aside maximum: not measured; 3/4 of L2 (94.5 MiB), the A100's ratio,
    ///   until it is.
    /// - Latencies 40/295/860 cycles: B200 pointer chase (REFERENCE.md).
    /// - L2 request coalescer: not measured; the H100's 2 SM groups until it is.
    /// - Memory 183,359 MiB: what `nvidia-smi` reports as total for a B200 (driver 580.95;
    ///   e.g. the output in NVIDIA/TensorRT-LLM issue #10278); the HGX B200 datasheet sells it
    ///   as 180 GB of HBM3e.
    pub fn b200() -> Self {
        Self {
            name: "b200".into(),
            sm_count: 148,
            l1: CacheConfig {
                size_bytes: 192 * KIB,
                latency_cycles: 40,
                ..Self::a100().l1
            },
            l2: CacheConfig {
                size_bytes: 126 * MIB,
                latency_cycles: 295,
                ..Self::a100().l2
            },
            persisting_l2_max_bytes: 126 * MIB / 4 * 3,
            memory_bytes: 183_359 * MIB,
            shared_bytes_per_block: 227 * KIB,
            dram_latency_cycles: 860,
            l2_read_coalescing_domains: 2,
            l2_read_coalescer_lines: 64,
            timing: TimingConfig::b200(),
            occupancy: OccupancyConfig::b200(),
            ..Self::a100()
        }
    }

    /// The preset called `name` (`a100`, `h100`, `b200`).
    pub fn preset(name: &str) -> Result<Self, MemError> {
        match name.to_ascii_lowercase().as_str() {
            "a100" => Ok(Self::a100()),
            "h100" => Ok(Self::h100()),
            "b200" => Ok(Self::b200()),
            other => Err(MemError::Config(format!(
                "unknown GPU preset '{other}' (expected a100, h100 or b200)"
            ))),
        }
    }

    /// Reads a TOML override file: `preset = "h100"` (default `a100`) picks the base, and any
    /// other key replaces that field, e.g.
    ///
    /// ```toml
    /// preset = "a100"
    /// persisting_l2_max_bytes = 1048576
    /// [l2]
    /// ways = 8
    /// ```
    pub fn from_toml(text: &str) -> Result<Self, MemError> {
        let mut overrides: toml::Table =
            toml::from_str(text).map_err(|e| MemError::Config(e.to_string()))?;
        if overrides.contains_key("persisting_l2_bytes") {
            return Err(MemError::Config(
                "`persisting_l2_bytes` is no longer a GPU property: the hardware maximum is \
                 `persisting_l2_max_bytes`; the set-aside itself is a launch setting \
                 (`persisting_l2` in a launch file, `--persisting-l2`)"
                    .into(),
            ));
        }
        let base = match overrides.remove("preset") {
            None => Self::a100(),
            Some(toml::Value::String(name)) => Self::preset(&name)?,
            Some(other) => {
                return Err(MemError::Config(format!(
                    "preset must be a string, not {other}"
                )))
            }
        };
        let mut merged =
            toml::Table::try_from(&base).map_err(|e| MemError::Config(e.to_string()))?;
        merge(&mut merged, overrides);
        let cfg: Self = toml::Value::Table(merged)
            .try_into()
            .map_err(|e: toml::de::Error| MemError::Config(e.to_string()))?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// A one-level cache (no L1, L2 of `sets * ways` lines of `line_bytes`, one sector per
    /// line, modulo set index, no carve-out): the configuration the pycachesim parity test
    /// compares against.
    pub fn single_level(sets: u32, ways: u32, line_bytes: u32) -> Self {
        let base = Self::a100();
        Self {
            name: format!("single-level {sets}x{ways}x{line_bytes}"),
            sm_count: 1,
            l1: CacheConfig {
                size_bytes: 0,
                line_bytes,
                sector_bytes: line_bytes,
                ..base.l1
            },
            l2: CacheConfig {
                size_bytes: u64::from(sets) * u64::from(ways) * u64::from(line_bytes),
                ways,
                line_bytes,
                sector_bytes: line_bytes,
                set_hash: SetHash::Modulo,
                latency_cycles: base.l2.latency_cycles,
            },
            persisting_l2_max_bytes: 0,
            max_access_policy_window_bytes: base.max_access_policy_window_bytes,
            persisting_l2_bytes: 0,
            l2_fetch_granularity_bytes: line_bytes,
            l2_write_combine_lines: 0,
            l2_partitions: 1,
            ..base
        }
    }

    /// Checks that the configuration describes caches memsys can build.
    pub fn validate(&self) -> Result<(), MemError> {
        if self.sm_count == 0 || self.sm_count > 65_536 {
            return Err(MemError::Config(format!(
                "sm_count {} must be in 1..=65536",
                self.sm_count
            )));
        }
        self.l1.validate("l1", true)?;
        self.l2.validate("l2", false)?;
        if self.l1.size_bytes > 0
            && (self.l1.line_bytes != self.l2.line_bytes
                || self.l1.sector_bytes != self.l2.sector_bytes)
        {
            return Err(MemError::Config(
                "l1 and l2 must use the same line_bytes and sector_bytes".into(),
            ));
        }
        if self.l2.size_bytes > MAX_CACHE_BYTES
            || self.l1.size_bytes.saturating_mul(u64::from(self.sm_count)) > MAX_CACHE_BYTES
        {
            return Err(MemError::Config(format!(
                "the caches are too large to model: l2 {} bytes, l1 {} bytes on each of {} SMs \
                 (at most {MAX_CACHE_BYTES} bytes for the L2 and for all L1s together)",
                self.l2.size_bytes, self.l1.size_bytes, self.sm_count
            )));
        }
        if self.memory_bytes == 0 {
            return Err(MemError::Config("memory_bytes must be > 0".into()));
        }
        let g = self.l2_fetch_granularity_bytes;
        if !g.is_power_of_two() || g < self.l2.sector_bytes || g > self.l2.line_bytes {
            return Err(MemError::Config(format!(
                "l2_fetch_granularity_bytes {g} must be a power of two from the L2 sector size {} \
                 to its line size {}",
                self.l2.sector_bytes, self.l2.line_bytes
            )));
        }
        if !(1..=64).contains(&self.sm_sub_partitions) {
            return Err(MemError::Config(format!(
                "sm_sub_partitions {} must be 1 to 64",
                self.sm_sub_partitions
            )));
        }
        if !self.l2_partitions.is_power_of_two() || self.l2_partitions > 16 {
            return Err(MemError::Config(format!(
                "l2_partitions {} must be a power of two from 1 to 16",
                self.l2_partitions
            )));
        }
        if self.l2.sets() % u64::from(self.l2_partitions) != 0 {
            return Err(MemError::Config(format!(
                "l2: {} sets do not divide into l2_partitions = {} equal partitions",
                self.l2.sets(),
                self.l2_partitions
            )));
        }
        if self.l2_read_coalescing_domains > self.sm_count {
            return Err(MemError::Config(format!(
                "l2_read_coalescing_domains {} must be at most sm_count {}",
                self.l2_read_coalescing_domains, self.sm_count
            )));
        }
        if self.l2_write_combine_lines > 1024 {
            return Err(MemError::Config(format!(
                "l2_write_combine_lines {} must be at most 1024",
                self.l2_write_combine_lines
            )));
        }
        if self.persisting_l2_bytes > self.persisting_l2_limit() {
            return Err(self.over_max(self.persisting_l2_bytes));
        }
        self.occupancy.validate()?;
        self.timing.validate()
    }

    /// The largest set-aside this GPU takes: `persisting_l2_max_bytes`, and never more than
    /// the L2 (a TOML that shrinks the L2 of a preset keeps the preset's maximum).
    pub fn persisting_l2_limit(&self) -> u64 {
        self.persisting_l2_max_bytes.min(self.l2.size_bytes)
    }

    fn over_max(&self, bytes: u64) -> MemError {
        MemError::Config(format!(
            "persisting L2 set-aside {bytes} B exceeds the maximum of GPU '{}': {} B \
             (persisting_l2_max_bytes{})",
            self.name,
            self.persisting_l2_limit(),
            if self.persisting_l2_max_bytes > self.l2.size_bytes {
                ", capped at the L2 size"
            } else {
                ""
            }
        ))
    }

    /// Sets the persisting-L2 set-aside, as `cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize,
    /// bytes)` does; more than [`GpuConfig::persisting_l2_limit`] is an error naming it.
    pub fn set_persisting_l2(&mut self, bytes: u64) -> Result<(), MemError> {
        if bytes > self.persisting_l2_limit() {
            return Err(self.over_max(bytes));
        }
        self.persisting_l2_bytes = bytes;
        Ok(())
    }

    /// Parses a byte count as the command line and launch files write it: a plain integer,
    /// or one with a `KiB`, `MiB` or `GiB` suffix (powers of 1024; `K`, `M`, `G` alike).
    pub fn parse_bytes(text: &str) -> Result<u64, MemError> {
        let t = text.trim();
        let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
        let (number, unit) = t.split_at(digits);
        let bad = || {
            MemError::Config(format!(
                "'{text}' is not a byte count (an integer, optionally with KiB, MiB or GiB)"
            ))
        };
        let n: u64 = number.parse().map_err(|_| bad())?;
        let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
            "" | "b" => 1,
            "k" | "kib" => KIB,
            "m" | "mib" => MIB,
            "g" | "gib" => 1024 * MIB,
            _ => return Err(bad()),
        };
        n.checked_mul(scale).ok_or_else(bad)
    }

    /// Ways of each L2 set that evict-last lines may hold: the set-aside rounded *up* to whole
    /// ways, and at least one way even with no set-aside:
    /// `min(ways, max(1, ceil(ways * persisting_l2_bytes / l2.size_bytes)))`.
    ///
    /// Measured on an H100 (16 ways, `../shared/hw/h100/l2/persisting.csv`, in the project as
    /// `tests/hw/h100/l2/`): the bytes of an evict-last working set that survive a 2x-L2
    /// stream are a whole number of ways' worth, L2/16 per way: 1 way at set-aside 0 and at
    /// 2 MiB (0.64 ways), 2 at 4 MiB (1.28), 3 at 8 MiB (2.56), 6 at 16 MiB (5.12), 8 at
    /// 24 MiB (7.68), 10 at the maximum 32,768,000 B (exactly 10 ways). The set-aside-0 way
    /// is seen directly in `stream_protection.csv`: after an evict-last read of W = L2/2 and
    /// a normal stream, the re-read fetched 22,937,856 B = 7/8 of W from DRAM, so 1/8 of W
    /// = L2/16 stayed. The per-set cap (rather than a global budget) is what makes the
    /// fraction-0.5 rows come out: with W = L2/8 (2 lines per set) and each line evict-last
    /// with probability 1/2, one way per set keeps 3/4 of a line per set, 37.5 % of W, which
    /// is what the H100 kept. Other GPUs are not measured; they use the same rule.
    pub fn evict_last_ways(&self) -> u32 {
        if self.l2.size_bytes == 0 {
            return 0;
        }
        let ways = (u128::from(self.l2.ways) * u128::from(self.persisting_l2_bytes))
            .div_ceil(u128::from(self.l2.size_bytes));
        (ways.max(1) as u32).min(self.l2.ways)
    }
}

impl Default for GpuConfig {
    fn default() -> Self {
        Self::a100()
    }
}

fn merge(base: &mut toml::Table, overrides: toml::Table) {
    for (key, value) in overrides {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(key, v);
            }
        }
    }
}

/// Serde default of [`GpuConfig::l2_partitions`] (a GPU TOML written before partitions).
fn one() -> u32 {
    1
}

/// Serde default of [`GpuConfig::l2_near_copies`].
fn yes() -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts_take_binary_suffixes() {
        for (text, want) in [
            ("0", 0),
            ("32768000", 32_768_000),
            ("4KiB", 4096),
            ("4 MiB", 4 << 20),
            ("2m", 2 << 20),
            ("1GiB", 1 << 30),
            ("7B", 7),
        ] {
            assert_eq!(GpuConfig::parse_bytes(text).unwrap(), want, "{text}");
        }
        for bad in [
            "",
            "MiB",
            "-1",
            "1.5MiB",
            "4 lines",
            "99999999999999999999GiB",
        ] {
            assert!(GpuConfig::parse_bytes(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_set_aside_is_a_setting_bounded_by_the_gpu_maximum() {
        let mut h100 = GpuConfig::h100();
        assert_eq!(
            h100.persisting_l2_bytes, 0,
            "a fresh CUDA context has limit 0"
        );
        assert_eq!(h100.persisting_l2_max_bytes, 32_768_000);
        assert_eq!(GpuConfig::a100().persisting_l2_max_bytes, 30 * MIB);
        assert_eq!(GpuConfig::b200().persisting_l2_max_bytes, 126 * MIB / 4 * 3);
        h100.set_persisting_l2(32_768_000).unwrap();
        let e = h100.set_persisting_l2(32_768_001).unwrap_err().to_string();
        assert!(
            e.contains("32768001 B exceeds the maximum of GPU 'h100': 32768000 B"),
            "{e}"
        );
        assert_eq!(
            h100.persisting_l2_bytes, 32_768_000,
            "a refused value changes nothing"
        );
        // A TOML that shrinks the L2 keeps the preset's maximum, capped at the L2.
        let mut small =
            GpuConfig::from_toml("preset = \"h100\"\n[l2]\nsize_bytes = 262144\n").unwrap();
        assert_eq!(small.persisting_l2_limit(), 262_144);
        assert!(small.set_persisting_l2(262_145).is_err());
        let e = GpuConfig::from_toml("persisting_l2_bytes = 4096\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("persisting_l2_max_bytes"), "{e}");
        let cfg =
            GpuConfig::from_toml("preset = \"a100\"\npersisting_l2_max_bytes = 4096\n").unwrap();
        assert_eq!(
            (cfg.persisting_l2_max_bytes, cfg.persisting_l2_bytes),
            (4096, 0)
        );
    }
}
