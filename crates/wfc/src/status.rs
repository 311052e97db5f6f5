//! `wfc status DIR`: where a durable run stands, read from its snapshot and
//! log without taking the run's lock (docs/runtime.md section 9).

use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::{Value, json};
use wf_vm::attractor::interviewer::QuestionOption;
use wf_vm::question::{AnswerRecord, PendingQuestion};
use wf_vm::{Engine, EngineConfig, PersistError, RunDir, RunStatus};

use crate::run::resume::printable;
use crate::run::{SummaryFormat, suspending_error};
use crate::{EXIT_CLEAN, EXIT_TROUBLE};

/// Arguments of `wfc status`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Prints the state of the run in DIR (running, suspended, completed or failed),
as its log says: the workflow and node it stands at, the steps taken, the
error that suspended it and the questions it waits on. The run's lock is not
taken: a run in progress is shown as running, in use by its process.

Exit status: 0 the state was read; 2 DIR is missing, not a run directory, or
corrupt.")]
pub struct StatusArgs {
    /// The run directory (`wfc run --run-dir DIR`).
    dir: PathBuf,
    /// The output format.
    #[arg(long, value_enum, default_value_t = SummaryFormat::Human)]
    format: SummaryFormat,
}

/// Runs `wfc status` and returns the exit status.
pub fn run(args: StatusArgs) -> u8 {
    match status(&args.dir) {
        Ok(state) => {
            match args.format {
                SummaryFormat::Json => println!(
                    "{}",
                    serde_json::to_string_pretty(&state).expect("JSON serialises")
                ),
                SummaryFormat::Human => print!("{}", human(&state)),
            }
            EXIT_CLEAN
        }
        Err(message) => {
            eprintln!("error: {message}");
            EXIT_TROUBLE
        }
    }
}

/// The run's state as the JSON document `--format json` prints.
fn status(path: &Path) -> Result<Value, String> {
    let dir = RunDir::open_read_only(path).map_err(|e| match e {
        PersistError::NotFound(_) => {
            format!("{e}\n  help: give the directory of `wfc run --run-dir DIR`")
        }
        e => format!("cannot read the run: {e}"),
    })?;
    let holder = dir
        .holder()
        .map_err(|e| format!("cannot read the run: {e}"))?;
    // Loaded through the IR loader, which verifies it.
    let program = dir
        .program()
        .map_err(|e| format!("cannot read the run: {e}"))?;
    let mut engine = Engine::inspect(&program, &dir, EngineConfig::default())
        .map_err(|e| format!("cannot read the run: {e}"))?;
    let report = engine.report();
    let workflow = program.str(program.workflows[engine.root().0 as usize].name);
    let state = match (&report.status, holder) {
        // Its process is at work: whatever the log says last, it goes on.
        (_, Some(_)) => "running",
        (RunStatus::Completed, _) => "completed",
        (RunStatus::Failed { .. }, _) => "failed",
        (RunStatus::Suspended { .. }, _) => "suspended",
        // Logged as running, and nobody runs it: killed.
        _ => "interrupted",
    };
    let reason = match &report.status {
        RunStatus::Failed { reason } | RunStatus::Suspended { reason } => Some(reason.as_str()),
        _ => None,
    };
    let error = suspending_error(&report).map(|f| {
        json!({"kind": f.kind.as_str(), "code": f.kind.code(), "reason": f.reason,
               "workflow": f.workflow, "node": f.node})
    });
    // A run held by its process may be past the question already.
    let questions: Vec<Value> = match report.status {
        RunStatus::Suspended { .. } if error.is_none() && holder.is_none() => {
            crate::answer::waiting_on(&program, &mut engine, &dir)
                .map_err(|e| format!("cannot read the run: {e}"))?
                .iter()
                .map(|(q, a)| question_json(q, a.as_ref(), &path.display().to_string()))
                .collect()
        }
        _ => Vec::new(),
    };
    let origin = dir
        .read_start()
        .map_err(|e| format!("cannot read the run: {e}"))?
        .and_then(|start| start.origin);
    let mut state = json!({
        "dir": path.display().to_string(),
        "run_id": engine.run_id(),
        "state": state,
        "in_use_by": holder.map(|pid| pid.map_or(Value::Null, Value::from)),
        "workflow": workflow,
        "at": report.at,
        "steps": report.steps,
        "reason": reason,
        "kind": report.kind.map(|k| k.as_str()),
        "code": report.kind.map(|k| k.code()),
        "error": error,
        "questions": questions,
    });
    // Only for a run that started elsewhere (`--from`, `--fork`).
    if let Some(origin) = origin {
        state["origin"] = serde_json::to_value(origin).expect("JSON serialises");
    }
    // The at_most_once nodes a kill interrupted (docs/runtime.md 11.3):
    // only when there are some; `unsettled_effect` is the first, as before
    // several could wait.
    let pending = engine.pending_effects();
    if let Some(p) = pending.first() {
        state["unsettled_effect"] = json!({"workflow": p.workflow, "node": p.node, "step": p.step});
        let all: Vec<Value> = (pending.iter())
            .map(|p| json!({"workflow": p.workflow, "node": p.node, "step": p.step}))
            .collect();
        state["unsettled_effects"] = Value::Array(all);
    }
    Ok(state)
}

/// A pending question as `wfc status --format json` shows it: its id,
/// node, text, kind and options, the answers recorded for it so far, and
/// the `wfc answer` command.
fn question_json(q: &PendingQuestion, answer: Option<&AnswerRecord>, dir: &str) -> Value {
    let answered = answer.map(|a| {
        let mut v = json!({});
        if let Some(c) = &a.choice {
            v["choice"] = json!({"key": c.key, "label": c.label});
        }
        if !a.choices.is_empty() {
            v["choices"] = json!(
                a.choices
                    .iter()
                    .map(|o| json!({"key": o.key, "label": o.label}))
                    .collect::<Vec<_>>()
            );
        }
        if let Some(t) = &a.text {
            v["text"] = json!(t);
        }
        v
    });
    json!({
        "id": q.id,
        "place": (!q.place.is_empty()).then_some(&q.place),
        "answer": answered,
        "workflow": q.workflow,
        "node": q.node,
        "visit": q.visit,
        "text": q.text,
        "kind": q.kind.as_str(),
        "options": q.options.iter().map(|o| json!({"key": o.key, "label": o.label})).collect::<Vec<_>>(),
        "hint": crate::answer::hint(dir, q).trim_end().trim_start_matches("hint: "),
    })
}

/// The human rendering of [`status`]'s document.
fn human(state: &Value) -> String {
    let text = |v: &Value| v.as_str().unwrap_or("?").to_owned();
    let mut out = format!("{}: {}", text(&state["dir"]), text(&state["state"]));
    // A signal's graceful stop (WF0931) is a suspension of its own kind.
    let interrupted = state["state"] == "suspended" && state["error"]["kind"] == "interrupted";
    if interrupted {
        out.push_str(" (interrupted)");
    }
    if let Some(pid) = state["in_use_by"].as_u64() {
        out.push_str(&format!(" (in use by process {pid})"));
    } else if !state["in_use_by"].is_null() {
        out.push_str(" (in use by another process)");
    }
    out.push('\n');
    if let Some(id) = state["run_id"].as_str() {
        out.push_str(&format!("run: {}\n", printable(id)));
    }
    out.push_str(&format!("workflow: {}\n", text(&state["workflow"])));
    // `start.json` is untrusted: its text is shown escaped.
    let origin = |k: &str| printable(&text(&state["origin"][k]));
    match state["origin"]["kind"].as_str() {
        Some("from") => out.push_str(&format!("started: at node `{}` (--from)\n", origin("node"))),
        Some("fork") => out.push_str(&format!(
            "started: forked from `{}` at step {}\n",
            origin("dir"),
            state["origin"]["step"]
        )),
        _ => {}
    }
    if let Some(at) = state["at"].as_object() {
        out.push_str(&format!(
            "at: node `{}` of workflow `{}`\n",
            text(&at["node"]),
            text(&at["workflow"])
        ));
    }
    out.push_str(&format!("steps: {}\n", state["steps"]));
    if let Some(error) = state["error"].as_object() {
        out.push_str(&format!(
            "error: {} ({} {}): {}\n",
            text(&error["kind"]),
            text(&error["code"]),
            error_name(&error["code"]),
            text(&error["reason"])
        ));
    } else if let Some(reason) = state["reason"].as_str() {
        match state["code"].as_str() {
            Some(code) => out.push_str(&format!("reason ({code}): {reason}\n")),
            None => out.push_str(&format!("reason: {reason}\n")),
        }
    }
    let questions = state["questions"].as_array().map_or(&[][..], Vec::as_slice);
    for q in questions {
        let place = q["place"]
            .as_str()
            .map(|p| format!(" in {}", printable(p)))
            .unwrap_or_default();
        out.push_str(&format!(
            "question `{}` ({}) at node `{}`{place}: {}\n",
            text(&q["id"]),
            text(&q["kind"]),
            text(&q["node"]),
            text(&q["text"])
        ));
        let options: Vec<String> = q["options"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|o| {
                wf_vm::attractor::interviewer::display_option(&QuestionOption {
                    key: text(&o["key"]),
                    label: text(&o["label"]),
                })
            })
            .collect();
        if !options.is_empty() {
            out.push_str(&format!("  options: {}\n", options.join(", ")));
        }
        if let Some(a) = q["answer"].as_object() {
            let said = match (&a.get("choice"), &a.get("choices"), &a.get("text")) {
                (Some(c), _, _) => format!("`{}`", text(&c["label"])),
                (_, Some(Value::Array(cs)), _) => cs
                    .iter()
                    .map(|c| format!("`{}`", text(&c["label"])))
                    .collect::<Vec<_>>()
                    .join(", "),
                (_, _, Some(t)) => format!("the text `{}`", printable(&text(t))),
                _ => "?".into(),
            };
            out.push_str(&format!("  answered: {said} (applied on resume)\n"));
        }
    }
    if let Some(all) = state["unsettled_effects"].as_array() {
        let dir = text(&state["dir"]);
        for e in all {
            let node = text(&e["node"]);
            // A branch-qualified name (`fan#1/a/charge`): the step is the
            // one that asks the parallel node again, not the branch's.
            let when = if node.contains('/') {
                "in a parallel branch".to_owned()
            } else {
                // Numbered from 1, as `wfc run` does; the JSON keeps the index.
                format!(
                    "at step {}",
                    e["step"]
                        .as_u64()
                        .map_or_else(|| "?".into(), |s| (s + 1).to_string())
                )
            };
            out.push_str(&format!(
                "unsettled: node `{node}` (at_most_once) started {when} and may or may not have taken effect\n"
            ));
        }
        match &all[..] {
            [e] => {
                let node = text(&e["node"]);
                out.push_str(&format!(
                    "hint: `wfc run --resume {dir} --assume-done {node} [--outputs JSON]` if it did, `--rerun {node}` if not\n"
                ));
            }
            _ => {
                let flags: Vec<String> = (all.iter())
                    .map(|e| format!("--assume-done {}", text(&e["node"])))
                    .collect();
                out.push_str(&format!(
                    "hint: settle them in one command, `--assume-done NODE [--outputs JSON]` for each that did and `--rerun NODE` for each that did not, e.g. `wfc run --resume {dir} {}`\n",
                    flags.join(" ")
                ));
            }
        }
        return out;
    }
    let open: Vec<&Value> = questions.iter().filter(|q| q["answer"].is_null()).collect();
    if let [q] = &open[..] {
        out.push_str(&format!("hint: {}\n", text(&q["hint"])));
    } else if open.len() > 1 {
        out.push_str(&format!(
            "hint: answer each question with `wfc answer {} --question ID …` (see above), then `wfc run --resume {}`\n",
            text(&state["dir"]),
            text(&state["dir"])
        ));
    } else if interrupted {
        let dir = text(&state["dir"]);
        out.push_str(&format!(
            "hint: continue it with `wfc run --resume {dir}`, or give it up with `wfc cancel {dir}`\n"
        ));
    } else if matches!(state["state"].as_str(), Some("suspended" | "interrupted")) {
        out.push_str(&format!(
            "hint: continue it with `wfc run --resume {}`\n",
            text(&state["dir"])
        ));
    }
    out
}

/// The kebab-case name of a run failure code.
fn error_name(code: &Value) -> &'static str {
    wf_vm::FailureKind::ALL
        .into_iter()
        .find(|k| Some(k.code()) == code.as_str())
        .map_or("?", |k| k.name())
}
