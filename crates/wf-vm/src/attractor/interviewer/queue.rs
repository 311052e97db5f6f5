//! The queue interviewer and its answers file, for scripted runs and tests.

use std::collections::VecDeque;
use std::path::Path;

use super::{Answer, AnswerValue, Interviewer, Question};

/// Answers from a pre-filled queue, one per question in order; an empty
/// queue answers [`AnswerValue::Pending`] (nobody is there to answer; the
/// seed's 6.4 says `Skipped`, which `!skip` gives).
///
/// Entries are kept as typed text and read against the question when it
/// is asked, so `A`, `approve` and `1` all choose `[A] Approve`. An entry
/// that fits the question in no way is answered as
/// [`AnswerValue::Value`] with no selected option, and the `wait.human`
/// gate then fails, naming the answer and the choices.
#[derive(Debug, Clone, Default)]
pub struct Queue {
    entries: VecDeque<Entry>,
}

#[derive(Debug, Clone)]
enum Entry {
    Text(String),
    Ready(Answer),
}

impl Queue {
    /// A queue of ready answers.
    pub fn new(answers: impl IntoIterator<Item = Answer>) -> Self {
        Queue {
            entries: answers.into_iter().map(Entry::Ready).collect(),
        }
    }

    /// A queue of typed answers, parsed like answers-file lines.
    pub fn from_lines<'a>(lines: impl IntoIterator<Item = &'a str>) -> Self {
        let mut q = Queue::default();
        for line in lines {
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            q.entries.push_back(match t {
                "!skip" => Entry::Ready(Answer::of(AnswerValue::Skipped)),
                "!timeout" => Entry::Ready(Answer::of(AnswerValue::Timeout)),
                _ => Entry::Text(t.to_owned()),
            });
        }
        q
    }

    /// The answers file: one answer per line, in the order the questions
    /// are asked; blank lines and lines starting with `#` are ignored;
    /// `!skip` and `!timeout` stand for a skipped and a timed-out question.
    pub fn from_file(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the answers file {}: {e}", path.display()))?;
        Ok(Queue::from_lines(text.lines()))
    }

    /// Answers not used yet.
    pub fn remaining(&self) -> usize {
        self.entries.len()
    }
}

impl Interviewer for Queue {
    fn ask(&mut self, q: &Question) -> Answer {
        match self.entries.pop_front() {
            None => Answer::of(AnswerValue::Pending),
            Some(Entry::Ready(a)) => a,
            Some(Entry::Text(t)) => Answer::parse(q, &t).unwrap_or(Answer {
                value: AnswerValue::Value(t),
                selected_option: None,
                selected_options: Vec::new(),
                text: None,
            }),
        }
    }
}
