//! The Interviewer pattern (Attractor seed section 6): every question a
//! pipeline asks a person goes through an [`Interviewer`], so the same
//! `wait.human` gate runs against a terminal, a scripted answers file, a
//! callback or an auto-approver.
//!
//! Built-in implementations: [`AutoApprove`], [`Console`], [`Queue`] (and
//! its answers file), [`Recording`] and [`Callback`]. [`from_spec`] builds
//! one from the `wfc run --interviewer` value.

mod console;
mod queue;
mod simple;

use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use console::Console;
pub(crate) use console::stdin_ready;
pub use queue::Queue;
pub use simple::{AutoApprove, Callback, Recording};

/// What kind of answer a question expects (seed 6.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuestionType {
    /// A yes/no choice.
    YesNo,
    /// One option of [`Question::options`].
    MultipleChoice,
    /// Free text.
    Freeform,
    /// One or more of [`Question::options`] (seed 11.8's `MULTI_SELECT`).
    MultiSelect,
    /// A yes/no confirmation (semantically distinct from [`QuestionType::YesNo`]).
    Confirmation,
}

/// One option of a multiple-choice question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionOption {
    /// The accelerator key (`Y` for `[Y] Yes, deploy`).
    pub key: String,
    /// The text shown.
    pub label: String,
}

/// A question for a person.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Question {
    /// What is asked.
    pub text: String,
    /// The kind of answer expected.
    #[serde(rename = "type")]
    pub ty: QuestionType,
    /// The options of a multiple-choice question.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<QuestionOption>,
    /// The answer used when the person does not answer in time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Answer>,
    /// How long to wait; `None` waits for as long as it takes.
    #[serde(
        default,
        rename = "timeout_ms",
        with = "duration_ms",
        skip_serializing_if = "Option::is_none"
    )]
    pub timeout: Option<Duration>,
    /// The stage (node id) that asks.
    pub stage: String,
    /// The question's id, `node#visit` (`wf_vm::question`), when a gate of
    /// the engine asks: what `wfc answer --question` names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// The value of an answer (seed 6.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerValue {
    /// Affirmative.
    Yes,
    /// Negative.
    No,
    /// The person skipped the question (or nobody is there to answer).
    Skipped,
    /// No answer within the question's timeout.
    Timeout,
    /// Nobody is there to answer now (end of input, an answers file used
    /// up): a durable run suspends and waits for `wfc answer`, any other
    /// run fails the gate. (The seed's queue answers `Skipped` here; a
    /// missing answer is not a person's choice to skip.)
    Pending,
    /// A value: an option key or free text.
    Value(String),
}

/// A person's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    /// The value.
    pub value: AnswerValue,
    /// The option chosen, for a multiple-choice question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected_option: Option<QuestionOption>,
    /// Free text, for a freeform question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The options chosen, for a multi-select question.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub selected_options: Vec<QuestionOption>,
}

impl Answer {
    /// An answer with only a value.
    pub fn of(value: AnswerValue) -> Self {
        Answer {
            value,
            selected_option: None,
            text: None,
            selected_options: Vec::new(),
        }
    }

    /// The answer choosing `option`.
    pub fn choose(option: &QuestionOption) -> Self {
        Answer {
            value: AnswerValue::Value(option.key.clone()),
            selected_option: Some(option.clone()),
            text: None,
            selected_options: Vec::new(),
        }
    }

    /// The answer choosing several options (a multi-select question).
    pub fn choose_many(options: &[QuestionOption]) -> Self {
        let keys: Vec<&str> = options.iter().map(|o| o.key.as_str()).collect();
        Answer {
            value: AnswerValue::Value(keys.join(",")),
            selected_option: None,
            text: None,
            selected_options: options.to_vec(),
        }
    }

    /// Free text.
    pub fn text(text: &str) -> Self {
        Answer {
            value: AnswerValue::Value(text.to_owned()),
            selected_option: None,
            text: Some(text.to_owned()),
            selected_options: Vec::new(),
        }
    }

    /// The answer to `question` for a typed `response` (a line of a
    /// terminal or of an answers file): the option it names for a
    /// multiple-choice question (`None` when it names none), yes/no for
    /// yes/no questions (`None` for anything else), the text otherwise.
    pub fn parse(question: &Question, response: &str) -> Option<Answer> {
        let r = response.trim();
        match question.ty {
            QuestionType::MultipleChoice => {
                find_matching_option(r, &question.options).map(Answer::choose)
            }
            QuestionType::YesNo | QuestionType::Confirmation => match r.to_lowercase().as_str() {
                "y" | "yes" => Some(Answer::of(AnswerValue::Yes)),
                "n" | "no" => Some(Answer::of(AnswerValue::No)),
                _ => None,
            },
            QuestionType::Freeform => Some(Answer::text(r)),
            QuestionType::MultiSelect => {
                find_many(r, &question.options).map(|o| Answer::choose_many(&o))
            }
        }
    }
}

/// The human interaction frontend (seed 6.1).
pub trait Interviewer {
    /// Asks one question and waits for the answer (at most the question's
    /// timeout, when the frontend can tell time).
    fn ask(&mut self, question: &Question) -> Answer;

    /// Asks several questions in order.
    fn ask_multiple(&mut self, questions: &[Question]) -> Vec<Answer> {
        questions.iter().map(|q| self.ask(q)).collect()
    }

    /// Tells the person something that needs no answer.
    fn inform(&mut self, _message: &str, _stage: &str) {}
}

/// The accelerator key of an edge label (seed 4.6): `[K] Label`,
/// `K) Label` and `K - Label` give `K`; otherwise the first character,
/// uppercased (`Yes, deploy` gives `Y`). An empty label gives an empty key.
pub fn parse_accelerator_key(label: &str) -> String {
    let t = label.trim();
    let mut chars = t.char_indices();
    let key = match (chars.next(), chars.next(), chars.next()) {
        (Some((_, '[')), Some((_, k)), Some((i, ']'))) if k.is_alphanumeric() => {
            Some((k, &t[i + 1..]))
        }
        (Some((_, k)), Some((i, ')')), _) if k.is_alphanumeric() => Some((k, &t[i + 1..])),
        (Some((_, k)), Some((i, ' ')), Some((_, '-'))) if k.is_alphanumeric() => {
            Some((k, &t[i + 2..]))
        }
        _ => None,
    };
    match key {
        // As in label normalisation: only a prefix followed by whitespace.
        Some((k, rest)) if rest.starts_with(char::is_whitespace) => k.to_string(),
        _ => t
            .chars()
            .next()
            .map(|c| c.to_uppercase().collect())
            .unwrap_or_default(),
    }
}

/// How an option is shown: its label when the label already starts with
/// its accelerator (`[A] Approve`, `A) Approve`, `A - Approve`), else
/// `[K] label`.
pub fn display_option(o: &QuestionOption) -> String {
    let l = o.label.trim();
    let k = o.key.as_str();
    let prefixed = !k.is_empty()
        && [format!("[{k}]"), format!("{k})"), format!("{k} -")]
            .iter()
            .any(|p| l.starts_with(p.as_str()));
    if prefixed {
        l.to_owned()
    } else {
        format!("[{k}] {l}")
    }
}

/// The option a typed response names: its key (case-insensitive), its
/// label (compared after label normalisation, so `approve` names
/// `[A] Approve`), or its 1-based position when no key or label matches.
/// Keys are tried first, across all options, so a key never loses to a
/// label.
pub fn find_matching_option<'a>(
    response: &str,
    options: &'a [QuestionOption],
) -> Option<&'a QuestionOption> {
    let r = response.trim();
    if r.is_empty() {
        return None;
    }
    if let Some(o) = options.iter().find(|o| o.key.eq_ignore_ascii_case(r)) {
        return Some(o);
    }
    let norm = crate::select::normalize_label(r);
    if let Some(o) = options
        .iter()
        .find(|o| crate::select::normalize_label(&o.label) == norm)
    {
        return Some(o);
    }
    r.parse::<usize>()
        .ok()
        .and_then(|n| n.checked_sub(1))
        .and_then(|i| options.get(i))
}

/// The options a comma-separated response names (each as
/// [`find_matching_option`] finds it, in the order given, without
/// repeats); `None` when one of them names no option, or none is given.
pub fn find_many(response: &str, options: &[QuestionOption]) -> Option<Vec<QuestionOption>> {
    let mut out: Vec<QuestionOption> = Vec::new();
    for part in response.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let o = find_matching_option(part, options)?;
        if !out.contains(o) {
            out.push(o.clone());
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Builds the interviewer a `wfc run --interviewer` value names: `auto`,
/// `console` (standard input and error) or `answers:FILE` (one answer per
/// line, see [`Queue::from_file`]).
pub fn from_spec(spec: &str) -> Result<Box<dyn Interviewer>, String> {
    match spec {
        "auto" => Ok(Box::new(AutoApprove)),
        "console" => Ok(Box::new(Console::stdio())),
        _ => match spec.strip_prefix("answers:") {
            Some("") => Err("`answers:` needs a file: `--interviewer answers:FILE`".into()),
            Some(path) => Ok(Box::new(Queue::from_file(std::path::Path::new(path))?)),
            None => Err(format!(
                "unknown interviewer `{spec}`: expected `auto`, `console` or `answers:FILE`"
            )),
        },
    }
}

/// `Option<Duration>` as integer milliseconds.
mod duration_ms {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => s.serialize_u64(d.as_millis().min(u128::from(u64::MAX)) as u64),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        Ok(Option::<u64>::deserialize(d)?.map(Duration::from_millis))
    }
}

#[cfg(test)]
mod tests;
