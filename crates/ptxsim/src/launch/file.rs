//! TOML launch files (docs/launch-format.md): their fields, validation, timeouts and
//! dimensions.

use super::*;

/// A TOML launch file: one kernel (`kernel`, `grid`, `block`, `args`), or a sequence of
/// steps over named buffers (`[[buffer]]`, `[[step]]`) as a library's host code launches
/// several kernels with shared temporary storage (docs/launch-format.md).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchFile {
    pub ptx: PathBuf,
    /// The kernel of a one-kernel launch file (empty in a multi-step file).
    #[serde(default)]
    pub kernel: String,
    #[serde(default)]
    pub grid: Vec<u32>,
    #[serde(default)]
    pub block: Vec<u32>,
    #[serde(default)]
    pub shared: u32,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub seed: u64,
    #[serde(default)]
    pub max_steps: Option<u64>,
    /// Wall-clock limit of each launch in seconds (`--timeout`).
    #[serde(default)]
    pub timeout: Option<f64>,
    #[serde(default)]
    pub gpu: Option<String>,
    /// The persisting-L2 set-aside in bytes (an integer, or a string with a KiB/MiB/GiB
    /// suffix); `--persisting-l2` overrides it. Absent: 0, as in a fresh CUDA context.
    #[serde(default, deserialize_with = "de_byte_count")]
    pub persisting_l2: Option<u64>,
    /// Registers per thread of the kernel (of every kernel step unless a step gives its
    /// own), as `ptxas -v` prints them; `--registers-per-thread` overrides it. Absent:
    /// estimated from the PTX.
    #[serde(default)]
    pub registers_per_thread: Option<u32>,
    /// `fmad = false`: the code was assembled with ptxas `--fmad=false` (no `mul` + `add`
    /// contraction into fused multiply-adds); `--fmad` overrides it. Absent: true, ptxas's
    /// default.
    #[serde(default)]
    pub fmad: Option<bool>,
    /// The access policy window of the launch (of every kernel step of a multi-step file
    /// that gives none): `[access_policy_window]` with `arg`, `offset`, `bytes`, `hit_ratio`,
    /// `hit_prop`, `miss_prop`; `--access-policy-window` overrides it.
    #[serde(default)]
    pub access_policy_window: Option<WindowSpec>,
    /// Multi-step files: what happens to L2 between kernel steps, `all` (written back and
    /// emptied, Nsight Compute's default) or `none` (kept: persistence across kernels and
    /// the persisting reset show); `--cache-control` overrides it.
    #[serde(default)]
    pub cache_control: Option<String>,
    /// Argument index → output file.
    #[serde(default)]
    pub out: BTreeMap<String, PathBuf>,
    #[serde(default)]
    pub expect: Vec<Expect>,
    /// Multi-step files: the device buffers, allocated in this order.
    #[serde(default)]
    pub buffer: Vec<BufferDecl>,
    /// Multi-step files: kernel launches and memsets, run in order.
    #[serde(default)]
    pub step: Vec<Step>,
}

/// `persisting_l2 = 4194304` or `persisting_l2 = "4MiB"`.
pub(super) fn de_byte_count<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<u64>, D::Error> {
    use serde::de::Error;
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Count {
        Int(i64),
        Text(String),
    }
    match Count::deserialize(d)? {
        Count::Int(n) => u64::try_from(n)
            .map(Some)
            .map_err(|_| D::Error::custom(format!("persisting_l2 {n} is negative"))),
        Count::Text(t) => GpuConfig::parse_bytes(&t)
            .map(Some)
            .map_err(|e| D::Error::custom(format!("persisting_l2: {e}"))),
    }
}

/// An expected output buffer: argument `arg` of a one-kernel file, or buffer `buffer` of a
/// multi-step file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    #[serde(default)]
    pub arg: Option<usize>,
    #[serde(default)]
    pub buffer: Option<String>,
    pub npy: PathBuf,
    #[serde(default)]
    pub max_ulp: u64,
}

impl Expect {
    /// What the expectation checks, for messages: "argument 2" or "buffer `out`".
    pub fn what(&self) -> String {
        match (&self.buffer, self.arg) {
            (Some(b), _) => format!("buffer `{b}`"),
            (None, Some(i)) => format!("argument {i}"),
            (None, None) => "(nothing)".to_string(),
        }
    }
}

/// A device buffer of a multi-step launch file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BufferDecl {
    pub name: String,
    /// Its initial contents: `PATH.npy`, `PATH.bin` or `zeros:TYPE:COUNT`.
    pub init: String,
}

/// One step of a multi-step launch file: a kernel launch (`kernel`, `grid`, `block`,
/// `shared`, `args`), a memset (`memset`, `offset`, `bytes`, `value`) or a device-to-device
/// copy (`copy` = destination `NAME[+OFFSET]`, `from` = source `NAME[+OFFSET]`, `bytes`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    #[serde(default)]
    pub kernel: Option<String>,
    #[serde(default)]
    pub grid: Vec<u32>,
    #[serde(default)]
    pub block: Vec<u32>,
    #[serde(default)]
    pub shared: u32,
    #[serde(default)]
    pub args: Vec<String>,
    /// Registers per thread of this kernel step (overrides the file's).
    #[serde(default)]
    pub registers_per_thread: Option<u32>,
    /// The buffer a memset step fills.
    #[serde(default)]
    pub memset: Option<String>,
    #[serde(default)]
    pub offset: u64,
    #[serde(default)]
    pub bytes: Option<u64>,
    #[serde(default)]
    pub value: u8,
    /// The destination of a copy step: `NAME[+OFFSET]`.
    #[serde(default)]
    pub copy: Option<String>,
    /// The source of a copy step: `NAME[+OFFSET]`.
    #[serde(default)]
    pub from: Option<String>,
    /// This kernel step's access policy window (overrides the file's).
    #[serde(default)]
    pub access_policy_window: Option<WindowSpec>,
    /// `reset_persisting_l2 = true`: a host step, `cudaCtxResetPersistingL2Cache()` (every
    /// persisting L2 line becomes normal).
    #[serde(default)]
    pub reset_persisting_l2: bool,
}

impl LaunchFile {
    /// Reads a launch file; paths inside are relative to it.
    pub fn read(path: &Path) -> Result<(LaunchFile, PathBuf), LaunchError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| LaunchError::new(format!("cannot read {}: {e}", path.display())))?;
        let file: LaunchFile = toml::from_str(&text)
            .map_err(|e| LaunchError::new(format!("{}: {e}", path.display())))?;
        file.validate()
            .map_err(|e| LaunchError::new(format!("{}: {e}", path.display())))?;
        let base = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        Ok((file, base))
    }

    /// The `timeout` key as a duration (checked as `--timeout` is).
    pub fn timeout(&self) -> Result<Option<std::time::Duration>, String> {
        self.timeout
            .map(|t| seconds(t).map_err(|e| format!("launch file: timeout: {e}")))
            .transpose()
    }

    /// True for a multi-step file (`[[buffer]]`/`[[step]]`).
    pub fn is_multi_step(&self) -> bool {
        !self.step.is_empty() || !self.buffer.is_empty()
    }

    /// Checks that the file is one of the two forms and that expectations name what exists.
    pub fn validate(&self) -> Result<(), LaunchError> {
        let regs = std::iter::once((
            "registers_per_thread".to_string(),
            self.registers_per_thread,
        ))
        .chain(self.step.iter().enumerate().map(|(i, st)| {
            (
                format!("step {i}: registers_per_thread"),
                st.registers_per_thread,
            )
        }));
        for (what, n) in regs {
            if let Some(n) = n {
                if !(1..=MAX_REGISTERS_PER_THREAD).contains(&n) {
                    return err(format!(
                        "{what} = {n}: give the registers per thread ptxas reports, 1 to \
                         {MAX_REGISTERS_PER_THREAD}"
                    ));
                }
            }
        }
        if let Some(c) = &self.cache_control {
            if c != "all" && c != "none" {
                return err(format!("cache_control = \"{c}\": give \"all\" or \"none\""));
            }
        }
        for (i, st) in self.step.iter().enumerate() {
            if st.access_policy_window.is_some() && st.kernel.is_none() {
                return err(format!(
                    "step {i}: access_policy_window is a kernel launch's attribute; this step \
                     launches no kernel"
                ));
            }
            if st.reset_persisting_l2
                && (st.kernel.is_some() || st.memset.is_some() || st.copy.is_some())
            {
                return err(format!(
                    "step {i}: reset_persisting_l2 is a step of its own (no kernel, memset or \
                     copy in it)"
                ));
            }
        }
        if self.is_multi_step() {
            if !self.kernel.is_empty()
                || !self.grid.is_empty()
                || !self.block.is_empty()
                || !self.args.is_empty()
                || self.shared != 0
                || !self.out.is_empty()
            {
                return err(
                    "a multi-step launch file ([[buffer]], [[step]]) takes no top-level \
                            kernel, grid, block, shared, args or out: each [[step]] has its own",
                );
            }
            if self.step.is_empty() {
                return err("a multi-step launch file needs at least one [[step]]");
            }
            let mut names = std::collections::HashSet::new();
            for b in &self.buffer {
                if !names.insert(b.name.as_str()) {
                    return err(format!("buffer `{}` is declared twice", b.name));
                }
            }
            for (i, st) in self.step.iter().enumerate() {
                let launch_fields =
                    !st.grid.is_empty() || !st.block.is_empty() || !st.args.is_empty();
                if st.kernel.is_none() && st.registers_per_thread.is_some() {
                    return err(format!(
                        "step {i}: registers_per_thread belongs to kernel steps"
                    ));
                }
                if st.reset_persisting_l2 {
                    if launch_fields
                        || st.bytes.is_some()
                        || st.offset != 0
                        || st.value != 0
                        || st.from.is_some()
                    {
                        return err(format!(
                            "step {i}: a reset_persisting_l2 step takes nothing else"
                        ));
                    }
                    continue;
                }
                match (&st.kernel, &st.memset, &st.copy) {
                    (Some(_), None, None) => {
                        if st.bytes.is_some()
                            || st.offset != 0
                            || st.value != 0
                            || st.from.is_some()
                        {
                            return err(format!(
                                "step {i}: offset/bytes/value/from belong to memset and copy steps"
                            ));
                        }
                    }
                    (None, None, Some(_)) => {
                        if st.from.is_none() || st.bytes.is_none() {
                            return err(format!("step {i}: a copy step needs `from` and `bytes`"));
                        }
                        if launch_fields || st.offset != 0 || st.value != 0 {
                            return err(format!(
                                "step {i}: a copy step takes `copy`, `from` and `bytes` only"
                            ));
                        }
                    }
                    (None, Some(b), None) => {
                        if !names.contains(b.as_str()) {
                            return err(format!("step {i}: memset of undeclared buffer `{b}`"));
                        }
                        if st.bytes.is_none() {
                            return err(format!("step {i}: a memset step needs `bytes`"));
                        }
                        if launch_fields || st.from.is_some() {
                            return err(format!(
                                "step {i}: grid/block/args/from belong to kernel and copy steps"
                            ));
                        }
                    }
                    _ => {
                        return err(format!(
                            "step {i}: give one of `kernel` (a launch), `memset` (a buffer), \
                             `copy` (a destination) or `reset_persisting_l2 = true`"
                        ))
                    }
                }
            }
            for e in &self.expect {
                match (&e.buffer, e.arg) {
                    (Some(b), None) if names.contains(b.as_str()) => {}
                    (Some(b), None) => {
                        return err(format!("[[expect]] names undeclared buffer `{b}`"))
                    }
                    _ => {
                        return err("[[expect]] in a multi-step file names a `buffer` (not `arg`)")
                    }
                }
            }
        } else {
            if self.kernel.is_empty() {
                return err("a launch file needs `kernel` (or [[step]]s)");
            }
            for e in &self.expect {
                if e.arg.is_none() || e.buffer.is_some() {
                    return err("[[expect]] in a one-kernel file names an argument with `arg`");
                }
            }
        }
        Ok(())
    }
}

/// The most registers a thread has (CUDA C++ Programming Guide, "Technical Specifications
/// per Compute Capability": 255 on every compute capability from 3.5).
pub const MAX_REGISTERS_PER_THREAD: u32 = 255;

/// A wall-clock limit in seconds: positive and finite.
pub fn seconds(t: f64) -> Result<std::time::Duration, String> {
    if t.is_finite() && t > 0.0 {
        std::time::Duration::try_from_secs_f64(t).map_err(|e| format!("{t}: {e}"))
    } else {
        Err(format!("{t} is not a positive number of seconds"))
    }
}

/// Parses `--timeout SECONDS`.
pub fn parse_timeout(text: &str) -> Result<std::time::Duration, String> {
    let t: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    seconds(t)
}

/// `X[,Y[,Z]]` or a list of 1 to 3 numbers → three dimensions.
pub fn dims(v: &[u32], what: &str) -> Result<[u32; 3], LaunchError> {
    match v {
        [x] => Ok([*x, 1, 1]),
        [x, y] => Ok([*x, *y, 1]),
        [x, y, z] => Ok([*x, *y, *z]),
        _ => err(format!("{what} takes 1 to 3 dimensions, {} given", v.len())),
    }
}
