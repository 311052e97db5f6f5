//! Error recovery: hand-written parsers that skip a failed item, statement
//! or entry and resynchronise, plus the token-level helpers the other
//! hand-written parsers share.
//!
//! Two rules keep recovery safe inside chumsky's `repeated()`:
//! - a skipper refuses to start on a token that ends its region (a closing
//!   bracket, the end of input, an outer item keyword), so loops end there;
//! - otherwise it consumes at least one token tree before looking for a
//!   place to stop, so it always makes progress.

use chumsky::error::{LabelError, RichPattern};
use chumsky::input::InputRef;
use chumsky::prelude::*;
use chumsky::util::MaybeRef;

use super::lookahead::{is_edge_start, key_followed_by};
use super::{CSpan, Error, Extra, In, P, sp};
use crate::groups::{Closing, closer};
use crate::token::Token;

type Inp<'a, 'p> = InputRef<'a, 'p, In<'a>, Extra<'a>>;

/// The index of the next token.
pub(super) fn pos(inp: &Inp<'_, '_>) -> usize {
    inp.cursor().inner().0
}

/// The token at `index`, if any.
pub(super) fn token_at<'a>(inp: &mut Inp<'a, '_>, index: usize) -> Option<Token<'a>> {
    inp.state().tokens.get(index).map(|(t, _)| *t)
}

/// The span of the token at `index`, or the end-of-input span.
pub(super) fn span_at(inp: &mut Inp<'_, '_>, index: usize) -> CSpan {
    let state = inp.state();
    state.tokens.get(index).map_or(state.eoi, |(_, s)| *s)
}

/// Consumes tokens until the next one is at `target`.
pub(super) fn skip_to(inp: &mut Inp<'_, '_>, target: usize) {
    while pos(inp) < target && inp.next().is_some() {}
}

/// Consumes one token, or a whole bracketed group when it is an opener of
/// a closed group. (An unclosed group has no real extent: jumping to where
/// the pre-pass gave up on it could swallow the rest of the file.)
fn skip_tree(inp: &mut Inp<'_, '_>) {
    let at = pos(inp);
    if inp.next().is_none() {
        return;
    }
    if let Some((end, closing)) = inp.state().groups.end(at)
        && closing != Closing::Unclosed
    {
        skip_to(inp, end);
        inp.next();
    }
}

/// An "expected `tok`, found …" error at `index`.
pub(super) fn expected<'a>(inp: &mut Inp<'a, '_>, index: usize, tokens: &[Token<'a>]) -> Error<'a> {
    let found = token_at(inp, index);
    let span = span_at(inp, index);
    <Error<'a> as LabelError<'a, In<'a>, RichPattern<'a, Token<'a>>>>::expected_found(
        tokens.iter().map(|t| RichPattern::Token(MaybeRef::Val(*t))),
        found.map(MaybeRef::Val),
        span,
    )
}

/// The region a skipper works in; it decides where skipping stops.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Level {
    /// Between items.
    Top,
    /// Between statements of a workflow body.
    Workflow,
    /// Between entries of a node body.
    Body,
    /// Between attributes of an edge's attribute block.
    Attrs,
}

fn is_statement_keyword(token: &Token<'_>) -> bool {
    use Token::*;
    matches!(
        token,
        Step | Human | Tool | Call | Branch | Parallel | Join | Exit | Needs | Gives
    )
}

/// Whether the token at `index` ends the region of `level`: skipping must
/// not even start there.
fn is_terminator(level: Level, inp: &mut Inp<'_, '_>, index: usize) -> bool {
    let state = inp.state();
    let Some((token, _)) = state.tokens.get(index) else {
        return true;
    };
    if level == Level::Top {
        return false;
    }
    if closer(token).is_some() {
        return !state.groups.is_stray(index);
    }
    match level {
        Level::Top => false,
        Level::Workflow => matches!(token, Token::Workflow | Token::Import),
        Level::Body | Level::Attrs => {
            matches!(token, Token::Workflow | Token::Import)
                || is_statement_keyword(token)
                || is_edge_start(state.tokens, index)
        }
    }
}

/// Whether skipping at `level` should stop before the token at `index`.
fn is_sync(level: Level, inp: &mut Inp<'_, '_>, index: usize) -> bool {
    if is_terminator(level, inp, index) {
        return true;
    }
    let state = inp.state();
    if level != Level::Top && !state.boundary.get(index).copied().unwrap_or(true) {
        return false;
    }
    let tokens = state.tokens;
    let token = &tokens[index].0;
    match level {
        Level::Top => matches!(token, Token::Workflow | Token::Import),
        Level::Workflow => {
            is_statement_keyword(token)
                || is_edge_start(tokens, index)
                || key_followed_by(tokens, index, &[Token::Eq])
        }
        Level::Body => {
            matches!(token, Token::Reads | Token::Writes)
                || key_followed_by(tokens, index, &[Token::Eq, Token::LArrow])
        }
        Level::Attrs => key_followed_by(tokens, index, &[Token::Eq]),
    }
}

/// Skips a failed item, statement or entry: at least one token tree, then up
/// to the next place where parsing can resume at `level`. Fails without
/// consuming anything on a token that ends the region.
pub(super) fn skip<'a>(level: Level) -> impl P<'a, wf_diagnostics::Span> {
    custom(move |inp: &mut Inp<'a, '_>| {
        let start = pos(inp);
        if is_terminator(level, inp, start) {
            return Err(expected(inp, start, &[]));
        }
        let before = inp.cursor();
        skip_tree(inp);
        while !is_sync(level, inp, pos(inp)) {
            skip_tree(inp);
        }
        Ok(sp(inp.span_since(&before)))
    })
}

/// Skips a guard expression that failed to parse, up to the edge's attribute
/// block or the next statement. Unlike [`skip`] it may consume nothing
/// (`a -> b when { … }`): it is never used inside a loop.
pub(super) fn skip_guard<'a>() -> impl P<'a, wf_diagnostics::Span> {
    custom(move |inp: &mut Inp<'a, '_>| {
        let before = inp.cursor();
        let start = span_at(inp, pos(inp)).start;
        loop {
            let at = pos(inp);
            let stop = matches!(token_at(inp, at), Some(Token::LBrace))
                || is_terminator(Level::Body, inp, at)
                || is_sync(Level::Workflow, inp, at);
            if stop {
                break;
            }
            skip_tree(inp);
        }
        if pos(inp) == before.inner().0 {
            return Ok(wf_diagnostics::Span::new(start, start));
        }
        Ok(sp(inp.span_since(&before)))
    })
}
