//! Moves and conversions: `mov` (scalar, pack, unpack, predicate), `cvt`, `cvta`, `mapa`,
//! `isspacep`.

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
        Opcode::Mov => {
            let ty = one_type(cx, m, g, span)?;
            let [d, a] = fixed_operands(cx, g, span)?;
            if ty == ScalarType::Pred {
                let d = cx
                    .pred_dst(d)?
                    .ok_or_else(|| cx.error(span, "mov.pred to `_`".into()))?;
                return Ok(Op::MovPred {
                    d,
                    a: cx.pred_src(a)?,
                });
            }
            match (d, a) {
                (Operand::Vector(ds, _), Operand::Vector(srcs, _)) => {
                    if ds.len() != srcs.len() {
                        return Err(cx.error(span, "mov of vectors of different lengths".into()));
                    }
                    Op::MovVec {
                        ds: ds.iter().map(|p| cx.dst(p)).collect::<Result<_, _>>()?,
                        srcs: srcs
                            .iter()
                            .map(|p| cx.src(p, ty))
                            .collect::<Result<_, _>>()?,
                    }
                }
                (Operand::Vector(parts, _), a) => Op::Unpack {
                    ds: parts.iter().map(|p| cx.dst(p)).collect::<Result<_, _>>()?,
                    a: cx.src(a, ty)?,
                    part_bits: ty.bits() / parts.len() as u32,
                },
                (d, Operand::Vector(parts, _)) => Op::Pack {
                    d: cx.slot_of(d)?,
                    parts: parts
                        .iter()
                        .map(|p| match p {
                            Operand::Sink(_) => Ok(None),
                            p => cx.src(p, ty).map(Some),
                        })
                        .collect::<Result<_, _>>()?,
                    part_bits: ty.bits() / parts.len() as u32,
                    d_bits: ty.bits(),
                },
                (d, a) => Op::Mov {
                    d: cx.dst(d)?,
                    a: cx.src(a, ty)?,
                    bits: ty.bits().min(cx.reg_bits(d)).max(1),
                },
            }
        }
        Opcode::Cvt if m.has(Modifier::Pack) => {
            let types = m.types();
            let dty = *types
                .first()
                .ok_or_else(|| cx.error(span, "cvt.pack needs types".into()))?;
            let (bits, signed) = match dty {
                ScalarType::U8 => (8, false),
                ScalarType::S8 => (8, true),
                ScalarType::U16 => (16, false),
                ScalarType::S16 => (16, true),
                _ => return Err(cx.error(span, "cvt.pack converts to .u8/.s8/.u16/.s16".into())),
            };
            if !m.has(Modifier::Sat) {
                return Err(cx.error(span, "cvt.pack needs .sat".into()));
            }
            let c = match ops.get(3) {
                Some(c) => cx.src(c, ScalarType::B32)?,
                None => Src::Imm(0),
            };
            if ops.len() < 3 {
                return Err(cx.error(span, "cvt.pack takes d, a, b{, c}".into()));
            }
            Op::Int3 {
                op: IntOp3::CvtPackSat { bits, signed },
                ty: ScalarType::S32,
                d: cx.dst(&ops[0])?,
                a: cx.src(&ops[1], ScalarType::S32)?,
                b: cx.src(&ops[2], ScalarType::S32)?,
                c,
            }
        }
        Opcode::Cvt => {
            let types = m.types();
            let [dty, aty] = types[..] else {
                return Err(cx.error(span, "cvt needs a destination and a source type".into()));
            };
            if ops.len() == 3 {
                // cvt.rn.f16x2.f32 d, a, b (and bf16x2, e4m3x2 …): a goes to the upper half.
                return Ok(Op::CvtPack {
                    d: cx.dst(&ops[0])?,
                    a: cx.src(&ops[1], aty)?,
                    b: cx.src(&ops[2], aty)?,
                    dty,
                    mode: m.float_mode(),
                });
            }
            let [d, a] = fixed_operands(cx, g, span)?;
            Op::Cvt {
                d: cx.dst(d)?,
                a: cx.src(a, aty)?,
                dty,
                aty,
                mode: m.float_mode(),
                int_rounding: m.int_rounding(),
                d_bits: cx.reg_bits(d),
            }
        }
        Opcode::Cvta => {
            let [d, a] = fixed_operands(cx, g, span)?;
            let ty = one_type(cx, m, g, span)?;
            Op::Cvta {
                d: cx.dst(d)?,
                a: cx.src(a, ty)?,
                space: space_of(m.space()),
                to_generic: !m.has(Modifier::To),
                bits: ty.bits(),
            }
        }
        Opcode::Mapa => {
            // `mapa{.space}.type d, a, b`: the address of `a`'s variable in the shared memory
            // of cluster CTA `b`.
            let ty = one_type(cx, m, g, span)?;
            let [d, a, b] = fixed_operands(cx, g, span)?;
            Op::Mapa {
                d: cx.dst(d)?,
                a: cx.src(a, ty)?,
                rank: cx.src(b, ScalarType::U32)?,
            }
        }
        Opcode::Isspacep => {
            let [d, a] = fixed_operands(cx, g, span)?;
            Op::IsSpace {
                d: cx
                    .pred_dst(d)?
                    .ok_or_else(|| cx.error(span, "isspacep to `_`".into()))?,
                a: cx.src(a, ScalarType::U64)?,
                space: space_of(m.space()),
            }
        }
        _ => return Err(unsupported(cx, g, span)),
    })
}
