//! Trace recording: the coalesced accesses of every warp request, as trace accesses
//! ([`MemSystem::record_trace`]).

use super::*;

impl MemSystem {
    // ---------------------------------------------------------------- trace recording

    /// Starts (`true`) or stops (`false`) recording the warp requests performed by
    /// [`MemSystem::load`], [`MemSystem::store`] and [`MemSystem::atomic`] as trace accesses
    /// ([`MemSystem::take_recorded`]). Starting keeps what was recorded so far; stopping
    /// discards it. Single accesses of a tags-only system ([`MemSystem::access`], trace
    /// replay) are not recorded; the same call on a system that holds data is a one-lane
    /// request and is.
    pub fn record_trace(&mut self, on: bool) {
        match (on, self.recorded.is_some()) {
            (true, false) => self.recorded = Some(Vec::new()),
            (false, true) => self.recorded = None,
            _ => {}
        }
    }

    /// Whether requests are being recorded.
    pub fn is_recording(&self) -> bool {
        self.recorded.is_some()
    }

    /// The accesses recorded since recording started or since the last call (recording goes
    /// on). Each warp request becomes, for each line it touches in the order memsys performs
    /// them (order of first appearance over the lanes), one access per contiguous run of
    /// touched sectors: the run's first byte, `sectors * sector_bytes` bytes (runs longer than
    /// [`MAX_LANE_BYTES`] are split), with the request's SM, kind, hints, policy value and
    /// instruction id. Only requests that passed their checks are recorded.
    pub fn take_recorded(&mut self) -> Vec<TraceAccess> {
        match &mut self.recorded {
            Some(v) => std::mem::take(v),
            None => Vec::new(),
        }
    }

    /// Appends the accesses of one coalesced request to the recording.
    #[cold]
    #[inline(never)]
    pub(super) fn record_groups(&mut self, req: &Request, groups: &[Group]) {
        if let Some(out) = self.recorded.as_mut() {
            record_groups_into(out, self.geo, req, groups);
        }
    }
}

/// Appends the trace accesses of one coalesced request to `out` (see
/// [`MemSystem::take_recorded`] for the form).
pub(super) fn record_groups_into(
    out: &mut Vec<TraceAccess>,
    geo: Geometry,
    req: &Request,
    groups: &[Group],
) {
    {
        let sb = geo.sector_bytes;
        let max = u64::from(MAX_LANE_BYTES);
        // The longest piece of a run: whole sectors up to MAX_LANE_BYTES.
        let chunk = if sb <= max { max / sb * sb } else { max };
        // An atomic's passes (`atomic_passes`) are recorded as that many accesses.
        for g in groups
            .iter()
            .flat_map(|g| std::iter::repeat_n(g, usize::from(g.passes)))
        {
            let line_addr = g.line << geo.line_shift;
            let mut m = u32::from(g.mask);
            while m != 0 {
                let first = m.trailing_zeros();
                let run = (!(m >> first)).trailing_zeros();
                m &= !(((1u32 << run) - 1) << first);
                let mut addr = line_addr + u64::from(first) * sb;
                let mut left = u64::from(run) * sb;
                while left > 0 {
                    let bytes = left.min(chunk);
                    out.push(TraceAccess {
                        request: *req,
                        addr,
                        bytes: bytes as u32,
                    });
                    addr += bytes;
                    left -= bytes;
                }
            }
        }
    }
}
