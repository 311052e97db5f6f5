//! The first lowering pass: walks the statements with a scope stack and
//! collects nodes, edges and graph attributes, with defaults applied,
//! chains expanded and subgraphs flattened.
//!
//! Defaults follow Graphviz: a `node [ … ]` or `edge [ … ]` block applies to
//! what is created after it in its scope, and a subgraph starts with a copy
//! of its parent's defaults. One decision where Graphviz and Attractor
//! engines differ: a node first named in an edge and declared later gets the
//! defaults in scope at its declaration, as the pipeline's author reads it.

use std::rc::Rc;

use rustc_hash::FxHashMap as HashMap;

use wf_diagnostics::{Diagnostic, FileId, Span, codes};

use crate::ast::{Attr, AttrTarget, EdgeEnd, Id, Stmt, Subgraph};

/// An attribute with its key and value as written, borrowed from the
/// tree: defaults are copied to every node and edge they apply to, so a
/// copy must not duplicate a long prompt (the model gets one owned copy
/// at the end).
#[derive(Debug, Clone, Copy)]
pub struct RawAttr<'a> {
    /// The key text.
    pub key: &'a str,
    /// Where the key is written.
    pub key_span: Span,
    /// The value.
    pub value: &'a Id,
}

/// A class derived from a subgraph label, shared by all its members.
pub type Class = (Rc<str>, Span);

/// A node being collected.
#[derive(Debug, Clone)]
pub struct RawNode<'a> {
    pub name: &'a str,
    pub name_span: Span,
    pub span: Span,
    pub declared: bool,
    /// Declaration order (for declared nodes) or mention order.
    pub order: usize,
    pub attrs: Vec<RawAttr<'a>>,
    /// Classes derived from enclosing subgraph labels, with the label's span.
    pub classes: Vec<Class>,
}

/// An edge between two collected nodes.
#[derive(Debug, Clone)]
pub struct RawEdge<'a> {
    pub from: usize,
    pub to: usize,
    pub from_span: Span,
    pub to_span: Span,
    pub attrs: Vec<RawAttr<'a>>,
}

#[derive(Debug, Clone, Default)]
struct Scope<'a> {
    node_defaults: Vec<RawAttr<'a>>,
    edge_defaults: Vec<RawAttr<'a>>,
    classes: Vec<Class>,
}

/// Everything collected from one graph.
#[derive(Debug, Default)]
pub struct Collected<'a> {
    pub nodes: Vec<RawNode<'a>>,
    pub edges: Vec<RawEdge<'a>>,
    pub graph_attrs: Vec<RawAttr<'a>>,
}

/// Sets `attr` in `attrs`: a key set again replaces the earlier value in
/// place (DOT: the last setting wins).
pub fn set<'a>(attrs: &mut Vec<RawAttr<'a>>, attr: RawAttr<'a>) {
    match attrs.iter_mut().find(|a| a.key == attr.key) {
        Some(existing) => *existing = attr,
        None => attrs.push(attr),
    }
}

fn raw(attr: &Attr) -> RawAttr<'_> {
    RawAttr {
        key: &attr.key.text,
        key_span: attr.key.span,
        value: &attr.value,
    }
}

/// The class a subgraph label derives (spec 2.10): lowercase, spaces to
/// hyphens, other characters than letters, digits and hyphens dropped.
pub fn derive_class(label: &str) -> String {
    label
        .trim()
        .to_lowercase()
        .chars()
        .map(|c| if c.is_whitespace() { '-' } else { c })
        .filter(|c| c.is_alphanumeric() || *c == '-')
        .collect()
}

pub struct Collector<'a, 'o> {
    pub out: Collected<'a>,
    index: HashMap<&'a str, usize>,
    next_order: usize,
    /// Members of the subgraphs being walked, innermost last.
    members: Vec<Vec<usize>>,
    file: FileId,
    diagnostics: &'o mut Vec<Diagnostic>,
}

impl<'a, 'o> Collector<'a, 'o> {
    pub fn new(file: FileId, diagnostics: &'o mut Vec<Diagnostic>) -> Self {
        Collector {
            out: Collected::default(),
            index: HashMap::default(),
            next_order: 0,
            members: Vec::new(),
            file,
            diagnostics,
        }
    }

    /// Walks the graph's statements.
    pub fn graph(&mut self, stmts: &'a [Stmt]) {
        // About one node per top-level statement: room for them up front
        // rather than growing (and rehashing) as they come.
        self.index.reserve(stmts.len());
        self.out.nodes.reserve(stmts.len());
        let mut scope = Scope::default();
        self.stmts(stmts, &mut scope, true);
    }

    fn stmts(&mut self, stmts: &'a [Stmt], scope: &mut Scope<'a>, top: bool) {
        for stmt in stmts {
            match stmt {
                Stmt::AttrDefaults { target, attrs, .. } => {
                    let list = match target {
                        AttrTarget::Node => &mut scope.node_defaults,
                        AttrTarget::Edge => &mut scope.edge_defaults,
                        AttrTarget::Graph if top => &mut self.out.graph_attrs,
                        // A subgraph's own attributes: only its label
                        // matters, and `subgraph` read it already.
                        AttrTarget::Graph => continue,
                    };
                    for a in &attrs.attrs {
                        set(list, raw(a));
                    }
                }
                Stmt::Assign(attr) if top => set(&mut self.out.graph_attrs, raw(attr)),
                Stmt::Assign(_) => {}
                Stmt::Node { node, attrs, span } => {
                    let idx = self.declare(&node.id, *span, scope);
                    let count = attrs.as_ref().map_or(0, |l| l.attrs.len());
                    self.out.nodes[idx].attrs.reserve(count);
                    for a in attrs.iter().flat_map(|l| &l.attrs) {
                        set(&mut self.out.nodes[idx].attrs, raw(a));
                    }
                }
                Stmt::Edge { ends, attrs, .. } => self.edge(ends, attrs.as_ref(), scope),
                Stmt::Subgraph(sub) => {
                    self.subgraph(sub, scope);
                }
            }
        }
    }

    fn edge(
        &mut self,
        ends: &'a [EdgeEnd],
        attrs: Option<&'a crate::ast::AttrList>,
        scope: &Scope<'a>,
    ) {
        let mut edge_attrs = scope.edge_defaults.clone();
        for a in attrs.iter().flat_map(|l| &l.attrs) {
            set(&mut edge_attrs, raw(a));
        }
        if ends.iter().all(|end| matches!(end, EdgeEnd::Node(_))) {
            // The usual chain of nodes: one edge per consecutive pair,
            // with no per-end vectors. The last edge takes the attributes.
            let mut from: Option<(usize, Span)> = None;
            for (k, end) in ends.iter().enumerate() {
                let EdgeEnd::Node(n) = end else { continue };
                let to = (self.mention(&n.id, scope), n.id.span);
                if let Some(from) = from {
                    let attrs = if k + 1 == ends.len() {
                        std::mem::take(&mut edge_attrs)
                    } else {
                        edge_attrs.clone()
                    };
                    self.out.edges.push(RawEdge {
                        from: from.0,
                        to: to.0,
                        from_span: from.1,
                        to_span: to.1,
                        attrs,
                    });
                }
                from = Some(to);
            }
            return;
        }
        let groups: Vec<Vec<(usize, Span)>> = ends
            .iter()
            .map(|end| match end {
                EdgeEnd::Node(n) => vec![(self.mention(&n.id, scope), n.id.span)],
                // Every member, each edge pointing at the subgraph.
                EdgeEnd::Subgraph(sub) => self
                    .subgraph(sub, scope)
                    .into_iter()
                    .map(|i| (i, sub.span))
                    .collect(),
            })
            .collect();
        for pair in groups.windows(2) {
            for &(from, from_span) in &pair[0] {
                for &(to, to_span) in &pair[1] {
                    self.out.edges.push(RawEdge {
                        from,
                        to,
                        from_span,
                        to_span,
                        attrs: edge_attrs.clone(),
                    });
                }
            }
        }
    }

    /// Walks a subgraph in a copy of `scope`; returns its member nodes.
    fn subgraph(&mut self, sub: &'a Subgraph, scope: &Scope<'a>) -> Vec<usize> {
        let mut inner = scope.clone();
        let label = sub.stmts.iter().rev().find_map(|s| match s {
            Stmt::Assign(a) if a.key.text == "label" => Some(&a.value),
            Stmt::AttrDefaults {
                target: AttrTarget::Graph,
                attrs,
                ..
            } => attrs
                .attrs
                .iter()
                .rev()
                .find(|a| a.key.text == "label")
                .map(|a| &a.value),
            _ => None,
        });
        if let Some(label) = label {
            let class = derive_class(&label.text);
            if !class.is_empty() {
                inner.classes.push((class.into(), label.span));
            }
        }
        self.members.push(Vec::new());
        self.stmts(&sub.stmts, &mut inner, false);
        let mut members = self.members.pop().unwrap_or_default();
        members.dedup();
        if let Some(parent) = self.members.last_mut() {
            parent.extend(members.iter().copied());
        }
        members
    }

    fn note_member(&mut self, idx: usize) {
        if let Some(frame) = self.members.last_mut()
            && frame.last() != Some(&idx)
        {
            frame.push(idx);
        }
    }

    fn add_classes(node: &mut RawNode<'a>, classes: &[Class]) {
        for c in classes {
            if !node.classes.iter().any(|(name, _)| *name == c.0) {
                node.classes.push(c.clone());
            }
        }
    }

    /// A node statement: creates the node or re-bases an implicit one.
    fn declare(&mut self, id: &'a Id, span: Span, scope: &Scope<'a>) -> usize {
        let idx = match self.index.get(id.text.as_str()) {
            Some(&idx) => idx,
            None => self.create(id, span, scope, true),
        };
        let order = self.next_order;
        let node = &mut self.out.nodes[idx];
        if !node.declared {
            node.declared = true;
            node.attrs = scope.node_defaults.clone();
            node.name_span = id.span;
            node.span = span;
            node.order = order;
            self.next_order += 1;
        }
        Self::add_classes(node, &scope.classes);
        self.note_member(idx);
        idx
    }

    /// A node named in an edge: the existing node, or a new implicit one.
    fn mention(&mut self, id: &'a Id, scope: &Scope<'a>) -> usize {
        let idx = match self.index.get(id.text.as_str()) {
            Some(&idx) => idx,
            None => self.create(id, id.span, scope, false),
        };
        self.note_member(idx);
        idx
    }

    fn create(&mut self, id: &'a Id, span: Span, scope: &Scope<'a>, declared: bool) -> usize {
        if !id.is_identifier() {
            self.diagnostics.push(
                Diagnostic::new(
                    &codes::DOT_NODE_ID,
                    format!("node id `{}` is not a bare identifier", id.text),
                    id.span.in_file(self.file),
                )
                .with_primary_label("not `[A-Za-z_][A-Za-z0-9_]*`")
                .with_help("use an identifier as the id and put the readable name in `label`"),
            );
        }
        let idx = self.out.nodes.len();
        self.out.nodes.push(RawNode {
            name: &id.text,
            name_span: id.span,
            span,
            declared,
            order: self.next_order,
            attrs: scope.node_defaults.clone(),
            classes: scope.classes.clone(),
        });
        self.next_order += 1;
        self.index.insert(&id.text, idx);
        idx
    }
}
