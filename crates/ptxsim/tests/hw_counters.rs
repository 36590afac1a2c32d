//! ptxsim's cache counters against an H100's, kernel by kernel, on the corpus launches
//! (`tests/hw/h100/counters/`: Nsight Compute, caches flushed before each kernel). The same
//! comparison as `compare_counters.py` there, asserting the agreement reached so far.
//!
//! Issue 15's targets are L2 sectors (from L1) within 10 % on at least 90 % of the kernels,
//! the L2 hit rate within 5 points on at least 80 % and the L1 global-load hit rate within 2
//! points on at least 97 %; the floors below are those targets where the model reaches them and
//! what it reaches today otherwise (printed by the test and by `scripts/hw-agreement`), so a
//! change that loses agreement fails here.

mod common;
use common::root;

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn pct(n: f64, d: f64) -> f64 {
    if d > 0.0 {
        100.0 * n / d
    } else {
        0.0
    }
}

/// One kernel step's hardware row: the three quantities.
struct Hw {
    launch: String,
    step: usize,
    l2_sectors: f64,
    l2_hit_rate: f64,
    l1_hit_rate: f64,
}

/// One CSV record's fields (RFC 4180 quoting: the kernel column holds C++ names with commas).
fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                fields.last_mut().expect("field").push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(String::new()),
            c => fields.last_mut().expect("field").push(c),
        }
    }
    fields
}

/// The H100's counter table (`corpus_counters.csv`): its header and records.
struct HwCsv {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl HwCsv {
    fn load() -> Self {
        let text =
            std::fs::read_to_string(root().join("tests/hw/h100/counters/corpus_counters.csv"))
                .expect("corpus_counters.csv");
        let mut lines = text.lines();
        let header: Vec<String> = lines
            .next()
            .expect("header")
            .split(',')
            .map(String::from)
            .collect();
        let rows: Vec<Vec<String>> = lines.map(csv_fields).collect();
        for (r, l) in rows.iter().zip(text.lines().skip(1)) {
            assert_eq!(r.len(), header.len(), "{l}");
        }
        HwCsv { header, rows }
    }

    fn col(&self, name: &str) -> usize {
        self.header.iter().position(|h| h == name).expect(name)
    }

    /// Counter `name` of the first kernel step of `launch`.
    fn step0(&self, launch: &str, name: &str) -> f64 {
        let (l, s, c) = (self.col("launch"), self.col("step"), self.col(name));
        self.rows
            .iter()
            .find(|f| f[l] == launch && f[s] == "0")
            .unwrap_or_else(|| panic!("{launch} in corpus_counters.csv"))[c]
            .parse()
            .unwrap_or_else(|_| panic!("{launch}: {name} is a number"))
    }
}

fn hardware() -> Vec<Hw> {
    let csv = HwCsv::load();
    let col = |name: &str| csv.col(name);
    let (launch, step) = (col("launch"), col("step"));
    let l2 = col("lts__t_sectors_srcunit_tex.sum");
    let (l2h, l2m) = (
        col("lts__t_sectors_srcunit_tex_lookup_hit.sum"),
        col("lts__t_sectors_srcunit_tex_lookup_miss.sum"),
    );
    let (l1s, l1h) = (
        col("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
        col("l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum"),
    );
    csv.rows
        .iter()
        .map(|f| {
            let num = |i: usize| f[i].parse::<f64>().unwrap_or(0.0);
            Hw {
                launch: f[launch].to_string(),
                step: f[step].parse().expect("step"),
                l2_sectors: num(l2),
                l2_hit_rate: pct(num(l2h), num(l2h) + num(l2m)),
                l1_hit_rate: pct(num(l1h), num(l1s)),
            }
        })
        .collect()
}

/// A scratch directory for a test's reports (removed when the test drops it).
fn scratch(tag: &str) -> common::TestDir {
    common::temp_dir(tag)
}

/// Each launch's H100 counter `column` (first step) equals the number listed beside it (the
/// list's numbers are the H100's: a typo there would otherwise pass unnoticed), and ptxsim's
/// report value at JSON `pointer` equals it too.
fn assert_witnesses(tag: &str, column: &str, pointer: &str, witnesses: &[(&str, f64)]) {
    let csv = HwCsv::load();
    let dir = scratch(tag);
    for &(launch, expected) in witnesses {
        let hw = csv.step0(launch, column);
        assert_eq!(hw, expected, "{launch}: the H100's {column}");
        let report = &ptxsim_reports(launch, &dir)[0];
        let ptxsim = report
            .pointer(pointer)
            .and_then(Value::as_f64)
            .expect(pointer);
        assert_eq!(
            ptxsim, hw,
            "{launch}: {pointer}, ptxsim vs the H100's {column}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// ptxsim's per-step reports of one launch (`run --gpu h100 --report json`).
fn ptxsim_reports(launch: &str, dir: &Path) -> Vec<Value> {
    let out = dir.join(format!("{launch}.json"));
    let status = Command::new(env!("CARGO_BIN_EXE_ptxsim"))
        .args(["run", "--launch"])
        .arg(root().join(format!("tests/corpus/run/{launch}.toml")))
        .args(["--gpu", "h100", "--report", "json", "--report-out"])
        .arg(&out)
        .output()
        .expect("run ptxsim");
    assert!(
        status.status.success(),
        "{launch}: {}",
        String::from_utf8_lossy(&status.stderr)
    );
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("report")).expect("report JSON");
    match v {
        Value::Array(a) => a,
        one => vec![one],
    }
}

#[test]
fn corpus_counters_agree_with_the_h100() {
    let hw = hardware();
    assert_eq!(hw.len(), 385);
    let mut launches: Vec<&str> = hw.iter().map(|h| h.launch.as_str()).collect();
    launches.sort_unstable();
    launches.dedup();
    let dir = scratch("counters");
    // Two threads: the launches are independent.
    let reports: BTreeMap<String, Vec<Value>> = std::thread::scope(|s| {
        let halves: Vec<_> = launches
            .chunks(launches.len().div_ceil(2))
            .map(|chunk| {
                let dir = &dir;
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|l| (l.to_string(), ptxsim_reports(l, dir)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        halves
            .into_iter()
            .flat_map(|h| h.join().expect("thread"))
            .collect()
    });
    let _ = std::fs::remove_dir_all(&dir);
    let (mut l2_ok, mut hit_ok, mut l1_ok) = (0usize, 0usize, 0usize);
    for h in &hw {
        let v = &reports[&h.launch][h.step]["variants"][0];
        let t = &v["totals"];
        let num = |x: &Value| x.as_f64().unwrap_or(0.0);
        let sectors = num(&t["lts__t_sectors.sum"]);
        let hit_rate = num(&t["lts__t_sector_hit_rate.pct"]);
        let l1 = &v["levels"]["l1"];
        let l1_rate = pct(num(&l1["read_hits"]), num(&l1["read_sectors"]));
        l2_ok += usize::from((sectors - h.l2_sectors).abs() <= 0.1 * h.l2_sectors.max(1.0));
        hit_ok += usize::from((hit_rate - h.l2_hit_rate).abs() <= 5.0);
        l1_ok += usize::from((l1_rate - h.l1_hit_rate).abs() <= 2.0);
    }
    let n = hw.len() as f64;
    let share = |k: usize| 100.0 * k as f64 / n;
    println!(
        "L2 sectors within 10 %: {l2_ok}/{} ({:.1} %); L2 hit rate within 5 points: {hit_ok} ({:.1} %); \
         L1 global-load hit rate within 2 points: {l1_ok} ({:.1} %)",
        hw.len(),
        share(l2_ok),
        share(hit_ok),
        share(l1_ok)
    );
    // Before issue 15's accounting rules: 75 %, 23 %, 94 %; after the first rules 82 %, 79 %,
    // 96 %; then 84.4 %, 81.3 %, 97.7 %; now (whole-line prefetches of a buffer's last line,
    // one request per vector atomic) 85.2 % (328), 81.3 %, 97.7 %; now (a write-combining
    // window per SM sub-partition) 86.5 % (333), 82.1 % (316), 97.7 % (the hit-rate and L1
    // targets reached: asserted); then (local memory through L1 and L2) 86.8 % (334), 82.3 %
    // (317), 97.7 %; then (`-G` call-frame saves) 87.5 % (337), 83.4 % (321), 97.7 %; then
    // (the L2 request coalescer) 89.6 % (345), 85.5 % (329), 97.7 %; then (`.mmio` lanes never
    // combined) 90.4 % (348), 85.5 % (329), 97.7 %; then (`-G` frame liveness, unmerged `-G`
    // stores) 91.4 % (352), 85.7 % (330), 97.7 %; now (the L2 as two partitions, the hit rate
    // counted over both partitions' lookups; CTAs resident as the hardware holds them; the
    // coalescer's 64 lines) 91.4 % (352), 84.9 % (327), 97.7 %.
    assert!(share(l2_ok) >= 91.4, "L2 sectors: {:.1} %", share(l2_ok));
    assert!(share(hit_ok) >= 80.0, "L2 hit rate: {:.1} %", share(hit_ok));
    assert!(share(l1_ok) >= 97.0, "L1 hit rate: {:.1} %", share(l1_ok));
}

/// The kernels that bound the store write-combining windows (memsys `src/system/combine.rs`):
/// ptxsim's L2 write sectors equal the H100's (`lts__t_sectors_srcunit_tex_op_write.sum`).
/// Full merging of 12-line stores by two warps (`bit_tricks`) and one (`int_intrinsics`), of
/// 8-line byte stores (`cp_async_ignore_src_forms`); none of 16-line byte stores
/// (`cp_async_src_size_forms`) or 24-line stores (`divmod64`).
#[test]
fn store_merging_witnesses_match_the_h100_exactly() {
    assert_witnesses(
        "merging",
        "lts__t_sectors_srcunit_tex_op_write.sum",
        "/variants/0/levels/l2/write_sectors",
        &[
            ("nvcc.warp_bits.lineinfo.sm80.bit_tricks", 96.0),
            ("nvcc.warp_bits.lineinfo.sm90.bit_tricks", 96.0),
            ("nvcc.intrinsics.lineinfo.sm90.int_intrinsics", 160.0),
            ("nvcc.cp_async_forms.sm90.cp_async_ignore_src_forms", 32.0),
            ("nvcc.cp_async_forms.sm90.cp_async_src_size_forms", 2048.0),
            ("nvcc.int_divmod.lineinfo.sm90.divmod64", 3072.0),
        ],
    );
}

/// The kernels that show the L2 request coalescer's grouping (memsys
/// `src/system/read_coalescer.rs`): ptxsim's L2 read sectors equal the H100's
/// (`lts__t_sectors_srcunit_tex_op_read.sum`). Reads of one sector by CTAs an even number apart
/// merge while the first one's fill is pending (`rotary`: the 7 even CTAs after CTA 0 of 16 merge
/// their 5 shared sectors; `layer_norm`, `layer_norm_bwd`: CTA 2's), by adjacent CTAs never
/// (`matmul_fp16`, `flash_attn`: CTA pairs 0-1 read the same tile at the same point).
#[test]
fn request_coalescer_witnesses_match_the_h100_exactly() {
    assert_witnesses(
        "coalescer",
        "lts__t_sectors_srcunit_tex_op_read.sum",
        "/variants/0/totals/lts__t_sectors_op_read.sum",
        &[
            ("triton.rotary.sm80", 173.0),
            ("triton.layer_norm.sm80", 320.0),
            ("triton.layer_norm_bwd.sm90", 281.0),
            ("triton.matmul_fp16.sm80", 1024.0),
            ("triton.flash_attn.sm90", 1280.0),
        ],
    );
}

/// `.mmio` accesses are never combined (PTX ISA 8.4.1): each lane's word is its own access.
/// On the H100, `st_global_forms` (2 warps, 26 forms of one warp-wide word store each)
/// writes 282 L2 sectors where its 25 other forms make 200, and `ld_global_forms` looks up
/// 346 L1 global-load sectors where its other loads make 282 (64 = 2 warps x 32 lanes).
#[test]
fn mmio_lanes_are_separate_accesses_as_on_the_h100() {
    let csv = HwCsv::load();
    let dir = scratch("mmio");
    for sm in ["sm75", "sm90"] {
        let launch = format!("nvcc.st_forms.{sm}.st_global_forms");
        let h = csv.step0(&launch, "lts__t_sectors_srcunit_tex_op_write.sum");
        assert_eq!(h, 282.0, "{launch}: the H100's L2 write sectors");
        let report = &ptxsim_reports(&launch, &dir)[0];
        let written = report["variants"][0]["levels"]["l2"]["write_sectors"]
            .as_f64()
            .expect("write_sectors");
        // 25 forms x 2 warps x 4 sectors + 2 warps x 32 lanes; a coalesced mmio store would
        // make 208, a dropped one 200 (both more than 10 % off).
        assert_eq!(written, 264.0, "{launch}: L2 write sectors");
        assert!((written - h).abs() <= 0.1 * h, "{launch}: {written} vs {h}");

        let launch = format!("nvcc.ld_forms.{sm}.ld_global_forms");
        let h = csv.step0(&launch, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
        assert_eq!(h, 346.0, "{launch}: the H100's L1 global-load sectors");
        let report = &ptxsim_reports(&launch, &dir)[0];
        let looked_up = report["variants"][0]["levels"]["l1"]["read_sectors"]
            .as_f64()
            .expect("read_sectors");
        assert_eq!(
            looked_up, h,
            "{launch}: L1 global-load sectors, ptxsim vs H100"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
