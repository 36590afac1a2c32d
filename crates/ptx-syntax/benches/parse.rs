//! Parse throughput on a ≥10 MB module: the largest corpus file (Triton's sm_90 fp32 matmul)
//! with its kernel repeated under new names (`ptx_syntax::synth::repeat_functions`).
//! `cargo bench -p ptx-syntax --bench parse`; `scripts/bench-parse.sh` compares with ptxas.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn big_module() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/corpus/triton/matmul_fp32_ieee.sm90.ptx"
    );
    let text = std::fs::read_to_string(path).expect("corpus file");
    let module = ptx_syntax::parse(&text).expect("corpus file parses");
    ptx_syntax::print(&ptx_syntax::synth::repeat_functions(&module, 10 << 20))
}

fn parse(c: &mut Criterion) {
    let text = big_module();
    let mut g = c.benchmark_group("parse");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function(format!("{} MB module", text.len() >> 20), |b| {
        b.iter(|| ptx_syntax::parse(&text).expect("parses"))
    });
    g.finish();
}

criterion_group!(benches, parse);
criterion_main!(benches);
