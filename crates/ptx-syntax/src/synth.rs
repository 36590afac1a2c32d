//! Large, valid modules built from real ones, for benchmarks.

use crate::ast::{Block, Item, Module, Statement};
use smol_str::SmolStr;

/// Repeats every function with a body of `module` under new names (`name_1`, `name_2`, …)
/// until the printed text is at least `min_bytes` long, dropping debug sections (their
/// module-scope labels cannot be repeated) and the `.loc` attributes that point into them. The
/// result prints to PTX that ptxas accepts
/// whenever the original does.
pub fn repeat_functions(module: &Module, min_bytes: usize) -> Module {
    let mut base: Vec<Item> = module
        .items
        .iter()
        .filter(|i| !matches!(i, Item::Section(_)))
        .cloned()
        .collect();
    let functions: Vec<Item> = base
        .iter()
        .filter(|i| matches!(i, Item::Function(f) if f.body.is_some()))
        .cloned()
        .collect();
    base.retain(|i| !matches!(i, Item::Function(f) if f.body.is_some()));
    let one_copy = crate::print(&Module {
        items: functions.clone(),
        span: module.span,
    })
    .len()
    .max(1);
    let copies = min_bytes.div_ceil(one_copy).max(1);
    let mut items = base;
    for k in 1..=copies {
        for f in &functions {
            let Item::Function(f) = f else { continue };
            let mut f = f.clone();
            f.name.value = SmolStr::new(format!("{}_{k}", f.name.value));
            if let Some(body) = &mut f.body {
                strip_loc_attributes(body);
            }
            items.push(Item::Function(f));
        }
    }
    Module {
        items,
        span: module.span,
    }
}

/// Drops `function_name`/`inlined_at` from every `.loc` (they name debug-section labels).
fn strip_loc_attributes(block: &mut Block) {
    for s in &mut block.statements {
        match s {
            Statement::Loc(l) => {
                l.function_name = None;
                l.inlined_at = None;
            }
            Statement::Block(b) => strip_loc_attributes(b),
            _ => {}
        }
    }
}

/// Drops every `.loc` line from the bodies of `module`'s functions (a module as ptxas sees it
/// when it is compiled without line info).
pub fn drop_loc_lines(module: &mut Module) {
    fn drop_in(block: &mut Block) {
        block.statements.retain(|s| !matches!(s, Statement::Loc(_)));
        for s in &mut block.statements {
            if let Statement::Block(b) = s {
                drop_in(b);
            }
        }
    }
    for item in &mut module.items {
        if let Item::Function(f) = item {
            if let Some(body) = &mut f.body {
                drop_in(body);
            }
        }
    }
}
