//! The target and version gates of the cache-control families (the rows of
//! `ptx_isa::features`): each family asks for a feature's messages under its own ordering keys.

use super::*;

/// `Feature 'x'` / `Modifier 'x' on 'op'` → `` `x` `` / `` `x` on `op` `` for our wording.
pub(super) fn plain_subject(subject: &str) -> String {
    subject
        .trim_start_matches("Feature ")
        .trim_start_matches("Modifier ")
        .trim_start_matches("Instruction ")
        .replace('\'', "`")
}

/// The target message of a gate, if the target is too low.
pub(crate) fn gate_target(
    cx: &Cx,
    insn_start: u32,
    f: Feature,
    m: &str,
    op: &str,
    span: Span,
) -> Option<Diagnostic> {
    let row = f.requirement();
    let min = row.min_sm?;
    if cx.sm >= min {
        return None;
    }
    let ptxas = row.target_message(m, op)?;
    let subject = plain_subject(&ptx_isa::features::fill(row.target_subject, m, op));
    Some(
        Diagnostic::error(
            codes::TARGET_TOO_OLD,
            span,
            format!(
                "{subject} needs sm_{min} or newer; the module targets sm_{}",
                cx.sm
            ),
            ptxas,
        )
        .with_help(format!(
            "use `.target sm_{min}` or a later target ({})",
            row.summary
        ))
        .at_line_of(insn_start),
    )
}

/// The version message of a gate, if the PTX version is too low.
pub(crate) fn gate_version(
    cx: &Cx,
    insn_start: u32,
    f: Feature,
    m: &str,
    op: &str,
    span: Span,
) -> Option<Diagnostic> {
    let row = f.requirement();
    let min = row.min_ptx?;
    if cx.version >= min {
        return None;
    }
    let ptxas = row.version_message(m, op)?;
    let subject = plain_subject(&ptx_isa::features::fill(row.version_subject, m, op));
    Some(
        Diagnostic::error(
            codes::VERSION_TOO_OLD,
            span,
            format!(
                "{subject} needs PTX ISA {min} or later; the module is PTX {}",
                cx.version
            ),
            ptxas,
        )
        .with_help(format!("use `.version {min}` or later ({})", row.summary))
        .at_line_of(insn_start),
    )
}

/// Both messages of a gate, in the row's order, under their keys.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gate(
    msgs: &mut Msgs,
    cx: &Cx,
    insn: &Insn,
    f: Feature,
    tgt_key: Key,
    ver_key: Key,
    m: &str,
    op: &str,
    span: Span,
) {
    let t = gate_target(cx, insn.start, f, m, op, span);
    let v = gate_version(cx, insn.start, f, m, op, span);
    match f.requirement().order {
        GateOrder::TargetFirst => {
            if let Some(d) = t {
                msgs.add(tgt_key, d);
            }
            if let Some(d) = v {
                msgs.add(ver_key, d);
            }
        }
        GateOrder::VersionFirst => {
            if let Some(d) = v {
                msgs.add(ver_key, d);
            }
            if let Some(d) = t {
                msgs.add(tgt_key, d);
            }
        }
    }
}

/// Both messages of a gate as a list, in the row's order.
pub(crate) fn gate_list(
    cx: &Cx,
    insn_start: u32,
    f: Feature,
    m: &str,
    op: &str,
    span: Span,
) -> Vec<Diagnostic> {
    let t = gate_target(cx, insn_start, f, m, op, span);
    let v = gate_version(cx, insn_start, f, m, op, span);
    match f.requirement().order {
        GateOrder::TargetFirst => t.into_iter().chain(v).collect(),
        GateOrder::VersionFirst => v.into_iter().chain(t).collect(),
    }
}
