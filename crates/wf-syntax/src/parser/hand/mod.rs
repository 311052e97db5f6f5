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
    Attribute, AttributeBlock, BodyItem, Docs, EdgeChain, Expr, File, Import, Item, Name, Node,
    NodeBody, NodeKind, ReturnMapEntry, Signature, Statement, Workflow,
};
use crate::groups::{Closing, Groups};
use crate::token::Token;
use atoms::str_lit;

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
}

mod atoms;
mod expr;
