//! `checkpoint.json` (seed 5.3), kept up to date from the engine's events.
//!
//! The engine's own durable state (`snapshot.json` and the step log) is
//! what `wfc run --resume` restores; `checkpoint.json` is the Attractor
//! view of the same run for people and other tools: the last completed
//! node, the completed nodes in order, retry counts and the context. It is
//! rewritten atomically after each node and when the run ends.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::files::{RunFiles, now};
use crate::event::{Event, EventSink};

/// The checkpoint's file name in the run directory.
pub const CHECKPOINT_FILE: &str = "checkpoint.json";

/// An [`EventSink`] that writes `checkpoint.json`.
pub struct CheckpointWriter {
    files: RunFiles,
    current_node: Option<String>,
    entered: Option<String>,
    completed: Vec<String>,
    retries: BTreeMap<String, u64>,
    context: Map<String, Value>,
    logs: Vec<String>,
    /// Events of steps up to this one are already in the file (a resumed
    /// run may redo the step it was killed in).
    saved_step: Option<u64>,
    pending: bool,
    /// The first write error; the run goes on (the engine's own log is the
    /// durable record) and the CLI reports it.
    pub error: Option<String>,
}

impl CheckpointWriter {
    /// A writer for a new run whose context starts as `initial` (the
    /// mirrored graph attributes).
    pub fn new(files: RunFiles, initial: &[(String, Value)]) -> Self {
        CheckpointWriter {
            files,
            current_node: None,
            entered: None,
            completed: Vec::new(),
            retries: BTreeMap::new(),
            context: initial.iter().cloned().collect(),
            logs: Vec::new(),
            saved_step: None,
            pending: false,
            error: None,
        }
    }

    /// A writer that goes on from the run directory's `checkpoint.json`
    /// (a fresh one when there is none yet).
    pub fn resume(files: RunFiles) -> Result<Self, String> {
        let path = files.root().join(CHECKPOINT_FILE);
        let mut w = CheckpointWriter::new(files, &[]);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(w),
            Err(e) => return Err(format!("cannot read `{}`: {e}", path.display())),
        };
        let doc: Value = serde_json::from_str(&text)
            .map_err(|e| format!("`{}` is not JSON: {e}", path.display()))?;
        let strings = |v: &Value| -> Vec<String> {
            v.as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default()
        };
        w.current_node = doc["current_node"].as_str().map(String::from);
        w.completed = strings(&doc["completed_nodes"]);
        w.logs = strings(&doc["logs"]);
        if let Some(m) = doc["node_retries"].as_object() {
            w.retries = m
                .iter()
                .filter_map(|(k, v)| v.as_u64().map(|n| (k.clone(), n)))
                .collect();
        }
        if let Some(m) = doc["context"].as_object() {
            w.context = m.clone();
        }
        w.saved_step = doc["step"].as_u64();
        Ok(w)
    }

    /// Tells a resumed writer where the restored engine stands: the node
    /// entered last, which `checkpoint.json` does not record (it lists
    /// completed nodes). Without it a run killed after entering its exit
    /// node would never list that node as completed.
    pub fn resumed_at(&mut self, node: &str) {
        self.entered = Some(node.to_string());
    }

    fn save(&mut self, step: u64) {
        self.pending = false;
        self.saved_step = Some(step);
        let (_, timestamp) = now();
        let doc = json!({
            "timestamp": timestamp,
            "current_node": self.current_node,
            "completed_nodes": self.completed,
            "node_retries": self.retries,
            "context": self.context,
            "logs": self.logs,
            "step": step,
        });
        let path = self.files.root().join(CHECKPOINT_FILE);
        if let Err(e) = self.files.write_json(&path, &doc)
            && self.error.is_none()
        {
            self.error = Some(format!("cannot write `{}`: {e}", path.display()));
        }
    }

    fn complete_node(&mut self, node: &str) {
        self.completed.push(node.to_string());
        self.current_node = Some(node.to_string());
        self.pending = true;
    }
}

/// The step an event happened in.
fn step_of(event: &Event<'_>) -> u64 {
    match *event {
        Event::NodeEnter { step, .. }
        | Event::NodeExit { step, .. }
        | Event::NodeRetry { step, .. }
        | Event::EdgeTraverse { step, .. }
        | Event::BlackboardWrite { step, .. }
        | Event::WorkflowPush { step, .. }
        | Event::WorkflowPop { step, .. }
        | Event::EngineComplete { step }
        | Event::EngineSuspend { step, .. }
        | Event::EngineError { step, .. }
        | Event::EngineRestart { step, .. }
        | Event::HandlerEvent { step, .. } => step,
    }
}

impl EventSink for CheckpointWriter {
    fn emit(&mut self, event: &Event<'_>) {
        let step = step_of(event);
        if self.saved_step.is_some_and(|s| step <= s) {
            return;
        }
        match *event {
            Event::NodeEnter { node, depth: 1, .. } => {
                if self.pending {
                    self.save(step);
                }
                self.entered = Some(node.to_string());
            }
            Event::NodeExit {
                node,
                depth: 1,
                status,
                ..
            } => {
                self.complete_node(node);
                self.logs.push(format!("{node}: {}", status.as_str()));
            }
            Event::NodeRetry {
                node,
                depth: 1,
                attempt,
                ..
            } => {
                self.retries
                    .insert(node.to_string(), u64::from(attempt - 1));
            }
            Event::BlackboardWrite {
                depth: 1, writes, ..
            } => {
                for w in writes {
                    self.context.insert(w.key.to_string(), w.value.clone());
                }
            }
            Event::EngineRestart { node, .. } => {
                self.context.retain(|k, _| k.starts_with("graph."));
                self.logs.push(format!("loop_restart at {node}"));
            }
            Event::EngineComplete { .. } => {
                if let Some(node) = self.entered.clone() {
                    self.complete_node(&node);
                }
                self.save(step);
            }
            Event::EngineSuspend { .. } | Event::EngineError { .. } => self.save(step),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Status;

    fn enter(step: u64, node: &str) -> Event<'_> {
        Event::NodeEnter {
            step,
            workflow: "p",
            node,
            depth: 1,
        }
    }

    fn exit(step: u64, node: &str) -> Event<'_> {
        Event::NodeExit {
            step,
            workflow: "p",
            node,
            depth: 1,
            status: Status::Success,
        }
    }

    fn completed(dir: &std::path::Path) -> Value {
        let text = std::fs::read_to_string(dir.join(CHECKPOINT_FILE)).unwrap();
        serde_json::from_str::<Value>(&text).unwrap()["completed_nodes"].clone()
    }

    /// A run killed after entering its exit node (and before the step that
    /// completes it) lists the exit node once resumed.
    #[test]
    fn a_run_resumed_at_its_exit_node_lists_it_as_completed() {
        let dir = std::env::temp_dir().join(format!("wfc-checkpoint-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut first = CheckpointWriter::new(RunFiles::new(&dir), &[]);
        first.emit(&enter(0, "start"));
        first.emit(&exit(0, "start"));
        first.emit(&enter(0, "work"));
        first.emit(&exit(1, "work"));
        first.emit(&enter(1, "done"));
        assert_eq!(completed(&dir), json!(["start", "work"]));
        // Killed here; the engine resumes at `done`.
        let mut resumed = CheckpointWriter::resume(RunFiles::new(&dir)).unwrap();
        resumed.resumed_at("done");
        resumed.emit(&Event::EngineComplete { step: 2 });
        assert_eq!(completed(&dir), json!(["start", "work", "done"]));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
