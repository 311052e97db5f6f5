//! The byte scanners behind [`super::lex`]: where each lexeme starting at
//! an offset ends.
//!
//! DOT's lexemes are told apart by their first byte or two, so a `match`
//! on those picks the scanner, and each scanner is a tight loop over bytes
//! (or `memchr` for the long ones: prompts, comments). This replaced a
//! logos DFA, which stepped through a state per byte; the old DFA is kept
//! as the reference of a differential test (`tests/it/lexer_reference.rs`).
//!
//! All scanners stop on a character boundary: they only stop before an
//! ASCII byte or at the end, and every byte of a non-ASCII character is
//! `>= 0x80`.

use super::Token;

/// What a lexeme is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lexeme {
    /// A run of `[ \t\r\n\f]`.
    Blanks,
    /// `// …` up to the line break.
    LineComment,
    /// `/* … */`; `false` when the file ends first.
    BlockComment(bool),
    /// `# …` at the start of a line, up to the line break.
    Hash,
    /// A character that starts no token (one ASCII byte).
    Invalid,
    /// A word: `-?W+([.:\-/]W+)*` or `-?\.[0-9]+`, where `W` is
    /// `[A-Za-z0-9_]` or any non-ASCII character.
    Word,
    /// `"…"`; `false` when the file ends first.
    Str(bool),
    /// `<…>`, balanced; `false` when the file ends first.
    Html(bool),
    /// A one- or two-byte punctuation token.
    Punct(Token<'static>),
}

/// The lexeme that starts at `start` (`< text.len()`, a character
/// boundary) and the offset where it ends.
pub(super) fn lexeme(text: &str, start: usize) -> (Lexeme, usize) {
    let bytes = text.as_bytes();
    let at = |i: usize| bytes.get(i).copied();
    let punct = |token: Token<'static>, len: usize| (Lexeme::Punct(token), start + len);
    match bytes[start] {
        b' ' | b'\t' | b'\r' | b'\n' | b'\x0C' => (Lexeme::Blanks, blanks_end(bytes, start + 1)),
        b'"' => string_end(bytes, start + 1),
        b'{' => punct(Token::LBrace, 1),
        b'}' => punct(Token::RBrace, 1),
        b'[' => punct(Token::LBracket, 1),
        b']' => punct(Token::RBracket, 1),
        b';' => punct(Token::Semi, 1),
        b',' => punct(Token::Comma, 1),
        b'=' => punct(Token::Eq, 1),
        b'+' => punct(Token::Plus, 1),
        b':' => punct(Token::Colon, 1),
        b'-' => match at(start + 1) {
            Some(b'>') => punct(Token::Arrow, 2),
            Some(b'-') => punct(Token::DashDash, 2),
            Some(b) if is_word_byte(b) => (Lexeme::Word, word_end(bytes, start + 1)),
            Some(b'.') if at(start + 2).is_some_and(|b| b.is_ascii_digit()) => {
                (Lexeme::Word, digits_end(bytes, start + 2))
            }
            _ => (Lexeme::Invalid, start + 1),
        },
        b'.' if at(start + 1).is_some_and(|b| b.is_ascii_digit()) => {
            (Lexeme::Word, digits_end(bytes, start + 1))
        }
        b'/' => match at(start + 1) {
            Some(b'/') => (Lexeme::LineComment, line_end(bytes, start)),
            Some(b'*') => match memchr::memmem::find(&bytes[start + 2..], b"*/") {
                Some(i) => (Lexeme::BlockComment(true), start + 2 + i + 2),
                None => (Lexeme::BlockComment(false), bytes.len()),
            },
            _ => (Lexeme::Invalid, start + 1),
        },
        b'#' if hash_at_line_start(text, start) => (Lexeme::Hash, line_end(bytes, start)),
        b'<' => html_end(bytes, start + 1),
        b if is_word_byte(b) => (Lexeme::Word, word_end(bytes, start)),
        _ => (Lexeme::Invalid, start + 1),
    }
}

/// Whether `b` is a byte of a word character: ASCII letters, digits, `_`,
/// or any byte of a non-ASCII character (in UTF-8 every byte of one is
/// `>= 0x80`, so the byte test is exactly the character class).
fn is_word_byte(b: u8) -> bool {
    WORD_BYTES[b as usize]
}

/// [`is_word_byte`] as a table: one load per byte in the word loop.
static WORD_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80;
        b += 1;
    }
    table
};

/// Whether `b` is a blank: `[ \t\r\n\f]`.
pub(super) fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'\x0C')
}

/// The end of a run of blanks that goes on at `from`.
pub(super) fn blanks_end(bytes: &[u8], from: usize) -> usize {
    let rest = &bytes[from..];
    from + rest
        .iter()
        .position(|&b| !is_blank(b))
        .unwrap_or(rest.len())
}

fn digits_end(bytes: &[u8], from: usize) -> usize {
    let rest = &bytes[from..];
    from + rest
        .iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(rest.len())
}

/// The end of the line (before its `\n`) or of the file.
fn line_end(bytes: &[u8], from: usize) -> usize {
    memchr::memchr(b'\n', &bytes[from..]).map_or(bytes.len(), |i| from + i)
}

/// The end of a word whose first word byte is at `from`: word bytes, then
/// any number of separator-and-word-bytes groups (`.5`, `-mini`, `:high`).
/// A separator not followed by a word byte is not part of the word
/// (`a->b`, `a--b`, `a.` before `}`).
fn word_end(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    loop {
        while i < bytes.len() && is_word_byte(bytes[i]) {
            i += 1;
        }
        match (bytes.get(i), bytes.get(i + 1)) {
            (Some(b'.' | b':' | b'-' | b'/'), Some(&next)) if is_word_byte(next) => i += 2,
            _ => return i,
        }
    }
}

/// A string's end after its opening quote: past the closing quote
/// (`true`), or the end of the file (`false`). Strings may span lines and
/// a backslash escapes any byte; `memchr2` jumps from one quote or
/// backslash to the next, as prompts are long and have few of either.
fn string_end(bytes: &[u8], from: usize) -> (Lexeme, usize) {
    let mut i = from;
    while i < bytes.len() {
        let Some(found) = memchr::memchr2(b'"', b'\\', &bytes[i..]) else {
            break;
        };
        let at = i + found;
        if bytes[at] == b'"' {
            return (Lexeme::Str(true), at + 1);
        }
        // Skip the escaped byte (a lead byte of an escaped non-ASCII
        // character: its continuation bytes are neither `"` nor `\`).
        i = at + 2;
    }
    (Lexeme::Str(false), bytes.len())
}

/// An HTML string's end after its `<`: past the `>` that balances it
/// (`true`), or the end of the file (`false`).
fn html_end(bytes: &[u8], from: usize) -> (Lexeme, usize) {
    let mut depth = 1usize;
    for (i, &b) in bytes[from..].iter().enumerate() {
        match b {
            b'<' => depth += 1,
            b'>' => {
                depth -= 1;
                if depth == 0 {
                    return (Lexeme::Html(true), from + i + 1);
                }
            }
            _ => {}
        }
    }
    (Lexeme::Html(false), bytes.len())
}

/// Whether the `#` at `start` is the first character of its line, after
/// blanks (Graphviz's rule for `#` lines; a byte-order mark counts as
/// text).
fn hash_at_line_start(text: &str, start: usize) -> bool {
    let before = &text[..start];
    let line = before.rsplit('\n').next().unwrap_or(before);
    line.chars().all(|c| c == ' ' || c == '\t' || c == '\r')
}
