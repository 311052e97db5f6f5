//! The questions a durable run suspends on are recorded before the step
//! that suspends it is logged (docs/runtime.md, "Gates in parallel
//! branches").
//!
//! Recorded after it, a process killed between the two writes left a
//! suspended run that listed no question: `wfc status` showed none and
//! `wfc answer` had nothing to answer. Recorded before it, each question
//! names the step count the run has once the suspension is logged
//! (`suspended_at`), and readers take only those of the step count the
//! log has ([`crate::question::current`]): a question recorded for a step
//! the kill kept from the log is ignored, and the resumed run, which asks
//! the node again, records it again.

use super::Engine;
use crate::question::WaitingQuestions;

impl Engine<'_> {
    /// Shares the list where handlers leave the questions their nested
    /// engines wait on (the gates of an Attractor fan-out's branches or of
    /// a child pipeline, `attractor::parallel::Kit::waiting`): when a step
    /// suspends the run, the engine records them through its store with
    /// the question of the node it stands at, before it logs the step.
    /// The list keeps them for the embedder (its hints) until the next
    /// step starts.
    pub fn set_waiting_questions(&mut self, questions: WaitingQuestions) {
        self.out.questions = Some(questions);
    }

    /// A step starts: the list holds only what its handlers leave (a
    /// question left by a nested handler whose branch or child did not
    /// wait is not the run's).
    pub(super) fn forget_waiting_questions(&mut self) {
        if let Some(q) = &self.out.questions {
            q.borrow_mut().clear();
        }
    }

    /// Before a live step's log record: when the step suspended a durable
    /// run, records every question it waits on, each noting the step
    /// count the logged suspension gives the run. A failure leaves a
    /// warning (a resumed run asks the questions again).
    pub(super) fn record_questions(&mut self) {
        if self.out.log.is_none() || !matches!(self.status, crate::RunStatus::Suspended { .. }) {
            return;
        }
        let mut questions: Vec<_> = crate::question::pending(self.program, self)
            .into_iter()
            .collect();
        if let Some(waiting) = &self.out.questions {
            for q in waiting.borrow().iter() {
                if !questions.iter().any(|k| k.id == q.id) {
                    questions.push(q.clone());
                }
            }
        }
        if questions.is_empty() {
            return;
        }
        let steps = self.step;
        let log = self.out.log.as_mut().expect("checked above");
        if let Err(e) = crate::question::record(log.store(), steps, &questions) {
            self.persist_warning = Some(format!(
                "the questions the run waits on could not be recorded ({e}): `wfc run --resume` asks them again"
            ));
        }
    }
}
