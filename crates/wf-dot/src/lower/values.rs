//! Typing attribute values per the Attractor attribute tables (Appendix A,
//! and the handler attributes of section 4).
//!
//! In DOT a value is text whether quoted or not (`max_retries=3` and
//! `max_retries="3"` mean the same), so typing depends on the key. Two
//! misfits that real pipelines write and every engine accepts are read as
//! engines read them, with a WF0809 warning: a whole number written as a
//! decimal (`weight="2.0"` is `2`) and any text in a boolean attribute
//! (`false`, unless it is `true` in another case). Any other value that does
//! not fit its type stays a string: the analysis then reports it with the
//! attribute checks every format shares (WF0501, WF0502), rather than the
//! front end guessing.

use wf_diagnostics::{Applicability, Diagnostic, FileId, Fix, Span, codes};
use wf_model::Value;

use crate::ast::{Id, IdKind};

/// Where an attribute is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// The graph (workflow).
    Graph,
    /// A node.
    Node,
    /// An edge.
    Edge,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ty {
    Int,
    Number,
    Bool,
    Duration,
}

/// The typed attributes; every other attribute is a string.
fn type_of(place: Place, key: &str) -> Option<Ty> {
    Some(match (place, key) {
        (Place::Graph, "default_max_retry") => Ty::Int,
        // wfc's run limits, which a pipeline may set like a `.wf` workflow.
        (Place::Graph, "max_steps" | "max_visits" | "max_depth" | "default_retries") => Ty::Int,
        (Place::Graph, "wall_clock" | "default_timeout") => Ty::Duration,
        // `wfc run --agent llm`'s budgets (docs/llm.md).
        (Place::Graph, "max_tokens") => Ty::Int,
        (Place::Graph, "max_cost_usd") => Ty::Number,
        (Place::Node, "max_retries" | "max_parallel" | "manager.max_cycles" | "max_visits") => {
            Ty::Int
        }
        (Place::Node, "goal_gate" | "auto_status" | "allow_partial") => Ty::Bool,
        (Place::Node, "timeout" | "manager.poll_interval") => Ty::Duration,
        (Place::Edge, "weight") => Ty::Int,
        (Place::Edge, "loop_restart") => Ty::Bool,
        _ => return None,
    })
}

/// The model value of `value`, the value of `key` at `place`. Pushes
/// WF0605 for a duration written without a unit (read as seconds).
pub fn typed(
    place: Place,
    key: &str,
    value: &Id,
    file: FileId,
    out: &mut Vec<Diagnostic>,
) -> Value {
    let fallback = || Value::String(value.text.clone());
    if value.kind == IdKind::Html {
        return fallback();
    }
    let Some(ty) = type_of(place, key) else {
        // Most attributes are strings: no need to trim a long prompt.
        return fallback();
    };
    let text = value.text.trim();
    match ty {
        Ty::Int => match (parse_int(text), whole_decimal(text)) {
            (Some(n), _) => Value::Int(n),
            (None, Some(n)) => {
                let fix = (n.to_string(), "write the whole number");
                let read_as = format!("`{n}`");
                out.push(lenient(
                    key,
                    value,
                    "a whole number",
                    read_as,
                    Some(fix),
                    file,
                ));
                Value::Int(n)
            }
            (None, None) => fallback(),
        },
        Ty::Number => match (parse_int(text), text.parse::<f64>()) {
            (Some(n), _) => Value::Int(n),
            (None, Ok(x)) if x.is_finite() => Value::Float(x),
            _ => fallback(),
        },
        Ty::Bool => match text {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => {
                let read_as = text.eq_ignore_ascii_case("true");
                out.push(lenient(
                    key,
                    value,
                    "`true` or `false`",
                    format!("`{read_as}`"),
                    boolean_fix(text),
                    file,
                ));
                Value::Bool(read_as)
            }
        },
        Ty::Duration => {
            if let Some(ms) = parse_duration(text) {
                return Value::Duration(ms);
            }
            match text.parse::<u64>() {
                Ok(secs) if secs.checked_mul(1000).is_some() => {
                    out.push(no_unit(key, value, secs, file));
                    Value::Duration(secs * 1000)
                }
                _ => fallback(),
            }
        }
    }
}

/// A whole number written as a decimal (`2.0`, `3.`), which engines that
/// read numbers as floats accept for an integer attribute. Only values an
/// `f64` holds exactly (below 2^53) qualify.
fn whole_decimal(text: &str) -> Option<i64> {
    if !text.contains('.') || text.contains(['e', 'E']) {
        return None;
    }
    let x: f64 = text.parse().ok()?;
    (x.is_finite() && x.fract() == 0.0 && x.abs() < 9.0e15).then_some(x as i64)
}

/// The fix of a boolean attribute's lenient value: `true` for `True` and
/// for a condition (a gate on `outcome = success` is what `goal_gate=true`
/// means), `false` for `False`; none for other text, whose intent is not
/// clear.
fn boolean_fix(text: &str) -> Option<(String, &'static str)> {
    let lower = text.to_ascii_lowercase();
    if lower == "true" || text.contains('=') || lower.starts_with("outcome") {
        Some(("true".into(), "write `true`"))
    } else if lower == "false" {
        Some(("false".into(), "write `false`"))
    } else {
        None
    }
}

/// WF0809: `value` is not `expected`, the type of `key`, and engines read
/// it leniently as `read_as`.
fn lenient(
    key: &str,
    value: &Id,
    expected: &str,
    read_as: String,
    fix: Option<(String, &'static str)>,
    file: FileId,
) -> Diagnostic {
    let at = value.span.in_file(file);
    let d = Diagnostic::new(
        &codes::ATTRACTOR_LENIENT_VALUE,
        format!(
            "`{key}` expects {expected}, found {:?}; it is read as {read_as}",
            value.text
        ),
        at,
    )
    .with_primary_label(format!("read as {read_as}"));
    match fix {
        Some((replacement, message)) => {
            d.with_help(format!("write `{replacement}`"))
                .with_fix(Fix::replace(
                    message.to_string(),
                    at,
                    replacement,
                    Applicability::MaybeIncorrect,
                ))
        }
        None => d.with_help("write `true` or `false`"),
    }
}

fn parse_int(text: &str) -> Option<i64> {
    let digits = text.strip_prefix('+').unwrap_or(text);
    digits.parse().ok()
}

/// `Integer ( 'ms' | 's' | 'm' | 'h' | 'd' )` in milliseconds; `None` when
/// malformed or out of range.
pub fn parse_duration(text: &str) -> Option<u64> {
    let digits_end = text.find(|c: char| !c.is_ascii_digit())?;
    let (digits, unit) = text.split_at(digits_end);
    let factor: u64 = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return None,
    };
    digits.parse::<u64>().ok()?.checked_mul(factor)
}

/// WF0605, with a fix that writes the `s` the value is read with.
fn no_unit(key: &str, value: &Id, secs: u64, file: FileId) -> Diagnostic {
    // Insert the unit after the digits: before the closing quote of a
    // quoted value, at the end of a bare one.
    let at = match value.kind {
        IdKind::Quoted
            if value.pieces.is_empty() && value.span.len() as usize == value.text.len() + 2 =>
        {
            Some(value.span.end as usize - 1)
        }
        IdKind::Bare => Some(value.span.end as usize),
        _ => None,
    };
    let d = Diagnostic::new(
        &codes::DOT_DURATION_UNIT,
        format!("`{key}={secs}` has no unit; it is read as {secs} seconds"),
        value.span.in_file(file),
    )
    .with_primary_label("no unit")
    .with_help(format!(
        "write the unit, such as `{secs}s`; implementations disagree about a bare number"
    ));
    match at {
        Some(at) => d.with_fix(Fix::replace(
            format!("write `{secs}s`"),
            Span::new(at, at).in_file(file),
            "s",
            Applicability::MaybeIncorrect,
        )),
        None => d,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(text: &str) -> Id {
        Id {
            text: text.into(),
            kind: IdKind::Bare,
            span: Span::new(0, text.len()),
            pieces: Vec::new(),
        }
    }

    #[test]
    fn typing_by_key() {
        let mut out = Vec::new();
        let f = FileId(0);
        assert_eq!(
            typed(Place::Node, "max_retries", &id("3"), f, &mut out),
            Value::Int(3)
        );
        assert_eq!(
            typed(Place::Edge, "weight", &id("-1"), f, &mut out),
            Value::Int(-1)
        );
        assert_eq!(
            typed(Place::Node, "goal_gate", &id("true"), f, &mut out),
            Value::Bool(true)
        );
        assert_eq!(
            typed(Place::Node, "timeout", &id("15m"), f, &mut out),
            Value::Duration(900_000)
        );
        assert_eq!(
            typed(Place::Edge, "weight", &id("3"), f, &mut out),
            Value::Int(3)
        );
        assert_eq!(
            typed(Place::Node, "weight", &id("3"), f, &mut out),
            Value::String("3".into())
        );
        assert!(out.is_empty());
        assert_eq!(
            typed(Place::Node, "timeout", &id("300"), f, &mut out),
            Value::Duration(300_000)
        );
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].code.code, "WF0605");
        let fix = out[0].fix.as_ref().unwrap();
        assert_eq!(fix.edits[0].location.span, Span::new(3, 3));
        let quoted = Id {
            text: "300".into(),
            kind: IdKind::Quoted,
            span: Span::new(10, 15),
            pieces: Vec::new(),
        };
        typed(Place::Node, "timeout", &quoted, f, &mut out);
        // The `s` goes before the closing quote: `"300s"`.
        let fix = out[1].fix.as_ref().unwrap();
        assert_eq!(fix.edits[0].location.span, Span::new(14, 14));
        assert_eq!(parse_duration("99999999999999999999d"), None);
    }

    /// What real pipelines write and every engine accepts is read as
    /// engines read it, with a WF0809 warning and a fix.
    #[test]
    fn lenient_values_are_warnings_with_fixes() {
        let mut out = Vec::new();
        let f = FileId(0);
        assert_eq!(
            typed(Place::Edge, "weight", &id("2.0"), f, &mut out),
            Value::Int(2)
        );
        assert_eq!(
            typed(
                Place::Node,
                "goal_gate",
                &id("outcome = success"),
                f,
                &mut out
            ),
            Value::Bool(false)
        );
        assert_eq!(
            typed(Place::Node, "goal_gate", &id("True"), f, &mut out),
            Value::Bool(true)
        );
        assert_eq!(
            typed(Place::Node, "goal_gate", &id("yes"), f, &mut out),
            Value::Bool(false)
        );
        let shown: Vec<String> = out
            .iter()
            .map(|d| {
                let fix = d.fix.as_ref().map(|f| f.edits[0].replacement.as_str());
                format!("{} {:?} {} {:?}", d.code.code, d.severity, d.message, fix)
            })
            .collect();
        assert_eq!(
            shown,
            [
                "WF0809 Warning `weight` expects a whole number, found \"2.0\"; it is read as `2` Some(\"2\")",
                "WF0809 Warning `goal_gate` expects `true` or `false`, found \"outcome = success\"; it is read as `false` Some(\"true\")",
                "WF0809 Warning `goal_gate` expects `true` or `false`, found \"True\"; it is read as `true` Some(\"true\")",
                "WF0809 Warning `goal_gate` expects `true` or `false`, found \"yes\"; it is read as `false` None",
            ]
        );
        // Not whole, or not a decimal: a string, for the attribute checks.
        assert_eq!(
            typed(Place::Edge, "weight", &id("2.5"), f, &mut out),
            Value::String("2.5".into())
        );
        assert_eq!(
            typed(Place::Edge, "weight", &id("1e3"), f, &mut out),
            Value::String("1e3".into())
        );
        assert_eq!(out.len(), 4);
        assert_eq!(parse_duration("1h30m"), None);
    }
}
