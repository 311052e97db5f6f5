//! The Attractor seed's lifecycle events (section 9.6) for a `.dot` run,
//! derived from the engine's own events as they are emitted:
//! `PipelineStarted`, `PipelineCompleted`, `PipelineFailed`,
//! `StageStarted`, `StageCompleted`, `StageFailed`, `StageRetrying`, and
//! `CheckpointSaved` when the embedder writes checkpoints. They go out as
//! `handler:event`s, like the `Interview*` and `Parallel*`
//! events the handlers report (docs/runtime.md, section 7.2).

use rustc_hash::FxHashMap;
use serde_json::{Value, json};

use crate::agent::Status;
use crate::event::Event;

/// The names of the derived events.
const NAMES: [&str; 8] = [
    "PipelineStarted",
    "PipelineCompleted",
    "PipelineFailed",
    "StageStarted",
    "StageCompleted",
    "StageFailed",
    "StageRetrying",
    "CheckpointSaved",
];

/// Whether `event` (as JSON) is one the engine derives here, not one a
/// handler reported.
pub(crate) fn is_derived(event: &Value) -> bool {
    event["event"] == "handler:event" && event["name"].as_str().is_some_and(|n| NAMES.contains(&n))
}

/// One derived event: its name, node, fields, whether it takes the
/// duration of the event it comes from, and whether it goes before it.
pub(crate) struct Derived {
    pub step: u64,
    pub name: &'static str,
    pub node: String,
    pub data: Value,
    pub timed: bool,
    pub before: bool,
}

/// What deriving needs: the pipeline's name, each stage's index (its
/// place in the pipeline's node list), and the latest failure's reason.
pub(crate) struct Lifecycle {
    pipeline: String,
    index: FxHashMap<String, usize>,
    /// The reason the engine recorded last (`StageFailed`'s `error`).
    pub last_failure: Option<String>,
    /// The root-level node entered last (where `PipelineCompleted` is).
    current: String,
    /// The embedder writes the seed's checkpoint (`checkpoint.json`) from
    /// the events: `CheckpointSaved` says when (see
    /// [`crate::Engine::set_checkpoints`]).
    pub checkpoints: bool,
    /// A stage ended since the last checkpoint.
    pending: bool,
    /// The stage that ended last (the checkpoint's `current_node`; kept
    /// in snapshots).
    pub completed: Option<String>,
    /// `PipelineStarted` went out (the run's first `node:enter`, at step
    /// 0; a resumed run is past it).
    started: bool,
}

impl Lifecycle {
    /// For the pipeline `name` with these node ids, in order.
    pub fn new<'a>(name: &str, nodes: impl Iterator<Item = &'a str>) -> Self {
        Lifecycle {
            pipeline: name.to_owned(),
            index: nodes.enumerate().map(|(i, n)| (n.to_owned(), i)).collect(),
            last_failure: None,
            started: false,
            current: String::new(),
            checkpoints: false,
            pending: false,
            completed: None,
        }
    }

    /// Takes up a run restored from a snapshot: it stands at `current`,
    /// entered from `completed`, past its first step when `started`.
    pub fn resume_at(&mut self, current: String, completed: Option<String>, started: bool) {
        self.current = current;
        self.completed = completed.or(self.completed.take());
        self.started |= started;
    }

    /// The pipeline's name.
    pub fn pipeline(&self) -> &str {
        &self.pipeline
    }

    /// The events `event` stands for (root-level nodes only: branches
    /// and child pipelines run inside their node's handler).
    pub fn derive(&mut self, event: &Event<'_>) -> Vec<Derived> {
        let started = self.started;
        self.started |= matches!(
            event,
            Event::NodeEnter {
                step: 0,
                depth: 1,
                ..
            }
        );
        if let Event::NodeEnter { node, depth: 1, .. } = *event {
            node.clone_into(&mut self.current);
        }
        let step = event_step(event);
        let saved = self.checkpoint(event).map(|node_id| Derived {
            step,
            name: "CheckpointSaved",
            node: node_id.clone().unwrap_or_default(),
            data: json!({ "node_id": node_id }),
            timed: false,
            before: false,
        });
        let stage = |name: &'static str, node: &str, mut data: Value, timed| {
            data["name"] = json!(node);
            data["index"] = json!(self.index.get(node));
            Derived {
                step,
                name,
                node: node.to_owned(),
                data,
                timed,
                before: false,
            }
        };
        match *event {
            Event::NodeEnter { node, depth: 1, .. } => {
                let mut out = Vec::new();
                if step == 0 && !started {
                    out.push(Derived {
                        step,
                        name: "PipelineStarted",
                        node: node.to_owned(),
                        // The seed's `id` is the event's `run`.
                        data: json!({"name": self.pipeline}),
                        timed: false,
                        before: true,
                    });
                }
                out.extend(saved);
                out.push(stage("StageStarted", node, json!({}), false));
                out
            }
            Event::NodeExit {
                node,
                depth: 1,
                status,
                ..
            } => vec![match status {
                Status::Fail => stage(
                    "StageFailed",
                    node,
                    json!({"error": self.last_failure, "will_retry": false}),
                    true,
                ),
                _ => stage(
                    "StageCompleted",
                    node,
                    json!({"status": status.as_str()}),
                    true,
                ),
            }],
            Event::NodeRetry {
                node,
                depth: 1,
                attempt,
                delay_ms,
                reason,
                ..
            } => vec![
                stage(
                    "StageFailed",
                    node,
                    json!({"error": reason, "will_retry": true}),
                    false,
                ),
                stage(
                    "StageRetrying",
                    node,
                    json!({"attempt": attempt, "delay_ms": delay_ms}),
                    false,
                ),
            ],
            Event::EngineComplete { .. } => saved
                .into_iter()
                .chain([Derived {
                    step,
                    name: "PipelineCompleted",
                    node: self.current.clone(),
                    data: json!({"name": self.pipeline}),
                    timed: true,
                    before: false,
                }])
                .collect(),
            Event::EngineError { node, reason, .. } => saved
                .into_iter()
                .chain([Derived {
                    step,
                    name: "PipelineFailed",
                    node: node.to_owned(),
                    data: json!({"name": self.pipeline, "error": reason}),
                    timed: true,
                    before: false,
                }])
                .collect(),
            _ => saved.into_iter().collect(),
        }
    }

    /// Follows the recorded events of a logged step without deriving
    /// anything: a resumed run re-applies its logged steps without
    /// emitting their events again, yet must stand where the
    /// uninterrupted run stood after them (the stage entered and the
    /// stage ended last), or the events it derives next differ from that
    /// run's (a `CheckpointSaved` naming no node: `wfc replay` of the
    /// resumed run then diverges).
    pub fn follow(&mut self, events: &[Value]) {
        for e in events {
            let node = || e["node"].as_str().unwrap_or_default().to_owned();
            match (e["event"].as_str(), e["depth"].as_u64()) {
                (Some("node:enter"), Some(1)) => {
                    self.started = true;
                    self.current = node();
                    self.pending &= !self.checkpoints;
                }
                (Some("node:exit"), Some(1)) if self.checkpoints => {
                    self.completed = Some(node());
                    self.pending = true;
                }
                (Some("engine:suspend" | "engine:error"), _) => self.pending = false,
                _ => {}
            }
        }
    }

    /// Whether `event` makes the embedder save its checkpoint, as
    /// `CheckpointWriter` does (`Some(node_id)`: the stage that ended
    /// last): at a stage's entry when one ended since the last save, and
    /// when the run completes, suspends or fails.
    fn checkpoint(&mut self, event: &Event<'_>) -> Option<Option<String>> {
        if !self.checkpoints {
            return None;
        }
        match *event {
            Event::NodeExit { node, depth: 1, .. } => {
                self.completed = Some(node.to_owned());
                self.pending = true;
                None
            }
            Event::NodeEnter { depth: 1, .. } if self.pending => {
                self.pending = false;
                Some(self.completed.clone())
            }
            Event::EngineComplete { .. } => {
                // The exit completes with the run.
                self.completed = Some(self.current.clone());
                self.pending = false;
                Some(self.completed.clone())
            }
            Event::EngineSuspend { .. } | Event::EngineError { .. } => {
                self.pending = false;
                Some(self.completed.clone())
            }
            _ => None,
        }
    }
}

/// The step an event happened in.
fn event_step(event: &Event<'_>) -> u64 {
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
        | Event::EngineInterrupt { step, .. }
        | Event::EngineRestart { step, .. }
        | Event::HandlerEvent { step, .. }
        | Event::EffectReused { step, .. } => step,
        // Emitted after the run ended, to the sink only: it derives no
        // lifecycle event, so its step is never read.
        Event::EffectCompensated { .. } => 0,
    }
}
