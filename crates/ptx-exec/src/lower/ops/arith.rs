//! General arithmetic: two-operand `add`...`shr`/`copysign`, `sad`, `mad`/`fma`, and
//! one-operand operations (`not`, `neg`, `abs`, bit counts, `sqrt`, `rcp`, transcendentals).

use super::*;

/// Lowers one instruction of this family (`lower_generic` dispatches by opcode).
pub(super) fn lower(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
    opcode: &str,
) -> Result<Op, ExecError> {
    Ok(match opcode {
        "add" | "sub" | "mul" | "div" | "rem" | "min" | "max" | "and" | "or" | "xor" | "shl"
        | "shr" | "copysign" => lower_binary(cx, g, m, span, opcode)?,
        "sad" => {
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
        "mad" | "fma" => {
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
            let wide = m.has(".wide");
            let cty = if wide { wide_type(ty) } else { ty };
            let op = if m.has(".hi") && m.has(".sat") {
                IntOp3::MadHiSat
            } else if m.has(".hi") {
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
        "not" | "cnot" | "neg" | "abs" | "popc" | "clz" | "brev" | "bfind" | "sqrt" | "rcp"
        | "rsqrt" | "ex2" | "lg2" | "sin" | "cos" | "tanh" => lower_unary(cx, g, m, span, opcode)?,
        _ => return Err(unsupported(cx, g, span)),
    })
}

/// Two-operand arithmetic and logic (`add`...`shr`, `copysign`): predicate logic, float, integer.
fn lower_binary(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
    opcode: &str,
) -> Result<Op, ExecError> {
    Ok({
        let ty = one_type(cx, m, g, span)?;
        let [d, a, b] = fixed_operands(cx, g, span)?;
        if ty == ScalarType::Pred {
            let op = match opcode {
                "and" => BoolOp::And,
                "or" => BoolOp::Or,
                "xor" => BoolOp::Xor,
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
        let bty = if matches!(opcode, "shl" | "shr") {
            ScalarType::U32
        } else {
            ty
        };
        let (d, a, b) = (cx.dst(d)?, cx.src(a, ty)?, cx.src(b, bty)?);
        if is_float {
            let op = match opcode {
                "add" => FloatOp2::Add,
                "sub" => FloatOp2::Sub,
                "mul" => FloatOp2::Mul,
                "div" if m.has(".approx") => FloatOp2::DivApprox,
                "div" if m.has(".full") => FloatOp2::DivFull,
                "div" => FloatOp2::Div,
                "min" | "max" if m.has(".xorsign") => FloatOp2::XorsignAbs {
                    max: opcode == "max",
                    nan: m.has(".NaN"),
                },
                "min" if m.has(".NaN") => FloatOp2::MinNaN,
                "max" if m.has(".NaN") => FloatOp2::MaxNaN,
                "min" => FloatOp2::Min,
                "max" => FloatOp2::Max,
                "copysign" => FloatOp2::Copysign,
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
        let sat = m.has(".sat");
        let op = match opcode {
            "add" if sat => IntOp2::AddSat,
            "add" => IntOp2::Add,
            "sub" if sat => IntOp2::SubSat,
            "sub" => IntOp2::Sub,
            "mul" if m.has(".hi") => IntOp2::MulHi,
            "mul" if m.has(".wide") => IntOp2::MulWide,
            "mul" => IntOp2::MulLo,
            "div" => IntOp2::Div,
            "rem" => IntOp2::Rem,
            "min" | "max" if m.has(".relu") => IntOp2::MinMaxRelu {
                max: opcode == "max",
            },
            "min" => IntOp2::Min,
            "max" => IntOp2::Max,
            "and" => IntOp2::And,
            "or" => IntOp2::Or,
            "xor" => IntOp2::Xor,
            "shl" => IntOp2::Shl,
            "shr" => IntOp2::Shr,
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
    opcode: &str,
) -> Result<Op, ExecError> {
    Ok({
        let ty = one_type(cx, m, g, span)?;
        let [d, a] = fixed_operands(cx, g, span)?;
        if ty == ScalarType::Pred && opcode == "not" {
            return Ok(Op::PredNot {
                d: cx
                    .pred_dst(d)?
                    .ok_or_else(|| cx.error(span, "not.pred to `_`".into()))?,
                a: cx.pred_src(a)?,
            });
        }
        let (dd, aa) = (cx.dst(d)?, cx.src(a, ty)?);
        if ty.kind() == TypeKind::Float {
            let approx = m.has(".approx");
            let op = match opcode {
                "neg" => FloatOp1::Neg,
                "abs" => FloatOp1::Abs,
                "sqrt" if approx => FloatOp1::SqrtApprox,
                "sqrt" => FloatOp1::Sqrt,
                "rcp" if approx && ty == ScalarType::F64 => FloatOp1::RcpApproxF64,
                "rcp" if approx => FloatOp1::RcpApprox,
                "rcp" => FloatOp1::Rcp,
                "rsqrt" => FloatOp1::Rsqrt,
                "ex2" => FloatOp1::Ex2,
                "lg2" => FloatOp1::Lg2,
                "sin" => FloatOp1::Sin,
                "cos" => FloatOp1::Cos,
                "tanh" => FloatOp1::Tanh,
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
            "not" => IntOp1::Not,
            "cnot" => IntOp1::Cnot,
            "neg" => IntOp1::Neg,
            "abs" => IntOp1::Abs,
            "popc" => IntOp1::Popc,
            "clz" => IntOp1::Clz,
            "brev" => IntOp1::Brev,
            "bfind" if m.has(".shiftamt") => IntOp1::BfindShiftAmt,
            "bfind" => IntOp1::Bfind,
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
