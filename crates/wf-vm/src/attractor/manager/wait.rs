//! A child pipeline that waits at a gate (docs/runtime.md, "Gates in
//! parallel branches"): the manager node keeps the child's engine where
//! it stands (`{manager node}/child.waiting.json`) and suspends the run;
//! asked again at the step it names, it restores the child there, whose
//! gate then takes the answer recorded for its scoped id.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use wf_ir::IrProgram;

use crate::attractor::RunFiles;
use crate::engine::{Engine, Snapshot};
use crate::question::{PendingQuestion, WaitingQuestions};

/// Where a child waits, and for which step of the parent.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChildWaiting {
    /// The question, its id scoped to the manager node and its visit
    /// (`manager#1/child/review#1`).
    pub question: PendingQuestion,
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

fn path(files: &RunFiles, node: &str) -> PathBuf {
    files.stage_path(node).join("child.waiting.json")
}

/// The child the manager node `node` left waiting for step `step`.
pub fn load(files: &RunFiles, node: &str, step: u64) -> Option<ChildWaiting> {
    let w: ChildWaiting = serde_json::from_slice(&std::fs::read(path(files, node)).ok()?).ok()?;
    (w.resume_step == step).then_some(w)
}

/// Keeps `waiting`, atomically and durably.
pub fn save(files: &RunFiles, node: &str, waiting: &ChildWaiting) -> std::io::Result<()> {
    let dir = files.stage_dir(node)?;
    files.write_json(
        &path(files, node),
        &serde_json::to_value(waiting).expect("serialises"),
    )?;
    std::fs::File::open(dir)?.sync_all()
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
    let nested: Vec<PendingQuestion> = asked?
        .borrow()
        .iter()
        .filter(|q| q.id.starts_with(scope))
        .cloned()
        .collect();
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
