//! Invariants over random request streams (proptest).

mod common;

use common::*;
use memsys::*;
use proptest::prelude::*;

/// One random step of a kernel's memory traffic.
#[derive(Debug, Clone)]
enum Step {
    Load {
        sm: u32,
        word: u64,
        lanes: u8,
        req: Request,
    },
    Store {
        sm: u32,
        word: u64,
        value: u32,
        req: Request,
    },
    Atomic {
        sm: u32,
        word: u64,
    },
    InvalidateL1 {
        sm: u32,
    },
}

/// Words of the 16 KiB test buffer (4x the tiny L2, so lines get evicted).
const WORDS: u64 = 4096;

fn policy() -> impl Strategy<Value = Option<u64>> {
    prop_oneof![
        Just(None),
        Just(Some(0x14F0_0000_0000_0000)),
        Just(Some(0x12F0_0000_0000_0000)),
        Just(Some(0x1570_0000_0000_0000)),
        Just(Some(0x16F0_0000_0000_0000 | (1 << 61) | (1 << 62))),
    ]
}

fn l1p() -> impl Strategy<Value = Option<L1EvictionPriority>> {
    prop_oneof![
        Just(None),
        Just(Some(L1EvictionPriority::Normal)),
        Just(Some(L1EvictionPriority::Unchanged)),
        Just(Some(L1EvictionPriority::First)),
        Just(Some(L1EvictionPriority::Last)),
        Just(Some(L1EvictionPriority::NoAllocate)),
    ]
}

fn l2p() -> impl Strategy<Value = Option<L2EvictionPriority>> {
    prop_oneof![
        Just(None),
        Just(Some(L2EvictionPriority::Normal)),
        Just(Some(L2EvictionPriority::First)),
        Just(Some(L2EvictionPriority::Last)),
    ]
}

fn prefetch() -> impl Strategy<Value = Option<PrefetchSize>> {
    prop_oneof![
        Just(None),
        Just(Some(PrefetchSize::B64)),
        Just(Some(PrefetchSize::B128)),
        Just(Some(PrefetchSize::B256)),
    ]
}

fn read_request() -> impl Strategy<Value = Request> {
    let op = prop_oneof![
        Just(None),
        Just(Some(CacheOperator::Ca)),
        Just(Some(CacheOperator::Cg)),
        Just(Some(CacheOperator::Cs)),
        Just(Some(CacheOperator::Lu)),
        Just(Some(CacheOperator::Cv)),
    ];
    let sem = prop_oneof![
        6 => Just(Semantics::Weak),
        1 => Just(Semantics::Volatile),
        1 => Just(Semantics::Relaxed),
        1 => Just(Semantics::Acquire),
        1 => Just(Semantics::Mmio),
    ];
    let kind = prop_oneof![Just(AccessKind::Load), Just(AccessKind::AsyncCopy)];
    (
        op,
        sem,
        kind,
        l1p(),
        l2p(),
        policy(),
        prefetch(),
        any::<bool>(),
        0u32..4,
    )
        .prop_map(
            |(operator, semantics, kind, l1_priority, l2_priority, policy, prefetch, nc, instr)| {
                Request {
                    kind,
                    operator,
                    semantics,
                    scope: if nc { Scope::Cta } else { Scope::Gpu },
                    non_coherent: nc,
                    l1_priority,
                    l2_priority,
                    policy,
                    prefetch,
                    instr: InstrId(instr),
                    ..Request::default()
                }
            },
        )
}

fn write_request() -> impl Strategy<Value = Request> {
    let op = prop_oneof![
        Just(None),
        Just(Some(CacheOperator::Wb)),
        Just(Some(CacheOperator::Cg)),
        Just(Some(CacheOperator::Cs)),
        Just(Some(CacheOperator::Wt)),
    ];
    let sem = prop_oneof![
        6 => Just(Semantics::Weak),
        1 => Just(Semantics::Volatile),
        1 => Just(Semantics::Release),
        1 => Just(Semantics::Mmio),
    ];
    (op, sem, l1p(), l2p(), policy(), 0u32..4).prop_map(
        |(operator, semantics, l1_priority, l2_priority, policy, instr)| Request {
            kind: AccessKind::Store,
            operator,
            semantics,
            l1_priority,
            l2_priority,
            policy,
            instr: InstrId(instr),
            ..Request::default()
        },
    )
}

fn step(sms: u32) -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (0..sms, 0..WORDS, 1u8..9, read_request())
            .prop_map(|(sm, word, lanes, req)| Step::Load { sm, word, lanes, req }),
        4 => (0..sms, 0..WORDS, any::<u32>(), write_request())
            .prop_map(|(sm, word, value, req)| Step::Store { sm, word, value, req }),
        1 => (0..sms, 0..WORDS).prop_map(|(sm, word)| Step::Atomic { sm, word }),
        1 => (0..sms).prop_map(|sm| Step::InvalidateL1 { sm }),
    ]
}

/// Runs the steps against memsys and a flat shadow of memory; checks every load lane: a lane
/// not flagged stale reads the shadow's value, a flagged lane reads something else.
/// Returns the memory system for further checks.
fn run(sms: u32, steps: &[Step]) -> Result<MemSystem, TestCaseError> {
    let mut cfg = tiny();
    cfg.sm_count = sms;
    cfg.timeline_interval = 7;
    let mut m = MemSystem::new(cfg).unwrap();
    let base = m.alloc(WORDS * 4, 1 << 16).unwrap();
    let mut shadow = vec![0u32; WORDS as usize];
    for s in steps {
        match s {
            Step::Load {
                sm,
                word,
                lanes,
                req,
            } => {
                let n = (*lanes as u64).min(WORDS - word);
                let lanes: Vec<LaneAccess> = (0..n)
                    .map(|i| LaneAccess::new(base + 4 * (word + i), 4))
                    .collect();
                let mut out = vec![0u8; lanes.len() * 4];
                let r = Request {
                    sm: SmId(*sm),
                    ..*req
                };
                let o = m.load(&r, &lanes, &mut out).unwrap();
                for i in 0..n as usize {
                    let got = u32::from_le_bytes(out[4 * i..4 * i + 4].try_into().unwrap());
                    let want = shadow[(word + i as u64) as usize];
                    if o.stale_lanes & (1 << i) == 0 {
                        prop_assert_eq!(got, want, "lane {} of {:?}", i, s);
                    } else {
                        prop_assert_ne!(got, want, "lane {} flagged stale but current", i);
                    }
                }
            }
            Step::Store {
                sm,
                word,
                value,
                req,
            } => {
                let r = Request {
                    sm: SmId(*sm),
                    ..*req
                };
                m.store(
                    &r,
                    &[LaneAccess::new(base + 4 * word, 4)],
                    &value.to_le_bytes(),
                )
                .unwrap();
                shadow[*word as usize] = *value;
            }
            Step::Atomic { sm, word } => {
                let r = Request {
                    sm: SmId(*sm),
                    kind: AccessKind::Atomic,
                    ..Request::default()
                };
                let mut inc = |_: usize, b: &mut [u8]| {
                    let v = u32::from_le_bytes(b.try_into().unwrap()).wrapping_add(1);
                    b.copy_from_slice(&v.to_le_bytes());
                };
                m.atomic(&r, &[LaneAccess::new(base + 4 * word, 4)], &mut inc)
                    .unwrap();
                shadow[*word as usize] = shadow[*word as usize].wrapping_add(1);
            }
            Step::InvalidateL1 { sm } => m.invalidate_l1(*sm).unwrap(),
        }
    }
    Ok(m)
}

fn check_counters(l: &LevelCounters) -> Result<(), TestCaseError> {
    prop_assert_eq!(l.read_sectors, l.read_hits + l.read_misses);
    prop_assert_eq!(l.write_sectors, l.write_hits + l.write_misses);
    prop_assert!(l.evictions.total() <= l.allocations);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// With one SM nothing is stale but the read-only path's copy: a sector an
    /// `ld.global.nc` may have filled keeps its old bytes after the SM's own store (H100,
    /// `fetch_probe.cu` `same_sm`). Without such a store every load returns the last value
    /// written (and `run` checks each lane: flagged lanes are exactly the non-current ones).
    #[test]
    fn one_sm_always_reads_the_latest_value(steps in prop::collection::vec(step(1), 1..300)) {
        let m = run(1, &steps)?;
        let sector = |word: u64| word * 4 / 32;
        let mut nc_read = std::collections::HashSet::new();
        let mut stored_after_nc = false;
        for s in &steps {
            match s {
                Step::Load { word, lanes, req, .. } if req.non_coherent => {
                    let n = (*lanes as u64).min(WORDS - word);
                    nc_read.extend((*word..word + n).map(sector));
                }
                Step::Store { word, .. } | Step::Atomic { word, .. } => {
                    stored_after_nc |= nc_read.contains(&sector(*word));
                }
                _ => {}
            }
        }
        if !stored_after_nc {
            prop_assert_eq!(m.stats().total().stale_reads, 0);
        }
    }

    /// With several SMs, a load lane returns the coherent value unless it is flagged stale.
    #[test]
    fn unflagged_lanes_read_the_coherent_value(steps in prop::collection::vec(step(2), 1..300)) {
        run(2, &steps)?;
    }

    /// Evict-last lines never exceed the carve-out; the counters add up.
    #[test]
    fn carve_out_and_counter_invariants(steps in prop::collection::vec(step(2), 1..400)) {
        let m = run(2, &steps)?;
        let cfg = m.config().clone();
        let cap = cfg.evict_last_ways();
        prop_assert!(m.l2_max_evict_last_per_set() <= cap);
        let [first, normal, last] = m.l2_occupancy();
        let sets = cfg.l2.sets();
        prop_assert!(last <= u64::from(cap) * sets);
        prop_assert!(first + normal + last <= cfg.l2.size_bytes / 128);
        let s = m.stats();
        let total = s.total();
        check_counters(&total.l1)?;
        check_counters(&total.l2)?;
        let mut by_instr = Counters::default();
        for c in &s.per_instr {
            check_counters(&c.l1)?;
            check_counters(&c.l2)?;
            by_instr += c;
        }
        prop_assert_eq!(by_instr, total);
        // Every DRAM byte read is a whole sector.
        prop_assert_eq!(total.dram.bytes_read % 32, 0);
        prop_assert!(total.dram.bytes_read >= 32 * (total.l2.sector_fills + total.l2.fetch_fills + total.l2.prefetch_fills));
        // The timeline was sampled every 7 requests.
        prop_assert_eq!(s.timeline.len() as u64, s.requests / 7);
        for t in &s.timeline {
            prop_assert!(t.evict_last <= u64::from(cap) * sets);
        }
    }

    /// Replaying the same stream twice (same seed) gives identical statistics.
    #[test]
    fn runs_are_deterministic(steps in prop::collection::vec(step(2), 1..200)) {
        let a = run(2, &steps)?.stats();
        let b = run(2, &steps)?.stats();
        prop_assert_eq!(a, b);
    }

    /// The fractional encoder agrees with its decoder and ptxas's `trunc(f * 15.99f)`.
    #[test]
    fn fractional_policy_round_trips(f in 0.0001f32..=1.0, last in any::<bool>(), sec_first in any::<bool>()) {
        let primary = if last { L2EvictionPriority::Last } else { L2EvictionPriority::First };
        let secondary = if sec_first { L2EvictionPriority::First } else { L2EvictionPriority::Unchanged };
        let v = CachePolicy::fractional(primary, secondary, f).unwrap();
        let p = CachePolicy::decode(v);
        prop_assert_eq!(p.mode, PolicyMode::Fraction);
        prop_assert_eq!((p.primary, p.secondary), (primary, secondary));
        prop_assert_eq!(u32::from(p.fraction_code), (f * 15.99f32) as u32);
        prop_assert_eq!(p.encode(), v);
    }

    /// A range policy's decoded blocks cover its primary range.
    #[test]
    fn range_policy_blocks_cover_the_primary_range(
        base in 0u64..(1 << 40), primary in 1u32..(1 << 24), extra in 0u32..(1 << 24)
    ) {
        let total = primary.saturating_add(extra);
        let v = CachePolicy::range(base, primary, total, TotalSizeOperand::Register, L2EvictionPriority::Last, L2EvictionPriority::First).unwrap();
        let p = CachePolicy::decode(v);
        prop_assert_eq!(p.mode, PolicyMode::Range);
        prop_assert_eq!(p.encode(), v);
        prop_assert!(p.in_primary_blocks(base));
        if p.block_count < 127 {
            prop_assert!(p.in_primary_blocks(base + u64::from(primary) - 1));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// The replay fast path (`access` on a tags-only system) counts exactly what the general
    /// warp path counts for the same single-lane requests.
    #[test]
    fn replay_path_counts_like_the_warp_path(steps in prop::collection::vec(step(2), 1..300)) {
        let mut cfg = tiny();
        cfg.timeline_interval = 5;
        let mut tags = MemSystem::tags_only(cfg.clone()).unwrap();
        let mut full = MemSystem::new(cfg).unwrap();
        let base = full.alloc(WORDS * 4, 1 << 16).unwrap();
        for s in &steps {
            let (req, word, bytes) = match s {
                Step::Load { sm, word, lanes, req } => {
                    (Request { sm: SmId(*sm), ..*req }, *word, 4 * u32::from(*lanes).min((WORDS - word) as u32))
                }
                Step::Store { sm, word, req, .. } => (Request { sm: SmId(*sm), ..*req }, *word, 4),
                Step::Atomic { sm, word } => {
                    (Request { sm: SmId(*sm), kind: AccessKind::Atomic, ..Request::default() }, *word, 4)
                }
                Step::InvalidateL1 { .. } => continue,
            };
            let a = tags.access(&req, base + 4 * word, bytes).unwrap();
            let b = full.access(&req, base + 4 * word, bytes).unwrap();
            prop_assert_eq!(a, b, "{:?}", s);
        }
        prop_assert_eq!(tags.stats(), full.stats());
    }
}
