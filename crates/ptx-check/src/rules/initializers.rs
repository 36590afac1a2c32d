//! The mask operator of variable initializers: `0xFF00(generic(x)+8)` is one byte of an
//! address (nvcc writes pointers in packed structs so). Measured with ptxas 13.5
//! (tests/parity/gen_survey.py, family `mask-init`): only a `.u8`, `.u32` or `.u64` variable
//! may hold one (`.u16`, every `.s`, `.b` and `.f` type: `fatal : Initial value type
//! mismatch`, at the variable), and the mask must be one whole byte (`0xFF`, `0xFF00`, …
//! `0xFF00000000000000`, also written in decimal; `0xF0`, `0x1FE`: `Invalid mask value '0xf0'
//! used in initializer`).

use super::*;
use ptx_syntax::ast::{Expr, Initializer};

impl Checker<'_> {
    /// Checks the mask operators of a module variable's initializers.
    pub(super) fn mask_initializers(&mut self, v: &VarDecl) {
        for d in &v.declarators {
            let Some(init) = &d.init else {
                continue;
            };
            let mut masks = Vec::new();
            collect_masks(init, &mut masks);
            if masks.is_empty() {
                continue;
            }
            if !matches!(
                v.ty.value,
                VarType::Scalar(ScalarType::U8 | ScalarType::U32 | ScalarType::U64)
            ) {
                self.diags.push(Diagnostic::new(
                    Severity::Fatal,
                    codes::CONST_EXPR,
                    d.span,
                    "a byte of an address (`0xFF…(sym)`) can only initialize a `.u8`, `.u32` or `.u64` variable",
                    "Initial value type mismatch",
                ));
                continue;
            }
            for (text, span) in masks {
                let value = parse_mask(text);
                if !value.is_some_and(is_byte_mask) {
                    let shown = value.map_or(text.to_string(), |m| format!("{m:#x}"));
                    self.diags.push(Diagnostic::error(
                        codes::CONST_EXPR,
                        span,
                        format!("`{text}` is not a one-byte mask (0xFF, 0xFF00, …)"),
                        format!("Invalid mask value '{shown}' used in initializer"),
                    ));
                }
            }
        }
    }
}

/// The mask operators (a call named by an integer literal) of an initializer, in order.
fn collect_masks<'i>(init: &'i Initializer, out: &mut Vec<(&'i str, Span)>) {
    match init {
        Initializer::List(items, _) => items.iter().for_each(|i| collect_masks(i, out)),
        Initializer::Expr(Expr::Call(name, _, span))
            if name.value.starts_with(|c: char| c.is_ascii_digit()) =>
        {
            out.push((name.value.as_str(), *span))
        }
        Initializer::Expr(_) => {}
    }
}

fn parse_mask(text: &str) -> Option<u64> {
    let t = text.trim_end_matches(['U', 'u']);
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => t.parse().ok(),
    }
}

/// `0xFF` shifted left by a whole number of bytes.
fn is_byte_mask(m: u64) -> bool {
    m != 0 && m.trailing_zeros().is_multiple_of(8) && m >> m.trailing_zeros() == 0xFF
}
