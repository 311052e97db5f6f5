//! Names, keys and values of the hand-written parser (as `atoms.rs` and
//! `lookahead.rs` of the chumsky grammar).

use wf_diagnostics::Span;

use super::{Hand, R, Stop};
use crate::ast::{Attribute, Key, MapEntry, Name, ReadKey, StrLit, TypeName, TypedKey, Value};
use crate::parser::token_lookahead::{is_edge_start, key_followed_by};
use crate::parser::{CSpan, sp};
use crate::strings::{decode_backtick, decode_str, decode_text_block, interpolations};
use crate::token::Token;

impl<'a> Hand<'_, 'a> {
    /// A node or workflow name: an identifier or a quoted string.
    pub(super) fn name(&mut self) -> R<Name> {
        let name = match self.peek() {
            Some(Token::Ident(s)) => Name {
                text: s.to_string(),
                span: sp(self.span()),
                quoted: false,
            },
            Some(Token::Str(raw)) => Name {
                text: decode_str(raw),
                span: sp(self.span()),
                quoted: true,
            },
            _ => return Err(Stop::Fail),
        };
        self.pos += 1;
        Ok(name)
    }

    /// A label string, unless the string starts the next statement.
    pub(super) fn opt_label(&mut self) -> Option<StrLit> {
        match self.peek() {
            Some(Token::Str(raw))
                if !matches!(self.peek_at(self.pos + 1), Some(Token::Arrow | Token::Eq)) =>
            {
                let span = self.span();
                self.pos += 1;
                Some(str_lit(raw, span, false))
            }
            _ => None,
        }
    }

    /// A dotted identifier path.
    pub(super) fn key_path(&mut self) -> R<Key> {
        let Some(Token::Ident(first)) = self.peek() else {
            return Err(Stop::Fail);
        };
        let start = self.span().start;
        let mut end = self.span().end;
        let mut text = first.to_string();
        self.pos += 1;
        while self.peek() == Some(Token::Dot) {
            let Some(Token::Ident(segment)) = self.peek_at(self.pos + 1) else {
                break;
            };
            end = self.tokens[self.pos + 1].1.end;
            text.push('.');
            text.push_str(segment);
            self.pos += 2;
        }
        Ok(Key {
            text,
            span: Span::new(start, end),
            quoted: false,
        })
    }

    /// A dotted path or a quoted string.
    pub(super) fn key(&mut self) -> R<Key> {
        match self.peek() {
            Some(Token::Str(raw)) => {
                let span = self.span();
                self.pos += 1;
                Ok(Key {
                    text: decode_str(raw),
                    span: sp(span),
                    quoted: true,
                })
            }
            _ => self.key_path(),
        }
    }

    /// A backtick-quoted key (guards only).
    pub(super) fn backtick_key(&mut self) -> R<Key> {
        let Some(Token::Backtick(raw)) = self.peek() else {
            return Err(Stop::Fail);
        };
        let span = self.span();
        self.pos += 1;
        Ok(Key {
            text: decode_backtick(raw),
            span: sp(span),
            quoted: true,
        })
    }

    pub(super) fn typed_key(&mut self) -> R<TypedKey> {
        let start = self.pos;
        let key = self.key()?;
        let ty = match (self.peek(), self.peek_at(self.pos + 1)) {
            (Some(Token::Colon), Some(Token::Ident(s))) => {
                let span = self.tokens[self.pos + 1].1;
                self.pos += 2;
                Some(TypeName {
                    text: s.to_string(),
                    span: sp(span),
                })
            }
            _ => None,
        };
        Ok(TypedKey {
            key,
            ty,
            span: self.span_from(start),
        })
    }

    pub(super) fn read_key(&mut self) -> R<ReadKey> {
        let start = self.pos;
        let key = self.key()?;
        let optional = self.peek() == Some(Token::Question);
        if optional {
            self.pos += 1;
        }
        Ok(ReadKey {
            key,
            optional,
            span: self.span_from(start),
        })
    }

    /// `item { , item }`, at least one, where a comma followed by a key and
    /// `=` or `<-` ends the list (`list_comma`); a comma not followed by an
    /// item is left to the caller.
    pub(super) fn key_list<T>(&mut self, item: fn(&mut Self) -> R<T>) -> R<Vec<T>> {
        let mut out = vec![item(self)?];
        loop {
            let before = self.pos;
            if self.peek() != Some(Token::Comma)
                || key_followed_by(self.tokens, self.pos + 1, &[Token::Eq, Token::LArrow])
            {
                break;
            }
            self.pos += 1;
            match item(self) {
                Ok(value) => out.push(value),
                Err(Stop::Fail) => {
                    self.pos = before;
                    break;
                }
                Err(Stop::Bail) => return Err(Stop::Bail),
            }
        }
        Ok(out)
    }

    /// `[ item { , item } [,] ]`: zero or more, a trailing comma allowed.
    pub(super) fn comma_list<T>(&mut self, item: fn(&mut Self) -> R<T>) -> R<Vec<T>> {
        let mut out = Vec::new();
        loop {
            if !out.is_empty() {
                if self.peek() != Some(Token::Comma) {
                    break;
                }
                self.pos += 1;
            }
            let before = self.pos;
            match item(self) {
                Ok(value) => out.push(value),
                Err(Stop::Fail) => {
                    self.pos = before;
                    break;
                }
                Err(Stop::Bail) => return Err(Stop::Bail),
            }
        }
        Ok(out)
    }

    /// Whether the next tokens start a statement (`not_statement_start`):
    /// values and operands never start there.
    pub(super) fn at_statement_start(&self) -> bool {
        let at = self.pos;
        let boundary = self.boundary.get(at).copied().unwrap_or(false);
        is_edge_start(self.tokens, at)
            || (boundary && key_followed_by(self.tokens, at, &[Token::Eq, Token::LArrow]))
    }

    /// An attribute value.
    pub(super) fn value(&mut self) -> R<Value> {
        if self.at_statement_start() {
            return Err(Stop::Fail);
        }
        let token = self.peek().ok_or(Stop::Fail)?;
        let span = self.span();
        let scalar = match token {
            Token::Str(raw) => Value::String(str_lit(raw, span, false)),
            Token::TextBlock(raw) => Value::String(str_lit(raw, span, true)),
            Token::Int(n) => Value::Int(n, sp(span)),
            Token::Float(x) => Value::Float(x, sp(span)),
            Token::Duration(ms) => Value::Duration(ms, sp(span)),
            Token::True => Value::Bool(true, sp(span)),
            Token::False => Value::Bool(false, sp(span)),
            Token::Null => Value::Null(sp(span)),
            // Already reported by the lexer.
            Token::BadNumber => Value::Error(sp(span)),
            Token::Ident(_) => return self.key_path().map(Value::Path),
            Token::LBracket => {
                let (items, span) = self.group(Token::LBracket, Token::RBracket, |p| {
                    p.comma_list(Self::value)
                })?;
                return Ok(Value::List(items, span));
            }
            Token::LBrace => {
                let (entries, span) = self.group(Token::LBrace, Token::RBrace, |p| {
                    p.comma_list(Self::map_entry)
                })?;
                return Ok(Value::Map(entries, span));
            }
            _ => return Err(Stop::Fail),
        };
        self.pos += 1;
        Ok(scalar)
    }

    pub(super) fn map_entry(&mut self) -> R<MapEntry> {
        let start = self.pos;
        let key = self.key()?;
        self.expect(Token::Colon)?;
        let value = self.value()?;
        Ok(MapEntry {
            key,
            value,
            span: self.span_from(start),
        })
    }

    /// `key = value`
    pub(super) fn attribute(&mut self) -> R<Attribute> {
        let start = self.pos;
        let key = self.key()?;
        self.expect(Token::Eq)?;
        let value = self.value()?;
        Ok(Attribute {
            key,
            value,
            span: self.span_from(start),
        })
    }
}

/// Builds a string literal from a `Str` or `TextBlock` token's raw text
/// (as `atoms::str_lit`).
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
