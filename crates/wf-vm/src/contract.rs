//! Run-time contracts of blackboard writes (audit UB-04, SEC-03, SEC-05):
//! declared types, reserved keys and size limits. A rejected write leaves the
//! blackboard unchanged and fails the node with the reason.

use std::io;

use serde_json::Value;
use wf_ir::{IrNode, IrProgram, ValueType};

/// Whether `key` is reserved for the runtime: `_…` and `internal` /
/// `internal.…`.
pub fn is_reserved(key: &str) -> bool {
    key.starts_with('_') || key == "internal" || key.starts_with("internal.")
}

/// Whether `value` is of type `ty` (`float` and `number` accept integers).
pub fn type_matches(ty: ValueType, value: &Value) -> bool {
    match ty {
        ValueType::String => value.is_string(),
        ValueType::Int => value.is_i64() || value.is_u64(),
        ValueType::Float | ValueType::Number => value.is_number(),
        ValueType::Bool => value.is_boolean(),
        ValueType::List => value.is_array(),
        ValueType::Map => value.is_object(),
        ValueType::Any => true,
    }
}

/// The type's name as the language spells it.
pub fn type_name(ty: ValueType) -> &'static str {
    match ty {
        ValueType::String => "string",
        ValueType::Int => "int",
        ValueType::Float => "float",
        ValueType::Number => "number",
        ValueType::Bool => "bool",
        ValueType::List => "list",
        ValueType::Map => "map",
        ValueType::Any => "any",
    }
}

/// The JSON type of a value, for messages.
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "map",
    }
}

/// A deterministic placeholder of type `ty` (used by the `auto` agent).
pub fn placeholder(ty: ValueType, key: &str) -> Value {
    match ty {
        ValueType::String => Value::String(format!("<{key}>")),
        ValueType::Int | ValueType::Number => Value::from(0),
        ValueType::Float => Value::from(0.0),
        ValueType::Bool => Value::Bool(true),
        ValueType::List => Value::Array(Vec::new()),
        ValueType::Map => Value::Object(Default::default()),
        ValueType::Any => Value::Null,
    }
}

struct Counter(usize);

impl io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The value's size serialized as compact JSON, without allocating.
pub fn serialized_size(value: &Value) -> usize {
    let mut c = Counter(0);
    // Serializing a `Value` into a counter cannot fail.
    let _ = serde_json::to_writer(&mut c, value);
    c.0
}

/// Checks one write against the node's contract. `trusted` (tool output)
/// skips the closed-contract check for undeclared keys.
pub(crate) fn check_write(
    program: &IrProgram,
    node: &IrNode,
    key: &str,
    value: &Value,
    size: usize,
    max_bytes: usize,
    trusted: bool,
) -> Result<(), String> {
    if is_reserved(key) {
        return Err(format!(
            "write to `{key}` rejected: keys starting with `_` or `internal.` are reserved for the runtime"
        ));
    }
    if size > max_bytes {
        return Err(format!(
            "write to `{key}` rejected: its value is {size} bytes serialized, over the limit of {max_bytes}"
        ));
    }
    match node.writes.iter().find(|w| program.str(w.key) == key) {
        Some(decl) if !type_matches(decl.ty, value) => Err(format!(
            "write to `{key}` rejected: the node declares it `{}` but the value is {} `{}`",
            type_name(decl.ty),
            json_type(value),
            short(value)
        )),
        Some(_) => Ok(()),
        None if !node.writes.is_empty() && !trusted => Err(format!(
            "write to `{key}` rejected: the node declares its writes and `{key}` is not one of them"
        )),
        None => Ok(()),
    }
}

fn short(value: &Value) -> String {
    let s = value.to_string();
    if s.len() <= 60 {
        return s;
    }
    let mut end = 57;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &s[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn types_and_reserved_keys() {
        assert!(type_matches(ValueType::Float, &json!(1)));
        assert!(!type_matches(ValueType::Int, &json!(1.5)));
        assert!(!type_matches(ValueType::String, &json!(1)));
        assert!(is_reserved("_x") && is_reserved("internal.y") && !is_reserved("internals"));
        assert_eq!(serialized_size(&json!({"a": [1, "b"]})), 13);
        for ty in [
            ValueType::String,
            ValueType::Int,
            ValueType::Map,
            ValueType::Any,
        ] {
            assert!(type_matches(ty, &placeholder(ty, "k")));
        }
    }
}
