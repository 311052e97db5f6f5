//! One source line of a snippet and the label arrows under it, exactly as
//! ariadne 0.6 draws a line whose labels all start and end on it.

use std::cmp::Reverse;

use unicode_width::UnicodeWidthChar;

use super::paint::{Ink, Palette, paint, paint_char, push_number, push_spaces};

/// A label drawn on one line. Columns count characters from the line's
/// start (its terminator included: a span may cover it).
#[derive(Clone, Copy, Debug)]
pub(super) struct OnLine<'a> {
    /// Where the arrow attaches: the middle of the span.
    pub col: usize,
    /// First character under the label.
    pub start: usize,
    /// One past the last character under the label.
    pub end: usize,
    /// The label's colour.
    pub ink: Ink,
    /// The label's message.
    pub message: &'a str,
}

/// ariadne's tab width (its default configuration).
const TAB_WIDTH: usize = 4;

/// How ariadne shows character `c` at character column `col`: the
/// character written and how many columns it takes. A tab stops at the
/// next multiple of the tab width counted in characters (not columns), any
/// other whitespace is one space, a character without a width takes one.
pub(super) fn char_width(c: char, col: usize) -> (char, usize) {
    match c {
        '\t' => (' ', (col / TAB_WIDTH + 1) * TAB_WIDTH - col),
        c if c.is_whitespace() => (' ', 1),
        c => (c, c.width().unwrap_or(1)),
    }
}

/// The margin of a line without a number: `{width + 1 spaces}│` between
/// single spaces. Used under source lines, for skipped lines and before
/// notes.
pub(super) fn blank_margin(out: &mut String, palette: &Palette, width: usize) {
    out.push(' ');
    match palette.skipped {
        Some(ink) => {
            out.push_str(ink);
            push_spaces(out, width + 1);
            out.push('│');
            out.push_str(super::paint::RESET);
        }
        None => {
            push_spaces(out, width + 1);
            out.push('│');
        }
    }
    out.push(' ');
}

/// The label under `col` that ariadne highlights and underlines: the
/// shortest span holding it, the first of equals in drawing order.
fn covering<'l, 'a>(labels: &'l [OnLine<'a>], col: usize) -> Option<&'l OnLine<'a>> {
    labels
        .iter()
        .filter(|l| l.start <= col && col < l.end)
        .min_by_key(|l| l.end - l.start)
}

/// The label whose vertical bar passes `col` on arrow row `row`: the first,
/// in drawing order, attached at `col` and not drawn above `row`.
fn vbar_at<'l, 'a>(labels: &'l [OnLine<'a>], col: usize, row: usize) -> Option<&'l OnLine<'a>> {
    labels
        .iter()
        .enumerate()
        .find(|(j, l)| l.col == col && row <= *j)
        .map(|(_, l)| l)
}

/// The columns each character of a line takes, in order, as ariadne
/// counts them under the line (one past its end). A line of ASCII without
/// tabs takes one column per character and is not decoded.
enum Widths<'a> {
    Simple,
    Chars(std::str::Chars<'a>),
}

impl<'a> Widths<'a> {
    fn new(line: &'a str) -> Self {
        if line.is_ascii() && memchr::memchr(b'\t', line.as_bytes()).is_none() {
            Widths::Simple
        } else {
            Widths::Chars(line.chars())
        }
    }

    /// The width of the character at `col` (called for every column in
    /// order).
    fn next(&mut self, col: usize) -> usize {
        match self {
            Widths::Simple => 1,
            Widths::Chars(chars) => chars.next().map_or(1, |c| char_width(c, col).1),
        }
    }

    /// Total width of columns `0..to` (the first call).
    fn skip(&mut self, to: usize) -> usize {
        match self {
            Widths::Simple => to,
            Widths::Chars(_) => (0..to).map(|col| self.next(col)).sum(),
        }
    }
}

/// Draws source line number `number` (1-based; `text` with its terminator)
/// and, under it, the underlines and one arrow with its message per label.
/// `labels` are in the report's order; they are sorted here as ariadne
/// sorts them.
pub(super) fn draw(
    out: &mut String,
    palette: &Palette,
    width: usize,
    number: usize,
    text: &str,
    labels: &mut [OnLine<'_>],
) {
    labels.sort_by_key(|l| (l.col, Reverse(l.start)));
    let trimmed = text.trim_end();
    let arrow_len = labels.iter().map(|l| l.end).max().unwrap_or(0) + 2;

    out.push(' ');
    let mut margin = String::with_capacity(width + 8);
    push_spaces(&mut margin, width.saturating_sub(digits(number)));
    push_number(&mut margin, number);
    margin.push_str(" │");
    paint(out, palette.margin, &margin);
    out.push(' ');
    source(out, palette, labels, trimmed);
    out.push('\n');

    // Left of every label's start, the rows under the line are blank.
    let lead = labels
        .iter()
        .map(|l| l.start)
        .min()
        .unwrap_or(0)
        .min(arrow_len);
    for row in 0..labels.len() {
        blank_margin(out, palette, width);
        underline_row(out, labels, trimmed, lead, arrow_len, row);
        out.push('\n');
        blank_margin(out, palette, width);
        arrow_row(out, labels, trimmed, lead, arrow_len, row);
        out.push(' ');
        out.push_str(labels[row].message);
        out.push('\n');
    }
}

/// The source text: each character in the colour of the shortest label
/// over it, whitespace as spaces (a tab up to the next tab stop).
fn source(out: &mut String, palette: &Palette, labels: &[OnLine<'_>], line: &str) {
    if !palette.color {
        if matches!(Widths::new(line), Widths::Simple) {
            // Only spaces are whitespace here: the text as it is.
            out.push_str(line);
            return;
        }
        for (col, c) in line.chars().enumerate() {
            let (c, w) = char_width(c, col);
            if c.is_whitespace() {
                push_spaces(out, w);
            } else {
                out.push(c);
            }
        }
        return;
    }
    for (col, c) in line.chars().enumerate() {
        let ink = covering(labels, col).map_or(palette.unimportant, |l| l.ink);
        let (c, w) = char_width(c, col);
        if c.is_whitespace() {
            for _ in 0..w {
                paint_char(out, ink, c);
            }
        } else {
            paint_char(out, ink, c);
        }
    }
}

/// The row above arrow `row`: underlines (first row only) and the vertical
/// bars of the arrows still to come.
fn underline_row(
    out: &mut String,
    labels: &[OnLine<'_>],
    line: &str,
    lead: usize,
    len: usize,
    row: usize,
) {
    let mut widths = Widths::new(line);
    push_spaces(out, widths.skip(lead));
    for col in lead..len {
        let w = widths.next(col);
        let underline = if row == 0 {
            covering(labels, col)
        } else {
            None
        };
        let (c, tail, ink, tail_ink) = match (vbar_at(labels, col, row), underline) {
            (Some(v), Some(_)) => ('┬', '─', v.ink, v.ink),
            (Some(v), None) => ('│', ' ', v.ink, v.ink),
            (None, Some(u)) => ('─', '─', u.ink, u.ink),
            (None, None) => (' ', ' ', None, None),
        };
        for i in 0..w {
            if i == 0 {
                paint_char(out, ink, c);
            } else {
                paint_char(out, tail_ink, tail);
            }
        }
    }
}

/// Arrow `row`: the corner under its attach point, the bar to the message,
/// and the vertical bars of the arrows still to come.
fn arrow_row(
    out: &mut String,
    labels: &[OnLine<'_>],
    line: &str,
    lead: usize,
    len: usize,
    row: usize,
) {
    let label = &labels[row];
    let mut widths = Widths::new(line);
    push_spaces(out, widths.skip(lead));
    for col in lead..=label.col {
        let w = widths.next(col);
        let (c, tail, ink, tail_ink) = if col == label.col {
            ('╰', '─', label.ink, label.ink)
        } else if let Some(v) = vbar_at(labels, col, row) {
            ('│', ' ', v.ink, label.ink)
        } else {
            (' ', ' ', None, None)
        };
        if w > 0 {
            paint_char(out, ink, c);
        }
        for _ in 1..w {
            paint_char(out, tail_ink, tail);
        }
    }
    // Right of the attach point the arrow runs over everything.
    let rest: usize = (label.col + 1..len).map(|col| widths.next(col)).sum();
    for _ in 0..rest {
        paint_char(out, label.ink, '─');
    }
}

/// Number of decimal digits of `n`.
pub(super) fn digits(mut n: usize) -> usize {
    let mut count = 1;
    while n >= 10 {
        n /= 10;
        count += 1;
    }
    count
}
