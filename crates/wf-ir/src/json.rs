//! The JSON form: deterministic output and the generated JSON Schema.

use crate::types::IrProgram;

/// The program as pretty-printed JSON with a trailing newline. The same
/// program always gives the same bytes: fields are written in declaration
/// order, spec maps with their keys sorted, numbers in serde_json's
/// shortest round-trip form.
pub fn to_json(program: &IrProgram) -> String {
    let mut text = serde_json::to_string_pretty(program)
        .expect("IR types serialise without fallible parts (string keys, finite floats)");
    text.push('\n');
    text
}

/// The JSON Schema of the IR file (draft 2020-12), generated from the Rust
/// types, pretty-printed with a trailing newline: what `docs/ir.schema.json`
/// holds.
pub fn schema_json() -> String {
    let schema = schemars::schema_for!(IrProgram);
    let mut text = serde_json::to_string_pretty(&schema).expect("a schema is plain JSON");
    text.push('\n');
    text
}
