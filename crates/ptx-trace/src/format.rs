//! Writing an access back as a trace line ([`crate::format_access`]), the inverse of the
//! parser.

use super::*;

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
    match r.semantics.isa() {
        Some(MemorySemantics::Weak) => {}
        Some(s) => op.push_str(s.token()),
        None => op.push_str(".mmio.relaxed"),
    }
    if r.semantics != Semantics::Weak || r.scope != Scope::Gpu {
        op.push_str(ptx_isa::Scope::from(r.scope).token());
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
        (_, Some(o)) => op.push_str(ptx_isa::CacheOperator::from(o).token()),
        (_, None) => {}
    }
    if let Some(p) = r.l1_priority {
        op.push_str(ptx_isa::L1EvictionPriority::from(p).token());
    }
    if let Some(p) = r.l2_priority {
        op.push_str(ptx_isa::L2EvictionPriority::from(p).token());
    }
    if r.policy.is_some() {
        op.push_str(".L2::cache_hint");
    }
    if let Some(p) = r.prefetch {
        op.push_str(ptx_isa::PrefetchSize::from(p).token());
    }
    if r.kind == AccessKind::Atomic {
        op.push_str(".add");
    }
    let mut line = if r.warp == 0 {
        format!("{} {op} {:#x} {}", r.sm.0, a.addr, a.bytes)
    } else {
        format!("{}:{} {op} {:#x} {}", r.sm.0, r.warp, a.addr, a.bytes)
    };
    if let Some(p) = r.policy {
        line.push_str(&format!(" {p:#x}"));
    }
    line
}
