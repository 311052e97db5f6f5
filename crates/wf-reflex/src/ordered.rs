//! JSON output whose object members keep their order.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// A JSON value whose object members keep the order they were built in, so
/// emitted files read in the schema's order and are deterministic.
#[derive(Debug, Clone, PartialEq)]
pub enum OrderedJson {
    /// `null`
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A finite float.
    Float(f64),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<OrderedJson>),
    /// An object, members in order, names unique.
    Object(Vec<(String, OrderedJson)>),
}

impl OrderedJson {
    /// The same value as a [`serde_json::Value`] (object members sorted).
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }

    /// The document as pretty-printed JSON text with a final newline.
    pub fn to_pretty_string(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    pub(crate) fn string(s: impl Into<String>) -> Self {
        OrderedJson::String(s.into())
    }
}

impl From<&serde_json::Value> for OrderedJson {
    fn from(value: &serde_json::Value) -> Self {
        use serde_json::Value as V;
        match value {
            V::Null => OrderedJson::Null,
            V::Bool(b) => OrderedJson::Bool(*b),
            V::Number(n) => match n.as_i64() {
                Some(i) => OrderedJson::Int(i),
                None => OrderedJson::Float(n.as_f64().unwrap_or(0.0)),
            },
            V::String(s) => OrderedJson::String(s.clone()),
            V::Array(items) => OrderedJson::Array(items.iter().map(Into::into).collect()),
            V::Object(map) => {
                OrderedJson::Object(map.iter().map(|(k, v)| (k.clone(), v.into())).collect())
            }
        }
    }
}

impl Serialize for OrderedJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            OrderedJson::Null => serializer.serialize_unit(),
            OrderedJson::Bool(b) => serializer.serialize_bool(*b),
            OrderedJson::Int(n) => serializer.serialize_i64(*n),
            OrderedJson::Float(f) => serializer.serialize_f64(*f),
            OrderedJson::String(s) => serializer.serialize_str(s),
            OrderedJson::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            OrderedJson::Object(members) => {
                let mut map = serializer.serialize_map(Some(members.len()))?;
                for (key, value) in members {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}
