//! The diagnostics the `ld`/`st` rules share with the other families (`cp.async`,
//! `createpolicy`, `prefetch`, the bulk-group and priority instructions): combined
//! modifiers, illegal operand types, address symbols of the wrong kind, space mismatches.

use super::*;

/// `Modifier 'a' cannot be combined with modifier 'b'`.
pub(crate) fn combine(insn: &Insn, span: Span, a: &str, b: &str, why: &str) -> Diagnostic {
    insn.err(
        codes::CONFLICTING_MODIFIERS,
        span,
        format!("Modifier '{a}' cannot be combined with modifier '{b}'"),
        format!("`{a}` and `{b}` cannot be used together"),
    )
    .with_help(why.to_string())
}

pub(crate) fn illegal_operand_type(insn: &Insn, op: &str, span: Span) -> Diagnostic {
    insn.err(
        codes::BAD_ADDRESS,
        span,
        format!("Illegal operand type to instruction '{op}'"),
        "the address is not a declared register or variable of a usable type".into(),
    )
}

pub(crate) fn bad_address_symbol(insn: &Insn, name: &str, span: Span, ty: &str) -> Diagnostic {
    insn.err(
        codes::BAD_ADDRESS,
        span,
        format!("Illegal to use symbol '{name}' of type {ty} as address operand. Use integer or bit only."),
        if ty == "unexpected" {
            format!("`{name}` is a function, not an address")
        } else {
            format!("`{name}` is a {ty} register; addresses are integer or bit registers")
        },
    )
    .with_help("address with a .b64/.u64/.s64 register or a variable")
}

pub(crate) fn immediate_address(insn: &Insn, span: Span) -> Diagnostic {
    insn.err(
        codes::BAD_ADDRESS,
        span,
        "Immediate addresses allowed only for .local state space".into(),
        "a numeric address outside .local".into(),
    )
    .with_help("address a variable or a register instead")
}

pub(crate) fn space_mismatch(
    insn: &Insn,
    op: &str,
    span: Span,
    name: &str,
    space: Option<StateSpace>,
) -> Diagnostic {
    insn.err(
        codes::SPACE_MISMATCH,
        span,
        format!("State space mismatch between instruction and address in instruction '{op}'"),
        format!(
            "`{name}` is not in the instruction's state space ({})",
            space.map_or("generic".to_string(), |s| s.token().to_string())
        ),
    )
    .with_help("use the state space the variable is declared in")
}
