//! Which rules an instruction goes to ([`family`]), per-function walk state, and the
//! instruction facts the walk needs before dispatching (result discard, `call` returns).

use super::*;

/// Per-function state of the walk.
pub(super) struct FnState {
    pub(super) kernel: bool,
    /// Per body `.param`: returned by a `call` already?
    pub(super) returned: Vec<bool>,
    /// Deferred `Unknown symbol` messages.
    pub(super) unknown: Vec<Diagnostic>,
}

/// `call (ret), f, (args)`: marks the returned body parameters.
pub(super) fn call(ops: &[Operand], scopes: &Scopes, state: &mut FnState) {
    if let Some(Operand::List(rets, _)) = ops.first() {
        for r in rets {
            if let Operand::Name(n) = r {
                if let Some(Sym::Var(v)) = scopes.lookup(&n.name) {
                    if let VarKind::LocalParam(id) = v.kind {
                        if let Some(slot) = state.returned.get_mut(id as usize) {
                            *slot = true;
                        }
                    }
                }
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Family {
    LdSt,
    CpAsync,
    Group,
    Mbarrier,
    Policy,
    Prefetch,
    /// `applypriority`, `discard`.
    Priority,
}

/// Instructions that take `_` as their result (§20.5, measured): `setp`, `lop3`, `atom` and
/// the `mbarrier.arrive` forms; any other instruction with a result stops with `Result discard
/// mode is not allowed`.
pub(super) fn sink_result_allowed(op: &str, mods: &[&str]) -> bool {
    match op {
        "setp" | "lop3" | "atom" => true,
        "mbarrier" => matches!(mods.first(), Some(&(".arrive" | ".arrive_drop"))),
        _ => false,
    }
}

/// The instruction name ptxas gives in `Result discard mode` (§20.5): the opcode, with the
/// modifier that names the operation where ptxas treats it as part of the name.
pub(super) fn discard_name(op: &str, mods: &[&str]) -> String {
    let first = mods.first().copied().unwrap_or("");
    match op {
        "mul" | "mad" => match mods.iter().find(|m| matches!(**m, ".wide" | ".lo" | ".hi")) {
            Some(m) => format!("{op}{m}"),
            None => op.to_string(),
        },
        "cvta" if mods.contains(&".to") => "cvta.to".to_string(),
        "bar" | "barrier" if mods.contains(&".red") => format!("{op}.red"),
        "mbarrier" if mods.get(1) == Some(&".parity") => format!("{op}{first}.parity"),
        "mbarrier" | "multimem" | "tcgen05" | "tensormap" | "clusterlaunchcontrol" => {
            format!("{op}{first}")
        }
        _ => op.to_string(),
    }
}

/// `applypriority` and `discard`: validated like prefetch (§20.2), not only gated.
pub(super) fn is_priority(op: &str) -> bool {
    matches!(op, "applypriority" | "discard")
}

/// Which rules an opcode goes to; `None` for known instructions that are not validated.
/// How many of `mods` follow `opcode_end` and each other without a gap.
pub(super) fn joined_count(opcode_end: u32, mods: &[(&str, Span)]) -> usize {
    let mut end = opcode_end;
    mods.iter()
        .take_while(|m| {
            let ok = m.1.start == end;
            end = m.1.end;
            ok
        })
        .count()
}

/// Instructions that share an opcode with a cache-control family but are checked only for
/// their target and version gates: `cp.async.bulk…` copies (not the bulk group
/// instructions), `cp.reduce.async.bulk…`, `st.async`, `st.bulk` (`.async`/`.bulk` written
/// first).
pub(super) fn gate_only(opcode: &str, mods: &[(&str, Span)]) -> bool {
    let word = |k: usize| mods.get(k).map(|m| m.0);
    match opcode {
        "cp" => {
            word(0) == Some(".reduce")
                || (word(0) == Some(".async")
                    && word(1) == Some(".bulk")
                    && !matches!(word(2), Some(".commit_group" | ".wait_group")))
        }
        // Only as the first word: `st.global.async` is a plain `st` with an illegal `.async`,
        // `st.shared.bulk` one with an unknown `.bulk` (measured, ptxas 13.5).
        "st" => matches!(word(0), Some(".async" | ".bulk")),
        _ => false,
    }
}

pub(super) fn family(opcode: &str, mods: &[(&str, Span)], joined: usize) -> Option<Family> {
    Some(match opcode {
        "ld" | "st" => Family::LdSt,
        "cp" => {
            if mods.first().is_some_and(|m| m.0 == ".async") && joined >= 1 {
                match mods
                    .get(1)
                    .map(|m| m.0)
                    .filter(|w| joined >= 2 || *w == ".mbarrier")
                {
                    Some(
                        ".commit_group" | ".commit_groups" | ".wait_group" | ".wait_all" | ".bulk"
                        | ".wait" | ".commit",
                    ) => Family::Group,
                    // `cp.async.mbarrier` is the arrive instruction only with `.arrive`
                    // right after it (or the malformed `.wait`); otherwise ptxas reads a
                    // cp.async copy with a `.mbarrier` modifier (§20.6).
                    Some(".mbarrier")
                        if (mods.get(2).is_some_and(|m| m.0 == ".arrive") && joined >= 3)
                            || mods.get(2).is_some_and(|m| m.0 == ".wait") =>
                    {
                        Family::Mbarrier
                    }
                    Some(".mbarrier") => Family::CpAsync,
                    _ => Family::CpAsync,
                }
            } else {
                Family::CpAsync
            }
        }
        "createpolicy" => Family::Policy,
        "prefetch" | "prefetchu" => Family::Prefetch,
        "applypriority" | "discard" => Family::Priority,
        _ if opcodes::is_known(opcode) => return None,
        // Unknown opcodes: ptxas scans their modifiers like ld/st's, then names them unknown.
        _ => Family::LdSt,
    })
}

pub(super) fn statement_span(s: &Statement) -> Span {
    match s {
        Statement::Var(v) => v.span,
        Statement::Label(l) => l.span,
        Statement::Instruction(i) => i.span,
        Statement::Block(b) => b.span,
        Statement::Loc(l) => l.span,
        Statement::Pragma(p) => p.span,
        Statement::CallPrototype { span, .. } => *span,
        Statement::TargetList(t) => t.span,
    }
}
