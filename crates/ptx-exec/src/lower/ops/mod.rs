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
use ptx_isa::{
    Flag, MemorySemantics, Modifier, Opcode, ScalarType, Scope, StateSpace, TypeKind, VectorWidth,
};
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

/// The decoded modifiers of a generic instruction (as the parser classified them).
struct Mods<'g> {
    g: &'g GenericInstruction,
}

impl<'g> Mods<'g> {
    fn new(g: &'g GenericInstruction) -> Self {
        Mods { g }
    }

    /// The classified modifiers, in order.
    fn known(&self) -> impl Iterator<Item = Modifier> + 'g {
        self.g.known_modifiers()
    }

    /// Every modifier as written (the matrix shapes `.m64n128k16`, which no table lists, are
    /// parsed from it).
    fn written(&self) -> impl Iterator<Item = &'g str> + 'g {
        self.g.modifiers.iter().map(|m| m.value.as_str())
    }

    fn has(&self, m: impl Into<Modifier>) -> bool {
        self.g.has(m)
    }

    /// The value paired with the first of `choices` whose modifier the instruction carries,
    /// else `otherwise` (the modifier-to-mode tables of `shfl`, `vote`, `prmt`, `testp`...).
    fn pick<T: Copy>(&self, choices: &[(Modifier, T)], otherwise: T) -> T {
        choices
            .iter()
            .find(|&&(m, _)| self.has(m))
            .map_or(otherwise, |&(_, v)| v)
    }

    /// The types written, in order (`cvt.f32.s32` → [F32, S32]).
    fn types(&self) -> Vec<ScalarType> {
        self.known().filter_map(Modifier::scalar_type).collect()
    }

    fn space(&self) -> Option<StateSpace> {
        self.known().find_map(Modifier::space)
    }

    fn rounding(&self) -> Rounding {
        self.known()
            .find_map(|m| match m {
                Modifier::Rn | Modifier::Rni => Some(Rounding::Rn),
                Modifier::Rz | Modifier::Rzi => Some(Rounding::Rz),
                Modifier::Rm | Modifier::Rmi => Some(Rounding::Rm),
                Modifier::Rp | Modifier::Rpi => Some(Rounding::Rp),
                Modifier::Rna => Some(Rounding::Rna),
                _ => None,
            })
            .unwrap_or(Rounding::Rn)
    }

    fn int_rounding(&self) -> Option<Rounding> {
        self.known().find_map(|m| match m {
            Modifier::Rni => Some(Rounding::Rn),
            Modifier::Rzi => Some(Rounding::Rz),
            Modifier::Rmi => Some(Rounding::Rm),
            Modifier::Rpi => Some(Rounding::Rp),
            _ => None,
        })
    }

    fn float_mode(&self) -> FloatMode {
        FloatMode {
            rounding: self.rounding(),
            ftz: self.has(Modifier::Ftz),
            sat: self.has(Modifier::Sat) || self.has(Modifier::Satfinite),
            relu: self.has(Modifier::Relu),
        }
    }

    fn cmp(&self) -> Option<Cmp> {
        self.known().find_map(|m| {
            Some(match m {
                Modifier::Eq => Cmp::Eq,
                Modifier::Ne => Cmp::Ne,
                Modifier::Lt => Cmp::Lt,
                Modifier::Le => Cmp::Le,
                Modifier::Gt => Cmp::Gt,
                Modifier::Ge => Cmp::Ge,
                Modifier::Lo => Cmp::Lo,
                Modifier::Ls => Cmp::Ls,
                Modifier::Hi => Cmp::Hi,
                Modifier::Hs => Cmp::Hs,
                Modifier::Equ => Cmp::Equ,
                Modifier::Neu => Cmp::Neu,
                Modifier::Ltu => Cmp::Ltu,
                Modifier::Leu => Cmp::Leu,
                Modifier::Gtu => Cmp::Gtu,
                Modifier::Geu => Cmp::Geu,
                Modifier::Num => Cmp::Num,
                Modifier::Nan => Cmp::Nan,
                _ => return None,
            })
        })
    }

    fn bool_op(&self) -> Option<BoolOp> {
        self.known().find_map(|m| match m {
            Modifier::And => Some(BoolOp::And),
            Modifier::Or => Some(BoolOp::Or),
            Modifier::Xor => Some(BoolOp::Xor),
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
pub(crate) const REDUCE_OPS: [(Modifier, AtomOp); 8] = [
    (Modifier::Add, AtomOp::Add),
    (Modifier::Min, AtomOp::Min),
    (Modifier::Max, AtomOp::Max),
    (Modifier::Inc, AtomOp::Inc),
    (Modifier::Dec, AtomOp::Dec),
    (Modifier::And, AtomOp::And),
    (Modifier::Or, AtomOp::Or),
    (Modifier::Xor, AtomOp::Xor),
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
        Add | Sub | Mad if m.has(Modifier::Cc) => int_forms::lower(cx, g, &m, span, opcode)?,
        Add | Sub | Min | Max if m.has(Modifier::U16x2) || m.has(Modifier::S16x2) => {
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
