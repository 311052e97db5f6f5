//! The Attractor DOT front end: parse `.dot` pipelines and lower them to the
//! format-neutral model.
//!
//! [`parse`] never panics and never fails: it returns the syntax tree it
//! could build, every comment (for a formatter) and every syntax error as a
//! [`Diagnostic`]. [`lower`] turns the tree into a [`wf_model::Program`]
//! with [`wf_model::SourceFormat::Dot`]: defaults and subgraphs resolved,
//! chains expanded, the model stylesheet and `$goal` applied, values typed
//! and conditions parsed into guards. `docs/dot.md` describes what is
//! accepted and how it maps onto the model.

#![warn(missing_docs)]

pub mod ast;
pub mod condition;
pub mod lexer;
mod lower;
mod parser;
pub mod strings;
pub mod stylesheet;

use wf_diagnostics::{Diagnostic, FileId};
use wf_model::Program;

pub use lexer::{Comment, CommentKind};
pub use lower::handlers::{SHAPE_HANDLERS, handler_type, kind_of_handler, node_handler};
pub use parser::MAX_DEPTH;

/// The result of parsing one file.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// The tree (possibly partial when the file has errors).
    pub file: ast::File,
    /// Comments in source order.
    pub comments: Vec<Comment>,
    /// Every lexical and syntax diagnostic, in source order.
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses DOT source text. Spans are byte offsets into `text`;
/// diagnostics point into `file`.
pub fn parse(text: &str, file: FileId) -> Parsed {
    let lexed = lexer::lex(text, file);
    let (tree, mut diagnostics) = parser::parse(&lexed.tokens, text, file, lexed.runs_to_end);
    diagnostics.extend(lexed.diagnostics);
    diagnostics.sort_by_key(|d| (d.primary.location.span.start, d.code.code));
    Parsed {
        file: tree,
        comments: lexed.comments,
        diagnostics,
    }
}

/// The result of lowering one file.
#[derive(Debug, Clone)]
pub struct Lowered {
    /// The pipeline as a program of (at most) one workflow: the file's
    /// first graph. A file without a graph gives an empty program.
    pub program: Program,
    /// Lowering diagnostics (not the syntax diagnostics of [`Parsed`]).
    pub diagnostics: Vec<Diagnostic>,
}

/// Lowers a parsed file to the model. `text` is the source text `parsed`
/// came from (spans inside strings are mapped through it).
pub fn lower(parsed: &Parsed, text: &str, file: FileId) -> Lowered {
    let mut program = Program::default();
    let mut diagnostics = Vec::new();
    if let Some(graph) = parsed.file.graphs.first() {
        program
            .workflows
            .push(lower::lower_graph(graph, text, file, &mut diagnostics));
    }
    diagnostics.sort_by_key(|d| (d.primary.location.span.start, d.code.code));
    Lowered {
        program,
        diagnostics,
    }
}

/// Parses and lowers in one step; the diagnostics are the parser's and the
/// lowering's together, in source order.
pub fn parse_and_lower(text: &str, file: FileId) -> Lowered {
    let parsed = parse(text, file);
    let mut lowered = lower(&parsed, text, file);
    let mut diagnostics = parsed.diagnostics;
    diagnostics.append(&mut lowered.diagnostics);
    diagnostics.sort_by_key(|d| (d.primary.location.span.start, d.code.code));
    lowered.diagnostics = diagnostics;
    lowered
}
