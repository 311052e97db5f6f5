//! The forward must-analysis: which keys are definitely written when each
//! node starts, and which requirements fail.
//!
//! A key is *available* at a node when the workflow `needs` it, or when
//! every path from the entry to the node passes (before the node) through a
//! node that writes it, by `writes` or by a call's return map. A `gives`
//! key must be *written*: a need is the caller's value, in the caller's
//! frame, and completing does not return it (the runtime fails such a
//! completion). The sets are
//! bit sets over the *tracked* keys only: keys that some requirement asks
//! for (a required read, a callee's need, a `gives`, a key a caller's return
//! map takes) and that some node writes. Keys nobody writes need no bit:
//! they are never available.
//!
//! Nodes are visited once, in topological order (Kahn's algorithm over the
//! nodes reachable from the entry); the set entering a node is the
//! intersection of the sets leaving its predecessors. Time is
//! O((N + E) · K / 64) for N reachable nodes, E edges and K tracked keys.
//! A node's set lives only from the first of its predecessors to be visited
//! until the node itself is visited, so memory is O(W · K / 64) for the
//! widest frontier W, not O(N · K / 64).
//!
//! A `join` node is the exception: all the branches of the `parallel`
//! before it have run when it fires and their writes are merged, so its
//! set is the union of its predecessors' sets.
//!
//! Workflows with cycles (an error, WF0201) stay sound: nodes on a cycle
//! or after one never have all their predecessors visited, so they are
//! never visited and nothing is reported about them.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use wf_model::{Node, NodeId, NodeKind, Workflow};

use super::bits::BitSet;
use crate::graph::GraphFacts;
use crate::names::is_reserved;

/// How many terminals lacking a key the completion summary keeps per key.
const MAX_LACKING_TERMINALS: usize = 8;

/// Whether `node` writes `key`: in its `writes` or as a return-map parent.
pub fn writes_key(node: &Node, key: &str) -> bool {
    node.writes.iter().any(|w| w.key == key)
        || node
            .call
            .iter()
            .flat_map(|c| &c.return_map)
            .any(|e| e.parent == key)
}

/// Every key `node` writes, by `writes` or return map.
pub fn written_keys(node: &Node) -> impl Iterator<Item = &str> {
    node.writes.iter().map(|w| w.key.as_str()).chain(
        node.call
            .iter()
            .flat_map(|c| &c.return_map)
            .map(|e| e.parent.as_str()),
    )
}

/// What the analysis found in one workflow. Indices refer to the model:
/// `(node, i)` is `node.reads[i]` or the callee's `needs[i]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FlowResult {
    /// Required reads that are not available.
    pub missing_reads: Vec<(NodeId, usize)>,
    /// Callee needs that are not available at a call node.
    pub missing_needs: Vec<(NodeId, usize)>,
    /// Per `gives` index, the terminals reached without the key (node order).
    pub missing_gives: Vec<(usize, Vec<NodeId>)>,
    /// Per requested key the workflow writes but not on every path to every
    /// terminal (and not in `gives`), the first terminals reached without
    /// it. Requested keys written and absent here are guaranteed on
    /// completion. `None` when
    /// completion could not be analysed (a reachable terminal was not
    /// visited, because of a cycle).
    pub completion: Option<HashMap<String, Vec<NodeId>>>,
}

/// Runs the analysis on `workflow`. `callee_needs(node)` gives the keys the
/// workflow a `call` node invokes needs (in its `needs` order), when the
/// callee is known; `requested` are the
/// keys callers' return maps take from this workflow (the completion
/// summary covers only those, so that keys nobody asks for cost nothing).
/// `None` when the workflow has no resolved entry.
pub fn analyze<'w, 'a>(
    workflow: &'w Workflow,
    facts: &GraphFacts,
    callee_needs: impl Fn(NodeId) -> Option<&'a [String]>,
    requested: &[&str],
) -> Option<FlowResult> {
    let entry = facts.entry.node()?;
    let reachable = facts.reachable.as_ref()?;
    let needs: HashSet<&str> = workflow.needs.iter().map(|k| k.key.as_str()).collect();

    // The keys worth a bit: asked for somewhere, written somewhere, and
    // not needed unless given or returned (those must be written even if
    // needed: the return map copies the callee's own values only).
    let mut asked: HashSet<&str> = HashSet::default();
    for (i, node) in workflow.nodes.iter().enumerate() {
        if !reachable[i] {
            continue;
        }
        asked.extend(
            node.reads
                .iter()
                .filter(|r| !r.optional)
                .map(|r| r.key.as_str()),
        );
        if let Some(callee) = callee_needs(NodeId(i as u32)) {
            asked.extend(callee.iter().map(String::as_str));
        }
    }
    let gives: HashSet<&str> = workflow.gives.iter().map(|k| k.key.as_str()).collect();
    asked.extend(gives.iter().copied());
    asked.extend(requested.iter().copied());
    let mut bits: HashMap<&str, u32> = HashMap::default();
    let mut gen_bits: Vec<Vec<u32>> = vec![Vec::new(); workflow.nodes.len()];
    for (i, node) in workflow.nodes.iter().enumerate() {
        for key in written_keys(node) {
            let own = gives.contains(key) || requested.contains(&key);
            if asked.contains(key) && (!needs.contains(key) || own) {
                let next = bits.len() as u32;
                gen_bits[i].push(*bits.entry(key).or_insert(next));
            }
        }
    }
    // Reserved keys are WF0106 wherever they appear; they are taken as
    // available so that one mistake is not reported twice.
    let available = |set: &BitSet, key: &str| {
        needs.contains(key)
            || is_reserved(key).is_some()
            || bits.get(key).is_some_and(|&b| set.contains(b))
    };
    // For `gives`: written by this workflow, a need does not count.
    let written = |set: &BitSet, key: &str| {
        is_reserved(key).is_some() || bits.get(key).is_some_and(|&b| set.contains(b))
    };

    let n = workflow.nodes.len();
    let mut pending = vec![0u32; n];
    for v in workflow.node_ids() {
        if reachable[v.index()] && v != entry {
            // Unreachable predecessors are never visited, so they must not
            // be waited for.
            pending[v.index()] = facts
                .adjacency
                .predecessors(v)
                .iter()
                .filter(|p| reachable[p.index()])
                .count() as u32;
        }
    }
    let mut incoming: Vec<Option<BitSet>> = vec![None; n];
    incoming[entry.index()] = Some(BitSet::empty(bits.len()));
    let mut stack = vec![entry];
    let mut result = FlowResult::default();
    let mut gives_missing: Vec<Vec<NodeId>> = vec![Vec::new(); workflow.gives.len()];
    let extra: Vec<&str> = requested
        .iter()
        .copied()
        .filter(|k| bits.contains_key(k) && !workflow.gives.iter().any(|g| g.key == *k))
        .collect();
    let mut extra_missing: Vec<Vec<NodeId>> = vec![Vec::new(); extra.len()];
    let mut terminals_visited = 0usize;

    while let Some(v) = stack.pop() {
        let mut set = incoming[v.index()].take().expect("visited once");
        let node = workflow.node(v);
        for (i, read) in node.reads.iter().enumerate() {
            if !read.optional && !available(&set, &read.key) {
                result.missing_reads.push((v, i));
            }
        }
        if let Some(callee) = callee_needs(v) {
            for (i, need) in callee.iter().enumerate() {
                if !available(&set, need) {
                    result.missing_needs.push((v, i));
                }
            }
        }
        for &b in &gen_bits[v.index()] {
            set.insert(b);
        }
        let successors = facts.adjacency.successors(v);
        if successors.is_empty() {
            terminals_visited += 1;
            for (g, gives) in workflow.gives.iter().enumerate() {
                if !written(&set, &gives.key) {
                    gives_missing[g].push(v);
                }
            }
            for (k, key) in extra.iter().enumerate() {
                // Only the first few terminals are ever labelled.
                if !written(&set, key) && extra_missing[k].len() < MAX_LACKING_TERMINALS {
                    extra_missing[k].push(v);
                }
            }
        }
        // The set moves into the last successor that needs it and is
        // copied only for the others, so a chain costs O(1) per node and
        // only fan-outs and merges pay O(K / 64).
        let mut set = Some(set);
        let last = successors.iter().rposition(|&s| s != entry);
        for (i, &s) in successors.iter().enumerate() {
            // Edges back into the entry are cycles: the entry's set stays
            // the one it starts with.
            if s == entry {
                continue;
            }
            let current = set.as_ref().expect("moved only at the last successor");
            match &mut incoming[s.index()] {
                // Every branch into a `join` has run when it fires (they are
                // the branches of a `parallel`), and their writes are merged.
                Some(merged) if workflow.node(s).kind == NodeKind::Join => {
                    merged.union_with(current)
                }
                Some(merged) => merged.intersect_with(current),
                slot @ None if Some(i) == last => *slot = set.take(),
                slot @ None => *slot = Some(current.clone()),
            }
            pending[s.index()] -= 1;
            if pending[s.index()] == 0 {
                stack.push(s);
            }
        }
    }

    for (g, mut terminals) in gives_missing.into_iter().enumerate() {
        if !terminals.is_empty() {
            terminals.sort();
            result.missing_gives.push((g, terminals));
        }
    }
    let reachable_terminals = workflow
        .node_ids()
        .filter(|&v| reachable[v.index()] && facts.adjacency.outgoing(v).is_empty())
        .count();
    if terminals_visited == reachable_terminals {
        result.completion = Some(
            extra
                .iter()
                .zip(extra_missing)
                .filter(|(_, t)| !t.is_empty())
                .map(|(k, mut t)| {
                    t.sort();
                    (k.to_string(), t)
                })
                .collect(),
        );
    }
    result.missing_reads.sort();
    result.missing_needs.sort();
    Some(result)
}
