//! Attribute lists: `[ key=value … ]` blocks, with optional separators
//! and recovery inside the block.

use wf_diagnostics::{Diagnostic, Span, codes};

use super::{Parser, is_keyword};
use crate::ast::{Attr, AttrList, Id};
use crate::lexer::Token;

impl Parser<'_> {
    /// `[ … ]` blocks; `None` (after reporting) when there is none.
    pub(super) fn attr_list(&mut self) -> Option<AttrList> {
        if self.peek() != Some(Token::LBracket) {
            self.expected("`[`");
            self.recover();
            return None;
        }
        let mut attrs = Vec::with_capacity(self.count_attrs());
        let mut span = self.span();
        while self.peek() == Some(Token::LBracket) {
            let end = self.attr_block(&mut attrs);
            span = span.to(end);
        }
        Some(AttrList { attrs, span })
    }

    /// One `[ … ]` block; returns where it ends. Commas and semicolons
    /// between attributes are optional (real files omit them).
    fn attr_block(&mut self, attrs: &mut Vec<Attr>) -> Span {
        let open = self.bump();
        loop {
            match self.peek() {
                Some(Token::RBracket) => return self.bump(),
                Some(Token::Comma | Token::Semi) => {
                    self.bump();
                }
                Some(Token::Word(_) | Token::Str(_) | Token::Html(_)) => {
                    // A word at the start of a line not followed by `=`
                    // starts the next statement: the `]` is missing.
                    // (`starts_statement` first: it is cheaper and
                    // nearly always false.)
                    if self.starts_statement() && self.at_line_start() {
                        return self.unclosed_bracket(open);
                    }
                    let Some(key) = self.id() else { continue };
                    if self.peek() != Some(Token::Eq) {
                        let found = self.describe_current();
                        let at = self.span();
                        self.error(
                            format!(
                                "expected `=` after the attribute key `{}`, found {found}",
                                key.text
                            ),
                            at,
                            "expected `=`",
                        );
                        if let Some(d) = self.diagnostics.last_mut() {
                            d.help = Some("write attributes as `key=value`".into());
                        }
                        self.skip_in_block();
                        continue;
                    }
                    self.bump();
                    if let Some(value) = self.value(&key) {
                        let span = key.span.to(value.span);
                        attrs.push(Attr { key, value, span });
                    } else {
                        self.skip_in_block();
                    }
                }
                Some(Token::RBrace | Token::LBracket | Token::LBrace) | None => {
                    return self.unclosed_bracket(open);
                }
                Some(_) => {
                    self.expected("an attribute `key=value` or `]`");
                    self.skip_in_block();
                }
            }
        }
    }

    /// How many `=` the `[ … ]` block at the current token holds (up to
    /// its `]`, or a brace when it is unclosed): the size of its attribute
    /// list, allocated once instead of grown (an `Attr` is large).
    fn count_attrs(&self) -> usize {
        self.tokens[self.pos..]
            .iter()
            .map(|t| t.0)
            .take_while(|t| !matches!(t, Token::RBracket | Token::LBrace | Token::RBrace))
            .filter(|t| *t == Token::Eq)
            .count()
    }

    /// Whether the current token (at the start of a line inside `[ … ]`)
    /// rather begins the next statement: a keyword, or an id followed by
    /// `[`, `->`, `--`, `;`, `}` or the end of the file.
    fn starts_statement(&self) -> bool {
        if self.peek_word().is_some_and(is_keyword) {
            return true;
        }
        matches!(
            self.peek_at(1),
            None | Some(
                Token::LBracket | Token::Arrow | Token::DashDash | Token::Semi | Token::RBrace
            )
        )
    }

    fn describe_current(&self) -> String {
        match self.peek() {
            Some(t) => t.describe(),
            None => "the end of the file".into(),
        }
    }

    /// Skips the rest of a bad attribute: up to a `,`, `;` or `]`, or a
    /// token that ends the block (not consumed).
    fn skip_in_block(&mut self) {
        self.skipped = true;
        let mut first = true;
        while let Some(token) = self.peek() {
            match token {
                Token::Comma | Token::Semi | Token::RBracket => return,
                Token::RBrace | Token::LBrace | Token::LBracket => return,
                _ if !first && self.at_line_start() => return,
                _ => {
                    self.bump();
                }
            }
            first = false;
        }
    }

    fn unclosed_bracket(&mut self, open: Span) -> Span {
        self.skipped = true;
        if self.already_reported() {
            return self.prev_span();
        }
        let at = self.span();
        let d = Diagnostic::new(
            &codes::DOT_SYNTAX_ERROR,
            "this `[` is never closed",
            open.in_file(self.file),
        )
        .with_primary_label("opened here")
        .with_label(at.in_file(self.file), "expected `]` before this")
        .with_help("add the missing `]`");
        self.diagnostics.push(d);
        self.prev_span()
    }

    /// The value after `key =`.
    pub(super) fn value(&mut self, key: &Id) -> Option<Id> {
        let value = self.id();
        if value.is_none() {
            let found = self.describe_current();
            let at = self.span();
            self.error(
                format!("expected a value for `{}`, found {found}", key.text),
                at,
                "expected a value",
            );
            if let Some(d) = self.diagnostics.last_mut() {
                d.help = Some("write a word or a quoted string: `label=\"Plan\"`".into());
            }
        }
        value
    }
}
