//! One finding about a module: where, what (ours and ptxas's wording), and how to fix it.

use crate::SourceFile;
use ptx_syntax::{ParseError, Span};
use serde::Serialize;

/// How serious a finding is. `Fatal` stops ptxas (a syntax error, or a check after which it
/// reads no further); `Info` and `Warning` never fail a module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
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
            Severity::Info => "info   ",
            Severity::Warning => "warning",
            Severity::Error => "error  ",
            Severity::Fatal => "fatal  ",
        }
    }
}

/// Which line ptxas names for a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PtxasLine {
    /// The line where [`Diagnostic::span`] starts.
    #[default]
    Span,
    /// The line of this byte offset (an instruction's findings all name the instruction's
    /// first line, whatever part of it they underline).
    At(u32),
    /// No line: a message of the assembler driver (`ptxas warning : ...`).
    None,
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
    /// The line ptxas reports the finding at.
    #[serde(skip)]
    pub ptxas_line: PtxasLine,
}

impl Diagnostic {
    pub fn new(
        severity: Severity,
        code: &'static str,
        span: Span,
        message: impl Into<String>,
        ptxas: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity,
            code,
            span,
            message: message.into(),
            ptxas: ptxas.into(),
            help: None,
            ptxas_line: PtxasLine::Span,
        }
    }

    pub fn error(
        code: &'static str,
        span: Span,
        message: impl Into<String>,
        ptxas: impl Into<String>,
    ) -> Self {
        Diagnostic::new(Severity::Error, code, span, message, ptxas)
    }

    pub fn warning(
        code: &'static str,
        span: Span,
        message: impl Into<String>,
        ptxas: impl Into<String>,
    ) -> Self {
        Diagnostic::new(Severity::Warning, code, span, message, ptxas)
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// Reported by ptxas at the line of `offset`.
    pub fn at_line_of(mut self, offset: u32) -> Self {
        self.ptxas_line = PtxasLine::At(offset);
        self
    }

    /// Reported by ptxas without a file and line.
    pub fn without_line(mut self) -> Self {
        self.ptxas_line = PtxasLine::None;
        self
    }

    /// The byte offset whose line ptxas names, if any.
    pub fn ptxas_offset(&self) -> Option<u32> {
        match self.ptxas_line {
            PtxasLine::Span => Some(self.span.start),
            PtxasLine::At(o) => Some(o),
            PtxasLine::None => None,
        }
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
            code: crate::codes::SYNTAX,
            span: e.span,
            message: e.message.clone(),
            ptxas,
            help: e.help.clone(),
            ptxas_line: PtxasLine::Span,
        }
    }
}
