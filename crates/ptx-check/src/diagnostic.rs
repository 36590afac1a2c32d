//! One finding about a module: where, what (ours and ptxas's wording), and how to fix it.

use crate::SourceFile;
use ptx_syntax::{ParseError, Span};
use serde::Serialize;

/// How serious a finding is. `Fatal` is a syntax error (ptxas stops at the first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
    Fatal,
}

impl Severity {
    pub fn is_error(self) -> bool {
        self >= Severity::Error
    }

    /// The word ptxas prints, padded as ptxas pads it (`error   :`).
    pub fn ptxas_word(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error  ",
            Severity::Fatal => "fatal  ",
        }
    }
}

/// A finding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Stable code, e.g. `E0001` for syntax errors; listed in docs/diagnostics.md.
    pub code: &'static str,
    #[serde(skip)]
    pub span: Span,
    /// Our message.
    pub message: String,
    /// ptxas's message for the same finding, word for word (used by `--format ptxas`).
    pub ptxas: String,
    /// How to fix it: the minimum target/version, or the legal alternatives.
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(
        code: &'static str,
        span: Span,
        message: impl Into<String>,
        ptxas: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code,
            span,
            message: message.into(),
            ptxas: ptxas.into(),
            help: None,
        }
    }

    pub fn warning(
        code: &'static str,
        span: Span,
        message: impl Into<String>,
        ptxas: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, span, message, ptxas)
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// A syntax error. ptxas words every syntax error as `Parsing error near 'TOKEN': syntax
    /// error`, naming the token where it stopped.
    pub fn from_parse_error(e: &ParseError, file: Option<&SourceFile>) -> Self {
        let near = file
            .and_then(|f| f.text.get(e.span.range()))
            .map(|t| t.chars().take(60).collect::<String>())
            .filter(|t| !t.is_empty());
        let ptxas = match near {
            Some(t) => format!("Parsing error near '{t}': syntax error"),
            None => "Parsing error: syntax error".to_string(),
        };
        Diagnostic {
            severity: Severity::Fatal,
            code: "E0001",
            span: e.span,
            message: e.message.clone(),
            ptxas,
            help: e.help.clone(),
        }
    }
}
