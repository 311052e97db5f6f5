//! How a fan-out's branch gets its engine: the one body of the `.wf`
//! branches (engine/fan_branch.rs) and the Attractor ones
//! ([`super::branch`]).

use serde_json::Value;
use wf_ir::{IrProgram, NodeIdx, WorkflowIdx};

use super::journal::Waiting;
use super::trace::TraceSink;
use crate::attractor::nested::Inherited;
use crate::engine::{Engine, EngineError};

impl Inherited {
    /// The engine of a branch of `wf` that starts at `start`: a fresh one
    /// with the parent's `context` written in as inputs, or, when the
    /// branch waited (`from`: a resumed fan-out), its engine restored
    /// where it stood, which holds the context it had there, with its
    /// events so far put back into `trace`.
    pub(crate) fn branch_engine<'p>(
        &self,
        program: &'p IrProgram,
        wf: WorkflowIdx,
        start: NodeIdx,
        context: &[(String, Value)],
        from: Option<Waiting>,
        trace: &TraceSink,
    ) -> Result<Engine<'p>, EngineError> {
        let mut engine = match &from {
            Some(w) => self.restore(program, &w.snapshot)?,
            None => self.engine(program, wf)?,
        };
        match from {
            Some(w) => trace.0.borrow_mut().events = w.events,
            None => {
                for (k, v) in context {
                    // Reserved keys (`internal.…`) are the engine's own; a
                    // branch's engine keeps its own.
                    let _ = engine.set_input(k, v.clone());
                }
            }
        }
        engine.start_at(start);
        Ok(engine)
    }
}
