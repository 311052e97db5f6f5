//! The layout of graphs, statements and attribute lists.

use wf_diagnostics::Span;
use wf_dot::ast::{Attr, AttrList, EdgeEnd, File, Graph, Id, IdKind, Stmt, Subgraph};
use wf_dot::lexer::Token;

use super::printer::Printer;

/// The written form of an id: its source text, except that the pieces of
/// a `"a" + "b"` concatenation are joined by ` + ` (whatever was between
/// them, comments aside).
fn id_code(p: &Printer<'_>, id: &Id) -> String {
    if id.kind == IdKind::Quoted && !id.pieces.is_empty() {
        let pieces: Vec<&str> = id.pieces.iter().map(|s| p.text(*s)).collect();
        pieces.join(" + ")
    } else {
        p.text(id.span).to_string()
    }
}

fn attr_code(p: &Printer<'_>, attr: &Attr) -> String {
    format!("{}={}", id_code(p, &attr.key), id_code(p, &attr.value))
}

/// `key = value` in a file that writes its assignments and spread-out
/// lists that way (see `Printer::spaced_eq`), else `key=value`.
fn spaced_attr_code(p: &Printer<'_>, attr: &Attr) -> String {
    if p.spaced_eq {
        format!("{} = {}", id_code(p, &attr.key), id_code(p, &attr.value))
    } else {
        attr_code(p, attr)
    }
}

pub(super) fn stmt_span(stmt: &Stmt) -> Span {
    match stmt {
        Stmt::AttrDefaults { span, .. } | Stmt::Node { span, .. } | Stmt::Edge { span, .. } => {
            *span
        }
        Stmt::Assign(attr) => attr.span,
        Stmt::Subgraph(sub) => sub.span,
    }
}

impl Printer<'_> {
    /// Lays out a whole file: its graphs, and the comments around them.
    pub(super) fn file(&mut self, file: &File) {
        for graph in &file.graphs {
            self.element(graph.span.start);
            self.graph(graph);
        }
    }

    fn graph(&mut self, graph: &Graph) {
        let start = graph.strict.unwrap_or(graph.keyword);
        let after_head = graph
            .name
            .as_ref()
            .map_or(graph.keyword.end, |n| n.span.end);
        let open = self.find_token(after_head, Token::LBrace);
        let close = Span::new(
            graph.span.end.saturating_sub(1) as usize,
            graph.span.end as usize,
        );
        let open = match open {
            Some(open)
                // `incomplete` is not enough to give up: it is also set
                // by an error inside one statement, which is kept as
                // written below (and the result is verified anyway).
                if !self.errors_outside(graph.span, &graph.stmts)
                    && self.text(close) == "}"
                    && open.start < close.start =>
            {
                open
            }
            // A graph with an error outside its statements is kept whole.
            _ => {
                let code = self.verbatim(graph.span).to_string();
                return self.line(&code, graph.span.start, graph.span.end);
            }
        };
        let mut head = String::new();
        if let Some(strict) = graph.strict {
            head.push_str(self.text(strict));
            head.push(' ');
        }
        head.push_str(self.text(graph.keyword));
        if let Some(name) = &graph.name {
            head.push(' ');
            head.push_str(&id_code(self, name));
        }
        self.block(&head, start, open, close, &graph.stmts);
    }

    /// Whether an error lies in `span` but in none of `stmts`.
    fn errors_outside(&self, span: Span, stmts: &[Stmt]) -> bool {
        self.errors
            .iter()
            .filter(|e| e.start <= span.end && e.end >= span.start)
            .any(|e| {
                !stmts
                    .iter()
                    .map(stmt_span)
                    .any(|s| e.start >= s.start && e.end <= s.end)
            })
    }

    /// `head {`, the statements one level deeper, `}`; `head {}` when
    /// there is nothing inside.
    fn block(&mut self, head: &str, start: Span, open: Span, close: Span, stmts: &[Stmt]) {
        let inner = Span::new(open.end as usize, close.start as usize);
        if stmts.is_empty() && !self.has_comment(inner) {
            let code = format!("{head} {{}}");
            return self.line(code.trim_start(), start.start, close.end);
        }
        let code = format!("{head} {{");
        self.line(code.trim_start(), start.start, open.end);
        self.depth += 1;
        self.prev_end = None;
        let outer = self.block;
        self.blocks += 1;
        self.block = self.blocks;
        for stmt in stmts {
            self.stmt(stmt);
        }
        self.leading(close.start as usize);
        self.block = outer;
        self.depth -= 1;
        self.line("}", close.start, close.end);
    }

    fn stmt(&mut self, stmt: &Stmt) {
        let span = stmt_span(stmt);
        self.element(span.start);
        if self.has_error(span) {
            let code = self.verbatim(span).to_string();
            return self.line(&code, span.start, span.end);
        }
        match stmt {
            Stmt::Assign(attr) => {
                let code = spaced_attr_code(self, attr) + self.semi;
                self.cells = Some(Vec::new());
                self.line(&code, span.start, span.end);
            }
            Stmt::AttrDefaults { keyword, attrs, .. } => {
                let head = self.text(*keyword).to_string();
                self.with_attrs(&head, Vec::new(), attrs, span);
            }
            Stmt::Node { node, attrs, .. } => {
                let head = id_code(self, &node.id);
                match attrs {
                    _ if node.port.is_some() => {
                        // Ports are errors, kept above; a safe fallback.
                        let code = self.verbatim(span).to_string();
                        self.line(&code, span.start, span.end);
                    }
                    Some(attrs) => self.with_attrs(&head, Vec::new(), attrs, span),
                    None => {
                        self.cells = Some(Vec::new());
                        self.line(&(head + self.semi), span.start, span.end);
                    }
                }
            }
            Stmt::Edge {
                ends,
                directed,
                attrs,
                ..
            } => {
                let mut head = String::new();
                // `->` and the node after it may be lined up by hand.
                let mut cells = Vec::new();
                for (i, end) in ends.iter().enumerate() {
                    let EdgeEnd::Node(node) = end else {
                        // Subgraphs as edge ends are errors: kept above.
                        let code = self.verbatim(span).to_string();
                        return self.line(&code, span.start, span.end);
                    };
                    if node.port.is_some() {
                        let code = self.verbatim(span).to_string();
                        return self.line(&code, span.start, span.end);
                    }
                    if i > 0 {
                        head.push(' ');
                        match directed.get(i - 1) {
                            Some((_, op)) => {
                                cells.push((head.len(), op.start));
                                head.push_str(self.text(*op));
                            }
                            None => head.push_str("->"),
                        }
                        head.push(' ');
                        cells.push((head.len(), node.id.span.start));
                    }
                    head.push_str(&id_code(self, &node.id));
                }
                match attrs {
                    Some(attrs) => self.with_attrs(&head, cells, attrs, span),
                    None => {
                        self.cells = Some(cells);
                        self.line(&(head + self.semi), span.start, span.end);
                    }
                }
            }
            Stmt::Subgraph(sub) => self.subgraph(sub),
        }
    }

    fn subgraph(&mut self, sub: &Subgraph) {
        let mut head = String::new();
        if let Some(keyword) = sub.keyword {
            head.push_str(self.text(keyword));
        }
        if let Some(name) = &sub.name {
            head.push(' ');
            head.push_str(&id_code(self, name));
        }
        let after_head = sub
            .name
            .as_ref()
            .map_or(sub.keyword.map_or(sub.span.start, |k| k.end), |n| {
                n.span.end
            });
        let open = self.find_token(after_head, Token::LBrace);
        let close = Span::new(
            sub.span.end.saturating_sub(1) as usize,
            sub.span.end as usize,
        );
        match open {
            Some(open) if self.text(close) == "}" && open.start < close.start => {
                self.block(&head, sub.span, open, close, &sub.stmts);
            }
            _ => {
                let code = self.verbatim(sub.span).to_string();
                self.line(&code, sub.span.start, sub.span.end);
            }
        }
    }

    /// `head [a=b, c=d]` on one line when it was written on one line or
    /// fits, has no comment inside and was written with the first attribute
    /// on the `[` line; otherwise one attribute per line between `head [`
    /// and `]`.
    /// `cells` are those of `head` (see [`super::align`]).
    fn with_attrs(
        &mut self,
        head: &str,
        mut cells: Vec<(usize, u32)>,
        list: &AttrList,
        span: Span,
    ) {
        cells.push((head.len() + 1, list.span.start));
        if self.count_tokens(list.span, Token::LBracket) != 1 {
            // `[a=1][b=2]`: kept as written rather than merged.
            let code = format!("{head} {}{}", self.verbatim(list.span), self.semi);
            self.cells = Some(cells);
            return self.line(&code, span.start, span.end);
        }
        let codes: Vec<String> = list.attrs.iter().map(|a| attr_code(self, a)).collect();
        let mut one_line = format!("{head} [");
        let mut attr_cells = Vec::new();
        for (i, (attr, code)) in list.attrs.iter().zip(&codes).enumerate() {
            if i > 0 {
                one_line.push_str(", ");
                attr_cells.push((one_line.len(), attr.span.start));
            }
            one_line.push_str(code);
        }
        one_line.push(']');
        one_line.push_str(self.semi);
        let written_open = list.attrs.first().is_some_and(|first| {
            self.src
                .get(list.span.start as usize..first.span.start as usize)
                .is_some_and(|gap| gap.contains('\n'))
        });
        // A list the author wrote on one line stays there however long:
        // its values (mostly prompts) cannot be wrapped anyway.
        let written_on_one_line = !self.text(list.span).contains('\n');
        let fits = !one_line.contains('\n')
            && (written_on_one_line
                || self.indent_width() + one_line.chars().count() <= self.width);
        if fits && !written_open && !self.has_comment(list.span) {
            cells.extend(attr_cells);
            self.cells = Some(cells);
            return self.line(&one_line, span.start, span.end);
        }
        let open = list.span.start + 1;
        self.cells = Some(cells);
        // Expanded, each attribute on a line of its own: `key = value` in
        // a file written that way.
        let codes: Vec<String> = list
            .attrs
            .iter()
            .map(|a| spaced_attr_code(self, a))
            .collect();
        self.line(&format!("{head} ["), span.start, open);
        self.depth += 1;
        self.prev_end = None;
        let last = codes.len().saturating_sub(1);
        for (i, (attr, code)) in list.attrs.iter().zip(&codes).enumerate() {
            self.element(attr.span.start);
            let code = if i < last {
                format!("{code},")
            } else {
                code.clone()
            };
            self.line(&code, attr.span.start, attr.span.end);
        }
        let close = list.span.end - 1;
        self.leading(close as usize);
        self.depth -= 1;
        self.line(&format!("]{}", self.semi), close, span.end);
    }
}
