//! Branch targets: the label a `bra` names must be defined in the branch's block or an
//! enclosing one, before or after the branch (measured with ptxas 13.5: a label of a nested
//! block, of a sibling block or of another function is an `Unknown symbol`, reported at the end
//! of the function among the other unknown names, in source order, once per use). A name that
//! is not a label gets `Label expected for argument 0 of instruction 'bra'` at once, and a
//! variable (any state space, parameters too) also `Argument 0 of instruction 'bra': must be
//! register`; a predicate or a special register gets `Arguments mismatch for instruction
//! 'bra'`, a special register's component (`%tid.x`) `Special register argument not allowed`
//! and `Label expected`. Not modelled: labels of debug sections (`$L__info_string…`) that
//! `.loc … function_name` names (ptxas: `Unresolved label … used in function_name attribute`).
//!
//! Labels are kept per block as slices of the module text; a reference not yet resolved when
//! its block closes moves to the enclosing block, and what is left when the function's
//! outermost block closes is unknown.

use super::*;
use ptx_syntax::ast::{GenericInstruction, TargetList, TargetListKind};
use rustc_hash::FxHashSet;

/// The labels of the open blocks of the function being checked, and the branch targets not
/// found yet.
#[derive(Default)]
pub(super) struct BranchTargets<'a> {
    frames: Vec<TargetFrame<'a>>,
}

#[derive(Default)]
struct TargetFrame<'a> {
    labels: FxHashSet<&'a str>,
    /// `.callprototype` labels: names, but not branch targets.
    prototypes: Vec<&'a str>,
    /// `.branchtargets` labels: the operand `brx.idx` takes; not branch targets themselves.
    branch_lists: Vec<&'a str>,
    /// `.calltargets` labels.
    call_lists: Vec<&'a str>,
    /// Targets named in this block (or a closed inner one) that no open block defined when
    /// they were read.
    pending: Vec<(&'a str, Span)>,
}

impl<'a> BranchTargets<'a> {
    /// A function's body opens.
    pub(super) fn enter_function(&mut self) {
        self.frames.clear();
        self.frames.push(TargetFrame::default());
    }

    pub(super) fn push(&mut self) {
        self.frames.push(TargetFrame::default());
    }

    /// A nested block closes: its unresolved targets move to the enclosing block.
    pub(super) fn pop(&mut self) {
        let Some(frame) = self.frames.pop() else {
            return;
        };
        let Some(parent) = self.frames.last_mut() else {
            return;
        };
        parent.pending.extend(
            frame
                .pending
                .into_iter()
                .filter(|(name, _)| !frame.labels.contains(name)),
        );
    }

    pub(super) fn define(&mut self, name: &'a str) {
        if let Some(frame) = self.frames.last_mut() {
            frame.labels.insert(name);
        }
    }

    pub(super) fn define_prototype(&mut self, name: &'a str) {
        if let Some(frame) = self.frames.last_mut() {
            frame.prototypes.push(name);
        }
    }

    /// Whether an open block declares `name` as a call prototype (or a target list: neither
    /// is a branch target).
    fn is_prototype(&self, name: &str) -> bool {
        self.frames
            .iter()
            .any(|f| f.prototypes.contains(&name) || f.branch_lists.contains(&name))
    }

    fn define_branch_list(&mut self, name: &'a str) {
        if let Some(frame) = self.frames.last_mut() {
            frame.branch_lists.push(name);
        }
    }

    fn define_call_list(&mut self, name: &'a str) {
        if let Some(frame) = self.frames.last_mut() {
            frame.prototypes.push(name);
            frame.call_lists.push(name);
        }
    }

    /// Whether an open block declared `name` as a `.calltargets` list before this point.
    fn is_call_list(&self, name: &str) -> bool {
        self.frames.iter().any(|f| f.call_lists.contains(&name))
    }

    /// Whether an open block declared `name` as a `.branchtargets` list before this point.
    fn is_branch_list(&self, name: &str) -> bool {
        self.frames.iter().any(|f| f.branch_lists.contains(&name))
    }

    /// A branch to `name`: resolved now if an open block defines it, else later.
    fn refer(&mut self, name: &'a str, span: Span) {
        if self.frames.iter().any(|f| f.labels.contains(name)) {
            return;
        }
        if let Some(frame) = self.frames.last_mut() {
            frame.pending.push((name, span));
        }
    }

    /// The function's outermost block closed: the targets no block defined.
    pub(super) fn leave_function(&mut self) -> Vec<(&'a str, Span)> {
        let Some(frame) = self.frames.pop() else {
            return Vec::new();
        };
        self.frames.clear();
        frame
            .pending
            .into_iter()
            .filter(|(name, _)| !frame.labels.contains(name))
            .collect()
    }
}

impl<'a> Checker<'a> {
    /// `bra{.uni} target`: records a label target, or reports an operand that is not one.
    /// Inlined into the walk: most instructions are not `bra` (one compare of the opcode).
    #[inline(always)]
    pub(super) fn branch_target(&mut self, i: &Instruction, scopes: &Scopes) {
        if let Op::Generic(g) = &i.op {
            match g.known {
                Some(Opcode::Bra) => self.bra_target(g, scopes),
                Some(Opcode::Brx) => self.brx_operands(g, scopes),
                Some(Opcode::Call) => self.record_call(g),
                _ => {}
            }
        }
    }

    /// `brx.idx{.uni} index, tlist` (PTX ISA 9.7.9.x: "index: .u32 register or immediate;
    /// tlist: a `.branchtargets` label defined in the function before use"). Measured with
    /// ptxas 13.5: a 16- or 64-bit or predicate index, an operand count other than two, a
    /// plain label, or a list defined after the instruction are `Arguments mismatch for
    /// instruction 'brx.idx'`.
    ///
    /// Also measured: `brx` without `.idx` is an unknown instruction, a type word
    /// (`brx.idx.u32`) is `Unexpected instruction types`, an undeclared index register is a
    /// mismatch and an `Unknown symbol`, and below sm_30 a valid `brx.idx` is `Instruction
    /// 'brx.idx' requires .target sm_30 or higher` (ptxas 13.5 knows no PTX before 6.0, the
    /// documented version minimum).
    fn brx_operands(&mut self, g: &GenericInstruction, scopes: &Scopes) {
        if !g.has(Modifier::Idx) {
            self.diags.push(Diagnostic::error(
                codes::UNKNOWN_INSTRUCTION,
                g.opcode.span,
                "`brx` is written `brx.idx`".to_string(),
                "Not a name of any known instruction: 'brx'",
            ));
            return;
        }
        if let Some(m) = g
            .modifiers
            .iter()
            .find(|m| ScalarType::from_token(&m.value).is_some())
        {
            self.diags.push(Diagnostic::error(
                codes::BAD_TYPE,
                m.span,
                "`brx.idx` takes no type word (the index is .u32)".to_string(),
                "Unexpected instruction types specified for 'brx.idx'",
            ));
            return;
        }
        let mut unknown = None;
        let mut index_ok = |o: &Operand| match o {
            Operand::Int(_) => true,
            Operand::Name(n) if n.component.is_none() => match scopes.lookup(&n.name) {
                Some(Sym::Reg(t)) => t.bits() == 32 && t != ScalarType::Pred,
                None if !symbols::is_special(&n.name) => {
                    unknown = Some((n.name.clone(), n.span));
                    false
                }
                _ => false,
            },
            _ => true,
        };
        let list_ok = |o: &Operand| match o {
            Operand::Name(n) if n.component.is_none() => {
                let name = self.name_at(n.span);
                name.is_empty() || self.targets.is_branch_list(name)
            }
            _ => false,
        };
        let ok_index = matches!(g.operands.as_slice(), [index, _] if index_ok(index));
        let ok = ok_index
            && match g.operands.as_slice() {
                [_, list] => list_ok(list),
                _ => false,
            };
        if let [_, Operand::Name(n)] = g.operands.as_slice() {
            if ok_index && self.targets.is_call_list(self.name_at(n.span)) {
                // measured: a `.calltargets` label gets its own message
                self.diags.push(Diagnostic::error(
                    codes::OPERANDS,
                    n.span,
                    "`brx.idx` takes a `.branchtargets` label, not a `.calltargets` one".to_string(),
                    "Label with '.branchtargets' directive expected for argument 1 of instruction 'brx.idx'",
                ));
                return;
            }
        }
        if !ok {
            let span = g.operands.first().map_or(g.opcode.span, |o| o.span());
            self.diags.push(Diagnostic::error(
                codes::OPERANDS,
                span,
                "`brx.idx` takes a 32-bit index and a `.branchtargets` label defined before it"
                    .to_string(),
                "Arguments mismatch for instruction 'brx.idx'",
            ));
            if let Some((name, span)) = unknown {
                self.diags.push(Diagnostic::error(
                    codes::UNKNOWN_SYMBOL,
                    span,
                    format!("`{name}` is not declared"),
                    format!("Unknown symbol '{name}'"),
                ));
            }
        } else if self.sm < 30 {
            self.diags.push(Diagnostic::error(
                codes::TARGET_TOO_OLD,
                g.opcode.span,
                "`brx.idx` needs sm_30 or later".to_string(),
                "Instruction 'brx.idx' requires .target sm_30 or higher",
            ));
        }
    }

    /// `ts: .branchtargets L0, L1;`: every entry must be a label of the function's open
    /// blocks (resolved like a `bra` target, forward references allowed; measured: an unknown
    /// name is `Unknown symbol`, a register `Illegal branch target, label expected`).
    /// `.calltargets` entries must be functions of the module.
    pub(super) fn target_list(&mut self, t: &TargetList, scopes: &Scopes) {
        let label = self.name_at(t.label.span);
        if label.is_empty() {
            return;
        }
        if self.sm < 30 {
            // measured: ptxas 13.5 on `.target sm_20`
            self.diags.push(Diagnostic::error(
                codes::TARGET_TOO_OLD,
                t.span,
                format!("`{}` needs sm_30 or later", t.kind.token()),
                format!(
                    "Feature '{} directive' requires .target sm_30 or higher",
                    t.kind.token()
                ),
            ));
        }
        match t.kind {
            TargetListKind::Branch => self.targets.define_branch_list(label),
            TargetListKind::Call => self.targets.define_call_list(label),
        }
        if t.kind == TargetListKind::Call {
            // measured: an entry that is not a function (a label, an unknown name) is
            // `Illegal call target, device function expected`, reported at the list.
            for target in &t.targets {
                let name = self.name_at(target.span);
                if !name.is_empty() && !matches!(scopes.lookup(name), Some(Sym::Func)) {
                    self.diags.push(Diagnostic::error(
                        codes::OPERANDS,
                        target.span,
                        format!("`{name}` is not a function"),
                        "Illegal call target, device function expected",
                    ));
                }
            }
            return;
        }
        for target in &t.targets {
            let name = self.name_at(target.span);
            if name.is_empty() {
                continue;
            }
            if scopes.lookup(name).is_some() || symbols::is_special(name) {
                self.diags.push(Diagnostic::error(
                    codes::OPERANDS,
                    target.span,
                    format!("`{name}` is not a label"),
                    "Illegal branch target, label expected",
                ));
            } else {
                self.targets.refer(name, target.span);
            }
        }
    }

    fn bra_target(&mut self, g: &GenericInstruction, scopes: &Scopes) {
        let [target] = g.operands.as_slice() else {
            return;
        };
        let label_expected = || {
            Diagnostic::error(
                codes::OPERANDS,
                target.span(),
                "`bra` takes a label".to_string(),
                "Label expected for argument 0 of instruction 'bra'",
            )
        };
        let mismatch = |span: Span| {
            Diagnostic::error(
                codes::OPERANDS,
                span,
                "`bra` takes a label".to_string(),
                "Arguments mismatch for instruction 'bra'",
            )
        };
        match target {
            Operand::Name(n) => {
                let name = self.name_at(n.span);
                if name.is_empty() {
                    return;
                }
                if n.component.is_some() {
                    if symbols::is_special(&n.name) {
                        self.diags.push(Diagnostic::error(
                            codes::OPERANDS,
                            n.span,
                            "`bra` takes a label, not a special register".to_string(),
                            "Special register argument not allowed for instruction 'bra'",
                        ));
                        self.diags.push(label_expected());
                    }
                    return;
                }
                if symbols::is_special(name) {
                    self.diags.push(mismatch(n.span));
                    return;
                }
                match scopes.lookup(name) {
                    None if self.targets.is_prototype(name) => self.diags.push(label_expected()),
                    None => self.targets.refer(name, n.span),
                    Some(Sym::Reg(ScalarType::Pred)) => self.diags.push(mismatch(n.span)),
                    Some(Sym::Var(_)) => {
                        self.diags.push(label_expected());
                        self.diags.push(Diagnostic::error(
                            codes::OPERANDS,
                            n.span,
                            "`bra` takes a label, not a variable".to_string(),
                            "Argument 0 of instruction 'bra': must be register",
                        ));
                    }
                    Some(_) => self.diags.push(label_expected()),
                }
            }
            Operand::Int(_) => self.diags.push(label_expected()),
            _ => {}
        }
    }

    /// A label of the current block (`L:`).
    pub(super) fn define_branch_label(&mut self, span: Span) {
        let name = self.name_at(span);
        if !name.is_empty() {
            self.targets.define(name);
        }
    }

    /// A `.callprototype`'s label: not a branch target (`bra` to it: `Label expected`).
    pub(super) fn define_prototype_label(&mut self, span: Span) {
        let name = self.name_at(span);
        if !name.is_empty() {
            self.targets.define_prototype(name);
        }
    }

    /// The unknown branch targets of the function that ended, merged into its other unknown
    /// names in source order.
    pub(super) fn unknown_targets(&mut self, unknown: &mut Vec<Diagnostic>) {
        let missing = self.targets.leave_function();
        if missing.is_empty() {
            return;
        }
        for (name, span) in missing {
            let d = Diagnostic::error(
                codes::UNKNOWN_SYMBOL,
                span,
                format!("no label `{name}` in this block or an enclosing one"),
                format!("Unknown symbol '{name}'"),
            )
            .with_help(
                "define the label in the branch's block or an enclosing block of the same function",
            );
            let at = unknown.partition_point(|u| u.span.start <= span.start);
            unknown.insert(at, d);
        }
    }
}
