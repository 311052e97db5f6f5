//! A fake provider on an ephemeral loopback port: it answers each request
//! with the next scripted reply and records what it was sent.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// One scripted reply.
#[derive(Clone)]
pub enum Reply {
    /// Status, extra headers, body.
    Http(u16, Vec<(&'static str, String)>, String),
    /// Read the request, then say nothing for this long.
    Stall(Duration),
    /// A 200 whose body is this many bytes of JSON-looking text.
    Huge(usize),
    /// A 200 `text/event-stream` sent a piece at a time, flushed, with
    /// `pause` between pieces; then the connection closes.
    Sse(Vec<String>, Duration),
}

/// A request the server saw.
#[derive(Clone, Debug)]
pub struct Seen {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

/// A running fake server.
pub struct Fake {
    pub base: String,
    pub seen: Arc<Mutex<Vec<Seen>>>,
}

impl Fake {
    /// Starts a server answering with `replies` in order (the last one
    /// repeats).
    pub fn start(replies: Vec<Reply>) -> Fake {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        thread::spawn(move || {
            for (n, stream) in listener.incoming().enumerate() {
                let Ok(stream) = stream else { break };
                let reply = replies[n.min(replies.len() - 1)].clone();
                let log = log.clone();
                thread::spawn(move || serve(stream, reply, &log));
            }
        });
        Fake { base, seen }
    }

    /// The requests seen so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn serve(stream: TcpStream, reply: Reply, log: &Mutex<Vec<Seen>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let mut headers = Vec::new();
    let mut length = 0;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.trim().split_once(':') {
            let (k, v) = (k.trim().to_ascii_lowercase(), v.trim().to_string());
            if k == "content-length" {
                length = v.parse().unwrap_or(0);
            }
            headers.push((k, v));
        }
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    log.lock().unwrap().push(Seen {
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    let mut out = stream;
    match reply {
        Reply::Stall(d) => thread::sleep(d),
        Reply::Http(status, extra, body) => {
            let mut head = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                body.len()
            );
            for (k, v) in extra {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str("\r\n");
            let _ = out.write_all(head.as_bytes());
            let _ = out.write_all(body.as_bytes());
        }
        Reply::Sse(pieces, pause) => {
            let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n";
            let _ = out.write_all(head.as_bytes());
            for piece in pieces {
                if out.write_all(piece.as_bytes()).is_err() || out.flush().is_err() {
                    break;
                }
                thread::sleep(pause);
            }
        }
        Reply::Huge(n) => {
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {n}\r\nconnection: close\r\n\r\n"
            );
            let _ = out.write_all(head.as_bytes());
            let chunk = vec![b' '; 64 * 1024];
            let mut left = n;
            while left > 0 {
                let k = left.min(chunk.len());
                if out.write_all(&chunk[..k]).is_err() {
                    break;
                }
                left -= k;
            }
        }
    }
}

/// An Anthropic Messages answer.
pub fn anthropic(text: &str) -> String {
    serde_json::json!({
        "id": "msg_01", "type": "message", "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": [{"type": "thinking", "thinking": "hmm", "signature": "s"}, {"type": "text", "text": text}],
        "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {"input_tokens": 100, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 20, "output_tokens": 50}
    })
    .to_string()
}

/// An OpenAI Responses answer.
pub fn openai_responses(text: &str) -> String {
    serde_json::json!({
        "id": "resp_1", "object": "response", "status": "completed", "model": "gpt-5.4",
        "output": [
            {"id": "rs_1", "type": "reasoning", "summary": []},
            {"id": "msg_1", "type": "message", "status": "completed", "role": "assistant",
             "content": [{"type": "output_text", "text": text, "annotations": []}]}
        ],
        "usage": {"input_tokens": 80, "input_tokens_details": {"cached_tokens": 10},
                  "output_tokens": 40, "output_tokens_details": {"reasoning_tokens": 12}, "total_tokens": 120}
    })
    .to_string()
}

/// An OpenAI Chat Completions answer.
pub fn openai_chat(text: &str) -> String {
    serde_json::json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "qwen3",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 30, "completion_tokens": 7, "total_tokens": 37,
                  "prompt_tokens_details": {"cached_tokens": 0}, "completion_tokens_details": {"reasoning_tokens": 0}}
    })
    .to_string()
}

/// A Gemini generateContent answer.
pub fn gemini(text: &str) -> String {
    serde_json::json!({
        "candidates": [{"content": {"parts": [{"text": "thinking…", "thought": true}, {"text": text}], "role": "model"},
                        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 60, "candidatesTokenCount": 20, "thoughtsTokenCount": 5,
                          "cachedContentTokenCount": 0, "totalTokenCount": 85},
        "modelVersion": "gemini-3-flash-preview"
    })
    .to_string()
}

/// One SSE event as the wire carries it.
fn event(name: Option<&str>, data: &serde_json::Value) -> String {
    match name {
        Some(n) => format!("event: {n}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    }
}

/// An Anthropic Messages stream of `pieces` (message_start, a thinking
/// block, a text block of deltas, message_delta, message_stop).
pub fn anthropic_sse(pieces: &[&str]) -> Vec<String> {
    use serde_json::json;
    let mut out = vec![
        event(
            Some("message_start"),
            &json!({"type": "message_start", "message": {
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
            "content": [], "stop_reason": null,
            "usage": {"input_tokens": 100, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 20, "output_tokens": 1}}}),
        ),
        event(
            Some("content_block_start"),
            &json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
        ),
        event(
            Some("content_block_delta"),
            &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "hmm"}}),
        ),
        event(
            Some("content_block_stop"),
            &json!({"type": "content_block_stop", "index": 0}),
        ),
        event(
            Some("content_block_start"),
            &json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
        ),
        ": a comment line\n\nevent: ping\ndata: {\"type\": \"ping\"}\n\n".to_string(),
    ];
    for p in pieces {
        out.push(event(Some("content_block_delta"), &json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": p}})));
    }
    out.push(event(
        Some("content_block_stop"),
        &json!({"type": "content_block_stop", "index": 1}),
    ));
    out.push(event(Some("message_delta"), &json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"output_tokens": 50}})));
    out.push(event(
        Some("message_stop"),
        &json!({"type": "message_stop"}),
    ));
    out
}

/// An OpenAI Responses stream of `pieces`.
pub fn openai_responses_sse(pieces: &[&str]) -> Vec<String> {
    use serde_json::json;
    let text: String = pieces.concat();
    let mut out = vec![
        event(
            Some("response.created"),
            &json!({"type": "response.created", "sequence_number": 0, "response": {"id": "resp_1", "status": "in_progress", "output": []}}),
        ),
        event(
            Some("response.output_item.added"),
            &json!({"type": "response.output_item.added", "output_index": 0, "item": {"id": "msg_1", "type": "message", "role": "assistant", "content": []}}),
        ),
    ];
    for p in pieces {
        out.push(event(Some("response.output_text.delta"), &json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": p})));
    }
    out.push(event(Some("response.output_text.done"), &json!({"type": "response.output_text.done", "item_id": "msg_1", "output_index": 0, "content_index": 0, "text": text})));
    let done: serde_json::Value = serde_json::from_str(&openai_responses(&text)).unwrap();
    out.push(event(
        Some("response.completed"),
        &json!({"type": "response.completed", "response": done}),
    ));
    out
}

/// A Chat Completions stream of `pieces`, with the usage chunk that
/// `stream_options.include_usage` asks for, then `[DONE]`.
pub fn openai_chat_sse(pieces: &[&str]) -> Vec<String> {
    use serde_json::json;
    let chunk = |delta: serde_json::Value, finish: serde_json::Value| {
        event(
            None,
            &json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "qwen3",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], "usage": null}),
        )
    };
    let mut out = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        json!(null),
    )];
    for p in pieces {
        out.push(chunk(json!({"content": p}), json!(null)));
    }
    out.push(chunk(json!({}), json!("stop")));
    out.push(event(None, &json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "qwen3", "choices": [],
        "usage": {"prompt_tokens": 30, "completion_tokens": 7, "total_tokens": 37}})));
    out.push("data: [DONE]\n\n".into());
    out
}

/// A Gemini `streamGenerateContent?alt=sse` stream of `pieces`: each chunk
/// a whole GenerateContentResponse, the last with the finish reason and
/// the usage.
pub fn gemini_sse(pieces: &[&str]) -> Vec<String> {
    use serde_json::json;
    let mut out = vec![event(
        None,
        &json!({"candidates": [{"content": {"parts": [{"text": "thinking…", "thought": true}], "role": "model"}, "index": 0}]}),
    )];
    let last = pieces.len().saturating_sub(1);
    for (i, p) in pieces.iter().enumerate() {
        let mut c = json!({"candidates": [{"content": {"parts": [{"text": p}], "role": "model"}, "index": 0}], "modelVersion": "gemini-3-flash-preview"});
        if i == last {
            c["candidates"][0]["finishReason"] = json!("STOP");
            c["usageMetadata"] = json!({"promptTokenCount": 60, "candidatesTokenCount": 20, "thoughtsTokenCount": 5, "totalTokenCount": 85});
        }
        out.push(event(None, &c));
    }
    out
}

/// An Anthropic Messages answer that calls the routing tool with `input`
/// (what a forced `tool_choice` gives: no text, one `tool_use` block).
pub fn anthropic_tool(input: &serde_json::Value) -> String {
    serde_json::json!({
        "id": "msg_01", "type": "message", "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": [{"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "route", "input": input}],
        "stop_reason": "tool_use", "stop_sequence": null,
        "usage": {"input_tokens": 100, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 20, "output_tokens": 50}
    })
    .to_string()
}

/// An Anthropic Messages stream calling the routing tool, its input sent
/// as `pieces` of JSON text (`input_json_delta`).
pub fn anthropic_tool_sse(pieces: &[&str]) -> Vec<String> {
    use serde_json::json;
    let mut out = vec![
        event(
            Some("message_start"),
            &json!({"type": "message_start", "message": {
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
            "content": [], "stop_reason": null,
            "usage": {"input_tokens": 100, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 20, "output_tokens": 1}}}),
        ),
        event(
            Some("content_block_start"),
            &json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_01", "name": "route", "input": {}}}),
        ),
        event(
            Some("content_block_delta"),
            &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": ""}}),
        ),
    ];
    for p in pieces {
        out.push(event(Some("content_block_delta"), &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": p}})));
    }
    out.push(event(
        Some("content_block_stop"),
        &json!({"type": "content_block_stop", "index": 0}),
    ));
    out.push(event(Some("message_delta"), &json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 50}})));
    out.push(event(
        Some("message_stop"),
        &json!({"type": "message_stop"}),
    ));
    out
}

/// A Gemini answer under `responseMimeType: application/json`: the JSON
/// is `candidates[0].content.parts[0].text`.
pub fn gemini_json(text: &str) -> String {
    serde_json::json!({
        "candidates": [{"content": {"parts": [{"text": text}], "role": "model"},
                        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 60, "candidatesTokenCount": 20, "totalTokenCount": 80},
        "modelVersion": "gemini-3-flash-preview"
    })
    .to_string()
}
