//! Names, keys, types and attribute values.

use chumsky::prelude::*;

use super::delimited::{Flavour, group};
use super::lookahead::{list_comma, not_statement_start};
use super::{CSpan, P, sp};
use crate::ast::{Attribute, Key, MapEntry, Name, ReadKey, StrLit, TypeName, TypedKey, Value};
use crate::strings::{decode_backtick, decode_str, decode_text_block, interpolations};
use crate::token::Token;

/// Builds a string literal from a `Str` or `TextBlock` token's raw text.
pub(super) fn str_lit(raw: &str, span: CSpan, multiline: bool) -> StrLit {
    StrLit {
        value: if multiline {
            decode_text_block(raw)
        } else {
            decode_str(raw)
        },
        span: sp(span),
        multiline,
        interpolations: interpolations(raw, span.start),
    }
}

/// A plain `"…"` string.
pub(super) fn string<'a>() -> impl P<'a, StrLit> {
    select! { Token::Str(raw) = e => str_lit(raw, e.span(), false) }.labelled("a string")
}

/// An identifier with its span.
fn ident<'a>() -> impl P<'a, (&'a str, CSpan)> {
    select! { Token::Ident(s) = e => (s, e.span()) }
}

/// An identifier used as a name (`as alias`).
pub(super) fn ident_name<'a>() -> impl P<'a, Name> {
    ident().map(|(s, span)| Name {
        text: s.to_string(),
        span: sp(span),
        quoted: false,
    })
}

/// A node or workflow name: an identifier or a quoted string.
pub(super) fn name<'a>() -> impl P<'a, Name> {
    select! {
        Token::Ident(s) = e => Name { text: s.to_string(), span: sp(e.span()), quoted: false },
        Token::Str(raw) = e => Name { text: decode_str(raw), span: sp(e.span()), quoted: true },
    }
}

/// A dotted identifier path (`build.log`), as a key. A keyword written
/// directly after a `.` (`result.exit`) is already an identifier: the lexer
/// decides that (see [`crate::lexer`]).
pub(super) fn key_path<'a>() -> impl P<'a, Key> {
    ident()
        .map(|(s, span)| (s.to_string(), span))
        .foldl(
            just(Token::Dot)
                .ignore_then(ident().labelled("an identifier"))
                .repeated(),
            |(mut text, span), (seg, seg_span)| {
                text.push('.');
                text.push_str(seg);
                (text, CSpan::from(span.start..seg_span.end))
            },
        )
        .map(|(text, span)| Key {
            text,
            span: sp(span),
            quoted: false,
        })
}

/// A backtick-quoted key (guards only).
pub(super) fn backtick_key<'a>() -> impl P<'a, Key> {
    select! { Token::Backtick(raw) = e => Key { text: decode_backtick(raw), span: sp(e.span()), quoted: true } }
}

/// A blackboard key: a dotted path or a quoted string.
pub(super) fn key<'a>() -> impl P<'a, Key> {
    let quoted = select! { Token::Str(raw) = e => Key { text: decode_str(raw), span: sp(e.span()), quoted: true } };
    key_path().or(quoted).labelled("a key")
}

/// `key [: type]`
pub(super) fn typed_key<'a>() -> impl P<'a, TypedKey> {
    let ty = ident()
        .map(|(s, span)| TypeName {
            text: s.to_string(),
            span: sp(span),
        })
        .labelled("a type name");
    key()
        .then(just(Token::Colon).ignore_then(ty).or_not())
        .map_with(|(key, ty), e| TypedKey {
            key,
            ty,
            span: sp(e.span()),
        })
}

/// `key [?]`
pub(super) fn read_key<'a>() -> impl P<'a, ReadKey> {
    key()
        .then(just(Token::Question).or_not())
        .map_with(|(key, q), e| ReadKey {
            key,
            optional: q.is_some(),
            span: sp(e.span()),
        })
}

/// `typed_key { , typed_key }` (see [`list_comma`] for where the list ends).
pub(super) fn typed_key_list<'a>() -> impl P<'a, Vec<TypedKey>> {
    typed_key().separated_by(list_comma()).at_least(1).collect()
}

/// `read_key { , read_key }`
pub(super) fn read_key_list<'a>() -> impl P<'a, Vec<ReadKey>> {
    read_key().separated_by(list_comma()).at_least(1).collect()
}

/// An attribute value.
pub(super) fn value<'a>() -> impl P<'a, Value> {
    recursive(|value| {
        let scalar = select! {
            Token::Str(raw) = e => Value::String(str_lit(raw, e.span(), false)),
            Token::TextBlock(raw) = e => Value::String(str_lit(raw, e.span(), true)),
            Token::Int(n) = e => Value::Int(n, sp(e.span())),
            Token::Float(x) = e => Value::Float(x, sp(e.span())),
            Token::Duration(ms) = e => Value::Duration(ms, sp(e.span())),
            Token::True = e => Value::Bool(true, sp(e.span())),
            Token::False = e => Value::Bool(false, sp(e.span())),
            Token::Null = e => Value::Null(sp(e.span())),
            // Already reported by the lexer.
            Token::BadNumber = e => Value::Error(sp(e.span())),
        };
        let list = group(
            Token::LBracket,
            Token::RBracket,
            Flavour::Strict,
            value
                .clone()
                .separated_by(just(Token::Comma))
                .allow_trailing()
                .collect::<Vec<_>>(),
        )
        .map(|(items, span)| match items {
            Some(items) => Value::List(items, sp(span)),
            None => Value::Error(sp(span)),
        });
        let entry = key()
            .then_ignore(just(Token::Colon))
            .then(value.clone())
            .map_with(|(key, value), e| MapEntry {
                key,
                value,
                span: sp(e.span()),
            });
        let map = group(
            Token::LBrace,
            Token::RBrace,
            Flavour::Strict,
            entry
                .separated_by(just(Token::Comma))
                .allow_trailing()
                .collect::<Vec<_>>(),
        )
        .map(|(entries, span)| match entries {
            Some(entries) => Value::Map(entries, sp(span)),
            None => Value::Error(sp(span)),
        });
        // A forgotten value (`retries =`) must not take the start of the
        // next statement as the value.
        not_statement_start()
            .ignore_then(choice((scalar, key_path().map(Value::Path), list, map)))
            .labelled("a value")
            .boxed()
    })
}

/// `key = value`
pub(super) fn attribute<'a>(value: impl P<'a, Value>) -> impl P<'a, Attribute> {
    key()
        .then_ignore(just(Token::Eq))
        .then(value)
        .map_with(|(key, value), e| Attribute {
            key,
            value,
            span: sp(e.span()),
        })
}
