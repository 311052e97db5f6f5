//! Helpers shared by the unit tests: checking source text, and building
//! models by hand (for graph tests that must not depend on the parser).

use std::collections::HashMap;

use wf_diagnostics::{Diagnostic, FileId, FileSpan, Sources, Span};
use wf_model::{Edge, Node, NodeId, NodeKind, SourceFormat, Workflow};

/// Checks one source text as file 0.
pub fn check(src: &str) -> Vec<Diagnostic> {
    check_all(&[src])
}

/// Checks several source texts together as one program.
pub fn check_all(srcs: &[&str]) -> Vec<Diagnostic> {
    let mut sources = Sources::new();
    for (i, src) in srcs.iter().enumerate() {
        sources.add(format!("file{i}.wf"), *src);
    }
    crate::check_sources(&sources)
}

/// The codes of `diagnostics`, in order.
pub fn codes(diagnostics: &[Diagnostic]) -> Vec<&'static str> {
    diagnostics.iter().map(|d| d.code.code).collect()
}

/// The diagnostics with this code.
pub fn with_code<'a>(diagnostics: &'a [Diagnostic], code: &str) -> Vec<&'a Diagnostic> {
    diagnostics.iter().filter(|d| d.code.code == code).collect()
}

/// The text a span covers.
pub fn text_at(src: &str, span: FileSpan) -> &str {
    &src[span.span.range()]
}

/// Parses and lowers one source text as file 0.
pub fn lower(src: &str) -> crate::lower::Lowered {
    let parsed = wf_syntax::parse(src, FileId(0));
    assert!(
        parsed.diagnostics.is_empty(),
        "syntax errors: {:?}",
        parsed.diagnostics
    );
    crate::lower::lower_files(&[(FileId(0), &parsed.file)])
}

/// Builds a [`Workflow`] by hand. Every name, edge and label gets its own
/// fresh span (in file 0), so tests can tell locations apart.
pub struct ModelBuilder {
    workflow: Workflow,
    index: HashMap<String, NodeId>,
    cursor: u32,
}

impl ModelBuilder {
    /// An empty `.wf` workflow.
    pub fn new(name: &str) -> Self {
        let mut builder = ModelBuilder {
            workflow: Workflow {
                name: name.to_string(),
                name_span: FileSpan {
                    file: FileId(0),
                    span: Span::default(),
                },
                span: FileSpan {
                    file: FileId(0),
                    span: Span::default(),
                },
                file: FileId(0),
                format: SourceFormat::Wf,
                docs: None,
                attributes: Vec::new(),
                entry: None,
                needs: Vec::new(),
                gives: Vec::new(),
                interpolated_reads: Vec::new(),
                nodes: Vec::new(),
                edges: Vec::new(),
                incomplete: false,
            },
            index: HashMap::new(),
            cursor: 0,
        };
        builder.workflow.name_span = builder.span(name.len());
        builder
    }

    fn span(&mut self, len: usize) -> FileSpan {
        let start = self.cursor;
        self.cursor += len as u32 + 1;
        Span::new(start as usize, start as usize + len).in_file(FileId(0))
    }

    /// Declares a node.
    pub fn node(mut self, name: &str, kind: NodeKind) -> Self {
        self.add_node(name, kind, false);
        self
    }

    fn add_node(&mut self, name: &str, kind: NodeKind, implicit: bool) -> NodeId {
        let span = self.span(name.len());
        let id = NodeId(self.workflow.nodes.len() as u32);
        self.index.insert(name.to_string(), id);
        self.workflow.nodes.push(Node {
            name: name.to_string(),
            kind,
            name_span: span,
            span,
            implicit,
            label: None,
            docs: None,
            attributes: Vec::new(),
            reads: Vec::new(),
            writes: Vec::new(),
            interpolated_reads: Vec::new(),
            call: None,
        });
        id
    }

    fn resolve(&mut self, name: &str) -> (NodeId, FileSpan) {
        match self.index.get(name) {
            Some(&id) => (id, self.span(name.len())),
            None => {
                let id = self.add_node(name, NodeKind::Step, true);
                (id, self.workflow.node(id).name_span)
            }
        }
    }

    /// Adds an edge; undeclared names become implicit steps.
    pub fn edge(self, from: &str, to: &str) -> Self {
        self.edge_with_label(from, to, None)
    }

    /// Adds a labelled edge.
    pub fn labelled(self, from: &str, to: &str, label: &str) -> Self {
        self.edge_with_label(from, to, Some(label))
    }

    fn edge_with_label(mut self, from: &str, to: &str, label: Option<&str>) -> Self {
        let (from, from_span) = self.resolve(from);
        let (to, to_span) = self.resolve(to);
        let label_span = label.map(|l| self.span(l.len() + 2));
        self.workflow.edges.push(Edge {
            from,
            to,
            span: FileSpan {
                file: FileId(0),
                span: from_span.span.to(to_span.span),
            },
            from_span,
            to_span,
            label: label.map(str::to_string),
            label_span,
            guard: None,
            attributes: Vec::new(),
        });
        self
    }

    /// Adds a chain of edges `names[0] -> names[1] -> …`.
    pub fn chain(mut self, names: &[&str]) -> Self {
        for pair in names.windows(2) {
            self = self.edge(pair[0], pair[1]);
        }
        self
    }

    /// Sets `entry = name`.
    pub fn entry(mut self, name: &str) -> Self {
        let span = self.span(name.len());
        self.workflow.entry = Some((name.to_string(), span));
        self
    }

    /// Sets the source format.
    pub fn format(mut self, format: SourceFormat) -> Self {
        self.workflow.format = format;
        self
    }

    /// Marks the workflow as incomplete (syntax errors were skipped).
    pub fn incomplete(mut self) -> Self {
        self.workflow.incomplete = true;
        self
    }

    /// The workflow.
    pub fn build(self) -> Workflow {
        self.workflow
    }
}
