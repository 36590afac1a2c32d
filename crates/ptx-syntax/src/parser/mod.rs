//! The PTX parser: a predictive recursive-descent parser written with winnow over the token
//! slice that [`crate::lexer::lex`] produces.
//!
//! Every function takes `&mut Input` and either consumes what it recognises or fails with a
//! [`PError`] that carries the span and message of the problem. Statement and item loops
//! recover from an error by skipping to the next `;` or `}` at the same nesting depth, so one
//! run reports every syntax error of a file, not only the first.
//!
//! Files: `tokens` (the cursor and errors), `literals`, `expressions` (operand and constant
//! expressions), `operands` (operands and addresses), `instructions` (opcode, modifiers, typed
//! instructions), `declarations`, `statements` (blocks, statements, recovery), `items`
//! (module items and functions); [`module`] here drives them.

mod declarations;
mod expressions;
mod instructions;
mod items;
mod literals;
mod operands;
mod statements;
mod tokens;

use crate::ast::*;
use crate::consteval::{self, ConstIssue, ConstValue};
use crate::lexer::{Tok, Token};
use crate::span::{Span, Spanned};
use crate::ParseError;
use declarations::*;
use expressions::*;
use instructions::*;
use items::*;
use literals::*;
use operands::*;
use ptx_isa::{Flag, Opcode, PtxVersion, Qualifier, ScalarType, StateSpace, VarType};
use smallvec::SmallVec;
use smol_str::SmolStr;
use statements::*;
use tokens::*;
use winnow::error::{ErrMode, ParserError};
use winnow::stream::{Stream, TokenSlice};

/// Parses a token stream into a module, collecting every error.
pub(crate) fn module(tokens: &[Token<'_>]) -> (Module, Vec<ParseError>) {
    let mut i = Input::new(tokens);
    let mut items = Vec::new();
    let mut list = Vec::new();
    loop {
        let t = peek(&i);
        if t.kind == Tok::Eof {
            break;
        }
        let mut errors = Errors { list: &mut list };
        let checkpoint = i.checkpoint();
        match item(&mut i, &mut errors) {
            Ok(Some(it)) => items.push(it),
            Ok(None) => {}
            Err(ErrMode::Cut(e)) | Err(ErrMode::Backtrack(e)) => {
                push_error(&mut list, *e);
                if list.len() >= MAX_ERRORS {
                    break;
                }
                i.reset(&checkpoint);
                recover_item(&mut i);
            }
            Err(ErrMode::Incomplete(_)) => unreachable!("complete input"),
        }
    }
    let end = tokens.last().map_or(0, |t| t.start);
    (
        Module {
            items,
            span: Span::new(0, end),
        },
        list,
    )
}
