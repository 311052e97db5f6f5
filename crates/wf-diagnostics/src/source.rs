//! Source files, byte spans and line/column lookup.

use std::sync::OnceLock;

use serde::Serialize;

/// Identifies one source file inside a [`Sources`] set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct FileId(pub u32);

/// A half-open byte range `start..end` into one file's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize)]
pub struct Span {
    /// First byte of the range.
    pub start: u32,
    /// One past the last byte of the range.
    pub end: u32,
}

impl Span {
    /// Builds a span from byte offsets.
    pub fn new(start: usize, end: usize) -> Self {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// The span as a `usize` range, for slicing source text.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    /// Number of bytes covered.
    pub fn len(self) -> u32 {
        self.end - self.start
    }

    /// Whether the span covers no bytes.
    pub fn is_empty(self) -> bool {
        self.start == self.end
    }

    /// Attaches a file to this span.
    pub fn in_file(self, file: FileId) -> FileSpan {
        FileSpan { file, span: self }
    }
}

impl From<std::ops::Range<usize>> for Span {
    fn from(range: std::ops::Range<usize>) -> Self {
        Span::new(range.start, range.end)
    }
}

/// A span together with the file it points into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct FileSpan {
    /// The file.
    pub file: FileId,
    /// The byte range within it.
    pub span: Span,
}

/// A 1-based line and column (column counted in Unicode scalar values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LineCol {
    /// 1-based line number.
    pub line: u32,
    /// 1-based column number, in characters.
    pub column: u32,
}

/// One source file: its display path, its text and a line index.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The path as shown to users (relative when the user gave a relative path).
    pub path: String,
    /// The full text.
    pub text: String,
    /// The line starts, built on first use: most files of a large check
    /// have no diagnostic, so nothing ever asks for their lines.
    line_starts: OnceLock<Vec<u32>>,
}

impl SourceFile {
    /// Creates a source file; its lines are indexed when first needed.
    pub fn new(path: impl Into<String>, text: impl Into<String>) -> Self {
        SourceFile {
            path: path.into(),
            text: text.into(),
            line_starts: OnceLock::new(),
        }
    }

    fn line_starts(&self) -> &[u32] {
        self.line_starts.get_or_init(|| {
            let mut line_starts = vec![0u32];
            // `memchr` scans a word (or a vector) at a time: indexing every
            // file of a large project is a measurable part of a check.
            line_starts
                .extend(memchr::memchr_iter(b'\n', self.text.as_bytes()).map(|i| i as u32 + 1));
            line_starts
        })
    }

    /// The 1-based line and column of a byte offset (clamped to the text).
    pub fn line_col(&self, offset: u32) -> LineCol {
        let (line, before) = self.line_prefix(offset);
        LineCol {
            line,
            column: before.chars().count() as u32 + 1,
        }
    }

    /// The 1-based column of a byte offset (clamped to the text) counted in
    /// UTF-16 code units rather than characters: the unit SARIF and the
    /// Language Server Protocol use by default. The line is the one
    /// [`SourceFile::line_col`] gives.
    pub fn utf16_column(&self, offset: u32) -> u32 {
        let (_, before) = self.line_prefix(offset);
        before.encode_utf16().count() as u32 + 1
    }

    /// The 1-based line of a byte offset (clamped to the text, rounded down
    /// to a character boundary) and the text of that line before it.
    fn line_prefix(&self, offset: u32) -> (u32, &str) {
        let offset = offset.min(self.text.len() as u32);
        let line = match self.line_starts().binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts()[line] as usize;
        let mut end = offset as usize;
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        (line as u32 + 1, &self.text[start..end])
    }

    /// The 0-based index of the line holding byte `offset` (lines end at
    /// `\n`; clamped to the last line).
    pub fn line_index(&self, offset: u32) -> usize {
        match self.line_starts().binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        }
    }

    /// The byte offset where the 0-based line `index` starts, if it exists.
    pub fn line_start(&self, index: usize) -> Option<usize> {
        self.line_starts().get(index).map(|&s| s as usize)
    }

    /// Number of lines in the file.
    pub fn line_count(&self) -> usize {
        self.line_starts().len()
    }

    /// The span clamped to this file: both ends at most the text length, on
    /// character boundaries (the start rounded down, the end up), and
    /// `start <= end`. An empty (or reversed) span stays empty.
    ///
    /// Checks may compute spans from stale or foreign text; renderers clamp
    /// rather than panic, so a wrong span shows a slightly wrong place instead
    /// of crashing `wfc`.
    pub fn clamp_span(&self, span: Span) -> Span {
        let len = self.text.len();
        let mut start = (span.start as usize).min(len);
        while !self.text.is_char_boundary(start) {
            start -= 1;
        }
        if span.end <= span.start {
            return Span::new(start, start);
        }
        let mut end = (span.end as usize).clamp(start, len);
        while !self.text.is_char_boundary(end) {
            end += 1;
        }
        Span::new(start, end)
    }
}

/// The set of files a run of `wfc` has read, addressed by [`FileId`].
#[derive(Debug, Clone, Default)]
pub struct Sources {
    files: Vec<SourceFile>,
}

impl Sources {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a file and returns its id.
    pub fn add(&mut self, path: impl Into<String>, text: impl Into<String>) -> FileId {
        self.files.push(SourceFile::new(path, text));
        FileId(self.files.len() as u32 - 1)
    }

    /// The file with this id.
    ///
    /// # Panics
    /// When the id did not come from this set.
    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// The file with this id, or `None` when the id did not come from this set.
    pub fn try_get(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    /// All files with their ids, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(i as u32), f))
    }

    /// All files, in insertion order (id order), by value.
    pub fn into_files(self) -> impl Iterator<Item = SourceFile> {
        self.files.into_iter()
    }

    /// Number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether no file has been added.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters() {
        let f = SourceFile::new("a.wf", "ab\né x\n");
        assert_eq!(f.line_col(0), LineCol { line: 1, column: 1 });
        assert_eq!(f.line_col(3), LineCol { line: 2, column: 1 });
        assert_eq!(f.line_col(6), LineCol { line: 2, column: 3 });
        assert_eq!(f.line_col(999), LineCol { line: 3, column: 1 });
    }

    #[test]
    fn utf16_column_counts_code_units() {
        // `é` is one UTF-16 unit, `𝄞` (U+1D11E) two; both are one character.
        let f = SourceFile::new("a.wf", "é𝄞x\n𝄞");
        assert_eq!(f.utf16_column(0), 1);
        assert_eq!(f.utf16_column(2), 2);
        assert_eq!(f.utf16_column(6), 4);
        assert_eq!(f.line_col(6), LineCol { line: 1, column: 3 });
        assert_eq!(f.utf16_column(7), 5);
        // Inside `𝄞`: rounded down to its start.
        assert_eq!(f.utf16_column(4), 2);
        assert_eq!(f.utf16_column(8), 1);
        assert_eq!(f.utf16_column(999), 3);
    }

    #[test]
    fn clamp_span_stays_inside_text_and_on_char_boundaries() {
        let f = SourceFile::new("a.wf", "aé");
        assert_eq!(f.clamp_span(Span::new(0, 1)), Span::new(0, 1));
        // Inside `é` (bytes 1..3): the start rounds down, the end up.
        assert_eq!(f.clamp_span(Span::new(2, 3)), Span::new(1, 3));
        assert_eq!(f.clamp_span(Span::new(0, 2)), Span::new(0, 3));
        assert_eq!(f.clamp_span(Span::new(2, 2)), Span::new(1, 1));
        assert_eq!(f.clamp_span(Span::new(9, 12)), Span::new(3, 3));
        assert_eq!(f.clamp_span(Span::new(2, 0)), Span::new(1, 1));
        let empty = SourceFile::new("e.wf", "");
        assert_eq!(empty.clamp_span(Span::new(5, 9)), Span::new(0, 0));
    }
}
