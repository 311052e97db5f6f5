//! The chumsky parser over the lexer's tokens.
//!
//! The grammar lives in `items` (files, workflows, statements, nodes,
//! edges), `atoms` (names, keys, values) and `expr` (guards). The
//! hand-written parts that make one pass report every error are in
//! `recovery` (skipping a failed item, statement or entry), `delimited`
//! (brackets, driven by the [`Groups`] pre-pass) and `lookahead` (where a
//! statement ends, since statements need no separators).
//!
//! Those files are compiled twice, as submodules of `fast` (errors that
//! carry nothing) and `rich` (errors for diagnostics); see [`parse_tokens`].

use std::fmt;

use chumsky::error::Rich;
use chumsky::input::{Checkpoint, Cursor, MappedInput};
use chumsky::inspector::Inspector;
use chumsky::prelude::*;
use wf_diagnostics::{Code, Span};

use crate::ast::File;
use crate::groups::Groups;
use crate::token::Token;

/// Chumsky's span type, in byte offsets.
pub(crate) type CSpan = SimpleSpan;

/// The parser's input: the token slice, split into tokens and spans.
pub(crate) type In<'a> = MappedInput<'a, Token<'a>, CSpan, &'a [(Token<'a>, CSpan)]>;

/// A parse error: chumsky's rich "expected/found" errors, or one of ours.
pub(crate) type Error<'a> = Rich<'a, Token<'a>, CSpan, Custom>;

/// The deepest nesting of brackets (and the deepest guard expression tree)
/// the parser accepts. Deeper input is reported, not recursed into, so no
/// input can exhaust the stack of the parser or of anything walking the AST.
pub const MAX_DEPTH: u32 = 256;

/// A diagnostic the parser builds itself rather than from an expected/found
/// pair: unclosed delimiters, nesting limits, chained comparisons.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Custom {
    pub code: &'static Code,
    pub message: String,
    pub label: String,
    pub secondary: Vec<(Span, String)>,
    pub help: Option<String>,
}

impl fmt::Display for Custom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Parser state: the token table and delimiter matching for lookahead and
/// recovery, plus the current bracket depth (rolled back on backtracking).
pub(crate) struct State<'a> {
    pub tokens: &'a [(Token<'a>, CSpan)],
    pub groups: &'a Groups,
    /// For each token: whether it starts a line, or follows a `;` or `}`.
    /// Recovery only resumes at such a token (or at a closing bracket), so
    /// the middle of a broken statement is never mistaken for a new one.
    pub boundary: &'a [bool],
    pub depth: u32,
    pub eoi: CSpan,
}

impl<'a> Inspector<'a, In<'a>> for State<'a> {
    type Checkpoint = u32;

    fn on_token(&mut self, _: &Token<'a>) {}

    fn on_save<'parse>(&self, _: &Cursor<'a, 'parse, In<'a>>) -> u32 {
        self.depth
    }

    fn on_rewind<'parse>(&mut self, marker: &Checkpoint<'a, 'parse, In<'a>, u32>) {
        self.depth = *marker.inspector();
    }
}

/// Converts a chumsky span to an AST span.
pub(crate) fn sp(span: CSpan) -> Span {
    Span::new(span.start, span.end)
}

/// The grammar, compiled once per error type (the files are shared): `rich`
/// builds chumsky's "expected/found" errors and ours for diagnostics; `fast`
/// only notes that something failed, which skips the bookkeeping of
/// expected tokens on every failed alternative.
macro_rules! grammar {
    ($error:ty) => {
        /// A parse error of this instance of the grammar.
        pub(crate) type Error<'a> = $error;

        /// Parser configuration: our error type and the [`State`].
        pub(crate) type Extra<'a> = extra::Full<Error<'a>, State<'a>, ()>;

        /// Shorthand for "a cloneable parser of `O` over our input".
        pub(crate) trait P<'a, O>: Parser<'a, In<'a>, O, Extra<'a>> + Clone + 'a {}
        impl<'a, O, T: Parser<'a, In<'a>, O, Extra<'a>> + Clone + 'a> P<'a, O> for T {}

        /// Parses a token stream. Returns the tree (absent only if recovery
        /// failed outright, which the grammar is built to prevent) and every
        /// error.
        pub(crate) fn parse_tokens<'a>(
            tokens: &'a [(Token<'a>, CSpan)],
            groups: &'a Groups,
            boundary: &'a [bool],
            len: usize,
        ) -> (Option<File>, Vec<Error<'a>>) {
            let eoi = CSpan::from(len..len);
            let mut state = State {
                tokens,
                groups,
                boundary,
                depth: 0,
                eoi,
            };
            let input = tokens.split_token_span(eoi);
            let result = items::file(len).parse_with_state(input, &mut state);
            result.into_output_errors()
        }
    };
}

/// The grammar with full errors, for diagnostics.
#[allow(clippy::duplicate_mod)] // The grammar is compiled once per error type.
mod rich;

/// The grammar with empty errors: only whether the input is well formed.
#[allow(clippy::duplicate_mod)] // The grammar is compiled once per error type.
mod fast;

/// The hand-written parser for well-formed input.
mod hand;
mod token_lookahead;

#[cfg(test)]
mod hand_tests;

/// Parses a token stream. Returns the tree (absent only if recovery failed
/// outright, which the grammar is built to prevent) and every error.
///
/// Well-formed input is parsed once, by the hand-written parser in [`hand`]
/// (several times faster than chumsky), which builds the tree the grammar
/// does or gives up at the first error. Then the chumsky grammar with empty
/// errors, and only when that pass fails anywhere is the input parsed again
/// with full errors: the error type does not steer the parser, so both
/// passes build the same tree.
pub(crate) fn parse_tokens<'a>(
    tokens: &'a [(Token<'a>, CSpan)],
    groups: &'a Groups,
    boundary: &'a [bool],
    len: usize,
) -> (Option<File>, Vec<Error<'a>>) {
    if let Some(file) = hand::parse(tokens, groups, boundary, len) {
        return (Some(file), Vec::new());
    }
    if let (Some(file), errors) = fast::parse_tokens(tokens, groups, boundary, len)
        && errors.is_empty()
    {
        return (Some(file), Vec::new());
    }
    rich::parse_tokens(tokens, groups, boundary, len)
}
