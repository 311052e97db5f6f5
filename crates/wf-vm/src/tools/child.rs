//! Running one program to its end for a front end (a CLI coding agent, a
//! tool hook): [`run_child`] starts it in a process group of its own,
//! feeds it its input, reads its output into bounded buffers and, at the
//! deadline, kills the whole group, so neither the program nor anything it
//! started outlives the call.

use std::io::Write as _;
use std::process::{Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use super::{
    Capture, captured_text, deadline_after, kill_group, own_process_group, spawn_recorded,
    wait_until,
};

/// How a program run by [`run_child`] ended.
#[derive(Debug)]
pub struct ChildRun {
    /// Its exit status; `None` when it was still running at the timeout
    /// (its process group was then killed).
    pub status: Option<ExitStatus>,
    /// Its standard output, cut at the byte limit (with a marker).
    pub stdout: String,
    /// Its standard error, cut at the byte limit (with a marker).
    pub stderr: String,
    /// How long it ran.
    pub elapsed: Duration,
}

impl ChildRun {
    /// `exited with status N`, `was killed by signal S`, or `did not end
    /// within T and was killed (with its process group)`.
    pub fn ending(&self, timeout: Duration) -> String {
        match self.status {
            None => format!(
                "did not end within {} and was killed (with every process it started)",
                super::human_duration(timeout)
            ),
            Some(s) => match (s.code(), super::signal_of(s)) {
                (Some(code), _) => format!("exited with status {code}"),
                (None, Some(signal)) => format!("was killed by signal {signal}"),
                (None, None) => format!("ended abnormally ({s})"),
            },
        }
    }
}

/// Runs `command` (its program, arguments, directory and environment set
/// by the caller; never a shell unless the caller asks for one) with
/// `input` on its standard input, keeping at most `limit` bytes of each
/// output stream. `Err` when it cannot be started.
pub fn run_child(
    mut command: Command,
    input: &[u8],
    timeout: Duration,
    limit: usize,
) -> std::io::Result<ChildRun> {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    own_process_group(&mut command);
    let started = Instant::now();
    let (mut child, record) = spawn_recorded(&mut command)?;
    // A writer thread: a program that never reads its input cannot block
    // the caller past the deadline.
    if let Some(mut stdin) = child.stdin.take() {
        let input = input.to_vec();
        thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
    }
    let stdout = child.stdout.take().map(|s| Capture::start(s, limit));
    let stderr = child.stderr.take().map(|s| Capture::start(s, limit));
    let waited = wait_until(&mut child, deadline_after(timeout));
    // Whatever happened, nothing the program started may outlive it.
    kill_group(&mut child);
    record.forget();
    let _ = child.wait();
    let elapsed = started.elapsed();
    let grace = Instant::now() + Duration::from_millis(500);
    let out = stdout.map(|c| c.finish(grace)).unwrap_or_default();
    let err = stderr.map(|c| c.finish(grace)).unwrap_or_default();
    Ok(ChildRun {
        status: waited.ok().flatten(),
        stdout: captured_text(&out),
        stderr: captured_text(&err),
        elapsed,
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn the_input_goes_in_and_the_output_comes_back_bounded() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "cat; echo err >&2; exit 3"]);
        let ran = run_child(cmd, b"hello $(x) `y`", Duration::from_secs(10), 5).unwrap();
        assert_eq!(ran.status.and_then(|s| s.code()), Some(3));
        assert!(
            ran.stdout.starts_with("hello\n[wfc: output truncated"),
            "{}",
            ran.stdout
        );
        assert_eq!(ran.stderr, "err\n");
        assert_eq!(ran.ending(Duration::from_secs(10)), "exited with status 3");
    }

    #[test]
    fn the_deadline_kills_the_whole_group() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "sleep 30 & echo $!; sleep 30"]);
        let started = Instant::now();
        let ran = run_child(cmd, b"", Duration::from_millis(200), 1024).unwrap();
        assert!(ran.status.is_none());
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        assert!(
            ran.ending(Duration::from_millis(200))
                .starts_with("did not end within 200ms")
        );
        // The background `sleep` died with the group (gone, or a zombie
        // waiting to be reaped: SIGKILL lands asynchronously).
        let pid = ran.stdout.trim();
        let gone = || match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => true,
            Ok(stat) => stat
                .rsplit(')')
                .next()
                .is_some_and(|r| r.trim_start().starts_with('Z')),
        };
        let until = Instant::now() + Duration::from_secs(3);
        while !gone() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(gone(), "the background child {pid} outlived the group");
    }
}
