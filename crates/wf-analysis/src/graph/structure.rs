//! Entry, terminal, reachability and node-kind rules: WF0202 to WF0208.

use wf_diagnostics::{Diagnostic, Severity, codes};
use wf_model::{EdgeId, NodeId, NodeKind, SourceFormat, Workflow};

use super::{Entry, EntryReason, GraphFacts};
use crate::suggest::name_source_text;
use crate::text::join_truncated;

/// How many entry candidates a WF0203 message names.
const MAX_LISTED_CANDIDATES: usize = 5;
/// How many edges or nodes one diagnostic labels at most.
const MAX_LABELS: usize = 24;

/// Labels `edges` with `message(edge)`, at most [`MAX_LABELS`], noting how
/// many were left out.
fn label_edges(
    mut diagnostic: Diagnostic,
    workflow: &Workflow,
    edges: &[EdgeId],
    message: impl Fn(&wf_model::Edge) -> String,
) -> Diagnostic {
    for &e in edges.iter().take(MAX_LABELS) {
        let edge = workflow.edge(e);
        diagnostic = diagnostic.with_label(edge.span, message(edge));
    }
    if edges.len() > MAX_LABELS {
        diagnostic = diagnostic.with_note(format!("and {} more edges", edges.len() - MAX_LABELS));
    }
    diagnostic
}

fn plural_edges(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        one.to_string()
    } else {
        many.to_string()
    }
}

/// WF0202 missing entry, WF0203 ambiguous entry, WF0206 entry with incoming
/// edges. The first two stay silent for an incomplete workflow.
pub fn entry_problems(workflow: &Workflow, facts: &GraphFacts) -> Option<Diagnostic> {
    let name = &workflow.name;
    match &facts.entry {
        Entry::UnknownExplicit => None,
        Entry::Missing if workflow.incomplete => None,
        Entry::Missing => {
            let diagnostic = Diagnostic::new(
                &codes::MISSING_ENTRY,
                format!("workflow `{name}` has no entry node"),
                workflow.name_span,
            )
            .with_primary_label(format!("cannot tell where `{name}` starts"));
            Some(if workflow.nodes.is_empty() {
                diagnostic
                    .with_note("the workflow has no nodes")
                    .with_help("add nodes and edges, for example `start -> work -> done`")
            } else {
                diagnostic
                    .with_note("there is no `entry` attribute, no node named `start`, and every node has an incoming edge")
                    .with_help("add `entry = <node>` to the workflow, or name its first node `start`")
            })
        }
        Entry::Ambiguous(_) if workflow.incomplete => None,
        Entry::Ambiguous(candidates) => {
            let listed = join_truncated(
                candidates
                    .iter()
                    .map(|&n| format!("`{}`", workflow.node(n).name)),
                MAX_LISTED_CANDIDATES,
            );
            let mut diagnostic = Diagnostic::new(
                &codes::AMBIGUOUS_ENTRY,
                format!(
                    "workflow `{name}` has {} possible entry nodes: {listed}",
                    candidates.len()
                ),
                workflow.name_span,
            )
            .with_primary_label(format!("cannot tell which node starts `{name}`"));
            for &n in candidates.iter().take(MAX_LABELS) {
                let node = workflow.node(n);
                diagnostic = diagnostic.with_label(
                    node.name_span,
                    format!("`{}` has no incoming edges", node.name),
                );
            }
            let first = name_source_text(&workflow.node(candidates[0]).name);
            Some(
                diagnostic
                    .with_note("without an `entry` attribute or a node named `start`, the entry is the only node with no incoming edges")
                    .with_help(format!("add `entry = {first}` to the workflow to choose one, or connect the others")),
            )
        }
        &Entry::Resolved { node, reason } => {
            let incoming = facts.adjacency.incoming(node);
            if incoming.is_empty() {
                return None;
            }
            let entry = workflow.node(node);
            let why = match reason {
                EntryReason::Explicit => {
                    format!("`{}` is the entry because of `entry = …`", entry.name)
                }
                EntryReason::NamedStart => {
                    format!("`{}` is the entry because it is named `start`", entry.name)
                }
                // The only root has no incoming edges by definition.
                EntryReason::OnlyRoot => return None,
            };
            let diagnostic = Diagnostic::new(
                &codes::ENTRY_HAS_INCOMING,
                format!(
                    "entry node `{}` has {}",
                    entry.name,
                    plural_edges(incoming.len(), "an incoming edge", "incoming edges")
                ),
                entry.name_span,
            )
            .with_primary_label(why);
            let diagnostic = match (&workflow.entry, reason) {
                (Some((_, span)), EntryReason::Explicit) => {
                    diagnostic.with_label(*span, "chosen as the entry here")
                }
                _ => diagnostic,
            };
            Some(
                label_edges(diagnostic, workflow, incoming, |e| {
                    format!("`{}` goes to the entry", workflow.node(e.from).name)
                })
                .with_help(match workflow.format {
                    SourceFormat::Dot => "the start node runs only when the pipeline starts: send these edges to the first stage after it",
                    SourceFormat::ReflexJson => "the entry runs only when the workflow starts: to repeat it, move it into its own workflow and invoke that from a node's `invokes`, or choose another `entry`",
                    SourceFormat::Wf => "the entry runs only when the workflow starts: to repeat it, move it into its own workflow and invoke that with `call`, or choose another entry",
                }),
            )
        }
    }
}

/// WF0204: no terminal node (one without outgoing edges) is reachable from
/// the entry, or, when there is no entry, none exists at all: a run could
/// never complete.
///
/// Without a reachable terminal every run eventually repeats a node, so a
/// cycle always exists too. Both are reported: the cycle (WF0201) says
/// where the graph loops, this says that no run can end, which stays true
/// for `.dot` pipelines whose loops are legal. Silent for empty workflows
/// (WF0202 covers them) and incomplete ones.
pub fn no_terminal(workflow: &Workflow, facts: &GraphFacts) -> Option<Diagnostic> {
    if workflow.incomplete || workflow.nodes.is_empty() {
        return None;
    }
    let is_terminal = |n: NodeId| facts.adjacency.outgoing(n).is_empty();
    let considered = |n: &NodeId| facts.reachable.as_ref().is_none_or(|r| r[n.index()]);
    if workflow.node_ids().filter(considered).any(is_terminal) {
        return None;
    }
    let name = &workflow.name;
    let help = if workflow.format == SourceFormat::ReflexJson {
        "add a node without outgoing edges and an edge to it: a run completes there"
    } else {
        "add a node without outgoing edges (for example `exit done`) and an edge to it"
    };
    let any_terminal = workflow.node_ids().any(is_terminal);
    Some(match (facts.entry.node(), any_terminal) {
        (Some(entry), true) => {
            let entry = workflow.node(entry);
            Diagnostic::new(
                &codes::NO_TERMINAL,
                format!(
                    "no terminal node is reachable from the entry `{}` of workflow `{name}`",
                    entry.name
                ),
                workflow.name_span,
            )
            .with_primary_label(format!("a run of `{name}` can never complete"))
            .with_label(entry.name_span, "runs start here")
            .with_help(help)
        }
        _ => Diagnostic::new(
            &codes::NO_TERMINAL,
            format!("workflow `{name}` has no terminal node"),
            workflow.name_span,
        )
        .with_primary_label(format!("a run of `{name}` can never complete"))
        .with_note("every node has an outgoing edge")
        .with_help(help),
    })
}

/// WF0205: one warning per node that no path from the entry reaches.
/// Silent when the entry is not resolved or the workflow is incomplete.
pub fn unreachable_nodes(workflow: &Workflow, facts: &GraphFacts) -> Vec<Diagnostic> {
    let (Some(reachable), Some(entry)) = (&facts.reachable, facts.entry.node()) else {
        return Vec::new();
    };
    if workflow.incomplete {
        return Vec::new();
    }
    let entry = &workflow.node(entry).name;
    // A compensating node runs when the run fails, not along an edge.
    let compensations: Vec<&str> = workflow
        .nodes
        .iter()
        .flat_map(|n| &n.attributes)
        .filter(|a| a.key == "compensate")
        .filter_map(|a| crate::attributes::references::name_of(&a.value))
        .collect();
    workflow
        .node_ids()
        .filter(|n| !reachable[n.index()])
        .filter(|&n| !compensations.contains(&workflow.node(n).name.as_str()))
        .map(|n| {
            let node = workflow.node(n);
            Diagnostic::new(
                &codes::UNREACHABLE_NODE,
                format!(
                    "node `{}` cannot be reached from the entry `{entry}`",
                    node.name
                ),
                node.name_span,
            )
            .with_primary_label(format!("no path from `{entry}` leads here"))
            .with_help(format!(
                "add an edge to `{}` from a node reachable from `{entry}`, or remove it",
                node.name
            ))
        })
        .collect()
}

/// WF0207: an `exit` node with outgoing edges, each edge labelled.
pub fn exits_with_outgoing(workflow: &Workflow, facts: &GraphFacts) -> Vec<Diagnostic> {
    workflow
        .node_ids()
        .filter(|&n| {
            workflow.node(n).kind == NodeKind::Exit && !facts.adjacency.outgoing(n).is_empty()
        })
        .map(|n| {
            let node = workflow.node(n);
            let outgoing = facts.adjacency.outgoing(n);
            let diagnostic = Diagnostic::new(
                &codes::EXIT_HAS_OUTGOING,
                format!(
                    "exit node `{}` has {}",
                    node.name,
                    plural_edges(outgoing.len(), "an outgoing edge", "outgoing edges")
                ),
                node.name_span,
            )
            .with_primary_label(format!(
                "`{}` is an `exit` node, so a run ends here",
                node.name
            ));
            label_edges(diagnostic, workflow, outgoing, |e| {
                format!("`{}` goes to `{}`", node.name, workflow.node(e.to).name)
            })
            .with_help(if workflow.format == SourceFormat::Dot {
                format!(
                    "remove these edges; if the run should go on, make `{}` a stage (not `shape=Msquare`) and add an exit after it",
                    node.name
                )
            } else {
                format!(
                    "remove these edges, or declare `{}` as a `step` if the run should go on",
                    node.name
                )
            })
        })
        .collect()
}

/// WF0208: a `human` node without outgoing edges, leaving the person
/// nothing to choose. Silent for an incomplete workflow.
pub fn humans_without_choices(workflow: &Workflow, facts: &GraphFacts) -> Vec<Diagnostic> {
    if workflow.incomplete {
        return Vec::new();
    }
    workflow
        .node_ids()
        .filter(|&n| {
            workflow.node(n).kind == NodeKind::Human && facts.adjacency.outgoing(n).is_empty()
        })
        .map(|n| {
            let node = workflow.node(n);
            let example = if workflow.format == SourceFormat::Dot {
                format!("{} -> next [label=\"[A] Approve\"]", wf_dot::ast::id_source_text(&node.name))
            } else {
                format!("{} -> next \"[A] Approve\"", name_source_text(&node.name))
            };
            let diagnostic = Diagnostic::new(
                &codes::HUMAN_WITHOUT_CHOICES,
                format!(
                    "human node `{}` has no outgoing edges to choose from",
                    node.name
                ),
                node.name_span,
            )
            .with_primary_label("a person asked here would have no choices")
            .with_help(format!(
                "add one labelled edge per choice, for example `{example}`"
            ));
            // Attractor defines the outcome (the gate fails the run), and
            // pipelines use such a gate on purpose to halt loudly.
            if workflow.format == SourceFormat::Dot {
                diagnostic
                    .with_severity(Severity::Warning)
                    .with_note("in an Attractor pipeline a run that reaches this gate fails (\"No outgoing edges for human gate\"); if that is the intent, an `exit` node after a failing step says it plainer")
            } else {
                diagnostic
            }
        })
        .collect()
}
