//! One module per subcommand.

pub mod advise;
pub mod check;
pub mod compare;
pub mod fmt;
pub mod hazards;
pub mod ncu;
pub mod progress;
pub mod replay;
pub mod run;
pub mod steps;
pub mod sweep;

use std::io::IsTerminal;

/// Whether to colour diagnostics written to stderr.
pub fn stderr_color() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// Reads a file or returns a one-line error naming it.
pub fn read_file(path: &std::path::Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("error: cannot read {}: {e}", path.display()))
}
