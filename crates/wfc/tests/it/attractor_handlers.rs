//! The Attractor handlers of `wait.human`, `parallel`, `parallel.fan_in`
//! and `stack.manager_loop` on real `.dot` pipelines (fixtures in
//! `tests/run/dot/parity/handlers/`, and parallel variants written here):
//! each handler's firing and failure paths, every join and error policy,
//! the interviewers as `wfc run` uses them.

use crate::common::dot;

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use dot::{api_run, build, fixture, scratch};
use serde_json::{Value, json};
use wf_vm::attractor::interviewer::{AutoApprove, Queue};
use wf_vm::{
    AgentError, Decision, DecisionAgent, DecisionContext, Outcome, Report, RunStatus, Status, Write,
};

fn handlers(name: &str) -> PathBuf {
    fixture(&format!("parity/handlers/{name}"))
}

/// A backend that fails at the listed nodes and succeeds elsewhere,
/// writing `score` where one is given.
struct Backend {
    fail: &'static [&'static str],
    scores: &'static [(&'static str, f64)],
}

impl DecisionAgent for Backend {
    fn decide(&mut self, ctx: &DecisionContext<'_>) -> Result<Decision, AgentError> {
        let id = ctx.str(ctx.node.id);
        if ctx.is_terminal() {
            return Ok(Decision::Complete { writes: vec![] });
        }
        let mut o = Outcome::success();
        if self.fail.contains(&id) {
            o.status = Status::Fail;
            o.failure_reason = Some(format!("{id} broke"));
        }
        if let Some((_, s)) = self.scores.iter().find(|(n, _)| *n == id) {
            o.writes.push(Write {
                key: "score".into(),
                value: json!(s),
            });
        }
        Ok(Decision::Advance(o))
    }
}

fn get<'r>(r: &'r Report, key: &str) -> Option<&'r Value> {
    r.blackboard
        .0
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v)
}

fn failed_reason(r: &Report) -> &str {
    match &r.status {
        RunStatus::Failed { reason } => reason,
        other => panic!("expected a failed run, got {other:?}"),
    }
}

// ---- wait.human ----

#[test]
fn human_gate_routes_on_the_answer_and_records_it() {
    let p = build(&handlers("gate_plain.dot")).unwrap();
    let run = api_run(
        &p,
        &scratch("h-route"),
        None,
        None,
        Some(Box::new(Queue::from_lines(["H"]))),
        |_| {},
    );
    assert_eq!(run.report.status, RunStatus::Completed);
    assert!(
        run.events.contains(&"node:enter hold".to_owned()),
        "{:?}",
        run.events
    );
    assert_eq!(get(&run.report, "human.gate.selected"), Some(&json!("H")));
    assert_eq!(
        get(&run.report, "human.gate.label"),
        Some(&json!("[H] Hold"))
    );
    for e in ["InterviewStarted", "InterviewCompleted"] {
        assert!(
            run.events.contains(&format!("handler:event {e}")),
            "{:?}",
            run.events
        );
    }
}

#[test]
fn human_gate_auto_approve_takes_the_first_choice() {
    let p = build(&handlers("gate_plain.dot")).unwrap();
    let run = api_run(
        &p,
        &scratch("h-auto"),
        None,
        None,
        Some(Box::new(AutoApprove)),
        |_| {},
    );
    assert!(
        run.events.contains(&"node:enter ship".to_owned()),
        "{:?}",
        run.events
    );
}

#[test]
fn human_gate_timeout_takes_the_default_choice() {
    let p = build(&handlers("gate_timeout.dot")).unwrap();
    let run = api_run(
        &p,
        &scratch("h-timeout"),
        None,
        None,
        Some(Box::new(Queue::from_lines(["!timeout"]))),
        |_| {},
    );
    assert_eq!(run.report.status, RunStatus::Completed);
    assert!(
        run.events.contains(&"node:enter hold".to_owned()),
        "{:?}",
        run.events
    );
    assert!(
        run.events
            .contains(&"handler:event InterviewTimeout".to_owned())
    );
}

#[test]
fn human_gate_timeout_without_default_fails_after_retries() {
    let p = build(&handlers("gate_plain.dot")).unwrap();
    let run = api_run(
        &p,
        &scratch("h-timeout-nodef"),
        None,
        None,
        Some(Box::new(Queue::from_lines(["!timeout"]))),
        |_| {},
    );
    let reason = failed_reason(&run.report);
    assert!(
        reason.contains("human gate timeout, no default"),
        "{reason}"
    );
}

#[test]
fn human_gate_skipped_or_unknown_answer_fails() {
    let p = build(&handlers("gate_plain.dot")).unwrap();
    let run = api_run(
        &p,
        &scratch("h-skip"),
        None,
        None,
        Some(Box::new(Queue::from_lines(["!skip"]))),
        |_| {},
    );
    assert!(failed_reason(&run.report).contains("human skipped interaction"));
    let run = api_run(
        &p,
        &scratch("h-bad"),
        None,
        None,
        Some(Box::new(Queue::from_lines(["maybe"]))),
        |_| {},
    );
    let reason = failed_reason(&run.report);
    assert!(
        reason.contains("`maybe` names none of the choices ([S] Ship, [H] Hold)"),
        "{reason}"
    );
}

// ---- parallel and parallel.fan_in ----

/// A fan-out to `a`, `b`, `c` with `attrs` on the parallel node; every
/// branch meets at `join`.
/// A scratch directory of its own for each call (tests run in parallel).
fn fresh(what: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    scratch(&format!("{what}-{}", N.fetch_add(1, Ordering::Relaxed)))
}

fn fan_out(attrs: &str) -> Result<wf_ir::IrProgram, String> {
    let dir = fresh("par-src");
    let f = dir.join("p.dot");
    std::fs::write(
        &f,
        format!(
            "digraph P {{
  start [shape=Mdiamond]
  fan [shape=component{attrs}]
  a [prompt=\"A\"]
  b [prompt=\"B\"]
  c [prompt=\"C\"]
  join [shape=tripleoctagon]
  done [shape=Msquare]
  start -> fan
  fan -> a
  fan -> b
  fan -> c
  a -> join
  b -> join
  c -> join
  join -> done
}}"
        ),
    )
    .unwrap();
    build(&f)
}

fn par_run(attrs: &str, fail: &'static [&'static str]) -> Report {
    let p = fan_out(attrs).unwrap();
    let backend = Backend {
        fail,
        scores: &[("b", 2.0), ("c", 5.0)],
    };
    api_run(
        &p,
        &fresh("par-run"),
        None,
        Some(Box::new(backend)),
        None,
        |_| {},
    )
    .report
}

fn results(r: &Report) -> Vec<(String, String)> {
    get(r, "parallel.results")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|x| {
                    (
                        x["id"].as_str().unwrap().to_owned(),
                        x["outcome"].as_str().unwrap().to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[test]
fn parallel_wait_all_succeeds_and_fan_in_picks_the_best_score() {
    let r = par_run("", &[]);
    assert_eq!(r.status, RunStatus::Completed);
    assert_eq!(
        results(&r),
        pairs(&[("a", "success"), ("b", "success"), ("c", "success")])
    );
    assert_eq!(
        get(&r, "parallel.fan_in.best_id"),
        Some(&json!("c")),
        "c has the best score"
    );
    assert_eq!(get(&r, "score"), None, "branch writes stay in the branch");
}

#[test]
fn parallel_wait_all_with_a_failure_is_partial_and_fan_in_skips_it() {
    let r = par_run("", &["c"]);
    assert_eq!(r.status, RunStatus::Completed);
    assert_eq!(
        results(&r),
        pairs(&[("a", "success"), ("b", "success"), ("c", "fail")])
    );
    assert_eq!(get(&r, "parallel.failure_count"), Some(&json!(1)));
    assert_eq!(get(&r, "parallel.fan_in.best_id"), Some(&json!("b")));
}

#[test]
fn parallel_first_success_runs_until_one_succeeds() {
    let r = par_run(", join_policy=first_success", &["a"]);
    assert_eq!(r.status, RunStatus::Completed);
    assert_eq!(
        results(&r),
        pairs(&[("a", "fail"), ("b", "success"), ("c", "skipped")])
    );
    let r = par_run(", join_policy=first_success", &["a", "b", "c"]);
    assert!(failed_reason(&r).contains("none of the 3 branches succeeded"));
}

#[test]
fn parallel_k_of_n_needs_k() {
    let r = par_run(", join_policy=k_of_n, join_k=2", &["a"]);
    assert_eq!(r.status, RunStatus::Completed);
    let r = par_run(", join_policy=k_of_n, join_k=2", &["a", "b"]);
    let reason = failed_reason(&r);
    assert!(
        reason.contains("1 of 3 branches succeeded; join_policy=k_of_n needs 2"),
        "{reason}"
    );
}

#[test]
fn parallel_quorum_needs_a_majority() {
    assert_eq!(
        par_run(", join_policy=quorum", &["a"]).status,
        RunStatus::Completed
    );
    let r = par_run(", join_policy=quorum", &["a", "b"]);
    assert!(failed_reason(&r).contains("join_policy=quorum needs 2"));
}

#[test]
fn parallel_fail_fast_stops_at_the_first_failure() {
    let r = par_run(", error_policy=fail_fast", &["b"]);
    let reason = failed_reason(&r);
    assert!(
        reason.contains("branch `b` failed (error_policy=fail_fast)"),
        "{reason}"
    );
    assert_eq!(
        results(&r),
        pairs(&[("a", "success"), ("b", "fail"), ("c", "skipped")])
    );
}

#[test]
fn parallel_continue_runs_every_branch() {
    let r = par_run(", error_policy=continue", &["a"]);
    assert_eq!(r.status, RunStatus::Completed);
    assert_eq!(results(&r).len(), 3);
}

#[test]
fn parallel_ignore_drops_failures() {
    let r = par_run(", error_policy=ignore", &["a"]);
    assert_eq!(r.status, RunStatus::Completed);
    assert_eq!(results(&r), pairs(&[("b", "success"), ("c", "success")]));
}

/// `wfc check` refuses a bad policy before the run (the handler's own
/// check, for IR written by hand, is unit-tested in wf-vm).
#[test]
fn parallel_bad_policy_is_refused() {
    let e = fan_out(", join_policy=most").unwrap_err();
    assert!(e.contains("unknown join policy `most`"), "{e}");
}

#[test]
fn fan_in_without_results_fails() {
    let p = build(&handlers("fan_in_alone.dot")).unwrap();
    let run = api_run(&p, &scratch("fanin-alone"), None, None, None, |_| {});
    assert!(failed_reason(&run.report).contains("No parallel results to evaluate"));
}

#[test]
fn fan_in_fails_when_every_candidate_failed() {
    let r = par_run(", join_policy=k_of_n, join_k=1", &["a", "b", "c"]);
    // k_of_n fails first; with wait_all the join is partial and fan-in fails.
    assert!(failed_reason(&r).contains("k_of_n"));
    let r = par_run("", &["a", "b", "c"]);
    assert!(failed_reason(&r).contains("all 3 parallel candidates failed"));
}

// ---- stack.manager_loop ----

fn manager(name: &str) -> Report {
    let f = handlers(name);
    let p = build(&f).unwrap();
    api_run(
        &p,
        &scratch(&format!("mgr-{name}")),
        f.parent(),
        None,
        None,
        |_| {},
    )
    .report
}

#[test]
fn manager_supervises_a_child_to_completion() {
    let r = manager("manager.dot");
    assert_eq!(r.status, RunStatus::Completed, "{r:?}");
    assert_eq!(get(&r, "stack.child.status"), Some(&json!("completed")));
    assert_eq!(get(&r, "stack.child.current_node"), Some(&json!("done")));
}

/// A pipeline compiled without being checked, as IR from elsewhere may
/// be: `wfc check` refuses what the run time must refuse again.
fn unchecked(text: &str) -> wf_ir::IrProgram {
    let lowered = wf_analysis::db::formats::lower_dot(wf_diagnostics::FileId(0), text);
    let program = wf_model::Program {
        workflows: lowered.workflows.iter().map(|w| (**w).clone()).collect(),
    };
    let mut sources = wf_diagnostics::Sources::new();
    sources.add("unchecked.dot", text);
    wf_compile::compile_with(&program, &sources).unwrap()
}

#[test]
fn manager_with_a_missing_child_fails_clearly() {
    let f = handlers("manager_missing.dot");
    let p = unchecked(&std::fs::read_to_string(&f).unwrap());
    let r = api_run(&p, &scratch("mgr-missing"), f.parent(), None, None, |_| {}).report;
    let reason = failed_reason(&r);
    assert!(reason.contains("no_such_child.dot"), "{reason}");
    assert!(reason.contains("cannot run"), "{reason}");
}

/// Issue 14, item 2: a child pipeline path is confined like an import at
/// run time too, and no file but a pipeline inside the root is read.
#[test]
fn manager_child_paths_are_confined_to_the_project() {
    let dir = fresh("mgr-confined");
    let project = dir.join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(dir.join("outside.dot"), "SECRET-OUTSIDE").unwrap();
    std::fs::write(project.join("notes.txt"), "SECRET-NOTES").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("../outside.dot", project.join("link.dot")).unwrap();
    let mut cases = vec![
        ("/etc/passwd", "absolute paths are not allowed (WF0108)"),
        ("../outside.dot", "leaves the project root"),
        (
            "notes.txt",
            "does not name a `.dot`, `.fabro` or `.gv` pipeline (WF0110)",
        ),
    ];
    if cfg!(unix) {
        cases.push(("link.dot", "through a symbolic link"));
    }
    for (child, why) in cases {
        let p = unchecked(&format!(
            "digraph M {{\n start [shape=Mdiamond]\n m [shape=house, stack.child_dotfile=\"{child}\"]\n done [shape=Msquare]\n start -> m -> done\n}}\n"
        ));
        let r = api_run(
            &p,
            &fresh("mgr-confined-run"),
            Some(&project),
            None,
            None,
            |_| {},
        )
        .report;
        let reason = failed_reason(&r);
        assert!(reason.contains(why), "{child}: {reason}");
        assert!(
            !reason.contains("SECRET") && !reason.contains("root:"),
            "{reason}"
        );
    }
}

#[test]
fn manager_fails_after_max_cycles() {
    let r = manager("manager_loop.dot");
    let reason = failed_reason(&r);
    assert!(reason.contains("Max cycles exceeded (3"), "{reason}");
    // A failed node's valid writes are kept: the telemetry says why.
    assert_eq!(get(&r, "stack.child.status"), Some(&json!("running")));
    assert_eq!(get(&r, "stack.child.cycles"), Some(&json!(3)));
}

#[test]
fn manager_stops_on_its_stop_condition() {
    let r = manager("manager_stop.dot");
    assert_eq!(r.status, RunStatus::Completed, "{r:?}");
    assert_eq!(get(&r, "stack.child.status"), Some(&json!("running")));
}

#[test]
fn manager_reports_a_failed_child() {
    let f = handlers("manager.dot");
    let p = build(&f).unwrap();
    let backend = Backend {
        fail: &["build"],
        scores: &[],
    };
    let run = api_run(
        &p,
        &scratch("mgr-childfail"),
        f.parent(),
        Some(Box::new(backend)),
        None,
        |_| {},
    );
    let reason = failed_reason(&run.report);
    assert!(reason.contains("Child failed"), "{reason}");
}

// ---- `wfc run --interviewer` and child pipelines from the CLI ----

#[test]
fn cli_answers_file_answers_the_gate() {
    let dir = fresh("cli-answers");
    let answers = dir.join("answers.txt");
    std::fs::write(&answers, "# the review gate\nR\n").unwrap();
    let spec = format!("answers:{}", answers.display());
    let (code, report) = dot::run(&fixture("parity/12_human.dot"), &["--interviewer", &spec]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["blackboard"]["last_stage"], "fix");
    assert_eq!(report["blackboard"]["human.gate.selected"], "R");
}

#[test]
fn cli_console_interviewer_reads_stdin_and_skips_at_its_end() {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let f = fixture("parity/12_human.dot");
    let mut child = Command::new(insta_cmd::get_cargo_bin("wfc"))
        .args([
            "run",
            f.to_str().unwrap(),
            "--interviewer",
            "console",
            "--format",
            "json",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"maybe\napprove\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["blackboard"]["last_stage"], "ship", "{report}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("[?] Ship it?\n  [A] Approve\n  [R] Reject\n"),
        "{err}"
    );
    assert!(err.contains("`maybe` is not an answer"), "{err}");
    // No input at all: no answer, and without a run directory the gate
    // fails, naming the way to make it wait (17.2).
    let (code, report) = dot::run(&f, &["--interviewer", "console"]);
    assert_eq!(code, 1);
    assert!(
        report["reason"]
            .as_str()
            .unwrap()
            .contains("no answer to the question of gate `"),
        "{report}"
    );
}

#[test]
fn cli_unknown_interviewer_is_refused() {
    let out = dot::wfc(&[
        "run",
        fixture("parity/12_human.dot").to_str().unwrap(),
        "--interviewer",
        "slack",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown interviewer `slack`: expected `auto`, `console` or `answers:FILE`"),
        "{err}"
    );
}

#[test]
fn cli_manager_runs_its_child_relative_to_the_pipeline() {
    let dir = fresh("cli-manager");
    let rd = dir.join("run");
    let (code, report) = dot::run(
        &handlers("manager.dot"),
        &["--run-dir", rd.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["blackboard"]["stack.child.status"], "completed");
    assert!(rd.join("manager/child/build/response.md").is_file());
    // A missing child is a check error: the run is refused before it starts.
    let missing = handlers("manager_missing.dot");
    let out = dot::wfc(&["run", missing.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("error[WF0107]: child pipeline `no_such_child.dot` not found"),
        "{stderr}"
    );
}

/// Issue 14, item 2: `wfc check` and `wfc run` refuse a manager pointing at
/// `/etc/passwd`, and never print its lines.
#[test]
fn cli_refuses_a_child_pipeline_outside_the_project() {
    let dir = fresh("cli-passwd");
    let f = dir.join("m.dot");
    std::fs::write(
        &f,
        "digraph M {\n start [shape=Mdiamond]\n m [shape=house, stack.child_dotfile=\"/etc/passwd\"]\n done [shape=Msquare]\n start -> m -> done\n}\n",
    )
    .unwrap();
    // `wfc run` refuses a file with check errors with status 2.
    for (command, status) in [("check", 1), ("run", 2)] {
        let out = dot::wfc(&[command, f.to_str().unwrap()]);
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(status), "{command}: {all}");
        assert!(
            all.contains("error[WF0108]: child pipeline path `/etc/passwd` is absolute"),
            "{all}"
        );
        assert!(
            !all.contains("root:"),
            "{command} printed /etc/passwd: {all}"
        );
    }
}

#[test]
fn parallel_branch_leading_back_to_its_fan_out_fails_that_branch() {
    let dir = fresh("par-loop");
    let f = dir.join("loop.dot");
    std::fs::write(
        &f,
        "digraph L {
  start [shape=Mdiamond]
  fan [shape=component]
  a [prompt=\"A\"]
  b [prompt=\"B\"]
  join [shape=tripleoctagon]
  done [shape=Msquare]
  start -> fan
  fan -> a
  fan -> b
  a -> join
  b -> fan
  join -> done
}",
    )
    .unwrap();
    let p = build(&f).unwrap();
    let run = api_run(&p, &fresh("par-loop-run"), None, None, None, |_| {});
    assert_eq!(run.report.status, RunStatus::Completed);
    let results = get(&run.report, "parallel.results").unwrap();
    assert_eq!(results[1]["id"], "b");
    assert_eq!(results[1]["outcome"], "fail");
    let why = results[1]["failure_reason"].as_str().unwrap();
    assert!(why.contains("came back to its own fan-out node"), "{why}");
}

#[test]
fn cli_console_timeout_takes_the_default_choice() {
    use std::process::{Command, Stdio};
    let f = handlers("gate_quick_timeout.dot");
    let mut child = Command::new(insta_cmd::get_cargo_bin("wfc"))
        .args([
            "run",
            f.to_str().unwrap(),
            "--interviewer",
            "console",
            "--format",
            "json",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Standard input stays open and silent: the question times out.
    let _open = child.stdin.take();
    let out = child.wait_with_output().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["blackboard"]["last_stage"], "hold", "{report}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("(no answer in time)"), "{err}");
}
