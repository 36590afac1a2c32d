//! Routing: where a request goes and with which hints ([`MemSystem::resolve`], one arm per
//! PTX ISA sentence), and the direct-mapped route cache keyed by request shape.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum L1Path {
    /// The access neither looks up nor fills L1.
    Bypass,
    /// The access may hit in L1 and, when `allocate`, fills it on a miss, with the route's
    /// `l1_hint`.
    Cached { allocate: bool },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum L2Path {
    Cached,
    /// `.cv`: discard the L2 line and fetch again.
    Refetch,
    /// `.mmio`: straight to memory.
    Uncached,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OwnL1 {
    /// Write the new bytes into this SM's L1 copy if the sectors are resident (touching it
    /// with the route's `l1_hint`).
    Update,
    /// Drop this SM's L1 copy of the sectors.
    Invalidate,
    /// Install the written sectors in this SM's L1 (local-memory stores; see
    /// [`resolve_route`]).
    Allocate,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    Read,
    Write { through: bool },
    Atomic,
}

/// Where an access's L2 priority comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum L2Choice {
    /// The route's `l2_hint` (no policy, or a policy in implicit mode).
    Qualifiers,
    /// A fraction policy (the route's `fraction`).
    Fraction,
    /// A range policy: primary by the value's 128-block window; outside both ranges (when
    /// `create_range_policy` made the value and kept them) the access's own priority.
    Range { policy: CachePolicy, value: u64 },
}

/// A fraction policy's draw: the primary priority with probability `sixteenths / 16`, drawn
/// from the seeded generator (no draw when it is 16/16).
#[derive(Debug, Clone, Copy)]
pub(super) struct Fraction {
    pub(super) sixteenths: u32,
    pub(super) primary: Hint,
    pub(super) secondary: Hint,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Route {
    pub(super) op: Op,
    /// L1 hint of a cached read or of an own-copy update.
    pub(super) l1_hint: Hint,
    pub(super) fraction: Fraction,
    pub(super) l1: L1Path,
    pub(super) own_l1: OwnL1,
    pub(super) l2: L2Path,
    /// L2 hint from qualifiers and operator (a policy, if any, overrides it per line).
    pub(super) l2_hint: Hint,
    pub(super) l2_choice: L2Choice,
    /// The block a read miss fetches: the larger of the fetch granularity and the
    /// prefetch-size hint.
    pub(super) prefetch_bytes: u32,
    /// Invalidate this SM's L1 after the access (acquire at gpu/sys scope).
    pub(super) invalidate_l1_after: bool,
    /// The request counts as an L1 request (it looks L1 up, or updates this SM's copy).
    pub(super) touches_l1: bool,
    /// A load that bypasses L1 (`.cg`, `.cv`, coherent, `cp.async.cg`) still passes the
    /// L1TEX tag stage: Nsight counts its sectors as L1 global-load lookups that miss
    /// (H100: `triton.vadd_cv_wb_cg` 1,504 L1 sectors = 752 `.cv` + 752 `.ca`, hit rate 37.5 %;
    /// `pipeline_mbarrier`'s `cp.async.cg` 64 sectors, 0 hits).
    pub(super) l1_bypass_lookup: bool,
    /// `ld.global.nc`: the L1 sectors this read fills belong to the read-only path, whose
    /// copy the SM's own later stores do not update (H100, `fetch_probe.cu` `same_sm`).
    pub(super) read_only_fill: bool,
    /// A local-memory access ([`Space::Local`]): its L1 events go to
    /// [`crate::Counters::l1_local`], and its bytes are the caller's (tags only).
    pub(super) local: bool,
    /// `.mmio`: every lane's access is its own, never coalesced with the other lanes'
    /// ([`super::execute::coalesce`], per lane). PTX ISA 8.4.1 (mmio Operation): "Writes are
    /// always performed and are never combined within the scope specified. Reads are always
    /// performed, and are not forwarded, prefetched, combined, or allowed to hit any cache
    /// within the scope specified." On an H100 (caches flushed, 2 warps of 32 lanes storing
    /// or loading one word each, `.sys` scope): `st_forms.st_global_forms` counts 282 L2
    /// write sectors where its 25 other forms make 200 (+82; a coalesced warp would add 8,
    /// a lane each 64), and `ld_forms.ld_global_forms` 346 L1 global-load sectors where its
    /// other loads make 282 (+64: 32 per warp) but no more L2 reads (the read hits no cache).
    pub(super) per_lane: bool,
}

/// A route cache entry: the packed request shape, its policy value and its route.
#[derive(Debug, Clone, Copy)]
pub(super) struct RouteSlot {
    pub(super) shape: u64,
    pub(super) policy: u64,
    pub(super) route: Route,
}

/// Request shape (every field but the SM, the instruction and the policy value) in one word.
#[inline(always)]
pub(super) fn shape_of(r: &Request) -> u64 {
    #[inline(always)]
    fn opt(v: Option<u64>) -> u64 {
        v.map_or(0, |v| v + 1)
    }
    (r.kind as u64)
        | (r.space as u64) << 4
        | opt(r.operator.map(|o| o as u64)) << 8
        | (r.semantics as u64) << 12
        | (r.scope as u64) << 16
        | u64::from(r.non_coherent) << 20
        | opt(r.l1_priority.map(|p| p as u64)) << 24
        | opt(r.l2_priority.map(|p| p as u64)) << 28
        | opt(r.prefetch.map(|p| p as u64)) << 32
        | u64::from(r.policy.is_some()) << 36
}

/// The `fraction` of routes without a fraction policy.
pub(super) const NO_FRACTION: Fraction = Fraction {
    sixteenths: 16,
    primary: Hint::Unchanged,
    secondary: Hint::Unchanged,
};

/// A shape no request has (marks empty route cache entries).
pub(super) const NO_SHAPE: u64 = u64::MAX;

/// Whether two requests have the same shape (every field but the SM and the instruction),
/// compared without branches.
#[inline(always)]
pub(super) fn same_shape(a: &Request, b: &Request) -> bool {
    (a.kind == b.kind)
        & (a.space == b.space)
        & (a.operator == b.operator)
        & (a.semantics == b.semantics)
        & (a.scope == b.scope)
        & (a.non_coherent == b.non_coherent)
        & (a.l1_priority == b.l1_priority)
        & (a.l2_priority == b.l2_priority)
        & (a.prefetch == b.prefetch)
        & (a.policy == b.policy)
}

pub(super) fn l1_hint(p: L1EvictionPriority) -> Hint {
    match p {
        L1EvictionPriority::Normal => Hint::Set(EvictionClass::Normal),
        L1EvictionPriority::First => Hint::Set(EvictionClass::EvictFirst),
        L1EvictionPriority::Last => Hint::Set(EvictionClass::EvictLast),
        L1EvictionPriority::Unchanged | L1EvictionPriority::NoAllocate => Hint::Unchanged,
    }
}

pub(super) fn l2_hint(p: L2EvictionPriority) -> Hint {
    match p {
        L2EvictionPriority::Normal => Hint::Set(EvictionClass::Normal),
        L2EvictionPriority::First => Hint::Set(EvictionClass::EvictFirst),
        L2EvictionPriority::Last => Hint::Set(EvictionClass::EvictLast),
        L2EvictionPriority::Unchanged => Hint::Unchanged,
    }
}

impl MemSystem {
    /// The route cache entry holding `req`'s route, resolving it on a miss.
    #[inline(always)]
    pub(super) fn route_slot(&mut self, req: &Request) -> Result<usize, MemError> {
        let shape = shape_of(req);
        let policy = req.policy.unwrap_or(0);
        let i = ((shape ^ policy.rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58)
            as usize
            % ROUTE_SLOTS;
        let e = &self.routes[i];
        if e.shape == shape && e.policy == policy {
            return Ok(i);
        }
        self.route_slow(req, shape, policy, i)
    }

    /// The route of `req` (from the cache).
    pub(super) fn route(&mut self, req: &Request) -> Result<Route, MemError> {
        let i = self.route_slot(req)?;
        Ok(self.routes[i].route)
    }

    #[cold]
    #[inline(never)]
    pub(super) fn route_slow(
        &mut self,
        req: &Request,
        shape: u64,
        policy: u64,
        i: usize,
    ) -> Result<usize, MemError> {
        let route = self.resolve(req)?;
        self.routes[i] = RouteSlot {
            shape,
            policy,
            route,
        };
        Ok(i)
    }

    // ---------------------------------------------------------------- routing

    /// Decides where a request goes. Each arm implements a sentence of the PTX ISA:
    ///
    /// - `.ca`: "allocates cache lines in all levels (L1 and L2) with normal eviction policy";
    ///   L1s "are not coherent for global data".
    /// - `.cg`: "cache only in the L2 cache", bypassing L1 (loads and stores).
    /// - `.cs`: "allocates global lines with evict-first policy in L1 and L2".
    /// - `.lu`: "performs a load cached streaming operation (`ld.cs`) on global addresses".
    /// - `.cv`: "invalidates (discards) a matching L2 line and re-fetches the line on each new
    ///   load" — and never hits in L1; the re-fetched line is not kept ("don't cache").
    /// - `.wb`: "writes back cache lines of coherent cache levels with normal eviction
    ///   policy": the L2 line is written and marked dirty; this SM's own L1 copy (if resident)
    ///   is updated, other SMs' copies are not ("may get a hit on stale L1 cache data").
    /// - `.wt`: "writes through the L2 cache": the L2 line is updated and the bytes go to DRAM.
    /// - volatile / relaxed / acquire / release (scope above `.cta`): served at the point of
    ///   coherence, L2; at `.cta` scope the SM's L1 is coherent for the CTA and is used.
    /// - `.mmio`: never cached.
    /// - acquire at gpu/sys scope also invalidates the SM's L1 afterwards, as sm_70+ SASS does
    ///   (`CCTL.IVALL` after the acquiring load), so later weak loads see released data.
    /// - atomics are performed at L2 and drop this SM's L1 copy.
    /// - `ld.global.nc` takes the read-only path, which on sm_70+ is the unified L1: it is
    ///   routed like the cache operator it carries (default `.ca`).
    pub(super) fn resolve(&self, req: &Request) -> Result<Route, MemError> {
        resolve_route(&self.cfg, self.geo, req)
    }
}

/// [`MemSystem::resolve`] on a configuration and its geometry (an SM port routes with it), in
/// stages: the spaces the caches do not serve are refused, a local access is made weak, the
/// request's qualifiers and policy give the base route, the access kind's sentences decide its
/// paths, and the last stage applies what holds whatever the kind (local stores allocate,
/// prefetches keep nothing in L1) and derives the counting flags.
pub(super) fn resolve_route(
    cfg: &GpuConfig,
    geo: Geometry,
    req: &Request,
) -> Result<Route, MemError> {
    refuse_uncached_spaces(req)?;
    // Local memory is the thread's own: no other thread can observe it, so a `.volatile`
    // (or other strong) local access is served like a weak one. On an H100
    // `st_forms.st_shared_local_forms`' `ld.volatile.local` of the word its
    // `st.volatile.local` wrote reads nothing from L2 (0 L2 read sectors): it hits L1.
    let weak_local;
    let req = if req.space == Space::Local && req.semantics != Semantics::Weak {
        weak_local = Request {
            semantics: Semantics::Weak,
            ..*req
        };
        &weak_local
    } else {
        req
    };
    let facts = Facts::of(req);
    let mut route = base_route(cfg, req, &facts);
    match req.kind {
        AccessKind::Load | AccessKind::AsyncCopy | AccessKind::Prefetch => {
            route_read(&mut route, req, &facts)?
        }
        AccessKind::Store => route_store(&mut route, req, &facts)?,
        AccessKind::Atomic => {
            route.op = Op::Atomic;
            if facts.mmio {
                route.l2 = L2Path::Uncached;
            }
            // `atom.acquire`/`.acq_rel` above .cta: ptxas emits CCTL.IVALL after it
            // (docs/fences.md), as after an acquiring load.
            route.invalidate_l1_after = !facts.cta_scoped && req.semantics == Semantics::Acquire;
        }
    }
    finish_route(&mut route, geo, req);
    Ok(route)
}

/// The spaces and kinds the caches do not serve.
fn refuse_uncached_spaces(req: &Request) -> Result<(), MemError> {
    match req.space {
        Space::Shared => Err(MemError::Unsupported {
            what: "shared memory (it lives outside the caches)",
        }),
        // PTX has no local atomics (`atom`/`red` take `.global`, `.shared` and generic
        // addresses), and a prefetch of local memory is the caller's to drop.
        Space::Local if !matches!(req.kind, AccessKind::Load | AccessKind::Store) => {
            Err(MemError::Unsupported {
                what: "a local-memory access other than a load or a store",
            })
        }
        Space::Const | Space::Param if !req.kind.is_read() => Err(MemError::Unsupported {
            what: "a write to the const or param space (stores to const memory are illegal)",
        }),
        _ => Ok(()),
    }
}

/// What a request's semantics, scope, qualifiers and policy say, read once for every stage.
struct Facts {
    /// The policy value's decoded form, when it says something (fraction or range mode,
    /// L1 no-allocate, 256 B promotion).
    policy: Option<CachePolicy>,
    /// A relaxed/acquire/release access at `.cta` scope: the SM's L1 is coherent for it.
    cta_scoped: bool,
    /// Served at the point of coherence, L2 (volatile or strong above `.cta`).
    coherent: bool,
    mmio: bool,
    qualifier_l1: Option<Hint>,
    qualifier_l2: Option<Hint>,
    /// `L1::no_allocate`, by qualifier or policy.
    l1_no_alloc: bool,
}

impl Facts {
    fn of(req: &Request) -> Facts {
        let policy = req.policy.map(CachePolicy::decode).filter(|p| {
            matches!(p.mode, PolicyMode::Fraction | PolicyMode::Range)
                || p.l1_no_allocate
                || p.l2_promote_256b
        });
        let cta_scoped = req.scope == Scope::Cta
            && matches!(
                req.semantics,
                Semantics::Relaxed | Semantics::Acquire | Semantics::Release
            );
        let coherent = !cta_scoped
            && matches!(
                req.semantics,
                Semantics::Volatile | Semantics::Relaxed | Semantics::Acquire | Semantics::Release
            );
        Facts {
            policy,
            cta_scoped,
            coherent,
            mmio: req.semantics == Semantics::Mmio,
            qualifier_l2: req.l2_priority.map(l2_hint),
            qualifier_l1: req.l1_priority.map(l1_hint),
            l1_no_alloc: req.l1_priority == Some(L1EvictionPriority::NoAllocate)
                || policy.is_some_and(|p| p.l1_no_allocate),
        }
    }
}

/// The route before the access kind decides: a read through L2 only, with the qualifiers'
/// hints, the policy's L2 choice and the fetch block.
fn base_route(cfg: &GpuConfig, req: &Request, facts: &Facts) -> Route {
    let policy = facts.policy;
    let mut prefetch = req.prefetch;
    if policy.is_some_and(|p| p.l2_promote_256b) {
        prefetch = Some(PrefetchSize::B256);
    }
    // A read miss fetches at least the aligned block of the fetch granularity (CUDA's
    // cudaLimitMaxL2FetchGranularity; measured on an H100: a one-sector miss reads 64 B).
    let prefetch_bytes = prefetch
        .map_or(0, PrefetchSize::bytes)
        .max(cfg.l2_fetch_granularity_bytes);
    Route {
        op: Op::Read,
        l1_hint: facts.qualifier_l1.unwrap_or(Hint::Unchanged),
        fraction: match policy {
            Some(p) if p.mode == PolicyMode::Fraction => Fraction {
                sixteenths: u32::from(p.fraction_code) + 1,
                primary: l2_hint(p.primary),
                secondary: l2_hint(p.secondary),
            },
            _ => NO_FRACTION,
        },
        l1: L1Path::Bypass,
        own_l1: OwnL1::Invalidate,
        l2: L2Path::Cached,
        l2_hint: facts.qualifier_l2.unwrap_or(Hint::Unchanged),
        l2_choice: match policy {
            Some(p) if p.mode == PolicyMode::Fraction => L2Choice::Fraction,
            Some(p) if p.mode == PolicyMode::Range => L2Choice::Range {
                policy: p,
                value: req.policy.unwrap_or(0),
            },
            _ => L2Choice::Qualifiers,
        },
        prefetch_bytes,
        invalidate_l1_after: false,
        touches_l1: false,
        l1_bypass_lookup: false,
        read_only_fill: false,
        local: req.space == Space::Local,
        per_lane: facts.mmio,
    }
}

/// Loads, async copies and prefetches: the read cache operators' sentences.
fn route_read(route: &mut Route, req: &Request, facts: &Facts) -> Result<(), MemError> {
    let first = Hint::Set(EvictionClass::EvictFirst);
    let op = match req.operator.unwrap_or(CacheOperator::Ca) {
        // ptxas drops `.cg` from `ld.global.cg.nc`: on sm_75, sm_80 and sm_90 it
        // is the same `LDG.E.CONSTANT` as `ld.global.nc` (docs/fences.md's probe
        // method; `ld_forms.ld_global_nc_forms`' 16 nc loads: all `.CONSTANT`, none
        // bypassing L1), and the H100 hits L1 on them (144 of 156 sectors).
        CacheOperator::Cg if req.non_coherent => CacheOperator::Ca,
        op => op,
    };
    if facts.mmio {
        route.l2 = L2Path::Uncached;
    } else if facts.coherent {
        route.invalidate_l1_after = req.semantics == Semantics::Acquire;
    } else {
        match op {
            CacheOperator::Ca => {
                route.l1 = L1Path::Cached {
                    allocate: !facts.l1_no_alloc,
                }
            }
            CacheOperator::Cg => {}
            CacheOperator::Cs | CacheOperator::Lu => {
                route.l1 = L1Path::Cached {
                    allocate: !facts.l1_no_alloc,
                };
                route.l1_hint = facts.qualifier_l1.unwrap_or(first);
                route.l2_hint = facts.qualifier_l2.unwrap_or(first);
            }
            CacheOperator::Cv => route.l2 = L2Path::Refetch,
            CacheOperator::Wb | CacheOperator::Wt => {
                return Err(MemError::Unsupported {
                    what: "a store cache operator (.wb/.wt) on a read",
                })
            }
        }
    }
    Ok(())
}

/// Stores: the write cache operators' sentences.
fn route_store(route: &mut Route, req: &Request, facts: &Facts) -> Result<(), MemError> {
    let first = Hint::Set(EvictionClass::EvictFirst);
    let op = req.operator.unwrap_or(CacheOperator::Wb);
    route.op = Op::Write { through: false };
    if facts.mmio {
        route.l2 = L2Path::Uncached;
    } else if !facts.coherent {
        match op {
            CacheOperator::Wb => route.own_l1 = OwnL1::Update,
            CacheOperator::Cg => {}
            CacheOperator::Cs => {
                route.own_l1 = OwnL1::Update;
                route.l1_hint = facts.qualifier_l1.unwrap_or(first);
                route.l2_hint = facts.qualifier_l2.unwrap_or(first);
            }
            CacheOperator::Wt => {
                route.op = Op::Write { through: true };
                route.own_l1 = OwnL1::Update;
            }
            CacheOperator::Ca | CacheOperator::Lu | CacheOperator::Cv => {
                return Err(MemError::Unsupported {
                    what: "a load cache operator (.ca/.lu/.cv) on a store",
                })
            }
        }
    }
    Ok(())
}

/// What holds whatever the access kind, and the flags the counters read.
fn finish_route(route: &mut Route, geo: Geometry, req: &Request) {
    // Local memory is per-thread memory in device memory, cached in L1 (CUDA C++ Programming
    // Guide, "Local Memory": "local memory accesses ... are cached in L1"), and its stores
    // reach L2: on an H100 `st_forms.st_shared_local_forms` (one warp) counts 56 L2 write
    // sectors, its 48 global/shared-path ones plus 2 x 4 for its two warp-wide `STL`s of one
    // word per lane, and the `-G` kernels' call-frame `STL`s are
    // all counted as L2 writes (`reduce_max_count`: 4,320) while the `LDL`s that reload them
    // before `RET` hit L1 (no L2 reads): a store installs its sectors in L1 as it writes
    // them through (crates/memsys/README.md, rule "local memory").
    if route.local && route.op != Op::Read && route.own_l1 == OwnL1::Update {
        route.own_l1 = OwnL1::Allocate;
    }
    // A prefetch to L1 does not leave the line in L1 for the loads after it: on an H100
    // (`ld_forms.prefetch_forms`, sm_75/80/90 builds, caches flushed) the `ld.global` that
    // follows `prefetch.global.L1`, `prefetch.L1` and `prefetchu.L1` (SASS `CCTL.E.PF1`) of
    // its own address hits 0 of its 13 L1 sectors, and the prefetches are no L1
    // global-load lookups (13 sectors: the load's). Every form reaches L2.
    if !geo.l1_enabled || req.kind == AccessKind::Prefetch {
        route.l1 = L1Path::Bypass;
    }
    // `.mmio` loads pass the tag stage too, a lookup per lane (`per_lane`), and miss.
    route.l1_bypass_lookup = geo.l1_enabled
        && route.op == Op::Read
        && route.l1 == L1Path::Bypass
        && matches!(req.kind, AccessKind::Load | AccessKind::AsyncCopy);
    route.read_only_fill = req.non_coherent
        && route.op == Op::Read
        && matches!(route.l1, L1Path::Cached { allocate: true });
    route.touches_l1 = matches!(route.l1, L1Path::Cached { .. })
        || route.l1_bypass_lookup
        || (geo.l1_enabled
            && matches!(route.own_l1, OwnL1::Update | OwnL1::Allocate)
            && route.op != Op::Read);
}
