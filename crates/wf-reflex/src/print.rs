//! Guard expressions as `.wf` text, for error messages.

use wf_model::{Expr, Value};

/// The expression as it would be written in `.wf` (parenthesised where
/// needed to be unambiguous).
pub(crate) fn expr_text(expr: &Expr) -> String {
    match expr {
        Expr::Literal(value, _) => literal(value),
        Expr::Name(name, _) => name.clone(),
        Expr::Key(key, _) => format!("`{key}`"),
        Expr::List(items, _) => format!(
            "[{}]",
            items.iter().map(expr_text).collect::<Vec<_>>().join(", ")
        ),
        Expr::Exists(key, _) => format!("exists({key})"),
        Expr::Not(inner, _) => format!("!{}", operand(inner)),
        Expr::Binary(lhs, op, rhs, _) => {
            format!("{} {} {}", operand(lhs), op.as_str(), operand(rhs))
        }
        Expr::Error(_) => "<error>".into(),
    }
}

fn operand(expr: &Expr) -> String {
    match expr {
        Expr::Binary(..) => format!("({})", expr_text(expr)),
        _ => expr_text(expr),
    }
}

fn literal(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(n) => n.to_string(),
        Value::Float(f) => f.to_string(),
        Value::String(s) => format!("{s:?}"),
        Value::Duration(ms) => format!("{ms}ms"),
        Value::Ref(name) => name.clone(),
        Value::List(items) => format!(
            "[{}]",
            items.iter().map(literal).collect::<Vec<_>>().join(", ")
        ),
        Value::Map(members) => format!(
            "{{{}}}",
            members
                .iter()
                .map(|(k, v)| format!("{k}: {}", literal(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}
