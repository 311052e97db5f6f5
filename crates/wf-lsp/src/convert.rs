//! Conversions between the analysis's byte offsets and the protocol's
//! UTF-16 positions, and from [`wf_diagnostics::Diagnostic`] to the
//! protocol's diagnostics (in one place, so every feature agrees).

use std::collections::HashMap;

use tower_lsp_server::ls_types::{
    self as lsp, CodeDescription, DiagnosticRelatedInformation, DiagnosticSeverity, Location,
    NumberOrString, Position, Range, TextDocumentContentChangeEvent, Uri,
};
use wf_diagnostics::{Diagnostic, FileId, FileSpan, Severity};

/// The start of every line of a text, for converting offsets to and from
/// UTF-16 positions.
#[derive(Debug, Clone)]
pub struct LineIndex {
    line_starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes `text`.
    pub fn new(text: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { line_starts }
    }

    /// The byte offset of a position, clamped to the text: a line past the
    /// end is the end of the text, a character past the end of its line is
    /// the end of the line, and a position inside a surrogate pair rounds
    /// down to the character's start.
    pub fn offset(&self, text: &str, position: Position) -> usize {
        let Some(&start) = self.line_starts.get(position.line as usize) else {
            return text.len();
        };
        let mut units = 0u32;
        for (i, ch) in text[start..].char_indices() {
            if ch == '\n' || units + ch.len_utf16() as u32 > position.character {
                return start + i;
            }
            units += ch.len_utf16() as u32;
        }
        text.len()
    }

    /// The position of a byte offset (clamped to the text and rounded down
    /// to a character boundary).
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        let character = text[start..offset].encode_utf16().count() as u32;
        Position::new(line as u32, character)
    }

    /// The range of a byte range.
    pub fn range(&self, text: &str, start: usize, end: usize) -> Range {
        Range::new(
            self.position(text, start),
            self.position(text, end.max(start)),
        )
    }
}

/// Applies one `didChange` event to a text: a ranged edit replaces that
/// range, a rangeless one replaces the whole text.
pub fn apply_change(text: &mut String, change: &TextDocumentContentChangeEvent) {
    match change.range {
        Some(range) => {
            let index = LineIndex::new(text);
            let start = index.offset(text, range.start);
            let end = index.offset(text, range.end).max(start);
            text.replace_range(start..end, &change.text);
        }
        None => text.clone_from(&change.text),
    }
}

/// What converting spans needs: each file's URI, text and line index.
#[derive(Debug, Default, Clone)]
pub struct FileMap {
    files: HashMap<FileId, (Uri, String, LineIndex)>,
}

impl FileMap {
    /// Registers a file.
    pub fn insert(&mut self, id: FileId, uri: Uri, text: String) {
        let index = LineIndex::new(&text);
        self.files.insert(id, (uri, text, index));
    }

    /// The URI of a file.
    pub fn uri(&self, id: FileId) -> Option<&Uri> {
        self.files.get(&id).map(|(uri, _, _)| uri)
    }

    /// The range of a span, in its file.
    pub fn range(&self, span: FileSpan) -> Option<Range> {
        let (_, text, index) = self.files.get(&span.file)?;
        Some(index.range(text, span.span.start as usize, span.span.end as usize))
    }

    /// The location of a span.
    pub fn location(&self, span: FileSpan) -> Option<Location> {
        let (uri, text, index) = self.files.get(&span.file)?;
        let range = index.range(text, span.span.start as usize, span.span.end as usize);
        Some(Location::new(uri.clone(), range))
    }
}

/// The documentation of a code: its section of `docs/diagnostics.md`.
pub fn code_href(code: &wf_diagnostics::Code) -> Option<Uri> {
    let anchor = format!("{}-{}", code.code, code.name).to_lowercase();
    let base = env!("CARGO_PKG_REPOSITORY");
    format!("{base}/blob/main/docs/diagnostics.md#{anchor}")
        .parse()
        .ok()
}

/// Converts a diagnostic: the primary span is the range; every other label
/// becomes related information (in whatever file it points); help and
/// notes follow the message.
pub fn to_lsp(diagnostic: &Diagnostic, files: &FileMap) -> lsp::Diagnostic {
    let range = files.range(diagnostic.primary.location).unwrap_or_default();
    let severity = match diagnostic.severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Info => DiagnosticSeverity::INFORMATION,
    };
    let mut message = diagnostic.message.clone();
    if !diagnostic.primary.message.is_empty() {
        message.push_str(&format!("\n{}", diagnostic.primary.message));
    }
    for note in &diagnostic.notes {
        message.push_str(&format!("\nnote: {note}"));
    }
    if let Some(help) = &diagnostic.help {
        message.push_str(&format!("\nhelp: {help}"));
    }
    let related: Vec<DiagnosticRelatedInformation> = diagnostic
        .labels
        .iter()
        .filter_map(|label| {
            Some(DiagnosticRelatedInformation {
                location: files.location(label.location)?,
                message: if label.message.is_empty() {
                    "related location".to_string()
                } else {
                    label.message.clone()
                },
            })
        })
        .collect();
    lsp::Diagnostic {
        range,
        severity: Some(severity),
        code: Some(NumberOrString::String(diagnostic.code.code.to_string())),
        code_description: code_href(diagnostic.code).map(|href| CodeDescription { href }),
        source: Some("wfc".to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_positions_round_trip() {
        // `é` is one UTF-16 unit and two bytes; `𝄞` is two units, four bytes.
        let text = "aé𝄞b\nxy";
        let index = LineIndex::new(text);
        assert_eq!(index.offset(text, Position::new(0, 1)), 1);
        assert_eq!(index.offset(text, Position::new(0, 2)), 3);
        assert_eq!(index.offset(text, Position::new(0, 4)), 7);
        assert_eq!(index.offset(text, Position::new(0, 3)), 3, "inside a pair");
        assert_eq!(index.offset(text, Position::new(0, 99)), 8, "end of line");
        assert_eq!(index.offset(text, Position::new(1, 1)), 10);
        assert_eq!(index.offset(text, Position::new(7, 0)), text.len());
        assert_eq!(index.position(text, 7), Position::new(0, 4));
        assert_eq!(index.position(text, 10), Position::new(1, 1));
    }

    #[test]
    fn incremental_changes_apply_in_utf16() {
        let mut text = "é = 1\nb".to_string();
        let change = TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(0, 1), Position::new(0, 5))),
            range_length: None,
            text: "!".to_string(),
        };
        apply_change(&mut text, &change);
        assert_eq!(text, "é!\nb");
    }
}
