//! The abstract syntax tree of a `.wf` file.
//!
//! Every node carries the byte [`Span`] it was parsed from. The tree is
//! lossless enough for the formatter (together with the comment side table in
//! [`crate::Trivia`]) and for the language server, but carries no resolved
//! meaning: names are plain strings until the analysis lowers the tree.
//! Parts that failed to parse appear as `Error` variants holding the span
//! that was skipped, so the rest of the file is still analysed.

use wf_diagnostics::Span;

/// A whole `.wf` file.
#[derive(Debug, Clone, PartialEq)]
pub struct File {
    /// Top-level items in source order.
    pub items: Vec<Item>,
    /// The whole file.
    pub span: Span,
}

/// A top-level item.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// `import "path.wf" [as name]`
    Import(Import),
    /// `workflow Name { … }`
    Workflow(Workflow),
    /// Source the parser skipped while recovering from a syntax error.
    Error(Span),
}

/// Doc comments (`///`) attached to the item that follows them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Docs {
    /// The text of each `///` line with the marker and one leading space removed.
    pub lines: Vec<String>,
    /// Span covering all the doc-comment lines, if any.
    pub span: Option<Span>,
}

impl Docs {
    /// The doc text joined with newlines, or `None` when there are no docs.
    pub fn text(&self) -> Option<String> {
        (!self.lines.is_empty()).then(|| self.lines.join("\n"))
    }
}

/// An identifier or a quoted name (`review`, `"Part Concept"`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Name {
    /// The name with quotes removed and escapes resolved.
    pub text: String,
    /// Where it was written (including quotes).
    pub span: Span,
    /// Whether it was written as a quoted string.
    pub quoted: bool,
}

impl Name {
    /// The stand-in for a name the parser could not read (`workflow { … }`,
    /// `workflow 123 { … }`): empty, unquoted, spanning the bad tokens (or
    /// empty, where the name should have been). The error is already
    /// reported.
    pub fn missing(span: Span) -> Name {
        Name {
            text: String::new(),
            span,
            quoted: false,
        }
    }

    /// Whether this is a [missing](Name::missing) name. (A quoted name may
    /// be empty, `""`, but is never missing.)
    pub fn is_missing(&self) -> bool {
        self.text.is_empty() && !self.quoted
    }
}

/// A blackboard key: a dotted identifier path (`build.log`) or a quoted
/// string (`"Part Concept"`; in guards, a backtick-quoted name).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Key {
    /// The key as one string (`build.log`, `Part Concept`).
    pub text: String,
    /// The whole key as written.
    pub span: Span,
    /// Whether it was written quoted.
    pub quoted: bool,
}

/// A string literal, after escapes are resolved and, for `"""` strings,
/// common indentation is stripped.
#[derive(Debug, Clone, PartialEq)]
pub struct StrLit {
    /// The value.
    pub value: String,
    /// Where it was written (including quotes).
    pub span: Span,
    /// Whether it was a `"""` multi-line string.
    pub multiline: bool,
    /// The `$key` / `${key}` markers in the literal, in order, with spans
    /// in the source text (`\$` is a literal dollar and is not listed).
    pub interpolations: Vec<Interpolation>,
}

/// A `$key` or `${key}` marker inside a string literal: a blackboard value
/// interpolated at run time, checked like a read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interpolation {
    /// The key (a dotted identifier path), with its span in the source.
    pub key: Key,
    /// The whole marker, from `$` to the end of the key or the `}`.
    pub span: Span,
}

/// `import "path.wf" [as name]`
#[derive(Debug, Clone, PartialEq)]
pub struct Import {
    /// Attached doc comments.
    pub docs: Docs,
    /// The path literal.
    pub path: StrLit,
    /// `as name`, when present.
    pub alias: Option<Name>,
    /// The whole item.
    pub span: Span,
}

/// `workflow Name { … }`
#[derive(Debug, Clone, PartialEq)]
pub struct Workflow {
    /// Attached doc comments.
    pub docs: Docs,
    /// The workflow's name. [Missing](Name::is_missing) (empty) when the
    /// header had no valid name but the body could still be parsed.
    pub name: Name,
    /// The statements of the body in source order.
    pub body: Vec<Statement>,
    /// The whole item, from `workflow` (or its docs) to the closing brace.
    pub span: Span,
}

/// A statement in a workflow body.
#[derive(Debug, Clone, PartialEq)]
pub enum Statement {
    /// `key = value`
    Attribute(Attribute),
    /// `needs k: type, …`
    Needs(Signature),
    /// `gives k: type, …`
    Gives(Signature),
    /// A node declaration.
    Node(Node),
    /// An edge chain `a -> b -> c …`.
    Edge(EdgeChain),
    /// Source skipped while recovering from a syntax error.
    Error(Span),
}

/// `key = value`
#[derive(Debug, Clone, PartialEq)]
pub struct Attribute {
    /// The key.
    pub key: Key,
    /// The value.
    pub value: Value,
    /// The whole attribute.
    pub span: Span,
}

/// A key with an optional type annotation: `ticket: string`, `verdict`.
#[derive(Debug, Clone, PartialEq)]
pub struct TypedKey {
    /// The key.
    pub key: Key,
    /// The type, when written.
    pub ty: Option<TypeName>,
    /// The whole `key: type`.
    pub span: Span,
}

/// A type name as written (`string`, `int`, …); checked by the analysis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeName {
    /// The name.
    pub text: String,
    /// Where.
    pub span: Span,
}

/// `needs …` or `gives …`
#[derive(Debug, Clone, PartialEq)]
pub struct Signature {
    /// The keys, in order.
    pub keys: Vec<TypedKey>,
    /// The whole line including the keyword.
    pub span: Span,
}

/// The kind keyword of a node declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// `step`: the agent or backend does the work.
    Step,
    /// `human`: a person picks an outgoing edge.
    Human,
    /// `tool`: runs a command.
    Tool,
    /// `call`: invokes a sub-workflow.
    Call,
    /// `branch`: routing only.
    Branch,
    /// `parallel`: fan-out.
    Parallel,
    /// `join`: fan-in.
    Join,
    /// `exit`: explicit terminal.
    Exit,
}

impl NodeKind {
    /// The keyword.
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

/// A node declaration: `KIND name ["label"] [{ body }]`, or for calls
/// `call name ["label"] = Workflow [{ body }]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Attached doc comments.
    pub docs: Docs,
    /// The kind keyword.
    pub kind: NodeKind,
    /// Where the kind keyword is.
    pub kind_span: Span,
    /// The node's name.
    pub name: Name,
    /// The optional label string.
    pub label: Option<StrLit>,
    /// For `call` nodes: the invoked workflow.
    pub callee: Option<Name>,
    /// The body, when braces were written.
    pub body: Option<NodeBody>,
    /// The whole declaration.
    pub span: Span,
}

/// The `{ … }` of a node.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeBody {
    /// Entries in source order.
    pub items: Vec<BodyItem>,
    /// From `{` to `}`.
    pub span: Span,
}

/// One entry in a node body.
#[derive(Debug, Clone, PartialEq)]
pub enum BodyItem {
    /// `key = value`
    Attribute(Attribute),
    /// `reads a, b?, c`
    Reads(Vec<ReadKey>, Span),
    /// `writes a: string, b`
    Writes(Vec<TypedKey>, Span),
    /// `parent <- child` (call nodes only; the analysis rejects it elsewhere).
    ReturnMap(ReturnMapEntry),
    /// Source skipped while recovering from a syntax error.
    Error(Span),
}

/// One key of a `reads` line.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadKey {
    /// The key.
    pub key: Key,
    /// `?` was written: the read is optional.
    pub optional: bool,
    /// The key and its `?`.
    pub span: Span,
}

/// `parent <- child` in a call node's body.
#[derive(Debug, Clone, PartialEq)]
pub struct ReturnMapEntry {
    /// Key written in the caller's frame.
    pub parent: Key,
    /// Key read from the callee's frame.
    pub child: Key,
    /// The whole entry.
    pub span: Span,
}

/// `a -> b -> c ["label"] [when EXPR] [{ attrs }]`
#[derive(Debug, Clone, PartialEq)]
pub struct EdgeChain {
    /// Attached doc comments.
    pub docs: Docs,
    /// The node names in order; at least two.
    pub nodes: Vec<Name>,
    /// The spans of each `->`, one fewer than `nodes`.
    pub arrows: Vec<Span>,
    /// The label; applies to every edge of the chain.
    pub label: Option<StrLit>,
    /// The guard; applies to every edge of the chain.
    pub guard: Option<Expr>,
    /// The attribute block; applies to every edge of the chain.
    pub attributes: Option<AttributeBlock>,
    /// The whole chain.
    pub span: Span,
}

/// `{ key = value … }` after an edge.
#[derive(Debug, Clone, PartialEq)]
pub struct AttributeBlock {
    /// The attributes.
    pub attributes: Vec<Attribute>,
    /// From `{` to `}`.
    pub span: Span,
}

/// An attribute value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A string.
    String(StrLit),
    /// An integer.
    Int(i64, Span),
    /// A float.
    Float(f64, Span),
    /// A duration in milliseconds.
    Duration(u64, Span),
    /// `true` / `false`.
    Bool(bool, Span),
    /// `null`.
    Null(Span),
    /// A bare name or dotted path (`entry = plan`, `backoff = standard`).
    Path(Key),
    /// `[a, b, …]`
    List(Vec<Value>, Span),
    /// `{k: v, …}`
    Map(Vec<MapEntry>, Span),
    /// A value that failed to parse.
    Error(Span),
}

impl Value {
    /// Where the value was written.
    pub fn span(&self) -> Span {
        match self {
            Value::String(s) => s.span,
            Value::Path(k) => k.span,
            Value::Int(_, s)
            | Value::Float(_, s)
            | Value::Duration(_, s)
            | Value::Bool(_, s)
            | Value::Null(s)
            | Value::List(_, s)
            | Value::Map(_, s)
            | Value::Error(s) => *s,
        }
    }
}

/// `k: v` inside a map value.
#[derive(Debug, Clone, PartialEq)]
pub struct MapEntry {
    /// The key.
    pub key: Key,
    /// The value.
    pub value: Value,
    /// The whole entry.
    pub span: Span,
}

/// A guard expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A literal: string, number, duration, boolean or null.
    Literal(Value),
    /// A name: a blackboard key path, a backtick-quoted key, or one of the
    /// built-ins (`outcome`, `label`) and status names (`success`, …), which
    /// the analysis resolves.
    Key(Key),
    /// `[a, b]` list literal, for `in`.
    List(Vec<Expr>, Span),
    /// `exists(key)`
    Exists(Key, Span),
    /// `!e`
    Not(Box<Expr>, Span),
    /// `lhs op rhs`
    Binary(Box<Expr>, BinOp, Span, Box<Expr>),
    /// `( e )`, kept so the formatter and spans stay faithful.
    Paren(Box<Expr>, Span),
    /// An expression that failed to parse.
    Error(Span),
}

impl Expr {
    /// Where the expression was written.
    pub fn span(&self) -> Span {
        match self {
            Expr::Literal(v) => v.span(),
            Expr::Key(k) => k.span,
            Expr::List(_, s)
            | Expr::Exists(_, s)
            | Expr::Not(_, s)
            | Expr::Paren(_, s)
            | Expr::Error(s) => *s,
            Expr::Binary(l, _, _, r) => l.span().to(r.span()),
        }
    }
}

/// Binary operators, loosest first: `||`; `&&`; comparisons and `in`,
/// `contains`, `matches` (non-associative).
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
    /// The operator as written.
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
