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
///
/// Most strings have no escape and are one piece: their text is a verbatim
/// stretch of the source, and the map is just an offset (`base`), with no
/// per-byte tables to build.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Decoded {
    /// The text.
    pub text: String,
    /// When the text is the source from this offset on, byte for byte:
    /// `starts` and `ends` are then empty.
    base: Option<u32>,
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
        let at = |i: usize| self.start_of(i).unwrap_or(self.end);
        if range.start >= range.end {
            let p = at(range.start);
            return Span { start: p, end: p };
        }
        let end = self
            .end_of(range.end - 1)
            .unwrap_or(self.end)
            .max(at(range.start));
        Span {
            start: at(range.start),
            end,
        }
    }

    /// Where the source of decoded byte `i` begins: the start of the
    /// character it belongs to.
    fn start_of(&self, i: usize) -> Option<u32> {
        match self.base {
            Some(base) if i < self.text.len() => {
                let mut c = i;
                while !self.text.is_char_boundary(c) {
                    c -= 1;
                }
                Some(base + c as u32)
            }
            Some(_) => None,
            None => self.starts.get(i).copied(),
        }
    }

    /// Where the source of decoded byte `i` ends: the end of the character
    /// it belongs to.
    fn end_of(&self, i: usize) -> Option<u32> {
        match self.base {
            Some(base) if i < self.text.len() => {
                let mut c = i + 1;
                while !self.text.is_char_boundary(c) {
                    c += 1;
                }
                Some(base + c as u32)
            }
            Some(_) => None,
            None => self.ends.get(i).copied(),
        }
    }

    /// Appends one quoted piece: `raw` is its source text including the
    /// quotes (the closing one may be missing), starting at offset `start`.
    pub fn push_piece(&mut self, raw: &str, start: usize) {
        let body_start = start + 1;
        let body = body_of(raw);
        if self.text.is_empty()
            && self.base.is_none()
            && memchr::memchr(b'\\', body.as_bytes()).is_none()
        {
            // The first piece, without escapes: the text is the body.
            self.text.push_str(body);
            self.base = Some(body_start as u32);
        } else {
            self.materialise();
            walk(body, |c, from, to| {
                self.push_char(c, body_start + from, body_start + to)
            });
        }
        self.end = (body_start + body.len()) as u32;
    }

    /// Replaces the offset map by the per-byte tables, before appending
    /// text that does not continue it.
    fn materialise(&mut self) {
        let Some(base) = self.base.take() else { return };
        let base = base as usize;
        let text = std::mem::take(&mut self.text);
        self.text.reserve(text.len());
        for (i, c) in text.char_indices() {
            self.push_char(c, base + i, base + i + c.len_utf8());
        }
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
    while let Some(i) = memchr::memchr(b'\\', body.as_bytes()) {
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
    Decoded {
        text: text.to_string(),
        base: Some(start as u32),
        starts: Vec::new(),
        ends: Vec::new(),
        end: (start + text.len()) as u32,
    }
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

    /// The offset map of an escape-free piece gives the same spans as the
    /// per-byte tables it stands for.
    #[test]
    fn offset_map_agrees_with_tables() {
        for raw in ["\"plain\"", "\"é-ü x\"", "\"\"", "\"open é", "\"日本\""] {
            let linear = decode(raw, 7);
            assert!(linear.base.is_some(), "{raw}");
            let mut tables = linear.clone();
            tables.materialise();
            assert!(tables.base.is_none());
            assert_eq!(linear.text, tables.text);
            let n = linear.text.len() + 2;
            for a in 0..n {
                for b in 0..n {
                    assert_eq!(linear.span(a..b), tables.span(a..b), "{raw} {a}..{b}");
                }
            }
        }
        let bare = verbatim("ab€", 3);
        let mut tables = bare.clone();
        tables.materialise();
        assert_eq!(bare.span(2..3), Span { start: 5, end: 8 });
        assert_eq!(tables.span(2..3), Span { start: 5, end: 8 });
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
