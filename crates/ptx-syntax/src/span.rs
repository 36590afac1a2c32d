//! Byte spans into the source text and their line:column form.

use core::fmt;
use core::ops::Range;

/// A byte range of the source text.
///
/// Spans never take part in AST equality (`PartialEq` is always true): two parses of the same
/// module text compare equal wherever that text sits, which is what the printer round-trip
/// property needs. Use [`Span::same_range`] to compare positions.
#[derive(Clone, Copy, Default)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub const fn new(start: u32, end: u32) -> Self {
        Span { start, end }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }

    pub fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }

    pub fn same_range(self, other: Span) -> bool {
        self.start == other.start && self.end == other.end
    }

    pub fn len(self) -> u32 {
        self.end - self.start
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
}

impl PartialEq for Span {
    fn eq(&self, _: &Span) -> bool {
        true
    }
}

impl Eq for Span {}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// A value with the span it was parsed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

impl<T> Spanned<T> {
    pub const fn new(value: T, span: Span) -> Self {
        Spanned { value, span }
    }
}

impl<T> core::ops::Deref for Spanned<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

/// 1-based line and column (column counted in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// Maps byte offsets to lines and columns.
#[derive(Debug, Clone)]
pub struct LineIndex {
    line_starts: Vec<u32>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(memchr_newlines(text.as_bytes()));
        LineIndex { line_starts }
    }

    /// 1-based line of a byte offset.
    pub fn line(&self, offset: u32) -> u32 {
        match self.line_starts.binary_search(&offset) {
            Ok(i) => i as u32 + 1,
            Err(i) => i as u32,
        }
    }

    /// Byte range of a 1-based line, without its newline.
    pub fn line_range(&self, line: u32, text: &str) -> Range<usize> {
        let i = (line.max(1) - 1) as usize;
        let start = *self.line_starts.get(i).unwrap_or(&(text.len() as u32)) as usize;
        let end = self
            .line_starts
            .get(i + 1)
            .map(|&e| e as usize - 1)
            .unwrap_or(text.len());
        let end = end.max(start);
        let line = &text[start..end];
        start..start + line.strip_suffix('\r').map_or(line.len(), str::len)
    }

    /// Line and column of a byte offset into `text`.
    pub fn line_col(&self, offset: u32, text: &str) -> LineCol {
        let line = self.line(offset);
        let start = self.line_starts[(line - 1) as usize] as usize;
        let offset = (offset as usize).min(text.len());
        let col = text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count())
            + 1;
        LineCol {
            line,
            col: col as u32,
        }
    }
}

fn memchr_newlines(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    memchr::memchr_iter(b'\n', bytes).map(|i| i as u32 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_of_offsets() {
        let text = "ab\ncd\r\n\nxyz";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_col(0, text), LineCol { line: 1, col: 1 });
        assert_eq!(idx.line_col(4, text), LineCol { line: 2, col: 2 });
        assert_eq!(idx.line_col(8, text), LineCol { line: 4, col: 1 });
        assert_eq!(&text[idx.line_range(2, text)], "cd");
        assert_eq!(&text[idx.line_range(3, text)], "");
        assert_eq!(&text[idx.line_range(4, text)], "xyz");
    }
}
