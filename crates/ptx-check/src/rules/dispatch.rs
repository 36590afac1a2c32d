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
pub(super) fn sink_result_allowed(op: Opcode, mods: &[&str]) -> bool {
    match op {
        Opcode::Setp | Opcode::Lop3 | Opcode::Atom => true,
        Opcode::Mbarrier => mods
            .first()
            .is_some_and(|&w| is_any(w, &[Flag::Arrive.into(), Modifier::ArriveDrop])),
        _ => false,
    }
}

/// The instruction name ptxas gives in `Result discard mode` (§20.5): the opcode, with the
/// modifier that names the operation where ptxas treats it as part of the name.
pub(super) fn discard_name(op: Opcode, mods: &[&str]) -> String {
    let first = mods.first().copied().unwrap_or("");
    match op {
        Opcode::Mul | Opcode::Mad => {
            match mods
                .iter()
                .find(|&&m| is_any(m, &[Modifier::Wide, Modifier::Lo, Modifier::Hi]))
            {
                Some(m) => format!("{op}{m}"),
                None => op.to_string(),
            }
        }
        Opcode::Cvta if mods.iter().any(|&m| is(m, Modifier::To)) => "cvta.to".to_string(),
        Opcode::Bar | Opcode::Barrier if mods.iter().any(|&m| is(m, Modifier::Red)) => {
            format!("{op}.red")
        }
        Opcode::Mbarrier if mods.get(1).is_some_and(|&m| is(m, Modifier::Parity)) => {
            format!("{op}{first}.parity")
        }
        Opcode::Mbarrier
        | Opcode::Multimem
        | Opcode::Tcgen05
        | Opcode::Tensormap
        | Opcode::Clusterlaunchcontrol => format!("{op}{first}"),
        _ => op.to_string(),
    }
}

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
pub(super) fn gate_only(opcode: Opcode, mods: &[(&str, Span)]) -> bool {
    let word = |k: usize| mods.get(k).map(|m| m.0);
    match opcode {
        Opcode::Cp => {
            word(0).is_some_and(|w| is(w, Modifier::Reduce))
                || (word(0).is_some_and(|w| is(w, Flag::Async))
                    && word(1).is_some_and(|w| is(w, Flag::Bulk))
                    && !word(2).is_some_and(|w| {
                        is_any(w, &[Flag::CommitGroup.into(), Flag::WaitGroup.into()])
                    }))
        }
        // Only as the first word: `st.global.async` is a plain `st` with an illegal `.async`,
        // `st.shared.bulk` one with an unknown `.bulk` (measured, ptxas 13.5).
        Opcode::St => word(0).is_some_and(|w| is_any(w, &[Flag::Async.into(), Flag::Bulk.into()])),
        _ => false,
    }
}

/// Which rules an opcode goes to; `None` for the known instructions checked only for their
/// target and version gates. `opcode` is `None` for a name ptxas does not know: ptxas scans its
/// modifiers like ld/st's, then names it unknown. Every opcode is classified here (no
/// catch-all): a new [`Opcode`] does not compile until it is.
pub(super) fn family(
    opcode: Option<Opcode>,
    mods: &[(&str, Span)],
    joined: usize,
) -> Option<Family> {
    use Opcode::*;
    let Some(opcode) = opcode else {
        return Some(Family::LdSt);
    };
    Some(match opcode {
        Ld | St => Family::LdSt,
        Cp => {
            if mods.first().is_some_and(|m| is(m.0, Flag::Async)) && joined >= 1 {
                match mods
                    .get(1)
                    .map(|m| m.0)
                    .filter(|w| joined >= 2 || is(w, Flag::Mbarrier))
                {
                    Some(w)
                        if is_any(
                            w,
                            &[
                                Flag::CommitGroup.into(),
                                Modifier::CommitGroups,
                                Flag::WaitGroup.into(),
                                Flag::WaitAll.into(),
                                Flag::Bulk.into(),
                                Modifier::Wait,
                                Modifier::Commit,
                            ],
                        ) =>
                    {
                        Family::Group
                    }
                    // `cp.async.mbarrier` is the arrive instruction only with `.arrive`
                    // right after it (or the malformed `.wait`); otherwise ptxas reads a
                    // cp.async copy with a `.mbarrier` modifier (§20.6).
                    Some(w)
                        if is(w, Flag::Mbarrier)
                            && ((mods.get(2).is_some_and(|m| is(m.0, Flag::Arrive))
                                && joined >= 3)
                                || mods.get(2).is_some_and(|m| is(m.0, Modifier::Wait))) =>
                    {
                        Family::Mbarrier
                    }
                    _ => Family::CpAsync,
                }
            } else {
                Family::CpAsync
            }
        }
        Createpolicy => Family::Policy,
        Prefetch | Prefetchu => Family::Prefetch,
        Applypriority | Discard => Family::Priority,
        Abs | Activemask | Add | Addc | Alloca | And | Atom | Bar | Barrier | Bfe | Bfi | Bfind
        | Bmsk | Bra | Brev | Brkpt | Brx | Call | Clusterlaunchcontrol | Clz | Cnot | Copysign
        | Cos | Cvt | Cvta | Div | Dp2a | Dp4a | Elect | Ex2 | Exit | Fence | Fma | Fns
        | Getctarank | Griddepcontrol | Isspacep | Istypeof | Istypep | Ldmatrix | Ldu | Lg2
        | Lop3 | Mad | Mad24 | Madc | Mapa | Match | Max | Mbarrier | Membar | Min | Mma | Mov
        | Movmatrix | Mul | Mul24 | Multimem | Nanosleep | Neg | Not | Or | Pmevent | Popc
        | Prmt | Rcp | Red | Redux | Rem | Ret | Rsqrt | Sad | Selp | Set | Setmaxnreg | Setp
        | Shf | Shfl | Shl | Shr | Sin | Slct | Sqrt | Stackrestore | Stacksave | Stmatrix
        | Sub | Subc | Suld | Suq | Sured | Sust | Szext | Tanh | Tcgen05 | Tensormap | Testp
        | Tex | Tld4 | Trap | Txq | Vabsdiff | Vabsdiff2 | Vabsdiff4 | Vadd | Vadd2 | Vadd4
        | Vavrg2 | Vavrg4 | Vmad | Vmax | Vmax2 | Vmax4 | Vmin | Vmin2 | Vmin4 | Vote | Vset
        | Vset2 | Vset4 | Vshl | Vshr | Vsub | Vsub2 | Vsub4 | Wgmma | Wmma | Xor => return None,
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
