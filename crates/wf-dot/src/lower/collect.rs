//! The first lowering pass: walks the statements with a scope stack and
//! collects nodes, edges and graph attributes, with defaults applied,
//! chains expanded and subgraphs flattened.
//!
//! Defaults follow Graphviz: a `node [ … ]` or `edge [ … ]` block applies to
//! what is created after it in its scope, and a subgraph starts with a copy
//! of its parent's defaults. One decision where Graphviz and Attractor
//! engines differ: a node first named in an edge and declared later gets the
//! defaults in scope at its declaration, as the pipeline's author reads it.

use rustc_hash::FxHashMap as HashMap;

use wf_diagnostics::{Diagnostic, FileId, Span, codes};

use crate::ast::{Attr, AttrTarget, EdgeEnd, Id, Stmt, Subgraph};

/// An attribute with its key and value as written.
#[derive(Debug, Clone)]
pub struct RawAttr {
    /// The key text.
    pub key: String,
    /// Where the key is written.
    pub key_span: Span,
    /// The value.
    pub value: Id,
}

/// A node being collected.
#[derive(Debug, Clone)]
pub struct RawNode {
    pub name: String,
    pub name_span: Span,
    pub span: Span,
    pub declared: bool,
    /// Declaration order (for declared nodes) or mention order.
    pub order: usize,
    pub attrs: Vec<RawAttr>,
    /// Classes derived from enclosing subgraph labels, with the label's span.
    pub classes: Vec<(String, Span)>,
}

/// An edge between two collected nodes.
#[derive(Debug, Clone)]
pub struct RawEdge {
    pub from: usize,
    pub to: usize,
    pub from_span: Span,
    pub to_span: Span,
    pub attrs: Vec<RawAttr>,
}

#[derive(Debug, Clone, Default)]
struct Scope {
    node_defaults: Vec<RawAttr>,
    edge_defaults: Vec<RawAttr>,
    classes: Vec<(String, Span)>,
}

/// Everything collected from one graph.
#[derive(Debug, Default)]
pub struct Collected {
    pub nodes: Vec<RawNode>,
    pub edges: Vec<RawEdge>,
    pub graph_attrs: Vec<RawAttr>,
}

/// Sets `attr` in `attrs`: a key set again replaces the earlier value in
/// place (DOT: the last setting wins).
pub fn set(attrs: &mut Vec<RawAttr>, attr: RawAttr) {
    match attrs.iter_mut().find(|a| a.key == attr.key) {
        Some(existing) => *existing = attr,
        None => attrs.push(attr),
    }
}

fn raw(attr: &Attr) -> RawAttr {
    RawAttr {
        key: attr.key.text.clone(),
        key_span: attr.key.span,
        value: attr.value.clone(),
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

pub struct Collector<'o> {
    pub out: Collected,
    index: HashMap<String, usize>,
    next_order: usize,
    /// Members of the subgraphs being walked, innermost last.
    members: Vec<Vec<usize>>,
    file: FileId,
    diagnostics: &'o mut Vec<Diagnostic>,
}

impl<'o> Collector<'o> {
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
    pub fn graph(&mut self, stmts: &[Stmt]) {
        let mut scope = Scope::default();
        self.stmts(stmts, &mut scope, true);
    }

    fn stmts(&mut self, stmts: &[Stmt], scope: &mut Scope, top: bool) {
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

    fn edge(&mut self, ends: &[EdgeEnd], attrs: Option<&crate::ast::AttrList>, scope: &Scope) {
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
        let mut edge_attrs = scope.edge_defaults.clone();
        for a in attrs.iter().flat_map(|l| &l.attrs) {
            set(&mut edge_attrs, raw(a));
        }
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
    fn subgraph(&mut self, sub: &Subgraph, scope: &Scope) -> Vec<usize> {
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
                inner.classes.push((class, label.span));
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

    fn add_classes(node: &mut RawNode, classes: &[(String, Span)]) {
        for c in classes {
            if !node.classes.iter().any(|(name, _)| *name == c.0) {
                node.classes.push(c.clone());
            }
        }
    }

    /// A node statement: creates the node or re-bases an implicit one.
    fn declare(&mut self, id: &Id, span: Span, scope: &Scope) -> usize {
        let idx = match self.index.get(&id.text) {
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
    fn mention(&mut self, id: &Id, scope: &Scope) -> usize {
        let idx = match self.index.get(&id.text) {
            Some(&idx) => idx,
            None => self.create(id, id.span, scope, false),
        };
        self.note_member(idx);
        idx
    }

    fn create(&mut self, id: &Id, span: Span, scope: &Scope, declared: bool) -> usize {
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
            name: id.text.clone(),
            name_span: id.span,
            span,
            declared,
            order: self.next_order,
            attrs: scope.node_defaults.clone(),
            classes: scope.classes.clone(),
        });
        self.next_order += 1;
        self.index.insert(id.text.clone(), idx);
        idx
    }
}
