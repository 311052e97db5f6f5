//! The handler interface (seed section 4.1) and the registry (4.2).

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::builtin;
use super::files::RunFiles;
use crate::agent::{AgentError, Decision, DecisionAgent, DecisionContext, HandlerEvent};

/// What a handler gets at a node.
pub struct HandlerCx<'c, 'a> {
    /// The engine's view of the node: program, workflow, node, the context
    /// (`blackboard`), valid edges, attempt, step, incoming edge.
    pub decision: &'c DecisionContext<'a>,
    /// The node's id.
    pub node_id: &'c str,
    /// The handler type being run.
    pub handler: &'c str,
    /// The node's attributes that are not engine attributes (`prompt`,
    /// `tool_command`, `human.default_choice`, …), rendered; durations are
    /// integers of milliseconds.
    pub attrs: Map<String, Value>,
    /// The graph's `goal` (empty when none).
    pub goal: &'c str,
    /// The resolved fidelity (seed 5.4).
    pub fidelity: &'c str,
    /// The resolved thread key, when the fidelity is `full`.
    pub thread_id: Option<&'c str>,
    /// The run directory's files; `None` when the run has no directory.
    pub files: Option<&'c RunFiles>,
    /// The backend (the user's decision agent); `None` in simulation
    /// (`--agent auto`).
    pub backend: Option<&'c mut dyn DecisionAgent>,
    /// Events reported so far (see [`HandlerCx::event`]).
    pub events: Vec<HandlerEvent>,
}

impl HandlerCx<'_, '_> {
    /// A node attribute as text (strings as they are, other values as
    /// JSON).
    pub fn attr_text(&self, key: &str) -> Option<String> {
        self.attrs.get(key).map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
    }

    /// Reports an event (seed 9.6: `InterviewStarted`, `ParallelStarted`,
    /// …). The adapter attaches it to the outcome and the engine emits it
    /// as `handler:event` in the event log.
    pub fn event(&mut self, name: &str, data: Value) {
        self.events.push(HandlerEvent {
            name: name.to_string(),
            data,
        });
    }
}

/// A node handler (seed 4.1). It returns the decision the engine applies:
/// `Advance(outcome)` (its `writes` are the context updates),
/// `Suspend { reason }` (resumable), or an error that fails the run.
pub trait Handler {
    /// Runs the handler at the node `cx` describes.
    fn execute(&mut self, cx: &mut HandlerCx<'_, '_>) -> Result<Decision, AgentError>;
}

/// Handlers by type.
#[derive(Default)]
pub struct HandlerRegistry {
    handlers: HashMap<String, Box<dyn Handler>>,
}

/// The handler types of the engine (seed 2.8): the ones
/// [`HandlerRegistry::standard`] and `parallel::install` register and the
/// engine runs itself (`tool`). `wfc run --handler` may not replace them;
/// a dry run simulates any other type.
pub const BUILT_IN_TYPES: &[&str] = &[
    "start",
    "exit",
    "codergen",
    "conditional",
    "tool",
    "wait.human",
    "parallel",
    "parallel.fan_in",
    "stack.manager_loop",
];

impl HandlerRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// The built-in handlers of the seed.
    pub fn standard() -> Self {
        let mut reg = Self::new();
        reg.register("start", Box::new(builtin::Start));
        reg.register("exit", Box::new(builtin::Exit));
        reg.register("conditional", Box::new(builtin::Conditional));
        reg.register("codergen", Box::new(builtin::Codergen));
        // `tool` nodes never reach a handler: the engine runs their
        // command through the tool runner (see `tool.rs`).
        for ty in [
            "wait.human",
            "parallel",
            "parallel.fan_in",
            "stack.manager_loop",
        ] {
            reg.register(ty, Box::new(builtin::NotYet));
        }
        // R2 handlers (one `reg.register(...)` line each, replacing the
        // placeholder above).
        super::parallel::install(&mut reg, super::parallel::Kit::default());
        reg
    }

    /// Registers `handler` for `ty`, replacing any previous one.
    pub fn register(&mut self, ty: &str, handler: Box<dyn Handler>) {
        self.handlers.insert(ty.to_string(), handler);
    }

    /// The handler of `ty`.
    pub fn get_mut(&mut self, ty: &str) -> Option<&mut (dyn Handler + 'static)> {
        self.handlers.get_mut(ty).map(|h| h.as_mut())
    }

    /// Whether a handler is registered for `ty`.
    pub fn has(&self, ty: &str) -> bool {
        self.handlers.contains_key(ty)
    }
}
