//! Control flow: `bra`/`brx`, `call`, `ret`, `exit`, `trap`, `brkpt`.

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
        Opcode::Brx => {
            if !m.has(Modifier::Idx) {
                return Err(unsupported(cx, g, span));
            }
            let [index, list] = fixed_operands(cx, g, span)?;
            Op::BrxIdx {
                index: cx.src(index, ScalarType::U32)?,
                targets: cx.branch_list(list)?,
            }
        }
        Opcode::Bra => {
            let [t] = fixed_operands(cx, g, span)?;
            Op::Bra {
                target: cx.branch_target(t)?,
                uniform: m.has(Modifier::Uni),
            }
        }
        Opcode::Call => lower_call(cx, g, span)?,
        Opcode::Ret => Op::Ret,
        Opcode::Exit => Op::Exit,
        Opcode::Trap => Op::Trap,
        Opcode::Brkpt => Op::Brkpt,
        _ => return Err(unsupported(cx, g, span)),
    })
}

pub(super) fn lower_call(
    cx: &mut dyn OperandCx,
    g: &GenericInstruction,
    span: Span,
) -> Result<Op, ExecError> {
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
