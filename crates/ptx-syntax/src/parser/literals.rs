//! Number and string literals.

use super::*;

/// A classified `Number` token.
pub(super) enum Number {
    Int(IntLit),
    Float(FloatLit),
}

pub(super) fn classify_number(t: &Token<'_>) -> PResult<Number> {
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

pub(super) fn uint_literal(i: &mut Input<'_, '_>, what: &str) -> PResult<Spanned<u64>> {
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

pub(super) fn u32_literal(i: &mut Input<'_, '_>, what: &str) -> PResult<Spanned<u32>> {
    let v = uint_literal(i, what)?;
    match u32::try_from(v.value) {
        Ok(x) => Ok(Spanned::new(x, v.span)),
        Err(_) => fail(v.span, format!("{what} {} is too large", v.value)),
    }
}

pub(super) fn string_literal(i: &mut Input<'_, '_>, what: &str) -> PResult<String> {
    let t = expect(i, Tok::String, what)?;
    Ok(unescape(&t.text[1..t.text.len() - 1]))
}

pub(super) fn unescape(s: &str) -> String {
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
