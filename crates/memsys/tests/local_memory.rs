//! Local-memory requests ([`MemSystem::local`]): tags and counters only, L1 allocated on
//! loads and stores, stores written through to L2 outside the write-combining windows, and
//! L1 events counted apart from the global ones (`Counters::l1_local`). The expected
//! counters are worked out by hand from the rules in `src/system/route.rs` and
//! `src/system/work.rs` (crates/memsys/README.md, rule "local memory").

mod common;

use common::*;
use memsys::*;

/// Where the tests put local memory: outside every allocation, as the interpreter does.
const LOCAL: u64 = 0x7e00_0000_0000;

fn local(kind: AccessKind) -> Request {
    Request {
        kind,
        space: Space::Local,
        ..Request::load(0)
    }
}

/// A warp's access to one 32-bit word of its lanes' local memory: lane `l` at `l * 4` of
/// the word's 128-byte row (the hardware's interleaving).
fn warp_word(row: u64) -> Vec<LaneAccess> {
    (0..32)
        .map(|l| LaneAccess::new(LOCAL + row * LINE + l * 4, 4))
        .collect()
}

#[test]
fn a_warps_local_store_writes_one_line_through_to_l2_and_its_reload_hits_l1() {
    let (mut m, _) = system(tiny());
    let st = m.local(&local(AccessKind::Store), &warp_word(0)).unwrap();
    // Four sectors written to L2, none read from DRAM.
    assert_eq!((st.l2_hits + st.l2_misses, st.dram_sectors_read), (4, 0));
    let t = total(&m);
    assert_eq!((t.l2.write_sectors, t.l2.read_sectors), (4, 0));
    assert_eq!(
        (
            t.l1_local.write_sectors,
            t.l1_local.write_misses,
            t.l1_local.allocations
        ),
        (4, 4, 1)
    );
    // The store installed its sectors: the reload is four L1 hits and nothing at L2.
    let ld = m.local(&local(AccessKind::Load), &warp_word(0)).unwrap();
    assert_eq!(
        (ld.l1_hits, ld.l1_misses, ld.l2_hits + ld.l2_misses),
        (4, 0, 0)
    );
    let t = total(&m);
    assert_eq!((t.l1_local.read_sectors, t.l1_local.read_hits), (4, 4));
    assert_eq!(t.l2.read_sectors, 0);
    // None of it is global traffic for L1's counters.
    assert_eq!(t.l1, LevelCounters::default());
    assert_eq!(m.l1_line(0, LOCAL).unwrap().valid_sectors, 0b1111);
}

#[test]
fn a_local_load_miss_fills_l1_from_l2() {
    let (mut m, _) = system(tiny());
    let o = m.local(&local(AccessKind::Load), &warp_word(3)).unwrap();
    assert_eq!((o.l1_hits, o.l1_misses, o.l2_misses), (0, 4, 4));
    let again = m.local(&local(AccessKind::Load), &warp_word(3)).unwrap();
    assert_eq!((again.l1_hits, again.l1_misses), (4, 0));
    let t = total(&m);
    assert_eq!(
        (
            t.l1_local.read_sectors,
            t.l1_local.read_misses,
            t.l1.read_sectors
        ),
        (8, 4, 0)
    );
    assert_eq!((t.l2.read_sectors, t.l2.read_misses), (4, 4));
}

#[test]
fn a_volatile_local_load_is_served_by_l1_like_a_weak_one() {
    let (mut m, _) = system(tiny());
    let volatile = |kind| Request {
        semantics: Semantics::Volatile,
        ..local(kind)
    };
    m.local(&volatile(AccessKind::Store), &warp_word(1))
        .unwrap();
    let o = m.local(&volatile(AccessKind::Load), &warp_word(1)).unwrap();
    assert_eq!((o.l1_hits, o.l2_hits + o.l2_misses), (4, 0));
}

#[test]
fn local_stores_take_no_entry_in_the_write_combining_window() {
    // granular(): a 2-line window per sub-partition.
    let (mut m, base) = system(granular());
    let st = |m: &mut MemSystem, i| {
        let lanes: Vec<_> = (0..32)
            .map(|l| LaneAccess::new(line(base, i) + l * 4, 4))
            .collect();
        m.store(&Request::store(0), &lanes, &[0u8; 128]).unwrap();
    };
    st(&mut m, 0);
    st(&mut m, 1);
    m.local(&local(AccessKind::Store), &warp_word(0)).unwrap();
    m.local(&local(AccessKind::Store), &warp_word(0)).unwrap();
    // Lines 0 and 1 are still pending: stored again, they add nothing.
    st(&mut m, 0);
    st(&mut m, 1);
    // 2 x 4 global sectors once, and both local stores in full.
    assert_eq!(total(&m).l2.write_sectors, 8 + 8);
}

#[test]
fn only_local_loads_and_stores_pass_through_local() {
    let (mut m, base) = system(tiny());
    let lanes = [LaneAccess::new(base, 4)];
    // A global request passed to `local`.
    assert!(matches!(
        m.local(&Request::load(0), &lanes),
        Err(MemError::Unsupported { .. })
    ));
    // PTX has no local atomics.
    let atom = local(AccessKind::Atomic);
    assert!(matches!(
        m.local(&atom, &warp_word(0)),
        Err(MemError::Unsupported { .. })
    ));
    assert!(m.atomic(&atom, &warp_word(0), &mut |_, _| {}).is_err());
    // Nothing was counted by the refused requests.
    assert_eq!(total(&m), Counters::default());
}
