//! The L2 request coalescer: reads of one sector by several SMs, merged before L2.
//!
//! Nsight Compute names the unit (`lrc`, GH100 and later): "The L2 Request Coalescer (LRC)
//! processes incoming requests for L2 and tries to coalesce read requests before forwarding
//! them to the L2 cache." A merged read is answered with the fill of the request it joined
//! and never reaches the L2 tag stage, so `lts__t_sectors*` do not count it.
//!
//! The rule kept here: the SMs form `l2_read_coalescing_domains` groups (SM `s` in group
//! `s % domains`). A read whose sectors another SM of its group missed in L2 in the same
//! scheduling round (the fill from DRAM is still in progress) joins that fill: those sectors
//! are not looked up again. Reads that hit are not remembered (an L2 hit is answered at L2
//! latency, far sooner than a DRAM fill), nor are atomics (performed at L2) or local memory
//! (per-thread, never shared). The caller marks the rounds ([`ReadCoalescer::begin_round`]:
//! the interpreter's scheduling round, in which every resident warp issues up to its
//! quantum of instructions); nothing merges before the first mark, so trace replay, which
//! has no rounds, merges nothing.
//!
//! The evidence (`../shared/hw/h100/counters/corpus_counters.csv`, caches flushed before each
//! kernel; the L1 misses of global loads against `lts__t_sectors_srcunit_tex_op_read`):
//! - reads of CTAs an even number apart merge: `triton.rotary` (16 CTAs read the same 5
//!   sectors, each missing in its own L1) 208 L1 misses, 173 L2 reads = 35 fewer = the 7 even
//!   CTAs after CTA 0; `triton.layer_norm` (4 CTAs read the same 64 weight sectors) 384 → 320,
//!   CTA 2's 64; `triton.layer_norm_bwd` 308 → 281 (CTA 2's 27). The rule gives all three
//!   exactly.
//! - reads of adjacent CTAs never merge: `triton.matmul_fp16` (CTAs 0 and 1 read the same
//!   256 sectors of B at the same point of the same code) 1,024 L1 misses, 1,024 L2 reads; the
//!   same in `matmul_f16acc`, `flash_attn` and `attn_bwd` (CTA pairs 0-1 and 2-3), `wmma_gemm`,
//!   `sgemm_cp_async`, `fp8_matmul`. Groups of SM parity are the grouping that fits both (the
//!   H100's L2 is two partitions, each serving the SMs attached to it; consecutive CTAs going
//!   to alternate halves is an inference from these counters, not a placement measurement).
//! - only misses in flight: remembering hits too merges 35 more sectors in `rotary`, 64 in
//!   `layer_norm`, 50 in `rmsnorm_f32`, all away from the H100 (339 kernels within 10 % of the
//!   L2 sectors instead of 345).
//! - one SM's own reads do not merge here (its L1 answers them, or they bypass L1 on
//!   purpose): merging an SM's L1-bypassing reads with its own pending misses takes every
//!   `prefetch_forms` build away from the H100 (whose prefetches each count) — 340 instead of
//!   345.
//!
//! Where it is wrong: how much merges depends on how far apart the CTAs run, which ptxsim
//! does not time. `triton.rms_norm` merges 3 of 5 readers on the H100 (the rule: 2),
//! `int8_matmul` 56 of the rule's 128 sectors, `splitk_matmul` about 300 of 480, and
//! `persistent_matmul_fp16` none of 256 (its 4 programs' first tiles: 1,664 L2 sectors for
//! the H100's 1,920).

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

/// The L2 read misses of the current round, per line and SM.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReadCoalescer {
    /// SM groups whose pending misses are shared (0: the unit is absent).
    domains: u32,
    /// Lines each group's unit holds at once (0: no limit): a line missed after that many
    /// others of the group is forgotten.
    capacity: usize,
    /// Whether a round is open: set by [`ReadCoalescer::begin_round`], cleared at launches.
    active: bool,
    /// Per (line, group), the first of its pending misses in `entries`.
    lines: FxHashMap<(u64, u32), u32>,
    /// Per group, the lines it holds, oldest first (only with a capacity).
    held: Vec<VecDeque<u64>>,
    /// Pending misses: (SM, sectors, next entry of the same line or `u32::MAX`).
    entries: Vec<(u32, u8, u32)>,
}

const END: u32 = u32::MAX;

impl ReadCoalescer {
    pub(crate) fn new(domains: u32, capacity: u32) -> Self {
        Self {
            domains,
            capacity: capacity as usize,
            held: vec![VecDeque::new(); domains as usize],
            ..Self::default()
        }
    }

    /// A scheduling round begins: the previous round's fills have landed.
    pub(crate) fn begin_round(&mut self) {
        self.active = self.domains > 0;
        if !self.entries.is_empty() {
            self.lines.clear();
            self.entries.clear();
            for h in &mut self.held {
                h.clear();
            }
        }
    }

    /// A kernel launch: no round is open until the caller marks one.
    pub(crate) fn reset(&mut self) {
        self.begin_round();
        self.active = false;
    }

    /// The sectors of `mask` (a read of `line` by `sm`) that join another SM's pending fill.
    #[inline]
    pub(crate) fn joined(&self, sm: usize, line: u64, mask: u8) -> u8 {
        if !self.active {
            return 0;
        }
        let sm = sm as u32;
        let Some(&first) = self.lines.get(&(line, sm % self.domains)) else {
            return 0;
        };
        let mut pending = 0u8;
        let mut i = first;
        while i != END {
            let (s, sectors, next) = self.entries[i as usize];
            if s != sm {
                pending |= sectors;
            }
            i = next;
        }
        mask & pending
    }

    /// `sm`'s read of `line` missed `miss` in L2: their fill is pending until the round ends.
    #[inline]
    pub(crate) fn missed(&mut self, sm: usize, line: u64, miss: u8) {
        if !self.active || miss == 0 {
            return;
        }
        let sm = sm as u32;
        let group = sm % self.domains;
        let index = self.entries.len() as u32;
        let first = *self.lines.entry((line, group)).or_insert(index);
        if first == index && self.capacity > 0 {
            // A new line for the group's unit: past its capacity, the oldest is forgotten.
            let held = &mut self.held[group as usize];
            held.push_back(line);
            if held.len() > self.capacity {
                if let Some(old) = held.pop_front() {
                    self.lines.remove(&(old, group));
                }
            }
        }
        if first != index {
            let mut i = first;
            loop {
                let e = &mut self.entries[i as usize];
                if e.0 == sm {
                    e.1 |= miss;
                    return;
                }
                if e.2 == END {
                    e.2 = index;
                    break;
                }
                i = e.2;
            }
        }
        self.entries.push((sm, miss, END));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misses_of_the_same_group_and_round_are_joined() {
        let mut c = ReadCoalescer::new(2, 0);
        c.missed(0, 7, 0b0011);
        assert_eq!(c.joined(0, 7, 0b1111), 0, "not before a round is marked");
        c.begin_round();
        c.missed(0, 7, 0b0011);
        c.missed(0, 7, 0b0100);
        assert_eq!(c.joined(2, 7, 0b1111), 0b0111, "SM 2 shares SM 0's group");
        assert_eq!(c.joined(1, 7, 0b1111), 0, "SM 1 is in the other group");
        assert_eq!(
            c.joined(0, 7, 0b1111),
            0,
            "an SM's own misses are not joined"
        );
        assert_eq!(c.joined(2, 8, 0b1111), 0, "another line");
        c.missed(2, 7, 0b1000);
        c.missed(1, 7, 0b1000);
        assert_eq!(c.joined(4, 7, 0b1111), 0b1111);
        assert_eq!(c.joined(3, 7, 0b1111), 0b1000);
        c.begin_round();
        assert_eq!(c.joined(2, 7, 0b1111), 0, "the fills landed");
        c.missed(0, 7, 0b0001);
        c.reset();
        c.missed(0, 7, 0b0001);
        assert_eq!(c.joined(2, 7, 0b0001), 0, "a launch closes the round");
    }

    #[test]
    fn no_domains_is_no_unit() {
        let mut c = ReadCoalescer::new(0, 0);
        c.begin_round();
        c.missed(0, 7, 0b1111);
        assert_eq!(c.joined(2, 7, 0b1111), 0);
    }
}
