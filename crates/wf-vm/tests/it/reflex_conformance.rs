//! Reflex conformance: the corpus fixtures run with the `rules` agent give
//! the event sequences and final blackboards written by hand from the
//! Reflex seed (`tests/reflex/*.events`, `final-blackboards.json`).

use crate::common;

use std::path::Path;

use wf_test_support::corpus;

use serde_json::Value;
use wf_diagnostics::FileId;
use wf_vm::agents::RulesAgent;
use wf_vm::{CollectSink, Engine, EngineConfig, RunStatus};

const FIXTURES: [&str; 3] = ["define-physical-object", "define-part-object", "greeting"];

fn program(dir: &Path) -> wf_ir::IrProgram {
    let mut workflows = Vec::new();
    for (i, name) in FIXTURES.iter().enumerate() {
        let text = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
        let parsed = wf_reflex::parse(&text, FileId(i as u32));
        let errors: Vec<_> = parsed
            .diagnostics
            .iter()
            .filter(|d| d.severity == wf_diagnostics::Severity::Error)
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:#?}");
        workflows.extend(parsed.workflows);
    }
    wf_compile::compile(&wf_model::Program { workflows }).expect("the fixtures compile")
}

fn expected_events(name: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/reflex/{name}.events"));
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

#[test]
fn fixtures_run_with_the_rules_agent_as_the_seed_defines() {
    let Some(dir) = corpus::shared_corpus("reflex") else {
        return;
    };
    let program = program(&dir);
    let blackboards: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reflex/final-blackboards.json"),
        )
        .unwrap(),
    )
    .unwrap();
    for name in FIXTURES {
        let wf = program
            .workflow_by_name(name)
            .expect("workflow by its Reflex id");
        let mut engine = Engine::new(&program, wf, EngineConfig::default()).unwrap();
        let sink = CollectSink::default();
        engine.set_event_sink(Box::new(sink.clone()));
        let report = engine.run(&mut RulesAgent);
        assert_eq!(report.status, RunStatus::Completed, "{name}: {report:#?}");
        let events: Vec<String> = sink.events().iter().map(common::brief).collect();
        assert_eq!(events, expected_events(name), "{name}");
        assert_eq!(
            Value::Object(report.blackboard.to_map()),
            blackboards[name],
            "{name}"
        );
    }
}

/// Reflex evaluates guards once, before the node's writes, and the agent
/// picks among those valid edges (seed 1.4): a node that writes the key
/// its own outgoing guards test still advances on the edge it was shown.
#[test]
fn an_edge_chosen_before_the_writes_is_taken() {
    let text = r#"{
      "id": "classify",
      "entry": "CLASSIFY",
      "nodes": {
        "CLASSIFY": {"id": "CLASSIFY", "spec": {"writes": [{"key": "kind", "value": "part"}]}},
        "SIMPLE": {"id": "SIMPLE", "spec": {"complete": true}},
        "PART": {"id": "PART", "spec": {"complete": true}}
      },
      "edges": [
        {"id": "e-simple", "from": "CLASSIFY", "to": "SIMPLE", "event": "NEXT",
         "guard": {"type": "not-exists", "key": "kind"}},
        {"id": "e-part", "from": "CLASSIFY", "to": "PART", "event": "NEXT",
         "guard": {"type": "exists", "key": "kind"}}
      ]
    }"#;
    let parsed = wf_reflex::parse(text, FileId(0));
    assert!(
        parsed
            .diagnostics
            .iter()
            .all(|d| d.severity != wf_diagnostics::Severity::Error),
        "{:#?}",
        parsed.diagnostics
    );
    let program = wf_compile::compile(&wf_model::Program {
        workflows: parsed.workflows,
    })
    .expect("compiles");
    let mut engine = Engine::new(&program, wf_ir::WorkflowIdx(0), EngineConfig::default()).unwrap();
    let sink = CollectSink::default();
    engine.set_event_sink(Box::new(sink.clone()));
    let report = engine.run(&mut RulesAgent);
    let events: Vec<String> = sink.events().iter().map(common::brief).collect();
    assert_eq!(report.status, RunStatus::Completed, "{events:#?}");
    assert_eq!(
        events,
        [
            "enter classify/CLASSIFY",
            "exit classify/CLASSIFY success",
            "edge e-simple",
            "write classify/CLASSIFY kind=\"part\"",
            "enter classify/SIMPLE",
            "complete",
        ]
    );
}
