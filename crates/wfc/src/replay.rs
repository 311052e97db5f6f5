//! `wfc replay DIR`: re-run a run directory's recorded decisions against
//! its pinned program (or a changed workflow) and verify the trace
//! (docs/runtime.md, section 9, "Replay").

use std::path::PathBuf;

use clap::Args;
use wf_ir::IrProgram;
use wf_vm::{Engine, EngineError, PersistError, Replay, RunDir};

use crate::run::load;
use crate::{EXIT_CLEAN, EXIT_FINDINGS, EXIT_TROUBLE};

/// Arguments of `wfc replay`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Replays the run's log from the state it started from: every recorded
decision, tool outcome and human answer is applied again (no agent is
asked, no tool runs), and each step's events, blackboard writes included,
must be the ones the log recorded; the state at the last snapshot must be
the snapshot's. The run directory is only read (no lock is taken), so a
run in progress can be replayed up to its last complete step.

Exit status:
  0  the replay is identical
  1  it diverges: the first difference is printed (step, log line, what
     the log recorded and what the replay produced)
  2  the directory cannot be read (missing, not a run, corrupt), or
     --against names a file that does not load")]
pub struct ReplayArgs {
    /// The run directory (`wfc run --run-dir DIR`).
    dir: PathBuf,
    /// Replay the recorded decisions against this workflow file instead
    /// of the run's pinned `program.json`, and report where the two runs
    /// part (the workflow the run started is looked up by name).
    #[arg(long, value_name = "FILE")]
    against: Option<PathBuf>,
}

/// Runs `wfc replay` and returns the exit status.
pub fn run(args: ReplayArgs) -> u8 {
    match execute(&args) {
        Ok(status) => status,
        Err(message) => {
            eprintln!("{message}");
            EXIT_TROUBLE
        }
    }
}

fn execute(args: &ReplayArgs) -> Result<u8, String> {
    let shown = args.dir.display();
    let cannot = |e: &dyn std::fmt::Display| format!("error: cannot replay `{shown}`: {e}");
    let dir = RunDir::open_read_only(&args.dir).map_err(|e| match e {
        PersistError::NotFound(_) => format!("error: {e}"),
        e => cannot(&e),
    })?;
    let program: IrProgram = match &args.against {
        // Loaded through the IR loader, which verifies it.
        None => dir.program().map_err(|e| cannot(&e))?,
        Some(file) => load::load(file).map_err(|e| e.0)?.program,
    };
    let replay = Engine::replay(&program, &dir).map_err(|e| match (e, &args.against) {
        (EngineError::Snapshot(m), Some(file)) => cannot(&format!(
            "the state the run started from does not fit `{}`: {m}",
            file.display()
        )),
        (EngineError::Snapshot(m), None) => cannot(&format!(
            "`{}` is corrupt: {m}",
            args.dir.join("start.json").display()
        )),
        (e, _) => cannot(&e),
    })?;
    Ok(report(&replay, args))
}

/// Prints the verdict; returns the exit status.
fn report(replay: &Replay, args: &ReplayArgs) -> u8 {
    let against = match &args.against {
        Some(file) => format!(" against `{}`", file.display()),
        None => String::new(),
    };
    let Some(d) = &replay.divergence else {
        println!(
            "replayed {} step{}{against}: identical",
            replay.steps,
            if replay.steps == 1 { "" } else { "s" }
        );
        return EXIT_CLEAN;
    };
    let line = match d.line {
        Some(l) => format!(" (log.jsonl line {l})"),
        None => String::new(),
    };
    // Numbered from 1 as `wfc run` numbers steps (the `N` steps before it
    // replayed identically); the log's `step` is the index from 0.
    eprintln!(
        "error: the replay{against} diverges at step {}{line}: {}",
        d.step + 1,
        d.what
    );
    eprintln!(
        "  recorded: {}",
        d.recorded.as_deref().unwrap_or("(nothing)")
    );
    eprintln!(
        "  replayed: {}",
        d.replayed.as_deref().unwrap_or("(nothing)")
    );
    eprintln!(
        "note: the {} step{} before it replayed identically",
        replay.steps,
        if replay.steps == 1 { "" } else { "s" }
    );
    EXIT_FINDINGS
}
