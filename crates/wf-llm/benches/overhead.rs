//! The backend's own overhead per stage, without the model's latency: a
//! whole call (request body, HTTP over loopback, reading and parsing the
//! answer, usage) against a fake server that answers at once, for each API,
//! whole and streamed (SSE, 40 text deltas).
//!
//! `cargo bench -p wf-llm --bench overhead`; the figures are in
//! `docs/performance.md` ("LLM backends").

use std::hint::black_box;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use wf_llm::config::LlmConfig;
use wf_llm::{Api, Backend, Request};

/// An answer of `api` of about 1 KB of text, whole or as SSE.
fn answer(api: Api, stream: bool) -> (String, String) {
    let piece = "word ".repeat(5);
    let text = piece.repeat(40);
    let usage = json!({"input_tokens": 100, "output_tokens": 50});
    if !stream {
        let body = match api {
            Api::Anthropic => {
                json!({"type": "message", "content": [{"type": "text", "text": text}], "usage": usage})
            }
            Api::OpenAiResponses => {
                json!({"output": [{"type": "message", "content": [{"type": "output_text", "text": text}]}], "usage": usage})
            }
            Api::OpenAiChat => {
                json!({"choices": [{"message": {"content": text}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 100, "completion_tokens": 50}})
            }
            Api::Gemini => {
                json!({"candidates": [{"content": {"parts": [{"text": text}]}, "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 50}})
            }
        };
        return ("application/json".into(), body.to_string());
    }
    let ev = |name: &str, data: Value| format!("event: {name}\ndata: {data}\n\n");
    let mut out = String::new();
    match api {
        Api::Anthropic => {
            out += &ev(
                "message_start",
                json!({"type": "message_start", "message": {"usage": {"input_tokens": 100}}}),
            );
            for _ in 0..40 {
                out += &ev(
                    "content_block_delta",
                    json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}}),
                );
            }
            out += &ev(
                "message_delta",
                json!({"type": "message_delta", "usage": {"output_tokens": 50}}),
            );
            out += &ev("message_stop", json!({"type": "message_stop"}));
        }
        Api::OpenAiResponses => {
            for _ in 0..40 {
                out += &ev(
                    "response.output_text.delta",
                    json!({"type": "response.output_text.delta", "delta": piece}),
                );
            }
            out += &ev(
                "response.completed",
                json!({"type": "response.completed", "response": {"output": [], "usage": usage}}),
            );
        }
        Api::OpenAiChat => {
            for _ in 0..40 {
                out += &format!(
                    "data: {}\n\n",
                    json!({"choices": [{"delta": {"content": piece}, "finish_reason": null}]})
                );
            }
            out += &format!(
                "data: {}\n\n",
                json!({"choices": [{"delta": {}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 100, "completion_tokens": 50}})
            );
            out += "data: [DONE]\n\n";
        }
        Api::Gemini => {
            for i in 0..40 {
                let mut c = json!({"candidates": [{"content": {"parts": [{"text": piece}]}}]});
                if i == 39 {
                    c["candidates"][0]["finishReason"] = json!("STOP");
                    c["usageMetadata"] =
                        json!({"promptTokenCount": 100, "candidatesTokenCount": 50});
                }
                out += &format!("data: {c}\n\n");
            }
        }
    }
    ("text/event-stream".into(), out)
}

/// A server answering every request at once with `reply`; its base URL.
fn serve(reply: (String, String)) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { break };
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
            let (kind, text) = &reply;
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                text.len()
            );
        }
    });
    base
}

fn overhead(c: &mut Criterion) {
    let mut group = c.benchmark_group("call");
    group.measurement_time(Duration::from_secs(3));
    let backend = Backend::new();
    for (name, api) in Api::ALL {
        for stream in [false, true] {
            let base = serve(answer(api, stream));
            let mut config = LlmConfig::default();
            config.providers.insert(
                "p".into(),
                wf_llm::config::ProviderTable {
                    api: Some(api),
                    base_url: Some(base),
                    api_key_env: Some("KEY".into()),
                    ..Default::default()
                },
            );
            let settings = config
                .resolve("p", &|_| Some("sk-bench".to_string()))
                .unwrap();
            let request = Request {
                model: "m".into(),
                history: vec![],
                prompt: "Plan the work. ".repeat(20),
                reasoning_effort: None,
                max_output_tokens: 1024,
                stream,
                structured: None,
            };
            let id = format!("{name}/{}", if stream { "sse" } else { "json" });
            group.bench_function(id, |b| {
                b.iter(|| {
                    let mut pieces = 0;
                    let called = backend
                        .call_with(
                            &settings,
                            &request,
                            Duration::from_secs(5),
                            None,
                            &mut |_| pieces += 1,
                        )
                        .unwrap();
                    black_box((called.response.text.len(), pieces))
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, overhead);
criterion_main!(benches);
