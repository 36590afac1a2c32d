//! Differential tests: the optimised replay path (`MemSystem::access` on a tags-only system and
//! the pipelined `replay::run`) against the reference model (`reference_model/`, the original
//! implementation). Every access's outcome (or error) and the final `Stats` must be identical:
//! the benchmark trace, the streaming and L1-hit workloads, and random hint-heavy traces over
//! geometries that exercise every layout (1 to 64 ways, one to eight sectors per line, modulo
//! and xor-fold indexing with power-of-two and other set counts, carve-outs, no L1).

mod reference_model;

use memsys::replay::{self, Trace, TraceAccess};
use memsys::*;
use proptest::prelude::*;
use reference_model::{RefSystem, SplitMix64};

/// `cfg` with one L2 partition: the reference model is the single-copy L2 (the partitions'
/// near copies and fabric lookups are checked by `scenarios.rs` and `partitions.rs`; the
/// compiled replay loop on two partitions is held to the checked path at the end of this
/// file).
fn one_l2(cfg: &GpuConfig) -> GpuConfig {
    let mut cfg = cfg.clone();
    cfg.l2_partitions = 1;
    cfg
}

fn assert_same_stats(new: &Stats, old: &Stats, what: &str) {
    if new != old {
        // Narrow the difference down before failing, so the message says where it is.
        assert_eq!(new.requests, old.requests, "{what}: requests");
        assert_eq!(new.l2_occupancy, old.l2_occupancy, "{what}: L2 occupancy");
        assert_eq!(new.total(), old.total(), "{what}: totals");
        assert_eq!(new.per_sm, old.per_sm, "{what}: per-SM counters");
        assert_eq!(
            new.per_instr, old.per_instr,
            "{what}: per-instruction counters"
        );
        assert_eq!(new.timeline, old.timeline, "{what}: timeline");
        assert_eq!(new, old, "{what}");
    }
}

/// How the optimised side replays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Via {
    /// `replay::run` over an iterator.
    Run,
    /// `replay::run_trace` over a compiled `Trace`.
    Compiled,
}

/// Replays `trace` through `replay::run` or `replay::run_trace` in chunks and the reference
/// access by access, comparing the statistics after every chunk.
fn run_both(
    cfg: GpuConfig,
    trace: impl Iterator<Item = TraceAccess>,
    chunk: usize,
    via: Via,
    what: &str,
) -> Stats {
    let mut new = MemSystem::tags_only(one_l2(&cfg)).unwrap();
    let mut old = RefSystem::tags_only(one_l2(&cfg)).unwrap();
    let mut trace = trace.peekable();
    let mut part = Vec::with_capacity(chunk);
    let mut i = 0;
    while trace.peek().is_some() {
        part.clear();
        part.extend(trace.by_ref().take(chunk));
        let n = match via {
            Via::Run => replay::run(&mut new, part.iter().copied()).unwrap(),
            Via::Compiled => {
                let t: Trace = part.iter().copied().collect();
                assert!(
                    t.iter().eq(part.iter().copied()),
                    "{what}: Trace round trip"
                );
                replay::run_trace(&mut new, &t).unwrap()
            }
        };
        assert_eq!(n, part.len() as u64);
        for a in &part {
            old.access(&a.request, a.addr, a.bytes).unwrap();
        }
        assert_same_stats(&new.stats(), &old.stats(), &format!("{what}, chunk {i}"));
        i += 1;
    }
    assert_eq!(
        new.l2_max_evict_last_per_set(),
        old.l2_max_evict_last_per_set(),
        "{what}"
    );
    new.stats()
}

/// The benchmark trace: the whole 10 M accesses of the documented synthetic workload through
/// the A100 preset (what `cargo bench -p memsys --bench replay` times), compiled and replayed
/// with `run_trace` as the benchmark does, compared every 1 M.
#[test]
fn benchmark_trace_matches_the_reference() {
    let s = run_both(
        GpuConfig::a100(),
        replay::synthetic(1).take(10_000_000),
        1_000_000,
        Via::Compiled,
        "synthetic(1)",
    );
    // The mix really exercises what it claims to.
    let t = s.total();
    assert!(t.l2.evictions.evict_first > 0 && t.l2.evictions.normal > 0);
    assert!(
        t.l2.writebacks > 0
            && t.l2.fetch_fills + t.l2.prefetch_fills > 0
            && s.l2_occupancy.evict_last > 0
    );
    assert!(t.l1.evictions.evict_last > 0 && t.l1.read_hits > 0 && t.l1.write_hits > 0);
}

#[test]
fn other_documented_workloads_match_the_reference() {
    run_both(
        GpuConfig::h100(),
        replay::streaming().take(1_000_000),
        200_000,
        Via::Compiled,
        "streaming",
    );
    let s = run_both(
        GpuConfig::b200(),
        replay::l1_hits().take(200_000),
        50_000,
        Via::Run,
        "l1 hits",
    );
    // Each SM keeps reading the same 32 sectors: one cold miss each, then hits only.
    assert_eq!(s.total().l1.read_misses, 512);
    let mut small = GpuConfig::a100();
    small.l2.size_bytes = 1 << 20; // 1 MiB, 512 sets x 16: heavy L2 eviction
    small.persisting_l2_bytes = 1 << 18;
    let s = run_both(
        small,
        replay::synthetic(7).take(500_000),
        100_000,
        Via::Run,
        "synthetic(7), 1 MiB L2",
    );
    assert!(s.total().l2.evict_last_capped > 0);
}

// ------------------------------------------------------------------ random hint-heavy traces

/// Geometries covering every cache layout.
fn configs() -> Vec<(&'static str, GpuConfig)> {
    let mut v = Vec::new();
    let base = || {
        let mut c = GpuConfig::a100();
        c.sm_count = 3;
        c.timeline_interval = 13;
        c
    };
    // 2-way L1 (one padded block), 4-way L2, power-of-two modulo sets, carve-out of 2 ways.
    let mut c = base();
    c.l1.size_bytes = 4 * 2 * 128;
    c.l1.ways = 2;
    c.l2.size_bytes = 8 * 4 * 128;
    c.l2.ways = 4;
    c.l2.set_hash = SetHash::Modulo;
    c.persisting_l2_bytes = 2048;
    v.push(("tiny", c));
    // 3-way L1 with 5 sets, 12-way xor-folded L2 with 6 sets, carve-out of 7 ways.
    let mut c = base();
    c.l1.size_bytes = 5 * 3 * 128;
    c.l1.ways = 3;
    c.l2.size_bytes = 6 * 12 * 128;
    c.l2.ways = 12;
    c.persisting_l2_bytes = 6 * 7 * 128;
    v.push(("odd", c));
    // Wide: 17-way L1, 32-way L2 (byte-array recency), 4 KiB-aligned xor-fold, cap 31.
    let mut c = base();
    c.l1.size_bytes = 2 * 17 * 128;
    c.l1.ways = 17;
    c.l2.size_bytes = 4 * 32 * 128;
    c.l2.ways = 32;
    c.persisting_l2_bytes = 4 * 31 * 128;
    v.push(("wide", c));
    // 64-way L2, 1-way L1, 8 sectors of 32 B per 256 B line.
    let mut c = base();
    for l in [&mut c.l1, &mut c.l2] {
        l.line_bytes = 256;
        l.sector_bytes = 32;
    }
    c.l1.size_bytes = 8 * 256;
    c.l1.ways = 1;
    c.l2.size_bytes = 2 * 64 * 256;
    c.l2.ways = 64;
    c.persisting_l2_bytes = c.l2.size_bytes / 2;
    v.push(("64-way, 8 sectors", c));
    // 16-way L2 with one 64 B sector per line, 8-way L1; carve-out = whole L2 (no cap).
    let mut c = base();
    for l in [&mut c.l1, &mut c.l2] {
        l.line_bytes = 64;
        l.sector_bytes = 64;
    }
    c.l1.size_bytes = 4 * 8 * 64;
    c.l1.ways = 8;
    c.l2.size_bytes = 10 * 16 * 64;
    c.l2.ways = 16;
    c.persisting_l2_bytes = c.l2.size_bytes;
    v.push(("one sector, no cap", c));
    // No L1 at all, the persisting limit at the CUDA default of zero.
    let mut c = base();
    c.l1.size_bytes = 0;
    c.l2.size_bytes = 16 * 16 * 128;
    c.persisting_l2_bytes = 0;
    v.push(("no L1, no carve-out", c));
    v
}

/// What a random trace step does besides accesses.
#[derive(Debug, Clone, Copy)]
enum Step {
    Access(TraceAccess),
    InvalidateL1(u32),
    InvalidateAllL1,
    FlushL2,
}

struct Gen {
    rng: SplitMix64,
    sms: u32,
    ranges: Vec<u64>,
    /// Produce invalid accesses too (bad SM, size, space, operator, address overflow).
    faults: bool,
    /// Multi-sector accesses within one line (32, 64, 96 or 128 B on 32 B boundaries).
    sectors: bool,
}

impl Gen {
    fn below(&mut self, n: u64) -> u64 {
        self.rng.next_u64() % n
    }

    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }

    fn policy(&mut self) -> Option<u64> {
        match self.below(8) {
            0..=2 => None,
            3 => Some(self.pick(&[
                0x14F0_0000_0000_0000,
                0x12F0_0000_0000_0000,
                0x16F0_0000_0000_0000,
                0x10F0_0000_0000_0000,
            ])),
            4 => {
                // Fraction mode with any code, primary and secondary: the generator draws.
                let code = self.below(16);
                let primary = self.below(4);
                let secondary = self.below(2);
                Some((2 << 59) | (primary << 57) | (secondary << 56) | (code << 52))
            }
            5 if !self.ranges.is_empty() => Some(self.pick(&self.ranges.clone())),
            5 => Some(
                CachePolicy::range(
                    0x7f00_0000_4000,
                    4096,
                    16384,
                    TotalSizeOperand::Register,
                    L2EvictionPriority::Last,
                    L2EvictionPriority::First,
                )
                .unwrap(),
            ),
            6 => Some(self.rng.next_u64()),
            _ => {
                // Implicit mode with the L1-no-allocate and 256 B-promote bits.
                Some((self.below(4) << 61) | (self.below(4) << 57))
            }
        }
    }

    fn step(&mut self) -> Step {
        match self.below(400) {
            0 => return Step::InvalidateL1(self.below(u64::from(self.sms)) as u32),
            1 => return Step::InvalidateAllL1,
            2 => return Step::FlushL2,
            _ => {}
        }
        let kind = self.pick(&[
            AccessKind::Load,
            AccessKind::Load,
            AccessKind::Load,
            AccessKind::Store,
            AccessKind::Store,
            AccessKind::AsyncCopy,
            AccessKind::Prefetch,
            AccessKind::Atomic,
        ]);
        let operator = if kind == AccessKind::Store {
            self.pick(&[
                None,
                Some(CacheOperator::Wb),
                Some(CacheOperator::Cg),
                Some(CacheOperator::Cs),
                Some(CacheOperator::Wt),
            ])
        } else {
            self.pick(&[
                None,
                Some(CacheOperator::Ca),
                Some(CacheOperator::Ca),
                Some(CacheOperator::Cg),
                Some(CacheOperator::Cs),
                Some(CacheOperator::Lu),
                Some(CacheOperator::Cv),
            ])
        };
        let semantics = self.pick(&[
            Semantics::Weak,
            Semantics::Weak,
            Semantics::Weak,
            Semantics::Weak,
            Semantics::Volatile,
            Semantics::Relaxed,
            Semantics::Acquire,
            Semantics::Release,
            Semantics::Mmio,
        ]);
        let mut req = Request {
            sm: SmId(self.below(u64::from(self.sms)) as u32),
            kind,
            space: self.pick(&[
                Space::Global,
                Space::Global,
                Space::Global,
                Space::Global,
                Space::Local,
                Space::Const,
            ]),
            operator,
            semantics,
            scope: self.pick(&[Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys]),
            non_coherent: self.below(4) == 0,
            l1_priority: self.pick(&[
                None,
                None,
                Some(L1EvictionPriority::Normal),
                Some(L1EvictionPriority::Unchanged),
                Some(L1EvictionPriority::First),
                Some(L1EvictionPriority::Last),
                Some(L1EvictionPriority::Last),
                Some(L1EvictionPriority::NoAllocate),
            ]),
            l2_priority: self.pick(&[
                None,
                None,
                Some(L2EvictionPriority::Normal),
                Some(L2EvictionPriority::First),
                Some(L2EvictionPriority::Last),
                Some(L2EvictionPriority::Last),
                Some(L2EvictionPriority::Unchanged),
            ]),
            policy: self.policy(),
            prefetch: self.pick(&[
                None,
                None,
                Some(PrefetchSize::B64),
                Some(PrefetchSize::B128),
                Some(PrefetchSize::B256),
            ]),
            instr: InstrId(self.below(12) as u32),
            warp: self.below(8) as u32,
        };
        // Mostly a small hot region (hits, capping), sometimes a wide one (evictions).
        let region = if self.below(3) == 0 { 1 << 22 } else { 1 << 14 };
        let mut addr = 0x7f00_0000_0000 + self.below(region);
        let mut bytes = match self.below(6) {
            0 => 1 + self.below(128) as u32,
            1 => 32,
            _ => self.pick(&[1, 2, 4, 8, 16]),
        };
        if self.below(3) != 0 {
            addr &= !u64::from(bytes.next_power_of_two() - 1);
        }
        if self.sectors {
            bytes = self.pick(&[32, 64, 96, 128]);
            let first = self.below(u64::from(5 - bytes / 32));
            addr = (addr & !127) + 32 * first;
        }
        if !self.faults {
            if matches!(kind, AccessKind::Store | AccessKind::Atomic) && req.space == Space::Const {
                req.space = Space::Global;
            }
            // Local memory takes only loads and stores.
            if !matches!(kind, AccessKind::Load | AccessKind::Store) && req.space == Space::Local {
                req.space = Space::Global;
            }
        } else {
            match self.below(200) {
                0 => req.sm = SmId(self.sms + self.below(3) as u32),
                1 => bytes = self.pick(&[0, 129, 4096]),
                2 => addr = u64::MAX - self.below(64),
                3 => req.space = Space::Shared,
                4 => {
                    req.kind = AccessKind::Load;
                    req.operator = Some(CacheOperator::Wt);
                }
                5 => {
                    req.kind = AccessKind::Store;
                    req.operator = Some(CacheOperator::Lu);
                }
                _ => {}
            }
        }
        Step::Access(TraceAccess {
            request: req,
            addr,
            bytes,
        })
    }
}

fn gen(cfg: &GpuConfig, seed: u64, faults: bool) -> Gen {
    Gen {
        rng: SplitMix64::new(seed),
        sms: cfg.sm_count,
        ranges: Vec::new(),
        faults,
        sectors: false,
    }
}

/// Registers the same range policies on both systems (so "outside both ranges" is reachable).
fn register_ranges(new: &mut MemSystem, old: &mut RefSystem, g: &mut Gen) {
    for (base, primary, total, p, s) in RANGES {
        let reg = TotalSizeOperand::Register;
        let a = new
            .create_range_policy(base, primary, total, reg, p, s)
            .unwrap();
        let b = old
            .create_range_policy(base, primary, total, reg, p, s)
            .unwrap();
        assert_eq!(a, b);
        g.ranges.push(a);
    }
}

/// The range policies the random traces use: base, primary size, total size, primary and
/// secondary priorities.
const RANGES: [(u64, u32, u32, L2EvictionPriority, L2EvictionPriority); 3] = {
    use L2EvictionPriority::*;
    [
        (0x7f00_0000_1000u64, 4096u32, 8192u32, Last, First),
        (0x7f00_0000_2000, 2048, 2048, First, Unchanged),
        (0x7f00_0010_0000, 1 << 16, 1 << 18, Normal, First),
    ]
};

/// The next `n` accesses of `g` (its other steps left out).
fn accesses(g: &mut Gen, n: usize) -> Vec<TraceAccess> {
    std::iter::from_fn(|| Some(g.step()))
        .filter_map(|s| match s {
            Step::Access(a) => Some(a),
            _ => None,
        })
        .take(n)
        .collect()
}

/// One random trace, access by access: every outcome and error must match.
fn access_by_access(name: &str, cfg: &GpuConfig, seed: u64, steps: usize) {
    let mut new = MemSystem::tags_only(one_l2(cfg)).unwrap();
    let mut old = RefSystem::tags_only(one_l2(cfg)).unwrap();
    let mut g = gen(cfg, seed, true);
    register_ranges(&mut new, &mut old, &mut g);
    for i in 0..steps {
        match g.step() {
            Step::Access(a) => {
                let x = new.access(&a.request, a.addr, a.bytes);
                let y = old.access(&a.request, a.addr, a.bytes);
                assert_eq!(x, y, "{name} seed {seed} step {i}: {a:?}");
            }
            Step::InvalidateL1(sm) => {
                assert_eq!(new.invalidate_l1(sm), old.invalidate_l1(sm));
            }
            Step::InvalidateAllL1 => {
                new.invalidate_all_l1();
                old.invalidate_all_l1();
            }
            Step::FlushL2 => {
                new.flush_l2();
                old.flush_l2();
            }
        }
        if i % 5000 == 4999 {
            assert_same_stats(
                &new.stats(),
                &old.stats(),
                &format!("{name} seed {seed} step {i}"),
            );
        }
    }
    assert_same_stats(&new.stats(), &old.stats(), &format!("{name} seed {seed}"));
    assert_eq!(
        new.l2_max_evict_last_per_set(),
        old.l2_max_evict_last_per_set()
    );
}

#[test]
fn random_hint_heavy_traces_match_access_by_access() {
    for (name, cfg) in configs() {
        for seed in 1..=4 {
            access_by_access(name, &cfg, seed, 20_000);
        }
    }
}

/// The pipelined `replay::run` and `replay::run_trace` (which prefetch ahead, the latter from a
/// compiled trace) between host-side operations, against the reference.
#[test]
fn random_hint_heavy_traces_match_through_replay_run() {
    for (name, cfg) in configs() {
        for seed in 10..=12 {
            let mut new = MemSystem::tags_only(one_l2(&cfg)).unwrap();
            let mut old = RefSystem::tags_only(one_l2(&cfg)).unwrap();
            let mut g = gen(&cfg, seed, false);
            register_ranges(&mut new, &mut old, &mut g);
            let mut batch = Vec::new();
            let mut flushes = 0;
            let mut flush =
                |new: &mut MemSystem, old: &mut RefSystem, batch: &mut Vec<TraceAccess>| {
                    flushes += 1;
                    if flushes % 2 == 0 {
                        replay::run(new, batch.iter().copied()).unwrap();
                    } else {
                        replay::run_trace(new, &batch.iter().copied().collect()).unwrap();
                    }
                    for a in batch.iter() {
                        old.access(&a.request, a.addr, a.bytes).unwrap();
                    }
                    batch.clear();
                };
            for _ in 0..30_000 {
                match g.step() {
                    Step::Access(a) => batch.push(a),
                    Step::InvalidateL1(sm) => {
                        flush(&mut new, &mut old, &mut batch);
                        new.invalidate_l1(sm).unwrap();
                        old.invalidate_l1(sm).unwrap();
                    }
                    Step::InvalidateAllL1 => {
                        flush(&mut new, &mut old, &mut batch);
                        new.invalidate_all_l1();
                        old.invalidate_all_l1();
                    }
                    Step::FlushL2 => {
                        flush(&mut new, &mut old, &mut batch);
                        new.flush_l2();
                        old.flush_l2();
                    }
                }
            }
            flush(&mut new, &mut old, &mut batch);
            assert_same_stats(&new.stats(), &old.stats(), &format!("{name} seed {seed}"));
        }
    }
}

/// The compiled replay (`run_trace`, which performs planned accesses in its own loop) on
/// multi-sector accesses within lines (store hits on several sectors of an own L1 copy,
/// partial L2 hits, prefetch blocks), with and without the occupancy timeline, against the
/// reference access by access.
#[test]
fn compiled_replay_matches_on_multi_sector_accesses() {
    for (name, mut cfg) in configs() {
        for timeline in [0, 7] {
            cfg.timeline_interval = timeline;
            for seed in 20..=22 {
                let mut new = MemSystem::tags_only(one_l2(&cfg)).unwrap();
                let mut old = RefSystem::tags_only(one_l2(&cfg)).unwrap();
                let mut g = gen(&cfg, seed, false);
                g.sectors = true;
                register_ranges(&mut new, &mut old, &mut g);
                let trace = accesses(&mut g, 20_000);
                replay::run_trace(&mut new, &trace.iter().copied().collect()).unwrap();
                for a in &trace {
                    old.access(&a.request, a.addr, a.bytes).unwrap();
                }
                let what = format!("{name} timeline {timeline} seed {seed}");
                assert_same_stats(&new.stats(), &old.stats(), &what);
            }
        }
    }
}

/// A fault in the middle of a trace stops `replay::run` at the same access, with the same
/// error, after exactly the same work as the reference did before it (the pipeline looks
/// ahead, but must not count or create anything for accesses after the fault).
#[test]
fn replay_run_stops_at_the_same_fault() {
    let cfg = configs()[0].1.clone();
    let mut g = gen(&cfg, 99, false);
    let mut trace: Vec<TraceAccess> = Vec::new();
    while trace.len() < 1000 {
        if let Step::Access(a) = g.step() {
            trace.push(a);
        }
    }
    let at = |request: Request, addr: u64, bytes: u32| TraceAccess {
        request,
        addr,
        bytes,
    };
    let base = 0x7f00_0000_0000;
    let faults = [
        at(
            Request {
                sm: SmId(7),
                ..Request::default()
            },
            base,
            4,
        ),
        // Too large for a compact trace entry: kept whole.
        at(
            Request {
                sm: SmId(1 << 20),
                instr: InstrId(3),
                ..Request::default()
            },
            base,
            4,
        ),
        // Errors after the SM check grow per_instr first, as the original did.
        at(
            Request {
                space: Space::Shared,
                instr: InstrId(40),
                ..Request::default()
            },
            base,
            4,
        ),
        at(Request::load(1).with_instr(41), base, 0),
        at(Request::load(1).with_instr(42), base, 4096),
        at(Request::store(0).with_instr(43), u64::MAX - 2, 4),
    ];
    for (k, bad) in faults.into_iter().enumerate() {
        let mut t = trace.clone();
        // A high instruction id just after the fault: it must not grow per_instr.
        t[501].request.instr = InstrId(30 + k as u32);
        t[500] = bad;
        let mut new = MemSystem::tags_only(one_l2(&cfg)).unwrap();
        let mut compiled = MemSystem::tags_only(one_l2(&cfg)).unwrap();
        let mut old = RefSystem::tags_only(one_l2(&cfg)).unwrap();
        let err = replay::run(&mut new, t.iter().copied()).unwrap_err();
        let err2 = replay::run_trace(&mut compiled, &t.iter().copied().collect()).unwrap_err();
        assert_eq!(err, err2);
        assert_eq!(new.stats(), compiled.stats());
        let mut want = None;
        for (i, a) in t.iter().enumerate() {
            if let Err(e) = old.access(&a.request, a.addr, a.bytes) {
                want = Some(MemError::Replay {
                    index: i as u64,
                    source: Box::new(e),
                });
                break;
            }
        }
        assert_eq!(Some(err), want);
        assert_same_stats(&new.stats(), &old.stats(), "stopped at the fault");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// Any seed, any geometry of the list, a short trace: identical outcomes and statistics.
    #[test]
    fn any_seed_matches(seed in any::<u64>(), which in 0usize..6, steps in 1usize..3000) {
        let (name, cfg) = configs().swap_remove(which);
        access_by_access(name, &cfg, seed, steps);
    }
}

/// The compiled replay loop on a two-partition L2 (far reads looked up near, then at home
/// over the fabric and copied near; stores at home dropping the other partition's copy:
/// `src/system/partitions.rs`) against the checked path, `MemSystem::access` access by
/// access, which `partitions.rs` and `scenarios.rs` hold to the partition rules. Single- and
/// multi-sector accesses, with and without near copies, every cache layout of `configs()`.
#[test]
fn compiled_replay_matches_the_checked_path_on_two_partitions() {
    for (name, mut cfg) in configs() {
        cfg.l2_partitions = 2;
        for near_copies in [true, false] {
            cfg.l2_near_copies = near_copies;
            for seed in 30..=33 {
                let mut fast = MemSystem::tags_only(cfg.clone()).unwrap();
                let mut checked = MemSystem::tags_only(cfg.clone()).unwrap();
                let mut g = gen(&cfg, seed, false);
                g.sectors = seed % 2 == 0;
                for (base, primary, total, p, s) in RANGES {
                    let reg = TotalSizeOperand::Register;
                    let a = fast
                        .create_range_policy(base, primary, total, reg, p, s)
                        .unwrap();
                    let b = checked
                        .create_range_policy(base, primary, total, reg, p, s)
                        .unwrap();
                    assert_eq!(a, b);
                    g.ranges.push(a);
                }
                let trace = accesses(&mut g, 20_000);
                replay::run_trace(&mut fast, &trace.iter().copied().collect()).unwrap();
                for a in &trace {
                    checked.access(&a.request, a.addr, a.bytes).unwrap();
                }
                let what = format!("{name}, near copies {near_copies}, seed {seed}");
                assert_same_stats(&fast.stats(), &checked.stats(), &what);
                let t = fast.stats().total();
                if near_copies && seed == 30 {
                    // The trace really makes far reads, copies and coherence drops.
                    assert!(
                        t.l2.fabric_read_hits + t.l2.fabric_read_misses > 0,
                        "{what}"
                    );
                    assert!(t.l2.copy_allocations > 0, "{what}");
                }
            }
        }
    }
}
