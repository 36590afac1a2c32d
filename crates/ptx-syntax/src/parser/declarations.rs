//! Declarations: variables (space, alignment, vector, type, declarators, initializers) and
//! parameter lists.

use super::*;

pub(super) const DECL_SPACES: &[&str] = &[
    ".reg", ".sreg", ".const", ".global", ".local", ".param", ".shared", ".tex",
];

pub(super) fn is_decl_start(t: &Token<'_>) -> bool {
    t.kind == Tok::Dot
        && (DECL_SPACES.contains(&t.text)
            || t.text.starts_with(".shared::")
            || t.text.starts_with(".param::")
            || Linkage::from_token(t.text).is_some())
}

pub(super) fn linkages(i: &mut Input<'_, '_>) -> Vec<Spanned<Linkage>> {
    let mut out = Vec::new();
    while peek(i).kind == Tok::Dot {
        match Linkage::from_token(peek(i).text) {
            Some(l) => out.push(Spanned::new(l, bump(i).span())),
            None => break,
        }
    }
    out
}

pub(super) fn state_space(t: &Token<'_>) -> Option<StateSpace> {
    match StateSpace::from_token(t.text) {
        Some(s) if t.kind == Tok::Dot => Some(s),
        _ => None,
    }
}

/// A variable declaration after its linkage: `.space {.align N} {.vN} .type declarators ;`.
pub(super) fn var_decl(
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

pub(super) fn declarator(i: &mut Input<'_, '_>) -> PResult<Declarator> {
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

pub(super) fn dimensions(i: &mut Input<'_, '_>, span: &mut Span) -> PResult<Vec<Option<u64>>> {
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

pub(super) fn init_span(init: &Initializer) -> Span {
    match init {
        Initializer::Expr(e) => e.span(),
        Initializer::List(_, s) => *s,
    }
}

pub(super) fn initializer(i: &mut Input<'_, '_>) -> PResult<Initializer> {
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
    } else if at(i, Tok::Number) && peek_nth(i, 1).kind == Tok::LParen {
        // A byte of an address: `0xFF00(generic(x)+8)` (PTX ISA, variable initializers: the
        // mask operator; nvcc writes pointers in packed structs so, and ptxas 13.5 accepts
        // them in `.u8` arrays). Kept as a call named by the mask literal, so that it prints
        // back as written; the interpreter evaluates `(value & mask) >> (mask's low zeros)`.
        let t = bump(i);
        if !matches!(classify_number(t)?, Number::Int(_)) {
            return fail(t.span(), "a byte mask (`0xFF`, `0xFF00`, …) before `(`");
        }
        bump(i);
        let arg = expr(i)?;
        let close = expect(i, Tok::RParen, "`)`")?;
        let span = t.span().to(close.span());
        Ok(Initializer::Expr(Expr::Call(
            name_of(t),
            Box::new(arg),
            span,
        )))
    } else {
        Ok(Initializer::Expr(expr(i)?))
    }
}

/// A parameter: `.param .u64 .ptr .global .align 16 name`, `.param .align 8 .b8 p[16]`,
/// `.reg .b32 x`; with the lanes of a vector register parameter (`.reg .v4 .u16 p`: 4).
fn param_lanes(i: &mut Input<'_, '_>) -> PResult<(Param, usize)> {
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
    let mut lanes = 1;
    while at(i, Tok::Dot) {
        let t = bump(i);
        match t.text {
            ".v2" | ".v4" if space.value == StateSpace::Reg => {
                lanes = if t.text == ".v2" { 2 } else { 4 };
            }
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
    Ok((
        Param {
            space,
            align,
            ty,
            ptr,
            name,
            dims,
            span,
        },
        lanes,
    ))
}

pub(super) fn param_list(i: &mut Input<'_, '_>) -> PResult<Vec<Param>> {
    expect(i, Tok::LParen, "`(`")?;
    let mut params = Vec::new();
    if !at(i, Tok::RParen) {
        loop {
            let (p, lanes) = param_lanes(i)?;
            if lanes > 1 {
                // A vector register parameter: one scalar parameter per element
                // (`crate::vector_regs`).
                let end = p.name.span.end;
                for (k, n) in crate::vector_regs::element_names(&p.name.value, lanes)
                    .into_iter()
                    .enumerate()
                {
                    let mut e = p.clone();
                    e.name.value = n;
                    if k > 0 {
                        // Not in the text: an empty span (the checker skips such names).
                        e.name.span = Span::new(end, end);
                    }
                    params.push(e);
                }
            } else {
                params.push(p);
            }
            if !eat(i, Tok::Comma) {
                break;
            }
        }
    }
    expect(i, Tok::RParen, "`,` or `)` after a parameter")?;
    Ok(params)
}
