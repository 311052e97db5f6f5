//! Effects that happen once (issue 17.3): idempotence keys, `at_most_once`
//! settled with `--assume-done` / `--rerun`, and compensation (a saga) on
//! failure, on a budget and after a kill. Each fixture in
//! `tests/run/effects/` carries its expectation beside it: `NAME.trace`
//! holds the ledger its tools append to, then the run's event trace (node
//! exits, effect and engine events); processes are killed for real by the
//! fixtures' own tools (`kill -9 $PPID`).

use crate::common::ledger::{ledger, path, wfc};
use crate::common::repo_root;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use insta_cmd::get_cargo_bin;
use serde_json::Value;

const DIR: &str = "tests/run/effects";

/// A scratch directory holding the ledger `ledger` and the run's files.
fn scratch(name: &str) -> PathBuf {
    crate::common::ledger::scratch("effects", name)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The trace of an `--events` file: one line per node exit, write (its
/// keys, without a tool's stderr and exit code), effect and engine event.
fn trace(events: &Path) -> String {
    let mut out = String::new();
    for line in std::fs::read_to_string(events).unwrap().lines() {
        let e: Value = serde_json::from_str(line).unwrap();
        let s = |k: &str| e[k].as_str().unwrap_or("").to_owned();
        let name = s("event");
        let at = format!("{}/{}", s("workflow"), s("node"));
        let line = match name.as_str() {
            "node:exit" => format!("{name} {at} {}", s("status")),
            "node:retry" => format!("{name} {at} attempt={}", e["attempt"]),
            "effect:reused" => format!("{name} {at} key={} of_step={}", s("key"), e["of_step"]),
            "blackboard:write" => {
                let keys: Vec<&str> = e["writes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|w| w["key"].as_str().unwrap())
                    .filter(|k| !k.ends_with(".stderr") && !k.ends_with(".exit_code"))
                    .collect();
                format!("{name} {at} {}", keys.join(" "))
            }
            "effect:compensated" => format!("{name} {at} by={} {}", s("by"), s("status")),
            n if n.starts_with("engine:") => name.clone(),
            _ => continue,
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Checks the ledger and the trace against `DIR/NAME.trace`.
fn expect(name: &str, dir: &Path, events: &Path) {
    let got = format!("# ledger\n{}# events\n{}", ledger(dir), trace(events));
    crate::common::ledger::expect_trace(DIR, name, &got);
}

fn killed(out: &Output) -> bool {
    use std::os::unix::process::ExitStatusExt;
    out.status.signal() == Some(9)
}

#[test]
fn a_second_call_with_the_same_key_reuses_the_effect() {
    let dir = scratch("idem");
    let events = path(&dir, "events.jsonl");
    let out = wfc(
        &dir,
        false,
        &[
            "run",
            "tests/run/effects/idempotent.wf",
            "--allow-tools",
            "--set",
            "order=42",
            "--events",
            &events,
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    expect("idempotent", &dir, Path::new(&events));
}

#[test]
fn the_key_index_survives_kill_9_and_resume() {
    let dir = scratch("idem_kill");
    let run_dir = path(&dir, "run");
    let events = path(&dir, "events.jsonl");
    let args = [
        "run",
        "tests/run/effects/idempotent.wf",
        "--allow-tools",
        "--set",
        "order=42",
        "--run-dir",
        &run_dir,
    ];
    let out = wfc(&dir, true, &args);
    assert!(killed(&out), "{out:?}");
    assert_eq!(ledger(&dir), "charged\n");
    let out = wfc(
        &dir,
        true,
        &[
            "run",
            "--resume",
            &run_dir,
            "--allow-tools",
            "--events",
            &events,
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The same trace and ledger as the uninterrupted run: charged once.
    expect("idempotent", &dir, Path::new(&events));
    let out = wfc(&dir, false, &["replay", &run_dir]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}

/// A Pay run killed inside `pay`, and its resume without a settlement.
fn killed_payment(name: &str) -> (PathBuf, String) {
    let dir = scratch(name);
    let run_dir = path(&dir, "run");
    let args = [
        "run",
        "tests/run/effects/at_most_once.wf",
        "--allow-tools",
        "--agent",
        "auto",
        "--run-dir",
        &run_dir,
    ];
    let out = wfc(&dir, false, &args);
    assert!(killed(&out), "{out:?}");
    assert_eq!(ledger(&dir), "paid\n");
    let out = wfc(&dir, false, &["run", "--resume", &run_dir, "--allow-tools"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("node `pay` of workflow `Pay` is at_most_once and was started at step 2"),
        "{stdout}"
    );
    assert!(
        text(&out.stderr).contains(&format!("--resume {run_dir} --assume-done pay")),
        "{out:?}"
    );
    let out = wfc(&dir, false, &["status", &run_dir]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("unsettled: node `pay` (at_most_once) started at step 2")
            && stdout.contains(&format!("--resume {run_dir} --assume-done pay")),
        "{out:?}"
    );
    // Human text counts steps from 1; the JSON keeps the log's index.
    let out = wfc(&dir, false, &["status", &run_dir, "--format", "json"]);
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        status["unsettled_effect"],
        serde_json::json!({"workflow": "Pay", "node": "pay", "step": 1}),
        "{out:?}"
    );
    // Suspending again records nothing: the ledger is untouched.
    assert_eq!(ledger(&dir), "paid\n");
    (dir, run_dir)
}

#[test]
fn an_unfinished_at_most_once_node_suspends_until_assumed_done() {
    let (dir, run_dir) = killed_payment("amo_done");
    let out = wfc(
        &dir,
        false,
        &[
            "run",
            "--resume",
            &run_dir,
            "--allow-tools",
            "--rerun",
            "ship",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        text(&out.stderr).contains("the run waits on the at_most_once node `pay`, not `ship`"),
        "{out:?}"
    );
    let events = path(&dir, "events.jsonl");
    let out = wfc(
        &dir,
        false,
        &[
            "run",
            "--resume",
            &run_dir,
            "--allow-tools",
            "--assume-done",
            "pay",
            "--outputs",
            r#"{"pay.stdout": "receipt by hand"}"#,
            "--events",
            &events,
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["blackboard"]["pay.stdout"], "receipt by hand");
    expect("at_most_once_assumed", &dir, Path::new(&events));
    let out = wfc(&dir, false, &["replay", &run_dir]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

#[test]
fn an_unfinished_at_most_once_node_runs_again_on_rerun() {
    let (dir, run_dir) = killed_payment("amo_rerun");
    let events = path(&dir, "events.jsonl");
    let out = wfc(
        &dir,
        false,
        &[
            "run",
            "--resume",
            &run_dir,
            "--allow-tools",
            "--rerun",
            "pay",
            "--events",
            &events,
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    expect("at_most_once_rerun", &dir, Path::new(&events));
    // Nothing is pending any more: a settlement is refused.
    let out = wfc(
        &dir,
        false,
        &["run", "--resume", &run_dir, "--rerun", "pay"],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        text(&out.stderr).contains("no at_most_once node is waiting"),
        "{out:?}"
    );
}

fn saga(dir: &Path, kill: bool, extra: &[&str]) -> Output {
    let mut args = vec!["run", "tests/run/effects/saga.wf", "--allow-tools"];
    args.extend_from_slice(extra);
    wfc(dir, kill, &args)
}

#[test]
fn a_failed_run_compensates_in_reverse_order() {
    let dir = scratch("saga_fail");
    let events = path(&dir, "events.jsonl");
    let out = saga(
        &dir,
        false,
        &[
            "--agent",
            "script:tests/run/effects/saga_fail.json",
            "--events",
            &events,
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    expect("saga_fail", &dir, Path::new(&events));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let list: Vec<(&str, &str, &str)> = report["compensations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["node"].as_str().unwrap(),
                c["by"].as_str().unwrap(),
                c["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        list,
        [
            ("charge", "refund", "success"),
            ("reserve", "release", "success")
        ]
    );
}

#[test]
fn a_run_over_its_budget_compensates() {
    let dir = scratch("saga_budget");
    let events = path(&dir, "events.jsonl");
    let out = saga(
        &dir,
        false,
        &["--agent", "auto", "--max-steps", "3", "--events", &events],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    expect("saga_budget", &dir, Path::new(&events));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("compensations (most recent effect first):\n  refund undid charge: success\n  release undid reserve: success\n"),
        "{stderr}"
    );
}

#[test]
fn a_completed_run_compensates_nothing() {
    let dir = scratch("saga_ok");
    let out = saga(&dir, false, &["--agent", "auto", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report.get("compensations").is_none(), "{report}");
    assert_eq!(ledger(&dir), "reserve\ncharge\n");
}

#[test]
fn compensation_resumes_after_a_kill_without_repeating_finished_ones() {
    let dir = scratch("saga_kill");
    let run_dir = path(&dir, "run");
    let script = "script:tests/run/effects/saga_fail.json";
    let out = saga(&dir, true, &["--agent", script, "--run-dir", &run_dir]);
    // `release` killed wfc after `refund` had run.
    assert!(killed(&out), "{out:?}");
    assert_eq!(ledger(&dir), "reserve\ncharge\nrefund\nrelease\n");
    let out = wfc(&dir, true, &["run", "--resume", &run_dir, "--allow-tools"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    // `refund` finished before the kill: only `release` runs again.
    assert_eq!(ledger(&dir), "reserve\ncharge\nrefund\nrelease\nrelease\n");
    assert!(
        text(&out.stderr)
            .contains("refund undid charge: success\n  release undid reserve: success"),
        "{out:?}"
    );
    // Once all have run, a resume runs none.
    let out = wfc(&dir, true, &["run", "--resume", &run_dir, "--allow-tools"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(ledger(&dir), "reserve\ncharge\nrefund\nrelease\nrelease\n");
    let out = wfc(&dir, false, &["replay", &run_dir]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

#[test]
fn a_dot_pipeline_compensates_with_its_compensate_attribute() {
    let dir = scratch("saga_dot");
    let events = path(&dir, "events.jsonl");
    let out = wfc(
        &dir,
        false,
        &[
            "run",
            "tests/run/effects/saga.dot",
            "--allow-tools",
            "--agent",
            "auto",
            "--events",
            &events,
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    expect("saga_dot", &dir, Path::new(&events));
}

#[test]
fn the_checker_types_effect_attributes() {
    let dir = scratch("check");
    let out = wfc(&dir, false, &["check", "tests/run/effects/bad_effects.wf"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = text(&out.stdout);
    for want in [
        "error[WF0530]: `note` cannot compensate node `charge`",
        "`note` is a `step` node",
        "error[WF0504]: unknown kind of effect `twice` for `effect`",
        "error[WF0530]: `undo` cannot compensate node `undo`",
        "warning[WF0508]: `effect` has no effect on a `human` node",
    ] {
        assert!(stderr.contains(want), "missing {want:?} in\n{stderr}");
    }
    // The fixtures that run check clean: compensating nodes are not
    // unreachable.
    for file in [
        "idempotent.wf",
        "at_most_once.wf",
        "saga.wf",
        "saga.dot",
        "restart.dot",
        "retry.wf",
        "step_key.wf",
    ] {
        let out = wfc(&dir, false, &["check", &format!("{DIR}/{file}")]);
        assert_eq!(out.status.code(), Some(0), "{file}: {out:?}");
    }
}

#[test]
fn a_key_outlives_loop_restart() {
    let dir = scratch("restart");
    let events = path(&dir, "events.jsonl");
    let out = wfc(
        &dir,
        false,
        &[
            "run",
            "tests/run/effects/restart.dot",
            "--allow-tools",
            "--agent",
            "script:tests/run/effects/restart.json",
            "--events",
            &events,
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    expect("restart", &dir, Path::new(&events));
}

#[test]
fn a_step_node_with_a_key_reuses_the_agents_decision() {
    let dir = scratch("step_key");
    let events = path(&dir, "events.jsonl");
    let out = wfc(
        &dir,
        false,
        &[
            "run",
            "tests/run/effects/step_key.wf",
            "--set",
            "customer=acme",
            "--agent",
            "script:tests/run/effects/step_key.json",
            "--events",
            &events,
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["blackboard"]["price"], 100);
    assert_eq!(report["blackboard"]["again"], 100);
    expect("step_key", &dir, Path::new(&events));
}

#[test]
fn a_key_with_a_missing_value_fails_the_node_before_it_runs() {
    let dir = scratch("missing_key");
    let out = wfc(
        &dir,
        false,
        &[
            "run",
            "tests/run/effects/missing_key.wf",
            "--allow-tools",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["at"]["node"], "failed");
    let reason = report["failures"][0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("interpolates `nowhere`, which has no value in scope"),
        "{reason}"
    );
    assert_eq!(ledger(&dir), "");
}

/// A kill between an effect's `done` line and its step record (the window
/// is too short to hit from outside, so the run directory is cut back to
/// that moment: the log up to the first `done` line, the snapshot at the
/// start). `reserve` has no key: the `done` line alone keeps it from
/// running again.
#[test]
fn an_effect_done_but_not_committed_is_not_run_again() {
    let dir = scratch("done_uncommitted");
    let run_dir = dir.join("run");
    let run = run_dir.to_str().unwrap();
    let out = saga(&dir, false, &["--agent", "auto", "--run-dir", run]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(ledger(&dir), "reserve\ncharge\n");
    let log = std::fs::read_to_string(run_dir.join("log.jsonl")).unwrap();
    let cut = log.find("{\"effect\":\"done\"").unwrap();
    let end = cut + log[cut..].find('\n').unwrap() + 1;
    std::fs::write(run_dir.join("log.jsonl"), &log[..end]).unwrap();
    std::fs::copy(run_dir.join("start.json"), run_dir.join("snapshot.json")).unwrap();
    let events = path(&dir, "events.jsonl");
    let resume = ["run", "--resume", run, "--allow-tools", "--events", &events];
    let out = wfc(&dir, false, &resume);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // `reserve` ran once: its step reuses the recorded outcome. `charge`,
    // whose `done` line was cut, runs again.
    assert_eq!(ledger(&dir), "reserve\ncharge\ncharge\n");
    let trace = trace(Path::new(&events));
    assert!(
        trace.contains("node:exit Saga/start success\neffect:reused Saga/reserve key= of_step=1\nnode:exit Saga/reserve success\n"),
        "{trace}"
    );
    let out = wfc(&dir, false, &["replay", run]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

#[test]
fn a_cancelled_run_compensates() {
    let dir = scratch("saga_cancel");
    let run_dir = path(&dir, "run");
    let script = "script:tests/run/effects/saga_suspend.json";
    let out = saga(&dir, false, &["--agent", script, "--run-dir", &run_dir]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert_eq!(ledger(&dir), "reserve\ncharge\n");
    let events = path(&dir, "events.jsonl");
    let cancel = [
        "run",
        "--resume",
        &run_dir,
        "--allow-tools",
        "--cancel",
        "--events",
        &events,
        "--format",
        "json",
    ];
    let out = wfc(&dir, false, &cancel);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["kind"], "cancelled");
    assert_eq!(report["code"], "WF0930");
    expect("saga_cancel", &dir, Path::new(&events));
    // The cancellation is the log's last step: replay reaches the same end,
    // and a cancelled run cannot be cancelled again.
    let out = wfc(&dir, false, &["replay", &run_dir]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = wfc(&dir, false, &["run", "--resume", &run_dir, "--cancel"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        text(&out.stderr).contains("error: cannot cancel: the run has already ended (failed)"),
        "{out:?}"
    );
    assert_eq!(ledger(&dir), "reserve\ncharge\nrefund\nrelease\n");
}

#[test]
fn a_retry_target_back_to_a_completed_effect_reuses_it() {
    let dir = scratch("retry");
    let events = path(&dir, "events.jsonl");
    let out = wfc(
        &dir,
        false,
        &[
            "run",
            "tests/run/effects/retry.wf",
            "--allow-tools",
            "--set",
            "order=9",
            "--agent",
            "script:tests/run/effects/retry.json",
            "--events",
            &events,
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    expect("retry", &dir, Path::new(&events));
}

/// `a1`…`aN` each complete an effect under key `kI`; `b1`…`bN` come later
/// with the same keys, so they must never run their command (`B` lines).
/// Each tool takes 10 ms, so that the kills of
/// `no_recorded_effect_runs_again_across_random_kills` land inside the run
/// however fast the machine.
fn twin_chain(dir: &Path, n: usize) -> PathBuf {
    let mut text = String::from("workflow Twins {\n");
    for p in ["a", "b"] {
        for i in 1..=n {
            text.push_str(&format!(
                "  tool {p}{i} {{\n    command = \"sleep 0.01; echo {p}{i} >> \\\"\\$WFC_TEST_LEDGER\\\"; echo {i}\"\n    idempotence_key = \"k{i}\"\n    writes {p}{i}.stdout: string\n  }}\n"
            ));
        }
    }
    text.push_str("  exit done\n  start");
    for p in ["a", "b"] {
        for i in 1..=n {
            text.push_str(&format!(" -> {p}{i}"));
        }
    }
    text.push_str(" -> done\n}\n");
    let file = dir.join("twins.wf");
    std::fs::write(&file, text).unwrap();
    file
}

/// Kill -9 at many moments of a run whose later nodes reuse the effects of
/// earlier ones: after any kill and resume, no effect recorded as done
/// runs again (no `b` line in the ledger), the run ends as an
/// uninterrupted one does, and its log replays.
#[test]
fn no_recorded_effect_runs_again_across_random_kills() {
    const N: usize = 25;
    let dir = scratch("random_kills");
    let file = twin_chain(&dir, N);
    let run_dir = path(&dir, "run");
    let mut seed: u64 = 0x05ee_d173;
    let mut kills = 0;
    let mut finished = None;
    for round in 0..60 {
        let args: Vec<String> = if round == 0 {
            [
                "run",
                file.to_str().unwrap(),
                "--allow-tools",
                "--run-dir",
                &run_dir,
            ]
            .map(String::from)
            .to_vec()
        } else {
            ["run", "--resume", &run_dir, "--allow-tools"]
                .map(String::from)
                .to_vec()
        };
        let mut child = Command::new(get_cargo_bin("wfc"))
            .current_dir(repo_root())
            .args(&args)
            .env("WFC_TEST_LEDGER", dir.join("ledger"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("stderr")).unwrap())
            .spawn()
            .unwrap();
        // A kill before the first snapshot leaves no run to resume.
        let snapshot = Path::new(&run_dir).join("snapshot.json");
        let started = std::time::Instant::now();
        while !snapshot.exists() && started.elapsed() < std::time::Duration::from_secs(10) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let delay = 5 + (seed >> 33) % 60;
        std::thread::sleep(std::time::Duration::from_millis(delay));
        match child.try_wait().unwrap() {
            // A tool process of a killed run, forked but not yet past its
            // `exec`, can hold the lock a moment longer: try again.
            Some(status)
                if status.code() == Some(2)
                    && std::fs::read_to_string(dir.join("stderr"))
                        .unwrap_or_default()
                        .contains("is in use by process") =>
            {
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            Some(status) => {
                finished = Some(status);
                break;
            }
            None => {
                child.kill().unwrap();
                child.wait().unwrap();
                kills += 1;
            }
        }
    }
    let status = match finished {
        Some(s) => s,
        // Never finished within a delay: let one resume run to the end.
        None => wfc(&dir, false, &["run", "--resume", &run_dir, "--allow-tools"]).status,
    };
    let stderr = std::fs::read_to_string(dir.join("stderr")).unwrap_or_default();
    assert_eq!(status.code(), Some(0), "after {kills} kills: {stderr}");
    assert!(
        kills >= 3,
        "the kills landed too late to test anything: {kills}"
    );
    let ledger = ledger(&dir);
    eprintln!(
        "{kills} kills, {} commands run for {N} effects",
        ledger.lines().count()
    );
    assert!(
        !ledger.contains('b'),
        "a reused effect ran again:\n{ledger}"
    );
    for i in 1..=N {
        assert!(
            ledger.contains(&format!("a{i}\n")),
            "a{i} never ran:\n{ledger}"
        );
    }
    let out = wfc(&dir, false, &["status", &run_dir, "--format", "json"]);
    let state: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(state["state"], "completed", "{state}");
    let out = wfc(&dir, false, &["replay", &run_dir]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

/// Issue 17.3: `wfc cancel` on a run in progress stops it (SIGTERM to the
/// holder the lock names, which suspends the run as interrupted and
/// releases the lock), then cancels it: the completed effects are undone
/// in reverse order, and the report lists the compensations. The trace
/// (`saga_live_cancel.trace`) is the holder's events, then the cancel's.
#[cfg(unix)]
#[test]
fn cancel_stops_a_live_saga_and_compensates_it() {
    use std::os::unix::process::ExitStatusExt;
    let dir = scratch("saga_live_cancel");
    let run_dir = path(&dir, "run");
    let events = path(&dir, "events.jsonl");
    let holder = Command::new(get_cargo_bin("wfc"))
        .current_dir(repo_root())
        .args(["run", "tests/run/effects/saga_slow.wf", "--allow-tools"])
        .args(["--progress", "never", "--run-dir", &run_dir])
        .args(["--events", &events])
        .env("WFC_TEST_LEDGER", dir.join("ledger"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pidfile = dir.join("ledger.pid");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !std::fs::read_to_string(&pidfile).is_ok_and(|t| t.ends_with('\n')) {
        assert!(std::time::Instant::now() < deadline, "`wait` never started");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let tool = std::fs::read_to_string(&pidfile).unwrap().trim().to_owned();
    let cancel = [
        "cancel",
        &run_dir,
        "--allow-tools",
        "--reason",
        "out of stock",
        "--events",
        &events,
        "--format",
        "json",
    ];
    let out = wfc(&dir, false, &cancel);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        text(&out.stderr).contains(&format!(
            "(process {}): sent SIGTERM; waiting up to 30s for it to stop",
            holder.id()
        )),
        "{out:?}"
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["status"], "failed");
    assert_eq!(report["kind"], "cancelled");
    assert_eq!(report["code"], "WF0930");
    assert_eq!(
        report["reason"],
        "the run was cancelled: `wfc cancel`: out of stock"
    );
    let undone: Vec<_> = report["compensations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| format!("{} {} {}", c["by"], c["node"], c["status"]))
        .collect();
    assert_eq!(
        undone,
        [
            r#""refund" "charge" "success""#,
            r#""release" "reserve" "success""#
        ]
    );
    // The holder suspended the run and ended by the signal.
    let held = holder.wait_with_output().unwrap();
    assert_eq!(held.status.signal(), Some(15), "{held:?}");
    assert!(
        text(&held.stderr).contains("hint: interrupted (SIGTERM) at step 4 (node `wait`"),
        "{held:?}"
    );
    assert!(
        !crate::common::process::Tool::of(&tool).runs(),
        "the tool outlived its run"
    );
    expect("saga_live_cancel", &dir, Path::new(&events));
    let out = wfc(&dir, false, &["replay", &run_dir]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = wfc(&dir, false, &["cancel", &run_dir]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

/// `wfc cancel` on a suspended run: the same as `wfc run --resume DIR
/// --cancel`, with `wfc cancel`'s exit status (0: every compensation
/// succeeded) and report. Without `--allow-tools` it does not cancel a run
/// with effects to undo, and leaves the run as it was.
#[test]
fn cancel_a_suspended_saga() {
    let dir = scratch("saga_cancel_cmd");
    let run_dir = path(&dir, "run");
    let script = "script:tests/run/effects/saga_suspend.json";
    let out = saga(&dir, false, &["--agent", script, "--run-dir", &run_dir]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let out = wfc(&dir, false, &["cancel", &run_dir]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(
        text(&out.stderr),
        "error: the run has 2 completed effects to compensate, and compensations run `tool` commands\n  \
         help: add --allow-tools to cancel it and run them (the run was left as it was)\n"
    );
    let out = wfc(&dir, false, &["status", &run_dir]);
    assert!(text(&out.stdout).contains(": suspended\n"), "{out:?}");
    let out = wfc(&dir, false, &["cancel", &run_dir, "--allow-tools"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report = text(&out.stdout);
    assert!(
        report.contains("kind: cancelled (WF0930 run-cancelled"),
        "{report}"
    );
    assert!(
        report.ends_with(
            "compensations (most recent effect first):\n  refund undid charge: success\n  release undid reserve: success\n"
        ),
        "{report}"
    );
    assert_eq!(ledger(&dir), "reserve\ncharge\nrefund\nrelease\n");
}

/// A compensation that fails makes `wfc cancel` exit 1, the report saying
/// which (the others still run).
#[test]
fn cancel_exits_1_when_a_compensation_fails() {
    let dir = scratch("saga_cancel_fails");
    let run_dir = path(&dir, "run");
    let script = "script:tests/run/effects/saga_suspend.json";
    let out = saga(&dir, false, &["--agent", script, "--run-dir", &run_dir]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    // `refund` appends to the ledger: a directory there makes it fail.
    std::fs::remove_file(dir.join("ledger")).unwrap();
    std::fs::create_dir(dir.join("ledger")).unwrap();
    let out = wfc(&dir, false, &["cancel", &run_dir, "--allow-tools"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let report = text(&out.stdout);
    assert!(report.contains("  refund undid charge: fail: "), "{report}");
    // `release` ignores its `echo`'s status (saga.wf): it succeeds.
    assert!(
        report.ends_with("  release undid reserve: success\n"),
        "{report}"
    );
}

/// The trace of an `--events` file with its parallel branches: engine
/// events, node exits and reused effects, a branch's prefixed by it, and
/// each branch's completion (`resumed` when taken from the journal).
fn branch_trace(events: &Path) -> String {
    let mut out = String::new();
    for line in std::fs::read_to_string(events).unwrap().lines() {
        let e: Value = serde_json::from_str(line).unwrap();
        let (prefix, ev) = match e["name"].as_str() {
            Some("ParallelBranchEvent") => (
                format!("branch {}: ", e["data"]["branch"].as_str().unwrap()),
                &e["data"]["event"],
            ),
            Some("ParallelBranchCompleted") => {
                let resumed = if e["data"]["resumed"] == true {
                    " (resumed)"
                } else {
                    ""
                };
                let b = e["data"]["branch"].as_str().unwrap();
                out.push_str(&format!("branch {b} completed{resumed}\n"));
                continue;
            }
            _ => (String::new(), &e),
        };
        let s = |k: &str| ev[k].as_str().unwrap_or("").to_owned();
        let at = format!("{}/{}", s("workflow"), s("node"));
        let name = s("event");
        let line = match name.as_str() {
            "node:exit" => format!("{name} {at} {}", s("status")),
            "effect:reused" => format!("{name} {at} of_step={}", ev["of_step"]),
            n if n.starts_with("engine:") => name.clone(),
            _ => continue,
        };
        out.push_str(&format!("{prefix}{line}\n"));
    }
    out
}

/// A Shop run killed inside `charge`, an `at_most_once` node in a
/// parallel branch, and its resume without a settlement: it suspends
/// naming the node by its branch-qualified name, and `wfc status` too.
fn killed_in_branch(name: &str) -> (PathBuf, String) {
    let dir = scratch(name);
    let run_dir = path(&dir, "run");
    let file = "tests/run/effects/branch_once.wf";
    let args = ["run", file, "--allow-tools", "--agent", "auto"];
    let out = wfc(&dir, false, &[&args[..], &["--run-dir", &run_dir]].concat());
    assert!(killed(&out), "{out:?}");
    assert_eq!(ledger(&dir), "pack\nreserve\ncharge\n");
    let resume = ["run", "--resume", &run_dir, "--allow-tools"];
    let out = wfc(&dir, false, &resume);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let q = "fan#1/reserve/charge";
    assert!(
        text(&out.stdout).contains(&format!(
            "node `{q}` (workflow `Shop`) is at_most_once and was started in a parallel branch but not recorded as finished"
        )),
        "{out:?}"
    );
    assert!(
        text(&out.stderr).contains(&format!("--resume {run_dir} --assume-done {q}"))
            && text(&out.stderr).contains(&format!("--resume {run_dir} --rerun {q}")),
        "{out:?}"
    );
    let out = wfc(&dir, false, &["status", &run_dir]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(&format!(
            "unsettled: node `{q}` (at_most_once) started in a parallel branch"
        )) && stdout.contains(&format!("--resume {run_dir} --assume-done {q}")),
        "{out:?}"
    );
    // Resumed again unsettled, it suspends again before the fan-out runs.
    let out = wfc(&dir, false, &resume);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(
        text(&out.stdout).contains(&format!(
            "node `{q}` of workflow `Shop` is at_most_once and was started in a parallel branch"
        )),
        "{out:?}"
    );
    // The node's own name is not enough: it names no node of the run.
    let out = wfc(&dir, false, &[&resume[..], &["--rerun", "charge"]].concat());
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        text(&out.stderr).contains(&format!(
            "the run waits on the at_most_once node `{q}`, not `charge`"
        )),
        "{out:?}"
    );
    // Neither `pack` (journaled) nor `reserve` (done) nor `charge`
    // (unsettled) ran again; `mail` had not started: it ran.
    assert_eq!(ledger(&dir), "pack\nreserve\ncharge\nmail\n");
    (dir, run_dir)
}

/// Issue 17.3 in a `.wf` parallel branch: the branch killed in `charge`
/// runs again on resume without running it, and waits until the user says
/// it happened; the ledger has it once, the run ends with the outputs
/// given, and it replays. Trace: `branch_once_assumed.trace`.
#[test]
fn an_unfinished_at_most_once_node_in_a_branch_waits_until_assumed_done() {
    let (dir, run_dir) = killed_in_branch("amo_branch_done");
    let events = path(&dir, "events.jsonl");
    let out = wfc(
        &dir,
        false,
        &[
            "run",
            "--resume",
            &run_dir,
            "--allow-tools",
            "--assume-done",
            "fan#1/reserve/charge",
            "--outputs",
            r#"{"charge.stdout": "receipt by hand"}"#,
            "--events",
            &events,
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["blackboard"]["charge.stdout"], "receipt by hand");
    assert_eq!(report["blackboard"]["reserve.stdout"], "reserved\n");
    let got = format!(
        "# ledger\n{}# events\n{}",
        ledger(&dir),
        branch_trace(Path::new(&events))
    );
    check_trace("branch_once_assumed", &got);
    let out = wfc(&dir, false, &["replay", &run_dir]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // Settled: nothing waits any more.
    let out = wfc(&dir, false, &["status", &run_dir]);
    assert!(!text(&out.stdout).contains("unsettled"), "{out:?}");
}

/// The same, settled with `--rerun`: `charge` runs once more (the user
/// said it had not happened), `reserve` still not. Trace:
/// `branch_once_rerun.trace`.
#[test]
fn an_unfinished_at_most_once_node_in_a_branch_runs_again_on_rerun() {
    let (dir, run_dir) = killed_in_branch("amo_branch_rerun");
    let events = path(&dir, "events.jsonl");
    let resume = ["run", "--resume", &run_dir, "--allow-tools"];
    let out = wfc(
        &dir,
        false,
        &[
            &resume[..],
            &["--rerun", "fan#1/reserve/charge", "--events", &events],
        ]
        .concat(),
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let got = format!(
        "# ledger\n{}# events\n{}",
        ledger(&dir),
        branch_trace(Path::new(&events))
    );
    check_trace("branch_once_rerun", &got);
    let out = wfc(&dir, false, &["replay", &run_dir]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = wfc(
        &dir,
        false,
        &[&resume[..], &["--rerun", "fan#1/reserve/charge"]].concat(),
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        text(&out.stderr).contains("no at_most_once node is waiting"),
        "{out:?}"
    );
}

/// Checks `got` against `DIR/NAME.trace` (`UPDATE_TRACES=1` rewrites it).
fn check_trace(name: &str, got: &str) {
    let file = repo_root().join(DIR).join(format!("{name}.trace"));
    if std::env::var_os("UPDATE_TRACES").is_some() {
        std::fs::write(&file, got).unwrap();
    }
    let want = std::fs::read_to_string(&file).unwrap_or_default();
    assert_eq!(
        got,
        want,
        "{} differs from this run:\n{got}",
        file.display()
    );
}

/// The same with the branches running at once (`max_parallel = 4`): the
/// kill in `charge` may cut the other branches anywhere, but neither
/// `reserve` nor `charge` runs again; the resume suspends on `charge`,
/// `--assume-done` settles it, and the run replays.
#[test]
fn an_at_most_once_node_in_concurrent_branches_runs_at_most_once() {
    let dir = scratch("amo_branch_concurrent");
    let run_dir = path(&dir, "run");
    let source = std::fs::read_to_string(repo_root().join(DIR).join("branch_once.wf")).unwrap();
    let file = dir.join("shop.wf");
    let at_once = source.replace("max_parallel = 1", "max_parallel = 4");
    assert_ne!(at_once, source);
    std::fs::write(&file, at_once).unwrap();
    let file = file.to_str().unwrap();
    let args = ["run", file, "--allow-tools", "--agent", "auto"];
    let out = wfc(&dir, false, &[&args[..], &["--run-dir", &run_dir]].concat());
    assert!(killed(&out), "{out:?}");
    let count = |what: &str| ledger(&dir).lines().filter(|l| *l == what).count();
    let resume = ["run", "--resume", &run_dir, "--allow-tools"];
    let out = wfc(&dir, false, &resume);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(
        text(&out.stderr).contains("--assume-done fan#1/reserve/charge"),
        "{out:?}"
    );
    let settle = ["--assume-done", "fan#1/reserve/charge", "--format", "json"];
    let out = wfc(&dir, false, &[&resume[..], &settle[..]].concat());
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["at"]["node"], "done", "{report}");
    assert_eq!(
        (count("reserve"), count("charge")),
        (1, 1),
        "{}",
        ledger(&dir)
    );
    let out = wfc(&dir, false, &["replay", &run_dir]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

/// Issue 17.3, "on retry": an attempt whose outcome is `retry` is not a
/// completed effect. It is not recorded under the node's key, so the retry
/// runs the node again instead of reusing the `retry` until the attempts
/// run out; the success that follows is the effect, reused by the second
/// call. Trace: `retry_attempt.trace`.
#[test]
fn an_attempt_that_asks_for_a_retry_is_not_a_completed_effect() {
    let dir = scratch("retry_attempt");
    let (events, run_dir) = (path(&dir, "events.jsonl"), path(&dir, "run"));
    let out = wfc(
        &dir,
        false,
        &[
            "run",
            "tests/run/effects/retry_attempt.wf",
            "--set",
            "customer=acme",
            "--agent",
            "script:tests/run/effects/retry_attempt.json",
            "--run-dir",
            &run_dir,
            "--events",
            &events,
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["blackboard"]["price"], 100);
    assert_eq!(report["blackboard"]["again"], 100);
    expect("retry_attempt", &dir, Path::new(&events));
    // The log records one completed effect for the key: the success.
    let log = std::fs::read_to_string(Path::new(&run_dir).join("log.jsonl")).unwrap();
    let done: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("{\"effect\":\"done\""))
        .collect();
    assert_eq!(done.len(), 1, "{log}");
    assert!(done[0].contains("\"status\":\"success\""), "{}", done[0]);
}

/// Runs `branch_keys.wf` (as `file`) with a run directory, killed once
/// after the join, and resumes it: returns the scratch dir, the run dir
/// and the events file of the resumed run.
fn branch_keys(name: &str, file: &str) -> (PathBuf, String, String) {
    let dir = scratch(name);
    let (run_dir, events) = (path(&dir, "run"), path(&dir, "events.jsonl"));
    let args = [
        "run",
        file,
        "--allow-tools",
        "--agent",
        "auto",
        "--set",
        "order=7",
        "--run-dir",
        &run_dir,
    ];
    let out = wfc(&dir, true, &args);
    assert!(killed(&out), "`crash` kills the first process: {out:?}");
    let resume = ["run", "--resume", &run_dir, "--allow-tools"];
    let out = wfc(&dir, true, &[&resume[..], &["--events", &events]].concat());
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = wfc(&dir, false, &["replay", &run_dir]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    (dir, run_dir, events)
}

/// Issue 17.3 across parallel branches: a branch reuses the key the run
/// completed before the fan-out and the key a sibling completed, and the
/// run after the join (killed and resumed in between) reuses the
/// branches' keys: one `reserve`, one `charge`. Trace: `branch_keys.trace`.
#[test]
fn keys_completed_in_branches_are_the_runs_after_the_join() {
    let (dir, run_dir, events) = branch_keys("branch_keys", "tests/run/effects/branch_keys.wf");
    assert_eq!(ledger(&dir), "reserve\ncharge\n");
    let got = format!(
        "# ledger\n{}# events\n{}",
        ledger(&dir),
        branch_trace(Path::new(&events))
    );
    check_trace("branch_keys", &got);
    // The join recorded the branches' keys in the run log, at the
    // fan-out's step, so the kill after it lost none.
    let log = std::fs::read_to_string(Path::new(&run_dir).join("log.jsonl")).unwrap();
    let merged: Vec<Value> = log
        .lines()
        .filter(|l| l.starts_with("{\"effect\":\"done\""))
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &Value| v["key"] == "charge-7")
        .collect();
    assert_eq!(merged.len(), 1, "{log}");
    assert_eq!(
        (&merged[0]["workflow"], &merged[0]["node"]),
        (&"Charge".into(), &"charge".into())
    );
}

/// The same with the branches at once: `pay_a` and `pay_b` charge under
/// one key at the same moment; one runs, the other waits for it and reuses
/// its result (whichever comes first): still one `charge`.
#[test]
fn siblings_running_one_key_at_once_run_it_once() {
    let source = std::fs::read_to_string(repo_root().join(DIR).join("branch_keys.wf")).unwrap();
    let at_once = source.replace("max_parallel = 1", "max_parallel = 3");
    assert_ne!(at_once, source);
    let dir = scratch("branch_keys_at_once_src");
    let file = dir.join("shop.wf");
    std::fs::write(&file, at_once).unwrap();
    let (dir, _, events) = branch_keys("branch_keys_at_once", file.to_str().unwrap());
    assert_eq!(ledger(&dir), "reserve\ncharge\n");
    let all = std::fs::read_to_string(&events).unwrap();
    assert!(all.contains("\"concurrency\":3"), "{all}");
    let trace = branch_trace(Path::new(&events));
    let reused = trace
        .lines()
        .filter(|l| l.contains("effect:reused Charge/charge"))
        .count();
    assert_eq!(reused, 2, "one branch and `pay_again` reuse it:\n{trace}");
}

/// Runs `branch_once_two.wf` until `charge` kills wfc with both branches'
/// `at_most_once` nodes started, then resumes it unsettled: it suspends
/// naming both at once, and `wfc status` lists both.
fn killed_in_two_branches(name: &str) -> (PathBuf, String) {
    let dir = scratch(name);
    let run_dir = path(&dir, "run");
    let file = "tests/run/effects/branch_once_two.wf";
    let out = wfc(
        &dir,
        false,
        &["run", file, "--allow-tools", "--run-dir", &run_dir],
    );
    assert!(killed(&out), "{out:?}");
    let out = wfc(&dir, false, &["run", "--resume", &run_dir, "--allow-tools"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let (ship, charge) = ("fan#1/ship/ship", "fan#1/charge/charge");
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(
        said.contains("2 at_most_once nodes were started in parallel branches")
            && said.contains(&format!("node `{ship}` (workflow `Two`)"))
            && said.contains(&format!("node `{charge}` (workflow `Two`)"))
            && said.contains(&format!("`--assume-done {ship}` if it took effect"))
            && said.contains(&format!("`--rerun {charge}` if not")),
        "{said}"
    );
    let out = wfc(&dir, false, &["status", &run_dir]);
    let stdout = text(&out.stdout);
    for q in [ship, charge] {
        assert!(
            stdout.contains(&format!(
                "unsettled: node `{q}` (at_most_once) started in a parallel branch"
            )),
            "{stdout}"
        );
    }
    assert!(
        stdout.contains(&format!(
            "`wfc run --resume {run_dir} --assume-done {ship} --assume-done {charge}`"
        )),
        "{stdout}"
    );
    let out = wfc(&dir, false, &["status", &run_dir, "--format", "json"]);
    let status: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = (status["unsettled_effects"].as_array().unwrap().iter())
        .map(|e| e["node"].as_str().unwrap())
        .collect();
    assert_eq!(names, [ship, charge], "{status}");
    (dir, run_dir)
}

/// Issue 17.3: several unsettled `at_most_once` nodes in branches are
/// asked at once and settled in one resume (`--assume-done` for `ship`,
/// `--rerun` for `charge`): `ship` does not run again, `charge` does, and
/// the run ends and replays. Trace: `branch_once_two.trace`.
#[test]
fn several_unsettled_nodes_in_branches_are_settled_at_once() {
    let (dir, run_dir) = killed_in_two_branches("amo_two");
    let events = path(&dir, "events.jsonl");
    let out = wfc(
        &dir,
        false,
        &[
            "run",
            "--resume",
            &run_dir,
            "--allow-tools",
            "--assume-done",
            "fan#1/ship/ship",
            "--outputs",
            r#"{"ship.stdout": "shipped by hand"}"#,
            "--rerun",
            "fan#1/charge/charge",
            "--events",
            &events,
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["blackboard"]["ship.stdout"], "shipped by hand");
    assert_eq!(report["blackboard"]["charge.stdout"], "receipt\n");
    let mut lines: Vec<String> = ledger(&dir).lines().map(str::to_owned).collect();
    lines.sort();
    assert_eq!(lines, ["charge", "charge", "ship"]);
    check_trace("branch_once_two", &branch_trace(Path::new(&events)));
    let out = wfc(&dir, false, &["replay", &run_dir]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = wfc(&dir, false, &["status", &run_dir]);
    assert!(!text(&out.stdout).contains("unsettled"), "{out:?}");
}

/// Settling only some: the run goes on with them, and the branch whose
/// node is still unsettled waits again, the run suspending naming only
/// it; a node named twice, or one that does not wait, is refused.
#[test]
fn settling_some_unsettled_nodes_leaves_the_others_waiting() {
    let (dir, run_dir) = killed_in_two_branches("amo_two_partial");
    let resume = ["run", "--resume", &run_dir, "--allow-tools"];
    let twice = [
        "--rerun",
        "fan#1/ship/ship",
        "--assume-done",
        "fan#1/ship/ship",
    ];
    let out = wfc(&dir, false, &[&resume[..], &twice[..]].concat());
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        text(&out.stderr).contains("`fan#1/ship/ship` is settled twice"),
        "{out:?}"
    );
    let out = wfc(&dir, false, &[&resume[..], &["--rerun", "ship"]].concat());
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        text(&out.stderr).contains(
            "the run waits on the at_most_once nodes `fan#1/ship/ship`, `fan#1/charge/charge`, not `ship`"
        ),
        "{out:?}"
    );
    let out = wfc(
        &dir,
        false,
        &[&resume[..], &["--rerun", "fan#1/charge/charge"]].concat(),
    );
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let said = text(&out.stdout);
    assert!(
        said.contains("node `fan#1/ship/ship` (workflow `Two`) is at_most_once")
            && !said.contains("charge/charge"),
        "{said}"
    );
    let out = wfc(
        &dir,
        false,
        &[&resume[..], &["--assume-done", "fan#1/ship/ship"]].concat(),
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let mut lines: Vec<String> = ledger(&dir).lines().map(str::to_owned).collect();
    lines.sort();
    assert_eq!(lines, ["charge", "charge", "ship"]);
    let out = wfc(&dir, false, &["replay", &run_dir]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

/// Issue 17.3, "on retry after a partial result": a `retry` that ends the
/// node as `partial_success` (its retries spent, `allow_partial`) is a
/// result: recorded under the key as `partial_success`, and reused so by
/// the second call, at once, without asking the agent again. Trace:
/// `retry_partial.trace`.
#[test]
fn a_partial_result_when_retries_run_out_is_the_keys_effect() {
    let dir = scratch("retry_partial");
    let events = path(&dir, "events.jsonl");
    let out = wfc(
        &dir,
        false,
        &[
            "run",
            "tests/run/effects/retry_partial.wf",
            "--set",
            "customer=acme",
            "--agent",
            "script:tests/run/effects/retry_partial.json",
            "--events",
            &events,
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["blackboard"]["price"], 90);
    assert_eq!(report["blackboard"]["again"], 90);
    expect("retry_partial", &dir, Path::new(&events));
}

/// Issue 17.3 across Attractor parallel branches, as for `.wf`
/// (`branch_keys.dot`, branches one at a time): a branch reuses the key
/// the run completed before the fan-out and the key a sibling completed,
/// and the node after the fan-in (killed and resumed in between) reuses
/// the branches' key: one `reserve`, one `charge`. Trace:
/// `branch_keys_dot.trace`.
#[test]
fn keys_completed_in_attractor_branches_are_the_runs_after_the_fan_in() {
    let file = "tests/run/effects/branch_keys.dot";
    let (dir, run_dir, events) = branch_keys("branch_keys_dot", file);
    assert_eq!(ledger(&dir), "reserve\ncharge\n");
    let got = format!(
        "# ledger\n{}# events\n{}",
        ledger(&dir),
        branch_trace(Path::new(&events))
    );
    check_trace("branch_keys_dot", &got);
    // The fan-out's step recorded the branch's key in the run log, before
    // its step record, so the kill after the fan-in lost none.
    let log = std::fs::read_to_string(Path::new(&run_dir).join("log.jsonl")).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    let merged: Vec<(usize, Value)> = (lines.iter().enumerate())
        .filter(|(_, l)| l.starts_with("{\"effect\":\"done\""))
        .map(|(i, l)| (i, serde_json::from_str(l).unwrap()))
        .filter(|(_, v): &(usize, Value)| v["key"] == "charge-7")
        .collect();
    assert_eq!(merged.len(), 1, "{log}");
    let (at, done) = &merged[0];
    assert_eq!((&done["node"], &done["step"]), (&"pay_a".into(), &2.into()));
    assert!(lines[at + 1].starts_with("{\"step\":2,"), "{log}");
}

/// The same with the Attractor branches at once (`max_parallel=3`):
/// `pay_a` and `pay_b` charge under one key at the same moment; one runs,
/// the other waits for it and reuses its result: still one `charge`.
#[test]
fn attractor_siblings_running_one_key_at_once_run_it_once() {
    let source = std::fs::read_to_string(repo_root().join(DIR).join("branch_keys.dot")).unwrap();
    let at_once = source.replace("max_parallel=1", "max_parallel=3");
    assert_ne!(at_once, source);
    let dir = scratch("branch_keys_dot_at_once_src");
    let file = dir.join("shop.dot");
    std::fs::write(&file, at_once).unwrap();
    let (dir, _, events) = branch_keys("branch_keys_dot_at_once", file.to_str().unwrap());
    assert_eq!(ledger(&dir), "reserve\ncharge\n");
    let all = std::fs::read_to_string(&events).unwrap();
    assert!(all.contains("\"concurrency\":3"), "{all}");
    let trace = branch_trace(Path::new(&events));
    let reused = |node: &str| {
        let at = format!("effect:reused branch_keys/{node} ");
        trace.lines().filter(|l| l.contains(&at)).count()
    };
    assert_eq!(
        (reused("pay_a") + reused("pay_b"), reused("pay_again")),
        (1, 1),
        "one branch and `pay_again` reuse the charge:\n{trace}"
    );
    assert_eq!(reused("hold_again"), 1, "{trace}");
}

/// A fan-out nested in an Attractor branch shares the keys that branch
/// sees: `c` (nested) reuses the key its outer sibling `a` completed, and
/// `after` reuses it after the fan-in: one `charge`; the run replays.
#[test]
fn a_fan_out_nested_in_an_attractor_branch_shares_the_keys() {
    let dir = scratch("branch_keys_nested");
    let (run_dir, events) = (path(&dir, "run"), path(&dir, "events.jsonl"));
    let file = "tests/run/effects/branch_keys_nested.dot";
    let run = ["run", file, "--allow-tools", "--run-dir", &run_dir];
    let out = wfc(&dir, false, &[&run[..], &["--events", &events]].concat());
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(ledger(&dir), "charge\n");
    // Reused effects, at any depth of branch events: (node, of_step).
    fn reused(v: &Value, out: &mut Vec<(String, u64)>) {
        match v {
            Value::Object(m) if m.get("event").is_some_and(|e| e == "effect:reused") => out.push((
                m["node"].as_str().unwrap().into(),
                m["of_step"].as_u64().unwrap(),
            )),
            Value::Object(m) => m.values().for_each(|v| reused(v, out)),
            _ => {}
        }
    }
    let mut got = Vec::new();
    for line in std::fs::read_to_string(&events).unwrap().lines() {
        reused(&serde_json::from_str(line).unwrap(), &mut got);
    }
    assert_eq!(got, [("c".into(), 0), ("after".into(), 1)]);
    let out = wfc(&dir, false, &["replay", &run_dir]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}
