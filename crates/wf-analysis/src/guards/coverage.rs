//! WF0406: fan-outs where some outcome status leaves no edge to take.
//!
//! For a node with at least two outgoing edges, all of them guarded, the
//! statuses it certainly can end with (see [`possible_statuses`]) are
//! compared with the union of the statuses for which each guard *may* hold
//! (its [`Truth`] mask). A guard that does not constrain `outcome` may hold for
//! every status, so the check only fires when the guards decide by outcome
//! and certainly exclude some status. O(edges) given the guards' truths.

use wf_diagnostics::{Diagnostic, codes};
use wf_model::{EdgeId, NodeId, NodeKind, SourceFormat, Workflow};

use super::logic::Truth;
use super::status::{ALL, Mask, RETRY, bit, list, names, possible_statuses};
use crate::graph::Adjacency;

/// How many guarded edges get a label; the rest are counted in a note.
const MAX_LABELS: usize = 8;

/// WF0406 for every node of `workflow` with uncovered statuses.
/// `truth(edge)` is the truth of the edge's guard (`None` when unguarded).
pub fn check(
    workflow: &Workflow,
    adjacency: &Adjacency,
    truth: impl Fn(EdgeId) -> Option<Truth>,
) -> Vec<Diagnostic> {
    // Attractor picks some edge even when no condition holds, so a `.dot`
    // run never stops at a fan-out; and a workflow with skipped syntax may
    // be missing edges.
    if workflow.format == SourceFormat::Dot || workflow.incomplete {
        return Vec::new();
    }
    let mut out = Vec::new();
    for n in workflow.node_ids() {
        let edges = adjacency.outgoing(n);
        if edges.len() < 2 {
            continue;
        }
        let Some(possible) = possible_statuses(workflow.node(n).kind) else {
            continue;
        };
        let mut covered = 0;
        let mut truths = Vec::with_capacity(edges.len());
        for &e in edges {
            // An unconditional edge can always be taken.
            let Some(t) = truth(e) else {
                covered = possible;
                break;
            };
            covered |= t.t;
            truths.push((e, t));
        }
        let uncovered = possible & !covered;
        if uncovered != 0 {
            out.push(report(workflow, n, (possible, uncovered), &truths));
        }
    }
    out
}

fn report(
    workflow: &Workflow,
    n: NodeId,
    (possible, uncovered): (Mask, Mask),
    truths: &[(EdgeId, Truth)],
) -> Diagnostic {
    let node = workflow.node(n);
    let plural = uncovered.count_ones() > 1;
    let mut diagnostic = Diagnostic::new(
        &codes::UNCOVERED_OUTCOME,
        format!(
            "no outgoing edge of `{}` can be taken when it ends with {}",
            node.name,
            list(uncovered, "or")
        ),
        node.name_span,
    )
    .with_primary_label(format!(
        "the run would stop here on {}",
        list(uncovered, "or")
    ));
    for (e, t) in truths.iter().take(MAX_LABELS) {
        let edge = workflow.edge(*e);
        let Some(guard) = &edge.guard else { continue };
        let target = &workflow.node(edge.to).name;
        // Statuses the node could report at all: a branch only succeeds,
        // and `retry` never reaches edge selection.
        let reportable = match workflow.node(n).kind {
            NodeKind::Branch => possible,
            _ => ALL & !bit(RETRY),
        };
        let message = match t.t & reportable {
            0 => format!("the edge to `{target}` is never taken"),
            holds => format!(
                "the edge to `{target}` is taken only on {}",
                list(holds, "or")
            ),
        };
        diagnostic = diagnostic.with_label(guard.span, message);
    }
    if truths.len() > MAX_LABELS {
        diagnostic = diagnostic.with_note(format!(
            "{} more guarded edges leave `{}`",
            truths.len() - MAX_LABELS,
            node.name
        ));
    }
    diagnostic = diagnostic.with_note(match node.kind {
        NodeKind::Branch => "a `branch` node does no work and always ends with `success`".to_string(),
        kind => format!(
            "a `{}` node can end with `success` or `fail` (`retry` re-runs it and never reaches edge selection)",
            kind.as_str()
        ),
    });
    let names: Vec<&str> = names(uncovered).collect();
    let condition = if plural {
        format!("outcome in [{}]", names.join(", "))
    } else {
        format!("outcome == {}", names[0])
    };
    diagnostic.with_help(format!(
        "add an edge for {} (`{} -> … when {condition}`), or an edge without a guard as a fallback",
        if plural { "them" } else { "it" },
        crate::suggest::name_source_text(&node.name),
    ))
}
