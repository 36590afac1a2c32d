//! The value-register slots an instruction names (sources, destinations, address bases),
//! for the interpreter's register prefetch (`machine/schedule.rs`). A hint only: a slot
//! left out costs a host cache miss, never a wrong result, so the rare operand forms
//! (calls, bulk copies, tensor maps) are left out.

use super::*;

/// Calls `f` with each value-register slot `op` reads or writes (repeats possible).
pub fn register_slots(op: &Op, f: &mut impl FnMut(Slot)) {
    let src = |s: &Src, f: &mut dyn FnMut(Slot)| {
        if let Src::Reg(r) = s {
            f(*r)
        }
    };
    let dst = |d: &Dst, f: &mut dyn FnMut(Slot)| {
        if let Dst::Reg(r) = d {
            f(*r)
        }
    };
    let addr = |a: &Addr, f: &mut dyn FnMut(Slot)| {
        if let Some(b) = a.base {
            f(b)
        }
    };
    match op {
        Op::Mov { d, a, .. }
        | Op::Cvt { d, a, .. }
        | Op::Cvta { d, a, .. }
        | Op::Int1 { d, a, .. }
        | Op::Float1 { d, a, .. }
        | Op::CreatePolicyCvt { d, a } => {
            dst(d, f);
            src(a, f);
        }
        Op::Int2 { d, a, b, .. }
        | Op::Float2 { d, a, b, .. }
        | Op::CvtPack { d, a, b, .. }
        | Op::Set { d, a, b, .. }
        | Op::Selp { d, a, b, .. } => {
            dst(d, f);
            src(a, f);
            src(b, f);
        }
        Op::Int3 { d, a, b, c, .. }
        | Op::Fma { d, a, b, c, .. }
        | Op::VideoScalar { d, a, b, c, .. }
        | Op::FmaContract { d, a, b, c, .. }
        | Op::Lop3Pred { d, a, b, c, .. }
        | Op::Bfe { d, a, b, c, .. }
        | Op::Prmt { d, a, b, c, .. }
        | Op::Shf { d, a, b, c, .. }
        | Op::Slct { d, a, b, c, .. }
        | Op::Carry { d, a, b, c, .. } => {
            dst(d, f);
            src(a, f);
            src(b, f);
            src(c, f);
        }
        Op::Setp { a, b, .. } => {
            src(a, f);
            src(b, f);
        }
        Op::Pack { d, parts, .. } => {
            f(*d);
            for p in parts.iter().flatten() {
                src(p, f);
            }
        }
        Op::MovVec { ds, srcs } => {
            for d in ds {
                dst(d, f);
            }
            for s in srcs {
                src(s, f);
            }
        }
        Op::Unpack { ds, a, .. } => {
            for d in ds {
                dst(d, f);
            }
            src(a, f);
        }
        Op::Ld(ld) => {
            for d in &ld.dsts {
                dst(d, f);
            }
            addr(&ld.addr, f);
        }
        Op::St(st) => {
            for s in st.srcs.iter().flatten() {
                src(s, f);
            }
            addr(&st.addr, f);
        }
        Op::CpAsync(cp) => {
            addr(&cp.dst, f);
            addr(&cp.src, f);
            if let Some(s) = &cp.src_size {
                src(s, f);
            }
        }
        Op::Ldmatrix { ds, addr: a, .. } => {
            ds.iter().for_each(|&d| f(d));
            addr(a, f);
        }
        Op::Stmatrix { srcs, addr: a, .. } => {
            for s in srcs {
                src(s, f);
            }
            addr(a, f);
        }
        Op::Mma { ds, a, b, c, .. } | Op::WmmaMma { ds, a, b, c, .. } => {
            ds.iter().for_each(|&d| f(d));
            for s in a.iter().chain(b).chain(c) {
                src(s, f);
            }
        }
        Op::Shfl { d, a, b, c, .. } => {
            dst(d, f);
            src(a, f);
            src(b, f);
            src(c, f);
        }
        _ => {}
    }
}

/// For each instruction of a function, the distinct value-register slots it names
/// ([`register_slots`]), so that a warp can ask the host to bring an instruction's registers
/// into cache a few instructions before it runs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SlotTable {
    /// `starts[pc]..starts[pc + 1]` indexes `slots`.
    starts: Vec<u32>,
    slots: Vec<Slot>,
}

impl SlotTable {
    pub fn new(code: &[Inst]) -> SlotTable {
        let mut t = SlotTable {
            starts: Vec::with_capacity(code.len() + 1),
            slots: Vec::new(),
        };
        for inst in code {
            let start = t.slots.len();
            t.starts.push(start as u32);
            register_slots(&inst.op, &mut |s| {
                if !t.slots[start..].contains(&s) {
                    t.slots.push(s);
                }
            });
        }
        t.starts.push(t.slots.len() as u32);
        t
    }

    /// The slots instruction `pc` names (none past the end).
    #[inline(always)]
    pub fn of(&self, pc: Pc) -> &[Slot] {
        let pc = pc as usize;
        match (self.starts.get(pc), self.starts.get(pc + 1)) {
            (Some(&a), Some(&b)) => &self.slots[a as usize..b as usize],
            _ => &[],
        }
    }
}
