//! The state space (§4.1 step 7, §5, §6): against the instruction, the vector width, the
//! kernel/function parameters and the prefetch size. [`Spaces`] carries what the earlier
//! stages found; its methods run in the order ptxas reports.

use super::*;
use crate::rules::operands::Addr;

/// What the state-space stages of one `ld`/`st` need from the earlier stages.
pub(super) struct Spaces<'a, 's> {
    pub cx: &'s Cx<'s>,
    pub insn: &'s Insn<'a>,
    pub s: &'s Scan<'a>,
    pub m: &'s mut Msgs,
    pub op: &'a str,
    pub ld: bool,
    pub head: Span,
    pub space_v: Option<StateSpace>,
    pub sp_name: &'s str,
    pub sp_span: Span,
    pub addr: Addr<'a>,
    pub sym: Option<(&'a str, Span)>,
    pub sym_info: Option<Sym>,
    pub v256: bool,
}

// Each stage runs once per instruction, from `check` only: `#[inline(always)]` keeps the
// compiled check as it was before the split (see `address.rs`).
impl Spaces<'_, '_> {
    /// The state space against the instruction and the vector width (§5.11, §6).
    #[inline(always)]
    pub(super) fn space(&mut self) {
        let Spaces {
            cx,
            insn,
            s,
            op,
            ld,
            space_v,
            sp_name,
            sp_span,
            v256,
            ref mut m,
            ..
        } = *self;
        let bad_space = |key: Key, ptxas: String, message: String, help: &str| {
            (
                key,
                insn.err(codes::BAD_SPACE, sp_span, ptxas, message)
                    .with_help(help.to_string()),
            )
        };
        let add = |m: &mut Msgs, (k, d): (Key, Diagnostic)| m.add(k, d);
        if space_v == Some(StateSpace::Tex) || (!ld && space_v == Some(StateSpace::Const)) {
            add(
                m,
                bad_space(
                    Key::SsiInstruction,
                    format!("State space incorrect for instruction '{op}'"),
                    format!("`{op}` cannot access `{sp_name}`"),
                    if ld {
                        "ld reads .global .shared .local .const .param or generic addresses"
                    } else {
                        "st writes .global .shared .local .param or generic addresses (.const is read-only)"
                    },
                ),
            );
        }
        if s.spaces.len() > 1 {
            let sp2 = s.spaces[1].1 .1;
            m.add(
                Key::SpaceCount,
                insn.err(
                    codes::BAD_SPACE,
                    sp2,
                    format!("Unexpected number of state spaces specified in instruction '{op}'"),
                    format!("{} state spaces written; write at most one", s.spaces.len()),
                ),
            );
        }
        if v256 && !matches!(space_v, None | Some(StateSpace::Global)) {
            add(
                m,
                bad_space(
                    Key::GlobalExpected256,
                    "global state space expected for feature '256 bit wide load/store'".into(),
                    format!(
                        "256-bit {op} works only on .global or generic addresses, not `{sp_name}`"
                    ),
                    "use .global (or no space) with .v8 32-bit / .v4 64-bit vectors",
                ),
            );
        }
        match space_v {
            Some(StateSpace::SharedCluster) => gate(
                m,
                cx,
                insn,
                Feature::SharedCluster,
                Key::ClusterTgt,
                Key::ClusterVer,
                "",
                op,
                sp_span,
            ),
            Some(StateSpace::SharedCta) => gate(
                m,
                cx,
                insn,
                Feature::SharedCta,
                Key::CtaVer,
                Key::CtaVer,
                "",
                op,
                sp_span,
            ),
            Some(StateSpace::ParamEntry) => {
                gate(
                    m,
                    cx,
                    insn,
                    Feature::ParamEntry,
                    Key::EntryVer,
                    Key::EntryVer,
                    "",
                    op,
                    sp_span,
                );
                if !ld {
                    m.add(
                        Key::IllegalSubspace,
                        insn.err(
                            codes::ILLEGAL_MODIFIER,
                            sp_span,
                            "Illegal modifier '::entry' for instruction 'st'".into(),
                            "kernel parameters (`.param::entry`) are read-only".into(),
                        )
                        .with_help("st writes .param or .param::func"),
                    );
                }
            }
            Some(StateSpace::ParamFunc) => gate(
                m,
                cx,
                insn,
                Feature::ParamFunc,
                Key::FuncVer,
                Key::FuncVer,
                "",
                op,
                sp_span,
            ),
            _ => {}
        }
    }

    /// The prefetch-size gate, `.param::func`/`.param::entry` against the kernel and the address, and the prefetch size against `.mmio` and the space (§5.5, §5.11).
    #[inline(always)]
    pub(super) fn params_and_prefetch(&mut self) {
        let Spaces {
            cx,
            insn,
            s,
            op,
            head,
            space_v,
            sp_name,
            sp_span,
            addr,
            sym,
            sym_info,
            ref mut m,
            ..
        } = *self;
        let pf_span = s.pf.map_or(head, |p| p.1);
        if s.pf.is_some() {
            gate(
                m,
                cx,
                insn,
                Feature::CachePrefetching,
                Key::PfTgt,
                Key::PfVer,
                "",
                op,
                pf_span,
            );
        }
        let local_param = |x: Option<Sym>| matches!(x, Some(Sym::Var(v)) if matches!(v.kind, VarKind::LocalParam(_)));
        if space_v == Some(StateSpace::ParamFunc)
            && cx.in_kernel
            && !matches!(addr.base, Base::Imm)
            && !addr.array
            && (sym.is_none() || (sym_info.is_some() && !local_param(sym_info)))
        {
            m.add(
                Key::IllegalSpaceForAddr,
                insn.err(
                    codes::BAD_SPACE,
                    sp_span,
                    format!(
                        "Illegal state space for address operand '::func' with instruction '{op}'"
                    ),
                    "`.param::func` addresses a device function's parameters, but this is a kernel"
                        .into(),
                )
                .with_help(
                    "in a kernel use .param (call arguments) or .param::entry (kernel parameters)",
                ),
            );
        }
        if space_v == Some(StateSpace::ParamEntry) && local_param(sym_info) {
            m.add(
                Key::IllegalSpaceForAddr,
                insn.err(
                    codes::BAD_SPACE,
                    sp_span,
                    format!(
                        "Illegal state space for address operand '::entry' with instruction '{op}'"
                    ),
                    "`.param::entry` addresses kernel parameters, not call arguments".into(),
                )
                .with_help("use .param (or .param::func) for call arguments"),
            );
        }
        if let Some((t, _)) = s.pf {
            if is(t, PrefetchSize::B256) {
                gate(
                    m,
                    cx,
                    insn,
                    Feature::Prefetch256B,
                    Key::Pf256Tgt,
                    Key::Pf256Ver,
                    "",
                    op,
                    pf_span,
                );
            }
            if s.mmio.is_some() {
                m.add(
                    Key::CombinePfMmio,
                    combine(
                        insn,
                        pf_span,
                        t,
                        Flag::Mmio.token(),
                        "mmio accesses are never cached; drop the prefetch size",
                    ),
                );
            }
            if !matches!(space_v, None | Some(StateSpace::Global)) {
                m.add(
                    Key::SsiFeature,
                    insn.err(
                        codes::BAD_SPACE,
                        pf_span,
                        "State space incorrect for feature 'cache prefetching'".into(),
                        format!(
                            "a prefetch size needs .global or generic addressing, not `{sp_name}`"
                        ),
                    ),
                );
            }
        }
    }
}
