//! Reflex guards in both directions: the four built-ins become guard
//! expressions when reading, and only expressions of those four shapes can
//! be written back.

use wf_diagnostics::{Diagnostic, codes};
use wf_model::{BinOp, Expr, Guard, Value};

use crate::json::{Json, JsonKind};
use crate::lower::value;
use crate::ordered::OrderedJson;
use crate::schema::{Reader, inner};

/// The `type`s of the Reflex schema's guards.
const GUARD_TYPES: &[&str] = &["exists", "not-exists", "equals", "not-equals", "custom"];

/// Lowers a guard object. A `custom` guard is WF0013 and becomes an
/// [`Expr::Error`] guard, which the checks skip.
pub(crate) fn lower_guard(reader: &mut Reader, json: &Json) -> Option<Guard> {
    let members = reader.object(json, "an edge `guard`")?;
    let Some(ty) = members.iter().find(|m| m.key == "type") else {
        reader.missing(json, "the guard", "type");
        return None;
    };
    let kind = reader.string(&ty.value, "the guard `type`")?;
    let allowed: &[&str] = match kind {
        "exists" | "not-exists" => &["type", "key"],
        "equals" | "not-equals" => &["type", "key", "value"],
        "custom" => &["type", "name"],
        _ => {
            let list = GUARD_TYPES
                .iter()
                .map(|t| format!("`{t}`"))
                .collect::<Vec<_>>()
                .join(", ");
            reader
                .schema_error(
                    ty.value.span,
                    format!("unknown guard type `{kind}`"),
                    "not a Reflex guard type",
                )
                .help = Some(format!("a guard's `type` is one of {list}"));
            return None;
        }
    };
    let fields = reader.members(members, &format!("a `{kind}` guard"), allowed);
    let span = reader.at(json.span);
    if kind == "custom" {
        let name = fields
            .get("name")
            .and_then(|m| match &m.value.kind {
                JsonKind::String(s) => Some(format!(" `{s}`")),
                _ => None,
            })
            .unwrap_or_default();
        reader.diagnostics.push(
            Diagnostic::new(
                &codes::REFLEX_CUSTOM_GUARD,
                format!("the custom guard{name} cannot be checked, compiled or run by wfc"),
                span,
            )
            .with_primary_label("custom guard")
            .with_help("express the condition with the built-in guards `exists`, `not-exists`, `equals` or `not-equals` on a key an earlier node writes"),
        );
        return Some(Guard {
            expr: Expr::Error(span),
            span,
        });
    }
    let Some(key) = fields.get("key") else {
        reader.missing(json, &format!("the `{kind}` guard"), "key");
        return None;
    };
    let key_name = reader.string(&key.value, "the guard `key`")?.to_string();
    let key_span = reader.at(inner(key.value.span));
    let expr = match kind {
        "exists" => Expr::Exists(key_name, key_span),
        "not-exists" => Expr::Not(Box::new(Expr::Exists(key_name, key_span)), span),
        _ => {
            let Some(literal) = fields.get("value") else {
                reader.missing(json, &format!("the `{kind}` guard"), "value");
                return None;
            };
            if matches!(literal.value.kind, JsonKind::Array(_) | JsonKind::Object(_)) {
                reader.schema_error(
                    literal.value.span,
                    format!(
                        "a guard `value` must be a string, a number, a boolean or null, not {}",
                        literal.value.describe()
                    ),
                    "not a scalar",
                );
                return None;
            }
            let op = if kind == "equals" {
                BinOp::Eq
            } else {
                BinOp::Ne
            };
            Expr::Binary(
                Box::new(Expr::Key(key_name, key_span)),
                op,
                Box::new(Expr::Literal(
                    value(&literal.value),
                    reader.at(literal.value.span),
                )),
                span,
            )
        }
    };
    Some(Guard { expr, span })
}

/// The Reflex guard object for a guard expression, or why there is none.
pub(crate) fn to_reflex(expr: &Expr) -> Result<OrderedJson, String> {
    match expr {
        Expr::Exists(key, _) => Ok(guard("exists", key, None)),
        Expr::Not(inner, _) => match inner.as_ref() {
            Expr::Exists(key, _) => Ok(guard("not-exists", key, None)),
            Expr::Binary(lhs, BinOp::Eq, rhs, _) => comparison("not-equals", lhs, rhs),
            _ => Err("only `!exists(key)` and `!(key == value)` can be negated".into()),
        },
        Expr::Binary(lhs, BinOp::Eq, rhs, _) => comparison("equals", lhs, rhs),
        Expr::Binary(lhs, BinOp::Ne, rhs, _) => comparison("not-equals", lhs, rhs),
        Expr::Binary(_, op, _, _) => Err(format!(
            "Reflex guards have no `{}`; only `exists(key)`, `!exists(key)`, `key == value` and `key != value`",
            op.as_str()
        )),
        _ => Err(
            "a Reflex guard must be `exists(key)`, `!exists(key)`, `key == value` or `key != value`"
                .into(),
        ),
    }
}

fn guard(ty: &str, key: &str, value: Option<OrderedJson>) -> OrderedJson {
    let mut members = vec![
        ("type".to_string(), OrderedJson::String(ty.into())),
        ("key".to_string(), OrderedJson::String(key.into())),
    ];
    members.extend(value.map(|v| ("value".to_string(), v)));
    OrderedJson::Object(members)
}

/// `key == literal` (either way round) as an `equals` / `not-equals` guard.
fn comparison(ty: &str, lhs: &Expr, rhs: &Expr) -> Result<OrderedJson, String> {
    let (key, literal) = match (key_of(lhs), key_of(rhs)) {
        (Some(key), None) => (key, rhs),
        (None, Some(key)) => (key, lhs),
        _ => return Err("a Reflex comparison compares one blackboard key with a literal".into()),
    };
    match literal {
        Expr::Literal(
            value @ (Value::Null | Value::Bool(_) | Value::Int(_) | Value::String(_)),
            _,
        ) => Ok(guard(ty, key, Some(crate::emit::value(value)))),
        Expr::Literal(value @ Value::Float(f), _) if f.is_finite() => {
            Ok(guard(ty, key, Some(crate::emit::value(value))))
        }
        _ => {
            Err("a Reflex comparison's value must be a string, a number, a boolean or null".into())
        }
    }
}

/// The blackboard key an operand reads: a backtick key, or a name that is
/// not one of the guard language's built-ins (`outcome`, `label`) or status
/// names, which Reflex does not have.
fn key_of(expr: &Expr) -> Option<&str> {
    const NOT_KEYS: &[&str] = &[
        "outcome",
        "label",
        "success",
        "partial_success",
        "retry",
        "fail",
        "skipped",
    ];
    match expr {
        Expr::Key(key, _) => Some(key),
        Expr::Name(name, _) if !NOT_KEYS.contains(&name.as_str()) => Some(name),
        _ => None,
    }
}
