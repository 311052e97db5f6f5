//! Typed run failures: every way a run can fail has a kind with a stable
//! code (`WF09xx`, family `run` of the diagnostic registry), so reports,
//! events and exit statuses can be matched on without parsing messages.
//! `docs/runtime.md` ("Failure kinds") lists them.
//!
//! The code strings live here rather than in `wf-diagnostics` so that the
//! engine does not depend on the diagnostics crate; a test checks that
//! they match its registry.

use std::fmt;

use serde::de::Deserializer;
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

/// What kind of failure ended a run, or failed a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FailureKind {
    /// A limit was exceeded: steps, visits, call depth, wall clock, a
    /// callee's own budget, a node timeout.
    Limit,
    /// The agent returned an error, or a decision the engine cannot apply
    /// (an edge that is not valid, `complete` away from a terminal).
    Agent,
    /// A tool node failed: its command exited non-zero, could not start,
    /// timed out, or was refused (no `--allow-tools`, an unsafe
    /// interpolation).
    Tool,
    /// A contract was broken: a rejected write, a declared write not made,
    /// a required read, a need or a `gives` key without a value.
    Contract,
    /// A guard could not be evaluated (a non-boolean result, a bad pattern
    /// computed at run time).
    Guard,
    /// The run directory or the event file could not be written, or its
    /// log does not fit its snapshot.
    Store,
    /// A state the engine should never reach (a bug, or IR that skipped
    /// the verifier).
    Internal,
    /// A node failed (its agent or handler answered `fail`) and nothing
    /// routed the failure. The default: a failure whose cause the engine
    /// does not know better.
    #[default]
    Node,
    /// The run had nowhere to go: no valid edge for a successful outcome,
    /// an unsatisfied goal gate without a retry target.
    Route,
    /// The program asks for something this engine cannot run (a guard
    /// pattern that does not compile, a root workflow that does not
    /// exist).
    Program,
    /// The user cancelled the run (`wfc run --resume DIR --cancel`); its
    /// completed effects were compensated.
    Cancelled,
    /// A signal (Ctrl-C, `SIGTERM`) stopped a durable run in the middle of
    /// a step: the run is suspended, not failed, and `--resume` runs the
    /// step again.
    Interrupted,
}

impl FailureKind {
    /// Every kind, in code order.
    pub const ALL: [FailureKind; 12] = [
        FailureKind::Limit,
        FailureKind::Agent,
        FailureKind::Tool,
        FailureKind::Contract,
        FailureKind::Guard,
        FailureKind::Store,
        FailureKind::Internal,
        FailureKind::Node,
        FailureKind::Route,
        FailureKind::Program,
        FailureKind::Cancelled,
        FailureKind::Interrupted,
    ];

    /// The kind as one word (`limit`, `tool`, …): the `kind` field of
    /// reports and events.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Limit => "limit",
            FailureKind::Agent => "agent",
            FailureKind::Tool => "tool",
            FailureKind::Contract => "contract",
            FailureKind::Guard => "guard",
            FailureKind::Store => "store",
            FailureKind::Internal => "internal",
            FailureKind::Node => "node",
            FailureKind::Route => "route",
            FailureKind::Program => "program",
            FailureKind::Cancelled => "cancelled",
            FailureKind::Interrupted => "interrupted",
        }
    }

    /// The stable code (`WF0901`, …), which `wfc explain` explains.
    pub fn code(self) -> &'static str {
        match self {
            FailureKind::Limit => "WF0901",
            FailureKind::Agent => "WF0902",
            FailureKind::Tool => "WF0903",
            FailureKind::Contract => "WF0904",
            FailureKind::Guard => "WF0905",
            FailureKind::Store => "WF0906",
            FailureKind::Internal => "WF0907",
            FailureKind::Node => "WF0908",
            FailureKind::Route => "WF0909",
            FailureKind::Program => "WF0910",
            FailureKind::Cancelled => "WF0930",
            FailureKind::Interrupted => "WF0931",
        }
    }

    /// The code's stable kebab-case name (`run-limit-exceeded`, …).
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Limit => "run-limit-exceeded",
            FailureKind::Agent => "agent-failed",
            FailureKind::Tool => "tool-failed",
            FailureKind::Contract => "contract-violated",
            FailureKind::Guard => "guard-error",
            FailureKind::Store => "store-error",
            FailureKind::Internal => "internal-error",
            FailureKind::Node => "node-failed",
            FailureKind::Route => "no-route",
            FailureKind::Program => "program-unsupported",
            FailureKind::Cancelled => "run-cancelled",
            FailureKind::Interrupted => "run-interrupted",
        }
    }

    /// The kind named `word` (see [`FailureKind::as_str`]).
    pub fn from_word(word: &str) -> Option<FailureKind> {
        FailureKind::ALL.into_iter().find(|k| k.as_str() == word)
    }
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failure as a value: its kind (and so its code), what went wrong, the
/// node when one is known, and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunFailure {
    /// The kind.
    pub kind: FailureKind,
    /// What went wrong (the text reports and events show).
    pub message: String,
    /// The node's id, when the failure belongs to one.
    pub node: Option<String>,
    /// A way out, when there is one to suggest.
    pub hint: Option<String>,
}

impl RunFailure {
    /// A failure of `kind` saying `message`.
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Self {
        RunFailure {
            kind,
            message: message.into(),
            node: None,
            hint: None,
        }
    }

    /// The same failure, attributed to `node`.
    pub fn at(mut self, node: impl Into<String>) -> Self {
        self.node = Some(node.into());
        self
    }

    /// The same failure, with a way out.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// The kind's stable code.
    pub fn code(&self) -> &'static str {
        self.kind.code()
    }
}

/// The message alone, as the run showed it before failures had kinds.
impl fmt::Display for RunFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RunFailure {}

/// `kind` and `code` as two fields of the enclosing object
/// (`#[serde(flatten, with = "…")]`); reading takes `kind` and ignores
/// `code`, which follows from it.
pub(crate) mod kind_and_code {
    use super::*;

    pub fn serialize<S: Serializer>(kind: &FailureKind, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("kind", kind.as_str())?;
        map.serialize_entry("code", kind.code())?;
        map.end()
    }

    /// A record written before failures had kinds reads as `node`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<FailureKind, D::Error> {
        Ok(read(d)?.unwrap_or_default())
    }

    pub(super) fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Option<FailureKind>, D::Error> {
        #[derive(Deserialize)]
        struct Fields {
            #[serde(default)]
            kind: Option<String>,
        }
        match Fields::deserialize(d)?.kind {
            None => Ok(None),
            Some(word) => FailureKind::from_word(&word)
                .map(Some)
                .ok_or_else(|| serde::de::Error::custom(format!("unknown failure kind `{word}`"))),
        }
    }
}

/// [`kind_and_code`] for an optional kind: nothing when `None`.
pub(crate) mod opt_kind_and_code {
    use super::*;

    pub fn serialize<S: Serializer>(kind: &Option<FailureKind>, s: S) -> Result<S::Ok, S::Error> {
        match kind {
            Some(k) => kind_and_code::serialize(k, s),
            None => s.serialize_map(Some(0))?.end(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<FailureKind>, D::Error> {
        kind_and_code::read(d)
    }
}

/// A kind alone, as its word (`"limit"`): the step log's form.
impl Serialize for FailureKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for FailureKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let word = String::deserialize(d)?;
        FailureKind::from_word(&word)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown failure kind `{word}`")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The codes here are the registry's: same code, name and family, in
    /// the same order, and the registry's `run` family has no others.
    #[test]
    fn codes_match_the_registry() {
        let registry: Vec<_> = wf_diagnostics::codes::ALL
            .iter()
            .filter(|c| c.family == wf_diagnostics::Family::Run)
            .map(|c| (c.code, c.name))
            .collect();
        let here: Vec<_> = FailureKind::ALL
            .iter()
            .map(|k| (k.code(), k.name()))
            .collect();
        assert_eq!(here, registry);
    }

    #[test]
    fn words_round_trip() {
        for k in FailureKind::ALL {
            assert_eq!(FailureKind::from_word(k.as_str()), Some(k));
            let json = serde_json::to_string(&k).unwrap();
            assert_eq!(serde_json::from_str::<FailureKind>(&json).unwrap(), k);
        }
        assert!(serde_json::from_str::<FailureKind>("\"nope\"").is_err());
    }

    #[test]
    fn a_run_failure_shows_its_message() {
        let f = RunFailure::new(FailureKind::Tool, "exit status 1")
            .at("build")
            .with_hint("run with --allow-tools");
        assert_eq!(f.to_string(), "exit status 1");
        assert_eq!(f.code(), "WF0903");
        assert_eq!(f.node.as_deref(), Some("build"));
    }
}
