//! Routing from a response (docs/llm.md, "The answer contract"): when a
//! stage's outgoing edges carry labels or conditions, the prompt ends with
//! the choices, and the answer must end with one JSON object.

use serde_json::{Map, Value};

/// The outcomes a routing answer may give.
pub const OUTCOMES: [&str; 4] = ["success", "partial_success", "retry", "fail"];

/// The text appended to the prompt when the stage has choices to make or
/// keys to write. `labels` are the outgoing edges' labels (may be empty
/// when the edges only carry conditions); `keys` are the keys the step
/// declares it writes, with their types.
pub fn instructions(labels: &[String], keys: &[(String, String)]) -> String {
    let mut text = String::from(
        "\n\n---\nWhen you are done, end your answer with one JSON object on its own, \
         and nothing after it:\n\
         {\"outcome\": \"success\", \"preferred_label\": \"…\", \"context_updates\": {}, \"notes\": \"…\"}\n\
         - outcome: one of \"success\", \"partial_success\", \"retry\", \"fail\".\n",
    );
    if labels.is_empty() {
        text.push_str("- preferred_label: leave it empty (\"\").\n");
    } else {
        text.push_str("- preferred_label: the next step, exactly one of: ");
        let quoted: Vec<String> = labels.iter().map(|l| format!("{l:?}")).collect();
        text.push_str(&quoted.join(", "));
        text.push_str(".\n");
    }
    if keys.is_empty() {
        text.push_str("- context_updates: keys and values for later steps (may be empty).\n");
    } else {
        text.push_str("- context_updates: must set ");
        let wanted: Vec<String> = keys.iter().map(|(k, t)| format!("{k:?} (a {t})")).collect();
        text.push_str(&wanted.join(", "));
        text.push_str(".\n");
    }
    text.push_str("- notes: one sentence on what you did.");
    text
}

/// A parsed routing answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// `outcome`.
    pub outcome: String,
    /// `preferred_label`, when not empty.
    pub preferred_label: Option<String>,
    /// `context_updates`.
    pub context_updates: Map<String, Value>,
    /// `notes`, when not empty.
    pub notes: Option<String>,
}

/// Reads the JSON object that ends `text` (a Markdown code fence around it
/// is allowed). `Err` says what is wrong, for the stage's failure reason.
pub fn parse_answer(text: &str, labels: &[String]) -> Result<Answer, String> {
    let object = last_object(text).ok_or(
        "the answer does not end with the JSON object the prompt asks for \
         ({\"outcome\": …, \"preferred_label\": …, \"context_updates\": {…}, \"notes\": …})",
    )?;
    let outcome = match object.get("outcome") {
        Some(Value::String(s)) if OUTCOMES.contains(&s.as_str()) => s.clone(),
        Some(other) => {
            return Err(format!(
                "the answer's `outcome` is {other}; expected one of success, partial_success, retry, fail"
            ));
        }
        None => return Err("the answer's JSON object has no `outcome`".into()),
    };
    let text_of = |key: &str| -> Result<Option<String>, String> {
        match object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(format!(
                "the answer's `{key}` must be a string, not {other}"
            )),
        }
    };
    let preferred_label = text_of("preferred_label")?;
    if let Some(label) = &preferred_label
        && !labels.is_empty()
        && !labels
            .iter()
            .any(|l| l.trim().eq_ignore_ascii_case(label.trim()))
    {
        return Err(format!(
            "the answer's `preferred_label` is {label:?}, which is none of the choices: {}",
            labels
                .iter()
                .map(|l| format!("{l:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let context_updates = match object.get("context_updates") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => return Err("the answer's `context_updates` must be an object".into()),
    };
    Ok(Answer {
        outcome,
        preferred_label,
        context_updates,
        notes: text_of("notes")?,
    })
}

/// The JSON object that ends `text`, if any: tried from each `{`, last
/// first, and accepted when only whitespace or a code fence follows it.
fn last_object(text: &str) -> Option<Map<String, Value>> {
    let tail = text.trim_end().trim_end_matches('`').trim_end();
    // An answer has few braces near its end; bound the work on a huge one.
    for (start, _) in tail.rmatch_indices('{').take(256) {
        let mut stream = serde_json::Deserializer::from_str(&tail[start..]).into_iter::<Value>();
        if let Some(Ok(Value::Object(map))) = stream.next()
            && tail[start + stream.byte_offset()..].trim().is_empty()
        {
            return Some(map);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_object_wins_and_fences_are_allowed() {
        let labels = vec!["Approve".to_string(), "Fix".to_string()];
        let a = parse_answer(
            "I looked at {the code}.\n```json\n{\"outcome\": \"success\", \"preferred_label\": \"fix\", \"context_updates\": {\"k\": {\"n\": 1}}}\n```\n",
            &labels,
        )
        .unwrap();
        assert_eq!(a.outcome, "success");
        assert_eq!(a.preferred_label.as_deref(), Some("fix"));
        assert_eq!(a.context_updates["k"]["n"], 1);
    }

    #[test]
    fn malformed_answers_say_why() {
        let labels = vec!["Approve".to_string()];
        assert!(
            parse_answer("no json here", &labels)
                .unwrap_err()
                .contains("does not end")
        );
        assert!(
            parse_answer("{\"outcome\": \"done\"}", &labels)
                .unwrap_err()
                .contains("`outcome`")
        );
        assert!(
            parse_answer(
                "{\"outcome\": \"success\", \"preferred_label\": \"Ship\"}",
                &labels
            )
            .unwrap_err()
            .contains("none of the choices")
        );
        assert!(parse_answer("{\"outcome\": \"success\"} trailing", &labels).is_err());
    }
}
