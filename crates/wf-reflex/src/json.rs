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

mod strings;

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
        self.text
            .get(self.pos..)
            .and_then(|rest| rest.chars().next())
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
        if let (true, Ok(n)) = (integer, literal.parse::<i64>()) {
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
mod tests;
