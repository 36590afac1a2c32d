//! `ptx-trace`: the text trace format of `ptxsim replay`, one access per line:
//!
//! ```text
//! <sm> <ptx-op-with-qualifiers> <hex-address> <bytes> [<hex-policy>]
//! 3 ld.global.nc.L1::evict_last.L2::256B 0x7f0000001000 16
//! 0 st.global.L2::cache_hint.b32 0x1000 4 0x14f0000000000000
//! ```
//!
//! - `<sm>`: decimal SM index; `<hex-address>`: `0x`-prefixed; `<bytes>`: decimal, 1..=128;
//!   `<hex-policy>`: the 64-bit `createpolicy` value, present exactly when the op carries
//!   `.L2::cache_hint`.
//! - The op is `ld`, `st`, `cp.async`, `prefetch`, `prefetchu`, `atom` or `red` followed by
//!   dotted qualifiers, each classified with ptx-isa's tables ([`ptx_isa::Qualifier`]), so the
//!   trace reader accepts exactly the spellings the front end does. Types and vector widths
//!   are accepted and ignored (the byte count says how much is accessed); `atom`/`red`
//!   operations (`.add`, `.cas`, ...) likewise.
//! - `#` starts a comment; blank lines are skipped.
//!
//! Each distinct op spelling gets an instruction id (in order of first appearance), so
//! memsys's per-instruction statistics read as per-op statistics ([`TraceParser::ops`]).
//!
//! Files: this one parses ops and qualifiers ([`TraceParser`]) and replays traces;
//! `fields.rs` splits lines into fields (hex, separators, comments); `format.rs` writes
//! accesses back ([`format_access`]); `tests.rs` holds the unit tests.

use rustc_hash::FxHashMap;

use memsys::replay::{self, Trace, TraceAccess};
use memsys::{
    AccessKind, CacheOperator, GpuConfig, InstrId, MemError, MemSystem, Request, Scope, Semantics,
    SmId, Space, Stats,
};
use ptx_isa::{CacheLevel, Flag, MemorySemantics, Qualifier, StateSpace};
use thiserror::Error;

mod fields;
mod format;

use fields::*;
pub use format::format_access;

/// A bad trace line, or an access memsys rejected; `line` and `column` are 1-based.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{line}:{column}: {message}")]
pub struct TraceError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// `atom`/`red` operation qualifiers: accepted, not modelled (the access is a read-modify-write).
const ATOMIC_OPS: &[&str] = &[
    "add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas", "sys", "noftz",
];

/// Reads trace lines, interning op spellings as instruction ids.
#[derive(Debug, Default)]
pub struct TraceParser {
    ops: Vec<String>,
    /// Op spellings whose qualifiers parsed: the request they make, whether they carry
    /// `.L2::cache_hint`, and their instruction id once a line with them was accepted. Traces
    /// repeat a few spellings, so most lines skip qualifier parsing.
    known: FxHashMap<String, KnownOp>,
    /// Per instruction id, the policy value and warp of its last access and that request's shape in
    /// the trace being filled by [`TraceParser::parse_into`].
    shapes: Vec<Option<(Option<u64>, u32, u32)>>,
}

#[derive(Debug, Clone, Copy)]
struct KnownOp {
    request: Request,
    cache_hint: bool,
    id: Option<u32>,
}

fn err(line: usize, column: usize, message: impl Into<String>) -> TraceError {
    TraceError {
        line,
        column,
        message: message.into(),
    }
}

impl TraceParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Op spellings by instruction id.
    pub fn ops(&self) -> &[String] {
        &self.ops
    }

    /// Parses line number `line` (1-based) of a trace; `Ok(None)` for blank and comment lines.
    pub fn parse_line(
        &mut self,
        text: &str,
        line: usize,
    ) -> Result<Option<TraceAccess>, TraceError> {
        let Some(f) = parse_fields(text, line)? else {
            return Ok(None);
        };
        let mut request = self.parse_op(f.op, f.op_col, line, f.policy.is_some())?;
        request.sm = SmId(f.sm);
        request.warp = f.warp;
        request.policy = f.policy;
        Ok(Some(TraceAccess {
            request,
            addr: f.addr,
            bytes: f.bytes,
        }))
    }

    /// [`TraceParser::parse_line`] straight into `trace`: the access's request shape is
    /// interned once per op spelling and policy value, not hashed per line. Returns whether
    /// the line held an access. A parser used this way fills one trace only (it remembers
    /// shape indices of that trace).
    fn parse_into(
        &mut self,
        text: &str,
        line: usize,
        trace: &mut Trace,
    ) -> Result<bool, TraceError> {
        let Some(f) = parse_fields(text, line)? else {
            return Ok(false);
        };
        let request = self.parse_op(f.op, f.op_col, line, f.policy.is_some())?;
        let last = self.shapes.get(request.instr.0 as usize).copied().flatten();
        let shape = match last {
            Some((policy, warp, shape)) if policy == f.policy && warp == f.warp => shape,
            _ => {
                let shape = trace.intern(&Request {
                    policy: f.policy,
                    warp: f.warp,
                    ..request
                });
                let i = request.instr.0 as usize;
                if self.shapes.len() <= i {
                    self.shapes.resize(i + 1, None);
                }
                self.shapes[i] = Some((f.policy, f.warp, shape));
                shape
            }
        };
        trace.push_shaped(shape, f.sm, f.addr, f.bytes);
        Ok(true)
    }

    fn parse_op(
        &mut self,
        op: &str,
        col: usize,
        line: usize,
        has_policy: bool,
    ) -> Result<Request, TraceError> {
        let known = match self.known.get(op) {
            Some(k) => *k,
            None => {
                let (request, cache_hint) = Self::parse_qualifiers(op, col, line)?;
                let k = KnownOp {
                    request,
                    cache_hint,
                    id: None,
                };
                self.known.insert(op.to_string(), k);
                k
            }
        };
        if known.cache_hint != has_policy {
            return Err(err(
                line,
                col,
                if known.cache_hint {
                    "`.L2::cache_hint` needs a <hex-policy> field"
                } else {
                    "a <hex-policy> field needs `.L2::cache_hint` on the op"
                },
            ));
        }
        let id = match known.id {
            Some(id) => id,
            None => {
                self.ops.push(op.to_string());
                let id = (self.ops.len() - 1) as u32;
                if let Some(k) = self.known.get_mut(op) {
                    k.id = Some(id);
                }
                id
            }
        };
        Ok(Request {
            instr: InstrId(id),
            ..known.request
        })
    }

    /// The request an op spelling makes (without SM, policy value or instruction id), and
    /// whether it carries `.L2::cache_hint`.
    fn parse_qualifiers(op: &str, col: usize, line: usize) -> Result<(Request, bool), TraceError> {
        let mut parts = op.split('.');
        let opcode = parts.next().unwrap_or("");
        let kind = match opcode {
            "ld" => AccessKind::Load,
            "st" => AccessKind::Store,
            "cp" => AccessKind::AsyncCopy,
            "prefetch" | "prefetchu" => AccessKind::Prefetch,
            "atom" | "red" => AccessKind::Atomic,
            other => {
                return Err(err(
                    line,
                    col,
                    format!("`{other}` is not a memory op (ld, st, cp.async, prefetch, prefetchu, atom, red)"),
                ))
            }
        };
        let mut req = Request {
            kind,
            ..Request::default()
        };
        let mut cache_hint = false;
        let mut async_flag = false;
        let mut mmio = false;
        let mut space: Option<StateSpace> = None;
        let mut level: Option<CacheLevel> = None;
        let mut offset = opcode.len();
        for part in parts {
            let qcol = col + offset;
            offset += part.len() + 1;
            let token = format!(".{part}");
            let Some(q) = Qualifier::from_token(&token) else {
                if req.kind == AccessKind::Atomic && ATOMIC_OPS.contains(&part) {
                    continue;
                }
                return Err(err(
                    line,
                    qcol,
                    format!("unknown qualifier `{token}` in `{op}`"),
                ));
            };
            match q {
                Qualifier::Space(s) => {
                    // cp.async names the destination (.shared) then the source (.global).
                    if req.kind == AccessKind::AsyncCopy && s.is_shared() {
                        continue;
                    }
                    space = Some(s);
                }
                Qualifier::Semantics(s) => req.semantics = s.into(),
                Qualifier::Scope(s) => req.scope = s.into(),
                Qualifier::CacheOp(c) => req.operator = Some(c.into()),
                Qualifier::L1(p) => req.l1_priority = Some(p.into()),
                Qualifier::L2(p) => req.l2_priority = Some(p.into()),
                Qualifier::Prefetch(p) => req.prefetch = Some(p.into()),
                Qualifier::Vector(_) | Qualifier::Type(_) => {}
                Qualifier::Level(l) => level = Some(l),
                Qualifier::Flag(Flag::Nc) => req.non_coherent = true,
                Qualifier::Flag(Flag::Mmio) => mmio = true,
                Qualifier::Flag(Flag::CacheHint) => cache_hint = true,
                Qualifier::Flag(Flag::Async) => async_flag = true,
                Qualifier::Policy(_) | Qualifier::Flag(_) => {
                    return Err(err(
                        line,
                        qcol,
                        format!("qualifier `{token}` does not belong on a memory access"),
                    ))
                }
            }
        }
        if mmio {
            // `.mmio.relaxed.sys`: the relaxed qualifier is required alongside; mmio decides.
            req.semantics = Semantics::Mmio;
        }
        if req.kind == AccessKind::AsyncCopy && !async_flag {
            return Err(err(line, col, "`cp` must be `cp.async`"));
        }
        req.space = match space.map(StateSpace::base) {
            None | Some(StateSpace::Global) => Space::Global,
            Some(StateSpace::Local) => Space::Local,
            Some(StateSpace::Const) => Space::Const,
            Some(StateSpace::Param) => Space::Param,
            Some(other) => {
                return Err(err(
                    line,
                    col,
                    format!("`{op}`: {} is not cached (only global, local, const and param accesses can be replayed)", other.token()),
                ))
            }
        };
        if req.kind == AccessKind::Prefetch {
            // prefetch.L1 fills L1 and L2; prefetch.L2 (and prefetch.global.L2::evict_*) only L2.
            req.operator = Some(match level {
                Some(CacheLevel::L1) => CacheOperator::Ca,
                _ => CacheOperator::Cg,
            });
        }
        Ok((req, cache_hint))
    }
}

/// Replays a whole text trace on a tags-only memory system built from `cfg`. Returns the
/// statistics (per-instruction counters are per op spelling) and the op spellings by id.
///
/// The lines are parsed into a compiled [`Trace`] and replayed with [`replay::run_trace`]; the
/// first error in line order is reported (a line memsys rejects, e.g. an SM the GPU does not
/// have, comes before a later unparsable line), with its line and column.
pub fn replay_text(cfg: GpuConfig, text: &str) -> Result<(Stats, Vec<String>), TraceError> {
    replay_reader(cfg, text.as_bytes())
}

/// [`replay_text`] over a reader, one line at a time, so a trace file is never held in memory
/// whole: only its compiled form (16 bytes an access) and each access's line number are kept.
/// A line that is not UTF-8 is an error at its line and the column of its first bad byte.
pub fn replay_reader(
    cfg: GpuConfig,
    reader: impl std::io::BufRead,
) -> Result<(Stats, Vec<String>), TraceError> {
    let mut mem = MemSystem::tags_only(cfg).map_err(|e: MemError| err(0, 0, e.to_string()))?;
    let parsed = read_trace(reader);
    parsed.replay(&mut mem)?;
    if let Some(e) = parsed.error {
        return Err(e);
    }
    Ok((mem.stats(), parsed.ops))
}

/// A text trace read into its compiled form, for [`ParsedTrace::replay`].
#[derive(Debug, Default)]
pub struct ParsedTrace {
    /// The accesses of the lines before the first bad one.
    pub trace: Trace,
    /// The op spellings by instruction id.
    pub ops: Vec<String>,
    /// The line of each access, to name the line of an access memsys rejects.
    pub lines: Vec<u32>,
    /// The first bad line, if any (reading stopped there).
    pub error: Option<TraceError>,
}

impl ParsedTrace {
    /// Replays the accesses through `mem`; an access memsys rejects is an error at its line.
    /// A parse error (in [`ParsedTrace::error`]) is left to the caller: it comes after every
    /// access that was read.
    pub fn replay(&self, mem: &mut MemSystem) -> Result<u64, TraceError> {
        match replay::run_trace(mem, &self.trace) {
            Err(MemError::Replay { index, source }) => {
                let at = usize::try_from(index)
                    .ok()
                    .and_then(|i| self.lines.get(i))
                    .map_or(0, |&l| l as usize);
                Err(err(at, 1, source.to_string()))
            }
            Err(e) => Err(err(0, 0, e.to_string())),
            Ok(n) => Ok(n),
        }
    }
}

/// Reads a text trace line by line into its compiled form, stopping at the first bad line
/// (kept in [`ParsedTrace::error`]).
pub fn read_trace(mut reader: impl std::io::BufRead) -> ParsedTrace {
    let mut parser = TraceParser::new();
    let mut out = ParsedTrace::default();
    let mut buf = Vec::new();
    let mut line = 0usize;
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                out.error = Some(err(line + 1, 1, format!("cannot read the trace: {e}")));
                break;
            }
        }
        line += 1;
        let mut bytes = buf.as_slice();
        if let Some(b) = bytes.strip_suffix(b"\n") {
            bytes = b.strip_suffix(b"\r").unwrap_or(b);
        }
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let column = e.valid_up_to() + 1;
                out.error = Some(err(line, column, "the trace is not UTF-8 text"));
                break;
            }
        };
        match parser.parse_into(text, line, &mut out.trace) {
            Ok(true) => out.lines.push(u32::try_from(line).unwrap_or(u32::MAX)),
            Ok(false) => {}
            Err(e) => {
                out.error = Some(e);
                break;
            }
        }
    }
    out.ops = parser.ops;
    out
}

#[cfg(test)]
mod tests;
