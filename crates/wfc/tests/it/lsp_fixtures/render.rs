//! How replies appear in a transcript: pretty JSON with sorted keys, lists
//! whose order means nothing sorted, completion items one per line and
//! semantic tokens decoded to `line:column "text" type`.

use serde_json::Value;

use super::script::Session;
use wf_test_support::lsp::canonical;

/// The transcript text of the reply to `method`.
pub fn reply(session: &Session, method: &str, params: &Value, reply: &Value) -> String {
    if let Some(error) = reply.get("error") {
        return format!(
            "error {}: {}\n",
            error["code"],
            error["message"].as_str().unwrap_or("")
        );
    }
    let result = canonical(&reply["result"]);
    match method {
        "textDocument/completion" => completion(&result),
        "textDocument/semanticTokens/full" => {
            let uri = params["textDocument"]["uri"].as_str().unwrap_or("");
            tokens(session, uri, &result)
        }
        "textDocument/references" | "textDocument/documentHighlight" | "workspace/symbol" => {
            pretty(&sorted(&result))
        }
        "textDocument/rename" => {
            let mut result = result;
            if let Some(changes) = result.get_mut("changes").and_then(Value::as_object_mut) {
                for edits in changes.values_mut() {
                    *edits = sorted(edits);
                }
            }
            pretty(&result)
        }
        _ => pretty(&result),
    }
}

fn pretty(value: &Value) -> String {
    format!("{}\n", serde_json::to_string_pretty(value).unwrap())
}

/// An array with its items sorted by their JSON text.
fn sorted(value: &Value) -> Value {
    match value.as_array() {
        Some(items) => {
            let mut items = items.clone();
            items.sort_by_key(|v| v.to_string());
            Value::Array(items)
        }
        None => value.clone(),
    }
}

/// `label: detail` per item, in the server's order.
fn completion(result: &Value) -> String {
    let items = result
        .get("items")
        .unwrap_or(result)
        .as_array()
        .cloned()
        .unwrap_or_default();
    if items.is_empty() {
        return "(no items)\n".to_string();
    }
    let mut out = String::new();
    for item in items {
        let label = item["label"].as_str().unwrap_or("");
        match item["detail"].as_str() {
            Some(detail) => out.push_str(&format!("{label}: {detail}\n")),
            None => out.push_str(&format!("{label}\n")),
        }
    }
    out
}

/// Decodes the delta-encoded tokens against the file's text.
fn tokens(session: &Session, uri: &str, result: &Value) -> String {
    let data: Vec<u64> = result["data"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_u64)
        .collect();
    let lines: Vec<&str> = session.text_of_uri(uri).unwrap_or("").lines().collect();
    let (mut line, mut column) = (0u64, 0u64);
    let mut out = String::new();
    for token in data.chunks(5) {
        let [delta_line, delta_start, length, kind, _] = token else {
            break;
        };
        if *delta_line > 0 {
            line += delta_line;
            column = *delta_start;
        } else {
            column += delta_start;
        }
        let utf16: Vec<u16> = lines
            .get(line as usize)
            .map(|l| l.encode_utf16().collect())
            .unwrap_or_default();
        let from = (column as usize).min(utf16.len());
        let to = ((column + length) as usize).min(utf16.len());
        let text = String::from_utf16_lossy(&utf16[from..to]);
        let kind = session
            .legend
            .get(*kind as usize)
            .map_or("?", String::as_str);
        out.push_str(&format!("{}:{} {text:?} {kind}\n", line + 1, column + 1));
    }
    if out.is_empty() {
        out.push_str("(no tokens)\n");
    }
    out
}
