//! The L2 control surface (`src/system/l2_control.rs`): `discard`, `applypriority`, the
//! persisting reset and the access policy window, on the hand-countable configurations of
//! `common` (two partitions where copies matter).

mod common;

use common::*;
use memsys::*;

/// A line of the buffer homed in partition `home`, the `skip`-th such line.
fn homed(m: &MemSystem, base: u64, home: usize, skip: usize) -> u64 {
    (0..64)
        .map(|i| line(base, i))
        .filter(|&a| m.l2_partitions_of(0, a).0 == home)
        .nth(skip)
        .expect("a line homed there")
}

fn last(sm: u32) -> Request {
    Request {
        l2_priority: Some(L2EvictionPriority::Last),
        ..ld_op(sm, CacheOperator::Cg)
    }
}

#[test]
fn discard_drops_every_copy_without_a_write_back_and_counts_the_saved_sectors() {
    let (mut m, base) = system(partitioned());
    let x = homed(&m, base, 0, 0);
    // SM 1 (far) reads x: a copy near SM 1 and the home line; SM 0 then dirties two sectors.
    load_u32(&mut m, &ld_op(1, CacheOperator::Cg), x);
    store_u32(&mut m, &st(0), x, 7);
    store_u32(&mut m, &st(0), x + 32, 8);
    assert!(m.l2_line_in(0, x).is_some());
    m.reset_stats();
    let o = m.discard_l2(0, 3, x).expect("discard");
    assert!(o.resident);
    assert_eq!(o.dirty_sectors.count_ones(), 2);
    assert_eq!(m.l2_line_in(0, x), None);
    assert_eq!(m.l2_line_in(1, x), None);
    let t = total(&m);
    assert_eq!((t.l2.discards, t.l2.discard_writebacks_saved), (1, 2));
    assert_eq!(t.l2.writebacks, 0);
    assert_eq!(t.dram.bytes_written, 0);
    // Counted on the instruction that discarded.
    assert_eq!(m.stats().per_instr[3].l2.discards, 1);
    // Flushing writes nothing back: the dirty data is gone.
    m.flush_l2();
    assert_eq!(m.stats().host.dram.bytes_written, 0);
    // A line not in L2: nothing to drop, nothing counted.
    let y = homed(&m, base, 1, 3);
    let o = m.discard_l2(0, 3, y).expect("discard");
    assert!(!o.resident);
    assert_eq!(total(&m).l2.discards, 1);
}

#[test]
fn discarded_dirty_sectors_get_the_bytes_memory_held_when_the_kernel_started() {
    let (mut m, base) = system(tiny());
    let x = line(base, 5);
    m.write(x, &[1u8; 128]).expect("host write");
    m.snapshot_for_discard();
    store_u32(&mut m, &st(0), x, 0xdead_beef);
    store_u32(&mut m, &st(0), x + 64, 0xfeed_f00d);
    m.discard_l2(0, 0, x).expect("discard");
    let mut back = [0u8; 128];
    m.read(x, &mut back).expect("read");
    assert_eq!(back, [1u8; 128]);
    // Without a snapshot the discarded data keeps the last written value (one legal outcome
    // of "an unstable indeterminate value").
    let (mut m, base) = system(tiny());
    let x = line(base, 5);
    store_u32(&mut m, &st(0), x, 9);
    m.discard_l2(0, 0, x).expect("discard");
    assert_eq!(load_u32(&mut m, &ld(0), x).0, 9);
}

#[test]
fn discard_and_applypriority_take_only_mapped_aligned_lines() {
    let (mut m, base) = system(tiny());
    for addr in [base + 4, base + 64] {
        match m.discard_l2(0, 0, addr) {
            Err(MemError::L2Control { why, .. }) => assert!(why.contains("aligned"), "{why}"),
            other => panic!("expected an alignment error, got {other:?}"),
        }
    }
    match m.apply_priority_normal_l2(0, 0, GLOBAL_BASE - 4096) {
        Err(MemError::L2Control { why, .. }) => assert!(why.contains("outside"), "{why}"),
        other => panic!("expected an unmapped error, got {other:?}"),
    }
}

#[test]
fn applypriority_makes_every_resident_copy_normal_and_fetches_nothing() {
    let (mut m, base) = system(partitioned());
    let x = homed(&m, base, 0, 0);
    // SM 1 reads x evict-last: evict-last at home, a normal copy near SM 1.
    load_u32(&mut m, &last(1), x);
    assert_eq!(m.l2_line_in(0, x).unwrap().class, EvictionClass::EvictLast);
    m.reset_stats();
    assert!(m.apply_priority_normal_l2(1, 2, x).expect("applypriority"));
    assert_eq!(m.l2_line_in(0, x).unwrap().class, EvictionClass::Normal);
    assert_eq!(m.l2_line_in(1, x).unwrap().class, EvictionClass::Normal);
    let t = total(&m);
    assert_eq!((t.l2.priority_applied, t.l2.priority_demoted), (1, 1));
    assert_eq!(t.dram.bytes_read, 0);
    // An absent line stays absent (applypriority is no prefetch).
    let y = homed(&m, base, 1, 2);
    assert!(!m.apply_priority_normal_l2(1, 2, y).expect("applypriority"));
    assert_eq!(m.l2_line_in(0, y), None);
    assert_eq!(m.l2_line_in(1, y), None);
    assert_eq!(total(&m).l2.priority_applied, 1);
}

#[test]
fn a_demoted_line_leaves_the_set_aside_for_the_next_evict_last_line() {
    // tiny(): 4 ways, at most 2 evict-last per set. Lines 0, 8, 16, 24 share set 0.
    let (mut m, base) = system(tiny());
    let (a, b, c) = (line(base, 0), line(base, 8), line(base, 16));
    load_u32(&mut m, &last(0), a);
    load_u32(&mut m, &last(0), b);
    load_u32(&mut m, &last(0), c);
    // The set-aside was full: it keeps the most recently used evict-last lines (b, c).
    let class = |m: &MemSystem, l| m.l2_line(l).unwrap().class;
    assert_eq!(class(&m, a), EvictionClass::Normal, "least recent, demoted");
    assert_eq!(class(&m, c), EvictionClass::EvictLast);
    assert_eq!(total(&m).l2.evict_last_capped, 1);
    m.apply_priority_normal_l2(0, 0, b).expect("applypriority");
    assert_eq!(class(&m, b), EvictionClass::Normal);
    // b's way of the set-aside is free: d takes it without demoting c.
    let d = line(base, 24);
    load_u32(&mut m, &last(0), d);
    assert_eq!(class(&m, d), EvictionClass::EvictLast);
    assert_eq!(class(&m, c), EvictionClass::EvictLast);
    assert_eq!(total(&m).l2.evict_last_capped, 1);
}

#[test]
fn the_persisting_reset_makes_every_evict_last_line_normal() {
    let (mut m, base) = system(partitioned());
    for i in 0..6 {
        load_u32(&mut m, &last(0), line(base, i));
    }
    let evict_last = |m: &MemSystem| {
        (0..6)
            .filter(|&i| {
                (0..2).any(|p| {
                    m.l2_line_in(p, line(base, i))
                        .is_some_and(|s| s.class == EvictionClass::EvictLast)
                })
            })
            .count() as u64
    };
    let before = evict_last(&m);
    assert!(before > 0);
    let n = m.reset_persisting_l2();
    assert_eq!(n, before);
    assert_eq!(evict_last(&m), 0);
    assert_eq!(m.stats().host.l2.persisting_reset_lines, n);
    assert_eq!(m.reset_persisting_l2(), 0);
}

fn window(base: u64, bytes: u64, ratio: f32) -> AccessPolicyWindow {
    AccessPolicyWindow {
        base,
        bytes,
        hit_ratio: ratio,
        hit_prop: AccessProperty::Persisting,
        miss_prop: AccessProperty::Streaming,
    }
}

#[test]
fn the_runtime_refuses_the_windows_it_refuses() {
    let h100 = GpuConfig::h100();
    let base = GLOBAL_BASE;
    assert!(window(base, 4096, 0.5).validate(&h100).is_ok());
    assert!(window(base, MAX_ACCESS_POLICY_WINDOW_BYTES, 1.0)
        .validate(&h100)
        .is_ok());
    for (w, want) in [
        (window(base, 0, 0.5), "num_bytes is 0"),
        (
            window(base, MAX_ACCESS_POLICY_WINDOW_BYTES + 1, 0.5),
            "134213632",
        ),
        (window(base, 4096, 1.01), "outside [0, 1]"),
        (window(base, 4096, -0.1), "outside [0, 1]"),
        (window(base, 4096, f32::NAN), "outside [0, 1]"),
        (
            AccessPolicyWindow {
                miss_prop: AccessProperty::Persisting,
                ..window(base, 4096, 0.5)
            },
            "missProp must be normal or streaming",
        ),
    ] {
        let e = w.validate(&h100).expect_err("refused").to_string();
        assert!(e.contains(want), "{e} lacks {want}");
    }
}

#[test]
fn hit_lines_are_a_fixed_hit_ratio_share_of_the_window() {
    let w = |r| window(GLOBAL_BASE, 1 << 20, r);
    let lines = 0..8192u64;
    assert_eq!(lines.clone().filter(|&l| w(0.0).is_hit_line(l)).count(), 0);
    assert_eq!(
        lines.clone().filter(|&l| w(1.0).is_hit_line(l)).count(),
        8192
    );
    for (ratio, sixteenths) in [(0.25f32, 4u32), (0.5, 8), (0.6, 10), (1.0 / 16.0, 1)] {
        assert_eq!(w(ratio).sixteenths(), sixteenths);
        let hits = lines.clone().filter(|&l| w(ratio).is_hit_line(l)).count() as f64;
        let want = 8192.0 * f64::from(sixteenths) / 16.0;
        assert!(
            (hits - want).abs() < 0.05 * 8192.0,
            "{ratio}: {hits} of 8192"
        );
    }
}

#[test]
fn a_window_gives_its_properties_to_accesses_without_their_own() {
    let (mut m, base) = system(tiny());
    m.set_access_policy_window(Some(AccessPolicyWindow {
        base,
        bytes: 16 * LINE,
        hit_ratio: 1.0,
        hit_prop: AccessProperty::Persisting,
        miss_prop: AccessProperty::Normal,
    }))
    .expect("window");
    // A plain load inside: persisting (evict-last); outside: normal.
    load_u32(&mut m, &ld_op(0, CacheOperator::Cg), line(base, 1));
    load_u32(&mut m, &ld_op(0, CacheOperator::Cg), line(base, 20));
    assert_eq!(
        m.l2_line(line(base, 1)).unwrap().class,
        EvictionClass::EvictLast
    );
    assert_eq!(
        m.l2_line(line(base, 20)).unwrap().class,
        EvictionClass::Normal
    );
    // An explicit priority wins over the window; so does `.cs` (evict-first).
    let first = Request {
        l2_priority: Some(L2EvictionPriority::First),
        ..ld_op(0, CacheOperator::Cg)
    };
    load_u32(&mut m, &first, line(base, 2));
    assert_eq!(
        m.l2_line(line(base, 2)).unwrap().class,
        EvictionClass::EvictFirst
    );
    load_u32(&mut m, &ld_op(0, CacheOperator::Cs), line(base, 3));
    assert_eq!(
        m.l2_line(line(base, 3)).unwrap().class,
        EvictionClass::EvictFirst
    );
    let t = total(&m);
    assert_eq!((t.l2.window_hit_prop, t.l2.window_miss_prop), (1, 0));
    // Cleared: the next launch without a window gets none.
    m.set_access_policy_window(None).expect("clear");
    load_u32(&mut m, &ld_op(0, CacheOperator::Cg), line(base, 4));
    assert_eq!(
        m.l2_line(line(base, 4)).unwrap().class,
        EvictionClass::Normal
    );
}

#[test]
fn a_streaming_miss_property_makes_the_other_lines_evict_first() {
    let (mut m, base) = system(tiny());
    let w = AccessPolicyWindow {
        base,
        bytes: 64 * LINE,
        hit_ratio: 0.5,
        hit_prop: AccessProperty::Persisting,
        miss_prop: AccessProperty::Streaming,
    };
    m.set_access_policy_window(Some(w)).expect("window");
    for i in 0..8 {
        let a = line(base, i);
        load_u32(&mut m, &ld_op(0, CacheOperator::Cg), a);
        let want = if w.is_hit_line(a >> 7) {
            EvictionClass::EvictLast
        } else {
            EvictionClass::EvictFirst
        };
        let got = m.l2_line(a).unwrap().class;
        // A hit line may be capped to normal by the set-aside (2 ways per set here).
        assert!(
            got == want || (want == EvictionClass::EvictLast && got == EvictionClass::Normal),
            "line {i}: {got:?}, want {want:?}"
        );
    }
    let t = total(&m);
    assert_eq!(t.l2.window_hit_prop + t.l2.window_miss_prop, 8);
    assert!(t.l2.window_hit_prop > 0 && t.l2.window_miss_prop > 0);
}
