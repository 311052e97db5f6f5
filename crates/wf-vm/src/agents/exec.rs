//! `exec:COMMAND`: an external program decides, speaking the JSON-lines
//! protocol of `docs/agents.md` ("wfc-agent", version 2).
//!
//! The program is started once per run (at the first decision) through
//! `sh -c`, in a process group of its own, with its stderr passed through.
//! A hello exchange first agrees on the protocol version. Then each
//! decision writes one request line (with an `id`) to its stdin and reads
//! one answer line, which must echo that `id`, from its stdout: a stray or
//! duplicated line can never be taken for the answer to a later request.
//! The answer is awaited on a channel fed by a reader thread, with a
//! timeout, so an agent that crashes, answers nonsense or says nothing
//! yields an [`AgentError`], never a hang; after an error the process is
//! killed and the next decision starts a fresh one.

use std::io::{BufRead, BufReader, Read, Write as _};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::agent::{AgentError, Decision, DecisionAgent, DecisionContext};
use crate::tools::{
    GroupRecord, deadline_after, human_duration, kill_group, own_process_group, spawn_recorded,
    wait_until,
};

/// The protocol name sent in the hello and in every request.
pub const PROTOCOL: &str = "wfc-agent";
/// The protocol version this wfc speaks (sent in every request).
pub const PROTOCOL_VERSION: u32 = 2;
/// Every version this wfc can speak, offered in the hello.
pub const PROTOCOL_VERSIONS: &[u32] = &[PROTOCOL_VERSION];

/// The longest answer line accepted, in bytes.
const MAX_ANSWER_BYTES: usize = 16 * 1024 * 1024;

/// An agent that is an external program (`--agent exec:COMMAND`).
pub struct ExecAgent {
    command: String,
    working_dir: Option<PathBuf>,
    default_timeout: Duration,
    process: Option<Running>,
    /// The id of the last request sent (ids count up from 1 per agent,
    /// across restarts of its process).
    last_id: u64,
}

/// The running agent process.
struct Running {
    child: Child,
    /// Its process group, killed if wfc is ended by a signal.
    group: GroupRecord,
    /// Lines for the writer thread; dropping it closes the agent's stdin.
    to_agent: Option<Sender<Vec<u8>>>,
    from_agent: Receiver<FromAgent>,
    /// Whether the hello exchange is done.
    greeted: bool,
    /// Requests given up at their timeout (a `human` node's default was
    /// taken): a late answer to one of them is dropped, not an error.
    abandoned: Vec<u64>,
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
            last_id: 0,
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
        let (mut child, group) = spawn_recorded(&mut cmd).map_err(|e| AgentError {
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
            group,
            child,
            to_agent: Some(to_agent),
            from_agent,
            greeted: false,
            abandoned: Vec::new(),
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
        self.last_id += 1;
        let id = self.last_id;
        let line = request_line(id, context)?;
        let timeout = node_timeout(context).unwrap_or(self.default_timeout);
        let command = self.command.clone();
        let fail = |what: String| AgentError {
            message: format!("the agent `{command}` {what}"),
        };
        let deadline = deadline_after(timeout);
        let running = self.start()?;
        if !running.greeted {
            hello(running, deadline, timeout).map_err(fail)?;
            running.greeted = true;
        }
        // A line that arrived between requests answers none of them (a
        // late answer to an abandoned request aside): the agent is out of
        // step, and going on could apply an answer to the wrong node.
        while let Ok(message) = running.from_agent.try_recv() {
            match message {
                FromAgent::Line(text) => {
                    if !text.trim().is_empty() && !running.is_late_answer(&text) {
                        return Err(fail(format!(
                            "wrote a line nobody asked for, before request {id}: {} \
                             (answer each request with exactly one line)",
                            shown(&text)
                        )));
                    }
                }
                other => return Err(fail(other.ended())),
            }
        }
        if let Some(tx) = &running.to_agent {
            // A send error means the writer thread ended: the agent closed
            // its stdin or exited; the reader reports which.
            let _ = tx.send(line);
        }
        loop {
            let text = match running.next_line(deadline) {
                Ok(text) => text,
                Err(Some(what)) => return Err(fail(what)),
                // Nobody answered in time: a `human` node takes its default
                // and the agent may still answer later (that line is then
                // dropped); anywhere else, an error.
                Err(None) => match context.timeout_default(timeout) {
                    Some(decision) => {
                        running.abandoned.push(id);
                        return Ok(decision);
                    }
                    None => {
                        return Err(fail(format!(
                            "did not answer within {}",
                            human_duration(timeout)
                        )));
                    }
                },
            };
            let value: Value = serde_json::from_str(text.trim())
                .map_err(|e| fail(not_a_decision(&e.to_string(), &text)))?;
            match value.get("id") {
                Some(got) if *got == json!(id) => {}
                Some(got) if got.as_u64().is_some_and(|g| running.abandoned.contains(&g)) => {
                    continue;
                }
                Some(got) => {
                    return Err(fail(format!(
                        "answered request {id} with the id {got}, which is not that request's \
                         (answer each request once, echoing its `id`); the line was: {}",
                        shown(&text)
                    )));
                }
                None => {
                    return Err(fail(format!(
                        "answered request {id} without its `id` (protocol version \
                         {PROTOCOL_VERSION}: echo the request's `id` in the answer); the line was: {}",
                        shown(&text)
                    )));
                }
            }
            return serde_json::from_value(value)
                .map_err(|e| fail(not_a_decision(&e.to_string(), &text)));
        }
    }
}

impl Running {
    /// The next non-blank line before `deadline`: `Err(None)` at the
    /// deadline, `Err(Some(what))` when the agent ended or misbehaved.
    fn next_line(&self, deadline: Instant) -> Result<String, Option<String>> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.from_agent.recv_timeout(left) {
                Ok(FromAgent::Line(text)) if text.trim().is_empty() => continue,
                Ok(FromAgent::Line(text)) => return Ok(text),
                Ok(other) => return Err(Some(other.ended())),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(Some(FromAgent::Eof.ended()));
                }
                Err(RecvTimeoutError::Timeout) => return Err(None),
            }
        }
    }

    /// Whether `text` is a late answer to a request given up on.
    fn is_late_answer(&self, text: &str) -> bool {
        serde_json::from_str::<Value>(text.trim())
            .ok()
            .and_then(|v| v.get("id").and_then(Value::as_u64))
            .is_some_and(|id| self.abandoned.contains(&id))
    }
}

impl FromAgent {
    /// What a message other than a line says about the agent.
    fn ended(&self) -> String {
        match self {
            FromAgent::Line(text) => format!("wrote {}", shown(text)),
            FromAgent::TooLong => format!(
                "answered with a line longer than {} MiB",
                MAX_ANSWER_BYTES >> 20
            ),
            FromAgent::Eof => "closed its output without answering".to_string(),
            FromAgent::Failed(e) => format!("could not be read: {e}"),
        }
    }
}

/// The hello exchange (`docs/agents.md`): wfc offers the versions it
/// speaks, the agent answers with the one it chose.
fn hello(running: &mut Running, deadline: Instant, timeout: Duration) -> Result<(), String> {
    let offer = json!({"type": "hello", "protocol": PROTOCOL, "versions": PROTOCOL_VERSIONS});
    let mut line = offer.to_string().into_bytes();
    line.push(b'\n');
    if let Some(tx) = &running.to_agent {
        let _ = tx.send(line);
    }
    let speaks = format!("wfc speaks {PROTOCOL} version {PROTOCOL_VERSION}");
    let text = running.next_line(deadline).map_err(|what| match what {
        Some(what) => format!("{what} (at the hello; {speaks}: see docs/agents.md)"),
        None => format!(
            "did not answer the hello within {} ({speaks})",
            human_duration(timeout)
        ),
    })?;
    let value: Value = serde_json::from_str(text.trim()).unwrap_or(Value::Null);
    if value.get("type").and_then(Value::as_str) != Some("hello") {
        let v1 = serde_json::from_value::<Decision>(value).is_ok();
        return Err(format!(
            "answered the hello with {}; {speaks}, which begins with a hello \
             (see docs/agents.md); the line was: {}",
            if v1 {
                "a decision: it speaks version 1 of the protocol"
            } else {
                "something that is not a hello"
            },
            shown(&text)
        ));
    }
    match value.get("version").and_then(Value::as_u64) {
        Some(v) if PROTOCOL_VERSIONS.iter().any(|&s| u64::from(s) == v) => Ok(()),
        _ => Err(format!(
            "chose no version this wfc speaks in its hello ({speaks}); the line was: {}",
            shown(&text)
        )),
    }
}

/// One request line: the context, with its `id` first so that even a shell
/// script can cut it out.
fn request_line(id: u64, context: &DecisionContext<'_>) -> Result<Vec<u8>, AgentError> {
    let body = serde_json::to_vec(&context_json(context)).map_err(|e| AgentError {
        message: format!("could not encode the decision context: {e}"),
    })?;
    let mut line = format!("{{\"id\":{id},").into_bytes();
    line.extend_from_slice(&body[1..]);
    line.push(b'\n');
    Ok(line)
}

/// A line as shown in a message: trimmed, at most 200 characters.
fn shown(text: &str) -> String {
    text.trim().chars().take(200).collect()
}

fn not_a_decision(error: &str, text: &str) -> String {
    format!(
        "answered with something that is not a decision ({error}); the line was: {}",
        shown(text)
    )
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

/// The request of protocol version 2 without its `id` (documented in
/// `docs/agents.md`).
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
        "type": "decide",
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
