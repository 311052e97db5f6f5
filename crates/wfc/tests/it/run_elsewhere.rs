//! `wfc run --from NODE` and `wfc run --fork DIR --at STEP`
//! (docs/runtime.md, "Starting elsewhere: --from and --fork").
//!
//! The runs carry their own expectation: `tests/run/elsewhere/` holds the
//! workflow, the script agents and, beside them, the expected event trace
//! of each run (`*.trace`, one line per event: step, event, what it names),
//! so a change of behaviour shows as a diff of a readable file.
//! `UPDATE_TRACES=1` rewrites the traces (review the diff before
//! committing). The refusals are CLI snapshots in `tests/run/snapshots/`.

use crate::common::repo_root;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use insta_cmd::{assert_cmd_snapshot, get_cargo_bin};
use serde_json::Value;

const WF: &str = "tests/run/elsewhere/review.wf";
const SCRIPT: &str = "script:tests/run/elsewhere/review.script.json";
const FORK_SCRIPT: &str = "script:tests/run/elsewhere/review.fork.json";

fn wfc(args: &[&str]) -> Command {
    let mut cmd = Command::new(get_cargo_bin("wfc"));
    cmd.current_dir(repo_root())
        .args(args)
        .env("NO_COLOR", "1")
        .env("RUST_BACKTRACE", "0");
    cmd
}

fn output(args: &[&str]) -> Output {
    wfc(args).output().unwrap()
}

macro_rules! refusal_snapshot {
    ($name:literal, $cmd:expr) => {{
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(repo_root().join("tests/run/snapshots"));
        settings.set_prepend_module_to_snapshot(false);
        settings.add_filter(r"/\S*/wfc-elsewhere-tests/", "[SCRATCH]/");
        settings.bind(|| assert_cmd_snapshot!($name, $cmd));
    }};
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("wfc-elsewhere-tests")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// One event as a trace line: its step, its kind and what it names. Only
/// these fields: fields added to events later do not change a trace.
fn trace_line(e: &Value) -> String {
    let step = &e["step"];
    let field = |k: &str| e[k].as_str().unwrap_or("?").to_owned();
    match e["event"].as_str().unwrap_or("?") {
        "node:enter" => format!("{step} enter {}", field("node")),
        "node:exit" => format!("{step} exit {} {}", field("node"), field("status")),
        "edge:traverse" => format!("{step} edge {} -> {}", field("from"), field("to")),
        "blackboard:write" => {
            let writes: Vec<String> = e["writes"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|w| format!("{}={}", w["key"].as_str().unwrap_or("?"), w["value"]))
                .collect();
            format!("{step} write {}: {}", field("node"), writes.join(", "))
        }
        "engine:suspend" => format!("{step} suspend: {}", field("reason")),
        "engine:fail" => format!("{step} fail: {}", field("reason")),
        other => format!("{step} {other}"),
    }
}

/// The trace of a run: its events, then its end (status, steps and the
/// final blackboard, from the JSON summary).
fn trace(events: &Path, summary: &Value) -> String {
    let mut out: Vec<String> = std::fs::read_to_string(events)
        .unwrap()
        .lines()
        .map(|l| trace_line(&serde_json::from_str(l).unwrap()))
        .collect();
    out.push(format!(
        "end: {} after {} steps",
        summary["status"].as_str().unwrap(),
        summary["steps"]
    ));
    let board: BTreeMap<String, Value> =
        serde_json::from_value(summary["blackboard"].clone()).unwrap();
    for (k, v) in board {
        out.push(format!("  {k} = {v}"));
    }
    out.join("\n") + "\n"
}

/// Compares a run's trace with `tests/run/elsewhere/NAME.trace`, whose
/// `#` lines say how the run is made (`what`) and are not compared.
fn assert_trace(name: &str, what: &str, actual: &str) {
    let path = repo_root().join(format!("tests/run/elsewhere/{name}.trace"));
    if std::env::var_os("UPDATE_TRACES").is_some() {
        std::fs::write(&path, format!("# {what}\n{actual}")).unwrap();
        return;
    }
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{} is missing: run with UPDATE_TRACES=1", path.display()));
    let expected: String = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        expected,
        actual,
        "the run's trace differs from {}",
        path.display()
    );
}

/// `wfc run ARGS --events FILE --format json`: exit code, summary, trace.
fn traced_run(dir: &Path, name: &str, args: &[&str]) -> (Option<i32>, Value, String) {
    let events = dir.join(format!("{name}.events"));
    let all = [args, &["--events", s(&events), "--format", "json"][..]].concat();
    let out = output(&all);
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "no JSON summary; stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let t = trace(&events, &summary);
    (out.status.code(), summary, t)
}

/// `wfc replay DIR` says the run replays identically.
fn assert_replays(dir: &Path) {
    let out = output(&["replay", s(dir)]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("identical"));
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Every file of a directory with its bytes (to prove it unchanged).
fn contents(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(contents(&path));
        } else {
            out.insert(path.clone(), std::fs::read(&path).unwrap());
        }
    }
    out
}

/// The source run of the fork tests: the whole workflow, durable.
fn source_run(dir: &Path) -> PathBuf {
    let run = dir.join("source");
    let (code, _, t) = traced_run(
        dir,
        "source",
        &[
            "run",
            WF,
            "--agent",
            SCRIPT,
            "--set",
            "topic=cats",
            "--run-dir",
            s(&run),
        ],
    );
    assert_eq!(code, Some(0));
    assert_trace(
        "source",
        "wfc run review.wf --agent script:review.script.json --set topic=cats --run-dir SOURCE",
        &t,
    );
    run
}

/// `--from review`: the run starts at `review` with the values given,
/// runs what follows, records its start, and replays.
#[test]
fn from_a_node_runs_what_follows() {
    let dir = scratch("from_review");
    let run = dir.join("run");
    let (code, _, t) = traced_run(
        &dir,
        "from_review",
        &[
            "run",
            WF,
            "--agent",
            SCRIPT,
            "--from",
            "review",
            "--set",
            "topic=cats",
            "--set",
            "text=my own draft",
            "--run-dir",
            s(&run),
        ],
    );
    assert_eq!(code, Some(0));
    assert_trace(
        "from_review",
        "wfc run review.wf --agent script:review.script.json --from review \
         --set topic=cats --set 'text=my own draft' --run-dir RUN",
        &t,
    );
    let start = read_json(&run.join("start.json"));
    assert_eq!(
        start["origin"],
        serde_json::json!({"kind": "from", "node": "review"})
    );
    assert_eq!(start["frames"][0]["node"], "review");
    assert_replays(&run);
}

/// `--from` a node whose reads a node on the way writes: only what no
/// node on every path writes first must be given (`score` is written by
/// `review`, so starting at `review` needs only `text`).
#[test]
fn from_needs_only_what_nothing_on_the_way_writes() {
    let dir = scratch("from_decide");
    let (code, summary, t) = traced_run(
        &dir,
        "from_decide",
        &[
            "run",
            WF,
            "--agent",
            SCRIPT,
            "--from",
            "decide",
            "--set",
            "topic=cats",
            "--set",
            "text=t",
            "--set",
            "score=9",
        ],
    );
    assert_eq!(code, Some(0), "{summary}");
    assert_trace(
        "from_decide",
        "wfc run review.wf --agent script:review.script.json --from decide \
         --set topic=cats --set text=t --set score=9",
        &t,
    );
}

/// A `--from` run suspended at its start node: `wfc status` says where it
/// started, `--resume` goes on, and the whole run replays.
#[test]
fn a_run_from_a_node_suspends_resumes_and_replays() {
    let dir = scratch("from_resume");
    let run = dir.join("run");
    let suspend = dir.join("suspend.json");
    std::fs::write(
        &suspend,
        r#"{"fallback": "auto", "nodes": {"review": [{"type": "suspend", "reason": "ask Ann"}]}}"#,
    )
    .unwrap();
    let agent = format!("script:{}", s(&suspend));
    let out = output(&[
        "run",
        WF,
        "--agent",
        &agent,
        "--from",
        "review",
        "--set",
        "topic=cats",
        "--set",
        "text=t",
        "--run-dir",
        s(&run),
    ]);
    assert_eq!(out.status.code(), Some(3));
    let status = String::from_utf8(output(&["status", s(&run)]).stdout).unwrap();
    assert!(
        status.contains("started: at node `review` (--from)"),
        "{status}"
    );
    let out = output(&["run", "--resume", s(&run), "--agent", SCRIPT]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_replays(&run);
}

/// `--fork` at step 2 (the run at `review`, the draft written): the new run
/// has the old state, takes the other branch with another agent, records
/// where it came from, replays; the source is not touched.
#[test]
fn a_fork_goes_on_from_the_recorded_state() {
    let dir = scratch("fork");
    let source = source_run(&dir);
    let before = contents(&source);
    let new = dir.join("new");
    let (code, _, t) = traced_run(
        &dir,
        "fork_at_2",
        &[
            "run",
            "--fork",
            s(&source),
            "--at",
            "2",
            "--run-dir",
            s(&new),
            "--agent",
            FORK_SCRIPT,
        ],
    );
    assert_eq!(code, Some(0));
    assert_trace(
        "fork_at_2",
        "wfc run --fork SOURCE --at 2 --run-dir NEW --agent script:review.fork.json \
         (SOURCE: the run of source.trace)",
        &t,
    );
    assert_eq!(
        contents(&source),
        before,
        "the source run directory changed"
    );
    let start = read_json(&new.join("start.json"));
    assert_eq!(start["origin"]["kind"], "fork");
    assert_eq!(start["origin"]["step"], 2);
    assert_eq!(
        Path::new(start["origin"]["dir"].as_str().unwrap()),
        source.as_path()
    );
    assert_eq!(start["step"], 2);
    assert_replays(&new);
    let status = String::from_utf8(output(&["status", s(&new)]).stdout).unwrap();
    assert!(status.contains("started: forked from `"), "{status}");
}

/// The fork's state comes from the log, not from `snapshot.json`: a
/// snapshot taken later (here, the run's end) does not leak into it.
#[test]
fn a_fork_is_rebuilt_from_the_log_not_the_snapshot() {
    let dir = scratch("fork_log");
    let source = source_run(&dir);
    let new = dir.join("new");
    let out = output(&[
        "run",
        "--fork",
        s(&source),
        "--at",
        "1",
        "--run-dir",
        s(&new),
        "--agent",
        "auto",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let start = read_json(&new.join("start.json"));
    let keys: Vec<&str> = start["frames"][0]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["key"].as_str().unwrap())
        .collect();
    assert_eq!(
        keys,
        ["topic"],
        "the state after 1 step holds the input only"
    );
    assert_eq!(start["frames"][0]["node"], "draft");
}

/// A source held by its running process (its lock taken) can be forked:
/// the source is only read.
#[test]
fn a_locked_source_can_be_forked() {
    let dir = scratch("fork_locked");
    let source = source_run(&dir);
    let held = wf_vm::RunDir::open(&source).unwrap();
    let new = dir.join("new");
    let out = output(&[
        "run",
        "--fork",
        s(&source),
        "--at",
        "3",
        "--run-dir",
        s(&new),
        "--agent",
        "auto",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The source's agent (a script) is not the fork's: said once.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the fork decides with `--agent auto`"),
        "{stderr}"
    );
    drop(held);
}

#[test]
fn from_refuses_missing_keys() {
    refusal_snapshot!(
        "elsewhere_from_missing_keys",
        wfc(&[
            "run",
            WF,
            "--agent",
            SCRIPT,
            "--from",
            "publish",
            "--set",
            "topic=cats"
        ])
    );
}

#[test]
fn from_refuses_a_key_not_written_on_every_path() {
    refusal_snapshot!(
        "elsewhere_from_not_on_every_path",
        wfc(&[
            "run", WF, "--agent", SCRIPT, "--from", "decide", "--set", "score=1"
        ])
    );
}

#[test]
fn from_an_unknown_node_suggests_one() {
    refusal_snapshot!(
        "elsewhere_from_unknown_node",
        wfc(&["run", WF, "--agent", SCRIPT, "--from", "reveiw"])
    );
}

/// A refused `--from` run creates no run directory.
#[test]
fn a_refused_from_run_leaves_no_run_directory() {
    let dir = scratch("from_refused");
    let run = dir.join("run");
    let out = output(&["run", WF, "--from", "publish", "--run-dir", s(&run)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!run.exists());
}

#[test]
fn fork_refuses_a_step_out_of_range() {
    let dir = scratch("fork_range");
    let source = source_run(&dir);
    let new = dir.join("new");
    refusal_snapshot!(
        "elsewhere_fork_out_of_range",
        wfc(&[
            "run",
            "--fork",
            s(&source),
            "--at",
            "99",
            "--run-dir",
            s(&new)
        ])
    );
    refusal_snapshot!(
        "elsewhere_fork_after_the_end",
        wfc(&[
            "run",
            "--fork",
            s(&source),
            "--at",
            "7",
            "--run-dir",
            s(&new)
        ])
    );
    assert!(!new.exists());
}

/// NEW must be new: in particular the source itself, which a fork never
/// writes (not even its lock file).
#[test]
fn fork_refuses_an_existing_run_directory() {
    let dir = scratch("fork_existing");
    let source = source_run(&dir);
    let before = contents(&source);
    refusal_snapshot!(
        "elsewhere_fork_into_itself",
        wfc(&[
            "run",
            "--fork",
            s(&source),
            "--at",
            "2",
            "--run-dir",
            s(&source)
        ])
    );
    assert_eq!(contents(&source), before);
}

/// A log that does not replay (here a recorded write changed by hand)
/// is refused, naming the step.
#[test]
fn fork_refuses_a_log_that_does_not_replay() {
    let dir = scratch("fork_corrupt");
    let source = source_run(&dir);
    let log = source.join("log.jsonl");
    let text = std::fs::read_to_string(&log).unwrap();
    std::fs::write(&log, text.replacen("\"value\":3", "\"value\":4", 1)).unwrap();
    let new = dir.join("new");
    refusal_snapshot!(
        "elsewhere_fork_corrupt_log",
        wfc(&[
            "run",
            "--fork",
            s(&source),
            "--at",
            "5",
            "--run-dir",
            s(&new)
        ])
    );
    // Before the tampered step, the log is sound.
    let out = output(&[
        "run",
        "--fork",
        s(&source),
        "--at",
        "2",
        "--run-dir",
        s(&new),
        "--agent",
        FORK_SCRIPT,
    ]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn fork_refuses_a_missing_source() {
    let dir = scratch("fork_missing");
    refusal_snapshot!(
        "elsewhere_fork_missing_source",
        wfc(&[
            "run",
            "--fork",
            s(&dir.join("nothing")),
            "--at",
            "1",
            "--run-dir",
            s(&dir.join("new"))
        ])
    );
}

/// `.dot`: `--from` a node id, the context given with `--set`; the
/// condition routes on it.
#[test]
fn from_a_dot_node_with_context() {
    let dir = scratch("from_dot");
    let run = dir.join("run");
    let out = output(&[
        "run",
        "tests/run/dot/parity/16_context.dot",
        "--from",
        "route",
        "--set",
        "context.speed=fast",
        "--run-dir",
        s(&run),
        "--events",
        s(&dir.join("e.jsonl")),
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let entered: Vec<String> = std::fs::read_to_string(dir.join("e.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["event"] == "node:enter")
        .map(|e| e["node"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(entered, ["route", "fast", "done"]);
    assert_replays(&run);
}

#[test]
fn from_a_node_of_another_workflow_names_it() {
    refusal_snapshot!(
        "elsewhere_from_other_workflow",
        wfc(&[
            "run",
            "examples/release.wf",
            "--agent",
            "auto",
            "--from",
            "decide"
        ])
    );
}

/// A fork suspended at its first node resumes like any run, and the whole
/// fork (before and after the resume) replays.
#[test]
fn a_suspended_fork_resumes_and_replays() {
    let dir = scratch("fork_resume");
    let source = source_run(&dir);
    let suspend = dir.join("suspend.json");
    std::fs::write(
        &suspend,
        r#"{"fallback": "auto", "nodes": {"review": [{"type": "suspend", "reason": "ask Ann"}]}}"#,
    )
    .unwrap();
    let new = dir.join("new");
    let agent = format!("script:{}", s(&suspend));
    let out = output(&[
        "run",
        "--fork",
        s(&source),
        "--at",
        "2",
        "--run-dir",
        s(&new),
        "--agent",
        &agent,
    ]);
    assert_eq!(out.status.code(), Some(3));
    let out = output(&[
        "run",
        "--resume",
        s(&new),
        "--agent",
        FORK_SCRIPT,
        "--format",
        "json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["blackboard"]["url"], "https://example.org/p/2");
    assert_replays(&new);
}

/// A key `--from` needs is checked against the type the node that writes
/// it declares, as the workflow's needs are.
#[test]
fn from_checks_the_types_of_the_keys_it_needs() {
    refusal_snapshot!(
        "elsewhere_from_wrong_type",
        wfc(&[
            "run",
            WF,
            "--agent",
            SCRIPT,
            "--from",
            "publish",
            "--set",
            "topic=cats",
            "--set",
            "text=t",
            "--set",
            "score=high",
        ])
    );
    // A number given for a `string` key is kept as the text written.
    let out = output(&[
        "run",
        WF,
        "--agent",
        SCRIPT,
        "--from",
        "publish",
        "--set",
        "topic=cats",
        "--set",
        "text=1.5",
        "--set",
        "score=9",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["blackboard"]["text"], "1.5");
}

/// A source whose pinned program or start is damaged is refused, naming
/// the file; nothing is created.
#[test]
fn fork_refuses_a_damaged_source() {
    let dir = scratch("fork_damaged");
    let source = source_run(&dir);
    let new = dir.join("new");
    let start = std::fs::read(source.join("start.json")).unwrap();
    std::fs::remove_file(source.join("start.json")).unwrap();
    let out = output(&[
        "run",
        "--fork",
        s(&source),
        "--at",
        "1",
        "--run-dir",
        s(&new),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("start.json` is corrupt: it is missing"),
        "{stderr}"
    );
    std::fs::write(source.join("start.json"), start).unwrap();
    std::fs::write(source.join("program.json"), "{\"format\": \"wfc-ir\"}").unwrap();
    let out = output(&[
        "run",
        "--fork",
        s(&source),
        "--at",
        "1",
        "--run-dir",
        s(&new),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("program.json` is corrupt"), "{stderr}");
    assert!(!new.exists());
}
