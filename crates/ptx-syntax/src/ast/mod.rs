//! The typed syntax tree of a PTX module.
//!
//! Every node carries a [`Span`](crate::span::Span). The cache-control instructions (`ld`,
//! `st`, `cp.async` and its group forms, `createpolicy`, `prefetch`) have typed qualifier
//! fields; every other instruction keeps its opcode, modifiers and operands in [`GenericInstruction`], losing nothing.
//!
//! Typed instructions keep the qualifiers in the order they were written ([`QualifierList`]);
//! the typed fields are a classification of that list made by the parser (the first of a
//! class; a second cache operator or an unknown modifier stays in the written list, which the
//! validator reads as ptxas does), so nothing is lost or guessed. Every instruction's opcode
//! is classified once, as a [`ptx_isa::Opcode`] ([`Op::opcode`]).
//!
//! The tree is defined in one file per layer, all re-exported here (`ast::X` is the only
//! public path):
//!
//! | file | what it holds |
//! |---|---|
//! | `module.rs` | [`Module`], [`Item`] and the module directives (`.target`, `.file`, `.section`, `.pragma`, [`Linkage`]) |
//! | `function.rs` | [`Function`], its [`Param`]s and header directives ([`FUNCTION_DIRECTIVES`]) |
//! | `statement.rs` | [`Block`], [`Statement`], [`TargetList`], [`Loc`] |
//! | `variable.rs` | [`VarDecl`], [`Declarator`], [`Initializer`] |
//! | `expr.rs` | constant expressions ([`Expr`]) and literals ([`IntLit`], [`FloatLit`]) |
//! | `operand.rs` | [`Operand`], [`Name`], [`Address`] |
//! | `instruction.rs` | [`Instruction`], [`Guard`], [`Op`], [`GenericInstruction`] with its [`ModifierWord`]s (each classified as a `ptx_isa::Modifier`) |
//! | `cache_control.rs` | the typed cache-control instructions ([`LoadStore`], [`CpAsync`], …) and [`QualifierList`] |

mod cache_control;
mod expr;
mod function;
mod instruction;
mod module;
mod operand;
mod statement;
mod variable;

pub use cache_control::*;
pub use expr::*;
pub use function::*;
pub use instruction::*;
pub use module::*;
pub use operand::*;
pub use statement::*;
pub use variable::*;

#[cfg(test)]
mod tests {
    use super::*;

    /// A move of more than 128 bytes is a `memcpy` call, and every statement is moved a few
    /// times while a body is parsed (see [`Statement`]).
    #[test]
    fn a_statement_fits_in_128_bytes() {
        assert!(std::mem::size_of::<Statement>() <= 128);
        assert!(std::mem::size_of::<Instruction>() <= 128);
    }
}
