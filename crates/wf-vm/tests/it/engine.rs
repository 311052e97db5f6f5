//! Engine semantics on small hand-built programs.

use crate::common;

use common::*;
use serde_json::{Value, json};
use wf_ir::{CmpOp, Const, Insn, Opcode, ValueType, WorkflowIdx};
use wf_vm::agents::{AutoAgent, ScriptAgent};
use wf_vm::{AgentError, Decision, EngineConfig, Outcome, RunStatus, Status, Write};

#[test]
fn linear_run_emits_the_reflex_advance_order() {
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["a", "b", "c"]);
    p.writes(w, "a", "x", ValueType::Int);
    let program = p.build();
    let (report, events) = run_collect(&program, EngineConfig::default(), &mut AutoAgent);
    assert_eq!(report.status, RunStatus::Completed);
    assert_eq!(report.steps, 3);
    assert_eq!(
        report.blackboard,
        json!({"x": 0}).as_object().unwrap().clone()
    );
    assert_eq!(
        events,
        [
            "enter main/a",
            "exit main/a success",
            "edge a->b",
            "write main/a x=0",
            "enter main/b",
            "exit main/b success",
            "edge b->c",
            "enter main/c",
            "complete",
        ]
    );
}

#[test]
fn complete_at_a_non_terminal_is_rejected() {
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["a", "b"]);
    let program = p.build();
    let mut agent =
        FnAgent(|_: &wf_vm::DecisionContext<'_>| Ok(Decision::Complete { writes: vec![] }));
    let (report, events) = run_collect(&program, EngineConfig::default(), &mut agent);
    let reason = failed_reason(&report.status);
    assert!(reason.contains("`complete` at node `a`"), "{reason}");
    assert!(reason.contains("not a terminal"), "{reason}");
    assert_eq!(events.len(), 2);
    assert!(events[1].starts_with("error "), "{events:?}");
    assert_eq!(report.failures.len(), 1);
    assert_eq!(report.failures[0].node, "a");
}

#[test]
fn an_invalid_edge_choice_is_rejected() {
    let mut p = Prog::new();
    let w = p.wf("main");
    p.node(w, "a", Opcode::Step);
    p.node(w, "b", Opcode::Step);
    p.node(w, "c", Opcode::Step);
    p.edge(w, "a", "b");
    let e = p.edge(w, "a", "c");
    p.guard(w, e, vec![Insn::Push(Const::Bool(false))]);
    let program = p.build();
    for choice in ["a->c", "nope"] {
        let mut agent = FnAgent(|_: &wf_vm::DecisionContext<'_>| {
            Ok(advance(Some(choice), &[("note", json!("x"))]))
        });
        let (report, events) = run_collect(&program, EngineConfig::default(), &mut agent);
        let reason = failed_reason(&report.status);
        assert!(reason.contains(&format!("edge `{choice}`")), "{reason}");
        assert!(reason.contains("valid: a->b"), "{reason}");
        // The step ended in an error: its writes are not kept.
        assert_eq!(events, ["enter main/a", &format!("error {reason}")]);
        assert!(report.blackboard.is_empty(), "{:?}", report.blackboard);
    }
}

#[test]
fn a_step_with_no_valid_edge_leaves_no_writes() {
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["a", "b"]);
    p.node(w, "c", Opcode::Step);
    p.edge(w, "a", "c");
    // Both edges hold only while `x` is not written, so the agent's own
    // write leaves the engine no edge to select.
    let not_x = vec![Insn::Exists(p.s("x")), Insn::Not];
    p.guard(w, 0, not_x.clone());
    p.guard(w, 1, not_x);
    p.writes(w, "a", "x", ValueType::Int);
    p.writes(w, "a", "y", ValueType::Int);
    let program = p.build();
    let mut agent = FnAgent(|_: &wf_vm::DecisionContext<'_>| {
        Ok(advance(None, &[("y", json!(1)), ("x", json!(2))]))
    });
    let (report, events) = run_collect(&program, EngineConfig::default(), &mut agent);
    let reason = failed_reason(&report.status);
    assert!(
        reason.starts_with("no valid edge leaves node `a`"),
        "{reason}"
    );
    assert_eq!(events, ["enter main/a", &format!("error {reason}")]);
    assert!(report.blackboard.is_empty(), "{:?}", report.blackboard);
}

/// A program not checked by `wfc check` (hand-written IR) may complete
/// without a key it `gives`: the terminal fails, and the run with it.
#[test]
fn a_completion_without_a_given_key_fails_the_terminal() {
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["a", "done"]);
    let key = p.s("url");
    p.w(w).gives.push(wf_ir::KeyType {
        key,
        ty: ValueType::String,
    });
    let program = p.build();
    let (report, _) = run_collect(&program, EngineConfig::default(), &mut AutoAgent);
    let reason = failed_reason(&report.status);
    assert_eq!(
        reason,
        "node `done` of workflow `main` failed: workflow `main` would complete without `url`, \
         which it gives (it is promised on every completion); no edge condition matched the \
         failure and the node has no retry_target"
    );
    assert_eq!(report.failures.len(), 1);
    // Written at the terminal itself, it is given.
    let mut agent = FnAgent(|ctx: &wf_vm::DecisionContext<'_>| {
        Ok(if ctx.is_terminal() {
            Decision::Complete {
                writes: vec![Write {
                    key: "url".into(),
                    value: json!("u"),
                }],
            }
        } else {
            advance(None, &[])
        })
    });
    let (report, _) = run_collect(&program, EngineConfig::default(), &mut agent);
    assert_eq!(report.status, RunStatus::Completed);
}

/// `start` writes `stop` at depth 3; `done` completes with `result` = the
/// local (returned) result + 1, or 0 at the bottom.
fn recursion_agent() -> impl wf_vm::DecisionAgent {
    FnAgent(|ctx: &wf_vm::DecisionContext<'_>| {
        let node = ctx.str(ctx.node.id);
        Ok(match node {
            "start" if ctx.depth == 3 => advance(None, &[("stop", json!(true))]),
            "start" | "again" => advance(None, &[]),
            "done" => {
                let below = ctx
                    .blackboard
                    .local()
                    .iter()
                    .rev()
                    .find(|(k, _)| *k == "result")
                    .map(|(_, v)| v.as_i64().unwrap());
                let result = below.map_or(0, |r| r + 1);
                Decision::Complete {
                    writes: vec![Write {
                        key: "result".into(),
                        value: json!(result),
                    }],
                }
            }
            other => panic!("unexpected node {other}"),
        })
    })
}

#[test]
fn self_recursion_terminates_and_return_maps() {
    let program = recursive();
    let (report, events) = run_collect(&program, EngineConfig::default(), &mut recursion_agent());
    assert_eq!(report.status, RunStatus::Completed, "{events:#?}");
    // Root: the return map's `result` (1), then done's own (2).
    assert_eq!(report.blackboard["result"], json!(2));
    let expected = [
        "enter rec/start",
        "exit rec/start success",
        "edge start->again",
        "enter rec/again",
        "push rec",
        "enter rec/start",
        "exit rec/start success",
        "edge start->again",
        "enter rec/again",
        "push rec",
        "enter rec/start",
        "exit rec/start success",
        "edge start->done",
        "write rec/start stop=true",
        "enter rec/done",
        "write rec/done result=0",
        "write rec/again result=0",
        "pop rec",
        "enter rec/again",
        "exit rec/again success",
        "edge again->done",
        "enter rec/done",
        "write rec/done result=1",
        "write rec/again result=1",
        "pop rec",
        "enter rec/again",
        "exit rec/again success",
        "edge again->done",
        "enter rec/done",
        "write rec/done result=2",
        "complete",
    ];
    assert_eq!(events, expected);
}

#[test]
fn child_frames_read_parent_scope_but_writes_stay_local() {
    let mut p = Prog::new();
    let main = p.wf("main");
    let sub = p.wf("sub");
    p.chain(main, &["a", "call", "z"]);
    p.call(main, "call", sub, &[("got", "out")]);
    p.chain(sub, &["s1", "s2"]);
    let program = p.build();
    let mut agent = FnAgent(|ctx: &wf_vm::DecisionContext<'_>| {
        Ok(match (ctx.str(ctx.workflow.name), ctx.str(ctx.node.id)) {
            ("main", "a") => advance(None, &[("seen", json!("parent"))]),
            ("sub", "s1") => {
                assert_eq!(ctx.blackboard.get("seen"), Some(&json!("parent")));
                assert!(ctx.blackboard.local().is_empty());
                advance(None, &[("out", json!(7)), ("junk", json!(1))])
            }
            ("sub", "s2") => Decision::Complete { writes: vec![] },
            ("main", "call") => {
                assert_eq!(ctx.blackboard.get("junk"), None, "child locals are gone");
                advance(None, &[])
            }
            _ => Decision::Complete { writes: vec![] },
        })
    });
    let (report, _) = run_collect(&program, EngineConfig::default(), &mut agent);
    assert_eq!(report.status, RunStatus::Completed);
    assert_eq!(
        report.blackboard,
        json!({"seen": "parent", "got": 7})
            .as_object()
            .unwrap()
            .clone()
    );
}

#[test]
fn retries_back_off_then_exhaust() {
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["a", "b"]);
    p.nm(w, "a").engine.retries = Some(2);
    let program = p.build();
    let delays = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let run = |answers: Value, allow_partial: bool| {
        let mut program = program.clone();
        program.workflows[0].nodes[0].engine.allow_partial = allow_partial;
        let mut engine =
            wf_vm::Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
        let d = delays.clone();
        engine.set_sleeper(Box::new(move |t| d.borrow_mut().push(t.as_millis())));
        let mut agent =
            ScriptAgent::from_json(&json!({"nodes": {"a": answers}, "fallback": "auto"})).unwrap();
        engine.run(&mut agent)
    };
    let retry = json!({"type": "advance", "status": "retry"});
    let report = run(
        json!([retry, {"type": "advance", "status": "fail", "failure_reason": "flaky"}]),
        false,
    );
    assert_eq!(report.status, RunStatus::Completed);
    assert_eq!(*delays.borrow(), [200, 400]);
    assert_eq!(report.failures.len(), 2);
    assert!(report.failures[1].reason.contains("attempt 2 of 3: flaky"));
    let report = run(json!([retry, retry, retry]), false);
    assert!(failed_reason(&report.status).contains("max retries exceeded (2)"));
    let report = run(json!([retry, retry, retry]), true);
    assert_eq!(report.status, RunStatus::Completed, "allow_partial accepts");
}

#[test]
fn failures_route_by_condition_then_retry_target() {
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["a", "b", "end"]);
    p.node(w, "fix", Opcode::Step);
    p.edge(w, "fix", "end");
    let fix = p.n(w, "fix");
    p.nm(w, "a").engine.retry_target = Some(fix);
    let program = p.build();
    let fail_a =
        json!({"nodes": {"a": [{"type": "advance", "status": "fail"}]}, "fallback": "auto"});
    let mut agent = ScriptAgent::from_json(&fail_a).unwrap();
    let (report, events) = run_collect(&program, EngineConfig::default(), &mut agent);
    assert_eq!(report.status, RunStatus::Completed);
    assert_eq!(
        &events[..3],
        ["enter main/a", "exit main/a fail", "enter main/fix"]
    );
    // A guarded edge whose condition matches the failure wins.
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["a", "b", "end"]);
    p.node(w, "onfail", Opcode::Step);
    let e = p.edge(w, "a", "onfail");
    let fail = p.s("fail");
    p.guard(
        w,
        e,
        vec![
            Insn::LoadOutcome,
            Insn::Push(Const::Str(fail)),
            Insn::Cmp(CmpOp::Eq),
        ],
    );
    p.edge(w, "onfail", "end");
    let program = p.build();
    let mut agent = ScriptAgent::from_json(&fail_a).unwrap();
    let (report, events) = run_collect(&program, EngineConfig::default(), &mut agent);
    assert_eq!(report.status, RunStatus::Completed);
    assert!(events.contains(&"edge a->onfail".to_owned()), "{events:?}");
    // Without a route the run fails naming the node.
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["a", "b"]);
    let program = p.build();
    let mut agent = ScriptAgent::from_json(&fail_a).unwrap();
    let (report, _) = run_collect(&program, EngineConfig::default(), &mut agent);
    assert!(failed_reason(&report.status).contains("node `a` of workflow `main` failed"));
}

#[test]
fn goal_gates_send_runs_back_or_fail_them() {
    let build = |with_target: bool| {
        let mut p = Prog::new();
        let w = p.wf("main");
        p.chain(w, &["plan", "gate", "done"]);
        p.nm(w, "gate").engine.goal_gate = true;
        if with_target {
            let plan = p.n(w, "plan");
            p.w(w).retry_target = Some(plan);
        }
        p.build()
    };
    let script = json!({"nodes": {"gate": [{"type": "advance", "status": "partial_success"}]}, "fallback": "auto"});
    // partial_success satisfies a gate.
    let (report, _) = run_collect(
        &build(false),
        EngineConfig::default(),
        &mut ScriptAgent::from_json(&script).unwrap(),
    );
    assert_eq!(report.status, RunStatus::Completed);
    // `skipped` does not: retried at the workflow's retry_target.
    let script =
        json!({"nodes": {"gate": [{"type": "advance", "status": "skipped"}]}, "fallback": "auto"});
    let (report, events) = run_collect(
        &build(true),
        EngineConfig::default(),
        &mut ScriptAgent::from_json(&script).unwrap(),
    );
    assert_eq!(report.status, RunStatus::Completed);
    assert_eq!(events.iter().filter(|e| *e == "enter main/plan").count(), 2);
    let (report, _) = run_collect(
        &build(false),
        EngineConfig::default(),
        &mut ScriptAgent::from_json(&script).unwrap(),
    );
    let reason = failed_reason(&report.status);
    assert!(
        reason.contains("goal gate `gate`") && reason.contains("no retry target"),
        "{reason}"
    );
}

#[test]
fn edge_selection_order() {
    let mut p = Prog::new();
    let w = p.wf("main");
    for n in ["h", "x", "y", "z"] {
        p.node(w, n, Opcode::Step);
    }
    let ex = p.edge(w, "h", "x");
    p.label(w, ex, "[A] Approve");
    let ey = p.edge(w, "h", "y");
    p.em(w, ey).weight = 5;
    p.edge(w, "h", "z");
    let program = p.build();
    let pick = |outcome: Outcome| {
        let mut agent = FnAgent(move |ctx: &wf_vm::DecisionContext<'_>| {
            Ok(if ctx.is_terminal() {
                Decision::Complete { writes: vec![] }
            } else {
                Decision::Advance(outcome.clone())
            })
        });
        let (_, events) = run_collect(&program, EngineConfig::default(), &mut agent);
        events[2].clone()
    };
    assert_eq!(pick(Outcome::success()), "edge h->y", "highest weight");
    let mut o = Outcome::success();
    o.preferred_label = Some("approve".into());
    assert_eq!(pick(o.clone()), "edge h->x", "preferred label, normalised");
    o.preferred_label = Some("nothing".into());
    o.suggested_next = vec!["q".into(), "z".into()];
    assert_eq!(pick(o), "edge h->z", "suggested next ids");
}

#[test]
fn tool_nodes_are_refused_without_a_runner() {
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["t", "end"]);
    let cmd = p.s("rm -rf /");
    let t = p.nm(w, "t");
    t.op = Opcode::Tool;
    t.engine.command = Some(cmd);
    let program = p.build();
    let (report, _) = run_collect(&program, EngineConfig::default(), &mut AutoAgent);
    let reason = failed_reason(&report.status);
    assert!(
        reason.contains(
            "tool nodes are refused (--tools refuse; --tools run or --allow-tools runs them"
        ),
        "{reason}"
    );
}

/// IR that bypassed the checker may interpolate where no reference to a
/// value can be written (here, inside backquotes): the node fails with the
/// checker's reason and code, and nothing runs.
#[test]
fn a_tool_command_interpolating_in_backquotes_fails_before_running() {
    let dir = temp_dir("backquotes");
    std::fs::create_dir_all(&dir).unwrap();
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["t", "end"]);
    let parts = [p.s("touch ran; echo `echo "), p.s("v"), p.s("`")];
    let t = p.nm(w, "t");
    t.op = Opcode::Tool;
    t.engine.command = Some(parts[0]);
    t.templates.insert(
        "command".into(),
        vec![
            wf_ir::Part::Text(parts[0]),
            wf_ir::Part::Key(parts[1]),
            wf_ir::Part::Text(parts[2]),
        ],
    );
    let program = p.build();
    let mut engine = wf_vm::Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    engine.set_input("v", json!("x")).unwrap();
    engine.set_tool_runner(Box::new(wf_vm::ProcessToolRunner::new(&dir)));
    let report = engine.run(&mut AutoAgent);
    let reason = failed_reason(&report.status);
    assert!(
        reason.contains("interpolates `v` inside backquotes") && reason.contains("WF0512"),
        "{reason}"
    );
    assert!(!dir.join("ran").exists(), "the command ran");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn agent_errors_end_the_run_with_engine_error() {
    let program = linear(3, false);
    let mut agent = FnAgent(|_: &wf_vm::DecisionContext<'_>| {
        Err(AgentError {
            message: "model unavailable".into(),
        })
    });
    let (report, events) = run_collect(&program, EngineConfig::default(), &mut agent);
    assert!(failed_reason(&report.status).contains("model unavailable"));
    assert!(events.last().unwrap().starts_with("error"));
    assert_eq!(report.failures[0].workflow, "linear");
}

#[test]
fn human_nodes_and_suspension() {
    let mut p = Prog::new();
    let w = p.wf("main");
    p.node(w, "ask", Opcode::Human);
    p.node(w, "yes", Opcode::Exit);
    p.node(w, "no", Opcode::Exit);
    let e = p.edge(w, "ask", "yes");
    p.label(w, e, "[Y] Yes");
    let e = p.edge(w, "ask", "no");
    p.label(w, e, "[N] No");
    let program = p.build();
    let (report, events) = run_collect(&program, EngineConfig::default(), &mut AutoAgent);
    assert_eq!(report.status, RunStatus::Completed);
    assert!(
        events.contains(&"edge ask->yes".to_owned()),
        "auto takes the first choice"
    );
    let mut script = ScriptAgent::from_json(&json!({"nodes": {"ask": [{"type": "suspend", "reason": "waiting for Ann"}, "N) no"]}, "fallback": "auto"})).unwrap();
    let mut engine = wf_vm::Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    let report = engine.run(&mut script);
    assert_eq!(
        report.status,
        RunStatus::Suspended {
            reason: "waiting for Ann".into()
        }
    );
    let report = engine.run(&mut script);
    assert_eq!(report.status, RunStatus::Completed);
    assert_eq!(engine.position().1, wf_ir::NodeIdx(2), "answered `no`");
}

#[test]
fn guards_see_the_outcome_label_and_the_nodes_writes() {
    let mut p = Prog::new();
    let w = p.wf("main");
    for n in ["a", "big", "small"] {
        p.node(w, n, Opcode::Step);
    }
    let big = p.edge(w, "a", "big");
    let small = p.edge(w, "a", "small");
    let n = p.s("n");
    p.guard(
        w,
        big,
        vec![
            Insn::Load(n),
            Insn::Push(Const::Int(10)),
            Insn::Cmp(CmpOp::Gt),
        ],
    );
    p.guard(
        w,
        small,
        vec![
            Insn::Load(n),
            Insn::Push(Const::Int(10)),
            Insn::Cmp(CmpOp::Le),
        ],
    );
    let program = p.build();
    for (value, expect) in [(json!(50), "edge a->big"), (json!(3), "edge a->small")] {
        let mut agent = FnAgent(|ctx: &wf_vm::DecisionContext<'_>| {
            Ok(if ctx.is_terminal() {
                Decision::Complete { writes: vec![] }
            } else {
                advance(None, &[("n", value.clone())])
            })
        });
        let (report, events) = run_collect(&program, EngineConfig::default(), &mut agent);
        assert_eq!(report.status, RunStatus::Completed);
        assert_eq!(events[2], expect);
    }
    let _ = Status::Success;
}

#[test]
fn a_fan_out_whose_branches_reach_no_join_fails_clearly() {
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["fan", "a", "end"]);
    p.chain(w, &["fan", "b", "end"]);
    p.nm(w, "fan").op = Opcode::Parallel;
    let program = p.build();
    let (report, _) = run_collect(&program, EngineConfig::default(), &mut AutoAgent);
    let reason = failed_reason(&report.status);
    assert!(
        reason.contains("node `fan`: no branch reached a `join` node"),
        "{reason}"
    );
}

/// Runs `program`'s first workflow with `agent`; the report and the raw
/// events.
fn run_raw(
    program: &wf_ir::IrProgram,
    agent: &mut dyn wf_vm::DecisionAgent,
) -> (wf_vm::Report, Vec<Value>) {
    let sink = wf_vm::CollectSink::default();
    let mut engine = wf_vm::Engine::new(program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    engine.set_event_sink(Box::new(sink.clone()));
    let report = engine.run(agent);
    (report, sink.events())
}

/// Issue 15.5: a call node with no callee (IR that skipped the verifier)
/// is an internal failure, in the report, the trace and the event.
#[test]
fn an_impossible_state_is_an_internal_failure() {
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["start", "c", "end"]);
    p.nm(w, "c").op = Opcode::Call;
    let program = p.build();
    let (report, events) = run_raw(&program, &mut AutoAgent);
    assert!(failed_reason(&report.status).contains("has no callee"));
    assert_eq!(report.kind, Some(wf_vm::FailureKind::Internal));
    assert_eq!(
        report.failures.last().unwrap().kind,
        wf_vm::FailureKind::Internal
    );
    let error = events.last().unwrap();
    assert_eq!(error["event"], "engine:error");
    assert_eq!(
        (&error["kind"], &error["code"]),
        (&json!("internal"), &json!("WF0907"))
    );
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(
        (&json["kind"], &json["code"]),
        (&json!("internal"), &json!("WF0907"))
    );
}

/// Issue 15.5: a call node whose callee failed fails with the callee's
/// kind of failure (a tool refused in the callee is a tool failure of the
/// call), and so does the run; each trace entry has its own kind.
#[test]
fn a_callee_failure_keeps_its_kind_up_to_the_run() {
    let mut p = Prog::new();
    let main = p.wf("main");
    let sub = p.wf("sub");
    p.chain(main, &["start", "c", "end"]);
    p.chain(sub, &["s", "t", "e"]);
    p.call(main, "c", sub, &[]);
    let command = p.s("make");
    let t = p.nm(sub, "t");
    t.op = Opcode::Tool;
    t.engine.command = Some(command);
    let program = p.build();
    let (report, events) = run_raw(&program, &mut AutoAgent);
    let kinds: Vec<_> = report
        .failures
        .iter()
        .map(|f| (f.node.as_str(), f.kind))
        .collect();
    use wf_vm::FailureKind::Tool;
    assert_eq!(kinds, [("t", Tool), ("c", Tool)], "{report:?}");
    assert_eq!(report.kind, Some(Tool));
    assert_eq!(events.last().unwrap()["code"], "WF0903");
    // The agent's own `fail` is a node failure.
    let mut agent = FnAgent(|ctx: &wf_vm::DecisionContext<'_>| {
        Ok(Decision::Advance(Outcome {
            status: if ctx.is_terminal() {
                Status::Success
            } else {
                Status::Fail
            },
            ..Outcome::success()
        }))
    });
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["a", "b"]);
    let (report, _) = run_raw(&p.build(), &mut agent);
    assert_eq!(report.kind, Some(wf_vm::FailureKind::Node), "{report:?}");
}

/// Issue 14 leftover: the engine's own "no valid edge" error says how to
/// route with another agent, as the agents' routing errors do.
#[test]
fn no_valid_edge_names_the_agent_options() {
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["a", "b"]);
    p.guard(w, 0, vec![Insn::Push(Const::Bool(false))]);
    let program = p.build();
    let (report, _) = run_collect(&program, EngineConfig::default(), &mut AutoAgent);
    let reason = failed_reason(&report.status);
    assert!(
        reason.starts_with("no valid edge leaves node `a`"),
        "{reason}"
    );
    assert!(
        reason.contains("--agent console") && reason.contains("--agent exec:COMMAND"),
        "{reason}"
    );
}

/// Issue 14 leftover: the key table forgets the keys of returned calls, so
/// a loop of calls, each writing a key no other call wrote, keeps it
/// bounded.
#[test]
fn the_key_table_forgets_the_keys_of_returned_calls() {
    let mut p = Prog::new();
    let main = p.wf("main");
    let sub = p.wf("sub");
    p.chain(main, &["call", "again", "end"]);
    p.edge(main, "again", "call");
    p.call(main, "call", sub, &[]);
    p.chain(sub, &["w", "done"]);
    let program = p.build();
    let names = |calls: u32| {
        let mut done = 0;
        let mut agent = FnAgent(|ctx: &wf_vm::DecisionContext<'_>| {
            Ok(match ctx.str(ctx.node.id) {
                "w" => {
                    done += 1;
                    advance(None, &[(&format!("key_{done}"), json!(1))])
                }
                "again" if done < calls => advance(Some("again->call"), &[]),
                "again" => advance(Some("again->end"), &[]),
                _ => advance(None, &[]),
            })
        });
        let wf = program.workflow_by_name("main").unwrap();
        let mut engine = wf_vm::Engine::new(&program, wf, EngineConfig::default()).unwrap();
        let report = engine.run(&mut agent);
        assert_eq!(report.status, RunStatus::Completed, "{report:?}");
        // The loop ran; the callees' keys went with their frames.
        assert!(report.blackboard.is_empty(), "{report:?}");
        assert!(report.steps > 3 * u64::from(calls), "{report:?}");
        engine.key_names()
    };
    assert_eq!(names(300), names(1));
}

/// A refused tool node (no tool runner) fails at once, whatever its
/// retries: a retry cannot change a refusal, so no attempt is repeated and
/// no backoff is slept; the failure says so.
#[test]
fn a_refused_tool_is_not_retried() {
    let mut p = Prog::new();
    let w = p.wf("main");
    p.chain(w, &["t", "end"]);
    let cmd = p.s("make");
    let t = p.nm(w, "t");
    t.op = Opcode::Tool;
    t.engine.command = Some(cmd);
    t.engine.retries = Some(3);
    let program = p.build();
    let mut engine = wf_vm::Engine::new(&program, WorkflowIdx(0), EngineConfig::default()).unwrap();
    let slept = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let s = slept.clone();
    engine.set_sleeper(Box::new(move |t| s.borrow_mut().push(t)));
    let report = engine.run(&mut AutoAgent);
    let reason = failed_reason(&report.status);
    assert!(
        reason.contains("(not retried: a retry cannot change a refusal)"),
        "{reason}"
    );
    assert!(slept.borrow().is_empty(), "slept {:?}", slept.borrow());
    assert_eq!(report.failures.len(), 1, "{:?}", report.failures);
}
