//! A durable run stopped by Ctrl-C or `SIGTERM` (docs/runtime.md,
//! "Interrupting and cancelling a run"): the engine suspended it with kind
//! `interrupted`; `wfc run` prints where and how to go on, releases the
//! lock, and ends by the signal.

use wf_vm::{FailureKind, FailureRecord, Report};

/// The signal that stopped the run, when it is suspended for one; the
/// watchdog is told that the stop is being handled.
pub fn stopped(report: &Report) -> Option<i32> {
    let signal = wf_vm::interrupt::requested()?;
    // Whatever the run did, this process now ends it itself.
    wf_vm::interrupt::mark_handled();
    interrupted(report).map(|_| signal)
}

/// The interruption a suspended run stopped on.
fn interrupted(report: &Report) -> Option<&FailureRecord> {
    super::suspending_error(report).filter(|f| f.kind == FailureKind::Interrupted)
}

/// The hint after an interrupted run in `dir`.
pub fn hint(report: &Report, dir: &str) -> Option<String> {
    let f = interrupted(report)?;
    let signal = wf_vm::interrupt::requested()
        .map(wf_vm::interrupt::signal_name)
        .unwrap_or_else(|| "a signal".into());
    Some(format!(
        "hint: interrupted ({signal}) at step {} (node `{}` of workflow `{}`): the run is suspended ({} {})\n  \
         resume: wfc run --resume {dir}\n  \
         cancel: wfc cancel {dir}\n",
        f.step + 1,
        f.node,
        f.workflow,
        f.kind.code(),
        f.kind.name(),
    ))
}

/// A warning when a signal stopped the compensations of a run that failed
/// or was cancelled: `due` of them have not run (`dir`: the run's
/// directory, when it has one).
pub fn warn_unfinished_compensations(report: &Report, due: usize, dir: Option<&std::path::Path>) {
    let failed = matches!(report.status, wf_vm::RunStatus::Failed { .. });
    if !failed || due == 0 || wf_vm::interrupt::requested().is_none() {
        return;
    }
    let how = match dir {
        Some(dir) => format!("`wfc cancel {} --allow-tools` runs them", dir.display()),
        None => "the run has no run directory: they cannot be run later".into(),
    };
    eprintln!(
        "warning: interrupted while compensating: {due} compensation{} did not run; {how}",
        if due == 1 { "" } else { "s" }
    );
}
