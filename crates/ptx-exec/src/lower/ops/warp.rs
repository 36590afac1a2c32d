//! Warp-level instructions: `elect`, `shfl`, `vote`, `activemask`, `redux`, `match`.

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
        Opcode::Elect => {
            // `elect.sync d|p, membermask`.
            let [dp, mask] = fixed_operands(cx, g, span)?;
            let (d, p) = dst_and_pred(cx, dp)?;
            Op::Elect {
                d,
                p,
                mask: cx.src(mask, ScalarType::B32)?,
            }
        }
        Opcode::Shfl => {
            let mode = m.pick(
                &[
                    (Modifier::Up, ShflMode::Up),
                    (Modifier::Down, ShflMode::Down),
                    (Modifier::Bfly, ShflMode::Bfly),
                ],
                ShflMode::Idx,
            );
            let (d, a, b, c, mask) = match ops.as_slice() {
                [d, a, b, c, mask] => (d, a, b, c, mask),
                _ => return Err(cx.error(span, "shfl.sync takes d, a, b, c, membermask".into())),
            };
            let (dd, dp) = dst_and_pred(cx, d)?;
            Op::Shfl {
                mode,
                d: dd,
                dp,
                a: cx.src(a, ScalarType::B32)?,
                b: cx.src(b, ScalarType::U32)?,
                c: cx.src(c, ScalarType::U32)?,
                mask: cx.src(mask, ScalarType::B32)?,
            }
        }
        Opcode::Vote => {
            let mode = m.pick(
                &[
                    (Modifier::All, VoteMode::All),
                    (Modifier::Any, VoteMode::Any),
                    (Modifier::Uni, VoteMode::Uni),
                ],
                VoteMode::Ballot,
            );
            let (d, a, mask) = match ops.as_slice() {
                [d, a, mask] => (d, a, Some(mask)),
                [d, a] => (d, a, None),
                _ => return Err(cx.error(span, "vote takes d, a{, membermask}".into())),
            };
            let mask = match mask {
                Some(x) => cx.src(x, ScalarType::B32)?,
                None => Src::Imm(0xFFFF_FFFF),
            };
            if mode == VoteMode::Ballot {
                Op::Vote {
                    mode,
                    d: Some(cx.dst(d)?),
                    dp: None,
                    a: cx.pred_src(a)?,
                    mask,
                }
            } else {
                Op::Vote {
                    mode,
                    d: None,
                    dp: cx.pred_dst(d)?,
                    a: cx.pred_src(a)?,
                    mask,
                }
            }
        }
        Opcode::Activemask => {
            let [d] = fixed_operands(cx, g, span)?;
            Op::Activemask { d: cx.dst(d)? }
        }
        Opcode::Redux => {
            let ty = one_type(cx, m, g, span)?;
            let [d, a, mask] = fixed_operands(cx, g, span)?;
            let op = m.pick(
                &[
                    (Modifier::Add, AtomOp::Add),
                    (Modifier::Min, AtomOp::Min),
                    (Modifier::Max, AtomOp::Max),
                    (Modifier::And, AtomOp::And),
                    (Modifier::Or, AtomOp::Or),
                ],
                AtomOp::Xor,
            );
            Op::Redux {
                op,
                ty,
                d: cx.dst(d)?,
                a: cx.src(a, ty)?,
                mask: cx.src(mask, ScalarType::B32)?,
            }
        }
        Opcode::Match => {
            let ty = one_type(cx, m, g, span)?;
            let all = m.has(Modifier::All);
            let [d, a, mask] = fixed_operands(cx, g, span)?;
            let (d, dp) = dst_and_pred(cx, d)?;
            Op::Match {
                all,
                d: Some(d),
                dp,
                a: cx.src(a, ty)?,
                mask: cx.src(mask, ScalarType::B32)?,
            }
        }
        _ => return Err(unsupported(cx, g, span)),
    })
}
