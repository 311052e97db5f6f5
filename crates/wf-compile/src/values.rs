//! Attribute values as JSON.

use serde_json::{Map, Number, Value as Json};
use wf_model::Value;

/// The deepest nesting of lists and maps a spec value may have. Loaders
/// (serde_json's included) limit the depth they read, so deeper values
/// would compile to a file nobody can load.
pub const MAX_DEPTH: usize = 64;

/// Why a value has no JSON form.
#[derive(Debug, Clone, PartialEq)]
pub enum ValueError {
    /// A float that is not finite.
    NonFinite(f64),
    /// Nested deeper than [`MAX_DEPTH`].
    TooDeep,
}

impl ValueError {
    /// The problem, for messages.
    pub fn describe(&self) -> String {
        match self {
            ValueError::NonFinite(x) => format!("the float `{x}` has no JSON form"),
            ValueError::TooDeep => {
                format!("the value nests lists and maps more than {MAX_DEPTH} deep")
            }
        }
    }
}

/// `value` as JSON: durations become integers of milliseconds, bare names
/// strings; map keys keep their text (a repeated key keeps its first value).
pub fn to_json(value: &Value) -> Result<Json, ValueError> {
    convert(value, 0)
}

fn convert(value: &Value, depth: usize) -> Result<Json, ValueError> {
    if depth > MAX_DEPTH {
        return Err(ValueError::TooDeep);
    }
    Ok(match value {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) => Json::from(*i),
        Value::Float(x) => Json::Number(Number::from_f64(*x).ok_or(ValueError::NonFinite(*x))?),
        Value::String(s) | Value::Ref(s) => Json::String(s.clone()),
        Value::Duration(ms) => Json::from(*ms),
        Value::List(items) => Json::Array(
            items
                .iter()
                .map(|v| convert(v, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Value::Map(entries) => {
            let mut map = Map::new();
            for (key, v) in entries {
                if !map.contains_key(key) {
                    map.insert(key.clone(), convert(v, depth + 1)?);
                }
            }
            Json::Object(map)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_milliseconds_and_refs_strings() {
        let v = Value::Map(vec![
            ("wall".into(), Value::Duration(120_000)),
            ("tier".into(), Value::Ref("premium".into())),
            ("tier".into(), Value::Int(3)),
            (
                "xs".into(),
                Value::List(vec![Value::Float(0.5), Value::Null]),
            ),
        ]);
        assert_eq!(
            to_json(&v).unwrap(),
            serde_json::json!({"wall": 120000, "tier": "premium", "xs": [0.5, null]})
        );
    }

    #[test]
    fn non_finite_and_deep_values_are_refused() {
        assert!(matches!(
            to_json(&Value::Float(f64::NAN)),
            Err(ValueError::NonFinite(_))
        ));
        let mut v = Value::Null;
        for _ in 0..=MAX_DEPTH + 1 {
            v = Value::List(vec![v]);
        }
        assert_eq!(to_json(&v), Err(ValueError::TooDeep));
    }
}
