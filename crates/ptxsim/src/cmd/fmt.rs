//! `ptxsim fmt`: parse and print back.

use clap::Args as ClapArgs;
use ptx_check::{render, Diagnostic, SourceFile};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(ClapArgs)]
pub struct Args {
    /// The PTX file to format.
    file: PathBuf,
    /// Write here instead of stdout.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

pub fn run(args: Args) -> ExitCode {
    let bytes = match super::read_file(&args.file) {
        Ok(b) => b,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(1);
        }
    };
    let name = args.file.display().to_string();
    let text = match ptx_syntax::decode_source(&bytes) {
        Ok(t) => t,
        Err(e) => {
            let file = SourceFile::new(&name, String::from_utf8_lossy(&bytes));
            let d = Diagnostic::from_parse_error(&e, None);
            // The invalid bytes show as U+FFFD; offsets before the first one are unchanged.
            eprint!("{}", render::rich(&file, &[d], super::stderr_color()));
            return ExitCode::from(2);
        }
    };
    let module = match ptx_syntax::parse(text) {
        Ok(m) => m,
        Err(errors) => {
            let file = SourceFile::new(&name, text);
            let diags: Vec<Diagnostic> = errors
                .iter()
                .map(|e| Diagnostic::from_parse_error(e, Some(&file)))
                .collect();
            eprint!("{}", render::rich(&file, &diags, super::stderr_color()));
            return ExitCode::from(2);
        }
    };
    let printed = ptx_syntax::print(&module);
    match args.output {
        Some(path) => {
            if let Err(e) = ptxsim::output::write_atomic(&path, printed.as_bytes()) {
                eprintln!("error: cannot write {}: {e}", path.display());
                return ExitCode::from(1);
            }
        }
        None => print!("{printed}"),
    }
    ExitCode::SUCCESS
}
