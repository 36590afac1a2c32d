//! Counters-only mode: register-file entries whose lanes all hold one value, so integer
//! arithmetic, `setp` and `selp` on them compute one lane instead of 32.
//!
//! Most of the address arithmetic a kernel keeps in its slice is the same in every lane: loop
//! counters, tile offsets, pipeline stages, and the bounds checks of a tiled kernel whose sizes
//! divide evenly (`selp.b32 %r, 16, 0, %p` with `%p` true in every lane). On the README matmul
//! 56 % of the slice's `add`/`shl`/`setp`/`selp` executions have such operands. GPUs find the
//! same: the compiler's uniform datapath (`UR` registers, sm_75 and later) runs them once per
//! warp.
//!
//! The rule, per frame (`Frame::same`, a bit per entry; kept only when the slice's register
//! file has at most 64 entries, `Slice::clobbers`):
//! - a fresh frame's entries are all zero: each holds one value (but the scratch entry of
//!   the registers the slice does not need, whose bit is never set);
//! - an `Int2` or `selp` whose operands each hold one value (an immediate, a special register
//!   that does not depend on the lane, an entry whose bit is set; `selp`'s predicate true in
//!   all executing lanes or in none) computes it once and writes it to the executing lanes;
//!   the entry's bit is then set when those are all the frame's live lanes (lanes that exited
//!   or returned never run again in the frame, so the value stays one value for every lane
//!   that can read it), cleared otherwise; with other operands it runs lane by lane and
//!   clears the bit;
//! - `setp` with such operands compares once (it writes predicates, which are lane masks);
//! - after every other instruction, the entries it writes (`Slice::clobbers`) are checked
//!   again: an entry holds one value when its live lanes all hold the same (`step`,
//!   `recheck_uniform`);
//! - a register written after its instruction's step (`bar.red.popc`, when the barrier
//!   completes) loses its bit (`complete_barrier`).
//!
//! The values are the full run's: an entry's bit is set only when every lane that can read it
//! holds the value the one-lane computation produced, which is what each lane would have
//! computed from the same operands.

use super::{Cta, Frame, Machine};
use crate::program::*;

/// Whether the lanes of `alive` in `lanes` all hold one value (the first differing lane
/// ends the search: most entries differ from lane to lane).
#[inline]
fn one_value(lanes: &[u64], alive: u32) -> bool {
    if alive == 0 {
        return true;
    }
    let first = lanes[alive.trailing_zeros() as usize];
    if alive == super::FULL {
        return lanes.iter().all(|&v| v == first);
    }
    let mut bits = alive;
    while bits != 0 {
        let l = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        if lanes[l] != first {
            return false;
        }
    }
    true
}

impl Machine<'_> {
    /// Whether this launch tracks one-value entries (counters-only mode with a register
    /// file of at most 64 entries).
    #[inline(always)]
    pub(super) fn tracks_uniform(&self) -> bool {
        self.slice.is_some_and(|s| !s.clobbers.is_empty())
    }

    /// The value `src` holds in every lane of `frame` that can read it, when it holds one
    /// (read at `lane`, an executing lane).
    #[inline(always)]
    pub(super) fn uniform_value(
        &self,
        cta: &Cta,
        wi: usize,
        frame: &Frame,
        src: Src,
        lane: usize,
    ) -> Option<u64> {
        match src {
            Src::Imm(v) => Some(v),
            Src::Reg(s) => {
                let m = frame.map.as_ref()?;
                let e = *m.get(s as usize)?;
                (e < 64 && frame.same >> e & 1 != 0).then(|| frame.regs[e as usize * 32 + lane])
            }
            Src::Special(sp) if !super::operands::lane_dependent(sp) => {
                Some(self.special(cta, &cta.warps[wi], 0, sp))
            }
            Src::Special(_) => None,
        }
    }

    /// Both operands' one values, when they each hold one (see [`Self::uniform_value`]).
    #[inline(always)]
    pub(super) fn uniform_pair(
        &self,
        cta: &Cta,
        wi: usize,
        a: Src,
        b: Src,
        exec: u32,
    ) -> Option<(u64, u64)> {
        let frame = cta.warps[wi].frames.last()?;
        let lane = exec.trailing_zeros() as usize;
        let x = self.uniform_value(cta, wi, frame, a, lane)?;
        let y = self.uniform_value(cta, wi, frame, b, lane)?;
        Some((x, y))
    }

    /// Writes `value` (masked to the register's width) to `d` in the lanes of `exec`, and
    /// records whether the entry now holds one value for every live lane of the frame.
    pub(super) fn write_uniform(
        cta: &mut Cta,
        wi: usize,
        program: &Program,
        d: Dst,
        value: u64,
        exec: u32,
    ) {
        let Dst::Reg(s) = d else { return };
        let warp = &mut cta.warps[wi];
        let exited = warp.exited;
        let frame = warp.frames.last_mut().expect("a frame");
        let v = value
            & crate::alu::width_mask(program.functions[frame.func as usize].slot_bits[s as usize]);
        let b = frame.base(s);
        let regs = &mut frame.regs[b..b + 32];
        if exec == super::FULL {
            regs.fill(v);
        } else {
            let mut bits = exec;
            while bits != 0 {
                let l = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                regs[l] = v;
            }
        }
        let alive = frame.mask & !frame.done & !exited;
        Self::mark_uniform(frame, s, exec & alive == alive);
    }

    /// After an instruction wrote the entries of `written` (its `Slice::clobbers`): each
    /// holds one value when its live lanes all hold the same.
    pub(super) fn recheck_uniform(cta: &mut Cta, wi: usize, written: u64) {
        let warp = &mut cta.warps[wi];
        let exited = warp.exited;
        let Some(frame) = warp.frames.last_mut() else {
            return;
        };
        let alive = frame.mask & !frame.done & !exited;
        let mut same = frame.same & !written;
        let mut bits = written;
        while bits != 0 {
            let e = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if let Some(lanes) = frame.regs.get(e * 32..e * 32 + 32) {
                if one_value(lanes, alive) {
                    same |= 1 << e;
                }
            }
        }
        frame.same = same;
    }

    /// Sets (or clears) the one-value bit of slot `s`'s entry.
    #[inline(always)]
    pub(super) fn mark_uniform(frame: &mut Frame, s: Slot, one: bool) {
        if let Some(e) = frame.map.as_ref().and_then(|m| m.get(s as usize).copied()) {
            if e < 64 && e != SCRATCH {
                if one {
                    frame.same |= 1 << e;
                } else {
                    frame.same &= !(1 << e);
                }
            }
        }
    }

    /// Clears the one-value bit of `d`'s entry: a handler that keeps the bits of what it
    /// writes (`Slice::clobbers` leaves them to it) wrote lanes one by one.
    #[inline(always)]
    pub(super) fn clear_uniform(cta: &mut Cta, wi: usize, d: Dst) {
        if let Dst::Reg(s) = d {
            let frame = cta.warps[wi].frames.last_mut().expect("a frame");
            Self::mark_uniform(frame, s, false);
        }
    }
}
