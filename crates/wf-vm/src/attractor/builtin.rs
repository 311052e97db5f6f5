//! The built-in handlers: `start`, `exit`, `conditional` and `codergen`
//! (seed 4.3-4.5, 4.7), and the placeholder for handler types this engine
//! does not run yet.

use serde_json::{Value, json};

use super::handler::{Handler, HandlerCx};
use super::status_file;
use crate::agent::{AgentError, Decision, Outcome, Status, Write};

/// `last_response` keeps this many characters of the response (seed 4.5).
pub const RESPONSE_SUMMARY_CHARS: usize = 200;

/// A success with notes.
fn success(notes: String) -> Decision {
    Decision::Advance(Outcome {
        notes: Some(notes),
        ..Outcome::success()
    })
}

/// A failed outcome with a reason.
pub(crate) fn fail(reason: String) -> Outcome {
    Outcome::failed(reason)
}

/// `start`: a no-op that succeeds.
pub struct Start;

impl Handler for Start {
    fn execute(&mut self, _cx: &mut HandlerCx<'_, '_>) -> Result<Decision, AgentError> {
        Ok(Decision::Advance(Outcome::success()))
    }
}

/// `exit`: a no-op that succeeds; the engine enforces goal gates.
pub struct Exit;

impl Handler for Exit {
    fn execute(&mut self, _cx: &mut HandlerCx<'_, '_>) -> Result<Decision, AgentError> {
        Ok(Decision::Advance(Outcome::success()))
    }
}

/// `conditional`: succeeds; the engine routes by the edges' conditions.
pub struct Conditional;

impl Handler for Conditional {
    fn execute(&mut self, cx: &mut HandlerCx<'_, '_>) -> Result<Decision, AgentError> {
        Ok(success(format!(
            "Conditional node evaluated: {}",
            cx.node_id
        )))
    }
}

/// A handler type this engine does not run yet: the node fails with a
/// clear reason (failure routing applies).
pub struct NotYet;

impl Handler for NotYet {
    fn execute(&mut self, cx: &mut HandlerCx<'_, '_>) -> Result<Decision, AgentError> {
        Ok(Decision::Advance(fail(format!(
            "node `{}` runs the `{}` handler, which is not implemented yet",
            cx.node_id, cx.handler
        ))))
    }
}

/// The first `n` characters of `text`.
pub fn truncate(text: &str, n: usize) -> String {
    match text.char_indices().nth(n) {
        Some((i, _)) => text[..i].to_string(),
        None => text.to_string(),
    }
}

/// The prompt of a node: `prompt`, else the label, else the id, with
/// `$goal` expanded (the front end expands it already; a prompt built at
/// run time may still hold it).
pub fn prompt_of(cx: &HandlerCx<'_, '_>) -> String {
    let text = cx
        .attr_text("prompt")
        .filter(|p| !p.trim().is_empty())
        .or_else(|| cx.decision.label())
        .unwrap_or_else(|| cx.node_id.to_string());
    text.replace("$goal", cx.goal)
}

/// `codergen`: the LLM stage. The backend is the user's decision agent
/// (`exec:` for a real LLM wrapper); without one the response is
/// simulated.
pub struct Codergen;

impl Handler for Codergen {
    fn execute(&mut self, cx: &mut HandlerCx<'_, '_>) -> Result<Decision, AgentError> {
        let node = cx.node_id;
        let mut prompt = prompt_of(cx);
        // A supervising manager's `steer` (seed 4.11) left instructions
        // for this stage.
        if let Some(text) = cx
            .files
            .and_then(|f| super::manager::steer::pending(f, node))
        {
            prompt = format!("{prompt}\n\n{}\n\n{text}", super::manager::steer::HEADING);
        }
        if let Some(files) = cx.files {
            write_or_fail(
                files.write_text(node, "prompt.md", &prompt),
                node,
                "prompt.md",
            )?;
            // A status file left by an earlier attempt must not be read
            // as this attempt's answer.
            status_file::clear(files, node).map_err(|e| AgentError {
                message: format!("cannot clear `{node}/status.json`: {e}"),
            })?;
        }
        let (mut outcome, response) = match cx.backend.as_deref_mut() {
            None => (
                Outcome {
                    notes: Some(format!("Stage completed: {node}")),
                    ..Outcome::success()
                },
                format!("[Simulated] Response for stage: {node}"),
            ),
            Some(backend) => match backend.decide(cx.decision) {
                // A durable run whose agent errors suspend (`--on-error
                // suspend`) waits for the backend once the retries are
                // spent: the error suspends the run instead of failing the
                // stage.
                Err(e) if cx.decision.config.suspend_on_agent_error && last_attempt(cx) => {
                    return Err(e);
                }
                // A backend error is an exception in the seed's terms:
                // retried while attempts are left (3.5), then a failure.
                Err(e) => (
                    Outcome {
                        status: Status::Retry,
                        failure_reason: Some(e.message),
                        ..Outcome::success()
                    },
                    String::new(),
                ),
                Ok(Decision::Suspend { reason }) => {
                    return Ok(Decision::Suspend { reason });
                }
                Ok(Decision::Complete { writes }) => {
                    let o = Outcome {
                        writes,
                        ..Outcome::success()
                    };
                    (o, String::new())
                }
                Ok(Decision::Advance(o)) => {
                    let response = o.notes.clone().unwrap_or_default();
                    (o, response)
                }
            },
        };
        // The status-file contract: a backend (or a tool it ran) that wrote
        // `{node}/status.json` reports its outcome that way.
        if let Some(files) = cx.files {
            match status_file::read(files, node) {
                // The backend's events (its model usage) stay.
                Ok(Some(mut from_file)) => {
                    from_file.events.splice(0..0, outcome.events.drain(..));
                    outcome = from_file;
                }
                Ok(None) => {}
                Err(reason) => outcome = fail(reason),
            }
            write_or_fail(
                files.write_text(node, "response.md", &response),
                node,
                "response.md",
            )?;
        }
        if matches!(outcome.status, Status::Success | Status::PartialSuccess) {
            outcome.writes.push(Write {
                key: "last_stage".into(),
                value: json!(node),
            });
            outcome.writes.push(Write {
                key: "last_response".into(),
                value: Value::String(truncate(&response, RESPONSE_SUMMARY_CHARS)),
            });
        }
        Ok(Decision::Advance(outcome))
    }
}

/// Turns a failed write of a run-directory file into an agent error (the
/// run cannot keep its record, so it stops with the reason).
/// Whether this is the stage's last attempt: its retries (`max_retries`,
/// else the graph's `default_max_retry`) are spent.
fn last_attempt(cx: &HandlerCx<'_, '_>) -> bool {
    let d = cx.decision;
    let max = d
        .node
        .engine
        .retries
        .or(d.workflow.limits.default_retries)
        .unwrap_or(0);
    d.attempt > max
}

fn write_or_fail(r: std::io::Result<()>, node: &str, file: &str) -> Result<(), AgentError> {
    r.map_err(|e| AgentError {
        message: format!("cannot write `{node}/{file}` in the run directory: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_counts_characters() {
        assert_eq!(truncate("héllo", 2), "hé");
        assert_eq!(truncate("ab", 5), "ab");
        assert_eq!(truncate(&"x".repeat(300), 200).len(), 200);
    }
}
