//! The span-free shape of a workflow.
//!
//! Text moves whenever anything above it is edited, so every [`FileSpan`]
//! of a workflow changes although its structure does not. The graph facts
//! query reads this shape instead of the model, so salsa sees an equal
//! value, keeps ("backdates") the old one and does not re-run the graph
//! analysis. O(size of the workflow).
//!
//! The shape leaves out attributes and doc comments too: no query that
//! reads the shape looks at them (the graph, data-flow and recursion
//! analyses see nodes, edges, guards and keys), and copying them (prompts
//! run to kilobytes) was most of the cost of the shape. The structs are
//! destructured field by field, so a field added to the model does not
//! reach the shape unnoticed.

use wf_diagnostics::{FileSpan, Span};
use wf_model::{Call, Edge, Expr, Guard, KeyDecl, Node, ReadDecl, ReturnMapEntry, Workflow};

/// A copy of `workflow` with every span replaced by an empty span at 0 (the
/// file is kept: it is part of the workflow's identity anyway), and without
/// attributes and doc comments.
pub fn strip_spans(workflow: &Workflow) -> Workflow {
    let Workflow {
        name,
        name_span: _,
        span: _,
        file,
        format,
        docs: _,
        attributes: _,
        entry,
        needs,
        gives,
        interpolated_reads,
        nodes,
        edges,
        incomplete,
    } = workflow;
    let blank = FileSpan {
        file: *file,
        span: Span::default(),
    };
    Workflow {
        name: name.clone(),
        name_span: blank,
        span: blank,
        file: *file,
        format: *format,
        docs: None,
        attributes: Vec::new(),
        entry: entry.as_ref().map(|(name, _)| (name.clone(), blank)),
        needs: strip_keys(needs, blank),
        gives: strip_keys(gives, blank),
        interpolated_reads: strip_reads(interpolated_reads, blank),
        nodes: nodes.iter().map(|node| strip_node(node, blank)).collect(),
        edges: edges.iter().map(|edge| strip_edge(edge, blank)).collect(),
        incomplete: *incomplete,
    }
}

fn strip_node(node: &Node, blank: FileSpan) -> Node {
    let Node {
        name,
        kind,
        name_span: _,
        span: _,
        implicit,
        label,
        docs: _,
        attributes: _,
        reads,
        writes,
        interpolated_reads,
        call,
    } = node;
    Node {
        name: name.clone(),
        kind: *kind,
        name_span: blank,
        span: blank,
        implicit: *implicit,
        label: label.clone(),
        docs: None,
        attributes: Vec::new(),
        reads: strip_reads(reads, blank),
        writes: strip_keys(writes, blank),
        interpolated_reads: strip_reads(interpolated_reads, blank),
        call: call.as_ref().map(|call| strip_call(call, blank)),
    }
}

fn strip_call(call: &Call, blank: FileSpan) -> Call {
    let Call {
        workflow,
        workflow_span: _,
        return_map,
    } = call;
    Call {
        workflow: workflow.clone(),
        workflow_span: blank,
        return_map: return_map
            .iter()
            .map(|entry| ReturnMapEntry {
                parent_span: blank,
                child_span: blank,
                ..entry.clone()
            })
            .collect(),
    }
}

fn strip_edge(edge: &Edge, blank: FileSpan) -> Edge {
    let Edge {
        from,
        to,
        span: _,
        from_span: _,
        to_span: _,
        label,
        label_span,
        guard,
        attributes: _,
    } = edge;
    Edge {
        from: *from,
        to: *to,
        span: blank,
        from_span: blank,
        to_span: blank,
        label: label.clone(),
        label_span: label_span.map(|_| blank),
        guard: guard.as_ref().map(|guard| {
            let mut expr = guard.expr.clone();
            strip_expr(&mut expr, blank);
            Guard { expr, span: blank }
        }),
        attributes: Vec::new(),
    }
}

fn strip_keys(keys: &[KeyDecl], blank: FileSpan) -> Vec<KeyDecl> {
    keys.iter()
        .map(|key| KeyDecl {
            span: blank,
            ty_span: key.ty_span.map(|_| blank),
            ..key.clone()
        })
        .collect()
}

fn strip_reads(reads: &[ReadDecl], blank: FileSpan) -> Vec<ReadDecl> {
    reads
        .iter()
        .map(|read| ReadDecl {
            span: blank,
            ..read.clone()
        })
        .collect()
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
