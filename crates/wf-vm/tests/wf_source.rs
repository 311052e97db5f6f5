//! `.wf` source → `wf_ir::compile` → engine, end to end.

mod common;

use serde_json::json;
use wf_diagnostics::{FileId, Severity};
use wf_vm::agents::{AutoAgent, ScriptAgent};
use wf_vm::{CollectSink, DecisionAgent, Engine, EngineConfig, Report, RunStatus};

fn compile(src: &str) -> wf_ir::IrProgram {
    let parsed = wf_syntax::parse(src, FileId(0));
    let analysis = wf_analysis::check_files(&[(FileId(0), &parsed)]);
    let errors: Vec<_> = analysis
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| format!("{}: {}", d.code.code, d.message))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    wf_ir::compile(&analysis.program).expect("compiles")
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
