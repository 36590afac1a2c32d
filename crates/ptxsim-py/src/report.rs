//! The report a Python `Result` carries: cache statistics, a per-line table, hazards and a
//! text summary, all as JSON values built here and nowhere else.
//!
//! Until `ptxsim-report` (the per-line report with its versioned JSON schema) and the hazard
//! detector are on main, the statistics are memsys's `Stats` JSON, the per-line table sums
//! memsys's per-instruction counters by PTX line, and hazards are the interpreter's own
//! stale-L1 observations. Switching to the report crate changes [`stats_json`],
//! [`line_stats`], [`hazard_reports`] and [`summary`], not the Python API.

use memsys::{Counters, Stats};
use ptx_exec::{Program, RunSummary, Session};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use pyo3::IntoPyObjectExt;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What was launched (for the summary and the JSON document).
pub struct Launch<'a> {
    pub kernel: &'a str,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared: u32,
    pub gpu: &'a str,
    /// The persisting-L2 set-aside in effect, bytes.
    pub persisting_l2: u64,
    pub seed: u64,
    pub hazards: bool,
}

/// Everything the Python `Result` exposes besides the run counters.
pub struct Doc {
    pub stats: Value,
    pub lines: Value,
    pub hazards: Value,
    pub summary: String,
    /// The whole document as JSON text (`Result.to_json()`).
    pub json: String,
}

/// Schema tag of [`Doc::json`]; provisional until `ptxsim-report`'s schema replaces it.
const SCHEMA: &str = "ptxsim-python/0";

/// Builds the report of one finished launch.
pub fn build(launch: &Launch, session: &Session, run: &RunSummary) -> Doc {
    let stats = session.mem.stats();
    let lines = line_stats(&session.program, run, &stats);
    let hazards = if launch.hazards {
        hazard_reports(launch.kernel, &session.program, &session.last_hazards)
    } else {
        Vec::new()
    };
    let summary = summary(launch, run, &stats, &lines, &hazards);
    let stats = stats_json(&stats);
    let lines = Value::Array(lines.iter().map(LineStat::to_json).collect());
    let hazards = Value::Array(hazards);
    let doc = json!({
        "schema": SCHEMA,
        "run": {
            "kernel": launch.kernel,
            "grid": launch.grid,
            "block": launch.block,
            "shared": launch.shared,
            "gpu": launch.gpu,
            "persisting_l2": launch.persisting_l2,
            "seed": launch.seed,
            "warp_instructions": run.warp_instructions,
            "thread_instructions": run.thread_instructions,
            "cp_async_bytes": run.cp_async_bytes,
            "residency": run.residency,
            "resident_ctas": run.resident_ctas,
        },
        "stats": stats.clone(),
        "lines": lines.clone(),
        "hazards": hazards.clone(),
    });
    let json =
        serde_json::to_string_pretty(&doc).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    Doc {
        stats,
        lines,
        hazards,
        summary,
        json,
    }
}

/// The cache statistics: memsys's `Stats` with its computed `total` (per level, per SM, per
/// instruction id, L2 occupancy by priority class).
pub fn stats_json(stats: &Stats) -> Value {
    serde_json::from_str(&stats.to_json()).unwrap_or(Value::Null)
}

/// The counters of one PTX line (all its instructions together).
pub struct LineStat {
    pub function: String,
    pub line: u32,
    pub text: String,
    pub source: Option<String>,
    /// Thread-instructions executed.
    pub executions: u64,
    pub counters: Counters,
}

impl LineStat {
    fn dram_bytes(&self) -> u64 {
        self.counters.dram.bytes_read + self.counters.dram.bytes_written
    }

    fn to_json(&self) -> Value {
        json!({
            "line": self.line,
            "function": self.function,
            "instruction": self.text,
            "source": self.source,
            "executions": self.executions,
            "l1": self.counters.l1,
            "l2": self.counters.l2,
            "dram": self.counters.dram,
            "stale_reads": self.counters.stale_reads,
            "l1_hit_rate": self.counters.l1.hit_rate(),
            "l2_hit_rate": self.counters.l2.hit_rate(),
        })
    }
}

/// Executed PTX lines in line order, with the memory counters of their instructions.
pub fn line_stats(program: &Program, run: &RunSummary, stats: &Stats) -> Vec<LineStat> {
    let mut by_line: BTreeMap<(u32, String), LineStat> = BTreeMap::new();
    for (id, info) in program.instrs.iter().enumerate() {
        let executions = run.per_instruction.get(id).copied().unwrap_or(0);
        let counters = stats.per_instr.get(id).copied().unwrap_or_default();
        if executions == 0 && counters == Counters::default() {
            continue;
        }
        let entry = by_line
            .entry((info.ptx_line, info.function.clone()))
            .or_insert_with(|| LineStat {
                function: info.function.clone(),
                line: info.ptx_line,
                text: String::new(),
                source: program.source_line(id as u32),
                executions: 0,
                counters: Counters::default(),
            });
        if !entry.text.is_empty() {
            entry.text.push_str("; ");
        }
        entry.text.push_str(info.text.trim());
        entry.executions = entry.executions.max(executions);
        entry.counters += &counters;
    }
    by_line.into_values().collect()
}

/// The hazards of the last launch (`hazards=True`), deduplicated per pair of lines with a
/// count: class, the access (PTX line, source line, instruction, CTA, thread) and the
/// conflicting earlier access.
pub fn hazard_reports(kernel: &str, program: &Program, hazards: &[ptx_exec::Hazard]) -> Vec<Value> {
    let access = |a: &ptx_exec::hazards::Access| {
        let info = program.instrs.get(a.instr as usize);
        json!({
            "line": info.map(|i| i.ptx_line),
            "source": program.source_line(a.instr),
            "instruction": info.map(|i| i.text.trim().to_string()),
            "cta": a.cta,
            "thread": a.thread,
        })
    };
    hazards
        .iter()
        .map(|h| {
            let info = program.instrs.get(h.access.instr as usize);
            json!({
                "class": h.class.name(),
                "kernel": kernel,
                "line": info.map(|i| i.ptx_line),
                "source": program.source_line(h.access.instr),
                "instruction": info.map(|i| i.text.trim().to_string()),
                "cta": h.access.cta,
                "thread": h.access.thread,
                "space": h.space,
                "address": h.address,
                "bytes": h.bytes,
                "count": h.count,
                "conflict": h.conflict.as_ref().map(access),
                "explanation": h.class.explanation(),
            })
        })
        .collect()
}

fn percent(r: Option<f64>) -> String {
    r.map_or_else(|| "-".to_string(), |r| format!("{:.1}%", r * 100.0))
}

/// The text `Result.summary()` returns.
pub fn summary(
    launch: &Launch,
    run: &RunSummary,
    stats: &Stats,
    lines: &[LineStat],
    hazards: &[Value],
) -> String {
    let [gx, gy, gz] = launch.grid;
    let [bx, by, bz] = launch.block;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "kernel `{}` on {}: grid ({gx},{gy},{gz}) block ({bx},{by},{bz}), {} B dynamic shared memory, persisting L2 set-aside {} B",
        launch.kernel, launch.gpu, launch.shared, launch.persisting_l2
    );
    let _ = writeln!(
        s,
        "{} warp-instructions, {} thread-instructions, {} B copied by cp.async",
        run.warp_instructions, run.thread_instructions, run.cp_async_bytes
    );
    if let Some(r) = &run.residency {
        let _ = writeln!(
            s,
            "residency: {} registers/thread ({}), {}; {} CTAs resident at once",
            r.registers_per_thread,
            r.registers_source.map_or("-", |x| x.label()),
            r.describe(),
            run.resident_ctas
        );
    }
    s.push_str(&stats.render_text());
    let mut top: Vec<&LineStat> = lines.iter().filter(|l| l.dram_bytes() > 0).collect();
    top.sort_by(|a, b| {
        b.dram_bytes()
            .cmp(&a.dram_bytes())
            .then(a.line.cmp(&b.line))
    });
    if !top.is_empty() {
        let _ = writeln!(s, "top lines by DRAM traffic:");
        for l in top.iter().take(5) {
            let _ = writeln!(
                s,
                "  line {:>4}{}: DRAM read {} B, written {} B; L1 hit {}, L2 hit {}; {}",
                l.line,
                l.source
                    .as_deref()
                    .map(|src| format!(" ({src})"))
                    .unwrap_or_default(),
                l.counters.dram.bytes_read,
                l.counters.dram.bytes_written,
                percent(l.counters.l1.hit_rate()),
                percent(l.counters.l2.hit_rate()),
                l.text
            );
        }
    }
    if launch.hazards {
        if hazards.is_empty() {
            let _ = writeln!(s, "hazards: none");
        } else {
            let _ = writeln!(s, "hazards: {}", hazards.len());
            for h in hazards {
                let _ = writeln!(
                    s,
                    "  {} at PTX line {}: {} occurrences; first by CTA {} thread {} at address 0x{:x}",
                    h["class"].as_str().unwrap_or("?"),
                    h["line"],
                    h["count"],
                    h["cta"],
                    h["thread"],
                    h["address"].as_u64().unwrap_or(0)
                );
            }
        }
    }
    // One line per item, no trailing newline (as Python's str methods return text).
    s.truncate(s.trim_end().len());
    s
}

/// A JSON value as the Python object `json.loads` would make of it.
pub fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_bound_py_any(py)?,
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                u.into_bound_py_any(py)?
            } else if let Some(i) = n.as_i64() {
                i.into_bound_py_any(py)?
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_bound_py_any(py)?
            }
        }
        Value::String(s) => s.into_bound_py_any(py)?,
        Value::Array(a) => {
            let list = PyList::empty(py);
            for x in a {
                list.append(to_py(py, x)?)?;
            }
            list.into_any()
        }
        Value::Object(o) => {
            let dict = PyDict::new(py);
            for (k, x) in o {
                dict.set_item(k, to_py(py, x)?)?;
            }
            dict.into_any()
        }
    })
}

/// The cache report of a finished launch, as `ptxsim run --report` makes it (for
/// `Result._repr_html_` and `Result.compare_ncu`).
pub fn cache_report(
    name: &str,
    source: &str,
    launch: &Launch,
    gpu: ptxsim_report::GpuInfo,
    session: &Session,
    run: &RunSummary,
) -> ptxsim_report::Report {
    let stats = session.mem.stats();
    let variant = ptxsim_report::variant_report(
        "original",
        None,
        Some(source),
        &session.program,
        &stats,
        run,
        0,
    );
    let info = ptxsim_report::LaunchInfo {
        ptx: name.to_string(),
        kernel: launch.kernel.to_string(),
        grid: launch.grid,
        block: launch.block,
        shared_bytes: launch.shared,
        static_shared_bytes: session.program.static_shared_bytes,
        seed: launch.seed,
        access_policy_window: None,
        persisting_reset_lines: None,
    };
    ptxsim_report::Report::new("run", info, gpu, vec![variant])
}
