//! The PTX parser: a predictive recursive-descent parser written with winnow over the token
//! slice that [`crate::lexer::lex`] produces.
//!
//! Every function takes `&mut Input` and either consumes what it recognises or fails with a
//! [`PError`] that carries the span and message of the problem. Statement and item loops
//! recover from an error by skipping to the next `;` or `}` at the same nesting depth, so one
//! run reports every syntax error of a file, not only the first.

use crate::ast::*;
use crate::consteval::{self, ConstIssue, ConstValue};
use crate::lexer::{Tok, Token};
use crate::span::{Span, Spanned};
use crate::ParseError;
use ptx_isa::{Flag, PtxVersion, Qualifier, ScalarType, StateSpace, VarType};
use smallvec::SmallVec;
use smol_str::SmolStr;
use winnow::error::{ErrMode, ParserError};
use winnow::stream::{Stream, TokenSlice};

pub(crate) type Input<'t, 's> = TokenSlice<'t, Token<'s>>;
/// Errors are boxed: every parser function returns a `PResult`, and a `Result` as large as a
/// `PError` (80 bytes) would be copied through each `?` on the success path.
type PResult<T> = Result<T, ErrMode<Box<PError>>>;

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

fn fail<T>(span: Span, message: impl Into<String>) -> PResult<T> {
    Err(ErrMode::Cut(Box::new(PError {
        span,
        message: message.into(),
        help: None,
        ptxas: None,
    })))
}

fn fail_help<T>(span: Span, message: impl Into<String>, help: impl Into<String>) -> PResult<T> {
    Err(ErrMode::Cut(Box::new(PError {
        span,
        message: message.into(),
        help: Some(help.into()),
        ptxas: None,
    })))
}

/// How a token is named in messages: its text, or its kind for the end of input.
fn describe(t: &Token<'_>) -> String {
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

fn peek<'t, 's>(i: &Input<'t, 's>) -> &'t Token<'s> {
    // The token slice always ends with Eof, and no parser consumes Eof.
    i.peek_token().expect("the token stream ends with Eof")
}

fn peek_nth<'t, 's>(i: &Input<'t, 's>, n: usize) -> &'t Token<'s> {
    // The rest of the input as a slice: indexing it is a bounds check, where stepping the
    // stream's offset iterator was a loop.
    let rest: &'t [Token<'s>] = i.peek_slice(i.eof_offset());
    rest.get(n).unwrap_or_else(|| peek_last(i))
}

fn peek_last<'t, 's>(i: &Input<'t, 's>) -> &'t Token<'s> {
    i.iter_offsets()
        .next_back()
        .map(|(_, t)| t)
        .expect("the token stream ends with Eof")
}

fn at(i: &Input<'_, '_>, kind: Tok) -> bool {
    peek(i).kind == kind
}

fn at_dot(i: &Input<'_, '_>, text: &str) -> bool {
    let t = peek(i);
    t.kind == Tok::Dot && t.text == text
}

fn bump<'t, 's>(i: &mut Input<'t, 's>) -> &'t Token<'s> {
    let t = peek(i);
    if t.kind != Tok::Eof {
        i.next_token();
    }
    t
}

fn eat(i: &mut Input<'_, '_>, kind: Tok) -> bool {
    if at(i, kind) {
        bump(i);
        true
    } else {
        false
    }
}

fn expect<'t, 's>(i: &mut Input<'t, 's>, kind: Tok, what: &str) -> PResult<&'t Token<'s>> {
    let t = peek(i);
    if t.kind == kind {
        Ok(bump(i))
    } else {
        fail(t.span(), format!("expected {what}, found {}", describe(t)))
    }
}

fn expect_semi(i: &mut Input<'_, '_>, after: &str) -> PResult<Span> {
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

fn name_of(t: &Token<'_>) -> Spanned<SmolStr> {
    Spanned::new(small_str(t.text), t.span())
}

/// A token's text as a `SmolStr`: names and modifiers are nearly always short enough to be
/// stored inline, which `new_inline` copies without a `memcpy` call (a measurable share of
/// parsing a large module).
fn small_str(text: &str) -> SmolStr {
    if text.len() <= 23 {
        SmolStr::new_inline(text)
    } else {
        SmolStr::new(text)
    }
}

fn ident<'t, 's>(i: &mut Input<'t, 's>, what: &str) -> PResult<&'t Token<'s>> {
    expect(i, Tok::Ident, what)
}

// ----------------------------------------------------------------------------------------------
// Literals

/// A classified `Number` token.
enum Number {
    Int(IntLit),
    Float(FloatLit),
}

fn classify_number(t: &Token<'_>) -> PResult<Number> {
    let text = t.text;
    let (body, unsigned) = match text.strip_suffix('U') {
        Some(b) if !b.is_empty() => (b, true),
        _ => (text, false),
    };
    let int = |digits: &str, radix: u32| -> PResult<Number> {
        match u64::from_str_radix(digits, radix) {
            Ok(v) => Ok(Number::Int(IntLit {
                value: v as i128,
                unsigned,
            })),
            Err(e) if matches!(e.kind(), core::num::IntErrorKind::PosOverflow) => fail_help(
                t.span(),
                format!("integer literal `{text}` does not fit in 64 bits"),
                "PTX integer literals are 64-bit",
            ),
            Err(_) => fail(t.span(), format!("invalid number `{text}`")),
        }
    };
    let b = body.as_bytes();
    if b.len() >= 2 && b[0] == b'0' {
        match b[1] {
            b'x' | b'X' => return int(&body[2..], 16),
            b'b' | b'B' => return int(&body[2..], 2),
            b'f' | b'F' if !unsigned => {
                let hex = &body[2..];
                if hex.len() == 8 && hex.bytes().all(|c| c.is_ascii_hexdigit()) {
                    let bits = u32::from_str_radix(hex, 16).expect("8 hex digits");
                    return Ok(Number::Float(FloatLit::F32Bits(bits)));
                }
                return fail_help(
                    t.span(),
                    format!("invalid single-precision literal `{text}`"),
                    "write 0f followed by exactly 8 hex digits, e.g. 0f3F800000 for 1.0",
                );
            }
            b'd' | b'D' if !unsigned => {
                let hex = &body[2..];
                if hex.len() == 16 && hex.bytes().all(|c| c.is_ascii_hexdigit()) {
                    let bits = u64::from_str_radix(hex, 16).expect("16 hex digits");
                    return Ok(Number::Float(FloatLit::F64Bits(bits)));
                }
                return fail_help(
                    t.span(),
                    format!("invalid double-precision literal `{text}`"),
                    "write 0d followed by exactly 16 hex digits, e.g. 0d3FF0000000000000 for 1.0",
                );
            }
            b'0'..=b'9' => {
                if body.bytes().all(|c| (b'0'..=b'7').contains(&c)) {
                    return int(&body[1..], 8);
                }
                return fail_help(
                    t.span(),
                    format!("invalid number `{text}`"),
                    "a leading 0 makes an octal literal, which only has digits 0-7",
                );
            }
            _ => return fail(t.span(), format!("invalid number `{text}`")),
        }
    }
    if body.bytes().all(|c| c.is_ascii_digit()) {
        return int(body, 10);
    }
    fail(t.span(), format!("invalid number `{text}`"))
}

fn uint_literal(i: &mut Input<'_, '_>, what: &str) -> PResult<Spanned<u64>> {
    let t = peek(i);
    if t.kind != Tok::Number {
        return fail(t.span(), format!("expected {what}, found {}", describe(t)));
    }
    match classify_number(t)? {
        Number::Int(lit) => {
            bump(i);
            Ok(Spanned::new(lit.value as u64, t.span()))
        }
        Number::Float(_) => fail(
            t.span(),
            format!("expected {what}, found floating-point `{}`", t.text),
        ),
    }
}

fn u32_literal(i: &mut Input<'_, '_>, what: &str) -> PResult<Spanned<u32>> {
    let v = uint_literal(i, what)?;
    match u32::try_from(v.value) {
        Ok(x) => Ok(Spanned::new(x, v.span)),
        Err(_) => fail(v.span, format!("{what} {} is too large", v.value)),
    }
}

fn string_literal(i: &mut Input<'_, '_>, what: &str) -> PResult<String> {
    let t = expect(i, Tok::String, what)?;
    Ok(unescape(&t.text[1..t.text.len() - 1]))
}

fn unescape(s: &str) -> String {
    if !s.contains('\\') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

// ----------------------------------------------------------------------------------------------
// Expressions (constant expressions and operand expressions)

fn binary_op(kind: Tok) -> Option<BinaryOp> {
    Some(match kind {
        Tok::Star => BinaryOp::Mul,
        Tok::Slash => BinaryOp::Div,
        Tok::Percent => BinaryOp::Rem,
        Tok::Plus => BinaryOp::Add,
        Tok::Minus => BinaryOp::Sub,
        Tok::Shl => BinaryOp::Shl,
        Tok::Shr => BinaryOp::Shr,
        Tok::Amp => BinaryOp::BitAnd,
        Tok::Caret => BinaryOp::BitXor,
        Tok::Pipe => BinaryOp::BitOr,
        Tok::AmpAmp => BinaryOp::And,
        Tok::PipePipe => BinaryOp::Or,
        Tok::Le => BinaryOp::Le,
        Tok::Ge => BinaryOp::Ge,
        Tok::EqEq => BinaryOp::Eq,
        Tok::Ne => BinaryOp::Ne,
        _ => return None,
    })
}

/// Precedence-climbing expression parser. `<` and `>` are not operators here (they delimit
/// register ranges); `<<`, `>>`, `<=` and `>=` are.
fn expr(i: &mut Input<'_, '_>) -> PResult<Expr> {
    expr_bp(i, 0)
}

fn expr_bp(i: &mut Input<'_, '_>, min_prec: u8) -> PResult<Expr> {
    let mut lhs = unary(i)?;
    while let Some(op) = binary_op(peek(i).kind) {
        let prec = op.precedence();
        if prec < min_prec {
            break;
        }
        bump(i);
        let rhs = expr_bp(i, prec + 1)?;
        let span = lhs.span().to(rhs.span());
        lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs), span);
    }
    Ok(lhs)
}

fn unary(i: &mut Input<'_, '_>) -> PResult<Expr> {
    let t = peek(i);
    let op = match t.kind {
        Tok::Minus => UnaryOp::Neg,
        Tok::Plus => UnaryOp::Plus,
        Tok::Bang => UnaryOp::Not,
        Tok::Tilde => UnaryOp::BitNot,
        _ => return primary(i),
    };
    bump(i);
    let inner = unary(i)?;
    let span = t.span().to(inner.span());
    // Fold a minus into the literal it precedes, so `-8` is one literal.
    if op == UnaryOp::Neg {
        match inner {
            Expr::Int(lit) if !lit.value.unsigned || lit.value.value == 0 => {
                return Ok(Expr::Int(Spanned::new(
                    IntLit {
                        value: -lit.value.value,
                        unsigned: lit.value.unsigned,
                    },
                    span,
                )));
            }
            Expr::Float(Spanned {
                value: FloatLit::Decimal(ref text),
                ..
            }) if !text.starts_with('-') => {
                return Ok(Expr::Float(Spanned::new(
                    FloatLit::Decimal(SmolStr::new(format!("-{text}"))),
                    span,
                )));
            }
            _ => {}
        }
    }
    Ok(Expr::Unary(op, Box::new(inner), span))
}

fn primary(i: &mut Input<'_, '_>) -> PResult<Expr> {
    let t = peek(i);
    match t.kind {
        Tok::Number => {
            let n = classify_number(t)?;
            bump(i);
            Ok(match n {
                Number::Int(lit) => Expr::Int(Spanned::new(lit, t.span())),
                Number::Float(f) => Expr::Float(Spanned::new(f, t.span())),
            })
        }
        Tok::DecimalFloat => {
            bump(i);
            Ok(Expr::Float(Spanned::new(
                FloatLit::Decimal(small_str(t.text)),
                t.span(),
            )))
        }
        Tok::Ident => {
            bump(i);
            if at(i, Tok::LParen) {
                // generic(sym) in initializers.
                bump(i);
                let arg = expr(i)?;
                let close = expect(i, Tok::RParen, "`)`")?;
                let span = t.span().to(close.span());
                return Ok(Expr::Call(name_of(t), Box::new(arg), span));
            }
            Ok(Expr::Name(name_of(t)))
        }
        Tok::LParen => {
            bump(i);
            let inner = expr(i)?;
            let close = expect(i, Tok::RParen, "`)`")?;
            Ok(Expr::Paren(Box::new(inner), t.span().to(close.span())))
        }
        _ => fail(
            t.span(),
            format!("expected an expression, found {}", describe(t)),
        ),
    }
}

// ----------------------------------------------------------------------------------------------
// Operands

const COMPONENTS: &[&str] = &[".x", ".y", ".z", ".w", ".r", ".g", ".b", ".a"];

/// A vector component, or a video instruction's byte/half-word mask or selector (`%r1.b20`,
/// `%r2.b3210`, `%r3.h10`).
fn is_component(text: &str) -> bool {
    if COMPONENTS.contains(&text) {
        return true;
    }
    let sel = |rest: &str, max: usize| {
        (1..=max).contains(&rest.len()) && rest.bytes().all(|c| (b'0'..=b'7').contains(&c))
    };
    match text.get(..2) {
        Some(".b") => sel(&text[2..], 4),
        Some(".h") => sel(&text[2..], 2),
        _ => false,
    }
}

/// `a|b` (the names boxed: see [`Operand::PredPair`]).
fn pred_pair(a: Name, b: Name, span: Span) -> Operand {
    Operand::PredPair(Box::new(a), Box::new(b), span)
}

fn operand(i: &mut Input<'_, '_>) -> PResult<Operand> {
    let t = peek(i);
    match t.kind {
        Tok::LBrace => {
            bump(i);
            let mut elems = Vec::with_capacity(4);
            if at(i, Tok::RBrace) {
                // ptxas: `{}` is a syntax error at the `}`.
                return fail(peek(i).span(), "an empty vector `{}`");
            }
            {
                loop {
                    elems.push(operand(i)?);
                    if !eat(i, Tok::Comma) {
                        break;
                    }
                }
            }
            let close = expect(i, Tok::RBrace, "`,` or `}` in a vector operand")?;
            Ok(Operand::Vector(elems, t.span().to(close.span())))
        }
        Tok::LBracket => address(i),
        Tok::Underscore
            if peek_nth(i, 1).kind == Tok::Pipe && peek_nth(i, 2).kind == Tok::Ident =>
        {
            // `_|%p`: a discarded first destination (`elect.sync _|%p, -1`).
            bump(i);
            bump(i);
            let p = bump(i);
            Ok(pred_pair(
                Name {
                    name: "_".into(),
                    component: None,
                    span: t.span(),
                },
                Name {
                    name: p.text.into(),
                    component: None,
                    span: p.span(),
                },
                t.span().to(p.span()),
            ))
        }
        Tok::Underscore => {
            // `_|%p`: a sink for the value part of a `d|p` destination (lop3, setp, shfl...).
            let (pipe, second) = (peek_nth(i, 1), peek_nth(i, 2));
            if pipe.kind == Tok::Pipe && second.kind == Tok::Ident {
                bump(i);
                bump(i);
                bump(i);
                return Ok(pred_pair(
                    Name {
                        name: SmolStr::new("_"),
                        component: None,
                        span: t.span(),
                    },
                    Name {
                        name: small_str(second.text),
                        component: None,
                        span: second.span(),
                    },
                    t.span().to(second.span()),
                ));
            }
            bump(i);
            Ok(Operand::Sink(t.span()))
        }
        Tok::LParen if paren_is_list(i) => {
            bump(i);
            let mut elems = Vec::new();
            if !at(i, Tok::RParen) {
                loop {
                    elems.push(operand(i)?);
                    if !eat(i, Tok::Comma) {
                        break;
                    }
                }
            }
            let close = expect(i, Tok::RParen, "`,` or `)` in an argument list")?;
            Ok(Operand::List(elems, t.span().to(close.span())))
        }
        Tok::Bang => {
            bump(i);
            let inner = operand(i)?;
            let span = t.span().to(inner.span());
            Ok(Operand::Not(Box::new(inner), span))
        }
        Tok::Ident => {
            // A register with a component (`%tid.x`) is a name, never an expression start.
            let next = peek_nth(i, 1);
            if next.kind == Tok::Dot
                && next.start == t.start + t.text.len() as u32
                && is_component(next.text)
            {
                bump(i);
                bump(i);
                return Ok(Operand::Name(Name {
                    name: small_str(t.text),
                    component: Some(small_str(&next.text[1..])),
                    span: t.span().to(next.span()),
                }));
            }
            if next.kind == Tok::Dot && next.text == ".unified" {
                return fail_help(
                    next.span(),
                    format!(
                        "`.unified` after `{}`, which is not a bracketed address",
                        t.text
                    ),
                    format!("write `[{}].unified`", t.text),
                );
            }
            if next.kind == Tok::LBracket {
                // `buf[8]` (an array element), or `%r1 [%rd1]` with its comma missing.
                bump(i);
                let index = address(i)?;
                let span = t.span().to(index.span());
                return Ok(Operand::Indexed(
                    Name {
                        name: small_str(t.text),
                        component: None,
                        span: t.span(),
                    },
                    Box::new(index),
                    span,
                ));
            }
            if next.kind == Tok::Pipe && peek_nth(i, 2).kind == Tok::Underscore {
                // `%p|_`: a sink for the second part of a `p|q` destination.
                let sink = peek_nth(i, 2);
                bump(i);
                bump(i);
                bump(i);
                return Ok(pred_pair(
                    Name {
                        name: small_str(t.text),
                        component: None,
                        span: t.span(),
                    },
                    Name {
                        name: SmolStr::new("_"),
                        component: None,
                        span: sink.span(),
                    },
                    t.span().to(sink.span()),
                ));
            }
            if ends_operand(next.kind) {
                // Fast path: a plain register or symbol (the common case).
                bump(i);
                return Ok(Operand::Name(Name {
                    name: small_str(t.text),
                    component: None,
                    span: t.span(),
                }));
            }
            operand_expr(i)
        }
        Tok::Number if ends_operand(peek_nth(i, 1).kind) => {
            // Fast path: a literal on its own.
            let n = classify_number(t)?;
            bump(i);
            Ok(match n {
                Number::Int(lit) => Operand::Int(Spanned::new(lit, t.span())),
                Number::Float(f) => Operand::Float(Spanned::new(f, t.span())),
            })
        }
        Tok::Number | Tok::DecimalFloat | Tok::Minus | Tok::Plus | Tok::Tilde | Tok::LParen => {
            operand_expr(i)
        }
        _ => fail(
            t.span(),
            format!("expected an operand, found {}", describe(t)),
        ),
    }
}

/// Tokens that can follow a complete operand (so a name or literal before them stands alone).
fn ends_operand(kind: Tok) -> bool {
    matches!(
        kind,
        Tok::Comma | Tok::Semi | Tok::RBracket | Tok::RBrace | Tok::RParen
    )
}

/// `(` starts an argument list (call) unless it encloses an arithmetic expression such as
/// `(1<<3)`; lists hold names, or are empty.
fn paren_is_list(i: &Input<'_, '_>) -> bool {
    let next = peek_nth(i, 1);
    matches!(
        next.kind,
        Tok::RParen | Tok::Ident | Tok::Underscore | Tok::LBrace
    ) && !(next.kind == Tok::Ident && binary_op(peek_nth(i, 2).kind).is_some())
}

fn operand_expr(i: &mut Input<'_, '_>) -> PResult<Operand> {
    let e = expr(i)?;
    Ok(match e {
        Expr::Name(n) => Operand::Name(Name {
            name: n.value,
            component: None,
            span: n.span,
        }),
        Expr::Int(lit) => Operand::Int(lit),
        Expr::Float(f) => Operand::Float(f),
        Expr::Binary(BinaryOp::BitOr, a, b, span) => match (*a, *b) {
            (Expr::Name(a), Expr::Name(b)) => pred_pair(
                Name {
                    name: a.value,
                    component: None,
                    span: a.span,
                },
                Name {
                    name: b.value,
                    component: None,
                    span: b.span,
                },
                span,
            ),
            (a, b) => Operand::Expr(Expr::Binary(
                BinaryOp::BitOr,
                Box::new(a),
                Box::new(b),
                span,
            )),
        },
        other => Operand::Expr(other),
    })
}

/// Rejects the address forms ptxas reports as syntax errors at a given token: `[a-8]` (at
/// `-`), `[a+%r1]` / `[8+%r1]` (at the register or name), `[a*2]` (at the operator).
fn address_form(i: &Input<'_, '_>) -> PResult<()> {
    let base = peek_nth(i, 1);
    if !matches!(base.kind, Tok::Ident | Tok::Number) {
        return Ok(());
    }
    let op = peek_nth(i, 2);
    let bad = match op.kind {
        Tok::Plus => {
            let off = peek_nth(i, 3);
            (off.kind == Tok::Ident).then_some(off)
        }
        Tok::RBracket | Tok::Comma => None,
        Tok::Minus => Some(op),
        kind if binary_op(kind).is_some() => Some(op),
        _ => None,
    };
    match bad {
        Some(t) if t.kind == Tok::Minus => fail_help(
            t.span(),
            "`[a-N]` is not an address form",
            format!("write the offset as `+-N`: `[{}+-…]`", base.text),
        ),
        Some(t) if t.kind == Tok::Ident => fail_help(
            t.span(),
            format!("`{}` cannot be an address offset", t.text),
            "an address is `[reg]`, `[reg+imm]`, `[var]`, `[var+imm]` or `[imm]`; add registers with `add` first",
        ),
        Some(t) => fail_help(
            t.span(),
            format!("`{}` in an address", t.text),
            "an address is `[reg]`, `[reg+imm]`, `[var]`, `[var+imm]` or `[imm]`",
        ),
        None => Ok(()),
    }
}

fn address(i: &mut Input<'_, '_>) -> PResult<Operand> {
    address_form(i)?;
    let open = bump(i);
    // `[[…]]` and `[]`: no bracketed form starts with `[` or is empty; ptxas stops at the
    // token after the `[`.
    let first = peek(i);
    if matches!(first.kind, Tok::LBracket | Tok::RBracket) {
        return fail(
            first.span(),
            format!(
                "`{}` right after `[`: not an address or a bracket list",
                first.text
            ),
        );
    }
    // ptxas's address grammar: `[name]`, `[name+cexpr]` or `[cexpr]`, the offset a constant
    // expression (docs/ptxas-rules.md §7.8); anything else (`[a, b]`) is a bracket list.
    let t = peek(i);
    let simple_base =
        t.kind == Tok::Ident && matches!(peek_nth(i, 1).kind, Tok::RBracket | Tok::Plus);
    let simple_imm = matches!(
        t.kind,
        Tok::Number
            | Tok::DecimalFloat
            | Tok::Minus
            | Tok::Plus
            | Tok::Tilde
            | Tok::Bang
            | Tok::LParen
    );
    if simple_base || simple_imm {
        let mut issues = Vec::new();
        let base = if simple_base {
            bump(i);
            Some(Name {
                name: small_str(t.text),
                component: None,
                span: t.span(),
            })
        } else {
            None
        };
        let offset = if simple_imm || eat(i, Tok::Plus) {
            let (v, span) = cexpr(i, &mut issues)?;
            match v {
                ConstValue::Int { value, .. } => value,
                ConstValue::Float(_) => {
                    issues.push(ConstIssue::NotInteger(span));
                    0
                }
            }
        } else {
            0
        };
        let close = expect(i, Tok::RBracket, "`]` to close the address")?;
        let mut span = open.span().to(close.span());
        let unified = if at_dot(i, ".unified") {
            span = span.to(bump(i).span());
            true
        } else {
            false
        };
        return Ok(Operand::Address(Box::new(Address {
            base,
            offset,
            offset_issues: issues,
            unified,
            span,
        })));
    }
    let mut inner = Vec::new();
    if !at(i, Tok::RBracket) {
        loop {
            inner.push(operand(i)?);
            if !eat(i, Tok::Comma) {
                break;
            }
        }
    }
    let close = expect(i, Tok::RBracket, "`]` to close the address")?;
    let mut span = open.span().to(close.span());
    let unified = if at_dot(i, ".unified") {
        span = span.to(bump(i).span());
        true
    } else {
        false
    };
    if inner.len() == 1 {
        if let Some((base, offset)) = base_offset(&inner[0]) {
            return Ok(Operand::Address(Box::new(Address {
                base,
                offset,
                offset_issues: Vec::new(),
                unified,
                span,
            })));
        }
    }
    if inner.is_empty() {
        return fail(span, "empty address `[]`");
    }
    if unified {
        return fail(
            span,
            "`.unified` only follows a plain address such as `[%rd1+8]`",
        );
    }
    Ok(Operand::Bracket(inner, span))
}

/// Binding strength of a binary operator in ptxas's constant expressions (C's table;
/// `<` and `>` are comparisons here).
fn cexpr_op(kind: Tok) -> Option<(BinaryOp, u8)> {
    Some(match kind {
        Tok::PipePipe => (BinaryOp::Or, 2),
        Tok::AmpAmp => (BinaryOp::And, 3),
        Tok::Pipe => (BinaryOp::BitOr, 4),
        Tok::Caret => (BinaryOp::BitXor, 5),
        Tok::Amp => (BinaryOp::BitAnd, 6),
        Tok::EqEq => (BinaryOp::Eq, 7),
        Tok::Ne => (BinaryOp::Ne, 7),
        Tok::Lt => (BinaryOp::Lt, 8),
        Tok::Gt => (BinaryOp::Gt, 8),
        Tok::Le => (BinaryOp::Le, 8),
        Tok::Ge => (BinaryOp::Ge, 8),
        Tok::Shl => (BinaryOp::Shl, 9),
        Tok::Shr => (BinaryOp::Shr, 9),
        Tok::Plus => (BinaryOp::Add, 10),
        Tok::Minus => (BinaryOp::Sub, 10),
        Tok::Star => (BinaryOp::Mul, 11),
        Tok::Slash => (BinaryOp::Div, 11),
        Tok::Percent => (BinaryOp::Rem, 11),
        _ => return None,
    })
}

/// A constant expression as ptxas reads address offsets: C operators, `?:` included,
/// integer and float literals, parentheses; a name is a syntax error at the name. Evaluated
/// as it is read; division by zero is ptxas's fatal error.
fn cexpr(i: &mut Input<'_, '_>, issues: &mut Vec<ConstIssue>) -> PResult<(ConstValue, Span)> {
    let (c, cspan) = cexpr_bp(i, 2, issues)?;
    if !at(i, Tok::Question) {
        return Ok((c, cspan));
    }
    bump(i);
    let (a, _) = cexpr(i, issues)?;
    expect(i, Tok::Colon, "`:` of `?:`")?;
    let (b, bspan) = cexpr(i, issues)?;
    Ok((consteval::conditional(c, a, b), cspan.to(bspan)))
}

fn cexpr_bp(
    i: &mut Input<'_, '_>,
    min: u8,
    issues: &mut Vec<ConstIssue>,
) -> PResult<(ConstValue, Span)> {
    let (mut lhs, mut span) = cexpr_unary(i, issues)?;
    while let Some((op, prec)) = cexpr_op(peek(i).kind) {
        if prec < min {
            break;
        }
        bump(i);
        let (rhs, rspan) = cexpr_bp(i, prec + 1, issues)?;
        span = span.to(rspan);
        lhs = match consteval::binary(op, lhs, rhs, span, issues) {
            Ok(v) => v,
            Err(_) => {
                return Err(ErrMode::Cut(Box::new(PError {
                    span,
                    message: "division by zero in a constant expression".into(),
                    help: None,
                    ptxas: Some("Constant expression has division by zero".into()),
                })))
            }
        };
    }
    Ok((lhs, span))
}

fn cexpr_unary(i: &mut Input<'_, '_>, issues: &mut Vec<ConstIssue>) -> PResult<(ConstValue, Span)> {
    let t = peek(i);
    let op = match t.kind {
        Tok::Minus => UnaryOp::Neg,
        Tok::Plus => UnaryOp::Plus,
        Tok::Bang => UnaryOp::Not,
        Tok::Tilde => UnaryOp::BitNot,
        Tok::Number => {
            bump(i);
            return Ok((
                match classify_number(t)? {
                    Number::Int(lit) => ConstValue::Int {
                        value: lit.value as i64,
                        unsigned: lit.unsigned,
                    },
                    Number::Float(f) => ConstValue::Float(f.to_f64()),
                },
                t.span(),
            ));
        }
        Tok::DecimalFloat => {
            bump(i);
            return Ok((ConstValue::Float(t.text.parse().unwrap_or(0.0)), t.span()));
        }
        Tok::LParen => {
            bump(i);
            let (v, _) = cexpr(i, issues)?;
            let close = expect(i, Tok::RParen, "`)`")?;
            return Ok((v, t.span().to(close.span())));
        }
        _ => {
            return fail(
                t.span(),
                format!("expected a constant expression, found {}", describe(t)),
            )
        }
    };
    bump(i);
    let (v, span) = cexpr_unary(i, issues)?;
    Ok((consteval::unary(op, v), t.span().to(span)))
}

/// Splits `%r`, `%r+8`, `%r+-8`, `%r-8`, `sym+4`, `100` into base and offset.
fn base_offset(op: &Operand) -> Option<(Option<Name>, i64)> {
    let int = |e: &Expr| match e {
        Expr::Int(lit) => i64::try_from(lit.value.value)
            .ok()
            .or_else(|| u64::try_from(lit.value.value).ok().map(|v| v as i64)),
        _ => None,
    };
    let name = |e: &Expr| match e {
        Expr::Name(n) => Some(Name {
            name: n.value.clone(),
            component: None,
            span: n.span,
        }),
        _ => None,
    };
    match op {
        Operand::Name(n) if n.component.is_none() => Some((Some(n.clone()), 0)),
        Operand::Int(lit) => {
            let v = i64::try_from(lit.value.value)
                .ok()
                .or_else(|| u64::try_from(lit.value.value).ok().map(|v| v as i64))?;
            Some((None, v))
        }
        Operand::Expr(Expr::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b, _)) => {
            let base = name(a)?;
            let off = int(b)?;
            let off = if *op == BinaryOp::Sub {
                off.checked_neg()?
            } else {
                off
            };
            Some((Some(base), off))
        }
        _ => None,
    }
}

/// Tokens that can begin an operand.
fn starts_operand(kind: Tok) -> bool {
    matches!(
        kind,
        Tok::LBrace
            | Tok::LBracket
            | Tok::Underscore
            | Tok::LParen
            | Tok::Bang
            | Tok::Ident
            | Tok::Number
            | Tok::DecimalFloat
            | Tok::Minus
            | Tok::Plus
            | Tok::Tilde
    )
}

fn operand_list(i: &mut Input<'_, '_>) -> PResult<Vec<Operand>> {
    let mut ops = Vec::with_capacity(4);
    if !starts_operand(peek(i).kind) {
        // `ret;`, or a missing `;` that the caller reports.
        return Ok(ops);
    }
    loop {
        let op = operand(i)?;
        if let (Operand::Sink(span), false) = (&op, ops.is_empty()) {
            // ptxas's grammar has `_` only as the first operand (a discarded result) or inside
            // a vector: anywhere else it is a syntax error at the `_`.
            return fail_help(
                *span,
                "`_` (a sink) can only be the first operand or a vector element",
                "write a register or an immediate here",
            );
        }
        ops.push(op);
        if !eat(i, Tok::Comma) {
            break;
        }
    }
    Ok(ops)
}

// ----------------------------------------------------------------------------------------------
// Instructions

fn instruction(i: &mut Input<'_, '_>) -> PResult<Instruction> {
    let first = peek(i);
    let guard = if at(i, Tok::At) {
        bump(i);
        let negated = eat(i, Tok::Bang);
        let p = ident(i, "a predicate register after `@`")?;
        Some(Guard {
            negated,
            predicate: Name {
                name: small_str(p.text),
                component: None,
                span: p.span(),
            },
            span: first.span().to(p.span()),
        })
    } else {
        None
    };
    let opcode = ident(i, "an instruction")?;
    // On the stack: only the typed fields built from them are kept.
    let mut modifiers: SmallVec<[Spanned<&str>; 8]> = SmallVec::new();
    let mut opcode_span = opcode.span();
    while at(i, Tok::Dot) {
        if is_directive_word(peek(i).text) {
            // ptxas's lexer reads these as directives: a syntax error after an opcode.
            return fail(
                peek(i).span(),
                format!("`{}` is a directive, not a modifier", peek(i).text),
            );
        }
        let m = bump(i);
        opcode_span = opcode_span.to(m.span());
        modifiers.push(Spanned::new(m.text, m.span()));
    }
    let mut operands = operand_list(i)?;
    let mut const_issues = Vec::new();
    fold_constants(&mut operands, &mut const_issues)?;
    let end = expect_semi(i, "the instruction")?;
    let op = classify(opcode, &modifiers, operands);
    Ok(Instruction {
        guard,
        op,
        opcode_span,
        span: first.span().to(end),
        const_issues,
    })
}

/// Folds constant-expression operands (`2*8`, `(1<<4)`) into literals, as ptxas evaluates
/// them, and collects what ptxas reports about them and about address offsets, in operand
/// order. Division by zero is fatal.
fn fold_constants(ops: &mut [Operand], issues: &mut Vec<ConstIssue>) -> PResult<()> {
    for op in ops.iter_mut() {
        match op {
            Operand::Address(a) => issues.extend(a.offset_issues.iter().copied()),
            // `!0` is a constant too (not a negated predicate).
            Operand::Not(inner, span) if matches!(**inner, Operand::Int(_)) => {
                if let Operand::Int(lit) = &**inner {
                    *op = Operand::Int(Spanned::new(
                        IntLit {
                            value: (lit.value.value == 0) as i128,
                            unsigned: false,
                        },
                        *span,
                    ));
                }
            }
            Operand::Vector(elems, _) | Operand::List(elems, _) | Operand::Bracket(elems, _) => {
                fold_constants(elems, issues)?
            }
            Operand::Expr(e) => {
                let span = e.span();
                match consteval::eval(e, issues) {
                    Ok(Some(ConstValue::Int { value, unsigned })) => {
                        *op = Operand::Int(Spanned::new(
                            IntLit {
                                value: value as i128,
                                unsigned,
                            },
                            span,
                        ))
                    }
                    Ok(Some(ConstValue::Float(f))) => {
                        *op = Operand::Float(Spanned::new(FloatLit::F64Bits(f.to_bits()), span))
                    }
                    Ok(None) => {}
                    Err(_) => {
                        return Err(ErrMode::Cut(Box::new(PError {
                            span,
                            message: "division by zero in a constant expression".into(),
                            help: None,
                            ptxas: Some("Constant expression has division by zero".into()),
                        })))
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Words ptxas reads as directives or attributes, never as instruction modifiers (measured:
/// `ld.global.reg.u32` is `Parsing error near '.reg'`).
fn is_directive_word(text: &str) -> bool {
    matches!(
        text,
        ".reg"
            | ".unified"
            | ".entry"
            | ".func"
            | ".target"
            | ".file"
            | ".loc"
            | ".section"
            | ".extern"
            | ".visible"
            | ".align"
            | ".maxntid"
            | ".maxnreg"
            | ".pragma"
            | ".ptr"
            | ".common"
            | ".address_size"
            | ".callprototype"
            | ".calltargets"
            | ".branchtargets"
            | ".minnctapersm"
            | ".maxnctapersm"
            | ".reqntid"
            | ".explicitcluster"
            | ".noreturn"
            | ".abi_preserve"
    )
}

/// Records written modifiers in order and hands each known one to `assign`, which returns
/// false when the instruction has no field for it.
fn qualifier_list(
    modifiers: &[Spanned<&str>],
    mut assign: impl FnMut(Spanned<Qualifier>, &mut Vec<Anomaly>) -> bool,
) -> QualifierList {
    let mut list = QualifierList {
        written: Vec::with_capacity(modifiers.len()),
        anomalies: Vec::new(),
    };
    for m in modifiers {
        match Qualifier::from_token(m.value) {
            Some(q) => {
                list.written.push(Spanned::new(Modifier::Known(q), m.span));
                if !assign(Spanned::new(q, m.span), &mut list.anomalies) {
                    list.anomalies
                        .push(Anomaly::NotApplicable(Spanned::new(q, m.span)));
                }
            }
            None => {
                let text = small_str(m.value);
                list.written
                    .push(Spanned::new(Modifier::Unknown(text.clone()), m.span));
                list.anomalies
                    .push(Anomaly::Unknown(Spanned::new(text, m.span)));
            }
        }
    }
    list
}

/// Sets a typed field once; a second qualifier of the same class is a `Repeated` anomaly.
fn set_once<T: Copy>(
    slot: &mut Option<Spanned<T>>,
    value: T,
    q: Spanned<Qualifier>,
    anomalies: &mut Vec<Anomaly>,
) {
    match slot {
        Some(first) => anomalies.push(Anomaly::Repeated {
            first: first.span,
            again: q,
        }),
        None => *slot = Some(Spanned::new(value, q.span)),
    }
}

fn set_flag(slot: &mut Option<Span>, q: Spanned<Qualifier>, anomalies: &mut Vec<Anomaly>) {
    match slot {
        Some(first) => anomalies.push(Anomaly::Repeated {
            first: *first,
            again: q,
        }),
        None => *slot = Some(q.span),
    }
}

fn classify(opcode: &Token<'_>, modifiers: &[Spanned<&str>], operands: Vec<Operand>) -> Op {
    let first_mod = modifiers.first().map(|m| m.value);
    match opcode.text {
        "ld" => Op::Ld(Box::new(load_store(modifiers, operands))),
        "st" => Op::St(Box::new(load_store(modifiers, operands))),
        "cp" if first_mod == Some(".async") => {
            let has = |t: &str| modifiers.iter().any(|m| m.value == t);
            if has(".bulk") {
                generic(opcode, modifiers, operands)
            } else if has(".commit_group") {
                Op::CpAsyncCommitGroup(Box::new(group_op(modifiers, operands)))
            } else if has(".wait_group") {
                Op::CpAsyncWaitGroup(Box::new(group_op(modifiers, operands)))
            } else if has(".wait_all") {
                Op::CpAsyncWaitAll(Box::new(group_op(modifiers, operands)))
            } else if has(".mbarrier") {
                Op::CpAsyncMbarrierArrive(Box::new(mbarrier_arrive(modifiers, operands)))
            } else {
                Op::CpAsync(Box::new(cp_async(modifiers, operands)))
            }
        }
        "createpolicy" => Op::CreatePolicy(Box::new(create_policy(modifiers, operands))),
        "prefetch" | "prefetchu" => Op::Prefetch(Box::new(prefetch(
            opcode.text == "prefetchu",
            modifiers,
            operands,
        ))),
        _ => generic(opcode, modifiers, operands),
    }
}

fn generic(opcode: &Token<'_>, modifiers: &[Spanned<&str>], operands: Vec<Operand>) -> Op {
    Op::Generic(GenericInstruction {
        opcode: name_of(opcode),
        modifiers: modifiers
            .iter()
            .map(|m| Spanned::new(small_str(m.value), m.span))
            .collect(),
        operands,
    })
}

fn load_store(modifiers: &[Spanned<&str>], operands: Vec<Operand>) -> LoadStore {
    let mut ls = LoadStore {
        qualifiers: QualifierList::default(),
        semantics: None,
        mmio: None,
        scope: None,
        space: None,
        cache_op: None,
        nc: None,
        l1_priority: None,
        l2_priority: None,
        cache_hint: None,
        prefetch_size: None,
        vector: None,
        ty: None,
        operands,
    };
    ls.qualifiers = qualifier_list(modifiers, |q, an| {
        match q.value {
            Qualifier::Space(s) => set_once(&mut ls.space, s, q, an),
            Qualifier::Semantics(s) => set_once(&mut ls.semantics, s, q, an),
            Qualifier::Scope(s) => set_once(&mut ls.scope, s, q, an),
            Qualifier::CacheOp(c) => set_once(&mut ls.cache_op, c, q, an),
            Qualifier::L1(p) => set_once(&mut ls.l1_priority, p, q, an),
            Qualifier::L2(p) => set_once(&mut ls.l2_priority, p, q, an),
            Qualifier::Prefetch(p) => set_once(&mut ls.prefetch_size, p, q, an),
            Qualifier::Vector(v) => {
                if ls.ty.is_some() {
                    an.push(Anomaly::VectorAfterType(q.span));
                }
                set_once(&mut ls.vector, v, q, an)
            }
            Qualifier::Type(t) => set_once(&mut ls.ty, t, q, an),
            Qualifier::Flag(Flag::Nc) => set_flag(&mut ls.nc, q, an),
            Qualifier::Flag(Flag::Mmio) => set_flag(&mut ls.mmio, q, an),
            Qualifier::Flag(Flag::CacheHint) => set_flag(&mut ls.cache_hint, q, an),
            _ => return false,
        }
        true
    });
    ls
}

fn cp_async(modifiers: &[Spanned<&str>], operands: Vec<Operand>) -> CpAsync {
    let mut cp = CpAsync {
        qualifiers: QualifierList::default(),
        cache_op: None,
        dst_space: None,
        src_space: None,
        cache_hint: None,
        prefetch_size: None,
        operands,
    };
    let mut seen_async = false;
    cp.qualifiers = qualifier_list(modifiers, |q, an| {
        match q.value {
            Qualifier::Flag(Flag::Async) if !seen_async => seen_async = true,
            Qualifier::CacheOp(c) => set_once(&mut cp.cache_op, c, q, an),
            Qualifier::Space(s) => {
                if cp.dst_space.is_none() {
                    cp.dst_space = Some(Spanned::new(s, q.span));
                } else {
                    set_once(&mut cp.src_space, s, q, an);
                }
            }
            Qualifier::Flag(Flag::CacheHint) => set_flag(&mut cp.cache_hint, q, an),
            Qualifier::Prefetch(p) => set_once(&mut cp.prefetch_size, p, q, an),
            _ => return false,
        }
        true
    });
    cp
}

fn group_op(modifiers: &[Spanned<&str>], operands: Vec<Operand>) -> GroupOp {
    let mut seen = (false, false);
    let qualifiers = qualifier_list(modifiers, |q, _| match q.value {
        Qualifier::Flag(Flag::Async) if !seen.0 => {
            seen.0 = true;
            true
        }
        Qualifier::Flag(Flag::CommitGroup | Flag::WaitGroup | Flag::WaitAll) if !seen.1 => {
            seen.1 = true;
            true
        }
        _ => false,
    });
    GroupOp {
        qualifiers,
        operands,
    }
}

fn mbarrier_arrive(modifiers: &[Spanned<&str>], operands: Vec<Operand>) -> MbarrierArrive {
    let mut mb = MbarrierArrive {
        qualifiers: QualifierList::default(),
        noinc: None,
        space: None,
        ty: None,
        operands,
    };
    let mut seen = [false; 3];
    mb.qualifiers = qualifier_list(modifiers, |q, an| {
        match q.value {
            Qualifier::Flag(Flag::Async) if !seen[0] => seen[0] = true,
            Qualifier::Flag(Flag::Mbarrier) if !seen[1] => seen[1] = true,
            Qualifier::Flag(Flag::Arrive) if !seen[2] => seen[2] = true,
            Qualifier::Flag(Flag::NoInc) => set_flag(&mut mb.noinc, q, an),
            Qualifier::Space(s) => set_once(&mut mb.space, s, q, an),
            Qualifier::Type(t) => set_once(&mut mb.ty, t, q, an),
            _ => return false,
        }
        true
    });
    mb
}

fn create_policy(modifiers: &[Spanned<&str>], operands: Vec<Operand>) -> CreatePolicy {
    let mut cp = CreatePolicy {
        qualifiers: QualifierList::default(),
        kind: None,
        space: None,
        primary: None,
        secondary: None,
        level: None,
        ty: None,
        operands,
    };
    cp.qualifiers = qualifier_list(modifiers, |q, an| {
        match q.value {
            Qualifier::Policy(k) => set_once(&mut cp.kind, k, q, an),
            Qualifier::Space(s) => set_once(&mut cp.space, s, q, an),
            Qualifier::L2(p) => {
                if cp.primary.is_none() {
                    cp.primary = Some(Spanned::new(p, q.span));
                } else {
                    set_once(&mut cp.secondary, p, q, an);
                }
            }
            Qualifier::Level(l) => set_once(&mut cp.level, l, q, an),
            Qualifier::Type(t) => set_once(&mut cp.ty, t, q, an),
            _ => return false,
        }
        true
    });
    cp
}

fn prefetch(uniform: bool, modifiers: &[Spanned<&str>], operands: Vec<Operand>) -> Prefetch {
    let mut p = Prefetch {
        qualifiers: QualifierList::default(),
        uniform,
        space: None,
        level: None,
        l2_priority: None,
        tensormap: None,
        operands,
    };
    p.qualifiers = qualifier_list(modifiers, |q, an| {
        match q.value {
            Qualifier::Space(s) => set_once(&mut p.space, s, q, an),
            Qualifier::Level(l) => set_once(&mut p.level, l, q, an),
            Qualifier::L2(l) => set_once(&mut p.l2_priority, l, q, an),
            Qualifier::Flag(Flag::Tensormap) => set_flag(&mut p.tensormap, q, an),
            _ => return false,
        }
        true
    });
    p
}

// ----------------------------------------------------------------------------------------------
// Declarations

const DECL_SPACES: &[&str] = &[
    ".reg", ".sreg", ".const", ".global", ".local", ".param", ".shared", ".tex",
];

fn is_decl_start(t: &Token<'_>) -> bool {
    t.kind == Tok::Dot
        && (DECL_SPACES.contains(&t.text)
            || t.text.starts_with(".shared::")
            || t.text.starts_with(".param::")
            || Linkage::from_token(t.text).is_some())
}

fn linkages(i: &mut Input<'_, '_>) -> Vec<Spanned<Linkage>> {
    let mut out = Vec::new();
    while peek(i).kind == Tok::Dot {
        match Linkage::from_token(peek(i).text) {
            Some(l) => out.push(Spanned::new(l, bump(i).span())),
            None => break,
        }
    }
    out
}

fn state_space(t: &Token<'_>) -> Option<StateSpace> {
    match StateSpace::from_token(t.text) {
        Some(s) if t.kind == Tok::Dot => Some(s),
        _ => None,
    }
}

/// A variable declaration after its linkage: `.space {.align N} {.vN} .type declarators ;`.
fn var_decl(
    i: &mut Input<'_, '_>,
    linkage: Vec<Spanned<Linkage>>,
    start: Span,
) -> PResult<VarDecl> {
    let t = peek(i);
    let space = match state_space(t) {
        Some(s) => Spanned::new(s, bump(i).span()),
        None => {
            return fail_help(
                t.span(),
                format!("expected a state space, found {}", describe(t)),
                "declarations start with .reg, .shared, .global, .local, .const or .param",
            )
        }
    };
    let mut attributes = Vec::new();
    let mut align = None;
    let mut vector = None;
    let mut ty = None;
    while at(i, Tok::Dot) {
        let t = bump(i);
        match t.text {
            ".align" => align = Some(uint_literal(i, "an alignment after .align")?),
            ".attribute" => {
                expect(i, Tok::LParen, "`(` after .attribute")?;
                while at(i, Tok::Dot) {
                    attributes.push(name_of(bump(i)));
                    eat(i, Tok::Comma);
                }
                expect(i, Tok::RParen, "`)` to close .attribute")?;
            }
            ".ptr" => {}
            text => {
                if let Some(v) = ptx_isa::VectorWidth::from_token(text) {
                    vector = Some(Spanned::new(v, t.span()));
                } else if let Some(vt) = VarType::from_token(text) {
                    ty = Some(Spanned::new(vt, t.span()));
                } else {
                    return fail(
                        t.span(),
                        format!("unknown modifier `{text}` in a {} declaration", space.value),
                    );
                }
            }
        }
    }
    let Some(ty) = ty else {
        let t = peek(i);
        return fail_help(
            t.span(),
            format!(
                "expected a type in the {} declaration, found {}",
                space.value,
                describe(t)
            ),
            "write the type before the name, e.g. `.reg .b32 %r<4>;`",
        );
    };
    let mut declarators = Vec::new();
    loop {
        declarators.push(declarator(i)?);
        if !eat(i, Tok::Comma) {
            break;
        }
    }
    let end = expect_semi(i, "the declaration")?;
    Ok(VarDecl {
        linkage,
        space,
        attributes,
        align,
        vector,
        ty,
        declarators,
        span: start.to(end),
    })
}

fn declarator(i: &mut Input<'_, '_>) -> PResult<Declarator> {
    let t = peek(i);
    let name = match t.kind {
        Tok::Ident | Tok::Underscore => name_of(bump(i)),
        _ => {
            return fail(
                t.span(),
                format!("expected a name to declare, found {}", describe(t)),
            )
        }
    };
    let mut span = name.span;
    let mut range = None;
    if at(i, Tok::Lt) {
        bump(i);
        range = Some(u32_literal(i, "a register count in `<N>`")?.value);
        span = span.to(expect(i, Tok::Gt, "`>` to close the register range")?.span());
    }
    let dims = dimensions(i, &mut span)?;
    let init = if eat(i, Tok::Eq) {
        let init = initializer(i)?;
        span = span.to(init_span(&init));
        Some(init)
    } else {
        None
    };
    Ok(Declarator {
        name,
        range,
        dims,
        init,
        span,
    })
}

fn dimensions(i: &mut Input<'_, '_>, span: &mut Span) -> PResult<Vec<Option<u64>>> {
    let mut dims = Vec::new();
    while at(i, Tok::LBracket) {
        bump(i);
        if at(i, Tok::RBracket) {
            dims.push(None);
        } else {
            dims.push(Some(uint_literal(i, "an array size")?.value));
        }
        *span = span.to(expect(i, Tok::RBracket, "`]` to close the array size")?.span());
    }
    Ok(dims)
}

fn init_span(init: &Initializer) -> Span {
    match init {
        Initializer::Expr(e) => e.span(),
        Initializer::List(_, s) => *s,
    }
}

fn initializer(i: &mut Input<'_, '_>) -> PResult<Initializer> {
    if at(i, Tok::LBrace) {
        let open = bump(i);
        let mut items = Vec::new();
        if !at(i, Tok::RBrace) {
            loop {
                items.push(initializer(i)?);
                if !eat(i, Tok::Comma) {
                    break;
                }
            }
        }
        let close = expect(i, Tok::RBrace, "`,` or `}` in the initializer")?;
        Ok(Initializer::List(items, open.span().to(close.span())))
    } else {
        Ok(Initializer::Expr(expr(i)?))
    }
}

/// A parameter: `.param .u64 .ptr .global .align 16 name`, `.param .align 8 .b8 p[16]`,
/// `.reg .b32 x`.
fn param(i: &mut Input<'_, '_>) -> PResult<Param> {
    let t = peek(i);
    let space = match state_space(t) {
        Some(s @ (StateSpace::Param | StateSpace::Reg)) => Spanned::new(s, bump(i).span()),
        _ => {
            return fail_help(
                t.span(),
                format!("expected a parameter, found {}", describe(t)),
                "parameters are declared as `.param .TYPE name` or `.reg .TYPE name`",
            )
        }
    };
    let mut align = None;
    let mut ty = None;
    let mut ptr: Option<PtrAttribute> = None;
    while at(i, Tok::Dot) {
        let t = bump(i);
        match t.text {
            ".align" => {
                let a = u32_literal(i, "an alignment after .align")?.value;
                match ptr.as_mut() {
                    Some(p) => p.align = Some(a),
                    None => align = Some(a),
                }
            }
            ".ptr" => {
                ptr = Some(PtrAttribute {
                    space: None,
                    align: None,
                })
            }
            text => {
                if let (Some(p), Some(s)) = (ptr.as_mut(), StateSpace::from_token(text)) {
                    p.space = Some(s);
                } else if let Some(st) = ScalarType::from_token(text) {
                    ty = Some(Spanned::new(st, t.span()));
                } else {
                    return fail(
                        t.span(),
                        format!("unknown modifier `{text}` in a parameter"),
                    );
                }
            }
        }
    }
    let Some(ty) = ty else {
        let t = peek(i);
        return fail(
            t.span(),
            format!("expected the parameter's type, found {}", describe(t)),
        );
    };
    let n = peek(i);
    let name = match n.kind {
        Tok::Ident | Tok::Underscore => name_of(bump(i)),
        _ => {
            return fail(
                n.span(),
                format!("expected the parameter's name, found {}", describe(n)),
            )
        }
    };
    let mut span = space.span.to(name.span);
    let dims = dimensions(i, &mut span)?;
    Ok(Param {
        space,
        align,
        ty,
        ptr,
        name,
        dims,
        span,
    })
}

fn param_list(i: &mut Input<'_, '_>) -> PResult<Vec<Param>> {
    expect(i, Tok::LParen, "`(`")?;
    let mut params = Vec::new();
    if !at(i, Tok::RParen) {
        loop {
            params.push(param(i)?);
            if !eat(i, Tok::Comma) {
                break;
            }
        }
    }
    expect(i, Tok::RParen, "`,` or `)` after a parameter")?;
    Ok(params)
}

// ----------------------------------------------------------------------------------------------
// Functions and statements

/// The errors found while parsing, shared by the recovering loops.
struct Errors<'e> {
    list: &'e mut Vec<ParseError>,
}

impl Errors<'_> {
    /// Records an error unless it repeats the previous one (an unclosed `{` is reported by
    /// every enclosing block at the same place).
    fn push(&mut self, e: PError) {
        push_error(self.list, e);
    }
}

fn push_error(list: &mut Vec<ParseError>, e: PError) {
    if let Some(last) = list.last() {
        if last.span.same_range(e.span) && last.message == e.message {
            return;
        }
    }
    list.push(e.into());
}

const MAX_ERRORS: usize = 200;

fn block_recovering(i: &mut Input<'_, '_>, errors: &mut Errors<'_>) -> PResult<Block> {
    let open = expect(i, Tok::LBrace, "`{`")?;
    let mut statements = Vec::with_capacity(statement_estimate(i));
    loop {
        let t = peek(i);
        match t.kind {
            Tok::RBrace => {
                let close = bump(i);
                return Ok(Block {
                    statements,
                    span: open.span().to(close.span()),
                });
            }
            Tok::Eof => {
                return fail_help(
                    t.span(),
                    "unexpected end of file: a `{` is not closed",
                    format!(
                        "the block opened at byte {} needs a matching `}}`",
                        open.start
                    ),
                )
            }
            _ => {}
        }
        let checkpoint = i.checkpoint();
        match statement(i, errors) {
            Ok(Some(s)) => statements.push(s),
            Ok(None) => {}
            Err(ErrMode::Cut(e)) | Err(ErrMode::Backtrack(e)) => {
                errors.push(*e);
                if errors.list.len() >= MAX_ERRORS {
                    return fail(peek(i).span(), "too many errors; stopping");
                }
                i.reset(&checkpoint);
                recover_statement(i);
            }
            Err(ErrMode::Incomplete(_)) => unreachable!("complete input"),
        }
    }
}

/// How many statements the block that starts at `i` (after its `{`) holds, counted as its
/// `;` and `:` at depth 0 within the next 64 Ki tokens, so that the statement vector is
/// allocated once instead of doubling (a `Statement` is a few hundred bytes, and each doubling
/// copies them all). The bound keeps deeply nested input linear; past it the vector grows.
fn statement_estimate(i: &Input<'_, '_>) -> usize {
    let mut depth = 0usize;
    let mut count = 0usize;
    let rest: &[Token<'_>] = i;
    for t in &rest[..rest.len().min(1 << 16)] {
        match t.kind {
            Tok::LBrace => depth += 1,
            Tok::RBrace if depth == 0 => break,
            Tok::RBrace => depth -= 1,
            Tok::Semi | Tok::Colon if depth == 0 => count += 1,
            _ => {}
        }
    }
    count
}

/// Skips to just after the next `;` at this nesting depth, or to the `}` that closes it.
fn recover_statement(i: &mut Input<'_, '_>) {
    let mut depth = 0usize;
    loop {
        let t = peek(i);
        match t.kind {
            Tok::Eof => return,
            Tok::Semi if depth == 0 => {
                bump(i);
                return;
            }
            Tok::LBrace => depth += 1,
            Tok::RBrace => {
                if depth == 0 {
                    // The enclosing block's `}`: leave it for the block to close.
                    return;
                }
                depth -= 1;
                if depth == 0 {
                    bump(i);
                    return;
                }
            }
            _ => {}
        }
        bump(i);
    }
}

fn statement(i: &mut Input<'_, '_>, errors: &mut Errors<'_>) -> PResult<Option<Statement>> {
    let t = peek(i);
    match t.kind {
        Tok::Semi => {
            bump(i);
            Ok(None)
        }
        Tok::LBrace => Ok(Some(Statement::Block(block_recovering(i, errors)?))),
        Tok::Dot => match t.text {
            ".loc" => Ok(Some(Statement::Loc(loc(i)?))),
            ".pragma" => Ok(Some(Statement::Pragma(pragma(i)?))),
            _ if is_decl_start(t) => {
                let linkage = linkages(i);
                Ok(Some(Statement::Var(var_decl(i, linkage, t.span())?)))
            }
            _ => fail_help(
                t.span(),
                format!("unknown directive `{}`", t.text),
                "inside a function body only declarations (.reg .shared .local .param …), \
                 .loc, .pragma, labels and instructions may appear",
            ),
        },
        Tok::Ident if peek_nth(i, 1).kind == Tok::Colon => {
            let label = name_of(bump(i));
            bump(i);
            if at_dot(i, ".callprototype") {
                return Ok(Some(call_prototype(i, label)?));
            }
            Ok(Some(Statement::Label(label)))
        }
        Tok::Ident | Tok::At => Ok(Some(Statement::Instruction(instruction(i)?))),
        _ => fail(
            t.span(),
            format!(
                "expected an instruction, a label or a directive, found {}",
                describe(t)
            ),
        ),
    }
}

fn call_prototype(i: &mut Input<'_, '_>, label: Spanned<SmolStr>) -> PResult<Statement> {
    bump(i);
    let returns = if at(i, Tok::LParen) {
        Some(param_list(i)?)
    } else {
        None
    };
    expect(i, Tok::Underscore, "`_` in the call prototype")?;
    let params = if at(i, Tok::LParen) {
        param_list(i)?
    } else {
        Vec::new()
    };
    let noreturn = if at_dot(i, ".noreturn") {
        bump(i);
        true
    } else {
        false
    };
    let end = expect_semi(i, "the call prototype")?;
    Ok(Statement::CallPrototype {
        span: label.span.to(end),
        label,
        returns,
        params,
        noreturn,
    })
}

fn loc(i: &mut Input<'_, '_>) -> PResult<Loc> {
    let start = bump(i).span();
    let file = u32_literal(i, "a file number after .loc")?.value;
    let line = u32_literal(i, "a line number")?.value;
    let column = u32_literal(i, "a column number")?;
    let mut span = start.to(column.span);
    let mut function_name = None;
    let mut inlined_at = None;
    while at(i, Tok::Comma) {
        bump(i);
        let key = ident(i, "`function_name` or `inlined_at`")?;
        match key.text {
            "function_name" => {
                let e = expr(i)?;
                span = span.to(e.span());
                function_name = Some(e);
            }
            "inlined_at" => {
                let f = u32_literal(i, "a file number")?.value;
                let l = u32_literal(i, "a line number")?.value;
                let c = u32_literal(i, "a column number")?;
                span = span.to(c.span);
                inlined_at = Some((f, l, c.value));
            }
            other => {
                return fail(
                    key.span(),
                    format!(
                        "unknown .loc attribute `{other}` (expected function_name or inlined_at)"
                    ),
                )
            }
        }
    }
    Ok(Loc {
        file,
        line,
        column: column.value,
        function_name,
        inlined_at,
        span,
    })
}

fn pragma(i: &mut Input<'_, '_>) -> PResult<Pragma> {
    let start = bump(i).span();
    let mut strings = vec![string_literal(i, "a string after .pragma")?];
    while eat(i, Tok::Comma) {
        strings.push(string_literal(i, "a string")?);
    }
    let end = expect_semi(i, ".pragma")?;
    Ok(Pragma {
        strings,
        span: start.to(end),
    })
}

// ----------------------------------------------------------------------------------------------
// Module-level directives

fn version(i: &mut Input<'_, '_>) -> PResult<Item> {
    let start = bump(i).span();
    let t = peek(i);
    let v = match t.kind {
        Tok::DecimalFloat => PtxVersion::parse(t.text),
        _ => None,
    };
    match v {
        Some(v) => {
            bump(i);
            Ok(Item::Version(Spanned::new(v, start.to(t.span()))))
        }
        None => fail_help(
            t.span(),
            format!(
                "expected a version such as 8.3 after .version, found {}",
                describe(t)
            ),
            "write `.version MAJOR.MINOR`",
        ),
    }
}

fn target(i: &mut Input<'_, '_>) -> PResult<Item> {
    let start = bump(i).span();
    let mut entries = vec![name_of(ident(i, "a target such as sm_80 after .target")?)];
    while eat(i, Tok::Comma) {
        entries.push(name_of(ident(i, "a target option")?));
    }
    let span = start.to(entries.last().expect("one entry").span);
    Ok(Item::Target(TargetDirective { entries, span }))
}

fn file(i: &mut Input<'_, '_>) -> PResult<Item> {
    let start = bump(i).span();
    let index = u32_literal(i, "a file number after .file")?.value;
    let path_tok = peek(i);
    let path = string_literal(i, "a file name in quotes")?;
    let mut span = start.to(path_tok.span());
    let mut extra = Vec::new();
    while eat(i, Tok::Comma) {
        let v = uint_literal(i, "a timestamp or size")?;
        span = span.to(v.span);
        extra.push(v.value);
    }
    Ok(Item::File(FileDirective {
        index,
        path,
        extra,
        span,
    }))
}

fn section(i: &mut Input<'_, '_>) -> PResult<Item> {
    let start = bump(i).span();
    let n = peek(i);
    let name = match n.kind {
        Tok::Dot | Tok::Ident => name_of(bump(i)),
        _ => {
            return fail(
                n.span(),
                format!("expected a section name, found {}", describe(n)),
            )
        }
    };
    expect(i, Tok::LBrace, "`{` to open the section")?;
    let mut entries = Vec::new();
    loop {
        let t = peek(i);
        match t.kind {
            Tok::RBrace => {
                let end = bump(i).span();
                return Ok(Item::Section(Section {
                    name,
                    entries,
                    span: start.to(end),
                }));
            }
            Tok::Ident if peek_nth(i, 1).kind == Tok::Colon => {
                entries.push(SectionEntry::Label(name_of(bump(i))));
                bump(i);
            }
            Tok::Dot => {
                let Some(ty) = ScalarType::from_token(t.text) else {
                    return fail(
                        t.span(),
                        format!(
                            "expected a data directive such as .b8 in the section, found `{}`",
                            t.text
                        ),
                    );
                };
                bump(i);
                let mut values = vec![section_value(i)?];
                while eat(i, Tok::Comma) {
                    values.push(section_value(i)?);
                }
                let span = t.span().to(values.last().expect("one value").span());
                entries.push(SectionEntry::Data {
                    ty: Spanned::new(ty, t.span()),
                    values,
                    span,
                });
            }
            Tok::Eof => return fail(t.span(), "unexpected end of file inside a .section block"),
            _ => {
                return fail(
                    t.span(),
                    format!(
                        "expected a label, a data directive or `}}` in the section, found {}",
                        describe(t)
                    ),
                )
            }
        }
    }
}

/// A value in section data: an expression whose names may be section names
/// (`.b32 .debug_abbrev`, `.b32 .debug_loc+133`).
fn section_value(i: &mut Input<'_, '_>) -> PResult<Expr> {
    if !at(i, Tok::Dot) {
        return expr(i);
    }
    let mut lhs = Expr::Name(name_of(bump(i)));
    while let Some(op @ (BinaryOp::Add | BinaryOp::Sub)) = binary_op(peek(i).kind) {
        bump(i);
        let rhs = expr_bp(i, op.precedence() + 1)?;
        let span = lhs.span().to(rhs.span());
        lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs), span);
    }
    Ok(lhs)
}

fn item(i: &mut Input<'_, '_>, errors: &mut Errors<'_>) -> PResult<Option<Item>> {
    let t = peek(i);
    if t.kind == Tok::Semi {
        bump(i);
        return Ok(None);
    }
    if t.kind != Tok::Dot {
        return fail_help(
            t.span(),
            format!("expected a directive, found {}", describe(t)),
            "a module is made of directives: .version, .target, .address_size, declarations, \
             .entry and .func",
        );
    }
    Ok(Some(match t.text {
        ".version" => version(i)?,
        ".target" => target(i)?,
        ".address_size" => {
            let start = bump(i).span();
            let v = u32_literal(i, "32 or 64 after .address_size")?;
            Item::AddressSize(Spanned::new(v.value, start.to(v.span)))
        }
        ".file" => file(i)?,
        ".section" => section(i)?,
        ".pragma" => Item::Pragma(pragma(i)?),
        ".alias" => {
            let start = bump(i).span();
            let alias = name_of(ident(i, "a name")?);
            expect(i, Tok::Comma, "`,`")?;
            let aliasee = name_of(ident(i, "a name")?);
            let end = expect_semi(i, ".alias")?;
            Item::Alias {
                alias,
                aliasee,
                span: start.to(end),
            }
        }
        _ if is_decl_start(t) || t.text == ".entry" || t.text == ".func" => {
            let linkage = linkages(i);
            let k = peek(i);
            if k.kind == Tok::Dot && (k.text == ".entry" || k.text == ".func") {
                Item::Function(function_recovering(i, linkage, t.span(), errors)?)
            } else {
                Item::Var(var_decl(i, linkage, t.span())?)
            }
        }
        _ => {
            return fail_help(
                t.span(),
                format!("unknown directive `{}`", t.text),
                "expected .version, .target, .address_size, .file, .section, .entry, .func or a \
                 variable declaration",
            )
        }
    }))
}

/// Like [`function`], but statement errors inside the body are collected, not fatal.
fn function_recovering(
    i: &mut Input<'_, '_>,
    linkage: Vec<Spanned<Linkage>>,
    start: Span,
    errors: &mut Errors<'_>,
) -> PResult<Function> {
    let (mut f, has_body) = function_header(i, linkage, start)?;
    if has_body {
        let body = block_recovering(i, errors)?;
        f.span = start.to(body.span);
        f.body = Some(body);
    }
    Ok(f)
}

/// Parses a function up to its body; returns whether a body (`{`) follows.
fn function_header(
    i: &mut Input<'_, '_>,
    linkage: Vec<Spanned<Linkage>>,
    start: Span,
) -> PResult<(Function, bool)> {
    let k = bump(i);
    let kind = Spanned::new(
        if k.text == ".entry" {
            FunctionKind::Entry
        } else {
            FunctionKind::Func
        },
        k.span(),
    );
    let returns = if kind.value == FunctionKind::Func && at(i, Tok::LParen) {
        Some(param_list(i)?)
    } else {
        None
    };
    let name = name_of(ident(i, "the function's name")?);
    let params = if at(i, Tok::LParen) {
        Some(param_list(i)?)
    } else {
        None
    };
    let directives = function_directives(i)?;
    let mut f = Function {
        linkage,
        kind,
        returns,
        name,
        params,
        directives,
        body: None,
        span: start,
    };
    if at(i, Tok::LBrace) {
        Ok((f, true))
    } else {
        f.span = start.to(expect_semi(i, "the function declaration")?);
        Ok((f, false))
    }
}

fn function_directives(i: &mut Input<'_, '_>) -> PResult<Vec<FunctionDirective>> {
    let mut directives = Vec::new();
    while at(i, Tok::Dot) {
        let t = peek(i);
        if t.text == ".pragma" {
            directives.push(FunctionDirective::Pragma(pragma(i)?));
            continue;
        }
        let Some(&(_, min, max)) = FUNCTION_DIRECTIVES.iter().find(|d| d.0 == t.text) else {
            return fail_help(
                t.span(),
                format!("unknown directive `{}` in the function header", t.text),
                "expected `{`, `;` or one of .maxntid .reqntid .minnctapersm .maxnreg \
                 .maxclusterrank .reqnctapercluster .explicitcluster .noreturn .pragma",
            );
        };
        bump(i);
        let mut values = Vec::new();
        let mut span = t.span();
        if max > 0 && at(i, Tok::Number) {
            loop {
                let v = uint_literal(i, "a value")?;
                span = span.to(v.span);
                values.push(v.value);
                if values.len() >= max || !eat(i, Tok::Comma) {
                    break;
                }
            }
        }
        if values.len() < min {
            let n = peek(i);
            return fail(
                n.span(),
                format!("`{}` needs a value, found {}", t.text, describe(n)),
            );
        }
        directives.push(FunctionDirective::Tuning {
            name: name_of(t),
            values,
            span,
        });
    }
    Ok(directives)
}

/// Skips to the start of the next top-level item after an error.
fn recover_item(i: &mut Input<'_, '_>) {
    let mut depth = 0usize;
    bump(i);
    loop {
        let t = peek(i);
        match t.kind {
            Tok::Eof => return,
            Tok::LBrace => depth += 1,
            Tok::RBrace => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    bump(i);
                    return;
                }
            }
            Tok::Semi if depth == 0 => {
                bump(i);
                return;
            }
            Tok::Dot if depth == 0 && starts_item(t.text) => return,
            _ => {}
        }
        bump(i);
    }
}

fn starts_item(text: &str) -> bool {
    matches!(
        text,
        ".version"
            | ".target"
            | ".address_size"
            | ".file"
            | ".section"
            | ".visible"
            | ".extern"
            | ".weak"
            | ".common"
            | ".entry"
            | ".func"
            | ".global"
            | ".const"
    )
}

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
