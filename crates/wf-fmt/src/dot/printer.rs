//! Output lines, comments and blank lines for DOT.
//!
//! Layout code ([`super::layout`]) pushes one line at a time with the
//! source range it covers. Pushing a line takes the comments inside that
//! range (which move to the end of the line) and those that follow it on
//! the same source line (trailing comments); comments on lines of their own
//! are written before the next line ([`Printer::leading`]). A cursor into
//! the comment table only moves forward, so each comment is written
//! exactly once and in order. `#` comments only count at the start of a
//! line, so they always get a line of their own.

use wf_diagnostics::{FileId, Span};
use wf_dot::lexer::{self, Token};
use wf_dot::{Comment, CommentKind, Parsed};

use super::INDENT;
use crate::Options;

/// Builds the formatted text of one DOT file.
pub(super) struct Printer<'a> {
    /// The source text.
    pub(super) src: &'a str,
    comments: &'a [Comment],
    /// The first comment not yet written.
    next: usize,
    out: String,
    /// Current nesting depth (indentation levels).
    pub(super) depth: usize,
    /// Maximum line width.
    pub(super) width: usize,
    /// Spans of syntax errors (with `--force`), sorted by start.
    pub(super) errors: &'a [Span],
    /// The tokens, to find braces and brackets the tree does not record.
    tokens: Vec<(Token<'a>, Span)>,
    /// Where the previous element of the current block ended (`None` at
    /// the start of a block, where blank lines are dropped).
    pub(super) prev_end: Option<usize>,
}

/// Formats a parsed DOT file; what overlaps `errors` is kept as written.
pub(super) fn print(src: &str, parsed: &Parsed, options: &Options, errors: &[Span]) -> String {
    let mut printer = Printer {
        src,
        comments: &parsed.comments,
        next: 0,
        out: String::with_capacity(src.len() + src.len() / 8),
        depth: 0,
        width: options.width,
        errors,
        tokens: lexer::lex(src, FileId(0)).tokens,
        prev_end: None,
    };
    if src.starts_with('\u{FEFF}') {
        printer.out.push('\u{FEFF}');
    }
    printer.file(&parsed.file);
    printer.leading(usize::MAX);
    printer.out
}

impl<'a> Printer<'a> {
    /// The source text of `span` (empty when out of range).
    pub(super) fn text(&self, span: Span) -> &'a str {
        self.src.get(span.range()).unwrap_or("")
    }

    /// Whether a syntax error touches `span`.
    pub(super) fn has_error(&self, span: Span) -> bool {
        self.errors
            .iter()
            .any(|e| e.start <= span.end && e.end >= span.start)
    }

    /// Whether a comment starts inside `span`.
    pub(super) fn has_comment(&self, span: Span) -> bool {
        self.comments[self.next..]
            .iter()
            .take_while(|c| c.span.start < span.end)
            .any(|c| c.span.start >= span.start)
    }

    /// The first token of kind `want` starting at or after `from`.
    pub(super) fn find_token(&self, from: u32, want: Token<'_>) -> Option<Span> {
        let first = self.tokens.partition_point(|(_, s)| s.start < from);
        self.tokens[first..]
            .iter()
            .find(|(t, _)| *t == want)
            .map(|(_, s)| *s)
    }

    /// How many tokens of kind `want` lie inside `span`.
    pub(super) fn count_tokens(&self, span: Span, want: Token<'_>) -> usize {
        let first = self.tokens.partition_point(|(_, s)| s.start < span.start);
        self.tokens[first..]
            .iter()
            .take_while(|(_, s)| s.end <= span.end)
            .filter(|(t, _)| *t == want)
            .count()
    }

    /// The text of `span` as written; the comments inside it are part of
    /// that text, so the cursor skips them.
    pub(super) fn verbatim(&mut self, span: Span) -> &'a str {
        while self
            .comments
            .get(self.next)
            .is_some_and(|c| c.span.start < span.end)
        {
            self.next += 1;
        }
        self.text(span)
    }

    /// Starts an element of a block at `start`: its leading comments, then
    /// one blank line if the source had at least one before it.
    pub(super) fn element(&mut self, start: u32) {
        self.leading(start as usize);
        self.blank_before(start as usize);
    }

    /// Writes one blank line when the source has one between the previous
    /// element and `start` (never at the start of a block).
    fn blank_before(&mut self, start: usize) {
        let Some(prev) = self.prev_end else { return };
        let gap = self.src.get(prev..start).unwrap_or("");
        if gap.matches('\n').count() >= 2 && !self.out.ends_with("\n\n") && !self.out.is_empty() {
            self.out.push('\n');
        }
    }

    /// Writes, each on its own line, the comments that start before
    /// `before` (comments on lines of their own before an element, or
    /// dangling at the end of a block).
    pub(super) fn leading(&mut self, before: usize) {
        while let Some(&c) = self.comments.get(self.next) {
            if c.span.start as usize >= before {
                break;
            }
            self.blank_before(c.span.start as usize);
            self.next += 1;
            self.indent();
            self.push_comment(c);
            self.out.push('\n');
            self.prev_end = Some(c.span.end as usize);
        }
    }

    fn indent(&mut self) {
        for _ in 0..self.depth * INDENT {
            self.out.push(' ');
        }
    }

    fn push_comment(&mut self, c: Comment) {
        let text = self.text(c.span);
        match c.kind {
            CommentKind::Block => self.out.push_str(text),
            CommentKind::Line | CommentKind::Hash => self.out.push_str(text.trim_end()),
        }
    }

    /// Writes one line of code covering the source range `start..end`,
    /// followed by the comments inside that range and those after it on
    /// the same source line.
    pub(super) fn line(&mut self, code: &str, start: u32, end: u32) {
        self.leading(start as usize);
        self.indent();
        self.out.push_str(code);
        let mut pos = end as usize;
        // After a `//` comment nothing can follow on its line.
        let mut closed = false;
        while let Some(&c) = self.comments.get(self.next) {
            let at = c.span.start as usize;
            let inside = at < end as usize;
            let same_line = !inside
                && self
                    .src
                    .get(pos..at)
                    .is_some_and(|gap| gap.chars().all(|ch| matches!(ch, ' ' | '\t' | ';' | ',')));
            if !inside && !same_line {
                break;
            }
            self.next += 1;
            if closed || c.kind == CommentKind::Hash {
                self.out.push('\n');
                self.indent();
            } else {
                self.out.push_str("  ");
            }
            self.push_comment(c);
            closed = c.kind != CommentKind::Block;
            pos = pos.max(c.span.end as usize);
        }
        self.out.push('\n');
        self.prev_end = Some(pos);
    }
}
