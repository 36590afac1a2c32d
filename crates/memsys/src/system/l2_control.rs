//! The L2's control surface beyond per-access hints: `discard.global.L2`,
//! `applypriority.global.L2::evict_normal`, the persisting reset
//! (`cudaCtxResetPersistingL2Cache`) and the access policy window
//! (`cudaStreamAttrValue::accessPolicyWindow`). Every rule with its source; what the sources
//! leave open is said where the model decides it (and in the crate README, "L2 control").
//!
//! - **discard** (PTX ISA, `discard`): "Semantically, it behaves like a weak write of an
//!   *unstable indeterminate value*: reads of the same memory location will return an unstable
//!   indeterminate value until the location is written again." and "the cache line is
//!   invalidated in the specified cache level without writing back the data to the next level".
//!   The model drops the line from **every** partition (its home and the near copies,
//!   `partitions.rs`) without a write-back, counts the line and the dirty sectors it would
//!   have written back ([`crate::LevelCounters::discards`],
//!   [`crate::LevelCounters::discard_writebacks_saved`]), and gives the discarded dirty
//!   sectors back the bytes memory held before the kernel's writes reached them (the bytes of
//!   [`MemSystem::snapshot_for_discard`], taken when a kernel that discards starts; with the
//!   default flush between kernels, DRAM's content then). The value is undefined by the ISA:
//!   this is one legal outcome, the one a real GPU shows when the line was not written back.
//! - **applypriority** (PTX ISA, `applypriority`): "applies the cache eviction priority
//!   specified by the `.level::eviction_priority` qualifier to the address range `[a..a+size)`
//!   in the specified cache level"; only `.L2::evict_normal` exists. Every copy of the line
//!   that is resident becomes normal, keeping its recency; an evict-last line so leaves the
//!   persisting set-aside ([`crate::LevelCounters::priority_applied`],
//!   [`crate::LevelCounters::priority_demoted`]). An absent line is not fetched.
//! - **persisting reset** (CUDA Programming Guide, "Reset L2 Access to Normal": "Reset all
//!   persisting L2 cache lines to normal using `cudaCtxResetPersistingL2Cache()`"): every
//!   evict-last line of every partition becomes normal, keeping its recency.
//! - **access policy window** ([`AccessPolicyWindow`]): accesses inside
//!   `[base_ptr, base_ptr + num_bytes)` get `hitProp` on a fraction `hitRatio` of the window's
//!   lines and `missProp` on the others. The runtime reference: "hitRatio specifies percentage
//!   of lines assigned hitProp, rest are assigned missProp" and "Partition into many segments
//!   and assign segments such that sum of hit segments / window == approx. ratio"; the
//!   Programming Guide's example: "the hardware will select, at random, 16KB of the 32KB window
//!   to be designated as persisting". The model selects per 128-byte line with the draw of
//!   `createpolicy.fractional` (the seeded generator's `chance_in_16`, [`crate::rng`]) keyed by
//!   the line number instead of drawn per access, so the same lines are the hit lines for
//!   every access, seed and thread count (the documented "segments" are fixed per window). The
//!   ratio is quantized to sixteenths as the fraction policy the window is the host form of
//!   (`REFERENCE.md`: "The same value format is what `cudaAccessPolicyWindow` (hitRatio,
//!   hitProp, missProp) and `cuda::access_property` describe"): CCCL's host encoder's
//!   `floor((ratio - FLT_EPSILON) * 16)` code, `code + 1` sixteenths, 0 for a ratio of 0.

use super::*;
use crate::rng::SplitMix64;

/// `cudaAccessProperty`: the property an access policy window gives an access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AccessProperty {
    /// `cudaAccessPropertyNormal`: the access keeps the priority it would have had (CCCL's
    /// `access_property::normal` encodes primary `evict_unchanged`).
    Normal,
    /// `cudaAccessPropertyStreaming`: evict-first.
    Streaming,
    /// `cudaAccessPropertyPersisting`: evict-last, held in the persisting set-aside (capped
    /// by it as every evict-last request is, [`GpuConfig::evict_last_ways`]).
    Persisting,
}

impl AccessProperty {
    /// The property's name in flags and files: `normal`, `streaming`, `persisting`.
    pub fn name(self) -> &'static str {
        match self {
            AccessProperty::Normal => "normal",
            AccessProperty::Streaming => "streaming",
            AccessProperty::Persisting => "persisting",
        }
    }

    /// Parses a property name (also the CUDA enumerator names).
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "normal" | "cudaaccesspropertynormal" => AccessProperty::Normal,
            "streaming" | "cudaaccesspropertystreaming" => AccessProperty::Streaming,
            "persisting" | "cudaaccesspropertypersisting" => AccessProperty::Persisting,
            _ => return None,
        })
    }

    fn hint(self) -> Hint {
        match self {
            AccessProperty::Normal => Hint::Unchanged,
            AccessProperty::Streaming => Hint::Set(EvictionClass::EvictFirst),
            AccessProperty::Persisting => Hint::Set(EvictionClass::EvictLast),
        }
    }
}

/// `cudaAccessPolicyWindow`: a launch attribute (the stream's or the kernel node's).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AccessPolicyWindow {
    /// `base_ptr`: a device address.
    pub base: u64,
    /// `num_bytes`.
    pub bytes: u64,
    /// `hitRatio`, in [0, 1].
    pub hit_ratio: f32,
    /// `hitProp`.
    pub hit_prop: AccessProperty,
    /// `missProp`: normal or streaming.
    pub miss_prop: AccessProperty,
}

impl AccessPolicyWindow {
    /// The checks `cudaStreamSetAttribute` / `cudaLaunchKernelEx` make: `num_bytes` above 0 and
    /// at most `cudaDevAttrMaxAccessPolicyWindowSize`
    /// ([`GpuConfig::max_access_policy_window_bytes`]); `hitRatio` in [0, 1] (the Programming
    /// Guide's "Hint for cache hit ratio", a fraction; the runtime returns
    /// `cudaErrorInvalidValue` outside it); `missProp` "Must be either NORMAL or STREAMING"
    /// (runtime reference, `cudaAccessPolicyWindow::missProp`).
    pub fn validate(&self, cfg: &GpuConfig) -> Result<(), MemError> {
        let max = cfg.max_access_policy_window_bytes;
        if self.bytes == 0 {
            return Err(MemError::Window("num_bytes is 0".into()));
        }
        if self.bytes > max {
            return Err(MemError::Window(format!(
                "num_bytes {} exceeds the maximum window of GPU '{}': {max} B \
                 (cudaDevAttrMaxAccessPolicyWindowSize, max_access_policy_window_bytes)",
                self.bytes, cfg.name
            )));
        }
        if !(0.0..=1.0).contains(&self.hit_ratio) {
            return Err(MemError::Window(format!(
                "hit ratio {} is outside [0, 1]",
                self.hit_ratio
            )));
        }
        if self.miss_prop == AccessProperty::Persisting {
            return Err(MemError::Window(
                "miss property persisting is refused by the CUDA runtime: missProp must be \
                 normal or streaming"
                    .into(),
            ));
        }
        Ok(())
    }

    /// The hit ratio as sixteenths (see the module overview).
    pub fn sixteenths(&self) -> u32 {
        if self.hit_ratio <= 0.0 {
            return 0;
        }
        ((self.hit_ratio - f32::EPSILON) * 16.0)
            .floor()
            .clamp(0.0, 15.0) as u32
            + 1
    }

    /// Whether `line` (a line number of `line_shift`-byte lines) is one of the window's hit
    /// lines: the keyed fraction draw (module overview).
    pub fn is_hit_line(&self, line: u64) -> bool {
        SplitMix64::keyed_chance_in_16(line, self.sixteenths())
    }
}

/// The window as the L2 applies it ([`Work::l2_hint_for`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct WindowRule {
    start: u64,
    end: u64,
    line_shift: u32,
    fraction: Fraction,
}

impl WindowRule {
    /// The window's hint for an access at `addr`, when the window covers it: `(hint, hit)`.
    #[inline]
    pub(super) fn hint(&self, addr: u64) -> Option<(Hint, bool)> {
        if addr < self.start || addr >= self.end {
            return None;
        }
        let f = self.fraction;
        let hit = f.sixteenths == 16
            || SplitMix64::keyed_chance_in_16(addr >> self.line_shift, f.sixteenths);
        Some(if hit {
            (f.primary, true)
        } else {
            (f.secondary, false)
        })
    }
}

/// What one `discard` did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DiscardOutcome {
    /// The line was resident (in any partition).
    pub resident: bool,
    /// Dirty sectors dropped without a write-back.
    pub dirty_sectors: u8,
}

impl MemSystem {
    /// Sets the access policy window later accesses see (`None`: no window), after the
    /// runtime's checks ([`AccessPolicyWindow::validate`]).
    pub fn set_access_policy_window(
        &mut self,
        window: Option<AccessPolicyWindow>,
    ) -> Result<(), MemError> {
        let Some(w) = window else {
            self.window = None;
            return Ok(());
        };
        w.validate(&self.cfg)?;
        self.window = Some(WindowRule {
            start: w.base,
            end: w.base.saturating_add(w.bytes),
            line_shift: self.geo.line_shift,
            fraction: Fraction {
                sixteenths: w.sixteenths(),
                primary: w.hit_prop.hint(),
                secondary: w.miss_prop.hint(),
            },
        });
        Ok(())
    }

    /// Keeps a copy of memory as it is now: what `discard` gives discarded dirty sectors back
    /// (module overview). Called when a kernel that discards starts.
    pub fn snapshot_for_discard(&mut self) {
        if self.keep_data {
            self.discard_snapshot = Some(self.mem.snapshot());
        }
    }

    fn line_of_control(&self, op: &'static str, addr: u64) -> Result<u64, MemError> {
        let line_bytes = 1u64 << self.geo.line_shift;
        if addr & (line_bytes - 1) != 0 {
            return Err(MemError::L2Control {
                op,
                addr,
                why: "the address is not aligned to the 128-byte line",
            });
        }
        if self.keep_data && self.mem.find(addr, line_bytes).is_none() {
            return Err(MemError::L2Control {
                op,
                addr,
                why: "the line is outside every global allocation",
            });
        }
        Ok(addr >> self.geo.line_shift)
    }

    /// `discard.global.L2 [addr], 128` by SM `sm`, instruction `instr` (module overview).
    pub fn discard_l2(
        &mut self,
        sm: u32,
        instr: u32,
        addr: u64,
    ) -> Result<DiscardOutcome, MemError> {
        let line = self.line_of_control("discard.global.L2", addr)?;
        let at = self.attr(sm, instr)?;
        let full = self.geo.full_mask;
        let (mut resident, mut dirty) = (false, 0u8);
        for p in self.l2.parts_mut() {
            if let (_, Some(s)) = p.lookup(line) {
                resident = true;
                let (_, d) = p.drop_sectors(s, full);
                dirty |= d;
            }
        }
        let nd = pop(dirty);
        for c in [
            &mut self.stats.per_sm[at.sm],
            &mut self.stats.per_instr[at.instr],
        ] {
            c.l2.discards += u64::from(resident);
            c.l2.discard_writebacks_saved += nd;
        }
        if dirty != 0 {
            self.restore_discarded(addr, dirty);
        }
        Ok(DiscardOutcome {
            resident,
            dirty_sectors: dirty,
        })
    }

    /// Gives the `dirty` sectors of the line at `addr` the bytes of the discard snapshot.
    fn restore_discarded(&mut self, addr: u64, dirty: u8) {
        let Some(snap) = self.discard_snapshot.take() else {
            return;
        };
        let sb = self.geo.sector_bytes;
        let i = snap.partition_point(|(base, _)| *base <= addr);
        if let Some((base, data)) = i.checked_sub(1).map(|i| &snap[i]) {
            for s in 0..8u64 {
                if dirty & (1 << s) == 0 {
                    continue;
                }
                let a = addr + s * sb;
                let off = (a - base) as usize;
                if let (Some(src), Some(dst)) = (
                    data.get(off..off + sb as usize),
                    self.image_mut().bytes_mut(a, sb as usize),
                ) {
                    dst.copy_from_slice(src);
                }
            }
        }
        self.discard_snapshot = Some(snap);
    }

    /// `applypriority.global.L2::evict_normal [addr], 128` (module overview). Returns whether
    /// the line was resident.
    pub fn apply_priority_normal_l2(
        &mut self,
        sm: u32,
        instr: u32,
        addr: u64,
    ) -> Result<bool, MemError> {
        let line = self.line_of_control("applypriority.global.L2::evict_normal", addr)?;
        let at = self.attr(sm, instr)?;
        let (mut resident, mut demoted) = (false, false);
        for p in self.l2.parts_mut() {
            if let (_, Some(s)) = p.lookup(line) {
                resident = true;
                demoted |= p.class(s) == EvictionClass::EvictLast;
                p.set_class(s, EvictionClass::Normal);
            }
        }
        for c in [
            &mut self.stats.per_sm[at.sm],
            &mut self.stats.per_instr[at.instr],
        ] {
            c.l2.priority_applied += u64::from(resident);
            c.l2.priority_demoted += u64::from(demoted);
        }
        Ok(resident)
    }

    /// `cudaCtxResetPersistingL2Cache()`: every evict-last line becomes normal (module
    /// overview). Returns how many lines (copies in all partitions) were reset; counted in
    /// the host counters.
    pub fn reset_persisting_l2(&mut self) -> u64 {
        let mut n = 0;
        for p in self.l2.parts_mut() {
            for s in p.resident_slots() {
                if p.class(s) == EvictionClass::EvictLast {
                    p.set_class(s, EvictionClass::Normal);
                    n += 1;
                }
            }
        }
        self.stats.host.l2.persisting_reset_lines += n;
        n
    }
}

impl<T: Tally, S: Sink> Work<'_, T, S> {
    /// The window's hint for an access whose own hints leave the L2 priority open (module
    /// overview; the caller checks that), counted.
    #[inline(never)]
    pub(super) fn window_hint(&mut self, w: WindowRule, route: &Route, addr: u64) -> Hint {
        match w.hint(addr) {
            Some((hint, hit)) => {
                self.bump(|c| {
                    c.l2.window_hit_prop += u64::from(hit);
                    c.l2.window_miss_prop += u64::from(!hit);
                });
                hint
            }
            None => route.l2_hint,
        }
    }
}
