//! Printing the hazards of a launch (`run --hazards`): compute-sanitizer-style text on stdout,
//! and JSON (schema `ptxsim-hazards/1`) to a file.

use ptx_exec::{Hazard, Session};
use ptxsim_report::model::{line_locations, LineLocation, LocTriple};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// PTX line → its `.loc` chain, from the module's text.
type Locations = BTreeMap<u32, LineLocation>;

/// `file:line` of a `.loc` position, the file by its path in the module's `.file`.
fn position(session: &Session, (f, line, _): LocTriple) -> String {
    let file = session
        .program
        .files
        .get(&f)
        .cloned()
        .unwrap_or_else(|| format!("file {f}"));
    format!("{file}:{line}")
}

/// The user's line of an instruction (the outermost call site of inlined code) and, when that
/// is not where the instruction's `.loc` is, the library line inside it.
fn source_of(session: &Session, at: &Locations, instr: u32) -> (Option<String>, Option<String>) {
    let info = &session.program.instrs[instr as usize];
    match at.get(&info.ptx_line) {
        Some(l) if (l.loc.0, l.loc.1) != (l.call_site.0, l.call_site.1) => (
            Some(position(session, l.call_site)),
            Some(position(session, l.loc)),
        ),
        Some(l) => (Some(position(session, l.call_site)), None),
        None => (session.program.source_line(instr), None),
    }
}

/// Where an instruction is: "PTX line N (k.cu:26, in cuda_pipeline_helpers.h:219)" and its
/// text.
fn place(session: &Session, at: &Locations, instr: u32) -> (String, String) {
    let info = &session.program.instrs[instr as usize];
    let where_ = match source_of(session, at, instr) {
        (Some(site), Some(inner)) => {
            let base = inner.rsplit(['/', '\\']).next().unwrap_or(&inner);
            format!("PTX line {} ({site}, in {base})", info.ptx_line)
        }
        (Some(site), None) => format!("PTX line {} ({site})", info.ptx_line),
        (None, _) => format!("PTX line {}", info.ptx_line),
    };
    (where_, info.text.clone())
}

#[derive(Serialize)]
struct JsonAccess {
    ptx_line: u32,
    /// The `.loc` the lowering keeps (for inlined code, its direct caller).
    source: Option<String>,
    /// The outermost frame of the `.loc … inlined_at` chain: the user's line.
    call_site: Option<String>,
    instruction: String,
    cta: [u32; 3],
    thread: [u32; 3],
}

#[derive(Serialize)]
struct JsonHazard {
    class: &'static str,
    explanation: &'static str,
    count: u64,
    space: &'static str,
    address: u64,
    bytes: u32,
    access: JsonAccess,
    conflict: Option<JsonAccess>,
}

#[derive(Serialize)]
struct JsonDoc<'a> {
    schema: &'static str,
    kernel: &'a str,
    hazards: Vec<JsonHazard>,
}

fn json_access(session: &Session, at: &Locations, a: &ptx_exec::hazards::Access) -> JsonAccess {
    let info = &session.program.instrs[a.instr as usize];
    JsonAccess {
        ptx_line: info.ptx_line,
        source: session.program.source_line(a.instr),
        call_site: source_of(session, at, a.instr).0,
        instruction: info.text.clone(),
        cta: a.cta,
        thread: a.thread,
    }
}

/// Prints the last launch's hazards; writes JSON when asked. Returns how many were found.
/// `source` is the module's text (for the call sites of inlined code).
pub fn report(
    session: &Session,
    source: Option<&str>,
    kernel: &str,
    json: Option<&Path>,
) -> Result<usize, String> {
    let hazards: &[Hazard] = &session.last_hazards;
    let at = source.map(line_locations).unwrap_or_default();
    print!(
        "{}",
        ptx_exec::hazards::render_text(kernel, hazards, &|i| place(session, &at, i))
    );
    if let Some(path) = json {
        let doc = JsonDoc {
            schema: "ptxsim-hazards/1",
            kernel,
            hazards: hazards
                .iter()
                .map(|h| JsonHazard {
                    class: h.class.name(),
                    explanation: h.class.explanation(),
                    count: h.count,
                    space: h.space,
                    address: h.address,
                    bytes: h.bytes,
                    access: json_access(session, &at, &h.access),
                    conflict: h.conflict.as_ref().map(|c| json_access(session, &at, c)),
                })
                .collect(),
        };
        let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
        ptxsim::output::write_atomic(path, (text + "\n").as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(hazards.len())
}
