//! Run-time contracts and limits: rejected writes, steps, visits, depth,
//! time, step budgets.

use crate::common;

use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use wf_ir::{ValueType, WorkflowIdx};
use wf_vm::agents::AutoAgent;
use wf_vm::{Decision, EngineConfig, Outcome, RunStatus, Status};

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

/// A tool runner whose every command takes `.0` and succeeds, or fails
/// at its timeout when that is shorter.
struct SlowTool(Duration);

impl wf_vm::ToolRunner for SlowTool {
    fn run(
        &mut self,
        _: &wf_vm::DecisionContext<'_>,
        _: &wf_vm::template::ShellCommand,
        timeout: Duration,
    ) -> Outcome {
        std::thread::sleep(self.0.min(timeout));
        if self.0 <= timeout {
            return Outcome::success();
        }
        Outcome {
            status: Status::Fail,
            failure_reason: Some(format!("timed out after {} ms", timeout.as_millis())),
            ..Outcome::success()
        }
    }
}

fn json_len<T: serde::Serialize>(v: &T) -> usize {
    serde_json::to_vec(v).unwrap().len()
}

fn fail_with(reason: String, notes: String) -> Decision {
    Decision::Advance(Outcome {
        status: Status::Fail,
        failure_reason: Some(reason),
        notes: Some(notes),
        ..Outcome::success()
    })
}

#[test]
fn long_keys_are_rejected_and_keep_the_run_small() {
    // The issue's scenario, scaled down: an agent writing 40 keys of
    // 256 KiB each, attempt after attempt, in a durable run.
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["a", "b"]);
    p.nm(w, "a").engine.retries = Some(3);
    let program = p.build();
    let path = temp_dir("long-keys");
    let dir = wf_vm::RunDir::create(&path, &program, &json!({})).unwrap();
    let mut engine = wf_vm::Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    let sink = wf_vm::CollectSink::default();
    engine.set_event_sink(Box::new(sink.clone()));
    engine.set_sleeper(Box::new(|_| {}));
    engine.persist_to(dir).unwrap();
    let mut agent = FnAgent(|_: &wf_vm::DecisionContext<'_>| {
        let writes: Vec<(String, Value)> = (0..40)
            .map(|i| (format!("{i}{}", "k".repeat(256 << 10)), json!(i)))
            .collect();
        let refs: Vec<(&str, Value)> = writes
            .iter()
            .map(|(k, v)| (k.as_str(), v.clone()))
            .collect();
        Ok(advance(None, &refs))
    });
    let report = engine.run(&mut agent);
    let reason = failed_reason(&report.status);
    assert!(
        reason.contains("is 262145 bytes long, over the limit of 1024 (max_key_bytes)"),
        "{reason}"
    );
    assert!(report.blackboard.is_empty());
    assert_eq!(report.failures.len(), 4, "{:?}", report.failures);
    assert!(
        json_len(&report) < 8 << 10,
        "report: {} bytes",
        json_len(&report)
    );
    let events = json_len(&sink.events());
    assert!(events < 16 << 10, "events: {events} bytes");
    let on_disk: u64 = std::fs::read_dir(&path)
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    assert!(on_disk < 64 << 10, "run directory: {on_disk} bytes");
    let _ = std::fs::remove_dir_all(&path);

    // `--set` refuses a long key; a key counts toward the blackboard size.
    let mut engine = wf_vm::Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    let err = engine.set_input(&"k".repeat(2000), json!(1)).unwrap_err();
    assert!(
        err.message
            .contains("is 2000 bytes long, over the limit of 1024"),
        "{err}"
    );
    assert_eq!(err.kind, wf_vm::FailureKind::Contract);
    let mut config = EngineConfig::default();
    config.limits.max_blackboard_bytes = 100;
    let mut engine = wf_vm::Engine::new(&program, WorkflowIdx(0), config).unwrap();
    let err = engine.set_input(&"k".repeat(120), json!(1)).unwrap_err();
    assert!(
        err.message.contains("the blackboard would hold 121 bytes"),
        "{err}"
    );
    assert_eq!(err.kind, wf_vm::FailureKind::Contract);
}

#[test]
fn reasons_notes_and_agent_errors_are_cut_with_a_marker() {
    let big = "r".repeat(1 << 20);
    let marker = "… [truncated, 1048576 bytes]";
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["a", "b"]);
    let program = p.build();
    type Answer<'a> = Box<dyn Fn() -> Result<Decision, wf_vm::AgentError> + 'a>;
    let cases: [(&str, Answer<'_>); 3] = [
        ("fail", Box::new(|| Ok(fail_with(big.clone(), big.clone())))),
        (
            "suspend",
            Box::new(|| {
                Ok(Decision::Suspend {
                    reason: big.clone(),
                })
            }),
        ),
        (
            "agent error",
            Box::new(|| {
                Err(wf_vm::AgentError {
                    message: big.clone(),
                })
            }),
        ),
    ];
    for (what, answer) in cases {
        let mut agent = FnAgent(|_: &wf_vm::DecisionContext<'_>| answer());
        let (report, events) = run_collect(&program, EngineConfig::default(), &mut agent);
        let text = match &report.status {
            RunStatus::Failed { reason } | RunStatus::Suspended { reason } => reason,
            other => panic!("{what}: {other:?}"),
        };
        assert!(text.len() < 4096 + 300, "{what}: {} bytes", text.len());
        assert!(
            text.contains(marker),
            "{what}: {}",
            &text[text.len() - 100..]
        );
        for f in &report.failures {
            assert!(
                f.reason.len() < 4096 + 300,
                "{what}: {} bytes",
                f.reason.len()
            );
        }
        let events: usize = events.iter().map(String::len).sum();
        assert!(events < 16 << 10, "{what}: events of {events} bytes");
    }
}

#[test]
fn handler_event_payloads_are_bounded() {
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["a", "b"]);
    let program = p.build();
    let data = json!({"blob": "d".repeat(100 << 10)});
    let mut agent = FnAgent(|_: &wf_vm::DecisionContext<'_>| {
        Ok(Decision::Advance(Outcome {
            events: (0..100)
                .map(|i| wf_vm::HandlerEvent {
                    name: format!("E{i}"),
                    data: data.clone(),
                })
                .collect(),
            ..Outcome::success()
        }))
    });
    let sink = wf_vm::CollectSink::default();
    let mut engine = wf_vm::Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    engine.set_event_sink(Box::new(sink.clone()));
    assert_eq!(engine.run(&mut agent).status, RunStatus::Completed);
    let handler: Vec<Value> = sink
        .events()
        .into_iter()
        .filter(|e| e["event"] == "handler:event")
        .collect();
    assert_eq!(handler.len(), 2 * 64, "max_events_per_step, at `a` and `b`");
    let truncated = handler[0]["data"]["truncated"].as_str().unwrap();
    assert!(
        truncated.contains("102411 bytes, over the limit of 65536 (max_event_bytes)"),
        "{truncated}"
    );
    // A payload under the limit is kept as it is.
    let mut small = FnAgent(|_: &wf_vm::DecisionContext<'_>| {
        Ok(Decision::Advance(Outcome {
            events: vec![wf_vm::HandlerEvent {
                name: "Small".into(),
                data: json!({"n": 1}),
            }],
            ..Outcome::success()
        }))
    });
    let sink = wf_vm::CollectSink::default();
    let mut engine = wf_vm::Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    engine.set_event_sink(Box::new(sink.clone()));
    engine.run(&mut small);
    assert!(sink.events().iter().any(|e| e["data"] == json!({"n": 1})));
}

#[test]
fn the_failure_trace_keeps_the_oldest_half_and_the_latest() {
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["a", "b"]);
    p.nm(w, "a").engine.retries = Some(5000);
    let program = p.build();
    let mut config = EngineConfig::default();
    config.sizes.max_failures = 100;
    let mut agent = InstantAgent(FnAgent(|ctx: &wf_vm::DecisionContext<'_>| {
        Ok(fail_with(
            format!("attempt {} broke", ctx.attempt),
            String::new(),
        ))
    }));
    let (report, _) = run_collect(&program, config, &mut agent);
    let trace = &report.failures;
    assert!(trace.len() <= 100, "{} entries", trace.len());
    assert!(
        trace[0].reason.contains("attempt 1 of 5001"),
        "{:?}",
        trace[0]
    );
    assert!(
        trace[49].reason.contains("attempt 50 of 5001"),
        "{:?}",
        trace[49]
    );
    let marker = &trace[50];
    assert_eq!((marker.workflow.as_str(), marker.node.as_str()), ("", ""));
    let omitted: usize = marker.reason.split(' ').next().unwrap().parse().unwrap();
    assert!(
        marker.reason.ends_with(
            "more failures omitted here (the trace keeps the oldest 50 and the latest failures)"
        ),
        "{}",
        marker.reason
    );
    // 5000 failed attempts and the final failure: each kept or counted.
    assert_eq!(omitted + trace.len() - 1, 5001);
    assert_eq!(trace.last().unwrap().reason, "attempt 5001 broke");
    let before = &trace[trace.len() - 2].reason;
    assert_eq!(before, "attempt 5000 of 5001: attempt 5000 broke");
}

fn tools(n: usize) -> wf_ir::IrProgram {
    let mut p = Prog::new();
    let w = p.wf("main");
    let ids: Vec<String> = (0..n).map(|i| format!("t{i}")).collect();
    let mut chain: Vec<&str> = ids.iter().map(String::as_str).collect();
    chain.push("end");
    p.chain(w, &chain);
    let cmd = p.s("sleep 1");
    for id in &ids {
        let n = p.nm(w, id);
        n.op = wf_ir::Opcode::Tool;
        n.engine.command = Some(cmd);
    }
    p.build()
}

#[test]
fn the_wall_clock_holds_across_tools_with_an_instant_agent() {
    let program = tools(3);
    let mut config = EngineConfig::default();
    config.limits.wall_clock = Duration::from_millis(100);
    let mut engine = wf_vm::Engine::new(&program, WorkflowIdx(0), config).unwrap();
    engine.set_tool_runner(Box::new(SlowTool(Duration::from_millis(60))));
    let report = engine.run(&mut AutoAgent);
    let reason = failed_reason(&report.status);
    assert!(reason.contains("wall-clock limit of 100 ms"), "{reason}");
    assert!(
        report.steps <= 3,
        "stopped before the last tool: {}",
        report.steps
    );
    assert!(report.elapsed_ms >= 100, "{} ms", report.elapsed_ms);

    // A tool gets no more than the wall clock has left.
    let program = tools(1);
    let mut config = EngineConfig::default();
    config.limits.wall_clock = Duration::from_millis(50);
    let mut engine = wf_vm::Engine::new(&program, WorkflowIdx(0), config).unwrap();
    engine.set_tool_runner(Box::new(SlowTool(Duration::from_secs(5))));
    let t = std::time::Instant::now();
    let report = engine.run(&mut AutoAgent);
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    let reason = failed_reason(&report.status);
    assert!(
        reason.contains("(the run's wall-clock limit of 50 ms left the tool"),
        "{reason}"
    );
}

#[test]
fn backoff_sleeps_count_and_stop_at_the_wall_clock() {
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["a", "b"]);
    p.nm(w, "a").engine.retries = Some(3);
    p.nm(w, "a").engine.backoff = Some(wf_ir::Backoff {
        initial_delay_ms: 10_000,
        factor: 1.0,
        max_delay_ms: 10_000,
        jitter: false,
    });
    let program = p.build();
    let mut config = EngineConfig::default();
    config.limits.wall_clock = Duration::from_millis(50);
    let mut engine = wf_vm::Engine::new(&program, WorkflowIdx(0), config).unwrap();
    let mut agent = InstantAgent(FnAgent(|_: &wf_vm::DecisionContext<'_>| {
        Ok(fail_with("flaky".into(), String::new()))
    }));
    let t = std::time::Instant::now();
    let report = engine.run(&mut agent);
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "slept {:?}",
        t.elapsed()
    );
    let reason = failed_reason(&report.status);
    assert!(reason.contains("wall-clock limit of 50 ms"), "{reason}");
    assert!(report.elapsed_ms >= 50, "{} ms", report.elapsed_ms);
}

#[test]
fn the_last_steps_time_counts() {
    let program = tools(1);
    let mut engine = wf_vm::Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    engine.set_tool_runner(Box::new(SlowTool(Duration::from_millis(40))));
    let report = engine.run(&mut AutoAgent);
    assert_eq!(report.status, RunStatus::Completed);
    assert!(report.elapsed_ms >= 40, "{} ms", report.elapsed_ms);

    // A timed agent: every decision, the last one included.
    let program = linear(3, false);
    let mut slow = FnAgent(|_: &wf_vm::DecisionContext<'_>| {
        std::thread::sleep(Duration::from_millis(20));
        Ok(advance(None, &[]))
    });
    let (report, _) = run_collect(&program, EngineConfig::default(), &mut slow);
    assert_eq!(report.status, RunStatus::Completed);
    assert!(report.elapsed_ms >= 60, "{} ms", report.elapsed_ms);
}

/// `main`: `start -> c -> done`, `fallback -> done`, where `c` calls
/// `sub` (`s0 -> s1 -> s2 -> s3`); `c` retries at `fallback` when
/// `routed`.
fn caller(routed: bool, sub_limits: wf_ir::Limits) -> wf_ir::IrProgram {
    let mut p = Prog::new();
    let main = p.wf("main");
    let sub = p.wf("sub");
    p.chain(main, &["start", "c", "done"]);
    p.chain(main, &["fallback", "done"]);
    p.call(main, "c", sub, &[]);
    if routed {
        let fallback = p.n(main, "fallback");
        p.nm(main, "c").engine.retry_target = Some(fallback);
    }
    p.chain(sub, &["s0", "s1", "s2", "s3"]);
    p.w(sub).limits = sub_limits;
    p.build()
}

#[test]
fn a_callee_over_its_own_max_steps_fails_its_call() {
    let limits = wf_ir::Limits {
        max_steps: Some(2),
        ..Default::default()
    };
    let (report, events) = run_collect(
        &caller(false, limits.clone()),
        EngineConfig::default(),
        &mut AutoAgent,
    );
    let reason = failed_reason(&report.status);
    assert!(
        reason.contains(
            "workflow `sub`, called by node `c` of workflow `main`, reached its own limit of 2 steps (max_steps)"
        ),
        "{reason}"
    );
    let trace: Vec<&str> = report.failures.iter().map(|f| f.node.as_str()).collect();
    assert_eq!(trace, ["c"], "one failure, at the call node");
    let tail: Vec<&str> = events
        .iter()
        .map(String::as_str)
        .skip_while(|e| *e != "exit sub/s2 fail")
        .collect();
    assert_eq!(
        tail[..3],
        ["exit sub/s2 fail", "pop sub", "enter main/c"],
        "{events:?}"
    );
    // The call's failure routes like any node's.
    let (report, events) = run_collect(
        &caller(true, limits),
        EngineConfig::default(),
        &mut AutoAgent,
    );
    assert_eq!(report.status, RunStatus::Completed, "{events:?}");
    assert!(
        events.contains(&"enter main/fallback".to_owned()),
        "{events:?}"
    );
    // Within its budget the callee runs as before.
    let enough = wf_ir::Limits {
        max_steps: Some(4),
        ..Default::default()
    };
    let (report, _) = run_collect(
        &caller(false, enough),
        EngineConfig::default(),
        &mut AutoAgent,
    );
    assert_eq!(report.status, RunStatus::Completed);
}

#[test]
fn a_callee_over_its_own_wall_clock_fails_its_call() {
    let limits = wf_ir::Limits {
        wall_clock_ms: Some(30),
        ..Default::default()
    };
    let mut slow = FnAgent(|_: &wf_vm::DecisionContext<'_>| {
        std::thread::sleep(Duration::from_millis(20));
        Ok(advance(None, &[]))
    });
    let (report, _) = run_collect(&caller(false, limits), EngineConfig::default(), &mut slow);
    let reason = failed_reason(&report.status);
    assert!(
        reason.contains("workflow `sub`, called by node `c` of workflow `main`, exceeded its own wall-clock limit of 30 ms"),
        "{reason}"
    );
}

#[test]
fn an_explicit_agent_timeout_wins_over_the_default_node_timeout() {
    let program = linear(2, false);
    let mut slow = FnAgent(|_: &wf_vm::DecisionContext<'_>| {
        std::thread::sleep(Duration::from_millis(30));
        Ok(advance(None, &[]))
    });
    // Longer than the node timeout: the agent's answer counts.
    let mut config = EngineConfig::default();
    config.limits.node_timeout = Duration::from_millis(5);
    config.agent_timeout = Some(Duration::from_secs(10));
    let (report, _) = run_collect(&program, config, &mut slow);
    assert_eq!(report.status, RunStatus::Completed);
    // Shorter: it wins too.
    let config = EngineConfig {
        agent_timeout: Some(Duration::from_millis(5)),
        ..Default::default()
    };
    let (report, _) = run_collect(&program, config, &mut slow);
    assert!(failed_reason(&report.status).contains("over the node's timeout of 5 ms"));
}

#[test]
fn a_callee_budget_survives_a_resume_and_replays_from_the_log() {
    // Replay: a log holding the over-budget step re-applies it exactly.
    let limits = wf_ir::Limits {
        max_steps: Some(2),
        ..Default::default()
    };
    let program = caller(true, limits);
    let path = temp_dir("budget-replay");
    let dir = wf_vm::RunDir::create(&path, &program, &json!({})).unwrap();
    let config = EngineConfig {
        snapshot_every: 0,
        ..Default::default()
    };
    let mut engine = wf_vm::Engine::new(&program, WorkflowIdx(0), config.clone()).unwrap();
    engine.persist_to(dir.clone()).unwrap();
    assert_eq!(engine.run_for(&mut AutoAgent, 6), RunStatus::Yielded);
    let live = engine.snapshot();
    drop(engine);
    let resumed = wf_vm::Engine::resume(&program, dir, config).unwrap();
    let mut replayed = resumed.snapshot();
    replayed.elapsed_ms = live.elapsed_ms;
    for (r, l) in replayed.failures.iter_mut().zip(&live.failures) {
        r.time_ms = l.time_ms;
    }
    assert_eq!(replayed, live);
    assert!(
        live.failures[0]
            .reason
            .contains("reached its own limit of 2 steps")
    );
    let _ = std::fs::remove_dir_all(&path);

    // Resume: the budget counts from the original push, not from the
    // resume. `main` takes 5 steps before calling `sub`, which suspends at
    // its first node once.
    let mut p = Prog::new();
    let main = p.wf("main");
    let sub = p.wf("sub");
    p.chain(main, &["x1", "x2", "x3", "x4", "x5", "c", "done"]);
    p.call(main, "c", sub, &[]);
    p.chain(sub, &["s0", "s1", "s2", "s3"]);
    p.w(sub).limits.max_steps = Some(2);
    let program = p.build();
    let path = temp_dir("budget-resume");
    let dir = wf_vm::RunDir::create(&path, &program, &json!({})).unwrap();
    let mut engine = wf_vm::Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    engine.persist_to(dir.clone()).unwrap();
    let mut once = FnAgent(|ctx: &wf_vm::DecisionContext<'_>| {
        Ok(if ctx.str(ctx.node.id) == "s0" {
            Decision::Suspend {
                reason: "later".into(),
            }
        } else {
            advance(None, &[])
        })
    });
    let report = engine.run(&mut once);
    assert!(matches!(report.status, RunStatus::Suspended { .. }));
    assert_eq!(report.steps, 7, "pushed at step 5, suspended at step 6");
    drop(engine);
    let mut engine = wf_vm::Engine::resume(&program, dir, EngineConfig::default()).unwrap();
    let report = engine.run(&mut AutoAgent);
    assert!(failed_reason(&report.status).contains("reached its own limit of 2 steps"));
    // Steps 6 (suspended) and 7 are the callee's two; step 8 is over. A
    // budget counted from the resume would trip later, from step 0 earlier.
    assert_eq!(report.failures[0].step, 8, "{:?}", report.failures);
    let _ = std::fs::remove_dir_all(&path);
}

/// Issue 18 item 5: a node's own `max_visits` bounds its loop in place of
/// the workflow's limit, and the reason names the node and its limit.
#[test]
fn a_node_sets_its_own_visit_limit() {
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["a", "b", "a"]);
    p.spec(w, "b", "max_visits", json!(2));
    let program = p.build();
    let (report, _) = run_collect(&program, EngineConfig::default(), &mut AutoAgent);
    assert_eq!(
        failed_reason(&report.status),
        "node `b` of workflow `main` was entered 3 times, over the node's own limit of 2 (max_visits)"
    );
    // Above the workflow's limit too: the node's own limit replaces it.
    let mut config = EngineConfig::default();
    config.limits.max_visits = 3;
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["a", "b", "a"]);
    p.spec(w, "a", "max_visits", json!(10));
    p.spec(w, "b", "max_visits", json!(5));
    let program = p.build();
    let (report, _) = run_collect(&program, config, &mut AutoAgent);
    assert!(
        failed_reason(&report.status).contains("node `b` of workflow `main` was entered 6 times"),
        "{:?}",
        report.status
    );
}

/// Issue 17.1: with `suspend_on_agent_error`, a decision later than the
/// node's timeout suspends the run at the node (trace kind `limit`)
/// instead of failing the node; a quick agent then completes it.
#[test]
fn a_late_decision_suspends_when_agent_errors_suspend() {
    let program = linear(2, false);
    let mut slow = FnAgent(|_: &wf_vm::DecisionContext<'_>| {
        std::thread::sleep(Duration::from_millis(30));
        Ok(advance(None, &[]))
    });
    let config = EngineConfig {
        agent_timeout: Some(Duration::from_millis(5)),
        suspend_on_agent_error: true,
        ..Default::default()
    };
    let mut engine = wf_vm::Engine::new(&program, WorkflowIdx(0), config).unwrap();
    let report = engine.run(&mut slow);
    let RunStatus::Suspended { reason } = &report.status else {
        panic!("{:?}", report.status);
    };
    assert!(
        reason.contains("over the node's timeout of 5 ms"),
        "{reason}"
    );
    assert_eq!(report.failures.len(), 1);
    assert_eq!(report.failures[0].kind, wf_vm::FailureKind::Limit);
    let at = report.at.clone().unwrap();
    // Asked again, a prompt answer moves on from the same node.
    let report = engine.run(&mut AutoAgent);
    assert_eq!(report.status, RunStatus::Completed, "{report:?}");
    assert_eq!(report.failures.len(), 1);
    assert_ne!(report.at.unwrap(), at);
}
