//! Checking one attribute value against its schema type: WF0501 wrong type,
//! WF0502 invalid duration, WF0503 out of range, WF0504 unknown member.
//! Every function here is O(size of the value).

use wf_diagnostics::{Applicability, Diagnostic, FileSpan, Fix, TextEdit, codes};
use wf_model::Value;

use super::durations::{self, Loose};
use super::schema::{BACKOFF_FIELDS, BACKOFF_PRESETS, EnumSpec, Ty};
use crate::suggest::{best_match, is_plain_identifier};
use crate::text::{duration_literal, string_literal};

/// How many characters of a string value a message quotes.
const MAX_QUOTED: usize = 40;

/// Where a value sits, for messages and fixes.
#[derive(Debug, Clone, Copy)]
pub struct Site<'a> {
    /// The attribute key as shown in messages (`backoff.factor` inside a map).
    pub key: &'a str,
    /// Where the value is written.
    pub span: FileSpan,
    /// Whether a fix may replace `span`: false inside a map, whose entries
    /// have no spans of their own (the span covers the whole map).
    pub fixable: bool,
}

/// Checks `value` against `ty`, pushing at most one diagnostic per problem.
/// Node names (`NodeRef`, `Choice`) are only shape-checked here; whether
/// they name something is the business of `references`.
pub fn check(site: Site, ty: Ty, value: &Value, out: &mut Vec<Diagnostic>) {
    let diagnostic = match (ty, value) {
        (Ty::String | Ty::Stylesheet, Value::String(_)) => None,
        (Ty::String | Ty::StringOrList | Ty::Stylesheet, Value::Ref(name)) => Some(
            mismatch(site, ty, value)
                .with_help("a bare name is not a string here: write it in quotes")
                .with_fix_if(site, string_literal(name), Applicability::MachineApplicable),
        ),
        (Ty::StringOrList, Value::String(_)) => None,
        (Ty::StringOrList, Value::List(items)) if items.iter().all(is_string) => None,
        (Ty::Bool, Value::Bool(_)) => None,
        (Ty::Bool, _) => Some(boolean(site, ty, value)),
        (Ty::Int { min }, _) => integer(site, ty, min, value),
        (Ty::Number { min }, _) => number(site, ty, min, value),
        (Ty::Duration, _) => duration(site, ty, value),
        (Ty::Enum(spec), Value::String(s)) => member(site, spec, s, false),
        (Ty::Enum(spec), Value::Ref(s)) => member(site, spec, s, true),
        (Ty::Backoff, Value::String(s)) => member(site, &BACKOFF_PRESETS, s, false),
        (Ty::Backoff, Value::Ref(s)) => member(site, &BACKOFF_PRESETS, s, true),
        (Ty::Backoff, Value::Map(entries)) => {
            backoff_map(site, entries, out);
            None
        }
        (Ty::NodeRef | Ty::Choice, Value::String(_) | Value::Ref(_)) => None,
        _ => Some(mismatch(site, ty, value).with_help(example(ty))),
    };
    out.extend(diagnostic);
}

fn is_string(value: &Value) -> bool {
    matches!(value, Value::String(_))
}

/// A fix replacing the value, when the site allows one.
trait WithFixIf {
    fn with_fix_if(self, site: Site, replacement: String, applicability: Applicability) -> Self;
}

impl WithFixIf for Diagnostic {
    fn with_fix_if(self, site: Site, replacement: String, applicability: Applicability) -> Self {
        if !site.fixable {
            return self;
        }
        self.with_fix(Fix {
            message: format!("replace with `{replacement}`"),
            edits: vec![TextEdit {
                location: site.span,
                replacement,
            }],
            applicability,
        })
    }
}

/// WF0501 with the expected type in the message and the label.
pub fn mismatch(site: Site, ty: Ty, value: &Value) -> Diagnostic {
    let expected = ty.expected();
    Diagnostic::new(
        &codes::ATTRIBUTE_TYPE_MISMATCH,
        format!("`{}` expects {expected}, found {}", site.key, found(value)),
        site.span,
    )
    .with_primary_label(format!("expected {expected}"))
}

/// A help line showing how values of `ty` are written.
fn example(ty: Ty) -> String {
    match ty {
        Ty::String => "write a string in quotes: `\"…\"`".into(),
        Ty::StringOrList => "write a string, or a list of strings: `[\"a\", \"b\"]`".into(),
        Ty::Bool => "write `true` or `false`".into(),
        Ty::Int { .. } | Ty::Number { .. } => "write a number without quotes".into(),
        Ty::Duration => "write a duration such as `90s`, `15m` or `2h`".into(),
        Ty::Enum(spec) => format!("write one of {}", members(spec)),
        Ty::NodeRef => "write the name of a node of this workflow".into(),
        Ty::Backoff => format!(
            "write one of {}, or a map such as `{{ initial_delay: 1s, factor: 2.0 }}`",
            members(&BACKOFF_PRESETS)
        ),
        Ty::Choice => "write the label of one of the node's outgoing edges".into(),
        Ty::Stylesheet => {
            "write the stylesheet as a string: `\"* { llm_model: claude-opus-4-6; }\"`".into()
        }
    }
}

/// `value` described for a message: "the string \"15m\"".
pub fn found(value: &Value) -> String {
    match value {
        Value::Null => "`null`".into(),
        Value::Bool(b) => format!("the boolean `{b}`"),
        Value::Int(i) => format!("the integer `{i}`"),
        Value::Float(f) => format!("the float `{f:?}`"),
        Value::String(s) => format!("the string {}", short(s)),
        Value::Duration(ms) => format!("the duration `{}`", duration_literal(*ms)),
        Value::Ref(name) => format!("the name `{name}`"),
        Value::List(_) => "a list".into(),
        Value::Map(_) => "a map".into(),
    }
}

/// A string quoted for a message, shortened when long.
fn short(s: &str) -> String {
    if s.chars().count() <= MAX_QUOTED {
        return format!("{s:?}");
    }
    let head: String = s.chars().take(MAX_QUOTED).collect();
    format!("{:?}", format!("{head}…"))
}

/// The members of `spec` for messages: "`full`, `truncate` or `compact`".
pub fn members(spec: &EnumSpec) -> String {
    let quoted: Vec<String> = spec.values.iter().map(|v| format!("`{v}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}

fn boolean(site: Site, ty: Ty, value: &Value) -> Diagnostic {
    let diagnostic = mismatch(site, ty, value);
    let text = match value {
        Value::String(s) | Value::Ref(s) => s.trim().to_ascii_lowercase(),
        _ => String::new(),
    };
    if text == "true" || text == "false" {
        diagnostic
            .with_help("write the boolean without quotes")
            .with_fix_if(site, text, Applicability::MachineApplicable)
    } else {
        diagnostic.with_help(example(ty))
    }
}

/// WF0503.
fn out_of_range(site: Site, min: impl std::fmt::Display, shown: &str) -> Diagnostic {
    Diagnostic::new(
        &codes::ATTRIBUTE_OUT_OF_RANGE,
        format!("`{}` must be at least {min}, found {shown}", site.key),
        site.span,
    )
    .with_primary_label(format!("less than {min}"))
}

/// Why the minimum of an attribute is what it is.
fn range_help(key: &str, min: i64) -> String {
    match key {
        "retries" | "max_retries" | "default_retries" | "default_max_retry" => {
            "`0` means no retries: the node runs once".into()
        }
        "max_steps" => "a run needs at least one step; remove the attribute for the default".into(),
        _ => format!("use a value of at least {min}, or remove the attribute for the default"),
    }
}

fn integer(site: Site, ty: Ty, min: i64, value: &Value) -> Option<Diagnostic> {
    let (n, written_as) = match value {
        Value::Int(n) => (*n, None),
        Value::String(s) => match s.trim().replace('_', "").parse::<i64>() {
            Ok(n) => (n, Some("a string")),
            Err(_) => return Some(mismatch(site, ty, value).with_help(example(ty))),
        },
        Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => (*f as i64, Some("a float")),
        _ => return Some(mismatch(site, ty, value).with_help(example(ty))),
    };
    if n < min {
        let mut diagnostic =
            out_of_range(site, min, &format!("`{n}`")).with_help(range_help(site.key, min));
        if let Some(form) = written_as {
            diagnostic = diagnostic.with_note(format!("the value is written as {form}"));
        }
        return Some(diagnostic);
    }
    written_as.map(|form| {
        mismatch(site, ty, value)
            .with_help(format!(
                "`{n}` is written as {form}; write the integer itself"
            ))
            .with_fix_if(site, n.to_string(), Applicability::MachineApplicable)
    })
}

fn number(site: Site, ty: Ty, min: f64, value: &Value) -> Option<Diagnostic> {
    let (x, from_string) = match value {
        Value::Int(n) => (*n as f64, false),
        Value::Float(f) => (*f, false),
        Value::String(s) => match s.trim().parse::<f64>() {
            Ok(x) if x.is_finite() => (x, true),
            _ => return Some(mismatch(site, ty, value).with_help(example(ty))),
        },
        _ => return Some(mismatch(site, ty, value).with_help(example(ty))),
    };
    if x < min {
        return Some(
            out_of_range(site, min, &format!("`{x}`"))
                .with_help(format!("use a value of at least {min}")),
        );
    }
    from_string.then(|| {
        let literal = if x.fract() == 0.0 && x.abs() < 9.0e15 {
            format!("{}", x as i64)
        } else {
            format!("{x}")
        };
        mismatch(site, ty, value)
            .with_help("write the number without quotes")
            .with_fix_if(site, literal, Applicability::MachineApplicable)
    })
}

/// WF0502 for a zero duration.
fn zero(site: Site) -> Diagnostic {
    Diagnostic::new(
        &codes::INVALID_DURATION,
        format!("`{}` must be longer than zero", site.key),
        site.span,
    )
    .with_primary_label("a zero duration")
    .with_help("give a positive duration, or remove the attribute for the default")
}

fn duration(site: Site, ty: Ty, value: &Value) -> Option<Diagnostic> {
    let text = match value {
        Value::Duration(0) => return Some(zero(site)),
        Value::Duration(_) => return None,
        Value::Int(n) => {
            return Some(mismatch(site, ty, value).with_help(format!(
                "a duration needs a unit: `{n}s` for seconds, `{n}ms` for milliseconds"
            )));
        }
        Value::String(s) => s,
        _ => return Some(mismatch(site, ty, value).with_help(example(ty))),
    };
    if let Some(ms) = durations::literal(text.trim()) {
        if ms == 0 {
            return Some(zero(site).with_note(
                "the value is written as a string; durations are written without quotes",
            ));
        }
        return Some(
            mismatch(site, ty, value)
                .with_help("write the duration without quotes")
                .with_fix_if(
                    site,
                    text.trim().to_string(),
                    Applicability::MachineApplicable,
                ),
        );
    }
    let invalid = |label: &str| {
        Diagnostic::new(
            &codes::INVALID_DURATION,
            format!(
                "`{}` is {}, which is not a valid duration",
                site.key,
                found(value)
            ),
            site.span,
        )
        .with_primary_label(label.to_string())
    };
    Some(match durations::loose(text) {
        Some(Loose::Millis(0)) => zero(site),
        Some(Loose::Millis(ms)) => {
            let literal = duration_literal(ms);
            invalid("not a duration literal")
                .with_help(format!(
                    "a duration is one whole number and one unit (`ms`, `s`, `m`, `h`, `d`), without quotes: write `{literal}`"
                ))
                .with_fix_if(site, literal, Applicability::MachineApplicable)
        }
        Some(Loose::Negative) => invalid("a negative duration")
            .with_help("durations cannot be negative; give a positive duration"),
        Some(Loose::Unrepresentable) => invalid("not a whole number of milliseconds")
            .with_help("write a whole number of one unit, such as `90s` or `1500ms`"),
        None => mismatch(site, ty, value).with_help(example(ty)),
    })
}

/// WF0504 unless `written` is a member of `spec`.
fn member(site: Site, spec: &'static EnumSpec, written: &str, bare: bool) -> Option<Diagnostic> {
    if spec.values.contains(&written) {
        return None;
    }
    let diagnostic = Diagnostic::new(
        &codes::UNKNOWN_ATTRIBUTE_VALUE,
        format!("unknown {} `{written}` for `{}`", spec.what, site.key),
        site.span,
    )
    .with_primary_label(format!("not a {}", spec.what));
    let write = |member: &str| {
        if bare && is_plain_identifier(member) {
            member.to_string()
        } else {
            string_literal(member)
        }
    };
    if let Some(suggestion) = best_match(written, spec.values.iter().copied()) {
        return Some(
            diagnostic
                .with_help(format!("did you mean `{suggestion}`?"))
                .with_fix_if(site, write(suggestion), Applicability::MaybeIncorrect)
                .with_note(format!("`{}` accepts {}", site.key, members(spec))),
        );
    }
    if std::ptr::eq(spec, &BACKOFF_PRESETS) && written.eq_ignore_ascii_case("exponential") {
        return Some(
            diagnostic
                .with_help("`standard`, `aggressive` and `patient` all back off exponentially; `standard` waits 200ms and doubles the delay after each attempt")
                .with_fix_if(site, write("standard"), Applicability::MaybeIncorrect)
                .with_note(format!("`{}` accepts {}", site.key, members(spec))),
        );
    }
    Some(diagnostic.with_help(format!("use one of {}", members(spec))))
}

/// Checks the settings of `backoff = { … }`. The map's entries carry no
/// spans, so every diagnostic points at the whole map and none has a fix.
fn backoff_map(site: Site, entries: &[(String, Value)], out: &mut Vec<Diagnostic>) {
    for (key, value) in entries {
        let nested_key = format!("{}.{key}", site.key);
        let nested = Site {
            key: &nested_key,
            span: site.span,
            fixable: false,
        };
        match BACKOFF_FIELDS.iter().find(|(k, _)| k == key) {
            Some(&(_, ty)) => check(nested, ty, value, out),
            None => {
                let known = BACKOFF_FIELDS.iter().map(|(k, _)| *k);
                let settings: Vec<String> = known.clone().map(|k| format!("`{k}`")).collect();
                let diagnostic = Diagnostic::new(
                    &codes::ATTRIBUTE_TYPE_MISMATCH,
                    format!("`{}` has no setting `{key}`", site.key),
                    site.span,
                )
                .with_primary_label(format!("unknown setting `{key}`"))
                .with_note(format!(
                    "a custom backoff has the settings {}",
                    settings.join(", ")
                ));
                out.push(match best_match(key, known) {
                    Some(suggestion) => {
                        diagnostic.with_help(format!("did you mean `{suggestion}`?"))
                    }
                    None => diagnostic.with_help("remove it, or use a backoff preset"),
                });
            }
        }
    }
}
