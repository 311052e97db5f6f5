//! IR workflows are DAGs: a cycle is refused, with its path.

use super::verify::Verifier;
use super::{LoadError, LoadErrorKind};
use crate::types::IrWorkflow;

/// Refuses a cycle in `w` (whose indices are verified). Kahn's algorithm,
/// O(nodes + edges), iterative.
pub fn acyclic(v: &Verifier, w: &IrWorkflow, at: &str) -> Result<(), LoadError> {
    let n = w.nodes.len();
    let mut indegree = vec![0u32; n];
    for edge in &w.edges {
        indegree[edge.to.0 as usize] += 1;
    }
    let mut ready: Vec<usize> = (0..n).filter(|&i| indegree[i] == 0).collect();
    let mut done = 0;
    while let Some(i) = ready.pop() {
        done += 1;
        for edge in w.outgoing(crate::types::NodeIdx(i as u32)) {
            let to = edge.to.0 as usize;
            indegree[to] -= 1;
            if indegree[to] == 0 {
                ready.push(to);
            }
        }
    }
    if done == n {
        return Ok(());
    }
    // Every node left has an incoming edge from another node left: walk
    // backwards along such edges until a node repeats.
    let mut incoming: Vec<Option<usize>> = vec![None; n];
    for edge in &w.edges {
        let (from, to) = (edge.from.0 as usize, edge.to.0 as usize);
        if indegree[from] > 0 && indegree[to] > 0 {
            incoming[to] = Some(from);
        }
    }
    let start = (0..n)
        .find(|&i| indegree[i] > 0)
        .expect("some node is left");
    let mut seen = vec![usize::MAX; n];
    let mut walk = Vec::new();
    let mut at_node = start;
    while seen[at_node] == usize::MAX {
        seen[at_node] = walk.len();
        walk.push(at_node);
        at_node = incoming[at_node].expect("a node left has a predecessor left");
    }
    let mut cycle: Vec<usize> = walk[seen[at_node]..].to_vec();
    cycle.reverse();
    cycle.push(cycle[0]);
    let names: Vec<&str> = cycle
        .iter()
        .map(|&i| v.string(w.nodes[i].id, String::new).unwrap_or("?"))
        .collect();
    Err(LoadError::new(
        LoadErrorKind::Cycle,
        format!("{at}.edges"),
        format!(
            "the workflow's graph has a cycle ({}); IR workflows are DAGs",
            names.join(" -> ")
        ),
    ))
}
