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

use rustc_hash::FxHashMap;

use memsys::replay::{self, Trace, TraceAccess};
use memsys::{
    AccessKind, CacheOperator, GpuConfig, InstrId, L1EvictionPriority, L2EvictionPriority,
    MemError, MemSystem, PrefetchSize, Request, Scope, Semantics, SmId, Space, Stats,
};
use ptx_isa::{CacheLevel, Flag, MemorySemantics, Qualifier, StateSpace};
use thiserror::Error;

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
    /// Per instruction id, the policy value of its last access and that request's shape in
    /// the trace being filled by [`TraceParser::parse_into`].
    shapes: Vec<Option<(Option<u64>, u32)>>,
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

/// The value of each hex digit byte; 0xFF for any other byte.
const HEX: [u8; 256] = {
    let mut t = [0xFFu8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

fn parse_hex(s: &str) -> Option<u64> {
    let digits = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))?;
    // Leading zeros do not count towards the 16 digits a u64 holds.
    let digits = digits.as_bytes();
    let significant = &digits[digits.iter().take_while(|&&b| b == b'0').count()..];
    if digits.is_empty() || significant.len() > 16 {
        return None;
    }
    let mut v: u64 = 0;
    let mut bad = 0u8;
    for &b in significant {
        let d = HEX[usize::from(b)];
        bad |= d;
        v = (v << 4) | u64::from(d & 0x0F);
    }
    (bad & 0xF0 == 0).then_some(v)
}
/// The fields of an access line.
struct Fields<'a> {
    sm: u32,
    op: &'a str,
    op_col: usize,
    addr: u64,
    bytes: u32,
    policy: Option<u64>,
}

/// Whether `b` separates fields (the ASCII characters `char::is_whitespace` accepts).
#[inline]
fn is_separator(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r')
}

/// Splits a line (comment removed) into at most six fields with their 1-based columns, and
/// counts them (a sixth one only to report too many). Fields are separated by whitespace.
fn split_fields(body: &str) -> ([(&str, usize); 6], usize) {
    let mut fields = [("", 0usize); 6];
    let mut count = 0;
    let bytes = body.as_bytes();
    // Fast path: ASCII with no control characters but tabs, so spaces and tabs are the only
    // separators and memchr finds them (the check folds without early exit: vectorized).
    let plain = bytes.iter().fold(0u8, |a, &b| {
        a | (b & 0x80) | u8::from(b < 0x20 && b != b'\t')
    }) == 0;
    if plain {
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b' ' || bytes[i] == b'\t' {
                i += 1;
                continue;
            }
            let end = memchr::memchr2(b' ', b'\t', &bytes[i..]).map_or(bytes.len(), |n| i + n);
            if count < fields.len() {
                fields[count] = (&body[i..end], i + 1);
            }
            count += 1;
            i = end;
        }
        return (fields, count);
    }
    let mut start = None;
    let mut i = 0;
    loop {
        let (space, len) = match bytes.get(i) {
            None => (true, 1),
            Some(&b) if b.is_ascii() => (is_separator(b), 1),
            // A multi-byte character (`i` is always on a character boundary).
            Some(_) => {
                let c = body[i..].chars().next().unwrap_or(' ');
                (c.is_whitespace(), c.len_utf8())
            }
        };
        match (space, start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                if count < fields.len() {
                    fields[count] = (&body[s..i], s + 1);
                }
                count += 1;
                start = None;
            }
            _ => {}
        }
        if i >= bytes.len() {
            break;
        }
        i += len;
    }
    (fields, count)
}

/// The fields of line number `line`; `Ok(None)` for blank and comment lines.
fn parse_fields(text: &str, line: usize) -> Result<Option<Fields<'_>>, TraceError> {
    let body = match memchr_hash(text) {
        Some(i) => &text[..i],
        None => text,
    };
    let (fields, count) = split_fields(body);
    if count == 0 {
        return Ok(None);
    }
    if !(4..=5).contains(&count) {
        return Err(err(
            line,
            1,
            format!(
                "expected `<sm> <op> <hex-address> <bytes> [<hex-policy>]`, found {count} fields"
            ),
        ));
    }
    let (sm_text, sm_col) = fields[0];
    let sm: u32 = sm_text.parse().map_err(|_| {
        err(
            line,
            sm_col,
            format!("SM index `{sm_text}` is not a decimal number"),
        )
    })?;
    let (addr_text, addr_col) = fields[2];
    let addr = parse_hex(addr_text).ok_or_else(|| {
        err(
            line,
            addr_col,
            format!("address `{addr_text}` is not a 0x-prefixed hex number"),
        )
    })?;
    let (bytes_text, bytes_col) = fields[3];
    let bytes: u32 = bytes_text
        .parse()
        .ok()
        .filter(|b| (1..=memsys::MAX_LANE_BYTES).contains(b))
        .ok_or_else(|| {
            err(
                line,
                bytes_col,
                format!("byte count `{bytes_text}` is not in 1..=128"),
            )
        })?;
    let policy = match (count == 5).then_some(fields[4]) {
        None => None,
        Some((p, col)) => Some(parse_hex(p).ok_or_else(|| {
            err(
                line,
                col,
                format!("cache policy `{p}` is not a 0x-prefixed hex number"),
            )
        })?),
    };
    let (op, op_col) = fields[1];
    Ok(Some(Fields {
        sm,
        op,
        op_col,
        addr,
        bytes,
        policy,
    }))
}

/// The position of the first `#` (a comment) in `text`.
#[inline]
fn memchr_hash(text: &str) -> Option<usize> {
    memchr::memchr(b'#', text.as_bytes())
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
            Some((policy, shape)) if policy == f.policy => shape,
            _ => {
                let shape = trace.intern(&Request {
                    policy: f.policy,
                    ..request
                });
                let i = request.instr.0 as usize;
                if self.shapes.len() <= i {
                    self.shapes.resize(i + 1, None);
                }
                self.shapes[i] = Some((f.policy, shape));
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
                Qualifier::Semantics(s) => {
                    req.semantics = match s {
                        MemorySemantics::Weak => Semantics::Weak,
                        MemorySemantics::Volatile => Semantics::Volatile,
                        MemorySemantics::Relaxed => Semantics::Relaxed,
                        MemorySemantics::Acquire => Semantics::Acquire,
                        MemorySemantics::Release => Semantics::Release,
                    };
                }
                Qualifier::Scope(s) => {
                    req.scope = match s {
                        ptx_isa::Scope::Cta => Scope::Cta,
                        ptx_isa::Scope::Cluster => Scope::Cluster,
                        ptx_isa::Scope::Gpu => Scope::Gpu,
                        ptx_isa::Scope::Sys => Scope::Sys,
                    };
                }
                Qualifier::CacheOp(c) => {
                    req.operator = Some(match c {
                        ptx_isa::CacheOperator::Ca => CacheOperator::Ca,
                        ptx_isa::CacheOperator::Cg => CacheOperator::Cg,
                        ptx_isa::CacheOperator::Cs => CacheOperator::Cs,
                        ptx_isa::CacheOperator::Lu => CacheOperator::Lu,
                        ptx_isa::CacheOperator::Cv => CacheOperator::Cv,
                        ptx_isa::CacheOperator::Wb => CacheOperator::Wb,
                        ptx_isa::CacheOperator::Wt => CacheOperator::Wt,
                    });
                }
                Qualifier::L1(p) => {
                    req.l1_priority = Some(match p {
                        ptx_isa::L1EvictionPriority::EvictNormal => L1EvictionPriority::Normal,
                        ptx_isa::L1EvictionPriority::EvictUnchanged => {
                            L1EvictionPriority::Unchanged
                        }
                        ptx_isa::L1EvictionPriority::EvictFirst => L1EvictionPriority::First,
                        ptx_isa::L1EvictionPriority::EvictLast => L1EvictionPriority::Last,
                        ptx_isa::L1EvictionPriority::NoAllocate => L1EvictionPriority::NoAllocate,
                    });
                }
                Qualifier::L2(p) => {
                    req.l2_priority = Some(match p {
                        ptx_isa::L2EvictionPriority::EvictNormal => L2EvictionPriority::Normal,
                        ptx_isa::L2EvictionPriority::EvictFirst => L2EvictionPriority::First,
                        ptx_isa::L2EvictionPriority::EvictLast => L2EvictionPriority::Last,
                        ptx_isa::L2EvictionPriority::EvictUnchanged => {
                            L2EvictionPriority::Unchanged
                        }
                    });
                }
                Qualifier::Prefetch(p) => {
                    req.prefetch = Some(match p {
                        ptx_isa::PrefetchSize::B64 => PrefetchSize::B64,
                        ptx_isa::PrefetchSize::B128 => PrefetchSize::B128,
                        ptx_isa::PrefetchSize::B256 => PrefetchSize::B256,
                    });
                }
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

/// Writes one access as a trace line that [`TraceParser::parse_line`] reads back as the same
/// request (apart from the instruction id, which the parser assigns per op spelling). Every
/// request the parser can produce round-trips; so does every request of
/// [`memsys::replay::synthetic`] and [`memsys::replay::streaming`].
pub fn format_access(a: &TraceAccess) -> String {
    let r = &a.request;
    let mut op = String::from(match r.kind {
        AccessKind::Load => "ld",
        AccessKind::Store => "st",
        AccessKind::AsyncCopy => "cp.async",
        AccessKind::Prefetch => "prefetch",
        AccessKind::Atomic => "atom",
    });
    match r.semantics {
        Semantics::Weak => {}
        Semantics::Volatile => op.push_str(".volatile"),
        Semantics::Relaxed => op.push_str(".relaxed"),
        Semantics::Acquire => op.push_str(".acquire"),
        Semantics::Release => op.push_str(".release"),
        Semantics::Mmio => op.push_str(".mmio.relaxed"),
    }
    if r.semantics != Semantics::Weak || r.scope != Scope::Gpu {
        op.push_str(match r.scope {
            Scope::Cta => ".cta",
            Scope::Cluster => ".cluster",
            Scope::Gpu => ".gpu",
            Scope::Sys => ".sys",
        });
    }
    if r.kind == AccessKind::AsyncCopy {
        op.push_str(".shared");
    }
    op.push_str(match r.space {
        Space::Global | Space::Shared => ".global",
        Space::Local => ".local",
        Space::Const => ".const",
        Space::Param => ".param",
    });
    if r.non_coherent {
        op.push_str(".nc");
    }
    match (r.kind, r.operator) {
        (AccessKind::Prefetch, Some(CacheOperator::Ca)) => op.push_str(".L1"),
        (AccessKind::Prefetch, _) => {}
        (_, Some(o)) => op.push_str(match o {
            CacheOperator::Ca => ".ca",
            CacheOperator::Cg => ".cg",
            CacheOperator::Cs => ".cs",
            CacheOperator::Lu => ".lu",
            CacheOperator::Cv => ".cv",
            CacheOperator::Wb => ".wb",
            CacheOperator::Wt => ".wt",
        }),
        (_, None) => {}
    }
    if let Some(p) = r.l1_priority {
        op.push_str(match p {
            L1EvictionPriority::Normal => ".L1::evict_normal",
            L1EvictionPriority::Unchanged => ".L1::evict_unchanged",
            L1EvictionPriority::First => ".L1::evict_first",
            L1EvictionPriority::Last => ".L1::evict_last",
            L1EvictionPriority::NoAllocate => ".L1::no_allocate",
        });
    }
    if let Some(p) = r.l2_priority {
        op.push_str(match p {
            L2EvictionPriority::Normal => ".L2::evict_normal",
            L2EvictionPriority::First => ".L2::evict_first",
            L2EvictionPriority::Last => ".L2::evict_last",
            L2EvictionPriority::Unchanged => ".L2::evict_unchanged",
        });
    }
    if r.policy.is_some() {
        op.push_str(".L2::cache_hint");
    }
    if let Some(p) = r.prefetch {
        op.push_str(match p {
            PrefetchSize::B64 => ".L2::64B",
            PrefetchSize::B128 => ".L2::128B",
            PrefetchSize::B256 => ".L2::256B",
        });
    }
    if r.kind == AccessKind::Atomic {
        op.push_str(".add");
    }
    let mut line = format!("{} {op} {:#x} {}", r.sm.0, a.addr, a.bytes);
    if let Some(p) = r.policy {
        line.push_str(&format!(" {p:#x}"));
    }
    line
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
mod tests {
    use super::*;

    fn one(line: &str) -> Result<TraceAccess, TraceError> {
        TraceParser::new()
            .parse_line(line, 7)
            .map(|a| a.expect("an access"))
    }

    #[test]
    fn parses_the_documented_examples() {
        let a = one("3 ld.global.nc.L1::evict_last.L2::256B 0x7f0000001000 16").unwrap();
        assert_eq!(
            (a.request.sm, a.addr, a.bytes),
            (SmId(3), 0x7f00_0000_1000, 16)
        );
        assert!(a.request.non_coherent);
        assert_eq!(a.request.l1_priority, Some(L1EvictionPriority::Last));
        assert_eq!(a.request.prefetch, Some(PrefetchSize::B256));
        let s = one("0 st.global.L2::cache_hint.b32 0x1000 4 0x14f0000000000000").unwrap();
        assert_eq!(s.request.kind, AccessKind::Store);
        assert_eq!(s.request.policy, Some(0x14f0_0000_0000_0000));
    }

    #[test]
    fn maps_every_qualifier_class() {
        let c = one("1 cp.async.cg.shared.global.L2::128B 0x100 16").unwrap();
        assert_eq!(
            (c.request.kind, c.request.operator, c.request.space),
            (
                AccessKind::AsyncCopy,
                Some(CacheOperator::Cg),
                Space::Global
            )
        );
        let r = one("0 ld.relaxed.gpu.global.L2::evict_first.v4.u32 0x0 16").unwrap();
        assert_eq!(
            (r.request.semantics, r.request.scope),
            (Semantics::Relaxed, Scope::Gpu)
        );
        assert_eq!(r.request.l2_priority, Some(L2EvictionPriority::First));
        let m = one("0 st.mmio.relaxed.sys.global.u32 0x0 4").unwrap();
        assert_eq!(m.request.semantics, Semantics::Mmio);
        let p = one("0 prefetch.global.L2::evict_last 0x80 1").unwrap();
        assert_eq!(
            (p.request.kind, p.request.operator),
            (AccessKind::Prefetch, Some(CacheOperator::Cg))
        );
        let p1 = one("0 prefetch.global.L1 0x80 1").unwrap();
        assert_eq!(p1.request.operator, Some(CacheOperator::Ca));
        let at = one("2 atom.global.add.u32 0x40 4").unwrap();
        assert_eq!(at.request.kind, AccessKind::Atomic);
        let cv = one("0 ld.global.cv.u32 0x40 4  # trailing comment").unwrap();
        assert_eq!(cv.request.operator, Some(CacheOperator::Cv));
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = one("0 ld.global.L2::evict_middle.u32 0x0 4").unwrap_err();
        assert_eq!((e.line, e.column), (7, 12));
        assert!(e
            .to_string()
            .starts_with("7:12: unknown qualifier `.L2::evict_middle`"));
        assert_eq!(one("0 ld.global.u32 1000 4").unwrap_err().column, 17);
        assert_eq!(one("x ld.global.u32 0x1000 4").unwrap_err().column, 1);
        assert!(one("0 ld.global.u32 0x1000 0").is_err());
        assert!(one("0 ld.global.u32 0x1000 4 0x14f0000000000000")
            .unwrap_err()
            .message
            .contains("cache_hint"));
        assert!(one("0 ld.global.L2::cache_hint.u32 0x1000 4")
            .unwrap_err()
            .message
            .contains("policy"));
        assert!(one("0 ld.shared.u32 0x1000 4")
            .unwrap_err()
            .message
            .contains("not cached"));
        assert!(one("0 mov.u32 0x1000 4").is_err());
        assert!(one("0 ld.global.u32 0x1000").is_err());
        assert_eq!(
            TraceParser::new().parse_line("   # just a comment", 1),
            Ok(None)
        );
    }

    #[test]
    fn replays_a_trace_with_per_op_counters() {
        // Two SMs read the same sector with .ca: two L1 misses, one L2 miss then one L2 hit;
        // SM 0 reads it again: an L1 hit. The .cg op bypasses L1 (counted as an L1 lookup that
        // misses, as Nsight Compute counts it: memsys README "Counting as Nsight Compute does")
        // and hits L2.
        let trace = "\
# sm op addr bytes
0 ld.global.ca.u32 0x7f0000000000 4
1 ld.global.ca.u32 0x7f0000000000 4
0 ld.global.ca.u32 0x7f0000000004 4
0 ld.global.cg.u32 0x7f0000000008 4
";
        let (stats, ops) = replay_text(GpuConfig::a100(), trace).unwrap();
        assert_eq!(
            ops,
            vec![
                "ld.global.ca.u32".to_string(),
                "ld.global.cg.u32".to_string()
            ]
        );
        let t = stats.total();
        assert_eq!((t.l1.read_hits, t.l1.read_misses), (1, 3));
        assert_eq!((t.l2.read_hits, t.l2.read_misses), (2, 1));
        assert_eq!(stats.per_instr[1].l2.read_hits, 1);
        let bad = replay_text(
            GpuConfig::a100(),
            "0 ld.global.u32 0x0 4\n999 ld.global.u32 0x0 4\n",
        )
        .unwrap_err();
        assert_eq!(bad.line, 2);
    }

    #[test]
    fn the_first_error_in_line_order_is_reported() {
        // Line 2 names an SM the A100 lacks; line 4 does not parse: line 2 wins.
        let text = "0 ld.global.u32 0x0 4\n999 ld.global.u32 0x0 4\n# c\n0 ld.global.bogus 0x0 4\n";
        let e = replay_text(GpuConfig::a100(), text).unwrap_err();
        assert_eq!((e.line, e.column), (2, 1));
        assert!(e.message.contains("SM 999"), "{e}");
        // Without it, the parse error at line 3 (column 13, the qualifier) is reported.
        let text = "0 ld.global.u32 0x0 4\n\n0 ld.global.bogus 0x0 4\n";
        let e = replay_text(GpuConfig::a100(), text).unwrap_err();
        assert_eq!((e.line, e.column), (3, 12));
    }

    #[test]
    fn cached_op_spellings_still_check_the_policy_field() {
        let mut p = TraceParser::new();
        let op = "st.global.L2::cache_hint.b32";
        assert!(p
            .parse_line(&format!("0 {op} 0x0 4 0x14f0000000000000"), 1)
            .is_ok());
        let e = p.parse_line(&format!("0 {op} 0x0 4"), 2).unwrap_err();
        assert!(e.message.contains("needs a <hex-policy>"), "{e}");
        // A rejected line does not intern its spelling; an accepted one reuses the id.
        let e = p.parse_line("0 ld.global.u32 0x0 4 0x1", 3).unwrap_err();
        assert!(e.message.contains("needs `.L2::cache_hint`"), "{e}");
        assert_eq!(p.ops(), [op.to_string()]);
        let a = p.parse_line("1 ld.global.u32 0x0 4", 4).unwrap().unwrap();
        let b = p.parse_line("2 ld.global.u32 0x80 8", 5).unwrap().unwrap();
        assert_eq!((a.request.instr, b.request.instr), (InstrId(1), InstrId(1)));
        assert_eq!((b.request.sm, b.addr, b.bytes), (SmId(2), 0x80, 8));
    }

    /// The compiled replay counts exactly what performing each parsed line in turn does.
    #[test]
    fn compiled_replay_counts_like_line_by_line_access() {
        let ops = [
            "ld.global.nc.L1::evict_last.L2::256B",
            "ld.global.cs.u32",
            "ld.global.cg.L2::evict_first.v4.u32",
            "st.global.wb.u32",
            "st.global.cs.v2.u32",
            "cp.async.cg.shared.global.L2::128B",
            "ld.global.L1::no_allocate.L2::cache_hint.u32",
            "atom.global.add.u32",
            "prefetch.global.L2::evict_last",
            "ld.volatile.global.u32",
        ];
        let mut text = String::new();
        let mut x = 0x1234_5678u64;
        for i in 0..20_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let op = ops[(x % ops.len() as u64) as usize];
            let addr = 0x7f00_0000_0000 + (x >> 20) % (1 << 22) / 16 * 16;
            let policy = if op.contains("cache_hint") {
                if i % 2 == 0 {
                    " 0x14f0000000000000"
                } else {
                    " 0x12f0000000000000"
                }
            } else {
                ""
            };
            text.push_str(&format!("{} {op} {addr:#x} 16{policy}\n", (x >> 8) % 16));
        }
        let (stats, ops_seen) = replay_text(GpuConfig::a100(), &text).unwrap();
        let mut mem = MemSystem::tags_only(GpuConfig::a100()).unwrap();
        let mut parser = TraceParser::new();
        for (i, l) in text.lines().enumerate() {
            let a = parser.parse_line(l, i + 1).unwrap().unwrap();
            mem.access(&a.request, a.addr, a.bytes).unwrap();
        }
        assert_eq!(stats, mem.stats());
        assert_eq!(ops_seen, parser.ops());
        assert_eq!(stats.requests, 20_000);
    }

    #[test]
    fn hex_numbers() {
        assert_eq!(parse_hex("0x0"), Some(0));
        assert_eq!(parse_hex("0X7f0000001000"), Some(0x7f00_0000_1000));
        assert_eq!(parse_hex("0xFFFFffffFFFFffff"), Some(u64::MAX));
        // Leading zeros do not count towards the 16 digits.
        assert_eq!(parse_hex("0x00000000000000000001"), Some(1));
        assert_eq!(parse_hex("0x10000000000000000"), None);
        for bad in ["0x", "0x+1", "0x1g", "1000", "0x 1", "0x-1", "x10", "0x1_0"] {
            assert_eq!(parse_hex(bad), None, "{bad}");
        }
    }

    #[test]
    fn spaces_tabs_and_other_ascii_whitespace_separate_fields() {
        for l in [
            "3 ld.global.u32 0x10 4",
            "  3\tld.global.u32   0x10\t\t4  ",
            "3\x0Cld.global.u32\x0B0x10\r4",
            "3 ld.global.u32 0x10 4 # comment 0x20",
        ] {
            let a = one(l).unwrap();
            assert_eq!((a.request.sm, a.addr, a.bytes), (SmId(3), 0x10, 4), "{l:?}");
        }
        let e = one("3 ld.global.u32\t0x10 4 5 6").unwrap_err();
        assert_eq!(e.column, 1);
        let e = one("3 ld.global.u32\t0xz0 4").unwrap_err();
        assert_eq!(e.column, 17);
    }

    #[test]
    fn any_unicode_whitespace_separates_fields() {
        let a = one("3\u{a0}ld.global.u32\t0x10\u{b}4  ").unwrap();
        assert_eq!((a.request.sm, a.addr, a.bytes), (SmId(3), 0x10, 4));
        // Columns count bytes: the address starts after a 2-byte no-break space.
        let e = one("é ld.global.u32 0x0 4").unwrap_err();
        assert_eq!(e.column, 1);
        let e = one("1\u{a0}ld.global.u32 zz 4").unwrap_err();
        assert_eq!(e.column, 18);
    }

    #[test]
    fn formatted_accesses_parse_back() {
        let mut p = TraceParser::new();
        let mut check = |a: TraceAccess| {
            let text = format_access(&a);
            let b = p.parse_line(&text, 1).unwrap().unwrap();
            let same = TraceAccess {
                request: Request {
                    instr: a.request.instr,
                    ..b.request
                },
                ..b
            };
            assert_eq!(same, a, "{text}");
        };
        for a in memsys::replay::synthetic(5).take(2000) {
            check(a);
        }
        for a in memsys::replay::streaming().take(100) {
            check(a);
        }
        // Whatever the parser makes from the documented examples and the qualifier classes.
        for l in [
            "3 ld.global.nc.L1::evict_last.L2::256B 0x7f0000001000 16",
            "0 st.global.L2::cache_hint.b32 0x1000 4 0x14f0000000000000",
            "1 cp.async.cg.shared.global.L2::128B 0x100 16",
            "0 ld.relaxed.gpu.global.L2::evict_first.v4.u32 0x0 16",
            "0 st.mmio.relaxed.sys.global.u32 0x0 4",
            "0 prefetch.global.L2::evict_last 0x80 1",
            "0 prefetch.global.L1 0x80 1",
            "2 atom.global.add.u32 0x40 4",
            "0 ld.global.cv.u32 0x40 4",
            "4 ld.volatile.local.L1::no_allocate.u8 0x3 1",
            "4 ld.acquire.cta.const.lu.u8 0x3 1",
            "5 st.release.cluster.param.wt.L1::evict_unchanged.L2::evict_normal.b16 0x2 2",
        ] {
            let a = TraceParser::new().parse_line(l, 1).unwrap().unwrap();
            check(a);
        }
    }
}
