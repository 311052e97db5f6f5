//! Which parallel branch a stage of a pipeline runs in, for what a branch
//! forks of its parent: the `full` conversations ([`super::context`]) and
//! a CLI agent's sessions ([`super::session`]).
//!
//! A branch is known by the graph, as the engine finds a branch's nodes
//! (`wf_vm::attractor::parallel`): its fan-out and its first node.

use wf_ir::{IrProgram, IrWorkflow, NodeIdx};
use wf_vm::attractor::parallel::concurrent::branch_nodes_of;

/// The parallel branch a node of a pipeline runs in: `FAN_OUT/FIRST` (the
/// `parallel` node and the branch's first node) of the innermost fan-out
/// whose branch reaches it; empty for a node of the main line. Found in
/// the graph as the engine finds a branch's nodes: every node reachable
/// from the branch's first one without passing a fan-in, an exit or the
/// fan-out itself.
pub fn scope(program: &IrProgram, w: &IrWorkflow, node: NodeIdx) -> String {
    branch_of(program, w, node)
        .map(|b| b.scope)
        .unwrap_or_default()
}

/// The branch a node runs in ([`scope`]).
pub struct BranchOf {
    /// `FAN_OUT/FIRST`.
    pub scope: String,
    /// The `parallel` node.
    pub fan_out: NodeIdx,
    /// The branch's first node.
    pub first: NodeIdx,
}

/// The branch `node` runs in, `None` on the main line ([`scope`]).
pub fn branch_of(program: &IrProgram, w: &IrWorkflow, node: NodeIdx) -> Option<BranchOf> {
    let mut best: Option<(usize, BranchOf)> = None;
    for (i, n) in w.nodes.iter().enumerate() {
        if n.handler.map(|h| program.str(h)) != Some("parallel") {
            continue;
        }
        let fan_out = NodeIdx(i as u32);
        for e in w.outgoing(fan_out) {
            let reach = branch_nodes_of(program, w, fan_out, e.to);
            if reach.contains(&node) && best.as_ref().is_none_or(|(len, _)| reach.len() < *len) {
                let first = program.str(w.nodes[e.to.0 as usize].id);
                let branch = BranchOf {
                    scope: format!("{}/{first}", program.str(n.id)),
                    fan_out,
                    first: e.to,
                };
                best = Some((reach.len(), branch));
            }
        }
    }
    best.map(|(_, b)| b)
}

/// The scopes `node` runs in, innermost first: its branch's ([`scope`]),
/// the branch its fan-out runs in, …, and the main line's `""` last.
pub fn scopes(program: &IrProgram, w: &IrWorkflow, node: NodeIdx) -> Vec<String> {
    let mut out = Vec::new();
    let mut at = node;
    // A fan-out inside its own branch cannot be, but a malformed graph
    // must not loop: at most one scope per node.
    while out.len() < w.nodes.len() {
        let Some(b) = branch_of(program, w, at) else {
            break;
        };
        if out.contains(&b.scope) {
            break;
        }
        out.push(b.scope);
        at = b.fan_out;
    }
    out.push(String::new());
    out
}
