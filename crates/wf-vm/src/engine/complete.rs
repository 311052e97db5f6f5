//! Completing a workflow at its terminal: goal gates, the completion's
//! writes, then `engine:complete` or the return to the caller.

use super::Engine;
use crate::agent::Status;
use crate::blackboard::{Entry, Phase};
use crate::contract;
use crate::event::Event;
use crate::report::RunStatus;

impl Engine<'_> {
    /// Completes the current workflow at its terminal: goal gates, then the
    /// writes, then `engine:complete` or the return to the caller.
    pub(super) fn complete(&mut self, staged: Vec<Entry>) {
        let (wf, node, depth) = self.position();
        let frame = &self.frames[depth - 1];
        let unsatisfied = frame
            .gates
            .iter()
            .find(|(_, s)| !matches!(s, Status::Success | Status::PartialSuccess))
            .copied();
        if let Some((gate, status)) = unsatisfied {
            let workflow = &self.program.workflows[wf.0 as usize];
            let g = &workflow.nodes[gate.0 as usize].engine;
            let target = g
                .retry_target
                .or(g.fallback_retry_target)
                .or(workflow.retry_target)
                .or(workflow.fallback_retry_target);
            let what = format!(
                "goal gate `{}` of workflow `{}` is unsatisfied (its last outcome was `{}`)",
                self.node_name(wf, gate),
                self.wf_name(wf),
                status.as_str()
            );
            match target {
                Some(t) => {
                    let reason = format!("{what}; retrying at `{}`", self.node_name(wf, t));
                    self.record_failure(wf, node, reason);
                    self.emit_exit(wf, node, depth, Status::Fail);
                    self.move_to(t);
                }
                None => self.fail_run(format!("{what} and no retry target is set")),
            }
            return;
        }
        let first = self.append(staged);
        self.emit_writes(depth, first, node);
        if depth == 1 {
            if self.out.on() {
                self.out.emit(&Event::EngineComplete { step: self.step });
            }
            self.status = RunStatus::Completed;
            return;
        }
        self.pop();
    }

    /// Returns from the current frame: the return map into the caller, then
    /// `workflow:pop` and `node:enter` at the call node.
    fn pop(&mut self) {
        let child = self.frames.pop().expect("depth > 1");
        self.visible.pop(&child);
        self.bb_bytes -= child.bytes;
        let depth = self.frames.len();
        let parent = self.frames.last_mut().expect("depth > 1");
        let (wf, node) = (parent.workflow, parent.node);
        let call_node = &self.program.workflows[wf.0 as usize].nodes[node.0 as usize];
        let first = parent.entries.len();
        if let Some(call) = &call_node.call {
            for m in &call.return_map {
                if let Some(v) = child.get(m.child.0) {
                    let size = contract::serialized_size(v) + self.keys.name(m.parent.0).len();
                    self.bb_bytes += size;
                    parent.push(
                        Entry {
                            key: m.parent.0,
                            value: v.clone(),
                            node,
                            step: self.step,
                            size: size as u32,
                        },
                        depth,
                        &mut self.visible,
                    );
                }
            }
        }
        parent.phase = Phase::Returned;
        parent.attempt = 1;
        // The callee's last edge is not the caller's (snapshots name it).
        self.incoming = None;
        self.emit_writes(depth, first, node);
        if self.out.on() {
            let ev = Event::WorkflowPop {
                step: self.step,
                workflow: self.wf_name(child.workflow),
                caller: self.wf_name(wf),
                node: self.node_name(wf, node),
                depth: depth + 1,
            };
            self.out.emit(&ev);
            let ev = Event::NodeEnter {
                step: self.step,
                workflow: self.wf_name(wf),
                node: self.node_name(wf, node),
                depth,
            };
            self.out.emit(&ev);
        }
        self.spare.push(child);
    }
}
