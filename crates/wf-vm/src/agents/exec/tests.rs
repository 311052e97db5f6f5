use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;

use super::*;
use crate::agent::{Outcome, Status, Write};
use crate::tools::fixture::{Board, all_edges, context, program};

/// Decides once at the `ask` node with a small blackboard.
fn decide(agent: &mut ExecAgent) -> Result<Decision, AgentError> {
    let program = program();
    let board = Board(vec![
        ("ticket".into(), json!("T-1")),
        ("n".into(), json!(1)),
        ("n".into(), json!(2)),
    ]);
    let valid = all_edges(&program, 1);
    agent.decide(&context(&program, 1, &board, &valid))
}

fn quick(command: &str) -> ExecAgent {
    ExecAgent::new(command).with_default_timeout(Duration::from_secs(10))
}

/// Shell that reads wfc's hello and accepts version 2.
const HELLO: &str = r#"read hello; echo '{"type":"hello","protocol":"wfc-agent","version":2}'; "#;

/// Shell that sets `$id` to the id of the request in `$line` (the first
/// field of every request).
const ID: &str = r#"id=$(printf '%s' "$line" | sed 's/^{"id":\([0-9]*\),.*/\1/'); "#;

/// An agent that greets, then runs `body` (shell).
fn greeting(body: &str) -> ExecAgent {
    quick(&format!("{HELLO}{body}"))
}

/// The fixture with `ask` given `default = "[R] Reject"` and a timeout.
fn with_default(timeout_ms: u64) -> wf_ir::IrProgram {
    let mut program = program();
    let reject = program
        .strings
        .iter()
        .position(|s| s == "[R] Reject")
        .unwrap();
    let ask = &mut program.workflows[0].nodes[1].engine;
    ask.default_choice = Some(wf_ir::StrId(reject as u32));
    ask.timeout_ms = Some(timeout_ms);
    program
}

/// A scratch directory, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("wfc-exec-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

#[test]
fn greets_then_sends_the_documented_request_line() {
    let dir = scratch("context");
    let mut agent = quick(
        r#"read hello; printf '%s\n' "$hello" > hello.json; echo '{"type":"hello","version":2}'; read line; printf '%s\n' "$line" > seen.json; echo '{"id":1,"type":"suspend","reason":"later"}'"#,
    )
    .in_dir(&*dir);
    let decision = decide(&mut agent).unwrap();
    assert_eq!(
        decision,
        Decision::Suspend {
            reason: "later".into()
        }
    );
    let hello: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("hello.json")).unwrap()).unwrap();
    assert_eq!(
        hello,
        json!({"type": "hello", "protocol": "wfc-agent", "versions": [2]})
    );
    let text = std::fs::read_to_string(dir.join("seen.json")).unwrap();
    // The id comes first, so a shell script can cut it out.
    assert!(text.starts_with(r#"{"id":1,"#), "{text}");
    let seen: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        seen,
        json!({
            "id": 1,
            "type": "decide",
            "protocol": "wfc-agent",
            "version": 2,
            "workflow": "Demo",
            "node": {
                "id": "ask", "kind": "human", "label": "Ship it?",
                "spec": {"prompt": "Ship?"}, "reads": [], "writes": [], "terminal": false
            },
            "edges": [
                {"id": "ask->done", "label": "[A] Approve", "target": "done"},
                {"id": "ask->stop", "label": "[R] Reject", "target": "stop"}
            ],
            "blackboard": {"n": 2, "ticket": "T-1"},
            "depth": 1, "attempt": 1, "step": 7
        })
    );
}

#[test]
fn one_process_serves_every_decision() {
    let mut agent = greeting(&format!(
        r#"n=0; while read line; do {ID}n=$((n+1)); echo "{{\"id\":$id,\"type\":\"advance\",\"status\":\"success\",\"writes\":[{{\"key\":\"n\",\"value\":$n}}],\"edge\":\"ask->done\"}}"; done"#
    ));
    for n in 1..=3 {
        let want = Decision::Advance(Outcome {
            writes: vec![Write {
                key: "n".into(),
                value: json!(n),
            }],
            edge: Some("ask->done".into()),
            ..Outcome::success()
        });
        assert_eq!(decide(&mut agent).unwrap(), want);
    }
}

#[test]
fn blank_lines_before_the_answer_are_ignored() {
    let mut agent = greeting(r#"read line; echo; echo '  '; echo '{"id":1,"type":"complete"}'"#);
    assert_eq!(
        decide(&mut agent).unwrap(),
        Decision::Complete { writes: vec![] }
    );
}

#[test]
fn a_silent_agent_times_out_instead_of_hanging() {
    let mut agent = ExecAgent::new("sleep 30").with_default_timeout(Duration::from_millis(300));
    let started = Instant::now();
    let err = decide(&mut agent).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        err.message,
        "the agent `sleep 30` did not answer the hello within 300ms \
         (wfc speaks wfc-agent version 2)"
    );
    let command = format!("{HELLO}sleep 30");
    let mut agent = ExecAgent::new(&command).with_default_timeout(Duration::from_millis(300));
    let err = decide(&mut agent).unwrap_err();
    assert_eq!(
        err.message,
        format!("the agent `{command}` did not answer within 300ms")
    );
}

#[test]
fn an_agent_that_never_reads_a_huge_context_times_out() {
    let program = program();
    let board = Board(vec![("big".into(), json!("x".repeat(4 << 20)))]);
    let valid = all_edges(&program, 1);
    let mut agent =
        ExecAgent::new(format!("{HELLO}sleep 30")).with_default_timeout(Duration::from_millis(300));
    let started = Instant::now();
    let err = agent
        .decide(&context(&program, 1, &board, &valid))
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(err.message.contains("did not answer within 300ms"), "{err}");
}

#[test]
fn a_crashing_agent_reports_its_exit_status() {
    let command = format!("{HELLO}read line; exit 3");
    let mut agent = quick(&command);
    let err = decide(&mut agent).unwrap_err();
    assert_eq!(
        err.message,
        format!(
            "the agent `{command}` closed its output without answering \
             (it exited with status 3)"
        )
    );
    // Crashing at the hello (a version 1 agent parsing it as a context)
    // points at the protocol.
    let mut agent = quick("read line; exit 3");
    let err = decide(&mut agent).unwrap_err();
    assert_eq!(
        err.message,
        "the agent `read line; exit 3` closed its output without answering \
         (at the hello; wfc speaks wfc-agent version 2: see docs/agents.md) \
         (it exited with status 3)"
    );
}

#[test]
fn a_version_1_agent_is_told_which_version_wfc_speaks() {
    let mut agent =
        quick(r#"while read line; do echo '{"type":"advance","status":"success"}'; done"#);
    let err = decide(&mut agent).unwrap_err();
    assert!(
        err.message.contains(
            "answered the hello with a decision: it speaks version 1 of the protocol; \
             wfc speaks wfc-agent version 2, which begins with a hello"
        ),
        "{err}"
    );
    let mut agent = quick(r#"read h; echo '{"type":"hello","version":3}'; sleep 30"#);
    let err = decide(&mut agent).unwrap_err();
    assert!(
        err.message.contains(
            "chose no version this wfc speaks in its hello (wfc speaks wfc-agent version 2)"
        ),
        "{err}"
    );
}

#[test]
fn an_answer_without_the_request_id_is_an_error() {
    let mut agent = greeting(r#"read line; echo '{"type":"complete"}'; sleep 30"#);
    let err = decide(&mut agent).unwrap_err();
    assert!(
        err.message.contains(
            "answered request 1 without its `id` (protocol version 2: echo the request's `id` in the answer)"
        ),
        "{err}"
    );
}

/// The race behind a shifted answer: a stray line written after an answer
/// arrives once the next request is out. It must be refused, naming both
/// ids, not taken as the answer to the next node.
#[test]
fn a_stray_line_after_an_answer_fails_instead_of_shifting_answers() {
    let mut agent = greeting(&format!(
        r#"read line; {ID}echo "{{\"id\":$id,\"type\":\"advance\",\"status\":\"success\",\"edge\":\"ask->done\"}}"; sleep 0.3; echo "{{\"id\":$id,\"type\":\"advance\",\"status\":\"success\",\"edge\":\"ask->stop\"}}"; while read line; do {ID}echo "{{\"id\":$id,\"type\":\"complete\"}}"; done"#
    ));
    let Decision::Advance(first) = decide(&mut agent).unwrap() else {
        panic!("not an advance")
    };
    assert_eq!(first.edge.as_deref(), Some("ask->done"));
    let err = decide(&mut agent).unwrap_err();
    assert!(
        err.message
            .contains("answered request 2 with the id 1, which is not that request's"),
        "{err}"
    );
}

#[test]
fn a_malformed_answer_is_an_error_naming_the_line() {
    let command = format!("{HELLO}read line; echo 'sure, go ahead'; sleep 30");
    let mut agent = quick(&command);
    let started = Instant::now();
    let err = decide(&mut agent).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        err.message.starts_with(&format!(
            "the agent `{command}` answered with something that is not a decision ("
        )),
        "{err}"
    );
    assert!(
        err.message.ends_with("the line was: sure, go ahead"),
        "{err}"
    );
}

#[test]
fn two_answers_to_one_context_are_an_error() {
    let mut agent = greeting(&format!(
        r#"while read line; do {ID}echo "{{\"id\":$id,\"type\":\"complete\"}}"; echo "{{\"id\":$id,\"type\":\"complete\"}}"; done"#
    ));
    assert_eq!(
        decide(&mut agent).unwrap(),
        Decision::Complete { writes: vec![] }
    );
    // Give the second line time to arrive.
    std::thread::sleep(Duration::from_millis(200));
    let err = decide(&mut agent).unwrap_err();
    assert!(
        err.message.contains(
            "wrote a line nobody asked for, before request 2: {\"id\":1,\"type\":\"complete\"}"
        ),
        "{err}"
    );
}

#[test]
fn an_unknown_decision_type_is_an_error() {
    let mut agent = greeting(r#"read line; echo '{"id":1,"type":"jump","to":"done"}'"#);
    let err = decide(&mut agent).unwrap_err();
    assert!(err.message.contains("unknown variant `jump`"), "{err}");
}

#[test]
fn a_command_that_cannot_start_is_an_error() {
    let mut agent = quick("true").in_dir("/nonexistent/wfc/dir");
    let err = decide(&mut agent).unwrap_err();
    assert!(
        err.message
            .starts_with("could not start the agent `true`: "),
        "{err}"
    );
}

#[test]
fn after_an_error_the_next_decision_starts_a_fresh_process() {
    let dir = scratch("restart");
    let mut agent = quick(&format!(
        r#"if [ -e started ]; then {HELLO}while read line; do {ID}echo "{{\"id\":$id,\"type\":\"complete\"}}"; done; else touch started; exit 1; fi"#
    ))
    .in_dir(&*dir);
    assert!(decide(&mut agent).is_err());
    assert_eq!(
        decide(&mut agent).unwrap(),
        Decision::Complete { writes: vec![] }
    );
}

#[test]
fn dropping_the_agent_ends_its_process() {
    let dir = scratch("drop");
    // The agent records its pid, then keeps running after stdin closes.
    let mut agent = quick(&format!(
        r#"echo $$ > pid; {HELLO}read l; echo '{{"id":1,"type":"complete"}}'; sleep 30"#
    ))
    .in_dir(&*dir);
    decide(&mut agent).unwrap();
    let pid = std::fs::read_to_string(dir.join("pid")).unwrap();
    drop(agent);
    let alive = std::process::Command::new("kill")
        .args(["-0", pid.trim()])
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap()
        .success();
    assert!(!alive, "the agent outlived the ExecAgent");
}

/// `examples/agents/echo_agent.py` speaks the protocol: success at inner
/// nodes along the first valid edge, `complete` at terminals.
#[test]
fn the_python_example_agent_works() {
    let python = std::process::Command::new("python3")
        .arg("--version")
        .output();
    if !python.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: python3 is not available");
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/agents/echo_agent.py");
    let mut agent = quick(&format!("python3 '{}'", script.display()));
    let program = program();
    let board = Board(Vec::new());
    let valid = all_edges(&program, 1);
    let at_ask = agent.decide(&context(&program, 1, &board, &valid)).unwrap();
    let Decision::Advance(outcome) = at_ask else {
        panic!("{at_ask:?}")
    };
    assert_eq!(outcome.status, Status::Success);
    assert_eq!(outcome.edge.as_deref(), Some("ask->done"));
    let at_done = agent.decide(&context(&program, 2, &board, &[])).unwrap();
    assert_eq!(at_done, Decision::Complete { writes: vec![] });
}

/// A `human` node's `default` is taken when the agent does not answer
/// within the node's timeout; the agent's late answer to that request is
/// dropped, and the next request is answered normally.
#[test]
fn a_human_default_is_taken_at_the_timeout_and_the_late_answer_dropped() {
    let program = with_default(300);
    let board = Board(Vec::new());
    let mut agent = greeting(&format!(
        r#"read line; {ID}sleep 0.6; echo "{{\"id\":$id,\"type\":\"advance\",\"status\":\"success\",\"edge\":\"ask->done\"}}"; while read line; do {ID}echo "{{\"id\":$id,\"type\":\"complete\"}}"; done"#
    ));
    let valid = all_edges(&program, 1);
    let started = Instant::now();
    let at_ask = agent.decide(&context(&program, 1, &board, &valid)).unwrap();
    assert!(started.elapsed() < Duration::from_secs(3));
    let Decision::Advance(outcome) = at_ask else {
        panic!("{at_ask:?}")
    };
    assert_eq!(outcome.edge.as_deref(), Some("ask->stop"));
    assert_eq!(
        outcome.notes.as_deref(),
        Some("no answer within 300ms: took the default choice `[R] Reject`")
    );
    // Request 2 goes out before the late answer to request 1 comes in.
    let at_done = agent.decide(&context(&program, 2, &board, &[])).unwrap();
    assert_eq!(at_done, Decision::Complete { writes: vec![] });
}
