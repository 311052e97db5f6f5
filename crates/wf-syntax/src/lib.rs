//! The `.wf` language front end: lexer, parser, AST and comment side table.
//!
//! [`parse`] never panics and never fails: it returns the tree it could
//! build, the comments and blank lines it saw (for the formatter), and every
//! syntax error as a [`Diagnostic`].

#![warn(missing_docs)]

pub mod ast;
mod checks;
mod docs;
pub mod dump;
mod errors;
mod groups;
pub mod lexer;
mod parser;
mod strings;
pub mod template;
pub mod token;

use wf_diagnostics::{Diagnostic, FileId, Span};

pub use parser::MAX_DEPTH;

/// What kind of trivia the lexer set aside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TriviaKind {
    /// `// …` (including `////…`, which is not a doc comment).
    LineComment,
    /// `/* … */`
    BlockComment,
    /// `/// …`
    DocComment,
    /// One or more empty lines. The span covers the empty lines themselves,
    /// from the start of the first to just after the line break of the last.
    BlankLines,
}

/// A comment or blank-line run, kept out of the token stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trivia {
    /// What it is.
    pub kind: TriviaKind,
    /// Where it is.
    pub span: Span,
}

/// The result of parsing one file.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// The tree (possibly with `Error` nodes).
    pub file: ast::File,
    /// Comments and blank lines in source order.
    pub trivia: Vec<Trivia>,
    /// Every syntax error and warning, in source order.
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses `.wf` source text. Spans in the result are byte offsets into `text`;
/// diagnostics point into `file`.
pub fn parse(text: &str, file: FileId) -> Parsed {
    let lexed = lexer::lex(text, file);
    let tokens: Vec<_> = lexed
        .tokens
        .iter()
        .map(|&(token, span)| (token, parser::CSpan::from(span.range())))
        .collect();
    let groups = groups::Groups::new(&tokens, text);
    let boundary = boundaries(&tokens, text);
    let (tree, errors) = parser::parse_tokens(&tokens, &groups, &boundary, text.len());
    let mut diagnostics = lexed.diagnostics;
    let mut parse_errors = errors::to_diagnostics(errors, &tokens, text, file);
    if lexed.runs_to_end {
        // What the unterminated comment or text block swallowed (closing
        // braces, mostly) is missing at the end of the file because of that
        // one, already reported, mistake.
        parse_errors.retain(|d| d.primary.location.span.start as usize != text.len());
    }
    diagnostics.extend(parse_errors);
    let mut tree = tree.unwrap_or_else(|| ast::File {
        items: vec![ast::Item::Error(Span::new(0, text.len()))],
        span: Span::new(0, text.len()),
    });
    docs::attach(&mut tree, &lexed.trivia, text, file, &mut diagnostics);
    checks::duplicate_attributes(&tree, file, &mut diagnostics);
    diagnostics.sort_by_key(|d| (d.primary.location.span.start, d.primary.location.span.end));
    Parsed {
        file: tree,
        trivia: lexed.trivia,
        diagnostics,
    }
}

/// Marks the tokens at which error recovery may resume: the first token of
/// a line, and a token right after `;` or `}`.
fn boundaries(tokens: &[(token::Token<'_>, parser::CSpan)], text: &str) -> Vec<bool> {
    let mut out = Vec::with_capacity(tokens.len());
    let mut prev: Option<(token::Token<'_>, usize)> = None;
    for (token, span) in tokens {
        let at_boundary = match prev {
            None => true,
            Some((token::Token::Semi | token::Token::RBrace, _)) => true,
            Some((_, end)) => text
                .get(end..span.start)
                .is_none_or(|gap| gap.contains('\n')),
        };
        out.push(at_boundary);
        prev = Some((*token, span.end));
    }
    out
}
