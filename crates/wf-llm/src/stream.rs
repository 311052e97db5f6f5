//! Streamed answers: server-sent events (SSE) as each API sends them, read
//! one line at a time so that the text can be shown as it arrives.
//!
//! | API | text deltas | end of the answer | usage |
//! |---|---|---|---|
//! | Anthropic | `content_block_delta` with a `text_delta` (or the routing tool's `input_json_delta`) | `message_stop` | `message_start` + `message_delta` |
//! | OpenAI Responses | `response.output_text.delta` | `response.completed` | in `response.completed` |
//! | Chat Completions | `choices[0].delta.content` | `data: [DONE]` or a `finish_reason` | the last chunk (`include_usage`) |
//! | Gemini | `candidates[0].content.parts[].text` | a `finishReason` | `usageMetadata` of the last chunk |
//!
//! A stream that ends before its end marker, or an event that is not the
//! JSON the API sends, is an error naming what was wrong: the caller
//! retries it like a dropped connection.

use serde_json::{Value, json};

use crate::provider::{self, Api, Response};

/// One server-sent event: its `event:` name (empty when none) and its
/// `data:` lines joined with newlines.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Event {
    /// The `event:` field.
    pub name: String,
    /// The `data:` field.
    pub data: String,
}

/// Splits a byte stream into events, a line at a time (SSE: fields
/// `name: value`, an empty line ends an event, `:` starts a comment).
#[derive(Debug, Default)]
pub struct Decoder {
    current: Event,
    has_data: bool,
}

impl Decoder {
    /// Feeds one line (without its line ending); returns the event it
    /// completes, if any.
    pub fn line(&mut self, line: &str) -> Option<Event> {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            return self.flush();
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "event" => self.current.name = value.to_string(),
            "data" => {
                if self.has_data {
                    self.current.data.push('\n');
                }
                self.current.data.push_str(value);
                self.has_data = true;
            }
            _ => {}
        }
        None
    }

    /// The event still pending at the end of the stream (a server may
    /// omit the last empty line).
    pub fn flush(&mut self) -> Option<Event> {
        let event = std::mem::take(&mut self.current);
        std::mem::take(&mut self.has_data).then_some(event)
    }
}

/// Gathers one streamed answer from its events.
#[derive(Debug)]
pub struct Accumulator {
    api: Api,
    text: String,
    /// The usage fields seen so far (merged: Anthropic splits them).
    usage: serde_json::Map<String, Value>,
    /// OpenAI Responses: the final `response` object.
    completed: Option<Value>,
    /// Anthropic: the index of the routing tool's `tool_use` block.
    tool_block: Option<u64>,
    done: bool,
}

impl Accumulator {
    /// An empty answer of `api`.
    pub fn new(api: Api) -> Self {
        Accumulator {
            api,
            text: String::new(),
            usage: serde_json::Map::new(),
            completed: None,
            tool_block: None,
            done: false,
        }
    }

    /// Takes one event; returns the text it adds (empty when none), or
    /// what is wrong with it.
    pub fn feed(&mut self, event: &Event) -> Result<String, String> {
        if self.api == Api::OpenAiChat && event.data.trim() == "[DONE]" {
            self.done = true;
            return Ok(String::new());
        }
        if event.data.trim().is_empty() {
            return Ok(String::new());
        }
        let doc: Value = serde_json::from_str(&event.data).map_err(|e| {
            format!(
                "a streamed event is not JSON ({e}): {}",
                snippet(&event.data)
            )
        })?;
        let kind = doc.get("type").and_then(Value::as_str);
        let kind = kind.unwrap_or(event.name.as_str()).to_string();
        if kind == "error"
            || kind == "response.failed"
            || doc.get("error").is_some_and(|e| !e.is_null())
        {
            let message = provider::error_message(&doc)
                .or_else(|| {
                    doc.pointer("/response/error/message")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                })
                .unwrap_or_else(|| snippet(&event.data));
            return Err(format!("the stream reported an error: {message}"));
        }
        let delta = match self.api {
            Api::Anthropic => match kind.as_str() {
                "message_start" => {
                    self.merge_usage(doc.pointer("/message/usage"));
                    None
                }
                // The routing tool's input arrives as pieces of JSON text
                // (`input_json_delta`): it is the answer, as in `parse`.
                "content_block_start"
                    if doc.pointer("/content_block/type") == Some(&json!("tool_use"))
                        && doc.pointer("/content_block/name")
                            == Some(&json!(crate::structured::NAME)) =>
                {
                    self.tool_block = doc.get("index").and_then(Value::as_u64);
                    (!self.text.is_empty()).then_some("\n")
                }
                "content_block_delta" => match doc.pointer("/delta/type").and_then(Value::as_str) {
                    Some("text_delta") => doc.pointer("/delta/text").and_then(Value::as_str),
                    Some("input_json_delta")
                        if self.tool_block.is_some()
                            && doc.get("index").and_then(Value::as_u64) == self.tool_block =>
                    {
                        doc.pointer("/delta/partial_json").and_then(Value::as_str)
                    }
                    _ => None,
                },
                "message_delta" => {
                    self.merge_usage(doc.get("usage"));
                    None
                }
                "message_stop" => {
                    self.done = true;
                    None
                }
                _ => None,
            },
            Api::OpenAiResponses => match kind.as_str() {
                "response.output_text.delta" | "response.refusal.delta" => {
                    doc.get("delta").and_then(Value::as_str)
                }
                "response.completed" => {
                    self.completed = doc.get("response").cloned();
                    if self.completed.is_none() {
                        return Err("`response.completed` has no `response`".into());
                    }
                    self.done = true;
                    None
                }
                "response.incomplete" => {
                    let why = doc
                        .pointer("/response/incomplete_details/reason")
                        .and_then(Value::as_str)
                        .unwrap_or("no reason given");
                    return Err(format!("the answer is incomplete ({why})"));
                }
                _ => None,
            },
            Api::OpenAiChat => {
                self.merge_usage(doc.get("usage"));
                let choice = doc.get("choices").and_then(|c| c.get(0));
                if choice
                    .and_then(|c| c.get("finish_reason"))
                    .is_some_and(|r| !r.is_null())
                {
                    self.done = true;
                }
                let delta = choice.and_then(|c| c.get("delta"));
                delta
                    .and_then(|d| d.get("content"))
                    .and_then(Value::as_str)
                    .or_else(|| delta.and_then(|d| d.get("refusal")).and_then(Value::as_str))
            }
            Api::Gemini => {
                self.merge_usage(doc.get("usageMetadata"));
                let candidate = doc.get("candidates").and_then(|c| c.get(0));
                if candidate
                    .and_then(|c| c.get("finishReason"))
                    .is_some_and(|r| !r.is_null())
                {
                    self.done = true;
                }
                let parts = candidate
                    .and_then(|c| c.pointer("/content/parts"))
                    .and_then(Value::as_array);
                let text: String = parts
                    .into_iter()
                    .flatten()
                    .filter(|p| p["thought"] != true)
                    .filter_map(|p| p["text"].as_str())
                    .collect();
                self.text.push_str(&text);
                return Ok(text);
            }
        };
        let delta = delta.unwrap_or_default().to_string();
        self.text.push_str(&delta);
        Ok(delta)
    }

    fn merge_usage(&mut self, usage: Option<&Value>) {
        if let Some(Value::Object(u)) = usage {
            for (k, v) in u {
                self.usage.insert(k.clone(), v.clone());
            }
        }
    }

    /// The answer, once the stream has ended; an error when it ended
    /// before the API's end marker.
    pub fn finish(self) -> Result<Response, String> {
        if !self.done {
            let marker = match self.api {
                Api::Anthropic => "`message_stop`",
                Api::OpenAiResponses => "`response.completed`",
                Api::OpenAiChat => "`[DONE]` or a `finish_reason`",
                Api::Gemini => "a `finishReason`",
            };
            return Err(format!(
                "the stream ended before {marker} ({} characters received): the connection was cut",
                self.text.chars().count()
            ));
        }
        let usage = Value::Object(self.usage);
        // The non-streaming parser reads the usage: each API's answer is
        // rebuilt around the text received.
        let doc = match self.api {
            Api::Anthropic => json!({"content": [], "usage": usage}),
            Api::OpenAiResponses => {
                let mut r = self.completed.unwrap_or_default();
                r["output"] = json!([]);
                r
            }
            Api::OpenAiChat => {
                json!({"choices": [{"message": {"content": ""}}], "usage": usage})
            }
            Api::Gemini => json!({"candidates": [{}], "usageMetadata": usage}),
        };
        let mut response = provider::parse(self.api, &doc)?;
        response.text = self.text;
        Ok(response)
    }
}

/// A whole SSE body as one answer: what [`crate::client`] does line by
/// line, for the fuzz target and tests.
pub fn parse(api: Api, body: &str) -> Result<Response, String> {
    let mut decoder = Decoder::default();
    let mut acc = Accumulator::new(api);
    for line in body.split('\n') {
        if let Some(event) = decoder.line(line) {
            acc.feed(&event)?;
        }
    }
    if let Some(event) = decoder.flush() {
        acc.feed(&event)?;
    }
    acc.finish()
}

/// The start of a text, for an error message.
fn snippet(text: &str) -> String {
    let cut: String = text.chars().take(200).collect();
    if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_split_on_empty_lines_and_join_data_lines() {
        let mut d = Decoder::default();
        assert_eq!(d.line(": keep-alive"), None);
        assert_eq!(d.line("event: ping"), None);
        assert_eq!(d.line("data: a"), None);
        assert_eq!(d.line("data:b\r"), None);
        assert_eq!(
            d.line(""),
            Some(Event {
                name: "ping".into(),
                data: "a\nb".into()
            })
        );
        assert_eq!(d.line(""), None);
    }

    #[test]
    fn a_cut_stream_is_an_error_naming_the_marker() {
        let body = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}}\n\n";
        let err = parse(Api::Anthropic, body).unwrap_err();
        assert!(
            err.contains("`message_stop`") && err.contains("3 characters"),
            "{err}"
        );
        let err = parse(Api::OpenAiChat, "data: {not json\n\n").unwrap_err();
        assert!(err.contains("not JSON"), "{err}");
    }
}
