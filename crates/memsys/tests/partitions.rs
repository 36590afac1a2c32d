//! The partitioned L2 (`src/system/partitions.rs`), rule by rule, with the counts worked out
//! by hand: two partitions, SM 0 near partition 0 and SM 1 near partition 1; a line's home is
//! `MemSystem::l2_partitions_of`.

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

fn cg(sm: u32) -> Request {
    ld_op(sm, CacheOperator::Cg)
}

#[test]
fn neighbouring_lines_are_homed_apart_and_sms_alternate() {
    let (m, base) = system(partitioned());
    for i in 0..32 {
        let (a, b) = (line(base, 2 * i), line(base, 2 * i + 1));
        assert_ne!(m.l2_partitions_of(0, a).0, m.l2_partitions_of(0, b).0);
    }
    assert_eq!(m.l2_partitions_of(0, base).1, 0);
    assert_eq!(m.l2_partitions_of(1, base).1, 1);
}

#[test]
fn a_far_read_is_looked_up_near_then_at_home_and_leaves_a_copy() {
    let (mut m, base) = system(partitioned());
    let x = homed(&m, base, 0, 0);
    // SM 1 is far from x's home: a miss near (the SMs' lookup), a miss at home (the fabric's),
    // one sector from DRAM, and a copy of it in partition 1.
    let (_, o) = load_u32(&mut m, &cg(1), x);
    assert_eq!((o.l2_hits, o.l2_misses, o.dram_sectors_read), (0, 1, 1));
    let t = total(&m);
    assert_eq!((t.l2.read_hits, t.l2.read_misses), (0, 1));
    assert_eq!((t.l2.fabric_read_hits, t.l2.fabric_read_misses), (0, 1));
    assert_eq!(t.dram.bytes_read, 32);
    assert_eq!(t.l2.copy_allocations, 1);
    assert_eq!(m.l2_line_in(0, x).unwrap().valid_sectors, 0b0001);
    assert_eq!(m.l2_line_in(1, x).unwrap().valid_sectors, 0b0001);
    // Read again by SM 1: the copy answers, no fabric lookup.
    let (_, o) = load_u32(&mut m, &cg(1), x);
    assert_eq!((o.l2_hits, o.l2_misses), (1, 0));
    let t = total(&m);
    assert_eq!(t.l2.fabric_sectors(), 1);
    // Read by SM 0 (near the home): one lookup at home, a hit.
    load_u32(&mut m, &cg(0), x);
    let t = total(&m);
    assert_eq!((t.l2.read_hits, t.l2.read_misses), (2, 1));
    assert_eq!(t.l2.fabric_sectors(), 1);
    // Nsight's hit rate counts both partitions' lookups: 2 hits of 4.
    assert_eq!((t.l2.all_lookup_hits(), t.l2.all_lookup_misses()), (2, 2));
    assert_eq!(t.l2.all_lookup_hit_rate(), Some(0.5));
}

#[test]
fn a_far_read_of_a_line_only_its_home_holds_is_a_miss_and_a_hit() {
    let (mut m, base) = system(partitioned());
    let x = homed(&m, base, 0, 0);
    load_u32(&mut m, &cg(0), x);
    m.reset_stats();
    let (_, o) = load_u32(&mut m, &cg(1), x);
    assert_eq!((o.l2_hits, o.l2_misses, o.dram_sectors_read), (0, 1, 0));
    let t = total(&m);
    assert_eq!((t.l2.fabric_read_hits, t.l2.fabric_read_misses), (1, 0));
    assert_eq!(t.l2.all_lookup_hit_rate(), Some(0.5));
}

#[test]
fn copies_are_never_evict_last() {
    let (mut m, base) = system(partitioned());
    let x = homed(&m, base, 0, 0);
    let last = Request {
        l2_priority: Some(L2EvictionPriority::Last),
        ..cg(1)
    };
    load_u32(&mut m, &last, x);
    assert_eq!(m.l2_line_in(0, x).unwrap().class, EvictionClass::EvictLast);
    assert_eq!(m.l2_line_in(1, x).unwrap().class, EvictionClass::Normal);
    let first = Request {
        l2_priority: Some(L2EvictionPriority::First),
        ..cg(1)
    };
    let y = homed(&m, base, 0, 1);
    load_u32(&mut m, &first, y);
    assert_eq!(m.l2_line_in(1, y).unwrap().class, EvictionClass::EvictFirst);
}

#[test]
fn a_store_goes_home_and_drops_the_other_partitions_copy() {
    let (mut m, base) = system(partitioned());
    let x = homed(&m, base, 0, 0);
    load_u32(&mut m, &cg(1), x);
    assert!(m.l2_line_in(1, x).is_some());
    // SM 0 (near the home) stores: the home line is dirty, partition 1's copy goes.
    store_u32(&mut m, &st_op(0, CacheOperator::Cg), x, 7);
    assert_eq!(m.l2_line_in(0, x).unwrap().dirty_sectors, 0b0001);
    assert!(m.l2_line_in(1, x).is_none_or(|s| s.valid_sectors == 0));
    let t = total(&m);
    assert_eq!(t.l2.fabric_write_sectors, 0);
    // SM 1 reads it again (a fresh copy), then stores through it: a fabric write, the copy
    // stays, the home holds the dirty sector.
    load_u32(&mut m, &cg(1), x);
    store_u32(&mut m, &st_op(1, CacheOperator::Cg), x, 8);
    let t = total(&m);
    assert_eq!(t.l2.fabric_write_sectors, 1);
    assert_eq!(m.l2_line_in(1, x).unwrap().valid_sectors, 0b0001);
    assert_eq!(m.l2_line_in(1, x).unwrap().dirty_sectors, 0);
    assert_eq!(m.l2_line_in(0, x).unwrap().dirty_sectors, 0b0001);
    // The data is the coherent image whatever the copies: SM 0 reads 8.
    let (v, _) = load_u32(&mut m, &cg(0), x);
    assert_eq!(v, 8);
}

#[test]
fn a_line_read_from_both_sides_takes_room_in_both_partitions() {
    // Four lines homed in partition 0, read by SM 1 (far): each is held twice, at home and
    // as a copy in partition 1.
    let (mut m, base) = system(partitioned());
    let lines: Vec<u64> = (0..4).map(|k| homed(&m, base, 0, k * 4)).collect();
    for &a in &lines {
        load_u32(&mut m, &cg(1), a);
    }
    let occupied = m.l2_occupancy().iter().sum::<u64>();
    assert_eq!(occupied, 8, "four home lines and four copies");
    let t = total(&m);
    assert_eq!(t.l2.copy_allocations, 4);
}

#[test]
fn one_partition_has_no_copies_and_no_fabric() {
    let (mut m, base) = system(tiny());
    let x = line(base, 1);
    load_u32(&mut m, &cg(1), x);
    load_u32(&mut m, &cg(0), x);
    let t = total(&m);
    assert_eq!(t.l2.fabric_sectors(), 0);
    assert_eq!(t.l2.copy_allocations, 0);
    assert_eq!((t.l2.read_hits, t.l2.read_misses), (1, 1));
}

#[test]
fn partitions_must_divide_the_sets() {
    let mut c = partitioned();
    c.l2_partitions = 3;
    assert!(c.validate().is_err(), "not a power of two");
    c.l2_partitions = 16;
    assert!(c.validate().is_err(), "8 sets do not make 16 partitions");
    c.l2_partitions = 8;
    assert!(c.validate().is_ok());
}

#[test]
fn a_256_byte_prefetch_fills_the_neighbour_line_in_its_own_home() {
    // Neighbouring lines are homed apart: the block's other line goes to the other partition,
    // where a read of it by an SM near that partition then hits.
    for reader in [0u32, 1] {
        let (mut m, base) = system(partitioned());
        let x = line(base, 2);
        let y = line(base, 3);
        let (hx, hy) = (m.l2_partitions_of(0, x).0, m.l2_partitions_of(0, y).0);
        assert_ne!(hx, hy);
        let req = Request {
            prefetch: Some(PrefetchSize::B256),
            ..cg(reader)
        };
        load_u32(&mut m, &req, x);
        assert_eq!(m.l2_line_in(hy, y).unwrap().valid_sectors, 0b1111);
        let t = total(&m);
        assert_eq!(t.l2.prefetch_fills, 4);
        assert_eq!(t.dram.bytes_read, 256, "the whole block, once");
        // SM `hy` is near y's home: its read hits there.
        m.reset_stats();
        let (_, o) = load_u32(&mut m, &cg(hy as u32), y);
        assert_eq!((o.l2_hits, o.l2_misses), (1, 0), "reader {reader}");
    }
}
