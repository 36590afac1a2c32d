//! The kernel-time estimate against the H100's measured durations (tests/timing/data, copied
//! from the project's H100 measurements; see its NOTE.md). The estimate is a function of a
//! launch's work (`KernelWork`: launch shape, instruction mix, memory counters), so each check
//! builds the work of the measured launch at full size from runs small enough for a test
//! (docs/timing.md, "How the tests reach full-size launches"):
//!
//! - the 256 MiB bandwidth passes: the same access streams replayed through memsys on an H100
//!   whose L2, set-aside and buffers are all 1/32 of the real ones (a streaming pass's counters
//!   depend only on those ratios), counters scaled back by 32;
//! - the matmul: the interpreter runs one CTA of each variant over the full K (every CTA of the
//!   grid does the same work, so the grid's instructions, shared-memory, L1 and L2-lookup
//!   traffic are CTAs x one CTA's); DRAM traffic, which depends on what CTAs share in L2, is
//!   the H100's own (ncu's DRAM counters in matmul_timing.csv).

use assert_cmd::Command;
use memsys::{replay, CacheOperator, GpuConfig, MemSystem, Request, Stats};
use ptxsim_report::timing::{estimate, Gpu, KernelWork, TimeEstimate};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/timing/data")
}

/// Rows of a committed CSV (comment lines `#` skipped) as header → value maps.
fn csv(name: &str) -> Vec<std::collections::HashMap<String, String>> {
    let text = std::fs::read_to_string(data_dir().join(name)).unwrap();
    let mut lines = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty());
    let head: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    lines
        .map(|l| {
            head.iter()
                .cloned()
                .zip(l.split(',').map(str::to_string))
                .collect()
        })
        .collect()
}

fn err_pct(est: f64, measured: f64) -> f64 {
    (est - measured) * 100.0 / measured
}

// ---- The 256 MiB bandwidth passes (bandwidth_setaside.csv) ----

const SCALE: u64 = 32;
const MIB: u64 = 1 << 20;
/// The real buffers: 256 MiB.
const PASS_BYTES: u64 = 256 * MIB;
/// `scripts/bw_setaside.cu`: `sms * 8` CTAs of 256 threads, one float4 per thread and
/// iteration of a grid-stride loop.
const CTAS: u64 = 132 * 8;
const THREADS: u32 = 256;
/// Warp instructions per float4 element and warp of the grid-stride loop (the loop of
/// `pass<2>` in nvcc 13.5's SASS: address, bound check, load, store, add, branch): an
/// approximation that only the issue term reads, 20x below the DRAM term.
const INSTR_PER_ITER: u64 = 12;
const EVICT_LAST_1_0: u64 = 0x14F0_0000_0000_0000;
const SRC: u64 = 0x7000_0000_0000;
const DST: u64 = 0x7100_0000_0000;
const FLUSH: u64 = 0x7200_0000_0000;

fn scaled_h100(setaside: u64) -> GpuConfig {
    let mut c = GpuConfig::h100();
    c.l2.size_bytes /= SCALE;
    c.persisting_l2_bytes = setaside / SCALE;
    c
}

/// One warp-sized 128-byte line request per line of `bytes` at `base`, SMs in turn.
fn lines(
    base: u64,
    bytes: u64,
    req: impl Fn(u32) -> Request,
) -> impl Iterator<Item = replay::TraceAccess> {
    (0..bytes / 128).map(move |i| replay::TraceAccess {
        request: req((i % 132) as u32),
        addr: base + i * 128,
        bytes: 128,
    })
}

fn counters(s: &Stats) -> memsys::Counters {
    s.total()
}

/// The pass's work at full size: the flush the script runs first (a 256 MiB memset, leaving L2
/// full of dirty lines the pass then writes back), then the pass, counters of the pass only.
fn stream_work(pass: &str, setaside: u64) -> KernelWork {
    let cfg = scaled_h100(setaside);
    let mut mem = MemSystem::tags_only(cfg.clone()).unwrap();
    let n = PASS_BYTES / SCALE;
    replay::run(&mut mem, lines(FLUSH, n, Request::store)).unwrap();
    let before = counters(&mem.stats());
    let load = Request::load;
    let cs_store = |sm| Request::store(sm).with_operator(CacheOperator::Cs);
    let last_load = |sm| Request {
        policy: Some(EVICT_LAST_1_0),
        ..Request::load(sm)
    };
    let accesses: Vec<replay::TraceAccess> = match pass {
        "read" => lines(SRC, n, load).collect(),
        "read_evict_last" => lines(SRC, n, last_load).collect(),
        "write" => lines(DST, n, Request::store).collect(),
        "write_st_cs" => lines(DST, n, cs_store).collect(),
        "copy" => lines(SRC, n, load)
            .zip(lines(DST, n, Request::store))
            .flat_map(|(a, b)| [a, b])
            .collect(),
        "copy_st_cs" => lines(SRC, n, load)
            .zip(lines(DST, n, cs_store))
            .flat_map(|(a, b)| [a, b])
            .collect(),
        other => panic!("unknown pass {other}"),
    };
    replay::run(&mut mem, accesses).unwrap();
    let after = counters(&mem.stats());
    let d = |a: u64, b: u64| (a - b) * SCALE;
    let elements_per_warp = PASS_BYTES / 16 / 32;
    KernelWork {
        ctas: CTAS,
        threads_per_cta: THREADS,
        shared_bytes_per_cta: 0,
        warp_instructions: elements_per_warp * INSTR_PER_ITER,
        l1_sectors: d(
            after.l1.read_sectors + after.l1.write_sectors + after.l1.sector_fills,
            before.l1.read_sectors + before.l1.write_sectors + before.l1.sector_fills,
        ),
        l2_sectors: d(
            after.l2.read_sectors + after.l2.write_sectors,
            before.l2.read_sectors + before.l2.write_sectors,
        ),
        l2_write_miss_sectors: d(after.l2.write_misses, before.l2.write_misses),
        sector_bytes: 32,
        dram_read_bytes: d(after.dram.bytes_read, before.dram.bytes_read),
        dram_write_bytes: d(after.dram.bytes_written, before.dram.bytes_written),
        setaside_bytes: setaside,
        l2_size_bytes: GpuConfig::h100().l2.size_bytes,
        // One float4 load per element and warp, served by DRAM.
        load_warp_instructions: if pass.starts_with("write") {
            0
        } else {
            elements_per_warp
        },
        ..KernelWork::default()
    }
}

fn h100_estimate(work: &KernelWork) -> TimeEstimate {
    let c = GpuConfig::h100();
    estimate(work, Gpu::of(&c))
}

#[test]
fn bandwidth_passes_of_256_mib_within_25_percent() {
    let mut failures = Vec::new();
    let mut table = String::new();
    for row in csv("bandwidth_setaside.csv") {
        if row["bytes"] != "268435456" {
            continue;
        }
        // limit_mb is MiB (31.25 = the maximum, 32,768,000 B).
        let setaside = (row["limit_mb"].parse::<f64>().unwrap() * MIB as f64) as u64;
        let pass = row["pass"].as_str();
        let measured = row["ms"].parse::<f64>().unwrap() * 1e6;
        let est = h100_estimate(&stream_work(pass, setaside));
        let e = err_pct(est.ns, measured);
        table.push_str(&format!(
            "{:>6} MiB {:<16} measured {:>8.0} ns  estimate {:>8.0} ns  {:+6.1}%  bound {:?}\n",
            row["limit_mb"], pass, measured, est.ns, e, est.bound
        ));
        if e.abs() > 25.0 {
            failures.push(format!("{} {pass}", row["limit_mb"]));
        }
    }
    println!("{table}");
    assert!(failures.is_empty(), "beyond 25 %: {failures:?}\n{table}");
}

#[test]
fn setaside_slows_writes_not_reads() {
    let read0 = h100_estimate(&stream_work("read", 0)).ns;
    let read_max = h100_estimate(&stream_work("read", 32_768_000)).ns;
    let write0 = h100_estimate(&stream_work("write", 0)).ns;
    let write_max = h100_estimate(&stream_work("write", 32_768_000)).ns;
    assert!((read_max / read0 - 1.0).abs() < 0.1, "{read0} {read_max}");
    assert!(write_max / write0 > 2.0, "{write0} {write_max}");
}

// ---- The matmul (matmul_timing.csv) ----

/// One CTA of `variant` over a K-long reduction: its work as the interpreter counted it.
fn one_cta_work(variant: &str, k: u32) -> KernelWork {
    let dir = data_dir();
    let k_s = k.to_string();
    let out = Command::cargo_bin("ptxsim")
        .unwrap()
        .args(["run"])
        .arg(dir.join(format!("kernels/{variant}.ptx")))
        .args(["--kernel", "matmul_kernel", "--grid", "1", "--block", "128"])
        // Set-aside 0, as the H100 ran it.
        .args(["--shared", "16384", "--report", "json", "--gpu", "h100"])
        .args(["--persisting-l2", "0"])
        .args(["--arg", &format!("zeros:f16:{}", 64 * k)])
        .args(["--arg", &format!("zeros:f16:{}", 64 * k)])
        .args(["--arg", "zeros:f16:4096"])
        .args([
            "--arg",
            "s32:64",
            "--arg",
            "s32:64",
            "--arg",
            &format!("s32:{k_s}"),
        ])
        .args([
            "--arg",
            &format!("s32:{k_s}"),
            "--arg",
            "s32:64",
            "--arg",
            "s32:64",
        ])
        .args(["--arg", "null", "--arg", "null"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    serde_json::from_value(v["variants"][0]["time"]["work"].clone()).unwrap()
}

/// The grid's work: `ctas` copies of one CTA's, with the H100's DRAM counters.
fn grid_work(cta: &KernelWork, ctas: u64, dram_read: u64, dram_write: u64) -> KernelWork {
    KernelWork {
        ctas,
        warp_instructions: cta.warp_instructions * ctas,
        mma_flops: cta.mma_flops * ctas,
        wgmma_flops: cta.wgmma_flops * ctas,
        shared_bytes: cta.shared_bytes * ctas,
        l1_sectors: cta.l1_sectors * ctas,
        l2_sectors: cta.l2_sectors * ctas,
        l2_write_miss_sectors: cta.l2_write_miss_sectors * ctas,
        dram_read_bytes: dram_read,
        dram_write_bytes: dram_write,
        setaside_bytes: 0,
        ..*cta
    }
}

/// Pairs `N faster < slower` the H100 separates by more than 5 % and the estimate does not:
/// at 1024^3 the `.L2::256B` prefetch variant is 6 % slower than the original (and 5.8 % than
/// `persist`) with the same DRAM traffic; no counter ptxsim has separates them, so the estimate
/// ties them (docs/timing.md, Limits).
const KNOWN_RANK_DISAGREEMENTS: &[&str] = &["1024 original < prefetch", "1024 persist < prefetch"];

#[test]
fn matmul_2048_within_25_percent_and_variants_ranked_as_on_the_h100() {
    let rows = csv("matmul_timing.csv");
    let mut table = String::new();
    let mut failures = Vec::new();
    let mut disagreements = Vec::new();
    for n in [1024u64, 2048] {
        let mut measured = Vec::new();
        let mut estimated = Vec::new();
        for row in rows.iter().filter(|r| r["n"] == n.to_string()) {
            let variant = row["variant"].as_str();
            let cta = one_cta_work(variant, n as u32);
            let work = grid_work(
                &cta,
                (n / 64) * (n / 64),
                row["dram_read_bytes"].parse().unwrap(),
                row["dram_write_bytes"].parse().unwrap(),
            );
            let est = h100_estimate(&work);
            let m: f64 = row["duration_ns_ncu"].parse().unwrap();
            let e = err_pct(est.ns, m);
            table.push_str(&format!(
                "{n:>5} {variant:<9} measured {m:>7.0} ns  estimate {:>7.0} ns  {e:+6.1}%  bound {:?} ({:.2}x)\n",
                est.ns, est.bound, est.margin
            ));
            if n == 2048 && e.abs() > 25.0 {
                failures.push(format!("{n} {variant}: {e:+.1}%"));
            }
            measured.push((variant.to_string(), m));
            estimated.push(est.ns);
        }
        // Every pair the H100 separates by more than 5 % is ordered the same way, but the
        // known disagreements (docs/timing.md, Limits), which must stay exactly these.
        for i in 0..measured.len() {
            for j in 0..measured.len() {
                let (mi, mj) = (measured[i].1, measured[j].1);
                if mj > mi * 1.05 && estimated[j] <= estimated[i] {
                    disagreements.push(format!("{n} {} < {}", measured[i].0, measured[j].0));
                }
            }
        }
    }
    disagreements.sort();
    let mut known: Vec<String> = KNOWN_RANK_DISAGREEMENTS
        .iter()
        .map(|s| s.to_string())
        .collect();
    known.sort();
    if disagreements != known {
        failures.push(format!(
            "pairs the H100 orders (> 5 % apart) that the estimate does not: {disagreements:?}, expected exactly {known:?}"
        ));
    }
    println!("{table}");
    assert!(failures.is_empty(), "{failures:#?}\n{table}");
}

// ---- The estimate in reports ----

fn demo(extra: &[&str]) -> std::process::Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    Command::cargo_bin("ptxsim")
        .unwrap()
        .current_dir(&root)
        .args(["compare", "--launch", "examples/matmul_fp16.sm80.toml"])
        .args([
            "--variant",
            "l1=cp.async=ca",
            "--variant",
            "prefetch=cp.async=.L2::256B",
        ])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn reports_carry_the_estimate_and_compare_ranks_by_it() {
    let out = demo(&["--report", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut times = Vec::new();
    for var in v["variants"].as_array().unwrap() {
        let t = &var["time"];
        let ns = t["ns"].as_f64().unwrap();
        assert_eq!(
            var["totals"]["gpu__time_duration.sum"].as_u64().unwrap(),
            ns.round() as u64
        );
        // The bound is the longest term (DRAM reads and writes together as the bus).
        let terms = t["terms"].as_array().unwrap();
        let term = |r: &str| {
            terms
                .iter()
                .find(|x| x["resource"] == r)
                .and_then(|x| x["ns"].as_f64())
                .unwrap()
        };
        let dram = term("dram_reads") + term("dram_writes");
        let longest = ["l2", "l1_shared", "issue", "tensor_cores", "latency"]
            .iter()
            .map(|r| term(r))
            .fold(dram, f64::max);
        let bound = t["bound"].as_str().unwrap();
        let bound_ns = if bound.starts_with("dram") {
            dram
        } else {
            term(bound)
        };
        assert_eq!(bound_ns, longest, "{bound}");
        assert!(ns >= longest + t["launch_overhead_ns"].as_f64().unwrap());
        times.push((var["name"].as_str().unwrap().to_string(), ns));
    }
    // `.ca` adds L1 fills to the L1/shared array, so it is estimated slowest.
    let slowest = times.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
    assert_eq!(slowest.0, "l1");

    let text = String::from_utf8(demo(&[]).stdout).unwrap();
    let ranking = text
        .split("Ranked by estimated time")
        .nth(1)
        .expect("a ranking");
    let pos = |name: &str| ranking.find(&format!(" {name} ")).unwrap();
    assert!(
        pos("original") < pos("l1") && pos("prefetch") < pos("l1"),
        "{ranking}"
    );
    assert!(text.contains("est. time") && text.contains("bound by"));

    let html = String::from_utf8(demo(&["--report", "html"]).stdout).unwrap();
    assert!(html.contains("Estimated time (gpu__time_duration.sum)"));
}

/// `ptxsim run` of a small Triton kernel (4 CTAs of 128 threads) with its estimate.
fn vadd_time(gpu: &str) -> Result<Value, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::cargo_bin("ptxsim")
        .unwrap()
        .current_dir(&root)
        .args(["run", "tests/corpus/triton/vadd_evict_last.sm80.ptx"])
        .args([
            "--kernel",
            "vadd_evict_last",
            "--grid",
            "4",
            "--block",
            "128",
        ])
        .args(["--arg", "zeros:f32:1000", "--arg", "zeros:f32:1000"])
        .args([
            "--arg",
            "zeros:f32:1000",
            "--arg",
            "s32:1000",
            "--arg",
            "null",
            "--arg",
            "null",
        ])
        .args(["--report", "json", "--gpu", gpu])
        .output()
        .unwrap();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    Ok(v["variants"][0]["time"].clone())
}

#[test]
fn timing_parameters_come_from_the_gpu_toml() {
    let scratch = tempfile::Builder::new()
        .prefix("ptxsim-timing-")
        .tempdir()
        .unwrap();
    let dir = scratch.path();
    let slow = dir.join("slow.toml");
    std::fs::write(
        &slow,
        "preset = \"h100\"\n[timing]\nwarp_cycles_per_instruction = 40\n",
    )
    .unwrap();
    let latency = |t: &Value| {
        t["terms"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["resource"] == "latency")
            .and_then(|x| x["ns"].as_f64())
            .unwrap()
    };
    let base = vadd_time("h100").unwrap();
    let slowed = vadd_time(slow.to_str().unwrap()).unwrap();
    // The latency term grows by (40 - 4) cycles per instruction of one warp, at 1830 MHz.
    let w = &base["work"];
    let warps = w["ctas"].as_f64().unwrap() * (w["threads_per_cta"].as_f64().unwrap() / 32.0);
    let per_warp = w["warp_instructions"].as_f64().unwrap() / warps;
    let expected = 36.0 * per_warp / 1.83;
    let grown = latency(&slowed) - latency(&base);
    assert!(
        (grown - expected).abs() < 1e-6 * expected,
        "{grown} vs {expected}"
    );
    assert!(slowed["ns"].as_f64() > base["ns"].as_f64());
    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        "preset = \"h100\"\n[timing]\ndram_read_efficiency = 1.5\n",
    )
    .unwrap();
    let err = vadd_time(bad.to_str().unwrap()).unwrap_err();
    assert!(err.contains("dram_read_efficiency"), "{err}");
}
