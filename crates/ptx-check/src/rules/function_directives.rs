//! The gates of a function header's directives (`.maxclusterrank 8`, `.noreturn`, …), measured
//! with ptxas 13.5 at PTX 6.0 … 9.0 and sm_75 … sm_90 (tests/parity/gen_survey.py; which
//! directive may follow `.entry` and which `.func` is a syntax rule, in ptx-syntax):
//!
//! | directive | PTX | target |
//! |---|---|---|
//! | `.maxclusterrank`, `.reqnctapercluster`, `.explicitcluster` | 7.8 | sm_90 |
//! | `.blocksareclusters` | 9.0 | sm_90 |
//! | `.abi_preserve`, `.abi_preserve_control` | 9.0 | sm_80 |
//! | `.noreturn` | 6.4 | — |
//!
//! ptxas reports the version message, then the target one, at the directive. `.maxnctapersm`
//! is always an error (`Deprecated feature: … not supported as of PTX version 2.1`); it and
//! `.minnctapersm` without `.maxntid` or `.reqntid` get the warning `.minnctapersm is ignored
//! when neither .maxntid nor .reqntid is specified.`

use super::*;
use ptx_isa::TuningDirective::{self as D, *};
use ptx_syntax::ast::FunctionDirective;

/// (directive, PTX minimum, target minimum) of the gated directives.
const GATES: &[(D, (u32, u32), Option<u32>)] = &[
    (Maxclusterrank, (7, 8), Some(90)),
    (Reqnctapercluster, (7, 8), Some(90)),
    (Explicitcluster, (7, 8), Some(90)),
    (Blocksareclusters, (9, 0), Some(90)),
    (AbiPreserve, (9, 0), Some(80)),
    (AbiPreserveControl, (9, 0), Some(80)),
    (Noreturn, (6, 4), None),
];

impl Checker<'_> {
    /// Reports the header directives of `f` that its module's version or target lacks.
    pub(super) fn function_directives(&mut self, f: &Function) {
        let version = ptx_isa::insn_gates::gate_version(self.version);
        let names = || {
            f.directives.iter().filter_map(|d| match d {
                FunctionDirective::Tuning { name, .. } => D::from_token(&name.value),
                FunctionDirective::Pragma(_) => None,
            })
        };
        let sized = names().any(|n| matches!(n, Maxntid | Reqntid));
        for d in &f.directives {
            let FunctionDirective::Tuning { name, .. } = d else {
                continue;
            };
            let word = name.value.as_str();
            let directive = D::from_token(word);
            if let Some(&(_, (major, minor), sm)) = GATES.iter().find(|g| Some(g.0) == directive) {
                if version < PtxVersion::new(major, minor) {
                    self.diags.push(
                        Diagnostic::error(
                            codes::VERSION_TOO_OLD,
                            name.span,
                            format!("`{word}` needs PTX ISA {major}.{minor} or later; the module is PTX {}", self.version),
                            format!("Feature '{word}' requires PTX ISA .version {major}.{minor} or later"),
                        )
                        .with_help(format!("use `.version {major}.{minor}` or later")),
                    );
                }
                if let Some(sm) = sm.filter(|&sm| self.sm < sm) {
                    self.diags.push(Diagnostic::error(
                        codes::TARGET_TOO_OLD,
                        name.span,
                        format!("`{word}` needs sm_{sm} or later"),
                        format!("Feature '{word}' requires .target sm_{sm} or higher"),
                    ));
                }
            }
            if directive == Some(Maxnctapersm) {
                self.diags.push(
                    Diagnostic::error(
                        codes::DEPRECATED,
                        name.span,
                        "`.maxnctapersm` was removed in PTX 2.1".to_string(),
                        "Deprecated feature: '.maxnctapersm directive' not supported as of PTX version 2.1",
                    )
                    .with_help("write `.minnctapersm`"),
                );
            }
            if !sized && matches!(directive, Some(Maxnctapersm | Minnctapersm)) {
                self.diags.push(Diagnostic::warning(
                    codes::IGNORED_DIRECTIVE,
                    name.span,
                    "`.minnctapersm` has no effect without `.maxntid` or `.reqntid`".to_string(),
                    ".minnctapersm is ignored when neither .maxntid nor .reqntid is specified.",
                ));
            }
        }
    }
}
