//! Effects that happen once (issue 17.3): idempotence keys,
//! `effect = "at_most_once"` and compensation (a saga).
//!
//! Effects are recorded as their own lines in the run's write-ahead log
//! (`log.jsonl`), between the step records: `{"effect": "started", …}`,
//! `{"effect": "done", …}` and `{"effect": "compensated", …}`. The log
//! stays the single source of truth: the in-memory index (`Effects`) is
//! rebuilt from those lines when a run is resumed. `docs/runtime.md`
//! ("Effects that happen once") describes the semantics.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wf_ir::{IrProgram, NodeIdx, Opcode, WorkflowIdx};

use crate::agent::{Decision, Status};
use crate::engine::StepInput;

/// The node attribute holding an idempotence key template.
pub const IDEMPOTENCE_KEY: &str = "idempotence_key";
/// The node attribute saying how often the node's effect may happen.
pub const EFFECT: &str = "effect";
/// The node attribute naming a node's compensating step.
pub const COMPENSATE: &str = "compensate";
/// The one value of [`EFFECT`] the engine acts on.
pub const AT_MOST_ONCE: &str = "at_most_once";

/// One effect line of the run log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "effect", rename_all = "snake_case")]
pub enum EffectRecord {
    /// An `at_most_once` node is about to run its effect (synced to disk
    /// before the command starts).
    Started {
        /// The step it runs in.
        step: u64,
        /// Its workflow.
        workflow: String,
        /// The node.
        node: String,
    },
    /// An effectful node finished with an outcome that is not `fail`.
    Done {
        /// The step it ran in.
        step: u64,
        /// Its workflow.
        workflow: String,
        /// The node.
        node: String,
        /// Its idempotence key, interpolated.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<String>,
        /// The node that undoes it, when the node names one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        compensate: Option<String>,
        /// What the node produced, as the step record holds it.
        input: Box<StepInput>,
        /// The effect's identity when `step` alone does not say which
        /// effect it is: one a fan-out's join handed over from a parallel
        /// branch (`fan#1/left/reserve@1`: the first completion of
        /// `reserve` in branch `left` of the first visit of `fan`;
        /// engine/fan_saga.rs). Older logs have none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// When a parallel branch completed it (RFC 3339, UTC, ms): the
        /// join orders its branches' effects by it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ts: Option<String>,
        /// For an effect handed over from a branch: the keys its
        /// compensation sees over the run's blackboard (the branch's
        /// writes as the branch left them, then the effect's own).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        scope: Option<Box<serde_json::Map<String, Value>>>,
    },
    /// The compensation of the effect done at `step` ran.
    Compensated {
        /// The step of the [`EffectRecord::Done`] it undoes.
        step: u64,
        /// The `id` of that record, when it has one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The workflow.
        workflow: String,
        /// The node whose effect was undone.
        node: String,
        /// The compensating node.
        by: String,
        /// How it went.
        status: Status,
        /// Why it failed, for a failure.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
}

/// A compensation that ran, for the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Compensation {
    /// The workflow.
    pub workflow: String,
    /// The node whose effect was undone.
    pub node: String,
    /// The compensating node.
    pub by: String,
    /// `success` or `fail` (the compensating tool's outcome).
    pub status: Status,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// An `at_most_once` node that started but whose end the log does not
/// hold: it may or may not have taken effect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingEffect {
    /// The step it started in.
    pub step: u64,
    /// Its workflow.
    pub workflow: String,
    /// The node.
    pub node: String,
}

/// How the user settles a [`PendingEffect`] (`wfc run --resume DIR
/// --assume-done NODE` / `--rerun NODE`).
#[derive(Debug, Clone, PartialEq)]
pub enum Resolution {
    /// The effect happened: the node succeeds with these writes, without
    /// running again.
    AssumeDone {
        /// The node, as the user named it.
        node: String,
        /// Its outputs.
        writes: Vec<(String, Value)>,
    },
    /// The effect did not happen: the node runs again.
    Rerun {
        /// The node, as the user named it.
        node: String,
    },
}

impl Resolution {
    /// The node the resolution names.
    pub fn node(&self) -> &str {
        match self {
            Resolution::AssumeDone { node, .. } | Resolution::Rerun { node } => node,
        }
    }
}

/// A branch's executions of one `at_most_once` node in an earlier run, in
/// order: done (its step and what it produced) or unfinished (`None`).
pub(crate) type BranchHistory = std::collections::VecDeque<Option<(u64, StepInput)>>;

/// An effect with a compensation, in order of completion.
#[derive(Debug, Clone)]
pub(crate) struct Completed {
    pub step: u64,
    /// Its identity beside `step` (see [`EffectRecord::Done`]).
    pub id: Option<String>,
    pub workflow: String,
    pub node: String,
    pub compensate: String,
    /// When a branch engine completed it.
    pub ts: Option<String>,
    /// The keys its compensation sees over the run's blackboard (an
    /// effect handed over from a branch; a branch engine's own: its
    /// writes).
    pub scope: Option<Box<serde_json::Map<String, Value>>>,
    /// What it produced, kept by a branch engine only (its join hands it
    /// over: engine/fan_saga.rs).
    pub input: Option<Box<StepInput>>,
}

/// What a `done` record says beyond the step, node, key and input.
#[derive(Debug, Clone, Default)]
pub(crate) struct DoneExtra {
    pub compensate: Option<String>,
    pub id: Option<String>,
    pub ts: Option<String>,
    pub scope: Option<Box<serde_json::Map<String, Value>>>,
}

/// The engine's index of effects (rebuilt from the log on resume).
#[derive(Debug, Default)]
pub(crate) struct Effects {
    /// Whether any node of the program has an effect attribute: when not,
    /// steps pay nothing.
    pub any: bool,
    /// Completed effects by idempotence key: the step and what it produced.
    pub by_key: HashMap<String, (u64, StepInput)>,
    /// The last `done` record: its step may not have been committed.
    pub last_done: Option<(u64, Option<String>, StepInput)>,
    /// The `started` records of the latest step that has any (a fan-out
    /// whose branches wait records one per waiting node), less those a
    /// `done` record of the same step and node finished.
    pub last_started: Vec<PendingEffect>,
    /// The `at_most_once` nodes found unfinished on resume: one of the
    /// run itself, or one per waiting branch of a fan-out.
    pub pending: Vec<PendingEffect>,
    /// How the user settled some of `pending` (a branch engine: its own
    /// node's, by its own name).
    pub resolution: Vec<Resolution>,
    /// Effects that name a compensation, in order of completion.
    pub completed: Vec<Completed>,
    /// The steps whose compensation ran (effects without an `id`).
    pub compensated: HashSet<u64>,
    /// The ids of the effects whose compensation ran.
    pub compensated_ids: HashSet<String>,
    /// The ids of the effects in `completed`.
    pub completed_ids: HashSet<String>,
    /// A branch engine of a `.wf` fan-out: it keeps what its effects
    /// produced, for its join to hand over (engine/fan_saga.rs).
    pub in_branch: bool,
    /// The compensations that ran, in order.
    pub results: Vec<Compensation>,
    /// A branch engine's own folder (engine/fan_durable.rs), where it
    /// records its effects and journals its fan-outs.
    pub branch_dir: Option<std::path::PathBuf>,
    /// Records a fork carries from its source, to be written to its log
    /// when it gets one (engine/elsewhere.rs).
    pub carried: Vec<EffectRecord>,
    /// A branch engine's `at_most_once` nodes as an earlier run of the
    /// branch left them, by workflow and node, one entry per execution in
    /// order: done (its step and what it produced), or started and not
    /// finished (`None`) (engine/fan_effect.rs).
    pub branch_history: HashMap<(String, String), BranchHistory>,
    /// A branch engine's registry of keys, shared with its siblings
    /// (engine/fan_keys.rs).
    pub shared: Option<std::sync::Arc<crate::engine::fan_keys::SharedKeys>>,
    /// The key this branch engine claimed for the node it runs now.
    pub claim: Option<crate::engine::fan_keys::ClaimGuard>,
}

impl Effects {
    /// The index for `program` (empty).
    pub fn new(program: &IrProgram) -> Self {
        let any = program.workflows.iter().any(|w| {
            w.nodes.iter().any(|n| {
                [IDEMPOTENCE_KEY, EFFECT, COMPENSATE]
                    .iter()
                    .any(|k| n.spec.contains_key(*k))
            })
        });
        Effects {
            any,
            ..Effects::default()
        }
    }

    /// Adds one record read back from the log (resume).
    pub fn load(&mut self, record: EffectRecord) {
        match record {
            EffectRecord::Started {
                step,
                workflow,
                node,
            } => {
                if self.last_started.iter().any(|s| s.step != step) {
                    self.last_started.clear();
                }
                self.last_started.retain(|s| s.node != node);
                self.last_started.push(PendingEffect {
                    step,
                    workflow,
                    node,
                })
            }
            EffectRecord::Done {
                step,
                workflow,
                node,
                key,
                compensate,
                input,
                id,
                ts,
                scope,
            } => {
                // Finished (or settled, for a branch's node): no longer
                // pending.
                self.last_started
                    .retain(|s| !(s.step == step && s.node == node));
                // A log written before a `retry` stopped being recorded
                // holds some: no result to reuse (see `is_done`).
                if is_done(&input) {
                    let extra = DoneExtra {
                        compensate,
                        id,
                        ts,
                        scope,
                    };
                    self.add_done(step, workflow, node, key, extra, *input)
                }
            }
            EffectRecord::Compensated {
                step,
                id,
                workflow,
                node,
                by,
                status,
                reason,
            } => {
                match id {
                    Some(id) => self.compensated_ids.insert(id),
                    None => self.compensated.insert(step),
                };
                self.results.push(Compensation {
                    workflow,
                    node,
                    by,
                    status,
                    reason,
                });
            }
        }
    }

    /// Indexes a completed effect.
    pub fn add_done(
        &mut self,
        step: u64,
        workflow: String,
        node: String,
        key: Option<String>,
        extra: DoneExtra,
        input: StepInput,
    ) {
        if let Some(k) = &key {
            self.by_key.insert(k.clone(), (step, input.clone()));
        }
        if let Some(c) = extra.compensate {
            // A step replayed twice (a done record written again after a
            // kill) is one effect; so is an effect a join handed over
            // again (a kill before the fan-out's step record, a fan-out
            // suspended then resumed).
            let again = match &extra.id {
                Some(id) => self.completed_ids.contains(id),
                None => (self.completed.iter().rev())
                    .find(|l| l.id.is_none())
                    .is_some_and(|l| l.step == step),
            };
            if !again {
                if let Some(id) = &extra.id {
                    self.completed_ids.insert(id.clone());
                }
                // A branch engine's own effect: its compensation sees its
                // writes (engine/fan_saga.rs).
                let scope = match (extra.scope, self.in_branch) {
                    (Some(s), _) => Some(s),
                    (None, true) => Some(Box::new(writes_of(&input))),
                    (None, false) => None,
                };
                self.completed.push(Completed {
                    step,
                    id: extra.id,
                    workflow,
                    node,
                    compensate: c,
                    ts: extra.ts,
                    scope,
                    input: self.in_branch.then(|| Box::new(input.clone())),
                });
            }
        }
        self.last_done = Some((step, key, input));
    }

    /// After the log is loaded and `step` steps are committed: the
    /// `at_most_once` nodes started in the uncommitted step, with no
    /// `done` record, are pending.
    pub fn settle(&mut self, step: u64) {
        self.pending = std::mem::take(&mut self.last_started);
        // Later than `step`: carried over by an interrupted step
        // (engine/effect.rs, `carry_started`), not finished either.
        self.pending.retain(|s| s.step >= step);
    }
}

/// Whether `input` is a finished effect worth recording: an outcome that
/// neither failed nor asks for a retry. A `retry` (a backend that timed
/// out, a handler a kill cut short) says the attempt did not do its work:
/// recorded under the node's key, it would be what the retry reuses
/// instead of running, again and again until the attempts run out. A
/// `partial_success` is a result, recorded and reused as any.
pub(crate) fn is_done(input: &StepInput) -> bool {
    match input {
        StepInput::Tool { outcome, .. }
        | StepInput::Decision {
            decision: Decision::Advance(outcome),
            ..
        } => !matches!(outcome.status, Status::Fail | Status::Retry),
        _ => false,
    }
}

/// The writes of a finished effect's input, as a map (later writes of a
/// key win).
pub(crate) fn writes_of(input: &StepInput) -> serde_json::Map<String, Value> {
    let mut out = serde_json::Map::new();
    if let StepInput::Tool { outcome, .. }
    | StepInput::Decision {
        decision: Decision::Advance(outcome),
        ..
    } = input
    {
        for w in &outcome.writes {
            out.insert(w.key.clone(), w.value.clone());
        }
    }
    out
}

impl Completed {
    /// Whether its compensation ran.
    pub(crate) fn compensated(&self, effects: &Effects) -> bool {
        match &self.id {
            Some(id) => effects.compensated_ids.contains(id),
            None => effects.compensated.contains(&self.step),
        }
    }
}

/// The node of `wf` whose id is `name`.
pub(crate) fn node_named(program: &IrProgram, wf: WorkflowIdx, name: &str) -> Option<NodeIdx> {
    let w = &program.workflows[wf.0 as usize];
    w.nodes
        .iter()
        .position(|n| program.str(n.id) == name)
        .map(|i| NodeIdx(i as u32))
}

/// Whether `op` can carry an effect (`tool` runs a command; a `step` is
/// the agent's work).
pub fn is_effectful(op: Opcode) -> bool {
    matches!(op, Opcode::Tool | Opcode::Step)
}

/// Whether a log line is an effect record (step records start with
/// `{"step"`).
pub(crate) fn is_effect_line(line: &[u8]) -> bool {
    line.starts_with(b"{\"effect\"")
}

/// The effect records of `dir`'s log, in order, up to its last complete
/// line.
pub(crate) fn read_effects(
    dir: &crate::persist::RunDir,
) -> Result<Vec<EffectRecord>, crate::persist::PersistError> {
    use crate::persist::PersistError;
    let path = dir.log_path();
    let (bytes, complete) = crate::persist::read_lines_file(&path)?;
    let mut out = Vec::new();
    for (i, line) in bytes[..complete].split(|&b| b == b'\n').enumerate() {
        if !is_effect_line(line) {
            continue;
        }
        let record = serde_json::from_slice(line).map_err(|e| PersistError::Corrupt {
            path: path.clone(),
            line: Some(i + 1),
            message: e.to_string(),
        })?;
        out.push(record);
    }
    Ok(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::{EffectRecord, Effects};
    use crate::agent::Outcome;
    use crate::engine::StepInput;

    /// A `started` record of node `node` of workflow `W`.
    pub(crate) fn started(step: u64, node: &str) -> EffectRecord {
        EffectRecord::Started {
            step,
            workflow: "W".into(),
            node: node.into(),
        }
    }

    /// A `done` record of node `node` of workflow `W`: a tool's success.
    pub(crate) fn done(step: u64, node: &str) -> EffectRecord {
        EffectRecord::Done {
            step,
            workflow: "W".into(),
            node: node.into(),
            key: None,
            compensate: None,
            input: Box::new(StepInput::Tool {
                outcome: Outcome::success(),
                refused: false,
            }),
            id: None,
            ts: None,
            scope: None,
        }
    }

    fn pending(records: Vec<EffectRecord>, committed: u64) -> Vec<String> {
        let mut e = Effects::default();
        for r in records {
            e.load(r);
        }
        e.settle(committed);
        e.pending.into_iter().map(|p| p.node).collect()
    }

    /// A fan-out's suspension records one start per waiting branch node
    /// at the step that asks it again: all are pending, less those a
    /// `done` record of that step settled (a kill after the settlement was
    /// recorded); an earlier step's starts are superseded.
    #[test]
    fn every_unsettled_start_of_the_last_step_is_pending() {
        let a = "fan#1/a/charge";
        let b = "fan#1/b/ship";
        assert_eq!(
            pending(vec![started(1, "pay"), started(3, a), started(3, b)], 3),
            [a, b]
        );
        assert_eq!(
            pending(vec![started(3, a), started(3, b), done(3, a)], 3),
            [b]
        );
        // The root's own node, finished before its step record was cut off.
        assert!(pending(vec![started(5, "pay"), done(5, "pay")], 5).is_empty());
        // Committed: the step that started it is in the log.
        assert!(pending(vec![started(2, "pay")], 3).is_empty());
    }

    /// A `done` record of a `retry` (written before such attempts stopped
    /// being recorded) is no result: its key is not indexed, so the node
    /// runs again rather than reusing the `retry` until its attempts run
    /// out.
    #[test]
    fn a_logged_retry_is_not_reused() {
        let retry = |key: &str| EffectRecord::Done {
            step: 1,
            workflow: "W".into(),
            node: "quote".into(),
            key: Some(key.into()),
            compensate: None,
            input: Box::new(StepInput::Tool {
                outcome: Outcome {
                    status: crate::agent::Status::Retry,
                    ..Outcome::success()
                },
                refused: false,
            }),
            id: None,
            ts: None,
            scope: None,
        };
        let mut e = Effects::default();
        e.load(retry("k"));
        assert!(e.by_key.is_empty() && e.last_done.is_none());
    }

    /// Effects a fan-out's join handed over share its step and are told
    /// apart by their id: one handed over again (a kill before the step
    /// record, a suspended fan-out asked again) is one effect, and a
    /// `compensated` line settles the effect its id names. Lines without
    /// an id (the run's own effects, older logs) keep their meaning: the
    /// step is the effect.
    #[test]
    fn handed_over_effects_are_told_apart_by_id() {
        let comp = |step: u64, id: Option<&str>, node: &str| {
            let mut r = done(step, node);
            if let EffectRecord::Done {
                compensate, id: i, ..
            } = &mut r
            {
                *compensate = Some("undo".into());
                *i = id.map(str::to_owned);
            }
            r
        };
        let undone = |step: u64, id: Option<&str>| EffectRecord::Compensated {
            step,
            id: id.map(str::to_owned),
            workflow: "W".into(),
            node: "n".into(),
            by: "undo".into(),
            status: crate::agent::Status::Success,
            reason: None,
        };
        let mut e = Effects::default();
        for r in [
            comp(1, None, "book"),
            comp(1, None, "book"),
            comp(2, Some("fan#1/a/hotel@1"), "fan#1/a/hotel"),
            comp(2, Some("fan#1/b/flight@1"), "fan#1/b/flight"),
            comp(2, Some("fan#1/a/hotel@1"), "fan#1/a/hotel"),
            comp(3, None, "insure"),
            undone(3, None),
            undone(2, Some("fan#1/b/flight@1")),
        ] {
            e.load(r);
        }
        let nodes = |e: &Effects, due: bool| -> Vec<String> {
            (e.completed.iter())
                .filter(|c| !due || !c.compensated(e))
                .map(|c| c.node.clone())
                .collect()
        };
        assert_eq!(
            nodes(&e, false),
            ["book", "fan#1/a/hotel", "fan#1/b/flight", "insure"]
        );
        assert_eq!(nodes(&e, true), ["book", "fan#1/a/hotel"]);
    }
}
