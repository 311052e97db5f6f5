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
    let (out, _, _) = run(
        "tools_par_refused",
        "tools_parallel.dot",
        "auto",
        &["--tools", "refuse"],
    );
    let s = summary(&out);
    assert_eq!(s["status"], "failed", "{s}");
    let refused = s["blackboard"]["parallel.results"][0]["failure_reason"].as_str();
    assert!(
        refused.unwrap().contains(
            "tool nodes are refused (--tools refuse; --tools run or --allow-tools runs them"
        ),
        "{s}"
    );

    let (out, run_dir, _) = run("tools_mgr", "tools_manager.dot", "auto", &["--allow-tools"]);
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    assert_eq!(s["blackboard"]["stack.child.status"], "completed");
    let greet = json(&run_dir.join("manager/child/greet/status.json"));
    assert_eq!(greet["outcome"], "success");
    assert_eq!(greet["context_updates"]["tool.output"], "from-the-child\n");
    let (out, _, _) = run(
        "tools_mgr_refused",
        "tools_manager.dot",
        "auto",
        &["--tools", "refuse"],
    );
    let s = summary(&out);
    assert!(
        s["reason"]
            .as_str()
            .unwrap()
            .contains("tool nodes are refused (--tools refuse;"),
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
        // A backend that always succeeds (a dry run stops the loop,
        // which has no way out, at its second visit).
        &script("plain.json"),
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
    let (out, run_dir, _) = run(
        "tool_refused",
        "handlers.dot",
        "auto",
        &["--tools", "refuse"],
    );
    assert_eq!(out.status.code(), Some(1));
    let greet = json(&run_dir.join("greet/status.json"));
    assert_eq!(greet["outcome"], "fail");
    assert!(
        greet["failure_reason"]
            .as_str()
            .unwrap()
            .contains("tool nodes are refused (--tools refuse;"),
        "{greet}"
    );
}

#[test]
fn codergen_backend_failure_routes_like_a_failed_stage() {
    // The scripted backend has no answer for `pick`: the stage fails with
    // the backend's message, and with no failure route the run fails
    // (`--on-error fail`: a durable run would suspend instead, issue 17.1).
    let (out, run_dir, _) = run(
        "backend_error",
        "routes.dot",
        &script("no_answer.json"),
        &["--on-error", "fail"],
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
    // A backend runs the stages (the dry run would simulate the type).
    let (out, _, _) = run("custom", "custom.dot", &script("plain.json"), &[]);
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
    // A backend that always succeeds (a dry run would leave the loop).
    let (out, _, _) = run("loop", "loop.dot", &script("plain.json"), &[]);
    assert_eq!(out.status.code(), Some(1));
    let s = summary(&out);
    assert_eq!(
        s["reason"],
        "node `work` of workflow `loop` was entered 51 times, over its limit of 50 (max_visits)"
    );
}

#[test]
fn the_graph_sets_its_own_visit_limit() {
    let (out, _, _) = run(
        "loop_limited",
        "loop_limited.dot",
        &script("plain.json"),
        &[],
    );
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
    common::redact_stamps(&mut settings);
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

/// Issue 18 item 5: a tool gets `WFC_NODE_ID`, `WFC_RUN_DIR` and
/// `WFC_STAGE_DIR`, and the `status.json` it writes there decides its
/// outcome (Appendix C) and is kept as written.
#[test]
fn tools_get_their_folders_and_their_status_file_is_honoured() {
    let (out, run_dir, _) = run("tool_status", "tool_status.dot", "auto", &["--allow-tools"]);
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    // The file's `fail` routed to `fixit`; its context update is applied.
    assert_eq!(completed(&run_dir), ["start", "probe", "fixit", "done"]);
    assert_eq!(s["blackboard"]["probe.verdict"], "red", "{s}");
    let stage = run_dir.join("probe");
    assert_eq!(
        s["blackboard"]["tool.output"],
        format!("probe|{}|{}", run_dir.display(), stage.display()),
    );
    let status = json(&stage.join("status.json"));
    assert_eq!(
        status,
        serde_json::json!({"outcome": "fail", "preferred_next_label": "",
            "context_updates": {"probe.verdict": "red"}, "notes": "from the tool"})
    );
}

/// Issue 18 item 5: a dead end (not an exit, no edge out) is a check
/// warning, and a run that stops there says so on standard error.
#[test]
fn a_run_that_stops_at_a_dead_end_says_where() {
    let (out, _, _) = run("dead_end", "dead_end.dot", "auto", &[]);
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    assert_eq!(s["at"]["node"], "review");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning[WF0820]: `review` is a dead end"),
        "{err}"
    );
    assert!(
        err.contains(
            "warning: the run stopped at `review`, which is not an exit: no edge leaves it"
        ),
        "{err}"
    );
    // A run that reaches its exit says nothing of the kind.
    let (out, _, _) = run("not_dead_end", "handlers.dot", "auto", &["--allow-tools"]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("dead end"));
}

/// Issue 18 item 5: a node's own `max_visits` is type-checked and bounds
/// its loop.
#[test]
fn a_node_bounds_its_own_loop_with_max_visits() {
    let (out, _, _) = run("node_visits", "node_visits.dot", &script("plain.json"), &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        summary(&out)["reason"],
        "node `work` of workflow `node_visits` was entered 3 times, over the node's own limit of 2 (max_visits)"
    );
    let dir = scratch("node_visits_bad");
    let file = dir.join("bad.dot");
    std::fs::write(
        &file,
        "digraph b { start [shape=Mdiamond]; w [prompt=\"w\", max_visits=0]; \
         v [prompt=\"v\", max_visits=many]; exit [shape=Msquare]; start -> w -> v -> exit }",
    )
    .unwrap();
    let out = wfc(&["check", file.to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("`max_visits` must be at least 1, found `0`"),
        "{err}"
    );
    assert!(
        err.contains("`max_visits` expects a whole number of at least 1"),
        "{err}"
    );
}

/// Issue 18 item 5: `--handler TYPE=exec:COMMAND` runs a custom handler
/// type with an agent process; built-in types and other agents are refused.
#[test]
fn custom_handler_types_run_with_an_exec_process() {
    let handler = "my.custom=exec:sh tests/run/dot/scripts/handler.sh";
    let (out, run_dir, _) = run("custom_exec", "custom.dot", "auto", &["--handler", handler]);
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    assert_eq!(s["blackboard"]["custom.seen"], "my.custom", "{s}");
    let odd = json(&run_dir.join("odd/status.json"));
    assert_eq!(odd["notes"], "ran my.custom");
    for (arg, why) in [
        ("tool=exec:true", "`tool` is a built-in handler type"),
        ("my.custom=auto", "must be an `exec:COMMAND` process"),
        ("my.custom", "expected TYPE=exec:COMMAND"),
    ] {
        let out = wfc(&["run", &fixture("custom.dot"), "--handler", arg])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{arg}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(why), "{arg}: {err}");
    }
}

/// Issue 18 item 5: a failed run's messages go to standard error; with
/// `--format json` the report stays on standard output.
#[test]
fn a_failed_run_reports_on_standard_error() {
    let plain = script("plain.json");
    let out = wfc(&[
        "run",
        &fixture("custom.dot"),
        "--agent",
        &plain,
        "--progress",
        "never",
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("failed custom at odd"), "{err}");
    let (out, _, _) = run("failed_json", "custom.dot", &plain, &[]);
    assert_eq!(summary(&out)["status"], "failed");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("error: the run failed: node `odd` of workflow `custom` failed"),
        "{err}"
    );
}

/// Issue 18 item 5 (decision): at least one exit (seed 7.2); several check
/// clean, and the run ends at the one it reaches.
#[test]
fn exit_and_failure_exits_both_end_the_run() {
    let out = wfc(&["check", &fixture("two_exits.dot")]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let (out, _, _) = run("two_exits_ok", "two_exits.dot", "auto", &[]);
    assert_eq!(summary(&out)["at"]["node"], "shipped");
    let (out, _, _) = run(
        "two_exits_fail",
        "two_exits.dot",
        &script("fail_once.json"),
        &[],
    );
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    assert_eq!(s["at"]["node"], "dropped");
}

/// Issue 18 item 5 (decision): a `fail` is routed at once, whatever
/// `max_retries` allows (seed 3.5); only `retry` is retried.
#[test]
fn a_fail_is_routed_at_once_not_retried() {
    let (out, run_dir, events) = run(
        "fail_no_retry",
        "fail_no_retry.dot",
        &script("fail_once.json"),
        &[],
    );
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    assert_eq!(completed(&run_dir), ["start", "work", "fixup", "done"]);
    assert!(names(&events, "node:retry").is_empty(), "{s}");
}

/// Issue 18 item 5: `loop_restart` starts a fresh log directory (seed
/// 2.7): the pass after the k-th restart writes its node folders under
/// `restart-k/`, and the first pass's files stay as they were.
#[test]
fn loop_restart_starts_a_fresh_log_directory() {
    let (out, run_dir, _) = run("restart_dirs", "restart.dot", &script("restart.json"), &[]);
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    let first = json(&run_dir.join("judge/status.json"));
    assert_eq!(first["outcome"], "fail", "{first}");
    assert_eq!(
        json(&run_dir.join("work/status.json"))["context_updates"]["first_pass"],
        true
    );
    let second = run_dir.join("restart-1");
    assert_eq!(
        json(&second.join("judge/status.json"))["outcome"],
        "success"
    );
    let work = json(&second.join("work/status.json"));
    assert!(
        work["context_updates"].get("first_pass").is_none(),
        "{work}"
    );
    assert_eq!(text(&second.join("work/prompt.md")), "Work");
    // The run's own files stay at the top.
    assert!(run_dir.join("checkpoint.json").is_file());
    assert!(!second.join("checkpoint.json").exists());
}

/// Issue 18 item 5: `steer` in `manager.actions` writes the manager's
/// instructions into the stage directory of the node the child runs
/// next, and the child's codergen stage adds them to its prompt.
#[test]
fn a_manager_steers_its_child_through_the_stage_directory() {
    let (out, run_dir, events) = run("steer", "steer_manager.dot", "auto", &[]);
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    let child = run_dir.join("manager/child");
    let wanted = "Keep it short; the goal is Ship the docs.";
    for stage in ["draft", "polish"] {
        assert_eq!(text(&child.join(stage).join("intervention.md")), wanted);
    }
    assert_eq!(
        text(&child.join("polish/prompt.md")),
        format!("Polish it\n\n## Instructions from the supervisor\n\n{wanted}")
    );
    assert!(
        s["blackboard"]["stack.child.interventions"]
            .as_u64()
            .unwrap()
            >= 2,
        "{s}"
    );
    let steered: Vec<_> = names(&events, "handler:event")
        .into_iter()
        .filter(|e| e["name"] == "ManagerSteered")
        .collect();
    assert!(steered.len() >= 2, "{events:?}");
    // Without a run directory there is nowhere to write: the manager says so.
    let out = wfc(&["run", &fixture("steer_manager.dot"), "--format", "json"])
        .output()
        .unwrap();
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
}

/// Issue 18 item 5: the artifact store (seed 5.5). Artifacts a tool lists
/// in its `status.json` are recorded in the context; one above 100 KB is
/// written to `artifacts/` in the run directory instead of the context.
#[test]
fn artifacts_above_100_kb_are_file_backed_under_artifacts() {
    let (out, run_dir, _) = run(
        "artifacts",
        "tool_artifacts.dot",
        "auto",
        &["--allow-tools"],
    );
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    let small = &s["blackboard"]["artifact.summary"];
    assert_eq!(small["is_file_backed"], false, "{small}");
    assert_eq!(small["data"], serde_json::json!({"lines": 3}));
    let log = &s["blackboard"]["artifact.log"];
    assert_eq!(log["is_file_backed"], true, "{log}");
    assert_eq!(log["path"], "artifacts/log.json");
    assert_eq!(log["size_bytes"], 150_002);
    assert!(log.get("data").is_none());
    let stored = json(&run_dir.join("artifacts/log.json"));
    assert_eq!(stored.as_str().map(str::len), Some(150_000));
}

/// A fake model provider on a loopback port for `--agent llm`: it answers
/// the n-th request with the n-th reply (the last repeats), as
/// `(status, body)`, and keeps every request's head and body.
fn fake_provider(
    replies: Vec<(u16, String)>,
) -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().enumerate() {
            let Ok(mut stream) = stream else { break };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let (mut request, mut length) = (String::new(), 0);
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                request.push_str(&line);
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            request.push_str(&String::from_utf8_lossy(&body));
            log.lock().unwrap().push(request);
            let (status, body) = &replies[n.min(replies.len() - 1)];
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (base, seen)
}

/// An Anthropic Messages answer with `text`.
fn anthropic_answer(text: &str) -> (u16, String) {
    let body = serde_json::json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 1000, "cache_read_input_tokens": 0, "output_tokens": 500}
    });
    (200, body.to_string())
}

/// An OpenAI Responses answer with `text`.
fn openai_answer(text: &str) -> (u16, String) {
    let body = serde_json::json!({
        "id": "resp_1", "object": "response", "status": "completed", "model": "gpt-5.4",
        "output": [{"type": "message", "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}],
        "usage": {"input_tokens": 200, "input_tokens_details": {"cached_tokens": 50},
                  "output_tokens": 100, "output_tokens_details": {"reasoning_tokens": 30}}
    });
    (200, body.to_string())
}

/// The key the `--agent llm` tests use: recognisable, so that a test can
/// look for it in everything a run produced.
const LLM_KEY: &str = "sk-wfc-test-KEY-7f3a9c";

/// Writes `smoke.dot` (seed 11.13) with `stylesheet` and a `wf.toml` with
/// `toml` into a scratch folder; runs it with `--agent llm` and `env`.
fn llm_run(
    test: &str,
    stylesheet: &str,
    toml: &str,
    env: &[(&str, &str)],
) -> (Output, PathBuf, PathBuf) {
    let dir = scratch(test);
    let source = std::fs::read_to_string(repo_root().join(fixture("smoke.dot"))).unwrap();
    let source = source.replacen(
        "graph [goal=",
        &format!("graph [model_stylesheet=\"{stylesheet}\", goal="),
        1,
    );
    std::fs::write(dir.join("smoke.dot"), source).unwrap();
    std::fs::write(dir.join("wf.toml"), toml).unwrap();
    let run_dir = dir.join("run");
    let events = dir.join("events.jsonl");
    let mut cmd = wfc(&[
        "run",
        dir.join("smoke.dot").to_str().unwrap(),
        "--agent",
        "llm",
        "--format",
        "json",
        "--progress",
        "never",
        "--run-dir",
        run_dir.to_str().unwrap(),
        "--events",
        events.to_str().unwrap(),
    ]);
    for var in [
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GEMINI_BASE_URL",
    ] {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    (cmd.output().unwrap(), run_dir, events)
}

/// Every file under `dir`, recursively.
fn all_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(all_files(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// Asserts that no byte the run produced holds the key.
fn assert_no_key(out: &Output, dir: &Path) {
    let needle = LLM_KEY.as_bytes();
    let holds = |bytes: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    assert!(!holds(&out.stdout), "stdout holds the key");
    assert!(!holds(&out.stderr), "stderr holds the key");
    let files = all_files(dir);
    assert!(files.len() > 5, "{files:?}");
    for file in files {
        assert!(
            !holds(&std::fs::read(&file).unwrap()),
            "{} holds the key",
            file.display()
        );
    }
}

#[test]
fn llm_agent_runs_the_smoke_test_against_a_fake_anthropic() {
    let (base, seen) = fake_provider(vec![
        anthropic_answer("1. Write hello.py"),
        anthropic_answer(
            "print('hello, world')\n{\"outcome\": \"success\", \"preferred_label\": \"\", \"context_updates\": {\"lang\": \"python\"}, \"notes\": \"wrote it\"}",
        ),
        anthropic_answer("Looks correct.\n```json\n{\"outcome\": \"success\"}\n```"),
    ]);
    let (out, run_dir, events) = llm_run(
        "llm_anthropic",
        "* { llm_provider: anthropic; llm_model: claude-sonnet-4-6; }",
        "[llm.providers.anthropic]\nretries = 0\n",
        &[
            ("ANTHROPIC_API_KEY", LLM_KEY),
            ("ANTHROPIC_BASE_URL", &base),
        ],
    );
    let s = summary(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{s} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        completed(&run_dir),
        ["start", "plan", "implement", "review", "done"]
    );
    for node in ["plan", "implement", "review"] {
        for file in ["prompt.md", "response.md", "status.json"] {
            assert!(
                run_dir.join(node).join(file).is_file(),
                "{node}/{file} is missing"
            );
        }
    }
    // `plan` has plain edges: the prompt goes as written after the
    // default (`compact`) context preamble, the answer is a success.
    let prompt = text(&run_dir.join("plan/prompt.md"));
    assert!(
        prompt.starts_with("## Context (fidelity: compact)\n"),
        "{prompt}"
    );
    assert!(
        prompt.ends_with(
            "\n\nPlan how to create a hello world script for: Create a hello world Python script"
        ),
        "{prompt}"
    );
    assert_eq!(text(&run_dir.join("plan/response.md")), "1. Write hello.py");
    // `implement` routes: the prompt sent ends with the contract, and the
    // answer's context updates reach the context.
    let prompt = text(&run_dir.join("implement/prompt.md"));
    assert!(
        prompt.contains("\n\nWrite the code based on the plan\n\n---\n"),
        "{prompt}"
    );
    assert!(prompt.contains("exactly one of: \"Retry\""), "{prompt}");
    let requests = seen.lock().unwrap().clone();
    assert_eq!(requests.len(), 3);
    assert!(
        requests[1].contains("exactly one of: \\\"Retry\\\""),
        "{}",
        requests[1]
    );
    assert!(
        requests[0]
            .to_ascii_lowercase()
            .contains(&format!("x-api-key: {LLM_KEY}").to_ascii_lowercase())
    );
    let status = json(&run_dir.join("implement/status.json"));
    assert_eq!(status["outcome"], "success");
    assert_eq!(status["context_updates"]["lang"], "python");
    assert_eq!(status["usage"]["input_tokens"], 1000);
    assert_eq!(status["usage"]["output_tokens"], 500);
    assert_eq!(status["usage"]["model"], "claude-sonnet-4-6");
    assert!(status["usage"]["latency_ms"].is_u64());
    // Sonnet: $3 in, $15 out per million tokens → 0.003 + 0.0075 a call.
    assert_eq!(status["usage"]["cost_usd"], 0.0105);
    let checkpoint = json(&run_dir.join("checkpoint.json"));
    assert_eq!(checkpoint["current_node"], "done");
    assert_eq!(checkpoint["context"]["last_stage"], "review");
    assert_eq!(checkpoint["context"]["lang"], "python");
    assert_eq!(s["llm"]["calls"], 3);
    assert_eq!(s["llm"]["input_tokens"], 3000);
    assert_eq!(s["llm"]["cost_usd"], 0.0315);
    let events: Vec<Value> = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let usage = names(&events, "handler:event")
        .into_iter()
        .filter(|e| e.to_string().contains("LlmUsage"))
        .count();
    assert_eq!(usage, 3);
    // Item 9: the key is nowhere in what the run produced.
    assert_no_key(&out, run_dir.parent().unwrap());
}

#[test]
fn llm_agent_runs_the_smoke_test_against_a_fake_openai() {
    let (base, seen) = fake_provider(vec![
        openai_answer("plan"),
        openai_answer("code\n{\"outcome\": \"success\"}"),
        openai_answer("ok\n{\"outcome\": \"success\"}"),
    ]);
    let (out, run_dir, _) = llm_run(
        "llm_openai",
        "* { llm_model: gpt-5.4; reasoning_effort: high; }",
        "",
        &[("OPENAI_API_KEY", LLM_KEY), ("OPENAI_BASE_URL", &base)],
    );
    let s = summary(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{s} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        completed(&run_dir),
        ["start", "plan", "implement", "review", "done"]
    );
    let requests = seen.lock().unwrap().clone();
    assert!(
        requests[0].starts_with("POST /responses "),
        "{}",
        requests[0]
    );
    assert!(
        requests[0].contains("\"effort\":\"high\""),
        "{}",
        requests[0]
    );
    let status = json(&run_dir.join("review/status.json"));
    assert_eq!(status["usage"]["cached_tokens"], 50);
    assert_eq!(status["usage"]["reasoning_tokens"], 30);
    assert_eq!(s["llm"]["reasoning_tokens"], 90);
    assert_no_key(&out, run_dir.parent().unwrap());
}

#[test]
fn llm_agent_stops_before_the_run_without_a_key() {
    let (out, run_dir, _) = llm_run(
        "llm_no_key",
        "* { llm_provider: anthropic; llm_model: claude-sonnet-4-6; }",
        "",
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("error: node `plan`: the key of provider `anthropic` is read from `ANTHROPIC_API_KEY`, which is not set"),
        "{stderr}"
    );
    assert!(!run_dir.exists(), "the run started");
    let (out, _, _) = llm_run(
        "llm_bad_provider",
        "* { llm_provider: antropic; llm_model: m; }",
        "",
        &[],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .contains("error: node `plan`: unknown provider `antropic`; did you mean `anthropic`?"),
        "{stderr}"
    );
    let (out, _, _) = llm_run(
        "llm_bad_toml",
        "* { llm_model: m; }",
        "[llm]\nprovder = \"x\"\n",
        &[],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("wf.toml:2:1: unknown key `provder` in [llm]; did you mean `provider`?"),
        "{stderr}"
    );
}

#[test]
fn llm_agent_retries_a_malformed_routing_answer_then_fails_with_the_reason() {
    let (base, _) = fake_provider(vec![
        anthropic_answer("plan"),
        anthropic_answer("I did it, no JSON"),
    ]);
    let (out, run_dir, _) = llm_run(
        "llm_malformed",
        "* { llm_model: claude-sonnet-4-6; }",
        "[llm.providers.anthropic]\nretries = 0\n",
        &[
            ("ANTHROPIC_API_KEY", LLM_KEY),
            ("ANTHROPIC_BASE_URL", &base),
        ],
    );
    let status = json(&run_dir.join("implement/status.json"));
    assert_eq!(status["outcome"], "fail", "{status}");
    let reason = status["failure_reason"].as_str().unwrap();
    assert!(
        reason.contains("does not end with the JSON object"),
        "{reason}"
    );
    assert_eq!(
        text(&run_dir.join("implement/response.md")),
        "I did it, no JSON"
    );
    assert_ne!(out.status.code(), Some(0));
}

#[test]
fn llm_agent_suspends_the_run_at_its_budget() {
    let (base, seen) = fake_provider(vec![anthropic_answer("plan")]);
    let (out, run_dir, _) = llm_run(
        "llm_budget",
        "* { llm_model: claude-sonnet-4-6; }",
        "[llm]\nmax_cost_usd = 0.01\n",
        &[
            ("ANTHROPIC_API_KEY", LLM_KEY),
            ("ANTHROPIC_BASE_URL", &base),
        ],
    );
    // The first call costs $0.0105: the second is never sent.
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = summary(&out);
    assert_eq!(s["status"], "suspended", "{s}");
    assert!(s.to_string().contains("max_cost_usd = 0.01"), "{s}");
    assert_eq!(seen.lock().unwrap().len(), 1);
    assert!(run_dir.join("plan/response.md").is_file());
}

/// `wfc` with the provider variables cleared, then `env` set.
fn wfc_llm(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = wfc(args);
    for var in [
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
    ] {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

#[test]
fn llm_examples_run_against_fake_providers() {
    // The `.wf` example: each step's declared writes come from the answer.
    let (anthropic, seen) = fake_provider(vec![
        anthropic_answer(
            "Here it is.\n{\"outcome\": \"success\", \"context_updates\": {\"haiku\": \"leaves fall\"}}",
        ),
        anthropic_answer(
            "{\"outcome\": \"success\", \"context_updates\": {\"verdict\": \"a haiku\"}}",
        ),
    ]);
    let env = [
        ("ANTHROPIC_API_KEY", LLM_KEY),
        ("ANTHROPIC_BASE_URL", anthropic.as_str()),
    ];
    let out = wfc_llm(
        &[
            "run",
            "examples/llm/haiku.wf",
            "--agent",
            "llm",
            "--set",
            "topic=autumn",
            "--format",
            "json",
        ],
        &env,
    );
    let s = summary(&out);
    assert_eq!(
        s["status"],
        "completed",
        "{s} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(s["blackboard"]["haiku"], "leaves fall", "{s}");
    assert_eq!(s["llm"]["calls"], 2);
    let first = seen.lock().unwrap()[0].clone();
    assert!(first.contains("Write a haiku about autumn."), "{first}");
    assert!(
        first.contains("context_updates: must set \\\"haiku\\\" (a string)"),
        "{first}"
    );

    // The `.dot` example: two providers; `review` routes by its label.
    let (anthropic, _) =
        fake_provider(vec![anthropic_answer("def is_pal(s): return s == s[::-1]")]);
    let (openai, seen) = fake_provider(vec![openai_answer(
        "Handle case.\n{\"outcome\": \"success\", \"preferred_label\": \"Rework\", \"notes\": \"case\"}",
    )]);
    let dir = scratch("llm_example_dot");
    let run_dir = dir.join("run");
    let out = wfc_llm(
        &[
            "run",
            "examples/llm/review.dot",
            "--agent",
            "llm",
            "--format",
            "json",
            "--run-dir",
            run_dir.to_str().unwrap(),
        ],
        &[
            ("ANTHROPIC_API_KEY", LLM_KEY),
            ("ANTHROPIC_BASE_URL", anthropic.as_str()),
            ("OPENAI_API_KEY", LLM_KEY),
            ("OPENAI_BASE_URL", openai.as_str()),
        ],
    );
    let s = summary(&out);
    assert_eq!(
        s["status"],
        "completed",
        "{s} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        completed(&run_dir),
        ["start", "implement", "review", "rework", "done"]
    );
    let review = seen.lock().unwrap()[0].clone();
    assert!(review.contains("\"model\":\"gpt-5.4\""), "{review}");
    assert!(
        review.contains("exactly one of: \\\"Approve\\\", \\\"Rework\\\""),
        "{review}"
    );
    assert_no_key(&out, &dir);
}

#[test]
fn llm_agent_calls_a_compatible_server_declared_in_wf_toml() {
    let (base, seen) = fake_provider(vec![(
        200,
        serde_json::json!({
            "id": "c1", "object": "chat.completion", "model": "qwen3",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9}
        })
        .to_string(),
    )]);
    let dir = scratch("llm_compatible");
    std::fs::write(
        dir.join("wf.toml"),
        format!("[llm]\nprovider = \"local\"\nmodel = \"qwen3\"\n[llm.providers.local]\napi = \"openai-chat\"\nbase_url = \"{base}/v1\"\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join("hi.wf"),
        "workflow Hi {\n  step greet { prompt = \"Say hi\" }\n  greet -> done\n}\n",
    )
    .unwrap();
    let out = wfc_llm(
        &[
            "run",
            dir.join("hi.wf").to_str().unwrap(),
            "--agent",
            "llm",
            "--format",
            "json",
        ],
        &[],
    );
    let s = summary(&out);
    assert_eq!(
        s["status"],
        "completed",
        "{s} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(s["blackboard"]["last_response"], "hi");
    // No price for a local model: said, not guessed.
    assert_eq!(s["llm"]["unpriced_models"][0], "qwen3");
    let request = seen.lock().unwrap()[0].clone();
    assert!(
        request.starts_with("POST /v1/chat/completions "),
        "{request}"
    );
    assert!(
        !request.to_ascii_lowercase().contains("authorization:"),
        "{request}"
    );
}

#[test]
fn llm_budget_from_the_graph_attribute_suspends_the_run() {
    let (base, seen) = fake_provider(vec![anthropic_answer("plan")]);
    let dir = scratch("llm_budget_graph");
    let source = std::fs::read_to_string(repo_root().join(fixture("smoke.dot"))).unwrap();
    // 1500 tokens a call: the second call would pass the budget of 1500.
    let source = source.replacen(
        "graph [goal=",
        "graph [max_tokens=1500, model_stylesheet=\"* { llm_model: claude-sonnet-4-6; }\", goal=",
        1,
    );
    std::fs::write(dir.join("smoke.dot"), source).unwrap();
    let out = wfc_llm(
        &[
            "run",
            dir.join("smoke.dot").to_str().unwrap(),
            "--agent",
            "llm",
            "--format",
            "json",
        ],
        &[
            ("ANTHROPIC_API_KEY", LLM_KEY),
            ("ANTHROPIC_BASE_URL", base.as_str()),
        ],
    );
    let s = summary(&out);
    assert_eq!(s["status"], "suspended", "{s}");
    assert!(
        s["reason"]
            .as_str()
            .unwrap()
            .contains("used 1500 tokens of its budget max_tokens = 1500"),
        "{s}"
    );
    assert_eq!(seen.lock().unwrap().len(), 1);
}

/// Issue 17.7: under `--agent auto` a pipeline's tool nodes are simulated
/// (said once on standard error): the node succeeds without running its
/// command, `tool.output` says it was simulated, and `status.json` says so.
/// Parallel branches and child pipelines simulate too.
#[test]
fn tool_nodes_are_simulated_in_a_dry_run() {
    let (out, run_dir, _) = run("tool_simulated", "handlers.dot", "auto", &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let note = "note: tool nodes are simulated (--tools simulate); run them with --tools run (or --allow-tools)\n";
    assert_eq!(stderr.matches(note).count(), 1, "{stderr}");
    let greet = json(&run_dir.join("greet/status.json"));
    assert_eq!(greet["outcome"], "success", "{greet}");
    assert!(
        greet["notes"]
            .as_str()
            .unwrap()
            .starts_with("Tool simulated: "),
        "{greet}"
    );
    let output = greet["context_updates"]["tool.output"].as_str().unwrap();
    assert!(
        output.starts_with("[wfc: simulated (--tools simulate): `"),
        "{output}"
    );

    let (out, _, _) = run("tools_par_simulated", "tools_parallel.dot", "auto", &[]);
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    for r in s["blackboard"]["parallel.results"].as_array().unwrap() {
        assert_eq!(r["outcome"], "success", "{r}");
        let output = r["context_updates"]["tool.output"].as_str().unwrap();
        assert!(output.contains("simulated"), "{r}");
    }
    let (out, _, _) = run("tools_mgr_simulated", "tools_manager.dot", "auto", &[]);
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    assert_eq!(s["blackboard"]["stack.child.status"], "completed", "{s}");
}

/// The seed's section 9.6 lifecycle events of a `.dot` run, as
/// `handler:event`s: (name, node, data) in order, and which carry a
/// `duration_ms`.
fn lifecycle(events: &[Value]) -> Vec<(String, bool)> {
    events
        .iter()
        .filter(|e| e["event"] == "handler:event")
        .filter(|e| {
            let name = e["name"].as_str().unwrap();
            name.starts_with("Pipeline") || name.starts_with("Stage")
        })
        .map(|e| {
            (
                format!(
                    "{} {} {}",
                    e["name"].as_str().unwrap(),
                    e["node"],
                    e["data"]
                ),
                e["duration_ms"].is_u64(),
            )
        })
        .collect()
}

/// Issue 17.4: pipeline and stage events (seed 9.6) with their fields, at
/// their moments: a stage retried then completed, and a failed pipeline.
#[test]
fn pipeline_and_stage_events_follow_the_run() {
    let (out, run_dir, events) = run("lifecycle_retry", "retry.dot", &script("retry.json"), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", summary(&out));
    let expected = [
        (r#"PipelineStarted "start" {"name":"retry"}"#, false),
        (r#"StageStarted "start" {"index":0,"name":"start"}"#, false),
        (
            r#"StageCompleted "start" {"index":0,"name":"start","status":"success"}"#,
            true,
        ),
        (r#"StageStarted "flaky" {"index":1,"name":"flaky"}"#, false),
        (
            r#"StageFailed "flaky" {"error":"rate limited","index":1,"name":"flaky","will_retry":true}"#,
            false,
        ),
        (
            r#"StageRetrying "flaky" {"attempt":2,"delay_ms":200,"index":1,"name":"flaky"}"#,
            false,
        ),
        (
            r#"StageFailed "flaky" {"error":"rate limited","index":1,"name":"flaky","will_retry":true}"#,
            false,
        ),
        (
            r#"StageRetrying "flaky" {"attempt":3,"delay_ms":400,"index":1,"name":"flaky"}"#,
            false,
        ),
        (
            r#"StageCompleted "flaky" {"index":1,"name":"flaky","status":"partial_success"}"#,
            true,
        ),
        (r#"StageStarted "done" {"index":2,"name":"done"}"#, false),
        (r#"PipelineCompleted "done" {"name":"retry"}"#, true),
    ];
    let expected: Vec<(String, bool)> = expected.iter().map(|(s, t)| (s.to_string(), *t)).collect();
    assert_eq!(lifecycle(&events), expected);
    // `CheckpointSaved` when `checkpoint.json` is written: after each
    // stage, at the next one's entry, and at the end.
    let saved: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "handler:event" && e["name"] == "CheckpointSaved")
        .map(|e| &e["data"]["node_id"])
        .collect();
    assert_eq!(saved, ["start", "flaky", "done"]);
    assert_eq!(
        json(&run_dir.join("checkpoint.json"))["current_node"],
        "done"
    );
    // Logged like every event: the run replays.
    let replay = wfc(&["replay", run_dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        replay.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );

    let dir = scratch("lifecycle_fail_script");
    std::fs::create_dir_all(&dir).unwrap();
    let fail = dir.join("fail.json");
    std::fs::write(
        &fail,
        r#"{"fallback": "auto", "nodes": {
            "work": [{"type": "advance", "status": "fail", "failure_reason": "broken"}],
            "fixup": [{"type": "advance", "status": "fail", "failure_reason": "still broken"}]}}"#,
    )
    .unwrap();
    let agent = format!("script:{}", fail.display());
    let (out, _, events) = run("lifecycle_fail", "fail_no_retry.dot", &agent, &[]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let got = lifecycle(&events);
    let tail: Vec<&str> = got[got.len() - 4..]
        .iter()
        .map(|(s, _)| s.as_str())
        .collect();
    assert_eq!(
        tail[0],
        r#"StageFailed "work" {"error":"broken","index":1,"name":"work","will_retry":false}"#
    );
    assert_eq!(
        tail[1],
        r#"StageStarted "fixup" {"index":2,"name":"fixup"}"#
    );
    assert_eq!(
        tail[2],
        r#"StageFailed "fixup" {"error":"still broken","index":2,"name":"fixup","will_retry":false}"#
    );
    assert!(
        tail[3].starts_with(r#"PipelineFailed "fixup" {"error":"#),
        "{}",
        tail[3]
    );
    assert!(
        got.last().unwrap().1,
        "PipelineFailed has the run's duration"
    );
}

/// A `.dot` run suspended at a gate (its checkpoint saved at the
/// suspension), resumed in another process, replays identically: the
/// snapshot keeps the run id and that checkpoints are written.
#[test]
fn a_suspended_pipeline_resumes_and_replays_with_its_checkpoints() {
    let (out, run_dir, _) = run(
        "lifecycle_gate",
        "gate_node.dot",
        &script("no_answer.json"),
        &[],
    );
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let d = run_dir.to_str().unwrap();
    let resumed = wfc(&["run", "--resume", d, "--agent", "auto"])
        .output()
        .unwrap();
    assert_eq!(
        resumed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    let log = text(&run_dir.join("log.jsonl"));
    let records: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let run_ids: std::collections::BTreeSet<&str> =
        records.iter().map(|r| r["run"].as_str().unwrap()).collect();
    assert_eq!(
        run_ids.len(),
        1,
        "one run id across the resume: {run_ids:?}"
    );
    let saved: Vec<&Value> = records
        .iter()
        .flat_map(|r| r["events"].as_array().unwrap())
        .filter(|e| e["name"] == "CheckpointSaved")
        .map(|e| &e["data"]["node_id"])
        .collect();
    assert_eq!(
        saved.first().copied(),
        Some(&Value::from("start")),
        "{saved:?}"
    );
    assert_eq!(
        saved.last().copied(),
        Some(&Value::from("done")),
        "{saved:?}"
    );
    let replay = wfc(&["replay", d]).output().unwrap();
    assert_eq!(
        replay.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );
}

/// A `.dot` run directory from before events had run ids, times and
/// lifecycle events (its log and snapshots stripped of them here) still
/// replays: those are not compared for it.
#[test]
fn a_pipeline_log_without_stamps_or_lifecycle_events_replays() {
    let (out, run_dir, _) = run("lifecycle_legacy", "retry.dot", &script("retry.json"), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", summary(&out));
    let strip = |v: &mut Value| {
        for f in [
            "run",
            "ts",
            "duration_ms",
            "run_id",
            "checkpoints",
            "checkpoint_node",
        ] {
            v.as_object_mut().unwrap().remove(f);
        }
    };
    let log = text(&run_dir.join("log.jsonl"));
    let mut lines = String::new();
    for line in log.lines() {
        let mut r: Value = serde_json::from_str(line).unwrap();
        strip(&mut r);
        let events = r["events"].as_array_mut().unwrap();
        events.retain(|e| {
            !(e["event"] == "handler:event"
                && ["Pipeline", "Stage", "Checkpoint"]
                    .iter()
                    .any(|p| e["name"].as_str().unwrap().starts_with(p)))
        });
        events.iter_mut().for_each(strip);
        lines.push_str(&format!("{r}\n"));
    }
    std::fs::write(run_dir.join("log.jsonl"), lines).unwrap();
    for name in ["start.json", "snapshot.json"] {
        let path = run_dir.join(name);
        let mut snap = json(&path);
        strip(&mut snap);
        std::fs::write(&path, snap.to_string()).unwrap();
    }
    let replay = wfc(&["replay", run_dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        replay.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&replay.stdout),
        String::from_utf8_lossy(&replay.stderr)
    );
}

/// Issue 17 item 7: a dry run leaves a loop the engine's own choice never
/// leaves. Entered again, the simulated `b` names the edge to the exit and
/// says why in its `status.json`; the run is the same every time.
#[test]
fn a_dry_run_takes_the_way_out_of_a_loop() {
    let (out, run_dir, _) = run("dry_loop", "dry_run_loop.dot", "auto", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", summary(&out));
    let path = completed(&run_dir);
    assert_eq!(path, ["start", "a", "b", "a", "b", "done"]);
    assert_eq!(
        json(&run_dir.join("b/status.json"))["notes"],
        "Stage completed: b; dry run: entered again, steered toward an exit by edge `b->done` (outcome success)"
    );
    let (_, again, _) = run("dry_loop_again", "dry_run_loop.dot", "auto", &[]);
    assert_eq!(completed(&again), path);
    // A backend decides by itself: nothing is steered.
    let (out, _, _) = run(
        "dry_loop_plain",
        "dry_run_loop.dot",
        &script("plain.json"),
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
}

/// Issue 17 item 7: the exit needs a context value a stage reports, read
/// at a conditional node; the simulated stage reports it.
#[test]
fn a_dry_run_stage_reports_the_value_the_exit_needs() {
    let (out, run_dir, _) = run("dry_context", "dry_run_context.dot", "auto", &[]);
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    assert_eq!(s["blackboard"]["context.tests"], "green", "{s}");
    assert_eq!(
        completed(&run_dir),
        ["start", "work", "check", "work", "check", "done"]
    );
}

/// Issue 17 item 7: a simulated tool prints what the condition after it
/// looks for (`tool.output contains …`).
#[test]
fn a_dry_run_tool_prints_what_the_loop_waits_for() {
    let (out, run_dir, _) = run("dry_tool", "dry_run_tool.dot", "auto", &[]);
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    assert_eq!(s["blackboard"]["tool.output"], "all_complete", "{s}");
    assert_eq!(s["blackboard"]["poll.stdout"], "all_complete", "{s}");
    assert_eq!(
        completed(&run_dir),
        ["start", "poll", "ready", "poll", "ready", "done"]
    );
}

/// Issue 17 item 7: a loop whose only way out needs an outcome no handler
/// returns stays a failure, at once, naming the loop and the condition.
#[test]
fn a_dry_run_names_the_condition_that_keeps_a_loop_closed() {
    let (out, _, _) = run("dry_stuck", "dry_run_stuck.dot", "auto", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        summary(&out)["reason"],
        "node `implement` of workflow `dry_run_stuck` failed: dry run: no exit can be reached from `implement` (the loop `implement → gate → implement`): every way out needs what no stage can report: edge `gate->exit` needs `outcome=done`, an outcome no handler returns (they return success, partial_success, retry, fail, skipped); no edge condition matched the failure and the node has no retry_target"
    );
}

/// Issue 17 item 7: a dry run simulates a handler type this engine does
/// not know, as it simulates tools, and says what a real run needs.
#[test]
fn a_dry_run_simulates_unknown_handler_types() {
    let (out, run_dir, _) = run("dry_custom", "custom.dot", "auto", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", summary(&out));
    assert_eq!(
        json(&run_dir.join("odd/status.json"))["notes"],
        "Handler simulated: this engine does not know the type `my.custom`; a real run needs `--handler my.custom=exec:COMMAND`"
    );
}

/// Issue 17 item 7: a human gate without choices fails the run; a dry run
/// aims for the exit, not for it.
#[test]
fn a_dry_run_does_not_aim_for_a_gate_without_choices() {
    let (out, run_dir, _) = run("dry_halt", "dry_run_halt.dot", "auto", &[]);
    let s = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{s}");
    assert_eq!(s["blackboard"]["context.ok"], "yes", "{s}");
    assert_eq!(completed(&run_dir).last().map(String::as_str), Some("done"));
}

/// fabro's `outcome=succeeded`/`outcome=failed` route as written: the
/// engine reads them as `success` and `fail` (before, neither held, and
/// every visit took the edge back to `implement` until `max_visits`);
/// `wfc check` does not warn about them.
#[test]
fn peer_outcome_spellings_route_as_written() {
    let out = wfc(&["check", &fixture("peer_outcomes.dot")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    // Only the loop's information (WF0201): no warning.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.ends_with("checked 1 file: 1 info\n"), "{stdout}");
    let (out, run_dir, _) = run("peer_auto", "peer_outcomes.dot", "auto", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", summary(&out));
    assert_eq!(
        completed(&run_dir),
        ["start", "implement", "verify", "exit"]
    );
    let agent = script("verify_fails_once.json");
    let (out, run_dir, _) = run("peer_script", "peer_outcomes.dot", &agent, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", summary(&out));
    assert_eq!(
        completed(&run_dir),
        ["start", "implement", "verify", "fix", "verify", "exit"]
    );
}
