//! A graceful stop (`crate::interrupt`): the step a signal cut short, or
//! the next step that would ask the agent or run a tool, becomes a
//! suspension of kind `interrupted` (docs/runtime.md, "Interrupting and
//! cancelling a run"). It is logged as an agent error that suspends
//! (`StepInput::AgentError`), so a resume asks again at the same node and
//! a replay reaches the same suspension.

use wf_ir::{NodeIdx, WorkflowIdx};

use super::{Engine, StepInput};
use crate::agent::{Decision, Status};
use crate::failure::FailureKind;

/// Whether a step's input shows work that finished: an outcome that
/// neither failed nor asks for a retry (a kill makes a tool fail and a
/// handler retry), `complete`, or a reused effect. A suspension is not
/// kept either: an Attractor fan-out suspends when a branch was
/// interrupted, and either way the resumed run asks the node again.
fn finished(input: &StepInput) -> bool {
    match input {
        StepInput::Tool { outcome, .. }
        | StepInput::Decision {
            decision: Decision::Advance(outcome),
            ..
        } => !matches!(outcome.status, Status::Fail | Status::Retry),
        StepInput::Decision {
            decision: Decision::Complete { .. },
            ..
        }
        | StepInput::Reused { .. } => true,
        _ => false,
    }
}

impl Engine<'_> {
    /// The signal that asked this engine to stop, when it stops for one.
    pub(super) fn interrupt_requested(&self) -> Option<i32> {
        if !self.config.stop_on_interrupt {
            return None;
        }
        crate::interrupt::requested()
    }

    /// The input of a step interrupted by `signal`.
    pub(super) fn interrupted_input(signal: i32) -> StepInput {
        StepInput::AgentError {
            message: crate::interrupt::signal_name(signal),
            suspended: true,
            failure: Some(FailureKind::Interrupted),
        }
    }

    /// `input`, the result of a step that ran, or the interruption when a
    /// stop was requested meanwhile and the step did not finish: a failed
    /// or retried outcome or an agent error may be the kill's doing, so it
    /// is not applied (a fan-out is always run again: its finished
    /// branches are journaled). A step that finished is kept; the next one
    /// stops.
    pub(super) fn unless_interrupted(
        &mut self,
        wf: WorkflowIdx,
        node: NodeIdx,
        input: StepInput,
        fan_out: bool,
    ) -> StepInput {
        let Some(signal) = self.interrupt_requested() else {
            return input;
        };
        if !fan_out && finished(&input) {
            return input;
        }
        self.carry_started(wf, node);
        Self::interrupted_input(signal)
    }
}

impl Engine<'_> {
    /// Applies an interrupted step: the failure trace records it (kind
    /// `interrupted`), `engine:interrupt` then `engine:suspend` are
    /// emitted, and the run is suspended at `node`, whose state is left as
    /// it was.
    pub(super) fn suspend_interrupted(&mut self, wf: WorkflowIdx, node: NodeIdx, signal: &str) {
        let reason = format!(
            "interrupted by {signal} at node `{}` of workflow `{}`",
            self.node_name(wf, node),
            self.wf_name(wf)
        );
        self.record_failure(wf, node, FailureKind::Interrupted, reason.clone());
        if self.out.on() {
            let ev = crate::event::Event::EngineInterrupt {
                step: self.step,
                workflow: self.wf_name(wf),
                node: self.node_name(wf, node),
                kind: FailureKind::Interrupted,
                signal,
            };
            self.out.emit(&ev);
        }
        self.apply_decision(
            crate::agent::Decision::Suspend { reason },
            FailureKind::Interrupted,
        );
    }
}
