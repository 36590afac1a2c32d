//! Lowering of the instructions the syntax tree keeps in generic form (arithmetic,
//! conversions, control flow, warp-level and matrix instructions): opcode and modifiers → one
//! [`Op`] with every modifier decoded.

use crate::lower::{space_of, OperandCx};
use crate::program::*;
use crate::ExecError;
use ptx_isa::{ScalarType, StateSpace, TypeKind};
use ptx_syntax::ast::{GenericInstruction, Operand};
use ptx_syntax::Span;

/// The decoded modifiers of a generic instruction.
struct Mods<'g> {
    list: Vec<&'g str>,
}

impl<'g> Mods<'g> {
    fn new(g: &'g GenericInstruction) -> Self {
        Mods {
            list: g.modifiers.iter().map(|m| m.value.as_str()).collect(),
        }
    }

    fn has(&self, m: &str) -> bool {
        self.list.contains(&m)
    }

    /// The value paired with the first of `choices` whose modifier the instruction carries,
    /// else `otherwise` (the modifier-to-mode tables of `shfl`, `vote`, `prmt`, `testp`...).
    fn pick<T: Copy>(&self, choices: &[(&str, T)], otherwise: T) -> T {
        choices
            .iter()
            .find(|(m, _)| self.has(m))
            .map_or(otherwise, |&(_, v)| v)
    }

    /// The types written, in order (`cvt.f32.s32` → [F32, S32]).
    fn types(&self) -> Vec<ScalarType> {
        self.list
            .iter()
            .filter_map(|m| ScalarType::from_token(m))
            .collect()
    }

    fn space(&self) -> Option<StateSpace> {
        self.list.iter().find_map(|m| StateSpace::from_token(m))
    }

    fn rounding(&self) -> Rounding {
        for m in &self.list {
            match *m {
                ".rn" | ".rni" => return Rounding::Rn,
                ".rz" | ".rzi" => return Rounding::Rz,
                ".rm" | ".rmi" => return Rounding::Rm,
                ".rp" | ".rpi" => return Rounding::Rp,
                ".rna" => return Rounding::Rna,
                _ => {}
            }
        }
        Rounding::Rn
    }

    fn int_rounding(&self) -> Option<Rounding> {
        self.list.iter().find_map(|m| match *m {
            ".rni" => Some(Rounding::Rn),
            ".rzi" => Some(Rounding::Rz),
            ".rmi" => Some(Rounding::Rm),
            ".rpi" => Some(Rounding::Rp),
            _ => None,
        })
    }

    fn float_mode(&self) -> FloatMode {
        FloatMode {
            rounding: self.rounding(),
            ftz: self.has(".ftz"),
            sat: self.has(".sat") || self.has(".satfinite"),
            relu: self.has(".relu"),
        }
    }

    fn cmp(&self) -> Option<Cmp> {
        self.list.iter().find_map(|m| {
            Some(match *m {
                ".eq" => Cmp::Eq,
                ".ne" => Cmp::Ne,
                ".lt" => Cmp::Lt,
                ".le" => Cmp::Le,
                ".gt" => Cmp::Gt,
                ".ge" => Cmp::Ge,
                ".lo" => Cmp::Lo,
                ".ls" => Cmp::Ls,
                ".hi" => Cmp::Hi,
                ".hs" => Cmp::Hs,
                ".equ" => Cmp::Equ,
                ".neu" => Cmp::Neu,
                ".ltu" => Cmp::Ltu,
                ".leu" => Cmp::Leu,
                ".gtu" => Cmp::Gtu,
                ".geu" => Cmp::Geu,
                ".num" => Cmp::Num,
                ".nan" => Cmp::Nan,
                _ => return None,
            })
        })
    }

    fn bool_op(&self) -> Option<BoolOp> {
        self.list.iter().find_map(|m| match *m {
            ".and" => Some(BoolOp::And),
            ".or" => Some(BoolOp::Or),
            ".xor" => Some(BoolOp::Xor),
            _ => None,
        })
    }
}

/// One half of a `d|p` destination: the sink `_` or a register name.
fn pair_part(name: &ptx_syntax::ast::Name) -> Operand {
    if name.name == "_" {
        Operand::Sink(name.span)
    } else {
        Operand::Name(name.clone())
    }
}

/// A destination that may carry a predicate, `d|p` (`shfl`, `match`, `elect`): the register
/// and, where written, the predicate.
fn dst_and_pred(cx: &dyn OperandCx, d: &Operand) -> Result<(Dst, Option<PredIdx>), ExecError> {
    match d {
        Operand::PredPair(x, p, _) => Ok((cx.dst(&pair_part(x))?, cx.pred_dst(&pair_part(p))?)),
        d => Ok((cx.dst(d)?, None)),
    }
}

fn operands<'g>(
    cx: &dyn OperandCx,
    g: &'g GenericInstruction,
    span: Span,
    n: usize,
) -> Result<&'g [Operand], ExecError> {
    if g.operands.len() != n {
        return Err(cx.error(
            span,
            format!(
                "`{}` takes {n} operands, found {}",
                g.opcode.value,
                g.operands.len()
            ),
        ));
    }
    Ok(&g.operands)
}

/// The operands of an instruction that takes exactly `N`, as an array to destructure (an
/// error naming the instruction when it has another number).
fn fixed_operands<'g, const N: usize>(
    cx: &dyn OperandCx,
    g: &'g GenericInstruction,
    span: Span,
) -> Result<&'g [Operand; N], ExecError> {
    let ops = operands(cx, g, span, N)?;
    Ok(ops.try_into().expect("`operands` checked the count"))
}

fn one_type(
    cx: &dyn OperandCx,
    m: &Mods<'_>,
    g: &GenericInstruction,
    span: Span,
) -> Result<ScalarType, ExecError> {
    m.types()
        .last()
        .copied()
        .ok_or_else(|| cx.error(span, format!("`{}` needs a type", g.opcode.value)))
}

/// The reduction operations of `red` and `cp.reduce.async.bulk` by modifier (`atom` also
/// takes `.exch` and `.cas`).
pub(crate) const REDUCE_OPS: [(&str, AtomOp); 8] = [
    (".add", AtomOp::Add),
    (".min", AtomOp::Min),
    (".max", AtomOp::Max),
    (".inc", AtomOp::Inc),
    (".dec", AtomOp::Dec),
    (".and", AtomOp::And),
    (".or", AtomOp::Or),
    (".xor", AtomOp::Xor),
];

pub(crate) fn unsupported(cx: &dyn OperandCx, g: &GenericInstruction, span: Span) -> ExecError {
    let mut text = g.opcode.value.to_string();
    for m in &g.modifiers {
        text.push_str(&m.value);
    }
    cx.error(span, format!("the interpreter does not support `{text}`"))
}

/// Lowers one generic instruction.
pub(crate) fn lower_generic(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    span: Span,
) -> Result<Op, ExecError> {
    let m = Mods::new(g);
    let ops = &g.operands;
    let opcode = g.opcode.value.as_str();
    Ok(match opcode {
        "mov" => {
            let ty = one_type(cx, &m, g, span)?;
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
        "cvt" => {
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
        "cvta" => {
            let [d, a] = fixed_operands(cx, g, span)?;
            let ty = one_type(cx, &m, g, span)?;
            Op::Cvta {
                d: cx.dst(d)?,
                a: cx.src(a, ty)?,
                space: space_of(m.space()),
                to_generic: !m.has(".to"),
                bits: ty.bits(),
            }
        }
        "mapa" => {
            // `mapa{.space}.type d, a, b`: the address of `a`'s variable in the shared memory
            // of cluster CTA `b`.
            let ty = one_type(cx, &m, g, span)?;
            let [d, a, b] = fixed_operands(cx, g, span)?;
            Op::Mapa {
                d: cx.dst(d)?,
                a: cx.src(a, ty)?,
                rank: cx.src(b, ScalarType::U32)?,
            }
        }
        "isspacep" => {
            let [d, a] = fixed_operands(cx, g, span)?;
            Op::IsSpace {
                d: cx
                    .pred_dst(d)?
                    .ok_or_else(|| cx.error(span, "isspacep to `_`".into()))?,
                a: cx.src(a, ScalarType::U64)?,
                space: space_of(m.space()),
            }
        }
        "addc" | "subc" | "madc" => lower_carry(cx, g, &m, span, opcode)?,
        "add" | "sub" | "mad" if m.has(".cc") => lower_carry(cx, g, &m, span, opcode)?,
        "mul24" | "bmsk" | "szext" => {
            let ty = one_type(cx, &m, g, span)?;
            let [d, a, b] = fixed_operands(cx, g, span)?;
            let op = match opcode {
                "mul24" => IntOp2::Mul24 {
                    signed: ty == ScalarType::S32,
                    hi: m.has(".hi"),
                },
                "bmsk" => IntOp2::Bmsk {
                    wrap: m.has(".wrap"),
                },
                _ => IntOp2::Szext {
                    signed: ty == ScalarType::S32,
                    wrap: m.has(".wrap"),
                },
            };
            Op::Int2 {
                op,
                ty: ScalarType::U32,
                d: cx.dst(d)?,
                a: cx.src(a, ty)?,
                b: cx.src(b, ScalarType::U32)?,
            }
        }
        "mad24" | "dp4a" | "dp2a" => {
            let types = m.types();
            let [d, a, b, c] = fixed_operands(cx, g, span)?;
            let (op, ta, tb) = match (opcode, types.as_slice()) {
                ("mad24", [t]) if !m.has(".sat") => (
                    IntOp3::Mad24 {
                        signed: *t == ScalarType::S32,
                        hi: m.has(".hi"),
                    },
                    *t,
                    *t,
                ),
                ("dp4a", [ta, tb]) => (
                    IntOp3::Dp4a {
                        a_signed: *ta == ScalarType::S32,
                        b_signed: *tb == ScalarType::S32,
                    },
                    *ta,
                    *tb,
                ),
                ("dp2a", [ta, tb]) => (
                    IntOp3::Dp2a {
                        hi: m.has(".hi"),
                        a_signed: *ta == ScalarType::S32,
                        b_signed: *tb == ScalarType::S32,
                    },
                    *ta,
                    *tb,
                ),
                _ => return Err(unsupported(cx, g, span)),
            };
            let tc = if opcode == "mad24" {
                ta
            } else if ta == ScalarType::S32 || tb == ScalarType::S32 {
                ScalarType::S32
            } else {
                ScalarType::U32
            };
            Op::Int3 {
                op,
                ty: ScalarType::U32,
                d: cx.dst(d)?,
                a: cx.src(a, ta)?,
                b: cx.src(b, tb)?,
                c: cx.src(c, tc)?,
            }
        }
        "fns" => {
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
        "vadd2" | "vadd4" | "vsub2" | "vsub4" | "vavrg2" | "vavrg4" | "vabsdiff2" | "vabsdiff4"
        | "vmin2" | "vmin4" | "vmax2" | "vmax4" => lower_video(cx, g, &m, span, opcode)?,
        "lop3" if m.has(".or") || m.has(".and") => {
            // `lop3.BoolOp.b32 d|p, a, b, c, immLut, q` (PTX ISA 8.2): p = (d != 0) BoolOp q.
            let [dp, a, b, c, lut, q] = fixed_operands(cx, g, span)?;
            let Operand::PredPair(x, p, _) = dp else {
                return Err(cx.error(span, "lop3 with a BoolOp needs a `d|p` destination".into()));
            };
            let d = cx.dst(&pair_part(x))?;
            let lut = match lut {
                Operand::Int(v) => v.value.value as u8,
                _ => return Err(cx.error(span, "lop3 needs an immediate lookup table".into())),
            };
            Op::Lop3Pred {
                lut,
                op: if m.has(".and") {
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
            }
        }
        "lop3" => {
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
        "match" => {
            let ty = one_type(cx, &m, g, span)?;
            let all = m.has(".all");
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
        "add" | "sub" | "min" | "max" if m.has(".u16x2") || m.has(".s16x2") => {
            // Packed half-word integer forms (sm_90): `max.s16x2`, `min.relu.s16x2`, `add.u16x2`.
            let [d, a, b] = fixed_operands(cx, g, span)?;
            let op = match opcode {
                "add" => X2Op::Add,
                "sub" => X2Op::Sub,
                "min" => X2Op::Min,
                _ => X2Op::Max,
            };
            Op::Int2 {
                op: IntOp2::X2 {
                    op,
                    signed: m.has(".s16x2"),
                    relu: m.has(".relu"),
                },
                ty: ScalarType::B32,
                d: cx.dst(d)?,
                a: cx.src(a, ScalarType::B32)?,
                b: cx.src(b, ScalarType::B32)?,
            }
        }
        "add" | "sub" | "mul" | "div" | "rem" | "min" | "max" | "and" | "or" | "xor" | "shl"
        | "shr" | "copysign" => {
            let ty = one_type(cx, &m, g, span)?;
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
        }
        "sad" => {
            let ty = one_type(cx, &m, g, span)?;
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
            let ty = one_type(cx, &m, g, span)?;
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
        | "rsqrt" | "ex2" | "lg2" | "sin" | "cos" | "tanh" => {
            let ty = one_type(cx, &m, g, span)?;
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
        }
        "bfe" => {
            let ty = one_type(cx, &m, g, span)?;
            let [d, a, b, c] = fixed_operands(cx, g, span)?;
            Op::Bfe {
                ty,
                d: cx.dst(d)?,
                a: cx.src(a, ty)?,
                b: cx.src(b, ScalarType::U32)?,
                c: cx.src(c, ScalarType::U32)?,
            }
        }
        "bfi" => {
            let ty = one_type(cx, &m, g, span)?;
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
        "prmt" => {
            let [d, a, b, c] = fixed_operands(cx, g, span)?;
            let mode = m.pick(
                &[
                    (".f4e", PrmtMode::F4e),
                    (".b4e", PrmtMode::B4e),
                    (".rc8", PrmtMode::Rc8),
                    (".ecl", PrmtMode::Ecl),
                    (".ecr", PrmtMode::Ecr),
                    (".rc16", PrmtMode::Rc16),
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
        "shf" => {
            let [d, a, b, c] = fixed_operands(cx, g, span)?;
            Op::Shf {
                left: m.has(".l"),
                clamp: m.has(".clamp"),
                d: cx.dst(d)?,
                a: cx.src(a, ScalarType::B32)?,
                b: cx.src(b, ScalarType::B32)?,
                c: cx.src(c, ScalarType::U32)?,
            }
        }
        "testp" => {
            let ty = one_type(cx, &m, g, span)?;
            let [d, a] = fixed_operands(cx, g, span)?;
            use ptx_semantics::float::TestpOp;
            let kind = m.pick(
                &[
                    (".finite", TestpOp::Finite),
                    (".infinite", TestpOp::Infinite),
                    (".number", TestpOp::Number),
                    (".notanumber", TestpOp::NotANumber),
                    (".normal", TestpOp::Normal),
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
        "setp" => {
            let ty = one_type(cx, &m, g, span)?;
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
                ftz: m.has(".ftz"),
                d,
                d_not,
                a: cx.src(a, ty)?,
                b: cx.src(b, ty)?,
                combine,
            }
        }
        "set" => {
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
        "selp" => {
            let ty = one_type(cx, &m, g, span)?;
            let [d, a, b, p] = fixed_operands(cx, g, span)?;
            Op::Selp {
                bits: ty.bits(),
                d: cx.dst(d)?,
                a: cx.src(a, ty)?,
                b: cx.src(b, ty)?,
                p: cx.pred_src(p)?,
            }
        }
        "slct" => {
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
        "atom" | "red" => lower_atom(cx, g, &m, span, opcode == "red")?,
        "bra" | "brx" => {
            if opcode == "brx" {
                return Err(unsupported(cx, g, span));
            }
            let [t] = fixed_operands(cx, g, span)?;
            Op::Bra {
                target: cx.branch_target(t)?,
                uniform: m.has(".uni"),
            }
        }
        "call" => lower_call(cx, g, span)?,
        "ret" => Op::Ret,
        "exit" => Op::Exit,
        "trap" => Op::Trap,
        "brkpt" => Op::Brkpt,
        "bar" if m.has(".warp") => {
            // `bar.warp.sync membermask`: a warp-level wait, not a CTA barrier.
            let [mask] = ops.as_slice() else {
                return Err(cx.error(span, "bar.warp.sync takes one operand".into()));
            };
            Op::WarpSync {
                mask: cx.src(mask, ScalarType::B32)?,
            }
        }
        // `barrier.cluster.arrive` / `barrier.cluster.wait` (CUTLASS's cluster_arrive/wait, also
        // for 1x1x1 clusters): clusters are one CTA here, so the wait is a CTA-wide barrier
        // (on an id of its own, apart from bar.sync's 0..15) and the arrive has nothing to do.
        // Waiting for every thread at the wait is stronger than waiting for their arrivals,
        // never weaker.
        "barrier" if m.has(".cluster") => {
            if m.has(".wait") {
                Op::BarSync {
                    id: Src::Imm(16),
                    count: None,
                    arrive_only: false,
                }
            } else {
                Op::Nop
            }
        }
        "bar" | "barrier" => {
            let red = m.has(".red");
            if red {
                let op = m.pick(
                    &[(".popc", BarRedOp::Popc), (".and", BarRedOp::And)],
                    BarRedOp::Or,
                );
                let (d, id, count, p) = match ops.as_slice() {
                    [d, id, p] => (d, id, None, p),
                    [d, id, c, p] => (d, id, Some(c), p),
                    _ => return Err(cx.error(span, "bar.red takes 3 or 4 operands".into())),
                };
                let (dd, dp) = if op == BarRedOp::Popc {
                    (cx.dst(d)?, None)
                } else {
                    (Dst::Sink, cx.pred_dst(d)?)
                };
                return Ok(Op::BarRed {
                    id: cx.src(id, ScalarType::U32)?,
                    count: count.map(|c| cx.src(c, ScalarType::U32)).transpose()?,
                    op,
                    d: dd,
                    dp,
                    p: cx.pred_src(p)?,
                });
            }
            let arrive_only = m.has(".arrive");
            let id = match ops.first() {
                Some(o) => cx.src(o, ScalarType::U32)?,
                None => Src::Imm(0),
            };
            let count = match ops.get(1) {
                Some(o) => Some(cx.src(o, ScalarType::U32)?),
                None => None,
            };
            Op::BarSync {
                id,
                count,
                arrive_only,
            }
        }
        // The interpreter executes each warp's memory operations in program order and the
        // memory model is coherent at L2, so fences have nothing left to order; what they do
        // to the SM's L1 is what ptxas emits for them (docs/fences.md).
        "membar" | "fence" => Op::Fence {
            invalidate_l1: fence_invalidates_l1(g.opcode.value.as_str(), &m),
        },
        "nanosleep" | "pmevent" | "griddepcontrol" | "setmaxnreg" | "discard" | "applypriority" => {
            Op::Nop
        }
        "elect" => {
            // `elect.sync d|p, membermask`.
            let [dp, mask] = fixed_operands(cx, g, span)?;
            let (d, p) = dst_and_pred(cx, dp)?;
            Op::Elect {
                d,
                p,
                mask: cx.src(mask, ScalarType::B32)?,
            }
        }
        "shfl" => {
            let mode = m.pick(
                &[
                    (".up", ShflMode::Up),
                    (".down", ShflMode::Down),
                    (".bfly", ShflMode::Bfly),
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
        "vote" => {
            let mode = m.pick(
                &[
                    (".all", VoteMode::All),
                    (".any", VoteMode::Any),
                    (".uni", VoteMode::Uni),
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
        "activemask" => {
            let [d] = fixed_operands(cx, g, span)?;
            Op::Activemask { d: cx.dst(d)? }
        }
        "redux" => {
            let ty = one_type(cx, &m, g, span)?;
            let [d, a, mask] = fixed_operands(cx, g, span)?;
            let op = m.pick(
                &[
                    (".add", AtomOp::Add),
                    (".min", AtomOp::Min),
                    (".max", AtomOp::Max),
                    (".and", AtomOp::And),
                    (".or", AtomOp::Or),
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
        "mbarrier" => lower_mbarrier(cx, g, &m, span)?,
        "ldmatrix" => {
            let [d, a] = fixed_operands(cx, g, span)?;
            let num = m.pick(&[(".x4", 4), (".x2", 2)], 1);
            let ds = match d {
                Operand::Vector(v, _) => v
                    .iter()
                    .map(|x| cx.slot_of(x))
                    .collect::<Result<Vec<_>, _>>()?,
                x => vec![cx.slot_of(x)?],
            };
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
                trans: m.has(".trans"),
                ds,
                addr,
                generic: sp == Space::Generic,
            }
        }
        "stmatrix" => {
            let [a, r] = fixed_operands(cx, g, span)?;
            let num = m.pick(&[(".x4", 4), (".x2", 2)], 1);
            if !m.has(".m8n8") || !m.has(".b16") {
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
                trans: m.has(".trans"),
                srcs,
                addr,
                generic: sp == Space::Generic,
            }
        }
        "mma" => lower_mma(cx, g, &m, span)?,
        "wmma" => lower_wmma(cx, g, &m, span)?,
        "wgmma" => {
            if m.has(".fence") {
                Op::WgmmaFence
            } else if m.has(".commit_group") {
                Op::WgmmaCommit
            } else if m.has(".wait_group") {
                let n = match ops.first() {
                    Some(Operand::Int(v)) => v.value.value as u32,
                    _ => return Err(cx.error(span, "wgmma.wait_group needs an integer".into())),
                };
                Op::WgmmaWait { n }
            } else {
                lower_wgmma(cx, g, &m, span)?
            }
        }
        "cp" => crate::lower_bulk::lower_cp(cx, g, span)?,
        "tensormap" => crate::lower_bulk::lower_tensormap(cx, g, span)?,
        _ => return Err(unsupported(cx, g, span)),
    })
}

fn wide_type(ty: ScalarType) -> ScalarType {
    match ty {
        ScalarType::S16 => ScalarType::S32,
        ScalarType::U16 => ScalarType::U32,
        ScalarType::S32 => ScalarType::S64,
        ScalarType::U32 => ScalarType::U64,
        t => t,
    }
}

fn lower_atom(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
    is_red: bool,
) -> Result<Op, ExecError> {
    let ty = one_type(cx, m, g, span)?;
    let op = REDUCE_OPS
        .iter()
        .chain(&[(".exch", AtomOp::Exch), (".cas", AtomOp::Cas)])
        .find(|(t, _)| m.has(t))
        .map(|(_, o)| *o)
        .ok_or_else(|| cx.error(span, format!("`{}` needs an operation", g.opcode.value)))?;
    let space = match m.space().map(StateSpace::base) {
        Some(StateSpace::Global) => Space::Global,
        Some(StateSpace::Shared) => Space::Shared,
        _ => Space::Generic,
    };
    let ops = &g.operands;
    let hints = MemHints {
        semantics: if m.has(".relaxed") {
            memsys::Semantics::Relaxed
        } else if m.has(".acquire") || m.has(".acq_rel") {
            memsys::Semantics::Acquire
        } else if m.has(".release") {
            memsys::Semantics::Release
        } else {
            memsys::Semantics::Relaxed
        },
        // An acquiring atomic above .cta scope invalidates the SM's L1 afterwards (ptxas
        // emits CCTL.IVALL after it, docs/fences.md); at .cta it does not.
        scope: m.pick(
            &[
                (".cta", memsys::Scope::Cta),
                (".cluster", memsys::Scope::Cluster),
                (".sys", memsys::Scope::Sys),
            ],
            memsys::Scope::Gpu,
        ),
        ..MemHints::default()
    };
    let width = [(".v2", 2usize), (".v4", 4), (".v8", 8)]
        .iter()
        .find(|(t, _)| m.has(t))
        .map(|(_, n)| *n);
    if let Some(n) = width {
        // `atom.vN d_vec, [a], b_vec{, policy}` / `red.vN [a], b_vec{, policy}`.
        let ops = &g.operands;
        let (dv, rest) = if is_red {
            (None, &ops[..])
        } else {
            match ops.split_first() {
                Some((Operand::Vector(v, _), rest)) => (Some(v), rest),
                _ => return Err(cx.error(span, "a vector atom needs a vector destination".into())),
            }
        };
        let (a, bv) = match rest {
            [a, Operand::Vector(b, _), ..] => (a, b),
            _ => return Err(cx.error(span, "a vector atom needs a vector operand".into())),
        };
        if bv.len() != n || dv.is_some_and(|d| d.len() != n) {
            return Err(cx.error(span, format!("`.v{n}` needs {n} elements")));
        }
        let (addr, space) = cx.addr(a, space)?;
        let mut elems = Vec::with_capacity(n);
        for (k, b) in bv.iter().enumerate() {
            let d = match dv {
                Some(d) => Some(cx.dst(&d[k])?),
                None => None,
            };
            elems.push((d, cx.src(b, ty)?));
        }
        return Ok(Op::AtomVec {
            op,
            ty,
            space,
            elems,
            addr,
            hints,
        });
    }
    let (d, rest) = if is_red {
        (None, &ops[..])
    } else {
        let Some((d, rest)) = ops.split_first() else {
            return Err(cx.error(span, "atom needs operands".into()));
        };
        (Some(cx.dst(d)?), rest)
    };
    // Drop a trailing cache policy.
    let rest = if m.has(".L2::cache_hint") && !rest.is_empty() {
        &rest[..rest.len() - 1]
    } else {
        rest
    };
    let (a, b, c) = match (op, rest) {
        (AtomOp::Cas, [a, b, c]) => (a, b, Some(c)),
        (_, [a, b]) => (a, b, None),
        _ => {
            return Err(cx.error(
                span,
                format!("unexpected operands for `{}`", g.opcode.value),
            ))
        }
    };
    let (addr, space) = cx.addr(a, space)?;
    Ok(Op::Atom {
        op,
        ty,
        space,
        d,
        addr,
        b: cx.src(b, ty)?,
        c: c.map(|c| cx.src(c, ty)).transpose()?,
        hints,
        result_unread: d.is_none(),
    })
}

fn lower_call(cx: &mut dyn OperandCx, g: &GenericInstruction, span: Span) -> Result<Op, ExecError> {
    let ops = &g.operands;
    // call{.uni} (rets), func, (args){, prototype}; or call func, (args); or call func;
    let (rets, rest): (&[Operand], &[Operand]) = match ops.first() {
        Some(Operand::List(r, _)) => (r, &ops[1..]),
        _ => (&[], &ops[..]),
    };
    let Some(Operand::Name(fname)) = rest.first() else {
        return Err(cx.error(span, "call needs a function name".into()));
    };
    let Some(func) = cx.function_index(&fname.name) else {
        return Err(cx.error(
            fname.span,
            format!("indirect or unknown call target `{}`", fname.name),
        ));
    };
    if cx.function(func).code.is_empty() && cx.function(func).slots == 0 {
        // Declared only (e.g. vprintf): the body is missing; run it as a no-op returning 0.
    }
    let args: &[Operand] = match rest.get(1) {
        Some(Operand::List(a, _)) => a,
        _ => &[],
    };
    Ok(Op::Call {
        func,
        args: args
            .iter()
            .map(|a| cx.call_arg(a))
            .collect::<Result<_, _>>()?,
        rets: rets
            .iter()
            .map(|a| cx.call_arg(a))
            .collect::<Result<_, _>>()?,
    })
}

fn lower_mbarrier(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
) -> Result<Op, ExecError> {
    let parity = m.has(".parity");
    let op = if m.has(".init") {
        MbarrierOp::Init
    } else if m.has(".arrive_drop") {
        MbarrierOp::ArriveDrop
    } else if m.has(".arrive") && m.has(".expect_tx") {
        MbarrierOp::ArriveExpectTx
    } else if m.has(".arrive") {
        MbarrierOp::Arrive
    } else if m.has(".expect_tx") {
        MbarrierOp::ExpectTx
    } else if m.has(".complete_tx") {
        MbarrierOp::CompleteTx
    } else if m.has(".test_wait") {
        if parity {
            MbarrierOp::TestWaitParity
        } else {
            MbarrierOp::TestWait
        }
    } else if m.has(".try_wait") {
        if parity {
            MbarrierOp::TryWaitParity
        } else {
            MbarrierOp::TryWait
        }
    } else if m.has(".inval") {
        MbarrierOp::Inval
    } else if m.has(".pending_count") {
        MbarrierOp::PendingCount
    } else {
        return Err(unsupported(cx, g, span));
    };
    let space = if m.space().is_some() {
        Space::Shared
    } else {
        Space::Generic
    };
    let ops = &g.operands;
    let addr_pos = ops.iter().position(|o| matches!(o, Operand::Address(_)));
    let Some(ai) = addr_pos else {
        return Err(cx.error(span, "mbarrier needs an address".into()));
    };
    let (addr, sp) = cx.addr(&ops[ai], space)?;
    let (d, dp) = if ai == 1 {
        let first = &ops[0];
        if cx.is_pred(first) {
            (None, cx.pred_dst(first)?)
        } else {
            (Some(cx.dst(first)?), None)
        }
    } else {
        (None, None)
    };
    let b = match ops.get(ai + 1) {
        Some(o) => Some(cx.src(o, ScalarType::B64)?),
        None => None,
    };
    Ok(Op::Mbarrier {
        op,
        d,
        dp,
        addr,
        generic: sp == Space::Generic,
        b,
    })
}

fn vector_srcs(cx: &dyn OperandCx, op: &Operand, ty: ScalarType) -> Result<Vec<Src>, ExecError> {
    match op {
        Operand::Vector(v, _) => v.iter().map(|x| cx.src(x, ty)).collect(),
        x => Ok(vec![cx.src(x, ty)?]),
    }
}

/// `add.cc`, `addc{.cc}`, `sub.cc`, `subc{.cc}`, `mad{.lo,.hi}.cc`, `madc{.lo,.hi}{.cc}`.
fn lower_carry(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
    opcode: &str,
) -> Result<Op, ExecError> {
    let ty = one_type(cx, m, g, span)?;
    if ty.kind() == TypeKind::Float {
        return Err(unsupported(cx, g, span));
    }
    let cin = opcode.ends_with('c');
    let cout = m.has(".cc");
    let op = match opcode {
        "add" | "addc" => CarryOp::Add,
        "sub" | "subc" => CarryOp::Sub,
        _ if m.has(".hi") => CarryOp::MadHi,
        _ if m.has(".wide") => return Err(unsupported(cx, g, span)),
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

fn lower_mma(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
) -> Result<Op, ExecError> {
    let types = m.types();
    let shape = match (m.has(".m16n8k16"), m.has(".m16n8k8"), types.as_slice()) {
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
        ) if m.has(".m16n8k32") || m.has(".m16n8k16") => {
            let (a_signed, b_signed, satfinite) = (
                *a == ScalarType::S8,
                *b == ScalarType::S8,
                m.has(".satfinite"),
            );
            if m.has(".m16n8k32") {
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
    if !(m.has(".row") && m.has(".col")) {
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
fn lower_wmma(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
) -> Result<Op, ExecError> {
    use ptx_semantics::wmma::wmma_fits;
    let shape = m
        .list
        .iter()
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
    let (mm, nn, kk) = shape;
    let wty = |t: ScalarType| -> Option<WmmaType> {
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
    };
    let types: Vec<WmmaType> = m
        .types()
        .into_iter()
        .map(wty)
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| unsupported(cx, g, span))?;
    let slots = |cx: &dyn OperandCx, op: &Operand| -> Result<Vec<Slot>, ExecError> {
        match op {
            Operand::Vector(v, _) => v.iter().map(|x| cx.slot_of(x)).collect(),
            x => Ok(vec![cx.slot_of(x)?]),
        }
    };
    let bad_frag = |cx: &dyn OperandCx, what: &str, n: usize| {
        cx.error(
            span,
            format!("a {what} fragment of this wmma shape and type does not take {n} registers"),
        )
    };
    if m.has(".mma") {
        let (d, a, b, c) = match types.as_slice() {
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
            satfinite: m.has(".satfinite"),
        };
        let [od, oa, ob, oc] = fixed_operands(cx, g, span)?;
        let ds = slots(cx, od)?;
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
                return Err(bad_frag(cx, what, n));
            }
        }
        return Ok(Op::WmmaMma {
            op,
            ds,
            a: a_s,
            b: b_s,
            c: c_s,
        });
    }
    let load = m.has(".load");
    if !load && !m.has(".store") {
        return Err(unsupported(cx, g, span));
    }
    let matrix = if !load || m.has(".c") || m.has(".d") {
        WmmaMatrix::C
    } else if m.has(".a") {
        WmmaMatrix::A
    } else if m.has(".b") {
        WmmaMatrix::B
    } else {
        return Err(unsupported(cx, g, span));
    };
    let &[ty] = types.as_slice() else {
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
    let regs = slots(cx, regs_op)?;
    if !wmma_fits(rows, cols, ty, regs.len() as u32) {
        return Err(bad_frag(cx, "matrix", regs.len()));
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
        row_major: !m.has(".col"),
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

/// The SIMD video instructions (`vop2`/`vop4`); only the default byte/halfword selectors (the
/// form nvcc's `__vabsdiffu4`, `__vsadu2/4` ... emit), with any `.mask` on `d`.
fn lower_video(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
    opcode: &str,
) -> Result<Op, ExecError> {
    use ptx_semantics::int::VideoOp;
    let lanes = if opcode.ends_with('4') { 4 } else { 2 };
    let op = match &opcode[..opcode.len() - 1] {
        "vadd" => VideoOp::Add,
        "vsub" => VideoOp::Sub,
        "vavrg" => VideoOp::Avrg,
        "vabsdiff" => VideoOp::AbsDiff,
        "vmin" => VideoOp::Min,
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
        sat: m.has(".sat"),
        add: m.has(".add"),
        mask,
        d: cx.dst(&dreg)?,
        a: cx.src(a, ScalarType::B32)?,
        b: cx.src(b, ScalarType::B32)?,
        c: cx.src(c, ScalarType::B32)?,
    })
}

fn lower_wgmma(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
) -> Result<Op, ExecError> {
    let shape_mod = m
        .list
        .iter()
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
            satfinite: m.has(".satfinite"),
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

/// Whether ptxas follows a `membar`/`fence` with `CCTL.IVALL` (invalidate the SM's L1), as
/// read from its SASS for sm_75, sm_80 and sm_90 (`tests/fences/`, docs/fences.md):
/// `membar.gl`/`membar.sys`; `fence.sc`/`fence.acq_rel` (the default) and `fence.acquire`
/// at `.cluster`, `.gpu` or `.sys`; `fence.proxy.alias`. Not: anything at `.cta`,
/// `fence.release`, the other proxy fences, `fence.mbarrier_init`.
fn fence_invalidates_l1(opcode: &str, m: &Mods<'_>) -> bool {
    if opcode == "membar" {
        return m.has(".gl") || m.has(".sys");
    }
    if m.has(".proxy") {
        return m.has(".alias");
    }
    if m.has(".mbarrier_init") || m.has(".op_restrict") || m.has(".release") {
        return false;
    }
    m.has(".cluster") || m.has(".gpu") || m.has(".sys")
}
