//! Scheduling ranks: the order lanes reconverge in (min-rank scheduling).

use super::*;
use smallvec::{smallvec, SmallVec};

/// Scheduling ranks: a topological order of the instruction graph (edges to the next
/// instruction and to branch targets, back edges of a depth-first search from the entry left
/// out), taking the lowest PC among the instructions whose predecessors are all ranked.
///
/// The interpreter runs a divergent warp's lanes with the lowest rank first. On structured
/// code laid out in order this is the lowest PC (the min-PC rule), but compilers also place cold
/// blocks after the code they return to (nvcc's `if (__builtin_expect(c, 0))`, LLVM's block
/// placement): by address the lanes at the join would run ahead of the lanes still in the
/// out-of-line block, and meet `vote.sync`, `shfl.sync` or a barrier without them. In
/// topological order an instruction comes after every instruction that reaches it without
/// going around a loop, so the lanes reconverge at the join first. Ties go to the lower PC,
/// which keeps a loop's body ahead of its exit whatever the layout. Unreachable instructions
/// come last, in PC order.
pub fn schedule_ranks(code: &[Inst]) -> Vec<u32> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let n = code.len();
    // Successors in order (a `brx.idx` has one per list entry, then the next instruction
    // when guarded); `None` keeps each edge's position stable for `back`.
    let succ_lists: Vec<SmallVec<[Option<usize>; 2]>> = (0..n)
        .map(|pc| {
            let next = Some(pc + 1).filter(|&x| x < n);
            let guarded = code[pc].guard.is_some();
            let target = |t: Pc| Some(t as usize).filter(|&t| t < n);
            match &code[pc].op {
                Op::Bra { target: t, .. } => smallvec![target(*t), next.filter(|_| guarded)],
                Op::BrxIdx { targets, .. } => targets
                    .iter()
                    .map(|&t| target(t))
                    .chain(std::iter::once(next.filter(|_| guarded)))
                    .collect(),
                Op::Ret | Op::Exit | Op::Trap | Op::Brkpt if !guarded => smallvec![],
                _ => smallvec![next],
            }
        })
        .collect();
    let succs = |pc: usize| succ_lists[pc].iter().copied();
    // Depth-first search (iterative) to find back edges: edges to an instruction on the stack.
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; n];
    let mut back: Vec<SmallVec<[bool; 2]>> = succ_lists
        .iter()
        .map(|s| smallvec![false; s.len()])
        .collect();
    if n > 0 {
        let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
        state[0] = OPEN;
        while let Some(top) = stack.last_mut() {
            let (pc, k) = *top;
            if k < succ_lists[pc].len() {
                top.1 += 1;
                if let Some(t) = succ_lists[pc][k] {
                    match state[t] {
                        NEW => {
                            state[t] = OPEN;
                            stack.push((t, 0));
                        }
                        OPEN => back[pc][k] = true,
                        _ => {}
                    }
                }
            } else {
                state[pc] = DONE;
                stack.pop();
            }
        }
    }
    // Kahn's algorithm over the forward edges of the reachable instructions, lowest PC first.
    let mut preds = vec![0u32; n];
    for pc in 0..n {
        if state[pc] != DONE {
            continue;
        }
        for (k, t) in succs(pc).enumerate() {
            if let Some(t) = t {
                if !back[pc][k] {
                    preds[t] += 1;
                }
            }
        }
    }
    let mut rank = vec![u32::MAX; n];
    let mut ready = BinaryHeap::new();
    if n > 0 {
        ready.push(Reverse(0usize));
    }
    let mut next_rank = 0u32;
    while let Some(Reverse(pc)) = ready.pop() {
        rank[pc] = next_rank;
        next_rank += 1;
        for (k, t) in succs(pc).enumerate() {
            if let Some(t) = t {
                if !back[pc][k] {
                    preds[t] -= 1;
                    if preds[t] == 0 {
                        ready.push(Reverse(t));
                    }
                }
            }
        }
    }
    for r in rank.iter_mut() {
        if *r == u32::MAX {
            *r = next_rank;
            next_rank += 1;
        }
    }
    rank
}

/// Where control may go after `inst` at `pc`: the next instruction, a branch's target (both
/// when the branch is guarded); nowhere after `ret`, `exit` or `trap`.
pub fn successors(inst: &Inst, pc: Pc) -> smallvec::SmallVec<[Option<Pc>; 2]> {
    let guarded = inst.guard.is_some();
    match &inst.op {
        Op::Bra { target, .. } => smallvec::smallvec![Some(*target), guarded.then_some(pc + 1)],
        Op::BrxIdx { targets, .. } => targets
            .iter()
            .map(|&t| Some(t))
            .chain(std::iter::once(guarded.then_some(pc + 1)))
            .collect(),
        Op::Ret | Op::Exit | Op::Trap | Op::Brkpt if !guarded => smallvec::SmallVec::new(),
        _ => smallvec::smallvec![Some(pc + 1)],
    }
}
