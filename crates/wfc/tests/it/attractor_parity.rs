//! The cross-feature parity matrix of the Attractor seed (section 11.12):
//! one test per row, named after it, on the fixtures of
//! `tests/run/dot/parity/`. Parsing and validation go through `wfc check`
//! and `wfc build`; execution through `wfc run` (simulation with `--agent
//! auto`, or a `script:` backend), and through the `wf_vm` API where the
//! row needs Rust (a custom handler, an interviewer).

use crate::common::dot;

use std::path::Path;

use dot::{api_run, build, check, fixture, run, scratch, write_json};
use serde_json::{Value, json};
use wf_vm::attractor::interviewer::Queue;
use wf_vm::attractor::{Handler, HandlerCx};
use wf_vm::{AgentError, Decision, Outcome, RunStatus, Write};

fn parity(name: &str) -> std::path::PathBuf {
    fixture(&format!("parity/{name}"))
}

/// The node ids of the first workflow and its edges as `from->to`.
fn shape(file: &Path) -> (Vec<String>, Vec<String>) {
    let p = build(file).unwrap();
    let w = &p.workflows[0];
    let nodes = w.nodes.iter().map(|n| p.str(n.id).to_owned()).collect();
    let edges = w
        .edges
        .iter()
        .map(|e| {
            format!(
                "{}->{}",
                p.str(w.nodes[e.from.0 as usize].id),
                p.str(w.nodes[e.to.0 as usize].id)
            )
        })
        .collect();
    (nodes, edges)
}

fn completed(report: &Value) -> bool {
    report["status"] == "completed"
}

fn bb<'r>(report: &'r Value, key: &str) -> &'r Value {
    &report["blackboard"][key]
}

/// The nodes a run entered, in order, from its `--events` file.
fn entered(events: &Path) -> Vec<String> {
    std::fs::read_to_string(events)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["event"] == "node:enter")
        .map(|e| e["node"].as_str().unwrap().to_owned())
        .collect()
}

/// `wfc run` with `--events` in a scratch directory: code, report and the
/// nodes entered.
fn run_traced(name: &str, file: &Path, args: &[&str]) -> (i32, Value, Vec<String>) {
    let dir = scratch(name);
    let events = dir.join("events.jsonl");
    let mut all = args.to_vec();
    let ev = events.to_str().unwrap().to_owned();
    all.extend(["--events", &ev]);
    let (code, report) = run(file, &all);
    (code, report, entered(&events))
}

#[test]
fn parity_01_parse_simple_linear_pipeline() {
    let f = parity("01_linear.dot");
    assert_eq!(check(&f), (0, String::new()));
    let (nodes, edges) = shape(&f);
    assert_eq!(nodes, ["start", "A", "B", "done"]);
    assert_eq!(edges, ["start->A", "A->B", "B->done"]);
}

#[test]
fn parity_02_parse_pipeline_with_graph_level_attributes() {
    let p = build(&parity("02_graph_attrs.dot")).unwrap();
    let w = &p.workflows[0];
    assert_eq!(w.goal.map(|g| p.str(g)), Some("Ship the release"));
    assert_eq!(w.label.map(|l| p.str(l)), Some("Release pipeline"));
}

#[test]
fn parity_03_parse_multi_line_node_attributes() {
    let p = build(&parity("03_multiline.dot")).unwrap();
    let w = &p.workflows[0];
    let plan = w.nodes.iter().find(|n| p.str(n.id) == "plan").unwrap();
    assert_eq!(plan.label.map(|l| p.str(l)), Some("Plan the work"));
    assert_eq!(plan.spec["prompt"], "Write a plan\nwith two lines");
    assert_eq!(plan.engine.retries, Some(3));
    let model = plan.spec.get("llm_model").or(plan.spec.get("model"));
    assert_eq!(model, Some(&json!("gpt-5.4")));
}

#[test]
fn parity_04_validate_missing_start_node_is_an_error() {
    let (code, out) = check(&parity("04_no_start.dot"));
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("error[WF0202] pipeline `NoStart` has no start node"),
        "{out}"
    );
}

#[test]
fn parity_05_validate_missing_exit_node_is_an_error() {
    let (code, out) = check(&parity("05_no_exit.dot"));
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("error[WF0204] pipeline `NoExit` has no exit node"),
        "{out}"
    );
}

/// The row says "warning"; the rule table of section 7.2 says
/// `reachability` is an ERROR, and `wfc` follows the rule table (see
/// docs/attractor.md). What the row checks — the orphan is reported, by
/// name — holds.
#[test]
fn parity_06_validate_orphan_node_is_reported() {
    let (code, out) = check(&parity("06_orphan.dot"));
    assert!(
        out.contains("[WF0205] node `orphan` cannot be reached from the entry `start`"),
        "{out}"
    );
    assert_eq!(out.lines().count(), 1, "only the orphan: {out}");
    assert_eq!(code, 1);
}

#[test]
fn parity_07_execute_linear_3_node_pipeline_end_to_end() {
    let dir = scratch("parity07");
    let rd = dir.join("run");
    let (code, report) = run(
        &parity("01_linear.dot"),
        &["--agent", "auto", "--run-dir", rd.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{report}");
    assert!(completed(&report));
    assert_eq!(bb(&report, "last_stage"), "B");
    for stage in ["A", "B"] {
        for f in ["prompt.md", "response.md", "status.json"] {
            assert!(rd.join(stage).join(f).is_file(), "{stage}/{f}");
        }
    }
    let response = std::fs::read_to_string(rd.join("A/response.md")).unwrap();
    assert_eq!(response.trim(), "[Simulated] Response for stage: A");
}

#[test]
fn parity_08_execute_with_conditional_branching_success_and_fail_paths() {
    let f = parity("08_branching.dot");
    let (code, _, path) = run_traced("parity08ok", &f, &["--agent", "auto"]);
    assert_eq!(code, 0);
    assert_eq!(path, ["start", "work", "check", "good", "done"]);
    let dir = scratch("parity08script");
    let script = write_json(
        &dir,
        "s.json",
        &json!({"fallback": "auto",
        "nodes": {"work": [{"type": "advance", "status": "fail", "failure_reason": "broken"}]}}),
    );
    let agent = format!("script:{}", script.display());
    let (code, _, path) = run_traced("parity08fail", &f, &["--agent", &agent]);
    assert_eq!(code, 0);
    assert_eq!(path, ["start", "work", "bad", "done"]);
}

/// A stage fails twice in a retryable way (status `retry`: seed 3.5 retries
/// `retry` outcomes and returns `fail` at once), then succeeds; a third
/// retryable failure exhausts `max_retries=2` and the run fails.
#[test]
fn parity_09_execute_with_retry_on_failure_max_retries_2() {
    let f = parity("09_retry.dot");
    let dir = scratch("parity09script");
    let fail = json!({"type": "advance", "status": "retry", "failure_reason": "flaky"});
    let twice = write_json(
        &dir,
        "twice.json",
        &json!({"fallback": "auto", "nodes": {"flaky": [fail, fail]}}),
    );
    let (code, report, path) = run_traced(
        "parity09a",
        &f,
        &["--agent", &format!("script:{}", twice.display())],
    );
    assert_eq!(code, 0, "{report}");
    assert_eq!(path, ["start", "flaky", "done"]);
    let failures = report["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 2, "{report}");
    assert!(
        failures[0]["reason"]
            .as_str()
            .unwrap()
            .contains("attempt 1 of 3")
    );
    let thrice = write_json(
        &dir,
        "thrice.json",
        &json!({"fallback": "auto", "nodes": {"flaky": [fail, fail, fail]}}),
    );
    let (code, report, _) = run_traced(
        "parity09b",
        &f,
        &["--agent", &format!("script:{}", thrice.display())],
    );
    assert_eq!(code, 1, "{report}");
    assert_eq!(report["status"], "failed");
    assert!(
        report["reason"]
            .as_str()
            .unwrap()
            .contains("max retries exceeded"),
        "{report}"
    );
}

#[test]
fn parity_10_goal_gate_blocks_exit_when_unsatisfied() {
    let dir = scratch("parity10script");
    let script = write_json(
        &dir,
        "s.json",
        &json!({"fallback": "auto",
        "nodes": {"tests": [{"type": "advance", "status": "fail", "failure_reason": "red"}]}}),
    );
    let (code, report, path) = run_traced(
        "parity10",
        &parity("10_goal_gate.dot"),
        &["--agent", &format!("script:{}", script.display())],
    );
    assert_eq!(code, 0, "{report}");
    assert_eq!(path, ["start", "tests", "done", "fix", "tests", "done"]);
    let reasons = report["failures"].to_string();
    assert!(reasons.contains("goal gate `tests`"), "{reasons}");
}

#[test]
fn parity_11_goal_gate_allows_exit_when_all_satisfied() {
    let (code, report, path) = run_traced(
        "parity11",
        &parity("10_goal_gate.dot"),
        &["--agent", "auto"],
    );
    assert_eq!(code, 0, "{report}");
    assert_eq!(path, ["start", "tests", "done"]);
    assert_eq!(report["failures"], json!([]));
}

#[test]
fn parity_12_wait_human_presents_choices_and_routes_on_selection() {
    let p = build(&parity("12_human.dot")).unwrap();
    for (answer, target) in [("R", "fix"), ("approve", "ship")] {
        let dir = scratch(&format!("parity12{target}"));
        let run = api_run(
            &p,
            &dir,
            None,
            None,
            Some(Box::new(Queue::from_lines([answer]))),
            |_| {},
        );
        assert_eq!(run.report.status, RunStatus::Completed);
        assert!(
            run.events.contains(&format!("node:enter {target}")),
            "{:?}",
            run.events
        );
        let interview: Value =
            serde_json::from_slice(&std::fs::read(dir.join("review/interview.json")).unwrap())
                .unwrap();
        let labels: Vec<&str> = interview["question"]["options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["label"].as_str().unwrap())
            .collect();
        assert_eq!(labels, ["[A] Approve", "[R] Reject"]);
        assert_eq!(interview["question"]["text"], "Ship it?");
    }
}

#[test]
fn parity_13_edge_selection_condition_match_wins_over_weight() {
    let (code, _, path) = run_traced(
        "parity13",
        &parity("13_condition_vs_weight.dot"),
        &["--agent", "auto"],
    );
    assert_eq!(code, 0);
    assert_eq!(path, ["start", "work", "cond", "done"]);
}

#[test]
fn parity_14_edge_selection_weight_breaks_ties_for_unconditional_edges() {
    let (code, _, path) = run_traced("parity14", &parity("14_weight.dot"), &["--agent", "auto"]);
    assert_eq!(code, 0);
    assert_eq!(path, ["start", "work", "z", "done"]);
}

#[test]
fn parity_15_edge_selection_lexical_tiebreak_as_final_fallback() {
    let (code, _, path) = run_traced("parity15", &parity("15_lexical.dot"), &["--agent", "auto"]);
    assert_eq!(code, 0);
    assert_eq!(path, ["start", "work", "alpha", "done"]);
}

/// `decide` writes `context.speed` (the seed's namespace for state shared
/// between nodes, 5.1); the next node routes on it.
#[test]
fn parity_16_context_updates_from_one_node_are_visible_to_the_next() {
    let f = parity("16_context.dot");
    let (code, report, path) = run_traced(
        "parity16a",
        &f,
        &["--agent", &speed_script("context.speed")],
    );
    assert_eq!(code, 0, "{report}");
    assert_eq!(bb(&report, "context.speed"), "fast");
    assert_eq!(path, ["start", "decide", "route", "fast", "done"]);
    let (_, _, path) = run_traced("parity16b", &f, &["--agent", "auto"]);
    assert_eq!(path, ["start", "decide", "route", "slow", "done"]);
}

/// A `script:` agent whose `decide` writes `key = "fast"`.
fn speed_script(key: &str) -> String {
    let dir = scratch(&format!("speed-{key}"));
    let script = write_json(
        &dir,
        "s.json",
        &json!({"fallback": "auto", "nodes": {"decide": [
            {"type": "advance", "status": "success", "writes": [{"key": key, "value": "fast"}]}]}}),
    );
    format!("script:{}", script.display())
}

/// Not a row of the matrix: section 10.4 looks `context.speed` up as
/// `context.speed`, then as `speed`.
#[test]
fn condition_context_key_falls_back_to_the_bare_key() {
    let (code, report, path) = run_traced(
        "ctx-bare",
        &parity("16_context.dot"),
        &["--agent", &speed_script("speed")],
    );
    assert_eq!(code, 0, "{report}");
    assert_eq!(path, ["start", "decide", "route", "fast", "done"]);
}

#[test]
fn parity_17_checkpoint_save_and_resume_produces_same_result() {
    let f = parity("01_linear.dot");
    let dir = scratch("parity17");
    let whole = dir.join("whole");
    let (code, straight) = run(
        &f,
        &["--agent", "auto", "--run-dir", whole.to_str().unwrap()],
    );
    assert_eq!(code, 0);
    // Stop at B (suspended), then resume.
    let script = write_json(
        &dir,
        "s.json",
        &json!({"fallback": "auto",
        "nodes": {"B": [{"type": "suspend", "reason": "stop here"}]}}),
    );
    let parts = dir.join("parts");
    let (code, first) = run(
        &f,
        &[
            "--agent",
            &format!("script:{}", script.display()),
            "--run-dir",
            parts.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 3, "{first}");
    let cp: Value =
        serde_json::from_slice(&std::fs::read(parts.join("checkpoint.json")).unwrap()).unwrap();
    assert_eq!(cp["current_node"], "A", "{cp}");
    let out = dot::wfc(&[
        "run",
        "--resume",
        parts.to_str().unwrap(),
        "--agent",
        "auto",
        "--format",
        "json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let resumed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(resumed["status"], straight["status"]);
    assert_eq!(resumed["blackboard"], straight["blackboard"]);
    let cp: Value =
        serde_json::from_slice(&std::fs::read(parts.join("checkpoint.json")).unwrap()).unwrap();
    let done: Vec<&str> = cp["completed_nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for n in ["start", "A", "B"] {
        assert!(done.contains(&n), "{cp}");
    }
}

#[test]
fn parity_18_stylesheet_applies_model_override_to_nodes_by_shape() {
    let p = build(&parity("18_stylesheet.dot")).unwrap();
    let w = &p.workflows[0];
    let model = |id: &str| {
        let n = w.nodes.iter().find(|n| p.str(n.id) == id).unwrap();
        n.spec.get("llm_model").or(n.spec.get("model")).cloned()
    };
    assert_eq!(model("plain"), Some(json!("claude-opus-4-6")));
    assert_eq!(
        model("special"),
        Some(json!("gpt-5.4")),
        "the id selector wins"
    );
    assert_eq!(model("start"), None, "start is not a box");
}

#[test]
fn parity_19_prompt_variable_expansion_goal_works() {
    let dir = scratch("parity19");
    let rd = dir.join("run");
    let (code, _) = run(
        &parity("02_graph_attrs.dot"),
        &["--agent", "auto", "--run-dir", rd.to_str().unwrap()],
    );
    assert_eq!(code, 0);
    let prompt = std::fs::read_to_string(rd.join("work/prompt.md")).unwrap();
    assert_eq!(prompt.trim(), "Work on: Ship the release");
}

#[test]
fn parity_20_parallel_fan_out_and_fan_in_complete_correctly() {
    let dir = scratch("parity20");
    let rd = dir.join("run");
    let (code, report, path) = run_traced(
        "parity20",
        &parity("20_parallel.dot"),
        &["--agent", "auto", "--run-dir", rd.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{report}");
    assert_eq!(path, ["start", "fanout", "join", "after", "done"]);
    let results = bb(&report, "parallel.results").as_array().unwrap();
    let ids: Vec<&str> = results.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["a", "b", "c1"]);
    assert!(
        results
            .iter()
            .all(|r| r["outcome"] == "success" && r["stopped_at"] == "join")
    );
    assert_eq!(
        results[2]["context_updates"]["last_stage"], "c2",
        "branch c ran both nodes"
    );
    assert_eq!(bb(&report, "parallel.fan_in.best_id"), "a");
    assert_eq!(bb(&report, "parallel.success_count"), 3);
    // Isolation: no branch's writes reach the parent except in the results.
    assert_eq!(bb(&report, "last_stage"), "after");
    for stage in ["a", "b", "c1", "c2"] {
        assert!(rd.join(stage).join("response.md").is_file(), "{stage}");
    }
}

/// A custom handler: writes `stamped` and succeeds.
struct Stamp;

impl Handler for Stamp {
    fn execute(&mut self, cx: &mut HandlerCx<'_, '_>) -> Result<Decision, AgentError> {
        Ok(Decision::Advance(Outcome {
            writes: vec![Write {
                key: "stamped".into(),
                value: json!(cx.node_id),
            }],
            ..Outcome::success()
        }))
    }
}

#[test]
fn parity_21_custom_handler_registration_and_execution_works() {
    let p = build(&parity("21_custom.dot")).unwrap();
    let dir = scratch("parity21");
    let run = api_run(&p, &dir, None, None, None, |a| {
        a.registry_mut().register("acme.stamp", Box::new(Stamp))
    });
    assert_eq!(run.report.status, RunStatus::Completed);
    let stamped = run.report.blackboard.0.iter().find(|(k, _)| k == "stamped");
    assert_eq!(stamped.map(|(_, v)| v), Some(&json!("stamp")));
    // Unregistered, the same node fails, naming the type (with a backend:
    // a dry run, without one, simulates the type).
    let backend: Box<dyn wf_vm::DecisionAgent> = Box::new(wf_vm::agents::AutoAgent::new());
    let run = api_run(&p, &scratch("parity21b"), None, Some(backend), None, |_| {});
    match &run.report.status {
        RunStatus::Failed { reason } => assert!(reason.contains("acme.stamp"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn parity_22_pipeline_with_10_plus_nodes_completes_without_errors() {
    let f = parity("22_big.dot");
    let (nodes, _) = shape(&f);
    assert!(nodes.len() >= 10, "{nodes:?}");
    let (code, report, path) = run_traced("parity22", &f, &["--agent", "auto"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["failures"], json!([]));
    assert_eq!(path.len(), 12);
    assert_eq!(path.last().map(String::as_str), Some("done"));
}
