//! `wf-vm`: the engine that runs compiled workflows.
//!
//! It executes a verified [`wf_ir::IrProgram`] with the Reflex semantics: a
//! call stack of frames with scoped, append-only blackboards, guards
//! evaluated from bytecode, and a [`agent::DecisionAgent`] consulted at every
//! node that is not a `call`.

pub mod agent;

pub use agent::{
    AgentError, BlackboardView, Decision, DecisionAgent, DecisionContext, Outcome, Status,
    ToolRunner, Write,
};
