//! The one mapping between ptx-isa's qualifier enums and memsys's request fields: each pair
//! converts both ways with `From`, so the lowering (ptx-exec), the trace parser and the trace
//! writer (ptx-trace) share it. memsys's own enums say what the model does; ptx-isa's say how
//! PTX spells it (`token()`).

use crate::{
    CacheOperator, L1EvictionPriority, L2EvictionPriority, PrefetchSize, Scope, Semantics,
};

/// `From` both ways between a ptx-isa enum and a memsys enum, variant for variant.
macro_rules! both_ways {
    ($isa:ident <=> $ours:ident { $($a:ident <=> $b:ident),+ $(,)? }) => {
        impl From<ptx_isa::$isa> for $ours {
            fn from(x: ptx_isa::$isa) -> $ours {
                match x { $(ptx_isa::$isa::$a => $ours::$b),+ }
            }
        }

        impl From<$ours> for ptx_isa::$isa {
            fn from(x: $ours) -> ptx_isa::$isa {
                match x { $($ours::$b => ptx_isa::$isa::$a),+ }
            }
        }
    };
}

both_ways!(CacheOperator <=> CacheOperator {
    Ca <=> Ca, Cg <=> Cg, Cs <=> Cs, Lu <=> Lu, Cv <=> Cv, Wb <=> Wb, Wt <=> Wt,
});

both_ways!(Scope <=> Scope { Cta <=> Cta, Cluster <=> Cluster, Gpu <=> Gpu, Sys <=> Sys });

both_ways!(L1EvictionPriority <=> L1EvictionPriority {
    EvictNormal <=> Normal, EvictUnchanged <=> Unchanged, EvictFirst <=> First,
    EvictLast <=> Last, NoAllocate <=> NoAllocate,
});

both_ways!(L2EvictionPriority <=> L2EvictionPriority {
    EvictNormal <=> Normal, EvictFirst <=> First, EvictLast <=> Last,
    EvictUnchanged <=> Unchanged,
});

both_ways!(PrefetchSize <=> PrefetchSize { B64 <=> B64, B128 <=> B128, B256 <=> B256 });

impl From<ptx_isa::MemorySemantics> for Semantics {
    fn from(x: ptx_isa::MemorySemantics) -> Semantics {
        match x {
            ptx_isa::MemorySemantics::Weak => Semantics::Weak,
            ptx_isa::MemorySemantics::Volatile => Semantics::Volatile,
            ptx_isa::MemorySemantics::Relaxed => Semantics::Relaxed,
            ptx_isa::MemorySemantics::Acquire => Semantics::Acquire,
            ptx_isa::MemorySemantics::Release => Semantics::Release,
        }
    }
}

impl Semantics {
    /// The PTX memory-semantics qualifier, or `None` for [`Semantics::Mmio`] (PTX writes
    /// `.mmio.relaxed`: a flag beside the `.relaxed` semantics).
    pub fn isa(self) -> Option<ptx_isa::MemorySemantics> {
        Some(match self {
            Semantics::Weak => ptx_isa::MemorySemantics::Weak,
            Semantics::Volatile => ptx_isa::MemorySemantics::Volatile,
            Semantics::Relaxed => ptx_isa::MemorySemantics::Relaxed,
            Semantics::Acquire => ptx_isa::MemorySemantics::Acquire,
            Semantics::Release => ptx_isa::MemorySemantics::Release,
            Semantics::Mmio => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every ptx-isa variant goes to memsys and back unchanged.
    #[test]
    fn each_mapping_round_trips() {
        for &x in ptx_isa::CacheOperator::ALL {
            assert_eq!(ptx_isa::CacheOperator::from(CacheOperator::from(x)), x);
        }
        for &x in ptx_isa::Scope::ALL {
            assert_eq!(ptx_isa::Scope::from(Scope::from(x)), x);
        }
        for &x in ptx_isa::L1EvictionPriority::ALL {
            assert_eq!(
                ptx_isa::L1EvictionPriority::from(L1EvictionPriority::from(x)),
                x
            );
        }
        for &x in ptx_isa::L2EvictionPriority::ALL {
            assert_eq!(
                ptx_isa::L2EvictionPriority::from(L2EvictionPriority::from(x)),
                x
            );
        }
        for &x in ptx_isa::PrefetchSize::ALL {
            assert_eq!(ptx_isa::PrefetchSize::from(PrefetchSize::from(x)), x);
        }
        for &x in ptx_isa::MemorySemantics::ALL {
            assert_eq!(Semantics::from(x).isa(), Some(x));
        }
        assert_eq!(Semantics::Mmio.isa(), None);
    }
}
