//! Unit tests of the adapter on the hand-built program of
//! `tools::fixture` (node `ask` has two outgoing edges), turned into a
//! pipeline.

use serde_json::{Value, json};
use wf_ir::{Dialect, IrProgram, StrId};

use super::*;
use crate::agent::Status;
use crate::tools::fixture::{Board, all_edges, context, program};

/// The fixture as a pipeline whose node `ask` (index 1) runs `handler`
/// with `spec`.
fn pipeline(handler: &str, spec: Value) -> IrProgram {
    let mut p = program();
    p.strings.push(handler.to_string());
    let h = StrId(p.strings.len() as u32 - 1);
    let w = &mut p.workflows[0];
    w.dialect = Dialect::Attractor;
    w.nodes[1].handler = Some(h);
    w.nodes[1].spec = spec.as_object().cloned().unwrap_or_default();
    p
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("wf-vm-attractor-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn decide(agent: &mut AttractorAgent<'_>, p: &IrProgram) -> Outcome {
    let board = Board(vec![]);
    let valid = all_edges(p, 1);
    match agent.decide(&context(p, 1, &board, &valid)).unwrap() {
        Decision::Advance(o) => o,
        other => panic!("expected an outcome, got {other:?}"),
    }
}

fn write<'o>(o: &'o Outcome, key: &str) -> Option<&'o Value> {
    o.writes
        .iter()
        .rev()
        .find(|w| w.key == key)
        .map(|w| &w.value)
}

#[test]
fn codergen_simulates_and_sets_the_builtin_keys() {
    let p = pipeline("codergen", json!({"prompt": "Do it"}));
    let dir = temp_dir("codergen");
    let mut agent = AttractorAgent::new(None, Some(RunFiles::new(&dir)));
    let o = decide(&mut agent, &p);
    assert_eq!(o.status, Status::Success);
    assert_eq!(write(&o, "last_stage"), Some(&json!("ask")));
    assert_eq!(
        write(&o, "last_response"),
        Some(&json!("[Simulated] Response for stage: ask"))
    );
    assert_eq!(write(&o, "outcome"), Some(&json!("success")));
    assert_eq!(write(&o, "current_node"), Some(&json!("ask")));
    assert_eq!(
        std::fs::read_to_string(dir.join("ask/prompt.md")).unwrap(),
        "Do it"
    );
    let status: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("ask/status.json")).unwrap())
            .unwrap();
    assert_eq!(status["fidelity"], "compact");
}

#[test]
fn placeholder_handlers_fail_clearly() {
    let p = pipeline("stack.manager_loop", json!({}));
    let mut agent = AttractorAgent::new(None, None);
    agent
        .registry_mut()
        .register("stack.manager_loop", Box::new(NotYet));
    let o = decide(&mut agent, &p);
    assert_eq!(o.status, Status::Fail);
    assert!(
        o.failure_reason
            .unwrap()
            .contains("runs the `stack.manager_loop` handler, which is not implemented yet")
    );
}

#[test]
fn full_fidelity_degrades_once_after_a_resume() {
    let p = pipeline(
        "conditional",
        json!({"fidelity": "full", "thread_id": "t1"}),
    );
    let dir = temp_dir("resume");
    let mut agent = AttractorAgent::new(None, Some(RunFiles::new(&dir))).resumed();
    let fidelity = |agent: &mut AttractorAgent<'_>| {
        decide(agent, &p);
        let text = std::fs::read_to_string(dir.join("ask/status.json")).unwrap();
        serde_json::from_str::<Value>(&text).unwrap()["fidelity"].clone()
    };
    assert_eq!(fidelity(&mut agent), "summary:high");
    assert_eq!(fidelity(&mut agent), "full");
}

#[test]
fn a_backend_status_file_is_the_outcome() {
    /// A backend that writes `ask/status.json` (the status-file contract)
    /// and answers a plain success.
    struct Writes(std::path::PathBuf);
    impl DecisionAgent for Writes {
        fn decide(&mut self, _: &DecisionContext<'_>) -> Result<Decision, AgentError> {
            let doc = json!({"outcome": "fail", "notes": "from the file"});
            std::fs::write(self.0.join("ask/status.json"), doc.to_string()).unwrap();
            Ok(Decision::Advance(Outcome::success()))
        }
    }
    let p = pipeline("codergen", json!({"prompt": "x"}));
    let dir = temp_dir("statusfile");
    let mut agent = AttractorAgent::new(
        Some(Box::new(Writes(dir.clone()))),
        Some(RunFiles::new(&dir)),
    );
    let o = decide(&mut agent, &p);
    assert_eq!(o.status, Status::Fail);
    assert_eq!(o.notes.as_deref(), Some("from the file"));
    assert_eq!(write(&o, "outcome"), Some(&json!("fail")));
}

/// Issue 14 leftover: a backend's write with a key over the limit of live
/// writes fails the node in the engine, and the `status.json` wfc writes
/// says so instead of recording the key.
#[test]
fn a_long_key_is_refused_in_the_status_file_too() {
    struct LongKey;
    impl DecisionAgent for LongKey {
        fn decide(&mut self, _: &DecisionContext<'_>) -> Result<Decision, AgentError> {
            Ok(Decision::Advance(Outcome {
                writes: vec![crate::agent::Write {
                    key: "k".repeat(5000),
                    value: json!(1),
                }],
                ..Outcome::success()
            }))
        }
    }
    let p = pipeline("codergen", json!({"prompt": "x"}));
    let dir = temp_dir("longkey");
    let mut agent = AttractorAgent::new(Some(Box::new(LongKey)), Some(RunFiles::new(&dir)));
    decide(&mut agent, &p);
    let text = std::fs::read_to_string(dir.join("ask/status.json")).unwrap();
    assert!(text.len() < 2000, "{} bytes", text.len());
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["outcome"], "fail", "{doc}");
    assert_eq!(doc["context_updates"], json!({}), "{doc}");
    assert!(
        doc["failure_reason"]
            .as_str()
            .unwrap()
            .contains("the key is 5000 bytes long"),
        "{doc}"
    );
}
