//! The H100 L2 eviction-priority microbenchmarks (`../shared/hw/h100/README.md` section 4,
//! `scripts/l2_persist.cu`, `scripts/l2_hints2.cu`; data copied to `tests/hw/h100/l2/`) as
//! memsys traces, and how Nsight Compute's `lts__t_sector_hit_rate.pct` of the measured re-read
//! relates to memsys's counters.
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
}

impl Reread {
    /// memsys's own L2 sector hit rate of the re-read, percent.
    pub fn hit_pct(&self) -> f64 {
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
        hit_sectors: t.l2.read_hits,
        evict_last_hit_sectors: evict_last_sectors,
        dram_bytes_read: t.dram.bytes_read,
    })
}

/// How Nsight Compute's `lts__t_sector_hit_rate.pct` of the H100 re-read relates to what
/// memsys counts. memsys is one L2 holding each line once, and it reproduces what the DRAM
/// bytes of the H100 say stayed in L2; ncu's hit rate differs from that fraction in two
/// ways, both measured in `stream_protection.csv` and `persisting.csv`:
///
/// 1. **Two L2 partitions.** The H100's L2 is two partitions (whitepaper: each "caches data
///    for memory accesses from SMs in the GPCs directly connected to the partition"). A
///    sector homed in the far partition is looked up in the SM's near partition first, and
///    only on a miss there in the home partition: two lookups. A miss therefore costs
///    `1 + far_fraction` lookups; so does a hit on a line that only the home partition still
///    holds. Persisting (evict-last) lines are such lines after a stream: the set-aside keeps
///    the home copy, the near copies are normal lines the stream pushed out. Evidence: with
///    W = L2/2 read evict-last and a normal stream, the re-read fetched exactly 7/8 of W from
///    DRAM (1/8 stayed) but hit 11.46 %, and every fully protected W (W <= the set-aside)
///    hits at most 70.8 %, never 100 %: hits/lookups = 1 / 1.5 for a line reached through
///    its home partition from half of the SMs, plus the constant below.
/// 2. **Traffic that is not the kernel's loads** (instruction and constant fetches, which
///    mostly hit): a constant number of sectors per launch of this grid, which makes a re-read
///    that fetched all of W from DRAM (normal stream: `reread_dram_bytes` = |W|) still hit
///    3.41 %, the cold W read 3.4 % and the 4x larger stream 0.9 %.
///
/// The constants are solved from two rows whose survival the DRAM bytes give, independent of
/// the cache model: `cg,cg` (all of W refetched, 3.41 %) and `cg,cs` (1,660,928 B
/// refetched, 89.65 %); `tests/hw_l2_agreement.rs` solves them again from the copied data.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NsightView {
    /// Fraction of lookups that come from SMs on the line's far partition.
    pub far_fraction: f64,
    /// Sector hits per launch that are not the kernel's loads.
    pub other_hit_sectors: f64,
    /// Sector misses per launch that are not the kernel's loads.
    pub other_miss_sectors: f64,
}

/// The H100 of `../shared/hw/h100` under the scripts' grid (1056 CTAs x 256 threads).
pub const H100_NSIGHT: NsightView = NsightView {
    far_fraction: 0.5,
    other_hit_sectors: 43_939.0,
    other_miss_sectors: 15_800.0,
};

impl NsightView {
    /// The re-read's hit rate as ncu reports it, percent.
    pub fn hit_pct(&self, r: &Reread) -> f64 {
        let hits = r.hit_sectors as f64;
        let last = r.evict_last_hit_sectors.min(r.hit_sectors) as f64;
        let misses = r.sectors.saturating_sub(r.hit_sectors) as f64;
        let two_lookups = 1.0 + self.far_fraction;
        let lookups = (hits - last)
            + two_lookups * (last + misses)
            + self.other_hit_sectors
            + self.other_miss_sectors;
        100.0 * (hits + self.other_hit_sectors) / lookups
    }

    /// Solves the two per-launch constants from two measured re-reads of the same |W| whose
    /// surviving sectors are known (from DRAM bytes): `(survived, hit_pct)` each.
    pub fn solve(
        far_fraction: f64,
        w_sectors: f64,
        a: (f64, f64),
        b: (f64, f64),
    ) -> Option<NsightView> {
        // hit = (s + H) / (s + (1 + f)(N - s) + H + M); with T = H + M each row gives
        // H = hit * (s + (1 + f)(N - s) + T) - s, linear in T.
        let base = |(s, pct): (f64, f64)| {
            let h = pct / 100.0;
            (h * (s + (1.0 + far_fraction) * (w_sectors - s)) - s, h)
        };
        let ((ca, ha), (cb, hb)) = (base(a), base(b));
        if (ha - hb).abs() < 1e-9 {
            return None;
        }
        let total = (cb - ca) / (ha - hb);
        let hits = ca + ha * total;
        Some(NsightView {
            far_fraction,
            other_hit_sectors: hits,
            other_miss_sectors: total - hits,
        })
    }
}

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
/// the re-read's counts multiplied back to full size (so [`NsightView`]'s per-launch
/// constants apply).
pub fn run_h100_scaled(e: &Experiment, divisor: u64) -> Result<Reread, MemError> {
    let cfg = scaled_h100(divisor)?;
    let r = run(&cfg, &scaled(e, divisor, u64::from(cfg.l2.line_bytes)))?;
    Ok(Reread {
        sectors: r.sectors * divisor,
        hit_sectors: r.hit_sectors * divisor,
        evict_last_hit_sectors: r.evict_last_hit_sectors * divisor,
        dram_bytes_read: r.dram_bytes_read * divisor,
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
