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
