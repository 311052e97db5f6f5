//! What parallel branches and child pipelines inherit from the run that
//! starts them: the tool runner (`--allow-tools`), the engine
//! configuration, and what is left of the run's limits. The codergen
//! backend is lent to them by the handlers themselves.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use wf_ir::{IrProgram, WorkflowIdx};

use super::files::RunFiles;
use super::tool::AttractorToolRunner;
use crate::agent::{DecisionContext, Outcome, ToolRunner};
use crate::config::{EngineConfig, RunLimits};
use crate::engine::fan_keys::SharedKeys;
use crate::engine::{Engine, EngineError};
use crate::template::ShellCommand;

/// The tool runner of a run, shared with its parallel branches and child
/// pipelines (each wraps it in an [`AttractorToolRunner`] with its own
/// run-directory files).
pub type SharedTools = Rc<RefCell<dyn ToolRunner>>;

/// A [`SharedTools`] as a tool runner.
pub struct Shared(pub SharedTools);

impl ToolRunner for Shared {
    fn run(
        &mut self,
        context: &DecisionContext<'_>,
        command: &ShellCommand,
        timeout: Duration,
    ) -> Outcome {
        // Engines nest only through handlers, never inside a tool run, so
        // the runner is free; refuse rather than panic if it ever is not.
        match self.0.try_borrow_mut() {
            Ok(mut runner) => runner.run(context, command, timeout),
            Err(_) => Outcome::failed("the tool runner is busy with another tool"),
        }
    }

    fn fork(&self) -> Option<Box<dyn ToolRunner + Send>> {
        self.0.try_borrow().ok()?.fork()
    }
}

/// A forked tool runner owned by a branch's thread, as a tool runner.
pub(crate) struct Owned(pub Box<dyn ToolRunner + Send>);

impl ToolRunner for Owned {
    fn run(
        &mut self,
        context: &DecisionContext<'_>,
        command: &ShellCommand,
        timeout: Duration,
    ) -> Outcome {
        self.0.run(context, command, timeout)
    }

    fn fork(&self) -> Option<Box<dyn ToolRunner + Send>> {
        self.0.fork()
    }
}

/// The tool runner of a nested engine: `tools` (`None`: tools are not
/// allowed, every tool node fails with the refusal) writing `files`.
pub fn tool_runner(tools: Option<&SharedTools>, files: Option<RunFiles>) -> Box<dyn ToolRunner> {
    let inner = tools.map(|t| Box::new(Shared(t.clone())) as Box<dyn ToolRunner>);
    Box::new(AttractorToolRunner::new(inner, files))
}

/// The configuration a nested engine starts from and the limits it may
/// not exceed: the parent's configuration, and the parent's limits less
/// the steps and time the parent has used.
#[derive(Debug, Clone)]
pub struct Inherited {
    config: EngineConfig,
    cap: RunLimits,
    /// A durable fan-out's branch, or a child pipeline: its own folder
    /// (engine/fan_durable.rs).
    branch_dir: Option<std::path::PathBuf>,
    /// A fan-out's branch: the idempotence keys it shares with its
    /// siblings and the run (engine/fan_keys.rs).
    keys: Option<Arc<SharedKeys>>,
}

impl Inherited {
    /// What a nested run started at the node of `d` inherits.
    pub fn of(d: &DecisionContext<'_>) -> Self {
        let mut cap = d.limits.clone();
        cap.max_steps = cap.max_steps.saturating_sub(d.step);
        cap.wall_clock = cap.wall_clock.saturating_sub(d.elapsed);
        Inherited {
            config: d.config.clone(),
            cap,
            branch_dir: None,
            keys: None,
        }
    }

    /// What a nested run started at step `step` of a run with `config`
    /// and `limits`, `elapsed` into it, inherits.
    pub(crate) fn new(
        config: &EngineConfig,
        limits: &RunLimits,
        step: u64,
        elapsed: Duration,
    ) -> Self {
        let mut cap = limits.clone();
        cap.max_steps = cap.max_steps.saturating_sub(step);
        cap.wall_clock = cap.wall_clock.saturating_sub(elapsed);
        Inherited {
            config: config.clone(),
            cap,
            branch_dir: None,
            keys: None,
        }
    }

    /// An engine in the state `snap` describes (a branch that waited at a
    /// gate), with the inherited configuration: its limits are those it
    /// had, within what the configuration allows.
    pub fn restore<'p>(
        &self,
        program: &'p IrProgram,
        snap: &crate::engine::Snapshot,
    ) -> Result<Engine<'p>, EngineError> {
        let mut engine = Engine::restore(program, snap, self.config.clone())?;
        // A snapshot holds no effect records: the folder's are read back.
        if let Some(dir) = &self.branch_dir {
            engine.attach_branch_dir(dir.clone());
        }
        engine.effects.shared = self.keys.clone();
        Ok(engine)
    }

    /// An engine at the entry of `wf`: the workflow's own limits apply
    /// where they are tighter than what is left of the parent's.
    pub fn engine<'p>(
        &self,
        program: &'p IrProgram,
        wf: WorkflowIdx,
    ) -> Result<Engine<'p>, EngineError> {
        let mut engine = Engine::new(program, wf, self.config.clone())?;
        let (l, c) = (&mut engine.limits, &self.cap);
        l.max_steps = l.max_steps.min(c.max_steps);
        l.max_depth = l.max_depth.min(c.max_depth);
        l.wall_clock = l.wall_clock.min(c.wall_clock);
        l.max_write_bytes = l.max_write_bytes.min(c.max_write_bytes);
        l.max_blackboard_bytes = l.max_blackboard_bytes.min(c.max_blackboard_bytes);
        if let Some(dir) = &self.branch_dir {
            engine.attach_branch_dir(dir.clone());
        }
        engine.effects.shared = self.keys.clone();
        Ok(engine)
    }

    /// What the branches of a fan-out whose keys are `keys` inherit: each
    /// branch's engine claims its keys there, so siblings and the run
    /// share them (engine/fan_keys.rs).
    pub(crate) fn with_keys(self, keys: Option<Arc<SharedKeys>>) -> Self {
        Inherited { keys, ..self }
    }

    /// What the branch of a durable fan-out whose own folder is `dir`
    /// inherits: its engine records its effects there and reuses the
    /// keyed ones an earlier run of the branch recorded.
    pub(crate) fn in_branch_dir(&self, dir: Option<std::path::PathBuf>) -> Self {
        Inherited {
            branch_dir: dir,
            ..self.clone()
        }
    }

    /// The own folder of the branch or child pipeline this is for, if it
    /// has one ([`Inherited::in_branch_dir`]).
    pub(crate) fn branch_dir(&self) -> Option<&std::path::Path> {
        self.branch_dir.as_deref()
    }
}
