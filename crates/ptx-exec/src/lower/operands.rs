//! Operands: registers and predicates through lexical scopes, special registers,
//! immediates and constant expressions, addresses; and [`OperandCx`], what `lower/ops` needs
//! from the function lowering context.

use super::*;

/// What `lower/ops` needs from the function lowering context.
pub(crate) trait OperandCx {
    fn error(&self, span: Span, message: String) -> ExecError;
    fn src(&self, op: &Operand, ty: ScalarType) -> Result<Src, ExecError>;
    fn dst(&self, op: &Operand) -> Result<Dst, ExecError>;
    fn reg_bits(&self, op: &Operand) -> u32;
    fn pred_src(&self, op: &Operand) -> Result<PredSrc, ExecError>;
    fn pred_dst(&self, op: &Operand) -> Result<Option<PredIdx>, ExecError>;
    fn is_pred(&self, op: &Operand) -> bool;
    fn addr(&self, op: &Operand, space: Space) -> Result<(Addr, Space), ExecError>;
    fn branch_target(&mut self, op: &Operand) -> Result<Pc, ExecError>;
    /// The labels of the `.branchtargets` list `op` names, resolved when the function ends.
    fn branch_list(&mut self, op: &Operand) -> Result<Box<[Pc]>, ExecError>;
    fn function_index(&self, name: &str) -> Option<u32>;
    fn function(&self, index: u32) -> &Function;
    fn call_arg(&self, op: &Operand) -> Result<CallArg, ExecError>;
    fn slot_of(&self, op: &Operand) -> Result<Slot, ExecError>;
}

impl OperandCx for FunctionCx<'_, '_> {
    fn error(&self, span: Span, message: String) -> ExecError {
        FunctionCx::error(self, span, message)
    }
    fn src(&self, op: &Operand, ty: ScalarType) -> Result<Src, ExecError> {
        FunctionCx::src(self, op, ty)
    }
    fn dst(&self, op: &Operand) -> Result<Dst, ExecError> {
        FunctionCx::dst(self, op)
    }
    fn reg_bits(&self, op: &Operand) -> u32 {
        FunctionCx::reg_bits(self, op)
    }
    fn pred_src(&self, op: &Operand) -> Result<PredSrc, ExecError> {
        FunctionCx::pred_src(self, op)
    }
    fn pred_dst(&self, op: &Operand) -> Result<Option<PredIdx>, ExecError> {
        FunctionCx::pred_dst(self, op)
    }
    fn is_pred(&self, op: &Operand) -> bool {
        match op {
            Operand::Name(n) => matches!(self.lookup(&n.name), Some(Binding::Pred(_))),
            Operand::Not(inner, _) => self.is_pred(inner),
            _ => false,
        }
    }
    fn addr(&self, op: &Operand, space: Space) -> Result<(Addr, Space), ExecError> {
        FunctionCx::addr(self, op, space)
    }
    fn branch_target(&mut self, op: &Operand) -> Result<Pc, ExecError> {
        match op {
            Operand::Name(n) => {
                self.fixups.push((
                    self.code.len(),
                    0,
                    n.name.to_string(),
                    n.span,
                    self.cur_block,
                ));
                Ok(0)
            }
            other => Err(FunctionCx::error(self, other.span(), "expected a label")),
        }
    }
    fn branch_list(&mut self, op: &Operand) -> Result<Box<[Pc]>, ExecError> {
        let list = match op {
            Operand::Name(n) => self.branch_lists.get(n.name.as_str()).cloned(),
            _ => None,
        };
        let Some(list) = list else {
            return Err(FunctionCx::error(
                self,
                op.span(),
                "expected the label of a `.branchtargets` list defined before this instruction",
            ));
        };
        let at = self.code.len();
        for (k, (label, span)) in list.iter().enumerate() {
            self.fixups
                .push((at, k, label.clone(), *span, self.cur_block));
        }
        Ok(vec![0; list.len()].into_boxed_slice())
    }
    fn function_index(&self, name: &str) -> Option<u32> {
        self.program.by_name.get(name).copied()
    }
    fn function(&self, index: u32) -> &Function {
        &self.program.functions[index as usize]
    }
    fn call_arg(&self, op: &Operand) -> Result<CallArg, ExecError> {
        match op {
            Operand::Name(n) => match self.lookup(&n.name) {
                Some(Binding::Var {
                    space: Space::Param,
                    addr,
                }) => Ok(CallArg::Param {
                    offset: addr as u32,
                    size: 0,
                }),
                Some(Binding::Reg { slot, .. }) => Ok(CallArg::Reg(slot)),
                _ => Err(FunctionCx::error(
                    self,
                    n.span,
                    format!("`{}` is not a .param variable or register", n.name),
                )),
            },
            Operand::Int(i) => Ok(CallArg::Imm(i.value.value as u64)),
            other => Err(FunctionCx::error(
                self,
                other.span(),
                "unsupported call argument",
            )),
        }
    }
    fn slot_of(&self, op: &Operand) -> Result<Slot, ExecError> {
        match FunctionCx::dst(self, op)? {
            Dst::Reg(s) => Ok(s),
            Dst::Sink => Err(FunctionCx::error(
                self,
                op.span(),
                "`_` is not allowed here",
            )),
        }
    }
}

impl FunctionCx<'_, '_> {
    // ------------------------------------------------------------------ operands

    pub(super) fn pred_name(
        &self,
        name: &str,
        negated: bool,
        span: Span,
    ) -> Result<PredSrc, ExecError> {
        match self.lookup(name) {
            Some(Binding::Pred(idx)) => Ok(PredSrc::Reg { idx, negated }),
            _ => Err(self.error(span, format!("`{name}` is not a predicate register"))),
        }
    }

    pub(super) fn pred_src(&self, op: &Operand) -> Result<PredSrc, ExecError> {
        match op {
            Operand::Name(n) => self.pred_name(&n.name, false, n.span),
            Operand::Not(inner, _) => match self.pred_src(inner)? {
                PredSrc::Reg { idx, negated } => Ok(PredSrc::Reg {
                    idx,
                    negated: !negated,
                }),
                PredSrc::Const(c) => Ok(PredSrc::Const(!c)),
            },
            Operand::Int(i) => Ok(PredSrc::Const(i.value.value != 0)),
            other => Err(self.error(other.span(), "expected a predicate")),
        }
    }

    pub(super) fn pred_dst(&self, op: &Operand) -> Result<Option<PredIdx>, ExecError> {
        match op {
            Operand::Sink(_) => Ok(None),
            Operand::Name(n) => match self.pred_name(&n.name, false, n.span)? {
                PredSrc::Reg { idx, .. } => Ok(Some(idx)),
                PredSrc::Const(_) => unreachable!(),
            },
            other => Err(self.error(other.span(), "expected a predicate register")),
        }
    }

    pub(super) fn special(name: &str, component: Option<&str>) -> Option<Special> {
        let c = match component {
            Some("x") | None => 0,
            Some("y") => 1,
            Some("z") => 2,
            _ => 3,
        };
        Some(match name {
            "%tid" => Special::Tid(c),
            "%ntid" => Special::Ntid(c),
            "%ctaid" => Special::Ctaid(c),
            "%nctaid" => Special::Nctaid(c),
            "%laneid" => Special::LaneId,
            "%warpid" => Special::WarpId,
            "%nwarpid" => Special::NWarpId,
            "%smid" => Special::SmId,
            "%nsmid" => Special::NSmId,
            "%gridid" => Special::GridId,
            "%clock" => Special::Clock,
            "%clock64" => Special::Clock64,
            "%globaltimer" | "%globaltimer_lo" | "%globaltimer_hi" => Special::GlobalTimer,
            "%lanemask_eq" => Special::LaneMaskEq,
            "%lanemask_lt" => Special::LaneMaskLt,
            "%lanemask_le" => Special::LaneMaskLe,
            "%lanemask_gt" => Special::LaneMaskGt,
            "%lanemask_ge" => Special::LaneMaskGe,
            "%dynamic_smem_size" => Special::DynamicSmemSize,
            "%total_smem_size" => Special::TotalSmemSize,
            "%clusterid" => Special::ClusterId(c),
            "%nclusterid" => Special::NClusterId(c),
            "%cluster_ctaid" => Special::ClusterCtaId(c),
            "%cluster_nctaid" => Special::ClusterNCtaId(c),
            "%cluster_ctarank" => Special::ClusterCtaRank,
            "%cluster_nctarank" => Special::ClusterNCtaRank,
            n if n.starts_with("%envreg")
                || n.starts_with("%pm")
                || n == "%is_explicit_cluster" =>
            {
                Special::Zero
            }
            _ => return None,
        })
    }

    /// A source operand of an instruction of type `ty` (immediates converted to it).
    pub(super) fn src(&self, op: &Operand, ty: ScalarType) -> Result<Src, ExecError> {
        match op {
            Operand::Name(n) => {
                if let Some(b) = self.lookup(&n.name) {
                    return match b {
                        Binding::Reg { slot, bits } => {
                            if n.component.is_some() {
                                return Err(self.error(
                                    n.span,
                                    "register components (.x/.y) are not supported",
                                ));
                            }
                            let _ = bits;
                            Ok(Src::Reg(slot))
                        }
                        Binding::Var { space, addr } => {
                            Ok(Src::Imm(self.symbol_value(space, addr)))
                        }
                        Binding::Pred(_) => {
                            Err(self
                                .error(n.span, format!("`{}` is a predicate, not a value", n.name)))
                        }
                    };
                }
                if let Some(s) = Self::special(&n.name, n.component.as_deref()) {
                    return Ok(Src::Special(s));
                }
                if let Some(&f) = self.program.by_name.get(n.name.as_str()) {
                    // The address of a function (indirect calls): its index.
                    return Ok(Src::Imm(f as u64));
                }
                Err(self.error(n.span, format!("unknown name `{}`", n.name)))
            }
            Operand::Int(i) => Ok(Src::Imm(if ty.kind() == TypeKind::Float {
                float_from_int(i.value.value, ty)
            } else {
                i.value.value as u64
            })),
            Operand::Float(f) => Ok(Src::Imm(float_bits(&f.value, ty))),
            Operand::Expr(e) => Ok(Src::Imm(self.eval_expr(e)? as u64)),
            other => Err(self.error(other.span(), "expected a register or an immediate")),
        }
    }

    /// The value of a variable's name used as an operand: its address in its space (generic
    /// for globals, offsets for shared/local/param/const).
    pub(super) fn symbol_value(&self, space: Space, addr: u64) -> u64 {
        match space {
            Space::KernelParam => crate::memory::KERNEL_PARAM_WINDOW + addr,
            _ => addr,
        }
    }

    pub(super) fn eval_expr(&self, e: &Expr) -> Result<i128, ExecError> {
        match e {
            Expr::Name(n) => match self.lookup(&n.value) {
                Some(Binding::Var { space, addr }) => Ok(self.symbol_value(space, addr) as i128),
                _ => self.module.eval_int(e),
            },
            Expr::Binary(op, a, b, span) => {
                let (a, b) = (self.eval_expr(a)?, self.eval_expr(b)?);
                Ok(match op {
                    ast::BinaryOp::Add => a.wrapping_add(b),
                    ast::BinaryOp::Sub => a.wrapping_sub(b),
                    ast::BinaryOp::Mul => a.wrapping_mul(b),
                    _ => {
                        return Err(
                            self.error(*span, "unsupported operator in an operand expression")
                        )
                    }
                })
            }
            Expr::Paren(inner, _) => self.eval_expr(inner),
            _ => self.module.eval_int(e),
        }
    }

    pub(super) fn dst(&self, op: &Operand) -> Result<Dst, ExecError> {
        match op {
            Operand::Sink(_) => Ok(Dst::Sink),
            Operand::Name(n) => match self.lookup(&n.name) {
                Some(Binding::Reg { slot, .. }) => Ok(Dst::Reg(slot)),
                Some(Binding::Pred(_)) => Err(self.error(
                    n.span,
                    format!("`{}` is a predicate; expected a value register", n.name),
                )),
                _ => Err(self.error(n.span, format!("`{}` is not a register", n.name))),
            },
            other => Err(self.error(other.span(), "expected a destination register")),
        }
    }

    pub(super) fn reg_bits(&self, op: &Operand) -> u32 {
        match op {
            Operand::Name(n) => match self.lookup(&n.name) {
                Some(Binding::Reg { bits, .. }) => bits,
                _ => 64,
            },
            _ => 64,
        }
    }

    /// An address operand; returns the resolved address and the space implied by a symbol
    /// base (a register base keeps `space`).
    pub(super) fn addr(&self, op: &Operand, space: Space) -> Result<(Addr, Space), ExecError> {
        let Operand::Address(a) = op else {
            return Err(self.error(op.span(), "expected an address `[...]`"));
        };
        match &a.base {
            None => Ok((
                Addr {
                    base: None,
                    offset: a.offset,
                },
                space,
            )),
            Some(b) => match self.lookup(&b.name) {
                Some(Binding::Reg { slot, .. }) => Ok((
                    Addr {
                        base: Some(slot),
                        offset: a.offset,
                    },
                    space,
                )),
                Some(Binding::Var { space: vs, addr }) => {
                    let resolved = if space == Space::Generic {
                        // A variable named in a generic access: use its generic address.
                        vs
                    } else if vs == Space::KernelParam && space == Space::Param {
                        Space::KernelParam
                    } else {
                        space
                    };
                    Ok((
                        Addr {
                            base: None,
                            offset: addr as i64 + a.offset,
                        },
                        resolved,
                    ))
                }
                _ => Err(self.error(b.span, format!("unknown address base `{}`", b.name))),
            },
        }
    }
}
