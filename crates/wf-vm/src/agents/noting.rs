//! The decisions a fan-out's branch took (a `.wf` branch, an Attractor
//! `parallel` branch), journaled with its result so that a resumed run
//! knows which answers finished branches consumed: a branch has no run log
//! (docs/agents.md, "Resumed scripts").

use std::sync::{Arc, Mutex, PoisonError};

use crate::agent::{AgentError, Decision, DecisionAgent, DecisionContext};

/// The `(workflow, node)` of each decision an agent gave, in order.
pub(crate) type Decided = Arc<Mutex<Vec<(String, String)>>>;

/// Wraps a branch's agent and notes each decision it gives (not its
/// errors); its forks (a nested fan-out's branches) note into the same list,
/// as a finished branch's nested branches finished too.
pub(crate) struct Noting<'a> {
    pub(crate) inner: &'a mut dyn DecisionAgent,
    pub(crate) decided: Decided,
}

/// A fork of [`Noting`]: owns its agent.
struct NotingFork {
    inner: Box<dyn DecisionAgent + Send>,
    decided: Decided,
}

fn note(decided: &Decided, ctx: &DecisionContext<'_>) {
    let entry = (
        ctx.str(ctx.workflow.name).to_owned(),
        ctx.str(ctx.node.id).to_owned(),
    );
    decided
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(entry);
}

impl DecisionAgent for Noting<'_> {
    fn decide(&mut self, ctx: &DecisionContext<'_>) -> Result<Decision, AgentError> {
        let d = self.inner.decide(ctx)?;
        note(&self.decided, ctx);
        Ok(d)
    }

    fn is_instant(&self) -> bool {
        self.inner.is_instant()
    }

    fn fork(&self) -> Option<Box<dyn DecisionAgent + Send>> {
        let inner = self.inner.fork()?;
        Some(Box::new(NotingFork {
            inner,
            decided: Arc::clone(&self.decided),
        }))
    }
}

impl DecisionAgent for NotingFork {
    fn decide(&mut self, ctx: &DecisionContext<'_>) -> Result<Decision, AgentError> {
        let d = self.inner.decide(ctx)?;
        note(&self.decided, ctx);
        Ok(d)
    }

    fn is_instant(&self) -> bool {
        self.inner.is_instant()
    }

    fn fork(&self) -> Option<Box<dyn DecisionAgent + Send>> {
        let inner = self.inner.fork()?;
        Some(Box::new(NotingFork {
            inner,
            decided: Arc::clone(&self.decided),
        }))
    }
}

/// The decisions in a journal document's `decided` field.
pub(crate) fn to_json(decided: &Decided) -> Vec<serde_json::Value> {
    let list = decided.lock().unwrap_or_else(PoisonError::into_inner);
    list.iter()
        .map(|(w, n)| serde_json::json!({"workflow": w, "node": n}))
        .collect()
}

/// A list holding the decisions a branch restored at its gate had taken
/// before it (its journal's `decided`), so that its result counts them.
pub(crate) fn seeded(from: Option<&crate::attractor::parallel::journal::Waiting>) -> Decided {
    let list = from
        .into_iter()
        .flat_map(|w| &w.decided)
        .filter_map(|d| {
            Some((
                d["workflow"].as_str()?.to_owned(),
                d["node"].as_str()?.to_owned(),
            ))
        })
        .collect();
    Arc::new(Mutex::new(list))
}
