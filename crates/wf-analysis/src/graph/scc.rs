//! Strongly connected components (iterative Tarjan) and a concrete cycle
//! path through each cyclic component.
//!
//! Both are iterative and O(nodes + edges): workflows with a million edges
//! must not overflow the stack or take quadratic time.

use std::collections::VecDeque;

use wf_model::{EdgeId, NodeId, Workflow};

use super::Adjacency;

/// A cycle found in a workflow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cycle {
    /// Every node of the strongly connected component, in node order.
    pub component: Vec<NodeId>,
    /// One simple cycle, as the edges in order; the last edge returns to
    /// the first edge's source. It starts at the component's node that a
    /// walk from the entry meets first (see [`discovery_order`]), so the last
    /// edge is the one that "goes back", whatever the declaration order.
    pub path: Vec<EdgeId>,
}

const UNVISITED: u32 = u32::MAX;

/// The rank of each node in a breadth-first walk from `entry`, continued
/// from the source of each not yet visited edge in source order (so nodes
/// that the entry does not reach are ranked by where their edges are
/// written), then from the remaining nodes in node order.
pub fn discovery_order(
    workflow: &Workflow,
    adjacency: &Adjacency,
    entry: Option<NodeId>,
) -> Vec<u32> {
    let n = workflow.nodes.len();
    let mut rank = vec![UNVISITED; n];
    let mut next = 0u32;
    let mut queue = VecDeque::new();
    let roots = entry
        .into_iter()
        .chain(workflow.edges.iter().map(|e| e.from))
        .chain(workflow.node_ids());
    for root in roots {
        if rank[root.index()] != UNVISITED {
            continue;
        }
        rank[root.index()] = next;
        next += 1;
        queue.push_back(root);
        while let Some(v) = queue.pop_front() {
            for &w in adjacency.successors(v) {
                if rank[w.index()] == UNVISITED {
                    rank[w.index()] = next;
                    next += 1;
                    queue.push_back(w);
                }
            }
        }
    }
    rank
}

/// Every cycle of the workflow: one per strongly connected component with
/// more than one node or with a self-loop, in discovery order from `entry`
/// (see [`discovery_order`]).
pub fn find_cycles(
    workflow: &Workflow,
    adjacency: &Adjacency,
    entry: Option<NodeId>,
) -> Vec<Cycle> {
    let n = workflow.nodes.len();
    // Component number of each node, assigned by Tarjan's algorithm.
    let mut component_of = vec![UNVISITED; n];
    // Only cyclic components are kept, with their numbers: most nodes of a
    // DAG are singleton components and allocating for each would dominate.
    let mut components: Vec<(u32, Vec<NodeId>)> = Vec::new();
    let mut numbered = 0u32;

    let mut index = vec![UNVISITED; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<NodeId> = Vec::new();
    // The explicit call stack: a node and how many of its edges are done.
    let mut calls: Vec<(NodeId, usize)> = Vec::new();
    let mut counter = 0u32;

    for root in workflow.node_ids() {
        if index[root.index()] != UNVISITED {
            continue;
        }
        index[root.index()] = counter;
        low[root.index()] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root.index()] = true;
        calls.push((root, 0));

        while let Some(&mut (v, ref mut next)) = calls.last_mut() {
            if let Some(&w) = adjacency.successors(v).get(*next) {
                *next += 1;
                if index[w.index()] == UNVISITED {
                    index[w.index()] = counter;
                    low[w.index()] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[w.index()] = true;
                    calls.push((w, 0));
                } else if on_stack[w.index()] {
                    low[v.index()] = low[v.index()].min(index[w.index()]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent.index()] = low[parent.index()].min(low[v.index()]);
            }
            if low[v.index()] == index[v.index()] {
                let number = numbered;
                numbered += 1;
                let split = stack.iter().rposition(|&w| w == v).unwrap_or(0);
                for &w in &stack[split..] {
                    on_stack[w.index()] = false;
                    component_of[w.index()] = number;
                }
                let cyclic = stack.len() - split > 1 || adjacency.successors(v).contains(&v);
                if cyclic {
                    components.push((number, stack[split..].to_vec()));
                }
                stack.truncate(split);
            }
        }
    }

    let mut cycles: Vec<(u32, Cycle)> = Vec::new();
    // Only computed when there is a cycle.
    let mut rank: Option<Vec<u32>> = None;
    // Reused across components: each node is in exactly one component, so
    // each entry is written at most once.
    let mut parent_edge: Vec<Option<EdgeId>> = vec![None; n];
    for (number, mut members) in components {
        members.sort();
        let rank = rank.get_or_insert_with(|| discovery_order(workflow, adjacency, entry));
        let start = *members
            .iter()
            .min_by_key(|m| rank[m.index()])
            .expect("components are not empty");
        let path = cycle_through(
            workflow,
            adjacency,
            &component_of,
            number,
            start,
            &mut parent_edge,
        );
        cycles.push((
            rank[start.index()],
            Cycle {
                component: members,
                path,
            },
        ));
    }
    cycles.sort_by_key(|(rank, _)| *rank);
    cycles.into_iter().map(|(_, cycle)| cycle).collect()
}

/// The shortest cycle through `start` inside its component, found by a
/// breadth-first search that stays inside the component.
fn cycle_through(
    workflow: &Workflow,
    adjacency: &Adjacency,
    component_of: &[u32],
    component: u32,
    start: NodeId,
    parent_edge: &mut [Option<EdgeId>],
) -> Vec<EdgeId> {
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        let edges = adjacency.outgoing(v).iter().zip(adjacency.successors(v));
        for (&e, &w) in edges {
            if component_of[w.index()] != component {
                continue;
            }
            if w == start {
                let mut path = vec![e];
                let mut at = v;
                // Every node the search reached has a parent edge.
                while let Some(back) = parent_edge[at.index()].filter(|_| at != start) {
                    path.push(back);
                    at = workflow.edge(back).from;
                }
                path.reverse();
                return path;
            }
            if parent_edge[w.index()].is_none() {
                parent_edge[w.index()] = Some(e);
                queue.push_back(w);
            }
        }
    }
    // Not reached: a cyclic component has a cycle through each of its
    // nodes. An empty path keeps the checker panic-free regardless.
    Vec::new()
}
