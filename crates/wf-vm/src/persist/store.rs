//! [`RunStore`] for [`RunDir`]: the embedded store, a directory of files
//! (module docs of `persist`). Effects are lines of the log between its
//! step records; questions are JSON lines of their own (`questions.jsonl`),
//! synced when written; answers are lines of the log (`{"answer": …}`),
//! which the next step spends.

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use wf_ir::IrProgram;

use super::{LOG, LogRecord, PersistError, RunDir, io_err, lock, read_lines_file};
use crate::effects::EffectRecord;
use crate::engine::Snapshot;
use crate::question::AnswerRecord;
use crate::store::{Lease, QuestionRecord, RunStore, StorePart};

const QUESTIONS: &str = "questions.jsonl";

impl RunDir {
    /// Appends `line` (without its line break) to file `name` with one
    /// `write`, opening it first when needed.
    fn append_line(&mut self, name: &str, line: &[u8], sync: bool) -> Result<(), PersistError> {
        // The log's path is built only to open it or to name it in an
        // error: not once per step.
        let file = match &self.log {
            Some(log) if name == LOG => log.clone(),
            _ => {
                let path = self.file(name);
                self.check_writable(&path)?;
                let file = Arc::new(open_append(&path)?);
                if name == LOG {
                    self.log = Some(file.clone());
                }
                file
            }
        };
        self.line.clear();
        self.line.extend_from_slice(line);
        self.line.push(b'\n');
        (&*file)
            .write_all(&self.line)
            .map_err(|e| io_err(&self.file(name), "append to")(e))?;
        if sync {
            file.sync_data()
                .map_err(|e| io_err(&self.file(name), "sync")(e))?;
        }
        Ok(())
    }

    /// The complete lines of JSON-lines file `name` (none when missing).
    fn lines_of(&self, name: &str) -> Result<Vec<Value>, PersistError> {
        let path = self.file(name);
        let (bytes, complete) = read_lines_file(&path)?;
        let mut out = Vec::new();
        for (i, line) in bytes[..complete].split(|&b| b == b'\n').enumerate() {
            if line.is_empty() {
                continue;
            }
            out.push(
                serde_json::from_slice(line).map_err(|e| PersistError::Corrupt {
                    path: path.clone(),
                    line: Some(i + 1),
                    message: e.to_string(),
                })?,
            );
        }
        Ok(out)
    }

    fn lease(&self) -> Lease {
        Lease {
            holder: format!("process {}", std::process::id()),
            token: 0,
            expires_ms: None,
        }
    }
}

fn open_append(path: &PathBuf) -> Result<File, PersistError> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(io_err(path, "open"))
}

/// A run directory's lease is its OS lock: it never lapses while the
/// process lives, so `ttl` is ignored, the token is always 0 and the
/// holder is the process. Releasing gives up this handle's share of the
/// lock; the OS frees it when no handle (clone) holds it.
impl RunStore for RunDir {
    fn append(&mut self, _step: u64, record: &[u8]) -> Result<(), PersistError> {
        self.append_line(LOG, record, false)
    }

    fn sync(&mut self) -> Result<(), PersistError> {
        match &self.log {
            Some(f) => f.sync_data().map_err(io_err(&self.file(LOG), "sync")),
            None => Ok(()),
        }
    }

    fn write_snapshot(&mut self, snap: &Snapshot) -> Result<(), PersistError> {
        RunDir::write_snapshot(self, snap)
    }

    fn write_start(&mut self, snap: &Snapshot) -> Result<(), PersistError> {
        RunDir::write_start(self, snap)
    }

    fn record_effect(&mut self, record: &EffectRecord, sync: bool) -> Result<(), PersistError> {
        let line = serde_json::to_vec(record).expect("effect records serialise");
        self.append_line(LOG, &line, sync)
    }

    fn effects(&self) -> Result<Vec<EffectRecord>, PersistError> {
        crate::effects::read_effects(self)
    }

    /// A question line of `questions.jsonl` notes how many lines the log
    /// had (`after`): only an answer after it answers this asking.
    fn record_question(&mut self, id: &str, question: &Value) -> Result<(), PersistError> {
        let after = self.unspent()?.1;
        let line = serde_json::to_vec(&json!({"id": id, "question": question, "after": after}))
            .expect("JSON serialises");
        self.append_line(QUESTIONS, &line, true)
    }

    /// The answer is an [`AnswerRecord`] for question `id`, appended to the
    /// log as `{"answer": …}` (the format `wfc answer` always wrote, so
    /// older run directories resume alike); a step logged after it spends
    /// it.
    fn record_answer(&mut self, id: &str, answer: &Value) -> Result<(), PersistError> {
        if !self.questions()?.iter().any(|q| q.id == id) {
            return Err(PersistError::UnknownQuestion(id.to_owned()));
        }
        let corrupt = |message: String| PersistError::Corrupt {
            path: self.file(LOG),
            line: None,
            message,
        };
        let record: AnswerRecord = serde_json::from_value(answer.clone())
            .map_err(|e| corrupt(format!("not an answer record: {e}")))?;
        if record.question != id || !record.is_one_kind() {
            return Err(corrupt(format!(
                "the answer to `{id}` must name it and hold exactly one of `choice`, `choices` and `text`"
            )));
        }
        self.append_answer(&record)
    }

    /// The questions of `questions.jsonl`, each with the answer recorded
    /// for it since it was asked and not spent by a later step; an answer
    /// with no question line (a run directory of an older `wfc answer`)
    /// is listed with a null question.
    fn questions(&self) -> Result<Vec<QuestionRecord>, PersistError> {
        let mut out: Vec<(QuestionRecord, usize)> = Vec::new();
        for mut v in self.lines_of(QUESTIONS)? {
            let id = v["id"].as_str().unwrap_or_default().to_owned();
            let at = out.iter().position(|(q, _)| q.id == id);
            let after = v["after"].as_u64().unwrap_or(0) as usize;
            let Some(q) = v.get_mut("question") else {
                continue;
            };
            let question = q.take();
            let record = QuestionRecord {
                id,
                question,
                answer: None,
            };
            match at {
                Some(i) => out[i] = (record, after),
                None => out.push((record, after)),
            }
        }
        for (line, a) in self.unspent()?.0 {
            let value = serde_json::to_value(&a).expect("answers serialise");
            match out.iter_mut().find(|(q, _)| q.id == a.question) {
                Some((q, after)) if line >= *after => q.answer = Some(value),
                Some(_) => {}
                None => out.push((
                    QuestionRecord {
                        id: a.question.clone(),
                        question: Value::Null,
                        answer: Some(value),
                    },
                    line,
                )),
            }
        }
        Ok(out.into_iter().map(|(q, _)| q).collect())
    }

    fn take_lock(&mut self, _holder: &str, _ttl: Duration) -> Result<Lease, PersistError> {
        if self.lock.is_none() {
            self.lock = Some(lock(&self.path)?);
        }
        Ok(self.lease())
    }

    fn renew_lock(&mut self, _ttl: Duration) -> Result<Lease, PersistError> {
        match self.lock {
            Some(_) => Ok(self.lease()),
            None => Err(PersistError::LockLost {
                run: self.path.display().to_string(),
                holder: self.lock_holder()?,
            }),
        }
    }

    fn release_lock(&mut self) -> Result<(), PersistError> {
        self.lock = None;
        self.log = None;
        Ok(())
    }

    fn lock_holder(&self) -> Result<Option<String>, PersistError> {
        Ok(self.holder()?.map(|pid| match pid {
            Some(pid) => format!("process {pid}"),
            None => "another process".to_owned(),
        }))
    }

    fn program(&self) -> Result<IrProgram, PersistError> {
        RunDir::program(self)
    }

    fn read_snapshot(&self) -> Result<Snapshot, PersistError> {
        RunDir::read_snapshot(self)
    }

    fn read_start(&self) -> Result<Option<Snapshot>, PersistError> {
        RunDir::read_start(self)
    }

    fn read_log_from(&self, from: u64) -> Result<Vec<(usize, LogRecord)>, PersistError> {
        self.read_log_after(from)
    }

    fn journal_dir(&self) -> Option<std::path::PathBuf> {
        Some(self.path().to_path_buf())
    }

    fn corrupt(&self, part: StorePart, position: Option<usize>, message: String) -> PersistError {
        let name = match part {
            StorePart::Log => LOG,
            StorePart::Snapshot => super::SNAPSHOT,
            StorePart::Start => super::START,
            StorePart::Program => super::PROGRAM,
        };
        PersistError::Corrupt {
            path: self.file(name),
            line: position,
            message,
        }
    }
}
