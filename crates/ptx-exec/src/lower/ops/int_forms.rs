//! Integer forms with their own modifiers: carry chains (`addc`/`subc`/`madc`, `.cc`),
//! `mul24`/`bmsk`/`szext`, `mad24`/`dp4a`/`dp2a`, `fns`, SIMD video ops, `lop3`, packed
//! 16x2 `add`/`sub`/`min`/`max`.

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
        Opcode::Addc | Opcode::Subc | Opcode::Madc => lower_carry(cx, g, m, span, opcode)?,
        Opcode::Add | Opcode::Sub | Opcode::Mad if m.has(Modifier::Cc) => {
            lower_carry(cx, g, m, span, opcode)?
        }
        Opcode::Mul24 | Opcode::Bmsk | Opcode::Szext => {
            lower_mul24_bmsk_szext(cx, g, m, span, opcode)?
        }
        Opcode::Mad24 | Opcode::Dp4a | Opcode::Dp2a => lower_mad24_dot(cx, g, m, span, opcode)?,
        Opcode::Fns => {
            let [d, mask, base, offset] = fixed_operands(cx, g, span)?;
            Op::Int3 {
                op: IntOp3::Fns,
                ty: ScalarType::B32,
                d: cx.dst(d)?,
                a: cx.src(mask, ScalarType::B32)?,
                b: cx.src(base, ScalarType::U32)?,
                c: cx.src(offset, ScalarType::S32)?,
            }
        }
        Opcode::Vadd2
        | Opcode::Vadd4
        | Opcode::Vsub2
        | Opcode::Vsub4
        | Opcode::Vavrg2
        | Opcode::Vavrg4
        | Opcode::Vabsdiff2
        | Opcode::Vabsdiff4
        | Opcode::Vmin2
        | Opcode::Vmin4
        | Opcode::Vmax2
        | Opcode::Vmax4 => lower_video(cx, g, m, span, opcode)?,
        Opcode::Vadd
        | Opcode::Vsub
        | Opcode::Vabsdiff
        | Opcode::Vmin
        | Opcode::Vmax
        | Opcode::Vshl
        | Opcode::Vshr => lower_video_scalar(cx, g, m, span, opcode)?,
        Opcode::Lop3 if m.has(Modifier::Or) || m.has(Modifier::And) => {
            lower_lop3_pred(cx, g, m, span)?
        }
        Opcode::Lop3 => {
            let [d, a, b, c, lut] = fixed_operands(cx, g, span)?;
            let lut = match lut {
                Operand::Int(v) => v.value.value as u8,
                _ => return Err(cx.error(span, "lop3 needs an immediate lookup table".into())),
            };
            Op::Int3 {
                op: IntOp3::Lop3(lut),
                ty: ScalarType::B32,
                d: cx.dst(d)?,
                a: cx.src(a, ScalarType::B32)?,
                b: cx.src(b, ScalarType::B32)?,
                c: cx.src(c, ScalarType::B32)?,
            }
        }
        Opcode::Add | Opcode::Sub | Opcode::Min | Opcode::Max
            if m.has(Modifier::U16x2) || m.has(Modifier::S16x2) =>
        {
            lower_packed_16x2(cx, g, m, span, opcode)?
        }
        _ => return Err(unsupported(cx, g, span)),
    })
}

/// `mul24`, `bmsk`, `szext`: one type, three operands.
fn lower_mul24_bmsk_szext(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
    opcode: Opcode,
) -> Result<Op, ExecError> {
    let ty = one_type(cx, m, g, span)?;
    let [d, a, b] = fixed_operands(cx, g, span)?;
    let op = match opcode {
        Opcode::Mul24 => IntOp2::Mul24 {
            signed: ty == ScalarType::S32,
            hi: m.has(Modifier::Hi),
        },
        Opcode::Bmsk => IntOp2::Bmsk {
            wrap: m.has(Modifier::Wrap),
        },
        _ => IntOp2::Szext {
            signed: ty == ScalarType::S32,
            wrap: m.has(Modifier::Wrap),
        },
    };
    Ok(Op::Int2 {
        op,
        ty: ScalarType::U32,
        d: cx.dst(d)?,
        a: cx.src(a, ty)?,
        b: cx.src(b, ScalarType::U32)?,
    })
}

/// `mad24`, `dp4a`, `dp2a`: the dot products take a type per source.
fn lower_mad24_dot(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
    opcode: Opcode,
) -> Result<Op, ExecError> {
    let types = m.types();
    let [d, a, b, c] = fixed_operands(cx, g, span)?;
    let (op, ta, tb) = match (opcode, types.as_slice()) {
        (Opcode::Mad24, [t]) if !m.has(Modifier::Sat) => (
            IntOp3::Mad24 {
                signed: *t == ScalarType::S32,
                hi: m.has(Modifier::Hi),
            },
            *t,
            *t,
        ),
        (Opcode::Dp4a, [ta, tb]) => (
            IntOp3::Dp4a {
                a_signed: *ta == ScalarType::S32,
                b_signed: *tb == ScalarType::S32,
            },
            *ta,
            *tb,
        ),
        (Opcode::Dp2a, [ta, tb]) => (
            IntOp3::Dp2a {
                hi: m.has(Modifier::Hi),
                a_signed: *ta == ScalarType::S32,
                b_signed: *tb == ScalarType::S32,
            },
            *ta,
            *tb,
        ),
        _ => return Err(unsupported(cx, g, span)),
    };
    let tc = if opcode == Opcode::Mad24 {
        ta
    } else if ta == ScalarType::S32 || tb == ScalarType::S32 {
        ScalarType::S32
    } else {
        ScalarType::U32
    };
    Ok(Op::Int3 {
        op,
        ty: ScalarType::U32,
        d: cx.dst(d)?,
        a: cx.src(a, ta)?,
        b: cx.src(b, tb)?,
        c: cx.src(c, tc)?,
    })
}

/// `lop3.BoolOp.b32 d|p, a, b, c, immLut, q` (PTX ISA 8.2): p = (d != 0) BoolOp q.
fn lower_lop3_pred(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
) -> Result<Op, ExecError> {
    let [dp, a, b, c, lut, q] = fixed_operands(cx, g, span)?;
    let Operand::PredPair(x, p, _) = dp else {
        return Err(cx.error(span, "lop3 with a BoolOp needs a `d|p` destination".into()));
    };
    let d = cx.dst(&pair_part(x))?;
    let lut = match lut {
        Operand::Int(v) => v.value.value as u8,
        _ => return Err(cx.error(span, "lop3 needs an immediate lookup table".into())),
    };
    Ok(Op::Lop3Pred {
        lut,
        op: if m.has(Modifier::And) {
            BoolOp::And
        } else {
            BoolOp::Or
        },
        d,
        p: cx.pred_dst(&pair_part(p))?,
        a: cx.src(a, ScalarType::B32)?,
        b: cx.src(b, ScalarType::B32)?,
        c: cx.src(c, ScalarType::B32)?,
        q: cx.pred_src(q)?,
    })
}

/// Packed half-word integer forms (sm_90): `max.s16x2`, `min.relu.s16x2`, `add.u16x2`.
fn lower_packed_16x2(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
    opcode: Opcode,
) -> Result<Op, ExecError> {
    let [d, a, b] = fixed_operands(cx, g, span)?;
    let op = match opcode {
        Opcode::Add => X2Op::Add,
        Opcode::Sub => X2Op::Sub,
        Opcode::Min => X2Op::Min,
        _ => X2Op::Max,
    };
    Ok(Op::Int2 {
        op: IntOp2::X2 {
            op,
            signed: m.has(Modifier::S16x2),
            relu: m.has(Modifier::Relu),
        },
        ty: ScalarType::B32,
        d: cx.dst(d)?,
        a: cx.src(a, ScalarType::B32)?,
        b: cx.src(b, ScalarType::B32)?,
    })
}

/// `add.cc`, `addc{.cc}`, `sub.cc`, `subc{.cc}`, `mad{.lo,.hi}.cc`, `madc{.lo,.hi}{.cc}`.
pub(super) fn lower_carry(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
    opcode: Opcode,
) -> Result<Op, ExecError> {
    let ty = one_type(cx, m, g, span)?;
    if ty.kind() == TypeKind::Float {
        return Err(unsupported(cx, g, span));
    }
    let cin = matches!(opcode, Opcode::Addc | Opcode::Subc | Opcode::Madc);
    let cout = m.has(Modifier::Cc);
    let op = match opcode {
        Opcode::Add | Opcode::Addc => CarryOp::Add,
        Opcode::Sub | Opcode::Subc => CarryOp::Sub,
        _ if m.has(Modifier::Hi) => CarryOp::MadHi,
        _ if m.has(Modifier::Wide) => return Err(unsupported(cx, g, span)),
        _ => CarryOp::MadLo,
    };
    let mad = matches!(op, CarryOp::MadLo | CarryOp::MadHi);
    let ops = operands(cx, g, span, if mad { 4 } else { 3 })?;
    let c = if mad {
        cx.src(&ops[3], ty)?
    } else {
        Src::Imm(0)
    };
    Ok(Op::Carry {
        op,
        cin,
        cout,
        ty,
        d: cx.dst(&ops[0])?,
        a: cx.src(&ops[1], ty)?,
        b: cx.src(&ops[2], ty)?,
        c,
    })
}

/// The SIMD video instructions (`vop2`/`vop4`); only the default byte/halfword selectors (the
/// form nvcc's `__vabsdiffu4`, `__vsadu2/4` ... emit), with any `.mask` on `d`.
pub(super) fn lower_video(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
    opcode: Opcode,
) -> Result<Op, ExecError> {
    use ptx_semantics::int::VideoOp;
    use Opcode::*;
    let lanes = match opcode {
        Vadd4 | Vsub4 | Vavrg4 | Vabsdiff4 | Vmin4 | Vmax4 => 4,
        _ => 2,
    };
    let op = match opcode {
        Vadd2 | Vadd4 => VideoOp::Add,
        Vsub2 | Vsub4 => VideoOp::Sub,
        Vavrg2 | Vavrg4 => VideoOp::Avrg,
        Vabsdiff2 | Vabsdiff4 => VideoOp::AbsDiff,
        Vmin2 | Vmin4 => VideoOp::Min,
        _ => VideoOp::Max,
    };
    let types = m.types();
    let [dt, at, bt] = types.as_slice() else {
        return Err(cx.error(span, format!("`{opcode}` needs .dtype.atype.btype")));
    };
    let [d, a, b, c] = fixed_operands(cx, g, span)?;
    // `d.b3210`/`d.h10` masks and `a.bxyzw` selectors arrive as register components.
    let component = |o: &Operand| match o {
        Operand::Name(n) => n.component.clone(),
        _ => None,
    };
    if component(a).is_some() || component(b).is_some() || component(c).is_some() {
        return Err(cx.error(
            span,
            format!("`{opcode}` with byte/halfword selectors is not supported by the interpreter"),
        ));
    }
    let full = (1u32 << lanes) - 1;
    let mask = match component(d) {
        None => full,
        Some(sel) => {
            let digits = sel.strip_prefix('b').or_else(|| sel.strip_prefix('h'));
            let mut mk = 0u32;
            for ch in digits.unwrap_or("x").chars() {
                match ch.to_digit(10) {
                    Some(v) if v < lanes => mk |= 1 << v,
                    _ => return Err(cx.error(span, format!("bad mask `.{sel}` on `{opcode}`"))),
                }
            }
            mk
        }
    };
    let dreg = match d {
        Operand::Name(n) => Operand::Name(ptx_syntax::ast::Name {
            component: None,
            ..n.clone()
        }),
        other => other.clone(),
    };
    Ok(Op::Video {
        op,
        lanes,
        d_signed: *dt == ScalarType::S32,
        a_signed: *at == ScalarType::S32,
        b_signed: *bt == ScalarType::S32,
        sat: m.has(Modifier::Sat),
        add: m.has(Modifier::Add),
        mask,
        d: cx.dst(&dreg)?,
        a: cx.src(a, ScalarType::B32)?,
        b: cx.src(b, ScalarType::B32)?,
        c: cx.src(c, ScalarType::B32)?,
    })
}

/// The scalar video instructions `vadd vsub vabsdiff vmin vmax vshl vshr`
/// (`.dtype.atype.btype{.sat}{.clamp|.wrap}{.add|.min|.max}`), whole-word operands.
fn lower_video_scalar(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
    opcode: Opcode,
) -> Result<Op, ExecError> {
    use ptx_semantics::int::{VideoOp2, VideoScalarOp};
    let op = match opcode {
        Opcode::Vadd => VideoScalarOp::Add,
        Opcode::Vsub => VideoScalarOp::Sub,
        Opcode::Vabsdiff => VideoScalarOp::AbsDiff,
        Opcode::Vmin => VideoScalarOp::Min,
        Opcode::Vmax => VideoScalarOp::Max,
        Opcode::Vshl => VideoScalarOp::Shl,
        _ => VideoScalarOp::Shr,
    };
    let types = m.types();
    let [dt, at, bt] = types.as_slice() else {
        return Err(cx.error(span, format!("`{opcode}` needs .dtype.atype.btype")));
    };
    let op2 = if m.has(Modifier::Add) {
        Some(VideoOp2::Add)
    } else if m.has(Modifier::Min) {
        Some(VideoOp2::Min)
    } else if m.has(Modifier::Max) {
        Some(VideoOp2::Max)
    } else {
        None
    };
    let ops = &g.operands;
    let want = if op2.is_some() { 4 } else { 3 };
    if ops.len() != want {
        return Err(cx.error(
            span,
            format!("`{opcode}` takes {want} operands here (a data merge `d.bN` needs selectors)"),
        ));
    }
    let component = |o: &Operand| match o {
        Operand::Name(n) => n.component.is_some(),
        _ => false,
    };
    if ops.iter().any(component) {
        return Err(cx.error(
            span,
            format!("`{opcode}` with byte/halfword selectors is not supported by the interpreter"),
        ));
    }
    let signed = |t: &ScalarType| *t == ScalarType::S32;
    let c = match ops.get(3) {
        Some(c) => cx.src(c, ScalarType::B32)?,
        None => Src::Imm(0),
    };
    Ok(Op::VideoScalar {
        op,
        d_signed: signed(dt),
        a_signed: signed(at),
        b_signed: signed(bt),
        sat: m.has(Modifier::Sat),
        clamp: !m.has(Modifier::Wrap),
        op2,
        d: cx.dst(&ops[0])?,
        a: cx.src(&ops[1], ScalarType::B32)?,
        b: cx.src(&ops[2], ScalarType::B32)?,
        c,
    })
}
