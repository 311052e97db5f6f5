//! `docs/ir.schema.json` is generated from the Rust types and must not go
//! stale.

use std::path::PathBuf;

fn schema_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/ir.schema.json")
}

/// With `UPDATE_DOCS=1` the test rewrites the file instead of failing.
#[test]
fn ir_schema_json_is_up_to_date() {
    let path = schema_path();
    let expected = wf_ir::schema_json();
    if std::env::var_os("UPDATE_DOCS").is_some_and(|v| !v.is_empty()) {
        std::fs::write(&path, &expected).unwrap();
        return;
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "{} is stale (the IR types changed).\nRegenerate it with: UPDATE_DOCS=1 cargo test -p wf-ir --test it schema::",
        path.display()
    );
}

/// The schema describes the document the compiler writes: the top-level
/// fields and the guard instructions are all there.
#[test]
fn schema_names_every_field_and_opcode() {
    let schema: serde_json::Value = serde_json::from_str(&wf_ir::schema_json()).unwrap();
    let required = schema["required"].as_array().unwrap();
    for field in ["format", "version", "strings", "workflows"] {
        assert!(required.contains(&field.into()), "{field}");
    }
    let text = wf_ir::schema_json();
    for op in [
        "load",
        "load_outcome",
        "load_label",
        "push",
        "list",
        "exists",
        "not",
        "cmp",
        "in",
        "contains",
        "matches",
        "jump_if_false",
        "jump_if_true",
    ] {
        assert!(text.contains(&format!("\"{op}\"")), "{op}");
    }
}
