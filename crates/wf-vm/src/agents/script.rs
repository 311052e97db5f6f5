//! `script:FILE`: decisions and human answers from a JSON file, for tests
//! and reproducible runs. Format (see `docs/runtime.md`):
//!
//! ```json
//! {
//!   "fallback": "error",
//!   "nodes": {
//!     "review": ["[A] Approve", {"type": "suspend", "reason": "wait"}],
//!     "Release/build": [{"type": "advance", "status": "retry"}]
//!   }
//! }
//! ```
//!
//! Each node (by `Workflow/node`, or by node id in any workflow) has a queue
//! of answers, used in order, one per decision there. An answer is a
//! decision object (`type`: `advance` with the outcome's fields, `suspend`
//! with `reason`, `complete` with `writes`) or a string: a human answer,
//! `advance` with `success` and that preferred label. When a node's queue is
//! empty, `fallback` decides: `error` (the default: the run fails naming the
//! node) or `auto` (the [`AutoAgent`](super::AutoAgent)'s answer).

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde::Deserialize;
use serde_json::Value;

use super::{AutoAgent, node_id};
use crate::agent::{AgentError, Decision, DecisionAgent, DecisionContext, Outcome};

/// What to do when a node's answers run out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScriptFallback {
    /// Fail with an agent error naming the node.
    #[default]
    Error,
    /// Answer as the `auto` agent would.
    Auto,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptFile {
    #[serde(default)]
    fallback: ScriptFallback,
    #[serde(default)]
    nodes: HashMap<String, Vec<Value>>,
}

/// The answers left, by node.
type Queues = HashMap<String, VecDeque<Decision>>;

/// The `script:FILE` agent.
///
/// Its forks (the concurrent branches of a fan-out) share its queues:
/// each answer is used once. A branch takes a queued answer at a node only
/// once the branches before it in edge order that can reach that node
/// have finished (`order.rs`), so every branch gets the answers it would
/// get were the branches run one after another, whatever the timing.
#[derive(Debug)]
pub struct ScriptAgent {
    fallback: ScriptFallback,
    queues: Arc<Mutex<Queues>>,
}

impl Clone for ScriptAgent {
    /// An independent copy, with answers of its own (a fork shares them).
    fn clone(&self) -> Self {
        ScriptAgent {
            fallback: self.fallback,
            queues: Arc::new(Mutex::new(self.queues().clone())),
        }
    }
}

impl ScriptAgent {
    /// Reads a script file; the error names the file and what is wrong.
    pub fn from_file(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the script `{}`: {e}", path.display()))?;
        let value: Value = serde_json::from_str(&text).map_err(|e| {
            format!(
                "the script `{}` is not JSON: {e} (line {}, column {})",
                path.display(),
                e.line(),
                e.column()
            )
        })?;
        Self::from_json(&value).map_err(|e| format!("the script `{}`: {e}", path.display()))
    }

    /// A script from its JSON form.
    pub fn from_json(value: &Value) -> Result<Self, String> {
        let file: ScriptFile = serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
        let mut queues = HashMap::new();
        for (node, answers) in file.nodes {
            let mut q = VecDeque::new();
            for (i, a) in answers.into_iter().enumerate() {
                let d = match a {
                    Value::String(label) => Decision::Advance(Outcome {
                        preferred_label: Some(label),
                        ..Outcome::success()
                    }),
                    other => serde_json::from_value(other).map_err(|e| {
                        format!("answer {} for node `{node}` is not a decision: {e}", i + 1)
                    })?,
                };
                q.push_back(d);
            }
            queues.insert(node, q);
        }
        Ok(ScriptAgent {
            fallback: file.fallback,
            queues: Arc::new(Mutex::new(queues)),
        })
    }

    fn queues(&self) -> MutexGuard<'_, Queues> {
        self.queues.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Uses up the answers a run already took, one per `(workflow, node)`
    /// its log records an agent decision at (in any order), taken from the
    /// queues `decide` would take them from: a resumed run goes on with the
    /// answers an uninterrupted run would give, never repeating one.
    pub fn skip_answered<'a>(&mut self, answered: impl IntoIterator<Item = (&'a str, &'a str)>) {
        let mut queues = self.queues();
        for (workflow, node) in answered {
            let qualified = format!("{workflow}/{node}");
            for key in [qualified.as_str(), node] {
                if queues.get_mut(key).and_then(VecDeque::pop_front).is_some() {
                    break;
                }
            }
        }
    }

    /// How many answers are left, over all nodes.
    pub fn remaining(&self) -> usize {
        self.queues().values().map(VecDeque::len).sum()
    }
}

impl DecisionAgent for ScriptAgent {
    fn is_instant(&self) -> bool {
        true
    }

    fn fork(&self) -> Option<Box<dyn DecisionAgent + Send>> {
        Some(Box::new(ScriptAgent {
            fallback: self.fallback,
            queues: Arc::clone(&self.queues),
        }))
    }

    fn decide(&mut self, ctx: &DecisionContext<'_>) -> Result<Decision, AgentError> {
        let qualified = format!("{}/{}", ctx.str(ctx.workflow.name), node_id(ctx));
        let queued = {
            let queues = self.queues();
            [qualified.as_str(), node_id(ctx)]
                .iter()
                .any(|k| queues.get(*k).is_some_and(|q| !q.is_empty()))
        };
        if queued {
            // In a concurrent branch, not before the branches ahead of it
            // in edge order that can reach this node are done (order.rs).
            // Without the lock: they take from the queues meanwhile.
            super::order::wait_for_earlier_branches(node_id(ctx));
        }
        let mut queues = self.queues();
        for key in [qualified.as_str(), node_id(ctx)] {
            if let Some(d) = queues.get_mut(key).and_then(VecDeque::pop_front) {
                // A wrapped branch journals it (docs/agents.md, "Resumed
                // scripts").
                super::noting::scripted();
                return Ok(d);
            }
        }
        drop(queues);
        match self.fallback {
            ScriptFallback::Auto => AutoAgent.decide(ctx),
            ScriptFallback::Error => Err(AgentError {
                message: format!("the script has no answer left for node `{qualified}`"),
            }),
        }
    }
}
