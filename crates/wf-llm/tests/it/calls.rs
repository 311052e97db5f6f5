//! Calls against fake providers: request shapes, answers, usage, and the
//! failures of the real world.

use std::time::{Duration, Instant};

use wf_llm::config::{LlmConfig, ProviderSettings};
use wf_llm::{Api, Backend, ErrorKind, Request};

use crate::fake::{self, Fake, Reply};

const KEY: &str = "sk-test-SECRET-4242";

fn settings(api: Api, base: &str) -> ProviderSettings {
    let name = match api {
        Api::Anthropic => "anthropic",
        Api::OpenAiResponses => "openai",
        Api::OpenAiChat => "local",
        Api::Gemini => "gemini",
    };
    let mut config = LlmConfig::default();
    config.providers.insert(
        name.into(),
        wf_llm::config::ProviderTable {
            api: Some(api),
            base_url: Some(base.into()),
            api_key_env: Some("KEY".into()),
            ..Default::default()
        },
    );
    let mut s = config
        .resolve(name, &|v| (v == "KEY").then(|| KEY.to_string()))
        .unwrap();
    s.retry_delay = Duration::from_millis(10);
    s
}

fn request(model: &str) -> Request {
    Request {
        model: model.into(),
        history: vec![],
        prompt: "Say hi".into(),
        reasoning_effort: None,
        max_output_tokens: 256,
        stream: false,
        structured: None,
    }
}

fn ok(body: String) -> Reply {
    Reply::Http(200, vec![], body)
}

#[test]
fn anthropic_messages() {
    let fake = Fake::start(vec![ok(fake::anthropic("Hello!"))]);
    let mut req = request("claude-sonnet-4-6");
    req.reasoning_effort = Some("low".into());
    let got = Backend::new()
        .call(
            &settings(Api::Anthropic, &fake.base),
            &req,
            Duration::from_secs(5),
        )
        .unwrap();
    assert_eq!(got.response.text, "Hello!");
    assert_eq!(got.response.usage.input, 120);
    assert_eq!(got.response.usage.cached, 20);
    assert_eq!(got.response.usage.output, 50);
    let seen = &fake.seen()[0];
    assert_eq!(seen.path, "/v1/messages");
    assert!(seen.headers.contains(&("x-api-key".into(), KEY.into())));
    assert!(seen.headers.iter().any(|(k, _)| k == "anthropic-version"));
    let body: serde_json::Value = serde_json::from_str(&seen.body).unwrap();
    assert_eq!(body["messages"][0]["content"], "Say hi");
    assert_eq!(body["thinking"]["budget_tokens"], 1024);
    assert_eq!(body["max_tokens"], 256 + 1024);
}

#[test]
fn openai_responses() {
    let fake = Fake::start(vec![ok(fake::openai_responses("Hi there"))]);
    let mut req = request("gpt-5.4");
    req.reasoning_effort = Some("high".into());
    let got = Backend::new()
        .call(
            &settings(Api::OpenAiResponses, &fake.base),
            &req,
            Duration::from_secs(5),
        )
        .unwrap();
    assert_eq!(got.response.text, "Hi there");
    let u = got.response.usage;
    assert_eq!((u.input, u.output, u.cached, u.reasoning), (80, 40, 10, 12));
    let seen = &fake.seen()[0];
    assert_eq!(seen.path, "/responses");
    assert!(
        seen.headers
            .contains(&("authorization".into(), format!("Bearer {KEY}")))
    );
    let body: serde_json::Value = serde_json::from_str(&seen.body).unwrap();
    assert_eq!(body["input"], "Say hi");
    assert_eq!(body["reasoning"]["effort"], "high");
    assert_eq!(body["max_output_tokens"], 256);
}

#[test]
fn openai_chat_completions_on_any_base_url() {
    let fake = Fake::start(vec![ok(fake::openai_chat("Yo"))]);
    let base = format!("{}/v1/", fake.base);
    let got = Backend::new()
        .call(
            &settings(Api::OpenAiChat, &base),
            &request("qwen3"),
            Duration::from_secs(5),
        )
        .unwrap();
    assert_eq!(got.response.text, "Yo");
    assert_eq!(got.response.usage.input, 30);
    assert_eq!(fake.seen()[0].path, "/v1/chat/completions");
}

#[test]
fn gemini_generate_content() {
    let fake = Fake::start(vec![ok(fake::gemini("Hallo"))]);
    let got = Backend::new()
        .call(
            &settings(Api::Gemini, &fake.base),
            &request("gemini-3-flash-preview"),
            Duration::from_secs(5),
        )
        .unwrap();
    // The thought part is not the answer.
    assert_eq!(got.response.text, "Hallo");
    assert_eq!(got.response.usage.output, 25);
    assert_eq!(got.response.usage.reasoning, 5);
    let seen = &fake.seen()[0];
    assert_eq!(
        seen.path,
        "/v1beta/models/gemini-3-flash-preview:generateContent"
    );
    assert!(
        seen.headers
            .contains(&("x-goog-api-key".into(), KEY.into()))
    );
}

#[test]
fn rate_limits_are_retried_after_the_servers_delay() {
    let fake = Fake::start(vec![
        Reply::Http(
            429,
            vec![("retry-after", "1".into())],
            r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#.into(),
        ),
        ok(fake::anthropic("finally")),
    ]);
    let started = Instant::now();
    let got = Backend::new()
        .call(
            &settings(Api::Anthropic, &fake.base),
            &request("m"),
            Duration::from_secs(5),
        )
        .unwrap();
    assert_eq!(got.response.text, "finally");
    assert_eq!(got.attempts, 2);
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn server_errors_are_retried_then_reported() {
    let body = r#"{"error":{"message":"overloaded","type":"server_error"}}"#;
    let fake = Fake::start(vec![Reply::Http(500, vec![], body.into())]);
    let mut s = settings(Api::OpenAiResponses, &fake.base);
    s.retries = 2;
    let err = Backend::new()
        .call(&s, &request("m"), Duration::from_secs(5))
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Status(500));
    assert_eq!(fake.seen().len(), 3);
    assert!(
        err.message.contains("HTTP 500: overloaded"),
        "{}",
        err.message
    );
    assert!(err.message.contains("after 3 attempts"), "{}", err.message);
}

#[test]
fn other_client_errors_are_not_retried_and_never_show_the_key() {
    // A server that echoes the key back must not get it into the message.
    let body = format!(r#"{{"error":{{"message":"invalid x-api-key {KEY}"}}}}"#);
    let fake = Fake::start(vec![Reply::Http(401, vec![], body)]);
    let err = Backend::new()
        .call(
            &settings(Api::Anthropic, &fake.base),
            &request("m"),
            Duration::from_secs(5),
        )
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Status(401));
    assert_eq!(fake.seen().len(), 1);
    assert!(!err.message.contains(KEY), "{}", err.message);
    assert!(err.message.contains("[redacted]"), "{}", err.message);
    assert!(!format!("{:?}", settings(Api::Anthropic, &fake.base)).contains(KEY));
}

#[test]
fn malformed_json_is_a_clear_error() {
    let fake = Fake::start(vec![ok("{\"content\": [".into())]);
    let err = Backend::new()
        .call(
            &settings(Api::Anthropic, &fake.base),
            &request("m"),
            Duration::from_secs(5),
        )
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Malformed);
    assert!(err.message.contains("not JSON"), "{}", err.message);
    let fake = Fake::start(vec![ok("{\"candidates\": []}".into())]);
    let err = Backend::new()
        .call(
            &settings(Api::Gemini, &fake.base),
            &request("m"),
            Duration::from_secs(5),
        )
        .unwrap_err();
    assert!(err.message.contains("no `candidates`"), "{}", err.message);
}

#[test]
fn a_stalled_connection_times_out() {
    let fake = Fake::start(vec![Reply::Stall(Duration::from_secs(5))]);
    let mut s = settings(Api::OpenAiChat, &fake.base);
    s.retries = 0;
    let started = Instant::now();
    let err = Backend::new()
        .call(&s, &request("m"), Duration::from_millis(300))
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Timeout);
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(err.message.contains("within 0.3 s"), "{}", err.message);
}

#[test]
fn a_50_mb_body_is_refused_not_read() {
    let fake = Fake::start(vec![Reply::Huge(50 * 1024 * 1024)]);
    let err = Backend::new()
        .call(
            &settings(Api::OpenAiChat, &fake.base),
            &request("m"),
            Duration::from_secs(20),
        )
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::TooLarge, "{}", err.message);
    assert!(!err.retryable());
}

#[test]
fn the_concurrency_cap_holds_calls_back() {
    let fake = Fake::start(vec![Reply::Stall(Duration::from_millis(300))]);
    let mut s = settings(Api::OpenAiChat, &fake.base);
    s.concurrency = 1;
    s.retries = 0;
    let backend = Backend::new();
    let started = Instant::now();
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let (b, s) = (backend.clone(), s.clone());
            std::thread::spawn(move || b.call(&s, &request("m"), Duration::from_millis(200)))
        })
        .collect();
    for t in threads {
        assert!(t.join().unwrap().is_err());
    }
    // One at a time: two timeouts of 200 ms back to back.
    assert!(
        started.elapsed() >= Duration::from_millis(390),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn no_retry_starts_past_the_stages_deadline() {
    let fake = Fake::start(vec![Reply::Http(
        429,
        vec![("retry-after", "2".into())],
        r#"{"error":{"message":"slow down"}}"#.into(),
    )]);
    let started = Instant::now();
    let deadline = Some(started + Duration::from_secs(1));
    let err = Backend::new()
        .call_until(
            &settings(Api::OpenAiResponses, &fake.base),
            &request("m"),
            Duration::from_secs(5),
            deadline,
        )
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Status(429));
    assert!(
        err.message.contains("no time left in the stage's timeout"),
        "{}",
        err.message
    );
    assert_eq!(fake.seen().len(), 1);
    assert!(started.elapsed() < Duration::from_millis(900));
}

/// An API, a model, its fake stream and the usage it reports as
/// `(input, output, cached)`.
type StreamCase = (
    Api,
    &'static str,
    fn(&[&str]) -> Vec<String>,
    (u64, u64, u64),
);

/// Each API's stream case.
fn streams() -> Vec<StreamCase> {
    vec![
        (
            Api::Anthropic,
            "claude-sonnet-4-6",
            fake::anthropic_sse,
            (120, 50, 20),
        ),
        (
            Api::OpenAiResponses,
            "gpt-5.4",
            fake::openai_responses_sse,
            (80, 40, 10),
        ),
        (Api::OpenAiChat, "qwen3", fake::openai_chat_sse, (30, 7, 0)),
        (
            Api::Gemini,
            "gemini-3-flash-preview",
            fake::gemini_sse,
            (60, 25, 0),
        ),
    ]
}

#[test]
fn every_api_streams_its_text_as_it_arrives() {
    let pieces = ["Hel", "lo, ", "wor", "ld"];
    for (api, model, sse, (input, output, cached)) in streams() {
        let fake = Fake::start(vec![Reply::Sse(sse(&pieces), Duration::from_millis(40))]);
        let mut req = request(model);
        req.stream = true;
        let started = Instant::now();
        let mut got: Vec<(String, Duration)> = Vec::new();
        let called = Backend::new()
            .call_with(
                &settings(api, &fake.base),
                &req,
                Duration::from_secs(5),
                None,
                &mut |c| {
                    if let wf_llm::Chunk::Text(t) = c {
                        got.push((t.to_string(), started.elapsed()));
                    }
                },
            )
            .unwrap_or_else(|e| panic!("{api:?}: {e}"));
        let total = started.elapsed();
        assert_eq!(called.response.text, "Hello, world", "{api:?}");
        let texts: Vec<&str> = got.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(texts, pieces, "{api:?}: the deltas, in order");
        // The first piece came well before the stream ended.
        assert!(
            got[0].1 + Duration::from_millis(150) < total,
            "{api:?}: {got:?} of {total:?}"
        );
        let u = called.response.usage;
        assert_eq!(
            (u.input, u.output, u.cached),
            (input, output, cached),
            "{api:?}"
        );
        let seen = &fake.seen()[0];
        let body: serde_json::Value = serde_json::from_str(&seen.body).unwrap();
        if api == Api::Gemini {
            assert!(
                seen.path.ends_with(":streamGenerateContent?alt=sse"),
                "{}",
                seen.path
            );
        } else {
            assert_eq!(body["stream"], true, "{api:?}");
        }
        if api == Api::OpenAiChat {
            assert_eq!(body["stream_options"]["include_usage"], true);
        }
    }
}

#[test]
fn a_cut_or_malformed_stream_is_retried_with_the_reason() {
    for (api, model, sse, _) in streams() {
        let full = sse(&["one ", "two"]);
        // Cut before the end marker (a finish reason, for Chat
        // Completions and Gemini).
        let cut = full[..2].to_vec();
        let broken = vec![full[0].clone(), "data: {\"oops\n\n".to_string()];
        let mut s = settings(api, "");
        let mut req = request(model);
        req.stream = true;
        for bad in [cut, broken] {
            let fake = Fake::start(vec![
                Reply::Sse(bad.clone(), Duration::ZERO),
                Reply::Sse(full.clone(), Duration::ZERO),
            ]);
            s.base_url = fake.base.clone();
            s.retries = 1;
            let mut attempts = Vec::new();
            let called = Backend::new()
                .call_with(&s, &req, Duration::from_secs(5), None, &mut |c| {
                    if let wf_llm::Chunk::Attempt(n) = c {
                        attempts.push(n);
                    }
                })
                .unwrap_or_else(|e| panic!("{api:?}: {e}"));
            assert_eq!(called.response.text, "one two", "{api:?}");
            assert_eq!((called.attempts, attempts), (2, vec![1, 2]), "{api:?}");
            // Without a retry left, the reason says what broke.
            let fake = Fake::start(vec![Reply::Sse(bad, Duration::ZERO)]);
            s.base_url = fake.base.clone();
            s.retries = 0;
            let e = Backend::new()
                .call_with(&s, &req, Duration::from_secs(5), None, &mut |_| {})
                .unwrap_err();
            assert_eq!(e.kind, ErrorKind::Stream, "{api:?}: {e}");
            assert!(e.retryable());
            assert!(e.message.contains("streamed a broken answer"), "{e}");
            assert!(
                e.message.contains("the stream ended before") || e.message.contains("not JSON"),
                "{e}"
            );
        }
    }
}

#[test]
fn a_thread_sends_its_earlier_turns() {
    use wf_llm::{Role, Turn};
    for (api, model, _, _) in streams() {
        let body = match api {
            Api::Anthropic => fake::anthropic("ok"),
            Api::OpenAiResponses => fake::openai_responses("ok"),
            Api::OpenAiChat => fake::openai_chat("ok"),
            Api::Gemini => fake::gemini("ok"),
        };
        let fake = Fake::start(vec![ok(body)]);
        let mut req = request(model);
        req.history = vec![
            Turn {
                role: Role::User,
                text: "first".into(),
            },
            Turn {
                role: Role::Assistant,
                text: "answer".into(),
            },
        ];
        req.prompt = "second".into();
        assert_eq!(req.message_count(), 3);
        Backend::new()
            .call(&settings(api, &fake.base), &req, Duration::from_secs(5))
            .unwrap();
        let body: serde_json::Value = serde_json::from_str(&fake.seen()[0].body).unwrap();
        let got: Vec<(String, String)> = match api {
            Api::Gemini => body["contents"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    (
                        m["role"].as_str().unwrap().into(),
                        m["parts"][0]["text"].as_str().unwrap().into(),
                    )
                })
                .collect(),
            _ => body[if api == Api::OpenAiResponses {
                "input"
            } else {
                "messages"
            }]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["role"].as_str().unwrap().into(),
                    m["content"].as_str().unwrap().into(),
                )
            })
            .collect(),
        };
        let assistant = if api == Api::Gemini {
            "model"
        } else {
            "assistant"
        };
        let want = [("user", "first"), (assistant, "answer"), ("user", "second")];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert_eq!(got, want, "{api:?}");
    }
}
