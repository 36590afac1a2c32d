//! One point of a comparison: a module variant (the original, or a hint rewrite of it) run
//! over a launch, turned into a report and its output buffers. `ptxsim compare` runs one
//! point per variant; `ptxsim sweep` runs one per variant, GPU, set-aside size and seed.

use crate::launch::{
    check_runnable, prepare, prepare_steps, session_from_source_with, ArgSpec, LaunchError,
    LaunchFile, PreparedLaunch, PreparedSteps,
};
use ptx_exec::{LaunchConfig, RunSummary, Session};
use ptxsim_report::{model, rewrite, OutputCheck, Rewrite, VariantReport};
use std::collections::BTreeSet;
use std::path::Path;

/// The name the original module runs under.
pub const BASELINE: &str = "original";

/// A module variant: the original (no rewrite) or a named hint rewrite of it.
#[derive(Debug, Clone)]
pub struct Variant {
    pub name: String,
    pub rewrite: Option<Rewrite>,
    pub rewritten: rewrite::Rewritten,
}

impl Variant {
    /// The module as written.
    pub fn original(source: &str) -> Variant {
        Variant {
            name: BASELINE.into(),
            rewrite: None,
            rewritten: rewrite::Rewritten {
                text: source.to_string(),
                changes: Vec::new(),
                skipped: Vec::new(),
            },
        }
    }

    /// `NAME=REWRITE` (as `compare --variant` takes it) applied to `source`, the text of
    /// `ptx` (named in messages).
    pub fn parse(spec: &str, source: &str, ptx: &Path) -> Result<Variant, String> {
        let Some((name, text)) = spec.split_once('=') else {
            return Err(format!(
                "variant `{spec}`: write NAME=REWRITE (e.g. no-hints=strip-hints)"
            ));
        };
        let name = name.trim();
        let simple = name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
        if name.is_empty() || !simple || name == BASELINE {
            return Err(format!(
                "variant `{spec}`: the name must be non-empty, unique (`{BASELINE}` is the baseline's) and made of letters, digits, `-`, `_` and `.`"
            ));
        }
        let rw: Rewrite = text.parse().map_err(|e| format!("variant `{name}`: {e}"))?;
        let rewritten = rewrite::apply(source, &rw)
            .map_err(|e| format!("variant `{name}`: {}: {e}", ptx.display()))?;
        Ok(Variant {
            name: name.to_string(),
            rewrite: Some(rw),
            rewritten,
        })
    }

    /// The report of this variant's run: totals, per-line counters, and the lines the rewrite
    /// changed or skipped.
    pub fn report(
        &self,
        session: &Session,
        summary: &RunSummary,
        timeline_interval: u64,
    ) -> VariantReport {
        let stats = session.mem.stats();
        let mut v = model::variant_report(
            &self.name,
            self.rewrite.as_ref().map(|x| x.spec.as_str()),
            Some(&self.rewritten.text),
            &session.program,
            &stats,
            summary,
            timeline_interval,
        );
        v.changes = self
            .rewritten
            .changes
            .iter()
            .map(|c| model::LineChange {
                line: c.line,
                before: c.before.clone(),
                after: c.after.clone(),
            })
            .collect();
        v.skipped = self
            .rewritten
            .skipped
            .iter()
            .map(|s| model::SkippedLine {
                line: s.line,
                instruction: s.instruction.clone(),
                reason: s.reason.clone(),
            })
            .collect();
        v
    }
}

/// The PTX lines of `kernel`'s instructions and of every function it calls (directly or
/// not): what a launch of it can execute. Empty when the module has no such kernel.
pub fn launched_lines(program: &ptx_exec::Program, kernel: &str) -> BTreeSet<u32> {
    let mut lines = BTreeSet::new();
    let Some(&k) = program.by_name.get(kernel) else {
        return lines;
    };
    let mut seen = vec![false; program.functions.len()];
    let mut stack = vec![k];
    while let Some(f) = stack.pop() {
        if std::mem::replace(&mut seen[f as usize], true) {
            continue;
        }
        for inst in &program.functions[f as usize].code {
            if let Some(info) = program.instrs.get(inst.id as usize) {
                lines.insert(info.ptx_line);
            }
            if let ptx_exec::program::Op::Call { func, .. } = inst.op {
                stack.push(func);
            }
        }
    }
    lines
}

/// Parses every `NAME=REWRITE` and applies it to `source`: the original first, names unique.
pub fn variants(specs: &[String], source: &str, ptx: &Path) -> Result<Vec<Variant>, String> {
    let mut out = vec![Variant::original(source)];
    for spec in specs {
        let v = Variant::parse(spec, source, ptx)?;
        if out.iter().any(|o| o.name == v.name) {
            return Err(format!(
                "variant `{spec}`: the name `{}` is given twice",
                v.name
            ));
        }
        out.push(v);
    }
    Ok(out)
}

/// Loads `text` (a variant of the module at `ptx`, named in messages) for `gpu`, as ptxas
/// `--fmad=FMAD` assembled it, and prepares a one-kernel launch of `kernel` over `specs`.
pub fn prepare_launch(
    ptx: &Path,
    text: &str,
    (gpu, fmad): (memsys::GpuConfig, bool),
    kernel: &str,
    specs: Vec<ArgSpec>,
    config: LaunchConfig,
) -> Result<PreparedLaunch, LaunchError> {
    let session = session_from_source_with(ptx, text, gpu, fmad)?;
    check_runnable(&session, kernel, ptx)?;
    prepare(session, kernel, specs, config)
}

/// Loads `text` (a variant of the module at `ptx`) for `gpu`, as ptxas `--fmad=` the file's
/// `fmad` (default true) assembled it, and prepares the steps of the multi-step launch `file`
/// (paths relative to `base`).
pub fn prepare_launch_steps(
    ptx: &Path,
    text: &str,
    gpu: memsys::GpuConfig,
    file: &LaunchFile,
    base: &Path,
) -> Result<PreparedSteps, LaunchError> {
    let session = session_from_source_with(ptx, text, gpu, file.fmad.unwrap_or(true))?;
    let prepared = prepare_steps(session, file, base)?;
    prepared.check_runnable(ptx)?;
    Ok(prepared)
}

/// A buffer after a run: its argument index (one-kernel launches) or declaration index
/// (multi-step launches), element type and bytes.
pub type OutputBuffer = (usize, ptx_isa::ScalarType, Vec<u8>);

/// Every buffer argument of a one-kernel launch after its run, inputs included: a kernel may
/// write any of them. None in counters-only mode, which computes no outputs.
pub fn launch_buffers(prepared: &PreparedLaunch) -> Result<Vec<OutputBuffer>, LaunchError> {
    if prepared.config.counters_only {
        return Ok(Vec::new());
    }
    prepared
        .buffers
        .iter()
        .map(|(i, _, a)| prepared.output(*i).map(|out| (*i, a.ty, out.bytes)))
        .collect()
}

/// Every buffer of a multi-step launch now, in declaration order.
pub fn step_buffers(prepared: &PreparedSteps) -> Result<Vec<OutputBuffer>, LaunchError> {
    prepared
        .buffers
        .iter()
        .enumerate()
        .map(|(i, b)| prepared.buffer(&b.name).map(|a| (i, a.ty, a.bytes)))
        .collect()
}

/// How a variant's buffers differ from the baseline's (element by element, bit for bit).
pub fn output_check(baseline: &[OutputBuffer], buffers: &[OutputBuffer]) -> OutputCheck {
    let diffs = baseline
        .iter()
        .zip(buffers)
        .filter_map(|((i, ty, a), (_, _, b))| model::diff_buffer(*i, *ty, a, b))
        .collect();
    OutputCheck::from_diffs(diffs)
}
