//! Collecting `$key` / `${key}` interpolations from string values into the
//! model's `interpolated_reads`, so the data-flow checks can see them.

use wf_diagnostics::FileId;
use wf_model as model;
use wf_syntax::ast;

/// Appends the interpolations of every string in `value` (lists and maps
/// included), in source order. Linear in the size of the value.
pub fn collect_value(value: &ast::Value, file: FileId, out: &mut Vec<model::ReadDecl>) {
    match value {
        ast::Value::String(s) => collect_str(s, file, out),
        ast::Value::List(items, _) => {
            for item in items {
                collect_value(item, file, out);
            }
        }
        ast::Value::Map(entries, _) => {
            for entry in entries {
                collect_value(&entry.value, file, out);
            }
        }
        _ => {}
    }
}

/// Appends the interpolations of one string literal. Each becomes an
/// optional read spanning the key (not the `$` or braces), so a fix can
/// replace the key alone.
pub fn collect_str(s: &ast::StrLit, file: FileId, out: &mut Vec<model::ReadDecl>) {
    out.extend(s.interpolations.iter().map(|i| model::ReadDecl {
        key: i.key.text.clone(),
        optional: true,
        span: i.key.span.in_file(file),
    }));
}
