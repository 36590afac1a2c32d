//! Printing the hazards of a launch (`run --hazards`): compute-sanitizer-style text on stdout,
//! and JSON (schema `ptxsim-hazards/1`) to a file.

use ptx_exec::{Hazard, Session};
use serde::Serialize;
use std::path::Path;

/// Where an instruction is: "PTX line N (file:line)" and its text.
fn place(session: &Session, instr: u32) -> (String, String) {
    let info = &session.program.instrs[instr as usize];
    let source = session.program.source_line(instr);
    let at = match source {
        Some(s) => format!("PTX line {} ({s})", info.ptx_line),
        None => format!("PTX line {}", info.ptx_line),
    };
    (at, info.text.clone())
}

#[derive(Serialize)]
struct JsonAccess {
    ptx_line: u32,
    source: Option<String>,
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

fn json_access(session: &Session, a: &ptx_exec::hazards::Access) -> JsonAccess {
    let info = &session.program.instrs[a.instr as usize];
    JsonAccess {
        ptx_line: info.ptx_line,
        source: session.program.source_line(a.instr),
        instruction: info.text.clone(),
        cta: a.cta,
        thread: a.thread,
    }
}

/// Prints the last launch's hazards; writes JSON when asked. Returns how many were found.
pub fn report(session: &Session, kernel: &str, json: Option<&Path>) -> Result<usize, String> {
    let hazards: &[Hazard] = &session.last_hazards;
    print!(
        "{}",
        ptx_exec::hazards::render_text(kernel, hazards, &|i| place(session, i))
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
                    access: json_access(session, &h.access),
                    conflict: h.conflict.as_ref().map(|c| json_access(session, c)),
                })
                .collect(),
        };
        let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
        ptxsim::output::write_atomic(path, (text + "\n").as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(hazards.len())
}
