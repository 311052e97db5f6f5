//! `steer` in `manager.actions` (seed 4.11): the manager writes
//! intervention instructions into the child's active stage directory,
//! `{child run dir}/{node}/intervention.md`, where the child's codergen
//! stage adds them to its prompt (see `builtin::Codergen`) and a backend
//! or tool can read them.

use super::super::RunFiles;

/// The file the instructions go to, in a stage directory.
pub const INTERVENTION_FILE: &str = "intervention.md";

/// The heading the codergen handler puts before the instructions.
pub const HEADING: &str = "## Instructions from the supervisor";

/// Writes `instructions` for the child's node `node`. `Err` says why it
/// could not (the manager then fails: its steering would be lost).
pub fn intervene(files: &RunFiles, node: &str, instructions: &str) -> Result<(), String> {
    files
        .write_text(node, INTERVENTION_FILE, instructions)
        .map_err(|e| format!("cannot write the child's `{node}/{INTERVENTION_FILE}`: {e}"))
}

/// The instructions waiting in the stage directory of `node`, if any.
pub fn pending(files: &RunFiles, node: &str) -> Option<String> {
    let text = std::fs::read_to_string(files.stage_path(node).join(INTERVENTION_FILE)).ok()?;
    Some(text).filter(|t| !t.trim().is_empty())
}
