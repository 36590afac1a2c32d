//! Parsing the rewrite grammar (the crate's `rewrite` docs): steps, hint sets, priorities and
//! fraction policies, with errors that quote the spec.

use super::*;

pub(super) fn spec_err<T>(spec: &str, message: impl Into<String>) -> Result<T, RewriteError> {
    Err(RewriteError::Spec {
        spec: spec.to_string(),
        message: message.into(),
    })
}

impl FromStr for Rewrite {
    type Err = RewriteError;

    fn from_str(spec: &str) -> Result<Self, RewriteError> {
        let spec = spec.trim();
        if spec.is_empty() {
            return spec_err(spec, "empty rewrite");
        }
        let mut steps = Vec::new();
        for part in spec.split('+') {
            steps.push(parse_step(spec, part.trim())?);
        }
        Ok(Rewrite {
            spec: spec.to_string(),
            steps,
        })
    }
}

pub(super) fn parse_step(spec: &str, part: &str) -> Result<Step, RewriteError> {
    if part == "strip-hints" {
        return Ok(Step::StripHints);
    }
    let Some((target, value)) = part.split_once('=') else {
        return spec_err(
            spec,
            format!(
                "`{part}`: expected strip-hints, loads=, stores=, cp.async=, line:N= or policy="
            ),
        );
    };
    let value = value.trim();
    let selector = match target.trim() {
        "loads" => Selector::Loads,
        "stores" => Selector::Stores,
        "cp.async" => Selector::CpAsync,
        "policy" => {
            return Ok(Step::Set {
                selector: Selector::All,
                hints: HintSet {
                    policy: Some(parse_policy(spec, value)?),
                    ..HintSet::default()
                },
            })
        }
        t => match t.strip_prefix("line:").map(str::parse::<u32>) {
            Some(Ok(n)) if n > 0 => Selector::Line(n),
            Some(_) => return spec_err(spec, format!("`{t}`: write line:N with N >= 1")),
            None => {
                return spec_err(
                    spec,
                    format!("unknown target `{t}`: use loads, stores, cp.async, line:N or policy"),
                )
            }
        },
    };
    let hints = parse_hints(spec, value)?;
    // Hints the selected instructions can never take.
    match selector {
        Selector::Loads => {
            if let Some(op) = hints.cache_op.filter(|c| !c.is_load_operator()) {
                return spec_err(
                    spec,
                    format!("`{op}` is a store operator; loads take .ca .cg .cs .lu .cv"),
                );
            }
        }
        Selector::Stores => {
            if let Some(op) = hints.cache_op.filter(|c| !c.is_store_operator()) {
                return spec_err(
                    spec,
                    format!("`{op}` is a load operator; stores take .wb .cg .cs .wt"),
                );
            }
            if hints.prefetch.is_some() {
                return spec_err(spec, "st has no prefetch-size qualifier");
            }
            if hints.nc {
                return spec_err(spec, ".nc is a load qualifier (ld.global.nc)");
            }
        }
        Selector::CpAsync => {
            if hints.nc {
                return spec_err(spec, ".nc is a load qualifier (ld.global.nc)");
            }
            if hints.l1.is_some() || hints.l2.is_some() {
                return spec_err(
                    spec,
                    "cp.async has no eviction-priority qualifiers (use policy= for an L2 policy)",
                );
            }
            if let Some(op) = hints
                .cache_op
                .filter(|c| !matches!(c, CacheOperator::Ca | CacheOperator::Cg))
            {
                return spec_err(spec, format!("cp.async takes .ca or .cg, not `{op}`"));
            }
        }
        Selector::Line(_) | Selector::All => {}
    }
    Ok(Step::Set { selector, hints })
}

pub(super) fn parse_hints(spec: &str, value: &str) -> Result<HintSet, RewriteError> {
    let mut h = HintSet::default();
    // What Triton emits for `eviction_policy=`: the L1 priority, and the L2 priority through a
    // cache policy (`.L2::evict_*` qualifiers exist only for 256-bit ld/st).
    let both = |p: L1EvictionPriority, q: L2EvictionPriority| HintSet {
        l1: Some(p),
        policy: Some(PolicyEdit::Use(FractionPolicy {
            fraction: 1.0,
            primary: q,
            secondary: None,
        })),
        ..HintSet::default()
    };
    match value {
        "none" => {
            h.none = true;
            return Ok(h);
        }
        "evict_first" => {
            return Ok(both(
                L1EvictionPriority::EvictFirst,
                L2EvictionPriority::EvictFirst,
            ))
        }
        "evict_last" => {
            return Ok(both(
                L1EvictionPriority::EvictLast,
                L2EvictionPriority::EvictLast,
            ))
        }
        "evict_normal" => {
            return Ok(both(
                L1EvictionPriority::EvictNormal,
                L2EvictionPriority::EvictNormal,
            ))
        }
        "evict_unchanged" => {
            h.l1 = Some(L1EvictionPriority::EvictUnchanged);
            return Ok(h);
        }
        "no_allocate" => {
            h.l1 = Some(L1EvictionPriority::NoAllocate);
            return Ok(h);
        }
        "nc" => {
            h.nc = true;
            return Ok(h);
        }
        _ => {}
    }
    if let Some(p) = value.strip_prefix("policy:") {
        h.policy = Some(parse_policy(spec, p)?);
        return Ok(h);
    }
    if !value.starts_with('.') {
        if let Some(op) = CacheOperator::from_token(&format!(".{value}")) {
            h.cache_op = Some(op);
            return Ok(h);
        }
        return spec_err(
            spec,
            format!(
                "`{value}`: use none, evict_first, evict_last, evict_normal, evict_unchanged, \
                 no_allocate, a cache operator (ca cg cs lu cv wb wt) or qualifiers such as \
                 .L2::evict_last"
            ),
        );
    }
    for token in value.split('.').skip(1) {
        let token = format!(".{token}");
        match Qualifier::from_token(&token) {
            Some(Qualifier::CacheOp(op)) => set_once(spec, &mut h.cache_op, op, &token)?,
            Some(Qualifier::L1(p)) => set_once(spec, &mut h.l1, p, &token)?,
            Some(Qualifier::L2(L2EvictionPriority::EvictUnchanged)) => {
                return spec_err(
                    spec,
                    ".L2::evict_unchanged exists only for createpolicy; ld/st take \
                     .L2::evict_first, .L2::evict_last or .L2::evict_normal",
                )
            }
            Some(Qualifier::L2(p)) => set_once(spec, &mut h.l2, p, &token)?,
            Some(Qualifier::Prefetch(p)) => set_once(spec, &mut h.prefetch, p, &token)?,
            Some(Qualifier::Flag(Flag::Nc)) => h.nc = true,
            _ => {
                return spec_err(
                    spec,
                    format!(
                        "`{token}` is not a cache hint (cache operators, .L1::/.L2:: eviction \
                         priorities and .L2::64B/128B/256B are)"
                    ),
                )
            }
        }
    }
    if h.cache_op.is_some() && (h.l1.is_some() || h.l2.is_some()) {
        return spec_err(
            spec,
            "a cache operator and eviction priorities cannot be combined (the PTX ISA gives ld \
             and st one form with .cop and another with eviction priorities)",
        );
    }
    Ok(h)
}

pub(super) fn set_once<T>(
    spec: &str,
    slot: &mut Option<T>,
    v: T,
    token: &str,
) -> Result<(), RewriteError> {
    if slot.is_some() {
        return spec_err(spec, format!("`{token}`: two qualifiers of the same kind"));
    }
    *slot = Some(v);
    Ok(())
}

pub(super) fn parse_priority(spec: &str, word: &str) -> Result<L2EvictionPriority, RewriteError> {
    let word = word.strip_prefix(".L2::").unwrap_or(word);
    match L2EvictionPriority::from_token(&format!(".L2::{word}")) {
        Some(p) => Ok(p),
        None => spec_err(
            spec,
            format!("`{word}`: use evict_first, evict_last, evict_normal or evict_unchanged"),
        ),
    }
}

pub(super) fn parse_policy(spec: &str, value: &str) -> Result<PolicyEdit, RewriteError> {
    if value == "none" {
        return Ok(PolicyEdit::Remove);
    }
    let parts: Vec<&str> = value.split(':').collect();
    let ("fraction", 3 | 4) = (parts[0], parts.len()) else {
        return spec_err(
            spec,
            "write policy=fraction:F:PRIMARY[:SECONDARY] (e.g. fraction:0.5:evict_last) or policy=none",
        );
    };
    let fraction: f32 = match parts[1].parse() {
        Ok(f) if f > 0.0 && f <= 1.0 => f,
        _ => {
            return spec_err(
                spec,
                format!("fraction `{}` must be a number in (0, 1]", parts[1]),
            )
        }
    };
    let primary = parse_priority(spec, parts[2])?;
    let secondary = match parts.get(3) {
        Some(w) => {
            let p = parse_priority(spec, w)?;
            if !matches!(
                p,
                L2EvictionPriority::EvictFirst | L2EvictionPriority::EvictUnchanged
            ) {
                return spec_err(
                    spec,
                    "createpolicy's secondary priority is evict_first or evict_unchanged",
                );
            }
            Some(p)
        }
        None => None,
    };
    Ok(PolicyEdit::Use(FractionPolicy {
        fraction,
        primary,
        secondary,
    }))
}
