//! A called workflow's own `max_steps` and `wall_clock`: budgets nested
//! in the run's. A callee over its budget ends there and its call node
//! fails, as a node does (routing, retries and the failure trace apply).

use super::Engine;
use super::support::failed;
use crate::agent::Status;
use crate::blackboard::Phase;
use crate::event::Event;

impl Engine<'_> {
    /// The outermost callee over its own budget at the start of this step,
    /// as its depth and the reason. `clock`: the clock was read this step
    /// (wall-clock budgets are checked then only).
    pub(super) fn over_budget(&self, clock: bool) -> Option<(usize, String)> {
        for (i, f) in self.frames.iter().enumerate().skip(1) {
            let (max_steps, wall_clock) = self.info[f.workflow.0 as usize].budget;
            let (pushed_step, pushed_at) = f.pushed;
            let what = || {
                let caller = &self.frames[i - 1];
                format!(
                    "workflow `{}`, called by node `{}` of workflow `{}`",
                    self.wf_name(f.workflow),
                    self.node_name(caller.workflow, caller.node),
                    self.wf_name(caller.workflow)
                )
            };
            // The push is the caller's step; the callee's run from the next.
            if let Some(max) = max_steps
                && self.step - pushed_step > max
            {
                let reason = format!(
                    "{}, reached its own limit of {max} steps (max_steps)",
                    what()
                );
                return Some((i + 1, reason));
            }
            if let Some(limit) = wall_clock
                && clock
                && self.elapsed.saturating_sub(pushed_at) > limit
            {
                let reason = format!(
                    "{}, exceeded its own wall-clock limit of {} ms (wall_clock)",
                    what(),
                    limit.as_millis()
                );
                return Some((i + 1, reason));
            }
        }
        None
    }

    /// Ends the callee at `depth` and every frame above it (`node:exit`
    /// with `fail` at each one's node, then `workflow:pop`), then fails
    /// the call node in the caller with `reason`.
    pub(super) fn fail_call(&mut self, depth: usize, reason: String) {
        while self.frames.len() >= depth {
            let child = self.frames.pop().expect("depth >= 2");
            self.visible.pop(&child);
            self.bb_bytes -= child.bytes;
            self.keys.truncate(child.key_mark);
            let d = self.frames.len() + 1;
            self.emit_exit(child.workflow, child.node, d, Status::Fail);
            let caller = self.frames.last().expect("depth >= 2");
            if self.out.on() {
                let ev = Event::WorkflowPop {
                    step: self.step,
                    workflow: self.wf_name(child.workflow),
                    caller: self.wf_name(caller.workflow),
                    node: self.node_name(caller.workflow, caller.node),
                    depth: d,
                };
                self.out.emit(&ev);
            }
            self.spare.push(child);
        }
        // The edge the callee's node was entered by is not the caller's.
        self.incoming = None;
        let (wf, node, depth) = self.position();
        if self.out.on() {
            let ev = Event::NodeEnter {
                step: self.step,
                workflow: self.wf_name(wf),
                node: self.node_name(wf, node),
                depth,
            };
            self.out.emit(&ev);
        }
        // A retry of the call node calls the callee again.
        self.frames[depth - 1].phase = Phase::Entered;
        if self.compute_valid(wf, node, Status::Fail.as_str(), None) {
            self.apply_advance(failed(reason), false, crate::failure::FailureKind::Limit);
        }
    }
}
