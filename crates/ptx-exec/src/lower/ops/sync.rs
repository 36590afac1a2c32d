//! Barriers and fences: `bar`/`barrier`, `membar`/`fence`, hints that do nothing here,
//! `discard`/`applypriority` (L2 line control), and `mbarrier`.

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
        Opcode::Bar if m.has(Modifier::Warp) => {
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
        Opcode::Barrier if m.has(Scope::Cluster) => {
            if m.has(Modifier::Wait) {
                Op::BarSync {
                    id: Src::Imm(16),
                    count: None,
                    arrive_only: false,
                }
            } else {
                Op::Nop
            }
        }
        Opcode::Bar | Opcode::Barrier => {
            let red = m.has(Modifier::Red);
            if red {
                let op = m.pick(
                    &[
                        (Modifier::Popc, BarRedOp::Popc),
                        (Modifier::And, BarRedOp::And),
                    ],
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
            let arrive_only = m.has(Flag::Arrive);
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
        Opcode::Membar | Opcode::Fence => Op::Fence {
            invalidate_l1: fence_invalidates_l1(opcode, m),
        },
        // `discard.global.L2 [a], 128` / `applypriority.global.L2::evict_normal [a], 128`:
        // the line's L2 state changes (memsys `system/l2_control.rs`); the validator has
        // checked the level, the priority and the size operand (only 128 exists).
        Opcode::Discard | Opcode::Applypriority => {
            let Some(op) = ops.iter().find(|o| matches!(o, Operand::Address(_))) else {
                return Err(cx.error(span, format!("{opcode} takes an address operand")));
            };
            let space = match m.space() {
                Some(StateSpace::Global) => Space::Global,
                _ => Space::Generic,
            };
            let (addr, space) = cx.addr(op, space)?;
            Op::L2Control {
                kind: if opcode == Opcode::Discard {
                    L2ControlKind::Discard
                } else {
                    L2ControlKind::ApplyPriorityNormal
                },
                space,
                addr,
            }
        }
        Opcode::Nanosleep | Opcode::Pmevent | Opcode::Griddepcontrol | Opcode::Setmaxnreg => {
            Op::Nop
        }
        _ => return Err(unsupported(cx, g, span)),
    })
}

pub(super) fn lower_mbarrier(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    m: &Mods<'_>,
    span: Span,
) -> Result<Op, ExecError> {
    let parity = m.has(Modifier::Parity);
    let op = if m.has(Modifier::Init) {
        MbarrierOp::Init
    } else if m.has(Modifier::ArriveDrop) {
        MbarrierOp::ArriveDrop
    } else if m.has(Flag::Arrive) && m.has(Modifier::ExpectTx) {
        MbarrierOp::ArriveExpectTx
    } else if m.has(Flag::Arrive) {
        MbarrierOp::Arrive
    } else if m.has(Modifier::ExpectTx) {
        MbarrierOp::ExpectTx
    } else if m.has(Modifier::CompleteTx) {
        MbarrierOp::CompleteTx
    } else if m.has(Modifier::TestWait) {
        if parity {
            MbarrierOp::TestWaitParity
        } else {
            MbarrierOp::TestWait
        }
    } else if m.has(Modifier::TryWait) {
        if parity {
            MbarrierOp::TryWaitParity
        } else {
            MbarrierOp::TryWait
        }
    } else if m.has(Modifier::Inval) {
        MbarrierOp::Inval
    } else if m.has(Modifier::PendingCount) {
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

/// Whether ptxas follows a `membar`/`fence` with `CCTL.IVALL` (invalidate the SM's L1), as
/// read from its SASS for sm_75, sm_80 and sm_90 (`tests/fences/`, docs/fences.md):
/// `membar.gl`/`membar.sys`; `fence.sc`/`fence.acq_rel` (the default) and `fence.acquire`
/// at `.cluster`, `.gpu` or `.sys`; `fence.proxy.alias`. Not: anything at `.cta`,
/// `fence.release`, the other proxy fences, `fence.mbarrier_init`.
pub(super) fn fence_invalidates_l1(opcode: Opcode, m: &Mods<'_>) -> bool {
    if opcode == Opcode::Membar {
        return m.has(Modifier::Gl) || m.has(Scope::Sys);
    }
    if m.has(Modifier::Proxy) {
        return m.has(Modifier::Alias);
    }
    if m.has(Modifier::MbarrierInit)
        || m.has(Modifier::OpRestrict)
        || m.has(MemorySemantics::Release)
    {
        return false;
    }
    m.has(Scope::Cluster) || m.has(Scope::Gpu) || m.has(Scope::Sys)
}
