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

use super::TAB_WIDTH;
use super::align::{self, Row};
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
    /// One indentation level as the file writes it (see [`indent_unit`]).
    unit: &'a str,
    /// The first lines of statements, for [`align::apply`].
    rows: Vec<Row>,
    /// The block being laid out, and the next block's number.
    pub(super) block: u32,
    pub(super) blocks: u32,
    /// `";"` when the file ends every statement with `;` (its style,
    /// kept), else empty: the separator is optional and dropped.
    pub(super) semi: &'static str,
    /// Whether the file writes `key = value`, with spaces, for every
    /// graph-level assignment and every attribute of a list it spreads over
    /// several lines (its style, kept there).
    pub(super) spaced_eq: bool,
    /// The cells of the next line (set for a statement's first line): byte
    /// offsets in its code and the source offsets of their tokens.
    pub(super) cells: Option<Vec<(usize, u32)>>,
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
        unit: indent_unit(src, &parsed.file),
        rows: Vec::new(),
        block: 0,
        blocks: 0,
        cells: None,
        semi: "",
        spaced_eq: false,
        width: options.width,
        errors,
        tokens: lexer::lex(src, FileId(0)).tokens,
        prev_end: None,
    };
    printer.spaced_eq = spaces_around_equals(src, &parsed.file.graphs);
    if ends_statements_with_semicolons(parsed, &printer.tokens) {
        printer.semi = ";";
    }
    if src.starts_with('\u{FEFF}') {
        printer.out.push('\u{FEFF}');
    }
    printer.file(&parsed.file);
    printer.leading(usize::MAX);
    if printer.rows.is_empty() {
        printer.out
    } else {
        align::apply(&printer.out, &printer.rows)
    }
}

/// Whether every graph-level `key=value` and every attribute of a list
/// written over several lines (one at least) is written `key = value`.
fn spaces_around_equals(src: &str, graphs: &[wf_dot::ast::Graph]) -> bool {
    use wf_dot::ast::{Attr, Stmt};
    fn walk<'a>(src: &str, stmts: &'a [Stmt], out: &mut Vec<&'a Attr>) {
        for stmt in stmts {
            let list = match stmt {
                Stmt::Assign(attr) => {
                    out.push(attr);
                    None
                }
                Stmt::AttrDefaults { attrs, .. } => Some(attrs),
                Stmt::Node { attrs, .. } | Stmt::Edge { attrs, .. } => attrs.as_ref(),
                Stmt::Subgraph(sub) => {
                    walk(src, &sub.stmts, out);
                    None
                }
            };
            if let Some(list) = list
                && src.get(list.span.range()).is_some_and(|t| t.contains('\n'))
            {
                out.extend(&list.attrs);
            }
        }
    }
    let mut attrs = Vec::new();
    for graph in graphs {
        walk(src, &graph.stmts, &mut attrs);
    }
    !attrs.is_empty()
        && attrs
            .iter()
            .all(|a| src.get(a.key.span.end as usize..a.value.span.start as usize) == Some(" = "))
}

/// Whether every statement of the file (two at least) is followed by a
/// `;`: a style some authors keep throughout, which is not untidy.
fn ends_statements_with_semicolons(parsed: &Parsed, tokens: &[(Token<'_>, Span)]) -> bool {
    let statements = super::leaf_statements(parsed);
    statements.len() >= 2
        && statements.iter().all(|stmt| {
            let next = tokens.partition_point(|(_, s)| s.start < stmt.end);
            tokens.get(next).is_some_and(|(t, _)| *t == Token::Semi)
        })
}

/// Four spaces: the indentation most Attractor files use, for files that
/// show none.
const DEFAULT_UNIT: &str = "    ";

/// The file's own indentation unit: how much deeper than its graph's line
/// the first statement of the first graph with statements on lines of
/// their own is indented, when that is 1 to 8 spaces or one tab; else four
/// spaces. Authors indent by 2 and by 4 (and some by tabs), and re-indenting
/// every line of a file is the largest diff a formatter can make.
fn indent_unit<'s>(src: &'s str, file: &wf_dot::ast::File) -> &'s str {
    let line_indent = |offset: usize| {
        let start = src[..offset].rfind('\n').map_or(0, |i| i + 1);
        let before = &src[start..offset];
        before
            .chars()
            .all(|c| c == ' ' || c == '\t')
            .then_some((start, before))
    };
    for graph in &file.graphs {
        let Some(first) = graph.stmts.first() else {
            continue;
        };
        let head = (graph.strict.unwrap_or(graph.keyword).start as usize).min(src.len());
        let at = (super::layout::stmt_span(first).start as usize).min(src.len());
        let (Some((_, outer)), Some((start, inner))) = (line_indent(head), line_indent(at)) else {
            continue;
        };
        let Some(extra) = inner.strip_prefix(outer) else {
            return DEFAULT_UNIT;
        };
        let spaces = !extra.is_empty() && extra.len() <= 8 && extra.bytes().all(|b| b == b' ');
        return if spaces || extra == "\t" {
            &src[start + outer.len()..start + inner.len()]
        } else {
            DEFAULT_UNIT
        };
    }
    DEFAULT_UNIT
}

/// The column of `offset` on its source line, in characters, and whether
/// two or more spaces come before it there.
fn source_column(src: &str, offset: usize) -> (usize, bool) {
    let offset = offset.min(src.len());
    let before = &src[..offset];
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before[start..].chars().count(),
        before[start..].ends_with("  "),
    )
}

impl<'a> Printer<'a> {
    /// The width of the current indentation, in columns (a tab counts 4).
    pub(super) fn indent_width(&self) -> usize {
        let unit: usize = self
            .unit
            .chars()
            .map(|c| if c == '\t' { TAB_WIDTH } else { 1 })
            .sum();
        self.depth * unit
    }

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
        for _ in 0..self.depth {
            self.out.push_str(self.unit);
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
        let cells = self.cells.take();
        let row_start = self.out.len();
        if let Some(cells) = cells {
            let cells = cells
                .into_iter()
                .map(|(at, source)| {
                    let (column, padded) = source_column(self.src, source as usize);
                    (at, column, padded)
                })
                .collect();
            self.rows.push(Row {
                start: row_start,
                // Source columns count characters, so a tab counts 1 here.
                indent: self.depth * self.unit.chars().count(),
                block: self.block,
                cells,
            });
        }
        let row = self.rows.last().is_some_and(|r| r.start == row_start);
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
                // A trailing comment may be lined up with its neighbours'.
                if row && !inside {
                    let (column, padded) = source_column(self.src, at);
                    let at = self.out.len() - row_start;
                    if let Some(row) = self.rows.last_mut() {
                        row.cells.push((at, column, padded));
                    }
                }
            }
            self.push_comment(c);
            closed = c.kind != CommentKind::Block;
            pos = pos.max(c.span.end as usize);
        }
        self.out.push('\n');
        self.prev_end = Some(pos);
    }
}
