//! The token cursor every parser function reads through (`peek`/`bump`/`eat`/`expect`), and
//! the parse error type with its constructors.

use super::*;

pub(crate) type Input<'t, 's> = TokenSlice<'t, Token<'s>>;
/// Errors are boxed: every parser function returns a `PResult`, and a `Result` as large as a
/// `PError` (80 bytes) would be copied through each `?` on the success path.
pub(super) type PResult<T> = Result<T, ErrMode<Box<PError>>>;

/// A parse failure: where and why.
#[derive(Debug, Clone)]
pub(crate) struct PError {
    pub span: Span,
    pub message: String,
    pub help: Option<String>,
    pub ptxas: Option<String>,
}

impl<'t, 's> ParserError<Input<'t, 's>> for Box<PError> {
    type Inner = Self;

    fn from_input(input: &Input<'t, 's>) -> Self {
        let t = peek(input);
        Box::new(PError {
            span: t.span(),
            message: format!("unexpected {}", describe(t)),
            help: None,
            ptxas: None,
        })
    }

    fn into_inner(self) -> Result<Self::Inner, Self> {
        Ok(self)
    }
}

impl From<PError> for ParseError {
    fn from(e: PError) -> Self {
        ParseError {
            span: e.span,
            message: e.message,
            help: e.help,
            ptxas: e.ptxas,
        }
    }
}

pub(super) fn fail<T>(span: Span, message: impl Into<String>) -> PResult<T> {
    Err(ErrMode::Cut(Box::new(PError {
        span,
        message: message.into(),
        help: None,
        ptxas: None,
    })))
}

pub(super) fn fail_help<T>(
    span: Span,
    message: impl Into<String>,
    help: impl Into<String>,
) -> PResult<T> {
    Err(ErrMode::Cut(Box::new(PError {
        span,
        message: message.into(),
        help: Some(help.into()),
        ptxas: None,
    })))
}

/// How a token is named in messages: its text, or its kind for the end of input.
pub(super) fn describe(t: &Token<'_>) -> String {
    match t.kind {
        Tok::Eof => "end of file".to_string(),
        Tok::UnterminatedComment => "unterminated comment (`/*` without `*/`)".to_string(),
        Tok::UnterminatedString => "unterminated string".to_string(),
        Tok::Error => format!("character `{}`", t.text.escape_debug()),
        _ => {
            let text: String = t.text.chars().take(40).collect();
            let more = if t.text.chars().count() > 40 {
                "…"
            } else {
                ""
            };
            format!("`{text}{more}`")
        }
    }
}

#[inline]
pub(super) fn peek<'t, 's>(i: &Input<'t, 's>) -> &'t Token<'s> {
    // The token slice always ends with Eof, and no parser consumes Eof.
    i.peek_token().expect("the token stream ends with Eof")
}

#[inline]
pub(super) fn peek_nth<'t, 's>(i: &Input<'t, 's>, n: usize) -> &'t Token<'s> {
    // The rest of the input as a slice: indexing it is a bounds check, where stepping the
    // stream's offset iterator was a loop.
    let rest: &'t [Token<'s>] = i.peek_slice(i.eof_offset());
    rest.get(n).unwrap_or_else(|| peek_last(i))
}

#[inline]
pub(super) fn peek_last<'t, 's>(i: &Input<'t, 's>) -> &'t Token<'s> {
    i.iter_offsets()
        .next_back()
        .map(|(_, t)| t)
        .expect("the token stream ends with Eof")
}

#[inline]
pub(super) fn at(i: &Input<'_, '_>, kind: Tok) -> bool {
    peek(i).kind == kind
}

#[inline]
pub(super) fn at_dot(i: &Input<'_, '_>, text: &str) -> bool {
    let t = peek(i);
    t.kind == Tok::Dot && t.text == text
}

#[inline]
pub(super) fn bump<'t, 's>(i: &mut Input<'t, 's>) -> &'t Token<'s> {
    let t = peek(i);
    if t.kind != Tok::Eof {
        i.next_token();
    }
    t
}

#[inline]
pub(super) fn eat(i: &mut Input<'_, '_>, kind: Tok) -> bool {
    if at(i, kind) {
        bump(i);
        true
    } else {
        false
    }
}

pub(super) fn expect<'t, 's>(
    i: &mut Input<'t, 's>,
    kind: Tok,
    what: &str,
) -> PResult<&'t Token<'s>> {
    let t = peek(i);
    if t.kind == kind {
        Ok(bump(i))
    } else {
        fail(t.span(), format!("expected {what}, found {}", describe(t)))
    }
}

pub(super) fn expect_semi(i: &mut Input<'_, '_>, after: &str) -> PResult<Span> {
    let t = peek(i);
    if t.kind == Tok::Semi {
        Ok(bump(i).span())
    } else {
        fail_help(
            t.span(),
            format!("expected `;` after {after}, found {}", describe(t)),
            "every PTX statement ends with `;`",
        )
    }
}

#[inline]
pub(super) fn name_of(t: &Token<'_>) -> Spanned<SmolStr> {
    Spanned::new(small_str(t.text), t.span())
}

/// A token's text as a `SmolStr`: names and modifiers are nearly always short enough to be
/// stored inline.
///
/// The inline copy is made at a length known at compile time (one `match` arm per length):
/// `new_inline` on a slice of unknown length calls `memcpy` into a stack buffer that is then
/// read back with wider loads, a store-forwarding stall per name that was ~5 % of checking a
/// large module. At a constant length the bytes go through registers; inlined, so that the
/// result is stored where the caller keeps it, not returned through memory.
#[inline(always)]
pub(super) fn small_str(text: &str) -> SmolStr {
    macro_rules! by_length {
        ($($n:literal)*) => {
            match text.len() {
                $($n => SmolStr::new_inline(&text[..$n]),)*
                _ => SmolStr::new(text),
            }
        };
    }
    by_length!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23)
}

pub(super) fn ident<'t, 's>(i: &mut Input<'t, 's>, what: &str) -> PResult<&'t Token<'s>> {
    expect(i, Tok::Ident, what)
}
