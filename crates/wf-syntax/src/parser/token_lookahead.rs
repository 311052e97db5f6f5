//! Lookahead over the token table alone, shared by the chumsky grammars
//! (through `lookahead.rs`, compiled once per grammar) and the hand-written
//! fast path, so both agree on where a statement starts.

use super::CSpan;
use crate::token::Token;

/// The index just past a key (`a.b.c` or `"quoted"`) starting at `index`.
fn key_end(tokens: &[(Token<'_>, CSpan)], index: usize) -> Option<usize> {
    match tokens.get(index)?.0 {
        Token::Str(_) => Some(index + 1),
        Token::Ident(_) => {
            let mut i = index + 1;
            while matches!(tokens.get(i), Some((Token::Dot, _)))
                && matches!(tokens.get(i + 1), Some((Token::Ident(_), _)))
            {
                i += 2;
            }
            Some(i)
        }
        _ => None,
    }
}

/// Whether a key starting at `index` is followed by one of `next`.
pub(super) fn key_followed_by(
    tokens: &[(Token<'_>, CSpan)],
    index: usize,
    next: &[Token<'_>],
) -> bool {
    key_end(tokens, index)
        .and_then(|end| tokens.get(end))
        .is_some_and(|(t, _)| next.contains(t))
}

/// Whether the tokens at `index` are a name followed by `->`.
pub(super) fn is_edge_start(tokens: &[(Token<'_>, CSpan)], index: usize) -> bool {
    matches!(
        tokens.get(index),
        Some((Token::Ident(_) | Token::Str(_), _))
    ) && matches!(tokens.get(index + 1), Some((Token::Arrow, _)))
}
