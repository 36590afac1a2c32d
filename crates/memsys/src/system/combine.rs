//! The store path's write combining between an SM and L2.
//!
//! Measured on an H100 (`../shared/hw/h100/counters/corpus_counters.csv`, caches flushed
//! before each kernel): L2 receives fewer write sectors than the SM's L1 counts store
//! sectors when a warp stores the same sectors with several instructions in a row — the
//! stores are merged on their way to L2. The rule kept here: each SM sub-partition (the
//! processing block whose scheduler issues the warp's instructions; warp `w` of a CTA runs on
//! `w % sm_sub_partitions`) has a window of the last `l2_write_combine_lines` lines its warps
//! stored to (first in, first out); a store's sectors already pending in its window reach L2
//! as part of the earlier write and are not counted again. The windows are emptied at kernel
//! boundaries ([`crate::MemSystem::invalidate_all_l1`]). Local stores and `.mmio` stores pass
//! them by: an `.mmio` write is "never combined" (PTX ISA 8.4.1), not even across the lanes of
//! one warp (`crate::system::execute::coalesce`, per lane; H100 `st_forms.st_global_forms`).
//!
//! The evidence (L1 store sectors → L2 write sectors on the H100; one warp per sub-partition
//! in each):
//! - a window holds at least 12 lines: `warp_bits.bit_tricks` (2 warps, 12 back-to-back
//!   `STG.E` each touching 12 lines) 768 → 96, the distinct sectors; `intrinsics.int_intrinsics`
//!   1,024 → 160 the same way; `cp_async_forms.cp_async_ignore_src_forms` (32 `STG.E.U8` of 8
//!   lines each) 1,024 → 32.
//! - and fewer than 16: `cp_async_forms.cp_async_src_size_forms` (64 `STG.E.U8` of 16 lines
//!   each, the same code with twice the lane stride) 2,048 → 2,048, no merging;
//!   `int_divmod.divmod64` (`STG.E.64` of 24 lines) 3,072 → 3,072.
//! - one window per sub-partition, not per SM: `bit_tricks`' two warps (on sub-partitions 0
//!   and 1) issue side by side, so 24 lines pass between two stores of one line, and they
//!   still merge fully, while one warp's 16 lines do not; `nn_ops.argmax_argmin_rows`
//!   (30 → 24 and 27) does not merge stores of different warps (the former SM-wide 8-line
//!   window: 9). Where it loses: `cub_radix_sort`'s scatter passes write 3-7 % more sectors
//!   than the H100 (one SM window: 1-3 % fewer), `cg_tiled_reduce` 16 for 8 — some merging
//!   across sub-partitions happens there.
//!
//! Windows of 12 and of 14 lines give the same agreement figures over the corpus (333 of
//! 385 kernels within 10 % of the H100's L2 sectors; 8 lines: 329, 16: 329). What this rule does
//! not reproduce (`../README.md`, "Agreement"): some kernels merge only partly on the H100
//! (`half_math.half_ops` 1,024 → 704, `triton.vadd_ca_wt` 752 → 312; the rule merges them
//! fully), which depends on how ptxas spaces the stores in SASS. A time limit on a pending
//! line over a per-warp issue clock of the PTX instructions was tried and does not help
//! (the corpus kernels that merge fully have longer gaps between their PTX stores than those
//! that merge partly; see the branch history of this file).
//!
//! The kernels of `-G` builds do not merge at all on the H100 (`MemSystem::set_write_combining`
//! turns the windows off for them: `vote_out_of_line` debug 128 L2 write sectors for 2 warps x
//! 4 stores of 16 sectors, its optimized build 32).

/// Per-sub-partition windows of pending store lines.
#[derive(Debug, Clone, Default)]
pub(crate) struct WriteCombiner {
    /// Lines per window (0: no combining).
    window: usize,
    /// Windows per SM (its sub-partitions).
    parts: usize,
    /// `window` entries per window: line number + 1 (0 = empty), and the sectors pending.
    lines: Vec<u64>,
    masks: Vec<u8>,
    /// Per window, the entry the next new line replaces.
    next: Vec<u32>,
    /// Off for the kernels of `-G` builds (`MemSystem::set_write_combining`).
    disabled: bool,
}

impl WriteCombiner {
    pub(crate) fn new(sm_count: usize, parts: usize, window: usize) -> Self {
        let parts = parts.max(1);
        Self {
            window,
            parts,
            lines: vec![0; sm_count * parts * window],
            masks: vec![0; sm_count * parts * window],
            next: vec![0; sm_count * parts],
            disabled: false,
        }
    }

    /// Turns merging off (every store's sectors reach L2) or back on.
    pub(crate) fn set_enabled(&mut self, on: bool) {
        self.disabled = !on;
    }

    /// A store by warp `warp` (its index in its CTA) on `sm` of `mask` sectors of `line`:
    /// the sectors that reach L2 as a new write (those not already pending in the window of
    /// the warp's sub-partition).
    #[inline(always)]
    pub(crate) fn merge(&mut self, sm: usize, warp: u32, line: u64, mask: u8) -> u8 {
        if self.window == 0 || self.disabled {
            return mask;
        }
        let w = sm * self.parts + warp as usize % self.parts;
        let base = w * self.window;
        let key = line.wrapping_add(1);
        let lines = &self.lines[base..base + self.window];
        if let Some(i) = lines.iter().position(|&l| l == key) {
            let m = &mut self.masks[base + i];
            let new = mask & !*m;
            *m |= mask;
            return new;
        }
        let i = self.next[w] as usize;
        self.lines[base + i] = key;
        self.masks[base + i] = mask;
        self.next[w] = ((i + 1) % self.window) as u32;
        mask
    }

    /// Copies `sm`'s windows from `other` (an SM port's copy, when its phase is settled).
    pub(crate) fn copy_sm_from(&mut self, other: &WriteCombiner, sm: usize) {
        self.disabled = other.disabled;
        let (a, b) = (sm * self.parts, (sm + 1) * self.parts);
        self.next[a..b].copy_from_slice(&other.next[a..b]);
        let (a, b) = (a * self.window, b * self.window);
        self.lines[a..b].copy_from_slice(&other.lines[a..b]);
        self.masks[a..b].copy_from_slice(&other.masks[a..b]);
    }

    /// Empties every window (a kernel boundary: the pending writes have drained).
    pub(crate) fn clear(&mut self) {
        self.lines.fill(0);
        self.masks.fill(0);
        self.next.fill(0);
    }
}
