//! Engine events: one JSON object per line, in the deterministic order of
//! the Reflex seed (section 3.2). See `docs/runtime.md` for every field.
//!
//! Events are built only when a sink or a run directory wants them, so a run
//! without either pays nothing for them.

use std::cell::RefCell;
use std::io;
use std::rc::Rc;

use serde::Serialize;
use serde_json::Value;

use crate::agent::Status;
use crate::failure::FailureKind;
use crate::persist::{RunJson, write_stamped};
use crate::stamp::{Stamp, Stamped};

/// A blackboard write as events show it.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct WriteRef<'a> {
    /// The key.
    pub key: &'a str,
    /// The value.
    pub value: &'a Value,
}

/// One engine event. `step` is the run's step number (0-based) during which
/// the event happened; `depth` is the call-stack depth (1 = root).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event")]
pub enum Event<'a> {
    /// The run arrived at a node.
    #[serde(rename = "node:enter")]
    NodeEnter {
        /// Step number.
        step: u64,
        /// Workflow name.
        workflow: &'a str,
        /// Node id.
        node: &'a str,
        /// Call depth.
        depth: usize,
    },
    /// The run leaves a node with this outcome status.
    #[serde(rename = "node:exit")]
    NodeExit {
        /// Step number.
        step: u64,
        /// Workflow name.
        workflow: &'a str,
        /// Node id.
        node: &'a str,
        /// Call depth.
        depth: usize,
        /// The outcome's status.
        status: Status,
    },
    /// An attempt asked for a retry; the node runs again after `delay_ms`.
    #[serde(rename = "node:retry")]
    NodeRetry {
        /// Step number.
        step: u64,
        /// Workflow name.
        workflow: &'a str,
        /// Node id.
        node: &'a str,
        /// Call depth.
        depth: usize,
        /// The attempt that comes next (2 = first retry).
        attempt: u32,
        /// The backoff delay before it.
        delay_ms: u64,
        /// Why the previous attempt did not succeed.
        reason: &'a str,
    },
    /// The run follows an edge.
    #[serde(rename = "edge:traverse")]
    EdgeTraverse {
        /// Step number.
        step: u64,
        /// Workflow name.
        workflow: &'a str,
        /// Edge id.
        edge: &'a str,
        /// Source node id.
        from: &'a str,
        /// Target node id.
        to: &'a str,
        /// Call depth.
        depth: usize,
    },
    /// Entries appended to a frame's local blackboard.
    #[serde(rename = "blackboard:write")]
    BlackboardWrite {
        /// Step number.
        step: u64,
        /// The frame's workflow name.
        workflow: &'a str,
        /// The node the entries are attributed to.
        node: &'a str,
        /// The frame's depth.
        depth: usize,
        /// The entries, in order.
        writes: &'a [WriteRef<'a>],
    },
    /// A call node started its callee.
    #[serde(rename = "workflow:push")]
    WorkflowPush {
        /// Step number.
        step: u64,
        /// The callee's name.
        workflow: &'a str,
        /// The caller's name.
        caller: &'a str,
        /// The call node's id.
        node: &'a str,
        /// The callee's depth.
        depth: usize,
    },
    /// A callee completed; its frame is gone.
    #[serde(rename = "workflow:pop")]
    WorkflowPop {
        /// Step number.
        step: u64,
        /// The callee's name.
        workflow: &'a str,
        /// The caller's name.
        caller: &'a str,
        /// The call node's id.
        node: &'a str,
        /// The callee's depth (the caller's is one less).
        depth: usize,
    },
    /// The root workflow completed.
    #[serde(rename = "engine:complete")]
    EngineComplete {
        /// Step number.
        step: u64,
    },
    /// The agent suspended the run.
    #[serde(rename = "engine:suspend")]
    EngineSuspend {
        /// Step number.
        step: u64,
        /// Workflow name.
        workflow: &'a str,
        /// Node id.
        node: &'a str,
        /// The agent's reason.
        reason: &'a str,
    },
    /// The run failed.
    #[serde(rename = "engine:error")]
    EngineError {
        /// Step number.
        step: u64,
        /// Workflow name.
        workflow: &'a str,
        /// Node id.
        node: &'a str,
        /// The kind of failure: `kind` and `code` in JSON.
        #[serde(flatten, with = "crate::failure::kind_and_code")]
        kind: FailureKind,
        /// Why.
        reason: &'a str,
    },
    /// A signal interrupted a durable run in the middle of a step (kind
    /// `interrupted`, WF0931); `engine:suspend` follows (docs/runtime.md,
    /// "Interrupting and cancelling a run").
    #[serde(rename = "engine:interrupt")]
    EngineInterrupt {
        /// Step number.
        step: u64,
        /// Workflow name.
        workflow: &'a str,
        /// Node id.
        node: &'a str,
        /// Always `interrupted`: `kind` and `code` in JSON.
        #[serde(flatten, with = "crate::failure::kind_and_code")]
        kind: FailureKind,
        /// The signal's name (`SIGINT`, `SIGTERM`, `SIGHUP`).
        signal: &'a str,
    },
    /// An Attractor `loop_restart` edge: the run starts again at `node`
    /// with a fresh context (only the `graph.*` keys are kept).
    #[serde(rename = "engine:restart")]
    EngineRestart {
        /// Step number.
        step: u64,
        /// Workflow name.
        workflow: &'a str,
        /// The edge taken.
        edge: &'a str,
        /// The node the run starts again at.
        node: &'a str,
    },
    /// An event an Attractor handler reported (`InterviewStarted`,
    /// `ParallelCompleted`, …; seed section 9.6), emitted before the
    /// node's `node:exit`.
    #[serde(rename = "handler:event")]
    HandlerEvent {
        /// Step number.
        step: u64,
        /// Workflow name.
        workflow: &'a str,
        /// Node id.
        node: &'a str,
        /// The event's name, e.g. `InterviewStarted`.
        name: &'a str,
        /// Its fields.
        data: &'a Value,
    },
    /// A completed effect was reused instead of running again (an
    /// idempotence key seen before, or a `done` record that outlived a
    /// kill; `docs/runtime.md`, "Effects that happen once").
    #[serde(rename = "effect:reused")]
    EffectReused {
        /// Step number.
        step: u64,
        /// Workflow name.
        workflow: &'a str,
        /// Node id.
        node: &'a str,
        /// Call depth.
        depth: usize,
        /// The idempotence key, when the node has one.
        #[serde(skip_serializing_if = "Option::is_none")]
        key: Option<&'a str>,
        /// The step the effect ran in.
        of_step: u64,
    },
    /// A compensating node ran after the run failed (to the event sink
    /// only: the log records it as an `effect` line).
    #[serde(rename = "effect:compensated")]
    EffectCompensated {
        /// Workflow name.
        workflow: &'a str,
        /// The node whose effect was undone.
        node: &'a str,
        /// The compensating node.
        by: &'a str,
        /// Its outcome's status.
        status: Status,
        /// Why it failed.
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<&'a str>,
    },
}

impl Event<'_> {
    /// The event's name, e.g. `node:enter`.
    pub fn name(&self) -> &'static str {
        match self {
            Event::NodeEnter { .. } => "node:enter",
            Event::NodeExit { .. } => "node:exit",
            Event::NodeRetry { .. } => "node:retry",
            Event::EdgeTraverse { .. } => "edge:traverse",
            Event::BlackboardWrite { .. } => "blackboard:write",
            Event::WorkflowPush { .. } => "workflow:push",
            Event::WorkflowPop { .. } => "workflow:pop",
            Event::EngineComplete { .. } => "engine:complete",
            Event::EngineSuspend { .. } => "engine:suspend",
            Event::EngineError { .. } => "engine:error",
            Event::EngineInterrupt { .. } => "engine:interrupt",
            Event::EngineRestart { .. } => "engine:restart",
            Event::HandlerEvent { .. } => "handler:event",
            Event::EffectReused { .. } => "effect:reused",
            Event::EffectCompensated { .. } => "effect:compensated",
        }
    }
}

/// Receives events as they happen.
pub trait EventSink {
    /// Called once per event, in order.
    fn emit(&mut self, event: &Event<'_>);

    /// Called by the engine instead of [`EventSink::emit`], with the
    /// event's run id, time and duration (section 7 of docs/runtime.md).
    /// Sinks that write events out override it; by default the stamp is
    /// dropped.
    fn emit_stamped(&mut self, event: &Event<'_>, stamp: &Stamp<'_>) {
        let _ = stamp;
        self.emit(event);
    }

    /// Whether the sink writes events out as JSON: the engine then calls
    /// [`EventSink::emit_json`] instead of [`EventSink::emit_stamped`],
    /// with the text it writes once for the sink and the run log.
    fn wants_json(&self) -> bool {
        false
    }

    /// Called instead of [`EventSink::emit_stamped`] when the sink
    /// [wants JSON](EventSink::wants_json): `json` is the stamped event as
    /// one JSON object, the bytes serde writes for [`Stamped`] (no line
    /// break).
    fn emit_json(&mut self, event: &Event<'_>, stamp: &Stamp<'_>, json: &[u8]) {
        let _ = json;
        self.emit_stamped(event, stamp);
    }

    /// Why the sink lost events (a write error), if it did: the engine
    /// then fails the run before its next step (a step of its own in the
    /// run log, so a resume replays it).
    fn failure(&self) -> Option<String> {
        None
    }
}

/// Writes each event as one JSON line (`--events FILE|-`). The first write
/// error is remembered (see [`JsonLinesSink::error`]), later events are
/// dropped, and [`EventSink::failure`] reports it: the run fails.
pub struct JsonLinesSink<W: io::Write> {
    out: W,
    error: Option<io::Error>,
    /// A stamped event's text, reused ([`EventSink::emit_stamped`]).
    line: Vec<u8>,
    run: RunJson,
}

impl<W: io::Write> JsonLinesSink<W> {
    /// A sink writing to `out` (wrap files in a `BufWriter`; lines are
    /// flushed per event so a reader sees them live).
    pub fn new(out: W) -> Self {
        JsonLinesSink {
            out,
            error: None,
            line: Vec::new(),
            run: RunJson::default(),
        }
    }

    /// The first write error, if any.
    pub fn error(&self) -> Option<&io::Error> {
        self.error.as_ref()
    }
}

impl<W: io::Write> JsonLinesSink<W> {
    /// Writes `json` and a line break, and flushes.
    fn write_line(&mut self, json: &[u8]) {
        if self.error.is_some() {
            return;
        }
        let result = self
            .out
            .write_all(json)
            .and_then(|()| self.out.write_all(b"\n"))
            .and_then(|()| self.out.flush());
        if let Err(e) = result {
            self.error = Some(e);
        }
    }

    fn write(&mut self, value: &impl Serialize) {
        if self.error.is_some() {
            return;
        }
        let result = serde_json::to_writer(&mut self.out, value)
            .map_err(io::Error::from)
            .and_then(|()| self.out.write_all(b"\n"))
            .and_then(|()| self.out.flush());
        if let Err(e) = result {
            self.error = Some(e);
        }
    }
}

impl<W: io::Write> EventSink for JsonLinesSink<W> {
    fn emit(&mut self, event: &Event<'_>) {
        self.write(event);
    }

    /// The hand-written serialisation of the run log (the bytes serde
    /// writes for [`Stamped`], several times faster).
    fn emit_stamped(&mut self, event: &Event<'_>, stamp: &Stamp<'_>) {
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        write_stamped(&mut line, event, stamp, &mut self.run);
        self.write_line(&line);
        self.line = line;
    }

    fn wants_json(&self) -> bool {
        true
    }

    fn emit_json(&mut self, _: &Event<'_>, _: &Stamp<'_>, json: &[u8]) {
        self.write_line(json);
    }

    fn failure(&self) -> Option<String> {
        self.error
            .as_ref()
            .map(|e| format!("could not write an event: {e}"))
    }
}

/// Collects events as JSON values in a shared list (tests, embedders).
#[derive(Debug, Clone, Default)]
pub struct CollectSink(pub Rc<RefCell<Vec<Value>>>);

impl CollectSink {
    /// The events so far.
    pub fn events(&self) -> Vec<Value> {
        self.0.borrow().clone()
    }
}

impl EventSink for CollectSink {
    fn emit(&mut self, event: &Event<'_>) {
        let v = serde_json::to_value(event).unwrap_or(Value::Null);
        self.0.borrow_mut().push(v);
    }

    fn emit_stamped(&mut self, event: &Event<'_>, stamp: &Stamp<'_>) {
        let stamped = Stamped {
            event,
            stamp: *stamp,
        };
        let v = serde_json::to_value(stamped).unwrap_or(Value::Null);
        self.0.borrow_mut().push(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_serialise_as_one_tagged_object() {
        let v = Value::from(1);
        let writes = [WriteRef {
            key: "k",
            value: &v,
        }];
        let e = Event::BlackboardWrite {
            step: 3,
            workflow: "w",
            node: "n",
            depth: 1,
            writes: &writes,
        };
        assert_eq!(
            serde_json::to_string(&e).unwrap(),
            r#"{"event":"blackboard:write","step":3,"workflow":"w","node":"n","depth":1,"writes":[{"key":"k","value":1}]}"#
        );
        let mut out = Vec::new();
        JsonLinesSink::new(&mut out).emit(&Event::EngineComplete { step: 9 });
        assert_eq!(out, b"{\"event\":\"engine:complete\",\"step\":9}\n");
    }
}
