//! What the cursor is on: a node, a workflow, an import, a key or a
//! diagnostic code, found in the lowered model of the file (so a file that
//! is half typed still answers for what parsed).

use std::sync::Arc;

use wf_analysis::Database;
use wf_analysis::db::formats::{FrontEnd, front_end};
use wf_diagnostics::{Code, FileId, FileSpan};
use wf_model::{Expr, NodeId, Workflow};

/// The thing under the cursor.
#[derive(Debug, Clone)]
pub enum Target {
    /// A node of a workflow (its declaration or a mention in an edge).
    Node(Arc<Workflow>, NodeId),
    /// A workflow, by name (its declaration or a `call`).
    Workflow(String),
    /// An import; the file it loads, when the project has it.
    Import(Option<FileId>),
    /// A blackboard key of a workflow.
    Key(Arc<Workflow>, String),
    /// A diagnostic code (in a suppression comment).
    Code(&'static Code),
}

/// Whether `offset` is inside `span` (its end included, so that a cursor
/// just after a name is on it).
pub fn touches(span: FileSpan, offset: usize) -> bool {
    (span.span.start as usize) <= offset && offset <= span.span.end as usize
}

/// The target at `offset` in `file`, with the span it was found in.
pub fn target_at(db: &Database, file: FileId, offset: usize) -> Option<(Target, FileSpan)> {
    for import in db.file_imports(file) {
        if touches(import.span, offset) {
            return Some((Target::Import(import.target), import.span));
        }
    }
    if let Some(found) = code_at(db, file, offset) {
        return Some(found);
    }
    let workflows = db.file_workflows(file);
    let workflow = workflows.iter().find(|w| touches(w.span, offset))?;
    in_workflow(db, workflow, offset)
}

fn in_workflow(
    db: &Database,
    workflow: &Arc<Workflow>,
    offset: usize,
) -> Option<(Target, FileSpan)> {
    let key =
        |name: &str, span: FileSpan| Some((Target::Key(workflow.clone(), name.to_string()), span));
    if touches(workflow.name_span, offset) {
        return Some((Target::Workflow(workflow.name.clone()), workflow.name_span));
    }
    for decl in workflow.needs.iter().chain(&workflow.gives) {
        if touches(decl.span, offset) {
            return key(&decl.key, decl.span);
        }
    }
    for read in &workflow.interpolated_reads {
        if touches(read.span, offset) {
            return key(&read.key, read.span);
        }
    }
    for (i, node) in workflow.nodes.iter().enumerate() {
        if touches(node.name_span, offset) {
            return Some((
                Target::Node(workflow.clone(), NodeId(i as u32)),
                node.name_span,
            ));
        }
        for decl in &node.writes {
            if touches(decl.span, offset) {
                return key(&decl.key, decl.span);
            }
        }
        for read in node.reads.iter().chain(&node.interpolated_reads) {
            if touches(read.span, offset) {
                return key(&read.key, read.span);
            }
        }
        if let Some(call) = &node.call {
            if touches(call.workflow_span, offset) {
                return Some((Target::Workflow(call.workflow.clone()), call.workflow_span));
            }
            for entry in &call.return_map {
                if touches(entry.parent_span, offset) {
                    return key(&entry.parent, entry.parent_span);
                }
                if touches(entry.child_span, offset) {
                    // The child key belongs to the callee.
                    let callee = db
                        .workflow_declarations(workflow.file, &call.workflow)
                        .into_iter()
                        .next();
                    let owner = callee.unwrap_or_else(|| workflow.clone());
                    return Some((Target::Key(owner, entry.child.clone()), entry.child_span));
                }
            }
        }
    }
    for edge in &workflow.edges {
        if touches(edge.from_span, offset) {
            return Some((Target::Node(workflow.clone(), edge.from), edge.from_span));
        }
        if touches(edge.to_span, offset) {
            return Some((Target::Node(workflow.clone(), edge.to), edge.to_span));
        }
        if let Some(guard) = &edge.guard
            && touches(guard.span, offset)
            && let Some((name, span)) = key_in_expr(&guard.expr, offset)
        {
            return key(&name, span);
        }
    }
    None
}

/// Names the guard language reserves: never keys.
pub const BUILTIN_NAMES: &[&str] = &[
    "outcome",
    "label",
    "success",
    "fail",
    "retry",
    "partial_success",
    "skipped",
    "true",
    "false",
    "null",
];

/// The key a guard expression mentions at `offset`.
fn key_in_expr(expr: &Expr, offset: usize) -> Option<(String, FileSpan)> {
    match expr {
        Expr::Name(name, span)
            if touches(*span, offset) && !BUILTIN_NAMES.contains(&name.as_str()) =>
        {
            Some((name.clone(), *span))
        }
        Expr::Key(name, span) | Expr::Exists(name, span) if touches(*span, offset) => {
            Some((name.clone(), *span))
        }
        Expr::List(items, _) => items.iter().find_map(|e| key_in_expr(e, offset)),
        Expr::Not(inner, _) => key_in_expr(inner, offset),
        Expr::Binary(lhs, _, rhs, _) => {
            key_in_expr(lhs, offset).or_else(|| key_in_expr(rhs, offset))
        }
        _ => None,
    }
}

/// Every key a guard expression mentions, with its span.
pub fn keys_in_expr(expr: &Expr, out: &mut Vec<(String, FileSpan)>) {
    match expr {
        Expr::Name(name, span) if !BUILTIN_NAMES.contains(&name.as_str()) => {
            out.push((name.clone(), *span));
        }
        Expr::Key(name, span) | Expr::Exists(name, span) => out.push((name.clone(), *span)),
        Expr::List(items, _) => items.iter().for_each(|e| keys_in_expr(e, out)),
        Expr::Not(inner, _) => keys_in_expr(inner, out),
        Expr::Binary(lhs, _, rhs, _) => {
            keys_in_expr(lhs, out);
            keys_in_expr(rhs, out);
        }
        _ => {}
    }
}

/// A diagnostic code (`WF0301`) or name under the cursor inside a comment
/// (`//`, or in a `.dot` file a line starting with `#`).
fn code_at(db: &Database, file: FileId, offset: usize) -> Option<(Target, FileSpan)> {
    let text = db.file_text(file)?;
    let offset = offset.min(text.len());
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line = &text[line_start..line_end];
    let hash_comment = || {
        let is_dot = db
            .file_path(file)
            .is_some_and(|p| front_end(&p) == FrontEnd::Dot);
        let indent = line.len() - line.trim_start().len();
        (is_dot && line[indent..].starts_with('#')).then_some(indent)
    };
    let comment = line.find("//").or_else(hash_comment)? + line_start;
    if offset < comment {
        return None;
    }
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    // The byte after the last non-word character (which may be multi-byte).
    let start = text[comment..offset]
        .char_indices()
        .rfind(|&(_, c)| !is_word(c))
        .map_or(comment, |(i, c)| comment + i + c.len_utf8());
    let end = text[offset..line_end]
        .find(|c: char| !is_word(c))
        .map_or(line_end, |i| offset + i);
    let code = wf_diagnostics::codes::lookup(&text[start..end])?;
    let span = wf_diagnostics::Span::new(start, end).in_file(file);
    Some((Target::Code(code), span))
}
