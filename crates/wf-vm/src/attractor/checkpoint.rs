//! `checkpoint.json` (seed 5.3), kept up to date from the engine's events.
//!
//! The engine's own durable state (`snapshot.json` and the step log) is
//! what `wfc run --resume` restores; `checkpoint.json` is the Attractor
//! view of the same run for people and other tools: the last completed
//! node, the completed nodes in order, retry counts and the context. It is
//! rewritten atomically after each node and when the run ends, and derived
//! again from the step log on resume ([`CheckpointWriter::from_log`]).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::files::{RunFiles, now};
use crate::event::{Event, EventSink};
use crate::persist::{PersistError, RunDir};

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
    pending: bool,
    /// The first write error; the run goes on (the engine's own log is the
    /// durable record) and the CLI reports it.
    pub error: Option<String>,
}

/// What the checkpoint needs of one event (of the root frame: depth 1).
enum Change<'a> {
    Enter(&'a str),
    Exit(&'a str, &'a str),
    Retry(&'a str, u64),
    Write(&'a str, &'a Value),
    Restart(&'a str),
    Complete,
    End,
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
            pending: false,
            error: None,
        }
    }

    /// A writer for a resumed run: the checkpoint is derived again from
    /// the events of every step the run log committed (`initial` as for
    /// [`CheckpointWriter::new`]) and written at once, so it never holds a
    /// step the log lost, and the file as it was is not trusted.
    pub fn from_log(
        files: RunFiles,
        initial: &[(String, Value)],
        dir: &RunDir,
    ) -> Result<Self, PersistError> {
        let mut w = CheckpointWriter::new(files, initial);
        let mut last = None;
        for (_, record) in dir.read_log()? {
            for event in &record.events {
                w.replay(event);
            }
            last = Some(record.step);
        }
        if let Some(step) = last {
            w.save(step);
        }
        Ok(w)
    }

    /// Applies one logged event (JSON, as [`Event`] serialises).
    fn replay(&mut self, event: &Value) {
        let str_of = |k: &str| event[k].as_str().unwrap_or_default();
        let step = event["step"].as_u64().unwrap_or_default();
        let root = event["depth"] == 1;
        match str_of("event") {
            "node:enter" if root => self.apply(step, Change::Enter(str_of("node"))),
            "node:exit" if root => {
                self.apply(step, Change::Exit(str_of("node"), str_of("status")));
            }
            "node:retry" if root => {
                let attempt = event["attempt"].as_u64().unwrap_or(1);
                self.apply(step, Change::Retry(str_of("node"), attempt));
            }
            "blackboard:write" if root => {
                for w in event["writes"].as_array().into_iter().flatten() {
                    if let Some(key) = w["key"].as_str() {
                        self.apply(step, Change::Write(key, &w["value"]));
                    }
                }
            }
            "engine:restart" => self.apply(step, Change::Restart(str_of("node"))),
            "engine:complete" => self.apply(step, Change::Complete),
            "engine:suspend" | "engine:error" => self.apply(step, Change::End),
            _ => {}
        }
    }

    fn apply(&mut self, step: u64, change: Change<'_>) {
        match change {
            Change::Enter(node) => {
                if self.pending {
                    self.save(step);
                }
                self.entered = Some(node.to_string());
            }
            Change::Exit(node, status) => {
                self.complete_node(node);
                self.logs.push(format!("{node}: {status}"));
            }
            Change::Retry(node, attempt) => {
                self.retries.insert(node.to_string(), attempt - 1);
            }
            Change::Write(key, value) => {
                self.context.insert(key.to_string(), value.clone());
            }
            Change::Restart(node) => {
                // Replayed on resume too, so the folders stay where the
                // uninterrupted run put them.
                self.files.restarted();
                self.context.retain(|k, _| k.starts_with("graph."));
                self.logs.push(format!("loop_restart at {node}"));
            }
            Change::Complete => {
                if let Some(node) = self.entered.clone() {
                    self.complete_node(&node);
                }
                self.save(step);
            }
            Change::End => self.save(step),
        }
    }

    fn save(&mut self, step: u64) {
        self.pending = false;
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

impl EventSink for CheckpointWriter {
    fn emit(&mut self, event: &Event<'_>) {
        match *event {
            Event::NodeEnter {
                step,
                node,
                depth: 1,
                ..
            } => self.apply(step, Change::Enter(node)),
            Event::NodeExit {
                step,
                node,
                depth: 1,
                status,
                ..
            } => self.apply(step, Change::Exit(node, status.as_str())),
            Event::NodeRetry {
                step,
                node,
                depth: 1,
                attempt,
                ..
            } => self.apply(step, Change::Retry(node, u64::from(attempt))),
            Event::BlackboardWrite {
                step,
                depth: 1,
                writes,
                ..
            } => {
                for w in writes {
                    self.apply(step, Change::Write(w.key, w.value));
                }
            }
            Event::EngineRestart { step, node, .. } => self.apply(step, Change::Restart(node)),
            Event::EngineComplete { step } => self.apply(step, Change::Complete),
            Event::EngineSuspend { step, .. } | Event::EngineError { step, .. } => {
                self.apply(step, Change::End);
            }
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

    fn checkpoint(dir: &std::path::Path) -> Value {
        let text = std::fs::read_to_string(dir.join(CHECKPOINT_FILE)).unwrap();
        let mut doc = serde_json::from_str::<Value>(&text).unwrap();
        doc.as_object_mut().unwrap().remove("timestamp");
        doc
    }

    /// Events replayed from the log (JSON) build the checkpoint the live
    /// events built: a run killed after entering its exit node, then
    /// resumed, lists every node once and keeps the `graph.*` context.
    #[test]
    fn replayed_events_rebuild_the_live_checkpoint() {
        let base = std::env::temp_dir().join(format!("wfc-checkpoint-{}", std::process::id()));
        let (live_dir, replay_dir) = (base.join("live"), base.join("replay"));
        for d in [&live_dir, &replay_dir] {
            let _ = std::fs::remove_dir_all(d);
            std::fs::create_dir_all(d).unwrap();
        }
        let value = json!("green");
        let writes = [crate::event::WriteRef {
            key: "context.tests",
            value: &value,
        }];
        let retry = Event::NodeRetry {
            step: 1,
            workflow: "p",
            node: "work",
            depth: 1,
            attempt: 2,
            delay_ms: 0,
            reason: "flaky",
        };
        let write = Event::BlackboardWrite {
            step: 2,
            workflow: "p",
            node: "work",
            depth: 1,
            writes: &writes,
        };
        let before_kill = [
            enter(0, "start"),
            exit(0, "start"),
            enter(0, "work"),
            retry,
            write,
            exit(2, "work"),
            enter(2, "done"),
        ];
        let initial = [("graph.goal".to_string(), json!("ship"))];
        let mut live = CheckpointWriter::new(RunFiles::new(&live_dir), &initial);
        let mut resumed = CheckpointWriter::new(RunFiles::new(&replay_dir), &initial);
        for e in &before_kill {
            live.emit(e);
            resumed.replay(&serde_json::to_value(e).unwrap());
        }
        // Killed here; the resumed engine goes on live.
        for w in [&mut live, &mut resumed] {
            w.emit(&Event::EngineComplete { step: 3 });
        }
        let doc = checkpoint(&live_dir);
        assert_eq!(doc["completed_nodes"], json!(["start", "work", "done"]));
        assert_eq!(doc["node_retries"], json!({"work": 1}));
        assert_eq!(
            doc["context"],
            json!({"graph.goal": "ship", "context.tests": "green"})
        );
        assert_eq!(checkpoint(&replay_dir), doc);
        std::fs::remove_dir_all(&base).unwrap();
    }
}
