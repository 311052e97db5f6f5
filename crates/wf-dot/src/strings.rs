//! Decoding of quoted DOT strings, with a map back to source offsets.
//!
//! Escapes follow the Attractor grammar (section 2.2): `\"`, `\\`, `\n`,
//! `\t`; a backslash before a line break continues the line (Graphviz).
//! Any other escape (`\l`, `\N`, `\d` in a regular expression, `\$` in a
//! shell command) is kept verbatim, backslash included, as Graphviz does,
//! so nothing a tool command or prompt contains is lost.

use wf_diagnostics::Span;

/// A decoded string and, for every byte of it, the source range that
/// produced it, so spans inside the text (a condition clause, a stylesheet
/// rule) can point back into the file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Decoded {
    /// The text.
    pub text: String,
    /// `starts[i]`: the source offset where decoded byte `i` begins.
    starts: Vec<u32>,
    /// `ends[i]`: the source offset just after decoded byte `i`'s source.
    ends: Vec<u32>,
    /// Where the text ends in the source (before the closing quote).
    end: u32,
}

impl Decoded {
    /// The source span of the decoded byte range `range`. An empty range
    /// maps to an empty span at its position.
    pub fn span(&self, range: std::ops::Range<usize>) -> Span {
        let at = |i: usize| self.starts.get(i).copied().unwrap_or(self.end);
        if range.start >= range.end {
            let p = at(range.start);
            return Span { start: p, end: p };
        }
        let end = self
            .ends
            .get(range.end - 1)
            .copied()
            .unwrap_or(self.end)
            .max(at(range.start));
        Span {
            start: at(range.start),
            end,
        }
    }

    /// Appends one quoted piece: `raw` is its source text including the
    /// quotes (the closing one may be missing), starting at offset `start`.
    pub fn push_piece(&mut self, raw: &str, start: usize) {
        let body_start = start + 1;
        let body = body_of(raw);
        walk(body, |c, from, to| {
            self.push_char(c, body_start + from, body_start + to)
        });
        self.end = (body_start + body.len()) as u32;
    }

    fn push_char(&mut self, c: char, from: usize, to: usize) {
        let before = self.text.len();
        self.text.push(c);
        for _ in before..self.text.len() {
            self.starts.push(from as u32);
            self.ends.push(to as u32);
        }
    }
}

/// Appends the decoded text of one quoted piece (`raw` with its quotes) to
/// `out`, without building the offset map: the parser's fast path, since
/// most strings have no escape at all.
pub fn decode_text(raw: &str, out: &mut String) {
    let mut body = body_of(raw);
    // Copy the runs between backslashes whole; decode each escape alone.
    while let Some(i) = body.find('\\') {
        out.push_str(&body[..i]);
        let rest = &body[i..];
        let len = rest.chars().nth(1).map_or(1, |c| 1 + c.len_utf8());
        let len = if rest.starts_with("\\\r\n") { 3 } else { len };
        walk(&rest[..len], |c, _, _| out.push(c));
        body = &rest[len..];
    }
    out.push_str(body);
}

/// The text between the quotes of a raw string token.
fn body_of(raw: &str) -> &str {
    let body = raw.get(1..).unwrap_or_default();
    body.strip_suffix('"')
        .filter(|_| closed(raw))
        .unwrap_or(body)
}

/// Calls `f` with every decoded character of a string body and the byte
/// range of the body it came from.
fn walk(body: &str, mut f: impl FnMut(char, usize, usize)) {
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && i + 1 < bytes.len() {
            let decoded = match bytes[i + 1] {
                b'"' => '"',
                b'\\' => '\\',
                b'n' => '\n',
                b't' => '\t',
                // A backslash before a line break continues the line.
                b'\n' => {
                    i += 2;
                    continue;
                }
                b'\r' if bytes.get(i + 2) == Some(&b'\n') => {
                    i += 3;
                    continue;
                }
                // Any other escape is kept verbatim: the backslash now,
                // the character next.
                _ => {
                    f('\\', i, i + 1);
                    i += 1;
                    continue;
                }
            };
            f(decoded, i, i + 2);
            i += 2;
            continue;
        }
        let c = body[i..].chars().next().unwrap_or('\u{FFFD}');
        let len = c.len_utf8();
        f(c, i, i + len);
        i += len;
    }
}

/// Whether a raw string token ends with its closing quote (an unterminated
/// string ending in `\"` does not).
fn closed(raw: &str) -> bool {
    if raw.len() < 2 || !raw.ends_with('"') {
        return false;
    }
    let body = &raw[1..raw.len() - 1];
    let trailing = body.bytes().rev().take_while(|&b| b == b'\\').count();
    trailing % 2 == 0
}

/// A bare (unquoted) value: the text maps byte for byte onto the source.
pub fn verbatim(text: &str, start: usize) -> Decoded {
    let mut d = Decoded::default();
    for (i, c) in text.char_indices() {
        d.push_char(c, start + i, start + i + c.len_utf8());
    }
    d.end = (start + text.len()) as u32;
    d
}

/// Decodes one quoted string token (quotes included) starting at `start`.
pub fn decode(raw: &str, start: usize) -> Decoded {
    let mut d = Decoded::default();
    d.push_piece(raw, start);
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_spans() {
        let d = decode(r#""a\"b\nc\d""#, 10);
        assert_eq!(d.text, "a\"b\nc\\d");
        // `b` is at source offset 10 + 1 (quote) + 1 (a) + 2 (\") = 14.
        assert_eq!(d.span(2..3), Span { start: 14, end: 15 });
        // The escaped quote spans its two source bytes.
        assert_eq!(d.span(1..2), Span { start: 12, end: 14 });
        assert_eq!(d.span(8..8), Span { start: 20, end: 20 });
    }

    #[test]
    fn fast_path_agrees() {
        for raw in [
            "\"plain\"",
            "\"a\\\"b\\n\"",
            "\"open",
            "\"x\\\"",
            "\"a\\\r\nb\\é\\\\\\d\"",
            "\"\\",
        ] {
            let mut fast = String::new();
            decode_text(raw, &mut fast);
            assert_eq!(fast, decode(raw, 0).text, "{raw}");
        }
    }

    #[test]
    fn continuation_and_unterminated() {
        assert_eq!(decode("\"a\\\nb\"", 0).text, "ab");
        assert_eq!(decode("\"abc", 0).text, "abc");
        assert_eq!(decode("\"ab\\\"", 0).text, "ab\"");
        assert_eq!(decode("\"", 0).text, "");
        assert_eq!(decode("\"é\"", 0).span(0..2), Span { start: 1, end: 3 });
    }
}
