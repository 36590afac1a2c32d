//! Checks and messages every family shares: guards, undeclared operands, unusable
//! addresses, constant-expression issues, modifiers of other instructions, unknown modifiers
//! and the vector-type warning.

use super::*;

/// `Predicate expression expected` for a guard that is not a predicate register.
pub(crate) fn predicate_expected(insn: &Insn, span: Span) -> Diagnostic {
    insn.err(
        codes::PREDICATE_EXPECTED,
        span,
        "Predicate expression expected".into(),
        "the guard is not a `.pred` register".into(),
    )
    .with_help("guard with a predicate: `@%p1` or `@!%p1` (set it with setp)")
}

/// Every undeclared name among the operands, in operand order (ptxas reports them even when
/// the instruction stops early): `%`-names, address bases, names inside vectors.
pub(crate) fn operand_unknowns(scopes: &Scopes, ops: &[Operand], unknown: &mut Unknowns) {
    for o in ops {
        match o {
            Operand::Name(n) if n.name.starts_with('%') && scopes.lookup(&n.name).is_none() => {
                unknown.add(&n.name, n.span);
            }
            Operand::Not(inner, _) => {
                operand_unknowns(scopes, std::slice::from_ref(&**inner), unknown)
            }
            Operand::Address(a) => {
                if let Some(b) = &a.base {
                    if scopes.lookup(&b.name).is_none() {
                        unknown.add(&b.name, b.span);
                    }
                }
            }
            _ => {}
        }
    }
}

/// An address base that names nothing usable (cp.async, createpolicy, prefetch, mbarrier):
/// `Illegal operand type to instruction '«op»'`, after `Illegal to use symbol '«f»' of type
/// unexpected …` for a function. Empty if the base is a declared register or variable.
pub(crate) fn unusable_address(
    insn: &Insn,
    op: &str,
    scopes: &Scopes,
    base: Base,
) -> Vec<Diagnostic> {
    match base {
        Base::Reg(r, span) if scopes.reg(r).is_none() => {
            vec![ldst::illegal_operand_type(insn, op, span)]
        }
        Base::Var(n, span) => match scopes.lookup(n) {
            None => vec![ldst::illegal_operand_type(insn, op, span)],
            Some(Sym::Func) => vec![
                ldst::bad_address_symbol(insn, n, span, "unexpected"),
                ldst::illegal_operand_type(insn, op, span),
            ],
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// `Integer constant expression expected` / `Constant expression type mismatch`: ptxas
/// reports them while reading the operands, after the modifier scan and before every other
/// check of the instruction.
pub(crate) fn const_issues(insn: &Insn, m: &mut Msgs) {
    for issue in insn.const_issues {
        m.operand_parse(insn.err(
            codes::CONST_EXPR,
            issue.span(),
            issue.ptxas().to_string(),
            match issue {
                ptx_syntax::consteval::ConstIssue::NotInteger(_) => {
                    "an address offset must be an integer constant expression".to_string()
                }
                ptx_syntax::consteval::ConstIssue::TypeMismatch(_) => {
                    "this operator combines an integer and a floating-point constant".to_string()
                }
            },
        ));
    }
}

/// Checks a guard: `Predicate expression expected` first if it is not a predicate.
pub(crate) fn check_guard(
    insn: &Insn,
    scopes: &Scopes,
    m: &mut Msgs,
    unknown: Option<&mut Unknowns>,
) {
    if let Some(g) = insn.guard {
        let ty = scopes.reg(&g.predicate.name);
        if ty != Some(ScalarType::Pred) {
            m.first(predicate_expected(insn, g.predicate.span));
            if ty.is_none() {
                if let Some(u) = unknown {
                    u.add(&g.predicate.name, g.predicate.span);
                }
            }
        }
    }
}

/// Modifiers of other instructions that ptxas knows and reports as illegal on prefetch and
/// createpolicy (docs/ptxas-rules.md §10, §11): memory semantics, scopes, `.mmio`, `.nc`,
/// `.aligned`, `.noinc`, `.async` (with its own gate in the scan) and `.sync` (which stops the
/// instruction).
#[derive(Default)]
pub(crate) struct Foreign<'a> {
    words: Vec<(&'a str, Span)>,
    pub sync: Option<Span>,
}

impl<'a> Foreign<'a> {
    /// Takes `t` if it is one of these modifiers (adding the scan-stage gate of `.async`).
    pub fn take(
        &mut self,
        cx: &Cx,
        insn: &Insn,
        m: &mut Msgs,
        pos: i32,
        t: &'a str,
        span: Span,
    ) -> bool {
        match (Modifier::parse(t), words::classify(t)) {
            (Some(Modifier::Sync), _) => self.sync = Some(span),
            (Some(Modifier::Qualifier(Qualifier::Flag(Flag::Async))), _) => {
                for d in gate_list(
                    cx,
                    insn.start,
                    Feature::AsyncModifier,
                    "",
                    insn.opcode,
                    span,
                ) {
                    m.scan(pos, d);
                }
                self.words.push((t, span));
            }
            (Some(Modifier::Aligned | Modifier::Qualifier(Qualifier::Flag(Flag::NoInc))), _)
            | (
                _,
                words::Word::Sem(_) | words::Word::Scope(_) | words::Word::Mmio | words::Word::Nc,
            ) => self.words.push((t, span)),
            _ => return false,
        }
        true
    }

    /// The `Illegal modifier` messages, in ptxas's order (a scope is reported before and
    /// after the memory semantics, `.async` twice).
    pub fn report(&self, insn: &Insn, name: &str, m: &mut Msgs, key: collect::Key) {
        let illegal = |t: &str, span: Span| {
            insn.err(
                codes::ILLEGAL_MODIFIER,
                span,
                format!("Illegal modifier '{t}' for instruction '{name}'"),
                format!("`{name}` takes no `{t}`"),
            )
        };
        let rank = |t: &str| match (Modifier::parse(t), words::classify(t)) {
            (Some(Modifier::Aligned), _) => 0,
            (Some(Modifier::Qualifier(Qualifier::Flag(Flag::NoInc))), _) => 1,
            (_, words::Word::Scope(_)) => 2,
            (_, words::Word::Sem(_)) => 3,
            (_, words::Word::Mmio) => 4,
            (_, words::Word::Nc) => 6,
            _ => 7,
        };
        for &(t, span) in &self.words {
            let r = rank(t);
            m.add_sub(key, r, illegal(t, span));
            if r == 2 {
                m.add_sub(key, 5, illegal(t, span));
            }
            if is(t, Flag::Async) {
                m.add_sub(key, 7, illegal(t, span));
            }
        }
    }
}

/// `Unknown modifier` for each modifier no family knows (a scan cut short by a syntax error).
pub(super) fn unknown_modifiers(insn: &Insn) -> Vec<Diagnostic> {
    insn.mods
        .iter()
        .filter(|(t, _)| {
            matches!(words::classify(t), words::Word::Unknown)
                && !is_any(
                    t,
                    &[
                        Flag::Async.into(),
                        Modifier::Sync,
                        Flag::NoInc.into(),
                        PolicyKind::Fractional.into(),
                        PolicyKind::Range.into(),
                        PolicyKind::Cvt.into(),
                    ],
                )
        })
        .map(|&(t, span)| unknown_modifier(insn, t, span))
        .collect()
}

pub(crate) fn unknown_modifier(insn: &Insn, t: &str, span: Span) -> Diagnostic {
    insn.err(
        codes::UNKNOWN_MODIFIER,
        span,
        format!("Unknown modifier '{t}'"),
        format!("`{t}` is not a modifier of `{}`", insn.opcode),
    )
}

/// The vector-type warning (`.v4` not followed by the type).
/// Where a `.v2`/`.v4` stands among `mods` (the modifier words a scan walks): a vector word not
/// followed by a type or another vector word gets [`vector_warning`] (at scan position
/// `(index + 1) * 10 + 5`); a vector word that ends the list is returned, for the caller to
/// report where its order puts that case.
pub(crate) fn scan_vector_placement(
    insn: &Insn,
    mods: &[(&str, Span)],
    m: &mut collect::Msgs,
) -> Option<Span> {
    let mut tail = None;
    for (i, &(t, span)) in mods.iter().enumerate() {
        if !matches!(words::classify(t), words::Word::Vec(2 | 4)) {
            continue;
        }
        match mods.get(i + 1) {
            None => tail = Some(span),
            Some(&(next, _)) => {
                if !matches!(
                    words::classify(next),
                    words::Word::Type(_) | words::Word::Vec(2 | 4)
                ) {
                    m.scan((i as i32 + 1) * 10 + 5, vector_warning(insn, span));
                }
            }
        }
    }
    tail
}

pub(crate) fn vector_warning(insn: &Insn, span: Span) -> Diagnostic {
    Diagnostic::warning(
        codes::VECTOR_TYPE_ORDER,
        span,
        "the vector modifier is not followed by the element type",
        "Vector Type not specified properly",
    )
    .with_help("write the type right after the vector width, e.g. `.v4.b32`")
    .at_line_of(insn.start)
}
