//! The routing answer in the provider's structured form (docs/llm.md, "The
//! prompt and answer contract"): when a stage has choices to make, the
//! request also asks for the answer as JSON matching a schema, the way each
//! API does it:
//!
//! | API | request | answer |
//! |---|---|---|
//! | Anthropic | a `route` tool, forced by `tool_choice` | the `tool_use` block's `input` |
//! | OpenAI Responses | `text.format` `json_schema` | the `output_text` |
//! | Chat Completions | `response_format` `json_schema` | `choices[0].message.content` |
//! | Gemini | `responseMimeType` + `responseJsonSchema` | `candidates[0].content.parts[].text` |
//!
//! Whatever the form, the answer reaches [`crate::route::parse_answer`] as
//! text (the tool input is written as its JSON), so one parser validates
//! it, and a server that ignores the schema still works: the prompt tells
//! the same choices in words.

use serde_json::{Value, json};

use crate::provider::{Api, Request};
use crate::route::OUTCOMES;

/// The name of the Anthropic tool and of the OpenAI schema.
pub const NAME: &str = "route";

/// What the answer must choose among: the same data as the prompt's
/// routing instructions ([`crate::route::instructions`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Choices {
    /// The outgoing edges' labels (empty when the edges only carry
    /// conditions).
    pub labels: Vec<String>,
    /// The keys the step declares it writes, with their `.wf` type names
    /// (`string`, `int`, `float`, `number`, `bool`, `list`, `map`, `any`).
    pub keys: Vec<(String, String)>,
}

/// Whether the request carries the schema: it has choices, and the API can
/// take a schema with what else the request asks. Anthropic does not allow
/// a forced tool together with extended thinking, so a request with a
/// `reasoning_effort` falls back to the final JSON object of the text.
pub fn applies(api: Api, req: &Request) -> bool {
    req.structured.is_some() && !(api == Api::Anthropic && req.reasoning_effort.is_some())
}

/// Adds the API's structured-output fields to the request `body`, when
/// [`applies`] says so.
pub fn apply(api: Api, req: &Request, body: &mut Value) {
    let Some(choices) = req.structured.as_ref().filter(|_| applies(api, req)) else {
        return;
    };
    let (schema, closed) = schema(choices);
    match api {
        Api::Anthropic => {
            body["tools"] = json!([{
                "name": NAME,
                "description": "Give the outcome of the step and the next step to take.",
                "input_schema": schema,
            }]);
            body["tool_choice"] = json!({"type": "tool", "name": NAME});
        }
        Api::OpenAiResponses => {
            body["text"] = json!({"format": {
                "type": "json_schema",
                "name": NAME,
                "schema": schema,
                "strict": closed,
            }});
        }
        Api::OpenAiChat => {
            body["response_format"] = json!({"type": "json_schema", "json_schema": {
                "name": NAME,
                "schema": schema,
                "strict": closed,
            }});
        }
        Api::Gemini => {
            let config = &mut body["generationConfig"];
            config["responseMimeType"] = json!("application/json");
            config["responseJsonSchema"] = schema;
        }
    }
}

/// The answer's JSON Schema, and whether it is closed (every object lists
/// all its keys, as OpenAI's strict mode requires). It is open when
/// `context_updates` takes any keys (no declared writes) or a declared key
/// is a list, a map or of any type: strict mode cannot say that, so such a
/// schema is sent with `strict: false` rather than dropping the updates.
pub fn schema(choices: &Choices) -> (Value, bool) {
    let labels: Vec<&str> = if choices.labels.is_empty() {
        // No labels: the prompt says to leave it empty.
        vec![""]
    } else {
        choices.labels.iter().map(String::as_str).collect()
    };
    let mut closed = !choices.keys.is_empty();
    let updates = if choices.keys.is_empty() {
        json!({"type": "object", "additionalProperties": {"type": "string"}})
    } else {
        let mut properties = serde_json::Map::new();
        for (key, ty) in &choices.keys {
            let (t, scalar) = key_schema(ty);
            closed &= scalar;
            properties.insert(key.clone(), t);
        }
        let required: Vec<&str> = choices.keys.iter().map(|(k, _)| k.as_str()).collect();
        json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        })
    };
    let schema = json!({
        "type": "object",
        "properties": {
            "outcome": {"type": "string", "enum": OUTCOMES},
            "preferred_label": {"type": "string", "enum": labels},
            "context_updates": updates,
            "notes": {"type": "string"},
        },
        "required": ["outcome", "preferred_label", "context_updates", "notes"],
        "additionalProperties": false,
    });
    (schema, closed)
}

/// The schema of a declared key's value, and whether it is a scalar (a
/// type strict mode can state in full).
fn key_schema(ty: &str) -> (Value, bool) {
    match ty {
        "string" => (json!({"type": "string"}), true),
        "int" => (json!({"type": "integer"}), true),
        "float" | "number" => (json!({"type": "number"}), true),
        "bool" => (json!({"type": "boolean"}), true),
        "list" => (json!({"type": "array"}), false),
        "map" => (json!({"type": "object"}), false),
        _ => (json!({}), false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(effort: Option<&str>) -> Request {
        Request {
            model: "m".into(),
            history: vec![],
            prompt: "p".into(),
            reasoning_effort: effort.map(str::to_string),
            max_output_tokens: 10,
            stream: false,
            structured: Some(Choices {
                labels: vec!["Approve".into(), "Fix".into()],
                keys: vec![],
            }),
        }
    }

    #[test]
    fn labels_and_declared_keys_shape_the_schema() {
        let (s, closed) = schema(&request(None).structured.unwrap());
        assert!(!closed, "free-form context_updates is open");
        assert_eq!(
            s["properties"]["preferred_label"]["enum"],
            json!(["Approve", "Fix"])
        );
        assert_eq!(s["properties"]["outcome"]["enum"], json!(OUTCOMES));
        let (s, closed) = schema(&Choices {
            labels: vec![],
            keys: vec![("n".into(), "int".into()), ("ok".into(), "bool".into())],
        });
        assert!(closed);
        assert_eq!(s["properties"]["preferred_label"]["enum"], json!([""]));
        let updates = &s["properties"]["context_updates"];
        assert_eq!(updates["properties"]["n"]["type"], "integer");
        assert_eq!(updates["required"], json!(["n", "ok"]));
        let (_, closed) = schema(&Choices {
            labels: vec![],
            keys: vec![("items".into(), "list".into())],
        });
        assert!(!closed, "a list's items are unknown");
    }

    #[test]
    fn anthropic_with_thinking_falls_back_to_the_text() {
        assert!(applies(Api::Anthropic, &request(None)));
        assert!(!applies(Api::Anthropic, &request(Some("low"))));
        assert!(applies(Api::Gemini, &request(Some("low"))));
        let mut body = json!({});
        apply(Api::Anthropic, &request(Some("low")), &mut body);
        assert_eq!(body, json!({}));
    }
}
