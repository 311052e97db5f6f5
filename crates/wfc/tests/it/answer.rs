//! `wfc answer` (issue 17.2): a durable run waits at a question nobody
//! answers; `wfc status` lists it; `wfc answer`, in another process,
//! records an answer in the run's log; `wfc run --resume` applies it to
//! the node and visit that asked, and to no other. Each test's transcript
//! (arguments, exit status, stdout, stderr of every command) is a snapshot
//! in `tests/run/answer/snapshots/`; scratch paths and times are filtered.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use insta_cmd::get_cargo_bin;
use serde_json::Value;

use crate::common::repo_root;

const GATE: &str = "tests/run/answer/gate.dot";

/// A fresh scratch run directory (not created).
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("wfc-answer-tests")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.parent().unwrap()).unwrap();
    dir
}

fn wfc(args: &[&str]) -> Command {
    let mut cmd = Command::new(get_cargo_bin("wfc"));
    cmd.current_dir(repo_root())
        .args(args)
        .env("NO_COLOR", "1")
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null());
    cmd
}

/// Runs the commands in turn, each in a process of its own, and returns
/// their transcript; `dir` is shown as `DIR`.
struct Transcript {
    dir: String,
    text: String,
}

impl Transcript {
    fn new(dir: &Path) -> Self {
        Transcript {
            dir: dir.to_str().unwrap().to_owned(),
            text: String::new(),
        }
    }

    /// Runs `wfc ARGS` (`DIR` stands for the run directory) and returns
    /// its exit status.
    fn run(&mut self, args: &[&str]) -> i32 {
        let args: Vec<String> = args.iter().map(|a| a.replace("DIR", &self.dir)).collect();
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = wfc(&refs).output().unwrap();
        let code = out.status.code().unwrap_or(-1);
        let clean = |b: &[u8]| {
            let t = String::from_utf8_lossy(b).replace(&self.dir, "DIR");
            let t = regex_lite(&t);
            t.trim_end().to_owned()
        };
        let shown: Vec<String> = refs.iter().map(|a| a.replace(&self.dir, "DIR")).collect();
        self.text.push_str(&format!(
            "$ wfc {}\n[exit {code}]\n--- stdout\n{}\n--- stderr\n{}\n\n",
            shown.join(" "),
            clean(&out.stdout),
            clean(&out.stderr)
        ));
        code
    }
}

/// Times (`12ms`, `"elapsed_ms": 12`) replaced by `[TIME]`.
fn regex_lite(text: &str) -> String {
    let text: String = text
        .lines()
        .map(|l| match l.find("\"elapsed_ms\": ") {
            Some(i) => format!("{}\"elapsed_ms\": [TIME],", &l[..i]),
            None => l.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    let text = text.as_str();
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("ms") {
        let head = &rest[..i];
        let digits = head.len() - head.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 && rest[i + 2..].starts_with(')') {
            out.push_str(&head[..head.len() - digits]);
            out.push_str("[TIME]");
        } else {
            out.push_str(head);
            out.push_str("ms");
        }
        rest = &rest[i + 2..];
    }
    out.push_str(rest);
    out
}

fn snapshot(name: &str, transcript: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(repo_root().join("tests/run/answer/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    crate::common::redact_stamps(&mut settings);
    settings.bind(|| insta::assert_snapshot!(name, transcript));
}

fn log_lines(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("log.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A `.dot` gate with no one to answer suspends a durable run (exit 3);
/// `wfc status` shows the question; wrong answers are refused (exit 2)
/// and record nothing; `wfc answer` in another process records one; the
/// resumed run follows it, suspends at the freeform gate, whose text
/// answer it writes to `human.gate.text`; the whole run replays.
#[test]
fn a_dot_gate_waits_is_answered_in_another_process_and_resumes() {
    let dir = scratch("dot-gate");
    let mut t = Transcript::new(&dir);
    let run = ["run", GATE, "--interviewer", "console", "--run-dir", "DIR"];
    assert_eq!(t.run(&run), 3);
    assert_eq!(t.run(&["status", "DIR"]), 0);
    assert_eq!(t.run(&["status", "DIR", "--format", "json"]), 0);
    let before = std::fs::read(dir.join("log.jsonl")).unwrap();
    // Not an option, a stale or foreign question id, text for a choice.
    assert_eq!(t.run(&["answer", "DIR", "maybe"]), 2);
    assert_eq!(t.run(&["answer", "DIR", "--question", "review#2", "A"]), 2);
    assert_eq!(t.run(&["answer", "DIR", "--question", "note#1", "A"]), 2);
    assert_eq!(t.run(&["answer", "DIR", "--text", "yes"]), 2);
    assert_eq!(std::fs::read(dir.join("log.jsonl")).unwrap(), before);
    assert_eq!(
        t.run(&["answer", "DIR", "--question", "review#1", "approve"]),
        0
    );
    let resume = ["run", "--resume", "DIR", "--interviewer", "console"];
    assert_eq!(t.run(&resume), 3);
    assert_eq!(t.run(&["status", "DIR"]), 0);
    assert_eq!(t.run(&["answer", "DIR", "A"]), 2);
    assert_eq!(t.run(&["answer", "DIR", "--text", "Ship on Monday"]), 0);
    assert_eq!(t.run(&resume), 0);
    assert_eq!(t.run(&["replay", "DIR"]), 0);
    assert_eq!(t.run(&["answer", "DIR", "A"]), 2);
    snapshot("dot_gate", &t.text);
    // The answers are in the log, each after the step that suspended.
    let answers: Vec<Value> = log_lines(&dir)
        .into_iter()
        .filter_map(|l| l.get("answer").cloned())
        .collect();
    assert_eq!(answers.len(), 2);
    assert_eq!(answers[0]["question"], "review#1");
    assert_eq!(answers[1]["text"], "Ship on Monday");
}

/// A `.wf` `human` node where the agent suspended: answered with `wfc
/// answer`, the resumed run takes the chosen edge (the agent is not asked
/// there), and the run replays.
#[test]
fn a_wf_human_node_is_answered_and_resumes() {
    let dir = scratch("wf-human");
    let mut t = Transcript::new(&dir);
    let script = "script:tests/run/suspend.json";
    let run = [
        "run",
        "tests/run/approve.wf",
        "--agent",
        script,
        "--run-dir",
        "DIR",
    ];
    assert_eq!(t.run(&run), 3);
    assert_eq!(t.run(&["status", "DIR"]), 0);
    assert_eq!(t.run(&["answer", "DIR", "--text", "ok"]), 2);
    assert_eq!(t.run(&["answer", "DIR", "R"]), 0);
    // Answering again before the resume replaces the answer.
    assert_eq!(t.run(&["answer", "DIR", "--question", "review#1", "1"]), 0);
    assert_eq!(t.run(&["run", "--resume", "DIR", "--agent", script]), 0);
    assert_eq!(t.run(&["replay", "DIR"]), 0);
    snapshot("wf_human", &t.text);
}

/// Without a run directory a gate nobody answers fails the run, naming
/// `--run-dir` and `wfc answer`.
#[test]
fn without_a_run_dir_an_unanswered_gate_fails() {
    let dir = scratch("no-dir");
    let mut t = Transcript::new(&dir);
    assert_eq!(t.run(&["run", GATE, "--interviewer", "console"]), 1);
    snapshot("no_run_dir", &t.text);
}

/// `wfc answer` refuses a run held by a process (the run is waiting at the
/// console), a run that does not exist, and a run that waits on no
/// question.
#[test]
fn answer_refuses_a_run_in_progress() {
    let dir = scratch("in-use");
    let d = dir.to_str().unwrap();
    let mut child = wfc(&["run", GATE, "--interviewer", "console", "--run-dir", d])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until it holds the lock (it then waits for a line).
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        let out = wfc(&["status", d, "--format", "json"]).output().unwrap();
        if out.status.success() {
            let state: Value = serde_json::from_slice(&out.stdout).unwrap();
            if state["state"] == "running" && state["at"]["node"] == "review" {
                break;
            }
        }
        assert!(Instant::now() < until, "the run never reached the gate");
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = wfc(&["answer", d, "A"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "run directory {d} is in use by process {}",
            child.id()
        )),
        "{err}"
    );
    assert!(err.contains("help: the run is in progress"), "{err}");
    // The person answers at the console after all.
    child.stdin.take().unwrap().write_all(b"R\n").unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0));
    let mut t = Transcript::new(&dir);
    assert_eq!(t.run(&["answer", "DIR", "A"]), 2);
    assert_eq!(t.run(&["answer", "tests/run/no-such-run", "A"]), 2);
    let agent_error = scratch("agent-error");
    let mut t2 = Transcript::new(&agent_error);
    assert_eq!(
        t2.run(&[
            "run",
            "examples/hello.wf",
            "--agent",
            "exec:false",
            "--run-dir",
            "DIR"
        ]),
        3
    );
    assert_eq!(t2.run(&["answer", "DIR", "A"]), 2);
    t.text.push_str(&t2.text);
    snapshot("refused", &t.text);
}

/// The answers in the log are checked on resume: a corrupt record, or one
/// for a node that asks nothing, is an error naming the log (exit 2); an
/// answer for another question than the one the run waits on is never
/// applied: the gate asks again and the run waits again.
#[test]
fn answers_in_the_log_are_checked_and_apply_to_their_question_only() {
    let dir = scratch("checked");
    let d = dir.to_str().unwrap();
    let run = ["run", GATE, "--interviewer", "console", "--run-dir", d];
    assert_eq!(wfc(&run).output().unwrap().status.code(), Some(3));
    let log = dir.join("log.jsonl");
    let clean = std::fs::read_to_string(&log).unwrap();
    let lines = clean.lines().count();
    let mut t = Transcript::new(&dir);
    let resume = ["run", "--resume", "DIR", "--interviewer", "console"];
    for (record, code) in [
        (r#"{"answer":{"question":"review#1"}}"#, 2),
        (
            r#"{"answer":{"question":"done#1","workflow":"gate","node":"done","visit":1,"choice":{"key":"A","label":"[A] Approve"}}}"#,
            2,
        ),
        (
            r#"{"answer":{"question":"review#2","workflow":"gate","node":"review","visit":1,"choice":{"key":"A","label":"[A] Approve"}}}"#,
            2,
        ),
        // A well-formed answer to a question the run does not wait on.
        (
            r#"{"answer":{"question":"note#1","workflow":"gate","node":"note","visit":1,"text":"hi"}}"#,
            3,
        ),
    ] {
        std::fs::write(&log, format!("{clean}{record}\n")).unwrap();
        assert_eq!(t.run(&resume), code, "{record}");
        if code == 2 {
            // Refused before anything ran: the log is as it was.
            assert_eq!(
                std::fs::read_to_string(&log).unwrap().lines().count(),
                lines + 1
            );
            std::fs::write(&log, &clean).unwrap();
        }
    }
    // The foreign answer was not used: the run waits at `review` again.
    assert_eq!(t.run(&["status", "DIR"]), 0);
    snapshot("checked", &t.text);
}

/// A `.wf` freeform `human` node (`freeform = true`): the run waits at
/// both questions in turn; the choice routes, the text is written to the
/// node's one declared key; the run replays.
#[test]
fn a_wf_freeform_question_is_answered_with_text() {
    let dir = scratch("wf-freeform");
    let mut t = Transcript::new(&dir);
    let script = "script:tests/run/answer/wait.json";
    let run = [
        "run",
        "tests/run/answer/release.wf",
        "--agent",
        script,
        "--run-dir",
        "DIR",
    ];
    assert_eq!(t.run(&run), 3);
    assert_eq!(
        t.run(&["answer", "DIR", "--question", "review#1", "approve"]),
        0
    );
    let resume = [
        "run", "--resume", "DIR", "--agent", script, "--format", "json",
    ];
    assert_eq!(t.run(&resume), 3);
    assert_eq!(t.run(&["status", "DIR", "--format", "json"]), 0);
    assert_eq!(t.run(&["answer", "DIR", "--question", "note#1", "A"]), 2);
    assert_eq!(t.run(&["answer", "DIR", "--text", "Fixes the\nbug"]), 0);
    assert_eq!(t.run(&resume), 0);
    assert_eq!(t.run(&["replay", "DIR"]), 0);
    snapshot("wf_freeform", &t.text);
}

/// At the console, a freeform `human` node reads a line of text.
#[test]
fn the_console_reads_a_freeform_answer() {
    let mut child = wfc(&[
        "run",
        "tests/run/answer/release.wf",
        "--agent",
        "console",
        "--format",
        "json",
    ])
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    // start, the choice, the text, ship's outcome and its `shipped` value.
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"\nA\nhello there\n\ntrue\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["status"], "completed", "{report}");
    assert_eq!(
        report["blackboard"]["release.note"], "hello there",
        "{report}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("Your answer (free text, or `suspend`): "),
        "{err}"
    );
}

/// Multi-select questions, `.wf` (`choices = multiple`) and `.dot`
/// (`mode="multiple"`): answered with several options in another process;
/// a name that is not an option, or a lone text, is refused; the chosen
/// labels are written as a list; both runs replay.
#[test]
fn multi_select_questions_take_several_options() {
    let dir = scratch("wf-multiple");
    let mut t = Transcript::new(&dir);
    let script = "script:tests/run/answer/deploy.json";
    let run = [
        "run",
        "tests/run/answer/deploy.wf",
        "--agent",
        script,
        "--run-dir",
        "DIR",
    ];
    assert_eq!(t.run(&run), 3);
    assert_eq!(t.run(&["status", "DIR", "--format", "json"]), 0);
    assert_eq!(t.run(&["answer", "DIR", "L", "beos"]), 2);
    assert_eq!(t.run(&["answer", "DIR", "--text", "linux"]), 2);
    assert_eq!(t.run(&["answer", "DIR", "W", "linux", "w"]), 0);
    assert_eq!(t.run(&["run", "--resume", "DIR", "--agent", script]), 0);
    assert_eq!(t.run(&["replay", "DIR"]), 0);
    let dot = scratch("dot-multiple");
    let mut d = Transcript::new(&dot);
    let run = [
        "run",
        "tests/run/answer/multi.dot",
        "--interviewer",
        "console",
        "--run-dir",
        "DIR",
    ];
    assert_eq!(d.run(&run), 3);
    assert_eq!(d.run(&["status", "DIR"]), 0);
    assert_eq!(
        d.run(&["answer", "DIR", "--question", "targets#1", "M", "3"]),
        0
    );
    assert_eq!(d.run(&["run", "--resume", "DIR"]), 0);
    assert_eq!(d.run(&["replay", "DIR"]), 0);
    t.text.push_str(&d.text);
    snapshot("multiple", &t.text);
}

/// At the console, a multi-select `.wf` node reads comma-separated
/// options (asking again after a name that is not one).
#[test]
fn the_console_reads_a_multi_select_answer() {
    let mut child = wfc(&[
        "run",
        "tests/run/answer/deploy.wf",
        "--agent",
        "console",
        "--format",
        "json",
    ])
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    // start, a wrong pick, the picks, deploy's outcome and its value.
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"\nbeos\nm, [L] Linux\n\ntrue\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["status"], "completed", "{report}");
    assert_eq!(
        report["blackboard"]["deploy.targets"],
        serde_json::json!(["[M] Mac", "[L] Linux"]),
        "{report}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`beos` does not name the options."), "{err}");
}

const BRANCHES: &str = "tests/run/answer/branches.dot";

/// The final blackboard of `wfc run … --format json`'s summary.
fn blackboard(out: &std::process::Output) -> Value {
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    summary["blackboard"].clone()
}

/// Issue 17.2/17.6: gates in parallel branches wait. Branches `a` and `b`
/// both reach the gate `review` (one node id), branch `c` has none. The
/// run suspends once `c` finished, listing both questions, each id naming
/// its branch; `wfc answer` without `--question` refuses and names them,
/// and an id without its branch is refused. Answering `b` only: the
/// resume finishes `b` (its gate takes `Reject`) and suspends again on
/// `a`; answering `a` finishes the run. Each answer reached its own
/// branch; `c` ran once and `a`'s first node once (the branch went on
/// from its gate); the run ends as an uninterrupted interactive run with
/// the same answers; the resumed run replays.
#[test]
fn gates_in_parallel_branches_wait_and_each_answer_reaches_its_branch() {
    let dir = scratch("branches");
    let mut t = Transcript::new(&dir);
    let run = [
        "run",
        BRANCHES,
        "--interviewer",
        "console",
        "--run-dir",
        "DIR",
    ];
    assert_eq!(t.run(&run), 3);
    assert_eq!(t.run(&["status", "DIR"]), 0);
    assert_eq!(t.run(&["status", "DIR", "--format", "json"]), 0);
    let before = std::fs::read(dir.join("log.jsonl")).unwrap();
    assert_eq!(t.run(&["answer", "DIR", "A"]), 2);
    assert_eq!(t.run(&["answer", "DIR", "--question", "review#1", "A"]), 2);
    assert_eq!(std::fs::read(dir.join("log.jsonl")).unwrap(), before);
    assert_eq!(
        t.run(&["answer", "DIR", "--question", "fan#1/b/review#1", "R"]),
        0
    );
    assert_eq!(t.run(&["status", "DIR"]), 0);
    let resume = ["run", "--resume", "DIR", "--interviewer", "console"];
    assert_eq!(t.run(&resume), 3);
    assert_eq!(t.run(&["status", "DIR"]), 0);
    assert_eq!(t.run(&["answer", "DIR", "approve"]), 0);
    let d = dir.to_str().unwrap();
    let done = wfc(&[
        "run",
        "--resume",
        d,
        "--interviewer",
        "console",
        "--format",
        "json",
    ])
    .output()
    .unwrap();
    assert_eq!(done.status.code(), Some(0));
    assert_eq!(t.run(&["replay", "DIR"]), 0);
    snapshot("branches", &t.text);

    // The answers reached their branches, not each other's.
    let resumed = blackboard(&done);
    let label = |id: &str| {
        let results = resumed["parallel.results"].as_array().unwrap();
        let r = results.iter().find(|r| r["id"] == id).unwrap();
        r["context_updates"]["human.gate.label"].clone()
    };
    assert_eq!(label("a"), "[A] Approve");
    assert_eq!(label("b"), "[R] Reject");
    // As an interactive run answered at the console (a's gate asks first).
    let events = dir.with_extension("live-events.jsonl");
    let _ = std::fs::remove_file(&events);
    let mut live = wfc(&[
        "run",
        BRANCHES,
        "--interviewer",
        "console",
        "--format",
        "json",
        "--events",
        events.to_str().unwrap(),
    ]);
    let mut child = live
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"A\nR\n").unwrap();
    let live = child.wait_with_output().unwrap();
    assert_eq!(live.status.code(), Some(0));
    assert_eq!(blackboard(&live), resumed);
    // The branches' events too: each branch's, in edge order, once.
    let logged = log_lines(&dir)
        .into_iter()
        .flat_map(|l| l["events"].as_array().cloned().unwrap_or_default());
    let streamed = std::fs::read_to_string(&events).unwrap();
    let streamed = streamed.lines().map(|l| serde_json::from_str(l).unwrap());
    let logged = branch_events(logged);
    assert!(logged.len() > 10, "{logged:?}");
    assert_eq!(logged, branch_events(streamed));
    // Each branch node entered once over the three processes.
    let mut entered: Vec<String> = Vec::new();
    for line in log_lines(&dir) {
        for e in line["events"].as_array().into_iter().flatten() {
            let ev = &e["data"]["event"];
            if e["name"] == "ParallelBranchEvent"
                && ev["event"] == "node:enter"
                && ev["node"] != "join"
            {
                entered.push(format!(
                    "{}:{}",
                    e["data"]["branch"].as_str().unwrap(),
                    ev["node"].as_str().unwrap()
                ));
            }
        }
    }
    entered.sort();
    assert_eq!(
        entered,
        ["a:a", "a:review", "b:b", "b:review", "c:c"],
        "{entered:?}"
    );
}

/// The trace of a run's log: per step, its engine events and, for each
/// parallel branch event, the branch's node exits and edges.
fn branch_trace(dir: &Path) -> String {
    let mut out = String::new();
    for line in log_lines(dir) {
        let Some(step) = line["step"].as_u64() else {
            out.push_str(&format!(
                "answer {}\n",
                line["answer"]["question"].as_str().unwrap_or("?")
            ));
            continue;
        };
        for e in line["events"].as_array().into_iter().flatten() {
            let name = e["event"].as_str().unwrap_or("");
            if name.starts_with("engine:") {
                out.push_str(&format!(
                    "{step} {name} {}\n",
                    e["node"].as_str().unwrap_or("")
                ));
                continue;
            }
            let (ev, branch) = (
                &e["data"]["event"],
                e["data"]["branch"].as_str().unwrap_or(""),
            );
            match (e["name"].as_str(), ev["event"].as_str()) {
                (Some("ParallelBranchEvent"), Some("node:exit")) => out.push_str(&format!(
                    "{step} branch {branch}: node:exit {} {}\n",
                    ev["node"].as_str().unwrap(),
                    ev["status"].as_str().unwrap()
                )),
                (Some("ParallelBranchEvent"), Some("edge:traverse")) => out.push_str(&format!(
                    "{step} branch {branch}: edge {} -> {}\n",
                    ev["from"].as_str().unwrap(),
                    ev["to"].as_str().unwrap()
                )),
                (Some("ParallelBranchCompleted"), _) => out.push_str(&format!(
                    "{step} branch {} completed{}\n",
                    e["data"]["branch"].as_str().unwrap(),
                    if e["data"]["resumed"] == true {
                        " (resumed)"
                    } else {
                        ""
                    }
                )),
                _ => {}
            }
        }
    }
    out
}

/// Issue 17.2/17.6: a `.wf` `human` node in parallel branches waits. The
/// script agent suspends at `review` in branches `a` and `b` (one node
/// id); the run suspends with both questions, each scoped to its branch.
/// The resumed script skips those two answers (docs/agents.md, "Resumed
/// scripts"): its third suspends `a` again.
/// Answered one by one across processes (`b` first: the resume suspends
/// again on `a`), each answer takes its own branch's edge (`a` ships, `b`
/// is rejected), no branch node runs twice, the run ends as an
/// uninterrupted run whose agent gave the same answers, and it replays.
/// The trace is `tests/run/answer/branches_wf.trace`.
#[test]
fn a_wf_human_node_in_parallel_branches_waits_and_each_answer_reaches_its_branch() {
    let dir = scratch("wf-branches");
    let mut t = Transcript::new(&dir);
    let script = "script:tests/run/answer/branches.json";
    let wf = "tests/run/answer/branches.wf";
    assert_eq!(
        t.run(&["run", wf, "--agent", script, "--run-dir", "DIR"]),
        3
    );
    assert_eq!(t.run(&["status", "DIR"]), 0);
    assert_eq!(t.run(&["answer", "DIR", "R"]), 2);
    assert_eq!(
        t.run(&["answer", "DIR", "--question", "fan#1/b/review#1", "R"]),
        0
    );
    let resume = [
        "run", "--resume", "DIR", "--agent", script, "--format", "json",
    ];
    assert_eq!(t.run(&resume), 3);
    assert_eq!(
        t.run(&["answer", "DIR", "--question", "fan#1/a/review#1", "A"]),
        0
    );
    let d = dir.to_str().unwrap();
    let done = wfc(&["run", "--resume", d, "--agent", script, "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(done.status.code(), Some(0));
    assert_eq!(t.run(&["replay", "DIR"]), 0);
    snapshot("wf_branches", &t.text);
    let live = wfc(&[
        "run",
        wf,
        "--agent",
        "script:tests/run/answer/branches_live.json",
        "--format",
        "json",
    ])
    .output()
    .unwrap();
    assert_eq!(live.status.code(), Some(0));
    assert_eq!(blackboard(&live), blackboard(&done));
    let got = branch_trace(&dir);
    let file = repo_root().join("tests/run/answer/branches_wf.trace");
    // `UPDATE_TRACES=1` rewrites the expectation (review its diff).
    if std::env::var_os("UPDATE_TRACES").is_some() {
        std::fs::write(&file, &got).unwrap();
    }
    assert_eq!(got, std::fs::read_to_string(&file).unwrap(), "{got}");
}

/// Issue 17.2: a gate in a child pipeline (`stack.manager_loop`) waits.
/// The child's gate `review` and the parent's gate `review` share a node
/// id: the run suspends on the child's question
/// (`manager#1/child/review#1`), whose answer reaches the child only (the
/// parent's gate asks next, and the run waits again); the resumed child
/// goes on from its gate, the run ends as an interactive one answered at
/// the console (but for `stack.child.steps`, which counts the child's
/// suspension as a step), and it replays.
#[test]
fn a_gate_in_a_child_pipeline_waits_and_its_answer_reaches_the_child_only() {
    let dir = scratch("manager");
    let mut t = Transcript::new(&dir);
    let dot = "tests/run/answer/manager.dot";
    let run = ["run", dot, "--interviewer", "console", "--run-dir", "DIR"];
    assert_eq!(t.run(&run), 3);
    assert_eq!(t.run(&["status", "DIR"]), 0);
    assert_eq!(t.run(&["answer", "DIR", "--question", "review#1", "R"]), 2);
    assert_eq!(t.run(&["answer", "DIR", "R"]), 0);
    let resume = ["run", "--resume", "DIR", "--interviewer", "console"];
    assert_eq!(t.run(&resume), 3);
    assert_eq!(t.run(&["answer", "DIR", "Y"]), 0);
    let d = dir.to_str().unwrap();
    let done = wfc(&[
        "run",
        "--resume",
        d,
        "--interviewer",
        "console",
        "--format",
        "json",
    ])
    .output()
    .unwrap();
    assert_eq!(done.status.code(), Some(0));
    assert_eq!(t.run(&["replay", "DIR"]), 0);
    snapshot("manager", &t.text);
    let mut live = wfc(&["run", dot, "--interviewer", "console", "--format", "json"]);
    let mut child = live
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"R\nY\n").unwrap();
    let live = child.wait_with_output().unwrap();
    assert_eq!(live.status.code(), Some(0));
    let (mut resumed, mut live) = (blackboard(&done), blackboard(&live));
    assert_eq!(resumed["stack.child.steps"], 5);
    assert_eq!(live["stack.child.steps"], 4);
    resumed.as_object_mut().unwrap().remove("stack.child.steps");
    live.as_object_mut().unwrap().remove("stack.child.steps");
    assert_eq!(resumed, live);
    // The child's gate took the answer (its exchange in the child's run
    // directory).
    let interview = dir.join("manager/child/review/interview.json");
    let exchange: Value =
        serde_json::from_str(&std::fs::read_to_string(interview).unwrap()).unwrap();
    assert_eq!(exchange["answer"]["selected_option"]["label"], "[R] Reject");
}

/// The parallel branches' events among `events`: branch, event, node, and
/// a lifecycle event's name.
fn branch_events(events: impl Iterator<Item = Value>) -> Vec<String> {
    events
        .filter(|e| e["name"] == "ParallelBranchEvent")
        .map(|e| {
            let ev = &e["data"]["event"];
            let s = |v: &Value| v.as_str().unwrap_or("").to_owned();
            format!(
                "{} {} {} {}",
                s(&e["data"]["branch"]),
                s(&ev["event"]),
                s(&ev["node"]),
                s(&ev["name"])
            )
        })
        .collect()
}

/// A pipeline resumed with no answer suspends again at the same gate; its
/// checkpoint events then name the stage that ended last, as a replay from
/// the start derives them, so the run still replays (this diverged at
/// `CheckpointSaved` before).
#[test]
fn a_gate_resumed_without_an_answer_waits_again_and_the_run_replays() {
    let dir = scratch("again");
    let d = dir.to_str().unwrap();
    let code = |args: &[&str]| wfc(args).output().unwrap().status.code();
    let resume = ["run", "--resume", d, "--interviewer", "console"];
    assert_eq!(
        code(&["run", GATE, "--interviewer", "console", "--run-dir", d]),
        Some(3)
    );
    assert_eq!(code(&resume), Some(3));
    assert_eq!(code(&["answer", d, "A"]), Some(0));
    assert_eq!(code(&resume), Some(3));
    assert_eq!(code(&resume), Some(3));
    assert_eq!(code(&["answer", d, "--text", "Monday"]), Some(0));
    assert_eq!(code(&resume), Some(0));
    let out = wfc(&["replay", d]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Issue 17.6 under `wfc run`: the answers `wfc answer` recorded for gates
/// in `.wf` branches reach their branches when the branches run at once
/// (the wrapper that applies them forks with the script agent, its forks
/// sharing the answers): both answered before one resume, `a` approves and
/// ships, `b` rejects, each from its own question id, and the resumed
/// fan-out ran its branches at once.
#[test]
fn answers_reach_their_branches_when_the_branches_run_at_once() {
    let dir = scratch("wf-branches-at-once");
    let d = dir.to_str().unwrap();
    let script = "script:tests/run/answer/branches.json";
    let wf = "tests/run/answer/branches.wf";
    let out = wfc(&["run", wf, "--agent", script, "--run-dir", d])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    for (q, choice) in [("fan#1/a/review#1", "A"), ("fan#1/b/review#1", "R")] {
        let out = wfc(&["answer", d, "--question", q, choice])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
    }
    let events = dir.parent().unwrap().join("wf-branches-at-once.jsonl");
    let e = events.to_str().unwrap();
    let args = ["run", "--resume", d, "--agent", script, "--format", "json"];
    let out = wfc(&[&args[..], &["--events", e]].concat())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let mut ran: Vec<String> = Vec::new();
    let mut concurrency = Vec::new();
    for line in std::fs::read_to_string(&events).unwrap().lines() {
        let e: Value = serde_json::from_str(line).unwrap();
        if e["name"] == "ParallelStarted" {
            concurrency.push(e["data"]["concurrency"].clone());
        }
        let ev = &e["data"]["event"];
        if e["name"] == "ParallelBranchEvent" && ev["event"] == "node:exit" {
            ran.push(format!("{}:{}", e["data"]["branch"], ev["node"]));
        }
    }
    // The last fan-out (the one that went through) ran 3 branches at once.
    assert_eq!(concurrency.last(), Some(&Value::from(3)), "{concurrency:?}");
    ran.sort();
    let want = [
        r#""a":"a""#,
        r#""a":"review""#,
        r#""a":"ship""#,
        r#""b":"b""#,
        r#""b":"review""#,
        r#""c":"c""#,
    ];
    assert_eq!(ran, want, "{ran:?}");
    let out = wfc(&["replay", d]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

/// How often the log's events, at any depth (branch events hold their
/// branch's, nested fan-outs theirs), enter node `node`.
fn entered_anywhere(dir: &Path, node: &str) -> usize {
    fn walk(v: &Value, node: &str) -> usize {
        match v {
            Value::Object(m) => {
                let here = usize::from(
                    m.get("event") == Some(&"node:enter".into())
                        && m.get("node") == Some(&node.into()),
                );
                here + m.values().map(|v| walk(v, node)).sum::<usize>()
            }
            Value::Array(a) => a.iter().map(|v| walk(v, node)).sum(),
            _ => 0,
        }
    }
    log_lines(dir)
        .iter()
        .map(|l| walk(&l["events"], node))
        .sum()
}

/// Runs `dot` durably until its one nested gate waits, checks `wfc
/// status` lists `question`, answers `R`, resumes to the end and replays;
/// then runs it at the console answering `R`. Returns the run directory
/// and both final blackboards.
fn nested_gate(name: &str, dot: &str, question: &str) -> (PathBuf, Value, Value) {
    let dir = scratch(name);
    let d = dir.to_str().unwrap();
    let run = wfc(&["run", dot, "--interviewer", "console", "--run-dir", d])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(3), "{err}");
    let status = wfc(&["status", d]).output().unwrap();
    let listed = String::from_utf8_lossy(&status.stdout);
    assert!(
        listed.contains(&format!("question `{question}` (choice)")),
        "{listed}"
    );
    let answer = wfc(&["answer", d, "R"]).output().unwrap();
    assert_eq!(answer.status.code(), Some(0), "{answer:?}");
    let done = wfc(&[
        "run",
        "--resume",
        d,
        "--interviewer",
        "console",
        "--format",
        "json",
    ])
    .stdin(Stdio::null())
    .output()
    .unwrap();
    let err = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(0), "{err}");
    let replay = wfc(&["replay", d]).output().unwrap();
    assert_eq!(replay.status.code(), Some(0), "{replay:?}");
    let mut live = wfc(&["run", dot, "--interviewer", "console", "--format", "json"]);
    let mut child = live
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"R\n").unwrap();
    let live = child.wait_with_output().unwrap();
    assert_eq!(live.status.code(), Some(0));
    (dir, blackboard(&done), blackboard(&live))
}

/// Issue 17.2: a gate in a fan-out nested in a branch waits. The run
/// suspends on `outer#1/x/inner#1/p/review#1`; answered, the resumed run
/// restores the branch `x` at its fan-out and the inner branch `p` at its
/// gate, which takes the answer: `x` and `p` ran once, and the run ends
/// as one answered at the console. Before, the gate failed its branch
/// ("branches cannot suspend").
#[test]
fn a_gate_in_a_fan_out_nested_in_a_branch_waits_and_takes_its_answer() {
    let q = "outer#1/x/inner#1/p/review#1";
    let (dir, resumed, live) = nested_gate("nested_gate", "tests/run/answer/nested.dot", q);
    assert_eq!(resumed, live);
    let x = &resumed["parallel.results"][0];
    assert_eq!(x["id"], "x");
    let p = &x["context_updates"]["parallel.results"][0];
    assert_eq!(
        p["context_updates"]["human.gate.label"], "[R] Reject",
        "{p}"
    );
    assert_eq!(entered_anywhere(&dir, "x"), 1);
    assert_eq!(entered_anywhere(&dir, "p"), 1);
}

/// Issue 17.2: a gate in a fan-out of a child pipeline waits. The run
/// suspends on `boss#1/child/fan#1/p/review#1`; answered, the resumed
/// run restores the child at its fan-out and the branch at its gate,
/// which takes the answer. The run ends as one answered at the console,
/// but for `stack.child.steps`, which counts the child's suspension.
#[test]
fn a_gate_in_a_child_pipelines_fan_out_waits_and_takes_its_answer() {
    let q = "boss#1/child/fan#1/p/review#1";
    let (dir, mut resumed, mut live) =
        nested_gate("child_fan_gate", "tests/run/answer/manager_fan.dot", q);
    // The child's gate took the answer (its exchange in the child's run
    // directory); the child's first stage ran once.
    let interview = dir.join("boss/child/review/interview.json");
    let exchange: Value =
        serde_json::from_str(&std::fs::read_to_string(interview).unwrap()).unwrap();
    assert_eq!(exchange["answer"]["selected_option"]["label"], "[R] Reject");
    assert_eq!(resumed["stack.child.steps"], 6);
    assert_eq!(live["stack.child.steps"], 5);
    resumed.as_object_mut().unwrap().remove("stack.child.steps");
    live.as_object_mut().unwrap().remove("stack.child.steps");
    assert_eq!(resumed, live);
}

/// Issue 17.2/17.6: a gate below a manager node in a branch waits (it
/// failed its branch before). The gate in the child's fan-out and the
/// pipeline's own gate in branch `y` share the node id `review`: the run
/// suspends on both, each id naming where it is; answered one by one in
/// other processes, each answer reaches its own gate only (`y` approves,
/// the child's gate rejects), the branch `boss` is restored with its
/// child (kept in the branch's own folder, not in the run directory's
/// node folder, which branches share), and the run replays. Nothing runs
/// twice: the script has one answer for each stage and no fallback, so a
/// stage asked again would suspend the run on an agent error.
#[test]
fn a_gate_below_a_manager_in_a_branch_waits_and_each_answer_reaches_its_gate() {
    let dir = scratch("manager_in_branch");
    let mut t = Transcript::new(&dir);
    let dot = "tests/run/answer/manager_in_branch.dot";
    let script = "script:tests/run/answer/manager_in_branch.json";
    let run = [
        "run",
        dot,
        "--agent",
        script,
        "--interviewer",
        "console",
        "--run-dir",
        "DIR",
    ];
    assert_eq!(t.run(&run), 3);
    assert_eq!(t.run(&["status", "DIR"]), 0);
    assert_eq!(t.run(&["answer", "DIR", "R"]), 2);
    assert_eq!(
        t.run(&["answer", "DIR", "--question", "outer#1/y/review#1", "A"]),
        0
    );
    let resume = [
        "run",
        "--resume",
        "DIR",
        "--agent",
        script,
        "--interviewer",
        "console",
    ];
    assert_eq!(t.run(&resume), 3);
    let inner = "outer#1/boss/boss#1/child/fan#1/p/review#1";
    assert_eq!(t.run(&["answer", "DIR", "--question", inner, "R"]), 0);
    let d = dir.to_str().unwrap();
    let done = wfc(&[
        "run",
        "--resume",
        d,
        "--agent",
        script,
        "--interviewer",
        "console",
        "--format",
        "json",
    ])
    .output()
    .unwrap();
    assert_eq!(done.status.code(), Some(0), "{done:?}");
    assert_eq!(t.run(&["replay", "DIR"]), 0);
    snapshot("manager_in_branch", &t.text);
    let results = &blackboard(&done)["parallel.results"];
    assert_eq!(results[0]["id"], "boss");
    assert_eq!(results[0]["outcome"], "success", "{results}");
    assert_eq!(results[1]["id"], "y");
    assert_eq!(
        results[1]["context_updates"]["human.gate.label"],
        "[A] Approve"
    );
    let kept = dir.join("outer/branches/step-1/0/boss/child.waiting.json");
    assert!(kept.is_file(), "{}", kept.display());
    assert!(!dir.join("boss/child.waiting.json").exists());
    let interview = dir.join("boss/child/review/interview.json");
    let exchange: Value =
        serde_json::from_str(&std::fs::read_to_string(interview).unwrap()).unwrap();
    assert_eq!(exchange["question"]["id"], inner);
    assert_eq!(exchange["answer"]["selected_option"]["label"], "[R] Reject");
    assert_eq!(entered_anywhere(&dir, "y"), 1);
}

/// Issue 17.2/17.6: a gate in a child pipeline's own child waits. The
/// run suspends on `boss#1/child/sub#1/child/review#1`; each manager keeps
/// its child in its own folder (the inner one in the outer child's), the
/// resumed run restores both, and the inner gate takes the answer. The
/// run ends as one answered at the console, but for `stack.child.steps`,
/// which counts the child's suspension.
#[test]
fn a_gate_in_a_child_pipelines_own_child_waits_and_takes_its_answer() {
    let q = "boss#1/child/sub#1/child/review#1";
    let (dir, mut resumed, mut live) =
        nested_gate("child_child_gate", "tests/run/answer/manager_nest.dot", q);
    let interview = dir.join("boss/child/sub/child/review/interview.json");
    let exchange: Value =
        serde_json::from_str(&std::fs::read_to_string(interview).unwrap()).unwrap();
    assert_eq!(exchange["question"]["id"], q);
    assert_eq!(exchange["answer"]["selected_option"]["label"], "[R] Reject");
    let inner = dir.join("boss/child-journals/step-1/sub/child.waiting.json");
    assert!(inner.is_file(), "{}", inner.display());
    // Where it was asked names each manager on the way, as its id does.
    let asked = std::fs::read_to_string(dir.join("questions.jsonl")).unwrap();
    assert!(
        asked.contains(
            "the child pipeline of manager node `sub`, in the child pipeline of manager node `boss`"
        ),
        "{asked}"
    );
    resumed.as_object_mut().unwrap().remove("stack.child.steps");
    live.as_object_mut().unwrap().remove("stack.child.steps");
    assert_eq!(resumed, live);
}

/// The log as lines of a trace, at any depth: each step's engine events,
/// the answers, and each branch's node exits, edges and completion,
/// prefixed by the branches on the way (`a: p: …`).
fn nested_trace(dir: &Path) -> String {
    fn walk(out: &mut String, step: u64, prefix: &str, e: &Value) {
        let name = e["event"].as_str().unwrap_or("");
        let data = &e["data"];
        match (name, e["name"].as_str()) {
            ("handler:event", Some("ParallelBranchEvent")) => {
                let branch = data["branch"].as_str().unwrap_or("?");
                walk(out, step, &format!("{prefix}{branch}: "), &data["event"]);
            }
            ("handler:event", Some("ParallelBranchCompleted")) => out.push_str(&format!(
                "{step} {prefix}branch {} completed{}\n",
                data["branch"].as_str().unwrap_or("?"),
                if data["resumed"] == true {
                    " (resumed)"
                } else {
                    ""
                }
            )),
            ("node:exit", _) => out.push_str(&format!(
                "{step} {prefix}node:exit {} {}\n",
                e["node"].as_str().unwrap_or(""),
                e["status"].as_str().unwrap_or("")
            )),
            ("edge:traverse", _) => out.push_str(&format!(
                "{step} {prefix}edge {} -> {}\n",
                e["from"].as_str().unwrap_or(""),
                e["to"].as_str().unwrap_or("")
            )),
            (n, _) if n.starts_with("engine:") => out.push_str(&format!(
                "{step} {prefix}{n} {}\n",
                e["node"].as_str().unwrap_or("")
            )),
            _ => {}
        }
    }
    let mut out = String::new();
    for line in log_lines(dir) {
        let Some(step) = line["step"].as_u64() else {
            out.push_str(&format!(
                "answer {}\n",
                line["answer"]["question"].as_str().unwrap_or("?")
            ));
            continue;
        };
        for e in line["events"].as_array().into_iter().flatten() {
            walk(&mut out, step, "", e);
        }
    }
    out
}

/// Issue 17.2/17.6: a `.wf` `human` node in a fan-out nested in a branch
/// (in the workflow the branch calls) waits; it failed its branch before.
/// It and the root workflow's `human` node in branch `c` share the node id
/// `review`: the run suspends on both (`outer#1/a/fan#1/p/review#1`,
/// `outer#1/c/review#1`). `c` answered first, the resumed run goes on in
/// `c` alone and suspends again on `a`; answered, `a` is restored at its
/// fan-out and `p` at its gate. Each answer takes its own edge (`c`
/// rejects, `p` ships), no node runs twice (the script has one answer
/// for each step and no fallback: a node asked again would suspend the
/// run on an agent error), the run replays. The trace is
/// `tests/run/answer/nested_wf.trace`.
#[test]
fn a_wf_human_node_in_a_nested_fan_out_waits_and_each_answer_reaches_its_place() {
    let dir = scratch("wf-nested");
    let mut t = Transcript::new(&dir);
    let script = "script:tests/run/answer/nested_wf.json";
    let wf = "tests/run/answer/nested_wf.wf";
    assert_eq!(
        t.run(&["run", wf, "--agent", script, "--run-dir", "DIR"]),
        3
    );
    assert_eq!(t.run(&["status", "DIR"]), 0);
    assert_eq!(
        t.run(&["answer", "DIR", "--question", "outer#1/c/review#1", "R"]),
        0
    );
    let resume = ["run", "--resume", "DIR", "--agent", script];
    assert_eq!(t.run(&resume), 3);
    assert_eq!(t.run(&["status", "DIR"]), 0);
    let inner = "outer#1/a/fan#1/p/review#1";
    assert_eq!(t.run(&["answer", "DIR", "--question", inner, "A"]), 0);
    assert_eq!(t.run(&resume), 0);
    assert_eq!(t.run(&["replay", "DIR"]), 0);
    snapshot("wf_nested", &t.text);
    for node in ["p", "q", "c", "ship", "start"] {
        let n = entered_anywhere(&dir, node);
        assert!(n <= 2, "`{node}` entered {n} times");
    }
    assert_eq!(entered_anywhere(&dir, "p"), 1);
    assert_eq!(entered_anywhere(&dir, "ship"), 1);
    assert_eq!(entered_anywhere(&dir, "ship_c"), 0);
    let got = nested_trace(&dir);
    let file = repo_root().join("tests/run/answer/nested_wf.trace");
    // `UPDATE_TRACES=1` rewrites the expectation (review its diff).
    if std::env::var_os("UPDATE_TRACES").is_some() {
        std::fs::write(&file, &got).unwrap();
    }
    assert_eq!(got, std::fs::read_to_string(&file).unwrap(), "{got}");
}

/// The branches whose completion the log tells as taken from a journal
/// (`resumed`), at any depth, in the log's order.
fn resumed_branches(dir: &Path) -> Vec<String> {
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                if m.get("name") == Some(&"ParallelBranchCompleted".into())
                    && m["data"]["resumed"] == true
                {
                    out.push(m["data"]["branch"].as_str().unwrap_or("?").to_owned());
                }
                m.values().for_each(|v| walk(v, out));
            }
            Value::Array(a) => a.iter().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for l in log_lines(dir) {
        walk(&l["events"], &mut out);
    }
    out
}

/// Issue 17.2/17.6: an agent error in a fan-out nested in a branch
/// suspends the run (it failed the outer branch before, "branches cannot
/// suspend"), naming both branches on the way; `--resume` tries again:
/// the outer branch `x` runs again from its start, its inner fan-out
/// takes `q`, which had finished, from its journal, `y` is not run again
/// either, and the run replays. In a child pipeline (`manager_error.dot`
/// supervises the same pipeline) the manager keeps its child where the
/// error stopped it, and the resumed run restores it there.
#[test]
fn an_agent_error_in_a_nested_fan_out_suspends_the_run_and_resume_tries_again() {
    let down = "script:tests/run/answer/nested_error_down.json";
    let up = "script:tests/run/answer/nested_error_up.json";
    for (name, dot, why) in [
        (
            "nested_error",
            "tests/run/answer/nested_error.dot",
            "parallel branch `x`: ",
        ),
        (
            "manager_error",
            "tests/run/answer/manager_error.dot",
            "the child pipeline of manager node `boss`: ",
        ),
    ] {
        let dir = scratch(name);
        let d = dir.to_str().unwrap();
        let out = wfc(&[
            "run",
            dot,
            "--agent",
            down,
            "--run-dir",
            d,
            "--format",
            "json",
        ])
        .output()
        .unwrap();
        assert_eq!(out.status.code(), Some(3), "{out:?}");
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["status"], "suspended", "{report}");
        let reason = report["reason"].as_str().unwrap_or_default();
        assert!(reason.contains(why), "{reason}");
        assert!(
            reason.contains("parallel branch `p`: ")
                && reason.contains("the script has no answer left for node `nested_error/p`"),
            "{reason}"
        );
        let out = wfc(&["run", "--resume", d, "--agent", up, "--format", "json"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let done: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(done["status"], "completed", "{done}");
        let out = wfc(&["replay", d]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        if name == "nested_error" {
            assert_eq!(resumed_branches(&dir), ["q", "y"]);
            assert_eq!(entered_anywhere(&dir, "x"), 1);
            assert_eq!(entered_anywhere(&dir, "p"), 1);
        } else {
            let kept: Value = serde_json::from_str(
                &std::fs::read_to_string(dir.join("boss/child.waiting.json")).unwrap(),
            )
            .unwrap();
            assert_eq!(kept["question"], Value::Null, "{kept}");
        }
    }
}

/// Issue 17.1/17.6: an agent error in a `.wf` parallel branch, and in a
/// `.wf` fan-out nested in one through a call, suspends a durable run
/// (exit 3) rather than failing the branch; `--resume` runs the branches
/// the error stopped again (their first nodes are asked again) while the
/// branch that finished comes from the journal, and the run replays.
#[test]
fn an_agent_error_in_a_wf_branch_suspends_the_run_and_resume_tries_again() {
    let dir = scratch("wf_branch_error");
    let d = dir.to_str().unwrap();
    let wf = "tests/run/answer/wf_branch_error.wf";
    let down = "script:tests/run/answer/wf_branch_error_down.json";
    let up = "script:tests/run/answer/wf_branch_error_up.json";
    let out = wfc(&[
        "run",
        wf,
        "--agent",
        down,
        "--run-dir",
        d,
        "--format",
        "json",
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["status"], "suspended", "{report}");
    let reason = report["reason"].as_str().unwrap_or_default();
    for said in [
        "an agent error stopped 2 branches of parallel node `fan`",
        "branch `p`: the agent failed at node `q`",
        "branch `deep`: ",
        "an agent error stopped a branch of parallel node `inner`: branch `y`",
    ] {
        assert!(reason.contains(said), "{said}: {reason}");
    }
    let hint = String::from_utf8_lossy(&out.stderr);
    assert!(hint.contains("tries the step again"), "{hint}");
    // The script of the resume has no answer for `r`: asking it again
    // would be an agent error, and the run would not complete.
    let out = wfc(&["run", "--resume", d, "--agent", up, "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let done: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["blackboard"]["built_q"], true, "{done}");
    // `r` ran once (its events, journaled while the run was suspended,
    // are told once when the fan-out ends); `p`'s first run, which the
    // error cut, left none.
    assert_eq!(entered_anywhere(&dir, "r"), 1);
    assert_eq!(entered_anywhere(&dir, "p"), 1);
    let out = wfc(&["replay", d]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

/// Issue 17.2/17.6: the agent's own suspension at a `.wf` branch's step
/// that asks no question suspends a durable run (it failed the branch:
/// "branches cannot suspend"); `--resume` runs that branch again, the
/// finished one comes from the journal, and the run replays.
#[test]
fn an_agents_suspension_in_a_wf_branch_suspends_the_run() {
    let dir = scratch("wf_branch_suspend");
    let d = dir.to_str().unwrap();
    let wf = "tests/run/answer/wf_branch_suspend.wf";
    let down = "script:tests/run/answer/wf_branch_suspend_down.json";
    let up = "script:tests/run/answer/wf_branch_suspend_up.json";
    let out = wfc(&[
        "run",
        wf,
        "--agent",
        down,
        "--run-dir",
        d,
        "--format",
        "json",
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["status"], "suspended", "{report}");
    let reason = report["reason"].as_str().unwrap_or_default();
    assert_eq!(
        reason,
        "the agent suspended a branch of parallel node `fan`: branch `p`: waiting for the build farm"
    );
    assert_eq!(report["failures"], serde_json::json!([]), "{report}");
    let out = wfc(&["run", "--resume", d, "--agent", up, "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let done: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["blackboard"]["built_p"], true, "{done}");
    assert_eq!(done["blackboard"]["built_r"], true, "{done}");
    assert_eq!(entered_anywhere(&dir, "r"), 1);
    let out = wfc(&["replay", d]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}
