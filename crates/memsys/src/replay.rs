//! Trace replay: run a stream of single accesses through a tags-only memory system and
//! collect the statistics. The text trace format (`<sm> <ptx-op> <addr> <bytes> [<policy>]`)
//! is parsed by the `ptx-trace` crate with the front end's qualifier tables; this module takes
//! the already-typed accesses.

use serde::{Deserialize, Serialize};

use crate::config::GpuConfig;
use crate::error::MemError;
use crate::stats::Stats;
use crate::system::MemSystem;
use crate::types::Request;

/// One access of a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceAccess {
    pub request: Request,
    pub addr: u64,
    pub bytes: u32,
}

/// Runs `accesses` through `mem` in order; returns how many ran. An access that fails stops
/// the replay with [`MemError::Replay`] naming its position.
pub fn run<I>(mem: &mut MemSystem, accesses: I) -> Result<u64, MemError>
where
    I: IntoIterator<Item = TraceAccess>,
{
    let mut n = 0u64;
    for a in accesses {
        mem.access(&a.request, a.addr, a.bytes)
            .map_err(|e| MemError::Replay { index: n, source: Box::new(e) })?;
        n += 1;
    }
    Ok(n)
}

/// Builds a tags-only memory system for `cfg`, replays `accesses` and returns the statistics.
pub fn replay<I>(cfg: GpuConfig, accesses: I) -> Result<Stats, MemError>
where
    I: IntoIterator<Item = TraceAccess>,
{
    let mut mem = MemSystem::tags_only(cfg)?;
    run(&mut mem, accesses)?;
    Ok(mem.stats())
}

/// Renders statistics as text (`json == false`) or pretty JSON.
pub fn render(stats: &Stats, json: bool) -> String {
    if json {
        stats.to_json()
    } else {
        stats.render_text()
    }
}
