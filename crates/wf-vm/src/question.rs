//! Questions a suspended run waits on, and the answers `wfc answer`
//! records for them (docs/runtime.md, "Answering a suspended run").
//!
//! A run waits on a question when it is suspended at a node that asks a
//! person: a `.wf` `human` node, or an Attractor `wait.human` gate. The
//! question is derived from the run's state (program, position, visit
//! count, the edges whose conditions hold), which the log determines, so
//! every reader of the log sees the same question. Its id is the node's
//! id and the visit that asks, `review#2`: an answer names the one visit
//! it is for, so it can never be applied to another node, nor to a later
//! visit of the same node. A question asked in a parallel branch or a
//! child pipeline has its id scoped by where it is (`fan#1/a/review#1`,
//! `manager#1/child/review#1`) and is recorded through the run's store
//! when the run suspends ([`record`]; docs/runtime.md, "Gates in parallel
//! branches").
//!
//! An answer is recorded through the run's store
//! ([`crate::RunStore::record_answer`]; a run directory keeps it in the
//! log, `log.jsonl`, as a line of its own, `{"answer": {...}}`, an
//! [`AnswerRecord`], after the step that suspended). The resumed run hands
//! the answers recorded since ([`answers`]) to [`Answered`] (the `.wf` agent) or [`AnsweringInterviewer`] (the
//! gates' interviewer), which answer the question they are for; the
//! resulting decision is logged as any decision is, so a replay needs no
//! answer record.

mod waiting;

use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wf_ir::{IrNode, IrProgram, IrWorkflow, Opcode};

use crate::agent::{AgentError, Decision, DecisionAgent, DecisionContext, Outcome};
use crate::attractor::human::Choice;
use crate::attractor::interviewer::{
    Answer, Interviewer, Question, QuestionOption, find_matching_option,
};
use crate::engine::Engine;
use crate::report::RunStatus;
pub use waiting::{WaitingQuestions, answers, current, record};

/// What kind of answer a question takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuestionKind {
    /// Exactly one of the options.
    Choice,
    /// Free text (`wfc answer --text`).
    Freeform,
    /// One or more of the options (`wfc answer DIR A B`).
    Multiple,
}

impl QuestionKind {
    /// The kind's name (`choice`, `freeform`).
    pub fn as_str(self) -> &'static str {
        match self {
            QuestionKind::Choice => "choice",
            QuestionKind::Freeform => "freeform",
            QuestionKind::Multiple => "multiple",
        }
    }
}

/// The question a suspended run waits on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingQuestion {
    /// `node#visit` for a node of the run itself; a gate in a parallel
    /// branch prefixes where it is: `fan#1/a/review#1` (the parallel node
    /// `fan` on its first visit, the branch starting at `a`).
    pub id: String,
    /// Where the node is, for people: `parallel node `fan` (visit 1),
    /// branch `a``; empty for a node of the run itself.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub place: String,
    /// The workflow of the node that asks.
    pub workflow: String,
    /// The node that asks.
    pub node: String,
    /// The node's visit that asks (1 the first time).
    pub visit: u32,
    /// The question's text.
    pub text: String,
    /// The kind of answer it takes.
    pub kind: QuestionKind,
    /// The options of a `choice` question (its edges whose conditions
    /// hold, in edge order).
    pub options: Vec<QuestionOption>,
}

/// The id of the question node `node` asks on its `visit`-th visit.
pub fn question_id(node: &str, visit: u32) -> String {
    format!("{node}#{visit}")
}

/// Whether `node` asks a person: a `.wf` `human` node or an Attractor
/// `wait.human` gate.
pub fn asks(program: &IrProgram, workflow: &IrWorkflow, node: &IrNode) -> bool {
    match workflow.dialect {
        wf_ir::Dialect::Attractor => node.handler.is_some_and(|h| program.str(h) == "wait.human"),
        _ => node.op == Opcode::Human,
    }
}

/// Whether a question takes free text: `mode="freeform"` on an Attractor
/// gate (the corpus's spelling), `freeform = true` on a `.wf` `human` node.
pub fn is_freeform(node: &IrNode) -> bool {
    node.spec
        .get("mode")
        .and_then(Value::as_str)
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("freeform"))
        || node.spec.get("freeform") == Some(&Value::Bool(true))
}

/// Whether a question takes several of its options: `choices =
/// multiple` on a `.wf` `human` node, `mode="multiple"` on a gate.
pub fn is_multiple(node: &IrNode) -> bool {
    let word = |k: &str| {
        node.spec
            .get(k)
            .and_then(Value::as_str)
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("multiple"))
    };
    word("choices") || word("mode")
}

/// The options of a multi-select question: its `options` attribute, a list
/// of labels (`.wf`) or one comma-separated string (DOT). Each option's
/// key is its label's accelerator.
pub fn listed_options(node: &IrNode) -> Vec<QuestionOption> {
    let labels: Vec<String> = match node.spec.get("options") {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        Some(Value::String(s)) => s.split(',').map(str::to_owned).collect(),
        _ => Vec::new(),
    };
    labels
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .map(|l| QuestionOption {
            key: crate::attractor::interviewer::parse_accelerator_key(l),
            label: l.to_owned(),
        })
        .collect()
}

/// The question's text: the node's `prompt`, else its label, else
/// `Select an option:` (`Your answer:` for free text).
fn text(program: &IrProgram, workflow: &IrWorkflow, node: &IrNode, freeform: bool) -> String {
    // A gate asks its label, as the `wait.human` handler does.
    let prompt = (workflow.dialect != wf_ir::Dialect::Attractor)
        .then(|| node.spec.get("prompt").and_then(Value::as_str))
        .flatten();
    prompt
        .map(str::to_owned)
        .or_else(|| node.label.map(|l| program.str(l).to_owned()))
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| {
            if freeform {
                "Your answer:".into()
            } else {
                "Select an option:".into()
            }
        })
}

/// The question the run `engine` holds waits on: `None` unless it is
/// suspended at a node that asks (a run suspended by an agent error waits
/// on the error being fixed, not on an answer).
pub fn pending(program: &IrProgram, engine: &mut Engine<'_>) -> Option<PendingQuestion> {
    if !matches!(engine.report().status, RunStatus::Suspended { .. }) {
        return None;
    }
    let (wf, node, _) = engine.position();
    let workflow = &program.workflows[wf.0 as usize];
    let n = &workflow.nodes[node.0 as usize];
    if !asks(program, workflow, n) {
        return None;
    }
    let visit = engine.visit_count(wf, node);
    let freeform = is_freeform(n);
    let multiple = !freeform && is_multiple(n);
    let options = if freeform {
        Vec::new()
    } else if multiple {
        listed_options(n)
    } else {
        engine
            .valid_edges_here()
            .into_iter()
            .map(|e| {
                let c = choice(program, workflow, e);
                QuestionOption {
                    key: c.key,
                    label: c.label,
                }
            })
            .collect()
    };
    let id = program.str(n.id);
    Some(PendingQuestion {
        id: question_id(id, visit),
        place: String::new(),
        workflow: program.str(workflow.name).to_owned(),
        node: id.to_owned(),
        visit,
        text: text(program, workflow, n, freeform),
        kind: if freeform {
            QuestionKind::Freeform
        } else if multiple {
            QuestionKind::Multiple
        } else {
            QuestionKind::Choice
        },
        options,
    })
}

fn choice(program: &IrProgram, workflow: &IrWorkflow, e: wf_ir::EdgeIdx) -> Choice {
    let edge = &workflow.edges[e.0 as usize];
    let to = program.str(workflow.nodes[edge.to.0 as usize].id);
    Choice::new(program.str(edge.id), edge.label.map(|l| program.str(l)), to)
}

/// An answer `wfc answer` recorded, as the log holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerRecord {
    /// The question's id, `node#visit`.
    pub question: String,
    /// The workflow of the node that asked.
    pub workflow: String,
    /// The node that asked.
    pub node: String,
    /// Its visit.
    pub visit: u32,
    /// The chosen option, for a `choice` question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<QuestionOption>,
    /// The text, for a `freeform` question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The chosen options, for a `multiple` question.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<QuestionOption>,
}

impl AnswerRecord {
    /// The answer to `q` that a person typed: `choices` name its options
    /// (by key, label or number; one for a `choice` question, one or more
    /// for a `multiple` one), `text` is free text. Errors say what is wrong
    /// and what the question takes.
    pub fn new(
        q: &PendingQuestion,
        choices: &[String],
        text: Option<&str>,
    ) -> Result<Self, String> {
        let mut record = AnswerRecord {
            question: q.id.clone(),
            workflow: q.workflow.clone(),
            node: q.node.clone(),
            visit: q.visit,
            choice: None,
            text: None,
            choices: Vec::new(),
        };
        let options = || {
            q.options
                .iter()
                .map(crate::attractor::interviewer::display_option)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let find = |c: &String| {
            find_matching_option(c, &q.options).cloned().ok_or_else(|| {
                format!(
                    "`{c}` is not an option of question `{}`: the options are {}",
                    q.id,
                    options()
                )
            })
        };
        match (q.kind, choices, text) {
            (QuestionKind::Choice, [c], None) => record.choice = Some(find(c)?),
            (QuestionKind::Choice | QuestionKind::Multiple, _, Some(_)) => {
                return Err(format!(
                    "question `{}` takes its options, not free text: the options are {}",
                    q.id,
                    options()
                ));
            }
            (QuestionKind::Choice, [], None) | (QuestionKind::Multiple, [], None) => {
                return Err(format!(
                    "question `{}` needs a choice: {} {}",
                    q.id,
                    if q.kind == QuestionKind::Multiple {
                        "one or more of"
                    } else {
                        "one of"
                    },
                    options()
                ));
            }
            (QuestionKind::Choice, _, None) => {
                return Err(format!(
                    "question `{}` takes one option, not {}: one of {}",
                    q.id,
                    choices.len(),
                    options()
                ));
            }
            (QuestionKind::Multiple, _, None) => {
                for c in choices {
                    let o = find(c)?;
                    if !record.choices.contains(&o) {
                        record.choices.push(o);
                    }
                }
            }
            (QuestionKind::Freeform, [], Some(t)) => record.text = Some(t.to_owned()),
            (QuestionKind::Freeform, _, _) => {
                return Err(format!(
                    "question `{}` takes free text: give it with --text TEXT",
                    q.id
                ));
            }
        }
        Ok(record)
    }

    /// Checks the record against the run's program: the node exists, asks
    /// a question, and the id is the node's and visit's (after the scope
    /// of a gate in a parallel branch, `fan#1/a/`).
    pub fn verify(&self, program: &IrProgram) -> Result<(), String> {
        let bad = |why: String| Err(format!("the answer to `{}` {why}", self.question));
        let own = question_id(&self.node, self.visit);
        let scoped = self
            .question
            .strip_suffix(&own)
            .is_some_and(|scope| scope.is_empty() || scope.ends_with('/'));
        if self.visit == 0 || !scoped {
            return bad(format!(
                "does not match its node and visit (`{}`)",
                question_id(&self.node, self.visit)
            ));
        }
        if !self.is_one_kind() {
            return bad("must hold exactly one of `choice`, `choices` and `text`".into());
        }
        // A child pipeline's node is in the child's own file, loaded when
        // the manager runs: its gate checks the answer then.
        if self.question.contains("/child/") {
            return Ok(());
        }
        let Some(wf) = program
            .workflows
            .iter()
            .find(|w| program.str(w.name) == self.workflow)
        else {
            return bad(format!("names no workflow `{}`", self.workflow));
        };
        let Some(node) = wf.nodes.iter().find(|n| program.str(n.id) == self.node) else {
            return bad(format!(
                "names no node `{}` in workflow `{}`",
                self.node, self.workflow
            ));
        };
        if !asks(program, wf, node) {
            return bad(format!(
                "is for node `{}`, which asks no question",
                self.node
            ));
        }
        if !self.is_one_kind() {
            return bad("must hold exactly one of `choice`, `choices` and `text`".into());
        }
        Ok(())
    }

    /// Whether exactly one of `choice`, `choices` and `text` is given.
    pub fn is_one_kind(&self) -> bool {
        usize::from(self.choice.is_some())
            + usize::from(!self.choices.is_empty())
            + usize::from(self.text.is_some())
            == 1
    }

    /// The answer for the interviewer's question `q` (a `choice` must be
    /// one of its options, by key and label).
    fn answer(&self, q: &Question) -> Option<Answer> {
        if !self.choices.is_empty() {
            let all = self.choices.iter().all(|c| q.options.contains(c));
            return all.then(|| Answer::choose_many(&self.choices));
        }
        match (&self.choice, &self.text) {
            (Some(c), _) => q.options.iter().find(|o| *o == c).map(Answer::choose),
            (None, Some(t)) => Some(Answer::text(t)),
            (None, None) => None,
        }
    }

    /// Whether it answers the question the node asks in the engine whose
    /// questions have `scope` (a parallel branch's, else empty): never
    /// one asked in another branch, or outside any.
    fn is_for(&self, scope: &str, workflow: &str, node: &str, visit: u32) -> bool {
        self.workflow == workflow
            && self.node == node
            && self.visit == visit
            && self.question.strip_prefix(scope) == Some(&question_id(node, visit))
    }
}

/// The answers of a resumed run, shared by the agent and its forks: each
/// is taken once, by the one decision it is for, whichever thread asks.
type SharedAnswers = Arc<Mutex<Vec<AnswerRecord>>>;

/// The `.wf` agent of a resumed run: a `human` node whose question has a
/// recorded answer takes it (the edge it names), any other decision is
/// the inner agent's.
///
/// It forks when its inner agent does (docs/runtime.md, "Parallel
/// branches"): the forks share the answers, and a branch's fork can only
/// take those scoped to the branch it runs (`fan#1/a/review#1`, matched
/// against the branch engine's question scope), so an answer is applied
/// once, to the node it names.
pub type Answered<'a> = AnsweredBy<dyn DecisionAgent + 'a>;

/// [`Answered`] around an inner agent of type `A`: the run's agent, or a
/// fork of it for a branch thread (`dyn DecisionAgent + Send`), so the
/// agent and its forks share one body.
pub struct AnsweredBy<A: DecisionAgent + ?Sized> {
    inner: Box<A>,
    answers: SharedAnswers,
}

impl<'a> Answered<'a> {
    /// `inner`, answering `answers` first.
    pub fn new(inner: Box<dyn DecisionAgent + 'a>, answers: Vec<AnswerRecord>) -> Self {
        AnsweredBy {
            inner,
            answers: Arc::new(Mutex::new(answers)),
        }
    }
}

impl<A: DecisionAgent + ?Sized> DecisionAgent for AnsweredBy<A> {
    fn decide(&mut self, ctx: &DecisionContext<'_>) -> Result<Decision, AgentError> {
        decide_answered(&self.answers, self.inner.as_mut(), ctx)
    }

    fn is_instant(&self) -> bool {
        self.inner.is_instant()
    }

    /// A fork of the inner agent for a branch thread, answering from the
    /// same shared answers.
    fn fork(&self) -> Option<Box<dyn DecisionAgent + Send>> {
        Some(Box::new(AnsweredBy {
            inner: self.inner.fork()?,
            answers: Arc::clone(&self.answers),
        }))
    }
}

/// [`Answered`]'s decision: the recorded answer for the question `ctx`'s
/// node asks in its engine's scope (taken out of `answers`), else
/// `inner`'s decision.
fn decide_answered<A: DecisionAgent + ?Sized>(
    answers: &Mutex<Vec<AnswerRecord>>,
    inner: &mut A,
    ctx: &DecisionContext<'_>,
) -> Result<Decision, AgentError> {
    let (wf, node) = (ctx.str(ctx.workflow.name), ctx.str(ctx.node.id));
    let taken = (ctx.workflow.dialect != wf_ir::Dialect::Attractor && ctx.node.op == Opcode::Human)
        .then(|| {
            // Found and taken under one lock: two threads never take one
            // answer.
            let mut answers = answers.lock().unwrap_or_else(PoisonError::into_inner);
            let i = answers
                .iter()
                .position(|a| a.is_for(&ctx.config.question_scope, wf, node, ctx.visit))?;
            Some(answers.remove(i))
        })
        .flatten();
    let Some(a) = taken else {
        return inner.decide(ctx);
    };
    if let Some(text) = &a.text {
        return freeform_decision(ctx, &a.question, Value::String(text.clone()));
    }
    if !a.choices.is_empty() {
        let options = listed_options(ctx.node);
        if let Some(c) = a.choices.iter().find(|c| !options.contains(c)) {
            return Err(AgentError {
                message: format!(
                    "the answer recorded for question `{}` chooses `{}`, which is not an option of node `{node}`",
                    a.question, c.label
                ),
            });
        }
        let labels = a.choices.iter().map(|c| Value::String(c.label.clone()));
        return freeform_decision(ctx, &a.question, Value::Array(labels.collect()));
    }
    let chosen = a.choice.as_ref().and_then(|c| {
        ctx.valid_edges
            .iter()
            .map(|&e| choice(ctx.program, ctx.workflow, e))
            .find(|x| x.key == c.key && x.label == c.label)
    });
    let Some(chosen) = chosen else {
        return Err(AgentError {
            message: format!(
                "the answer recorded for question `{}` names no edge of node `{node}` whose guard holds",
                a.question
            ),
        });
    };
    Ok(Decision::Advance(Outcome {
        edge: Some(chosen.edge),
        notes: Some(format!(
            "answered with `wfc answer`: `{}` → {}",
            chosen.label, chosen.to
        )),
        ..Outcome::success()
    }))
}

/// A freeform or multi-select `human` node's decision for `value` (the
/// text, or the list of chosen labels): written to the node's one declared
/// key (WF0321, WF0322), on to its first valid edge.
pub fn freeform_decision(
    ctx: &DecisionContext<'_>,
    question: &str,
    value: Value,
) -> Result<Decision, AgentError> {
    let (Some(key), Some(&edge)) = (ctx.node.writes.first(), ctx.valid_edges.first()) else {
        return Err(AgentError {
            message: format!(
                "question `{question}` has no declared key for its answer, or no edge whose guard holds"
            ),
        });
    };
    let edge = &ctx.workflow.edges[edge.0 as usize];
    Ok(Decision::Advance(Outcome {
        writes: vec![crate::agent::Write {
            key: ctx.str(key.key).to_owned(),
            value,
        }],
        edge: Some(ctx.str(edge.id).to_owned()),
        notes: Some("answered".into()),
        ..Outcome::success()
    }))
}

/// The gates' interviewer of a resumed run: a question with a recorded
/// answer (matched by id) gets it, any other goes to the inner
/// interviewer.
pub struct AnsweringInterviewer {
    inner: Box<dyn Interviewer>,
    answers: Vec<AnswerRecord>,
}

impl AnsweringInterviewer {
    /// `inner`, answering `answers` first.
    pub fn new(inner: Box<dyn Interviewer>, answers: Vec<AnswerRecord>) -> Self {
        AnsweringInterviewer { inner, answers }
    }
}

impl Interviewer for AnsweringInterviewer {
    fn ask(&mut self, q: &Question) -> Answer {
        let found = q.id.as_deref().and_then(|id| {
            self.answers
                .iter()
                .position(|a| a.question == id && a.node == q.stage)
        });
        if let Some(i) = found {
            let a = self.answers.remove(i);
            // An answer that fits the question no more is given as it is,
            // so the gate fails naming it (never asks someone else).
            return a.answer(q).unwrap_or_else(|| {
                let many = a.choices.iter().map(|c| c.label.as_str());
                let many = (!a.choices.is_empty()).then(|| many.collect::<Vec<_>>().join(","));
                let said = a
                    .choice
                    .map(|c| c.label)
                    .or(a.text)
                    .or(many)
                    .unwrap_or_default();
                Answer {
                    value: crate::attractor::interviewer::AnswerValue::Value(said),
                    selected_option: None,
                    selected_options: Vec::new(),
                    text: None,
                }
            });
        }
        self.inner.ask(q)
    }

    fn inform(&mut self, message: &str, stage: &str) {
        self.inner.inform(message, stage);
    }
}
