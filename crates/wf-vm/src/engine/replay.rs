//! Replay: re-running a run directory's log from the run's start, with no
//! agent and no tool, and checking that every step emits the events the log
//! recorded and that the state matches `snapshot.json` (docs/runtime.md,
//! section 9, "Replay").

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::Value;
use wf_ir::IrProgram;

use super::{Engine, EngineError, Snapshot};
use crate::bound::clip;
use crate::config::EngineConfig;
use crate::event::CollectSink;
use crate::stamp::TIMED_FIELDS;
use crate::store::{RunStore, StorePart};

/// How much of a recorded or replayed value a divergence shows.
const SHOWN_BYTES: usize = 600;

/// What [`Engine::replay`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct Replay {
    /// The log's records that replayed identically.
    pub steps: u64,
    /// The step at which the replayed state was compared with
    /// `snapshot.json` (`None`: the replay diverged before it).
    pub state_checked_at: Option<u64>,
    /// The first difference, if any.
    pub divergence: Option<Divergence>,
}

/// The first place where the replay and the log (or the snapshot) differ.
#[derive(Debug, Clone, PartialEq)]
pub struct Divergence {
    /// The step, as the log numbers it (from 0; `wfc replay` prints it
    /// from 1, as human output counts steps).
    pub step: u64,
    /// The log's line that records the step (`None`: the snapshot differs,
    /// or the log stops before it).
    pub line: Option<usize>,
    /// What differs ("event 3 of 4", "the state at `frames[0].node`", …).
    pub what: String,
    /// What the run directory recorded (compact JSON, clipped).
    pub recorded: Option<String>,
    /// What the replay produced.
    pub replayed: Option<String>,
}

impl<'p> Engine<'p> {
    /// Replays the run in `dir` against `program` (its own `program.json`,
    /// or a changed workflow): restores `start.json`, re-applies every
    /// logged step's recorded input (no agent is asked, no tool runs, no
    /// backoff is slept), and compares each step's events with the ones
    /// the log recorded, and the state at `snapshot.json`'s step with that
    /// snapshot (but for the times it holds). `Err`: the directory cannot
    /// be read ([`EngineError::Persist`]), or its start does not fit
    /// `program` ([`EngineError::Snapshot`]).
    pub fn replay(program: &'p IrProgram, dir: &dyn RunStore) -> Result<Replay, EngineError> {
        let start = dir.read_start()?.ok_or_else(|| {
            EngineError::Persist(
                dir.corrupt(
                    StorePart::Start,
                    None,
                    "it is missing: the run was started by a wfc without replay, \
                 and cannot be replayed"
                        .into(),
                ),
            )
        })?;
        // The snapshot first: the log is synced before each snapshot, so it
        // holds at least the snapshot's steps even while the run goes on.
        let last = dir.read_snapshot()?;
        let records = dir.read_log_from(0)?;
        // `Snapshot`: the start does not fit `program` (a changed workflow
        // may have lost what the run started with).
        let mut engine = Engine::restore(program, &start, EngineConfig::default())?;
        let legacy = start.run_id.is_none();
        // A resume with a lower `--max-steps` lowered the run's limit.
        engine.limits.max_steps = engine.limits.max_steps.min(last.limits.max_steps);
        engine.set_sleeper(Box::new(|_| {}));
        let events = Rc::new(RefCell::new(Vec::new()));
        engine.set_event_sink(Box::new(CollectSink(events.clone())));
        let mut replay = Replay {
            steps: 0,
            state_checked_at: None,
            divergence: None,
        };
        let check_state = |engine: &Engine<'_>, replay: &mut Replay| {
            if engine.step != last.step {
                return true;
            }
            replay.state_checked_at = Some(last.step);
            replay.divergence = state_difference(program, &last, &engine.snapshot());
            replay.divergence.is_none()
        };
        if !check_state(&engine, &mut replay) {
            return Ok(replay);
        }
        for (line, mut record) in records {
            let step = record.step;
            let recorded = std::mem::take(&mut record.events);
            if let Err(message) = engine.reapply(record, start.step) {
                replay.divergence = Some(Divergence {
                    step,
                    line: Some(line),
                    what: format!("the recorded step does not fit the replayed run: {message}"),
                    recorded: None,
                    replayed: None,
                });
                return Ok(replay);
            }
            let mut produced = std::mem::take(&mut *events.borrow_mut());
            // A log from before events had run ids has no lifecycle events
            // of a `.dot` run either (docs/runtime.md, 7.2): not compared.
            if legacy {
                produced.retain(|e| !super::lifecycle::is_derived(e));
            }
            if let Some(d) = event_difference(step, line, &recorded, &produced) {
                replay.divergence = Some(d);
                return Ok(replay);
            }
            replay.steps += 1;
            if !check_state(&engine, &mut replay) {
                return Ok(replay);
            }
        }
        if replay.state_checked_at.is_none() {
            replay.divergence = Some(Divergence {
                step: engine.step,
                line: None,
                what: format!(
                    "the log ends at step {}, but `snapshot.json` holds {} steps",
                    engine.step, last.step
                ),
                recorded: None,
                replayed: None,
            });
        }
        Ok(replay)
    }
}

/// The first event of a step that differs.
pub(super) fn event_difference(
    step: u64,
    line: usize,
    recorded: &[Value],
    produced: &[Value],
) -> Option<Divergence> {
    let n = recorded.len().max(produced.len());
    let i = (0..n).find(|&i| match (recorded.get(i), produced.get(i)) {
        (Some(r), Some(p)) => untimed_event(r, r) != untimed_event(p, r),
        _ => true,
    })?;
    let counts = if recorded.len() == produced.len() {
        String::new()
    } else {
        format!(
            " (the log records {} events, the replay produced {})",
            recorded.len(),
            produced.len()
        )
    };
    Some(Divergence {
        step,
        line: Some(line),
        what: format!("event {} of the step{counts}", i + 1),
        recorded: recorded
            .get(i)
            .map(|e| shown(&displayed(e, produced.get(i)))),
        replayed: produced
            .get(i)
            .map(|e| shown(&displayed(e, recorded.get(i)))),
    })
}

/// An event without the fields that depend on time (`ts`,
/// `duration_ms`); without `run` too when `recorded` has none (a log
/// written before events carried the run id).
fn untimed_event(event: &Value, recorded: &Value) -> Value {
    let mut v = event.clone();
    if let Some(o) = v.as_object_mut() {
        for f in TIMED_FIELDS {
            o.remove(f);
        }
        if recorded.get("run").is_none() {
            o.remove("run");
        }
    }
    v
}

/// An event as a divergence shows it: without its time and duration, and
/// without its run id when the other side has the same.
fn displayed(event: &Value, other: Option<&Value>) -> Value {
    let mut v = untimed_event(event, event);
    if let Some(o) = v.as_object_mut()
        && o.get("run") == other.and_then(|e| e.get("run"))
    {
        o.remove("run");
    }
    v
}

/// The first difference between the recorded and the replayed state,
/// times aside (a replay takes none).
fn state_difference(
    program: &IrProgram,
    recorded: &Snapshot,
    replayed: &Snapshot,
) -> Option<Divergence> {
    let (a, mut b) = (untimed(program, recorded), untimed(program, replayed));
    // A snapshot written before runs had an id: the replay made one up.
    if recorded.run_id.is_none()
        && let Some(o) = b.as_object_mut()
    {
        o.remove("run_id");
    }
    let (path, x, y) = first_difference(&a, &b, String::new())?;
    Some(Divergence {
        step: recorded.step.saturating_sub(1),
        line: None,
        what: format!(
            "the state `snapshot.json` holds after {} steps, at `{path}`",
            recorded.step
        ),
        recorded: x.map(shown),
        replayed: y.map(shown),
    })
}

/// A snapshot as JSON without its times (the run's active time, the
/// time each callee was pushed at and the clock time of each failure),
/// its visits one per node whatever form it was written in.
fn untimed(program: &IrProgram, snap: &Snapshot) -> Value {
    let per_node = Snapshot {
        visits: snap.visits_per_node(program),
        ..snap.clone()
    };
    let mut v = serde_json::to_value(&per_node).expect("snapshots serialise");
    if let Some(o) = v.as_object_mut() {
        o.remove("elapsed_ms");
    }
    if let Some(failures) = v.get_mut("failures").and_then(Value::as_array_mut) {
        for f in failures.iter_mut().filter_map(Value::as_object_mut) {
            f.remove("time_ms");
        }
    }
    if let Some(frames) = v.get_mut("frames").and_then(Value::as_array_mut) {
        for f in frames {
            if let Some(pushed) = f.get_mut("pushed").and_then(Value::as_array_mut)
                && pushed.len() == 2
            {
                pushed[1] = Value::Null;
            }
        }
    }
    v
}

/// The path of the first difference between `a` and `b`, and the values
/// there (`None`: absent on that side).
fn first_difference<'v>(
    a: &'v Value,
    b: &'v Value,
    path: String,
) -> Option<(String, Option<&'v Value>, Option<&'v Value>)> {
    if a == b {
        return None;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let key = x.keys().chain(y.keys()).find(|k| x.get(*k) != y.get(*k))?;
            let sub = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            match (x.get(key), y.get(key)) {
                (Some(p), Some(q)) => first_difference(p, q, sub),
                (p, q) => Some((sub, p, q)),
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            let i = (0..x.len().max(y.len())).find(|&i| x.get(i) != y.get(i))?;
            let sub = format!("{path}[{i}]");
            match (x.get(i), y.get(i)) {
                (Some(p), Some(q)) => first_difference(p, q, sub),
                (p, q) => Some((sub, p, q)),
            }
        }
        _ => Some((path, Some(a), Some(b))),
    }
}

/// A value as a divergence shows it: compact JSON, clipped.
fn shown(v: &Value) -> String {
    clip(&v.to_string(), SHOWN_BYTES)
}
