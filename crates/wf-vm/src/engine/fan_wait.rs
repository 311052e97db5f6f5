//! `.wf` branches that wait at a `human` node (docs/runtime.md, "Gates in
//! parallel branches"): the branch is journaled where it stands, the
//! fan-out suspends the run with every question recorded through the
//! run's store, and the resumed fan-out restores the branch there.

use super::Engine;
use super::fan_branch::Env;
use crate::attractor::parallel::journal::{Journal, Waiting};
use crate::question::{PendingQuestion, WaitingQuestions};

/// What the branch `engine` (from the node `id`), suspended by its agent,
/// waits on: the question of the node that asks where it stands, else
/// those a fan-out nested in it left in `nested` (its engine's list,
/// [`Engine::set_waiting_questions`]), all of them put in `asked` (the
/// first is the waiting branch's); `None` when it waits on none.
pub(super) fn waiting(
    env: &Env<'_>,
    id: &str,
    engine: &mut Engine<'_>,
    nested: Option<&WaitingQuestions>,
    asked: &mut Vec<PendingQuestion>,
) -> Option<Waiting> {
    let scope = engine.config.question_scope.clone();
    let q = match crate::question::pending(env.program, engine) {
        Some(mut q) => {
            let w = &env.program.workflows[env.wf.0 as usize];
            q.id = format!("{scope}{}", q.id);
            q.place = format!(
                "branch `{id}` of parallel node `{}`",
                env.program.str(w.nodes[env.fan_out.0 as usize].id)
            );
            q
        }
        None => {
            let w = &env.program.workflows[env.wf.0 as usize];
            // Where each is asked says every place on the way, as its id.
            let within = format!(
                ", in branch `{id}` of parallel node `{}`",
                env.program.str(w.nodes[env.fan_out.0 as usize].id)
            );
            *asked = nested?
                .borrow()
                .iter()
                .filter(|q| q.id.starts_with(&scope))
                .map(|q| {
                    let mut q = q.clone();
                    q.place.push_str(&within);
                    q
                })
                .collect();
            asked.first()?.clone()
        }
    };
    Some(Waiting {
        question: q,
        snapshot: engine.snapshot(),
        events: Vec::new(),
        decided: Vec::new(),
    })
}

impl Engine<'_> {
    /// Suspends the fan-out whose branches wait on `questions`: records
    /// them through the run's store (for `wfc status` and `wfc answer`),
    /// notes the journal for the step that asks the node again, and
    /// returns the suspension's reason.
    pub(super) fn fan_suspend(
        &mut self,
        journal: &Journal,
        questions: &[PendingQuestion],
    ) -> String {
        let ids: Vec<String> = questions.iter().map(|q| format!("`{}`", q.id)).collect();
        let mut reason = match questions {
            [q] => format!(
                "waiting for an answer to question {} in {}",
                ids[0], q.place
            ),
            _ => format!(
                "waiting for answers to {} questions in parallel branches: {}",
                questions.len(),
                ids.join(", ")
            ),
        };
        // The suspension is this step; the run then stands after it.
        let after = self.step + 1;
        match self.out.log.as_mut() {
            Some(log) => {
                if let Err(e) = crate::question::record(log.store(), after, questions) {
                    reason.push_str(&format!(
                        " (the questions could not be recorded ({e}): a resumed run asks them again)"
                    ));
                }
            }
            // A branch's engine: the branch waits where it stands, and its
            // fan-out passes the questions up to the run.
            None => {
                if let Some(list) = &self.out.questions {
                    list.borrow_mut().extend(questions.iter().cloned());
                }
            }
        }
        if let Err(e) = journal.suspend(after) {
            reason.push_str(&format!(
                " (the finished branches could not be noted ({e}): a resumed run runs them again)"
            ));
        }
        reason
    }
}
