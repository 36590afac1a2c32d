//! Warp-level data movement and voting as index math: the interpreter gathers the lanes' values
//! and applies these (PTX ISA §"shfl.sync", §"vote.sync", §"match.sync", §"redux.sync",
//! §"activemask").

use crate::int::IntTy;

/// `shfl.sync` mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShflMode {
    /// `.up`: from `lane - b`.
    Up,
    /// `.down`: from `lane + b`.
    Down,
    /// `.bfly`: from `lane ^ b`.
    Bfly,
    /// `.idx`: from lane `b` within the segment.
    Idx,
}

/// `shfl.sync.mode.b32 d|p, a, b, c, membermask` for one lane: returns `(j, p)` where `j` is the
/// lane whose `a` the lane copies into `d` and `p` the in-range predicate (when out of range,
/// `j == lane`: the lane keeps its own `a`). `c[4:0]` is the clamp value and `c[12:8]` the
/// segment mask, exactly as the ISA's pseudocode:
///
/// ```text
/// maxLane = (lane & mask) | (cval & ~mask);  minLane = lane & mask;
/// up: j = lane - bval, p = j >= maxLane;   down: j = lane + bval, p = j <= maxLane;
/// bfly: j = lane ^ bval, p = j <= maxLane; idx: j = minLane | (bval & ~mask), p = j <= maxLane
/// ```
#[inline]
pub fn shfl_source(mode: ShflMode, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let lane = (lane & 31) as i32;
    let bval = (b & 31) as i32;
    let cval = (c & 31) as i32;
    let mask = ((c >> 8) & 31) as i32;
    let max_lane = (lane & mask) | (cval & !mask);
    let min_lane = lane & mask;
    let (j, p) = match mode {
        ShflMode::Up => {
            let j = lane - bval;
            (j, j >= max_lane)
        }
        ShflMode::Down => {
            let j = lane + bval;
            (j, j <= max_lane)
        }
        ShflMode::Bfly => {
            let j = lane ^ bval;
            (j, j <= max_lane)
        }
        ShflMode::Idx => {
            let j = min_lane | (bval & !mask);
            (j, j <= max_lane)
        }
    };
    if p {
        (j as u32, true)
    } else {
        (lane as u32, false)
    }
}

/// `vote.sync.all.pred`: true iff every lane of `membermask` has its predicate set (`preds` bit
/// `i` is lane `i`'s predicate, already negated for `!a`).
#[inline]
pub fn vote_all(membermask: u32, preds: u32) -> bool {
    preds & membermask == membermask
}

/// `vote.sync.any.pred`.
#[inline]
pub fn vote_any(membermask: u32, preds: u32) -> bool {
    preds & membermask != 0
}

/// `vote.sync.uni.pred`: all lanes of `membermask` agree.
#[inline]
pub fn vote_uni(membermask: u32, preds: u32) -> bool {
    let p = preds & membermask;
    p == 0 || p == membermask
}

/// `vote.sync.ballot.b32`: bit `i` set iff lane `i` is in `membermask` and its predicate is set.
#[inline]
pub fn vote_ballot(membermask: u32, preds: u32) -> u32 {
    preds & membermask
}

/// `activemask.b32`: the mask of currently active lanes.
#[inline]
pub fn activemask(active: u32) -> u32 {
    active
}

/// `match.any.sync.b32/.b64` for lane `lane`: the lanes of `membermask` whose value equals this
/// lane's.
#[inline]
pub fn match_any(values: &[u64; 32], membermask: u32, lane: u32) -> u32 {
    let v = values[(lane & 31) as usize];
    (0..32)
        .filter(|&i| membermask >> i & 1 == 1 && values[i as usize] == v)
        .fold(0, |m, i| m | 1 << i)
}

/// `match.all.sync.b32/.b64 d|p`: `(membermask, true)` if every lane of `membermask` holds the
/// same value, else `(0, false)`.
#[inline]
pub fn match_all(values: &[u64; 32], membermask: u32) -> (u32, bool) {
    let mut it = (0..32)
        .filter(|&i| membermask >> i & 1 == 1)
        .map(|i| values[i as usize]);
    match it.next() {
        Some(first) if it.all(|v| v == first) => (membermask, true),
        _ => (0, false),
    }
}

/// `redux.sync` operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduxOp {
    /// `.add` (`.u32 .s32`, wrapping)
    Add,
    /// `.min` (`.u32 .s32`)
    Min,
    /// `.max` (`.u32 .s32`)
    Max,
    /// `.and.b32`
    And,
    /// `.or.b32`
    Or,
    /// `.xor.b32`
    Xor,
}

/// `redux.sync.op.type d, a, membermask`: the reduction of `values` over the lanes of
/// `membermask` (every participating lane receives it). An empty mask gives the operation's
/// identity.
#[inline]
pub fn redux(op: ReduxOp, t: IntTy, values: &[u32; 32], membermask: u32) -> u32 {
    let lanes = (0..32usize)
        .filter(|&i| membermask >> i & 1 == 1)
        .map(|i| values[i]);
    match op {
        ReduxOp::Add => lanes.fold(0u32, |a, v| a.wrapping_add(v)),
        ReduxOp::And => lanes.fold(u32::MAX, |a, v| a & v),
        ReduxOp::Or => lanes.fold(0, |a, v| a | v),
        ReduxOp::Xor => lanes.fold(0, |a, v| a ^ v),
        ReduxOp::Min if t.signed => lanes.map(|v| v as i32).fold(i32::MAX, i32::min) as u32,
        ReduxOp::Max if t.signed => lanes.map(|v| v as i32).fold(i32::MIN, i32::max) as u32,
        ReduxOp::Min => lanes.fold(u32::MAX, u32::min),
        ReduxOp::Max => lanes.fold(0, u32::max),
    }
}
