//! `parallel.fan_in` (seed 4.9): consolidates `parallel.results` and picks
//! the best candidate.
//!
//! Without a `prompt` (or without an LLM backend) the choice is the seed's
//! heuristic: by status (`success`, then `partial_success`, `retry`,
//! `fail`), then the highest `score`, then the branch id. With a prompt
//! and a backend, the node also runs as a codergen stage (its answer is
//! the node's outcome, with the candidates in the context as
//! `parallel.results`); the heuristic's pick is recorded too.
//! Fan-in fails only when there are no results or every candidate failed.

use serde_json::{Value, json};

use super::handler::{Handler, HandlerCx};
use super::parallel::BranchResult;
use crate::agent::{AgentError, Decision, Outcome, Status, Write};

/// The `parallel.fan_in` handler.
#[derive(Debug, Default)]
pub struct FanIn;

fn rank(s: Status) -> u8 {
    match s {
        Status::Success => 0,
        Status::PartialSuccess => 1,
        Status::Retry => 2,
        Status::Fail => 3,
        Status::Skipped => 4,
    }
}

/// The best candidate by the seed's heuristic: status rank, then the
/// highest score, then the id.
pub fn heuristic_select(candidates: &[BranchResult]) -> Option<&BranchResult> {
    candidates.iter().min_by(|a, b| {
        rank(a.outcome)
            .cmp(&rank(b.outcome))
            .then(b.score.total_cmp(&a.score))
            .then(a.id.cmp(&b.id))
    })
}

fn fail(reason: &str) -> Decision {
    Decision::Advance(Outcome {
        status: Status::Fail,
        failure_reason: Some(reason.to_owned()),
        ..Outcome::success()
    })
}

impl Handler for FanIn {
    fn execute(&mut self, cx: &mut HandlerCx<'_, '_>) -> Result<Decision, AgentError> {
        let raw = cx.decision.blackboard.get("parallel.results").cloned();
        let candidates: Vec<BranchResult> = match raw {
            None | Some(Value::Null) => Vec::new(),
            Some(v) => match serde_json::from_value(v) {
                Ok(c) => c,
                Err(e) => {
                    return Ok(fail(&format!(
                        "`parallel.results` is not a list of branch results: {e}"
                    )));
                }
            },
        };
        let candidates: Vec<BranchResult> = candidates
            .into_iter()
            .filter(|c| c.outcome != Status::Skipped)
            .collect();
        if candidates.is_empty() {
            return Ok(fail("No parallel results to evaluate"));
        }
        if candidates.iter().all(|c| c.outcome == Status::Fail) {
            return Ok(fail(&format!(
                "all {} parallel candidates failed",
                candidates.len()
            )));
        }
        let best = heuristic_select(&candidates).expect("not empty");
        let writes = vec![
            Write {
                key: "parallel.fan_in.best_id".into(),
                value: json!(best.id),
            },
            Write {
                key: "parallel.fan_in.best_outcome".into(),
                value: json!(best.outcome.as_str()),
            },
        ];
        let has_prompt = cx
            .attrs
            .get("prompt")
            .and_then(Value::as_str)
            .is_some_and(|p| !p.trim().is_empty());
        if has_prompt && cx.backend.is_some() {
            // LLM evaluation: the node runs as a codergen stage (prompt.md,
            // response.md, the backend's outcome).
            let decision = super::Codergen.execute(cx)?;
            return Ok(match decision {
                Decision::Advance(mut o) => {
                    o.writes.splice(0..0, writes);
                    Decision::Advance(o)
                }
                other => other,
            });
        }
        Ok(Decision::Advance(Outcome {
            writes,
            notes: Some(format!("Selected best candidate: {}", best.id)),
            ..Outcome::success()
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(id: &str, outcome: Status, score: f64) -> BranchResult {
        BranchResult {
            score,
            outcome,
            ..BranchResult::not_run(id, "")
        }
    }

    #[test]
    fn heuristic_ranks_status_then_score_then_id() {
        let c = [
            r("a", Status::Fail, 9.0),
            r("b", Status::PartialSuccess, 5.0),
            r("c", Status::Success, 1.0),
            r("d", Status::Success, 3.0),
            r("e", Status::Success, 3.0),
        ];
        assert_eq!(heuristic_select(&c).unwrap().id, "d");
        assert_eq!(heuristic_select(&c[..2]).unwrap().id, "b");
        assert!(heuristic_select(&[]).is_none());
    }
}
