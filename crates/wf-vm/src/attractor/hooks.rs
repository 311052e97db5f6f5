//! Tool call hooks (seed 9.7): `tool_hooks.pre` and `tool_hooks.post`,
//! shell commands run around each `tool` node's command (docs/llm.md,
//! "Tool hooks"; the node's own attribute, else the graph's).
//!
//! wfc runs them around `tool` nodes, the tool calls it makes itself. The
//! tool calls a CLI coding agent makes happen inside that agent, which
//! wfc cannot interpose on (each CLI has hooks of its own), and the HTTP
//! backends make none; `wfc check` says so (WF0860).
//!
//! A hook is written by the pipeline's author, as the tool command is, so
//! it runs through `sh -c` in the tool's working directory; what it is
//! told about the call (node, command, values, result) comes in
//! environment variables and a JSON document on its stdin, never in its
//! command line. A pre-hook that exits non-zero skips the call: the node
//! fails with the hook's reason. A post-hook's failure changes nothing but
//! is recorded. Every hook run is a `ToolHook` handler event.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::agent::{DecisionContext, HandlerEvent, Outcome, ToolRunner};
use crate::template::ShellCommand;
use crate::tools::run_child;

/// The handler event each hook run adds to the node's outcome.
pub const HOOK_EVENT: &str = "ToolHook";

/// The most bytes of a hook's output kept (for its failure reason).
const HOOK_OUTPUT_BYTES: usize = 64 * 1024;

/// A tool runner that runs the hooks around `inner`'s commands.
pub struct HookedTools<R> {
    inner: R,
    working_dir: PathBuf,
}

impl<R: ToolRunner> HookedTools<R> {
    /// Hooks around `inner`, run in `working_dir` (the tools' own).
    pub fn new(inner: R, working_dir: impl Into<PathBuf>) -> Self {
        HookedTools {
            inner,
            working_dir: working_dir.into(),
        }
    }
}

/// The hook `name` (`pre` or `post`) of the node, else of its graph.
pub fn hook<'a>(context: &'a DecisionContext<'_>, name: &str) -> Option<&'a str> {
    let key = format!("tool_hooks.{name}");
    let text = |spec: &'a Map<String, Value>| {
        spec.get(&key)
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
    };
    text(&context.node.spec).or_else(|| text(&context.workflow.spec))
}

/// How a hook ended: `None` for exit status 0, else the reason.
struct HookRun {
    failure: Option<String>,
    event: HandlerEvent,
}

impl<R> HookedTools<R> {
    fn run_hook(
        &self,
        context: &DecisionContext<'_>,
        which: &str,
        script: &str,
        doc: &Value,
        env: &[(&str, String)],
        timeout: Duration,
    ) -> HookRun {
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(script).current_dir(&self.working_dir);
        cmd.env("WFC_HOOK", which)
            .env("WFC_NODE", context.str(context.node.id))
            .env("WFC_TOOL_NAME", context.str(context.node.id));
        for (k, v) in env {
            cmd.env(k, v);
        }
        let input = doc.to_string();
        let (failure, exit_code) =
            match run_child(cmd, input.as_bytes(), timeout, HOOK_OUTPUT_BYTES) {
                Err(e) => (Some(format!("could not start: {e}")), None),
                Ok(ran) if ran.status.is_some_and(|s| s.success()) => (None, Some(0)),
                Ok(ran) => {
                    let mut reason = ran.ending(timeout);
                    if let Some(line) = ran
                        .stderr
                        .lines()
                        .rev()
                        .map(str::trim)
                        .find(|l| !l.is_empty())
                    {
                        reason.push_str(": ");
                        reason.extend(line.chars().take(200));
                    }
                    (Some(reason), ran.status.and_then(|s| s.code()))
                }
            };
        HookRun {
            event: HandlerEvent {
                name: HOOK_EVENT.into(),
                data: json!({
                    "hook": which,
                    "node": context.str(context.node.id),
                    "exit_code": exit_code,
                    "failure": failure,
                }),
            },
            failure,
        }
    }
}

impl<R: ToolRunner> ToolRunner for HookedTools<R> {
    fn run(
        &mut self,
        context: &DecisionContext<'_>,
        command: &ShellCommand,
        timeout: Duration,
    ) -> Outcome {
        let pre = hook(context, "pre");
        let post = hook(context, "post");
        if pre.is_none() && post.is_none() {
            return self.inner.run(context, command, timeout);
        }
        let node = context.str(context.node.id);
        let vars: Map<String, Value> = command
            .vars
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        let mut doc = json!({
            "hook": "pre",
            "node": node,
            "tool": node,
            "command": command.script,
            "vars": vars,
        });
        let env = vec![("WFC_TOOL_COMMAND", command.script.clone())];
        let mut events = Vec::new();
        if let Some(script) = pre {
            let ran = self.run_hook(context, "pre", script, &doc, &env, timeout);
            events.push(ran.event);
            if let Some(reason) = ran.failure {
                // Seed 9.7: a non-zero pre-hook skips the call.
                let mut outcome = Outcome::failed(format!(
                    "tool_hooks.pre {reason}: the tool call was skipped"
                ));
                outcome.events = events;
                return outcome;
            }
        }
        let mut outcome = self.inner.run(context, command, timeout);
        if let Some(script) = post {
            let status = outcome.status.as_str();
            let exit_code = outcome
                .writes
                .iter()
                .find(|w| w.key == format!("{node}.exit_code"))
                .map_or(Value::Null, |w| w.value.clone());
            doc["hook"] = json!("post");
            doc["status"] = json!(status);
            doc["exit_code"] = exit_code.clone();
            doc["failure_reason"] = json!(outcome.failure_reason);
            let mut env = env;
            env.push(("WFC_TOOL_STATUS", status.to_string()));
            env.push((
                "WFC_TOOL_EXIT_CODE",
                exit_code.as_i64().map_or(String::new(), |c| c.to_string()),
            ));
            // A post-hook's failure is recorded (its event), not acted on.
            events.push(
                self.run_hook(context, "post", script, &doc, &env, timeout)
                    .event,
            );
        }
        events.append(&mut outcome.events);
        outcome.events = events;
        outcome
    }

    /// The hooks go with a copy of the inner runner to a parallel
    /// branch's thread, so hooked tools run concurrently as unhooked ones do.
    fn fork(&self) -> Option<Box<dyn ToolRunner + Send>> {
        Some(Box::new(HookedTools {
            inner: super::nested::Owned(self.inner.fork()?),
            working_dir: self.working_dir.clone(),
        }))
    }
}
