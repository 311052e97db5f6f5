//! The console interviewer: questions on a writer (standard error for
//! `wfc run`, so standard output stays the event stream), answers from a
//! line reader (standard input).
//!
//! Standard input is read in place, one line per answer, through the
//! process's shared `Stdin` (so the console agent and the interviewer take
//! turns on the same lines, in order). A question with a timeout first
//! waits for input with `poll(2)` (Unix; elsewhere timeouts are not
//! enforced on standard input). Lines a pipe delivered earlier may sit in
//! `Stdin`'s buffer where `poll` cannot see them, so timeouts are meant
//! for terminals; scripted runs use `--interviewer answers:FILE`.
//!
//! Any other reader ([`Console::new`], for tests and embedders) is read by
//! a background thread into a channel, which `recv_timeout` waits on.

use std::io::{BufRead, Write};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use super::{Answer, AnswerValue, Interviewer, Question, QuestionType};

/// Reads answers from a terminal (see the module docs).
pub struct Console {
    input: Input,
    out: Box<dyn Write + Send>,
}

enum Input {
    Stdin,
    Lines(Receiver<String>),
}

/// Why no line came.
enum NoLine {
    Timeout,
    End,
}

impl Console {
    /// Standard input and standard error.
    pub fn stdio() -> Self {
        Console {
            input: Input::Stdin,
            out: Box::new(std::io::stderr()),
        }
    }

    /// Answers from `input`, questions to `out`.
    pub fn new(input: impl BufRead + Send + 'static, out: impl Write + Send + 'static) -> Self {
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in input.lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Console {
            input: Input::Lines(rx),
            out: Box::new(out),
        }
    }

    /// The next line, waiting at most until `deadline`.
    fn line(&mut self, deadline: Option<Instant>) -> Result<String, NoLine> {
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        match &self.input {
            Input::Lines(rx) => match left {
                None => rx.recv().map_err(|_| NoLine::End),
                Some(t) => rx.recv_timeout(t).map_err(|e| match e {
                    RecvTimeoutError::Timeout => NoLine::Timeout,
                    RecvTimeoutError::Disconnected => NoLine::End,
                }),
            },
            Input::Stdin => {
                if let Some(t) = left
                    && !stdin_ready(t)
                {
                    return Err(NoLine::Timeout);
                }
                let mut line = String::new();
                match std::io::stdin().lock().read_line(&mut line) {
                    Ok(0) | Err(_) => Err(NoLine::End),
                    Ok(_) => Ok(line.trim_end_matches(['\n', '\r']).to_owned()),
                }
            }
        }
    }

    fn say(&mut self, text: &str) {
        // A closed terminal is not worth failing the run for: the read that
        // follows sees the end of input and the question is skipped.
        let _ = self.out.write_all(text.as_bytes());
        let _ = self.out.flush();
    }

    fn show(&mut self, q: &Question) {
        let mut s = format!("[?] {}\n", q.text);
        for o in &q.options {
            s.push_str(&format!("  {}\n", super::display_option(o)));
        }
        if let Some(t) = q.timeout {
            s.push_str(&format!("  (answer within {} s)\n", t.as_secs_f64()));
        }
        s.push_str(match q.ty {
            QuestionType::MultipleChoice => "Select: ",
            QuestionType::MultiSelect => "Select one or more (comma-separated): ",
            QuestionType::YesNo | QuestionType::Confirmation => "[Y/N]: ",
            QuestionType::Freeform => "> ",
        });
        self.say(&s);
    }
}

impl Interviewer for Console {
    fn ask(&mut self, q: &Question) -> Answer {
        self.show(q);
        // A timeout past the clock's range waits for as long as it takes.
        let deadline = q.timeout.and_then(|t| Instant::now().checked_add(t));
        loop {
            match self.line(deadline) {
                Ok(line) => {
                    if let Some(a) = Answer::parse(q, &line) {
                        return a;
                    }
                    let keys: Vec<&str> = q.options.iter().map(|o| o.key.as_str()).collect();
                    let hint = match q.ty {
                        QuestionType::MultipleChoice => {
                            format!("type one of {} (or the option's label)", keys.join(", "))
                        }
                        QuestionType::MultiSelect => format!(
                            "type one or more of {}, separated by commas",
                            keys.join(", ")
                        ),
                        _ => "type y or n".to_owned(),
                    };
                    self.say(&format!("`{}` is not an answer: {hint}\n", line.trim()));
                    self.show(q);
                }
                Err(NoLine::Timeout) => {
                    self.say("\n(no answer in time)\n");
                    return q
                        .default
                        .clone()
                        .unwrap_or(Answer::of(AnswerValue::Timeout));
                }
                // End of input: nobody is there to answer.
                Err(NoLine::End) => {
                    self.say("\n(end of input: no answer)\n");
                    return Answer::of(AnswerValue::Pending);
                }
            }
        }
    }

    fn inform(&mut self, message: &str, stage: &str) {
        self.say(&format!("[{stage}] {message}\n"));
    }
}

/// Whether standard input has something to read within `wait`.
#[cfg(unix)]
pub(crate) fn stdin_ready(wait: Duration) -> bool {
    let mut fd = libc::pollfd {
        fd: 0,
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = wait.as_millis().min(i32::MAX as u128) as i32;
    // SAFETY: one valid pollfd, its count, a bounded timeout.
    let n = unsafe { libc::poll(&mut fd, 1, ms) };
    // An error (EINTR, …) reads rather than reporting a timeout that did
    // not happen; end of input and hang-ups are readable.
    n != 0
}

/// Without `poll`, timeouts on standard input are not enforced.
#[cfg(not(unix))]
pub(crate) fn stdin_ready(_wait: Duration) -> bool {
    true
}
