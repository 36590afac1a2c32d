//! The header directives (`.version`, `.target`, `.address_size`, debug sections):
//! docs/ptxas-rules.md §2, §2.5.

use super::*;

impl Checker<'_> {
    /// `.version` and `.target`: the values to check against, or a fatal finding
    /// (docs/ptxas-rules.md §2, §2.5). ptxas wants `.version` first, then `.target` (one or
    /// more directives; the last architecture named counts), then optionally
    /// `.address_size`; a header directive anywhere later is a syntax error (see
    /// [`misplaced_directive`]).
    pub(super) fn directives(&mut self, items: &[Item]) -> bool {
        let missing = |what: &str, span: Span| {
            let mut d = Diagnostic::new(
                Severity::Fatal,
                codes::MISSING_DIRECTIVE,
                span,
                format!("the module does not start with `{what}`"),
                format!("Missing {what} directive at start of file '«file»'"),
            )
            .with_help("start the file with `.version X.Y`, then `.target sm_XX`");
            if items.is_empty() {
                d.ptxas_line = crate::PtxasLine::None;
            }
            d
        };
        let end_span = Span::new(self.text.len() as u32, self.text.len() as u32);
        // `.version` first
        let version_item = match items.first() {
            Some(Item::Version(v)) => Some(*v),
            other if self.options.ptx_version.is_none() => {
                // ptxas notices the missing `.version` after a leading `.target` only at the
                // next statement (it reads on for more target names).
                let at = match other {
                    Some(Item::Target(_)) => items.get(1),
                    o => o,
                };
                let span = at.map(item_span).unwrap_or(end_span);
                self.fatal(missing(".version", span));
                return false;
            }
            _ => None,
        };
        let version = match (self.options.ptx_version, version_item) {
            (Some(v), _) => (v, v.to_string(), version_item.map(|v| v.span)),
            (None, Some(v)) => (
                v.value.normalized(),
                self.src(v.span)
                    .trim_start_matches(".version")
                    .trim()
                    .to_string(),
                Some(v.span),
            ),
            (None, None) => unreachable!("checked above"),
        };
        if !version.0.is_supported() {
            let span = version.2.unwrap_or_default();
            let line = if version.2.is_some() {
                crate::PtxasLine::Span
            } else {
                crate::PtxasLine::None
            };
            let mut d = Diagnostic::new(
                Severity::Fatal,
                codes::UNSUPPORTED_VERSION,
                span,
                format!(
                    "PTX ISA {} does not exist or is newer than ptxas 13.5 knows",
                    version.1
                ),
                format!(
                    "Unsupported .version {}; current version is '{}'",
                    version.1,
                    PtxVersion::NEWEST
                ),
            )
            .with_help("ptxas 13.5 accepts 6.0–6.5, 7.0–7.8, 8.0–8.8 and 9.0–9.5");
            d.ptxas_line = line;
            self.fatal(d);
            return false;
        }
        // then one or more `.target` directives
        let first_target = usize::from(version_item.is_some());
        let targets: Vec<&ptx_syntax::ast::TargetDirective> = items
            [first_target.min(items.len())..]
            .iter()
            .map_while(|it| match it {
                Item::Target(t) => Some(t),
                _ => None,
            })
            .collect();
        let header_end = first_target + targets.len();
        if targets.is_empty() && self.options.target.is_none() {
            let span = items.get(first_target).map(item_span).unwrap_or(end_span);
            self.fatal(missing(".target", span));
            return false;
        }
        // the entries: architectures (the last one counts) and options
        let mut arch: Option<(SmTarget, String, Span)> = None;
        // The newest `.version` any named architecture needs (ptxas checks all of them and
        // names the last one).
        let mut needs_version: Option<PtxVersion> = None;
        // The first entry must name the architecture.
        let arch_first = targets
            .first()
            .and_then(|t| t.entries.first())
            .is_none_or(|e| {
                !matches!(
                    e.value.as_str(),
                    "texmode_unified" | "texmode_independent" | "debug" | "map_f64_to_f32"
                )
            });
        for t in targets.iter().filter(|_| arch_first) {
            for e in &t.entries {
                let text = e.value.as_str();
                match text {
                    "texmode_unified" | "texmode_independent" => {}
                    "debug" => self.debug = true,
                    "map_f64_to_f32" => self.diags.push(
                        Diagnostic::error(
                            codes::UNKNOWN_TARGET,
                            e.span,
                            "`map_f64_to_f32` is for targets below sm_13",
                            "Directive map_f64_to_f32 is not supported with SM 1.3 or higher",
                        )
                        .with_help("remove `map_f64_to_f32` from `.target`")
                        .at_line_of(t.span.start),
                    ),
                    _ => match SmTarget::parse(text) {
                        Ok(a) if a.min_version().is_some() => {
                            arch = Some((a, text.to_string(), t.span));
                            needs_version = needs_version.max(a.min_version());
                        }
                        _ => {
                            self.fatal(
                                Diagnostic::new(
                                    Severity::Fatal,
                                    codes::UNKNOWN_TARGET,
                                    e.span,
                                    format!("`{text}` is not a target ptxas 13.5 knows"),
                                    format!("Unsupported .target '{text}'"),
                                )
                                .with_help("targets run from sm_50 to sm_121f; the options are texmode_unified, texmode_independent, debug and map_f64_to_f32 (see docs/features.md)")
                                .at_line_of(t.span.start),
                            );
                            return false;
                        }
                    },
                }
            }
        }
        let (target, target_text, target_span) = match (self.options.target, arch) {
            (Some(t), written) => (t, t.to_string(), written.map(|w| w.2)),
            (None, Some((a, text, span))) => (a, text, Some(span)),
            (None, None) => {
                let span = targets.last().map_or(end_span, |t| t.span);
                self.fatal(
                    Diagnostic::new(
                        Severity::Fatal,
                        codes::MISSING_DIRECTIVE,
                        span,
                        "`.target` names no architecture",
                        "Target architecture not defined at start of file '«file»'",
                    )
                    .with_help("name the target first: `.target sm_80, texmode_independent`"),
                );
                return false;
            }
        };
        let Some(min_version) = target.min_version() else {
            let mut d = Diagnostic::new(
                Severity::Fatal,
                codes::UNKNOWN_TARGET,
                target_span.unwrap_or_default(),
                format!("`{target_text}` is not a target ptxas 13.5 knows"),
                format!("Unsupported .target '{target_text}'"),
            )
            .with_help("targets run from sm_50 to sm_121f; see docs/features.md");
            if target_span.is_none() {
                d.ptxas_line = crate::PtxasLine::None;
            }
            self.fatal(d);
            return false;
        };
        self.sm = target.number;
        self.target = target;
        self.version = version.0;
        let min_version = if self.options.target.is_some() {
            min_version
        } else {
            needs_version.map_or(min_version, |v| v.max(min_version))
        };
        // ptxas compares the version as written with the target's minimum: `.version 8.10`
        // (PTX 9.0 everywhere else) does not support sm_110f (9.0), since 8.10 < 9.0
        // (measured, tests/parity/gen_gaps.py `target` cases).
        let written = match (self.options.ptx_version, version_item) {
            (None, Some(v)) => v.value,
            _ => version.0,
        };
        self.version_target_mismatch(written, min_version, &target_text, target_span, &version.1);
        // then optionally `.address_size` (32 or 64, as any integer literal)
        self.address_size_directive(items, header_end);
        true
    }

    /// `.version` (as written) below the target's minimum: kept as the module's mismatch.
    fn version_target_mismatch(
        &mut self,
        written: PtxVersion,
        min_version: PtxVersion,
        target_text: &str,
        target_span: Option<Span>,
        version_text: &str,
    ) {
        if written < min_version {
            let span = target_span.unwrap_or_default();
            let mut d = Diagnostic::error(
                codes::VERSION_TARGET,
                span,
                format!(
                    "{target_text} needs PTX ISA {min_version} or later; the module is PTX {}",
                    version_text
                ),
                format!(
                    "PTX .version {} does not support .target {target_text}",
                    version_text
                ),
            )
            .with_help(format!(
                "use `.version {min_version}` or later, or an older target"
            ));
            if target_span.is_none() {
                d.ptxas_line = crate::PtxasLine::None;
            }
            self.mismatch = Some(d);
        }
    }

    /// `.address_size` after the header, if written: 32 or 64, as any integer literal.
    fn address_size_directive(&mut self, items: &[Item], header_end: usize) {
        if let Some(Item::AddressSize(a)) = items.get(header_end) {
            let text = self
                .src(a.span)
                .trim_start_matches(".address_size")
                .trim()
                .to_string();
            match int_literal_value(&text) {
                Some(32) => self.address_size = Some(32),
                Some(64) => self.address_size = Some(64),
                _ => {
                    self.address_size = Some(64);
                    self.diags.push(
                        Diagnostic::error(
                            codes::BAD_ADDRESS_SIZE,
                            a.span,
                            format!("`.address_size {text}`: the address size is 32 or 64"),
                            "Illegal value for .address_size directive (must be 32 or 64)",
                        )
                        .with_help("write `.address_size 64`"),
                    );
                }
            }
        }
    }

    /// Records a `.section .debug_*` (ptxas looks for them once the whole module is read).
    pub(super) fn note_debug_section(&mut self, item: &Item) {
        if let Item::Section(sec) = item {
            if sec.name.value.starts_with(".debug_") {
                self.debug_sections.push(sec.name.value.to_string());
            }
        }
    }
}

/// The value of an integer literal as ptxas reads directive arguments (C syntax: `0x…`,
/// `0b…`, a leading `0` for octal, an optional `U`).
pub(super) fn int_literal_value(text: &str) -> Option<u64> {
    let t = text.strip_suffix('U').unwrap_or(text);
    let (digits, radix) = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        (h, 16)
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        (b, 2)
    } else if t.len() > 1 && t.starts_with('0') {
        (&t[1..], 8)
    } else {
        (t, 10)
    };
    u64::from_str_radix(digits, radix).ok()
}

/// A `.version`, `.target` or `.address_size` directive after the header (`.version`,
/// `.target`…, `.address_size`): ptxas's grammar has no place for it, so it is a syntax error
/// there (`Parsing error near '.version 7.0'`, `near '.target'`).
pub fn misplaced_directive(module: &Module) -> Option<ptx_syntax::ParseError> {
    let items = &module.items;
    let mut k = 0;
    if matches!(items.first(), Some(Item::Version(_))) {
        k = 1;
    }
    while matches!(items.get(k), Some(Item::Target(_))) {
        k += 1;
    }
    if matches!(items.get(k), Some(Item::AddressSize(_))) {
        k += 1;
    }
    items[k.min(items.len())..].iter().find_map(|it| {
        let (span, what) = match it {
            Item::Version(v) => (v.span, ".version"),
            Item::Target(t) => (Span::new(t.span.start, t.span.start + 7), ".target"),
            Item::AddressSize(a) => (Span::new(a.span.start, a.span.start + 13), ".address_size"),
            _ => return None,
        };
        Some(ptx_syntax::ParseError {
            span,
            message: format!("`{what}` belongs at the start of the module (`.version`, `.target`, `.address_size`)"),
            help: Some("write each header directive once, before everything else".into()),
            ptxas: None,
        })
    })
}
