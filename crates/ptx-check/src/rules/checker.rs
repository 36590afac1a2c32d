//! The module walk: [`Checker`] visits items and statements in source order, keeps the
//! symbol scopes, hands each instruction to its family (`dispatch`) and places the
//! module-level findings (deferred `Unknown symbol`s, address widths, call sequences) where
//! ptxas prints them. The header directives are read in `directives`.

use super::*;

pub(super) struct Checker<'a> {
    pub(super) text: &'a str,
    pub(super) options: &'a CheckOptions,
    pub(super) diags: Vec<Diagnostic>,
    /// A fatal message with a line stopped the walk.
    pub(super) line_fatal: bool,
    /// `.version`/`.target` mismatch, printed after every statement message.
    pub(super) mismatch: Option<Diagnostic>,
    pub(super) call_sequence: Option<Diagnostic>,
    /// (bits, instruction start) of each narrow address.
    pub(super) narrow: Vec<(u32, u32)>,
    pub(super) sm: u32,
    /// The full target (`sm_90a`), for the architecture-specific gates.
    pub(super) target: SmTarget,
    pub(super) version: PtxVersion,
    /// The `.address_size` value (None: not written).
    pub(super) address_size: Option<u32>,
    /// `.target …, debug`.
    pub(super) debug: bool,
    /// The names of the module's `.section .debug_*` sections.
    pub(super) debug_sections: Vec<String>,
    /// End of the last statement seen before a syntax error.
    pub(super) last_end: u32,
    /// Where a syntax error stops the walk.
    pub(super) stop: Option<u32>,
    /// The gate rows of each opcode met so far that fail on this target and version (made
    /// at the first instruction that needs them, once `directives` has set both).
    pub(super) gates: Option<gates::GateIndex>,
    /// The statement of the syntax error has been scanned.
    pub(super) partial_done: bool,
    /// The names defined so far, for the duplicate-definition check (`duplicates`).
    pub(super) defs: duplicates::Definitions<'a>,
    /// The labels of the open blocks and the `bra` targets not found yet (`labels.rs`).
    pub(super) targets: labels::BranchTargets<'a>,
}

impl<'a> Checker<'a> {
    pub(super) fn new(text: &'a str, options: &'a CheckOptions) -> Self {
        Checker {
            text,
            options,
            diags: Vec::new(),
            line_fatal: false,
            mismatch: None,
            call_sequence: None,
            narrow: Vec::new(),
            sm: 0,
            target: SmTarget::new(0),
            version: PtxVersion::new(0, 0),
            address_size: None,
            debug: false,
            debug_sections: Vec::new(),
            last_end: 0,
            stop: None,
            partial_done: false,
            gates: None,
            defs: duplicates::Definitions::default(),
            targets: labels::BranchTargets::default(),
        }
    }

    pub(super) fn fatal(&mut self, d: Diagnostic) {
        self.diags.push(d);
        self.line_fatal = true;
    }

    pub(super) fn src(&self, span: Span) -> &str {
        self.text.get(span.range()).unwrap_or("")
    }

    /// Walks the module, up to the syntax error at `self.stop` if there is one. Returns
    /// false if a fatal finding stopped it first.
    pub(super) fn run(&mut self, module: &Module) -> bool {
        if !self.directives(&module.items) {
            return false;
        }
        for item in &module.items {
            self.note_debug_section(item);
        }
        let stop = self.stop;
        let mut names = ModuleScope::new();
        for item in &module.items {
            let span = item_span(item);
            if stop.is_some_and(|s| span.start >= s) {
                return true;
            }
            if !self.item(item, &mut names) {
                return !self.line_fatal;
            }
            if stop.is_some_and(|s| span.end <= s) {
                self.last_end = self.last_end.max(span.end);
            }
        }
        true
    }

    /// Declares a top-level item and checks it if it is a function with a body; false if the
    /// walk must stop.
    pub(super) fn item(&mut self, item: &Item, names: &mut ModuleScope) -> bool {
        if !self.define_item(item) {
            return false;
        }
        names.declare_item(item);
        if let Item::Function(f) = item {
            if let Some(body) = &f.body {
                let mut scopes = Scopes::new(names);
                return self.function(f, body, &mut scopes);
            }
        }
        true
    }

    /// Checks one function body; false if the walk must stop.
    pub(super) fn function<'f>(
        &mut self,
        f: &'f Function,
        body: &'f ptx_syntax::ast::Block,
        scopes: &mut Scopes<'f>,
    ) -> bool {
        scopes.enter_function(
            f.returns.as_deref(),
            f.params.as_deref(),
            f.kind.value == FunctionKind::Entry,
        );
        self.define_parameters(f);
        self.function_directives(f);
        self.targets.enter_function();
        let mut state = FnState {
            kernel: f.kind.value == FunctionKind::Entry,
            returned: Vec::new(),
            unknown: Vec::new(),
        };
        let ok = self.block(&body.statements, body.span, scopes, &mut state);
        if ok {
            self.unknown_targets(&mut state.unknown);
            self.diags.append(&mut state.unknown);
        }
        ok
    }

    pub(super) fn block<'f>(
        &mut self,
        stmts: &'f [Statement],
        block_span: Span,
        scopes: &mut Scopes<'f>,
        state: &mut FnState,
    ) -> bool {
        let stop = self.stop;
        for s in stmts {
            let span = statement_span(s);
            if stop.is_some_and(|st| span.start >= st) {
                self.partial_statement(Some(scopes));
                return false;
            }
            match s {
                Statement::Var(v) => {
                    self.define_vars(v);
                    scopes.declare(v);
                    state.returned.resize(scopes.local_params as usize, false);
                    self.declaration(v);
                }
                Statement::Block(b) => {
                    scopes.push();
                    self.define_push();
                    self.targets.push();
                    let ok = self.block(&b.statements, b.span, scopes, state);
                    self.targets.pop();
                    self.define_pop();
                    scopes.pop();
                    if !ok {
                        return false;
                    }
                }
                Statement::Instruction(i) => {
                    if !self.instruction(i, scopes, state) {
                        return false;
                    }
                    self.branch_target(i, scopes);
                }
                Statement::Pragma(p)
                    if p.strings.iter().any(|x| x.starts_with("used_bytes_mask"))
                        && ptx_isa::insn_gates::gate_version(self.version)
                            < PtxVersion::new(8, 3) =>
                {
                    // measured: `.pragma "used_bytes_mask …"` (Triton) needs PTX 8.3
                    self.diags.push(
                        Diagnostic::error(
                            codes::VERSION_TOO_OLD,
                            p.span,
                            format!("`used_bytes_mask` needs PTX ISA 8.3 or later; the module is PTX {}", self.version),
                            "Feature 'used_bytes_mask' requires PTX ISA .version 8.3 or later",
                        )
                        .with_help("use `.version 8.3` or later, or drop the pragma"),
                    );
                }
                Statement::Pragma(p)
                    if p.strings.iter().any(|x| x == "enable_smem_spilling")
                        && ptx_isa::insn_gates::gate_version(self.version)
                            < PtxVersion::new(8, 7) =>
                {
                    // measured: ptxas 13.5 rejects it at 8.6 and accepts it at 8.7 and 8.8
                    self.diags.push(
                        Diagnostic::error(
                            codes::VERSION_TOO_OLD,
                            p.span,
                            format!("`enable_smem_spilling` needs PTX ISA 8.7 or later; the module is PTX {}", self.version),
                            "Feature 'enable_smem_spilling' requires PTX ISA .version 8.7 or later",
                        )
                        .with_help("use `.version 8.7` or later, or drop the pragma"),
                    );
                }
                Statement::Label(l) => {
                    self.define_label(l.span);
                    self.define_branch_label(l.span);
                }
                Statement::CallPrototype { label, .. } => {
                    self.define_label(label.span);
                    self.define_prototype_label(label.span);
                }
                Statement::TargetList(t) => {
                    self.define_label(t.label.span);
                    self.target_list(t, scopes);
                }
                Statement::Loc(l) if l.inlined_at.is_some() => {
                    let cx = self.cx(&[], true);
                    let list = gate_list(&cx, l.span.start, Feature::LocInlinedAt, "", "", l.span);
                    self.diags.extend(list);
                }
                _ => {}
            }
            if stop.is_some_and(|st| span.end <= st) {
                self.last_end = self.last_end.max(span.end);
            }
        }
        if stop.is_some_and(|st| st < block_span.end) {
            // The syntax error is in this block, after its last statement.
            self.partial_statement(Some(scopes));
            return false;
        }
        true
    }

    /// `.reg .b128` and `.reg .f16x2` declarations.
    pub(super) fn declaration(&mut self, v: &VarDecl) {
        if v.space.value != StateSpace::Reg {
            return;
        }
        let f = match v.ty.value {
            VarType::Scalar(ScalarType::B128) => Feature::RegB128,
            VarType::Scalar(ScalarType::F16x2) => Feature::RegF16x2,
            _ => return,
        };
        let cx = self.cx(&[], true);
        let list = gate_list(&cx, v.span.start, f, "", "", v.ty.span);
        self.diags.extend(list);
    }

    pub(super) fn cx<'b>(&'b self, returned: &'b [bool], kernel: bool) -> Cx<'b> {
        Cx {
            text: self.text,
            sm: self.sm,
            version: self.version,
            in_kernel: kernel,
            returned,
        }
    }

    /// Checks one instruction; false if a fatal finding stops the walk.
    pub(super) fn instruction<'f>(
        &mut self,
        i: &'f Instruction,
        scopes: &Scopes<'f>,
        state: &mut FnState,
    ) -> bool {
        if let (Op::Generic(g), Some(op)) = (&i.op, i.op.opcode()) {
            // Known instructions other than the cache-control ones: only their target and
            // version gates are checked.
            if op == Opcode::Call {
                call(&g.operands, scopes, state);
                return true;
            }
            if family(Some(op), &[], 0).is_none() {
                self.gate_only_guard(i, scopes, state);
                self.insn_gates(i, op, &g.modifiers, scopes);
                if let Some(Operand::Sink(span)) = g.operands.first() {
                    let mods: gates::Words = g.modifiers.iter().map(|m| m.value.as_str()).collect();
                    if !sink_result_allowed(op, &mods) {
                        let name = discard_name(op, &mods);
                        self.fatal(
                            Diagnostic::new(
                                Severity::Fatal,
                                codes::OPERANDS,
                                *span,
                                format!("`{name}` must write its result somewhere"),
                                format!(
                                    "Result discard mode is not allowed for instruction '{name}'"
                                ),
                            )
                            .with_help("write a register; only setp, lop3, atom and mbarrier.arrive take `_` as the result")
                            .at_line_of(i.opcode_span.start.min(i.span.start)),
                        );
                        return false;
                    }
                }
                return true;
            }
        }
        let known = i.op.opcode();
        let opcode = i.op.opcode_word();
        let mods: SmallVec<[(&str, Span); 8]> = match &i.op {
            Op::Generic(g) => g
                .modifiers
                .iter()
                .map(|m| (m.value.as_str(), m.span))
                .collect(),
            op => {
                let q = op.qualifiers().expect("typed instructions have qualifiers");
                q.written.iter().map(|m| (m.value.text(), m.span)).collect()
            }
        };
        let opcode_end = i.opcode_span.start + opcode.len() as u32;
        let joined = joined_count(opcode_end, &mods);
        if let Some(op) = known.filter(|&op| gate_only(op, &mods)) {
            self.gate_only_guard(i, scopes, state);
            if op == Opcode::Cp {
                let start = i.opcode_span.start.min(i.span.start);
                match bulk::misplaced_group_word(&mods, start, i.opcode_span) {
                    Some(d) => self.diags.extend(d),
                    None => {
                        let found =
                            bulk::check_bulk_copy(&mods, i.op.operands(), start, i.opcode_span);
                        if mods.get(1).is_some_and(|m| is(m.0, Flag::Bulk)) {
                            // The operands of the bulk copies are registers and variables:
                            // ptxas names the undeclared ones (at the end of the function).
                            let mut unknown = Unknowns::default();
                            operand_unknowns(scopes, i.op.operands(), &mut unknown);
                            state.unknown.extend(unknown.into_diags());
                        }
                        self.diags.extend(found);
                    }
                }
            }
            self.insn_gates(i, op, &mods, scopes);
            return true;
        }
        let family = family(known, &mods, joined);
        let Some(family) = family else {
            return true;
        };
        let opcode_span = Span::new(
            i.opcode_span.start,
            i.opcode_span.start + opcode.len() as u32,
        );
        let insn = Insn {
            guard: i.guard.as_deref(),
            opcode,
            known,
            opcode_span: i.opcode_span,
            mods: &mods,
            ops: i.op.operands(),
            const_issues: &i.const_issues,
            joined,
            start: opcode_span.start.min(i.span.start),
        };
        let cx = self.cx(&state.returned, state.kernel);
        let out = match family {
            Family::LdSt => ldst::check(&cx, &insn, scopes),
            Family::CpAsync => cpasync::check(&cx, &insn, scopes),
            Family::Group => group::check_group(&cx, &insn, scopes),
            Family::Mbarrier => group::check_mbarrier(&cx, &insn, scopes),
            Family::Policy => policy::check(&cx, &insn, scopes),
            Family::Prefetch => prefetch::check(&cx, &insn, scopes),
            Family::Priority => priority::check(&cx, &insn, scopes),
        };
        self.diags.extend(out.diags);
        if out.fatal {
            self.line_fatal = true;
            return false;
        }
        state.unknown.extend(out.unknown);
        if let Some(bits) = out.narrow_address {
            self.narrow.push((bits, insn.start));
        }
        if self.call_sequence.is_none() {
            self.call_sequence = out.call_sequence;
        }
        true
    }

    /// The guard of an instruction checked only for its gates (`bulk`).
    fn gate_only_guard(&mut self, i: &Instruction, scopes: &Scopes, state: &mut FnState) {
        let Some(guard) = &i.guard else {
            return;
        };
        if scopes.reg(&guard.predicate.name) == Some(ScalarType::Pred) {
            return;
        }
        let start = i.opcode_span.start.min(i.span.start);
        let (expected, unknown) = bulk::guard_messages(Some(guard), scopes, start);
        self.diags.extend(expected);
        state.unknown.extend(unknown);
    }

    /// The statement a syntax error sits in: ptxas has already scanned its modifiers (and
    /// read its guard) when it stops.
    pub(super) fn partial_statement(&mut self, scopes: Option<&Scopes>) {
        if self.partial_done {
            return;
        }
        self.partial_done = true;
        let Some(error_at) = self.stop else {
            return;
        };
        let start = self.last_end as usize;
        let end = (error_at as usize).min(self.text.len());
        if start >= end || !self.text.is_char_boundary(start) || !self.text.is_char_boundary(end) {
            return;
        }
        let region = &self.text[start..end];
        let tokens = ptx_syntax::lexer::lex(region);
        // The statement begins after the last `;` (or block brace, or label) before the error;
        // braces inside the statement are vector operands.
        use ptx_syntax::lexer::Tok as T;
        let mut begin = 0;
        for (i, t) in tokens.iter().enumerate() {
            match t.kind {
                T::Semi => begin = i + 1,
                T::LBrace | T::RBrace if i == begin => begin = i + 1,
                T::Colon if i == begin + 1 && tokens[begin].kind == T::Ident => begin = i + 1,
                // A label's span ends before its `:`.
                T::Colon if i == begin => begin = i + 1,
                _ => {}
            }
        }
        let toks = &tokens[begin..];
        let at = |k: usize| toks.get(k);
        use ptx_syntax::lexer::Tok;
        let mut k = 0;
        let mut guard_name = None;
        if at(k).is_some_and(|t| t.kind == Tok::At) {
            k += 1;
            if at(k).is_some_and(|t| t.kind == Tok::Bang) {
                k += 1;
            }
            match at(k) {
                Some(t) if t.kind == Tok::Ident => {
                    guard_name = Some((t.text, t.span()));
                    k += 1;
                }
                _ => return,
            }
        }
        let Some(op) = at(k).filter(|t| t.kind == Tok::Ident) else {
            return;
        };
        k += 1;
        let shift = |s: Span| Span::new(s.start + start as u32, s.end + start as u32);
        let mut mods: SmallVec<[(&str, Span); 8]> = SmallVec::new();
        while let Some(t) = at(k).filter(|t| t.kind == Tok::Dot) {
            mods.push((t.text, shift(t.span())));
            k += 1;
        }
        // The error is at an empty modifier (`ld.global.b32. …`, `a..b`) if a lone `.` is next.
        let empty_modifier = self.text[end..].starts_with('.') && at(k).is_none();
        let joined = joined_count(shift(op.span()).end, &mods);
        let known = Opcode::parse(op.text);
        let Some(family) = family(known, &mods, joined) else {
            return;
        };
        let insn = Insn {
            guard: None,
            opcode: op.text,
            known,
            opcode_span: shift(op.span()),
            mods: &mods,
            ops: &[],
            const_issues: &[],
            joined,
            start: shift(op.span()).start,
        };
        if let Some((g, span)) = guard_name {
            if scopes.and_then(|s| s.reg(g)) != Some(ScalarType::Pred) {
                self.diags.push(predicate_expected(&insn, shift(span)));
            }
        }
        let cx = self.cx(&[], true);
        let scan = match family {
            Family::LdSt => ldst::scan_messages(&cx, &insn, empty_modifier),
            Family::CpAsync | Family::Policy | Family::Prefetch | Family::Priority
                if empty_modifier =>
            {
                unknown_modifiers(&insn)
            }
            Family::CpAsync => cpasync::scan_messages(&cx, &insn),
            Family::Policy => policy::scan_messages(&cx, &insn),
            Family::Prefetch => prefetch::scan_messages(&cx, &insn),
            Family::Priority => priority::scan_messages(&cx, &insn),
            Family::Group | Family::Mbarrier => Vec::new(),
        };
        self.diags.extend(scan);
    }

    pub(super) fn finish(mut self) -> Vec<Diagnostic> {
        if !self.line_fatal && self.debug && self.debug_sections.is_empty() {
            self.diags.push(
                Diagnostic::error(
                    codes::MISSING_DIRECTIVE,
                    Span::default(),
                    "`.target …, debug` needs the DWARF sections (`.section .debug_info` …) nvcc -G writes",
                    "Debug information not found in presence of .target debug",
                )
                .with_help("remove `debug` from `.target`, or compile with -G to get the debug sections")
                .without_line(),
            );
        }
        if let Some(m) = self.mismatch.take() {
            self.diags.push(m);
        }
        if self.line_fatal || self.diags.iter().any(|d| d.severity.is_error()) {
            return self.diags;
        }
        let driver_warning = |text: String| {
            Diagnostic::warning(
                codes::NARROW_ADDRESS,
                Span::default(),
                "the module's addresses do not match 64-bit compilation",
                text,
            )
            .with_help("write `.address_size 64` and use 64-bit registers for generic and .global addresses")
            .without_line()
        };
        if self.debug && self.address_size == Some(32) {
            self.diags.push(
                Diagnostic::new(
                    Severity::Fatal,
                    codes::ADDRESS_32BIT,
                    Span::default(),
                    "debug compilation needs 32-bit host addressing for `.address_size 32`",
                    " 64 Bit host architecture (--machine) being used must match with .address_size of 32 bits for -g compilation",
                )
                .with_help("write `.address_size 64`")
                .without_line(),
            );
            return self.diags;
        }
        if self.debug {
            let has = |n: &str| self.debug_sections.iter().any(|s| s == n);
            let (abbrev, info) = (has(".debug_abbrev"), has(".debug_info"));
            let mut extra = Vec::new();
            if !abbrev {
                extra.push(driver_warning(" .debug_abbrev section not found".into()));
            }
            if !info {
                extra.push(driver_warning(" .debug_info section not found".into()));
            } else if !abbrev {
                let mut d = driver_warning(
                    "skipping .debug_info section due to missing .debug_abbrev section".into(),
                );
                d.severity = Severity::Info;
                extra.push(d);
            }
            self.diags.extend(extra);
        }
        // `.extern` variables never defined: after the narrow-address warnings.
        // Measured: an unresolved `.visible`/`.weak` function is reported before them.
        if self.narrow.is_empty() {
            if let Some(d) = self.unresolved_function(false) {
                self.diags.push(d);
                return self.diags;
            }
        }
        let unresolved = self.unresolved_variables();
        if unresolved
            .last()
            .is_some_and(|d| d.severity == Severity::Fatal)
            && self.narrow.is_empty()
        {
            // An unsized `.extern` array never defined stops ptxas.
            self.diags.extend(unresolved);
            return self.diags;
        }
        // Built only when a narrow-address warning needs a line number (a pass over the whole
        // text, ~1.5 % of checking a large module).
        let index = std::cell::OnceCell::new();
        let fatal32 = |sm: u32| {
            let ptxas = if sm >= 90 {
                " 32-Bit ABI (--machine 32 or 32-Bit addressing) is not supported on sm_90 or higher architectures."
            } else {
                " 32-Bit compilation is no longer supported"
            };
            Diagnostic::new(
                Severity::Fatal,
                codes::ADDRESS_32BIT,
                Span::default(),
                "a 32-bit generic or .global address makes ptxas compile for 32-bit addressing, which it no longer supports",
                ptxas,
            )
            .with_help("use 64-bit registers for generic and .global addresses")
            .without_line()
        };
        let narrow_warning = |bits: u32, at: u32, size: u32| {
            let line = index
                .get_or_init(|| ptx_syntax::LineIndex::new(self.text))
                .line(at);
            Diagnostic::warning(
                codes::NARROW_ADDRESS,
                Span::new(at, at),
                format!("this address is a {bits}-bit register but the module uses {size}-bit addresses"),
                format!("Program uses {bits}-bit address on line '{line}' which is conflicting with .address_size {size}"),
            )
            .with_help("use a 64-bit register for generic and .global addresses (cvt.u64 first)")
            .without_line()
        };
        match self.address_size {
            Some(32) => {
                for &(bits, at) in &self.narrow {
                    if bits == 16 {
                        self.diags.push(narrow_warning(bits, at, 32));
                    }
                }
                self.diags.push(driver_warning(
                    " 64 Bit host architecture (--machine) being used mismatches with .address_size of 32 bits".into(),
                ));
                self.diags.extend(unresolved);
                self.diags.push(fatal32(self.sm));
                return self.diags;
            }
            Some(_) => {
                for &(bits, at) in &self.narrow {
                    self.diags.push(narrow_warning(bits, at, 64));
                }
                self.diags.extend(unresolved);
                let has32 = self.narrow.iter().any(|&(b, _)| b == 32);
                let has16 = self.narrow.iter().any(|&(b, _)| b == 16);
                if has32 && !has16 {
                    let at = self
                        .narrow
                        .iter()
                        .find(|&&(b, _)| b == 32)
                        .map_or(0, |&(_, a)| a);
                    let mut d = fatal32(self.sm);
                    d.span = Span::new(at, at);
                    self.diags.push(d);
                    return self.diags;
                }
            }
            None => {
                // No `.address_size`: the narrowest address register sets it.
                let narrowest = self.narrow.iter().map(|&(b, _)| b).min();
                if let Some(bits) = narrowest {
                    self.diags.push(driver_warning(format!(
                        " 64 Bit host architecture (--machine) being used mismatches with .address_size of {bits} bits"
                    )));
                }
                self.diags.extend(unresolved);
                if let Some(bits) = narrowest {
                    if bits == 32 {
                        self.diags.push(fatal32(self.sm));
                        return self.diags;
                    }
                }
            }
        }
        // Measured: the first function declared but never defined stops ptxas here.
        if let Some(d) = self.unresolved_function(true) {
            self.diags.push(d);
            return self.diags;
        }
        // The call-sequence check runs after the address-width one.
        if let Some(d) = self.call_sequence.take() {
            self.diags.push(d);
        }
        self.diags
    }
}
