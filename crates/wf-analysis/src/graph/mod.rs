//! The `graph` family (WF02xx): the shape of each workflow's graph.
//!
//! [`analyze`] computes the facts several checks share (adjacency, entry,
//! cycles, reachability) in O(nodes + edges) without recursion;
//! [`check_workflow`] turns them into diagnostics. Both are pure functions
//! of one [`Workflow`], ready to become salsa queries.

mod accelerator;
mod adjacency;
mod cycles;
mod duplicates;
mod entry;
mod questions;
mod scc;
mod structure;

use std::collections::VecDeque;

use wf_diagnostics::{Diagnostic, Severity};
use wf_model::{SourceFormat, Workflow};

pub use accelerator::{accelerator_key, duplicate_accelerators};
pub use adjacency::Adjacency;
pub use duplicates::duplicate_edges;
pub use entry::{Entry, EntryReason, resolve_entry};
pub use scc::{Cycle, discovery_order, find_cycles};

/// What the graph checks know about one workflow.
#[derive(Debug, Clone)]
pub struct GraphFacts {
    /// Outgoing and incoming edges per node.
    pub adjacency: Adjacency,
    /// The resolved entry.
    pub entry: Entry,
    /// Every cycle, one per cyclic strongly connected component.
    pub cycles: Vec<Cycle>,
    /// Per node, whether a path from the entry reaches it; `None` when the
    /// entry is not resolved.
    pub reachable: Option<Vec<bool>>,
}

/// Computes the [`GraphFacts`] of `workflow`.
pub fn analyze(workflow: &Workflow) -> GraphFacts {
    let adjacency = Adjacency::new(workflow);
    let index = workflow.node_index();
    let entry = resolve_entry(workflow, &adjacency, &index);
    let cycles = find_cycles(workflow, &adjacency, entry.node());
    let reachable = entry.node().map(|start| {
        let mut seen = vec![false; workflow.nodes.len()];
        seen[start.index()] = true;
        let mut queue = VecDeque::from([start]);
        while let Some(v) = queue.pop_front() {
            for &w in adjacency.successors(v) {
                if !seen[w.index()] {
                    seen[w.index()] = true;
                    queue.push_back(w);
                }
            }
        }
        seen
    });
    GraphFacts {
        adjacency,
        entry,
        cycles,
        reachable,
    }
}

/// How serious a cycle is in this format: `.wf` and Reflex workflows are
/// DAGs, while Attractor `.dot` pipelines may loop (the runtime bounds them).
pub fn cycle_severity(format: SourceFormat) -> Severity {
    match format {
        SourceFormat::Dot => Severity::Info,
        SourceFormat::Wf | SourceFormat::ReflexJson => Severity::Error,
    }
}

/// Runs every graph check on one workflow.
pub fn check_workflow(workflow: &Workflow) -> Vec<Diagnostic> {
    check_workflow_with(workflow, &analyze(workflow))
}

/// Runs every graph check on one workflow whose facts are already known
/// (the database memoizes [`analyze`] on the span-free shape, so only this
/// cheap part re-runs when text merely moves).
pub fn check_workflow_with(workflow: &Workflow, facts: &GraphFacts) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = facts
        .cycles
        .iter()
        .map(|c| cycles::cycle(workflow, c))
        .collect();
    out.extend(structure::entry_problems(workflow, facts));
    out.extend(structure::no_terminal(workflow, facts));
    out.extend(structure::unreachable_nodes(workflow, facts));
    out.extend(structure::exits_with_outgoing(workflow, facts));
    out.extend(structure::humans_without_choices(workflow, facts));
    out.extend(questions::freeform_without_write(workflow));
    out.extend(questions::multiple_misused(workflow));
    out.extend(duplicate_accelerators(workflow, &facts.adjacency));
    out.extend(duplicate_edges(workflow));
    out
}

#[cfg(test)]
mod tests;
