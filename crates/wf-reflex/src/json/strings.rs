//! Strings and their escapes.

use wf_diagnostics::Span;

use super::{JsonError, Parser};

impl Parser<'_> {
    /// A string starting at the current `"`; leaves the position after the
    /// closing quote.
    pub(super) fn string(&mut self) -> Result<String, JsonError> {
        let open = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let run = self.pos;
            while let Some(&c) = self.bytes.get(self.pos) {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            // Stopped at ASCII bytes only, so these are char boundaries.
            out.push_str(&self.text[run..self.pos]);
            match self.bytes.get(self.pos) {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => out.push(self.escape()?),
                Some(b'\n') | None => {
                    let mut err = self.error(
                        Span::new(self.pos, self.pos),
                        "unterminated string",
                        "the string should end before here",
                    );
                    err.opened = Some((Span::new(open, open + 1), "the string starts here".into()));
                    return Err(err);
                }
                Some(&c) => {
                    return Err(self.error(
                        Span::new(self.pos, self.pos + 1),
                        format!("control character U+{c:04X} in a string: write it as an escape (such as `\\n` or `\\u{c:04x}`)"),
                        "raw control character",
                    ));
                }
            }
        }
    }

    /// One escape at the current `\`.
    fn escape(&mut self) -> Result<char, JsonError> {
        let start = self.pos;
        let simple = match self.bytes.get(start + 1) {
            Some(b'"') => Some('"'),
            Some(b'\\') => Some('\\'),
            Some(b'/') => Some('/'),
            Some(b'b') => Some('\u{8}'),
            Some(b'f') => Some('\u{c}'),
            Some(b'n') => Some('\n'),
            Some(b'r') => Some('\r'),
            Some(b't') => Some('\t'),
            Some(b'u') => None,
            _ => {
                let len = 1 + self.text[start + 1..]
                    .chars()
                    .next()
                    .map_or(0, char::len_utf8);
                return Err(self.error(
                    Span::new(start, start + len),
                    "invalid escape: JSON allows `\\\"`, `\\\\`, `\\/`, `\\b`, `\\f`, `\\n`, `\\r`, `\\t` and `\\uXXXX`",
                    "invalid escape",
                ));
            }
        };
        if let Some(c) = simple {
            self.pos += 2;
            return Ok(c);
        }
        let high = self.hex4(start)?;
        if (0xD800..0xDC00).contains(&high) {
            // A surrogate pair: `\uD83D\uDE00`.
            if self.bytes[self.pos..].starts_with(b"\\u") {
                let low = self.hex4(self.pos)?;
                if (0xDC00..0xE000).contains(&low) {
                    let c = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                    return Ok(char::from_u32(c).unwrap_or('\u{fffd}'));
                }
            }
            return Err(self.lone_surrogate(start));
        }
        char::from_u32(high).ok_or_else(|| self.lone_surrogate(start))
    }

    fn lone_surrogate(&self, start: usize) -> JsonError {
        self.error(
            Span::new(start, start + 6),
            "invalid escape: a lone UTF-16 surrogate is not a character",
            "lone surrogate",
        )
    }

    /// `\uXXXX` at `at`; moves past it.
    fn hex4(&mut self, at: usize) -> Result<u32, JsonError> {
        let hex = self.bytes.get(at + 2..at + 6);
        match hex.and_then(|h| std::str::from_utf8(h).ok()).and_then(|h| {
            h.bytes()
                .all(|b| b.is_ascii_hexdigit())
                .then(|| u32::from_str_radix(h, 16).ok())
                .flatten()
        }) {
            Some(n) => {
                self.pos = at + 6;
                Ok(n)
            }
            None => Err(self.error(
                Span::new(at, (at + 2).min(self.bytes.len())),
                "invalid escape: `\\u` must be followed by four hexadecimal digits",
                "invalid escape",
            )),
        }
    }
}
