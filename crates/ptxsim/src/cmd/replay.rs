//! `ptxsim replay`: run a text trace of memory accesses (docs/trace-format.md) through the
//! memory-hierarchy model and print its statistics.

use clap::Args as ClapArgs;
use memsys::{GpuConfig, Stats};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(ClapArgs)]
pub struct Args {
    /// The trace: one access per line, `<sm> <ptx-op> <hex-address> <bytes> [<hex-policy>]`.
    trace: PathBuf,
    /// GPU model: a100, h100, b200, or a TOML file overriding a preset.
    #[arg(long, default_value = "a100")]
    gpu: String,
    /// Print the statistics as one JSON document (schema ptxsim-replay/1) instead of text.
    #[arg(long)]
    json: bool,
    /// The persisting-L2 set-aside in bytes (an integer, or with a KiB/MiB/GiB suffix);
    /// default 0, as in a fresh CUDA context.
    #[arg(long, value_name = "BYTES", value_parser = crate::cmd::run::parse_bytes_arg)]
    persisting_l2: Option<u64>,
}

/// Resolves `--gpu` as `ptxsim run` does: a preset name, or a `.toml` file.
fn gpu_config(spec: &str) -> Result<GpuConfig, String> {
    if Path::new(spec).extension().is_some_and(|e| e == "toml") {
        let text = std::fs::read_to_string(spec).map_err(|e| format!("cannot read {spec}: {e}"))?;
        GpuConfig::from_toml(&text).map_err(|e| format!("{spec}: {e}"))
    } else {
        GpuConfig::preset(spec).map_err(|e| e.to_string())
    }
}

/// The per-op table of the text output: each op spelling's share of the counters.
fn per_op_text(stats: &Stats, ops: &[String]) -> String {
    let mut s = String::new();
    let width = ops.iter().map(String::len).max().unwrap_or(2).max(2);
    let _ = writeln!(
        s,
        "{:<width$}  {:>10}  {:>17}  {:>10}  {:>17}  {:>12}  {:>12}  {:>10}",
        "op",
        "L1 req",
        "L1 hit/miss",
        "L2 req",
        "L2 hit/miss",
        "DRAM read B",
        "DRAM write B",
        "L2 hit %"
    );
    for (op, c) in ops.iter().zip(&stats.per_instr) {
        let _ = writeln!(
            s,
            "{op:<width$}  {:>10}  {:>17}  {:>10}  {:>17}  {:>12}  {:>12}  {:>10}",
            c.l1.requests,
            format!("{}/{}", c.l1.hits(), c.l1.misses()),
            c.l2.requests,
            format!("{}/{}", c.l2.hits(), c.l2.misses()),
            c.dram.bytes_read,
            c.dram.bytes_written,
            c.l2.all_lookup_hit_rate()
                .map_or("n/a".to_string(), |r| format!("{:.2}", r * 100.0))
        );
    }
    s
}

/// The Nsight Compute name of the L2 hit rate, which `--json` adds to the total, to each
/// instruction's counters and to each SM's.
const L2_HIT_RATE: &str = "lts__t_sector_hit_rate.pct";

/// Adds [`L2_HIT_RATE`] (lookup hits over lookups of both L2 partitions, percent; null when
/// nothing was looked up) to `total`, each `per_instr[i]` and each `per_sm[i]` of the
/// statistics' JSON.
fn add_hit_rates(stats: &Stats, json: &mut serde_json::Value) {
    let rate = |c: &memsys::Counters| {
        c.l2.all_lookup_hit_rate()
            .map_or(serde_json::Value::Null, |r| serde_json::json!(r * 100.0))
    };
    let total = stats.total();
    if let Some(t) = json.get_mut("total").and_then(|t| t.as_object_mut()) {
        t.insert(L2_HIT_RATE.into(), rate(&total));
    }
    for (key, counters) in [("per_instr", &stats.per_instr), ("per_sm", &stats.per_sm)] {
        if let Some(list) = json.get_mut(key).and_then(|l| l.as_array_mut()) {
            for (v, c) in list.iter_mut().zip(counters) {
                if let Some(o) = v.as_object_mut() {
                    o.insert(L2_HIT_RATE.into(), rate(c));
                }
            }
        }
    }
}

pub fn run(args: Args) -> ExitCode {
    let cfg = match gpu_config(&args.gpu).and_then(|mut c| {
        crate::cmd::run::apply_persisting_l2(&mut c, args.persisting_l2, None).map(|()| c)
    }) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let file = match std::fs::File::open(&args.trace) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", args.trace.display());
            return ExitCode::from(1);
        }
    };
    let name = args.trace.display().to_string();
    let persisting = cfg.persisting_l2_bytes;
    // Read line by line: a multi-GB trace is never held in memory whole.
    let reader = std::io::BufReader::with_capacity(1 << 20, file);
    let (stats, ops) = match ptx_trace::replay_reader(cfg, reader) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {name}:{e}");
            return ExitCode::from(2);
        }
    };
    let report = if args.json {
        let mut json: serde_json::Value =
            serde_json::from_str(&stats.to_json()).unwrap_or(serde_json::Value::Null);
        add_hit_rates(&stats, &mut json);
        let stats = json;
        let doc = serde_json::json!({
            "schema": "ptxsim-replay/1",
            "trace": name,
            "persisting_l2_bytes": persisting,
            "ops": ops,
            "stats": stats,
        });
        let mut s = serde_json::to_string_pretty(&doc)
            .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
        s.push('\n');
        s
    } else {
        // The set-aside right under the statistics' first line (the GPU's name).
        let text = stats.render_text();
        let (first, rest) = text.split_once('\n').unwrap_or((&text, ""));
        let text = format!("{first}\npersisting L2 set-aside: {persisting} B\n{rest}");
        if ops.is_empty() {
            text
        } else {
            format!("{text}\n{}", per_op_text(&stats, &ops))
        }
    };
    // A closed pipe (`| head`) is not an error worth a message; other write errors are.
    match std::io::stdout().lock().write_all(report.as_bytes()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write the report: {e}");
            ExitCode::from(1)
        }
    }
}
