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
    /// Cycles a pending line stays open after its first store (0: no limit).
    open_cycles: u64,
    /// The issue cycle of the store being merged (set by the store's caller; 0 when the
    /// caller has no clock, e.g. a trace).
    now: u64,
    /// `window` entries per SM: line number + 1 (0 = empty), and the sectors pending.
    lines: Vec<u64>,
    masks: Vec<u8>,
    /// The issue cycle of each entry's first store.
    opened: Vec<u64>,
    /// Per SM, the entry the next new line replaces.
    next: Vec<u32>,
    /// Windows per SM (one per sub-partition), and the one the next stores use.
    parts: usize,
    part: usize,
    /// Cycles each queued line takes to leave for L2 (0: lines never leave by time).
    drain: u64,
    /// Per window, the cycle its last queued line leaves.
    last_leave: Vec<u64>,
    sm_stage: Option<Box<WriteCombiner>>,
}

impl WriteCombiner {
    pub(crate) fn new(sm_count: usize, window: usize, open_cycles: u64, parts: usize) -> Self {
        let parts = parts.max(1);
        let n = sm_count * parts;
        Self {
            window,
            open_cycles,
            now: 0,
            lines: vec![0; n * window],
            masks: vec![0; n * window],
            opened: vec![0; n * window],
            next: vec![0; n],
            parts,
            part: 0,
            drain: std::env::var("PTXSIM_WC_DRAIN")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(0),
            last_leave: vec![0; n],
            sm_stage: std::env::var("PTXSIM_WC_SMLINES")
                .ok()
                .and_then(|v| v.parse().ok())
                .filter(|_| parts > 1)
                .map(|w| Box::new(WriteCombiner::new(sm_count, w, 0, 1))),
        }
    }

    /// Sets the issue cycle and the issuing warp's slot of the stores merged next.
    #[inline]
    pub(crate) fn set_now(&mut self, cycle: u64, warp: u32) {
        self.now = cycle;
        self.part = warp as usize % self.parts;
    }

    /// A store by `sm` of `mask` sectors of `line`: the sectors that reach L2 as a new
    /// write (those not already pending in the SM's window).
    #[inline(always)]
    pub(crate) fn merge(&mut self, sm: usize, line: u64, mask: u8) -> u8 {
        if let Some(mut st) = self.sm_stage.take() {
            let b = st.merge(sm, line, mask);
            self.sm_stage = Some(st);
            return self.merge_part(sm, line, mask) & b;
        }
        self.merge_part(sm, line, mask)
    }

    #[inline(always)]
    fn merge_part(&mut self, sm: usize, line: u64, mask: u8) -> u8 {
        if self.window == 0 {
            return mask;
        }
        let sm = sm * self.parts + self.part;
        let base = sm * self.window;
        let key = line.wrapping_add(1);
        let lines = &self.lines[base..base + self.window];
        if let Some(i) = lines.iter().position(|&l| l == key) {
            let opened = self.opened[base + i];
            let open = if self.drain > 0 {
                self.now < opened
            } else {
                self.open_cycles == 0 || self.now.abs_diff(opened) <= self.open_cycles
            };
            if open {
                if self.drain == 0 && std::env::var_os("PTXSIM_WC_LAST").is_some() {
                    self.opened[base + i] = self.now.max(opened);
                }
                let m = &mut self.masks[base + i];
                let new = mask & !*m;
                *m |= mask;
                return new;
            }
            // The pending write left for L2 when its time ran out: this store opens the
            // line's next one in the same entry.
            self.masks[base + i] = mask;
            self.opened[base + i] = self.enqueue(sm);
            return mask;
        }
        let i = self.next[sm] as usize;
        self.lines[base + i] = key;
        self.masks[base + i] = mask;
        self.opened[base + i] = self.enqueue(sm);
        self.next[sm] = ((i + 1) % self.window) as u32;
        mask
    }

    /// The cycle a line queued now leaves (drain mode), or now.
    fn enqueue(&mut self, w: usize) -> u64 {
        if self.drain == 0 {
            return self.now;
        }
        let leave = self.now.max(self.last_leave[w]) + self.drain;
        self.last_leave[w] = leave;
        leave
    }

    /// Copies `sm`'s window from `other` (an SM port's copy, when its phase is settled).
    pub(crate) fn copy_sm_from(&mut self, other: &WriteCombiner, sm: usize) {
        let (a, b) = (
            sm * self.parts * self.window,
            (sm + 1) * self.parts * self.window,
        );
        self.lines[a..b].copy_from_slice(&other.lines[a..b]);
        self.masks[a..b].copy_from_slice(&other.masks[a..b]);
        self.opened[a..b].copy_from_slice(&other.opened[a..b]);
        let (a, b) = (sm * self.parts, (sm + 1) * self.parts);
        self.next[a..b].copy_from_slice(&other.next[a..b]);
        self.last_leave[a..b].copy_from_slice(&other.last_leave[a..b]);
        if let (Some(me), Some(o)) = (self.sm_stage.as_mut(), other.sm_stage.as_ref()) {
            me.copy_sm_from(o, sm);
        }
    }

    /// Empties every window (a kernel boundary: the pending writes have drained).
    pub(crate) fn clear(&mut self) {
        self.lines.fill(0);
        self.masks.fill(0);
        self.opened.fill(0);
        self.last_leave.fill(0);
        if let Some(st) = self.sm_stage.as_mut() {
            st.clear();
        }
        self.next.fill(0);
        self.now = 0;
    }
}
