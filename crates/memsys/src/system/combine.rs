//! The store path's write combining between an SM and L2.
//!
//! Measured on an H100 (`../shared/hw/h100/counters/corpus_counters.csv`, caches flushed
//! before each kernel): L2 receives fewer write sectors than the SM's L1 counts store
//! sectors when a warp stores the same sectors with several instructions in a row —
//! `out[12*i + k] = …` for k = 0..11 (`warp_bits.bit_tricks`) is 768 L1 store sectors and 96 L2
//! write sectors, exactly the distinct sectors; `out[4*t + j]` for j = 0..3
//! (`pipeline_primitives.pipeline_mbarrier`) 256 and 64. The stores are merged on their way to
//! L2. How long a pending write stays open depends on timing ptxsim does not model; the rule
//! kept here is a window of the last `l2_write_combine_lines` lines each SM stored to (first
//! in, first out): a store's sectors already pending in the window reach L2 as part of the
//! earlier write and are not counted again. Over the one-kernel corpus launches a window of 8
//! lines gives the most kernels whose L2 write sectors lie within 10 % of the H100's (4 to 64
//! lines differ by at most 3 kernels; no window: 35 fewer). The window is emptied at kernel
//! boundaries ([`crate::MemSystem::invalidate_all_l1`]).

/// Per-SM windows of pending store lines.
#[derive(Debug, Clone, Default)]
pub(crate) struct WriteCombiner {
    /// Lines per SM (0: no combining).
    window: usize,
    /// `window` entries per SM: line number + 1 (0 = empty), and the sectors pending.
    lines: Vec<u64>,
    masks: Vec<u8>,
    /// Per SM, the entry the next new line replaces.
    next: Vec<u32>,
}

impl WriteCombiner {
    pub(crate) fn new(sm_count: usize, window: usize) -> Self {
        Self {
            window,
            lines: vec![0; sm_count * window],
            masks: vec![0; sm_count * window],
            next: vec![0; sm_count],
        }
    }

    /// A store by `sm` of `mask` sectors of `line`: the sectors that reach L2 as a new
    /// write (those not already pending in the SM's window).
    #[inline(always)]
    pub(crate) fn merge(&mut self, sm: usize, line: u64, mask: u8) -> u8 {
        if self.window == 0 {
            return mask;
        }
        let base = sm * self.window;
        let key = line.wrapping_add(1);
        let lines = &self.lines[base..base + self.window];
        if let Some(i) = lines.iter().position(|&l| l == key) {
            let m = &mut self.masks[base + i];
            let new = mask & !*m;
            *m |= mask;
            return new;
        }
        let i = self.next[sm] as usize;
        self.lines[base + i] = key;
        self.masks[base + i] = mask;
        self.next[sm] = ((i + 1) % self.window) as u32;
        mask
    }

    /// Copies `sm`'s window from `other` (an SM port's copy, when its phase is settled).
    pub(crate) fn copy_sm_from(&mut self, other: &WriteCombiner, sm: usize) {
        let (a, b) = (sm * self.window, (sm + 1) * self.window);
        self.lines[a..b].copy_from_slice(&other.lines[a..b]);
        self.masks[a..b].copy_from_slice(&other.masks[a..b]);
        self.next[sm] = other.next[sm];
    }

    /// Empties every window (a kernel boundary: the pending writes have drained).
    pub(crate) fn clear(&mut self) {
        self.lines.fill(0);
        self.masks.fill(0);
        self.next.fill(0);
    }
}
