//! `wfc run` and `wfc build` on Attractor pipelines (`.dot`): one test per
//! built-in handler, per edge-selection step, loops, `loop_restart`, goal
//! gates, retries, the run directory of seed section 5.6 with the
//! status-file contract, and the seed's integration smoke test (11.13)
//! with a scripted backend. Fixtures: `tests/run/dot/`.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{repo_root, summary};
use insta_cmd::{assert_cmd_snapshot, get_cargo_bin};
use serde_json::Value;

fn wfc(args: &[&str]) -> Command {
    let mut cmd = Command::new(get_cargo_bin("wfc"));
    cmd.current_dir(repo_root())
        .args(args)
        .env("NO_COLOR", "1")
        .env("RUST_BACKTRACE", "0");
    cmd
}

/// A fresh scratch directory for one test (the run directory goes
/// inside, as `run`).
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("wfc-run-dot-tests")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn fixture(name: &str) -> String {
    format!("tests/run/dot/{name}")
}

fn script(name: &str) -> String {
    format!("script:tests/run/dot/scripts/{name}")
}

/// Runs a pipeline with a run directory and events; returns the output,
/// the run directory and the events.
fn run(test: &str, file: &str, agent: &str, extra: &[&str]) -> (Output, PathBuf, Vec<Value>) {
    let dir = scratch(test);
    let run_dir = dir.join("run");
    let events = dir.join("events.jsonl");
    let file = fixture(file);
    let mut args = vec![
        "run",
        &file,
        "--agent",
        agent,
        "--format",
        "json",
        "--progress",
        "never",
        "--run-dir",
        run_dir.to_str().unwrap(),
        "--events",
        events.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = wfc(&args).output().unwrap();
    let events = std::fs::read_to_string(&events)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (out, run_dir, events)
}

fn json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

fn text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The nodes the checkpoint records as completed, in order.
fn completed(run_dir: &Path) -> Vec<String> {
    json(&run_dir.join("checkpoint.json"))["completed_nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

fn names<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["event"] == kind).collect()
}

#[test]
fn integration_smoke_test_11_13() {
    let (out, run_dir, _) = run("smoke", "smoke.dot", &script("smoke.json"), &[]);
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    assert_eq!(s["status"], "completed");
    // `implement` failed once and went back to `plan` (`outcome=fail`).
    let done = completed(&run_dir);
    assert_eq!(
        done,
        [
            "start",
            "plan",
            "implement",
            "plan",
            "implement",
            "review",
            "done"
        ]
    );
    for node in ["plan", "implement", "review"] {
        for file in ["prompt.md", "response.md", "status.json"] {
            assert!(
                run_dir.join(node).join(file).is_file(),
                "{node}/{file} is missing"
            );
        }
    }
    // The goal gate `implement` is satisfied: its last outcome succeeded.
    let implement = json(&run_dir.join("implement/status.json"));
    assert_eq!(implement["outcome"], "success");
    assert_eq!(
        text(&run_dir.join("implement/response.md")),
        "print('hello, world')"
    );
    assert_eq!(
        text(&run_dir.join("plan/prompt.md")),
        "Plan how to create a hello world script for: Create a hello world Python script"
    );
    let checkpoint = json(&run_dir.join("checkpoint.json"));
    assert_eq!(checkpoint["current_node"], "done");
    assert_eq!(
        checkpoint["context"]["graph.goal"],
        "Create a hello world Python script"
    );
    assert_eq!(checkpoint["context"]["last_stage"], "review");
    assert_eq!(checkpoint["context"]["last_response"], "Looks correct.");
}

#[test]
fn start_codergen_conditional_tool_and_exit_handlers_run() {
    let (out, run_dir, _) = run("handlers", "handlers.dot", "auto", &["--allow-tools"]);
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    assert_eq!(
        completed(&run_dir),
        ["start", "write", "check", "greet", "done"]
    );
    // codergen in simulation, `$goal` expanded.
    assert_eq!(
        text(&run_dir.join("write/prompt.md")),
        "Write about Exercise the handlers"
    );
    assert_eq!(
        text(&run_dir.join("write/response.md")),
        "[Simulated] Response for stage: write"
    );
    // conditional: a pass-through with notes.
    let check = json(&run_dir.join("check/status.json"));
    assert_eq!(check["notes"], "Conditional node evaluated: check");
    // tool: `tool.output` in the context and the status file.
    assert_eq!(s["blackboard"]["tool.output"], "hello from the tool\n");
    let greet = json(&run_dir.join("greet/status.json"));
    assert_eq!(greet["outcome"], "success");
    assert_eq!(
        greet["context_updates"]["tool.output"],
        "hello from the tool\n"
    );
    // start writes a status; the exit (a terminal) does not.
    assert_eq!(
        json(&run_dir.join("start/status.json"))["outcome"],
        "success"
    );
    assert!(!run_dir.join("done/status.json").exists());
}

/// Issue 14 item 13: branches and child pipelines get the run's tool
/// runner; without `--allow-tools` their tools are refused as anywhere.
#[test]
fn tools_run_in_parallel_branches_and_child_pipelines() {
    let (out, run_dir, _) = run(
        "tools_par",
        "tools_parallel.dot",
        "auto",
        &["--allow-tools"],
    );
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    let results = s["blackboard"]["parallel.results"].as_array().unwrap();
    for (r, id) in results.iter().zip(["a", "b"]) {
        assert_eq!(r["outcome"], "success", "{r}");
        assert_eq!(r["context_updates"]["tool.output"], format!("from-{id}\n"));
        let status = json(&run_dir.join(format!("{id}/status.json")));
        assert_eq!(status["notes"], format!("Tool completed: echo from-{id}"));
    }
    let (out, _, _) = run("tools_par_refused", "tools_parallel.dot", "auto", &[]);
    let s = summary(&out);
    assert_eq!(s["status"], "failed", "{s}");
    let refused = s["blackboard"]["parallel.results"][0]["failure_reason"].as_str();
    assert!(
        refused
            .unwrap()
            .contains("tool nodes run only with --allow-tools"),
        "{s}"
    );

    let (out, run_dir, _) = run("tools_mgr", "tools_manager.dot", "auto", &["--allow-tools"]);
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    assert_eq!(s["blackboard"]["stack.child.status"], "completed");
    let greet = json(&run_dir.join("manager/child/greet/status.json"));
    assert_eq!(greet["outcome"], "success");
    assert_eq!(greet["context_updates"]["tool.output"], "from-the-child\n");
    let (out, _, _) = run("tools_mgr_refused", "tools_manager.dot", "auto", &[]);
    let s = summary(&out);
    assert!(
        s["reason"]
            .as_str()
            .unwrap()
            .contains("only with --allow-tools"),
        "{s}"
    );
}

/// A branch runs within what is left of the run's limits: `--max-steps
/// 10` leaves 9 steps after `start`, where a fresh engine would loop on
/// until `max_visits`.
#[test]
fn parallel_branches_inherit_what_is_left_of_the_limits() {
    let (out, _, _) = run(
        "limits_par",
        "limits_parallel.dot",
        "auto",
        &["--max-steps", "10"],
    );
    let s = summary(&out);
    let looping = &s["blackboard"]["parallel.results"][0];
    assert_eq!(looping["outcome"], "fail", "{s}");
    assert_eq!(
        looping["failure_reason"],
        "the run reached its limit of 9 steps (max_steps)"
    );
}

#[test]
fn tool_handler_without_allow_tools_fails_with_the_refusal() {
    let (out, run_dir, _) = run("tool_refused", "handlers.dot", "auto", &[]);
    assert_eq!(out.status.code(), Some(1));
    let greet = json(&run_dir.join("greet/status.json"));
    assert_eq!(greet["outcome"], "fail");
    assert!(
        greet["failure_reason"]
            .as_str()
            .unwrap()
            .contains("only with --allow-tools"),
        "{greet}"
    );
}

#[test]
fn codergen_backend_failure_routes_like_a_failed_stage() {
    // The scripted backend has no answer for `pick`: the stage fails with
    // the backend's message, and with no failure route the run fails.
    let (out, run_dir, _) = run(
        "backend_error",
        "routes.dot",
        &script("no_answer.json"),
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    let s = summary(&out);
    let reason = s["reason"].as_str().unwrap();
    assert!(reason.contains("node `pick`"), "{reason}");
    let pick = json(&run_dir.join("pick/status.json"));
    assert_eq!(pick["outcome"], "fail");
}

#[test]
fn unknown_handler_type_fails_clearly_unless_auto_status() {
    let (out, _, _) = run("custom", "custom.dot", "auto", &[]);
    assert_eq!(out.status.code(), Some(1));
    let reason = summary(&out)["reason"].as_str().unwrap().to_string();
    assert!(
        reason.contains("handler type `my.custom`") && reason.contains("does not know"),
        "{reason}"
    );
    let (out, run_dir, _) = run("custom_auto", "custom_auto.dot", "auto", &[]);
    assert_eq!(out.status.code(), Some(0));
    let odd = json(&run_dir.join("odd/status.json"));
    assert_eq!(
        odd["notes"],
        "auto-status: handler completed without writing status"
    );
}

/// The node the run went to after `pick` in `routes.dot`.
fn after_pick(test: &str, agent: &str) -> String {
    let (out, run_dir, _) = run(test, "routes.dot", agent, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", summary(&out));
    completed(&run_dir)[2].clone()
}

#[test]
fn edge_selection_1_condition_match_wins() {
    assert_eq!(
        after_pick("sel_condition", &script("condition.json")),
        "alpha"
    );
}

#[test]
fn edge_selection_2_preferred_label_after_normalisation() {
    // `  yes ` matches `[Y] Yes`; `n) NO` matches `N) No`.
    assert_eq!(after_pick("sel_label", &script("label.json")), "yes");
    assert_eq!(
        after_pick("sel_label_paren", &script("label_paren.json")),
        "no"
    );
}

#[test]
fn edge_selection_3_suggested_next_ids() {
    assert_eq!(after_pick("sel_suggested", &script("suggested.json")), "no");
}

#[test]
fn edge_selection_4_highest_weight_among_unconditional_edges() {
    assert_eq!(after_pick("sel_weight", "auto"), "heavy");
}

#[test]
fn edge_selection_5_lexical_tiebreak() {
    let (out, run_dir, _) = run("sel_lexical", "lexical.dot", "auto", &[]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(completed(&run_dir)[2], "a");
}

#[test]
fn edge_selection_fallback_takes_any_edge_by_weight() {
    let (out, run_dir, _) = run("sel_fallback", "fallback.dot", "auto", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", summary(&out));
    assert_eq!(completed(&run_dir)[2], "y");
}

#[test]
fn loops_are_bounded_by_max_visits_with_a_clear_reason() {
    let (out, _, _) = run("loop", "loop.dot", "auto", &[]);
    assert_eq!(out.status.code(), Some(1));
    let s = summary(&out);
    assert_eq!(
        s["reason"],
        "node `work` of workflow `loop` was entered 51 times, over its limit of 50 (max_visits)"
    );
}

#[test]
fn the_graph_sets_its_own_visit_limit() {
    let (out, _, _) = run("loop_limited", "loop_limited.dot", "auto", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        summary(&out)["reason"],
        "node `work` of workflow `loop` was entered 4 times, over its limit of 3 (max_visits)"
    );
}

#[test]
fn loop_restart_starts_again_with_a_fresh_context() {
    let (out, run_dir, events) = run("restart", "restart.dot", &script("restart.json"), &[]);
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    let restarts = names(&events, "engine:restart");
    assert_eq!(restarts.len(), 1);
    assert_eq!(restarts[0]["node"], "work");
    // The first pass's key is gone; the graph attributes stay.
    assert!(s["blackboard"].get("first_pass").is_none(), "{s}");
    assert_eq!(s["blackboard"]["graph.goal"], "Restart once");
    let checkpoint = json(&run_dir.join("checkpoint.json"));
    assert!(checkpoint["context"].get("first_pass").is_none());
}

#[test]
fn goal_gate_retry_target_on_the_node() {
    let (out, run_dir, _) = run("gate_node", "gate_node.dot", &script("gate.json"), &[]);
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    assert_eq!(
        completed(&run_dir),
        ["start", "fix", "test", "done", "fix", "test", "done"]
    );
    let trace = s["failures"].to_string();
    assert!(
        trace.contains("goal gate `test`") && trace.contains("retrying at `fix`"),
        "{trace}"
    );
}

#[test]
fn goal_gate_retry_target_on_the_graph() {
    let (out, run_dir, _) = run("gate_graph", "gate_graph.dot", &script("gate.json"), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", summary(&out));
    assert_eq!(
        completed(&run_dir),
        ["start", "fix", "test", "done", "fix", "test", "done"]
    );
}

#[test]
fn retries_back_off_then_allow_partial() {
    let (out, run_dir, events) = run("retry", "retry.dot", &script("retry.json"), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", summary(&out));
    let retries = names(&events, "node:retry");
    let delays: Vec<u64> = retries
        .iter()
        .map(|e| e["delay_ms"].as_u64().unwrap())
        .collect();
    assert_eq!(delays, [200, 400]);
    let exits = names(&events, "node:exit");
    let flaky = exits.iter().find(|e| e["node"] == "flaky").unwrap();
    assert_eq!(flaky["status"], "partial_success");
    let checkpoint = json(&run_dir.join("checkpoint.json"));
    assert_eq!(checkpoint["node_retries"]["flaky"], 2);
}

#[test]
fn status_json_follows_the_appendix_c_contract() {
    let (_, run_dir, _) = run("status", "routes.dot", &script("suggested.json"), &[]);
    let status = json(&run_dir.join("pick/status.json"));
    let keys: Vec<&str> = status
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    assert_eq!(
        keys,
        [
            "context_updates",
            "fidelity",
            "notes",
            "outcome",
            "preferred_next_label",
            "suggested_next_ids"
        ]
    );
    assert_eq!(status["outcome"], "success");
    assert_eq!(
        status["suggested_next_ids"],
        serde_json::json!(["nowhere", "no"])
    );
    assert_eq!(status["preferred_next_label"], "");
    assert!(status["context_updates"].is_object());
}

#[test]
fn run_directory_layout_5_6() {
    let (_, run_dir, _) = run("layout", "smoke.dot", "auto", &[]);
    let manifest = json(&run_dir.join("manifest.json"));
    assert_eq!(manifest["name"], "test_pipeline");
    assert_eq!(manifest["goal"], "Create a hello world Python script");
    assert!(manifest["started_at"].as_str().unwrap().ends_with('Z'));
    let checkpoint = json(&run_dir.join("checkpoint.json"));
    for key in [
        "timestamp",
        "current_node",
        "completed_nodes",
        "node_retries",
        "context",
        "logs",
    ] {
        assert!(
            checkpoint.get(key).is_some(),
            "checkpoint.json lacks `{key}`"
        );
    }
    let mut dirs: Vec<String> = std::fs::read_dir(&run_dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    assert_eq!(dirs, ["implement", "plan", "review", "start"]);
}

#[test]
fn fidelity_is_resolved_edge_node_graph_default() {
    let (out, run_dir, _) = run("fidelity", "fidelity.dot", "auto", &[]);
    assert_eq!(out.status.code(), Some(0));
    let of = |n: &str| json(&run_dir.join(n).join("status.json"));
    assert_eq!(of("a")["fidelity"], "summary:low"); // graph default
    assert_eq!(of("b")["fidelity"], "truncate"); // node
    assert_eq!(of("c")["fidelity"], "full"); // edge
    assert_eq!(of("c")["thread_id"], "main");
}

#[test]
fn build_keeps_the_dialect_and_handlers() {
    let out = wfc(&["build", &fixture("smoke.dot"), "-o", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let ir: Value = serde_json::from_slice(&out.stdout).unwrap();
    let wf = &ir["workflows"][0];
    assert_eq!(wf["dialect"], "attractor");
    let strings = ir["strings"].as_array().unwrap();
    let handlers: Vec<&str> = wf["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            strings[n["handler"].as_u64().unwrap() as usize]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(
        handlers,
        ["start", "codergen", "codergen", "codergen", "exit"]
    );
}

#[test]
fn a_pipeline_with_check_errors_is_refused() {
    let out = wfc(&["run", &fixture("broken.dot"), "--agent", "auto"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("WF0204") && err.contains("has 1 error"),
        "{err}"
    );
    let out = wfc(&["build", &fixture("broken.dot"), "-o", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn cli_snapshot_of_a_simulated_run() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(repo_root().join("tests/run/dot/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.add_filter(r"\d+ms\)", "[TIME])");
    settings.bind(|| {
        assert_cmd_snapshot!(
            "run_handlers_auto",
            wfc(&[
                "run",
                &fixture("handlers.dot"),
                "--agent",
                "auto",
                "--allow-tools",
                "--progress",
                "always"
            ])
        )
    });
}
