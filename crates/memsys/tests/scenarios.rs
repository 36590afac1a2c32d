//! One scenario per rule of the model, with the expected counters worked out by hand.

mod common;

use common::*;
use memsys::*;

// ------------------------------------------------------------------ load cache operators

#[test]
fn ca_allocates_in_l1_and_l2_with_normal_priority() {
    let (mut m, base) = system(tiny());
    let x = line(base, 0);
    let (_, first) = load_u32(&mut m, &ld(0), x);
    // Cold: one sector misses in L1 and in L2, 32 B come from DRAM.
    assert_eq!(
        (
            first.l1_hits,
            first.l1_misses,
            first.l2_hits,
            first.l2_misses
        ),
        (0, 1, 0, 1)
    );
    assert_eq!(first.dram_sectors_read, 1);
    let (_, second) = load_u32(&mut m, &ld(0), x);
    assert_eq!(
        (
            second.l1_hits,
            second.l1_misses,
            second.l2_hits + second.l2_misses
        ),
        (1, 0, 0)
    );
    let t = total(&m);
    assert_eq!(
        (t.l1.read_sectors, t.l1.read_hits, t.l1.read_misses),
        (2, 1, 1)
    );
    assert_eq!(
        (t.l2.read_sectors, t.l2.read_misses, t.dram.bytes_read),
        (1, 1, 32)
    );
    assert_eq!(t.l1.allocations, 1);
    assert_eq!(m.l1_line(0, x).unwrap().class, EvictionClass::Normal);
    assert_eq!(m.l2_line(x).unwrap().class, EvictionClass::Normal);
    // Only the touched sector was filled.
    assert_eq!(m.l2_line(x).unwrap().valid_sectors, 0b0001);
}

#[test]
fn cg_load_bypasses_l1() {
    let (mut m, base) = system(tiny());
    let x = line(base, 0);
    load_u32(&mut m, &ld_op(0, CacheOperator::Cg), x);
    let (_, o) = load_u32(&mut m, &ld_op(0, CacheOperator::Cg), x);
    // Second .cg load: no L1 lookup, one L2 sector hit.
    assert_eq!(
        (o.l1_hits, o.l1_misses, o.l2_hits, o.l2_misses),
        (0, 0, 1, 0)
    );
    // It still passes L1's tag stage: Nsight counts each sector as an L1 lookup that
    // misses (H100: `pipeline_mbarrier`'s cp.async.cg, 64 L1 sectors, 0 hits).
    let t = total(&m);
    assert_eq!(
        (t.l1.requests, t.l1.read_sectors, t.l1.read_misses),
        (2, 2, 2)
    );
    assert_eq!((t.l1.allocations, t.l1.sector_fills), (0, 0));
    assert_eq!((t.l2.read_hits, t.l2.read_misses), (1, 1));
    assert!(m.l1_line(0, x).is_none());
}

#[test]
fn cs_and_lu_allocate_evict_first_in_l1_and_l2() {
    for op in [CacheOperator::Cs, CacheOperator::Lu] {
        let (mut m, base) = system(tiny());
        let x = line(base, 0);
        load_u32(&mut m, &ld_op(0, op), x);
        assert_eq!(
            m.l1_line(0, x).unwrap().class,
            EvictionClass::EvictFirst,
            "{op:?}"
        );
        assert_eq!(
            m.l2_line(x).unwrap().class,
            EvictionClass::EvictFirst,
            "{op:?}"
        );
    }
}

#[test]
fn cs_line_is_evicted_before_older_normal_lines() {
    let (mut m, base) = system(tiny());
    // L2 has 8 sets: lines 0, 8, 16, 24, 32 share set 0 (4 ways). Use .cg to keep L1 out.
    let cg = ld_op(0, CacheOperator::Cg);
    for i in [0, 8, 16] {
        load_u32(&mut m, &cg, line(base, i));
    }
    // Line 24 streamed with .cs (.cg cannot carry .cs, so this one also fills L1; irrelevant).
    load_u32(&mut m, &ld_op(0, CacheOperator::Cs), line(base, 24));
    // Line 32 needs a victim: line 24 is the most recently used but evict-first, so it goes.
    load_u32(&mut m, &cg, line(base, 32));
    assert!(m.l2_line(line(base, 24)).is_none());
    for i in [0, 8, 16, 32] {
        assert!(m.l2_line(line(base, i)).is_some(), "line {i}");
    }
    let e = total(&m).l2.evictions;
    assert_eq!((e.evict_first, e.normal, e.evict_last), (1, 0, 0));
}

#[test]
fn cv_invalidates_the_l2_line_and_fetches_again() {
    let (mut m, base) = system(tiny());
    let x = line(base, 0);
    load_u32(&mut m, &ld(0), x); // L1 + L2 hold sector 0
    let (_, o) = load_u32(&mut m, &ld_op(0, CacheOperator::Cv), x);
    // Never hits in L1 (no lookup), discards the L2 line (1 valid sector), refetches 32 B.
    assert_eq!(
        (
            o.l1_hits,
            o.l1_misses,
            o.l2_hits,
            o.l2_misses,
            o.dram_sectors_read
        ),
        (0, 0, 0, 1, 1)
    );
    let t = total(&m);
    assert_eq!(t.l2.invalidations, 1);
    assert_eq!(t.dram.bytes_read, 64);
    assert!(m.l2_line(x).is_none(), ".cv does not keep the line");
    // A dirty line is written back before it is discarded.
    store_u32(&mut m, &st_op(0, CacheOperator::Cg), x, 7);
    let (v, o) = load_u32(&mut m, &ld_op(0, CacheOperator::Cv), x);
    assert_eq!(v, 7);
    assert_eq!(o.dram_sectors_written, 1);
    assert_eq!(total(&m).l2.writebacks, 1);
}

#[test]
fn nc_load_goes_through_the_read_only_l1_path() {
    let (mut m, base) = system(tiny());
    let x = line(base, 1);
    let nc = Request {
        non_coherent: true,
        ..ld(0)
    };
    load_u32(&mut m, &nc, x);
    let (_, o) = load_u32(&mut m, &nc, x);
    assert_eq!(o.l1_hits, 1);
    // `.cg` does not take it off the read-only path: ptxas emits `ld.global.cg.nc` as the same
    // LDG.E.CONSTANT as `ld.global.nc` (sm_75/80/90), and the H100 hits L1 on it.
    let nc_cg = Request {
        non_coherent: true,
        ..ld_op(1, CacheOperator::Cg)
    };
    load_u32(&mut m, &nc_cg, line(base, 2));
    assert!(m.l1_line(1, line(base, 2)).is_some());
    let (_, o) = load_u32(&mut m, &nc_cg, line(base, 2));
    assert_eq!(o.l1_hits, 1);
    // A plain `ld.global.cg` stays at L2 only.
    load_u32(&mut m, &ld_op(1, CacheOperator::Cg), line(base, 3));
    assert!(m.l1_line(1, line(base, 3)).is_none());
}

/// Prefetches leave nothing in L1 (H100, `ld_forms.prefetch_forms`: the load after
/// `prefetch.global.L1` of its own address hits 0 of 13 L1 sectors; the prefetches are no L1
/// global-load lookups) and fill L2.
#[test]
fn prefetches_fill_l2_and_not_l1() {
    let (mut m, base) = system(tiny());
    let x = line(base, 4);
    for op in [CacheOperator::Ca, CacheOperator::Cg] {
        let pf = Request {
            kind: AccessKind::Prefetch,
            ..ld_op(0, op)
        };
        m.load(&pf, &[LaneAccess::new(x, 128)], &mut []).unwrap();
        assert!(m.l1_line(0, x).is_none(), "{op:?}");
        assert_eq!(m.l2_line(x).unwrap().valid_sectors, 0b1111, "{op:?}");
    }
    assert_eq!(total(&m).l1.read_sectors, 0);
    let (_, o) = load_u32(&mut m, &ld(0), x);
    assert_eq!((o.l1_hits, o.l2_hits), (0, 1));
}

/// A prefetch asks for the whole line of its address even where the allocation ends inside
/// the line (H100, `ld_forms.prefetch_forms`: the fourth warp's prefetches of a 400-byte
/// buffer's last line, 16 bytes of it used, count 4 sectors like the others: 112 = 4 warps x
/// 7 forms x 4): only the line's start must be mapped. A line outside every allocation is
/// still a fault (the interpreter drops such a prefetch); a load of the same line is too.
#[test]
fn a_prefetch_of_a_partly_allocated_line_fetches_the_whole_line() {
    let mut m = MemSystem::new(tiny()).expect("valid config");
    let buf = m.alloc(400, 256).expect("alloc");
    let last = buf + 3 * 128;
    let pf = Request {
        kind: AccessKind::Prefetch,
        ..ld_op(0, CacheOperator::Cg)
    };
    m.load(&pf, &[LaneAccess::new(last, 128)], &mut []).unwrap();
    assert_eq!(m.l2_line(last).unwrap().valid_sectors, 0b1111);
    assert_eq!(total(&m).l2.read_sectors, 4);
    let mut out = [0u8; 128];
    assert!(matches!(
        m.load(&ld(0), &[LaneAccess::new(last, 128)], &mut out),
        Err(MemError::Unmapped { .. })
    ));
    let beyond = buf + 64 * 1024;
    assert!(matches!(
        m.load(&pf, &[LaneAccess::new(beyond, 128)], &mut []),
        Err(MemError::Unmapped { .. })
    ));
}

/// A warp's atomic on one line is performed in passes, one operation per address per pass
/// (H100: `atomics64`, 32 lanes on one address: 32 red sectors per instruction; see
/// `atomic_passes`): 32 lanes on one word count 32 L2 sectors, the first a miss; 32 lanes on
/// 8 words of one sector 4; 32 lanes on 32 words 1 per sector touched.
#[test]
fn a_warps_atomic_counts_one_pass_per_lane_on_the_same_address() {
    let atom = Request {
        kind: AccessKind::Atomic,
        ..ld(0)
    };
    let mut nop = |_: usize, _: &mut [u8]| {};
    for (words, sectors, passes) in [(1u64, 1u64, 32u64), (8, 1, 4), (32, 4, 1)] {
        let (mut m, base) = system(tiny());
        let lanes: Vec<LaneAccess> = (0..32)
            .map(|i| LaneAccess::new(base + 4 * (i % words), 4))
            .collect();
        let o = m.atomic(&atom, &lanes, &mut nop).unwrap();
        let c = total(&m).l2;
        assert_eq!(c.read_sectors, sectors * passes, "{words} words");
        assert_eq!(
            c.read_misses, sectors,
            "{words} words: the first pass misses"
        );
        assert_eq!(
            u64::from(o.l2_hits),
            sectors * (passes - 1),
            "{words} words"
        );
    }
}

// ------------------------------------------------------------------ stores

#[test]
fn wb_store_dirties_l2_and_writes_back_on_eviction() {
    let (mut m, base) = system(tiny());
    let o = store_u32(&mut m, &st(0), line(base, 0), 1);
    // Write miss allocates without reading DRAM (byte-masked partial sector write).
    assert_eq!(
        (o.l2_misses, o.dram_sectors_read, o.dram_sectors_written),
        (1, 0, 0)
    );
    assert_eq!(m.l2_line(line(base, 0)).unwrap().dirty_sectors, 0b0001);
    // Four more lines of set 0 push line 0 out (it is the LRU normal line): 1 dirty sector.
    let cg = ld_op(0, CacheOperator::Cg);
    for i in [8, 16, 24, 32] {
        load_u32(&mut m, &cg, line(base, i));
    }
    assert!(m.l2_line(line(base, 0)).is_none());
    let t = total(&m);
    assert_eq!((t.l2.writebacks, t.dram.bytes_written), (1, 32));
    assert_eq!((t.l2.write_sectors, t.l2.write_misses), (1, 1));
}

#[test]
fn wb_store_updates_own_l1_copy() {
    let (mut m, base) = system(tiny());
    let x = line(base, 3);
    load_u32(&mut m, &ld(0), x);
    store_u32(&mut m, &st(0), x, 0xABCD);
    let (v, o) = load_u32(&mut m, &ld(0), x);
    assert_eq!((v, o.l1_hits, o.stale_lanes), (0xABCD, 1, 0));
    assert_eq!(total(&m).l1.write_hits, 1);
}

#[test]
fn cg_store_drops_own_l1_copy() {
    let (mut m, base) = system(tiny());
    let x = line(base, 3);
    load_u32(&mut m, &ld(0), x);
    store_u32(&mut m, &st_op(0, CacheOperator::Cg), x, 5);
    assert!(
        m.l1_line(0, x).is_none(),
        "the only valid sector was dropped"
    );
    let (v, o) = load_u32(&mut m, &ld(0), x);
    assert_eq!((v, o.l1_hits, o.l1_misses, o.l2_hits), (5, 0, 1, 1));
    assert_eq!(total(&m).l1.invalidations, 1);
}

#[test]
fn cs_store_allocates_evict_first() {
    let (mut m, base) = system(tiny());
    store_u32(&mut m, &st_op(0, CacheOperator::Cs), line(base, 0), 1);
    assert_eq!(
        m.l2_line(line(base, 0)).unwrap().class,
        EvictionClass::EvictFirst
    );
}

#[test]
fn wt_store_writes_through_to_dram() {
    let (mut m, base) = system(tiny());
    let o = store_u32(&mut m, &st_op(0, CacheOperator::Wt), line(base, 0), 1);
    assert_eq!(o.dram_sectors_written, 1);
    let l = m.l2_line(line(base, 0)).unwrap();
    assert_eq!((l.valid_sectors, l.dirty_sectors), (1, 0));
    assert_eq!(total(&m).dram.bytes_written, 32);
}

#[test]
fn mmio_is_never_cached() {
    let (mut m, base) = system(tiny());
    let x = line(base, 0);
    let mmio_ld = Request {
        semantics: Semantics::Mmio,
        scope: Scope::Sys,
        ..ld(0)
    };
    let mmio_st = Request {
        semantics: Semantics::Mmio,
        scope: Scope::Sys,
        ..st(0)
    };
    store_u32(&mut m, &mmio_st, x, 9);
    let (v, o) = load_u32(&mut m, &mmio_ld, x);
    assert_eq!((v, o.dram_sectors_read), (9, 1));
    assert!(m.l2_line(x).is_none() && m.l1_line(0, x).is_none());
    let t = total(&m);
    // The write passes L2 (counted, a lookup hit, nothing kept); the read hits no cache but
    // passes L1's tag stage as a lookup that misses.
    assert_eq!((t.l2.read_sectors, t.l2.write_sectors), (0, 1));
    assert_eq!((t.l2.lookup_hits(), t.l2.lookup_misses()), (1, 0));
    assert_eq!((t.l1.read_sectors, t.l1.read_misses), (1, 1));
    assert_eq!((t.dram.bytes_read, t.dram.bytes_written), (32, 32));
}

#[test]
fn mmio_lanes_are_never_combined() {
    // A warp storing one word per lane to one line: a weak store is one 4-sector write, an
    // mmio store 32 one-sector writes (PTX ISA 8.4.1; H100 `st_forms.st_global_forms`:
    // 282 L2 write sectors where the kernel's 25 other warp-wide stores make 200). Loads
    // likewise look L1 up once per lane (`ld_forms.ld_global_forms`: +32 L1 sectors a warp).
    let mmio = |r: Request| Request {
        semantics: Semantics::Mmio,
        scope: Scope::Sys,
        ..r
    };
    let (mut m, base) = system(granular());
    let lanes: Vec<_> = (0..32)
        .map(|i| LaneAccess::new(line(base, 0) + 4 * i, 4))
        .collect();
    let bytes = vec![7u8; 128];
    m.store(&st(0), &lanes, &bytes).unwrap();
    assert_eq!(total(&m).l2.write_sectors, 4);
    let other: Vec<_> = (0..32)
        .map(|i| LaneAccess::new(line(base, 1) + 4 * i, 4))
        .collect();
    m.store(&mmio(st(0)), &other, &bytes).unwrap();
    let t = total(&m);
    assert_eq!((t.l2.write_sectors, t.l2.requests), (4 + 32, 2));
    assert_eq!(t.dram.bytes_written, 32 * 32);
    // The same mmio store again: nothing merges with the writes before it either.
    m.store(&mmio(st(0)), &other, &bytes).unwrap();
    assert_eq!(total(&m).l2.write_sectors, 4 + 64);
    let mut out = vec![0u8; 128];
    m.load(&mmio(ld(0)), &other, &mut out).unwrap();
    assert_eq!(out, bytes);
    let t = total(&m);
    assert_eq!((t.l1.read_sectors, t.l1.read_misses), (32, 32));
    assert_eq!((t.l2.read_sectors, t.dram.bytes_read), (0, 32 * 32));
    // A lane whose bytes span two sectors is one access of both.
    let wide = [LaneAccess::new(line(base, 2) + 16, 32)];
    m.store(&mmio(st(0)), &wide, &[1u8; 32]).unwrap();
    assert_eq!(total(&m).l2.write_sectors, 4 + 64 + 2);
}

#[test]
fn coherent_semantics_go_to_l2() {
    for sem in [Semantics::Volatile, Semantics::Relaxed, Semantics::Acquire] {
        let (mut m, base) = system(tiny());
        let x = line(base, 0);
        let r = Request {
            semantics: sem,
            ..ld(0)
        };
        load_u32(&mut m, &r, x);
        let (_, o) = load_u32(&mut m, &r, x);
        assert_eq!((o.l1_hits, o.l1_misses, o.l2_hits), (0, 0, 1), "{sem:?}");
        assert!(m.l1_line(0, x).is_none(), "{sem:?}");
    }
    // At .cta scope the SM's L1 is coherent for the CTA and is used.
    let (mut m, base) = system(tiny());
    let r = Request {
        semantics: Semantics::Relaxed,
        scope: Scope::Cta,
        ..ld(0)
    };
    load_u32(&mut m, &r, line(base, 0));
    assert_eq!(load_u32(&mut m, &r, line(base, 0)).1.l1_hits, 1);
}

#[test]
fn acquire_invalidates_the_sms_l1() {
    let (mut m, base) = system(tiny());
    load_u32(&mut m, &ld(0), line(base, 1));
    load_u32(&mut m, &ld(0), line(base, 2));
    let acq = Request {
        semantics: Semantics::Acquire,
        scope: Scope::Gpu,
        ..ld(0)
    };
    load_u32(&mut m, &acq, line(base, 9));
    assert!(m.l1_line(0, line(base, 1)).is_none() && m.l1_line(0, line(base, 2)).is_none());
    assert_eq!(total(&m).l1.invalidations, 2);
}

#[test]
fn atomics_act_at_l2_and_drop_own_l1_copy() {
    let (mut m, base) = system(tiny());
    let x = line(base, 0);
    load_u32(&mut m, &ld(0), x);
    load_u32(&mut m, &ld(1), x);
    let atom = Request {
        kind: AccessKind::Atomic,
        ..ld(0)
    };
    let mut add = |_: usize, b: &mut [u8]| {
        let v = u32::from_le_bytes(b.try_into().unwrap()) + 5;
        b.copy_from_slice(&v.to_le_bytes());
    };
    let o = m.atomic(&atom, &[LaneAccess::new(x, 4)], &mut add).unwrap();
    assert_eq!(o.l2_hits, 1);
    assert_eq!(m.l2_line(x).unwrap().dirty_sectors, 1);
    assert_eq!(load_u32(&mut m, &ld(0), x).0, 5, "own L1 copy was dropped");
    let (v, o) = load_u32(&mut m, &ld(1), x);
    assert_eq!((v, o.stale_lanes), (0, 1), "SM 1 still hits its old copy");
}

// ------------------------------------------------------------------ priorities

#[test]
fn victims_go_evict_first_then_normal_then_evict_last_lru_within_class() {
    let (mut m, base) = system(tiny());
    let with = |p: L2EvictionPriority| Request {
        l2_priority: Some(p),
        ..ld_op(0, CacheOperator::Cg)
    };
    // Set 0 in order: A(8) last, B(16) normal, C(24) first, D(32) normal.
    load_u32(&mut m, &with(L2EvictionPriority::Last), line(base, 8));
    load_u32(&mut m, &with(L2EvictionPriority::Normal), line(base, 16));
    load_u32(&mut m, &with(L2EvictionPriority::First), line(base, 24));
    load_u32(&mut m, &with(L2EvictionPriority::Normal), line(base, 32));
    let cg = ld_op(0, CacheOperator::Cg);
    let resident = |m: &MemSystem, i: u64| m.l2_line(line(base, i)).is_some();
    load_u32(&mut m, &cg, line(base, 40)); // evicts C, the only evict-first line
    assert!(!resident(&m, 24) && resident(&m, 8));
    load_u32(&mut m, &cg, line(base, 48)); // evicts B, the LRU normal line (A is older but last)
    assert!(!resident(&m, 16) && resident(&m, 8));
    load_u32(&mut m, &cg, line(base, 56)); // evicts D
    load_u32(&mut m, &cg, line(base, 64)); // evicts 40 (normal LRU), never A
    assert!(!resident(&m, 32) && !resident(&m, 40) && resident(&m, 8));
    let e = total(&m).l2.evictions;
    assert_eq!((e.evict_first, e.normal, e.evict_last), (1, 3, 0));
}

#[test]
fn evict_last_occupancy_is_capped_by_the_carve_out() {
    let (mut m, base) = system(tiny());
    // Carve-out 2 KiB of 4 KiB with 4 ways: 2 evict-last ways per set.
    let last = Request {
        l2_priority: Some(L2EvictionPriority::Last),
        ..ld_op(0, CacheOperator::Cg)
    };
    for i in [0, 8, 16] {
        load_u32(&mut m, &last, line(base, i));
    }
    // The set-aside keeps the most recently used evict-last lines (CUDA Programming Guide,
    // "L2 Access Management"): line 0, the least recent, became normal for line 16, and stays.
    let class = |m: &MemSystem, i| m.l2_line(line(base, i)).unwrap().class;
    assert_eq!(class(&m, 0), EvictionClass::Normal);
    assert_eq!(class(&m, 8), EvictionClass::EvictLast);
    assert_eq!(class(&m, 16), EvictionClass::EvictLast);
    assert_eq!(total(&m).l2.evict_last_capped, 1);
    assert_eq!(m.l2_max_evict_last_per_set(), 2);
    // A hit with the hint on the demoted line takes the set-aside back: line 8 is now the
    // least recent evict-last line.
    load_u32(&mut m, &last, line(base, 0));
    assert_eq!(class(&m, 0), EvictionClass::EvictLast);
    assert_eq!(class(&m, 8), EvictionClass::Normal);
    assert_eq!(total(&m).l2.evict_last_capped, 2);
    // No set-aside (a fresh CUDA context): still one evict-last way per set, as the H100
    // keeps L2/16 of an evict-last working set at limit 0 (GpuConfig::evict_last_ways).
    let mut cfg = tiny();
    cfg.persisting_l2_bytes = 0;
    let (mut m, base) = system(cfg);
    load_u32(&mut m, &last, line(base, 0));
    load_u32(&mut m, &last, line(base, 8));
    assert_eq!(
        m.l2_line(line(base, 0)).unwrap().class,
        EvictionClass::Normal
    );
    assert_eq!(
        m.l2_line(line(base, 8)).unwrap().class,
        EvictionClass::EvictLast
    );
    // A set-aside that is not a whole number of ways rounds up: 1 KiB + 1 B of 4 KiB = 1.001
    // ways -> 2.
    let mut cfg = tiny();
    cfg.persisting_l2_bytes = 1025;
    assert_eq!(cfg.evict_last_ways(), 2);
    cfg.persisting_l2_bytes = 1024;
    assert_eq!(cfg.evict_last_ways(), 1);
    cfg.persisting_l2_bytes = 4096;
    assert_eq!(cfg.evict_last_ways(), 4);
}

#[test]
fn l1_evict_unchanged_keeps_a_resident_lines_priority() {
    let (mut m, base) = system(tiny());
    let with = |p: L1EvictionPriority| Request {
        l1_priority: Some(p),
        ..ld(0)
    };
    let x = line(base, 0);
    load_u32(&mut m, &with(L1EvictionPriority::Last), x);
    load_u32(&mut m, &with(L1EvictionPriority::Unchanged), x);
    assert_eq!(m.l1_line(0, x).unwrap().class, EvictionClass::EvictLast);
    // On allocation evict_unchanged means normal.
    load_u32(&mut m, &with(L1EvictionPriority::Unchanged), line(base, 1));
    assert_eq!(
        m.l1_line(0, line(base, 1)).unwrap().class,
        EvictionClass::Normal
    );
    // evict_normal demotes; evict_first sets first.
    load_u32(&mut m, &with(L1EvictionPriority::Normal), x);
    assert_eq!(m.l1_line(0, x).unwrap().class, EvictionClass::Normal);
    load_u32(&mut m, &with(L1EvictionPriority::First), x);
    assert_eq!(m.l1_line(0, x).unwrap().class, EvictionClass::EvictFirst);
}

#[test]
fn l1_no_allocate_does_not_fill_l1_but_still_hits() {
    let (mut m, base) = system(tiny());
    let na = Request {
        l1_priority: Some(L1EvictionPriority::NoAllocate),
        ..ld(0)
    };
    load_u32(&mut m, &na, line(base, 0));
    assert!(m.l1_line(0, line(base, 0)).is_none());
    assert!(m.l2_line(line(base, 0)).is_some());
    let (_, o) = load_u32(&mut m, &na, line(base, 0));
    assert_eq!((o.l1_misses, o.l2_hits), (1, 1));
    load_u32(&mut m, &ld(0), line(base, 1));
    assert_eq!(load_u32(&mut m, &na, line(base, 1)).1.l1_hits, 1);
    assert_eq!(total(&m).l1.allocations, 1);
}

#[test]
fn l2_evict_normal_demotes_an_evict_last_line() {
    let (mut m, base) = system(tiny());
    let with = |p| Request {
        l2_priority: Some(p),
        ..ld_op(0, CacheOperator::Cg)
    };
    load_u32(&mut m, &with(L2EvictionPriority::Last), line(base, 0));
    assert_eq!(
        m.l2_line(line(base, 0)).unwrap().class,
        EvictionClass::EvictLast
    );
    // A plain access keeps it (no qualifier = unchanged on a hit).
    load_u32(&mut m, &ld_op(0, CacheOperator::Cg), line(base, 0));
    assert_eq!(
        m.l2_line(line(base, 0)).unwrap().class,
        EvictionClass::EvictLast
    );
    load_u32(&mut m, &with(L2EvictionPriority::Normal), line(base, 0));
    assert_eq!(
        m.l2_line(line(base, 0)).unwrap().class,
        EvictionClass::Normal
    );
}

/// The example: a cyclic scan over twice the L2, where the first quarter of the data
/// is loaded evict_last, twice.
///
/// L2 = 8 sets x 4 ways = 32 lines; the scan covers 64 lines, one 32 B sector each (`.cg`, so
/// L1 plays no part); the carve-out is half the L2 (2 evict-last ways per set).
/// Quarter = lines 0..16: with modulo indexing each set gets 2 of them, exactly its cap.
/// Pass 1: 64 misses. In each set the 2 evict-last lines stay; the other 6 normal lines of the
/// set cycle through the 2 remaining ways (each evicts the LRU normal line).
/// Pass 2: the 16 evict-last lines hit; the 48 normal lines miss (a cyclic scan of 6 lines
/// through 2 LRU ways never hits). Hits = 16, misses = 64 + 48 = 112.
/// Without hints pass 2 is a cyclic scan of 8 lines per set through 4 LRU ways: 0 hits.
#[test]
fn evict_last_quarter_survives_a_cyclic_scan_of_twice_the_l2() {
    let run = |hinted: bool| {
        let mut cfg = tiny();
        cfg.persisting_l2_bytes = 2048;
        let (mut m, base) = system(cfg);
        for _pass in 0..2 {
            for i in 0..64u64 {
                let mut r = ld_op(0, CacheOperator::Cg);
                if hinted && i < 16 {
                    r.l2_priority = Some(L2EvictionPriority::Last);
                }
                load_u32(&mut m, &r, line(base, i));
            }
        }
        total(&m).l2
    };
    let hinted = run(true);
    assert_eq!((hinted.read_hits, hinted.read_misses), (16, 112));
    assert_eq!(hinted.evictions.evict_last, 0);
    let plain = run(false);
    assert_eq!((plain.read_hits, plain.read_misses), (0, 128));
}

/// CUDA's persisting-L2 note (REFERENCE.md): streaming writes of twice the L2 size do not evict
/// persisting lines. 16 evict-last lines, then 64 `.cs` stores: all 16 still resident.
#[test]
fn streaming_stores_do_not_evict_persisting_lines() {
    let (mut m, base) = system(tiny());
    let last = Request {
        l2_priority: Some(L2EvictionPriority::Last),
        ..ld_op(0, CacheOperator::Cg)
    };
    for i in 0..16 {
        load_u32(&mut m, &last, line(base, i));
    }
    for i in 16..80 {
        store_u32(&mut m, &st_op(0, CacheOperator::Cs), line(base, i), 1);
    }
    for i in 0..16 {
        assert_eq!(
            m.l2_line(line(base, i)).unwrap().class,
            EvictionClass::EvictLast,
            "line {i}"
        );
    }
    assert_eq!(total(&m).l2.evictions.evict_last, 0);
}

// ------------------------------------------------------------------ cache policies

#[test]
fn fraction_policy_one_gives_the_primary_priority() {
    let (mut m, base) = system(tiny());
    let p = CachePolicy::fractional(L2EvictionPriority::Last, L2EvictionPriority::Unchanged, 1.0)
        .unwrap();
    assert_eq!(p, 0x14F0_0000_0000_0000);
    let r = Request {
        policy: Some(p),
        ..ld_op(0, CacheOperator::Cg)
    };
    load_u32(&mut m, &r, line(base, 0));
    assert_eq!(
        m.l2_line(line(base, 0)).unwrap().class,
        EvictionClass::EvictLast
    );
    let first = Request {
        policy: Some(0x12F0_0000_0000_0000),
        ..ld_op(0, CacheOperator::Cg)
    };
    load_u32(&mut m, &first, line(base, 1));
    assert_eq!(
        m.l2_line(line(base, 1)).unwrap().class,
        EvictionClass::EvictFirst
    );
}

#[test]
fn fraction_policy_draws_from_the_seeded_generator() {
    // fraction 0.5 (code 7 -> 8/16), primary evict_first, secondary unchanged (normal on
    // allocation), over 4000 distinct lines of a large L2 (no evictions).
    let classes = |seed: u64| {
        let mut cfg = GpuConfig::a100();
        cfg.seed = seed;
        let (mut m, base) = system(cfg);
        let p = CachePolicy::fractional(
            L2EvictionPriority::First,
            L2EvictionPriority::Unchanged,
            0.5,
        )
        .unwrap();
        let r = Request {
            policy: Some(p),
            ..ld_op(0, CacheOperator::Cg)
        };
        (0..4000)
            .map(|i| {
                load_u32(&mut m, &r, line(base, i));
                m.l2_line(line(base, i)).unwrap().class == EvictionClass::EvictFirst
            })
            .collect::<Vec<bool>>()
    };
    let a = classes(1);
    let first = a.iter().filter(|&&f| f).count();
    // Binomial(4000, 0.5): mean 2000, sd ~31.6; 6 sd = 190.
    assert!(
        (1810..=2190).contains(&first),
        "{first} of 4000 evict-first"
    );
    assert_eq!(a, classes(1), "same seed, same draws");
    assert_ne!(a, classes(2), "another seed, other draws");
}

#[test]
fn range_policy_primary_secondary_and_unchanged_outside() {
    let (mut m, base) = system(tiny());
    // Primary [base+16K, +4K); total 12K: trailing secondary [+20K, +28K), preceding [+8K, +16K).
    let a = base + 16 * 1024;
    let p = m
        .create_range_policy(
            a,
            4096,
            12 * 1024,
            TotalSizeOperand::Register,
            L2EvictionPriority::Last,
            L2EvictionPriority::First,
        )
        .unwrap();
    assert_eq!(
        p,
        CachePolicy::range(
            a,
            4096,
            12 * 1024,
            TotalSizeOperand::Register,
            L2EvictionPriority::Last,
            L2EvictionPriority::First
        )
        .unwrap()
    );
    let r = Request {
        policy: Some(p),
        ..ld_op(0, CacheOperator::Cg)
    };
    let class_at = |m: &mut MemSystem, addr: u64| {
        load_u32(m, &r, addr);
        m.l2_line(addr).unwrap().class
    };
    assert_eq!(class_at(&mut m, a), EvictionClass::EvictLast);
    assert_eq!(
        class_at(&mut m, a + 4096 + 128 * 3),
        EvictionClass::EvictFirst
    );
    assert_eq!(
        class_at(&mut m, a - 8 * 1024 + 128),
        EvictionClass::EvictFirst
    );
    // Outside both ranges: unchanged, i.e. normal on allocation.
    assert_eq!(
        class_at(&mut m, a + 12 * 1024 + 128 * 5),
        EvictionClass::Normal
    );
    assert_eq!(class_at(&mut m, base + 128 * 6), EvictionClass::Normal);
}

#[test]
fn policy_bits_61_and_62_are_honoured() {
    let (mut m, base) = system(tiny());
    // Fraction 1.0 evict_normal with L1 no-allocate (bit 61) and 256 B promotion (bit 62).
    let p = 0x16F0_0000_0000_0000u64 | (1 << 61) | (1 << 62);
    let r = Request {
        policy: Some(p),
        ..ld(0)
    };
    load_u32(&mut m, &r, line(base, 0));
    assert!(m.l1_line(0, line(base, 0)).is_none());
    assert_eq!(m.l2_line(line(base, 0)).unwrap().valid_sectors, 0b1111);
    assert_eq!(m.l2_line(line(base, 1)).unwrap().valid_sectors, 0b1111);
}

// ------------------------------------------------------------------ fetch granularity

#[test]
fn a_one_sector_miss_fetches_its_64_byte_granule_and_nsight_counts_two_misses() {
    // H100 (`l2/fetch_granularity.csv`, s128): one 4-byte load per 128-byte line reads 64 B
    // of DRAM per load and Nsight counts two lookup misses for it.
    let (mut m, base) = system(granular());
    let x = line(base, 0) + 3 * SECTOR; // sector 3: its granule is sectors 2..3
    let (_, o) = load_u32(&mut m, &ld_op(0, CacheOperator::Cg), x);
    assert_eq!((o.l2_hits, o.l2_misses, o.dram_sectors_read), (0, 1, 2));
    assert_eq!(m.l2_line(x).unwrap().valid_sectors, 0b1100);
    let t = total(&m).l2;
    assert_eq!((t.read_sectors, t.read_misses, t.fetch_fills), (1, 1, 1));
    assert_eq!((t.lookup_hits(), t.lookup_misses()), (0, 2));
    assert_eq!(total(&m).dram.bytes_read, 64);
    // The granule's other sector now hits; a sector outside it misses again.
    let (_, o) = load_u32(&mut m, &ld_op(0, CacheOperator::Cg), x - SECTOR);
    assert_eq!((o.l2_hits, o.l2_misses), (1, 0));
    let (_, o) = load_u32(&mut m, &ld_op(0, CacheOperator::Cg), line(base, 0));
    assert_eq!((o.l2_misses, o.dram_sectors_read), (1, 2));
    // A fully requested granule fetches only what was asked (s32 / s4: misses = sectors).
    let (mut m, base) = system(granular());
    let lanes: Vec<_> = (0..32)
        .map(|i| LaneAccess::new(line(base, 4) + 4 * i, 4))
        .collect();
    let mut out = vec![0u8; 128];
    m.load(&ld_op(0, CacheOperator::Cg), &lanes, &mut out)
        .unwrap();
    let t = total(&m).l2;
    assert_eq!((t.read_misses, t.fetch_fills, t.lookup_misses()), (4, 0, 4));
    assert_eq!(t.lookup_hit_rate(), Some(0.0));
}

#[test]
fn nsight_counts_written_l2_sectors_as_hits() {
    // A store to a line L2 does not hold needs no fetch: Nsight counts it as a lookup hit.
    let (mut m, base) = system(granular());
    store_u32(&mut m, &st_op(0, CacheOperator::Wb), line(base, 0), 1);
    let t = total(&m).l2;
    assert_eq!((t.write_sectors, t.write_misses), (1, 1));
    assert_eq!((t.lookup_hits(), t.lookup_misses()), (1, 0));
    assert_eq!(t.lookup_hit_rate(), Some(1.0));
}

#[test]
fn stores_to_pending_sectors_of_the_same_sm_combine_before_l2() {
    // `out[4*t + j] = …` for j = 0..3: four stores to the same sector reach L2 once
    // (H100: pipeline_mbarrier, 256 L1 store sectors, 64 L2 write sectors).
    let (mut m, base) = system(granular());
    let x = line(base, 0);
    for j in 0..4 {
        store_u32(&mut m, &st(0), x + 4 * j, j as u32);
    }
    let t = total(&m);
    assert_eq!((t.l2.requests, t.l2.write_sectors), (1, 1));
    // Another SM's store is its own write; so is a line that left the 2-line window.
    store_u32(&mut m, &st(1), x + 16, 9);
    store_u32(&mut m, &st(0), line(base, 1), 0);
    store_u32(&mut m, &st(0), line(base, 2), 0);
    store_u32(&mut m, &st(0), x + 20, 5);
    let t = total(&m);
    assert_eq!((t.l2.requests, t.l2.write_sectors), (5, 5));
    // The data is all there.
    let mut v = [0u8; 4];
    m.read(x + 20, &mut v).unwrap();
    assert_eq!(u32::from_le_bytes(v), 5);
    // A kernel boundary drains the windows.
    m.invalidate_all_l1();
    store_u32(&mut m, &st(0), x + 20, 6);
    assert_eq!(total(&m).l2.write_sectors, 6);
}

#[test]
fn each_sm_sub_partition_combines_its_own_warps_stores() {
    // Warp w runs on sub-partition w % 4 (the preset's `sm_sub_partitions`), which keeps its
    // own 2-line window: warps 0 and 1 of one SM do not merge (H100:
    // `argmax_argmin_rows`), warps 0 and 4 share a window and do; and warp 1's lines do not
    // push warp 0's out of its window (H100: `bit_tricks`, two warps of 12 lines each
    // merge fully with 12-line windows).
    let (mut m, base) = system(granular());
    assert_eq!(m.config().sm_sub_partitions, 4);
    let warp = |w: u32| Request { warp: w, ..st(0) };
    let x = line(base, 0);
    store_u32(&mut m, &warp(0), x, 1);
    store_u32(&mut m, &warp(1), x + 4, 2);
    assert_eq!(total(&m).l2.write_sectors, 2);
    store_u32(&mut m, &warp(4), x + 8, 3);
    assert_eq!(total(&m).l2.write_sectors, 2);
    store_u32(&mut m, &warp(1), line(base, 1), 0);
    store_u32(&mut m, &warp(1), line(base, 2), 0);
    store_u32(&mut m, &warp(0), x + 12, 4);
    assert_eq!(total(&m).l2.write_sectors, 4);
    // One window per SM (one sub-partition) merges across warps.
    let mut one = granular();
    one.sm_sub_partitions = 1;
    let (mut m, base) = system(one);
    let x = line(base, 0);
    store_u32(&mut m, &warp(0), x, 1);
    store_u32(&mut m, &warp(1), x + 4, 2);
    assert_eq!(total(&m).l2.write_sectors, 1);
}

#[test]
fn reads_join_a_pending_fill_of_another_sm_of_their_group() {
    // The L2 request coalescer (H100 preset: SMs in 2 groups by parity): within a round, a
    // read of sectors another SM of its group missed joins that fill and is not looked up in
    // L2; a hit is not a pending fill; the other group, the next round, a launch boundary and
    // a configuration without the unit do not merge.
    let mut cfg = tiny();
    cfg.sm_count = 4;
    cfg.l2_read_coalescing_domains = 2;
    let (mut m, base) = system(cfg.clone());
    let x = line(base, 0);
    let reads = |m: &MemSystem| total(m).l2.read_sectors;
    load_u32(&mut m, &ld(0), x);
    load_u32(&mut m, &ld(2), x);
    assert_eq!(reads(&m), 2, "no round marked: trace replay merges nothing");
    m.begin_round();
    let y = line(base, 1);
    load_u32(&mut m, &ld(0), y); // misses in L2: pending
    load_u32(&mut m, &ld(2), y); // same group: joins
    assert_eq!(reads(&m), 3);
    load_u32(&mut m, &ld(1), y); // other group: an L2 hit, not pending
    load_u32(&mut m, &ld(3), y); // so SM 3 does not join it
    assert_eq!(reads(&m), 5);
    let s = m.stats();
    assert_eq!(
        (s.per_sm[2].l1.read_misses, s.per_sm[2].l2.read_sectors),
        (2, 1),
        "the joined read still missed in its L1"
    );
    let z = line(base, 2);
    load_u32(&mut m, &ld(0), z);
    m.begin_round();
    load_u32(&mut m, &ld(2), z);
    assert_eq!(
        reads(&m),
        7,
        "the previous round's fill has landed: an L2 hit"
    );
    // Data: the joined read returns the bytes (the image's).
    store_u32(&mut m, &st(1), line(base, 3), 42);
    m.begin_round();
    load_u32(&mut m, &ld(1), line(base, 3) + 4);
    assert_eq!(load_u32(&mut m, &ld(3), line(base, 3)).0, 42);
    m.invalidate_all_l1();
    let w = line(base, 4);
    load_u32(&mut m, &ld(0), w);
    load_u32(&mut m, &ld(2), w);
    let before = reads(&m);
    m.begin_round();
    let v = line(base, 5);
    load_u32(&mut m, &ld(0), v);
    load_u32(&mut m, &ld(2), v);
    assert_eq!(reads(&m), before + 1);
    cfg.l2_read_coalescing_domains = 0;
    let (mut m, base) = system(cfg);
    m.begin_round();
    load_u32(&mut m, &ld(0), line(base, 0));
    load_u32(&mut m, &ld(2), line(base, 0));
    assert_eq!(reads(&m), 2, "no unit");
}

#[test]
fn invalidate_l2_writes_back_and_empties_l2() {
    let (mut m, base) = system(tiny());
    store_u32(&mut m, &st(0), line(base, 0), 1);
    load_u32(&mut m, &ld_op(0, CacheOperator::Cg), line(base, 1));
    m.invalidate_l2();
    assert!(m.l2_line(line(base, 0)).is_none() && m.l2_line(line(base, 1)).is_none());
    let s = m.stats();
    assert_eq!((s.host.l2.writebacks, s.host.dram.bytes_written), (1, 32));
    let (v, o) = load_u32(&mut m, &ld_op(0, CacheOperator::Cg), line(base, 0));
    assert_eq!((v, o.l2_misses), (1, 1));
}

// ------------------------------------------------------------------ prefetch size

#[test]
fn prefetch_size_fills_the_aligned_block_on_a_miss() {
    // (hint, valid sectors of line 0, valid sectors of line 1, fills of the missed line
    // (granule fills) + fills of other lines (prefetch fills), DRAM bytes)
    let cases = [
        (PrefetchSize::B64, 0b0011, None, (1, 0), 64),
        (PrefetchSize::B128, 0b1111, None, (3, 0), 128),
        (PrefetchSize::B256, 0b1111, Some(0b1111), (3, 4), 256),
    ];
    for (size, l0, l1, fills, dram) in cases {
        let (mut m, base) = system(tiny());
        let r = Request {
            prefetch: Some(size),
            ..ld_op(0, CacheOperator::Cg)
        };
        load_u32(&mut m, &r, line(base, 0));
        assert_eq!(
            m.l2_line(line(base, 0)).unwrap().valid_sectors,
            l0,
            "{size:?}"
        );
        assert_eq!(
            m.l2_line(line(base, 1)).map(|l| l.valid_sectors),
            l1,
            "{size:?}"
        );
        let t = total(&m);
        assert_eq!(
            ((t.l2.fetch_fills, t.l2.prefetch_fills), t.dram.bytes_read),
            (fills, dram),
            "{size:?}"
        );
        // The prefetched neighbour sector now hits.
        let (_, o) = load_u32(&mut m, &ld_op(0, CacheOperator::Cg), line(base, 0) + 32);
        assert_eq!(o.l2_hits, 1, "{size:?}");
        // A hit does not prefetch again.
        load_u32(&mut m, &r, line(base, 0));
        let t = total(&m).l2;
        assert_eq!((t.fetch_fills, t.prefetch_fills), fills, "{size:?}");
    }
    // A 64 B block aligned at sector 2 when the access is in sector 3.
    let (mut m, base) = system(tiny());
    let r = Request {
        prefetch: Some(PrefetchSize::B64),
        ..ld_op(0, CacheOperator::Cg)
    };
    load_u32(&mut m, &r, line(base, 0) + 96);
    assert_eq!(m.l2_line(line(base, 0)).unwrap().valid_sectors, 0b1100);
}

// ------------------------------------------------------------------ cp.async

#[test]
fn cp_async_ca_fills_l1_and_l2_cg_only_l2_with_hints() {
    let (mut m, base) = system(tiny());
    let ca = Request {
        kind: AccessKind::AsyncCopy,
        ..ld_op(0, CacheOperator::Ca)
    };
    let mut buf = [0u8; 16];
    m.load(&ca, &[LaneAccess::new(line(base, 0), 16)], &mut buf)
        .unwrap();
    assert!(m.l1_line(0, line(base, 0)).is_some() && m.l2_line(line(base, 0)).is_some());
    let cg = Request {
        kind: AccessKind::AsyncCopy,
        policy: Some(0x14F0_0000_0000_0000),
        prefetch: Some(PrefetchSize::B128),
        ..ld_op(0, CacheOperator::Cg)
    };
    m.load(&cg, &[LaneAccess::new(line(base, 1), 16)], &mut buf)
        .unwrap();
    assert!(m.l1_line(0, line(base, 1)).is_none());
    let l = m.l2_line(line(base, 1)).unwrap();
    assert_eq!(
        (l.class, l.valid_sectors),
        (EvictionClass::EvictLast, 0b1111)
    );
}

// ------------------------------------------------------------------ warp coalescing

#[test]
fn a_coalesced_warp_touches_four_sectors_of_one_line() {
    let (mut m, base) = system(tiny());
    let lanes: Vec<LaneAccess> = (0..32)
        .map(|i| LaneAccess::new(line(base, 0) + 4 * i, 4))
        .collect();
    let mut out = vec![0u8; 128];
    let o = m.load(&ld(0), &lanes, &mut out).unwrap();
    // 32 lanes x 4 B = 128 B = one line = 4 sectors, one request per level.
    assert_eq!((o.l1_misses, o.l2_misses, o.dram_sectors_read), (4, 4, 4));
    let t = total(&m);
    assert_eq!((t.l1.requests, t.l2.requests, t.l2.allocations), (1, 1, 1));
    // A strided warp (one lane per line) touches 32 lines.
    let strided: Vec<LaneAccess> = (0..32)
        .map(|i| LaneAccess::new(line(base, 100 + i), 4))
        .collect();
    let o = m
        .load(&ld_op(0, CacheOperator::Cg), &strided, &mut out)
        .unwrap();
    assert_eq!(o.l2_misses, 32);
}

// ------------------------------------------------------------------ statistics

#[test]
fn counters_are_attributed_per_sm_and_per_instruction() {
    let (mut m, base) = system(tiny());
    load_u32(&mut m, &ld(0).with_instr(3), line(base, 0));
    load_u32(&mut m, &ld(1).with_instr(1), line(base, 0));
    load_u32(&mut m, &ld(1).with_instr(1), line(base, 0));
    let s = m.stats();
    assert_eq!(s.per_instr.len(), 4);
    assert_eq!(s.per_instr[3].l1.read_misses, 1);
    assert_eq!(
        (s.per_instr[1].l1.read_hits, s.per_instr[1].l1.read_misses),
        (1, 1)
    );
    // SM 1's L1 missed once, then L2 hit (SM 0 had brought the line in).
    assert_eq!(
        (s.per_sm[1].l2.read_hits, s.per_sm[0].l2.read_misses),
        (1, 1)
    );
    assert_eq!(s.per_instr[0], Counters::default());
    let by_instr = s.per_instr.iter().fold(Counters::default(), |mut a, c| {
        a += c;
        a
    });
    assert_eq!(by_instr, s.total());
    assert_eq!(s.requests, 3);
}

#[test]
fn the_timeline_samples_l2_occupancy_by_class() {
    let mut cfg = tiny();
    cfg.timeline_interval = 2;
    let (mut m, base) = system(cfg);
    let last = Request {
        l2_priority: Some(L2EvictionPriority::Last),
        ..ld_op(0, CacheOperator::Cg)
    };
    load_u32(&mut m, &last, line(base, 0));
    load_u32(&mut m, &ld_op(0, CacheOperator::Cs), line(base, 1));
    load_u32(&mut m, &ld_op(0, CacheOperator::Cg), line(base, 2));
    load_u32(&mut m, &ld_op(0, CacheOperator::Cg), line(base, 3));
    let s = m.stats();
    assert_eq!(s.timeline.len(), 2);
    let (a, b) = (s.timeline[0], s.timeline[1]);
    assert_eq!(
        (a.request, a.evict_last, a.evict_first, a.normal),
        (2, 1, 1, 0)
    );
    assert_eq!(
        (b.request, b.evict_last, b.evict_first, b.normal),
        (4, 1, 1, 2)
    );
    assert!(s.to_json().contains("\"timeline\""));
    assert!(s.render_text().contains("L2 lines now"));
}

#[test]
fn flush_writes_back_every_dirty_sector_as_host_traffic() {
    let (mut m, base) = system(tiny());
    for i in 0..3 {
        store_u32(&mut m, &st(0), line(base, i), 1);
    }
    m.flush_l2();
    let s = m.stats();
    assert_eq!((s.host.l2.writebacks, s.host.dram.bytes_written), (3, 96));
    assert_eq!(m.l2_line(line(base, 0)).unwrap().dirty_sectors, 0);
}

#[test]
fn latency_reports_the_slowest_level() {
    let (mut m, base) = system(tiny());
    let cfg = m.config().clone();
    assert_eq!(
        load_u32(&mut m, &ld(0), line(base, 0)).1.latency_cycles,
        cfg.dram_latency_cycles
    );
    assert_eq!(
        load_u32(&mut m, &ld(0), line(base, 0)).1.latency_cycles,
        cfg.l1.latency_cycles
    );
    assert_eq!(
        load_u32(&mut m, &ld(1), line(base, 0)).1.latency_cycles,
        cfg.l2.latency_cycles
    );
}

// ------------------------------------------------------------------ faults

#[test]
fn bad_requests_are_errors_naming_the_address() {
    let (mut m, base) = system(tiny());
    let mut out = [0u8; 4];
    let past_end = base + (1 << 20);
    let err = m
        .load(&ld(0), &[LaneAccess::new(past_end, 4)], &mut out)
        .unwrap_err();
    assert_eq!(
        err,
        MemError::Unmapped {
            addr: past_end,
            bytes: 4
        }
    );
    assert!(err.to_string().contains(&format!("{past_end:x}")));
    // Straddling the end of the allocation.
    assert!(m
        .load(&ld(0), &[LaneAccess::new(past_end - 2, 4)], &mut out)
        .is_err());
    assert!(matches!(
        m.load(&ld(7), &[LaneAccess::new(base, 4)], &mut out),
        Err(MemError::NoSuchSm { sm: 7, sm_count: 2 })
    ));
    let shared = Request {
        space: Space::Shared,
        ..ld(0)
    };
    assert!(matches!(
        m.load(&shared, &[LaneAccess::new(base, 4)], &mut out),
        Err(MemError::Unsupported { .. })
    ));
    assert!(matches!(
        m.load(&ld(0), &[LaneAccess::new(base, 8)], &mut out),
        Err(MemError::BufferSize { got: 4, need: 8 })
    ));
    let to_const = Request {
        space: Space::Const,
        ..st(0)
    };
    assert!(m
        .store(&to_const, &[LaneAccess::new(base, 4)], &[0; 4])
        .is_err());
    assert!(m
        .load(
            &ld_op(0, CacheOperator::Wt),
            &[LaneAccess::new(base, 4)],
            &mut out
        )
        .is_err());
    assert!(m
        .load(&ld(0), &[LaneAccess::new(base, 0)], &mut [])
        .is_err());
    assert!(m
        .load(&ld(0), &[LaneAccess::new(u64::MAX - 1, 4)], &mut out)
        .is_err());
    // Nothing was counted for the rejected requests.
    assert_eq!(m.stats().requests, 0);
}

#[test]
fn host_writes_discard_l1_copies() {
    let (mut m, base) = system(tiny());
    let x = line(base, 0);
    load_u32(&mut m, &ld(0), x);
    m.write(x, &77u32.to_le_bytes()).unwrap();
    let (v, o) = load_u32(&mut m, &ld(0), x);
    assert_eq!((v, o.l1_hits, o.l1_misses), (77, 0, 1));
    let mut back = [0u8; 4];
    m.read(x, &mut back).unwrap();
    assert_eq!(u32::from_le_bytes(back), 77);
    assert!(m.write(base + (1 << 20), &[1]).is_err());
}
