//! Bit-field and permute instructions: `bfe`, `bfi`, `prmt`, `shf`.

use super::*;

/// Lowers one instruction of this family (`lower_generic` dispatches by opcode).
pub(super) fn lower(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
    opcode: Opcode,
) -> Result<Op, ExecError> {
    Ok(match opcode {
        Opcode::Bfe => {
            let ty = one_type(cx, m, g, span)?;
            let [d, a, b, c] = fixed_operands(cx, g, span)?;
            Op::Bfe {
                ty,
                d: cx.dst(d)?,
                a: cx.src(a, ty)?,
                b: cx.src(b, ScalarType::U32)?,
                c: cx.src(c, ScalarType::U32)?,
            }
        }
        Opcode::Bfi => {
            let ty = one_type(cx, m, g, span)?;
            let [d, f, a, b, c] = fixed_operands(cx, g, span)?;
            Op::Bfi {
                ty,
                d: cx.dst(d)?,
                a: cx.src(f, ty)?,
                b: cx.src(a, ty)?,
                c: cx.src(b, ScalarType::U32)?,
                e: cx.src(c, ScalarType::U32)?,
            }
        }
        Opcode::Prmt => {
            let [d, a, b, c] = fixed_operands(cx, g, span)?;
            let mode = m.pick(
                &[
                    (Modifier::F4e, PrmtMode::F4e),
                    (Modifier::B4e, PrmtMode::B4e),
                    (Modifier::Rc8, PrmtMode::Rc8),
                    (Modifier::Ecl, PrmtMode::Ecl),
                    (Modifier::Ecr, PrmtMode::Ecr),
                    (Modifier::Rc16, PrmtMode::Rc16),
                ],
                PrmtMode::Generic,
            );
            Op::Prmt {
                mode,
                d: cx.dst(d)?,
                a: cx.src(a, ScalarType::B32)?,
                b: cx.src(b, ScalarType::B32)?,
                c: cx.src(c, ScalarType::B32)?,
            }
        }
        Opcode::Shf => {
            let [d, a, b, c] = fixed_operands(cx, g, span)?;
            Op::Shf {
                left: m.has(Modifier::L),
                clamp: m.has(Modifier::Clamp),
                d: cx.dst(d)?,
                a: cx.src(a, ScalarType::B32)?,
                b: cx.src(b, ScalarType::B32)?,
                c: cx.src(c, ScalarType::U32)?,
            }
        }
        _ => return Err(unsupported(cx, g, span)),
    })
}
