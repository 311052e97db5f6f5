//! Custom handler types run by an agent process (`wfc run --handler
//! TYPE=exec:CMD`): the process gets the `exec:` protocol's `decide`
//! request at every node of that type and answers with its outcome, as a
//! codergen backend does. A `status.json` it writes into the node's
//! folder (Appendix C) reports the outcome instead.

use std::cell::RefCell;
use std::rc::Rc;

use super::builtin::fail;
use super::handler::{Handler, HandlerCx};
use super::status_file;
use crate::agent::{AgentError, Decision, DecisionAgent, Outcome};

/// An agent shared by the handler of a type in the pipeline, its parallel
/// branches and its child pipelines (one process for the whole run).
pub type SharedAgent = Rc<RefCell<Box<dyn DecisionAgent>>>;

/// The handler of a custom type: asks its agent.
pub struct AgentHandler {
    agent: SharedAgent,
}

impl AgentHandler {
    /// A handler that asks `agent` at each node.
    pub fn new(agent: SharedAgent) -> Self {
        AgentHandler { agent }
    }
}

impl Handler for AgentHandler {
    fn execute(&mut self, cx: &mut HandlerCx<'_, '_>) -> Result<Decision, AgentError> {
        let node = cx.node_id;
        if let Some(files) = cx.files {
            status_file::clear(files, node).map_err(|e| AgentError {
                message: format!("cannot clear `{node}/status.json`: {e}"),
            })?;
        }
        let answer = match self.agent.try_borrow_mut() {
            Ok(mut agent) => agent.decide(cx.decision),
            // Handlers never nest inside one another's agent call.
            Err(_) => Err(AgentError {
                message: "the handler's agent is busy".into(),
            }),
        };
        let mut outcome = match answer {
            // The process could not answer: the node fails with why, and
            // failure routing applies (the handler is not a backend whose
            // hiccups are worth a retry unless the node asks for them).
            Err(e) => fail(format!(
                "the `{}` handler of node `{node}` failed: {}",
                cx.handler, e.message
            )),
            Ok(Decision::Suspend { reason }) => return Ok(Decision::Suspend { reason }),
            Ok(Decision::Complete { writes }) => Outcome {
                writes,
                ..Outcome::success()
            },
            Ok(Decision::Advance(o)) => o,
        };
        if let Some(files) = cx.files {
            match status_file::read(files, node) {
                Ok(Some(from_file)) => outcome = from_file,
                Ok(None) => {}
                Err(reason) => outcome = fail(reason),
            }
        }
        Ok(Decision::Advance(outcome))
    }
}
