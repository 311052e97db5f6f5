//! `console`: a person at the terminal decides.
//!
//! At a `human` node the person picks one of the valid edges by number, by
//! accelerator key (`[A] Approve`, `A) Approve`, `A - Approve`, else the
//! label's first letter, as Attractor parses them; a key shared by two
//! choices is not offered) or by typing the label. At `step` and `tool`
//! nodes the person answers success, fail (with an optional reason) or
//! suspend, and on success types a value for each declared write (JSON,
//! or plain text for strings; an empty line skips the key, which fails
//! the node). `branch`, `parallel` and `join` nodes route by themselves and
//! terminals complete (an `exit` with declared writes asks for them).
//! End of input suspends the run (resumable), it never hangs or panics.
//! A `human` node with a `timeout` stops waiting when it passes and takes
//! the node's `default` (a node without one fails).

use std::io::{self, BufRead};
use std::time::{Duration, Instant};

use serde_json::Value;
use wf_ir::{Opcode, ValueType};

use crate::agent::{AgentError, Decision, DecisionAgent, DecisionContext, Outcome, Status, Write};
use crate::select::normalize_label;

/// Why a console answer stopped early.
enum Stop {
    /// End of input: suspend.
    Eof,
    /// The person asked to suspend.
    Suspend,
    /// The node's timeout passed.
    Timeout,
    /// Reading failed.
    Io(io::Error),
}

type Answer<T> = Result<T, Stop>;

/// Where the console's answers come from, a line at a time.
pub trait LineSource {
    /// The next line; `Ok(None)` at the end of input. With `wait`, gives up
    /// after that long with an error of kind [`io::ErrorKind::TimedOut`]
    /// (a source that cannot wait may ignore it).
    fn next_line(&mut self, wait: Option<Duration>) -> io::Result<Option<String>>;
}

/// Any reader, without timeouts (tests, embedders).
impl<R: BufRead> LineSource for R {
    fn next_line(&mut self, _wait: Option<Duration>) -> io::Result<Option<String>> {
        let mut line = String::new();
        Ok((self.read_line(&mut line)? > 0).then_some(line))
    }
}

/// Standard input, read through the process's shared `Stdin` one line at
/// a time (so the Attractor console interviewer takes turns on the same
/// lines). A wait uses `poll(2)`: lines a pipe delivered earlier may sit in
/// `Stdin`'s buffer where `poll` cannot see them, so timeouts are meant for
/// terminals (Unix only; elsewhere they are not enforced).
pub struct StdinLines;

impl LineSource for StdinLines {
    fn next_line(&mut self, wait: Option<Duration>) -> io::Result<Option<String>> {
        if let Some(wait) = wait
            && !crate::attractor::interviewer::stdin_ready(wait)
        {
            return Err(io::ErrorKind::TimedOut.into());
        }
        io::stdin().lock().next_line(None)
    }
}

/// The console agent, reading answers from `input` and writing questions
/// to `output` (standard input and error in `wfc run`; byte buffers in
/// tests).
pub struct ConsoleAgent<R, W> {
    input: R,
    output: W,
    /// When the current question must be answered by (a `human` node's
    /// timeout).
    deadline: Option<Instant>,
}

impl<R: LineSource, W: io::Write> ConsoleAgent<R, W> {
    /// An agent asking on `output` and reading answers from `input`.
    pub fn new(input: R, output: W) -> Self {
        ConsoleAgent {
            input,
            output,
            deadline: None,
        }
    }

    /// The input and output back, for tests.
    pub fn into_inner(self) -> (R, W) {
        (self.input, self.output)
    }

    /// Shows `prompt` and reads one trimmed line.
    fn ask(&mut self, prompt: &str) -> Answer<String> {
        // Output errors are ignored: a closed terminal shows up as EOF on
        // the input side, which suspends.
        let _ = write!(self.output, "{prompt}");
        let _ = self.output.flush();
        let wait = self
            .deadline
            .map(|d| d.saturating_duration_since(Instant::now()));
        match self.input.next_line(wait) {
            Ok(None) => {
                let _ = writeln!(self.output);
                Err(Stop::Eof)
            }
            Ok(Some(line)) => Ok(line.trim().to_string()),
            Err(e) if e.kind() == io::ErrorKind::TimedOut => {
                let _ = writeln!(self.output);
                Err(Stop::Timeout)
            }
            Err(e) => Err(Stop::Io(e)),
        }
    }

    fn say(&mut self, text: &str) {
        let _ = writeln!(self.output, "{text}");
    }

    fn header(&mut self, cx: &DecisionContext<'_>) {
        let id = cx.str(cx.node.id);
        let kind = serde_json::to_value(cx.node.op).unwrap_or(Value::Null);
        let kind = kind.as_str().unwrap_or("node");
        let label = cx.label().map(|l| format!(": {l}"));
        let attempt = if cx.attempt > 1 {
            format!(" (attempt {})", cx.attempt)
        } else {
            String::new()
        };
        self.say(&format!(
            "\n[step {}] {id} ({kind}){}{attempt}",
            // From 1, as `wfc run`'s progress lines number it.
            cx.step + 1,
            label.unwrap_or_default()
        ));
        if let Some(Value::String(prompt)) = cx.spec().get("prompt") {
            for line in prompt.lines() {
                self.say(&format!("  | {line}"));
            }
        }
    }

    /// A `human` node: pick an edge.
    fn choose(&mut self, cx: &DecisionContext<'_>) -> Answer<Decision> {
        let edges: Vec<_> = cx.valid_edge_list().collect();
        if edges.is_empty() {
            self.say("  No choice is available here (no edge's guard holds).");
            return Err(Stop::Suspend);
        }
        let labels: Vec<String> = edges
            .iter()
            .map(|e| match e.label {
                Some(l) => cx.str(l).to_string(),
                None => cx.str(cx.workflow.nodes[e.to.0 as usize].id).to_string(),
            })
            .collect();
        let keys: Vec<Option<char>> = labels.iter().map(|l| accelerator(l)).collect();
        let unique = |k: char| keys.iter().filter(|o| **o == Some(k)).count() == 1;
        for (i, (edge, label)) in edges.iter().zip(&labels).enumerate() {
            let target = cx.str(cx.workflow.nodes[edge.to.0 as usize].id);
            self.say(&format!("  {}. {label}  -> {target}", i + 1));
        }
        let offered: Vec<String> = keys
            .iter()
            .flatten()
            .filter(|k| unique(**k))
            .map(char::to_string)
            .collect();
        if let Some(ms) = cx.node.engine.timeout_ms {
            let then = match cx.default_edge() {
                Some(_) => format!(
                    "the default `{}` is taken",
                    cx.str(cx.node.engine.default_choice.expect("has an edge"))
                ),
                None => "the node fails".to_string(),
            };
            self.say(&format!(
                "  (answer within {}; then {then})",
                crate::tools::human_duration(Duration::from_millis(ms))
            ));
        }
        let prompt = if offered.is_empty() {
            format!("Choose 1-{} or `suspend`: ", edges.len())
        } else {
            format!(
                "Choose 1-{}, a key ({}) or `suspend`: ",
                edges.len(),
                offered.join(", ")
            )
        };
        loop {
            let answer = self.ask(&prompt)?;
            if answer.eq_ignore_ascii_case("suspend") {
                return Err(Stop::Suspend);
            }
            let by_number = answer
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=edges.len()).contains(n))
                .map(|n| n - 1);
            let by_key = || {
                let mut chars = answer.chars();
                let (Some(c), None) = (chars.next(), chars.next()) else {
                    return None;
                };
                let c = c.to_ascii_uppercase();
                keys.iter()
                    .position(|k| *k == Some(c))
                    .filter(|_| unique(c))
            };
            let by_label = || {
                let wanted = normalize_label(&answer);
                labels.iter().position(|l| normalize_label(l) == wanted)
            };
            if let Some(i) = by_number.or_else(by_key).or_else(by_label) {
                return Ok(Decision::Advance(Outcome {
                    edge: Some(cx.str(edges[i].id).to_string()),
                    preferred_label: edges[i].label.map(|l| cx.str(l).to_string()),
                    notes: Some(format!("chosen at the console: {}", labels[i])),
                    ..Outcome::success()
                }));
            }
            self.say(&format!("  `{answer}` is not one of the choices."));
        }
    }

    /// A freeform `human` node (`freeform = true`): a line of text, for
    /// its one declared key; `suspend` suspends.
    fn text(&mut self, cx: &DecisionContext<'_>) -> Answer<Decision> {
        let question = crate::question::question_id(cx.str(cx.node.id), cx.visit);
        let answer = self.ask("Your answer (free text, or `suspend`): ")?;
        if answer.eq_ignore_ascii_case("suspend") {
            return Err(Stop::Suspend);
        }
        crate::question::freeform_decision(cx, &question, Value::String(answer))
            .map_err(|e| Stop::Io(io::Error::other(e.message)))
    }

    /// A multi-select `human` node (`choices = multiple`): one or more of
    /// its `options`, comma-separated; `suspend` suspends.
    fn many(&mut self, cx: &DecisionContext<'_>) -> Answer<Decision> {
        let question = crate::question::question_id(cx.str(cx.node.id), cx.visit);
        let options = crate::question::listed_options(cx.node);
        for (i, o) in options.iter().enumerate() {
            self.say(&format!(
                "  {}. {}",
                i + 1,
                crate::attractor::interviewer::display_option(o)
            ));
        }
        loop {
            let answer = self.ask("Choose one or more (comma-separated) or `suspend`: ")?;
            if answer.eq_ignore_ascii_case("suspend") {
                return Err(Stop::Suspend);
            }
            if let Some(chosen) = crate::attractor::interviewer::find_many(&answer, &options) {
                let labels = chosen.into_iter().map(|o| Value::String(o.label)).collect();
                return crate::question::freeform_decision(cx, &question, Value::Array(labels))
                    .map_err(|e| Stop::Io(io::Error::other(e.message)));
            }
            self.say(&format!("  `{answer}` does not name the options."));
        }
    }

    /// A `step` or `tool` node, or a terminal: an outcome and writes.
    fn answer(&mut self, cx: &DecisionContext<'_>) -> Answer<Decision> {
        let terminal = cx.is_terminal();
        let prompt = if terminal {
            "Outcome? [Enter/1] complete  [2] fail  [3] suspend: "
        } else {
            "Outcome? [Enter/1] success  [2] fail  [3] suspend: "
        };
        loop {
            let answer = self.ask(prompt)?.to_ascii_lowercase();
            match answer.as_str() {
                "" | "1" | "s" | "success" | "ok" | "y" | "yes" | "complete" => {
                    let writes = self.writes(cx)?;
                    return Ok(if terminal {
                        Decision::Complete { writes }
                    } else {
                        Decision::Advance(Outcome {
                            writes,
                            ..Outcome::success()
                        })
                    });
                }
                "2" | "f" | "fail" => {
                    let reason = self.ask("Reason (optional): ")?;
                    return Ok(Decision::Advance(Outcome {
                        status: Status::Fail,
                        failure_reason: Some(if reason.is_empty() {
                            "failed at the console".into()
                        } else {
                            reason
                        }),
                        ..Outcome::success()
                    }));
                }
                "3" | "suspend" => return Err(Stop::Suspend),
                _ => self.say(&format!("  `{answer}` is not an answer here.")),
            }
        }
    }

    /// One value per declared write; an empty line skips the key.
    fn writes(&mut self, cx: &DecisionContext<'_>) -> Answer<Vec<Write>> {
        let mut writes = Vec::new();
        for declared in &cx.node.writes {
            let key = cx.str(declared.key);
            let ty = declared.ty;
            let ty_name = serde_json::to_value(ty).unwrap_or(Value::Null);
            let prompt = format!("  {key} ({}) = ", ty_name.as_str().unwrap_or("any"));
            loop {
                let text = self.ask(&prompt)?;
                if text.is_empty() {
                    break;
                }
                match parse_value(&text, ty) {
                    Some(value) => {
                        writes.push(Write {
                            key: key.to_string(),
                            value,
                        });
                        break;
                    }
                    None => self.say(&format!(
                        "  `{text}` is not a {} value (write JSON, e.g. 3, true, [1], {{\"k\": 1}})",
                        ty_name.as_str().unwrap_or("any")
                    )),
                }
            }
        }
        Ok(writes)
    }
}

impl<R: LineSource, W: io::Write> DecisionAgent for ConsoleAgent<R, W> {
    fn decide(&mut self, cx: &DecisionContext<'_>) -> Result<Decision, AgentError> {
        self.header(cx);
        // Only a `human` node's own timeout is a deadline for a person: the
        // engine refuses late answers elsewhere.
        let limit = (cx.node.op == Opcode::Human)
            .then_some(cx.node.engine.timeout_ms)
            .flatten()
            .map(Duration::from_millis);
        self.deadline = limit.map(|l| Instant::now() + l);
        let decided = match cx.node.op {
            Opcode::Human if crate::question::is_freeform(cx.node) => self.text(cx),
            Opcode::Human if crate::question::is_multiple(cx.node) => self.many(cx),
            Opcode::Human => self.choose(cx),
            Opcode::Branch | Opcode::Parallel | Opcode::Join => {
                Ok(Decision::Advance(Outcome::success()))
            }
            // An exit that declares writes asks for them: a completion
            // without a declared write fails the node.
            Opcode::Exit if cx.node.writes.is_empty() => {
                Ok(Decision::Complete { writes: Vec::new() })
            }
            Opcode::Step | Opcode::Tool | Opcode::Call | Opcode::Exit => self.answer(cx),
        };
        match decided {
            Ok(decision) => Ok(decision),
            Err(Stop::Eof) => Ok(Decision::Suspend {
                reason: "no answer at the console (end of input)".into(),
            }),
            Err(Stop::Suspend) => Ok(Decision::Suspend {
                reason: "suspended at the console".into(),
            }),
            Err(Stop::Timeout) => {
                let limit = limit.unwrap_or_default();
                let waited = crate::tools::human_duration(limit);
                Ok(match cx.timeout_default(limit) {
                    Some(decision) => {
                        let chosen = cx.node.engine.default_choice.map(|c| cx.str(c));
                        self.say(&format!(
                            "  No answer within {waited}: taking the default `{}`.",
                            chosen.unwrap_or_default()
                        ));
                        decision
                    }
                    None => {
                        self.say(&format!("  No answer within {waited}."));
                        Decision::Advance(Outcome {
                            status: Status::Fail,
                            failure_reason: Some(format!(
                                "timed out: no answer at the console within {waited}"
                            )),
                            ..Outcome::success()
                        })
                    }
                })
            }
            Err(Stop::Io(e)) => Err(AgentError {
                message: format!("could not read the console: {e}"),
            }),
        }
    }
}

/// The accelerator key of a choice label, upper-cased: `[K] …`, `K) …`,
/// `K - …` (a letter or digit followed by whitespace, as
/// [`normalize_label`] strips them), else the first letter or digit.
pub fn accelerator(label: &str) -> Option<char> {
    let label = label.trim();
    let c: Vec<char> = label.chars().take(5).collect();
    let explicit = match c.as_slice() {
        ['[', k, ']', w, ..] | [k, ')', w, ..] | [k, ' ', '-', w, ..]
            if k.is_alphanumeric() && w.is_whitespace() =>
        {
            Some(*k)
        }
        _ => None,
    };
    explicit
        .or_else(|| label.chars().find(|c| c.is_alphanumeric()))
        .map(|c| c.to_ascii_uppercase())
}

/// A typed answer: JSON when it parses and fits the type; for `string` and
/// `any`, plain text otherwise.
fn parse_value(text: &str, ty: ValueType) -> Option<Value> {
    let json = serde_json::from_str::<Value>(text).ok();
    let fits = |v: &Value| match ty {
        ValueType::String => v.is_string(),
        ValueType::Int => v.is_i64() || v.is_u64(),
        ValueType::Float => v.is_f64(),
        ValueType::Number => v.is_number(),
        ValueType::Bool => v.is_boolean(),
        ValueType::List => v.is_array(),
        ValueType::Map => v.is_object(),
        ValueType::Any => true,
    };
    match json {
        Some(v) if fits(&v) => Some(v),
        // A float declared, an integer typed: `3` means 3.0.
        Some(Value::Number(n)) if ty == ValueType::Float => n.as_f64().map(Value::from),
        _ if matches!(ty, ValueType::String | ValueType::Any) => Some(Value::String(text.into())),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
