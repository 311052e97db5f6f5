//! Statements, attribute lists, edges and subgraphs.

use wf_diagnostics::Span;

use super::{MAX_DEPTH, Parser, is_keyword, is_kw};
use crate::ast::{Attr, AttrTarget, EdgeEnd, IdKind, NodeRef, Stmt, Subgraph};
use crate::lexer::Token;

impl Parser<'_> {
    /// Statements up to (not including) a `}` or the end of the file.
    pub(super) fn stmts(&mut self) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        while let Some(token) = self.peek() {
            match token {
                Token::RBrace => break,
                Token::Semi | Token::Comma => {
                    self.bump();
                }
                // Already reported by the lexer.
                Token::Error => {
                    self.skipped = true;
                    self.bump();
                }
                _ => {
                    let before = self.pos;
                    if let Some(stmt) = self.stmt() {
                        stmts.push(stmt);
                    }
                    if self.pos == before {
                        // Defensive: a statement that consumed nothing.
                        self.recover();
                    }
                }
            }
        }
        stmts
    }

    fn stmt(&mut self) -> Option<Stmt> {
        match self.peek()? {
            Token::Word(w) if is_kw(w, "subgraph") => self.subgraph_stmt(),
            Token::LBrace => self.subgraph_stmt(),
            Token::Word(w) if is_keyword(w) && self.peek_at(1) == Some(Token::LBracket) => {
                let target = if is_kw(w, "node") {
                    AttrTarget::Node
                } else if is_kw(w, "edge") {
                    AttrTarget::Edge
                } else if is_kw(w, "graph") {
                    AttrTarget::Graph
                } else {
                    let at = self.span();
                    self.error(
                        format!("`{w}` cannot take attributes here"),
                        at,
                        "expected `graph`, `node` or `edge`",
                    );
                    self.recover();
                    return None;
                };
                let keyword = self.bump();
                let attrs = self.attr_list()?;
                let span = keyword.to(attrs.span);
                Some(Stmt::AttrDefaults {
                    target,
                    keyword,
                    attrs,
                    span,
                })
            }
            Token::Word(w) if is_keyword(w) => {
                let at = self.span();
                self.error(
                    format!("`{w}` is a DOT keyword and cannot be used here"),
                    at,
                    "a keyword",
                );
                if let Some(d) = self.diagnostics.last_mut() {
                    d.help = Some(format!(
                        "to use it as a name, quote it: `\"{w}\"`; `node [ … ]`, `edge [ … ]` and `graph [ … ]` set defaults"
                    ));
                }
                self.recover();
                None
            }
            Token::Word(_) | Token::Str(_) | Token::Html(_) => {
                if self.peek_at(1) == Some(Token::Eq) {
                    let key = self.id()?;
                    self.bump();
                    let value = self.value(&key)?;
                    let span = key.span.to(value.span);
                    return Some(Stmt::Assign(Attr { key, value, span }));
                }
                let node = self.node_ref()?;
                if matches!(self.peek(), Some(Token::Arrow | Token::DashDash)) {
                    return self.edge_rest(EdgeEnd::Node(node));
                }
                let attrs = if self.peek() == Some(Token::LBracket) {
                    self.attr_list()
                } else {
                    None
                };
                let mut span = node.id.span;
                if let Some(port) = node.port {
                    span = span.to(port);
                }
                if let Some(a) = &attrs {
                    span = span.to(a.span);
                }
                self.end_of_stmt();
                Some(Stmt::Node { node, attrs, span })
            }
            _ => {
                self.expected("a statement (a node, an edge or an attribute)");
                self.recover();
                None
            }
        }
    }

    /// After a statement: an optional `;`. Anything else on the same line
    /// that cannot start a statement is reported.
    fn end_of_stmt(&mut self) {
        match self.peek() {
            Some(Token::Semi) => {
                self.bump();
            }
            Some(Token::Word(_) | Token::Str(_) | Token::RBrace | Token::LBrace) | None => {}
            Some(_) if self.at_line_start() => {}
            Some(_) => {
                self.expected("`;` or a new statement");
                self.recover();
            }
        }
    }

    /// A node id with an optional port (`a:n`, or `a:port:compass`).
    fn node_ref(&mut self) -> Option<NodeRef> {
        let mut id = self.id()?;
        let mut port = None;
        // The lexer joins `a:n` into one word; split the port off again.
        if id.kind == IdKind::Bare
            && let Some(colon) = id.text.bytes().position(|b| b == b':')
        {
            let start = id.span.start as usize + colon;
            port = Some(Span::new(start, id.span.end as usize));
            id.text.truncate(colon);
            id.span = Span::new(id.span.start as usize, start);
        }
        while self.peek() == Some(Token::Colon) {
            let colon = self.bump();
            let end = match self.peek() {
                Some(Token::Word(_) | Token::Str(_)) => self.bump(),
                _ => colon,
            };
            port = Some(port.map_or(colon.to(end), |p: Span| p.to(end)));
        }
        if let Some(at) = port {
            self.unsupported(
                "node ports are not part of the Attractor DOT subset",
                at,
                "remove the port: Attractor edges connect whole nodes",
            );
        }
        Some(NodeRef { id, port })
    }

    /// `(-> end)+ [attrs]` after the first end.
    fn edge_rest(&mut self, first: EdgeEnd) -> Option<Stmt> {
        // Nearly every edge is `a -> b`: room for that from the start.
        let mut ends = Vec::with_capacity(2);
        ends.push(first);
        let mut directed = Vec::with_capacity(1);
        while let Some(op @ (Token::Arrow | Token::DashDash)) = self.peek() {
            let span = self.bump();
            if op == Token::DashDash {
                self.unsupported(
                    "undirected edges (`--`) are not part of the Attractor DOT subset",
                    span,
                    "write `->`",
                );
            }
            directed.push((op == Token::Arrow, span));
            let end = match self.peek() {
                Some(Token::Word(w)) if is_kw(w, "subgraph") => self.subgraph_end()?,
                Some(Token::LBrace) => self.subgraph_end()?,
                Some(Token::Word(w)) if is_keyword(w) => {
                    self.expected("a node id");
                    self.recover();
                    return None;
                }
                Some(Token::Word(_) | Token::Str(_) | Token::Html(_)) => {
                    EdgeEnd::Node(self.node_ref()?)
                }
                _ => {
                    self.expected("a node id after the edge operator");
                    self.recover();
                    return None;
                }
            };
            ends.push(end);
        }
        let attrs = if self.peek() == Some(Token::LBracket) {
            self.attr_list()
        } else {
            None
        };
        let mut span = end_span(&ends[0]).to(end_span(ends.last()?));
        if let Some(a) = &attrs {
            span = span.to(a.span);
        }
        self.end_of_stmt();
        Some(Stmt::Edge {
            ends,
            directed,
            attrs,
            span,
        })
    }

    /// A subgraph used as an edge end (reported).
    fn subgraph_end(&mut self) -> Option<EdgeEnd> {
        let sub = self.subgraph()?;
        self.unsupported(
            "subgraphs as edge ends are not part of the Attractor DOT subset",
            sub.span,
            "write one edge per node: `a -> b` and `a -> c`",
        );
        Some(EdgeEnd::Subgraph(sub))
    }

    /// A subgraph statement, which may start an edge.
    fn subgraph_stmt(&mut self) -> Option<Stmt> {
        let sub = self.subgraph()?;
        if matches!(self.peek(), Some(Token::Arrow | Token::DashDash)) {
            self.unsupported(
                "subgraphs as edge ends are not part of the Attractor DOT subset",
                sub.span,
                "write one edge per node: `a -> c` and `b -> c`",
            );
            return self.edge_rest(EdgeEnd::Subgraph(sub));
        }
        self.end_of_stmt();
        Some(Stmt::Subgraph(sub))
    }

    /// `[subgraph [ID]] { stmts }`.
    fn subgraph(&mut self) -> Option<Subgraph> {
        let keyword = if self.peek_word().is_some_and(|w| is_kw(w, "subgraph")) {
            Some(self.bump())
        } else {
            None
        };
        let name = match self.peek() {
            Some(Token::Word(_) | Token::Str(_)) if keyword.is_some() => self.id(),
            _ => None,
        };
        let start = keyword.unwrap_or(self.span());
        if self.peek() != Some(Token::LBrace) {
            self.expected("`{` to open the subgraph");
            self.recover();
            return None;
        }
        if self.depth >= MAX_DEPTH {
            let open = self.span();
            self.error(
                format!("subgraphs nested more than {MAX_DEPTH} deep"),
                open,
                "too deep",
            );
            self.skip_group(Token::LBrace, Token::RBrace);
            self.skipped = true;
            return None;
        }
        let open = self.bump();
        self.depth += 1;
        let stmts = self.stmts();
        self.depth -= 1;
        let end = self.close_brace(open, "subgraph");
        Some(Subgraph {
            keyword,
            name,
            stmts,
            span: start.to(end),
        })
    }
}

fn end_span(end: &EdgeEnd) -> Span {
    match end {
        EdgeEnd::Node(n) => n.port.map_or(n.id.span, |p| n.id.span.to(p)),
        EdgeEnd::Subgraph(s) => s.span,
    }
}
