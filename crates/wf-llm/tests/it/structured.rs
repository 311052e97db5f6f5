//! Routing answers in each provider's structured form (docs/llm.md, "The
//! prompt and answer contract"): the request carries the schema the way
//! the real API takes it, the fake server answers the way the real API
//! does, and the answer goes through the one routing parser.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use wf_llm::config::{LlmConfig, ProviderSettings};
use wf_llm::structured::Choices;
use wf_llm::{Api, Backend, Chunk, ErrorKind, Request, route};

use crate::fake::{self, Fake, Reply};

const ANSWER: &str = r#"{"outcome": "success", "preferred_label": "Fix", "context_updates": {"lang": "rust"}, "notes": "found a bug"}"#;

const APIS: [Api; 4] = [
    Api::Anthropic,
    Api::OpenAiResponses,
    Api::OpenAiChat,
    Api::Gemini,
];

fn labels() -> Vec<String> {
    vec!["Approve".into(), "Fix".into()]
}

fn settings(api: Api, base: &str) -> ProviderSettings {
    let mut config = LlmConfig::default();
    config.providers.insert(
        "p".into(),
        wf_llm::config::ProviderTable {
            api: Some(api),
            base_url: Some(base.into()),
            api_key_env: Some("KEY".into()),
            retries: Some(0),
            ..Default::default()
        },
    );
    config
        .resolve("p", &|v| (v == "KEY").then(|| "sk-test".to_string()))
        .unwrap()
}

fn request(stream: bool, structured: Option<Choices>) -> Request {
    Request {
        model: "m".into(),
        history: vec![],
        prompt: "Review the change".into(),
        reasoning_effort: None,
        max_output_tokens: 256,
        stream,
        structured,
    }
}

fn choices() -> Option<Choices> {
    Some(Choices {
        labels: labels(),
        keys: vec![],
    })
}

/// The schema the request of `api` carries, after checking the fields
/// around it are the API's own.
fn sent_schema(api: Api, body: &Value) -> Value {
    match api {
        Api::Anthropic => {
            assert_eq!(
                body["tool_choice"],
                json!({"type": "tool", "name": "route"})
            );
            let tools = body["tools"].as_array().unwrap();
            assert_eq!(tools.len(), 1, "{body}");
            assert_eq!(tools[0]["name"], "route");
            assert!(tools[0]["description"].is_string());
            tools[0]["input_schema"].clone()
        }
        Api::OpenAiResponses => {
            let format = &body["text"]["format"];
            assert_eq!(format["type"], "json_schema");
            assert_eq!(format["name"], "route");
            // Free-form `context_updates` cannot be strict (docs/llm.md).
            assert_eq!(format["strict"], false);
            format["schema"].clone()
        }
        Api::OpenAiChat => {
            assert_eq!(body["response_format"]["type"], "json_schema");
            let schema = &body["response_format"]["json_schema"];
            assert_eq!(schema["name"], "route");
            assert_eq!(schema["strict"], false);
            schema["schema"].clone()
        }
        Api::Gemini => {
            let config = &body["generationConfig"];
            assert_eq!(config["responseMimeType"], "application/json");
            assert_eq!(config["maxOutputTokens"], 256);
            config["responseJsonSchema"].clone()
        }
    }
}

/// Asserts the request asks for no structured answer.
fn assert_no_schema(body: &Value) {
    for key in ["tools", "tool_choice", "text", "response_format"] {
        assert!(body.get(key).is_none(), "`{key}` sent: {body}");
    }
    let config = &body["generationConfig"];
    assert!(config.get("responseMimeType").is_none(), "{body}");
    assert!(config.get("responseJsonSchema").is_none(), "{body}");
}

/// The structured answer of `api`, whole or streamed in pieces.
fn reply(api: Api, stream: bool) -> Reply {
    let pieces: Vec<&str> = vec![&ANSWER[..20], &ANSWER[20..61], &ANSWER[61..]];
    if stream {
        let events = match api {
            Api::Anthropic => fake::anthropic_tool_sse(&pieces),
            Api::OpenAiResponses => fake::openai_responses_sse(&pieces),
            Api::OpenAiChat => fake::openai_chat_sse(&pieces),
            Api::Gemini => fake::gemini_sse(&pieces),
        };
        return Reply::Sse(events, Duration::ZERO);
    }
    let body = match api {
        Api::Anthropic => fake::anthropic_tool(&serde_json::from_str(ANSWER).unwrap()),
        Api::OpenAiResponses => fake::openai_responses(ANSWER),
        Api::OpenAiChat => fake::openai_chat(ANSWER),
        Api::Gemini => fake::gemini_json(ANSWER),
    };
    Reply::Http(200, vec![], body)
}

#[test]
fn every_api_carries_the_schema_and_routes_by_its_structured_answer() {
    for api in APIS {
        for stream in [false, true] {
            let case = format!("{} stream={stream}", api.name());
            let fake = Fake::start(vec![reply(api, stream)]);
            let streamed = Arc::new(Mutex::new(String::new()));
            let log = streamed.clone();
            let got = Backend::new()
                .call_with(
                    &settings(api, &fake.base),
                    &request(stream, choices()),
                    Duration::from_secs(5),
                    None,
                    &mut |c| {
                        if let Chunk::Text(t) = c {
                            log.lock().unwrap().push_str(t);
                        }
                    },
                )
                .unwrap_or_else(|e| panic!("{case}: {e}"));
            let body: Value = serde_json::from_str(&fake.seen()[0].body).unwrap();
            let schema = sent_schema(api, &body);
            assert_eq!(schema["type"], "object", "{case}");
            assert_eq!(
                schema["properties"]["outcome"]["enum"],
                json!(["success", "partial_success", "retry", "fail"]),
                "{case}"
            );
            assert_eq!(
                schema["properties"]["preferred_label"]["enum"],
                json!(["Approve", "Fix"]),
                "{case}"
            );
            assert_eq!(
                schema["properties"]["context_updates"]["additionalProperties"],
                json!({"type": "string"}),
                "{case}"
            );
            assert_eq!(
                schema["required"],
                json!(["outcome", "preferred_label", "context_updates", "notes"]),
                "{case}"
            );
            // The prompt still tells the choices, for servers that ignore
            // the schema.
            let answer = route::parse_answer(&got.response.text, &labels())
                .unwrap_or_else(|e| panic!("{case}: {e}: {:?}", got.response.text));
            assert_eq!(answer.outcome, "success", "{case}");
            assert_eq!(answer.preferred_label.as_deref(), Some("Fix"), "{case}");
            assert_eq!(answer.context_updates["lang"], "rust", "{case}");
            assert_eq!(answer.notes.as_deref(), Some("found a bug"), "{case}");
            assert!(got.response.usage.input > 0, "{case}");
            if stream {
                // The answer grows `response.md` as it arrives, tool input
                // included.
                let streamed = streamed.lock().unwrap().clone();
                assert_eq!(streamed, got.response.text, "{case}");
                assert_eq!(
                    serde_json::from_str::<Value>(&streamed).unwrap(),
                    serde_json::from_str::<Value>(ANSWER).unwrap(),
                    "{case}"
                );
            }
        }
    }
}

#[test]
fn a_stage_without_choices_sends_no_schema() {
    for api in APIS {
        for stream in [false, true] {
            let fake = Fake::start(vec![reply(api, stream)]);
            Backend::new()
                .call(
                    &settings(api, &fake.base),
                    &request(stream, None),
                    Duration::from_secs(5),
                )
                .unwrap();
            let body: Value = serde_json::from_str(&fake.seen()[0].body).unwrap();
            assert_no_schema(&body);
        }
    }
}

#[test]
fn a_malformed_tool_input_is_refused_with_the_reason() {
    for (input, reason) in [
        (
            json!({"outcome": "success", "preferred_label": "Ship", "context_updates": {}, "notes": ""}),
            "`preferred_label` is \"Ship\", which is none of the choices: \"Approve\", \"Fix\"",
        ),
        (
            json!({"outcome": "done", "preferred_label": "Fix"}),
            "the answer's `outcome` is \"done\"",
        ),
        (
            json!({"outcome": "success", "context_updates": ["lang"]}),
            "`context_updates` must be an object",
        ),
    ] {
        let fake = Fake::start(vec![Reply::Http(200, vec![], fake::anthropic_tool(&input))]);
        let got = Backend::new()
            .call(
                &settings(Api::Anthropic, &fake.base),
                &request(false, choices()),
                Duration::from_secs(5),
            )
            .unwrap();
        let err = route::parse_answer(&got.response.text, &labels()).unwrap_err();
        assert!(err.contains(reason), "{err}");
    }
    // A cut tool input is no JSON object at all.
    let fake = Fake::start(vec![Reply::Sse(
        fake::anthropic_tool_sse(&["{\"outcome\": \"succ"]),
        Duration::ZERO,
    )]);
    let got = Backend::new()
        .call(
            &settings(Api::Anthropic, &fake.base),
            &request(true, choices()),
            Duration::from_secs(5),
        )
        .unwrap();
    let err = route::parse_answer(&got.response.text, &labels()).unwrap_err();
    assert!(err.contains("does not end with the JSON object"), "{err}");
}

#[test]
fn anthropic_with_thinking_asks_for_the_final_json_object_instead() {
    let text = format!("I checked it.\n{ANSWER}");
    let fake = Fake::start(vec![Reply::Http(200, vec![], fake::anthropic(&text))]);
    let mut req = request(false, choices());
    req.reasoning_effort = Some("medium".into());
    let got = Backend::new()
        .call(
            &settings(Api::Anthropic, &fake.base),
            &req,
            Duration::from_secs(5),
        )
        .unwrap();
    let body: Value = serde_json::from_str(&fake.seen()[0].body).unwrap();
    // Anthropic refuses a forced tool with extended thinking.
    assert_eq!(body["thinking"]["type"], "enabled");
    assert_no_schema(&body);
    let answer = route::parse_answer(&got.response.text, &labels()).unwrap();
    assert_eq!(answer.preferred_label.as_deref(), Some("Fix"));
}

#[test]
fn declared_scalar_keys_make_a_strict_schema() {
    let fake = Fake::start(vec![Reply::Http(
        200,
        vec![],
        fake::openai_chat(
            r#"{"outcome": "success", "preferred_label": "", "context_updates": {"count": 3}, "notes": ""}"#,
        ),
    )]);
    let structured = Some(Choices {
        labels: vec![],
        keys: vec![("count".into(), "int".into())],
    });
    let got = Backend::new()
        .call(
            &settings(Api::OpenAiChat, &fake.base),
            &request(false, structured),
            Duration::from_secs(5),
        )
        .unwrap();
    let body: Value = serde_json::from_str(&fake.seen()[0].body).unwrap();
    let format = &body["response_format"]["json_schema"];
    assert_eq!(format["strict"], true);
    let updates = &format["schema"]["properties"]["context_updates"];
    assert_eq!(
        updates,
        &json!({"type": "object", "properties": {"count": {"type": "integer"}},
                "required": ["count"], "additionalProperties": false})
    );
    assert_eq!(
        format["schema"]["properties"]["preferred_label"]["enum"],
        json!([""])
    );
    let answer = route::parse_answer(&got.response.text, &[]).unwrap();
    assert_eq!(answer.preferred_label, None);
    assert_eq!(answer.context_updates["count"], 3);
}

#[test]
fn a_server_that_rejects_the_schema_names_the_switch() {
    let rejected = json!({"error": {"message": "response_format json_schema is not supported", "type": "invalid_request_error"}}).to_string();
    let fake = Fake::start(vec![Reply::Http(400, vec![], rejected)]);
    let s = settings(Api::OpenAiChat, &fake.base);
    let err = Backend::new()
        .call(&s, &request(false, choices()), Duration::from_secs(5))
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Status(400));
    assert!(!err.retryable());
    assert!(
        err.message.contains(
            "p answered HTTP 400: response_format json_schema is not supported (the request asked for \
             the routing answer as structured output; if the server does not support it, set \
             `structured_output = false` under [llm.providers.p] in wf.toml)"
        ),
        "{}",
        err.message
    );
    // A request without the schema gets no such hint.
    let err = Backend::new()
        .call(&s, &request(false, None), Duration::from_secs(5))
        .unwrap_err();
    assert!(
        !err.message.contains("structured_output"),
        "{}",
        err.message
    );
}

#[test]
fn a_refusal_is_the_answer_text() {
    let refusal = "I can't help with that.";
    let chat = json!({"id": "c", "object": "chat.completion", "choices": [{"index": 0,
        "message": {"role": "assistant", "content": null, "refusal": refusal}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2}});
    let responses = json!({"id": "r", "object": "response", "status": "completed", "output": [
        {"id": "m", "type": "message", "role": "assistant", "content": [{"type": "refusal", "refusal": refusal}]}],
        "usage": {"input_tokens": 3, "output_tokens": 2}});
    for (api, body) in [(Api::OpenAiChat, chat), (Api::OpenAiResponses, responses)] {
        let fake = Fake::start(vec![Reply::Http(200, vec![], body.to_string())]);
        let got = Backend::new()
            .call(
                &settings(api, &fake.base),
                &request(false, choices()),
                Duration::from_secs(5),
            )
            .unwrap();
        assert_eq!(got.response.text, refusal, "{}", api.name());
        assert!(route::parse_answer(&got.response.text, &labels()).is_err());
    }
}

#[test]
fn text_before_the_tool_call_comes_first_whole_or_streamed() {
    let input = json!({"outcome": "retry", "preferred_label": "Approve", "context_updates": {}, "notes": "flaky"});
    let whole: Value = serde_json::from_str(&fake::anthropic_tool(&input)).unwrap();
    let mut whole = whole;
    whole["content"] =
        json!([{"type": "text", "text": "Looks fine."}, whole["content"][0].clone()]);
    let whole = wf_llm::provider::parse(Api::Anthropic, &whole).unwrap();
    let event = |data: Value| {
        format!(
            "event: {}\ndata: {data}\n\n",
            data["type"].as_str().unwrap()
        )
    };
    let mut sse = String::new();
    for data in [
        json!({"type": "message_start", "message": {"usage": {"input_tokens": 5, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Looks fine."}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "route", "input": {}}}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": input.to_string()}}),
        // A delta of another block is not the tool's input.
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"x\": 1}"}}),
        json!({"type": "content_block_stop", "index": 1}),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}}),
        json!({"type": "message_stop"}),
    ] {
        sse.push_str(&event(data));
    }
    let streamed = wf_llm::stream::parse(Api::Anthropic, &sse).unwrap();
    assert_eq!(whole.text, format!("Looks fine.\n{input}"));
    assert_eq!(streamed.text, whole.text);
    let answer = route::parse_answer(&streamed.text, &labels()).unwrap();
    assert_eq!(answer.outcome, "retry");
    assert_eq!(answer.notes.as_deref(), Some("flaky"));
}
