//! A sweep spec expanded into points: every launch, variant, GPU, set-aside size and seed,
//! each with the hash of everything that determines its result (its cache key).

use super::spec::{Label, Spec};
use crate::launch::{parse_arg, ArgSpec, LaunchFile, WindowSpec};
use crate::point::{Variant, BASELINE};
use memsys::GpuConfig;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// A launch of the sweep, read and checked, with its module's variants.
#[derive(Debug)]
pub struct PlannedLaunch {
    /// The launch file, as the spec resolves it.
    pub path: PathBuf,
    /// Its values of the launches' own axes ([`Plan::launch_axes`]).
    pub labels: Vec<Label>,
    pub file: LaunchFile,
    /// The directory the launch file's paths are relative to.
    pub base: PathBuf,
    /// The PTX file.
    pub ptx: PathBuf,
    /// The arguments of a one-kernel launch (empty for a multi-step file).
    pub specs: Vec<ArgSpec>,
    /// The original module first, then each rewrite of the variant axis.
    pub variants: Vec<Variant>,
    /// SHA-256 of the launch file and every input it loads.
    inputs: [u8; 32],
}

/// One point: a launch, a variant, a GPU model, a persisting set-aside and a seed.
#[derive(Debug, Clone)]
pub struct Point {
    pub launch: usize,
    pub variant: usize,
    /// The GPU as the axis (or the launch file) names it.
    pub gpu_label: String,
    pub gpu: GpuConfig,
    /// Bytes of L2 set aside for persisting (evict-last) lines.
    pub persisting_l2: u64,
    pub seed: u64,
    /// The access policy window of the `access_policy_window` axis (`None`: `"none"`, or the
    /// launch file's own when the spec has no such axis).
    pub window: Option<WindowSpec>,
    /// Hex SHA-256 of everything that determines the point's result.
    pub key: String,
}

/// A sweep ready to run.
#[derive(Debug)]
pub struct Plan {
    /// Names of the launches' own axes (`launch` for a list of launch files, or the
    /// `[[launches]]` axes), the first columns of every row.
    pub launch_axes: Vec<String>,
    pub launches: Vec<PlannedLaunch>,
    /// Variant names, the original first.
    pub variant_names: Vec<String>,
    pub points: Vec<Point>,
    /// The heatmap axes the spec asks for.
    pub report_x: Option<String>,
    pub report_y: Option<String>,
    /// The spec has an `access_policy_window` axis (its rows then have the column).
    pub window_axis: bool,
    /// Interpreter threads per point (`--threads`, default 1: points already run in parallel,
    /// `--jobs` of them at once). Not part of a point's key: results do not depend on it.
    pub threads: u32,
    /// `--counters-only`: each point runs its launch in counters-only mode (the counters and
    /// time estimate are the full run's; the outputs are not computed, so their digests read
    /// [`NOT_COMPUTED`]).
    pub counters_only: bool,
}

/// The outputs digest of a point run with `--counters-only`.
pub const NOT_COMPUTED: &str = "not computed (--counters-only)";

/// Checks `--threads` (interpreter threads per point): 1 to
/// [`ptx_exec::machine::MAX_THREADS`]. Each point's launch runs on that many threads; points
/// run `--jobs` at once, so a sweep uses up to jobs × threads cores.
pub fn check_threads(threads: usize) -> Result<u32, String> {
    let max = ptx_exec::machine::MAX_THREADS;
    match u32::try_from(threads) {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!(
            "--threads {threads}: give 1 to {max} interpreter threads per point (points run in \
             parallel with --jobs)"
        )),
    }
}

/// Resolves a GPU: a preset name, or a TOML file relative to `dir`.
pub fn gpu_config(spec: &str, dir: &Path) -> Result<GpuConfig, String> {
    if Path::new(spec).extension().is_some_and(|e| e == "toml") {
        let path = dir.join(spec);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        GpuConfig::from_toml(&text).map_err(|e| format!("{}: {e}", path.display()))
    } else {
        GpuConfig::preset(spec).map_err(|e| e.to_string())
    }
}

/// Sets the persisting set-aside of a point's GPU (`cudaLimitPersistingL2CacheSize`): bytes of
/// L2 that evict-last (persisting) lines may hold, at most the GPU's maximum.
pub fn set_aside(gpu: &mut GpuConfig, bytes: u64) -> Result<(), String> {
    gpu.set_persisting_l2(bytes).map_err(|e| e.to_string())
}

/// Feeds one length-prefixed field to the hash, so that fields cannot run into each other.
fn field(h: &mut Sha256, bytes: &[u8]) {
    h.update((bytes.len() as u64).to_le_bytes());
    h.update(bytes);
}

fn hash_arg(h: &mut Sha256, a: &ArgSpec) {
    match a {
        ArgSpec::Buffer(b) => {
            field(h, b"buffer");
            field(h, b.ty.token().as_bytes());
            field(h, &b.bytes);
        }
        ArgSpec::Null => field(h, b"null"),
        ArgSpec::Scalar { ty, bits } => {
            field(h, b"scalar");
            field(h, ty.token().as_bytes());
            field(h, &bits.to_le_bytes());
        }
        ArgSpec::TensorMap { buffer, map } => {
            field(h, b"tensormap");
            field(h, &map.encode());
            field(h, buffer.ty.token().as_bytes());
            field(h, &buffer.bytes);
        }
    }
}

impl PlannedLaunch {
    fn read(path: PathBuf, labels: Vec<Label>, variant_axis: &[String]) -> Result<Self, String> {
        let (file, base) = LaunchFile::read(&path).map_err(|e| e.to_string())?;
        let text = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let ptx = base.join(&file.ptx);
        let source = std::fs::read_to_string(&ptx)
            .map_err(|e| format!("cannot read {}: {e}", ptx.display()))?;
        let mut h = Sha256::new();
        field(&mut h, &text);
        let at = |e: crate::launch::LaunchError| format!("{}: {e}", path.display());
        let mut specs = Vec::new();
        if file.is_multi_step() {
            for b in &file.buffer {
                hash_arg(&mut h, &parse_arg(&b.init, &base).map_err(at)?);
            }
        } else {
            for a in &file.args {
                let spec = parse_arg(a, &base).map_err(at)?;
                hash_arg(&mut h, &spec);
                specs.push(spec);
            }
        }
        let mut variants = vec![Variant::original(&source)];
        for v in variant_axis.iter().filter(|v| *v != BASELINE) {
            variants.push(Variant::parse(v, &source, &ptx)?);
        }
        Ok(PlannedLaunch {
            path,
            labels,
            file,
            base,
            ptx,
            specs,
            variants,
            inputs: h.finalize().into(),
        })
    }
}

impl Plan {
    /// Reads every launch, applies every rewrite, resolves every GPU, and lists the points
    /// (launch, then GPU, set-aside, seed, with the variants innermost).
    pub fn new(spec: &Spec) -> Result<Plan, String> {
        let axes = &spec.file.axes;
        let mut seen = std::collections::HashSet::new();
        for v in &axes.variant {
            let name = v.split_once('=').map_or(v.as_str(), |(n, _)| n.trim());
            if !seen.insert(name.to_string()) {
                return Err(format!(
                    "sweep spec: variant `{name}` is given twice in [axes] variant"
                ));
            }
        }
        let (launch_axes, listed) = spec.launches()?;
        let launches = listed
            .into_iter()
            .map(|(path, labels)| PlannedLaunch::read(path, labels, &axes.variant))
            .collect::<Result<Vec<_>, _>>()?;
        let variant_names = launches[0]
            .variants
            .iter()
            .map(|v| v.name.clone())
            .collect();
        let set_aside_axis: Vec<u64> = axes
            .persisting_l2
            .iter()
            .map(|b| b.value())
            .collect::<Result<_, _>>()?;
        let windows: Vec<Option<WindowSpec>> = axes
            .access_policy_window
            .iter()
            .map(|w| match w.trim() {
                "none" => Ok(None),
                t => WindowSpec::parse(t)
                    .map(Some)
                    .map_err(|e| format!("sweep spec: access_policy_window {e}")),
            })
            .collect::<Result<_, _>>()?;
        let mut points = Vec::new();
        for (li, launch) in launches.iter().enumerate() {
            let windows = if windows.is_empty() {
                vec![launch.file.access_policy_window.clone()]
            } else {
                windows.clone()
            };
            // A GPU named by the launch file is relative to it; one named by the spec, to it.
            let gpus: Vec<(String, GpuConfig)> = if axes.gpu.is_empty() {
                let label = launch.file.gpu.clone().unwrap_or_else(|| "h100".into());
                let cfg = gpu_config(&label, &launch.base)
                    .map_err(|e| format!("{}: {e}", launch.path.display()))?;
                vec![(label, cfg)]
            } else {
                axes.gpu
                    .iter()
                    .map(|g| gpu_config(g, &spec.dir).map(|c| (g.clone(), c)))
                    .collect::<Result<_, _>>()?
            };
            let set_asides = if set_aside_axis.is_empty() {
                vec![launch.file.persisting_l2.unwrap_or(0)]
            } else {
                set_aside_axis.clone()
            };
            let seeds = if axes.seed.is_empty() {
                vec![launch.file.seed]
            } else {
                axes.seed.clone()
            };
            for (gpu_label, gpu) in &gpus {
                for &persisting_l2 in &set_asides {
                    let mut gpu = gpu.clone();
                    set_aside(&mut gpu, persisting_l2)
                        .map_err(|e| format!("gpu `{gpu_label}`: persisting_l2: {e}"))?;
                    for &seed in &seeds {
                        for window in &windows {
                            for (vi, v) in launch.variants.iter().enumerate() {
                                let mut key = point_key(launch, v, &gpu, persisting_l2, seed);
                                if let Some(w) = window {
                                    key = window_key(&key, w);
                                }
                                points.push(Point {
                                    launch: li,
                                    variant: vi,
                                    gpu_label: gpu_label.clone(),
                                    gpu: gpu.clone(),
                                    persisting_l2,
                                    seed,
                                    window: window.clone(),
                                    key,
                                });
                            }
                        }
                    }
                }
            }
        }
        Ok(Plan {
            launch_axes,
            launches,
            variant_names,
            points,
            report_x: spec.file.report.x.clone(),
            report_y: spec.file.report.y.clone(),
            window_axis: !axes.access_policy_window.is_empty(),
            threads: 1,
            counters_only: false,
        })
    }

    /// The index of the original's point with the same launch, GPU, set-aside and seed.
    pub fn baseline_of(&self, i: usize) -> usize {
        // Variants are the innermost loop, the original first.
        i - self.points[i].variant
    }
}

/// The cache key of a point with an access policy window: its key without one, and the
/// window (points without a window keep the keys they had before windows existed).
fn window_key(key: &str, w: &WindowSpec) -> String {
    let mut h = Sha256::new();
    field(&mut h, b"access_policy_window");
    field(&mut h, key.as_bytes());
    field(&mut h, w.text().as_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The cache key: the ptxsim version, the launch and its inputs, the variant's module text and
/// rewrite, the GPU model's every field, the set-aside and the seed.
fn point_key(
    launch: &PlannedLaunch,
    v: &Variant,
    gpu: &GpuConfig,
    persisting_l2: u64,
    seed: u64,
) -> String {
    let mut h = Sha256::new();
    field(&mut h, b"ptxsim-sweep-point 1");
    field(&mut h, env!("CARGO_PKG_VERSION").as_bytes());
    field(&mut h, &launch.inputs);
    field(
        &mut h,
        v.rewrite
            .as_ref()
            .map_or("", |r| r.spec.as_str())
            .as_bytes(),
    );
    field(&mut h, v.rewritten.text.as_bytes());
    let gpu_json = serde_json::to_vec(gpu).unwrap_or_default();
    field(&mut h, &gpu_json);
    field(&mut h, &persisting_l2.to_le_bytes());
    field(&mut h, &seed.to_le_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}
