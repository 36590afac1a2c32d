//! General arithmetic: two-operand `add`...`shr`/`copysign`, `sad`, `mad`/`fma`, and
//! one-operand operations (`not`, `neg`, `abs`, bit counts, `sqrt`, `rcp`, transcendentals).

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
        Opcode::Add
        | Opcode::Sub
        | Opcode::Mul
        | Opcode::Div
        | Opcode::Rem
        | Opcode::Min
        | Opcode::Max
        | Opcode::And
        | Opcode::Or
        | Opcode::Xor
        | Opcode::Shl
        | Opcode::Shr
        | Opcode::Copysign => lower_binary(cx, g, m, span, opcode)?,
        Opcode::Sad => {
            let ty = one_type(cx, m, g, span)?;
            let [d, a, b, c] = fixed_operands(cx, g, span)?;
            Op::Int3 {
                op: IntOp3::Sad,
                ty,
                d: cx.dst(d)?,
                a: cx.src(a, ty)?,
                b: cx.src(b, ty)?,
                c: cx.src(c, ty)?,
            }
        }
        Opcode::Mad | Opcode::Fma => {
            let ty = one_type(cx, m, g, span)?;
            let [d, a, b, c] = fixed_operands(cx, g, span)?;
            if ty.kind() == TypeKind::Float {
                return Ok(Op::Fma {
                    ty,
                    mode: m.float_mode(),
                    d: cx.dst(d)?,
                    a: cx.src(a, ty)?,
                    b: cx.src(b, ty)?,
                    c: cx.src(c, ty)?,
                });
            }
            let wide = m.has(Modifier::Wide);
            let cty = if wide { wide_type(ty) } else { ty };
            let op = if m.has(Modifier::Hi) && m.has(Modifier::Sat) {
                IntOp3::MadHiSat
            } else if m.has(Modifier::Hi) {
                IntOp3::MadHi
            } else if wide {
                IntOp3::MadWide
            } else {
                IntOp3::MadLo
            };
            Op::Int3 {
                op,
                ty,
                d: cx.dst(d)?,
                a: cx.src(a, ty)?,
                b: cx.src(b, ty)?,
                c: cx.src(c, cty)?,
            }
        }
        Opcode::Not
        | Opcode::Cnot
        | Opcode::Neg
        | Opcode::Abs
        | Opcode::Popc
        | Opcode::Clz
        | Opcode::Brev
        | Opcode::Bfind
        | Opcode::Sqrt
        | Opcode::Rcp
        | Opcode::Rsqrt
        | Opcode::Ex2
        | Opcode::Lg2
        | Opcode::Sin
        | Opcode::Cos
        | Opcode::Tanh => lower_unary(cx, g, m, span, opcode)?,
        _ => return Err(unsupported(cx, g, span)),
    })
}

/// Two-operand arithmetic and logic (`add`...`shr`, `copysign`): predicate logic, float, integer.
fn lower_binary(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
    opcode: Opcode,
) -> Result<Op, ExecError> {
    Ok({
        let ty = one_type(cx, m, g, span)?;
        let [d, a, b] = fixed_operands(cx, g, span)?;
        if ty == ScalarType::Pred {
            let op = match opcode {
                Opcode::And => BoolOp::And,
                Opcode::Or => BoolOp::Or,
                Opcode::Xor => BoolOp::Xor,
                _ => return Err(unsupported(cx, g, span)),
            };
            return Ok(Op::PredLogic {
                op,
                d: cx
                    .pred_dst(d)?
                    .ok_or_else(|| cx.error(span, "predicate logic to `_`".into()))?,
                a: cx.pred_src(a)?,
                b: cx.pred_src(b)?,
            });
        }
        let is_float = ty.kind() == TypeKind::Float;
        // Shift amounts are always .u32.
        let bty = if matches!(opcode, Opcode::Shl | Opcode::Shr) {
            ScalarType::U32
        } else {
            ty
        };
        let (d, a, b) = (cx.dst(d)?, cx.src(a, ty)?, cx.src(b, bty)?);
        if is_float {
            let op = match opcode {
                Opcode::Add => FloatOp2::Add,
                Opcode::Sub => FloatOp2::Sub,
                Opcode::Mul => FloatOp2::Mul,
                Opcode::Div if m.has(Modifier::Approx) => FloatOp2::DivApprox,
                Opcode::Div if m.has(Modifier::Full) => FloatOp2::DivFull,
                Opcode::Div => FloatOp2::Div,
                Opcode::Min | Opcode::Max if m.has(Modifier::Xorsign) => FloatOp2::XorsignAbs {
                    max: opcode == Opcode::Max,
                    nan: m.has(Modifier::NaN),
                },
                Opcode::Min if m.has(Modifier::NaN) => FloatOp2::MinNaN,
                Opcode::Max if m.has(Modifier::NaN) => FloatOp2::MaxNaN,
                Opcode::Min => FloatOp2::Min,
                Opcode::Max => FloatOp2::Max,
                Opcode::Copysign => FloatOp2::Copysign,
                _ => return Err(unsupported(cx, g, span)),
            };
            return Ok(Op::Float2 {
                op,
                ty,
                mode: m.float_mode(),
                d,
                a,
                b,
            });
        }
        let sat = m.has(Modifier::Sat);
        let op = match opcode {
            Opcode::Add if sat => IntOp2::AddSat,
            Opcode::Add => IntOp2::Add,
            Opcode::Sub if sat => IntOp2::SubSat,
            Opcode::Sub => IntOp2::Sub,
            Opcode::Mul if m.has(Modifier::Hi) => IntOp2::MulHi,
            Opcode::Mul if m.has(Modifier::Wide) => IntOp2::MulWide,
            Opcode::Mul => IntOp2::MulLo,
            Opcode::Div => IntOp2::Div,
            Opcode::Rem => IntOp2::Rem,
            Opcode::Min | Opcode::Max if m.has(Modifier::Relu) => IntOp2::MinMaxRelu {
                max: opcode == Opcode::Max,
            },
            Opcode::Min => IntOp2::Min,
            Opcode::Max => IntOp2::Max,
            Opcode::And => IntOp2::And,
            Opcode::Or => IntOp2::Or,
            Opcode::Xor => IntOp2::Xor,
            Opcode::Shl => IntOp2::Shl,
            Opcode::Shr => IntOp2::Shr,
            _ => return Err(unsupported(cx, g, span)),
        };
        Op::Int2 { op, ty, d, a, b }
    })
}

/// One-operand operations (`not`...`tanh`): predicate not, float, integer.
fn lower_unary(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
    opcode: Opcode,
) -> Result<Op, ExecError> {
    Ok({
        let ty = one_type(cx, m, g, span)?;
        let [d, a] = fixed_operands(cx, g, span)?;
        if ty == ScalarType::Pred && opcode == Opcode::Not {
            return Ok(Op::PredNot {
                d: cx
                    .pred_dst(d)?
                    .ok_or_else(|| cx.error(span, "not.pred to `_`".into()))?,
                a: cx.pred_src(a)?,
            });
        }
        let (dd, aa) = (cx.dst(d)?, cx.src(a, ty)?);
        if ty.kind() == TypeKind::Float {
            let approx = m.has(Modifier::Approx);
            let op = match opcode {
                Opcode::Neg => FloatOp1::Neg,
                Opcode::Abs => FloatOp1::Abs,
                Opcode::Sqrt if approx => FloatOp1::SqrtApprox,
                Opcode::Sqrt => FloatOp1::Sqrt,
                Opcode::Rcp if approx && ty == ScalarType::F64 => FloatOp1::RcpApproxF64,
                Opcode::Rcp if approx => FloatOp1::RcpApprox,
                Opcode::Rcp => FloatOp1::Rcp,
                Opcode::Rsqrt => FloatOp1::Rsqrt,
                Opcode::Ex2 => FloatOp1::Ex2,
                Opcode::Lg2 => FloatOp1::Lg2,
                Opcode::Sin => FloatOp1::Sin,
                Opcode::Cos => FloatOp1::Cos,
                Opcode::Tanh => FloatOp1::Tanh,
                _ => return Err(unsupported(cx, g, span)),
            };
            return Ok(Op::Float1 {
                op,
                ty,
                mode: m.float_mode(),
                d: dd,
                a: aa,
            });
        }
        let op = match opcode {
            Opcode::Not => IntOp1::Not,
            Opcode::Cnot => IntOp1::Cnot,
            Opcode::Neg => IntOp1::Neg,
            Opcode::Abs => IntOp1::Abs,
            Opcode::Popc => IntOp1::Popc,
            Opcode::Clz => IntOp1::Clz,
            Opcode::Brev => IntOp1::Brev,
            Opcode::Bfind if m.has(Modifier::Shiftamt) => IntOp1::BfindShiftAmt,
            Opcode::Bfind => IntOp1::Bfind,
            _ => return Err(unsupported(cx, g, span)),
        };
        Op::Int1 {
            op,
            ty,
            d: dd,
            a: aa,
        }
    })
}
