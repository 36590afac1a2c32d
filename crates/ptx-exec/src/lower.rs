//! Lowering: the typed AST of a module → a [`Program`] of flat instruction arrays.
//!
//! Done once per module. Registers are resolved through lexical scopes (inline-asm blocks
//! declare registers inside `{ }`), labels to instruction indices, variables to their
//! addresses (global), offsets (shared, local, param, const), and every modifier to an enum.
//! Anything the interpreter cannot run is reported here with its line, before execution.
//!
//! This file: [`lower_module`], lexical scopes, labels, declarations and the instruction
//! dispatch. `lower/layout.rs`: module variables' placement and limits, initializers;
//! `lower/operands.rs`: operands and [`OperandCx`]; `lower/memory.rs`: `ld`/`st`/`cp.async`/
//! `createpolicy`; generic instructions by family: `lower/ops/` (bulk copies and tensor maps: `lower/bulk.rs`).

use crate::program::*;
use crate::ExecError;
use ptx_isa::{PolicyKind, ScalarType, StateSpace, TypeKind, VarType};
use ptx_syntax::ast::{self, Expr, FloatLit, Initializer, Operand, Statement};
use ptx_syntax::{LineIndex, Span};
use std::collections::HashMap;

mod bulk;
mod contract;
mod kernel_shared;
mod layout;
mod memory;
mod operands;
mod ops;

use layout::*;
pub(crate) use memory::space_of;
pub(crate) use operands::OperandCx;

/// Allocates module `.global` variables in device memory: (size, align) → address.
pub type GlobalAllocator<'a> = dyn FnMut(u64, u64) -> Result<u64, ExecError> + 'a;

/// What a name in a function body refers to.
#[derive(Debug, Clone, Copy)]
enum Binding {
    Reg {
        slot: Slot,
        bits: u32,
    },
    Pred(PredIdx),
    /// A variable: its space and address/offset.
    Var {
        space: Space,
        addr: u64,
    },
}

/// How a module is lowered: what ptxas was told when it assembled the code ptxsim stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LowerOptions {
    /// ptxas `--fmad` (default true): contract `mul` + `add`/`sub` without rounding modifiers
    /// into fused multiply-adds as ptxas does (`lower/contract.rs`). Debug modules
    /// (`.target ..., debug`) never contract.
    pub fmad: bool,
}

impl Default for LowerOptions {
    fn default() -> Self {
        LowerOptions { fmad: true }
    }
}

/// Lowers a parsed module. `alloc_global` places `.global` variables; their initial bytes are
/// returned in `inits` for the caller to write.
pub fn lower_module(
    module: &ast::Module,
    source: &str,
    alloc_global: &mut GlobalAllocator<'_>,
    inits: &mut Vec<(u64, Vec<u8>)>,
) -> Result<Program, ExecError> {
    lower_module_with(module, source, alloc_global, inits, LowerOptions::default())
}

/// [`lower_module`] with [`LowerOptions`].
pub fn lower_module_with(
    module: &ast::Module,
    source: &str,
    alloc_global: &mut GlobalAllocator<'_>,
    inits: &mut Vec<(u64, Vec<u8>)>,
    options: LowerOptions,
) -> Result<Program, ExecError> {
    let lines = LineIndex::new(source);
    let mut cx = ModuleCx {
        source,
        lines: &lines,
        globals: HashMap::new(),
        shared_offset: 0,
        shared_align: 16,
        dynamic_shared: Vec::new(),
        shared_vars: Vec::new(),
        const_bytes: Vec::new(),
        global_list: Vec::new(),
    };
    let mut files = HashMap::new();

    // Pass 1: module-scope variables get their places.
    let mut pending_inits = Vec::new();
    for item in &module.items {
        match item {
            ast::Item::File(f) => {
                files.insert(f.index, f.path.clone());
            }
            ast::Item::Var(v) => cx.declare_module_var(v, alloc_global, &mut pending_inits)?,
            _ => {}
        }
    }
    // Function-scope `.shared` variables are static shared memory of the CTA as well.
    for f in module.functions() {
        if let Some(body) = &f.body {
            cx.layout_function_shared(&f.name.value, body)?;
        }
    }
    // Function-scope `.global` variables live in device memory like module ones, named within
    // their function (`func\0name`, as function-scope `.shared` ones are).
    for f in module.functions() {
        if let Some(body) = &f.body {
            for s in &body.statements {
                if let Statement::Var(v) = s {
                    if v.space.value.base() == StateSpace::Global {
                        let mut scoped = v.clone();
                        for d in &mut scoped.declarators {
                            d.name.value = format!("{}\u{0}{}", f.name.value, d.name.value).into();
                        }
                        cx.declare_module_var(&scoped, alloc_global, &mut pending_inits)?;
                    }
                }
            }
        }
    }
    // Initializers may take the address of any variable, so they are evaluated last.
    for (space, addr, ty, decl_span, init, elem_count) in pending_inits {
        let bytes = cx.init_bytes(ty, &init, elem_count, decl_span)?;
        match space {
            Space::Const => {
                let at = addr as usize;
                cx.const_bytes[at..at + bytes.len()].copy_from_slice(&bytes);
            }
            _ => inits.push((addr, bytes)),
        }
    }
    let dyn_align = cx.shared_align.max(16);
    let static_shared = cx.shared_offset;
    let dynamic_base = round_up(static_shared as u64, dyn_align as u64);
    for name in std::mem::take(&mut cx.dynamic_shared) {
        cx.globals.insert(
            name,
            Binding::Var {
                space: Space::Shared,
                addr: dynamic_base,
            },
        );
    }

    // Pass 2: function signatures (calls may precede definitions).
    let mut program = Program {
        functions: Vec::new(),
        by_name: HashMap::new(),
        instrs: Vec::new(),
        files,
        static_shared_bytes: static_shared,
        kernel_static_shared: kernel_shared::kernel_static_shared(module, source, &cx.shared_vars),
        dynamic_shared_align: dyn_align,
        const_bytes: std::mem::take(&mut cx.const_bytes),
        globals: std::mem::take(&mut cx.global_list),
        debug: module
            .target()
            .is_some_and(|t| t.entries.iter().any(|e| e.value == "debug")),
    };
    let defined: Vec<&ast::Function> = module.functions().filter(|f| f.body.is_some()).collect();
    let mut declared: Vec<&ast::Function> = Vec::new();
    for f in module.functions() {
        if f.body.is_none() && !defined.iter().any(|d| d.name.value == f.name.value) {
            declared.push(f);
        }
    }
    for f in defined.iter().chain(declared.iter()) {
        let (params, returns, param_bytes) = cx.layout_signature(f)?;
        let idx = program.functions.len() as u32;
        program.by_name.insert(f.name.value.to_string(), idx);
        program.functions.push(Function {
            name: f.name.value.to_string(),
            is_kernel: f.kind.value == ast::FunctionKind::Entry,
            code: Vec::new(),
            rank: Vec::new(),
            slot_table: Default::default(),
            slice: None,
            slice_exact_stores: None,
            slots: 0,
            slot_bits: Vec::new(),
            preds: 0,
            params,
            returns,
            param_bytes,
            local_bytes: 0,
            frame_save_words: 0,
            uses_dynamic_shared: false,
            unsupported: None,
        });
    }

    // Pass 3: bodies.
    let mut infos = Vec::new();
    for (fi, f) in defined.iter().enumerate() {
        let body = f.body.as_ref().expect("defined functions have bodies");
        let first_id = infos.len();
        let mut lowered =
            match FunctionCx::new(&cx, &program, fi as u32, f).lower_body(body, &mut infos) {
                Ok(l) => l,
                Err(e) => {
                    // One function the interpreter cannot run must not take the module's other
                    // kernels with it; launches that reach it report `e` (Program::check_runnable).
                    infos.truncate(first_id);
                    program.functions[fi].unsupported = Some(e);
                    continue;
                }
            };
        if options.fmad && !program.debug {
            contract::contract(&mut lowered.code, &infos);
        }
        let target = &mut program.functions[fi];
        target.rank = crate::program::schedule_ranks(&lowered.code);
        target.slot_table = crate::program::SlotTable::new(&lowered.code);
        if target.is_kernel {
            let (code, slots, pairs) = (&lowered.code, lowered.slots, &lowered.pair_starts);
            target.slice = crate::program::Slice::of(code, slots, pairs);
            target.slice_exact_stores =
                crate::program::Slice::with_exact_stores(code, slots, pairs);
        }
        target.code = lowered.code;
        target.slots = lowered.slots;
        target.slot_bits = lowered.slot_bits;
        target.preds = lowered.preds;
        target.param_bytes = lowered.param_bytes;
        target.local_bytes = lowered.local_bytes;
        for (p, slot) in target.params.iter_mut().zip(lowered.reg_params) {
            p.reg = slot;
        }
        for (r, slot) in target.returns.iter_mut().zip(lowered.reg_returns) {
            r.reg = slot;
        }
    }
    program.instrs = infos;
    if program.debug {
        // `defined[i]` is `program.functions[i]` (pass 2 pushes the defined ones first).
        for (target, f) in program.functions.iter_mut().zip(&defined) {
            target.frame_save_words = crate::program::frame_save_words(f);
        }
    }
    Ok(program)
}

/// Per-function lowering state.
struct FunctionCx<'a, 's> {
    module: &'a ModuleCx<'s>,
    program: &'a Program,
    func_name: String,
    scopes: Vec<HashMap<String, Binding>>,
    slots: u32,
    slot_bits: Vec<u32>,
    /// The first slots of 128-bit registers (two slots each).
    pair_starts: Vec<Slot>,
    preds: u32,
    param_bytes: u32,
    local_bytes: u32,
    /// Labels by (block, name): a label belongs to the `{ }` block that declares it (inline
    /// asm declares the same label names in many blocks of one function).
    labels: HashMap<(u32, String), Pc>,
    /// The enclosing block of each block (pre-order numbering, 0 = the function body).
    block_parent: Vec<Option<u32>>,
    /// The block being lowered, and the next block number to hand out.
    cur_block: u32,
    next_block: u32,
    /// Branches waiting for their label: (instruction index, target slot (0 for `bra`, the
    /// list position for `brx.idx`), label, span, block of the branch).
    fixups: Vec<(usize, usize, String, Span, u32)>,
    /// `.branchtargets` lists seen so far (ptxas requires a list before its `brx.idx`).
    branch_lists: HashMap<String, Vec<(String, Span)>>,
    code: Vec<Inst>,
    loc: Option<(u32, u32, u32)>,
    reg_params: Vec<Option<Slot>>,
    reg_returns: Vec<Option<Slot>>,
}

struct Lowered {
    code: Vec<Inst>,
    slots: u32,
    slot_bits: Vec<u32>,
    pair_starts: Vec<Slot>,
    preds: u32,
    param_bytes: u32,
    local_bytes: u32,
    reg_params: Vec<Option<Slot>>,
    reg_returns: Vec<Option<Slot>>,
}

impl<'a, 's> FunctionCx<'a, 's> {
    fn new(
        module: &'a ModuleCx<'s>,
        program: &'a Program,
        func_index: u32,
        f: &ast::Function,
    ) -> Self {
        let sig = &program.functions[func_index as usize];
        let mut cx = FunctionCx {
            module,
            program,
            func_name: f.name.value.to_string(),
            scopes: vec![HashMap::new()],
            slots: 0,
            slot_bits: Vec::new(),
            pair_starts: Vec::new(),
            preds: 0,
            param_bytes: sig.param_bytes,
            local_bytes: 0,
            labels: HashMap::new(),
            block_parent: Vec::new(),
            cur_block: 0,
            next_block: 1,
            fixups: Vec::new(),
            branch_lists: HashMap::new(),
            code: Vec::new(),
            loc: None,
            reg_params: Vec::new(),
            reg_returns: Vec::new(),
        };
        let space = if sig.is_kernel {
            Space::KernelParam
        } else {
            Space::Param
        };
        let ast_params = f.params.as_deref().unwrap_or(&[]);
        for (p, ap) in sig.params.iter().zip(ast_params) {
            if ap.space.value == StateSpace::Reg {
                let slot = cx.new_reg(&p.name, p.ty);
                cx.reg_params.push(Some(slot));
            } else {
                cx.reg_params.push(None);
                cx.scopes[0].insert(
                    p.name.clone(),
                    Binding::Var {
                        space,
                        addr: p.offset as u64,
                    },
                );
            }
        }
        let ast_returns = f.returns.as_deref().unwrap_or(&[]);
        for (r, ar) in sig.returns.iter().zip(ast_returns) {
            if ar.space.value == StateSpace::Reg {
                // `.func (.reg .b32 rv) f(...)`: the return value lives in a register.
                let slot = cx.new_reg(&r.name, r.ty);
                cx.reg_returns.push(Some(slot));
                continue;
            }
            cx.reg_returns.push(None);
            cx.scopes[0].insert(
                r.name.clone(),
                Binding::Var {
                    space: Space::Param,
                    addr: r.offset as u64,
                },
            );
        }
        cx
    }

    fn error(&self, span: Span, message: impl Into<String>) -> ExecError {
        self.module.error(span, message)
    }

    fn new_reg(&mut self, name: &str, ty: ScalarType) -> Slot {
        if ty == ScalarType::Pred {
            let idx = self.preds;
            self.preds += 1;
            self.scopes
                .last_mut()
                .unwrap()
                .insert(name.to_string(), Binding::Pred(idx));
            return idx;
        }
        let bits = ty.bits().max(8);
        let slot = self.slots;
        let n = if bits > 64 { 2 } else { 1 };
        for _ in 0..n {
            self.slot_bits.push(bits.min(64));
        }
        if bits > 64 {
            self.slot_bits[slot as usize] = 64;
            self.pair_starts.push(slot);
        }
        self.slots += n;
        self.scopes
            .last_mut()
            .unwrap()
            .insert(name.to_string(), Binding::Reg { slot, bits });
        slot
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        for s in self.scopes.iter().rev() {
            if let Some(b) = s.get(name) {
                return Some(*b);
            }
        }
        let scoped = format!("{}\u{0}{name}", self.func_name);
        self.module
            .globals
            .get(&scoped)
            .or_else(|| self.module.globals.get(name))
            .copied()
    }

    fn lower_body(
        mut self,
        body: &ast::Block,
        infos: &mut Vec<InstrInfo>,
    ) -> Result<Lowered, ExecError> {
        self.block_parent.push(None);
        self.collect_labels(body, 0, &mut 0);
        self.block(body, infos)?;
        // A body that falls off its end returns.
        let id = infos.len() as u32;
        infos.push(InstrInfo {
            function: self.func_name.clone(),
            ptx_line: self.module.lines.line(body.span.end.saturating_sub(1)),
            text: "ret; // end of function".into(),
            loc: self.loc,
        });
        self.code.push(Inst {
            guard: None,
            op: Op::Ret,
            id,
        });
        for (at, slot, label, span, block) in std::mem::take(&mut self.fixups) {
            let target = self.resolve_label(&label, block, span)?;
            match &mut self.code[at].op {
                Op::Bra { target: t, .. } => *t = target,
                Op::BrxIdx { targets, .. } => targets[slot] = target,
                _ => {}
            }
        }
        mark_unread_atom_results(&mut self.code, infos);
        Ok(Lowered {
            code: self.code,
            slots: self.slots,
            slot_bits: self.slot_bits,
            pair_starts: self.pair_starts,
            preds: self.preds,
            param_bytes: self.param_bytes,
            local_bytes: self.local_bytes,
            reg_params: self.reg_params,
            reg_returns: self.reg_returns,
        })
    }

    /// Records each label's instruction index up front, with the block that declares it
    /// (blocks numbered in pre-order, as [`Self::block`] enters them).
    fn collect_labels(&mut self, block: &ast::Block, id: u32, count: &mut u32) {
        for s in &block.statements {
            match s {
                Statement::Label(l) => {
                    self.labels.insert((id, l.value.to_string()), *count);
                }
                Statement::Instruction(_) => *count += 1,
                Statement::Block(b) => {
                    let child = self.block_parent.len() as u32;
                    self.block_parent.push(Some(id));
                    self.collect_labels(b, child, count);
                }
                _ => {}
            }
        }
    }

    /// The label a branch in `block` names: the innermost enclosing block that declares it
    /// (labels are block-scoped, like other identifiers: compiler-emitted inline asm repeats
    /// `LAB_WAIT:`/`DONE:` in many `{ }` blocks of one kernel). A label declared only in one
    /// nested block is also found from outside it.
    fn resolve_label(&self, label: &str, block: u32, span: Span) -> Result<Pc, ExecError> {
        let mut b = Some(block);
        while let Some(id) = b {
            if let Some(&pc) = self.labels.get(&(id, label.to_string())) {
                return Ok(pc);
            }
            b = self.block_parent[id as usize];
        }
        let mut elsewhere = self.labels.iter().filter(|((_, l), _)| l == label);
        match (elsewhere.next(), elsewhere.next()) {
            (Some((_, &pc)), None) => Ok(pc),
            (None, _) => Err(self.error(span, format!("branch to unknown label `{label}`"))),
            (Some(_), Some(_)) => Err(self.error(
                span,
                format!(
                    "label `{label}` is declared in several blocks, none of which encloses this branch"
                ),
            )),
        }
    }

    fn block(&mut self, block: &ast::Block, infos: &mut Vec<InstrInfo>) -> Result<(), ExecError> {
        for s in &block.statements {
            match s {
                Statement::Var(v) => self.declare(v)?,
                Statement::Block(b) => {
                    let outer = self.cur_block;
                    self.cur_block = self.next_block;
                    self.next_block += 1;
                    self.scopes.push(HashMap::new());
                    self.block(b, infos)?;
                    self.scopes.pop();
                    self.cur_block = outer;
                }
                // Code inlined from headers (`__ldca`, pipeline helpers) is attributed to the
                // user's call site, which `.loc … inlined_at` names.
                Statement::Loc(l) => {
                    self.loc = Some(l.inlined_at.unwrap_or((l.file, l.line, l.column)))
                }
                Statement::Instruction(i) => {
                    let id = infos.len() as u32;
                    infos.push(InstrInfo {
                        function: self.func_name.clone(),
                        ptx_line: self.module.lines.line(i.span.start),
                        text: i.to_string(),
                        loc: self.loc,
                    });
                    let op = self.instruction(i)?;
                    let guard = match &i.guard {
                        Some(g) => Some(self.pred_name(&g.predicate.name, g.negated, g.span)?),
                        None => None,
                    };
                    self.code.push(Inst { guard, op, id });
                }
                Statement::TargetList(t) if t.kind == ast::TargetListKind::Branch => {
                    let targets = t
                        .targets
                        .iter()
                        .map(|n| (n.value.to_string(), n.span))
                        .collect();
                    self.branch_lists.insert(t.label.value.to_string(), targets);
                }
                Statement::Label(_)
                | Statement::Pragma(_)
                | Statement::CallPrototype { .. }
                | Statement::TargetList(_) => {}
            }
        }
        Ok(())
    }

    fn declare(&mut self, v: &ast::VarDecl) -> Result<(), ExecError> {
        let VarType::Scalar(ty) = v.ty.value else {
            return Ok(());
        };
        let lanes = v.vector.map_or(1, |x| x.value.lanes());
        let elem = (ty.bytes().max(1) * lanes) as u64;
        let align = v.align.map_or(elem, |a| a.value).max(1);
        for d in &v.declarators {
            let count = element_count(&d.dims, 1);
            match v.space.value.base() {
                StateSpace::Reg => match d.range {
                    Some(n) if n > MAX_REG_RANGE => {
                        return Err(self.error(
                            d.span,
                            format!(
                                "`{}<{n}>` declares more than {MAX_REG_RANGE} registers",
                                d.name.value
                            ),
                        ));
                    }
                    Some(n) => {
                        for k in 0..n {
                            self.new_reg(&format!("{}{k}", d.name.value), ty);
                        }
                    }
                    None => {
                        if lanes > 1 {
                            return Err(self.error(
                                d.span,
                                "vector registers (.reg .v2/.v4) are not supported",
                            ));
                        }
                        self.new_reg(&d.name.value, ty);
                    }
                },
                StateSpace::Local => {
                    let (off, end) = count
                        .and_then(|count| {
                            place(
                                u64::from(self.local_bytes),
                                align,
                                elem,
                                count,
                                MAX_SPACE_BYTES,
                            )
                        })
                        .ok_or_else(|| self.module.too_large(d.span, "local"))?;
                    self.local_bytes = end as u32;
                    self.scopes.last_mut().unwrap().insert(
                        d.name.value.to_string(),
                        Binding::Var {
                            space: Space::Local,
                            addr: off,
                        },
                    );
                }
                StateSpace::Param => {
                    let (off, end) = count
                        .and_then(|count| {
                            place(u64::from(self.param_bytes), align, elem, count, MAX_PARAM_BYTES)
                        })
                        .ok_or_else(|| {
                            self.error(
                                d.span,
                                format!("the function's .param variables take more than {MAX_PARAM_BYTES} bytes"),
                            )
                        })?;
                    self.param_bytes = end as u32;
                    self.scopes.last_mut().unwrap().insert(
                        d.name.value.to_string(),
                        Binding::Var {
                            space: Space::Param,
                            addr: off,
                        },
                    );
                }
                // Shared variables were laid out with the module; consts and globals in a body
                // are rare and resolve through the module table.
                _ => {}
            }
        }
        Ok(())
    }

    // ------------------------------------------------------------------ instructions

    fn instruction(&mut self, i: &ast::Instruction) -> Result<Op, ExecError> {
        use ast::Op as A;
        match &i.op {
            A::Ld(l) => self.load(l, i.span),
            A::St(s) => self.store(s, i.span),
            A::CpAsync(c) => self.cp_async(c, i.span),
            A::CpAsyncCommitGroup(_) => Ok(Op::CpAsyncCommit),
            A::CpAsyncWaitGroup(g) => {
                let n = match g.operands.first() {
                    Some(Operand::Int(v)) => v.value.value as u32,
                    _ => {
                        return Err(
                            self.error(i.span, "cp.async.wait_group needs an integer constant")
                        )
                    }
                };
                Ok(Op::CpAsyncWait { n })
            }
            A::CpAsyncWaitAll(_) => Ok(Op::CpAsyncWaitAll),
            A::CpAsyncMbarrierArrive(m) => {
                let op = m
                    .operands
                    .first()
                    .ok_or_else(|| self.error(i.span, "missing address"))?;
                let space = if m.space.is_some() {
                    Space::Shared
                } else {
                    Space::Generic
                };
                let (addr, sp) = self.addr(op, space)?;
                Ok(Op::CpAsyncMbarrierArrive {
                    addr,
                    generic: sp == Space::Generic,
                    noinc: m.noinc.is_some(),
                })
            }
            A::CreatePolicy(c) => self.create_policy(c, i.span),
            A::Prefetch(p) => {
                let op = p
                    .operands
                    .first()
                    .ok_or_else(|| self.error(i.span, "missing address"))?;
                let space = match p.space.map(|s| s.value.base()) {
                    Some(StateSpace::Global) => Space::Global,
                    Some(StateSpace::Local) => Space::Local,
                    _ => Space::Generic,
                };
                let (addr, space) = self.addr(op, space)?;
                Ok(Op::Prefetch {
                    space,
                    addr,
                    level2: p.level.map(|l| l.value) != Some(ptx_isa::CacheLevel::L1),
                    l2_priority: p.l2_priority.map(|x| x.value.into()),
                })
            }
            A::Generic(g) => ops::lower_generic(self, g, i.span),
        }
    }
}

/// Marks the `atom`s of one function whose destination register no other instruction of it
/// names (as an operand or a destination): their old value is never read, as ptxas's liveness
/// sees it when it turns them into `RED`s. A textual check over the function's instructions,
/// conservative: any other mention counts as a read.
fn mark_unread_atom_results(code: &mut [Inst], infos: &[InstrInfo]) {
    let ids: Vec<usize> = code.iter().map(|i| i.id as usize).collect();
    for k in 0..code.len() {
        let Op::Atom {
            d: Some(_),
            result_unread,
            ..
        } = &mut code[k].op
        else {
            continue;
        };
        let text = &infos[ids[k]].text;
        let Some(dst) = text
            .split_once(char::is_whitespace)
            .and_then(|(_, rest)| rest.split(',').next())
            .map(str::trim)
            .filter(|d| d.starts_with('%'))
        else {
            continue;
        };
        let named = |t: &str| {
            t.match_indices(dst).any(|(at, _)| {
                !t[at + dst.len()..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
            })
        };
        *result_unread = ids
            .iter()
            .enumerate()
            .all(|(j, &id)| j == k || !named(&infos[id].text));
    }
}
