//! Processes a test started and expects gone: told apart from a zombie
//! (killed, not reaped yet: `kill -0` still reaches it, and whoever
//! inherits it may reap it seconds later under load) and from a later
//! process given the same pid.

use std::process::{Command, Stdio};

/// A process, told apart from a later one given the same pid.
pub struct Tool {
    pid: String,
    /// Its start time (`/proc/PID/stat`, field 22) where `/proc` says.
    since: Option<u64>,
}

impl Tool {
    /// `pid`, as it runs now.
    pub fn of(pid: &str) -> Tool {
        Tool {
            pid: pid.to_owned(),
            since: Self::stat(pid).map(|(_, since)| since),
        }
    }

    /// The state letter and start time of `pid`, from `/proc` (Linux).
    fn stat(pid: &str) -> Option<(char, u64)> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The fields after the command name (which may hold spaces and
        // parentheses) follow its last `)`: state (3rd) … starttime (22nd).
        let fields: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
        Some((
            fields.first()?.chars().next()?,
            fields.get(19)?.parse().ok()?,
        ))
    }

    /// Whether it still runs: not gone, not a zombie (killed, not reaped
    /// yet), not another process that took its pid.
    pub fn runs(&self) -> bool {
        match self.since {
            Some(since) => Self::stat(&self.pid)
                .is_some_and(|(state, at)| at == since && !matches!(state, 'Z' | 'X')),
            // No `/proc`: whether a signal can reach it.
            None => Command::new("kill")
                .args(["-0", &self.pid])
                .stderr(Stdio::null())
                .status()
                .unwrap()
                .success(),
        }
    }
}
