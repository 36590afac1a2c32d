//! Vector registers (`.reg .v2 .u32 r;`, `.reg .v4 .u16 p` as a `.func` parameter or return
//! value) become scalar registers after parsing: element `r.x` (`.y .z .w`, or `.r .g .b .a`)
//! is the register `r$x`, and `r` used whole is the vector operand `{r$x, r$y}` (in `ld.v2`,
//! `st.v2`, `mov.v2`, a packing `mov.b64 d, r`, a call's argument list, where it stands for its
//! elements in order). ptxas accepts these forms (ZLUDA's conformance kernels use them); the
//! checker ([`scalarize_vector_registers`] after parsing) and the interpreter ([`scalarized`])
//! then see only scalar registers and `{…}` lists, which they handle; the parsed module itself
//! keeps the declarations as written (the printer prints them back). A vector parameter `p` of
//! a `.func` is declared as the parameters `p$x`, `p$y`, … by the parser
//! (`parser::declarations::param_list`).

use crate::ast::{Block, Declarator, Function, Item, Module, Name, Operand, Statement};
use crate::span::{Span, Spanned};
use smol_str::SmolStr;
use std::collections::HashMap;

const COMPONENTS: [&str; 4] = ["x", "y", "z", "w"];

/// The element register names of vector register `base` with `lanes` elements.
pub(crate) fn element_names(base: &str, lanes: usize) -> Vec<SmolStr> {
    COMPONENTS[..lanes]
        .iter()
        .map(|c| SmolStr::new(format!("{base}${c}")))
        .collect()
}

fn component_index(c: &str) -> Option<usize> {
    match c {
        "x" | "r" => Some(0),
        "y" | "g" => Some(1),
        "z" | "b" => Some(2),
        "w" | "a" => Some(3),
        _ => None,
    }
}

/// Rewrites every function of `module` into scalar registers (see the module documentation).
pub fn scalarize_vector_registers(module: &mut Module) {
    for item in &mut module.items {
        scalarize_vector_item(item);
    }
}

/// [`scalarize_vector_registers`] for one item.
pub fn scalarize_vector_item(item: &mut Item) {
    if let Item::Function(f) = item {
        if has_vectors(f) {
            scalarize_function(f);
        }
    }
}

/// A scalarized copy of `module` when it has vector registers, else `None` (no copy made).
pub fn scalarized(module: &Module) -> Option<Module> {
    let any = module
        .items
        .iter()
        .any(|i| matches!(i, Item::Function(f) if has_vectors(f)));
    any.then(|| {
        let mut m = module.clone();
        scalarize_vector_registers(&mut m);
        m
    })
}

fn has_vectors(f: &Function) -> bool {
    fn block_has(b: &Block) -> bool {
        b.statements.iter().any(|s| match s {
            Statement::Var(v) => v.space.value == ptx_isa::StateSpace::Reg && v.vector.is_some(),
            Statement::Block(b) => block_has(b),
            _ => false,
        })
    }
    let split_param = f
        .params
        .iter()
        .flatten()
        .chain(f.returns.iter().flatten())
        .any(|p| p.name.value.contains('$'));
    split_param || f.body.as_ref().is_some_and(block_has)
}

fn scalarize_function(f: &mut Function) {
    let mut vecs: HashMap<SmolStr, Vec<SmolStr>> = HashMap::new();
    // Parameters the parser split (`p$x`, `p$y`, ...).
    for p in f.params.iter().flatten().chain(f.returns.iter().flatten()) {
        if let Some((base, c)) = p.name.value.rsplit_once('$') {
            if let Some(k) = component_index(c) {
                let e = vecs.entry(SmolStr::new(base)).or_default();
                if e.len() == k {
                    e.push(p.name.value.clone());
                }
            }
        }
    }
    let Some(body) = f.body.as_mut() else {
        return;
    };
    declare(body, &mut vecs);
    if !vecs.is_empty() {
        rewrite(body, &vecs);
    }
}

/// Splits vector register declarations of `block` (and nested blocks) into scalar ones.
fn declare(block: &mut Block, vecs: &mut HashMap<SmolStr, Vec<SmolStr>>) {
    for s in &mut block.statements {
        match s {
            Statement::Var(v)
                if v.space.value == ptx_isa::StateSpace::Reg && v.vector.is_some() =>
            {
                let lanes = v.vector.map_or(1, |w| w.value.lanes()) as usize;
                if lanes > 4 {
                    continue;
                }
                let mut decls = Vec::new();
                for d in &v.declarators {
                    let bases: Vec<SmolStr> = match d.range {
                        Some(n) => (0..n)
                            .map(|k| SmolStr::new(format!("{}{k}", d.name.value)))
                            .collect(),
                        None => vec![d.name.value.clone()],
                    };
                    // The first element keeps the declarator's span (what messages point at);
                    // the others have an empty one: they are not in the text.
                    let empty = Span::new(d.name.span.end, d.name.span.end);
                    for base in bases {
                        let names = element_names(&base, lanes);
                        for n in &names {
                            let span = if decls.is_empty() { d.name.span } else { empty };
                            decls.push(Declarator {
                                name: Spanned::new(n.clone(), span),
                                range: None,
                                dims: Vec::new(),
                                init: None,
                                span: d.span,
                            });
                        }
                        vecs.insert(base, names);
                    }
                }
                v.vector = None;
                v.declarators = decls;
            }
            Statement::Block(b) => declare(b, vecs),
            _ => {}
        }
    }
}

fn rewrite(block: &mut Block, vecs: &HashMap<SmolStr, Vec<SmolStr>>) {
    for s in &mut block.statements {
        match s {
            Statement::Instruction(i) => {
                for op in i.op.operands_mut() {
                    rewrite_operand(op, vecs);
                }
            }
            Statement::Block(b) => rewrite(b, vecs),
            _ => {}
        }
    }
}

fn names_of(elems: &[SmolStr], span: Span) -> Vec<Operand> {
    elems
        .iter()
        .map(|n| {
            Operand::Name(Name {
                name: n.clone(),
                component: None,
                span,
            })
        })
        .collect()
}

fn rewrite_operand(op: &mut Operand, vecs: &HashMap<SmolStr, Vec<SmolStr>>) {
    match op {
        Operand::Name(n) => {
            let Some(elems) = vecs.get(&n.name) else {
                return;
            };
            match n.component.as_deref().map(component_index) {
                Some(Some(k)) if k < elems.len() => {
                    n.name = elems[k].clone();
                    n.component = None;
                }
                Some(_) => {}
                None => *op = Operand::Vector(names_of(elems, n.span), n.span),
            }
        }
        Operand::Vector(items, _) | Operand::List(items, _) | Operand::Bracket(items, _) => {
            let mut out = Vec::with_capacity(items.len());
            for mut it in std::mem::take(items) {
                rewrite_operand(&mut it, vecs);
                match it {
                    // A vector register inside a list stands for its elements.
                    Operand::Vector(inner, _) => out.extend(inner),
                    other => out.push(other),
                }
            }
            *items = out;
        }
        Operand::Not(inner, _) => rewrite_operand(inner, vecs),
        _ => {}
    }
}
