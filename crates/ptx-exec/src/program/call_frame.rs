//! How many 32-bit words a device function of a `-G` (`.target ..., debug`) module saves to
//! local memory at entry (`STL`) and reloads before its `RET` (`LDL`): the rule read off the
//! `-O0` SASS of ptxas 13.5 for sm_90 (what the H100 runs), pinned by
//! `tests/sass/call_frames.sm_90.tsv` (generator `tests/sass/gen_call_frames.py`) and explained
//! in crates/memsys/README.md (row "`-G` builds' local memory").
//!
//! In the CUDA ABI a callee preserves R2, R16–R31 and the convergence barriers it uses, and a
//! call overwrites R20/R21 with the return address. So a function that makes a call in SASS
//! saves, per thread:
//! - 2 words: its own return address (R20/R21);
//! - the callee-saved registers ptxas gives its values: the PTX registers live across one of
//!   its calls, the registers whose `mov` copies are a call's arguments (ptxas coalesces the
//!   copy into the argument register and keeps the original until the call), and the
//!   function's own parameters when they are read in the block of a `call` before it. ptxas
//!   `-O0` reuses a callee-saved register across basic blocks but not inside one, so the count
//!   is the largest union over one block's calls (`atomic_max_double`: 10 words, its calls in
//!   three blocks; the union over all of them would be 14);
//! - 1 word per convergence barrier it keeps (`BMOV.32.CLEAR`): the nesting depth of its
//!   divergent (`@p bra` without `.uni`) branch regions, or 1 where ptxas adds a slow path.
//!
//! A call in SASS is a PTX `call`, or an instruction ptxas expands into a call to its own
//! subroutine at sm_90 (`tests/sass/call_frame_probe.sm_90.tsv`): IEEE-rounded `sqrt`/`div`/
//! `rcp` of `.f32`/`.f64` and `rsqrt.approx.f64` (most behind a slow-path branch: one barrier,
//! see [`inserted_call`]), 64-bit integer `div`/`rem` (no barrier). Their operands are passed in argument registers, not saved. On
//! sm_80 ptxas also calls out for `shfl.sync`, `vote.sync`, `redux.sync` and `match.sync`;
//! that back end is not modelled.
//!
//! Kernels save nothing (they never return to a caller); leaf functions save nothing.

use ptx_isa::{Modifier, Opcode, ScalarType, StateSpace, VarType};
use ptx_syntax::ast::{self, Operand, Statement};
use std::collections::{HashMap, HashSet};

/// The most words a call frame's saves are counted with (a frame saves the return address
/// and registers: at most ptxas's 255 registers; the cap bounds the address layout).
pub const MAX_FRAME_SAVE_WORDS: u32 = 64;

/// Above this many (instruction × register) liveness bits the analysis is not run and the
/// registers are counted as the parameter words (the rule before liveness): a bound on the
/// memory and time a large function can make it take (2 MiB per bit set).
const MAX_LIVENESS_BITS: usize = 1 << 24;

/// The words `f` saves at entry under ptxas 13.5's `-O0` sm_90 ABI (see the module docs).
pub fn frame_save_words(f: &ast::Function) -> u32 {
    let Some(body) = &f.body else { return 0 };
    if f.kind.value == ast::FunctionKind::Entry {
        return 0;
    }
    let own_params: HashSet<&str> = f
        .params
        .iter()
        .flatten()
        .map(|p| p.name.value.as_str())
        .collect();
    let mut flat = Flat::default();
    flat.collect(&body.statements, &own_params);
    let calls: Vec<usize> = (0..flat.items.len())
        .filter(|&i| flat.items[i].call.is_some())
        .collect();
    if calls.is_empty() {
        return 0;
    }
    let barriers = flat.barrier_depth().max(u32::from(
        flat.items
            .iter()
            .any(|i| i.call == Some(CallKind::SlowPath)),
    ));
    let regs = if flat.items.len().saturating_mul(flat.sizes.len().max(1)) > MAX_LIVENESS_BITS {
        f.params
            .iter()
            .flatten()
            .map(|p| p.ty.value.bits().div_ceil(32))
            .sum()
    } else {
        flat.saved_register_words(&calls)
    };
    (2 + regs + barriers).min(MAX_FRAME_SAVE_WORDS)
}

/// What kind of call an instruction is in SASS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CallKind {
    /// A PTX `call`.
    Ptx,
    /// ptxas's slow-path subroutine of an IEEE float operation (a branch around it).
    SlowPath,
    /// ptxas's subroutine called straight (64-bit integer division, directed-rounding
    /// division).
    Subroutine,
}

/// One instruction or branch-target label of the flattened body.
#[derive(Debug, Default)]
struct Item {
    /// `Some(name)` for a label.
    label: Option<String>,
    defs: Vec<u32>,
    uses: Vec<u32>,
    /// Guarded: its definitions may not happen (they do not end a live range).
    guarded: bool,
    call: Option<CallKind>,
    /// Registers passed to a call: `(register, source of the mov that made it)`.
    args: Vec<(u32, Option<u32>)>,
    /// Branch target label, and whether the branch is divergent (`@p bra`, no `.uni`).
    branch: Option<(String, bool)>,
    /// `ret`, `exit`, `trap`: no successor.
    ends: bool,
    /// A load of one of the function's own parameters into a register.
    loads_own_param: bool,
}

#[derive(Default)]
struct Flat {
    items: Vec<Item>,
    /// `.reg` declarations: single names and `%r<n>` ranges (prefix → count), with each
    /// register's size in 32-bit words (0 for predicates).
    declared: HashMap<String, u32>,
    ranges: HashMap<String, (u32, u32)>,
    /// Register name → index (registers the body names); `sizes[index]` is its size in words.
    regs: HashMap<String, u32>,
    sizes: Vec<u32>,
    /// Registers stored into each call-argument `.param` variable since the last call.
    param_args: HashMap<String, Vec<u32>>,
    /// The source register of the last `mov` into each register.
    mov_source: HashMap<u32, u32>,
}

impl Flat {
    fn declare(&mut self, d: &ast::VarDecl) {
        if d.space.value != StateSpace::Reg {
            return;
        }
        let words = match d.ty.value {
            VarType::Scalar(ScalarType::Pred) => 0,
            VarType::Scalar(t) => t.bits().div_ceil(32),
            _ => 2,
        };
        for decl in &d.declarators {
            let name = decl.name.value.to_string();
            match decl.range {
                // `%r<10>` declares `%r0`..`%r9`: kept as a range, its registers get an index
                // when an instruction names them (nothing sized by the declared count).
                Some(n) => {
                    self.ranges.insert(name, (n, words));
                }
                None => {
                    self.declared.insert(name, words);
                }
            }
        }
    }

    /// The index of the register `name`, if it is one the body declares (given on first use).
    fn reg(&mut self, name: &str) -> Option<u32> {
        if let Some(&r) = self.regs.get(name) {
            return Some(r);
        }
        let words = self.declared.get(name).copied().or_else(|| {
            let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
            let (prefix, index) = name.split_at(name.len() - digits);
            let index: u32 = index.parse().ok()?;
            let &(count, words) = self.ranges.get(prefix)?;
            (index < count).then_some(words)
        })?;
        let r = self.sizes.len() as u32;
        self.regs.insert(name.to_string(), r);
        self.sizes.push(words);
        Some(r)
    }

    /// Every register an operand names.
    fn operand_regs(&mut self, op: &Operand, out: &mut Vec<u32>) {
        match op {
            Operand::Name(n) => out.extend(self.reg(&n.name)),
            Operand::Vector(v, _) | Operand::Bracket(v, _) | Operand::List(v, _) => {
                for o in v {
                    self.operand_regs(o, out);
                }
            }
            Operand::Address(a) => {
                if let Some(b) = &a.base {
                    out.extend(self.reg(&b.name));
                }
            }
            Operand::Not(o, _) => self.operand_regs(o, out),
            Operand::PredPair(a, b, _) => {
                out.extend(self.reg(&a.name));
                out.extend(self.reg(&b.name));
            }
            Operand::Indexed(n, o, _) => {
                out.extend(self.reg(&n.name));
                self.operand_regs(o, out);
            }
            Operand::Int(_) | Operand::Float(_) | Operand::Expr(_) | Operand::Sink(_) => {}
        }
    }

    fn collect(&mut self, statements: &[Statement], own_params: &HashSet<&str>) {
        for s in statements {
            match s {
                Statement::Var(d) => self.declare(d),
                Statement::Block(b) => self.collect(&b.statements, own_params),
                Statement::Label(l) => self.items.push(Item {
                    label: Some(l.value.to_string()),
                    ..Item::default()
                }),
                Statement::Instruction(i) => {
                    let item = self.instruction(i, own_params);
                    self.items.push(item);
                }
                _ => {}
            }
        }
    }

    fn instruction(&mut self, inst: &ast::Instruction, own_params: &HashSet<&str>) -> Item {
        let opcode = inst.op.opcode();
        let ops = inst.op.operands();
        let mut item = Item::default();
        if let Some(g) = &inst.guard {
            item.uses.extend(self.reg(&g.predicate.name));
            item.guarded = true;
        }
        let generic = match &inst.op {
            ast::Op::Generic(g) => Some(g),
            _ => None,
        };
        match opcode {
            Some(Opcode::Call) => {
                item.call = Some(CallKind::Ptx);
                // `call (rets), f, (args)`: the lists are the operands that are lists; a
                // call with no return values has one list, the arguments.
                let lists: Vec<&Operand> = ops
                    .iter()
                    .filter(|o| matches!(o, Operand::List(..)))
                    .collect();
                let (rets, args) = match lists.as_slice() {
                    [r, a] => (Some(*r), Some(*a)),
                    [a] if !matches!(ops.first(), Some(Operand::List(..))) => (None, Some(*a)),
                    [r] => (Some(*r), None),
                    _ => (None, None),
                };
                if let Some(r) = rets {
                    self.operand_regs(r, &mut item.defs);
                }
                if let Some(Operand::List(args, _)) = args {
                    for a in args {
                        let mut regs = Vec::new();
                        match a {
                            Operand::Name(n) if self.reg(&n.name).is_none() => {
                                regs = self.param_args.remove(n.name.as_str()).unwrap_or_default()
                            }
                            _ => self.operand_regs(a, &mut regs),
                        }
                        for r in regs {
                            item.uses.push(r);
                            item.args.push((r, self.mov_source.get(&r).copied()));
                        }
                    }
                }
                self.param_args.clear();
                return item;
            }
            Some(Opcode::Bra) => {
                if let Some(Operand::Name(n)) = ops.first() {
                    let uni = generic.is_some_and(|g| g.has(Modifier::Uni));
                    let divergent = inst.guard.is_some() && !uni;
                    item.branch = Some((n.name.to_string(), divergent));
                }
                return item;
            }
            Some(Opcode::Ret | Opcode::Exit | Opcode::Trap) => {
                item.ends = true;
                return item;
            }
            _ => {}
        }
        item.call = generic.zip(opcode).and_then(|(g, op)| inserted_call(op, g));
        // A destination is the first operand unless it is an address (`st`, `red`, `cp.async`,
        // `mbarrier.init`, `prefetch` have none).
        let mut rest = ops;
        if let Some(first) = ops.first() {
            if !matches!(first, Operand::Address(_) | Operand::Indexed(..)) && !no_dest(&inst.op) {
                self.operand_regs(first, &mut item.defs);
                rest = &ops[1..];
            }
        }
        for o in rest {
            self.operand_regs(o, &mut item.uses);
        }
        if let ast::Op::Ld(ld) | ast::Op::St(ld) = &inst.op {
            let is_param = ld.space.is_some_and(|s| s.value == StateSpace::Param);
            let addr = ld.operands.iter().find_map(|o| match o {
                Operand::Address(a) => a.base.as_ref().map(|b| b.name.to_string()),
                _ => None,
            });
            if let (true, Some(addr)) = (is_param, addr) {
                if matches!(inst.op, ast::Op::Ld(_)) {
                    item.loads_own_param = own_params.contains(addr.as_str());
                } else if self.reg(&addr).is_none() && !own_params.contains(addr.as_str()) {
                    // `st.param [param0], %r5`: an argument of the next call.
                    let regs = item.uses.clone();
                    self.param_args.entry(addr).or_default().extend(regs);
                }
            }
        }
        if opcode == Some(Opcode::Mov)
            && item.defs.len() == 1
            && item.uses.len() == 1
            && !item.guarded
        {
            self.mov_source.insert(item.defs[0], item.uses[0]);
        } else {
            for d in &item.defs {
                self.mov_source.remove(d);
            }
        }
        item
    }

    /// Successors of each item (instruction-level control flow).
    fn successors(&self) -> Vec<Vec<usize>> {
        let labels: HashMap<&str, usize> = self
            .items
            .iter()
            .enumerate()
            .filter_map(|(i, it)| it.label.as_deref().map(|l| (l, i)))
            .collect();
        let n = self.items.len();
        self.items
            .iter()
            .enumerate()
            .map(|(i, it)| {
                let next = (i + 1 < n).then_some(i + 1);
                if it.ends && !it.guarded {
                    return Vec::new();
                }
                match &it.branch {
                    Some((target, _)) => {
                        let t = labels.get(target.as_str()).copied();
                        if it.guarded {
                            t.into_iter().chain(next).collect()
                        } else {
                            t.into_iter().collect()
                        }
                    }
                    None => next.into_iter().collect(),
                }
            })
            .collect()
    }

    /// The largest number of divergent branch regions (from a `@p bra` to its target, either
    /// direction) one instruction lies in: the convergence barriers ptxas nests there.
    fn barrier_depth(&self) -> u32 {
        let labels: HashMap<&str, usize> = self
            .items
            .iter()
            .enumerate()
            .filter_map(|(i, it)| it.label.as_deref().map(|l| (l, i)))
            .collect();
        let mut delta = vec![0i32; self.items.len() + 1];
        for (i, it) in self.items.iter().enumerate() {
            if let Some((target, true)) = &it.branch {
                if let Some(&t) = labels.get(target.as_str()) {
                    let (lo, hi) = (i.min(t), i.max(t));
                    delta[lo] += 1;
                    delta[hi + 1] -= 1;
                }
            }
        }
        let mut depth = 0i32;
        let mut best = 0i32;
        for d in delta {
            depth += d;
            best = best.max(depth);
        }
        best as u32
    }

    /// The callee-saved register words: the largest union, over one basic block's calls, of
    /// the registers live across a call, the `mov` sources of a PTX call's arguments and the
    /// function's parameters read in the block before a PTX call.
    fn saved_register_words(&self, calls: &[usize]) -> u32 {
        let n = self.items.len();
        let words = self.sizes.len().div_ceil(64).max(1);
        let succ = self.successors();
        let bit = |set: &mut [u64], r: u32| set[r as usize / 64] |= 1 << (r % 64);
        let mut defs = vec![0u64; n * words];
        let mut uses = vec![0u64; n * words];
        for (i, it) in self.items.iter().enumerate() {
            it.uses
                .iter()
                .for_each(|&r| bit(&mut uses[i * words..(i + 1) * words], r));
            if !it.guarded {
                it.defs
                    .iter()
                    .for_each(|&r| bit(&mut defs[i * words..(i + 1) * words], r));
            }
        }
        // Backward liveness to a fixed point: live_in = uses | (live_out & !defs).
        let mut live_in = vec![0u64; n * words];
        let mut live_out = vec![0u64; n * words];
        let mut out = vec![0u64; words];
        let mut changed = true;
        while changed {
            changed = false;
            for i in (0..n).rev() {
                out.fill(0);
                for &s in &succ[i] {
                    for w in 0..words {
                        out[w] |= live_in[s * words + w];
                    }
                }
                for w in 0..words {
                    let inn = uses[i * words + w] | (out[w] & !defs[i * words + w]);
                    if inn != live_in[i * words + w] || out[w] != live_out[i * words + w] {
                        changed = true;
                        live_in[i * words + w] = inn;
                        live_out[i * words + w] = out[w];
                    }
                }
            }
        }
        let targets: HashSet<&str> = self
            .items
            .iter()
            .filter_map(|it| it.branch.as_ref().map(|(t, _)| t.as_str()))
            .collect();
        // The first item of the basic block each item belongs to.
        let mut block_start = vec![0usize; n];
        let mut start = 0;
        for (i, it) in self.items.iter().enumerate() {
            if it.label.as_deref().is_some_and(|l| targets.contains(l)) {
                start = i;
            }
            block_start[i] = start;
            if it.branch.is_some() || it.ends {
                start = i + 1;
            }
        }
        let own_params: Vec<u32> = self
            .items
            .iter()
            .filter(|it| it.loads_own_param)
            .flat_map(|it| it.defs.iter().copied())
            .collect();
        let mut per_block: HashMap<usize, HashSet<u32>> = HashMap::new();
        for &c in calls {
            let it = &self.items[c];
            let set = per_block.entry(block_start[c]).or_default();
            // Live across: live after the call and not written by it.
            for r in 0..self.sizes.len() as u32 {
                let (w, b) = (r as usize / 64, 1u64 << (r % 64));
                if live_out[c * words + w] & b != 0 && !it.defs.contains(&r) {
                    set.insert(r);
                }
            }
            if it.call != Some(CallKind::Ptx) {
                continue;
            }
            set.extend(it.args.iter().filter_map(|&(_, source)| source));
            let b = block_start[c];
            for &p in &own_params {
                let (w, bit) = (p as usize / 64, 1u64 << (p % 64));
                let seen = live_in[b * words + w] & bit != 0
                    || self.items[b..c]
                        .iter()
                        .any(|x| x.defs.contains(&p) || x.uses.contains(&p));
                if seen {
                    set.insert(p);
                }
            }
        }
        per_block
            .values()
            .map(|set| set.iter().map(|&r| self.sizes[r as usize]).sum::<u32>())
            .max()
            .unwrap_or(0)
    }
}

/// Opcodes whose first operand is not a destination.
fn no_dest(op: &ast::Op) -> bool {
    use Opcode::*;
    match op {
        // The typed `cp.async` forms (a generic `cp`, the bulk copies, is not among them).
        ast::Op::CpAsync(_)
        | ast::Op::CpAsyncCommitGroup(_)
        | ast::Op::CpAsyncWaitGroup(_)
        | ast::Op::CpAsyncWaitAll(_)
        | ast::Op::CpAsyncMbarrierArrive(_) => true,
        op => matches!(
            op.opcode(),
            Some(
                St | Red
                    | Bar
                    | Barrier
                    | Membar
                    | Fence
                    | Prefetch
                    | Prefetchu
                    | Brkpt
                    | Nanosleep
                    | Pmevent
                    | Griddepcontrol
            )
        ),
    }
}

/// Whether ptxas 13.5 turns the instruction into a call of its own subroutine at sm_90, and
/// whether that call sits behind a slow-path branch (a convergence barrier to keep), as
/// `tests/sass/call_frame_probe.sm_90.tsv` measured: every IEEE-rounded `sqrt`/`div`/`rcp` of
/// `.f32`/`.f64` and `rsqrt.approx.f64` call; the `.rn` forms and `.f32` `sqrt`/`rcp` in any
/// rounding keep a barrier (3 words with the return address), the other roundings do not (2),
/// nor do 64-bit integer `div`/`rem` (2).
fn inserted_call(op: Opcode, g: &ast::GenericInstruction) -> Option<CallKind> {
    let float = g.has(ScalarType::F32) || g.has(ScalarType::F64);
    let ieee =
        g.has(Modifier::Rn) || g.has(Modifier::Rz) || g.has(Modifier::Rm) || g.has(Modifier::Rp);
    match op {
        Opcode::Sqrt | Opcode::Div | Opcode::Rcp if float && ieee => {
            if g.has(Modifier::Rn) || (g.has(ScalarType::F32) && op != Opcode::Div) {
                Some(CallKind::SlowPath)
            } else {
                Some(CallKind::Subroutine)
            }
        }
        Opcode::Rsqrt if g.has(Modifier::Approx) && g.has(ScalarType::F64) => {
            Some(CallKind::SlowPath)
        }
        Opcode::Div | Opcode::Rem if g.has(ScalarType::S64) || g.has(ScalarType::U64) => {
            Some(CallKind::Subroutine)
        }
        _ => None,
    }
}
