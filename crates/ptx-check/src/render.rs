//! Renders diagnostics three ways: rich (source excerpt with a caret, via ariadne), ptxas's
//! exact line format, and JSON.

use crate::{CheckReport, Diagnostic, Severity, SourceFile};
use ariadne::{Config, IndexType, Label, Report, ReportKind, Source};
use serde::Serialize;

/// Lines longer than this are not excerpted (a 100 MB line would drown the message).
const MAX_EXCERPT_LINE: usize = 4096;

/// Rich rendering: `Error[E0001]: message`, then `file:line:col`, the source line with the
/// span underlined, and the help line.
pub fn rich(file: &SourceFile, diagnostics: &[Diagnostic], color: bool) -> String {
    let mut out = Vec::new();
    if diagnostics.is_empty() {
        return String::new();
    }
    // ariadne indexes the lines once; each report then looks its line up.
    let source = Source::from(file.text.as_str());
    // Source order reads best here (ptxas prints `Unknown symbol` at the end of a function).
    let mut sorted: Vec<&Diagnostic> = diagnostics.iter().collect();
    sorted.sort_by_key(|d| d.span.start);
    for d in sorted {
        rich_one(file, &source, d, color, &mut out);
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn rich_one(
    file: &SourceFile,
    source: &Source<&str>,
    d: &Diagnostic,
    color: bool,
    out: &mut Vec<u8>,
) {
    let start = (d.span.start as usize).min(file.text.len()) as u32;
    let lc = file.lines().line_col(start, &file.text);
    let line_range = file.lines().line_range(lc.line, &file.text);
    let kind = match d.severity {
        Severity::Info => ReportKind::Advice,
        Severity::Warning => ReportKind::Warning,
        _ => ReportKind::Error,
    };
    if line_range.len() > MAX_EXCERPT_LINE {
        // Too long to show: name the place and say why there is no excerpt.
        let word = match d.severity {
            Severity::Info => "Advice",
            Severity::Warning => "Warning",
            _ => "Error",
        };
        out.extend_from_slice(
            format!(
                "[{}] {word}: {}\n   ╭─[ {}:{}:{} ]\n   │ (line {} is {} bytes long; not shown)\n",
                d.code,
                d.message,
                file.name,
                lc.line,
                lc.col,
                lc.line,
                line_range.len()
            )
            .as_bytes(),
        );
        if let Some(h) = &d.help {
            out.extend_from_slice(format!("   │ Help: {h}\n").as_bytes());
        }
        out.extend_from_slice("───╯\n".as_bytes());
        return;
    }
    // Underline at most to the end of the first line of the span, on character boundaries
    // (a span may start inside a replaced invalid byte sequence).
    let start = floor_char_boundary(&file.text, start as usize);
    let end = ceil_char_boundary(
        &file.text,
        (d.span.end as usize).clamp(start, line_range.end.max(start)),
    );
    let name = file.name.as_str();
    let mut report = Report::build(kind, (name, start..end))
        .with_code(d.code)
        .with_message(&d.message)
        .with_config(
            Config::default()
                .with_color(color)
                .with_index_type(IndexType::Byte),
        )
        .with_label(Label::new((name, start..end)).with_message(label_text(d)));
    if let Some(h) = &d.help {
        report = report.with_help(h);
    }
    // Writing to a Vec cannot fail.
    let _ = report.finish().write((name, source), &mut *out);
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

fn label_text(d: &Diagnostic) -> &str {
    match d.severity {
        Severity::Fatal => "here",
        _ => &d.message,
    }
}

/// ptxas's format: `ptxas FILE, line N; error   : MESSAGE`, one line per finding in the order
/// given (ptxas's), `ptxas warning : ...` for the driver's messages that name no line, and the
/// closing `ptxas fatal   : Ptx assembly aborted due to errors` when a line-numbered finding is
/// an error (the driver's own fatal messages end the output by themselves, as in ptxas).
pub fn ptxas(file: &SourceFile, diagnostics: &[Diagnostic]) -> String {
    let mut out = String::new();
    let mut abort = false;
    for d in diagnostics {
        let text = d.ptxas.replace("«file»", &file.name);
        match d.ptxas_offset() {
            Some(at) => {
                let line = file.lines().line(at.min(file.text.len() as u32));
                out.push_str(&format!(
                    "ptxas {}, line {}; {} : {}\n",
                    file.name,
                    line,
                    d.severity.ptxas_word(),
                    text
                ));
                abort |= d.severity.is_error();
            }
            None => {
                out.push_str(&format!("ptxas {} : {}\n", d.severity.ptxas_word(), text));
                // A driver-level error (not a fatal) is followed by the abort line too.
                abort |= d.severity == Severity::Error;
            }
        }
    }
    if abort {
        out.push_str("ptxas fatal   : Ptx assembly aborted due to errors\n");
    }
    out
}

/// The JSON document `ptxsim check --format json` prints (schema `ptxsim-check/1`).
#[derive(Debug, Serialize)]
pub struct JsonDocument<'a> {
    pub schema: &'static str,
    pub files: Vec<JsonFile<'a>>,
}

#[derive(Debug, Serialize)]
pub struct JsonFile<'a> {
    pub file: &'a str,
    pub errors: usize,
    pub warnings: usize,
    pub diagnostics: Vec<JsonDiagnostic<'a>>,
}

#[derive(Debug, Serialize)]
pub struct JsonDiagnostic<'a> {
    pub severity: Severity,
    pub code: &'a str,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub message: &'a str,
    pub ptxas: String,
    pub help: Option<&'a str>,
}

/// Builds the JSON document for several checked files.
pub fn json<'a>(reports: &'a [CheckReport]) -> JsonDocument<'a> {
    JsonDocument {
        schema: "ptxsim-check/1",
        files: reports
            .iter()
            .map(|r| {
                let f = &r.file;
                let clamp = |o: u32| o.min(f.text.len() as u32);
                JsonFile {
                    file: &f.name,
                    errors: r
                        .diagnostics
                        .iter()
                        .filter(|d| d.severity.is_error())
                        .count(),
                    warnings: r
                        .diagnostics
                        .iter()
                        .filter(|d| d.severity == Severity::Warning)
                        .count(),
                    diagnostics: r
                        .diagnostics
                        .iter()
                        .map(|d| {
                            let s = f.lines().line_col(clamp(d.span.start), &f.text);
                            let e = f.lines().line_col(clamp(d.span.end), &f.text);
                            JsonDiagnostic {
                                severity: d.severity,
                                code: d.code,
                                line: s.line,
                                column: s.col,
                                end_line: e.line,
                                end_column: e.col,
                                message: &d.message,
                                ptxas: d.ptxas.replace("«file»", &f.name),
                                help: d.help.as_deref(),
                            }
                        })
                        .collect(),
                }
            })
            .collect(),
    }
}
