//! The counters-only slice of a function: the instructions whose results the launch's
//! counters depend on (addresses, branch conditions, predicates, barrier ids, membermasks,
//! loop bounds, cache policies), computed once when the function is lowered, from the
//! operation table's register roles (`program/ops.rs`, registers and slice columns).
//!
//! The slice column says, per operation:
//! - `pure`: its only effect is writing the registers the registers column names, from the
//!   ones it reads there; skippable when none of the registers it writes is needed.
//! - `pure(f)`: the same, with the complete roles given by `f` (the registers column leaves
//!   some out).
//! - `keep`: always runs (memory, control, barriers, predicates, the carry flag); the
//!   registers column is complete and every register it reads (but a store's data) is
//!   needed.
//! - `keep(f)`: always runs; `f` adds the registers the registers column leaves out.
//! - `only(f)`: always runs; `f` gives the complete roles, where a value moved into the
//!   written registers ([`Role::Pass`], `shfl`'s `a`) is needed only when they are.
//! - `opaque`: the roles are not complete (bulk and tensor copies, `wmma.load`/`store`,
//!   `wgmma`, calls): a function holding one is not sliced, and runs in full.
//!
//! A register is *needed* when a kept instruction reads it ([`Role::Use`]) or a needed
//! register's writer reads it ([`Role::Pass`] of a pure instruction, or of an `only` one):
//! a fixpoint over the function, flow-insensitive (a register is needed everywhere or
//! nowhere). Every writer of a needed register runs, so a needed register holds the value
//! the full run computes as long as the memory it was loaded from does: the machine checks
//! that at run time (`machine/counters_only.rs`). Predicates and the carry flag are written
//! only by kept instructions, so they are always exact.

use super::slots::{addr, dst, src, Role};
use super::*;

/// What the slice does with an operation (the table's slice column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SliceKind {
    Pure,
    Keep,
    Opaque,
}

macro_rules! slice_of {
    ($op:ident, $f:ident; pure) => {{
        super::slots::register_roles($op, &mut |s, r| {
            $f(s, if r == Role::Use { Role::Pass } else { r })
        });
        SliceKind::Pure
    }};
    ($op:ident, $f:ident; pure($g:ident)) => {{
        $g($op, &mut |s, r| {
            $f(s, if r == Role::Use { Role::Pass } else { r })
        });
        SliceKind::Pure
    }};
    ($op:ident, $f:ident; keep) => {{
        super::slots::register_roles($op, $f);
        SliceKind::Keep
    }};
    ($op:ident, $f:ident; keep($g:ident)) => {{
        super::slots::register_roles($op, $f);
        $g($op, $f);
        SliceKind::Keep
    }};
    ($op:ident, $f:ident; only($g:ident)) => {{
        $g($op, $f);
        SliceKind::Keep
    }};
    ($op:ident, $f:ident; opaque) => {{
        let _ = &$f;
        SliceKind::Opaque
    }};
}

macro_rules! gen_slice_roles {
    ($( $v:ident => $h:ident, $r:ident $(($rf:ident))?, $p:ident $(($pf:ident))?, $regs:tt, $s:ident, $sl:ident $(($slf:ident))?; )*) => {
        /// The slice column of the operation table for `op`: what the slice does with it,
        /// calling `f` with each register slot it names and its role (complete unless the
        /// answer is [`SliceKind::Opaque`]; a pure operation's reads are [`Role::Pass`]).
        pub fn slice_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) -> SliceKind {
            match op {
                $( Op::$v { .. } => slice_of!(op, f; $sl $(($slf))?), )*
            }
        }
    };
}
super::ops::for_each_op!(gen_slice_roles);

fn opt_src(s: &Option<Src>, f: &mut impl FnMut(Slot, Role)) {
    if let Some(s) = s {
        src(s, f)
    }
}

fn opt_dst(d: &Option<Dst>, f: &mut impl FnMut(Slot, Role)) {
    if let Some(d) = d {
        dst(d, f)
    }
}

fn movvec_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::MovVec { ds, srcs } = op {
        ds.iter().for_each(|d| dst(d, f));
        srcs.iter().for_each(|s| src(s, f));
    }
}

fn isspace_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::IsSpace { a, .. } = op {
        src(a, f)
    }
}

fn mapa_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::Mapa { d, a, rank } = op {
        dst(d, f);
        src(a, f);
        src(rank, f);
    }
}

fn bfi_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::Bfi { d, a, b, c, e, .. } = op {
        dst(d, f);
        [a, b, c, e].into_iter().for_each(|s| src(s, f));
    }
}

fn video_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::Video { d, a, b, c, .. } = op {
        dst(d, f);
        [a, b, c].into_iter().for_each(|s| src(s, f));
    }
}

fn testp_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::Testp { a, .. } = op {
        src(a, f)
    }
}

fn ld_policy_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::Ld(ld) = op {
        opt_src(&ld.policy, f)
    }
}

fn st_policy_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::St(st) = op {
        opt_src(&st.policy, f)
    }
}

fn cp_async_policy_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::CpAsync(cp) = op {
        opt_src(&cp.policy, f)
    }
}

fn prefetch_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::Prefetch { addr: a, .. } = op {
        addr(a, f)
    }
}

/// An atomic's operands are needed: the value it leaves in memory stays exact, so later
/// atomics and loads of it do too.
fn atom_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::Atom {
        d, addr: a, b, c, ..
    } = op
    {
        opt_dst(d, f);
        addr(a, f);
        src(b, f);
        opt_src(c, f);
    }
}

fn atom_vec_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::AtomVec { elems, addr: a, .. } = op {
        for (d, s) in elems {
            opt_dst(d, f);
            src(s, f);
        }
        addr(a, f);
    }
}

fn policy_fractional_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::CreatePolicyFractional { d, fraction, .. } = op {
        dst(d, f);
        src(fraction, f);
    }
}

fn policy_range_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::CreatePolicyRange {
        d,
        addr: a,
        primary_size,
        total_size,
        ..
    } = op
    {
        dst(d, f);
        addr(a, f);
        src(primary_size, f);
        src(total_size, f);
    }
}

fn mbar_arrive_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::CpAsyncMbarrierArrive { addr: a, .. } = op {
        addr(a, f)
    }
}

fn mbarrier_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::Mbarrier { d, addr: a, b, .. } = op {
        opt_dst(d, f);
        addr(a, f);
        opt_src(b, f);
    }
}

fn bar_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    match op {
        Op::BarSync { id, count, .. } => {
            src(id, f);
            opt_src(count, f);
        }
        Op::BarRed { id, count, d, .. } => {
            src(id, f);
            opt_src(count, f);
            dst(d, f);
        }
        _ => {}
    }
}

/// `shfl`'s moved value only reaches `d`; the lane operands and the mask also decide the
/// predicate output and the warp-synchronous gate.
fn shfl_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::Shfl {
        d, a, b, c, mask, ..
    } = op
    {
        dst(d, f);
        if let Src::Reg(r) = a {
            f(*r, Role::Pass);
        }
        [b, c, mask].into_iter().for_each(|s| src(s, f));
    }
}

fn redux_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::Redux { d, a, mask, .. } = op {
        dst(d, f);
        if let Src::Reg(r) = a {
            f(*r, Role::Pass);
        }
        src(mask, f);
    }
}

fn vote_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::Vote { d, mask, .. } = op {
        opt_dst(d, f);
        src(mask, f);
    }
}

fn elect_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::Elect { d, mask, .. } = op {
        dst(d, f);
        src(mask, f);
    }
}

fn activemask_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::Activemask { d } = op {
        dst(d, f)
    }
}

fn warp_sync_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::WarpSync { mask } = op {
        src(mask, f)
    }
}

/// `match`'s compared value decides its predicate output too.
fn match_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::Match { d, a, mask, .. } = op {
        opt_dst(d, f);
        src(a, f);
        src(mask, f);
    }
}

fn brx_roles(op: &Op, f: &mut impl FnMut(Slot, Role)) {
    if let Op::BrxIdx { index, .. } = op {
        src(index, f)
    }
}

/// A function's counters-only slice ([`Function::slice`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Slice {
    /// Per instruction: skipped in counters-only mode.
    pub skip: Vec<bool>,
    /// Per register slot: the slice needs its value.
    pub needed: Vec<bool>,
    /// No value read from shared memory is needed (no `ld`, `ldmatrix` or atomic that may
    /// read shared memory writes a needed register) and no `cp.async.mbarrier.arrive` ties
    /// a copy's landing to an mbarrier: `cp.async` then only needs its global read (the
    /// counters), not the copy into shared memory, and `ldmatrix` only its addresses.
    pub shared_values_unused: bool,
    /// Per instruction: how many skipped instructions follow one another from it (0 when it
    /// runs). Skipped instructions are pure (no control flow, no warp-synchronous gate, no
    /// memory), so a warp whose lanes share a PC passes a run of them in one go.
    pub skip_run: Vec<u32>,
    /// The registers each instruction that runs names, for the register prefetch (their
    /// entries in `registers`).
    pub slot_table: super::slots::SlotTable,
    /// Where each register lives in counters-only mode's register file (`reg_alloc.rs`):
    /// the needed ones folded onto few entries, the others on one.
    pub registers: RegisterMap,
    /// Per instruction: the register-file entries it writes, whose lanes then no longer hold
    /// one value (`machine/uniform.rs`); 0 for the instructions that keep those bits
    /// themselves (`Int2`, `selp`) and for skipped ones. Empty when the file has more than
    /// 64 entries: the one-value tracking is off.
    pub clobbers: Vec<u64>,
}

impl Slice {
    /// The slice of a kernel's `code` over `slots` register slots, or `None` when it cannot
    /// be sliced (an opaque operation or a call: it then runs in full in counters-only
    /// mode).
    pub fn of(code: &[Inst], slots: u32, pair_starts: &[Slot]) -> Option<Slice> {
        Self::build(code, slots, pair_starts, false)
    }

    /// [`Slice::of`] where every value the kernel stores is needed too: its outputs are
    /// exact, for a launch whose outputs a later counters-only launch reads.
    pub fn with_exact_stores(code: &[Inst], slots: u32, pair_starts: &[Slot]) -> Option<Slice> {
        Self::build(code, slots, pair_starts, true)
    }

    fn build(code: &[Inst], slots: u32, pair_starts: &[Slot], exact_stores: bool) -> Option<Slice> {
        let mut roles: Vec<(SliceKind, SmallRoles)> = Vec::with_capacity(code.len());
        for inst in code {
            let mut r = SmallRoles::new();
            let kind = slice_roles(&inst.op, &mut |s, role| r.push((s, role)));
            if kind == SliceKind::Opaque {
                return None;
            }
            roles.push((kind, r));
        }
        let n = slots as usize;
        let mut needed = Self::fixpoint(&roles, n, exact_stores);
        // A register the slice needs loaded from writable memory: the kernel may read back
        // what it stored (a flag it spins on, an index it wrote): its stores then write the
        // values the full run writes (their data is needed too), so no load the slice needs
        // meets an unknown byte in global memory.
        let loads_needed = code.iter().zip(&roles).any(|(inst, (_, r))| {
            let reads_memory = match &inst.op {
                Op::Ld(ld) => !matches!(ld.space, Space::KernelParam | Space::Const),
                Op::Ldmatrix { .. } | Op::Atom { .. } | Op::AtomVec { .. } => true,
                _ => false,
            };
            reads_memory
                && r.iter()
                    .any(|&(s, role)| role == Role::Def && needed[(s as usize).min(n)])
        });
        if loads_needed && !exact_stores {
            needed = Self::fixpoint(&roles, n, true);
        }
        let skip = roles
            .iter()
            .map(|(kind, r)| {
                *kind == SliceKind::Pure
                    && !r
                        .iter()
                        .any(|&(s, role)| role == Role::Def && needed[(s as usize).min(n)])
            })
            .collect();
        let shared_values_unused = !code.iter().zip(&roles).any(|(inst, (_, r))| {
            let may_read_shared = match &inst.op {
                Op::Ld(ld) => matches!(ld.space, Space::Shared | Space::Generic),
                Op::Atom { space, .. } | Op::AtomVec { space, .. } => {
                    matches!(space, Space::Shared | Space::Generic)
                }
                Op::Ldmatrix { .. } => true,
                // The landing of a copy bound to an mbarrier decides the mbarrier's phase.
                Op::CpAsyncMbarrierArrive { .. } => return true,
                _ => false,
            };
            may_read_shared
                && r.iter()
                    .any(|&(s, role)| role == Role::Def && needed[(s as usize).min(n)])
        });
        needed.truncate(n);
        let skip: Vec<bool> = skip;
        let mut skip_run = vec![0u32; skip.len() + 1];
        for pc in (0..skip.len()).rev() {
            if skip[pc] {
                skip_run[pc] = skip_run[pc + 1] + 1;
            }
        }
        skip_run.pop();
        let role_lists: Vec<&[(Slot, Role)]> = roles.iter().map(|(_, r)| &r[..]).collect();
        let registers = RegisterMap::build(code, |pc| !skip[pc], &role_lists, &needed, pair_starts);
        let slot_table = super::slots::SlotTable::of_runs(code, |pc| !skip[pc])
            .mapped(|s| registers.entry.get(s as usize).copied().unwrap_or(SCRATCH));
        let clobbers = Self::clobbers(code, &skip, &role_lists, &registers, pair_starts);
        Some(Slice {
            skip,
            needed,
            shared_values_unused,
            skip_run,
            slot_table,
            registers,
            clobbers,
        })
    }

    /// [`Slice::clobbers`]: per instruction that runs, the entries of the registers it
    /// writes (both halves of a 128-bit register), unless it is one that keeps their
    /// one-value bits itself.
    fn clobbers(
        code: &[Inst],
        skip: &[bool],
        roles: &[&[(Slot, Role)]],
        registers: &RegisterMap,
        pair_starts: &[Slot],
    ) -> Vec<u64> {
        if registers.entries > 64 {
            return Vec::new();
        }
        let pairs: std::collections::BTreeSet<Slot> = pair_starts.iter().copied().collect();
        let bit = |s: Slot| {
            registers.entry.get(s as usize).map_or(0, |&e| {
                if e < 64 && e != SCRATCH {
                    1u64 << e
                } else {
                    0
                }
            })
        };
        code.iter()
            .zip(skip)
            .zip(roles)
            .map(|((inst, &skipped), r)| {
                if skipped || matches!(inst.op, Op::Int2 { .. } | Op::Selp { .. }) {
                    return 0;
                }
                let mut mask = 0u64;
                for &(s, role) in *r {
                    if role == Role::Def {
                        mask |= bit(s);
                        if pairs.contains(&s) {
                            mask |= bit(s + 1);
                        }
                    }
                }
                mask
            })
            .collect()
    }

    /// The needed slots (one more than `n`, for slots past the count): a kept instruction's
    /// reads, then the reads of every writer of a needed slot, until nothing changes. With
    /// `data_needed`, stores' data too.
    fn fixpoint(roles: &[(SliceKind, SmallRoles)], n: usize, data_needed: bool) -> Vec<bool> {
        let mut needed = vec![false; n + 1];
        for (kind, r) in roles {
            if *kind == SliceKind::Keep {
                for &(s, role) in r {
                    if role == Role::Use || (data_needed && role == Role::Data) {
                        needed[(s as usize).min(n)] = true;
                    }
                }
            }
        }
        loop {
            let mut changed = false;
            for (_, r) in roles {
                if r.iter()
                    .any(|&(s, role)| role == Role::Def && needed[(s as usize).min(n)])
                {
                    for &(s, role) in r {
                        let s = (s as usize).min(n);
                        if matches!(role, Role::Use | Role::Pass) && !needed[s] {
                            needed[s] = true;
                            changed = true;
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        needed
    }

    /// Whether slot `s` is needed (slots past the function's count, which no instruction
    /// names, are not).
    #[inline]
    pub fn is_needed(&self, s: Slot) -> bool {
        self.needed.get(s as usize).copied().unwrap_or(false)
    }

    /// The registers the slice needs, and the register-file entries counters-only mode
    /// keeps them in (`registers`; the shared entry of the registers it does not need
    /// counted).
    pub fn registers_held(&self) -> (u32, u32) {
        let needed = self.needed.iter().filter(|&&n| n).count() as u32;
        (needed, self.registers.entries)
    }

    /// The skipped instructions.
    pub fn skipped(&self) -> usize {
        self.skip.iter().filter(|&&s| s).count()
    }
}

type SmallRoles = smallvec::SmallVec<[(Slot, Role); 8]>;
