//! `check_source` (parse + every rule) on the ≥10 MB module of `scripts/bench-parse.sh`: the
//! largest corpus file (Triton's sm_90 fp32 matmul) with its kernel repeated under new names,
//! and on the 11,762 golden parity modules. `cargo bench -p ptx-check --bench check`;
//! `scripts/bench-parse.sh` times the `ptxsim check` process against ptxas on that module, and
//! `scripts/bench-check.sh` on the sm_80 module of crates/ptx-check/BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ptx_check::{check_source, CheckOptions};

fn big_module() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/corpus/triton/matmul_fp32_ieee.sm90.ptx"
    );
    let text = std::fs::read_to_string(path).expect("corpus file");
    let module = ptx_syntax::parse(&text).expect("corpus file parses");
    ptx_syntax::print(&ptx_syntax::synth::repeat_functions(&module, 10 << 20))
}

fn golden_modules() -> Vec<String> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/parity/golden.jsonl"
    );
    std::fs::read_to_string(path)
        .expect("golden file")
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("json");
            v["ptx"].as_str().expect("ptx").to_string()
        })
        .collect()
}

fn check(c: &mut Criterion) {
    let text = big_module();
    let mut g = c.benchmark_group("check");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function(format!("{} MB module", text.len() >> 20), |b| {
        b.iter(|| {
            let r = check_source("big.ptx", text.as_bytes(), &CheckOptions::default());
            assert!(!r.has_errors());
        })
    });
    let modules = golden_modules();
    g.throughput(Throughput::Elements(modules.len() as u64));
    g.bench_function(format!("{} golden modules", modules.len()), |b| {
        b.iter(|| {
            for m in &modules {
                check_source("case.ptx", m.as_bytes(), &CheckOptions::default());
            }
        })
    });
    g.finish();
}

criterion_group!(benches, check);
criterion_main!(benches);
