//! `rules`: the Reflex rule-agent convention. Each node's spec may hold
//!
//! - `writes`: a list of `{"key": …, "value": …}` written at the node;
//! - `edge`: an edge id, or a priority list of ids (the first valid one is
//!   taken); omitted, the single valid edge is taken;
//! - `suspend`: a reason; the agent suspends there;
//! - `complete`: `true` completes the workflow (the engine rejects it at a
//!   node that is not a terminal).
//!
//! At a terminal without `complete`, the agent completes too (a Reflex
//! workflow ends at its terminals either way).

use serde_json::Value;

use super::{edge_id, node_id};
use crate::agent::{AgentError, Decision, DecisionAgent, DecisionContext, Outcome, Write};

/// The `rules` agent.
#[derive(Debug, Clone, Copy, Default)]
pub struct RulesAgent;

impl RulesAgent {
    /// The agent.
    pub fn new() -> Self {
        RulesAgent
    }
}

fn err(ctx: &DecisionContext<'_>, msg: String) -> AgentError {
    AgentError {
        message: format!("rules agent at node `{}`: {msg}", node_id(ctx)),
    }
}

/// A routing error: also says that `rules` only follows what node specs
/// spell out, and how to run with another agent.
fn route_err(ctx: &DecisionContext<'_>, msg: String) -> AgentError {
    err(
        ctx,
        format!(
            "{msg}. The `rules` agent follows the Reflex rule convention in node specs \
             (`edge`, `writes`); for a dry run use --agent auto, to decide yourself \
             --agent console, or name a program with --agent exec:COMMAND"
        ),
    )
}

fn writes(ctx: &DecisionContext<'_>) -> Result<Vec<Write>, AgentError> {
    let Some(spec) = ctx.node.spec.get("writes") else {
        return Ok(Vec::new());
    };
    let Value::Array(items) = spec else {
        return Err(err(ctx, "`writes` must be a list of {key, value}".into()));
    };
    items
        .iter()
        .map(|item| match (item.get("key"), item.get("value")) {
            (Some(Value::String(k)), Some(v)) => Ok(Write {
                key: k.clone(),
                value: v.clone(),
            }),
            _ => Err(err(
                ctx,
                format!("each entry of `writes` needs a string `key` and a `value`, found {item}"),
            )),
        })
        .collect()
}

impl DecisionAgent for RulesAgent {
    fn is_instant(&self) -> bool {
        true
    }

    fn fork(&self) -> Option<Box<dyn DecisionAgent + Send>> {
        Some(Box::new(*self))
    }

    fn decide(&mut self, ctx: &DecisionContext<'_>) -> Result<Decision, AgentError> {
        let spec = &ctx.node.spec;
        if let Some(reason) = spec.get("suspend") {
            let reason = match reason {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            return Ok(Decision::Suspend { reason });
        }
        let writes = writes(ctx)?;
        if spec.get("complete") == Some(&Value::Bool(true)) {
            return Ok(Decision::Complete { writes });
        }
        let valid: Vec<&str> = ctx.valid_edges.iter().map(|&e| edge_id(ctx, e)).collect();
        let edge = match spec.get("edge") {
            Some(Value::String(id)) => id.clone(),
            Some(Value::Array(ids)) => {
                let ids: Vec<&str> = ids.iter().filter_map(Value::as_str).collect();
                match ids.iter().find(|id| valid.contains(id)) {
                    Some(id) => (*id).to_owned(),
                    None => {
                        return Err(route_err(
                            ctx,
                            format!(
                                "none of the edges [{}] in `edge` is valid (valid: [{}])",
                                ids.join(", "),
                                valid.join(", ")
                            ),
                        ));
                    }
                }
            }
            Some(other) => {
                return Err(err(
                    ctx,
                    format!("`edge` must be an edge id or a list of ids, found {other}"),
                ));
            }
            None if ctx.is_terminal() => return Ok(Decision::Complete { writes }),
            None => match valid.as_slice() {
                [one] => (*one).to_owned(),
                [] => return Err(route_err(ctx, "no outgoing edge is valid".into())),
                many => {
                    return Err(route_err(
                        ctx,
                        format!(
                            "{} edges are valid ([{}]) and the spec names none in `edge`",
                            many.len(),
                            many.join(", ")
                        ),
                    ));
                }
            },
        };
        let mut outcome = Outcome::success();
        outcome.writes = writes;
        outcome.edge = Some(edge);
        Ok(Decision::Advance(outcome))
    }
}
