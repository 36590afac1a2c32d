//! Floating-point contraction: the `mul` + `add`/`sub` pairs that ptxas fuses into one
//! FFMA/DFMA/HFMA2 (its default `--fmad=true`), so that ptxsim rounds where the hardware does.
//!
//! The PTX ISA lets the code generator fuse a `mul` and an `add`/`sub` that carry no rounding
//! modifier. The rule below was read off ptxas 13.5's SASS (`-O3`, sm_80 and sm_90) on the
//! probes of `tests/sass/gen_fma_probe.py`; docs/fma-contraction.md has the table. A product
//! `p = mul a, b` (no `.rn/.rz/.rm/.rp`, no `.sat`, no guard) is contracted into its uses when
//! **every** use of `p` is
//! - an `add`/`sub` of the same type, without rounding modifier or guard, with the same `.ftz`
//!   as the `mul`, naming `p` as exactly one operand, in the same basic block (ptxas merges a
//!   block into its predecessor when that one only falls through or `bra`s to it), any distance
//!   after the `mul`; the `add`'s `.sat` stays (FFMA.SAT); or
//! - a `neg` of `p` whose every use is such an `add`/`sub` (the negation goes into the FFMA).
//!
//! A product with any other use (stored, compared, abs, in another block, an `add` with explicit
//! rounding, `.ftz` differing, `p + p`) is not contracted anywhere: ptxas keeps FMUL + FADD. An
//! `add`/`sub` of two contractable products fuses its first operand and rounds the second.
//! Debug modules (`.target ..., debug`: ptxas -O0) and `--fmad=false` contract nothing.
//!
//! The `mul` itself stays in the program (its value is dead or used as ptxas would use it);
//! the `add`/`sub` becomes [`Op::FmaContract`]. Where the analysis cannot follow the registers
//! (an instruction whose operands this file does not model lies between the pair, a multiplicand
//! is redefined in between, a product register with several definitions) it leaves the pair
//! unfused.

use crate::program::*;

/// The value-register slots an instruction reads and writes, for the ops this pass models;
/// `None` for the others (which end a contraction window).
fn reads_writes(op: &Op) -> Option<(Vec<Slot>, Vec<Slot>)> {
    let mut r = Vec::new();
    let mut w = Vec::new();
    let src = |s: &Src, r: &mut Vec<Slot>| {
        if let Src::Reg(x) = s {
            r.push(*x)
        }
    };
    let dst = |d: &Dst, w: &mut Vec<Slot>| {
        if let Dst::Reg(x) = d {
            w.push(*x)
        }
    };
    match op {
        Op::Mov { d, a, .. }
        | Op::Cvt { d, a, .. }
        | Op::Cvta { d, a, .. }
        | Op::Int1 { d, a, .. }
        | Op::Float1 { d, a, .. } => {
            dst(d, &mut w);
            src(a, &mut r);
        }
        Op::Int2 { d, a, b, .. }
        | Op::Float2 { d, a, b, .. }
        | Op::CvtPack { d, a, b, .. }
        | Op::Set { d, a, b, .. }
        | Op::Selp { d, a, b, .. } => {
            dst(d, &mut w);
            src(a, &mut r);
            src(b, &mut r);
        }
        Op::Int3 { d, a, b, c, .. }
        | Op::Fma { d, a, b, c, .. }
        | Op::FmaContract { d, a, b, c, .. }
        | Op::Bfe { d, a, b, c, .. }
        | Op::Prmt { d, a, b, c, .. }
        | Op::Shf { d, a, b, c, .. }
        | Op::Slct { d, a, b, c, .. } => {
            dst(d, &mut w);
            src(a, &mut r);
            src(b, &mut r);
            src(c, &mut r);
        }
        Op::Bfi { d, a, b, c, e, .. } => {
            dst(d, &mut w);
            for s in [a, b, c, e] {
                src(s, &mut r);
            }
        }
        Op::Setp { a, b, .. } => {
            src(a, &mut r);
            src(b, &mut r);
        }
        Op::Testp { a, .. } => src(a, &mut r),
        Op::Pack { d, parts, .. } => {
            w.push(*d);
            for p in parts.iter().flatten() {
                src(p, &mut r);
            }
        }
        Op::Unpack { ds, a, .. } => {
            for d in ds {
                dst(d, &mut w);
            }
            src(a, &mut r);
        }
        Op::MovVec { ds, srcs } => {
            for d in ds {
                dst(d, &mut w);
            }
            for s in srcs {
                src(s, &mut r);
            }
        }
        Op::Ld(ld) => {
            for d in &ld.dsts {
                dst(d, &mut w);
            }
            if let Some(b) = ld.addr.base {
                r.push(b);
            }
        }
        Op::St(st) => {
            for s in st.srcs.iter().flatten() {
                src(s, &mut r);
            }
            if let Some(b) = st.addr.base {
                r.push(b);
            }
        }
        Op::Shfl {
            d, a, b, c, mask, ..
        } => {
            dst(d, &mut w);
            for s in [a, b, c, mask] {
                src(s, &mut r);
            }
        }
        Op::PredLogic { .. } | Op::PredNot { .. } | Op::MovPred { .. } | Op::Nop => {}
        Op::Bra { .. } => {}
        _ => return None,
    }
    Some((r, w))
}

/// Whether `text` (an instruction as printed: `@%p1 add.rn.f32 %f1, ...`) names a rounding
/// modifier, or is guarded.
fn explicit_rounding_or_guard(text: &str) -> bool {
    let t = text.trim_start();
    if t.starts_with('@') {
        return true;
    }
    let opcode = t.split_whitespace().next().unwrap_or("");
    // Each modifier with its dot: `add.rn.f32` → `.rn`, `.f32`.
    let dots = opcode.match_indices('.').map(|(i, _)| i);
    let ends = dots.clone().skip(1).chain([opcode.len()]);
    dots.zip(ends).any(|(a, b)| {
        use ptx_isa::Modifier::{Rm, Rn, Rp, Rz};
        matches!(
            ptx_isa::Modifier::parse(&opcode[a..b]),
            Some(Rn | Rz | Rm | Rp)
        )
    })
}

fn is_float(ty: ptx_isa::ScalarType) -> bool {
    use ptx_isa::ScalarType as T;
    matches!(
        ty,
        T::F32 | T::F64 | T::F16 | T::F16x2 | T::Bf16 | T::Bf16x2
    )
}

/// Basic-block number of each instruction: a block starts at a branch target and after a
/// branch, `ret`, `exit` or `trap`. An unguarded `bra` to the next instruction neither ends a
/// block nor makes its target one (ptxas merges the two).
fn blocks(code: &[Inst]) -> Vec<u32> {
    let n = code.len();
    let noop_bra = |pc: usize| {
        code[pc].guard.is_none()
            && matches!(code[pc].op, Op::Bra { target, .. } if target as usize == pc + 1)
    };
    let mut leader = vec![false; n + 1];
    for (pc, inst) in code.iter().enumerate() {
        match &inst.op {
            Op::Bra { target, .. } if !noop_bra(pc) => {
                leader[(*target as usize).min(n)] = true;
                leader[pc + 1] = true;
            }
            Op::BrxIdx { targets, .. } => {
                for t in targets.iter() {
                    leader[(*t as usize).min(n)] = true;
                }
                leader[pc + 1] = true;
            }
            Op::Ret | Op::Exit | Op::Trap | Op::Call { .. } => leader[pc + 1] = true,
            _ => {}
        }
    }
    let mut id = 0;
    (0..n)
        .map(|pc| {
            if leader[pc] && pc > 0 {
                id += 1;
            }
            id
        })
        .collect()
}

/// What the pass knows of one instruction.
struct Facts {
    rw: Vec<Option<(Vec<Slot>, Vec<Slot>)>>,
    block: Vec<u32>,
    /// May be contracted (no rounding modifier, no guard), per instruction.
    free: Vec<bool>,
}

/// The uses of the value `slot` defined at `def`: `Some(list)` when every use can be followed
/// (all in the same block, after `def`, before a redefinition or an instruction this pass does
/// not model; none elsewhere), else `None`. Each use says whether the multiplicands `keep`
/// still hold their values there.
fn uses_of(
    code: &[Inst],
    f: &Facts,
    def: usize,
    slot: Slot,
    keep: &[Slot],
) -> Option<Vec<(usize, bool)>> {
    let mut uses = Vec::new();
    let mut kept = true;
    let mut end = code.len();
    let mut redefined = false;
    for j in def + 1..code.len() {
        if f.block[j] != f.block[def] {
            end = j;
            break;
        }
        let Some((r, w)) = f.rw[j].as_ref() else {
            end = j;
            break;
        };
        if r.contains(&slot) {
            uses.push((j, kept));
        }
        if w.contains(&slot) {
            end = j + 1;
            redefined = true;
            break;
        }
        if w.iter().any(|x| keep.contains(x)) {
            kept = false;
        }
    }
    // Redefined within the block: no path from `def` leaves the block with this value, so
    // other mentions name other values. Otherwise any mention elsewhere (another block, a
    // loop back to before `def`, past an unmodelled instruction) is a use this pass cannot
    // fuse.
    if redefined {
        return Some(uses);
    }
    for (k, inst) in code.iter().enumerate() {
        if k == def || (k > def && k < end) {
            continue;
        }
        let mut named = false;
        match &f.rw[k] {
            Some((r, w)) => named = r.contains(&slot) || w.contains(&slot),
            None => register_slots(&inst.op, &mut |s| named |= s == slot),
        }
        if named {
            return None;
        }
    }
    Some(uses)
}

/// An `add`/`sub` at `j` that may absorb a product held in `slot`: the operand position
/// (0 or 1) of the product and whether it is a `sub`.
fn absorbing(
    code: &[Inst],
    f: &Facts,
    j: usize,
    slot: Slot,
    ty: ptx_isa::ScalarType,
    ftz: bool,
) -> Option<(usize, bool)> {
    if !f.free[j] {
        return None;
    }
    let Op::Float2 {
        op,
        ty: aty,
        mode,
        a,
        b,
        d: Dst::Reg(_),
    } = &code[j].op
    else {
        return None;
    };
    let sub = match op {
        FloatOp2::Add => false,
        FloatOp2::Sub => true,
        _ => return None,
    };
    if *aty != ty || mode.ftz != ftz || mode.relu {
        return None;
    }
    match (*a == Src::Reg(slot), *b == Src::Reg(slot)) {
        (true, false) => Some((0, sub)),
        (false, true) => Some((1, sub)),
        _ => None,
    }
}

/// One planned fusion: the `add`/`sub` at `at` takes the product of the `mul` at `mul` as its
/// operand `pos`, through a `neg` when `negated`.
#[derive(Clone, Copy)]
struct Plan {
    mul: usize,
    product: Product,
    pos: usize,
    negated: bool,
}

/// Contracts the function's `mul` + `add`/`sub` pairs as ptxas does; `infos[inst.id].text` is
/// each instruction's PTX text (for its rounding modifiers).
pub(crate) fn contract(code: &mut [Inst], infos: &[InstrInfo]) {
    let n = code.len();
    let facts = Facts {
        rw: code.iter().map(|i| reads_writes(&i.op)).collect(),
        block: blocks(code),
        free: code
            .iter()
            .map(|i| {
                i.guard.is_none()
                    && infos
                        .get(i.id as usize)
                        .is_some_and(|info| !explicit_rounding_or_guard(&info.text))
            })
            .collect(),
    };
    let mut plans: Vec<Vec<Plan>> = vec![Vec::new(); n];
    for i in 0..n {
        let Op::Float2 {
            op,
            ty,
            mode,
            d: Dst::Reg(p),
            a,
            b,
        } = &code[i].op
        else {
            continue;
        };
        let product = match op {
            FloatOp2::Mul => Product::Mul,
            FloatOp2::DivFull if *ty == ptx_isa::ScalarType::F32 => Product::DivFull,
            FloatOp2::DivApprox if *ty == ptx_isa::ScalarType::F32 => Product::DivApprox,
            _ => continue,
        };
        if !facts.free[i] || !is_float(*ty) || mode.sat || mode.relu {
            continue;
        }
        let (ty, ftz, p) = (*ty, mode.ftz, *p);
        let keep: Vec<Slot> = [a, b]
            .iter()
            .filter_map(|s| if let Src::Reg(x) = s { Some(*x) } else { None })
            .collect();
        if keep.contains(&p) {
            continue;
        }
        let Some(uses) = uses_of(code, &facts, i, p, &keep) else {
            continue;
        };
        let mut planned = Vec::new();
        let all = !uses.is_empty()
            && uses.iter().all(|&(j, kept)| {
                if !kept {
                    return false;
                }
                if let Some((pos, _)) = absorbing(code, &facts, j, p, ty, ftz) {
                    planned.push((
                        j,
                        Plan {
                            mul: i,
                            product,
                            pos,
                            negated: false,
                        },
                    ));
                    return true;
                }
                // `neg n, p` whose every use absorbs `n`.
                let Op::Float1 {
                    op: FloatOp1::Neg,
                    ty: nty,
                    d: Dst::Reg(nslot),
                    ..
                } = &code[j].op
                else {
                    return false;
                };
                if *nty != ty || code[j].guard.is_some() || keep.contains(nslot) {
                    return false;
                }
                let Some(nuses) = uses_of(code, &facts, j, *nslot, &keep) else {
                    return false;
                };
                !nuses.is_empty()
                    && nuses.iter().all(|&(k, kept)| {
                        kept && match absorbing(code, &facts, k, *nslot, ty, ftz) {
                            Some((pos, _)) => {
                                planned.push((
                                    k,
                                    Plan {
                                        mul: i,
                                        product,
                                        pos,
                                        negated: true,
                                    },
                                ));
                                true
                            }
                            None => false,
                        }
                    })
            });
        if all {
            for (j, plan) in planned {
                plans[j].push(plan);
            }
        }
    }
    for j in 0..n {
        // Both operands contractable products: ptxas fuses the first.
        let Some(plan) = plans[j].iter().min_by_key(|p| p.pos).copied() else {
            continue;
        };
        let (
            Op::Float2 {
                op,
                ty,
                mode,
                d,
                a: x,
                b: y,
            },
            Op::Float2 { a, b, .. },
        ) = (&code[j].op, &code[plan.mul].op)
        else {
            continue;
        };
        let sub = *op == FloatOp2::Sub;
        let c = if plan.pos == 0 { *y } else { *x };
        // add(p, c), add(c, p): p + c; sub(p, c): p - c; sub(c, p): -p + c; with p = -(a*b)
        // through a `neg` the product's sign flips once more.
        let (neg_ab, neg_c) = match (sub, plan.pos) {
            (false, _) => (plan.negated, false),
            (true, 0) => (plan.negated, true),
            (true, _) => (!plan.negated, false),
        };
        code[j].op = Op::FmaContract {
            product: plan.product,
            ty: *ty,
            mode: FloatMode {
                rounding: Rounding::Rn,
                ..*mode
            },
            neg_ab,
            neg_c,
            d: *d,
            a: *a,
            b: *b,
            c,
        };
    }
}
