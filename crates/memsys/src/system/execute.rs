//! The checked request engine: [`MemSystem::execute`] coalesces a warp request into
//! line groups and performs each along its route; the attribution (SM and instruction
//! counters) and tags-only entry points ([`MemSystem::perform_routed`]) live here too.

use super::*;

/// The last request shape an instruction id was seen with, and its route: the first place
/// [`MemSystem::access`] looks (an instruction, or a trace's op spelling, nearly always keeps
/// its shape).
#[derive(Debug, Clone, Copy)]
pub(super) struct Memo {
    pub(super) valid: bool,
    pub(super) req: Request,
    pub(super) route: Route,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Group {
    pub(super) line: u64,
    pub(super) mask: u8,
    pub(super) l1_hit: u8,
    /// How many times L2 performs an atomic on the line's sectors ([`atomic_passes`]); 1
    /// for every other access.
    pub(super) passes: u8,
}

/// The passes L2 makes over one line of a warp's atomic: lanes that target the same address
/// are serialized, one operation per address per pass, so the passes are the most active
/// lanes on one address, and Nsight counts the sectors of every pass. Measured on an H100
/// (`tests/hw/h100/counters/corpus_counters.csv`, `lts__t_sectors_srcunit_tex_op_red`):
/// `atomics64` (16 warps, eight 64-bit `RED`s per lane on one address each) 4,096 red sectors =
/// 16 x 8 x 32; `atomic_add_fp` (31 full warps and one of 8 lanes: `RED.INC` on one address,
/// `RED.ADD.F32` on 8 addresses of one sector, `RED.ADD.F64` on 4, five leader-only `RED`s
/// that ptxas aggregated) 1,535 = 31 x (32 + 4 + 8 + 5) + (8 + 1 + 2 + 5). The passes after
/// the first find the line in L2 (lookup hits: 1,534 of the 1,535).
pub(super) fn atomic_passes(lanes: &[LaneAccess], line: u64, line_shift: u32) -> u8 {
    let mut addrs = [0u64; MAX_LANES];
    let mut n = 0;
    for l in lanes {
        if l.addr >> line_shift == line {
            addrs[n] = l.addr;
            n += 1;
        }
    }
    let addrs = &mut addrs[..n];
    addrs.sort_unstable();
    let mut most = 1;
    let mut run = 0;
    for i in 0..n {
        run = if i > 0 && addrs[i] == addrs[i - 1] {
            run + 1
        } else {
            1
        };
        most = most.max(run);
    }
    most as u8
}

impl MemSystem {
    /// One tags-only access, checked and routed, split into its (at most two) lines;
    /// `tally` collects what it reports back (an [`Outcome`], or nothing).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn perform_routed<T: Tally>(
        &mut self,
        at: Attr,
        route: &Route,
        addr: u64,
        end: u64,
        hint: SetHint,
        tally: T,
    ) -> T {
        self.ensure_l1(at.sm);
        self.stats.requests += 1;
        let mut w = self.work(at, tally, hint);
        w.perform(route, addr, end);
        let tally = w.tally;
        self.sample_timeline();
        tally
    }

    /// The work of one request by `sm` for instruction `instr` on this memory system, its
    /// events counted for both (the interpreter's requests and the replay of ports' L2 logs).
    #[inline(always)]
    pub(super) fn work<T: Tally>(
        &mut self,
        at: Attr,
        tally: T,
        l2_hint: SetHint,
    ) -> Work<'_, T, SmAndInstr<'_>> {
        let (sm, instr) = (at.sm, at.instr);
        Work {
            l1: &mut self.l1[sm],
            l2: &mut self.l2,
            combine: &mut self.combine,
            reads: &mut self.reads,
            sm,
            warp: at.warp,
            counters: SmAndInstr {
                sm: &mut self.stats.per_sm[sm],
                instr: &mut self.stats.per_instr[instr],
            },
            rng: &mut self.rng,
            ranges: &self.range_policies,
            window: self.window,
            mem: &self.mem,
            geo: self.geo,
            tally,
            l2_hint,
            deferred: None,
            overlay: None,
        }
    }

    /// [`MemSystem::perform_routed`] (no tally) with the request's counters in `cell` (trace
    /// replay: one counter set per request shape and SM, added to the SM's and the
    /// instruction's counters when the replay ends).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn perform_in_cell(
        &mut self,
        at: Attr,
        route: &Route,
        addr: u64,
        end: u64,
        hint: SetHint,
        cell: &mut Counters,
    ) {
        self.ensure_l1(at.sm);
        self.stats.requests += 1;
        let mut w = Work {
            l1: &mut self.l1[at.sm],
            l2: &mut self.l2,
            combine: &mut self.combine,
            reads: &mut self.reads,
            sm: at.sm,
            warp: at.warp,
            counters: cell,
            rng: &mut self.rng,
            ranges: &self.range_policies,
            window: self.window,
            mem: &self.mem,
            geo: self.geo,
            tally: (),
            l2_hint: hint,
            deferred: None,
            overlay: None,
        };
        w.perform(route, addr, end);
        self.sample_timeline();
    }

    /// Checks the SM and makes room for the instruction's counters.
    #[inline(always)]
    pub(super) fn attr(&mut self, sm: u32, instr: u32) -> Result<Attr, MemError> {
        if sm >= self.cfg.sm_count {
            return Err(MemError::NoSuchSm {
                sm,
                sm_count: self.cfg.sm_count,
            });
        }
        self.stats.ensure_instr(instr as usize);
        Ok(Attr {
            sm: sm as usize,
            instr: instr as usize,
            warp: 0,
        })
    }

    #[cold]
    pub(super) fn grow_memo(&mut self, instr: usize) {
        let empty = Memo {
            valid: false,
            req: Request::default(),
            route: self.routes[0].route,
        };
        self.memo.resize(instr + 1, empty);
    }

    #[inline(always)]
    pub(super) fn ensure_l1(&mut self, sm: usize) {
        if self.geo.l1_enabled && !self.l1_ready[sm] {
            self.l1[sm] = SectorCache::new(&self.cfg.l1, self.cfg.l1.ways, self.keep_data);
            self.l1_ready[sm] = true;
            self.any_l1_ready = true;
        }
    }

    pub(super) fn invalidate_l1_at(&mut self, at: Attr) {
        if !self.l1_ready[at.sm] {
            return;
        }
        let n = invalidate_whole(&mut self.l1[at.sm]);
        let c = &mut self.stats;
        c.per_sm[at.sm].l1.invalidations += n;
        c.per_instr[at.instr].l1.invalidations += n;
    }

    // ---------------------------------------------------------------- execution

    #[inline(never)]
    pub(super) fn execute(
        &mut self,
        req: &Request,
        lanes: &[LaneAccess],
        mut data: Data<'_>,
    ) -> Result<Outcome, MemError> {
        let at = Attr {
            warp: req.warp,
            ..self.attr(req.sm.0, req.instr.0)?
        };
        if lanes.len() > MAX_LANES {
            return Err(MemError::TooManyLanes {
                lanes: lanes.len(),
                max: MAX_LANES,
            });
        }
        self.prefetch_request_sets(at.sm, lanes);
        // The allocation holding each lane's bytes (when data is kept), for the data moves.
        let mut alloc_of = [0u32; MAX_LANES];
        let total = self.check_lanes(req, lanes, &mut alloc_of)?;
        check_buffer(&data, total)?;
        let route = self.route(req)?;
        self.ensure_l1(at.sm);

        let mut groups = std::mem::take(&mut self.groups);
        coalesce(lanes, self.geo, route.per_lane, &mut groups);
        if route.op == Op::Atomic && !self.aggregated {
            for g in groups.iter_mut() {
                g.passes = atomic_passes(lanes, g.line, self.geo.line_shift);
            }
        }
        if self.recorded.is_some() {
            self.record_groups(req, &groups);
        }
        let capture = self.keep_data && matches!(data, Data::Out(_) | Data::Unread);
        let input = match &data {
            Data::In(b) => Some(*b),
            _ => None,
        };
        let t = self.perform_groups(at, &route, lanes, &mut groups, capture, input);
        let mut out = Outcome {
            latency_cycles: self.latency(t.level),
            ..t.out
        };
        if self.keep_data {
            self.move_data(at, lanes, &alloc_of, &groups, &mut data, &mut out);
        }
        self.groups = groups;
        self.sample_timeline();
        Ok(out)
    }

    /// The first and last lanes' lines are usually every line of the request: bring their
    /// L1 and L2 sets into the host's caches while the lanes are checked and coalesced
    /// (a large L2's sets are far apart in host memory). A hint: nothing observable.
    #[inline(always)]
    fn prefetch_request_sets(&self, sm: usize, lanes: &[LaneAccess]) {
        if let (Some(first), Some(last)) = (lanes.first(), lanes.last()) {
            for addr in [first.addr, last.addr] {
                let line = addr >> self.geo.line_shift;
                self.l2.prefetch_line(line);
                if self.l1_ready[sm] {
                    let l1 = &self.l1[sm];
                    l1.prefetch_set(l1.set_of(line));
                }
            }
        }
    }

    /// Checks every lane's size and address (and, when data is kept, that its bytes lie in
    /// an allocation, noted in `alloc_of`); returns the request's total bytes.
    #[inline(always)]
    fn check_lanes(
        &self,
        req: &Request,
        lanes: &[LaneAccess],
        alloc_of: &mut [u32; MAX_LANES],
    ) -> Result<usize, MemError> {
        // A local access carries no bytes: its addresses are the caller's, in no allocation.
        let mapped = self.keep_data && req.space != Space::Local;
        check_lanes_in(&self.mem, mapped, req, lanes, alloc_of)
    }
}

/// [`MemSystem::check_lanes`] against an image (`keep_data`: the lanes must lie in its
/// allocations, noted in `alloc_of`).
#[inline(always)]
pub(super) fn check_lanes_in(
    mem: &GlobalMemory,
    keep_data: bool,
    req: &Request,
    lanes: &[LaneAccess],
    alloc_of: &mut [u32; MAX_LANES],
) -> Result<usize, MemError> {
    let mut total = 0usize;
    let mut near = 0usize;
    for (i, l) in lanes.iter().enumerate() {
        if l.bytes == 0 || l.bytes > MAX_LANE_BYTES {
            return Err(MemError::BadSize {
                addr: l.addr,
                bytes: l.bytes,
            });
        }
        if l.addr.checked_add(u64::from(l.bytes)).is_none() {
            return Err(MemError::Unmapped {
                addr: l.addr,
                bytes: l.bytes,
            });
        }
        if keep_data {
            // A prefetch asks for the whole line of its address: only where the line
            // starts must be mapped (allocations are aligned and padded to 256 B, so the
            // rest of the line is inside the allocation's storage). On an H100 the
            // prefetches of a 400-byte buffer's last, partly used line are counted like
            // the others (`ld_forms.prefetch_forms`: 112 = 4 warps x 7 forms x 4 sectors).
            let checked = if req.kind == AccessKind::Prefetch {
                1
            } else {
                u64::from(l.bytes)
            };
            match mem.find_near(near, l.addr, checked) {
                Some(a) => {
                    near = a;
                    alloc_of[i] = a as u32;
                }
                None => {
                    return Err(MemError::Unmapped {
                        addr: l.addr,
                        bytes: l.bytes,
                    })
                }
            }
        }
        total += l.bytes as usize;
    }
    Ok(total)
}

impl MemSystem {
    /// Performs each line group along `route` on the issuing SM's L1, the L2 and the SM's
    /// and instruction's counters; when `capture`, keeps the L1 bytes of read hits in
    /// `hit_data` (a group's slot) for the data move.
    #[inline(always)]
    fn perform_groups(
        &mut self,
        at: Attr,
        route: &Route,
        lanes: &[LaneAccess],
        groups: &mut [Group],
        capture: bool,
        input: Option<&[u8]>,
    ) -> Track {
        let line_bytes = 1usize << self.geo.line_shift;
        if capture {
            self.hit_data.resize(groups.len() * line_bytes, 0);
        }
        self.stats.requests += 1;
        let mut w = Work {
            l1: &mut self.l1[at.sm],
            l2: &mut self.l2,
            combine: &mut self.combine,
            reads: &mut self.reads,
            sm: at.sm,
            warp: at.warp,
            counters: SmAndInstr {
                sm: &mut self.stats.per_sm[at.sm],
                instr: &mut self.stats.per_instr[at.instr],
            },
            rng: &mut self.rng,
            ranges: &self.range_policies,
            window: self.window,
            mem: &self.mem,
            geo: self.geo,
            tally: Track::default(),
            l2_hint: SetHint::NONE,
            deferred: None,
            overlay: None,
        };
        let hit_data = if capture {
            Some(&mut self.hit_data[..])
        } else {
            None
        };
        perform_groups_on(&mut w, route, lanes, groups, hit_data, input);
        w.tally
    }

    /// Moves the request's data (memory systems that keep data): a load's bytes into its
    /// buffer (noting stale L1 lanes in `out` and the counters), a store's into the image,
    /// an atomic's operation on each lane's bytes.
    #[inline(always)]
    fn move_data(
        &mut self,
        at: Attr,
        lanes: &[LaneAccess],
        alloc_of: &[u32; MAX_LANES],
        groups: &[Group],
        data: &mut Data<'_>,
        out: &mut Outcome,
    ) {
        match data {
            Data::Unread if groups.iter().all(|g| g.l1_hit == 0) => {}
            Data::Out(_) | Data::Unread => {
                let mut scratch = Vec::new();
                let total = lanes.iter().map(|l| l.bytes as usize).sum();
                let buf = data.read_buffer(total, &mut scratch).expect("a read");
                let stale = self.read_data(lanes, alloc_of, groups, buf);
                if stale != 0 {
                    out.stale_lanes = stale;
                    let n = u64::from(stale.count_ones());
                    self.stats.per_sm[at.sm].stale_reads += n;
                    self.stats.per_instr[at.instr].stale_reads += n;
                }
            }
            Data::In(buf) => {
                let mut off = 0usize;
                for (l, &a) in lanes.iter().zip(alloc_of) {
                    let n = l.bytes as usize;
                    copy_small(
                        self.image_mut().bytes_in_mut(a as usize, l.addr, n),
                        &buf[off..off + n],
                    );
                    off += n;
                }
            }
            Data::Atomic(f) => {
                for (i, (l, &a)) in lanes.iter().zip(alloc_of).enumerate() {
                    f(
                        i,
                        self.image_mut()
                            .bytes_in_mut(a as usize, l.addr, l.bytes as usize),
                    );
                }
            }
            Data::None => {}
        }
    }
}

/// Checks that a load's or store's buffer holds exactly the lanes' bytes.
#[inline(always)]
pub(super) fn check_buffer(data: &Data<'_>, total: usize) -> Result<(), MemError> {
    let got = match data {
        Data::Out(b) => b.len(),
        Data::In(b) => b.len(),
        _ => return Ok(()),
    };
    if got != total {
        return Err(MemError::BufferSize { got, need: total });
    }
    Ok(())
}

/// Coalesces the lanes into (line, sector mask) groups, in the order lines are first
/// touched. An `.mmio` request ([`Route::per_lane`]) keeps each lane's sectors of each line
/// a group of its own, in lane order, never merged with another lane's (PTX ISA 8.4.1: mmio
/// writes "are never combined", reads are not "combined"), so every lane's access reaches
/// L1's tag stage and the memory side separately.
#[inline(always)]
pub(super) fn coalesce(
    lanes: &[LaneAccess],
    geo: Geometry,
    per_lane: bool,
    groups: &mut Vec<Group>,
) {
    groups.clear();
    for l in lanes {
        // The groups this lane may join: every group, or (per lane) only its own.
        let joinable = if per_lane { groups.len() } else { 0 };
        let first = l.addr >> geo.sector_shift;
        let last = (l.addr + u64::from(l.bytes) - 1) >> geo.sector_shift;
        for s in first..=last {
            let line = s >> geo.sectors_per_line_shift;
            let bit = 1u8 << (s & ((1 << geo.sectors_per_line_shift) - 1));
            match groups[joinable..].iter_mut().rev().find(|g| g.line == line) {
                Some(g) => g.mask |= bit,
                None => groups.push(Group {
                    line,
                    mask: bit,
                    l1_hit: 0,
                    passes: 1,
                }),
            }
        }
    }
}

/// Performs each line group of a request along `route` with `w` (the issuing SM's L1, the
/// L2 or an SM port's log, the counters); keeps the L1 bytes of read hits in `hit_data`
/// (a line's worth per group) when given, for the data move.
#[inline(always)]
pub(super) fn perform_groups_on<T: Tally, S: Sink>(
    w: &mut Work<'_, T, S>,
    route: &Route,
    lanes: &[LaneAccess],
    groups: &mut [Group],
    mut hit_data: Option<&mut [u8]>,
    input: Option<&[u8]>,
) {
    let line_bytes = 1usize << w.geo.line_shift;
    if route.touches_l1 {
        w.bump(|c| l1_of(c, route).requests += 1);
    }
    let mut reached_l2 = false;
    for (gi, g) in groups.iter_mut().enumerate() {
        match route.op {
            Op::Read => {
                let (hit, l2) = w.read_group(route, g.line, g.mask);
                g.l1_hit = hit;
                reached_l2 |= l2;
                if let (Some(hit_data), true) = (hit_data.as_deref_mut(), hit != 0) {
                    if let (_, Some(s)) = w.l1.lookup(g.line) {
                        hit_data[gi * line_bytes..(gi + 1) * line_bytes]
                            .copy_from_slice(w.l1.line_data(s));
                    }
                }
            }
            Op::Write { through } => {
                reached_l2 |= w.write_group(route, g.line, g.mask, through, lanes, input);
            }
            Op::Atomic => {
                for _ in 0..g.passes {
                    reached_l2 |= w.atomic_group(route, g.line, g.mask);
                }
            }
        }
    }
    w.finish(route, reached_l2);
}
