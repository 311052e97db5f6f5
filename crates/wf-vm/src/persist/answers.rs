//! Answers in the run's log: `wfc answer` appends `{"answer": {...}}`
//! lines (a [`AnswerRecord`]) after the step that suspended; they are not
//! steps, and the step readers skip them (checking that they parse).

use std::fs::OpenOptions;
use std::io::{self, Write as _};
use std::path::Path;

use serde::Deserialize;

use super::{LOG, PersistError, RunDir, io_err, read_lines_file};
use crate::question::AnswerRecord;

const PREFIX: &[u8] = br#"{"answer":"#;

/// Whether a log line is an answer record.
pub(super) fn is_answer(line: &[u8]) -> bool {
    line.starts_with(PREFIX)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    answer: AnswerRecord,
}

/// The answer record of line `line` of `path`; a corrupt one is an error
/// naming the line.
pub(super) fn parse(bytes: &[u8], path: &Path, line: usize) -> Result<AnswerRecord, PersistError> {
    let corrupt = |message: String| PersistError::Corrupt {
        path: path.to_owned(),
        line: Some(line),
        message,
    };
    let rec = serde_json::from_slice::<Line>(bytes)
        .map_err(|e| corrupt(format!("not an answer record: {e}")))?
        .answer;
    if !rec.is_one_kind() {
        return Err(corrupt(format!(
            "the answer to `{}` must hold exactly one of `choice`, `choices` and `text`",
            rec.question
        )));
    }
    Ok(rec)
}

impl RunDir {
    /// The answers recorded after the log's last step: those the next
    /// resume may use (an earlier one was used, or was for a question the
    /// run no longer waits on); of two answers to one question, the later
    /// (answering again replaces an answer). A torn last line is ignored.
    pub fn answers(&self) -> Result<Vec<AnswerRecord>, PersistError> {
        Ok(self.unspent()?.0.into_iter().map(|(_, a)| a).collect())
    }

    /// [`RunDir::answers`], each with the 0-based index of its log line,
    /// and the number of complete lines the log has.
    pub(super) fn unspent(&self) -> Result<(Vec<(usize, AnswerRecord)>, usize), PersistError> {
        let path = self.file(LOG);
        let (bytes, complete) = read_lines_file(&path)?;
        let mut out: Vec<(usize, AnswerRecord)> = Vec::new();
        let mut lines = 0;
        for (i, line) in bytes[..complete].split(|&b| b == b'\n').enumerate() {
            if line.is_empty() {
                continue;
            }
            lines = i + 1;
            if is_answer(line) {
                let a = parse(line, &path, i + 1)?;
                out.retain(|(_, o)| o.question != a.question || o.workflow != a.workflow);
                out.push((i, a));
            } else {
                // A step: the answers before it are spent.
                out.clear();
            }
        }
        Ok((out, lines))
    }

    /// Appends `answer` to the log and syncs it. Needs the lock (a
    /// directory opened with [`RunDir::open`]): the run is not running.
    pub fn append_answer(&self, answer: &AnswerRecord) -> Result<(), PersistError> {
        let path = self.file(LOG);
        if self.lock.is_none() {
            let error = io::Error::new(
                io::ErrorKind::PermissionDenied,
                "the run directory is open read-only",
            );
            return Err(io_err(&path, "append to")(error));
        }
        // A torn last line (a killed writer) is cut first, so the answer
        // starts a line of its own.
        self.read_log()?;
        let mut line = serde_json::to_vec(&serde_json::json!({ "answer": answer }))
            .expect("answers serialise");
        line.push(b'\n');
        let mut f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(io_err(&path, "open"))?;
        f.write_all(&line).map_err(io_err(&path, "append to"))?;
        f.sync_data().map_err(io_err(&path, "sync"))
    }
}
