//! Stopping the process that holds a run directory before cancelling the
//! run: like terraform's lock info, the lock file names the holder (pid
//! and host); `SIGTERM` makes a `wfc run` suspend the run and release the
//! lock (docs/runtime.md, "Interrupting and cancelling a run").

use std::path::Path;
use std::time::{Duration, Instant};

use wf_vm::interrupt::{Sent, alive, terminate};
use wf_vm::{PersistError, RunDir};

/// Makes sure nobody holds the run in `dir` any more: signals a holder on
/// this host and waits at most `timeout` for the lock to be released.
/// With `force`, a holder that cannot be signalled (another host, a pid
/// that is gone) has its lock file replaced instead. `Err`: the message.
pub fn stop(dir: &Path, timeout: Duration, force: bool) -> Result<(), String> {
    let probe = RunDir::open_read_only(dir).map_err(|e| match e {
        PersistError::NotFound(_) => {
            format!("error: {e}\n  help: give the directory of `wfc run --run-dir DIR`")
        }
        e => format!("error: cannot cancel: {e}"),
    })?;
    let holder = |probe: &RunDir| {
        probe
            .holder()
            .map_err(|e| format!("error: cannot cancel: {e}"))
    };
    let Some(pid) = holder(&probe)? else {
        return Ok(());
    };
    let shown = dir.display();
    let here = wf_vm::persist::host_name();
    let host = probe.holder_host();
    let elsewhere = match (&host, &here) {
        (Some(h), Some(me)) if h != me => Some(h.clone()),
        _ => None,
    };
    let cannot = match (pid, &elsewhere) {
        (_, Some(h)) => Some(format!(
            "the run in `{shown}` is in use by process {} on host `{h}`: it cannot be signalled from here",
            pid.map_or("?".into(), |p| p.to_string())
        )),
        (None, None) => Some(format!(
            "the run in `{shown}` is in use by a process that did not record its pid"
        )),
        (Some(p), None) if !alive(p) => Some(format!(
            "the run in `{shown}` is locked by process {p}, which no longer exists on this host (a lock held over a network filesystem?)"
        )),
        _ => None,
    };
    if let Some(why) = cannot {
        if !force {
            return Err(format!(
                "error: {why}\n  help: stop that process where it runs (Ctrl-C, or `wfc cancel {shown}` there); \
                 if you are sure it is not running, `wfc cancel {shown} --force` takes its lock"
            ));
        }
        eprintln!("warning: {why}: --force takes its lock");
        let lock = dir.join(wf_vm::persist::LOCK_FILE);
        return std::fs::remove_file(&lock)
            .map_err(|e| format!("error: could not remove `{}`: {e}", lock.display()));
    }
    let pid = pid.expect("a pid, else refused above");
    match terminate(pid) {
        Sent::Delivered => {}
        Sent::Gone => {
            // It ended between the probe and the signal: its lock is free.
        }
        Sent::Denied => {
            return Err(format!(
                "error: the run in `{shown}` is in use by process {pid}, which this user may not signal\n  \
                 help: stop it as its owner (Ctrl-C, `kill -TERM {pid}`), then `wfc cancel {shown}` again"
            ));
        }
    }
    eprintln!(
        "note: the run in `{shown}` is in progress (process {pid}): sent SIGTERM; waiting up to {} for it to stop",
        show(timeout)
    );
    let deadline = Instant::now() + timeout;
    while holder(&probe)?.is_some() {
        if Instant::now() >= deadline {
            return Err(format!(
                "error: process {pid} still holds the run in `{shown}` after {}: the run was not cancelled\n  \
                 help: wait longer (--timeout), or end it at once with a second signal (`kill -TERM {pid}`; \
                 its log stays consistent) and run `wfc cancel {shown}` again",
                show(timeout)
            ));
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    Ok(())
}

/// A duration as the user wrote it, roughly (`30s`, `250ms`).
fn show(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}
