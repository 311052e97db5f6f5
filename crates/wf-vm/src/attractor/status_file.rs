//! Reading a `status.json` someone else wrote (the status-file contract,
//! seed Appendix C): a backend or a tool it ran reports its outcome by
//! writing `{run_dir}/{node}/status.json`.

use std::io;

use serde_json::Value;

use super::files::RunFiles;
use crate::agent::{Outcome, Status, Write};

/// Removes a stale `{node}/status.json` (from an earlier attempt).
pub fn clear(files: &RunFiles, node: &str) -> io::Result<()> {
    let path = files.stage_dir(node)?.join("status.json");
    match std::fs::remove_file(&path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// The outcome in `{node}/status.json`, when the file exists; `Err` with a
/// reason naming the file when it does not follow the contract.
pub fn read(files: &RunFiles, node: &str) -> Result<Option<Outcome>, String> {
    let path = files
        .stage_dir(node)
        .map_err(|e| format!("cannot open the folder of `{node}`: {e}"))?
        .join("status.json");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read `{}`: {e}", path.display())),
    };
    let bad = |what: &str| {
        format!(
            "`{}` does not follow the status-file contract: {what}",
            path.display()
        )
    };
    let doc: Value = serde_json::from_str(&text).map_err(|e| bad(&format!("not JSON ({e})")))?;
    let mut outcome = parse(&doc).map_err(|m| bad(&m))?;
    // wfc's extension: `artifacts`, stage outputs for the artifact store
    // (seed 5.5), recorded in the context after the file's own updates.
    match doc.get("artifacts") {
        None | Some(Value::Null) => {}
        Some(Value::Object(named)) => {
            for (id, data) in named {
                let write = super::artifacts::store(Some(files), id, id, data)
                    .map_err(|e| format!("cannot store artifact `{id}` of `{node}`: {e}"))?;
                outcome.writes.push(write);
            }
        }
        Some(_) => return Err(bad("`artifacts` must be an object")),
    }
    Ok(Some(outcome))
}

/// An Appendix C document as an outcome.
pub fn parse(doc: &Value) -> Result<Outcome, String> {
    let obj = doc.as_object().ok_or("the document is not an object")?;
    let status = match obj.get("outcome").and_then(Value::as_str) {
        Some("success") => Status::Success,
        Some("partial_success") => Status::PartialSuccess,
        Some("retry") => Status::Retry,
        Some("fail") => Status::Fail,
        Some("skipped") => Status::Skipped,
        Some(other) => {
            return Err(format!(
                "`outcome` is `{other}`; expected success, partial_success, retry, fail or skipped"
            ));
        }
        None => return Err("`outcome` (a string) is required".into()),
    };
    let text = |key: &str| -> Result<Option<String>, String> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("`{key}` must be a string")),
        }
    };
    let suggested_next = match obj.get("suggested_next_ids") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(ids)) => ids
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or("`suggested_next_ids` must be a list of strings")?,
        Some(_) => return Err("`suggested_next_ids` must be a list of strings".into()),
    };
    let writes = match obj.get("context_updates") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| Write {
                key: k.clone(),
                value: v.clone(),
            })
            .collect(),
        Some(_) => return Err("`context_updates` must be an object".into()),
    };
    // The key limit of live writes: a file is no way around it.
    let max_key = crate::config::SizeLimits::default().max_key_bytes;
    if let Some(reason) = crate::engine::long_key(&writes, max_key) {
        return Err(format!("`context_updates`: {reason}"));
    }
    Ok(Outcome {
        status,
        writes,
        preferred_label: text("preferred_next_label")?,
        suggested_next,
        notes: text("notes")?,
        failure_reason: text("failure_reason")?,
        ..Outcome::success()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn contract_documents_parse() {
        let o = parse(&json!({
            "outcome": "partial_success",
            "preferred_next_label": "[A] Approve",
            "suggested_next_ids": ["ship"],
            "context_updates": {"context.tests": "green"},
            "notes": "ok"
        }))
        .unwrap();
        assert_eq!(o.status, Status::PartialSuccess);
        assert_eq!(o.preferred_label.as_deref(), Some("[A] Approve"));
        assert_eq!(o.suggested_next, vec!["ship".to_string()]);
        assert_eq!(o.writes[0].key, "context.tests");
    }

    #[test]
    fn bad_documents_say_why() {
        assert!(
            parse(&json!({"outcome": "sucess"}))
                .unwrap_err()
                .contains("sucess")
        );
        assert!(parse(&json!({})).unwrap_err().contains("required"));
        assert!(parse(&json!({"outcome": "fail", "context_updates": []})).is_err());
        assert!(parse(&json!([1])).is_err());
    }

    /// Issue 14 leftover: a `context_updates` key is held to the limit of
    /// live writes (1,024 bytes), as its value is to theirs.
    #[test]
    fn context_update_keys_are_length_checked() {
        let key = "k".repeat(2000);
        let err = parse(&json!({"outcome": "success", "context_updates": {key: 1}})).unwrap_err();
        assert!(
            err.contains("the key is 2000 bytes long, over the limit of 1024 (max_key_bytes)"),
            "{err}"
        );
        let key = "k".repeat(1024);
        assert!(parse(&json!({"outcome": "success", "context_updates": {key: 1}})).is_ok());
    }
}
