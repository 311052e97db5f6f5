//! Output lines, comments and blank lines: the language-neutral half of the
//! formatter.
//!
//! Layout code pushes one output line at a time together with the source
//! offset the line reaches (`end`). Pushing a line also takes the comments
//! the line covers: every not yet emitted comment that starts before `end`
//! (a comment inside a construct moves to the end of the line that holds
//! it), then the comments that follow on the same source line with only
//! whitespace or separators in between (trailing comments). Comments before
//! an entry of a block, on their own lines, are emitted by [`Printer::leading`];
//! those after a block's last entry by [`Printer::dangling`]. Each comment is
//! emitted exactly once and in source order, because the cursor into the
//! side table only moves forward.

use wf_diagnostics::Span;
use wf_syntax::{Parsed, Trivia, TriviaKind};

use crate::Options;

/// One indentation level, in spaces.
pub(crate) const INDENT: usize = 2;

/// Spaces between code and a trailing comment (at least).
const COMMENT_GAP: usize = 2;

/// One output line.
struct Line {
    /// Indentation in spaces (not applied to a blank line).
    indent: usize,
    /// The code; may contain line breaks (text blocks, verbatim parts),
    /// which are written as they are.
    code: String,
    /// Trailing comments, in source order.
    comments: Vec<String>,
    /// The line is itself a comment (never aligned with trailing ones).
    comment_only: bool,
}

/// Builds the formatted text of one file.
pub(crate) struct Printer<'a> {
    /// The source text.
    pub(crate) src: &'a str,
    /// The comments and blank-line runs, in source order.
    pub(crate) trivia: &'a [Trivia],
    /// The first trivia entry not yet emitted or skipped.
    next: usize,
    lines: Vec<Line>,
    /// Layout settings.
    pub(crate) options: Options,
    /// Indentation of the lines pushed next, in spaces.
    pub(crate) indent: usize,
    /// Indentation of the entry being laid out (its continuation lines go
    /// deeper).
    base_indent: usize,
    /// Spans of syntax errors (with `--force`), sorted: what they touch is
    /// kept verbatim.
    pub(crate) errors: &'a [Span],
    /// Keep a whole item verbatim when it contains a syntax error.
    pub(crate) whole_items: bool,
}

/// Formats a parsed file. `errors` lists the syntax errors to work around
/// (empty unless forced); see [`crate::format_forced`] for `whole_items`.
pub(crate) fn print(
    src: &str,
    parsed: &Parsed,
    options: &Options,
    errors: &[Span],
    whole_items: bool,
) -> String {
    let mut printer = Printer {
        src,
        trivia: &parsed.trivia,
        next: 0,
        lines: Vec::new(),
        options: *options,
        indent: 0,
        base_indent: 0,
        errors,
        whole_items,
    };
    printer.file(&parsed.file);
    printer.finish()
}

/// Display width of a one-line string.
pub(crate) fn width(s: &str) -> usize {
    s.chars().count()
}

/// `s` padded with spaces to `column` characters (unchanged when wider).
pub(crate) fn pad(s: &str, column: usize) -> String {
    let mut out = s.to_string();
    for _ in width(s)..column {
        out.push(' ');
    }
    out
}

impl<'a> Printer<'a> {
    /// The source text of `span` (empty when out of range).
    pub(crate) fn text(&self, span: Span) -> &'a str {
        self.src.get(span.range()).unwrap_or("")
    }

    /// Whether `code`, one line, fits when it starts at column `indent`.
    pub(crate) fn fits_at(&self, indent: usize, code: &str) -> bool {
        !code.contains('\n') && indent + width(code) <= self.options.width
    }

    /// Whether `code` fits on a line at the current indentation.
    pub(crate) fn fits(&self, code: &str) -> bool {
        self.fits_at(self.indent, code)
    }

    /// The text of a comment as written, trailing whitespace removed
    /// (only a `\r` from a doc comment, whose text is its documentation).
    fn comment_text(&self, t: &Trivia) -> String {
        let text = self.text(t.span);
        match t.kind {
            TriviaKind::DocComment => text.trim_end_matches('\r'),
            _ => text.trim_end(),
        }
        .to_string()
    }

    /// Pushes a line of code reaching source offset `end`, with the
    /// comments it covers and its trailing comments.
    pub(crate) fn push(&mut self, code: impl Into<String>, end: u32) {
        self.push_line(code.into(), end, false);
    }

    fn push_line(&mut self, code: String, end: u32, comment_only: bool) {
        let mut comments = Vec::new();
        while let Some(t) = self.trivia.get(self.next) {
            if t.span.start >= end {
                break;
            }
            if t.kind != TriviaKind::BlankLines {
                comments.push(self.comment_text(t));
            }
            self.next += 1;
        }
        let mut pos = end.max(
            self.trivia
                .get(self.next.wrapping_sub(1))
                .map_or(0, |t| t.span.end),
        );
        while let Some(t) = self.trivia.get(self.next) {
            let gap = self.src.get(pos as usize..t.span.start as usize);
            let same_line =
                gap.is_some_and(|g| g.bytes().all(|b| matches!(b, b' ' | b'\t' | b',' | b';')));
            if t.kind == TriviaKind::BlankLines || !same_line {
                break;
            }
            comments.push(self.comment_text(t));
            pos = t.span.end;
            self.next += 1;
        }
        // Nothing may follow a `//` comment on its line: the comments after
        // it go on lines of their own, at the statement's indentation (where
        // the next run puts them, as leading comments of what follows).
        let rest = match comments.iter().position(|c| c.starts_with("//")) {
            Some(first) if first + 1 < comments.len() => comments.split_off(first + 1),
            _ => Vec::new(),
        };
        let rest_indent = if code.ends_with(['{', '[']) {
            self.indent + INDENT
        } else {
            self.base_indent
        };
        self.lines.push(Line {
            indent: self.indent,
            code,
            comments,
            comment_only,
        });
        for comment in rest {
            self.lines.push(Line {
                indent: rest_indent,
                code: comment,
                comments: Vec::new(),
                comment_only: true,
            });
        }
    }

    /// Pushes the source of `span` as it is (first line re-indented), with
    /// the comments inside it, and takes its trailing comments.
    pub(crate) fn push_verbatim(&mut self, span: Span) {
        while self
            .trivia
            .get(self.next)
            .is_some_and(|t| t.span.start < span.end)
        {
            self.next += 1;
        }
        let code = self.text(span).trim_end().to_string();
        self.push(code, span.end);
    }

    /// A blank line, unless the previous line is one.
    fn blank(&mut self) {
        if self.lines.last().is_some_and(|l| !is_blank(l)) {
            self.lines.push(Line {
                indent: 0,
                code: String::new(),
                comments: Vec::new(),
                comment_only: false,
            });
        }
    }

    /// Emits the comments and blank lines before an entry starting at
    /// `pos`: comments on lines of their own, and at most one blank line
    /// wherever the source had any (never at the start of a block, where
    /// `first` is still set). `force_blank` separates the entry from the
    /// one before with a blank line in any case.
    pub(crate) fn leading(&mut self, pos: u32, first: &mut bool, force_blank: bool) {
        let mut blank = force_blank;
        let mut last_doc: Option<u32> = None;
        while let Some(t) = self.trivia.get(self.next) {
            if t.span.start >= pos {
                break;
            }
            if t.kind == TriviaKind::BlankLines {
                blank = true;
                self.next += 1;
                continue;
            }
            if blank && !*first {
                self.blank();
            }
            blank = false;
            last_doc = (t.kind == TriviaKind::DocComment).then_some(t.span.end);
            self.comment_line();
            *first = false;
        }
        if blank && !*first {
            self.blank();
        }
        // A separator between a doc comment and the entry keeps the comment
        // from documenting it (`WF0008`): dropping it would change that.
        if let Some(end) = last_doc
            && let Some(gap) = self.src.get(end as usize..pos as usize)
            && let Some(separator) = gap.chars().find(|c| matches!(c, ',' | ';'))
        {
            self.push(separator.to_string(), end);
        }
    }

    /// Emits the comments between a block's last entry and its closing
    /// bracket at `close`; a blank line survives only before a comment.
    pub(crate) fn dangling(&mut self, close: u32, first: bool) {
        let mut first = first;
        let mut blank = false;
        while let Some(t) = self.trivia.get(self.next) {
            if t.span.start >= close {
                break;
            }
            if t.kind == TriviaKind::BlankLines {
                blank = true;
                self.next += 1;
                continue;
            }
            if blank && !first {
                self.blank();
            }
            blank = false;
            self.comment_line();
            first = false;
        }
    }

    /// The next trivia entry (a comment) on a line of its own.
    fn comment_line(&mut self) {
        let t = &self.trivia[self.next];
        let (text, end) = (self.comment_text(t), t.span.end);
        self.next += 1;
        self.push_line(text, end, true);
    }

    /// Emits the entries of a bracketed block one level deeper, with their
    /// comments and blank lines; `close` is the offset of the closing
    /// bracket. The caller pushes the opening and closing lines.
    pub(crate) fn block<T>(
        &mut self,
        items: &[T],
        close: u32,
        span: impl Fn(&T) -> Span,
        mut emit: impl FnMut(&mut Self, usize, &T),
    ) {
        let outer = self.base_indent;
        self.indent += INDENT;
        self.base_indent = self.indent;
        let mut first = true;
        for (i, item) in items.iter().enumerate() {
            self.leading(span(item).start, &mut first, false);
            emit(self, i, item);
            self.base_indent = self.indent;
            first = false;
        }
        self.dangling(close, first);
        self.indent -= INDENT;
        self.base_indent = outer;
    }

    /// Aligns trailing comments and writes the lines out.
    fn finish(mut self) -> String {
        // Whatever the tree did not cover (only possible after errors) is
        // still written, never dropped.
        while self.next < self.trivia.len() {
            if self.trivia[self.next].kind == TriviaKind::BlankLines {
                self.next += 1;
            } else {
                self.comment_line();
            }
        }
        align_comments(&mut self.lines);
        while self.lines.last().is_some_and(is_blank) {
            self.lines.pop();
        }
        let mut out = String::with_capacity(self.src.len() + self.src.len() / 8);
        for line in &self.lines {
            if !is_blank(line) {
                for _ in 0..line.indent {
                    out.push(' ');
                }
                out.push_str(&line.code);
                for (i, comment) in line.comments.iter().enumerate() {
                    if i == 0 {
                        out.push_str(&" ".repeat(COMMENT_GAP));
                    } else {
                        out.push(' ');
                    }
                    out.push_str(comment);
                }
            }
            out.push('\n');
        }
        out
    }
}

fn is_blank(line: &Line) -> bool {
    line.code.is_empty() && line.comments.is_empty()
}

/// Trailing comments on consecutive lines of one indentation (except lines
/// opening a block) start in one column, two spaces after the longest code. The code is padded so that
/// [`Printer::finish`]'s fixed gap lands every comment in that column.
fn align_comments(lines: &mut [Line]) {
    // A line opening a block starts something new: its comment stays put.
    let alignable = |l: &Line| {
        !l.comment_only
            && !l.comments.is_empty()
            && !l.code.contains('\n')
            && !l.code.is_empty()
            && !l.code.ends_with(['{', '['])
    };
    let mut i = 0;
    while i < lines.len() {
        if !alignable(&lines[i]) {
            i += 1;
            continue;
        }
        let mut j = i + 1;
        while j < lines.len() && alignable(&lines[j]) && lines[j].indent == lines[i].indent {
            j += 1;
        }
        let column = lines[i..j]
            .iter()
            .map(|l| width(&l.code))
            .max()
            .unwrap_or(0);
        for line in &mut lines[i..j] {
            line.code = pad(&line.code, column);
        }
        i = j;
    }
}
