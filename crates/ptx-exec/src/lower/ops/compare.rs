//! Tests, comparisons and selects: `testp`, `setp`, `set`, `selp`, `slct`.

use super::*;

/// Lowers one instruction of this family (`lower_generic` dispatches by opcode).
pub(super) fn lower(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
    opcode: Opcode,
) -> Result<Op, ExecError> {
    let ops = &g.operands;
    Ok(match opcode {
        Opcode::Testp => {
            let ty = one_type(cx, m, g, span)?;
            let [d, a] = fixed_operands(cx, g, span)?;
            use ptx_semantics::float::TestpOp;
            let kind = m.pick(
                &[
                    (Modifier::Finite, TestpOp::Finite),
                    (Modifier::Infinite, TestpOp::Infinite),
                    (Modifier::Number, TestpOp::Number),
                    (Modifier::Notanumber, TestpOp::NotANumber),
                    (Modifier::Normal, TestpOp::Normal),
                ],
                TestpOp::Subnormal,
            );
            Op::Testp {
                kind,
                ty,
                d: cx
                    .pred_dst(d)?
                    .ok_or_else(|| cx.error(span, "testp to `_`".into()))?,
                a: cx.src(a, ty)?,
            }
        }
        Opcode::Setp => {
            let ty = one_type(cx, m, g, span)?;
            let cmp = m
                .cmp()
                .ok_or_else(|| cx.error(span, "setp needs a comparison".into()))?;
            let (dest, a, b, combine) = match ops.as_slice() {
                [d, a, b] => (d, a, b, None),
                [d, a, b, c] => (d, a, b, Some(c)),
                _ => return Err(cx.error(span, "setp takes 3 or 4 operands".into())),
            };
            let (d, d_not) = match dest {
                Operand::PredPair(p, q, _) => {
                    (cx.pred_dst(&pair_part(p))?, cx.pred_dst(&pair_part(q))?)
                }
                d => (cx.pred_dst(d)?, None),
            };
            let combine = match combine {
                Some(c) => Some((
                    m.bool_op().ok_or_else(|| {
                        cx.error(
                            span,
                            "setp with a fourth operand needs .and/.or/.xor".into(),
                        )
                    })?,
                    cx.pred_src(c)?,
                )),
                None => None,
            };
            Op::Setp {
                cmp,
                ty,
                ftz: m.has(Modifier::Ftz),
                d,
                d_not,
                a: cx.src(a, ty)?,
                b: cx.src(b, ty)?,
                combine,
            }
        }
        Opcode::Set => {
            let types = m.types();
            let [dty, ty] = types[..] else {
                return Err(cx.error(span, "set needs a destination and a source type".into()));
            };
            let cmp = m
                .cmp()
                .ok_or_else(|| cx.error(span, "set needs a comparison".into()))?;
            let combine = match ops.get(3) {
                Some(c) => Some((m.bool_op().unwrap_or(BoolOp::And), cx.pred_src(c)?)),
                None => None,
            };
            if ops.len() < 3 {
                return Err(cx.error(span, "set takes 3 or 4 operands".into()));
            }
            Op::Set {
                cmp,
                dty,
                ty,
                d: cx.dst(&ops[0])?,
                a: cx.src(&ops[1], ty)?,
                b: cx.src(&ops[2], ty)?,
                combine,
            }
        }
        Opcode::Selp => {
            let ty = one_type(cx, m, g, span)?;
            let [d, a, b, p] = fixed_operands(cx, g, span)?;
            Op::Selp {
                bits: ty.bits(),
                d: cx.dst(d)?,
                a: cx.src(a, ty)?,
                b: cx.src(b, ty)?,
                p: cx.pred_src(p)?,
            }
        }
        Opcode::Slct => {
            let types = m.types();
            let [ty, cty] = types[..] else {
                return Err(cx.error(span, "slct needs two types".into()));
            };
            let [d, a, b, c] = fixed_operands(cx, g, span)?;
            Op::Slct {
                ty,
                cty,
                d: cx.dst(d)?,
                a: cx.src(a, ty)?,
                b: cx.src(b, ty)?,
                c: cx.src(c, cty)?,
            }
        }
        _ => return Err(unsupported(cx, g, span)),
    })
}
