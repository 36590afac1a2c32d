//! Instructions: opcode and modifiers, constant folding of operands, and the typed
//! classification of the cache-control instructions (`ld`/`st`, `cp.async`, `createpolicy`,
//! `prefetch`, bulk groups, `mbarrier.arrive`).

use super::*;

pub(super) fn instruction(i: &mut Input<'_, '_>) -> PResult<Instruction> {
    let first = peek(i);
    let guard = if at(i, Tok::At) {
        bump(i);
        let negated = eat(i, Tok::Bang);
        let p = ident(i, "a predicate register after `@`")?;
        Some(Box::new(Guard {
            negated,
            predicate: Name {
                name: small_str(p.text),
                component: None,
                span: p.span(),
            },
            span: first.span().to(p.span()),
        }))
    } else {
        None
    };
    let opcode = ident(i, "an instruction")?;
    // On the stack: only the typed fields built from them are kept.
    let mut modifiers: SmallVec<[Spanned<&str>; 8]> = SmallVec::new();
    let mut opcode_span = opcode.span();
    while at(i, Tok::Dot) {
        if is_directive_word(peek(i).text) {
            // ptxas's lexer reads these as directives: a syntax error after an opcode.
            return fail(
                peek(i).span(),
                format!("`{}` is a directive, not a modifier", peek(i).text),
            );
        }
        let m = bump(i);
        opcode_span = opcode_span.to(m.span());
        modifiers.push(Spanned::new(m.text, m.span()));
    }
    let mut operands = operand_list(i)?;
    let mut const_issues = Vec::new();
    fold_constants(&mut operands, &mut const_issues)?;
    let end = expect_semi(i, "the instruction")?;
    let op = classify(opcode, &modifiers, operands);
    Ok(Instruction {
        guard,
        op,
        opcode_span,
        span: first.span().to(end),
        const_issues: const_issues.into_boxed_slice(),
    })
}

/// Folds constant-expression operands (`2*8`, `(1<<4)`) into literals, as ptxas evaluates
/// them, and collects what ptxas reports about them and about address offsets, in operand
/// order. Division by zero is fatal.
pub(super) fn fold_constants(ops: &mut [Operand], issues: &mut Vec<ConstIssue>) -> PResult<()> {
    for op in ops.iter_mut() {
        match op {
            Operand::Address(a) => issues.extend(a.offset_issues.iter().copied()),
            // `!0` is a constant too (not a negated predicate).
            Operand::Not(inner, span) if matches!(**inner, Operand::Int(_)) => {
                if let Operand::Int(lit) = &**inner {
                    *op = Operand::Int(Spanned::new(
                        IntLit {
                            value: (lit.value.value == 0) as i128,
                            unsigned: false,
                        },
                        *span,
                    ));
                }
            }
            Operand::Vector(elems, _) | Operand::List(elems, _) | Operand::Bracket(elems, _) => {
                fold_constants(elems, issues)?
            }
            Operand::Expr(e) => {
                let span = e.span();
                match consteval::eval(e, issues) {
                    Ok(Some(ConstValue::Int { value, unsigned })) => {
                        *op = Operand::Int(Spanned::new(
                            IntLit {
                                value: value as i128,
                                unsigned,
                            },
                            span,
                        ))
                    }
                    Ok(Some(ConstValue::Float(f))) => {
                        *op = Operand::Float(Spanned::new(FloatLit::F64Bits(f.to_bits()), span))
                    }
                    Ok(None) => {}
                    Err(_) => {
                        return Err(ErrMode::Cut(Box::new(PError {
                            span,
                            message: "division by zero in a constant expression".into(),
                            help: None,
                            ptxas: Some("Constant expression has division by zero".into()),
                        })))
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Words ptxas reads as directives or attributes, never as instruction modifiers (measured:
/// `ld.global.reg.u32` is `Parsing error near '.reg'`).
pub(super) fn is_directive_word(text: &str) -> bool {
    matches!(
        text,
        ".reg"
            | ".unified"
            | ".entry"
            | ".func"
            | ".target"
            | ".file"
            | ".loc"
            | ".section"
            | ".extern"
            | ".visible"
            | ".align"
            | ".maxntid"
            | ".maxnreg"
            | ".pragma"
            | ".ptr"
            | ".common"
            | ".address_size"
            | ".callprototype"
            | ".calltargets"
            | ".branchtargets"
            | ".minnctapersm"
            | ".maxnctapersm"
            | ".reqntid"
            | ".explicitcluster"
            | ".noreturn"
            | ".abi_preserve"
    )
}

/// Records written modifiers in order and hands each known one to `assign`, which returns
/// false when the instruction has no field for it.
pub(super) fn qualifier_list(
    modifiers: &[Spanned<&str>],
    mut assign: impl FnMut(Spanned<Qualifier>) -> bool,
) -> QualifierList {
    let mut list = QualifierList {
        written: Vec::with_capacity(modifiers.len()),
    };
    for m in modifiers {
        match Qualifier::from_token(m.value) {
            Some(q) => {
                list.written
                    .push(Spanned::new(WrittenQualifier::Known(q), m.span));
                // A qualifier the instruction has no field for stays in `written` only; the
                // validator reads the written list as ptxas does.
                assign(Spanned::new(q, m.span));
            }
            None => {
                let text = small_str(m.value);
                list.written
                    .push(Spanned::new(WrittenQualifier::Unknown(text), m.span));
            }
        }
    }
    list
}

/// Sets a typed field once; a second qualifier of the same class stays in the written list
/// only (the typed field keeps the first).
pub(super) fn set_once<T: Copy>(slot: &mut Option<Spanned<T>>, value: T, q: Spanned<Qualifier>) {
    if slot.is_none() {
        *slot = Some(Spanned::new(value, q.span));
    }
}

pub(super) fn set_flag(slot: &mut Option<Span>, q: Spanned<Qualifier>) {
    if slot.is_none() {
        *slot = Some(q.span);
    }
}

pub(super) fn classify(
    opcode: &Token<'_>,
    modifiers: &[Spanned<&str>],
    operands: Vec<Operand>,
) -> Op {
    let first_mod = modifiers.first().map(|m| m.value);
    let known = Opcode::parse(opcode.text);
    match known {
        Some(Opcode::Ld) => Op::Ld(Box::new(load_store(modifiers, operands))),
        Some(Opcode::St) => Op::St(Box::new(load_store(modifiers, operands))),
        Some(Opcode::Cp) if first_mod == Some(".async") => {
            let has = |t: &str| modifiers.iter().any(|m| m.value == t);
            if has(".bulk") {
                generic(opcode, known, modifiers, operands)
            } else if has(".commit_group") {
                Op::CpAsyncCommitGroup(Box::new(group_op(modifiers, operands)))
            } else if has(".wait_group") {
                Op::CpAsyncWaitGroup(Box::new(group_op(modifiers, operands)))
            } else if has(".wait_all") {
                Op::CpAsyncWaitAll(Box::new(group_op(modifiers, operands)))
            } else if has(".mbarrier") {
                Op::CpAsyncMbarrierArrive(Box::new(mbarrier_arrive(modifiers, operands)))
            } else {
                Op::CpAsync(Box::new(cp_async(modifiers, operands)))
            }
        }
        Some(Opcode::Createpolicy) => {
            Op::CreatePolicy(Box::new(create_policy(modifiers, operands)))
        }
        Some(op @ (Opcode::Prefetch | Opcode::Prefetchu)) => Op::Prefetch(Box::new(prefetch(
            op == Opcode::Prefetchu,
            modifiers,
            operands,
        ))),
        _ => generic(opcode, known, modifiers, operands),
    }
}

pub(super) fn generic(
    opcode: &Token<'_>,
    known: Option<Opcode>,
    modifiers: &[Spanned<&str>],
    operands: Vec<Operand>,
) -> Op {
    Op::Generic(GenericInstruction {
        opcode: name_of(opcode),
        known,
        modifiers: modifiers
            .iter()
            .map(|m| ModifierWord {
                value: small_str(m.value),
                span: m.span,
                known: ptx_isa::Modifier::parse(m.value),
            })
            .collect(),
        operands,
    })
}

pub(super) fn load_store(modifiers: &[Spanned<&str>], operands: Vec<Operand>) -> LoadStore {
    let mut ls = LoadStore {
        qualifiers: QualifierList::default(),
        semantics: None,
        mmio: None,
        scope: None,
        space: None,
        cache_op: None,
        nc: None,
        l1_priority: None,
        l2_priority: None,
        cache_hint: None,
        prefetch_size: None,
        vector: None,
        ty: None,
        operands,
    };
    ls.qualifiers = qualifier_list(modifiers, |q| {
        match q.value {
            Qualifier::Space(s) => set_once(&mut ls.space, s, q),
            Qualifier::Semantics(s) => set_once(&mut ls.semantics, s, q),
            Qualifier::Scope(s) => set_once(&mut ls.scope, s, q),
            Qualifier::CacheOp(c) => set_once(&mut ls.cache_op, c, q),
            Qualifier::L1(p) => set_once(&mut ls.l1_priority, p, q),
            Qualifier::L2(p) => set_once(&mut ls.l2_priority, p, q),
            Qualifier::Prefetch(p) => set_once(&mut ls.prefetch_size, p, q),
            Qualifier::Vector(v) => set_once(&mut ls.vector, v, q),
            Qualifier::Type(t) => set_once(&mut ls.ty, t, q),
            Qualifier::Flag(Flag::Nc) => set_flag(&mut ls.nc, q),
            Qualifier::Flag(Flag::Mmio) => set_flag(&mut ls.mmio, q),
            Qualifier::Flag(Flag::CacheHint) => set_flag(&mut ls.cache_hint, q),
            _ => return false,
        }
        true
    });
    ls
}

pub(super) fn cp_async(modifiers: &[Spanned<&str>], operands: Vec<Operand>) -> CpAsync {
    let mut cp = CpAsync {
        qualifiers: QualifierList::default(),
        cache_op: None,
        dst_space: None,
        src_space: None,
        cache_hint: None,
        prefetch_size: None,
        operands,
    };
    let mut seen_async = false;
    cp.qualifiers = qualifier_list(modifiers, |q| {
        match q.value {
            Qualifier::Flag(Flag::Async) if !seen_async => seen_async = true,
            Qualifier::CacheOp(c) => set_once(&mut cp.cache_op, c, q),
            Qualifier::Space(s) => {
                if cp.dst_space.is_none() {
                    cp.dst_space = Some(Spanned::new(s, q.span));
                } else {
                    set_once(&mut cp.src_space, s, q);
                }
            }
            Qualifier::Flag(Flag::CacheHint) => set_flag(&mut cp.cache_hint, q),
            Qualifier::Prefetch(p) => set_once(&mut cp.prefetch_size, p, q),
            _ => return false,
        }
        true
    });
    cp
}

pub(super) fn group_op(modifiers: &[Spanned<&str>], operands: Vec<Operand>) -> GroupOp {
    let mut seen = (false, false);
    let qualifiers = qualifier_list(modifiers, |q| match q.value {
        Qualifier::Flag(Flag::Async) if !seen.0 => {
            seen.0 = true;
            true
        }
        Qualifier::Flag(Flag::CommitGroup | Flag::WaitGroup | Flag::WaitAll) if !seen.1 => {
            seen.1 = true;
            true
        }
        _ => false,
    });
    GroupOp {
        qualifiers,
        operands,
    }
}

pub(super) fn mbarrier_arrive(
    modifiers: &[Spanned<&str>],
    operands: Vec<Operand>,
) -> MbarrierArrive {
    let mut mb = MbarrierArrive {
        qualifiers: QualifierList::default(),
        noinc: None,
        space: None,
        ty: None,
        operands,
    };
    let mut seen = [false; 3];
    mb.qualifiers = qualifier_list(modifiers, |q| {
        match q.value {
            Qualifier::Flag(Flag::Async) if !seen[0] => seen[0] = true,
            Qualifier::Flag(Flag::Mbarrier) if !seen[1] => seen[1] = true,
            Qualifier::Flag(Flag::Arrive) if !seen[2] => seen[2] = true,
            Qualifier::Flag(Flag::NoInc) => set_flag(&mut mb.noinc, q),
            Qualifier::Space(s) => set_once(&mut mb.space, s, q),
            Qualifier::Type(t) => set_once(&mut mb.ty, t, q),
            _ => return false,
        }
        true
    });
    mb
}

pub(super) fn create_policy(modifiers: &[Spanned<&str>], operands: Vec<Operand>) -> CreatePolicy {
    let mut cp = CreatePolicy {
        qualifiers: QualifierList::default(),
        kind: None,
        space: None,
        primary: None,
        secondary: None,
        level: None,
        ty: None,
        operands,
    };
    cp.qualifiers = qualifier_list(modifiers, |q| {
        match q.value {
            Qualifier::Policy(k) => set_once(&mut cp.kind, k, q),
            Qualifier::Space(s) => set_once(&mut cp.space, s, q),
            Qualifier::L2(p) => {
                if cp.primary.is_none() {
                    cp.primary = Some(Spanned::new(p, q.span));
                } else {
                    set_once(&mut cp.secondary, p, q);
                }
            }
            Qualifier::Level(l) => set_once(&mut cp.level, l, q),
            Qualifier::Type(t) => set_once(&mut cp.ty, t, q),
            _ => return false,
        }
        true
    });
    cp
}

pub(super) fn prefetch(
    uniform: bool,
    modifiers: &[Spanned<&str>],
    operands: Vec<Operand>,
) -> Prefetch {
    let mut p = Prefetch {
        qualifiers: QualifierList::default(),
        uniform,
        space: None,
        level: None,
        l2_priority: None,
        tensormap: None,
        operands,
    };
    p.qualifiers = qualifier_list(modifiers, |q| {
        match q.value {
            Qualifier::Space(s) => set_once(&mut p.space, s, q),
            Qualifier::Level(l) => set_once(&mut p.level, l, q),
            Qualifier::L2(l) => set_once(&mut p.l2_priority, l, q),
            Qualifier::Flag(Flag::Tensormap) => set_flag(&mut p.tensormap, q),
            _ => return false,
        }
        true
    });
    p
}
