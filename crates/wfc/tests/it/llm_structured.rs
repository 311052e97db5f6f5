//! `wfc run --agent llm` routing by the provider's structured output
//! (docs/llm.md, "The prompt and answer contract"): for each of the four
//! APIs, a fake server on loopback checks that the stage with labelled
//! edges asks for the schema the way the real API takes it (and that the
//! stage without choices does not), answers the way the real API does, and
//! the run follows the label it gave.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use insta_cmd::get_cargo_bin;
use serde_json::{Value, json};

use crate::common::repo_root;

const KEY: &str = "sk-wfc-test-KEY-struct1";

/// The routing answer of the `review` stage: the second label.
const ANSWER: &str = r#"{"outcome": "success", "preferred_label": "Fix", "context_updates": {"risk": "low"}, "notes": "one bug"}"#;

/// One scripted reply: a whole JSON body, or server-sent events.
#[derive(Clone)]
enum Reply {
    Json(u16, String),
    Sse(Vec<String>),
}

/// A fake provider: the n-th request gets the n-th reply (the last
/// repeats); each request's path and JSON body are kept.
struct Fake {
    base: String,
    seen: Arc<Mutex<Vec<(String, Value)>>>,
}

impl Fake {
    fn start(replies: Vec<Reply>) -> Fake {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        std::thread::spawn(move || {
            for (n, stream) in listener.incoming().enumerate() {
                let Ok(mut stream) = stream else { break };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut first = String::new();
                let _ = reader.read_line(&mut first);
                let path = first.split_whitespace().nth(1).unwrap_or("").to_string();
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
                let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
                log.lock().unwrap().push((path, body));
                match &replies[n.min(replies.len() - 1)] {
                    Reply::Json(status, body) => {
                        let _ = write!(
                            stream,
                            "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                            body.len()
                        );
                    }
                    Reply::Sse(events) => {
                        let _ = write!(
                            stream,
                            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
                        );
                        for e in events {
                            let _ = stream.write_all(e.as_bytes());
                            let _ = stream.flush();
                        }
                    }
                }
            }
        });
        Fake { base, seen }
    }

    fn seen(&self) -> Vec<(String, Value)> {
        self.seen.lock().unwrap().clone()
    }
}

/// The four APIs as the providers of these tests: the name in `[llm]`.
const PROVIDERS: [&str; 4] = ["anthropic", "openai", "local", "gemini"];

fn event(name: Option<&str>, data: Value) -> String {
    match name {
        Some(n) => format!("event: {n}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    }
}

/// What the structured answer looks like from `provider`: for Anthropic
/// the `route` tool's input, for the others the JSON text.
fn structured(provider: &str, input: &Value, stream: bool) -> Reply {
    let text = input.to_string();
    if provider != "anthropic" {
        return plain(provider, &text, stream);
    }
    if !stream {
        return Reply::Json(
            200,
            json!({
                "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
                "content": [{"type": "tool_use", "id": "toolu_01", "name": "route", "input": input}],
                "stop_reason": "tool_use", "stop_sequence": null,
                "usage": {"input_tokens": 100, "output_tokens": 50}
            })
            .to_string(),
        );
    }
    let (a, b) = text.split_at(text.len() / 2);
    let mut events = vec![
        event(
            Some("message_start"),
            json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "usage": {"input_tokens": 100, "output_tokens": 1}}}),
        ),
        event(
            Some("content_block_start"),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_01", "name": "route", "input": {}}}),
        ),
    ];
    for piece in ["", a, b] {
        events.push(event(Some("content_block_delta"), json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": piece}})));
    }
    events.push(event(
        Some("content_block_stop"),
        json!({"type": "content_block_stop", "index": 0}),
    ));
    events.push(event(Some("message_delta"), json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 50}})));
    events.push(event(Some("message_stop"), json!({"type": "message_stop"})));
    Reply::Sse(events)
}

/// A text answer from `provider`, whole or streamed in two pieces.
fn plain(provider: &str, text: &str, stream: bool) -> Reply {
    let (a, b) = text.split_at(text.len() / 2);
    match (provider, stream) {
        ("anthropic", false) => Reply::Json(
            200,
            json!({"id": "msg_1", "type": "message", "role": "assistant", "stop_reason": "end_turn",
                   "content": [{"type": "text", "text": text}],
                   "usage": {"input_tokens": 100, "output_tokens": 50}})
            .to_string(),
        ),
        ("anthropic", true) => {
            let mut events = vec![event(
                Some("message_start"),
                json!({"type": "message_start", "message": {"usage": {"input_tokens": 100, "output_tokens": 1}}}),
            )];
            for p in [a, b] {
                events.push(event(Some("content_block_delta"), json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}})));
            }
            events.push(event(
                Some("message_delta"),
                json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 50}}),
            ));
            events.push(event(
                Some("message_stop"),
                json!({"type": "message_stop"}),
            ));
            Reply::Sse(events)
        }
        ("openai", false) => Reply::Json(200, responses(text).to_string()),
        ("openai", true) => {
            let mut events = Vec::new();
            for p in [a, b] {
                events.push(event(Some("response.output_text.delta"), json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": p})));
            }
            events.push(event(
                Some("response.completed"),
                json!({"type": "response.completed", "response": responses(text)}),
            ));
            Reply::Sse(events)
        }
        ("local", false) => Reply::Json(
            200,
            json!({"id": "chatcmpl-1", "object": "chat.completion", "model": "qwen3",
                   "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                   "usage": {"prompt_tokens": 30, "completion_tokens": 7}})
            .to_string(),
        ),
        ("local", true) => {
            let chunk = |delta: Value, finish: Value| {
                event(
                    None,
                    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}),
                )
            };
            let mut events = vec![chunk(json!({"role": "assistant", "content": ""}), Value::Null)];
            for p in [a, b] {
                events.push(chunk(json!({"content": p}), Value::Null));
            }
            events.push(chunk(json!({}), json!("stop")));
            events.push(event(None, json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [], "usage": {"prompt_tokens": 30, "completion_tokens": 7}})));
            events.push("data: [DONE]\n\n".into());
            Reply::Sse(events)
        }
        ("gemini", false) => Reply::Json(
            200,
            json!({"candidates": [{"content": {"parts": [{"text": text}], "role": "model"}, "finishReason": "STOP", "index": 0}],
                   "usageMetadata": {"promptTokenCount": 60, "candidatesTokenCount": 20}})
            .to_string(),
        ),
        ("gemini", true) => {
            let mut events = Vec::new();
            for (i, p) in [a, b].into_iter().enumerate() {
                let mut c = json!({"candidates": [{"content": {"parts": [{"text": p}], "role": "model"}, "index": 0}]});
                if i == 1 {
                    c["candidates"][0]["finishReason"] = json!("STOP");
                    c["usageMetadata"] = json!({"promptTokenCount": 60, "candidatesTokenCount": 20});
                }
                events.push(event(None, c));
            }
            Reply::Sse(events)
        }
        _ => unreachable!("{provider}"),
    }
}

/// An OpenAI Responses answer: a `message` output with one `output_text`.
fn responses(text: &str) -> Value {
    json!({"id": "resp_1", "object": "response", "status": "completed", "model": "gpt-5.4",
           "output": [{"id": "msg_1", "type": "message", "status": "completed", "role": "assistant",
                       "content": [{"type": "output_text", "text": text, "annotations": []}]}],
           "usage": {"input_tokens": 80, "output_tokens": 40}})
}

/// The schema a request of `provider` carries, if any, after checking the
/// fields around it are the API's own.
fn schema_sent(provider: &str, body: &Value) -> Option<Value> {
    match provider {
        "anthropic" => {
            let tool = body.get("tools")?;
            assert_eq!(
                body["tool_choice"],
                json!({"type": "tool", "name": "route"})
            );
            assert_eq!(tool[0]["name"], "route");
            Some(tool[0]["input_schema"].clone())
        }
        "openai" => {
            let format = body.get("text")?;
            assert_eq!(format["format"]["type"], "json_schema");
            assert_eq!(format["format"]["name"], "route");
            Some(format["format"]["schema"].clone())
        }
        "local" => {
            let format = body.get("response_format")?;
            assert_eq!(format["type"], "json_schema");
            assert_eq!(format["json_schema"]["name"], "route");
            Some(format["json_schema"]["schema"].clone())
        }
        _ => {
            let config = &body["generationConfig"];
            let schema = config.get("responseJsonSchema")?;
            assert_eq!(config["responseMimeType"], "application/json");
            Some(schema.clone())
        }
    }
}

/// A scratch folder holding `route.dot` and a `wf.toml` that makes
/// `provider` the default, plus `extra`.
fn scratch(test: &str, provider: &str, base: &str, extra: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("wfc-llm-structured-tests")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        repo_root().join("tests/run/dot/llm/route.dot"),
        dir.join("route.dot"),
    )
    .unwrap();
    let mut toml = format!("[llm]\nprovider = \"{provider}\"\nmodel = \"m-1\"\n");
    if provider == "local" {
        toml.push_str(&format!(
            "[llm.providers.local]\napi = \"openai-chat\"\nbase_url = \"{base}/v1\"\nretries = 0\n"
        ));
    } else {
        toml.push_str(&format!("[llm.providers.{provider}]\nretries = 0\n"));
    }
    toml.push_str(extra);
    std::fs::write(dir.join("wf.toml"), toml).unwrap();
    dir
}

/// Runs `route.dot` of `dir` with `--agent llm` against `fake`.
fn run(fake: &Fake, dir: &Path) -> Output {
    let mut cmd = Command::new(get_cargo_bin("wfc"));
    cmd.args(["run", dir.join("route.dot").to_str().unwrap()])
        .args(["--run-dir", dir.join("run").to_str().unwrap()])
        .args(["--events", dir.join("events.jsonl").to_str().unwrap()])
        .args(["--agent", "llm", "--format", "json", "--progress", "never"])
        .env("NO_COLOR", "1");
    for (key, url) in [
        ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
        ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
        ("GEMINI_API_KEY", "GEMINI_BASE_URL"),
    ] {
        cmd.env(key, KEY).env(url, &fake.base);
    }
    cmd.env_remove("GOOGLE_API_KEY");
    cmd.output().unwrap()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn status(dir: &Path, node: &str) -> Value {
    serde_json::from_str(&read(&dir.join("run").join(node).join("status.json"))).unwrap()
}

fn assert_ok(out: &Output, case: &str) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{case}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn each_api_routes_a_pipeline_by_its_structured_answer() {
    let answer: Value = serde_json::from_str(ANSWER).unwrap();
    for provider in PROVIDERS {
        for stream in [false, true] {
            let case = format!("{provider} stream={stream}");
            let fake = Fake::start(vec![
                structured(provider, &answer, stream),
                plain(provider, "Fixed the bug.", stream),
            ]);
            let dir = scratch(&format!("{provider}-{stream}"), provider, &fake.base, "");
            let out = run(&fake, &dir);
            assert_ok(&out, &case);
            let seen = fake.seen();
            assert_eq!(seen.len(), 2, "{case}: review, then fix");
            let schema = schema_sent(provider, &seen[0].1)
                .unwrap_or_else(|| panic!("{case}: no schema in {}", seen[0].1));
            assert_eq!(
                schema["properties"]["preferred_label"]["enum"],
                json!(["Approve", "Fix"]),
                "{case}"
            );
            assert_eq!(
                schema["properties"]["outcome"]["enum"],
                json!(["success", "partial_success", "retry", "fail"]),
                "{case}"
            );
            // `fix` has no choices: its request is as before.
            assert_eq!(schema_sent(provider, &seen[1].1), None, "{case}");
            // The prompt still tells the choices, for servers that ignore
            // the schema.
            assert!(
                read(&dir.join("run/review/prompt.md"))
                    .contains("exactly one of: \"Approve\", \"Fix\""),
                "{case}"
            );
            // The run took the label the structured answer gave.
            assert!(dir.join("run/fix/response.md").is_file(), "{case}");
            assert!(!dir.join("run/ship").exists(), "{case}");
            let review = status(&dir, "review");
            assert_eq!(review["outcome"], "success", "{case}: {review}");
            assert_eq!(review["context_updates"]["risk"], "low", "{case}");
            assert_eq!(review["usage"]["sent"]["structured_output"], true, "{case}");
            assert_eq!(
                status(&dir, "fix")["usage"]["sent"]["structured_output"],
                false,
                "{case}"
            );
            // The answer, tool input included, is the stage's response.
            let response: Value =
                serde_json::from_str(&read(&dir.join("run/review/response.md"))).unwrap();
            assert_eq!(response, answer, "{case}");
        }
    }
}

#[test]
fn a_malformed_tool_input_is_a_retry_with_the_reason() {
    let bad = json!({"outcome": "success", "preferred_label": "Ship", "context_updates": {}, "notes": ""});
    let good: Value = serde_json::from_str(ANSWER).unwrap();
    let fake = Fake::start(vec![
        structured("anthropic", &bad, true),
        structured("anthropic", &good, true),
        plain("anthropic", "Fixed.", true),
    ]);
    let dir = scratch("malformed", "anthropic", &fake.base, "");
    let out = run(&fake, &dir);
    assert_ok(&out, "malformed");
    // `review` (max_retries=1) was asked again, then routed to `fix`.
    let seen = fake.seen();
    assert_eq!(seen.len(), 3);
    assert!(schema_sent("anthropic", &seen[1].1).is_some());
    assert!(dir.join("run/fix/response.md").is_file());
    let events = read(&dir.join("events.jsonl"));
    assert!(
        events.contains(
            "node `review`: the answer's `preferred_label` is \\\"Ship\\\", which is none of the choices: \\\"Approve\\\", \\\"Fix\\\""
        ),
        "{events}"
    );
}

#[test]
fn with_structured_output_off_no_schema_is_sent_and_the_text_routes() {
    for provider in ["anthropic", "local"] {
        let text = format!("The change has one bug.\n{ANSWER}");
        let fake = Fake::start(vec![
            plain(provider, &text, true),
            plain(provider, "Fixed.", true),
        ]);
        // Appended to the provider's table, the last of wf.toml.
        let extra = "structured_output = false\n";
        let dir = scratch(&format!("off-{provider}"), provider, &fake.base, extra);
        let out = run(&fake, &dir);
        assert_ok(&out, provider);
        let seen = fake.seen();
        assert_eq!(schema_sent(provider, &seen[0].1), None, "{provider}");
        assert!(dir.join("run/fix/response.md").is_file(), "{provider}");
        assert_eq!(
            status(&dir, "review")["usage"]["sent"]["structured_output"],
            false
        );
    }
}

#[test]
fn a_server_that_rejects_the_schema_names_the_switch_and_resume_runs_without_it() {
    let rejected = json!({"error": {"message": "Unsupported response_format type: json_schema", "type": "BadRequestError", "code": 400}});
    let answer = format!("One bug.\n{ANSWER}");
    let fake = Fake::start(vec![
        Reply::Json(400, rejected.to_string()),
        Reply::Json(400, rejected.to_string()),
        plain("local", &answer, true),
        plain("local", "Fixed.", true),
    ]);
    let dir = scratch("rejected", "local", &fake.base, "");
    let out = run(&fake, &dir);
    // A durable run suspends on the agent's error, naming the way out.
    assert_eq!(out.status.code(), Some(3));
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        all.contains(
            "local answered HTTP 400: Unsupported response_format type: json_schema (the request asked for \
             the routing answer as structured output; if the server does not support it, set \
             `structured_output = false` under [llm.providers.local] in wf.toml)"
        ),
        "{all}"
    );
    // Not retried over HTTP: the two requests are the stage's two
    // attempts (`max_retries=1`).
    assert_eq!(fake.seen().len(), 2);
    // Switched off, the resumed run routes by the text's JSON object.
    let toml = dir.join("wf.toml");
    std::fs::write(&toml, read(&toml) + "structured_output = false\n").unwrap();
    let out = Command::new(get_cargo_bin("wfc"))
        .args(["run", "--resume", dir.join("run").to_str().unwrap()])
        .args(["--agent", "llm", "--format", "json", "--progress", "never"])
        .output()
        .unwrap();
    assert_ok(&out, "resume");
    let seen = fake.seen();
    assert_eq!(seen.len(), 4);
    assert_eq!(schema_sent("local", &seen[2].1), None);
    assert!(dir.join("run/fix/response.md").is_file());
}

#[test]
fn wfc_check_refuses_a_structured_output_that_is_not_a_bool() {
    let dir = scratch(
        "check",
        "local",
        "http://127.0.0.1:9",
        "structured_output = \"no\"\n",
    );
    let out = Command::new(get_cargo_bin("wfc"))
        .args(["check", dir.join("route.dot").to_str().unwrap()])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .contains("wf.toml:4:1: `llm.providers.local.structured_output` must be true or false"),
        "{stderr}"
    );
}
