//! The stale read the PTX ISA documents for `.ca` (Table 30): "If one thread stores to global
//! memory via one L1 cache, and a second thread loads that address via a second L1 cache with
//! `ld.ca`, the second thread may get stale L1 cache data, rather than the data stored by the
//! first thread."

mod common;

use common::*;
use memsys::*;

const OLD: u32 = 0x1111_1111;
const NEW: u32 = 0x2222_2222;

/// SM 0 caches X with `.ca`, SM 1 stores X, then SM 0 reads X with `second`.
fn scenario(second: Request) -> (u32, Outcome) {
    let (mut m, base) = system(tiny());
    let x = line(base, 5) + 8;
    m.write(x, &OLD.to_le_bytes()).unwrap();
    let (v, _) = load_u32(&mut m, &ld(0), x);
    assert_eq!(v, OLD);
    store_u32(&mut m, &st(1), x, NEW);
    // The coherent value (L2 / memory) is the new one.
    let mut back = [0u8; 4];
    m.read(x, &mut back).unwrap();
    assert_eq!(u32::from_le_bytes(back), NEW);
    load_u32(&mut m, &second, x)
}

#[test]
fn ca_after_another_sms_store_reads_the_old_value_and_is_flagged() {
    let (v, o) = scenario(ld(0));
    assert_eq!(v, OLD);
    assert_eq!((o.l1_hits, o.stale_lanes), (1, 1));
}

#[test]
fn cg_cv_volatile_relaxed_and_acquire_read_the_new_value() {
    let cases = [
        ("ld.cg", ld_op(0, CacheOperator::Cg)),
        ("ld.cv", ld_op(0, CacheOperator::Cv)),
        (
            "ld.volatile",
            Request {
                semantics: Semantics::Volatile,
                ..ld(0)
            },
        ),
        (
            "ld.relaxed.gpu",
            Request {
                semantics: Semantics::Relaxed,
                scope: Scope::Gpu,
                ..ld(0)
            },
        ),
        (
            "ld.acquire.gpu",
            Request {
                semantics: Semantics::Acquire,
                scope: Scope::Gpu,
                ..ld(0)
            },
        ),
    ];
    for (name, req) in cases {
        let (v, o) = scenario(req);
        assert_eq!(v, NEW, "{name}");
        assert_eq!(o.stale_lanes, 0, "{name}");
    }
}

#[test]
fn the_stale_copy_goes_away_after_an_acquire_or_an_l1_invalidation() {
    // Message passing done right: SM 0's acquire load invalidates its L1, so the following
    // weak .ca load misses and reads the released data.
    let (mut m, base) = system(tiny());
    let x = line(base, 5);
    load_u32(&mut m, &ld(0), x);
    store_u32(&mut m, &st(1), x, NEW);
    let flag = Request {
        semantics: Semantics::Acquire,
        scope: Scope::Gpu,
        ..ld(0)
    };
    load_u32(&mut m, &flag, line(base, 40));
    let (v, o) = load_u32(&mut m, &ld(0), x);
    assert_eq!((v, o.stale_lanes), (NEW, 0));
    // A kernel boundary (the driver's L1 invalidation) has the same effect.
    load_u32(&mut m, &ld(0), line(base, 6));
    store_u32(&mut m, &st(1), line(base, 6), 3);
    m.invalidate_all_l1();
    assert_eq!(load_u32(&mut m, &ld(0), line(base, 6)).0, 3);
}

#[test]
fn only_the_stale_lanes_of_a_warp_are_flagged() {
    let (mut m, base) = system(tiny());
    let x = line(base, 7);
    let lanes: Vec<LaneAccess> = (0..8).map(|i| LaneAccess::new(x + 4 * i, 4)).collect();
    let mut out = vec![0u8; 32];
    m.load(&ld(0), &lanes, &mut out).unwrap();
    // SM 1 writes lanes 2 and 5's words.
    store_u32(&mut m, &st(1), x + 8, 42);
    store_u32(&mut m, &st(1), x + 20, 43);
    let o = m.load(&ld(0), &lanes, &mut out).unwrap();
    assert_eq!(o.stale_lanes, (1 << 2) | (1 << 5));
    assert_eq!(m.stats().total().stale_reads, 2);
    assert!(
        out.iter().all(|&b| b == 0),
        "all lanes read SM 0's old copy"
    );
}

/// A host write (`cudaMemcpy`) discards L1 copies of exactly the bytes written, so the next
/// `.ca` load misses L1 and reads the new value; short writes take a per-line lookup and long
/// ones a walk of the resident lines, and both must drop the same sectors.
#[test]
fn host_writes_discard_the_l1_copies_of_the_written_sectors() {
    for span_lines in [1u64, 200] {
        let (mut m, base) = system(tiny());
        // Lines 0 and 3 cached in SM 0's L1 (sets 0 and 3 of the 4-set L1).
        let (a, b) = (line(base, 0), line(base, 3) + SECTOR);
        m.write(a, &OLD.to_le_bytes()).unwrap();
        m.write(b, &OLD.to_le_bytes()).unwrap();
        load_u32(&mut m, &ld(0), a);
        load_u32(&mut m, &ld(0), b);
        let (_, hit) = load_u32(&mut m, &ld(0), a);
        assert_eq!(hit.l1_hits, 1, "line 0 is resident before the host write");
        // Write NEW over `span_lines` lines starting at line 3's second sector.
        let len = if span_lines == 1 {
            4
        } else {
            span_lines * LINE
        };
        let mut bytes = vec![0u8; len as usize];
        bytes[..4].copy_from_slice(&NEW.to_le_bytes());
        m.write(b, &bytes).unwrap();
        let (v, o) = load_u32(&mut m, &ld(0), b);
        assert_eq!(
            v, NEW,
            "span {span_lines}: the L1 copy of the written sector is gone"
        );
        assert_eq!(
            o.l1_hits, 0,
            "span {span_lines}: the written sector misses L1"
        );
        // Line 0 was not written: its L1 copy stays.
        let (v, o) = load_u32(&mut m, &ld(0), a);
        assert_eq!(v, OLD);
        assert_eq!(
            o.l1_hits, 1,
            "span {span_lines}: unwritten line 0 still hits L1"
        );
    }
}

/// The read-only path within one SM, as an H100 runs `fetch_probe.cu`'s `same_sm` (one thread,
/// hw README section 6): `ld.global.ca x; st x; ld.global.ca x` returns the stored value, and
/// `ld.global.nc y; st y; ld.global.nc y` returns the old one — the SM's own store does not
/// update the copy the read-only path filled. The copy goes with an L1 invalidation (a fence's
/// `CCTL.IVALL`, a kernel boundary), and a sector the next `.ca` miss refills is normal again.
#[test]
fn a_store_does_not_update_the_read_only_paths_copy_of_the_same_sm() {
    let (mut m, base) = system(tiny());
    let (x, y) = (line(base, 3), line(base, 3) + 128);
    m.write(x, &100u32.to_le_bytes()).unwrap();
    m.write(y, &132u32.to_le_bytes()).unwrap();
    let nc = Request {
        non_coherent: true,
        ..ld(0)
    };
    // ld.ca x; st x; ld.ca x: the new value (the own copy is updated).
    assert_eq!(load_u32(&mut m, &ld(0), x).0, 100);
    store_u32(&mut m, &st(0), x, 101);
    let (v, o) = load_u32(&mut m, &ld(0), x);
    assert_eq!((v, o.l1_hits, o.stale_lanes), (101, 1, 0));
    // ld.nc y; st y; ld.nc y: the old value, an L1 hit on the stale copy.
    assert_eq!(load_u32(&mut m, &nc, y).0, 132);
    store_u32(&mut m, &st(0), y, 133);
    let (v, o) = load_u32(&mut m, &nc, y);
    assert_eq!((v, o.l1_hits, o.stale_lanes), (132, 1, 1));
    let mut back = [0u8; 4];
    m.read(y, &mut back).unwrap();
    assert_eq!(
        u32::from_le_bytes(back),
        133,
        "the store reached the coherent image"
    );
    // Another SM reads the new value.
    assert_eq!(load_u32(&mut m, &nc, y).0, 132);
    assert_eq!(
        load_u32(
            &mut m,
            &Request {
                non_coherent: true,
                ..ld(1)
            },
            y
        )
        .0,
        133
    );
    // An invalidation of SM 0's L1 (fence.acq_rel.gpu's CCTL.IVALL) ends it.
    m.invalidate_l1(0).unwrap();
    assert_eq!(load_u32(&mut m, &nc, y).0, 133);
    // Refilled by a normal load, the sector follows the SM's stores again.
    m.invalidate_l1(0).unwrap();
    assert_eq!(load_u32(&mut m, &ld(0), y).0, 133);
    store_u32(&mut m, &st(0), y, 134);
    assert_eq!(load_u32(&mut m, &nc, y).0, 134);
}

/// SM 0 caches X with `.ca`, SM 1 stores X, then SM 0 reads X with `.ca` again, its bytes
/// copied out (`load`) or not (`load_unread`, counters-only mode's `cp.async`): the same
/// outcome, the stale lane flagged both ways, the same counters.
#[test]
fn an_unread_load_flags_the_same_stale_lanes_and_counts_the_same() {
    let run = |unread: bool| {
        let (mut m, base) = system(tiny());
        let x = line(base, 5) + 8;
        m.write(x, &OLD.to_le_bytes()).unwrap();
        load_u32(&mut m, &ld(0), x);
        store_u32(&mut m, &st(1), x, NEW);
        // Four lanes: X (stale in SM 0's L1), its neighbour, and two in a line SM 0 never
        // read (a miss).
        let lanes = [
            LaneAccess::new(x, 4),
            LaneAccess::new(x + 4, 4),
            LaneAccess::new(line(base, 9), 4),
            LaneAccess::new(line(base, 9) + 4, 4),
        ];
        let o = if unread {
            m.load_unread(&ld(0), &lanes).unwrap()
        } else {
            m.load(&ld(0), &lanes, &mut [0u8; 16]).unwrap()
        };
        (o, m.stats())
    };
    let (read, unread) = (run(false), run(true));
    assert_eq!(read.0.stale_lanes, 1, "lane 0 reads SM 0's old copy of X");
    assert_eq!(read, unread);
}
