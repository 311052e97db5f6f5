//! What a run ends with: its status, the failure trace and the final report.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::failure::FailureKind;

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
    /// What kind of failure it is: `kind` and `code` in JSON.
    #[serde(flatten, with = "crate::failure::kind_and_code")]
    pub kind: FailureKind,
    /// What went wrong.
    pub reason: String,
    /// The step at which it happened.
    pub step: u64,
    /// Wall-clock time, milliseconds since the Unix epoch.
    pub time_ms: u64,
}

/// A node of a workflow, by name: where a run ended or stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    /// The workflow's name.
    pub workflow: String,
    /// The node's id.
    pub node: String,
}

/// The final report of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// How the run ended (or `running` / `yielded` when it has not).
    #[serde(flatten)]
    pub status: RunStatus,
    /// A failed run's kind of failure (that of the last entry of
    /// `failures`): `kind` and `code` in JSON, absent for other statuses.
    #[serde(flatten, with = "crate::failure::opt_kind_and_code")]
    pub kind: Option<FailureKind>,
    /// Where: the terminal a completed run reached, the node a suspended
    /// run waits at (asked again on resume), the node a failed run stopped
    /// at (in a callee when the failure was there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Position>,
    /// Steps taken.
    pub steps: u64,
    /// Active running time in milliseconds.
    pub elapsed_ms: u64,
    /// The root frame's blackboard: each key's latest value, in the order
    /// keys were first written (a JSON object in that order).
    pub blackboard: Entries,
    /// Every failure, oldest first.
    pub failures: Vec<FailureRecord>,
}

/// Keys with their latest values, in first-written order. Serialised as one
/// JSON object whose members keep that order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Entries(pub Vec<(String, Value)>);

impl Entries {
    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The entries in first-written order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    /// The entries as a [`Map`] (whose order is serde_json's, sorted).
    pub fn to_map(&self) -> Map<String, Value> {
        self.0.iter().cloned().collect()
    }
}

/// Order-insensitive, for comparing with a `json!` object.
impl PartialEq<Map<String, Value>> for Entries {
    fn eq(&self, other: &Map<String, Value>) -> bool {
        self.0.len() == other.len() && self.0.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl std::ops::Index<&str> for Entries {
    type Output = Value;

    /// The value of `key`, or `null` when it has none (like indexing a
    /// [`Value`]).
    fn index(&self, key: &str) -> &Value {
        static NULL: Value = Value::Null;
        self.get(key).unwrap_or(&NULL)
    }
}

impl<'a> IntoIterator for &'a Entries {
    type Item = (&'a String, &'a Value);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, Value)>,
        fn(&'a (String, Value)) -> (&'a String, &'a Value),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

impl Serialize for Entries {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Entries;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object of blackboard entries")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Entries, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Value>()? {
                    out.push((k, v));
                }
                Ok(Entries(out))
            }
        }
        deserializer.deserialize_map(Visit)
    }
}
