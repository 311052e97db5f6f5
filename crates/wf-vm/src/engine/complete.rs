//! Completing a workflow at its terminal: goal gates, the completion's
//! writes, then `engine:complete` or the return to the caller.

use super::Engine;
use crate::agent::Status;
use crate::blackboard::{Entry, Phase};
use crate::contract;
use crate::event::Event;
use crate::failure::FailureKind;
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
                    self.record_failure(wf, node, FailureKind::Route, reason);
                    self.emit_exit(wf, node, depth, Status::Fail);
                    self.move_to(t);
                }
                None => {
                    let reason = format!("{what} and no retry target is set");
                    self.record_failure(wf, node, FailureKind::Route, reason.clone());
                    if depth > 1 {
                        self.emit_exit(wf, node, depth, Status::Fail);
                    }
                    self.workflow_failed(reason.clone(), reason);
                }
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
        // A callee that completes where failure routing brought it ends at
        // a failure exit: its caller's call node fails.
        let failure = self.frames[depth - 1].entered_by_failure.then(|| {
            format!(
                "workflow `{}` ended at its failure exit `{}`",
                self.wf_name(wf),
                self.node_name(wf, node)
            )
        });
        self.pop(true, failure);
    }

    /// The current workflow failed and did not handle it (`run` and
    /// `caller` say why; the failure is already in the trace). The root:
    /// the run fails with `run`. A callee: its frame is popped without its
    /// return map, and the next step fails the caller's call node with
    /// `caller`, where retries and failure routing apply.
    pub(super) fn workflow_failed(&mut self, run: String, caller: String) {
        if self.frames.len() == 1 {
            self.end_failed(run);
        } else {
            self.pop(false, Some(caller));
        }
    }

    /// Returns from the current frame: the return map into the caller
    /// (when `return_map`), then `workflow:pop` and `node:enter` at the call
    /// node. With `failure`, the call node's outcome will be `fail`.
    fn pop(&mut self, return_map: bool, failure: Option<String>) {
        let child = self.frames.pop().expect("depth > 1");
        self.visible.pop(&child);
        self.bb_bytes -= child.bytes;
        // The return map copies program keys only, so the callee's own
        // keys can go now.
        self.keys.truncate(child.key_mark);
        let depth = self.frames.len();
        let parent = self.frames.last_mut().expect("depth > 1");
        let (wf, node) = (parent.workflow, parent.node);
        let call_node = &self.program.workflows[wf.0 as usize].nodes[node.0 as usize];
        let first = parent.entries.len();
        if let Some(call) = call_node.call.as_ref().filter(|_| return_map) {
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
        // The attempt is kept: a call node's retries count calls.
        parent.callee_failure = failure;
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
