//! The `tool` handler (seed 4.10). The engine runs a tool node's command
//! through its tool runner, not the agent; for Attractor runs that runner
//! is [`AttractorToolRunner`], which wraps the process runner, adds
//! `tool.output` and the built-in keys, and writes `status.json`.
//!
//! The command comes from the engine as a [`ShellCommand`]: DOT has no
//! interpolation (`$goal` is expanded in prompts only), so for a pipeline
//! it is `tool_command` as written, with no variables; the rule that keeps
//! values out of the script (`crate::template::shell_command`) is the
//! engine's, for every source format.

use std::time::Duration;

use super::files::RunFiles;
use super::{add_builtin_keys, fidelity, is_attractor};
use crate::agent::{DecisionContext, Outcome, Status, ToolRunner, Write};
use crate::template::ShellCommand;

/// The tool runner of Attractor runs.
pub struct AttractorToolRunner<'b> {
    inner: Option<Box<dyn ToolRunner + 'b>>,
    files: Option<RunFiles>,
}

impl<'b> AttractorToolRunner<'b> {
    /// `inner` runs the commands (`None`: tools are not allowed, and every
    /// tool node fails with the refusal); `files` is the run directory.
    pub fn new(inner: Option<Box<dyn ToolRunner + 'b>>, files: Option<RunFiles>) -> Self {
        AttractorToolRunner { inner, files }
    }
}

impl ToolRunner for AttractorToolRunner<'_> {
    fn run(
        &mut self,
        context: &DecisionContext<'_>,
        command: &ShellCommand,
        timeout: Duration,
    ) -> Outcome {
        let node = context.str(context.node.id);
        let mut outcome = match &mut self.inner {
            None => Outcome::failed(format!(
                "tool nodes run only with --allow-tools (node `{node}` would run `{}`)",
                command.script
            )),
            Some(runner) => runner.run(context, command, timeout),
        };
        if !is_attractor(context.workflow) {
            return outcome;
        }
        let stdout_key = format!("{node}.stdout");
        let stdout = outcome
            .writes
            .iter()
            .find(|w| w.key == stdout_key)
            .map(|w| w.value.clone());
        if let Some(out) = stdout {
            outcome.writes.push(Write {
                key: "tool.output".into(),
                value: out,
            });
        }
        if outcome.status == Status::Success && outcome.notes.is_none() {
            outcome.notes = Some(format!("Tool completed: {}", command.script));
        }
        if let Some(files) = &self.files {
            let (fid, thread) = fidelity::resolve(context);
            if let Err(e) = files.write_status(node, &outcome, &fid, thread.as_deref()) {
                outcome.status = Status::Fail;
                outcome.failure_reason = Some(format!(
                    "cannot write `{node}/status.json` in the run directory: {e}"
                ));
            }
        }
        let status = outcome.status;
        add_builtin_keys(&mut outcome, status, node);
        outcome
    }
}
