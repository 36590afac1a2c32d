//! Writes a [`Module`] back as PTX text.
//!
//! The output re-parses to an equal AST (spans aside): typed instructions print their
//! qualifiers in the order they were written, expressions print their parentheses as parsed.
//! Layout follows nvcc's: one statement per line, a tab per nesting level, labels flush left.

use crate::ast::*;
use core::fmt::{self, Write};

/// Renders a module as PTX text.
pub fn print(module: &Module) -> String {
    let mut out = String::with_capacity(module.span.end as usize + 1024);
    Printer { out: &mut out }
        .module(module)
        .expect("writing to a String cannot fail");
    out
}

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print(self))
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        Printer { out: &mut s }.operand(self)?;
        f.write_str(&s)
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        Printer { out: &mut s }.expr(self)?;
        f.write_str(&s)
    }
}

impl fmt::Display for Instruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        Printer { out: &mut s }.instruction(self)?;
        f.write_str(&s)
    }
}

struct Printer<'o> {
    out: &'o mut String,
}

impl Printer<'_> {
    fn module(&mut self, m: &Module) -> fmt::Result {
        let mut prev_was_function = false;
        for item in &m.items {
            let is_function = matches!(item, Item::Function(_) | Item::Section(_));
            if is_function || prev_was_function {
                self.out.push('\n');
            }
            prev_was_function = is_function;
            self.item(item)?;
        }
        Ok(())
    }

    fn item(&mut self, item: &Item) -> fmt::Result {
        match item {
            Item::Version(v) => writeln!(self.out, ".version {}", v.value),
            Item::Target(t) => {
                self.out.push_str(".target ");
                for (k, e) in t.entries.iter().enumerate() {
                    if k > 0 {
                        self.out.push_str(", ");
                    }
                    self.out.push_str(&e.value);
                }
                self.out.push('\n');
                Ok(())
            }
            Item::AddressSize(a) => writeln!(self.out, ".address_size {}", a.value),
            Item::File(f) => {
                write!(self.out, ".file {} ", f.index)?;
                self.string(&f.path);
                for x in &f.extra {
                    write!(self.out, ", {x}")?;
                }
                self.out.push('\n');
                Ok(())
            }
            Item::Section(s) => self.section(s),
            Item::Var(v) => {
                self.var_decl(v)?;
                self.out.push('\n');
                Ok(())
            }
            Item::Function(f) => self.function(f),
            Item::Pragma(p) => {
                self.pragma(p);
                self.out.push('\n');
                Ok(())
            }
            Item::Alias { alias, aliasee, .. } => {
                writeln!(self.out, ".alias {}, {};", alias.value, aliasee.value)
            }
        }
    }

    fn string(&mut self, s: &str) {
        self.out.push('"');
        for c in s.chars() {
            match c {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                '\n' => self.out.push_str("\\n"),
                '\t' => self.out.push_str("\\t"),
                c => self.out.push(c),
            }
        }
        self.out.push('"');
    }

    fn pragma(&mut self, p: &Pragma) {
        self.out.push_str(".pragma ");
        for (k, s) in p.strings.iter().enumerate() {
            if k > 0 {
                self.out.push_str(", ");
            }
            self.string(s);
        }
        self.out.push(';');
    }

    fn section(&mut self, s: &Section) -> fmt::Result {
        writeln!(self.out, ".section {}\n{{", s.name.value)?;
        for e in &s.entries {
            match e {
                SectionEntry::Label(l) => writeln!(self.out, "{}:", l.value)?,
                SectionEntry::Data { ty, values, .. } => {
                    write!(self.out, "\t{} ", ty.value)?;
                    for (k, v) in values.iter().enumerate() {
                        if k > 0 {
                            self.out.push_str(", ");
                        }
                        self.expr(v)?;
                    }
                    self.out.push('\n');
                }
            }
        }
        self.out.push_str("}\n");
        Ok(())
    }

    fn linkage(&mut self, linkage: &[crate::Spanned<Linkage>]) {
        for l in linkage {
            self.out.push_str(l.value.token());
            self.out.push(' ');
        }
    }

    fn var_decl(&mut self, v: &VarDecl) -> fmt::Result {
        self.linkage(&v.linkage);
        self.out.push_str(v.space.value.token());
        if !v.attributes.is_empty() {
            self.out.push_str(" .attribute(");
            for (k, a) in v.attributes.iter().enumerate() {
                if k > 0 {
                    self.out.push_str(", ");
                }
                self.out.push_str(&a.value);
            }
            self.out.push(')');
        }
        if let Some(a) = v.align {
            write!(self.out, " .align {}", a.value)?;
        }
        if let Some(vec) = v.vector {
            write!(self.out, " {}", vec.value)?;
        }
        write!(self.out, " {}", v.ty.value.token())?;
        for (k, d) in v.declarators.iter().enumerate() {
            self.out.push_str(if k > 0 { ", " } else { " " });
            self.out.push_str(&d.name.value);
            if let Some(r) = d.range {
                write!(self.out, "<{r}>")?;
            }
            self.dims(&d.dims)?;
            if let Some(init) = &d.init {
                self.out.push_str(" = ");
                self.initializer(init)?;
            }
        }
        self.out.push(';');
        Ok(())
    }

    fn dims(&mut self, dims: &[Option<u64>]) -> fmt::Result {
        for d in dims {
            match d {
                Some(n) => write!(self.out, "[{n}]")?,
                None => self.out.push_str("[]"),
            }
        }
        Ok(())
    }

    fn initializer(&mut self, init: &Initializer) -> fmt::Result {
        match init {
            Initializer::Expr(e) => self.expr(e),
            Initializer::List(items, _) => {
                self.out.push('{');
                for (k, it) in items.iter().enumerate() {
                    if k > 0 {
                        self.out.push_str(", ");
                    }
                    self.initializer(it)?;
                }
                self.out.push('}');
                Ok(())
            }
        }
    }

    fn param(&mut self, p: &Param) -> fmt::Result {
        self.out.push_str(p.space.value.token());
        if let Some(a) = p.align {
            write!(self.out, " .align {a}")?;
        }
        write!(self.out, " {}", p.ty.value)?;
        if let Some(ptr) = p.ptr {
            self.out.push_str(" .ptr");
            if let Some(s) = ptr.space {
                write!(self.out, " {s}")?;
            }
            if let Some(a) = ptr.align {
                write!(self.out, " .align {a}")?;
            }
        }
        write!(self.out, " {}", p.name.value)?;
        self.dims(&p.dims)
    }

    fn params(&mut self, params: &[Param], multiline: bool) -> fmt::Result {
        self.out.push('(');
        for (k, p) in params.iter().enumerate() {
            if k > 0 {
                self.out.push(',');
                if !multiline {
                    self.out.push(' ');
                }
            }
            if multiline {
                self.out.push_str("\n\t");
            }
            self.param(p)?;
        }
        if multiline && !params.is_empty() {
            self.out.push('\n');
        }
        self.out.push(')');
        Ok(())
    }

    fn function(&mut self, f: &Function) -> fmt::Result {
        self.linkage(&f.linkage);
        self.out.push_str(match f.kind.value {
            FunctionKind::Entry => ".entry ",
            FunctionKind::Func => ".func ",
        });
        if let Some(r) = &f.returns {
            self.params(r, false)?;
            self.out.push(' ');
        }
        self.out.push_str(&f.name.value);
        if let Some(p) = &f.params {
            self.params(p, true)?;
        }
        for d in &f.directives {
            self.out.push('\n');
            match d {
                FunctionDirective::Tuning { name, values, .. } => {
                    self.out.push_str(&name.value);
                    for (k, v) in values.iter().enumerate() {
                        self.out.push_str(if k > 0 { ", " } else { " " });
                        write!(self.out, "{v}")?;
                    }
                }
                FunctionDirective::Pragma(p) => self.pragma(p),
            }
        }
        match &f.body {
            Some(b) => {
                self.out.push('\n');
                self.block(b, 0)?;
                self.out.push('\n');
            }
            None => self.out.push_str(";\n"),
        }
        Ok(())
    }

    fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push('\t');
        }
    }

    fn block(&mut self, b: &Block, depth: usize) -> fmt::Result {
        self.indent(depth);
        self.out.push_str("{\n");
        for s in &b.statements {
            self.statement(s, depth + 1)?;
        }
        self.indent(depth);
        self.out.push('}');
        Ok(())
    }

    fn statement(&mut self, s: &Statement, depth: usize) -> fmt::Result {
        match s {
            Statement::Label(l) => {
                writeln!(self.out, "{}:", l.value)?;
                return Ok(());
            }
            Statement::Block(b) => self.block(b, depth)?,
            Statement::Var(v) => {
                self.indent(depth);
                self.var_decl(v)?;
            }
            Statement::Instruction(i) => {
                self.indent(depth);
                self.instruction(i)?;
            }
            Statement::Loc(l) => {
                self.indent(depth);
                write!(self.out, ".loc {} {} {}", l.file, l.line, l.column)?;
                if let Some(f) = &l.function_name {
                    self.out.push_str(", function_name ");
                    self.expr(f)?;
                }
                if let Some((f, ln, c)) = l.inlined_at {
                    write!(self.out, ", inlined_at {f} {ln} {c}")?;
                }
            }
            Statement::Pragma(p) => {
                self.indent(depth);
                self.pragma(p);
            }
            Statement::TargetList(t) => {
                self.indent(depth);
                write!(self.out, "{}: {} ", t.label.value, t.kind.token())?;
                for (n, name) in t.targets.iter().enumerate() {
                    if n > 0 {
                        self.out.push_str(", ");
                    }
                    self.out.push_str(&name.value);
                }
                self.out.push(';');
            }
            Statement::CallPrototype {
                label,
                returns,
                params,
                noreturn,
                ..
            } => {
                self.indent(depth);
                write!(self.out, "{}: .callprototype ", label.value)?;
                if let Some(r) = returns {
                    self.params(r, false)?;
                    self.out.push(' ');
                }
                self.out.push('_');
                if !params.is_empty() {
                    self.out.push(' ');
                    self.params(params, false)?;
                }
                if *noreturn {
                    self.out.push_str(" .noreturn");
                }
                self.out.push(';');
            }
        }
        self.out.push('\n');
        Ok(())
    }

    fn instruction(&mut self, i: &Instruction) -> fmt::Result {
        if let Some(g) = &i.guard {
            self.out.push('@');
            if g.negated {
                self.out.push('!');
            }
            self.out.push_str(&g.predicate.name);
            self.out.push(' ');
        }
        match &i.op {
            Op::Generic(g) => {
                self.out.push_str(&g.opcode.value);
                for m in &g.modifiers {
                    self.out.push_str(&m.value);
                }
            }
            op => {
                self.out.push_str(op.opcode_word());
                for m in &op.qualifiers().expect("typed instruction").written {
                    self.out.push_str(m.value.text());
                }
            }
        }
        let operands = i.op.operands();
        for (k, o) in operands.iter().enumerate() {
            self.out.push_str(if k > 0 { ", " } else { " " });
            self.operand(o)?;
        }
        self.out.push(';');
        Ok(())
    }

    fn name(&mut self, n: &Name) {
        self.out.push_str(&n.name);
        if let Some(c) = &n.component {
            self.out.push('.');
            self.out.push_str(c);
        }
    }

    fn operand(&mut self, o: &Operand) -> fmt::Result {
        match o {
            Operand::Name(n) => self.name(n),
            Operand::Int(i) => self.int(&i.value)?,
            Operand::Float(f) => self.float(&f.value)?,
            Operand::Expr(e) => self.expr(e)?,
            Operand::Vector(elems, _) => {
                self.out.push('{');
                self.operand_list(elems)?;
                self.out.push('}');
            }
            Operand::Sink(_) => self.out.push('_'),
            Operand::Address(a) => {
                self.out.push('[');
                match &a.base {
                    Some(b) => {
                        self.name(b);
                        if a.offset != 0 {
                            write!(self.out, "+{}", a.offset)?;
                        }
                    }
                    None => write!(self.out, "{}", a.offset)?,
                }
                self.out.push(']');
                if a.unified {
                    self.out.push_str(".unified");
                }
            }
            Operand::Bracket(inner, _) => {
                self.out.push('[');
                self.operand_list(inner)?;
                self.out.push(']');
            }
            Operand::Not(inner, _) => {
                self.out.push('!');
                self.operand(inner)?;
            }
            Operand::PredPair(a, b, _) => {
                self.name(a);
                self.out.push('|');
                self.name(b);
            }
            Operand::Indexed(name, index, _) => {
                self.name(name);
                self.operand(index)?;
            }
            Operand::List(elems, _) => {
                self.out.push('(');
                self.operand_list(elems)?;
                self.out.push(')');
            }
        }
        Ok(())
    }

    fn operand_list(&mut self, elems: &[Operand]) -> fmt::Result {
        for (k, e) in elems.iter().enumerate() {
            if k > 0 {
                self.out.push_str(", ");
            }
            self.operand(e)?;
        }
        Ok(())
    }

    fn int(&mut self, i: &IntLit) -> fmt::Result {
        write!(self.out, "{}", i.value)?;
        if i.unsigned {
            self.out.push('U');
        }
        Ok(())
    }

    fn float(&mut self, f: &FloatLit) -> fmt::Result {
        match f {
            FloatLit::F32Bits(b) => write!(self.out, "0f{b:08X}"),
            FloatLit::F64Bits(b) => write!(self.out, "0d{b:016X}"),
            FloatLit::Decimal(s) => {
                self.out.push_str(s);
                Ok(())
            }
        }
    }

    fn expr(&mut self, e: &Expr) -> fmt::Result {
        match e {
            Expr::Int(i) => self.int(&i.value),
            Expr::Float(f) => self.float(&f.value),
            Expr::Name(n) => {
                self.out.push_str(&n.value);
                Ok(())
            }
            Expr::Unary(op, inner, _) => {
                self.out.push(match op {
                    UnaryOp::Neg => '-',
                    UnaryOp::Not => '!',
                    UnaryOp::BitNot => '~',
                    UnaryOp::Plus => '+',
                });
                self.expr(inner)
            }
            Expr::Binary(op, a, b, _) => {
                self.expr(a)?;
                // `a % 8` printed as `a%8` would lex as `a` and the register `%8`: keep the
                // modulo operator apart (found by the parse_print fuzz target).
                let spaced = op.token() == "%";
                if spaced {
                    self.out.push(' ');
                }
                self.out.push_str(op.token());
                if spaced {
                    self.out.push(' ');
                }
                // A right operand that starts with a sign must stay separate: `a - -8`.
                if matches!(**b, Expr::Int(ref i) if i.value.value < 0)
                    || matches!(**b, Expr::Unary(..))
                {
                    self.out.push(' ');
                }
                self.expr(b)
            }
            Expr::Call(name, arg, _) => {
                self.out.push_str(&name.value);
                self.out.push('(');
                self.expr(arg)?;
                self.out.push(')');
                Ok(())
            }
            Expr::Paren(inner, _) => {
                self.out.push('(');
                self.expr(inner)?;
                self.out.push(')');
                Ok(())
            }
        }
    }
}
