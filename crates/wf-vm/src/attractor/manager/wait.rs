//! A child pipeline that waits at a gate (docs/runtime.md, "Gates in
//! parallel branches"): the manager node keeps the child's engine where
//! it stands (`child.waiting.json` in the manager's folder, [`place`]) and
//! suspends the run; asked again at the step it names, it restores the
//! child there, whose gate then takes the answer recorded for its scoped
//! id. A child that an agent error suspended is kept the same way, with
//! no question, so the resumed run tries its step again.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use wf_ir::IrProgram;

use crate::agent::{AgentError, Decision};
use crate::attractor::RunFiles;
use crate::attractor::parallel::Kit;
use crate::engine::{Engine, Snapshot};
use crate::question::{PendingQuestion, WaitingQuestions};

/// Where a child waits, and for which step of the parent.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChildWaiting {
    /// The question, its id scoped to the manager node and its visit
    /// (`manager#1/child/review#1`); `None` for a child an agent error
    /// suspended (its step is tried again).
    pub question: Option<PendingQuestion>,
    /// The child's engine, suspended at the gate.
    pub snapshot: Snapshot,
    /// The manager's cycles that ended before the one the child waits in
    /// (which goes on when it is restored).
    pub cycles: u64,
    /// The parent's step that asks the manager node again (the one after
    /// the suspension): only it restores the child, so a later visit of
    /// the node starts a child of its own.
    pub resume_step: u64,
    /// The parent's step the child started at (its own folder's,
    /// `super::journal`); `None` in files of older versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_step: Option<u64>,
}

/// The folder where the manager node `node`, in the pipeline whose
/// handlers `kit` holds, keeps its waiting child: its node folder in the
/// folder its pipeline journals in (`Kit::journal_root`), the run
/// directory's for the root pipeline (`{node}/`), a branch's or a child's
/// own folder deeper down (`{fan}/branches/step-N/INDEX/{node}/`), so two
/// places that run the same manager node never share one; `None` without
/// a run directory.
pub fn place(kit: &Kit, files: Option<&RunFiles>, node: &str) -> Option<PathBuf> {
    Some(
        kit.journal_root(files)?
            .join(crate::attractor::safe_name(node)),
    )
}

const FILE: &str = "child.waiting.json";

/// The child kept in `place` for the step `step`.
pub fn load(place: &Path, step: u64) -> Option<ChildWaiting> {
    let w: ChildWaiting = serde_json::from_slice(&std::fs::read(place.join(FILE)).ok()?).ok()?;
    (w.resume_step == step).then_some(w)
}

/// Keeps `waiting` in `place`, atomically and durably.
pub fn save(place: &Path, waiting: &ChildWaiting) -> std::io::Result<()> {
    std::fs::create_dir_all(place)?;
    RunFiles::new(place).write_json(
        &place.join(FILE),
        &serde_json::to_value(waiting).expect("serialises"),
    )?;
    std::fs::File::open(place)?.sync_all()
}

/// What the suspended child of the manager node `node` waits on, its ids
/// scoped `scope`: the question of the gate it stands at (`true`: the
/// manager lists it), else those a fan-out nested in it left in `asked`
/// (`false`: listed there already); `None` when it waits on none.
pub fn questions(
    program: &IrProgram,
    child: &mut Engine<'_>,
    scope: &str,
    asked: Option<&WaitingQuestions>,
    node: &str,
) -> Option<(Vec<PendingQuestion>, bool)> {
    if let Some(mut q) = crate::question::pending(program, child) {
        q.id = format!("{scope}{}", q.id);
        q.place = format!("the child pipeline of manager node `{node}`");
        return Some((vec![q], true));
    }
    let mut nested: Vec<PendingQuestion> = Vec::new();
    for q in asked?.borrow_mut().iter_mut() {
        if q.id.starts_with(scope) {
            // Where it is asked says every place on the way, as its id.
            q.place
                .push_str(&format!(", in the child pipeline of manager node `{node}`"));
            nested.push(q.clone());
        }
    }
    (!nested.is_empty()).then_some((nested, false))
}

/// Why the run suspends for a child that waits on `questions` (not
/// empty).
pub fn reason(questions: &[PendingQuestion]) -> String {
    match questions {
        [q] => format!(
            "waiting for an answer to question `{}` in {}",
            q.id, q.place
        ),
        _ => {
            let ids: Vec<String> = questions.iter().map(|q| format!("`{}`", q.id)).collect();
            format!(
                "waiting for answers to {} questions in a child pipeline: {}",
                questions.len(),
                ids.join(", ")
            )
        }
    }
}

/// The manager's answer for a child that an agent error suspended (in
/// the child, or in a fan-out nested in it), described by `waiting` (no
/// question): the child is kept in `place`, so the resumed run restores
/// it and tries its step again, and the suspension is passed up. In the
/// pipeline itself (`depth` 0) the run suspends, as for an agent error of
/// its own; deeper down it is an agent error of the branch or child the
/// manager runs in, which then suspends the same way up to the run (a
/// branch cannot be resumed on its own: docs/runtime.md, "A branch
/// suspended by an agent error").
pub fn errored(
    place: Option<&Path>,
    waiting: &ChildWaiting,
    depth: u32,
    mut reason: String,
) -> Result<Decision, AgentError> {
    if let Some(place) = place
        && let Err(e) = save(place, waiting)
    {
        reason.push_str(&format!(
            " (where the child stands could not be kept ({e}): a resumed run starts it again)"
        ));
    }
    match depth {
        0 => Ok(Decision::Suspend { reason }),
        _ => Err(AgentError { message: reason }),
    }
}
