//! Which node a workflow starts at.

use rustc_hash::FxHashMap as HashMap;

use wf_model::{NodeId, Workflow};

use super::Adjacency;

/// Why a node is the entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryReason {
    /// `entry = node` names it.
    Explicit,
    /// No `entry`, and it is named `start`.
    NamedStart,
    /// No `entry`, no `start`, and it is the only node without incoming edges.
    OnlyRoot,
}

/// The outcome of entry resolution (DESIGN section 3: `entry = node`, else
/// the node named `start`, else the single node with no incoming edges).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// The entry is known.
    Resolved {
        /// The entry node.
        node: NodeId,
        /// Which rule chose it.
        reason: EntryReason,
    },
    /// `entry = x` names no node (reported as WF0103).
    UnknownExplicit,
    /// No rule yields a node: no nodes at all, or every node has an incoming edge.
    Missing,
    /// Several nodes have no incoming edges, in node order.
    Ambiguous(Vec<NodeId>),
}

impl Entry {
    /// The entry node, when resolved.
    pub fn node(&self) -> Option<NodeId> {
        match self {
            Entry::Resolved { node, .. } => Some(*node),
            _ => None,
        }
    }
}

/// Resolves the entry of `workflow`.
pub fn resolve_entry(
    workflow: &Workflow,
    adjacency: &Adjacency,
    index: &HashMap<&str, NodeId>,
) -> Entry {
    if let Some((name, _)) = &workflow.entry {
        return match index.get(name.as_str()) {
            Some(&node) => Entry::Resolved {
                node,
                reason: EntryReason::Explicit,
            },
            None => Entry::UnknownExplicit,
        };
    }
    if let Some(&node) = index.get("start") {
        return Entry::Resolved {
            node,
            reason: EntryReason::NamedStart,
        };
    }
    let roots: Vec<NodeId> = workflow
        .node_ids()
        .filter(|&n| adjacency.incoming(n).is_empty())
        .collect();
    match roots.as_slice() {
        [] => Entry::Missing,
        [node] => Entry::Resolved {
            node: *node,
            reason: EntryReason::OnlyRoot,
        },
        _ => Entry::Ambiguous(roots),
    }
}
