//! A differential test of the hand-written lexer against the logos DFA
//! it replaced (kept here verbatim as the reference): the same tokens,
//! spans, comments, diagnostics and `runs_to_end` on generated inputs
//! (escapes, unterminated strings and comments, `\r\n`, non-ASCII,
//! backslashes at the end, stray characters) and on every corpus file.

use wf_test_support::corpus;

use logos::Logos;
use proptest::prelude::*;
use wf_diagnostics::{Diagnostic, FileId, Span, codes};
use wf_dot::lexer::{Comment, CommentKind, Lexed, Token, lex};

/// Both lexers' output, in a comparable form.
fn outputs(text: &str) -> (String, String) {
    let show = |l: &Lexed<'_>| {
        format!(
            "{:?}\n{:?}\n{:?}\n{}",
            l.tokens, l.comments, l.diagnostics, l.runs_to_end
        )
    };
    (
        show(&lex(text, FileId(0))),
        show(&reference(text, FileId(0))),
    )
}

fn assert_same(text: &str) {
    let (new, old) = outputs(text);
    assert_eq!(new, old, "input: {text:?}");
}

/// Pieces that exercise every lexeme and the corners between them.
#[rustfmt::skip]
const FRAGMENTS: &[&str] = &[
    "a", "Z9", "_x", "5", "-", ".", "/", ":", "é", "日本", "\u{FEFF}", " ", "\t", "\n",
    "\r\n", "\x0C", "\x0B", "\0", "\"", "\\", "\\\"", "\\\n", "\\\r\n", "\\é", "#", "// c",
    "/*", "*/", "*", "<", ">", "{", "}", "[", "]", ";", ",", "=", "+", "->", "--", "$", "!",
    "'", "&", "~", "gpt-5.4", "a.b", "-.5", ".5", "summary:high", "x/y", "\x7F",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn same_as_reference_on_fragments(parts in prop::collection::vec(prop::sample::select(FRAGMENTS), 0..40)) {
        assert_same(&parts.concat());
    }

    #[test]
    fn same_as_reference_on_any_text(text in "\\PC{0,60}") {
        assert_same(&text);
    }
}

/// Inputs where the two could plausibly disagree.
#[rustfmt::skip]
const CORNERS: &[&str] = &[
    "", "\"", "\"\\", "\"a\\\"", "\"é\\", "a\\", "/*", "/*/", "/**/x", "<<a>", "#x",
    "\u{FEFF}#c\n#d", "x #y", "-.x", "..5", "-\0", "a -; b", "1.5.3", "a--b", "a->b",
    "a.", "a.:b", "a:-b", "-é", "\"\r\n\"", "a\u{b}b",
];

#[test]
fn same_as_reference_on_corners() {
    for text in CORNERS {
        assert_same(text);
    }
}

/// Every corpus file, and every prefix of it cut at 64 points (which
/// leaves strings and comments unterminated).
#[test]
fn same_as_reference_on_the_corpus() {
    let Some(dir) = corpus::shared_corpus("attractor") else {
        return;
    };
    let mut stack = vec![dir];
    let mut files = 0;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let text = String::from_utf8_lossy(&bytes);
            assert_same(&text);
            for k in 1..64 {
                let mut cut = text.len() * k / 64;
                while !text.is_char_boundary(cut) {
                    cut += 1;
                }
                assert_same(&text[..cut]);
            }
            files += 1;
        }
    }
    assert!(files >= 276, "{files} files");
}

// ---- the reference: `src/lexer.rs` before the scanners replaced logos ----

#[derive(Logos, Debug, Clone, Copy, PartialEq)]
enum Raw {
    #[regex(r"[ \t\r\n\f]+")]
    Whitespace,
    #[regex(r"//[^\n]*", allow_greedy = true)]
    LineComment,
    #[token("/*", block_comment)]
    BlockComment(bool),
    #[token("#", hash_comment)]
    Hash(bool),
    // Identifiers and numbers, and the unquoted values real files write:
    // dotted, hyphenated and colon-joined words (`gpt-5.4`, `a.b`,
    // `summary:high`), a leading minus (`-1`, `-.5`). A separator must be
    // followed by a word character, so `a->b` and `a--b` still split.
    #[regex(r"-?[A-Za-z0-9_\x80-\u{10FFFF}]+([.:\-/][A-Za-z0-9_\x80-\u{10FFFF}]+)*")]
    #[regex(r"-?\.[0-9]+")]
    Word,
    #[token("\"", string)]
    Str(bool),
    #[token("<", html)]
    Html(bool),
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token(";")]
    Semi,
    #[token(",")]
    Comma,
    #[token("=")]
    Eq,
    #[token("->")]
    Arrow,
    #[token("--")]
    DashDash,
    #[token("+")]
    Plus,
    #[token(":")]
    Colon,
}

/// Consumes a block comment up to and including `*/`; `false` at end of file.
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

/// A `#` at the start of a line (after blanks) is a comment to the end of
/// the line (`true`); anywhere else it is an invalid character (`false`).
fn hash_comment(lex: &mut logos::Lexer<Raw>) -> bool {
    let before = &lex.source()[..lex.span().start];
    let line = before.rsplit('\n').next().unwrap_or(before);
    if !line.chars().all(|c| c == ' ' || c == '\t' || c == '\r') {
        return false;
    }
    let rest = lex.remainder();
    lex.bump(rest.find('\n').unwrap_or(rest.len()));
    true
}

/// Consumes a string up to its closing quote; strings may span lines and a
/// backslash escapes any character. `false` when the file ends first.
fn string(lex: &mut logos::Lexer<Raw>) -> bool {
    let rest = lex.remainder().as_bytes();
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            b'\\' => i += 2,
            b'"' => {
                lex.bump(i + 1);
                return true;
            }
            _ => i += 1,
        }
    }
    lex.bump(rest.len());
    false
}

/// Consumes an HTML string: balanced `<…>`. `false` when unbalanced at the
/// end of the file.
fn html(lex: &mut logos::Lexer<Raw>) -> bool {
    let rest = lex.remainder().as_bytes();
    let mut depth = 1usize;
    for (i, &b) in rest.iter().enumerate() {
        match b {
            b'<' => depth += 1,
            b'>' => {
                depth -= 1;
                if depth == 0 {
                    lex.bump(i + 1);
                    return true;
                }
            }
            _ => {}
        }
    }
    lex.bump(rest.len());
    false
}

/// The reference: the logos lexer the scanners replaced, verbatim.
fn reference(text: &str, file: FileId) -> Lexed<'_> {
    let mut out = Lexed {
        tokens: Vec::with_capacity(text.len() / 8),
        comments: Vec::new(),
        diagnostics: Vec::new(),
        runs_to_end: false,
    };
    let mut invalid: Option<(usize, usize)> = None;
    let mut lexer = Raw::lexer(text);
    if text.starts_with('\u{FEFF}') {
        lexer.bump('\u{FEFF}'.len_utf8());
    }
    while let Some(raw) = lexer.next() {
        let range = lexer.span();
        let (start, end) = (range.start, range.end);
        let raw = match raw {
            Ok(Raw::Hash(false)) | Err(()) => {
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
            Ok(raw) => raw,
        };
        if let Some(group) = invalid.take() {
            flush_invalid(&mut out, text, group, file);
        }
        let slice = &text[start..end];
        let span = Span::new(start, end);
        let token = match raw {
            Raw::Whitespace => continue,
            Raw::LineComment => {
                out.comments.push(Comment {
                    kind: CommentKind::Line,
                    span,
                });
                continue;
            }
            Raw::Hash(_) => {
                out.comments.push(Comment {
                    kind: CommentKind::Hash,
                    span,
                });
                continue;
            }
            Raw::BlockComment(closed) => {
                out.comments.push(Comment {
                    kind: CommentKind::Block,
                    span,
                });
                if !closed {
                    out.runs_to_end = true;
                    out.diagnostics.push(unterminated(
                        Span::new(start, start + 2),
                        "block comment",
                        "`*/`",
                        file,
                    ));
                }
                continue;
            }
            Raw::Word => Token::Word(slice),
            Raw::Str(closed) => {
                if !closed {
                    out.runs_to_end = true;
                    out.diagnostics.push(unterminated(
                        Span::new(start, start + 1),
                        "string",
                        "`\"`",
                        file,
                    ));
                }
                Token::Str(slice)
            }
            Raw::Html(closed) => {
                if !closed {
                    out.runs_to_end = true;
                    out.diagnostics.push(unterminated(
                        Span::new(start, start + 1),
                        "HTML string",
                        "`>`",
                        file,
                    ));
                }
                Token::Html(slice)
            }
            Raw::LBrace => Token::LBrace,
            Raw::RBrace => Token::RBrace,
            Raw::LBracket => Token::LBracket,
            Raw::RBracket => Token::RBracket,
            Raw::Semi => Token::Semi,
            Raw::Comma => Token::Comma,
            Raw::Eq => Token::Eq,
            Raw::Arrow => Token::Arrow,
            Raw::DashDash => Token::DashDash,
            Raw::Plus => Token::Plus,
            Raw::Colon => Token::Colon,
        };
        out.tokens.push((token, span));
    }
    if let Some(group) = invalid.take() {
        flush_invalid(&mut out, text, group, file);
    }
    out
}

fn unterminated(at: Span, what: &str, closer: &str, file: FileId) -> Diagnostic {
    Diagnostic::new(
        &codes::DOT_UNTERMINATED,
        format!("unterminated {what}"),
        at.in_file(file),
    )
    .with_primary_label(format!("this {what} is never closed"))
    .with_help(format!("close it with {closer}"))
}

/// Reports a run of invalid characters once and leaves an `Error` token so
/// the parser resynchronises instead of misreading what follows.
fn flush_invalid(out: &mut Lexed<'_>, text: &str, (start, end): (usize, usize), file: FileId) {
    let slice = &text[start..end];
    let shown: String = slice.chars().take(20).collect();
    out.diagnostics.push(
        Diagnostic::new(
            &codes::DOT_SYNTAX_ERROR,
            format!("unexpected character{} `{shown}`", plural(slice)),
            Span::new(start, end).in_file(file),
        )
        .with_primary_label("not part of the DOT language")
        .with_help("put text in a quoted string: `label=\"…\"`"),
    );
    out.tokens.push((Token::Error, Span::new(start, end)));
}

fn plural(slice: &str) -> &'static str {
    if slice.chars().nth(1).is_some() {
        "s"
    } else {
        ""
    }
}
