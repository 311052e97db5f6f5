//! Our own drawing of human reports: for the reports it accepts, exactly
//! the bytes ariadne 0.6 writes with `human.rs`'s configuration (unicode
//! characters, byte spans, middle attach, no compaction), written straight
//! into the output.
//!
//! ariadne writes every character through `core::fmt` and indexes whole
//! files into line tables first; that was two fifths of a large check.
//! Here lines come from the file's own line index and text is pushed as
//! slices. The layout rules are ariadne's (`write.rs`), specialised to the
//! shapes drawn here: every label starts and ends on one line (several may
//! share a line, overlap or sit in other files). Anything else is declined
//! ([`report`] returns `false`) and drawn by ariadne: a span over several
//! lines, a file with a line break other than `\n` and `\r\n` (ariadne
//! also breaks at a lone `\r`, VT, FF, NEL, U+2028/U+2029), or a snippet of
//! a file other than the primary one whose header ariadne would place by
//! reading a character offset as a byte offset after non-ASCII text.
//!
//! The differential tests (`tests/it/draw_differential.rs` here, and over
//! real diagnostics in `wfc`) hold this to ariadne byte for byte.

mod line;
mod paint;

use std::borrow::Cow;
use std::ops::Range;

pub(crate) use paint::{Ink, ink};

use line::{OnLine, blank_margin, digits};
use paint::{Palette, paint, push_number, push_spaces};

use wf_diagnostics::{FileId, FileSpan, SourceFile, Sources, Span};

/// One label of a report, in ariadne's order, with its span clamped to its
/// (known) file.
pub(super) struct Mark<'a> {
    /// The file.
    pub file: FileId,
    /// The clamped span.
    pub span: Span,
    /// The message (labels always have one, possibly empty).
    pub message: &'a str,
    /// Whether this is the primary label (drawn in the severity's colour).
    pub primary: bool,
}

/// A report's body: everything ariadne draws under the header line.
pub(super) struct Request<'a> {
    /// The report's primary span, clamped; its file is known.
    pub primary: FileSpan,
    /// The labels, in the order given to ariadne.
    pub marks: &'a [Mark<'a>],
    /// Notes, in order.
    pub notes: &'a [String],
    /// Helps, in order.
    pub helps: &'a [Cow<'a, str>],
    /// The primary label's colour and the others', `None` without colour.
    pub inks: (Ink, Ink),
    /// Whether to write colour escapes.
    pub color: bool,
}

/// Draws `request` into `out` and returns `true`, or returns `false`
/// without writing when it is a shape left to ariadne. `plain` tells
/// whether a file breaks lines only at `\n` (see the module docs).
pub(super) fn report(
    request: &Request<'_>,
    sources: &Sources,
    plain: &mut dyn FnMut(FileId) -> bool,
    out: &mut String,
) -> bool {
    let Some(plan) = plan(request, sources, plain) else {
        return false;
    };
    let palette = Palette::new(request.color);
    let count = plan.groups.len();
    for (index, group) in plan.groups.iter().enumerate() {
        draw_group(out, &palette, &plan, group, index == 0);
        if index + 1 == count {
            entries(out, &palette, plan.width, "Help", request.helps);
            entries(out, &palette, plan.width, "Note", request.notes);
            let mut close = String::with_capacity(3 * (plan.width + 3));
            close.extend(std::iter::repeat_n('─', plan.width + 2));
            close.push('╯');
            paint(out, palette.margin, &close);
            out.push('\n');
        } else {
            push_spaces(out, plan.width + 2);
            paint(out, palette.margin, "│");
            out.push('\n');
        }
    }
    true
}

/// ariadne's lines of one file: split after each `\n` (the file is
/// [`plain`](report)), the terminator part of its line, and no empty
/// line after a final `\n`.
struct Lines<'s> {
    file: &'s SourceFile,
    count: usize,
}

impl<'s> Lines<'s> {
    fn new(file: &'s SourceFile) -> Self {
        let text = &file.text;
        let trailing = !text.is_empty() && text.ends_with('\n');
        Lines {
            file,
            count: file.line_count() - usize::from(trailing),
        }
    }

    /// The line holding byte `offset`; the end of the text belongs to the
    /// last line.
    fn line_of(&self, offset: usize) -> usize {
        self.file.line_index(offset as u32).min(self.count - 1)
    }

    /// Line `k`'s bytes, terminator included.
    fn bytes(&self, k: usize) -> Range<usize> {
        let len = self.file.text.len();
        let start = self.file.line_start(k).unwrap_or(len);
        start..self.file.line_start(k + 1).unwrap_or(len)
    }

    fn text(&self, k: usize) -> &'s str {
        &self.file.text[self.bytes(k)]
    }

    /// Where ariadne places `span`: its line, its start and end columns (in
    /// characters) on that line, and the line's length in characters; `None`
    /// when it ends on another line.
    fn place(&self, span: Span) -> Option<Placed> {
        let text = &self.file.text;
        let (s, e) = (span.start as usize, span.end as usize);
        let line = self.line_of(s);
        let bytes = self.bytes(line);
        let start = text[bytes.start..s].chars().count();
        let end = if e <= s {
            start
        } else if self.line_of(e - 1) == line {
            start + text[s..e].chars().count()
        } else {
            return None;
        };
        Some(Placed {
            line,
            start,
            end,
            line_len: text[bytes].chars().count(),
        })
    }
}

/// A span placed on its line.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Placed {
    line: usize,
    start: usize,
    end: usize,
    line_len: usize,
}

/// ariadne's source group: consecutive labels in one file going down it.
struct Group<'s> {
    file: &'s SourceFile,
    labels: Range<usize>,
    /// The `line:column` (0-based) the header names.
    header: (usize, usize),
    /// First and last line drawn (0-based, inclusive).
    first: usize,
    last: usize,
}

/// What a report draws, computed before anything is written.
struct Plan<'a, 's> {
    placed: Vec<(Placed, &'a Mark<'a>)>,
    groups: Vec<Group<'s>>,
    inks: (Ink, Ink),
    /// Width of the line-number column.
    width: usize,
}

fn plan<'a, 's>(
    request: &'a Request<'a>,
    sources: &'s Sources,
    plain: &mut dyn FnMut(FileId) -> bool,
) -> Option<Plan<'a, 's>> {
    let mut placed = Vec::with_capacity(request.marks.len());
    for mark in request.marks {
        let file = sources.try_get(mark.file)?;
        if !plain(mark.file) {
            return None;
        }
        placed.push((Lines::new(file).place(mark.span)?, mark));
    }
    // ariadne starts a new group when the file changes or a label ends on
    // an earlier line than the one before it.
    let mut spans: Vec<(FileId, Range<usize>)> = Vec::new();
    for (i, (p, mark)) in placed.iter().enumerate() {
        match spans.last_mut() {
            Some((file, range)) if *file == mark.file && placed[range.end - 1].0.line <= p.line => {
                range.end = i + 1;
            }
            _ => spans.push((mark.file, i..i + 1)),
        }
    }
    let mut groups = Vec::with_capacity(spans.len());
    for (id, range) in spans {
        let file = sources.try_get(id)?;
        let lines = Lines::new(file);
        let header = if id == request.primary.file {
            let at = request.primary.span.start as usize;
            let p = lines.place(Span::new(at, at))?;
            (p.line, p.start)
        } else {
            // ariadne reads the first label's character offset as a byte
            // offset: the same place only after ASCII text.
            let (p, mark) = &placed[range.start];
            if !file.text[..mark.span.start as usize].is_ascii() {
                return None;
            }
            (p.line, p.start)
        };
        let (first, last) = line_range(&lines, placed[range.clone()].iter().map(|(p, _)| *p));
        groups.push(Group {
            file,
            labels: range,
            header,
            first,
            last,
        });
    }
    let width = groups.iter().map(|g| digits(g.last + 1)).max().unwrap_or(0);
    Some(Plan {
        inks: request.inks,
        placed,
        groups,
        width,
    })
}

/// The lines ariadne draws for a group: from the line of its first start
/// to the line of the character before its last end. A position at the end
/// of a line is the start of the next, so an empty label at the start of a
/// line after the others ends the range on the line before.
fn line_range(lines: &Lines<'_>, placed: impl Iterator<Item = Placed>) -> (usize, usize) {
    let mut min_start = (usize::MAX, usize::MAX);
    let mut max_end = (0, 0);
    for p in placed {
        min_start = min_start.min((p.line, p.start));
        let end = if p.end == p.line_len && p.line + 1 < lines.count {
            (p.line + 1, 0)
        } else {
            (p.line, p.end)
        };
        max_end = max_end.max(end);
    }
    let last = if max_end.1 == 0 && max_end.0 > 0 && min_start != max_end {
        max_end.0 - 1
    } else {
        max_end.0
    };
    (min_start.0, last)
}

fn draw_group(
    out: &mut String,
    palette: &Palette,
    plan: &Plan<'_, '_>,
    group: &Group<'_>,
    first: bool,
) {
    let width = plan.width;
    push_spaces(out, width + 2);
    paint(out, palette.margin, if first { "╭" } else { "├" });
    paint(out, palette.margin, "─");
    paint(out, palette.margin, "[");
    out.push(' ');
    out.push_str(&group.file.path);
    out.push(':');
    push_number(out, group.header.0 + 1);
    out.push(':');
    push_number(out, group.header.1 + 1);
    out.push(' ');
    paint(out, palette.margin, "]");
    out.push('\n');
    push_spaces(out, width + 2);
    paint(out, palette.margin, "│");
    out.push('\n');

    let labels = &plan.placed[group.labels.clone()];
    let inks = plan.inks;
    let in_range = |k: usize| (group.first..=group.last).contains(&k);
    // The lines with a label: its own, and for an empty label at the start
    // of a line also the line before (ariadne draws it at that line's end).
    let mut drawn: Vec<usize> = Vec::with_capacity(labels.len() * 2);
    for (p, _) in labels {
        drawn.push(p.line);
        if p.end == 0 && p.line > 0 {
            drawn.push(p.line - 1);
        }
    }
    drawn.retain(|&k| in_range(k));
    drawn.sort_unstable();
    drawn.dedup();

    let lines = Lines::new(group.file);
    let mut on_line = Vec::with_capacity(labels.len());
    let mut previous: Option<usize> = None;
    for k in drawn {
        if previous.is_some_and(|p| k > p + 1) {
            // One margin line stands for the lines skipped.
            blank_margin(out, palette, width);
            out.push('\n');
        }
        previous = Some(k);
        let text = lines.text(k);
        let mut len = None;
        on_line.clear();
        for (p, mark) in labels {
            let (start, end) = if p.line == k {
                (p.start, p.end)
            } else if p.line == k + 1 && p.end == 0 {
                let at = *len.get_or_insert_with(|| text.chars().count());
                (at, at)
            } else {
                continue;
            };
            on_line.push(OnLine {
                col: (start + end) / 2,
                start,
                end,
                ink: if mark.primary { inks.0 } else { inks.1 },
                message: mark.message,
            });
        }
        let shown = window(text, &mut on_line);
        line::draw(out, palette, width, k + 1, &shown, &mut on_line);
    }
}

/// The most characters of one source line a snippet shows. A longer line
/// is cut to a window around its labels, with `…` where text is left out:
/// a report's size then does not grow with the line (a one-line file of
/// 360 KB with an error every few bytes made output quadratic).
pub(crate) const MAX_LINE_CHARS: usize = 200;

/// How many characters of context a window keeps before its first label.
const WINDOW_LEAD: usize = 40;

/// `text` (a line with its terminator) cut to at most [`MAX_LINE_CHARS`]
/// characters around `labels`, whose columns move with it; the line
/// itself when it is short enough. A label reaching past the window is cut
/// at its edge.
fn window<'t>(text: &'t str, labels: &mut [line::OnLine<'_>]) -> Cow<'t, str> {
    let body = text.trim_end_matches(['\n', '\r']);
    // Cheap test first: a line of few bytes has few characters.
    if body.len() <= MAX_LINE_CHARS || body.chars().count() <= MAX_LINE_CHARS {
        return Cow::Borrowed(text);
    }
    let len = body.chars().count();
    let first = labels.iter().map(|l| l.start).min().unwrap_or(0);
    let start = first
        .saturating_sub(WINDOW_LEAD)
        .min(len.saturating_sub(MAX_LINE_CHARS));
    let end = (start + MAX_LINE_CHARS).min(len);
    let lead = usize::from(start > 0);
    let mut shown = String::with_capacity(4 * (end - start) + 8);
    if start > 0 {
        shown.push('…');
    }
    shown.extend(body.chars().skip(start).take(end - start));
    if end < len {
        shown.push('…');
    }
    let shift = |col: usize| col.clamp(start, end) - start + lead;
    for label in labels.iter_mut() {
        label.start = shift(label.start);
        label.end = shift(label.end).max(label.start);
        label.col = (label.start + label.end) / 2;
    }
    Cow::Owned(shown)
}

/// The helps or notes: `Help: …` alone, `Help 1: …`, `Help 2: …` when
/// several, each after a margin line, continuation lines indented under
/// the text.
fn entries<S: AsRef<str>>(
    out: &mut String,
    palette: &Palette,
    width: usize,
    word: &str,
    items: &[S],
) {
    let numbered = items.len() > 1;
    for (i, item) in items.iter().enumerate() {
        blank_margin(out, palette, width);
        out.push('\n');
        let prefix = if numbered {
            format!("{word} {}", i + 1)
        } else {
            word.to_owned()
        };
        let mut lines = item.as_ref().lines();
        if let Some(first) = lines.next() {
            blank_margin(out, palette, width);
            paint(out, palette.note, &prefix);
            out.push_str(": ");
            out.push_str(first);
            out.push('\n');
        }
        for rest in lines {
            blank_margin(out, palette, width);
            push_spaces(out, prefix.len() + 2);
            out.push_str(rest);
            out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests;
