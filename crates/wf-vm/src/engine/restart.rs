//! Moves only Attractor pipelines make: `loop_restart` (taking such an
//! edge starts the run again at the edge's target with a fresh context,
//! seed section 3.2 step 7), a handler's `jump` to a node, and the last
//! step of edge selection (any edge, seed 3.3).

use wf_ir::{EdgeIdx, NodeIdx, WorkflowIdx};

use super::Engine;
use crate::agent::Status;
use crate::blackboard::Entry;
use crate::event::Event;

/// The context keys a restart keeps: the graph attributes mirrored at the
/// start (seed 5.1, `graph.*`).
fn kept(key: &str) -> bool {
    key.starts_with("graph.")
}

impl Engine<'_> {
    /// Restarts the current workflow at the target of `edge`: the frame's
    /// entries other than `graph.*` and its goal-gate outcomes are dropped;
    /// visit counts are kept, so a restart loop stays bounded by
    /// `max_visits`.
    pub(super) fn restart_at(&mut self, edge: EdgeIdx) {
        let (wf, _, depth) = self.position();
        let e = &self.program.workflows[wf.0 as usize].edges[edge.0 as usize];
        let target = e.to;
        if self.out.on() {
            let ev = Event::EngineRestart {
                step: self.step,
                workflow: self.wf_name(wf),
                edge: self.program.str(e.id),
                node: self.node_name(wf, target),
            };
            self.out.emit(&ev);
        }
        let frame = &mut self.frames[depth - 1];
        let entries: Vec<Entry> = std::mem::take(&mut frame.entries)
            .into_iter()
            .filter(|en| kept(self.keys.name(en.key)))
            .collect();
        // Rebuild the scope index from what is kept. Attractor workflows
        // have no calls, but a restart in a callee keeps the callers'
        // entries visible all the same.
        frame.reset(wf, target);
        self.visible.clear();
        self.bb_bytes = 0;
        for (i, f) in self.frames.iter_mut().enumerate().take(depth - 1) {
            let old = std::mem::take(&mut f.entries);
            let (w, n, phase, attempt, gates) = (
                f.workflow,
                f.node,
                f.phase,
                f.attempt,
                std::mem::take(&mut f.gates),
            );
            f.reset(w, n);
            f.phase = phase;
            f.attempt = attempt;
            f.gates = gates;
            for en in old {
                self.bb_bytes += en.size as usize;
                f.push(en, i + 1, &mut self.visible);
            }
        }
        let frame = &mut self.frames[depth - 1];
        for en in entries {
            self.bb_bytes += en.size as usize;
            frame.push(en, depth, &mut self.visible);
        }
        self.move_to(target);
    }

    /// Continues at the node `target` names (an outcome's `jump`).
    pub(super) fn jump_to(&mut self, target: &str, status: Status, first: usize) {
        let (wf, node, depth) = self.position();
        let workflow = &self.program.workflows[wf.0 as usize];
        let found = workflow
            .nodes
            .iter()
            .position(|n| self.program.str(n.id) == target);
        self.emit_exit(wf, node, depth, status);
        self.emit_writes(depth, first, node);
        match found {
            Some(i) => self.move_to(NodeIdx(i as u32)),
            None => {
                let reason = format!(
                    "node `{}` of workflow `{}` asked to continue at `{target}`, which is not a node of the workflow",
                    self.node_name(wf, node),
                    self.wf_name(wf)
                );
                self.fail_run(crate::failure::FailureKind::Agent, reason);
            }
        }
    }

    /// Any outgoing edge of `node`: the highest weight, then the target id
    /// that sorts first (seed 3.3, when no condition matched and no edge
    /// is unconditional).
    pub(super) fn any_edge(&self, wf: WorkflowIdx, node: NodeIdx) -> Option<EdgeIdx> {
        let workflow = &self.program.workflows[wf.0 as usize];
        let range = workflow.nodes[node.0 as usize].edges;
        (range.start..range.start + range.len)
            .map(EdgeIdx)
            .max_by(|&a, &b| {
                let (ea, eb) = (&workflow.edges[a.0 as usize], &workflow.edges[b.0 as usize]);
                ea.weight
                    .cmp(&eb.weight)
                    .then_with(|| self.node_name(wf, eb.to).cmp(self.node_name(wf, ea.to)))
            })
    }
}
