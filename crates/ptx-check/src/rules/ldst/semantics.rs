//! Memory semantics (§5.2–§5.4, §6): the last stage of the ld/st check, after the address
//! operand. [`Semantics`] carries what the earlier stages found; its methods run in the
//! order ptxas reports, so the diagnostics come out in the same order as before the split.

use super::*;

/// What the memory-semantics stages of one `ld`/`st` need from the earlier stages.
pub(super) struct Semantics<'a, 's> {
    pub cx: &'s Cx<'s>,
    pub insn: &'s Insn<'a>,
    pub s: &'s Scan<'a>,
    pub m: &'s mut Msgs,
    pub op: &'a str,
    pub ld: bool,
    pub head: Span,
    pub space_v: Option<StateSpace>,
    pub sp_span: Span,
    pub sp_name: &'s str,
    pub n: usize,
    pub ty: ScalarType,
    pub vec_span: Span,
    pub v256: bool,
    pub elems: Option<&'s [Operand]>,
    pub policy: Option<&'s Operand>,
    pub data: &'s Operand,
}

// Each stage runs once per instruction, from `check` only: `#[inline(always)]` keeps the
// compiled check as it was before the split (callgrind on `ptxsim check` of a 0.8 MB module:
// out-of-line stages cost about 1.3 % more instructions).
impl Semantics<'_, '_> {
    /// `.weak`/`.volatile` combinations and vector sizes (§5.2, §5.3).
    #[inline(always)]
    pub(super) fn volatile_and_vectors(&mut self) {
        let Semantics {
            cx,
            insn,
            s,
            op,
            ld,
            head,
            space_v,
            sp_span,
            sp_name,
            n,
            ty,
            vec_span,
            v256,
            elems,
            data,
            ref mut m,
            ..
        } = *self;
        let sem = s.sem.map(|x| x.0);
        let sem_span = s.sem.map_or(head, |x| x.1 .1);
        let cop_t = s.cop.map(|c| c.1 .0);
        let nc_span = s.nc.unwrap_or(head);
        if s.nc.is_some() && sem == Some(MemorySemantics::Weak) {
            m.add(
                Key::CombineWeakNc,
                combine(
                    insn,
                    sem_span,
                    MemorySemantics::Weak.token(),
                    Flag::Nc.token(),
                    ".nc loads take no memory-semantics modifier",
                ),
            );
        }
        if sem == Some(MemorySemantics::Volatile) {
            if let Some(ct) = cop_t {
                m.add(
                    Key::CombineVolatileCop,
                    combine(
                        insn,
                        sem_span,
                        MemorySemantics::Volatile.token(),
                        ct,
                        "volatile accesses take no cache operator",
                    ),
                );
            }
            if s.nc.is_some() {
                m.add(
                    Key::CombineVolatileNc,
                    combine(
                        insn,
                        nc_span,
                        MemorySemantics::Volatile.token(),
                        Flag::Nc.token(),
                        "volatile loads cannot use the non-coherent path",
                    ),
                );
            }
            if space_v == Some(StateSpace::Local) {
                if let Some(d) =
                    gate_version(cx, insn.start, Feature::LocalVolatile, "", op, sp_span)
                {
                    m.add(Key::LocalVolatileVer, d);
                }
            }
            if matches!(
                space_v,
                Some(
                    StateSpace::Const
                        | StateSpace::Param
                        | StateSpace::ParamEntry
                        | StateSpace::ParamFunc
                        | StateSpace::Tex
                )
            ) {
                m.add(
                    Key::VolatileSpace,
                    insn.err(
                        codes::BAD_SPACE,
                        sem_span,
                        format!("Modifier '.volatile' cannot be applied to '{sp_name}' space"),
                        format!("`.volatile` does not apply to `{sp_name}`"),
                    )
                    .with_help(".volatile works on generic, .global, .shared and .local"),
                );
            }
        }
        if n as u32 * bits(ty) > 128 && !v256 {
            m.add(
                Key::VectorTooLarge,
                insn.err(
                    codes::BAD_TYPE,
                    vec_span,
                    "Vector type too large, exceeds 128 bit limit".into(),
                    format!(
                        "{n} × {} is {} bits; vectors hold at most 128",
                        ty.token(),
                        n as u32 * bits(ty)
                    ),
                )
                .with_help(
                    "256-bit vectors exist only as .v8 of 32-bit and .v4 of 64-bit types (sm_100)",
                ),
            );
        }
        if !ld {
            if let Some(e) = elems {
                if e.iter().any(|x| matches!(x, Operand::Sink(_))) && !v256 {
                    m.add(
                        Key::SinkSource,
                        insn.err(
                            codes::VECTOR_EXPRESSION,
                            data.span(),
                            "Sink '_' not allowed as a source operand".into(),
                            "`_` in a stored vector".into(),
                        )
                        .with_help("stores may skip elements only in the 256-bit forms (.v8 32-bit, .v4 64-bit)"),
                    );
                }
            }
        }
    }

    /// `.relaxed`/`.acquire`/`.release`, `.mmio` and `.b128` against the space and target (§5.2–§5.4).
    #[inline(always)]
    pub(super) fn ordering(&mut self) {
        let Semantics {
            cx,
            insn,
            s,
            op,
            head,
            space_v,
            sp_name,
            ty,
            ref mut m,
            ..
        } = *self;
        let sem = s.sem.map(|x| x.0);
        let sem_span = s.sem.map_or(head, |x| x.1 .1);
        let sem_t = s.sem.map_or("", |x| x.1 .0);
        let cop_t = s.cop.map(|c| c.1 .0);
        let nc_span = s.nc.unwrap_or(head);
        let order_sem = sem.filter(|s| {
            matches!(
                s,
                MemorySemantics::Relaxed | MemorySemantics::Acquire | MemorySemantics::Release
            )
        });
        if let Some(os) = order_sem {
            if let Some(ct) = cop_t {
                m.add(
                    Key::CombineOrderCop,
                    combine(
                        insn,
                        sem_span,
                        sem_t,
                        ct,
                        "memory-ordered accesses take no cache operator",
                    ),
                );
            }
            if s.nc.is_some() {
                m.add(
                    Key::CombineOrderNc,
                    combine(
                        insn,
                        nc_span,
                        sem_t,
                        Flag::Nc.token(),
                        ".nc loads are weak; drop the memory order or .nc",
                    ),
                );
            }
            let (f, k) = match os {
                MemorySemantics::Relaxed => (Feature::Relaxed, Key::RelaxedTgt),
                MemorySemantics::Acquire => (Feature::Acquire, Key::AcquireTgt),
                _ => (Feature::Release, Key::ReleaseTgt),
            };
            if let Some(d) = gate_version(cx, insn.start, f, "", op, sem_span) {
                m.add(k, d);
            }
            if let Some(d) = gate_target(cx, insn.start, f, "", op, sem_span) {
                m.add(k, d);
            }
        }
        if sem == Some(MemorySemantics::Weak) {
            if let Some(d) = gate_version(cx, insn.start, Feature::Weak, "", op, sem_span) {
                m.add(Key::WeakTgtAgain, d);
            }
            if let Some(d) = gate_target(cx, insn.start, Feature::Weak, "", op, sem_span) {
                m.add(Key::WeakTgtAgain, d);
            }
        }
        if let (Some(mm), Some((_, (vt, _)))) = (s.mmio, s.vec) {
            m.add(
                Key::CombineMmioVec,
                combine(
                    insn,
                    mm,
                    Flag::Mmio.token(),
                    vt,
                    ".mmio accesses are scalar",
                ),
            );
        }
        let ty_span = s.types.first().map_or(head, |t| t.1 .1);
        if ty == ScalarType::B128 {
            if let Some(d) = gate_version(cx, insn.start, Feature::B128, "", op, ty_span) {
                m.add(Key::B128Ver, d);
            }
        }
        let bad_space_sem = matches!(
            space_v,
            Some(
                StateSpace::Local
                    | StateSpace::Const
                    | StateSpace::Param
                    | StateSpace::ParamEntry
                    | StateSpace::ParamFunc
                    | StateSpace::Tex
            )
        );
        if order_sem.is_some() && bad_space_sem {
            m.add(
                Key::OrderSpace,
                insn.err(
                    codes::BAD_SPACE,
                    sem_span,
                    format!("Modifier '{sem_t}' cannot be applied to '{sp_name}' space"),
                    format!("`{sem_t}` does not apply to `{sp_name}`"),
                )
                .with_help("memory orders work on generic, .global and .shared addresses"),
            );
        }
    }

    /// Semantics the direction refuses (`ld.release`, `st.acquire`), the `.b128` gates, the
    /// scope ordering semantics need, and `.mmio` against the space (§5.2–§5.4).
    #[inline(always)]
    pub(super) fn direction_and_mmio(&mut self) {
        let Semantics {
            cx,
            insn,
            s,
            op,
            ld,
            head,
            space_v,
            sp_name,
            ty,
            ref mut m,
            ..
        } = *self;
        let sem = s.sem.map(|x| x.0);
        let sem_span = s.sem.map_or(head, |x| x.1 .1);
        let sem_t = s.sem.map_or("", |x| x.1 .0);
        let order_sem = sem.filter(|s| {
            matches!(
                s,
                MemorySemantics::Relaxed | MemorySemantics::Acquire | MemorySemantics::Release
            )
        });
        let ty_span = s.types.first().map_or(head, |t| t.1 .1);
        let illegal_sem = (ld && sem == Some(MemorySemantics::Release))
            || (!ld && sem == Some(MemorySemantics::Acquire));
        if illegal_sem {
            m.add(
                Key::IllegalOrder,
                insn.err(
                    codes::ILLEGAL_MODIFIER,
                    sem_span,
                    format!("Illegal modifier '{sem_t}' for instruction '{op}'"),
                    format!("`{op}` cannot be `{sem_t}`"),
                )
                .with_help(if ld {
                    "loads are .relaxed or .acquire"
                } else {
                    "stores are .relaxed or .release"
                }),
            );
        }
        if ty == ScalarType::B128 {
            if let Some(d) = gate_target(cx, insn.start, Feature::B128, "", op, ty_span) {
                m.add(Key::B128Tgt, d);
            }
            if matches!(s.scope, Some((Scope::Sys, _))) {
                if let Some(d) = gate_version(cx, insn.start, Feature::B128Sys, "", op, ty_span) {
                    m.add(Key::B128SysVer, d);
                }
            }
        }
        if let Some(os) = order_sem {
            if s.scope.is_none() && s.mmio.is_none() {
                let k = match os {
                    MemorySemantics::Relaxed => Key::NeedScopeRelaxed,
                    MemorySemantics::Acquire => Key::NeedScopeAcquire,
                    _ => Key::NeedScopeRelease,
                };
                m.add(
                    k,
                    insn.err(
                        codes::MISSING_MODIFIER,
                        sem_span,
                        format!("Modifier '{sem_t}' requires scope with '{op}' instruction"),
                        format!("`{sem_t}` needs a scope"),
                    )
                    .with_help("add .cta, .cluster, .gpu or .sys"),
                );
            }
        }
        if let Some(mm) = s.mmio {
            if !matches!(space_v, None | Some(StateSpace::Global)) {
                m.add(
                    Key::MmioSpace,
                    insn.err(
                        codes::BAD_SPACE,
                        mm,
                        format!("Modifier '.mmio' cannot be applied to '{sp_name}' space"),
                        format!("`.mmio` applies to .global or generic addresses, not `{sp_name}`"),
                    ),
                );
            }
            if let Some(os @ (MemorySemantics::Acquire | MemorySemantics::Release)) = order_sem {
                if !illegal_sem {
                    let f = if os == MemorySemantics::Acquire {
                        (Feature::MmioAcquire, Key::AcquireVer)
                    } else {
                        (Feature::MmioRelease, Key::ReleaseVer)
                    };
                    if let Some(d) = gate_version(cx, insn.start, f.0, "", op, sem_span) {
                        m.add(f.1, d);
                    }
                }
            }
        }
    }

    /// The `.scope` qualifier: required with ordering semantics, `.cluster` gated (§5.4).
    #[inline(always)]
    pub(super) fn scope(&mut self) {
        let Semantics {
            cx,
            insn,
            s,
            op,
            ld,
            head,
            ref mut m,
            ..
        } = *self;
        let sem = s.sem.map(|x| x.0);
        let scope_span = s.scope.map_or(head, |x| x.1 .1);
        if matches!(s.scope, Some((Scope::Cluster, _))) {
            gate(
                m,
                cx,
                insn,
                Feature::ClusterScope,
                Key::ClusterScopeTgt,
                Key::ClusterScopeVer,
                "",
                op,
                scope_span,
            );
        }
        let good = if ld {
            (MemorySemantics::Acquire, MemorySemantics::Acquire.token())
        } else {
            (MemorySemantics::Release, MemorySemantics::Release.token())
        };
        if let Some(mm) = s.mmio {
            if !matches!(sem, Some(MemorySemantics::Relaxed)) && sem != Some(good.0) {
                m.add(
                    Key::MmioNeedsOrder,
                    insn.err(
                        codes::MISSING_MODIFIER,
                        mm,
                        format!("Modifier '.mmio' requires modifier '.relaxed or {}' for instruction '{op}'", good.1),
                        format!("`.mmio` needs `.relaxed` or `{}`", good.1),
                    )
                    .with_help(format!("write `{op}.mmio.relaxed.sys` (or `.mmio{}.sys`, PTX 9.3)", good.1)),
                );
            }
        }
        if let Some((sc, (st, _))) = s.scope {
            if s.mmio.is_some() && sc != Scope::Sys {
                m.add(
                    Key::CombineMmioScope,
                    combine(
                        insn,
                        scope_span,
                        Flag::Mmio.token(),
                        st,
                        ".mmio accesses have scope .sys",
                    ),
                );
            }
            match sem {
                Some(MemorySemantics::Volatile) => m.add(
                    Key::CombineVolatileScope,
                    combine(
                        insn,
                        scope_span,
                        MemorySemantics::Volatile.token(),
                        st,
                        "volatile accesses have no scope; use .relaxed with a scope",
                    ),
                ),
                Some(MemorySemantics::Weak) => m.add(
                    Key::CombineWeakScope,
                    combine(
                        insn,
                        scope_span,
                        MemorySemantics::Weak.token(),
                        st,
                        "weak accesses have no scope",
                    ),
                ),
                None if s.mmio.is_none() => m.add(
                    Key::NeedOrder,
                    insn.err(
                        codes::MISSING_MODIFIER,
                        scope_span,
                        format!("Modifier '{st}' requires memory order with '{op}' instruction"),
                        format!("a scope `{st}` without a memory order"),
                    )
                    .with_help(if ld {
                        "add .relaxed or .acquire"
                    } else {
                        "add .relaxed or .release"
                    }),
                ),
                _ => {}
            }
        }
        if let (Some(mm), None) = (s.mmio, s.scope) {
            m.add(
                Key::NeedScopeMmio,
                insn.err(
                    codes::MISSING_MODIFIER,
                    mm,
                    format!("Modifier '.mmio' requires scope with '{op}' instruction"),
                    "`.mmio` needs scope `.sys`".into(),
                )
                .with_help("add .sys"),
            );
        }
    }

    /// Load-only forms (`.nc`, prefetch sizes) and the cache-policy operand (§5.5, §6).
    #[inline(always)]
    pub(super) fn loads_and_hints(&mut self) {
        let Semantics {
            cx,
            insn,
            s,
            op,
            ld,
            space_v,
            policy,
            ref mut m,
            ..
        } = *self;
        let sem = s.sem.map(|x| x.0);
        if ld {
            if let Some(nc) = s.nc {
                if space_v != Some(StateSpace::Global) {
                    m.add(
                        Key::NcNeedsGlobal,
                        insn.err(
                            codes::BAD_SPACE,
                            nc,
                            "Modifier '.nc' requires .global space".into(),
                            "`.nc` loads go through the read-only cache of global memory".into(),
                        )
                        .with_help("write ld.global.nc"),
                    );
                }
                if let Some((
                    CacheOperator::Lu | CacheOperator::Cv | CacheOperator::Wb | CacheOperator::Wt,
                    (_, cspan),
                )) = s.cop
                {
                    m.add(
                        Key::IllegalCacheOpNc,
                        insn.err(
                            codes::ILLEGAL_MODIFIER,
                            cspan,
                            "Illegal cache operation for instruction 'ld.nc'".into(),
                            "ld.global.nc takes the cache operators .ca, .cg and .cs only".into(),
                        ),
                    );
                }
            }
        }
        if let Some(h) = s.hint {
            gate(
                m,
                cx,
                insn,
                Feature::CacheHint,
                Key::HintTgt,
                Key::HintVer,
                "",
                op,
                h,
            );
            if sem == Some(MemorySemantics::Volatile) {
                m.add(
                    Key::CombineHintVolatile,
                    combine(
                        insn,
                        h,
                        Flag::CacheHint.token(),
                        MemorySemantics::Volatile.token(),
                        "volatile accesses take no cache hints",
                    ),
                );
            }
        }
        if let (Some(p), None) = (policy, s.hint) {
            m.add(
                Key::HintRequired,
                insn.err(
                    codes::MISSING_MODIFIER,
                    p.span(),
                    format!(
                        ".L2::cache_hint modifier required for instruction '{op}' with 3 arguments"
                    ),
                    "a cache-policy operand needs `.L2::cache_hint`".into(),
                )
                .with_help(format!(
                    "write `{op}.…L2::cache_hint…`, or drop the policy operand"
                )),
            );
            m.add(
                Key::ArgsMismatch,
                args_mismatch(insn, p.span(), "a third operand without `.L2::cache_hint`"),
            );
        }
    }
}
