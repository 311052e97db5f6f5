//! The decision-agent interface: what the engine asks at a node and what an
//! agent may answer.
//!
//! The engine consults the agent at every node that is not a `call` (calls
//! are handled by the engine alone, as Reflex defines). Built-in agents live
//! in the submodules of [`crate::agents`].

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wf_ir::{EdgeIdx, IrEdge, IrNode, IrProgram, IrWorkflow, NodeIdx, WorkflowIdx};

/// The status of a node's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The node did its work.
    Success,
    /// The node did part of its work.
    PartialSuccess,
    /// The node asks to be run again (subject to its `retries`).
    Retry,
    /// The node failed (routed via `retry_target` when set).
    Fail,
    /// The node chose not to run.
    Skipped,
}

impl Status {
    /// The status as the guard language spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Success => "success",
            Status::PartialSuccess => "partial_success",
            Status::Retry => "retry",
            Status::Fail => "fail",
            Status::Skipped => "skipped",
        }
    }
}

/// One blackboard write requested by an agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Write {
    /// The key.
    pub key: String,
    /// The value.
    pub value: Value,
}

/// What a node's run produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The status.
    pub status: Status,
    /// Writes to the current frame's blackboard.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub writes: Vec<Write>,
    /// The edge the agent chose, by id; it must be among the valid edges.
    /// `None` lets the engine select (DESIGN section 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edge: Option<String>,
    /// The label the agent prefers (matched after normalisation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_label: Option<String>,
    /// Target node ids the agent suggests, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suggested_next: Vec<String>,
    /// Free-form notes for the event log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// Why the node failed, for `fail`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<String>,
    /// Events an Attractor handler reports (seed section 9.6), emitted as
    /// `handler:event` before the node's `node:exit`. Left out when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<HandlerEvent>,
    /// A node id to continue at instead of following an edge (an
    /// Attractor `parallel` node continues at its fan-in). Honoured for a
    /// non-failing status: `node:exit`, then the run enters the node (no
    /// `edge:traverse`); an id the workflow lacks fails the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jump: Option<String>,
}

/// An event reported by an Attractor handler (`InterviewStarted`, …).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HandlerEvent {
    /// The event's name, e.g. `InterviewStarted`.
    pub name: String,
    /// Its fields.
    pub data: Value,
}

impl Outcome {
    /// A plain success with no writes.
    pub fn success() -> Self {
        Outcome {
            status: Status::Success,
            writes: Vec::new(),
            edge: None,
            preferred_label: None,
            suggested_next: Vec::new(),
            notes: None,
            failure_reason: None,
            events: Vec::new(),
            jump: None,
        }
    }

    /// A `fail` with this reason and no writes: the one shape every
    /// runtime-made failure (a tool that failed or could not run, a
    /// handler's refusal) takes.
    pub fn failed(reason: impl Into<String>) -> Self {
        Outcome {
            status: Status::Fail,
            failure_reason: Some(reason.into()),
            ..Outcome::success()
        }
    }
}

/// An agent's answer at a node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Decision {
    /// Record the outcome and move on along an edge (Reflex `advance`).
    Advance(Outcome),
    /// Stop here, resumably: awaiting a person or external data.
    Suspend {
        /// Why.
        reason: String,
    },
    /// Finish the current workflow; only valid at a terminal node.
    Complete {
        /// Final writes to the current frame.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        writes: Vec<Write>,
    },
}

/// A read-only view of the scoped blackboard (Reflex `BlackboardReader`).
pub trait BlackboardView {
    /// The latest value of `key`, walking local → parent → ….
    fn get(&self, key: &str) -> Option<&Value>;
    /// Whether `key` has a value in any scope.
    fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }
    /// Every key with a value in any scope, each once, most local first.
    fn keys(&self) -> Vec<&str>;
    /// The current frame's entries as `(key, value)`, oldest first.
    fn local(&self) -> Vec<(&str, &Value)>;
}

/// What the engine tells an agent at a node.
pub struct DecisionContext<'a> {
    /// The program being run.
    pub program: &'a IrProgram,
    /// The current workflow's index.
    pub workflow_idx: WorkflowIdx,
    /// The current workflow.
    pub workflow: &'a IrWorkflow,
    /// The current node's index.
    pub node_idx: NodeIdx,
    /// The current node.
    pub node: &'a IrNode,
    /// The scoped blackboard.
    pub blackboard: &'a dyn BlackboardView,
    /// Outgoing edges whose guards hold, in edge-table order.
    pub valid_edges: &'a [EdgeIdx],
    /// Call-stack depth (1 in the root workflow).
    pub depth: usize,
    /// Which attempt this is at the node (1 for the first).
    pub attempt: u32,
    /// The run's step number (0-based).
    pub step: u64,
    /// How many times the node has been entered, this visit included (1
    /// the first time): with the node, the id of the question a `human`
    /// node or gate asks (`wf_vm::question`).
    pub visit: u32,
    /// The edge the node was entered by; `None` at the start and after a
    /// jump (retry target, goal gate). Attractor fidelity reads it.
    pub incoming_edge: Option<EdgeIdx>,
    /// The engine's configuration: runs a handler starts (parallel
    /// branches, child pipelines) inherit it.
    pub config: &'a crate::config::EngineConfig,
    /// The limits in force for this run; nested runs get what is left.
    pub limits: &'a crate::config::RunLimits,
    /// The run's active time so far (as of the last clock reading).
    pub elapsed: std::time::Duration,
    /// At an Attractor `parallel` node of a program with effect
    /// attributes: the idempotence keys its branches share with the run
    /// (engine/fan_keys.rs); `None` elsewhere.
    pub(crate) fan_keys: Option<&'a std::sync::Arc<crate::engine::fan_keys::SharedKeys>>,
    /// At the same nodes: where the handler leaves its branches' effects
    /// to compensate, for the engine to hand over (engine/fan_saga.rs).
    pub(crate) fan_effects: Option<&'a crate::engine::fan_saga::FanEffects>,
}

impl DecisionContext<'_> {
    /// A string of the program's string table.
    pub fn str(&self, id: wf_ir::StrId) -> &str {
        self.program.str(id)
    }

    /// The valid edges themselves.
    pub fn valid_edge_list(&self) -> impl Iterator<Item = &IrEdge> {
        self.valid_edges
            .iter()
            .map(|e| &self.workflow.edges[e.0 as usize])
    }

    /// The node's spec with its `$key` interpolations expanded from the
    /// scoped blackboard (a missing key is empty): what an agent shows or
    /// sends on.
    pub fn spec(&self) -> serde_json::Map<String, Value> {
        crate::template::render_spec(
            self.program,
            &self.node.spec,
            &self.node.templates,
            self.blackboard,
        )
    }

    /// The node's label with its interpolations expanded, when it has one.
    pub fn label(&self) -> Option<String> {
        let label = self.node.label?;
        Some(match self.node.templates.get("label") {
            Some(t) => crate::template::render(self.program, t, self.blackboard),
            None => self.str(label).to_string(),
        })
    }

    /// Whether the current node has no outgoing edges at all.
    pub fn is_terminal(&self) -> bool {
        self.node.edges.len == 0
    }

    /// The valid edge a `human` node's `default` names: by its exact
    /// label, else by its target's id (`docs/attributes.md`, "Human
    /// defaults"), else by its label ignoring case and accelerator. `None`
    /// when the node has no `default` or the edge it names is not valid now.
    pub fn default_edge(&self) -> Option<&IrEdge> {
        let wanted = self.str(self.node.engine.default_choice?);
        let edges: Vec<&IrEdge> = self.valid_edge_list().collect();
        let label = |e: &IrEdge| e.label.map(|l| self.str(l));
        let target = |e: &IrEdge| self.str(self.workflow.nodes[e.to.0 as usize].id);
        let normal = crate::select::normalize_label(wanted);
        (edges.iter().find(|e| label(e) == Some(wanted)))
            .or_else(|| edges.iter().find(|e| target(e) == wanted))
            .or_else(|| {
                edges
                    .iter()
                    .find(|e| label(e).is_some_and(|l| crate::select::normalize_label(l) == normal))
            })
            .copied()
    }

    /// What a `human` node decides when nobody answered within `waited`:
    /// its `default` choice, as a success along that edge. `None` at other
    /// nodes, and when the node has no default or its edge is not valid.
    pub fn timeout_default(&self, waited: std::time::Duration) -> Option<Decision> {
        if self.node.op != wf_ir::Opcode::Human {
            return None;
        }
        let edge = self.default_edge()?;
        let chosen = self.str(self.node.engine.default_choice?);
        Some(Decision::Advance(Outcome {
            edge: Some(self.str(edge.id).to_string()),
            preferred_label: edge.label.map(|l| self.str(l).to_string()),
            notes: Some(format!(
                "no answer within {}: took the default choice `{chosen}`",
                crate::tools::human_duration(waited)
            )),
            ..Outcome::success()
        }))
    }
}

/// An agent failed to decide (crashed, timed out, answered nonsense). The
/// engine turns it into `engine:error` with the failure trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentError {
    /// What went wrong, for people.
    pub message: String,
}

impl std::fmt::Display for AgentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for AgentError {}

/// Decides at nodes. Implementations: `rules`, `auto`, `script:FILE`,
/// `console`, `exec:COMMAND` (see `docs/agents.md`).
pub trait DecisionAgent {
    /// Decides at the node `context` describes.
    fn decide(&mut self, context: &DecisionContext<'_>) -> Result<Decision, AgentError>;

    /// Whether the agent decides at once, without I/O or waiting (the
    /// built-in `auto`, `rules` and `script` agents). The engine then does
    /// not time each decision against the node's timeout and reads the
    /// clock for the wall-clock limit only every few steps. Default: `false`.
    fn is_instant(&self) -> bool {
        false
    }

    /// An independent copy that can decide on another thread, for the
    /// concurrent branches of a `parallel` node (`docs/runtime.md`,
    /// "Parallel branches"). A wrapper forks when what it wraps does. `None`
    /// (the default): the agent cannot be copied (a person at the console,
    /// an agent process), and branches that need it run one after another.
    fn fork(&self) -> Option<Box<dyn DecisionAgent + Send>> {
        None
    }
}

/// Runs the command of a `tool` node. The engine uses it instead of the
/// agent at `tool` nodes when tools are allowed (`--allow-tools`); without
/// one, a `tool` node fails with a clear refusal.
pub trait ToolRunner {
    /// Runs `command` (`sh -c` its script, with its variables set) for the
    /// node `context` describes, within `timeout`, and reports the outcome
    /// (exit status 0 → `success`, anything else → `fail` with the reason;
    /// captured output as size-bounded writes).
    fn run(
        &mut self,
        context: &DecisionContext<'_>,
        command: &crate::template::ShellCommand,
        timeout: std::time::Duration,
    ) -> Outcome;

    /// An independent copy that can run commands on another thread, for
    /// concurrent parallel branches. `None` (the default): branches that
    /// run tools run one after another.
    fn fork(&self) -> Option<Box<dyn ToolRunner + Send>> {
        None
    }
}
