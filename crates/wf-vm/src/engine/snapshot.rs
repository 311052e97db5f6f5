//! The engine's state as a serialisable snapshot, and back.

use std::time::Duration;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use wf_ir::{EdgeIdx, IrProgram, NodeIdx, WorkflowIdx};

use super::{Engine, EngineError};
use crate::agent::Status;
use crate::blackboard::{Entry, Frame, Phase};
use crate::config::{EngineConfig, RunLimits};
use crate::contract::{self, serialized_size};
use crate::report::{FailureRecord, RunStatus};

/// The value of [`Snapshot::format`].
pub const SNAPSHOT_FORMAT: &str = "wfc-run-snapshot";

/// A full, self-contained picture of a run (`snapshot.json` of a run
/// directory; see `docs/runtime.md`). Names, not indices, so a snapshot is
/// readable and checked against the program on restore.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Snapshot {
    /// Always `"wfc-run-snapshot"`.
    pub format: String,
    /// Always 1.
    pub version: u32,
    /// The root workflow's name.
    pub workflow: String,
    /// Steps taken: the log's records from this step on come after it.
    pub step: u64,
    /// Whether the first `node:enter` has happened.
    pub started: bool,
    /// The status.
    pub status: RunStatus,
    /// Active running time so far, in milliseconds.
    pub elapsed_ms: u64,
    /// The limits in force (a resumed run keeps them).
    pub limits: LimitsSnapshot,
    /// The call stack, root first.
    pub frames: Vec<FrameSnapshot>,
    /// Visit counts of the nodes entered at least once, a run of
    /// neighbouring nodes with the same count in one entry.
    pub visits: Vec<VisitSnapshot>,
    /// The failure trace.
    pub failures: Vec<FailureRecord>,
    /// The id of the edge the current node was entered by (Attractor
    /// fidelity resolution); left out when the node was not entered by an
    /// edge (the start, a retry-target jump).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incoming_edge: Option<String>,
    /// In `start.json` only: where a run that did not start at its
    /// workflow's entry started (`wfc run --from`, `--fork`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<super::Origin>,
    /// The run's id, kept across resumes (absent in snapshots written
    /// before runs had one: a resume then gives the run a new id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The embedder writes an Attractor checkpoint from the events
    /// ([`Engine::set_checkpoints`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub checkpoints: bool,
    /// The stage that ended last, as the next `CheckpointSaved` names it
    /// (its `node_id`): a resumed run that ends at once (cancelled,
    /// `wfc cancel`) saves the same checkpoint as a replay does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint_node: Option<String>,
}

/// [`RunLimits`] with durations in milliseconds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct LimitsSnapshot {
    pub max_steps: u64,
    pub max_visits: u64,
    pub max_depth: u64,
    pub wall_clock_ms: u64,
    pub node_timeout_ms: u64,
    pub max_write_bytes: usize,
    pub max_blackboard_bytes: usize,
}

/// One call frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrameSnapshot {
    /// The workflow's name.
    pub workflow: String,
    /// The current node's id (for a caller: the call node).
    pub node: String,
    /// `entered` (not decided yet) or `returned` (a call whose callee
    /// completed).
    pub phase: String,
    /// The attempt at the node (1 = first).
    pub attempt: u32,
    /// The node was entered by failure routing (completing there is a
    /// failure exit); left out when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub entered_by_failure: bool,
    /// At a call node whose callee failed: why (the next step fails the
    /// call node with it); left out otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub callee_failure: Option<String>,
    /// The local blackboard, oldest first.
    pub entries: Vec<EntrySnapshot>,
    /// Goal-gate outcomes recorded in this frame.
    pub gates: Vec<GateSnapshot>,
    /// For a callee with a `max_steps` or `wall_clock` of its own: the
    /// step that pushed it and the run's active milliseconds then (where
    /// its budget counts from).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pushed: Option<[u64; 2]>,
}

/// One blackboard entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntrySnapshot {
    /// The key.
    pub key: String,
    /// The value.
    pub value: Value,
    /// The node that wrote it.
    pub node: String,
    /// The step that wrote it.
    pub step: u64,
}

/// A goal gate's latest outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateSnapshot {
    /// The gate node's id.
    pub node: String,
    /// Its latest status.
    pub status: Status,
}

/// How often a node, or a run of nodes, was entered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VisitSnapshot {
    /// The workflow's name.
    pub workflow: String,
    /// The node's id (with `through`: the run's first node).
    pub node: String,
    /// Entries so far (of each node of the run).
    pub count: u32,
    /// The last node of a run of nodes that follow `node` in the
    /// program's order (`workflows[].nodes`) and were all entered `count`
    /// times; left out for a single node. A chain's visits are one entry,
    /// so a snapshot's cost does not grow with the nodes a run has passed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub through: Option<String>,
}

fn phase_name(p: Phase) -> &'static str {
    match p {
        Phase::Entered => "entered",
        Phase::Returned => "returned",
    }
}

impl<'p> Engine<'p> {
    /// The run's state now.
    pub fn snapshot(&self) -> Snapshot {
        let l = &self.limits;
        let frames = self
            .frames
            .iter()
            .map(|f| FrameSnapshot {
                workflow: self.wf_name(f.workflow).to_owned(),
                node: self.node_name(f.workflow, f.node).to_owned(),
                phase: phase_name(f.phase).to_owned(),
                attempt: f.attempt,
                entered_by_failure: f.entered_by_failure,
                callee_failure: f.callee_failure.clone(),
                entries: f
                    .entries
                    .iter()
                    .map(|e| EntrySnapshot {
                        key: self.keys.name(e.key).to_owned(),
                        value: e.value.clone(),
                        node: self.node_name(f.workflow, e.node).to_owned(),
                        step: e.step,
                    })
                    .collect(),
                gates: f
                    .gates
                    .iter()
                    .map(|&(n, status)| GateSnapshot {
                        node: self.node_name(f.workflow, n).to_owned(),
                        status,
                    })
                    .collect(),
                pushed: (self.info[f.workflow.0 as usize].budget != (None, None))
                    .then_some([f.pushed.0, f.pushed.1.as_millis() as u64]),
            })
            .collect();
        let mut visits = Vec::new();
        for (w, info) in self.info.iter().enumerate() {
            let wf = WorkflowIdx(w as u32);
            let n = self.program.workflows[w].nodes.len();
            let counts = &self.visits[info.visit_base..info.visit_base + n];
            for (first, last, count) in visit_runs(counts) {
                visits.push(VisitSnapshot {
                    workflow: self.wf_name(wf).to_owned(),
                    node: self.node_name(wf, NodeIdx(first as u32)).to_owned(),
                    count,
                    through: (last > first)
                        .then(|| self.node_name(wf, NodeIdx(last as u32)).to_owned()),
                });
            }
        }
        Snapshot {
            format: SNAPSHOT_FORMAT.to_owned(),
            version: 1,
            workflow: self.wf_name(self.root).to_owned(),
            step: self.step,
            started: self.started,
            status: self.status.clone(),
            elapsed_ms: self.elapsed_now().as_millis() as u64,
            limits: LimitsSnapshot {
                max_steps: l.max_steps,
                max_visits: l.max_visits,
                max_depth: l.max_depth,
                wall_clock_ms: l.wall_clock.as_millis() as u64,
                node_timeout_ms: l.node_timeout.as_millis() as u64,
                max_write_bytes: l.max_write_bytes,
                max_blackboard_bytes: l.max_blackboard_bytes,
            },
            frames,
            visits,
            failures: self.failures.clone(),
            incoming_edge: self.incoming.map(|e| {
                let f = self.frames.last().expect("the root frame is never popped");
                let wf = &self.program.workflows[f.workflow.0 as usize];
                self.program.str(wf.edges[e.0 as usize].id).to_owned()
            }),
            origin: None,
            run_id: Some(self.out.clock.run.clone()),
            checkpoints: self.out.lifecycle.as_ref().is_some_and(|l| l.checkpoints),
            checkpoint_node: self
                .out
                .lifecycle
                .as_ref()
                .and_then(|l| l.completed.clone()),
        }
    }

    /// An engine in the state `snap` describes; every name is checked
    /// against `program`. The snapshot's limits replace `config.limits`.
    pub fn restore(
        program: &'p IrProgram,
        snap: &Snapshot,
        mut config: EngineConfig,
    ) -> Result<Self, EngineError> {
        let bad = |m: String| EngineError::Snapshot(m);
        if snap.format != SNAPSHOT_FORMAT || snap.version != 1 {
            return Err(bad(format!(
                "unknown snapshot format `{}` version {}",
                snap.format, snap.version
            )));
        }
        let root = program
            .workflow_by_name(&snap.workflow)
            .ok_or_else(|| bad(format!("no workflow `{}`", snap.workflow)))?;
        // A snapshot is untrusted input: its limits may lower the ones the
        // program and `config` allow (a resumed run keeps the limits it
        // started with), never raise them.
        let ceiling = config.effective(&program.workflows[root.0 as usize].limits);
        config.limits = snap.limits.within(&ceiling);
        // The root workflow's own limits were already applied when the
        // snapshot was taken; keep the snapshot's values.
        let mut engine = Engine::new(program, root, config)?;
        engine.limits = engine.config.limits.clone();
        let mut node_ids: Vec<Option<FxHashMap<&str, NodeIdx>>> =
            vec![None; program.workflows.len()];
        let mut find = |wf: WorkflowIdx, id: &str| -> Result<NodeIdx, EngineError> {
            let map = node_ids[wf.0 as usize].get_or_insert_with(|| {
                program.workflows[wf.0 as usize]
                    .nodes
                    .iter()
                    .enumerate()
                    .map(|(i, n)| (program.str(n.id), NodeIdx(i as u32)))
                    .collect()
            });
            map.get(id).copied().ok_or_else(|| {
                bad(format!(
                    "workflow `{}` has no node `{id}`",
                    program.str(program.workflows[wf.0 as usize].name)
                ))
            })
        };
        let wf_of = |name: &str| {
            program
                .workflow_by_name(name)
                .ok_or_else(|| bad(format!("no workflow `{name}`")))
        };
        engine.frames.clear();
        engine.visible.clear();
        engine.bb_bytes = 0;
        for (i, fs) in snap.frames.iter().enumerate() {
            let wf = wf_of(&fs.workflow)?;
            if i == 0 && wf != root {
                return Err(bad("the first frame is not the root workflow".into()));
            }
            let mut frame = Frame::new(wf, find(wf, &fs.node)?);
            frame.phase = match fs.phase.as_str() {
                "entered" => Phase::Entered,
                "returned" => Phase::Returned,
                other => return Err(bad(format!("unknown frame phase `{other}`"))),
            };
            frame.attempt = fs.attempt.max(1);
            if let Some([step, ms]) = fs.pushed {
                frame.pushed = (step.min(snap.step), Duration::from_millis(ms));
            }
            frame.entered_by_failure = fs.entered_by_failure;
            frame.callee_failure = fs.callee_failure.clone();
            frame.key_mark = engine.keys.len();
            for e in &fs.entries {
                let value_size = serialized_size(&e.value);
                let node = find(wf, &e.node)?;
                check_entry(program, wf, node, e, value_size, &engine.limits).map_err(|m| {
                    bad(format!("frame {} (workflow `{}`): {m}", i + 1, fs.workflow))
                })?;
                let size = value_size + e.key.len();
                engine.bb_bytes += size;
                if engine.bb_bytes > engine.limits.max_blackboard_bytes {
                    return Err(bad(format!(
                        "its entries are over the blackboard's limit of {} bytes (max_blackboard_bytes)",
                        engine.limits.max_blackboard_bytes
                    )));
                }
                let entry = Entry {
                    key: engine.keys.intern(&e.key),
                    value: e.value.clone(),
                    node,
                    step: e.step,
                    size: size as u32,
                };
                frame.push(entry, i + 1, &mut engine.visible);
            }
            for g in &fs.gates {
                frame.record_gate(find(wf, &g.node)?, g.status);
            }
            engine.frames.push(frame);
        }
        if engine.frames.is_empty() {
            return Err(bad("the snapshot has no frames".into()));
        }
        if engine.frames.len() as u64 > engine.limits.max_depth {
            return Err(bad(format!(
                "it has {} frames, over the call depth limit of {} (max_depth)",
                engine.frames.len(),
                engine.limits.max_depth
            )));
        }
        for v in &snap.visits {
            let wf = wf_of(&v.workflow)?;
            let first = find(wf, &v.node)?.0 as usize;
            let last = match &v.through {
                Some(through) => find(wf, through)?.0 as usize,
                None => first,
            };
            if last < first {
                return Err(bad(format!(
                    "the visits of `{}` run through `{}`, which comes before it in workflow `{}`",
                    v.node,
                    v.through.as_deref().unwrap_or_default(),
                    v.workflow
                )));
            }
            let base = engine.info[wf.0 as usize].visit_base;
            engine.visits[base + first..=base + last].fill(v.count);
        }
        engine.step = snap.step;
        engine.started = snap.started;
        engine.status = snap.status.clone();
        engine.elapsed = Duration::from_millis(snap.elapsed_ms);
        engine.failures = snap.failures.clone();
        if let Some(run) = &snap.run_id {
            engine.out.clock.run = run.clone();
        }
        engine.out.clock.active_before_ms = snap.elapsed_ms;
        engine.set_checkpoints(snap.checkpoints);
        if let Some(l) = &mut engine.out.lifecycle {
            l.completed = snap.checkpoint_node.clone();
        }
        if let Some(id) = &snap.incoming_edge {
            let f = engine.frames.last().expect("checked above");
            let wf = &program.workflows[f.workflow.0 as usize];
            let found = wf.edges.iter().position(|e| program.str(e.id) == id);
            engine.incoming = Some(EdgeIdx(
                found.ok_or_else(|| bad(format!("no edge `{id}`")))? as u32,
            ));
        }
        // The lifecycle events go on as a replay from the start derives
        // them: the stage entered last is where the run stands, the stage
        // that ended last the one it came from (a run resumed after a
        // suspension saves its checkpoint naming it).
        if engine.frames.len() == 1 && engine.out.lifecycle.is_some() {
            let f = &engine.frames[0];
            let wf = &program.workflows[f.workflow.0 as usize];
            let current = program.str(wf.nodes[f.node.0 as usize].id).to_owned();
            let from = engine.incoming.map(|e| {
                program
                    .str(wf.nodes[wf.edges[e.0 as usize].from.0 as usize].id)
                    .to_owned()
            });
            if let Some(l) = &mut engine.out.lifecycle {
                l.resume_at(current, from, snap.step > 0);
            }
        }
        Ok(engine)
    }
}

/// The runs of equal, non-zero counts in `counts`: first index, last
/// index, count.
fn visit_runs(counts: &[u32]) -> impl Iterator<Item = (usize, usize, u32)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        i += counts[i..].iter().position(|&c| c > 0)?;
        let count = counts[i];
        let len = counts[i..].iter().take_while(|&&c| c == count).count();
        let run = (i, i + len - 1, count);
        i += len;
        Some(run)
    })
}

impl Snapshot {
    /// The visits one entry per node (as snapshots were written before
    /// runs of nodes shared one), for comparing snapshots whatever form
    /// they were written in. Entries whose names `program` does not know
    /// are kept as they are.
    pub fn visits_per_node(&self, program: &IrProgram) -> Vec<VisitSnapshot> {
        let mut indices: FxHashMap<&str, FxHashMap<&str, usize>> = FxHashMap::default();
        let mut out = Vec::with_capacity(self.visits.len());
        for v in &self.visits {
            let range = v.through.as_ref().and_then(|through| {
                let wf = program.workflow_by_name(&v.workflow)?;
                let nodes = &program.workflows[wf.0 as usize].nodes;
                let index = indices.entry(&v.workflow).or_insert_with(|| {
                    nodes
                        .iter()
                        .enumerate()
                        .map(|(i, n)| (program.str(n.id), i))
                        .collect()
                });
                Some((
                    nodes,
                    *index.get(v.node.as_str())?,
                    *index.get(through.as_str())?,
                ))
            });
            match range {
                Some((nodes, first, last)) if first <= last => {
                    out.extend(nodes[first..=last].iter().map(|n| VisitSnapshot {
                        workflow: v.workflow.clone(),
                        node: program.str(n.id).to_owned(),
                        count: v.count,
                        through: None,
                    }));
                }
                _ => out.push(v.clone()),
            }
        }
        out
    }
}

impl LimitsSnapshot {
    /// These limits, none above `ceiling`'s.
    fn within(&self, ceiling: &RunLimits) -> RunLimits {
        RunLimits {
            max_steps: self.max_steps.min(ceiling.max_steps),
            max_visits: self.max_visits.min(ceiling.max_visits),
            max_depth: self.max_depth.min(ceiling.max_depth),
            wall_clock: Duration::from_millis(self.wall_clock_ms).min(ceiling.wall_clock),
            node_timeout: Duration::from_millis(self.node_timeout_ms).min(ceiling.node_timeout),
            max_write_bytes: self.max_write_bytes.min(ceiling.max_write_bytes),
            max_blackboard_bytes: self.max_blackboard_bytes.min(ceiling.max_blackboard_bytes),
        }
    }
}

/// The checks of a live write (docs/runtime.md, section 5), for a restored
/// entry: reserved keys, the size limit and the type the writing node
/// declares.
fn check_entry(
    program: &IrProgram,
    wf: WorkflowIdx,
    node: NodeIdx,
    e: &EntrySnapshot,
    size: usize,
    limits: &RunLimits,
) -> Result<(), String> {
    let key = &e.key;
    if contract::is_reserved(key) {
        return Err(format!(
            "the entry `{key}` has a key reserved for the runtime (`_…`, `internal.…`)"
        ));
    }
    if size > limits.max_write_bytes {
        return Err(format!(
            "the entry `{key}` is {size} bytes serialized, over the limit of {} (max_write_bytes)",
            limits.max_write_bytes
        ));
    }
    let ir = &program.workflows[wf.0 as usize].nodes[node.0 as usize];
    let declared = ir.writes.iter().find(|w| program.str(w.key) == key);
    if let Some(decl) = declared
        && !contract::type_matches(decl.ty, &e.value)
    {
        return Err(format!(
            "the entry `{key}` is {} but node `{}` declares it `{}`",
            contract::json_type(&e.value),
            e.node,
            contract::type_name(decl.ty)
        ));
    }
    Ok(())
}
