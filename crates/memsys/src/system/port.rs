//! SM ports: the SM side of the memory system, lent to a host thread for an SM-parallel
//! phase, and settled back in one fixed order.
//!
//! An interpreter that runs SMs on several host threads ([`MemSystem::lend`]) gives each
//! thread an [`SmPort`] holding the L1s and write-combining windows of the SMs it runs. A
//! port serves weak loads and stores ([`SmPort::load`], [`SmPort::store`]) entirely from
//! what belongs to its SMs:
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
//! its random draws (fraction policies), the request count (timeline samples) and every
//! counter come out as if one machine had run the turns in that order. Which thread ran
//! which SM changes nothing. An [`Outcome`] from a port has the L1 fields and stale lanes;
//! its L2 and DRAM fields are known only after the replay and stay zero.

use super::*;
use rustc_hash::FxHashMap;

/// The L2's part of one request on an SM port, replayed by [`MemSystem::settle`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct L2Op {
    pub(super) route: Route,
    pub(super) line: u64,
    pub(super) mask: u8,
    pub(super) kind: L2OpKind,
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum L2OpKind {
    /// [`Work::l2_read`].
    Read,
    /// [`Work::l2_write`], after write combining.
    Write { through: bool },
    /// The end of a request by `sm` for instruction `instr`: counted, and where a timeline
    /// sample may be taken. The L2 operations since the previous end are its own.
    End { sm: u32, instr: u32 },
}

/// Bytes an SM stored in the current phase, by line (the image does not hold them yet).
#[derive(Debug, Default)]
pub(crate) struct Overlay {
    lines: FxHashMap<u64, Box<OverlayLine>>,
}

/// A line's stored bytes: bit `i` of `written` is byte `i`.
#[derive(Debug)]
struct OverlayLine {
    written: u128,
    data: [u8; MAX_OVERLAY_LINE],
}

/// Largest line an overlay holds (every preset has 128-byte lines; a larger line size
/// leaves the memory system without ports).
const MAX_OVERLAY_LINE: usize = 128;

impl Overlay {
    fn write(&mut self, addr: u64, bytes: &[u8], line_shift: u32) {
        let line_bytes = 1u64 << line_shift;
        let mut a = addr;
        let end = addr + bytes.len() as u64;
        while a < end {
            let line = a >> line_shift;
            let line_end = end.min((line + 1) << line_shift);
            let e = self.lines.entry(line).or_insert_with(|| {
                Box::new(OverlayLine {
                    written: 0,
                    data: [0; MAX_OVERLAY_LINE],
                })
            });
            let off = (a & (line_bytes - 1)) as usize;
            let n = (line_end - a) as usize;
            let src = (a - addr) as usize;
            e.data[off..off + n].copy_from_slice(&bytes[src..src + n]);
            e.written |= span_mask(off, n);
            a = line_end;
        }
    }

    /// Overwrites `dst` (the bytes at `addr`) with the stored ones it covers.
    fn patch(&self, addr: u64, dst: &mut [u8], line_shift: u32) {
        if self.lines.is_empty() {
            return;
        }
        let line_bytes = 1u64 << line_shift;
        let mut a = addr;
        let end = addr + dst.len() as u64;
        while a < end {
            let line = a >> line_shift;
            let line_end = end.min((line + 1) << line_shift);
            if let Some(e) = self.lines.get(&line) {
                let off = (a & (line_bytes - 1)) as usize;
                let d = (a - addr) as usize;
                for i in 0..(line_end - a) as usize {
                    if e.written >> (off + i) & 1 != 0 {
                        dst[d + i] = e.data[off + i];
                    }
                }
            }
            a = line_end;
        }
    }

    /// Overwrites the `sectors` of `dst` (a copy of line `line`) with the stored bytes.
    pub(super) fn patch_line(&self, line: u64, sectors: u8, geo: Geometry, dst: &mut [u8]) {
        let Some(e) = self.lines.get(&line) else {
            return;
        };
        let sb = geo.sector_bytes as usize;
        for s in 0..(1usize << geo.sectors_per_line_shift) {
            if sectors & (1 << s) == 0 {
                continue;
            }
            let range = s * sb..(s + 1) * sb;
            for (i, (d, &b)) in dst[range.clone()]
                .iter_mut()
                .zip(&e.data[range])
                .enumerate()
            {
                if e.written >> (s * sb + i) & 1 != 0 {
                    *d = b;
                }
            }
        }
    }
}

/// Bits `off..off + n` of a line's byte mask.
fn span_mask(off: usize, n: usize) -> u128 {
    let m = if n >= 128 {
        u128::MAX
    } else {
        (1u128 << n) - 1
    };
    m << off
}

/// One SM lent to a port.
struct SmSide {
    l1: SectorCache,
    l1_ready: bool,
    /// The SM's counters of the phase (added to its own when settled).
    counters: Counters,
    overlay: Overlay,
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
}

/// The SM side of the memory system for the SMs one host thread runs in an SM-parallel
/// phase (see the module docs). Made once per launch by [`MemSystem::sm_port`], lent SMs
/// by [`MemSystem::lend`] and settled by [`MemSystem::settle`] each phase.
pub struct SmPort {
    image: Option<Arc<GlobalMemory>>,
    cfg: GpuConfig,
    geo: Geometry,
    sides: Vec<Option<SmSide>>,
    combine: WriteCombiner,
    per_instr: Vec<Counters>,
    /// Instruction ids with counters in `per_instr` this phase.
    touched: Vec<u32>,
    is_touched: Vec<bool>,
    memo: Vec<Option<(Request, Route)>>,
    /// Never used (the L2 work is logged): the fields a [`Work`] must have.
    no_l2: SectorCache,
    no_rng: SplitMix64,
    log: Vec<L2Op>,
    stores: Vec<StoreRec>,
    store_data: Vec<u8>,
    turns: Vec<Turn>,
    groups: Vec<Group>,
    hit_data: Vec<u8>,
}

impl MemSystem {
    /// A port for one host thread of an SM-parallel phase, or `None` where this memory
    /// system cannot lend SMs: it keeps no data, records a trace (whose order is the
    /// requests'), or has lines longer than 128 bytes.
    pub fn sm_port(&self) -> Option<SmPort> {
        let line_bytes = 1usize << self.geo.line_shift;
        if !self.keep_data || self.recorded.is_some() || line_bytes > MAX_OVERLAY_LINE {
            return None;
        }
        Some(SmPort {
            image: None,
            cfg: self.cfg.clone(),
            geo: self.geo,
            sides: (0..self.l1.len()).map(|_| None).collect(),
            combine: self.combine.clone(),
            per_instr: Vec::new(),
            touched: Vec::new(),
            is_touched: Vec::new(),
            memo: Vec::new(),
            no_l2: SectorCache::empty(),
            no_rng: SplitMix64::new(0),
            log: Vec::new(),
            stores: Vec::new(),
            store_data: Vec::new(),
            turns: Vec::new(),
            groups: Vec::with_capacity(2 * MAX_LANES),
            hit_data: Vec::new(),
        })
    }

    /// Lends the SMs `sms` (their L1s and write-combining windows) and a view of the image
    /// to `port` until [`MemSystem::settle`]. An SM may be lent to one port at a time; one
    /// out of range, or already lent, is an error and lends nothing more.
    pub fn lend(&mut self, port: &mut SmPort, sms: &[u32]) -> Result<(), MemError> {
        port.image = Some(Arc::clone(&self.mem));
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
                overlay: Overlay::default(),
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
        for &(_, pi, ti) in &order {
            let p = &*ports[pi];
            let (stores, log) = p.turn_ranges(ti);
            for r in &p.stores[stores] {
                let src = &p.store_data[r.off..r.off + r.len as usize];
                self.image_mut()
                    .bytes_in_mut(r.alloc as usize, r.addr, r.len as usize)
                    .copy_from_slice(src);
            }
            self.replay(&p.log[log]);
        }
        for p in ports.iter_mut() {
            p.log.clear();
            p.stores.clear();
            p.store_data.clear();
            p.turns.clear();
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
    fn replay(&mut self, log: &[L2Op]) {
        let mut start = 0;
        for (i, op) in log.iter().enumerate() {
            let L2OpKind::End { sm, instr } = op.kind else {
                continue;
            };
            let (sm, instr) = (sm as usize, instr as usize);
            self.stats.ensure_instr(instr);
            let mut w = Work {
                l1: &mut self.l1[sm],
                l2: &mut self.l2,
                combine: &mut self.combine,
                sm,
                counters: SmAndInstr {
                    sm: &mut self.stats.per_sm[sm],
                    instr: &mut self.stats.per_instr[instr],
                },
                rng: &mut self.rng,
                ranges: &self.range_policies,
                mem: &self.mem,
                geo: self.geo,
                tally: (),
                l2_hint: SetHint::NONE,
                deferred: None,
                overlay: None,
            };
            for op in &log[start..i] {
                match op.kind {
                    L2OpKind::Read => w.l2_read(&op.route, op.line, op.mask),
                    L2OpKind::Write { through } => w.l2_write(&op.route, op.line, op.mask, through),
                    L2OpKind::End { .. } => {}
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

    /// A weak warp-level load on a lent SM ([`MemSystem::load`]'s contract; see the module
    /// docs for what the [`Outcome`] holds).
    pub fn load(
        &mut self,
        req: &Request,
        lanes: &[LaneAccess],
        out: &mut [u8],
    ) -> Result<Outcome, MemError> {
        if req.kind != AccessKind::Load {
            return Err(MemError::Unsupported {
                what: "an SM port serves loads and stores only",
            });
        }
        self.execute(req, lanes, Data::Out(out))
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
        if self.sides[sm].is_none() || self.turns.is_empty() {
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
        let route = self.route(req, instr)?;
        let Some(image) = self.image.as_deref() else {
            return Err(MemError::Unsupported {
                what: "a request on an SM port outside a turn of a lent SM",
            });
        };
        let mut alloc_of = [0u32; MAX_LANES];
        let total = check_lanes_in(image, true, req, lanes, &mut alloc_of)?;
        check_buffer(&data, total)?;
        if route.op == Op::Atomic || route.invalidate_l1_after {
            return Err(MemError::Unsupported {
                what: "an atomic or acquiring access on an SM port",
            });
        }
        if instr >= self.per_instr.len() {
            self.per_instr.resize(instr + 1, Counters::default());
        }
        if instr >= self.is_touched.len() {
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
        coalesce(lanes, self.geo, &mut self.groups);
        let capture = matches!(data, Data::Out(_));
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
            sm,
            counters: SmAndInstr {
                sm: &mut side.counters,
                instr: &mut self.per_instr[instr],
            },
            rng: &mut self.no_rng,
            ranges: &[],
            mem: image,
            geo: self.geo,
            tally: Track::default(),
            l2_hint: SetHint::NONE,
            deferred: Some(&mut self.log),
            overlay: Some(&side.overlay),
        };
        let hit_data = if capture {
            Some(&mut self.hit_data[..])
        } else {
            None
        };
        perform_groups_on(&mut w, &route, lanes, &mut self.groups, hit_data, input);
        let mut out = w.tally.out;
        self.log.push(L2Op {
            route,
            line: 0,
            mask: 0,
            kind: L2OpKind::End {
                sm: sm as u32,
                instr: instr as u32,
            },
        });
        match &mut data {
            Data::Out(buf) => {
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
                let side = self.sides[sm].as_mut().expect("checked above");
                let mut off = 0usize;
                for (l, &a) in lanes.iter().zip(&alloc_of) {
                    let n = l.bytes as usize;
                    let bytes = &buf[off..off + n];
                    side.overlay.write(l.addr, bytes, self.geo.line_shift);
                    self.stores.push(StoreRec {
                        addr: l.addr,
                        alloc: a,
                        len: l.bytes,
                        off: self.store_data.len(),
                    });
                    self.store_data.extend_from_slice(bytes);
                    off += n;
                }
            }
            Data::None | Data::Atomic(_) => {}
        }
        Ok(out)
    }

    /// The route of `req`, by the instruction's last shape when it is the same.
    fn route(&mut self, req: &Request, instr: usize) -> Result<Route, MemError> {
        if let Some(Some((r, route))) = self.memo.get(instr) {
            if same_shape(r, req) {
                return Ok(*route);
            }
        }
        let route = resolve_route(&self.cfg, self.geo, req)?;
        if instr >= self.memo.len() {
            self.memo.resize(instr + 1, None);
        }
        self.memo[instr] = Some((*req, route));
        Ok(route)
    }

    /// Copies each lane's bytes into `buf`: from the SM's L1 copy for sectors that hit in
    /// L1 (noting lanes whose bytes differ from the SM's view), else from the view (the
    /// image at the phase's start and the SM's own stores since). Returns the stale lanes.
    fn read_view(&self, sm: usize, lanes: &[LaneAccess], alloc_of: &[u32], buf: &mut [u8]) -> u64 {
        let image = self.image.as_deref().expect("lent");
        let overlay = &self.sides[sm].as_ref().expect("lent").overlay;
        let shift = self.geo.line_shift;
        let mut off = 0usize;
        for (l, &a) in lanes.iter().zip(alloc_of) {
            let n = l.bytes as usize;
            let dst = &mut buf[off..off + n];
            copy_small(dst, image.bytes_in(a as usize, l.addr, n));
            overlay.patch(l.addr, dst, shift);
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
