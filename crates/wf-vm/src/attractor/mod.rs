//! Attractor pipelines (`.dot`, seed `001_…`) on the shared engine.
//!
//! The engine runs an Attractor workflow (IR dialect `attractor`) like any
//! other; what differs is who decides at a node. [`AttractorAgent`] is the
//! decision agent for such runs: it dispatches each node to the handler of
//! its type ([`HandlerRegistry`]: `start`, `exit`, `codergen`,
//! `conditional`, …), adds the built-in context keys, writes the run
//! directory's files ([`RunFiles`]) and hands the handler's decision to
//! the engine, which logs it (a resumed run replays it). `tool` nodes run
//! through [`AttractorToolRunner`]; [`CheckpointWriter`] keeps
//! `checkpoint.json`. `docs/attractor.md` ("Running pipelines") is the
//! reference.

pub mod artifacts;
mod builtin;
mod checkpoint;
pub mod custom;
pub mod explore;
mod fidelity;
mod files;
mod handler;
mod status_file;
#[cfg(test)]
mod tests;
mod tool;
// R2 modules
pub mod fan_in;
pub mod hooks;
pub mod human;
pub mod interviewer;
pub mod manager;
pub mod nested;
pub mod parallel;

use serde_json::{Value, json};
use wf_ir::{Dialect, IrProgram, IrWorkflow, Opcode};

use crate::agent::{AgentError, Decision, DecisionAgent, DecisionContext, Outcome, Write};

pub use builtin::{Codergen, Conditional, Exit, NotYet, RESPONSE_SUMMARY_CHARS, Start, truncate};
pub use checkpoint::{CHECKPOINT_FILE, CheckpointWriter};
pub use fidelity::{
    DEFAULT as DEFAULT_FIDELITY, MODES as FIDELITY_MODES, resolve as resolve_fidelity,
};
pub use files::{RunFiles, rfc3339, safe_name, status_json};
pub use handler::{BUILT_IN_TYPES, Handler, HandlerCx, HandlerRegistry};
pub use status_file::parse as parse_status;
pub use tool::AttractorToolRunner;

/// How often one node of an Attractor pipeline may run when the graph sets
/// no `max_visits`: loops are normal in Attractor, endless ones are not.
pub const DEFAULT_MAX_VISITS: u64 = 50;

/// Whether `w` was compiled from an Attractor pipeline.
pub fn is_attractor(w: &IrWorkflow) -> bool {
    w.dialect == Dialect::Attractor
}

/// The graph attributes mirrored into the context at the start (seed 3.1,
/// 5.1): `graph.goal` and `graph.<attribute>` for every other string,
/// number or boolean attribute of the workflow.
pub fn graph_context(program: &IrProgram, w: &IrWorkflow) -> Vec<(String, Value)> {
    let mut out = vec![(
        "graph.goal".to_string(),
        json!(w.goal.map(|g| program.str(g)).unwrap_or_default()),
    )];
    if let Some(l) = w.label {
        out.push(("graph.label".into(), json!(program.str(l))));
    }
    for (k, v) in &w.spec {
        if matches!(v, Value::String(_) | Value::Number(_) | Value::Bool(_)) {
            out.push((format!("graph.{k}"), v.clone()));
        }
    }
    out
}

/// The decision agent of Attractor runs: a handler per node type.
pub struct AttractorAgent<'b> {
    registry: HandlerRegistry,
    backend: Option<Box<dyn DecisionAgent + 'b>>,
    files: Option<RunFiles>,
    /// Set on resume: the first node run degrades `full` fidelity to
    /// `summary:high` (seed 5.3: sessions are not serialised).
    resumed: bool,
}

impl<'b> AttractorAgent<'b> {
    /// An agent with the standard handlers; `backend` is the user's agent
    /// (`None`: simulation), `files` the run directory's layout.
    pub fn new(backend: Option<Box<dyn DecisionAgent + 'b>>, files: Option<RunFiles>) -> Self {
        AttractorAgent {
            registry: HandlerRegistry::standard(),
            backend,
            files,
            resumed: false,
        }
    }

    /// Marks the run as resumed from a checkpoint.
    pub fn resumed(mut self) -> Self {
        self.resumed = true;
        self
    }

    /// The handler registry, to register custom handlers.
    pub fn registry_mut(&mut self) -> &mut HandlerRegistry {
        &mut self.registry
    }
}

impl DecisionAgent for AttractorAgent<'_> {
    fn decide(&mut self, ctx: &DecisionContext<'_>) -> Result<Decision, AgentError> {
        if !is_attractor(ctx.workflow) {
            // Not a pipeline: the backend decides as usual.
            return match self.backend.as_deref_mut() {
                Some(b) => b.decide(ctx),
                None => crate::agents::AutoAgent::new().decide(ctx),
            };
        }
        let node_id = ctx.str(ctx.node.id);
        let handler_type = ctx.node.handler.map_or("codergen", |h| ctx.str(h));
        let (mut fidelity, thread) = fidelity::resolve(ctx);
        if std::mem::take(&mut self.resumed) && fidelity == "full" {
            fidelity = "summary:high".to_string();
        }
        let goal = ctx.workflow.goal.map_or("", |g| ctx.str(g));
        let auto_status = ctx.node.engine.auto_status;
        let simulated = self.backend.is_none();
        let mut cx = HandlerCx {
            decision: ctx,
            node_id,
            handler: handler_type,
            attrs: ctx.spec(),
            goal,
            fidelity: &fidelity,
            thread_id: thread.as_deref(),
            files: self.files.as_ref(),
            backend: match self.backend.as_deref_mut() {
                Some(b) => Some(b),
                None => None,
            },
            events: Vec::new(),
        };
        let decision = match self.registry.get_mut(handler_type) {
            Some(h) => h.execute(&mut cx)?,
            // A custom handler nobody registered: with `auto_status` the
            // node succeeds as Appendix C synthesises; else it fails.
            None if auto_status => Decision::Advance(Outcome {
                notes: Some("auto-status: handler completed without writing status".into()),
                ..Outcome::success()
            }),
            // A dry run (no backend) simulates a type it does not know,
            // as it simulates tools: the route is what it checks.
            None if simulated => Decision::Advance(Outcome {
                notes: Some(format!(
                    "Handler simulated: this engine does not know the type `{handler_type}`; a real run needs `--handler {handler_type}=exec:COMMAND`"
                )),
                ..Outcome::success()
            }),
            None => Decision::Advance(builtin::fail(format!(
                "node `{node_id}` has the handler type `{handler_type}`, which this engine does not know (built in: start, exit, codergen, conditional, tool, wait.human, parallel, parallel.fan_in, stack.manager_loop); run it with `wfc run --handler {handler_type}=exec:COMMAND`"
            ))),
        };
        let events = std::mem::take(&mut cx.events);
        let Decision::Advance(mut outcome) = decision else {
            return Ok(decision);
        };
        outcome.events.extend(events);
        // A dry run's simulated stage entered again reports what leaves
        // the loop (explore.rs).
        if simulated && (handler_type == "codergen" || !self.registry.has(handler_type)) {
            explore::steer(ctx, &mut outcome);
        }
        let terminal = ctx.node.edges.len == 0 || ctx.node.op == Opcode::Exit;
        let settled = settled(ctx, &outcome);
        if let Some(files) = &self.files
            && !terminal
        {
            files
                .write_status(node_id, &settled, &fidelity, thread.as_deref())
                .map_err(|e| AgentError {
                    message: format!(
                        "cannot write `{node_id}/status.json` in the run directory: {e}"
                    ),
                })?;
        }
        add_builtin_keys(&mut outcome, settled.status, node_id);
        Ok(Decision::Advance(outcome))
    }

    fn is_instant(&self) -> bool {
        self.backend.as_ref().is_none_or(|b| b.is_instant())
    }
}

/// The outcome as the engine will settle it, for `status.json`: a `retry`
/// with no attempt left becomes `partial_success` (with `allow_partial`)
/// or `fail` (seed 3.5).
fn settled(ctx: &DecisionContext<'_>, outcome: &Outcome) -> Outcome {
    let mut o = outcome.clone();
    // A key over the limit fails the node (docs/runtime.md section 4): the
    // file says so rather than recording the write.
    let max_key = crate::config::SizeLimits::default().max_key_bytes;
    if let Some(reason) = crate::engine::long_key(&o.writes, max_key) {
        o.writes.clear();
        o.status = crate::agent::Status::Fail;
        o.failure_reason = Some(reason);
        return o;
    }
    let retries = ctx
        .node
        .engine
        .retries
        .or(ctx.workflow.limits.default_retries)
        .unwrap_or(0);
    if o.status == crate::agent::Status::Retry && ctx.attempt > retries {
        if ctx.node.engine.allow_partial {
            o.status = crate::agent::Status::PartialSuccess;
            o.notes = Some("retries exhausted, partial accepted".into());
        } else {
            o.status = crate::agent::Status::Fail;
            if o.failure_reason.is_none() {
                o.failure_reason = Some("max retries exceeded".into());
            }
        }
    }
    o
}

/// The keys the engine sets after every node (seed 3.2 step 4, 5.1):
/// `outcome`, `preferred_label` (when the outcome has one) and
/// `current_node`.
fn add_builtin_keys(outcome: &mut Outcome, status: crate::agent::Status, node_id: &str) {
    outcome.writes.push(Write {
        key: "outcome".into(),
        value: json!(status.as_str()),
    });
    if let Some(label) = outcome.preferred_label.clone().filter(|l| !l.is_empty()) {
        outcome.writes.push(Write {
            key: "preferred_label".into(),
            value: json!(label),
        });
    }
    outcome.writes.push(Write {
        key: "current_node".into(),
        value: json!(node_id),
    });
}
