//! `MemSystem::record_trace`: each warp request is recorded as one access per contiguous run
//! of touched sectors of each line, in the order memsys performs the lines.

use memsys::replay::TraceAccess;
use memsys::{GpuConfig, LaneAccess, MemSystem, Request};

#[test]
fn records_runs_of_sectors_per_line_in_first_appearance_order() {
    let mut mem = MemSystem::new(GpuConfig::a100()).unwrap();
    let buf = mem.alloc(4096, 256).unwrap();
    // Nothing is recorded before recording starts.
    let mut out = [0u8; 4];
    mem.load(&Request::load(0), &[LaneAccess::new(buf, 4)], &mut out)
        .unwrap();
    mem.record_trace(true);
    assert!(mem.is_recording());
    // Lanes touch line 2 (sectors 0 and 2..=3), then line 0 (sectors 1..=2, via a lane that
    // crosses a sector boundary), then line 2 again (sector 1 joins the first group).
    let lanes = [
        LaneAccess::new(buf + 256, 4),
        LaneAccess::new(buf + 256 + 64, 8),
        LaneAccess::new(buf + 256 + 96, 4),
        LaneAccess::new(buf + 60, 8),
        LaneAccess::new(buf + 256 + 40, 4),
    ];
    let req = Request::load(3).with_instr(7);
    let mut out = [0u8; 28];
    mem.load(&req, &lanes, &mut out).unwrap();
    let st = Request::store(1);
    mem.store(&st, &[LaneAccess::new(buf + 1000, 2)], &[1, 2])
        .unwrap();
    // A request that fails its checks is not recorded.
    assert!(mem.load(&req, &[LaneAccess::new(buf, 0)], &mut []).is_err());
    let got = mem.take_recorded();
    let a = |request: Request, addr: u64, bytes: u32| TraceAccess {
        request,
        addr,
        bytes,
    };
    assert_eq!(
        got,
        vec![
            a(req, buf + 256, 128),
            a(req, buf + 32, 64),
            a(st, buf + 992, 32),
        ]
    );
    // take_recorded drains; recording goes on until turned off.
    assert!(mem.take_recorded().is_empty());
    mem.store(&st, &[LaneAccess::new(buf, 2)], &[1, 2]).unwrap();
    assert_eq!(mem.take_recorded().len(), 1);
    mem.record_trace(false);
    mem.store(&st, &[LaneAccess::new(buf, 2)], &[1, 2]).unwrap();
    assert!(mem.take_recorded().is_empty());
}

#[test]
fn non_contiguous_sectors_make_one_access_per_run() {
    let mut mem = MemSystem::new(GpuConfig::a100()).unwrap();
    let buf = mem.alloc(4096, 256).unwrap();
    mem.record_trace(true);
    let lanes = [LaneAccess::new(buf, 4), LaneAccess::new(buf + 96, 4)];
    mem.load(&Request::load(0), &lanes, &mut [0u8; 8]).unwrap();
    let got: Vec<(u64, u32)> = mem
        .take_recorded()
        .iter()
        .map(|a| (a.addr - buf, a.bytes))
        .collect();
    assert_eq!(got, vec![(0, 32), (96, 32)]);
}
