//! Lookahead that settles the grammar's few ambiguities (statements need
//! no separators, so where one ends is decided by what follows). These
//! parsers never consume more than the token they accept.

use chumsky::input::InputRef;
use chumsky::prelude::*;

use super::recovery::{expected, pos};
use super::{CSpan, Extra, In, P};
use crate::token::Token;

pub(super) use crate::parser::token_lookahead::{is_edge_start, key_followed_by};

type Inp<'a, 'p> = InputRef<'a, 'p, In<'a>, Extra<'a>>;

/// A comma between the keys of a `reads`, `writes`, `needs` or `gives` list.
/// It is not taken when the next key starts an attribute or a return entry
/// (`reads a, timeout = 5s`), so that comma separates entries instead.
pub(super) fn list_comma<'a>() -> impl P<'a, ()> {
    custom(|inp: &mut Inp<'a, '_>| {
        let at = pos(inp);
        let tokens = inp.state().tokens;
        let is_comma = matches!(tokens.get(at), Some((Token::Comma, _)));
        if is_comma && !key_followed_by(tokens, at + 1, &[Token::Eq, Token::LArrow]) {
            inp.next();
            Ok(())
        } else if is_comma {
            Err(expected(inp, at, &[]))
        } else {
            Err(expected(inp, at, &[Token::Comma]))
        }
    })
}

/// Succeeds, consuming nothing, unless the next tokens start a new
/// statement: `name ->` anywhere, or `key =` / `key <-` at the start of a
/// line. Values and guard operands check it first, so that a missing value
/// or operand (`retries =`, `when x ==`) does not swallow the next line.
pub(super) fn not_statement_start<'a>() -> impl P<'a, ()> {
    custom(|inp: &mut Inp<'a, '_>| {
        let at = pos(inp);
        let state = inp.state();
        let boundary = state.boundary.get(at).copied().unwrap_or(false);
        let starts = is_edge_start(state.tokens, at)
            || (boundary && key_followed_by(state.tokens, at, &[Token::Eq, Token::LArrow]));
        if starts {
            Err(expected(inp, at, &[]))
        } else {
            Ok(())
        }
    })
}

/// An optional label string after a node or edge. A string followed by `->`
/// or `=` is not a label but the start of the next statement (`"a" -> b`,
/// `"key" = 1`), since statements need no separator.
pub(super) fn opt_label<'a>() -> impl P<'a, Option<(&'a str, CSpan)>> {
    custom(|inp: &mut Inp<'a, '_>| {
        let at = pos(inp);
        let tokens = inp.state().tokens;
        match tokens.get(at) {
            Some((Token::Str(raw), span))
                if !matches!(tokens.get(at + 1), Some((Token::Arrow | Token::Eq, _))) =>
            {
                inp.next();
                Ok(Some((*raw, *span)))
            }
            _ => Ok(None),
        }
    })
}
