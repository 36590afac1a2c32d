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
