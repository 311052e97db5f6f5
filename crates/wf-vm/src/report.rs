//! What a run ends with: its status, the failure trace and the final report.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Where a run stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum RunStatus {
    /// Not finished: `step` can go on.
    Running,
    /// The root workflow completed.
    Completed,
    /// The agent suspended (awaiting a person or data); running again
    /// re-asks the agent at the same node.
    Suspended {
        /// The agent's reason.
        reason: String,
    },
    /// The run failed: no route after a failure, a limit, an agent error,
    /// an invalid decision.
    Failed {
        /// Why, naming the workflow and node.
        reason: String,
    },
    /// The step budget of [`Engine::run_for`](crate::Engine::run_for) ran
    /// out; the run can go on. Never stored as the engine's own status.
    Yielded,
}

impl RunStatus {
    /// Whether the run has ended for good (completed or failed).
    pub fn is_final(&self) -> bool {
        matches!(self, RunStatus::Completed | RunStatus::Failed { .. })
    }

    /// The status as one word: `running`, `completed`, ….
    pub fn name(&self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Completed => "completed",
            RunStatus::Suspended { .. } => "suspended",
            RunStatus::Failed { .. } => "failed",
            RunStatus::Yielded => "yielded",
        }
    }
}

/// One failure of the run (audit EP-03): a node that failed, a rejected
/// write, a retried attempt, a limit, an agent error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureRecord {
    /// The workflow's name.
    pub workflow: String,
    /// The node's id.
    pub node: String,
    /// What went wrong.
    pub reason: String,
    /// The step at which it happened.
    pub step: u64,
    /// Wall-clock time, milliseconds since the Unix epoch.
    pub time_ms: u64,
}

/// The final report of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// How the run ended (or `running` / `yielded` when it has not).
    #[serde(flatten)]
    pub status: RunStatus,
    /// Steps taken.
    pub steps: u64,
    /// Active running time in milliseconds.
    pub elapsed_ms: u64,
    /// The root frame's blackboard: each key's latest value, in the order
    /// keys were first written.
    pub blackboard: Map<String, Value>,
    /// Every failure, oldest first.
    pub failures: Vec<FailureRecord>,
}
