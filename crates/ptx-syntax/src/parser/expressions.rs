//! Expressions: operand expressions (precedence climbing over the AST) and the constant
//! expressions of address offsets, evaluated as ptxas reads them.

use super::*;

pub(super) fn binary_op(kind: Tok) -> Option<BinaryOp> {
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
pub(super) fn expr(i: &mut Input<'_, '_>) -> PResult<Expr> {
    expr_bp(i, 0)
}

pub(super) fn expr_bp(i: &mut Input<'_, '_>, min_prec: u8) -> PResult<Expr> {
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

pub(super) fn unary(i: &mut Input<'_, '_>) -> PResult<Expr> {
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

pub(super) fn primary(i: &mut Input<'_, '_>) -> PResult<Expr> {
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
            // `WARP_SZ`: the predefined constant (32 threads), an immediate wherever ptxas
            // takes one.
            if t.text == "WARP_SZ" {
                let lit = IntLit {
                    value: 32,
                    unsigned: false,
                };
                return Ok(Expr::Int(Spanned::new(lit, t.span())));
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

/// Binding strength of a binary operator in ptxas's constant expressions (C's table;
/// `<` and `>` are comparisons here).
pub(super) fn cexpr_op(kind: Tok) -> Option<(BinaryOp, u8)> {
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
pub(super) fn cexpr(
    i: &mut Input<'_, '_>,
    issues: &mut Vec<ConstIssue>,
) -> PResult<(ConstValue, Span)> {
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

pub(super) fn cexpr_bp(
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

pub(super) fn cexpr_unary(
    i: &mut Input<'_, '_>,
    issues: &mut Vec<ConstIssue>,
) -> PResult<(ConstValue, Span)> {
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
