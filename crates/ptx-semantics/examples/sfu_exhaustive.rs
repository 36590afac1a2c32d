//! The exhaustive form of `tests/sfu_h100.rs`: decodes every embedded H100 table whole against
//! the manifest, and checks the model on every value of the full check tables that
//! `data/h100-sfu/gen_tables.py --full DIR` writes (the committed `check/` blobs are samples).
//!
//! ```text
//! python3 crates/ptx-semantics/data/h100-sfu/gen_tables.py --full target/h100-sfu-full
//! cargo run --release -p ptx-semantics --example sfu_exhaustive -- target/h100-sfu-full
//! ```

use ptx_semantics::float as fl;
use ptx_semantics::sfu::{self, table::decode};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn checksum(v: &[u32]) -> u64 {
    v.iter().enumerate().fold(0u64, |acc, (i, &x)| {
        acc.wrapping_add((x as u64).wrapping_mul((i % 65521) as u64 + 1))
    })
}

fn read(path: &Path) -> Result<Vec<u32>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    decode(&bytes).map_err(|e| format!("{}: {e:?}", path.display()))
}

/// The model of check table `name` at index `i`, if it is one this example knows.
fn model(name: &str, i: usize) -> Option<u32> {
    if let Some(e) = name.strip_prefix("lg2_e") {
        let e: i32 = e.parse().ok()?;
        return Some(sfu::lg2::mufu_lg2(((e + 127) as u32) << 23 | i as u32));
    }
    let (form, side) = name.split_once("_noftz_denormal_")?;
    let x = if side == "n" { 0x8000_0000 } else { 0 } | (i as u32 + 1);
    Some(match form {
        "rcp" => fl::rcp_approx_f32(x, false),
        "sqrt" => fl::sqrt_approx_f32(x, false),
        "rsqrt" => fl::rsqrt_approx_f32(x, false),
        "ex2" => fl::ex2_approx_f32(x, false),
        "lg2" => fl::lg2_approx_f32(x, false),
        _ => return None,
    })
}

fn run(full: &Path) -> Result<(), String> {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/h100-sfu");
    let manifest = std::fs::read_to_string(data.join("manifest.txt")).map_err(|e| e.to_string())?;
    let (mut tables, mut checked, mut differ) = (0, 0u64, 0u64);
    for line in manifest.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let (name, count) = (f[0], f[1].parse::<usize>().map_err(|e| e.to_string())?);
        if let Some(t) = name.strip_prefix("tables/") {
            let v = read(&data.join(format!("{name}.z")))?;
            let sum = u64::from_str_radix(f[2], 16).map_err(|e| e.to_string())?;
            if v.len() != count || checksum(&v) != sum {
                return Err(format!("{t}: decoded table differs from the manifest"));
            }
            tables += 1;
        } else if let Some(c) = name.strip_prefix("check/") {
            let v = read(&full.join(format!("{c}.z")))?;
            if v.len() != count {
                return Err(format!("{c}: {} values, manifest says {count}", v.len()));
            }
            let mut bad = 0u64;
            for (i, &want) in v.iter().enumerate() {
                let got = model(c, i).ok_or_else(|| format!("{c}: no model"))?;
                if got != want {
                    if bad < 3 {
                        eprintln!("{c}[{i}]: model {got:#010x}, H100 {want:#010x}");
                    }
                    bad += 1;
                }
            }
            println!("{c}: {bad} of {count} differ");
            checked += count as u64;
            differ += bad;
        }
    }
    println!(
        "{tables} embedded tables match the manifest; {differ} of {checked} checked values differ"
    );
    if differ == 0 {
        Ok(())
    } else {
        Err(format!("{differ} values differ"))
    }
}

fn main() -> ExitCode {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: sfu_exhaustive FULL_CHECK_DIR (from gen_tables.py --full)");
        return ExitCode::from(2);
    };
    match run(Path::new(&dir)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sfu_exhaustive: {e}");
            ExitCode::FAILURE
        }
    }
}
