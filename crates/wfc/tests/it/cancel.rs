//! Interrupting and cancelling durable runs (issue 17.3; docs/runtime.md,
//! "Interrupting and cancelling a run"): real `wfc` processes, signalled
//! while a tool of theirs sleeps. The fixtures in `tests/run/cancel/`
//! append to a ledger, so a test sees what ran and how often. The saga
//! tests with a trace expectation are in `effects.rs`.
#![cfg(unix)]

use crate::common::repo_root;

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use insta_cmd::get_cargo_bin;
use serde_json::Value;

/// A scratch directory for the ledger and the run directory `run`.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cancel")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `wfc ARGS` from the repository root, the ledger in `dir`.
fn command(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(get_cargo_bin("wfc"));
    cmd.current_dir(repo_root())
        .args(args)
        .env("WFC_TEST_LEDGER", dir.join("ledger"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

fn wfc(dir: &Path, args: &[&str]) -> Output {
    command(dir, args).output().unwrap()
}

/// Starts `wfc run FILE --allow-tools --run-dir DIR/run` and waits until
/// each of `pids` (files beside the ledger) names the pid of a sleeping
/// tool; returns the child and those pids.
fn start(dir: &Path, file: &str, pids: &[&str]) -> (Child, Vec<String>) {
    let run = dir.join("run");
    let args = [
        "run",
        file,
        "--allow-tools",
        "--progress",
        "never",
        "--run-dir",
        run.to_str().unwrap(),
    ];
    let child = command(dir, &args).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut found = Vec::new();
    for name in pids {
        let file = dir.join(format!("ledger.{name}"));
        loop {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            if text.ends_with('\n') {
                found.push(text.trim().to_owned());
                break;
            }
            assert!(Instant::now() < deadline, "`{name}` never started");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    (child, found)
}

fn signal(pid: u32, name: &str) {
    let sent = Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

fn alive(pid: &str) -> bool {
    crate::common::process::Tool::of(pid).runs()
}

/// Waits (at most 5 s) for the processes `pids` to be gone (a killed
/// tool not reaped yet is gone).
fn all_gone(pids: &[String]) {
    let tools: Vec<_> = pids
        .iter()
        .map(|p| crate::common::process::Tool::of(p))
        .collect();
    let deadline = Instant::now() + Duration::from_secs(5);
    while tools.iter().any(|t| t.runs()) {
        assert!(
            Instant::now() < deadline,
            "a tool outlived the stop: {pids:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn ledger(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("ledger")).unwrap_or_default()
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)))
}

/// `wfc status DIR --format json`.
fn status(dir: &Path, run: &str) -> Value {
    let out = wfc(dir, &["status", run, "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    json(&out)
}

/// Issue 17.3: Ctrl-C during a long tool step of a durable run kills the
/// tool, records the step as interrupted (a suspension, WF0931), releases
/// the lock, prints where and how to go on, and ends `wfc` by the signal
/// (a shell's 130). The resumed run runs the step again and ends as an
/// uninterrupted run ends.
#[test]
fn ctrl_c_during_a_tool_suspends_the_run_and_resume_completes_it() {
    let file = "tests/run/cancel/slow_once.wf";
    // The uninterrupted run, for comparison: `slow` does not sleep.
    let plain = scratch("sigint_plain");
    std::fs::write(plain.join("ledger.again"), "").unwrap();
    let args = ["run", file, "--allow-tools", "--format", "json"];
    let reference = wfc(&plain, &args);
    assert_eq!(reference.status.code(), Some(0), "{reference:?}");

    let dir = scratch("sigint");
    let (child, pids) = start(&dir, file, &["pid"]);
    signal(child.id(), "INT");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.signal(), Some(2), "{out:?}");
    all_gone(&pids);
    let run = dir.join("run");
    let shown = run.to_str().unwrap();
    let stderr = text(&out.stderr).replace(shown, "[RUN]");
    insta::assert_snapshot!("sigint_hint", stderr);
    // The lock is released, and the status says why the run waits.
    let state = status(&dir, shown);
    assert_eq!(state["state"], "suspended", "{state}");
    assert_eq!(state["in_use_by"], Value::Null, "{state}");
    assert_eq!(state["error"]["kind"], "interrupted", "{state}");
    assert_eq!(state["error"]["code"], "WF0931", "{state}");
    assert_eq!(state["error"]["node"], "slow", "{state}");
    let human = wfc(&dir, &["status", shown]);
    assert!(
        text(&human.stdout).starts_with(&format!("{shown}: suspended (interrupted)\n")),
        "{human:?}"
    );
    // The log records the interruption as an event of its own.
    let log = std::fs::read_to_string(run.join("log.jsonl")).unwrap();
    let interrupt = log
        .lines()
        .flat_map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["events"].as_array().cloned().unwrap_or_default()
        })
        .find(|e| e["event"] == "engine:interrupt")
        .expect("an engine:interrupt event");
    assert_eq!(interrupt["signal"], "SIGINT");
    assert_eq!(interrupt["code"], "WF0931");
    // In the log, events inherit the run id and time of their record.
    assert!(interrupt.get("run").is_none());
    let records = wf_vm::RunDir::open_read_only(&run)
        .unwrap()
        .read_log()
        .unwrap();
    let interrupt = records
        .iter()
        .flat_map(|(_, r)| &r.events)
        .find(|e| e["event"] == "engine:interrupt")
        .expect("an engine:interrupt event");
    assert!(interrupt["run"].is_string() && interrupt["ts"].is_string());

    let out = wfc(
        &dir,
        &[
            "run",
            "--resume",
            shown,
            "--allow-tools",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let (resumed, reference) = (json(&out), json(&reference));
    assert_eq!(resumed["status"], "completed");
    assert_eq!(resumed["blackboard"], reference["blackboard"]);
    assert_eq!(resumed["at"], reference["at"]);
    // `slow` ran twice: once cut short, once to its end; the others once.
    assert_eq!(ledger(&dir), "first\nslow\nslow\nlast\n");
    assert_eq!(ledger(&plain), "first\nslow\nlast\n");
    let out = wfc(&dir, &["replay", shown]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

/// SIGTERM during a `.wf` fan-out: every running branch's tool is killed,
/// the branch that had finished is journaled and not run again on resume,
/// and the resumed run completes.
#[test]
fn sigterm_during_a_fan_out_stops_every_branch() {
    let dir = scratch("fan");
    let (child, pids) = start(&dir, "tests/run/cancel/fan_slow.wf", &["a", "b"]);
    signal(child.id(), "TERM");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.signal(), Some(15), "{out:?}");
    all_gone(&pids);
    let run = dir.join("run");
    let shown = run.to_str().unwrap();
    assert!(
        text(&out.stderr).contains("hint: interrupted (SIGTERM) at step 2 (node `fan`"),
        "{out:?}"
    );
    let state = status(&dir, shown);
    assert_eq!(state["error"]["kind"], "interrupted", "{state}");
    // Only `c` finished: only its result is journaled.
    let journal = run.join("branches/FanSlow/fan/step-1");
    let mut journaled: Vec<_> = std::fs::read_dir(&journal)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    journaled.sort();
    assert_eq!(journaled, ["2.json"]);
    std::fs::write(dir.join("ledger.resume"), "").unwrap();
    let out = wfc(
        &dir,
        &[
            "run",
            "--resume",
            shown,
            "--allow-tools",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(json(&out)["status"], "completed");
    let mut lines: Vec<&str> = Vec::new();
    let ran = ledger(&dir);
    lines.extend(ran.lines());
    lines.sort();
    assert_eq!(lines, ["a", "a", "b", "b", "c"], "{ran}");
    let out = wfc(&dir, &["replay", shown]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

/// The same for a `.dot` pipeline's tool stage.
#[test]
fn ctrl_c_during_a_pipeline_stage_suspends_the_run() {
    let dir = scratch("dot");
    let (child, pids) = start(&dir, "tests/run/cancel/slow_once.dot", &["pid"]);
    signal(child.id(), "INT");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.signal(), Some(2), "{out:?}");
    all_gone(&pids);
    let shown = dir.join("run");
    let shown = shown.to_str().unwrap();
    let state = status(&dir, shown);
    assert_eq!(state["error"]["kind"], "interrupted", "{state}");
    assert_eq!(state["error"]["node"], "slow", "{state}");
    let out = wfc(
        &dir,
        &[
            "run",
            "--resume",
            shown,
            "--allow-tools",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(ledger(&dir), "slow\nslow\nlast\n");
    let out = wfc(&dir, &["replay", shown]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

/// An `at_most_once` node interrupted while it runs may or may not have
/// taken effect: the resumed run asks, as after a kill, and does not run
/// it again by itself.
#[test]
fn an_interrupted_at_most_once_node_is_not_run_again_without_asking() {
    let dir = scratch("at_most_once");
    let (child, _) = start(&dir, "tests/run/cancel/at_most_once_slow.wf", &["pid"]);
    signal(child.id(), "INT");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.signal(), Some(2), "{out:?}");
    let shown = dir.join("run");
    let shown = shown.to_str().unwrap();
    let out = wfc(&dir, &["run", "--resume", shown, "--allow-tools"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(text(&out.stderr).contains("--assume-done pay"), "{out:?}");
    assert_eq!(ledger(&dir), "pay\n");
    let out = wfc(&dir, &["run", "--resume", shown, "--assume-done", "pay"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(ledger(&dir), "pay\n");
}

/// `wfc cancel` refuses a run that has ended, saying so, and a directory
/// that holds no run.
#[test]
fn cancel_refuses_a_finished_run() {
    let dir = scratch("finished");
    std::fs::write(dir.join("ledger.again"), "").unwrap();
    let run = dir.join("run");
    let shown = run.to_str().unwrap();
    let file = "tests/run/cancel/slow_once.wf";
    let out = wfc(&dir, &["run", file, "--allow-tools", "--run-dir", shown]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = wfc(&dir, &["cancel", shown]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(
        text(&out.stderr),
        format!(
            "error: the run in `{shown}` has already ended (completed): there is nothing to cancel\n  \
             help: `wfc status {shown}` shows how it ended\n"
        )
    );
    let missing = dir.join("nothing");
    let out = wfc(&dir, &["cancel", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(text(&out.stderr).contains("does not exist"), "{out:?}");
}

/// A holder on another host (as its lock file says) is not signalled:
/// `wfc cancel` says so and leaves it running.
#[test]
fn cancel_leaves_a_holder_on_another_host_alone() {
    let dir = scratch("elsewhere");
    let (mut child, pids) = start(&dir, "tests/run/cancel/slow_once.wf", &["pid"]);
    let run = dir.join("run");
    let shown = run.to_str().unwrap();
    // Rewritten in place: the holder keeps its lock on the same file.
    let lock = run.join("run.lock");
    let pid = child.id();
    let mut file = std::fs::OpenOptions::new().write(true).open(&lock).unwrap();
    std::io::Write::write_all(&mut file, format!("{pid}\nelsewhere.example\n").as_bytes()).unwrap();
    drop(file);
    let out = wfc(&dir, &["cancel", shown, "--allow-tools"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        text(&out.stderr).starts_with(&format!(
            "error: the run in `{shown}` is in use by process {pid} on host `elsewhere.example`: it cannot be signalled from here\n"
        )),
        "{out:?}"
    );
    assert!(text(&out.stderr).contains("--force"), "{out:?}");
    assert!(
        child.try_wait().unwrap().is_none(),
        "the holder was stopped"
    );
    assert!(alive(&pids[0]));
    // Ended as a user would, so its tool goes with it.
    signal(pid, "INT");
    child.wait().unwrap();
    all_gone(&pids);
}

/// SIGTERM during an Attractor fan-out (tests/run/dot/parallel_durable.dot:
/// `a` finishes at once, `b` sleeps): the run is suspended as
/// interrupted, `a`'s journal is noted for the resumed step, and the
/// resumed run runs `b` alone.
#[test]
fn sigterm_during_a_pipeline_fan_out_keeps_the_finished_branch() {
    let dir = scratch("dot_fan");
    let run = dir.join("run");
    let shown = run.to_str().unwrap();
    let args = [
        "run",
        "tests/run/dot/parallel_durable.dot",
        "--agent",
        "auto",
        "--allow-tools",
        "--progress",
        "never",
        "--run-dir",
        shown,
    ];
    let child = command(&dir, &args).spawn().unwrap();
    let ran = run.join("ran.txt");
    let journal = run.join("fan/branches/step-1/0.json");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !(journal.exists()
        && std::fs::read_to_string(&ran)
            .unwrap_or_default()
            .contains('b'))
    {
        assert!(Instant::now() < deadline, "the fan-out did not get going");
        std::thread::sleep(Duration::from_millis(10));
    }
    let started = Instant::now();
    signal(child.id(), "TERM");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.signal(), Some(15), "{out:?}");
    // `b` sleeps 5 s: it was killed, not waited for.
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    let state = status(&dir, shown);
    assert_eq!(state["error"]["kind"], "interrupted", "{state}");
    assert_eq!(state["error"]["node"], "fan", "{state}");
    assert!(!run.join("fan/branches/step-1/1.json").exists());
    std::fs::write(run.join("resume"), "").unwrap();
    let out = wfc(
        &dir,
        &["run", "--resume", shown, "--agent", "auto", "--allow-tools"],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let mut lines: Vec<String> = std::fs::read_to_string(&ran)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    lines.sort();
    assert_eq!(lines, ["a", "b", "b"]);
    let out = wfc(&dir, &["replay", shown]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

/// A signal while a failed run compensates stops before the next
/// compensation and does not record the one it cut short; `wfc run` says
/// how many did not run, and `wfc cancel` runs them.
#[test]
fn a_signal_during_compensation_leaves_the_rest_to_wfc_cancel() {
    let dir = scratch("undo");
    let (child, pids) = start(&dir, "tests/run/cancel/slow_undo.wf", &["pid"]);
    signal(child.id(), "INT");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    all_gone(&pids);
    let run = dir.join("run");
    let shown = run.to_str().unwrap();
    assert!(
        text(&out.stderr).contains(&format!(
            "warning: interrupted while compensating: 1 compensation did not run; `wfc cancel {shown} --allow-tools` runs them\n"
        )),
        "{out:?}"
    );
    assert!(!text(&out.stderr).contains("undid"), "{out:?}");
    let out = wfc(&dir, &["cancel", shown, "--allow-tools"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        text(&out.stdout).ends_with(
            "compensations (most recent effect first):\n  refund undid charge: success\n"
        ),
        "{out:?}"
    );
    assert_eq!(ledger(&dir), "charge\nship\nrefund\nrefund\n");
    // Nothing is left to do: the run has ended.
    let out = wfc(&dir, &["cancel", shown, "--allow-tools"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

/// A process holding `run.lock` (here `flock`, ignoring SIGTERM) and the
/// lock file naming it, host `host`.
fn hold_lock(run: &Path, host: &str) -> Child {
    use std::os::unix::process::CommandExt;
    let lock = run.join("run.lock");
    let child = Command::new("sh")
        .args(["-c", "trap '' TERM; exec flock \"$0\" sleep 30"])
        .arg(&lock)
        .process_group(0)
        .spawn()
        .unwrap();
    let pid = child.id();
    std::fs::write(&lock, format!("{pid}\n{host}\n")).unwrap();
    // Held once a probe of the lock says so.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let probe = std::fs::File::open(&lock).unwrap();
        if probe.try_lock_shared().is_err() {
            break;
        }
        drop(probe);
        assert!(Instant::now() < deadline, "flock never took the lock");
        std::thread::sleep(Duration::from_millis(10));
    }
    child
}

/// Ends `holder` and everything in its process group.
fn release(mut holder: Child) {
    signal_group(holder.id());
    holder.wait().unwrap();
}

fn signal_group(pid: u32) {
    let sent = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .status()
        .unwrap();
    assert!(sent.success());
}

/// A suspended saga in `dir/run` (its completed effects: reserve, charge).
fn suspended_saga(dir: &Path) -> PathBuf {
    let run = dir.join("run");
    let args = [
        "run",
        "tests/run/effects/saga.wf",
        "--allow-tools",
        "--agent",
        "script:tests/run/effects/saga_suspend.json",
        "--run-dir",
        run.to_str().unwrap(),
    ];
    let out = wfc(dir, &args);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    run
}

/// A holder that does not stop within `--timeout` is reported, and the
/// run is left as it was.
#[test]
fn cancel_gives_up_on_a_holder_that_does_not_stop() {
    let dir = scratch("stubborn");
    let run = suspended_saga(&dir);
    let shown = run.to_str().unwrap();
    // This host, as the run's own lock file recorded it.
    let here = std::fs::read_to_string(run.join("run.lock")).unwrap_or_default();
    let here = here.lines().nth(1).unwrap_or("").to_owned();
    let holder = hold_lock(&run, &here);
    let pid = holder.id();
    let started = Instant::now();
    let out = wfc(
        &dir,
        &["cancel", shown, "--allow-tools", "--timeout", "300ms"],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert!(
        text(&out.stderr).contains(&format!(
            "error: process {pid} still holds the run in `{shown}` after 300ms: the run was not cancelled\n"
        )),
        "{out:?}"
    );
    release(holder);
    let out = wfc(&dir, &["status", shown]);
    assert!(text(&out.stdout).contains(": suspended\n"), "{out:?}");
    assert_eq!(ledger(&dir), "reserve\ncharge\n");
}

/// `--force` takes the lock of a holder that cannot be signalled from
/// here, then cancels.
#[test]
fn cancel_force_takes_the_lock_of_a_holder_elsewhere() {
    let dir = scratch("force");
    let run = suspended_saga(&dir);
    let shown = run.to_str().unwrap();
    let holder = hold_lock(&run, "elsewhere.example");
    let pid = holder.id();
    let out = wfc(&dir, &["cancel", shown, "--allow-tools", "--force"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        text(&out.stderr).starts_with(&format!(
            "warning: the run in `{shown}` is in use by process {pid} on host `elsewhere.example`: it cannot be signalled from here: --force takes its lock\n"
        )),
        "{out:?}"
    );
    assert_eq!(ledger(&dir), "reserve\ncharge\nrefund\nrelease\n");
    release(holder);
}

/// Ctrl-C while an `exec:` agent decides: the agent's process group is
/// killed and the step is interrupted, not an agent error.
#[test]
fn ctrl_c_while_an_exec_agent_decides_interrupts_the_step() {
    let dir = scratch("exec");
    let file = dir.join("think.wf");
    std::fs::write(
        &file,
        "workflow Think {\n  step think { prompt = \"x\" }\n  exit done\n  start -> think -> done\n}\n",
    )
    .unwrap();
    let run = dir.join("run");
    let shown = run.to_str().unwrap();
    // The agent writes its pid, then never answers.
    let agent = format!(
        "exec:sh -c 'echo $$ > {}; exec sleep 30'",
        dir.join("agent.pid").display()
    );
    let args = [
        "run",
        file.to_str().unwrap(),
        "--agent",
        &agent,
        "--run-dir",
        shown,
    ];
    let child = command(&dir, &args).spawn().unwrap();
    let pidfile = dir.join("agent.pid");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !std::fs::read_to_string(&pidfile).is_ok_and(|t| t.ends_with('\n')) {
        assert!(Instant::now() < deadline, "the agent never started");
        std::thread::sleep(Duration::from_millis(10));
    }
    let agent_pid = std::fs::read_to_string(&pidfile).unwrap().trim().to_owned();
    signal(child.id(), "INT");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.signal(), Some(2), "{out:?}");
    all_gone(&[agent_pid]);
    let state = status(&dir, shown);
    assert_eq!(state["error"]["kind"], "interrupted", "{state}");
    assert_eq!(state["error"]["node"], "think", "{state}");
    // Resumed with an agent that answers, the run completes.
    let out = wfc(&dir, &["run", "--resume", shown, "--agent", "auto"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

/// `wfc cancel` on a `.dot` pipeline in progress: stopped, then cancelled
/// with its compensation run, and its `checkpoint.json` saved again.
#[test]
fn cancel_stops_a_live_pipeline_saga() {
    let dir = scratch("dot_saga");
    let (child, pids) = start(&dir, "tests/run/cancel/saga_slow.dot", &["pid"]);
    let run = dir.join("run");
    let shown = run.to_str().unwrap();
    let checkpoint = || -> Value {
        serde_json::from_slice(&std::fs::read(run.join("checkpoint.json")).unwrap()).unwrap()
    };
    let out = wfc(
        &dir,
        &["cancel", shown, "--allow-tools", "--format", "json"],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report = json(&out);
    assert_eq!(report["kind"], "cancelled");
    assert_eq!(report["compensations"][0]["by"], "refund");
    assert_eq!(report["compensations"][0]["status"], "success");
    let held = child.wait_with_output().unwrap();
    assert_eq!(held.status.signal(), Some(15), "{held:?}");
    all_gone(&pids);
    assert_eq!(ledger(&dir), "charge\nrefund\n");
    // Saved when the holder suspended (step 2), then when the run failed.
    assert_eq!(checkpoint()["step"], 3);
    let out = wfc(&dir, &["replay", shown]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

/// `wfc run --resume DIR --cancel` cannot stop a run in progress: it says
/// that `wfc cancel` can.
#[test]
fn resume_cancel_on_a_live_run_points_to_wfc_cancel() {
    let dir = scratch("resume_cancel_live");
    let (child, pids) = start(&dir, "tests/run/cancel/slow_once.wf", &["pid"]);
    let run = dir.join("run");
    let shown = run.to_str().unwrap();
    let out = wfc(&dir, &["run", "--resume", shown, "--cancel"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(
        text(&out.stderr),
        format!(
            "error: run directory {shown} is in use by process {}\n  help: `wfc cancel {shown}` stops it, then cancels it\n",
            child.id()
        )
    );
    signal(child.id(), "INT");
    child.wait_with_output().unwrap();
    all_gone(&pids);
}
