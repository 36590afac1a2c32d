//! An estimate of a kernel's registers per thread from its PTX, for launches that give none
//! (no `ptxas -v` figure, no Triton `n_regs`). PTX registers are virtual: ptxas allocates
//! physical ones to the values live at once, so the estimate is the most 32-bit register
//! words live at any instruction of the kernel's body, plus [`RESERVED`]:
//!
//! - a value's live range runs from the first to the last instruction that names it (in
//!   code order, the linear-scan approximation); a value named before a loop's first
//!   instruction and inside the loop stays live to the loop's backward branch;
//! - a 64-bit register counts two words, narrower ones one; predicates none (they have their
//!   own register file);
//! - then rounded up to ptxas's allocation unit of 8 and clamped to 16..=255.
//!
//! A heuristic: ptxas rematerialises values, and its scheduling stretches or shortens live
//! ranges, so the figure can be off by several registers either way (docs/timing.md has the
//! comparison with `ptxas -v`). Called functions are not counted. Give the real figure
//! (`registers_per_thread`, `--registers-per-thread`) when it is known.

use crate::program::{Dst, Op, Program, Src};

/// Registers ptxas holds back from the kernel's values (the stack pointer R1 and an address
/// or two it keeps in registers on sm_80+).
pub const RESERVED: u32 = 2;
/// ptxas allocates registers per thread in units of this many.
pub const UNIT: u32 = 8;
/// The range of an estimate.
pub const MIN: u32 = 16;
pub const MAX: u32 = 255;

/// The estimated registers per thread of function `kernel` of `program`.
pub fn estimate_registers(program: &Program, kernel: u32) -> u32 {
    let Some(f) = program.functions.get(kernel as usize) else {
        return MIN;
    };
    let n = f.code.len();
    let slots = f.slots as usize;
    let mut first = vec![u32::MAX; slots];
    let mut last = vec![0u32; slots];
    for pc in 0..n as u32 {
        for &s in f.slot_table.of(pc) {
            let s = s as usize;
            if s < slots {
                first[s] = first[s].min(pc);
                last[s] = last[s].max(pc);
            }
        }
    }
    // Register copies (`mov %r2, %r1`): ptxas gives both ends one register where it can (the
    // SSA form LLVM emits copies every loop-carried value at the loop's end), so a copy's two
    // registers count as one value over both their ranges.
    let mut parent: Vec<usize> = (0..slots).collect();
    fn root(parent: &mut [usize], mut s: usize) -> usize {
        while parent[s] != s {
            parent[s] = parent[parent[s]];
            s = parent[s];
        }
        s
    }
    for inst in &f.code {
        if let Op::Mov {
            d: Dst::Reg(d),
            a: Src::Reg(a),
            ..
        } = inst.op
        {
            let (d, a) = (d as usize, a as usize);
            if d < slots && a < slots {
                let (rd, ra) = (root(&mut parent, d), root(&mut parent, a));
                if rd != ra {
                    parent[rd] = ra;
                }
            }
        }
    }
    for s in 0..slots {
        let r = root(&mut parent, s);
        if r != s && first[s] != u32::MAX {
            first[r] = first[r].min(first[s]);
            last[r] = last[r].max(last[s]);
            first[s] = u32::MAX;
        }
    }
    // Backward branches: (loop's first instruction, the branch).
    let loops: Vec<(u32, u32)> = f
        .code
        .iter()
        .enumerate()
        .filter_map(|(pc, inst)| match inst.op {
            Op::Bra { target, .. } if (target as usize) <= pc => Some((target, pc as u32)),
            _ => None,
        })
        .collect();
    // A value live into a loop stays live through it; nested loops may extend a range again.
    for _ in 0..=loops.len().min(64) {
        let mut changed = false;
        for &(head, branch) in &loops {
            for s in 0..slots {
                if first[s] < head && last[s] >= head && last[s] < branch {
                    last[s] = branch;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut delta = vec![0i64; n + 1];
    for s in 0..slots {
        if first[s] == u32::MAX {
            continue;
        }
        let bits = f.slot_bits.get(s).copied().unwrap_or(32);
        let words = i64::from(bits.div_ceil(32).clamp(1, 2));
        delta[first[s] as usize] += words;
        delta[last[s] as usize + 1] -= words;
    }
    let mut live = 0i64;
    let mut most = 0i64;
    for d in delta {
        live += d;
        most = most.max(live);
    }
    let words = u32::try_from(most).unwrap_or(MAX).saturating_add(RESERVED);
    words.next_multiple_of(UNIT).clamp(MIN, MAX)
}
