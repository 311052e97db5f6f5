//! String literals: escape checking, decoding, text-block indentation and
//! `$key` / `${key}` interpolation markers.
//!
//! The lexer checks escapes once and reports WF0003; the parser decodes the
//! same raw text without reporting again (an invalid escape is kept as
//! written, so the value still shows what the user typed).

use wf_diagnostics::{Diagnostic, FileId, Span, codes};

use crate::ast::{Interpolation, Key};

/// The help shown for every invalid escape except the unicode ones.
const ESCAPES_HELP: &str =
    "valid escapes are \\\" \\\\ \\n \\t \\r \\0 \\$ and \\u{…}; write \\\\ for a backslash";

/// The help shown for an invalid `\u{…}` escape.
const UNICODE_HELP: &str = "a unicode escape is `\\u{…}` with one to six hexadecimal digits \
     naming a Unicode scalar value: U+0000 to U+10FFFF, except the surrogates \
     U+D800 to U+DFFF (`\\u{1F600}` is 😀)";

/// One escape sequence found in raw string text.
enum Escape {
    /// A valid escape producing this character, `len` bytes long.
    Char(char, usize),
    /// An invalid escape.
    Invalid(BadEscape),
}

/// Why an escape is invalid, and how long it is.
struct BadEscape {
    /// Its length in bytes, from the backslash.
    len: usize,
    /// Appended to the message (invalid escape `\u{zz}`: …), if anything.
    detail: Option<String>,
    /// The label on the escape.
    label: String,
    /// The help line.
    help: String,
}

fn bad(len: usize, label: impl Into<String>) -> Escape {
    Escape::Invalid(BadEscape {
        len,
        detail: None,
        label: label.into(),
        help: ESCAPES_HELP.into(),
    })
}

fn bad_unicode(len: usize, detail: impl Into<String>, label: impl Into<String>) -> Escape {
    Escape::Invalid(BadEscape {
        len,
        detail: Some(detail.into()),
        label: label.into(),
        help: UNICODE_HELP.into(),
    })
}

/// Reads the escape starting at the backslash at `s[0]`.
fn escape_at(s: &str) -> Escape {
    let mut chars = s[1..].chars();
    let Some(c) = chars.next() else {
        return bad(1, "a backslash must be followed by an escape character");
    };
    let simple = match c {
        '"' => Some('"'),
        '\\' => Some('\\'),
        'n' => Some('\n'),
        't' => Some('\t'),
        'r' => Some('\r'),
        '0' => Some('\0'),
        '$' => Some('$'),
        _ => None,
    };
    if let Some(ch) = simple {
        return Escape::Char(ch, 2);
    }
    match c {
        'u' => unicode_escape(s),
        '\n' | '\r' => bad(1, "a backslash cannot end a line"),
        _ => bad(1 + c.len_utf8(), "unknown escape"),
    }
}

/// `\u{1F600}`: one to six hex digits naming a Unicode scalar value.
///
/// The digits are taken to be the run of ASCII letters and digits after the
/// `{`, so that a malformed escape (`\u{zz}`) is reported as a whole.
fn unicode_escape(s: &str) -> Escape {
    let rest = &s[2..];
    let Some(body) = rest.strip_prefix('{') else {
        let digits = rest.len()
            - rest
                .trim_start_matches(|c: char| c.is_ascii_hexdigit())
                .len();
        return Escape::Invalid(BadEscape {
            len: 2,
            detail: Some("missing `{`".into()),
            label: "a unicode escape is written `\\u{…}`".into(),
            help: if (1..=6).contains(&digits) {
                format!(
                    "put the digits between braces: `\\u{{{}}}`",
                    &rest[..digits]
                )
            } else {
                UNICODE_HELP.into()
            },
        });
    };
    let digits_len = body.len()
        - body
            .trim_start_matches(|c: char| c.is_ascii_alphanumeric())
            .len();
    let digits = &body[..digits_len];
    if !body[digits_len..].starts_with('}') {
        return bad_unicode(
            3 + digits_len,
            "missing `}`",
            "this unicode escape has no closing `}`",
        );
    }
    let len = 4 + digits_len;
    if digits.is_empty() {
        return bad_unicode(
            len,
            "no hex digits",
            "one to six hex digits go between the braces",
        );
    }
    if let Some(c) = digits.chars().find(|c| !c.is_ascii_hexdigit()) {
        return bad_unicode(
            len,
            "the digits are not hexadecimal",
            format!("`{c}` is not a hexadecimal digit (0-9, a-f, A-F)"),
        );
    }
    if digits.len() > 6 {
        return bad_unicode(
            len,
            "more than six hex digits",
            "a unicode escape has one to six hex digits",
        );
    }
    // At most six hex digits: always fits in a `u32`.
    let value = u32::from_str_radix(digits, 16).unwrap_or(u32::MAX);
    match char::from_u32(value) {
        Some(ch) => Escape::Char(ch, len),
        None if (0xD800..=0xDFFF).contains(&value) => bad_unicode(
            len,
            format!("U+{value:04X} is a surrogate, not a character"),
            "surrogates (U+D800 to U+DFFF) cannot be written",
        ),
        None => bad_unicode(
            len,
            format!("U+{value:X} is out of range"),
            "beyond U+10FFFF, the largest Unicode code point",
        ),
    }
}

/// Reports every invalid escape in `raw` (a string or text block as
/// written, starting at byte `offset` of the file) as WF0003.
pub(crate) fn check_escapes(raw: &str, offset: usize, file: FileId, out: &mut Vec<Diagnostic>) {
    let mut i = 0;
    while let Some(found) = raw[i..].find('\\') {
        let at = i + found;
        match escape_at(&raw[at..]) {
            Escape::Char(_, len) => i = at + len,
            Escape::Invalid(bad) => {
                let len = bad.len;
                let text = &raw[at..at + len];
                let mut message = if text == "\\" {
                    "invalid escape: a lone backslash".to_string()
                } else {
                    format!("invalid escape `{text}`")
                };
                if let Some(detail) = bad.detail {
                    message = format!("{message}: {detail}");
                }
                out.push(
                    Diagnostic::new(
                        &codes::INVALID_ESCAPE,
                        message,
                        Span::new(offset + at, offset + at + len).in_file(file),
                    )
                    .with_primary_label(bad.label)
                    .with_help(bad.help),
                );
                i = at + len;
            }
        }
    }
}

/// Resolves escapes; invalid ones are kept as written.
pub(crate) fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while let Some(found) = s[i..].find('\\') {
        let at = i + found;
        out.push_str(&s[i..at]);
        match escape_at(&s[at..]) {
            Escape::Char(ch, len) => {
                out.push(ch);
                i = at + len;
            }
            Escape::Invalid(bad) => {
                out.push_str(&s[at..at + bad.len]);
                i = at + bad.len;
            }
        }
    }
    out.push_str(&s[i..]);
    out
}

/// Whether the quote ending `body` is a real closing quote (not escaped).
fn ends_with_closing_quote(body: &str) -> bool {
    let Some(before) = body.strip_suffix('"') else {
        return false;
    };
    let backslashes = before.len() - before.trim_end_matches('\\').len();
    backslashes % 2 == 0
}

/// The value of a `"…"` string token (raw text including quotes; the closing
/// quote may be missing after an error).
pub(crate) fn decode_str(raw: &str) -> String {
    let body = raw.strip_prefix('"').unwrap_or(raw);
    let body = if ends_with_closing_quote(body) {
        &body[..body.len() - 1]
    } else {
        body
    };
    unescape(body)
}

/// The value of a `` `…` `` key token.
pub(crate) fn decode_backtick(raw: &str) -> String {
    let body = raw.strip_prefix('`').unwrap_or(raw);
    body.strip_suffix('`').unwrap_or(body).to_string()
}

/// The value of a `"""…"""` text block (raw text including the quotes).
///
/// The rule, also stated in `grammar/wf.ebnf`: split the text between the
/// quotes into lines (a `\r` before a line break is dropped); if the first
/// line (the rest of the opening line) is blank, drop it; if the last line
/// (the text before the closing quotes) is blank, drop it; find the longest
/// run of spaces and tabs that starts every remaining non-blank line and
/// remove it from each of them; make blank lines empty; join the lines with
/// `\n`; then resolve escapes (so an escaped `\t` or `\n` never counts as
/// indentation).
pub(crate) fn decode_text_block(raw: &str) -> String {
    let body = raw.strip_prefix("\"\"\"").unwrap_or(raw);
    let body = if body.len() >= 3 && body.ends_with("\"\"\"") {
        &body[..body.len() - 3]
    } else {
        body
    };
    let mut lines: Vec<&str> = body
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let blank = |l: &str| l.trim_matches([' ', '\t']).is_empty();
    if lines.len() > 1 && blank(lines[0]) {
        lines.remove(0);
    }
    if lines.len() > 1 && lines.last().is_some_and(|l| blank(l)) {
        lines.pop();
    }
    let mut indent: Option<&str> = None;
    for line in lines.iter().filter(|l| !blank(l)) {
        let lead = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
        indent = Some(match indent {
            None => lead,
            Some(prev) => {
                let common = prev
                    .bytes()
                    .zip(lead.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                &prev[..common]
            }
        });
    }
    let indent = indent.unwrap_or("").len();
    let stripped: Vec<&str> = lines
        .iter()
        .map(|l| if blank(l) { "" } else { &l[indent..] })
        .collect();
    unescape(&stripped.join("\n"))
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_continue(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The end of a dotted identifier path starting at `bytes[start]` (which must
/// start an identifier). A trailing `.` not followed by an identifier is not
/// part of the path (`"Ship $ticket."`).
fn path_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start;
    loop {
        while i < bytes.len() && is_ident_continue(bytes[i]) {
            i += 1;
        }
        if i + 1 < bytes.len() && bytes[i] == b'.' && is_ident_start(bytes[i + 1]) {
            i += 1;
        } else {
            return i;
        }
    }
}

/// Finds the `$key` and `${key}` markers in raw string text starting at byte
/// `offset` of the file. `\$` is a literal dollar; a `$` not followed by an
/// identifier or by `{identifier path}` is literal text too.
pub(crate) fn interpolations(raw: &str, offset: usize) -> Vec<Interpolation> {
    let bytes = raw.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'$' => {
                let (key_start, braced) = match bytes.get(i + 1) {
                    Some(b'{') => (i + 2, true),
                    _ => (i + 1, false),
                };
                if !bytes.get(key_start).is_some_and(|&b| is_ident_start(b)) {
                    i += 1;
                    continue;
                }
                let key_end = path_end(bytes, key_start);
                let end = if braced {
                    if bytes.get(key_end) != Some(&b'}') {
                        i += 1;
                        continue;
                    }
                    key_end + 1
                } else {
                    key_end
                };
                out.push(Interpolation {
                    key: Key {
                        text: raw[key_start..key_end].to_string(),
                        span: Span::new(offset + key_start, offset + key_end),
                        quoted: false,
                    },
                    span: Span::new(offset + i, offset + end),
                });
                i = end;
            }
            _ => i += 1,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescape_resolves_every_escape() {
        assert_eq!(
            unescape(r#"a\"b\\c\nd\te\rf\0g\$h\u{1F600}\u{e9}"#),
            "a\"b\\c\nd\te\rf\0g$h😀é"
        );
    }

    #[test]
    fn unescape_keeps_invalid_escapes() {
        assert_eq!(unescape(r"a\qb\u{110000}c\"), r"a\qb\u{110000}c\");
    }

    #[test]
    fn escape_spans_cover_the_escape() {
        let mut out = Vec::new();
        check_escapes(r#""x\qy\u{zz}\é""#, 10, FileId(0), &mut out);
        let spans: Vec<_> = out
            .iter()
            .map(|d| d.primary.location.span.range())
            .collect();
        assert_eq!(spans, vec![12..14, 15..21, 21..24]);
    }

    fn unicode_errors(raw: &str) -> Vec<(std::ops::Range<usize>, String, String)> {
        let mut out = Vec::new();
        check_escapes(raw, 0, FileId(0), &mut out);
        out.into_iter()
            .map(|d| {
                (
                    d.primary.location.span.range(),
                    d.message,
                    d.primary.message,
                )
            })
            .collect()
    }

    #[test]
    fn unicode_escape_errors_cover_the_whole_escape_and_say_why() {
        let one = |raw: &str| {
            let mut found = unicode_errors(raw);
            assert_eq!(found.len(), 1, "{raw}: {found:?}");
            found.remove(0)
        };
        let (span, message, label) = one(r#""\u{zz}""#);
        assert_eq!(span, 1..7);
        assert_eq!(
            message,
            r"invalid escape `\u{zz}`: the digits are not hexadecimal"
        );
        assert_eq!(label, "`z` is not a hexadecimal digit (0-9, a-f, A-F)");
        let (span, message, _) = one(r#""\u{12g4}x""#);
        assert_eq!(
            (span, message.as_str()),
            (
                1..9,
                r"invalid escape `\u{12g4}`: the digits are not hexadecimal"
            )
        );
        let (span, message, label) = one(r#""\u{110000}""#);
        assert_eq!(span, 1..11);
        assert_eq!(
            message,
            r"invalid escape `\u{110000}`: U+110000 is out of range"
        );
        assert_eq!(label, "beyond U+10FFFF, the largest Unicode code point");
        let (span, message, _) = one(r#""\u{FFFFFF}""#);
        assert_eq!(
            (span, message.as_str()),
            (
                1..11,
                r"invalid escape `\u{FFFFFF}`: U+FFFFFF is out of range"
            )
        );
        let (span, message, label) = one(r#""\u{D800}""#);
        assert_eq!(span, 1..9);
        assert_eq!(
            message,
            r"invalid escape `\u{D800}`: U+D800 is a surrogate, not a character"
        );
        assert_eq!(label, "surrogates (U+D800 to U+DFFF) cannot be written");
        assert_eq!(
            one(r#""\u{dfff}""#).1,
            r"invalid escape `\u{dfff}`: U+DFFF is a surrogate, not a character"
        );
        let (span, message, _) = one(r#""\u{}""#);
        assert_eq!(
            (span, message.as_str()),
            (1..5, r"invalid escape `\u{}`: no hex digits")
        );
        let (span, message, _) = one(r#""\u{1234567}""#);
        assert_eq!(
            (span, message.as_str()),
            (
                1..12,
                r"invalid escape `\u{1234567}`: more than six hex digits"
            )
        );
        let (span, message, _) = one(r#""\u{12 }""#);
        assert_eq!(
            (span, message.as_str()),
            (1..6, r"invalid escape `\u{12`: missing `}`")
        );
        let (span, message, _) = one(r#""\u0041""#);
        assert_eq!(
            (span, message.as_str()),
            (1..3, r"invalid escape `\u`: missing `{`")
        );
        // The largest scalar value and the ones around the surrogates are fine.
        for ok in [
            r"\u{10FFFF}",
            r"\u{D7FF}",
            r"\u{E000}",
            r"\u{0}",
            r"\u{00e9}",
        ] {
            assert!(unicode_errors(ok).is_empty(), "{ok}");
        }
        assert_eq!(unescape(r"\u{zz}|\u{D800}"), r"\u{zz}|\u{D800}");
    }

    #[test]
    fn decode_str_handles_unterminated_and_escaped_quotes() {
        assert_eq!(decode_str(r#""abc""#), "abc");
        assert_eq!(decode_str(r#""abc"#), "abc");
        assert_eq!(decode_str(r#""abc\""#), "abc\"");
        assert_eq!(decode_str(r#""abc\\""#), "abc\\");
        assert_eq!(decode_str("\""), "");
    }

    #[test]
    fn text_block_strips_common_indentation() {
        let raw = "\"\"\"\n      First.\n\n        More.\n      Last.\\t\n      \"\"\"";
        assert_eq!(decode_text_block(raw), "First.\n\n  More.\nLast.\t");
        assert_eq!(decode_text_block("\"\"\"one line\"\"\""), "one line");
        assert_eq!(decode_text_block("\"\"\"\"\"\""), "");
        assert_eq!(
            decode_text_block("\"\"\"\r\n  a\r\n   b\r\n  \"\"\""),
            "a\n b"
        );
        assert_eq!(decode_text_block("\"\"\"\n\ta\n  b\n\"\"\""), "\ta\n  b");
        assert_eq!(
            decode_text_block("\"\"\"unterminated\n  x"),
            "unterminated\n  x"
        );
    }

    #[test]
    fn interpolation_markers() {
        let raw = r#""Ship $ticket. ${a.b} \$no $5 ${ bad } $x.y.""#;
        let found: Vec<_> = interpolations(raw, 100)
            .into_iter()
            .map(|i| (i.key.text, i.span.range(), i.key.span.range()))
            .collect();
        assert_eq!(
            found,
            vec![
                ("ticket".to_string(), 106..113, 107..113),
                ("a.b".to_string(), 115..121, 117..120),
                ("x.y".to_string(), 139..143, 140..143),
            ]
        );
    }
}
