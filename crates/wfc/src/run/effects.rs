//! `wfc run --resume DIR --assume-done NODE [--outputs JSON]` /
//! `--rerun NODE` / `--cancel`, and the compensations in the summary (effects that
//! happen once: `docs/runtime.md`).

use serde_json::Value;
use wf_vm::Engine;
use wf_vm::effects::{Compensation, PendingEffect, Resolution};

use super::RunArgs;

/// Hands the user's settlement of a pending `at_most_once` node to the
/// resumed engine; an error when none is pending, or another node is.
pub fn settle(engine: &mut Engine<'_>, args: &RunArgs) -> Result<(), String> {
    if args.cancel {
        return engine
            .cancel("`wfc run --resume --cancel`")
            .map_err(|e| format!("error: cannot cancel: {e}"));
    }
    let resolution = match (&args.assume_done, &args.rerun) {
        (Some(node), _) => Resolution::AssumeDone {
            node: node.clone(),
            writes: outputs(args.outputs.as_deref())?,
        },
        (None, Some(node)) => Resolution::Rerun { node: node.clone() },
        (None, None) => return Ok(()),
    };
    engine
        .resolve_effect(resolution)
        .map_err(|e| format!("error: cannot resume: {e}"))
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
    /// The `at_most_once` node waiting to be settled.
    pub pending: Option<PendingEffect>,
}

impl Summary {
    /// The engine's, after its run.
    pub fn of(engine: &Engine<'_>) -> Self {
        Summary {
            compensations: engine.compensations().to_vec(),
            pending: engine.pending_effect().cloned(),
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
