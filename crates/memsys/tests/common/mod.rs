//! Small configurations whose behaviour can be worked out by hand.
#![allow(dead_code)]

use memsys::*;

pub const LINE: u64 = 128;
pub const SECTOR: u64 = 32;

/// 2 SMs; L1: 4 sets x 2 ways (1 KiB); L2: 8 sets x 4 ways (4 KiB), modulo set index;
/// persisting carve-out 2 KiB -> at most 4 * 2048 / 4096 = 2 evict-last ways per set.
/// A miss fetches only its sectors (fetch granularity 32 B) and stores do not combine, so
/// each rule's scenario counts one effect; `granular()` turns both H100 rules back on.
pub fn tiny() -> GpuConfig {
    let mut c = GpuConfig::a100();
    c.name = "tiny".into();
    c.sm_count = 2;
    c.l1.size_bytes = 4 * 2 * 128;
    c.l1.ways = 2;
    c.l1.set_hash = SetHash::Modulo;
    c.l2.size_bytes = 8 * 4 * 128;
    c.l2.ways = 4;
    c.l2.set_hash = SetHash::Modulo;
    c.persisting_l2_bytes = 2048;
    c.l2_fetch_granularity_bytes = 32;
    c.l2_write_combine_lines = 0;
    // One L2 partition: these scenarios count one copy of each line by hand
    // (`partitioned()` has two).
    c.l2_partitions = 1;
    c
}

/// `tiny()` with the L2 built of two partitions (each 4 sets of 4 ways), SM 0 near
/// partition 0 and SM 1 near partition 1.
pub fn partitioned() -> GpuConfig {
    let mut c = tiny();
    c.name = "tiny-partitioned".into();
    c.l2_partitions = 2;
    c
}

/// `tiny()` with the H100's 64-byte L2 fetch granularity and a 2-line store-combining window.
pub fn granular() -> GpuConfig {
    let mut c = tiny();
    c.l2_fetch_granularity_bytes = 64;
    c.l2_write_combine_lines = 2;
    c
}

pub fn system(cfg: GpuConfig) -> (MemSystem, u64) {
    let mut m = MemSystem::new(cfg).expect("valid config");
    // Aligned to 64 KiB so the buffer's line numbers are multiples of every set count used here.
    let base = m.alloc(1 << 20, 1 << 16).expect("alloc");
    (m, base)
}

/// Address of line `i` of the buffer (line `i` maps to set `i % sets` under modulo indexing).
pub fn line(base: u64, i: u64) -> u64 {
    base + i * LINE
}

pub fn load_u32(m: &mut MemSystem, req: &Request, addr: u64) -> (u32, Outcome) {
    let mut out = [0u8; 4];
    let o = m
        .load(req, &[LaneAccess::new(addr, 4)], &mut out)
        .expect("load");
    (u32::from_le_bytes(out), o)
}

pub fn store_u32(m: &mut MemSystem, req: &Request, addr: u64, v: u32) -> Outcome {
    m.store(req, &[LaneAccess::new(addr, 4)], &v.to_le_bytes())
        .expect("store")
}

pub fn ld(sm: u32) -> Request {
    Request::load(sm)
}

pub fn ld_op(sm: u32, op: CacheOperator) -> Request {
    Request::load(sm).with_operator(op)
}

pub fn st(sm: u32) -> Request {
    Request::store(sm)
}

pub fn st_op(sm: u32, op: CacheOperator) -> Request {
    Request::store(sm).with_operator(op)
}

pub fn total(m: &MemSystem) -> Counters {
    m.stats().total()
}
