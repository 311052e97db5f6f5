//! Two things a pipeline says that no run of wfc can do, whatever its
//! stages report (issue 17 item 7: a dry run that fails names them, and
//! `wfc check` reports them first):
//!
//! - WF0861: a `stack.manager_loop` node with no child pipeline
//!   (`stack.child_dotfile`, fabro's `stack.child_workflow`, on the node
//!   or the graph): the manager has nothing to supervise and fails.
//! - WF0862: a loop whose every way out needs an `outcome` no handler
//!   returns. wfc's handlers end with `success`, `partial_success`,
//!   `retry`, `fail` or `skipped`, and a `retry` runs the stage again (it
//!   becomes `fail` when the retries are spent), so a custom outcome
//!   (`outcome=done`) or `outcome=retry` never holds when edges are
//!   chosen. fabro's `succeeded` and `failed` do: the runtime reads them
//!   as `success` and `fail` (`wf_ir::PEER_STATUSES`). When such edges
//!   are a loop's only ways to an exit, a run goes round until
//!   `max_visits`.

use wf_diagnostics::{Diagnostic, codes};
use wf_model::{BinOp, Edge, Expr, NodeKind, Value, Workflow};

use super::rules::{handler, text};
use crate::graph::GraphFacts;
use crate::imports::child::CHILD_ATTRIBUTES;

/// The statuses a handler returns (seed 5.2).
const STATUSES: &[&str] = &["success", "partial_success", "retry", "fail", "skipped"];

/// The findings for `workflow`.
pub fn check(workflow: &Workflow, facts: &GraphFacts) -> Vec<Diagnostic> {
    let mut out = managers(workflow);
    if !workflow.incomplete {
        out.extend(closed_loops(workflow, facts));
    }
    out
}

/// WF0861.
fn managers(workflow: &Workflow) -> Vec<Diagnostic> {
    let graph_child = CHILD_ATTRIBUTES
        .iter()
        .any(|k| text(&workflow.attributes, k).is_some_and(|s| !s.trim().is_empty()));
    if graph_child {
        return Vec::new();
    }
    workflow
        .nodes
        .iter()
        .filter(|n| handler(n) == "stack.manager_loop")
        .filter(|n| {
            !CHILD_ATTRIBUTES
                .iter()
                .any(|k| text(&n.attributes, k).is_some_and(|s| !s.trim().is_empty()))
        })
        .map(|n| {
            Diagnostic::new(
                &codes::ATTRACTOR_MANAGER_WITHOUT_CHILD,
                format!(
                    "manager `{}` has no child pipeline to supervise",
                    n.name
                ),
                n.name_span,
            )
            .with_primary_label("a `stack.manager_loop` node (shape=house) runs a child pipeline")
            .with_help(format!(
                "name the child with `stack.child_dotfile=\"child.dot\"` on `{}` or on the graph; a run fails at this node without one",
                n.name
            ))
        })
        .collect()
}

/// The `outcome` value a condition requires, when it is a conjunction
/// with an `outcome=V` clause whose `V` never holds when edges are chosen.
fn dead_outcome(expr: &Expr) -> Option<(&str, wf_diagnostics::FileSpan)> {
    match expr {
        Expr::Binary(l, BinOp::And, r, _) => dead_outcome(l).or_else(|| dead_outcome(r)),
        Expr::Binary(l, BinOp::Eq, r, span) => match (&**l, &**r) {
            (Expr::Name(n, _), Expr::Literal(Value::String(v), _)) if n == "outcome" => {
                let status = wf_ir::peer_status(v).unwrap_or(v);
                (status == "retry" || !STATUSES.contains(&status)).then_some((v.as_str(), *span))
            }
            _ => None,
        },
        _ => None,
    }
}

fn weight(edge: &Edge) -> f64 {
    match edge
        .attributes
        .iter()
        .rev()
        .find(|a| a.key == "weight")
        .map(|a| &a.value)
    {
        Some(Value::Int(i)) => *i as f64,
        Some(Value::Float(f)) => *f,
        Some(Value::String(s)) => s.trim().parse().unwrap_or(0.0),
        _ => 0.0,
    }
}

/// WF0862: from a node the start reaches, no exit can be reached without
/// an edge whose condition needs an outcome no handler returns. One
/// finding per such edge that leads out of the trapped nodes.
fn closed_loops(workflow: &Workflow, facts: &GraphFacts) -> Vec<Diagnostic> {
    let Some(reachable) = facts.reachable.as_deref() else {
        return Vec::new();
    };
    let n = workflow.nodes.len();
    let mut outgoing: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, e) in workflow.edges.iter().enumerate() {
        if let Some(list) = outgoing.get_mut(e.from.index()) {
            list.push(i);
        }
    }
    let name = |i: usize| workflow.nodes[i].name.as_str();
    // An edge that can be taken: its condition does not need a dead
    // outcome, or it is the one the engine takes when no condition holds
    // and no edge is unconditional (spec 3.3: weight, then target id).
    let mut live = vec![true; workflow.edges.len()];
    for (i, e) in workflow.edges.iter().enumerate() {
        if e.guard
            .as_ref()
            .is_some_and(|g| dead_outcome(&g.expr).is_some())
        {
            live[i] = false;
        }
    }
    for list in &outgoing {
        if list.is_empty() || list.iter().any(|&e| workflow.edges[e].guard.is_none()) {
            continue;
        }
        let best = list
            .iter()
            .copied()
            .fold(None::<usize>, |best, e| match best {
                None => Some(e),
                Some(b) => {
                    let (ea, eb) = (&workflow.edges[e], &workflow.edges[b]);
                    let (we, wb) = (weight(ea), weight(eb));
                    if we > wb || (we == wb && name(ea.to.index()) < name(eb.to.index())) {
                        Some(e)
                    } else {
                        Some(b)
                    }
                }
            });
        if let Some(b) = best {
            live[b] = true;
        }
    }
    // The nodes from which an exit (or a node no edge leaves, where a run
    // ends) can be reached over live edges.
    let mut ends = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    for (i, node) in workflow.nodes.iter().enumerate() {
        if node.kind == NodeKind::Exit || outgoing[i].is_empty() {
            ends[i] = true;
            stack.push(i);
        }
    }
    while let Some(v) = stack.pop() {
        for (i, e) in workflow.edges.iter().enumerate() {
            let from = e.from.index();
            if live[i] && e.to.index() == v && from < n && !ends[from] {
                ends[from] = true;
                stack.push(from);
            }
        }
    }
    let mut out = Vec::new();
    for (i, e) in workflow.edges.iter().enumerate() {
        let from = e.from.index();
        // Only the edges that would lead out: into the loop again is no
        // way out, and says nothing new.
        let to = e.to.index();
        if live[i]
            || ends.get(from) != Some(&false)
            || ends.get(to) != Some(&true)
            || !reachable.get(from).copied().unwrap_or(false)
        {
            continue;
        }
        let Some((value, span)) = e.guard.as_ref().and_then(|g| dead_outcome(&g.expr)) else {
            continue;
        };
        let why = if value == "retry" {
            "`retry` runs the stage again and becomes `fail` when its retries are spent, so it never holds when edges are chosen".to_string()
        } else {
            format!(
                "no handler returns `{value}` (they return success, partial_success, retry, fail and skipped)"
            )
        };
        let fix = "route on a status, or on a context key the stage writes (`context.verdict=done`, set through `status.json`'s `context_updates`)";
        out.push(
            Diagnostic::new(
                &codes::ATTRACTOR_CLOSED_LOOP,
                format!(
                    "`{} -> {}` is a way out of a loop that is never taken: {why}",
                    name(from),
                    name(e.to.index())
                ),
                span,
            )
            .with_primary_label(format!("`outcome={value}` never holds"))
            .with_note(format!(
                "no exit can be reached from `{}` without such an edge: a run goes round until `max_visits`",
                name(from)
            ))
            .with_help(fix),
        );
    }
    out
}
