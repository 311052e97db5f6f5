//! `wfc answer DIR [--question ID] CHOICE | --text TEXT`: records the
//! answer to a question a suspended run waits on, through the run's store
//! (a run directory: a line of its log), under the run's lock
//! (docs/runtime.md, "Answering a suspended run", "Gates in parallel
//! branches").

use std::path::PathBuf;

use clap::Args;
use wf_ir::IrProgram;
use wf_vm::question::{AnswerRecord, PendingQuestion, QuestionKind, pending};
use wf_vm::{Engine, EngineConfig, PersistError, RunDir, RunStatus, RunStore};

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
process, and the choice one of its options. A run whose parallel branches
wait at gates waits on several questions: name each with --question.
Answering again before the run resumes replaces the answer.

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
    /// and its visit; `fan#1/a/review#1` in a parallel branch). Default:
    /// the one question the run waits on (required when it waits on
    /// several).
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
    let mut dir = RunDir::open(&args.dir).map_err(|e| match e {
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
    let questions =
        waiting_on(&program, &mut engine, &dir).map_err(|e| format!("cannot read the run: {e}"))?;
    let steps = engine.steps();
    drop(engine);
    if questions.is_empty() {
        return Err(match &status {
            RunStatus::Suspended { reason } => format!(
                "the run in {shown} waits on no question: it suspended because {reason}\n  \
                 help: `wfc run --resume {shown}` continues it"
            ),
            RunStatus::Completed => format!("the run in {shown} is not suspended: it completed"),
            RunStatus::Failed { .. } => format!("the run in {shown} is not suspended: it failed"),
            _ => format!(
                "the run in {shown} is not suspended: it was interrupted mid-way\n  \
                 help: `wfc run --resume {shown}` continues it"
            ),
        });
    }
    let listed = || {
        questions
            .iter()
            .map(|(q, _)| format!("`{}` ({})", q.id, where_(q)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let q = match (&args.question, &questions[..]) {
        (Some(id), _) => match questions.iter().find(|(q, _)| q.id == *id) {
            Some((q, _)) => q,
            None if questions.len() == 1 => {
                let q = &questions[0].0;
                return Err(format!(
                    "the run in {shown} does not wait on question `{id}`: it waits on `{}` (node `{}`, visit {})\n  \
                     help: `wfc status {shown}` lists the questions",
                    q.id, q.node, q.visit
                ));
            }
            None => {
                return Err(format!(
                    "the run in {shown} does not wait on question `{id}`: it waits on {}\n  \
                     help: `wfc status {shown}` lists the questions",
                    listed()
                ));
            }
        },
        (None, [(q, _)]) => q,
        (None, _) => {
            return Err(format!(
                "the run in {shown} waits on {} questions: {}\n  \
                 help: name the one you answer with --question ID (`wfc status {shown}` lists them)",
                questions.len(),
                listed()
            ));
        }
    };
    let record = AnswerRecord::new(q, &args.choices, args.text.as_deref())?;
    // Through the run's store: the question (once), then the answer.
    let known = wf_vm::question::current(&dir, steps)
        .map_err(|e| format!("cannot read the run: {e}"))?
        .iter()
        .any(|(k, _)| k.id == q.id);
    if !known {
        wf_vm::question::record(&mut dir, steps, std::slice::from_ref(q))
            .map_err(|e| format!("cannot record the question: {e}"))?;
    }
    let value = serde_json::to_value(&record).expect("answers serialise");
    dir.record_answer(&q.id, &value)
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
        "recorded {what} as the answer to question `{}` ({})\nhint: continue the run with `wfc run --resume {shown}`",
        q.id,
        where_(q)
    ))
}

/// Where question `q` is asked, for people: `node `review``, and the
/// branch it waits in.
pub fn where_(q: &PendingQuestion) -> String {
    match q.place.as_str() {
        "" => format!("node `{}`", q.node),
        place => format!("node `{}` in {place}", q.node),
    }
}

/// Every question the suspended run `engine` (read from `store`) waits
/// on, with the answer recorded for each so far: the one at the node it
/// stands at (derived from its state, as older run directories have
/// none recorded), then those recorded when it suspended (the gates of
/// its parallel branches).
pub fn waiting_on(
    program: &IrProgram,
    engine: &mut Engine<'_>,
    store: &dyn RunStore,
) -> Result<Vec<(PendingQuestion, Option<AnswerRecord>)>, PersistError> {
    if !matches!(engine.report().status, RunStatus::Suspended { .. }) {
        return Ok(Vec::new());
    }
    let mut out = wf_vm::question::current(store, engine.steps())?;
    if let Some(q) = pending(program, engine)
        && !out.iter().any(|(o, _)| o.id == q.id)
    {
        let answer = wf_vm::question::answers(store)?
            .into_iter()
            .rfind(|a| a.question == q.id);
        out.insert(0, (q, answer));
    }
    Ok(out)
}

/// The answers recorded since the run in `dir` suspended, through its
/// store, checked against its program (a `wfc run --resume` error
/// otherwise).
pub fn recorded(dir: &RunDir, program: &IrProgram) -> Result<Vec<AnswerRecord>, String> {
    let answers =
        wf_vm::question::answers(dir).map_err(|e| format!("error: cannot resume: {e}"))?;
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

/// The hints of a run suspended on `questions`: one `wfc answer` command
/// each.
pub fn hints(dir: &str, questions: &[PendingQuestion]) -> String {
    match questions {
        [q] => hint(dir, q),
        _ => {
            let mut out = format!(
                "hint: the run waits on {} questions: answer each with `wfc answer {dir} --question ID …`, then `wfc run --resume {dir}`\n",
                questions.len()
            );
            for q in questions {
                out.push_str(&format!("  {}\n", command(dir, q)));
            }
            out
        }
    }
}

/// The `wfc answer` command of question `q`, with an example answer.
fn command(dir: &str, q: &PendingQuestion) -> String {
    let example = match q.kind {
        QuestionKind::Freeform => "--text TEXT".to_owned(),
        QuestionKind::Choice | QuestionKind::Multiple => q
            .options
            .first()
            .map_or("CHOICE".to_owned(), |o| shell_word(&o.key)),
    };
    format!(
        "wfc answer {dir} --question {} {example}",
        shell_word(&q.id)
    )
}

/// The hint for a run suspended on question `q`: the `wfc answer` command.
pub fn hint(dir: &str, q: &PendingQuestion) -> String {
    format!(
        "hint: the run waits on question `{}` at {}: answer it with `{}`, then `wfc run --resume {dir}`\n",
        q.id,
        where_(q),
        command(dir, q)
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
