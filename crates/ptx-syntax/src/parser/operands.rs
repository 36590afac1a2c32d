//! Operands: registers, names, vector components, predicate pairs, argument lists,
//! addresses (with the address forms ptxas rejects) and operand lists.

use super::*;

pub(super) const COMPONENTS: &[&str] = &[".x", ".y", ".z", ".w", ".r", ".g", ".b", ".a"];

/// A vector component, or a video instruction's byte/half-word mask or selector (`%r1.b20`,
/// `%r2.b3210`, `%r3.h10`).
pub(super) fn is_component(text: &str) -> bool {
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
pub(super) fn pred_pair(a: Name, b: Name, span: Span) -> Operand {
    Operand::PredPair(Box::new(a), Box::new(b), span)
}

/// Reads a plain register or symbol operand (a name followed by `,`, `;` or a closing
/// bracket: `operand`'s fast path) onto the end of `ops`, if one comes next.
///
/// Built in place in the list: an operand returned from `operand` is written through memory
/// at the widths of its fields and read back at vector widths to be pushed, a store-forwarding
/// stall per operand (~8 % of checking a large module, most operands being registers).
#[inline(always)]
pub(super) fn push_plain_name(i: &mut Input<'_, '_>, ops: &mut Vec<Operand>) -> bool {
    let t = peek(i);
    if t.kind == Tok::Ident && ends_operand(peek_nth(i, 1).kind) && t.text != "WARP_SZ" {
        bump(i);
        ops.push(Operand::Name(Name {
            name: small_str(t.text),
            component: None,
            span: t.span(),
        }));
        true
    } else {
        false
    }
}

pub(super) fn operand(i: &mut Input<'_, '_>) -> PResult<Operand> {
    let t = peek(i);
    match t.kind {
        Tok::LBrace => {
            bump(i);
            let mut elems = Vec::with_capacity(4);
            if at(i, Tok::RBrace) {
                // ptxas: `{}` is a syntax error at the `}`.
                return fail(peek(i).span(), "an empty vector `{}`");
            }
            loop {
                if !push_plain_name(i, &mut elems) {
                    elems.push(operand(i)?);
                }
                if !eat(i, Tok::Comma) {
                    break;
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
                    if !push_plain_name(i, &mut elems) {
                        elems.push(operand(i)?);
                    }
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
            if ends_operand(next.kind) && t.text != "WARP_SZ" {
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
pub(super) fn ends_operand(kind: Tok) -> bool {
    matches!(
        kind,
        Tok::Comma | Tok::Semi | Tok::RBracket | Tok::RBrace | Tok::RParen
    )
}

/// `(` starts an argument list (call) unless it encloses an arithmetic expression such as
/// `(1<<3)`; lists hold names, or are empty.
pub(super) fn paren_is_list(i: &Input<'_, '_>) -> bool {
    let next = peek_nth(i, 1);
    matches!(
        next.kind,
        Tok::RParen | Tok::Ident | Tok::Underscore | Tok::LBrace
    ) && !(next.kind == Tok::Ident && binary_op(peek_nth(i, 2).kind).is_some())
}

pub(super) fn operand_expr(i: &mut Input<'_, '_>) -> PResult<Operand> {
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
pub(super) fn address_form(i: &Input<'_, '_>) -> PResult<()> {
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

pub(super) fn address(i: &mut Input<'_, '_>) -> PResult<Operand> {
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

/// Splits `%r`, `%r+8`, `%r+-8`, `%r-8`, `sym+4`, `100` into base and offset.
pub(super) fn base_offset(op: &Operand) -> Option<(Option<Name>, i64)> {
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
pub(super) fn starts_operand(kind: Tok) -> bool {
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

pub(super) fn operand_list(i: &mut Input<'_, '_>) -> PResult<Vec<Operand>> {
    let mut ops = Vec::with_capacity(4);
    if !starts_operand(peek(i).kind) {
        // `ret;`, or a missing `;` that the caller reports.
        return Ok(ops);
    }
    loop {
        if push_plain_name(i, &mut ops) {
            if !eat(i, Tok::Comma) {
                break;
            }
            continue;
        }
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
