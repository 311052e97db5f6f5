//! WF0308: recursion that can never complete.
//!
//! A workflow *can complete* when some path from its entry reaches a
//! terminal through call nodes whose callees can all complete (calls to
//! unknown workflows, and workflows that cannot be analysed, count as
//! completing, so no error cascades). This is a least fixpoint over the
//! call graph, computed with a worklist: every workflow is searched once,
//! and searched again only when one of its callees becomes completable, so
//! the total time is O(Σ size(W) · (1 + callees(W))), linear for
//! call graphs of bounded out-degree. A workflow that cannot complete is
//! reported when it is on a cycle of such calls (the recursive chain is
//! shown); its callers are not, as their problem is the callee.

use rustc_hash::FxHashMap as HashMap;
use std::collections::VecDeque;

use wf_diagnostics::{Diagnostic, codes};
use wf_model::{NodeId, Workflow};

use crate::graph::GraphFacts;

/// How many blocking call nodes one diagnostic labels.
const MAX_CALL_LABELS: usize = 8;

/// Whether `workflow` can reach a terminal through completable calls only.
/// `callee_at(v)` is the index of the workflow a reachable call node `v`
/// invokes, when it is known.
pub fn can_complete(
    workflow: &Workflow,
    facts: &GraphFacts,
    callee_at: impl Fn(NodeId) -> Option<usize>,
    completable: &[bool],
) -> bool {
    let Some(entry) = facts.entry.node() else {
        return true;
    };
    if workflow.incomplete {
        return true;
    }
    let passable = |v: NodeId| callee_at(v).is_none_or(|c| completable[c]);
    let mut seen = vec![false; workflow.nodes.len()];
    let mut queue = VecDeque::new();
    if passable(entry) {
        seen[entry.index()] = true;
        queue.push_back(entry);
    }
    while let Some(v) = queue.pop_front() {
        let successors = facts.adjacency.successors(v);
        if successors.is_empty() {
            return true;
        }
        for &s in successors {
            if !seen[s.index()] && passable(s) {
                seen[s.index()] = true;
                queue.push_back(s);
            }
        }
    }
    false
}

/// The least fixpoint: which of `n` workflows can complete. `calls[w]` are
/// the reachable call nodes of `w` with their known callees;
/// `can_complete(w, completable)` searches `w` given the current flags.
pub fn completable(
    calls: &[Vec<(NodeId, usize)>],
    mut can_complete: impl FnMut(usize, &[bool]) -> bool,
) -> Vec<bool> {
    let n = calls.len();
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (w, sites) in calls.iter().enumerate() {
        for &(_, c) in sites {
            callers[c].push(w);
        }
    }
    let mut completable = vec![false; n];
    let mut queued = vec![true; n];
    let mut work: VecDeque<usize> = (0..n).collect();
    while let Some(w) = work.pop_front() {
        queued[w] = false;
        if completable[w] || !can_complete(w, &completable) {
            continue;
        }
        completable[w] = true;
        for &caller in &callers[w] {
            if !completable[caller] && !queued[caller] {
                queued[caller] = true;
                work.push_back(caller);
            }
        }
    }
    completable
}

/// Whether some terminal of `workflow` is reachable from its entry.
pub fn has_terminal(workflow: &Workflow, facts: &GraphFacts) -> bool {
    facts.reachable.as_ref().is_some_and(|r| {
        workflow
            .node_ids()
            .any(|v| r[v.index()] && facts.adjacency.outgoing(v).is_empty())
    })
}

/// The WF0308 diagnostic of `workflow`. `chain` is the recursive call
/// chain as (caller name, call node name); `blocking` the call nodes of
/// `workflow` whose callees never complete, with the callee names.
pub fn diagnostic(
    workflow: &Workflow,
    chain: &[(String, String)],
    blocking: &[(NodeId, String)],
) -> Diagnostic {
    let rendered = chain
        .iter()
        .map(|(caller, node)| format!("`{caller}` (at `{node}`)"))
        .chain(std::iter::once(format!("`{}`", workflow.name)))
        .collect::<Vec<_>>()
        .join(" -> ");
    let mut diagnostic = Diagnostic::new(
        &codes::RECURSION_NEVER_COMPLETES,
        format!(
            "workflow `{}` can never complete: every path to a terminal recurses into it again",
            workflow.name
        ),
        workflow.name_span,
    )
    .with_primary_label(format!("no run of `{}` can complete", workflow.name))
    .with_note(format!("recursive call chain: {rendered}"));
    for (v, callee) in blocking.iter().take(MAX_CALL_LABELS) {
        let node = workflow.node(*v);
        diagnostic = diagnostic.with_label(
            node.name_span,
            format!("`{}` calls `{callee}`, which never completes", node.name),
        );
    }
    diagnostic.with_help(
        "give the recursion a way out: a path from the entry to a terminal that does not recurse, for example a guarded edge to an `exit` node",
    )
}

/// The shortest chain of calls to non-completing workflows that leads from
/// `w` back to `w`, as (workflow, call node) steps; `None` when `w` is not
/// on such a cycle. Breadth-first over the call graph, O(calls).
pub fn recursive_chain(
    calls: &[Vec<(NodeId, usize)>],
    completable: &[bool],
    w: usize,
) -> Option<Vec<(usize, NodeId)>> {
    let mut parent: HashMap<usize, (usize, NodeId)> = HashMap::default();
    let mut queue = VecDeque::from([w]);
    while let Some(x) = queue.pop_front() {
        for &(v, c) in &calls[x] {
            if completable[c] {
                continue;
            }
            if c == w {
                let mut chain = vec![(x, v)];
                let mut at = x;
                while at != w {
                    let step = parent[&at];
                    chain.push(step);
                    at = step.0;
                }
                chain.reverse();
                return Some(chain);
            }
            if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(c) {
                e.insert((x, v));
                queue.push_back(c);
            }
        }
    }
    None
}
