//! A strict JSON (RFC 8259) parser that keeps the byte span of every value
//! and every object key.
//!
//! Hand-written rather than taken from a crate because it is the core of
//! this front end: diagnostics must point at the exact key or value, object
//! members must keep their source order and their duplicates (so that a
//! repeated node id can be reported, not silently dropped), nesting is
//! bounded by [`MAX_DEPTH`] (hostile input cannot overflow the stack), and
//! JSON-with-comments leniencies are rejected as the Reflex format does.
//! The parser stops at the first error: a JSON document with a syntax error
//! has no reliable structure to check.

use wf_diagnostics::Span;

/// The deepest nesting of arrays and objects accepted. Reflex workflows
/// nest about five levels; opaque node specs may nest more, but not this.
pub const MAX_DEPTH: usize = 128;

/// A JSON value with its span.
#[derive(Debug, Clone, PartialEq)]
pub struct Json {
    /// The value.
    pub kind: JsonKind,
    /// Where it is written, delimiters and quotes included.
    pub span: Span,
}

/// The kinds of JSON values.
#[derive(Debug, Clone, PartialEq)]
pub enum JsonKind {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A number without fraction or exponent that fits an `i64`.
    Int(i64),
    /// Any other number.
    Float(f64),
    /// A string, escapes decoded.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, members in source order (duplicates kept).
    Object(Vec<Member>),
}

/// One `"key": value` member of an object.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    /// The key, escapes decoded.
    pub key: String,
    /// Where the key is written, quotes included.
    pub key_span: Span,
    /// The value.
    pub value: Json,
}

impl Json {
    /// What kind of value this is, for messages ("expected a string, found
    /// an array").
    pub fn describe(&self) -> &'static str {
        match self.kind {
            JsonKind::Null => "null",
            JsonKind::Bool(_) => "a boolean",
            JsonKind::Int(_) | JsonKind::Float(_) => "a number",
            JsonKind::String(_) => "a string",
            JsonKind::Array(_) => "an array",
            JsonKind::Object(_) => "an object",
        }
    }
}

/// A syntax error: what went wrong and where.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonError {
    /// The message.
    pub message: String,
    /// Where: the offending character or token (empty at the end of input).
    pub span: Span,
    /// A short label for the span.
    pub label: String,
    /// Where an enclosing construct began, when that helps (an unclosed
    /// string or bracket).
    pub opened: Option<(Span, String)>,
}

/// Parses one JSON document.
pub fn parse(text: &str) -> Result<Json, JsonError> {
    let mut parser = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        depth: 0,
    };
    parser.skip_ws();
    let value = parser.value()?;
    parser.skip_ws();
    if parser.pos < parser.bytes.len() {
        return Err(parser.unexpected("the end of the document"));
    }
    Ok(value)
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    /// The character at the current position (whole, for UTF-8).
    fn current_char(&self) -> Option<char> {
        self.text.get(self.pos..).and_then(|rest| rest.chars().next())
    }

    fn char_span(&self) -> Span {
        let len = self.current_char().map_or(0, char::len_utf8);
        Span::new(self.pos, self.pos + len)
    }

    fn error(&self, span: Span, message: impl Into<String>, label: impl Into<String>) -> JsonError {
        JsonError {
            message: message.into(),
            span,
            label: label.into(),
            opened: None,
        }
    }

    /// An error for whatever stands at the current position.
    fn unexpected(&self, expected: &str) -> JsonError {
        match self.current_char() {
            None => self.error(
                self.char_span(),
                format!("unexpected end of the document: expected {expected}"),
                format!("expected {expected}"),
            ),
            Some(c) => {
                let hint = match c {
                    '/' => " (JSON has no comments)",
                    '\'' => " (JSON strings use double quotes)",
                    _ => "",
                };
                self.error(
                    self.char_span(),
                    format!("unexpected {}: expected {expected}{hint}", show_char(c)),
                    format!("expected {expected}"),
                )
            }
        }
    }

    fn value(&mut self) -> Result<Json, JsonError> {
        let start = self.pos;
        match self.bytes.get(self.pos) {
            Some(b'{') => self.nested(|p| p.object(start)),
            Some(b'[') => self.nested(|p| p.array(start)),
            Some(b'"') => {
                let string = self.string()?;
                Ok(Json {
                    kind: JsonKind::String(string),
                    span: Span::new(start, self.pos),
                })
            }
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.word("true", JsonKind::Bool(true)),
            Some(b'f') => self.word("false", JsonKind::Bool(false)),
            Some(b'n') => self.word("null", JsonKind::Null),
            _ => Err(self.unexpected("a value")),
        }
    }

    fn nested(
        &mut self,
        parse: impl FnOnce(&mut Self) -> Result<Json, JsonError>,
    ) -> Result<Json, JsonError> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error(
                self.char_span(),
                format!("the document nests arrays and objects more than {MAX_DEPTH} levels deep"),
                "too deep",
            ));
        }
        self.depth += 1;
        let result = parse(self);
        self.depth -= 1;
        result
    }

    fn word(&mut self, word: &str, kind: JsonKind) -> Result<Json, JsonError> {
        let start = self.pos;
        if self.bytes[start..].starts_with(word.as_bytes()) {
            let end = start + word.len();
            // `nullx`: the word must end here.
            if !self.bytes.get(end).is_some_and(u8::is_ascii_alphanumeric) {
                self.pos = end;
                return Ok(Json {
                    kind,
                    span: Span::new(start, end),
                });
            }
        }
        let end = start
            + self.bytes[start..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count();
        Err(self.error(
            Span::new(start, end.max(start + 1)),
            format!(
                "unexpected `{}`: expected a value (`true`, `false`, `null`, a number, a string, an array or an object)",
                &self.text[start..end.max(start + 1).min(self.text.len())]
            ),
            "not a JSON value",
        ))
    }

    fn number(&mut self) -> Result<Json, JsonError> {
        let start = self.pos;
        let b = self.bytes;
        let mut i = start;
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        let digits = |i: usize| i + b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        let int_end = digits(i);
        let bad = |p: &Self, end: usize, why: &str| {
            Err(p.error(
                Span::new(start, end.max(start + 1).min(p.bytes.len())),
                format!("malformed number: {why}"),
                "malformed number",
            ))
        };
        if int_end == i {
            return bad(self, i + 1, "a digit must follow `-`");
        }
        if b[i] == b'0' && int_end > i + 1 {
            return bad(self, int_end, "JSON numbers have no leading zeros");
        }
        let mut end = int_end;
        let mut integer = true;
        if b.get(end) == Some(&b'.') {
            integer = false;
            let frac_end = digits(end + 1);
            if frac_end == end + 1 {
                return bad(self, end + 1, "a digit must follow `.`");
            }
            end = frac_end;
        }
        if let Some(b'e' | b'E') = b.get(end) {
            integer = false;
            let mut e = end + 1;
            if let Some(b'+' | b'-') = b.get(e) {
                e += 1;
            }
            let exp_end = digits(e);
            if exp_end == e {
                return bad(self, e, "a digit must follow the exponent");
            }
            end = exp_end;
        }
        self.pos = end;
        let literal = &self.text[start..end];
        let span = Span::new(start, end);
        if integer && let Ok(n) = literal.parse::<i64>() {
            return Ok(Json {
                kind: JsonKind::Int(n),
                span,
            });
        }
        match literal.parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(Json {
                kind: JsonKind::Float(f),
                span,
            }),
            _ => bad(self, end, "out of range"),
        }
    }

    /// A string starting at the current `"`; leaves the position after the
    /// closing quote.
    fn string(&mut self) -> Result<String, JsonError> {
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

    fn array(&mut self, start: usize) -> Result<Json, JsonError> {
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(Json {
                kind: JsonKind::Array(items),
                span: Span::new(start, self.pos),
            });
        }
        loop {
            self.skip_ws();
            items.push(self.value()?);
            self.skip_ws();
            match self.bytes.get(self.pos) {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_ws();
                    if self.bytes.get(self.pos) == Some(&b']') {
                        return Err(self.trailing_comma());
                    }
                }
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Json {
                        kind: JsonKind::Array(items),
                        span: Span::new(start, self.pos),
                    });
                }
                _ => return Err(self.unclosed(start, "`,` or `]`", "the array")),
            }
        }
    }

    fn object(&mut self, start: usize) -> Result<Json, JsonError> {
        self.pos += 1;
        let mut members = Vec::new();
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(Json {
                kind: JsonKind::Object(members),
                span: Span::new(start, self.pos),
            });
        }
        loop {
            self.skip_ws();
            if self.bytes.get(self.pos) != Some(&b'"') {
                return Err(self.unexpected("a member name in double quotes"));
            }
            let key_start = self.pos;
            let key = self.string()?;
            let key_span = Span::new(key_start, self.pos);
            self.skip_ws();
            if self.bytes.get(self.pos) != Some(&b':') {
                return Err(self.unexpected("`:` after the member name"));
            }
            self.pos += 1;
            self.skip_ws();
            let value = self.value()?;
            members.push(Member {
                key,
                key_span,
                value,
            });
            self.skip_ws();
            match self.bytes.get(self.pos) {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_ws();
                    if self.bytes.get(self.pos) == Some(&b'}') {
                        return Err(self.trailing_comma());
                    }
                }
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Json {
                        kind: JsonKind::Object(members),
                        span: Span::new(start, self.pos),
                    });
                }
                _ => return Err(self.unclosed(start, "`,` or `}`", "the object")),
            }
        }
    }

    /// At a closing bracket right after a comma (the comma was consumed).
    fn trailing_comma(&self) -> JsonError {
        let comma = self.bytes[..self.pos]
            .iter()
            .rposition(|&b| b == b',')
            .unwrap_or(self.pos);
        self.error(
            Span::new(comma, comma + 1),
            "trailing comma: JSON allows no comma before a closing bracket",
            "remove this comma",
        )
    }

    /// Neither a separator nor the closing bracket: point at what is there,
    /// and at the opening bracket.
    fn unclosed(&self, open: usize, expected: &str, what: &str) -> JsonError {
        let mut err = self.unexpected(expected);
        err.opened = Some((Span::new(open, open + 1), format!("{what} starts here")));
        err
    }
}

/// A character as shown in messages.
fn show_char(c: char) -> String {
    if c.is_control() || c.is_whitespace() {
        format!("character U+{:04X}", c as u32)
    } else {
        format!("`{c}`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Json {
        parse(text).unwrap_or_else(|e| panic!("{text}: {e:?}"))
    }

    fn err(text: &str) -> JsonError {
        parse(text).expect_err(text)
    }

    #[test]
    fn values_and_spans() {
        let json = ok(r#" { "a" : [1, -2.5e3, true, null, "x\"\u00e9\ud83d\ude00"] } "#);
        assert_eq!(json.span, Span::new(1, 59));
        let JsonKind::Object(members) = &json.kind else {
            panic!()
        };
        assert_eq!(members[0].key, "a");
        assert_eq!(members[0].key_span, Span::new(3, 6));
        let JsonKind::Array(items) = &members[0].value.kind else {
            panic!()
        };
        assert_eq!(items[0].kind, JsonKind::Int(1));
        assert_eq!(items[1].kind, JsonKind::Float(-2500.0));
        assert_eq!(items[2].kind, JsonKind::Bool(true));
        assert_eq!(items[3].kind, JsonKind::Null);
        assert_eq!(items[4].kind, JsonKind::String("x\"é😀".into()));
    }

    #[test]
    fn duplicate_keys_are_kept_in_order() {
        let JsonKind::Object(m) = ok(r#"{"a":1,"a":2}"#).kind else {
            panic!()
        };
        assert_eq!(m.len(), 2);
        assert_eq!(m[1].value.kind, JsonKind::Int(2));
    }

    #[test]
    fn big_integers_become_floats() {
        assert_eq!(ok("123456789012345678901").kind, JsonKind::Float(1.2345678901234568e20));
        assert!(err("1e999").message.contains("out of range"));
    }

    #[test]
    fn errors_point_at_the_problem() {
        let e = err("{\"a\": 1,}");
        assert!(e.message.contains("trailing comma"), "{e:?}");
        assert_eq!(e.span, Span::new(7, 8));
        let e = err("{\"a\" 1}");
        assert!(e.message.contains("`:`"), "{e:?}");
        assert_eq!(e.span, Span::new(5, 6));
        let e = err("[1, 2");
        assert!(e.message.contains("end of the document"), "{e:?}");
        assert_eq!(e.opened.unwrap().0, Span::new(0, 1));
        let e = err("{\"a\": \"b}");
        assert!(e.message.contains("unterminated"), "{e:?}");
        assert!(err("// c\n{}").message.contains("no comments"));
        assert!(err("{'a': 1}").message.contains("double quotes"));
        assert!(err("01").message.contains("leading zeros"));
        assert!(err("-").message.contains("digit"));
        assert!(err("nul").message.contains("unexpected `nul`"));
        assert!(err("\"\\x\"").message.contains("invalid escape"));
        assert!(err("\"\\ud800\"").message.contains("surrogate"));
        assert!(err("\"\\u12\"").message.contains("four hexadecimal"));
        assert!(err("\"a\tb\"").message.contains("control character"));
        assert!(err("{} {}").message.contains("end of the document"));
        assert!(err("").message.contains("unexpected end"));
        assert!(err("\u{e9}").message.contains("`é`"));
    }

    #[test]
    fn depth_is_bounded() {
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        assert!(err(&deep).message.contains("levels deep"));
        let fine = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        ok(&fine);
        // Far deeper input fails fast, without overflowing the stack.
        let hostile = "{\"a\":".repeat(100_000);
        assert!(err(&hostile).message.contains("levels deep"));
    }

    #[test]
    fn agrees_with_serde_json_on_valid_documents() {
        for text in [
            r#"{"x": [1, 2.5, "s", {"y": null}], "z": false}"#,
            r#""\u00e9\n\/""#,
            "-0.0",
            "[]",
        ] {
            let ours = ok(text);
            let theirs: serde_json::Value = serde_json::from_str(text).unwrap();
            assert_eq!(to_serde(&ours), theirs, "{text}");
        }
    }

    fn to_serde(json: &Json) -> serde_json::Value {
        use serde_json::Value as V;
        match &json.kind {
            JsonKind::Null => V::Null,
            JsonKind::Bool(b) => V::Bool(*b),
            JsonKind::Int(n) => V::from(*n),
            JsonKind::Float(f) => V::from(*f),
            JsonKind::String(s) => V::String(s.clone()),
            JsonKind::Array(items) => V::Array(items.iter().map(to_serde).collect()),
            JsonKind::Object(m) => V::Object(
                m.iter()
                    .map(|m| (m.key.clone(), to_serde(&m.value)))
                    .collect(),
            ),
        }
    }
}
