//! The auto-approve, callback and recording interviewers.

use std::io::Write;

use serde::Serialize;

use super::{Answer, AnswerValue, Interviewer, Question, QuestionType};

/// Approves everything: yes for yes/no questions, the first option of a
/// multiple-choice question (seed 6.4). For CI and dry runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct AutoApprove;

impl Interviewer for AutoApprove {
    fn ask(&mut self, q: &Question) -> Answer {
        match q.ty {
            QuestionType::YesNo | QuestionType::Confirmation => Answer::of(AnswerValue::Yes),
            QuestionType::MultipleChoice if !q.options.is_empty() => Answer::choose(&q.options[0]),
            QuestionType::MultiSelect if !q.options.is_empty() => {
                Answer::choose_many(&q.options[..1])
            }
            _ => Answer::text("auto-approved"),
        }
    }
}

/// Delegates each question to a function (a web UI, a chat bot, a test).
pub struct Callback<F: FnMut(&Question) -> Answer>(pub F);

impl<F: FnMut(&Question) -> Answer> Interviewer for Callback<F> {
    fn ask(&mut self, q: &Question) -> Answer {
        (self.0)(q)
    }
}

/// One question and its answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Exchange {
    /// The question.
    pub question: Question,
    /// The answer.
    pub answer: Answer,
}

/// Wraps another interviewer and records every question and answer, in
/// memory and, when given a log, as one JSON line per exchange (flushed
/// at once, so a killed run keeps what was answered).
pub struct Recording<I: Interviewer> {
    inner: I,
    exchanges: Vec<Exchange>,
    log: Option<Box<dyn Write + Send>>,
}

impl<I: Interviewer> Recording<I> {
    /// Records what `inner` is asked and answers.
    pub fn new(inner: I) -> Self {
        Recording {
            inner,
            exchanges: Vec::new(),
            log: None,
        }
    }

    /// Also appends each exchange to `log` as a JSON line.
    pub fn with_log(mut self, log: impl Write + Send + 'static) -> Self {
        self.log = Some(Box::new(log));
        self
    }

    /// The exchanges so far, oldest first.
    pub fn exchanges(&self) -> &[Exchange] {
        &self.exchanges
    }

    /// The wrapped interviewer.
    pub fn into_inner(self) -> I {
        self.inner
    }
}

impl<I: Interviewer> Interviewer for Recording<I> {
    fn ask(&mut self, q: &Question) -> Answer {
        let answer = self.inner.ask(q);
        let ex = Exchange {
            question: q.clone(),
            answer: answer.clone(),
        };
        if let Some(log) = &mut self.log
            && let Ok(line) = serde_json::to_string(&ex)
        {
            // The recording is an audit aid: a full disk must not change
            // the answer the run goes on with.
            let _ = writeln!(log, "{line}").and_then(|()| log.flush());
        }
        self.exchanges.push(ex);
        answer
    }

    fn inform(&mut self, message: &str, stage: &str) {
        self.inner.inform(message, stage);
    }
}
