//! Run directories: suspend → resume and killed → resume reach the same
//! state as an uninterrupted run; torn log lines are dropped; nothing is
//! logged twice.

mod common;

use common::*;
use serde_json::json;
use wf_ir::{IrProgram, Opcode, ValueType, WorkflowIdx};
use wf_vm::agents::ScriptAgent;
use wf_vm::{Engine, EngineConfig, RunDir, RunStatus};

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
            let path = temp_dir("kill");
            let dir = RunDir::create(&path, &program, &json!({})).unwrap();
            let config = EngineConfig {
                snapshot_every: every,
                ..EngineConfig::default()
            };
            let mut engine = Engine::new(&program, WorkflowIdx(0), config.clone()).unwrap();
            engine.persist_to(dir.clone()).unwrap();
            let mut agent = script(false);
            assert_eq!(engine.run_for(&mut agent, kill_after), RunStatus::Yielded);
            // "Killed": no final snapshot; maybe half a line written.
            drop(engine);
            if torn {
                use std::io::Write;
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(dir.log_path())
                    .unwrap();
                f.write_all(br#"{"step":99,"input":"deci"#).unwrap();
            }
            // The agent lost its memory with the process: a fresh script,
            // minus the answers already used (recorded steps replay).
            let mut agent = script(false);
            let mut fresh = Engine::new(&program, WorkflowIdx(0), config.clone()).unwrap();
            fresh.run_for(&mut agent, kill_after);
            let mut engine =
                Engine::resume(&program, RunDir::open(&path).unwrap(), config).unwrap();
            assert_eq!(
                engine.steps(),
                kill_after,
                "kill after {kill_after}, torn {torn}"
            );
            let report = engine.run(&mut agent);
            assert_eq!(report.status, RunStatus::Completed);
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
    let path = temp_dir("corrupt");
    let dir = RunDir::create(&path, &program, &json!({})).unwrap();
    let mut engine = Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    engine.persist_to(dir.clone()).unwrap();
    engine.run_for(&mut script(false), 2);
    drop(engine);
    assert!(matches!(
        RunDir::create(&path, &program, &json!({})),
        Err(wf_vm::PersistError::AlreadyExists(_))
    ));
    let log = std::fs::read_to_string(dir.log_path()).unwrap();
    std::fs::write(dir.log_path(), format!("garbage\n{log}")).unwrap();
    let err = Engine::resume(&program, dir.clone(), EngineConfig::default())
        .err()
        .unwrap();
    assert!(err.to_string().contains("line 1 is corrupt"), "{err}");
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
        let path = temp_dir("callee-kill");
        let dir = RunDir::create(&path, &program, &json!({})).unwrap();
        let config = EngineConfig {
            snapshot_every: every,
            ..EngineConfig::default()
        };
        let mut engine = Engine::new(&program, WorkflowIdx(0), config.clone()).unwrap();
        engine.persist_to(dir.clone()).unwrap();
        engine.set_sleeper(Box::new(|_| {}));
        assert_eq!(
            engine.run_for(&mut script(), kill_after),
            RunStatus::Yielded
        );
        drop(engine);
        let mut agent = script();
        let mut fresh = Engine::new(&program, WorkflowIdx(0), config.clone()).unwrap();
        fresh.set_sleeper(Box::new(|_| {}));
        fresh.run_for(&mut agent, kill_after);
        let mut engine = Engine::resume(&program, RunDir::open(&path).unwrap(), config).unwrap();
        engine.set_sleeper(Box::new(|_| {}));
        let report = engine.run(&mut agent);
        assert_eq!(
            report.status,
            RunStatus::Completed,
            "kill after {kill_after}"
        );
        assert_eq!(report.failures.len(), expected.failures.len());
        assert_eq!(
            log_events(&dir).0,
            expected_events,
            "kill after {kill_after}"
        );
        let _ = std::fs::remove_dir_all(&path);
    }
    let _ = std::fs::remove_dir_all(&straight_path);
}
