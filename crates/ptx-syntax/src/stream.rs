//! Parsing a module a few top-level items at a time, in memory bounded by the largest item
//! rather than the file.
//!
//! [`ItemReader`] lexes the text once, front to back, and cuts the token stream after each
//! top-level statement: a `;` outside any `{ }`, `( )` or `[ ]`, or a `}` that closes the
//! outermost brace (with the `;` of an initializer such as `= {1, 2};` when one follows). The
//! header directives, which end in no `;`, fall into the run of the first statement after
//! them. Each run is parsed by the module parser on its own.
//!
//! A run that parses without an error gives the items the whole-file parse gives for those
//! tokens: the item parser is predictive and never reads past the `;` or `}` that ends an
//! item, so it sees the same tokens either way. A run with a syntax error is reported as such
//! and not recovered: the whole-file parse ([`crate::parse_recovering`]) recovers from errors
//! across item boundaries, so callers that need its exact errors start over with it.
//!
//! [`ItemReader::range`] reads the runs of one stretch of the text, which must begin where a
//! run begins; [`crate::chunks`] cuts a large module into such stretches and reads them on
//! several threads. A stretch whose end is not where a run ends is reported
//! ([`RunError::Boundary`]), never read differently from the whole-text reader.

use crate::ast::Item;
use crate::lexer::{Tok, Token};
use crate::span::Span;
use crate::ParseError;
use logos::Logos;

/// Reads the top-level items of a module run by run; see the module docs.
pub struct ItemReader<'s> {
    text: &'s str,
    lexer: logos::Lexer<'s, Tok>,
    /// Where `lexer`'s text starts in `text` (added to its offsets).
    base: u32,
    /// Where the stretch ends: tokens that start here or later are not read. `text.len()`
    /// for the whole text.
    limit: u32,
    /// The lexer reached `limit` (or the end of the text): no more tokens are read.
    stopped: bool,
    /// The stretch's end is not a run boundary: a token straddles `limit`, or none starts
    /// there although the text goes on.
    broken: bool,
    /// The token read past the end of the last run (the one after a top-level `}`).
    pending: Option<Token<'s>>,
    /// The current run's tokens (reused between runs).
    tokens: Vec<Token<'s>>,
    done: bool,
}

/// Why a run could not be read on its own.
#[derive(Debug)]
pub enum RunError {
    /// The run has syntax errors (the first ones found in it, as the whole-file parse would
    /// not necessarily report them).
    Syntax(Vec<ParseError>),
    /// The text is too large for the `u32` spans.
    TooLarge,
    /// A stretch read by [`ItemReader::range`] does not end where a run ends; the runs from
    /// `resume` (the start of the run that crosses the end) on must be read by a reader that
    /// goes on past it. The runs before it are good.
    Boundary { resume: u32 },
}

impl<'s> ItemReader<'s> {
    pub fn new(text: &'s str) -> Self {
        Self::range(text, 0, text.len())
    }

    /// Reads the runs of `text[start..limit]`. `start` must be where a run of the whole text
    /// begins (0, or the first token after a run's end); the runs are then those the whole-text
    /// reader gives for these bytes, and if `limit` is not where a run ends (with a token
    /// starting exactly there), the run that crosses it is reported as
    /// [`RunError::Boundary`] instead. Offsets in the items are offsets in `text`.
    pub fn range(text: &'s str, start: usize, limit: usize) -> Self {
        let start = start.min(text.len());
        let base = start.min(u32::MAX as usize) as u32;
        // A start inside a character is no run's start: reported as a wrong stretch.
        let inside_char = !text.is_char_boundary(start);
        ItemReader {
            text,
            lexer: Tok::lexer(if inside_char { "" } else { &text[start..] }),
            base,
            limit: limit.min(text.len()).min(u32::MAX as usize) as u32,
            stopped: inside_char,
            broken: inside_char,
            pending: None,
            tokens: Vec::new(),
            done: false,
        }
    }

    fn next_token(&mut self) -> Option<Token<'s>> {
        if let Some(t) = self.pending.take() {
            return Some(t);
        }
        self.lex()
    }

    /// The lexer's next token before `limit` (`pending` is taken care of by the caller).
    #[inline]
    fn lex(&mut self) -> Option<Token<'s>> {
        if self.stopped {
            return None;
        }
        let Some(kind) = self.lexer.next() else {
            self.stopped = true;
            // A stretch that ends before the text does must end at a token.
            self.broken |= (self.limit as usize) < self.text.len();
            return None;
        };
        let start = self.base + self.lexer.span().start as u32;
        if start >= self.limit {
            self.stopped = true;
            self.broken |= start != self.limit;
            return None;
        }
        // `slice` is the lexer's own text of the token (no second bounds and char-boundary
        // check, as indexing `text` again would make).
        Some(Token {
            kind: kind.unwrap_or(Tok::Error),
            text: self.lexer.slice(),
            start,
        })
    }

    /// The items of the next run, `None` after the last one.
    pub fn next_items(&mut self) -> Option<Result<Vec<Item>, RunError>> {
        if self.done {
            return None;
        }
        if self.text.len() >= u32::MAX as usize {
            self.done = true;
            return Some(Err(RunError::TooLarge));
        }
        self.tokens.clear();
        let mut depth = 0usize;
        let mut end = self.limit;
        let mut terminated = true;
        // Only the run's first token can be the pending one: the loop reads the lexer.
        let mut next = self.next_token();
        while let Some(t) = next {
            self.tokens.push(t);
            match t.kind {
                Tok::LBrace | Tok::LParen | Tok::LBracket => depth += 1,
                Tok::RParen | Tok::RBracket => depth = depth.saturating_sub(1),
                Tok::RBrace => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        match self.lex() {
                            Some(n) if n.kind == Tok::Semi => self.tokens.push(n),
                            Some(n) => {
                                end = n.start;
                                self.pending = Some(n);
                            }
                            None => {}
                        }
                        break;
                    }
                }
                Tok::Semi if depth == 0 => break,
                _ => {}
            }
            next = self.lex();
            terminated = next.is_some();
        }
        if self.tokens.is_empty() {
            self.done = true;
            // A stretch with no token before `limit` must still end at one.
            return self
                .broken
                .then_some(Err(RunError::Boundary { resume: self.base }));
        }
        if self.pending.is_none() {
            // The run ends at a `;` or at the end of the text: the next token starts after it.
            if let Some(n) = self.lex() {
                end = n.start;
                self.pending = Some(n);
            }
        }
        // A run that the stretch's end cuts short, or a stretch that does not end where a
        // token starts: the whole-text reader would read this run differently.
        let cut_short = !terminated && self.stopped && (self.limit as usize) < self.text.len();
        if self.broken || cut_short {
            self.done = true;
            let resume = self.tokens[0].start;
            return Some(Err(RunError::Boundary { resume }));
        }
        self.tokens.push(Token {
            kind: Tok::Eof,
            text: "",
            start: end,
        });
        let (module, errors) = crate::parser::module(&self.tokens);
        if errors.is_empty() {
            Some(Ok(module.items))
        } else {
            self.done = true;
            Some(Err(RunError::Syntax(errors)))
        }
    }
}

/// The span of a top-level item.
pub fn item_span(item: &Item) -> Span {
    match item {
        Item::Version(v) => v.span,
        Item::Target(t) => t.span,
        Item::AddressSize(a) => a.span,
        Item::File(f) => f.span,
        Item::Section(s) => s.span,
        Item::Var(v) => v.span,
        Item::Function(f) => f.span,
        Item::Pragma(p) => p.span,
        Item::Alias { span, .. } => *span,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(text: &str) -> Vec<usize> {
        let mut r = ItemReader::new(text);
        let mut out = Vec::new();
        while let Some(items) = r.next_items() {
            out.push(items.expect("parses").len());
        }
        out
    }

    #[test]
    fn cuts_after_each_top_level_statement() {
        let text = ".version 8.0\n.target sm_80\n.address_size 64\n\
                    .global .b32 a[2] = {1, 2};\n.global .b32 b;\n\
                    .visible .entry k(.param .u64 p) { ret; }\n.func f() { { ret; } }";
        assert_eq!(runs(text), [4, 1, 1, 1]);
    }

    #[test]
    fn a_stretch_starting_inside_a_character_is_reported() {
        let text = ".global .b8 \u{e9}t\u{e9};";
        let inside = text.find('\u{e9}').unwrap() + 1;
        let mut r = ItemReader::range(text, inside, text.len());
        assert!(matches!(
            r.next_items(),
            Some(Err(RunError::Boundary { .. }))
        ));
        assert!(r.next_items().is_none());
    }

    #[test]
    fn a_run_with_an_error_stops_the_reader() {
        let mut r =
            ItemReader::new(".version 8.0 .target sm_80 .global .b32 a; .entry k() { @ ; }");
        assert!(r.next_items().unwrap().is_ok());
        assert!(matches!(r.next_items(), Some(Err(RunError::Syntax(_)))));
        assert!(r.next_items().is_none());
    }
}
