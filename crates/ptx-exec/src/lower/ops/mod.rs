//! Lowering of the instructions the syntax tree keeps in generic form (arithmetic,
//! conversions, control flow, warp-level and matrix instructions): opcode and modifiers → one
//! [`Op`] with every modifier decoded. [`lower_generic`] dispatches by opcode to one file per
//! instruction family:
//!
//! ```text
//! moves.rs    mov, cvt, cvta, mapa, isspacep
//! int_forms.rs carry chains, mul24/mad24, dp4a/dp2a, fns, video SIMD, lop3, packed 16x2
//! arith.rs    add...shr, copysign, sad, mad/fma, one-operand ops
//! bits.rs     bfe, bfi, prmt, shf
//! compare.rs  testp, setp, set, selp, slct
//! control.rs  bra/brx, call, ret, exit, trap, brkpt
//! atomic.rs   atom, red
//! sync.rs     bar/barrier, membar/fence, mbarrier
//! warp.rs     elect, shfl, vote, activemask, redux, match
//! matrix.rs   ldmatrix, stmatrix, mma, wmma, wgmma
//! ```
//!
//! `cp` and `tensormap` are in `lower/bulk.rs`.

use crate::lower::{space_of, OperandCx};
use crate::program::*;
use crate::ExecError;
use ptx_isa::{Opcode, ScalarType, StateSpace, TypeKind};
use ptx_syntax::ast::{GenericInstruction, Operand};
use ptx_syntax::Span;

mod arith;
mod atomic;
mod bits;
mod compare;
mod control;
mod int_forms;
mod matrix;
mod moves;
mod sync;
mod warp;

use atomic::lower_atom;
use sync::lower_mbarrier;

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

/// Lowers one generic instruction. Every [`Opcode`] is classified here (no catch-all): a new
/// one does not compile until it has a family or is listed as not supported.
pub(crate) fn lower_generic(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    span: Span,
) -> Result<Op, ExecError> {
    use Opcode::*;
    let m = Mods::new(g);
    let Some(opcode) = g.known else {
        return Err(unsupported(cx, g, span));
    };
    Ok(match opcode {
        Mov | Cvt | Cvta | Mapa | Isspacep => moves::lower(cx, g, &m, span, opcode)?,
        Addc | Subc | Madc | Mul24 | Bmsk | Szext | Mad24 | Dp4a | Dp2a | Fns | Vadd2 | Vadd4
        | Vsub2 | Vsub4 | Vavrg2 | Vavrg4 | Vabsdiff2 | Vabsdiff4 | Vmin2 | Vmin4 | Vmax2
        | Vmax4 | Lop3 | Vadd | Vsub | Vabsdiff | Vmin | Vmax | Vshl | Vshr => {
            int_forms::lower(cx, g, &m, span, opcode)?
        }
        Add | Sub | Mad if m.has(".cc") => int_forms::lower(cx, g, &m, span, opcode)?,
        Add | Sub | Min | Max if m.has(".u16x2") || m.has(".s16x2") => {
            int_forms::lower(cx, g, &m, span, opcode)?
        }
        Add | Sub | Mul | Div | Rem | Min | Max | And | Or | Xor | Shl | Shr | Copysign | Sad
        | Mad | Fma | Not | Cnot | Neg | Abs | Popc | Clz | Brev | Bfind | Sqrt | Rcp | Rsqrt
        | Ex2 | Lg2 | Sin | Cos | Tanh => arith::lower(cx, g, &m, span, opcode)?,
        Bfe | Bfi | Prmt | Shf => bits::lower(cx, g, &m, span, opcode)?,
        Testp | Setp | Set | Selp | Slct => compare::lower(cx, g, &m, span, opcode)?,
        Bra | Brx | Call | Ret | Exit | Trap | Brkpt => control::lower(cx, g, &m, span, opcode)?,
        Atom | Red => lower_atom(cx, g, &m, span, opcode == Red)?,
        Bar | Barrier | Membar | Fence | Nanosleep | Pmevent | Griddepcontrol | Setmaxnreg
        | Discard | Applypriority => sync::lower(cx, g, &m, span, opcode)?,
        Elect | Shfl | Vote | Activemask | Redux | Match => warp::lower(cx, g, &m, span, opcode)?,
        Ldmatrix | Stmatrix | Mma | Wmma | Wgmma => matrix::lower(cx, g, &m, span, opcode)?,
        Mbarrier => lower_mbarrier(cx, g, &m, span)?,
        Cp => super::bulk::lower_cp(cx, g, span)?,
        Tensormap => super::bulk::lower_tensormap(cx, g, span)?,
        // Typed by the parser, never generic; kept here so every opcode is classified.
        Ld | St | Createpolicy | Prefetch | Prefetchu => return Err(unsupported(cx, g, span)),
        // Not supported by the interpreter.
        Alloca | Clusterlaunchcontrol | Getctarank | Istypeof | Istypep | Ldu | Movmatrix
        | Multimem | Stackrestore | Stacksave | Suld | Suq | Sured | Sust | Tcgen05 | Tex
        | Tld4 | Txq | Vmad | Vset | Vset2 | Vset4 => return Err(unsupported(cx, g, span)),
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
