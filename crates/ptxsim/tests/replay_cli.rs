//! `ptxsim replay` as a user runs it: statistics as text and JSON, GPU choice, trace errors
//! named FILE:LINE:COL with exit code 2.

mod common;
use common::{run_exits, run_ok, temp_dir, write};

/// Five accesses whose counters can be worked out by hand (A100: 32 B sectors, 128 B lines,
/// two L2 partitions; the line is homed in partition 0, which SM 0 is near):
/// 1. SM 0 `.ca` 4 B at line 0 sector 0: L1 miss (allocate), L2 miss (allocate); the miss
///    fetches its 64 B granule (sectors 0 and 1, the L2 fetch granularity): 64 B DRAM.
/// 2. SM 1, same sector: its own L1 misses; SM 1 is near partition 1, which misses (a copy
///    is allocated with the granule's 2 sectors: 1 more lookup miss), and the home partition
///    hits both sectors over the fabric.
/// 3. SM 0, 4 bytes further (same sector): L1 hit.
/// 4. SM 0 `.cg`: bypasses L1 (counted as an L1 lookup that misses, as Nsight does), L2 hit.
/// 5. SM 0 `st.wb` to sector 2 of line 0: SM 0's L1 holds only sector 0 (write miss), the L2
///    line lacks sector 2 (write miss, no allocation: the line is resident), marked dirty.
const TRACE: &str = "\
# sm op address bytes [policy]
0 ld.global.ca.u32 0x7f0000000000 4
1 ld.global.ca.u32 0x7f0000000000 4
0 ld.global.ca.u32 0x7f0000000004 4   # same sector
0 ld.global.cg.u32 0x7f0000000008 4

0 st.global.wb.u32 0x7f0000000040 4
";

#[test]
fn replay_prints_the_statistics_and_a_per_op_table() {
    let dir = temp_dir("text");
    let f = write(&dir, "t.trace", TRACE);
    let out = run_ok(&["replay", &f]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("gpu: a100   requests: 5"), "{text}");
    assert!(
        text.contains(
            "L1: requests 5  sectors read 4 (hit 1 / miss 3)  written 1 (hit 0 / miss 1)"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "L2: requests 4  sectors read 3 (hit 1 / miss 2)  written 1 (hit 0 / miss 1)"
        ),
        "{text}"
    );
    assert!(text.contains("L2: allocations 2  fills 1"), "{text}");
    assert!(
        text.contains("DRAM: bytes read 64  bytes written 0"),
        "{text}"
    );
    // Per op: the .ca loads made 3 L1 requests (1 hit, 2 misses) and 2 L2 requests, both
    // missing in the SM's near partition; Nsight's hit rate over both partitions' lookups:
    // 2 fabric hits of 6 lookups (2 misses, the 2 granule sectors, the 2 fabric hits).
    let ca = text
        .lines()
        .find(|l| l.starts_with("ld.global.ca.u32"))
        .expect("a row per op");
    let cols: Vec<&str> = ca.split_whitespace().collect();
    assert_eq!(
        cols[1..],
        ["3", "1/2", "2", "0/2", "64", "0", "33.33"],
        "{ca}"
    );
    assert!(text.contains("ld.global.cg.u32"), "{text}");
    assert!(text.contains("st.global.wb.u32"), "{text}");
}

#[test]
fn replay_json_has_ops_and_counters() {
    let dir = temp_dir("json");
    let f = write(&dir, "t.trace", TRACE);
    let out = run_ok(&["replay", &f, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], "ptxsim-replay/1");
    assert_eq!(
        v["ops"],
        serde_json::json!(["ld.global.ca.u32", "ld.global.cg.u32", "st.global.wb.u32"])
    );
    let total = &v["stats"]["total"];
    assert_eq!(total["l1"]["read_hits"], 1);
    assert_eq!(total["l1"]["read_misses"], 3);
    assert_eq!(total["l2"]["read_hits"], 1);
    assert_eq!(total["l2"]["write_misses"], 1);
    assert_eq!(total["dram"]["bytes_read"], 64);
    assert_eq!(total["l2"]["fetch_fills"], 1);
    assert_eq!(total["l2"]["copy_fills"], 1);
    assert_eq!(total["l2"]["fabric_read_hits"], 2);
    assert_eq!(v["stats"]["per_instr"][1]["l2"]["read_hits"], 1);
    assert_eq!(v["stats"]["per_sm"][1]["l1"]["read_misses"], 1);
    // The line at home and its copy in partition 1.
    assert_eq!(v["stats"]["l2_occupancy"]["normal"], 2);
    // Nsight's L2 hit rate, added to the total and to each instruction's counters: hits
    // (1 read, 1 written sector, 2 fabric) over lookups (those + 2 misses, 1 granule
    // sector at home, 1 copied with the far miss).
    let rate = |v: &serde_json::Value| v["lts__t_sector_hit_rate.pct"].as_f64().unwrap();
    assert!((rate(total) - 50.0).abs() < 1e-9, "{total}");
    assert!((rate(&v["stats"]["per_instr"][0]) - 100.0 / 3.0).abs() < 1e-9);
    assert!((rate(&v["stats"]["per_instr"][1]) - 100.0).abs() < 1e-9);
}

#[test]
fn replay_takes_a_preset_or_a_toml_file() {
    let dir = temp_dir("gpu");
    let f = write(&dir, "t.trace", TRACE);
    let out = run_ok(&["replay", &f, "--gpu", "h100"]);
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .starts_with("gpu: h100"));
    // A TOML file without an L1: every load goes to L2 (4 reads: SM 0's first misses, SM 1's
    // misses in its near partition, SM 0's two others hit).
    let toml = write(
        &dir,
        "gpu.toml",
        "preset = \"b200\"\nname = \"b200-no-l1\"\n[l1]\nsize_bytes = 0\n",
    );
    let out = run_ok(&["replay", &f, "--gpu", &toml, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["stats"]["gpu"], "b200-no-l1");
    assert_eq!(v["stats"]["total"]["l1"]["requests"], 0);
    assert_eq!(v["stats"]["total"]["l2"]["read_hits"], 2);
    assert_eq!(v["stats"]["total"]["l2"]["read_misses"], 2);
}

#[test]
fn trace_errors_name_file_line_and_column_and_exit_2() {
    let dir = temp_dir("errors");
    let cases = [
        // An unknown qualifier: column of the qualifier.
        (
            "0 ld.global.u32 0x7f0000000000 4\n0 ld.global.L2::evict_middle.u32 0x0 4\n",
            "2:12: unknown qualifier `.L2::evict_middle`",
        ),
        // A bad address field.
        ("\n\n0 st.global.u32 1000 4\n", "3:17: address `1000`"),
        // A policy without .L2::cache_hint.
        (
            "0 ld.global.u32 0x0 4 0x14f0000000000000\n",
            "1:3: a <hex-policy> field needs `.L2::cache_hint`",
        ),
        // Parses, but the A100 has no SM 200 (memsys rejects it at its turn).
        (
            "0 ld.global.u32 0x0 4\n200 ld.global.u32 0x0 4\n0 ld.global.bogus 0x0 4\n",
            "2:1: SM 200 does not exist",
        ),
        // Shared memory is outside the caches.
        (
            "0 ld.shared.u32 0x0 4\n",
            "1:3: `ld.shared.u32`: .shared is not cached",
        ),
        // CRLF line endings are line endings; the error is still on line 2.
        (
            "0 ld.global.u32 0x0 4\r\n0 ld.global.bogus 0x0 4\r\n",
            "2:12: unknown qualifier `.bogus`",
        ),
    ];
    for (i, (trace, want)) in cases.iter().enumerate() {
        let f = write(&dir, &format!("bad{i}.trace"), trace);
        let out = run_exits(2, &["replay", &f]);
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(&format!("{f}:{want}")), "case {i}: {err}");
        assert!(out.stdout.is_empty(), "no report on error");
    }
}

#[test]
fn a_line_that_is_not_utf8_is_named_by_line_and_column() {
    let dir = temp_dir("utf8");
    let f = dir.join("bin.trace");
    std::fs::write(&f, b"0 ld.global.u32 0x0 4\n0 ld.gl\xffobal.u32 0x0 4\n").unwrap();
    let f = f.display().to_string();
    let out = run_exits(2, &["replay", &f]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(&format!("{f}:2:8: the trace is not UTF-8 text")),
        "{err}"
    );
}

#[test]
fn bad_gpu_exits_2_and_a_missing_trace_exits_1() {
    let dir = temp_dir("args");
    let f = write(&dir, "t.trace", TRACE);
    let out = run_exits(2, &["replay", &f, "--gpu", "z100"]);
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("unknown GPU preset 'z100'"));
    let missing = dir.join("missing.trace").display().to_string();
    let out = run_exits(1, &["replay", &missing]);
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains(&format!("cannot read {missing}")));
}
