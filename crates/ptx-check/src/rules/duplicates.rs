//! Names defined twice: ptxas's `Duplicate definition of variable|label|function '…'` and
//! `Inconsistent prototypes of '…', number of parameters differ` (docs/ptxas-rules.md §21).
//!
//! Measured with ptxas 13.5 (tests/parity/gen_duplicates.py):
//! - a function's parameters (return and input), and the registers, variables, body `.param`s
//!   and labels of one `{ }` block share one namespace; a nested block starts a new one (it
//!   may redeclare an outer name, and its labels are its own), and a function may shadow a
//!   module variable;
//! - a register range `%r<N>` is one entry: a later `%rK` with `K < N` in the same block is a
//!   duplicate, a repeated range `%r<M>` is reported as `'%r<'`, but a range after a `%rK`
//!   is not checked against it. A name that is both in a range and declared before is
//!   reported twice (once per table ptxas looks in);
//! - module variables: a second definition is a duplicate unless one of them is `.extern`;
//! - functions: any number of declarations, one definition (a body), nothing after the
//!   definition; every declaration must have as many return and input parameters as the
//!   first.
//!
//! Cost: one hash insert per declared name or label, one per register range (not per member).

use super::*;
use ptx_syntax::ast::{Linkage, Param};
use rustc_hash::{FxHashMap, FxHashSet};

/// What the module scope holds under a name.
enum ModuleName {
    Var {
        external: bool,
    },
    Func {
        defined: bool,
        /// The linkage of the latest declaration that wrote one ([`linkage_class`]).
        linkage: u8,
        /// `.entry` (the first declaration's kind).
        entry: bool,
        /// The latest declaration's return and input parameters.
        returns: Vec<ParamShape>,
        params: Vec<ParamShape>,
    },
}

/// What ptxas compares between two declarations of a function's parameter.
#[derive(PartialEq)]
struct ParamShape {
    /// The type token and array dimensions.
    ty: (&'static str, Vec<Option<u64>>),
    /// `.align N`, or the element size.
    align: u32,
    space: StateSpace,
}

impl ParamShape {
    fn of(p: &Param) -> Self {
        ParamShape {
            ty: (p.ty.value.token(), p.dims.clone()),
            align: p.align.unwrap_or(p.ty.value.bytes()),
            space: p.space.value,
        }
    }
}

fn shapes(params: Option<&Vec<Param>>) -> Vec<ParamShape> {
    params.map_or_else(Vec::new, |ps| ps.iter().map(ParamShape::of).collect())
}

/// One `{ }` block's names and register-range prefixes (keys borrow the module text).
#[derive(Default)]
struct Frame<'a> {
    names: FxHashSet<&'a str>,
    ranges: FxHashMap<&'a str, u32>,
}

/// The names defined so far: the module's, and the blocks of the function being walked.
#[derive(Default)]
pub(super) struct Definitions<'a> {
    module: FxHashMap<&'a str, ModuleName>,
    /// `.extern` `.global`/`.const` variables and the functions, in the order of their
    /// first declaration, for the end-of-module `Unresolved extern …` messages.
    extern_vars: Vec<ExternVar<'a>>,
    functions: Vec<&'a str>,
    /// The functions `call` names, in source order (a called `.extern` function must be
    /// defined: ptxas compiles the whole program).
    called: Vec<&'a str>,
    frames: Vec<Frame<'a>>,
}

/// An `.extern` module variable, for the end-of-module check.
struct ExternVar<'a> {
    name: &'a str,
    /// Declared `name[]`.
    no_size: bool,
    shared: bool,
}

/// Which kind of name a message is about.
#[derive(Clone, Copy)]
enum What {
    Variable,
    Label,
}

impl What {
    fn word(self) -> &'static str {
        match self {
            What::Variable => "variable",
            What::Label => "label",
        }
    }
}

fn duplicate(span: Span, what: &str, name: &str) -> Diagnostic {
    Diagnostic::error(
        codes::DUPLICATE_DEFINITION,
        span,
        format!("`{name}` is already defined in this scope"),
        format!("Duplicate definition of {what} '{name}'"),
    )
    .with_help("rename one of them, or move one into a nested `{ }` block")
}

/// `%r12` → (`%r`, 12); none for a leading zero (`%r01` is no range member) or past `u32`.
fn range_member(name: &str) -> Option<(&str, u32)> {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let start = name.len() - digits;
    if digits == 0 || start == 0 || (digits > 1 && name.as_bytes()[start] == b'0') {
        return None;
    }
    Some((&name[..start], name[start..].parse().ok()?))
}

/// A function's linkage: static (none written), `.extern`, `.visible` (or `.common`),
/// `.weak`.
const STATIC: u8 = 0;
const EXTERN: u8 = 1;
const WEAK: u8 = 3;

fn linkage_class(f: &Function) -> u8 {
    match f.linkage.first().map(|l| l.value) {
        None => STATIC,
        Some(Linkage::Extern) => EXTERN,
        Some(Linkage::Weak) => WEAK,
        Some(_) => 2,
    }
}

fn inconsistent(span: Span, what: String) -> Diagnostic {
    Diagnostic::error(
        codes::INCONSISTENT_PROTOTYPE,
        span,
        format!("a module-scope name is redefined as another kind of thing ({what})"),
        format!("Inconsistent redefinition of {what}"),
    )
    .with_help("give the variable, kernel and function different names")
}

fn prototypes(span: Span, name: &str, what: &str) -> Diagnostic {
    Diagnostic::error(
        codes::INCONSISTENT_PROTOTYPE,
        span,
        format!("this declaration of `{name}` disagrees with its first one: {what}"),
        format!("Inconsistent prototypes of '{name}', {what}"),
    )
    .with_help("declare the function with the same parameters everywhere")
}

impl<'a> Checker<'a> {
    /// ptxas's end-of-module messages for `.extern` variables the module never defines, in
    /// declaration order (measured): a warning for a sized one, a fatal for an no_size
    /// (`name[]`) one outside `.shared` (which stops the list); an no_size `.shared` one is
    /// the dynamic shared memory.
    pub(super) fn unresolved_variables(&self) -> Vec<Diagnostic> {
        let defs = &self.defs;
        let mut out = Vec::new();
        for v in &defs.extern_vars {
            if !matches!(
                defs.module.get(v.name),
                Some(ModuleName::Var { external: true })
            ) {
                continue;
            }
            let n = v.name;
            if v.no_size && v.shared {
                continue;
            }
            if v.no_size {
                out.push(
                    Diagnostic::new(
                        Severity::Fatal,
                        codes::UNRESOLVED_EXTERN,
                        Span::default(),
                        format!("the `.extern` array `{n}[]` is not defined in this module"),
                        format!("Unresolved extern variable '{n}'"),
                    )
                    .with_help("define the variable, or link the module that does")
                    .without_line(),
                );
                break;
            }
            out.push(
                Diagnostic::warning(
                    codes::UNRESOLVED_EXTERN,
                    Span::default(),
                    format!("the `.extern` variable `{n}` is not defined in this module"),
                    format!("Unresolved extern variable '{n}' in whole program compilation, ignoring extern qualifier"),
                )
                .with_help("define the variable (with `.visible`), or link the module that does")
                .without_line(),
            );
        }
        out
    }

    /// ptxas's end-of-module fatal for the first function declared without `.extern` that
    /// the module never defines (`with_static`: static ones too, else only `.visible`/`.weak`
    /// ones, which ptxas reports before the unresolved variables).
    ///
    /// Then the first `.extern` function a `call` names that the module does not define
    /// (measured with ptxas 13.5: `.extern .func f();` never called passes; called from any
    /// function, even one never called itself, it is `Unresolved extern function 'f'`, the
    /// first in call order, before the unresolved variables). ptxas supplies the CUDA
    /// runtime's device system calls itself (measured: `vprintf`, `malloc`, `free` and
    /// `__assertfail` pass; `cudaMalloc`, `cudaLaunchDevice`, `memcpy`, `__nv_sinf`, … do not).
    pub(super) fn unresolved_function(&self, with_static: bool) -> Option<Diagnostic> {
        let defs = &self.defs;
        let undefined_extern = |n: &&&str| {
            !matches!(**n, "vprintf" | "malloc" | "free" | "__assertfail")
                && matches!(defs.module.get(**n), Some(ModuleName::Func { defined: false, linkage, .. })
                    if *linkage == EXTERN)
        };
        let name = defs
            .functions
            .iter()
            .find(|n| {
                matches!(defs.module.get(*n), Some(ModuleName::Func { defined: false, linkage, .. })
                    if *linkage != EXTERN && (with_static || *linkage != STATIC))
            })
            .or_else(|| defs.called.iter().find(undefined_extern))?;
        Some(
            Diagnostic::new(
                Severity::Fatal,
                codes::UNRESOLVED_EXTERN,
                Span::default(),
                format!("`{name}` is declared but never defined"),
                format!("Unresolved extern function '{name}'"),
            )
            .with_help("define the function, or declare it `.extern` if another module defines it")
            .without_line(),
        )
    }

    /// The text of `span` ("" if it lies outside the module).
    pub(super) fn name_at(&self, span: Span) -> &'a str {
        let text: &'a str = self.text;
        text.get(span.range()).unwrap_or("")
    }

    /// A module-scope variable or function: reports a second definition. False if ptxas
    /// stops reporting here (a function named like a variable before it).
    /// `call {(rets),} target, …`: records a direct call's target (the first name operand; an
    /// indirect call's register names no function and is skipped at lookup).
    pub(super) fn record_call(&mut self, g: &ptx_syntax::ast::GenericInstruction) {
        let target = g.operands.iter().find_map(|o| match o {
            Operand::Name(n) => Some(n.span),
            _ => None,
        });
        if let Some(span) = target {
            let name = self.name_at(span);
            if matches!(self.defs.module.get(name), Some(ModuleName::Func { .. })) {
                self.defs.called.push(name);
            }
        }
    }

    pub(super) fn define_item(&mut self, item: &Item) -> bool {
        match item {
            Item::Var(v) => {
                self.mask_initializers(v);
                let external = v.linkage.iter().any(|l| l.value == Linkage::Extern);
                let is_static = v.linkage.is_empty();
                let shared = v.space.value.base() == StateSpace::Shared;
                for d in &v.declarators {
                    let name = self.name_at(d.name.span);
                    if external && !self.defs.module.contains_key(name) {
                        let no_size = d.dims.contains(&None);
                        self.defs.extern_vars.push(ExternVar {
                            name,
                            no_size,
                            shared,
                        });
                    }
                    self.define_module_var(d.name.span, external, is_static);
                }
                true
            }
            Item::Function(f) => self.define_function(f),
            Item::Alias { alias, .. } => {
                // `.alias g, f;` gives the declared-only `g` the body of `f` (PTX ISA
                // `.alias`; measured: ptxas 13.5 accepts a module that calls `g`, where
                // `g` without the alias is `Unresolved extern function 'g'`).
                let name = self.name_at(alias.span);
                if let Some(ModuleName::Func { defined, .. }) = self.defs.module.get_mut(name) {
                    *defined = true;
                }
                true
            }
            _ => true,
        }
    }

    fn define_module_var(&mut self, span: Span, external: bool, is_static: bool) {
        let name = self.name_at(span);
        match self.defs.module.get(name) {
            None => {
                self.defs.module.insert(name, ModuleName::Var { external });
            }
            Some(&ModuleName::Var { external: before }) => {
                if !before && !external {
                    self.diags.push(duplicate(span, "variable", name));
                } else if before && !external {
                    if is_static {
                        self.diags.push(
                            Diagnostic::error(
                                codes::DUPLICATE_DEFINITION,
                                span,
                                format!("the `.extern` variable `{name}` is defined here without `.visible`"),
                                format!("'.extern' variable '{name}' cannot be resolved by a '.static'"),
                            )
                            .with_help("write `.visible` (or `.weak`) on the definition of an `.extern` variable"),
                        );
                    }
                    // The `.extern` declaration is resolved by this definition.
                    self.defs.module.insert(name, ModuleName::Var { external });
                }
            }
            Some(ModuleName::Func { .. }) => {
                self.diags
                    .push(inconsistent(span, format!("variable '{name}'")));
                self.diags.push(duplicate(span, "variable", name));
            }
        }
    }

    fn define_function(&mut self, f: &Function) -> bool {
        let name = self.name_at(f.name.span);
        // ptxas reports at the end of the header: the body's `{`, or the `;`.
        let at = match &f.body {
            Some(b) => Span::new(b.span.start, b.span.start),
            None => Span::new(f.span.end.saturating_sub(1), f.span.end),
        };
        let linkage = linkage_class(f);
        let entry = f.kind.value == FunctionKind::Entry;
        let defined = f.body.is_some();
        let Some(first) = self.defs.module.get_mut(name) else {
            self.defs.functions.push(name);
            self.defs.module.insert(
                name,
                ModuleName::Func {
                    defined,
                    linkage,
                    entry,
                    returns: shapes(f.returns.as_ref()),
                    params: shapes(f.params.as_ref()),
                },
            );
            return true;
        };
        let ModuleName::Func {
            defined: before,
            linkage: was_linkage,
            entry: was_entry,
            returns,
            params,
        } = first
        else {
            // A function named like a variable: ptxas reports nothing after this.
            self.diags
                .push(inconsistent(at, format!("variable '{name}'")));
            if !f.linkage.iter().any(|l| l.value == Linkage::Visible) {
                self.diags.push(duplicate(at, "function", name));
            }
            self.fatal(
                Diagnostic::new(
                    Severity::Fatal,
                    codes::INCONSISTENT_PROTOTYPE,
                    at,
                    format!("`{name}` names a variable and a function"),
                    format!("Inconsistent redefinition of symbol '{name}'"),
                )
                .with_help("give the variable and the function different names"),
            );
            return false;
        };
        let mut found = Vec::new();
        if *was_entry != entry {
            found.push(inconsistent(at, format!("'{name}' as entry and function")));
        }
        if *before {
            found.push(duplicate(at, "function", name));
        }
        // Measured: a declaration without linkage keeps the one declared before unless that
        // is `.extern`; one with linkage must repeat it; a `.weak` second definition (already
        // a duplicate) is not compared. ptxas's wording names a variable.
        let mismatch = if linkage == STATIC {
            *was_linkage == EXTERN
        } else {
            *was_linkage != linkage
        };
        if mismatch && !(*before && defined && linkage == WEAK) {
            found.push(inconsistent(at, format!("variable '{name}'")));
        }
        if *was_linkage == EXTERN && defined {
            found.push(
                Diagnostic::error(
                    codes::INCONSISTENT_PROTOTYPE,
                    at,
                    format!("`{name}` was declared `.extern` and is defined here"),
                    format!("Function definition conflicts with '.extern' declaration for function '{name}'"),
                )
                .with_help("drop `.extern` from the declaration of a function this module defines"),
            );
        }
        let (r, p) = (
            f.returns.as_deref().unwrap_or(&[]),
            f.params.as_deref().unwrap_or(&[]),
        );
        // The return parameters, then the input ones: the counts, then each pair the two
        // lists have.
        for (old, new) in [(&*returns, r), (&*params, p)] {
            if old.len() != new.len() {
                found.push(prototypes(at, name, "number of parameters differ"));
            }
            for (old, new) in old.iter().zip(new) {
                let new = ParamShape::of(new);
                if old.ty != new.ty {
                    found.push(prototypes(at, name, "parameter types differ"));
                }
                if old.align != new.align {
                    found.push(prototypes(at, name, "parameter alignment differ"));
                }
                if old.space != new.space {
                    found.push(prototypes(at, name, "parameter state space differ"));
                }
            }
        }
        // Later declarations are compared with the latest one.
        *returns = shapes(f.returns.as_ref());
        *params = shapes(f.params.as_ref());
        *before |= defined;
        if linkage != STATIC {
            *was_linkage = linkage;
        }
        self.diags.append(&mut found);
        true
    }

    /// Starts a function's outermost block with its return and input parameters.
    pub(super) fn define_parameters(&mut self, f: &Function) {
        self.defs.frames.clear();
        self.defs.frames.push(Frame::default());
        let params = f.returns.iter().chain(f.params.iter()).flatten();
        for p in params {
            self.define_name(p.name.span, What::Variable);
        }
    }

    /// Enters a nested `{ }` block.
    pub(super) fn define_push(&mut self) {
        self.defs.frames.push(Frame::default());
    }

    /// Leaves a nested `{ }` block.
    pub(super) fn define_pop(&mut self) {
        self.defs.frames.pop();
    }

    /// The names of a declaration in the current block.
    pub(super) fn define_vars(&mut self, v: &VarDecl) {
        for d in &v.declarators {
            if d.range.is_some() {
                self.define_range(d.name.span, d.range.unwrap_or(0));
            } else {
                self.define_name(d.name.span, What::Variable);
            }
        }
    }

    /// A label of the current block.
    pub(super) fn define_label(&mut self, span: Span) {
        self.define_name(span, What::Label);
    }

    fn define_name(&mut self, span: Span, what: What) {
        let name = self.name_at(span);
        if name.is_empty() {
            // A name the parser made (the elements of a vector register): not in the text.
            return;
        }
        let Some(frame) = self.defs.frames.last_mut() else {
            return;
        };
        let in_range = !frame.ranges.is_empty()
            && range_member(name)
                .is_some_and(|(prefix, k)| frame.ranges.get(prefix).is_some_and(|&n| k < n));
        let again = !frame.names.insert(name);
        for _ in 0..(usize::from(in_range) + usize::from(again)) {
            self.diags.push(duplicate(span, what.word(), name));
        }
    }

    /// `%r<N>`: ptxas reports each member `%rK` but `%r0` declared before as a name (unless a
    /// range of the block already holds it), in index order, then the prefix if a range of
    /// it was declared before; measured (`.reg %r0; .reg %r<4>;` passes, `.reg %r1;
    /// .reg %r<4>;` does not). Costs one pass over the smaller of the block's names and
    /// the range's members.
    fn define_range(&mut self, span: Span, count: u32) {
        let prefix = self.name_at(span);
        let Some(frame) = self.defs.frames.last_mut() else {
            return;
        };
        let held = frame.ranges.get(prefix).copied().unwrap_or(0).max(1);
        let mut members: Vec<u32> = Vec::new();
        if !frame.names.is_empty() && count > held {
            if (frame.names.len() as u64) < u64::from(count - held) {
                members.extend(frame.names.iter().filter_map(|n| {
                    let (p, k) = range_member(n)?;
                    (p == prefix && k >= held && k < count).then_some(k)
                }));
                members.sort_unstable();
            } else {
                let mut name = String::with_capacity(prefix.len() + 10);
                for k in held..count {
                    name.clear();
                    name.push_str(prefix);
                    name.push_str(&k.to_string());
                    if frame.names.contains(name.as_str()) {
                        members.push(k);
                    }
                }
            }
        }
        let mut found: Vec<Diagnostic> = members
            .iter()
            .map(|k| duplicate(span, "variable", &format!("{prefix}{k}")))
            .collect();
        if frame.ranges.contains_key(prefix) {
            found.push(duplicate(span, "variable", &format!("{prefix}<")));
        } else {
            frame.ranges.insert(prefix, count);
        }
        self.diags.append(&mut found);
    }
}

#[cfg(test)]
mod tests {
    use super::range_member;

    #[test]
    fn range_members() {
        assert_eq!(range_member("%r12"), Some(("%r", 12)));
        assert_eq!(range_member("%r0"), Some(("%r", 0)));
        assert_eq!(range_member("%r01"), None);
        assert_eq!(range_member("%r"), None);
        assert_eq!(range_member("12"), None);
        assert_eq!(range_member("%r99999999999"), None);
    }
}
