//! Compensation across parallel branches, `.wf` and Attractor (issue
//! 17.3, the saga; docs/runtime.md, "Compensation across parallel
//! branches"). Each fixture
//! in `tests/run/saga/` carries its expectation beside it: `NAME.trace`
//! holds the ledger its tools append to, then the run's event trace (node
//! exits, a branch's prefixed by it, compensations, engine events), then
//! the report's compensations. Kills are real (`kill -9 $PPID` from the
//! fixture's own compensating tool), and every durable run replays.

use crate::common::ledger::{ledger, path, wfc};
use crate::common::repo_root;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

const DIR: &str = "tests/run/saga";
const TRIP: &str = "tests/run/saga/trip.wf";

/// A scratch directory for the ledger and the run's files.
fn scratch(name: &str) -> PathBuf {
    crate::common::ledger::scratch("saga", name)
}

/// The trace of an `--events` file: node exits (a branch's prefixed by
/// it), compensations and engine events.
fn trace(events: &Path) -> String {
    let mut out = String::new();
    for line in std::fs::read_to_string(events).unwrap().lines() {
        let e: Value = serde_json::from_str(line).unwrap();
        let (prefix, ev) = match e["name"].as_str() {
            Some("ParallelBranchEvent") => (
                format!("branch {}: ", e["data"]["branch"].as_str().unwrap()),
                &e["data"]["event"],
            ),
            _ => (String::new(), &e),
        };
        let s = |k: &str| ev[k].as_str().unwrap_or("").to_owned();
        let (name, at) = (s("event"), format!("{}/{}", s("workflow"), s("node")));
        let line = match name.as_str() {
            "node:exit" => format!("{name} {at} {}", s("status")),
            "effect:compensated" => format!("{name} {at} by={} {}", s("by"), s("status")),
            n if n.starts_with("engine:") => name.clone(),
            _ => continue,
        };
        out.push_str(&format!("{prefix}{line}\n"));
    }
    out
}

/// The compensations of a `--format json` report, one line each.
fn listed(report: &[u8]) -> String {
    let report: Value = serde_json::from_slice(report).unwrap();
    let mut out = String::new();
    for c in report["compensations"].as_array().unwrap() {
        let s = |k: &str| c[k].as_str().unwrap_or("").to_owned();
        out.push_str(&format!(
            "{} undid {}/{}: {}\n",
            s("by"),
            s("workflow"),
            s("node"),
            s("status")
        ));
    }
    out
}

/// Checks the ledger, the trace and the report's compensations against
/// `DIR/NAME.trace` (`UPDATE_TRACES=1` rewrites it: review its diff).
fn expect(name: &str, dir: &Path, events: &Path, report: &[u8]) {
    let got = format!(
        "# ledger\n{}# events\n{}# compensations\n{}",
        ledger(dir),
        trace(events),
        listed(report)
    );
    crate::common::ledger::expect_trace(DIR, name, &got);
}

fn replays(dir: &Path, run_dir: &str) {
    let out = wfc(dir, false, &["replay", run_dir]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

/// `trip.wf` with `args`, a run directory, events and a JSON report.
fn trip(name: &str, kill: bool, args: &[&str]) -> (PathBuf, String, String, Output) {
    let dir = scratch(name);
    let (run_dir, events) = (path(&dir, "run"), path(&dir, "events.jsonl"));
    let mut all = vec!["run", TRIP, "--allow-tools", "--run-dir", &run_dir];
    all.extend_from_slice(&["--events", &events, "--format", "json"]);
    all.extend_from_slice(args);
    let out = wfc(&dir, kill, &all);
    (dir, run_dir, events, out)
}

/// (a) Two branches each complete an effect, then a root node fails: the
/// branches' effects are undone with the run's own, most recent first,
/// the branches' by the order they completed (`flight` before `hotel`,
/// against edge order), each seeing the writes of its effect; the report
/// lists them by their branch-qualified names. Trace: `trip_fail.trace`.
#[test]
fn effects_of_parallel_branches_are_compensated_when_the_run_fails() {
    let script = "script:tests/run/saga/pay_fails.json";
    let (dir, run_dir, events, out) = trip("fail", false, &["--agent", script]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    expect("trip_fail", &dir, Path::new(&events), &out.stdout);
    replays(&dir, &run_dir);
    // The join handed the effects over in the run log, before the
    // fan-out's step record, each with an id its compensation names.
    let log = std::fs::read_to_string(Path::new(&run_dir).join("log.jsonl")).unwrap();
    let ids: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("{\"effect\":\"compensated\""))
        .filter_map(|l| l.split("\"id\":\"").nth(1)?.split('"').next())
        .collect();
    assert_eq!(
        ids,
        ["fan#1/hotel/hotel@1", "fan#1/flight/flight@1"],
        "{log}"
    );
}

/// (b) `wfc cancel` of a run suspended after the join undoes the
/// branches' effects too. Trace: `trip_cancel.trace`.
#[test]
fn cancelling_after_the_join_compensates_branch_effects() {
    let script = "script:tests/run/saga/pay_waits.json";
    let (dir, run_dir, _, out) = trip("cancel", false, &["--agent", script]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert_eq!(ledger(&dir), "book\nflight\nhotel\ninsure\n");
    let events = path(&dir, "cancel.jsonl");
    let cancel = [
        "cancel",
        &run_dir,
        "--allow-tools",
        "--events",
        &events,
        "--format",
        "json",
    ];
    let out = wfc(&dir, false, &cancel);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    expect("trip_cancel", &dir, Path::new(&events), &out.stdout);
    replays(&dir, &run_dir);
}

/// (c) A run that exceeds its step budget after the join compensates the
/// branches' effects. Trace: `trip_budget.trace`.
#[test]
fn a_budget_exceeded_after_the_join_compensates_branch_effects() {
    let (dir, run_dir, events, out) =
        trip("budget", false, &["--agent", "auto", "--max-steps", "5"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    expect("trip_budget", &dir, Path::new(&events), &out.stdout);
    replays(&dir, &run_dir);
}

/// (d) A kill during compensation (in `cancel_flight`, after `uninsure`
/// and `cancel_hotel` are recorded), then `--resume`: only the
/// compensations not recorded run (`cancel_flight`, which the kill cut
/// short, again, and `unbook`), each branch effect undone exactly once
/// more; a second resume runs none.
#[test]
fn a_kill_during_compensation_resumes_only_those_not_recorded() {
    let script = "script:tests/run/saga/pay_fails.json";
    let (dir, run_dir, _, out) = trip("kill", true, &["--agent", script]);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(out.status.signal(), Some(9), "{out:?}");
    let before = "book\nflight\nhotel\ninsure\nuninsure I-3\ncancel-hotel H-7\ncancel-flight F-9\n";
    assert_eq!(ledger(&dir), before);
    let events = path(&dir, "resumed.jsonl");
    let resume = ["run", "--resume", &run_dir, "--allow-tools"];
    let json = ["--events", &events, "--format", "json"];
    let out = wfc(&dir, true, &[&resume[..], &json[..]].concat());
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    expect("trip_kill", &dir, Path::new(&events), &out.stdout);
    let out = wfc(&dir, true, &resume);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(
        ledger(&dir),
        format!("{before}cancel-flight F-9\nunbook B-1\n")
    );
    replays(&dir, &run_dir);
}

/// A branch that fails after its effect fails the fan-out (`fail_fast`),
/// and the run: its effect and its sibling's are undone, the failed
/// branch's with its writes (not merged at the join), with a run
/// directory (the branches' folders) and without (their memory). Trace:
/// `rental_fail.trace`.
#[test]
fn a_failed_branch_and_its_siblings_are_compensated() {
    for durable in [true, false] {
        let dir = scratch(&format!("rental-{durable}"));
        let (run_dir, events) = (path(&dir, "run"), path(&dir, "events.jsonl"));
        let mut args = vec!["run", "tests/run/saga/rental.wf", "--allow-tools"];
        args.extend_from_slice(&["--agent", "auto", "--events", &events, "--format", "json"]);
        if durable {
            args.extend_from_slice(&["--run-dir", &run_dir]);
        }
        let out = wfc(&dir, false, &args);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        expect("rental_fail", &dir, Path::new(&events), &out.stdout);
        if durable {
            replays(&dir, &run_dir);
        }
    }
}

/// A fan-out that suspends (a branch waits at a gate) has handed over the
/// effects its branches completed: `wfc cancel` then undoes `hotel`. Once
/// answered and resumed, the fan-out hands over `flight` and not `hotel`
/// again: when `pay` fails each is undone once. Trace (the resumed run):
/// `gate_fail.trace`.
#[test]
fn a_fan_out_that_suspends_hands_over_its_effects_once() {
    let script = "script:tests/run/saga/gate.json";
    let start = |name: &str| {
        let dir = scratch(name);
        let run_dir = path(&dir, "run");
        let args = ["run", "tests/run/saga/gate.wf", "--allow-tools"];
        let out = wfc(
            &dir,
            false,
            &[&args[..], &["--agent", script, "--run-dir", &run_dir]].concat(),
        );
        assert_eq!(out.status.code(), Some(3), "{out:?}");
        assert_eq!(ledger(&dir), "hotel\n");
        (dir, run_dir)
    };
    let (dir, run_dir) = start("gate_cancel");
    let out = wfc(&dir, false, &["cancel", &run_dir, "--allow-tools"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(ledger(&dir), "hotel\ncancel-hotel H-7\n");
    replays(&dir, &run_dir);

    let (dir, run_dir) = start("gate_fail");
    let out = wfc(&dir, false, &["answer", &run_dir, "Y"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let events = path(&dir, "events.jsonl");
    let resume = [
        "run",
        "--resume",
        &run_dir,
        "--allow-tools",
        "--agent",
        script,
    ];
    let json = ["--events", &events, "--format", "json"];
    let out = wfc(&dir, false, &[&resume[..], &json[..]].concat());
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    expect("gate_fail", &dir, Path::new(&events), &out.stdout);
    replays(&dir, &run_dir);
}

/// A fan-out nested in a branch: its join hands `x` and `y` to the
/// branch, whose join hands them on to the run with its sibling's `z`;
/// all are undone once, named by their full path, with a run directory
/// and without. Trace: `nested_fail.trace`.
#[test]
fn effects_of_a_nested_fan_out_are_handed_on_to_the_run() {
    for durable in [true, false] {
        let dir = scratch(&format!("nested-{durable}"));
        let (run_dir, events) = (path(&dir, "run"), path(&dir, "events.jsonl"));
        let mut args = vec!["run", "tests/run/saga/nested.wf", "--allow-tools"];
        let script = "script:tests/run/saga/pay_fails.json";
        args.extend_from_slice(&["--agent", script, "--events", &events, "--format", "json"]);
        if durable {
            args.extend_from_slice(&["--run-dir", &run_dir]);
        }
        let out = wfc(&dir, false, &args);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        expect("nested_fail", &dir, Path::new(&events), &out.stdout);
        if durable {
            replays(&dir, &run_dir);
        }
    }
}

/// A kill between the join's hand-over and the fan-out's step record (the
/// window is too short to hit from outside: the run directory is cut back
/// to that moment, the log up to the last handed-over line, the snapshot
/// at the start). The resumed fan-out takes its branches from the journal
/// and hands the same effects over again: known by their ids, they are
/// not recorded twice, and the failure undoes each once.
#[test]
fn effects_handed_over_again_after_a_kill_are_undone_once() {
    let script = "script:tests/run/saga/pay_waits.json";
    let (dir, run_dir, _, out) = trip("handed_again", false, &["--agent", script]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let run = Path::new(&run_dir);
    let log = std::fs::read_to_string(run.join("log.jsonl")).unwrap();
    let last = log.find("\"id\":\"fan#1/hotel/hotel@1\"").unwrap();
    let end = last + log[last..].find('\n').unwrap() + 1;
    assert!(
        log[..end].contains("\"id\":\"fan#1/flight/flight@1\""),
        "{log}"
    );
    std::fs::write(run.join("log.jsonl"), &log[..end]).unwrap();
    std::fs::copy(run.join("start.json"), run.join("snapshot.json")).unwrap();
    let resume = ["run", "--resume", &run_dir, "--allow-tools"];
    let pay = ["--agent", "script:tests/run/saga/pay_fails.json"];
    let out = wfc(&dir, false, &[&resume[..], &pay[..]].concat());
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    // The branches did not run again (`insure`, whose `done` line was
    // cut, did: a step the log does not hold).
    assert_eq!(
        ledger(&dir),
        "book\nflight\nhotel\ninsure\ninsure\nuninsure I-3\ncancel-hotel H-7\ncancel-flight F-9\nunbook B-1\n"
    );
    let log = std::fs::read_to_string(run.join("log.jsonl")).unwrap();
    for id in ["fan#1/hotel/hotel@1", "fan#1/flight/flight@1"] {
        let done = (log.lines())
            .filter(|l| l.starts_with("{\"effect\":\"done\"") && l.contains(id))
            .count();
        assert_eq!(done, 1, "{id}: {log}");
    }
    replays(&dir, &run_dir);
}

/// `FILE` (an Attractor pipeline) with `args`, a run directory (unless
/// `durable` is false), events and a JSON report.
fn dot_run(
    name: &str,
    file: &str,
    (durable, kill): (bool, bool),
    args: &[&str],
) -> (PathBuf, String, String, Output) {
    let dir = scratch(name);
    let (run_dir, events) = (path(&dir, "run"), path(&dir, "events.jsonl"));
    let mut all = vec!["run", file, "--allow-tools"];
    if durable {
        all.extend_from_slice(&["--run-dir", &run_dir]);
    }
    all.extend_from_slice(&["--events", &events, "--format", "json"]);
    all.extend_from_slice(args);
    let out = wfc(&dir, kill, &all);
    (dir, run_dir, events, out)
}

const TRIP_DOT: &str = "tests/run/saga/trip.dot";

/// The ids of the effects the `compensated` lines of `run_dir`'s log
/// name, in order.
fn compensated_ids(run_dir: &str) -> Vec<String> {
    let log = std::fs::read_to_string(Path::new(run_dir).join("log.jsonl")).unwrap();
    (log.lines())
        .filter(|l| l.starts_with("{\"effect\":\"compensated\""))
        .filter_map(|l| Some(l.split("\"id\":\"").nth(1)?.split('"').next()?.to_owned()))
        .collect()
}

/// Attractor (a): two `parallel` branches (`shape=component`) each
/// complete an effect at once, then `pay` fails after the fan-in: the
/// branches' effects are handed to the run at the fan-in and undone with
/// its own, most recent first, the branches' by the order they completed
/// (`flight` before `hotel`, against edge order), with a run directory
/// (the branches' folders) and without (their engines' memory); the
/// report lists them by their branch-qualified names. Trace:
/// `trip_dot_fail.trace`.
#[test]
fn effects_of_attractor_branches_are_compensated_when_the_pipeline_fails() {
    for durable in [true, false] {
        let name = format!("dot_fail_{durable}");
        let (dir, run_dir, events, out) = dot_run(&name, TRIP_DOT, (durable, false), &[]);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        assert!(
            std::fs::read_to_string(&events)
                .unwrap()
                .contains("\"concurrency\":2"),
            "the branches run at once"
        );
        expect("trip_dot_fail", &dir, Path::new(&events), &out.stdout);
        if durable {
            replays(&dir, &run_dir);
            assert_eq!(
                compensated_ids(&run_dir),
                ["fan#1/hotel/hotel@1", "fan#1/flight/flight@1"]
            );
        }
    }
}

/// `trip.dot` with `pay` a `wait.human` gate, written to `dir`.
fn trip_gate(dir: &Path) -> String {
    let source = std::fs::read_to_string(repo_root().join(TRIP_DOT)).unwrap();
    let pay = source
        .lines()
        .find(|l| l.trim_start().starts_with("pay "))
        .unwrap();
    let gated = source.replace(pay, "    pay    [shape=hexagon, label=\"Pay now?\"]");
    assert_ne!(gated, source);
    let file = dir.join("trip_gate.dot");
    std::fs::write(&file, gated).unwrap();
    file.to_str().unwrap().to_owned()
}

/// Attractor (b): `wfc cancel` of a pipeline suspended after the fan-in
/// (at the `pay` gate, which the console interviewer cannot ask: its
/// input is closed) undoes the branches' effects with
/// the run's own. Trace: `trip_dot_cancel.trace`.
#[test]
fn cancelling_a_pipeline_after_the_fan_in_compensates_branch_effects() {
    let src = scratch("dot_cancel_src");
    let file = trip_gate(&src);
    let console = ["--interviewer", "console"];
    let (dir, run_dir, _, out) = dot_run("dot_cancel", &file, (true, false), &console);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert_eq!(ledger(&dir), "book\nflight\nhotel\ninsure\n");
    let events = path(&dir, "cancel.jsonl");
    let cancel = ["cancel", &run_dir, "--allow-tools", "--events", &events];
    let out = wfc(&dir, false, &[&cancel[..], &["--format", "json"]].concat());
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    expect("trip_dot_cancel", &dir, Path::new(&events), &out.stdout);
    replays(&dir, &run_dir);
}

/// Attractor (c): a kill during compensation (in `cancel_flight`, after
/// `uninsure` and `cancel_hotel` are recorded), then `--resume`: only the
/// compensations not recorded run (`cancel_flight`, cut short, again, and
/// `unbook`), each branch effect undone once more at most; a second
/// resume runs none. Trace: `trip_dot_kill.trace`.
#[test]
fn a_kill_during_a_pipeline_compensation_resumes_only_those_not_recorded() {
    let (dir, run_dir, _, out) = dot_run("dot_kill", TRIP_DOT, (true, true), &[]);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(out.status.signal(), Some(9), "{out:?}");
    let before = "book\nflight\nhotel\ninsure\npay\nuninsure\ncancel-hotel\ncancel-flight\n";
    assert_eq!(ledger(&dir), before);
    let events = path(&dir, "resumed.jsonl");
    let resume = ["run", "--resume", &run_dir, "--allow-tools"];
    let json = ["--events", &events, "--format", "json"];
    let out = wfc(&dir, true, &[&resume[..], &json[..]].concat());
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    expect("trip_dot_kill", &dir, Path::new(&events), &out.stdout);
    let out = wfc(&dir, true, &resume);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(ledger(&dir), format!("{before}cancel-flight\nunbook\n"));
    assert_eq!(
        compensated_ids(&run_dir),
        ["fan#1/hotel/hotel@1", "fan#1/flight/flight@1"]
    );
    replays(&dir, &run_dir);
}

/// An Attractor fan-out nested in a branch: its fan-in hands `x` and `y`
/// to the branch, whose fan-in hands them on to the run with its
/// sibling's `z`; all are undone once, named by their full path, with a
/// run directory and without. Trace: `nested_dot_fail.trace`.
#[test]
fn effects_of_a_fan_out_nested_in_an_attractor_branch_reach_the_run() {
    for durable in [true, false] {
        let name = format!("nested_dot_{durable}");
        let file = "tests/run/saga/nested.dot";
        let (dir, run_dir, events, out) = dot_run(&name, file, (durable, false), &[]);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        expect("nested_dot_fail", &dir, Path::new(&events), &out.stdout);
        if durable {
            replays(&dir, &run_dir);
        }
    }
}

/// A pipeline that exceeds its step budget after the fan-in compensates
/// the branches' effects too (`pay` never runs). Trace:
/// `trip_dot_budget.trace`.
#[test]
fn a_pipeline_over_its_budget_after_the_fan_in_compensates_branch_effects() {
    let budget = ["--max-steps", "5"];
    let (dir, run_dir, events, out) = dot_run("dot_budget", TRIP_DOT, (true, false), &budget);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["kind"], "limit", "{report}");
    expect("trip_dot_budget", &dir, Path::new(&events), &out.stdout);
    replays(&dir, &run_dir);
}

/// A kill between the fan-in's hand-over and the `parallel` node's step
/// record (cut back to that moment, as for `.wf`): the resumed node takes
/// its branches from the journal and hands the same effects over again;
/// known by their ids, they are recorded once, and `wfc cancel` undoes
/// each once.
#[test]
fn attractor_effects_handed_over_again_after_a_kill_are_undone_once() {
    let src = scratch("dot_handed_again_src");
    let file = trip_gate(&src);
    let console = ["--interviewer", "console"];
    let (dir, run_dir, _, out) = dot_run("dot_handed_again", &file, (true, false), &console);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let run = Path::new(&run_dir);
    let log = std::fs::read_to_string(run.join("log.jsonl")).unwrap();
    let last = log.find("\"id\":\"fan#1/hotel/hotel@1\"").unwrap();
    let end = last + log[last..].find('\n').unwrap() + 1;
    assert!(
        log[..end].contains("\"id\":\"fan#1/flight/flight@1\""),
        "{log}"
    );
    std::fs::write(run.join("log.jsonl"), &log[..end]).unwrap();
    std::fs::copy(run.join("start.json"), run.join("snapshot.json")).unwrap();
    let resume = ["run", "--resume", &run_dir, "--allow-tools"];
    let out = wfc(&dir, false, &[&resume[..], &console[..]].concat());
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let out = wfc(&dir, false, &["cancel", &run_dir, "--allow-tools"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // The branches did not run again (`insure`, whose step the log did
    // not hold, did).
    assert_eq!(
        ledger(&dir),
        "book\nflight\nhotel\ninsure\ninsure\nuninsure\ncancel-hotel\ncancel-flight\nunbook\n"
    );
    let log = std::fs::read_to_string(run.join("log.jsonl")).unwrap();
    for id in ["fan#1/hotel/hotel@1", "fan#1/flight/flight@1"] {
        let done = (log.lines())
            .filter(|l| l.starts_with("{\"effect\":\"done\"") && l.contains(id))
            .count();
        assert_eq!(done, 1, "{id}: {log}");
    }
    replays(&dir, &run_dir);
}

/// An Attractor fan-out that suspends (a branch waits at a gate) has
/// handed over the effects its branches completed: `wfc cancel` then
/// undoes `hotel`. Once answered and resumed, the fan-in hands over
/// `flight` and not `hotel` again: when `pay` fails each is undone once.
/// Trace (the resumed run): `gate_dot_fail.trace`.
#[test]
fn an_attractor_fan_out_that_suspends_hands_over_its_effects_once() {
    let console = ["--interviewer", "console"];
    let start = |name: &str| {
        let dir = scratch(name);
        let run_dir = path(&dir, "run");
        let args = ["run", "tests/run/saga/gate.dot", "--allow-tools"];
        let out = wfc(
            &dir,
            false,
            &[&args[..], &console, &["--run-dir", &run_dir]].concat(),
        );
        assert_eq!(out.status.code(), Some(3), "{out:?}");
        assert_eq!(ledger(&dir), "hotel\n");
        (dir, run_dir)
    };
    let (dir, run_dir) = start("gate_dot_cancel");
    let out = wfc(&dir, false, &["cancel", &run_dir, "--allow-tools"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(ledger(&dir), "hotel\ncancel-hotel\n");
    replays(&dir, &run_dir);

    let (dir, run_dir) = start("gate_dot_fail");
    let out = wfc(&dir, false, &["answer", &run_dir, "Y"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let events = path(&dir, "events.jsonl");
    let resume = ["run", "--resume", &run_dir, "--allow-tools"];
    let json = ["--events", &events, "--format", "json"];
    let out = wfc(&dir, false, &[&resume[..], &console, &json[..]].concat());
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    expect("gate_dot_fail", &dir, Path::new(&events), &out.stdout);
    assert_eq!(
        compensated_ids(&run_dir),
        ["fan#1/ask/flight@1", "fan#1/hotel/hotel@1"]
    );
    let log = std::fs::read_to_string(Path::new(&run_dir).join("log.jsonl")).unwrap();
    let handed = (log.lines())
        .filter(|l| l.starts_with("{\"effect\":\"done\"") && l.contains("fan#1/hotel/hotel@1"))
        .count();
    assert_eq!(handed, 1, "{log}");
    replays(&dir, &run_dir);
}

/// A branch stopped by an agent error after a compensable effect runs
/// again on resume, effect included (it has no key): the two bookings are
/// two effects (ids count completions in the branch's folder, which the
/// rerun shares), so a later failure undoes each, and the run replays.
#[test]
fn an_effect_done_again_by_a_branch_rerun_after_an_agent_error_is_undone_again() {
    let dir = scratch("rerun");
    let run_dir = path(&dir, "run");
    let out = wfc(
        &dir,
        false,
        &[
            "run",
            "tests/run/saga/rerun.wf",
            "--allow-tools",
            "--agent",
            "script:tests/run/saga/rerun_down.json",
            "--run-dir",
            &run_dir,
        ],
    );
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert_eq!(ledger(&dir), "book\n");
    let out = wfc(
        &dir,
        false,
        &[
            "run",
            "--resume",
            &run_dir,
            "--allow-tools",
            "--agent",
            "script:tests/run/saga/rerun_up.json",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(ledger(&dir), "book\nbook\nunbook\nunbook\n");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let undone: Vec<&str> = (report["compensations"].as_array().unwrap().iter())
        .map(|c| c["node"].as_str().unwrap())
        .collect();
    assert_eq!(undone, ["fan#1/book/book", "fan#1/book/book"], "{report}");
    replays(&dir, &run_dir);
}
