//! The fork of [`LlmAgent`](super::LlmAgent) that decides in a parallel
//! branch on a thread of its own (`docs/runtime.md`, "Parallel
//! branches"), so that the branches of a fan-out call the model at once.
//!
//! It shares the parent's [`Caller`]: the totals (budgets are checked
//! against what every branch has spent so far) and the providers'
//! concurrency caps, which bound the calls in flight run-wide whatever
//! `max_parallel` says. Its `full` conversations are a copy of the
//! parent's at the fan-out, each branch forking its own
//! ([`super::context::Threads`]). The run directory's layout
//! travels as data ([`RunFiles::parts`]): the parent's `RunFiles` is not
//! `Send`.

use std::path::PathBuf;

use wf_vm::agents::AutoAgent;
use wf_vm::attractor::RunFiles;
use wf_vm::{AgentError, Decision, DecisionAgent, DecisionContext};

use super::{Caller, calls_model};

/// An agent for one worker thread of a fan-out.
pub(super) struct Branch {
    caller: Caller,
    files: Option<(PathBuf, u32)>,
    /// Decides where no model is called (a branch's `conditional` or
    /// `start`-like nodes).
    other: AutoAgent,
}

impl Branch {
    /// A fork sharing `caller`, writing into the stage folders `files`
    /// lays out when forked.
    pub(super) fn new(caller: Caller, files: Option<&RunFiles>) -> Self {
        Branch {
            caller,
            files: files.map(RunFiles::parts),
            other: AutoAgent::new(),
        }
    }
}

impl DecisionAgent for Branch {
    fn decide(&mut self, ctx: &DecisionContext<'_>) -> Result<Decision, AgentError> {
        if calls_model(ctx.program, ctx.workflow, ctx.node) {
            let files = self.files.clone().map(RunFiles::from_parts);
            self.caller.call(ctx, files.as_ref())
        } else {
            self.other.decide(ctx)
        }
    }

    fn fork(&self) -> Option<Box<dyn DecisionAgent + Send>> {
        Some(Box::new(Branch {
            caller: self.caller.forked(),
            files: self.files.clone(),
            other: AutoAgent::new(),
        }))
    }
}
