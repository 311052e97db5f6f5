//! What `wfc run` shows: progress lines while it runs, and the summary.

use std::io::{self, Write};

use serde_json::{Map, Value};
use wf_vm::{Event, EventSink, Report, RunStatus};

/// Sends each event to every sink in turn (`--events` and progress lines).
pub struct Tee<'a>(pub Vec<Box<dyn EventSink + 'a>>);

impl EventSink for Tee<'_> {
    fn emit(&mut self, event: &Event<'_>) {
        for sink in &mut self.0 {
            sink.emit(event);
        }
    }

    fn emit_stamped(&mut self, event: &Event<'_>, stamp: &wf_vm::stamp::Stamp<'_>) {
        for sink in &mut self.0 {
            sink.emit_stamped(event, stamp);
        }
    }

    fn wants_json(&self) -> bool {
        self.0.iter().any(|s| s.wants_json())
    }

    /// The engine's text of the event goes to the sinks that write JSON.
    fn emit_json(&mut self, event: &Event<'_>, stamp: &wf_vm::stamp::Stamp<'_>, json: &[u8]) {
        for sink in &mut self.0 {
            if sink.wants_json() {
                sink.emit_json(event, stamp, json);
            } else {
                sink.emit_stamped(event, stamp);
            }
        }
    }

    fn failure(&self) -> Option<String> {
        self.0.iter().find_map(|s| s.failure())
    }
}

/// One readable line per node left (with the edge taken), per call and
/// return, per retry, at suspension and at an engine error, on standard
/// error.
pub struct Progress {
    /// A node's exit, printed once the edge it leaves by is known.
    pending: Option<String>,
}

impl Progress {
    /// A progress printer.
    pub fn new() -> Self {
        Progress { pending: None }
    }

    fn flush(&mut self, edge: Option<&str>) {
        if let Some(line) = self.pending.take() {
            let mut err = io::stderr().lock();
            let _ = match edge {
                Some(to) => writeln!(err, "{line} -> {to}"),
                None => writeln!(err, "{line}"),
            };
        }
    }

    fn line(&mut self, text: String) {
        self.flush(None);
        let _ = writeln!(io::stderr().lock(), "{text}");
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.flush(None);
    }
}

impl EventSink for Progress {
    fn emit(&mut self, event: &Event<'_>) {
        match *event {
            Event::NodeExit {
                step,
                workflow,
                node,
                status,
                ..
            } => {
                self.flush(None);
                self.pending = Some(format!(
                    "  [{:>4}] {workflow}/{node}: {}",
                    ordinal(step),
                    status.as_str()
                ));
            }
            Event::EdgeTraverse { to, .. } => self.flush(Some(to)),
            Event::NodeRetry {
                step,
                workflow,
                node,
                attempt,
                delay_ms,
                reason,
                ..
            } => self.line(format!(
                "  [{:>4}] {workflow}/{node}: retry (attempt {attempt} in {delay_ms}ms): {reason}",
                ordinal(step)
            )),
            Event::WorkflowPush {
                step,
                workflow,
                caller,
                node,
                depth,
            } => self.line(format!(
                "  [{:>4}] {caller}/{node}: call {workflow} (depth {depth})",
                ordinal(step)
            )),
            Event::WorkflowPop {
                step,
                workflow,
                caller,
                node,
                ..
            } => self.line(format!(
                "  [{:>4}] {caller}/{node}: {workflow} returned",
                ordinal(step)
            )),
            Event::EngineSuspend {
                step,
                workflow,
                node,
                reason,
            } => self.line(format!(
                "  [{:>4}] {workflow}/{node}: suspended: {reason}",
                ordinal(step)
            )),
            Event::EngineError {
                step,
                workflow,
                node,
                kind,
                reason,
            } => self.line(format!(
                "  [{:>4}] {workflow}/{node}: error[{}]: {reason}",
                ordinal(step),
                kind.code()
            )),
            _ => {}
        }
    }
}

/// A step as human output numbers it: from 1, as the summary counts steps
/// (the last of a run of `N steps` is step N, and `--fork --at N` forks
/// after it); events and log records keep the index from 0.
fn ordinal(step: u64) -> u64 {
    step + 1
}

/// The human summary of a finished (or suspended) run.
pub fn human_summary(workflow: &str, report: &Report) -> String {
    let mut out = String::new();
    let plural = if report.steps == 1 { "" } else { "s" };
    let took = format!("{} step{plural}, {}ms", report.steps, report.elapsed_ms);
    // Where it ended, `Workflow/node` when that is not the root workflow.
    let at = match &report.at {
        Some(p) if p.workflow == workflow => format!(" at {}", p.node),
        Some(p) => format!(" at {}/{}", p.workflow, p.node),
        None => String::new(),
    };
    let head = match &report.status {
        RunStatus::Completed => format!("completed {workflow}{at} ({took})"),
        RunStatus::Suspended { reason } => {
            format!("suspended {workflow}{at} ({took}): {}", one_line(reason))
        }
        RunStatus::Failed { reason } => {
            format!("failed {workflow}{at} ({took}): {}", one_line(reason))
        }
        other => format!("{} {workflow}{at} ({took})", other.name()),
    };
    out.push_str(&head);
    out.push('\n');
    if let (RunStatus::Failed { .. }, Some(kind)) = (&report.status, report.kind) {
        out.push_str(&format!(
            "kind: {} ({} {}; see `wfc explain {}`)\n",
            kind.as_str(),
            kind.code(),
            kind.name(),
            kind.code()
        ));
    }
    if !report.failures.is_empty() {
        out.push_str("failure trace:\n");
        let mut i = 0;
        while i < report.failures.len() {
            let f = &report.failures[i];
            // A failure repeated (retries of one node) is shown once.
            let same = report.failures[i..]
                .iter()
                .take_while(|g| {
                    (&g.workflow, &g.node, &g.reason) == (&f.workflow, &f.node, &f.reason)
                })
                .count();
            let steps = match same {
                1 => format!("step {}", ordinal(f.step)),
                n => format!(
                    "steps {}-{} ({n} times)",
                    ordinal(f.step),
                    ordinal(report.failures[i + n - 1].step)
                ),
            };
            out.push_str(&format!(
                "  {steps}: {}/{}: {}\n",
                f.workflow,
                f.node,
                one_line(&f.reason)
            ));
            i += same;
        }
    }
    if report.blackboard.is_empty() {
        out.push_str("blackboard: (empty)\n");
    } else {
        out.push_str("blackboard:\n");
        for (key, value) in &report.blackboard {
            out.push_str(&format!("  {key} = {}\n", short_json(value)));
        }
    }
    out
}

/// The most characters a summary line shows of a reason quoting a text of
/// several lines (a tool command), and of any other reason.
const MAX_QUOTING_CHARS: usize = 160;
const MAX_REASON_CHARS: usize = 1000;

/// A reason on one line: its lines joined with ` ⏎ `, cut with the length
/// said (a 30-line tool command quoted in a reason must not fill the
/// summary; `--format json` has the whole text).
pub fn one_line(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let max = if lines.len() > 1 {
        MAX_QUOTING_CHARS
    } else {
        MAX_REASON_CHARS
    };
    let joined = lines.join(" ⏎ ");
    match joined.char_indices().nth(max) {
        Some((i, _)) => format!(
            "{}… ({} line{}, {} bytes; --format json shows it all)",
            &joined[..i],
            lines.len(),
            if lines.len() == 1 { "" } else { "s" },
            text.len()
        ),
        None => joined,
    }
}

/// A value on one line, long ones cut (the JSON summary has them whole).
fn short_json(value: &Value) -> String {
    let text = value.to_string();
    const MAX: usize = 200;
    match text.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}… ({} bytes)", &text[..i], text.len()),
        None => text,
    }
}

/// The JSON summary: the engine's report plus the workflow and run
/// directory.
pub fn json_summary(workflow: &str, run_dir: Option<&str>, report: &Report) -> String {
    let mut doc = Map::new();
    doc.insert("workflow".into(), Value::from(workflow));
    if let Ok(Value::Object(fields)) = serde_json::to_value(report) {
        doc.extend(fields);
    }
    doc.insert("run_dir".into(), run_dir.map_or(Value::Null, Value::from));
    let mut text = serde_json::to_string_pretty(&Value::Object(doc)).unwrap_or_default();
    text.push('\n');
    text
}
