//! Statements, attribute lists, edges and subgraphs.

use wf_diagnostics::{Diagnostic, Span, codes};

use super::{MAX_DEPTH, Parser, is_keyword, is_kw};
use crate::ast::{Attr, AttrList, AttrTarget, EdgeEnd, Id, IdKind, NodeRef, Stmt, Subgraph};
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

    /// `[ … ]` blocks; `None` (after reporting) when there is none.
    pub(super) fn attr_list(&mut self) -> Option<AttrList> {
        if self.peek() != Some(Token::LBracket) {
            self.expected("`[`");
            self.recover();
            return None;
        }
        let mut attrs = Vec::new();
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
                    if self.at_line_start() && self.starts_statement() {
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
    fn value(&mut self, key: &Id) -> Option<Id> {
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

    /// A node id with an optional port (`a:n`, or `a:port:compass`).
    fn node_ref(&mut self) -> Option<NodeRef> {
        let mut id = self.id()?;
        let mut port = None;
        // The lexer joins `a:n` into one word; split the port off again.
        if id.kind == IdKind::Bare
            && let Some(colon) = id.text.find(':')
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
        let mut ends = vec![first];
        let mut directed = Vec::new();
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
