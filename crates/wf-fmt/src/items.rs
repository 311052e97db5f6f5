//! Items, workflow statements, nodes and their bodies.

use wf_diagnostics::Span;
use wf_syntax::ast::{
    BodyItem, File, Import, Item, Node, NodeBody, NodeKind, ReadKey, Statement, TypedKey, Workflow,
};

use crate::align::Columns;
use crate::printer::{Printer, pad, width};

/// The span of a workflow statement.
pub(crate) fn statement_span(statement: &Statement) -> Span {
    match statement {
        Statement::Attribute(a) => a.span,
        Statement::Needs(s) | Statement::Gives(s) => s.span,
        Statement::Node(n) => n.span,
        Statement::Edge(e) => e.span,
        Statement::Error(span) => *span,
    }
}

/// The span of a node body entry.
fn body_item_span(item: &BodyItem) -> Span {
    match item {
        BodyItem::Attribute(a) => a.span,
        BodyItem::Reads(_, span) | BodyItem::Writes(_, span) | BodyItem::Error(span) => *span,
        BodyItem::ReturnMap(entry) => entry.span,
    }
}

impl Printer<'_> {
    /// The whole file: items separated by at most one blank line, and a
    /// workflow always by one.
    pub(crate) fn file(&mut self, file: &File) {
        let mut first = true;
        let mut after_workflow = false;
        for (i, item) in file.items.iter().enumerate() {
            let is_workflow = matches!(item, Item::Workflow(_));
            let start = self.item_start(item);
            // An error after an item and before the next one (a missing `}`
            // at the end of the file, say) belongs to it.
            let reach = file.items.get(i + 1).map_or(self.src.len() as u32, |next| {
                self.item_start(next).saturating_sub(1)
            });
            self.leading(start, &mut first, is_workflow || after_workflow);
            match item {
                Item::Import(import) => self.import(import),
                Item::Workflow(workflow) => self.workflow(workflow, start, reach),
                Item::Error(span) => {
                    self.push_verbatim(Span::new(start as usize, span.end as usize))
                }
            }
            first = false;
            after_workflow = is_workflow;
        }
        self.dangling(self.src.len() as u32, first);
    }

    /// Where an item's own text starts: after its doc comments, which are
    /// emitted as comments.
    fn item_start(&self, item: &Item) -> u32 {
        match item {
            Item::Import(import) => import.span.start,
            Item::Workflow(workflow) => match workflow.docs.span {
                Some(docs) => self.skip_trivia(docs.end).min(workflow.span.end),
                None => workflow.span.start,
            },
            Item::Error(span) => span.start,
        }
    }

    fn import(&mut self, import: &Import) {
        if self.has_error(import.span) || self.has_doc_comment_inside(import.span) {
            return self.push_verbatim(import.span);
        }
        let mut code = format!("import {}", self.text(import.path.span));
        if let Some(alias) = &import.alias {
            code.push_str(" as ");
            code.push_str(self.text(alias.span));
        }
        self.push(code, import.span.end);
    }

    fn workflow(&mut self, workflow: &Workflow, start: u32, reach: u32) {
        let span = Span::new(start as usize, workflow.span.end as usize);
        let reach = Span::new(start as usize, reach.max(workflow.span.end) as usize);
        let statements: Vec<Span> = workflow.body.iter().map(statement_span).collect();
        let open = self.next_is(workflow.name.span.end, b'{');
        let close = workflow.span.end.saturating_sub(1);
        let closed = self.src.as_bytes().get(close as usize) == Some(&b'}');
        let (Some(open), true) = (open, closed) else {
            return self.push_verbatim(span);
        };
        if (self.whole_items && self.has_error(reach))
            || self.has_error_outside(reach, &statements)
            || self.has_doc_comment_inside(Span::new(start as usize, open as usize))
            || workflow.name.is_missing()
        {
            return self.push_verbatim(span);
        }
        let head = format!("workflow {} {{", self.text(workflow.name.span));
        if workflow.body.is_empty() && !self.has_comments(open, close) {
            return self.push(format!("{head}}}"), workflow.span.end);
        }
        self.push(head, open + 1);
        // Alignment is decided at the body's indentation.
        self.indent += crate::printer::INDENT;
        let align = self.alignments(&workflow.body);
        self.indent -= crate::printer::INDENT;
        self.block(&workflow.body, close, statement_span, |p, i, statement| {
            p.statement(statement, align[i]);
        });
        self.push("}", workflow.span.end);
    }

    fn statement(&mut self, statement: &Statement, align: Option<Columns>) {
        let span = statement_span(statement);
        if self.has_error(span) || self.has_doc_comment_inside(span) {
            return self.push_verbatim(span);
        }
        match statement {
            Statement::Attribute(a) => self.attribute(a),
            Statement::Needs(sig) => {
                self.key_list("needs", &self.typed_keys(&sig.keys), sig.span.end)
            }
            Statement::Gives(sig) => {
                self.key_list("gives", &self.typed_keys(&sig.keys), sig.span.end)
            }
            Statement::Node(node) => self.node(node, align),
            Statement::Edge(edge) => self.edge(edge, align),
            Statement::Error(span) => self.push_verbatim(*span),
        }
    }

    fn typed_keys(&self, keys: &[TypedKey]) -> Vec<(String, u32)> {
        keys.iter()
            .map(|k| (self.typed_key(k), k.span.end))
            .collect()
    }

    fn typed_key(&self, key: &TypedKey) -> String {
        match &key.ty {
            Some(ty) => format!("{}: {}", self.key(&key.key), ty.text),
            None => self.key(&key.key).to_string(),
        }
    }

    fn read_keys(&self, keys: &[ReadKey]) -> Vec<(String, u32)> {
        keys.iter()
            .map(|k| {
                let q = if k.optional { "?" } else { "" };
                (format!("{}{q}", self.key(&k.key)), k.span.end)
            })
            .collect()
    }

    /// `keyword k1, k2, …` on one line, or filled over several with the
    /// continuation lines one level deeper.
    fn key_list(&mut self, keyword: &str, keys: &[(String, u32)], end: u32) {
        let flat = format!(
            "{keyword} {}",
            keys.iter()
                .map(|(k, _)| k.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        if self.fits(&flat) || keys.len() < 2 {
            return self.push(flat, end);
        }
        let base = self.indent;
        let mut line = format!("{keyword} ");
        let mut fresh = true;
        let mut line_end = end;
        for (i, (key, key_end)) in keys.iter().enumerate() {
            let comma = if i + 1 < keys.len() { "," } else { "" };
            let candidate = if fresh {
                format!("{line}{key}{comma}")
            } else {
                format!("{line} {key}{comma}")
            };
            if !fresh && !self.fits(&candidate) {
                self.push(std::mem::take(&mut line), line_end);
                self.indent = base + crate::printer::INDENT;
                line = format!("{key}{comma}");
            } else {
                line = candidate;
            }
            fresh = false;
            line_end = *key_end;
        }
        self.push(line, end);
        self.indent = base;
    }

    fn node_head(&self, node: &Node) -> String {
        let mut head = format!("{} {}", node.kind.as_str(), self.text(node.name.span));
        if let Some(label) = &node.label {
            head.push(' ');
            head.push_str(self.text(label.span));
        }
        if node.kind == NodeKind::Call
            && let Some(callee) = &node.callee
        {
            head.push_str(" = ");
            head.push_str(self.text(callee.span));
        }
        head
    }

    /// A node's head and one-line body (`{ a = 1  reads k }`), when it has
    /// no comments inside and its body was written on one line.
    pub(crate) fn node_flat(&self, node: &Node) -> Option<(String, Option<String>)> {
        if self.has_comments(node.span.start, node.span.end) {
            return None;
        }
        let head = self.node_head(node);
        match &node.body {
            None => Some((head, None)),
            // An empty body is part of the head: aligning `{}` says nothing.
            Some(body) if body.items.is_empty() => Some((format!("{head} {{}}"), None)),
            Some(body) => Some((head, Some(self.flat_block(body)?))),
        }
    }

    fn flat_block(&self, body: &NodeBody) -> Option<String> {
        let first = body.items.first()?;
        if self.breaks_between(body.span.start, body_item_span(first).start) {
            return None;
        }
        let items: Option<Vec<String>> =
            body.items.iter().map(|i| self.flat_body_item(i)).collect();
        Some(format!("{{ {} }}", items?.join("  ")))
    }

    fn flat_body_item(&self, item: &BodyItem) -> Option<String> {
        Some(match item {
            BodyItem::Attribute(a) => {
                format!("{} = {}", self.key(&a.key), self.flat_value(&a.value)?)
            }
            BodyItem::Reads(keys, _) => format!("reads {}", join(&self.read_keys(keys))),
            BodyItem::Writes(keys, _) => format!("writes {}", join(&self.typed_keys(keys))),
            BodyItem::ReturnMap(entry) => {
                format!("{} <- {}", self.key(&entry.parent), self.key(&entry.child))
            }
            BodyItem::Error(_) => return None,
        })
    }

    fn node(&mut self, node: &Node, align: Option<Columns>) {
        if let Some((head, body)) = self.node_flat(node) {
            let column = align.map_or(width(&head), |c| c.first);
            let line = node_line(&head, body.as_deref(), column);
            if self.fits(&line) {
                return self.push(line, node.span.end);
            }
        }
        let head = self.node_head(node);
        let Some(body) = &node.body else {
            return self.push(head, node.span.end);
        };
        let close = body.span.end.saturating_sub(1);
        if body.items.is_empty() && !self.has_comments(body.span.start, close) {
            return self.push(format!("{head} {{}}"), node.span.end);
        }
        self.push(format!("{head} {{"), body.span.start + 1);
        self.block(&body.items, close, body_item_span, |p, _, item| {
            p.body_item(item)
        });
        self.push("}", node.span.end);
    }

    fn body_item(&mut self, item: &BodyItem) {
        let span = body_item_span(item);
        if self.has_error(span) {
            return self.push_verbatim(span);
        }
        match item {
            BodyItem::Attribute(a) => self.attribute(a),
            BodyItem::Reads(keys, span) => self.key_list("reads", &self.read_keys(keys), span.end),
            BodyItem::Writes(keys, span) => {
                self.key_list("writes", &self.typed_keys(keys), span.end)
            }
            BodyItem::ReturnMap(entry) => {
                let code = format!("{} <- {}", self.key(&entry.parent), self.key(&entry.child));
                self.push(code, entry.span.end);
            }
            BodyItem::Error(span) => self.push_verbatim(*span),
        }
    }
}

/// A node line with its one-line body's `{` in `column` (plus one space).
pub(crate) fn node_line(head: &str, body: Option<&str>, column: usize) -> String {
    match body {
        Some(body) => format!("{} {body}", pad(head, column)),
        None => head.to_string(),
    }
}

fn join(keys: &[(String, u32)]) -> String {
    keys.iter()
        .map(|(k, _)| k.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}
