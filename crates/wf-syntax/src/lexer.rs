//! The lexer: source text to tokens, trivia and lexical diagnostics.
//!
//! A logos DFA finds the raw lexemes; a single pass over them then checks
//! literals (escapes, number ranges), maps words to keywords (except in a
//! dotted key: a keyword written directly after `key.` is an identifier, and
//! one starting a key, `tool.output`, is reported), groups invalid
//! characters, and moves comments and blank lines into the trivia table, so
//! the parser only ever sees meaningful tokens. Lexical errors never stop
//! lexing: each bad lexeme still yields a token (`BadNumber`, `Error`, an
//! unterminated `Str`) so the parser can carry on without piling up
//! follow-on errors.

use logos::Logos;
use wf_diagnostics::{Diagnostic, FileId, Span, codes};

use crate::strings::check_escapes;
use crate::token::{Token, keyword};
use crate::{Trivia, TriviaKind};

/// The output of [`lex`].
#[derive(Debug, Clone)]
pub struct Lexed<'src> {
    /// Tokens with their byte spans, without comments or whitespace.
    pub tokens: Vec<(Token<'src>, Span)>,
    /// Comments, doc comments and blank-line runs, in source order.
    pub trivia: Vec<Trivia>,
    /// Lexical errors (WF0002, WF0003, WF0005, WF0006, WF0007, and WF0001
    /// for a key starting with a keyword), in source order.
    pub diagnostics: Vec<Diagnostic>,
    /// An unterminated block comment or text block ran to the end of the
    /// file, swallowing whatever closing brackets followed it.
    pub runs_to_end: bool,
}

/// Raw lexemes as the logos DFA sees them; [`lex`] turns them into [`Token`]s.
#[derive(Logos, Debug, Clone, Copy, PartialEq)]
enum Raw {
    #[regex(r"[ \t\r\n\f]+")]
    Whitespace,
    #[regex(r"//[^\n]*", allow_greedy = true)]
    LineComment,
    // `////…` stays a plain comment (as in Rust): a doc comment is exactly
    // three slashes, so the longer line-comment match wins there.
    #[regex(r"///([^/\n][^\n]*)?", priority = 20, allow_greedy = true)]
    DocComment,
    #[token("/*", block_comment)]
    BlockComment(bool),
    #[regex(r"[A-Za-z][A-Za-z0-9_]*|_[A-Za-z0-9_]+")]
    Word,
    #[regex(r#""([^"\\\n]|\\[^\n])*""#)]
    Str,
    // Without the closing quote the match stops at the end of the line, so
    // lexing resumes on the next line.
    #[regex(r#""([^"\\\n]|\\[^\n])*\\?"#)]
    UnterminatedStr,
    #[token("\"\"\"", text_block)]
    TextBlock(bool),
    #[regex(r"`[^`\n]*`")]
    Backtick,
    #[regex(r"`[^`\n]*")]
    UnterminatedBacktick,
    #[regex(r"[0-9][0-9_]*")]
    Int,
    #[regex(r"[0-9][0-9_]*\.[0-9][0-9_]*([eE][+-]?[0-9]+)?", priority = 20)]
    Float,
    #[regex(r"[0-9][0-9_]*(ms|s|m|h|d)", priority = 20)]
    Duration,
    // Anything number-like glued to letters (`15min`, `1x`, `1e5`) is one
    // bad lexeme rather than a number followed by a name.
    #[regex(
        r"[0-9][0-9_]*(\.[0-9][0-9_]*)?([eE][+-]?[0-9]+)?[A-Za-z_][A-Za-z0-9_]*",
        priority = 1
    )]
    BadNumber,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token(":")]
    Colon,
    #[token("=")]
    Eq,
    #[token(".")]
    Dot,
    #[token("?")]
    Question,
    #[token("->")]
    Arrow,
    #[token("<-")]
    LArrow,
    #[token("==")]
    EqEq,
    #[token("!=")]
    NotEq,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
    #[token("!")]
    Bang,
}

/// Consumes a block comment up to and including `*/`; `false` when the file
/// ends first.
fn block_comment(lex: &mut logos::Lexer<Raw>) -> bool {
    let rest = lex.remainder();
    match rest.find("*/") {
        Some(i) => {
            lex.bump(i + 2);
            true
        }
        None => {
            lex.bump(rest.len());
            false
        }
    }
}

/// Consumes a text block up to and including the first unescaped `"""`;
/// `false` when the file ends first.
fn text_block(lex: &mut logos::Lexer<Raw>) -> bool {
    let rest = lex.remainder().as_bytes();
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            // An escaped character can never close the block (`\"""`).
            b'\\' => i += 2,
            b'"' if rest[i..].starts_with(b"\"\"\"") => {
                lex.bump(i + 3);
                return true;
            }
            _ => i += 1,
        }
    }
    lex.bump(rest.len());
    false
}

/// Lexes a whole file. Never fails: every problem becomes a diagnostic and
/// lexing continues.
pub fn lex(text: &str, file: FileId) -> Lexed<'_> {
    let mut out = Lexed {
        // About one token per six bytes in realistic files: one allocation
        // instead of a dozen doublings.
        tokens: Vec::with_capacity(text.len() / 6),
        trivia: Vec::new(),
        diagnostics: Vec::new(),
        runs_to_end: false,
    };
    // Adjacent invalid characters are reported once, as a group.
    let mut invalid: Option<(usize, usize)> = None;
    let mut lexer = Raw::lexer(text);
    // A byte-order mark is an encoding artefact, not part of the program.
    if text.starts_with('\u{FEFF}') {
        lexer.bump('\u{FEFF}'.len_utf8());
    }
    while let Some(raw) = lexer.next() {
        let range = lexer.span();
        let (start, end) = (range.start, range.end);
        let raw = match raw {
            Ok(raw) => raw,
            Err(()) => {
                invalid = match invalid {
                    Some((s, e)) if e == start => Some((s, end)),
                    Some(group) => {
                        flush_invalid(&mut out, text, group, file);
                        Some((start, end))
                    }
                    None => Some((start, end)),
                };
                continue;
            }
        };
        if let Some(group) = invalid.take() {
            flush_invalid(&mut out, text, group, file);
        }
        let slice = &text[start..end];
        let span = Span::new(start, end);
        let token = match raw {
            Raw::Whitespace => {
                blank_lines(&mut out.trivia, text, start, end);
                continue;
            }
            Raw::LineComment => {
                out.trivia.push(Trivia {
                    kind: TriviaKind::LineComment,
                    span,
                });
                continue;
            }
            Raw::DocComment => {
                out.trivia.push(Trivia {
                    kind: TriviaKind::DocComment,
                    span,
                });
                continue;
            }
            Raw::BlockComment(closed) => {
                out.trivia.push(Trivia {
                    kind: TriviaKind::BlockComment,
                    span,
                });
                if !closed {
                    out.runs_to_end = true;
                    out.diagnostics.push(
                        Diagnostic::new(
                            &codes::UNTERMINATED_COMMENT,
                            "unterminated block comment",
                            Span::new(start, start + 2).in_file(file),
                        )
                        .with_primary_label("this `/*` is never closed")
                        .with_help("add `*/` where the comment should end"),
                    );
                }
                continue;
            }
            Raw::Word => match keyword(slice) {
                Some(_) if continues_key_path(&out.tokens, start) => Token::Ident(slice),
                Some(_) if starts_key_path(text, end) => {
                    out.diagnostics
                        .push(keyword_starts_key(text, span, slice, file));
                    Token::Ident(slice)
                }
                Some(keyword) => keyword,
                None => Token::Ident(slice),
            },
            Raw::Str => {
                check_escapes(slice, start, file, &mut out.diagnostics);
                Token::Str(slice)
            }
            Raw::UnterminatedStr => {
                check_escapes(slice, start, file, &mut out.diagnostics);
                let shown = slice.trim_end_matches('\r');
                out.diagnostics.push(
                    Diagnostic::new(
                        &codes::UNTERMINATED_STRING,
                        "unterminated string",
                        Span::new(start, start + shown.len()).in_file(file),
                    )
                    .with_primary_label("this string has no closing `\"` on its line")
                    .with_help("close it with `\"`; for text over several lines use `\"\"\"`"),
                );
                Token::Str(slice)
            }
            Raw::TextBlock(closed) => {
                check_escapes(slice, start, file, &mut out.diagnostics);
                if !closed {
                    out.runs_to_end = true;
                    out.diagnostics.push(
                        Diagnostic::new(
                            &codes::UNTERMINATED_STRING,
                            "unterminated text block",
                            Span::new(start, start + 3).in_file(file),
                        )
                        .with_primary_label("this `\"\"\"` is never closed")
                        .with_help("close the text block with `\"\"\"`"),
                    );
                }
                Token::TextBlock(slice)
            }
            Raw::Backtick => Token::Backtick(slice),
            Raw::UnterminatedBacktick => {
                out.diagnostics.push(
                    Diagnostic::new(
                        &codes::UNTERMINATED_STRING,
                        "unterminated backtick key",
                        span.in_file(file),
                    )
                    .with_primary_label("this key has no closing backtick on its line"),
                );
                Token::Backtick(slice)
            }
            Raw::Int => number(slice, span, file, &mut out.diagnostics, int),
            Raw::Float => number(slice, span, file, &mut out.diagnostics, float),
            Raw::Duration => number(slice, span, file, &mut out.diagnostics, duration),
            Raw::BadNumber => {
                out.diagnostics.push(bad_number(slice, span, file));
                Token::BadNumber
            }
            Raw::LBrace => Token::LBrace,
            Raw::RBrace => Token::RBrace,
            Raw::LBracket => Token::LBracket,
            Raw::RBracket => Token::RBracket,
            Raw::LParen => Token::LParen,
            Raw::RParen => Token::RParen,
            Raw::Comma => Token::Comma,
            Raw::Semi => Token::Semi,
            Raw::Colon => Token::Colon,
            Raw::Eq => Token::Eq,
            Raw::Dot => Token::Dot,
            Raw::Question => Token::Question,
            Raw::Arrow => Token::Arrow,
            Raw::LArrow => Token::LArrow,
            Raw::EqEq => Token::EqEq,
            Raw::NotEq => Token::NotEq,
            Raw::Lt => Token::Lt,
            Raw::Le => Token::Le,
            Raw::Gt => Token::Gt,
            Raw::Ge => Token::Ge,
            Raw::AndAnd => Token::AndAnd,
            Raw::OrOr => Token::OrOr,
            Raw::Bang => Token::Bang,
        };
        out.tokens.push((token, span));
    }
    if let Some(group) = invalid.take() {
        flush_invalid(&mut out, text, group, file);
    }
    out.diagnostics
        .sort_by_key(|d| d.primary.location.span.start);
    out
}

/// Whether a word starting at byte `start` is a segment of a dotted key
/// after its first: directly after a `.` (nothing in between) that follows
/// an identifier. Such a word is an identifier even when it is spelled like
/// a keyword (`result.exit`, `git.step`, `x.in`); a `.` is never
/// followed by anything else in valid source.
fn continues_key_path(tokens: &[(Token<'_>, Span)], start: usize) -> bool {
    matches!(
        tokens,
        [.., (Token::Ident(_), _), (Token::Dot, dot)] if dot.end as usize == start
    )
}

/// Whether the word ending at byte `end` is directly followed by `.` and
/// another word: the start of a dotted key.
fn starts_key_path(text: &str, end: usize) -> bool {
    let rest = &text.as_bytes()[end..];
    rest.first() == Some(&b'.')
        && rest
            .get(1)
            .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_')
}

/// A keyword starting a dotted key (`tool.output`). Nothing else can be
/// meant, so the keyword is reported and then read as an identifier: the
/// key parses, and the statement around it with it.
fn keyword_starts_key(text: &str, span: Span, word: &str, file: FileId) -> Diagnostic {
    let rest = &text[span.start as usize..];
    let len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(rest.len());
    let key = rest[..len].trim_end_matches('.');
    Diagnostic::new(
        &codes::UNEXPECTED_TOKEN,
        format!("a key cannot start with the keyword `{word}`"),
        span.in_file(file),
    )
    .with_primary_label("a keyword")
    .with_help(format!(
        "keywords may follow a `.` but not start a key: quote it, \"{key}\" \
         (in a guard, in backticks: `{key}`), or rename it"
    ))
}

/// Records a run of whitespace containing at least one empty line.
///
/// A whitespace run always starts right after a token or comment (or at the
/// start of the file), so its first line break ends a non-blank line; every
/// further line break ends a blank one. The trivia span covers the blank
/// lines themselves, from just after the first line break (or the start of
/// the file) to just after the last one.
fn blank_lines(trivia: &mut Vec<Trivia>, text: &str, start: usize, end: usize) {
    // Runs are short (a line break and an indentation, mostly): plain byte
    // scans beat `memchr`'s set-up here.
    let ws = &text.as_bytes()[start..end];
    let Some(first) = ws.iter().position(|&b| b == b'\n') else {
        return;
    };
    let last = ws.iter().rposition(|&b| b == b'\n').unwrap_or(first);
    let from = if start == 0 { 0 } else { start + first + 1 };
    let to = start + last + 1;
    if from < to {
        trivia.push(Trivia {
            kind: TriviaKind::BlankLines,
            span: Span::new(from, to),
        });
    }
}

fn flush_invalid(out: &mut Lexed<'_>, text: &str, (start, end): (usize, usize), file: FileId) {
    let chars = &text[start..end];
    let mut shown = String::new();
    for c in chars.chars().take(16) {
        if c.is_control() {
            shown.extend(c.escape_debug());
        } else {
            shown.push(c);
        }
    }
    if chars.chars().count() > 16 {
        shown.push('…');
    }
    let plural = chars.chars().count() > 1;
    let message = if plural {
        format!("invalid characters `{shown}`")
    } else {
        format!("invalid character `{shown}`")
    };
    let mut diagnostic = Diagnostic::new(
        &codes::INVALID_CHARACTER,
        message,
        Span::new(start, end).in_file(file),
    )
    .with_primary_label(if plural {
        "these characters cannot start a token"
    } else {
        "this character cannot start a token"
    });
    let help = match chars {
        "&" => Some("the logical and is written `&&`"),
        "|" => Some("the logical or is written `||`"),
        "-" | "+" => Some("numbers in `.wf` are never signed and there is no arithmetic"),
        "'" => Some("strings are written in double quotes: \"…\""),
        _ if chars.chars().any(|c| c.is_alphabetic()) => {
            Some("identifiers use ASCII letters, digits and `_`; quote other names: \"…\"")
        }
        _ => None,
    };
    if let Some(help) = help {
        diagnostic = diagnostic.with_help(help);
    }
    out.diagnostics.push(diagnostic);
    out.tokens.push((Token::Error, Span::new(start, end)));
}

type NumberParser = fn(&str) -> Result<Token<'static>, &'static str>;

fn number<'src>(
    slice: &str,
    span: Span,
    file: FileId,
    diagnostics: &mut Vec<Diagnostic>,
    parse: NumberParser,
) -> Token<'src> {
    match parse(slice) {
        Ok(token) => token,
        Err(why) => {
            diagnostics.push(
                Diagnostic::new(
                    &codes::INVALID_NUMBER,
                    format!("{why}: `{slice}`"),
                    span.in_file(file),
                )
                .with_primary_label(why),
            );
            Token::BadNumber
        }
    }
}

fn digits(s: &str) -> String {
    s.chars().filter(|&c| c != '_').collect()
}

fn int(slice: &str) -> Result<Token<'static>, &'static str> {
    digits(slice)
        .parse::<i64>()
        .map(Token::Int)
        .map_err(|_| "integer out of range")
}

fn float(slice: &str) -> Result<Token<'static>, &'static str> {
    match digits(slice).parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(Token::Float(x)),
        _ => Err("float out of range"),
    }
}

fn duration(slice: &str) -> Result<Token<'static>, &'static str> {
    let unit_at = slice
        .find(|c: char| c.is_ascii_alphabetic())
        .unwrap_or(slice.len());
    let (amount, unit) = slice.split_at(unit_at);
    let factor: u64 = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return Err("unknown duration unit"),
    };
    digits(amount)
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(factor))
        .map(Token::Duration)
        .ok_or("duration out of range")
}

fn bad_number(slice: &str, span: Span, file: FileId) -> Diagnostic {
    let tail = slice.trim_start_matches(|c: char| c.is_ascii_digit() || c == '_');
    let help = if tail.starts_with('.') && slice.ends_with(['s', 'm', 'h', 'd']) {
        "durations are whole numbers: use a smaller unit (`90m`, not `1.5h`)"
    } else if tail.starts_with(['e', 'E']) && tail[1..].starts_with(|c: char| c.is_ascii_digit()) {
        "a float with an exponent needs a fraction: `1.0e5`"
    } else if tail.starts_with('.') {
        "a number cannot be followed directly by letters"
    } else {
        "duration units are `ms`, `s`, `m`, `h` and `d`; a number cannot be followed directly by letters"
    };
    Diagnostic::new(
        &codes::INVALID_NUMBER,
        format!("invalid number `{slice}`"),
        span.in_file(file),
    )
    .with_primary_label("not a valid number or duration")
    .with_help(help)
}

#[cfg(test)]
mod tests;
