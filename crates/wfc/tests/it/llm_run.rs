//! `wfc run --agent llm` against a fake Anthropic server on loopback:
//! fidelity (what each stage sends), streaming into `response.md`, and
//! Ctrl-C during a call (docs/llm.md).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use insta_cmd::get_cargo_bin;
use serde_json::{Value, json};

use crate::common::repo_root;

/// The key of these tests.
const KEY: &str = "sk-wfc-test-KEY-llmrt1";

/// One scripted answer of the fake server.
#[derive(Clone)]
enum Reply {
    /// A whole Anthropic Messages answer with this text.
    Json(String),
    /// An Anthropic stream of these pieces; after the first `gate_after`
    /// pieces it waits until the flag is set.
    Sse(Vec<String>, usize, Arc<AtomicBool>),
    /// Reads the request, then never answers.
    Stall,
    /// HTTP 503 with Anthropic's `overloaded_error` body until the file
    /// exists, then a whole answer with this text (a provider outage that
    /// ends).
    DownUntil(PathBuf, String),
    /// A whole answer with this text after this long (a model that
    /// takes its time).
    Slow(Duration, String),
    /// HTTP 401 with Anthropic's `authentication_error` body (a wrong key).
    Unauthorized,
    /// As `DownUntil` for the requests whose body holds the text `.0`; a
    /// whole answer for the others.
    DownFor(String, PathBuf, String),
    /// A whole answer `re: PROMPT` after a pause of `.0` times the digit
    /// the prompt ends with (the last line of the last user message): an
    /// answer that does not depend on the order of concurrent requests.
    Echo(Duration),
}

/// A fake Anthropic server: the n-th request gets the n-th reply (the last
/// repeats); the bodies of the requests are kept.
struct Fake {
    base: String,
    seen: Arc<Mutex<Vec<Value>>>,
    /// When each request was read and when its answer was sent.
    spans: Arc<Mutex<Vec<(Instant, Instant)>>>,
}

impl Fake {
    fn start(replies: Vec<Reply>) -> Fake {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let spans = Arc::new(Mutex::new(Vec::new()));
        let spans_log = spans.clone();
        std::thread::spawn(move || {
            for (n, stream) in listener.incoming().enumerate() {
                let Ok(mut stream) = stream else { break };
                let reply = replies[n.min(replies.len() - 1)].clone();
                let log = log.clone();
                let spans_log = spans_log.clone();
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut length = 0;
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                            break;
                        }
                        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                            length = v.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0; length];
                    let _ = reader.read_exact(&mut body);
                    log.lock()
                        .unwrap()
                        .push(serde_json::from_slice(&body).unwrap_or(Value::Null));
                    let read = Instant::now();
                    let reply = match reply {
                        Reply::Echo(pause) => {
                            let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                            let last = body["messages"].as_array().and_then(|m| m.last()).cloned();
                            let prompt = last
                                .as_ref()
                                .and_then(|m| m["content"].as_str())
                                .unwrap_or("");
                            let prompt = prompt.lines().last().unwrap_or("").to_string();
                            let digit = prompt.chars().last().and_then(|c| c.to_digit(10));
                            std::thread::sleep(pause * digit.unwrap_or(0));
                            Reply::Json(format!("re: {prompt}"))
                        }
                        Reply::DownFor(needle, marker, text) => {
                            if String::from_utf8_lossy(&body).contains(&needle) {
                                Reply::DownUntil(marker, text)
                            } else {
                                Reply::Json(text)
                            }
                        }
                        reply => reply,
                    };
                    let reply = match reply {
                        Reply::DownUntil(marker, _) if !marker.exists() => {
                            let body = json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}).to_string();
                            let _ = write!(
                                stream,
                                "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                                body.len()
                            );
                            return;
                        }
                        Reply::DownUntil(_, text) => Reply::Json(text),
                        Reply::Unauthorized => {
                            let body = json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}).to_string();
                            let _ = write!(
                                stream,
                                "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                                body.len()
                            );
                            return;
                        }
                        Reply::Slow(wait, text) => {
                            std::thread::sleep(wait);
                            Reply::Json(text)
                        }
                        reply => reply,
                    };
                    match reply {
                        Reply::Json(text) => {
                            let body = json!({
                                "id": "msg_1", "type": "message", "role": "assistant",
                                "model": "claude-sonnet-4-6", "stop_reason": "end_turn",
                                "content": [{"type": "text", "text": text}],
                                "usage": {"input_tokens": 100, "output_tokens": 50}
                            })
                            .to_string();
                            let _ = write!(
                                stream,
                                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                                body.len()
                            );
                        }
                        Reply::Sse(pieces, gate_after, gate) => {
                            let _ = write!(
                                stream,
                                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
                            );
                            let event = |name: &str, data: Value| {
                                format!("event: {name}\ndata: {data}\n\n")
                            };
                            let _ = stream.write_all(event("message_start", json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "usage": {"input_tokens": 100, "output_tokens": 1}}})).as_bytes());
                            for (i, p) in pieces.iter().enumerate() {
                                if i == gate_after {
                                    let waited = Instant::now();
                                    while !gate.load(Ordering::SeqCst)
                                        && waited.elapsed() < Duration::from_secs(20)
                                    {
                                        std::thread::sleep(Duration::from_millis(5));
                                    }
                                }
                                let _ = stream.write_all(event("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}})).as_bytes());
                                let _ = stream.flush();
                            }
                            let _ = stream.write_all(event("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 50}})).as_bytes());
                            let _ = stream.write_all(
                                event("message_stop", json!({"type": "message_stop"})).as_bytes(),
                            );
                        }
                        Reply::Stall => std::thread::sleep(Duration::from_secs(60)),
                        Reply::DownUntil(..)
                        | Reply::Slow(..)
                        | Reply::Unauthorized
                        | Reply::Echo(_)
                        | Reply::DownFor(..) => {
                            unreachable!()
                        }
                    }
                    spans_log.lock().unwrap().push((read, Instant::now()));
                });
            }
        });
        Fake { base, seen, spans }
    }

    fn seen(&self) -> Vec<Value> {
        self.seen.lock().unwrap().clone()
    }
}

/// A fresh scratch folder with the fixture `name` (from
/// `tests/run/dot/llm/`) and a `wf.toml` holding `toml`.
fn scratch(test: &str, name: &str, toml: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("wfc-llm-run-tests")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let source = repo_root().join("tests/run/dot/llm").join(name);
    std::fs::copy(source, dir.join(name)).unwrap();
    std::fs::write(dir.join("wf.toml"), toml).unwrap();
    dir
}

/// `wfc ARGS --agent llm` against `fake`, with the provider variables of
/// the environment cleared.
fn wfc(fake: &Fake, args: &[&str]) -> Command {
    let mut cmd = Command::new(get_cargo_bin("wfc"));
    cmd.args(args)
        .args(["--agent", "llm", "--format", "json", "--progress", "never"])
        .env("NO_COLOR", "1")
        .env("RUST_BACKTRACE", "0");
    for var in [
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("ANTHROPIC_API_KEY", KEY)
        .env("ANTHROPIC_BASE_URL", &fake.base);
    cmd
}

fn run(fake: &Fake, dir: &Path, name: &str) -> Output {
    let file = dir.join(name);
    let run_dir = dir.join("run");
    wfc(
        fake,
        &[
            "run",
            file.to_str().unwrap(),
            "--run-dir",
            run_dir.to_str().unwrap(),
        ],
    )
    .output()
    .unwrap()
}

fn status(dir: &Path, node: &str) -> Value {
    let path = dir.join("run").join(node).join("status.json");
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// The messages of a request as `(role, text)`.
fn messages(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let text = m["content"].as_str().unwrap().to_string();
            (m["role"].as_str().unwrap().to_string(), text)
        })
        .collect()
}

fn ok(out: &Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn each_fidelity_mode_sends_what_the_seed_describes() {
    let replies = ["A", "B", "C", "D", "E", "F", "G"].map(|s| Reply::Json(format!("answer {s}")));
    let fake = Fake::start(replies.to_vec());
    let dir = scratch("fidelity", "fidelity.dot", "");
    ok(&run(&fake, &dir, "fidelity.dot"));
    let seen = fake.seen();
    assert_eq!(seen.len(), 7);
    let only = |i: usize| {
        let m = messages(&seen[i]);
        assert_eq!(m.len(), 1, "request {i}: {m:?}");
        m[0].1.clone()
    };
    // truncate (the graph's default): the goal and the run, nothing else.
    assert_eq!(
        only(0),
        "## Context (fidelity: truncate)\n\nGoal: Ship the release\nRun: run\n\nStage A"
    );
    // full, a fresh thread: the compact preamble starts it.
    let b = only(1);
    assert!(
        b.starts_with("## Context (fidelity: compact)\n\nGoal: Ship the release\n"),
        "{b}"
    );
    assert!(
        b.contains("\n- a: success\n") && b.ends_with("\n\nStage B"),
        "{b}"
    );
    // full, the same thread: the earlier turns, then the prompt alone.
    assert_eq!(
        messages(&seen[2]),
        [
            ("user".to_string(), b.clone()),
            ("assistant".to_string(), "answer B".to_string()),
            ("user".to_string(), "Stage C".to_string()),
        ]
    );
    // summary:low: counts and the last three stages, no notes or values.
    let d = only(3);
    assert!(d.starts_with("## Context (fidelity: summary:low)\n\nGoal: Ship the release\nStages completed: 4 (0 failed)\n\nLatest stages:\n- a: success\n- b: success\n- c: success\n\nStage D"), "{d}");
    // summary:medium: the stages with their notes, and the context values.
    let e = only(4);
    assert!(
        e.starts_with("## Context (fidelity: summary:medium)\n"),
        "{e}"
    );
    assert!(e.contains("\n- d: success — answer D\n"), "{e}");
    assert!(
        e.contains("\nContext values:\n") && e.contains("\n- last_stage: d\n"),
        "{e}"
    );
    // The edge's fidelity wins over the node's.
    let f = only(5);
    assert!(
        f.starts_with("## Context (fidelity: summary:high)\n"),
        "{f}"
    );
    assert!(f.contains("\n- e: success — answer E\n"), "{f}");
    // compact: every stage, without notes, and the values.
    let g = only(6);
    assert!(g.starts_with("## Context (fidelity: compact)\n"), "{g}");
    assert!(g.contains("\n- f: success\n") && !g.contains(" — "), "{g}");
    assert!(g.contains("\n- last_response: answer F\n"), "{g}");
    // status.json records what was sent.
    for (node, mode, count) in [
        ("a", "truncate", 1),
        ("b", "full", 1),
        ("c", "full", 3),
        ("d", "summary:low", 1),
        ("f", "summary:high", 1),
    ] {
        let s = status(&dir, node);
        assert_eq!(s["fidelity"], mode, "{node}: {s}");
        let sent = &s["usage"]["sent"];
        assert_eq!(sent["fidelity"], mode, "{node}: {s}");
        assert_eq!(sent["messages"], count, "{node}: {s}");
        assert!(
            sent["estimated_tokens"].as_u64().unwrap() > 0,
            "{node}: {s}"
        );
    }
    assert_eq!(status(&dir, "c")["usage"]["sent"]["thread_id"], "t");
    assert_eq!(status(&dir, "c")["usage"]["sent"]["preamble_tokens"], 0);
    // prompt.md is the last message sent.
    let prompt = std::fs::read_to_string(dir.join("run/b/prompt.md")).unwrap();
    assert_eq!(prompt, b);
}

#[test]
fn full_fidelity_degrades_to_summary_high_once_after_a_resume() {
    let fake = Fake::start(vec![
        Reply::Json("draft 1".into()),
        Reply::Json("revised".into()),
        Reply::Json("polished".into()),
    ]);
    // The budget stops the run after `a`'s call (150 tokens).
    let dir = scratch("thread_resume", "thread.dot", "[llm]\nmax_tokens = 100\n");
    let out = run(&fake, &dir, "thread.dot");
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(fake.seen().len(), 1);
    std::fs::write(dir.join("wf.toml"), "").unwrap();
    let run_dir = dir.join("run");
    let out = wfc(&fake, &["run", "--resume", run_dir.to_str().unwrap()])
        .output()
        .unwrap();
    ok(&out);
    let seen = fake.seen();
    assert_eq!(seen.len(), 3);
    // `b`: the conversation of `a` died with the first process: a fresh
    // one with the summary:high preamble, which holds `a`'s answer.
    let b = messages(&seen[1]);
    assert_eq!(b.len(), 1, "{b:?}");
    assert!(
        b[0].1.starts_with("## Context (fidelity: summary:high)\n"),
        "{}",
        b[0].1
    );
    assert!(b[0].1.contains("\n- a: success — draft 1\n"), "{}", b[0].1);
    assert!(b[0].1.ends_with("\n\nRevise"), "{}", b[0].1);
    assert_eq!(status(&dir, "b")["fidelity"], "summary:high");
    assert_eq!(
        status(&dir, "b")["usage"]["sent"]["fidelity"],
        "summary:high"
    );
    // `c`: full again, continuing from `b`.
    let c = messages(&seen[2]);
    assert_eq!(c.len(), 3, "{c:?}");
    assert_eq!(c[1], ("assistant".to_string(), "revised".to_string()));
    assert_eq!(c[2], ("user".to_string(), "Polish".to_string()));
    assert_eq!(status(&dir, "c")["fidelity"], "full");
}

/// Waits until `what` holds, at most 20 s.
fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn spawn(fake: &Fake, dir: &Path, name: &str) -> Child {
    let file = dir.join(name);
    let run_dir = dir.join("run");
    wfc(
        fake,
        &[
            "run",
            file.to_str().unwrap(),
            "--run-dir",
            run_dir.to_str().unwrap(),
        ],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap()
}

#[test]
fn a_streamed_answer_grows_response_md_as_it_arrives() {
    let gate = Arc::new(AtomicBool::new(false));
    let pieces = ["Hello", ", ", "wor", "ld!"].map(str::to_string).to_vec();
    let fake = Fake::start(vec![
        Reply::Sse(pieces, 2, gate.clone()),
        Reply::Json("bye".into()),
    ]);
    let dir = scratch("stream", "stream.dot", "");
    let child = spawn(&fake, &dir, "stream.dot");
    let response = dir.join("run/hello/response.md");
    // The server holds the rest of the answer until the file shows the
    // first two pieces.
    wait_for("the partial response.md", || {
        std::fs::read_to_string(&response).is_ok_and(|t| t == "Hello, ")
    });
    gate.store(true, Ordering::SeqCst);
    let out = child.wait_with_output().unwrap();
    ok(&out);
    assert_eq!(std::fs::read_to_string(&response).unwrap(), "Hello, world!");
    assert_eq!(status(&dir, "hello")["notes"], "Hello, world!");
    assert_eq!(fake.seen()[0]["stream"], true);
    let left: Vec<_> = std::fs::read_dir(dir.join("run/hello"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n.to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[cfg(unix)]
#[test]
fn ctrl_c_during_a_call_ends_the_run_at_once_and_resume_asks_again() {
    for signal in ["INT", "TERM"] {
        let fake = Fake::start(vec![
            Reply::Stall,
            Reply::Json("hi".into()),
            Reply::Json("bye".into()),
        ]);
        let dir = scratch(&format!("ctrl_c_{signal}"), "stream.dot", "");
        let mut child = spawn(&fake, &dir, "stream.dot");
        wait_for("the request", || fake.seen().len() == 1);
        let sent = Instant::now();
        let kill = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
        wait_for("wfc to end", || child.try_wait().unwrap().is_some());
        assert!(
            sent.elapsed() < Duration::from_secs(5),
            "{:?}",
            sent.elapsed()
        );
        let status_code = child.wait().unwrap();
        // Ended by the signal itself, as a shell expects of Ctrl-C.
        use std::os::unix::process::ExitStatusExt;
        let number = if signal == "INT" { 2 } else { 15 };
        assert_eq!(
            status_code.signal(),
            Some(number),
            "{signal}: {status_code:?}"
        );
        // The run resumes at the stage whose call was cut, and asks again.
        let run_dir = dir.join("run");
        let out = wfc(&fake, &["run", "--resume", run_dir.to_str().unwrap()])
            .output()
            .unwrap();
        ok(&out);
        let seen = fake.seen();
        assert_eq!(seen.len(), 3, "{signal}: {seen:?}");
        for i in [0, 1] {
            let text = &messages(&seen[i])[0].1;
            assert!(
                text.ends_with("\n\nSay hello"),
                "{signal}: request {i}: {text}"
            );
        }
        assert_eq!(
            std::fs::read_to_string(run_dir.join("hello/response.md")).unwrap(),
            "hi"
        );
    }
}

/// The report of a `--format json` run.
fn report(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

#[test]
fn a_provider_outage_suspends_a_durable_run_and_resume_asks_again() {
    let dir = scratch(
        "outage",
        "stream.dot",
        "[llm.providers.anthropic]\nretries = 1\n",
    );
    let marker = dir.join("provider-is-back");
    let fake = Fake::start(vec![Reply::DownUntil(marker.clone(), "hi".into())]);
    let file = dir.join("stream.dot");
    let run_dir = dir.join("run");

    // Without a run directory the run cannot wait: it fails.
    let out = wfc(&fake, &["run", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Nor does it with `--on-error fail`.
    let failing = dir.join("run-fail");
    let out = wfc(
        &fake,
        &[
            "run",
            file.to_str().unwrap(),
            "--run-dir",
            failing.to_str().unwrap(),
            "--on-error",
            "fail",
        ],
    )
    .output()
    .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // A durable run suspends at the stage, after the HTTP retries.
    let asked = fake.seen().len();
    let out = run(&fake, &dir, "stream.dot");
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        report(&out)["status"],
        "suspended",
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(fake.seen().len() - asked, 2, "one call and one HTTP retry");
    let hint = String::from_utf8_lossy(&out.stderr);
    assert!(hint.contains("HTTP 503: Overloaded"), "{hint}");
    assert!(hint.contains("--resume"), "{hint}");
    assert!(
        !run_dir.join("hello/response.md").exists()
            || std::fs::read_to_string(run_dir.join("hello/response.md"))
                .unwrap()
                .is_empty()
    );

    // `wfc status` names the provider's error.
    let status = Command::new(get_cargo_bin("wfc"))
        .args(["status", run_dir.to_str().unwrap()])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(text.contains("run: suspended"), "{text}");
    assert!(
        text.contains("anthropic answered HTTP 503: Overloaded"),
        "{text}"
    );

    // Once the provider is back, the resumed run asks the stage again and
    // goes on to the end.
    std::fs::write(&marker, "").unwrap();
    let asked = fake.seen().len();
    let out = wfc(&fake, &["run", "--resume", run_dir.to_str().unwrap()])
        .output()
        .unwrap();
    ok(&out);
    assert_eq!(report(&out)["status"], "completed");
    let seen = fake.seen();
    assert_eq!(seen.len() - asked, 2, "hello again, then after");
    assert!(messages(&seen[asked])[0].1.ends_with("Say hello"));
    assert_eq!(
        std::fs::read_to_string(run_dir.join("hello/response.md")).unwrap(),
        "hi"
    );
}

/// The most requests the fake server had in flight at once.
fn overlap(spans: &[(Instant, Instant)]) -> usize {
    spans
        .iter()
        .map(|(start, _)| {
            spans
                .iter()
                .filter(|(s, e)| s <= start && start < e)
                .count()
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn parallel_branches_call_the_model_at_once_within_the_providers_cap() {
    for (cap, expected) in [(None, 4), (Some(2), 2)] {
        let toml = cap.map_or(String::new(), |c| {
            format!("[llm.providers.anthropic]\nconcurrency = {c}\n")
        });
        let dir = scratch(&format!("parallel_{expected}"), "parallel.dot", &toml);
        // Long enough that four branch threads started on a loaded 2-core
        // machine still overlap at the server.
        let fake = Fake::start(vec![Reply::Slow(
            Duration::from_millis(1000),
            "looks fine".into(),
        )]);
        let out = run(&fake, &dir, "parallel.dot");
        ok(&out);
        let spans = fake.spans.lock().unwrap().clone();
        assert_eq!(spans.len(), 4);
        // Measured at the server: the four requests were in flight
        // together (one after another, none would overlap), and never
        // more than the provider's `concurrency`.
        assert_eq!(overlap(&spans), expected, "cap {cap:?}");
        // The branches' calls add up in the run's totals.
        assert_eq!(report(&out)["llm"]["calls"], 4);
        for branch in ["security", "speed", "style", "tests"] {
            assert_eq!(status(&dir, branch)["notes"], "looks fine", "{branch}");
        }
    }
}

#[test]
fn a_wrong_key_is_not_retried_and_suspends_a_durable_run() {
    let dir = scratch("wrong_key", "stream.dot", "");
    let fake = Fake::start(vec![Reply::Unauthorized]);
    let file = dir.join("stream.dot");
    // Without a run directory: a failure, after one request.
    let out = wfc(&fake, &["run", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(fake.seen().len(), 1, "a 401 is not retried");
    // With one: the run waits for a new key (exit 3), naming the error.
    let out = run(&fake, &dir, "stream.dot");
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(fake.seen().len(), 2);
    let hint = String::from_utf8_lossy(&out.stderr);
    assert!(hint.contains("HTTP 401: invalid x-api-key"), "{hint}");
    assert!(!hint.contains(KEY), "{hint}");
}

#[test]
fn an_outage_in_a_parallel_branch_suspends_the_run_and_resume_runs_that_branch_alone() {
    let dir = scratch(
        "parallel_outage",
        "parallel.dot",
        "[llm.providers.anthropic]\nretries = 0\n",
    );
    let marker = dir.join("provider-is-back");
    let fake = Fake::start(vec![Reply::DownFor(
        "Review speed".into(),
        marker.clone(),
        "looks fine".into(),
    )]);
    let out = run(&fake, &dir, "parallel.dot");
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(report(&out)["status"], "suspended");
    // The report names the branch and the provider's error.
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("parallel branch `speed`") && text.contains("HTTP 503: Overloaded"),
        "{text}"
    );
    assert_eq!(fake.seen().len(), 4);

    std::fs::write(&marker, "").unwrap();
    let run_dir = dir.join("run");
    let out = wfc(&fake, &["run", "--resume", run_dir.to_str().unwrap()])
        .output()
        .unwrap();
    ok(&out);
    let doc = report(&out);
    assert_eq!(doc["status"], "completed");
    // Only the branch that met the outage asks again: the three others
    // were journaled when they finished.
    let seen = fake.seen();
    assert_eq!(seen.len(), 5, "{seen:?}");
    assert!(messages(&seen[4])[0].1.ends_with("Review speed"));
    assert_eq!(doc["blackboard"]["parallel.success_count"], 4, "{doc}");
}

/// Issue 17.3: an HTTP call cannot be cut short, so the first Ctrl-C of a
/// durable run waits for it (here longer than the test) while a second
/// one ends `wfc` at once, by the signal; the run directory stays
/// consistent and resumable.
#[cfg(unix)]
#[test]
fn a_second_ctrl_c_ends_a_durable_run_at_once() {
    let fake = Fake::start(vec![
        Reply::Stall,
        Reply::Json("hi".into()),
        Reply::Json("bye".into()),
    ]);
    let dir = scratch("ctrl_c_twice", "stream.dot", "");
    let file = dir.join("stream.dot");
    let run_dir = dir.join("run");
    let mut child = wfc(
        &fake,
        &[
            "run",
            file.to_str().unwrap(),
            "--run-dir",
            run_dir.to_str().unwrap(),
            "--interrupt-grace-ms",
            "60000",
        ],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    wait_for("the request", || fake.seen().len() == 1);
    let pid = child.id().to_string();
    let interrupt = || {
        let kill = Command::new("kill").args(["-INT", &pid]).status().unwrap();
        assert!(kill.success());
    };
    interrupt();
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the first Ctrl-C ended wfc before its grace"
    );
    let sent = Instant::now();
    interrupt();
    wait_for("wfc to end", || child.try_wait().unwrap().is_some());
    assert!(
        sent.elapsed() < Duration::from_secs(10),
        "{:?}",
        sent.elapsed()
    );
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(child.wait().unwrap().signal(), Some(2));
    let out = wfc(&fake, &["run", "--resume", run_dir.to_str().unwrap()])
        .output()
        .unwrap();
    ok(&out);
    assert_eq!(fake.seen().len(), 3);
}

#[test]
fn parallel_branches_fork_a_full_thread_and_the_main_line_keeps_its_own() {
    // The branches' calls take their time (the second stage of each
    // twice the first's), so their turns interleave in time; with
    // `max_parallel=1` they run one after another, through the main
    // line's agent.
    let cases = [
        (Duration::ZERO, ""),
        (Duration::from_millis(60), ""),
        (Duration::ZERO, ", max_parallel=1"),
    ];
    for (pause, fan) in cases {
        let fake = Fake::start(vec![Reply::Echo(pause)]);
        let dir = scratch(
            &format!("thread_parallel_{}{}", pause.as_millis(), fan.len()),
            "thread_parallel.dot",
            "",
        );
        let file = dir.join("thread_parallel.dot");
        let text = std::fs::read_to_string(&file).unwrap();
        let text = text.replace("[shape=component]", &format!("[shape=component{fan}]"));
        std::fs::write(&file, text).unwrap();
        ok(&run(&fake, &dir, "thread_parallel.dot"));
        let seen = fake.seen();
        assert_eq!(seen.len(), 6, "{seen:?}");
        // The request whose prompt (its last message) is `prompt`.
        let sent = |prompt: &str| -> Vec<(String, String)> {
            let found: Vec<_> = seen
                .iter()
                .map(messages)
                .filter(|m| m.last().is_some_and(|(_, t)| t.ends_with(prompt)))
                .collect();
            assert_eq!(found.len(), 1, "{prompt}: {seen:?}");
            found[0].clone()
        };
        let plan = sent("Plan");
        assert_eq!(plan.len(), 1);
        let turn = |user: &str, answer: &str| {
            [
                ("user".to_string(), user.to_string()),
                ("assistant".to_string(), answer.to_string()),
            ]
        };
        let before = turn(&plan[0].1, "re: Plan");
        let prompt = |p: &str| ("user".to_string(), p.to_string());
        // Each branch: the turns before the fan-out, then its own.
        for b in ["A", "B"] {
            let first = format!("Branch {b}1");
            let second = format!("Branch {b}2");
            let mut expected = before.to_vec();
            expected.push(prompt(&first));
            assert_eq!(sent(&first), expected, "{b}1 (pause {pause:?}{fan})");
            let mut expected = before.to_vec();
            expected.extend(turn(&first, &format!("re: {first}")));
            expected.push(prompt(&second));
            assert_eq!(sent(&second), expected, "{b}2 (pause {pause:?}{fan})");
        }
        // After the fan-in: the main line's own turns, not the branches'.
        let mut expected = before.to_vec();
        expected.push(prompt("After"));
        assert_eq!(sent("After"), expected, "after (pause {pause:?}{fan})");
        assert_eq!(status(&dir, "after")["usage"]["sent"]["messages"], 3);
    }
}

/// Issue 17.1/17.6 for `.wf`: a provider outage in a `.wf` parallel
/// branch suspends a durable run (it used to fail the branch), and
/// `--resume` asks only the branch that met it.
#[test]
fn an_outage_in_a_wf_parallel_branch_suspends_the_run_and_resume_runs_that_branch_alone() {
    let dir = scratch(
        "wf_parallel_outage",
        "parallel.wf",
        "[llm.providers.anthropic]\nretries = 0\n",
    );
    let marker = dir.join("provider-is-back");
    let fake = Fake::start(vec![Reply::DownFor(
        "Review speed".into(),
        marker.clone(),
        "looks fine".into(),
    )]);
    let out = run(&fake, &dir, "parallel.wf");
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(report(&out)["status"], "suspended");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("branch `speed`") && text.contains("HTTP 503: Overloaded"),
        "{text}"
    );
    assert_eq!(fake.seen().len(), 2);

    std::fs::write(&marker, "").unwrap();
    let run_dir = dir.join("run");
    let out = wfc(&fake, &["run", "--resume", run_dir.to_str().unwrap()])
        .output()
        .unwrap();
    ok(&out);
    assert_eq!(report(&out)["status"], "completed");
    let seen = fake.seen();
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert!(messages(&seen[2])[0].1.ends_with("Review speed"));
}

/// A spent budget in a `.wf` parallel branch is an agent error there, as
/// in a pipeline's branch: a durable run suspends (it used to fail the
/// branch), and resumed with a budget that allows the calls, it completes.
#[test]
fn a_spent_budget_in_a_wf_parallel_branch_suspends_the_run() {
    let dir = scratch(
        "wf_parallel_budget",
        "parallel.wf",
        "[llm]\nmax_cost_usd = 0.000001\n",
    );
    let fake = Fake::start(vec![Reply::Json("looks fine".into())]);
    let out = run(&fake, &dir, "parallel.wf");
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        (text.contains("branch `speed`") || text.contains("branch `security`"))
            && text.contains("budget: ")
            && text.contains("max_cost_usd"),
        "{text}"
    );
    // At most the call the budget allowed went out; the branch it
    // served finished and is journaled.
    assert!(fake.seen().len() <= 1);
    std::fs::write(dir.join("wf.toml"), "[llm]\nmax_cost_usd = 10\n").unwrap();
    let run_dir = dir.join("run");
    let out = wfc(&fake, &["run", "--resume", run_dir.to_str().unwrap()])
        .output()
        .unwrap();
    ok(&out);
    assert_eq!(report(&out)["status"], "completed");
    // Each branch's call went out once in all.
    assert_eq!(fake.seen().len(), 2);
}
