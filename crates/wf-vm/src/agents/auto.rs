//! `auto`: success everywhere, a placeholder of the declared type for every
//! declared write, the first valid choice at `human` nodes, `complete` at
//! terminals. Deterministic, for dry runs and benchmarks.

use wf_ir::Opcode;

use super::edge_id;
use crate::agent::{AgentError, Decision, DecisionAgent, DecisionContext, Outcome, Write};
use crate::contract::placeholder;

/// The `auto` agent.
#[derive(Debug, Clone, Copy, Default)]
pub struct AutoAgent;

impl AutoAgent {
    /// The agent.
    pub fn new() -> Self {
        AutoAgent
    }
}

impl DecisionAgent for AutoAgent {
    fn is_instant(&self) -> bool {
        true
    }

    fn fork(&self) -> Option<Box<dyn DecisionAgent + Send>> {
        Some(Box::new(*self))
    }

    fn decide(&mut self, ctx: &DecisionContext<'_>) -> Result<Decision, AgentError> {
        let writes: Vec<Write> = ctx
            .node
            .writes
            .iter()
            .map(|w| {
                let key = ctx.str(w.key);
                Write {
                    key: key.to_owned(),
                    value: placeholder(w.ty, key),
                }
            })
            .collect();
        if ctx.is_terminal() {
            return Ok(Decision::Complete { writes });
        }
        let mut outcome = Outcome::success();
        outcome.writes = writes;
        if ctx.node.op == Opcode::Human {
            outcome.edge = ctx.valid_edges.first().map(|&e| edge_id(ctx, e).to_owned());
        }
        Ok(Decision::Advance(outcome))
    }
}
