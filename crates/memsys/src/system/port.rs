//! SM ports: the SM side of the memory system, lent to a host thread for an SM-parallel
//! phase, and settled back in one fixed order.
//!
//! An interpreter that runs SMs on several host threads ([`MemSystem::lend`]) gives each
//! thread an [`SmPort`] holding the L1s and write-combining windows of the SMs it runs. A
//! port serves weak loads and stores ([`SmPort::load`], [`SmPort::store`]; without the
//! cache model, [`SmPort::read`] and [`SmPort::write`]) entirely from what belongs to its
//! SMs:
//! - the SM's own L1 (the model's L1s are private and not coherent with each other);
//! - a view of global memory: the image as it was when the phase began, plus the SM's own
//!   stores of the phase ([`Overlay`]). Another SM's stores of the same phase become visible
//!   when the phase is settled: a load racing with a store of another SM, without
//!   synchronization between them, may return either value under the PTX memory model
//!   (weak accesses are not ordered across threads without a fence or a strong access);
//! - the L2's part of every request is logged ([`L2Op`]) instead of performed.
//!
//! The L2 holds no data (the image is the point of coherence): its tags, priorities, random
//! draws and DRAM traffic only count. So nothing a port returns (bytes, L1 hits, stale
//! lanes) depends on the L2, and [`MemSystem::settle`] can apply the phase's stores to the
//! image and replay the logged L2 work afterwards, in the order the caller gives each turn
//! (its position in the round's turn order, then program order): the image, the L2 state,
//! its random draws (fraction policies), the request count (timeline samples), every
//! counter and the recorded trace ([`MemSystem::record_trace`]) come out as if one machine
//! had run the turns in that order. Which thread ran
//! which SM changes nothing. `settle` reads and writes only the memory system and the ports
//! it is given, so a caller may run it on any thread, and at any time before its next use of
//! the memory system (the interpreter overlaps it with work that does not touch memory). An [`Outcome`] from a port has the L1 fields and stale lanes;
//! its L2 and DRAM fields are known only after the replay and stay zero.

use super::*;

/// The L2's part of one request on an SM port, replayed by [`MemSystem::settle`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct L2Op {
    pub(super) line: u64,
    /// The route's index in the port's route table; for [`L2OpKind::End`], the
    /// instruction id.
    pub(super) word: u32,
    pub(super) mask: u8,
    pub(super) kind: L2OpKind,
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum L2OpKind {
    /// [`Work::l2_read`].
    Read,
    /// [`Work::l2_write`], after write combining.
    Write { through: bool },
    /// The end of a request by SM `sm` (for the instruction in `word`): counted, and where a
    /// timeline sample may be taken. The L2 operations since the previous end are its own.
    End { sm: u16 },
}

/// Where a [`Work`] on an SM port logs its L2 part: the log, and its route's index.
pub(crate) struct Deferred<'a> {
    pub(super) log: &'a mut Vec<L2Op>,
    pub(super) route: u32,
}

/// An SM's stores of the current phase (the image does not hold them yet): the port's
/// store records that are the SM's, in order, and a filter of the lines they touch, so a
/// load of lines the SM did not store (nearly every load) costs one bit test per line.
#[derive(Debug, Default)]
pub(crate) struct Overlay {
    filter: [u64; FILTER_WORDS],
    records: Vec<u32>,
}

/// 2,048 filter bits per SM.
const FILTER_WORDS: usize = 32;

/// The filter bit of a line.
#[inline(always)]
fn filter_bit(line: u64) -> (usize, u64) {
    let h = (line.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 53) as usize;
    (h / 64, 1u64 << (h % 64))
}

/// An SM's overlay with the port's store records and data it refers to.
#[derive(Clone, Copy)]
pub(crate) struct OverlayView<'a> {
    overlay: &'a Overlay,
    stores: &'a [StoreRec],
    data: &'a [u8],
}

impl Overlay {
    /// Notes store record `index`, `len` bytes at `addr`.
    fn note(&mut self, index: usize, addr: u64, len: u32, line_shift: u32) {
        self.mark(addr, len, line_shift);
        self.records.push(index as u32);
    }

    /// Sets the filter bits of the lines of `len` bytes at `addr`.
    fn mark(&mut self, addr: u64, len: u32, line_shift: u32) {
        for line in addr >> line_shift..=(addr + u64::from(len) - 1) >> line_shift {
            let (w, b) = filter_bit(line);
            self.filter[w] |= b;
        }
    }

    /// Whether the SM may have stored to `line` in this phase.
    #[inline(always)]
    fn may_hold(&self, line: u64) -> bool {
        let (w, b) = filter_bit(line);
        self.filter[w] & b != 0
    }

    /// Whether the SM may have stored to one of the request's lines.
    #[inline(always)]
    fn touches(&self, groups: &[Group]) -> bool {
        !self.records.is_empty() && groups.iter().any(|g| self.may_hold(g.line))
    }

    fn clear(&mut self) {
        self.filter = [0; FILTER_WORDS];
        self.records.clear();
    }
}

impl OverlayView<'_> {
    /// Overwrites `dst` (the bytes at `addr`) with the SM's stored bytes it covers, in the
    /// order they were stored.
    fn patch(&self, addr: u64, dst: &mut [u8]) {
        let end = addr + dst.len() as u64;
        for &i in &self.overlay.records {
            let r = &self.stores[i as usize];
            let (lo, hi) = (r.addr.max(addr), (r.addr + u64::from(r.len)).min(end));
            if lo < hi {
                let src = r.off + (lo - r.addr) as usize;
                dst[(lo - addr) as usize..(hi - addr) as usize]
                    .copy_from_slice(&self.data[src..src + (hi - lo) as usize]);
            }
        }
    }

    /// Overwrites the `sectors` of `dst` (a copy of line `line`) with the stored bytes.
    pub(super) fn patch_line(&self, line: u64, sectors: u8, geo: Geometry, dst: &mut [u8]) {
        if !self.overlay.may_hold(line) {
            return;
        }
        let sb = geo.sector_bytes;
        let line_addr = line << geo.line_shift;
        for s in 0..(1u64 << geo.sectors_per_line_shift) {
            if sectors & (1 << s) != 0 {
                let at = (s * sb) as usize;
                self.patch(line_addr + s * sb, &mut dst[at..at + sb as usize]);
            }
        }
    }
}

/// One SM lent to a port.
struct SmSide {
    l1: SectorCache,
    l1_ready: bool,
    /// The SM's counters of the phase (added to its own when settled).
    counters: Counters,
}

/// One store of a phase: `len` bytes at `addr` in allocation `alloc`, taken from the
/// port's store data at `off`.
#[derive(Debug, Clone, Copy)]
struct StoreRec {
    addr: u64,
    alloc: u32,
    len: u32,
    off: usize,
}

/// Where one turn's logged work starts: its position in the caller's order, its first L2
/// operation and its first store (it ends where the port's next turn starts).
#[derive(Debug, Clone, Copy)]
struct Turn {
    pos: u32,
    log: usize,
    stores: usize,
    recorded: usize,
}

/// Routes a port keeps before its table is emptied at a settle (an instruction changes
/// its request shape rarely; this bounds a kernel that keeps changing it).
const MAX_PORT_ROUTES: usize = 4096;

/// How many logged L2 accesses ahead [`MemSystem::settle`]'s replay prefetches the L2 set of
/// the next one into the host's caches (the live path looks as far ahead: `engine.rs`).
const REPLAY_PREFETCH_AHEAD: usize = 8;

/// The SM side of the memory system for the SMs one host thread runs in an SM-parallel
/// phase (see the module docs). Made once per launch by [`MemSystem::sm_port`], lent SMs
/// by [`MemSystem::lend`] and settled by [`MemSystem::settle`] each phase.
pub struct SmPort {
    image: Option<Arc<GlobalMemory>>,
    cfg: GpuConfig,
    geo: Geometry,
    sides: Vec<Option<SmSide>>,
    /// Each SM's stores of the phase (kept, emptied, between phases).
    overlays: Vec<Overlay>,
    combine: WriteCombiner,
    per_instr: Vec<Counters>,
    /// Instruction ids with counters in `per_instr` this phase.
    touched: Vec<u32>,
    is_touched: Vec<bool>,
    /// The routes the log refers to, and by instruction id its last request shape and the
    /// index of its route.
    routes: Vec<Route>,
    memo: Vec<Option<(Request, u32)>>,
    /// Never used (the L2 work is logged): the fields a [`Work`] must have.
    no_l2: PartitionedL2,
    no_rng: SplitMix64,
    /// The L2 request coalescer is the settle's: the port logs its L2 work.
    no_reads: ReadCoalescer,
    log: Vec<L2Op>,
    stores: Vec<StoreRec>,
    store_data: Vec<u8>,
    turns: Vec<Turn>,
    groups: Vec<Group>,
    hit_data: Vec<u8>,
    /// The trace accesses of the phase's requests, while the memory system records
    /// ([`MemSystem::record_trace`]); appended to its recording in turn order.
    recorded: Option<Vec<TraceAccess>>,
}

impl MemSystem {
    /// A port for one host thread of an SM-parallel phase, or `None` where this memory
    /// system cannot lend SMs: it keeps no data (trace replay).
    pub fn sm_port(&self) -> Option<SmPort> {
        if !self.keep_data {
            return None;
        }
        Some(SmPort {
            image: None,
            cfg: self.cfg.clone(),
            geo: self.geo,
            sides: (0..self.l1.len()).map(|_| None).collect(),
            overlays: (0..self.l1.len()).map(|_| Overlay::default()).collect(),
            combine: self.combine.clone(),
            per_instr: Vec::new(),
            touched: Vec::new(),
            is_touched: Vec::new(),
            routes: Vec::new(),
            memo: Vec::new(),
            no_l2: PartitionedL2::empty(),
            no_rng: SplitMix64::new(0),
            no_reads: ReadCoalescer::new(0, 0),
            log: Vec::new(),
            stores: Vec::new(),
            store_data: Vec::new(),
            turns: Vec::new(),
            groups: Vec::with_capacity(2 * MAX_LANES),
            hit_data: Vec::new(),
            recorded: None,
        })
    }

    /// Lends the SMs `sms` (their L1s and write-combining windows) and a view of the image
    /// to `port` until [`MemSystem::settle`]. An SM may be lent to one port at a time; one
    /// out of range, or already lent, is an error and lends nothing more.
    pub fn lend(&mut self, port: &mut SmPort, sms: &[u32]) -> Result<(), MemError> {
        port.image = Some(Arc::clone(&self.mem));
        match (&mut port.recorded, self.recorded.is_some()) {
            (r @ None, true) => *r = Some(Vec::new()),
            (r @ Some(_), false) => *r = None,
            _ => {}
        }
        for &sm in sms {
            let s = sm as usize;
            if s >= self.l1.len() {
                return Err(MemError::NoSuchSm {
                    sm,
                    sm_count: self.cfg.sm_count,
                });
            }
            if port.sides[s].is_some() {
                return Err(MemError::Unsupported {
                    what: "an SM lent twice to one port",
                });
            }
            port.combine.copy_sm_from(&self.combine, s);
            port.sides[s] = Some(SmSide {
                l1: std::mem::replace(&mut self.l1[s], SectorCache::empty()),
                l1_ready: self.l1_ready[s],
                counters: Counters::default(),
            });
            self.l1_ready[s] = false;
        }
        Ok(())
    }

    /// Ends an SM-parallel phase: takes the lent SMs back, applies the ports' stores to the
    /// image and replays their L2 work on the L2, turn by turn in the order of the turns'
    /// positions (each position is one turn of one port), then adds their counters.
    pub fn settle(&mut self, ports: &mut [&mut SmPort]) {
        let mut order: Vec<(u32, usize, usize)> = Vec::new();
        for (pi, p) in ports.iter_mut().enumerate() {
            p.image = None;
            order.extend(p.turns.iter().enumerate().map(|(ti, t)| (t.pos, pi, ti)));
        }
        order.sort_unstable();
        for p in ports.iter_mut() {
            self.take_back(p);
        }
        {
            let image = self.image_mut();
            for &(_, pi, ti) in &order {
                let p = &*ports[pi];
                for r in &p.stores[p.turn_ranges(ti).0] {
                    image
                        .bytes_in_mut(r.alloc as usize, r.addr, r.len as usize)
                        .copy_from_slice(&p.store_data[r.off..r.off + r.len as usize]);
                }
            }
        }
        for &(_, pi, ti) in &order {
            let p = &*ports[pi];
            self.replay(&p.log[p.turn_ranges(ti).1], &p.routes);
            if let (Some(out), Some(rec)) = (self.recorded.as_mut(), p.recorded.as_ref()) {
                let start = p.turns[ti].recorded;
                let end = p.turns.get(ti + 1).map_or(rec.len(), |t| t.recorded);
                out.extend_from_slice(&rec[start..end]);
            }
        }
        for p in ports.iter_mut() {
            p.log.clear();
            p.stores.clear();
            p.store_data.clear();
            p.turns.clear();
            if let Some(r) = p.recorded.as_mut() {
                r.clear();
            }
            if p.routes.len() > MAX_PORT_ROUTES {
                p.routes.clear();
                p.memo.clear();
            }
        }
    }

    /// Takes back a port's SMs and adds its counters.
    fn take_back(&mut self, p: &mut SmPort) {
        for (sm, side) in p.sides.iter_mut().enumerate() {
            let Some(side) = side.take() else { continue };
            self.l1[sm] = side.l1;
            self.l1_ready[sm] = side.l1_ready;
            self.any_l1_ready |= side.l1_ready;
            self.combine.copy_sm_from(&p.combine, sm);
            self.stats.per_sm[sm] += &side.counters;
            p.overlays[sm].clear();
        }
        for &i in &p.touched {
            let i = i as usize;
            self.stats.ensure_instr(i);
            self.stats.per_instr[i] += &p.per_instr[i];
            p.per_instr[i] = Counters::default();
            p.is_touched[i] = false;
        }
        p.touched.clear();
    }

    /// Performs logged L2 work in order, as the requests that logged it would have.
    /// A hint only, the prefetch of the L2 sets ahead changes nothing observable.
    fn replay(&mut self, log: &[L2Op], routes: &[Route]) {
        let mut start = 0;
        for (i, op) in log.iter().enumerate() {
            let L2OpKind::End { sm } = op.kind else {
                continue;
            };
            let (sm, instr) = (usize::from(sm), op.word as usize);
            if i > start {
                self.stats.ensure_instr(instr);
                let at = Attr { sm, instr, warp: 0 };
                let mut w = self.work(at, (), SetHint::NONE);
                for (j, op) in log[start..i].iter().enumerate() {
                    // The L2 sets a replay looks up are rarely in the host's caches (the
                    // tag store is megabytes): ask for the set of the access a few ahead.
                    if let Some(next) = log.get(start + j + REPLAY_PREFETCH_AHEAD) {
                        if !matches!(next.kind, L2OpKind::End { .. }) {
                            w.l2.prefetch_line(next.line);
                        }
                    }
                    let route = &routes[op.word as usize];
                    match op.kind {
                        L2OpKind::Read => w.l2_read(route, op.line, op.mask),
                        L2OpKind::Write { through } => w.l2_write(route, op.line, op.mask, through),
                        L2OpKind::End { .. } => {}
                    }
                }
            }
            self.stats.requests += 1;
            self.sample_timeline();
            start = i + 1;
        }
    }
}

impl SmPort {
    /// Starts the logged work of the turn at position `pos` of the caller's order (positions
    /// must be distinct across the ports settled together).
    pub fn begin_turn(&mut self, pos: u32) {
        self.turns.push(Turn {
            pos,
            log: self.log.len(),
            stores: self.stores.len(),
            recorded: self.recorded.as_ref().map_or(0, Vec::len),
        });
    }

    fn turn_ranges(&self, ti: usize) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
        let t = self.turns[ti];
        let (stores_end, log_end) = match self.turns.get(ti + 1) {
            Some(n) => (n.stores, n.log),
            None => (self.stores.len(), self.log.len()),
        };
        (t.stores..stores_end, t.log..log_end)
    }

    /// Whether `[addr, addr + len)` lies inside one allocation.
    pub fn is_mapped(&self, addr: u64, len: u64) -> bool {
        self.image
            .as_ref()
            .is_some_and(|m| m.find(addr, len).is_some())
    }

    /// Without the cache model: `dst.len()` bytes at `addr` as SM `sm` sees them (the
    /// image at the phase's start and the SM's own stores since), like [`MemSystem::read`].
    pub fn read(&self, sm: u32, addr: u64, dst: &mut [u8]) -> Result<(), MemError> {
        let (image, overlay) = self.data_side(sm)?;
        let len = dst.len() as u64;
        let a = image
            .find(addr, len)
            .ok_or(MemError::HostUnmapped { addr, bytes: len })?;
        dst.copy_from_slice(image.bytes_in(a, addr, dst.len()));
        if (addr >> self.geo.line_shift..=(addr + len.max(1) - 1) >> self.geo.line_shift)
            .any(|line| overlay.may_hold(line))
        {
            OverlayView {
                overlay,
                stores: &self.stores,
                data: &self.store_data,
            }
            .patch(addr, dst);
        }
        Ok(())
    }

    /// Without the cache model: SM `sm` writes `src` at `addr`, like [`MemSystem::write`]
    /// (no L1 holds data in such a launch); the image gets it when the phase is settled.
    pub fn write(&mut self, sm: u32, addr: u64, src: &[u8]) -> Result<(), MemError> {
        let (image, _) = self.data_side(sm)?;
        let len = src.len() as u64;
        let alloc = image
            .find(addr, len)
            .ok_or(MemError::HostUnmapped { addr, bytes: len })?;
        if src.is_empty() {
            return Ok(());
        }
        let turn_start = self.turns.last().map_or(0, |t| t.stores);
        let len = src.len() as u32;
        let in_turn = self.stores.len() > turn_start;
        let data_end = self.store_data.len();
        // A warp's lanes write one after another: continuing the turn's last store (of this
        // SM: a turn is one warp's) extends its record.
        if let Some(last) = self.stores.last_mut().filter(|r| {
            in_turn
                && r.alloc == alloc as u32
                && r.addr + u64::from(r.len) == addr
                && r.off + r.len as usize == data_end
        }) {
            last.len += len;
            self.store_data.extend_from_slice(src);
            self.overlays[sm as usize].mark(addr, len, self.geo.line_shift);
            return Ok(());
        }
        let rec = StoreRec {
            addr,
            alloc: alloc as u32,
            len,
            off: self.store_data.len(),
        };
        self.store_data.extend_from_slice(src);
        self.overlays[sm as usize].note(self.stores.len(), addr, len, self.geo.line_shift);
        self.stores.push(rec);
        Ok(())
    }

    /// The image and SM `sm`'s overlay, when the SM is lent and a turn has begun.
    fn data_side(&self, sm: u32) -> Result<(&GlobalMemory, &Overlay), MemError> {
        let s = sm as usize;
        if s >= self.sides.len() {
            return Err(MemError::NoSuchSm {
                sm,
                sm_count: self.cfg.sm_count,
            });
        }
        match (&self.image, &self.sides[s], self.turns.is_empty()) {
            (Some(image), Some(_), false) => Ok((image, &self.overlays[s])),
            _ => Err(MemError::Unsupported {
                what: "a request on an SM port outside a turn of a lent SM",
            }),
        }
    }

    /// A weak warp-level load (or `cp.async`'s global read) on a lent SM ([`MemSystem::load`]'s contract; see the module
    /// docs for what the [`Outcome`] holds).
    pub fn load(
        &mut self,
        req: &Request,
        lanes: &[LaneAccess],
        out: &mut [u8],
    ) -> Result<Outcome, MemError> {
        self.load_data(req, lanes, Data::Out(out))
    }

    /// [`SmPort::load`] for a caller that does not use the bytes ([`MemSystem::load_unread`]'s
    /// contract).
    pub fn load_unread(
        &mut self,
        req: &Request,
        lanes: &[LaneAccess],
    ) -> Result<Outcome, MemError> {
        self.load_data(req, lanes, Data::Unread)
    }

    /// `load` and `load_unread`: loads and `cp.async` reads only.
    fn load_data(
        &mut self,
        req: &Request,
        lanes: &[LaneAccess],
        data: Data<'_>,
    ) -> Result<Outcome, MemError> {
        if !matches!(req.kind, AccessKind::Load | AccessKind::AsyncCopy) {
            return Err(MemError::Unsupported {
                what: "an SM port serves loads, cp.async reads and stores only",
            });
        }
        self.execute(req, lanes, data)
    }

    /// A weak warp-level store on a lent SM ([`MemSystem::store`]'s contract).
    pub fn store(
        &mut self,
        req: &Request,
        lanes: &[LaneAccess],
        data: &[u8],
    ) -> Result<Outcome, MemError> {
        if req.kind != AccessKind::Store {
            return Err(MemError::Unsupported {
                what: "a non-store request passed to store",
            });
        }
        self.execute(req, lanes, Data::In(data))
    }

    /// A local-memory load or store on a lent SM ([`MemSystem::local`]'s contract).
    pub fn local(&mut self, req: &Request, lanes: &[LaneAccess]) -> Result<Outcome, MemError> {
        check_local(req)?;
        self.execute(req, lanes, Data::None)
    }

    fn execute(
        &mut self,
        req: &Request,
        lanes: &[LaneAccess],
        mut data: Data<'_>,
    ) -> Result<Outcome, MemError> {
        let sm = req.sm.0 as usize;
        if sm >= self.sides.len() {
            return Err(MemError::NoSuchSm {
                sm: req.sm.0,
                sm_count: self.cfg.sm_count,
            });
        }
        if self.sides[sm].is_none() || self.turns.is_empty() || self.image.is_none() {
            return Err(MemError::Unsupported {
                what: "a request on an SM port outside a turn of a lent SM",
            });
        }
        if !matches!(req.semantics, Semantics::Weak) {
            return Err(MemError::Unsupported {
                what: "a strong access on an SM port (it is ordered with other SMs)",
            });
        }
        if lanes.len() > MAX_LANES {
            return Err(MemError::TooManyLanes {
                lanes: lanes.len(),
                max: MAX_LANES,
            });
        }
        let instr = req.instr.0 as usize;
        let route_index = self.route(req, instr)?;
        let route = self.routes[route_index as usize];
        let image = self.image.as_deref().expect("checked above");
        let mut alloc_of = [0u32; MAX_LANES];
        // A local access carries no bytes: its addresses are in no allocation.
        let mapped = req.space != Space::Local;
        let total = check_lanes_in(image, mapped, req, lanes, &mut alloc_of)?;
        check_buffer(&data, total)?;
        if route.op == Op::Atomic || route.invalidate_l1_after {
            return Err(MemError::Unsupported {
                what: "an atomic or acquiring access on an SM port",
            });
        }
        if instr >= self.per_instr.len() {
            self.per_instr.resize(instr + 1, Counters::default());
            self.is_touched.resize(instr + 1, false);
        }
        if !self.is_touched[instr] {
            self.is_touched[instr] = true;
            self.touched.push(instr as u32);
        }
        let side = self.sides[sm].as_mut().expect("checked above");
        if self.geo.l1_enabled && !side.l1_ready {
            side.l1 = SectorCache::new(&self.cfg.l1, self.cfg.l1.ways, true);
            side.l1_ready = true;
        }
        coalesce(lanes, self.geo, route.per_lane, &mut self.groups);
        if let Some(out) = self.recorded.as_mut() {
            record_groups_into(out, self.geo, req, &self.groups);
        }
        let capture = matches!(data, Data::Out(_) | Data::Unread);
        if capture {
            let line_bytes = 1usize << self.geo.line_shift;
            self.hit_data.resize(self.groups.len() * line_bytes, 0);
        }
        let input = match &data {
            Data::In(b) => Some(*b),
            _ => None,
        };
        let mut w = Work {
            l1: &mut side.l1,
            l2: &mut self.no_l2,
            combine: &mut self.combine,
            reads: &mut self.no_reads,
            sm,
            warp: req.warp,
            counters: SmAndInstr {
                sm: &mut side.counters,
                instr: &mut self.per_instr[instr],
            },
            rng: &mut self.no_rng,
            ranges: &[],
            window: None,
            mem: image,
            geo: self.geo,
            tally: Track::default(),
            l2_hint: SetHint::NONE,
            deferred: Some(Deferred {
                log: &mut self.log,
                route: route_index,
            }),
            overlay: Some(OverlayView {
                overlay: &self.overlays[sm],
                stores: &self.stores,
                data: &self.store_data,
            }),
        };
        let hit_data = if capture {
            Some(&mut self.hit_data[..])
        } else {
            None
        };
        perform_groups_on(&mut w, &route, lanes, &mut self.groups, hit_data, input);
        let mut out = w.tally.out;
        self.log.push(L2Op {
            line: 0,
            word: instr as u32,
            mask: 0,
            kind: L2OpKind::End { sm: sm as u16 },
        });
        match &mut data {
            Data::Unread if self.groups.iter().all(|g| g.l1_hit == 0) => {}
            Data::Out(_) | Data::Unread => {
                let mut scratch = Vec::new();
                let buf = data.read_buffer(total, &mut scratch).expect("a read");
                let stale = self.read_view(sm, lanes, &alloc_of, buf);
                if stale != 0 {
                    out.stale_lanes = stale;
                    let n = u64::from(stale.count_ones());
                    let side = self.sides[sm].as_mut().expect("checked above");
                    side.counters.stale_reads += n;
                    self.per_instr[instr].stale_reads += n;
                }
            }
            Data::In(buf) => {
                // Lanes that continue the previous one in memory (and in `buf`, which is in
                // lane order) make one run: a warp's coalesced store is one record.
                let base = self.store_data.len();
                self.store_data.extend_from_slice(&buf[..total]);
                let mut off = 0usize;
                let mut run: Option<StoreRec> = None;
                for (l, &a) in lanes.iter().zip(&alloc_of) {
                    match &mut run {
                        Some(r) if r.alloc == a && r.addr + u64::from(r.len) == l.addr => {
                            r.len += l.bytes;
                        }
                        _ => {
                            if let Some(r) = run.take() {
                                self.overlays[sm].note(
                                    self.stores.len(),
                                    r.addr,
                                    r.len,
                                    self.geo.line_shift,
                                );
                                self.stores.push(r);
                            }
                            run = Some(StoreRec {
                                addr: l.addr,
                                alloc: a,
                                len: l.bytes,
                                off: base + off,
                            });
                        }
                    }
                    off += l.bytes as usize;
                }
                if let Some(r) = run {
                    self.overlays[sm].note(self.stores.len(), r.addr, r.len, self.geo.line_shift);
                    self.stores.push(r);
                }
            }
            Data::None | Data::Atomic(_) => {}
        }
        Ok(out)
    }

    /// The index of `req`'s route in the route table, by the instruction's last shape when
    /// it is the same.
    fn route(&mut self, req: &Request, instr: usize) -> Result<u32, MemError> {
        if let Some(Some((r, i))) = self.memo.get(instr) {
            if same_shape(r, req) {
                return Ok(*i);
            }
        }
        let route = resolve_route(&self.cfg, self.geo, req)?;
        if instr >= self.memo.len() {
            self.memo.resize(instr + 1, None);
        }
        let i = self.routes.len() as u32;
        self.routes.push(route);
        self.memo[instr] = Some((*req, i));
        Ok(i)
    }

    /// Copies each lane's bytes into `buf`: from the SM's L1 copy for sectors that hit in
    /// L1 (noting lanes whose bytes differ from the SM's view), else from the view (the
    /// image at the phase's start and the SM's own stores since). Returns the stale lanes.
    fn read_view(&self, sm: usize, lanes: &[LaneAccess], alloc_of: &[u32], buf: &mut [u8]) -> u64 {
        let image = self.image.as_deref().expect("lent");
        let overlay = OverlayView {
            overlay: &self.overlays[sm],
            stores: &self.stores,
            data: &self.store_data,
        };
        let patch = overlay.overlay.touches(&self.groups);
        let shift = self.geo.line_shift;
        let mut off = 0usize;
        for (l, &a) in lanes.iter().zip(alloc_of) {
            let n = l.bytes as usize;
            let dst = &mut buf[off..off + n];
            copy_small(dst, image.bytes_in(a as usize, l.addr, n));
            if patch {
                overlay.patch(l.addr, dst);
            }
            off += n;
        }
        if self.groups.iter().all(|g| g.l1_hit == 0) {
            return 0;
        }
        // Sectors that hit in L1 come from the L1 copy; a lane is stale where they differ.
        let line_bytes = 1u64 << shift;
        let mut stale = 0u64;
        let mut off = 0usize;
        for (i, l) in lanes.iter().enumerate() {
            let mut addr = l.addr;
            let end = l.addr + u64::from(l.bytes);
            while addr < end {
                let piece_end =
                    end.min(((addr >> self.geo.sector_shift) + 1) << self.geo.sector_shift);
                let n = (piece_end - addr) as usize;
                let line = addr >> shift;
                let sector =
                    (addr >> self.geo.sector_shift) & ((1 << self.geo.sectors_per_line_shift) - 1);
                let gi = self.groups.iter().position(|g| g.line == line);
                if let Some(gi) = gi.filter(|&gi| self.groups[gi].l1_hit & (1 << sector) != 0) {
                    let start = gi * line_bytes as usize + (addr & (line_bytes - 1)) as usize;
                    let held = &self.hit_data[start..start + n];
                    let dst = &mut buf[off..off + n];
                    if dst != held {
                        stale |= 1 << i;
                        dst.copy_from_slice(held);
                    }
                }
                off += n;
                addr = piece_end;
            }
        }
        stale
    }
}
