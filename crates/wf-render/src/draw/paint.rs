//! Colour escapes as ariadne 0.6 writes them (through yansi 1): every
//! painted piece is `ESC[<code>m`, the text, then `ESC[0m`.

use ariadne::Color;

/// The escape that starts a colour, or `None` for plain text.
pub(crate) type Ink = Option<&'static str>;

/// The escape that ends every painted piece.
pub(super) const RESET: &str = "\x1b[0m";

/// The escape starting `color`, for the colours human output uses; `None`
/// for any other, which the caller must treat as "cannot draw".
pub(crate) fn ink(color: Color) -> Option<&'static str> {
    Some(match color {
        Color::Red => "\x1b[31m",
        Color::Yellow => "\x1b[33m",
        Color::Blue => "\x1b[34m",
        Color::Cyan => "\x1b[36m",
        Color::Fixed(115) => "\x1b[38;5;115m",
        Color::Fixed(240) => "\x1b[38;5;240m",
        Color::Fixed(246) => "\x1b[38;5;246m",
        Color::Fixed(249) => "\x1b[38;5;249m",
        _ => return None,
    })
}

/// ariadne's fixed colours in its default configuration.
pub(super) struct Palette {
    /// Line numbers, the box around a snippet and its closing line.
    pub margin: Ink,
    /// The margin of lines without a number.
    pub skipped: Ink,
    /// Source text under no label.
    pub unimportant: Ink,
    /// `Help` and `Note` prefixes.
    pub note: Ink,
    /// Whether anything is coloured (else every ink is `None`).
    pub color: bool,
}

impl Palette {
    pub(super) fn new(color: bool) -> Self {
        let pick = |n| if color { ink(Color::Fixed(n)) } else { None };
        Palette {
            margin: pick(246),
            skipped: pick(240),
            unimportant: pick(249),
            note: pick(115),
            color,
        }
    }
}

/// Writes `text` in `ink`.
pub(super) fn paint(out: &mut String, ink: Ink, text: &str) {
    match ink {
        Some(start) => {
            out.push_str(start);
            out.push_str(text);
            out.push_str(RESET);
        }
        None => out.push_str(text),
    }
}

/// Writes `c` in `ink`.
pub(super) fn paint_char(out: &mut String, ink: Ink, c: char) {
    match ink {
        Some(start) => {
            out.push_str(start);
            out.push(c);
            out.push_str(RESET);
        }
        None => out.push(c),
    }
}

/// Writes `n` spaces.
pub(super) fn push_spaces(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// Writes `n` in decimal.
pub(super) fn push_number(out: &mut String, n: usize) {
    use std::fmt::Write as _;
    // Writing into a `String` cannot fail.
    let _ = write!(out, "{n}");
}
