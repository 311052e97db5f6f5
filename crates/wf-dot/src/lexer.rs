//! The lexer: DOT source text to tokens, comments and lexical diagnostics.
//!
//! A logos DFA finds the lexemes. Comments (`//`, `/* */`, and `#` lines,
//! which Graphviz only recognises at the start of a line) go to a side
//! table for the formatter. Lexing never stops: an unterminated string or
//! comment runs to the end of the file and is reported once; characters
//! that start no token are grouped and reported once per run.

use logos::Logos;
use wf_diagnostics::{Diagnostic, FileId, Span, codes};

/// One token. Words and strings borrow the source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token<'src> {
    /// A bare word: an identifier, a number, or a tolerated unquoted value
    /// such as `gpt-5.4`, `summary:high` or `human.default_choice`.
    Word(&'src str),
    /// A `"…"` string, raw text including the quotes; without the closing
    /// quote when unterminated (already reported).
    Str(&'src str),
    /// An HTML string `<…>` (not supported; the parser reports it).
    Html(&'src str),
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `;`
    Semi,
    /// `,`
    Comma,
    /// `=`
    Eq,
    /// `->`
    Arrow,
    /// `--` (undirected edge, not supported)
    DashDash,
    /// `+` (string concatenation)
    Plus,
    /// `:` (a port separator when it stands alone)
    Colon,
    /// Characters that start no token (already reported).
    Error,
}

impl Token<'_> {
    /// How the token is shown in messages.
    pub fn describe(&self) -> String {
        match self {
            Token::Word(w) => format!("`{w}`"),
            Token::Str(_) => "a string".into(),
            Token::Html(_) => "an HTML string".into(),
            Token::LBrace => "`{`".into(),
            Token::RBrace => "`}`".into(),
            Token::LBracket => "`[`".into(),
            Token::RBracket => "`]`".into(),
            Token::Semi => "`;`".into(),
            Token::Comma => "`,`".into(),
            Token::Eq => "`=`".into(),
            Token::Arrow => "`->`".into(),
            Token::DashDash => "`--`".into(),
            Token::Plus => "`+`".into(),
            Token::Colon => "`:`".into(),
            Token::Error => "an invalid character".into(),
        }
    }
}

/// What kind of comment the lexer set aside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommentKind {
    /// `// …`
    Line,
    /// `/* … */` (possibly unterminated)
    Block,
    /// `# …` at the start of a line
    Hash,
}

/// A comment, kept out of the token stream for a future formatter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Comment {
    /// What it is.
    pub kind: CommentKind,
    /// Where it is, delimiters included.
    pub span: Span,
}

/// The output of [`lex`].
#[derive(Debug, Clone)]
pub struct Lexed<'src> {
    /// Tokens with their byte spans.
    pub tokens: Vec<(Token<'src>, Span)>,
    /// Comments in source order.
    pub comments: Vec<Comment>,
    /// Lexical errors (WF0601 invalid characters, WF0602 unterminated).
    pub diagnostics: Vec<Diagnostic>,
    /// An unterminated string or comment ran to the end of the file,
    /// swallowing whatever closing brackets followed it.
    pub runs_to_end: bool,
}

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

/// Lexes a whole file. Never fails: problems become diagnostics.
pub fn lex(text: &str, file: FileId) -> Lexed<'_> {
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
