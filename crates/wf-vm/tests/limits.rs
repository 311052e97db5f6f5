//! Run-time contracts and limits: rejected writes, steps, visits, depth,
//! time, step budgets.

mod common;

use common::*;
use serde_json::{Value, json};
use wf_ir::{ValueType, WorkflowIdx};
use wf_vm::agents::AutoAgent;
use wf_vm::{EngineConfig, RunStatus};

#[test]
fn contract_violations_fail_the_node_without_writing() {
    let cases: [(&str, Value, &str); 4] = [
        ("count", json!("three"), "declares it `int`"),
        ("_secret", json!(1), "reserved"),
        ("internal.x", json!(1), "reserved"),
        ("other", json!(1), "not one of them"),
    ];
    for (key, value, why) in cases {
        let mut p = Prog::new();
        let w = p.wf("main");
        p.chain(w, &["a", "b"]);
        p.writes(w, "a", "count", ValueType::Int);
        let program = p.build();
        let mut agent = FnAgent(|_: &wf_vm::DecisionContext<'_>| {
            Ok(advance(None, &[("count", json!(1)), (key, value.clone())]))
        });
        let (report, events) = run_collect(&program, EngineConfig::default(), &mut agent);
        let reason = failed_reason(&report.status);
        assert!(reason.contains(why), "{key}: {reason}");
        assert!(report.blackboard.is_empty(), "{key}: nothing written");
        assert!(!events.iter().any(|e| e.starts_with("write")), "{events:?}");
    }
}

#[test]
fn oversized_writes_are_rejected() {
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["a", "b"]);
    let program = p.build();
    let mut config = EngineConfig::default();
    config.limits.max_write_bytes = 16;
    let mut agent = FnAgent(|_: &wf_vm::DecisionContext<'_>| {
        Ok(advance(None, &[("big", json!("x".repeat(100)))]))
    });
    let (report, _) = run_collect(&program, config.clone(), &mut agent);
    assert!(failed_reason(&report.status).contains("over the limit of 16"));
    config.limits.max_write_bytes = 1000;
    config.limits.max_blackboard_bytes = 50;
    let (report, _) = run_collect(&program, config, &mut agent);
    assert!(failed_reason(&report.status).contains("the blackboard would hold"));
    assert!(report.blackboard.is_empty());
}

#[test]
fn max_steps_and_max_visits_end_loops() {
    // A cycle (as `.dot` pipelines may have): a -> b -> a.
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["a", "b", "a"]);
    let program = p.build();
    let mut config = EngineConfig::default();
    config.limits.max_steps = 7;
    let (report, _) = run_collect(&program, config, &mut AutoAgent);
    assert!(failed_reason(&report.status).contains("limit of 7 steps"));
    // Seven steps ran; the run fails within the seventh, as it would need
    // an eighth (no phantom step that runs no node is counted).
    assert_eq!(report.steps, 7);
    assert_eq!(report.failures.len(), 1);
    assert_eq!(report.failures[0].step, 6);
    // It stands at the node the eighth step would have run: a -> b -> a ...
    let at = report.at.as_ref().unwrap();
    assert_eq!((at.workflow.as_str(), at.node.as_str()), ("main", "b"));
    let mut config = EngineConfig::default();
    config.limits.max_visits = 3;
    let (report, _) = run_collect(&program, config, &mut AutoAgent);
    let reason = failed_reason(&report.status);
    assert!(
        reason.contains("node `a` of workflow `main` was entered 4 times"),
        "{reason}"
    );
    // The workflow's own limit overrides the default.
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["a", "b", "a"]);
    p.w(w).limits.max_steps = Some(3);
    let program = p.build();
    let (report, _) = run_collect(&program, EngineConfig::default(), &mut AutoAgent);
    assert!(failed_reason(&report.status).contains("limit of 3 steps"));
}

#[test]
fn unbounded_recursion_hits_max_depth() {
    let program = recursive();
    let mut config = EngineConfig::default();
    config.limits.max_depth = 5;
    let (report, _) = run_collect(&program, config, &mut AutoAgent);
    let reason = failed_reason(&report.status);
    assert!(
        reason.contains("over the call depth limit of 5"),
        "{reason}"
    );
}

#[test]
fn slow_agents_time_out_and_the_wall_clock_ends_runs() {
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["a", "b"]);
    p.nm(w, "a").engine.timeout_ms = Some(5);
    let program = p.build();
    let mut slow = FnAgent(|_: &wf_vm::DecisionContext<'_>| {
        std::thread::sleep(std::time::Duration::from_millis(20));
        Ok(advance(None, &[]))
    });
    let (report, _) = run_collect(&program, EngineConfig::default(), &mut slow);
    let reason = failed_reason(&report.status);
    assert!(reason.contains("timed out"), "{reason}");
    assert!(reason.contains("timeout of 5 ms"), "{reason}");

    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["a", "b", "c", "d"]);
    let program = p.build();
    let mut config = EngineConfig::default();
    config.limits.wall_clock = std::time::Duration::from_millis(10);
    let (report, _) = run_collect(&program, config, &mut slow);
    assert!(failed_reason(&report.status).contains("wall-clock limit of 10 ms"));
}

#[test]
fn a_step_budget_yields_and_continues() {
    let program = linear(10, false);
    let mut engine = wf_vm::Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    assert_eq!(engine.run_for(&mut AutoAgent, 4), RunStatus::Yielded);
    assert_eq!(engine.steps(), 4);
    assert_eq!(engine.run_for(&mut AutoAgent, 100), RunStatus::Completed);
    assert_eq!(engine.steps(), 10);
}
