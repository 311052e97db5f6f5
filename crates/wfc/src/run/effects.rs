//! `wfc run --resume DIR --assume-done NODE [--outputs JSON]` /
//! `--rerun NODE` / `--cancel`, and the compensations in the summary (effects that
//! happen once: `docs/runtime.md`).

use serde_json::Value;
use wf_vm::Engine;
use wf_vm::effects::{Compensation, PendingEffect, Resolution};

use super::RunArgs;

/// Hands the user's settlements of pending `at_most_once` nodes to the
/// resumed engine; an error when none is pending, a node named is not, or
/// a node is named twice.
pub fn settle(engine: &mut Engine<'_>, args: &RunArgs) -> Result<(), String> {
    if args.cancel {
        return engine
            .cancel("`wfc run --resume --cancel`")
            .map_err(|e| format!("error: cannot cancel: {e}"));
    }
    if args.outputs.len() > args.assume_done.len() {
        return Err(format!(
            "error: {} --outputs for {} --assume-done: the Nth --outputs is the Nth --assume-done node's",
            args.outputs.len(),
            args.assume_done.len()
        ));
    }
    let mut resolutions = Vec::new();
    for (i, node) in args.assume_done.iter().enumerate() {
        resolutions.push(Resolution::AssumeDone {
            node: node.clone(),
            writes: outputs(args.outputs.get(i).map(String::as_str))?,
        });
    }
    for node in &args.rerun {
        resolutions.push(Resolution::Rerun { node: node.clone() });
    }
    for resolution in resolutions {
        engine
            .resolve_effect(resolution)
            .map_err(|e| format!("error: cannot resume: {e}"))?;
    }
    Ok(())
}

/// The hint of a run waiting on several unsettled nodes: one line each,
/// then one command settling them all (as done: the user edits it).
pub fn several_hint(dir: &str, pending: &[PendingEffect]) -> String {
    let mut out = format!(
        "hint: {} at_most_once nodes may or may not have taken effect; settle each, in one command:\n",
        pending.len()
    );
    for p in pending {
        out.push_str(&format!(
            "  `{}`: `--assume-done {}` if it took effect, `--rerun {}` if not\n",
            p.node, p.node, p.node
        ));
    }
    let flags: Vec<String> = (pending.iter())
        .map(|p| format!("--assume-done {}", p.node))
        .collect();
    out.push_str(&format!(
        "  e.g. `wfc run --resume {dir} {}`\n",
        flags.join(" ")
    ));
    out
}

/// The writes of `--outputs`: a JSON object, in its order.
fn outputs(text: Option<&str>) -> Result<Vec<(String, Value)>, String> {
    let Some(text) = text else {
        return Ok(Vec::new());
    };
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map.into_iter().collect()),
        Ok(_) => Err("error: --outputs must be a JSON object of key → value".into()),
        Err(e) => Err(format!("error: --outputs is not valid JSON: {e}")),
    }
}

/// What the summary says about effects.
pub struct Summary {
    /// The compensations that ran.
    pub compensations: Vec<Compensation>,
    /// The `at_most_once` nodes waiting to be settled.
    pub pending: Vec<PendingEffect>,
}

impl Summary {
    /// The engine's, after its run.
    pub fn of(engine: &Engine<'_>) -> Self {
        Summary {
            compensations: engine.compensations().to_vec(),
            pending: engine.pending_effects().to_vec(),
        }
    }

    /// `summary` with the compensations that ran, if any.
    pub fn add_to(&self, summary: String, json: bool) -> String {
        if self.compensations.is_empty() {
            return summary;
        }
        with_compensations(summary, json, &self.compensations)
    }
}

/// The summary with the compensations that ran: a `compensations` array
/// in JSON, one line each in text.
fn with_compensations(summary: String, json: bool, list: &[Compensation]) -> String {
    if json && let Ok(Value::Object(mut doc)) = serde_json::from_str::<Value>(&summary) {
        let list = serde_json::to_value(list).expect("compensations serialise");
        doc.insert("compensations".into(), list);
        let mut text = serde_json::to_string_pretty(&Value::Object(doc)).unwrap_or(summary);
        text.push('\n');
        return text;
    }
    let mut text = summary;
    text.push_str("compensations (most recent effect first):\n");
    for c in list {
        let how = match &c.reason {
            Some(reason) => format!("{}: {}", c.status.as_str(), super::output::one_line(reason)),
            None => c.status.as_str().to_owned(),
        };
        text.push_str(&format!("  {} undid {}: {how}\n", c.by, c.node));
    }
    text
}
