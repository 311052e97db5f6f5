//! A child pipeline's own folder (docs/runtime.md, "Durable fan-outs").
//!
//! The child runs inside the manager node's step, in an engine with no
//! log: killed half-way, the resumed run asks the manager node again at
//! the same step and the child runs again from its start. So that it does
//! not repeat what it had finished, a child of a durable run has a folder
//! of its own, `{manager node}/child-journals/step-N/` (`N` the parent's
//! step the child started at; a later visit of the node is another step,
//! and starts a child of its own), laid out as a run directory:
//!
//! - `{node}/branches/step-M/`: the journal of the child's fan-out `node`
//!   run at the child's step `M` (the child run again takes the same
//!   steps to it), with each inner branch's own folder;
//! - `effects.jsonl`: the child engine's keyed effects, reused when it
//!   runs again (engine/fan_durable.rs).
//!
//! The manager's folder is in the folder its own pipeline journals in:
//! the run directory for the root pipeline, a branch's or a child's own
//! folder deeper down, recursively.

use std::path::PathBuf;

use crate::attractor::RunFiles;
use crate::attractor::parallel::Kit;

/// The own folder of the child that the manager node `node`, in the
/// pipeline `kit` runs, started at the parent's step `step`; `None`
/// when nothing is journaled (no run directory).
pub fn folder(kit: &Kit, files: Option<&RunFiles>, node: &str, step: u64) -> Option<PathBuf> {
    Some(
        kit.journal_root(files)?
            .join(crate::attractor::safe_name(node))
            .join("child-journals")
            .join(format!("step-{step}")),
    )
}
