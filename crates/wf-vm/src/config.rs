//! Engine configuration: run limits and their defaults.
//!
//! A workflow's own `limits` (from the IR) override these defaults; see
//! [`EngineConfig::effective`].

use std::time::Duration;

/// Limits that bound every run, so that no workflow or agent can make the
/// engine loop, recurse or grow without end (audit UB-01, UB-06, UB-07,
/// SEC-03).
#[derive(Debug, Clone, PartialEq)]
pub struct RunLimits {
    /// The most steps (engine loop iterations) a run may take.
    pub max_steps: u64,
    /// How often one node (of one workflow, across all frames) may be entered.
    pub max_visits: u64,
    /// The deepest call stack (1 = only the root workflow).
    pub max_depth: u64,
    /// The longest a run may be actively running (time spent suspended does
    /// not count).
    pub wall_clock: Duration,
    /// The timeout of a node that sets none (not applied to `human` nodes,
    /// which wait for a person unless they set `timeout`).
    pub node_timeout: Duration,
    /// The largest value one write may hold, serialized as JSON.
    pub max_write_bytes: usize,
    /// The largest total size of all live blackboard entries: each
    /// entry's value serialized plus its key.
    pub max_blackboard_bytes: usize,
}

impl Default for RunLimits {
    fn default() -> Self {
        RunLimits {
            max_steps: 1_000_000,
            max_visits: 100_000,
            max_depth: 1_000,
            wall_clock: Duration::from_secs(60 * 60),
            node_timeout: Duration::from_secs(5 * 60),
            max_write_bytes: 1 << 20,
            max_blackboard_bytes: 64 << 20,
        }
    }
}

/// Bounds on what a run holds besides blackboard values: key names,
/// reasons and notes, handler-event payloads and the failure trace (audit
/// SEC-03: a limit on values alone leaves an agent free to fill memory
/// with 15 MiB key names or reasons). Not part of a workflow's `limits`.
#[derive(Debug, Clone, PartialEq)]
pub struct SizeLimits {
    /// The longest key a write may name, in bytes: a longer one is
    /// rejected (the node fails).
    pub max_key_bytes: usize,
    /// The longest failure reason, suspension reason, agent error or note
    /// kept, in bytes: a longer one is cut, with a marker saying so.
    pub max_text_bytes: usize,
    /// The largest payload (`data`) of one handler event, serialized: a
    /// larger one is replaced by a note of its size.
    pub max_event_bytes: usize,
    /// The most handler events one step may report; the rest are dropped.
    pub max_events_per_step: usize,
    /// The most entries of the failure trace: past it, the trace keeps the
    /// oldest half and the latest failures, with one entry counting those
    /// left out between.
    pub max_failures: usize,
}

impl Default for SizeLimits {
    fn default() -> Self {
        SizeLimits {
            max_key_bytes: 1024,
            max_text_bytes: 4096,
            max_event_bytes: 64 << 10,
            max_events_per_step: 64,
            max_failures: 1000,
        }
    }
}

/// How an [`Engine`](crate::Engine) runs.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineConfig {
    /// Run limits (defaults; the root workflow's `limits` override them).
    pub limits: RunLimits,
    /// Bounds on keys, texts, events and the failure trace.
    pub sizes: SizeLimits,
    /// How long an agent may take to decide at a node that sets no
    /// `timeout` in a workflow that sets no `default_timeout`
    /// (`--agent-timeout`); `None`: `limits.node_timeout`. An explicit
    /// agent timeout wins over the default node timeout in either
    /// direction.
    pub agent_timeout: Option<Duration>,
    /// With a run directory: write a full snapshot every this many steps,
    /// besides the time and byte triggers below (0 = no step trigger).
    pub snapshot_every: u64,
    /// With a run directory: write a snapshot once the run has been running
    /// this long since the last one (zero = no time trigger), and at least
    /// nine times as long as the last snapshot took (docs/runtime.md,
    /// "Snapshot cadence").
    pub snapshot_interval: Duration,
    /// With a run directory: write a snapshot once this many bytes were
    /// appended to the log since the last one (0 = no byte trigger): it
    /// bounds what a resume re-applies. Same spacing rule as
    /// `snapshot_interval`.
    pub snapshot_log_bytes: u64,
    /// An agent error (the agent failed to answer, or a decision came
    /// later than the node's timeout allows) suspends the run, recording
    /// the error, instead of failing it: for durable runs, whose resume
    /// asks the agent again (`wfc run --on-error suspend`). Other failures
    /// are unaffected.
    pub suspend_on_agent_error: bool,
    /// A question nobody is there to answer (an Attractor gate at the end
    /// of input, or with an answers file used up) suspends the run, which
    /// then waits for `wfc answer`, instead of failing the gate: for
    /// durable runs (`wfc run --run-dir`). docs/runtime.md, "Answering a
    /// suspended run".
    pub questions_wait: bool,
    /// Prefixes the ids of the questions this engine's nodes ask: empty
    /// for a run, `fan#1/a/` for the branch from `a` of the parallel node
    /// `fan` on its first visit (docs/runtime.md, "Gates in parallel
    /// branches"), so that an answer reaches that branch only.
    pub question_scope: String,
    /// A graceful stop requested by a signal (`crate::interrupt`) suspends
    /// the run with kind `interrupted` before the next step that asks the
    /// agent or runs a tool, and in place of a step the signal cut short:
    /// for durable runs (`wfc run --run-dir`). docs/runtime.md,
    /// "Interrupting and cancelling a run".
    pub stop_on_interrupt: bool,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            limits: RunLimits::default(),
            sizes: SizeLimits::default(),
            agent_timeout: None,
            snapshot_every: 0,
            snapshot_interval: Duration::from_secs(1),
            snapshot_log_bytes: 16 << 20,
            suspend_on_agent_error: false,
            questions_wait: false,
            question_scope: String::new(),
            stop_on_interrupt: false,
        }
    }
}

impl EngineConfig {
    /// The limits in force for a run of a workflow with these IR `limits`:
    /// each limit the workflow sets replaces the configured default.
    pub fn effective(&self, ir: &wf_ir::Limits) -> RunLimits {
        let mut l = self.limits.clone();
        if let Some(v) = ir.max_steps {
            l.max_steps = v;
        }
        if let Some(v) = ir.max_visits {
            l.max_visits = v;
        }
        if let Some(v) = ir.max_depth {
            l.max_depth = v;
        }
        if let Some(v) = ir.wall_clock_ms {
            l.wall_clock = Duration::from_millis(v);
        }
        if let Some(v) = ir.default_timeout_ms {
            l.node_timeout = Duration::from_millis(v);
        }
        l
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workflow_limits_override_defaults() {
        let ir = wf_ir::Limits {
            max_steps: Some(5),
            wall_clock_ms: Some(250),
            ..Default::default()
        };
        let l = EngineConfig::default().effective(&ir);
        assert_eq!(l.max_steps, 5);
        assert_eq!(l.wall_clock, Duration::from_millis(250));
        assert_eq!(l.max_depth, RunLimits::default().max_depth);
    }
}
