//! The value-register slots an instruction names (sources, destinations, address bases),
//! for the interpreter's register prefetch (`machine/schedule.rs`). A hint only: a slot
//! left out costs a host cache miss, never a wrong result, so the rare operand forms
//! (calls, bulk copies, tensor maps) are left out.
//!
//! Each slot comes with its [`Role`], which the counters-only slice (`slice.rs`) reads; the
//! prefetch ignores it.

use super::*;

/// How an instruction uses a register slot it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Written.
    Def,
    /// Read; for an instruction that always runs in the slice (an address, a count, a
    /// membermask, a compared value), the slice needs its value.
    Use,
    /// Read only to compute the instruction's written registers (an arithmetic operand, the
    /// value `shfl` moves): needed when one of those is.
    Pass,
    /// Read only as data that goes to memory (`st`'s values): never needed by the slice;
    /// counters-only marks the bytes unknown.
    Data,
}

pub(super) fn src(s: &Src, f: &mut impl FnMut(Slot, Role)) {
    if let Src::Reg(r) = s {
        f(*r, Role::Use)
    }
}

pub(super) fn dst(d: &Dst, f: &mut impl FnMut(Slot, Role)) {
    if let Dst::Reg(r) = d {
        f(*r, Role::Def)
    }
}

pub(super) fn addr(a: &Addr, f: &mut impl FnMut(Slot, Role)) {
    if let Some(b) = a.base {
        f(b, Role::Use)
    }
}

fn data(s: &Src, f: &mut impl FnMut(Slot, Role)) {
    if let Src::Reg(r) = s {
        f(*r, Role::Data)
    }
}

macro_rules! slots_of {
    ($op:ident, $f:ident, $v:ident; [custom $custom:ident]) => {
        $custom($op, $f)
    };
    ($op:ident, $f:ident, $v:ident; [$($role:ident $field:ident),*]) => {{
        if let Op::$v { $($field,)* .. } = $op {
            $( $role($field, $f); )*
        }
    }};
}

macro_rules! gen_register_slots {
    ($( $v:ident => $h:ident, $r:ident $(($rf:ident))?, $p:ident $(($pf:ident))?, $regs:tt, $s:ident, $sl:ident $(($slf:ident))?; )*) => {
        /// Calls `f` with each value-register slot `op` reads or writes (repeats possible):
        /// the registers column of the operation table (`program/ops.rs`).
        pub fn register_slots(op: &Op, f: &mut impl FnMut(Slot)) {
            register_roles(op, &mut |s, _| f(s))
        }

        /// [`register_slots`] with each slot's [`Role`].
        pub fn register_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
            match op {
                $( Op::$v { .. } => slots_of!(op, f, $v; $regs), )*
            }
        }
    };
}
super::ops::for_each_op!(gen_register_slots);

fn pack_slots(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::Pack { d, parts, .. } = op {
        f(*d, Role::Def);
        for p in parts.iter().flatten() {
            src(p, f);
        }
    }
}

fn unpack_slots(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::Unpack { ds, a, .. } = op {
        for d in ds {
            dst(d, f);
        }
        src(a, f);
    }
}

fn ld_slots(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::Ld(ld) = op {
        for d in &ld.dsts {
            dst(d, f);
        }
        addr(&ld.addr, f);
    }
}

fn st_slots(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::St(st) = op {
        for s in st.srcs.iter().flatten() {
            data(s, f);
        }
        addr(&st.addr, f);
    }
}

fn cp_async_slots(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::CpAsync(cp) = op {
        addr(&cp.dst, f);
        addr(&cp.src, f);
        if let Some(s) = &cp.src_size {
            src(s, f);
        }
    }
}

fn ldmatrix_slots(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::Ldmatrix { ds, addr: a, .. } = op {
        ds.iter().for_each(|&d| f(d, Role::Def));
        addr(a, f);
    }
}

fn stmatrix_slots(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::Stmatrix { srcs, addr: a, .. } = op {
        for s in srcs {
            data(s, f);
        }
        addr(a, f);
    }
}

/// `mma` and `wmma.mma`.
fn mma_slots(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::Mma { ds, a, b, c, .. } | Op::WmmaMma { ds, a, b, c, .. } = op {
        ds.iter().for_each(|&d| f(d, Role::Def));
        for s in a.iter().chain(b).chain(c) {
            src(s, f);
        }
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
        Self::of_runs(code, |_| true)
    }

    /// The table of the instructions `runs(pc)` says run (the others name no slot): the
    /// counters-only slice's, whose skipped instructions read no register.
    pub fn of_runs(code: &[Inst], runs: impl Fn(usize) -> bool) -> SlotTable {
        let mut t = SlotTable {
            starts: Vec::with_capacity(code.len() + 1),
            slots: Vec::new(),
        };
        for (pc, inst) in code.iter().enumerate() {
            let start = t.slots.len();
            t.starts.push(start as u32);
            if !runs(pc) {
                continue;
            }
            register_slots(&inst.op, &mut |s| {
                if !t.slots[start..].contains(&s) {
                    t.slots.push(s);
                }
            });
        }
        t.starts.push(t.slots.len() as u32);
        t
    }

    /// The same table with each slot replaced by `f(slot)` (repeats dropped).
    pub fn mapped(&self, f: impl Fn(Slot) -> Slot) -> SlotTable {
        let mut t = SlotTable {
            starts: Vec::with_capacity(self.starts.len()),
            slots: Vec::with_capacity(self.slots.len()),
        };
        for w in self.starts.windows(2) {
            let start = t.slots.len();
            t.starts.push(start as u32);
            for &s in &self.slots[w[0] as usize..w[1] as usize] {
                let m = f(s);
                if !t.slots[start..].contains(&m) {
                    t.slots.push(m);
                }
            }
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
