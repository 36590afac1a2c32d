//! SM ports (`system/port.rs`): SMs lent to ports and settled in turn order give the same
//! bytes, counters, L2 state, random draws, timeline and recorded trace as one memory
//! system performing the same turns in that order, for any partition of the SMs; another
//! SM's store of the same phase is visible only after the settle; misuse is an error, not a
//! panic.

use memsys::*;

const SMS: u32 = 8;

/// 8 SMs with small caches (evictions), the H100's fetch granularity, a 2-line store
/// combining window and a timeline sample every 7 requests.
fn config() -> GpuConfig {
    let mut c = GpuConfig::a100();
    c.name = "ports".into();
    c.sm_count = SMS;
    c.l1.size_bytes = 4 * 2 * 128;
    c.l1.ways = 2;
    c.l2.size_bytes = 16 * 4 * 128;
    c.l2.ways = 4;
    c.persisting_l2_bytes = 2048;
    c.l2_fetch_granularity_bytes = 64;
    c.l2_write_combine_lines = 2;
    c.timeline_interval = 7;
    c.seed = 11;
    c
}

/// A read-only buffer every SM loads, and one region per SM that only it stores to.
struct Layout {
    shared: u64,
    regions: u64,
}

const SHARED_LINES: u64 = 64;
const REGION_LINES: u64 = 16;

fn system() -> (MemSystem, Layout) {
    let mut m = MemSystem::new(config()).unwrap();
    let shared = m.alloc(SHARED_LINES * 128, 128).unwrap();
    let regions = m.alloc(u64::from(SMS) * REGION_LINES * 128, 128).unwrap();
    let init: Vec<u8> = (0..SHARED_LINES * 128).map(|i| (i * 7 + 3) as u8).collect();
    m.write(shared, &init).unwrap();
    m.record_trace(true);
    (m, Layout { shared, regions })
}

/// One warp request of a turn.
#[derive(Clone)]
enum Access {
    Load(Request, Vec<LaneAccess>),
    Store(Request, Vec<LaneAccess>, Vec<u8>),
}

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// `turns[pos]`: (SM, its requests), in turn order. Loads read the shared buffer or the
/// SM's own region (where its earlier stores of the phase are); stores write its region.
fn workload(layout: &Layout, seed: u64) -> Vec<(u32, Vec<Access>)> {
    let mut r = XorShift(seed);
    let fraction = MemSystem::create_fractional_policy(
        L2EvictionPriority::Last,
        L2EvictionPriority::First,
        0.5,
    )
    .unwrap();
    let load_ops = [
        CacheOperator::Ca,
        CacheOperator::Cg,
        CacheOperator::Cs,
        CacheOperator::Lu,
        CacheOperator::Cv,
    ];
    let store_ops = [
        CacheOperator::Wb,
        CacheOperator::Wt,
        CacheOperator::Cg,
        CacheOperator::Cs,
    ];
    (0..60)
        .map(|_| {
            let sm = (r.next() % u64::from(SMS)) as u32;
            let region = layout.regions + u64::from(sm) * REGION_LINES * 128;
            let accesses = (0..6)
                .map(|k| {
                    let lanes = 1 + (r.next() % 12) as usize;
                    let word = r.next() % 32;
                    let kind = r.next() % 3;
                    let base = match kind {
                        0 => layout.shared + (r.next() % (SHARED_LINES - 1)) * 128,
                        _ => region + (r.next() % (REGION_LINES - 1)) * 128,
                    };
                    // Lanes of 4 bytes from `word` on, wrapping into the next line.
                    let acc: Vec<LaneAccess> = (0..lanes as u64)
                        .map(|i| LaneAccess::new(base + ((word + i) % 40) * 4, 4))
                        .collect();
                    let instr = InstrId(k * 3 + kind as u32);
                    if kind == 2 {
                        let op = store_ops[(r.next() % 4) as usize];
                        let data = (0..lanes * 4).map(|_| r.next() as u8).collect();
                        Access::Store(
                            Request {
                                instr,
                                ..Request::store(sm).with_operator(op)
                            },
                            acc,
                            data,
                        )
                    } else {
                        let op = load_ops[(r.next() % 5) as usize];
                        let policy = (r.next() % 3 == 0).then_some(fraction);
                        Access::Load(
                            Request {
                                instr,
                                policy,
                                ..Request::load(sm).with_operator(op)
                            },
                            acc,
                        )
                    }
                })
                .collect();
            (sm, accesses)
        })
        .collect()
}

/// What the loads returned, the statistics and the final bytes of both buffers.
fn observed(m: &mut MemSystem, layout: &Layout, loads: Vec<Vec<u8>>) -> (Vec<Vec<u8>>, String) {
    let mut shared = vec![0u8; (SHARED_LINES * 128) as usize];
    m.read(layout.shared, &mut shared).unwrap();
    let mut regions = vec![0u8; (u64::from(SMS) * REGION_LINES * 128) as usize];
    m.read(layout.regions, &mut regions).unwrap();
    let trace = m.take_recorded();
    (
        loads,
        format!("{:?}\n{shared:?}\n{regions:?}\ntrace {trace:?}", m.stats()),
    )
}

fn perform_direct(m: &mut MemSystem, turns: &[(u32, Vec<Access>)]) -> Vec<Vec<u8>> {
    let mut loads = Vec::new();
    for (_, accesses) in turns {
        for a in accesses {
            match a {
                Access::Load(req, lanes) => {
                    let mut out = vec![0u8; lanes.len() * 4];
                    m.load(req, lanes, &mut out).unwrap();
                    loads.push(out);
                }
                Access::Store(req, lanes, data) => {
                    m.store(req, lanes, data).unwrap();
                }
            }
        }
    }
    loads
}

/// The same turns on `ports` ports (SM `s` on port `s % ports`), the ports run one after
/// the other in reverse order, then settled.
fn perform_on_ports(m: &mut MemSystem, turns: &[(u32, Vec<Access>)], ports: u32) -> Vec<Vec<u8>> {
    let mut p: Vec<SmPort> = (0..ports).map(|_| m.sm_port().unwrap()).collect();
    for (i, port) in p.iter_mut().enumerate() {
        let sms: Vec<u32> = (0..SMS).filter(|s| s % ports == i as u32).collect();
        m.lend(port, &sms).unwrap();
    }
    let mut loads: Vec<Option<Vec<u8>>> = Vec::new();
    let mut slot = 0;
    let mut slots = Vec::new();
    for (_, accesses) in turns {
        let mut s = Vec::new();
        for a in accesses {
            if matches!(a, Access::Load(..)) {
                s.push(slot);
                slot += 1;
                loads.push(None);
            }
        }
        slots.push(s);
    }
    for (i, port) in p.iter_mut().enumerate().rev() {
        for (pos, (sm, accesses)) in turns.iter().enumerate() {
            if sm % ports != i as u32 {
                continue;
            }
            port.begin_turn(pos as u32);
            let mut k = 0;
            for a in accesses {
                match a {
                    Access::Load(req, lanes) => {
                        let mut out = vec![0u8; lanes.len() * 4];
                        port.load(req, lanes, &mut out).unwrap();
                        loads[slots[pos][k]] = Some(out);
                        k += 1;
                    }
                    Access::Store(req, lanes, data) => {
                        port.store(req, lanes, data).unwrap();
                    }
                }
            }
        }
    }
    let mut refs: Vec<&mut SmPort> = p.iter_mut().collect();
    m.settle(&mut refs);
    loads.into_iter().map(|l| l.unwrap()).collect()
}

#[test]
fn ports_settled_in_turn_order_match_one_system_for_every_partition() {
    for seed in [1, 2, 3, 0x5eed] {
        let (mut direct, layout) = system();
        let turns = workload(&layout, seed);
        // Two phases in a row: the second starts from the first one's caches and windows.
        let mut d = perform_direct(&mut direct, &turns[..30]);
        d.extend(perform_direct(&mut direct, &turns[30..]));
        let expected = observed(&mut direct, &layout, d);
        for ports in [1, 2, 3, 8] {
            let (mut m, layout) = system();
            let mut l = perform_on_ports(&mut m, &turns[..30], ports);
            l.extend(perform_on_ports(&mut m, &turns[30..], ports));
            let got = observed(&mut m, &layout, l);
            assert!(
                got.0 == expected.0,
                "seed {seed}, {ports} ports: load results differ"
            );
            assert!(
                got.1 == expected.1,
                "seed {seed}, {ports} ports: statistics, memory or trace differ"
            );
        }
    }
}

#[test]
fn another_sms_store_is_seen_after_the_settle_and_the_later_turn_wins() {
    let mut cfg = config();
    cfg.l1.size_bytes = 0;
    let mut m = MemSystem::new(cfg).unwrap();
    let x = m.alloc(256, 256).unwrap();
    let y = x + 128;
    m.write(x, &1u32.to_le_bytes()).unwrap();
    let (mut p0, mut p1) = (m.sm_port().unwrap(), m.sm_port().unwrap());
    m.lend(&mut p0, &[0]).unwrap();
    m.lend(&mut p1, &[1]).unwrap();
    let load = |p: &mut SmPort, sm: u32, addr: u64| {
        let mut out = [0u8; 4];
        p.load(&Request::load(sm), &[LaneAccess::new(addr, 4)], &mut out)
            .unwrap();
        u32::from_le_bytes(out)
    };
    let store = |p: &mut SmPort, sm: u32, addr: u64, v: u32| {
        p.store(
            &Request::store(sm),
            &[LaneAccess::new(addr, 4)],
            &v.to_le_bytes(),
        )
        .unwrap();
    };
    // Port 1 (SM 1) runs first in wall time; turn positions decide the order.
    p1.begin_turn(1);
    assert_eq!(
        load(&mut p1, 1, x),
        1,
        "SM 0's store of this phase is not seen"
    );
    p1.begin_turn(4);
    store(&mut p1, 1, y, 6);
    p0.begin_turn(0);
    store(&mut p0, 0, x, 2);
    p0.begin_turn(2);
    assert_eq!(load(&mut p0, 0, x), 2, "an SM sees its own store");
    p0.begin_turn(3);
    store(&mut p0, 0, y, 5);
    m.settle(&mut [&mut p0, &mut p1]);
    let mut b = [0u8; 4];
    m.read(x, &mut b).unwrap();
    assert_eq!(u32::from_le_bytes(b), 2);
    m.read(y, &mut b).unwrap();
    assert_eq!(
        u32::from_le_bytes(b),
        6,
        "turn 4's store lands after turn 3's"
    );
    // The image is the system's own again.
    m.write(x, &3u32.to_le_bytes()).unwrap();
}

/// A read on a port whose bytes the caller does not use (`load_unread`) does what `load`
/// does: the same outcome (a stale lane included: SM 0's L1 keeps X's old bytes after SM 1
/// stores X) and, once settled, the same counters.
#[test]
fn an_unread_load_on_a_port_counts_as_a_load() {
    let run = |unread: bool| {
        let mut m = MemSystem::new(config()).unwrap();
        let x = m.alloc(4096, 256).unwrap();
        m.write(x, &1u32.to_le_bytes()).unwrap();
        let mut p = m.sm_port().unwrap();
        m.lend(&mut p, &[0]).unwrap();
        p.begin_turn(0);
        p.load(&Request::load(0), &[LaneAccess::new(x, 4)], &mut [0u8; 4])
            .unwrap();
        m.settle(&mut [&mut p]);
        m.store(
            &Request::store(1),
            &[LaneAccess::new(x, 4)],
            &2u32.to_le_bytes(),
        )
        .unwrap();
        m.lend(&mut p, &[0]).unwrap();
        p.begin_turn(1);
        let lanes = [LaneAccess::new(x, 4), LaneAccess::new(x + 1024, 4)];
        let o = if unread {
            p.load_unread(&Request::load(0), &lanes).unwrap()
        } else {
            p.load(&Request::load(0), &lanes, &mut [0u8; 8]).unwrap()
        };
        m.settle(&mut [&mut p]);
        (o, m.stats())
    };
    let (read, unread) = (run(false), run(true));
    assert_eq!(read.0.stale_lanes, 1, "lane 0 reads SM 0's old copy of X");
    assert_eq!(read, unread);
}

#[test]
fn misuse_of_a_port_is_an_error() {
    let mut m = MemSystem::new(config()).unwrap();
    let x = m.alloc(256, 256).unwrap();
    let mut p = m.sm_port().unwrap();
    let mut out = [0u8; 4];
    let lane = [LaneAccess::new(x, 4)];
    // Not lent yet.
    assert!(p.load(&Request::load(0), &lane, &mut out).is_err());
    m.lend(&mut p, &[0]).unwrap();
    // Lent, but no turn begun.
    assert!(p.load(&Request::load(0), &lane, &mut out).is_err());
    p.begin_turn(0);
    assert!(
        p.load(&Request::load(1), &lane, &mut out).is_err(),
        "SM 1 not lent"
    );
    assert!(
        p.load(&Request::load(SMS), &lane, &mut out).is_err(),
        "no such SM"
    );
    let volatile = Request {
        semantics: Semantics::Volatile,
        ..Request::load(0)
    };
    assert!(p.load(&volatile, &lane, &mut out).is_err(), "strong access");
    let outside = [LaneAccess::new(x + 4096, 4)];
    assert!(p.load(&Request::load(0), &outside, &mut out).is_err());
    assert!(p.load(&Request::load(0), &lane, &mut out).is_ok());
    assert!(m.lend(&mut p, &[0]).is_err(), "lent twice");
    assert!(m.lend(&mut p, &[SMS]).is_err(), "no such SM");
    m.settle(&mut [&mut p]);
    m.write(x, &[1, 2, 3, 4]).unwrap();
}

#[test]
fn data_only_reads_and_writes_follow_the_same_rules() {
    let mut m = MemSystem::new(config()).unwrap();
    let x = m.alloc(256, 256).unwrap();
    m.write(x, &[1; 16]).unwrap();
    let (mut p0, mut p1) = (m.sm_port().unwrap(), m.sm_port().unwrap());
    m.lend(&mut p0, &[0]).unwrap();
    m.lend(&mut p1, &[1]).unwrap();
    let mut b = [0u8; 8];
    p0.begin_turn(2);
    // Two lanes' writes in a row (one record), then a read across them and the old bytes.
    p0.write(0, x + 4, &[2, 2]).unwrap();
    p0.write(0, x + 6, &[3, 3]).unwrap();
    p0.read(0, x + 2, &mut b).unwrap();
    assert_eq!(b, [1, 1, 2, 2, 3, 3, 1, 1]);
    p1.begin_turn(1);
    p1.read(1, x + 2, &mut b).unwrap();
    assert_eq!(
        b, [1; 8],
        "SM 0's writes of this phase are not seen by SM 1"
    );
    p1.write(1, x + 5, &[9]).unwrap();
    assert!(p1.read(1, x + 4096, &mut b).is_err(), "unmapped");
    assert!(
        p1.read(0, x, &mut b).is_err(),
        "SM 0 is not lent to this port"
    );
    assert!(
        p1.write(1, x + 250, &[0; 16]).is_err(),
        "past the allocation"
    );
    m.settle(&mut [&mut p0, &mut p1]);
    m.read(x + 2, &mut b).unwrap();
    // Turn 1 (SM 1's 9) lands before turn 2 (SM 0's 2, 2, 3, 3).
    assert_eq!(b, [1, 1, 2, 2, 3, 3, 1, 1]);
}
