//! Module items: `.version`, `.target`, `.file`, `.section`, functions (header, directives,
//! body) and the recovery that skips to the next item.

use super::*;

pub(super) fn version(i: &mut Input<'_, '_>) -> PResult<Item> {
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

pub(super) fn target(i: &mut Input<'_, '_>) -> PResult<Item> {
    let start = bump(i).span();
    let mut entries = vec![name_of(ident(i, "a target such as sm_80 after .target")?)];
    while eat(i, Tok::Comma) {
        entries.push(name_of(ident(i, "a target option")?));
    }
    let span = start.to(entries.last().expect("one entry").span);
    Ok(Item::Target(TargetDirective { entries, span }))
}

pub(super) fn file(i: &mut Input<'_, '_>) -> PResult<Item> {
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

pub(super) fn section(i: &mut Input<'_, '_>) -> PResult<Item> {
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
pub(super) fn section_value(i: &mut Input<'_, '_>) -> PResult<Expr> {
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

pub(super) fn item(i: &mut Input<'_, '_>, errors: &mut Errors<'_>) -> PResult<Option<Item>> {
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
pub(super) fn function_recovering(
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
pub(super) fn function_header(
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
    let directives = function_directives(i, kind.value)?;
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

pub(super) fn function_directives(
    i: &mut Input<'_, '_>,
    kind: FunctionKind,
) -> PResult<Vec<FunctionDirective>> {
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
        if !directive_allowed(t.text, kind) {
            return fail_help(
                t.span(),
                format!(
                    "`{}` is not allowed on {}",
                    t.text,
                    match kind {
                        FunctionKind::Entry => "a kernel (`.entry`)",
                        FunctionKind::Func => "a device function (`.func`)",
                    }
                ),
                "the launch-shape directives (.maxntid .reqntid .minnctapersm .maxnreg, the \
                 cluster ones) belong to `.entry`; .noreturn and .abi_preserve* to `.func`",
            );
        }
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
pub(super) fn recover_item(i: &mut Input<'_, '_>) {
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

pub(super) fn starts_item(text: &str) -> bool {
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

/// Whether a header directive may follow this kind of function. Measured with ptxas 13.5 at
/// PTX 7.7 … 9.0: `.noreturn`, `.abi_preserve` and `.abi_preserve_control` on an `.entry`,
/// and every other directive of [`FUNCTION_DIRECTIVES`] on a `.func`, are `Parsing error near
/// '<directive>'`.
fn directive_allowed(name: &str, kind: FunctionKind) -> bool {
    let func_only = matches!(
        name,
        ".noreturn" | ".abi_preserve" | ".abi_preserve_control"
    );
    func_only == (kind == FunctionKind::Func)
}
