//! Static shared memory of each kernel: the `.shared` variables it uses, what `ptxas -v`
//! reports as "N bytes smem". The interpreter lays out every `.shared` variable of the module
//! in one area (`layout.rs`), so a module of several kernels has more static shared memory than
//! any one of them; residency (`crate::residency`) needs each kernel's own.
//!
//! A kernel uses the module-scope `.shared` variables whose names appear in its body or in the
//! body of a function it calls (directly or through other calls, found by name the same way),
//! and the function-scope ones declared in those bodies. Each is placed at its alignment after
//! the previous one, as the layout does.

use ptx_syntax::ast;
use std::collections::{HashMap, HashSet};

/// One placed static `.shared` variable: its binding name (`func\0name` for a function-scope
/// one), bytes and alignment.
pub(super) struct SharedVar {
    pub name: String,
    pub bytes: u64,
    pub align: u64,
}

/// The identifiers of `text` (PTX names: letters, digits, `_`, `$`, `.` after the first).
fn identifiers(text: &str) -> HashSet<&str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
        .filter(|t| !t.is_empty())
        .collect()
}

/// Static shared bytes of each kernel of `module` (by name), from the placed variables `vars`.
pub(super) fn kernel_static_shared(
    module: &ast::Module,
    source: &str,
    vars: &[SharedVar],
) -> HashMap<String, u32> {
    let bodies: HashMap<&str, HashSet<&str>> = module
        .functions()
        .filter_map(|f| {
            let body = f.body.as_ref()?;
            let text = source.get(body.span.start as usize..body.span.end as usize)?;
            Some((f.name.value.as_str(), identifiers(text)))
        })
        .collect();
    let mut out = HashMap::new();
    for f in module
        .functions()
        .filter(|f| f.kind.value == ast::FunctionKind::Entry && f.body.is_some())
    {
        // The kernel and every function it reaches by name.
        let mut reached: Vec<&str> = vec![f.name.value.as_str()];
        let mut seen: HashSet<&str> = reached.iter().copied().collect();
        while let Some(g) = reached.pop() {
            for name in bodies.get(g).into_iter().flatten() {
                if bodies.contains_key(name) && seen.insert(name) {
                    reached.push(name);
                }
            }
        }
        let mut offset = 0u64;
        for v in vars {
            let used = match v.name.split_once('\u{0}') {
                Some((func, _)) => seen.contains(func),
                None => seen.iter().any(|g| {
                    bodies
                        .get(g)
                        .is_some_and(|ids| ids.contains(v.name.as_str()))
                }),
            };
            if used {
                offset = offset.next_multiple_of(v.align.max(1)) + v.bytes;
            }
        }
        out.insert(
            f.name.value.to_string(),
            u32::try_from(offset).unwrap_or(u32::MAX),
        );
    }
    out
}
