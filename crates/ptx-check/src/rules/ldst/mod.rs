//! `ld` (every space and form, `ld.global.nc` included) and `st`: docs/ptxas-rules.md §4–§7,
//! `check_ldst` of `tests/parity/rules_model.py`. Unknown opcodes also come here: ptxas scans
//! their modifiers the same way before it names them unknown.
//!
//! Files: [`mod@scan`] (the modifier scan, §4.1 step 2), [`operands`] (operand classification
//! helpers and the vector-expression check, §4.1 step 3), [`signature`] (the data operand
//! against the type, §4.1 step 6, §7), [`spaces`] (the state space, §4.1 step 7, §5.11, §6),
//! [`eviction`] (eviction priorities, §5.5), [`mod@address`] (the address operand, §5.11),
//! [`semantics`] (memory semantics, scopes, `.mmio`, cache hints, §5.2–§5.4, §6),
//! [`cache_ops`] (cache operators, `.nc` on stores, cache hints), [`messages`] (diagnostics
//! shared with the other families).
//!
//! [`check`] runs the stages in ptxas's order: scan, operands (with the early stops ptxas
//! makes), operand signature, the modifiers ld/st refuse, state space, eviction priorities,
//! address operand, memory semantics, cache operators. The later stages are methods of small
//! per-instruction state structs ([`Signature`], [`Spaces`], [`Address`], [`Semantics`]) that
//! borrow what the earlier stages found, so each diagnostic is added in the same order as when
//! `check` was one function.

mod address;
mod cache_ops;
mod eviction;
mod messages;
mod operands;
mod scan;
mod semantics;
mod signature;
mod spaces;

use address::Address;
use cache_ops::cache_operators;
use eviction::eviction_priorities;
pub(crate) use messages::{
    bad_address_symbol, combine, illegal_operand_type, immediate_address, space_mismatch,
};
use operands::*;
pub(crate) use scan::scan_messages;
use scan::*;
use semantics::Semantics;
use signature::Signature;
use spaces::Spaces;

use super::collect::{Key, Msgs, LD_ORDER, ST_ORDER};
use super::const_issues;
use super::symbols::{Scopes, Sym, VarKind};
use super::words::{classify, is, is_alt_type, is_any, is_ldst_type, Level, Prio, Word};
use super::{
    address, check_guard, finish, gate, gate_list, gate_target, gate_version, imm_kind,
    imm_ok_for_type, reg_ok_for_type, unknown_modifier, vector_warning, width, Base, Cx, Imm, Insn,
    Outcome, Unknowns,
};
use crate::codes;
use crate::rules::operands::Addr;
use crate::{Diagnostic, Severity};
use ptx_isa::{
    CacheLevel, CacheOperator, Feature, Flag, MemorySemantics, Modifier, Opcode, PrefetchSize,
    ScalarType, Scope, StateSpace, TypeKind,
};
use ptx_syntax::ast::Operand;
use ptx_syntax::Span;
use smallvec::SmallVec;

pub(crate) fn check(cx: &Cx, insn: &Insn, scopes: &Scopes) -> Outcome {
    let mut m = Msgs::new(order(insn));
    let mut unknown = Unknowns::default();
    check_guard(insn, scopes, &mut m, Some(&mut unknown));
    const_issues(insn, &mut m);
    let s = scan(cx, insn, &mut m, true);
    let tail = s.vec_warn_last.map(|sp| vector_warning(insn, sp));
    let ls = Ldst {
        cx,
        insn,
        scopes,
        s: &s,
        op: insn.opcode,
        ld: is_ld(insn),
        lds: matches!(insn.known, Some(Opcode::Ld | Opcode::St)),
        head: insn.head(),
    };
    match ls.stages(&mut m, &mut unknown) {
        Ok(Found {
            narrow,
            call_sequence,
        }) => {
            let mut out = finish(m, unknown, tail);
            if !out.fatal {
                out.narrow_address = narrow;
                out.call_sequence = call_sequence;
            }
            out
        }
        Err(Stop::Tail) => finish(m, unknown, tail),
        Err(Stop::NoTail) => finish(m, unknown, None),
    }
}

/// Why [`check`] stops before its last stage (ptxas's early stops): whether the trailing
/// vector warning is still reported.
enum Stop {
    Tail,
    NoTail,
}

/// What the last stages found that the function-level checks need.
struct Found {
    narrow: Option<u32>,
    call_sequence: Option<Diagnostic>,
}

/// One `ld`/`st` (or unknown opcode) and its modifier scan, shared by the stages.
struct Ldst<'a, 's> {
    cx: &'s Cx<'s>,
    insn: &'s Insn<'a>,
    scopes: &'s Scopes<'s>,
    s: &'s Scan<'a>,
    op: &'a str,
    /// A load (its data operand comes first).
    ld: bool,
    /// `ld` or `st` (not an unknown opcode).
    lds: bool,
    head: Span,
}

/// The instruction's type words: one ld/st type, or ptxas's alternate-type quirk (one ld/st
/// type among alternate-format types).
struct Types {
    type_ok: bool,
    alt_quirk: bool,
    ty: Option<ScalarType>,
}

/// The operands by role, once their count is right.
struct Operands<'a> {
    data: &'a Operand,
    addr_op: &'a Operand,
    policy: Option<&'a Operand>,
    /// The data operand's elements when it is a vector.
    elems: Option<&'a [Operand]>,
}

/// What the operand signature found about the data operand.
struct DataFacts {
    result_reg: bool,
    must_be_reg: bool,
    discard: bool,
}

// Each stage runs once per instruction, from `check` only: `#[inline(always)]` keeps the
// compiled check as it was when `check` was one function (see `address.rs`).
impl<'a, 's> Ldst<'a, 's> {
    /// The stages after the scan, in ptxas's order.
    #[inline(always)]
    fn stages(&self, m: &mut Msgs, unknown: &mut Unknowns) -> Result<Found, Stop> {
        if let Some(span) = self.s.sync {
            // `.sync` stops the instruction right after the scan.
            m.add(
                Key::NotAName,
                illegal_modifier(self.insn, Modifier::Sync.name(), span),
            );
            return Err(Stop::Tail);
        }
        let types = self.types();
        let ops = self.operands(&types, m, unknown)?;
        let v256 = match (self.s.vec, types.ty) {
            (Some((8, _)), Some(t)) => bits(t) == 32,
            (Some((4, _)), Some(t)) => bits(t) == 64,
            _ => false,
        };
        let addr = address(self.scopes, ops.addr_op);
        let ty = self.address_and_type(&types, addr, m, unknown)?;
        let (addr, facts) = self.signature(ty, &ops, addr, m, unknown)?;
        self.data_operand(&types, &ops, v256, &facts, m)?;
        Ok(self.semantic(ty, &ops, addr, v256, &facts, m, unknown))
    }

    /// The type words (§4.1 step 6).
    #[inline(always)]
    fn types(&self) -> Types {
        let s = self.s;
        let type_ok = s.types.len() == 1 && is_ldst_type(s.types[0].0);
        let prim: SmallVec<[_; 2]> = s.types.iter().filter(|t| !is_alt_type(t.0)).collect();
        let alt_quirk = prim.len() == 1 && is_ldst_type(prim[0].0) && s.types.len() > 1;
        let ty: Option<ScalarType> = if type_ok {
            s.types[0].0
        } else if alt_quirk {
            prim[0].0
        } else {
            None
        };
        Types {
            type_ok,
            alt_quirk,
            ty,
        }
    }

    /// The operands (§4.1 step 3): array indexing of a register, the operand count, a store
    /// of `_`, undeclared registers, the vector expression, and an unknown opcode's stop.
    #[inline(always)]
    fn operands(
        &self,
        types: &Types,
        m: &mut Msgs,
        unknown: &mut Unknowns,
    ) -> Result<Operands<'a>, Stop> {
        let Ldst {
            cx,
            insn,
            scopes,
            s,
            ld,
            lds,
            ..
        } = *self;
        let ops = insn.ops;
        if let Some(Operand::Indexed(n, _, span)) = ops.first() {
            if n.name.starts_with('%') {
                m.add(
                    Key::ArrayIndexing,
                    insn.err(
                        codes::BAD_ADDRESS,
                        *span,
                        "Array indexing on non-array".into(),
                        format!(
                            "`{}` is a register, not an array (is a comma missing?)",
                            n.name
                        ),
                    ),
                );
            }
        }
        if lds && (ops.len() < 2 || ops.len() > 3) {
            wrong_operand_count(
                insn,
                scopes,
                s,
                m,
                unknown,
                ld,
                types.type_ok || types.alt_quirk,
            );
            return Err(Stop::Tail);
        }
        let (want_data, want_addr) = if ld { (0, 1) } else { (1, 0) };
        let data = ops.get(want_data);
        let addr_op = ops.get(want_addr);
        let policy = ops.get(2);
        if insn.known == Some(Opcode::St) {
            if let Some(Operand::Sink(span)) = data {
                let d = Diagnostic::new(
                    Severity::Fatal,
                    codes::SYNTAX,
                    *span,
                    "a store needs a value; `_` can only stand for a vector element",
                    "Parsing error near '_': syntax error",
                )
                .with_help("store a register or an immediate")
                .at_line_of(insn.start);
                m.add(Key::ResultDiscard, d);
                return Err(Stop::NoTail);
            }
        }
        for o in ops {
            if let Operand::Name(n) = o {
                if n.name.starts_with('%') && scopes.reg(&n.name).is_none() {
                    unknown.add(&n.name, n.span);
                }
            }
        }
        // Vector expression.
        let elems: Option<&[Operand]> = match data {
            Some(Operand::Vector(v, _)) => Some(v),
            _ => None,
        };
        if let Some(data) = data {
            vector_expression(cx, insn, scopes, m, unknown, lds, data);
        }
        if !lds {
            self.not_a_name(m, unknown);
            return Err(Stop::Tail);
        }
        Ok(Operands {
            data: data.expect("2..=3 operands"),
            addr_op: addr_op.expect("2..=3 operands"),
            policy,
            elems,
        })
    }

    /// An unknown opcode, once its modifiers and operands are scanned.
    #[inline(always)]
    fn not_a_name(&self, m: &mut Msgs, unknown: &mut Unknowns) {
        let Ldst { insn, op, .. } = *self;
        m.add(
            Key::NotAName,
            insn.err(
                codes::UNKNOWN_INSTRUCTION,
                Span::new(
                    insn.opcode_span.start,
                    insn.opcode_span.start + op.len() as u32,
                ),
                format!("Not a name of any known instruction: '{op}'"),
                format!("`{op}` is not a PTX instruction"),
            )
            .with_help(
                if op.eq_ignore_ascii_case("ld") || op.eq_ignore_ascii_case("st") {
                    format!("opcodes are lower case: `{}`", op.to_ascii_lowercase())
                } else {
                    "see the PTX ISA for the instruction set".to_string()
                },
            ),
        );
        super::operand_unknowns(self.scopes, insn.ops, unknown);
    }

    /// An undeclared variable the address names, reported when the instruction stops early.
    #[inline(always)]
    fn undeclared_var(&self, addr: Option<Addr>, unknown: &mut Unknowns) {
        if let Some(Base::Var(n, sp)) = addr.map(|a| a.base) {
            if self.scopes.lookup(n).is_none() {
                unknown.add(n, sp);
            }
        }
    }

    /// A `.b128` address register, st's prefetch size, the type words, and `ld.nc`'s target.
    #[inline(always)]
    fn address_and_type(
        &self,
        types: &Types,
        addr: Option<Addr>,
        m: &mut Msgs,
        unknown: &mut Unknowns,
    ) -> Result<ScalarType, Stop> {
        let Ldst {
            cx,
            insn,
            scopes,
            s,
            op,
            ld,
            head,
            ..
        } = *self;
        if let Some(Base::Reg(r, sp)) = addr.map(|a| a.base) {
            if scopes.reg(r) == Some(ScalarType::B128) {
                m.add(
                    Key::AddrB128,
                    insn.err(
                        codes::BAD_ADDRESS,
                        sp,
                        "Illegal operand type for address/array-index".into(),
                        format!("`{r}` is a .b128 register; addresses are 16-, 32- or 64-bit"),
                    )
                    .with_help("use a 64-bit register for the address"),
                );
            }
        }
        if insn.known == Some(Opcode::St) {
            if let Some((t, span)) = s.pf {
                m.add(
                    Key::IllegalPf,
                    insn.err(
                        codes::ILLEGAL_MODIFIER,
                        span,
                        format!("Illegal modifier '{t}' for instruction 'st'"),
                        format!("`{t}` is a load prefetch size; stores take none"),
                    )
                    .with_help("remove the prefetch size"),
                );
                self.undeclared_var(addr, unknown);
                return Err(Stop::Tail);
            }
        }
        if !types.type_ok && !types.alt_quirk {
            let span = s.types.get(1).or(s.types.first()).map_or(head, |t| t.1 .1);
            m.add(
                Key::UnexpectedTypes,
                insn.err(
                    codes::BAD_TYPE,
                    span,
                    format!("Unexpected instruction types specified for '{op}'"),
                    match s.types.len() {
                        0 => format!("`{op}` needs a type"),
                        1 => format!("`{}` is not a type `{op}` takes", s.types[0].1 .0),
                        _ => format!("`{op}` takes exactly one type"),
                    },
                )
                .with_help(
                    ".b8 .b16 .b32 .b64 .b128 .u8 .u16 .u32 .u64 .s8 .s16 .s32 .s64 .f32 .f64",
                ),
            );
            self.undeclared_var(addr, unknown);
            return Err(Stop::Tail);
        }
        if let (true, Some(nc)) = (ld, s.nc) {
            // `ld.nc` itself needs sm_32 (§20.6).
            if let Some(d) = gate_target(cx, insn.start, Feature::LdNc, "", op, nc) {
                m.add(Key::LdNcTgt, d);
            }
        }
        Ok(types.ty.expect("type checked above"))
    }

    /// The operand signature (§4.1 step 6, §7): the data operand against the type, the cache
    /// policy operand, and vector elements of different types.
    #[inline(always)]
    fn signature(
        &self,
        ty: ScalarType,
        ops: &Operands<'a>,
        addr: Option<Addr<'a>>,
        m: &mut Msgs,
        unknown: &mut Unknowns,
    ) -> Result<(Addr<'a>, DataFacts), Stop> {
        let Ldst {
            cx,
            insn,
            scopes,
            s,
            op,
            ld,
            head,
            ..
        } = *self;
        let data = ops.data;
        let mut sig = Signature {
            cx,
            scopes,
            ld,
            ty,
            data,
            mismatch: None,
            result_reg: false,
            must_be_reg: false,
            discard: false,
            diff_types: false,
        };
        if addr.is_none() {
            sig.mismatch = Some(format!(
                "`{}` is not an address",
                cx.src(ops.addr_op.span())
            ));
        }
        match ops.elems {
            Some(elems) => sig.vector(elems),
            None => sig.scalar(unknown),
        }
        let Signature {
            mut mismatch,
            result_reg,
            must_be_reg,
            discard,
            diff_types,
            ..
        } = sig;
        if let Some(p) = ops.policy {
            let prt = match p {
                Operand::Name(n) => scopes.reg(&n.name),
                _ => None,
            };
            let ok = matches!(
                prt,
                Some(ScalarType::B64 | ScalarType::U64 | ScalarType::S64)
            ) || imm_kind(p) == Some(Imm::Int);
            if !ok {
                mismatch.get_or_insert_with(|| {
                    format!(
                        "the cache policy `{}` must be a 64-bit integer register",
                        cx.src(p.span())
                    )
                });
            }
        }
        if s.hint.is_some() && ops.policy.is_none() {
            mismatch.get_or_insert_with(|| "`.L2::cache_hint` needs a cache-policy operand".into());
        }
        if diff_types && mismatch.is_none() {
            m.add(
                Key::IncompatibleElements,
                insn.err(
                    codes::VECTOR_EXPRESSION,
                    data.span(),
                    format!(
                        "Vector with elements of different types are not allowed in {op} instruction"
                    ),
                    format!("an integer immediate in a `{}` vector", ty.token()),
                )
                .with_help("write float immediates (`1.0`, `0f3F800000`) in a float vector"),
            );
        }
        if let Some(why) = mismatch {
            m.add(
                Key::ArgsMismatch,
                args_mismatch(insn, insn.ops.first().map_or(head, |o| o.span()).to(insn.ops.last().map_or(head, |o| o.span())), &why)
                    .with_help(if ld {
                        "ld: d, [a]{, policy}; a `.bN` type takes any register of ≥N bits, `.uN`/`.sN` integer registers of ≥N bits, `.fN` an N-bit float or ≥N-bit bit register"
                    } else {
                        "st: [a], b{, policy}; a `.bN` type takes any register of ≥N bits, `.uN`/`.sN` integer registers of ≥N bits, `.fN` an N-bit float or ≥N-bit bit register"
                    }),
            );
            self.undeclared_var(addr, unknown);
            return Err(Stop::Tail);
        }
        let facts = DataFacts {
            result_reg,
            must_be_reg,
            discard,
        };
        Ok((addr.expect("mismatch otherwise"), facts))
    }

    /// The data operand and the modifiers ld/st refuse: a special register, the
    /// alternate-type quirk's stop, refused modifiers, 256-bit vectors' gate, a data operand
    /// that must be a register, and a discarded load result.
    #[inline(always)]
    fn data_operand(
        &self,
        types: &Types,
        ops: &Operands<'a>,
        v256: bool,
        facts: &DataFacts,
        m: &mut Msgs,
    ) -> Result<(), Stop> {
        let Ldst {
            cx,
            insn,
            s,
            op,
            ld,
            head,
            ..
        } = *self;
        let data = ops.data;
        // A special register as the (scalar) data operand (§20.6).
        if let Operand::Name(n) = data {
            let base = n.name.split('.').next().unwrap_or("");
            if super::symbols::is_special(base) {
                m.add(
                    Key::SpecialReg,
                    insn.err(
                        codes::OPERANDS,
                        n.span,
                        format!("Special register argument not allowed for instruction '{op}'"),
                        format!(
                            "`{}` is a special register; copy it with `mov` first",
                            n.name
                        ),
                    ),
                );
            }
        }
        if types.alt_quirk {
            let span = s
                .types
                .iter()
                .find(|t| is_alt_type(t.0))
                .map_or(head, |t| t.1 .1);
            m.add(
                Key::UnexpectedTypes,
                insn.err(
                    codes::BAD_TYPE,
                    span,
                    format!("Unexpected instruction types specified for '{op}'"),
                    format!("`{op}` takes exactly one type"),
                ),
            );
            return Err(Stop::Tail);
        }
        refused_modifiers(cx, insn, s, m);
        if v256 {
            let vec_span = s.vec.map_or(head, |v| v.1 .1);
            gate(
                m,
                cx,
                insn,
                Feature::Wide256,
                Key::Wide256Tgt,
                Key::Wide256Ver,
                "",
                op,
                vec_span,
            );
        }
        if facts.must_be_reg {
            let k = if ld { 0 } else { 1 };
            m.add(
                Key::MustBeRegister,
                insn.err(
                    codes::OPERANDS,
                    data.span(),
                    format!("Argument {k} of instruction '{op}': must be register"),
                    format!(
                        "the {} must be a register",
                        if ld { "destination" } else { "source" }
                    ),
                ),
            );
        }
        if facts.discard {
            let d = Diagnostic::new(
                Severity::Fatal,
                codes::OPERANDS,
                data.span(),
                "a load needs a destination register; `_` is allowed only inside a vector",
                format!("Result discard mode is not allowed for instruction '{op}'"),
            )
            .with_help("load into a register (or prefetch the line instead)")
            .at_line_of(insn.start);
            m.add(Key::ResultDiscard, d);
        }
        Ok(())
    }

    /// The semantic checks (§4.1 step 7, §5, §6): state space, eviction priorities, the
    /// address operand, memory semantics and cache operators.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn semantic(
        &self,
        ty: ScalarType,
        ops: &Operands<'a>,
        addr: Addr<'a>,
        v256: bool,
        facts: &DataFacts,
        m: &mut Msgs,
        unknown: &mut Unknowns,
    ) -> Found {
        let Ldst {
            cx,
            insn,
            scopes,
            s,
            op,
            ld,
            head,
            ..
        } = *self;
        let space: Option<Tok> = s.spaces.first().map(|x| x.1);
        let space_v: Option<StateSpace> = s.spaces.first().map(|x| x.0);
        // ld matches variables against the last written space, st against the first (§5.11).
        let var_space: Option<StateSpace> = if ld {
            s.spaces.last().map(|x| x.0)
        } else {
            space_v
        };
        let n = s.vec.map_or(1, |v| v.0 as usize);
        let vec_span = s.vec.map_or(head, |v| v.1 .1);
        let sp_name = space_name(space);
        let sp_span = space.map_or(head, |s| s.1);
        // The variable the address names.
        let sym: Option<(&str, Span)> = match addr.base {
            Base::Var(n, sp) => Some((n, sp)),
            _ => None,
        };
        let sym_info = sym.and_then(|(n, _)| scopes.lookup(n));
        let mut sc = Spaces {
            cx,
            insn,
            s,
            op,
            ld,
            head,
            space_v,
            sp_name,
            sp_span,
            addr,
            sym,
            sym_info,
            v256,
            m,
        };
        sc.space();
        sc.params_and_prefetch();
        // ---- eviction priorities (§5.5)
        eviction_priorities(m, cx, insn, s, space_v, sp_name, v256);
        // ---- the address operand
        let mut at = Address {
            cx,
            insn,
            scopes,
            op,
            ld,
            head,
            space_v,
            var_space,
            addr,
            sym,
            sym_info,
            result_reg: facts.result_reg,
            elems: ops.elems,
            data: ops.data,
            ty,
            n,
            s,
            m,
            unknown,
        };
        let narrow = at.base();
        let call_sequence = at.symbol();
        at.shape();
        // ---- memory semantics (§5.2–§5.4, §6)
        let mut st = Semantics {
            cx,
            insn,
            s,
            m,
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
            elems: ops.elems,
            policy: ops.policy,
            data: ops.data,
        };
        st.volatile_and_vectors();
        st.ordering();
        st.direction_and_mmio();
        st.scope();
        st.loads_and_hints();
        cache_operators(m, insn, s, space_v, sp_name);
        Found {
            narrow,
            call_sequence,
        }
    }
}

/// ptxas's "Arguments mismatch" for an `ld`/`st` whose operands do not fit, with `why`.
fn args_mismatch(insn: &Insn, span: Span, why: &str) -> Diagnostic {
    let op = insn.opcode;
    insn.err(
        codes::OPERANDS,
        span,
        format!("Arguments mismatch for instruction '{op}'"),
        format!("the operands do not fit `{op}`: {why}"),
    )
}

/// ptxas's "Illegal modifier" for a known modifier of other instructions (§5.12).
fn illegal_modifier(insn: &Insn, t: &str, span: Span) -> Diagnostic {
    insn.err(
        codes::ILLEGAL_MODIFIER,
        span,
        format!("Illegal modifier '{t}' for instruction '{}'", insn.opcode),
        format!("`{}` takes no `{t}`", insn.opcode),
    )
}

/// The cache levels, `.aligned`-style flags and `.async` that `ld`/`st` refuse (§5.12), each
/// repeated as often as ptxas repeats it.
// Called once per instruction, from `check` only: inlined like the other stages.
#[inline(always)]
fn refused_modifiers(cx: &Cx, insn: &Insn, s: &Scan, m: &mut Msgs) {
    let illegal = |t: &str, span: Span| illegal_modifier(insn, t, span);
    if let Some(&(t, span)) = s.levels.last() {
        // ld reports `.L1` and `.tensormap` three times, st twice; `.L2` twice.
        let times = if is_ld(insn) && !is(t, CacheLevel::L2) {
            3
        } else {
            2
        };
        m.add_sub(Key::LdLevel, 0, illegal(t, span));
        if is(t, Flag::Tensormap) {
            for d in gate_list(cx, insn.start, Feature::Tensormap, "", insn.opcode, span) {
                m.add_sub(Key::LdLevel, 1, d);
            }
        }
        for _ in 1..times {
            m.add_sub(Key::LdLevel, 2, illegal(t, span));
        }
    }
    for &(t, span) in &s.flags {
        m.add(Key::LdAligned, illegal(t, span));
    }
    if let Some(span) = s.async_ {
        m.add(Key::LdAsync, illegal(Flag::Async.token(), span));
        m.add(Key::LdAsync, illegal(Flag::Async.token(), span));
    }
}

/// An `ld`/`st` with other than 2 or 3 operands: ptxas's early stop (§4.1 step 3). `typed`:
/// the instruction has one ld/st type (or the alternate-type quirk).
// Called once per instruction at most, from `check` only: inlined like the other stages.
#[inline(always)]
fn wrong_operand_count(
    insn: &Insn,
    scopes: &Scopes,
    s: &Scan,
    m: &mut Msgs,
    unknown: &mut Unknowns,
    ld: bool,
    typed: bool,
) {
    let op = insn.opcode;
    let head = insn.head();
    let ops = insn.ops;
    // ptxas checks st's prefetch size and the type before the operand count (§20.6);
    // the operands' undeclared names are reported either way.
    super::operand_unknowns(scopes, insn.ops, unknown);
    if let (false, Some((t, span))) = (ld, s.pf) {
        m.add(
            Key::IllegalPf,
            insn.err(
                codes::ILLEGAL_MODIFIER,
                span,
                format!("Illegal modifier '{t}' for instruction 'st'"),
                format!("`{t}` is a load prefetch size; stores take none"),
            )
            .with_help("remove the prefetch size"),
        );
        return;
    }
    if !typed {
        let span = s.types.get(1).or(s.types.first()).map_or(head, |t| t.1 .1);
        m.add(
            Key::UnexpectedTypes,
            insn.err(
                codes::BAD_TYPE,
                span,
                format!("Unexpected instruction types specified for '{op}'"),
                format!("`{op}` needs exactly one of its types"),
            ),
        );
        return;
    }
    let what = if ld {
        "`ld` takes a destination, an address and an optional cache policy"
    } else {
        "`st` takes an address, a source and an optional cache policy"
    };
    m.add(
        Key::ArgsMismatch,
        args_mismatch(insn, head, &format!("{} operands given; {what}", ops.len()))
            .with_help(what.to_string()),
    );
}
