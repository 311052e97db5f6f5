//! `exec:COMMAND`: an external program decides, speaking the JSON-lines
//! protocol of `docs/agents.md` ("wfc-agent", version 1).
//!
//! The program is started once per run (at the first decision) through
//! `sh -c`, in a process group of its own, with its stderr passed through.
//! Each decision writes one context line to its stdin and reads one
//! decision line from its stdout. The answer is awaited on a channel fed by
//! a reader thread, with a timeout, so an agent that crashes, answers
//! nonsense or says nothing yields an [`AgentError`], never a hang; after
//! an error the process is killed and the next decision starts a fresh one.

use std::io::{BufRead, BufReader, Read, Write as _};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::agent::{AgentError, Decision, DecisionAgent, DecisionContext};
use crate::tools::{
    GroupRecord, deadline_after, human_duration, kill_group, own_process_group, wait_until,
};

/// The protocol name sent in every context line.
pub const PROTOCOL: &str = "wfc-agent";
/// The protocol version sent in every context line.
pub const PROTOCOL_VERSION: u32 = 1;

/// The longest answer line accepted, in bytes.
const MAX_ANSWER_BYTES: usize = 16 * 1024 * 1024;

/// An agent that is an external program (`--agent exec:COMMAND`).
pub struct ExecAgent {
    command: String,
    working_dir: Option<PathBuf>,
    default_timeout: Duration,
    process: Option<Running>,
}

/// The running agent process.
struct Running {
    child: Child,
    /// Its process group, killed if wfc is ended by a signal.
    group: GroupRecord,
    /// Lines for the writer thread; dropping it closes the agent's stdin.
    to_agent: Option<Sender<Vec<u8>>>,
    from_agent: Receiver<FromAgent>,
}

/// What the reader thread saw on the agent's stdout.
enum FromAgent {
    Line(String),
    TooLong,
    Eof,
    Failed(std::io::Error),
}

impl ExecAgent {
    /// The default time an agent has to answer, when neither the node
    /// (`timeout`) nor its workflow (`default_timeout`) sets one: 120 s,
    /// the audit seed's default for LLM calls.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

    /// An agent running `command` (through `sh -c`) in the current
    /// directory.
    pub fn new(command: impl Into<String>) -> Self {
        ExecAgent {
            command: command.into(),
            working_dir: None,
            default_timeout: Self::DEFAULT_TIMEOUT,
            process: None,
        }
    }

    /// Runs the program in `dir` instead of the current directory.
    pub fn in_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.working_dir = Some(dir.into());
        self
    }

    /// The time to answer when neither the node nor the workflow sets one.
    pub fn with_default_timeout(mut self, timeout: Duration) -> Self {
        self.default_timeout = timeout;
        self
    }

    fn start(&mut self) -> Result<&mut Running, AgentError> {
        if self.process.is_none() {
            self.process = Some(self.spawn()?);
        }
        Ok(self.process.as_mut().expect("just started"))
    }

    fn spawn(&self) -> Result<Running, AgentError> {
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(&self.command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        if let Some(dir) = &self.working_dir {
            cmd.current_dir(dir);
        }
        own_process_group(&mut cmd);
        let mut child = cmd.spawn().map_err(|e| AgentError {
            message: format!("could not start the agent `{}`: {e}", self.command),
        })?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        // A writer thread, so a context larger than the pipe buffer sent to
        // an agent that never reads cannot block the engine: the answer's
        // timeout covers that case too.
        let (to_agent, lines) = mpsc::channel::<Vec<u8>>();
        thread::spawn(move || {
            let mut stdin = stdin;
            for line in lines {
                if stdin.write_all(&line).and_then(|()| stdin.flush()).is_err() {
                    break;
                }
            }
        });
        let (tx, from_agent) = mpsc::channel();
        thread::spawn(move || read_lines(stdout, tx));
        Ok(Running {
            group: GroupRecord::of(&child),
            child,
            to_agent: Some(to_agent),
            from_agent,
        })
    }

    /// Kills the process after an error, and says how it ended.
    fn discard(&mut self) -> String {
        let Some(mut running) = self.process.take() else {
            return String::new();
        };
        // It may be exiting on its own (crash, EOF): give it a moment so
        // the message can show its real exit status.
        let status = wait_until(
            &mut running.child,
            Instant::now() + Duration::from_millis(200),
        )
        .ok()
        .flatten();
        kill_group(&mut running.child);
        running.group.forget();
        let _ = running.child.wait();
        match status {
            Some(s) => format!(" ({})", exit_text(s)),
            None => String::new(),
        }
    }

    fn exchange(&mut self, context: &DecisionContext<'_>) -> Result<Decision, AgentError> {
        let mut line = serde_json::to_vec(&context_json(context)).map_err(|e| AgentError {
            message: format!("could not encode the decision context: {e}"),
        })?;
        line.push(b'\n');
        let timeout = node_timeout(context).unwrap_or(self.default_timeout);
        let command = self.command.clone();
        let running = self.start()?;
        // A line that arrived between decisions answers no question: the
        // agent is out of step, and every later answer would be misread.
        while let Ok(FromAgent::Line(text)) = running.from_agent.try_recv() {
            if !text.trim().is_empty() {
                let shown: String = text.trim().chars().take(200).collect();
                return Err(AgentError {
                    message: format!(
                        "the agent `{command}` wrote a line before it was asked: {shown} \
                         (answer each context with exactly one line)"
                    ),
                });
            }
        }
        if let Some(tx) = &running.to_agent {
            // A send error means the writer thread ended: the agent closed
            // its stdin or exited; the reader reports which.
            let _ = tx.send(line);
        }
        let deadline = deadline_after(timeout);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let fail = |what: String| Err(format!("the agent `{command}` {what}"));
            let got = match running.from_agent.recv_timeout(left) {
                Ok(FromAgent::Line(text)) if text.trim().is_empty() => continue,
                Ok(FromAgent::Line(text)) => parse_answer(&text).or_else(fail),
                Ok(FromAgent::TooLong) => fail(format!(
                    "answered with a line longer than {} MiB",
                    MAX_ANSWER_BYTES >> 20
                )),
                Ok(FromAgent::Eof) | Err(RecvTimeoutError::Disconnected) => {
                    fail("closed its output without answering".to_string())
                }
                Ok(FromAgent::Failed(e)) => fail(format!("could not be read: {e}")),
                Err(RecvTimeoutError::Timeout) => {
                    fail(format!("did not answer within {}", human_duration(timeout)))
                }
            };
            return got.map_err(|message| AgentError { message });
        }
    }
}

impl DecisionAgent for ExecAgent {
    /// The engine's message names the node and workflow; this one says
    /// what the agent did wrong, and how its process ended when it did.
    fn decide(&mut self, context: &DecisionContext<'_>) -> Result<Decision, AgentError> {
        self.exchange(context).map_err(|mut e| {
            e.message.push_str(&self.discard());
            e
        })
    }
}

impl Drop for ExecAgent {
    /// Closes the agent's stdin so it can exit on its own, then makes sure
    /// nothing of it outlives the run.
    fn drop(&mut self) {
        if let Some(mut running) = self.process.take() {
            running.to_agent = None;
            let _ = wait_until(&mut running.child, Instant::now() + Duration::from_secs(1));
            kill_group(&mut running.child);
            running.group.forget();
            let _ = running.child.wait();
        }
    }
}

/// The reader thread: one message per line, bounded in length.
fn read_lines(stdout: impl Read, tx: Sender<FromAgent>) {
    let mut reader = BufReader::new(stdout);
    loop {
        let mut buf = Vec::new();
        let read = (&mut reader)
            .take(MAX_ANSWER_BYTES as u64 + 1)
            .read_until(b'\n', &mut buf);
        let message = match read {
            Ok(0) => FromAgent::Eof,
            Ok(_) if buf.len() > MAX_ANSWER_BYTES => FromAgent::TooLong,
            Ok(_) => FromAgent::Line(String::from_utf8_lossy(&buf).into_owned()),
            Err(e) => FromAgent::Failed(e),
        };
        let last = !matches!(message, FromAgent::Line(_));
        if tx.send(message).is_err() || last {
            return;
        }
    }
}

/// Decodes one answer line.
fn parse_answer(text: &str) -> Result<Decision, String> {
    serde_json::from_str(text.trim()).map_err(|e| {
        let shown: String = text.trim().chars().take(200).collect();
        format!("answered with something that is not a decision ({e}); the line was: {shown}")
    })
}

/// The node's own timeout, else its workflow's default.
fn node_timeout(context: &DecisionContext<'_>) -> Option<Duration> {
    context
        .node
        .engine
        .timeout_ms
        .or(context.workflow.limits.default_timeout_ms)
        .map(Duration::from_millis)
}

fn exit_text(status: std::process::ExitStatus) -> String {
    match status.code() {
        Some(code) => format!("it exited with status {code}"),
        None => format!("it ended: {status}"),
    }
}

/// The context line of protocol version 1 (documented in `docs/agents.md`).
pub fn context_json(cx: &DecisionContext<'_>) -> Value {
    let node = cx.node;
    let name = |id| Value::String(cx.str(id).to_string());
    let edges: Vec<Value> = cx
        .valid_edge_list()
        .map(|e| {
            json!({
                "id": cx.str(e.id),
                "label": e.label.map(name),
                "target": cx.str(cx.workflow.nodes[e.to.0 as usize].id),
            })
        })
        .collect();
    let mut blackboard = Map::new();
    for key in cx.blackboard.keys() {
        if let Some(value) = cx.blackboard.get(key) {
            blackboard.insert(key.to_string(), value.clone());
        }
    }
    let reads: Vec<Value> = node
        .reads
        .iter()
        .map(|r| json!({"key": cx.str(r.key), "optional": r.optional}))
        .collect();
    let writes: Vec<Value> = node
        .writes
        .iter()
        .map(|w| json!({"key": cx.str(w.key), "type": w.ty}))
        .collect();
    json!({
        "protocol": PROTOCOL,
        "version": PROTOCOL_VERSION,
        "workflow": cx.str(cx.workflow.name),
        "node": {
            "id": cx.str(node.id),
            "kind": node.op,
            "label": cx.label(),
            "spec": cx.spec(),
            "reads": reads,
            "writes": writes,
            "terminal": cx.is_terminal(),
        },
        "edges": edges,
        "blackboard": blackboard,
        "depth": cx.depth,
        "attempt": cx.attempt,
        "step": cx.step,
    })
}

#[cfg(test)]
mod tests;
