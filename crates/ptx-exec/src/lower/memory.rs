//! Memory instructions: `ld`, `st` (cache operators, eviction priorities, cache-hint
//! policies, prefetch sizes → memsys hints, through memsys's `From` conversions of ptx-isa's
//! qualifier enums), `cp.async`, `createpolicy`.

use super::*;

pub(crate) fn space_of(s: Option<StateSpace>) -> Space {
    match s.map(StateSpace::base) {
        None => Space::Generic,
        Some(StateSpace::Global) => Space::Global,
        Some(StateSpace::Shared) => Space::Shared,
        Some(StateSpace::Local) => Space::Local,
        Some(StateSpace::Param) => Space::Param,
        Some(StateSpace::Const) => Space::Const,
        Some(_) => Space::Generic,
    }
}

impl FunctionCx<'_, '_> {
    pub(super) fn hints(&self, ls: &ast::LoadStore) -> MemHints {
        let semantics = match ls.mmio {
            Some(_) => memsys::Semantics::Mmio,
            None => ls.effective_semantics().into(),
        };
        MemHints {
            operator: ls.cache_op.map(|c| c.value.into()),
            semantics,
            scope: ls.scope.map_or(memsys::Scope::Gpu, |s| s.value.into()),
            non_coherent: ls.nc.is_some(),
            l1_priority: ls.l1_priority.map(|p| p.value.into()),
            l2_priority: ls.l2_priority.map(|p| p.value.into()),
            prefetch: ls.prefetch_size.map(|p| p.value.into()),
        }
    }

    /// The type of an `ld` or `st` (`what`), which the instruction must name.
    pub(super) fn ld_st_type(
        &self,
        ls: &ast::LoadStore,
        span: Span,
        what: &str,
    ) -> Result<ScalarType, ExecError> {
        ls.ty
            .map(|t| t.value)
            .ok_or_else(|| self.error(span, format!("{what} without a type")))
    }

    /// The optional third operand of an `ld` or `st`: a 64-bit cache policy.
    pub(super) fn ld_st_policy(&self, ls: &ast::LoadStore) -> Result<Option<Src>, ExecError> {
        ls.operands
            .get(2)
            .map(|p| self.src(p, ScalarType::B64))
            .transpose()
    }

    pub(super) fn load(&mut self, l: &ast::LoadStore, span: Span) -> Result<Op, ExecError> {
        let ty = self.ld_st_type(l, span, "ld")?;
        let space = space_of(l.space.map(|s| s.value));
        let (dst_op, addr_op) = match l.operands.as_slice() {
            [d, a] | [d, a, _] => (d, a),
            _ => {
                return Err(self.error(
                    span,
                    "ld takes a destination, an address and an optional cache policy",
                ))
            }
        };
        let policy = self.ld_st_policy(l)?;
        let (addr, space) = self.addr(addr_op, space)?;
        let (dsts, dst_bits) = match dst_op {
            Operand::Vector(elems, _) => {
                let mut ds = Vec::new();
                let mut bits = Vec::new();
                for e in elems {
                    ds.push(self.dst(e)?);
                    bits.push(self.reg_bits(e));
                }
                (ds, bits)
            }
            d => (vec![self.dst(d)?], vec![self.reg_bits(d)]),
        };
        let lanes = l.vector.map_or(1, |v| v.value.lanes()) as usize;
        if dsts.len() != lanes {
            return Err(self.error(
                span,
                format!("ld.{lanes} element vector needs {lanes} destinations"),
            ));
        }
        Ok(Op::Ld(Box::new(LoadInst {
            space,
            elem_bytes: ty.bytes(),
            extend: if ty.kind() == TypeKind::Signed {
                Extend::Sign
            } else {
                Extend::Zero
            },
            dsts,
            dst_bits,
            addr,
            hints: self.hints(l),
            policy,
        })))
    }

    pub(super) fn store(&mut self, s: &ast::LoadStore, span: Span) -> Result<Op, ExecError> {
        let ty = self.ld_st_type(s, span, "st")?;
        let space = space_of(s.space.map(|x| x.value));
        let (addr_op, val_op) = match s.operands.as_slice() {
            [a, v] | [a, v, _] => (a, v),
            _ => {
                return Err(self.error(
                    span,
                    "st takes an address, a value and an optional cache policy",
                ))
            }
        };
        let policy = self.ld_st_policy(s)?;
        let (addr, space) = self.addr(addr_op, space)?;
        let srcs = match val_op {
            Operand::Vector(elems, _) => elems
                .iter()
                .map(|e| match e {
                    Operand::Sink(_) => Ok(None),
                    e => self.src(e, ty).map(Some),
                })
                .collect::<Result<Vec<_>, _>>()?,
            v => vec![Some(self.src(v, ty)?)],
        };
        let lanes = s.vector.map_or(1, |v| v.value.lanes()) as usize;
        if srcs.len() != lanes {
            return Err(self.error(
                span,
                format!("st of a {lanes} element vector needs {lanes} values"),
            ));
        }
        Ok(Op::St(Box::new(StoreInst {
            space,
            elem_bytes: ty.bytes(),
            srcs,
            addr,
            hints: self.hints(s),
            policy,
        })))
    }

    pub(super) fn cp_async(&mut self, c: &ast::CpAsync, span: Span) -> Result<Op, ExecError> {
        let ops = &c.operands;
        if ops.len() < 3 {
            return Err(self.error(span, "cp.async needs [dst], [src] and cp-size"));
        }
        let (dst, dsp) = self.addr(&ops[0], Space::Shared)?;
        let (src, ssp) = self.addr(&ops[1], Space::Global)?;
        let cp_size = match &ops[2] {
            Operand::Int(v) => v.value.value as u32,
            o => return Err(self.error(o.span(), "cp-size must be an integer constant")),
        };
        // Optional src-size (integer) or ignore-src (predicate), then the cache policy.
        let mut src_size = None;
        let mut ignore_src = None;
        let mut policy = None;
        let mut rest = &ops[3..];
        if c.cache_hint.is_some() {
            if let Some((last, init)) = rest.split_last() {
                policy = Some(self.src(last, ScalarType::B64)?);
                rest = init;
            }
        }
        if let Some(extra) = rest.first() {
            let is_pred = match extra {
                Operand::Name(n) => matches!(self.lookup(&n.name), Some(Binding::Pred(_))),
                Operand::Not(..) => true,
                _ => false,
            };
            if is_pred {
                ignore_src = Some(self.pred_src(extra)?);
            } else {
                src_size = Some(self.src(extra, ScalarType::U32)?);
            }
        }
        let hints = MemHints {
            operator: c.cache_op.map(|x| x.value.into()),
            prefetch: c.prefetch_size.map(|p| p.value.into()),
            ..MemHints::default()
        };
        Ok(Op::CpAsync(Box::new(CpAsyncInst {
            dst,
            dst_generic: dsp == Space::Generic,
            src,
            src_generic: ssp == Space::Generic,
            cp_size,
            src_size,
            ignore_src,
            hints,
            policy,
        })))
    }

    pub(super) fn create_policy(
        &mut self,
        c: &ast::CreatePolicy,
        span: Span,
    ) -> Result<Op, ExecError> {
        let d = self.dst(
            c.operands
                .first()
                .ok_or_else(|| self.error(span, "missing destination"))?,
        )?;
        let primary = c
            .primary
            .map_or(memsys::L2EvictionPriority::Normal, |p| p.value.into());
        let secondary = c
            .secondary
            .map_or(memsys::L2EvictionPriority::Unchanged, |p| p.value.into());
        match c.kind.map(|k| k.value) {
            Some(PolicyKind::Fractional) => {
                let fraction = match c.operands.get(1) {
                    Some(op) => self.src(op, ScalarType::F32)?,
                    None => Src::Imm(1.0f32.to_bits() as u64),
                };
                Ok(Op::CreatePolicyFractional {
                    d,
                    primary,
                    secondary,
                    fraction,
                })
            }
            Some(PolicyKind::Range) => {
                if c.operands.len() != 4 {
                    return Err(self.error(
                        span,
                        "createpolicy.range takes policy, [a], primary-size, total-size",
                    ));
                }
                let space = if c.space.is_some() {
                    Space::Global
                } else {
                    Space::Generic
                };
                let (addr, sp) = self.addr(&c.operands[1], space)?;
                Ok(Op::CreatePolicyRange {
                    d,
                    primary,
                    secondary,
                    addr,
                    generic: sp == Space::Generic,
                    primary_size: self.src(&c.operands[2], ScalarType::U32)?,
                    total_size: self.src(&c.operands[3], ScalarType::U32)?,
                })
            }
            Some(PolicyKind::Cvt) => Ok(Op::CreatePolicyCvt {
                d,
                a: self.src(
                    c.operands
                        .get(1)
                        .ok_or_else(|| self.error(span, "missing access property"))?,
                    ScalarType::B64,
                )?,
            }),
            None => Err(self.error(span, "createpolicy needs .range, .fractional or .cvt")),
        }
    }
}
