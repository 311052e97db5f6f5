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
        prompt: "Say hi".into(),
        reasoning_effort: None,
        max_output_tokens: 256,
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
