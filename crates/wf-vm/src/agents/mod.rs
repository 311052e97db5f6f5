//! Built-in decision agents, selectable with `wfc run --agent`:
//!
//! - [`RulesAgent`] (`rules`): the Reflex rule-agent convention in node
//!   specs, so Reflex fixtures run unchanged;
//! - [`AutoAgent`] (`auto`): a deterministic simulation;
//! - [`ScriptAgent`] (`script:FILE`): decisions and answers from a JSON file;
//! - [`ConsoleAgent`] (`console`): a person at the terminal;
//! - [`ExecAgent`] (`exec:COMMAND`): an external program speaking the
//!   JSON-lines protocol of `docs/agents.md`.

mod auto;
pub mod console;
pub mod exec;
pub(crate) mod noting;
pub(crate) mod order;
mod rules;
mod script;

pub use auto::AutoAgent;
pub use console::ConsoleAgent;
pub use exec::ExecAgent;
pub use rules::RulesAgent;
pub use script::{ScriptAgent, ScriptFallback};

use crate::agent::DecisionContext;

/// The id of an edge by index.
pub(crate) fn edge_id<'a>(ctx: &'a DecisionContext<'_>, e: wf_ir::EdgeIdx) -> &'a str {
    ctx.str(ctx.workflow.edges[e.0 as usize].id)
}

/// The current node's id.
pub(crate) fn node_id<'a>(ctx: &'a DecisionContext<'_>) -> &'a str {
    ctx.str(ctx.node.id)
}
