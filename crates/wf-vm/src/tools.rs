//! Running the commands of `tool` nodes: [`ProcessToolRunner`].
//!
//! A tool node's command runs through `sh -c` in the runner's working
//! directory, in a process group of its own, with stdin closed, and with
//! the values it interpolates in environment variables (`WFC_VALUE_1`, …;
//! see [`crate::template::shell_command`]). Its outcome:
//!
//! | what happened | status | `failure_reason` |
//! |---|---|---|
//! | exit status 0 | `success` | — |
//! | exit status N ≠ 0 | `fail` | `command exited with status N` (+ last stderr line) |
//! | killed by a signal | `fail` | `command was killed by signal S` |
//! | still running at the timeout | `fail` | `command timed out after …` |
//! | could not be started | `fail` | `could not start the command: …` |
//!
//! In every case except a failed start the outcome carries three writes,
//! keyed by the node's id (see `docs/agents.md`, "Tool nodes"):
//! `<node>.stdout` and `<node>.stderr` (strings, each bounded by
//! [`ProcessToolRunner::max_output_bytes`] and ending in a marker when cut)
//! and `<node>.exit_code` (an integer, or `null` when the command was
//! killed). When the command ends (or times out), every process left in its
//! process group is killed, so a tool cannot leave work running behind the
//! engine's back, and a stream still held open by an escaped process is
//! abandoned after a short grace period instead of hanging the run.

mod child;
mod process;
mod simulate;

pub use child::{ChildRun, run_child};
pub use process::end_children_on_termination_signals;
#[cfg(unix)]
pub(crate) use process::install_graceful;
pub(crate) use process::{
    Capture, GroupRecord, captured_text, deadline_after, kill_group, own_process_group,
    spawn_recorded, wait_until,
};
pub use simulate::SimulatedToolRunner;

use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::agent::{DecisionContext, Outcome, ToolRunner, Write};
use crate::template::ShellCommand;

/// Runs tool commands as child processes (`--allow-tools`).
#[derive(Debug, Clone)]
pub struct ProcessToolRunner {
    /// The directory commands run in.
    pub working_dir: PathBuf,
    /// The most bytes of stdout, and separately of stderr, kept per run.
    pub max_output_bytes: usize,
    /// How long to keep reading output after the command ended, for
    /// streams a leftover process holds open.
    pub drain_grace: Duration,
}

impl ProcessToolRunner {
    /// The default bound on each captured stream: 64 KiB.
    pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 64 * 1024;

    /// A runner for commands in `working_dir`, with the default bounds.
    pub fn new(working_dir: impl Into<PathBuf>) -> Self {
        ProcessToolRunner {
            working_dir: working_dir.into(),
            max_output_bytes: Self::DEFAULT_MAX_OUTPUT_BYTES,
            drain_grace: Duration::from_millis(500),
        }
    }

    /// The same runner keeping at most `bytes` of each stream.
    pub fn with_max_output_bytes(mut self, bytes: usize) -> Self {
        self.max_output_bytes = bytes;
        self
    }
}

impl ToolRunner for ProcessToolRunner {
    fn run(
        &mut self,
        context: &DecisionContext<'_>,
        command: &ShellCommand,
        timeout: Duration,
    ) -> Outcome {
        let node = context.str(context.node.id);
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(&command.script)
            .current_dir(&self.working_dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env("WFC_NODE", node)
            .env("WFC_WORKFLOW", context.str(context.workflow.name))
            .env("WFC_STEP", context.step.to_string())
            .env("WFC_ATTEMPT", context.attempt.to_string());
        for (key, value) in spec_env(context) {
            cmd.env(key, value);
        }
        // Last, so that no `env` entry can replace an interpolated value.
        for (name, value) in &command.vars {
            cmd.env(name, value);
        }
        own_process_group(&mut cmd);
        let (mut child, record) = match spawn_recorded(&mut cmd) {
            Ok(started) => started,
            Err(e) => return failed(Vec::new(), self.start_failure(command, &e)),
        };
        let limit = self.max_output_bytes;
        let stdout = child.stdout.take().map(|s| Capture::start(s, limit));
        let stderr = child.stderr.take().map(|s| Capture::start(s, limit));

        let waited = wait_until(&mut child, deadline_after(timeout));
        // Whatever happened, nothing of the command's group may outlive it.
        kill_group(&mut child);
        record.forget();
        let status = match waited {
            Ok(Some(status)) => Ok(status),
            Ok(None) => Err(format!(
                "command timed out after {} and was killed",
                human_duration(timeout)
            )),
            Err(e) => Err(format!("could not wait for the command: {e}")),
        };
        // Reap the killed child so it does not linger as a zombie.
        let _ = child.wait();

        let grace = Instant::now() + self.drain_grace;
        let out = stdout.map(|c| c.finish(grace)).unwrap_or_default();
        let err = stderr.map(|c| c.finish(grace)).unwrap_or_default();
        let exit_code = status.as_ref().ok().and_then(ExitStatus::code);
        let stderr_text = captured_text(&err);
        let writes = vec![
            Write {
                key: format!("{node}.stdout"),
                value: Value::String(captured_text(&out)),
            },
            Write {
                key: format!("{node}.stderr"),
                value: Value::String(stderr_text.clone()),
            },
            Write {
                key: format!("{node}.exit_code"),
                value: exit_code.map_or(Value::Null, Value::from),
            },
        ];
        match status {
            Ok(status) if status.success() => Outcome {
                writes,
                ..Outcome::success()
            },
            Ok(status) => {
                let mut reason = match (status.code(), signal_of(status)) {
                    (Some(code), _) => format!("command exited with status {code}"),
                    (None, Some(signal)) => format!("command was killed by signal {signal}"),
                    (None, None) => format!("command ended abnormally ({status})"),
                };
                if let Some(line) = last_line(&stderr_text) {
                    reason.push_str(": ");
                    reason.push_str(line);
                }
                failed(writes, reason)
            }
            Err(reason) => failed(writes, reason),
        }
    }

    fn fork(&self) -> Option<Box<dyn ToolRunner + Send>> {
        Some(Box::new(self.clone()))
    }
}

impl ProcessToolRunner {
    /// Why the command did not start, saying so when its values were too
    /// large for the system (E2BIG: each is one environment variable).
    fn start_failure(&self, command: &ShellCommand, e: &std::io::Error) -> String {
        let mut reason = format!(
            "could not start the command in {}: {e}",
            self.working_dir.display()
        );
        if e.raw_os_error() == Some(E2BIG) && !command.vars.is_empty() {
            let bytes: usize = command.vars.iter().map(|(_, v)| v.len()).sum();
            reason.push_str(&format!(
                " (its interpolated values, {bytes} bytes in all, are too large to pass to a \
                 command: write large data to a file and interpolate the file's path)"
            ));
        }
        reason
    }
}

/// The `errno` of an argument list or environment too large for `exec`
/// (7 on Linux and macOS).
const E2BIG: i32 = 7;

/// A `fail` outcome.
fn failed(writes: Vec<Write>, reason: String) -> Outcome {
    Outcome {
        writes,
        ..Outcome::failed(reason)
    }
}

/// The node spec's `env` map (`env = { NAME: "value" }`): strings as they
/// are, other values as JSON.
fn spec_env(context: &DecisionContext<'_>) -> Vec<(String, String)> {
    let Some(Value::Object(env)) = context.node.spec.get("env") else {
        return Vec::new();
    };
    env.iter()
        .map(|(k, v)| {
            let v = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (k.clone(), v)
        })
        .collect()
}

/// The signal that killed the process, when one did.
fn signal_of(status: ExitStatus) -> Option<i32> {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        status.signal()
    }
    #[cfg(not(unix))]
    {
        let _ = status;
        None
    }
}

/// The last non-empty line of `text` that is not a wfc marker, cut to 200
/// characters, for failure reasons.
fn last_line(text: &str) -> Option<&str> {
    let line = text
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("[wfc: "))?;
    Some(match line.char_indices().nth(200) {
        Some((i, _)) => &line[..i],
        None => line,
    })
}

/// `1.5s`, `250ms`, `2m 5s`, for messages.
pub(crate) fn human_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        if ms.is_multiple_of(1000) {
            format!("{}s", ms / 1000)
        } else {
            format!("{:.1}s", d.as_secs_f64())
        }
    } else {
        let s = d.as_secs();
        match s % 60 {
            0 => format!("{}m", s / 60),
            r => format!("{}m {r}s", s / 60),
        }
    }
}

#[cfg(test)]
pub(crate) mod fixture;
#[cfg(test)]
mod tests;
