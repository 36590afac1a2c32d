//! The sweep spec (`ptxsim sweep SPEC.toml`, `ptxsim.sweep(spec)`): which launch or launches,
//! and the axes whose every combination is a point.
//!
//! ```toml
//! launch = "examples/matmul_fp16.sm80.toml"   # or a list: one `launch` column
//! [axes]
//! variant = ["original", "persist=cp.async=policy:fraction:1.0:evict_last"]
//! gpu = ["a100", "h100"]                     # presets or GPU TOML files
//! persisting_l2 = [0, "8MiB"]                # bytes (or KiB/MiB/GiB)
//! seed = [0, 1]
//! access_policy_window = ["none", "0:1MiB:0.5:persisting:streaming"]
//! [report]                                   # optional: the heatmaps' axes
//! x = "persisting_l2"
//! y = "variant"
//! ```
//!
//! `[[launches]]` (`launch = PATH`, `axes = { NAME = VALUE, ... }`) gives launches labelled by
//! axes of their own (problem sizes, constexprs): `ptxsim.triton.sweep` writes such specs.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A spec as written (TOML or JSON); paths are relative to the spec's directory.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecFile {
    #[serde(default)]
    pub launch: Option<OneOrMany>,
    #[serde(default)]
    pub launches: Vec<LabelledLaunch>,
    #[serde(default)]
    pub axes: Axes,
    #[serde(default)]
    pub report: ReportAxes,
}

/// `launch = "PATH"` or `launch = ["PATH", ...]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

/// A launch with the values of axes of its own (`[[launches]]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelledLaunch {
    pub launch: String,
    #[serde(default)]
    pub axes: BTreeMap<String, Label>,
}

/// The value of a launch's own axis: a number or a string (kept as written).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Label {
    Int(i64),
    Float(f64),
    Bool(bool),
    Text(String),
}

impl Label {
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Label::Int(i) => (*i).into(),
            Label::Float(f) => (*f).into(),
            Label::Bool(b) => (*b).into(),
            Label::Text(s) => s.clone().into(),
        }
    }
}

/// The axes of every launch. An absent axis is one value: the original only, and the launch
/// file's GPU (else h100), set-aside (else 0) and seed.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Axes {
    #[serde(default)]
    pub variant: Vec<String>,
    #[serde(default)]
    pub gpu: Vec<String>,
    #[serde(default)]
    pub persisting_l2: Vec<Bytes>,
    #[serde(default)]
    pub seed: Vec<u64>,
    /// Access policy windows: `"none"` or `ARG[+OFFSET]:BYTES:HIT_RATIO:HIT_PROP:MISS_PROP`
    /// as `--access-policy-window` takes them (a buffer name for a multi-step launch file).
    #[serde(default)]
    pub access_policy_window: Vec<String>,
}

/// A byte count: a number, or a string such as `"8MiB"`, `"512 KiB"`, `"1GiB"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Bytes {
    Count(u64),
    Text(String),
}

impl Bytes {
    pub fn value(&self) -> Result<u64, String> {
        match self {
            Bytes::Count(n) => Ok(*n),
            Bytes::Text(t) => {
                memsys::GpuConfig::parse_bytes(t).map_err(|e| format!("persisting_l2: {e}"))
            }
        }
    }
}

/// The two axes the report's heatmaps are drawn over (default: the first two axes with more
/// than one value).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportAxes {
    #[serde(default)]
    pub x: Option<String>,
    #[serde(default)]
    pub y: Option<String>,
}

/// The launches of a spec: the names of their own axes, and each launch file with its values.
pub type Launches = (Vec<String>, Vec<(PathBuf, Vec<Label>)>);

/// A spec and the directory its paths are relative to.
#[derive(Debug, Clone)]
pub struct Spec {
    pub file: SpecFile,
    pub dir: PathBuf,
}

impl Spec {
    /// Reads a TOML spec file.
    pub fn read(path: &Path) -> Result<Spec, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let file: SpecFile =
            toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        Ok(Spec { file, dir })
    }

    /// A spec given as JSON (the Python API's dict), paths relative to `dir`.
    pub fn from_json(text: &str, dir: &Path) -> Result<Spec, String> {
        let file: SpecFile = serde_json::from_str(text).map_err(|e| format!("sweep spec: {e}"))?;
        Ok(Spec {
            file,
            dir: dir.to_path_buf(),
        })
    }

    /// The launches with their own axes' values, in order; every launch names the same axes.
    pub fn launches(&self) -> Result<Launches, String> {
        let f = &self.file;
        match (&f.launch, f.launches.is_empty()) {
            (Some(_), false) => Err("sweep spec: give `launch` or `[[launches]]`, not both".into()),
            (None, true) => Err("sweep spec: `launch = \"PATH.toml\"` is required".into()),
            (Some(OneOrMany::One(p)), true) => Ok((Vec::new(), vec![(self.dir.join(p), vec![])])),
            (Some(OneOrMany::Many(ps)), true) => {
                if ps.is_empty() {
                    return Err("sweep spec: `launch` is an empty list".into());
                }
                Ok((
                    vec!["launch".into()],
                    ps.iter()
                        .map(|p| (self.dir.join(p), vec![Label::Text(p.clone())]))
                        .collect(),
                ))
            }
            (None, false) => {
                let names: Vec<String> = f.launches[0].axes.keys().cloned().collect();
                let mut out = Vec::new();
                for (i, l) in f.launches.iter().enumerate() {
                    let these: Vec<&String> = l.axes.keys().collect();
                    if these != names.iter().collect::<Vec<_>>() {
                        return Err(format!(
                            "sweep spec: launches[{i}] has axes {these:?}, launches[0] {names:?}: every launch names the same axes"
                        ));
                    }
                    out.push((self.dir.join(&l.launch), l.axes.values().cloned().collect()));
                }
                for n in &names {
                    if [
                        "variant",
                        "gpu",
                        "persisting_l2",
                        "seed",
                        "access_policy_window",
                        "step",
                        "kernel",
                        "outputs_equal",
                    ]
                    .contains(&n.as_str())
                    {
                        return Err(format!(
                            "sweep spec: a launch's own axis cannot be called `{n}`"
                        ));
                    }
                }
                Ok((names, out))
            }
        }
    }
}
