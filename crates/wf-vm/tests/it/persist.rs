//! Run directories: suspend → resume and killed → resume reach the same
//! state as an uninterrupted run; torn log lines are dropped; nothing is
//! logged twice.

use crate::common;

use common::*;
use serde_json::json;
use wf_ir::{IrProgram, Opcode, ValueType, WorkflowIdx};
use wf_vm::agents::ScriptAgent;
use wf_vm::{Engine, EngineConfig, PersistError, RunDir, RunStatus};

/// A workflow with a call, writes and a human choice: enough state that a
/// wrong resume would show.
fn program() -> IrProgram {
    let mut p = Prog::new();
    let main = p.wf("main");
    let sub = p.wf("sub");
    p.chain(main, &["a", "sub", "ask"]);
    p.node(main, "yes", Opcode::Exit);
    p.node(main, "no", Opcode::Exit);
    let e = p.edge(main, "ask", "yes");
    p.label(main, e, "[Y] Yes");
    let e = p.edge(main, "ask", "no");
    p.label(main, e, "[N] No");
    p.nm(main, "ask").op = Opcode::Human;
    p.call(main, "sub", sub, &[("total", "sum")]);
    p.writes(main, "a", "n", ValueType::Int);
    p.chain(sub, &["s1", "s2", "s3"]);
    p.writes(sub, "s2", "sum", ValueType::Int);
    p.writes(main, "no", "verdict", ValueType::String);
    p.build()
}

fn script(suspend: bool) -> ScriptAgent {
    let mut ask = vec![json!("[N] No")];
    if suspend {
        ask.insert(0, json!({"type": "suspend", "reason": "awaiting a person"}));
    }
    ScriptAgent::from_json(&json!({
        "fallback": "auto",
        "nodes": {
            "a": [{"type": "advance", "status": "success", "writes": [{"key": "n", "value": 4}]}],
            "sub/s2": [{"type": "advance", "status": "success", "writes": [{"key": "sum", "value": 10}]}],
            "ask": ask,
        }
    }))
    .unwrap()
}

/// The log's events, without `engine:suspend`, and the steps in order.
fn log_events(dir: &RunDir) -> (Vec<String>, Vec<u64>) {
    let records = dir.read_log().unwrap();
    let steps = records.iter().map(|(_, r)| r.step).collect();
    let events = records
        .iter()
        .flat_map(|(_, r)| r.events.iter())
        .map(|e| {
            let mut e = e.clone();
            e.as_object_mut().unwrap().remove("step");
            // Two runs: their ids and times differ.
            for f in ["run", "ts", "duration_ms"] {
                e.as_object_mut().unwrap().remove(f);
            }
            e
        })
        .filter(|e| e["event"] != "engine:suspend")
        .map(|e| e.to_string())
        .collect();
    (events, steps)
}

fn uninterrupted(program: &IrProgram) -> (wf_vm::Report, RunDir) {
    let path = temp_dir("straight");
    let dir = RunDir::create(&path, program, &json!({})).unwrap();
    let mut engine = Engine::new(program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    engine.persist_to(dir.clone()).unwrap();
    (engine.run(&mut script(false)), dir)
}

/// A run of `program` persisted at a fresh directory `name`, stopped
/// after `steps` steps with the engine dropped (no final snapshot), as a
/// killed process leaves it: its path, a handle of its directory and the
/// status `run_for` returned.
fn stopped_run(
    name: &str,
    program: &IrProgram,
    config: &EngineConfig,
    agent: &mut ScriptAgent,
    steps: u64,
) -> (std::path::PathBuf, RunDir, RunStatus) {
    let path = temp_dir(name);
    let dir = RunDir::create(&path, program, &json!({})).unwrap();
    let mut engine = Engine::new(program, WorkflowIdx(0), config.clone()).unwrap();
    engine.persist_to(dir.clone()).unwrap();
    engine.set_sleeper(Box::new(|_| {}));
    let status = engine.run_for(agent, steps);
    (path, dir, status)
}

/// Kills a run of `program` after `kill_after` steps (`torn`: with half
/// a log line written after it), resumes it with the agent a new process
/// would have (`agent()`, its answers to the first `kill_after` steps
/// used up as the recorded steps replay) and runs it to its end. Returns
/// the report, the step count the resume started from and the run's
/// directory.
fn kill_and_resume(
    name: &str,
    program: &IrProgram,
    config: &EngineConfig,
    kill_after: u64,
    torn: bool,
    agent: impl Fn() -> ScriptAgent,
) -> (wf_vm::Report, u64, std::path::PathBuf) {
    let (path, dir, status) = stopped_run(name, program, config, &mut agent(), kill_after);
    assert_eq!(status, RunStatus::Yielded);
    let log_path = dir.log_path();
    // The lock goes with the last handle of the directory.
    drop(dir);
    if torn {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(log_path)
            .unwrap();
        f.write_all(br#"{"step":99,"input":"deci"#).unwrap();
    }
    let mut agent = agent();
    let mut fresh = Engine::new(program, WorkflowIdx(0), config.clone()).unwrap();
    fresh.set_sleeper(Box::new(|_| {}));
    fresh.run_for(&mut agent, kill_after);
    let mut engine = Engine::resume(program, RunDir::open(&path).unwrap(), config.clone()).unwrap();
    engine.set_sleeper(Box::new(|_| {}));
    let resumed_at = engine.steps();
    (engine.run(&mut agent), resumed_at, path)
}

#[test]
fn suspend_then_resume_matches_an_uninterrupted_run() {
    let program = program();
    let (expected, straight) = uninterrupted(&program);
    assert_eq!(expected.status, RunStatus::Completed);
    assert_eq!(
        expected.blackboard,
        json!({"n": 4, "total": 10, "verdict": "<verdict>"})
            .as_object()
            .unwrap()
            .clone()
    );

    let path = temp_dir("suspend");
    let dir = RunDir::create(&path, &program, &json!({"agent": "script"})).unwrap();
    let mut engine = Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    engine.persist_to(dir).unwrap();
    let mut agent = script(true);
    let first = engine.run(&mut agent);
    assert_eq!(
        first.status,
        RunStatus::Suspended {
            reason: "awaiting a person".into()
        }
    );
    drop(engine);

    let dir = RunDir::open(&path).unwrap();
    assert_eq!(dir.meta().unwrap(), json!({"agent": "script"}));
    let stored = dir.program().unwrap();
    assert_eq!(stored, program);
    let mut engine = Engine::resume(&stored, dir.clone(), EngineConfig::default()).unwrap();
    assert_eq!(engine.status(), &first.status);
    let resumed = engine.run(&mut agent);
    assert_eq!(resumed.status, RunStatus::Completed);
    assert_eq!(resumed.blackboard, expected.blackboard);
    assert_eq!(
        resumed.steps,
        expected.steps + 1,
        "the suspending step counts"
    );
    assert_eq!(log_events(&dir).0, log_events(&straight).0);
    let steps = log_events(&dir).1;
    assert_eq!(
        steps,
        (0..resumed.steps).collect::<Vec<_>>(),
        "each step once"
    );
    let _ = std::fs::remove_dir_all(&path);
    let _ = std::fs::remove_dir_all(straight.path());
}

#[test]
fn a_killed_run_resumes_from_snapshot_and_log_tail() {
    let program = program();
    let (expected, straight) = uninterrupted(&program);
    for (kill_after, every) in (1..expected.steps).flat_map(|k| [(k, 0), (k, 2)]) {
        for torn in [false, true] {
            let config = EngineConfig {
                snapshot_every: every,
                ..EngineConfig::default()
            };
            // "Killed": no final snapshot; maybe half a line written.
            let (report, resumed_at, path) =
                kill_and_resume("kill", &program, &config, kill_after, torn, || {
                    script(false)
                });
            assert_eq!(
                resumed_at, kill_after,
                "kill after {kill_after}, torn {torn}"
            );
            assert_eq!(report.status, RunStatus::Completed);
            let dir = RunDir::open(&path).unwrap();
            assert_eq!(report.blackboard, expected.blackboard);
            let (events, steps) = log_events(&dir);
            assert_eq!(events, log_events(&straight).0, "kill after {kill_after}");
            assert_eq!(steps, (0..report.steps).collect::<Vec<_>>());
            let _ = std::fs::remove_dir_all(&path);
        }
    }
    let _ = std::fs::remove_dir_all(straight.path());
}

#[test]
fn corrupt_logs_and_foreign_snapshots_are_clear_errors() {
    let program = program();
    let config = EngineConfig::default();
    let (path, dir, _) = stopped_run("corrupt", &program, &config, &mut script(false), 2);
    drop(dir);
    assert!(matches!(
        RunDir::create(&path, &program, &json!({})),
        Err(wf_vm::PersistError::AlreadyExists(_))
    ));
    let dir = RunDir::open(&path).unwrap();
    let log = std::fs::read_to_string(dir.log_path()).unwrap();
    std::fs::write(dir.log_path(), format!("garbage\n{log}")).unwrap();
    let err = Engine::resume(&program, dir.clone(), EngineConfig::default())
        .err()
        .unwrap();
    let shown = format!("`{}` line 1 is corrupt", dir.log_path().display());
    assert!(err.to_string().contains(&shown), "{err}");
    let mut other = program.clone();
    other.workflows[0].nodes[0].id = other.workflows[0].nodes[1].id;
    let other_name = other.strings.len();
    other.strings.push("renamed".into());
    other.workflows[0].name = wf_ir::StrId(other_name as u32);
    std::fs::write(dir.log_path(), log).unwrap();
    let err = Engine::resume(&other, dir, EngineConfig::default())
        .err()
        .unwrap();
    assert!(err.to_string().contains("no workflow `main`"), "{err}");
    let _ = std::fs::remove_dir_all(&path);
}

/// A run directory is locked while a `RunDir` of it lives: opening or
/// creating it again fails with the holder's pid (`flock` locks belong to
/// an open file, so a second open in one process conflicts as another
/// process's would); a directory that does not exist says so.
#[test]
fn a_run_directory_is_locked_while_held_and_missing_ones_say_so() {
    let program = program();
    let path = temp_dir("lock");
    let dir = RunDir::create(&path, &program, &json!({})).unwrap();
    let mut engine = Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    engine.persist_to(dir.clone()).unwrap();
    engine.run_for(&mut script(false), 2);
    drop(dir);
    let pid = std::process::id();
    let in_use = format!(
        "run directory {} is in use by process {pid}",
        path.display()
    );
    let lock = std::fs::read_to_string(path.join("run.lock")).unwrap();
    let host = wf_vm::persist::host_name().unwrap_or_default();
    assert_eq!(lock, format!("{pid}\n{host}\n"));
    let errors = [
        RunDir::open(&path).unwrap_err(),
        RunDir::create(&path, &program, &json!({})).unwrap_err(),
    ];
    for err in errors {
        assert!(matches!(err, PersistError::InUse { pid: Some(p), .. } if p == pid));
        assert_eq!(err.to_string(), in_use);
    }
    // The engine held the last clone: the lock goes with it.
    drop(engine);
    let dir = RunDir::open(&path).unwrap();
    drop(dir);

    let missing = path.join("missing");
    let err = RunDir::open(&missing).unwrap_err();
    assert!(matches!(err, PersistError::NotFound(_)), "{err}");
    assert_eq!(
        err.to_string(),
        format!("run directory {} does not exist", missing.display())
    );
    // A directory that holds no run is not given a lock file.
    std::fs::create_dir_all(&missing).unwrap();
    let err = RunDir::open(&missing).unwrap_err();
    assert!(err.to_string().contains("not a run directory"), "{err}");
    assert!(!missing.join("run.lock").exists());
    let _ = std::fs::remove_dir_all(&path);
}

/// A run suspended at `ask`; returns its directory (not held).
fn suspended_run(name: &str) -> std::path::PathBuf {
    let program = program();
    let path = temp_dir(name);
    let dir = RunDir::create(&path, &program, &json!({})).unwrap();
    let mut engine = Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    engine.persist_to(dir).unwrap();
    let status = engine.run(&mut script(true)).status;
    assert!(matches!(status, RunStatus::Suspended { .. }), "{status:?}");
    path
}

/// Resumes the run at `path` after `edit` changed its snapshot.
fn resume_tampered(
    path: &std::path::Path,
    config: EngineConfig,
    edit: impl FnOnce(&mut serde_json::Value),
) -> Result<RunStatus, String> {
    let file = path.join("snapshot.json");
    let mut snap: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    edit(&mut snap);
    std::fs::write(&file, snap.to_string()).unwrap();
    resume(path, config)
}

/// Resumes the run at `path` and runs it to its end.
fn resume(path: &std::path::Path, config: EngineConfig) -> Result<RunStatus, String> {
    let program = program();
    let dir = RunDir::open(path).unwrap();
    let mut engine = Engine::resume(&program, dir, config).map_err(|e| e.to_string())?;
    Ok(engine.run(&mut script(false)).status)
}

/// A restored snapshot passes the checks of live writes, cannot raise the
/// program's limits, and every problem names `snapshot.json`.
#[test]
fn tampered_snapshots_are_refused_naming_the_file_and_the_problem() {
    let entry = |key: &str, value: serde_json::Value| json!({"key": key, "value": value, "node": "a", "step": 1});
    let big = "x".repeat(1 << 20);
    let small = EngineConfig {
        limits: wf_vm::RunLimits {
            max_write_bytes: 100,
            max_blackboard_bytes: 150,
            ..Default::default()
        },
        ..EngineConfig::default()
    };
    type Edit = Box<dyn FnOnce(&mut serde_json::Value)>;
    let cases: Vec<(&str, EngineConfig, Edit, &str)> = vec![
        (
            "reserved key",
            EngineConfig::default(),
            Box::new(|s| s["frames"][0]["entries"][0]["key"] = json!("internal.admin")),
            "frame 1 (workflow `main`): the entry `internal.admin` has a key reserved for the runtime",
        ),
        (
            "oversized value, raised limit",
            EngineConfig::default(),
            Box::new(move |s| {
                s["limits"]["max_write_bytes"] = json!(1u64 << 40);
                s["frames"][0]["entries"][0]["value"] = json!(big);
            }),
            "the entry `n` is 1048578 bytes serialized, over the limit of 1048576 (max_write_bytes)",
        ),
        (
            "total size",
            small,
            Box::new(move |s| {
                let entries = s["frames"][0]["entries"].as_array_mut().unwrap();
                entries.push(entry("x", json!("y".repeat(80))));
                entries.push(entry("z", json!("y".repeat(80))));
            }),
            "its entries are over the blackboard's limit of 150 bytes (max_blackboard_bytes)",
        ),
        (
            "declared type",
            EngineConfig::default(),
            Box::new(|s| s["frames"][0]["entries"][0]["value"] = json!("four")),
            "the entry `n` is string but node `a` declares it `int`",
        ),
        (
            "unknown node",
            EngineConfig::default(),
            Box::new(|s| s["frames"][0]["node"] = json!("ghost")),
            "workflow `main` has no node `ghost`",
        ),
        (
            "unknown field",
            EngineConfig::default(),
            Box::new(|s| s["admin"] = json!(true)),
            "unknown field `admin`",
        ),
    ];
    for (what, config, edit, want) in cases {
        let path = suspended_run("tamper");
        let err = match resume_tampered(&path, config, edit) {
            Err(e) => e,
            Ok(status) => panic!("{what}: resumed, then {status:?}"),
        };
        let file = path.join("snapshot.json");
        assert!(
            err.starts_with(&format!("`{}`", file.display())) && err.contains(want),
            "{what}: {err}"
        );
        let _ = std::fs::remove_dir_all(&path);
    }
    // Not JSON at all.
    let path = suspended_run("tamper-syntax");
    std::fs::write(path.join("snapshot.json"), "{").unwrap();
    let err = resume(&path, EngineConfig::default()).unwrap_err();
    let want = format!(
        "`{}` line 1 is corrupt",
        path.join("snapshot.json").display()
    );
    assert!(err.starts_with(&want), "{err}");
    let _ = std::fs::remove_dir_all(&path);
}

/// Limits in a snapshot above the program's (here: the resuming
/// configuration's) are lowered to them, not obeyed.
#[test]
fn a_snapshot_cannot_raise_the_limits() {
    let path = suspended_run("limits");
    let config = EngineConfig {
        limits: wf_vm::RunLimits {
            max_steps: 3,
            ..Default::default()
        },
        ..EngineConfig::default()
    };
    let status = resume_tampered(&path, config, |s| {
        assert!(s["step"].as_u64().unwrap() >= 3, "{s}");
        s["limits"]["max_steps"] = json!(1_000_000_000u64);
    })
    .unwrap();
    assert!(
        failed_reason(&status).contains("limit of 3 steps"),
        "{status:?}"
    );
    let _ = std::fs::remove_dir_all(&path);
}

/// Log records that do not fit their snapshot are errors naming
/// `log.jsonl` and the line.
#[test]
fn tampered_logs_are_refused_naming_the_file_and_the_line() {
    let program = program();
    type Edit = fn(&mut Vec<String>);
    let cases: [(Edit, &str); 3] = [
        (
            |l| drop(l.remove(1)),
            "line 2 is corrupt: its `step` is 2 where 1 was expected (the log numbers steps from 0; the snapshot holds 0 steps)",
        ),
        (
            |l| l[2] = r#"{"step":2,"input":"engine","events":[]}"#.into(),
            "line 3 is corrupt: the log records an engine step where the agent decides",
        ),
        (
            |l| l[0] = "{\"step\":0}".into(),
            "line 1 is corrupt: missing field `input`",
        ),
    ];
    for (edit, want) in cases {
        let config = EngineConfig {
            snapshot_every: 0,
            ..EngineConfig::default()
        };
        let (path, dir, _) = stopped_run("tamper-log", &program, &config, &mut script(false), 4);
        let text = std::fs::read_to_string(dir.log_path()).unwrap();
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        edit(&mut lines);
        std::fs::write(dir.log_path(), lines.join("\n") + "\n").unwrap();
        let err = Engine::resume(&program, dir.clone(), config).err().unwrap();
        let want = format!("`{}` {want}", dir.log_path().display());
        assert!(err.to_string().starts_with(&want), "{err}");
        drop(dir);
        let _ = std::fs::remove_dir_all(&path);
    }
}

/// A shared in-memory writer that can be told to fail like a full disk.
#[derive(Clone, Default)]
struct Buffer(std::rc::Rc<std::cell::RefCell<(Vec<u8>, bool)>>);

impl std::io::Write for Buffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut b = self.0.borrow_mut();
        if b.1 {
            return Err(std::io::ErrorKind::StorageFull.into());
        }
        b.0.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The log's events are the event stream, byte for byte: what a resumed
/// run rewrites its `--events` file from.
#[test]
fn logged_events_are_the_event_stream() {
    let program = program();
    let path = temp_dir("events");
    let dir = RunDir::create(&path, &program, &json!({})).unwrap();
    let mut engine = Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    let out = Buffer::default();
    engine.set_event_sink(Box::new(wf_vm::JsonLinesSink::new(out.clone())));
    engine.persist_to(dir.clone()).unwrap();
    assert_eq!(engine.run(&mut script(false)).status, RunStatus::Completed);
    let streamed = out.0.borrow().0.clone();
    assert!(streamed.len() > 500);
    assert_eq!(
        String::from_utf8(dir.logged_events().unwrap()).unwrap(),
        String::from_utf8(streamed).unwrap()
    );
    drop(dir);
    let _ = std::fs::remove_dir_all(&path);
}

/// An event sink that cannot write (a full disk) fails the run before its
/// next step, as a logged step that a resume replays.
#[test]
fn a_failing_event_sink_fails_the_run() {
    let program = program();
    let path = temp_dir("sink-full");
    let dir = RunDir::create(&path, &program, &json!({})).unwrap();
    let mut engine = Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    let out = Buffer::default();
    engine.set_event_sink(Box::new(wf_vm::JsonLinesSink::new(out.clone())));
    engine.persist_to(dir.clone()).unwrap();
    let mut agent = script(false);
    engine.run_for(&mut agent, 2);
    out.0.borrow_mut().1 = true;
    let report = engine.run(&mut agent);
    assert_eq!(
        failed_reason(&report.status),
        "could not write an event: no storage space"
    );
    assert_eq!(
        report.steps, 4,
        "one step writes and fails, the next ends the run"
    );
    drop(engine);
    let records = dir.read_log().unwrap();
    let last = &records.last().unwrap().1;
    assert_eq!(serde_json::to_value(&last.input).unwrap()["input"], "abort");
    drop(dir);
    let _ = std::fs::remove_dir_all(&path);
}

/// The final snapshot failing (a full disk) does not turn a completed run
/// into a failed one: the log holds the end, and a resume finds it.
#[test]
fn a_failed_final_snapshot_leaves_the_run_completed() {
    let program = program();
    let path = temp_dir("final-snapshot");
    let dir = RunDir::create(&path, &program, &json!({})).unwrap();
    let config = EngineConfig {
        snapshot_every: 0,
        ..EngineConfig::default()
    };
    let mut engine = Engine::new(&program, WorkflowIdx(0), config.clone()).unwrap();
    engine.persist_to(dir).unwrap();
    // The temporary snapshot cannot be created: writing it fails.
    std::fs::create_dir(path.join("snapshot.json.tmp")).unwrap();
    let report = engine.run(&mut script(false));
    assert_eq!(report.status, RunStatus::Completed);
    let warning = engine.persist_warning().unwrap();
    assert!(
        warning.starts_with("could not write the final snapshot"),
        "{warning}"
    );
    drop(engine);
    std::fs::remove_dir(path.join("snapshot.json.tmp")).unwrap();
    let engine = Engine::resume(&program, RunDir::open(&path).unwrap(), config).unwrap();
    assert_eq!(engine.status(), &RunStatus::Completed);
    assert_eq!(engine.steps(), report.steps);
    let _ = std::fs::remove_dir_all(&path);
}

/// A callee that fails, a retried call and a retry-target jump: state
/// carried between steps (the callee's failure waiting at the call node,
/// the failure entry) survives a kill at every step.
#[test]
fn a_killed_run_resumes_a_callee_failure_at_every_step() {
    let mut p = Prog::new();
    let main = p.wf("main");
    let sub = p.wf("sub");
    p.chain(main, &["a", "sub", "ok"]);
    p.node(main, "handled", Opcode::Exit);
    p.call(main, "sub", sub, &[]);
    let handled = p.n(main, "handled");
    let call = p.nm(main, "sub");
    call.engine.retries = Some(1);
    call.engine.retry_target = Some(handled);
    p.chain(sub, &["s1", "s2"]);
    let program = p.build();
    let script = || {
        ScriptAgent::from_json(&json!({
            "fallback": "auto",
            "nodes": {"sub/s1": [
                {"type": "advance", "status": "fail", "failure_reason": "one"},
                {"type": "advance", "status": "fail", "failure_reason": "two"}
            ]}
        }))
        .unwrap()
    };
    let straight_path = temp_dir("callee-straight");
    let straight = RunDir::create(&straight_path, &program, &json!({})).unwrap();
    let mut engine = Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    engine.persist_to(straight.clone()).unwrap();
    engine.set_sleeper(Box::new(|_| {}));
    let expected = engine.run(&mut script());
    assert_eq!(expected.status, RunStatus::Completed);
    let (expected_events, _) = log_events(&straight);
    assert!(
        expected_events
            .iter()
            .any(|e| e.contains("\"node:enter\"") && e.contains("\"handled\"")),
        "{expected_events:#?}"
    );
    for (kill_after, every) in (1..expected.steps).flat_map(|k| [(k, 0), (k, 1)]) {
        let config = EngineConfig {
            snapshot_every: every,
            ..EngineConfig::default()
        };
        let (report, _, path) =
            kill_and_resume("callee-kill", &program, &config, kill_after, false, script);
        assert_eq!(
            report.status,
            RunStatus::Completed,
            "kill after {kill_after}"
        );
        assert_eq!(report.failures.len(), expected.failures.len());
        let dir = RunDir::open(&path).unwrap();
        assert_eq!(
            log_events(&dir).0,
            expected_events,
            "kill after {kill_after}"
        );
        let _ = std::fs::remove_dir_all(&path);
    }
    let _ = std::fs::remove_dir_all(&straight_path);
}

/// Issue 15.5: a decision that timed out is logged with its kind of
/// failure, so a run replayed from its log reports `limit` as the live
/// run did (not the `node` failure the logged decision alone would say).
#[test]
fn a_replayed_timeout_keeps_its_kind_of_failure() {
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["a", "b"]);
    p.nm(w, "a").engine.timeout_ms = Some(1);
    let program = p.build();
    let path = temp_dir("timeout-kind");
    let dir = RunDir::create(&path, &program, &json!({})).unwrap();
    let mut engine = Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    engine.persist_to(dir.clone()).unwrap();
    // The snapshot at the start: resuming from it replays every step.
    let first = std::fs::read(path.join("snapshot.json")).unwrap();
    let mut slow = FnAgent(|_: &wf_vm::DecisionContext<'_>| {
        std::thread::sleep(std::time::Duration::from_millis(20));
        Ok(advance(None, &[]))
    });
    let live = engine.run(&mut slow);
    assert!(
        failed_reason(&live.status).contains("timed out"),
        "{live:?}"
    );
    assert_eq!(live.kind, Some(wf_vm::FailureKind::Limit));
    drop(engine);
    drop(dir);
    std::fs::write(path.join("snapshot.json"), first).unwrap();
    let dir = RunDir::open(&path).unwrap();
    let replayed = Engine::resume(&program, dir, EngineConfig::default())
        .unwrap()
        .report();
    assert_eq!(replayed.status, live.status);
    assert_eq!(replayed.kind, Some(wf_vm::FailureKind::Limit));
    let kinds = |r: &wf_vm::Report| r.failures.iter().map(|f| f.kind).collect::<Vec<_>>();
    assert_eq!(kinds(&replayed), kinds(&live));
    let _ = std::fs::remove_dir_all(&path);
}

/// Issue 17.4: `Engine::replay` re-applies a run's log from `start.json`
/// through a read-only handle: while the run still holds its lock (no
/// lock is taken), with a torn last line left in place (not cut, not
/// read), and a completed run with a call is checked against its final
/// snapshot.
#[test]
fn replay_reads_a_held_run_without_changing_it() {
    let program = program();
    let config = EngineConfig::default();
    let (path, held, status) = stopped_run("replay-held", &program, &config, &mut script(false), 4);
    assert_eq!(status, RunStatus::Yielded);
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(held.log_path())
            .unwrap();
        f.write_all(br#"{"step":4,"input":"deci"#).unwrap();
    }
    let log_before = std::fs::read(held.log_path()).unwrap();
    let dir = RunDir::open_read_only(&path).unwrap();
    let replay = Engine::replay(&program, &dir).unwrap();
    assert_eq!(replay.divergence, None);
    assert_eq!(replay.steps, 4);
    // Only the first snapshot exists: the state is checked at step 0.
    assert_eq!(replay.state_checked_at, Some(0));
    assert_eq!(std::fs::read(held.log_path()).unwrap(), log_before);
    let snap = dir.read_snapshot().unwrap();
    assert!(matches!(
        dir.write_snapshot(&snap),
        Err(PersistError::Io { .. })
    ));
    drop(held);
    let _ = std::fs::remove_dir_all(&path);

    let (report, straight) = uninterrupted(&program);
    let dir = RunDir::open_read_only(straight.path()).unwrap();
    let replay = Engine::replay(&program, &dir).unwrap();
    assert_eq!(replay.divergence, None);
    assert_eq!(replay.steps, report.steps);
    assert_eq!(replay.state_checked_at, Some(report.steps));
}

/// A run suspended inside a callee with a budget of its own: the snapshot
/// records the active time the callee was pushed at, which a replay (that
/// takes no time) cannot reproduce; the replay still verifies.
#[test]
fn replay_ignores_the_time_a_budgeted_callee_was_pushed_at() {
    let mut p = Prog::new();
    let main = p.wf("main");
    let sub = p.wf("sub");
    p.chain(main, &["a", "sub", "done"]);
    p.call(main, "sub", sub, &[]);
    p.chain(sub, &["s1", "s2"]);
    p.w(sub).limits.max_steps = Some(100);
    let program = p.build();
    let path = temp_dir("replay-pushed");
    let dir = RunDir::create(&path, &program, &json!({})).unwrap();
    let mut engine = Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    engine.persist_to(dir.clone()).unwrap();
    // A slow first decision: the callee is pushed after some active time.
    let mut agent = FnAgent(|ctx: &wf_vm::DecisionContext<'_>| {
        match program.str(ctx.node.id) {
            "a" => std::thread::sleep(std::time::Duration::from_millis(30)),
            "s2" => {
                return Ok(wf_vm::Decision::Suspend {
                    reason: "wait".into(),
                });
            }
            _ => {}
        }
        Ok(advance(None, &[]))
    });
    let report = engine.run(&mut agent);
    assert!(matches!(report.status, RunStatus::Suspended { .. }));
    let snap = dir.read_snapshot().unwrap();
    let pushed = snap.frames[1].pushed.expect("the callee has a budget");
    assert!(pushed[1] >= 30, "{pushed:?}");
    let replay = Engine::replay(&program, &RunDir::open_read_only(&path).unwrap()).unwrap();
    assert_eq!(replay.divergence, None);
    assert_eq!(replay.state_checked_at, Some(report.steps));
    drop(engine);
    drop(dir);
    let _ = std::fs::remove_dir_all(&path);
}

/// Issue 17.1: with `suspend_on_agent_error`, an agent error suspends the
/// run with the error in the failure trace; the log records that it
/// suspended, so replaying it under a configuration that would fail gives
/// the same suspension (here the snapshot is the first one, so the
/// suspending record is replayed); `Engine::inspect` of a read-only
/// directory sees the same; the resumed run asks again and completes.
#[test]
fn an_agent_error_suspends_and_replays_as_a_suspension() {
    let program = program();
    let path = temp_dir("agent-error-suspends");
    let dir = RunDir::create(&path, &program, &json!({})).unwrap();
    let config = EngineConfig {
        suspend_on_agent_error: true,
        ..EngineConfig::default()
    };
    let mut engine = Engine::new(&program, WorkflowIdx(0), config).unwrap();
    engine.persist_to(dir.clone()).unwrap();
    let first = std::fs::read(dir.snapshot_path()).unwrap();
    // No answer for `a`: the script agent returns an error there.
    let mut broken = ScriptAgent::from_json(&json!({"fallback": "error"})).unwrap();
    let report = engine.run(&mut broken);
    let RunStatus::Suspended { reason } = &report.status else {
        panic!("{report:?}");
    };
    assert!(
        reason.starts_with("the agent failed at node `a` of workflow `main`: "),
        "{reason}"
    );
    assert_eq!(report.failures.len(), 1, "{report:?}");
    assert_eq!(report.failures[0].kind, wf_vm::FailureKind::Agent);
    assert_eq!(&report.failures[0].reason, reason);
    assert_eq!(report.at.as_ref().unwrap().node, "a");
    drop(engine);
    drop(dir);
    std::fs::write(path.join("snapshot.json"), first).unwrap();

    let view = RunDir::open_read_only(&path).unwrap();
    assert_eq!(view.holder().unwrap(), None);
    let seen = Engine::inspect(&program, &view, EngineConfig::default()).unwrap();
    assert_eq!(seen.report().status, report.status);
    // The same entries (a replayed entry's `time_ms` is the replay's).
    let entries = |r: &wf_vm::Report| -> Vec<(wf_vm::FailureKind, String, u64)> {
        r.failures
            .iter()
            .map(|f| (f.kind, f.reason.clone(), f.step))
            .collect()
    };
    assert_eq!(entries(&seen.report()), entries(&report));

    let mut engine = Engine::resume(
        &program,
        RunDir::open(&path).unwrap(),
        EngineConfig::default(),
    )
    .unwrap();
    assert_eq!(engine.report().status, report.status);
    // The resuming engine holds the lock; the view sees its holder.
    assert_eq!(view.holder().unwrap(), Some(Some(std::process::id())));
    let done = engine.run(&mut script(false));
    assert_eq!(done.status, RunStatus::Completed, "{done:?}");
    assert_eq!(entries(&done), entries(&report));
}

/// Issue 17.2: a run suspended at a `human` node waits on question
/// `ask#1`; an answer appended to the log (under the lock) is read back as
/// a pending answer, a later one replaces it, the step readers skip it, and
/// `Answered` applies it to that node: the run takes the chosen edge
/// without asking the agent there, and the next resume sees no answer
/// left. A corrupt answer line is an error naming the line.
#[test]
fn an_answer_in_the_log_is_applied_to_its_question_only() {
    use wf_vm::attractor::interviewer::QuestionOption;
    use wf_vm::question::{AnswerRecord, Answered, QuestionKind, pending};

    let program = program();
    let path = temp_dir("answer-in-log");
    let dir = RunDir::create(&path, &program, &json!({})).unwrap();
    let mut engine = Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    engine.persist_to(dir.clone()).unwrap();
    assert!(matches!(
        engine.run(&mut script(true)).status,
        RunStatus::Suspended { .. }
    ));
    let q = pending(&program, &mut engine).expect("a pending question");
    assert_eq!((q.id.as_str(), q.kind), ("ask#1", QuestionKind::Choice));
    let labels: Vec<&str> = q.options.iter().map(|o| o.label.as_str()).collect();
    assert_eq!(labels, ["[Y] Yes", "[N] No"]);
    drop(engine);
    drop(dir);

    let dir = RunDir::open(&path).unwrap();
    let steps = dir.read_log().unwrap().len();
    let no = AnswerRecord::new(&q, &["n".to_owned()], None).unwrap();
    let yes = AnswerRecord::new(&q, &["Yes".to_owned()], None).unwrap();
    assert!(AnswerRecord::new(&q, &["maybe".to_owned()], None).is_err());
    assert!(AnswerRecord::new(&q, &[], Some("text")).is_err());
    dir.append_answer(&no).unwrap();
    dir.append_answer(&yes).unwrap();
    assert_eq!(
        dir.read_log().unwrap().len(),
        steps,
        "answers are not steps"
    );
    assert_eq!(dir.answers().unwrap(), std::slice::from_ref(&yes));
    yes.verify(&program).unwrap();
    let mut foreign = yes.clone();
    foreign.node = "a".into();
    foreign.question = "a#1".into();
    assert!(
        foreign
            .verify(&program)
            .unwrap_err()
            .contains("asks no question")
    );
    assert_eq!(
        yes.choice,
        Some(QuestionOption {
            key: "Y".into(),
            label: "[Y] Yes".into()
        })
    );

    // The script would suspend again at `ask`: the answer comes first.
    let mut engine = Engine::resume(&program, dir.clone(), EngineConfig::default()).unwrap();
    let mut agent = Answered::new(Box::new(script(true)), dir.answers().unwrap());
    let report = engine.run(&mut agent);
    assert_eq!(report.status, RunStatus::Completed, "{report:?}");
    assert_eq!(report.at.as_ref().unwrap().node, "yes");
    drop(engine);
    assert!(dir.answers().unwrap().is_empty(), "spent");

    // A corrupt answer line names its line.
    let log = dir.log_path();
    let mut text = std::fs::read_to_string(&log).unwrap();
    text.push_str("{\"answer\":{\"question\":\"ask#1\"}}\n");
    std::fs::write(&log, &text).unwrap();
    let line = text.lines().count();
    match dir.read_log() {
        Err(PersistError::Corrupt { line: Some(l), .. }) => assert_eq!(l, line),
        other => panic!("{other:?}"),
    }
    drop(dir);
    let _ = std::fs::remove_dir_all(&path);
}

/// Issue 17.4: every event and log record carries the run id, a time and,
/// where one applies, a duration; the id survives a suspension and a
/// resume in another engine; a replay ignores the times but not the id,
/// and a log from before records had them still replays.
#[test]
fn events_and_records_carry_the_run_id_a_time_and_durations() {
    let program = program();
    let path = temp_dir("stamps");
    let dir = RunDir::create(&path, &program, &json!({})).unwrap();
    let mut engine = Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    let run = engine.run_id().to_owned();
    engine.persist_to(dir).unwrap();
    let mut agent = script(true);
    let first = engine.run(&mut agent);
    assert!(matches!(first.status, RunStatus::Suspended { .. }));
    drop(engine);
    let mut engine = Engine::resume(
        &program,
        RunDir::open(&path).unwrap(),
        EngineConfig::default(),
    )
    .unwrap();
    assert_eq!(engine.run_id(), run, "the id is kept across a resume");
    assert_eq!(engine.run(&mut agent).status, RunStatus::Completed);
    drop(engine);

    let rfc3339 = regex::Regex::new(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$").unwrap();
    let ts = |s: &str| rfc3339.is_match(s);
    let text = std::fs::read_to_string(path.join("log.jsonl")).unwrap();
    let records: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The log carries the run id and time once per record: its events
    // inherit them (and carry a time only when theirs differs).
    for r in &records {
        for e in r["events"].as_array().unwrap() {
            assert!(e.get("run").is_none(), "{e}");
            assert_ne!(e.get("ts"), Some(&r["ts"]), "{e}");
        }
    }
    let read = RunDir::open_read_only(&path).unwrap().read_log().unwrap();
    let records: Vec<serde_json::Value> = read
        .into_iter()
        .map(|(_, r)| serde_json::to_value(r).unwrap())
        .collect();
    assert!(records.len() > 3);
    for r in &records {
        assert_eq!(r["run"], run.as_str(), "{r}");
        assert!(ts(r["ts"].as_str().unwrap()), "{r}");
        assert!(r["duration_ms"].is_u64(), "{r}");
        for e in r["events"].as_array().unwrap() {
            assert_eq!(e["run"], run.as_str(), "{e}");
            assert!(ts(e["ts"].as_str().unwrap()), "{e}");
            let timed = matches!(
                e["event"].as_str().unwrap(),
                "engine:complete" | "engine:suspend" | "workflow:pop"
            );
            if timed {
                assert!(e["duration_ms"].is_u64(), "{e}");
            }
        }
    }
    // `node:exit` has the node's duration when its entry was seen in this
    // process (every exit but the one of the node the run resumed at).
    let exits = records
        .iter()
        .flat_map(|r| r["events"].as_array().unwrap())
        .filter(|e| e["event"] == "node:exit");
    assert!(exits.clone().count() > 3);
    assert!(exits.filter(|e| e["duration_ms"].is_u64()).count() >= 3);
    let dir = RunDir::open_read_only(&path).unwrap();
    assert_eq!(Engine::replay(&program, &dir).unwrap().divergence, None);

    // Another run id in one event is a divergence.
    let rewrite = |f: &dyn Fn(&mut serde_json::Value)| {
        let lines: Vec<String> = records
            .iter()
            .map(|r| {
                let mut r = r.clone();
                f(&mut r);
                r.to_string() + "\n"
            })
            .collect();
        std::fs::write(path.join("log.jsonl"), lines.concat()).unwrap();
    };
    rewrite(&|r| {
        if r["step"] == 1 {
            r["events"][0]["run"] = json!("someone-else");
        }
    });
    let d = Engine::replay(&program, &dir).unwrap().divergence.unwrap();
    assert_eq!((d.step, d.what.as_str()), (1, "event 1 of the step"));
    assert!(d.recorded.unwrap().contains("someone-else"));

    // A log and snapshots without ids and times (an older wfc): replays.
    rewrite(&|r| {
        let o = r.as_object_mut().unwrap();
        for f in ["run", "ts", "duration_ms"] {
            o.remove(f);
        }
        for e in r["events"].as_array_mut().unwrap() {
            for f in ["run", "ts", "duration_ms"] {
                e.as_object_mut().unwrap().remove(f);
            }
        }
    });
    for name in ["start.json", "snapshot.json"] {
        let p = path.join(name);
        let mut s: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        s.as_object_mut().unwrap().remove("run_id");
        std::fs::write(&p, s.to_string()).unwrap();
    }
    assert_eq!(Engine::replay(&program, &dir).unwrap().divergence, None);
    let _ = std::fs::remove_dir_all(&path);
}

/// Issue 17.2/17.6: answers read through the store (`RunStore::questions`,
/// `wf_vm::question::answers`) as the resumed run does. An answer line of
/// an older `wfc answer` (no `questions.jsonl`) is still read; a
/// branch-scoped answer is never applied to the node of the run itself
/// (`Answered` matches the whole id): the run asks its agent, which
/// suspends again; the scoped answer is then spent.
#[test]
fn answers_are_read_through_the_store_and_scoped_ones_stay_in_their_branch() {
    use wf_vm::question::{AnswerRecord, Answered, pending};

    let program = program();
    let path = temp_dir("answer-through-store");
    let dir = RunDir::create(&path, &program, &json!({})).unwrap();
    let mut engine = Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    engine.persist_to(dir.clone()).unwrap();
    engine.run(&mut script(true));
    let q = pending(&program, &mut engine).expect("a pending question");
    drop(engine);
    drop(dir);

    // A run directory of an older version: the engine recorded no
    // question (it now records them as the run suspends).
    std::fs::remove_file(path.join("questions.jsonl")).unwrap();
    let dir = RunDir::open(&path).unwrap();
    let yes = AnswerRecord::new(&q, &["Yes".to_owned()], None).unwrap();
    let mut scoped = yes.clone();
    scoped.question = format!("fan#1/a/{}", yes.question);
    scoped.verify(&program).unwrap();
    dir.append_answer(&scoped).unwrap();
    assert!(!path.join("questions.jsonl").exists());
    assert_eq!(
        wf_vm::question::answers(&dir).unwrap(),
        std::slice::from_ref(&scoped)
    );
    let mut engine = Engine::resume(&program, dir.clone(), EngineConfig::default()).unwrap();
    let answers = wf_vm::question::answers(&dir).unwrap();
    let mut agent = Answered::new(Box::new(script(true)), answers);
    let report = engine.run(&mut agent);
    assert!(
        matches!(report.status, RunStatus::Suspended { .. }),
        "{report:?}"
    );
    drop(engine);
    assert!(wf_vm::question::answers(&dir).unwrap().is_empty(), "spent");
    // The node's own answer, through the store, applies.
    dir.append_answer(&yes).unwrap();
    let mut engine = Engine::resume(&program, dir.clone(), EngineConfig::default()).unwrap();
    let answers = wf_vm::question::answers(&dir).unwrap();
    let mut agent = Answered::new(Box::new(script(true)), answers);
    let report = engine.run(&mut agent);
    assert_eq!(report.status, RunStatus::Completed, "{report:?}");
    drop(engine);
    let _ = std::fs::remove_dir_all(&path);
}

/// A process killed while it created its run directory (after
/// `program.json` and `meta.json`, before the first snapshot) ran nothing:
/// the directory cannot be resumed, and is created again instead of
/// being refused as a run ("already holds a run: resume it") that resume
/// then refuses as no run, a dead end (found by kill_storm).
#[test]
fn a_directory_whose_creation_was_interrupted_is_created_again() {
    let program = program();
    let path = temp_dir("interrupted_create");
    // The killed process: its directory, its lock released.
    drop(RunDir::create(&path, &program, &json!({"first": true})).unwrap());
    let err = RunDir::open(&path).unwrap_err().to_string();
    assert!(err.contains("before its first step (nothing ran)"), "{err}");
    assert!(err.contains("start it again"), "{err}");
    let dir = RunDir::create(&path, &program, &json!({"first": false})).unwrap();
    assert_eq!(dir.meta().unwrap()["first"], false);
    let mut engine = Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    engine.persist_to(dir).unwrap();
    drop(engine);
    // A run that has its first snapshot is a run: not replaced.
    assert!(matches!(
        RunDir::create(&path, &program, &json!({})),
        Err(PersistError::AlreadyExists(_))
    ));
    let _ = std::fs::remove_dir_all(&path);
}

/// A run directory written before defaults were left out (`program.json`
/// spelling out every default of the IR, log records spelling out every
/// default of a decision: `tests/runs/pre-compact`, a 5-node chain killed
/// after 3 steps, as wfc wrote it on 2026-11-26) loads, resumes to the
/// end and replays; the records the resume appends leave defaults out.
#[test]
fn a_run_written_with_every_default_spelled_out_resumes_and_replays() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/runs/pre-compact");
    let path = temp_dir("pre-compact");
    std::fs::create_dir_all(&path).unwrap();
    for f in [
        "program.json",
        "meta.json",
        "start.json",
        "snapshot.json",
        "log.jsonl",
    ] {
        std::fs::copy(fixture.join(f), path.join(f)).unwrap();
    }
    let old_log = std::fs::read_to_string(path.join("log.jsonl")).unwrap();
    assert!(old_log.contains(r#""edge":null,"preferred_label":null"#));
    let dir = RunDir::open(&path).unwrap();
    let program = dir.program().unwrap();
    assert_eq!(program, linear(5, false), "the old IR form loads as it was");
    let mut engine = Engine::resume(&program, dir, EngineConfig::default()).unwrap();
    assert_eq!(engine.steps(), 3);
    let report = engine.run(&mut wf_vm::agents::AutoAgent);
    assert_eq!(report.status, RunStatus::Completed);
    assert_eq!(report.steps, 5);
    drop(engine);
    let log = std::fs::read_to_string(path.join("log.jsonl")).unwrap();
    let new = &log[old_log.len()..];
    assert_eq!(new.lines().count(), 2, "{new}");
    assert!(
        new.contains(r#""decision":{"type":"advance","status":"success"},"#),
        "{new}"
    );
    assert!(new.contains(r#""decision":{"type":"complete"},"#), "{new}");
    let dir = RunDir::open_read_only(&path).unwrap();
    let replay = Engine::replay(&program, &dir).unwrap();
    assert_eq!(replay.divergence, None);
    assert_eq!(replay.steps, 5);
    let _ = std::fs::remove_dir_all(&path);
}

/// The clock is read once per step for its events and its record: a
/// record has its events' time even when emitting them takes time (a
/// slow sink), and the events after a slow decision have the time after
/// it, on the run's first step too (its node was entered before).
#[test]
fn a_step_and_its_events_share_one_time_read_after_the_decision() {
    use std::time::Duration;
    use wf_vm::agents::AutoAgent;
    use wf_vm::{Decision, DecisionAgent, DecisionContext, Event, EventSink};

    struct Slow(AutoAgent);
    impl DecisionAgent for Slow {
        fn decide(&mut self, ctx: &DecisionContext<'_>) -> Result<Decision, wf_vm::AgentError> {
            std::thread::sleep(Duration::from_millis(30));
            self.0.decide(ctx)
        }
    }
    struct SlowSink;
    impl EventSink for SlowSink {
        fn emit(&mut self, _: &Event<'_>) {
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    let program = linear(3, false);
    let path = temp_dir("one-time");
    let dir = RunDir::create(&path, &program, &json!({})).unwrap();
    let mut engine = Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    engine.persist_to(dir).unwrap();
    engine.set_event_sink(Box::new(SlowSink));
    assert_eq!(
        engine.run(&mut Slow(AutoAgent)).status,
        RunStatus::Completed
    );
    drop(engine);
    let records: Vec<serde_json::Value> = RunDir::open_read_only(&path)
        .unwrap()
        .read_log()
        .unwrap()
        .into_iter()
        .map(|(_, r)| serde_json::to_value(r).unwrap())
        .collect();
    assert_eq!(records.len(), 3);
    for (i, r) in records.iter().enumerate() {
        // Step 0 entered `n0` before its decision.
        let skip = usize::from(i == 0);
        for e in &r["events"].as_array().unwrap()[skip..] {
            assert_eq!(e["ts"], r["ts"], "{r}");
        }
        // The step's decision took 30 ms.
        assert!(r["duration_ms"].as_u64().unwrap() >= 30, "{r}");
    }
    // Step 0 entered `n0`, then decided: its exit is 30 ms later.
    let events = records[0]["events"].as_array().unwrap();
    assert_eq!(events[1]["event"], "node:exit");
    assert!(
        events[1]["duration_ms"].as_u64().unwrap() >= 30,
        "{}",
        records[0]
    );
    let _ = std::fs::remove_dir_all(&path);
}

/// A run directory through which the process "dies" between recording
/// the questions of a suspension and logging the step that suspends:
/// once a question was recorded, appending a step fails (nothing is
/// written), as the log stands after a kill at that moment.
#[derive(Debug)]
struct DiesAfterAsking {
    inner: RunDir,
    asked: bool,
}

impl wf_vm::RunStore for DiesAfterAsking {
    fn append(&mut self, step: u64, record: &[u8]) -> Result<(), PersistError> {
        if self.asked {
            return Err(PersistError::Io {
                path: self.inner.log_path(),
                what: "append to",
                error: std::io::Error::other("killed"),
            });
        }
        self.inner.append(step, record)
    }
    fn sync(&mut self) -> Result<(), PersistError> {
        self.inner.sync()
    }
    fn write_snapshot(&mut self, snap: &wf_vm::Snapshot) -> Result<(), PersistError> {
        RunStore::write_snapshot(&mut self.inner, snap)
    }
    fn write_start(&mut self, snap: &wf_vm::Snapshot) -> Result<(), PersistError> {
        RunStore::write_start(&mut self.inner, snap)
    }
    fn record_effect(
        &mut self,
        record: &wf_vm::effects::EffectRecord,
        sync: bool,
    ) -> Result<(), PersistError> {
        self.inner.record_effect(record, sync)
    }
    fn effects(&self) -> Result<Vec<wf_vm::effects::EffectRecord>, PersistError> {
        self.inner.effects()
    }
    fn record_question(&mut self, id: &str, q: &serde_json::Value) -> Result<(), PersistError> {
        self.asked = true;
        self.inner.record_question(id, q)
    }
    fn record_answer(&mut self, id: &str, a: &serde_json::Value) -> Result<(), PersistError> {
        self.inner.record_answer(id, a)
    }
    fn questions(&self) -> Result<Vec<wf_vm::QuestionRecord>, PersistError> {
        self.inner.questions()
    }
    fn take_lock(
        &mut self,
        h: &str,
        ttl: std::time::Duration,
    ) -> Result<wf_vm::Lease, PersistError> {
        self.inner.take_lock(h, ttl)
    }
    fn renew_lock(&mut self, ttl: std::time::Duration) -> Result<wf_vm::Lease, PersistError> {
        self.inner.renew_lock(ttl)
    }
    fn release_lock(&mut self) -> Result<(), PersistError> {
        self.inner.release_lock()
    }
    fn lock_holder(&self) -> Result<Option<String>, PersistError> {
        self.inner.lock_holder()
    }
    fn program(&self) -> Result<IrProgram, PersistError> {
        RunStore::program(&self.inner)
    }
    fn read_snapshot(&self) -> Result<wf_vm::Snapshot, PersistError> {
        RunStore::read_snapshot(&self.inner)
    }
    fn read_start(&self) -> Result<Option<wf_vm::Snapshot>, PersistError> {
        RunStore::read_start(&self.inner)
    }
    fn read_log_from(&self, from: u64) -> Result<Vec<(usize, wf_vm::LogRecord)>, PersistError> {
        self.inner.read_log_from(from)
    }
    fn corrupt(&self, part: wf_vm::StorePart, pos: Option<usize>, m: String) -> PersistError {
        self.inner.corrupt(part, pos, m)
    }
}

use wf_vm::RunStore;

/// The ids of the questions a run directory lists for the step count its
/// log has (what `wfc status` and `wfc answer` read).
fn listed(path: &std::path::Path) -> (u64, Vec<String>) {
    let program = program();
    let dir = RunDir::open_read_only(path).unwrap();
    let engine = Engine::inspect(&program, &dir, EngineConfig::default()).unwrap();
    let steps = engine.steps();
    let ids = wf_vm::question::current(&dir, steps)
        .unwrap()
        .into_iter()
        .map(|(q, _)| q.id)
        .collect();
    (steps, ids)
}

/// The questions of a suspension are recorded by the engine before the
/// step that suspends is logged (issue 17.2): a process killed right
/// after that step (here: the engine dropped, nothing else written) leaves
/// a run that lists its question. Before, the CLI recorded them after the
/// run returned, and such a run listed none.
#[test]
fn a_suspended_run_lists_its_question_once_the_suspension_is_logged() {
    let program = program();
    let path = temp_dir("asked_then_killed");
    let dir = RunDir::create(&path, &program, &json!({})).unwrap();
    let mut engine = Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    engine.persist_to(dir).unwrap();
    let report = engine.run(&mut script(true));
    assert!(matches!(report.status, RunStatus::Suspended { .. }));
    let steps = engine.steps();
    drop(engine);
    assert_eq!(listed(&path), (steps, vec!["ask#1".to_owned()]));
}

/// Killed between the two writes: the question is recorded, the step that
/// suspends is not. The question names a step the log never got, so the
/// run lists none (it is not suspended: the resumed run asks the node
/// again); resumed, the run suspends again and lists the question once.
#[test]
fn a_question_recorded_for_a_step_the_kill_kept_from_the_log_is_ignored() {
    let program = program();
    let path = temp_dir("killed_between");
    let dir = RunDir::create(&path, &program, &json!({})).unwrap();
    let store = DiesAfterAsking {
        inner: dir,
        asked: false,
    };
    let mut engine = Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    engine.persist_to(store).unwrap();
    let report = engine.run(&mut script(true));
    let logged = engine.steps() - 1;
    drop(engine);
    assert!(
        failed_reason(&report.status).contains("could not append to the run log"),
        "{report:?}"
    );
    let q = RunDir::open_read_only(&path).unwrap();
    assert_eq!(q.questions().unwrap().len(), 1, "the question was recorded");
    assert_eq!(listed(&path), (logged, vec![]));
    // Resumed: the node asks again, the run suspends and lists it.
    let mut engine = Engine::resume(
        &program,
        RunDir::open(&path).unwrap(),
        EngineConfig::default(),
    )
    .unwrap();
    let mut agent = script(true);
    let report = engine.run(&mut agent);
    assert!(
        matches!(report.status, RunStatus::Suspended { .. }),
        "{report:?}"
    );
    let steps = engine.steps();
    drop(engine);
    assert_eq!(steps, logged + 1);
    assert_eq!(listed(&path), (steps, vec!["ask#1".to_owned()]));
}

/// The log carries the run id and the time once per record: its events
/// leave them out (an event keeps a `ts` of its own only when it differs
/// from its record's: the first step's `node:enter`, before a slow
/// decision). Read back, every event has them again: the `--events` text
/// rebuilt from the log is the streamed one byte for byte, and so it is
/// from a log of the previous format, whose events carried their own.
#[test]
fn events_inherit_the_run_id_and_time_of_their_record() {
    use std::time::Duration;
    use wf_vm::agents::AutoAgent;
    use wf_vm::{Decision, DecisionAgent, DecisionContext};

    struct SlowFirst(bool);
    impl DecisionAgent for SlowFirst {
        fn decide(&mut self, ctx: &DecisionContext<'_>) -> Result<Decision, wf_vm::AgentError> {
            if !std::mem::replace(&mut self.0, true) {
                std::thread::sleep(Duration::from_millis(5));
            }
            AutoAgent.decide(ctx)
        }
    }

    let program = linear(4, true);
    let path = temp_dir("inherit");
    let dir = RunDir::create(&path, &program, &json!({})).unwrap();
    let mut engine = Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    let run = engine.run_id().to_owned();
    let out = Buffer::default();
    engine.set_event_sink(Box::new(wf_vm::JsonLinesSink::new(out.clone())));
    engine.persist_to(dir.clone()).unwrap();
    let report = engine.run(&mut SlowFirst(false));
    assert_eq!(report.status, RunStatus::Completed);
    drop(engine);
    let streamed = String::from_utf8(out.0.borrow().0.clone()).unwrap();

    let log = std::fs::read_to_string(path.join("log.jsonl")).unwrap();
    assert_eq!(log.matches(&run).count(), log.lines().count(), "{log}");
    let first: serde_json::Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
    let enter = &first["events"][0];
    assert_eq!(enter["event"], "node:enter");
    assert!(
        enter["ts"].is_string() && enter["ts"] != first["ts"],
        "{first}"
    );
    assert!(log.contains(r#""event":"blackboard:write""#));

    let logged = String::from_utf8(dir.logged_events().unwrap()).unwrap();
    assert_eq!(logged, streamed);
    let streamed_values: Vec<serde_json::Value> = streamed
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let read: Vec<serde_json::Value> = dir
        .read_log()
        .unwrap()
        .into_iter()
        .flat_map(|(_, r)| r.events)
        .collect();
    assert_eq!(read, streamed_values);

    // The previous format: each event with its own run id and time.
    let mut lines = streamed.lines();
    let old: String = log
        .lines()
        .map(|l| {
            let r: serde_json::Value = serde_json::from_str(l).unwrap();
            let n = r["events"].as_array().unwrap().len();
            let events: Vec<&str> = lines.by_ref().take(n).collect();
            let (head, tail) = l.split_once(r#""events":["#).unwrap();
            let (_, tail) = tail.split_once(r#"],"run":"#).unwrap();
            format!("{head}\"events\":[{}],\"run\":{tail}\n", events.join(","))
        })
        .collect();
    assert!(old.matches(&run).count() > 3 * log.lines().count());
    std::fs::write(path.join("log.jsonl"), &old).unwrap();
    assert_eq!(
        String::from_utf8(dir.logged_events().unwrap()).unwrap(),
        streamed
    );
    drop(dir);
    let dir = RunDir::open_read_only(&path).unwrap();
    assert_eq!(Engine::replay(&program, &dir).unwrap().divergence, None);
    let _ = std::fs::remove_dir_all(&path);
}

/// A snapshot's visits: a run of neighbouring nodes entered equally often
/// is one entry (a chain's snapshot does not grow with the nodes passed,
/// docs/performance.md "Durable runs"); a snapshot written one entry per
/// node, as before, still resumes and replays.
#[test]
fn a_chains_visits_are_one_entry_and_per_node_visits_still_load() {
    let program = linear(1000, false);
    let path = temp_dir("visit-runs");
    let dir = RunDir::create(&path, &program, &json!({})).unwrap();
    let config = EngineConfig {
        snapshot_every: 400,
        ..EngineConfig::default()
    };
    let mut engine = Engine::new(&program, WorkflowIdx(0), config.clone()).unwrap();
    engine.persist_to(dir).unwrap();
    engine.run_for(&mut wf_vm::agents::AutoAgent, 600);
    drop(engine);
    let snap_file = path.join("snapshot.json");
    let snap: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&snap_file).unwrap()).unwrap();
    assert_eq!(snap["step"], json!(400));
    assert_eq!(
        snap["visits"],
        json!([{"workflow": "linear", "node": "n0", "count": 1, "through": "n400"}])
    );
    // The same snapshot one entry per node, as wfc wrote it before.
    let per_node = |snap: &wf_vm::Snapshot| {
        let visits = snap.visits_per_node(&program);
        assert!(visits.iter().all(|v| v.through.is_none()));
        serde_json::to_string(&wf_vm::Snapshot {
            visits,
            ..snap.clone()
        })
        .unwrap()
    };
    let old: wf_vm::Snapshot = serde_json::from_value(snap).unwrap();
    assert_eq!(per_node(&old).matches("\"node\":").count(), 401 + 1);
    std::fs::write(&snap_file, per_node(&old)).unwrap();
    let mut engine =
        Engine::resume(&program, RunDir::open(&path).unwrap(), config.clone()).unwrap();
    assert_eq!(engine.steps(), 600);
    let report = engine.run(&mut wf_vm::agents::AutoAgent);
    assert_eq!(report.status, RunStatus::Completed);
    assert_eq!(report.steps, 1000);
    drop(engine);
    // The final snapshot rewritten one entry per node replays as it is.
    let last: wf_vm::Snapshot =
        serde_json::from_str(&std::fs::read_to_string(&snap_file).unwrap()).unwrap();
    assert_eq!(last.visits.len(), 1, "{:?}", last.visits);
    std::fs::write(&snap_file, per_node(&last)).unwrap();
    let dir = RunDir::open_read_only(&path).unwrap();
    let replay = Engine::replay(&program, &dir).unwrap();
    assert_eq!(replay.divergence, None);
    // A count that differs in one node of the run is found, named per node.
    let mut wrong = last.clone();
    wrong.visits = last.visits_per_node(&program);
    wrong.visits[7].count = 2;
    std::fs::write(&snap_file, serde_json::to_string(&wrong).unwrap()).unwrap();
    let divergence = Engine::replay(&program, &dir).unwrap().divergence.unwrap();
    assert_eq!(
        divergence.what,
        "the state `snapshot.json` holds after 1000 steps, at `visits[7].count`"
    );
    let _ = std::fs::remove_dir_all(&path);
}

/// A run of visits that ends before it starts, or at a node the workflow
/// does not have, is refused naming `snapshot.json`.
#[test]
fn tampered_visit_runs_are_refused() {
    type Edit = Box<dyn FnOnce(&mut serde_json::Value)>;
    let cases: Vec<(Edit, &str)> = vec![
        (
            Box::new(|s| {
                s["visits"] =
                    json!([{"workflow": "main", "node": "ask", "count": 1, "through": "a"}])
            }),
            "the visits of `ask` run through `a`, which comes before it in workflow `main`",
        ),
        (
            Box::new(|s| {
                s["visits"] =
                    json!([{"workflow": "main", "node": "a", "count": 1, "through": "ghost"}])
            }),
            "workflow `main` has no node `ghost`",
        ),
    ];
    for (edit, want) in cases {
        let path = suspended_run("tamper-visits");
        let snap: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path.join("snapshot.json")).unwrap())
                .unwrap();
        assert!(
            snap["visits"]
                .as_array()
                .unwrap()
                .iter()
                .any(|v| v.get("through").is_some()),
            "{snap}"
        );
        let err = resume_tampered(&path, EngineConfig::default(), edit).unwrap_err();
        let file = path.join("snapshot.json");
        assert!(
            err.starts_with(&format!("`{}`", file.display())) && err.contains(want),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(&path);
    }
}
