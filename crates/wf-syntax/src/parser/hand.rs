//! A hand-written recursive-descent parser for well-formed input: the
//! first of the parser's passes (see [`super::parse_tokens`]).
//!
//! It follows the chumsky grammar (`items`, `atoms`, `expr`, `lookahead`)
//! rule by rule, with the same ordered choices, the same backtracking of
//! optional parts and the same spans, but it knows no recovery: wherever
//! the chumsky grammar would report an error (or recover from one), it
//! gives up on the whole file and the chumsky passes parse it instead. So
//! when it returns a tree, that tree is the one the chumsky grammar builds
//! and the file has no syntax error; when it does not, nothing is lost but
//! its time. The differential tests in `hand_tests.rs` hold it to that.
//!
//! Two kinds of failure are kept apart: [`Stop::Fail`] is a rule not
//! matching (the caller may backtrack and try something else, as chumsky
//! does: `or_not`, `separated_by`, `repeated`); [`Stop::Bail`] is "chumsky
//! would report an error here", which ends the pass.
//!
//! Linear in the number of tokens: every rule looks ahead a bounded number
//! of tokens, and backtracking never re-parses more than one key.

use wf_diagnostics::Span;

use super::{CSpan, MAX_DEPTH, sp};
use crate::ast::{
    Attribute, AttributeBlock, BinOp, BodyItem, Docs, EdgeChain, Expr, File, Import, Item, Key,
    MapEntry, Name, Node, NodeBody, NodeKind, ReadKey, ReturnMapEntry, Signature, Statement,
    StrLit, TypeName, TypedKey, Value, Workflow,
};
use crate::groups::{Closing, Groups};
use crate::strings::{decode_backtick, decode_str, decode_text_block, interpolations};
use crate::token::Token;

/// Why a rule did not produce a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// The rule does not match here; the caller rewinds and may go on.
    Fail,
    /// The chumsky grammar reports an error here: give up on the file.
    Bail,
}

type R<T> = Result<T, Stop>;

/// Turns a failed rule into giving up: used where chumsky recovers (with an
/// error) instead of backtracking.
fn bail(_: Stop) -> Stop {
    Stop::Bail
}

/// How deep this pass follows nested brackets before leaving the input to
/// the chumsky passes (which report nesting beyond [`MAX_DEPTH`]): keeps
/// this pass's stack small on pathological input.
const HAND_DEPTH: u32 = 64;

/// An expression with the depth of its tree (as in `expr.rs`).
type Deep = (Expr, u32);

/// Parses a whole file, or returns `None` when the file has a syntax error
/// (or anything this pass leaves to the chumsky passes).
pub(crate) fn parse(
    tokens: &[(Token<'_>, CSpan)],
    groups: &Groups,
    boundary: &[bool],
    len: usize,
) -> Option<File> {
    let mut parser = Hand {
        tokens,
        groups,
        boundary,
        pos: 0,
        depth: 0,
    };
    let items = parser.file().ok()?;
    Some(File {
        items,
        span: Span::new(0, len),
    })
}

struct Hand<'t, 'a> {
    tokens: &'t [(Token<'a>, CSpan)],
    groups: &'t Groups,
    boundary: &'t [bool],
    /// The index of the next token.
    pos: usize,
    /// Brackets open around `pos`.
    depth: u32,
}

impl<'a> Hand<'_, 'a> {
    fn peek(&self) -> Option<Token<'a>> {
        self.tokens.get(self.pos).map(|(t, _)| *t)
    }

    fn peek_at(&self, index: usize) -> Option<Token<'a>> {
        self.tokens.get(index).map(|(t, _)| *t)
    }

    /// The span of the next token (callers check there is one).
    fn span(&self) -> CSpan {
        self.tokens[self.pos].1
    }

    /// From the start of the token at `start` to the end of the last token
    /// consumed: chumsky's `e.span()`.
    fn span_from(&self, start: usize) -> Span {
        Span::new(self.tokens[start].1.start, self.tokens[self.pos - 1].1.end)
    }

    /// Consumes `token` or fails.
    fn expect(&mut self, token: Token<'_>) -> R<()> {
        if self.peek() == Some(token) {
            self.pos += 1;
            Ok(())
        } else {
            Err(Stop::Fail)
        }
    }

    /// An optional `,` or `;` after a statement or entry.
    fn separator(&mut self) {
        if matches!(self.peek(), Some(Token::Comma | Token::Semi)) {
            self.pos += 1;
        }
    }

    // ----- files and items (`items.rs`) -----

    fn file(&mut self) -> R<Vec<Item>> {
        let mut items = Vec::new();
        while let Some(token) = self.peek() {
            items.push(match token {
                Token::Import => self.import()?,
                Token::Workflow => self.workflow()?,
                _ => return Err(Stop::Bail),
            });
        }
        Ok(items)
    }

    fn import(&mut self) -> R<Item> {
        let start = self.pos;
        self.pos += 1;
        let path = match self.peek() {
            Some(Token::Str(raw)) => {
                let span = self.span();
                self.pos += 1;
                str_lit(raw, span, false)
            }
            _ => return Err(Stop::Bail),
        };
        let alias = match (self.peek(), self.peek_at(self.pos + 1)) {
            (Some(Token::As), Some(Token::Ident(s))) => {
                let span = self.tokens[self.pos + 1].1;
                self.pos += 2;
                Some(Name {
                    text: s.to_string(),
                    span: sp(span),
                    quoted: false,
                })
            }
            _ => None,
        };
        Ok(Item::Import(Import {
            docs: Docs::default(),
            path,
            alias,
            span: self.span_from(start),
        }))
    }

    fn workflow(&mut self) -> R<Item> {
        let start = self.pos;
        self.pos += 1;
        // A header with anything but a name right before the `{` is
        // recovered from (with an error) by `workflow_name`.
        let name = self.name().map_err(bail)?;
        if self.peek() != Some(Token::LBrace) {
            return Err(Stop::Bail);
        }
        let (body, _) = self.group(Token::LBrace, Token::RBrace, Self::statements)?;
        Ok(Item::Workflow(Workflow {
            docs: Docs::default(),
            name,
            body,
            span: self.span_from(start),
        }))
    }

    /// `open inner close` (`delimited.rs`) on the happy path: the opener is
    /// the next token, the pre-pass matched it, the contents parse and the
    /// closer follows them. Anything else is an error chumsky recovers from.
    fn group<O>(
        &mut self,
        open: Token<'static>,
        close: Token<'static>,
        inner: impl FnOnce(&mut Self) -> R<O>,
    ) -> R<(O, Span)> {
        let start = self.pos;
        if self.peek() != Some(open) {
            return Err(Stop::Fail);
        }
        if self.depth >= HAND_DEPTH.min(MAX_DEPTH) {
            return Err(Stop::Bail);
        }
        let Some((end, Closing::Matched)) = self.groups.end(start) else {
            return Err(Stop::Bail);
        };
        self.pos += 1;
        self.depth += 1;
        let output = inner(self).map_err(bail)?;
        self.depth -= 1;
        if self.pos != end || self.peek() != Some(close) {
            return Err(Stop::Bail);
        }
        self.pos += 1;
        Ok((output, self.span_from(start)))
    }

    /// The statements of a workflow body, up to its `}`.
    fn statements(&mut self) -> R<Vec<Statement>> {
        let mut out = Vec::new();
        while self.peek() != Some(Token::RBrace) {
            out.push(self.statement().map_err(bail)?);
            self.separator();
        }
        Ok(out)
    }

    fn statement(&mut self) -> R<Statement> {
        let start = self.pos;
        Ok(match self.peek().ok_or(Stop::Fail)? {
            Token::Needs | Token::Gives => {
                let needs = self.peek() == Some(Token::Needs);
                self.pos += 1;
                let keys = self.key_list(Self::typed_key)?;
                let signature = Signature {
                    keys,
                    span: self.span_from(start),
                };
                if needs {
                    Statement::Needs(signature)
                } else {
                    Statement::Gives(signature)
                }
            }
            Token::Step
            | Token::Human
            | Token::Tool
            | Token::Branch
            | Token::Parallel
            | Token::Join
            | Token::Exit => Statement::Node(self.plain_node()?),
            Token::Call => Statement::Node(self.call_node()?),
            Token::Ident(_) | Token::Str(_) if self.peek_at(self.pos + 1) == Some(Token::Arrow) => {
                Statement::Edge(self.edge_chain()?)
            }
            _ => Statement::Attribute(self.attribute()?),
        })
    }

    /// `KIND name ["label"] [{ body }]`
    fn plain_node(&mut self) -> R<Node> {
        let start = self.pos;
        let kind = match self.peek() {
            Some(Token::Step) => NodeKind::Step,
            Some(Token::Human) => NodeKind::Human,
            Some(Token::Tool) => NodeKind::Tool,
            Some(Token::Branch) => NodeKind::Branch,
            Some(Token::Parallel) => NodeKind::Parallel,
            Some(Token::Join) => NodeKind::Join,
            Some(Token::Exit) => NodeKind::Exit,
            _ => return Err(Stop::Fail),
        };
        let kind_span = self.span();
        self.pos += 1;
        let name = self.name()?;
        let label = self.opt_label();
        let body = self.opt_node_body()?;
        Ok(Node {
            docs: Docs::default(),
            kind,
            kind_span: sp(kind_span),
            name,
            label,
            callee: None,
            body,
            span: self.span_from(start),
        })
    }

    /// `call name ["label"] = Workflow [{ body }]`
    fn call_node(&mut self) -> R<Node> {
        let start = self.pos;
        let kind_span = self.span();
        self.pos += 1;
        let name = self.name()?;
        let label = match self.peek() {
            Some(Token::Str(raw)) => {
                let span = self.span();
                self.pos += 1;
                Some(str_lit(raw, span, false))
            }
            _ => None,
        };
        self.expect(Token::Eq)?;
        let callee = self.name()?;
        let body = self.opt_node_body()?;
        Ok(Node {
            docs: Docs::default(),
            kind: NodeKind::Call,
            kind_span: sp(kind_span),
            name,
            label,
            callee: Some(callee),
            body,
            span: self.span_from(start),
        })
    }

    fn opt_node_body(&mut self) -> R<Option<NodeBody>> {
        if self.peek() != Some(Token::LBrace) {
            return Ok(None);
        }
        let (items, span) = self.group(Token::LBrace, Token::RBrace, Self::body_items)?;
        Ok(Some(NodeBody { items, span }))
    }

    fn body_items(&mut self) -> R<Vec<BodyItem>> {
        let mut out = Vec::new();
        while self.peek() != Some(Token::RBrace) {
            out.push(self.body_item().map_err(bail)?);
            self.separator();
        }
        Ok(out)
    }

    fn body_item(&mut self) -> R<BodyItem> {
        let start = self.pos;
        match self.peek() {
            Some(Token::Reads) => {
                self.pos += 1;
                let keys = self.key_list(Self::read_key)?;
                Ok(BodyItem::Reads(keys, self.span_from(start)))
            }
            Some(Token::Writes) => {
                self.pos += 1;
                let keys = self.key_list(Self::typed_key)?;
                Ok(BodyItem::Writes(keys, self.span_from(start)))
            }
            _ => {
                let key = self.key()?;
                match self.peek() {
                    Some(Token::Eq) => {
                        self.pos += 1;
                        let value = self.value()?;
                        Ok(BodyItem::Attribute(Attribute {
                            key,
                            value,
                            span: self.span_from(start),
                        }))
                    }
                    Some(Token::LArrow) => {
                        self.pos += 1;
                        let child = self.key()?;
                        Ok(BodyItem::ReturnMap(ReturnMapEntry {
                            parent: key,
                            child,
                            span: self.span_from(start),
                        }))
                    }
                    _ => Err(Stop::Fail),
                }
            }
        }
    }

    /// `a -> b -> c ["label"] [when EXPR] [{ attributes }]`
    fn edge_chain(&mut self) -> R<EdgeChain> {
        let start = self.pos;
        let mut nodes = vec![self.name()?];
        let mut arrows = Vec::new();
        while self.peek() == Some(Token::Arrow)
            && matches!(
                self.peek_at(self.pos + 1),
                Some(Token::Ident(_) | Token::Str(_))
            )
        {
            arrows.push(sp(self.span()));
            self.pos += 1;
            nodes.push(self.name()?);
        }
        if arrows.is_empty() {
            return Err(Stop::Fail);
        }
        let label = self.opt_label();
        let guard = if self.peek() == Some(Token::When) {
            self.pos += 1;
            Some(self.expr().map_err(bail)?.0)
        } else {
            None
        };
        let attributes = if self.peek() == Some(Token::LBrace) {
            let (attributes, span) =
                self.group(Token::LBrace, Token::RBrace, Self::block_attributes)?;
            Some(AttributeBlock { attributes, span })
        } else {
            None
        };
        Ok(EdgeChain {
            docs: Docs::default(),
            nodes,
            arrows,
            label,
            guard,
            attributes,
            span: self.span_from(start),
        })
    }

    fn block_attributes(&mut self) -> R<Vec<Attribute>> {
        let mut out = Vec::new();
        while self.peek() != Some(Token::RBrace) {
            out.push(self.attribute().map_err(bail)?);
            self.separator();
        }
        Ok(out)
    }

    // ----- names, keys and values (`atoms.rs`, `lookahead.rs`) -----

    /// A node or workflow name: an identifier or a quoted string.
    fn name(&mut self) -> R<Name> {
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
    fn opt_label(&mut self) -> Option<StrLit> {
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
    fn key_path(&mut self) -> R<Key> {
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
    fn key(&mut self) -> R<Key> {
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
    fn backtick_key(&mut self) -> R<Key> {
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

    fn typed_key(&mut self) -> R<TypedKey> {
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

    fn read_key(&mut self) -> R<ReadKey> {
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
    fn key_list<T>(&mut self, item: fn(&mut Self) -> R<T>) -> R<Vec<T>> {
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
    fn comma_list<T>(&mut self, item: fn(&mut Self) -> R<T>) -> R<Vec<T>> {
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
    fn at_statement_start(&self) -> bool {
        let at = self.pos;
        let boundary = self.boundary.get(at).copied().unwrap_or(false);
        is_edge_start(self.tokens, at)
            || (boundary && key_followed_by(self.tokens, at, &[Token::Eq, Token::LArrow]))
    }

    /// An attribute value.
    fn value(&mut self) -> R<Value> {
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

    fn map_entry(&mut self) -> R<MapEntry> {
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
    fn attribute(&mut self) -> R<Attribute> {
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

    // ----- guard expressions (`expr.rs`) -----

    /// `and { || and }`
    fn expr(&mut self) -> R<Deep> {
        let mut lhs = self.and()?;
        while self.peek() == Some(Token::OrOr) {
            let op = self.span();
            self.pos += 1;
            let rhs = self.and().map_err(bail)?;
            lhs = binary(lhs, BinOp::Or, op, rhs)?;
        }
        Ok(lhs)
    }

    /// `comparison { && comparison }`
    fn and(&mut self) -> R<Deep> {
        let mut lhs = self.comparison()?;
        while self.peek() == Some(Token::AndAnd) {
            let op = self.span();
            self.pos += 1;
            let rhs = self.comparison().map_err(bail)?;
            lhs = binary(lhs, BinOp::And, op, rhs)?;
        }
        Ok(lhs)
    }

    /// `unary [op unary]`: a second operator is an error (no chaining).
    fn comparison(&mut self) -> R<Deep> {
        let lhs = self.unary()?;
        let Some(op) = self.peek().and_then(compare_op) else {
            return Ok(lhs);
        };
        let op_span = self.span();
        self.pos += 1;
        let rhs = self.unary().map_err(bail)?;
        if self.peek().and_then(compare_op).is_some() {
            return Err(Stop::Bail);
        }
        binary(lhs, op, op_span, rhs)
    }

    /// `{ ! } operand`
    fn unary(&mut self) -> R<Deep> {
        let mut bangs = Vec::new();
        while self.peek() == Some(Token::Bang) {
            bangs.push(self.span());
            self.pos += 1;
        }
        if bangs.is_empty() {
            return self.operand();
        }
        let mut operand = self.operand().map_err(bail)?;
        for bang in bangs.into_iter().rev() {
            let span = sp(bang).to(operand.0.span());
            operand = wrap(Expr::Not(Box::new(operand.0), span), operand.1)?;
        }
        Ok(operand)
    }

    fn operand(&mut self) -> R<Deep> {
        if self.at_statement_start() {
            return Err(Stop::Fail);
        }
        let token = self.peek().ok_or(Stop::Fail)?;
        let span = self.span();
        let literal = match token {
            Token::Str(raw) => Value::String(str_lit(raw, span, false)),
            Token::Int(n) => Value::Int(n, sp(span)),
            Token::Float(x) => Value::Float(x, sp(span)),
            Token::Duration(ms) => Value::Duration(ms, sp(span)),
            Token::True => Value::Bool(true, sp(span)),
            Token::False => Value::Bool(false, sp(span)),
            Token::Null => Value::Null(sp(span)),
            Token::BadNumber => {
                self.pos += 1;
                return Ok((Expr::Error(sp(span)), 1));
            }
            Token::Exists => {
                let start = self.pos;
                self.pos += 1;
                // `exists` not followed by `(` leaves a token no rule takes.
                let (key, _) = self
                    .group(Token::LParen, Token::RParen, |p| {
                        if p.at_statement_start() {
                            return Err(Stop::Fail);
                        }
                        p.key_path().or_else(|_| p.backtick_key())
                    })
                    .map_err(bail)?;
                return Ok((Expr::Exists(key, self.span_from(start)), 1));
            }
            Token::Ident(_) => return Ok((Expr::Key(self.key_path()?), 1)),
            Token::Backtick(_) => return Ok((Expr::Key(self.backtick_key()?), 1)),
            Token::LBracket => {
                let (items, span) = self.group(Token::LBracket, Token::RBracket, |p| {
                    p.comma_list(Self::expr)
                })?;
                let depth = items.iter().map(|(_, d)| *d).max().unwrap_or(0);
                let items = items.into_iter().map(|(x, _)| x).collect();
                return wrap(Expr::List(items, span), depth);
            }
            Token::LParen => {
                let ((inner, depth), span) =
                    self.group(Token::LParen, Token::RParen, Self::expr)?;
                return wrap(Expr::Paren(Box::new(inner), span), depth);
            }
            _ => return Err(Stop::Fail),
        };
        self.pos += 1;
        Ok((Expr::Literal(literal), 1))
    }
}

/// Builds a string literal from a `Str` or `TextBlock` token's raw text
/// (as `atoms::str_lit`).
fn str_lit(raw: &str, span: CSpan, multiline: bool) -> StrLit {
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

fn compare_op(token: Token<'_>) -> Option<BinOp> {
    Some(match token {
        Token::EqEq => BinOp::Eq,
        Token::NotEq => BinOp::Ne,
        Token::Lt => BinOp::Lt,
        Token::Le => BinOp::Le,
        Token::Gt => BinOp::Gt,
        Token::Ge => BinOp::Ge,
        Token::In => BinOp::In,
        Token::Contains => BinOp::Contains,
        Token::Matches => BinOp::Matches,
        _ => return None,
    })
}

/// Wraps a node around children of depth `child_depth`; deeper than
/// [`MAX_DEPTH`] is an error.
fn wrap(expr: Expr, child_depth: u32) -> R<Deep> {
    if child_depth + 1 > MAX_DEPTH {
        return Err(Stop::Bail);
    }
    Ok((expr, child_depth + 1))
}

fn binary((lhs, ld): Deep, op: BinOp, op_span: CSpan, (rhs, rd): Deep) -> R<Deep> {
    wrap(
        Expr::Binary(Box::new(lhs), op, sp(op_span), Box::new(rhs)),
        ld.max(rd),
    )
}

/// The index just past a key (`a.b.c` or `"quoted"`) starting at `index`
/// (as in `lookahead.rs`).
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
fn key_followed_by(tokens: &[(Token<'_>, CSpan)], index: usize, next: &[Token<'_>]) -> bool {
    key_end(tokens, index)
        .and_then(|end| tokens.get(end))
        .is_some_and(|(t, _)| next.contains(t))
}

/// Whether the tokens at `index` are a name followed by `->`.
fn is_edge_start(tokens: &[(Token<'_>, CSpan)], index: usize) -> bool {
    matches!(
        tokens.get(index),
        Some((Token::Ident(_) | Token::Str(_), _))
    ) && matches!(tokens.get(index + 1), Some((Token::Arrow, _)))
}
