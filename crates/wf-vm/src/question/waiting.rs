//! The questions a suspended run waits on, kept in its [`RunStore`]: one
//! path for questions and answers, whatever the store (docs/runtime.md,
//! "Gates in parallel branches").
//!
//! A run that suspends records every question it waits on with
//! [`record`] (the question of the node it stands at, and those of the
//! gates its parallel branches wait at), each noting the step count the
//! run has once suspended: the engine does, before it logs the step that
//! suspends (engine/ask.rs), so a kill cannot leave a suspended run
//! without its questions; `wfc status` and `wfc answer` read back those
//! of the step count the log has with [`current`] (one recorded for a
//! step the kill kept from the log is not). `wfc answer` records an answer with
//! [`RunStore::record_answer`], and the resumed run takes the answers
//! recorded since with [`answers`].

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::Value;

use super::{AnswerRecord, PendingQuestion};
use crate::persist::PersistError;
use crate::store::RunStore;

/// Where the gates of a run's parallel branches and child pipelines
/// leave the questions they wait on when their fan-out or manager
/// suspends (the engine records them with [`record`] before it logs the
/// suspension: `Engine::set_waiting_questions`).
pub type WaitingQuestions = Rc<RefCell<Vec<PendingQuestion>>>;

/// The member of a recorded question naming the step the run suspended at.
const AT: &str = "suspended_at";

/// Records `questions`, which the run suspended after `steps` steps waits
/// on.
pub fn record(
    store: &mut dyn RunStore,
    steps: u64,
    questions: &[PendingQuestion],
) -> Result<(), PersistError> {
    for q in questions {
        let mut value = serde_json::to_value(q).expect("questions serialise");
        value[AT] = Value::from(steps);
        store.record_question(&q.id, &value)?;
    }
    Ok(())
}

/// The questions recorded for the suspension after `steps` steps, in the
/// order asked, each with the answer recorded for it since (if any).
pub fn current(
    store: &dyn RunStore,
    steps: u64,
) -> Result<Vec<(PendingQuestion, Option<AnswerRecord>)>, PersistError> {
    let mut out = Vec::new();
    for r in store.questions()? {
        if r.question.get(AT).and_then(Value::as_u64) != Some(steps) {
            continue;
        }
        let Ok(q) = serde_json::from_value::<PendingQuestion>(r.question) else {
            continue;
        };
        let answer = r.answer.and_then(|a| serde_json::from_value(a).ok());
        out.push((q, answer));
    }
    Ok(out)
}

/// The answers recorded for the run's questions that the next resume
/// applies: those to the questions of its latest suspension (a run
/// directory: also only those recorded since its last step; and an
/// answer an older `wfc answer` recorded with no question).
pub fn answers(store: &dyn RunStore) -> Result<Vec<AnswerRecord>, PersistError> {
    let records = store.questions()?;
    let at = |q: &Value| q.get(AT).and_then(Value::as_u64);
    let latest = records.iter().filter_map(|r| at(&r.question)).max();
    let mut out = Vec::new();
    for r in records {
        if at(&r.question).is_some_and(|s| Some(s) != latest) {
            continue;
        }
        if let Some(a) = r.answer {
            let a: AnswerRecord = serde_json::from_value(a).map_err(|e| {
                store.corrupt(
                    crate::store::StorePart::Log,
                    None,
                    format!("the answer to `{}` is not an answer record: {e}", r.id),
                )
            })?;
            out.push(a);
        }
    }
    Ok(out)
}
