//! Child processes that can always be stopped: each runs in its own process
//! group so a timeout kills everything it started, and its output is read
//! by threads into bounded buffers so a chatty or stuck child never blocks
//! the engine.

use std::io::Read;
use std::process::{Child, Command, ExitStatus};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// Puts the child in a new process group (unix), so that
/// [`kill_group`] reaches its children and grandchildren too.
pub(crate) fn own_process_group(command: &mut Command) -> &mut Command {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    command
}

/// The process groups of running tools and agents, so that a signal
/// ending wfc (Ctrl-C, `kill`) ends them too: they do not share wfc's
/// process group, so the terminal's `SIGINT` does not reach them.
#[cfg(unix)]
mod live {
    use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};

    const SLOTS: usize = 64;
    static GROUPS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];
    /// The first signal requests a graceful stop (`crate::interrupt`)
    /// instead of ending the process.
    static GRACEFUL: AtomicBool = AtomicBool::new(false);
    /// Children being started whose group is not recorded yet
    /// ([`starting`]): a signal then would not reach them.
    static STARTING: AtomicUsize = AtomicUsize::new(0);
    /// A signal that came while children were being started (0: none):
    /// the last of them to be recorded ends the process with it.
    static DEFERRED: AtomicI32 = AtomicI32::new(0);

    /// Records a running group; `None` when every slot is taken (the
    /// group then only dies with its own timeout).
    pub fn register(pid: i32) -> Option<usize> {
        GROUPS.iter().position(|slot| {
            slot.compare_exchange(0, pid, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        })
    }

    /// Forgets a group, before it is reaped (so its id cannot be reused
    /// while still recorded).
    pub fn unregister(slot: Option<usize>) {
        if let Some(slot) = slot {
            GROUPS[slot].store(0, Ordering::SeqCst);
        }
    }

    /// Kills every recorded group.
    fn kill_groups() {
        // Only async-signal-safe calls here: atomics and kill.
        for slot in &GROUPS {
            let pid = slot.load(Ordering::SeqCst);
            if pid > 0 {
                // SAFETY: kill(2) is async-signal-safe and touches no
                // memory of ours.
                unsafe {
                    libc::kill(-pid, libc::SIGKILL);
                }
            }
        }
    }

    /// Kills every recorded group, then ends the process as `signal`
    /// would have (its default action).
    fn die(signal: libc::c_int) {
        kill_groups();
        // SAFETY: signal(2) and raise(3) are async-signal-safe and touch
        // no memory of ours.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
    }

    extern "C" fn on_signal(signal: libc::c_int) {
        kill_groups();
        // The first signal of a graceful run only asks the engine to stop
        // (an atomic store); a second one ends the process below.
        if GRACEFUL.load(Ordering::SeqCst) && crate::interrupt::request(signal) {
            return;
        }
        // A child started but not recorded yet would outlive the process
        // (it runs, under load, before its group is recorded): the last
        // such child to be recorded ends the process instead
        // ([`started`]). Stored before `STARTING` is read, and read there
        // after it is lowered, so one of the two sees the other.
        DEFERRED.store(signal, Ordering::SeqCst);
        if STARTING.load(Ordering::SeqCst) > 0 {
            return;
        }
        die(signal);
    }

    /// A child is about to be started: a signal ending the process waits
    /// until [`started`].
    pub fn starting() {
        STARTING.fetch_add(1, Ordering::SeqCst);
    }

    /// The child [`starting`] announced is recorded (or failed to start):
    /// a signal that came meanwhile ends the process now, its group
    /// killed with the others.
    pub fn started() {
        if STARTING.fetch_sub(1, Ordering::SeqCst) == 1 {
            let signal = DEFERRED.load(Ordering::SeqCst);
            if signal != 0 {
                die(signal);
            }
        }
    }

    /// Installs the handler, the first signal asking for a graceful stop.
    pub fn install_graceful() {
        GRACEFUL.store(true, Ordering::SeqCst);
        install();
    }

    /// Installs the handler for `SIGINT`, `SIGTERM` and `SIGHUP`.
    pub fn install() {
        let handler = on_signal as extern "C" fn(libc::c_int);
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: installing a handler that only makes
            // async-signal-safe calls.
            unsafe {
                libc::signal(signal, handler as libc::sighandler_t);
            }
        }
    }
}

/// Makes `SIGINT`, `SIGTERM` and `SIGHUP` kill the process groups of the
/// tools and `exec:` agents still running before ending the process as
/// they normally would (for programs such as `wfc run`; a library should
/// not call it behind its embedder's back). Does nothing off unix.
pub fn end_children_on_termination_signals() {
    #[cfg(unix)]
    live::install();
}

/// [`end_children_on_termination_signals`], the first signal only
/// requesting a graceful stop (`crate::interrupt`).
#[cfg(unix)]
pub(crate) fn install_graceful() {
    live::install_graceful();
}

/// Starts `command` and records its process group for
/// [`end_children_on_termination_signals`]. A signal that would end wfc
/// while the child starts waits until its group is recorded, so that the
/// child dies with wfc even when it started just as Ctrl-C came (under
/// load a child may run before its parent records it).
pub(crate) fn spawn_recorded(command: &mut Command) -> std::io::Result<(Child, GroupRecord)> {
    #[cfg(unix)]
    let _window = Starting::open();
    let child = command.spawn()?;
    let record = GroupRecord::of(&child);
    Ok((child, record))
}

/// The time a child takes to start and be recorded ([`live::starting`]
/// to [`live::started`], on every way out).
#[cfg(unix)]
struct Starting;

#[cfg(unix)]
impl Starting {
    fn open() -> Starting {
        live::starting();
        Starting
    }
}

#[cfg(unix)]
impl Drop for Starting {
    fn drop(&mut self) {
        live::started();
    }
}

/// A child's process group, recorded for
/// [`end_children_on_termination_signals`] while it runs.
pub(crate) struct GroupRecord(#[cfg(unix)] Option<usize>);

impl GroupRecord {
    /// Records `child`'s group.
    pub(crate) fn of(child: &Child) -> GroupRecord {
        #[cfg(unix)]
        {
            let pid = libc::pid_t::try_from(child.id()).ok();
            let record = GroupRecord(pid.and_then(live::register));
            // A child started after a graceful stop was requested (a
            // branch or a hook racing the signal) is not let run.
            if let Some(pid) = pid
                && crate::interrupt::requested().is_some()
            {
                // SAFETY: as in `kill_group`: the child is not reaped yet.
                unsafe {
                    libc::kill(-pid, libc::SIGKILL);
                }
            }
            record
        }
        #[cfg(not(unix))]
        {
            let _ = child;
            GroupRecord()
        }
    }

    /// Forgets it: call after killing the group and before reaping it.
    pub(crate) fn forget(self) {
        #[cfg(unix)]
        live::unregister(self.0);
    }
}

/// Kills the child's whole process group with `SIGKILL` (unix; elsewhere
/// only the child). Errors are ignored: the group may already be gone.
pub(crate) fn kill_group(child: &mut Child) {
    #[cfg(unix)]
    {
        if let Ok(pid) = libc::pid_t::try_from(child.id()) {
            // SAFETY: kill(2) with a negative pid signals a process group; it
            // touches no memory of ours. The group id is the child's pid
            // because it was spawned with `process_group(0)`, and the child
            // has not been reaped yet (callers reap after killing), so the
            // id cannot have been reused.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
    }
    let _ = child.kill();
}

/// `now + timeout`, saturating: a timeout too large for the clock (a
/// workflow may set any number of milliseconds) means "a century".
pub(crate) fn deadline_after(timeout: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(timeout)
        .or_else(|| now.checked_add(Duration::from_secs(100 * 365 * 24 * 3600)))
        .unwrap_or(now)
}

/// Waits for the child to exit, at most until `deadline`. `None` when the
/// deadline passed first (the child still runs).
pub(crate) fn wait_until(
    child: &mut Child,
    deadline: Instant,
) -> std::io::Result<Option<ExitStatus>> {
    // Short sleeps first so quick commands return quickly, then longer ones
    // so a long command costs little CPU.
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(None);
        }
        thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(25));
    }
}

/// The first bytes of a stream and its total length.
#[derive(Debug, Default)]
pub(crate) struct Captured {
    /// At most the capture limit's bytes, from the start of the stream.
    pub bytes: Vec<u8>,
    /// Every byte the stream produced.
    pub total: u64,
    /// Whether the stream reached its end (false when reading was abandoned).
    pub complete: bool,
}

/// A stream being read by a thread into a bounded buffer.
pub(crate) struct Capture {
    shared: Arc<Mutex<Captured>>,
    done: Receiver<()>,
}

impl Capture {
    /// Starts a thread that reads `stream` to its end, keeping the first
    /// `limit` bytes and discarding (but counting) the rest, so the child
    /// never blocks on a full pipe.
    pub(crate) fn start(mut stream: impl Read + Send + 'static, limit: usize) -> Capture {
        let shared = Arc::new(Mutex::new(Captured::default()));
        let (tx, done) = mpsc::channel();
        let sink = Arc::clone(&shared);
        thread::spawn(move || {
            let mut chunk = [0u8; 8192];
            loop {
                match stream.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => {
                        let mut c = sink.lock().unwrap_or_else(|e| e.into_inner());
                        let room = limit.saturating_sub(c.bytes.len());
                        c.bytes.extend_from_slice(&chunk[..n.min(room)]);
                        c.total += n as u64;
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            sink.lock().unwrap_or_else(|e| e.into_inner()).complete = true;
            let _ = tx.send(());
        });
        Capture { shared, done }
    }

    /// What was read so far, after waiting at most until `deadline` for
    /// the stream to end. A stream some leftover process keeps open is
    /// abandoned (its thread ends when the stream closes).
    pub(crate) fn finish(self, deadline: Instant) -> Captured {
        let wait = deadline.saturating_duration_since(Instant::now());
        let _ = self.done.recv_timeout(wait);
        let mut c = self.shared.lock().unwrap_or_else(|e| e.into_inner());
        std::mem::take(&mut *c)
    }
}

/// The captured bytes as text: invalid UTF-8 replaced, and a marker saying
/// how much was cut when the stream was longer than the limit.
pub(crate) fn captured_text(c: &Captured) -> String {
    let truncated = c.total > c.bytes.len() as u64;
    let mut bytes = &c.bytes[..];
    if truncated {
        // The cut may fall inside a multi-byte character: keep it out
        // rather than show a replacement character that was never sent.
        if let Err(e) = std::str::from_utf8(bytes)
            && e.error_len().is_none()
        {
            bytes = &bytes[..e.valid_up_to()];
        }
    }
    let mut text = String::from_utf8_lossy(bytes).into_owned();
    if truncated {
        text.push_str(&format!(
            "\n[wfc: output truncated: {} of {} bytes kept]",
            c.bytes.len(),
            c.total
        ));
    }
    if !c.complete {
        text.push_str(
            "\n[wfc: stopped reading: the stream was still open after the command ended]",
        );
    }
    text
}

#[cfg(all(test, unix))]
mod tests;
