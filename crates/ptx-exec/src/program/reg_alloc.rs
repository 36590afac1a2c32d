//! The counters-only register file: the slice's registers folded onto few entries
//! ([`RegisterMap`], built with the slice, `slice.rs`).
//!
//! PTX names a virtual register per value (Triton's matmul declares 385 register slots;
//! ptxas folds them onto 96 per thread). At real sizes the interpreter's time goes to
//! bringing each warp's registers into the host's caches at its turn (a 2048³ matmul keeps
//! 2,640 warps resident): a turn of the matmul's main loop names 131 registers, most of them
//! values used once right after they are computed. Counters-only mode runs only the slice, so
//! its register file needs only the registers the slice needs, and two of them whose live
//! ranges never overlap can share an entry: fewer host cache lines per turn, and a register
//! file a fraction of the size (less memory to zero for each resident warp).
//!
//! The rules, each of which keeps every needed register holding the value the full run
//! computes (what the slice relies on):
//! - liveness over the function's control flow, per lane (a lane follows one path; a write
//!   touches only the lanes that execute it), of the instructions that run (a skipped one
//!   reads and writes nothing);
//! - two registers conflict when one is live where the other is written (Chaitin's rule); a
//!   register read before any write reads 0 from a fresh register file, as in the full run,
//!   and no other register is written into its entry before that read;
//! - a guarded write leaves the lanes whose guard is false as they were: it also reads;
//! - an instruction's written registers conflict with the registers it reads and with each
//!   other, whatever their live ranges (a handler may write one before it reads another);
//! - a 128-bit register's two slots (handlers address the second as the first plus one) get
//!   two adjacent entries of their own when the slice needs either;
//! - a register `shfl` moves gets an entry of its own: `shfl` may read it from a lane that
//!   is not executing (its source lane outside the membermask, or exited), where it is not
//!   live, and the full run returns that lane's last value of it;
//! - every register the slice does not need shares entry 0: what it holds reaches nothing
//!   the slice needs (an instruction that runs reads needed registers for everything it
//!   computes that the slice needs; a store's data it does not need is marked unknown).

use super::slots::Role;
use super::*;
use std::sync::Arc;

/// The entry every register the slice does not need shares.
pub const SCRATCH: u32 = 0;

/// Where each register slot of a sliced function lives in counters-only mode's register file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RegisterMap {
    /// Per slot: its entry (32 lanes each) in the register file.
    pub entry: Arc<[u32]>,
    /// Entries in the register file.
    pub entries: u32,
}

impl RegisterMap {
    /// The map of a function's `slots` register slots, `code` its instructions, `runs(pc)`
    /// whether instruction `pc` runs in counters-only mode, `roles[pc]` the complete
    /// register roles of each instruction (the slice's), `needed` the slots the slice
    /// needs, `pair_starts` the first slots of 128-bit registers.
    pub fn build(
        code: &[Inst],
        runs: impl Fn(usize) -> bool,
        roles: &[&[(Slot, Role)]],
        needed: &[bool],
        pair_starts: &[Slot],
    ) -> RegisterMap {
        let slots = needed.len();
        let mut entry = vec![SCRATCH; slots];
        let mut next = SCRATCH + 1;
        // 128-bit registers the slice needs: two adjacent entries of their own.
        let mut in_pair = vec![false; slots];
        for &p in pair_starts {
            let (a, b) = (p as usize, p as usize + 1);
            if b < slots {
                in_pair[a] = true;
                in_pair[b] = true;
                if needed[a] || needed[b] {
                    entry[a] = next;
                    entry[b] = next + 1;
                    next += 2;
                }
            }
        }
        // Registers `shfl` moves: an entry of their own.
        for inst in code {
            if let Op::Shfl { a: Src::Reg(r), .. } = &inst.op {
                let r = *r as usize;
                if r < slots && needed[r] && !in_pair[r] && entry[r] == SCRATCH {
                    entry[r] = next;
                    next += 1;
                }
            }
        }
        // The registers to fold: needed, not half of a pair nor moved by `shfl`; dense
        // indices.
        let mut index = vec![u32::MAX; slots];
        let mut folded: Vec<usize> = Vec::new();
        for s in 0..slots {
            if needed[s] && !in_pair[s] && entry[s] == SCRATCH {
                index[s] = folded.len() as u32;
                folded.push(s);
            }
        }
        let k = folded.len();
        let dense = |s: Slot| -> Option<usize> {
            index
                .get(s as usize)
                .copied()
                .filter(|&i| i != u32::MAX)
                .map(|i| i as usize)
        };
        // Per instruction that runs: the folded registers it reads and writes.
        let n = code.len();
        let mut uses: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut defs: Vec<Vec<usize>> = vec![Vec::new(); n];
        for pc in 0..n {
            if !runs(pc) {
                continue;
            }
            for &(s, role) in roles[pc] {
                if let Some(i) = dense(s) {
                    let list = if role == Role::Def {
                        &mut defs[pc]
                    } else {
                        &mut uses[pc]
                    };
                    if !list.contains(&i) {
                        list.push(i);
                    }
                }
            }
            if code[pc].guard.is_some() {
                // A guarded write keeps the other lanes' values: it reads them too.
                for i in defs[pc].clone() {
                    if !uses[pc].contains(&i) {
                        uses[pc].push(i);
                    }
                }
            }
        }
        let live_out = liveness(code, &runs, &uses, &defs, k);
        // Conflicts: a written register with what is live after the write, with what the
        // instruction reads and with what else it writes.
        let mut conflicts = BitMatrix::new(k);
        for pc in 0..n {
            for &d in &defs[pc] {
                for x in live_out[pc].ones() {
                    conflicts.set(d, x);
                }
                for &x in uses[pc].iter().chain(&defs[pc]) {
                    conflicts.set(d, x);
                }
            }
        }
        // Greedy, in slot order: each folded register takes the first entry none of its
        // conflicting registers took.
        let base = next;
        let mut color = vec![u32::MAX; k];
        let mut taken: Vec<bool> = Vec::new();
        for v in 0..k {
            taken.clear();
            for x in conflicts.row(v).ones() {
                if x != v && color[x] != u32::MAX {
                    let c = (color[x] - base) as usize;
                    if taken.len() <= c {
                        taken.resize(c + 1, false);
                    }
                    taken[c] = true;
                }
            }
            let c = taken.iter().position(|&t| !t).unwrap_or(taken.len()) as u32;
            color[v] = base + c;
            next = next.max(base + c + 1);
        }
        for (v, &s) in folded.iter().enumerate() {
            entry[s] = color[v];
        }
        RegisterMap {
            entry: entry.into(),
            entries: next,
        }
    }
}

/// The folded registers live after each instruction (`k` of them), by the usual backward
/// fixpoint over the control flow.
fn liveness(
    code: &[Inst],
    runs: &impl Fn(usize) -> bool,
    uses: &[Vec<usize>],
    defs: &[Vec<usize>],
    k: usize,
) -> Vec<Bits> {
    let n = code.len();
    let mut live_in = vec![Bits::new(k); n];
    let mut live_out = vec![Bits::new(k); n];
    loop {
        let mut changed = false;
        for pc in (0..n).rev() {
            let mut out = Bits::new(k);
            for next in successors(&code[pc], pc as Pc).into_iter().flatten() {
                if let Some(l) = live_in.get(next as usize) {
                    out.union_with(l);
                }
            }
            let mut inn = out.clone();
            if runs(pc) {
                for &d in &defs[pc] {
                    inn.clear(d);
                }
                for &u in &uses[pc] {
                    inn.set(u);
                }
            }
            if inn != live_in[pc] {
                live_in[pc] = inn;
                changed = true;
            }
            live_out[pc] = out;
        }
        if !changed {
            break;
        }
    }
    live_out
}

/// A fixed-size bit set.
#[derive(Clone, PartialEq, Eq)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(k: usize) -> Bits {
        Bits(vec![0; k.div_ceil(64)])
    }
    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    fn clear(&mut self, i: usize) {
        self.0[i / 64] &= !(1 << (i % 64));
    }
    fn union_with(&mut self, o: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }
    fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &bits)| {
            let mut b = bits;
            std::iter::from_fn(move || {
                (b != 0).then(|| {
                    let i = b.trailing_zeros() as usize;
                    b &= b - 1;
                    w * 64 + i
                })
            })
        })
    }
}

/// A symmetric `k × k` bit matrix (the conflict graph).
struct BitMatrix(Vec<Bits>);

impl BitMatrix {
    fn new(k: usize) -> BitMatrix {
        BitMatrix(vec![Bits::new(k); k])
    }
    fn set(&mut self, a: usize, b: usize) {
        if a != b {
            self.0[a].set(b);
            self.0[b].set(a);
        }
    }
    fn row(&self, a: usize) -> &Bits {
        &self.0[a]
    }
}
