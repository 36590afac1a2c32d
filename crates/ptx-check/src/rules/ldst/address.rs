//! The address operand of an `ld`/`st` (§5.11): its base register or variable, the variable's
//! space, and the data operand's shape. [`Address`] carries what the earlier stages found;
//! its methods run in the order ptxas reports.

use super::*;
use crate::rules::operands::Addr;

/// What the address stages of one `ld`/`st` need from the earlier stages.
pub(super) struct Address<'a, 's> {
    pub cx: &'s Cx<'s>,
    pub insn: &'s Insn<'a>,
    pub scopes: &'s Scopes<'s>,
    pub m: &'s mut Msgs,
    pub unknown: &'s mut Unknowns,
    pub op: &'a str,
    pub ld: bool,
    pub head: Span,
    pub space_v: Option<StateSpace>,
    pub var_space: Option<StateSpace>,
    pub addr: Addr<'a>,
    pub sym: Option<(&'a str, Span)>,
    pub sym_info: Option<Sym>,
    pub result_reg: bool,
    pub elems: Option<&'a [Operand]>,
    pub data: &'a Operand,
    pub ty: ScalarType,
    pub s: &'s Scan<'a>,
    pub n: usize,
}

// Each stage runs once per instruction, from `check` only: `#[inline(always)]` keeps the
// compiled check as it was before the split (callgrind on `ptxsim check` of a 0.8 MB module:
// out-of-line stages cost about 1.3 % more instructions).
impl Address<'_, '_> {
    /// The address base: register kinds and widths, undeclared names, and an access wider than a `.param` variable (§5.11). Returns the narrow address width it saw.
    #[inline(always)]
    pub(super) fn base(&mut self) -> Option<u32> {
        let Address {
            insn,
            scopes,
            op,
            space_v,
            addr,
            sym,
            sym_info,
            elems,
            ty,
            n,
            ref mut m,
            ref mut unknown,
            ..
        } = *self;
        let mut narrow = None;
        match addr.base {
            Base::Reg(r, rspan) => match scopes.reg(r) {
                None => {
                    m.add(
                        Key::IllegalOperandType,
                        illegal_operand_type(insn, op, rspan),
                    );
                    unknown.add(r, rspan);
                }
                Some(rt @ (ScalarType::F32 | ScalarType::F64 | ScalarType::Pred)) => {
                    let key = match rt {
                        ScalarType::F32 => Key::AddrF32,
                        ScalarType::F64 => Key::AddrF64,
                        _ => Key::AddrPred,
                    };
                    m.add(key, bad_address_symbol(insn, r, rspan, rt.token()));
                    if rt == ScalarType::Pred {
                        m.add(
                            Key::IllegalOperandType,
                            illegal_operand_type(insn, op, rspan),
                        );
                    }
                }
                Some(rt) => {
                    let generic = matches!(space_v, None | Some(StateSpace::Global));
                    // A special register (`[%laneid]`) is not a narrow address: ptxas widens it.
                    let special = crate::rules::symbols::is_special(r);
                    if generic && !special && (width(rt) == 32 || width(rt) == 16) {
                        narrow = Some(width(rt));
                    }
                }
            },
            Base::Imm => {
                if space_v != Some(StateSpace::Local) {
                    m.add(Key::ImmediateAddr, immediate_address(insn, addr.span));
                }
            }
            Base::Var(..) => {}
        }
        // §5.11: an access wider than a parameter variable (info).
        if let (Some((name, nspan)), Some(Sym::Var(v))) = (sym, sym_info) {
            let count_ok = !matches!(elems, Some(e) if e.len() != n);
            if v.kind.is_param() && count_ok && u64::from(ty.bytes()) > v.bytes {
                m.add(
                    Key::OutOfBound,
                    insn.err(
                        codes::PARAM_BOUNDS,
                        nspan,
                        format!(
                            "Potential out of bound access while accessing symbol '{name}' of type '{}' with instruction type '{}'.",
                            v.ty,
                            ty.token()
                        ),
                        format!("`{}` reads {} bytes of the {}-byte parameter `{name}`", ty.token(), ty.bytes(), v.bytes),
                    )
                    .with_severity(Severity::Info),
                );
            }
        }
        narrow
    }

    /// The variable the address names against the instruction's space (§5.11), and a `.param` load out of a call sequence. Returns that call-sequence diagnostic.
    #[inline(always)]
    pub(super) fn symbol(&mut self) -> Option<Diagnostic> {
        let Address {
            cx,
            insn,
            op,
            ld,
            head,
            var_space,
            sym,
            sym_info,
            ref mut m,
            ref mut unknown,
            ..
        } = *self;
        let mut call_sequence = None;
        if let Some((name, nspan)) = sym {
            match sym_info {
                None => {
                    m.add(
                        Key::IllegalOperandType,
                        illegal_operand_type(insn, op, nspan),
                    );
                    unknown.add(name, nspan);
                }
                Some(Sym::Func) => {
                    m.add(
                        Key::AddrUnexpected,
                        bad_address_symbol(insn, name, nspan, "unexpected"),
                    );
                    m.add(
                        Key::IllegalOperandType,
                        illegal_operand_type(insn, op, nspan),
                    );
                    m.add(
                        Key::IllegalOperandType,
                        illegal_operand_type(insn, op, nspan),
                    );
                }
                Some(Sym::Reg(_)) => {}
                Some(Sym::Var(v)) => {
                    let param_space = var_space.is_some_and(|s| s.is_param());
                    if v.kind.is_param() {
                        if !param_space {
                            m.add(
                                Key::SpaceMismatch,
                                space_mismatch(insn, op, nspan, name, var_space),
                            );
                        } else if ld {
                            let unreturned = match v.kind {
                                VarKind::LocalParam(id) => {
                                    !cx.returned.get(id as usize).copied().unwrap_or(false)
                                }
                                _ => false,
                            };
                            if insn.guard.is_none() && unreturned {
                                call_sequence = Some(
                                    Diagnostic::new(
                                        Severity::Fatal,
                                        codes::PARAM_ACCESS,
                                        nspan,
                                        format!("`{name}` is read with ld.param but no `call` before it returns it"),
                                        format!("Function call sequence invalid: 'ld.param' of '{name}' without corresponding call"),
                                    )
                                    .with_help("call arguments are written with st.param before the call; only the return value is read, after it")
                                    .without_line(),
                                );
                            } else if v.kind == VarKind::FuncReturn {
                                m.add(
                                    Key::ReadReturnParam,
                                    insn.err(
                                        codes::PARAM_ACCESS,
                                        nspan,
                                        format!("Illegal to read function return parameter '{name}'"),
                                        format!("`{name}` is this function's return parameter, which is write-only"),
                                    )
                                    .with_help("write it with st.param"),
                                );
                            }
                        } else if matches!(v.kind, VarKind::KernelParam | VarKind::FuncParam) {
                            m.add(
                                Key::WriteInputParam,
                                insn.err(
                                    codes::PARAM_ACCESS,
                                    nspan,
                                    format!(
                                        "Illegal to write to function input parameter '{name}'"
                                    ),
                                    format!("`{name}` is an input parameter, which is read-only"),
                                )
                                .with_help("copy it to a register or local variable first"),
                            );
                        }
                    } else {
                        let ok = match var_space {
                            None => {
                                matches!(v.kind, VarKind::Global | VarKind::Shared | VarKind::Local)
                            }
                            Some(StateSpace::Global) => v.kind == VarKind::Global,
                            Some(sp) if sp.is_shared() => v.kind == VarKind::Shared,
                            Some(StateSpace::Local) => v.kind == VarKind::Local,
                            Some(StateSpace::Const) => v.kind == VarKind::Const,
                            _ => false,
                        };
                        if !ok {
                            m.add(
                                Key::SpaceMismatch,
                                space_mismatch(insn, op, nspan, name, var_space),
                            );
                        }
                    }
                    if insn.guard.is_some() && param_space && call_sequence.is_none() {
                        let exempt = if ld {
                            matches!(v.kind, VarKind::KernelParam | VarKind::FuncParam)
                        } else {
                            v.kind == VarKind::FuncReturn
                        };
                        if !exempt {
                            m.add(
                                Key::IllegalPredicate,
                                insn.err(
                                    codes::PARAM_ACCESS,
                                    insn.guard.map_or(head, |g| g.span),
                                    format!("Illegal to predicate instruction '{op}.param' with operand '{name}'"),
                                    format!("this {op}.param of `{name}` cannot be predicated"),
                                )
                                .with_help(if ld {
                                    "only kernel and function input parameters may be read under a guard"
                                } else {
                                    "only a function's own return parameter may be written under a guard"
                                }),
                            );
                        }
                    }
                }
            }
        }
        call_sequence
    }

    /// The address form (`.unified`, arrays) and the data operand against the vector shape.
    #[inline(always)]
    pub(super) fn shape(&mut self) {
        let Address {
            insn,
            op,
            ld,
            space_v,
            addr,
            sym,
            result_reg,
            elems,
            data,
            s,
            n,
            ref mut m,
            ..
        } = *self;
        if addr.unified
            && !addr.array
            && (!ld || !matches!(space_v, None | Some(StateSpace::Global)) || sym.is_some())
        {
            m.add(
                Key::IllegalUnified,
                insn.err(
                    codes::BAD_ADDRESS,
                    addr.span,
                    format!("Illegal use of attribute '.unified' for instruction '{op}'"),
                    "`.unified` applies only to ld with a register address on .global or generic addressing".into(),
                ),
            );
        }
        if result_reg {
            m.add(
                Key::ResultRegister,
                insn.err(
                    codes::OPERANDS,
                    data.span(),
                    format!("Result register required for instruction '{op}'"),
                    "a load's destination must be registers, not immediates".into(),
                ),
            );
        }
        let vec_count_wrong = match (s.vec, elems) {
            (Some(_), None) => {
                if ld {
                    m.add(
                        Key::ResultVector,
                        insn.err(
                            codes::OPERANDS,
                            data.span(),
                            "Result vector expected".into(),
                            format!(
                                "`{}` loads a vector; the destination must be a `{{…}}` list",
                                vec_span_text(s)
                            ),
                        ),
                    );
                }
                true
            }
            (Some(_), Some(e)) => e.len() != n,
            (None, Some(e)) => e.len() >= 2,
            (None, None) => false,
        };
        if vec_count_wrong {
            let mk = || {
                insn.err(
                    codes::OPERANDS,
                    data.span(),
                    format!("Argument vector size mismatch for instruction '{op}'"),
                    format!(
                        "the vector operand has {} element(s) but the instruction moves {n}",
                        elems.map_or(1, |e| e.len())
                    ),
                )
                .with_help("write as many elements as the .vN modifier says (none without one)")
            };
            if ld && s.vec.is_some() {
                m.add_sub(Key::ResultVector, 1, mk());
            }
            let late = if s.vec.is_some() && (elems.is_some() || !ld) {
                Key::MustBeRegister
            } else if ld {
                Key::VecMismatchNoVn
            } else {
                Key::HintRequired
            };
            m.add_sub(late, -1, mk());
        }
    }
}
