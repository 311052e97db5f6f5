//! `.wf` source → the checker → `wf_compile::compile` → engine, end to end.

use crate::common;

use serde_json::json;
use wf_diagnostics::{Severity, Sources};
use wf_vm::agents::{AutoAgent, ScriptAgent};
use wf_vm::{CollectSink, DecisionAgent, Engine, EngineConfig, Report, RunStatus};

fn compile(src: &str) -> wf_ir::IrProgram {
    let mut sources = Sources::new();
    sources.add("test.wf", src);
    let analysis = wf_analysis::analyze_sources(&sources);
    let errors: Vec<_> = analysis
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| format!("{}: {}", d.code.code, d.message))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    wf_compile::compile(&analysis.program).expect("compiles")
}

fn run(
    program: &wf_ir::IrProgram,
    name: &str,
    agent: &mut dyn DecisionAgent,
) -> (Report, Vec<String>) {
    let wf = program.workflow_by_name(name).unwrap();
    let mut engine = Engine::new(program, wf, EngineConfig::default()).unwrap();
    let sink = CollectSink::default();
    engine.set_event_sink(Box::new(sink.clone()));
    engine.set_sleeper(Box::new(|_| {}));
    let report = engine.run(agent);
    (report, sink.events().iter().map(common::brief).collect())
}

const RELEASE: &str = r#"
workflow Release {
  step plan { writes plan: string, score: int }
  call review = Review { verdict <- decision }
  human approve "Ship it?"
  step deploy { reads plan, verdict writes url: string }
  exit done
  exit rejected
  start -> plan -> review -> approve
  approve -> deploy "[A] Approve" when verdict == "ok"
  approve -> rejected "[R] Reject"
  deploy -> done
}

workflow Review {
  gives decision: string
  step decide { writes decision: string }
  start -> decide -> done
}
"#;

#[test]
fn a_wf_workflow_runs_with_a_call_a_guard_and_a_human_choice() {
    let program = compile(RELEASE);
    // auto: `decision` is a placeholder, so the guarded approval is not
    // valid and the first valid choice is `[R] Reject`.
    let (report, _) = run(&program, "Release", &mut AutoAgent);
    assert_eq!(report.status, RunStatus::Completed);
    assert_eq!(report.blackboard["verdict"], json!("<decision>"));
    let mut script = ScriptAgent::from_json(&json!({
        "fallback": "auto",
        "nodes": {
            "Review/decide": [{"type": "advance", "status": "success", "writes": [{"key": "decision", "value": "ok"}]}],
            "approve": ["a) approve"]
        }
    }))
    .unwrap();
    let (report, events) = run(&program, "Release", &mut script);
    assert_eq!(report.status, RunStatus::Completed, "{events:#?}");
    assert_eq!(report.blackboard["url"], json!("<url>"));
    assert!(
        events.iter().any(|e| e.starts_with("edge approve->deploy")),
        "{events:#?}"
    );
    assert!(events.contains(&"push Review".to_owned()));
}

#[test]
fn ir_round_trip_runs_the_same() {
    let program = compile(RELEASE);
    let loaded = wf_ir::load(&wf_ir::to_json(&program)).expect("verifies");
    let a = run(&program, "Release", &mut AutoAgent);
    let b = run(&loaded, "Release", &mut AutoAgent);
    assert_eq!(a.1, b.1);
    assert_eq!(a.0.blackboard, b.0.blackboard);
}

/// A script agent: `nodes` as the script's queues, `auto` elsewhere.
fn script(nodes: serde_json::Value) -> ScriptAgent {
    ScriptAgent::from_json(&json!({"fallback": "auto", "nodes": nodes})).unwrap()
}

fn fails(reason: &str) -> serde_json::Value {
    json!({"type": "advance", "status": "fail", "failure_reason": reason})
}

fn failed_reason(report: &Report) -> &str {
    match &report.status {
        RunStatus::Failed { reason } => reason,
        other => panic!("expected a failed run, got {other:?}"),
    }
}

/// `Main` routes on its call's outcome; `Sub` ends at `done`, or at its
/// failure exit `failed` when `check` fails; `work` fails unhandled.
const CALLS: &str = r#"
workflow Main {
  call sub = Sub { retries = 1 }
  step next
  step handled
  start -> sub
  sub -> next when outcome == success
  sub -> handled when outcome == fail
  next -> done
  handled -> done
}

workflow Bare {
  call sub = Sub
  start -> sub -> done
}

workflow Top {
  call mid = Bare
  step handled
  start -> mid
  mid -> done when outcome == success
  mid -> handled when outcome == fail
}

workflow Sub {
  step work
  step check
  exit failed
  start -> work -> check
  check -> done when outcome == success
  check -> failed when outcome == fail
}
"#;

#[test]
fn a_call_node_routes_on_its_callees_success() {
    let program = compile(CALLS);
    let (report, events) = run(&program, "Main", &mut AutoAgent);
    assert_eq!(report.status, RunStatus::Completed, "{events:#?}");
    assert!(events.contains(&"edge sub->next".to_owned()), "{events:#?}");
    assert!(report.failures.is_empty(), "{:?}", report.failures);
}

#[test]
fn an_unhandled_callee_failure_is_the_call_nodes_fail_outcome() {
    let program = compile(CALLS);
    // Both attempts of the call fail in `work`: the caller's guard routes.
    let mut agent = script(json!({"Sub/work": [fails("boom"), fails("boom again")]}));
    let (report, events) = run(&program, "Main", &mut agent);
    assert_eq!(report.status, RunStatus::Completed, "{events:#?}");
    let tail: Vec<&str> = events
        .iter()
        .skip_while(|e| *e != "exit Sub/work fail")
        .map(String::as_str)
        .collect();
    assert_eq!(
        tail[..6],
        [
            "exit Sub/work fail",
            "pop Sub",
            "enter Main/sub",
            "retry Main/sub #2",
            "push Sub",
            "enter Sub/start",
        ],
        "{events:#?}"
    );
    assert!(events.ends_with(&[
        "exit Main/sub fail".to_owned(),
        "edge sub->handled".to_owned(),
        "enter Main/handled".to_owned(),
        "exit Main/handled success".to_owned(),
        "edge handled->done".to_owned(),
        "enter Main/done".to_owned(),
        "complete".to_owned(),
    ]));
    let trace: Vec<(&str, &str)> = report
        .failures
        .iter()
        .map(|f| (f.node.as_str(), f.reason.as_str()))
        .collect();
    assert_eq!(
        trace,
        [
            ("work", "boom"),
            (
                "sub",
                "attempt 1 of 2: workflow `Sub` failed at node `work`: boom"
            ),
            ("work", "boom again"),
            ("sub", "workflow `Sub` failed at node `work`: boom again"),
        ]
    );
}

#[test]
fn a_retried_call_that_succeeds_moves_on() {
    let program = compile(CALLS);
    let mut agent = script(json!({"Sub/work": [fails("flaky")]}));
    let (report, events) = run(&program, "Main", &mut agent);
    assert_eq!(report.status, RunStatus::Completed, "{events:#?}");
    assert_eq!(events.iter().filter(|e| *e == "push Sub").count(), 2);
    assert!(events.contains(&"edge sub->next".to_owned()), "{events:#?}");
}

#[test]
fn a_callee_failure_the_caller_does_not_handle_fails_the_run_naming_both() {
    let program = compile(CALLS);
    let mut agent = script(json!({"Sub/work": [fails("boom")]}));
    let (report, events) = run(&program, "Bare", &mut agent);
    assert_eq!(
        failed_reason(&report),
        "node `sub` of workflow `Bare` failed: workflow `Sub` failed at node `work`: boom; \
         no edge condition matched the failure and the node has no retry_target"
    );
    assert_eq!(
        events.last().unwrap(),
        &format!("error {}", failed_reason(&report))
    );
    assert_eq!(report.failures.len(), 2, "{:?}", report.failures);
}

#[test]
fn a_callee_that_ends_at_a_failure_exit_fails_its_call_node() {
    let program = compile(CALLS);
    // `check` fails, its `outcome == fail` edge leads to the exit `failed`.
    let mut agent = script(json!({"Sub/check": [fails("bad"), fails("bad")]}));
    let (report, events) = run(&program, "Main", &mut agent);
    assert_eq!(report.status, RunStatus::Completed, "{events:#?}");
    assert!(
        events.contains(&"edge check->failed".to_owned()),
        "{events:#?}"
    );
    assert!(
        events.contains(&"edge sub->handled".to_owned()),
        "{events:#?}"
    );
    let last = report.failures.last().unwrap();
    assert_eq!(
        (last.node.as_str(), last.reason.as_str()),
        ("sub", "workflow `Sub` ended at its failure exit `failed`")
    );
    // A callee that ends at `done` is a success.
    let (report, events) = run(&program, "Main", &mut AutoAgent);
    assert_eq!(report.status, RunStatus::Completed);
    assert!(events.contains(&"edge sub->next".to_owned()), "{events:#?}");
}

#[test]
fn a_failure_returns_through_nested_calls_to_the_first_handler() {
    let program = compile(CALLS);
    let mut agent = script(json!({"Sub/work": [fails("deep")]}));
    let (report, events) = run(&program, "Top", &mut agent);
    assert_eq!(report.status, RunStatus::Completed, "{events:#?}");
    assert!(
        events.contains(&"edge mid->handled".to_owned()),
        "{events:#?}"
    );
    let reasons: Vec<&str> = report.failures.iter().map(|f| f.reason.as_str()).collect();
    assert_eq!(
        reasons,
        [
            "deep",
            "workflow `Sub` failed at node `work`: deep",
            "workflow `Bare` failed at node `sub`: workflow `Sub` failed at node `work`: deep",
        ]
    );
}

/// The checker counts a node's writes on all its outgoing paths, its
/// `outcome == fail` edges included: at run time a failed `a` leaves `x`
/// unwritten for `b` and for `Sub`, which need it.
const CONTRACTS: &str = r#"
workflow Main {
  step a { writes x: string }
  step b { reads x }
  call sub = Sub
  step fine
  exit failed
  start -> a
  a -> fine when outcome == success
  a -> b when outcome == fail && label == "b"
  a -> sub when outcome == fail && label == "sub"
  b -> failed when outcome == fail
  b -> done when outcome == success
  sub -> failed when outcome == fail
  sub -> done when outcome == success
  fine -> done
}

workflow Sub {
  needs x: string
  start -> done
}
"#;

#[test]
fn an_outcome_that_moves_on_without_its_declared_writes_fails_the_node() {
    let program = compile(CONTRACTS);
    let mut agent = script(json!({"Main/a": [{"type": "advance", "status": "success"}]}));
    let (report, events) = run(&program, "Main", &mut agent);
    // A failure like any other: no `outcome == fail` edge matches it (no
    // label), so the run fails; the trace says why.
    assert!(
        events.contains(&"exit Main/a fail".to_owned()),
        "{events:#?}"
    );
    let why = "the outcome did not write `x`, which the node declares in `writes` \
               (an outcome that moves on writes it)";
    assert_eq!(report.failures[0].reason, why);
    assert_eq!(
        failed_reason(&report),
        format!(
            "node `a` of workflow `Main` failed: {why}; no edge condition matched the failure \
             and the node has no retry_target"
        )
    );
}

#[test]
fn a_required_read_with_no_value_fails_the_node_without_asking_the_agent() {
    let program = compile(CONTRACTS);
    // `b` has no script and the fallback is an error: it is not asked.
    let mut agent = ScriptAgent::from_json(&json!({"nodes": {
        "start": ["go"],
        "a": [{"type": "advance", "status": "fail", "preferred_label": "b"}],
        "failed": [{"type": "complete", "writes": []}]
    }}))
    .unwrap();
    let (report, events) = run(&program, "Main", &mut agent);
    assert_eq!(report.status, RunStatus::Completed, "{events:#?}");
    assert!(events.contains(&"edge b->failed".to_owned()), "{events:#?}");
    let b = &report.failures[1];
    assert_eq!(
        (b.node.as_str(), b.reason.as_str()),
        (
            "b",
            "the node reads `x`, which has no value in scope (a node that writes it failed or \
             was skipped on the way here)"
        )
    );
}

#[test]
fn a_callee_need_with_no_value_fails_the_call_node() {
    let program = compile(CONTRACTS);
    let mut agent = script(json!({
        "a": [{"type": "advance", "status": "fail", "preferred_label": "sub"}]
    }));
    let (report, events) = run(&program, "Main", &mut agent);
    assert_eq!(report.status, RunStatus::Completed, "{events:#?}");
    assert!(!events.contains(&"push Sub".to_owned()), "{events:#?}");
    assert!(
        events.contains(&"edge sub->failed".to_owned()),
        "{events:#?}"
    );
    let sub = &report.failures[1];
    assert_eq!(
        (sub.node.as_str(), sub.reason.as_str()),
        (
            "sub",
            "workflow `Sub` needs `x`, which has no value in scope"
        )
    );
}

/// An agent that answers `[A] Approve` at `human` nodes, but only after
/// `delay`: slower than the node's timeout.
struct Slow {
    delay: std::time::Duration,
}

impl DecisionAgent for Slow {
    fn decide(
        &mut self,
        cx: &wf_vm::DecisionContext<'_>,
    ) -> Result<wf_vm::Decision, wf_vm::AgentError> {
        if cx.node.op == wf_ir::Opcode::Human {
            std::thread::sleep(self.delay);
            return Ok(wf_vm::Decision::Advance(wf_vm::Outcome {
                edge: Some("review->shipped".into()),
                ..wf_vm::Outcome::success()
            }));
        }
        AutoAgent::new().decide(cx)
    }
}

/// Issue 14.11: an answer later than a `human` node's timeout is replaced
/// by the node's `default` (it used to fail the node).
#[test]
fn a_late_human_answer_takes_the_default_choice() {
    let program = compile(
        r#"
workflow Gate {
  human review "Ship it?" { timeout = 50ms  default = "[R] Reject" }
  exit shipped
  exit rejected

  start -> review
  review -> shipped "[A] Approve"
  review -> rejected "[R] Reject"
}
"#,
    );
    let mut slow = Slow {
        delay: std::time::Duration::from_millis(150),
    };
    let (report, _) = run(&program, "Gate", &mut slow);
    assert_eq!(report.status, RunStatus::Completed, "{report:?}");
    assert_eq!(report.at.as_ref().unwrap().node, "rejected");
    // In time, the answer stands.
    let mut quick = Slow {
        delay: std::time::Duration::ZERO,
    };
    let (report, _) = run(&program, "Gate", &mut quick);
    assert_eq!(report.at.as_ref().unwrap().node, "shipped");
}

/// `a` declares a write; its only success edge goes on to `next`.
const NAMED: &str = r#"
workflow Main {
  step a { writes x: string }
  step next
  step handled
  start -> a
  a -> next
  a -> handled when outcome == fail
  next -> done
  handled -> done
}

workflow Bare {
  step a { writes x: string }
  step next
  start -> a -> next -> done
}
"#;

/// Issue 14 leftover: a node the runtime fails (here: it moved on without
/// its declared write) routes by the failure rules only, never along the
/// edge the agent named for its success.
#[test]
fn a_node_the_runtime_fails_ignores_the_edge_the_agent_named() {
    let program = compile(NAMED);
    let named = json!({"type": "advance", "status": "success", "edge": "a->next"});
    let mut agent = script(json!({"Main/a": [named.clone()]}));
    let (report, events) = run(&program, "Main", &mut agent);
    assert_eq!(report.status, RunStatus::Completed, "{events:#?}");
    assert!(
        events.contains(&"edge a->handled".to_owned()),
        "{events:#?}"
    );
    assert!(!events.iter().any(|e| e == "edge a->next"), "{events:#?}");
    // No failure edge: the run fails at `a` instead of going on.
    let mut agent = script(json!({"Bare/a": [named]}));
    let (report, events) = run(&program, "Bare", &mut agent);
    assert!(!events.iter().any(|e| e == "edge a->next"), "{events:#?}");
    assert!(
        failed_reason(&report)
            .starts_with("node `a` of workflow `Bare` failed: the outcome did not write `x`"),
        "{report:?}"
    );
}

/// A failing agent that names its own failure edge takes it.
#[test]
fn a_failure_that_names_its_failure_edge_takes_it() {
    let program = compile(NAMED);
    let named = json!({"type": "advance", "status": "fail", "edge": "a->handled"});
    let mut agent = script(json!({"Main/a": [named]}));
    let (report, events) = run(&program, "Main", &mut agent);
    assert_eq!(report.status, RunStatus::Completed, "{events:#?}");
    assert!(
        events.contains(&"edge a->handled".to_owned()),
        "{events:#?}"
    );
}

/// Issue 17.8: routing nodes do not ask the agent. A bare `start`, a
/// `branch` its guards decide, a `call` node after its callee returned, a
/// terminal with nothing to write (the callee's implicit `done`, the exit
/// `shipped`) pass alone; work (`plan`, `decide`, `note`) and a branch whose
/// guards leave two ways (`either`) are asked.
#[test]
fn routing_nodes_do_not_ask_the_agent() {
    let program = compile(
        r#"
workflow Main {
  step plan { writes mode: string }
  branch route
  call review = Review { verdict <- decision }
  branch either
  step note "Write a note"
  exit shipped
  exit other

  start -> plan -> route
  route -> review when mode == "full"
  route -> other when mode != "full"
  review -> either
  either -> note when verdict == "ok"
  either -> shipped when exists(verdict)
  note -> shipped
}

workflow Review {
  gives decision: string
  step decide { writes decision: string }
  start -> decide -> done
}
"#,
    );
    let asked = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let seen = asked.clone();
    let mut agent = common::FnAgent(move |ctx: &wf_vm::DecisionContext<'_>| {
        let node = ctx.str(ctx.node.id).to_owned();
        seen.borrow_mut().push(node.clone());
        Ok(match node.as_str() {
            "plan" => common::advance(None, &[("mode", json!("full"))]),
            "decide" => common::advance(None, &[("decision", json!("ok"))]),
            "either" => common::advance(Some("either->note"), &[]),
            _ => common::advance(None, &[]),
        })
    });
    let (report, events) = run(&program, "Main", &mut agent);
    assert_eq!(report.status, RunStatus::Completed, "{events:#?}");
    assert_eq!(*asked.borrow(), ["plan", "decide", "either", "note"]);
    // The nodes passed alone still have their events: entered, left.
    for node in ["Main/start", "Main/route", "Review/start", "Main/review"] {
        assert!(
            events.iter().any(|e| e == &format!("exit {node} success")),
            "{node}: {events:#?}"
        );
    }
    assert_eq!(report.at.as_ref().unwrap().node, "shipped");
}
