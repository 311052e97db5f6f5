//! `wfc cancel DIR`: give up a durable run and undo its completed effects
//! (docs/runtime.md, "Interrupting and cancelling a run"). A run in
//! progress is first stopped: its holder (the pid in `run.lock`, on this
//! host) gets `SIGTERM`, suspends the run and releases the lock; then the
//! run is cancelled as `wfc run --resume DIR --cancel` cancels it.

mod holder;

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use wf_vm::{Engine, EngineConfig, PersistError, ProcessToolRunner, RunDir, RunStatus};

use super::{SummaryFormat, attractor, effects, output};
use crate::{EXIT_CLEAN, EXIT_FINDINGS, EXIT_TROUBLE};

/// Arguments of `wfc cancel`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Cancels the durable run in DIR: the run ends as failed with kind `cancelled`
(WF0930), one more step in its log, and the compensating node of each of its
completed effects runs, most recent first. A suspended or interrupted run is
cancelled at once. A run in progress (its directory locked by a `wfc run` on
this host) is stopped first: its process gets SIGTERM, suspends the run and
releases the lock (waiting at most --timeout); a holder on another host, or
one that cannot be signalled, is reported and left alone unless --force.

Compensations run `tool` commands, in the current directory: they run only
with --allow-tools (without it, a run with compensations to run is not
cancelled).

Exit status: 0 the run is cancelled (every compensation succeeded); 1 it is
cancelled but a compensation failed (the report lists them); 2 usage error, a
run that has already ended, a holder that did not stop, or trouble with the
run directory.")]
pub struct CancelArgs {
    /// The run directory (`wfc run --run-dir DIR`).
    dir: PathBuf,
    /// Why, recorded in the run's log and report.
    #[arg(long, value_name = "TEXT")]
    reason: Option<String>,
    /// How long to wait for a run in progress to stop after SIGTERM (250ms,
    /// 30s, 5m).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = super::agent::parse_duration)]
    timeout: Duration,
    /// Take the lock of a run whose holder cannot be signalled from here (on
    /// another host, or a pid that no longer exists): only when you know it
    /// is not running, as two processes would then write the run at once.
    #[arg(long)]
    force: bool,
    /// Run the compensating `tool` commands (`sh -c`, in the current
    /// directory).
    #[arg(long)]
    allow_tools: bool,
    /// The most bytes of a compensation's stdout, and of its stderr, kept.
    #[arg(long, value_name = "BYTES", default_value_t = ProcessToolRunner::DEFAULT_MAX_OUTPUT_BYTES)]
    tool_output_limit: usize,
    /// Write the run's events as JSON lines to FILE: those of every step
    /// its log holds, then the cancellation's (`engine:error`, kind
    /// `cancelled`, and one `effect:compensated` per compensation).
    #[arg(long, value_name = "FILE")]
    events: Option<PathBuf>,
    /// The report's format.
    #[arg(long, value_enum, default_value_t = SummaryFormat::Human)]
    format: SummaryFormat,
}

/// Runs `wfc cancel` and returns the exit status.
pub fn run(args: CancelArgs) -> u8 {
    // Compensations must not outlive a Ctrl-C either.
    wf_vm::tools::end_children_on_termination_signals();
    match cancel(&args) {
        Ok(status) => status,
        Err(message) => {
            eprintln!("{message}");
            EXIT_TROUBLE
        }
    }
}

fn cancel(args: &CancelArgs) -> Result<u8, String> {
    let dir = &args.dir;
    holder::stop(dir, args.timeout, args.force)?;
    let run_dir = RunDir::open(dir).map_err(|e| match e {
        PersistError::NotFound(_) => {
            format!("error: {e}\n  help: give the directory of `wfc run --run-dir DIR`")
        }
        e @ PersistError::InUse { .. } => {
            format!("error: {e}: it was started again meanwhile; try again")
        }
        e => format!("error: cannot cancel: {e}"),
    })?;
    let program = run_dir
        .program()
        .map_err(|e| format!("error: cannot cancel: {e}"))?;
    let mut engine = Engine::resume(&program, run_dir.clone(), EngineConfig::default())
        .map_err(|e| format!("error: cannot cancel: {e}"))?;
    let workflow = program
        .str(program.workflows[engine.root().0 as usize].name)
        .to_owned();
    let pipeline = attractor::is_pipeline(&program, engine.root());
    let due = engine.compensations_due();
    // A failed run whose compensations a kill cut short finishes them; any
    // other run that has ended has nothing to cancel.
    let unfinished_saga = matches!(engine.status(), RunStatus::Failed { .. }) && due > 0;
    if !unfinished_saga && let RunStatus::Completed | RunStatus::Failed { .. } = engine.status() {
        return Err(format!(
            "error: the run in `{}` has already ended ({}): there is nothing to cancel\n  \
             help: `wfc status {}` shows how it ended",
            dir.display(),
            engine.status().name(),
            dir.display()
        ));
    }
    if due > 0 && !args.allow_tools {
        return Err(format!(
            "error: the run has {due} completed effect{s} to compensate, and compensations run `tool` commands\n  \
             help: add --allow-tools to cancel it and run them (the run was left as it was)",
            s = if due == 1 { "" } else { "s" }
        ));
    }
    if args.allow_tools {
        if pipeline {
            let files = wf_vm::attractor::RunFiles::new(dir);
            let tools = attractor::shared_tools(args.tool_output_limit);
            engine.set_tool_runner(attractor::tool_runner(Some(&tools), Some(files)));
        } else {
            let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
            engine.set_tool_runner(Box::new(
                ProcessToolRunner::new(cwd).with_max_output_bytes(args.tool_output_limit),
            ));
        }
    }
    let mut sinks: Vec<Box<dyn wf_vm::EventSink>> = Vec::new();
    if let Some(path) = &args.events {
        sinks.push(super::events::resumed_file(path, &run_dir)?);
    }
    // A pipeline's `checkpoint.json` says how it ended, as after
    // `--resume --cancel`.
    let checkpoints = match pipeline {
        true => {
            let files = wf_vm::attractor::RunFiles::new(dir);
            let root = &program.workflows[engine.root().0 as usize];
            let context = wf_vm::attractor::graph_context(&program, root);
            let c = attractor::Checkpoints::new(files, &context, Some(&run_dir))?;
            sinks.push(Box::new(c.clone()));
            Some(c)
        }
        false => None,
    };
    if !sinks.is_empty() {
        engine.set_event_sink(Box::new(output::Tee(sinks)));
    }
    if !unfinished_saga {
        let reason = match &args.reason {
            Some(text) => format!("`wfc cancel`: {text}"),
            None => "`wfc cancel`".to_owned(),
        };
        engine
            .cancel(&reason)
            .map_err(|e| format!("error: cannot cancel: {e}"))?;
    }
    // The run has ended: no agent is asked; `run` compensates.
    let report = engine.run(&mut wf_vm::agents::AutoAgent::new());
    let summary = effects::Summary::of(&engine);
    if let Some(w) = engine.persist_warning() {
        eprintln!("warning: {w}");
    }
    if let Some(e) = engine.event_sink_failure() {
        eprintln!("warning: {e}");
    }
    drop(engine);
    drop(run_dir);
    if let Some(e) = checkpoints.and_then(|c| c.error()) {
        eprintln!("warning: {e}");
    }
    print_report(args, &workflow, dir, &report, &summary);
    let failed = summary
        .compensations
        .iter()
        .any(|c| c.status == wf_vm::agent::Status::Fail);
    Ok(if failed { EXIT_FINDINGS } else { EXIT_CLEAN })
}

/// The cancelled run's report, with the compensations that ran.
fn print_report(
    args: &CancelArgs,
    workflow: &str,
    dir: &Path,
    report: &wf_vm::Report,
    summary: &effects::Summary,
) {
    let json = args.format == SummaryFormat::Json;
    let text = if json {
        let shown = dir.display().to_string();
        output::json_summary(workflow, Some(&shown), report)
    } else {
        output::human_summary(workflow, report)
    };
    let mut text = summary.add_to(text, json);
    if json && summary.compensations.is_empty() {
        // Always present in JSON, so a script need not test for it.
        if let Ok(serde_json::Value::Object(mut doc)) = serde_json::from_str(&text) {
            doc.insert("compensations".into(), serde_json::Value::Array(Vec::new()));
            text = serde_json::to_string_pretty(&doc).unwrap_or(text);
            text.push('\n');
        }
    }
    print!("{text}");
}
