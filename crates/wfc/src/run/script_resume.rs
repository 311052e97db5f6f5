//! The `script:` agent of a resumed run: its position in each node's
//! answer list is derived from the run's log (the single source of truth),
//! so a resumed scripted run gives the answers an uninterrupted run would.

use wf_vm::agents::ScriptAgent;
use wf_vm::{DecisionAgent, RunDir, StepInput};

/// The script at `file`, past the answers the run in `dir` already took:
/// one per agent decision its log records (a decision the engine made of a
/// timeout, `failure` set, took none).
pub fn resumed_script(
    file: &std::path::Path,
    dir: &RunDir,
) -> Result<Box<dyn DecisionAgent>, String> {
    let mut script = ScriptAgent::from_file(file)?;
    let records = dir
        .read_log()
        .map_err(|e| format!("cannot read the run's log: {e}"))?;
    let answered: Vec<(String, String)> = records
        .iter()
        .filter(|(_, r)| matches!(r.input, StepInput::Decision { failure: None, .. }))
        .filter_map(|(_, r)| {
            // The decided node: the first event naming a workflow and node
            // (`node:exit`, or `engine:suspend` for a suspension).
            r.events.iter().find_map(|e| {
                Some((
                    e.get("workflow")?.as_str()?.to_owned(),
                    e.get("node")?.as_str()?.to_owned(),
                ))
            })
        })
        .collect();
    script.skip_answered(answered.iter().map(|(w, n)| (w.as_str(), n.as_str())));
    Ok(Box::new(script))
}
