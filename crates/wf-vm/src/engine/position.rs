//! What a run's position asks (for `wf_vm::question`): the visit count of
//! a node and the edges whose guards hold at the current node.

use wf_ir::{EdgeIdx, NodeIdx, WorkflowIdx};

use super::Engine;
use crate::agent::Status;

impl Engine<'_> {
    /// How many times node `node` of workflow `wf` has been entered (the
    /// current visit, at the node the run stands at).
    pub fn visit_count(&self, wf: WorkflowIdx, node: NodeIdx) -> u32 {
        self.visits[self.info[wf.0 as usize].visit_base + node.0 as usize]
    }

    /// The outgoing edges of the current node whose guards hold, as the
    /// agent is shown them when it is asked there (empty when a guard
    /// fails to evaluate).
    pub fn valid_edges_here(&mut self) -> Vec<EdgeIdx> {
        let (wf, node, _) = self.position();
        if self.compute_valid(wf, node, Status::Success.as_str(), None) {
            self.valid.clone()
        } else {
            Vec::new()
        }
    }
}
