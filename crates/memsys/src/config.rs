//! GPU configurations: cache geometry, persisting carve-out, latencies, presets, TOML overrides.

use serde::{Deserialize, Serialize};

use crate::error::MemError;

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

/// The whole memory hierarchy's configuration. Every field can be overridden from TOML
/// ([`GpuConfig::from_toml`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuConfig {
    pub name: String,
    pub sm_count: u32,
    /// Per-SM L1 data cache (the part of the unified L1/shared array not given to shared memory).
    pub l1: CacheConfig,
    /// The shared L2, the point of coherence.
    pub l2: CacheConfig,
    /// Bytes of L2 that evict-last (persisting) lines may occupy; evict-last occupancy of each
    /// set is capped at `floor(ways * persisting_l2_bytes / l2.size_bytes)` ways. The CUDA
    /// runtime's default limit is 0 (`cudaLimitPersistingL2CacheSize`); the presets use the
    /// maximum the device allows so hints are visible.
    pub persisting_l2_bytes: u64,
    /// Device memory in bytes: the most that buffers, `.global` variables and the model's
    /// own allocations may take together (what `cudaMemGetInfo` reports as total).
    pub memory_bytes: u64,
    /// Most shared memory (static + dynamic) one CTA may use: CUDA C++ Programming Guide,
    /// "Technical Specifications per Compute Capability" (163 KB on 8.0, 227 KB on 9.0 and
    /// 10.0).
    pub shared_bytes_per_block: u64,
    pub dram_latency_cycles: u32,
    /// Seed of the generator that draws fraction-policy priorities.
    pub seed: u64,
    /// Record L2 occupancy by priority class every this many requests (0: no timeline).
    pub timeline_interval: u64,
}

impl GpuConfig {
    /// NVIDIA A100 (SXM4 40 GB, sm_80).
    ///
    /// - 108 SMs, 192 KB unified L1/shared per SM, 40 MB L2 of 128 B lines with 32 B sectors:
    ///   NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020).
    /// - L1 here = 192 KB - 64 KB shared = 128 KB; 4 ways is a modelling choice (not published).
    /// - 16 L2 ways: CCCL's `_CUDA_Ampere_Max_L2_Ways = 16` (the fraction code's 1/16 step).
    /// - Persisting carve-out up to 30 MB: CUDA C++ Programming Guide, "L2 cache set-aside".
    /// - Latencies: no A100 pointer-chase figure was gathered; the V100 figures 36/221/460
    ///   cycles (Jia et al., "Dissecting the NVIDIA Volta GPU Architecture via
    ///   Microbenchmarking", 2018, as listed in REFERENCE.md) stand in.
    /// - Memory 40,960 MiB: what `nvidia-smi` reports as total for an A100-SXM4-40GB (driver
    ///   580; e.g. the nvidia-smi output in bottlerocket-os/bottlerocket-core-kit PR #834).
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
            persisting_l2_bytes: 30 * MIB,
            memory_bytes: 40_960 * MIB,
            shared_bytes_per_block: 163 * KIB,
            dram_latency_cycles: 460,
            seed: 0x5eed,
            timeline_interval: 0,
        }
    }

    /// NVIDIA H100 SXM5 (sm_90).
    ///
    /// - 132 SMs, 256 KB unified L1/shared per SM, 50 MB L2: NVIDIA H100 Tensor Core GPU
    ///   Architecture whitepaper (2022).
    /// - L1 here = 256 KB - 64 KB shared = 192 KB, 4 ways (modelling choice).
    /// - Persisting carve-out: modelled at A100's documented 3/4 of L2 (37.5 MB).
    /// - Latencies 40/281/690 cycles: GH200 pointer chase (REFERENCE.md; same GH100 die).
    /// - Memory 81,559 MiB: what `nvidia-smi` reports as total for an H100 80GB HBM3 (e.g. the
    ///   totals listed in modal-labs/modal-client PR #2797); 80 GB of HBM3 less what the
    ///   driver reserves.
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
            persisting_l2_bytes: 50 * MIB / 4 * 3,
            memory_bytes: 81_559 * MIB,
            shared_bytes_per_block: 227 * KIB,
            dram_latency_cycles: 690,
            ..Self::a100()
        }
    }

    /// NVIDIA B200 (sm_100).
    ///
    /// - 148 SMs (74 per die), 256 KB unified L1/shared per SM, 126 MB L2: Chips and Cheese,
    ///   "Nvidia's B200: Keeping the CUDA Juggernaut Rolling" (2025).
    /// - L1 here = 256 KB - 64 KB shared = 192 KB, 4 ways (modelling choice).
    /// - Persisting carve-out: modelled at 3/4 of L2 (94.5 MB).
    /// - Latencies 40/295/860 cycles: B200 pointer chase (REFERENCE.md).
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
            persisting_l2_bytes: 126 * MIB / 4 * 3,
            memory_bytes: 183_359 * MIB,
            shared_bytes_per_block: 227 * KIB,
            dram_latency_cycles: 860,
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
    /// persisting_l2_bytes = 0
    /// [l2]
    /// ways = 8
    /// ```
    pub fn from_toml(text: &str) -> Result<Self, MemError> {
        let mut overrides: toml::Table =
            toml::from_str(text).map_err(|e| MemError::Config(e.to_string()))?;
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
            persisting_l2_bytes: 0,
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
        if self.persisting_l2_bytes > self.l2.size_bytes {
            return Err(MemError::Config(format!(
                "persisting_l2_bytes {} exceeds the L2 size {}",
                self.persisting_l2_bytes, self.l2.size_bytes
            )));
        }
        Ok(())
    }

    /// Ways of each L2 set that evict-last lines may hold.
    pub fn evict_last_ways(&self) -> u32 {
        if self.l2.size_bytes == 0 {
            return 0;
        }
        let ways = u128::from(self.l2.ways) * u128::from(self.persisting_l2_bytes)
            / u128::from(self.l2.size_bytes);
        ways as u32
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
