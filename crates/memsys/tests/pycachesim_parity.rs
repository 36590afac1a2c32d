//! Parity with an independent simulator: the traces and golden hit/miss counts in
//! `tests/memsys/` come from pycachesim (generator: `tests/memsys/pycachesim_parity.py`).
//! memsys configured as one LRU level with the same geometry must count the same.

use std::path::PathBuf;

use memsys::{replay, AccessKind, GpuConfig, MemSystem, Request};
use serde_json::Value;

fn repo_file(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

fn golden() -> Value {
    let text = std::fs::read_to_string(repo_file("tests/memsys/golden/pycachesim.json"))
        .expect("golden file (run tests/memsys/pycachesim_parity.py)");
    serde_json::from_str(&text).expect("golden JSON")
}

fn parse_trace(text: &str) -> Vec<(u64, u32)> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut f = l.split_whitespace();
            let addr = f
                .next()
                .and_then(|a| u64::from_str_radix(a.trim_start_matches("0x"), 16).ok());
            let bytes = f.next().and_then(|b| b.parse().ok());
            (addr.expect("hex address"), bytes.expect("byte count"))
        })
        .collect()
}

#[test]
fn one_level_lru_matches_pycachesim_on_every_trace() {
    let g = golden();
    let traces = g["traces"].as_array().expect("traces");
    assert!(traces.len() >= 3);
    for t in traces {
        let name = t["name"].as_str().unwrap();
        let num = |k: &str| t[k].as_u64().unwrap();
        let accesses =
            parse_trace(&std::fs::read_to_string(repo_file(t["file"].as_str().unwrap())).unwrap());
        assert_eq!(accesses.len() as u64, num("accesses"), "{name}");
        let cfg = GpuConfig::single_level(
            num("sets") as u32,
            num("ways") as u32,
            num("line_bytes") as u32,
        );
        let mut m = MemSystem::tags_only(cfg).unwrap();
        let ld = Request::load(0);
        for &(addr, bytes) in &accesses {
            m.access(&ld, addr, bytes).unwrap();
        }
        let l2 = m.stats().total().l2;
        assert_eq!(
            (l2.read_hits, l2.read_misses),
            (num("hits"), num("misses")),
            "{name}"
        );
        assert_eq!(
            m.stats().total().l1.read_sectors,
            0,
            "{name}: one level only"
        );
    }
}

/// The Python mirror of the benchmark workload (used for pycachesim's rate) produces the same
/// accesses as `replay::synthetic`.
#[test]
fn the_python_mirror_of_the_synthetic_workload_matches() {
    let want = golden()["synthetic_checksum_100k"].as_u64().unwrap();
    let mut h = 0u64;
    for a in replay::synthetic(1).take(100_000) {
        let store = u64::from(a.request.kind == AccessKind::Store);
        h = h.wrapping_mul(0x100000001B3) ^ a.addr ^ (u64::from(a.bytes) << 56) ^ (store << 63);
    }
    assert_eq!(h, want);
}
