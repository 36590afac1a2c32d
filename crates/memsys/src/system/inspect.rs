//! Introspection: statistics snapshots, per-line state of L1/L2, L2 occupancy and its
//! timeline, and the latency of the level that served a request.

use super::*;

/// Appends an L2 occupancy sample (`[evict_first, normal, evict_last]` lines) to the timeline.
#[cold]
#[inline(never)]
pub(super) fn push_timeline_sample(stats: &mut Stats, occupancy: [u64; 3]) {
    let [f, n, l] = occupancy;
    stats.timeline.push(OccupancySample {
        request: stats.requests,
        evict_first: f,
        normal: n,
        evict_last: l,
    });
}

impl MemSystem {
    /// The latency of the level that served a request.
    #[inline(always)]
    pub(super) fn latency(&self, level: u8) -> u32 {
        match level {
            0 | 1 => self.cfg.l1.latency_cycles,
            2 => self.cfg.l2.latency_cycles,
            _ => self.cfg.dram_latency_cycles,
        }
    }

    /// The end of every request: an occupancy sample if the timeline is due.
    #[inline(always)]
    pub(super) fn sample_timeline(&mut self) {
        let interval = self.cfg.timeline_interval;
        if interval > 0 && self.stats.requests % interval == 0 {
            self.push_timeline_sample();
        }
    }

    pub(super) fn push_timeline_sample(&mut self) {
        push_timeline_sample(&mut self.stats, self.l2.occupancy());
    }

    // ---------------------------------------------------------------- inspection

    /// A snapshot of the statistics.
    pub fn stats(&self) -> Stats {
        let mut s = self.stats.clone();
        s.l2_occupancy = self.occupancy_sample();
        s
    }

    /// Clears every counter and the timeline (cache contents stay).
    pub fn reset_stats(&mut self) {
        self.stats = Stats::new(&self.cfg.name, self.cfg.sm_count as usize);
    }

    /// The L2 state of the line holding `addr` in its home partition (the point of
    /// coherence, `system/partitions.rs`), if resident there.
    pub fn l2_line(&self, addr: u64) -> Option<LineState> {
        let line = addr >> self.geo.line_shift;
        self.l2_line_in(self.l2.home(line), addr)
    }

    /// The L2 state of the line holding `addr` in partition `partition` (its home, or a copy
    /// an SM near that partition read), if resident there.
    pub fn l2_line_in(&self, partition: usize, addr: u64) -> Option<LineState> {
        if partition >= self.l2.count() {
            return None;
        }
        let part = self.l2.part(partition);
        let (_, slot) = part.lookup(addr >> self.geo.line_shift);
        slot.map(|s| LineState {
            valid_sectors: part.valid(s),
            dirty_sectors: part.dirty(s),
            class: part.class(s),
        })
    }

    /// The L2 partition that homes `addr` and the one SM `sm` is near
    /// (`system/partitions.rs`).
    pub fn l2_partitions_of(&self, sm: u32, addr: u64) -> (usize, usize) {
        (
            self.l2.home(addr >> self.geo.line_shift),
            self.l2.near(sm as usize),
        )
    }

    /// SM `sm`'s L1 state of the line holding `addr`, if resident.
    pub fn l1_line(&self, sm: u32, addr: u64) -> Option<LineState> {
        let sm = sm as usize;
        if sm >= self.l1.len() || !self.l1_ready[sm] {
            return None;
        }
        let (_, slot) = self.l1[sm].lookup(addr >> self.geo.line_shift);
        slot.map(|s| LineState {
            valid_sectors: self.l1[sm].valid(s),
            dirty_sectors: 0,
            class: self.l1[sm].class(s),
        })
    }

    /// L2 lines per class `[evict_first, normal, evict_last]`.
    pub fn l2_occupancy(&self) -> [u64; 3] {
        self.l2.occupancy()
    }

    /// Most evict-last lines held by any one L2 set.
    pub fn l2_max_evict_last_per_set(&self) -> u32 {
        self.l2.max_last_lines_per_set()
    }

    pub(super) fn occupancy_sample(&self) -> OccupancySample {
        let [f, n, l] = self.l2.occupancy();
        OccupancySample {
            request: self.stats.requests,
            evict_first: f,
            normal: n,
            evict_last: l,
        }
    }
}
