//! `ptxsim run --trace-out FILE`: the global-memory requests a launch handed to the cache
//! model, written as a text trace (docs/trace-format.md) that `ptxsim replay` reads back.

use memsys::replay::TraceAccess;
use std::borrow::Borrow;
use std::io::{self, Write};

/// The comment line that opens a captured trace: kernel, grid, block and GPU.
pub fn header(kernel: &str, grid: [u32; 3], block: [u32; 3], gpu: &str) -> String {
    format!(
        "# ptxsim run --trace-out: kernel `{kernel}` grid ({},{},{}) block ({},{},{}) gpu {gpu}",
        grid[0], grid[1], grid[2], block[0], block[1], block[2]
    )
}

/// Writes `header` (a comment line), a column legend and one line per access
/// ([`ptx_trace::format_access`]) to `w`.
pub fn write_trace<W, I>(mut w: W, header: &str, accesses: I) -> io::Result<()>
where
    W: Write,
    I: IntoIterator,
    I::Item: Borrow<TraceAccess>,
{
    writeln!(w, "{header}")?;
    writeln!(w, "# sm op address bytes [policy]")?;
    for a in accesses {
        writeln!(w, "{}", ptx_trace::format_access(a.borrow()))?;
    }
    w.flush()
}
