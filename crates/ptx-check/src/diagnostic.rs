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
            .and_then(|f| {
                let t = f.text.get(e.span.range())?;
                Some(instruction_name(
                    t,
                    f.text.get(e.span.end as usize..).unwrap_or(""),
                ))
            })
            .map(|t| t.chars().take(60).collect::<String>())
            .filter(|t| !t.is_empty());
        let ptxas = match (&e.ptxas, near) {
            (Some(p), _) => p.clone(),
            (None, Some(t)) => format!("Parsing error near '{t}': syntax error"),
            (None, None) => "Parsing error: syntax error".to_string(),
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

/// ptxas reads an instruction name with its kind words as one token (`cp.async.wait_all`,
/// `createpolicy.fractional`), and names that token in syntax errors.
fn instruction_name(token: &str, after: &str) -> String {
    let words: Vec<&str> = after
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == ':'))
        .next()
        .unwrap_or("")
        .split('.')
        .skip(1)
        .collect();
    let take = match (token, words.as_slice()) {
        ("cp", ["async", "bulk", w, ..]) if w.ends_with("_group") => 3,
        ("cp", ["async", "mbarrier", "arrive", ..]) => 3,
        ("cp", ["async", "commit_group" | "wait_group" | "wait_all", ..]) => 2,
        ("cp", ["async", ..]) => 1,
        ("createpolicy", ["fractional" | "range" | "cvt", ..]) => 1,
        _ => 0,
    };
    let mut name = token.to_string();
    for w in words.iter().take(take) {
        name.push('.');
        name.push_str(w);
    }
    name
}

#[cfg(test)]
mod tests {
    use super::instruction_name;

    #[test]
    fn ptxas_instruction_tokens() {
        assert_eq!(
            instruction_name("cp", ".async.ca.shared.global [a]"),
            "cp.async"
        );
        assert_eq!(
            instruction_name("cp", ".async.wait_all;"),
            "cp.async.wait_all"
        );
        assert_eq!(
            instruction_name("cp", ".async.bulk.commit_group;"),
            "cp.async.bulk.commit_group"
        );
        assert_eq!(
            instruction_name("cp", ".async.mbarrier.arrive.b64 [m];"),
            "cp.async.mbarrier.arrive"
        );
        assert_eq!(
            instruction_name("createpolicy", ".fractional.L2::evict_last.b64 %rd1;"),
            "createpolicy.fractional"
        );
        assert_eq!(instruction_name("ld", ".global.b32 %r1, [%rd1];"), "ld");
        assert_eq!(instruction_name("-", "8];"), "-");
    }
}
