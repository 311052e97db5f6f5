//! A compact S-expression rendering of the AST, for snapshot tests and
//! debugging (`(step plan "Plan" (reads ticket draft?))`).
//!
//! Names and keys print bare, or in quotes when they were quoted (a missing
//! workflow name prints as `<missing>`); strings print with Rust escapes;
//! guards print in prefix form with explicit parentheses, so precedence is
//! visible. With `spans` set, each item,
//! statement and entry is followed by `@start..end`.

use std::fmt::Write;

use crate::ast::{
    Attribute, AttributeBlock, BodyItem, Docs, EdgeChain, Expr, File, Item, Key, Name, Node,
    Statement, StrLit, TypedKey, Value,
};
use wf_diagnostics::Span;

/// Renders a file as an indented S-expression.
pub fn sexpr(file: &File, spans: bool) -> String {
    let mut d = Dump {
        out: String::new(),
        spans,
    };
    d.out.push_str("(file");
    for item in &file.items {
        d.line(1);
        d.item(item);
    }
    d.out.push_str(")\n");
    d.out
}

struct Dump {
    out: String,
    spans: bool,
}

impl Dump {
    fn line(&mut self, indent: usize) {
        self.out.push('\n');
        for _ in 0..indent {
            self.out.push_str("  ");
        }
    }

    fn span(&mut self, span: Span) {
        if self.spans {
            let _ = write!(self.out, "@{}..{}", span.start, span.end);
        }
    }

    fn docs(&mut self, docs: &Docs) {
        if let Some(text) = docs.text() {
            let _ = write!(self.out, " (docs {text:?})");
        }
    }

    fn item(&mut self, item: &Item) {
        match item {
            Item::Import(import) => {
                self.out.push_str("(import ");
                self.str_lit(&import.path);
                if let Some(alias) = &import.alias {
                    self.out.push_str(" as ");
                    self.name(alias);
                }
                self.docs(&import.docs);
                self.out.push(')');
                self.span(import.span);
            }
            Item::Workflow(workflow) => {
                self.out.push_str("(workflow ");
                self.name(&workflow.name);
                self.docs(&workflow.docs);
                for statement in &workflow.body {
                    self.line(2);
                    self.statement(statement);
                }
                self.out.push(')');
                self.span(workflow.span);
            }
            Item::Error(span) => {
                self.out.push_str("(error)");
                self.span(*span);
            }
        }
    }

    fn statement(&mut self, statement: &Statement) {
        match statement {
            Statement::Attribute(attr) => self.attribute(attr),
            Statement::Needs(sig) | Statement::Gives(sig) => {
                let word = if matches!(statement, Statement::Needs(_)) {
                    "needs"
                } else {
                    "gives"
                };
                let _ = write!(self.out, "({word}");
                for key in &sig.keys {
                    self.out.push(' ');
                    self.typed_key(key);
                }
                self.out.push(')');
                self.span(sig.span);
            }
            Statement::Node(node) => self.node(node),
            Statement::Edge(edge) => self.edge(edge),
            Statement::Error(span) => {
                self.out.push_str("(error)");
                self.span(*span);
            }
        }
    }

    fn node(&mut self, node: &Node) {
        let _ = write!(self.out, "({} ", node.kind.as_str());
        self.name(&node.name);
        if let Some(label) = &node.label {
            self.out.push(' ');
            self.str_lit(label);
        }
        if let Some(callee) = &node.callee {
            self.out.push_str(" = ");
            self.name(callee);
        }
        self.docs(&node.docs);
        if let Some(body) = &node.body {
            if body.items.is_empty() {
                self.out.push_str(" {}");
            }
            for item in &body.items {
                self.line(3);
                match item {
                    BodyItem::Attribute(attr) => self.attribute(attr),
                    BodyItem::Reads(keys, span) => {
                        self.out.push_str("(reads");
                        for read in keys {
                            self.out.push(' ');
                            self.key(&read.key);
                            if read.optional {
                                self.out.push('?');
                            }
                        }
                        self.out.push(')');
                        self.span(*span);
                    }
                    BodyItem::Writes(keys, span) => {
                        self.out.push_str("(writes");
                        for key in keys {
                            self.out.push(' ');
                            self.typed_key(key);
                        }
                        self.out.push(')');
                        self.span(*span);
                    }
                    BodyItem::ReturnMap(entry) => {
                        self.out.push_str("(return ");
                        self.key(&entry.parent);
                        self.out.push_str(" <- ");
                        self.key(&entry.child);
                        self.out.push(')');
                        self.span(entry.span);
                    }
                    BodyItem::Error(span) => {
                        self.out.push_str("(error)");
                        self.span(*span);
                    }
                }
            }
        }
        self.out.push(')');
        self.span(node.span);
    }

    fn edge(&mut self, edge: &EdgeChain) {
        self.out.push_str("(edge ");
        for (i, name) in edge.nodes.iter().enumerate() {
            if i > 0 {
                self.out.push_str(" -> ");
            }
            self.name(name);
        }
        if let Some(label) = &edge.label {
            self.out.push(' ');
            self.str_lit(label);
        }
        self.docs(&edge.docs);
        if let Some(guard) = &edge.guard {
            self.out.push_str(" (when ");
            self.expr(guard);
            self.out.push(')');
        }
        if let Some(AttributeBlock { attributes, .. }) = &edge.attributes {
            self.out.push_str(" {");
            for (i, attr) in attributes.iter().enumerate() {
                if i > 0 {
                    self.out.push(' ');
                }
                self.attribute(attr);
            }
            self.out.push('}');
        }
        self.out.push(')');
        self.span(edge.span);
    }

    fn attribute(&mut self, attr: &Attribute) {
        self.out.push('(');
        self.key(&attr.key);
        self.out.push_str(" = ");
        self.value(&attr.value);
        self.out.push(')');
        self.span(attr.span);
    }

    fn typed_key(&mut self, key: &TypedKey) {
        self.key(&key.key);
        if let Some(ty) = &key.ty {
            let _ = write!(self.out, ":{}", ty.text);
        }
    }

    fn name(&mut self, name: &Name) {
        if name.is_missing() {
            self.out.push_str("<missing>");
        } else if name.quoted {
            let _ = write!(self.out, "{:?}", name.text);
        } else {
            self.out.push_str(&name.text);
        }
    }

    fn key(&mut self, key: &Key) {
        if key.quoted {
            let _ = write!(self.out, "{:?}", key.text);
        } else {
            self.out.push_str(&key.text);
        }
    }

    fn str_lit(&mut self, lit: &StrLit) {
        if lit.multiline {
            self.out.push_str("text");
        }
        let _ = write!(self.out, "{:?}", lit.value);
        for interpolation in &lit.interpolations {
            let _ = write!(self.out, " ${}", interpolation.key.text);
        }
    }

    fn value(&mut self, value: &Value) {
        match value {
            Value::String(lit) => self.str_lit(lit),
            Value::Int(n, _) => {
                let _ = write!(self.out, "{n}");
            }
            Value::Float(x, _) => {
                let _ = write!(self.out, "{x:?}");
            }
            Value::Duration(ms, _) => {
                let _ = write!(self.out, "{ms}ms");
            }
            Value::Bool(b, _) => {
                let _ = write!(self.out, "{b}");
            }
            Value::Null(_) => self.out.push_str("null"),
            Value::Path(key) => {
                self.out.push_str("path:");
                self.key(key);
            }
            Value::List(items, _) => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.value(item);
                }
                self.out.push(']');
            }
            Value::Map(entries, _) => {
                self.out.push('{');
                for (i, entry) in entries.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.key(&entry.key);
                    self.out.push_str(": ");
                    self.value(&entry.value);
                }
                self.out.push('}');
            }
            Value::Error(_) => self.out.push_str("<error>"),
        }
    }

    fn expr(&mut self, expr: &Expr) {
        match expr {
            Expr::Literal(value) => self.value(value),
            Expr::Key(key) if key.quoted => {
                let _ = write!(self.out, "`{}`", key.text);
            }
            Expr::Key(key) => self.key(key),
            Expr::List(items, _) => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.expr(item);
                }
                self.out.push(']');
            }
            Expr::Exists(key, _) if key.quoted => {
                let _ = write!(self.out, "(exists `{}`)", key.text);
            }
            Expr::Exists(key, _) => {
                let _ = write!(self.out, "(exists {})", key.text);
            }
            Expr::Not(inner, _) => {
                self.out.push_str("(! ");
                self.expr(inner);
                self.out.push(')');
            }
            Expr::Binary(lhs, op, _, rhs) => {
                let _ = write!(self.out, "({} ", op.as_str());
                self.expr(lhs);
                self.out.push(' ');
                self.expr(rhs);
                self.out.push(')');
            }
            Expr::Paren(inner, _) => {
                self.out.push_str("(paren ");
                self.expr(inner);
                self.out.push(')');
            }
            Expr::Error(_) => self.out.push_str("<error>"),
        }
    }
}
