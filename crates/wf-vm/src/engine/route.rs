//! Automatic transitions: the `.wf` nodes at which the engine decides
//! alone, without asking the agent (docs/runtime.md, section 3.1; the
//! DyGram seed's automatic transitions). A node there has nothing to do
//! and nothing to choose: the agent would only be asked to confirm.

use wf_ir::{NodeIdx, Opcode, WorkflowIdx};

use super::Engine;
use crate::agent::{Decision, Outcome};
use crate::blackboard::Phase;

impl Engine<'_> {
    /// The decision the engine takes alone at the current node, if it is a
    /// routing node (`self.valid` holds the edges valid for `success`):
    ///
    /// - a terminal with nothing to do completes: an `exit` without writes
    ///   or spec, a bare `step` (no label, spec, reads or writes: an
    ///   implicitly declared name), a `call` node whose callee returned;
    /// - a `branch`, a bare entry `step` (`start`) and a `call` node whose
    ///   callee returned move on when their guards leave at most one way
    ///   out (none: the engine's "no valid edge" failure). When guards
    ///   leave several, the agent chooses, as before.
    ///
    /// `.wf` workflows only: an Attractor node's handler always runs.
    pub(crate) fn automatic(
        &self,
        wf: WorkflowIdx,
        node: NodeIdx,
        phase: Phase,
    ) -> Option<Decision> {
        let workflow = &self.program.workflows[wf.0 as usize];
        if workflow.dialect != wf_ir::Dialect::Wf {
            return None;
        }
        let n = &workflow.nodes[node.0 as usize];
        let returned = n.op == Opcode::Call && phase == Phase::Returned;
        let quiet = n.spec.is_empty() && n.writes.is_empty() && n.templates.is_empty();
        let bare = n.op == Opcode::Step && quiet && n.label.is_none() && n.reads.is_empty();
        if n.edges.len == 0 {
            let done = returned || bare || (n.op == Opcode::Exit && quiet);
            return done.then(|| Decision::Complete { writes: Vec::new() });
        }
        let routing = n.op == Opcode::Branch || returned || (bare && node == workflow.entry);
        (routing && self.valid.len() <= 1).then(|| Decision::Advance(Outcome::success()))
    }
}
