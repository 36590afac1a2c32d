//! The cache operator and cache-hint rules of `ld`/`st` that need only the scan
//! (docs/ptxas-rules.md §5, §5.6, §5.9, §6): `.nc` on a store, a cache operator of the other
//! direction, and `.L2::cache_hint` with `.mmio` or outside the global space.

use super::*;

/// The cache-operator, `.nc` and cache-hint messages of one `ld`/`st` (`space` is the first
/// written state space, `sp_name` as written).
pub(super) fn cache_operators(
    m: &mut Msgs,
    insn: &Insn,
    s: &Scan,
    space_v: Option<StateSpace>,
    sp_name: &str,
) {
    let op = insn.opcode;
    let ld = is_ld(insn);
    if !ld {
        if let Some(nc) = s.nc {
            m.add(
                Key::IllegalNc,
                insn.err(
                    codes::ILLEGAL_MODIFIER,
                    nc,
                    "Illegal modifier '.nc' for instruction 'st'".into(),
                    "`.nc` is a load path; stores take none".into(),
                ),
            );
        }
    }
    if let Some((c, (ct, cspan))) = s.cop {
        let illegal = if ld {
            matches!(c, CacheOperator::Wb | CacheOperator::Wt)
        } else {
            matches!(c, CacheOperator::Ca | CacheOperator::Lu | CacheOperator::Cv)
        };
        if illegal {
            m.add(
                Key::IllegalCop,
                insn.err(
                    codes::ILLEGAL_MODIFIER,
                    cspan,
                    format!("Illegal modifier '{ct}' for instruction '{op}'"),
                    format!("`{ct}` is not a cache operator of `{op}`"),
                )
                .with_help(if ld {
                    "loads take .ca, .cg, .cs, .lu or .cv"
                } else {
                    "stores take .wb, .cg, .cs or .wt"
                }),
            );
        }
    }
    if let Some(h) = s.hint {
        if s.mmio.is_some() {
            m.add(
                Key::CombineHintMmio,
                combine(
                    insn,
                    h,
                    Flag::CacheHint.token(),
                    Flag::Mmio.token(),
                    "mmio accesses are never cached",
                ),
            );
        }
        if !matches!(space_v, None | Some(StateSpace::Global)) {
            m.add(
                Key::HintSpace,
                insn.err(
                    codes::BAD_SPACE,
                    h,
                    format!("Modifier '.L2::cache_hint' cannot be applied to '{sp_name}' space for instruction '{op}'"),
                    format!("cache hints apply to .global or generic addresses, not `{sp_name}`"),
                ),
            );
        }
    }
}
