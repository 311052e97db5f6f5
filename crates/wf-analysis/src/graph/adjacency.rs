//! Compressed adjacency lists of a workflow's graph.

use wf_model::{EdgeId, NodeId, Workflow};

/// Outgoing and incoming edges of every node, in edge (source) order,
/// stored as compressed sparse rows built in O(nodes + edges) with a
/// counting sort. The far end of each edge is stored beside it, so graph
/// walks never touch the (large) [`wf_model::Edge`] values: on a million
/// edges that is the difference between streaming through memory and a
/// cache miss per edge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Adjacency {
    out: Rows,
    inc: Rows,
}

/// One direction: for node `i`, entries `start[i]..start[i + 1]` of `edges`
/// and `ends` (the node at the other end of each edge).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Rows {
    start: Vec<u32>,
    edges: Vec<EdgeId>,
    ends: Vec<NodeId>,
}

impl Rows {
    /// Groups `pairs` (key node, other end) by key with a stable counting sort.
    fn new(n: usize, pairs: &[(NodeId, NodeId)]) -> Self {
        let mut start = vec![0u32; n + 1];
        for &(key, _) in pairs {
            start[key.index() + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut next = start.clone();
        let mut edges = vec![EdgeId(0); pairs.len()];
        let mut ends = vec![NodeId(0); pairs.len()];
        for (e, &(key, end)) in pairs.iter().enumerate() {
            let slot = &mut next[key.index()];
            edges[*slot as usize] = EdgeId(e as u32);
            ends[*slot as usize] = end;
            *slot += 1;
        }
        Rows { start, edges, ends }
    }

    fn range(&self, node: NodeId) -> std::ops::Range<usize> {
        self.start[node.index()] as usize..self.start[node.index() + 1] as usize
    }
}

impl Adjacency {
    /// Builds the adjacency of `workflow`.
    pub fn new(workflow: &Workflow) -> Self {
        let n = workflow.nodes.len();
        let forward: Vec<(NodeId, NodeId)> =
            workflow.edges.iter().map(|e| (e.from, e.to)).collect();
        let out = Rows::new(n, &forward);
        let backward: Vec<(NodeId, NodeId)> =
            forward.into_iter().map(|(from, to)| (to, from)).collect();
        let inc = Rows::new(n, &backward);
        Adjacency { out, inc }
    }

    /// Edges leaving `node`, in source order.
    pub fn outgoing(&self, node: NodeId) -> &[EdgeId] {
        &self.out.edges[self.out.range(node)]
    }

    /// Targets of the edges leaving `node`, parallel to [`Adjacency::outgoing`].
    pub fn successors(&self, node: NodeId) -> &[NodeId] {
        &self.out.ends[self.out.range(node)]
    }

    /// Edges entering `node`, in source order.
    pub fn incoming(&self, node: NodeId) -> &[EdgeId] {
        &self.inc.edges[self.inc.range(node)]
    }

    /// Sources of the edges entering `node`, parallel to [`Adjacency::incoming`].
    pub fn predecessors(&self, node: NodeId) -> &[NodeId] {
        &self.inc.ends[self.inc.range(node)]
    }
}
