//! Lowering: the typed AST of a module → a [`Program`] of flat instruction arrays.
//!
//! Done once per module. Registers are resolved through lexical scopes (inline-asm blocks
//! declare registers inside `{ }`), labels to instruction indices, variables to their
//! addresses (global), offsets (shared, local, param, const), and every modifier to an enum.
//! Anything the interpreter cannot run is reported here with its line, before execution.

use crate::program::*;
use crate::ExecError;
use ptx_isa::{
    CacheOperator, L1EvictionPriority, L2EvictionPriority, MemorySemantics, PolicyKind,
    PrefetchSize, ScalarType, Scope, StateSpace, TypeKind, VarType,
};
use ptx_syntax::ast::{self, Expr, FloatLit, Initializer, Operand, Statement};
use ptx_syntax::{LineIndex, Span};
use std::collections::HashMap;

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

/// Lowers a parsed module. `alloc_global` places `.global` variables; their initial bytes are
/// returned in `inits` for the caller to write.
pub fn lower_module(
    module: &ast::Module,
    source: &str,
    alloc_global: &mut GlobalAllocator<'_>,
    inits: &mut Vec<(u64, Vec<u8>)>,
) -> Result<Program, ExecError> {
    let lines = LineIndex::new(source);
    let mut cx = ModuleCx {
        source,
        lines: &lines,
        globals: HashMap::new(),
        shared_offset: 0,
        shared_align: 16,
        dynamic_shared: Vec::new(),
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
        dynamic_shared_align: dyn_align,
        const_bytes: std::mem::take(&mut cx.const_bytes),
        globals: std::mem::take(&mut cx.global_list),
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
            slots: 0,
            slot_bits: Vec::new(),
            preds: 0,
            params,
            returns,
            param_bytes,
            local_bytes: 0,
            uses_dynamic_shared: false,
            unsupported: None,
        });
    }

    // Pass 3: bodies.
    let mut infos = Vec::new();
    for (fi, f) in defined.iter().enumerate() {
        let body = f.body.as_ref().expect("defined functions have bodies");
        let first_id = infos.len();
        let lowered =
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
        let target = &mut program.functions[fi];
        target.rank = crate::program::schedule_ranks(&lowered.code);
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
    Ok(program)
}

/// Most `.const` bytes a module may declare: "Constant memory is restricted in size,
/// currently limited to 64 KB which can be used to hold statically-sized constant variables.
/// There is an additional 640 KB of constant memory, organized as ten independent 64 KB
/// regions." (PTX ISA, "Constant State Space").
const MAX_CONST_BYTES: u64 = 64 * 1024 * 11;
/// Most `.shared` or `.local` bytes the declarations of a module or function may take: far
/// past any GPU's (227 KB of shared memory per block, 512 KB of local memory per thread); the
/// launch checks the GPU's own limits.
const MAX_SPACE_BYTES: u64 = u32::MAX as u64;
/// Most bytes of `.param` variables in one function body (the call arguments it builds):
/// far past any call's, and a bound on the per-thread parameter area the interpreter keeps
/// for each of a warp's 32 lanes.
const MAX_PARAM_BYTES: u64 = 1 << 20;
/// Most registers one `.reg` declaration may declare with `%r<N>`.
const MAX_REG_RANGE: u32 = 1 << 18;

/// The bytes of a variable of `count` elements of `elem` bytes placed at `off` rounded up to
/// `align`: (offset, end), or `None` when the end passes `limit`.
fn place(off: u64, align: u64, elem: u64, count: u64, limit: u64) -> Option<(u64, u64)> {
    let start = off.checked_next_multiple_of(align.max(1))?;
    let end = start.checked_add(elem.checked_mul(count)?)?;
    (end <= limit).then_some((start, end))
}

/// The element count of an array declarator (`None` when the product overflows).
fn element_count(dims: &[Option<u64>], unsized_as: u64) -> Option<u64> {
    dims.iter()
        .try_fold(1u64, |n, d| n.checked_mul(d.unwrap_or(unsized_as)))
}

fn round_up(v: u64, align: u64) -> u64 {
    if align <= 1 {
        v
    } else {
        v.div_ceil(align) * align
    }
}

type PendingInit = (Space, u64, ScalarType, Span, Initializer, u64);

struct ModuleCx<'s> {
    source: &'s str,
    lines: &'s LineIndex,
    globals: HashMap<String, Binding>,
    shared_offset: u32,
    shared_align: u32,
    dynamic_shared: Vec<String>,
    const_bytes: Vec<u8>,
    global_list: Vec<(String, u64, u64)>,
}

impl ModuleCx<'_> {
    fn error(&self, span: Span, message: impl Into<String>) -> ExecError {
        let lc = self.lines.line_col(span.start, self.source);
        ExecError::Unsupported {
            line: lc.line,
            column: lc.col,
            message: message.into(),
        }
    }

    fn too_large(&self, span: Span, space: &str) -> ExecError {
        self.error(
            span,
            format!("the .{space} variables take more than {MAX_SPACE_BYTES} bytes"),
        )
    }

    /// Places a `.shared` variable of `count` elements of `elem` bytes after those placed so
    /// far and binds `name` to its offset (`count` None: its size overflows 64 bits).
    fn place_static_shared(
        &mut self,
        name: String,
        span: Span,
        align: u64,
        elem: u64,
        count: Option<u64>,
    ) -> Result<(), ExecError> {
        let (off, end) = count
            .and_then(|count| {
                place(
                    u64::from(self.shared_offset),
                    align,
                    elem,
                    count,
                    MAX_SPACE_BYTES,
                )
            })
            .ok_or_else(|| self.too_large(span, "shared"))?;
        self.shared_offset = end as u32;
        self.shared_align = self.shared_align.max(align as u32);
        self.globals.insert(
            name,
            Binding::Var {
                space: Space::Shared,
                addr: off,
            },
        );
        Ok(())
    }

    /// A `.shared` array whose size the launch gives (`extern`, or no size): laid out after
    /// the static ones when the launch's dynamic shared memory is known.
    fn declare_dynamic_shared(&mut self, name: String, align: u64) {
        self.shared_align = self.shared_align.max(align as u32);
        self.dynamic_shared.push(name);
    }

    fn declare_module_var(
        &mut self,
        v: &ast::VarDecl,
        alloc: &mut GlobalAllocator<'_>,
        inits: &mut Vec<PendingInit>,
    ) -> Result<(), ExecError> {
        let VarType::Scalar(ty) = v.ty.value else {
            // Texture/sampler/surface handles: no storage the interpreter models.
            return Ok(());
        };
        let lanes = v.vector.map_or(1, |x| x.value.lanes()) as u64;
        let elem = ty.bytes().max(1) as u64 * lanes;
        let align = v.align.map_or(elem, |a| a.value).max(1);
        let is_extern = v.linkage.iter().any(|l| l.value == ast::Linkage::Extern);
        for d in &v.declarators {
            let count = element_count(&d.dims, 0)
                .ok_or_else(|| self.error(d.span, "the array's size overflows 64 bits"))?;
            let size = elem
                .checked_mul(count)
                .ok_or_else(|| self.error(d.span, "the array's size overflows 64 bits"))?;
            let name = d.name.value.to_string();
            match v.space.value.base() {
                StateSpace::Shared => {
                    if is_extern || d.dims.iter().any(|x| x.is_none()) {
                        self.declare_dynamic_shared(name, align);
                    } else {
                        self.place_static_shared(name, d.span, align, elem, Some(count))?;
                    }
                }
                StateSpace::Const => {
                    let (off, end) = place(
                        self.const_bytes.len() as u64,
                        align,
                        elem,
                        count,
                        MAX_CONST_BYTES,
                    )
                    .ok_or_else(|| {
                        self.error(
                            d.span,
                            format!(
                                "the module's .const variables take more than {MAX_CONST_BYTES} bytes (64 KB plus ten 64 KB regions, the PTX ISA's limit)"
                            ),
                        )
                    })?;
                    self.const_bytes.resize(end as usize, 0);
                    self.globals.insert(
                        name,
                        Binding::Var {
                            space: Space::Const,
                            addr: off,
                        },
                    );
                    if let Some(init) = &d.init {
                        inits.push((Space::Const, off, ty, d.span, init.clone(), count));
                    }
                }
                StateSpace::Global => {
                    let addr = alloc(size.max(1), align.max(16))?;
                    self.globals.insert(
                        name.clone(),
                        Binding::Var {
                            space: Space::Global,
                            addr,
                        },
                    );
                    self.global_list.push((name, addr, size));
                    if let Some(init) = &d.init {
                        inits.push((Space::Global, addr, ty, d.span, init.clone(), count));
                    }
                }
                _ => {
                    // Module-scope .local/.param are not meaningful to run.
                }
            }
        }
        Ok(())
    }

    fn layout_function_shared(&mut self, func: &str, block: &ast::Block) -> Result<(), ExecError> {
        for s in &block.statements {
            match s {
                Statement::Var(v) if v.space.value.base() == StateSpace::Shared => {
                    let VarType::Scalar(ty) = v.ty.value else {
                        continue;
                    };
                    let lanes = v.vector.map_or(1, |x| x.value.lanes()) as u64;
                    let elem = ty.bytes().max(1) as u64 * lanes;
                    let align = v.align.map_or(elem, |a| a.value).max(1);
                    for d in &v.declarators {
                        let name = format!("{func}\u{0}{}", d.name.value);
                        if v.linkage.iter().any(|l| l.value == ast::Linkage::Extern) {
                            self.declare_dynamic_shared(name, align);
                            continue;
                        }
                        let count = element_count(&d.dims, 1);
                        self.place_static_shared(name, d.span, align, elem, count)?;
                    }
                }
                Statement::Block(b) => self.layout_function_shared(func, b)?,
                _ => {}
            }
        }
        Ok(())
    }

    /// Lays out parameters: kernel params in the launch's param buffer, device-function params
    /// and returns in the per-thread param area.
    fn layout_signature(
        &self,
        f: &ast::Function,
    ) -> Result<(Vec<ParamSlot>, Vec<ParamSlot>, u32), ExecError> {
        let mut offset = 0u32;
        let mut lay = |list: &[ast::Param]| -> Result<Vec<ParamSlot>, ExecError> {
            list.iter()
                .map(|p| {
                    let elem = u64::from(p.ty.value.bytes().max(1));
                    let align = u64::from(p.align.unwrap_or(p.ty.value.bytes().max(1)).max(1));
                    let (off, end) = element_count(&p.dims, 1)
                        .and_then(|count| {
                            place(u64::from(offset), align, elem, count, MAX_PARAM_BYTES)
                        })
                        .ok_or_else(|| {
                            self.error(
                                p.name.span,
                                format!("the parameters take more than {MAX_PARAM_BYTES} bytes"),
                            )
                        })?;
                    if p.space.value != StateSpace::Reg {
                        offset = end as u32;
                    }
                    Ok(ParamSlot {
                        name: p.name.value.to_string(),
                        ty: p.ty.value,
                        offset: off as u32,
                        size: (end - off) as u32,
                        reg: None,
                    })
                })
                .collect()
        };
        let params = lay(f.params.as_deref().unwrap_or(&[]))?;
        let returns = lay(f.returns.as_deref().unwrap_or(&[]))?;
        Ok((params, returns, offset))
    }

    /// Evaluates a constant initializer into bytes.
    fn init_bytes(
        &self,
        ty: ScalarType,
        init: &Initializer,
        elem_count: u64,
        span: Span,
    ) -> Result<Vec<u8>, ExecError> {
        let mut flat = Vec::new();
        flatten_init(init, &mut flat);
        let elem = ty.bytes().max(1) as usize;
        let len = (elem as u64).saturating_mul(elem_count.max(flat.len() as u64));
        let mut out = crate::limits::zeroed(len, "a variable's initial value")?;
        for (i, e) in flat.iter().enumerate() {
            let v = self.const_value(e, ty)?;
            out[i * elem..(i + 1) * elem].copy_from_slice(&v.to_le_bytes()[..elem.min(8)]);
        }
        if out.is_empty() {
            return Err(self.error(span, "empty initializer"));
        }
        Ok(out)
    }

    fn const_value(&self, e: &Expr, ty: ScalarType) -> Result<u64, ExecError> {
        match e {
            Expr::Float(f) => Ok(float_bits(&f.value, ty)),
            _ => {
                let v = self.eval_int(e)?;
                Ok(if ty.kind() == TypeKind::Float {
                    float_from_int(v, ty)
                } else {
                    v as u64
                })
            }
        }
    }

    fn eval_int(&self, e: &Expr) -> Result<i128, ExecError> {
        use ast::BinaryOp as B;
        Ok(match e {
            Expr::Int(i) => i.value.value,
            Expr::Float(f) => f.value.to_f64() as i128,
            Expr::Name(n) => match self.globals.get(n.value.as_str()) {
                Some(Binding::Var { addr, .. }) => *addr as i128,
                _ => {
                    return Err(self.error(
                        n.span,
                        format!("unknown symbol `{}` in initializer", n.value),
                    ))
                }
            },
            Expr::Call(name, arg, span) => {
                if name.value != "generic" {
                    return Err(self.error(
                        *span,
                        format!("unsupported `{}(...)` in initializer", name.value),
                    ));
                }
                self.eval_int(arg)?
            }
            Expr::Paren(inner, _) => self.eval_int(inner)?,
            Expr::Unary(op, inner, _) => {
                let v = self.eval_int(inner)?;
                match op {
                    ast::UnaryOp::Neg => -v,
                    ast::UnaryOp::Plus => v,
                    ast::UnaryOp::Not => (v == 0) as i128,
                    ast::UnaryOp::BitNot => !v,
                }
            }
            Expr::Binary(op, a, b, span) => {
                let (a, b) = (self.eval_int(a)?, self.eval_int(b)?);
                match op {
                    B::Add => a.wrapping_add(b),
                    B::Sub => a.wrapping_sub(b),
                    B::Mul => a.wrapping_mul(b),
                    B::Div | B::Rem if b == 0 => {
                        return Err(self.error(*span, "division by zero in a constant expression"))
                    }
                    B::Div => a / b,
                    B::Rem => a % b,
                    B::Shl => a.wrapping_shl((b & 127) as u32),
                    B::Shr => a.wrapping_shr((b & 127) as u32),
                    B::BitAnd => a & b,
                    B::BitOr => a | b,
                    B::BitXor => a ^ b,
                    B::And => ((a != 0) && (b != 0)) as i128,
                    B::Or => ((a != 0) || (b != 0)) as i128,
                    B::Lt => (a < b) as i128,
                    B::Gt => (a > b) as i128,
                    B::Le => (a <= b) as i128,
                    B::Ge => (a >= b) as i128,
                    B::Eq => (a == b) as i128,
                    B::Ne => (a != b) as i128,
                }
            }
        })
    }
}

fn flatten_init<'a>(init: &'a Initializer, out: &mut Vec<&'a Expr>) {
    match init {
        Initializer::Expr(e) => out.push(e),
        Initializer::List(items, _) => items.iter().for_each(|i| flatten_init(i, out)),
    }
}

/// The bits of a float literal as a value of `ty` (hex literals of the type's width are taken
/// bit for bit; others are converted with round-to-nearest).
pub(crate) fn float_bits(f: &FloatLit, ty: ScalarType) -> u64 {
    match (f, ty.bits()) {
        (FloatLit::F32Bits(b), 32) => *b as u64,
        (FloatLit::F64Bits(b), 64) => *b,
        (_, 64) if ty.kind() == TypeKind::Float => f.to_f64().to_bits(),
        (_, 32) if ty.kind() == TypeKind::Float => (f.to_f64() as f32).to_bits() as u64,
        (FloatLit::F32Bits(b), _) => *b as u64,
        (FloatLit::F64Bits(b), _) => *b,
        (FloatLit::Decimal(_), 16) if matches!(ty, ScalarType::F16 | ScalarType::Bf16) => {
            let fmt = if ty == ScalarType::F16 {
                ptx_semantics::round::F16
            } else {
                ptx_semantics::round::BF16
            };
            ptx_semantics::half::from_f64(fmt, f.to_f64(), ptx_semantics::Rnd::Rn)
        }
        (FloatLit::Decimal(_), _) => f.to_f64() as i64 as u64,
    }
}

fn float_from_int(v: i128, ty: ScalarType) -> u64 {
    match ty {
        ScalarType::F64 => (v as f64).to_bits(),
        ScalarType::F32 => (v as f32).to_bits() as u64,
        _ => v as u64,
    }
}

/// Per-function lowering state.
struct FunctionCx<'a, 's> {
    module: &'a ModuleCx<'s>,
    program: &'a Program,
    func_name: String,
    scopes: Vec<HashMap<String, Binding>>,
    slots: u32,
    slot_bits: Vec<u32>,
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
    /// Branches waiting for their label: (instruction index, label, span, block of the branch).
    fixups: Vec<(usize, String, Span, u32)>,
    code: Vec<Inst>,
    loc: Option<(u32, u32, u32)>,
    reg_params: Vec<Option<Slot>>,
    reg_returns: Vec<Option<Slot>>,
}

struct Lowered {
    code: Vec<Inst>,
    slots: u32,
    slot_bits: Vec<u32>,
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
            preds: 0,
            param_bytes: sig.param_bytes,
            local_bytes: 0,
            labels: HashMap::new(),
            block_parent: Vec::new(),
            cur_block: 0,
            next_block: 1,
            fixups: Vec::new(),
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
        for (at, label, span, block) in std::mem::take(&mut self.fixups) {
            let target = self.resolve_label(&label, block, span)?;
            if let Op::Bra { target: t, .. } = &mut self.code[at].op {
                *t = target;
            }
        }
        mark_unread_atom_results(&mut self.code, infos);
        Ok(Lowered {
            code: self.code,
            slots: self.slots,
            slot_bits: self.slot_bits,
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
                Statement::Label(_) | Statement::Pragma(_) | Statement::CallPrototype { .. } => {}
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

    // ------------------------------------------------------------------ operands

    fn pred_name(&self, name: &str, negated: bool, span: Span) -> Result<PredSrc, ExecError> {
        match self.lookup(name) {
            Some(Binding::Pred(idx)) => Ok(PredSrc::Reg { idx, negated }),
            _ => Err(self.error(span, format!("`{name}` is not a predicate register"))),
        }
    }

    fn pred_src(&self, op: &Operand) -> Result<PredSrc, ExecError> {
        match op {
            Operand::Name(n) => self.pred_name(&n.name, false, n.span),
            Operand::Not(inner, _) => match self.pred_src(inner)? {
                PredSrc::Reg { idx, negated } => Ok(PredSrc::Reg {
                    idx,
                    negated: !negated,
                }),
                PredSrc::Const(c) => Ok(PredSrc::Const(!c)),
            },
            Operand::Int(i) => Ok(PredSrc::Const(i.value.value != 0)),
            other => Err(self.error(other.span(), "expected a predicate")),
        }
    }

    fn pred_dst(&self, op: &Operand) -> Result<Option<PredIdx>, ExecError> {
        match op {
            Operand::Sink(_) => Ok(None),
            Operand::Name(n) => match self.pred_name(&n.name, false, n.span)? {
                PredSrc::Reg { idx, .. } => Ok(Some(idx)),
                PredSrc::Const(_) => unreachable!(),
            },
            other => Err(self.error(other.span(), "expected a predicate register")),
        }
    }

    fn special(name: &str, component: Option<&str>) -> Option<Special> {
        let c = match component {
            Some("x") | None => 0,
            Some("y") => 1,
            Some("z") => 2,
            _ => 3,
        };
        Some(match name {
            "%tid" => Special::Tid(c),
            "%ntid" => Special::Ntid(c),
            "%ctaid" => Special::Ctaid(c),
            "%nctaid" => Special::Nctaid(c),
            "%laneid" => Special::LaneId,
            "%warpid" => Special::WarpId,
            "%nwarpid" => Special::NWarpId,
            "%smid" => Special::SmId,
            "%nsmid" => Special::NSmId,
            "%gridid" => Special::GridId,
            "%clock" => Special::Clock,
            "%clock64" => Special::Clock64,
            "%globaltimer" | "%globaltimer_lo" | "%globaltimer_hi" => Special::GlobalTimer,
            "%lanemask_eq" => Special::LaneMaskEq,
            "%lanemask_lt" => Special::LaneMaskLt,
            "%lanemask_le" => Special::LaneMaskLe,
            "%lanemask_gt" => Special::LaneMaskGt,
            "%lanemask_ge" => Special::LaneMaskGe,
            "%dynamic_smem_size" => Special::DynamicSmemSize,
            "%total_smem_size" => Special::TotalSmemSize,
            "%clusterid" => Special::ClusterId(c),
            "%nclusterid" => Special::NClusterId(c),
            "%cluster_ctaid" => Special::ClusterCtaId(c),
            "%cluster_nctaid" => Special::ClusterNCtaId(c),
            "%cluster_ctarank" => Special::ClusterCtaRank,
            "%cluster_nctarank" => Special::ClusterNCtaRank,
            n if n.starts_with("%envreg")
                || n.starts_with("%pm")
                || n == "%is_explicit_cluster" =>
            {
                Special::Zero
            }
            _ => return None,
        })
    }

    /// A source operand of an instruction of type `ty` (immediates converted to it).
    fn src(&self, op: &Operand, ty: ScalarType) -> Result<Src, ExecError> {
        match op {
            Operand::Name(n) => {
                if let Some(b) = self.lookup(&n.name) {
                    return match b {
                        Binding::Reg { slot, bits } => {
                            if n.component.is_some() {
                                return Err(self.error(
                                    n.span,
                                    "register components (.x/.y) are not supported",
                                ));
                            }
                            let _ = bits;
                            Ok(Src::Reg(slot))
                        }
                        Binding::Var { space, addr } => {
                            Ok(Src::Imm(self.symbol_value(space, addr)))
                        }
                        Binding::Pred(_) => {
                            Err(self
                                .error(n.span, format!("`{}` is a predicate, not a value", n.name)))
                        }
                    };
                }
                if let Some(s) = Self::special(&n.name, n.component.as_deref()) {
                    return Ok(Src::Special(s));
                }
                if let Some(&f) = self.program.by_name.get(n.name.as_str()) {
                    // The address of a function (indirect calls): its index.
                    return Ok(Src::Imm(f as u64));
                }
                Err(self.error(n.span, format!("unknown name `{}`", n.name)))
            }
            Operand::Int(i) => Ok(Src::Imm(if ty.kind() == TypeKind::Float {
                float_from_int(i.value.value, ty)
            } else {
                i.value.value as u64
            })),
            Operand::Float(f) => Ok(Src::Imm(float_bits(&f.value, ty))),
            Operand::Expr(e) => Ok(Src::Imm(self.eval_expr(e)? as u64)),
            other => Err(self.error(other.span(), "expected a register or an immediate")),
        }
    }

    /// The value of a variable's name used as an operand: its address in its space (generic
    /// for globals, offsets for shared/local/param/const).
    fn symbol_value(&self, space: Space, addr: u64) -> u64 {
        match space {
            Space::KernelParam => crate::memory::KERNEL_PARAM_WINDOW + addr,
            _ => addr,
        }
    }

    fn eval_expr(&self, e: &Expr) -> Result<i128, ExecError> {
        match e {
            Expr::Name(n) => match self.lookup(&n.value) {
                Some(Binding::Var { space, addr }) => Ok(self.symbol_value(space, addr) as i128),
                _ => self.module.eval_int(e),
            },
            Expr::Binary(op, a, b, span) => {
                let (a, b) = (self.eval_expr(a)?, self.eval_expr(b)?);
                Ok(match op {
                    ast::BinaryOp::Add => a.wrapping_add(b),
                    ast::BinaryOp::Sub => a.wrapping_sub(b),
                    ast::BinaryOp::Mul => a.wrapping_mul(b),
                    _ => {
                        return Err(
                            self.error(*span, "unsupported operator in an operand expression")
                        )
                    }
                })
            }
            Expr::Paren(inner, _) => self.eval_expr(inner),
            _ => self.module.eval_int(e),
        }
    }

    fn dst(&self, op: &Operand) -> Result<Dst, ExecError> {
        match op {
            Operand::Sink(_) => Ok(Dst::Sink),
            Operand::Name(n) => match self.lookup(&n.name) {
                Some(Binding::Reg { slot, .. }) => Ok(Dst::Reg(slot)),
                Some(Binding::Pred(_)) => Err(self.error(
                    n.span,
                    format!("`{}` is a predicate; expected a value register", n.name),
                )),
                _ => Err(self.error(n.span, format!("`{}` is not a register", n.name))),
            },
            other => Err(self.error(other.span(), "expected a destination register")),
        }
    }

    fn reg_bits(&self, op: &Operand) -> u32 {
        match op {
            Operand::Name(n) => match self.lookup(&n.name) {
                Some(Binding::Reg { bits, .. }) => bits,
                _ => 64,
            },
            _ => 64,
        }
    }

    /// An address operand; returns the resolved address and the space implied by a symbol
    /// base (a register base keeps `space`).
    fn addr(&self, op: &Operand, space: Space) -> Result<(Addr, Space), ExecError> {
        let Operand::Address(a) = op else {
            return Err(self.error(op.span(), "expected an address `[...]`"));
        };
        match &a.base {
            None => Ok((
                Addr {
                    base: None,
                    offset: a.offset,
                },
                space,
            )),
            Some(b) => match self.lookup(&b.name) {
                Some(Binding::Reg { slot, .. }) => Ok((
                    Addr {
                        base: Some(slot),
                        offset: a.offset,
                    },
                    space,
                )),
                Some(Binding::Var { space: vs, addr }) => {
                    let resolved = if space == Space::Generic {
                        // A variable named in a generic access: use its generic address.
                        vs
                    } else if vs == Space::KernelParam && space == Space::Param {
                        Space::KernelParam
                    } else {
                        space
                    };
                    Ok((
                        Addr {
                            base: None,
                            offset: addr as i64 + a.offset,
                        },
                        resolved,
                    ))
                }
                _ => Err(self.error(b.span, format!("unknown address base `{}`", b.name))),
            },
        }
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
                    l2_priority: p.l2_priority.map(|x| l2_priority(x.value)),
                })
            }
            A::Generic(g) => crate::lower_ops::lower_generic(self, g, i.span),
        }
    }

    fn hints(&self, ls: &ast::LoadStore) -> MemHints {
        let semantics = match (ls.mmio.is_some(), ls.effective_semantics()) {
            (true, _) => memsys::Semantics::Mmio,
            (_, MemorySemantics::Weak) => memsys::Semantics::Weak,
            (_, MemorySemantics::Volatile) => memsys::Semantics::Volatile,
            (_, MemorySemantics::Relaxed) => memsys::Semantics::Relaxed,
            (_, MemorySemantics::Acquire) => memsys::Semantics::Acquire,
            (_, MemorySemantics::Release) => memsys::Semantics::Release,
        };
        MemHints {
            operator: ls.cache_op.map(|c| cache_operator(c.value)),
            semantics,
            scope: ls.scope.map_or(memsys::Scope::Gpu, |s| match s.value {
                Scope::Cta => memsys::Scope::Cta,
                Scope::Cluster => memsys::Scope::Cluster,
                Scope::Gpu => memsys::Scope::Gpu,
                Scope::Sys => memsys::Scope::Sys,
            }),
            non_coherent: ls.nc.is_some(),
            l1_priority: ls.l1_priority.map(|p| match p.value {
                L1EvictionPriority::EvictNormal => memsys::L1EvictionPriority::Normal,
                L1EvictionPriority::EvictUnchanged => memsys::L1EvictionPriority::Unchanged,
                L1EvictionPriority::EvictFirst => memsys::L1EvictionPriority::First,
                L1EvictionPriority::EvictLast => memsys::L1EvictionPriority::Last,
                L1EvictionPriority::NoAllocate => memsys::L1EvictionPriority::NoAllocate,
            }),
            l2_priority: ls.l2_priority.map(|p| l2_priority(p.value)),
            prefetch: ls.prefetch_size.map(|p| prefetch_size(p.value)),
        }
    }

    /// The type of an `ld` or `st` (`what`), which the instruction must name.
    fn ld_st_type(
        &self,
        ls: &ast::LoadStore,
        span: Span,
        what: &str,
    ) -> Result<ScalarType, ExecError> {
        ls.ty
            .map(|t| t.value)
            .ok_or_else(|| self.error(span, format!("{what} without a type")))
    }

    /// The optional third operand of an `ld` or `st`: a 64-bit cache policy.
    fn ld_st_policy(&self, ls: &ast::LoadStore) -> Result<Option<Src>, ExecError> {
        ls.operands
            .get(2)
            .map(|p| self.src(p, ScalarType::B64))
            .transpose()
    }

    fn load(&mut self, l: &ast::LoadStore, span: Span) -> Result<Op, ExecError> {
        let ty = self.ld_st_type(l, span, "ld")?;
        let space = space_of(l.space.map(|s| s.value));
        let (dst_op, addr_op) = match l.operands.as_slice() {
            [d, a] | [d, a, _] => (d, a),
            _ => {
                return Err(self.error(
                    span,
                    "ld takes a destination, an address and an optional cache policy",
                ))
            }
        };
        let policy = self.ld_st_policy(l)?;
        let (addr, space) = self.addr(addr_op, space)?;
        let (dsts, dst_bits) = match dst_op {
            Operand::Vector(elems, _) => {
                let mut ds = Vec::new();
                let mut bits = Vec::new();
                for e in elems {
                    ds.push(self.dst(e)?);
                    bits.push(self.reg_bits(e));
                }
                (ds, bits)
            }
            d => (vec![self.dst(d)?], vec![self.reg_bits(d)]),
        };
        let lanes = l.vector.map_or(1, |v| v.value.lanes()) as usize;
        if dsts.len() != lanes {
            return Err(self.error(
                span,
                format!("ld.{lanes} element vector needs {lanes} destinations"),
            ));
        }
        Ok(Op::Ld(Box::new(LoadInst {
            space,
            elem_bytes: ty.bytes(),
            extend: if ty.kind() == TypeKind::Signed {
                Extend::Sign
            } else {
                Extend::Zero
            },
            dsts,
            dst_bits,
            addr,
            hints: self.hints(l),
            policy,
        })))
    }

    fn store(&mut self, s: &ast::LoadStore, span: Span) -> Result<Op, ExecError> {
        let ty = self.ld_st_type(s, span, "st")?;
        let space = space_of(s.space.map(|x| x.value));
        let (addr_op, val_op) = match s.operands.as_slice() {
            [a, v] | [a, v, _] => (a, v),
            _ => {
                return Err(self.error(
                    span,
                    "st takes an address, a value and an optional cache policy",
                ))
            }
        };
        let policy = self.ld_st_policy(s)?;
        let (addr, space) = self.addr(addr_op, space)?;
        let srcs = match val_op {
            Operand::Vector(elems, _) => elems
                .iter()
                .map(|e| match e {
                    Operand::Sink(_) => Ok(None),
                    e => self.src(e, ty).map(Some),
                })
                .collect::<Result<Vec<_>, _>>()?,
            v => vec![Some(self.src(v, ty)?)],
        };
        let lanes = s.vector.map_or(1, |v| v.value.lanes()) as usize;
        if srcs.len() != lanes {
            return Err(self.error(
                span,
                format!("st of a {lanes} element vector needs {lanes} values"),
            ));
        }
        Ok(Op::St(Box::new(StoreInst {
            space,
            elem_bytes: ty.bytes(),
            srcs,
            addr,
            hints: self.hints(s),
            policy,
        })))
    }

    fn cp_async(&mut self, c: &ast::CpAsync, span: Span) -> Result<Op, ExecError> {
        let ops = &c.operands;
        if ops.len() < 3 {
            return Err(self.error(span, "cp.async needs [dst], [src] and cp-size"));
        }
        let (dst, dsp) = self.addr(&ops[0], Space::Shared)?;
        let (src, ssp) = self.addr(&ops[1], Space::Global)?;
        let cp_size = match &ops[2] {
            Operand::Int(v) => v.value.value as u32,
            o => return Err(self.error(o.span(), "cp-size must be an integer constant")),
        };
        // Optional src-size (integer) or ignore-src (predicate), then the cache policy.
        let mut src_size = None;
        let mut ignore_src = None;
        let mut policy = None;
        let mut rest = &ops[3..];
        if c.cache_hint.is_some() {
            if let Some((last, init)) = rest.split_last() {
                policy = Some(self.src(last, ScalarType::B64)?);
                rest = init;
            }
        }
        if let Some(extra) = rest.first() {
            let is_pred = match extra {
                Operand::Name(n) => matches!(self.lookup(&n.name), Some(Binding::Pred(_))),
                Operand::Not(..) => true,
                _ => false,
            };
            if is_pred {
                ignore_src = Some(self.pred_src(extra)?);
            } else {
                src_size = Some(self.src(extra, ScalarType::U32)?);
            }
        }
        let hints = MemHints {
            operator: c.cache_op.map(|x| cache_operator(x.value)),
            prefetch: c.prefetch_size.map(|p| prefetch_size(p.value)),
            ..MemHints::default()
        };
        Ok(Op::CpAsync(Box::new(CpAsyncInst {
            dst,
            dst_generic: dsp == Space::Generic,
            src,
            src_generic: ssp == Space::Generic,
            cp_size,
            src_size,
            ignore_src,
            hints,
            policy,
        })))
    }

    fn create_policy(&mut self, c: &ast::CreatePolicy, span: Span) -> Result<Op, ExecError> {
        let d = self.dst(
            c.operands
                .first()
                .ok_or_else(|| self.error(span, "missing destination"))?,
        )?;
        let primary = c
            .primary
            .map_or(memsys::L2EvictionPriority::Normal, |p| l2_priority(p.value));
        let secondary = c
            .secondary
            .map_or(memsys::L2EvictionPriority::Unchanged, |p| {
                l2_priority(p.value)
            });
        match c.kind.map(|k| k.value) {
            Some(PolicyKind::Fractional) => {
                let fraction = match c.operands.get(1) {
                    Some(op) => self.src(op, ScalarType::F32)?,
                    None => Src::Imm(1.0f32.to_bits() as u64),
                };
                Ok(Op::CreatePolicyFractional {
                    d,
                    primary,
                    secondary,
                    fraction,
                })
            }
            Some(PolicyKind::Range) => {
                if c.operands.len() != 4 {
                    return Err(self.error(
                        span,
                        "createpolicy.range takes policy, [a], primary-size, total-size",
                    ));
                }
                let space = if c.space.is_some() {
                    Space::Global
                } else {
                    Space::Generic
                };
                let (addr, sp) = self.addr(&c.operands[1], space)?;
                Ok(Op::CreatePolicyRange {
                    d,
                    primary,
                    secondary,
                    addr,
                    generic: sp == Space::Generic,
                    primary_size: self.src(&c.operands[2], ScalarType::U32)?,
                    total_size: self.src(&c.operands[3], ScalarType::U32)?,
                })
            }
            Some(PolicyKind::Cvt) => Ok(Op::CreatePolicyCvt {
                d,
                a: self.src(
                    c.operands
                        .get(1)
                        .ok_or_else(|| self.error(span, "missing access property"))?,
                    ScalarType::B64,
                )?,
            }),
            None => Err(self.error(span, "createpolicy needs .range, .fractional or .cvt")),
        }
    }
}

pub(crate) fn space_of(s: Option<StateSpace>) -> Space {
    match s.map(StateSpace::base) {
        None => Space::Generic,
        Some(StateSpace::Global) => Space::Global,
        Some(StateSpace::Shared) => Space::Shared,
        Some(StateSpace::Local) => Space::Local,
        Some(StateSpace::Param) => Space::Param,
        Some(StateSpace::Const) => Space::Const,
        Some(_) => Space::Generic,
    }
}

pub(crate) fn cache_operator(c: CacheOperator) -> memsys::CacheOperator {
    match c {
        CacheOperator::Ca => memsys::CacheOperator::Ca,
        CacheOperator::Cg => memsys::CacheOperator::Cg,
        CacheOperator::Cs => memsys::CacheOperator::Cs,
        CacheOperator::Lu => memsys::CacheOperator::Lu,
        CacheOperator::Cv => memsys::CacheOperator::Cv,
        CacheOperator::Wb => memsys::CacheOperator::Wb,
        CacheOperator::Wt => memsys::CacheOperator::Wt,
    }
}

pub(crate) fn l2_priority(p: L2EvictionPriority) -> memsys::L2EvictionPriority {
    match p {
        L2EvictionPriority::EvictNormal => memsys::L2EvictionPriority::Normal,
        L2EvictionPriority::EvictFirst => memsys::L2EvictionPriority::First,
        L2EvictionPriority::EvictLast => memsys::L2EvictionPriority::Last,
        L2EvictionPriority::EvictUnchanged => memsys::L2EvictionPriority::Unchanged,
    }
}

pub(crate) fn prefetch_size(p: PrefetchSize) -> memsys::PrefetchSize {
    match p {
        PrefetchSize::B64 => memsys::PrefetchSize::B64,
        PrefetchSize::B128 => memsys::PrefetchSize::B128,
        PrefetchSize::B256 => memsys::PrefetchSize::B256,
    }
}

/// What `lower_ops` needs from the function lowering context.
pub(crate) trait OperandCx {
    fn error(&self, span: Span, message: String) -> ExecError;
    fn src(&self, op: &Operand, ty: ScalarType) -> Result<Src, ExecError>;
    fn dst(&self, op: &Operand) -> Result<Dst, ExecError>;
    fn reg_bits(&self, op: &Operand) -> u32;
    fn pred_src(&self, op: &Operand) -> Result<PredSrc, ExecError>;
    fn pred_dst(&self, op: &Operand) -> Result<Option<PredIdx>, ExecError>;
    fn is_pred(&self, op: &Operand) -> bool;
    fn addr(&self, op: &Operand, space: Space) -> Result<(Addr, Space), ExecError>;
    fn branch_target(&mut self, op: &Operand) -> Result<Pc, ExecError>;
    fn function_index(&self, name: &str) -> Option<u32>;
    fn function(&self, index: u32) -> &Function;
    fn call_arg(&self, op: &Operand) -> Result<CallArg, ExecError>;
    fn slot_of(&self, op: &Operand) -> Result<Slot, ExecError>;
}

impl OperandCx for FunctionCx<'_, '_> {
    fn error(&self, span: Span, message: String) -> ExecError {
        FunctionCx::error(self, span, message)
    }
    fn src(&self, op: &Operand, ty: ScalarType) -> Result<Src, ExecError> {
        FunctionCx::src(self, op, ty)
    }
    fn dst(&self, op: &Operand) -> Result<Dst, ExecError> {
        FunctionCx::dst(self, op)
    }
    fn reg_bits(&self, op: &Operand) -> u32 {
        FunctionCx::reg_bits(self, op)
    }
    fn pred_src(&self, op: &Operand) -> Result<PredSrc, ExecError> {
        FunctionCx::pred_src(self, op)
    }
    fn pred_dst(&self, op: &Operand) -> Result<Option<PredIdx>, ExecError> {
        FunctionCx::pred_dst(self, op)
    }
    fn is_pred(&self, op: &Operand) -> bool {
        match op {
            Operand::Name(n) => matches!(self.lookup(&n.name), Some(Binding::Pred(_))),
            Operand::Not(inner, _) => self.is_pred(inner),
            _ => false,
        }
    }
    fn addr(&self, op: &Operand, space: Space) -> Result<(Addr, Space), ExecError> {
        FunctionCx::addr(self, op, space)
    }
    fn branch_target(&mut self, op: &Operand) -> Result<Pc, ExecError> {
        match op {
            Operand::Name(n) => {
                self.fixups
                    .push((self.code.len(), n.name.to_string(), n.span, self.cur_block));
                Ok(0)
            }
            other => Err(FunctionCx::error(self, other.span(), "expected a label")),
        }
    }
    fn function_index(&self, name: &str) -> Option<u32> {
        self.program.by_name.get(name).copied()
    }
    fn function(&self, index: u32) -> &Function {
        &self.program.functions[index as usize]
    }
    fn call_arg(&self, op: &Operand) -> Result<CallArg, ExecError> {
        match op {
            Operand::Name(n) => match self.lookup(&n.name) {
                Some(Binding::Var {
                    space: Space::Param,
                    addr,
                }) => Ok(CallArg::Param {
                    offset: addr as u32,
                    size: 0,
                }),
                Some(Binding::Reg { slot, .. }) => Ok(CallArg::Reg(slot)),
                _ => Err(FunctionCx::error(
                    self,
                    n.span,
                    format!("`{}` is not a .param variable or register", n.name),
                )),
            },
            Operand::Int(i) => Ok(CallArg::Imm(i.value.value as u64)),
            other => Err(FunctionCx::error(
                self,
                other.span(),
                "unsupported call argument",
            )),
        }
    }
    fn slot_of(&self, op: &Operand) -> Result<Slot, ExecError> {
        match FunctionCx::dst(self, op)? {
            Dst::Reg(s) => Ok(s),
            Dst::Sink => Err(FunctionCx::error(
                self,
                op.span(),
                "`_` is not allowed here",
            )),
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
