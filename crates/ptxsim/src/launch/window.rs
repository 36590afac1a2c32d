//! The access policy window of a launch (`cudaStreamAttrValue::accessPolicyWindow`):
//! `--access-policy-window ARG[+OFFSET]:BYTES:HIT_RATIO:HIT_PROP:MISS_PROP`, the
//! `[access_policy_window]` table of launch files and steps, and its resolution against the
//! launch's buffers (memsys `system/l2_control.rs` applies it).

use super::*;
use memsys::{AccessPolicyWindow, AccessProperty};

/// Which buffer a window starts in: an argument index (one-kernel launches) or a buffer name
/// (multi-step launch files).
#[derive(Debug, Clone, PartialEq)]
pub enum WindowTarget {
    Index(usize),
    Name(String),
}

/// An access policy window as written, before its buffer's address is known.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowSpec {
    pub target: WindowTarget,
    /// Bytes from the buffer's start to `base_ptr`.
    pub offset: u64,
    /// `num_bytes`.
    pub bytes: u64,
    /// `hitRatio`.
    pub hit_ratio: f32,
    pub hit_prop: AccessProperty,
    pub miss_prop: AccessProperty,
}

fn property(text: &str, what: &str) -> Result<AccessProperty, String> {
    AccessProperty::parse(text)
        .ok_or_else(|| format!("{what} `{text}`: give normal, streaming or persisting"))
}

impl WindowSpec {
    /// Parses `ARG[+OFFSET]:BYTES:HIT_RATIO:HIT_PROP:MISS_PROP` (BYTES an integer or with a
    /// KiB/MiB/GiB suffix; ARG an argument index, or a buffer name of a multi-step file).
    pub fn parse(text: &str) -> Result<WindowSpec, String> {
        let parts: Vec<&str> = text.split(':').collect();
        let [target, bytes, ratio, hit, miss] = parts.as_slice() else {
            return Err(format!(
                "`{text}`: write ARG[+OFFSET]:BYTES:HIT_RATIO:HIT_PROP:MISS_PROP, e.g. \
                 2:1MiB:0.6:persisting:streaming"
            ));
        };
        let (target, offset) = match target.split_once('+') {
            Some((t, o)) => (
                t,
                GpuConfig::parse_bytes(o).map_err(|e| format!("`{text}`: offset `{o}`: {e}"))?,
            ),
            None => (*target, 0),
        };
        let target = target.trim();
        if target.is_empty() {
            return Err(format!(
                "`{text}`: the argument (index or buffer name) is missing"
            ));
        }
        let target = match target.parse::<usize>() {
            Ok(i) => WindowTarget::Index(i),
            Err(_) => WindowTarget::Name(target.to_string()),
        };
        let bytes =
            GpuConfig::parse_bytes(bytes).map_err(|e| format!("`{text}`: bytes `{bytes}`: {e}"))?;
        let hit_ratio = ratio
            .trim()
            .parse::<f32>()
            .map_err(|_| format!("`{text}`: hit ratio `{ratio}` is not a number"))?;
        Ok(WindowSpec {
            target,
            offset,
            bytes,
            hit_ratio,
            hit_prop: property(hit, "hit property")?,
            miss_prop: property(miss, "miss property")?,
        })
    }

    /// The window as the flag writes it.
    pub fn text(&self) -> String {
        let target = match &self.target {
            WindowTarget::Index(i) => i.to_string(),
            WindowTarget::Name(n) => n.clone(),
        };
        let offset = if self.offset > 0 {
            format!("+{}", self.offset)
        } else {
            String::new()
        };
        format!(
            "{target}{offset}:{}:{}:{}:{}",
            self.bytes,
            self.hit_ratio,
            self.hit_prop.name(),
            self.miss_prop.name()
        )
    }

    /// The window at `base` (the buffer's address) of a buffer of `len` bytes named `what`,
    /// checked as the CUDA runtime checks it for `gpu` (exit 2 on error).
    fn at(
        &self,
        base: u64,
        len: u64,
        what: &str,
        gpu: &GpuConfig,
    ) -> Result<AccessPolicyWindow, LaunchError> {
        if self.offset >= len.max(1) {
            return err(format!(
                "access policy window: offset {} is past the end of {what} ({len} bytes)",
                self.offset
            ));
        }
        let w = AccessPolicyWindow {
            base: base + self.offset,
            bytes: self.bytes,
            hit_ratio: self.hit_ratio,
            hit_prop: self.hit_prop,
            miss_prop: self.miss_prop,
        };
        w.validate(gpu).map_err(|e| {
            LaunchError::new(format!("access policy window `{}`: {e}", self.text()))
        })?;
        Ok(w)
    }

    /// Resolves the window of a one-kernel launch: its argument must be a buffer.
    pub fn resolve(
        &self,
        buffers: &[(usize, u64, Array)],
        arg_count: usize,
        gpu: &GpuConfig,
    ) -> Result<AccessPolicyWindow, LaunchError> {
        let i = match &self.target {
            WindowTarget::Index(i) => *i,
            WindowTarget::Name(n) => {
                return err(format!(
                    "access policy window `{}`: `{n}` names a buffer, which only multi-step \
                     launch files have; give the argument index",
                    self.text()
                ))
            }
        };
        if i >= arg_count {
            return err(format!(
                "access policy window `{}`: the launch has {arg_count} arguments (0 to {})",
                self.text(),
                arg_count.saturating_sub(1)
            ));
        }
        let Some((_, addr, a)) = buffers.iter().find(|(j, _, _)| *j == i) else {
            return err(format!(
                "access policy window `{}`: argument {i} is not a buffer (a scalar or null has \
                 no memory for a window)",
                self.text()
            ));
        };
        self.at(*addr, a.bytes.len() as u64, &format!("argument {i}"), gpu)
    }

    /// Resolves the window of a multi-step launch: its argument names a declared buffer.
    pub fn resolve_named(
        &self,
        buffers: &[NamedBuffer],
        gpu: &GpuConfig,
    ) -> Result<AccessPolicyWindow, LaunchError> {
        let name = match &self.target {
            WindowTarget::Name(n) => n.clone(),
            WindowTarget::Index(i) => {
                return err(format!(
                    "access policy window `{}`: a multi-step launch names its buffers: give a \
                     buffer name, not argument index {i}",
                    self.text()
                ))
            }
        };
        let b = find_buffer(buffers, &name)
            .map_err(|e| LaunchError::new(format!("access policy window: {}", e.message)))?;
        self.at(
            b.addr,
            b.init.bytes.len() as u64,
            &format!("buffer `{name}`"),
            gpu,
        )
    }
}

/// The `[access_policy_window]` table: keys `arg` (an index or a buffer name), `offset`,
/// `bytes` (integers or with a KiB/MiB/GiB suffix), `hit_ratio`, `hit_prop`, `miss_prop`.
impl<'de> Deserialize<'de> for WindowSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Target {
            Index(u64),
            Name(String),
        }
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Count {
            Int(u64),
            Text(String),
        }
        fn count(c: Count, what: &str) -> Result<u64, String> {
            match c {
                Count::Int(n) => Ok(n),
                Count::Text(t) => GpuConfig::parse_bytes(&t).map_err(|e| format!("{what}: {e}")),
            }
        }
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Table {
            arg: Target,
            #[serde(default)]
            offset: Option<Count>,
            bytes: Count,
            hit_ratio: f64,
            hit_prop: String,
            miss_prop: String,
        }
        let t = Table::deserialize(d)?;
        Ok(WindowSpec {
            target: match t.arg {
                Target::Index(i) => WindowTarget::Index(i as usize),
                Target::Name(n) => WindowTarget::Name(n),
            },
            offset: t
                .offset
                .map(|o| count(o, "offset"))
                .transpose()
                .map_err(D::Error::custom)?
                .unwrap_or(0),
            bytes: count(t.bytes, "bytes").map_err(D::Error::custom)?,
            hit_ratio: t.hit_ratio as f32,
            hit_prop: property(&t.hit_prop, "hit_prop").map_err(D::Error::custom)?,
            miss_prop: property(&t.miss_prop, "miss_prop").map_err(D::Error::custom)?,
        })
    }
}

/// clap's parser for `--access-policy-window`.
pub fn parse_window_arg(text: &str) -> Result<WindowSpec, String> {
    WindowSpec::parse(text)
}
