//! Matrix instructions: `ldmatrix`, `stmatrix`, `mma`, `wmma`, `wgmma`.

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
        Opcode::Ldmatrix => {
            let [d, a] = fixed_operands(cx, g, span)?;
            let num = m.pick(&[(Modifier::X4, 4), (Modifier::X2, 2)], 1);
            let ds = fragment_slots(cx, d)?;
            if ds.len() != num as usize {
                return Err(cx.error(span, format!("ldmatrix .x{num} needs {num} destinations")));
            }
            let space = if m.space().is_some() {
                Space::Shared
            } else {
                Space::Generic
            };
            let (addr, sp) = cx.addr(a, space)?;
            Op::Ldmatrix {
                num,
                trans: m.has(Modifier::Trans),
                ds,
                addr,
                generic: sp == Space::Generic,
            }
        }
        Opcode::Stmatrix => {
            let [a, r] = fixed_operands(cx, g, span)?;
            let num = m.pick(&[(Modifier::X4, 4), (Modifier::X2, 2)], 1);
            if !m.has(Modifier::M8n8) || !m.has(ScalarType::B16) {
                return Err(unsupported(cx, g, span));
            }
            let srcs = vector_srcs(cx, r, ScalarType::B32)?;
            if srcs.len() != num as usize {
                return Err(cx.error(span, format!("stmatrix .x{num} needs {num} sources")));
            }
            let space = if m.space().is_some() {
                Space::Shared
            } else {
                Space::Generic
            };
            let (addr, sp) = cx.addr(a, space)?;
            Op::Stmatrix {
                num,
                trans: m.has(Modifier::Trans),
                srcs,
                addr,
                generic: sp == Space::Generic,
            }
        }
        Opcode::Mma => lower_mma(cx, g, m, span)?,
        Opcode::Wmma => lower_wmma(cx, g, m, span)?,
        Opcode::Wgmma => {
            if m.has(Modifier::Fence) {
                Op::WgmmaFence
            } else if m.has(Flag::CommitGroup) {
                Op::WgmmaCommit
            } else if m.has(Flag::WaitGroup) {
                let n = match ops.first() {
                    Some(Operand::Int(v)) => v.value.value as u32,
                    _ => return Err(cx.error(span, "wgmma.wait_group needs an integer".into())),
                };
                Op::WgmmaWait { n }
            } else {
                lower_wgmma(cx, g, m, span)?
            }
        }
        _ => return Err(unsupported(cx, g, span)),
    })
}

pub(super) fn vector_srcs(
    cx: &dyn OperandCx,
    op: &Operand,
    ty: ScalarType,
) -> Result<Vec<Src>, ExecError> {
    match op {
        Operand::Vector(v, _) => v.iter().map(|x| cx.src(x, ty)).collect(),
        x => Ok(vec![cx.src(x, ty)?]),
    }
}

pub(super) fn lower_mma(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
) -> Result<Op, ExecError> {
    let types = m.types();
    let shape = match (
        m.has(Modifier::M16n8k16),
        m.has(Modifier::M16n8k8),
        types.as_slice(),
    ) {
        (true, _, [ScalarType::F32, ScalarType::F16, ScalarType::F16, ScalarType::F32]) => {
            MmaShape::M16n8k16F32F16
        }
        (true, _, [ScalarType::F32, ScalarType::Bf16, ScalarType::Bf16, ScalarType::F32]) => {
            MmaShape::M16n8k16F32Bf16
        }
        (true, _, [ScalarType::F16, ScalarType::F16, ScalarType::F16, ScalarType::F16]) => {
            MmaShape::M16n8k16F16F16
        }
        (_, true, [ScalarType::F32, ScalarType::Tf32, ScalarType::Tf32, ScalarType::F32]) => {
            MmaShape::M16n8k8F32Tf32
        }
        (_, true, [ScalarType::F32, ScalarType::F16, ScalarType::F16, ScalarType::F32]) => {
            MmaShape::M16n8k8F32F16
        }
        (
            _,
            _,
            [ScalarType::S32, a @ (ScalarType::S8 | ScalarType::U8), b @ (ScalarType::S8 | ScalarType::U8), ScalarType::S32],
        ) if m.has(Modifier::M16n8k32) || m.has(Modifier::M16n8k16) => {
            let (a_signed, b_signed, satfinite) = (
                *a == ScalarType::S8,
                *b == ScalarType::S8,
                m.has(Modifier::Satfinite),
            );
            if m.has(Modifier::M16n8k32) {
                MmaShape::M16n8k32S32I8 {
                    a_signed,
                    b_signed,
                    satfinite,
                }
            } else {
                MmaShape::M16n8k16S32I8 {
                    a_signed,
                    b_signed,
                    satfinite,
                }
            }
        }
        _ => return Err(unsupported(cx, g, span)),
    };
    if !(m.has(Modifier::Row) && m.has(Modifier::Col)) {
        return Err(unsupported(cx, g, span));
    }
    let [d, a, b, c] = fixed_operands(cx, g, span)?;
    let ds = match d {
        Operand::Vector(v, _) => v
            .iter()
            .map(|x| cx.slot_of(x))
            .collect::<Result<Vec<_>, _>>()?,
        x => vec![cx.slot_of(x)?],
    };
    Ok(Op::Mma {
        shape,
        ds,
        a: vector_srcs(cx, a, ScalarType::B32)?,
        b: vector_srcs(cx, b, ScalarType::B32)?,
        c: vector_srcs(cx, c, ScalarType::B32)?,
    })
}

/// `wmma.load`, `wmma.store`, `wmma.mma` (shapes m16n16k16, m32n8k16, m8n32k16 with
/// `.f16`/`.bf16`/`.s8`/`.u8` inputs, m16n16k8 with `.tf32`; `.f16`/`.f32`/`.s32` accumulators).
pub(super) fn lower_wmma(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
) -> Result<Op, ExecError> {
    let shape = wmma_shape(cx, g, m, span)?;
    let types: Vec<WmmaType> = m
        .types()
        .into_iter()
        .map(wmma_type)
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| unsupported(cx, g, span))?;
    if m.has(Modifier::Mma) {
        lower_wmma_mma(cx, g, m, span, shape, &types)
    } else {
        lower_wmma_memory(cx, g, m, span, shape, &types)
    }
}

/// The `.mMnNkK` shape modifier, one of those ptxsim runs.
fn wmma_shape(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
) -> Result<(u32, u32, u32), ExecError> {
    let shape = m
        .written()
        .find_map(|x| {
            let s = x.strip_prefix(".m")?;
            let (mm, rest) = s.split_once('n')?;
            let (nn, kk) = rest.split_once('k')?;
            Some((
                mm.parse::<u32>().ok()?,
                nn.parse::<u32>().ok()?,
                kk.parse::<u32>().ok()?,
            ))
        })
        .ok_or_else(|| unsupported(cx, g, span))?;
    if !matches!(
        shape,
        (16, 16, 16) | (32, 8, 16) | (8, 32, 16) | (16, 16, 8)
    ) {
        return Err(unsupported(cx, g, span));
    }
    Ok(shape)
}

/// The element type of a wmma fragment, from a type modifier.
fn wmma_type(t: ScalarType) -> Option<WmmaType> {
    Some(match t {
        ScalarType::F16 => WmmaType::F16,
        ScalarType::Bf16 => WmmaType::Bf16,
        ScalarType::Tf32 => WmmaType::Tf32,
        ScalarType::F32 => WmmaType::F32,
        ScalarType::S8 => WmmaType::S8,
        ScalarType::U8 => WmmaType::U8,
        ScalarType::S32 => WmmaType::S32,
        _ => return None,
    })
}

/// The registers of a fragment operand (a vector, or one register): wmma fragments and
/// `ldmatrix` destinations.
fn fragment_slots(cx: &dyn OperandCx, op: &Operand) -> Result<Vec<Slot>, ExecError> {
    match op {
        Operand::Vector(v, _) => v.iter().map(|x| cx.slot_of(x)).collect(),
        x => Ok(vec![cx.slot_of(x)?]),
    }
}

fn bad_fragment(cx: &dyn OperandCx, span: Span, what: &str, n: usize) -> ExecError {
    cx.error(
        span,
        format!("a {what} fragment of this wmma shape and type does not take {n} registers"),
    )
}

/// `wmma.mma.sync.aligned.LAYOUTS.SHAPE.DTYPE.CTYPE d, a, b, c` (two types: f16 inputs) or
/// `....DTYPE.ATYPE.BTYPE.CTYPE`; every fragment must hold the registers its shape and type take.
fn lower_wmma_mma(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
    (mm, nn, kk): (u32, u32, u32),
    types: &[WmmaType],
) -> Result<Op, ExecError> {
    use ptx_semantics::wmma::wmma_fits;
    let (d, a, b, c) = match types {
        [d, c] => (*d, WmmaType::F16, WmmaType::F16, *c),
        [d, a, b, c] => (*d, *a, *b, *c),
        _ => return Err(unsupported(cx, g, span)),
    };
    let op = WmmaMma {
        m: mm,
        n: nn,
        k: kk,
        a,
        b,
        c,
        d,
        satfinite: m.has(Modifier::Satfinite),
    };
    let [od, oa, ob, oc] = fixed_operands(cx, g, span)?;
    let ds = fragment_slots(cx, od)?;
    let (a_s, b_s, c_s) = (
        vector_srcs(cx, oa, ScalarType::B32)?,
        vector_srcs(cx, ob, ScalarType::B32)?,
        vector_srcs(cx, oc, ScalarType::B32)?,
    );
    for (what, (r, cdim), ty, n) in [
        ("A", (mm, kk), a, a_s.len()),
        ("B", (kk, nn), b, b_s.len()),
        ("C", (mm, nn), c, c_s.len()),
        ("D", (mm, nn), d, ds.len()),
    ] {
        if !wmma_fits(r, cdim, ty, n as u32) {
            return Err(bad_fragment(cx, span, what, n));
        }
    }
    Ok(Op::WmmaMma {
        op,
        ds,
        a: a_s,
        b: b_s,
        c: c_s,
    })
}

/// `wmma.load.{a,b,c}` and `wmma.store.d`: a fragment, an address and an optional stride.
fn lower_wmma_memory(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
    (mm, nn, kk): (u32, u32, u32),
    types: &[WmmaType],
) -> Result<Op, ExecError> {
    use ptx_semantics::wmma::wmma_fits;
    let load = m.has(Modifier::Load);
    if !load && !m.has(Modifier::Store) {
        return Err(unsupported(cx, g, span));
    }
    let matrix = if !load || m.has(Modifier::C) || m.has(Modifier::D) {
        WmmaMatrix::C
    } else if m.has(Modifier::A) {
        WmmaMatrix::A
    } else if m.has(Modifier::B) {
        WmmaMatrix::B
    } else {
        return Err(unsupported(cx, g, span));
    };
    let &[ty] = types else {
        return Err(unsupported(cx, g, span));
    };
    let (rows, cols) = matrix.dims(mm, nn, kk);
    let ops = &g.operands;
    let (regs_op, addr_op) = match (load, ops.as_slice()) {
        (true, [d, a, ..]) => (d, a),
        (false, [a, s, ..]) => (s, a),
        _ => {
            return Err(cx.error(
                span,
                "wmma.load/store needs a fragment and an address".into(),
            ))
        }
    };
    let stride = match ops.get(2) {
        Some(o) => Some(cx.src(o, ScalarType::U32)?),
        None => None,
    };
    let regs = fragment_slots(cx, regs_op)?;
    if !wmma_fits(rows, cols, ty, regs.len() as u32) {
        return Err(bad_fragment(cx, span, "matrix", regs.len()));
    }
    let space = match m.space().map(StateSpace::base) {
        Some(StateSpace::Global) => Space::Global,
        Some(StateSpace::Shared) => Space::Shared,
        _ => Space::Generic,
    };
    let (addr, space) = cx.addr(addr_op, space)?;
    let inst = Box::new(WmmaMemInst {
        matrix,
        rows,
        cols,
        row_major: !m.has(Modifier::Col),
        ty,
        regs,
        addr,
        space,
        stride,
    });
    Ok(if load {
        Op::WmmaLoad(inst)
    } else {
        Op::WmmaStore(inst)
    })
}

pub(super) fn lower_wgmma(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
) -> Result<Op, ExecError> {
    let shape_mod = m
        .written()
        .find(|x| x.starts_with(".m64n"))
        .ok_or_else(|| unsupported(cx, g, span))?;
    let inner = &shape_mod[5..];
    let (n, k) = inner
        .split_once('k')
        .and_then(|(n, k)| Some((n.parse::<u32>().ok()?, k.parse::<u32>().ok()?)))
        .ok_or_else(|| unsupported(cx, g, span))?;
    let types = m.types();
    let fp8 = |t: &ScalarType| matches!(t, ScalarType::E4m3 | ScalarType::E5m2);
    let int8 = |t: &ScalarType| matches!(t, ScalarType::S8 | ScalarType::U8);
    let (input, input_b) = match types.as_slice() {
        [ScalarType::F32, t, u]
            if (t == u && matches!(t, ScalarType::F16 | ScalarType::Bf16 | ScalarType::Tf32))
                || (fp8(t) && fp8(u)) =>
        {
            (*t, *u)
        }
        [ScalarType::S32, t, u] if int8(t) && int8(u) => (*t, *u),
        [ScalarType::F16, t, u] if (t == u && *t == ScalarType::F16) || (fp8(t) && fp8(u)) => {
            (*t, *u)
        }
        _ => return Err(unsupported(cx, g, span)),
    };
    let f16_accumulator = types.first() == Some(&ScalarType::F16);
    let ops = &g.operands;
    if ops.len() < 3 {
        return Err(cx.error(span, "wgmma.mma_async needs d, a-desc, b-desc".into()));
    }
    let ds = match &ops[0] {
        Operand::Vector(v, _) => v
            .iter()
            .map(|x| cx.slot_of(x))
            .collect::<Result<Vec<_>, _>>()?,
        _ => return Err(cx.error(span, "wgmma needs a vector destination".into())),
    };
    // A is a descriptor, or (`{a0, a1, a2, a3}`) this warp's registers.
    let (a_desc, a_regs) = match &ops[1] {
        Operand::Vector(v, _) => {
            if v.len() != 4 {
                return Err(cx.error(span, "a register A operand of wgmma has 4 registers".into()));
            }
            let regs = v
                .iter()
                .map(|x| cx.src(x, ScalarType::B32))
                .collect::<Result<Vec<_>, _>>()?;
            (Src::Imm(0), Some(regs))
        }
        o => (cx.src(o, ScalarType::B64)?, None),
    };
    let b_desc = cx.src(&ops[2], ScalarType::B64)?;
    let scale_d = match ops.get(3) {
        Some(p) => Some(cx.pred_src(p)?),
        None => None,
    };
    // imm-scale-a, imm-scale-b (default 1), imm-trans-a, imm-trans-b (default 0); with A in
    // registers there is no imm-trans-a.
    let mut imm = [1i8, 1, 0, 0];
    let slots: &[usize] = if a_regs.is_some() {
        &[0, 1, 3]
    } else {
        &[0, 1, 2, 3]
    };
    for (&k, o) in slots.iter().zip(ops.iter().skip(4)) {
        if let Operand::Int(v) = o {
            imm[k] = v.value.value as i8;
        }
    }
    Ok(Op::Wgmma {
        shape: WgmmaShape {
            n,
            k,
            input,
            input_b,
            satfinite: m.has(Modifier::Satfinite),
            f16_accumulator,
        },
        ds,
        a_desc,
        a_regs,
        b_desc,
        scale_d,
        imm,
    })
}
