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
//!
//! The command gets where it runs as environment variables: `WFC_NODE_ID`,
//! and with a run directory `WFC_RUN_DIR` and `WFC_STAGE_DIR` (the node's
//! folder). A tool that writes `$WFC_STAGE_DIR/status.json` reports its
//! outcome that way (Appendix C), as a codergen backend can.

use std::time::Duration;

use super::files::RunFiles;
use super::{add_builtin_keys, fidelity, is_attractor, status_file};
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
        if !is_attractor(context.workflow) {
            return match &mut self.inner {
                None => refused(node, command),
                Some(runner) => runner.run(context, command, timeout),
            };
        }
        // Where the command runs, for the command; a stale status file
        // (an earlier attempt's, or ours) must not be read as its answer.
        let mut command = command.clone();
        command.vars.push(("WFC_NODE_ID".into(), node.to_string()));
        if let Some(files) = &self.files {
            let stage = files.stage_dir(node).and_then(|dir| {
                status_file::clear(files, node)?;
                Ok(dir)
            });
            match stage {
                Ok(dir) => {
                    let root = files.root().display().to_string();
                    command.vars.push(("WFC_RUN_DIR".into(), root));
                    let stage = dir.display().to_string();
                    command.vars.push(("WFC_STAGE_DIR".into(), stage));
                }
                Err(e) => {
                    let mut outcome = Outcome::failed(format!(
                        "cannot prepare the folder of `{node}` in the run directory: {e}"
                    ));
                    add_builtin_keys(&mut outcome, Status::Fail, node);
                    return outcome;
                }
            }
        }
        let command = &command;
        let mut outcome = match &mut self.inner {
            None => refused(node, command),
            Some(runner) => runner.run(context, command, timeout),
        };
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
            // The status-file contract: a `status.json` the command wrote
            // decides the outcome and stays as written; its
            // `context_updates` come after the captured output, so they win.
            match status_file::read(files, node) {
                Ok(Some(mut from_file)) => {
                    let mut writes = std::mem::take(&mut outcome.writes);
                    writes.append(&mut from_file.writes);
                    from_file.writes = writes;
                    outcome = from_file;
                }
                Ok(None) => {
                    let (fid, thread) = fidelity::resolve(context);
                    if let Err(e) = files.write_status(node, &outcome, &fid, thread.as_deref()) {
                        outcome.status = Status::Fail;
                        outcome.failure_reason = Some(format!(
                            "cannot write `{node}/status.json` in the run directory: {e}"
                        ));
                    }
                }
                Err(reason) => {
                    outcome.status = Status::Fail;
                    outcome.failure_reason = Some(reason);
                }
            }
        }
        let status = outcome.status;
        add_builtin_keys(&mut outcome, status, node);
        outcome
    }
}

/// The outcome of a tool node when tools are not allowed.
fn refused(node: &str, command: &ShellCommand) -> Outcome {
    Outcome::failed(format!(
        "tool nodes are refused (--tools refuse; --tools run or --allow-tools runs them, --tools simulate dry-runs them): node `{node}` would run `{}`",
        command.script
    ))
}
