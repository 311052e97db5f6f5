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

use std::collections::{HashMap, VecDeque};

use wf_diagnostics::{Diagnostic, codes};
use wf_model::{NodeId, Program};

use crate::graph::GraphFacts;

/// How many blocking call nodes one diagnostic labels.
const MAX_CALL_LABELS: usize = 8;

/// The callee index of a reachable call node, when the callee is known.
fn callee_of(
    program: &Program,
    index: &HashMap<&str, usize>,
    w: usize,
    v: NodeId,
) -> Option<usize> {
    let call = program.workflows[w].node(v).call.as_ref()?;
    index.get(call.workflow.as_str()).copied()
}

/// Whether workflow `w` can reach a terminal through completable calls only.
fn can_complete(
    program: &Program,
    facts: &GraphFacts,
    index: &HashMap<&str, usize>,
    completable: &[bool],
    w: usize,
) -> bool {
    let workflow = &program.workflows[w];
    let Some(entry) = facts.entry.node() else {
        return true;
    };
    if workflow.incomplete {
        return true;
    }
    let passable = |v: NodeId| callee_of(program, index, w, v).is_none_or(|c| completable[c]);
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

/// WF0308 for the whole program. `facts[i]` are the graph facts of
/// `program.workflows[i]`; `index` maps names to their first workflow.
pub fn never_completing(
    program: &Program,
    facts: &[GraphFacts],
    index: &HashMap<&str, usize>,
) -> Vec<Diagnostic> {
    let n = program.workflows.len();
    // Reachable call nodes per workflow, and the reverse call graph.
    let mut calls: Vec<Vec<(NodeId, usize)>> = vec![Vec::new(); n];
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for w in 0..n {
        let Some(reachable) = &facts[w].reachable else {
            continue;
        };
        for v in program.workflows[w].node_ids() {
            let callee = reachable[v.index()]
                .then(|| callee_of(program, index, w, v))
                .flatten();
            if let Some(c) = callee {
                calls[w].push((v, c));
                callers[c].push(w);
            }
        }
    }
    if calls.iter().all(Vec::is_empty) {
        return Vec::new();
    }
    let mut completable = vec![false; n];
    let mut queued = vec![true; n];
    let mut work: VecDeque<usize> = (0..n).collect();
    while let Some(w) = work.pop_front() {
        queued[w] = false;
        if completable[w] || !can_complete(program, &facts[w], index, &completable, w) {
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

    let mut out = Vec::new();
    for w in 0..n {
        if completable[w] || index.get(program.workflows[w].name.as_str()) != Some(&w) {
            continue;
        }
        let workflow = &program.workflows[w];
        let has_terminal = facts[w].reachable.as_ref().is_some_and(|r| {
            workflow
                .node_ids()
                .any(|v| r[v.index()] && facts[w].adjacency.outgoing(v).is_empty())
        });
        if !has_terminal {
            continue; // WF0204 (no terminal) already says it cannot complete.
        }
        let Some(chain) = recursive_chain(&calls, &completable, w) else {
            continue;
        };
        let rendered = chain
            .iter()
            .map(|&(cw, v)| {
                let caller = &program.workflows[cw];
                format!("`{}` (at `{}`)", caller.name, caller.node(v).name)
            })
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
        let blocking = calls[w].iter().filter(|&&(_, c)| !completable[c]);
        for &(v, c) in blocking.take(MAX_CALL_LABELS) {
            let node = workflow.node(v);
            diagnostic = diagnostic.with_label(
                node.name_span,
                format!(
                    "`{}` calls `{}`, which never completes",
                    node.name, program.workflows[c].name
                ),
            );
        }
        out.push(diagnostic.with_help(
            "give the recursion a way out: a path from the entry to a terminal that does not recurse, for example a guarded edge to an `exit` node",
        ));
    }
    out
}

/// The shortest chain of calls to non-completing workflows that leads from
/// `w` back to `w`, as (workflow, call node) steps; `None` when `w` is not
/// on such a cycle. Breadth-first over the call graph, O(calls).
fn recursive_chain(
    calls: &[Vec<(NodeId, usize)>],
    completable: &[bool],
    w: usize,
) -> Option<Vec<(usize, NodeId)>> {
    let mut parent: HashMap<usize, (usize, NodeId)> = HashMap::new();
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
