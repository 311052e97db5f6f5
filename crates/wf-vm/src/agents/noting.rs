//! The decisions a fan-out's branch took (a `.wf` branch, an Attractor
//! `parallel` branch), journaled with its result so that a resumed run
//! knows which answers finished branches consumed: a branch has no run log
//! (docs/agents.md, "Resumed scripts").

use std::cell::Cell;
use std::sync::{Arc, Mutex, PoisonError};

use crate::agent::{AgentError, Decision, DecisionAgent, DecisionContext};

/// The `(workflow, node)` of each answer a `script:` agent gave from its
/// queues, in order.
pub(crate) type Decided = Arc<Mutex<Vec<(String, String)>>>;

thread_local! {
    /// Set by a `script:` agent when it gives an answer from a queue, so
    /// the [`Noting`] wrapping it (through other wrappers, such as the
    /// answers `wfc answer` recorded, which use no script answer) on the
    /// same thread notes exactly the answers the script used.
    static SCRIPTED: Cell<bool> = const { Cell::new(false) };
}

/// Called by the `script:` agent when it gives a queued answer.
pub(crate) fn scripted() {
    SCRIPTED.with(|s| s.set(true));
}

/// Wraps a branch's agent and notes each answer a `script:` agent inside
/// it gave from its queues (not its fallback's, not answers recorded by
/// `wfc answer`); its forks (a nested fan-out's branches) note into the
/// same list, as a finished branch's nested branches finished too.
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

/// `inner`'s decision, noted when a `script:` agent in it gave a queued
/// answer: the one body of [`Noting`] and its forks.
///
/// The flag is left set for the wrappers around this one: a branch of a
/// fan-out nested in another branch is wrapped by its own [`Noting`]
/// around the outer branch's, and both note the answer (the inner
/// branch's journal must list it: the outer branch, killed, runs again
/// and takes the inner one's journaled result).
fn decide_noting(
    inner: &mut dyn DecisionAgent,
    decided: &Decided,
    ctx: &DecisionContext<'_>,
) -> Result<Decision, AgentError> {
    SCRIPTED.with(|s| s.set(false));
    let d = inner.decide(ctx)?;
    if SCRIPTED.with(Cell::get) {
        note(decided, ctx);
    }
    Ok(d)
}

/// A fork of `inner` that notes into the same list.
fn fork_noting(
    inner: &dyn DecisionAgent,
    decided: &Decided,
) -> Option<Box<dyn DecisionAgent + Send>> {
    Some(Box::new(NotingFork {
        inner: inner.fork()?,
        decided: Arc::clone(decided),
    }))
}

impl DecisionAgent for Noting<'_> {
    fn decide(&mut self, ctx: &DecisionContext<'_>) -> Result<Decision, AgentError> {
        decide_noting(self.inner, &self.decided, ctx)
    }

    fn is_instant(&self) -> bool {
        self.inner.is_instant()
    }

    fn fork(&self) -> Option<Box<dyn DecisionAgent + Send>> {
        fork_noting(self.inner, &self.decided)
    }
}

impl DecisionAgent for NotingFork {
    fn decide(&mut self, ctx: &DecisionContext<'_>) -> Result<Decision, AgentError> {
        decide_noting(self.inner.as_mut(), &self.decided, ctx)
    }

    fn is_instant(&self) -> bool {
        self.inner.is_instant()
    }

    fn fork(&self) -> Option<Box<dyn DecisionAgent + Send>> {
        fork_noting(self.inner.as_ref(), &self.decided)
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
