//! The `wait.human` gate (seed 4.6): the node's outgoing edges become the
//! choices of a multiple-choice question for an [`Interviewer`]; the
//! chosen edge is what the run follows.
//!
//! The outcome names the chosen edge three ways, so every step of edge
//! selection (seed 3.3) agrees: by edge id ([`Outcome::edge`], exact even
//! when two edges share a label), as `preferred_label` (the DoD, 11.6) and
//! as `suggested_next` (the pseudocode of 4.6). It writes
//! `human.gate.selected` (the choice's accelerator key) and
//! `human.gate.label` (its label).
//!
//! A gate with `mode="freeform"` asks for free text instead: the answer is
//! written to `human.gate.text` and the gate follows its first edge whose
//! condition holds. A question nobody is there to answer
//! ([`AnswerValue::Pending`]) suspends a durable run
//! (`EngineConfig::questions_wait`) and fails the gate otherwise.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::handler::{Handler, HandlerCx};
use super::interviewer::{
    Answer, AnswerValue, Interviewer, Question, QuestionOption, QuestionType, display_option,
    parse_accelerator_key,
};
use crate::agent::{AgentError, Decision, Outcome, Status, Write};
use crate::select::normalize_label;

/// One choice of a gate: an outgoing edge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// The edge's id (what [`Outcome::edge`] names).
    pub edge: String,
    /// The accelerator key.
    pub key: String,
    /// The edge's label, or its target's id when it has none.
    pub label: String,
    /// The target node's id.
    pub to: String,
}

impl Choice {
    /// The choice for an edge `id` to node `to` with an optional label.
    pub fn new(edge: &str, label: Option<&str>, to: &str) -> Self {
        let label = label.map(str::trim).filter(|l| !l.is_empty()).unwrap_or(to);
        Choice {
            edge: edge.to_owned(),
            key: parse_accelerator_key(label),
            label: label.to_owned(),
            to: to.to_owned(),
        }
    }
}

/// What a gate node says about itself.
#[derive(Debug, Clone, Default)]
pub struct Gate<'a> {
    /// The node's id.
    pub node: &'a str,
    /// The question text (the node's label); `Select an option:` without.
    pub text: Option<&'a str>,
    /// `human.default_choice`: the target id (or key, or label) chosen
    /// when the person does not answer in time.
    pub default_choice: Option<&'a str>,
    /// How long to wait (the node's `timeout`); `None` waits.
    pub timeout: Option<Duration>,
    /// The question's id, `node#visit` (`wf_vm::question`).
    pub id: Option<&'a str>,
    /// `mode="freeform"`: the gate asks for free text.
    pub freeform: bool,
    /// `mode="multiple"`: the options (its `options` attribute) of which
    /// the person picks one or more.
    pub multiple: Option<&'a [QuestionOption]>,
}

/// The choice `wanted` names: a target id, else a key, else a label.
fn find<'c>(choices: &'c [Choice], wanted: &str) -> Option<&'c Choice> {
    let w = wanted.trim();
    choices
        .iter()
        .find(|c| c.to == w)
        .or_else(|| choices.iter().find(|c| c.key.eq_ignore_ascii_case(w)))
        .or_else(|| {
            let n = normalize_label(w);
            choices.iter().find(|c| normalize_label(&c.label) == n)
        })
}

fn fail(status: Status, reason: String) -> Outcome {
    Outcome {
        status,
        failure_reason: Some(reason),
        ..Outcome::success()
    }
}

/// Asks the gate's question and turns the answer into the node's outcome:
///
/// - a chosen option → `success`, routed to its edge;
/// - a timeout → the `human.default_choice` choice when set (a default
///   that names no choice fails the node), else `retry` ("human gate
///   timeout, no default"), which the node's retries may ask again;
/// - a skipped question → `fail` ("human skipped interaction");
/// - an answer that names no choice → `fail`, naming the answer and the
///   choices. (The seed falls back to the first choice; a scripted answer
///   that fits nothing is a mistake better reported than guessed.)
/// - no outgoing edges → `fail` ("No outgoing edges for human gate").
pub fn run_gate(gate: &Gate<'_>, choices: &[Choice], interviewer: &mut dyn Interviewer) -> Outcome {
    if choices.is_empty() {
        return fail(Status::Fail, "No outgoing edges for human gate".into());
    }
    if let Some(options) = gate.multiple {
        return run_multiple(gate, options, &choices[0], interviewer);
    }
    let options: Vec<QuestionOption> = choices
        .iter()
        .map(|c| QuestionOption {
            key: c.key.clone(),
            label: c.label.clone(),
        })
        .collect();
    let default = gate
        .default_choice
        .and_then(|d| find(choices, d))
        .map(|c| Answer::choose(&options[choices.iter().position(|x| x == c).unwrap_or(0)]));
    let question = Question {
        text: gate
            .text
            .filter(|t| !t.trim().is_empty())
            .unwrap_or(if gate.freeform {
                "Your answer:"
            } else {
                "Select an option:"
            })
            .to_owned(),
        ty: if gate.freeform {
            QuestionType::Freeform
        } else {
            QuestionType::MultipleChoice
        },
        options: if gate.freeform { Vec::new() } else { options },
        default: default.clone().filter(|_| !gate.freeform),
        timeout: gate.timeout,
        stage: gate.node.to_owned(),
        id: gate.id.map(str::to_owned),
    };
    let answer = interviewer.ask(&question);
    if answer.value == AnswerValue::Pending {
        return fail(Status::Fail, no_answer(gate));
    }
    if gate.freeform
        && let (AnswerValue::Value(v), None) = (&answer.value, &answer.selected_option)
    {
        return freeform(&choices[0], answer.text.as_deref().unwrap_or(v));
    }
    let selected = match &answer.value {
        AnswerValue::Timeout => match (gate.default_choice, &default) {
            (Some(_), Some(d)) => d
                .selected_option
                .as_ref()
                .and_then(|o| find(choices, &o.label)),
            (Some(d), None) => {
                return fail(
                    Status::Fail,
                    format!(
                        "human gate timeout; human.default_choice `{d}` names none of the choices ({})",
                        list(choices)
                    ),
                );
            }
            (None, _) => return fail(Status::Retry, "human gate timeout, no default".into()),
        },
        AnswerValue::Skipped => return fail(Status::Fail, "human skipped interaction".into()),
        _ => answer
            .selected_option
            .as_ref()
            .and_then(|o| {
                choices
                    .iter()
                    .find(|c| c.key == o.key && c.label == o.label)
            })
            .or_else(|| match &answer.value {
                AnswerValue::Value(v) => find(choices, v),
                _ => None,
            }),
    };
    let Some(selected) = selected else {
        let said = match &answer.value {
            AnswerValue::Value(v) => v.clone(),
            other => format!("{other:?}").to_lowercase(),
        };
        return fail(
            Status::Fail,
            format!(
                "the answer `{said}` names none of the choices ({})",
                list(choices)
            ),
        );
    };
    Outcome {
        status: Status::Success,
        writes: vec![
            Write {
                key: "human.gate.selected".into(),
                value: Value::String(selected.key.clone()),
            },
            Write {
                key: "human.gate.label".into(),
                value: Value::String(selected.label.clone()),
            },
        ],
        edge: Some(selected.edge.clone()),
        preferred_label: Some(selected.label.clone()),
        suggested_next: vec![selected.to.clone()],
        notes: Some(format!(
            "human chose `{}` → {}",
            selected.label, selected.to
        )),
        ..Outcome::success()
    }
}

/// A multi-select gate: the chosen labels in `human.gate.selections` (a
/// list), their keys in `human.gate.selected` (comma-separated), on to the
/// first edge.
fn run_multiple(
    gate: &Gate<'_>,
    options: &[QuestionOption],
    first: &Choice,
    interviewer: &mut dyn Interviewer,
) -> Outcome {
    if options.is_empty() {
        return fail(
            Status::Fail,
            format!(
                "gate `{}` has mode=\"multiple\" but no `options` (write options=\"[A] Alpha, [B] Beta\")",
                gate.node
            ),
        );
    }
    let question = Question {
        text: gate
            .text
            .filter(|t| !t.trim().is_empty())
            .unwrap_or("Select one or more:")
            .to_owned(),
        ty: QuestionType::MultiSelect,
        options: options.to_vec(),
        default: None,
        timeout: gate.timeout,
        stage: gate.node.to_owned(),
        id: gate.id.map(str::to_owned),
    };
    let answer = interviewer.ask(&question);
    let chosen = &answer.selected_options;
    match &answer.value {
        AnswerValue::Pending => return fail(Status::Fail, no_answer(gate)),
        AnswerValue::Timeout => {
            return fail(Status::Retry, "human gate timeout, no default".into());
        }
        AnswerValue::Skipped => return fail(Status::Fail, "human skipped interaction".into()),
        _ if chosen.is_empty() || chosen.iter().any(|c| !options.contains(c)) => {
            let said = match &answer.value {
                AnswerValue::Value(v) => v.clone(),
                other => format!("{other:?}").to_lowercase(),
            };
            let all: Vec<String> = options.iter().map(display_option).collect();
            return fail(
                Status::Fail,
                format!(
                    "the answer `{said}` does not name the options ({})",
                    all.join(", ")
                ),
            );
        }
        _ => {}
    }
    let keys: Vec<&str> = chosen.iter().map(|c| c.key.as_str()).collect();
    let labels: Vec<Value> = chosen
        .iter()
        .map(|c| Value::String(c.label.clone()))
        .collect();
    Outcome {
        status: Status::Success,
        writes: vec![
            Write {
                key: "human.gate.selected".into(),
                value: Value::String(keys.join(",")),
            },
            Write {
                key: "human.gate.selections".into(),
                value: Value::Array(labels),
            },
        ],
        edge: Some(first.edge.clone()),
        suggested_next: vec![first.to.clone()],
        notes: Some(format!("human chose {} → {}", keys.join(","), first.to)),
        ..Outcome::success()
    }
}

/// The failure of a gate nobody answered in a run that cannot wait.
fn no_answer(gate: &Gate<'_>) -> String {
    format!(
        "no answer to the question of gate `{}` (nobody is there to answer: end of input, or the answers file is used up); run it with --run-dir DIR so that the run waits, then answer it with `wfc answer DIR`",
        gate.node
    )
}

/// A freeform gate's outcome: the text in `human.gate.text`, on to the
/// first edge.
fn freeform(first: &Choice, text: &str) -> Outcome {
    Outcome {
        status: Status::Success,
        writes: vec![Write {
            key: "human.gate.text".into(),
            value: Value::String(text.to_owned()),
        }],
        edge: Some(first.edge.clone()),
        suggested_next: vec![first.to.clone()],
        notes: Some(format!("human answered in free text → {}", first.to)),
        ..Outcome::success()
    }
}

/// An interviewer several handlers share (the gates of a pipeline, of
/// its parallel branches and of its child pipelines ask the same person).
pub type SharedInterviewer = Rc<RefCell<Box<dyn Interviewer>>>;

/// Wraps an interviewer for sharing.
pub fn shared(interviewer: Box<dyn Interviewer>) -> SharedInterviewer {
    Rc::new(RefCell::new(interviewer))
}

/// The `wait.human` handler.
pub struct WaitHuman {
    interviewer: SharedInterviewer,
    /// Prefixes the ids of its questions: where in the run the gate is
    /// (`fan#1/a/` in a parallel branch; empty at the top).
    scope: String,
}

impl WaitHuman {
    /// A gate that asks `interviewer`.
    pub fn new(interviewer: SharedInterviewer) -> Self {
        WaitHuman {
            interviewer,
            scope: String::new(),
        }
    }

    /// The gate, its question ids prefixed by `scope` (a parallel branch's,
    /// so that an answer reaches this gate and no gate of the same node
    /// in another branch or in the parent).
    pub fn scoped(mut self, scope: &str) -> Self {
        self.scope = scope.to_owned();
        self
    }
}

impl Default for WaitHuman {
    /// A gate that auto-approves (the default of runs with no person).
    fn default() -> Self {
        WaitHuman::new(shared(Box::new(super::interviewer::AutoApprove)))
    }
}

impl Handler for WaitHuman {
    fn execute(&mut self, cx: &mut HandlerCx<'_, '_>) -> Result<Decision, AgentError> {
        let d = cx.decision;
        // Only edges whose conditions hold can be taken, so only they are
        // offered.
        let choices: Vec<Choice> = d
            .valid_edge_list()
            .map(|e| {
                let to = d.str(d.workflow.nodes[e.to.0 as usize].id);
                Choice::new(d.str(e.id), e.label.map(|l| d.str(l)), to)
            })
            .collect();
        let default_choice = cx
            .attrs
            .get("human.default_choice")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| d.node.engine.default_choice.map(|s| d.str(s).to_owned()));
        let text = d.label();
        let id = format!(
            "{}{}",
            self.scope,
            crate::question::question_id(cx.node_id, d.visit)
        );
        let listed = crate::question::listed_options(d.node);
        let freeform = crate::question::is_freeform(d.node);
        let gate = Gate {
            node: cx.node_id,
            id: Some(&id),
            freeform,
            multiple: (!freeform && crate::question::is_multiple(d.node)).then_some(&listed[..]),
            text: text.as_deref(),
            default_choice: default_choice.as_deref(),
            // The question ends a little before the node's timeout, so the
            // default choice is taken before the engine's own timing of
            // the node would fail it.
            timeout: d
                .node
                .engine
                .timeout_ms
                .map(|ms| Duration::from_millis(ms - ms / 20)),
        };
        cx.event(
            "InterviewStarted",
            json!({"question": gate.text.unwrap_or("Select an option:"), "stage": cx.node_id}),
        );
        let started = Instant::now();
        let mut log = Recorder::default();
        let outcome = {
            let mut inner = self.interviewer.borrow_mut();
            let mut rec = Recorder::wrap(&mut **inner, &mut log);
            run_gate(&gate, &choices, &mut rec)
        };
        let ms = started.elapsed().as_millis() as u64;
        if log
            .answer
            .as_ref()
            .is_some_and(|a| a.value == AnswerValue::Pending)
            && d.config.questions_wait
        {
            // Nobody is there: the run waits for `wfc answer` (the
            // question is derived again from the log's state by whoever
            // reads it, `wf_vm::question::pending`).
            return Ok(Decision::Suspend {
                reason: format!(
                    "waiting for an answer to question `{id}` at gate `{}`",
                    cx.node_id
                ),
            });
        }
        // A console that timed out answers the default choice itself.
        let timed_out = log
            .answer
            .as_ref()
            .is_some_and(|a| a.value == AnswerValue::Timeout)
            || gate.timeout.is_some_and(|t| started.elapsed() >= t);
        if timed_out {
            cx.event(
                "InterviewTimeout",
                json!({"question": gate.text, "stage": cx.node_id, "duration_ms": ms}),
            );
        }
        cx.event(
            "InterviewCompleted",
            json!({"question": gate.text, "answer": log.answer, "duration_ms": ms}),
        );
        if let (Some(files), Some(q), Some(a)) = (cx.files, &log.question, &log.answer) {
            // The exchange, for audit and replay (a resumed run replays the
            // logged decision and does not ask again).
            let path = files
                .stage_dir(cx.node_id)
                .map(|dir| dir.join("interview.json"))
                .map_err(|e| AgentError {
                    message: format!("cannot create the stage directory of `{}`: {e}", cx.node_id),
                })?;
            files
                .write_json(&path, &json!({"question": q, "answer": a}))
                .map_err(|e| AgentError {
                    message: format!("cannot write {}: {e}", path.display()),
                })?;
        }
        Ok(Decision::Advance(outcome))
    }
}

/// Keeps the one exchange of a gate (for events and `interview.json`).
#[derive(Default)]
struct Recorder {
    question: Option<Question>,
    answer: Option<Answer>,
}

impl Recorder {
    fn wrap<'r>(inner: &'r mut dyn Interviewer, log: &'r mut Recorder) -> RecordingRef<'r> {
        RecordingRef { inner, log }
    }
}

struct RecordingRef<'r> {
    inner: &'r mut dyn Interviewer,
    log: &'r mut Recorder,
}

impl Interviewer for RecordingRef<'_> {
    fn ask(&mut self, q: &Question) -> Answer {
        let a = self.inner.ask(q);
        self.log.question = Some(q.clone());
        self.log.answer = Some(a.clone());
        a
    }
}

fn list(choices: &[Choice]) -> String {
    choices
        .iter()
        .map(|c| {
            display_option(&QuestionOption {
                key: c.key.clone(),
                label: c.label.clone(),
            })
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests;
