//! Lowering of the bulk asynchronous copies (`cp{.reduce}.async.bulk{.prefetch}{.tensor}`,
//! `cp.async.bulk.commit_group/wait_group`) and of `tensormap.replace` /
//! `tensormap.cp_fenceproxy` (PTX ISA "Bulk copy", "Tensor copy", "Bulk and Tensor copy
//! completion instructions", "tensormap.replace").

use super::ops::{unsupported, REDUCE_OPS};
use crate::lower::OperandCx;
use crate::program::*;
use crate::tensormap::Field;
use crate::ExecError;
use ptx_isa::{Flag, Modifier, ScalarType, StateSpace};
use ptx_syntax::ast::{Address, GenericInstruction, Operand};
use ptx_syntax::Span;

/// Qualifiers of load modes and cluster features the interpreter does not model.
const UNMODELLED: &[(Modifier, &str)] = &[
    (Modifier::Im2col, "im2col mode"),
    (Modifier::Im2colW, "im2col::w mode"),
    (Modifier::Im2colW128, "im2col::w::128 mode"),
    (Modifier::Im2colNoOffs, "im2col_no_offs mode"),
    (Modifier::TileGather4, ".tile::gather4 mode (sm_100)"),
    (Modifier::TileScatter4, ".tile::scatter4 mode (sm_100)"),
    (Modifier::CtaGroup2, ".cta_group::2 (CTA pairs, sm_100)"),
    (Modifier::CpMask, ".cp_mask (sm_100)"),
];

fn text(g: &GenericInstruction) -> String {
    let mut t = g.opcode.value.to_string();
    for m in &g.modifiers {
        t.push_str(&m.value);
    }
    t
}

/// The state spaces named in the modifiers, in order (`.shared::cta`, `.shared::cluster`,
/// `.shared`, `.global`).
fn spaces(g: &GenericInstruction) -> Vec<Space> {
    g.known_modifiers()
        .filter_map(|m| match m.space()? {
            StateSpace::Global => Some(Space::Global),
            StateSpace::Shared | StateSpace::SharedCta | StateSpace::SharedCluster => {
                Some(Space::Shared)
            }
            _ => None,
        })
        .collect()
}

fn reduce_op(g: &GenericInstruction) -> Option<AtomOp> {
    REDUCE_OPS.iter().find(|&&(t, _)| g.has(t)).map(|(_, o)| *o)
}

/// Reads the operands in order, checking their kinds.
struct Operands<'g> {
    ops: &'g [Operand],
    next: usize,
    span: Span,
}

impl<'g> Operands<'g> {
    fn take(&mut self, cx: &dyn OperandCx, what: &str) -> Result<&'g Operand, ExecError> {
        let op = self.ops.get(self.next).ok_or_else(|| {
            cx.error(
                self.span,
                format!("missing operand {}: {what}", self.next + 1),
            )
        })?;
        self.next += 1;
        Ok(op)
    }

    fn addr(
        &mut self,
        cx: &dyn OperandCx,
        space: Space,
        what: &str,
    ) -> Result<(Addr, Space), ExecError> {
        let op = self.take(cx, what)?;
        cx.addr(op, space)
    }

    fn src(&mut self, cx: &dyn OperandCx, ty: ScalarType, what: &str) -> Result<Src, ExecError> {
        let op = self.take(cx, what)?;
        cx.src(op, ty)
    }

    fn finish(&self, cx: &dyn OperandCx) -> Result<(), ExecError> {
        if self.next < self.ops.len() {
            return Err(cx.error(
                self.ops[self.next].span(),
                format!(
                    "unexpected operand {} (the qualifiers call for {})",
                    self.next + 1,
                    self.next
                ),
            ));
        }
        Ok(())
    }
}

fn cache_hints() -> MemHints {
    MemHints {
        // The bulk engine reads and writes global memory at L2, never through L1.
        operator: Some(memsys::CacheOperator::Cg),
        ..MemHints::default()
    }
}

/// `cp.async.bulk...` and `cp.reduce.async.bulk...` (the syntax tree keeps them generic).
pub(crate) fn lower_cp(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    span: Span,
) -> Result<Op, ExecError> {
    if !g.has(Flag::Bulk) {
        return Err(unsupported(cx, g, span));
    }
    for &(q, what) in UNMODELLED {
        if g.has(q) {
            return Err(cx.error(
                span,
                format!("the interpreter does not support {what} of `{}`", text(g)),
            ));
        }
    }
    let mut ops = Operands {
        ops: &g.operands,
        next: 0,
        span,
    };
    if g.has(Flag::CommitGroup) {
        ops.finish(cx)?;
        return Ok(Op::BulkCommit);
    }
    if g.has(Flag::WaitGroup) {
        let n = match g.operands.first() {
            Some(Operand::Int(v)) if v.value.value >= 0 => v.value.value as u32,
            _ => {
                return Err(cx.error(
                    span,
                    "cp.async.bulk.wait_group needs an integer constant".into(),
                ))
            }
        };
        return Ok(Op::BulkWait {
            n,
            read: g.has(Modifier::Read),
        });
    }
    let hint = g.has(Flag::CacheHint);
    if g.has(Modifier::Tensor) {
        return lower_tensor(cx, g, span, ops, hint);
    }
    if g.has(Modifier::Prefetch) {
        let (addr, _) = ops.addr(cx, Space::Global, "[srcMem]")?;
        let size = ops.src(cx, ScalarType::U32, "size")?;
        let policy = if hint {
            Some(ops.src(cx, ScalarType::B64, "cache-policy")?)
        } else {
            None
        };
        ops.finish(cx)?;
        return Ok(Op::BulkPrefetch { addr, size, policy });
    }
    let sp = spaces(g);
    let (dst_space, src_space) = match sp.as_slice() {
        [d, s] => (*d, *s),
        _ => {
            return Err(cx.error(
                span,
                format!("`{}` needs a destination and a source state space", text(g)),
            ))
        }
    };
    let dir = match (dst_space, src_space) {
        (Space::Shared, Space::Global) => BulkDirection::GlobalToShared,
        (Space::Shared, Space::Shared) => BulkDirection::SharedToShared,
        (Space::Global, Space::Shared) => BulkDirection::SharedToGlobal,
        _ => return Err(unsupported(cx, g, span)),
    };
    let reduce = if g.known == Some(ptx_isa::Opcode::Cp) && g.has(Modifier::Reduce) {
        let op = reduce_op(g).ok_or_else(|| {
            cx.error(
                span,
                "cp.reduce.async.bulk needs a reduction operation".into(),
            )
        })?;
        let ty = g
            .modifiers
            .iter()
            .rev()
            .find_map(|m| m.known?.scalar_type())
            .ok_or_else(|| cx.error(span, "cp.reduce.async.bulk needs a type".into()))?;
        if dir == BulkDirection::GlobalToShared {
            return Err(unsupported(cx, g, span));
        }
        Some((op, ty))
    } else {
        None
    };
    let (dst, _) = ops.addr(cx, dst_space, "[dstMem]")?;
    let (src, _) = ops.addr(cx, src_space, "[srcMem]")?;
    let size = ops.src(cx, ScalarType::U32, "size")?;
    let ignore_oob = if g.has(Modifier::IgnoreOob) {
        let l = ops.src(cx, ScalarType::U32, "ignoreBytesLeft")?;
        let r = ops.src(cx, ScalarType::U32, "ignoreBytesRight")?;
        Some((l, r))
    } else {
        None
    };
    let mbar = if dir == BulkDirection::SharedToGlobal {
        None
    } else {
        Some(ops.addr(cx, Space::Shared, "[mbar]")?.0)
    };
    let cta_mask = if g.has(Modifier::MulticastCluster) {
        Some(ops.src(cx, ScalarType::B16, "ctaMask")?)
    } else {
        None
    };
    let policy = if hint {
        Some(ops.src(cx, ScalarType::B64, "cache-policy")?)
    } else {
        None
    };
    ops.finish(cx)?;
    Ok(Op::BulkCopy(Box::new(BulkCopyInst {
        dir,
        dst,
        src,
        size,
        mbar,
        reduce,
        hints: cache_hints(),
        policy,
        cta_mask,
        ignore_oob,
    })))
}

/// `[tensorMap, {c0, ...}]`: the map's address and the coordinates.
fn tensor_operand(
    cx: &dyn OperandCx,
    op: &Operand,
    dim: u32,
) -> Result<(Addr, Space, Vec<Src>), ExecError> {
    let Operand::Bracket(items, bspan) = op else {
        return Err(cx.error(op.span(), "expected `[tensorMap, {coordinates}]`".into()));
    };
    let [base, Operand::Vector(coords, vspan)] = items.as_slice() else {
        return Err(cx.error(*bspan, "expected `[tensorMap, {coordinates}]`".into()));
    };
    let (addr, space) = match base {
        Operand::Name(n) => cx.addr(
            &Operand::Address(Box::new(Address {
                base: Some(n.clone()),
                offset: 0,
                offset_issues: Vec::new(),
                unified: false,
                span: n.span,
            })),
            Space::Generic,
        )?,
        other => {
            return Err(cx.error(
                other.span(),
                "the tensor map must be a register or a variable".into(),
            ))
        }
    };
    if coords.len() != dim as usize {
        return Err(cx.error(
            *vspan,
            format!(
                "a .{dim}d tensor copy takes {dim} coordinates, found {}",
                coords.len()
            ),
        ));
    }
    let coords = coords
        .iter()
        .map(|c| cx.src(c, ScalarType::S32))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((addr, space, coords))
}

fn lower_tensor(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    span: Span,
    mut ops: Operands<'_>,
    hint: bool,
) -> Result<Op, ExecError> {
    // The first of `.1d` … `.5d` by dimension count, as before the modifiers were classified.
    let dim = (1..=5u32)
        .find(|&d| g.known_modifiers().any(|m| m.tensor_dims() == Some(d)))
        .ok_or_else(|| cx.error(span, "a tensor copy needs .1d to .5d".into()))?;
    let sp = spaces(g);
    let prefetch = g.has(Modifier::Prefetch);
    let reduce = g.has(Modifier::Reduce);
    let kind = if prefetch {
        TensorOpKind::Prefetch
    } else if reduce {
        TensorOpKind::Reduce(reduce_op(g).ok_or_else(|| {
            cx.error(
                span,
                "cp.reduce.async.bulk.tensor needs a reduction operation".into(),
            )
        })?)
    } else {
        match sp.as_slice() {
            [Space::Shared, Space::Global] => TensorOpKind::Load,
            [Space::Global, Space::Shared] => TensorOpKind::Store,
            _ => return Err(unsupported(cx, g, span)),
        }
    };
    let mut smem = Addr {
        base: None,
        offset: 0,
    };
    let mut mbar = None;
    let mut cta_mask = None;
    let (tmap, tmap_space, coords);
    match kind {
        TensorOpKind::Load => {
            smem = ops.addr(cx, Space::Shared, "[dstMem]")?.0;
            (tmap, tmap_space, coords) =
                tensor_operand(cx, ops.take(cx, "[tensorMap, ...]")?, dim)?;
            mbar = Some(ops.addr(cx, Space::Shared, "[mbar]")?.0);
            if g.has(Modifier::MulticastCluster) {
                cta_mask = Some(ops.src(cx, ScalarType::B16, "ctaMask")?);
            }
        }
        TensorOpKind::Store | TensorOpKind::Reduce(_) => {
            (tmap, tmap_space, coords) =
                tensor_operand(cx, ops.take(cx, "[tensorMap, ...]")?, dim)?;
            smem = ops.addr(cx, Space::Shared, "[srcMem]")?.0;
        }
        TensorOpKind::Prefetch => {
            (tmap, tmap_space, coords) =
                tensor_operand(cx, ops.take(cx, "[tensorMap, ...]")?, dim)?;
        }
    }
    let policy = if hint {
        Some(ops.src(cx, ScalarType::B64, "cache-policy")?)
    } else {
        None
    };
    ops.finish(cx)?;
    Ok(Op::TensorCopy(Box::new(TensorCopyInst {
        kind,
        dim,
        smem,
        tmap,
        tmap_space,
        coords,
        mbar,
        policy,
        cta_mask,
    })))
}

/// `tensormap.replace` and `tensormap.cp_fenceproxy`.
pub(crate) fn lower_tensormap(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    span: Span,
) -> Result<Op, ExecError> {
    let mut ops = Operands {
        ops: &g.operands,
        next: 0,
        span,
    };
    if g.has(Modifier::CpFenceproxy) {
        let (dst, _) = ops.addr(cx, Space::Global, "[dst]")?;
        let (src, _) = ops.addr(cx, Space::Shared, "[src]")?;
        let size = match ops.take(cx, "size")? {
            Operand::Int(v) if v.value.value == 128 => 128,
            other => {
                return Err(cx.error(
                    other.span(),
                    "tensormap.cp_fenceproxy copies a 128-byte tensor map: size must be 128".into(),
                ))
            }
        };
        ops.finish(cx)?;
        return Ok(Op::TensormapCopy { dst, src, size });
    }
    if !g.has(Modifier::Replace) {
        return Err(unsupported(cx, g, span));
    }
    if !g.has(Modifier::Tile) {
        return Err(cx.error(
            span,
            format!("`{}`: only .tile tensor maps are supported", text(g)),
        ));
    }
    let field = g
        .known_modifiers()
        .find_map(Field::from_modifier)
        .ok_or_else(|| cx.error(span, "tensormap.replace needs a field".into()))?;
    let space = if g.has(StateSpace::Global) {
        Space::Global
    } else if g.has(StateSpace::SharedCta) || g.has(StateSpace::Shared) {
        Space::Shared
    } else {
        Space::Generic
    };
    let (addr, _) = ops.addr(cx, space, "[addr]")?;
    let ord = if field.has_ordinal() {
        match ops.take(cx, "ord")? {
            Operand::Int(v) if (0..field.ordinals() as i128).contains(&{ v.value.value }) => {
                v.value.value as u32
            }
            other => {
                return Err(cx.error(
                    other.span(),
                    format!(
                        "the ordinal must be an integer constant from 0 to {}",
                        field.ordinals() - 1
                    ),
                ))
            }
        }
    } else {
        0
    };
    let ty = if matches!(field, Field::GlobalAddress | Field::GlobalStride) {
        ScalarType::B64
    } else {
        ScalarType::B32
    };
    let value = ops.src(cx, ty, "new_val")?;
    ops.finish(cx)?;
    Ok(Op::TensormapReplace {
        field,
        ord,
        addr,
        space,
        value,
    })
}
