//! Graceful interruption (docs/runtime.md, "Interrupting and cancelling a
//! run"): a process-wide request to stop, set by the first `SIGINT`,
//! `SIGTERM` or `SIGHUP` once [`stop_gracefully_on_termination_signals`]
//! is installed. An engine whose
//! [`EngineConfig::stop_on_interrupt`](crate::EngineConfig) is set checks
//! it around each step that asks the agent or runs a tool, and suspends
//! the run with kind `interrupted` (WF0931) instead of going on.
//!
//! It is process-wide because a signal is: the handler can only touch
//! atomics.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::Duration;

/// The signal that asked the run to stop (a positive number), 0 while
/// nobody asked.
static REQUESTED: AtomicI32 = AtomicI32::new(0);

/// Set once the embedder has taken over the interruption (the engine
/// returned): the watchdog then leaves the ending to it.
static HANDLED: AtomicBool = AtomicBool::new(false);

/// The signal that asked the run to stop, if one did.
pub fn requested() -> Option<i32> {
    match REQUESTED.load(Ordering::SeqCst) {
        0 => None,
        n => Some(n),
    }
}

/// Asks the run to stop as `signal` does (the signal handler's call);
/// only the first request counts. Returns whether this one did.
pub(crate) fn request(signal: i32) -> bool {
    REQUESTED
        .compare_exchange(0, signal.max(1), Ordering::SeqCst, Ordering::SeqCst)
        .is_ok()
}

/// Says that the run stopped and the embedder is ending the process
/// itself: the watchdog of [`stop_gracefully_on_termination_signals`]
/// must not end it first.
pub fn mark_handled() {
    HANDLED.store(true, Ordering::SeqCst);
}

/// The signal's name (`SIGINT`, `SIGTERM`, `SIGHUP`, else `signal N`).
pub fn signal_name(signal: i32) -> String {
    #[cfg(unix)]
    {
        match signal {
            libc::SIGINT => return "SIGINT".into(),
            libc::SIGTERM => return "SIGTERM".into(),
            libc::SIGHUP => return "SIGHUP".into(),
            _ => {}
        }
    }
    format!("signal {signal}")
}

/// How long the first signal gives the run to stop at a step boundary
/// before the process ends anyway, as a second signal would end it: a
/// call that cannot be cut short (an HTTP request to a model) must not
/// keep the user waiting. The run directory is then left as a crash
/// leaves it, consistent.
pub const GRACE: Duration = Duration::from_secs(2);

/// Makes the first `SIGINT`, `SIGTERM` or `SIGHUP` kill the process
/// groups of the running tools and agents (as
/// [`end_children_on_termination_signals`](crate::tools::end_children_on_termination_signals)
/// does) and request a graceful stop instead of ending the process; a
/// second signal, or `grace` ([`GRACE`]) passing without
/// [`mark_handled`], ends it by that signal at once. Does nothing off
/// unix.
pub fn stop_gracefully_on_termination_signals(grace: Duration) {
    #[cfg(unix)]
    {
        crate::tools::install_graceful();
        std::thread::spawn(move || watchdog(grace));
    }
    #[cfg(not(unix))]
    let _ = grace;
}

/// Ends the process by the requested signal once `grace` passed after
/// the request with nobody handling it.
#[cfg(unix)]
fn watchdog(grace: Duration) {
    let asked = loop {
        if let Some(signal) = requested() {
            break signal;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    std::thread::sleep(grace);
    if HANDLED.load(Ordering::SeqCst) {
        return;
    }
    eprintln!(
        "wfc: {}: the step in flight did not stop within {} ms; ending now (the run directory is consistent: resume it as after a crash)",
        signal_name(asked),
        grace.as_millis()
    );
    end_by(asked);
}

/// Ends the process by `signal`, its default action restored first, so
/// that the parent (a shell) sees how it ended (`$?` 130 for `SIGINT`,
/// 143 for `SIGTERM`). Off unix, exits with 128 + `signal`.
pub fn end_by(signal: i32) -> ! {
    #[cfg(unix)]
    // SAFETY: restoring the default action and raising a signal touch no
    // memory of ours.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
    std::process::exit(128 + signal)
}

/// What became of a signal sent to another process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sent {
    /// It was delivered.
    Delivered,
    /// No such process.
    Gone,
    /// The process exists but this user may not signal it.
    Denied,
}

/// Sends `SIGTERM` to process `pid` (unix; elsewhere reports `Gone`).
pub fn terminate(pid: u32) -> Sent {
    send(pid, TERM)
}

/// Whether process `pid` exists (signal 0).
pub fn alive(pid: u32) -> bool {
    send(pid, 0) != Sent::Gone
}

#[cfg(unix)]
const TERM: i32 = libc::SIGTERM;
#[cfg(not(unix))]
const TERM: i32 = 15;

fn send(pid: u32, signal: i32) -> Sent {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return Sent::Gone;
        };
        if pid <= 0 {
            return Sent::Gone;
        }
        // SAFETY: kill(2) on one positive pid touches no memory of ours.
        if unsafe { libc::kill(pid, signal) } == 0 {
            return Sent::Delivered;
        }
        match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::EPERM) => Sent::Denied,
            _ => Sent::Gone,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (pid, signal);
        Sent::Gone
    }
}
