//! The operand signature (§4.1 step 6, §7): the data operand (a vector or a scalar) against
//! the instruction's type. [`Signature`] gathers why the operands do not fit; `check` then
//! reports the first reason, as ptxas does.

use super::*;

/// The operand signature of one `ld`/`st`: its inputs, and what the checks found.
pub(super) struct Signature<'a, 's> {
    pub cx: &'s Cx<'s>,
    pub scopes: &'s Scopes<'s>,
    pub ld: bool,
    pub ty: ScalarType,
    pub data: &'a Operand,
    /// The first reason the operands do not fit (ptxas's "Arguments mismatch").
    pub mismatch: Option<String>,
    pub result_reg: bool,
    pub must_be_reg: bool,
    pub discard: bool,
    pub diff_types: bool,
}

/// The immediates among a vector's elements.
fn imm_elems(elems: &[Operand]) -> Vec<Imm> {
    elems.iter().filter_map(imm_kind).collect::<Vec<_>>()
}

// Each stage runs once per instruction, from `check` only: `#[inline(always)]` keeps the
// compiled check as it was before the split (see `address.rs`).
impl Signature<'_, '_> {
    /// A vector data operand: its length and its elements against the type.
    #[inline(always)]
    pub(super) fn vector(&mut self, elems: &[Operand]) {
        let Signature {
            scopes,
            ld,
            ty,
            ref mut mismatch,
            ref mut result_reg,
            ref mut diff_types,
            ..
        } = *self;
        // A predicate register among `.b32` registers of a vector counts as one more `.b32`
        // register (measured: `{%p1, %r7}` loads as `.s32`).
        let pred_as_b32 = {
            let regs: Vec<ScalarType> = elems
                .iter()
                .filter_map(|e| match elem(scopes, e) {
                    Elem::Reg(t) => Some(t),
                    _ => None,
                })
                .collect();
            regs.contains(&ScalarType::Pred)
                && regs.contains(&ScalarType::B32)
                && regs
                    .iter()
                    .all(|&t| matches!(t, ScalarType::Pred | ScalarType::B32))
        };
        let elem_ok = |e: &Operand| match elem(scopes, e) {
            Elem::Sink => true,
            Elem::Reg(ScalarType::Pred) if pred_as_b32 => reg_ok_for_type(ty, ScalarType::B32),
            Elem::Reg(rt) => {
                // §7.3: a float vector element may also be an integer register of its width.
                (ty.kind() == TypeKind::Float && rt != ScalarType::Pred && width(rt) == bits(ty))
                    || reg_ok_for_type(ty, rt)
            }
            Elem::Imm(k) => ld || imm_ok_for_type(ty, k),
            Elem::Other(_) => true,
        };
        if !matches!(elems.len(), 1 | 2 | 4 | 8) {
            if elems.len() == 3 {
                let mut rts: Vec<ScalarType> = elems
                    .iter()
                    .filter_map(|e| match elem(scopes, e) {
                        Elem::Reg(t) => Some(t),
                        _ => None,
                    })
                    .collect();
                if rts.is_empty() && imm_elems(elems).is_empty() {
                    rts.push(ScalarType::B8);
                }
                let bad = if ty.kind() == TypeKind::Float {
                    !rts.iter().all(|&r| {
                        reg_ok_for_type(ty, r)
                            || (matches!(r.kind(), TypeKind::Unsigned | TypeKind::Signed)
                                && width(r) == bits(ty))
                    })
                } else {
                    !rts.is_empty()
                        && 3 * rts.iter().map(|&r| width(r)).min().unwrap_or(0) < bits(ty)
                };
                if bad && mismatch.is_none() {
                    *mismatch = Some(format!("the vector's elements do not fit `{}`", ty.token()));
                }
            }
            let imms = imm_elems(elems);
            if mismatch.is_none() && ld && !imms.is_empty() {
                if imms.iter().all(|&k| imm_ok_for_type(ty, k)) {
                    *result_reg = true;
                } else {
                    *mismatch = Some("an immediate cannot be a load destination".into());
                }
            }
        } else {
            let none_typed = elems
                .iter()
                .all(|e| matches!(elem(scopes, e), Elem::Sink | Elem::Other(_)));
            // With a register among the elements, ptxas converts immediates to the vector's
            // type; only an integer immediate in a float vector is refused (§7.3).
            let has_reg = elems
                .iter()
                .any(|e| matches!(elem(scopes, e), Elem::Reg(_)));
            if has_reg
                && ty.kind() == TypeKind::Float
                && elems.iter().any(|e| imm_kind(e) == Some(Imm::Int))
            {
                *diff_types = true;
            }
            if none_typed {
                if !reg_ok_for_type(ty, ScalarType::B8) {
                    mismatch.get_or_insert_with(|| {
                        format!(
                            "the vector has no typed element (taken as .b8) for `{}`",
                            ty.token()
                        )
                    });
                }
            } else if !elems
                .iter()
                .filter(|e| imm_kind(e).is_none() || !(ld || has_reg))
                .all(elem_ok)
            {
                mismatch.get_or_insert_with(|| {
                    format!("a vector element does not fit `{}`", ty.token())
                });
            } else {
                let imms = imm_elems(elems);
                if ld && !imms.is_empty() {
                    if has_reg || imms.iter().all(|&k| imm_ok_for_type(ty, k)) {
                        *result_reg = true;
                    } else {
                        mismatch.get_or_insert_with(|| {
                            "an immediate cannot be a load destination".into()
                        });
                    }
                }
            }
        }
    }

    /// A scalar data operand (a register, an immediate, `_`, or something else).
    #[inline(always)]
    pub(super) fn scalar(&mut self, unknown: &mut Unknowns) {
        let Signature {
            cx,
            scopes,
            ld,
            ty,
            data,
            ref mut mismatch,
            ref mut result_reg,
            ref mut must_be_reg,
            ref mut discard,
            ..
        } = *self;
        match data {
            Operand::Sink(_) => {
                if ld {
                    *discard = true;
                } else {
                    mismatch.get_or_insert_with(|| "`_` is not a value".into());
                }
            }
            // An address as data: `must be register`, except for .b128, whose operand
            // forms have no memory operand there (measured).
            Operand::Address(_) | Operand::Bracket(..) if ty == ScalarType::B128 => {
                mismatch
                    .get_or_insert_with(|| "a .b128 value is a register, not an address".into());
            }
            Operand::Address(_) | Operand::Bracket(..) => *must_be_reg = true,
            _ => match elem(scopes, data) {
                Elem::Reg(rt) => {
                    if !reg_ok_for_type(ty, rt) {
                        mismatch.get_or_insert_with(|| {
                            format!(
                                "`{}` is a {} register, which does not fit `{}`",
                                cx.src(data.span()),
                                rt.token(),
                                ty.token()
                            )
                        });
                    }
                }
                Elem::Imm(k) => {
                    if !ld {
                        if !imm_ok_for_type(ty, k) {
                            mismatch.get_or_insert_with(|| {
                                format!(
                                    "`{}` is not a `{}` immediate",
                                    cx.src(data.span()),
                                    ty.token()
                                )
                            });
                        }
                    } else if imm_ok_for_type(ty, k) {
                        *result_reg = true;
                    } else {
                        mismatch.get_or_insert_with(|| {
                            "an immediate cannot be a load destination".into()
                        });
                    }
                }
                Elem::Sink => {}
                Elem::Other(o) => match o {
                    Operand::Name(nm) if !nm.name.starts_with('%') => {
                        if !ld && scopes.lookup(&nm.name).is_some() {
                            *must_be_reg = true;
                        } else {
                            mismatch
                                .get_or_insert_with(|| format!("`{}` is not a register", nm.name));
                        }
                    }
                    other => {
                        let text = cx.src(other.span());
                        if !matches!(other, Operand::Name(_)) {
                            unknown.add(text, other.span());
                        }
                        mismatch.get_or_insert_with(|| format!("`{text}` is not a register"));
                    }
                },
            },
        }
    }
}
