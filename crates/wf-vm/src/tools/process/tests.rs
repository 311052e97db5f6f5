//! A signal that ends wfc while a child starts (before its group is
//! recorded) waits until it is, so the child dies with wfc. The scenario
//! ends its process by the signal, so it runs in a process of its own:
//! this test binary, run again on the ignored scenario test alone.

use std::os::unix::process::ExitStatusExt;
use std::process::Command;
use std::time::{Duration, Instant};

use super::{live, own_process_group, spawn_recorded};

/// Set in the process that runs the scenario.
const SCENARIO: &str = "WF_VM_SIGNAL_WHILE_STARTING";

/// The scenario, in a process of its own: SIGINT comes while a child is
/// being started; the process goes on, starts and records a child (a
/// `sleep`), and ends by the signal once the start is over.
#[test]
#[ignore = "run in a process of its own by a_signal_while_a_child_starts_waits_for_it"]
fn signal_while_starting_scenario() {
    if std::env::var_os(SCENARIO).is_none() {
        return;
    }
    live::install();
    live::starting();
    // SAFETY: raise(3) runs the handler installed above on this thread.
    unsafe {
        libc::raise(libc::SIGINT);
    }
    println!("still here");
    let mut cmd = Command::new("sleep");
    cmd.arg("30");
    own_process_group(&mut cmd);
    let (child, _record) = spawn_recorded(&mut cmd).unwrap();
    println!("child {}", child.id());
    live::started();
    println!("survived the signal");
}

/// Whether `pid` still runs: `/proc` (Linux) tells a zombie (killed, its
/// parent gone, not reaped yet) from a running process; elsewhere,
/// whether a signal reaches it.
fn runs(pid: &str) -> bool {
    if let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        let state = stat
            .rfind(')')
            .and_then(|i| stat[i + 1..].split_whitespace().next());
        return !matches!(state, Some("Z" | "X"));
    }
    if std::path::Path::new("/proc/self").exists() {
        return false;
    }
    Command::new("kill")
        .args(["-0", pid])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// SIGINT while a child starts does not end the process at once (the
/// child would escape the kill of the recorded groups): it ends it once
/// the start is over, by the signal, and the child started meanwhile is
/// killed with it.
#[test]
fn a_signal_while_a_child_starts_waits_for_it() {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "tools::process::tests::signal_while_starting_scenario",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(SCENARIO, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.signal(), Some(libc::SIGINT), "{out:?}");
    assert!(stdout.contains("still here\n"), "{stdout}");
    assert!(!stdout.contains("survived"), "{stdout}");
    let pid = (stdout.lines())
        .find_map(|l| l.strip_prefix("child "))
        .unwrap_or_else(|| panic!("no child started: {stdout}"))
        .to_owned();
    let deadline = Instant::now() + Duration::from_secs(10);
    while runs(&pid) {
        assert!(
            Instant::now() < deadline,
            "the child {pid} outlived the signal"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
