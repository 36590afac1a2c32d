//! Module-level layout: where `.global`/`.const`/`.shared` variables and function parameters
//! live, the size limits (with the PTX ISA sentences behind them), and initializers evaluated
//! to bytes (constant expressions, float literals).

use super::*;

/// Most `.const` bytes a module may declare: "Constant memory is restricted in size,
/// currently limited to 64 KB which can be used to hold statically-sized constant variables.
/// There is an additional 640 KB of constant memory, organized as ten independent 64 KB
/// regions." (PTX ISA, "Constant State Space").
pub(super) const MAX_CONST_BYTES: u64 = 64 * 1024 * 11;
/// Most `.shared` or `.local` bytes the declarations of a module or function may take: far
/// past any GPU's (227 KB of shared memory per block, 512 KB of local memory per thread); the
/// launch checks the GPU's own limits.
pub(super) const MAX_SPACE_BYTES: u64 = u32::MAX as u64;
/// Most bytes of `.param` variables in one function body (the call arguments it builds):
/// far past any call's, and a bound on the per-thread parameter area the interpreter keeps
/// for each of a warp's 32 lanes.
pub(super) const MAX_PARAM_BYTES: u64 = 1 << 20;
/// Most registers one `.reg` declaration may declare with `%r<N>`.
pub(super) const MAX_REG_RANGE: u32 = 1 << 18;

/// The bytes of a variable of `count` elements of `elem` bytes placed at `off` rounded up to
/// `align`: (offset, end), or `None` when the end passes `limit`.
pub(super) fn place(off: u64, align: u64, elem: u64, count: u64, limit: u64) -> Option<(u64, u64)> {
    let start = off.checked_next_multiple_of(align.max(1))?;
    let end = start.checked_add(elem.checked_mul(count)?)?;
    (end <= limit).then_some((start, end))
}

/// The element count of an array declarator (`None` when the product overflows).
pub(super) fn element_count(dims: &[Option<u64>], unsized_as: u64) -> Option<u64> {
    dims.iter()
        .try_fold(1u64, |n, d| n.checked_mul(d.unwrap_or(unsized_as)))
}

pub(super) fn round_up(v: u64, align: u64) -> u64 {
    if align <= 1 {
        v
    } else {
        v.div_ceil(align) * align
    }
}

pub(super) type PendingInit = (Space, u64, ScalarType, Span, Initializer, u64);

pub(super) struct ModuleCx<'s> {
    pub(super) source: &'s str,
    pub(super) lines: &'s LineIndex,
    pub(super) globals: HashMap<String, Binding>,
    pub(super) shared_offset: u32,
    pub(super) shared_align: u32,
    pub(super) dynamic_shared: Vec<String>,
    /// Every static `.shared` variable placed, in order (each kernel's own share:
    /// `kernel_shared.rs`).
    pub(super) shared_vars: Vec<super::kernel_shared::SharedVar>,
    pub(super) const_bytes: Vec<u8>,
    pub(super) global_list: Vec<(String, u64, u64)>,
}

impl ModuleCx<'_> {
    pub(super) fn error(&self, span: Span, message: impl Into<String>) -> ExecError {
        let lc = self.lines.line_col(span.start, self.source);
        ExecError::Unsupported {
            line: lc.line,
            column: lc.col,
            message: message.into(),
        }
    }

    pub(super) fn too_large(&self, span: Span, space: &str) -> ExecError {
        self.error(
            span,
            format!("the .{space} variables take more than {MAX_SPACE_BYTES} bytes"),
        )
    }

    /// Places a `.shared` variable of `count` elements of `elem` bytes after those placed so
    /// far and binds `name` to its offset (`count` None: its size overflows 64 bits).
    pub(super) fn place_static_shared(
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
        self.shared_vars.push(super::kernel_shared::SharedVar {
            name: name.clone(),
            bytes: end - off,
            align,
        });
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
    pub(super) fn declare_dynamic_shared(&mut self, name: String, align: u64) {
        self.shared_align = self.shared_align.max(align as u32);
        self.dynamic_shared.push(name);
    }

    pub(super) fn declare_module_var(
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

    pub(super) fn layout_function_shared(
        &mut self,
        func: &str,
        block: &ast::Block,
    ) -> Result<(), ExecError> {
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
    pub(super) fn layout_signature(
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
    pub(super) fn init_bytes(
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

    pub(super) fn const_value(&self, e: &Expr, ty: ScalarType) -> Result<u64, ExecError> {
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

    pub(super) fn eval_int(&self, e: &Expr) -> Result<i128, ExecError> {
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
                if name.value == "generic" {
                    self.eval_int(arg)?
                } else if let Some(mask) = byte_mask(&name.value) {
                    // `0xFF00(generic(x)+8)`: one byte of the address (ptx-syntax reads the
                    // mask operator of initializers so).
                    let v = self.eval_int(arg)? as u64;
                    ((v & mask) >> mask.trailing_zeros()) as i128
                } else {
                    return Err(self.error(
                        *span,
                        format!("unsupported `{}(...)` in initializer", name.value),
                    ));
                }
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

pub(super) fn flatten_init<'a>(init: &'a Initializer, out: &mut Vec<&'a Expr>) {
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

pub(super) fn float_from_int(v: i128, ty: ScalarType) -> u64 {
    match ty {
        ScalarType::F64 => (v as f64).to_bits(),
        ScalarType::F32 => (v as f32).to_bits() as u64,
        _ => v as u64,
    }
}

/// The mask of an initializer's mask operator (`0xFF`, `0xFF00`, … `0xFF00000000000000`, or
/// in decimal), or `None` for any other name.
fn byte_mask(text: &str) -> Option<u64> {
    let t = text.trim_end_matches(['U', 'u']);
    let m = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok()?,
        None => t.parse().ok()?,
    };
    (m != 0 && m.trailing_zeros().is_multiple_of(8) && m >> m.trailing_zeros() == 0xFF).then_some(m)
}
