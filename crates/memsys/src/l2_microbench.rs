//! The H100 L2 eviction-priority microbenchmarks (`../shared/hw/h100/README.md` section 4,
//! `scripts/l2_persist.cu`, `scripts/l2_hints2.cu`; data copied to `tests/hw/h100/l2/`) as
//! memsys traces. The re-read's hit rate is the model's own count of Nsight Compute's
//! `lts__t_sector_hit_rate.pct` (lookups of both L2 partitions, `system/partitions.rs`); what
//! the model does not count is the traffic of the launch itself (instruction and constant
//! fetches: about 43,700 L2 sectors per launch on the H100, nearly all hits), which is what a
//! re-read that found nothing of W in L2 still shows as hits on the GPU.
//!
//! Each experiment, as the scripts run it on the GPU (1056 CTAs x 256 threads, 16-byte loads,
//! grid-stride): flush L2 (a normal `ld.global.cg` pass over 4x L2), read the working set W
//! once with W's hint, stream S = 2x L2 with S's hint, re-read W with `ld.global.cg`. A warp's
//! 32 16-byte loads cover four whole 128-byte lines, which the L1/TEX unit sends to L2 as one
//! request per line, so the trace holds one 128-byte access per line, in address order (the
//! grid-stride loop walks the buffer in order; all 1056 CTAs are resident at once), each
//! from the SM its CTA would run on.

use crate::cache::EvictionClass;
use crate::config::GpuConfig;
use crate::error::MemError;
use crate::policy::CachePolicy;
use crate::replay::{run_trace, Trace};
use crate::system::MemSystem;
use crate::types::{CacheOperator, L2EvictionPriority, Request};

/// How one pass reads its buffer: the loads of the scripts' `pass<V>` kernels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PassHint {
    /// `ld.global.cg`.
    Cg,
    /// `ld.global.cs`.
    Cs,
    /// `ld.global.lu`.
    Lu,
    /// `ld.global.L2::cache_hint` with `createpolicy.fractional.L2::<primary>.b64 p, fraction`
    /// (no secondary priority: evict_unchanged).
    Policy {
        primary: L2EvictionPriority,
        fraction: f32,
    },
}

impl PassHint {
    /// The scripts' names: `cg`, `cs`, `lu`, `policy_last` (evict_last 1.0),
    /// `policy_last_half` (evict_last 0.5), `policy_first`, `policy_first_half`.
    pub fn from_name(name: &str) -> Option<Self> {
        let policy = |primary, fraction| Some(Self::Policy { primary, fraction });
        match name {
            "cg" => Some(Self::Cg),
            "cs" => Some(Self::Cs),
            "lu" => Some(Self::Lu),
            "policy_last" | "last" => policy(L2EvictionPriority::Last, 1.0),
            "policy_last_half" | "half" => policy(L2EvictionPriority::Last, 0.5),
            "policy_first" => policy(L2EvictionPriority::First, 1.0),
            "policy_first_half" => policy(L2EvictionPriority::First, 0.5),
            _ => None,
        }
    }

    /// The (W, S) hints of an `l2_persist.cu` variant: `last_cg`, `half_cg`, `cg_last`,
    /// `cg_cs`, `cg_cg`.
    pub fn persist_variant(name: &str) -> Option<(Self, Self)> {
        let (w, s) = name.split_once('_')?;
        Some((Self::from_name(w)?, Self::from_name(s)?))
    }

    fn request(self) -> Result<Request, MemError> {
        let r = Request::load(0);
        Ok(match self {
            Self::Cg => r.with_operator(CacheOperator::Cg),
            Self::Cs => r.with_operator(CacheOperator::Cs),
            Self::Lu => r.with_operator(CacheOperator::Lu),
            Self::Policy { primary, fraction } => Request {
                policy: Some(CachePolicy::fractional(
                    primary,
                    L2EvictionPriority::Unchanged,
                    fraction,
                )?),
                ..r
            },
        })
    }
}

/// One row of `persisting.csv` or `stream_protection.csv`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Experiment {
    /// |W| in bytes (the scripts round it down to 4 KiB).
    pub w_bytes: u64,
    pub w_hint: PassHint,
    pub s_hint: PassHint,
    /// `cudaLimitPersistingL2CacheSize`, bytes.
    pub set_aside: u64,
}

/// What the re-read of W did in memsys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Reread {
    /// Sectors the re-read requested (|W| / 32).
    pub sectors: u64,
    pub hit_sectors: u64,
    /// Of the hits, sectors of lines held in the evict-last (persisting) class.
    pub evict_last_hit_sectors: u64,
    pub dram_bytes_read: u64,
    /// Lookups of both L2 partitions (the SMs' and the fabric's) that hit and missed:
    /// what Nsight Compute's `lts__t_sector_hit_rate.pct` divides.
    pub lookup_hits: u64,
    pub lookup_misses: u64,
}

impl Reread {
    /// The re-read's L2 sector hit rate as the model counts it, which is how Nsight Compute
    /// counts `lts__t_sector_hit_rate.pct` (lookups of both partitions; instruction and
    /// constant fetches are not modelled), percent.
    pub fn hit_pct(&self) -> f64 {
        100.0 * self.lookup_hits as f64 / (self.lookup_hits + self.lookup_misses).max(1) as f64
    }

    /// [`Reread::hit_pct`] with the launch's own L2 traffic added (`launch`): what Nsight
    /// Compute's figure for the whole re-read kernel also counts, percent.
    pub fn hit_pct_with(&self, launch: LaunchTraffic) -> f64 {
        let hits = self.lookup_hits + launch.hits;
        let lookups = self.lookup_hits + self.lookup_misses + launch.hits + launch.misses;
        100.0 * hits as f64 / lookups.max(1) as f64
    }

    /// The fraction of W's sectors the re-read found in L2 (near copy or home), percent.
    pub fn kept_pct(&self) -> f64 {
        100.0 * self.hit_sectors as f64 / self.sectors.max(1) as f64
    }
}

/// Grid of the scripts: `sms * 8` CTAs of 256 threads (8 warps).
const CTAS_PER_SM: u64 = 8;
const WARPS_PER_CTA: u64 = 8;
/// Lines one warp's 32 16-byte loads cover.
const LINES_PER_WARP: u64 = 4;

/// Where the buffers lie: apart, as `cudaMalloc` places them (W, S = 2x L2, F = 4x L2).
const W_BASE: u64 = 0x7f00_0000_0000;

/// The SM that issues line `i` of a grid-stride pass: warp `i / 4` of the grid, CTA `warp / 8`,
/// CTAs dealt round-robin over the SMs.
fn sm_of_line(i: u64, sms: u64) -> u32 {
    let cta = i / LINES_PER_WARP / WARPS_PER_CTA % (sms * CTAS_PER_SM);
    (cta % sms) as u32
}

/// One pass over `bytes` from `base` with `hint`, one 128-byte access per line.
fn pass(mem: &mut MemSystem, base: u64, bytes: u64, hint: PassHint) -> Result<(), MemError> {
    let line = u64::from(mem.config().l2.line_bytes);
    let sms = u64::from(mem.config().sm_count);
    let mut trace = Trace::new();
    let shape = trace.intern(&hint.request()?);
    for i in 0..bytes / line {
        trace.push_shaped(shape, sm_of_line(i, sms), base + i * line, line as u32);
    }
    run_trace(mem, &trace)?;
    Ok(())
}

/// Runs one experiment on a tags-only memory system of `cfg` (its own set-aside is replaced by
/// the experiment's) and returns what the re-read of W did.
pub fn run(cfg: &GpuConfig, e: &Experiment) -> Result<Reread, MemError> {
    let mut cfg = cfg.clone();
    cfg.set_persisting_l2(e.set_aside)?;
    let l2 = cfg.l2.size_bytes;
    let line = u64::from(cfg.l2.line_bytes);
    let sector = u64::from(cfg.l2.sector_bytes);
    if e.w_bytes > l2 || e.w_bytes < line {
        return Err(MemError::Config(format!(
            "working set {} B: the experiment takes one line up to the L2 size ({l2} B)",
            e.w_bytes
        )));
    }
    let mut mem = MemSystem::tags_only(cfg)?;
    // Buffers as the scripts allocate them: W (L2 bytes), S (2x L2), F (4x L2).
    let w = W_BASE;
    let s = w + 2 * l2;
    let f = s + 4 * l2;
    pass(&mut mem, f, 4 * l2, PassHint::Cg)?;
    // cudaCtxResetPersistingL2Cache(): nothing of this fresh system is persisting yet.
    pass(&mut mem, w, e.w_bytes, e.w_hint)?;
    pass(&mut mem, s, 2 * l2, e.s_hint)?;
    let mut evict_last_sectors = 0;
    for a in (w..w + e.w_bytes).step_by(line as usize) {
        // The set-aside holds home lines (copies are never evict-last).
        if let Some(state) = mem.l2_line(a) {
            if state.class == EvictionClass::EvictLast {
                evict_last_sectors += u64::from(state.valid_sectors.count_ones());
            }
        }
    }
    mem.reset_stats();
    pass(&mut mem, w, e.w_bytes, PassHint::Cg)?;
    let t = mem.stats().total();
    Ok(Reread {
        sectors: e.w_bytes / sector,
        hit_sectors: t.l2.read_hits + t.l2.fabric_read_hits,
        evict_last_hit_sectors: evict_last_sectors,
        dram_bytes_read: t.dram.bytes_read,
        lookup_hits: t.l2.all_lookup_hits(),
        lookup_misses: t.l2.all_lookup_misses(),
    })
}

/// L2 lookups one kernel launch makes besides its kernel's loads and stores (instruction
/// fetches, constant banks, the launch's own descriptors), which ptxsim does not model and
/// counts apart: Nsight's `lts__t_sectors` minus `lts__t_sectors_srcunit_tex` of the H100's
/// smallest corpus kernels (one CTA, at most 16 sectors of their own; 43,694 sectors at
/// 99.74 % hits for `cub_scan.sm90.inclusive_sum` and the histogram init kernels,
/// `tests/hw/h100/counters/corpus_counters.csv`; `tests/hw_l2_agreement.rs` derives it again).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchTraffic {
    pub hits: u64,
    pub misses: u64,
}

/// [`LaunchTraffic`] of one launch on the H100.
pub const H100_LAUNCH_TRAFFIC: LaunchTraffic = LaunchTraffic {
    hits: 43_585,
    misses: 114,
};

/// One measured row: the experiment, its label (the CSV's own columns) and the H100's re-read
/// hit rate (`reread_l2_hit_pct`, percent).
#[derive(Debug, Clone, PartialEq)]
pub struct MeasuredRow {
    pub label: String,
    pub experiment: Experiment,
    pub hw_hit_pct: f64,
    /// `reread_dram_bytes`, where the CSV has it.
    pub hw_dram_bytes: Option<u64>,
}

/// The H100's L2 (bytes) when the scripts ran: `stream_protection.csv` has W = L2/2.
pub const H100_L2_BYTES: u64 = 52_428_800;

fn csv_rows(text: &str, what: &str) -> Result<Vec<Vec<(String, String)>>, MemError> {
    let mut lines = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'));
    let header: Vec<String> = lines
        .next()
        .ok_or_else(|| MemError::Config(format!("{what}: empty")))?
        .split(',')
        .map(|h| h.trim().to_string())
        .collect();
    lines
        .enumerate()
        .map(|(i, l)| {
            let cells: Vec<&str> = l.split(',').map(str::trim).collect();
            if cells.len() != header.len() {
                return Err(MemError::Config(format!(
                    "{what}: data row {}: {} cells, the header has {}",
                    i + 1,
                    cells.len(),
                    header.len()
                )));
            }
            Ok(header
                .iter()
                .cloned()
                .zip(cells.iter().map(|c| c.to_string()))
                .collect())
        })
        .collect()
}

fn cell<'a>(row: &'a [(String, String)], key: &str, what: &str) -> Result<&'a str, MemError> {
    row.iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .ok_or_else(|| MemError::Config(format!("{what}: no column `{key}`")))
}

fn number<T: std::str::FromStr>(text: &str, what: &str) -> Result<T, MemError> {
    text.parse()
        .map_err(|_| MemError::Config(format!("{what}: '{text}' is not a number")))
}

/// The rows of `persisting.csv` (`persisting_limit_bytes,w_bytes,variant,reread_l2_hit_pct`;
/// variants `last_cg`, `half_cg`, `cg_last`, `cg_cs`, `cg_cg`).
pub fn persisting_rows(text: &str) -> Result<Vec<MeasuredRow>, MemError> {
    let what = "persisting.csv";
    csv_rows(text, what)?
        .iter()
        .map(|r| {
            let variant = cell(r, "variant", what)?;
            let (w_hint, s_hint) = PassHint::persist_variant(variant)
                .ok_or_else(|| MemError::Config(format!("{what}: unknown variant `{variant}`")))?;
            let set_aside = number(cell(r, "persisting_limit_bytes", what)?, what)?;
            let w_bytes = number(cell(r, "w_bytes", what)?, what)?;
            Ok(MeasuredRow {
                label: format!("limit {set_aside} W {w_bytes} {variant}"),
                experiment: Experiment {
                    w_bytes,
                    w_hint,
                    s_hint,
                    set_aside,
                },
                hw_hit_pct: number(cell(r, "reread_l2_hit_pct", what)?, what)?,
                hw_dram_bytes: None,
            })
        })
        .collect()
}

/// The rows of `stream_protection.csv` (`w_read,s_read,...,reread_l2_hit_pct,
/// reread_dram_bytes`; W = L2/2 and set-aside 0, unless a file has `w_bytes` or `w_frac`, and
/// `persisting_limit_bytes` or `persist_mb` columns).
pub fn stream_protection_rows(text: &str) -> Result<Vec<MeasuredRow>, MemError> {
    let what = "stream_protection.csv";
    csv_rows(text, what)?
        .iter()
        .map(|r| {
            let (w, s) = (cell(r, "w_read", what)?, cell(r, "s_read", what)?);
            let hint = |n: &str| {
                PassHint::from_name(n)
                    .ok_or_else(|| MemError::Config(format!("{what}: unknown read `{n}`")))
            };
            // l2_hints2.cu's full mode writes `persist_mb` and `w_frac` (of the L2, rounded
            // down to 4 KiB as the script does); the quick mode's file has neither.
            let set_aside = match (
                cell(r, "persisting_limit_bytes", what),
                cell(r, "persist_mb", what),
            ) {
                (Ok(v), _) => number(v, what)?,
                (_, Ok(mb)) => number::<u64>(mb, what)? << 20,
                _ => 0,
            };
            let w_bytes = match (cell(r, "w_bytes", what), cell(r, "w_frac", what)) {
                (Ok(v), _) => number(v, what)?,
                (_, Ok(f)) => ((H100_L2_BYTES as f64 * number::<f64>(f, what)?) as u64) & !4095,
                _ => H100_L2_BYTES / 2,
            };
            let dram = match cell(r, "reread_dram_bytes", what) {
                Ok(v) => Some(number(v, what)?),
                Err(_) => None,
            };
            Ok(MeasuredRow {
                label: format!("W {w} S {s} limit {set_aside} W {w_bytes}"),
                experiment: Experiment {
                    w_bytes,
                    w_hint: hint(w)?,
                    s_hint: hint(s)?,
                    set_aside,
                },
                hw_hit_pct: number(cell(r, "reread_l2_hit_pct", what)?, what)?,
                hw_dram_bytes: dram,
            })
        })
        .collect()
}

/// The H100 model scaled down by `divisor` (L2 size, set-aside maximum; same ways, lines and
/// SMs) and the experiment scaled with it (|W| and the set-aside), so a test replays
/// `1/divisor` of the accesses. The set-aside is whole ways per set and consecutive lines
/// spread evenly over the sets, so the surviving fractions do not depend on the number of
/// sets; `scripts/hw-agreement` runs the full size.
pub fn scaled_h100(divisor: u64) -> Result<GpuConfig, MemError> {
    let mut cfg = GpuConfig::h100();
    if divisor == 0 || cfg.l2.size_bytes % (divisor * u64::from(cfg.l2.line_bytes) * 16) != 0 {
        return Err(MemError::Config(format!(
            "the H100 L2 does not divide into {divisor} equal parts of whole sets"
        )));
    }
    cfg.l2.size_bytes /= divisor;
    cfg.persisting_l2_max_bytes /= divisor;
    cfg.validate()?;
    Ok(cfg)
}

/// Runs `e` on the H100 model at `1/divisor` scale ([`scaled_h100`], [`scaled`]) and returns
/// the re-read's counts multiplied back to full size.
pub fn run_h100_scaled(e: &Experiment, divisor: u64) -> Result<Reread, MemError> {
    let cfg = scaled_h100(divisor)?;
    let r = run(&cfg, &scaled(e, divisor, u64::from(cfg.l2.line_bytes)))?;
    Ok(Reread {
        sectors: r.sectors * divisor,
        hit_sectors: r.hit_sectors * divisor,
        evict_last_hit_sectors: r.evict_last_hit_sectors * divisor,
        dram_bytes_read: r.dram_bytes_read * divisor,
        lookup_hits: r.lookup_hits * divisor,
        lookup_misses: r.lookup_misses * divisor,
    })
}

/// The experiment at `1/divisor` scale (see [`scaled_h100`]); |W| stays a whole number of
/// lines.
pub fn scaled(e: &Experiment, divisor: u64, line_bytes: u64) -> Experiment {
    Experiment {
        w_bytes: (e.w_bytes / divisor / line_bytes).max(1) * line_bytes,
        set_aside: e.set_aside / divisor,
        ..*e
    }
}
