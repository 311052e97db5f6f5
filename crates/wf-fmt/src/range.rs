//! Range formatting: format only the whole items a byte range touches.
//!
//! The whole file is formatted (and verified) first. Formatting keeps
//! every token but the optional separators, and every comment, in order,
//! so the *anchors* (those tokens and comments) of the input and of the
//! output pair up one to one. The range grows to the anchors of the
//! statements (`.wf`: workflow statements and top-level items; `.dot`:
//! statements) it touches, then to whole lines on both sides, until the
//! input lines and the output lines hold exactly the same anchors; those
//! input lines are replaced by those output lines. The spliced text is
//! verified like a formatted file; should that fail, the edit formats the
//! whole file instead.

use std::ops::Range;

use wf_diagnostics::{FileId, Span};
use wf_syntax::ast::Item;
use wf_syntax::{TriviaKind, lexer, token::Token};

use crate::items::statement_span;
use crate::{FormatError, Options, SourceKind, dot, format_source, verify};

/// One replacement of `range` (byte offsets in the input) by `new_text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextEdit {
    /// The bytes of the input to replace.
    pub range: Range<usize>,
    /// What replaces them.
    pub new_text: String,
}

/// The edits that format the smallest set of whole items (top-level items
/// and workflow statements in `.wf`, statements in `.dot`) covering
/// `range`, leaving the rest of `source` byte-identical. An empty range
/// formats the item it is in (nothing between items). A range covering
/// every item gives the whole-file format. Returns no edit when that part
/// is already formatted, and [`FormatError::Syntax`] when the file does
/// not parse.
pub fn format_range(
    source: &str,
    kind: SourceKind,
    range: Range<usize>,
    options: &Options,
) -> Result<Vec<TextEdit>, FormatError> {
    let formatted = format_source(source, kind, options)?;
    if formatted == source {
        return Ok(Vec::new());
    }
    let (anchors, items) = units(source, kind);
    let out_anchors = anchors_of(&formatted, kind);
    if anchors.len() != out_anchors.len() {
        // Cannot happen for a verified result; be safe anyway.
        return Ok(diff_edits(source, &formatted));
    }
    let start = range.start.min(source.len());
    let end = range.end.clamp(start, source.len());
    let touches = |s: &Span| {
        let (a, b) = (s.start as usize, s.end as usize);
        if start == end {
            a <= start && start <= b
        } else {
            a < end && start < b
        }
    };
    let mut lo = start;
    let mut hi = end;
    for item in items.iter().filter(|s| touches(s)) {
        lo = lo.min(item.start as usize);
        hi = hi.max(item.end as usize);
    }
    let hit = |s: &Span| {
        let (a, b) = (s.start as usize, s.end as usize);
        if lo == hi {
            a <= lo && lo < b
        } else {
            a < hi && lo < b
        }
    };
    let Some(mut i) = anchors.iter().position(hit) else {
        return Ok(Vec::new());
    };
    let mut j = anchors.iter().rposition(hit).unwrap_or(i);
    loop {
        let before = (i, j);
        // Whole items.
        let (a, b) = (anchors[i].start, anchors[j].end);
        for item in &items {
            if item.start < b && a < item.end {
                while i > 0 && anchors[i - 1].end > item.start {
                    i -= 1;
                }
                while j + 1 < anchors.len() && anchors[j + 1].start < item.end {
                    j += 1;
                }
            }
        }
        // Whole lines, on both sides.
        for (text, spans) in [(source, &anchors), (formatted.as_str(), &out_anchors)] {
            let line_start = line_start(text, spans[i].start as usize);
            while i > 0 && spans[i - 1].end as usize > line_start {
                i -= 1;
            }
            let line_end = line_end(text, spans[j].end as usize);
            while j + 1 < spans.len() && (spans[j + 1].start as usize) < line_end {
                j += 1;
            }
        }
        if (i, j) == before {
            break;
        }
    }
    if i == 0 && j + 1 == anchors.len() {
        return Ok(diff_edits(source, &formatted));
    }
    let (s, e) = (
        line_start(source, anchors[i].start as usize),
        line_end(source, anchors[j].end as usize),
    );
    let (fs, fe) = (
        line_start(&formatted, out_anchors[i].start as usize),
        line_end(&formatted, out_anchors[j].end as usize),
    );
    let spliced = format!("{}{}{}", &source[..s], &formatted[fs..fe], &source[e..]);
    if same_meaning(source, &spliced, kind).is_err() {
        return Ok(diff_edits(source, &formatted));
    }
    Ok(diff_edits(source, &spliced))
}

/// The one edit (or none) turning `source` into `formatted`: the
/// differing middle, after the longest common prefix and suffix (on
/// character boundaries). Whole-document formatting can send this instead
/// of the whole text.
pub fn diff_edits(source: &str, formatted: &str) -> Vec<TextEdit> {
    if source == formatted {
        return Vec::new();
    }
    let mut prefix = source
        .bytes()
        .zip(formatted.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !source.is_char_boundary(prefix) || !formatted.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let max_suffix = source.len().min(formatted.len()) - prefix;
    let mut suffix = source
        .bytes()
        .rev()
        .zip(formatted.bytes().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    while !source.is_char_boundary(source.len() - suffix)
        || !formatted.is_char_boundary(formatted.len() - suffix)
    {
        suffix -= 1;
    }
    vec![TextEdit {
        range: prefix..source.len() - suffix,
        new_text: formatted[prefix..formatted.len() - suffix].to_string(),
    }]
}

/// The start of the line holding `at`.
fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// The end of the line holding `at` (before its line break).
fn line_end(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |i| at + i)
}

/// The anchors of a text and the spans of its items.
fn units(text: &str, kind: SourceKind) -> (Vec<Span>, Vec<Span>) {
    let anchors = anchors_of(text, kind);
    let items = match kind {
        SourceKind::Wf => {
            let parsed = wf_syntax::parse(text, FileId(0));
            let mut items = Vec::new();
            for item in &parsed.file.items {
                match item {
                    Item::Workflow(w) => items.extend(w.body.iter().map(statement_span)),
                    Item::Import(i) => items.push(i.span),
                    Item::Error(span) => items.push(*span),
                }
            }
            items
        }
        SourceKind::Dot => dot::leaf_statements(&wf_dot::parse(text, FileId(0))),
    };
    (anchors, items)
}

/// The tokens (without `,` and `;`) and comments of a text, in order.
fn anchors_of(text: &str, kind: SourceKind) -> Vec<Span> {
    match kind {
        SourceKind::Dot => dot::verify::anchors(text),
        SourceKind::Wf => {
            let lexed = lexer::lex(text, FileId(0));
            let mut out: Vec<Span> = lexed
                .tokens
                .iter()
                .filter(|(t, _)| !matches!(t, Token::Comma | Token::Semi))
                .map(|(_, s)| *s)
                .chain(
                    lexed
                        .trivia
                        .iter()
                        .filter(|t| t.kind != TriviaKind::BlankLines)
                        .map(|t| t.span),
                )
                .collect();
            out.sort_by_key(|s| s.start);
            out
        }
    }
}

/// Whether `after` means what `before` does (the checks of a full format).
fn same_meaning(before: &str, after: &str, kind: SourceKind) -> Result<(), FormatError> {
    match kind {
        SourceKind::Wf => verify::same_program(before, &wf_syntax::parse(before, FileId(0)), after),
        SourceKind::Dot => {
            dot::verify::same_graph(before, &wf_dot::parse(before, FileId(0)), after)
        }
    }
}
