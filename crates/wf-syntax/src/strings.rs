//! String literals: escape checking, decoding, text-block indentation and
//! `$key` / `${key}` interpolation markers.
//!
//! The lexer checks escapes once and reports WF0003; the parser decodes the
//! same raw text without reporting again (an invalid escape is kept as
//! written, so the value still shows what the user typed).

use wf_diagnostics::{Diagnostic, FileId, Span, codes};

use crate::ast::{Interpolation, Key};

/// One escape sequence found in raw string text.
enum Escape {
    /// A valid escape producing this character, `len` bytes long.
    Char(char, usize),
    /// An invalid escape, `len` bytes long, with the reason.
    Invalid(usize, &'static str),
}

/// Reads the escape starting at the backslash at `s[0]`.
fn escape_at(s: &str) -> Escape {
    let mut chars = s[1..].chars();
    let Some(c) = chars.next() else {
        return Escape::Invalid(1, "a backslash must be followed by an escape character");
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
        '\n' | '\r' => Escape::Invalid(1, "a backslash cannot end a line"),
        _ => Escape::Invalid(1 + c.len_utf8(), "unknown escape"),
    }
}

/// `\u{1F600}`: one to six hex digits naming a Unicode scalar value.
fn unicode_escape(s: &str) -> Escape {
    let rest = &s[2..];
    if !rest.starts_with('{') {
        return Escape::Invalid(2, "a unicode escape is written `\\u{…}`");
    }
    let hex_len = rest[1..]
        .find(|c: char| !c.is_ascii_hexdigit())
        .unwrap_or(rest.len() - 1);
    let hex = &rest[1..1 + hex_len];
    if !rest[1 + hex_len..].starts_with('}') {
        return Escape::Invalid(3 + hex_len, "a unicode escape is written `\\u{…}`");
    }
    let len = 4 + hex_len;
    if hex.is_empty() || hex.len() > 6 {
        return Escape::Invalid(len, "a unicode escape has one to six hex digits");
    }
    match u32::from_str_radix(hex, 16).ok().and_then(char::from_u32) {
        Some(ch) => Escape::Char(ch, len),
        None => Escape::Invalid(len, "not a Unicode scalar value"),
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
            Escape::Invalid(len, why) => {
                let text = &raw[at..at + len];
                out.push(
                    Diagnostic::new(
                        &codes::INVALID_ESCAPE,
                        if text == "\\" {
                            "invalid escape: a lone backslash".to_string()
                        } else {
                            format!("invalid escape `{text}`")
                        },
                        Span::new(offset + at, offset + at + len).in_file(file),
                    )
                    .with_primary_label(why)
                    .with_help(
                        "valid escapes are \\\" \\\\ \\n \\t \\r \\0 \\$ and \\u{…}; \
                         write \\\\ for a backslash",
                    ),
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
            Escape::Invalid(len, _) => {
                out.push_str(&s[at..at + len]);
                i = at + len;
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
        assert_eq!(spans, vec![12..14, 15..18, 21..24]);
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
