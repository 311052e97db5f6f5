//! The `script:` agent of a resumed run: its position in each node's
//! answer list is derived from the run's records (the log the single
//! source of truth, the branch journals for the fan-outs' branches), so a
//! resumed scripted run gives the answers an uninterrupted run would
//! (docs/agents.md, "Resumed scripts").

use std::path::Path;

use serde_json::Value;
use wf_vm::agents::ScriptAgent;
use wf_vm::{DecisionAgent, RunDir, StepInput};

/// The script at `file`, past the answers the run in `dir` already took:
/// one per agent decision its log records (a decision the engine made of a
/// timeout, `failure` set, took none; nor did one `wfc answer` gave,
/// [`answered_steps`]), and one per decision of each finished, journaled
/// branch of a fan-out ([`folder_decisions`]).
pub fn resumed_script(
    file: &std::path::Path,
    dir: &RunDir,
) -> Result<Box<dyn DecisionAgent>, String> {
    let mut script = ScriptAgent::from_file(file)?;
    let records = dir
        .read_log()
        .map_err(|e| format!("cannot read the run's log: {e}"))?;
    let steps: Vec<usize> = records.iter().map(|(line, _)| *line).collect();
    let given = answered_steps(dir, &steps);
    let mut answered: Vec<(String, String)> = records
        .iter()
        .filter(|(_, r)| matches!(r.input, StepInput::Decision { failure: None, .. }))
        .filter_map(|(line, r)| {
            // The decided node: the first event naming a workflow and node
            // (`node:exit`, or `engine:suspend` for a suspension).
            let at = r.events.iter().find_map(|e| {
                Some((
                    e.get("workflow")?.as_str()?.to_owned(),
                    e.get("node")?.as_str()?.to_owned(),
                ))
            })?;
            (!given.contains(&(*line, at.0.clone(), at.1.clone()))).then_some(at)
        })
        .collect();
    folder_decisions(dir.path(), &mut answered);
    script.skip_answered(answered.iter().map(|(w, n)| (w.as_str(), n.as_str())));
    Ok(Box::new(script))
}

/// The steps of the log that an answer `wfc answer` recorded decided, as
/// `(line, workflow, node)`: an answer line (`{"answer": …}`) is applied
/// by the step that follows it (the first of `steps`, the log's step
/// lines as `RunDir::read_log` numbers them, after it), at the node its
/// question names, in the run's own scope (a question of a branch,
/// `fan#1/a/review#1`, is answered inside the branch, which notes no
/// script answer for it).
fn answered_steps(dir: &RunDir, steps: &[usize]) -> Vec<(usize, String, String)> {
    let Ok(text) = std::fs::read(dir.log_path()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        if !line.starts_with(br#"{"answer":"#) {
            continue;
        }
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        let a = &v["answer"];
        let (Some(w), Some(n), Some(q)) = (
            a["workflow"].as_str(),
            a["node"].as_str(),
            a["question"].as_str(),
        ) else {
            continue;
        };
        if let Some(&step) = steps.iter().find(|&&s| s > i + 1)
            && !q.contains('/')
        {
            out.push((step, w.to_owned(), n.to_owned()));
        }
    }
    out
}

/// Adds the decisions journaled in `dir` (a run directory, or the own
/// folder of a branch or of a child pipeline, laid out alike):
///
/// - `branches/{workflow}/{node}/step-N/`: the journals of a `.wf` run's
///   fan-outs;
/// - `{stage}/branches/step-N/`: those of a pipeline's fan-outs;
/// - `{stage}/child-journals/step-N/`: the own folder of a child pipeline
///   a manager node ran, read the same way (its fan-outs' finished
///   branches are kept whether the child finished or runs again).
///
/// A journaled branch is never run again (its fan-out, run again, takes
/// its result; a fan-out the log completed is not run again), so its
/// answers are used up; so are those a branch waiting at a gate gave
/// before it (it is restored there). A branch with no result (killed)
/// runs again from its start and is asked again: its answers are not
/// skipped, except those of the finished branches of fan-outs nested in
/// it, journaled in its own folder `step-N/INDEX/`, read the same way.
fn folder_decisions(dir: &Path, out: &mut Vec<(String, String)>) {
    for workflow in sorted_dirs(&dir.join("branches")) {
        for node in sorted_dirs(&workflow) {
            for step in sorted_dirs(&node) {
                journal_decisions(&step, out);
            }
        }
    }
    for stage in sorted_dirs(dir) {
        for step in sorted_dirs(&stage.join("branches")) {
            journal_decisions(&step, out);
        }
        for child in sorted_dirs(&stage.join("child-journals")) {
            folder_decisions(&child, out);
        }
    }
}

/// One fan-out's journal (`step-N/`): per branch `INDEX`, its result
/// `INDEX.json`, where it waits at a gate `INDEX.waiting.json`, its own
/// folder `INDEX/`.
fn journal_decisions(step: &Path, out: &mut Vec<(String, String)>) {
    let mut indices: Vec<usize> = entries(step)
        .iter()
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?;
            let index = name.split('.').next()?;
            index.parse().ok()
        })
        .collect();
    indices.sort_unstable();
    indices.dedup();
    for index in indices {
        let read = |name: String| {
            std::fs::read(step.join(name))
                .ok()
                .and_then(|t| serde_json::from_slice::<Value>(&t).ok())
        };
        if let Some(doc) = read(format!("{index}.json")).filter(|d| d.get("result").is_some()) {
            // Finished: its decisions, nested ones included.
            decided(&doc["decided"], out);
        } else if let Some(doc) = read(format!("{index}.waiting.json")) {
            // Restored at its gate: the decisions before it stay taken.
            decided(&doc["waiting"]["decided"], out);
        } else {
            // Runs again: only its nested fan-outs' finished branches stay.
            folder_decisions(&step.join(index.to_string()), out);
        }
    }
}

/// The entries of a `decided` list (`{"workflow", "node"}` objects).
fn decided(list: &Value, out: &mut Vec<(String, String)>) {
    for d in list.as_array().into_iter().flatten() {
        if let (Some(w), Some(n)) = (d["workflow"].as_str(), d["node"].as_str()) {
            out.push((w.to_owned(), n.to_owned()));
        }
    }
}

/// The sub-folders of `dir`, by name (none when it cannot be read).
fn sorted_dirs(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = entries(dir).into_iter().filter(|p| p.is_dir()).collect();
    v.sort();
    v
}

fn entries(dir: &Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .map(|it| it.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}
