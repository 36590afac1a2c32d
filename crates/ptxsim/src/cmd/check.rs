//! `ptxsim check`: syntax and validation diagnostics.

use clap::{Args as ClapArgs, ValueEnum};
use ptx_check::{check_file_on, render, CheckOptions, Threading};
use ptx_isa::{PtxVersion, SmTarget};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    /// Source excerpts with carets and help lines.
    Rich,
    /// ptxas's own line format and wording (`ptxas FILE, line N; error   : ...`).
    Ptxas,
    /// One JSON document (schema ptxsim-check/1) on stdout.
    Json,
}

#[derive(ClapArgs)]
pub struct Args {
    /// PTX files to check.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Validate for this target instead of each file's `.target` (e.g. sm_80, sm_90a).
    #[arg(long, value_parser = parse_target)]
    target: Option<SmTarget>,
    /// Validate as this PTX ISA version instead of each file's `.version` (e.g. 8.3).
    #[arg(long = "ptx-version", value_parser = parse_version)]
    ptx_version: Option<PtxVersion>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Rich)]
    format: Format,
    /// Threads that read (lex and parse) a large file while one checks it in file order
    /// (default: the available cores; 1 reads on one thread). The output is the same for
    /// every count; files under 256 KiB are read on one thread.
    #[arg(long, value_name = "N", value_parser = super::run::parse_threads)]
    threads: Option<u32>,
}

fn parse_target(s: &str) -> Result<SmTarget, String> {
    SmTarget::parse(s).map_err(|e| e.to_string())
}

fn parse_version(s: &str) -> Result<PtxVersion, String> {
    PtxVersion::parse(s).ok_or_else(|| format!("`{s}` is not a PTX version of the form X.Y"))
}

pub fn run(args: Args) -> ExitCode {
    let options = CheckOptions {
        target: args.target,
        ptx_version: args.ptx_version,
    };
    let threading = Threading::threads(super::run::threads_or_default(args.threads) as usize);
    let mut reports = Vec::new();
    let mut failed = false;
    for path in &args.files {
        let bytes = match super::read_file(path) {
            Ok(b) => b,
            Err(msg) => {
                eprintln!("{msg}");
                failed = true;
                continue;
            }
        };
        let report = check_file_on(&path.display().to_string(), bytes, &options, &threading);
        failed |= report.has_errors();
        match args.format {
            Format::Rich => eprint!(
                "{}",
                render::rich(&report.file, &report.diagnostics, super::stderr_color())
            ),
            Format::Ptxas => eprint!("{}", render::ptxas(&report.file, &report.diagnostics)),
            Format::Json => {}
        }
        reports.push(report);
    }
    if let Format::Json = args.format {
        let doc = render::json(&reports);
        println!(
            "{}",
            serde_json::to_string_pretty(&doc).expect("diagnostics serialize")
        );
    }
    if failed {
        return ExitCode::from(2);
    }
    // A clean check says so (as a compiler's silence does not tell a new user that anything
    // ran); `--format ptxas` stays silent as ptxas does, and JSON is the document alone.
    if let Format::Rich = args.format {
        println!("{}", success_line(&reports));
    }
    ExitCode::SUCCESS
}

/// `ok: k.ptx: no errors (2 warnings)`, or `ok: 3 files: no errors` for several files.
fn success_line(reports: &[ptx_check::CheckReport]) -> String {
    let warnings: usize = reports
        .iter()
        .map(|r| {
            r.diagnostics
                .iter()
                .filter(|d| d.severity == ptx_check::Severity::Warning)
                .count()
        })
        .sum();
    let what = match reports {
        [one] => one.file.name.clone(),
        many => format!("{} files", many.len()),
    };
    let tail = match warnings {
        0 => String::new(),
        1 => " (1 warning)".into(),
        n => format!(" ({n} warnings)"),
    };
    format!("ok: {what}: no errors{tail}")
}
