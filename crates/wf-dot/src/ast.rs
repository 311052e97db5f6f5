//! The syntax tree of a DOT file, with byte spans everywhere.
//!
//! The tree keeps what was written (quoted or bare, undirected edges,
//! ports, HTML strings) so that the lowering, a formatter and the language
//! server can see it; the parser has already reported what the Attractor
//! subset rejects.

use wf_diagnostics::Span;

/// A parsed file: normally one graph; more only in a malformed file (the
/// parser reports every graph after the first).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct File {
    /// The graphs, in source order.
    pub graphs: Vec<Graph>,
}

/// `[strict] (digraph | graph) [ID] { statements }`.
#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    /// The `strict` keyword, when written.
    pub strict: Option<Span>,
    /// True for `digraph`, false for (undirected) `graph`.
    pub directed: bool,
    /// The `digraph` or `graph` keyword.
    pub keyword: Span,
    /// The graph's name, when written.
    pub name: Option<Id>,
    /// The statements of the body.
    pub stmts: Vec<Stmt>,
    /// From the keyword (or `strict`) to the closing `}` (or where the
    /// parser stopped).
    pub span: Span,
    /// True when the parser skipped part of the graph while recovering.
    pub incomplete: bool,
}

/// How an [`Id`] was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdKind {
    /// A bare word: identifier, number or tolerated unquoted value.
    Bare,
    /// One or more `"…"` strings (joined with `+`).
    Quoted,
    /// An HTML string `<…>` (reported; its text is kept verbatim).
    Html,
}

/// A DOT identifier: a node id, an attribute key or value, a graph name.
#[derive(Debug, Clone, PartialEq)]
pub struct Id {
    /// The text with quotes removed and escapes decoded.
    pub text: String,
    /// How it was written.
    pub kind: IdKind,
    /// The whole written form, quotes included.
    pub span: Span,
    /// For quoted strings joined with `+`: each piece's span, quotes
    /// included, in order. Empty for a single string (`span` is then the
    /// piece) and for other kinds.
    pub pieces: Vec<Span>,
}

impl Id {
    /// Whether the id is a bare identifier `[A-Za-z_][A-Za-z0-9_]*`, the
    /// only form the Attractor spec allows for node ids.
    pub fn is_identifier(&self) -> bool {
        is_identifier(&self.text)
    }
}

/// `text` as a DOT id in source: bare when it is an identifier, else a
/// quoted string (for messages and help that show DOT).
pub fn id_source_text(text: &str) -> String {
    if is_identifier(text) {
        text.to_string()
    } else {
        format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

/// Whether `text` matches `[A-Za-z_][A-Za-z0-9_]*`.
pub fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `key = value` inside `[…]` or as a statement.
#[derive(Debug, Clone, PartialEq)]
pub struct Attr {
    /// The key.
    pub key: Id,
    /// The value.
    pub value: Id,
    /// From the key to the end of the value.
    pub span: Span,
}

/// One or more `[…]` blocks after a statement, concatenated.
#[derive(Debug, Clone, PartialEq)]
pub struct AttrList {
    /// The attributes in source order.
    pub attrs: Vec<Attr>,
    /// From the first `[` to the last `]`.
    pub span: Span,
}

/// What a `graph`/`node`/`edge [ … ]` statement sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttrTarget {
    /// `graph [ … ]`: the (sub)graph's own attributes.
    Graph,
    /// `node [ … ]`: defaults for nodes created later in the scope.
    Node,
    /// `edge [ … ]`: defaults for edges created later in the scope.
    Edge,
}

/// A node reference with an optional (unsupported) port.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeRef {
    /// The node id.
    pub id: Id,
    /// `:port` or `:port:compass`, when written (reported).
    pub port: Option<Span>,
}

/// One end of an edge.
#[derive(Debug, Clone, PartialEq)]
pub enum EdgeEnd {
    /// A node.
    Node(NodeRef),
    /// A subgraph (reported as unsupported; read as its nodes).
    Subgraph(Subgraph),
}

/// `subgraph [ID] { … }` or an anonymous `{ … }`.
#[derive(Debug, Clone, PartialEq)]
pub struct Subgraph {
    /// The `subgraph` keyword, when written.
    pub keyword: Option<Span>,
    /// The name, when written.
    pub name: Option<Id>,
    /// The statements.
    pub stmts: Vec<Stmt>,
    /// The whole subgraph.
    pub span: Span,
}

/// One statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    /// `graph|node|edge [ … ]`.
    AttrDefaults {
        /// What it sets.
        target: AttrTarget,
        /// The keyword.
        keyword: Span,
        /// The attributes.
        attrs: AttrList,
        /// The whole statement.
        span: Span,
    },
    /// `key = value` at statement level: an attribute of the (sub)graph.
    Assign(Attr),
    /// `id [ … ]`.
    Node {
        /// The node.
        node: NodeRef,
        /// Its attributes, when written.
        attrs: Option<AttrList>,
        /// The whole statement.
        span: Span,
    },
    /// `a -> b -> c [ … ]`.
    Edge {
        /// The operands, at least two.
        ends: Vec<EdgeEnd>,
        /// The operators between them: `true` for `->`, `false` for `--`.
        directed: Vec<(bool, Span)>,
        /// The attributes, when written.
        attrs: Option<AttrList>,
        /// The whole statement.
        span: Span,
    },
    /// A subgraph on its own.
    Subgraph(Subgraph),
}

#[cfg(test)]
mod tests {
    use super::id_source_text;

    #[test]
    fn ids_are_quoted_only_when_they_must_be() {
        assert_eq!(id_source_text("plan_2"), "plan_2");
        assert_eq!(id_source_text("review step"), "\"review step\"");
        assert_eq!(id_source_text("say \"hi\"\\"), r#""say \"hi\"\\""#);
    }
}
