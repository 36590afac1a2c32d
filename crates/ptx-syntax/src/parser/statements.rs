//! Blocks and statements, with error recovery to the next `;` or `}` at the same depth;
//! `.loc`, `.pragma` and call prototypes.

use super::*;

/// The errors found while parsing, shared by the recovering loops.
pub(super) struct Errors<'e> {
    pub(super) list: &'e mut Vec<ParseError>,
}

impl Errors<'_> {
    /// Records an error unless it repeats the previous one (an unclosed `{` is reported by
    /// every enclosing block at the same place).
    pub(super) fn push(&mut self, e: PError) {
        push_error(self.list, e);
    }
}

pub(super) fn push_error(list: &mut Vec<ParseError>, e: PError) {
    if let Some(last) = list.last() {
        if last.span.same_range(e.span) && last.message == e.message {
            return;
        }
    }
    list.push(e.into());
}

pub(super) const MAX_ERRORS: usize = 200;

pub(super) fn block_recovering(i: &mut Input<'_, '_>, errors: &mut Errors<'_>) -> PResult<Block> {
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
pub(super) fn statement_estimate(i: &Input<'_, '_>) -> usize {
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
pub(super) fn recover_statement(i: &mut Input<'_, '_>) {
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

pub(super) fn statement(
    i: &mut Input<'_, '_>,
    errors: &mut Errors<'_>,
) -> PResult<Option<Statement>> {
    let t = peek(i);
    match t.kind {
        // measured: ptxas 13.5 has no empty statement: `ret;;`, `{ ; }`, `L: ;` are all
        // `Parsing error near ';'`
        Tok::Semi => fail(t.span(), "an empty statement (`;` with nothing before it)"),
        Tok::LBrace => Ok(Some(Statement::Block(block_recovering(i, errors)?))),
        Tok::Dot => match t.text {
            ".loc" => Ok(Some(Statement::Loc(loc(i)?))),
            ".pragma" => Ok(Some(Statement::Pragma(pragma(i)?))),
            _ if is_decl_start(t) => {
                let linkage = linkages(i);
                Ok(Some(Statement::Var(Box::new(var_decl(
                    i,
                    linkage,
                    t.span(),
                )?))))
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
            if at_dot(i, ".branchtargets") {
                return Ok(Some(target_list(i, label, TargetListKind::Branch)?));
            }
            if at_dot(i, ".calltargets") {
                return Ok(Some(target_list(i, label, TargetListKind::Call)?));
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

pub(super) fn call_prototype(i: &mut Input<'_, '_>, label: Spanned<SmolStr>) -> PResult<Statement> {
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

/// `label: .branchtargets a, b, …;` / `label: .calltargets f, g, …;`: at least one name, no
/// trailing comma (ptxas 13.5: `Parsing error near ';'` for an empty list or `L0, ;`). Any
/// identifier is read (a register too); the checker says which names are targets.
pub(super) fn target_list(
    i: &mut Input<'_, '_>,
    label: Spanned<SmolStr>,
    kind: TargetListKind,
) -> PResult<Statement> {
    bump(i);
    let mut targets = vec![name_of(ident(i, "a target name")?)];
    while eat(i, Tok::Comma) {
        targets.push(name_of(ident(i, "a target name")?));
    }
    let end = expect_semi(i, kind.token())?;
    Ok(Statement::TargetList(Box::new(TargetList {
        kind,
        span: label.span.to(end),
        label,
        targets,
    })))
}

pub(super) fn loc(i: &mut Input<'_, '_>) -> PResult<Loc> {
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

pub(super) fn pragma(i: &mut Input<'_, '_>) -> PResult<Pragma> {
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
