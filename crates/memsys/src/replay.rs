//! Trace replay: run a stream of single accesses through a tags-only memory system and
//! collect the statistics. The text trace format (`<sm> <ptx-op> <addr> <bytes> [<policy>]`)
//! is parsed by the `ptx-trace` crate with the front end's qualifier tables; this module takes
//! the already-typed accesses.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::config::GpuConfig;
use crate::error::MemError;
use crate::stats::Stats;
use crate::system::{MemSystem, LOOKAHEAD};
use crate::types::{Request, SmId};

/// One access of a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TraceAccess {
    pub request: Request,
    pub addr: u64,
    pub bytes: u32,
}

/// Runs `accesses` through `mem` in order; returns how many ran. An access that fails stops
/// the replay with [`MemError::Replay`] naming its position.
///
/// On a tags-only system each access's L2 set is prefetched into the host's caches
/// [`LOOKAHEAD`] accesses before its turn. Prefetching changes nothing observable, so the
/// statistics, and where a faulty trace stops, are exactly those of calling
/// [`MemSystem::access`] on each access in turn.
pub fn run<I>(mem: &mut MemSystem, accesses: I) -> Result<u64, MemError>
where
    I: IntoIterator<Item = TraceAccess>,
{
    let mut accesses = accesses.into_iter();
    let mut ring = [TraceAccess::default(); LOOKAHEAD];
    let mut queued = 0;
    for slot in ring.iter_mut() {
        let Some(a) = accesses.next() else { break };
        mem.prefetch_for(&a.request, a.addr);
        *slot = a;
        queued += 1;
    }
    let mut head = 0;
    let mut n = 0u64;
    while queued > 0 {
        let a = &ring[head];
        if let Err(e) = mem.access(&a.request, a.addr, a.bytes) {
            return Err(MemError::Replay {
                index: n,
                source: Box::new(e),
            });
        }
        n += 1;
        match accesses.next() {
            Some(b) => {
                mem.prefetch_for(&b.request, b.addr);
                ring[head] = b;
            }
            None => queued -= 1,
        }
        head = (head + 1) % LOOKAHEAD;
    }
    Ok(n)
}

/// A trace held compactly for replay: each distinct request shape (a [`Request`] without
/// its SM) is stored once and routed once per replay, and each access is 16 bytes (address,
/// shape, SM, size). Build it with [`Trace::push`] or `collect()`, replay it with
/// [`run_trace`]. Accesses whose SM or size do not fit the compact form (invalid ones: they
/// fail when replayed) are kept whole.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    pub(crate) shapes: Vec<Request>,
    index: FxHashMap<Request, u32>,
    pub(crate) entries: Vec<Entry>,
    /// Accesses kept whole, by position.
    whole: FxHashMap<usize, TraceAccess>,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry {
    pub addr: u64,
    pub shape: u32,
    pub sm: u16,
    pub bytes: u8,
    /// [`WHOLE`], [`PAIR`] and [`CHECKED`].
    pub flags: u8,
}

/// The access is kept in `Trace::whole`.
pub(crate) const WHOLE: u8 = 1;
/// The access may fill a 256 B block (`.L2::256B`, or a policy's 256 B promote bit): its
/// neighbouring line's L2 set is prefetched too.
pub(crate) const PAIR: u8 = 2;
/// The access fails memsys's size or address checks (no bytes, more than
/// [`crate::MAX_LANE_BYTES`], or an end past 2^64), so the replay loop hands it to the checked
/// path, which reports the error.
pub(crate) const CHECKED: u8 = 4;

impl Trace {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends an access.
    pub fn push(&mut self, a: TraceAccess) {
        let shape = self.intern(&a.request);
        self.push_shaped(shape, a.request.sm.0, a.addr, a.bytes);
    }

    /// Interns a request shape (the request without its SM) and returns its index, for
    /// [`Trace::push_shaped`]: a reader that knows two accesses share a shape (the same op
    /// spelling and policy value) interns it once instead of hashing every access's request.
    pub fn intern(&mut self, request: &Request) -> u32 {
        let key = Request {
            sm: SmId(0),
            ..*request
        };
        let next = self.shapes.len() as u32;
        let shape = *self.index.entry(key).or_insert(next);
        if shape == next {
            self.shapes.push(key);
        }
        shape
    }

    /// Appends an access of an interned shape from `sm`: the same as [`Trace::push`] of that
    /// shape's request from `sm`. An unknown shape index is ignored.
    pub fn push_shaped(&mut self, shape: u32, sm: u32, addr: u64, bytes: u32) {
        let Some(request) = self.shapes.get(shape as usize) else {
            return;
        };
        let whole = sm > u32::from(u16::MAX) || bytes > u32::from(u8::MAX);
        let bad = bytes == 0
            || bytes > crate::MAX_LANE_BYTES
            || addr.checked_add(u64::from(bytes)).is_none();
        let pair = request.prefetch == Some(crate::types::PrefetchSize::B256)
            || request.policy.is_some_and(|p| p & (1 << 62) != 0);
        if whole {
            let request = Request {
                sm: SmId(sm),
                ..*request
            };
            let a = TraceAccess {
                request,
                addr,
                bytes,
            };
            self.whole.insert(self.entries.len(), a);
        }
        self.entries.push(Entry {
            addr,
            shape,
            sm: sm as u16,
            bytes: bytes as u8,
            flags: if whole { WHOLE } else { 0 }
                | if pair { PAIR } else { 0 }
                | if bad { CHECKED } else { 0 },
        });
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Distinct request shapes.
    pub fn shapes(&self) -> usize {
        self.shapes.len()
    }

    /// The access at position `i`.
    pub fn get(&self, i: usize) -> Option<TraceAccess> {
        let e = self.entries.get(i)?;
        if e.flags & WHOLE != 0 {
            return self.whole.get(&i).copied();
        }
        Some(TraceAccess {
            request: Request {
                sm: SmId(u32::from(e.sm)),
                ..self.shapes[e.shape as usize]
            },
            addr: e.addr,
            bytes: u32::from(e.bytes),
        })
    }

    /// The accesses in order.
    pub fn iter(&self) -> impl Iterator<Item = TraceAccess> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

impl FromIterator<TraceAccess> for Trace {
    fn from_iter<I: IntoIterator<Item = TraceAccess>>(iter: I) -> Self {
        let mut t = Trace::new();
        for a in iter {
            t.push(a);
        }
        t
    }
}

impl Extend<TraceAccess> for Trace {
    fn extend<I: IntoIterator<Item = TraceAccess>>(&mut self, iter: I) {
        for a in iter {
            self.push(a);
        }
    }
}

/// Replays a compiled [`Trace`] through `mem` in order; returns how many accesses ran. The
/// effects, and where a faulty trace stops ([`MemError::Replay`] naming the position), are
/// exactly those of [`run`] on the same accesses. What an access of each request shape does
/// is decided once per replay, and each access's L2 set is prefetched [`LOOKAHEAD`] accesses
/// ahead (the loop is described in `src/system/engine.rs`).
pub fn run_trace(mem: &mut MemSystem, trace: &Trace) -> Result<u64, MemError> {
    mem.replay_compiled(trace)
}

/// Builds a tags-only memory system for `cfg`, replays `accesses` and returns the statistics.
pub fn replay<I>(cfg: GpuConfig, accesses: I) -> Result<Stats, MemError>
where
    I: IntoIterator<Item = TraceAccess>,
{
    let mut mem = MemSystem::tags_only(cfg)?;
    run(&mut mem, accesses)?;
    Ok(mem.stats())
}

/// Renders statistics as text (`json == false`) or pretty JSON.
pub fn render(stats: &Stats, json: bool) -> String {
    if json {
        stats.to_json()
    } else {
        stats.render_text()
    }
}

/// The documented synthetic workload of the replay benchmark (and of the pycachesim rate
/// measurement in `tests/memsys/pycachesim_parity.py`, which mirrors it line for line).
///
/// Access `i` draws `r` from SplitMix64(seed) and picks, with `sel = (r >> 8) & 15`:
/// - `sel` 0-7 (50%): SM `r & 15` streams through its own 256 MiB region, 32 B per access,
///   with `ld.global.cs`/`ld.global.cg.L2::evict_first` alternating by SM;
/// - 8-11 (25%): a random 32 B sector of an 8 MiB hot region, `ld.global.L1::evict_last
///   .L2::cache_hint` with the fraction-1.0 evict_last policy `0x14F0000000000000`;
/// - 12-13 (12.5%): a random sector of a 256 MiB region, `ld.global.ca.L2::128B`;
/// - 14: `st.global.wb` (SM even) or `st.global.cs` (SM odd) to a random sector of the hot region;
/// - 15: `cp.async.cg.shared.global.L2::256B` of 16 B from the random region.
///
/// Sizes are 4, 8 or 16 bytes (`(r >> 40) % 3`), aligned, so each access is one sector.
pub fn synthetic(seed: u64) -> Synthetic {
    Synthetic {
        rng: crate::rng::SplitMix64::new(seed),
        stream: [0; 16],
    }
}

/// Iterator over the synthetic benchmark workload ([`synthetic`]).
pub struct Synthetic {
    rng: crate::rng::SplitMix64,
    stream: [u64; 16],
}

/// A streaming copy kernel (`y[i] = x[i]` over 16 SMs): access `i` comes from SM `i % 16`;
/// each SM alternates an `ld.global.cs` of the next 32 B sector of its own 256 MiB slice of
/// the source with an `st.global.cs` of the same sector of its slice of the destination.
/// Every sector is touched once, so every load misses L1 and L2 (allocating a line for every
/// fourth), stores mark L2 lines dirty, and once L2 is full each new line evicts an
/// evict-first line and writes back its dirty sectors. Instruction ids: 0 for the load, 1 for
/// the store.
pub fn streaming() -> Streaming {
    Streaming { i: 0 }
}

/// Iterator over the streaming workload ([`streaming`]).
pub struct Streaming {
    i: u64,
}

/// Regions of the streaming workload.
pub const STREAM_SRC_BASE: u64 = 0x7f00_0000_0000;
pub const STREAM_DST_BASE: u64 = 0x7f80_0000_0000;

impl Iterator for Streaming {
    type Item = TraceAccess;

    #[inline]
    fn next(&mut self) -> Option<TraceAccess> {
        use crate::types::*;
        let i = self.i;
        self.i += 1;
        let sm = (i % 16) as u32;
        let k = i / 16;
        let off = (k / 2 * 32) % SYNTH_STREAM_BYTES;
        let slice = u64::from(sm) * SYNTH_STREAM_BYTES + off;
        let (request, addr) = if k % 2 == 0 {
            (
                Request::load(sm).with_operator(CacheOperator::Cs),
                STREAM_SRC_BASE + slice,
            )
        } else {
            (
                Request::store(sm)
                    .with_operator(CacheOperator::Cs)
                    .with_instr(1),
                STREAM_DST_BASE + slice,
            )
        };
        Some(TraceAccess {
            request,
            addr,
            bytes: 32,
        })
    }
}

/// An all-L1-hit workload: 16 SMs in turn read 4 B of one of 512 sectors (16 KiB) with
/// `ld.global.ca`; each SM keeps reading the same 32 of them, so after 512 cold misses every
/// access hits L1.
pub fn l1_hits() -> impl Iterator<Item = TraceAccess> {
    (0u64..).map(|i| TraceAccess {
        request: Request::load((i % 16) as u32).with_operator(crate::types::CacheOperator::Ca),
        addr: SYNTH_STREAM_BASE + (i.wrapping_mul(0x9E37_79B9) % 512) * 32,
        bytes: 4,
    })
}

/// Regions of the synthetic workload.
pub const SYNTH_STREAM_BASE: u64 = 0x7f00_0000_0000;
pub const SYNTH_STREAM_BYTES: u64 = 256 << 20;
pub const SYNTH_HOT_BASE: u64 = 0x7f20_0000_0000;
pub const SYNTH_HOT_BYTES: u64 = 8 << 20;
pub const SYNTH_RANDOM_BASE: u64 = 0x7f40_0000_0000;
pub const SYNTH_RANDOM_BYTES: u64 = 256 << 20;

impl Iterator for Synthetic {
    type Item = TraceAccess;

    #[inline]
    fn next(&mut self) -> Option<TraceAccess> {
        use crate::types::*;
        let r = self.rng.next_u64();
        let sm = (r & 15) as u32;
        let sel = (r >> 8) & 15;
        let bytes = [4u32, 8, 16][((r >> 40) % 3) as usize];
        let sector = r >> 16;
        let mut req = Request::load(sm);
        let addr = match sel {
            0..=7 => {
                let off = self.stream[sm as usize];
                self.stream[sm as usize] = (off + 32) % SYNTH_STREAM_BYTES;
                if sm % 2 == 0 {
                    req.operator = Some(CacheOperator::Cs);
                } else {
                    req.operator = Some(CacheOperator::Cg);
                    req.l2_priority = Some(L2EvictionPriority::First);
                }
                SYNTH_STREAM_BASE + u64::from(sm) * SYNTH_STREAM_BYTES + off
            }
            8..=11 => {
                req.l1_priority = Some(L1EvictionPriority::Last);
                req.policy = Some(0x14F0_0000_0000_0000);
                SYNTH_HOT_BASE + (sector % (SYNTH_HOT_BYTES / 32)) * 32
            }
            12 | 13 => {
                req.operator = Some(CacheOperator::Ca);
                req.prefetch = Some(PrefetchSize::B128);
                SYNTH_RANDOM_BASE + (sector % (SYNTH_RANDOM_BYTES / 32)) * 32
            }
            14 => {
                req.kind = AccessKind::Store;
                req.operator = Some(if sm % 2 == 0 {
                    CacheOperator::Wb
                } else {
                    CacheOperator::Cs
                });
                SYNTH_HOT_BASE + (sector % (SYNTH_HOT_BYTES / 32)) * 32
            }
            _ => {
                req.kind = AccessKind::AsyncCopy;
                req.operator = Some(CacheOperator::Cg);
                req.prefetch = Some(PrefetchSize::B256);
                SYNTH_RANDOM_BASE + (sector % (SYNTH_RANDOM_BYTES / 32)) * 32
            }
        };
        req.instr = InstrId(sel as u32);
        let bytes = if req.kind == AccessKind::AsyncCopy {
            16
        } else {
            bytes
        };
        Some(TraceAccess {
            request: req,
            addr,
            bytes,
        })
    }
}
