//! The format-neutral workflow model every front end lowers into.
//!
//! `.wf` files, Attractor `.dot` pipelines and Reflex JSON all become a
//! [`Program`]: workflows made of [`Node`]s and [`Edge`]s with resolved
//! node indices. Checks, the compiler and the language server work on this
//! model only, so they apply equally to every source format. Every element
//! keeps the [`FileSpan`] it came from, so diagnostics point into the
//! original text whatever its format.

use rustc_hash::FxHashMap as HashMap;

mod extensions;

pub use extensions::{EXTENSIONS, Extension, Walked, extension_of};

use wf_diagnostics::{FileId, FileSpan};

/// A set of workflows, possibly from several files.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Program {
    /// All workflows in the order they were lowered.
    pub workflows: Vec<Workflow>,
}

impl Program {
    /// The first workflow with this name.
    pub fn workflow(&self, name: &str) -> Option<&Workflow> {
        self.workflows.iter().find(|w| w.name == name)
    }
}

/// Index of a node in its workflow's [`Workflow::nodes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Index of an edge in its workflow's [`Workflow::edges`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EdgeId(pub u32);

impl EdgeId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The source format a workflow came from; some checks differ by format
/// (cycles are errors in `.wf`, notes in `.dot`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SourceFormat {
    /// The native `.wf` language.
    Wf,
    /// Attractor DOT.
    Dot,
    /// Reflex workflow JSON.
    ReflexJson,
}

/// One workflow.
#[derive(Debug, Clone, PartialEq)]
pub struct Workflow {
    /// The name.
    pub name: String,
    /// Where the name is written.
    pub name_span: FileSpan,
    /// The whole declaration.
    pub span: FileSpan,
    /// The file it is in.
    pub file: FileId,
    /// Which format it came from.
    pub format: SourceFormat,
    /// Doc comment text.
    pub docs: Option<String>,
    /// Workflow attributes other than `entry` (goal, label, limits, …).
    pub attributes: Vec<Attribute>,
    /// `entry = node`, when written: the name and where it is.
    pub entry: Option<(String, FileSpan)>,
    /// Keys required in scope when the workflow starts.
    pub needs: Vec<KeyDecl>,
    /// Keys guaranteed on every completion.
    pub gives: Vec<KeyDecl>,
    /// `$key` / `${key}` interpolations in the workflow's own attribute
    /// strings (`goal = "Ship $ticket"`), in source order. They are
    /// optional reads: the data-flow checks only require that something in
    /// scope writes them.
    pub interpolated_reads: Vec<ReadDecl>,
    /// Nodes: declared ones in declaration order, then implicit ones in order
    /// of first mention.
    pub nodes: Vec<Node>,
    /// Edges in source order (chains expanded).
    pub edges: Vec<Edge>,
    /// True when the front end skipped part of the workflow's source while
    /// recovering from a syntax error. Nodes or edges may then be missing, so
    /// checks that reason about absence (unreachable nodes, no entry, no
    /// terminal, …) stay silent rather than report consequences of the
    /// syntax error.
    pub incomplete: bool,
}

impl Workflow {
    /// The node with this name.
    ///
    /// This is a linear scan; code that looks up many names should build
    /// [`Workflow::node_index`] once instead.
    pub fn node_by_name(&self, name: &str) -> Option<NodeId> {
        self.nodes
            .iter()
            .position(|n| n.name == name)
            .map(|i| NodeId(i as u32))
    }

    /// A map from node name to id, for constant-time lookups. When names
    /// repeat (a malformed model), the first node wins, as in
    /// [`Workflow::node_by_name`].
    pub fn node_index(&self) -> HashMap<&str, NodeId> {
        let mut index = HashMap::with_capacity_and_hasher(self.nodes.len(), Default::default());
        for (i, node) in self.nodes.iter().enumerate() {
            index.entry(node.name.as_str()).or_insert(NodeId(i as u32));
        }
        index
    }

    /// Ids of all nodes, in order.
    pub fn node_ids(&self) -> impl Iterator<Item = NodeId> + use<> {
        (0..self.nodes.len() as u32).map(NodeId)
    }

    /// Ids of all edges, in order.
    pub fn edge_ids(&self) -> impl Iterator<Item = EdgeId> + use<> {
        (0..self.edges.len() as u32).map(EdgeId)
    }

    /// The node with this id.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// The edge with this id.
    pub fn edge(&self, id: EdgeId) -> &Edge {
        &self.edges[id.index()]
    }
}

/// The kind of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// The agent or backend does the work.
    Step,
    /// A person picks an outgoing edge.
    Human,
    /// Runs a command.
    Tool,
    /// Invokes a sub-workflow.
    Call,
    /// Routing only.
    Branch,
    /// Fan-out.
    Parallel,
    /// Fan-in.
    Join,
    /// Explicit terminal.
    Exit,
}

impl NodeKind {
    /// The `.wf` keyword for this kind.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::Step => "step",
            NodeKind::Human => "human",
            NodeKind::Tool => "tool",
            NodeKind::Call => "call",
            NodeKind::Branch => "branch",
            NodeKind::Parallel => "parallel",
            NodeKind::Join => "join",
            NodeKind::Exit => "exit",
        }
    }
}

/// One node.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The id, unique in its workflow.
    pub name: String,
    /// The kind.
    pub kind: NodeKind,
    /// Where the name is written (for an implicit node: its first mention).
    pub name_span: FileSpan,
    /// The whole declaration (for an implicit node: its first mention).
    pub span: FileSpan,
    /// True when the node was never declared, only named in edges.
    pub implicit: bool,
    /// Label text.
    pub label: Option<String>,
    /// Doc comment text.
    pub docs: Option<String>,
    /// Attributes (engine attributes and the opaque spec alike).
    pub attributes: Vec<Attribute>,
    /// `reads` contract.
    pub reads: Vec<ReadDecl>,
    /// `writes` contract.
    pub writes: Vec<KeyDecl>,
    /// `$key` / `${key}` interpolations in the node's label and attribute
    /// strings, in source order, each spanning the key. They are optional
    /// reads (`optional` is true): the data-flow checks only require that
    /// something in scope writes them.
    pub interpolated_reads: Vec<ReadDecl>,
    /// For `call` nodes: the callee and return map.
    pub call: Option<Call>,
}

/// The invocation part of a `call` node.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// Name of the invoked workflow.
    pub workflow: String,
    /// Where that name is written.
    pub workflow_span: FileSpan,
    /// `parent <- child` entries.
    pub return_map: Vec<ReturnMapEntry>,
}

/// `parent <- child`.
#[derive(Debug, Clone, PartialEq)]
pub struct ReturnMapEntry {
    /// Key written in the caller.
    pub parent: String,
    /// Where the parent key is written.
    pub parent_span: FileSpan,
    /// Key read from the callee.
    pub child: String,
    /// Where the child key is written.
    pub child_span: FileSpan,
}

/// A key with an optional declared type.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyDecl {
    /// The key.
    pub key: String,
    /// The type name, when declared.
    pub ty: Option<String>,
    /// Where it is written.
    pub span: FileSpan,
    /// Where the type name is written, when declared.
    pub ty_span: Option<FileSpan>,
}

/// A key a node reads.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadDecl {
    /// The key.
    pub key: String,
    /// Whether the read is optional (`key?`).
    pub optional: bool,
    /// Where it is written.
    pub span: FileSpan,
}

/// `key = value` on a workflow, node or edge.
#[derive(Debug, Clone, PartialEq)]
pub struct Attribute {
    /// The key.
    pub key: String,
    /// Where the key is written.
    pub key_span: FileSpan,
    /// The value.
    pub value: Value,
    /// Where the value is written.
    pub value_span: FileSpan,
}

/// An attribute value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A string.
    String(String),
    /// A duration in milliseconds.
    Duration(u64),
    /// A bare name or path (`entry = plan`).
    Ref(String),
    /// A list.
    List(Vec<Value>),
    /// A map, in source order.
    Map(Vec<(String, Value)>),
}

/// One edge.
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    /// Source node.
    pub from: NodeId,
    /// Target node.
    pub to: NodeId,
    /// Where the edge is written: from the source name to the target name.
    pub span: FileSpan,
    /// Where the source node's name is written in this edge.
    pub from_span: FileSpan,
    /// Where the target node's name is written in this edge.
    pub to_span: FileSpan,
    /// Label text (routing key, human choice).
    pub label: Option<String>,
    /// Where the label is written.
    pub label_span: Option<FileSpan>,
    /// The guard, when present.
    pub guard: Option<Guard>,
    /// Other attributes (weight, …).
    pub attributes: Vec<Attribute>,
}

/// A guard condition, format-neutral.
#[derive(Debug, Clone, PartialEq)]
pub struct Guard {
    /// The expression.
    pub expr: Expr,
    /// Where it is written.
    pub span: FileSpan,
}

/// A guard expression, format-neutral.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A literal value.
    Literal(Value, FileSpan),
    /// A bare name: a key path, or a built-in (`outcome`, `label`) or
    /// status name (`success`, …), which the analysis resolves.
    Name(String, FileSpan),
    /// A name that is always a blackboard key, never a built-in or a status
    /// name: a backtick key in `.wf` (`` `Part Count` ``, `` `label` ``).
    Key(String, FileSpan),
    /// A list of expressions.
    List(Vec<Expr>, FileSpan),
    /// `exists(key)`
    Exists(String, FileSpan),
    /// `!e`
    Not(Box<Expr>, FileSpan),
    /// `lhs op rhs`
    Binary(Box<Expr>, BinOp, Box<Expr>, FileSpan),
    /// A part that failed to parse; checks skip it.
    Error(FileSpan),
}

/// Binary operators of the guard language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `||`
    Or,
    /// `&&`
    And,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `in`
    In,
    /// `contains`
    Contains,
    /// `matches`
    Matches,
}

impl BinOp {
    /// The operator as written in `.wf`.
    pub fn as_str(self) -> &'static str {
        match self {
            BinOp::Or => "||",
            BinOp::And => "&&",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::In => "in",
            BinOp::Contains => "contains",
            BinOp::Matches => "matches",
        }
    }
}
