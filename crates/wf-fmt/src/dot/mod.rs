//! The conservative canonical layout of Attractor DOT files.
//!
//! Statements keep their order and their values their spelling (quotes,
//! escapes, `+` concatenations): only whitespace, the optional `;` and `,`
//! separators and the places of comments change. `docs/formatting.md`
//! states the rules. As for `.wf`, every result is verified
//! ([`verify::same_graph`]) before it is returned.

mod align;
mod layout;
mod printer;
pub(crate) mod verify;

use wf_diagnostics::{Diagnostic, FileId, Span};

use crate::{FormatError, Options};

/// How many columns a tab takes when measuring line width.
pub(crate) const TAB_WIDTH: usize = 4;

/// Formats DOT source text. Without `force`, a file with syntax errors is
/// refused; with it, every statement containing an error (or a whole graph,
/// when the error is not inside one statement) is kept as written, and when
/// even that would change the file's meaning the text is returned as it was.
pub(crate) fn format(text: &str, options: &Options, force: bool) -> Result<String, FormatError> {
    let parsed = wf_dot::parse(text, FileId(0));
    let errors: Vec<Diagnostic> = parsed
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .cloned()
        .collect();
    if !errors.is_empty() && !force {
        return Err(FormatError::Syntax(errors));
    }
    let mut spans: Vec<Span> = errors.iter().map(|d| d.primary.location.span).collect();
    spans.sort_by_key(|s| s.start);
    let out = printer::print(text, &parsed, options, &spans);
    match verify::same_graph(text, &parsed, &out) {
        Ok(()) => Ok(out),
        // With errors, recovery depends on line breaks: laying out the
        // parts around an error can change how the error parses. Keep the
        // file as written rather than risk it.
        Err(_) if !spans.is_empty() => Ok(text.to_string()),
        Err(err) => Err(err),
    }
}

/// The spans of the smallest units range formatting works on: every
/// statement but subgraphs, at any depth (a subgraph's own lines are
/// units of their own through the line rules).
pub(crate) fn leaf_statements(parsed: &wf_dot::Parsed) -> Vec<Span> {
    fn walk(stmts: &[wf_dot::ast::Stmt], out: &mut Vec<Span>) {
        for stmt in stmts {
            match stmt {
                wf_dot::ast::Stmt::Subgraph(sub) => walk(&sub.stmts, out),
                other => out.push(layout::stmt_span(other)),
            }
        }
    }
    let mut out = Vec::new();
    for graph in &parsed.file.graphs {
        walk(&graph.stmts, &mut out);
    }
    out
}
