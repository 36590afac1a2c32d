//! Prints the agreement of memsys with the H100's L2 microbenchmarks (`tests/hw/h100/l2/`):
//! per row the H100's re-read hit rate, the model's own count of it (lookups of both L2
//! partitions, as Nsight Compute counts them), their difference, the difference once the
//! launch's own L2 traffic (`l2_microbench::H100_LAUNCH_TRAFFIC`, measured on the corpus's
//! smallest kernels) is added, the share of W the re-read found in L2 and the DRAM bytes.
//! `scripts/hw-agreement` runs it.
//!
//! `cargo run --release -p memsys --example hw_agreement -- [--scale N] [--persisting FILE]
//! [--stream FILE]` (default: full size, the project's copies of the CSV files).

use memsys::l2_microbench::{
    persisting_rows, run_h100_scaled, stream_protection_rows, MeasuredRow, H100_LAUNCH_TRAFFIC,
};
use std::process::ExitCode;

fn table(title: &str, rows: &[MeasuredRow], scale: u64) -> Result<(usize, f64), String> {
    println!("## {title}");
    println!(
        "{:<52} {:>9} {:>9} {:>7} {:>9} {:>9} {:>14} {:>14}",
        "row", "H100 %", "model %", "diff", "+launch", "kept %", "DRAM B model", "DRAM B H100"
    );
    let (mut within, mut alone, mut worst) = (0, 0, 0.0f64);
    for row in rows {
        let r =
            run_h100_scaled(&row.experiment, scale).map_err(|e| format!("{}: {e}", row.label))?;
        let model = r.hit_pct();
        let diff = model - row.hw_hit_pct;
        let with_launch = r.hit_pct_with(H100_LAUNCH_TRAFFIC);
        let launch_diff = with_launch - row.hw_hit_pct;
        within += usize::from(launch_diff.abs() <= 10.0);
        alone += usize::from(diff.abs() <= 10.0);
        worst = worst.max(launch_diff.abs());
        println!(
            "{:<52} {:>9.2} {:>9.2} {:>+7.2} {:>+9.2} {:>9.2} {:>14} {:>14}",
            row.label,
            row.hw_hit_pct,
            model,
            diff,
            launch_diff,
            r.kept_pct(),
            r.dram_bytes_read,
            row.hw_dram_bytes.map_or("-".to_string(), |b| b.to_string())
        );
    }
    println!(
        "{within} of {} rows within 10 points with the launch's own L2 traffic added (worst \
         {worst:.2} points); {alone} with the model's count alone\n",
        rows.len()
    );
    Ok((within, worst))
}

fn main() -> ExitCode {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/hw/h100/l2");
    let mut persisting = root.join("persisting.csv");
    let mut stream = root.join("stream_protection.csv");
    let mut scale = 1u64;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let value = args.next();
        match (a.as_str(), value) {
            ("--scale", Some(v)) => match v.parse() {
                Ok(n) => scale = n,
                Err(_) => return fail(&format!("--scale {v}: not a number")),
            },
            ("--persisting", Some(v)) => persisting = v.into(),
            ("--stream", Some(v)) => stream = v.into(),
            _ => {
                return fail(&format!(
                    "unknown argument {a} (--scale N, --persisting FILE, --stream FILE)"
                ))
            }
        }
    }
    let read = |p: &std::path::Path| {
        std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))
    };
    let result = (|| -> Result<bool, String> {
        let p = persisting_rows(&read(&persisting)?).map_err(|e| e.to_string())?;
        let s = stream_protection_rows(&read(&stream)?).map_err(|e| e.to_string())?;
        let scale_note = if scale == 1 {
            String::new()
        } else {
            format!(", 1/{scale} scale")
        };
        let (pw, _) = table(
            &format!("persisting.csv ({} rows{scale_note})", p.len()),
            &p,
            scale,
        )?;
        let (sw, _) = table(
            &format!("stream_protection.csv ({} rows{scale_note})", s.len()),
            &s,
            scale,
        )?;
        Ok(pw == p.len() && sw == s.len())
    })();
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => fail(&e),
    }
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
}
