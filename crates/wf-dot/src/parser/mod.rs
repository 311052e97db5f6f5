//! A hand-written recursive-descent parser with error recovery.
//!
//! DOT is small (a dozen productions), and the recovery real files need is
//! line-oriented: after an error the parser skips to the next `;`, `}` or
//! token that starts a line (skipping bracketed groups whole), so one bad
//! attribute costs one diagnostic and every error in the file is reported.
//! Subgraph nesting is bounded by [`MAX_DEPTH`], so no input can overflow
//! the stack; every loop consumes a token or stops, so no input hangs it.

mod attrs;
mod stmts;

use wf_diagnostics::{Diagnostic, FileId, Span, codes};

use crate::ast::{File, Graph, Id, IdKind};
use crate::lexer::Token;
use crate::strings::decode_text;

/// The deepest nesting of subgraphs the parser accepts.
pub const MAX_DEPTH: usize = 64;

/// The parser state: a cursor over the tokens and the diagnostics so far.
pub(crate) struct Parser<'a> {
    tokens: &'a [(Token<'a>, Span)],
    pos: usize,
    text: &'a str,
    file: FileId,
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// Nesting depth of subgraphs.
    depth: usize,
    /// Set when recovery skipped tokens in the current graph.
    skipped: bool,
    /// The lexer's unterminated string or comment ran to the end of the
    /// file: what is missing there is a consequence, not another error.
    swallowed_end: bool,
}

/// Parses the tokens of one file.
pub(crate) fn parse(
    tokens: &[(Token<'_>, Span)],
    text: &str,
    file: FileId,
    swallowed_end: bool,
) -> (File, Vec<Diagnostic>) {
    let mut p = Parser {
        tokens,
        pos: 0,
        text,
        file,
        diagnostics: Vec::new(),
        depth: 0,
        skipped: false,
        swallowed_end,
    };
    let file = p.file_rule();
    (file, p.diagnostics)
}

/// Whether `word` is the DOT keyword `kw` (keywords are case-insensitive).
pub(crate) fn is_kw(word: &str, kw: &str) -> bool {
    word.eq_ignore_ascii_case(kw)
}

/// Whether `word` is any DOT keyword.
pub(crate) fn is_keyword(word: &str) -> bool {
    // Keywords are 4 to 8 bytes long: most words are rejected by length.
    (4..=8).contains(&word.len())
        && ["graph", "digraph", "subgraph", "node", "edge", "strict"]
            .iter()
            .any(|kw| is_kw(word, kw))
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<Token<'a>> {
        self.tokens.get(self.pos).map(|t| t.0)
    }

    fn peek_at(&self, ahead: usize) -> Option<Token<'a>> {
        self.tokens.get(self.pos + ahead).map(|t| t.0)
    }

    /// The span of the current token, or an empty span at the end.
    fn span(&self) -> Span {
        match self.tokens.get(self.pos) {
            Some(t) => t.1,
            None => Span::new(self.text.len(), self.text.len()),
        }
    }

    /// The span of the previous token (the start of the file before any).
    fn prev_span(&self) -> Span {
        match self.pos.checked_sub(1).and_then(|i| self.tokens.get(i)) {
            Some(t) => t.1,
            None => Span::new(0, 0),
        }
    }

    fn bump(&mut self) -> Span {
        let span = self.span();
        if self.pos < self.tokens.len() {
            self.pos += 1;
        }
        span
    }

    /// Whether the current token is the first on its line.
    fn at_line_start(&self) -> bool {
        let Some(&(_, span)) = self.tokens.get(self.pos) else {
            return true;
        };
        let from = self.prev_span().end as usize;
        let to = span.start as usize;
        // The gap holds only blanks and comments; a byte search is
        // cheaper than `str::contains(char)` on these short slices.
        self.pos == 0
            || self
                .text
                .as_bytes()
                .get(from..to)
                .is_some_and(|gap| gap.contains(&b'\n'))
    }

    fn peek_word(&self) -> Option<&'a str> {
        match self.peek() {
            Some(Token::Word(w)) => Some(w),
            _ => None,
        }
    }

    fn error(&mut self, message: impl Into<String>, at: Span, label: impl Into<String>) {
        let d = Diagnostic::new(&codes::DOT_SYNTAX_ERROR, message, at.in_file(self.file))
            .with_primary_label(label);
        self.diagnostics.push(d);
    }

    /// Whether an error at the current token would only repeat one already
    /// reported: an invalid character (the lexer reported it), or the end
    /// of a file an unterminated string swallowed.
    fn already_reported(&self) -> bool {
        match self.peek() {
            Some(Token::Error) => true,
            None => self.swallowed_end,
            _ => false,
        }
    }

    /// A WF0601 at the current token: "expected X, found Y".
    fn expected(&mut self, what: &str) {
        if self.already_reported() {
            self.skipped = true;
            return;
        }
        let found = match self.peek() {
            Some(t) => t.describe(),
            None => "the end of the file".into(),
        };
        let at = self.span();
        self.error(
            format!("expected {what}, found {found}"),
            at,
            format!("expected {what}"),
        );
    }

    fn unsupported(&mut self, message: impl Into<String>, at: Span, help: impl Into<String>) {
        let d = Diagnostic::new(&codes::DOT_UNSUPPORTED, message, at.in_file(self.file))
            .with_primary_label("not in the Attractor subset")
            .with_help(help);
        self.diagnostics.push(d);
    }

    /// Skips to the next statement: past a `;`, or up to a `}` or a token
    /// starting a line. Bracketed groups are skipped whole. Always consumes
    /// at least one token (when there is one).
    fn recover(&mut self) {
        self.skipped = true;
        let mut first = true;
        while let Some(token) = self.peek() {
            if !first && (token == Token::RBrace || self.at_line_start()) {
                return;
            }
            first = false;
            match token {
                Token::Semi => {
                    self.bump();
                    return;
                }
                Token::RBrace => return,
                Token::LBracket => self.skip_group(Token::LBracket, Token::RBracket),
                Token::LBrace => self.skip_group(Token::LBrace, Token::RBrace),
                _ => {
                    self.bump();
                }
            }
        }
    }

    /// Skips a balanced `open … close` group starting at the current token.
    fn skip_group(&mut self, open: Token<'_>, close: Token<'_>) {
        let mut depth = 0usize;
        while let Some(token) = self.peek() {
            self.bump();
            if token == open {
                depth += 1;
            } else if token == close {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return;
                }
            }
        }
    }

    /// An id: a bare word, quoted strings joined by `+`, or an HTML string.
    /// `None` (nothing consumed) when the current token is none of these.
    fn id(&mut self) -> Option<Id> {
        match self.peek()? {
            Token::Word(w) => {
                let span = self.bump();
                Some(Id {
                    text: w.to_string(),
                    kind: IdKind::Bare,
                    span,
                    pieces: Vec::new(),
                })
            }
            Token::Str(_) => Some(self.quoted()),
            Token::Html(h) => {
                let span = self.bump();
                self.unsupported(
                    "HTML strings are not part of the Attractor DOT subset",
                    span,
                    "write a quoted string: `label=\"…\"`",
                );
                Some(Id {
                    text: h.to_string(),
                    kind: IdKind::Html,
                    span,
                    pieces: Vec::new(),
                })
            }
            _ => None,
        }
    }

    /// `"…" (+ "…")*`, the current token being a string.
    fn quoted(&mut self) -> Id {
        let first = self.span();
        // The decoded text is never longer than the raw token: one
        // allocation of the right size for the usual single string.
        let mut text = match self.peek() {
            Some(Token::Str(raw)) => String::with_capacity(raw.len()),
            _ => String::new(),
        };
        // Piece spans are only kept for strings joined with `+`: a single
        // string (nearly every value) allocates no vector.
        let mut pieces = Vec::new();
        let mut last = first;
        while let Some(Token::Str(raw)) = self.peek() {
            last = self.bump();
            decode_text(raw, &mut text);
            let joined =
                self.peek() == Some(Token::Plus) && matches!(self.peek_at(1), Some(Token::Str(_)));
            if joined || !pieces.is_empty() {
                pieces.push(last);
            }
            if !joined {
                break;
            }
            self.bump();
        }
        Id {
            text,
            kind: IdKind::Quoted,
            span: first.to(last),
            pieces,
        }
    }

    /// `file := (graph)+`, reporting junk and every graph after the first.
    fn file_rule(&mut self) -> File {
        let mut file = File::default();
        while self.peek().is_some() {
            match self.peek_word() {
                Some(w) if is_kw(w, "strict") || is_kw(w, "digraph") || is_kw(w, "graph") => {
                    let graph = self.graph();
                    if !file.graphs.is_empty() {
                        self.unsupported(
                            "a second graph in one file",
                            graph.keyword,
                            "put each pipeline in its own file",
                        );
                    }
                    file.graphs.push(graph);
                }
                _ => {
                    self.expected("`digraph`");
                    // Skip to the next line's first token.
                    self.bump();
                    while self.peek().is_some() && !self.at_line_start() {
                        self.bump();
                    }
                }
            }
        }
        if file.graphs.is_empty() && !self.diagnostics.iter().any(|d| d.is_error()) {
            let at = Span::new(0, 0);
            self.error("no graph in this file", at, "expected `digraph Name { … }`");
        }
        file
    }

    /// `[strict] (digraph | graph) [ID] '{' stmts '}'`.
    fn graph(&mut self) -> Graph {
        self.skipped = false;
        let mut strict = None;
        if self.peek_word().is_some_and(|w| is_kw(w, "strict")) {
            let span = self.bump();
            strict = Some(span);
            self.unsupported(
                "`strict` graphs are not part of the Attractor DOT subset",
                span,
                "remove `strict`",
            );
        }
        let (directed, keyword) = match self.peek_word() {
            Some(w) if is_kw(w, "digraph") => (true, self.bump()),
            Some(w) if is_kw(w, "graph") => {
                let span = self.bump();
                self.unsupported(
                    "undirected graphs are not part of the Attractor DOT subset",
                    span,
                    "write `digraph`",
                );
                (false, span)
            }
            _ => {
                self.expected("`digraph`");
                (true, self.span())
            }
        };
        let name = match self.peek() {
            Some(Token::LBrace) | None => None,
            _ => self.id(),
        };
        let start = strict.unwrap_or(keyword);
        if self.peek() != Some(Token::LBrace) {
            self.expected("`{` to open the graph");
            let span = start.to(self.prev_span());
            self.skipped = true;
            // Skip the rest of the line: it is not a graph header.
            while self.peek().is_some() && !self.at_line_start() {
                self.bump();
            }
            return Graph {
                strict,
                directed,
                keyword,
                name,
                stmts: Vec::new(),
                span,
                incomplete: true,
            };
        }
        let open = self.bump();
        let stmts = self.stmts();
        let end = self.close_brace(open, "graph");
        Graph {
            strict,
            directed,
            keyword,
            name,
            stmts,
            span: start.to(end),
            incomplete: self.skipped,
        }
    }

    /// Expects the `}` closing the brace at `open`; returns the span the
    /// construct ends at.
    fn close_brace(&mut self, open: Span, what: &str) -> Span {
        if self.peek() == Some(Token::RBrace) {
            return self.bump();
        }
        self.skipped = true;
        if self.already_reported() {
            return self.prev_span();
        }
        let at = self.span();
        let d = Diagnostic::new(
            &codes::DOT_SYNTAX_ERROR,
            format!("this `{{` of the {what} is never closed"),
            open.in_file(self.file),
        )
        .with_primary_label("opened here")
        .with_label(at.in_file(self.file), "expected `}` here")
        .with_help("add the missing `}`");
        self.diagnostics.push(d);
        self.prev_span()
    }
}
