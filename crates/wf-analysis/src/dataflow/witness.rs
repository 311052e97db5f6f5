//! Witness paths: one concrete route from the entry on which a key is
//! never written, for the message of a data-flow error.

use rustc_hash::FxHashMap as HashMap;
use std::collections::VecDeque;

use wf_model::{NodeId, Workflow};

use super::flow::writes_key;
use crate::graph::GraphFacts;
use crate::suggest::name_source_text;

/// How many node visits all witness searches of one workflow may make
/// together. One search is O(N + E); the budget keeps a workflow with
/// thousands of distinct missing keys from turning quadratic (its later
/// diagnostics then go without a path).
const VISIT_BUDGET: usize = 20_000_000;
/// How many node names a rendered path shows before eliding the middle.
const MAX_PATH_NAMES: usize = 16;
const UNSEEN: u32 = u32::MAX;

/// Witness searches over one workflow, memoised per key.
pub struct Witnesses<'a> {
    workflow: &'a Workflow,
    facts: &'a GraphFacts,
    /// Per key: the breadth-first parent of every node reached from the
    /// entry without passing through a writer of the key.
    parents: HashMap<String, Vec<u32>>,
    budget: usize,
}

impl<'a> Witnesses<'a> {
    /// Searches over `workflow`.
    pub fn new(workflow: &'a Workflow, facts: &'a GraphFacts) -> Self {
        Witnesses {
            workflow,
            facts,
            parents: HashMap::default(),
            budget: VISIT_BUDGET,
        }
    }

    /// A shortest path from the entry to `target` on which no node before
    /// `target` writes `key`, as node ids; `None` when the search budget is
    /// spent (or, defensively, when no such path exists).
    ///
    /// One breadth-first search per key, O(N + E), that enters writers of
    /// the key but does not leave them; every later target with the same key
    /// is answered from it in O(path length).
    pub fn path(&mut self, key: &str, target: NodeId) -> Option<Vec<NodeId>> {
        let entry = self.facts.entry.node()?;
        if !self.parents.contains_key(key) {
            if self.budget == 0 {
                return None;
            }
            let parents = self.search(entry, key);
            self.parents.insert(key.to_string(), parents);
        }
        let parents = &self.parents[key];
        if parents[target.index()] == UNSEEN {
            return None;
        }
        let mut path = vec![target];
        let mut at = target;
        while at != entry {
            at = NodeId(parents[at.index()]);
            path.push(at);
        }
        path.reverse();
        Some(path)
    }

    fn search(&mut self, entry: NodeId, key: &str) -> Vec<u32> {
        let mut parents = vec![UNSEEN; self.workflow.nodes.len()];
        parents[entry.index()] = entry.0;
        let mut queue = VecDeque::from([entry]);
        while let Some(v) = queue.pop_front() {
            self.budget = self.budget.saturating_sub(1);
            if writes_key(self.workflow.node(v), key) {
                continue;
            }
            for &s in self.facts.adjacency.successors(v) {
                if parents[s.index()] == UNSEEN {
                    parents[s.index()] = v.0;
                    queue.push_back(s);
                }
            }
        }
        parents
    }
}

/// `start -> plan -> deploy`, eliding the middle of very long paths.
pub fn render(workflow: &Workflow, path: &[NodeId]) -> String {
    let name = |id: &NodeId| name_source_text(&workflow.node(*id).name);
    if path.len() <= MAX_PATH_NAMES {
        return path.iter().map(name).collect::<Vec<_>>().join(" -> ");
    }
    let head = MAX_PATH_NAMES - 3;
    let mut parts: Vec<String> = path[..head].iter().map(name).collect();
    parts.push(format!("… ({} more)", path.len() - head - 2));
    parts.extend(path[path.len() - 2..].iter().map(name));
    parts.join(" -> ")
}
