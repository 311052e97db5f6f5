//! The lexer: DOT source text to tokens, comments and lexical diagnostics.
//!
//! Hand-written scanners (in `scan`) find the lexemes. Comments (`//`,
//! `/* */`, and `#` lines,
//! which Graphviz only recognises at the start of a line) go to a side
//! table for the formatter. Lexing never stops: an unterminated string or
//! comment runs to the end of the file and is reported once; characters
//! that start no token are grouped and reported once per run.

mod scan;

use scan::Lexeme;
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

/// Lexes a whole file. Never fails: problems become diagnostics.
pub fn lex(text: &str, file: FileId) -> Lexed<'_> {
    let mut out = Lexed {
        tokens: Vec::with_capacity(text.len() / 8),
        comments: Vec::new(),
        diagnostics: Vec::new(),
        runs_to_end: false,
    };
    let mut invalid: Option<(usize, usize)> = None;
    let mut pos = if text.starts_with('\u{FEFF}') {
        '\u{FEFF}'.len_utf8()
    } else {
        0
    };
    let bytes = text.as_bytes();
    while pos < bytes.len() {
        // Blanks separate nearly every pair of tokens: skip them here, in
        // a tight loop, rather than as a lexeme through the dispatch.
        if scan::is_blank(bytes[pos]) {
            if let Some(group) = invalid.take() {
                flush_invalid(&mut out, text, group, file);
            }
            pos = scan::blanks_end(bytes, pos + 1);
            continue;
        }
        let start = pos;
        let (lexeme, end) = scan::lexeme(text, start);
        pos = end;
        if lexeme == Lexeme::Invalid {
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
        if let Some(group) = invalid.take() {
            flush_invalid(&mut out, text, group, file);
        }
        let slice = &text[start..end];
        let span = Span::new(start, end);
        let token = match lexeme {
            Lexeme::Blanks | Lexeme::Invalid => continue,
            Lexeme::LineComment => {
                out.comments.push(Comment {
                    kind: CommentKind::Line,
                    span,
                });
                continue;
            }
            Lexeme::Hash => {
                out.comments.push(Comment {
                    kind: CommentKind::Hash,
                    span,
                });
                continue;
            }
            Lexeme::BlockComment(closed) => {
                out.comments.push(Comment {
                    kind: CommentKind::Block,
                    span,
                });
                if !closed {
                    out.unterminated(Span::new(start, start + 2), "block comment", "`*/`", file);
                }
                continue;
            }
            Lexeme::Word => Token::Word(slice),
            Lexeme::Str(closed) => {
                if !closed {
                    out.unterminated(Span::new(start, start + 1), "string", "`\"`", file);
                }
                Token::Str(slice)
            }
            Lexeme::Html(closed) => {
                if !closed {
                    out.unterminated(Span::new(start, start + 1), "HTML string", "`>`", file);
                }
                Token::Html(slice)
            }
            Lexeme::Punct(token) => token,
        };
        out.tokens.push((token, span));
    }
    if let Some(group) = invalid.take() {
        flush_invalid(&mut out, text, group, file);
    }
    out
}

impl Lexed<'_> {
    /// WF0602 for a string or comment opened at `at` and never closed: it
    /// runs to the end of the file.
    fn unterminated(&mut self, at: Span, what: &str, closer: &str, file: FileId) {
        self.runs_to_end = true;
        self.diagnostics.push(
            Diagnostic::new(
                &codes::DOT_UNTERMINATED,
                format!("unterminated {what}"),
                at.in_file(file),
            )
            .with_primary_label(format!("this {what} is never closed"))
            .with_help(format!("close it with {closer}")),
        );
    }
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
