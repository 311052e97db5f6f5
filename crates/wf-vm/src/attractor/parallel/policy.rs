//! Join and error policies (seed 4.8) and branch results.
//!
//! A branch **succeeds** with `success` or `partial_success` and **fails**
//! with `fail`; `skipped` (a branch not run) is neither.
//!
//! | join_policy | the parallel node's status |
//! |---|---|
//! | `wait_all` (default) | `success` when no branch failed, else `partial_success` (with `error_policy=ignore`: `success` when one branch succeeded, else `fail`) |
//! | `first_success` | `success` when a branch succeeded (the branches not yet started are not run), else `fail` |
//! | `k_of_n` | `success` when at least `join_k` branches succeeded, else `fail` |
//! | `quorum` | `success` when at least `ceil(join_quorum × n)` branches succeeded (`join_quorum` in (0, 1]; unset: a strict majority, `n/2 + 1`), else `fail` |
//!
//! | error_policy | effect |
//! |---|---|
//! | `continue` (default) | every branch runs; all results are kept |
//! | `fail_fast` | the first failed branch stops the fan-out (branches not yet started are recorded as `skipped`, not run; those running finish) and the parallel node fails |
//! | `ignore` | failed branches are left out of `parallel.results` and do not make `wait_all` partial |

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use wf_ir::{IrNode, IrProgram};

use crate::agent::Status;

/// How branches join.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum JoinPolicy {
    /// Every branch runs; success when none failed.
    WaitAll,
    /// At least this many branches succeed.
    KOfN(usize),
    /// One branch succeeds; later ones are not run.
    FirstSuccess,
    /// At least this many branches succeed (from the quorum fraction).
    Quorum(usize),
}

impl JoinPolicy {
    /// The attribute value.
    pub fn name(self) -> &'static str {
        match self {
            JoinPolicy::WaitAll => "wait_all",
            JoinPolicy::KOfN(_) => "k_of_n",
            JoinPolicy::FirstSuccess => "first_success",
            JoinPolicy::Quorum(_) => "quorum",
        }
    }
}

/// What a failed branch does to the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorPolicy {
    /// Stop at the first failure.
    FailFast,
    /// Run every branch.
    Continue,
    /// Run every branch; drop failures from the results.
    Ignore,
}

impl ErrorPolicy {
    /// The attribute value.
    pub fn name(self) -> &'static str {
        match self {
            ErrorPolicy::FailFast => "fail_fast",
            ErrorPolicy::Continue => "continue",
            ErrorPolicy::Ignore => "ignore",
        }
    }
}

/// A parallel node's policies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Policy {
    /// The join policy.
    pub join: JoinPolicy,
    /// The error policy.
    pub error: ErrorPolicy,
    /// `max_parallel`: how many branches run at once, at most.
    pub max_parallel: u32,
}

/// The result of one branch (an element of `parallel.results`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BranchResult {
    /// The branch's first node.
    pub id: String,
    /// Its last node's status (`fail` when the branch could not go on).
    pub outcome: Status,
    /// The branch's `score` context value when it wrote a number, else 0
    /// (the fan-in heuristic ranks by it).
    #[serde(default)]
    pub score: f64,
    /// The fan-in or exit node the branch reached (not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_at: Option<String>,
    /// Notes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<String>,
    /// The context keys the branch wrote, with their last values.
    #[serde(default)]
    pub context_updates: Map<String, Value>,
}

impl BranchResult {
    /// A branch the policy did not run.
    pub fn not_run(id: &str, why: &str) -> Self {
        BranchResult {
            id: id.to_owned(),
            outcome: Status::Skipped,
            score: 0.0,
            stopped_at: None,
            notes: Some(format!("not run: {why}")),
            failure_reason: None,
            context_updates: Map::new(),
        }
    }

    /// Whether the branch succeeded.
    pub fn succeeded(&self) -> bool {
        matches!(self.outcome, Status::Success | Status::PartialSuccess)
    }
}

/// `(succeeded, failed)` branches.
pub fn counts(results: &[BranchResult]) -> (usize, usize) {
    let ok = results.iter().filter(|r| r.succeeded()).count();
    let failed = results.iter().filter(|r| r.outcome == Status::Fail).count();
    (ok, failed)
}

/// The parallel node's status and failure reason.
pub struct Join {
    /// The status.
    pub status: Status,
    /// Why it failed.
    pub reason: Option<String>,
}

fn text(v: Option<&Value>) -> Option<String> {
    v.map(|v| match v {
        Value::String(s) => s.trim().to_owned(),
        other => other.to_string(),
    })
}

impl Policy {
    /// The policies of `node` with `n` branches: the engine attributes
    /// `join_policy`, `error_policy`, `max_parallel`, and `join_k` /
    /// `join_quorum` from its attributes. An unknown or out-of-range value
    /// is an error naming it.
    pub fn from_node(
        program: &IrProgram,
        node: &IrNode,
        attrs: &Map<String, Value>,
        n: usize,
    ) -> Result<Policy, String> {
        let get = |engine: Option<wf_ir::StrId>, key: &str| {
            engine
                .map(|s| program.str(s).trim().to_owned())
                .or_else(|| text(attrs.get(key)))
        };
        let join = get(node.engine.join_policy, "join_policy");
        let error = get(node.engine.error_policy, "error_policy");
        let max = node
            .engine
            .max_parallel
            .map(|m| m.to_string())
            .or_else(|| text(attrs.get("max_parallel")));
        Policy::parse(
            join.as_deref(),
            error.as_deref(),
            max.as_deref(),
            text(attrs.get("join_k")).as_deref(),
            text(attrs.get("join_quorum")).as_deref(),
            n,
        )
    }

    /// Parses the attribute values (`None`: unset).
    pub fn parse(
        join: Option<&str>,
        error: Option<&str>,
        max_parallel: Option<&str>,
        k: Option<&str>,
        quorum: Option<&str>,
        n: usize,
    ) -> Result<Policy, String> {
        let join = match join.unwrap_or("wait_all") {
            "wait_all" => JoinPolicy::WaitAll,
            "first_success" => JoinPolicy::FirstSuccess,
            "k_of_n" => {
                let k = k.ok_or(
                    "join_policy=k_of_n needs `join_k`, the number of branches that must succeed",
                )?;
                match k.parse::<usize>() {
                    Ok(k) if (1..=n).contains(&k) => JoinPolicy::KOfN(k),
                    _ => {
                        return Err(format!(
                            "join_k=`{k}` must be a whole number from 1 to {n} (the number of branches)"
                        ));
                    }
                }
            }
            "quorum" => JoinPolicy::Quorum(match quorum {
                None => n / 2 + 1,
                Some(q) => match q.parse::<f64>() {
                    Ok(f) if f > 0.0 && f <= 1.0 => ((f * n as f64).ceil() as usize).max(1),
                    _ => {
                        return Err(format!(
                            "join_quorum=`{q}` must be a fraction in (0, 1], e.g. 0.5"
                        ));
                    }
                },
            }),
            other => {
                return Err(format!(
                    "unknown join_policy `{other}`: expected wait_all, k_of_n, first_success or quorum"
                ));
            }
        };
        let error = match error.unwrap_or("continue") {
            "continue" => ErrorPolicy::Continue,
            "fail_fast" => ErrorPolicy::FailFast,
            "ignore" => ErrorPolicy::Ignore,
            other => {
                return Err(format!(
                    "unknown error_policy `{other}`: expected fail_fast, continue or ignore"
                ));
            }
        };
        let max_parallel = match max_parallel {
            None => 4,
            Some(m) => match m.parse::<u32>() {
                Ok(m) if m >= 1 => m,
                _ => {
                    return Err(format!(
                        "max_parallel=`{m}` must be a whole number of at least 1"
                    ));
                }
            },
        };
        Ok(Policy {
            join,
            error,
            max_parallel,
        })
    }

    /// Why the branches after `result` are not run, if they are not.
    pub fn stop_after(&self, result: &BranchResult) -> Option<String> {
        if self.error == ErrorPolicy::FailFast && result.outcome == Status::Fail {
            return Some(format!(
                "branch `{}` failed (error_policy=fail_fast)",
                result.id
            ));
        }
        if self.join == JoinPolicy::FirstSuccess && result.succeeded() {
            return Some(format!(
                "branch `{}` succeeded (join_policy=first_success)",
                result.id
            ));
        }
        None
    }

    /// The parallel node's status once the branches ran.
    pub fn join_outcome(&self, results: &[BranchResult]) -> Join {
        let (ok, failed) = counts(results);
        let n = results.len();
        let done = |status| Join {
            status,
            reason: None,
        };
        let fail = |reason: String| Join {
            status: Status::Fail,
            reason: Some(reason),
        };
        if self.error == ErrorPolicy::FailFast
            && let Some(first) = results.iter().find(|r| r.outcome == Status::Fail)
        {
            return fail(format!(
                "branch `{}` failed (error_policy=fail_fast): {}",
                first.id,
                first.failure_reason.as_deref().unwrap_or("no reason given")
            ));
        }
        match self.join {
            JoinPolicy::WaitAll if self.error == ErrorPolicy::Ignore => {
                if ok > 0 {
                    done(Status::Success)
                } else {
                    fail(format!("every one of the {n} branches failed"))
                }
            }
            JoinPolicy::WaitAll if failed == 0 => done(Status::Success),
            JoinPolicy::WaitAll => done(Status::PartialSuccess),
            JoinPolicy::FirstSuccess if ok > 0 => done(Status::Success),
            JoinPolicy::FirstSuccess => fail(format!("none of the {n} branches succeeded")),
            JoinPolicy::KOfN(k) | JoinPolicy::Quorum(k) if ok >= k => done(Status::Success),
            JoinPolicy::KOfN(k) | JoinPolicy::Quorum(k) => fail(format!(
                "{ok} of {n} branches succeeded; join_policy={} needs {k}",
                self.join.name()
            )),
        }
    }
}

/// The node the run continues at: the fan-in (or exit) node the branches
/// reached. Branches that stopped nowhere (failed, not run, ended at a
/// dead end) do not count; the others must agree. When none reached one,
/// `fallback` (the fan-in the graph leads to) is used, so a fan-in still
/// sees the failures.
pub fn convergence(results: &[BranchResult], fallback: Option<&str>) -> Result<String, String> {
    if results.iter().all(|r| r.stopped_at.is_none())
        && let Some(f) = fallback
    {
        return Ok(f.to_owned());
    }
    let mut at: Vec<(&str, &str)> = results
        .iter()
        .filter_map(|r| r.stopped_at.as_deref().map(|s| (s, r.id.as_str())))
        .collect();
    at.sort_unstable();
    match at.as_slice() {
        [] => Err("no branch reached a fan-in node (`parallel.fan_in`, shape=tripleoctagon) or an exit node, so the run cannot go on after the fan-out".into()),
        [(first, _), ..] if at.iter().all(|(s, _)| s == first) => Ok((*first).to_owned()),
        _ => Err(format!(
            "the branches end at different nodes ({}); they must meet at one fan-in node",
            at.iter()
                .map(|(s, id)| format!("`{id}` at `{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}
