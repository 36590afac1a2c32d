//! The names an instruction can see: module-scope variables and functions, the function's
//! parameters, and the registers and variables of every enclosing `{ }` scope (with `%r<N>`
//! ranges), plus the special registers.

use ptx_isa::{ScalarType, StateSpace, VarType};
use ptx_syntax::ast::{Item, Param, VarDecl};
use rustc_hash::FxHashMap;
use smol_str::SmolStr;
use std::borrow::Borrow;
use std::cell::RefCell;
use std::hash::Hash;

/// What a variable is, as the ld/st/cp.async rules distinguish it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VarKind {
    Global,
    Const,
    Shared,
    Local,
    Tex,
    /// Any other space (`.sreg` …).
    Other,
    /// A kernel's `.param`.
    KernelParam,
    /// A device function's input parameter.
    FuncParam,
    /// A device function's return parameter.
    FuncReturn,
    /// A `.param` declared in a function body (a call argument or return value); the index
    /// into the function's call-sequence state.
    LocalParam(u32),
}

impl VarKind {
    pub fn is_param(self) -> bool {
        matches!(
            self,
            VarKind::KernelParam
                | VarKind::FuncParam
                | VarKind::FuncReturn
                | VarKind::LocalParam(_)
        )
    }
}

/// A declared variable.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Var {
    pub kind: VarKind,
    /// The declared type as written (`.b32`), for ptxas's out-of-bounds note.
    pub ty: &'static str,
    /// Its size in bytes (element size times the array dimensions).
    pub bytes: u64,
}

/// What a name resolves to.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Sym {
    /// A register of this declared type.
    Reg(ScalarType),
    Var(Var),
    /// A kernel or device function.
    Func,
}

/// One scope's names; `K` is `&str` into the function's syntax tree, or an owned string for
/// the module scope, which outlives the trees it was declared from.
struct Frame<K> {
    /// Names without a `%` (parameters, variables, functions).
    names: FxHashMap<K, Sym>,
    /// `%` names declared one by one (`.reg .b32 %x;`). Kept apart from `names`: register
    /// operands are nearly all `%` names, and generated code declares its registers as ranges
    /// only, so most lookups find this map empty and hash nothing.
    percent_names: FxHashMap<K, Sym>,
    /// `%r<10>`: prefix → (count, type).
    ranges: Ranges<K>,
}

impl<K> Default for Frame<K> {
    fn default() -> Self {
        Frame {
            names: FxHashMap::default(),
            percent_names: FxHashMap::default(),
            ranges: Ranges::default(),
        }
    }
}

impl<K: Borrow<str> + Hash + Eq + Clone> Frame<K> {
    /// Declares a name (a later declaration of it in the same scope wins, as before).
    fn insert(&mut self, name: K, sym: Sym) {
        if name.borrow().starts_with('%') {
            self.percent_names.insert(name, sym);
        } else {
            self.names.insert(name, sym);
        }
    }

    fn get(&self, name: &str) -> Option<Sym> {
        let names = if name.starts_with('%') {
            &self.percent_names
        } else {
            &self.names
        };
        if !names.is_empty() {
            if let Some(s) = names.get(name) {
                return Some(*s);
            }
        }
        if !self.ranges.is_empty() {
            return self.ranges.register(name).map(Sym::Reg);
        }
        None
    }
}

/// Register ranges of one scope (`%r<10>`: the prefix `%r`, 10 and the type). A function
/// declares a handful (Triton: `%p`, `%rs`, `%r`, `%f`, `%rd`) and nearly every operand is
/// looked up here, so a short list compared inline byte by byte, which is cheaper than hashing
/// the prefix, serves up to [`Ranges::LINEAR`] prefixes; past that a hash index takes over.
struct Ranges<K> {
    list: Vec<(K, (u32, ScalarType))>,
    index: Option<FxHashMap<K, usize>>,
}

impl<K> Default for Ranges<K> {
    fn default() -> Self {
        Ranges {
            list: Vec::new(),
            index: None,
        }
    }
}

/// `a == b` without a `memcmp` call (prefixes are a few bytes).
#[inline]
fn short_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

impl<K: Borrow<str> + Hash + Eq + Clone> Ranges<K> {
    const LINEAR: usize = 16;

    fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    fn position(&self, prefix: &str) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(prefix).copied(),
            None => self
                .list
                .iter()
                .position(|(k, _)| short_eq(k.borrow().as_bytes(), prefix.as_bytes())),
        }
    }

    fn get(&self, prefix: &str) -> Option<(u32, ScalarType)> {
        self.position(prefix).map(|at| self.list[at].1)
    }

    /// The type of `name` if it is a member of one of the ranges (`%r3` of `%r<10>`): its
    /// prefix is the name without its trailing digits ([`split_index`]). With the short list
    /// each prefix is matched against the front of the name instead: one that does not end
    /// in a digit and is followed by digits alone is exactly that prefix, and cutting the
    /// digits off first was as costly as the search.
    fn register(&self, name: &str) -> Option<ScalarType> {
        if self.index.is_some() {
            let (prefix, index) = split_index(name)?;
            let (count, ty) = self.get(prefix)?;
            return (index < count).then_some(ty);
        }
        let bytes = name.as_bytes();
        for (prefix, (count, ty)) in &self.list {
            let prefix = prefix.borrow().as_bytes();
            let Some((&last, _)) = prefix.split_last() else {
                continue;
            };
            if last.is_ascii_digit()
                || bytes.len() <= prefix.len()
                || !short_eq(&bytes[..prefix.len()], prefix)
            {
                continue;
            }
            let digits = &bytes[prefix.len()..];
            if !digits.iter().all(u8::is_ascii_digit) {
                continue;
            }
            let index = parse_index(digits)?;
            return (index < *count).then_some(*ty);
        }
        None
    }

    /// Declares `prefix<count>`; a later declaration of the prefix in the scope replaces it.
    fn insert<'v>(&mut self, prefix: &'v str, value: (u32, ScalarType))
    where
        K: From<&'v str>,
    {
        if let Some(at) = self.position(prefix) {
            self.list[at].1 = value;
            return;
        }
        self.list.push((K::from(prefix), value));
        if let Some(index) = &mut self.index {
            index.insert(K::from(prefix), self.list.len() - 1);
        } else if self.list.len() > Self::LINEAR {
            let index = self
                .list
                .iter()
                .enumerate()
                .map(|(at, (k, _))| (k.clone(), at))
                .collect();
            self.index = Some(index);
        }
    }
}

/// The module's names: its variables and functions, declared as the walk reaches them.
#[derive(Default)]
pub(crate) struct ModuleScope {
    frame: Frame<SmolStr>,
}

impl ModuleScope {
    /// No names yet: ptxas reads a module in one pass, so a name is visible only after its
    /// declaration ([`ModuleScope::declare_item`]).
    pub fn new() -> Self {
        ModuleScope::default()
    }

    /// Declares a module-scope variable or function (a function before its body is walked:
    /// it may call itself).
    pub fn declare_item(&mut self, item: &Item) {
        match item {
            Item::Var(v) => declare(&mut self.frame, v, None),
            Item::Function(f) => {
                self.frame.insert(f.name.value.clone(), Sym::Func);
            }
            _ => {}
        }
    }
}

/// The names an instruction of the function being checked sees: the module's, then a stack
/// of the function's scopes.
pub(crate) struct Scopes<'m> {
    module: &'m ModuleScope,
    frames: Vec<Frame<&'m str>>,
    /// Number of body `.param` variables declared so far in this function.
    pub local_params: u32,
    /// The last few lookups: the ld/st and cp.async rules look the same operand up three or
    /// four times, and a lookup is a pure function of the scopes (cleared whenever they
    /// change) and the name.
    recent: RefCell<Recent>,
}

/// Names of up to 16 bytes with what they resolved to, replaced round-robin.
struct Recent {
    keys: [RecentKey; 8],
    syms: [Option<Sym>; 8],
    next: usize,
}

impl Default for Recent {
    fn default() -> Self {
        Recent {
            keys: [RecentKey::EMPTY; 8],
            syms: [None; 8],
            next: 0,
        }
    }
}

/// A name's length with its bytes read as (overlapping) words: the words cover every byte, so
/// for one length equal keys are equal names.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct RecentKey {
    len: usize,
    bytes: [u64; 2],
}

impl RecentKey {
    /// No name has this length.
    const EMPTY: RecentKey = RecentKey {
        len: usize::MAX,
        bytes: [0; 2],
    };

    /// Two loads per name instead of a loop over its bytes (the key is made for every
    /// lookup, a few per ld/st).
    fn of(name: &str) -> Option<RecentKey> {
        let b = name.as_bytes();
        let len = b.len();
        let u32_at =
            |at: usize| u64::from(u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]));
        let u64_at = |at: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&b[at..at + 8]);
            u64::from_le_bytes(w)
        };
        let bytes = match len {
            0 => [0, 0],
            1..=3 => [
                u64::from(b[0]) | u64::from(b[len / 2]) << 8 | u64::from(b[len - 1]) << 16,
                0,
            ],
            4..=7 => [u32_at(0) | u32_at(len - 4) << 32, 0],
            8..=16 => [u64_at(0), u64_at(len - 8)],
            _ => return None,
        };
        Some(RecentKey { len, bytes })
    }
}

fn var_kind(space: StateSpace) -> VarKind {
    match space.base() {
        StateSpace::Global => VarKind::Global,
        StateSpace::Const => VarKind::Const,
        StateSpace::Shared => VarKind::Shared,
        StateSpace::Local => VarKind::Local,
        StateSpace::Tex => VarKind::Tex,
        StateSpace::Param => VarKind::KernelParam,
        _ => VarKind::Other,
    }
}

fn type_token(ty: VarType) -> &'static str {
    ty.token()
}

fn type_bytes(ty: VarType) -> u64 {
    match ty {
        VarType::Scalar(t) => u64::from(t.bytes()),
        VarType::Opaque(_) => 8,
    }
}

fn array_bytes(elem: u64, dims: &[Option<u64>]) -> u64 {
    dims.iter()
        .fold(elem, |acc, d| acc.saturating_mul(d.unwrap_or(1)))
}

impl<'m> Scopes<'m> {
    /// The module's names so far, and no function scope yet.
    pub fn new(module: &'m ModuleScope) -> Self {
        Scopes {
            module,
            frames: Vec::new(),
            local_params: 0,
            recent: RefCell::default(),
        }
    }

    /// Forgets the recent lookups (the scopes are about to change).
    fn changed(&mut self) {
        *self.recent.get_mut() = Recent::default();
    }

    /// Enters a function: its parameters form the outermost function scope.
    pub fn enter_function(
        &mut self,
        returns: Option<&'m [Param]>,
        params: Option<&'m [Param]>,
        kernel: bool,
    ) {
        self.changed();
        self.frames.clear();
        self.local_params = 0;
        let mut frame = Frame::default();
        let mut add = |p: &'m Param, kind: VarKind| {
            let sym = if p.space.value == StateSpace::Reg {
                Sym::Reg(p.ty.value)
            } else {
                Sym::Var(Var {
                    kind,
                    ty: p.ty.value.token(),
                    bytes: array_bytes(u64::from(p.ty.value.bytes()), &p.dims),
                })
            };
            frame.insert(p.name.value.as_str(), sym);
        };
        for p in returns.unwrap_or_default() {
            add(p, VarKind::FuncReturn);
        }
        for p in params.unwrap_or_default() {
            add(
                p,
                if kernel {
                    VarKind::KernelParam
                } else {
                    VarKind::FuncParam
                },
            );
        }
        self.frames.push(frame);
    }

    pub fn push(&mut self) {
        self.changed();
        self.frames.push(Frame::default());
    }

    pub fn pop(&mut self) {
        self.changed();
        self.frames.pop();
    }

    /// Declares a body-scope variable or register.
    pub fn declare(&mut self, v: &'m VarDecl) {
        self.changed();
        let mut next = self.local_params;
        if let Some(frame) = self.frames.last_mut() {
            declare(frame, v, Some(&mut next));
        }
        self.local_params = next;
    }

    /// Resolves a name in the innermost scope that declares it.
    pub fn lookup(&self, name: &str) -> Option<Sym> {
        let key = RecentKey::of(name);
        if let Some(key) = key {
            let recent = self.recent.borrow();
            if let Some(at) = recent.keys.iter().position(|k| *k == key) {
                return recent.syms[at];
            }
        }
        let sym = self.resolve(name);
        if let Some(key) = key {
            let mut recent = self.recent.borrow_mut();
            let at = recent.next;
            recent.keys[at] = key;
            recent.syms[at] = sym;
            recent.next = (at + 1) % recent.keys.len();
        }
        sym
    }

    /// [`Scopes::lookup`] without the recent lookups.
    fn resolve(&self, name: &str) -> Option<Sym> {
        self.frames
            .iter()
            .rev()
            .find_map(|f| f.get(name))
            .or_else(|| self.module.frame.get(name))
            .or_else(|| special_register(name).map(Sym::Reg))
    }

    /// The declared type of a register, if `name` is one.
    pub fn reg(&self, name: &str) -> Option<ScalarType> {
        match self.lookup(name) {
            Some(Sym::Reg(t)) => Some(t),
            _ => None,
        }
    }
}

fn declare<'v, K: From<&'v str> + Borrow<str> + Hash + Eq + Clone>(
    frame: &mut Frame<K>,
    v: &'v VarDecl,
    local_params: Option<&mut u32>,
) {
    if v.space.value == StateSpace::Reg {
        let ty = match v.ty.value {
            VarType::Scalar(t) => t,
            VarType::Opaque(_) => ScalarType::B64,
        };
        for d in &v.declarators {
            match d.range {
                Some(n) => {
                    frame.ranges.insert(d.name.value.as_str(), (n, ty));
                }
                None => {
                    frame.insert(d.name.value.as_str().into(), Sym::Reg(ty));
                }
            }
        }
        return;
    }
    let mut kind = var_kind(v.space.value);
    let mut counter = local_params;
    for d in &v.declarators {
        if kind == VarKind::KernelParam || matches!(kind, VarKind::LocalParam(_)) {
            if let Some(n) = counter.as_deref_mut() {
                kind = VarKind::LocalParam(*n);
                *n += 1;
            }
        }
        let bytes = array_bytes(type_bytes(v.ty.value), &d.dims);
        frame.insert(
            d.name.value.as_str().into(),
            Sym::Var(Var {
                kind,
                ty: type_token(v.ty.value),
                bytes,
            }),
        );
    }
}

/// `%r12` → (`%r`, 12). Leading zeros are not range members; an index past `u32` is none.
/// (A byte loop: every register operand comes here, and `str::parse` was a third of a
/// lookup.)
fn split_index(name: &str) -> Option<(&str, u32)> {
    let bytes = name.as_bytes();
    let mut start = bytes.len();
    while start > 0 && bytes[start - 1].is_ascii_digit() {
        start -= 1;
    }
    let digits = &bytes[start..];
    if digits.is_empty() || start == 0 {
        return None;
    }
    // `bytes[start]` is an ASCII digit: a char boundary.
    Some((&name[..start], parse_index(digits)?))
}

/// A range index from its ASCII digits: none with a leading zero (`%r01` is no member) or
/// past `u32`.
fn parse_index(digits: &[u8]) -> Option<u32> {
    if digits.len() > 1 && digits[0] == b'0' {
        return None;
    }
    let mut index: u32 = 0;
    for &d in digits {
        index = index.checked_mul(10)?.checked_add(u32::from(d - b'0'))?;
    }
    Some(index)
}

/// True if `name` (without a `.x` component) is a predefined special register.
pub(crate) fn is_special(name: &str) -> bool {
    special_register(name).is_some()
}

/// The predefined special registers and their types (a `match`, which compiles to a
/// length switch and a few compares: every name that no scope declares ends here).
fn special_register(name: &str) -> Option<ScalarType> {
    match name {
        "%tid"
        | "%ntid"
        | "%laneid"
        | "%warpid"
        | "%nwarpid"
        | "%ctaid"
        | "%nctaid"
        | "%smid"
        | "%nsmid"
        | "%lanemask_eq"
        | "%lanemask_le"
        | "%lanemask_lt"
        | "%lanemask_ge"
        | "%lanemask_gt"
        | "%clock"
        | "%clock_hi"
        | "%pm0"
        | "%pm1"
        | "%pm2"
        | "%pm3"
        | "%pm4"
        | "%pm5"
        | "%pm6"
        | "%pm7"
        | "%total_smem_size"
        | "%aggr_smem_size"
        | "%dynamic_smem_size"
        | "%clusterid"
        | "%nclusterid"
        | "%cluster_ctaid"
        | "%cluster_nctaid"
        | "%cluster_ctarank"
        | "%cluster_nctarank"
        | "%is_explicit_cluster"
        | "%current_graph_exec" => Some(ScalarType::U32),
        "%clock64"
        | "%pm0_64"
        | "%pm1_64"
        | "%pm2_64"
        | "%pm3_64"
        | "%pm4_64"
        | "%pm5_64"
        | "%pm6_64"
        | "%pm7_64"
        | "%gridid"
        | "%globaltimer"
        | "%globaltimer_lo"
        | "%globaltimer_hi"
        | "%reserved_smem_offset_begin"
        | "%reserved_smem_offset_end"
        | "%reserved_smem_offset_cap" => Some(ScalarType::U64),
        _ if name.starts_with("%envreg")
            && split_index(name).is_some_and(|(p, i)| p == "%envreg" && i < 32) =>
        {
            Some(ScalarType::B32)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Equal keys are equal names: every name of up to 16 bytes over a small alphabet (each
    /// position varied on its own, and all pairs of positions), against every other.
    #[test]
    fn recent_keys_tell_names_apart() {
        let mut names = vec![String::new()];
        for len in 1..=16usize {
            let base: Vec<u8> = (0..len).map(|i| b"%rdf_$0"[i % 7]).collect();
            names.push(String::from_utf8(base.clone()).unwrap());
            for a in 0..len {
                for b in a..len {
                    let mut v = base.clone();
                    v[a] = b'x';
                    v[b] = b'y';
                    names.push(String::from_utf8(v).unwrap());
                }
            }
        }
        names.sort();
        names.dedup();
        let keys: Vec<RecentKey> = names.iter().map(|n| RecentKey::of(n).unwrap()).collect();
        for (i, a) in keys.iter().enumerate() {
            assert_eq!(RecentKey::of(&names[i]), Some(*a));
            for (j, b) in keys.iter().enumerate() {
                assert_eq!(a == b, i == j, "{:?} and {:?}", names[i], names[j]);
            }
        }
        assert_eq!(RecentKey::of("%r_seventeen_byte"), None);
    }

    #[test]
    fn split_names() {
        assert_eq!(split_index("%r12"), Some(("%r", 12)));
        assert_eq!(split_index("%rd0"), Some(("%rd", 0)));
        assert_eq!(split_index("%r01"), None);
        assert_eq!(split_index("%r"), None);
        assert_eq!(split_index("12"), None);
        assert_eq!(split_index("%r4294967295"), Some(("%r", u32::MAX)));
        assert_eq!(split_index("%r4294967296"), None);
        assert_eq!(split_index("%r0"), Some(("%r", 0)));
    }

    /// The short list's prefix match gives what cutting the digits off and looking the
    /// prefix up gives (the hash-index path), for every name.
    #[test]
    fn range_members_match_the_split_lookup() {
        let mut ranges: Ranges<&str> = Ranges::default();
        let decls = [
            ("%r", 10, ScalarType::B32),
            ("%rd", 4, ScalarType::B64),
            ("%r1", 3, ScalarType::U16), // ends in a digit: never a prefix
            ("x", 2, ScalarType::F32),
            ("%p", u32::MAX, ScalarType::Pred),
            ("%rd", 6, ScalarType::U64), // redeclared: the later one wins
        ];
        for (prefix, count, ty) in decls {
            ranges.insert(prefix, (count, ty));
        }
        let split = |name: &str| {
            let (prefix, index) = split_index(name)?;
            let (count, ty) = ranges.get(prefix)?;
            (index < count).then_some(ty)
        };
        let names = [
            "%r0",
            "%r9",
            "%r10",
            "%r12",
            "%r1",
            "%r10",
            "%r01",
            "%r00",
            "%rd5",
            "%rd6",
            "%rd",
            "%r",
            "%r1x",
            "x0",
            "x1",
            "x2",
            "x",
            "%p4294967294",
            "%p4294967295",
            "%p99999999999",
            "%r4294967296",
            "%rd0",
            "%f1",
            "12",
            "",
            "%",
            "%rx1",
        ];
        for name in names {
            assert_eq!(ranges.register(name), split(name), "{name}");
        }
        assert_eq!(ranges.register("%rd5"), Some(ScalarType::U64));
        assert_eq!(ranges.register("%r9"), Some(ScalarType::B32));
        assert_eq!(ranges.register("%r10"), None);
    }

    #[test]
    fn scopes_resolve_innermost_first() {
        let text = ".version 8.0\n.target sm_80\n.address_size 64\n.global .b32 g[4];\n\
            .visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<4>;\n{\n.reg .b64 %r<2>;\n.param .b32 a;\n}\n}\n";
        let m = ptx_syntax::parse(text).unwrap();
        let f = m.function("k").unwrap();
        let mut module = ModuleScope::new();
        for item in &m.items {
            module.declare_item(item);
        }
        let mut s = Scopes::new(&module);
        s.enter_function(f.returns.as_deref(), f.params.as_deref(), true);
        let body = f.body.as_ref().unwrap();
        let ptx_syntax::ast::Statement::Var(outer) = &body.statements[0] else {
            panic!()
        };
        s.declare(outer);
        assert_eq!(s.reg("%r3"), Some(ScalarType::B32));
        assert_eq!(s.reg("%r4"), None);
        // Remembered here; the inner scope's declaration must not be answered from memory.
        assert_eq!(s.reg("%r1"), Some(ScalarType::B32));
        let ptx_syntax::ast::Statement::Block(b) = &body.statements[1] else {
            panic!()
        };
        s.push();
        for st in &b.statements {
            if let ptx_syntax::ast::Statement::Var(v) = st {
                s.declare(v);
            }
        }
        assert_eq!(s.reg("%r1"), Some(ScalarType::B64));
        assert_eq!(s.reg("%r3"), Some(ScalarType::B32));
        assert!(matches!(
            s.lookup("a"),
            Some(Sym::Var(Var {
                kind: VarKind::LocalParam(0),
                ..
            }))
        ));
        s.pop();
        assert_eq!(s.reg("%r1"), Some(ScalarType::B32));
        assert!(matches!(
            s.lookup("p"),
            Some(Sym::Var(Var {
                kind: VarKind::KernelParam,
                bytes: 8,
                ..
            }))
        ));
        assert!(matches!(
            s.lookup("g"),
            Some(Sym::Var(Var {
                kind: VarKind::Global,
                bytes: 16,
                ..
            }))
        ));
        assert!(matches!(s.lookup("k"), Some(Sym::Func)));
        assert_eq!(s.reg("%tid"), Some(ScalarType::U32));
    }
}
