//! `wfc answer DIR [--question ID] CHOICE | --text TEXT`: records the
//! answer to the question a suspended run waits on, in the run's log,
//! under the run's lock (docs/runtime.md, "Answering a suspended run").

use std::path::PathBuf;

use clap::Args;
use wf_ir::IrProgram;
use wf_vm::question::{AnswerRecord, PendingQuestion, QuestionKind, pending};
use wf_vm::{Engine, EngineConfig, PersistError, RunDir, RunStatus};

use crate::{EXIT_CLEAN, EXIT_TROUBLE};

/// Arguments of `wfc answer`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Records the answer to a question a suspended run waits on (`wfc status DIR`
lists them, with their ids) in the run's log; `wfc run --resume DIR` then
goes on, applying it to the node that asked and to no other.

  wfc answer runs/1 approve                 a choice: its key, label or number
  wfc answer runs/1 --question review#2 A   naming the question
  wfc answer runs/1 --text \"ship on Monday\" a freeform question
  wfc answer runs/1 L W                     a multi-select question: several

The question is checked: the run must be suspended on it, not held by a
process, and the choice one of its options. Answering again before the run
resumes replaces the answer.

Exit status: 0 recorded; 2 nothing recorded (the reason is printed).")]
pub struct AnswerArgs {
    /// The run directory (`wfc run --run-dir DIR`).
    dir: PathBuf,
    /// The option chosen: its key (`A`), its label (`approve`) or its
    /// number (`1`); several for a multi-select question (`L M`).
    #[arg(
        value_name = "CHOICE",
        conflicts_with = "text",
        required_unless_present = "text"
    )]
    choices: Vec<String>,
    /// The question's id, as `wfc status` shows it (`review#1`: the node
    /// and its visit). Default: the one question the run waits on.
    #[arg(long, value_name = "ID")]
    question: Option<String>,
    /// Free text, for a freeform question.
    #[arg(long, value_name = "TEXT")]
    text: Option<String>,
}

/// Runs `wfc answer` and returns the exit status.
pub fn run(args: AnswerArgs) -> u8 {
    match answer(&args) {
        Ok(message) => {
            println!("{message}");
            EXIT_CLEAN
        }
        Err(message) => {
            eprintln!("error: {message}");
            EXIT_TROUBLE
        }
    }
}

fn answer(args: &AnswerArgs) -> Result<String, String> {
    let shown = args.dir.display();
    // The lock: a running process may not be answered under its feet.
    let dir = RunDir::open(&args.dir).map_err(|e| match e {
        PersistError::InUse { .. } => format!(
            "{e}\n  help: the run is in progress; answer it once it has suspended (`wfc status {shown}`)"
        ),
        PersistError::NotFound(_) => {
            format!("{e}\n  help: give the directory of `wfc run --run-dir DIR`")
        }
        e => format!("cannot read the run: {e}"),
    })?;
    let program = dir
        .program()
        .map_err(|e| format!("cannot read the run: {e}"))?;
    let mut engine = Engine::inspect(&program, &dir, EngineConfig::default())
        .map_err(|e| format!("cannot read the run: {e}"))?;
    let status = engine.report().status;
    let question = pending(&program, &mut engine);
    let q = match (&status, question) {
        (_, Some(q)) => q,
        (RunStatus::Suspended { reason }, None) => {
            return Err(format!(
                "the run in {shown} waits on no question: it suspended because {reason}\n  \
                 help: `wfc run --resume {shown}` continues it"
            ));
        }
        (RunStatus::Completed, None) => {
            return Err(format!("the run in {shown} is not suspended: it completed"));
        }
        (RunStatus::Failed { .. }, None) => {
            return Err(format!("the run in {shown} is not suspended: it failed"));
        }
        (_, None) => {
            return Err(format!(
                "the run in {shown} is not suspended: it was interrupted mid-way\n  \
                 help: `wfc run --resume {shown}` continues it"
            ));
        }
    };
    if let Some(id) = &args.question
        && *id != q.id
    {
        return Err(format!(
            "the run in {shown} does not wait on question `{id}`: it waits on `{}` (node `{}`, visit {})\n  \
             help: `wfc status {shown}` lists the questions",
            q.id, q.node, q.visit
        ));
    }
    let record = AnswerRecord::new(&q, &args.choices, args.text.as_deref())?;
    dir.append_answer(&record)
        .map_err(|e| format!("cannot record the answer: {e}"))?;
    let many: Vec<String> = record
        .choices
        .iter()
        .map(|c| format!("`{}`", c.label))
        .collect();
    let what = match (&record.choice, &record.text) {
        (Some(c), _) => format!("`{}`", c.label),
        (None, Some(t)) => format!("the text `{}`", t.replace(['\n', '\r'], " ")),
        _ => many.join(", "),
    };
    Ok(format!(
        "recorded {what} as the answer to question `{}` (node `{}`)\nhint: continue the run with `wfc run --resume {shown}`",
        q.id, q.node
    ))
}

/// The answers recorded since the run in `dir` suspended, checked against
/// its program (a `wfc run --resume` error otherwise).
pub fn recorded(dir: &RunDir, program: &IrProgram) -> Result<Vec<AnswerRecord>, String> {
    let answers = dir
        .answers()
        .map_err(|e| format!("error: cannot resume: {e}"))?;
    for a in &answers {
        a.verify(program).map_err(|e| {
            format!(
                "error: cannot resume: `{}` is corrupt: {e}",
                dir.log_path().display()
            )
        })?;
    }
    Ok(answers)
}

/// The hint for a run suspended on question `q`: the `wfc answer` command.
pub fn hint(dir: &str, q: &PendingQuestion) -> String {
    let example = match q.kind {
        QuestionKind::Freeform => "--text TEXT".to_owned(),
        QuestionKind::Choice | QuestionKind::Multiple => q
            .options
            .first()
            .map_or("CHOICE".to_owned(), |o| shell_word(&o.key)),
    };
    format!(
        "hint: the run waits on question `{}` at node `{}`: answer it with `wfc answer {dir} --question {} {example}`, then `wfc run --resume {dir}`\n",
        q.id,
        q.node,
        shell_word(&q.id)
    )
}

/// `word`, quoted for a POSIX shell when it needs it.
fn shell_word(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "#-_./:@".contains(c))
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}
