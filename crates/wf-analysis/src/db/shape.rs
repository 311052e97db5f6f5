//! The span-free shape of a workflow.
//!
//! Text moves whenever anything above it is edited, so every [`FileSpan`]
//! of a workflow changes although its structure does not. The graph facts
//! query reads this shape instead of the model, so salsa sees an equal
//! value, keeps ("backdates") the old one and does not re-run the graph
//! analysis. O(size of the workflow).

use wf_diagnostics::{FileSpan, Span};
use wf_model::{Attribute, Expr, KeyDecl, ReadDecl, Workflow};

/// A copy of `workflow` with every span replaced by an empty span at 0 (the
/// file is kept: it is part of the workflow's identity anyway).
pub fn strip_spans(workflow: &Workflow) -> Workflow {
    let mut out = workflow.clone();
    let blank = FileSpan {
        file: workflow.file,
        span: Span::default(),
    };
    out.name_span = blank;
    out.span = blank;
    if let Some((_, span)) = &mut out.entry {
        *span = blank;
    }
    strip_attributes(&mut out.attributes, blank);
    strip_keys(&mut out.needs, blank);
    strip_keys(&mut out.gives, blank);
    strip_reads(&mut out.interpolated_reads, blank);
    for node in &mut out.nodes {
        node.name_span = blank;
        node.span = blank;
        strip_attributes(&mut node.attributes, blank);
        strip_reads(&mut node.reads, blank);
        strip_reads(&mut node.interpolated_reads, blank);
        strip_keys(&mut node.writes, blank);
        if let Some(call) = &mut node.call {
            call.workflow_span = blank;
            for entry in &mut call.return_map {
                entry.parent_span = blank;
                entry.child_span = blank;
            }
        }
    }
    for edge in &mut out.edges {
        edge.span = blank;
        edge.from_span = blank;
        edge.to_span = blank;
        if let Some(span) = &mut edge.label_span {
            *span = blank;
        }
        if let Some(guard) = &mut edge.guard {
            guard.span = blank;
            strip_expr(&mut guard.expr, blank);
        }
        strip_attributes(&mut edge.attributes, blank);
    }
    out
}

fn strip_keys(keys: &mut [KeyDecl], blank: FileSpan) {
    for key in keys {
        key.span = blank;
        if let Some(span) = &mut key.ty_span {
            *span = blank;
        }
    }
}

fn strip_reads(reads: &mut [ReadDecl], blank: FileSpan) {
    for read in reads {
        read.span = blank;
    }
}

fn strip_attributes(attributes: &mut [Attribute], blank: FileSpan) {
    for attribute in attributes {
        attribute.key_span = blank;
        attribute.value_span = blank;
    }
}

/// Iterative, so deeply nested guards cannot overflow the stack.
fn strip_expr(expr: &mut Expr, blank: FileSpan) {
    let mut stack = vec![expr];
    while let Some(expr) = stack.pop() {
        match expr {
            Expr::Literal(_, span)
            | Expr::Name(_, span)
            | Expr::Key(_, span)
            | Expr::Exists(_, span)
            | Expr::Error(span) => *span = blank,
            Expr::List(items, span) => {
                *span = blank;
                stack.extend(items.iter_mut());
            }
            Expr::Not(inner, span) => {
                *span = blank;
                stack.push(inner);
            }
            Expr::Binary(lhs, _, rhs, span) => {
                *span = blank;
                stack.push(lhs);
                stack.push(rhs);
            }
        }
    }
}
