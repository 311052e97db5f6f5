//! The engine: a loop over the IR tables (see the crate docs for the API
//! and `docs/runtime.md` for the semantics).

mod apply;
mod ask;
mod budget;
mod complete;
mod durable;
mod effect;
mod elsewhere;
mod fan_branch;
mod fan_durable;
mod fan_effect;
pub(crate) mod fan_keys;
mod fan_out;
pub(crate) mod fan_pool;
pub(crate) mod fan_saga;
mod fan_wait;
mod interrupted;
mod lifecycle;
mod merge;
mod position;
mod replay;
mod restart;
mod route;
mod screen;
mod snapshot;
mod step;
mod support;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wf_ir::{EdgeIdx, IrProgram, NodeIdx, Opcode, WorkflowIdx};

use crate::agent::{Decision, DecisionAgent, Outcome, ToolRunner};
use crate::blackboard::{Blackboard, Entry, Frame, KeyTable, Visible};
use crate::config::{EngineConfig, RunLimits};
use crate::contract;
use crate::event::{Event, EventSink};
use crate::failure::{FailureKind, RunFailure};
use crate::guard::Regexes;
use crate::persist::{EventText, PersistError, RunLog};
use crate::report::{FailureRecord, Report, RunStatus};
use crate::select::normalize_label;
use crate::stamp::StampClock;

pub use elsewhere::{ForkError, Origin};
pub use replay::{Divergence, Replay};
pub(crate) use screen::long_key;
pub use snapshot::{
    EntrySnapshot, FrameSnapshot, GateSnapshot, LimitsSnapshot, SNAPSHOT_FORMAT, Snapshot,
    VisitSnapshot,
};

/// Why an engine could not be built or restored.
#[derive(Debug)]
pub enum EngineError {
    /// The program cannot run (an invalid regular expression, no such
    /// workflow, …).
    Program(String),
    /// A snapshot does not fit the program.
    Snapshot(String),
    /// The run directory could not be read or written.
    Persist(PersistError),
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EngineError::Program(m) => write!(f, "cannot run the program: {m}"),
            EngineError::Snapshot(m) => write!(f, "the snapshot does not fit the program: {m}"),
            EngineError::Persist(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for EngineError {}

impl EngineError {
    /// The kind of failure: `program` for a program that cannot run,
    /// `store` for a snapshot or run directory that cannot be used.
    pub fn kind(&self) -> FailureKind {
        match self {
            EngineError::Program(_) => FailureKind::Program,
            EngineError::Snapshot(_) | EngineError::Persist(_) => FailureKind::Store,
        }
    }
}

impl From<PersistError> for EngineError {
    fn from(e: PersistError) -> Self {
        EngineError::Persist(e)
    }
}

/// What one step ran on: recorded in the run log, re-applied on resume.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "input", rename_all = "snake_case")]
pub enum StepInput {
    /// The engine acted alone (a call node pushed its callee).
    Engine,
    /// The agent's decision, after the engine's timeout check (an agent
    /// slower than the node timeout is recorded as the failure it caused).
    Decision {
        /// The decision.
        decision: Decision,
        /// The kind of a failure the engine made of the decision (`limit`
        /// for a timeout); absent for the agent's own answer.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        failure: Option<FailureKind>,
    },
    /// A tool node's outcome (from the tool runner, or the refusal).
    Tool {
        /// The outcome.
        outcome: Outcome,
        /// The engine refused the command before it ran (no tool runner,
        /// a refused interpolation, no command): a retry cannot change
        /// that, so the failure is final (not retried, no backoff).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        refused: bool,
    },
    /// The agent failed to decide (or, with `suspend_on_agent_error`,
    /// was slower than the node's timeout).
    AgentError {
        /// Its message.
        message: String,
        /// The run suspended on it (`EngineConfig::suspend_on_agent_error`
        /// when it happened) instead of failing: recorded, so a resume
        /// replays the same end whatever the resuming configuration says.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        suspended: bool,
        /// The kind recorded in the failure trace: absent for `agent`,
        /// `limit` for a timed-out decision.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        failure: Option<FailureKind>,
    },
    /// The run was stopped by a limit that depends on time, or by an
    /// event sink that lost events.
    Abort {
        /// Why.
        reason: String,
        /// The kind of failure (absent in logs written before failures had
        /// kinds: then `limit`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        kind: Option<FailureKind>,
    },
    /// A callee went over its own `max_steps` or `wall_clock`: its frame
    /// (and those above it) are dropped and its call node fails.
    OverBudget {
        /// The callee's frame depth (2 or more).
        depth: usize,
        /// Why.
        reason: String,
    },
    /// A completed effect reused without running (`crate::effects`): an
    /// idempotence key seen before, or a node whose `done` record
    /// outlived a kill. `produced` is what it produced then.
    Reused {
        /// The idempotence key, when the node has one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<String>,
        /// The step the effect ran in.
        of_step: u64,
        /// What it produced (a `tool` or `decision` input).
        produced: Box<StepInput>,
    },
}

/// Per-workflow tables computed once.
pub(crate) struct WfInfo {
    /// Normalised edge labels, by edge index.
    pub labels: Vec<Option<Box<str>>>,
    /// Offset of this workflow's nodes in the visit counters.
    pub visit_base: usize,
    pub max_visits: u64,
    pub default_retries: u32,
    pub default_timeout: Duration,
    /// The workflow's own `max_steps` and `wall_clock`: budgets of a call
    /// to it (the root's are in the run's limits instead).
    pub budget: (Option<u64>, Option<Duration>),
}

/// Where events go: a sink, the run log, both or neither.
pub(crate) struct Outputs<'p> {
    pub sink: Option<Box<dyn EventSink + 'p>>,
    pub log: Option<RunLog>,
    /// Re-applying logged steps on resume: nothing is emitted again.
    pub replaying: bool,
    /// The run id and times every event carries (crate::stamp).
    pub clock: StampClock,
    /// A `.dot` run's seed 9.6 lifecycle events (lifecycle.rs).
    pub lifecycle: Option<lifecycle::Lifecycle>,
    /// Where handlers leave the questions nested engines wait on (ask.rs).
    pub questions: Option<crate::question::WaitingQuestions>,
    /// The buffer events are serialised into.
    pub text: EventText,
}

impl Outputs<'_> {
    #[inline]
    pub fn on(&self) -> bool {
        !self.replaying && (self.sink.is_some() || self.log.is_some())
    }

    pub fn emit(&mut self, event: &Event<'_>) {
        if self.replaying {
            return;
        }
        let derived = match &mut self.lifecycle {
            Some(l) => l.derive(event),
            None => Vec::new(),
        };
        for d in derived.iter().filter(|d| d.before) {
            self.emit_derived(d, None);
        }
        let duration = self.emit_one(event, None);
        for d in derived.iter().filter(|d| !d.before) {
            self.emit_derived(d, if d.timed { duration } else { None });
        }
    }

    /// A derived lifecycle event, as a `handler:event` of the pipeline.
    fn emit_derived(&mut self, d: &lifecycle::Derived, duration: Option<u64>) {
        let workflow = self
            .lifecycle
            .as_ref()
            .map(|l| l.pipeline().to_owned())
            .unwrap_or_default();
        let ev = Event::HandlerEvent {
            step: d.step,
            workflow: &workflow,
            node: &d.node,
            name: d.name,
            data: &d.data,
        };
        self.emit_one(&ev, duration);
    }

    /// Stamps one event and sends it out; its stamp's duration (or
    /// `duration`, when given) is returned.
    fn emit_one(&mut self, event: &Event<'_>, duration: Option<u64>) -> Option<u64> {
        let mut stamp = self.clock.stamp(event);
        if duration.is_some() {
            stamp.duration_ms = duration;
        }
        // Serialised once for a JSON sink and the log (persist/event_text.rs).
        let (sink, log) = (self.sink.as_deref_mut(), self.log.as_mut());
        self.text.send(event, &stamp, sink, log);
        stamp.duration_ms
    }
}

/// Runs one workflow of a verified program.
///
/// ```no_run
/// # use wf_vm::{Engine, EngineConfig, agents::AutoAgent};
/// # fn demo(program: &wf_ir::IrProgram) -> Result<(), wf_vm::EngineError> {
/// let wf = program.workflow_by_name("Release").expect("exists");
/// let mut engine = Engine::new(program, wf, EngineConfig::default())?;
/// let report = engine.run(&mut AutoAgent::new());
/// println!("{}: {} steps", report.status.name(), report.steps);
/// # Ok(()) }
/// ```
pub struct Engine<'p> {
    pub(crate) program: &'p IrProgram,
    pub(crate) root: WorkflowIdx,
    pub(crate) config: EngineConfig,
    pub(crate) limits: RunLimits,
    pub(crate) info: Vec<WfInfo>,
    pub(crate) regexes: Regexes,
    pub(crate) keys: KeyTable,
    pub(crate) frames: Vec<Frame>,
    pub(crate) visible: Visible,
    /// Popped frames kept for reuse (no allocation per call in the loop).
    pub(crate) spare: Vec<Frame>,
    pub(crate) visits: Vec<u32>,
    pub(crate) step: u64,
    pub(crate) status: RunStatus,
    pub(crate) started: bool,
    pub(crate) failures: Vec<FailureRecord>,
    pub(crate) elapsed: Duration,
    pub(crate) clock_mark: Option<Instant>,
    /// The last step may have taken time (a tool, a backoff sleep, a
    /// handler): the next step reads the clock whatever the agent.
    pub(crate) clock_due: bool,
    /// Whether some workflow the root may call has a budget of its own.
    pub(crate) budgets: bool,
    pub(crate) bb_bytes: usize,
    pub(crate) valid: Vec<EdgeIdx>,
    /// Whether a guard took part in computing `valid` (else the set
    /// cannot change with the outcome and is not computed again).
    pub(crate) valid_guarded: bool,
    /// The edges the agent was shown, once `valid` has been evaluated
    /// again for the real outcome (a buffer kept between steps).
    pub(crate) shown: Vec<EdgeIdx>,
    pub(crate) out: Outputs<'p>,
    pub(crate) tools: Option<Box<dyn ToolRunner + 'p>>,
    pub(crate) sleeper: Box<dyn FnMut(Duration) + 'p>,
    /// The edge the current node was entered by (`None` at the start and
    /// after a jump): Attractor fidelity resolution reads it.
    pub(crate) incoming: Option<EdgeIdx>,
    /// See [`Engine::persist_warning`].
    pub(crate) persist_warning: Option<String>,
    /// Effects that happen once (`crate::effects`).
    pub(crate) effects: crate::effects::Effects,
}

impl<'p> Engine<'p> {
    /// An engine at the entry of workflow `root`, not started yet. Fails when
    /// a guard's regular expression does not compile or `root` is out of
    /// range.
    pub fn new(
        program: &'p IrProgram,
        root: WorkflowIdx,
        config: EngineConfig,
    ) -> Result<Self, EngineError> {
        let Some(root_wf) = program.workflows.get(root.0 as usize) else {
            return Err(EngineError::Program(format!(
                "no workflow with index {}",
                root.0
            )));
        };
        let regexes = Regexes::new(program).map_err(EngineError::Program)?;
        let limits = config.effective(&root_wf.limits);
        let mut info = Vec::with_capacity(program.workflows.len());
        let mut base = 0;
        for wf in &program.workflows {
            let labels = wf
                .edges
                .iter()
                .map(|e| e.label.map(|l| normalize_label(program.str(l)).into()))
                .collect();
            info.push(WfInfo {
                labels,
                visit_base: base,
                max_visits: wf.limits.max_visits.unwrap_or(match wf.dialect {
                    // Attractor pipelines loop; a loop that never exits
                    // should fail early with a clear reason.
                    wf_ir::Dialect::Attractor => {
                        limits.max_visits.min(crate::attractor::DEFAULT_MAX_VISITS)
                    }
                    wf_ir::Dialect::Wf => limits.max_visits,
                }),
                default_retries: wf.limits.default_retries.unwrap_or(0),
                default_timeout: wf
                    .limits
                    .default_timeout_ms
                    .map(Duration::from_millis)
                    .unwrap_or(limits.node_timeout),
                budget: (
                    wf.limits.max_steps,
                    wf.limits.wall_clock_ms.map(Duration::from_millis),
                ),
            });
            base += wf.nodes.len();
        }
        let budgets = info
            .iter()
            .enumerate()
            .any(|(i, w)| i != root.0 as usize && (w.budget.0.is_some() || w.budget.1.is_some()));
        Ok(Engine {
            program,
            root,
            budgets,
            limits,
            info,
            regexes,
            keys: KeyTable::new(program),
            frames: vec![Frame::new(root, root_wf.entry)],
            visible: Visible::default(),
            spare: Vec::new(),
            visits: vec![0; base],
            step: 0,
            status: RunStatus::Running,
            started: false,
            failures: Vec::new(),
            elapsed: Duration::ZERO,
            clock_mark: None,
            clock_due: false,
            bb_bytes: 0,
            valid: Vec::new(),
            valid_guarded: false,
            shown: Vec::new(),
            out: Outputs {
                sink: None,
                log: None,
                replaying: false,
                questions: None,
                clock: StampClock::new(crate::stamp::new_run_id()),
                lifecycle: (root_wf.dialect == wf_ir::Dialect::Attractor).then(|| {
                    lifecycle::Lifecycle::new(
                        program.str(root_wf.name),
                        root_wf.nodes.iter().map(|n| program.str(n.id)),
                    )
                }),
                text: EventText::default(),
            },
            tools: None,
            sleeper: Box::new(std::thread::sleep),
            incoming: None,
            persist_warning: None,
            effects: crate::effects::Effects::new(program),
            config,
        })
    }

    /// The run's id: a UUID v7 made when the engine was created, or the
    /// one a restored snapshot holds (every event carries it as `run`).
    pub fn run_id(&self) -> &str {
        &self.out.clock.run
    }

    /// Says that the embedder writes an Attractor pipeline's checkpoint
    /// from the events (wfc's `checkpoint.json`): the stream then carries
    /// `CheckpointSaved` when it is due (docs/runtime.md, section 7.2).
    /// Kept in the run's snapshots, so a resume and a replay say the same.
    /// No effect on a `.wf` workflow. Call it before `persist_to`.
    pub fn set_checkpoints(&mut self, on: bool) {
        if let Some(l) = &mut self.out.lifecycle {
            l.checkpoints = on;
        }
    }

    /// Sends every event to `sink` (events are not built without a sink or
    /// a run directory).
    pub fn set_event_sink(&mut self, sink: Box<dyn EventSink + 'p>) {
        self.out.sink = Some(sink);
    }

    /// Runs `tool` nodes with `runner` (`--allow-tools`); without one a tool
    /// node fails with a refusal.
    pub fn set_tool_runner(&mut self, runner: Box<dyn ToolRunner + 'p>) {
        self.tools = Some(runner);
    }

    /// Replaces `std::thread::sleep` for retry backoff delays (tests pass a
    /// function that records the delay instead of waiting).
    pub fn set_sleeper(&mut self, sleeper: Box<dyn FnMut(Duration) + 'p>) {
        self.sleeper = sleeper;
    }

    /// Writes an input value into the root frame before the run starts
    /// (`--set key=value`), attributed to the entry node at step 0. Call it
    /// before [`Engine::persist_to`] so the first snapshot holds it. A
    /// refused input is a `contract` failure (a reserved key or a size, as
    /// for a rejected write), or `internal` (the run has started).
    pub fn set_input(&mut self, key: &str, value: Value) -> Result<(), RunFailure> {
        use FailureKind::{Contract, Internal};
        if self.started {
            return Err(RunFailure::new(
                Internal,
                "inputs can only be set before the run starts",
            ));
        }
        if contract::is_reserved(key) {
            return Err(RunFailure::new(
                Contract,
                format!(
                    "`{key}` is reserved for the runtime (keys starting with `_` or `internal.`)"
                ),
            ));
        }
        if key.len() > self.config.sizes.max_key_bytes {
            return Err(RunFailure::new(
                Contract,
                format!(
                    "the key `{}` is {} bytes long, over the limit of {} (max_key_bytes)",
                    crate::bound::key_excerpt(key),
                    key.len(),
                    self.config.sizes.max_key_bytes
                ),
            ));
        }
        let value_size = contract::serialized_size(&value);
        if value_size > self.limits.max_write_bytes {
            return Err(RunFailure::new(
                Contract,
                format!(
                    "the value of `{key}` is {value_size} bytes, over the limit of {}",
                    self.limits.max_write_bytes
                ),
            ));
        }
        let size = value_size + key.len();
        if self.bb_bytes + size > self.limits.max_blackboard_bytes {
            return Err(RunFailure::new(
                Contract,
                format!(
                    "the blackboard would hold {} bytes, over the limit of {}",
                    self.bb_bytes + size,
                    self.limits.max_blackboard_bytes
                ),
            ));
        }
        let key = self.keys.intern(key);
        let node = self.frames[0].node;
        self.bb_bytes += size;
        self.frames[0].push(
            Entry {
                key,
                value,
                node,
                step: 0,
                size: size as u32,
            },
            1,
            &mut self.visible,
        );
        Ok(())
    }

    /// Runs until the run completes, suspends or fails, and reports. On a
    /// suspended run, asks the agent again at the node it suspended at.
    pub fn run(&mut self, agent: &mut dyn DecisionAgent) -> Report {
        while self.step(agent) == &RunStatus::Running {}
        self.compensate();
        self.report()
    }

    /// Runs at most `budget` steps: [`RunStatus::Yielded`] when the run
    /// could go on, else its status.
    pub fn run_for(&mut self, agent: &mut dyn DecisionAgent, budget: u64) -> RunStatus {
        for _ in 0..budget {
            if self.step(agent) != &RunStatus::Running {
                return self.status.clone();
            }
        }
        self.stop_clock();
        RunStatus::Yielded
    }

    /// Runs one step and returns the status after it. A finished run stays
    /// finished; a suspended run goes on (the agent is asked again).
    pub fn step(&mut self, agent: &mut dyn DecisionAgent) -> &RunStatus {
        if self.status.is_final() {
            return &self.status;
        }
        if self.effect_blocked() {
            return &self.status;
        }
        if matches!(self.status, RunStatus::Suspended { .. }) {
            self.status = RunStatus::Running;
        }
        self.forget_waiting_questions();
        if let Err(f) = self.do_step(step::Source::Live(agent)) {
            // Only replayed inputs can mismatch; a live step cannot.
            self.fail_run(FailureKind::Internal, f.message);
        }
        self.check_step_budget();
        self.step += 1;
        self.finish_step();
        &self.status
    }

    /// After a step: a run that would need a step past `max_steps` fails
    /// now, within the last step it was allowed. Failing at the start of
    /// one more step instead would count a step that ran no node
    /// (`--max-steps 2` reporting 3 steps).
    pub(crate) fn check_step_budget(&mut self) {
        if self.status == RunStatus::Running && self.step + 1 >= self.limits.max_steps {
            let reason = format!(
                "the run reached its limit of {} steps (max_steps)",
                self.limits.max_steps
            );
            self.fail_run(FailureKind::Limit, reason);
        }
    }

    /// Why the event sink lost events, if it did (see
    /// [`EventSink::failure`]): a failure in the run's last step could not
    /// end the run, and is the embedder's to report.
    pub fn event_sink_failure(&self) -> Option<String> {
        self.out.sink.as_ref().and_then(|s| s.failure())
    }

    /// The status now.
    pub fn status(&self) -> &RunStatus {
        &self.status
    }

    /// Steps taken so far.
    pub fn steps(&self) -> u64 {
        self.step
    }

    /// How many key names the engine holds (the program's strings and the
    /// keys of live frames): bounded however many calls have returned.
    #[doc(hidden)]
    pub fn key_names(&self) -> usize {
        self.keys.len()
    }

    /// The scoped blackboard as the current frame sees it.
    pub fn blackboard(&self) -> Blackboard<'_> {
        Blackboard {
            program: self.program,
            frames: &self.frames,
            visible: &self.visible,
            keys: &self.keys,
        }
    }

    /// The root workflow (for a restored run: the snapshot's).
    pub fn root(&self) -> WorkflowIdx {
        self.root
    }

    /// The current workflow and node, and the call depth.
    pub fn position(&self) -> (WorkflowIdx, NodeIdx, usize) {
        let f = self.frames.last().expect("the root frame is never popped");
        (f.workflow, f.node, self.frames.len())
    }

    /// The failure trace so far.
    pub fn failures(&self) -> &[FailureRecord] {
        &self.failures
    }

    /// The report: status, steps, time, the root frame's blackboard (latest
    /// value per key) and the failure trace.
    pub fn report(&self) -> Report {
        let root = &self.frames[0];
        // Latest value per key, at the key's first-written position.
        let mut blackboard: Vec<(String, Value)> = Vec::new();
        let mut at: HashMap<&str, usize> = HashMap::new();
        for e in &root.entries {
            let name = self.keys.name(e.key);
            match at.get(name) {
                Some(&i) => blackboard[i].1 = e.value.clone(),
                None => {
                    at.insert(name, blackboard.len());
                    blackboard.push((name.to_owned(), e.value.clone()));
                }
            }
        }
        let blackboard = crate::report::Entries(blackboard);
        let (wf, node, _) = self.position();
        Report {
            status: self.status.clone(),
            kind: matches!(self.status, RunStatus::Failed { .. }).then(|| self.last_failure_kind()),
            at: Some(crate::report::Position {
                workflow: self.wf_name(wf).to_owned(),
                node: self.node_name(wf, node).to_owned(),
            }),
            steps: self.step,
            elapsed_ms: self.elapsed_now().as_millis() as u64,
            blackboard,
            failures: self.failures.clone(),
        }
    }

    pub(crate) fn elapsed_now(&self) -> Duration {
        self.elapsed + self.clock_mark.map(|m| m.elapsed()).unwrap_or_default()
    }

    /// Adds the time since the clock was last read to the active time and
    /// stops counting (the run suspends, yields or ends): the last step's
    /// time counts too.
    pub(crate) fn stop_clock(&mut self) {
        if let Some(mark) = self.clock_mark.take() {
            self.elapsed += mark.elapsed();
        }
    }

    /// The wall-clock time the run has left.
    pub(crate) fn time_left(&self) -> Duration {
        self.limits.wall_clock.saturating_sub(self.elapsed_now())
    }

    /// The timeout of `node` (`None`: a human node without its own).
    pub(crate) fn node_timeout(&self, wf: WorkflowIdx, node: NodeIdx) -> Option<Duration> {
        let n = &self.program.workflows[wf.0 as usize].nodes[node.0 as usize];
        match (n.engine.timeout_ms, n.op) {
            (Some(ms), _) => Some(Duration::from_millis(ms)),
            (None, Opcode::Human) => None,
            (None, _) => Some(self.info[wf.0 as usize].default_timeout),
        }
    }

    /// How long the agent may take at `node`: the node's `timeout`, else
    /// its workflow's `default_timeout`, else the configured agent timeout
    /// (`--agent-timeout`, which an `exec:` agent applies in the same
    /// order, so the engine never refuses an answer the agent was allowed
    /// to take), else the node timeout.
    pub(crate) fn decision_timeout(&self, wf: WorkflowIdx, node: NodeIdx) -> Option<Duration> {
        let w = &self.program.workflows[wf.0 as usize];
        let n = &w.nodes[node.0 as usize];
        match (
            n.engine.timeout_ms,
            w.limits.default_timeout_ms,
            self.config.agent_timeout,
        ) {
            (None, None, Some(t)) if n.op != Opcode::Human => Some(t),
            _ => self.node_timeout(wf, node),
        }
    }
}
