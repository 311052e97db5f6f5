//! The four wire APIs: how a request is written and an answer read.
//!
//! Bodies follow each provider's documented shape (a streamed answer is
//! read by [`crate::stream`], which rebuilds this shape to read its usage);
//! only the fields wfc needs are read, and anything else is ignored so that
//! new fields do not break old builds.

use serde_json::{Value, json};

/// A wire API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Api {
    /// Anthropic Messages (`POST {base}/v1/messages`).
    Anthropic,
    /// OpenAI Responses (`POST {base}/responses`).
    OpenAiResponses,
    /// OpenAI Chat Completions, as compatible servers speak it
    /// (`POST {base}/chat/completions`).
    OpenAiChat,
    /// Gemini `generateContent`
    /// (`POST {base}/v1beta/models/{model}:generateContent`).
    Gemini,
}

impl Api {
    /// Every API with the name `[llm.providers.NAME] api` takes.
    pub const ALL: [(&'static str, Api); 4] = [
        ("anthropic", Api::Anthropic),
        ("openai-responses", Api::OpenAiResponses),
        ("openai-chat", Api::OpenAiChat),
        ("gemini", Api::Gemini),
    ];

    /// The API's name in `wf.toml`.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, a)| *a == self)
            .map_or("?", |(n, _)| n)
    }
}

/// Who said a turn of a conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The user (wfc's prompts).
    User,
    /// The model (its earlier answers).
    Assistant,
}

/// One earlier turn of a conversation (`full` fidelity continues a thread).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// Who said it.
    pub role: Role,
    /// What was said.
    pub text: String,
}

/// One model call: the earlier turns of its thread, if any, then one user
/// message.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The model id as the provider spells it.
    pub model: String,
    /// The earlier turns, oldest first, alternating user and assistant
    /// (empty: a fresh conversation).
    pub history: Vec<Turn>,
    /// The user message.
    pub prompt: String,
    /// `low`, `medium` or `high`, when the node sets `reasoning_effort`.
    pub reasoning_effort: Option<String>,
    /// The most tokens the answer may have.
    pub max_output_tokens: u32,
    /// Ask for a streamed answer (server-sent events), read as it arrives.
    pub stream: bool,
    /// The routing choices, when the answer is also asked for in the
    /// provider's structured form ([`crate::structured`]); `None` sends no
    /// schema.
    pub structured: Option<crate::structured::Choices>,
}

impl Request {
    /// Every message sent, the history and then the prompt, as
    /// `(role, text)` with the role as the Anthropic and OpenAI APIs spell
    /// it (`user`, `assistant`).
    fn messages(&self) -> impl Iterator<Item = (&'static str, &str)> {
        self.history
            .iter()
            .map(|t| match t.role {
                Role::User => ("user", t.text.as_str()),
                Role::Assistant => ("assistant", t.text.as_str()),
            })
            .chain(std::iter::once(("user", self.prompt.as_str())))
    }

    /// How many messages the call sends.
    pub fn message_count(&self) -> usize {
        self.history.len() + 1
    }
}

/// Tokens a call used, as the provider reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Prompt tokens, cached ones included.
    pub input: u64,
    /// Answer tokens, reasoning included.
    pub output: u64,
    /// Prompt tokens read from the provider's cache.
    pub cached: u64,
    /// Answer tokens spent on hidden reasoning.
    pub reasoning: u64,
}

impl Usage {
    /// Adds `other` into `self`.
    pub fn add(&mut self, other: &Usage) {
        self.input += other.input;
        self.output += other.output;
        self.cached += other.cached;
        self.reasoning += other.reasoning;
    }

    /// Input plus output tokens.
    pub fn total(&self) -> u64 {
        self.input + self.output
    }
}

/// A model's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The answer's text (every text part, joined).
    pub text: String,
    /// The tokens used.
    pub usage: Usage,
}

/// The thinking budget, in tokens, that a call with `reasoning_effort`
/// `effort` asks of `api`, where the API takes a budget rather than an
/// effort name (Anthropic, Gemini; `None` for the OpenAI APIs). The call
/// may produce that many tokens on top of `max_output_tokens`: the run's
/// budgets book them (wfc's `run/llm/budget.rs`), so this table is their
/// single source.
pub fn thinking_budget(api: Api, effort: &str) -> Option<u32> {
    match api {
        Api::Anthropic | Api::Gemini => Some(match effort {
            "low" => 1024,
            "medium" => 4096,
            _ => 16384,
        }),
        Api::OpenAiResponses | Api::OpenAiChat => None,
    }
}

/// The URL of a call; Gemini streams from another method
/// (`streamGenerateContent?alt=sse`), the others take `"stream": true`.
pub fn url(api: Api, base: &str, model: &str, stream: bool) -> String {
    let base = base.trim_end_matches('/');
    match api {
        Api::Anthropic => format!("{base}/v1/messages"),
        Api::OpenAiResponses => format!("{base}/responses"),
        Api::OpenAiChat => format!("{base}/chat/completions"),
        Api::Gemini if stream => {
            format!("{base}/v1beta/models/{model}:streamGenerateContent?alt=sse")
        }
        Api::Gemini => format!("{base}/v1beta/models/{model}:generateContent"),
    }
}

/// The headers of a call, the key's included.
pub fn headers(api: Api, key: &str) -> Vec<(&'static str, String)> {
    let mut h = vec![("content-type", "application/json".to_string())];
    match api {
        Api::Anthropic => {
            h.push(("x-api-key", key.to_string()));
            h.push(("anthropic-version", "2023-06-01".to_string()));
        }
        Api::OpenAiResponses | Api::OpenAiChat => {
            // A local compatible server may need no key at all.
            if !key.is_empty() {
                h.push(("authorization", format!("Bearer {key}")));
            }
        }
        Api::Gemini => h.push(("x-goog-api-key", key.to_string())),
    }
    h
}

/// The JSON body of a call.
pub fn body(api: Api, req: &Request) -> Value {
    let effort = req.reasoning_effort.as_deref();
    let messages: Vec<Value> = req
        .messages()
        .map(|(role, text)| json!({"role": role, "content": text}))
        .collect();
    let mut b = match api {
        Api::Anthropic => {
            let mut b = json!({
                "model": req.model,
                "max_tokens": req.max_output_tokens,
                "messages": messages,
            });
            if let Some(e) = effort {
                // The budget comes out of `max_tokens`, which must exceed it.
                let budget = thinking_budget(api, e).unwrap_or_default();
                b["thinking"] = json!({"type": "enabled", "budget_tokens": budget});
                b["max_tokens"] = json!(req.max_output_tokens.saturating_add(budget));
            }
            b
        }
        Api::OpenAiResponses => {
            // A lone prompt goes as a string; a thread as its messages.
            let input = if req.history.is_empty() {
                json!(req.prompt)
            } else {
                json!(messages)
            };
            let mut b = json!({
                "model": req.model,
                "input": input,
                "max_output_tokens": req.max_output_tokens,
                "store": false,
            });
            if let Some(e) = effort {
                b["reasoning"] = json!({"effort": e});
            }
            b
        }
        Api::OpenAiChat => {
            let mut b = json!({
                "model": req.model,
                "messages": messages,
                "max_tokens": req.max_output_tokens,
            });
            if let Some(e) = effort {
                b["reasoning_effort"] = json!(e);
            }
            b
        }
        Api::Gemini => {
            let mut config = json!({"maxOutputTokens": req.max_output_tokens});
            if let Some(e) = effort {
                config["thinkingConfig"] = json!({"thinkingBudget": thinking_budget(api, e)});
            }
            // Gemini calls the assistant `model`.
            let contents: Vec<Value> = req
                .messages()
                .map(|(role, text)| {
                    let role = if role == "assistant" { "model" } else { role };
                    json!({"role": role, "parts": [{"text": text}]})
                })
                .collect();
            json!({
                "contents": contents,
                "generationConfig": config,
            })
        }
    };
    if req.stream {
        match api {
            Api::Anthropic | Api::OpenAiResponses => b["stream"] = json!(true),
            // Without `include_usage` a streamed Chat Completions answer
            // reports no tokens.
            Api::OpenAiChat => {
                b["stream"] = json!(true);
                b["stream_options"] = json!({"include_usage": true});
            }
            Api::Gemini => {}
        }
    }
    crate::structured::apply(api, req, &mut b);
    b
}

/// Reads a successful answer; `Err` says what is missing.
pub fn parse(api: Api, doc: &Value) -> Result<Response, String> {
    let n = |v: &Value, path: &[&str]| -> u64 {
        path.iter()
            .try_fold(v, |v, k| v.get(k))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    let texts = |parts: Option<&Value>, keep: &dyn Fn(&Value) -> Option<String>| {
        parts
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(keep).collect::<Vec<_>>().join(""))
    };
    match api {
        Api::Anthropic => {
            let blocks = doc.get("content").and_then(Value::as_array);
            let blocks = blocks.ok_or("the answer has no `content` list")?;
            let mut text = String::new();
            for block in blocks {
                match block["type"].as_str() {
                    Some("text") => text.push_str(block["text"].as_str().unwrap_or("")),
                    // The routing tool's input is the answer in structured
                    // form: read as its JSON text, on a line of its own
                    // after any text (as `stream` gathers it).
                    Some("tool_use") if block["name"] == crate::structured::NAME => {
                        if !text.is_empty() {
                            text.push('\n');
                        }
                        text.push_str(&block["input"].to_string());
                    }
                    _ => {}
                }
            }
            let u = &doc["usage"];
            let cached = n(u, &["cache_read_input_tokens"]);
            Ok(Response {
                text,
                usage: Usage {
                    // Anthropic counts cache reads and writes apart from
                    // `input_tokens`; wfc's `input` includes them.
                    input: n(u, &["input_tokens"])
                        + cached
                        + n(u, &["cache_creation_input_tokens"]),
                    output: n(u, &["output_tokens"]),
                    cached,
                    reasoning: 0,
                },
            })
        }
        Api::OpenAiResponses => {
            let output = doc.get("output").and_then(Value::as_array);
            let output = output.ok_or("the answer has no `output` list")?;
            let text = output
                .iter()
                .filter(|item| item["type"] == "message")
                .filter_map(|item| {
                    // A refusal (structured output) stands for the text: it
                    // is what the model said, and no routing answer.
                    texts(item.get("content"), &|p| match p["type"].as_str() {
                        Some("output_text") => Some(p["text"].as_str().unwrap_or("").to_string()),
                        Some("refusal") => Some(p["refusal"].as_str().unwrap_or("").to_string()),
                        _ => None,
                    })
                })
                .collect::<Vec<_>>()
                .join("");
            let u = &doc["usage"];
            Ok(Response {
                text,
                usage: Usage {
                    input: n(u, &["input_tokens"]),
                    output: n(u, &["output_tokens"]),
                    cached: n(u, &["input_tokens_details", "cached_tokens"]),
                    reasoning: n(u, &["output_tokens_details", "reasoning_tokens"]),
                },
            })
        }
        Api::OpenAiChat => {
            let message = doc
                .get("choices")
                .and_then(|c| c.get(0))
                .and_then(|c| c.get("message"))
                .ok_or("the answer has no `choices[0].message`")?;
            let text = message["content"]
                .as_str()
                .or_else(|| message["refusal"].as_str())
                .unwrap_or("")
                .to_string();
            let u = &doc["usage"];
            Ok(Response {
                text,
                usage: Usage {
                    input: n(u, &["prompt_tokens"]),
                    output: n(u, &["completion_tokens"]),
                    cached: n(u, &["prompt_tokens_details", "cached_tokens"]),
                    reasoning: n(u, &["completion_tokens_details", "reasoning_tokens"]),
                },
            })
        }
        Api::Gemini => {
            let candidate = doc
                .get("candidates")
                .and_then(|c| c.get(0))
                .ok_or("the answer has no `candidates` (blocked prompt?)")?;
            // Thought summaries are parts marked `thought: true`.
            let text = texts(candidate.pointer("/content/parts"), &|p| {
                (p["thought"] != true).then(|| p["text"].as_str().unwrap_or("").to_string())
            })
            .unwrap_or_default();
            let u = &doc["usageMetadata"];
            let reasoning = n(u, &["thoughtsTokenCount"]);
            Ok(Response {
                text,
                usage: Usage {
                    input: n(u, &["promptTokenCount"]),
                    output: n(u, &["candidatesTokenCount"]) + reasoning,
                    cached: n(u, &["cachedContentTokenCount"]),
                    reasoning,
                },
            })
        }
    }
}

/// The message of a provider's error body (all four put it at
/// `error.message`), when there is one.
pub fn error_message(doc: &Value) -> Option<String> {
    doc.pointer("/error/message")
        .and_then(Value::as_str)
        .map(str::to_string)
}
